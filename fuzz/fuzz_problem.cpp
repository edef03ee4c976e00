// libFuzzer target: the CLI's problem parsers on one line of words, through
// primitive creation and, for small problems, execution.
//
// The input's first line is split into words as a --batch line is, and the
// words go to three parsers:
// - `rndnn gen`'s options (parse_rng_problem): the rng primitive is
//   created, and run when the problem is small;
// - `rndnn bench`'s problem (parse_problem: --prim rng or dropout, --isa):
//   the implementation and the reference are run on their own guarded
//   buffers and must write the same bytes, then bench's own prepare() runs
//   (--prim softmax_dropout: prepare() and its runs only);
// - `rndnn dropout` itself (dropout_main) in a scratch directory that holds
//   a few .npy inputs (words holding a '/' are dropped, so every path stays
//   in it; what a run writes there is removed after it).
// Expected: usage_error, po::error, rndnn::error (io_error from `rndnn
// dropout`), whose messages are built as the CLI prints them. Anything
// else (a crash, a sanitizer report, another exception, an execution that
// throws, outputs that differ, a write outside a buffer, a timeout) is a
// finding.
//
// libFuzzer writes crash files into the working directory unless
// -artifact_prefix says where: this target changes into its scratch
// directory, so give an absolute -artifact_prefix (scripts/fuzz.sh does).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <set>
#include <string>
#include <vector>

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/cli_bench_batch.hpp"
#include "bench/cli_bench_problem.hpp"
#include "fuzz/fuzz_util.hpp"

