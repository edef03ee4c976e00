// The RNG primitive: exact distribution semantics (checked against formulas
// written here from docs/semantics.md, on the engines' words), determinism
// across threads, shards and layouts, runtime arguments, and errors.
#include <algorithm>
#include <cfenv>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>

#include "rng/distributions.hpp"
#include "src/utils.hpp"
#include "tests/test_utils.hpp"

using namespace rndnn;
using namespace rndnn::test;

namespace {

rng::desc make_desc(rng_alg alg, const dims &shape, data_type t) {
    return rng::desc(alg, memory::desc(shape, t));
}

// An attribute with the post-ops that @p append appends.
template <typename F>
primitive_attr attr_with(F append) {
    post_ops po;
    append(po);
    primitive_attr attr;
    attr.set_post_ops(po);
    return attr;
}

primitive_attr bernoulli_attr(double p,
        bernoulli_method m = bernoulli_method::threshold32, int bits = 1) {
    return attr_with([&](post_ops &po) { po.append_bernoulli(p, m, bits); });
}

primitive_attr uniform_attr(double a, double b) {
    return attr_with([&](post_ops &po) { po.append_uniform(a, b); });
}

primitive_attr normal_attr(double mean, double stddev) {
    return attr_with([&](post_ops &po) { po.append_normal(mean, stddev); });
}

primitive_attr integers_attr(int64_t low, int64_t high) {
    return attr_with([&](post_ops &po) { po.append_integers(low, high); });
}

primitive_attr exponential_attr(double scale) {
    return attr_with([&](post_ops &po) { po.append_exponential(scale); });
}

primitive_attr gumbel_attr(double loc, double scale) {
    return attr_with([&](post_ops &po) { po.append_gumbel(loc, scale); });
}

primitive_attr laplace_attr(double loc, double scale) {
    return attr_with([&](post_ops &po) { po.append_laplace(loc, scale); });
}

primitive_attr rayleigh_attr(double scale) {
    return attr_with([&](post_ops &po) { po.append_rayleigh(scale); });
}

primitive_attr lognormal_attr(double mean, double sigma) {
    return attr_with([&](post_ops &po) { po.append_lognormal(mean, sigma); });
}

primitive_attr permutation_attr(int64_t n) {
    return attr_with([&](post_ops &po) { po.append_permutation(n); });
}

primitive_attr truncated_normal_attr(
        double mean, double sd, double a, double b) {
    return attr_with([&](post_ops &po) {
        po.append_truncated_normal(mean, sd, a, b);
    });
}

// The spacing of f32 values at |v| (subnormal spacing below 2^-126).
double ulp32(double v) {
    const int e = v == 0 ? -126 : std::max(std::ilogb(v), -126);
    return std::ldexp(1.0, e - 23);
}

std::vector<uint8_t> run(const rng::desc &d, const primitive_attr &attr,
        const run_args_t &r = {}) {
    std::vector<uint8_t> buf(d.dst.get_size());
    generate(d, attr, buf.data(), r);
    return buf;
}

// The n values of alg's tensor {n} under attr, as T: float (an f32 dst)
// or double (f64).
template <typename T>
std::vector<T> run_as(rng_alg alg, dim_t n, const primitive_attr &attr,
        const run_args_t &r) {
    static_assert(std::is_same<T, float>::value
            || std::is_same<T, double>::value);
    const data_type t = sizeof(T) == 8 ? data_type::f64 : data_type::f32;
    const auto out = run(make_desc(alg, {n}, t), attr, r);
    std::vector<T> v(n);
    std::memcpy(v.data(), out.data(), n * sizeof(T));
    return v;
}

} // namespace

// --- exact semantics --------------------------------------------------------

TEST(RngSemantics, BitsAreTheWords) {
    for (rng_alg alg : rng_algs()) {
        const run_args_t r {-12345, 1001, 7, 1};
        const auto out = run(make_desc(alg, {3, 337}, dt::u32), {}, r);
        const auto w = engine_words(alg, r.seed, r.stream, r.offset, 1011);
        ASSERT_EQ(std::memcmp(out.data(), w.data(), 4 * 1011), 0)
                << alg2str(alg);
    }
}

TEST(RngSemantics, Threshold32) {
    const double ps[] = {0.0, 1.0, 0.1, 0.5, 0.3, 1 - 0x1p-33, 0x1p-33, 0.999};
    for (rng_alg alg : rng_algs()) {
        for (double p : ps) {
            const run_args_t r {99, 5, 3, 1};
            const dim_t n = 5000;
            const auto out = run(make_desc(alg, {n}, dt::u8),
                    bernoulli_attr(p), r);
            const auto w = engine_words(alg, r.seed, r.stream, r.offset, n);
            for (dim_t i = 0; i < n; ++i) {
                bool expect;
                if (alg == rng_alg::mcg31m1) {
                    // W < p * m, exactly: p = mant * 2^e.
                    int e;
                    const double f = std::frexp(p, &e);
                    const auto mant = static_cast<uint64_t>(std::ldexp(f, 53));
                    const int s = 53 - e; // <= 86 for these p
                    expect = (impl::uint128_t(w[i]) << s)
                            < impl::uint128_t(mant) * 0x7fffffffu;
                } else {
                    expect = static_cast<double>(w[i]) < p * 0x1p32;
                }
                ASSERT_EQ(out[i], expect ? 1 : 0)
                        << alg2str(alg) << " p=" << p << " i=" << i;
            }
        }
    }
}

TEST(RngSemantics, Bitsliced) {
    ASSERT_EQ(std::fegetround(), FE_TONEAREST);
    const struct {
        double p;
        int b;
    } cases[] = {{0.5, 1}, {0.25, 2}, {0.3, 8}, {0.1, 3}, {0.9, 4}, {1.0, 5},
            {0.0, 7}, {0.6, 32}, {0.375, 1} /* tie: 0.75 -> 0 (even) */,
            {0.625, 2} /* 2.5 -> 2 */, {0.875, 2} /* 3.5 -> 4 */};
    for (rng_alg alg : {rng_alg::philox4x32_10, rng_alg::mt19937}) {
        for (const auto &c : cases) {
            const run_args_t r {-3, 77, 0, 1}; // starts inside a group
            const dim_t n = 3001;
            const auto out = run(make_desc(alg, {n}, dt::u8),
                    bernoulli_attr(c.p, bernoulli_method::bitsliced, c.b), r);
            const uint64_t level
                    = static_cast<uint64_t>(std::nearbyint(c.p * std::ldexp(1.0, c.b)));
            const uint64_t g0 = r.offset, g1 = r.offset + n;
            const auto w = engine_words(
                    alg, r.seed, r.stream, 0, (g1 / 32 + 1) * c.b);
            for (uint64_t g = g0; g < g1; ++g) {
                uint64_t u = 0; // MSB first from word (g/32)*b + j
                for (int j = 0; j < c.b; ++j)
                    u = (u << 1) | ((w[(g / 32) * c.b + j] >> (g % 32)) & 1);
                ASSERT_EQ(out[g - g0], u < level ? 1 : 0)
                        << "p=" << c.p << " b=" << c.b << " g=" << g;
            }
        }
    }
}

// bytewise from its definition, element by element, over the engines'
// words: byte g % 4 of W(g / 4) against t's top 8 bits, and each tie, in
// index order within its unit of 2048, against its own word's top 24 bits;
// offsets that cut units and reach the last units before 2^63; every
// counter-based engine; p where t_hi is 0 and 255.
TEST(RngSemantics, Bytewise) {
    const double ps[] = {0.0, 1.0, 0.1, 0.5, 0.3, 100.5 / 256, 0x1p-20,
            1 - 0x1p-32};
    for (rng_alg alg : {rng_alg::philox4x32_10, rng_alg::philox4x32_10_onednn,
                 rng_alg::threefry4x32_20, rng_alg::multfly}) {
        for (double p : ps) {
            const dim_t n = 5000;
            for (int64_t offset : {int64_t(777), int64_t(1) << 62,
                         std::numeric_limits<int64_t>::max() - n}) {
                const run_args_t r {-9, offset, 5, 2};
                const auto out = run(make_desc(alg, {n}, dt::u8),
                        bernoulli_attr(p, bernoulli_method::bytewise), r);
                const auto t = static_cast<uint64_t>(std::ceil(p * 0x1p32));
                const uint64_t hi = t >> 24, lo = t & 0xffffff;
                const uint64_t g0 = r.offset, g1 = g0 + n;
                uint64_t unit = ~uint64_t(0), rank = 0;
                std::vector<uint32_t> w;
                int ties = 0;
                for (uint64_t g = g0 / 2048 * 2048; g < g1; ++g) {
                    if (g / 2048 != unit) {
                        unit = g / 2048;
                        rank = 0;
                        w = engine_words(alg, r.seed, r.stream, unit * 512, 512);
                    }
                    const uint32_t v = (w[(g % 2048) / 4] >> (8 * (g % 4))) & 0xff;
                    bool expect = v < hi;
                    if (v == hi && hi < 256) {
                        const uint64_t tw = (uint64_t(1) << 62) + unit * 2048 + rank++;
                        expect = (engine_words(alg, r.seed, r.stream, tw, 1)[0] >> 8) < lo;
                        ties += g >= g0;
                    }
                    if (g < g0) continue;
                    ASSERT_EQ(out[g - g0], expect ? 1 : 0)
                            << alg2str(alg) << " p=" << p << " g=" << g;
                }
                if (p < 1) {
                    EXPECT_GT(ties, 0) << alg2str(alg) << " p=" << p;
                }
            }
        }
    }
}

TEST(RngSemantics, DefaultMethodIsBitsliced32WhereWordsAreAddressed) {
    // append_bernoulli(p) and bernoulli_method::automatic: bitsliced(32)
    // where words are addressed by counter, threshold32 for mcg31m1 and
    // mt19937; either way every p is exact to 2^-32. Every algorithm: a
    // new one that is not addressed by counter must be named here.
    const run_args_t r {11, 5, 0, 2};
    for (rng_alg alg : rng_algs()) {
        const bool sliced
                = alg != rng_alg::mcg31m1 && alg != rng_alg::mt19937;
        const rng::desc d = make_desc(alg, {4099}, dt::bit);
        post_ops po;
        po.append_bernoulli(0.7);
        primitive_attr attr;
        attr.set_post_ops(po);
        const auto got = run(d, attr, r);
        EXPECT_EQ(got,
                run(d, bernoulli_attr(0.7, bernoulli_method::automatic, 9), r))
                << alg2str(alg);
        const auto want = sliced
                ? run(d, bernoulli_attr(0.7, bernoulli_method::bitsliced, 32),
                        r)
                : run(d, bernoulli_attr(0.7, bernoulli_method::threshold32), r);
        EXPECT_EQ(got, want) << alg2str(alg);
        EXPECT_NE(rng::primitive_desc(d, attr).info().find(
                          sliced ? ":bitsliced:32," : ":threshold32,"),
                std::string::npos)
                << rng::primitive_desc(d, attr).info();
    }
}

TEST(RngSemantics, BernoulliDstTypesAgree) {
    const auto attr = bernoulli_attr(0.3);
    const run_args_t r {1, 13, 0, 1};
    const dim_t n = 999;
    const auto u8 = run(make_desc(rng_alg::philox4x32_10, {n}, dt::u8), attr, r);
    const auto bit
            = run(make_desc(rng_alg::philox4x32_10, {n}, dt::bit), attr, r);
    const auto s32
            = run(make_desc(rng_alg::philox4x32_10, {n}, dt::s32), attr, r);
    const auto f32
            = run(make_desc(rng_alg::philox4x32_10, {n}, dt::f32), attr, r);
    ASSERT_EQ(bit.size(), (n + 7) / 8u);
    for (dim_t i = 0; i < n; ++i) {
        ASSERT_EQ(get_bit(bit.data(), i), u8[i]);
        ASSERT_EQ(reinterpret_cast<const int32_t *>(s32.data())[i], u8[i]);
        ASSERT_EQ(reinterpret_cast<const float *>(f32.data())[i],
                static_cast<float>(u8[i]));
    }
}

TEST(RngSemantics, Uniform) {
    for (rng_alg alg : rng_algs()) {
        const float a = -2.5f, b = 7.f;
        const run_args_t r {42, 3, 0, 1};
        const dim_t n = 2048;
        const auto f32 = run(make_desc(alg, {n}, dt::f32), uniform_attr(a, b), r);
        const auto bf16
                = run(make_desc(alg, {n}, dt::bf16), uniform_attr(a, b), r);
        const auto f16 = run(make_desc(alg, {n}, dt::f16), uniform_attr(a, b), r);
        const auto w = engine_words(alg, r.seed, r.stream, r.offset, n);
        const int shift = alg == rng_alg::mcg31m1 ? 7 : 8;
        for (dim_t i = 0; i < n; ++i) {
            const float u = static_cast<float>(w[i] >> shift) / 16777216.f;
            const float v = std::fma(u, b - a, a);
            ASSERT_EQ(reinterpret_cast<const float *>(f32.data())[i], v);
            ASSERT_GE(v, a);
            ASSERT_LE(v, b);
            ASSERT_EQ(reinterpret_cast<const uint16_t *>(bf16.data())[i],
                    impl::f32_to_bf16(v));
            ASSERT_EQ(reinterpret_cast<const uint16_t *>(f16.data())[i],
                    impl::f32_to_f16(v));
        }
    }
}

