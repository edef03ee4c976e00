// Tests of the graph's arena planner (graph/arena.hpp).
//
// Buffers live at once never overlap, buffers with disjoint lifetimes may
// share memory, offsets are aligned, and the arena is never larger than
// the buffers side by side.
#include <algorithm>
#include <cstddef>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "graph/arena.hpp"

namespace {

using rndnn::impl::arena_buffer_t;
using rndnn::impl::arena_plan_t;
using rndnn::impl::plan_arena;

arena_buffer_t buf(std::size_t size, int first, int last) {
    arena_buffer_t b;
    b.size = size;
    b.first = first;
    b.last = last;
    return b;
}

std::size_t round_up(std::size_t n, std::size_t align) {
    return (n + align - 1) / align * align;
}

bool live_together(const arena_buffer_t &a, const arena_buffer_t &b) {
    return a.first <= b.last && b.first <= a.last;
}

// Every property the planner promises, for any input.
void check_plan(const std::vector<arena_buffer_t> &bs, const arena_plan_t &p,
        std::size_t align) {
    ASSERT_EQ(p.offsets.size(), bs.size());
    std::size_t end = 0, rounded_sum = 0;
    for (size_t i = 0; i < bs.size(); ++i) {
        EXPECT_EQ(p.offsets[i] % align, 0u) << "buffer " << i;
        end = std::max(end, p.offsets[i] + bs[i].size);
        rounded_sum += round_up(bs[i].size, align);
    }
    EXPECT_EQ(p.size, end);
    EXPECT_LE(p.size, rounded_sum);
    for (size_t i = 0; i < bs.size(); ++i)
        for (size_t j = i + 1; j < bs.size(); ++j) {
            if (!live_together(bs[i], bs[j])) continue;
            if (bs[i].size == 0 || bs[j].size == 0) continue;
            const bool apart = p.offsets[i] + bs[i].size <= p.offsets[j]
                    || p.offsets[j] + bs[j].size <= p.offsets[i];
            EXPECT_TRUE(apart) << "buffers " << i << " [" << p.offsets[i]
                               << ", +" << bs[i].size << ") and " << j << " ["
                               << p.offsets[j] << ", +" << bs[j].size
                               << ") are live at once and overlap";
        }
}

TEST(Arena, Empty) {
    const arena_plan_t p = plan_arena({});
    EXPECT_TRUE(p.offsets.empty());
    EXPECT_EQ(p.size, 0u);
}

TEST(Arena, DisjointLifetimesShareMemory) {
    const std::vector<arena_buffer_t> bs
            = {buf(100, 0, 1), buf(100, 2, 3), buf(60, 4, 4)};
    const arena_plan_t p = plan_arena(bs);
    check_plan(bs, p, 64);
    EXPECT_EQ(p.offsets, (std::vector<std::size_t> {0, 0, 0}));
    EXPECT_EQ(p.size, 100u);
}

TEST(Arena, OverlappingLifetimesNeverOverlap) {
    // The lifetimes share step 2 (both ends are included).
    const std::vector<arena_buffer_t> bs = {buf(100, 0, 2), buf(100, 2, 4)};
    const arena_plan_t p = plan_arena(bs);
    check_plan(bs, p, 64);
    EXPECT_EQ(p.offsets, (std::vector<std::size_t> {0, 128}));
    EXPECT_EQ(p.size, 228u);
}

TEST(Arena, LargestFirstTiesInOrder) {
    const std::vector<arena_buffer_t> bs
            = {buf(10, 0, 5), buf(1000, 0, 5), buf(10, 0, 5)};
    const arena_plan_t p = plan_arena(bs);
    check_plan(bs, p, 64);
    EXPECT_EQ(p.offsets, (std::vector<std::size_t> {1024, 0, 1088}));
    EXPECT_EQ(p.size, 1098u);
}

TEST(Arena, LowestFreeOffsetFillsGaps) {
    // b ends before d starts, so d takes b's place between a and c.
    const std::vector<arena_buffer_t> bs = {buf(256, 0, 9), buf(128, 0, 1),
            buf(128, 0, 9), buf(128, 2, 3)};
    const arena_plan_t p = plan_arena(bs);
    check_plan(bs, p, 64);
    EXPECT_EQ(p.offsets, (std::vector<std::size_t> {0, 256, 384, 256}));
    EXPECT_EQ(p.size, 512u);
}

TEST(Arena, Alignment) {
    const std::vector<arena_buffer_t> bs
            = {buf(1, 0, 3), buf(3, 1, 2), buf(17, 2, 5), buf(65, 0, 9)};
    for (std::size_t align : {1u, 16u, 64u, 4096u}) {
        SCOPED_TRACE(align);
        const arena_plan_t p = plan_arena(bs, align);
        check_plan(bs, p, align);
    }
    const arena_plan_t p = plan_arena(bs, 4096);
    EXPECT_EQ(p.offsets, (std::vector<std::size_t> {12288, 8192, 4096, 0}));
    EXPECT_EQ(p.size, 12289u);
    // Without alignment, the buffers pack tightly.
    EXPECT_EQ(plan_arena(bs, 1).size, 86u);
}

TEST(Arena, ZeroSizeBuffers) {
    const std::vector<arena_buffer_t> bs
            = {buf(0, 0, 5), buf(100, 0, 5), buf(0, 1, 1), buf(0, 7, 7)};
    const arena_plan_t p = plan_arena(bs);
    check_plan(bs, p, 64);
    EXPECT_EQ(p.size, 100u);
    const std::vector<arena_buffer_t> none = {buf(0, 0, 0), buf(0, 0, 3)};
    EXPECT_EQ(plan_arena(none).size, 0u);
}

TEST(Arena, RandomStress) {
    std::mt19937 rng(2024);
    for (int trial = 0; trial < 300; ++trial) {
        SCOPED_TRACE(trial);
        const int n = std::uniform_int_distribution<int>(1, 60)(rng);
        const int steps = std::uniform_int_distribution<int>(1, 40)(rng);
        const std::size_t align = std::size_t(1)
                << std::uniform_int_distribution<int>(0, 7)(rng);
        std::vector<arena_buffer_t> bs;
        for (int i = 0; i < n; ++i) {
            int a = std::uniform_int_distribution<int>(0, steps - 1)(rng);
            int b = std::uniform_int_distribution<int>(0, steps - 1)(rng);
            if (a > b) std::swap(a, b);
            const std::size_t size = rng() % 8 == 0
                    ? 0
                    : std::uniform_int_distribution<std::size_t>(1, 5000)(rng);
            bs.push_back(buf(size, a, b));
        }
        const arena_plan_t p = plan_arena(bs, align);
        check_plan(bs, p, align);
        // The buffers live at any one step fit side by side.
        for (int s = 0; s < steps; ++s) {
            std::size_t live = 0;
            for (const arena_buffer_t &b : bs)
                if (b.first <= s && s <= b.last) live += b.size;
            EXPECT_GE(p.size, live) << "step " << s;
        }
        // The plan depends only on its input.
        const arena_plan_t q = plan_arena(bs, align);
        EXPECT_EQ(p.offsets, q.offsets);
        EXPECT_EQ(p.size, q.size);
    }
}

} // namespace
