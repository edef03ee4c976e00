// Engine emitters: JIT code for Philox, Threefry, MCG31m1 and Multfly word
// batches.
#include "rng/jit/jit_rng_engine.hpp"

#include "rng/engines/mcg31m1.hpp"
#include "rng/engines/multfly.hpp"
#include "rng/engines/philox.hpp"
#include "rng/engines/threefry.hpp"

namespace rndnn {
namespace impl {

namespace {

using namespace Xbyak;

#define C(field) RNDNN_JIT_C(field)

// Philox4x32-10 on register pairs. A pair (A, B) holds Q = vlen / 8
// counters: qword lane q of A is (x0, x1) and of B is (x2, x3) of one
// counter. One vpmuludq then gives both halves of a product in a qword, so
// a round is, per pair:
//   PA = A * m0, PB = B * m1            (lo, hi) in each qword
//   A' = swap(PB) ^ (A >> 32) ^ (k0, 0) = (hi1 ^ x1 ^ k0, lo1)
//   B' = swap(PA) ^ (B >> 32) ^ (k1, 0) = (hi0 ^ x3 ^ k1, lo0)
// and unpck{l,h}qdq(A, B) put whole counters' words in index order when
// qword lane 2L holds counter n + L and lane 2L + 1 counter n + Q/2 + L.
// Independent pairs are interleaved to hide the multiplier's latency.
class jit_philox_t : public jit_engine_t {
public:
    jit_philox_t(jit_generator_t &h, const jit_rng_frame_t &f, bool onednn)
        : jit_engine_t(h, f), onednn_(onednn) {}

    int batch_words() const override { return n_pairs() * 4 * q(); }

    void emit_init() override {
        // The counter lanes of the first pair, kept in the engine's slot.
        const Xmm v = h_.vmm(0);
        h_.mov(h_.rax, h_.ptr[f_.args + offsetof(jit_rng_call_t, first)]);
        h_.uni_broadcast_q(v, h_.rax);
        h_.uni_vpaddq(v, v, h_.ptr[f_.consts + RNDNN_JIT_CONST(lane_ctr)]);
        h_.uni_store(h_.ptr[h_.rsp + f_.engine_off], v);
    }

    void emit_batch(const Reg64 &out) override {
        const int pairs = n_pairs();
        const Xmm ctr = h_.vmm(2 * pairs);
        const Xmm t0 = h_.vmm(14), t1 = h_.vmm(15);
        const Address fixed = h_.ptr[f_.consts + RNDNN_JIT_CONST(fixed)];
        const Address step = h_.ptr[f_.consts + RNDNN_JIT_CONST(pair_step)];
        h_.uni_load(ctr, h_.ptr[h_.rsp + f_.engine_off]);
        for (int j = 0; j < pairs; ++j) {
            const Xmm a = h_.vmm(2 * j), b = h_.vmm(2 * j + 1);
            h_.uni_mov(onednn_ ? b : a, ctr);
            h_.uni_load(onednn_ ? a : b, fixed);
            h_.uni_vpaddq(ctr, ctr, step);
        }
        h_.uni_store(h_.ptr[h_.rsp + f_.engine_off], ctr);
        emit_rounds(pairs);
        const int vlen = h_.vlen();
        for (int j = 0; j < pairs; ++j) {
            const Xmm a = h_.vmm(2 * j), b = h_.vmm(2 * j + 1);
            h_.uni_vpunpcklqdq(t0, a, b);
            h_.uni_vpunpckhqdq(t1, a, b);
            h_.uni_store(h_.ptr[out + (2 * j) * vlen], t0);
            h_.uni_store(h_.ptr[out + (2 * j + 1) * vlen], t1);
        }
    }

    // Four pairs even at zmm (where a batch has two): more independent
    // multiplies in flight.
    int lazy_vectors() const override { return 2; }