namespace {

using namespace rndnn_cli;
using rndnn_fuzz::finding;
using rndnn_fuzz::guarded_buf;
using std::string;

// Problems with more elements (or bytes) are parsed and their primitives
// created, but not run: memory and time stay bounded.
constexpr std::int64_t max_elements = std::int64_t(1) << 16;
constexpr std::size_t max_bytes = std::size_t(1) << 20;
// Threads a run uses at most (the --threads of a problem is any int).
constexpr int max_threads = 2;

int clamp_threads(int n) { return std::min(std::max(n, 1), max_threads); }

// Runs @p f: an expected exception is fine once its message is built, as
// the CLI prints it (run_guarded); io_error only where @p files.
template <typename F>
void expected_errors_only(const F &f, bool files = false) {
    const auto message = [](const std::exception &e) {
        if (e.what() == nullptr) finding("an exception without message");
    };
    try {
        f();
    } catch (const usage_error &e) {
        message(e);
    } catch (const po::error &e) {
        message(e);
    } catch (const rndnn::error &e) {
        message(e);
    } catch (const io_error &e) {
        if (!files) throw;
        message(e);
    }
}

// Data that is finite in f32, bf16 and f16 alike (no NaN payloads to
// compare), from a fixed LCG: every run of a problem sees the same data.
void fill_data(unsigned char *p, std::size_t n, rndnn::data_type dt) {
    std::uint32_t s = 12345;
    for (std::size_t i = 0; i < n; ++i) {
        s = s * 1103515245u + 12345u;
        p[i] = static_cast<unsigned char>(s >> 24);
    }
    // Clear one exponent bit where a value would be inf or NaN.
    if (dt == rndnn::data_type::f32)
        for (std::size_t i = 3; i < n; i += 4)
            if ((p[i] & 0x7f) == 0x7f && (p[i - 1] & 0x80)) p[i] &= 0xbf;
    if (dt == rndnn::data_type::bf16)
        for (std::size_t i = 1; i < n; i += 2)
            if ((p[i] & 0x7f) == 0x7f && (p[i - 1] & 0x80)) p[i] &= 0xbf;
    if (dt == rndnn::data_type::f16)
        for (std::size_t i = 1; i < n; i += 2)
            if ((p[i] & 0x7c) == 0x7c) p[i] &= 0xbf;
}

bool small(const rndnn::memory::desc &md) {
    return md.nelems() <= max_elements && md.get_size() <= max_bytes;
}

// Runs @p f, a primitive's execution with arguments that fit its
// descriptor: an error there is a finding.
template <typename F>
void must_run(const string &what, const F &f) {
    try {
        f();
    } catch (const std::exception &e) {
        finding(what + " threw: " + e.what());
    }
}

// --- rndnn gen ---------------------------------------------------------------

void run_rng(const rndnn::rng::primitive_desc &pd, const stream_options_t &so,
        int nthr, guarded_buf &dst) {
    const rndnn::rng prim(pd);
    must_run(string("rng ") + pd.impl_name(), [&] {
        prim.execute(rndnn::stream(nthr),
                {{RNDNN_ARG_DST, rndnn::memory(pd.dst_desc(), dst.data())},
                        {RNDNN_ARG_SEED, rndnn::memory::scalar(so.seed)},
                        {RNDNN_ARG_OFFSET, rndnn::memory::scalar(so.offset)},
                        {RNDNN_ARG_STREAM,
                                rndnn::memory::scalar(so.stream_id)}});
    });
    dst.check_guards(string("rng ") + pd.impl_name());
}

// The rng problem with its own cap and the reference: the same bytes.
void compare_rng(const rng_problem_t &p, rndnn::cpu_isa max_isa, int nthr) {
    rndnn::primitive_attr attr = p.attr;
    attr.set_max_cpu_isa(max_isa);
    const rndnn::rng::primitive_desc impl(p.desc, attr);
    attr.set_max_cpu_isa(rndnn::cpu_isa::none);
    const rndnn::rng::primitive_desc ref(p.desc, attr);
    if (!small(impl.dst_desc())) return;
    guarded_buf a(impl.dst_desc().get_size()), b(ref.dst_desc().get_size());
    run_rng(impl, p.so, nthr, a);
    run_rng(ref, p.so, 1, b);
    rndnn_fuzz::expect_same_bytes(a, b,
            string("rng ") + impl.impl_name() + " against "
                    + ref.impl_name());
}

void fuzz_gen(const std::vector<string> &words) {
    po::options_description desc;
    add_rng_problem_options(desc);
    po::variables_map vm;
    parse_options(words, desc, "", vm);
    const rng_problem_t p = parse_rng_problem(vm);
    // As `rndnn gen` does: a stream, then the primitive.
    const rndnn::stream strm(p.so.threads);
    compare_rng(p, rndnn::cpu_isa::avx512, clamp_threads(strm.get_nthreads()));
}

// --- rndnn bench's problem ---------------------------------------------------

// One dropout execution on its own buffers: data, dst (unless in place),
// mask; the stored mask of a backward is a fixed pattern.
struct dropout_run_t {
    guarded_buf src, dst, mask;