TEST(RngSemantics, NormalPairsAndAccuracy) {
    for (rng_alg alg : rng_algs()) {
        const float mean = 1.5f, sd = 2.f;
        const run_args_t r {7, 0, 11, 1};
        const dim_t n = 4001, off = 3; // starts on an odd element
        const auto out = run(make_desc(alg, {n}, dt::f32),
                normal_attr(mean, sd), {r.seed, off, r.stream, 1});
        const auto w = engine_words(alg, r.seed, r.stream, 0, n + off + 1);
        const int shift = alg == rng_alg::mcg31m1 ? 7 : 8;
        for (dim_t i = 0; i < n; ++i) {
            const uint64_t g = off + i;
            const uint32_t w0 = w[g & ~1ull], w1 = w[g | 1];
            float v[2];
            impl::normal_pair(w0, w1, shift, mean, sd, &v[0], &v[1]);
            const float got = reinterpret_cast<const float *>(out.data())[i];
            ASSERT_EQ(got, v[g & 1]) << i;
            // Against libm in double: Box-Muller as docs/semantics.md has it.
            const double u1 = ((w0 >> shift) + 1.0) / 16777216.0;
            const double u2 = (w1 >> shift) / 16777216.0;
            const double rr = std::sqrt(-2 * std::log(u1));
            const double z = (g & 1) ? rr * std::sin(2 * M_PI * u2)
                                     : rr * std::cos(2 * M_PI * u2);
            ASSERT_NEAR(got, mean + sd * z, 1e-5 * (1 + std::fabs(z)) * sd)
                    << alg2str(alg) << " g=" << g;
        }
    }
}

// floor(X * r / 2^(32 k)) for X the k words w (the first most
// significant), by schoolbook multiplication in 32-bit limbs: the test's
// own arithmetic, not rng/distributions.hpp's.
uint64_t integers_by_limbs(const uint32_t *w, int k, uint64_t r) {
    uint32_t prod[6] = {}; // little-endian limbs of X * r
    const uint32_t rl[2] = {static_cast<uint32_t>(r),
            static_cast<uint32_t>(r >> 32)};
    for (int i = 0; i < k; ++i) { // limb i of X (little-endian) is w[k-1-i]
        uint64_t carry = 0;
        for (int j = 0; j < 2; ++j) {
            const uint64_t t = uint64_t(w[k - 1 - i]) * rl[j] + prod[i + j]
                    + carry;
            prod[i + j] = static_cast<uint32_t>(t);
            carry = t >> 32;
        }
        for (int j = i + 2; carry && j < 6; ++j) {
            const uint64_t t = uint64_t(prod[j]) + carry;
            prod[j] = static_cast<uint32_t>(t);
            carry = t >> 32;
        }
    }
    return uint64_t(prod[k]) | uint64_t(prod[k + 1]) << 32;
}

TEST(RngSemantics, IntegersFromTheWords) {
    const uint64_t two32 = uint64_t(1) << 32;
    const std::pair<int64_t, uint64_t> cases[] = {{0, 1}, {-5, 2}, {7, 3},
            {-1000, (uint64_t(1) << 31) + 1}, {0, two32}, {-3, two32 + 1},
            {INT64_MIN, uint64_t(1) << 63}, {INT64_MIN, ~uint64_t(0)},
            {-(int64_t(1) << 40), 12345678901234567ull}};
    for (rng_alg alg : rng_algs()) {
        if (alg == rng_alg::mcg31m1) continue; // refused (RngErrors)
        for (const auto &c : cases) {
            const int64_t low = c.first;
            const uint64_t r = c.second;
            const auto high = static_cast<int64_t>(uint64_t(low) + r);
            const int k = r <= two32 ? 2 : 4;
            const dim_t n = 1001, off = 3;
            rng::desc d = make_desc(alg, {n}, dt::s64);
            d.name = alg == rng_alg::multfly ? "ints" : "";
            const auto out = run(d, integers_attr(low, high), {9, off, 4, 2});
            const auto w = engine_words(
                    alg, 9, 4, k * off, static_cast<size_t>(k * n), d.name);
            for (dim_t i = 0; i < n; ++i) {
                const int64_t got
                        = reinterpret_cast<const int64_t *>(out.data())[i];
                const uint64_t v = integers_by_limbs(&w[k * i], k, r);
                ASSERT_LT(v, r);
                ASSERT_EQ(got, static_cast<int64_t>(uint64_t(low) + v))
                        << alg2str(alg) << " [" << low << ", " << high
                        << ") element " << i;
            }
        }
    }
}

TEST(RngSemantics, LnApproxWithinTwoUlps) {
    // Every input the normal sampler can produce: k * 2^-24, k in [1, 2^24].
    for (uint32_t k = 1; k <= (1u << 24); ++k) {
        const float x = static_cast<float>(k) * 0x1p-24f;
        const double exact = std::log(static_cast<double>(x));
        const float got = impl::ln_approx(x);
        const double ulp = std::ldexp(1.0,
                std::ilogb(static_cast<float>(exact == 0 ? 1e-30 : exact)) - 23);
        ASSERT_LE(std::fabs(got - exact), exact == 0 ? 0 : 2 * ulp) << k;
    }
}

// The ulp bounds of docs/semantics.md ("exponential", "gumbel",
// "lognormal"), measured exhaustively over their domains; here over
// every input the distributions give and a sample of the rest.
constexpr double exponential_max_ulp = 1.7;
constexpr double gumbel_max_ulp = 2; // of max(1, |x|)
constexpr double ln_general_max_ulp = 2;
constexpr double exp_max_ulp = 1.2;

TEST(RngSemantics, ExponentialAndGumbelEveryU) {
    const float e_max = impl::exponential_value(0, 8, 1.f);
    const float g_lo = impl::gumbel_value(0, 8, 0.f, 1.f);
    const float g_hi = impl::gumbel_value(~0u, 8, 0.f, 1.f);
    for (uint32_t k = 0; k < (1u << 24); ++k) {
        const float e = impl::exponential_value(k << 8, 8, 1.f);
        const double er = -std::log((k + 1.0) * 0x1p-24);
        ASSERT_LE(std::fabs(e - er), exponential_max_ulp * ulp32(er)) << k;
        ASSERT_LE(e, e_max) << k; // creation's check takes the ends
        ASSERT_FALSE(std::signbit(e)) << k; // u = 1 gives +0
        // u = 1 alone takes -ln u = 2^-25; every other u, -ln u > 2^-25.
        const float g = impl::gumbel_value(k << 8, 8, 0.f, 1.f);
        const double gv = k + 1 == (1u << 24) ? 0x1p-25 : -std::log((k + 1.0) * 0x1p-24);
        ASSERT_TRUE(k + 1 == (1u << 24) || e > 0x1p-25f) << k;
        const double gr = -std::log(gv);
        ASSERT_LE(std::fabs(g - gr),
                gumbel_max_ulp * ulp32(std::max(1.0, std::fabs(gr))))
                << k;
        ASSERT_GE(g, g_lo) << k;
        ASSERT_LE(g, g_hi) << k;
    }
    EXPECT_NEAR(g_hi, 25 * std::log(2.0), 1e-5); // -ln(2^-25)
    // mcg31m1's 31-bit words give the same u.
    EXPECT_EQ(impl::exponential_value(1, 7, 1.f), e_max);
    EXPECT_EQ(impl::gumbel_value(0x7ffffffeu, 7, 0.f, 1.f), g_hi);
}

// truncated_normal's z against the exact quantile of the same u (double
// Newton steps from z on std::erfc): the bound docs/semantics.md states,
// of max(|z|, 0.5)'s ulp (p's own f32 rounding makes it relative to 0.5
// near the median), over every cell k for intervals out to 8 and beyond.
constexpr double truncnorm_max_ulp = 8;

double phi_upper(double z) { return 0.5 * std::erfc(z / std::sqrt(2.0)); }

TEST(RngSemantics, TruncatedNormalEveryU) {
    const std::pair<float, float> sets[] = {{-2, 2}, {-8, 8}, {-1, 8},
            {0, 0.5f}, {6, 8}, {7.9f, 8}, {-8, -6}, {-8, -7.9f}, {8.5f, 30},
            {-30, -8.5f}, {-3, 1e-3f}, {-100, 100}};
    double worst = 0;
    for (const auto &ab : sets) {
        const auto c = impl::truncnorm_params(
                0.f, 1.f, ab.first, ab.second, dt::f32);
        const double alpha = ab.first, beta = ab.second;
        // The exact mass, on the side where it keeps its digits.
        const double pa = alpha <= -12 ? 0 : phi_upper(-alpha);
        const double qb = beta >= 12 ? 0 : phi_upper(beta);
        const double mass = alpha >= 0 ? phi_upper(alpha) - qb
                : beta <= 0            ? phi_upper(-beta) - pa
                                       : 1 - pa - qb;
        for (uint32_t k = 0; k < (1u << 24); k += (k < 4096 || k > (1u << 24) - 4096) ? 1 : 97) {
            const float x = impl::truncnorm_value(k << 8, 8, c);
            ASSERT_GE(x, ab.first) << k;
            ASSERT_LE(x, ab.second) << k;
            const double u = (2.0 * k + 1) * 0x1p-25;
            const double p = pa + u * mass;
            const bool upper = p > 0.5;
            const double t = upper ? qb + (1 - u) * mass : p; // Phi(-|z|)
            double z = -std::fabs(static_cast<double>(x));
            for (int it = 0; it < 4; ++it) { // Newton on Q(-z) = t
                const double f = phi_upper(-z) - t;
                z -= f / (std::exp(-0.5 * z * z) / std::sqrt(2 * M_PI));
            }
            const double exact = upper ? -z : z;
            if (exact < alpha || exact > beta) continue; // clamped
            const double err = std::fabs(x - exact)
                    / ulp32(std::max(std::fabs(exact), 0.5));
            worst = std::max(worst, err);
            ASSERT_LE(err, truncnorm_max_ulp)
                    << k << " " << ab.first << " " << ab.second << " " << x
                    << " " << exact;
        }
    }
    std::printf("truncated_normal: worst %.2f ulp of max(|z|, 0.5)\n", worst);
    // mcg31m1's 31-bit words give the same u.
    const auto c = impl::truncnorm_params(0.f, 1.f, -2.f, 2.f, dt::f32);
    EXPECT_EQ(impl::truncnorm_value(0x7fffff80u, 7, c),
            impl::truncnorm_value(0xffffff00u, 8, c));
}

// Every value lies in [a, b] after rounding to the dst type: bounds that
// the type does not hold are rounded inward, and the values clamped there.
TEST(RngSemantics, TruncatedNormalWithinBoundsAfterRounding) {
    const float a = -0.30001f, b = 0.30001f; // neither a bf16 nor an f16
    for (auto t : {dt::f32, dt::bf16, dt::f16}) {
        const dim_t n = 1 << 16;
        const auto out = run(make_desc(rng_alg::philox4x32_10, {n}, t),
                truncated_normal_attr(0.f, 0.1f, a, b), {3, 0, 0, 2});
        float lo = INFINITY, hi = -INFINITY;
        for (dim_t i = 0; i < n; ++i) {
            float v;
            if (t == dt::f32) {
                std::memcpy(&v, out.data() + 4 * i, 4);
            } else {
                uint16_t h;
                std::memcpy(&h, out.data() + 2 * i, 2);
                v = t == dt::f16 ? impl::f16_to_f32(h) : impl::bf16_to_f32(h);
            }
            ASSERT_GE(v, a) << dt2str(t) << " " << i;
            ASSERT_LE(v, b) << dt2str(t) << " " << i;
            lo = std::min(lo, v);
            hi = std::max(hi, v);
        }
        EXPECT_LT(lo, -0.29f) << dt2str(t); // the tails do reach the ends
        EXPECT_GT(hi, 0.29f) << dt2str(t);
    }
    // Inward rounding: the nearest type values inside, 0 and signs kept.
    EXPECT_EQ(impl::round_to_dst_inward(1.0002f, dt::f16, true), 1.0009765625f);
    EXPECT_EQ(impl::round_to_dst_inward(1.0002f, dt::f16, false), 1.f);
    EXPECT_EQ(impl::round_to_dst_inward(-1.0002f, dt::f16, true), -1.f);
    EXPECT_EQ(impl::round_to_dst_inward(-1.0002f, dt::f16, false),
            -1.0009765625f);
    EXPECT_EQ(impl::round_to_dst_inward(1e-30f, dt::f16, false), 0.f);
    EXPECT_EQ(impl::round_to_dst_inward(1e-30f, dt::f16, true), 0x1p-24f);
    EXPECT_EQ(impl::round_to_dst_inward(-1e-30f, dt::f16, false), -0x1p-24f);
    EXPECT_EQ(impl::round_to_dst_inward(-1e6f, dt::f16, true), -65504.f);
    EXPECT_EQ(impl::round_to_dst_inward(1e6f, dt::f16, false), 65504.f);
    EXPECT_EQ(impl::round_to_dst_inward(0.1f, dt::f32, true), 0.1f);
}

TEST(RngSemantics, LnApproxOverEveryPositiveInputGumbelTakes) {
    // Gumbel's outer ln takes -ln u in [2^-25, 16.64]: every f32 in
    // [2^-26, 32), a sample of them here.
    const uint32_t lo = impl::float_bits(0x1p-26f), hi = impl::float_bits(32.f);
    for (uint32_t b = lo; b < hi; b += 61) {
        const float x = impl::bits_float(b);
        const double exact = std::log(static_cast<double>(x));
        ASSERT_LE(std::fabs(impl::ln_approx(x) - exact),
                ln_general_max_ulp * ulp32(exact))
                << std::hexfloat << x;
    }
    EXPECT_EQ(impl::ln_approx(1.f), 0.f);
}

