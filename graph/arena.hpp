// The arena planner: places buffers with known lifetimes in one allocation.
#ifndef RNDNN_GRAPH_ARENA_HPP
#define RNDNN_GRAPH_ARENA_HPP

#include <cstddef>
#include <vector>

namespace rndnn {
namespace impl {

// A buffer to place: its size in bytes and its lifetime, the steps
// [first, last] (both included) that use it. Two buffers are live at once
// when their lifetimes share a step.
struct arena_buffer_t {
    std::size_t size = 0;
    int first = 0, last = 0;
};

// Where each buffer goes: offsets[i] for buffers[i], every one a multiple
// of the alignment, and size, the end of the furthest buffer (0 for none).
struct arena_plan_t {
    std::vector<std::size_t> offsets;
    std::size_t size = 0;
};

// Places the buffers, the largest first (ties in their order), each at
// the lowest aligned offset where it overlaps no placed buffer live at
// the same time. Buffers live at once never overlap in memory; buffers
// with disjoint lifetimes may. The size never exceeds the sum of the
// sizes, each rounded up to the alignment (a power of two).
arena_plan_t plan_arena(
        const std::vector<arena_buffer_t> &buffers, std::size_t align = 64);

} // namespace impl
} // namespace rndnn

#endif
