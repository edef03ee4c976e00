// Uniform, normal, log-normal, exponential, Gumbel, Laplace, Rayleigh and
// truncated normal values to f32, bf16, f16 or f64, and integers: JIT code.
#include "rng/jit/jit_rng_dist_parts.hpp"

namespace rndnn {
namespace impl {
namespace {

using namespace Xbyak;

#define C(field) RNDNN_JIT_C(field)

// cmpps and cmppd predicates (SSE's): x <= y, !(x < y), !(x <= y); no
// operand the truncated normals compare is NaN where its lane is kept, so
// nlt is >= and nle is >.
constexpr uint8_t cmp_le = 2, cmp_nlt = 5, cmp_nle = 6;

// A value a word, to f32, bf16 or f16.
class jit_value_dist_t : public jit_dist_t {
public:
    using jit_dist_t::jit_dist_t;

    int unit_bytes() const override { return jit_unit_words * out_size(); }

protected:
    // Bytes of a dst value.
    int out_size() const {
        return static_cast<int>(dt_bits(dst_type(conf_)) / 8);
    }
};

// --- Uniform to f32, bf16 or f16 (FMA: avx2 and up) ------------------------
// u = (W >> shift) * 2^-24; v = fma(u, b - a, a); bf16 rounds to nearest
// even: (v + 0x7fff + ((v >> 16) & 1)) >> 16 (v is finite); f16 rounds
// with vcvtps2ph (to nearest even, whatever MXCSR says).
class jit_uniform_t : public jit_value_dist_t {
public:
    using jit_value_dist_t::jit_value_dist_t;

    void emit_unit() override {
        const int vlen = h_.vlen();
        const Xmm bma = h_.vmm(15);
        h_.uni_load(bma, C(b_minus_a));
        const auto shift = static_cast<uint8_t>(u24_shift(is_mcg(conf_)));
        const int nregs = jit_unit_words * 4 / vlen;
        for (int i = 0; i < nregs; ++i) {
            const Xmm v = h_.vmm(i % 8);
            h_.uni_load(v, h_.ptr[h_.rsp + f_.words_off + i * vlen]);
            h_.uni_vpsrld(v, v, shift);
            h_.uni_vcvtdq2ps(v, v);
            h_.uni_vmulps(v, v, C(two_m24));
            h_.vfmadd213ps(v, bma, C(a));
            if (out_size() == 4) {
                h_.uni_store_out(h_.ptr[f_.dst + i * vlen], v);
                continue;
            }
            if (dst_type(conf_) == data_type::f16) {
                h_.vcvtps2ph(h_.ptr[f_.dst + i * vlen / 2], v, 0);
                continue;
            }
            emit_round_bf16_finite(h_, f_, v, h_.vmm(8 + i % 2));
            if (h_.is_avx512()) { // the lanes' low halves, in order
                h_.vpmovdw(h_.ptr[f_.dst + i * vlen / 2], v);
                continue;
            }
            if (i % 2 == 1) {
                const Ymm lo((i - 1) % 8);
                h_.vpackusdw(lo, lo, v);
                h_.vpermq(lo, lo, 0xD8);
                h_.vmovdqu(h_.ptr[f_.dst + (i - 1) / 2 * vlen], lo);
            }
        }
        h_.add(f_.dst, unit_bytes());
    }

    void fill_consts(double, jit_rng_consts_t &c) const override {
        c.two_m24.fill_f32(0x1p-24f);
        // The f32 parameters (f32 values, rng_conf_t).
        const float a = static_cast<float>(conf_.a);
        c.a.fill_f32(a);
        c.b_minus_a.fill_f32(static_cast<float>(conf_.b) - a);
        c.i_one.fill(1);
        c.bf16_round.fill(0x7fff);
    }

};

// --- f64 values (avx2 and up) ---------------------------------------------
// An element's two words are a qword lane, X = W(2g) + W(2g + 1) 2^32, u53
// = X >> 11 (rng/distributions.hpp, "f64 values"); every f64 operation the
// reference's, in its order (VEX and EVEX forms, one emitter).
class jit_f64_dist_t : public jit_dist_t {
public:
    using jit_dist_t::jit_dist_t;

    int unit_elems() const override { return jit_unit_words / 2; }
    int unit_bytes() const override { return unit_elems() * 8; }

protected:
    Address vec(size_t off, int k = 0) const {
        return h_.ptr[f_.consts + off + k * 64];
    }

    static void fill_u53_consts(jit_rng_consts_t &c) {
        c.f64_lo_magic.fill_f64(0x1p52);
        c.f64_hi_magic.fill_f64(0x1p84);
        c.f64_lo_bias.fill_f64(0x1p52);
        c.f64_hi_bias.fill_f64(0x1p84);
        c.f64_two_m53.fill_f64(0x1p-53);
        c.f64_q_one.fill_q(1);
        c.int_lo32.fill_lo(~0u);
    }

    static void fill_ln_consts(jit_rng_consts_t &c) {
        c.f64_mant_mask.fill_q(0x000fffffffffffffu);
        c.f64_half_bits.fill_q(double_bits(0.5));
        c.f64_sqrt_half.fill_q(sqrt_half_bits64);
        c.f64_e_bias.fill_q(double_bits(round_magic64) - 1022);
        c.f64_round_magic.fill_f64(round_magic64);
        c.f64_one.fill_f64(1.0);
        c.f64_two.fill_f64(2.0);
        for (int k = 0; k < 10; ++k)
            c.f64_atanh_c[k].fill_f64(atanh_coefs64[k]);
        c.f64_ln2_lo.fill_f64(ln2_lo64);
        c.f64_ln2_hi.fill_f64(ln2_hi64);
    }

    static void fill_exp_consts(jit_rng_consts_t &c) {
        c.f64_exp_t_min.fill_f64(exp_t_min64);
        c.f64_exp_t_max.fill_f64(exp_t_max64);
        c.f64_log2e.fill_f64(log2e64);
        c.f64_i_1023.fill_q(1023);
        for (int k = 0; k < 14; ++k)
            c.f64_exp_c[k].fill_f64(exp_coefs64[k]);
    }

    // v = u53 (open0: open0_u53, (u53 + 1) 2^-53; else u53 2^-53) of the
    // qword lanes of v (emit_scale53). t is clobbered.
    void emit_u53(const Xmm &v, const Xmm &t, bool open0) {
        h_.uni_vpsrlq(v, v, 11); // u53
        if (open0) h_.uni_vpaddq(v, v, C(f64_q_one));
        emit_scale53(v, t);
    }

    // v = n 2^-53 of its qword lanes n <= 2^53, as a double made exactly:
    // (2^84 + hi 2^32 - 2^84) + (2^52 + lo - 2^52), hi and lo n's high 21
    // (22: n = 2^53) and low 32 bits, both differences exact, their sum n
    // exact, times 2^-53 exact. t is clobbered.
    void emit_scale53(const Xmm &v, const Xmm &t) {
        auto &h = h_;
        h.uni_vpsrlq(t, v, 32); // hi
        h.uni_vpor(t, t, C(f64_hi_magic));
        h.vsubpd(t, t, C(f64_hi_bias)); // hi 2^32, exact
        h.uni_vpand(v, v, C(int_lo32)); // lo
        h.uni_vpor(v, v, C(f64_lo_magic));
        h.vsubpd(v, v, C(f64_lo_bias)); // lo, exact
        h.vaddpd(v, v, t);
        h.vmulpd(v, v, C(f64_two_m53));
    }

