// Bernoulli threshold32 and onednn: JIT code comparing words with t.
#include "rng/jit/jit_rng_dist_parts.hpp"

namespace rndnn {
namespace impl {
namespace {

using namespace Xbyak;

#define C(field) RNDNN_JIT_C(field)

// --- Bernoulli threshold32 (and onednn) to bit, u8, s32 or f32 -----------
// W < t as a signed compare of W ^ bias against t ^ bias (bias 2^31 for
// 32-bit words, 0 for 31-bit mcg31m1 words). t = 2^32 (p = 1) does not fit:
// then `full` is all ones and is or-ed in. bit and u8: four compare
// results pack to bytes in index order (avx2: packs work per 128-bit lane,
// vpermd restores the order); bit dst takes their sign bits. s32 and f32:
// each compare result and-ed with a 1 of the type.
class jit_threshold_t : public jit_dist_t {
public:
    using jit_dist_t::jit_dist_t;

    int unit_bytes() const override {
        return dst_type(conf_) == data_type::bit
                ? jit_unit_words / 8
                : jit_unit_words * static_cast<int>(dt_bits(dst_type(conf_)) / 8);
    }

    void emit_unit() override {
        if (h_.is_avx512()) {
            emit_unit_avx512();
            return;
        }
        const data_type dt = dst_type(conf_);
        const int vlen = h_.vlen();
        const int words_per_blk = vlen; // four registers of vlen / 4 words
        const Xmm thr = h_.vmm(15), bias = h_.vmm(14), perm = h_.vmm(13),
                  one = h_.vmm(12);
        h_.uni_load(thr, C(thr));
        if (!is_mcg(conf_)) h_.uni_load(bias, C(bias));
        if (dt == data_type::s32 || dt == data_type::f32)
            h_.uni_load(one, C(dst_one));
        else if (!h_.is_sse())
            h_.vmovdqu(Ymm(perm.getIdx()), C(perm));
        for (int blk = 0; blk < jit_unit_words / words_per_blk; ++blk) {
            for (int i = 0; i < 4; ++i) {
                const Xmm w = h_.vmm(i), c = h_.vmm(4 + i);
                h_.uni_load(w, h_.ptr[h_.rsp + f_.words_off
                                      + (blk * 4 + i) * vlen]);
                if (!is_mcg(conf_)) h_.uni_vpxor(w, w, bias);
                h_.uni_vpcmpgtd(c, thr, w);
                if (dt == data_type::s32 || dt == data_type::f32) {
                    h_.uni_vpor(c, c, C(full));
                    h_.uni_vpand(c, c, one);
                    h_.uni_store_out(
                            h_.ptr[f_.dst + (blk * 4 + i) * vlen], c);
                }
            }
            if (dt == data_type::s32 || dt == data_type::f32) continue;
            const Xmm p0 = h_.vmm(8), p1 = h_.vmm(9), p = h_.vmm(10);
            h_.uni_vpackssdw(p0, h_.vmm(4), h_.vmm(5));
            h_.uni_vpackssdw(p1, h_.vmm(6), h_.vmm(7));
            h_.uni_vpacksswb(p, p0, p1);
            if (!h_.is_sse())
                h_.vpermd(Ymm(p.getIdx()), Ymm(perm.getIdx()), Ymm(p.getIdx()));
            if (dt == data_type::bit) {
                h_.uni_vpmovmskb(h_.eax, p);
                h_.or_(h_.eax, C(full));
                if (h_.is_sse())
                    h_.mov(h_.ptr[f_.dst + blk * 2], h_.ax);
                else
                    h_.mov(h_.ptr[f_.dst + blk * 4], h_.eax);
            } else {
                h_.uni_vpor(p, p, C(full));
                h_.uni_vpand(p, p, C(byte_one));
                h_.uni_store_out(h_.ptr[f_.dst + blk * vlen], p);
            }
        }
        h_.add(f_.dst, unit_bytes());
    }