    dropout_run_t(const rndnn::dropout::primitive_desc &pd, bool inplace,
            const stream_options_t &so, int nthr)
        : src(pd.get_desc().src.get_size()),
          dst(inplace ? 0 : pd.get_desc().dst.get_size()),
          mask(pd.get_desc().mask.is_zero() ? 0
                                            : pd.get_desc().mask.get_size()) {
        const rndnn::dropout::desc &d = pd.get_desc();
        const bool fwd = d.prop == rndnn::prop_kind::forward_training;
        fill_data(src.data(), src.size(), d.src.get_data_type());
        if (!fwd) fill_data(mask.data(), mask.size(), rndnn::data_type::u8);
        const rndnn::memory s(d.src, src.data());
        const rndnn::memory t
                = inplace ? s : rndnn::memory(d.dst, dst.data());
        args_t args = {{fwd ? RNDNN_ARG_SRC : RNDNN_ARG_DIFF_DST, s},
                {fwd ? RNDNN_ARG_DST : RNDNN_ARG_DIFF_SRC, t}};
        if (!d.mask.is_zero())
            args.emplace(RNDNN_ARG_MASK, rndnn::memory(d.mask, mask.data()));
        if (d.with_offset) {
            args.emplace(RNDNN_ARG_SEED, rndnn::memory::scalar(so.seed));
            args.emplace(RNDNN_ARG_OFFSET, rndnn::memory::scalar(so.offset));
            args.emplace(
                    RNDNN_ARG_STREAM, rndnn::memory::scalar(so.stream_id));
        }
        const string what = string("dropout ") + pd.impl_name();
        const rndnn::dropout prim(pd);
        must_run(what, [&] { prim.execute(rndnn::stream(nthr), args); });
        src.check_guards(what + " src");
        dst.check_guards(what + " dst");
        mask.check_guards(what + " mask");
    }
};

void compare_dropout(const problem_t &p, int nthr) {
    const pds_t<rndnn::dropout> &pds = p.dropout_pds;
    const rndnn::dropout::desc &d = pds.impl.get_desc();
    if (!small(d.src)) return;
    const bool inplace = p.dropout.inplace;
    const dropout_run_t a(pds.impl, inplace, p.dropout.so, nthr);
    const dropout_run_t b(pds.ref, inplace, p.dropout.so, 1);
    const string what = string("dropout ") + pds.impl.impl_name()
            + " against " + pds.ref.impl_name();
    rndnn_fuzz::expect_same_bytes(a.src, b.src, what + " (src)");
    rndnn_fuzz::expect_same_bytes(a.dst, b.dst, what + " (dst)");
    rndnn_fuzz::expect_same_bytes(a.mask, b.mask, what + " (mask)");
}

void fuzz_bench_problem(const std::vector<string> &words,
        const po::options_description &desc) {
    string text;
    for (const string &w : words)
        text += (text.empty() ? "" : " ") + w;
    const problem_t p = parse_problem(words, text, desc);
    if (p.kind == nullptr || p.impl.empty())
        finding("parse_problem returned a problem without kind or impl");
    const int nthr = clamp_threads(p.strm.get_nthreads());
    std::int64_t elements;
    if (string(p.kind->name) == "rng") {
        if (!small(p.rng_pds.impl.dst_desc())) return;
        compare_rng(p.rng, p.max_isa, nthr);
        elements = p.rng_pds.impl.dst_desc().nelems();
    } else if (string(p.kind->name) == "softmax_dropout") {
        // Fused and unfused differ in the last bits: bench's runs below
        // are the check (the graph tests compare them).
        if (!small(p.scores)) return;
        elements = p.scores.nelems();
    } else {
        if (!small(p.dropout_pds.impl.get_desc().src)) return;
        compare_dropout(p, nthr);
        elements = p.dropout_pds.impl.get_desc().src.nelems();
    }
    // bench's own preparation, then one run of each, as its warm-up, on
    // at most max_threads threads.
    problem_t q = p;
    q.strm = rndnn::stream(nthr);
    prepared_t t;
    must_run("bench prepare " + q.impl, [&] { t = q.kind->prepare(q); });
    if (t.elements != elements)
        finding("bench prepare: " + std::to_string(t.elements)
                + " elements, not " + std::to_string(elements));
    must_run("bench run " + q.impl, t.run_impl);
    if (t.run_ref) must_run("bench reference run " + q.impl, t.run_ref);
}

// --- rndnn dropout -----------------------------------------------------------

// The scratch directory and the inputs it holds.
struct sandbox_t {
    string dir;
    std::vector<std::pair<string, rndnn::memory>> inputs;
    struct timespec mtime {};

    void write_inputs() {
        for (const auto &in : inputs) {
            std::ofstream os(in.first, std::ios::binary | std::ios::trunc);
            rndnn::npy::save(os, in.second);
            if (!os) finding("cannot write the fuzz input " + in.first);
        }
        // A file that is not .npy at all.
        std::ofstream("bad.npy", std::ios::binary | std::ios::trunc)
                << "not a .npy file\n";
        struct stat st;
        if (::stat(".", &st) != 0) finding("cannot stat the scratch dir");
        mtime = st.st_mtim;
    }

