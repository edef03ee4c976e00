// Philox4x32-R counter-based generator (Salmon et al., SC'11).
#ifndef RNDNN_RNG_ENGINES_PHILOX_HPP
#define RNDNN_RNG_ENGINES_PHILOX_HPP

#include <cstdint>

namespace rndnn {
namespace impl {

// Multipliers of the two S-boxes and the Weyl increments of the key
// schedule, as published with the algorithm.
constexpr uint32_t philox_m0 = 0xD2511F53u;
constexpr uint32_t philox_m1 = 0xCD9E8D57u;
constexpr uint32_t philox_w0 = 0x9E3779B9u;
constexpr uint32_t philox_w1 = 0xBB67AE85u;

// Philox4x32 with R rounds: out = bijection_key(ctr). out may alias ctr.
template <int R>
inline void philox4x32(
        const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4]) {
    static_assert(R >= 0, "round count must be non-negative");
    uint32_t x0 = ctr[0], x1 = ctr[1], x2 = ctr[2], x3 = ctr[3];
    uint32_t k0 = key[0], k1 = key[1];
    for (int r = 0; r < R; ++r) {
        // The key is bumped before every round but the first.
        if (r > 0) {
            k0 += philox_w0;
            k1 += philox_w1;
        }
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
