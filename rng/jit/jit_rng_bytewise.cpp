// Bernoulli bytewise: JIT code comparing bytes, ties decided by more words.
#include "rng/jit/jit_rng_dist_parts.hpp"

namespace rndnn {
namespace impl {
namespace {

using namespace Xbyak;

#define C(field) RNDNN_JIT_C(field)

// --- Bernoulli bytewise ----------------------------------------------------
// A unit is 2048 elements, 512 words, which the engine writes in batches.
// Each batch's bytes are compared with t_hi at once (avx512: vpcmpub and
// vpcmpeqb into k registers; below: pcmpgtb on bytes biased by 0x80,
// pcmpeqb, pmovmskb), giving the decision bits (V < t_hi) and the tie bits
// (V == t_hi, 1 in 256); a consumer step follows each batch. At the unit's
// end the ties are decided in index order: the words of the unit's first
// ties come from the engine's lazy blocks (a chunk of one vector's L blocks
// from bytewise_tie_word(u, 0) on, and the next chunk once a chunk's ties
// are used), and a scalar loop over the tie bits (bsf) or-s each tie's
// decision, (R >> 8) < t_lo, into its word. p = 1 (t_hi = 256) or-s
// `full` into every word.
class jit_bytewise_t : public jit_mask_dist_t {
public:
    jit_bytewise_t(jit_generator_t &h, const jit_rng_frame_t &f,
            const rng_conf_t &conf, jit_engine_t &engine)
        : jit_mask_dist_t(h, f, conf), engine_(engine) {}

    int unit_words() const override {
        return static_cast<int>(bytewise_unit_words);
    }
    bool drives_engine() const override { return true; }

    void emit_init() override {
        // The first unit's first tie block, bytewise_tie_word(u, 0) / 4.
        h_.mov(h_.rax, h_.ptr[f_.args + offsetof(jit_rng_call_t, unit)]);
        h_.imul(h_.rax, h_.rax, unit_tie_blocks);
        h_.mov(h_.rcx, bytewise_tie_word(0, 0) / 4);
        h_.add(h_.rax, h_.rcx);
        h_.mov(h_.ptr[h_.rsp + tie_base_off], h_.rax);
    }

    void emit_unit() override {
        const int bw = engine_.batch_words();
        const Reg64 out = h_.rdx, ties = h_.rsi, batches = f_.batch_cnt;
        h_.lea(out, h_.ptr[mask_base()]);
        h_.lea(ties, h_.ptr[h_.rsp + ties_off]);
        h_.mov(batches, static_cast<int>(bytewise_unit_words) / bw);
        Label batch;
        h_.L(batch);
        h_.lea(h_.rax, h_.ptr[h_.rsp + f_.words_off]);
        engine_.emit_batch(h_.rax);
        emit_decide(bw, out, ties);
        h_.add(out, bw / 2);
        h_.add(ties, bw / 2);
        emit_step(bw / 8);
        h_.dec(batches);
        h_.jnz(batch, h_.T_NEAR);
        emit_ties();
        emit_full();
        h_.add(h_.qword[h_.rsp + tie_base_off], unit_tie_blocks);
        emit_unit_end();
    }

    void fill_consts(double p, jit_rng_consts_t &c) const override {
        const uint64_t t = bernoulli_threshold32(p);
        const bool full = t >> 32;
        // p = 1: no byte is below t_hi or ties; `full` sets every bit.
        const auto hi = full ? 0u : static_cast<uint32_t>(t >> 24);
        c.tie_byte.fill(hi * 0x01010101u);
        c.tie_byte_biased.fill((hi ^ 0x80u) * 0x01010101u);
        c.byte_bias.fill(0x80808080u);
        c.tie_lo = full ? 0u : static_cast<uint32_t>(t & 0xffffffu);
        c.full.fill(full ? ~0u : 0u);
        for (int l = 0; l < 32; ++l)
            c.lazy_iota[l / 16].d[l % 16] = static_cast<uint32_t>(l);
        jit_mask_expand_t::fill_consts(dst_type(conf_), c);
    }

private:
    // Stack slots in the words' area, after a batch's words: the unit's
    // tie bits (64 words), a chunk of tie words (lazy blocks), the tie
    // block of the current chunk.
    static constexpr int ties_off = jit_rng_frame_t::words_off + 512;
    static constexpr int chunk_off = ties_off + 256;
    static constexpr int tie_base_off = chunk_off + 4 * 64;
    static constexpr int chunk_block_off = tie_base_off + 8;
    static_assert(chunk_block_off + 8 <= jit_rng_frame_t::max_words * 4,
            "the bytewise slots fit the words' area");
    // The engine blocks of a unit's tie words (one a 4 ties, 2048 ties at
    // most), from one unit's to the next.
    static constexpr int unit_tie_blocks
            = static_cast<int>(bytewise_unit_elems / 4);