    // Pair 2v + p holds the blocks of vector v's lanes 2i + p (qword i), so
    // that blending the pairs' halves gives each word of every lane in
    // place: word 0 = even dwords of A(2v), A(2v + 1) << 32 in the odd ones.
    void emit_lazy_blocks(int nvec, const Reg64 &cbase, const RegExp &offsets,
            const RegExp &out) override {
        const int pairs = 2 * nvec;
        const Xmm base = h_.vmm(8);
        const Address fixed = h_.ptr[f_.consts + RNDNN_JIT_CONST(fixed)];
        h_.uni_broadcast_q(base, cbase);
        for (int j = 0; j < pairs; ++j) {
            const Xmm a = h_.vmm(2 * j), b = h_.vmm(2 * j + 1);
            const Xmm ctr = onednn_ ? b : a;
            // The offsets of lanes 2i + j % 2 as qwords.
            h_.uni_load(ctr, h_.ptr[offsets + (j / 2) * h_.vlen()]);
            if (j % 2 == 0) h_.uni_vpsllq(ctr, ctr, 32);
            h_.uni_vpsrlq(ctr, ctr, 32);
            h_.uni_vpaddq(ctr, ctr, base);
            if (onednn_) h_.uni_vpsllq(ctr, ctr, 2); // the counter counts words
            h_.uni_load(onednn_ ? a : b, fixed);
        }
        emit_rounds(pairs);
        if (h_.is_avx512())
            h_.kmovw(h_.k6, h_.ptr[f_.consts + RNDNN_JIT_CONST(odd_lanes)]);
        const int vlen = h_.vlen();
        const Xmm t = h_.vmm(14), x = h_.vmm(15);
        for (int v = 0; v < pairs / 2; ++v) {
            for (int half = 0; half < 2; ++half) { // A: words 0, 1; B: 2, 3
                const Xmm p0 = h_.vmm(4 * v + half), p1 = h_.vmm(4 * v + 2 + half);
                const int w = 2 * half;
                h_.uni_vpsllq(t, p1, 32);
                blend_odd(x, p0, t);
                h_.uni_store(h_.ptr[out + (4 * v + w) * vlen], x);
                h_.uni_vpsrlq(t, p0, 32);
                blend_odd(x, t, p1);
                h_.uni_store(h_.ptr[out + (4 * v + w + 1) * vlen], x);
            }
        }
    }

    void fill_consts(uint64_t seed, uint64_t stream,
            jit_rng_consts_t &c) const override {
        const std::array<uint32_t, 2> key = philox_key(seed);
        for (int r = 0; r < 10; ++r) {
            const std::array<uint32_t, 2> k = philox_round_key(key.data(), r);
            c.key[r][0].fill_lo(k[0]);
            c.key[r][1].fill_lo(k[1]);
        }
        c.mul[0].fill_lo(philox_m0);
        c.mul[1].fill_lo(philox_m1);
        for (int l = 0; l < 8; ++l)
            c.fixed.set_q(l, stream);
        // Lane 2L: counter L; lane 2L + 1: counter Q/2 + L. The oneDNN
        // layout counts words (g & ~3), so its counters step by 4.
        const uint64_t scale = onednn_ ? 4 : 1;
        for (int l = 0; l < 8; ++l) {
            const int lane = l % q();
            const uint64_t ctr = lane % 2 == 0 ? lane / 2 : q() / 2 + lane / 2;
            c.lane_ctr.set_q(l, ctr * scale);
            c.pair_step.set_q(l, static_cast<uint64_t>(q()) * scale);
        }
        c.odd_lanes = 0xAAAAu;
    }

    uint64_t first_of(uint64_t i) const override {
        return onednn_ ? i : i / 4; // i is a multiple of 4
    }
    void init_state(uint64_t, uint64_t, void *) const override {}

private:
    // Register pairs a batch runs interleaved: a batch (4 * q counters a
    // pair) must fit a unit of jit_unit_words words.
    int n_pairs() const { return h_.is_avx512() ? 2 : 4; }
    int q() const { return h_.vlen() / 8; } // counters (qwords) per register

    Address key(int r, int half) const {
        return h_.ptr[f_.consts + RNDNN_JIT_CONST(key) + (2 * r + half) * 64];
    }

