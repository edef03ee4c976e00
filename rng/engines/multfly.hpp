// Multfly, the counter-based generator of docs/multfly.md.
#ifndef RNDNN_RNG_ENGINES_MULTFLY_HPP
#define RNDNN_RNG_ENGINES_MULTFLY_HPP

#include <cstddef>
#include <cstdint>

namespace rndnn {
namespace impl {

constexpr size_t multfly_name_max = 32; // bytes
// Multipliers of the generation network.
constexpr uint32_t multfly_mul_b = 2718281829u;
constexpr uint32_t multfly_mul_c = 3141592653u;

inline uint32_t multfly_rotl32(uint32_t x, int n) {
    return (x << n) | (x >> ((32 - n) & 31));
}

// Derives the 256-bit key from a name of len <= 32 bytes (name may be null
// when len == 0) and a 128-bit user value. Throws std::invalid_argument if
// len > 32.
void multfly_initkey(const uint8_t *name, size_t len, uint64_t global_seed,
        uint64_t global_ctr, uint32_t key[8]);

// Splits key into a new parent key and a child key. parent may alias key.
void multfly_splitkey(
        const uint32_t key[8], uint32_t parent[8], uint32_t child[8]);

// One lane step g(a, b, c) of the generation network.
inline void multfly_lane_step(uint32_t &a, uint32_t &b, uint32_t &c) {
    c += a; c = multfly_rotl32(c, 8);  b ^= c; b *= multfly_mul_b;
    a += b; a = multfly_rotl32(a, 11); c ^= a; c *= multfly_mul_c;
    b += c; b = multfly_rotl32(b, 16); a ^= b;
}

// Four 32-bit words for (key, idx, ctr). Inline: it is the hot loop of the
// word source.
inline void multfly_gen32(
        const uint32_t key[8], uint64_t idx, uint32_t ctr, uint32_t out[4]) {
    const uint32_t funct = 0; // 32-bit output
    uint32_t a[4] = {key[0], key[1], key[2], key[3]};
    uint32_t b[4] = {key[4], key[5], key[6], key[7]};
    uint32_t c[4] = {uint32_t(idx), uint32_t(idx >> 32), ctr, funct};
    // The lanes of one round touch disjoint words, so their order is free.
    for (int i = 0; i < 4; ++i)
        multfly_lane_step(a[i], b[i], c[i]);
    for (int i = 0; i < 4; ++i)
        multfly_lane_step(a[i], b[i ^ 1], c[i ^ 2]);
    for (int i = 0; i < 4; ++i)
        multfly_lane_step(a[i], b[i], c[i]);
    for (int i = 0; i < 4; ++i)
        out[i] = a[i] + b[i ^ 3];
}


} // namespace impl
} // namespace rndnn

#endif
