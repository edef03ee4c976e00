// MCG31m1: the multiplicative congruential generator x' = a * x mod (2^31-1)
// (L'Ecuyer's multiplier, as in MKL's VSL_BRNG_MCG31).
#ifndef RNDNN_RNG_ENGINES_MCG31M1_HPP
#define RNDNN_RNG_ENGINES_MCG31M1_HPP

#include <cstdint>

namespace rndnn {
namespace impl {

constexpr uint32_t mcg31m1_a = 1132489760u;
constexpr uint32_t mcg31m1_m = 0x7FFFFFFFu; // 2^31 - 1

// (x * y) mod m for x, y < m. m is a Mersenne number, so 2^31 == 1 (mod m)
// and the 62-bit product folds into 31 bits with one add.
inline uint32_t mcg31m1_mul(uint32_t x, uint32_t y) {
    const uint64_t p = uint64_t(x) * y;
    uint64_t r = (p & mcg31m1_m) + (p >> 31); // < 2^32 - 1
    r = (r & mcg31m1_m) + (r >> 31);          // <= m
    return uint32_t(r == mcg31m1_m ? 0 : r);
}

// base^exp mod m (square-and-multiply); base may be any u32.
inline uint32_t mcg31m1_pow(uint32_t base, uint64_t exp) {
    uint32_t b = base % mcg31m1_m;
    uint32_t r = 1;
    while (exp != 0) {
        if (exp & 1) r = mcg31m1_mul(r, b);
        b = mcg31m1_mul(b, b);
        exp >>= 1;
    }
    return r;
}

// The initial state x_0 for a seed taken as unsigned 64-bit. 0 is a fixed
// point of the generator, so it is replaced by 1 (as MKL does).
inline uint32_t mcg31m1_state(uint64_t seed) {
    const uint32_t s = uint32_t(seed % mcg31m1_m);
    return s == 0 ? 1u : s;
}

} // namespace impl
} // namespace rndnn

#endif