    // The ten rounds on the register pairs (vmm 2j, 2j + 1), interleaved;
    // vmm 14 and 15 are clobbered.
    void emit_rounds(int pairs) {
        const Xmm t0 = h_.vmm(14), t1 = h_.vmm(15);
        for (int r = 0; r < 10; ++r) {
            const Address k0 = key(r, 0), k1 = key(r, 1);
            const Address m0 = h_.ptr[f_.consts + RNDNN_JIT_CONST(mul)];
            const Address m1 = h_.ptr[f_.consts + RNDNN_JIT_CONST(mul) + 64];
            for (int j = 0; j < pairs; ++j) {
                const Xmm a = h_.vmm(2 * j), b = h_.vmm(2 * j + 1);
                h_.uni_vpmuludq(t0, a, m0);
                h_.uni_vpmuludq(t1, b, m1);
                h_.uni_vpsrlq(a, a, 32);
                h_.uni_vpsrlq(b, b, 32);
                h_.uni_vpshufd(t1, t1, 0xB1);
                h_.uni_vpshufd(t0, t0, 0xB1);
                if (h_.is_avx512()) { // a ^= t1 ^ k0 in one instruction
                    h_.vpternlogd(a, t1, k0, 0x96);
                    h_.vpternlogd(b, t0, k1, 0x96);
                    continue;
                }
                h_.uni_vpxor(a, a, t1);
                h_.uni_vpxor(a, a, k0);
                h_.uni_vpxor(b, b, t0);
                h_.uni_vpxor(b, b, k1);
            }
        }
    }

    // d = a with the odd dwords of b (k6 holds them at zmm).
    void blend_odd(const Xmm &d, const Xmm &a, const Xmm &b) {
        if (h_.is_sse()) {
            h_.uni_mov(d, a);
            h_.pblendw(d, b, 0xCC);
        } else if (h_.is_avx512()) {
            h_.vpblendmd(d | h_.k6, a, b);
        } else {
            h_.vpblendd(Ymm(d.getIdx()), Ymm(a.getIdx()), Ymm(b.getIdx()), 0xAA);
        }
    }

    bool onednn_;
};

// MCG31m1: eight registers of lane states x (qword lanes (x, 0)); each
// batch stores them as words and multiplies every lane by a^batch mod m.
// Register 2o holds the even words and 2o + 1 the odd words of output
// register o, so (even | odd << 32) is in index order.
class jit_mcg31m1_t : public jit_engine_t {
public:
    jit_mcg31m1_t(jit_generator_t &h, const jit_rng_frame_t &f)
        : jit_engine_t(h, f) {}

    int batch_words() const override { return n_regs * q(); }

    void emit_init() override {
        h_.mov(f_.state, h_.ptr[f_.args + offsetof(jit_rng_call_t, state)]);
    }

    void emit_batch(const Reg64 &out) override {
        const int vlen = h_.vlen();
        const Xmm t = h_.vmm(14), u = h_.vmm(15);
        const Address a_pow = h_.ptr[f_.consts + RNDNN_JIT_CONST(mul)];
        const Address m = h_.ptr[f_.consts + RNDNN_JIT_CONST(mul) + 64];
        for (int r = 0; r < n_regs; ++r)
            h_.uni_load(h_.vmm(r), h_.ptr[f_.state + r * vlen]);
        for (int o = 0; o < n_regs / 2; ++o) {
            h_.uni_vpsllq(t, h_.vmm(2 * o + 1), 32);
            h_.uni_vpor(t, t, h_.vmm(2 * o));
            h_.uni_store(h_.ptr[out + o * vlen], t);
        }
        // x * a^batch < 2^62 folds to 31 bits twice, as mcg31m1_mul does;
        // a state is never 0 mod m, so the result is never m.
        for (int r = 0; r < n_regs; ++r) {
            const Xmm x = h_.vmm(r);
            h_.uni_vpmuludq(x, x, a_pow);
            for (int fold = 0; fold < 2; ++fold) {
                h_.uni_vpsrlq(u, x, 31);
                h_.uni_vpand(x, x, m);
                h_.uni_vpaddq(x, x, u);
            }
            h_.uni_store(h_.ptr[f_.state + r * vlen], x);
        }
    }

    void fill_consts(uint64_t, uint64_t, jit_rng_consts_t &c) const override {
        c.mul[0].fill_lo(mcg31m1_pow(mcg31m1_a, batch_words()));
        c.mul[1].fill_lo(mcg31m1_m);
    }

