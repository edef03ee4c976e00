// Mask bits to Bernoulli values: the JIT code of jit_mask_expand_t.
#include "rng/jit/jit_mask_expand.hpp"

namespace rndnn {
namespace impl {

using namespace Xbyak;

#define C(field) RNDNN_JIT_C(field)

uint32_t jit_mask_expand_t::one_of(data_type dt) {
    switch (dt) {
        case data_type::f32: return float_bits(1.f);
        case data_type::u8: return 0x01010101u;
        default: return 1u;
    }
}

void jit_mask_expand_t::fill_consts(data_type dt, jit_rng_consts_t &c) {
    c.dst_one.fill(one_of(dt));
    for (int k = 0; k < 32; ++k)
        c.lane_bits[k / 16].d[k % 16] = 1u << k;
    auto *shuf = reinterpret_cast<uint8_t *>(c.byte_shuf.d);
    auto *bits = reinterpret_cast<uint8_t *>(c.byte_bits.d);
    for (int i = 0; i < 64; ++i) {
        // Byte i of 32 takes byte i / 8 of the word: pshufb indexes within
        // a 128-bit half, and each half (or xmm) holds the word in its low
        // dword, so the index is i / 8 in either half.
        shuf[i] = static_cast<uint8_t>(i % 32 / 8);
        bits[i] = static_cast<uint8_t>(1u << (i % 8));
    }
}

int jit_mask_expand_t::out_size() const {
    return static_cast<int>(dt_bits(dt_) / 8);
}

void jit_mask_expand_t::emit(
        const RegExp &bits, int words, const Reg64 &out) {
    // Words an iteration: 4, or all of a shorter run (threshold32's unit
    // has 2); avx512 takes u8 words in pairs.
    const int per_iter = words < 4 ? words : 4;
    const Reg64 src = h_.rax, cnt = h_.r8;
    h_.lea(src, h_.ptr[bits]);
    emit_load_consts();
    Label iter;
    if (words > per_iter) {
        h_.mov(cnt, words / per_iter);
        h_.L(iter);
    }
    for (int w = 0; w < per_iter; ++w)
        emit_word(src, w, out, w * 32 * out_size());
    h_.add(out, per_iter * 32 * out_size());
    if (words > per_iter) {
        h_.add(src, per_iter * 4);
        h_.dec(cnt);
        h_.jnz(iter, h_.T_NEAR);
    }
}

// vmm 15: dst_one (s32, f32) or byte_bits (u8); vmm 14 (13): byte_shuf
// (its upper half: sse).
void jit_mask_expand_t::emit_load_consts() {
    if (h_.is_avx512()) return;
    if (dt_ == data_type::u8) {
        h_.uni_load(h_.vmm(15), C(byte_bits));
        h_.uni_load(h_.vmm(14), C(byte_shuf));
        if (h_.is_sse())
            h_.uni_load(h_.vmm(13),
                    h_.ptr[f_.consts + RNDNN_JIT_CONST(byte_shuf) + 16]);
    } else {
        h_.uni_load(h_.vmm(15), C(dst_one));
    }
}

void jit_mask_expand_t::emit_word(
        const Reg64 &src, int w, const Reg64 &out, int off) {
    const int vlen = h_.vlen();
    if (h_.is_avx512()) {
        if (dt_ == data_type::u8) {
            // Two words a store: 64 bytes.
            if (w % 2) return;
            const Zmm z(w % 8);
            h_.kmovq(h_.k1, h_.ptr[src + 4 * w]);
            h_.vmovdqu8(z | h_.k1 | h_.T_z, C(dst_one));
            h_.uni_store_out(h_.ptr[out + off], z);
            return;
        }
        for (int half = 0; half < 2; ++half) {
            const Zmm z((2 * w + half) % 8);
            h_.kmovw(h_.k1, h_.ptr[src + 4 * w + 2 * half]);
            h_.vmovdqu32(z | h_.k1 | h_.T_z, C(dst_one));
            h_.uni_store_out(h_.ptr[out + off + 64 * half], z);
        }
        return;
    }
    const Xmm x = h_.vmm(w % 4);
    if (dt_ == data_type::u8) {
        const Xmm bits = h_.vmm(15);
        if (h_.is_sse()) {
            for (int half = 0; half < 2; ++half) {
                const Xmm y = h_.vmm(4 + 2 * (w % 4) + half);
                h_.movd(y, h_.ptr[src + 4 * w]);
                h_.pshufb(y, h_.vmm(14 - half));
                h_.pand(y, bits);
                h_.pcmpeqb(y, bits);
                h_.pabsb(y, y);
                h_.uni_store_out(h_.ptr[out + off + 16 * half], y);
            }
            return;
        }
        h_.vpbroadcastd(x, h_.ptr[src + 4 * w]);
        h_.vpshufb(x, x, h_.vmm(14));
        h_.vpand(x, x, bits);
        h_.vpcmpeqb(x, x, bits);
        h_.vpabsb(x, x);
        h_.uni_store_out(h_.ptr[out + off], x);
        return;
    }
    h_.uni_vpbroadcastd(x, h_.ptr[src + 4 * w]);
    for (int r = 0; r < 32 * 4 / vlen; ++r) {
        const Xmm t = h_.vmm(4 + (w % 2) * 4 + r % 4);
        const Address lane_bits
                = h_.ptr[f_.consts + RNDNN_JIT_CONST(lane_bits) + r * vlen];
        h_.uni_vpand(t, x, lane_bits);
        h_.uni_vpcmpeqd(t, t, lane_bits);
        h_.uni_vpand(t, t, h_.vmm(15));
        h_.uni_store_out(h_.ptr[out + off + r * vlen], t);
    }
}

#undef C

} // namespace impl
} // namespace rndnn