    // x = ln_approx_f64(u) (x may be u); e, mb, s, s2 and q are clobbered.
    // m < sqrt(0.5) is the sign of mbits - sqrt(0.5)'s bits (both below
    // 2^63): 1 there, subtracted from e and added to m's exponent. e's
    // double is 1.5 * 2^52 + e's bits less 1.5 * 2^52, exact.
    void emit_ln(const Xmm &x, const Xmm &u, const Xmm &e, const Xmm &mb,
            const Xmm &s, const Xmm &s2, const Xmm &q) {
        auto &h = h_;
        h.uni_vpsrlq(e, u, 52);
        h.uni_vpaddq(e, e, C(f64_e_bias)); // e + 1.5 * 2^52's bits
        h.uni_vpand(mb, u, C(f64_mant_mask));
        h.uni_vpor(mb, mb, C(f64_half_bits));
        h.uni_vpsubq(x, mb, C(f64_sqrt_half));
        h.uni_vpsrlq(x, x, 63); // 1 where m < sqrt(0.5)
        h.uni_vpsubq(e, e, x); // e - 1 there
        h.uni_vpsllq(x, x, 52);
        h.uni_vpaddq(mb, mb, x); // m * 2 there
        h.vsubpd(s, mb, C(f64_one));
        h.vaddpd(x, mb, C(f64_one));
        h.vdivpd(s, s, x);
        h.vmulpd(s2, s, s);
        h.vmulpd(q, s2, vec(RNDNN_JIT_CONST(f64_atanh_c)));
        for (int k = 1; k < 10; ++k) {
            h.vaddpd(q, q, vec(RNDNN_JIT_CONST(f64_atanh_c), k));
            h.vmulpd(q, q, s2);
        }
        h.vmulpd(q, q, s); // s * q
        h.vaddpd(q, q, s); // s + s * q
        h.vmulpd(q, q, C(f64_two)); // ln m
        h.vsubpd(e, e, C(f64_round_magic)); // e as a double
        h.vmulpd(x, e, C(f64_ln2_lo));
        h.vaddpd(x, x, q);
        h.vmulpd(e, e, C(f64_ln2_hi));
        h.vaddpd(x, x, e);
    }

    // x = exp_approx_f64(x); n, y, r and p are clobbered. n = y's bits
    // less round_magic64's, in [-1077, 1025]: its low dword is n, and the
    // exponent bits of 2^(n >> 1) and 2^(n - (n >> 1)) are dword
    // arithmetic on it, shifted to the qword's top 12 bits.
    void emit_exp(const Xmm &x, const Xmm &n, const Xmm &y, const Xmm &r,
            const Xmm &p) {
        auto &h = h_;
        h.vmaxpd(x, x, C(f64_exp_t_min));
        h.vminpd(x, x, C(f64_exp_t_max));
        h.vmulpd(y, x, C(f64_log2e));
        h.vaddpd(y, y, C(f64_round_magic));
        h.uni_vpsubq(n, y, C(f64_round_magic)); // n as an integer
        h.vsubpd(y, y, C(f64_round_magic)); // n as a double
        h.vmulpd(r, y, C(f64_ln2_hi));
        h.vsubpd(x, x, r);
        h.vmulpd(y, y, C(f64_ln2_lo));
        h.vsubpd(r, x, y);
        h.uni_load(p, vec(RNDNN_JIT_CONST(f64_exp_c)));
        for (int k = 1; k < 14; ++k) {
            h.vmulpd(p, p, r);
            h.vaddpd(p, p, vec(RNDNN_JIT_CONST(f64_exp_c), k));
        }
        h.uni_vpsrad(y, n, 1);
        h.uni_vpsubd(n, n, y);
        h.uni_vpaddd(y, y, C(f64_i_1023));
        h.uni_vpsllq(y, y, 52);
        h.vmulpd(p, p, y);
        h.uni_vpaddd(n, n, C(f64_i_1023));
        h.uni_vpsllq(n, n, 52);
        h.vmulpd(x, p, n);
    }
};

// f64 uniform (uniform_value_f64): u = u53 2^-53 (emit_u53), then fma(u,
// b - a, a).
class jit_uniform_f64_t : public jit_f64_dist_t {
public:
    using jit_f64_dist_t::jit_f64_dist_t;

    void emit_unit() override {
        auto &h = h_;
        const int vlen = h.vlen();
        const Xmm bma = h.vmm(15), a = h.vmm(14);
        h.uni_load(bma, C(f64_b_minus_a));
        h.uni_load(a, C(f64_a));
        for (int i = 0; i < unit_bytes() / vlen; ++i) {
            const Xmm v = h.vmm(i % 4), t = h.vmm(4 + i % 4);
            h.uni_load(v, h.ptr[h.rsp + f_.words_off + i * vlen]);
            emit_u53(v, t, false);
            h.vfmadd213pd(v, bma, a);
            h.uni_store_out(h.ptr[f_.dst + i * vlen], v);
        }
        h.add(f_.dst, unit_bytes());
    }

    void fill_consts(double, jit_rng_consts_t &c) const override {
        fill_u53_consts(c);
        c.f64_a.fill_f64(conf_.a);
        c.f64_b_minus_a.fill_f64(conf_.b - conf_.a);
    }
};

// f64 normal (normal_pair_f64) on vlen / 8 pairs at a time: a pair's two
// elements are a 128-bit lane's qwords, so unpck{l,h}pd of two registers
// split them into even elements (the radius) and odd ones (the angle),
// and interleave the results back into index order. Log-normal takes
// exp_approx_f64 of normal's values.
class jit_normal_f64_t : public jit_f64_dist_t {
public:
    jit_normal_f64_t(jit_generator_t &h, const jit_rng_frame_t &f,
            const rng_conf_t &conf, bool lognormal)
        : jit_f64_dist_t(h, f, conf), lognormal_(lognormal) {}

    void emit_unit() override {
        const int vlen = h_.vlen();
        for (int i = 0; i < unit_bytes() / vlen; i += 2)
            emit_pairs(h_.rsp + f_.words_off + i * vlen, i * vlen);
        h_.add(f_.dst, unit_bytes());
    }

