// Philox4x32-R counter-based generator (Salmon et al., SC'11).
#ifndef RNDNN_RNG_ENGINES_PHILOX_HPP
#define RNDNN_RNG_ENGINES_PHILOX_HPP

#include <array>
#include <cstdint>

namespace rndnn {
namespace impl {

// Multipliers of the two S-boxes and the Weyl increments of the key
// schedule, as published with the algorithm.
constexpr uint32_t philox_m0 = 0xD2511F53u;
constexpr uint32_t philox_m1 = 0xCD9E8D57u;
constexpr uint32_t philox_w0 = 0x9E3779B9u;
constexpr uint32_t philox_w1 = 0xBB67AE85u;

// The key of a seed: its low and high 32 bits (both layouts).
constexpr std::array<uint32_t, 2> philox_key(uint64_t seed) {
    return {uint32_t(seed), uint32_t(seed >> 32)};
}

// The key of round r (0-based): the key bumped by the Weyl increments
// before every round but the first. The reference and the JIT kernels'
// constants both take it from here.
constexpr std::array<uint32_t, 2> philox_round_key(
        const uint32_t key[2], int r) {
    return {key[0] + uint32_t(r) * philox_w0, key[1] + uint32_t(r) * philox_w1};
}

// Philox4x32 with R rounds: out = bijection_key(ctr). out may alias ctr.
template <int R>
inline void philox4x32(
        const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4]) {
    static_assert(R >= 0, "round count must be non-negative");
    uint32_t x0 = ctr[0], x1 = ctr[1], x2 = ctr[2], x3 = ctr[3];
    for (int r = 0; r < R; ++r) {
        const auto [k0, k1] = philox_round_key(key, r);
        const uint64_t p0 = uint64_t(philox_m0) * x0;
        const uint64_t p1 = uint64_t(philox_m1) * x2;
        const uint32_t hi0 = uint32_t(p0 >> 32), lo0 = uint32_t(p0);
        const uint32_t hi1 = uint32_t(p1 >> 32), lo1 = uint32_t(p1);
        x0 = hi1 ^ x1 ^ k0;
        x1 = lo1;
        x2 = hi0 ^ x3 ^ k1;
        x3 = lo0;
    }
    out[0] = x0;
    out[1] = x1;
    out[2] = x2;
    out[3] = x3;
}

// The standard 10-round variant (rng_alg::philox4x32_10 and its layouts).
inline void philox4x32_10(
        const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4]) {
    philox4x32<10>(ctr, key, out);
}

} // namespace impl
} // namespace rndnn

#endif
