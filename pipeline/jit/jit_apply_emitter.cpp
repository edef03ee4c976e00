// The apply emitter: JIT code applying one mask word to 32 elements.
#include "pipeline/jit/jit_apply_emitter.hpp"

namespace rndnn {
namespace impl {

using namespace Xbyak;

namespace {

// The constant table: byte offsets of its entries. Vectors are 64 bytes
// (the widest tier's), aligned for SSE's memory operands.
constexpr int table_vec = 64;
enum table_off_t {
    bit_off = 0, // 32 words: 1 << k
    one_off = 128, // 1.0f
    i_one_off = one_off + table_vec, // 1
    round_off = i_one_off + table_vec, // 0x7fff: below half a bf16 unit
    quiet_off = round_off + table_vec, // 0x40: a bf16 NaN's quiet bit
    shift_off = quiet_off + table_vec, // 32 words: 31 - k
};

// The vector registers: temporaries from 0 up; the general form keeps each
// lane's mask bit and the broadcast mask word at the top, the scaled
// select the scale, a dropped lane's value and (avx2) each lane's shift
// and the broadcast mask word there.
constexpr int tmp_x = 0, tmp_t = 1, tmp_a = 2, tmp_b = 3, tmp_n = 4,
              tmp_h = 5, tmp_q = 6;
constexpr int sel_scale = 15, sel_dropped = 14, sel_word = 9, sel_shift = 10;

} // namespace

jit_apply_emitter_t::jit_apply_emitter_t(
        jit_generator_t &h, const jit_apply_ops_t &ops)
    : h_(h), ops_(ops) {}

bool jit_apply_emitter_t::supported(
        cpu_isa isa, const jit_apply_ops_t &ops, std::string &why) {
    switch (ops.dt) {
        case data_type::f32:
        case data_type::bf16: break;
        case data_type::f16:
            if (isa >= cpu_isa::avx2) break;
            why = "f16 needs F16C (avx2 tier and up)";
            return false;
        default:
            why = cat("dt=", dt2str(ops.dt), " has no JIT kernel");
            return false;
    }
    if (ops.n_linear > 0 && !ops.beta_is_neg_zero && isa < cpu_isa::avx2) {
        why = "linear post-ops need FMA (avx2 tier and up)";
        return false;
    }
    return true;
}

int jit_apply_emitter_t::esize() const {
    return ops_.dt == data_type::f32 ? 4 : 2;
}

int jit_apply_emitter_t::group_bytes() const { return group_elems * esize(); }

bool jit_apply_emitter_t::scaled_select() const {
    return !h_.is_sse() && ops_.alg == binary_alg::mul && ops_.n_linear == 1
            && ops_.beta_is_neg_zero;
}

Address jit_apply_emitter_t::table(int off) const {
    return h_.ptr[h_.rip + table_ + off];
}

void jit_apply_emitter_t::emit_load_consts(const RegExp &linear) {
    if (!scaled_select()) {
        for (int r = 0; r < regs(); ++r)
            h_.uni_load(h_.vmm(16 - regs() + r), table(bit_off + r * h_.vlen()));
        return;
    }
    // A dropped lane is fma(scale, +0, -0.f) = scale * +0: +0, or -0 for
    // a negative scale.
    const Xmm scale = h_.vmm(sel_scale), dropped = h_.vmm(sel_dropped);
    h_.vbroadcastss(scale, h_.ptr[linear]);
    h_.uni_vpxor(dropped, dropped, dropped);
    h_.uni_vmulps(dropped, scale, dropped);
    if (h_.is_avx512()) return;
    for (int r = 0; r < regs(); ++r)
        h_.uni_load(h_.vmm(sel_shift + r), table(shift_off + r * h_.vlen()));
}

void jit_apply_emitter_t::emit_group(const RegExp &word, const RegExp &src,
        const RegExp &dst, const RegExp &linear) {
    if (scaled_select()) {
        if (!h_.is_avx512()) h_.vpbroadcastd(h_.vmm(sel_word), h_.ptr[word]);
        for (int r = 0; r < regs(); ++r) {
            if (h_.is_avx512())
                h_.kmovw(r == 0 ? h_.k1 : h_.k2, h_.ptr[word + 2 * r]);
            emit_reg(r, src, dst, linear);
        }
        return;
    }
    h_.uni_vpbroadcastd(h_.vmm(15 - regs()), h_.ptr[word]);
    for (int r = 0; r < regs(); ++r)
        emit_reg(r, src, dst, linear);
}

void jit_apply_emitter_t::emit_tail_group(const RegExp &word,
        const Address &valid, const RegExp &src, const RegExp &dst,
        const RegExp &linear) {
    if (!scaled_select())
        h_.uni_vpbroadcastd(h_.vmm(15 - regs()), h_.ptr[word]);
    h_.kmovd(h_.k6, valid);
    for (int r = 0; r < regs(); ++r) {
        // Register r covers bits [16 r, 16 r + 16) of valid.
        if (r > 0) h_.kshiftrd(h_.k5, h_.k6, static_cast<uint8_t>(16 * r));
        const Opmask k = r == 0 ? h_.k6 : h_.k5;
        if (scaled_select()) h_.kmovw(h_.k1, h_.ptr[word + 2 * r]);
        emit_reg(r, src, dst, linear, &k);
    }
}

void jit_apply_emitter_t::emit_load(const Xmm &x, int r, const RegExp &src,
        const Opmask *valid) {
    auto &h = h_;
    const int off = r * lanes() * esize();
    // With `valid`, zero-masked loads of the valid lanes only.
    const Xmm xv = valid ? x | *valid | h.T_z : x;
    switch (ops_.dt) {
        case data_type::bf16:
            h.uni_vpmovzxwd(xv, h.ptr[src + off]);
            h.uni_vpslld(x, x, 16);
            break;
        case data_type::f16: h.vcvtph2ps(xv, h.ptr[src + off]); break;
        default: h.uni_load(xv, h.ptr[src + off]);
    }
}

void jit_apply_emitter_t::emit_reg(int r, const RegExp &src,
        const RegExp &dst, const RegExp &linear, const Opmask *valid) {
    auto &h = h_;
    const Xmm x = h.vmm(tmp_x), t = h.vmm(tmp_t), a = h.vmm(tmp_a),
              b = h.vmm(tmp_b);

    if (scaled_select()) {
        // x = bit ? scale * x : scale * +0, apply_value()'s fma(scale, x,
        // -0.f) (adding -0 changes no value). The scale is the product's
        // first operand: were both NaN, its payload would win, as in fma.
        const Xmm scale = h.vmm(sel_scale), dropped = h.vmm(sel_dropped);
        if (h.is_avx512()) {
            // k1 (the tail: k1 of register r) = the lanes' bits; the
            // product is merged into the dropped value. The data is loaded
            // apart: a masked multiply with a memory operand runs several
            // times slower on Zen 5 (2^25 f32: 11.3 ms against 6.0).
            emit_load(x, r, src, valid);
            const Xmm y = h.vmm(tmp_t);
            h.vmovaps(y, dropped);
            h.vmulps(y | (valid || r == 0 ? h.k1 : h.k2), scale, x);
            emit_store(y, r, dst, valid);
            return;
        }
        h.vpsllvd(t, h.vmm(sel_word), h.vmm(sel_shift + r));
        if (ops_.dt == data_type::f32) { // the product's memory operand
            h.vmulps(x, scale, h.ptr[src + r * lanes() * esize()]);
        } else {
            emit_load(x, r, src, valid);
            h.vmulps(x, scale, x);
        }
        h.vblendvps(x, dropped, x, t);
        emit_store(x, r, dst, valid);
        return;
    }

    emit_load(x, r, src, valid);
    const Xmm bit = h.vmm(16 - regs() + r), word = h.vmm(15 - regs());
    if (h.is_avx512()) {
        // k1 = the lanes whose bit is set: mul zeroes the others (+0); add
        // adds 1.0f there and 0.0f elsewhere (adding 0 is not a no-op:
        // -0 + 0 is +0).
        h.vptestmd(h.k1, word, bit);
        if (ops_.alg == binary_alg::mul) {
            h.vmovaps(x | h.k1 | h.T_z, x);
        } else {
            h.vmovaps(t | h.k1 | h.T_z, table(one_off));
            h.vaddps(x, x, t);
        }
    } else {
        // t = ~0 in the lanes whose bit is set.
        h.uni_vpand(t, word, bit);
        h.uni_vpcmpeqd(t, t, bit);
        if (ops_.alg == binary_alg::mul) {
            h.uni_vpand(x, x, t);
        } else {
            h.uni_vpand(t, t, table(one_off));
            h.uni_vaddps(x, x, t);
        }
    }

    Xmm v = x;
    if (ops_.beta_is_neg_zero) {
        // alpha first: when both are NaN, alpha's payload wins, as in the
        // reference's fma(alpha, x, -0.f).
        h.uni_vbroadcastss(a, h.ptr[linear]);
        h.uni_vmulps(a, a, x);
        v = a;
    } else {
        for (int k = 0; k < ops_.n_linear; ++k) {
            h.vbroadcastss(a, h.ptr[linear + 8 * k]);
            h.vbroadcastss(b, h.ptr[linear + 8 * k + 4]);
            h.vfmadd213ps(x, a, b);
        }
    }
    emit_store(v, r, dst, valid);
}

void jit_apply_emitter_t::emit_store(const Xmm &v, int r, const RegExp &dst,
        const Opmask *valid) {
    auto &h = h_;
    const int off = r * lanes() * esize();
    switch (ops_.dt) {
        case data_type::bf16: {
            const Xmm w = emit_round_bf16(v);
            // Pack the lanes' low halves into the low half of w.
            if (h.is_avx512()) {
                if (valid)
                    h.vpmovdw(h.ptr[dst + off] | *valid, w);
                else
                    h.vpmovdw(h.ptr[dst + off], w);
            } else if (h.is_sse()) {
                h.packusdw(w, w);
                h.movq(h.ptr[dst + off], w);
            } else {
                const Ymm y(w.getIdx());
                h.vpackusdw(y, y, y);
                h.vpermq(y, y, 0x08);
                h.vmovdqu(h.ptr[dst + off], Xmm(w.getIdx()));
            }
            break;
        }
        case data_type::f16:
            // Immediate 0: round to nearest even, whatever MXCSR says.
            if (valid)
                h.vcvtps2ph(h.ptr[dst + off] | *valid, v, 0);
            else
                h.vcvtps2ph(h.ptr[dst + off], v, 0);
            break;
        default:
            if (valid)
                h.vmovdqu32(h.ptr[dst + off] | *valid, v);
            else
                h.uni_store_out(h.ptr[dst + off], v);
    }
}

Xmm jit_apply_emitter_t::emit_round_bf16(const Xmm &x) {
    auto &h = h_;
    const Xmm nan = h.vmm(tmp_n), hi = h.vmm(tmp_h), q = h.vmm(tmp_q);
    // f32_to_bf16: a NaN keeps its top bits and becomes quiet; any other
    // value rounds to nearest even: (x + 0x7fff + lsb) >> 16. A quiet NaN
    // whose low 16 bits are 0 comes through the rounding unchanged
    // (scaled_select(): no other NaN reaches here).
    if (!scaled_select()) {
        h.uni_vcmpunordps(nan, x);
        h.uni_vpsrld(hi, x, 16);
        h.uni_vpor(q, hi, table(quiet_off));
    } else {
        h.uni_vpsrld(hi, x, 16);
    }
    h.uni_vpand(hi, hi, table(i_one_off));
    h.uni_vpaddd(x, x, hi);
    h.uni_vpaddd(x, x, table(round_off));
    h.uni_vpsrld(x, x, 16);
    if (!scaled_select()) {
        h.uni_select(hi, nan, q, x, nan);
        return hi;
    }
    return x;
}

void jit_apply_emitter_t::emit_table() {
    h_.align(64);
    h_.L(table_);
    for (int k = 0; k < 32; ++k)
        h_.dd(1u << k);
    for (const uint32_t v : {0x3f800000u, 1u, 0x7fffu, 0x40u})
        for (int i = 0; i < table_vec / 4; ++i)
            h_.dd(v);
    for (int k = 0; k < 32; ++k)
        h_.dd(31u - static_cast<uint32_t>(k));
}

} // namespace impl
} // namespace rndnn
