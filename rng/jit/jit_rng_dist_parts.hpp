// The pieces that the distribution emitters (jit_rng_dist.cpp, one file a
// family: jit_rng_threshold.cpp, jit_rng_bitsliced_lazy.cpp,
// jit_rng_bytewise.cpp, jit_rng_values.cpp) share: word and dst helpers,
// the base of the Bernoulli methods that decide into bits, bitsliced(b)'s
// eager emitter (the lazy one derives from it), and each family's maker,
// which make_jit_dist() calls.
#ifndef RNDNN_RNG_JIT_JIT_RNG_DIST_PARTS_HPP
#define RNDNN_RNG_JIT_JIT_RNG_DIST_PARTS_HPP

#include <memory>

#include "rng/distributions.hpp"
#include "rng/engines/word_source.hpp"
#include "rng/jit/jit_mask_expand.hpp"
#include "rng/jit/jit_rng_dist.hpp"

namespace rndnn {
namespace impl {

// 31-bit words (mcg31m1): another threshold and uniform shift, no bias.
inline bool is_mcg(const rng_conf_t &conf) {
    return engine_traits(conf.alg).word_bits == 31;
}

inline data_type dst_type(const rng_conf_t &conf) {
    return conf.dst.get_data_type();
}

// v (finite f32 lanes) = their bf16 in the low 16 bits of each lane,
// rounded to nearest even: (v + 0x7fff + ((v >> 16) & 1)) >> 16 (uniform's
// and normal's values; constants i_one and bf16_round). lsb is clobbered.
void emit_round_bf16_finite(jit_generator_t &h, const jit_rng_frame_t &f,
        const Xbyak::Xmm &v, const Xbyak::Xmm &lsb);

// --- Bernoulli methods that decide into bits -------------------------------
// A unit of groups of 32 elements (64; lazy bitsliced: 128) whose decisions the
// distribution writes as 64 words of bits: to a bit dst, or for the other
// dst types to the frame's mask slot, from which jit_mask_expand_t writes
// the values.
class jit_mask_dist_t : public jit_dist_t {
public:
    jit_mask_dist_t(jit_generator_t &h, const jit_rng_frame_t &f,
            const rng_conf_t &conf)
        : jit_dist_t(h, f, conf), expand_(h, f, dst_type(conf)) {}

    int unit_bytes() const override {
        return bits_out() ? unit_groups() * 4
                          : unit_elems() * static_cast<int>(
                                  dt_bits(dst_type(conf_)) / 8);
    }
    int unit_elems() const override { return unit_groups() * 32; }
    // Groups of 32 elements in a unit.
    virtual int unit_groups() const { return jit_unit_groups; }

protected:
    // Whether the decision words are the output (bit dst).
    bool bits_out() const { return dst_type(conf_) == data_type::bit; }
    // Where the unit's decision words go: dst, or the frame's mask slot.
    Xbyak::RegExp mask_base() const {
        return bits_out() ? Xbyak::RegExp(f_.dst)
                          : Xbyak::RegExp(h_.rsp + jit_rng_frame_t::mask_bits_off);
    }
    // The unit's decision words are written: dst moves past them, or past
    // their values.
    void emit_unit_end() {
        if (bits_out())
            h_.add(f_.dst, unit_bytes());
        else
            expand_.emit(mask_base(), unit_groups(), f_.dst);
    }

private:
    jit_mask_expand_t expand_;
};

// --- Bernoulli bitsliced(b) ------------------------------------------------
// A unit is 64 groups of 32 elements (lazy: 128, jit_lazy_unit_groups);
// group k's words are [k*b, k*b + b).
// b = 1: the decision is ~W (level 1), 0 (level 0) or ~0 (level 2), in
// vectors. b > 1: the comparison U < level of bitsliced_decide, branch-free
// in general registers, with level's bits as 0/~0 masks L_j:
//   lt |= eq & ~w & L_j;  eq &= ~(w ^ L_j).
// The unit's 64 decision words go to a bit dst, or for the other dst types
// to the frame's mask slot, from which jit_mask_expand_t writes the values
// (jit_mask_dist_t).
class jit_bitsliced_t : public jit_mask_dist_t {
public:
    using jit_mask_dist_t::jit_mask_dist_t;

    int unit_words() const override { return unit_groups() * conf_.bits; }

