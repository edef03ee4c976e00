// Threefry4x32-R counter-based generator (Salmon et al., SC'11), the
// Threefish-style ARX network with 32-bit words.
#ifndef RNDNN_RNG_ENGINES_THREEFRY_HPP
#define RNDNN_RNG_ENGINES_THREEFRY_HPP

#include <array>
#include <cstdint>

namespace rndnn {
namespace impl {

// Parity constant of the key schedule (Skein's C240 reduced to 32 bits).
constexpr uint32_t threefry_parity32 = 0x1BD11BDAu;

// Rotation amounts of the 4x32 variant, by round modulo 8; [0] applies to
// the first mix of a round, [1] to the second.
constexpr int threefry4x32_rot[8][2] = {
    {10, 26}, {11, 21}, {13, 27}, {23, 5},
    {6, 20}, {17, 11}, {25, 10}, {18, 20},
};

namespace threefry_detail {
constexpr uint32_t rotl32(uint32_t x, int n) {
    return (x << n) | (x >> (32 - n));
}
} // namespace threefry_detail

// The key of a seed (rng_alg::threefry4x32_20): {low 32 bits, high 32
// bits, 0, 0}.
constexpr std::array<uint32_t, 4> threefry_key(uint64_t seed) {
    return {uint32_t(seed), uint32_t(seed >> 32), 0, 0};
}

// The key schedule: the key's four words and their parity word. The
// reference and the JIT kernels' constants both take it from here.
constexpr std::array<uint32_t, 5> threefry_key_schedule(const uint32_t key[4]) {
    return {key[0], key[1], key[2], key[3],
            threefry_parity32 ^ key[0] ^ key[1] ^ key[2] ^ key[3]};
}

// Threefry4x32 with R rounds; the key is injected before the first round
// and after every 4th. out may alias ctr.
template <int R>
inline void threefry4x32(
        const uint32_t ctr[4], const uint32_t key[4], uint32_t out[4]) {
    static_assert(R >= 0, "round count must be non-negative");
    using threefry_detail::rotl32;
    const std::array<uint32_t, 5> ks = threefry_key_schedule(key);
    uint32_t x[4] = {ctr[0] + ks[0], ctr[1] + ks[1], ctr[2] + ks[2],
            ctr[3] + ks[3]};
    // Fully unrolled, the pair indices and rotations become constants.
#pragma GCC unroll 72
    for (int r = 0; r < R; ++r) {
        const int *rot = threefry4x32_rot[r % 8];
        // Even rounds mix (0,1) and (2,3); odd rounds (0,3) and (2,1).
        const int b = (r % 2 == 0) ? 1 : 3;
        const int d = (r % 2 == 0) ? 3 : 1;
        x[0] += x[b];
        x[b] = rotl32(x[b], rot[0]) ^ x[0];
        x[2] += x[d];
        x[d] = rotl32(x[d], rot[1]) ^ x[2];
        if (r % 4 == 3) {
            const int s = (r + 1) / 4;
            for (int i = 0; i < 4; ++i)
                x[i] += ks[(s + i) % 5];
            x[3] += uint32_t(s);
        }
    }
    for (int i = 0; i < 4; ++i)
        out[i] = x[i];
}

// The standard 20-round variant (rng_alg::threefry4x32_20).
inline void threefry4x32_20(
        const uint32_t ctr[4], const uint32_t key[4], uint32_t out[4]) {
    threefry4x32<20>(ctr, key, out);
}

} // namespace impl
} // namespace rndnn

#endif
