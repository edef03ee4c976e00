// The categorical primitive's max-and-first-index loop
// (pipeline/categorical_argmax.hpp) in scalar, AVX2 and AVX-512 code. The
// vector loops take the block's max in a first pass (vmaxps(s, m) keeps m
// where s is NaN, which so counts as -inf) and, only where it beats the
// row's best, look for its first lane in a second pass that computes the
// scores again (the same operations, the same values). Functions compiled
// for a tier are reached only through pick_argmax() or argmax_of_tier().
#include "pipeline/categorical_argmax.hpp"

#include <immintrin.h>

#include <string>

#include "src/cpu_isa.hpp"

// GCC 12's avx512fintrin.h builds some intrinsics on
// _mm512_undefined_*(), which -Wuninitialized reports once inlined into a
// target("avx512f") function: a false positive (as in mt19937_simd.cpp).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

namespace rndnn {
namespace impl {

namespace {

template <bool bf16>
float load1(const void *x, dim_t j) {
    if (!bf16) return static_cast<const float *>(x)[j];
    const uint32_t u = static_cast<uint32_t>(
                               static_cast<const uint16_t *>(x)[j])
            << 16;
    float f;
    __builtin_memcpy(&f, &u, 4);
    return f;
}

template <bool bf16>
float score1(const void *x, const float *g, dim_t j, float t) {
    return load1<bf16>(x, j) / t + g[j];
}

template <bool bf16>
void argmax_scalar(const void *x, const float *g, dim_t n, float t, dim_t j0,
        argmax_t &best) {
    for (dim_t j = 0; j < n; ++j) {
        const float s = score1<bf16>(x, g, j, t);
        if (s > best.m) {
            best.m = s;
            best.j = j0 + j;
        }
    }
}

// --- AVX2 -------------------------------------------------------------------

#define RNDNN_AVX2 __attribute__((target("avx2,fma,f16c")))

template <bool bf16>
RNDNN_AVX2 __m256 score8(const void *x, const float *g, dim_t j, __m256 t) {
    __m256 v;
    if (bf16) {
        const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i *>(
                static_cast<const uint16_t *>(x) + j));
        v = _mm256_castsi256_ps(
                _mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
    } else {
        v = _mm256_loadu_ps(static_cast<const float *>(x) + j);
    }
    return _mm256_add_ps(_mm256_div_ps(v, t), _mm256_loadu_ps(g + j));
}

template <bool bf16>
RNDNN_AVX2 void argmax_avx2(const void *x, const float *g, dim_t n, float t,
        dim_t j0, argmax_t &best) {
    const __m256 vt = _mm256_set1_ps(t);
    const dim_t nv = n / 8 * 8;
    __m256 vm = _mm256_set1_ps(-__builtin_inff());
    for (dim_t j = 0; j < nv; j += 8)
        vm = _mm256_max_ps(score8<bf16>(x, g, j, vt), vm);
    __m128 h = _mm_max_ps(
            _mm256_castps256_ps128(vm), _mm256_extractf128_ps(vm, 1));
    h = _mm_max_ps(h, _mm_movehl_ps(h, h));
    h = _mm_max_ps(h, _mm_shuffle_ps(h, h, 1));
    float m = _mm_cvtss_f32(h);
    for (dim_t j = nv; j < n; ++j) {
        const float s = score1<bf16>(x, g, j, t);
        if (s > m) m = s;
    }
    if (!(m > best.m)) return;
    best.m = m;
    const __m256 want = _mm256_set1_ps(m);
    for (dim_t j = 0; j < nv; j += 8) {
        const int k = _mm256_movemask_ps(_mm256_cmp_ps(
                score8<bf16>(x, g, j, vt), want, _CMP_EQ_OQ));
        if (k) {
            best.j = j0 + j + __builtin_ctz(static_cast<unsigned>(k));
            return;
        }
    }
    for (dim_t j = nv; j < n; ++j)
        if (score1<bf16>(x, g, j, t) == m) {
            best.j = j0 + j;
            return;
        }
}

// --- AVX-512 ----------------------------------------------------------------

#define RNDNN_AVX512 \
    __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx2,fma")))

template <bool bf16>
RNDNN_AVX512 __m512 score16(
        const void *x, const float *g, dim_t j, __mmask16 k, __m512 t) {
    __m512 v;
    if (bf16) {
        const __m256i h = _mm256_maskz_loadu_epi16(
                k, static_cast<const uint16_t *>(x) + j);
        v = _mm512_castsi512_ps(
                _mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
    } else {
        v = _mm512_maskz_loadu_ps(k, static_cast<const float *>(x) + j);
    }
    const __m512 s = _mm512_add_ps(
            _mm512_div_ps(v, t), _mm512_maskz_loadu_ps(k, g + j));
    return _mm512_mask_blend_ps(k, _mm512_set1_ps(-__builtin_inff()), s);
}

template <bool bf16>
RNDNN_AVX512 void argmax_avx512(const void *x, const float *g, dim_t n,
        float t, dim_t j0, argmax_t &best) {
    const __m512 vt = _mm512_set1_ps(t);
    const auto mask = [n](dim_t j) {
        return static_cast<__mmask16>(
                n - j >= 16 ? 0xffffu : (1u << (n - j)) - 1u);
    };
    __m512 vm = _mm512_set1_ps(-__builtin_inff());
    for (dim_t j = 0; j < n; j += 16)
        vm = _mm512_max_ps(score16<bf16>(x, g, j, mask(j), vt), vm);
    const float m = _mm512_reduce_max_ps(vm);
    if (!(m > best.m)) return;
    best.m = m;
    const __m512 want = _mm512_set1_ps(m);
    for (dim_t j = 0; j < n; j += 16) {
        const __mmask16 k = mask(j)
                & _mm512_cmp_ps_mask(score16<bf16>(x, g, j, mask(j), vt), want,
                        _CMP_EQ_OQ);
        if (k) {
            best.j = j0 + j + __builtin_ctz(static_cast<unsigned>(k));
            return;
        }
    }
}

} // namespace

argmax_fn_t argmax_of_tier(cpu_isa tier, bool bf16) {
    if (tier >= cpu_isa::avx512)
        return bf16 ? argmax_avx512<true> : argmax_avx512<false>;
    if (tier >= cpu_isa::avx2)
        return bf16 ? argmax_avx2<true> : argmax_avx2<false>;
    return bf16 ? argmax_scalar<true> : argmax_scalar<false>;
}

argmax_fn_t pick_argmax(cpu_isa cap, bool bf16, cpu_isa &tier) {
    std::string why;
    tier = tier_usable(cpu_isa::avx512, cap, why) ? cpu_isa::avx512
            : tier_usable(cpu_isa::avx2, cap, why) ? cpu_isa::avx2
                                                     : cpu_isa::none;
    return argmax_of_tier(tier, bf16);
}

} // namespace impl
} // namespace rndnn
