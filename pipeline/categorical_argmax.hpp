// The categorical primitive's inner loop (pipeline/categorical.cpp): over a
// block of a row's logits x and their Gumbel noise g, the scores
// s_j = (x_j / t) + g_j in f32 (a division rounded, then an addition; NaN
// counts as -inf), folded into the row's best so far: a block's max m
// replaces it only if m > best.m, and then with the block's first j with
// s_j = m, so that blocks visited in index order give the lowest index of
// the row's max. Scalar and vector code give the same result.
#ifndef RNDNN_PIPELINE_CATEGORICAL_ARGMAX_HPP
#define RNDNN_PIPELINE_CATEGORICAL_ARGMAX_HPP

#include <cstdint>

#include "rndnn/common.hpp"

namespace rndnn {
namespace impl {

struct argmax_t {
    float m; // the best score so far (-inf: none yet)
    dim_t j; // its global vocabulary index
};

// x: n logits (f32, or bf16 as u16); g: their n noise values; t: the
// temperature; j0: x[0]'s global vocabulary index. n >= 1.
using argmax_fn_t = void (*)(const void *x, const float *g, dim_t n, float t,
        dim_t j0, argmax_t &best);

// The loop of the best tier that the CPU has and no cap excludes (avx512,
// avx2; none: scalar), for f32 or bf16 logits; @p tier says which.
argmax_fn_t pick_argmax(cpu_isa cap, bool bf16, cpu_isa &tier);

// The loop of tier @p tier exactly (none: scalar), for the tests; the
// caller makes sure the CPU has it.
argmax_fn_t argmax_of_tier(cpu_isa tier, bool bf16);

} // namespace impl
} // namespace rndnn

#endif