    void fill_consts(double, jit_rng_consts_t &c) const override {
        fill_u53_consts(c);
        fill_ln_consts(c);
        c.f64_minus_two.fill_f64(-2.0);
        c.f64_2p50.fill_q(uint64_t(1) << 50);
        c.f64_mask51.fill_q((uint64_t(1) << 51) - 1);
        c.f64_t_bias.fill_f64(0x1p52 + 0x1p50);
        c.f64_two_m51.fill_f64(0x1p-51);
        for (int k = 0; k < 10; ++k) {
            c.f64_sin_c[k].fill_f64(sin_coefs64[k]);
            c.f64_cos_c[k].fill_f64(cos_coefs64[k]);
        }
        c.f64_sign.fill_q(uint64_t(1) << 63);
        c.f64_mean.fill_f64(conf_.mean);
        c.f64_stddev.fill_f64(conf_.stddev);
        if (lognormal_) fill_exp_consts(c);
    }

private:
    // The pairs of the two registers of words at `words` to dst at byte
    // `at` of the unit's.
    void emit_pairs(const RegExp &words, int at) {
        auto &h = h_;
        const int vlen = h.vlen();
        const Xmm v1 = h.vmm(0), v2 = h.vmm(1), ev = h.vmm(2), od = h.vmm(3);
        h.uni_load(v1, h.ptr[words]);
        h.uni_load(v2, h.ptr[words + vlen]);
        h.vunpcklpd(ev, v1, v2);
        h.vunpckhpd(od, v1, v2);

        // Radius: r = sqrt(ln(open0_u53) * -2).
        const Xmm u = ev, x = h.vmm(5), r = h.vmm(9);
        emit_u53(u, h.vmm(4), true);
        emit_ln(x, u, h.vmm(0), h.vmm(1), h.vmm(4), h.vmm(6), h.vmm(7));
        h.vmulpd(x, x, C(f64_minus_two));
        h.vsqrtpd(r, x);

        // Angle: sincos_2pi_f64(u53), j = u53 + 2^50; t = (j mod 2^51 -
        // 2^50) 2^-51 as (2^52 + j mod 2^51) - (2^52 + 2^50), exact.
        const Xmm j = h.vmm(0), t = h.vmm(2), t2 = h.vmm(4), sp = h.vmm(5),
                  cp = h.vmm(6), odd = h.vmm(7), y = h.vmm(8),
                  sn = h.vmm(10), cs = h.vmm(11);
        h.uni_vpsrlq(j, od, 11);
        h.uni_vpaddq(j, j, C(f64_2p50));
        h.uni_vpand(t, j, C(f64_mask51));
        h.uni_vpor(t, t, C(f64_lo_magic));
        h.vsubpd(t, t, C(f64_t_bias));
        h.vmulpd(t, t, C(f64_two_m51));
        h.vmulpd(t2, t, t);
        h.vmulpd(sp, t2, vec(RNDNN_JIT_CONST(f64_sin_c)));
        h.vmulpd(cp, t2, vec(RNDNN_JIT_CONST(f64_cos_c)));
        for (int k = 1; k < 10; ++k) {
            h.vaddpd(sp, sp, vec(RNDNN_JIT_CONST(f64_sin_c), k));
            h.vaddpd(cp, cp, vec(RNDNN_JIT_CONST(f64_cos_c), k));
            if (k < 9) {
                h.vmulpd(sp, sp, t2);
                h.vmulpd(cp, cp, t2);
            }
        }
        h.vmulpd(sp, sp, t); // sin(pi/2 t)
        // The quadrant is j's bits 51 and 52: odd quadrants (bit 51, moved
        // to the sign) swap sin and cos; sin < 0 in quadrants 2, 3 (bit
        // 52), cos < 0 in quadrants 1, 2 (bit 52 ^ bit 51).
        h.uni_vpsllq(odd, j, 12);
        h.uni_vblendvpd(sn, sp, cp, odd);
        h.uni_vblendvpd(cs, cp, sp, odd);
        h.uni_vpsllq(y, j, 11);
        h.uni_vpand(y, y, C(f64_sign));
        h.uni_vpxor(sn, sn, y);
        h.uni_vpsllq(y, j, 1);
        h.uni_vpxor(y, y, j);
        h.uni_vpsllq(y, y, 11);
        h.uni_vpand(y, y, C(f64_sign));
        h.uni_vpxor(cs, cs, y);

        // v = mean + stddev * (r * trig), then back to index order.
        const Xmm z0 = h.vmm(12), z1 = h.vmm(13);
        h.vmulpd(z0, r, cs);
        h.vmulpd(z1, r, sn);
        h.vmulpd(z0, z0, C(f64_stddev));
        h.vmulpd(z1, z1, C(f64_stddev));
        h.vaddpd(z0, z0, C(f64_mean));
        h.vaddpd(z1, z1, C(f64_mean));
        if (lognormal_)
            for (const Xmm &z : {z0, z1})
                emit_exp(z, h.vmm(0), h.vmm(1), h.vmm(2), h.vmm(3));
        h.vunpcklpd(v1, z0, z1);
        h.vunpckhpd(v2, z0, z1);
        h.uni_store_out(h.ptr[f_.dst + at], v1);
        h.uni_store_out(h.ptr[f_.dst + at + vlen], v2);
    }

    bool lognormal_;
};

// f64 exponential, Gumbel, Laplace and Rayleigh (exponential_value_f64,
// gumbel_value_f64, laplace_value_f64, rayleigh_value_f64), an element a
// qword lane.
class jit_ln_value_f64_t : public jit_f64_dist_t {
public:
    using jit_f64_dist_t::jit_f64_dist_t;

    void emit_unit() override {
        auto &h = h_;
        const int vlen = h.vlen();
        const Xmm u = h.vmm(0), v = h.vmm(6);
        const auto ln = [&](const Xmm &x) {
            emit_ln(x, x, h.vmm(1), h.vmm(2), h.vmm(3), h.vmm(4), h.vmm(5));
        };
        for (int i = 0; i < unit_bytes() / vlen; ++i) {
            const Address words = h.ptr[h.rsp + f_.words_off + i * vlen];
            h.uni_load(u, words);
            emit_u53(u, h.vmm(1), true);
            ln(u);
            h.uni_vpxor(v, v, v);
            h.vsubpd(v, v, u); // 0 - ln u
            if (conf_.dist == dist_t::gumbel) {
                // loc - scale * ln(max(-ln u, 2^-54))
                h.vmaxpd(v, v, C(f64_v_min));
                ln(v);
                h.vmulpd(v, v, C(f64_scale));
                h.uni_load(u, C(f64_loc));
                h.vsubpd(v, u, v);
            } else { // (0 - ln u) * scale
                if (conf_.dist == dist_t::rayleigh) {
                    // sqrt((0 - ln u) * 2) * scale; e + e is e * 2.
                    h.vaddpd(v, v, v);
                    h.vsqrtpd(v, v);
                }
                h.vmulpd(v, v, C(f64_scale));
            }
            if (conf_.dist == dist_t::laplace) {
                // t's sign flipped by the qword's bit 0, then loc + t.
                h.uni_load(u, words);
                h.uni_vpsllq(u, u, 63);
                h.uni_vpxor(v, v, u);
                h.vaddpd(v, v, C(f64_loc));
            }
            h.uni_store_out(h.ptr[f_.dst + i * vlen], v);
        }
        h.add(f_.dst, unit_bytes());
    }

    void fill_consts(double, jit_rng_consts_t &c) const override {
        fill_u53_consts(c);
        fill_ln_consts(c);
        c.f64_v_min.fill_f64(gumbel_v_min64);
        c.f64_scale.fill_f64(conf_.scale);
        c.f64_loc.fill_f64(conf_.loc);
    }
};

// f64 truncated normal (truncnorm_value_f64), an element a qword lane:
// jit_truncnorm_t's steps in f64 with PPND16's polynomials, the three
// branches of normal_quantile_f64 blended (a register skips the tails
// none of its lanes takes); j = u53 | 1, u = j 2^-53 and 1 - u = (2^53 -
// j) 2^-53 (emit_scale53: exact).
class jit_truncnorm_f64_t : public jit_f64_dist_t {
public:
    using jit_f64_dist_t::jit_f64_dist_t;

    void emit_unit() override {
        const int vlen = h_.vlen();
        for (int i = 0; i < unit_bytes() / vlen; ++i)
            emit_value(h_.ptr[h_.rsp + f_.words_off + i * vlen],
                    h_.ptr[f_.dst + i * vlen]);
        h_.add(f_.dst, unit_bytes());
    }

    void fill_consts(double, jit_rng_consts_t &c) const override {
        fill_u53_consts(c);
        fill_ln_consts(c);
        const truncnorm_f64_t &t = conf_.truncnorm64;
        c.f64_tn_phi_a.fill_f64(t.phi_a);
        c.f64_tn_q_b.fill_f64(t.q_b);
        c.f64_tn_mass.fill_f64(t.mass);
        c.f64_mean.fill_f64(t.mean);
        c.f64_stddev.fill_f64(t.stddev);
        c.f64_tn_lo.fill_f64(t.lo);
        c.f64_tn_hi.fill_f64(t.hi);
        c.f64_i_2p53.fill_q(uint64_t(1) << 53);
        c.f64_ppnd_minus_split_q.fill_f64(-ppnd16_split_q);
        c.f64_ppnd_split_r.fill_f64(ppnd16_split_r);
        c.f64_ppnd_const_r.fill_f64(ppnd16_const_r);
        c.f64_ppnd_shift_c.fill_f64(ppnd16_shift_c);
        const auto fill = [](jit_vec_t(&dst)[8], const double(&coefs)[8]) {
            for (int k = 0; k < 8; ++k)
                dst[k].fill_f64(coefs[k]);
        };
        fill(c.f64_ppnd_a, ppnd16_a);
        fill(c.f64_ppnd_b, ppnd16_b);
        fill(c.f64_ppnd_c, ppnd16_c);
        fill(c.f64_ppnd_d, ppnd16_d);
        fill(c.f64_ppnd_e, ppnd16_e);
        fill(c.f64_ppnd_f, ppnd16_f);
    }

private:
    // p = horner(x, the 8 coefficients at constant offset off); p is not x.
    void emit_horner(const Xmm &p, const Xmm &x, size_t off) {
        h_.vmulpd(p, x, vec(off));
        h_.vaddpd(p, p, vec(off, 1));
        for (int k = 2; k < 8; ++k) {
            h_.vmulpd(p, p, x);
            h_.vaddpd(p, p, vec(off, k));
        }
    }

