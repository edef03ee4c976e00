// rndnn/verify.hpp: the known answers of tests/data/known-answers.md and
// docs/multfly.md, checked on the engines directly and through the public
// primitive.
#include <cstring>

#include "rndnn/rng.hpp"
#include "rndnn/verify.hpp"
#include "rng/engines/multfly.hpp"
#include "rng/engines/philox.hpp"
#include "rng/engines/threefry.hpp"
#include "src/utils.hpp"

namespace rndnn {

namespace {

std::string hex_words(const uint32_t *w, int n) {
    std::string s;
    char buf[12];
    for (int i = 0; i < n; ++i) {
        std::snprintf(buf, sizeof(buf), "%s%08x", i ? " " : "", w[i]);
        s += buf;
    }
    return s;
}

known_answer_t compare(const std::string &name, const uint32_t *expected,
        const uint32_t *actual, int n) {
    const bool ok = std::memcmp(expected, actual, n * sizeof(uint32_t)) == 0;
    return {name, ok,
            ok ? std::string()
               : impl::cat("expected ", hex_words(expected, n), ", got ",
                       hex_words(actual, n))};
}

// n u32 words from the public primitive at (seed, stream, offset).
std::vector<uint32_t> primitive_words(rng_alg alg, int64_t seed,
        int64_t strm, int64_t offset, dim_t n, const std::string &name = "") {
    rng::desc d(alg, memory::desc({n}, data_type::u32));
    d.with_offset = true;
    d.name = name;
    rng prim {rng::primitive_desc(d)};
    std::vector<uint32_t> out(n);
    memory dst(d.dst, out.data());
    prim.execute(stream(1),
            {{RNDNN_ARG_DST, dst}, {RNDNN_ARG_SEED, memory::scalar(seed)},
                    {RNDNN_ARG_OFFSET, memory::scalar(offset)},
                    {RNDNN_ARG_STREAM, memory::scalar(strm)}});
    return out;
}

std::vector<known_answer_t> known_answers() {
    std::vector<known_answer_t> r;
    // Random123's kat_vectors: counter, key, expected output.
    const uint32_t philox_kat[3][10] = {
            {0, 0, 0, 0, 0, 0, 0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8},
            {~0u, ~0u, ~0u, ~0u, ~0u, ~0u, 0x408f276d, 0x41c83b0e, 0xa20bc7c6,
                    0x6d5451fd},
            {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344, 0xa4093822,
                    0x299f31d0, 0xd16cfe09, 0x94fdcceb, 0x5001e420,
                    0x24126ea1}};
    for (const auto &k : philox_kat) {
        uint32_t out[4];
        impl::philox4x32_10(k, k + 4, out);
        r.push_back(compare("philox4x32_10 ctr=" + hex_words(k, 4), k + 6,
                out, 4));
    }
    const uint32_t threefry_kat[3][12] = {
            {0, 0, 0, 0, 0, 0, 0, 0, 0x9c6ca96a, 0xe17eae66, 0xfc10ecd4,
                    0x5256a7d8},
            {~0u, ~0u, ~0u, ~0u, ~0u, ~0u, ~0u, ~0u, 0x2a881696, 0x57012287,
                    0xf6c7446e, 0xa16a6732},
            {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344, 0xa4093822,
                    0x299f31d0, 0x082efa98, 0xec4e6c89, 0x59cd1dbb,
                    0xb8879579, 0x86b5d00c, 0xac8b6d84}};
    for (const auto &k : threefry_kat) {
        uint32_t out[4];
        impl::threefry4x32_20(k, k + 4, out);
        r.push_back(compare("threefry4x32_20 ctr=" + hex_words(k, 4), k + 8,
                out, 4));
    }

    const uint32_t multfly_key0[8] = {0x5A7F760C, 0xE3ABAB0B, 0xECBCFCC9,
            0x7CD8982B, 0xE428B5C8, 0xA1C1A56E, 0x0A66CADF, 0x16926033};
    const uint32_t multfly_gen0[4]
            = {0x28DAC85C, 0x0D05143D, 0xF13F16D2, 0x5790CBA7};
    const uint32_t multfly_gen100[4]
            = {0xAC05F32E, 0xCAF615DD, 0x81CCDA48, 0xDC5C5E1A};
    const uint32_t multfly_named[8] = {0x1FCE68FA, 0x01D594AD, 0x8FEC7E65,
            0x0FFC302B, 0x0201AC2E, 0x5DE5F28B, 0xD44262CC, 0xA0F8A154};
    {
        uint32_t key[8], out[4];
        impl::multfly_initkey(nullptr, 0, 0, 0, key);
        r.push_back(compare("multfly initkey(no name, 0, 0)", multfly_key0,
                key, 8));
        impl::multfly_gen32(multfly_key0, 0, 0, out);
        r.push_back(compare("multfly gen32(idx 0)", multfly_gen0, out, 4));
        impl::multfly_gen32(multfly_key0, 100, 0, out);
        r.push_back(compare("multfly gen32(idx 100)", multfly_gen100, out, 4));
        const char *name = "abcdefghijklmnopqrstuvwxyz123456";
        impl::multfly_initkey(reinterpret_cast<const uint8_t *>(name), 32,
                78, 90, key);
        r.push_back(compare("multfly initkey(\"abc...456\", 78, 90)",
                multfly_named, key, 8));
    }

    // Through the primitive: each algorithm's stream layout.
    try {
        auto w = primitive_words(rng_alg::philox4x32_10, 0, 0, 0, 4);
        r.push_back(compare("primitive philox4x32_10 seed=0 offset=0",
                philox_kat[0] + 6, w.data(), 4));
        w = primitive_words(rng_alg::multfly, 0, 0, 400, 4);
        r.push_back(compare("primitive multfly seed=0 offset=400",
                multfly_gen100, w.data(), 4));
        w = primitive_words(rng_alg::mt19937, 5489, 0, 9999, 1);
        const uint32_t mt_9999 = 4123659995u;
        r.push_back(compare("primitive mt19937 seed=5489 offset=9999",
                &mt_9999, w.data(), 1));
        w = primitive_words(rng_alg::mcg31m1, 1, 0, 0, 2);
        const uint32_t mcg_first[2] = {1, 1132489760u}; // s, s * a
        r.push_back(compare("primitive mcg31m1 seed=1 offset=0", mcg_first,
                w.data(), 2));
    } catch (const error &e) {
        r.push_back({"primitive", false, e.what()});
    }
    return r;
}

} // namespace

std::vector<known_answer_t> run_known_answers() {
    return impl::no_foreign_errors("run_known_answers", known_answers);
}

} // namespace rndnn
