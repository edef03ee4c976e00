// The per-algorithm 32-bit word streams of docs/semantics.md ("Word streams").
#ifndef RNDNN_RNG_ENGINES_WORD_SOURCE_HPP
#define RNDNN_RNG_ENGINES_WORD_SOURCE_HPP

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "rndnn/rng.hpp"

namespace rndnn {
namespace impl {

// The word stream W(seed, stream, index) of one algorithm (docs/semantics.md).
class word_source_t {
public:
    virtual ~word_source_t() = default;
    // out[k] = W(first + k) for k in [0, n). Calls with increasing,
    // contiguous `first` are cheapest (mt19937 continues instead of jumping).
    virtual void fill(uint64_t first, size_t n, uint32_t *out) = 0;
};

// What the rest of the RNG needs to know of an algorithm besides its
// words (one row of the engine table, rng/engines/word_source.cpp).
struct engine_traits_t {
    // Significant bits of a word: 32, or 31 for mcg31m1, whose words lie in
    // [1, 2^31 - 2]: its Bernoulli threshold and uniform shift differ, and
    // bitsliced, which needs 32 bits, refuses it.
    int word_bits;
    // Whether a word is computed from its index alone (counter-based): the
    // lazy bitsliced kernels skip the words they do not need, so
    // bitsliced(32) is the default Bernoulli method; false for mcg31m1
    // (a jump per word) and mt19937 (a sequential state).
    bool by_counter;
};
// @throws std::invalid_argument for a value that is no enumerator (the
//     primitives check enums first).
engine_traits_t engine_traits(rng_alg alg);

// seed: the s64 seed reinterpreted as u64 (s32 seeds are sign-extended by
// the caller). stream: u64. name: multfly key name (<= 32 bytes, else
// std::invalid_argument; ignored by the other algorithms). isa: the tier of
// mt19937's vector code (mt19937_simd; none: scalar), ignored by the other
// algorithms; the words are the same at every tier.
std::unique_ptr<word_source_t> make_word_source(rng_alg alg, uint64_t seed,
        uint64_t stream, const std::string &name,
        cpu_isa isa = cpu_isa::none);

} // namespace impl
} // namespace rndnn

#endif