    uint64_t first_of(uint64_t) const override { return 0; }

    void init_state(uint64_t seed, uint64_t i, void *state) const override {
        auto *s = static_cast<uint64_t *>(state);
        const int words_per_reg = 2 * q();
        uint32_t x = mcg31m1_mul(mcg31m1_state(seed), mcg31m1_pow(mcg31m1_a, i));
        for (int k = 0; k < batch_words(); ++k) {
            const int o = k / words_per_reg, w = k % words_per_reg;
            s[(2 * o + w % 2) * q() + w / 2] = x;
            x = mcg31m1_mul(x, mcg31m1_a);
        }
    }

private:
    static constexpr int n_regs = 8;
    int q() const { return h_.vlen() / 8; }
};


// The lane counters of a structure-of-arrays engine (threefry, multfly):
// register lanes hold L = vlen / 4 consecutive blocks (counters), lane l of
// 128-bit part k = l / 4, position j = l % 4 holding block (L / 4) * j + k,
// so that a 4x4 transpose within 128-bit parts puts the blocks' words in
// index order. The state buffer holds the lanes' low halves, then their
// high halves; each batch adds L with carry.
int soa_lane_block(int lane, int lanes) {
    return (lanes / 4) * (lane % 4) + lane / 4;
}

void soa_init_state(uint64_t i, int lanes, void *state) {
    auto *s = static_cast<uint32_t *>(state);
    for (int lane = 0; lane < lanes; ++lane) {
        const uint64_t n
                = i / 4 + static_cast<uint64_t>(soa_lane_block(lane, lanes));
        s[lane] = static_cast<uint32_t>(n);
        s[lanes + lane] = static_cast<uint32_t>(n >> 32);
    }
}

// The part of a structure-of-arrays engine that counts blocks: lane
// counters in the call's state buffer (low halves, then high halves),
// their constants, and the code that takes the next L blocks' indices.
class jit_soa_engine_t : public jit_engine_t {
public:
    using jit_engine_t::jit_engine_t;

    void emit_init() override {
        h_.mov(f_.state, h_.ptr[f_.args + offsetof(jit_rng_call_t, state)]);
    }
    uint64_t first_of(uint64_t) const override { return 0; }
    void init_state(uint64_t, uint64_t i, void *state) const override {
        soa_init_state(i, lanes(), state);
    }

protected:
    int lanes() const { return h_.vlen() / 4; }

    void fill_counter_consts(jit_rng_consts_t &c) const {
        c.ctr_step.fill(static_cast<uint32_t>(lanes()));
        c.sign_bit.fill(0x80000000u);
        c.ctr_step_biased.fill(static_cast<uint32_t>(lanes()) ^ 0x80000000u);
    }

    // lo, hi = the lanes' block indices; then they advance by L, carrying
    // into the high half where the low half wraps. w, t, u are clobbered.
    void emit_next_blocks(const Xmm &lo, const Xmm &hi, const Xmm &w,
            const Xmm &t, const Xmm &u) {
        const Address lo_at = h_.ptr[f_.state];
        const Address hi_at = h_.ptr[f_.state + h_.vlen()];
        h_.uni_load(lo, lo_at);
        h_.uni_load(hi, hi_at);
        h_.uni_vpaddd(t, lo, C(ctr_step)); // lo + L
        h_.uni_vpxor(u, t, C(sign_bit));
        h_.uni_load(w, C(ctr_step_biased));
        h_.uni_vpcmpgtd(w, w, u); // ~0 where lo + L wrapped
        h_.uni_store(lo_at, t);
        h_.uni_vpsubd(u, hi, w);
        h_.uni_store(hi_at, u);
    }

    // lo, hi = the blocks cbase + [off] of a vector's lanes (the lazy
    // blocks, jit_engine_t), carrying into the high half where the low half
    // wraps. w and t are clobbered.
    void emit_lazy_counters(const Reg64 &cbase, const Address &off,
            const Xmm &lo, const Xmm &hi, const Xmm &w, const Xmm &t) {
        h_.uni_broadcast_q(w, cbase);
        h_.uni_vpshufd(lo, w, 0x00);
        h_.uni_vpshufd(hi, w, 0x55);
        h_.uni_vpaddd(lo, lo, off);
        h_.uni_vpxor(t, lo, C(sign_bit));
        h_.uni_load(w, off);
        h_.uni_vpxor(w, w, C(sign_bit));
        h_.uni_vpcmpgtd(w, w, t); // ~0 where lo + off wrapped
        h_.uni_vpsubd(hi, hi, w);
    }

