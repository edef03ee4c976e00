// `rndnn bench`: times problems written as `rndnn gen` options, against a
// memcpy of their output and against the reference kernel (docs/cli.md).
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

#include "cli_common.hpp"

namespace rndnn_cli {

namespace {

using std::string;
using words_t = std::vector<string>;

struct prim_kind_t;

// One problem, parsed and checked.
struct problem_t {
    string text; // as written: the csv problem column
    const prim_kind_t *kind = nullptr; // --prim
    rndnn::cpu_isa max_isa = rndnn::cpu_isa::avx512; // --isa; no cap
    rndnn::stream strm; // --threads

    // --prim rng: the problem, its primitive descriptor (under the --isa
    // cap) and the reference's (cap none).
    rng_problem_t rng;
    rndnn::rng::primitive_desc rng_pd, rng_ref_pd;
};

// A problem ready to time: primitives created, buffers allocated.
struct prepared_t {
    string impl; // the implementation under test, e.g. "jit:avx2"
    std::int64_t elements = 0;
    std::size_t bytes = 0; // output bytes: the dst desc's get_size()
    std::function<void()> run_impl; // one execution
    // One execution of the reference; empty when run_impl is the
    // reference already (then it is timed once and the ratio is 1).
    std::function<void()> run_ref;
};

// A kind of problem (--prim): parse() fills the kind's part of a problem
// from its options and checks it, allocating nothing; prepare() makes a
// parsed problem ready to time.
struct prim_kind_t {
    const char *name;
    void (*parse)(const po::variables_map &vm, problem_t &p);
    prepared_t (*prepare)(const problem_t &p);
};

// --- --prim rng ------------------------------------------------------------

void parse_rng(const po::variables_map &vm, problem_t &p) {
    p.rng = parse_rng_problem(vm);
    p.strm = rndnn::stream(p.rng.so.threads);
    rndnn::primitive_attr attr = p.rng.attr;
    attr.set_max_cpu_isa(p.max_isa);
    p.rng_pd = rndnn::rng::primitive_desc(p.rng.desc, attr);
    attr.set_max_cpu_isa(rndnn::cpu_isa::none);
    p.rng_ref_pd = rndnn::rng::primitive_desc(p.rng.desc, attr);
}

prepared_t prepare_rng(const problem_t &p) {
    const rndnn::memory::desc &md = p.rng_pd.dst_desc();
    const stream_options_t &so = p.rng.so;
    // Both kernels write the same buffer, so that neither gets a cold one.
    const std::unordered_map<int, rndnn::memory> args
            = {{RNDNN_ARG_DST, rndnn::memory(md)},
                    {RNDNN_ARG_SEED, rndnn::memory::scalar(so.seed)},
                    {RNDNN_ARG_OFFSET, rndnn::memory::scalar(so.offset)},
                    {RNDNN_ARG_STREAM, rndnn::memory::scalar(so.stream_id)}};
    const rndnn::stream strm = p.strm;
    prepared_t t;
    t.impl = p.rng_pd.impl_name();
    t.elements = md.nelems();
    t.bytes = md.get_size();
    const rndnn::rng prim(p.rng_pd);
    t.run_impl = [prim, strm, args] { prim.execute(strm, args); };
    if (t.impl != p.rng_ref_pd.impl_name()) {
        const rndnn::rng ref(p.rng_ref_pd);
        t.run_ref = [ref, strm, args] { ref.execute(strm, args); };
    }
    return t;
}

// --- problems --------------------------------------------------------------

// Adding a kind: a row here, its options in problem_options(), and a part
// of problem_t.
const prim_kind_t prim_kinds[] = {
        {"rng", parse_rng, prepare_rng},
};

const prim_kind_t &find_kind(const string &name) {
    string names;
    for (const prim_kind_t &k : prim_kinds) {
        if (name == k.name) return k;
        names += string(names.empty() ? "" : ", ") + k.name;
    }
    throw usage_error("unknown --prim '" + name + "' (expected " + names + ")");
}

// The options that write one problem, on the command line or on a line of
// a --batch file.
po::options_description problem_options() {
    po::options_description desc(
            "Problem options (on the command line or in a --batch file)");
    auto opt = desc.add_options();
    opt("prim", text("rng"), "primitive: rng");
    opt("isa", text(),
            "cap on the ISA of the implementation: none (the reference "
            "kernel), sse41, avx2, avx512; default: no cap");
    add_rng_problem_options(desc);
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

// Parses every problem of a batch file before any is run: a bad line is
// reported as FILE:LINE: message.
std::vector<problem_t> read_batch(
        const string &path, const po::options_description &desc) {
    struct stat st;
    if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
        throw io_error("cannot read --batch '" + path + "': it is a directory");
    std::ifstream is(path);
    if (!is)
        throw io_error("cannot read --batch '" + path
                + "': " + std::strerror(errno));
    std::vector<problem_t> problems;
    int lineno = 0;
    for (string line; std::getline(is, line);) {
        ++lineno;
        const size_t first = line.find_first_not_of(" \t\r");
        if (first == string::npos || line[first] == '#') continue;
        const string text = line.substr(
                first, line.find_last_not_of(" \t\r") + 1 - first);
        const string where = path + ":" + std::to_string(lineno) + ": ";
        try {
            problems.push_back(parse_problem(split_words(text), text, desc));
        } catch (const usage_error &e) {
            throw usage_error(where + e.what());
        } catch (const po::error &e) {
            throw usage_error(where + e.what());
        } catch (const rndnn::error &e) {
            throw rndnn::error(e.status(), where + e.what());
        }
    }
    if (is.bad())
        throw io_error("cannot read --batch '" + path
                + "': " + std::strerror(errno));
    if (problems.empty())
        throw usage_error("--batch '" + path + "' holds no problem");
    return problems;
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

void print_header(bool csv) {
    if (csv) {
        std::cout << csv_header << "\n";
        return;
    }
    char line[160];
    std::snprintf(line, sizeof line, "%-12s %7s %12s %12s %9s %9s %9s %9s  %s",
            "impl", "threads", "elements", "median_s", "Gelem/s", "GB/s",
            "to_memcpy", "to_ref", "problem");
    std::cout << line << "\n";
}

void print_result(bool csv, const problem_t &p, const prepared_t &t,
        const medians_t &m) {
    const double elements = static_cast<double>(t.elements);
    const double bytes = static_cast<double>(t.bytes);
    const double gelem = elements / m.impl / 1e9;
    const double gb = bytes / m.impl / 1e9;
    const double to_memcpy = m.memcpy / m.impl;
    const double to_ref = m.ref / m.impl;
    const int threads = p.strm.get_nthreads();
    if (csv) {
        std::cout << csv_quote(p.text) << "," << t.impl << "," << threads
                  << "," << t.elements << "," << num("%.6g", m.impl) << ","
                  << num("%.6g", gelem) << "," << num("%.6g", gb) << ","
                  << num("%.4g", to_memcpy) << "," << num("%.4g", to_ref)
                  << "\n";
    } else {
        char line[160];
        std::snprintf(line, sizeof line,
                "%-12s %7d %12lld %12.6g %9.4g %9.4g %9.3g %9.3g  ",
                t.impl.c_str(), threads, static_cast<long long>(t.elements),
                m.impl, gelem, gb, to_memcpy, to_ref);
        std::cout << line << p.text << "\n";
    }
    std::cout.flush();
}

const char *const usage
        = "rndnn bench [problem options] [--runs N] [--csv]\n"
          "       rndnn bench --batch FILE [--runs N] [--csv]\n"
          "\n"
          "Times problems written as `rndnn gen` options. Each primitive is\n"
          "created once and run once to warm up; then N rounds (--runs) each\n"
          "time, in turn: the implementation; a memcpy of its output bytes\n"
          "(the dst's get_size()) between two buffers touched beforehand, on\n"
          "the problem's threads (each copying at least 64 KiB); and the\n"
          "reference kernel (the same problem with --isa none). t_impl,\n"
          "t_memcpy and t_ref are the medians of the N times, in seconds:\n"
          "\n"
          "  median_s            t_impl\n"
          "  Gelem/s             elements / t_impl / 1e9\n"
          "  GB/s                output bytes / t_impl / 1e9\n"
          "  ratio_to_memcpy     t_memcpy / t_impl (> 1: faster than\n"
          "                      copying the output once)\n"
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

    // Every problem is checked before the first one runs.
    std::vector<problem_t> problems;
    if (vm.count("batch")) {
        if (!problem_words.empty())
            throw usage_error("--batch takes no problem options on the"
                              " command line (got '"
                    + problem_words[0]
                    + "'): write them in the batch file");
        problems = read_batch(vm["batch"].as<string>(), problem_desc);
    } else {
        if (problem_words.empty())
            throw usage_error("no problem given: write one with problem"
                              " options (at least --shape) or give --batch"
                              " FILE");
        string text;
        for (const string &w : problem_words)
            text += (text.empty() ? "" : " ") + w;
        problems.push_back(parse_problem(problem_words, text, problem_desc));
    }

    print_header(csv);
    for (const problem_t &p : problems) {
        const prepared_t t = p.kind->prepare(p);
        const medians_t m = measure(t, p.strm.get_nthreads(), runs);
        print_result(csv, p, t, m);
    }
    if (!std::cout) throw io_error("cannot write to stdout");
    return exit_ok;
}

} // namespace rndnn_cli