    int lanes() const { return h_.vlen() / 4; }
    // Tie words a chunk holds: a vector of lanes' blocks (a unit has 8
    // ties on average), or fewer for tests (rng_conf_t::tie_chunk_blocks).
    int chunk_words() const {
        const int blocks = conf_.tie_chunk_blocks;
        return 4 * (blocks > 0 && blocks < lanes() ? blocks : lanes());
    }

    // The decision and tie bits of the batch's bw words to [out], [ties].
    void emit_decide(int bw, const Reg64 &out, const Reg64 &ties) {
        const int vlen = h_.vlen(), bytes = vlen / 8;
        if (h_.is_avx512()) {
            const Zmm t(15);
            h_.vmovdqu32(t, C(tie_byte));
            for (int v = 0; v < bw * 4 / vlen; ++v) {
                const Address w = h_.ptr[h_.rsp + f_.words_off + v * vlen];
                h_.vpcmpub(h_.k1, t, w, 6); // t_hi > V
                h_.vpcmpeqb(h_.k2, t, w);
                h_.kmovq(h_.ptr[out + v * bytes], h_.k1);
                h_.kmovq(h_.ptr[ties + v * bytes], h_.k2);
            }
            return;
        }
        const Xmm t = h_.vmm(15), tb = h_.vmm(14), bias = h_.vmm(13);
        h_.uni_load(t, C(tie_byte));
        h_.uni_load(tb, C(tie_byte_biased));
        h_.uni_load(bias, C(byte_bias));
        for (int v = 0; v < bw * 4 / vlen; ++v) {
            const Xmm w = h_.vmm(2 * (v % 4)), x = h_.vmm(2 * (v % 4) + 1);
            h_.uni_load(w, h_.ptr[h_.rsp + f_.words_off + v * vlen]);
            if (h_.is_sse()) {
                h_.movdqa(x, w);
                h_.pcmpeqb(x, t);
                h_.pmovmskb(h_.eax, x);
                h_.mov(h_.word[ties + v * bytes], h_.ax);
                h_.pxor(w, bias);
                h_.movdqa(x, tb);
                h_.pcmpgtb(x, w);
                h_.pmovmskb(h_.eax, x);
                h_.mov(h_.word[out + v * bytes], h_.ax);
            } else {
                h_.vpcmpeqb(x, w, t);
                h_.vpmovmskb(h_.eax, x);
                h_.mov(h_.dword[ties + v * bytes], h_.eax);
                h_.vpxor(w, w, bias);
                h_.vpcmpgtb(x, tb, w);
                h_.vpmovmskb(h_.eax, x);
                h_.mov(h_.dword[out + v * bytes], h_.eax);
            }
        }
    }