    // Stores x0..x3 (word w of L blocks each) as the blocks' words in index
    // order at out + k * vlen: a 4x4 transpose within 128-bit parts
    // (soa_lane_block). t, u are clobbered.
    void emit_store_blocks(const Reg64 &out, int off, const Xmm &x0,
            const Xmm &x1, const Xmm &x2, const Xmm &x3, const Xmm &t,
            const Xmm &u) {
        h_.uni_vpunpckhdq(t, x0, x1);
        h_.uni_vpunpckldq(x0, x0, x1);
        h_.uni_vpunpckhdq(u, x2, x3);
        h_.uni_vpunpckldq(x2, x2, x3);
        h_.uni_vpunpckhqdq(x1, x0, x2);
        h_.uni_vpunpcklqdq(x0, x0, x2);
        h_.uni_vpunpckhqdq(x3, t, u);
        h_.uni_vpunpcklqdq(x2, t, u);
        const int vlen = h_.vlen();
        h_.uni_store(h_.ptr[out + off], x0);
        h_.uni_store(h_.ptr[out + off + vlen], x1);
        h_.uni_store(h_.ptr[out + off + 2 * vlen], x2);
        h_.uni_store(h_.ptr[out + off + 3 * vlen], x3);
    }
};

// Threefry4x32-20, structure of arrays: register X_w of a set holds word w
// of L = vlen / 4 counters. The counters' low and high halves (with carry)
// live in the call's state buffer. A rotation is two shifts and an or. At
// the end a 4x4 transpose per 128-bit lane puts each counter's words
// together, in index order (soa_lane_block).
class jit_threefry_t : public jit_soa_engine_t {
public:
    using jit_soa_engine_t::jit_soa_engine_t;

    int batch_words() const override { return n_sets() * 4 * lanes(); }

    void emit_batch(const Reg64 &out) override {
        const int vlen = h_.vlen();
        const int sets = n_sets();
        const Xmm t = h_.vmm(4 * sets), u = h_.vmm(4 * sets + 1);
        for (int s = 0; s < sets; ++s) {
            emit_next_blocks(x(s, 0), x(s, 1), x(s, 2), t, u);
            emit_key(s);
        }
        emit_rounds(sets);
        for (int s = 0; s < sets; ++s)
            emit_store_blocks(out, 4 * s * vlen, x(s, 0), x(s, 1), x(s, 2),
                    x(s, 3), t, u);
    }

    int lazy_vectors() const override { return n_sets(); }

    // Set s computes vector s's lanes; their words are already in place.
    void emit_lazy_blocks(int nvec, const Reg64 &cbase, const RegExp &offsets,
            const RegExp &out) override {
        const int vlen = h_.vlen();
        const Xmm t = h_.vmm(4 * n_sets());
        for (int s = 0; s < nvec; ++s) {
            emit_lazy_counters(cbase, h_.ptr[offsets + s * vlen], x(s, 0),
                    x(s, 1), x(s, 2), t);
            emit_key(s);
        }
        emit_rounds(nvec);
        for (int s = 0; s < nvec; ++s)
            for (int i = 0; i < 4; ++i)
                h_.uni_store(h_.ptr[out + (4 * s + i) * vlen], x(s, i));
    }

