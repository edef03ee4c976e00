/// @file
/// The enums of the primitives (the RNG, its attributes, binary, dropout,
/// the graph) and the names of their values: what messages, the CLI and
/// Python print and parse. Each enum's names are one table in the library
/// (src/enums.cpp); data_type, status and cpu_isa, which every primitive
/// uses, are in rndnn/common.hpp, their names in the same tables.
#ifndef RNDNN_ENUMS_HPP
#define RNDNN_ENUMS_HPP

#include <string>
#include <vector>

#include "rndnn/common.hpp"

namespace rndnn {

/// Word generators. Each defines a 32-bit word stream W(seed, stream, g)
/// over the global element index g = offset + logical row-major index.
enum class rng_alg {
    philox4x32_10, ///< default; cuRAND/MKL layout, counter {g/4, stream}
    philox4x32_10_onednn, ///< oneDNN dropout layout, counter {stream, g&~3}
    threefry4x32_20, ///< counter as philox4x32_10, key {seed, 0}
    mcg31m1, ///< x_g = s * a^g mod (2^31 - 1); 31-bit words
    mt19937, ///< output g of std::mt19937 (jump-ahead, no walk)
    multfly, ///< Multfly with a named key (rng::desc::name)
};
/// @returns the name of @p alg ("philox4x32_10", ...).
RNDNN_API const char *alg2str(rng_alg alg);
/// @returns every algorithm, in the order the library lists their names
///     (help texts and messages).
RNDNN_API std::vector<rng_alg> rng_algs();
/// @returns the algorithm named @p name.
/// @throws error (invalid_arguments) naming @p name if it names none.
RNDNN_API rng_alg str2alg(const std::string &name);

/// How a Bernoulli decision is drawn from words (docs/semantics.md).
enum class bernoulli_method {
    /// 1 iff W < ceil(p * 2^32) (mcg31m1: W < p * m); one word an element.
    threshold32,
    /// p rounded to a multiple of 2^-b; 32 elements share b words.
    bitsliced,
    /// The default: the fastest method whose p is exact to 2^-32 for the
    /// algorithm. bitsliced with b = 32 where words are addressed by counter
    /// (philox4x32_10, philox4x32_10_onednn, threefry4x32_20, multfly: the
    /// JIT kernels draw about a quarter of a word an element); threshold32
    /// for mcg31m1 (31-bit words) and mt19937 (sequential), and for
    /// dropout's onednn_compat. The bits given with it are ignored.
    automatic,
    /// oneDNN's dropout rule: 1 iff ~W < ceil(p * 2^32), threshold32 on the
    /// complemented word; one word an element, 32-bit words only (not
    /// mcg31m1). With p = dropout::keep_probability(rate, true) the 1s are
    /// exactly what oneDNN's dropout with that rate keeps (W > (2^32 - 1) *
    /// rate); dropout's onednn_compat draws its mask so.
    onednn,
    /// threshold32's p, exact to 2^-32, from a byte an element: byte
    /// g % 4 of W(g / 4) against the threshold's top 8 bits, and where they
    /// tie (1 in 256), a 24-bit refinement from a word drawn for that tie
    /// (docs/semantics.md); about a quarter of a word an element. Needs
    /// 32-bit words addressed by counter (philox4x32_10,
    /// philox4x32_10_onednn, threefry4x32_20, multfly).
    bytewise,
};
/// @returns "threshold32", "bitsliced", "auto" (automatic), "onednn" or
/// "bytewise".
RNDNN_API const char *bernoulli_method2str(bernoulli_method method);
/// @returns the method named @p name ("auto", "threshold32", "bitsliced",
/// "onednn", "bytewise").
/// @throws error (invalid_arguments) naming @p name if it names none.
RNDNN_API bernoulli_method str2bernoulli_method(const std::string &name);

/// How scalar runtime arguments (seed, offset, stream, p) are passed.
enum class scalar_kind {
    host, ///< memory::scalar(value)
    memory, ///< a one-element memory the caller may update in place
};
/// @returns "host" or "memory".
RNDNN_API const char *scalar_kind2str(scalar_kind kind);

/// Element-wise binary operations.
enum class binary_alg {
    mul, ///< dst = src0 * src1; with a bit src1: bit ? src0 : +0
    add, ///< dst = src0 + src1; a bit src1 counts as 0 or 1
};
/// @returns "mul" or "add".
RNDNN_API const char *binary_alg2str(binary_alg alg);

/// What a dropout primitive computes.
enum class prop_kind {
    forward_training, ///< dst = keep ? src * scale : +0; mask optional
    forward_inference, ///< dst = src
    backward, ///< diff_src = keep ? diff_dst * scale : +0
};
/// @returns "forward_training", "forward_inference" or "backward".
RNDNN_API const char *prop_kind2str(prop_kind prop);

/// How a dropout primitive is executed. Both plans give identical bits.
enum class dropout_plan {
    any, ///< fused where it applies, else chain
    /// One pass over the data: reads src once, writes dst and the mask.
    /// Where the mask is generated per element (forward training, backward
    /// without a stored mask), one JIT kernel generates and applies it; it
    /// needs a JIT kernel for the algorithm and method, dense src and dst,
    /// no broadcast, and a dense mask (if any). Where the mask is read
    /// (backward with a stored mask, or a noise shape: the small noise mask
    /// is generated whole first), the apply kernel with the scale folded in.
    fused,
    /// RNG -> binary mul -> oneDNN eltwise linear, in cache-sized blocks:
    /// takes every valid problem.
    chain,
};
/// @returns "any", "fused" or "chain".
RNDNN_API const char *dropout_plan2str(dropout_plan plan);
/// @returns the plan named @p name ("any", "fused", "chain").
/// @throws error (invalid_arguments) naming @p name if it names none.
RNDNN_API dropout_plan str2dropout_plan(const std::string &name);

/// Element-wise functions of eltwise nodes (oneDNN's definitions).
enum class eltwise_alg {
    relu, ///< x > 0 ? x : alpha * x (alpha: the negative slope, often 0)
    gelu_tanh, ///< 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3)))
    gelu_erf, ///< 0.5 x (1 + erf(x / sqrt(2)))
    linear, ///< alpha * x + beta
};
/// @returns "relu", "gelu_tanh", "gelu_erf" or "linear".
RNDNN_API const char *eltwise_alg2str(eltwise_alg alg);

/// What forward keeps of each dropout mask for backward.
enum class mask_mode {
    bit, ///< the mask as bits: ceil(mask elements / 8) bytes
    u8, ///< one byte per mask element
    /// nothing: backward regenerates the mask from the seed and the offset
    /// the node reserved (0 bytes, one more RNG pass)
    recompute,
};
/// @returns "bit", "u8" or "recompute".
RNDNN_API const char *mask_mode2str(mask_mode mode);
/// @returns the mode named @p name ("bit", "u8", "recompute").
/// @throws error (invalid_arguments) naming @p name if it names none.
RNDNN_API mask_mode str2mask_mode(const std::string &name);

} // namespace rndnn

#endif