    // The values of the elements whose words are at `words` to `out`;
    // vmm 0 to 9, rax and k7 are clobbered.
    void emit_value(const Address &words, const Address &out) {
        auto &h = h_;
        const Xmm p = h.vmm(0), q = h.vmm(1), upper = h.vmm(2), x = h.vmm(3);
        // j = u53 | 1; u = j 2^-53, 1 - u = (2^53 - j) 2^-53.
        h.uni_load(p, words);
        h.uni_vpsrlq(p, p, 11);
        h.uni_vpor(p, p, C(f64_q_one));
        h.uni_load(q, C(f64_i_2p53));
        h.uni_vpsubq(q, q, p);
        emit_scale53(p, x);
        emit_scale53(q, x);
        // p = Phi(alpha) + u M, q = Q(beta) + (1 - u) M; x = p or q.
        h.vmulpd(p, p, C(f64_tn_mass));
        h.vaddpd(p, p, C(f64_tn_phi_a));
        h.vmulpd(q, q, C(f64_tn_mass));
        h.vaddpd(q, q, C(f64_tn_q_b));
        h.uni_vcmppd(upper, p, C(f64_half_bits), cmp_nle); // p > 0.5
        h.uni_vblendvpd(x, p, q, upper);

        // Central: zc = c A(r) / B(r), c = x - 0.5, r = 0.180625 - c^2.
        const Xmm c = h.vmm(0), r = h.vmm(1), zc = h.vmm(4), den = h.vmm(5),
                  central = h.vmm(0);
        h.vsubpd(c, x, C(f64_half_bits));
        h.vmulpd(den, c, c);
        h.uni_load(r, C(f64_ppnd_const_r));
        h.vsubpd(r, r, den);
        emit_horner(zc, r, RNDNN_JIT_CONST(f64_ppnd_a));
        emit_horner(den, r, RNDNN_JIT_CONST(f64_ppnd_b));
        h.vmulpd(zc, zc, c);
        h.vdivpd(zc, zc, den);
        h.uni_vcmppd(central, c, C(f64_ppnd_minus_split_q), cmp_nlt);

        // Tails: s = sqrt(0 - ln x); C(s - 1.6) / D(s - 1.6) for s <= 5,
        // else E(s - 5) / F(s - 5). A register of central lanes skips them,
        // one without far lanes skips the far tail.
        Xbyak::Label all_central, no_far;
        const Xmm ln = h.vmm(3), s = h.vmm(5), d = h.vmm(1), near = h.vmm(3),
                  is_near = h.vmm(9), far = h.vmm(6), fden = h.vmm(7),
                  zt = h.vmm(1);
        const int all_lanes = (1 << (h.vlen() / 8)) - 1;
        h.uni_vmovmskpd(h.eax, central);
        h.cmp(h.eax, all_lanes);
        h.je(all_central, h.T_NEAR);
        emit_ln(ln, x, h.vmm(1), h.vmm(5), h.vmm(6), h.vmm(7), h.vmm(8));
        h.uni_vpxor(s, s, s);
        h.vsubpd(s, s, ln);
        h.vsqrtpd(s, s);
        h.vsubpd(d, s, C(f64_ppnd_shift_c));
        emit_horner(near, d, RNDNN_JIT_CONST(f64_ppnd_c));
        emit_horner(fden, d, RNDNN_JIT_CONST(f64_ppnd_d));
        h.vdivpd(near, near, fden);
        h.uni_vcmppd(is_near, s, C(f64_ppnd_split_r), cmp_le);
        h.uni_vmovmskpd(h.eax, is_near);
        h.cmp(h.eax, all_lanes);
        h.je(no_far, h.T_NEAR);
        h.vsubpd(d, s, C(f64_ppnd_split_r));
        emit_horner(far, d, RNDNN_JIT_CONST(f64_ppnd_e));
        emit_horner(fden, d, RNDNN_JIT_CONST(f64_ppnd_f));
        h.vdivpd(far, far, fden);
        h.uni_vblendvpd(near, far, near, is_near);
        h.L(no_far);
        h.uni_vpxor(zt, zt, zt);
        h.vsubpd(zt, zt, near); // 0 - C / D or 0 - E / F
        h.uni_vblendvpd(zc, zt, zc, central);
        h.L(all_central);

        // z = the quantile, negated (0 - z) for q; mean + stddev z,
        // clamped to [a, b].
        const Xmm z = zc, v = h.vmm(1);
        h.uni_vpxor(v, v, v);
        h.vsubpd(v, v, z);
        h.uni_vblendvpd(v, z, v, upper);
        h.vmulpd(v, v, C(f64_stddev));
        h.vaddpd(v, v, C(f64_mean));
        h.vmaxpd(v, v, C(f64_tn_lo));
        h.vminpd(v, v, C(f64_tn_hi));
        h.uni_store_out(out, v);
    }
};

// --- Shared pieces of the transcendental values ---------------------------
// ln_approx, exp_approx and the store of two registers of f32 values, every
// operation the reference's, in its order: mul and add, never fma. bf16
// and f16 round the f32 values once, as uniform's do.
class jit_math_dist_t : public jit_value_dist_t {
public:
    using jit_value_dist_t::jit_value_dist_t;

protected:
    Address vec(size_t off, int k = 0) const {
        return h_.ptr[f_.consts + off + k * 64];
    }

    static void fill_ln_consts(jit_rng_consts_t &c) {
        c.two_m24.fill_f32(0x1p-24f);
        c.bf16_round.fill(0x7fff);
        c.i_one.fill(1);
        c.i_126.fill(126);
        c.mant_mask.fill(0x007fffffu);
        c.half_bits.fill(0x3f000000u);
        c.sqrt_half.fill(sqrt_half_bits);
        c.exp_one.fill(0x00800000u);
        c.f_one.fill_f32(1.f);
        c.f_two.fill_f32(2.f);
        for (int k = 0; k < 5; ++k)
            c.atanh_c[k].fill_f32(atanh_coefs[k]);
        c.ln2_lo.fill_f32(ln2_lo);
        c.ln2_hi.fill_f32(ln2_hi);
    }

    static void fill_exp_consts(jit_rng_consts_t &c) {
        c.exp_t_min.fill_f32(exp_t_min);
        c.exp_t_max.fill_f32(exp_t_max);
        c.log2e.fill_f32(log2e);
        c.round_magic.fill_f32(round_magic);
        c.i_127.fill(127);
        for (int k = 0; k < 9; ++k)
            c.exp_c[k].fill_f32(exp_coefs[k]);
    }

    // x = ln_approx(u) (x may be u); e, mb, s, s2 and q are clobbered.
    void emit_ln(const Xmm &x, const Xmm &u, const Xmm &e, const Xmm &mb,
            const Xmm &s, const Xmm &s2, const Xmm &q) {
        auto &h = h_;
        h.uni_vpsrld(e, u, 23);
        h.uni_vpsubd(e, e, C(i_126));
        h.uni_vpand(mb, u, C(mant_mask));
        h.uni_vpor(mb, mb, C(half_bits));
        h.uni_load(x, C(sqrt_half));
        h.uni_vpcmpgtd(x, x, mb); // ~0 where m < sqrt(0.5)
        h.uni_vpaddd(e, e, x); // e - 1 there
        h.uni_vpand(x, x, C(exp_one));
        h.uni_vpaddd(mb, mb, x); // m * 2 there
        h.uni_vsubps(s, mb, C(f_one));
        h.uni_vaddps(x, mb, C(f_one));
        h.uni_vdivps(s, s, x);
        h.uni_vmulps(s2, s, s);
        h.uni_vmulps(q, s2, vec(RNDNN_JIT_CONST(atanh_c)));
        for (int k = 1; k < 5; ++k) {
            h.uni_vaddps(q, q, vec(RNDNN_JIT_CONST(atanh_c), k));
            h.uni_vmulps(q, q, s2);
        }
        h.uni_vmulps(q, q, s); // s * q
        h.uni_vaddps(q, q, s); // s + s * q
        h.uni_vmulps(q, q, C(f_two)); // ln m
        h.uni_vcvtdq2ps(e, e);
        h.uni_vmulps(x, e, C(ln2_lo));
        h.uni_vaddps(x, x, q);
        h.uni_vmulps(e, e, C(ln2_hi));
        h.uni_vaddps(x, x, e);
    }

