// Engine tests: published known answers, Random123 and std::mt19937 as
// oracles, and the word-source semantics of docs/semantics.md.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <initializer_list>
#include <iostream>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "rng/engines/mcg31m1.hpp"
#include "rng/engines/mt19937.hpp"
#include "rng/engines/multfly.hpp"
#include "rng/engines/philox.hpp"
#include "rng/engines/threefry.hpp"
#include "rng/engines/word_source.hpp"
#include "tests/test_utils.hpp"

// Random123 (the oracle) defines function-like macros philox4x32(c, k) and
// threefry4x32(c, k); it comes after our headers and the macros go, so
// they cannot rewrite our templates of the same names.
#include <Random123/philox.h>
#include <Random123/threefry.h>
#undef philox4x32
#undef threefry4x32

namespace {

using rndnn::rng_alg;
namespace impl = rndnn::impl;

using words_t = std::vector<uint32_t>;

uint32_t lo32(uint64_t v) { return uint32_t(v); }
uint32_t hi32(uint64_t v) { return uint32_t(v >> 32); }
uint64_t s64_seed(int64_t s) { return uint64_t(s); }

words_t fill(impl::word_source_t &src, uint64_t first, size_t n) {
    words_t w(n);
    src.fill(first, n, w.data());
    return w;
}

// isa: the tier of mt19937's word code (ignored by the other algorithms).
words_t fill(rng_alg alg, uint64_t seed, uint64_t stream, uint64_t first,
        size_t n, const std::string &name = "",
        rndnn::cpu_isa isa = rndnn::cpu_isa::none) {
    auto src = impl::make_word_source(alg, seed, stream, name, isa);
    return fill(*src, first, n);
}

// The mt19937 tests that run at every tier of test::tier_params() (the
// parameter: the tier of the word code, none for the scalar code).
class engines_mt19937_tier : public rndnn::test::tier_suite_t {
};

// ---------------------------------------------------------------------------
// Known answers (tests/data/known-answers.md, tests/data/multfly.md)

struct kat4_t {
    uint32_t ctr[4];
    uint32_t key[4];
    uint32_t out[4];
};

// Checks the four words of @p block (ctr, key, out) against each answer.
template <typename block_fn_t, size_t n>
void expect_kats(const kat4_t (&kats)[n], block_fn_t block) {
    for (const kat4_t &k : kats) {
        uint32_t out[4];
        block(k.ctr, k.key, out);
        for (int i = 0; i < 4; ++i)
            EXPECT_EQ(out[i], k.out[i]) << "word " << i;
    }
}

TEST(engines_kat, philox4x32_10) {
    const kat4_t kats[] = {
        {{0, 0, 0, 0}, {0, 0},
                {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
        {{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
                {0xffffffff, 0xffffffff},
                {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
        {{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
                {0xa4093822, 0x299f31d0},
                {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
    };
    expect_kats(kats, impl::philox4x32_10);
    expect_kats(kats, impl::philox4x32<10>);
}

TEST(engines_kat, threefry4x32_20) {
    const kat4_t kats[] = {
        {{0, 0, 0, 0}, {0, 0, 0, 0},
                {0x9c6ca96a, 0xe17eae66, 0xfc10ecd4, 0x5256a7d8}},
        {{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
                {0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
                {0x2a881696, 0x57012287, 0xf6c7446e, 0xa16a6732}},
        {{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
                {0xa4093822, 0x299f31d0, 0x082efa98, 0xec4e6c89},
                {0x59cd1dbb, 0xb8879579, 0x86b5d00c, 0xac8b6d84}},
    };
    expect_kats(kats, impl::threefry4x32_20);
}

// Other round counts against Random123 (the templates take any R).
TEST(engines_kat, round_counts_match_random123) {
    const uint32_t c[4] = {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344};
    const uint32_t k[4] = {0xa4093822, 0x299f31d0, 0x082efa98, 0xec4e6c89};
    const philox4x32_ctr_t pc = {{c[0], c[1], c[2], c[3]}};
    const philox4x32_key_t pk = {{k[0], k[1]}};
    const threefry4x32_ctr_t tc = {{c[0], c[1], c[2], c[3]}};
    const threefry4x32_key_t tk = {{k[0], k[1], k[2], k[3]}};
    uint32_t out[4];
    impl::philox4x32<7>(c, k, out);
    EXPECT_EQ(out[3], philox4x32_R(7, pc, pk).v[3]);
    impl::threefry4x32<13>(c, k, out);
    EXPECT_EQ(out[1], threefry4x32_R(13, tc, tk).v[1]);
    impl::threefry4x32<12>(c, k, out);
    EXPECT_EQ(out[2], threefry4x32_R(12, tc, tk).v[2]);
}

TEST_P(engines_mt19937_tier, kat_5489_output_9999) {
    const rndnn::cpu_isa isa = GetParam();
    impl::mt19937_t gen(5489, isa);
    gen.seek(9999);
    EXPECT_EQ(gen.next(), 4123659995u);
    impl::mt19937_t walk(5489, isa);
    words_t w(10000);
    walk.generate(w.size(), w.data());
    EXPECT_EQ(w[9999], 4123659995u);
    EXPECT_EQ(fill(rng_alg::mt19937, 5489, 0, 9999, 1, "", isa)[0],
            4123659995u);
}

TEST(engines_kat, mt19937ar_init_by_array) {
    const uint32_t key[4] = {0x123, 0x234, 0x345, 0x456};
    uint32_t st[impl::mt19937_n];
    impl::mt19937_init_by_array(key, 4, st);
    impl::mt19937_regenerate(st);
    const uint32_t expect[5]
            = {1067595299u, 955945823u, 477289528u, 4107218783u, 4228976476u};
    for (int i = 0; i < 5; ++i)
        EXPECT_EQ(impl::mt19937_temper(st[i]), expect[i]) << "output " << i;
}

TEST(engines_kat, multfly) {
    uint32_t key[8];
    impl::multfly_initkey(nullptr, 0, 0, 0, key);
    const uint32_t key0[8] = {0x5A7F760C, 0xE3ABAB0B, 0xECBCFCC9, 0x7CD8982B,
            0xE428B5C8, 0xA1C1A56E, 0x0A66CADF, 0x16926033};
    for (int i = 0; i < 8; ++i)
        EXPECT_EQ(key[i], key0[i]) << "key word " << i;

    uint32_t out[4];
    impl::multfly_gen32(key, 0, 0, out);
    const uint32_t out0[4] = {0x28DAC85C, 0x0D05143D, 0xF13F16D2, 0x5790CBA7};
    for (int i = 0; i < 4; ++i)
        EXPECT_EQ(out[i], out0[i]) << "idx 0 word " << i;
    impl::multfly_gen32(key, 100, 0, out);
    const uint32_t out100[4]
            = {0xAC05F32E, 0xCAF615DD, 0x81CCDA48, 0xDC5C5E1A};
    for (int i = 0; i < 4; ++i)
        EXPECT_EQ(out[i], out100[i]) << "idx 100 word " << i;

    const std::string name = "abcdefghijklmnopqrstuvwxyz123456";
    impl::multfly_initkey(reinterpret_cast<const uint8_t *>(name.data()),
            name.size(), 78, 90, key);
    const uint32_t named[8] = {0x1FCE68FA, 0x01D594AD, 0x8FEC7E65,
            0x0FFC302B, 0x0201AC2E, 0x5DE5F28B, 0xD44262CC, 0xA0F8A154};
    for (int i = 0; i < 8; ++i)
        EXPECT_EQ(key[i], named[i]) << "named key word " << i;
}

TEST(engines_multfly, word_source_layout) {
    const std::string name = "layer.3/dropout";
    uint32_t key[8];
    impl::multfly_initkey(reinterpret_cast<const uint8_t *>(name.data()),
            name.size(), s64_seed(-5), 77, key);
    const uint64_t first = (uint64_t(1) << 34) - 6;
    const words_t w
            = fill(rng_alg::multfly, s64_seed(-5), 77, first, 23, name);
    for (size_t i = 0; i < w.size(); ++i) {
        const uint64_t g = first + i;
        uint32_t out[4];
        impl::multfly_gen32(key, g / 4, 0, out);
        ASSERT_EQ(w[i], out[g % 4]) << "g " << g;
    }
    // No name equals an all-zero name of any length; the name matters.
    EXPECT_EQ(fill(rng_alg::multfly, 1, 2, 0, 8),
            fill(rng_alg::multfly, 1, 2, 0, 8, std::string(32, '\0')));
    EXPECT_NE(fill(rng_alg::multfly, 1, 2, 0, 8, "a"),
            fill(rng_alg::multfly, 1, 2, 0, 8, "b"));
    EXPECT_THROW(impl::make_word_source(
                         rng_alg::multfly, 0, 0, std::string(33, 'x')),
            std::invalid_argument);
}

TEST(engines_multfly, splitkey) {
    uint32_t key[8], parent[8], child[8], again[8];
    impl::multfly_initkey(nullptr, 0, 3, 4, key);
    impl::multfly_splitkey(key, parent, child);
    EXPECT_FALSE(std::equal(parent, parent + 8, child));
    EXPECT_FALSE(std::equal(parent, parent + 8, key));
    // In place: parent aliasing key.
    std::copy(key, key + 8, again);
    uint32_t child2[8];
    impl::multfly_splitkey(again, again, child2);
    EXPECT_TRUE(std::equal(parent, parent + 8, again));
    EXPECT_TRUE(std::equal(child, child + 8, child2));
}

// ---------------------------------------------------------------------------
// Counter-based word sources against Random123

const int64_t test_seeds[] = {0, 1, -1, 42, INT64_MIN, INT64_MAX,
        0x123456789abcdefLL, -0x5deece66dLL, int64_t(-2147483648LL)};
const uint64_t test_streams[]
        = {0, 1, 99, (uint64_t(1) << 32) + 5, ~uint64_t(0)};
const uint64_t test_offsets[] = {0, 1, 2, 3, 5, 4093,
        (uint64_t(1) << 32) - 7,         // g crosses 2^32
        (uint64_t(1) << 34) - 9,         // g / 4 crosses 2^32
        (uint64_t(1) << 40) - 3,         // g crosses 2^40
        (uint64_t(1) << 42) + 1, (uint64_t(1) << 62) + 3,
        ~uint64_t(0) - 40};
const size_t test_lengths[] = {1, 3, 4, 7, 13, 37};

uint32_t r123_philox(uint64_t seed, uint64_t stream, uint64_t g) {
    const philox4x32_ctr_t c
            = {{lo32(g / 4), hi32(g / 4), lo32(stream), hi32(stream)}};
    const philox4x32_key_t k = {{lo32(seed), hi32(seed)}};
    return philox4x32_R(10, c, k).v[g % 4];
}

uint32_t r123_philox_onednn(uint64_t seed, uint64_t stream, uint64_t g) {
    const uint64_t base = g & ~uint64_t(3);
    const philox4x32_ctr_t c
            = {{lo32(stream), hi32(stream), lo32(base), hi32(base)}};
    const philox4x32_key_t k = {{lo32(seed), hi32(seed)}};
    return philox4x32_R(10, c, k).v[g % 4];
}

uint32_t r123_threefry(uint64_t seed, uint64_t stream, uint64_t g) {
    const threefry4x32_ctr_t c
            = {{lo32(g / 4), hi32(g / 4), lo32(stream), hi32(stream)}};
    const threefry4x32_key_t k = {{lo32(seed), hi32(seed), 0, 0}};
    return threefry4x32_R(20, c, k).v[g % 4];
}

template <typename oracle_t>
void check_against_oracle(rng_alg alg, oracle_t oracle) {
    for (int64_t s : test_seeds) {
        const uint64_t seed = s64_seed(s);
        for (uint64_t stream : test_streams) {
            auto src = impl::make_word_source(alg, seed, stream, "");
            for (uint64_t off : test_offsets) {
                for (size_t n : test_lengths) {
                    const words_t w = fill(*src, off, n);
                    for (size_t i = 0; i < n; ++i)
                        ASSERT_EQ(w[i], oracle(seed, stream, off + i))
                                << "seed " << s << " stream " << stream
                                << " g " << off + i;
                }
            }
        }
    }
}

TEST(engines_word_source, philox4x32_10_vs_random123) {
    check_against_oracle(rng_alg::philox4x32_10, r123_philox);
}

TEST(engines_word_source, philox4x32_10_onednn_vs_random123) {
    check_against_oracle(rng_alg::philox4x32_10_onednn, r123_philox_onednn);
}

TEST(engines_word_source, threefry4x32_20_vs_random123) {
    check_against_oracle(rng_alg::threefry4x32_20, r123_threefry);
}

TEST(engines_word_source, long_fill_vs_random123) {
    // A typical kernel call: 4096 words from an unaligned start.
    const uint64_t seed = s64_seed(-7), stream = 3;
    const uint64_t first = (uint64_t(1) << 32) - 1001;
    const words_t p = fill(rng_alg::philox4x32_10, seed, stream, first, 4099);
    const words_t o
            = fill(rng_alg::philox4x32_10_onednn, seed, stream, first, 4099);
    const words_t t
            = fill(rng_alg::threefry4x32_20, seed, stream, first, 4099);
    for (size_t i = 0; i < p.size(); ++i) {
        ASSERT_EQ(p[i], r123_philox(seed, stream, first + i)) << i;
        ASSERT_EQ(o[i], r123_philox_onednn(seed, stream, first + i)) << i;
        ASSERT_EQ(t[i], r123_threefry(seed, stream, first + i)) << i;
    }
}

// ---------------------------------------------------------------------------
// mcg31m1

uint32_t mcg_oracle(uint64_t seed, uint64_t g) {
    __extension__ using u128 = unsigned __int128;
    const uint64_t m = 2147483647u;
    uint64_t s = seed % m;
    if (s == 0) s = 1;
    u128 r = 1, b = 1132489760u;
    for (uint64_t e = g; e != 0; e >>= 1) {
        if (e & 1) r = r * b % m;
        b = b * b % m;
    }
    return uint32_t(r * s % m);
}

TEST(engines_mcg31m1, state_and_pow) {
    EXPECT_EQ(impl::mcg31m1_m, 2147483647u);
    EXPECT_EQ(impl::mcg31m1_state(0), 1u);
    EXPECT_EQ(impl::mcg31m1_state(impl::mcg31m1_m), 1u);
    EXPECT_EQ(impl::mcg31m1_state(uint64_t(impl::mcg31m1_m) + 5), 5u);
    EXPECT_EQ(impl::mcg31m1_state(s64_seed(-1)),
            uint32_t(~uint64_t(0) % 2147483647u));
    EXPECT_EQ(impl::mcg31m1_pow(impl::mcg31m1_a, 0), 1u);
    // a is a primitive root: a^(m-1) == 1, a^((m-1)/2) == m-1.
    EXPECT_EQ(impl::mcg31m1_pow(impl::mcg31m1_a, impl::mcg31m1_m - 1), 1u);
    EXPECT_EQ(impl::mcg31m1_pow(impl::mcg31m1_a, (impl::mcg31m1_m - 1) / 2),
            impl::mcg31m1_m - 1);
    EXPECT_EQ(impl::mcg31m1_mul(impl::mcg31m1_m - 1, impl::mcg31m1_m - 1), 1u);
}

TEST(engines_mcg31m1, word_source_vs_int128) {
    const uint64_t m = impl::mcg31m1_m;
    const uint64_t seeds[] = {0, 1, m, m + 5, 2 * m, s64_seed(-1),
            s64_seed(-12345), s64_seed(INT64_MIN), 0xdeadbeefcafeULL};
    const uint64_t firsts[] = {0, 1, 2, 1000, impl::mcg31m1_m - 3,
            (uint64_t(1) << 32) + 1, (uint64_t(1) << 40) - 2,
            (uint64_t(1) << 62) - 5, (uint64_t(1) << 62), ~uint64_t(0) - 9};
    for (uint64_t seed : seeds) {
        EXPECT_EQ(fill(rng_alg::mcg31m1, seed, 0, 0, 1)[0],
                impl::mcg31m1_state(seed));
        for (uint64_t first : firsts) {
            const words_t w = fill(rng_alg::mcg31m1, seed, 17, first, 9);
            for (size_t i = 0; i < w.size(); ++i)
                ASSERT_EQ(w[i], mcg_oracle(seed, first + i))
                        << "seed " << seed << " g " << first + i;
        }
    }
}

// ---------------------------------------------------------------------------
// mt19937

// The reference algorithm, one output at a time, from a seeded state.
class mt_walk_t {
public:
    explicit mt_walk_t(uint64_t seed) {
        impl::mt19937_seed_state(seed, x_);
    }
    uint32_t next() {
        if (i_ == 624) {
            for (int k = 0; k < 624; ++k) {
                const uint32_t y = (x_[k] & 0x80000000u)
                        | (x_[(k + 1) % 624] & 0x7fffffffu);
                x_[k] = x_[(k + 397) % 624] ^ (y >> 1)
                        ^ ((y & 1u) ? 0x9908b0dfu : 0u);
            }
            i_ = 0;
        }
        return impl::mt19937_temper(x_[i_++]);
    }
    void discard(uint64_t n) {
        for (uint64_t k = 0; k < n; ++k)
            next();
    }

private:
    uint32_t x_[624];
    int i_ = 624;
};

// Every tier's vector regeneration and tempering (mt19937_simd) equal the
// scalar definitions: random states, many regenerations in a row, every
// length of tempering around the vector widths.
TEST_P(engines_mt19937_tier, simd_equals_scalar) {
    std::mt19937_64 g(17);
    const impl::mt19937_simd_t simd = impl::mt19937_simd(GetParam());
    for (int trial = 0; trial < 20; ++trial) {
        uint32_t want[impl::mt19937_n], got[impl::mt19937_n];
        for (uint32_t &w : want)
            w = static_cast<uint32_t>(g());
        std::copy(want, want + impl::mt19937_n, got);
        for (int round = 0; round < 3; ++round) {
            impl::mt19937_regenerate(want);
            simd.regenerate(got);
            ASSERT_TRUE(std::equal(want, want + impl::mt19937_n, got))
                    << "trial " << trial << " round " << round;
        }
    }
    std::vector<uint32_t> in(70), out(70);
    for (uint32_t &w : in)
        w = static_cast<uint32_t>(g());
    for (size_t count = 0; count <= in.size(); ++count) {
        std::fill(out.begin(), out.end(), 0xdeadbeefu);
        simd.temper(in.data(), count, out.data());
        for (size_t k = 0; k < in.size(); ++k)
            ASSERT_EQ(out[k],
                    k < count ? impl::mt19937_temper(in[k]) : 0xdeadbeefu)
                    << "count " << count << " k " << k;
    }
}

TEST(engines_mt19937, init_genrand_matches_std) {
    for (uint32_t seed : {5489u, 0u, 1u, 4294967295u}) {
        std::mt19937 ref(seed);
        mt_walk_t walk(seed);
        for (int i = 0; i < 2000; ++i)
            ASSERT_EQ(walk.next(), ref()) << "seed " << seed << " i " << i;
    }
}

TEST_P(engines_mt19937_tier, small_offsets_vs_std) {
    const uint64_t offsets[] = {0, 1, 622, 623, 624, 625, 1247, 19000,
            19313, 19314, 19936, 19937, 19938, 40000, (1 << 16) + 5, 200003,
            // The last gap seek() walks, and the first it jumps.
            1 << 20, (1 << 20) + 1};
    for (uint32_t seed : {5489u, 0u, 4294967295u}) {
        for (uint64_t off : offsets) {
            std::mt19937 ref(seed);
            ref.discard(off);
            const words_t w
                    = fill(rng_alg::mt19937, seed, 0, off, 700, "", GetParam());
            for (size_t i = 0; i < w.size(); ++i)
                ASSERT_EQ(w[i], ref())
                        << "seed " << seed << " g " << off + i;
        }
    }
}

TEST_P(engines_mt19937_tier, large_offset_vs_std) {
    const uint64_t off = 10000000 + 13;
    for (uint32_t seed : {5489u, 0u, 4294967295u}) {
        std::mt19937 ref(seed);
        ref.discard(off);
        // stream is ignored by mt19937.
        const words_t w = fill(
                rng_alg::mt19937, seed, 12345, off, 1500, "", GetParam());
        for (size_t i = 0; i < w.size(); ++i)
            ASSERT_EQ(w[i], ref()) << "seed " << seed << " g " << off + i;
    }
}

TEST_P(engines_mt19937_tier, large_seeds_vs_init_by_array_walk) {
    const int64_t seeds[] = {int64_t(1) << 32, -1, -2, INT64_MIN,
            0x123456789abcdefLL};
    for (int64_t s : seeds) {
        const uint64_t seed = s64_seed(s);
        // The state is init_by_array({lo32, hi32}).
        uint32_t st[624], ref_st[624];
        impl::mt19937_seed_state(seed, st);
        const uint32_t key[2] = {lo32(seed), hi32(seed)};
        impl::mt19937_init_by_array(key, 2, ref_st);
        ASSERT_TRUE(std::equal(st, st + 624, ref_st));

        mt_walk_t walk(seed);
        auto src = impl::make_word_source(
                rng_alg::mt19937, seed, 0, "", GetParam());
        uint64_t pos = 0;
        for (uint64_t first : {uint64_t(0), uint64_t(645), uint64_t(30000),
                     uint64_t(1000003)}) {
            walk.discard(first - pos);
            const words_t w = fill(*src, first, 641);
            for (size_t i = 0; i < w.size(); ++i)
                ASSERT_EQ(w[i], walk.next())
                        << "seed " << s << " g " << first + i;
            pos = first + w.size();
        }
    }
}

TEST(engines_mt19937, jump_consistency_at_2_40) {
    const uint64_t a = uint64_t(1) << 40;
    for (uint64_t seed : {uint64_t(5489), s64_seed(-3)}) {
        impl::mt19937_t gen(seed);
        const auto t0 = std::chrono::steady_clock::now();
        gen.seek(a);
        const auto t1 = std::chrono::steady_clock::now();
        std::cout << "[ info     ] mt19937 jump to 2^40 (seed " << seed
                  << "): "
                  << std::chrono::duration<double, std::milli>(t1 - t0)
                             .count()
                  << " ms" << std::endl;
        // jump(a) then walk k == jump(a + k), for k below and above one
        // state, and beyond the walk limit of seek().
        words_t walked(200000 + 16);
        gen.generate(walked.size(), walked.data());
        for (uint64_t k : {uint64_t(1), uint64_t(623), uint64_t(624),
                     uint64_t(19937), uint64_t(200000)}) {
            impl::mt19937_t j(seed);
            j.seek(a + k);
            for (size_t i = 0; i < 16; ++i)
                ASSERT_EQ(j.next(), walked[k + i]) << "k " << k;
        }
        // A word source: jump(a + 3) + contiguous fills == jump(a + 5003).
        auto src = impl::make_word_source(rng_alg::mt19937, seed, 0, "");
        const words_t w1 = fill(*src, a + 3, 2000);
        const words_t w2 = fill(*src, a + 2003, 3000);
        const words_t w3 = fill(*src, a + 5003, 10);
        auto fresh = impl::make_word_source(rng_alg::mt19937, seed, 0, "");
        EXPECT_EQ(fill(*fresh, a + 5003, 10), w3);
        EXPECT_TRUE(std::equal(w1.begin(), w1.end(), walked.begin() + 3));
        EXPECT_TRUE(std::equal(w2.begin(), w2.end(), walked.begin() + 2003));
    }
}

TEST(engines_mt19937, jump_consistency_huge) {
    // Near the end of the u64 index range and around 2^63.
    for (uint64_t a : {~uint64_t(0) - 2000, uint64_t(1) << 63,
                 (uint64_t(1) << 63) - 700}) {
        impl::mt19937_t gen(7);
        gen.seek(a);
        words_t walked(1500);
        gen.generate(walked.size(), walked.data());
        impl::mt19937_t j(7);
        j.seek(a + 1234);
        for (size_t i = 0; i < 100; ++i)
            ASSERT_EQ(j.next(), walked[1234 + i]) << "a " << a;
    }
    // mt19937_jump may write the window over the seeded state.
    impl::mt19937_t j1(99);
    j1.seek(uint64_t(1) << 50);
    uint32_t st[624];
    impl::mt19937_seed_state(99, st);
    impl::mt19937_jump(st, uint64_t(1) << 50, st);
    EXPECT_EQ(j1.next(), impl::mt19937_temper(st[0]));
}

INSTANTIATE_TEST_SUITE_P(Tiers, engines_mt19937_tier,
        ::testing::ValuesIn(rndnn::test::tier_params()),
        rndnn::test::tier_param_name);

// ---------------------------------------------------------------------------
// fill(first, n) == single-word fills, for every algorithm

TEST(engines_word_source, fill_equals_single_words) {
    const rng_alg algs[] = {rng_alg::philox4x32_10,
            rng_alg::philox4x32_10_onednn, rng_alg::threefry4x32_20,
            rng_alg::mcg31m1, rng_alg::mt19937, rng_alg::multfly};
    std::mt19937_64 rnd(2024);
    for (rng_alg alg : algs) {
        const bool slow = alg == rng_alg::mt19937;
        for (int trial = 0; trial < (slow ? 4 : 40); ++trial) {
            const uint64_t seed = rnd();
            const uint64_t stream = rnd() >> (rnd() % 64);
            // Small and huge starts, random alignment.
            const int shift = int(rnd() % 64);
            const uint64_t first = ((rnd() >> shift) & ~uint64_t(0x3f))
                    | (rnd() % 64);
            const size_t n = size_t(rnd() % (slow ? 12 : 70)) + 1;
            const std::string name = trial % 2 ? "x" : "dropout_7";
            const words_t w = fill(alg, seed, stream, first, n, name);
            auto src = impl::make_word_source(alg, seed, stream, name);
            // Single words in shuffled order: non-contiguous calls.
            std::vector<size_t> order(n);
            std::iota(order.begin(), order.end(), 0);
            std::shuffle(order.begin(), order.end(), rnd);
            for (size_t i : order) {
                uint32_t one = 0;
                src->fill(first + i, 1, &one);
                ASSERT_EQ(one, w[i]) << "alg " << int(alg) << " first "
                                     << first << " i " << i;
            }
            // Zero-length fills write nothing.
            src->fill(first, 0, nullptr);
        }
    }
}

} // namespace