TEST(RngSemantics, ExpApproxAccuracyMonotonyAndClamps) {
    const auto check = [](float t) {
        const double exact = std::exp(static_cast<double>(t));
        const float got = impl::exp_approx(t);
        if (std::isinf(static_cast<float>(exact)) || std::isinf(got))
            return got == static_cast<float>(exact); // overflows exactly
        return std::fabs(got - exact) <= exp_max_ulp * ulp32(exact);
    };
    const uint32_t neg = impl::float_bits(-104.f), pos = impl::float_bits(89.f);
    for (uint32_t b = 0; b <= pos; b += 509)
        ASSERT_TRUE(check(impl::bits_float(b))) << b;
    for (uint32_t b = 0x80000000u; b <= neg; b += 509)
        ASSERT_TRUE(check(impl::bits_float(b))) << b;
    // Every input near f16's and f32's largest values (ln 65520 = 11.09,
    // ln FLT_MAX = 88.72), where creation's checks look: exp_approx is
    // not monotonic, but within 1 + 2^-21 of the value at any larger t.
    for (const auto &r : {std::make_pair(10.5f, 11.5f),
                 std::make_pair(88.f, 89.f)})
        for (uint32_t b = impl::float_bits(r.first);
                b <= impl::float_bits(r.second); ++b) {
            const float t = impl::bits_float(b);
            ASSERT_TRUE(check(t)) << std::hexfloat << t;
            ASSERT_LE(impl::exp_approx(t),
                    impl::exp_approx(impl::bits_float(b + 1)) * (1 + 0x1p-21f))
                    << std::hexfloat << t;
        }
    EXPECT_EQ(impl::exp_approx(0.f), 1.f);
    EXPECT_TRUE(std::isfinite(impl::exp_approx(88.72f))); // FLT_MAX: 88.7228
    EXPECT_EQ(impl::exp_approx(89.f), INFINITY);
    EXPECT_EQ(impl::exp_approx(3e38f), INFINITY);
    EXPECT_EQ(impl::exp_approx(-104.f), 0.f);
    EXPECT_EQ(impl::exp_approx(-3e38f), 0.f);
    EXPECT_EQ(impl::exp_approx(-103.f), 0x1p-149f); // exp(-103) = 1.85 2^-149
}

TEST(RngSemantics, ExponentialAndGumbelFromTheWords) {
    for (rng_alg alg : rng_algs()) {
        const dim_t n = 4001, off = 5;
        const run_args_t r {7, off, 11, 1};
        const auto ex = run(make_desc(alg, {n}, dt::f32), exponential_attr(2.5f), r);
        const auto gu = run(make_desc(alg, {n}, dt::f32), gumbel_attr(1.5f, 2.f), r);
        const auto w = engine_words(alg, r.seed, r.stream, off, n);
        const int shift = alg == rng_alg::mcg31m1 ? 7 : 8;
        for (dim_t i = 0; i < n; ++i) {
            const float e = reinterpret_cast<const float *>(ex.data())[i];
            const float g = reinterpret_cast<const float *>(gu.data())[i];
            ASSERT_EQ(e, impl::exponential_value(w[i], shift, 2.5f)) << i;
            ASSERT_EQ(g, impl::gumbel_value(w[i], shift, 1.5f, 2.f)) << i;
            const uint32_t k = w[i] >> shift;
            ASSERT_NEAR(e, -std::log((k + 1.0) * 0x1p-24) * 2.5, 1e-5 * (1 + e));
            const double v = k + 1 == (1u << 24) ? 0x1p-25 : -std::log((k + 1.0) * 0x1p-24);
            ASSERT_NEAR(g, 1.5 - 2 * std::log(v), 1e-5 * (1 + std::fabs(g)));
        }
    }
}

// lognormal's exponent is normal's value at the same seed and offset.
TEST(RngSemantics, LognormalIsExpOfNormal) {
    for (rng_alg alg : rng_algs())
        for (const auto &ms : {std::make_pair(0.f, 1.f),
                     std::make_pair(-1.5f, 2.5f), std::make_pair(-95.f, 4.f)}) {
            const dim_t n = 4001;
            const run_args_t r {9, 3, 2, 1}; // starts on an odd element
            const auto nrm = run(make_desc(alg, {n}, dt::f32),
                    normal_attr(ms.first, ms.second), r);
            const auto lgn = run(make_desc(alg, {n}, dt::f32),
                    lognormal_attr(ms.first, ms.second), r);
            for (dim_t i = 0; i < n; ++i) {
                const float t = reinterpret_cast<const float *>(nrm.data())[i];
                const float x = reinterpret_cast<const float *>(lgn.data())[i];
                ASSERT_EQ(x, impl::exp_approx(t)) << i;
                const double exact = std::exp(static_cast<double>(t));
                ASSERT_LE(std::fabs(x - exact), exp_max_ulp * ulp32(exact))
                        << alg2str(alg) << " " << i;
            }
        }
}

TEST(RngSemantics, SinCosAccuracyAndQuadrants) {
    for (uint32_t k = 0; k < (1u << 24); k += 97) {
        float s, c;
        impl::sincos_2pi(k, &s, &c);
        const double a = 2 * M_PI * k / 16777216.0;
        ASSERT_NEAR(s, std::sin(a), 2.5e-7) << k;
        ASSERT_NEAR(c, std::cos(a), 2.5e-7) << k;
    }
    float s, c;
    impl::sincos_2pi(1u << 22, &s, &c); // a quarter turn, exactly
    EXPECT_EQ(s, 1.f);
    EXPECT_EQ(c, 0.f);
}

// --- f64 ----------------------------------------------------------------------

namespace {
// The spacing of f64 values at |v| (subnormal spacing below 2^-1022).
long double ulp64(long double v) {
    const int e = v == 0 ? -1022
                         : std::max(std::ilogb(static_cast<double>(v)), -1022);
    return std::ldexp(1.0L, e - 52);
}
// Element g's 53 bits from its two words, the low word first: the test's
// own arithmetic, as docs/semantics.md states it.
uint64_t u53_of_words(const std::vector<uint32_t> &w, uint64_t g, int bits) {
    const uint64_t x = uint64_t(w[2 * g + 1]) << bits | w[2 * g];
    return x >> (2 * bits - 53);
}
constexpr long double two_pi_l = 6.283185307179586476925286766559005768L;
} // namespace

// The ulp bounds of docs/semantics.md's f64 paragraph (measured against
// long double libm, whose own error is near 2^-11 of an f64 ulp).
constexpr double ln64_max_ulp = 2;
constexpr double exp64_max_ulp = 1.2;
constexpr double gumbel64_max_ulp = 2.2; // of max(1, |x|)
constexpr double sincos64_max_abs = 0x1p-52;

TEST(RngSemantics, F64FromTheWords) {
    for (rng_alg alg : rng_algs()) {
        SCOPED_TRACE(alg2str(alg));
        const int bits = alg == rng_alg::mcg31m1 ? 31 : 32;
        const dim_t n = 3001, off = 5; // starts on an odd element
        const run_args_t r {11, off, 3, 1};
        const auto w = engine_words(alg, r.seed, r.stream, 0, 2 * (n + off + 1));
        const auto f64_of = [&](const primitive_attr &attr) {
            return run_as<double>(alg, n, attr, r);
        };
        const float a = -2.5f, b = 7.f;
        const auto uni = f64_of(uniform_attr(a, b));
        const auto nrm = f64_of(normal_attr(1.5f, 2.f));
        const auto lgn = f64_of(lognormal_attr(0.25f, 0.5f));
        const auto exn = f64_of(exponential_attr(1.f));
        const auto gum = f64_of(gumbel_attr(0.f, 1.f));
        for (dim_t i = 0; i < n; ++i) {
            const uint64_t g = off + i, k = u53_of_words(w, g, bits);
            // NumPy's random(): exact, then one fma.
            const double u = static_cast<double>(k) / 9007199254740992.0;
            ASSERT_EQ(uni[i], std::fma(u, double(b) - double(a), double(a)))
                    << i;
            ASSERT_GE(uni[i], a);
            ASSERT_LT(uni[i], b);
            // Open at 0: u53 + 1.
            const long double uo = (k + 1.0L) / 9007199254740992.0L;
            const long double e = -logl(uo);
            ASSERT_LE(fabsl(exn[i] - e), ln64_max_ulp * ulp64(e)) << i;
            const long double gv = -logl(std::max(e, 0x1p-54L));
            ASSERT_LE(fabsl(gum[i] - gv),
                    gumbel64_max_ulp * ulp64(std::max(1.0L, fabsl(gv))))
                    << i;
            // Box-Muller on the pair's 4 words.
            const uint64_t ke = u53_of_words(w, g & ~1ull, bits);
            const uint64_t ko = u53_of_words(w, g | 1, bits);
            const long double rr
                    = sqrtl(-2 * logl((ke + 1.0L) / 9007199254740992.0L));
            const long double ang = two_pi_l * ko / 9007199254740992.0L;
            const long double z = (g & 1) ? rr * sinl(ang) : rr * cosl(ang);
            ASSERT_LE(fabsl(nrm[i] - (1.5L + 2 * z)), 1e-14L * (1 + fabsl(z))) << i;
            // lognormal is exp of normal's value, the same words.
            double v[2];
            impl::normal_pair_f64(ke, ko, 0.25, 0.5, &v[0], &v[1]);
            ASSERT_EQ(lgn[i], impl::exp_approx_f64(v[g & 1])) << i;
            ASSERT_LE(fabsl(lgn[i] - expl(v[g & 1])),
                    exp64_max_ulp * ulp64(expl(v[g & 1])))
                    << i;
        }
    }
}

// An f64 dst takes the parameters as given, doubles no f32 holds (0.1):
// uniform(0.1, 0.3) is fma(u53 2^-53, 0.3 - 0.1, 0.1) in f64, the others
// their f64 forms of the doubles; an f32 dst rounds them to f32 first, as
// the float arguments did.
TEST(RngSemantics, F64TakesDoubleParameters) {
    const rng_alg alg = rng_alg::philox4x32_10;
    const dim_t n = 515, off = 3;
    const run_args_t r {7, off, 2, 1};
    const auto w = engine_words(alg, r.seed, r.stream, 0, 2 * (n + off + 1));
    const auto f64_of = [&](const primitive_attr &attr) {
        return run_as<double>(alg, n, attr, r);
    };
    const auto uni = f64_of(uniform_attr(0.1, 0.3));
    const auto nrm = f64_of(normal_attr(0.1, 0.7));
    const auto exn = f64_of(exponential_attr(0.3));
    const auto gum = f64_of(gumbel_attr(0.1, 0.3));
    const auto lgn = f64_of(lognormal_attr(0.1, 0.3));
    for (dim_t i = 0; i < n; ++i) {
        const uint64_t g = off + i, k = u53_of_words(w, g, 32);
        ASSERT_EQ(uni[i],
                std::fma(static_cast<double>(k) * 0x1p-53, 0.3 - 0.1, 0.1))
                << i;
        ASSERT_EQ(exn[i], impl::exponential_value_f64(k, 0.3)) << i;
        ASSERT_EQ(gum[i], impl::gumbel_value_f64(k, 0.1, 0.3)) << i;
        double v[2];
        impl::normal_pair_f64(u53_of_words(w, g & ~1ull, 32),
                u53_of_words(w, g | 1, 32), 0.1, 0.7, &v[0], &v[1]);
        ASSERT_EQ(nrm[i], v[g & 1]) << i;
        impl::normal_pair_f64(u53_of_words(w, g & ~1ull, 32),
                u53_of_words(w, g | 1, 32), 0.1, 0.3, &v[0], &v[1]);
        ASSERT_EQ(lgn[i], impl::exp_approx_f64(v[g & 1])) << i;
    }
    // f32: the bits of the float arguments.
    EXPECT_EQ(run(make_desc(alg, {n}, dt::f32), uniform_attr(0.1, 0.3), r),
            run(make_desc(alg, {n}, dt::f32), uniform_attr(0.1f, 0.3f), r));
    EXPECT_EQ(run(make_desc(alg, {n}, dt::bf16), normal_attr(0.1, 0.7), r),
            run(make_desc(alg, {n}, dt::bf16), normal_attr(0.1f, 0.7f), r));
}

// laplace is exponential's value of the same word (f64: the same two
// words) with the sign of the word's bit 0 (f64: the element's first
// word's), then loc added: |x| equals exponential's value exactly at loc 0.
TEST(RngSemantics, LaplaceIsASignedExponential) {
    for (rng_alg alg : rng_algs()) {
        SCOPED_TRACE(alg2str(alg));
        const dim_t n = 3001, off = 5;
        const run_args_t r {13, off, 4, 1};
        const int bits = alg == rng_alg::mcg31m1 ? 31 : 32;
        const auto w = engine_words(alg, r.seed, r.stream, 0, 2 * (n + off));
        for (const float loc : {0.f, -1.5f}) {
            const auto ex = run_as<float>(alg, n, exponential_attr(2.5f), r);
            const auto lp = run_as<float>(alg, n, laplace_attr(loc, 2.5f), r);
            const auto ex64
                    = run_as<double>(alg, n, exponential_attr(2.5f), r);
            const auto lp64
                    = run_as<double>(alg, n, laplace_attr(loc, 2.5f), r);
            int negative = 0;
            for (dim_t i = 0; i < n; ++i) {
                const uint64_t g = off + i;
                const bool neg = w[g] & 1u, neg64 = w[2 * g] & 1u;
                negative += neg + neg64;
                const float e = ex[i], x = lp[i];
                ASSERT_EQ(x, loc + (neg ? -e : e)) << i;
                const double e64 = ex64[i], x64 = lp64[i];
                ASSERT_EQ(x64, double(loc) + (neg64 ? -e64 : e64)) << i;
                if (loc == 0.f) {
                    ASSERT_EQ(std::fabs(x), e) << i;
                    ASSERT_EQ(std::fabs(x64), e64) << i;
                }
                ASSERT_EQ(x64, impl::laplace_value_f64(
                                       u53_of_words(w, g, bits), w[2 * g],
                                       loc, 2.5))
                        << i;
            }
            EXPECT_NEAR(negative, n, 4 * std::sqrt(n)); // of 2n signs
        }
    }
}

