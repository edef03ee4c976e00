// Helpers shared by the test suites.
#ifndef RNDNN_TESTS_TEST_UTILS_HPP
#define RNDNN_TESTS_TEST_UTILS_HPP

#include <algorithm>
#include <cstdint>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "rndnn/rndnn.hpp"
#include "rng/engines/mt19937.hpp"
#include "rng/engines/word_source.hpp"
#include "src/cpu_isa.hpp"
#include "src/parallel.hpp"

namespace rndnn {

// A tier as gtest prints a parameter: its name, not its bytes.
inline void PrintTo(cpu_isa isa, std::ostream *os) { *os << isa2str(isa); }

namespace test {

// The suites check that no value depends on the thread count, so every
// problem they run splits over the stream's threads as far as its units,
// blocks or rows allow, not only those large enough for the measured
// thresholds of src/parallel.hpp (tests/test_parallel.cpp checks those,
// without this file).
inline const bool split_every_problem = [] {
    impl::set_min_thread_elems(1);
    return true;
}();

// Runs f and returns the message of the rndnn::error it throws; the test
// fails if none is thrown or its status differs.
template <typename F>
std::string error_of(F f, status expected = status::invalid_arguments) {
    try {
        f();
    } catch (const error &e) {
        EXPECT_EQ(e.status(), expected) << e.what();
        return e.what();
    }
    ADD_FAILURE() << "no rndnn::error thrown";
    return "";
}

// Expects that f throws an invalid_arguments error mentioning `needle`.
#define EXPECT_ERROR_NAMES(stmt, needle) \
    do { \
        const std::string msg_ = ::rndnn::test::error_of([&] { stmt; }); \
        EXPECT_NE(msg_.find(needle), std::string::npos) \
                << "message '" << msg_ << "' does not name '" << needle \
                << "'"; \
    } while (0)

struct run_args_t {
    int64_t seed = 0;
    int64_t offset = 0;
    int64_t stream = 0;
    int nthr = 1;
};

// Executes the RNG into buf (which must hold d.dst.get_size() bytes).
inline void generate(const rng::desc &d, const primitive_attr &attr,
        void *buf, const run_args_t &r = {}) {
    rng::desc dd = d;
    dd.with_offset = true;
    rng prim {rng::primitive_desc(dd, attr)};
    prim.execute(stream(r.nthr),
            {{RNDNN_ARG_DST, memory(dd.dst, buf)},
                    {RNDNN_ARG_SEED, memory::scalar(r.seed)},
                    {RNDNN_ARG_OFFSET, memory::scalar(r.offset)},
                    {RNDNN_ARG_STREAM, memory::scalar(r.stream)}});
}

// Words W(first .. first + n - 1) straight from the engine.
inline std::vector<uint32_t> engine_words(rng_alg alg, int64_t seed,
        int64_t strm, uint64_t first, size_t n, const std::string &name = "") {
    std::vector<uint32_t> w(n);
    impl::make_word_source(alg, static_cast<uint64_t>(seed),
            static_cast<uint64_t>(strm), name)
            ->fill(first, n, w.data());
    return w;
}

// The tiers the tests iterate, from one place: the library's one tier list
// (impl::jit_tiers(), best first) as far as this process may use it (the
// CPU has the tier, RNDNN_MAX_CPU_ISA allows it). Empty in a build without
// JIT, on a CPU without SSE4.1, or under RNDNN_MAX_CPU_ISA=none.
inline std::vector<cpu_isa> available_tiers() {
    cpu_isa max = cpu_isa::none;
    try {
        max = get_max_cpu_isa();
    } catch (const error &) {
        // A bad RNDNN_MAX_CPU_ISA: no tier (the tests that create a
        // primitive report the error).
    }
    std::vector<cpu_isa> t;
    for (cpu_isa isa : impl::jit_tiers())
        if (isa <= max) t.push_back(isa);
    return t;
}

// available_tiers() and cpu_isa::none (the reference, scalar): the tiers
// a test loops over, as ISA caps.
inline std::vector<cpu_isa> test_tiers() {
    std::vector<cpu_isa> t = available_tiers();
    t.push_back(cpu_isa::none);
    return t;
}

// Every tier of the build (impl::jit_tiers()) and cpu_isa::none: the values
// of the suites parametrised over the tiers, whatever this CPU has, so
// that a test's name never depends on the CPU (ctest lists the tests when
// it builds them, not where it runs them): a suite derives from
// tier_suite_t, whose tests skip a tier the process may not use
// (INSTANTIATE_TEST_SUITE_P(Tiers, Suite, ::testing::ValuesIn(tier_params()),
// tier_param_name)).
inline std::vector<cpu_isa> tier_params() {
    std::vector<cpu_isa> t = impl::jit_tiers();
    t.push_back(cpu_isa::none);
    return t;
}

// Why a test of tier @p isa cannot run here (available_tiers() lacks it:
// the CPU, as detection reports it, or RNDNN_MAX_CPU_ISA), or "" if it
// can; cpu_isa::none always can.
inline std::string tier_unavailable(cpu_isa isa) {
    const std::vector<cpu_isa> t = available_tiers();
    if (isa == cpu_isa::none || std::find(t.begin(), t.end(), isa) != t.end())
        return "";
    return std::string(isa2str(isa))
            + " is not available here: get_max_cpu_isa() = "
            + isa2str(get_max_cpu_isa());
}
#define SKIP_UNAVAILABLE_TIER(isa) \
    do { \
        const std::string why_ = ::rndnn::test::tier_unavailable(isa); \
        if (!why_.empty()) GTEST_SKIP() << why_; \
    } while (0)

// A suite whose parameter is a tier of tier_params(): each test skips
// where the tier is unavailable.
class tier_suite_t : public ::testing::TestWithParam<cpu_isa> {
protected:
    void SetUp() override { SKIP_UNAVAILABLE_TIER(GetParam()); }
};

// The tier's name as a test name's suffix: ".../avx2", ".../none".
inline std::string tier_param_name(
        const ::testing::TestParamInfo<cpu_isa> &info) {
    return isa2str(info.param);
}

// The RNG implementation that serves mt19937 under ISA cap `cap`: the
// reference with the vector words of the best tier at most the cap that
// has them, else the scalar reference.
inline std::string mt19937_impl_name(cpu_isa cap) {
    for (cpu_isa isa : available_tiers())
        if (isa <= cap && impl::mt19937_simd_has(isa))
            return impl::simd_impl_name(isa);
    return "ref:any";
}

inline int get_bit(const void *base, int64_t pos) {
    return (static_cast<const uint8_t *>(base)[pos >> 3] >> (pos & 7)) & 1;
}

// The generator of the suites' random cases, seeded by each test.
using prng_t = std::mt19937_64;

// A uniform integer in [lo, hi].
inline int64_t uniform_s64(prng_t &g, int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(g);
}

// A uniformly chosen element of v (not empty).
template <typename T>
T pick(prng_t &g, const std::vector<T> &v) {
    return v[std::uniform_int_distribution<size_t>(0, v.size() - 1)(g)];
}

// The index of the first byte where a and b differ, or -1 (b is at least
// as long as a).
inline int64_t first_diff(
        const std::vector<uint8_t> &a, const std::vector<uint8_t> &b) {
    const auto m = std::mismatch(a.begin(), a.end(), b.begin());
    return m.first == a.end() ? -1 : m.first - a.begin();
}

// Skips the test where no JIT tier is available (available_tiers() is
// empty).
#define SKIP_WITHOUT_JIT() \
    do { \
        if (::rndnn::test::available_tiers().empty()) \
            GTEST_SKIP() << "no JIT tier available: get_max_cpu_isa() = " \
                         << ::rndnn::isa2str(::rndnn::get_max_cpu_isa()) \
                         << " (a build without JIT, a CPU without SSE4.1, " \
                            "or RNDNN_MAX_CPU_ISA=none)"; \
    } while (0)

} // namespace test
} // namespace rndnn

#endif
