// Distribution post-ops: the one definition of how words become values.
// Reference and JIT kernels compute exactly these operations, in this
// order, in f32 (f64 for an f64 dst) without contraction, so every ISA
// gives the same bits (docs/semantics.md states the formulas).
#ifndef RNDNN_RNG_DISTRIBUTIONS_HPP
#define RNDNN_RNG_DISTRIBUTIONS_HPP

#include <cmath>
#include <cstdint>
#include <vector>

#include "rndnn/enums.hpp"
#include "rng/engines/philox.hpp"
#include "src/utils.hpp"

namespace rndnn {
namespace impl {

// --- Bernoulli ------------------------------------------------------------

// threshold32: 1 iff W < t, t = ceil(p * 2^32) in [0, 2^32] (p * 2^32 is
// exact in double).
inline uint64_t bernoulli_threshold32(double p) {
    return static_cast<uint64_t>(std::ceil(std::ldexp(p, 32)));
}

// threshold32 with a per-element p (a p tensor): 1 iff W < p * 2^32 as
// exact reals, that is W < ceil(p * 2^32) = bernoulli_threshold32(p) (W
// and p * 2^32, p an f32 or bf16 value, are exact in double). The JIT
// tiers' vector compare is rng/jit/jit_rng.cpp's jit_p_decide_t.
inline bool bernoulli_tensor_decide(uint32_t w, float p) {
    return static_cast<double>(w) < static_cast<double>(p) * 0x1p32;
}

// oneDNN's dropout keeps an element iff W > (2^32 - 1) * rate, in double.
// With k = floor((2^32 - 1) * rate), W > k iff ~W < t = 2^32 - 1 - k, so
// the rule is threshold32 on complemented words (bernoulli_method::onednn) with
// the probability of a 1 p = t / 2^32, which this returns, exactly (t is
// in [0, 2^32 - 1]; bernoulli_threshold32(p) gives t back).
inline double onednn_keep_probability(double rate) {
    constexpr double max32 = 4294967295.0;
    return std::ldexp(max32 - std::floor(max32 * rate), -32);
}

// bitsliced(b): p rounded to the nearest multiple of 2^-b, ties to even;
// returns that multiple times 2^b, in [0, 2^b].
inline uint64_t bitsliced_level(double p, int b) {
    const double x = std::ldexp(p, b); // exact
    double r = std::floor(x);
    const double frac = x - r;
    if (frac > 0.5 || (frac == 0.5 && std::fmod(r, 2.0) != 0.0)) r += 1.0;
    return static_cast<uint64_t>(r);
}

// How dropout with drop rate r in [0, 1] keeps: p, the probability of a
// keep (a 1 of the mask's Bernoulli), the probability the method draws
// (drawn), and the scale of kept elements, the inverse of drawn so that E[y] = x. oneDNN's
// rule (onednn, dropout's onednn_compat) takes r as f32, as oneDNN does:
// p = onednn_keep_probability(r), scale = 1.f / (1.f - r) in f32.
// bitsliced(b) with b < 32 draws p rounded to a multiple of 2^-b
// (bitsliced_level): scale = 1 / drawn in double, rounded to f32 (0 where
// drawn is 0: nothing is kept). The other methods draw p exact to 2^-32:
// scale = 1 / (1 - r) in double, rounded to f32. r = 1 scales by 0. The
// one place where a rate becomes a problem: dropout calls it once at
// creation, or once an execution for a runtime rate.
struct dropout_keep_t {
    double p;
    float scale;
    double drawn;
};
// @p method is resolved (never automatic); @p bits is bitsliced's b.
inline dropout_keep_t dropout_keep(
        double rate, bernoulli_method method, int bits) {
    if (method == bernoulli_method::onednn) {
        const auto r = static_cast<float>(rate);
        const double p = onednn_keep_probability(r);
        return {p, r == 1.f ? 0.f : 1.f / (1.f - r), p};
    }
    const double p = 1.0 - rate;
    if (method == bernoulli_method::bitsliced && bits < 32) {
        const double drawn = std::ldexp(
                static_cast<double>(bitsliced_level(p, bits)), -bits);
        return {p, drawn == 0.0 ? 0.f : static_cast<float>(1.0 / drawn),
                drawn};
    }
    return {p, rate == 1.0 ? 0.f : static_cast<float>(1.0 / (1.0 - rate)), p};
}

// mcg31m1 words are in [1, m - 1]: 1 iff W < p * m, decided exactly as
// W < ceil(p * m), with p * m formed in 128-bit integers.
inline uint64_t bernoulli_threshold_mcg31(double p) {
    constexpr uint64_t m = (1ull << 31) - 1;
    if (p <= 0.0) return 0;
    int e;
    const double f = std::frexp(p, &e); // p = f * 2^e, f in [0.5, 1)
    const auto mant = static_cast<uint64_t>(std::ldexp(f, 53)); // exact
    const int shift = 53 - e; // p * m = mant * m / 2^shift, shift >= 52
    const uint128_t num = static_cast<uint128_t>(mant) * m;
    if (shift >= 128) return 1; // 0 < p * m < 1
    const uint128_t q = num >> shift;
    const bool exact = (q << shift) == num;
    return static_cast<uint64_t>(q) + (exact ? 0 : 1);
}


// 32 bitsliced decisions. Lane l's b-bit uniform U has bit j (j = 0 most
// significant) equal to bit l of w[j]; bit l of the result is U < level.
inline uint32_t bitsliced_decide(const uint32_t *w, int b, uint64_t level) {
    if (level >> b) return ~0u; // level == 2^b: always
    uint32_t lt = 0, eq = ~0u;
    for (int j = 0; j < b; ++j) {
        if ((level >> (b - 1 - j)) & 1u) {
            lt |= eq & ~w[j];
            eq &= w[j];
        } else {
            eq &= ~w[j];
        }
    }
    return lt;
}

// bytewise: threshold32's t = ceil(p * 2^32) from a byte an element. The
// elements come in units of 2048 (unit u = g / 2048); element g takes the
// byte V = byte g % 4 (bits 8 (g % 4) to 8 (g % 4) + 7) of W(g / 4), so a
// unit's bytes are its 512 words W(512 u) to W(512 u + 511). With
// t = t_hi 2^24 + t_lo (t_hi <= 256, t_lo < 2^24): 1 iff V < t_hi, 0 iff
// V > t_hi, and where V == t_hi (a tie, 1 in 256), 1 iff R < t_lo for the
// unit's k-th tie (k counted from 0 in index order within the unit), R =
// W(bytewise_tie_word(u, k)) >> 8. So P(1) = t_hi / 256 + t_lo / 2^32 =
// t / 2^32, and every decision uses bits of its own.
constexpr uint64_t bytewise_unit_elems = 2048;
constexpr uint64_t bytewise_unit_words = bytewise_unit_elems / 4;
// The word of unit u's k-th tie: 2^62 + 2048 u + k, past every unit's
// words (below 2^61) and below 2^64 for every unit (u < 2^52).
inline uint64_t bytewise_tie_word(uint64_t u, uint64_t k) {
    return (uint64_t(1) << 62) + u * bytewise_unit_elems + k;
}

// The unit's 2048 decisions (0/1) into flags, from its 512 words and
// tie_words(n, out), which writes the words of its first n ties.
template <typename tie_words_t>
void bytewise_decide(const uint32_t *words, uint64_t t,
        const tie_words_t &tie_words, uint8_t *flags) {
    const uint64_t n = bytewise_unit_elems;
    if (t >> 32) { // p = 1: t_hi = 256, above every byte
        for (uint64_t e = 0; e < n; ++e)
            flags[e] = 1;
        return;
    }
    const auto hi = static_cast<uint32_t>(t >> 24);
    const auto lo = static_cast<uint32_t>(t & 0xffffffu);
    uint64_t ties = 0;
    for (uint64_t e = 0; e < n; ++e) {
        const uint32_t v = (words[e / 4] >> (8 * (e % 4))) & 0xffu;
        flags[e] = v < hi;
        ties += v == hi;
    }
    if (ties == 0) return;
    std::vector<uint32_t> r(ties);
    tie_words(ties, r.data());
    uint64_t k = 0;
    for (uint64_t e = 0; e < n; ++e)
        if (((words[e / 4] >> (8 * (e % 4))) & 0xffu) == hi)
            flags[e] = (r[k++] >> 8) < lo;
}

// --- Uniform --------------------------------------------------------------

// Words carry 32 random bits (31 for mcg31m1): drop the low ones to keep 24.
inline int u24_shift(bool mcg31) { return mcg31 ? 7 : 8; }

// u = (W >> shift) * 2^-24 in [0, 1); dst = fma(u, b - a, a) rounded once.
inline float uniform_value(uint32_t w, int shift, float a, float b_minus_a) {
    const float u = static_cast<float>(w >> shift) * 0x1p-24f;
    return std::fma(u, b_minus_a, a);
}

// --- Normal ---------------------------------------------------------------
// Box-Muller on the word pair (W(g & ~1), W(g | 1)) with shared f32
// approximations of ln, sin and cos built from +, -, *, / and sqrt only
// (every one correctly rounded on every ISA).

// Named constants of the approximations.
constexpr float ln2_hi = 0.693359375f; // 355/512: e * ln2_hi is exact
constexpr float ln2_lo = -2.12194440e-4f; // ln 2 - ln2_hi
constexpr uint32_t sqrt_half_bits = 0x3f3504f3u; // sqrt(0.5)
// ln m = 2 atanh(s), s = (m - 1) / (m + 1): 2 * (s + s^3/3 + ... + s^11/11).
constexpr float atanh_c3 = 1.f / 3, atanh_c5 = 1.f / 5, atanh_c7 = 1.f / 7,
                atanh_c9 = 1.f / 9, atanh_c11 = 1.f / 11;
// sin(pi/2 t) = t * (s1 + t^2 (s3 + ...)), cos(pi/2 t) = c0 + t^2 (c2 + ...)
// for |t| <= 1/2: the Taylor coefficients of (pi/2)^k / k!, rounded to f32.
constexpr float sin_c1 = 1.57079632679f, sin_c3 = -0.645964097506f,
                sin_c5 = 0.0796926262462f, sin_c7 = -0.00468175413532f,
                sin_c9 = 0.000160441184758f, sin_c11 = -3.59884323521e-6f;
constexpr float cos_c0 = 1.f, cos_c2 = -1.23370055014f,
                cos_c4 = 0.253669507901f, cos_c6 = -0.0208634807634f,
                cos_c8 = 0.000919260274839f, cos_c10 = -2.52020423731e-5f;
// The polynomials' coefficients, highest power first, as horner() and the
// JIT kernels' constants take them.
constexpr float atanh_coefs[5]
        = {atanh_c11, atanh_c9, atanh_c7, atanh_c5, atanh_c3};
constexpr float sin_coefs[6]
        = {sin_c11, sin_c9, sin_c7, sin_c5, sin_c3, sin_c1};
constexpr float cos_coefs[6]
        = {cos_c10, cos_c8, cos_c6, cos_c4, cos_c2, cos_c0};

// max and min as x86's maxps and minps take them: x if x > y (x < y),
// else y, so y for a NaN x and for equal zeros. Written out rather than
// std::fmax and std::fmin, which C leaves free to return either of two
// equal zeros: the reference then matches the JIT kernels' vmaxps and
// vminps (operands in this order) on any libm.
inline float max_ps(float x, float y) { return x > y ? x : y; }
inline float min_ps(float x, float y) { return x < y ? x : y; }
// The same for f64 (maxpd, minpd).
inline double max_pd(double x, double y) { return x > y ? x : y; }
inline double min_pd(double x, double y) { return x < y ? x : y; }

// c[0] x^(N-1) + c[1] x^(N-2) + ... + c[N-1] by Horner's rule: a multiply
// and an add a coefficient, each rounded, in the JIT kernels' order.
template <typename T, int N>
inline T horner(T x, const T (&c)[N]) {
    T r = c[0];
    for (int k = 1; k < N; ++k)
        r = r * x + c[k];
    return r;
}

// ln x for x = k * 2^-24, k in [1, 2^24] (x in (0, 1]). x = m * 2^e with m
// in [sqrt(0.5), sqrt(2)); error under 2 ulp over that domain.
inline float ln_approx(float x) {
    const uint32_t bits = float_bits(x);
    // Exponent relative to [sqrt(0.5), sqrt(2)): bring m to [0.5, 1) first,
    // then double it if it is below sqrt(0.5).
    int32_t e = static_cast<int32_t>(bits >> 23) - 126;
    uint32_t mbits = (bits & 0x007fffffu) | 0x3f000000u; // in [0.5, 1)
    if (mbits < sqrt_half_bits) {
        mbits += 0x00800000u; // m * 2
        e -= 1;
    }
    const float m = bits_float(mbits);
    const float s = (m - 1.f) / (m + 1.f);
    const float s2 = s * s;
    const float q = horner(s2, atanh_coefs) * s2;
    const float ln_m = (s + s * q) * 2.f;
    const float fe = static_cast<float>(e);
    return (fe * ln2_lo + ln_m) + fe * ln2_hi;
}

// sin and cos of 2 pi u for u = k * 2^-24, k in [0, 2^24): the quadrant
// and the remainder t in [-1/2, 1/2) come from k's bits exactly.
inline void sincos_2pi(uint32_t k, float *sin_out, float *cos_out) {
    const uint32_t j = k + (1u << 21); // round to the nearest quarter turn
    const uint32_t quadrant = (j >> 22) & 3u;
    const int32_t rem = static_cast<int32_t>(j & ((1u << 22) - 1)) - (1 << 21);
    const float t = static_cast<float>(rem) * 0x1p-22f;
    const float t2 = t * t;
    const float s = horner(t2, sin_coefs) * t;
    const float c = horner(t2, cos_coefs);
    // Rotate by the quadrant: swap for odd quadrants, negate as needed.
    const bool odd = quadrant & 1u;
    const float sn = odd ? c : s, cs = odd ? s : c;
    *sin_out = (quadrant == 2 || quadrant == 3) ? -sn : sn;
    *cos_out = (quadrant == 1 || quadrant == 2) ? -cs : cs;
}

// The two normal values of a word pair: z0 for the even element, z1 for
// the odd one, then scaled: value = mean + stddev * z (two roundings).
inline void normal_pair(uint32_t w0, uint32_t w1, int shift, float mean,
        float stddev, float *v0, float *v1) {
    const float u1 = static_cast<float>((w0 >> shift) + 1u) * 0x1p-24f;
    const float r = std::sqrt(ln_approx(u1) * -2.f);
    float sn, cs;
    sincos_2pi(w1 >> shift, &sn, &cs);
    *v0 = mean + stddev * (r * cs);
    *v1 = mean + stddev * (r * sn);
}

// --- Integers -------------------------------------------------------------
// low + floor(X * r / 2^m), r = high - low in [1, 2^64), from m = 64 random
// bits (2 words, r <= 2^32) or m = 128 (4 words, r > 2^32): element g takes
// the words W(k g) to W(k g + k - 1), k = m / 32, the first the most
// significant of X. Every value has probability floor(2^m / r) / 2^m or
// ceil(2^m / r) / 2^m: its relative bias is below r / 2^m <= 2^-32.

// The words an element (k) for the range r.
inline int integers_words(uint64_t r) { return r <= (uint64_t(1) << 32) ? 2 : 4; }

// floor(X * r / 2^64), X = w0 2^32 + w1 (r <= 2^32).
inline uint64_t integers_offset2(uint32_t w0, uint32_t w1, uint64_t r) {
    const uint64_t x = (uint64_t(w0) << 32) | w1;
    return static_cast<uint64_t>((static_cast<uint128_t>(x) * r) >> 64);
}

// floor(X * r / 2^128), X = w[0] 2^96 + w[1] 2^64 + w[2] 2^32 + w[3]: with
// X = xh 2^64 + xl, it is floor((xh r + floor(xl r / 2^64)) / 2^64), whose
// sum is below 2^128.
inline uint64_t integers_offset4(const uint32_t *w, uint64_t r) {
    const uint64_t xh = (uint64_t(w[0]) << 32) | w[1];
    const uint64_t xl = (uint64_t(w[2]) << 32) | w[3];
    const uint128_t t = static_cast<uint128_t>(xh) * r
            + ((static_cast<uint128_t>(xl) * r) >> 64);
    return static_cast<uint64_t>(t >> 64);
}

// The value: low + v, v in [0, r), computed mod 2^64 (it lies in [low,
// high), so it is exact as an s64).
inline int64_t integers_value(int64_t low, uint64_t v) {
    return static_cast<int64_t>(static_cast<uint64_t>(low) + v);
}

// --- Exponential, Gumbel, Laplace, Rayleigh, log-normal ---------------------
// One word an element for exponential, Gumbel, Laplace and Rayleigh;
// log-normal takes normal's pairs. ln is ln_approx (for Gumbel also on
// values above 1: docs/semantics.md gives its error there), exp is
// exp_approx below.

// exponential(scale): u = ((W >> shift) + 1) * 2^-24 in (0, 1], ln_approx's
// domain; x = (0 - ln u) * scale (0 - ln, not -ln: u = 1 gives +0).
inline float exponential_value(uint32_t w, int shift, float scale) {
    const float u = static_cast<float>((w >> shift) + 1u) * 0x1p-24f;
    return (0.f - ln_approx(u)) * scale;
}

// gumbel(loc, scale): u as exponential's, v = max(0 - ln u, 2^-25) in
// [2^-25, 16.64]: u = 1 alone, where ln u = 0, takes 2^-25, what -ln u is
// at the middle of its cell [1 - 2^-24, 1) (an open u as (k + 0.5) 2^-24
// would need 25 bits above 0.5); x = loc - scale * ln v, a multiply then
// a subtraction.
constexpr float gumbel_v_min = 0x1p-25f;
inline float gumbel_value(uint32_t w, int shift, float loc, float scale) {
    const float u = static_cast<float>((w >> shift) + 1u) * 0x1p-24f;
    const float v = max_ps(0.f - ln_approx(u), gumbel_v_min);
    return loc - scale * ln_approx(v);
}

// laplace(loc, scale): a random sign times exponential(scale): t = the
// exponential value of the word (u never reads W's bit 0: shift >= 7), x =
// loc + (bit 0 ? -t : t), a multiply then an add; |x - loc| is exactly
// exponential's value, and the values are symmetric about loc.
inline float laplace_value(uint32_t w, int shift, float loc, float scale) {
    const float t = exponential_value(w, shift, scale);
    return loc + ((w & 1u) ? -t : t);
}

// rayleigh(scale): scale * sqrt(2 E), E = exponential(1): e = the word's
// exponential value at scale 1, x = sqrt(e * 2) * scale (the * 2 is exact;
// one sqrt, one multiply); values in [0, sqrt(2 * 16.64) scale].
inline float rayleigh_value(uint32_t w, int shift, float scale) {
    return std::sqrt(exponential_value(w, shift, 1.f) * 2.f) * scale;
}

// exp t for any finite f32 t, from +, -, * and exponent bits: t clamped
// to [exp_t_min, exp_t_max] (beyond them the value is 0 or +inf: exp(-104)
// rounds to 0, exp(89) overflows); n = round(t / ln 2) by adding and
// subtracting 1.5 * 2^23 (n also lies in that sum's low bits); r = t - n
// ln 2 in ln2_hi and ln2_lo (n * ln2_hi is exact); exp r by its Taylor
// polynomial of degree 8 (|r| <= 0.35); times 2^n as 2^(n >> 1) *
// 2^(n - (n >> 1)), each factor a normal f32, so that only the second
// multiply rounds, and only for subnormal or infinite results.
constexpr float exp_t_min = -104.f, exp_t_max = 89.f;
constexpr float log2e = 1.44269504089f;
constexpr float round_magic = 0x1.8p23f; // 1.5 * 2^23
constexpr float exp_coefs[9] = {1.f / 40320, 1.f / 5040, 1.f / 720,
        1.f / 120, 1.f / 24, 1.f / 6, 0.5f, 1.f, 1.f};
inline float exp_approx(float t) {
    t = min_ps(max_ps(t, exp_t_min), exp_t_max);
    const float y = t * log2e + round_magic;
    const float n_f = y - round_magic;
    const auto n = static_cast<int32_t>(
            float_bits(y) - float_bits(round_magic)); // n_f as an integer
    const float r = (t - n_f * ln2_hi) - n_f * ln2_lo;
    const float p = horner(r, exp_coefs);
    const int32_t n1 = n >> 1, n2 = n - n1; // floor(n / 2): n1, n2 >= -75
    return (p * bits_float(static_cast<uint32_t>(n1 + 127) << 23))
            * bits_float(static_cast<uint32_t>(n2 + 127) << 23);
}

// lognormal(mean, sigma) on normal's word pair: exp_approx of the normal
// values normal_pair(mean, sigma) gives, so log-normal's exponent is
// exactly normal's value.
inline void lognormal_pair(uint32_t w0, uint32_t w1, int shift, float mean,
        float sigma, float *v0, float *v1) {
    normal_pair(w0, w1, shift, mean, sigma, v0, v1);
    *v0 = exp_approx(*v0);
    *v1 = exp_approx(*v1);
}

// --- f64 values -------------------------------------------------------------
// An f64 dst takes two words an element, 53 random bits, as NumPy's
// Generator.random(): element g's X = W(2g) + W(2g + 1) 2^wb (the low word
// first; wb = 32, or 31 for mcg31m1) and u53 = X >> (2 wb - 53). The
// continuous distributions then compute in f64, from the parameters as
// given (doubles, not rounded to f32), with f64 forms of the f32
// approximations above: +, -, *, /, sqrt and fma only, each correctly
// rounded, so no libm enters (docs/semantics.md, their measured errors).

// The engine words an element of uniform, normal, exponential, gumbel,
// lognormal, laplace or rayleigh takes for dst type t: one (24 random
// bits), or two for f64.
constexpr int value_words(data_type t) { return t == data_type::f64 ? 2 : 1; }

// u53 in [0, 2^53) from element g's words w0 = W(2g), w1 = W(2g + 1).
inline uint64_t u53_of(uint32_t w0, uint32_t w1, int word_bits) {
    const uint64_t x = static_cast<uint64_t>(w1) << word_bits | w0;
    return x >> (2 * word_bits - 53);
}

// uniform: u = u53 2^-53 in [0, 1) (NumPy's random()); dst = fma(u, b - a,
// a), b - a in f64 (a and b the f64 parameters; make_rng_conf checks the
// width finite).
inline double uniform_value_f64(uint64_t u53, double a, double b_minus_a) {
    return std::fma(static_cast<double>(u53) * 0x1p-53, b_minus_a, a);
}

// u in (0, 1]: (u53 + 1) 2^-53, exact.
inline double open0_u53(uint64_t u53) {
    return static_cast<double>(u53 + 1) * 0x1p-53;
}

// ln2 split as fdlibm's: e * ln2_hi64 is exact for |e| < 2^21.
constexpr double ln2_hi64 = 0x1.62e42fee00000p-1;
constexpr double ln2_lo64 = 0x1.a39ef35793c76p-33;
constexpr uint64_t sqrt_half_bits64 = 0x3fe6a09e667f3bcdu; // sqrt(0.5)
// 2 atanh(s) to s^21/21 (|s| <= 0.1716: the next term is below 2^-60 of
// the sum), highest power first.
constexpr double atanh_coefs64[10] = {1.0 / 21, 1.0 / 19, 1.0 / 17,
        1.0 / 15, 1.0 / 13, 1.0 / 11, 1.0 / 9, 1.0 / 7, 1.0 / 5, 1.0 / 3};

// ln x for any positive normal f64 x, as ln_approx in f64: x = m 2^e, m
// in [sqrt(0.5), sqrt(2)).
inline double ln_approx_f64(double x) {
    const uint64_t bits = double_bits(x);
    int64_t e = static_cast<int64_t>(bits >> 52) - 1022;
    uint64_t mbits = (bits & 0x000fffffffffffffu) | 0x3fe0000000000000u;
    if (mbits < sqrt_half_bits64) {
        mbits += uint64_t(1) << 52; // m * 2
        e -= 1;
    }
    const double m = bits_double(mbits);
    const double s = (m - 1.0) / (m + 1.0);
    const double s2 = s * s;
    const double q = horner(s2, atanh_coefs64) * s2;
    const double ln_m = (s + s * q) * 2.0;
    const double fe = static_cast<double>(e);
    return (fe * ln2_lo64 + ln_m) + fe * ln2_hi64;
}

// sin(pi/2 t) and cos(pi/2 t) for |t| <= 1/2 by their Taylor polynomials
// to t^19 and t^18 ((pi/2)^k / k! rounded to f64), highest power first.
constexpr double sin_coefs64[10] = {-0x1.8a404211f9547p-45,
        0x1.aaec32af93359p-38, -0x1.6fadb9f155744p-31, 0x1.e8f434d018d63p-25,
        -0x1.e3074fde8871fp-19, 0x1.50783487ee782p-13, -0x1.32d2cce62bd86p-8,
        0x1.466bc6775aae2p-4, -0x1.4abbce625be53p-1, 0x1.921fb54442d18p+0};
constexpr double cos_coefs64[10] = {-0x1.2a0c591af8314p-41,
        0x1.20c62c2f2d7f5p-34, -0x1.b6e24f44b128fp-28, 0x1.f9d38a3763cc3p-22,
        -0x1.a6d1f2a204a8cp-16, 0x1.e1f506891babbp-11, -0x1.55d3c7e3cbffap-6,
        0x1.03c1f081b5ac4p-2, -0x1.3bd3cc9be45dep+0, 1.0};

// sin and cos of 2 pi k 2^-53, k in [0, 2^53), as sincos_2pi: the
// quadrant and t in [-1/2, 1/2) from k's bits, exactly.
inline void sincos_2pi_f64(uint64_t k, double *sin_out, double *cos_out) {
    const uint64_t j = k + (uint64_t(1) << 50);
    const uint64_t quadrant = (j >> 51) & 3u;
    const int64_t rem = static_cast<int64_t>(j & ((uint64_t(1) << 51) - 1))
            - (int64_t(1) << 50);
    const double t = static_cast<double>(rem) * 0x1p-51;
    const double t2 = t * t;
    const double s = horner(t2, sin_coefs64) * t;
    const double c = horner(t2, cos_coefs64);
    const bool odd = quadrant & 1u;
    const double sn = odd ? c : s, cs = odd ? s : c;
    *sin_out = (quadrant == 2 || quadrant == 3) ? -sn : sn;
    *cos_out = (quadrant == 1 || quadrant == 2) ? -cs : cs;
}

// normal: Box-Muller on the pair of elements 2k, 2k + 1 (words 4k to 4k +
// 3): u1 = open0_u53(the even element's u53), the angle 2 pi u53' 2^-53
// from the odd one's; r = sqrt(ln(u1) * -2) (at most 8.57); then mean +
// stddev * z, two roundings.
inline void normal_pair_f64(uint64_t u53_even, uint64_t u53_odd, double mean,
        double stddev, double *v0, double *v1) {
    const double r = std::sqrt(ln_approx_f64(open0_u53(u53_even)) * -2.0);
    double sn, cs;
    sincos_2pi_f64(u53_odd, &sn, &cs);
    *v0 = mean + stddev * (r * cs);
    *v1 = mean + stddev * (r * sn);
}

// exponential: (0 - ln u) * scale, u = open0_u53 (values up to 36.74
// scale).
inline double exponential_value_f64(uint64_t u53, double scale) {
    return (0.0 - ln_approx_f64(open0_u53(u53))) * scale;
}

// gumbel: v = max(0 - ln u, 2^-54) (u = 1 alone takes 2^-54, as gumbel's
// 2^-25), loc - scale * ln v.
constexpr double gumbel_v_min64 = 0x1p-54;
inline double gumbel_value_f64(uint64_t u53, double loc, double scale) {
    const double v = max_pd(
            0.0 - ln_approx_f64(open0_u53(u53)), gumbel_v_min64);
    return loc - scale * ln_approx_f64(v);
}

// laplace: t = exponential_value_f64(u53, scale), x = loc + (bit 0 ? -t :
// t), the sign from bit 0 of the element's X = W(2g) + W(2g + 1) 2^wb
// (bit 0 of W(2g)), a bit u53 never reads.
inline double laplace_value_f64(
        uint64_t u53, uint32_t w0, double loc, double scale) {
    const double t = exponential_value_f64(u53, scale);
    return loc + ((w0 & 1u) ? -t : t);
}

// rayleigh: sqrt(e * 2) * scale, e = exponential_value_f64(u53, 1) (values
// in [0, sqrt(2 * 36.74) scale]).
inline double rayleigh_value_f64(uint64_t u53, double scale) {
    return std::sqrt(exponential_value_f64(u53, 1.0) * 2.0) * scale;
}

// exp t for any finite f64 t, as exp_approx in f64: t clamped to [-746,
// 710] (exp(-746) rounds to 0, exp(710) overflows); n = round(t / ln 2)
// by 1.5 * 2^52; r = t - n ln 2 (|r| <= 0.347) in ln2_hi64 and ln2_lo64;
// the Taylor polynomial of degree 13; times 2^(n >> 1) 2^(n - (n >> 1)).
constexpr double exp_t_min64 = -746.0, exp_t_max64 = 710.0;
constexpr double log2e64 = 0x1.71547652b82fep+0;
constexpr double round_magic64 = 0x1.8p52;
constexpr double exp_coefs64[14] = {1.0 / 6227020800.0, 1.0 / 479001600.0,
        1.0 / 39916800.0, 1.0 / 3628800.0, 1.0 / 362880.0, 1.0 / 40320.0,
        1.0 / 5040.0, 1.0 / 720.0, 1.0 / 120.0, 1.0 / 24.0, 1.0 / 6.0, 0.5,
        1.0, 1.0};
inline double exp_approx_f64(double t) {
    t = min_pd(max_pd(t, exp_t_min64), exp_t_max64);
    const double y = t * log2e64 + round_magic64;
    const double n_f = y - round_magic64;
    const auto n = static_cast<int64_t>(
            double_bits(y) - double_bits(round_magic64));
    const double r = (t - n_f * ln2_hi64) - n_f * ln2_lo64;
    const double p = horner(r, exp_coefs64);
    const int64_t n1 = n >> 1, n2 = n - n1; // both in [-539, 513]
    return (p * bits_double(static_cast<uint64_t>(n1 + 1023) << 52))
            * bits_double(static_cast<uint64_t>(n2 + 1023) << 52);
}

// --- Permutation ----------------------------------------------------------
// pi, a keyed bijection of [0, n), n in [1, 2^63): element g < n is pi(g)
// (docs/semantics.md). A balanced Feistel network E on 2h bits, h =
// max(1, ceil(bits(n - 1) / 2)) (so 4^h < 4n, and h <= 32), of
// permutation_rounds rounds, each (L, R) -> (R, L ^ F_r(R)) with
// F_r(R) = word 0 of Philox4x32-10(key = {lo32(seed), hi32(seed)},
// counter = {R, permutation_tag | h << 8 | r, lo32(stream), hi32(stream)})
// masked to h bits; pi(g) = E^k(g) for the least k >= 1 with E^k(g) < n
// (cycle walking: E is a bijection of [0, 4^h), so g's cycle returns
// below n, in fewer than 4 applications on average). No engine words are
// drawn: the value depends on (seed, stream, n, g) only.
constexpr int permutation_rounds = 8;
// ASCII "ep" in the counter's word 1, above any word 1 (hi32 of a block
// index below 2^61) of philox4x32_10's own stream.
constexpr uint32_t permutation_tag = 0x70650000u;

// h: half the network's bit width.
inline int permutation_half_bits(uint64_t n) {
    int bits = 0;
    for (uint64_t v = n - 1; v != 0; v >>= 1)
        ++bits;
    return bits <= 2 ? 1 : (bits + 1) / 2; // ceil(bits / 2), at least 1
}

// Lanes of the network computed at once (philox4x32_lanes).
constexpr int permutation_lanes = 32;

// x[i] = E(x[i]) in every lane, x[i] < 4^h (h <= 32: the halves are
// 32-bit words).
inline void permutation_feistel(uint64_t (&x)[permutation_lanes], int h,
        const uint32_t key[2], uint64_t stream) {
    constexpr int n_lanes = permutation_lanes;
    const uint64_t mask = (uint64_t(1) << h) - 1;
    uint32_t l[n_lanes], r[n_lanes];
    for (int i = 0; i < n_lanes; ++i) {
        l[i] = static_cast<uint32_t>(x[i] >> h);
        r[i] = static_cast<uint32_t>(x[i] & mask);
    }
    for (int round = 0; round < permutation_rounds; ++round) {
        uint32_t ctr[4][n_lanes];
        for (int i = 0; i < n_lanes; ++i) {
            ctr[0][i] = r[i];
            ctr[1][i] = permutation_tag | static_cast<uint32_t>(h) << 8
                    | static_cast<uint32_t>(round);
            ctr[2][i] = static_cast<uint32_t>(stream);
            ctr[3][i] = static_cast<uint32_t>(stream >> 32);
        }
        philox4x32_lanes<10, n_lanes>(ctr, key);
        for (int i = 0; i < n_lanes; ++i) {
            const uint32_t t = l[i] ^ (ctr[0][i] & static_cast<uint32_t>(mask));
            l[i] = r[i];
            r[i] = t;
        }
    }
    for (int i = 0; i < n_lanes; ++i)
        x[i] = uint64_t(l[i]) << h | r[i];
}

// out[k] = pi(g0 + k) for k < count, g0 + count <= n: each lane applies E
// to its element until the value falls below n, then takes the next
// element, so the lanes stay busy whatever their elements' walks.
template <typename T>
inline void permutation_values(uint64_t g0, uint64_t count, uint64_t n,
        int h, const uint32_t key[2], uint64_t stream, T *out) {
    constexpr int n_lanes = permutation_lanes;
    uint64_t x[n_lanes] = {}, at[n_lanes] = {};
    bool busy[n_lanes] = {};
    uint64_t next = 0;
    int live = 0;
    const auto take = [&](int i) { // the next element, if any, to lane i
        busy[i] = next < count;
        if (!busy[i]) return;
        at[i] = next;
        x[i] = g0 + next++;
        ++live;
    };
    for (int i = 0; i < n_lanes; ++i)
        take(i);
    while (live > 0) {
        permutation_feistel(x, h, key, stream);
        for (int i = 0; i < n_lanes; ++i)
            if (busy[i] && x[i] < n) {
                out[at[i]] = static_cast<T>(x[i]);
                --live;
                take(i);
            }
    }
}

// --- Truncated normal -------------------------------------------------------
// truncated_normal(mean, stddev, a, b): one word an element, by inversion.
// alpha = (a - mean) / stddev, beta = (b - mean) / stddev (in double, at
// creation); j = 2 k + 1, k = W >> shift, u = j 2^-25 the middle of the
// k-th of 2^24 cells of (0, 1) and 1 - u = (2^25 - j) 2^-25, each rounded
// to f32 from its integer (j needs 25 bits: 1 - u taken from a rounded u
// would lose the upper tail's digits); with Phi the standard normal CDF
// and Q = 1 - Phi, p = Phi(alpha) + u M and q = Q(beta) + (1 - u) M, M =
// Phi(beta) - Phi(alpha) (p + q = 1 exactly, in reals); z = Phi^-1(p) where p <= 0.5,
// else -Phi^-1(q), so the quantile always works on the tail nearer to 0,
// where tiny probabilities keep their digits; x = mean + stddev * z,
// clamped to [lo, hi], a and b rounded inward to the dst type.

// An interval must reach into (-9, 9) standard deviations (beyond, the
// mass is under Q(9) = 1.1e-19); a standardised bound beyond +-12 counts as
// infinite (its tail, under Q(12) = 1.8e-33, is below f32's resolution of
// any admitted mass).
constexpr double truncnorm_z_limit = 9.0;
constexpr double truncnorm_z_inf = 12.0;

// Phi^-1 by Wichura's AS 241 (PPND7, 1988) structure and coefficients,
// evaluated in f32: for |v - 0.5| <= 0.425, z = q A(r) / B(r), q = v - 0.5,
// r = 0.180625 - q^2; else r = sqrt(-ln v) and z = -C(r - 1.6) / D(r - 1.6)
// for r <= 5, z = -E(r - 5) / F(r - 5) beyond. Highest power first.
constexpr float ppnd_a[4]
        = {5.9109374720e1f, 1.5929113202e2f, 5.0434271938e1f, 3.3871327179f};
constexpr float ppnd_b[4]
        = {6.7187563600e1f, 7.8757757664e1f, 1.7895169469e1f, 1.f};
constexpr float ppnd_c[4]
        = {1.7023821103e-1f, 1.3067284816f, 2.7568153900f, 1.4234372777f};
constexpr float ppnd_d[3] = {1.2021132975e-1f, 7.3700164250e-1f, 1.f};
constexpr float ppnd_e[4]
        = {1.7337203997e-2f, 4.2868294337e-1f, 3.0812263860f, 6.6579051150f};
constexpr float ppnd_f[3] = {1.2258202635e-2f, 2.4197894225e-1f, 1.f};
constexpr float ppnd_split_q = 0.425f, ppnd_split_r = 5.f;
constexpr float ppnd_const_r = 0.180625f, ppnd_shift_c = 1.6f;

// Phi^-1(v) for v in [3e-27, 0.5 + 2^-23] (the v truncnorm_value passes):
// the lower tail (v < 0.075) takes r = sqrt(-ln v) by ln_approx.
inline float normal_quantile(float v) {
    const float q = v - 0.5f;
    if (q >= -ppnd_split_q) {
        const float r = ppnd_const_r - q * q;
        return q * horner(r, ppnd_a) / horner(r, ppnd_b);
    }
    const float r = std::sqrt(0.f - ln_approx(v));
    if (r <= ppnd_split_r) {
        const float t = r - ppnd_shift_c;
        return 0.f - horner(t, ppnd_c) / horner(t, ppnd_d);
    }
    const float t = r - ppnd_split_r;
    return 0.f - horner(t, ppnd_e) / horner(t, ppnd_f);
}

// What an element needs, fixed at creation (truncnorm_params).
struct truncnorm_t {
    float phi_a = 0.f; // Phi(alpha) (0 for alpha <= -12)
    float q_b = 0.f; // Q(beta) (0 for beta >= 12)
    float mass = 1.f; // M = Phi(beta) - Phi(alpha)
    float mean = 0.f, stddev = 1.f;
    float lo = 0.f, hi = 0.f; // a and b rounded inward to the dst type
};

// Q(z) = erfc(z / sqrt 2) / 2 in double (0 beyond truncnorm_z_inf); a
// creation-time constant, the same for every kernel.
inline double truncnorm_upper_tail(double z) {
    if (z >= truncnorm_z_inf) return 0.0;
    if (z <= -truncnorm_z_inf) return 1.0;
    return 0.5 * std::erfc(z * 0.70710678118654752440);
}

// The smallest value of type @p t at or above @p x (@p up), or the largest
// at or below it; f32 is itself. May be infinite.
inline float round_to_dst_inward(float x, data_type t, bool up) {
    if (t != data_type::bf16 && t != data_type::f16) return x;
    const bool bf = t == data_type::bf16;
    uint16_t h = bf ? f32_to_bf16(x) : f32_to_f16(x);
    const auto val = [bf](uint16_t v) {
        return bf ? bf16_to_f32(v) : f16_to_f32(v);
    };
    const float r = val(h);
    if (up ? r < x : r > x) {
        // One step toward x: up grows a positive magnitude and shrinks a
        // negative one (r is never a 0 stepped through: x's sign is r's).
        const bool grows = (h & 0x8000u) ? !up : up;
        h = static_cast<uint16_t>(grows ? h + 1 : h - 1);
        return val(h);
    }
    return r;
}

// The constants of truncated_normal(mean, stddev, a, b) for dst type @p t
// (the parameters checked as make_rng_conf does: finite, stddev > 0, a <
// b, alpha < 9 and beta > -9).
inline truncnorm_t truncnorm_params(
        float mean, float stddev, float a, float b, data_type t) {
    const double alpha = (static_cast<double>(a) - mean) / stddev;
    const double beta = (static_cast<double>(b) - mean) / stddev;
    // Each difference of tails on the side where it keeps its digits.
    const double qa = truncnorm_upper_tail(alpha);
    const double qb = truncnorm_upper_tail(beta);
    const double pa = truncnorm_upper_tail(-alpha);
    const double pb = truncnorm_upper_tail(-beta);
    const double mass = alpha >= 0 ? qa - qb
            : beta <= 0             ? pb - pa
                                    : 1.0 - pa - qb;
    truncnorm_t c;
    c.phi_a = static_cast<float>(pa);
    c.q_b = static_cast<float>(qb);
    c.mass = static_cast<float>(mass);
    c.mean = mean;
    c.stddev = stddev;
    c.lo = round_to_dst_inward(a, t, true);
    c.hi = round_to_dst_inward(b, t, false);
    return c;
}

// The value of word @p w (f32, before the dst type's rounding): p <= 0.5
// picks p's quantile, else q's negated; then mean + stddev * z (two
// roundings), clamped to [lo, hi].
inline float truncnorm_value(uint32_t w, int shift, const truncnorm_t &c) {
    const uint32_t j = ((w >> shift) << 1) | 1u;
    const float u = static_cast<float>(j) * 0x1p-25f;
    const float u_c = static_cast<float>((1u << 25) - j) * 0x1p-25f;
    const float p = c.phi_a + u * c.mass;
    const float q = c.q_b + u_c * c.mass;
    const bool upper = p > 0.5f;
    const float zl = normal_quantile(upper ? q : p);
    const float z = upper ? 0.f - zl : zl;
    const float x = c.mean + c.stddev * z;
    return min_ps(max_ps(x, c.lo), c.hi);
}

// --- Truncated normal in f64 ---------------------------------------------
// As truncnorm_value with two words an element (docs/semantics.md, "f64
// values"): k = X >> (2 wb - 52) (u53 >> 1, 52 bits), j = 2 k + 1, u = j
// 2^-53 and 1 - u = (2^53 - j) 2^-53 (both exact); p, q, z and x as the
// f32 steps in f64, z by PPND16; the clamp to [a, b] (no inward rounding).

// Phi^-1 by Wichura's AS 241 PPND16 (degree-7 rational functions, relative
// error about 1e-16): PPND7's structure with f64 constants; coefficients
// as printed, highest power first.
constexpr double ppnd16_a[8] = {2509.0809287301226727,
        33430.575583588128105, 67265.770927008700853, 45921.953931549871457,
        13731.693765509461125, 1971.5909503065514427, 133.14166789178437745,
        3.387132872796366608};
constexpr double ppnd16_b[8] = {5226.495278852854561, 28729.085735721942674,
        39307.89580009271061, 21213.794301586595867, 5394.1960214247511077,
        687.1870074920579083, 42.313330701600911252, 1.0};
constexpr double ppnd16_c[8] = {7.7454501427834140764e-4,
        .0227238449892691845833, .24178072517745061177,
        1.27045825245236838258, 3.64784832476320460504,
        5.7694972214606914055, 4.6303378461565452959,
        1.42343711074968357734};
constexpr double ppnd16_d[8] = {1.05075007164441684324e-9,
        5.475938084995344946e-4, .0151986665636164571966,
        .14810397642748007459, .68976733498510000455, 1.6763848301838038494,
        2.05319162663775882187, 1.0};
constexpr double ppnd16_e[8] = {2.01033439929228813265e-7,
        2.71155556874348757815e-5, .0012426609473880784386,
        .026532189526576123093, .29656057182850489123, 1.7848265399172913358,
        5.4637849111641143699, 6.6579046435011037772};
constexpr double ppnd16_f[8] = {2.04426310338993978564e-15,
        1.4215117583164458887e-7, 1.8463183175100546818e-5,
        7.868691311456132591e-4, .0148753612908506148525,
        .13692988092273580531, .59983220655588793769, 1.0};
constexpr double ppnd16_split_q = 0.425, ppnd16_split_r = 5.0;
constexpr double ppnd16_const_r = 0.180625, ppnd16_shift_c = 1.6;

// Phi^-1(v) for v in [1e-36, 0.5 + 2^-52] (the v truncnorm_value_f64
// passes), normal_quantile's branches in f64: r = sqrt(0 - ln v) by
// ln_approx_f64.
inline double normal_quantile_f64(double v) {
    const double q = v - 0.5;
    if (q >= -ppnd16_split_q) {
        const double r = ppnd16_const_r - q * q;
        return q * horner(r, ppnd16_a) / horner(r, ppnd16_b);
    }
    const double r = std::sqrt(0.0 - ln_approx_f64(v));
    if (r <= ppnd16_split_r) {
        const double t = r - ppnd16_shift_c;
        return 0.0 - horner(t, ppnd16_c) / horner(t, ppnd16_d);
    }
    const double t = r - ppnd16_split_r;
    return 0.0 - horner(t, ppnd16_e) / horner(t, ppnd16_f);
}

// What an f64 element needs, fixed at creation (truncnorm_params_f64).
struct truncnorm_f64_t {
    double phi_a = 0.0; // Phi(alpha) (0 for alpha <= -12)
    double q_b = 0.0; // Q(beta) (0 for beta >= 12)
    double mass = 1.0; // M = Phi(beta) - Phi(alpha)
    double mean = 0.0, stddev = 1.0;
    double lo = 0.0, hi = 0.0; // a and b
};

// Q(z) = erfc(z / sqrt 2) / 2 (0 beyond truncnorm_z_inf), in long double
// rounded once to double: x = z sqrt(1/2) in long double, and its rounding
// error dx (an fma, and sqrt(1/2)'s own) taken back by erfc's slope, -2 /
// sqrt(pi) e^(-x^2) dx, so that only the long double erfc's error of a few
// of its ulp remains (docs/semantics.md: how rarely that misses the
// correctly rounded Q).
inline double truncnorm_upper_tail_f64(double z) {
    if (z >= truncnorm_z_inf) return 0.0;
    if (z <= -truncnorm_z_inf) return 1.0;
    const long double c = 0xb.504f333f9de6484p-4L; // sqrt(1/2) rounded
    const long double c_lo = 0xb.2fb1366ea957d3ep-69L; // sqrt(1/2) - c
    const long double x = z * c;
    const long double dx
            = std::fma(static_cast<long double>(z), c, -x) + z * c_lo;
    const long double slope
            = 1.12837916709551257389615890312154517L * std::exp(-x * x);
    return static_cast<double>(0.5L * (std::erfc(x) - slope * dx));
}

// The constants of truncated_normal(mean, stddev, a, b) to f64 (the
// parameters checked as make_rng_conf does), as truncnorm_params's in
// f64.
inline truncnorm_f64_t truncnorm_params_f64(
        double mean, double stddev, double a, double b) {
    const double alpha = (a - mean) / stddev;
    const double beta = (b - mean) / stddev;
    const double qa = truncnorm_upper_tail_f64(alpha);
    const double qb = truncnorm_upper_tail_f64(beta);
    const double pa = truncnorm_upper_tail_f64(-alpha);
    const double pb = truncnorm_upper_tail_f64(-beta);
    truncnorm_f64_t c;
    c.phi_a = pa;
    c.q_b = qb;
    c.mass = alpha >= 0 ? qa - qb : beta <= 0 ? pb - pa : 1.0 - pa - qb;
    c.mean = mean;
    c.stddev = stddev;
    c.lo = a;
    c.hi = b;
    return c;
}

// The f64 value of element u53 (u53_of): p <= 0.5 picks p's quantile, else
// q's negated; then mean + stddev * z, clamped to [a, b].
inline double truncnorm_value_f64(uint64_t u53, const truncnorm_f64_t &c) {
    const uint64_t j = u53 | 1u; // 2k + 1
    const double u = static_cast<double>(j) * 0x1p-53;
    const double u_c = static_cast<double>((uint64_t(1) << 53) - j) * 0x1p-53;
    const double p = c.phi_a + u * c.mass;
    const double q = c.q_b + u_c * c.mass;
    const bool upper = p > 0.5;
    const double zl = normal_quantile_f64(upper ? q : p);
    const double z = upper ? 0.0 - zl : zl;
    const double x = c.mean + c.stddev * z;
    return min_pd(max_pd(x, c.lo), c.hi);
}

} // namespace impl
} // namespace rndnn

#endif