// rayleigh is sqrt(2 e) * scale with e exponential(1)'s value of the same
// word (f64: the same two words), in the kernels' type: one sqrt, one
// multiply.
TEST(RngSemantics, RayleighIsTheRootOfTwiceAnExponential) {
    for (rng_alg alg : rng_algs()) {
        SCOPED_TRACE(alg2str(alg));
        const dim_t n = 3001, off = 5;
        const run_args_t r {13, off, 4, 1};
        const int bits = alg == rng_alg::mcg31m1 ? 31 : 32;
        const auto w = engine_words(alg, r.seed, r.stream, 0, 2 * (n + off));
        const auto ex = run_as<float>(alg, n, exponential_attr(1), r);
        const auto ry = run_as<float>(alg, n, rayleigh_attr(2.5), r);
        const auto ex64 = run_as<double>(alg, n, exponential_attr(1), r);
        const auto ry64 = run_as<double>(alg, n, rayleigh_attr(0.3), r);
        for (dim_t i = 0; i < n; ++i) {
            ASSERT_EQ(ry[i], std::sqrt(ex[i] * 2.f) * 2.5f) << i;
            const double x64 = ry64[i];
            ASSERT_EQ(x64, std::sqrt(ex64[i] * 2.0) * 0.3) << i;
            ASSERT_EQ(x64, impl::rayleigh_value_f64(
                                   u53_of_words(w, off + i, bits), 0.3))
                    << i;
        }
    }
}

// ln, sin, cos and exp in f64 against long double, over the inputs the
// samplers give them (u = (k + 1) 2^-53, gumbel's v in [2^-54, 36.8],
// every angle k 2^-53 turn) and exp over its whole range; sampled.
TEST(RngSemantics, F64ApproxAccuracy) {
    std::mt19937_64 gen(5);
    double worst_ln = 0, worst_exp = 0, worst_sc = 0;
    for (int i = 0; i < 2000000; ++i) {
        uint64_t k = gen() >> 11;
        if (i < 1000) k = static_cast<uint64_t>(i); // the smallest u
        if (i >= 1000 && i < 2000) k = (uint64_t(1) << 53) - 1 - (i - 1000);
        const double u = impl::open0_u53(k);
        const long double lu = logl(u);
        ASSERT_EQ(impl::ln_approx_f64(u) == 0, lu == 0) << k;
        if (lu != 0)
            worst_ln = std::max(worst_ln,
                    double(fabsl(impl::ln_approx_f64(u) - lu) / ulp64(lu)));
        const double x = std::ldexp(1.0 + impl::open0_u53(gen() >> 11) - 0x1p-53,
                static_cast<int>(gen() % 60) - 55); // [2^-55, 32)
        const long double lx = logl(x);
        if (lx != 0)
            worst_ln = std::max(worst_ln,
                    double(fabsl(impl::ln_approx_f64(x) - lx) / ulp64(lx)));
        const double t = -745.0 + impl::open0_u53(gen() >> 11) * 1454.7;
        const long double et = expl(t);
        worst_exp = std::max(worst_exp,
                double(fabsl(impl::exp_approx_f64(t) - et) / ulp64(et)));
        double s, c;
        impl::sincos_2pi_f64(k, &s, &c);
        const long double ang = two_pi_l * k / 9007199254740992.0L;
        worst_sc = std::max(worst_sc,
                double(std::max(fabsl(s - sinl(ang)), fabsl(c - cosl(ang)))));
    }
    std::printf("f64: ln %.3f ulp, exp %.3f ulp, sincos %.3g\n", worst_ln,
            worst_exp, worst_sc);
    EXPECT_LE(worst_ln, ln64_max_ulp);
    EXPECT_LE(worst_exp, exp64_max_ulp);
    EXPECT_LE(worst_sc, sincos64_max_abs);
    // Exact points and the clamps.
    EXPECT_EQ(impl::ln_approx_f64(1.0), 0.0);
    double s, c;
    impl::sincos_2pi_f64(uint64_t(1) << 51, &s, &c); // a quarter turn
    EXPECT_EQ(s, 1.0);
    EXPECT_EQ(c, 0.0);
    EXPECT_EQ(impl::exp_approx_f64(0.0), 1.0);
    EXPECT_EQ(impl::exp_approx_f64(-1e300), 0.0);
    EXPECT_EQ(impl::exp_approx_f64(1e300), INFINITY);
    const long double big = expl(static_cast<long double>(709.78));
    EXPECT_LE(fabsl(impl::exp_approx_f64(709.78) - big),
            exp64_max_ulp * ulp64(big));
}

// truncated_normal to f64: z against the exact quantile of the same u
// (Newton steps in long double on std::erfc), in ulp of max(|z|, 0.5)
// (docs/semantics.md's bound), on the cells of 2^52 nearest both ends and
// a stride between, for the intervals of TruncatedNormalEveryU.
constexpr double truncnorm64_max_ulp = 8;
TEST(RngSemantics, TruncatedNormalF64EveryU) {
    const std::pair<float, float> sets[] = {{-2, 2}, {-8, 8}, {-1, 8},
            {0, 0.5f}, {6, 8}, {7.9f, 8}, {-8, -6}, {-8, -7.9f}, {8.5f, 30},
            {-30, -8.5f}, {-3, 1e-3f}, {-100, 100}};
    const auto q_of = [](long double z) {
        return 0.5L * std::erfc(z / std::sqrt(2.0L));
    };
    const uint64_t cells = uint64_t(1) << 52;
    double worst = 0;
    for (const auto &ab : sets) {
        const auto c = impl::truncnorm_params_f64(0, 1, ab.first, ab.second);
        const long double alpha = ab.first, beta = ab.second;
        const long double pa = alpha <= -12 ? 0 : q_of(-alpha);
        const long double qb = beta >= 12 ? 0 : q_of(beta);
        const long double mass = alpha >= 0 ? q_of(alpha) - qb
                : beta <= 0                 ? q_of(-beta) - pa
                                            : 1 - pa - qb;
        for (uint64_t k = 0; k < cells;
                k += (k < 512 || k >= cells - 512) ? 1 : cells / 1024 - 1) {
            const double x = impl::truncnorm_value_f64(k << 1, c);
            ASSERT_GE(x, ab.first) << k;
            ASSERT_LE(x, ab.second) << k;
            const long double u = (2.0L * k + 1) / (2.0L * cells);
            const long double p = pa + u * mass;
            const bool upper = p > 0.5L;
            const long double t = upper ? qb + (1 - u) * mass : p;
            long double z = -fabsl(x);
            for (int it = 0; it < 4; ++it) // Newton on Q(-z) = t
                z -= (q_of(-z) - t)
                        / (std::exp(-0.5L * z * z) / std::sqrt(2 * M_PIl));
            const long double exact = upper ? -z : z;
            if (exact < alpha || exact > beta) continue; // clamped
            const double err = static_cast<double>(fabsl(x - exact)
                    / ulp64(std::max(fabsl(exact), 0.5L)));
            worst = std::max(worst, err);
            ASSERT_LE(err, truncnorm64_max_ulp)
                    << k << " " << ab.first << " " << ab.second;
        }
    }
    std::printf("truncated_normal f64: worst %.2f ulp of max(|z|, 0.5)\n",
            worst);
}

// f64 is two words an element, yet offsets count elements: next_offset
// is offset + n, and the elements after it are the next ones of the whole
// (JIT or reference: tests/test_rng_jit.cpp holds them equal).
TEST(RngSemantics, F64NextOffsetCountsElements) {
    const auto attr = uniform_attr(0.f, 1.f);
    rng::desc d = make_desc(rng_alg::philox4x32_10, {1000}, dt::f64);
    d.with_offset = true;
    d.with_next_offset = true;
    rng::primitive_desc pd(d, attr);
    std::vector<uint8_t> buf(d.dst.get_size());
    memory next(memory::desc({1}, dt::s64));
    rng(pd).execute(stream(1),
            {{RNDNN_ARG_DST, memory(d.dst, buf.data())},
                    {RNDNN_ARG_SEED, memory::scalar(int64_t(3))},
                    {RNDNN_ARG_OFFSET, memory::scalar(int64_t(77))},
                    {RNDNN_ARG_NEXT_OFFSET, next}});
    EXPECT_EQ(next.data<int64_t>()[0], 1077);
    const auto whole = run(make_desc(rng_alg::philox4x32_10, {2077}, dt::f64),
            attr, {3, 0, 0, 1});
    const auto after = run(make_desc(rng_alg::philox4x32_10, {1000}, dt::f64),
            attr, {3, 1077, 0, 1});
    EXPECT_EQ(0, std::memcmp(buf.data(), whole.data() + 77 * 8, 8000));
    EXPECT_EQ(0, std::memcmp(after.data(), whole.data() + 1077 * 8, 8000));
}

TEST(RngSemantics, ThresholdHelpersAreExact) {
    EXPECT_EQ(impl::bernoulli_threshold32(1.0), 1ull << 32);
    EXPECT_EQ(impl::bernoulli_threshold32(0.0), 0u);
    EXPECT_EQ(impl::bernoulli_threshold32(0x1p-40), 1u);
    EXPECT_EQ(impl::bernoulli_threshold_mcg31(1.0), 0x7fffffffu);
    EXPECT_EQ(impl::bernoulli_threshold_mcg31(0.5), 0x40000000u); // ceil
    EXPECT_EQ(impl::bernoulli_threshold_mcg31(1e-300), 1u);
    EXPECT_EQ(impl::bitsliced_level(0.5, 1), 1u);
    EXPECT_EQ(impl::bitsliced_level(0.75, 1), 2u); // 1.5 -> 2
    EXPECT_EQ(impl::bitsliced_level(0.25, 1), 0u); // 0.5 -> 0
    EXPECT_EQ(impl::bitsliced_level(1.0, 32), 1ull << 32);
}

TEST(RngSemantics, OneDnnLayoutMatchesOneDnnDropoutMask) {
    // oneDNN 3.14's dropout attribute: seed 7 (s64), offset 99, p = 0.1 on
    // 1 x 4099; it keeps an element iff W > (2^32 - 1) * p in double.
    std::ifstream f(RNDNN_TEST_DATA_DIR "/onednn-dropout-mask.u8",
            std::ios::binary);
    const std::vector<char> mask((std::istreambuf_iterator<char>(f)),
            std::istreambuf_iterator<char>());
    ASSERT_EQ(mask.size(), 4099u);
    const auto out = run(make_desc(rng_alg::philox4x32_10_onednn, {1, 4099},
                                 dt::u32),
            {}, {7, 0, 99, 1});
    const auto *w = reinterpret_cast<const uint32_t *>(out.data());
    for (int i = 0; i < 4099; ++i)
        ASSERT_EQ(mask[i], w[i] > 4294967295.0 * 0.1 ? 1 : 0) << i;
}

// --- determinism ------------------------------------------------------------

namespace {
// Problems covering every distribution; n large enough for 3 threads.
struct dist_case_t {
    const char *name;
    primitive_attr attr;
    data_type t;
};
std::vector<dist_case_t> dist_cases(rng_alg alg) {
    std::vector<dist_case_t> c = {{"bits", {}, dt::u32},
            {"bernoulli", bernoulli_attr(0.3), dt::bit},
            {"uniform", uniform_attr(-1.f, 1.f), dt::bf16},
            {"normal", normal_attr(0.f, 1.f), dt::f32},
            {"uniform f64", uniform_attr(-1.f, 1.f), dt::f64},
            {"normal f64", normal_attr(0.f, 1.f), dt::f64}};
    c.push_back({"exponential", exponential_attr(2.f), dt::f32});
    c.push_back({"gumbel", gumbel_attr(-1.f, 3.f), dt::bf16});
    c.push_back({"lognormal", lognormal_attr(0.5f, 1.f), dt::f16});
    c.push_back({"gumbel f64", gumbel_attr(-1.f, 3.f), dt::f64});
    c.push_back({"lognormal f64", lognormal_attr(0.5f, 1.f), dt::f64});
    c.push_back({"truncated_normal f64",
            truncated_normal_attr(0.5f, 2.f, -1.f, 7.f), dt::f64});
    c.push_back({"laplace", laplace_attr(2.f, 0.5f), dt::f16});
    c.push_back({"laplace f64", laplace_attr(2.f, 0.5f), dt::f64});
    c.push_back({"rayleigh", rayleigh_attr(0.5f), dt::bf16});
    c.push_back({"rayleigh f64", rayleigh_attr(0.5f), dt::f64});
    c.push_back({"truncated_normal", truncated_normal_attr(0.5f, 2.f, -1.f, 7.f),
            dt::bf16});
    if (alg != rng_alg::mcg31m1)
        c.push_back({"bitsliced",
                bernoulli_attr(0.3, bernoulli_method::bitsliced, 5), dt::bit});
    if (alg != rng_alg::mcg31m1) {
        c.push_back({"integers", integers_attr(-7, 1000), dt::s32});
        c.push_back({"integers:4", integers_attr(INT64_MIN, 5), dt::s64});
    }
    // Every element below n (the shards' offsets pass 10^9).
    c.push_back({"permutation", permutation_attr((int64_t(1) << 40) + 3),
            dt::s64});
    return c;
}
} // namespace

TEST(RngDeterminism, ThreadCounts) {
    for (rng_alg alg : rng_algs()) {
        for (const auto &c : dist_cases(alg)) {
            const auto d = make_desc(alg, {3, 33333}, c.t);
            const auto one = run(d, c.attr, {5, 17, 2, 1});
            for (int nthr : {2, 3})
                ASSERT_EQ(one, run(d, c.attr, {5, 17, 2, nthr}))
                        << alg2str(alg) << " " << c.name << " " << nthr;
        }
    }
}