    void fill_consts(double p, jit_rng_consts_t &c) const override {
        const uint64_t t = is_mcg(conf_) ? bernoulli_threshold_mcg31(p)
                                         : bernoulli_threshold32(p);
        // The signed compare needs both sides xor-ed with 2^31 (not for the
        // 31-bit mcg31m1 words). The oneDNN rule compares ~W with t: W's
        // bias then also flips its other 31 bits; t's stays the sign bit.
        const uint32_t sign = is_mcg(conf_) ? 0u : 0x80000000u;
        const uint32_t bias = conf_.method == bernoulli_method::onednn ? ~sign : sign;
        const bool full = t >> 32;
        c.bias.fill(bias);
        c.thr.fill(full ? 0u : static_cast<uint32_t>(t) ^ sign);
        c.full.fill(full ? ~0u : 0u);
        const uint32_t order[8] = {0, 4, 1, 5, 2, 6, 3, 7};
        for (int i = 0; i < 16; ++i)
            c.perm.d[i] = order[i % 8];
        c.byte_one.fill(0x01010101u);
        c.dst_one.fill(jit_mask_expand_t::one_of(dst_type(conf_)));
        // avx512 compares unsigned words with the threshold directly:
        // W < t, or for the oneDNN rule ~W < t as W > ~t.
        c.thr_u.fill(conf_.method == bernoulli_method::onednn
                        ? ~static_cast<uint32_t>(t)
                        : static_cast<uint32_t>(t));
    }

private:
    // Four compares of 16 words straight into k1-k4; bit dst takes the 64
    // bits at once, the other types a zero-masked move of ones per compare
    // (u8: bytes, s32 and f32: dwords). p = 1 (t = 2^32) or-s in k5 =
    // `full`.
    void emit_unit_avx512() {
        const data_type dt = dst_type(conf_);
        const bool onednn = conf_.method == bernoulli_method::onednn;
        // vpcmpud k = thr OP W: W < t is thr nle (6) W; the oneDNN rule's
        // W > ~t is thr lt (1) W.
        const uint8_t pred = onednn ? 1 : 6;
        const Zmm thr(15);
        h_.vmovdqu32(thr, C(thr_u));
        h_.kmovq(h_.k5, C(full));
        const Opmask k[4] = {h_.k1, h_.k2, h_.k3, h_.k4};
        for (int i = 0; i < 4; ++i) {
            h_.vpcmpud(k[i], thr, h_.ptr[h_.rsp + f_.words_off + i * 64],
                    pred);
        }
        if (dt == data_type::bit) {
            h_.kunpckwd(h_.k1, h_.k2, h_.k1);
            h_.kunpckwd(h_.k3, h_.k4, h_.k3);
            h_.kunpckdq(h_.k1, h_.k3, h_.k1);
            h_.korq(h_.k1, h_.k1, h_.k5);
            h_.kmovq(h_.ptr[f_.dst], h_.k1);
        } else if (dt == data_type::u8) {
            for (int i = 0; i < 4; ++i) {
                h_.korw(k[i], k[i], h_.k5);
                const Xmm b(i);
                h_.vmovdqu8(b | k[i] | h_.T_z, C(byte_one));
                h_.uni_store_out(h_.ptr[f_.dst + i * 16], b);
            }
        } else {
            for (int i = 0; i < 4; ++i) {
                h_.korw(k[i], k[i], h_.k5);
                const Zmm v(i);
                h_.vmovdqu32(v | k[i] | h_.T_z, C(dst_one));
                h_.uni_store_out(h_.ptr[f_.dst + i * 64], v);
            }
        }
        h_.add(f_.dst, unit_bytes());
    }
};

#undef C

} // namespace

std::unique_ptr<jit_dist_t> make_jit_threshold(
        jit_generator_t &h, const jit_rng_frame_t &f, const rng_conf_t &conf) {
    return std::make_unique<jit_threshold_t>(h, f, conf);
}

} // namespace impl
} // namespace rndnn
