// Statistical properties with fixed seeds. Every bound is at least 6 sigma
// (or the chi-square equivalent), so a correct generator fails one check
// falsely less than once in 10^8 runs; the seeds are fixed, so a run is
// repeatable.
#include <algorithm>
#include <cmath>

#include <gtest/gtest.h>

#include "rng/distributions.hpp"
#include "tests/test_utils.hpp"

using namespace rndnn;
using namespace rndnn::test;

namespace {

constexpr double z_bound = 6.0;
constexpr dim_t n = 1 << 21;

template <typename T>
std::vector<T> sample(rng_alg alg, const post_ops &po, data_type t,
        int64_t seed) {
    primitive_attr attr;
    attr.set_post_ops(po);
    std::vector<T> out((memory::desc({n}, t).get_size() + sizeof(T) - 1)
            / sizeof(T));
    generate(rng::desc(alg, memory::desc({n}, t)), attr, out.data(),
            {seed, 12345, 0, 2});
    return out;
}

// Chi-square upper bound for k degrees of freedom at z sigma
// (Wilson-Hilferty).
double chi2_upper(double k, double z) {
    const double h = 2.0 / (9.0 * k);
    return k * std::pow(1 - h + z * std::sqrt(h), 3);
}

} // namespace

TEST(Stats, BernoulliRate) {
    const struct {
        double p;
        bernoulli_method m;
        int b;
    } cases[] = {{0.5, bernoulli_method::threshold32, 1},
            {0.1, bernoulli_method::threshold32, 1},
            {0.999, bernoulli_method::threshold32, 1},
            {0.001, bernoulli_method::threshold32, 1},
            {0.5, bernoulli_method::bitsliced, 1},
            {0.1, bernoulli_method::bitsliced, 8},
            {0.9, bernoulli_method::bitsliced, 16},
            {0.1, bernoulli_method::bytewise, 1},
            {0.999, bernoulli_method::bytewise, 1}};
    for (rng_alg alg : rng_algs()) {
        for (const auto &c : cases) {
            if (alg == rng_alg::mcg31m1 && c.m == bernoulli_method::bitsliced)
                continue;
            if ((alg == rng_alg::mcg31m1 || alg == rng_alg::mt19937)
                    && c.m == bernoulli_method::bytewise)
                continue;
            post_ops po;
            po.append_bernoulli(c.p, c.m, c.b);
            const auto mask = sample<uint8_t>(alg, po, dt::bit, 2024);
            double ones = 0;
            for (uint8_t byte : mask)
                ones += __builtin_popcount(byte);
            // bitsliced draws p rounded to a multiple of 2^-b.
            const double p = c.m == bernoulli_method::bitsliced
                    ? std::nearbyint(std::ldexp(c.p, c.b)) / std::ldexp(1.0, c.b)
                    : c.p;
            const double sd = std::sqrt(n * p * (1 - p));
            EXPECT_LE(std::fabs(ones - n * p), z_bound * sd)
                    << alg2str(alg) << " p=" << c.p << " b=" << c.b;
        }
    }
}

TEST(Stats, UniformRangeAndMoments) {
    const float a = -3.f, b = 5.f;
    post_ops po;
    po.append_uniform(a, b);
    for (rng_alg alg : rng_algs()) {
        const auto v = sample<float>(alg, po, dt::f32, 99);
        double sum = 0, sq = 0;
        for (float x : v) {
            ASSERT_GE(x, a);
            ASSERT_LT(x, b);
            sum += x;
        }
        const double mean = sum / n;
        for (float x : v)
            sq += (x - mean) * (x - mean);
        const double w = b - a, var = sq / n;
        EXPECT_NEAR(mean, (a + b) / 2, z_bound * w / std::sqrt(12.0 * n))
                << alg2str(alg);
        // Var of the sample variance: (mu4 - sigma^4) / n.
        EXPECT_NEAR(var, w * w / 12,
                z_bound * w * w * std::sqrt((1 / 80.0 - 1 / 144.0) / n))
                << alg2str(alg);
        // Both ends are reached: P(no value within 1e-5 * w) = e^-21.
        EXPECT_LT(*std::min_element(v.begin(), v.end()), a + 1e-5 * w);
        EXPECT_GT(*std::max_element(v.begin(), v.end()), b - 1e-5 * w);
    }
}

