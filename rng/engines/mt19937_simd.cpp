// MT19937's state regeneration and output tempering in AVX2 and AVX-512
// code, bit for bit the scalar definitions (mt19937.hpp), and the choice of
// one per tier.
//
// Words k and k + 227 of a regeneration never depend on each other: the
// first 227 new words read only old ones (x_k, x_k+1, x_k+397), and word k
// from 227 on reads the new word k - 227, so vectors of 8 or 16 words in
// index order always find their inputs computed. Functions compiled for a
// tier are reached only through mt19937_simd(), for the tier that the RNG's
// implementation list chose (a simd:<tier> entry: the CPU has it and no cap
// excludes it) or that a test asks for.
#include <immintrin.h>

#include "rng/engines/mt19937.hpp"

// GCC 12's avx512fintrin.h builds some intrinsics (shifts by an immediate,
// set1) on _mm512_undefined_epi32(), which -Wuninitialized reports once the
// intrinsic is inlined into a target("avx512f") function: a false positive
// (the undefined lanes are never read).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

namespace rndnn {
namespace impl {

namespace {

constexpr int n = mt19937_n;
constexpr int m = mt19937_m;
constexpr int first_part = n - m; // 227 words read only old words

// --- scalar ---------------------------------------------------------------

void temper_scalar(const uint32_t *in, size_t count, uint32_t *out) {
    for (size_t k = 0; k < count; ++k)
        out[k] = mt19937_temper(in[k]);
}

// --- AVX-512 --------------------------------------------------------------

#define RNDNN_AVX512 __attribute__((target("avx512f")))

// s[k..k+16) = s[k+d..] ^ twist(s[k..], s[k+1..]) (d = m, or m - n).
RNDNN_AVX512 void twist16(uint32_t *s, int k, int d) {
    const __m512i u = _mm512_loadu_si512(static_cast<const void *>(s + k));
    const __m512i v = _mm512_loadu_si512(static_cast<const void *>(s + k + 1));
    const __m512i w = _mm512_loadu_si512(static_cast<const void *>(s + k + d));
    // y = (u & upper) | (v & lower): bit = lower ? v : u (table 0xD8 over
    // (u, v, lower)).
    const __m512i y = _mm512_ternarylogic_epi32(
            u, v, _mm512_set1_epi32(int(mt19937_lower_mask)), 0xD8);
    const __mmask16 odd = _mm512_test_epi32_mask(y, _mm512_set1_epi32(1));
    const __m512i r = _mm512_xor_si512(_mm512_srli_epi32(y, 1), w);
    _mm512_storeu_si512(s + k,
            _mm512_mask_xor_epi32(
                    r, odd, r, _mm512_set1_epi32(int(mt19937_matrix_a))));
}

RNDNN_AVX512 void regenerate_avx512(uint32_t *s) {
    int k = 0;
    for (; k + 16 <= first_part; k += 16)
        twist16(s, k, m);
    for (; k < first_part; ++k)
        s[k] = s[k + m] ^ mt19937_twist(s[k], s[k + 1]);
    for (; k + 16 <= n - 1; k += 16)
        twist16(s, k, m - n);
    for (; k < n - 1; ++k)
        s[k] = s[k + m - n] ^ mt19937_twist(s[k], s[k + 1]);
    s[n - 1] = s[m - 1] ^ mt19937_twist(s[n - 1], s[0]);
}

RNDNN_AVX512 void temper_avx512(const uint32_t *in, size_t count, uint32_t *out) {
    const __m512i b = _mm512_set1_epi32(int(0x9D2C5680u));
    const __m512i c = _mm512_set1_epi32(int(0xEFC60000u));
    size_t k = 0;
    for (; k + 16 <= count; k += 16) {
        __m512i y = _mm512_loadu_si512(static_cast<const void *>(in + k));
        y = _mm512_xor_si512(y, _mm512_srli_epi32(y, 11));
        // y ^= (y << s) & mask: table 0x78 is a ^ (b & c).
        y = _mm512_ternarylogic_epi32(y, _mm512_slli_epi32(y, 7), b, 0x78);
        y = _mm512_ternarylogic_epi32(y, _mm512_slli_epi32(y, 15), c, 0x78);
        y = _mm512_xor_si512(y, _mm512_srli_epi32(y, 18));
        _mm512_storeu_si512(out + k, y);
    }
    temper_scalar(in + k, count - k, out + k);
}

#undef RNDNN_AVX512

// --- AVX2 -----------------------------------------------------------------

#define RNDNN_AVX2 __attribute__((target("avx2")))

// s[k..k+8) = s[k+d..] ^ twist(s[k..], s[k+1..]) (d = m, or m - n).
RNDNN_AVX2 void twist8(uint32_t *s, int k, int d) {
    auto *p = reinterpret_cast<__m256i *>(s + k);
    const __m256i u = _mm256_loadu_si256(p);
    const __m256i v = _mm256_loadu_si256(
            reinterpret_cast<const __m256i *>(s + k + 1));
    const __m256i w = _mm256_loadu_si256(
            reinterpret_cast<const __m256i *>(s + k + d));
    const __m256i lower = _mm256_set1_epi32(int(mt19937_lower_mask));
    const __m256i y = _mm256_or_si256(_mm256_andnot_si256(lower, u),
            _mm256_and_si256(lower, v));
    // A where y is odd: the low bit moved to the sign, spread by an
    // arithmetic shift.
    const __m256i odd = _mm256_srai_epi32(_mm256_slli_epi32(y, 31), 31);
    const __m256i a = _mm256_and_si256(
            odd, _mm256_set1_epi32(int(mt19937_matrix_a)));
    _mm256_storeu_si256(p,
            _mm256_xor_si256(
                    _mm256_xor_si256(_mm256_srli_epi32(y, 1), a), w));
}

RNDNN_AVX2 void regenerate_avx2(uint32_t *s) {
    int k = 0;
    for (; k + 8 <= first_part; k += 8)
        twist8(s, k, m);
    for (; k < first_part; ++k)
        s[k] = s[k + m] ^ mt19937_twist(s[k], s[k + 1]);
    for (; k + 8 <= n - 1; k += 8)
        twist8(s, k, m - n);
    for (; k < n - 1; ++k)
        s[k] = s[k + m - n] ^ mt19937_twist(s[k], s[k + 1]);
    s[n - 1] = s[m - 1] ^ mt19937_twist(s[n - 1], s[0]);
}

RNDNN_AVX2 void temper_avx2(const uint32_t *in, size_t count, uint32_t *out) {
    const __m256i b = _mm256_set1_epi32(int(0x9D2C5680u));
    const __m256i c = _mm256_set1_epi32(int(0xEFC60000u));
    size_t k = 0;
    for (; k + 8 <= count; k += 8) {
        __m256i y = _mm256_loadu_si256(
                reinterpret_cast<const __m256i *>(in + k));
        y = _mm256_xor_si256(y, _mm256_srli_epi32(y, 11));
        y = _mm256_xor_si256(
                y, _mm256_and_si256(_mm256_slli_epi32(y, 7), b));
        y = _mm256_xor_si256(
                y, _mm256_and_si256(_mm256_slli_epi32(y, 15), c));
        y = _mm256_xor_si256(y, _mm256_srli_epi32(y, 18));
        _mm256_storeu_si256(reinterpret_cast<__m256i *>(out + k), y);
    }
    temper_scalar(in + k, count - k, out + k);
}

#undef RNDNN_AVX2

} // namespace

bool mt19937_simd_has(cpu_isa isa) {
    return isa == cpu_isa::avx512 || isa == cpu_isa::avx2;
}

mt19937_simd_t mt19937_simd(cpu_isa isa) {
    switch (isa) {
        case cpu_isa::avx512: return {regenerate_avx512, temper_avx512};
        case cpu_isa::avx2: return {regenerate_avx2, temper_avx2};
        case cpu_isa::none:
        case cpu_isa::sse41:
        case cpu_isa::all: break;
    }
    return {mt19937_regenerate, temper_scalar};
}

} // namespace impl
} // namespace rndnn