    // x = exp_approx(x); n, y, r and p are clobbered.
    void emit_exp(const Xmm &x, const Xmm &n, const Xmm &y, const Xmm &r,
            const Xmm &p) {
        auto &h = h_;
        h.uni_vmaxps(x, x, C(exp_t_min));
        h.uni_vminps(x, x, C(exp_t_max));
        h.uni_vmulps(y, x, C(log2e));
        h.uni_vaddps(y, y, C(round_magic));
        h.uni_vpsubd(n, y, C(round_magic)); // n as an integer
        h.uni_vsubps(y, y, C(round_magic)); // n as an f32
        h.uni_vmulps(r, y, C(ln2_hi));
        h.uni_vsubps(x, x, r);
        h.uni_vmulps(y, y, C(ln2_lo));
        h.uni_vsubps(r, x, y);
        h.uni_load(p, vec(RNDNN_JIT_CONST(exp_c)));
        for (int k = 1; k < 9; ++k) {
            h.uni_vmulps(p, p, r);
            h.uni_vaddps(p, p, vec(RNDNN_JIT_CONST(exp_c), k));
        }
        // 2^(n >> 1), then 2^(n - (n >> 1)), as exponent bits.
        h.uni_vpsrad(y, n, 1);
        h.uni_vpsubd(n, n, y);
        h.uni_vpaddd(y, y, C(i_127));
        h.uni_vpslld(y, y, 23);
        h.uni_vmulps(p, p, y);
        h.uni_vpaddd(n, n, C(i_127));
        h.uni_vpslld(n, n, 23);
        h.uni_vmulps(x, p, n);
    }

    // The f32 values v1, v2 (elements n .. n + 2 L - 1, L lanes a
    // register) to dst at element n = `first`, rounded to dst's type. The
    // registers are clobbered, and vmm 14, 15.
    void emit_store(const Xmm &v1, const Xmm &v2, int first) {
        auto &h = h_;
        const int vlen = h.vlen(), size = out_size();
        const Address at = h.ptr[f_.dst + first * size];
        const Address next = h.ptr[f_.dst + first * size + vlen / 4 * size];
        switch (dst_type(conf_)) {
            case data_type::f16:
                h.vcvtps2ph(at, v1, 0);
                h.vcvtps2ph(next, v2, 0);
                return;
            case data_type::bf16:
                for (const Xmm &v : {v1, v2}) // finite values
                    emit_round_bf16_finite(h, f_, v, h.vmm(14));
                if (h.is_avx512()) { // the lanes' low halves, in order
                    h.vpmovdw(at, v1);
                    h.vpmovdw(next, v2);
                } else if (h.is_sse()) {
                    h.packusdw(v1, v2);
                    h.uni_store(at, v1);
                } else {
                    const Ymm y(v1.getIdx());
                    h.vpackusdw(y, y, Ymm(v2.getIdx()));
                    h.vpermq(y, y, 0xD8);
                    h.uni_store(at, y);
                }
                return;
            default:
                h.uni_store_out(at, v1);
                h.uni_store_out(next, v2);
        }
    }
};

// --- Normal and log-normal to f32, bf16 or f16 -----------------------------
// normal_pair() on 2 * vlen / 4 pairs at a time: shufps splits a pair of
// registers into even words (u1, the radius) and odd words (the angle);
// unpck{l,h}ps interleave the two results back into index order.
// Log-normal (lognormal_pair) takes exp_approx of normal's values.
class jit_normal_t : public jit_math_dist_t {
public:
    jit_normal_t(jit_generator_t &h, const jit_rng_frame_t &f,
            const rng_conf_t &conf, bool lognormal)
        : jit_math_dist_t(h, f, conf), lognormal_(lognormal) {}

    void emit_unit() override {
        const int vlen = h_.vlen();
        for (int i = 0; i < jit_unit_words * 4 / vlen; i += 2)
            emit_pairs(h_.rsp + f_.words_off + i * vlen, i * vlen / 4);
        h_.add(f_.dst, unit_bytes());
    }

    void fill_consts(double, jit_rng_consts_t &c) const override {
        fill_ln_consts(c);
        c.mean.fill_f32(static_cast<float>(conf_.mean));
        c.stddev.fill_f32(static_cast<float>(conf_.stddev));
        c.i_three.fill(3);
        c.f_minus_two.fill_f32(-2.f);
        c.i_2p21.fill(1u << 21);
        c.mask22.fill((1u << 22) - 1);
        c.two_m22.fill_f32(0x1p-22f);
        for (int k = 0; k < 6; ++k) {
            c.sin_c[k].fill_f32(sin_coefs[k]);
            c.cos_c[k].fill_f32(cos_coefs[k]);
        }
        if (lognormal_) fill_exp_consts(c);
    }

private:
    void emit_pairs(const RegExp &words, int first) {
        auto &h = h_;
        const int vlen = h.vlen();
        const int shift = u24_shift(is_mcg(conf_));
        const Xmm v1 = h.vmm(0), v2 = h.vmm(1), ev = h.vmm(2), od = h.vmm(3);
        h.uni_load(v1, h.ptr[words]);
        h.uni_load(v2, h.ptr[words + vlen]);
        h.uni_vshufps(ev, v1, v2, 0x88);
        h.uni_vshufps(od, v1, v2, 0xDD);

        // Radius: r = sqrt(-2 ln u1), u1 = ((W >> shift) + 1) * 2^-24.
        const Xmm u = h.vmm(0), x = h.vmm(5), r = h.vmm(9);
        h.uni_vpsrld(ev, ev, shift);
        h.uni_vpaddd(ev, ev, C(i_one));
        h.uni_vcvtdq2ps(u, ev);
        h.uni_vmulps(u, u, C(two_m24));
        emit_ln(x, u, h.vmm(1), h.vmm(4), h.vmm(6), h.vmm(7), h.vmm(8));
        h.uni_vmulps(x, x, C(f_minus_two));
        h.uni_vsqrtps(r, x);

        // Angle: sincos_2pi(W >> shift).
        const Xmm j = h.vmm(0), quad = h.vmm(1), t = h.vmm(2), t2 = h.vmm(4),
                  sp = h.vmm(5), cp = h.vmm(6), odd = h.vmm(7), y = h.vmm(8),
                  sn = h.vmm(10), cs = h.vmm(11);
        h.uni_vpsrld(j, od, shift);
        h.uni_vpaddd(j, j, C(i_2p21));
        h.uni_vpsrld(quad, j, 22);
        h.uni_vpand(quad, quad, C(i_three));
        h.uni_vpand(t, j, C(mask22));
        h.uni_vpsubd(t, t, C(i_2p21));
        h.uni_vcvtdq2ps(t, t);
        h.uni_vmulps(t, t, C(two_m22));
        h.uni_vmulps(t2, t, t);
        h.uni_vmulps(sp, t2, vec(RNDNN_JIT_CONST(sin_c)));
        h.uni_vmulps(cp, t2, vec(RNDNN_JIT_CONST(cos_c)));
        for (int k = 1; k < 6; ++k) {
            h.uni_vaddps(sp, sp, vec(RNDNN_JIT_CONST(sin_c), k));
            h.uni_vaddps(cp, cp, vec(RNDNN_JIT_CONST(cos_c), k));
            if (k < 5) {
                h.uni_vmulps(sp, sp, t2);
                h.uni_vmulps(cp, cp, t2);
            }
        }
        h.uni_vmulps(sp, sp, t); // sin(pi/2 t)
        // Odd quadrants swap sin and cos.
        h.uni_vpand(odd, quad, C(i_one));
        h.uni_vpcmpeqd(odd, odd, C(i_one));
        h.uni_select(sn, odd, cp, sp, y);
        h.uni_select(cs, odd, sp, cp, y);
        // sin < 0 in quadrants 2, 3; cos < 0 in quadrants 1, 2.
        h.uni_vpsrld(y, quad, 1);
        h.uni_vpxor(quad, quad, y);
        h.uni_vpslld(y, y, 31);
        h.uni_vpxor(sn, sn, y);
        h.uni_vpslld(quad, quad, 31);
        h.uni_vpxor(cs, cs, quad);

        // v = mean + stddev * (r * trig), then back to index order.
        const Xmm z0 = h.vmm(12), z1 = h.vmm(13);
        h.uni_vmulps(z0, r, cs);
        h.uni_vmulps(z1, r, sn);
        h.uni_vmulps(z0, z0, C(stddev));
        h.uni_vmulps(z1, z1, C(stddev));
        h.uni_vaddps(z0, z0, C(mean));
        h.uni_vaddps(z1, z1, C(mean));
        if (lognormal_)
            for (const Xmm &z : {z0, z1})
                emit_exp(z, h.vmm(0), h.vmm(1), h.vmm(2), h.vmm(3));
        h.uni_vunpcklps(v1, z0, z1);
        h.uni_vunpckhps(v2, z0, z1);
        emit_store(v1, v2, first);
    }