    // Removes what a run wrote and rewrites the inputs, if the directory
    // changed.
    void restore() {
        struct stat st;
        if (::stat(".", &st) != 0) finding("cannot stat the scratch dir");
        if (st.st_mtim.tv_sec == mtime.tv_sec
                && st.st_mtim.tv_nsec == mtime.tv_nsec)
            return;
        DIR *d = ::opendir(".");
        if (!d) finding("cannot list the scratch dir");
        std::vector<string> names;
        while (const dirent *e = ::readdir(d))
            names.push_back(e->d_name);
        ::closedir(d);
        // libFuzzer's artifacts stay, should they land here.
        const auto artifact = [](const string &n) {
            for (const char *p :
                    {"crash-", "leak-", "timeout-", "oom-", "slow-unit-"})
                if (n.compare(0, std::strlen(p), p) == 0) return true;
            return false;
        };
        for (const string &n : names) {
            if (n == "." || n == ".." || artifact(n)) continue;
            if (::unlink(n.c_str()) != 0 && ::rmdir(n.c_str()) != 0)
                finding("cannot remove '" + n + "' from the scratch dir");
        }
        write_inputs();
    }
};

sandbox_t *sandbox = nullptr;

rndnn::memory make_input(const rndnn::dims &shape, rndnn::data_type dt) {
    const rndnn::memory::desc md(shape, dt);
    rndnn::memory m(md);
    fill_data(static_cast<unsigned char *>(m.get_data_handle()),
            md.get_size(), dt);
    return m;
}

void setup_sandbox() {
    char tmpl[] = "/tmp/rndnn-fuzz-problem.XXXXXX";
    if (!::mkdtemp(tmpl)) finding("cannot create a scratch dir");
    if (::chdir(tmpl) != 0) finding("cannot enter the scratch dir");
    sandbox = new sandbox_t;
    sandbox->dir = tmpl;
    using rndnn::data_type;
    // Data (2x3x8 f32, 4x8 bf16 and f16, 0-d, empty), stored masks of
    // 2x3x8 (packed bits: 6 bytes; u8) and of noise shape 2x1x8 (2 bytes),
    // and data of a type dropout does not take.
    sandbox->inputs = {{"x.npy", make_input({2, 3, 8}, data_type::f32)},
            {"h.npy", make_input({4, 8}, data_type::bf16)},
            {"f.npy", make_input({4, 8}, data_type::f16)},
            {"z.npy", make_input({}, data_type::f32)},
            {"e.npy", make_input({0, 8}, data_type::f32)},
            {"m.npy", make_input({6}, data_type::u8)},
            {"n.npy", make_input({2}, data_type::u8)},
            {"u.npy", make_input({2, 3, 8}, data_type::u8)},
            {"i.npy", make_input({2, 3, 8}, data_type::s32)}};
    sandbox->write_inputs();
}

void fuzz_dropout_main(std::vector<string> words) {
    // Paths stay in the scratch directory.
    words.erase(std::remove_if(words.begin(), words.end(),
                        [](const string &w) {
                            return w.find('/') != string::npos;
                        }),
            words.end());
    words.insert(words.begin(), "dropout");
    std::vector<char *> argv;
    for (string &w : words)
        argv.push_back(&w[0]);
    argv.push_back(nullptr);
    expected_errors_only(
            [&] {
                dropout_main(static_cast<int>(words.size()), argv.data());
            },
            true);
    sandbox->restore();
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
    static rndnn_fuzz::null_buf null;
    std::cout.rdbuf(&null);
    setup_sandbox();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(
        const std::uint8_t *data, std::size_t size) {
    const string input(reinterpret_cast<const char *>(data), size);
    const std::vector<string> words
            = split_words(input.substr(0, input.find('\n')));
    static const po::options_description bench_desc = problem_options();

    expected_errors_only([&] { fuzz_gen(words); });
    expected_errors_only([&] { fuzz_bench_problem(words, bench_desc); });
    fuzz_dropout_main(words);
    return 0;
}
