// The arena planner: places buffers by lifetime, the largest first.
#include "graph/arena.hpp"

#include <algorithm>
#include <utility>

namespace rndnn {
namespace impl {

arena_plan_t plan_arena(
        const std::vector<arena_buffer_t> &buffers, std::size_t align) {
    arena_plan_t plan;
    plan.offsets.assign(buffers.size(), 0);
    std::vector<int> by_size(buffers.size());
    for (size_t i = 0; i < by_size.size(); ++i)
        by_size[i] = static_cast<int>(i);
    std::stable_sort(by_size.begin(), by_size.end(), [&](int a, int b) {
        return buffers[a].size > buffers[b].size;
    });
    std::vector<int> placed;
    for (int i : by_size) {
        const arena_buffer_t &b = buffers[i];
        std::vector<std::pair<std::size_t, std::size_t>> busy;
        for (int j : placed) {
            const arena_buffer_t &o = buffers[j];
            if (o.first <= b.last && b.first <= o.last)
                busy.emplace_back(plan.offsets[j], plan.offsets[j] + o.size);
        }
        std::sort(busy.begin(), busy.end());
        std::size_t off = 0;
        for (const auto &r : busy) {
            if (off + b.size <= r.first) break;
            off = std::max(off, (r.second + align - 1) / align * align);
        }
        plan.offsets[i] = off;
        plan.size = std::max(plan.size, off + b.size);
        placed.push_back(i);
    }
    return plan;
}

} // namespace impl
} // namespace rndnn