TEST(RngDeterminism, ShardsWithOffsets) {
    // A tensor made whole equals its shards made with their start as offset.
    const dim_t n = 100003;
    const dim_t cuts[] = {0, 1, 12345, 12346, 54321, 99999, n};
    for (rng_alg alg : rng_algs()) {
        for (const auto &c : dist_cases(alg)) {
            const int64_t base = 1000000007;
            const auto whole = run(make_desc(alg, {n}, c.t), c.attr,
                    {-9, base, 4, 2});
            for (size_t s = 0; s + 1 < std::size(cuts); ++s) {
                const dim_t len = cuts[s + 1] - cuts[s];
                const auto part = run(make_desc(alg, {len}, c.t), c.attr,
                        {-9, base + cuts[s], 4, 2});
                for (dim_t i = 0; i < len; ++i) {
                    const dim_t at = cuts[s] + i;
                    if (c.t == dt::bit) {
                        ASSERT_EQ(get_bit(part.data(), i), get_bit(whole.data(), at))
                                << alg2str(alg) << " " << c.name << " " << at;
                    } else {
                        const size_t es = dt_bits(c.t) / 8;
                        ASSERT_EQ(std::memcmp(part.data() + i * es,
                                          whole.data() + at * es, es),
                                0)
                                << alg2str(alg) << " " << c.name << " " << at;
                    }
                }
            }
        }
    }
}

namespace {
// Logical element i of a memory, as raw bits (bit to s64).
uint64_t element(const memory::desc &md, const void *base, dim_t i) {
    dim_t pos = md.get_offset0(), rest = i;
    for (int d = md.get_ndims(); d-- > 0;) {
        pos += (rest % md.get_dims()[d]) * md.get_strides()[d];
        rest /= md.get_dims()[d];
    }
    if (md.get_data_type() == dt::bit) return get_bit(base, pos);
    const size_t es = dt_bits(md.get_data_type()) / 8;
    uint64_t v = 0;
    std::memcpy(&v, static_cast<const uint8_t *>(base) + pos * es, es);
    return v;
}
} // namespace

TEST(RngDeterminism, LayoutsAndUntouchedPadding) {
    const dims shape = {7, 45, 13};
    for (rng_alg alg : {rng_alg::philox4x32_10, rng_alg::mt19937}) {
        for (const auto &c : dist_cases(alg)) {
            const memory::desc dense(shape, c.t);
            const auto pad = memory::pad(shape, c.t, {1, 3, 5}, {2, 0, 3});
            // Column-major-like: the first dim is innermost.
            const memory::desc transposed(shape, c.t, {1, 7 * 13, 7}, 3);
            for (const memory::desc &md : {pad.md, transposed}) {
                const auto ref = run(rng::desc(alg, dense), c.attr, {3, 11, 0, 3});
                const size_t size = std::max(md.get_size(), pad.host_size);
                std::vector<uint8_t> buf(size, 0xa5), untouched(size, 0xa5);
                generate(rng::desc(alg, md), c.attr, buf.data(), {3, 11, 0, 3});
                // Mark every logical element's bits, then compare the rest.
                for (dim_t i = 0; i < dense.nelems(); ++i) {
                    ASSERT_EQ(element(md, buf.data(), i),
                            element(dense, ref.data(), i))
                            << c.name << " " << md.str() << " i=" << i;
                    dim_t pos = md.get_offset0(), rest = i;
                    for (int d = md.get_ndims(); d-- > 0;) {
                        pos += (rest % shape[d]) * md.get_strides()[d];
                        rest /= shape[d];
                    }
                    const size_t bits = dt_bits(c.t);
                    for (size_t b = 0; b < bits; ++b) {
                        const size_t at = pos * bits + b;
                        const auto m = static_cast<uint8_t>(1u << (at & 7));
                        buf[at >> 3] &= static_cast<uint8_t>(~m);
                        untouched[at >> 3] &= static_cast<uint8_t>(~m);
                    }
                }
                ASSERT_EQ(buf, untouched) << "padding written: " << md.str();
            }
        }
    }
}

TEST(RngDeterminism, OffsetsNearTheEndOfTheRange) {
    const dim_t n = 1000;
    const int64_t last = INT64_MAX - n;
    for (rng_alg alg : rng_algs()) {
        const auto out = run(make_desc(alg, {n}, dt::u32), {}, {1, last, 0, 2});
        const auto w = engine_words(alg, 1, 0, last, n);
        ASSERT_EQ(std::memcmp(out.data(), w.data(), 4 * n), 0) << alg2str(alg);
        // The normal pair of the last (even) element reads one word past
        // the tensor: still fine.
        run(make_desc(alg, {n}, dt::f32), normal_attr(0, 1), {1, last, 0, 2});
    }
    EXPECT_ERROR_NAMES(run(make_desc(rng_alg::philox4x32_10, {n}, dt::u32),
                               {}, {1, last + 1, 0, 1}),
            std::to_string(last + 1));
    // integers with 2 words an element reach the end too; with 4, word
    // 4 g stays below 2^64: elements up to 2^62, then a clear error.
    const auto ints = make_desc(rng_alg::philox4x32_10, {n}, dt::s64);
    run(ints, integers_attr(0, int64_t(1) << 32), {1, last, 0, 2});
    const int64_t end4 = int64_t(1) << 62;
    run(ints, integers_attr(0, (int64_t(1) << 32) + 1), {1, end4 - n, 0, 2});
    EXPECT_ERROR_NAMES(run(ints, integers_attr(0, (int64_t(1) << 32) + 1),
                               {1, end4 - n + 1, 0, 2}),
            "passes 2^62");
}

// --- permutation ------------------------------------------------------------

namespace {
// The s64 values of permutation(n) at elements [offset, offset + count).
std::vector<int64_t> permutation_values(int64_t n, dim_t count,
        const run_args_t &r, data_type t = dt::s64) {
    const auto out = run(make_desc(rng_alg::philox4x32_10, {count}, t),
            permutation_attr(n), r);
    std::vector<int64_t> v(count);
    for (dim_t i = 0; i < count; ++i) {
        if (t == dt::s64) {
            std::memcpy(&v[i], out.data() + 8 * i, 8);
        } else {
            int32_t w;
            std::memcpy(&w, out.data() + 4 * i, 4);
            v[i] = w;
        }
    }
    return v;
}
} // namespace

// Small n: every value of [0, n) exactly once, in s64 and s32, on 1 and 3
// threads; not the identity once n passes 2.
TEST(RngPermutation, IsABijection) {
    for (int64_t n : {1, 2, 3, 4, 5, 7, 16, 17, 100, 4097, 65536, 70001}) {
        for (data_type t : {dt::s64, dt::s32})
            for (int nthr : {1, 3}) {
                auto v = permutation_values(n, n, {-77, 0, 9, nthr}, t);
                const auto first = v;
                std::sort(v.begin(), v.end());
                for (int64_t i = 0; i < n; ++i)
                    ASSERT_EQ(v[i], i) << n << " " << dt2str(t) << " " << nthr;
                if (n > 16) {
                    int64_t fixed = 0;
                    for (int64_t i = 0; i < n; ++i)
                        fixed += first[i] == i;
                    EXPECT_LT(fixed, 8 + n / 100) << n;
                }
            }
    }
}

// n up to 2^63 - 1: a shard anywhere is computed alone (a few thousand
// elements, however large n), below n and without a repeat; its elements
// equal those of any other shard that covers them.
TEST(RngPermutation, HugeN) {
    const int64_t max = INT64_MAX;
    for (int64_t n : {max, (int64_t(1) << 62) + 1, int64_t(3) << 40}) {
        const int64_t at = n / 3 * 2;
        const auto v = permutation_values(n, 5000, {5, at, 1, 2});
        std::vector<int64_t> s = v;
        std::sort(s.begin(), s.end());
        EXPECT_TRUE(std::adjacent_find(s.begin(), s.end()) == s.end()) << n;
        EXPECT_GE(s.front(), 0);
        EXPECT_LT(s.back(), n);
        const auto part = permutation_values(n, 7, {5, at + 1234, 1, 1});
        for (int i = 0; i < 7; ++i)
            EXPECT_EQ(part[i], v[1234 + i]) << n;
    }
    // The last element of the largest n.
    const auto last = permutation_values(max, 3, {5, max - 3, 1, 1});
    for (int64_t x : last)
        EXPECT_LT(x, max);
}

// Streams and seeds give other permutations; the algorithm does not enter.
TEST(RngPermutation, StreamsAndSeeds) {
    const int64_t n = 1000;
    const auto base = permutation_values(n, n, {3, 0, 0, 1});
    EXPECT_NE(base, permutation_values(n, n, {3, 0, 1, 1}));
    EXPECT_NE(base, permutation_values(n, n, {4, 0, 0, 1}));
    EXPECT_NE(permutation_values(n, n, {3, 0, INT64_MIN, 1}),
            permutation_values(n, n, {3, 0, 0, 1}));
    for (rng_alg alg : rng_algs()) {
        const auto out = run(make_desc(alg, {n}, dt::s64),
                permutation_attr(n), {3, 0, 0, 1});
        EXPECT_EQ(std::memcmp(out.data(), base.data(), 8 * n), 0)
                << alg2str(alg);
    }
}

// Bad n, elements past n, s32 too small: named errors; the JIT kernels
// decline (the reference serves).
TEST(RngPermutation, Errors) {
    const auto d = make_desc(rng_alg::philox4x32_10, {8}, dt::s64);
    EXPECT_ERROR_NAMES(rng::primitive_desc(d, permutation_attr(0)),
            "permutation n=0 is not >= 1");
    EXPECT_ERROR_NAMES(rng::primitive_desc(d, permutation_attr(INT64_MIN)),
            "n=-9223372036854775808 is not >= 1");
    EXPECT_ERROR_NAMES(run(d, permutation_attr(8), {1, 1, 0, 1}),
            "offset=1 plus 8 elements passes n=8");
    EXPECT_ERROR_NAMES(run(d, permutation_attr(7), {1, 0, 0, 1}),
            "passes n=7");
    run(d, permutation_attr(9), {1, 1, 0, 1});
    const auto d32 = make_desc(rng_alg::philox4x32_10, {8}, dt::s32);
    EXPECT_ERROR_NAMES(rng::primitive_desc(d32,
                               permutation_attr((int64_t(1) << 31) + 1)),
            "has values up to 2147483648, outside s32");
    rng::primitive_desc(d32, permutation_attr(int64_t(1) << 31));
    EXPECT_ERROR_NAMES(rng::primitive_desc(
                               make_desc(rng_alg::philox4x32_10, {8}, dt::u32),
                               permutation_attr(8)),
            "dist=permutation cannot write dst type u32");
    EXPECT_EQ(std::string(rng::primitive_desc(d, permutation_attr(8))
                                  .impl_name()),
            "ref:any");
}

// A tensor without elements: every engine and distribution accepts it,
// needs no data, and moves the offset by nothing.
TEST(RngDeterminism, EmptyTensor) {
    for (rng_alg alg : rng_algs())
        for (const auto &c : {std::make_pair(dt::u32, primitive_attr()),
                     std::make_pair(dt::bit, bernoulli_attr(0.3)),
                     std::make_pair(dt::f32, normal_attr(0, 1))}) {
            SCOPED_TRACE(alg2str(alg));
            rng::desc d = make_desc(alg, {4, 0}, c.first);
            d.with_offset = true;
            d.with_next_offset = true;
            d.name = alg == rng_alg::multfly ? "empty" : "";
            rng prim {rng::primitive_desc(d, c.second)};
            EXPECT_EQ(d.dst.get_size(), 0u);
            memory next(memory::desc({1}, dt::s64));
            next.data<int64_t>()[0] = -1;
            prim.execute(stream(2),
                    {{RNDNN_ARG_DST, memory(d.dst, nullptr)},
                            {RNDNN_ARG_SEED, memory::scalar(int64_t(7))},
                            {RNDNN_ARG_OFFSET, memory::scalar(int64_t(99))},
                            {RNDNN_ARG_NEXT_OFFSET, next}});
            EXPECT_EQ(next.data<int64_t>()[0], 99);
        }
}

// --- runtime arguments ------------------------------------------------------

TEST(RngArgs, ImplementationIsReported) {
    // mt19937 has no JIT kernel (docs/performance.md): the reference, with
    // the vector words of the best tier this process may use, if any.
    rng::primitive_desc pd(make_desc(rng_alg::mt19937, {8}, dt::u32));
    EXPECT_EQ(pd.impl_name(), mt19937_impl_name(cpu_isa::all));
    EXPECT_EQ(pd.info(), "alg=mt19937,dist=bits,dst=u32:8");
}

// mt19937 at every tier of tier_params() (the parameter, as the ISA cap).
class RngMt19937Tier : public rndnn::test::tier_suite_t {};

// The implementation follows the cap: simd:<tier> for a tier with vector
// words, the scalar reference ref:any otherwise (cap none, or sse41).
TEST_P(RngMt19937Tier, ImplNameFollowsTheCap) {
    const cpu_isa cap = GetParam();
    primitive_attr attr;
    attr.set_max_cpu_isa(cap);
    rng::primitive_desc pd(make_desc(rng_alg::mt19937, {8}, dt::u32), attr);
    const std::string want = cap != cpu_isa::none
                    && impl::mt19937_simd_has(cap)
            ? impl::simd_impl_name(cap)
            : "ref:any";
    EXPECT_EQ(pd.impl_name(), want);
    EXPECT_EQ(want, mt19937_impl_name(cap));
}