    // The unit's ties, in index order: each tie's decision or-ed into its
    // word of [mask_base()].
    void emit_ties() {
        auto &h = h_;
        const int vlen = h.vlen();
        const Reg64 o = h.rax, nz = h.rbx, b = h.rcx, e = h.rdx, k = h.rsi,
                    q = h.r8, t = h.r9, u = h.r10, cbase = h.r11;
        Label done, next_q, next_b, no_refill;
        // nz: bit q set where tie qword q is not 0.
        h.xor_(nz, nz);
        const int per = vlen / 8; // qwords a vector
        for (int v = 0; v < 256 / vlen; ++v) {
            const Xmm x = h.vmm(v % 8);
            const Address at = h.ptr[h.rsp + ties_off + v * vlen];
            if (h.is_avx512()) {
                h.vmovdqu64(x, at);
                h.vptestmq(h.k1, x, x);
                h.kmovb(h.eax, h.k1);
            } else {
                h.uni_load(x, at);
                if (h.is_sse()) {
                    h.pxor(h.xmm15, h.xmm15);
                    h.pcmpeqq(x, h.xmm15);
                    h.movmskpd(h.eax, x);
                } else {
                    h.vpxor(Ymm(15), Ymm(15), Ymm(15));
                    h.vpcmpeqq(Ymm(x.getIdx()), Ymm(x.getIdx()), Ymm(15));
                    h.vmovmskpd(h.eax, Ymm(x.getIdx()));
                }
                h.xor_(h.eax, (1 << per) - 1); // zero qwords -> 0
            }
            if (v > 0) h.shl(h.rax, v * per);
            h.or_(nz, h.rax);
        }
        h.test(nz, nz);
        h.jz(done, h.T_NEAR);
        h.mov(cbase, h.ptr[h.rsp + tie_base_off]);
        h.mov(h.ptr[h.rsp + chunk_block_off], cbase);
        emit_chunk(cbase);
        h.xor_(k, k);
        h.L(next_q);
        h.bsf(q, nz);
        h.mov(e, h.ptr[h.rsp + ties_off + q * 8]);
        h.mov(o, h.ptr[mask_base() + q * 8]);
        h.L(next_b);
        h.bsf(b, e);
        // The tie's word in the chunk: word k % 4 of lane k / 4, at
        // (k % 4) vlen + 4 (k / 4).
        h.mov(t, k);
        h.and_(t, 3);
        h.shl(t, log2(vlen));
        h.mov(u, k);
        h.shr(u, 2);
        h.lea(t, h.ptr[t + u * 4]);
        h.mov(t.cvt32(), h.ptr[h.rsp + chunk_off + t]);
        h.shr(t.cvt32(), 8);
        h.xor_(u, u);
        h.cmp(t.cvt32(), h.dword[f_.consts + RNDNN_JIT_CONST(tie_lo)]);
        h.setb(u.cvt8());
        h.shl(u, h.cl);
        h.or_(o, u);
        h.lea(t, h.ptr[e - 1]);
        h.and_(e, t);
        h.inc(k);
        h.cmp(k, chunk_words());
        h.jb(no_refill, h.T_NEAR);
        // The chunk's ties are used: the next chunk (rare).
        h.mov(cbase, h.ptr[h.rsp + chunk_block_off]);
        h.add(cbase, chunk_words() / 4);
        h.mov(h.ptr[h.rsp + chunk_block_off], cbase);
        emit_chunk(cbase);
        h.xor_(k, k);
        h.L(no_refill);
        h.test(e, e);
        h.jnz(next_b, h.T_NEAR);
        h.mov(h.ptr[mask_base() + q * 8], o);
        h.lea(t, h.ptr[nz - 1]);
        h.and_(nz, t);
        h.jnz(next_q, h.T_NEAR);
        h.L(done);
    }

    // A chunk of tie words: blocks cbase + 0, 1, ... (the vector registers
    // and k6 clobbered).
    void emit_chunk(const Reg64 &cbase) {
        engine_.emit_lazy_blocks(1, cbase,
                f_.consts + RNDNN_JIT_CONST(lazy_iota), h_.rsp + chunk_off);
    }

    // p = 1: every bit set.
    void emit_full() {
        Label skip;
        h_.cmp(h_.dword[f_.consts + RNDNN_JIT_CONST(full)], 0);
        h_.je(skip, h_.T_NEAR);
        h_.mov(h_.rax, -1);
        for (int q = 0; q < unit_groups() / 2; ++q)
            h_.mov(h_.ptr[mask_base() + q * 8], h_.rax);
        h_.L(skip);
    }

    static int log2(int v) {
        int n = 0;
        while ((1 << n) < v)
            ++n;
        return n;
    }

    jit_engine_t &engine_;
};

#undef C

} // namespace

std::unique_ptr<jit_dist_t> make_jit_bytewise(jit_generator_t &h,
        const jit_rng_frame_t &f, const rng_conf_t &conf,
        jit_engine_t &engine) {
    return std::make_unique<jit_bytewise_t>(h, f, conf, engine);
}

} // namespace impl
} // namespace rndnn