TEST(Stats, NormalMomentsAndTails) {
    post_ops po;
    po.append_normal(2.f, 3.f);
    for (rng_alg alg : rng_algs()) {
        const auto v = sample<float>(alg, po, dt::f32, 7);
        double sum = 0, sq = 0, beyond3 = 0;
        for (float x : v)
            sum += x;
        const double mean = sum / n;
        for (float x : v) {
            sq += (x - mean) * (x - mean);
            if (std::fabs(x - 2.0) > 9.0) ++beyond3;
            ASSERT_LE(std::fabs(x - 2.0), 3 * 5.8); // 24-bit u1 bound
        }
        const double var = sq / n;
        EXPECT_NEAR(mean, 2.0, z_bound * 3 / std::sqrt(double(n)))
                << alg2str(alg);
        EXPECT_NEAR(var, 9.0, z_bound * 9 * std::sqrt(2.0 / n)) << alg2str(alg);
        const double p3 = 0.0026997960632601866; // P(|z| > 3)
        EXPECT_NEAR(beyond3, n * p3, z_bound * std::sqrt(n * p3 * (1 - p3)))
                << alg2str(alg);
    }
}

namespace {

// Mean and variance within z_bound standard errors: the sample mean's
// sd / sqrt(n), the sample variance's sqrt((mu4 - sd^4) / n) from the
// distribution's kurtosis (mu4 / sd^4).
template <typename T>
void expect_moments(const std::vector<T> &v, double mean, double var,
        double kurtosis, const std::string &what) {
    double sum = 0, sq = 0;
    for (T x : v)
        sum += x;
    const double m = sum / n;
    for (T x : v)
        sq += (x - m) * (x - m);
    EXPECT_NEAR(m, mean, z_bound * std::sqrt(var / n)) << what;
    EXPECT_NEAR(sq / n, var, z_bound * var * std::sqrt((kurtosis - 1) / n))
            << what;
}

} // namespace

TEST(Stats, ExponentialGumbelLognormalMoments) {
    const double pi = 3.14159265358979323846, euler = 0.57721566490153286;
    for (rng_alg alg : rng_algs()) {
        post_ops ex, gu, ln;
        ex.append_exponential(2.5f); // kurtosis 9
        gu.append_gumbel(-1.f, 3.f); // 5.4
        ln.append_lognormal(0.25f, 0.5f);
        const auto e = sample<float>(alg, ex, dt::f32, 11);
        for (float x : e)
            ASSERT_GE(x, 0.f);
        expect_moments(e, 2.5, 6.25, 9, std::string(alg2str(alg)) + " exponential");
        expect_moments(sample<float>(alg, gu, dt::f32, 12), -1 + 3 * euler,
                pi * pi / 6 * 9, 5.4, std::string(alg2str(alg)) + " gumbel");
        const double s2 = 0.25, w = std::exp(s2);
        expect_moments(sample<float>(alg, ln, dt::f32, 13),
                std::exp(0.25 + s2 / 2), (w - 1) * std::exp(0.5 + s2),
                w * w * w * w + 2 * w * w * w + 3 * w * w - 3,
                std::string(alg2str(alg)) + " lognormal");
    }
}

// Laplace(loc, scale): mean loc, variance 2 scale^2, kurtosis 6, and as
// many values below loc as above (a binomial count), in f32 and f64.
TEST(Stats, LaplaceMoments) {
    for (rng_alg alg : rng_algs()) {
        post_ops lp;
        lp.append_laplace(-1.5f, 2.f);
        const std::string what = std::string(alg2str(alg)) + " laplace";
        const auto v = sample<float>(alg, lp, dt::f32, 14);
        const auto v64 = sample<double>(alg, lp, dt::f64, 15);
        expect_moments(v, -1.5, 8, 6, what);
        expect_moments(v64, -1.5, 8, 6, what + " f64");
        const auto below = std::count_if(
                v.begin(), v.end(), [](float x) { return x < -1.5f; });
        EXPECT_NEAR(static_cast<double>(below), n / 2.0,
                z_bound * std::sqrt(n / 4.0))
                << what;
    }
}