// Every distribution's bits at the cap equal the scalar reference's (cap
// none), and the words equal std::mt19937's.
TEST_P(RngMt19937Tier, BitsEqualTheScalarReference) {
    const cpu_isa cap = GetParam();
    const rng::desc bits = make_desc(rng_alg::mt19937, {3, 4099}, dt::u32);
    const struct {
        rng::desc d;
        primitive_attr attr;
    } cases[] = {{bits, {}},
            {make_desc(rng_alg::mt19937, {5000}, dt::bit),
                    bernoulli_attr(0.3)},
            {make_desc(rng_alg::mt19937, {5000}, dt::bit),
                    bernoulli_attr(0.7, bernoulli_method::bitsliced, 5)},
            {make_desc(rng_alg::mt19937, {4099}, dt::f32),
                    uniform_attr(-1.f, 2.f)},
            {make_desc(rng_alg::mt19937, {4099}, dt::bf16),
                    normal_attr(0.5f, 2.f)}};
    for (const auto &c : cases)
        for (int64_t offset : {int64_t(0), int64_t(623), int64_t(100003)})
            for (int nthr : {1, 3}) {
                SCOPED_TRACE(impl::cat(c.d.dst.str(), " offset ", offset,
                        " nthr ", nthr));
                run_args_t r;
                r.seed = 5489;
                r.offset = offset;
                r.nthr = nthr;
                primitive_attr at = c.attr, ref = c.attr;
                at.set_max_cpu_isa(cap);
                ref.set_max_cpu_isa(cpu_isa::none);
                EXPECT_EQ(run(c.d, at, r), run(c.d, ref, r));
            }
    run_args_t r;
    r.seed = 5489;
    r.nthr = 2;
    primitive_attr at;
    at.set_max_cpu_isa(cap);
    const auto out = run(bits, at, r);
    std::mt19937 want(5489);
    for (size_t i = 0; i < out.size() / 4; ++i) {
        uint32_t w;
        std::memcpy(&w, out.data() + 4 * i, 4);
        ASSERT_EQ(w, want()) << "word " << i;
    }
}

INSTANTIATE_TEST_SUITE_P(Tiers, RngMt19937Tier,
        ::testing::ValuesIn(tier_params()), tier_param_name);

TEST(RngArgs, SeedTypesStreamsAndScalarKinds) {
    const dim_t n = 300;
    auto d = make_desc(rng_alg::philox4x32_10, {n}, dt::u32);
    const auto s64 = run(d, {}, {-5, 0, 0, 1});

    // An s32 seed is sign-extended.
    d.seed_dt = dt::s32;
    std::vector<uint32_t> out(n);
    rng p32 {rng::primitive_desc(d)};
    p32.execute(stream(1),
            {{RNDNN_ARG_DST, memory(d.dst, out.data())},
                    {RNDNN_ARG_SEED, memory::scalar(int32_t(-5))}});
    EXPECT_EQ(std::memcmp(out.data(), s64.data(), 4 * n), 0);

    // One-element memories instead of host scalars, updated in place.
    auto dm = make_desc(rng_alg::philox4x32_10, {n}, dt::u32);
    dm.scalars = scalar_kind::memory;
    dm.with_offset = true;
    dm.with_next_offset = true;
    int64_t seed = -5, offset = 0, strm = 0, next = -1;
    const memory::desc one({1}, dt::s64);
    rng pm {rng::primitive_desc(dm)};
    const std::unordered_map<int, memory> args
            = {{RNDNN_ARG_DST, memory(dm.dst, out.data())},
                    {RNDNN_ARG_SEED, memory(one, &seed)},
                    {RNDNN_ARG_OFFSET, memory(one, &offset)},
                    {RNDNN_ARG_STREAM, memory(one, &strm)},
                    {RNDNN_ARG_NEXT_OFFSET, memory(one, &next)}};
    pm.execute(stream(1), args);
    EXPECT_EQ(std::memcmp(out.data(), s64.data(), 4 * n), 0);
    EXPECT_EQ(next, n);
    // Continue the stream from the returned offset.
    offset = next;
    pm.execute(stream(1), args);
    EXPECT_EQ(next, 2 * n);
    const auto w = engine_words(rng_alg::philox4x32_10, -5, 0, n, n);
    EXPECT_EQ(std::memcmp(out.data(), w.data(), 4 * n), 0);
    // Another stream gives other words.
    offset = 0;
    strm = 1;
    pm.execute(stream(1), args);
    EXPECT_NE(std::memcmp(out.data(), s64.data(), 4 * n), 0);
    // Host scalars are refused when memories were declared, and back.
    EXPECT_ERROR_NAMES(pm.execute(stream(1),
                               {{RNDNN_ARG_DST, memory(dm.dst, out.data())},
                                       {RNDNN_ARG_SEED, memory::scalar(seed)}}),
            "seed must be a one-element memory");
    EXPECT_ERROR_NAMES(p32.execute(stream(1),
                               {{RNDNN_ARG_DST, memory(d.dst, out.data())},
                                       {RNDNN_ARG_SEED, memory::scalar(seed)}}),
            "seed has type s64; expected s32");
}

TEST(RngArgs, RuntimeP) {
    auto d = make_desc(rng_alg::philox4x32_10, {1000}, dt::bit);
    const auto fixed = run(d, bernoulli_attr(0.25));
    d.runtime_p = true;
    rng prim {rng::primitive_desc(d, bernoulli_attr(0.9))};
    std::vector<uint8_t> out(d.dst.get_size());
    auto exec = [&](float p) {
        prim.execute(stream(1),
                {{RNDNN_ARG_DST, memory(d.dst, out.data())},
                        {RNDNN_ARG_SEED, memory::scalar(int64_t(0))},
                        {RNDNN_ARG_P, memory::scalar(p)}});
    };
    exec(0.25f);
    EXPECT_EQ(out, fixed);
    EXPECT_ERROR_NAMES(exec(1.5f), "p=1.5");
    EXPECT_ERROR_NAMES(exec(NAN), "p=nan");
    EXPECT_ERROR_NAMES(prim.execute(stream(1),
                               {{RNDNN_ARG_DST, memory(d.dst, out.data())},
                                       {RNDNN_ARG_SEED, memory::scalar(int64_t(0))}}),
            "p argument is missing");
}

// --- bernoulli with a p tensor -------------------------------------------------

namespace {

// Draws bernoulli with the p tensor @p p (f32 values; bf16: rounded to it
// first, @p pdims its dims) into d's dst.
std::vector<uint8_t> run_p(rng::desc d, const dims &pdims,
        const std::vector<float> &p, data_type pdt = dt::f32,
        const run_args_t &r = {}) {
    d.p_tensor = memory::desc(pdims, pdt);
    std::vector<uint16_t> p16;
    for (float v : p)
        p16.push_back(impl::f32_to_bf16(v));
    const void *pdata = pdt == dt::bf16 ? static_cast<const void *>(p16.data())
                                        : static_cast<const void *>(p.data());
    d.with_offset = true;
    rng prim {rng::primitive_desc(d, bernoulli_attr(0.5,
            bernoulli_method::automatic))};
    std::vector<uint8_t> out(d.dst.get_size());
    prim.execute(stream(r.nthr),
            {{RNDNN_ARG_DST, memory(d.dst, out.data())},
                    {RNDNN_ARG_SRC,
                            memory(d.p_tensor, const_cast<void *>(pdata))},
                    {RNDNN_ARG_SEED, memory::scalar(r.seed)},
                    {RNDNN_ARG_OFFSET, memory::scalar(r.offset)},
                    {RNDNN_ARG_STREAM, memory::scalar(r.stream)}});
    return out;
}

// Edge probabilities (docs/semantics.md) and random ones, n in all.
std::vector<float> some_ps(size_t n, uint64_t seed) {
    std::vector<float> p = {0.f, 1.f, 0x1p-32f, 0x1p-33f, 1.f - 0x1p-24f,
            0x1p-149f, 0x1p-126f, 0.5f, 0.3f, 1.f - 0x1p-8f, 0x1p-31f};
    prng_t g(seed);
    std::uniform_real_distribution<float> u(0.f, 1.f);
    while (p.size() < n)
        p.push_back(u(g));
    p.resize(n);
    return p;
}

} // namespace

TEST(RngPTensor, EachElementByItsP) {
    for (rng_alg alg : rng_algs()) {
        if (alg == rng_alg::mcg31m1) continue; // 31-bit words: refused
        for (data_type pdt : {dt::f32, dt::bf16}) {
            for (int nthr : {1, 3}) {
                const run_args_t r {77, 13, 2, nthr};
                const dim_t n = 7 * 4099;
                const auto p = some_ps(n, 5);
                const auto out = run_p(make_desc(alg, {7, 4099}, dt::u8),
                        {7, 4099}, p, pdt, r);
                const auto w = engine_words(alg, r.seed, r.stream, r.offset, n);
                for (dim_t i = 0; i < n; ++i) {
                    const double pi = pdt == dt::bf16
                            ? impl::bf16_to_f32(impl::f32_to_bf16(p[i]))
                            : p[i];
                    const bool expect = w[i] < std::ceil(std::ldexp(pi, 32));
                    ASSERT_EQ(out[i], expect ? 1 : 0)
                            << alg2str(alg) << " p=" << pi << " i=" << i;
                }
            }
        }
    }
}

// Every bf16 value in [0, 1] (0x0000 to 0x3f80, subnormals included) as
// a p, against W < ceil(p * 2^32), in the reference and at the best tier.
TEST(RngPTensor, EveryBf16Value) {
    const dim_t n = 0x3f81;
    rng::desc d(rng_alg::philox4x32_10, memory::desc({n}, dt::u8));
    d.p_tensor = memory::desc({n}, dt::bf16);
    d.with_offset = true;
    std::vector<uint16_t> p(n);
    for (dim_t i = 0; i < n; ++i)
        p[i] = static_cast<uint16_t>(i);
    const run_args_t r {31, 7, 5, 2};
    const auto w = engine_words(rng_alg::philox4x32_10, r.seed, r.stream,
            r.offset, n);
    for (cpu_isa cap : {cpu_isa::none, cpu_isa::all}) {
        primitive_attr attr = bernoulli_attr(0.5, bernoulli_method::automatic);
        attr.set_max_cpu_isa(cap);
        std::vector<uint8_t> out(n);
        rng(rng::primitive_desc(d, attr))
                .execute(stream(r.nthr),
                        {{RNDNN_ARG_DST, memory(d.dst, out.data())},
                                {RNDNN_ARG_SRC, memory(d.p_tensor, p.data())},
                                {RNDNN_ARG_SEED, memory::scalar(r.seed)},
                                {RNDNN_ARG_OFFSET, memory::scalar(r.offset)},
                                {RNDNN_ARG_STREAM, memory::scalar(r.stream)}});
        for (dim_t i = 0; i < n; ++i) {
            const double pi = impl::bf16_to_f32(p[i]);
            ASSERT_EQ(out[i], w[i] < std::ceil(std::ldexp(pi, 32)) ? 1 : 0)
                    << "p bits " << p[i] << " cap " << isa2str(cap);
        }
    }
}

TEST(RngPTensor, ConstantPIsThreshold32) {
    for (float p : some_ps(11, 0))
        for (data_type t : {dt::bit, dt::u8, dt::s32, dt::f32}) {
            const auto d = make_desc(rng_alg::philox4x32_10, {3, 1001}, t);
            const run_args_t r {5, 3, 1, 2};
            const auto fixed = run(d, bernoulli_attr(p), r);
            EXPECT_EQ(run_p(d, {3, 1001}, std::vector<float>(3003, p),
                              dt::f32, r),
                    fixed)
                    << "p=" << p << " " << dt2str(t);
            EXPECT_EQ(run_p(d, {1, 1}, {p}, dt::f32, r), fixed)
                    << "p=" << p << " broadcast " << dt2str(t);
        }
}

TEST(RngPTensor, BroadcastIsTheExpandedTensor) {
    const auto d = make_desc(rng_alg::philox4x32_10, {5, 6, 70}, dt::u8);
    const auto p = some_ps(5 * 70, 9);
    std::vector<float> full;
    for (dim_t i = 0; i < 5; ++i)
        for (dim_t j = 0; j < 6; ++j)
            for (dim_t k = 0; k < 70; ++k)
                full.push_back(p[i * 70 + k]);
    const auto expect = run_p(d, {5, 6, 70}, full);
    EXPECT_EQ(run_p(d, {5, 1, 70}, p), expect);
    EXPECT_EQ(run_p(d, {5, 1, 70}, p, dt::f32, {0, 0, 0, 2}), expect);
}

TEST(RngPTensor, Errors) {
    auto d = make_desc(rng_alg::philox4x32_10, {4, 8}, dt::u8);
    d.p_tensor = memory::desc({4, 8}, dt::f32);
    const auto bern = bernoulli_attr(0.5, bernoulli_method::automatic);
    EXPECT_ERROR_NAMES(rng::primitive_desc(d, uniform_attr(0, 1)),
            "a p tensor needs a bernoulli post-op, not dist=uniform");
    EXPECT_ERROR_NAMES(rng::primitive_desc(d, bernoulli_attr(0.5,
                               bernoulli_method::bitsliced, 8)),
            "not bitsliced");
    auto rp = d;
    rp.runtime_p = true;
    EXPECT_ERROR_NAMES(rng::primitive_desc(rp, bern), "runtime p");
    auto mcg = d;
    mcg.alg = rng_alg::mcg31m1;
    EXPECT_ERROR_NAMES(rng::primitive_desc(mcg, bern), "mcg31m1 has 31");
    auto bad = d;
    bad.p_tensor = memory::desc({4, 8}, dt::f16);
    EXPECT_ERROR_NAMES(rng::primitive_desc(bad, bern), "not an f32 or bf16");
    bad.p_tensor = memory::desc({4, 2}, dt::f32);
    EXPECT_ERROR_NAMES(rng::primitive_desc(bad, bern),
            "p tensor dims 4x2 do not broadcast to dst dims 4x8");
    bad.p_tensor = memory::desc({32}, dt::f32);
    EXPECT_ERROR_NAMES(rng::primitive_desc(bad, bern), "do not broadcast");
    bad.p_tensor = memory::desc({4, 8}, dt::f32, {1, 4});
    EXPECT_ERROR_NAMES(rng::primitive_desc(bad, bern), "not dense");

    rng prim {rng::primitive_desc(d, bern)};
    std::vector<uint8_t> out(32, 7);
    std::vector<float> p(32, 0.5f);
    auto exec = [&](const memory::desc &md) {
        prim.execute(stream(1),
                {{RNDNN_ARG_DST, memory(d.dst, out.data())},
                        {RNDNN_ARG_SRC, memory(md, p.data())},
                        {RNDNN_ARG_SEED, memory::scalar(int64_t(0))}});
    };
    p[17] = 1.5f;
    EXPECT_ERROR_NAMES(exec(d.p_tensor), "p tensor element 17 is 1.5");
    p[17] = 0.5f;
    p[3] = NAN;
    EXPECT_ERROR_NAMES(exec(d.p_tensor), "p tensor element 3 is nan");
    p[3] = -0.f;
    p[31] = -1e-30f;
    EXPECT_ERROR_NAMES(exec(d.p_tensor), "p tensor element 31 is -1e-30");
    EXPECT_EQ(out, std::vector<uint8_t>(32, 7)); // nothing written
    p[31] = 0.f;
    EXPECT_ERROR_NAMES(exec(memory::desc({1, 8}, dt::f32)), "p tensor (src)");
    EXPECT_ERROR_NAMES(prim.execute(stream(1),
                               {{RNDNN_ARG_DST, memory(d.dst, out.data())},
                                       {RNDNN_ARG_SEED,
                                               memory::scalar(int64_t(0))}}),
            "p tensor (src)");
    exec(d.p_tensor);
    EXPECT_NE(out, std::vector<uint8_t>(32, 7));
}