    void fill_consts(uint64_t seed, uint64_t stream,
            jit_rng_consts_t &c) const override {
        const std::array<uint32_t, 5> ks
                = threefry_key_schedule(threefry_key(seed).data());
        for (int s = 1; s < 6; ++s)
            for (int i = 0; i < 4; ++i)
                c.inject[s][i].fill(ks[(s + i) % 5]
                        + (i == 3 ? static_cast<uint32_t>(s) : 0u));
        c.inject[0][0].fill(ks[0]);
        c.inject[0][1].fill(ks[1]);
        c.inject[0][2].fill(static_cast<uint32_t>(stream) + ks[2]);
        c.inject[0][3].fill(static_cast<uint32_t>(stream >> 32) + ks[3]);
        fill_counter_consts(c);
    }

private:
    // X0, X1 (set s's counters' halves) += the key; X2, X3 = the stream
    // plus the key.
    void emit_key(int s) {
        h_.uni_vpaddd(x(s, 0), x(s, 0), inject(0, 0));
        h_.uni_vpaddd(x(s, 1), x(s, 1), inject(0, 1));
        h_.uni_load(x(s, 2), inject(0, 2));
        h_.uni_load(x(s, 3), inject(0, 3));
    }

    // The 20 rounds and key injections on the first `sets` sets,
    // interleaved.
    void emit_rounds(int sets) {
        const Xmm t = h_.vmm(4 * n_sets()), u = h_.vmm(4 * n_sets() + 1);
        for (int r = 0; r < 20; ++r) {
            const int *rot = threefry4x32_rot[r % 8];
            const int b = r % 2 == 0 ? 1 : 3, d = r % 2 == 0 ? 3 : 1;
            for (int s = 0; s < sets; ++s) {
                mix(x(s, 0), x(s, b), rot[0], s % 2 ? u : t);
                mix(x(s, 2), x(s, d), rot[1], s % 2 ? u : t);
                if (r % 4 == 3)
                    for (int i = 0; i < 4; ++i)
                        h_.uni_vpaddd(x(s, i), x(s, i), inject((r + 1) / 4, i));
            }
        }
    }

    // Sets of four registers a batch runs interleaved (a batch must fit a
    // unit).
    int n_sets() const { return h_.is_avx512() ? 1 : 2; }
    Xmm x(int s, int w) const { return h_.vmm(4 * s + w); }
    Address inject(int s, int i) const {
        return h_.ptr[f_.consts + RNDNN_JIT_CONST(inject) + (4 * s + i) * 64];
    }

    // a += b; b = rotl(b, n) ^ a.
    void mix(const Xmm &a, const Xmm &b, int n, const Xmm &t) {
        h_.uni_vpaddd(a, a, b);
        h_.uni_rotl(b, n, t);
        h_.uni_vpxor(b, b, a);
    }
};

// Multfly (docs/multfly.md), structure of arrays: per set of L blocks, the
// registers a0..a3, b0..b3, c0..c3 hold the network's words of L blocks
// (c = {lo(idx), hi(idx), 0, 0}); the three rounds of lane steps run on
// whole registers, then out_i = a_i + b_(i^3) is transposed as threefry's
// words are. A rotation is vprold at zmm, else two shifts and an or; the
// multiplies are vpmulld.
class jit_multfly_t : public jit_soa_engine_t {
public:
    jit_multfly_t(jit_generator_t &h, const jit_rng_frame_t &f,
            const std::string &name)
        : jit_soa_engine_t(h, f), name_(name) {}

    int batch_words() const override { return 4 * lanes(); }

    void emit_batch(const Reg64 &out) override {
        const Xmm t = h_.vmm(12), u = h_.vmm(13);
        // c0, c1 = the blocks' index.
        emit_next_blocks(c(0), c(1), c(2), t, u);
        emit_network();
        emit_store_blocks(out, 0, a(0), a(1), a(2), a(3), t, u);
    }

    int lazy_vectors() const override { return 1; }

    void emit_lazy_blocks(int, const Reg64 &cbase, const RegExp &offsets,
            const RegExp &out) override {
        emit_lazy_counters(
                cbase, h_.ptr[offsets], c(0), c(1), c(2), h_.vmm(12));
        emit_network();
        for (int i = 0; i < 4; ++i)
            h_.uni_store(h_.ptr[out + i * h_.vlen()], a(i));
    }

