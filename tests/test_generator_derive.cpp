// Derived generators (docs/semantics.md, "Derived generators"):
// generator::fold_in and generator::spawn against the definition computed
// with Random123 (the oracle), against the RNG's own stream at the tag,
// and their contract (offsets, distinct children, string keys, errors).
#include <cstdint>
#include <cstring>
#include <limits>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "rndnn/rndnn.hpp"
#include "tests/test_utils.hpp"

#include <Random123/philox.h>
#undef philox4x32

namespace {

using namespace rndnn;
using namespace rndnn::test;

constexpr int64_t s64_max = std::numeric_limits<int64_t>::max();

// derive(seed, tag, key) as docs/semantics.md defines it, by Random123:
// words 0 and 1 of Philox4x32-10 keyed {lo32(seed), hi32(seed)} at the
// counter {lo32(key), hi32(key), lo32(tag), hi32(tag)}.
int64_t oracle(int64_t seed, uint64_t tag, uint64_t key) {
    const auto s = static_cast<uint64_t>(seed);
    const philox4x32_ctr_t c = {{uint32_t(key), uint32_t(key >> 32),
            uint32_t(tag), uint32_t(tag >> 32)}};
    const philox4x32_key_t k = {{uint32_t(s), uint32_t(s >> 32)}};
    const philox4x32_ctr_t w = philox4x32_R(10, c, k);
    return static_cast<int64_t>(uint64_t(w.v[0]) | uint64_t(w.v[1]) << 32);
}

const int64_t seeds[] = {0, 1, -1, 42, INT64_MIN, s64_max,
        0x123456789abcdefLL, -0x5deece66dLL};
const uint64_t keys[] = {0, 1, 2, 7, 0xffffffffu, uint64_t(1) << 32,
        0x0123456789abcdefu, ~uint64_t(0)};

// The tags are the ASCII words, read as little-endian u64.
TEST(GeneratorDerive, TagsAreAsciiWords) {
    uint64_t fold = 0, spawn = 0;
    std::memcpy(&fold, "rndnfold", 8);
    std::memcpy(&spawn, "rndnspwn", 8);
    EXPECT_EQ(generator::fold_tag, fold);
    EXPECT_EQ(generator::spawn_tag, spawn);
    EXPECT_EQ(generator::fold_tag, 0x646c6f666e646e72u);
    EXPECT_EQ(generator::spawn_tag, 0x6e7770736e646e72u);
}

TEST(GeneratorDerive, FoldInIsTheDefinition) {
    for (int64_t s : seeds)
        for (uint64_t k : keys) {
            const generator g = generator(s, 99).fold_in(k);
            EXPECT_EQ(g, generator(oracle(s, generator::fold_tag, k), 0))
                    << "seed " << s << " key " << k;
        }
}

// The numbers python/tests/test_generator_derive.py checks too.
TEST(GeneratorDerive, KnownAnswers) {
    EXPECT_EQ(generator(0).fold_in(0).get_seed(), -2919298508387269169);
    EXPECT_EQ(generator(42).fold_in(7).get_seed(), -4037562740363405058);
    EXPECT_EQ(generator(-1).fold_in(~uint64_t(0)).get_seed(),
            4753374143770492271);
    EXPECT_EQ(generator(42).fold_in("a").get_seed(), 2749295462218776753);
    generator g(42);
    const std::vector<generator> kids = g.spawn(3);
    ASSERT_EQ(kids.size(), 3u);
    EXPECT_EQ(kids[0], generator(4651482588039019271));
    EXPECT_EQ(kids[1], generator(5557886579736776431));
    EXPECT_EQ(kids[2], generator(7847109226280074558));
}

// The counter (key, tag) is block key of the RNG's stream tag: the derived
// seed is its elements 4 key and 4 key + 1, as the docs say.
TEST(GeneratorDerive, SeedIsTheRngStreamAtTheTag) {
    const memory::desc md({2}, data_type::u32);
    for (int64_t s : {int64_t(0), int64_t(42), int64_t(-7)})
        for (uint64_t tag : {generator::fold_tag, generator::spawn_tag})
            for (int64_t k : {int64_t(0), int64_t(5), int64_t(1) << 40}) {
                uint32_t w[2];
                run_args_t r;
                r.seed = s;
                r.offset = 4 * k;
                r.stream = static_cast<int64_t>(tag);
                generate(rng::desc(rng_alg::philox4x32_10, md), {}, w, r);
                const int64_t want = static_cast<int64_t>(
                        uint64_t(w[0]) | uint64_t(w[1]) << 32);
                EXPECT_EQ(oracle(s, tag, uint64_t(k)), want);
                if (tag == generator::fold_tag) {
                    EXPECT_EQ(generator(s).fold_in(uint64_t(k)).get_seed(),
                            want);
                }
            }
}

TEST(GeneratorDerive, FoldInDependsOnSeedAndKeyOnly) {
    generator g(5, 1000);
    const generator before = g;
    const generator child = g.fold_in(3);
    EXPECT_EQ(g, before); // const: the parent does not move
    EXPECT_EQ(child.get_offset(), 0);
    EXPECT_EQ(generator(5, 0).fold_in(3), child);
    EXPECT_EQ(generator(5, s64_max).fold_in(3), child);
    // Nor on what was folded, spawned or reserved before.
    g.fold_in(4);
    g.spawn(10);
    g.reserve(77);
    EXPECT_EQ(g.fold_in(3), child);
    EXPECT_NE(g.fold_in(4), child);
    EXPECT_NE(generator(6).fold_in(3), child);
    // Chains: a child's fold is keyed by the child's seed.
    EXPECT_EQ(child.fold_in(9),
            generator(oracle(child.get_seed(), generator::fold_tag, 9)));
}

// fold_in(bytes): chunks of 8, little-endian, zero-padded, then the size.
int64_t fold_bytes(int64_t seed, const std::string &b) {
    for (size_t at = 0; at < b.size(); at += 8) {
        uint64_t c = 0;
        for (size_t j = 0; j < 8 && at + j < b.size(); ++j)
            c |= uint64_t(static_cast<unsigned char>(b[at + j])) << (8 * j);
        seed = oracle(seed, generator::fold_tag, c);
    }
    return oracle(seed, generator::fold_tag, b.size());
}

TEST(GeneratorDerive, FoldInTextIsChunksThenSize) {
    const generator g(42, 3);
    const std::string texts[] = {"", "a", std::string("a\0", 2), "dropout",
            "abcdefgh", "abcdefghi", "layer.17.attention.dropout",
            "\xc3\xa9t\xc3\xa9", std::string(16, '\0')};
    std::set<int64_t> seen;
    for (const std::string &t : texts) {
        const generator c = g.fold_in(std::string_view(t));
        EXPECT_EQ(c, generator(fold_bytes(42, t))) << t.size();
        EXPECT_EQ(g.fold_in(t), c); // std::string converts
        seen.insert(c.get_seed());
    }
    EXPECT_EQ(seen.size(), std::size(texts));
    // The integer chain it stands for.
    EXPECT_EQ(g.fold_in("a"), g.fold_in(0x61).fold_in(1));
    EXPECT_EQ(g.fold_in("abcdefghi"),
            g.fold_in(0x6867666564636261u).fold_in(0x69).fold_in(9));
    EXPECT_EQ(g.fold_in(""), g.fold_in(0)); // as documented
    EXPECT_NE(g.fold_in("a"), g.fold_in(std::string_view("a\0", 2)));
    EXPECT_NE(g.fold_in("a"), g.fold_in(0x61));
}

TEST(GeneratorDerive, SpawnReservesAndCountsItsChildren) {
    generator g(42, 10);
    const generator::state saved = g.save();
    const std::vector<generator> a = g.spawn(3);
    EXPECT_EQ(g, generator(42, 13));
    ASSERT_EQ(a.size(), 3u);
    for (int64_t i = 0; i < 3; ++i)
        EXPECT_EQ(a[size_t(i)],
                generator(oracle(42, generator::spawn_tag, uint64_t(10 + i))));
    const std::vector<generator> b = g.spawn(2);
    EXPECT_EQ(g.get_offset(), 15);
    ASSERT_EQ(b.size(), 2u);
    EXPECT_EQ(b[0], generator(oracle(42, generator::spawn_tag, 13)));
    // All five distinct, and not fold_in's seeds at the same keys.
    std::set<int64_t> seen;
    for (const auto *v : {&a, &b})
        for (const generator &c : *v) seen.insert(c.get_seed());
    EXPECT_EQ(seen.size(), 5u);
    EXPECT_NE(a[0].get_seed(), generator(42).fold_in(10).get_seed());
    // A saved state spawns the same children again.
    generator again = generator::load(saved);
    EXPECT_EQ(again.spawn(3), a);
    EXPECT_EQ(again.spawn(2), b);
    // A child spawns its own.
    generator child = a[0];
    const std::vector<generator> grand = child.spawn(1);
    EXPECT_EQ(grand[0],
            generator(oracle(a[0].get_seed(), generator::spawn_tag, 0)));
    EXPECT_EQ(child.get_offset(), 1);
    // None: nothing moves.
    EXPECT_TRUE(g.spawn(0).empty());
    EXPECT_EQ(g.get_offset(), 15);
}

TEST(GeneratorDerive, SpawnErrorsLeaveTheStateUnchanged) {
    generator g(1, 5);
    EXPECT_ERROR_NAMES(g.spawn(-1), "negative");
    EXPECT_EQ(g, generator(1, 5));
    generator full(1, s64_max - 2);
    EXPECT_ERROR_NAMES(full.spawn(3), "2^63 - 1");
    EXPECT_EQ(full, generator(1, s64_max - 2));
    EXPECT_EQ(full.spawn(2).size(), 2u); // up to the last element
    EXPECT_EQ(full.get_offset(), s64_max);
    // More children than a vector can hold: refused before allocating.
    generator big(1);
    const std::string msg
            = error_of([&] { big.spawn(int64_t(1) << 62); },
                    status::out_of_memory);
    EXPECT_NE(msg.find("4611686018427387904"), std::string::npos) << msg;
    EXPECT_EQ(big, generator(1));
}

} // namespace