// --- errors -----------------------------------------------------------------

TEST(RngErrors, CreationNamesTheBadValue) {
    const auto bit = make_desc(rng_alg::philox4x32_10, {64}, dt::bit);
    EXPECT_ERROR_NAMES(rng::primitive_desc(bit, bernoulli_attr(1.5)), "p=1.5");
    EXPECT_ERROR_NAMES(rng::primitive_desc(bit, bernoulli_attr(-0.1)), "p=-0.1");
    EXPECT_ERROR_NAMES(rng::primitive_desc(bit,
                               bernoulli_attr(0.5, bernoulli_method::bitsliced, 0)),
            "b=0");
    EXPECT_ERROR_NAMES(rng::primitive_desc(bit,
                               bernoulli_attr(0.5, bernoulli_method::bitsliced, 33)),
            "b=33");
    EXPECT_ERROR_NAMES(
            rng::primitive_desc(make_desc(rng_alg::mcg31m1, {64}, dt::bit),
                    bernoulli_attr(0.5, bernoulli_method::bitsliced, 1)),
            "mcg31m1");
    EXPECT_ERROR_NAMES(rng::primitive_desc {bit}, "cannot write dst type bit");
    EXPECT_ERROR_NAMES(
            rng::primitive_desc(make_desc(rng_alg::philox4x32_10, {4}, dt::u8),
                    uniform_attr(0, 1)),
            "dst type u8");
    EXPECT_ERROR_NAMES(
            rng::primitive_desc(make_desc(rng_alg::philox4x32_10, {4}, dt::f32),
                    uniform_attr(2, 1)),
            "[2, 1)");
    EXPECT_ERROR_NAMES(
            rng::primitive_desc(make_desc(rng_alg::philox4x32_10, {4}, dt::f32),
                    normal_attr(0, -1)),
            "stddev=-1");
    // Values that the dst type cannot hold are refused, not written as
    // infinities; the extremes that fit are taken.
    const auto desc_of = [](data_type t) {
        return make_desc(rng_alg::philox4x32_10, {8}, t);
    };
    EXPECT_ERROR_NAMES(rng::primitive_desc(desc_of(dt::f32),
                               uniform_attr(-3e38f, 3e38f)),
            "width b - a overflows f32");
    EXPECT_ERROR_NAMES(
            rng::primitive_desc(desc_of(dt::f16), uniform_attr(0, 1e6f)),
            "f16 cannot hold");
    EXPECT_ERROR_NAMES(rng::primitive_desc(desc_of(dt::f16),
                               uniform_attr(70000, 70000)),
            "[70000, 70000)");
    EXPECT_ERROR_NAMES(rng::primitive_desc(desc_of(dt::bf16),
                               uniform_attr(0, 3.4e38f)),
            "bf16 cannot hold");
    EXPECT_ERROR_NAMES(
            rng::primitive_desc(desc_of(dt::f16), normal_attr(0, 20000)),
            "stddev=20000");
    EXPECT_ERROR_NAMES(rng::primitive_desc(desc_of(dt::f32),
                               normal_attr(3e38f, 1e38f)),
            "f32 cannot hold");
    EXPECT_ERROR_NAMES(
            rng::primitive_desc(desc_of(dt::f32), exponential_attr(-1)),
            "exponential scale=-1 is not finite and >= 0");
    EXPECT_ERROR_NAMES(
            rng::primitive_desc(desc_of(dt::f32), exponential_attr(NAN)),
            "scale=nan");
    EXPECT_ERROR_NAMES( // 16.64 * 4000 = 66542
            rng::primitive_desc(desc_of(dt::f16), exponential_attr(4000)),
            "exponential scale=4000 gives values up to");
    EXPECT_ERROR_NAMES(
            rng::primitive_desc(desc_of(dt::f32), gumbel_attr(0, -2)),
            "gumbel loc=0 scale=-2");
    EXPECT_ERROR_NAMES(
            rng::primitive_desc(desc_of(dt::f32), gumbel_attr(INFINITY, 1)),
            "loc=inf");
    EXPECT_ERROR_NAMES( // 1e3 + 17.33 * 4000
            rng::primitive_desc(desc_of(dt::f16), gumbel_attr(1000, 4000)),
            "f16 cannot hold");
    EXPECT_ERROR_NAMES( // the smallest value, loc - 2.85 scale
            rng::primitive_desc(desc_of(dt::f16), gumbel_attr(-60000, 3000)),
            "f16 cannot hold");
    EXPECT_ERROR_NAMES(
            rng::primitive_desc(desc_of(dt::f32), gumbel_attr(0, 3e37f)),
            "f32 cannot hold");
    EXPECT_ERROR_NAMES(
            rng::primitive_desc(desc_of(dt::f32), laplace_attr(0, -2)),
            "laplace loc=0 scale=-2 is not finite with scale >= 0");
    EXPECT_ERROR_NAMES(
            rng::primitive_desc(desc_of(dt::f32), laplace_attr(NAN, 1)),
            "loc=nan");
    EXPECT_ERROR_NAMES(
            rng::primitive_desc(desc_of(dt::f64), laplace_attr(0, INFINITY)),
            "scale=inf");
    EXPECT_ERROR_NAMES( // the largest value, 1e3 + 16.64 * 4000
            rng::primitive_desc(desc_of(dt::f16), laplace_attr(1000, 4000)),
            "laplace loc=1000 scale=4000 gives values up to");
    EXPECT_ERROR_NAMES( // the smallest value, loc - 16.64 scale
            rng::primitive_desc(desc_of(dt::f16), laplace_attr(-60000, 1000)),
            "f16 cannot hold");
    EXPECT_ERROR_NAMES(
            rng::primitive_desc(desc_of(dt::f32), laplace_attr(0, 3e37f)),
            "f32 cannot hold");
    EXPECT_ERROR_NAMES(
            rng::primitive_desc(desc_of(dt::f32), rayleigh_attr(-2)),
            "rayleigh scale=-2 is not finite and >= 0");
    EXPECT_ERROR_NAMES(
            rng::primitive_desc(desc_of(dt::f32), rayleigh_attr(NAN)),
            "rayleigh scale=nan");
    EXPECT_ERROR_NAMES(
            rng::primitive_desc(desc_of(dt::f64), rayleigh_attr(INFINITY)),
            "rayleigh scale=inf");
    EXPECT_ERROR_NAMES( // the largest value, 5.768 * 11400 = 65757
            rng::primitive_desc(desc_of(dt::f16), rayleigh_attr(11400)),
            "rayleigh scale=11400 gives values up to");
    EXPECT_ERROR_NAMES( // 5.768 * 6e37
            rng::primitive_desc(desc_of(dt::f32), rayleigh_attr(6e37f)),
            "f32 cannot hold");
    EXPECT_ERROR_NAMES( // 8.572 * 2e307
            rng::primitive_desc(desc_of(dt::f64), rayleigh_attr(2.5e307)),
            "f64 cannot hold");
    EXPECT_ERROR_NAMES(
            rng::primitive_desc(desc_of(dt::f32), lognormal_attr(0, -1)),
            "lognormal mean=0 sigma=-1");
    EXPECT_ERROR_NAMES( // exp(6 + 5.77) = 1.3e5
            rng::primitive_desc(desc_of(dt::f16), lognormal_attr(6, 1)),
            "f16 cannot hold");
    EXPECT_ERROR_NAMES(
            rng::primitive_desc(desc_of(dt::f32), lognormal_attr(83, 1)),
            "f32 cannot hold");
    EXPECT_ERROR_NAMES(
            rng::primitive_desc(desc_of(dt::f32), lognormal_attr(1, 1e38f)),
            "sigma=1e+38");
    // A double past f32's range: refused for f32, bf16 and f16, naming it;
    // an f64 dst takes it, its checks in f64.
    EXPECT_ERROR_NAMES(
            rng::primitive_desc(desc_of(dt::f32), uniform_attr(1e39, 2e39)),
            "uniform a=1e+39 is not a finite f32");
    EXPECT_ERROR_NAMES(
            rng::primitive_desc(desc_of(dt::f16), normal_attr(0, -1e39)),
            "normal stddev=-1e+39 is not a finite f32");
    EXPECT_ERROR_NAMES(
            rng::primitive_desc(desc_of(dt::bf16), exponential_attr(1e39)),
            "exponential scale=1e+39 is not a finite f32");
    EXPECT_ERROR_NAMES(rng::primitive_desc(desc_of(dt::f32),
                               truncated_normal_attr(0, 1, -1e39, 1)),
            "truncated_normal a=-1e+39 is not a finite f32");
    // FLT_MAX + 2^103 (half its ulp) rounds to infinity, just below to
    // FLT_MAX.
    EXPECT_ERROR_NAMES(rng::primitive_desc(desc_of(dt::f32),
                               gumbel_attr(0x1.ffffffp127, 0)),
            "gumbel loc=3.4028235677973366e+38 is not a finite f32");
    EXPECT_NO_THROW(rng::primitive_desc(
            desc_of(dt::f32), gumbel_attr(0x1.fffffefffffffp127, 0)));
    for (const auto &ok : {uniform_attr(1e39, 2e39), normal_attr(1e300, 1e290),
                 exponential_attr(1e300), gumbel_attr(-1e39, 1e39),
                 lognormal_attr(-1e39, 1e37)}) {
        std::vector<double> out(8);
        generate(desc_of(dt::f64), ok, out.data(), {1, 2, 3, 1});
        for (double v : out)
            EXPECT_TRUE(std::isfinite(v)) << v;
    }
    EXPECT_ERROR_NAMES(
            rng::primitive_desc(desc_of(dt::f64), uniform_attr(-1e308, 1e308)),
            "uniform range [-1e+308, 1e+308): its width b - a overflows f64");
    EXPECT_ERROR_NAMES( // 1e307 + 8.57 * 2e307 > DBL_MAX
            rng::primitive_desc(desc_of(dt::f64), normal_attr(1e307, 2e307)),
            "normal mean=1e+307 stddev=2e+307 gives values up to inf in "
            "magnitude, which f64 cannot hold");
    EXPECT_NO_THROW(rng::primitive_desc(
            desc_of(dt::f64), normal_attr(1e307, 1e307)));
    EXPECT_ERROR_NAMES( // 36.74 * 1e307
            rng::primitive_desc(desc_of(dt::f64), exponential_attr(1e307)),
            "exponential scale=1e+307 gives values up to inf");
    EXPECT_ERROR_NAMES( // 1e307 + 37.43 * 1e307
            rng::primitive_desc(desc_of(dt::f64), gumbel_attr(1e307, 1e307)),
            "gumbel loc=1e+307 scale=1e+307 gives values up to inf");
    EXPECT_ERROR_NAMES(
            rng::primitive_desc(desc_of(dt::f64), normal_attr(0.1, NAN)),
            "normal mean=0.1 stddev=nan is not finite");
    EXPECT_ERROR_NAMES(rng::primitive_desc(desc_of(dt::f32),
                               truncated_normal_attr(0, 0, -1, 1)),
            "truncated_normal mean=0 stddev=0 a=-1 b=1: needs finite values, "
            "stddev > 0 and a < b");
    EXPECT_ERROR_NAMES(rng::primitive_desc(desc_of(dt::f32),
                               truncated_normal_attr(0, 1, 2, 2)),
            "a=2 b=2: needs");
    EXPECT_ERROR_NAMES(rng::primitive_desc(desc_of(dt::f32),
                               truncated_normal_attr(0, 1, NAN, 2)),
            "a=nan");
    EXPECT_ERROR_NAMES(rng::primitive_desc(desc_of(dt::f32),
                               truncated_normal_attr(0, 1, -1, INFINITY)),
            "b=inf");
    EXPECT_ERROR_NAMES(rng::primitive_desc(desc_of(dt::f32),
                               truncated_normal_attr(1, 0.5f, 5.5f, 9)),
            "(a - mean) / stddev = 9, (b - mean) / stddev = 16");
    EXPECT_ERROR_NAMES(rng::primitive_desc(desc_of(dt::f32),
                               truncated_normal_attr(0, 1, -20, -9.5f)),
            "(b - mean) / stddev = -9.5");
    EXPECT_ERROR_NAMES( // 1 + 2^-12 and 1 + 2^-11 hold no f16 between them
            rng::primitive_desc(desc_of(dt::f16),
                    truncated_normal_attr(1, 1, 1.0002f, 1.0004f)),
            "no finite f16 value lies in [a, b]");
    EXPECT_ERROR_NAMES(rng::primitive_desc(desc_of(dt::f16),
                               truncated_normal_attr(0, 1e5f, 7e4f, 8e4f)),
            "no finite f16 value");
    for (const auto &ok : {std::make_pair(desc_of(dt::f16), uniform_attr(0, 65504)),
                 std::make_pair(desc_of(dt::f16), uniform_attr(-65504, 65504)),
                 std::make_pair(desc_of(dt::f16), normal_attr(0, 10000)),
                 std::make_pair(desc_of(dt::f16), exponential_attr(3900)),
                 std::make_pair(desc_of(dt::f16), gumbel_attr(-50000, 3000)),
                 std::make_pair(desc_of(dt::f16), laplace_attr(0, 3900)),
                 std::make_pair(desc_of(dt::f16), laplace_attr(-48000, 1000)),
                 std::make_pair(desc_of(dt::f16), rayleigh_attr(11300)),
                 std::make_pair(desc_of(dt::f16), lognormal_attr(5, 1)),
                 std::make_pair(desc_of(dt::bf16), lognormal_attr(-1e30f, 1)),
                 std::make_pair(desc_of(dt::bf16), uniform_attr(0, 3e38f)),
                 std::make_pair(desc_of(dt::f16),
                         truncated_normal_attr(0, 1e5f, -1e6f, 1e6f)),
                 std::make_pair(desc_of(dt::bf16),
                         truncated_normal_attr(0, 3e38f, -3e38f, 3e38f))}) {
        std::vector<uint16_t> out(8);
        generate(ok.first, ok.second, out.data(), {1, 2, 3, 1});
        for (uint16_t h : out) {
            const float v = ok.first.dst.get_data_type() == dt::f16
                    ? impl::f16_to_f32(h)
                    : impl::bf16_to_f32(h);
            EXPECT_TRUE(std::isfinite(v)) << v;
        }
    }
    // integers: a non-empty range whose values the dst type holds
    // exactly, from 32-bit words.
    EXPECT_ERROR_NAMES(rng::primitive_desc(desc_of(dt::s64),
                               integers_attr(5, 5)),
            "[5, 5) is empty");
    EXPECT_ERROR_NAMES(rng::primitive_desc(desc_of(dt::s64),
                               integers_attr(INT64_MAX, INT64_MIN)),
            "high must exceed low");
    EXPECT_ERROR_NAMES(rng::primitive_desc(desc_of(dt::u8),
                               integers_attr(0, 257)),
            "up to 256, outside u8");
    EXPECT_ERROR_NAMES(rng::primitive_desc(desc_of(dt::u8),
                               integers_attr(-1, 3)),
            "down to -1, outside u8");
    EXPECT_ERROR_NAMES(rng::primitive_desc(desc_of(dt::s32),
                               integers_attr(0, (int64_t(1) << 31) + 1)),
            "up to 2147483648, outside s32");
    EXPECT_ERROR_NAMES(rng::primitive_desc(desc_of(dt::f32),
                               integers_attr(-(int64_t(1) << 24) - 1, 0)),
            "down to -16777217, outside f32");
    EXPECT_ERROR_NAMES(rng::primitive_desc(desc_of(dt::f16),
                               integers_attr(0, 2)),
            "cannot write dst type f16");
    EXPECT_ERROR_NAMES(
            rng::primitive_desc(make_desc(rng_alg::mcg31m1, {4}, dt::s64),
                    integers_attr(0, 2)),
            "integers needs 32-bit words; mcg31m1 has 31");
    for (const auto &ok :
            {std::make_pair(desc_of(dt::u8), integers_attr(0, 256)),
                    std::make_pair(desc_of(dt::s32),
                            integers_attr(INT32_MIN, int64_t(INT32_MAX) + 1)),
                    std::make_pair(desc_of(dt::f32),
                            integers_attr(-(int64_t(1) << 24),
                                    (int64_t(1) << 24) + 1)),
                    std::make_pair(desc_of(dt::s64),
                            integers_attr(INT64_MIN, INT64_MAX))})
        rng::primitive_desc(ok.first, ok.second);
    post_ops two;
    two.append_uniform(0, 1);
    two.append_normal(0, 1);
    primitive_attr attr2;
    attr2.set_post_ops(two);
    EXPECT_ERROR_NAMES(rng::primitive_desc(make_desc(rng_alg::philox4x32_10,
                                                   {4}, dt::f32),
                               attr2),
            "got 2");
    auto named = make_desc(rng_alg::multfly, {4}, dt::u32);
    named.name = std::string(33, 'x');
    EXPECT_ERROR_NAMES(rng::primitive_desc {named}, "33 bytes");
    named.alg = rng_alg::philox4x32_10;
    named.name = "layer1";
    EXPECT_ERROR_NAMES(rng::primitive_desc {named}, "layer1");
    auto s8seed = make_desc(rng_alg::philox4x32_10, {4}, dt::u32);
    s8seed.seed_dt = dt::u8;
    EXPECT_ERROR_NAMES(rng::primitive_desc {s8seed}, "seed type u8");
    EXPECT_ERROR_NAMES(rng::primitive_desc(rng::desc(rng_alg::philox4x32_10,
                               memory::desc())),
            "empty");
}

