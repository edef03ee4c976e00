// Mask bits to Bernoulli values: code that writes a run of decision bits
// (bit k of word j: element 32 j + k) as u8 0/1, s32 0/1 or f32 0.0/1.0,
// in index order. The bitsliced and bytewise distributions write their
// non-bit dst with it (jit_rng_dist.cpp), and the fused dropout kernel its
// u8 mask (pipeline/jit/jit_fused.cpp).
#ifndef RNDNN_RNG_JIT_JIT_MASK_EXPAND_HPP
#define RNDNN_RNG_JIT_JIT_MASK_EXPAND_HPP

#include "rng/jit/jit_rng_common.hpp"

namespace rndnn {
namespace impl {

// avx512 moves a zero-masked 1 per set bit (a kmov of the bits). Below it,
// s32 and f32 broadcast each word and compare every lane's own bit
// (lane_bits); u8 spreads the word's bytes over 32 bytes (pshufb, byte i
// taking byte i / 8), tests each byte's bit and turns 0xff into 1 (pabsb).
// Stores go through uni_store_out: non-temporal in a streaming function.
class jit_mask_expand_t {
public:
    // dt: u8, s32 or f32. The constants are read through f.consts.
    jit_mask_expand_t(
            jit_generator_t &h, const jit_rng_frame_t &f, data_type dt)
        : h_(h), f_(f), dt_(dt) {}

    // The value of a 1 in a Bernoulli dst of type dt, as a dword (s32 1,
    // f32 1.0f, u8 0x01 in every byte).
    static uint32_t one_of(data_type dt);
    // The constants the code reads (dst_one, lane_bits, byte_shuf,
    // byte_bits).
    static void fill_consts(data_type dt, jit_rng_consts_t &c);

    // The `words` words of bits at [bits] (an even number, or 1) to values
    // at [out], which moves past them. Uses the vector registers, k1, rax
    // and r8.
    void emit(const Xbyak::RegExp &bits, int words, const Xbyak::Reg64 &out);

private:
    int out_size() const;
    void emit_load_consts();
    // Word w of [src] to its 32 values at [out + off].
    void emit_word(const Xbyak::Reg64 &src, int w, const Xbyak::Reg64 &out,
            int off);

    jit_generator_t &h_;
    const jit_rng_frame_t &f_;
    data_type dt_;
};

} // namespace impl
} // namespace rndnn

#endif
