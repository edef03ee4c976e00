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

// Philox4x32 with R rounds on L counters at once, in place: x[0][i] ..
// x[3][i] are counter i, then its block. The lanes are independent, so
// the loops over them vectorise and their multiplies overlap.
template <int R, int L>
inline void philox4x32_lanes(uint32_t (&x)[4][L], const uint32_t key[2]) {
    static_assert(R >= 0, "round count must be non-negative");
    for (int r = 0; r < R; ++r) {
        const auto [k0, k1] = philox_round_key(key, r);
        for (int i = 0; i < L; ++i) {
            const uint64_t p0 = uint64_t(philox_m0) * x[0][i];
            const uint64_t p1 = uint64_t(philox_m1) * x[2][i];
            x[0][i] = uint32_t(p1 >> 32) ^ x[1][i] ^ k0;
            x[1][i] = uint32_t(p1);
            x[2][i] = uint32_t(p0 >> 32) ^ x[3][i] ^ k1;
            x[3][i] = uint32_t(p0);
        }
    }
}

// Philox4x32 with R rounds: out = bijection_key(ctr). out may alias ctr.
template <int R>
inline void philox4x32(
        const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4]) {
    uint32_t x[4][1] = {{ctr[0]}, {ctr[1]}, {ctr[2]}, {ctr[3]}};
    philox4x32_lanes<R, 1>(x, key);
    for (int k = 0; k < 4; ++k)
        out[k] = x[k][0];
}

// The standard 10-round variant (rng_alg::philox4x32_10 and its layouts).
inline void philox4x32_10(
        const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4]) {
    philox4x32<10>(ctr, key, out);
}

} // namespace impl
} // namespace rndnn

#endif