// A value cast from an integer that names no enumerator is refused at
// creation, where every kernel would otherwise read it its own way.
TEST(RngErrors, EnumsOutsideTheirRangeAreRefused) {
    const auto bit = make_desc(rng_alg::philox4x32_10, {256}, dt::bit);
    EXPECT_ERROR_NAMES(rng::primitive_desc(bit,
                               bernoulli_attr(0.25, static_cast<bernoulli_method>(7), 1)),
            "bernoulli method value 7 is not a bernoulli_method");
    auto d = bit;
    d.alg = static_cast<rng_alg>(42);
    EXPECT_ERROR_NAMES(rng::primitive_desc(d, bernoulli_attr(0.5)),
            "algorithm value 42 is not a rng_alg");
    d = bit;
    d.scalars = static_cast<scalar_kind>(9);
    EXPECT_ERROR_NAMES(rng::primitive_desc(d, bernoulli_attr(0.5)),
            "scalar kind value 9");
}

TEST(RngErrors, ExecutionNamesTheBadArgument) {
    auto d = make_desc(rng_alg::philox4x32_10, {16}, dt::u32);
    d.with_offset = true;
    rng prim {rng::primitive_desc(d)};
    std::vector<uint32_t> buf(16, 0xdeadbeef);
    const memory dst(d.dst, buf.data());
    EXPECT_ERROR_NAMES(prim.execute(stream(1),
                               {{RNDNN_ARG_DST, dst},
                                       {RNDNN_ARG_SEED, memory::scalar(int64_t(1))},
                                       {RNDNN_ARG_OFFSET,
                                               memory::scalar(int64_t(-5))}}),
            "offset=-5");
    EXPECT_EQ(buf[0], 0xdeadbeef); // nothing written
    EXPECT_ERROR_NAMES(prim.execute(stream(1),
                               {{RNDNN_ARG_DST, dst},
                                       {RNDNN_ARG_OFFSET,
                                               memory::scalar(int64_t(0))}}),
            "seed argument is missing");
    EXPECT_ERROR_NAMES(prim.execute(stream(1),
                               {{RNDNN_ARG_DST, dst},
                                       {RNDNN_ARG_SEED, memory::scalar(int64_t(1))}}),
            "offset argument is missing");
    std::vector<uint32_t> small(8);
    EXPECT_ERROR_NAMES(
            prim.execute(stream(1),
                    {{RNDNN_ARG_DST,
                             memory(memory::desc({8}, dt::u32), small.data())},
                            {RNDNN_ARG_SEED, memory::scalar(int64_t(1))},
                            {RNDNN_ARG_OFFSET, memory::scalar(int64_t(0))}}),
            "u32:8 does not match the primitive's dst u32:16");
    EXPECT_ERROR_NAMES(stream(-1), "-1");
}

// --- the distributions' table ------------------------------------------------

// Each row's dst types are exactly those the RNG takes for it, its post-op
// is append_distribution's, and docs/api.md's table is the library's.
// post_ops keeps the doubles as given: append_distribution's values are
// append_uniform's, and equality tells 0.1 from f32(0.1).
TEST(Distributions, PostOpsKeepTheDoubles) {
    post_ops a, b, c;
    a.append_uniform(0.1, 0.3);
    b.append_distribution("uniform", {0.1, 0.3});
    c.append_uniform(0.1f, 0.3f);
    EXPECT_TRUE(a == b);
    EXPECT_FALSE(a == c);
    EXPECT_EQ(b.get(0).a, 0.1);
    EXPECT_EQ(b.get(0).b, 0.3);
    EXPECT_EQ(c.get(0).a, double(0.1f));
    post_ops n1, n2;
    n1.append_normal(0.1, 0.7);
    n2.append_normal(0.1, 0.7 + 0x1p-53);
    EXPECT_FALSE(n1 == n2);
    n2 = {};
    n2.append_distribution("normal", {0.1, 0.7});
    EXPECT_TRUE(n1 == n2);
}

TEST(Distributions, TableIsWhatTheRngDoes) {
    const data_type all[] = {data_type::f32, data_type::bf16, data_type::f16,
            data_type::s8, data_type::u8, data_type::s32, data_type::u32,
            data_type::s64, data_type::bit, data_type::f64};
    post_ops a, b;
    for (const distribution_info &d : distributions()) {
        SCOPED_TRACE(d.name);
        std::vector<double> values;
        std::vector<int64_t> integers;
        for (const auto &p : d.params)
            if (p.integer)
                integers.push_back(static_cast<int64_t>(p.default_value));
            else
                values.push_back(p.default_value);
        post_ops po;
        po.append_distribution(
                d.name, values, bernoulli_method::automatic, 1, integers);
        EXPECT_EQ(po.len(), std::string(d.name) == "bits" ? 0 : 1);
        primitive_attr attr;
        attr.set_post_ops(po);
        for (data_type t : all) {
            const bool listed = std::find(d.dst_types.begin(),
                                        d.dst_types.end(), t)
                    != d.dst_types.end();
            bool made = true;
            try {
                rng::primitive_desc(
                        rng::desc(rng_alg::philox4x32_10,
                                memory::desc({64}, t)),
                        attr);
            } catch (const error &) {
                made = false;
            }
            EXPECT_EQ(made, listed) << dt2str(t);
        }
        values.push_back(1.0);
        EXPECT_THROW(po.append_distribution(d.name, values,
                             bernoulli_method::automatic, 1, integers),
                error);
        values.pop_back();
        integers.push_back(1);
        EXPECT_THROW(po.append_distribution(d.name, values,
                             bernoulli_method::automatic, 1, integers),
                error);
    }
    // Integer parameters stay exact (no double between them and the
    // post-op).
    a.append_distribution("integers", {}, bernoulli_method::automatic, 1,
            {INT64_MIN, INT64_MAX});
    b.append_integers(INT64_MIN, INT64_MAX);
    EXPECT_TRUE(a == b);
    EXPECT_EQ(a.get(0).high, INT64_MAX);
    EXPECT_THROW(a.append_distribution("integers", {0.0, 2.0}), error);
    a = post_ops();
    b = post_ops();
    a.append_distribution("permutation", {}, bernoulli_method::automatic, 1,
            {INT64_MAX});
    b.append_permutation(INT64_MAX);
    EXPECT_TRUE(a == b);
    EXPECT_EQ(a.get(0).n, INT64_MAX);
    b = post_ops();
    b.append_permutation(INT64_MAX - 1);
    EXPECT_FALSE(a == b);
    a = post_ops();
    b = post_ops();
    a.append_distribution("normal", {1.0, 2.0});
    b.append_normal(1.f, 2.f);
    EXPECT_TRUE(a == b);
    a = post_ops();
    b = post_ops();
    a.append_distribution("bernoulli", {0.25}, bernoulli_method::bitsliced, 3);
    b.append_bernoulli(0.25, bernoulli_method::bitsliced, 3);
    EXPECT_TRUE(a == b);
    try {
        find_distribution("gaussian");
        ADD_FAILURE() << "no throw";
    } catch (const error &e) {
        EXPECT_NE(std::string(e.what()).find("'gaussian' (expected bits, "
                                             "bernoulli, uniform, normal, "
                                             "integers, exponential, gumbel, "
                                             "lognormal, permutation, "
                                             "truncated_normal, laplace or "
                                             "rayleigh)"),
                std::string::npos)
                << e.what();
    }

    // docs/api.md's rows, in the table's order.
    std::ifstream api(RNDNN_TEST_DATA_DIR "/../../docs/api.md");
    ASSERT_TRUE(api) << "docs/api.md";
    std::vector<std::string> rows;
    for (std::string line; std::getline(api, line);)
        if (line.rfind("| `", 0) == 0 && line.find(" | ") != std::string::npos)
            for (const distribution_info &d : distributions())
                if (line.rfind(std::string("| `") + d.name + "` |", 0) == 0)
                    rows.push_back(line);
    ASSERT_EQ(rows.size(), distributions().size());
    for (size_t i = 0; i < rows.size(); ++i) {
        const distribution_info &d = distributions()[i];
        std::string params;
        for (const auto &p : d.params) {
            std::ostringstream os;
            os << p.name << " = " << p.default_value;
            params += (params.empty() ? "" : ", ") + os.str();
        }
        std::string types;
        for (data_type t : d.dst_types)
            types += (types.empty() ? "" : ", ") + std::string(dt2str(t));
        const std::string want = std::string("| `") + d.name + "` | " + params
                + (params.empty() ? "" : " ") + "| " + types + " | " + d.words
                + " |";
        EXPECT_EQ(rows[i], want);
    }
}