    bool lognormal_;
};

// --- Values of one word each, two registers at a time ---------------------
// emit_value() on two registers of words (elements in index order, as
// emit_store takes them).
class jit_word_value_t : public jit_math_dist_t {
public:
    using jit_math_dist_t::jit_math_dist_t;

    void emit_unit() override {
        const int vlen = h_.vlen();
        for (int i = 0; i < jit_unit_words * 4 / vlen; i += 2) {
            const Xmm v1 = h_.vmm(12), v2 = h_.vmm(13);
            emit_value(v1, h_.ptr[h_.rsp + f_.words_off + i * vlen]);
            emit_value(v2, h_.ptr[h_.rsp + f_.words_off + (i + 1) * vlen]);
            emit_store(v1, v2, i * vlen / 4);
        }
        h_.add(f_.dst, unit_bytes());
    }

protected:
    // v (vmm 12 or 13) = the value of each word at `words`; vmm 0 to 11,
    // rax and k7 may be clobbered.
    virtual void emit_value(const Xmm &v, const Address &words) = 0;
};

// --- Exponential, Gumbel, Laplace and Rayleigh to f32, bf16 or f16 -------
// exponential_value(), gumbel_value(), laplace_value() and
// rayleigh_value().
class jit_ln_value_t : public jit_word_value_t {
public:
    using jit_word_value_t::jit_word_value_t;

    void fill_consts(double, jit_rng_consts_t &c) const override {
        fill_ln_consts(c);
        c.two_m25.fill_f32(gumbel_v_min);
        c.scale.fill_f32(static_cast<float>(conf_.scale));
        c.loc.fill_f32(static_cast<float>(conf_.loc));
    }

private:
    // vmm 0 to 6 are clobbered.
    void emit_value(const Xmm &v, const Address &words) override {
        auto &h = h_;
        const int shift = u24_shift(is_mcg(conf_));
        const Xmm u = h.vmm(0), zero = h.vmm(6);
        const auto ln = [&](const Xmm &x) {
            emit_ln(x, x, h.vmm(1), h.vmm(2), h.vmm(3), h.vmm(4), h.vmm(5));
        };
        h.uni_load(u, words); // u = (k + 1) * 2^-24
        h.uni_vpsrld(u, u, shift);
        h.uni_vpaddd(u, u, C(i_one));
        h.uni_vcvtdq2ps(u, u);
        h.uni_vmulps(u, u, C(two_m24));
        ln(u);
        h.uni_vpxor(zero, zero, zero);
        h.uni_vsubps(zero, zero, u); // 0 - ln u
        if (conf_.dist == dist_t::gumbel) {
            // loc - scale * ln(max(-ln u, 2^-25))
            h.uni_vmaxps(zero, zero, C(two_m25));
            ln(zero);
            h.uni_vmulps(zero, zero, C(scale));
            h.uni_load(v, C(loc));
            h.uni_vsubps(v, v, zero);
        } else { // (0 - ln u) * scale
            if (conf_.dist == dist_t::rayleigh) {
                // sqrt((0 - ln u) * 2) * scale; e + e is e * 2.
                h.uni_vaddps(zero, zero, zero);
                h.uni_vsqrtps(zero, zero);
            }
            h.uni_vmulps(v, zero, C(scale));
        }
        if (conf_.dist == dist_t::laplace) {
            // t's sign flipped by the word's bit 0, then loc + t.
            h.uni_load(u, words);
            h.uni_vpslld(u, u, 31);
            h.uni_vpxor(v, v, u);
            h.uni_vaddps(v, v, C(loc));
        }
    }
};

// --- Truncated normal to f32, bf16 or f16 ----------------------------------
// truncnorm_value(): normal_quantile's three branches (central, tail with
// r <= 5, far tail) and the p <= 0.5 / upper choice computed on every lane,
// then blended (a register skips a branch none of its lanes takes); every
// operation the reference's, in its order. The clamp
// max(x, lo), min(., hi) keeps the second operand where the two are equal
// (+-0), as glibc's x86-64 fmaxf and fminf (maxss, minss) do.
class jit_truncnorm_t : public jit_word_value_t {
public:
    using jit_word_value_t::jit_word_value_t;

    void fill_consts(double, jit_rng_consts_t &c) const override {
        fill_ln_consts(c);
        const truncnorm_t &t = conf_.truncnorm;
        c.tn_phi_a.fill_f32(t.phi_a);
        c.tn_q_b.fill_f32(t.q_b);
        c.tn_mass.fill_f32(t.mass);
        c.mean.fill_f32(t.mean);
        c.stddev.fill_f32(t.stddev);
        c.tn_lo.fill_f32(t.lo);
        c.tn_hi.fill_f32(t.hi);
        c.two_m25.fill_f32(0x1p-25f);
        c.i_2p25.fill(1u << 25);
        c.f_half.fill_f32(0.5f);
        c.ppnd_minus_split_q.fill_f32(-ppnd_split_q);
        c.ppnd_split_r.fill_f32(ppnd_split_r);
        c.ppnd_const_r.fill_f32(ppnd_const_r);
        c.ppnd_shift_c.fill_f32(ppnd_shift_c);
        const auto fill = [](jit_vec_t *dst, const float *coefs, int n) {
            for (int k = 0; k < n; ++k)
                dst[k].fill_f32(coefs[k]);
        };
        fill(c.ppnd_a, ppnd_a, 4);
        fill(c.ppnd_b, ppnd_b, 4);
        fill(c.ppnd_c, ppnd_c, 4);
        fill(c.ppnd_d, ppnd_d, 3);
        fill(c.ppnd_e, ppnd_e, 4);
        fill(c.ppnd_f, ppnd_f, 3);
    }

private:
    // p = horner(x, the n coefficients at constant offset off); p is not x.
    void emit_horner(const Xmm &p, const Xmm &x, size_t off, int n) {
        h_.uni_vmulps(p, x, vec(off));
        h_.uni_vaddps(p, p, vec(off, 1));
        for (int k = 2; k < n; ++k) {
            h_.uni_vmulps(p, p, x);
            h_.uni_vaddps(p, p, vec(off, k));
        }
    }