    void emit_unit() override {
        if (conf_.bits == 1)
            emit_one_bit();
        else
            emit_general();
        emit_unit_end();
    }

    void fill_consts(double p, jit_rng_consts_t &c) const override {
        const int b = conf_.bits;
        const uint64_t level = bitsliced_level(p, b);
        const bool full = level >> b;
        c.full.fill(full ? ~0u : 0u);
        c.keep.fill(level == 1 ? ~0u : 0u);
        for (int j = 0; j < 32; ++j)
            c.level_bit[j] = j < b && ((level >> (b - 1 - j)) & 1u) ? ~0u : 0u;
        jit_mask_expand_t::fill_consts(dst_type(conf_), c);
    }

private:
    void emit_one_bit() {
        const int vlen = h_.vlen();
        for (int i = 0; i < unit_groups() * 4 / vlen; ++i) {
            const Xbyak::Xmm w = h_.vmm(i % 8);
            h_.uni_load(w, h_.ptr[h_.rsp + f_.words_off + i * vlen]);
            h_.uni_vpandn(w, w, RNDNN_JIT_C(keep));
            h_.uni_vpor(w, w, RNDNN_JIT_C(full));
            h_.uni_store(h_.ptr[mask_base() + i * vlen], w);
        }
    }

    void emit_general() {
        const int b = conf_.bits;
        const Xbyak::Reg64 wp = h_.r8, out = h_.r9, cnt = h_.r10;
        const Xbyak::Reg32 lt = h_.eax, eq = h_.edx, w = h_.ecx, t = h_.r11d;
        h_.lea(wp, h_.ptr[h_.rsp + f_.words_off]);
        h_.lea(out, h_.ptr[mask_base()]);
        h_.mov(cnt, unit_groups());
        Xbyak::Label group;
        h_.L(group);
        h_.xor_(lt, lt);
        h_.mov(eq, -1);
        for (int j = 0; j < b; ++j) {
            const Xbyak::Address lj = h_.ptr[f_.consts + RNDNN_JIT_CONST(level_bit)
                    + 4 * j];
            h_.mov(w, h_.ptr[wp + 4 * j]);
            h_.mov(t, w);
            h_.not_(t);
            h_.and_(t, eq);
            h_.and_(t, lj);
            h_.or_(lt, t);
            h_.xor_(w, lj);
            h_.not_(w);
            h_.and_(eq, w);
        }
        h_.or_(lt, RNDNN_JIT_C(full));
        h_.mov(h_.ptr[out], lt);
        h_.add(out, 4);
        h_.add(wp, 4 * b);
        h_.dec(cnt);
        h_.jnz(group);
    }
};

// Each family's emitter (make_jit_dist() picks the family and checks the
// tier first).
std::unique_ptr<jit_dist_t> make_jit_threshold(
        jit_generator_t &h, const jit_rng_frame_t &f, const rng_conf_t &conf);
std::unique_ptr<jit_dist_t> make_jit_bitsliced_lazy(jit_generator_t &h,
        const jit_rng_frame_t &f, const rng_conf_t &conf,
        jit_engine_t &engine);
std::unique_ptr<jit_dist_t> make_jit_bytewise(jit_generator_t &h,
        const jit_rng_frame_t &f, const rng_conf_t &conf,
        jit_engine_t &engine);
std::unique_ptr<jit_dist_t> make_jit_uniform(
        jit_generator_t &h, const jit_rng_frame_t &f, const rng_conf_t &conf);
std::unique_ptr<jit_dist_t> make_jit_normal(
        jit_generator_t &h, const jit_rng_frame_t &f, const rng_conf_t &conf);
std::unique_ptr<jit_dist_t> make_jit_integers(
        jit_generator_t &h, const jit_rng_frame_t &f, const rng_conf_t &conf);
// exponential, gumbel, laplace and rayleigh: one emitter, the
// distribution from conf.dist.
std::unique_ptr<jit_dist_t> make_jit_ln_value(
        jit_generator_t &h, const jit_rng_frame_t &f, const rng_conf_t &conf);
std::unique_ptr<jit_dist_t> make_jit_lognormal(
        jit_generator_t &h, const jit_rng_frame_t &f, const rng_conf_t &conf);
std::unique_ptr<jit_dist_t> make_jit_truncated_normal(
        jit_generator_t &h, const jit_rng_frame_t &f, const rng_conf_t &conf);

} // namespace impl
} // namespace rndnn

#endif
