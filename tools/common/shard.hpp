// How `rndnn gen` and `rndnn dropout` cut a global tensor into the shares of
// K processes, and each share into bounded pieces (docs/distributed.md).
//
// Pure arithmetic on dims: no MPI, no I/O, so that the partition rules are
// tested on their own (tests/test_shard.cpp).
#ifndef RNDNN_TOOLS_SHARD_HPP
#define RNDNN_TOOLS_SHARD_HPP

#include <cstdint>
#include <functional>
#include <string>

#include "rndnn/rndnn.hpp"

namespace rndnn_cli {

// --split: how the global tensor of dims G (rank n >= 1) is cut.
enum class split_t {
    rows, // dim 0 in K ranges: each share is contiguous in the file
    cols, // the last dim in K ranges (dim 0 for a 1-d tensor)
    blocks, // a pr x pc grid over dim 0 and the last dim, pr * pc = K,
            // pr the largest divisor of K at most sqrt(K) (a 1-d tensor:
            // dim 0 in K ranges)
};
// @throws usage_error naming the text unless it is rows, cols or blocks.
split_t parse_split(const std::string &text);
const char *split2str(split_t s);

// A block of the global tensor: origin and dims, both of G's rank.
struct box_t {
    rndnn::dims origin, dims;
    std::int64_t nelems() const;
};

// Part r of K of a range of n: [r n / K, (r + 1) n / K). Shares differ by
// at most one; with K > n some are empty.
std::int64_t part_begin(std::int64_t n, int r, int k);

// The block of rank @p rank (0 <= rank < nranks) under @p split: the
// blocks of all ranks partition G. An empty block has a zero dim.
box_t rank_box(const rndnn::dims &global, split_t split, int rank, int nranks);

// A piece of a block: a block itself; where contiguous in the row-major
// order of G, its elements are the global indices [first, first + count)
// and its bytes one range of a file.
struct piece_t {
    box_t box;
    std::int64_t first = 0, count = 0; // first: its first element's index
};

// The pieces of a block in row-major order, each of at most max_elems
// elements: ranges of the outermost dim that fits, one index of each dim
// outside it, the dims inside it whole. With @p contiguous, that dim is
// also at least the innermost one that the block does not hold whole, so
// that each piece is contiguous in G (a block of short rows then gives a
// piece a row); without, a piece holds many rows. Together they are the
// block. O(rank) state: a block of 10^9 rows costs no memory up front.
class piece_iterator {
public:
    // @param max_elems >= 1.
    piece_iterator(const rndnn::dims &global, const box_t &box,
            std::int64_t max_elems, bool contiguous = true);
    // Sets @p p to the next piece; false when there is none.
    bool next(piece_t &p);

private:
    rndnn::dims global_, origin_, dims_;
    int split_dim_ = 0; // the dim cut into ranges; inner dims are whole
    std::int64_t step_ = 1; // indices of split_dim_ in one piece
    rndnn::dims pos_; // the next piece's position in the block
    bool done_ = false;
};

// Calls @p fn(box, first) for boxes that together are the elements
// [first, first + count) of a tensor of dims @p d in row-major order, in
// that order, each contiguous, first its first element: at most 2 rank - 1
// of them.
void for_each_range_box(const rndnn::dims &d, std::int64_t first,
        std::int64_t count,
        const std::function<void(const box_t &, std::int64_t)> &fn);

// The byte-aligned share of a bit-packed file of n elements: a range
// [first, end) of elements is owned as [f(first), f(end)), f(x) = x rounded
// down to a multiple of 8, but f(n) = n. Ranges that partition [0, n)
// still do, and no two of them share a byte. @returns the range's new
// first; @p count becomes its new count (maybe 0).
std::int64_t byte_align(std::int64_t first, std::int64_t &count,
        std::int64_t n);

} // namespace rndnn_cli

#endif
