// The shares of `rndnn gen` and `rndnn dropout` under mpirun (tools/common/shard.hpp):
// every split of random global shapes for K = 1..7 partitions the tensor
// into contiguous pieces, and bit files into byte-disjoint ranges.
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "tools/common/cli_common.hpp"
#include "tools/common/shard.hpp"

namespace rndnn_cli {
namespace {

using rndnn::dim_t;
using rndnn::dims;

// Row-major index of @p idx in @p global.
std::int64_t flat(const dims &global, const dims &idx) {
    std::int64_t f = 0;
    for (size_t d = 0; d < global.size(); ++d)
        f = f * global[d] + idx[d];
    return f;
}

// Calls @p fn with every index of @p box, in row-major order.
template <typename F>
void for_each_index(const box_t &box, F fn) {
    if (box.nelems() == 0) return;
    dims idx = box.origin;
    while (true) {
        fn(idx);
        size_t d = idx.size();
        while (d > 0) {
            --d;
            if (++idx[d] < box.origin[d] + box.dims[d]) break;
            idx[d] = box.origin[d];
            if (d == 0) return;
        }
    }
}

TEST(Shard, ParseSplitNamesTheBadText) {
    EXPECT_EQ(parse_split("cols"), split_t::cols);
    try {
        parse_split("row");
        FAIL();
    } catch (const usage_error &e) {
        EXPECT_NE(std::string(e.what()).find("'row'"), std::string::npos);
    }
}

TEST(Shard, PartsAreBalanced) {
    for (std::int64_t n : {0LL, 1LL, 7LL, 100LL, (1LL << 62) + 3})
        for (int k = 1; k <= 7; ++k) {
            EXPECT_EQ(part_begin(n, 0, k), 0);
            EXPECT_EQ(part_begin(n, k, k), n);
            for (int r = 0; r < k; ++r) {
                const std::int64_t len
                        = part_begin(n, r + 1, k) - part_begin(n, r, k);
                EXPECT_TRUE(len == n / k || len == n / k + 1) << n << " " << k;
            }
        }
}

TEST(Shard, BlocksUseANearSquareGrid) {
    const dims g = {12, 5, 12};
    // K = 4: a 2 x 2 grid; rank 3 holds the second half of dims 0 and 2.
    const box_t b = rank_box(g, split_t::blocks, 3, 4);
    EXPECT_EQ(b.origin, (dims {6, 0, 6}));
    EXPECT_EQ(b.dims, (dims {6, 5, 6}));
    // K = 3 (prime): 1 x 3, a column split.
    EXPECT_EQ(rank_box(g, split_t::blocks, 1, 3).dims, (dims {12, 5, 4}));
}

// Every piece of every rank is a box whose elements are exactly
// [first, first + count) in G; together they cover G once. Bit files:
// the byte-aligned ranges cover every element once and share no byte.
TEST(Shard, SplitsPartitionRandomShapesIntoContiguousPieces) {
    std::mt19937_64 rng(42);
    for (int iter = 0; iter < 600; ++iter) {
        // Half the runs: pieces of many rows, not contiguous.
        const bool contiguous = iter % 2 == 0;
        const int rank = 1 + static_cast<int>(rng() % 4);
        dims g(rank);
        for (dim_t &d : g)
            d = static_cast<dim_t>(rng() % 7 == 0 ? 1 : 1 + rng() % 9);
        if (rng() % 10 == 0) g[rng() % rank] = 0;
        std::int64_t n = 1;
        for (dim_t d : g)
            n *= d;
        const int k = 1 + static_cast<int>(rng() % 7);
        const split_t split = static_cast<split_t>(rng() % 3);
        const std::int64_t max_elems = 1 + static_cast<std::int64_t>(rng() % 40);
        SCOPED_TRACE(testing::Message()
                << "G rank " << rank << " n " << n << " K " << k << " split "
                << split2str(split) << " max " << max_elems
                << (contiguous ? "" : " not contiguous"));

        std::vector<int> owner(n, -1);
        std::vector<int> byte_owner((n + 7) / 8, -1);
        std::vector<int> bit_owner(n, -1);
        for (int r = 0; r < k; ++r) {
            const box_t box = rank_box(g, split, r, k);
            piece_iterator it(g, box, max_elems, contiguous);
            piece_t p;
            std::int64_t total = 0;
            while (it.next(p)) {
                ASSERT_GE(p.count, 1);
                ASSERT_LE(p.count, max_elems);
                ASSERT_EQ(p.count, p.box.nelems());
                ASSERT_EQ(p.first, flat(g, p.box.origin));
                std::int64_t expect = p.first;
                for_each_index(p.box, [&](const dims &idx) {
                    const std::int64_t f = flat(g, idx);
                    if (contiguous) {
                        ASSERT_EQ(f, expect);
                    }
                    ASSERT_GE(f, expect);
                    expect = f + 1;
                    ASSERT_EQ(owner[f], -1) << "element " << f << " twice";
                    owner[f] = r;
                    for (size_t d = 0; d < idx.size(); ++d) {
                        ASSERT_GE(idx[d], box.origin[d]);
                        ASSERT_LT(idx[d], box.origin[d] + box.dims[d]);
                    }
                });
                total += p.count;
                if (!contiguous) continue;

                std::int64_t count = p.count;
                const std::int64_t first = byte_align(p.first, count, n);
                if (count == 0) continue;
                ASSERT_EQ(first % 8, 0);
                ASSERT_TRUE((first + count) % 8 == 0 || first + count == n);
                for (std::int64_t i = first; i < first + count; ++i) {
                    ASSERT_EQ(bit_owner[i], -1);
                    bit_owner[i] = r;
                }
                for (std::int64_t b = first / 8; b < (first + count + 7) / 8;
                        ++b) {
                    ASSERT_TRUE(byte_owner[b] == -1 || byte_owner[b] == r)
                            << "byte " << b << " of ranks " << byte_owner[b]
                            << " and " << r;
                    byte_owner[b] = r;
                }
            }
            EXPECT_EQ(total, box.nelems());
        }
        for (std::int64_t i = 0; i < n; ++i) {
            ASSERT_NE(owner[i], -1) << "element " << i << " of no rank";
            if (contiguous) {
                ASSERT_NE(bit_owner[i], -1) << "bit " << i << " of no rank";
            }
        }
    }
}

// A piece never holds more than the limit, even where one row alone is
// longer: the split moves inward. Not contiguous: a column block's piece
// holds many rows.
TEST(Shard, LongRowsAreCutInward) {
    const dims g = {3, 1000};
    piece_iterator it(g, rank_box(g, split_t::rows, 0, 1), 300);
    piece_t p;
    std::vector<std::int64_t> firsts;
    while (it.next(p))
        firsts.push_back(p.first);
    EXPECT_EQ(firsts, (std::vector<std::int64_t> {0, 300, 600, 900, 1000,
                              1300, 1600, 1900, 2000, 2300, 2600, 2900}));

    const dims c = {100, 8};
    piece_iterator cols(c, rank_box(c, split_t::cols, 1, 4), 90, false);
    ASSERT_TRUE(cols.next(p));
    EXPECT_EQ(p.box.origin, (dims {0, 2}));
    EXPECT_EQ(p.box.dims, (dims {45, 2}));
}

// The boxes of a row-major range are the range, in order, and few.
TEST(Shard, RangeBoxesAreTheRange) {
    std::mt19937_64 rng(7);
    for (int iter = 0; iter < 500; ++iter) {
        const int rank = 1 + static_cast<int>(rng() % 4);
        dims d(rank);
        std::int64_t n = 1;
        for (dim_t &x : d)
            n *= (x = static_cast<dim_t>(1 + rng() % 6));
        const std::int64_t first = static_cast<std::int64_t>(rng() % (n + 1));
        const std::int64_t count
                = static_cast<std::int64_t>(rng() % (n - first + 1));
        std::int64_t next = first;
        int boxes = 0;
        for_each_range_box(d, first, count, [&](const box_t &b, std::int64_t f) {
            ++boxes;
            ASSERT_EQ(f, next);
            for_each_index(b, [&](const dims &idx) {
                ASSERT_EQ(flat(d, idx), next++);
            });
        });
        EXPECT_EQ(next, first + count);
        EXPECT_LE(boxes, 2 * rank - 1);
    }
}

} // namespace
} // namespace rndnn_cli
