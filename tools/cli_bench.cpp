// `rndnn bench`: times problems written as `rndnn gen` options or as
// dropout problems, against a memcpy of their output (dropout: of their
// data) and against the reference kernel (docs/cli.md).
//
// A problem goes through three steps: parse (every value checked, the
// primitive descriptors created, nothing allocated), prepare (primitives
// and buffers: what one execution runs), then measure, which is the same
// for every kind of problem. A kind (--prim) is one row of prim_kinds.
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <unordered_map>

#include <sys/stat.h>

#include "cli_bench.hpp"
#include "cli_output.hpp"

namespace rndnn_cli {

namespace {

using std::string;
using words_t = std::vector<string>;

// --- --prim rng ------------------------------------------------------------

void parse_rng(const po::variables_map &vm, problem_t &p) {
    p.rng = parse_rng_problem(vm);
    p.strm = rndnn::stream(p.rng.so.threads);
    p.rng_pds = pds_t<rndnn::rng>(
            p.rng.desc, p.rng.desc, p.rng.attr, p.max_isa);
    p.impl = p.rng_pds.impl.impl_name();
}

prepared_t prepare_rng(const problem_t &p) {
    const rndnn::memory::desc &md = p.rng_pds.impl.dst_desc();
    const stream_options_t &so = p.rng.so;
    const args_t args = {{RNDNN_ARG_DST, rndnn::memory(md)},
            {RNDNN_ARG_SEED, rndnn::memory::scalar(so.seed)},
            {RNDNN_ARG_OFFSET, rndnn::memory::scalar(so.offset)},
            {RNDNN_ARG_STREAM, rndnn::memory::scalar(so.stream_id)}};
    prepared_t t;
    t.elements = md.nelems();
    t.bytes = md.get_size();
    p.rng_pds.prepare(t, p.strm, args);
    return t;
}

// --- --prim dropout --------------------------------------------------------

// The problem of `rndnn dropout` (problem_dropout.hpp), its data of
// --shape and --dtype (f32 by default), a mask stored where --mask-dtype
// says (none by default), --rate 0.5 by default.
void parse_dropout(const po::variables_map &vm, problem_t &p) {
    using rndnn::prop_kind;
    if (!vm.count("shape")) throw usage_error("--shape is required");
    dropout_problem_t &dp = p.dropout;
    dp = parse_dropout_problem(vm, string("0.5"));
    const rndnn::dims shape = parse_shape("--shape", vm["shape"].as<string>());
    const rndnn::memory::desc data(shape,
            rndnn::str2dt(vm.count("dtype") ? vm["dtype"].as<string>()
                                            : string("f32")));
    dp.desc = dp.desc_for(data, dp.mask_dt);
    rndnn::dropout::desc &d = dp.desc;
    dp.inplace = vm.count("inplace") > 0;
    // Backward with a stored mask runs no RNG.
    if (!d.with_offset)
        for (const char *f : {"seed", "offset", "stream", "name"})
            if (given(vm, f))
                throw usage_error(string("--") + f
                        + " is not used by --backward with a stored mask"
                          " (--mask-dtype "
                        + rndnn::dt2str(dp.mask_dt) + ")");
    p.strm = rndnn::stream(dp.so.threads);

    // The reference plans freely: a fused plan needs a JIT kernel.
    rndnn::dropout::desc ref = d;
    ref.plan = rndnn::dropout_plan::any;
    p.dropout_pds = pds_t<rndnn::dropout>(d, ref, {}, p.max_isa);
    p.impl = p.dropout_pds.impl.impl_name();
    dp.check_offset(d);
}

// memset of a tensor's buffer, which is null when the tensor is empty.
void fill(const rndnn::memory &m, int byte) {
    const std::size_t size = m.get_desc().get_size();
    if (size) std::memset(m.get_data_handle(), byte, size);
}

prepared_t prepare_dropout(const problem_t &p) {
    const dropout_problem_t &dp = p.dropout;
    const rndnn::dropout::desc &d = dp.desc;
    const bool fwd = d.prop == rndnn::prop_kind::forward_training;
    // Data that never turns denormal: 0x3f bytes are 0.747 in f32, 0.746
    // in bf16 and 1.81 in f16, and in place a scale >= 1 only makes kept
    // values larger.
    const rndnn::memory src(d.src);
    fill(src, 0x3f);
    const rndnn::memory dst = dp.inplace ? src : rndnn::memory(d.dst);
    if (!dp.inplace) fill(dst, 0);
    args_t args = {{fwd ? RNDNN_ARG_SRC : RNDNN_ARG_DIFF_DST, src},
            {fwd ? RNDNN_ARG_DST : RNDNN_ARG_DIFF_SRC, dst}};
    const args_t rng_args
            = {{RNDNN_ARG_SEED, rndnn::memory::scalar(dp.so.seed)},
                    {RNDNN_ARG_OFFSET, rndnn::memory::scalar(dp.so.offset)},
                    {RNDNN_ARG_STREAM,
                            rndnn::memory::scalar(dp.so.stream_id)}};
    if (d.with_offset) args.insert(rng_args.begin(), rng_args.end());
    if (!d.mask.is_zero()) {
        const rndnn::memory mask(d.mask);
        fill(mask, 0);
        args.emplace(RNDNN_ARG_MASK, mask);
        if (!fwd) {
            // The stored mask backward reads: forward's, from the same
            // stream.
            rndnn::dropout::desc fd = d;
            fd.prop = rndnn::prop_kind::forward_training;
            fd.with_offset = true;
            args_t fwd_args = rng_args;
            fwd_args.emplace(RNDNN_ARG_SRC, src);
            fwd_args.emplace(RNDNN_ARG_DST, dst);
            fwd_args.emplace(RNDNN_ARG_MASK, mask);
            rndnn::dropout(rndnn::dropout::primitive_desc(fd))
                    .execute(p.strm, fwd_args);
        }
    }
    prepared_t t;
    t.elements = d.src.nelems();
    t.bytes = d.src.get_size();
    p.dropout_pds.prepare(t, p.strm, args);
    return t;
}

// --- problems --------------------------------------------------------------

// Adding a kind: a row here, its options in problem_options(), and a part
// of problem_t. Options shared by kinds: --shape, --dtype, --method and the
// stream options (--alg, --seed, --offset, --stream, --name, --threads).
std::vector<const char *> dropout_bench_flags() {
    std::vector<const char *> own = dropout_own_flags();
    own.push_back("inplace");
    return own;
}

const prim_kind_t prim_kinds[] = {
        {"rng", parse_rng, prepare_rng,
                {"dist", "p", "a", "b", "mean", "stddev"}},
        {"dropout", parse_dropout, prepare_dropout, dropout_bench_flags()},
};

const prim_kind_t &find_kind(const string &name) {
    string names;
    for (const prim_kind_t &k : prim_kinds) {
        if (name == k.name) return k;
        names += string(names.empty() ? "" : ", ") + k.name;
    }
    throw usage_error("unknown --prim '" + name + "' (expected " + names + ")");
}

} // namespace

po::options_description problem_options() {
    po::options_description desc(
            "Problem options (on the command line or in a --batch file)");
    auto opt = desc.add_options();
    opt("prim", text("rng"),
            "primitive: rng, or dropout, which takes the dropout options below"
            " (those of rndnn dropout, with --shape and --dtype (f32, the"
            " default, bf16, f16) for --in, --mask-dtype for --mask-out and"
            " --mask-in) and --method and the stream options");
    opt("isa", text(),
            "cap on the ISA of the implementation: none (the reference "
            "kernel), sse41, avx2, avx512, all; default: all (no cap)");
    add_rng_problem_options(desc);
    add_dropout_problem_options(desc, dropout_cli_t::bench);
    desc.add_options()("inplace",
            "dropout: dst (diff_src) is the memory of src (diff_dst)");
    return desc;
}

problem_t parse_problem(const words_t &words, const string &text,
        const po::options_description &desc) {
    po::variables_map vm;
    parse_options(words, desc, "", vm); // desc has no --help
    problem_t p;
    p.text = text;
    p.kind = &find_kind(vm["prim"].as<string>());
    if (vm.count("isa")) p.max_isa = rndnn::str2isa(vm["isa"].as<string>());
    for (const prim_kind_t &k : prim_kinds)
        if (&k != p.kind)
            for (const char *f : k.own)
                if (given(vm, f))
                    throw usage_error(string("--") + f
                            + " is only used with --prim " + k.name);
    p.kind->parse(vm, p);
    return p;
}

words_t split_words(const string &line) {
    words_t words;
    const char *space = " \t\r";
    size_t start = line.find_first_not_of(space);
    while (start != string::npos) {
        const size_t end = line.find_first_of(space, start);
        words.push_back(line.substr(start, end - start));
        start = line.find_first_not_of(space, end);
    }
    return words;
}

namespace {

// Reads the next line of @p is (without its '\n') into @p line.
// @returns false at the end of the stream.
// @throws usage_error (@p where first) for a line longer than
//     max_batch_line bytes, before reading the rest of it.
bool read_line(std::istream &is, string &line, const string &where) {
    line.clear();
    char c;
    bool any = false;
    while (is.get(c)) {
        any = true;
        if (c == '\n') return true;
        if (line.size() == max_batch_line)
            throw usage_error(where + "the line is longer than "
                    + std::to_string(max_batch_line) + " bytes");
        line.push_back(c);
    }
    return any;
}

} // namespace

void for_each_batch_problem(std::istream &is, const string &name,
        const po::options_description &desc,
        const std::function<void(const problem_t &)> &each) {
    int lineno = 0;
    bool any = false;
    string line;
    while (read_line(is, line, name + ":" + std::to_string(lineno + 1) + ": ")) {
        ++lineno;
        const string where = name + ":" + std::to_string(lineno) + ": ";
        // A NUL would end the message that quotes the line.
        const size_t nul = line.find('\0');
        if (nul != string::npos)
            throw usage_error(where + "the line holds a NUL byte (at byte "
                    + std::to_string(nul + 1) + ")");
        const size_t first = line.find_first_not_of(" \t\r");
        if (first == string::npos || line[first] == '#') continue;
        const string text = line.substr(
                first, line.find_last_not_of(" \t\r") + 1 - first);
        problem_t p;
        try {
            p = parse_problem(split_words(text), text, desc);
        } catch (const usage_error &e) {
            throw usage_error(where + e.what());
        } catch (const po::error &e) {
            throw usage_error(where + e.what());
        } catch (const rndnn::error &e) {
            throw rndnn::error(e.status(), where + e.what());
        }
        any = true;
        each(p);
    }
    if (is.bad())
        throw io_error("cannot read --batch '" + name
                + "': " + std::strerror(errno));
    if (!any) throw usage_error("--batch '" + name + "' holds no problem");
}

namespace {

// Runs the problems of the --batch file at @p path: every line is parsed
// and checked before the first problem runs (the first pass also finds
// the width of the impl column), then the file is read again and each
// problem is made and run in turn. A file that cannot seek (a pipe) keeps
// its problems' text between the passes.
void run_batch_file(const string &path, const po::options_description &desc,
        const std::function<void(int width)> &header,
        const std::function<void(const problem_t &, int width)> &run) {
    struct stat st;
    if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
        throw io_error("cannot read --batch '" + path + "': it is a directory");
    std::ifstream is(path);
    if (!is)
        throw io_error("cannot read --batch '" + path
                + "': " + std::strerror(errno));
    const bool rewinds = is.tellg() != std::streampos(-1);
    size_t width = 12;
    std::vector<string> texts;
    for_each_batch_problem(is, path, desc, [&](const problem_t &p) {
        width = std::max(width, p.impl.size());
        if (!rewinds) texts.push_back(p.text);
    });
    header(static_cast<int>(width));
    if (!rewinds) {
        for (const string &text : texts)
            run(parse_problem(split_words(text), text, desc),
                    static_cast<int>(width));
        return;
    }
    is.clear();
    is.seekg(0);
    for_each_batch_problem(is, path, desc, [&](const problem_t &p) {
        run(p, static_cast<int>(width));
    });
}

// --- measurement -----------------------------------------------------------

double seconds(const std::function<void()> &f) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    const auto t1 = std::chrono::steady_clock::now();
    return std::chrono::duration<double>(t1 - t0).count();
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

// Copies @p n bytes on up to @p nthr threads, each a contiguous slice of
// at least 64 KiB (so a small copy is not all fork and join): the way a
// problem on that many threads writes its output.
void copy_bytes(void *dst, const void *src, size_t n, int nthr) {
    if (n == 0) return; // an empty tensor's buffers may be null
    constexpr size_t min_slice = size_t(64) << 10;
    const size_t most = std::max(n / min_slice, size_t(1));
    nthr = static_cast<int>(std::min(size_t(std::max(nthr, 1)), most));
    if (nthr == 1) {
        std::memcpy(dst, src, n);
        return;
    }
    const size_t slice = (n / size_t(nthr) + 63) / 64 * 64;
#pragma omp parallel for num_threads(nthr) schedule(static, 1)
    for (int t = 0; t < nthr; ++t) {
        const size_t begin = std::min(n, size_t(t) * slice);
        const size_t end = std::min(n, begin + slice);
        std::memcpy(static_cast<char *>(dst) + begin,
                static_cast<const char *>(src) + begin, end - begin);
    }
}

struct medians_t {
    double impl, memcpy, ref; // seconds
};

// Warms up, then times @p runs executions of the implementation, the
// memcpy and the reference, interleaved so that noise hits all three
// alike.
medians_t measure(const prepared_t &t, int nthr, int runs) {
    // Two buffers allocated and touched here: the copy measures bandwidth,
    // not page faults. The destination escapes into memory objects that
    // outlive the timing, so the compiler cannot drop the copies.
    const rndnn::memory::desc md(
            {static_cast<rndnn::dim_t>(t.bytes)}, rndnn::data_type::u8);
    rndnn::memory src(md), dst(md);
    if (t.bytes) {
        std::memset(src.get_data_handle(), 1, t.bytes);
        std::memset(dst.get_data_handle(), 0, t.bytes);
    }
    const std::function<void()> copy = [&] {
        copy_bytes(dst.get_data_handle(), src.get_data_handle(), t.bytes,
                nthr);
    };

    t.run_impl();
    copy();
    if (t.run_ref) t.run_ref();
    std::vector<double> ti, tm, tr;
    for (int r = 0; r < runs; ++r) {
        ti.push_back(seconds(t.run_impl));
        tm.push_back(seconds(copy));
        if (t.run_ref) tr.push_back(seconds(t.run_ref));
    }
    const double impl = median(ti);
    return {impl, median(tm), t.run_ref ? median(tr) : impl};
}

// --- output ----------------------------------------------------------------

string num(const char *format, double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, format, v);
    return buf;
}

// RFC 4180: always quoted, an embedded quote doubled.
string csv_quote(const string &s) {
    string q = "\"";
    for (char c : s)
        q += c == '"' ? string("\"\"") : string(1, c);
    return q + "\"";
}

const char *const csv_header = "problem,impl,threads,elements,median_s,"
                               "gelem_per_s,gb_per_s,ratio_to_memcpy,"
                               "ratio_to_reference";

// @p width: the impl column's, at least the longest name of the run (dropout
// names its plan and every kernel: "chain:jit:avx2+jit:avx2+onednn:...").
void print_header(bool csv, int width) {
    if (csv) {
        std::cout << csv_header << "\n";
        return;
    }
    char line[256];
    std::snprintf(line, sizeof line, "%-*s %7s %12s %12s %9s %9s %9s %9s  %s",
            width, "impl", "threads", "elements", "median_s", "Gelem/s", "GB/s",
            "to_memcpy", "to_ref", "problem");
    std::cout << line << "\n";
}

void print_result(bool csv, int width, const problem_t &p,
        const prepared_t &t, const medians_t &m) {
    const double elements = static_cast<double>(t.elements);
    const double bytes = static_cast<double>(t.bytes);
    const double gelem = elements / m.impl / 1e9;
    const double gb = bytes / m.impl / 1e9;
    const double to_memcpy = m.memcpy / m.impl;
    const double to_ref = m.ref / m.impl;
    const int threads = p.strm.get_nthreads();
    if (csv) {
        std::cout << csv_quote(rndnn::escape(p.text)) << "," << p.impl << "," << threads
                  << "," << t.elements << "," << num("%.6g", m.impl) << ","
                  << num("%.6g", gelem) << "," << num("%.6g", gb) << ","
                  << num("%.4g", to_memcpy) << "," << num("%.4g", to_ref)
                  << "\n";
    } else {
        char line[256];
        std::snprintf(line, sizeof line,
                "%-*s %7d %12lld %12.6g %9.4g %9.4g %9.3g %9.3g  ", width,
                p.impl.c_str(), threads, static_cast<long long>(t.elements),
                m.impl, gelem, gb, to_memcpy, to_ref);
        std::cout << line << rndnn::escape(p.text) << "\n";
    }
    flush_stdout(); // stops at a closed pipe

}

const char *const usage
        = "rndnn bench [problem options] [--runs N] [--csv]\n"
          "       rndnn bench --batch FILE [--runs N] [--csv]\n"
          "\n"
          "Times problems written as `rndnn gen` options (--prim rng, the\n"
          "default) or as dropout problems (--prim dropout). Each primitive\n"
          "is created once and run once to warm up; then N rounds (--runs)\n"
          "each time, in turn: the implementation; a memcpy of its bytes\n"
          "(rng: the dst's get_size(); dropout: the data's, src) between two\n"
          "buffers touched beforehand, on the problem's threads (each copying\n"
          "at least 64 KiB); and the reference kernel (the same problem with\n"
          "--isa none). t_impl, t_memcpy and t_ref are the medians of the N\n"
          "times, in seconds:\n"
          "\n"
          "  median_s            t_impl\n"
          "  Gelem/s             elements / t_impl / 1e9\n"
          "  GB/s                the memcpy's bytes / t_impl / 1e9\n"
          "  ratio_to_memcpy     t_memcpy / t_impl (> 1: faster than\n"
          "                      copying those bytes once)\n"
          "  ratio_to_reference  t_ref / t_impl (> 1: faster than the\n"
          "                      reference; exactly 1 when the implementation\n"
          "                      is the reference, which then runs once)\n"
          "\n"
          "--csv prints the header\n"
          "  problem,impl,threads,elements,median_s,gelem_per_s,gb_per_s,"
          "ratio_to_memcpy,ratio_to_reference\n"
          "then one row per problem; problem is the problem's options as\n"
          "written, double-quoted.";

} // namespace