    void emit_value(const Xmm &v, const Address &words) override {
        auto &h = h_;
        const int shift = u24_shift(is_mcg(conf_));
        const Xmm p = h.vmm(0), q = h.vmm(1), upper = h.vmm(2), x = h.vmm(3),
                  t = h.vmm(11);
        // j = 2 k + 1; u = j 2^-25, 1 - u = (2^25 - j) 2^-25.
        h.uni_load(p, words);
        h.uni_vpsrld(p, p, shift);
        h.uni_vpslld(p, p, 1);
        h.uni_vpor(p, p, C(i_one));
        h.uni_load(q, C(i_2p25));
        h.uni_vpsubd(q, q, p);
        h.uni_vcvtdq2ps(p, p);
        h.uni_vcvtdq2ps(q, q);
        h.uni_vmulps(p, p, C(two_m25));
        h.uni_vmulps(q, q, C(two_m25));
        // p = Phi(alpha) + u M, q = Q(beta) + (1 - u) M; x = p or q.
        h.uni_vmulps(p, p, C(tn_mass));
        h.uni_vaddps(p, p, C(tn_phi_a));
        h.uni_vmulps(q, q, C(tn_mass));
        h.uni_vaddps(q, q, C(tn_q_b));
        h.uni_vcmpps(upper, p, C(f_half), cmp_nle); // p > 0.5
        h.uni_select(x, upper, q, p, t);

        // Central: zc = c A(r) / B(r), c = x - 0.5, r = 0.180625 - c^2.
        const Xmm c = h.vmm(0), r = h.vmm(1), zc = h.vmm(4), den = h.vmm(5),
                  central = h.vmm(0);
        h.uni_vsubps(c, x, C(f_half));
        h.uni_vmulps(den, c, c);
        h.uni_load(r, C(ppnd_const_r));
        h.uni_vsubps(r, r, den);
        emit_horner(zc, r, RNDNN_JIT_CONST(ppnd_a), 4);
        emit_horner(den, r, RNDNN_JIT_CONST(ppnd_b), 4);
        h.uni_vmulps(zc, zc, c);
        h.uni_vdivps(zc, zc, den);
        h.uni_vcmpps(central, c, C(ppnd_minus_split_q), cmp_nlt);

        // Tails: s = sqrt(0 - ln x); C(s - 1.6) / D(s - 1.6) for s <= 5,
        // else E(s - 5) / F(s - 5). A register of central lanes skips them,
        // one without far lanes skips the far tail (the values are the
        // same: a select would drop them).
        Xbyak::Label all_central, no_far;
        const Xmm ln = h.vmm(3), s = h.vmm(5), d = h.vmm(1), near = h.vmm(3),
                  is_near = h.vmm(9), far = h.vmm(6), fden = h.vmm(7),
                  zt = h.vmm(1);
        const uint32_t all_lanes = (1u << (h.vlen() / 4)) - 1;
        h.uni_vmovmskps(h.eax, central);
        h.cmp(h.eax, all_lanes);
        h.je(all_central, h.T_NEAR);
        emit_ln(ln, x, h.vmm(1), h.vmm(5), h.vmm(6), h.vmm(7), h.vmm(8));
        h.uni_vpxor(s, s, s);
        h.uni_vsubps(s, s, ln);
        h.uni_vsqrtps(s, s);
        h.uni_vsubps(d, s, C(ppnd_shift_c));
        emit_horner(near, d, RNDNN_JIT_CONST(ppnd_c), 4);
        emit_horner(fden, d, RNDNN_JIT_CONST(ppnd_d), 3);
        h.uni_vdivps(near, near, fden);
        h.uni_vcmpps(is_near, s, C(ppnd_split_r), cmp_le);
        h.uni_vmovmskps(h.eax, is_near);
        h.cmp(h.eax, all_lanes);
        h.je(no_far, h.T_NEAR);
        h.uni_vsubps(d, s, C(ppnd_split_r));
        emit_horner(far, d, RNDNN_JIT_CONST(ppnd_e), 4);
        emit_horner(fden, d, RNDNN_JIT_CONST(ppnd_f), 3);
        h.uni_vdivps(far, far, fden);
        h.uni_select(near, is_near, near, far, t);
        h.L(no_far);
        h.uni_vpxor(zt, zt, zt);
        h.uni_vsubps(zt, zt, near); // 0 - C / D or 0 - E / F
        h.uni_select(zc, central, zc, zt, t);
        h.L(all_central);

        // z = the quantile, negated (0 - z) for q; mean + stddev z,
        // clamped to [lo, hi].
        const Xmm z = zc, neg = h.vmm(1);
        h.uni_vpxor(neg, neg, neg);
        h.uni_vsubps(neg, neg, z);
        h.uni_select(neg, upper, neg, z, t);
        h.uni_vmulps(neg, neg, C(stddev));
        h.uni_vaddps(neg, neg, C(mean));
        h.uni_vmaxps(neg, neg, C(tn_lo));
        h.uni_vminps(v, neg, C(tn_hi));
    }
};

// --- Integers, to s64, s32, u8, f32 ----------------------------------------
// 2 words an element (r <= 2^32): an element's words W(2g), W(2g + 1) are
// the dwords of a qword lane, low and high: X = w0 2^32 + w1, and floor(X
// r / 2^64) = (w0 r + (w1 r >> 32)) >> 32 (no carry out:
// rng/distributions.hpp), two vpmuludq whose memory operands are the
// words and the words 4 bytes on (w1 in the low dword); r = 2^32 takes w0
// itself. The narrower types keep the low dword of low + v (values that
// fit, checked at creation): the high dwords of the sums, packed, plus low
// mod 2^32.
//
// 4 words an element (r > 2^32): X = xh 2^64 + xl, xh = w0 2^32 + w1, xl =
// w2 2^32 + w3; the elements' (w0, w1) and (w2, w3) qwords are gathered
// into two registers, and v = hi64(xh r + hi64(xl r)) in 32-bit halves
// (emit_mul_hi), eight vpmuludq.
class jit_integers_t : public jit_dist_t {
public:
    using jit_dist_t::jit_dist_t;

    int unit_elems() const override { return jit_unit_words / words(); }
    int unit_bytes() const override { return unit_elems() * out_size(); }

    void emit_unit() override {
        const int per_vec = h_.vlen() / 8; // elements (qwords) a vector
        h_.uni_load(r_lo_, C(int_range));
        if (words() == 4) h_.uni_load(r_hi_, C(int_range_hi));
        h_.uni_load(low_, C(int_low));
        for (int i = 0; i < unit_elems() / per_vec; i += 2) {
            const Xmm a = h_.vmm(0), b = h_.vmm(1);
            const int first = i * per_vec * out_size(); // bytes
            const Address at = h_.ptr[f_.dst + first];
            if (words() == 4) { // s64 alone holds ranges above 2^32
                emit_values4(a, i);
                emit_values4(b, i + 1);
            } else {
                emit_sums2(a, i, h_.vmm(2));
                emit_sums2(b, i + 1, h_.vmm(3));
                if (dst_type(conf_) != data_type::s64) {
                    emit_store_high(a, b, at);
                    continue;
                }
                for (const Xmm &v : {a, b}) {
                    h_.uni_vpsrlq(v, v, 32);
                    h_.uni_vpaddq(v, v, low_);
                }
            }
            h_.uni_store_out(at, a);
            h_.uni_store_out(h_.ptr[f_.dst + first + h_.vlen()], b);
        }
        h_.add(f_.dst, unit_bytes());
    }

    void fill_consts(double, jit_rng_consts_t &c) const override {
        c.int_range.fill(static_cast<uint32_t>(conf_.range));
        c.int_range_hi.fill(static_cast<uint32_t>(conf_.range >> 32));
        c.int_low32.fill(static_cast<uint32_t>(conf_.low));
        c.int_lo32.fill_lo(~0u);
        for (int lane = 0; lane < 8; ++lane) {
            c.int_low.set_q(lane, static_cast<uint64_t>(conf_.low));
            c.int_perm[0].set_q(lane, 2 * lane);
            c.int_perm[1].set_q(lane, 2 * lane + 1);
        }
        for (int k = 0; k < 16; ++k)
            c.int_odd.d[k] = 2 * k + 1;
    }

private:
    int words() const { return integers_words(conf_.range); }
    int out_size() const {
        return static_cast<int>(dt_bits(dst_type(conf_)) / 8);
    }
    Address words_at(int byte) const {
        return h_.ptr[h_.rsp + f_.words_off + byte];
    }