    void fill_consts(uint64_t seed, uint64_t stream,
            jit_rng_consts_t &c) const override {
        uint32_t k[8];
        multfly_initkey(reinterpret_cast<const uint8_t *>(name_.data()),
                name_.size(), seed, stream, k);
        for (int i = 0; i < 8; ++i)
            c.multfly_key[i].fill(k[i]);
        c.multfly_mul[0].fill(multfly_mul_b);
        c.multfly_mul[1].fill(multfly_mul_c);
        fill_counter_consts(c);
    }

private:
    // From the blocks' index in c0, c1: out_i = a_i + b_(i^3) in a0..a3,
    // a word of the L blocks each. vmm 0..12 are clobbered.
    void emit_network() {
        const Xmm t = h_.vmm(12);
        h_.uni_vpxor(c(2), c(2), c(2)); // ctr
        h_.uni_vpxor(c(3), c(3), c(3)); // funct: 32-bit output
        for (int i = 0; i < 4; ++i) {
            h_.uni_load(a(i), key(i));
            h_.uni_load(b(i), key(4 + i));
        }
        // Lanes of a round touch disjoint words: interleaving the four
        // hides the multiplies' latency.
        for (int i = 0; i < 4; ++i)
            step(a(i), b(i), c(i), t);
        for (int i = 0; i < 4; ++i)
            step(a(i), b(i ^ 1), c(i ^ 2), t);
        for (int i = 0; i < 4; ++i)
            step(a(i), b(i), c(i), t);
        for (int i = 0; i < 4; ++i)
            h_.uni_vpaddd(a(i), a(i), b(i ^ 3));
    }

    Xmm a(int i) const { return h_.vmm(i); }
    Xmm b(int i) const { return h_.vmm(4 + i); }
    Xmm c(int i) const { return h_.vmm(8 + i); }
    Address key(int i) const {
        return h_.ptr[f_.consts + RNDNN_JIT_CONST(multfly_key) + i * 64];
    }
    Address mul(int i) const {
        return h_.ptr[f_.consts + RNDNN_JIT_CONST(multfly_mul) + i * 64];
    }

    // multfly_lane_step(a, b, c).
    void step(const Xmm &va, const Xmm &vb, const Xmm &vc, const Xmm &t) {
        h_.uni_vpaddd(vc, vc, va);
        h_.uni_rotl(vc, 8, t);
        h_.uni_vpxor(vb, vb, vc);
        h_.uni_vpmulld(vb, vb, mul(0));
        h_.uni_vpaddd(va, va, vb);
        h_.uni_rotl(va, 11, t);
        h_.uni_vpxor(vc, vc, va);
        h_.uni_vpmulld(vc, vc, mul(1));
        h_.uni_vpaddd(vb, vb, vc);
        h_.uni_rotl(vb, 16, t);
        h_.uni_vpxor(va, va, vb);
    }

    const std::string &name_;
};

#undef C

} // namespace

jit_engine_factory_t jit_engine_factory(rng_alg alg) {
    switch (alg) {
        case rng_alg::philox4x32_10:
            return [](const rng_conf_t &, jit_generator_t &h,
                           const jit_rng_frame_t &f)
                           -> std::unique_ptr<jit_engine_t> {
                return std::make_unique<jit_philox_t>(h, f, false);
            };
        case rng_alg::philox4x32_10_onednn:
            return [](const rng_conf_t &, jit_generator_t &h,
                           const jit_rng_frame_t &f)
                           -> std::unique_ptr<jit_engine_t> {
                return std::make_unique<jit_philox_t>(h, f, true);
            };
        case rng_alg::threefry4x32_20:
            return [](const rng_conf_t &, jit_generator_t &h,
                           const jit_rng_frame_t &f)
                           -> std::unique_ptr<jit_engine_t> {
                return std::make_unique<jit_threefry_t>(h, f);
            };
        case rng_alg::mcg31m1:
            return [](const rng_conf_t &, jit_generator_t &h,
                           const jit_rng_frame_t &f)
                           -> std::unique_ptr<jit_engine_t> {
                return std::make_unique<jit_mcg31m1_t>(h, f);
            };
        case rng_alg::multfly:
            return [](const rng_conf_t &conf, jit_generator_t &h,
                           const jit_rng_frame_t &f)
                           -> std::unique_ptr<jit_engine_t> {
                return std::make_unique<jit_multfly_t>(h, f, conf.name);
            };
        // No JIT form: the reference's word source (mt19937: its vector
        // words, simd:<tier>), and any engine with no case here.
        default: return nullptr;
    }
}

} // namespace impl
} // namespace rndnn
