// bench_tuning (not a test; built with the tests, run by hand): the JIT
// kernels' tuning values (src/jit_tuning.hpp) timed against each other in
// one process, on issue 44's goal rows (docs/jit.md, "Tuning per CPU").
//
//   build/tests/bench_tuning [-n RUNS] [-t THREADS] TUNING...
//
// Each TUNING is RNDNN_JIT_TUNING's text (an entry's name, fields over it:
// "intel", "zen5,lazy_row_steps=2"). Every variant's dropout primitives
// (2^25 f32, 64-byte aligned data, a bit mask) are created under its
// values; then each row runs RUNS + 1 times (the first a warm-up) with
// the variants interleaved run by run, their order rotating, so that a
// shared machine's noise falls on all of them alike. Prints each row's
// minimum and median ms per variant.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "rndnn/rndnn.hpp"
#include "src/jit_tuning.hpp"

namespace {

struct row_t {
    const char *name;
    double rate;
    rndnn::bernoulli_method method;
    int bits;
    bool backward, in_place;
};

const row_t rows[] = {
        {"bitsliced:1 0.1", 0.1, rndnn::bernoulli_method::bitsliced, 1,
                false, false},
        {"default 0.1", 0.1, rndnn::bernoulli_method::automatic, 1, false,
                false},
        {"default 0.5", 0.5, rndnn::bernoulli_method::automatic, 1, false,
                false},
        {"bwd recomputed", 0.1, rndnn::bernoulli_method::automatic, 1, true,
                false},
        {"bwd in place", 0.1, rndnn::bernoulli_method::automatic, 1, true,
                true},
        {"threshold32 0.1", 0.1, rndnn::bernoulli_method::threshold32, 1,
                false, false},
};

struct free_t {
    void operator()(void *p) const { std::free(p); }
};

template <typename T>
std::unique_ptr<T, free_t> aligned(size_t n) {
    void *p = std::aligned_alloc(64, (n * sizeof(T) + 63) / 64 * 64);
    if (!p) throw std::bad_alloc();
    std::memset(p, 0, n * sizeof(T));
    return std::unique_ptr<T, free_t>(static_cast<T *>(p));
}

int usage() {
    std::fprintf(stderr,
            "usage: bench_tuning [-n RUNS] [-t THREADS] TUNING...\n");
    return 2;
}

} // namespace

int main(int argc, char **argv) {
    using namespace rndnn;
    int runs = 21, threads = 1;
    std::vector<std::string> variants;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if ((a == "-n" || a == "-t") && i + 1 < argc) {
            const int v = std::atoi(argv[++i]);
            if (v < 1) return usage();
            (a == "-n" ? runs : threads) = v;
        } else if (!a.empty() && a[0] == '-') {
            return usage();
        } else {
            variants.push_back(a);
        }
    }
    if (variants.empty()) return usage();
    omp_set_num_threads(threads);

    const int64_t n = int64_t(1) << 25;
    const memory::desc md({1, n}, dt::f32), mmd({1, n}, dt::bit);
    auto xs = aligned<float>(n), ys = aligned<float>(n);
    auto ms = aligned<uint8_t>(n / 8);
    std::fill(xs.get(), xs.get() + n, 1.5f);
    memory x(md, xs.get()), y(md, ys.get()), mk(mmd, ms.get());
    const memory seed = memory::scalar(int64_t(42));

    constexpr size_t nrows = sizeof(rows) / sizeof(rows[0]);
    std::vector<std::vector<dropout>> prims(variants.size());
    try {
        for (size_t v = 0; v < variants.size(); ++v) {
            impl::jit_tuning_t t {};
            std::string why;
            if (!impl::parse_jit_tuning(variants[v], t, why)) {
                std::fprintf(stderr, "bench_tuning: '%s': %s\n",
                        variants[v].c_str(), why.c_str());
                return 2;
            }
            impl::set_jit_tuning(t);
            for (const row_t &r : rows) {
                dropout::desc d;
                d.src = d.dst = md;
                d.rate = r.rate;
                d.method = r.method;
                d.bits = r.bits;
                if (r.backward)
                    d.prop = prop_kind::backward;
                else
                    d.mask = mmd;
                prims[v].emplace_back(dropout::primitive_desc(d));
            }
            impl::clear_jit_tuning();
        }
    } catch (const error &e) {
        std::fprintf(stderr, "bench_tuning: %s\n", e.what());
        return 1;
    }

    std::vector<std::vector<std::vector<double>>> ms_of(variants.size(),
            std::vector<std::vector<double>>(nrows));
    for (int k = 0; k <= runs; ++k)
        for (size_t r = 0; r < nrows; ++r)
            for (size_t i = 0; i < variants.size(); ++i) {
                const size_t v = (i + static_cast<size_t>(k)) % variants.size();
                const std::unordered_map<int, memory> args = rows[r].backward
                        ? std::unordered_map<int, memory> {
                                {RNDNN_ARG_DIFF_DST, rows[r].in_place ? y : x},
                                {RNDNN_ARG_DIFF_SRC, y},
                                {RNDNN_ARG_SEED, seed}}
                        : std::unordered_map<int, memory> {
                                {RNDNN_ARG_SRC, x}, {RNDNN_ARG_DST, y},
                                {RNDNN_ARG_MASK, mk}, {RNDNN_ARG_SEED, seed}};
                const auto t0 = std::chrono::steady_clock::now();
                prims[v][r].execute(stream(), args);
                const auto t1 = std::chrono::steady_clock::now();
                if (k > 0)
                    ms_of[v][r].push_back(
                            std::chrono::duration<double, std::milli>(t1 - t0)
                                    .count());
            }

    std::printf("2^25 f32, %d thread(s), %d runs; min / median ms\n", threads,
            runs);
    std::printf("%-40s", "tuning");
    for (const row_t &r : rows)
        std::printf(" %15s", r.name);
    std::printf("\n");
    for (size_t v = 0; v < variants.size(); ++v) {
        std::printf("%-40s", variants[v].c_str());
        for (size_t r = 0; r < nrows; ++r) {
            std::vector<double> s = ms_of[v][r];
            std::sort(s.begin(), s.end());
            std::printf("   %6.2f/%6.2f", s.front(), s[s.size() / 2]);
        }
        std::printf("\n");
    }
    return 0;
}
