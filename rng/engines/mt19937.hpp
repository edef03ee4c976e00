// MT19937 (Matsumoto & Nishimura 1998) with jump-ahead to any output index.
#ifndef RNDNN_RNG_ENGINES_MT19937_HPP
#define RNDNN_RNG_ENGINES_MT19937_HPP

#include <cstddef>
#include <cstdint>

#include "src/cpu_isa.hpp"

namespace rndnn {
namespace impl {

constexpr int mt19937_n = 624;
constexpr int mt19937_m = 397;
constexpr int mt19937_degree = 19937; // degree of the characteristic poly
constexpr uint32_t mt19937_matrix_a = 0x9908B0DFu;
constexpr uint32_t mt19937_upper_mask = 0x80000000u;
constexpr uint32_t mt19937_lower_mask = 0x7FFFFFFFu;

// init_genrand of the reference mt19937ar.c (= std::mt19937(s)).
void mt19937_init_genrand(uint32_t s, uint32_t state[mt19937_n]);

// init_by_array of the reference mt19937ar.c.
void mt19937_init_by_array(
        const uint32_t *init_key, size_t key_length, uint32_t state[mt19937_n]);

// The seeded state x_0..x_623 for a seed taken as unsigned 64-bit: below
// 2^32 init_genrand(seed), from 2^32 on init_by_array({lo32, hi32}).
void mt19937_seed_state(uint64_t seed, uint32_t state[mt19937_n]);

// The output tempering.
inline uint32_t mt19937_temper(uint32_t y) {
    y ^= y >> 11;
    y ^= (y << 7) & 0x9D2C5680u;
    y ^= (y << 15) & 0xEFC60000u;
    y ^= y >> 18;
    return y;
}

// The recurrence's step: x_{k+624} = x_{k+397} ^ twist(x_k, x_{k+1}).
inline uint32_t mt19937_twist(uint32_t xk, uint32_t xk1) {
    const uint32_t y = (xk & mt19937_upper_mask) | (xk1 & mt19937_lower_mask);
    // Branch-free multiply by the companion matrix A.
    return (y >> 1) ^ (mt19937_matrix_a & (0u - (y & 1u)));
}

// Replaces x_k..x_{k+623} in s by x_{k+624}..x_{k+1247} (one in-place
// regeneration of the whole state, as the reference does).
void mt19937_regenerate(uint32_t s[mt19937_n]);

// The regeneration and the tempering of count words (in and out may be
// the same) in one tier's vector code (mt19937_simd.cpp), bit for bit
// mt19937_regenerate() and mt19937_temper().
struct mt19937_simd_t {
    void (*regenerate)(uint32_t s[mt19937_n]);
    void (*temper)(const uint32_t *in, size_t count, uint32_t *out);
};
// Whether tier isa has vector code here (avx512, avx2): the tiers of the
// RNG's simd:<tier> entries (rng/rng_list.cpp).
bool mt19937_simd_has(cpu_isa isa);
// The code for tier isa: its vector code where mt19937_simd_has(isa), else
// the scalar code (none: the reference's). A tier with vector code must be
// one this CPU has (at most cpu_isa_detected()).
mt19937_simd_t mt19937_simd(cpu_isa isa);

// window = x_{624+g}..x_{1247+g}, the untempered values behind outputs
// g..g+623, from the seeded state x_0..x_623. Costs O(log g) polynomial
// products modulo the characteristic polynomial plus one linear combination
// of 19937 shifted state windows, never a walk of g steps. window may
// alias seeded.
void mt19937_jump(const uint32_t seeded[mt19937_n], uint64_t g,
        uint32_t window[mt19937_n]);

// A generator positioned at any output index.
class mt19937_t {
public:
    // isa: the tier of the regeneration's and tempering's code
    // (mt19937_simd); none, the scalar code, unless the implementation list
    // chose a tier. Every tier gives the same words.
    explicit mt19937_t(uint64_t seed, cpu_isa isa = cpu_isa::none);
    // Positions the generator so that the next output is number g.
    // Jumps, unless g is a short way ahead of the current position.
    void seek(uint64_t g);
    // Index of the next output.
    uint64_t position() const { return pos_; }
    // The next n outputs.
    void generate(size_t n, uint32_t *out);
    uint32_t next() {
        uint32_t w;
        generate(1, &w);
        return w;
    }

private:
    mt19937_simd_t simd_; // the code of the tier asked for
    uint32_t seeded_[mt19937_n]; // x_0..x_623
    uint32_t state_[mt19937_n];  // x_{624+base}.. with base = pos_ - idx_
    int idx_;                    // state_[idx_] is behind output pos_
    uint64_t pos_;
};

} // namespace impl
} // namespace rndnn

#endif