int bench_main(int argc, char **argv) {
    const po::options_description problem_desc = problem_options();
    po::options_description bench_desc("Benchmark options");
    auto opt = bench_desc.add_options();
    opt("help", "print this help and exit");
    opt("batch", text(),
            "file of problems, one per line (blank lines and lines starting "
            "with # skipped); not with problem options");
    opt("runs", text("11"), "timed runs per problem, >= 1 (the median counts)");
    opt("csv", "print CSV instead of aligned columns");
    po::options_description all;
    all.add(bench_desc).add(problem_desc);

    po::variables_map vm;
    std::vector<po::option> parsed;
    if (!parse_options(
                words_t(argv + 1, argv + argc), all, usage, vm, &parsed))
        return exit_ok;

    const string runs_text = vm["runs"].as<string>();
    const int runs = parse_int("--runs", runs_text);
    if (runs < 1)
        throw usage_error("--runs " + runs_text + " must be at least 1");
    const bool csv = vm.count("csv") > 0;

    // The problem options of the command line, as written: the problem
    // then reads the same as it would on a line of a batch file.
    words_t problem_words;
    for (const po::option &o : parsed)
        if (problem_desc.find_nothrow(o.string_key, false))
            problem_words.insert(problem_words.end(),
                    o.original_tokens.begin(), o.original_tokens.end());

    const auto run = [&](const problem_t &p, int width) {
        const prepared_t t = p.kind->prepare(p);
        const medians_t m = measure(t, p.strm.get_nthreads(), runs);
        print_result(csv, width, p, t, m);
    };
    if (vm.count("batch")) {
        if (!problem_words.empty())
            throw usage_error("--batch takes no problem options on the"
                              " command line (got '"
                    + problem_words[0]
                    + "'): write them in the batch file");
        run_batch_file(vm["batch"].as<string>(), problem_desc,
                [&](int width) { print_header(csv, width); }, run);
        return exit_ok;
    }
    if (problem_words.empty())
        throw usage_error("no problem given: write one with problem"
                          " options (at least --shape) or give --batch"
                          " FILE");
    string text;
    for (const string &w : problem_words)
        text += (text.empty() ? "" : " ") + w;
    const problem_t p = parse_problem(problem_words, text, problem_desc);
    const int width = static_cast<int>(std::max<size_t>(12, p.impl.size()));
    print_header(csv, width);
    run(p, width);
    return exit_ok;
}

} // namespace rndnn_cli
