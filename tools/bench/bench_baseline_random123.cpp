// Random123's philox4x32 in a plain loop: see bench_baseline_random123.hpp.
// Compiled with -O3 -march=native, whatever the build type; and a second
// time, as the _scalar function, with auto-vectorization off
// (bench_baseline_random123_scalar.cpp).
#include "bench_baseline_random123.hpp"

#ifdef RNDNN_BASELINE_SCALAR
#define RNDNN_BASELINE_FN random123_philox_threshold32_bit_scalar
#define RNDNN_BASELINE_U8_FN random123_philox_threshold32_u8_scalar
#else
#define RNDNN_BASELINE_FN random123_philox_threshold32_bit
#define RNDNN_BASELINE_U8_FN random123_philox_threshold32_u8
#endif

// Random123 comes last: it defines function-like macros (philox4x32) that
// would rewrite any later identifier of the same name.
#include <Random123/philox.h>

namespace rndnn_bench {

namespace {

philox4x32_key_t make_key(std::uint64_t seed) {
    return {{static_cast<std::uint32_t>(seed),
            static_cast<std::uint32_t>(seed >> 32)}};
}

// The 4 words of counter block b: elements 4 b .. 4 b + 3.
inline philox4x32_ctr_t block(std::uint64_t b, const philox4x32_key_t &key) {
    const philox4x32_ctr_t ctr = {{static_cast<std::uint32_t>(b),
            static_cast<std::uint32_t>(b >> 32), 0, 0}};
    return philox4x32(ctr, key);
}

// The 4 decisions of counter block b, as bits 0..3.
inline std::uint32_t block_bits(std::uint64_t b, const philox4x32_key_t &key,
        std::uint32_t threshold) {
    const philox4x32_ctr_t w = block(b, key);
    std::uint32_t bits = 0;
    for (unsigned j = 0; j < 4; ++j)
        bits |= static_cast<std::uint32_t>(w.v[j] < threshold) << j;
    return bits;
}

} // namespace

void RNDNN_BASELINE_FN(std::uint8_t *dst, std::int64_t n,
        std::uint64_t seed, std::uint32_t threshold) {
    const philox4x32_key_t key = make_key(seed);
    // Whole bytes: 8 elements, two counter blocks each.
    const std::int64_t bytes = n / 8;
    for (std::int64_t i = 0; i < bytes; ++i) {
        const auto b = static_cast<std::uint64_t>(i) * 2;
        dst[i] = static_cast<std::uint8_t>(block_bits(b, key, threshold)
                | block_bits(b + 1, key, threshold) << 4);
    }
    // The last, partial byte.
    if (n % 8) {
        const auto b = static_cast<std::uint64_t>(bytes) * 2;
        const std::uint32_t bits = block_bits(b, key, threshold)
                | block_bits(b + 1, key, threshold) << 4;
        dst[bytes] = static_cast<std::uint8_t>(bits & ((1u << (n % 8)) - 1));
    }
}

void RNDNN_BASELINE_U8_FN(std::uint8_t *dst, std::int64_t n,
        std::uint64_t seed, std::uint32_t threshold) {
    const philox4x32_key_t key = make_key(seed);
    const std::int64_t blocks = n / 4;
    for (std::int64_t b = 0; b < blocks; ++b) {
        const philox4x32_ctr_t w = block(static_cast<std::uint64_t>(b), key);
        for (unsigned j = 0; j < 4; ++j)
            dst[4 * b + j] = static_cast<std::uint8_t>(w.v[j] < threshold);
    }
    // The last, partial block.
    const philox4x32_ctr_t w = block(static_cast<std::uint64_t>(blocks), key);
    for (std::int64_t g = blocks * 4; g < n; ++g)
        dst[g] = static_cast<std::uint8_t>(w.v[g % 4] < threshold);
}

} // namespace rndnn_bench
