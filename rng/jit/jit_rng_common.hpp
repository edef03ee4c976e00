// What the JIT RNG kernel's parts share: the call arguments, the table of
// per-execution constants, and the registers and stack slots of the frame.
//
// A kernel call produces `units` whole units of output. A unit is 64
// elements (64 words), or 64 bitsliced groups (2048 elements) for bitsliced
// Bernoulli; the C++ driver (jit_rng.cpp) handles partial units, layouts and
// threads. Per unit, an engine emitter writes words (jit_rng_engine.hpp) and
// a distribution emitter turns them into dst values (jit_rng_dist.hpp).
#ifndef RNDNN_RNG_JIT_JIT_RNG_COMMON_HPP
#define RNDNN_RNG_JIT_JIT_RNG_COMMON_HPP

#include <cstddef>
#include <cstdint>

#include "src/jit/jit_generator.hpp"

namespace rndnn {
namespace impl {

// Words an engine writes per unit of a word-per-element distribution.
constexpr int jit_unit_words = 64;
// Bitsliced groups (32 elements each) per unit.
constexpr int jit_unit_groups = 64;
// ... and per unit of lazy bitsliced, whose queue of undecided groups
// (jit_rng_dist.cpp) then fills its vectors better.
constexpr int jit_lazy_unit_groups = 128;

// One broadcast constant: 64 bytes, enough for any vector length.
struct alignas(64) jit_vec_t {
    uint32_t d[16];
    void fill(uint32_t v) {
        for (uint32_t &x : d)
            x = v;
    }
    void fill_f32(float v);
    // Qword lanes (lo, hi) = (v, 0).
    void fill_lo(uint32_t v) {
        for (int i = 0; i < 16; ++i)
            d[i] = (i % 2 == 0) ? v : 0u;
    }
    void set_q(int lane, uint64_t v) {
        d[2 * lane] = static_cast<uint32_t>(v);
        d[2 * lane + 1] = static_cast<uint32_t>(v >> 32);
    }
    // Every qword lane v; v's bits.
    void fill_q(uint64_t v) {
        for (int lane = 0; lane < 8; ++lane)
            set_q(lane, v);
    }
    void fill_f64(double v);
};

// Constants the generated code reads through reg_consts. Engine and
// distribution fields are filled by their emitters' fill_consts().
struct jit_rng_consts_t {
    // Engines.
    jit_vec_t key[10][2]; // philox round keys, qword lanes (k, 0)
    jit_vec_t mul[2]; // philox multipliers (m, 0); mcg31m1 (a^batch, 0), (m, 0)
    jit_vec_t fixed; // philox: the stream half of the counter (qwords)
    jit_vec_t lane_ctr; // philox: counter of each qword lane, relative
    jit_vec_t pair_step; // philox: counter step between register pairs
    jit_vec_t inject[6][4]; // threefry: injection s of word i (0: the start)
    jit_vec_t ctr_step; // threefry, multfly: counters per register
    jit_vec_t ctr_step_biased; // threefry, multfly: ctr_step ^ sign_bit
    jit_vec_t sign_bit; // threefry, multfly: 2^31
    jit_vec_t multfly_key[8]; // multfly: the 256-bit key, a word each
    jit_vec_t multfly_mul[2]; // multfly: the multipliers b, c
    // Bernoulli.
    jit_vec_t bias; // xor making unsigned compares signed (0 for mcg31m1)
    jit_vec_t thr; // threshold32 threshold, biased
    jit_vec_t thr_u; // avx512: the threshold unbiased (oneDNN rule: ~t)
    jit_vec_t full; // all ones iff every element is 1
    jit_vec_t keep; // bitsliced(1): all ones iff level == 1
    jit_vec_t perm; // vpermd order restoring packed bytes (avx2)
    jit_vec_t byte_one; // 0x01 in every byte
    // Mask bits to dst values (jit_rng_dist.cpp, expanding a unit's bits):
    // a 1 in the dst type (s32 1, f32 1.0f); dword k of lane_bits is
    // 1 << k; byte_shuf and byte_bits spread a word's bits over 32 bytes
    // (pshufb: byte i takes byte i / 8 of the word, then tests 1 << i % 8).
    jit_vec_t dst_one;
    jit_vec_t lane_bits[2];
    jit_vec_t byte_shuf, byte_bits;
    uint32_t level_bit[32]; // bitsliced: bit j of the level (MSB first), 0/~0
    // Lazy bitsliced (jit_rng_dist.cpp): the level blocks to evaluate (4
    // levels each, up to the level's last 1 bit); the lanes whose group
    // starts at word r of its first block (lane_r[r], 0/~0, r = 1..3); the
    // block offsets of a row's lanes from the row's first block (lazy_ctr,
    // a vector of dwords per lane vector); b / 4 and 0, 1, ..., 31 in dword
    // lanes (the deferred groups' offsets and indices); philox's k mask of
    // odd dwords.
    uint32_t lazy_blocks;
    uint32_t odd_lanes;
    jit_vec_t lane_r[4];
    jit_vec_t lazy_ctr[2];
    jit_vec_t lazy_mul, lazy_iota[2];
    // bytewise: t_hi in every byte, t_hi ^ 0x80 (for signed byte
    // compares), 0x80, and t_lo (jit_rng_dist.cpp).
    jit_vec_t tie_byte, tie_byte_biased, byte_bias;
    uint32_t tie_lo;
    // integers (jit_rng_values.cpp): r mod 2^32 and r >> 32 in dword
    // lanes; low in qword lanes and mod 2^32 in dword lanes; the qword
    // lanes' low-dword mask (~0u, 0); avx512's permutation indices: the
    // odd dwords (int_odd) and the even and odd qwords (int_perm).
    jit_vec_t int_range, int_range_hi, int_low, int_low32, int_lo32;
    jit_vec_t int_odd, int_perm[2];
    // f64 uniform (qword lanes): the exponent bits that make a double of
    // u53's low 32 bits (2^52 + lo) and of its high 21 (2^84 + hi 2^32),
    // those doubles' biases, 2^-53, a and b - a (and integers' int_lo32).
    jit_vec_t f64_lo_magic, f64_hi_magic, f64_lo_bias, f64_hi_bias,
            f64_two_m53, f64_a, f64_b_minus_a;
    // f64 normal (ln_approx_f64, sincos_2pi_f64), qword lanes: 1; the
    // mantissa mask and the bits of 0.5 and sqrt(0.5); 1.5 * 2^52's bits
    // less 1022 (a biased exponent's sum with it is e's double's bits) and
    // 1.5 * 2^52 (round_magic64); 1, 2, -2; the atanh series; ln 2 in two parts; 2^50 and
    // 2^51 - 1 (the angle's j and its t bits); 2^52 + 2^50 and 2^-51 (t
    // of them); the sin and cos series (highest power first); the sign
    // bit; mean and stddev.
    jit_vec_t f64_q_one, f64_mant_mask, f64_half_bits, f64_sqrt_half,
            f64_e_bias, f64_round_magic, f64_one, f64_two, f64_minus_two;
    jit_vec_t f64_atanh_c[10];
    jit_vec_t f64_ln2_lo, f64_ln2_hi;
    jit_vec_t f64_2p50, f64_mask51, f64_t_bias, f64_two_m51;
    jit_vec_t f64_sin_c[10], f64_cos_c[10];
    jit_vec_t f64_sign, f64_mean, f64_stddev;
    // f64 exponential, Gumbel, Laplace, Rayleigh, log-normal: scale, loc,
    // 2^-54 (gumbel_v_min64); exp_approx_f64's clamp, log2(e), 1023 and its
    // polynomial (highest power first).
    jit_vec_t f64_scale, f64_loc, f64_v_min;
    jit_vec_t f64_exp_t_min, f64_exp_t_max, f64_log2e, f64_i_1023;
    jit_vec_t f64_exp_c[14];
    // f64 truncated normal (truncnorm_value_f64), qword lanes: Phi(alpha),
    // Q(beta), M, the clamp [a, b], 2^53; PPND16's split points (-0.425,
    // 5), its constants 0.180625 and 1.6, and its polynomials (highest
    // power first). 0.5 is f64_half_bits.
    jit_vec_t f64_tn_phi_a, f64_tn_q_b, f64_tn_mass, f64_tn_lo, f64_tn_hi,
            f64_i_2p53;
    jit_vec_t f64_ppnd_minus_split_q, f64_ppnd_split_r, f64_ppnd_const_r,
            f64_ppnd_shift_c;
    jit_vec_t f64_ppnd_a[8], f64_ppnd_b[8], f64_ppnd_c[8], f64_ppnd_d[8],
            f64_ppnd_e[8], f64_ppnd_f[8];
    // Uniform and normal.
    jit_vec_t two_m24, a, b_minus_a, mean, stddev;
    jit_vec_t i_one, i_three, i_126, mant_mask, half_bits, sqrt_half,
            exp_one, f_one, f_two, f_minus_two;
    jit_vec_t atanh_c[5]; // c11, c9, c7, c5, c3
    jit_vec_t ln2_lo, ln2_hi;
    jit_vec_t i_2p21, mask22, two_m22;
    jit_vec_t sin_c[6]; // c11 ... c1
    jit_vec_t cos_c[6]; // c10 ... c0
    jit_vec_t bf16_round; // 0x7fff
    // Exponential, Gumbel, Laplace, Rayleigh, log-normal
    // (rng/distributions.hpp): scale, loc, 2^-25 (gumbel_v_min); exp_approx's
    // clamp, log2(e), 1.5 * 2^23, 127 and its polynomial (highest power
    // first).
    jit_vec_t scale, loc, two_m25;
    jit_vec_t exp_t_min, exp_t_max, log2e, round_magic, i_127;
    jit_vec_t exp_c[9];
    // Truncated normal (truncnorm_value): Phi(alpha), Q(beta), M, the
    // clamp [lo, hi], 2^25, 0.5; AS 241's split points (-0.425, 5), its
    // constants 0.180625 and 1.6, and its polynomials (highest power
    // first).
    jit_vec_t tn_phi_a, tn_q_b, tn_mass, tn_lo, tn_hi, i_2p25, f_half;
    jit_vec_t ppnd_minus_split_q, ppnd_split_r, ppnd_const_r, ppnd_shift_c;
    jit_vec_t ppnd_a[4], ppnd_b[4], ppnd_c[4], ppnd_d[3], ppnd_e[4],
            ppnd_f[3];
};

// The kernel's arguments.
struct jit_rng_call_t {
    void *dst; // the first unit's output, dense
    uint64_t first; // philox: counter of the first unit's first word block;
    // lazy bitsliced: that word's index / 4 (jit_dist_t::draws_words)
    uint64_t units; // >= 1
    uint64_t unit; // the first unit's index among all (g / unit elements)
    const jit_rng_consts_t *consts;
    void *state; // threefry, mcg31m1, multfly: lane states, read and advanced
};

// Bytes of jit_rng_call_t::state: 8 registers of lane states (mcg31m1) at
// the widest vector length.
constexpr int jit_max_state_bytes = 8 * 64;

// Registers and stack slots every part of the kernel agrees on.
struct jit_rng_frame_t {
    static constexpr int max_words = jit_unit_groups * 32; // bitsliced(32)
    static constexpr int words_off = 0; // the unit's words
    // Engine state, 64 B, off the words' 4 KiB alias (loads of it must
    // not wait on stores to words with the same low 12 address bits).
    static constexpr int engine_off = max_words * 4 + 2048;
    // 128 B a unit consumer keeps across units (jit_rng_generator.hpp),
    // then room for a copy of one unit's mask bits.
    static constexpr int max_unit_bits_bytes = jit_lazy_unit_groups * 4;
    static constexpr int consumer_off = engine_off + 64;
    static constexpr int consumer_unit_off = consumer_off + 128;
    // A unit's mask bits, where the dst type is not bit and a distribution
    // decides from bits (bitsliced, bytewise): it expands them to dst.
    static constexpr int mask_bits_off = consumer_unit_off + max_unit_bits_bytes;
    static constexpr int size = mask_bits_off + max_unit_bits_bytes;

    // The registers: the call's argument (jit_rng_call_t *, System V's
    // first: jit_generator_t::abi_param1), then callee-saved ones the
    // kernel keeps across its loop.
    Xbyak::Reg64 args = Xbyak::util::rdi, consts = Xbyak::util::r15,
                 dst = Xbyak::util::r14, units = Xbyak::util::r13,
                 state = Xbyak::util::r12, batch_cnt = Xbyak::util::rbx;
};

#define RNDNN_JIT_CONST(field) (offsetof(jit_rng_consts_t, field))
// The address of a constant, in emitters holding h_ and f_.
#define RNDNN_JIT_C(field) h_.ptr[f_.consts + RNDNN_JIT_CONST(field)]

} // namespace impl
} // namespace rndnn

#endif
