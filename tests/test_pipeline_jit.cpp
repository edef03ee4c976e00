// The RNG's JIT kernels with the internal oneDNN keep rule (dropout's),
// which the public API, and so test_jit.cpp, cannot reach: every JIT tier
// this process may use against the reference kernel, bit for bit.
//
// In a build without JIT the tests are not built.
#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "rng/rng_impl.hpp"

using namespace rndnn;
using namespace rndnn::impl;

namespace {

#if RNDNN_ENABLE_JIT

using prng_t = std::mt19937_64;

// The tiers with JIT kernels that this process may use.
std::vector<cpu_isa> available_tiers() {
    std::vector<cpu_isa> t;
    for (cpu_isa isa : {cpu_isa::sse41, cpu_isa::avx2})
        if (isa <= get_max_cpu_isa()) t.push_back(isa);
    return t;
}

#define SKIP_WITHOUT_JIT() \
    do { \
        if (available_tiers().empty()) \
            GTEST_SKIP() << "no JIT tier: get_max_cpu_isa() = " \
                         << isa2str(get_max_cpu_isa()); \
    } while (0)

int64_t uniform_s64(prng_t &g, int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(g);
}

// The index of the first differing byte, or -1.
int64_t first_diff(
        const std::vector<uint8_t> &a, const std::vector<uint8_t> &b) {
    const auto m = std::mismatch(a.begin(), a.end(), b.begin());
    return m.first == a.end() ? -1 : m.first - a.begin();
}

// --- the RNG's oneDNN keep rule ---------------------------------------------

// The oneDNN keep rule is internal (dropout sets it), so test_jit.cpp,
// which goes through the public API, cannot reach it: the RNG's JIT kernels
// against its reference, for bit and u8 masks.
TEST(RngJit, OnednnKeepEqualsReference) {
    SKIP_WITHOUT_JIT();
    prng_t g(3);
    for (data_type dt : {data_type::bit, data_type::u8})
        for (double rate : {0.0, 1.0, 0.5, 0.1, 0.9, 1e-9, 1 - 1e-9}) {
            const int64_t n = uniform_s64(g, 1, 5000);
            const memory::desc md({n}, dt);
            rng::desc d(rng_alg::philox4x32_10_onednn, md);
            post_ops po;
            po.append_bernoulli(rate);
            primitive_attr attr;
            attr.set_post_ops(po);
            rng_conf_t conf = make_rng_conf(d, attr);
            conf.onednn_keep = true;
            rng_run_t run;
            run.seed = g();
            run.stream = g();
            run.offset = uniform_s64(g, 0, 1 << 20);
            run.p = rate;
            std::vector<uint8_t> want(md.get_size()), got(md.get_size());
            run.dst = want.data();
            create_ref_rng(conf)->execute(run);
            for (cpu_isa isa : available_tiers()) {
                std::string why;
                ASSERT_TRUE(init_jit_rng(isa, conf, why)) << why;
                run.dst = got.data();
                create_jit_rng(isa, conf)->execute(run);
                ASSERT_EQ(first_diff(want, got), -1)
                        << isa2str(isa) << " dt=" << dt2str(dt)
                        << " rate=" << rate << " n=" << n;
            }
        }
}

#endif

} // namespace
