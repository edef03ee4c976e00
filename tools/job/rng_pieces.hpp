// Pieces of one RNG problem's tensor, generated range by range: what
// `rndnn gen` writes, and `rndnn dropout --mask-out` (the mask as the RNG
// problem dropout::keep_post_ops() names).
#ifndef RNDNN_TOOLS_RNG_PIECES_HPP
#define RNDNN_TOOLS_RNG_PIECES_HPP

#include <cstdint>
#include <map>

#include "problems/problem_rng.hpp"

namespace rndnn_cli {

// Generates elements of problem @p p's dst (a window of its global tensor
// where p.desc has global_dims; with p's p tensor, each box with its
// values) by ranges of its row-major elements, with
// the seed, offset and stream of p.so (p.desc.with_offset must be set).
class rng_pieces {
public:
    explicit rng_pieces(const rng_problem_t &p) : p_(p), strm_(p.so.threads) {}

    // Elements [first, first + count) into @p dst (a bit tensor's bits
    // from bit 0).
    // @throws rndnn::error as the primitive does.
    void operator()(std::int64_t first, std::int64_t count, void *dst);

private:
    // The primitive for @p count elements at a runtime offset: pieces
    // come in few sizes, so a few are kept.
    const rndnn::rng &flat(std::int64_t count);
    // @p p: the p tensor's values for prim (its desc's p_tensor), or
    // nullptr.
    void run(const rndnn::rng &prim, std::int64_t first, void *dst,
            void *p = nullptr);

    const rng_problem_t &p_;
    rndnn::stream strm_;
    std::map<std::int64_t, rndnn::rng> prims_;
};

} // namespace rndnn_cli

#endif