// Rayleigh(scale): mean scale sqrt(pi / 2), variance (4 - pi) / 2 scale^2,
// kurtosis 3.245, values in [0, sqrt(2 * 16.64) scale] (f64: sqrt(2 *
// 36.74) scale), in f32 and f64.
TEST(Stats, RayleighMoments) {
    const double pi = 3.14159265358979323846, s = 2.5;
    for (rng_alg alg : rng_algs()) {
        post_ops ry;
        ry.append_rayleigh(s);
        const std::string what = std::string(alg2str(alg)) + " rayleigh";
        const auto v = sample<float>(alg, ry, dt::f32, 16);
        const auto v64 = sample<double>(alg, ry, dt::f64, 17);
        for (float x : v) {
            ASSERT_GE(x, 0.f);
            ASSERT_LE(x, impl::rayleigh_value(0, 8, 2.5f));
        }
        for (double x : v64) {
            ASSERT_GE(x, 0.0);
            ASSERT_LE(x, impl::rayleigh_value_f64(0, s));
        }
        expect_moments(v, s * std::sqrt(pi / 2), (4 - pi) / 2 * s * s, 3.245,
                what);
        expect_moments(v64, s * std::sqrt(pi / 2), (4 - pi) / 2 * s * s,
                3.245, what + " f64");
    }
}

TEST(Stats, TruncatedNormalMoments) {
    // mean + sd (phi(alpha) - phi(beta)) / Z, sd^2 (1 + (alpha phi(alpha) -
    // beta phi(beta)) / Z - ((phi(alpha) - phi(beta)) / Z)^2).
    const double mean = 0.5, sd = 2, alpha = -0.75, beta = 3.25;
    const auto phi = [](double z) {
        return std::exp(-z * z / 2) / std::sqrt(2 * 3.14159265358979323846);
    };
    const double big_z = 0.5 * (std::erfc(-beta / std::sqrt(2.0))
                                 - std::erfc(-alpha / std::sqrt(2.0)));
    const double d = (phi(alpha) - phi(beta)) / big_z;
    const double var = sd * sd
            * (1 + (alpha * phi(alpha) - beta * phi(beta)) / big_z - d * d);
    for (rng_alg alg : rng_algs()) {
        post_ops tn;
        tn.append_truncated_normal(0.5f, 2.f, -1.f, 7.f);
        const auto v = sample<float>(alg, tn, dt::f32, 14);
        for (float x : v) {
            ASSERT_GE(x, -1.f);
            ASSERT_LE(x, 7.f);
        }
        // Kurtosis at most 4 (a half-normal's is 3.87).
        expect_moments(v, mean + sd * d, var, 4,
                std::string(alg2str(alg)) + " truncated_normal");
    }
}

TEST(Stats, RawWordBytesChiSquare) {
    for (rng_alg alg : rng_algs()) {
        const auto w = sample<uint32_t>(alg, post_ops(), dt::u32, 31337);
        // mcg31m1 words have 31 bits: its top byte is checked on 7 bits.
        for (int byte = 0; byte < 4; ++byte) {
            const int bins = (alg == rng_alg::mcg31m1 && byte == 3) ? 128 : 256;
            std::vector<double> count(bins, 0);
            for (uint32_t x : w)
                count[(x >> (8 * byte)) & (bins - 1)] += 1;
            const double e = double(n) / bins;
            double chi2 = 0;
            for (double c : count)
                chi2 += (c - e) * (c - e) / e;
            EXPECT_LT(chi2, chi2_upper(bins - 1, z_bound))
                    << alg2str(alg) << " byte " << byte;
        }
    }
}
