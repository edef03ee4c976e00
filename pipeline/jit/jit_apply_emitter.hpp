// The apply emitter: code that applies one 32-bit mask word to 32 dense
// elements, exactly as apply_value() (pipeline/apply.hpp) and the rounding
// to the data type. One emitter serves the apply kernel (jit_apply.cpp) and
// the fused dropout kernel (jit_fused.cpp).
//
// Per group of 32 elements: the mask word is broadcast to every lane and
// compared with each lane's own bit (vpand, vpcmpeqd), giving 0 / ~0 lanes;
// mul ands them with the data (a select: NaN and Inf do not pass a 0 bit),
// add adds them and-ed with 1.0f. Linear post-ops are one vfmadd213ps each.
// bf16 rounds with integer adds (AVX2 has no vcvtneps2bf16) and f16 with
// vcvtps2ph, both to nearest even with NaNs quieted, as f32_to_bf16 and
// f32_to_f16 do.
#ifndef RNDNN_PIPELINE_JIT_JIT_APPLY_EMITTER_HPP
#define RNDNN_PIPELINE_JIT_JIT_APPLY_EMITTER_HPP

#include <string>

#include "rndnn/binary.hpp"
#include "src/jit/jit_generator.hpp"

namespace rndnn {
namespace impl {

// What the emitted code computes.
struct jit_apply_ops_t {
    binary_alg alg = binary_alg::mul;
    data_type dt = data_type::f32; // src and dst: f32, bf16 or f16
    int n_linear = 0; // linear post-ops x = fma(alpha, x, beta)
    // The post-ops are one linear with beta = -0.f (dropout's scale). Its
    // fma(alpha, x, -0.f) is then the product alpha * x, bit for bit: the
    // sum of a product and -0 is that product, and a zero product keeps
    // its sign. So it needs no FMA.
    bool beta_is_neg_zero = false;
    // Dropout's scaled select (below) where the ops allow it, from avx2
    // on: the tuning's scaled_select (src/jit_tuning.hpp); false: the
    // general form.
    bool scaled_select = false;
};

class jit_apply_emitter_t {
public:
    // Elements per mask word.
    static constexpr int group_elems = 32;

    // ops must be supported() at h's tier.
    jit_apply_emitter_t(jit_generator_t &h, const jit_apply_ops_t &ops);

    // Whether tier isa covers ops, and why not.
    static bool supported(
            cpu_isa isa, const jit_apply_ops_t &ops, std::string &why);

    // Bytes of one group's data.
    int group_bytes() const;

    // Loads the constants that emit_group() keeps in registers (the
    // post-ops' (alpha, beta) pairs at `linear`, as emit_group() takes
    // them); again after other code used the vector registers.
    void emit_load_consts(const Xbyak::RegExp &linear);
    // One group: its mask word (bit k for element k) at [word], its 32
    // elements at src and dst (dst may equal src), the post-ops' (alpha,
    // beta) pairs at `linear`, in order. Uses every vector register, k1
    // and k2, and no general register.
    void emit_group(const Xbyak::RegExp &word, const Xbyak::RegExp &src,
            const Xbyak::RegExp &dst, const Xbyak::RegExp &linear);
    // avx512 only: a group of fewer than 32 elements, those whose bits are
    // set in the 32-bit `valid` (a run from bit 0); only they are loaded
    // and stored (masked), so the code reads and writes nothing past them.
    // Uses k1, k2, k5 and k6.
    void emit_tail_group(const Xbyak::RegExp &word,
            const Xbyak::Address &valid, const Xbyak::RegExp &src,
            const Xbyak::RegExp &dst, const Xbyak::RegExp &linear);
    // The constant table the code reads (relative to rip): emit it once,
    // after the function's code.
    void emit_table();

private:
    // Dropout's form (mul, one linear post-op with beta -0.f) from avx2
    // on: the scale stays in a register and a lane is scale * x or the
    // dropped value scale * +0, chosen by its bit (avx512: a multiply
    // merged into the dropped value under the word's bits in k1, k2;
    // avx2: vpsllvd moves the lane's bit to the sign, and vblendvps picks
    // the product or the dropped value), where the general form tests the
    // bit, selects, broadcasts the scale and multiplies. The scale is not
    // NaN there (the fused dropout kernel's, pipeline/fused.hpp), so a NaN
    // result is a quieted bf16 input or the default NaN, whose low 16 bits
    // are 0, and bf16 rounding needs no NaN case.
    bool scaled_select() const;
    // One vector register r of the group: its lanes are elements
    // [r * lanes, (r + 1) * lanes).
    // With `valid` (avx512), only its lanes are loaded and stored.
    void emit_reg(int r, const Xbyak::RegExp &src, const Xbyak::RegExp &dst,
            const Xbyak::RegExp &linear, const Xbyak::Opmask *valid = nullptr);
    // x = the f32 values of register r's elements at src (bf16 and f16
    // converted; with `valid`, only its lanes loaded, the others 0).
    void emit_load(const Xbyak::Xmm &x, int r, const Xbyak::RegExp &src,
            const Xbyak::Opmask *valid);
    // Stores register r's f32 results v to dst, rounded to the data type
    // (with `valid`, only its lanes).
    void emit_store(const Xbyak::Xmm &v, int r, const Xbyak::RegExp &dst,
            const Xbyak::Opmask *valid);
    // Rounds f32 lanes x to bf16, in the low 16 bits of each lane.
    Xbyak::Xmm emit_round_bf16(const Xbyak::Xmm &x);
    Xbyak::Address table(int off) const;

    int lanes() const { return h_.vlen() / 4; }
    int regs() const { return group_elems / lanes(); }
    int esize() const;

    jit_generator_t &h_;
    jit_apply_ops_t ops_;
    Xbyak::Label table_;
};

} // namespace impl
} // namespace rndnn

#endif