    // 2 words: s = w0 r + (w1 r >> 32) of vector i of the unit's words,
    // whose high dwords are the offsets v (r = 2^32: s = w0 2^32); t is
    // clobbered. The words 4 bytes on end 4 bytes past the unit's, inside
    // the frame's words slot (vpmuludq ignores the dword read there).
    void emit_sums2(const Xmm &s, int i, const Xmm &t) {
        const int at = i * h_.vlen();
        if (conf_.range == (uint64_t(1) << 32)) {
            h_.uni_load(s, words_at(at));
            h_.uni_vpsllq(s, s, 32);
            return;
        }
        h_.uni_vpmuludq(t, r_lo_, words_at(at + 4)); // w1 r
        h_.uni_vpsrlq(t, t, 32);
        h_.uni_vpmuludq(s, r_lo_, words_at(at)); // w0 r
        h_.uni_vpaddq(s, s, t);
    }

    // 4 words: v = the values of vector i of the unit's elements, in
    // qword lanes in order; vmm 2 to 8 are clobbered.
    void emit_values4(const Xmm &v, int i) {
        auto &h = h_;
        const int at = 2 * i * h.vlen();
        const Xmm hi = h.vmm(2), lo = h.vmm(3), c = h.vmm(4);
        // hi: (w0, w1) of each element, lo: (w2, w3).
        h.uni_load(c, words_at(at));
        if (h.is_avx512()) { // in order
            h.uni_load(hi, C(int_perm[0]));
            h.vpermi2q(hi, c, words_at(at + h.vlen()));
            h.uni_load(lo, C(int_perm[1]));
            h.vpermi2q(lo, c, words_at(at + h.vlen()));
        } else { // elements 0, 2, 1, 3; vpermq below restores the order
            h.vpunpckhqdq(lo, c, words_at(at + h.vlen()));
            h.vpunpcklqdq(hi, c, words_at(at + h.vlen()));
        }
        emit_mul_hi(c, lo, false); // hi64(xl r)
        emit_mul_hi(c, hi, true); // hi64(xh r + hi64(xl r))
        h.uni_vpaddq(v, c, low_);
        if (!h.is_avx512()) h.vpermq(Ymm(v.getIdx()), Ymm(v.getIdx()), 0xD8);
    }

    // c = hi64(x r + c), c < 2^64 (0 without with_c: c is only written),
    // x = a 2^32 + b with a in the low dword of its qword lane and b in the
    // high one (the words' order), r = p 2^32 + q: t = b q + (c mod 2^32),
    // u = a q + (t >> 32) + (c >> 32), w = b p + (u mod 2^32), then c = a p
    // + (u >> 32) + (w >> 32); each sum is below 2^64. vmm 5 to 8 are
    // clobbered.
    void emit_mul_hi(const Xmm &c, const Xmm &x, bool with_c) {
        auto &h = h_;
        const Xmm b = h.vmm(5), t = h.vmm(6), u = h.vmm(7), w = h.vmm(8);
        h.uni_vpsrlq(b, x, 32);
        h.uni_vpmuludq(t, b, r_lo_);
        if (with_c) {
            h.uni_vpand(u, c, C(int_lo32));
            h.uni_vpaddq(t, t, u);
        }
        h.uni_vpsrlq(t, t, 32);
        h.uni_vpmuludq(u, x, r_lo_);
        h.uni_vpaddq(u, u, t);
        if (with_c) {
            h.uni_vpsrlq(c, c, 32);
            h.uni_vpaddq(u, u, c);
        }
        h.uni_vpmuludq(w, b, r_hi_);
        h.uni_vpand(t, u, C(int_lo32));
        h.uni_vpaddq(w, w, t);
        h.uni_vpsrlq(u, u, 32);
        h.uni_vpsrlq(w, w, 32);
        h.uni_vpmuludq(c, x, r_hi_);
        h.uni_vpaddq(c, c, u);
        h.uni_vpaddq(c, c, w);
    }

    // 2 words, s32, u8, f32: the high dwords of the sums a, b (2 L
    // elements, L a vector) plus low mod 2^32, to dst at `at`; a and b are
    // clobbered.
    void emit_store_high(const Xmm &a, const Xmm &b, const Address &at) {
        auto &h = h_;
        const data_type t = dst_type(conf_);
        const Xmm v = h.vmm(2);
        if (h.is_avx512()) {
            h.uni_load(v, C(int_odd));
            h.vpermi2d(v, a, b);
        } else {
            h.vshufps(v, a, b, 0xDD);
            h.vpermq(Ymm(v.getIdx()), Ymm(v.getIdx()), 0xD8);
        }
        h.uni_vpaddd(v, v, C(int_low32));
        if (t == data_type::f32) h.uni_vcvtdq2ps(v, v);
        if (t != data_type::u8) {
            h.uni_store_out(at, v);
        } else if (h.is_avx512()) {
            h.vpmovdb(at, Zmm(v.getIdx()));
        } else {
            const Xmm lo(v.getIdx()), hi(a.getIdx());
            h.vextracti128(hi, Ymm(v.getIdx()), 1);
            h.vpackusdw(lo, lo, hi);
            h.vpackuswb(lo, lo, lo);
            h.vmovq(at, lo);
        }
    }

    const Xmm r_lo_ = h_.vmm(15), r_hi_ = h_.vmm(13), low_ = h_.vmm(14);
};

#undef C

} // namespace

std::unique_ptr<jit_dist_t> make_jit_uniform(
        jit_generator_t &h, const jit_rng_frame_t &f, const rng_conf_t &conf) {
    if (dst_type(conf) == data_type::f64)
        return std::make_unique<jit_uniform_f64_t>(h, f, conf);
    return std::make_unique<jit_uniform_t>(h, f, conf);
}

std::unique_ptr<jit_dist_t> make_jit_normal(
        jit_generator_t &h, const jit_rng_frame_t &f, const rng_conf_t &conf) {
    if (dst_type(conf) == data_type::f64)
        return std::make_unique<jit_normal_f64_t>(h, f, conf, false);
    return std::make_unique<jit_normal_t>(h, f, conf, false);
}

std::unique_ptr<jit_dist_t> make_jit_lognormal(
        jit_generator_t &h, const jit_rng_frame_t &f, const rng_conf_t &conf) {
    if (dst_type(conf) == data_type::f64)
        return std::make_unique<jit_normal_f64_t>(h, f, conf, true);
    return std::make_unique<jit_normal_t>(h, f, conf, true);
}

std::unique_ptr<jit_dist_t> make_jit_ln_value(
        jit_generator_t &h, const jit_rng_frame_t &f, const rng_conf_t &conf) {
    if (dst_type(conf) == data_type::f64)
        return std::make_unique<jit_ln_value_f64_t>(h, f, conf);
    return std::make_unique<jit_ln_value_t>(h, f, conf);
}

std::unique_ptr<jit_dist_t> make_jit_truncated_normal(
        jit_generator_t &h, const jit_rng_frame_t &f, const rng_conf_t &conf) {
    if (dst_type(conf) == data_type::f64)
        return std::make_unique<jit_truncnorm_f64_t>(h, f, conf);
    return std::make_unique<jit_truncnorm_t>(h, f, conf);
}

std::unique_ptr<jit_dist_t> make_jit_integers(
        jit_generator_t &h, const jit_rng_frame_t &f, const rng_conf_t &conf) {
    return std::make_unique<jit_integers_t>(h, f, conf);
}

} // namespace impl
} // namespace rndnn
