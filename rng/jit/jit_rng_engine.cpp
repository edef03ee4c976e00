#include "rng/jit/jit_rng_engine.hpp"

#include "rng/engines/mcg31m1.hpp"
#include "rng/engines/philox.hpp"

namespace rndnn {
namespace impl {

namespace {

using namespace Xbyak;

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

    int batch_words() const override { return n_pairs * 4 * q(); }

    void emit_init() override {
        // The counter lanes of the first pair, kept in the engine's slot.
        const Xmm v = h_.vmm(0);
        h_.mov(h_.rax, h_.ptr[f_.args + offsetof(jit_rng_call_t, first)]);
        if (h_.is_sse()) {
            h_.movq(v, h_.rax);
            h_.punpcklqdq(v, v);
        } else {
            h_.vmovq(Xmm(0), h_.rax);
            h_.vpbroadcastq(v, Xmm(0));
        }
        h_.uni_vpaddq(v, v, h_.ptr[f_.consts + RNDNN_JIT_CONST(lane_ctr)]);
        h_.uni_store(h_.ptr[h_.rsp + f_.engine_off], v);
    }

    void emit_batch(const Reg64 &out) override {
        const Xmm ctr = h_.vmm(2 * n_pairs);
        const Xmm t0 = h_.vmm(14), t1 = h_.vmm(15);
        const Address fixed = h_.ptr[f_.consts + RNDNN_JIT_CONST(fixed)];
        const Address step = h_.ptr[f_.consts + RNDNN_JIT_CONST(pair_step)];
        h_.uni_load(ctr, h_.ptr[h_.rsp + f_.engine_off]);
        for (int j = 0; j < n_pairs; ++j) {
            const Xmm a = h_.vmm(2 * j), b = h_.vmm(2 * j + 1);
            h_.uni_mov(onednn_ ? b : a, ctr);
            h_.uni_load(onednn_ ? a : b, fixed);
            h_.uni_vpaddq(ctr, ctr, step);
        }
        h_.uni_store(h_.ptr[h_.rsp + f_.engine_off], ctr);

        for (int r = 0; r < 10; ++r) {
            const Address k0 = key(r, 0), k1 = key(r, 1);
            const Address m0 = h_.ptr[f_.consts + RNDNN_JIT_CONST(mul)];
            const Address m1 = h_.ptr[f_.consts + RNDNN_JIT_CONST(mul) + 64];
            for (int j = 0; j < n_pairs; ++j) {
                const Xmm a = h_.vmm(2 * j), b = h_.vmm(2 * j + 1);
                h_.uni_vpmuludq(t0, a, m0);
                h_.uni_vpmuludq(t1, b, m1);
                h_.uni_vpsrlq(a, a, 32);
                h_.uni_vpsrlq(b, b, 32);
                h_.uni_vpshufd(t1, t1, 0xB1);
                h_.uni_vpshufd(t0, t0, 0xB1);
                h_.uni_vpxor(a, a, t1);
                h_.uni_vpxor(a, a, k0);
                h_.uni_vpxor(b, b, t0);
                h_.uni_vpxor(b, b, k1);
            }
        }
        const int vlen = h_.vlen();
        for (int j = 0; j < n_pairs; ++j) {
            const Xmm a = h_.vmm(2 * j), b = h_.vmm(2 * j + 1);
            h_.uni_vpunpcklqdq(t0, a, b);
            h_.uni_vpunpckhqdq(t1, a, b);
            h_.uni_store(h_.ptr[out + (2 * j) * vlen], t0);
            h_.uni_store(h_.ptr[out + (2 * j + 1) * vlen], t1);
        }
    }

    void fill_consts(uint64_t seed, uint64_t stream,
            jit_rng_consts_t &c) const override {
        uint32_t k0 = static_cast<uint32_t>(seed);
        uint32_t k1 = static_cast<uint32_t>(seed >> 32);
        for (int r = 0; r < 10; ++r) {
            c.key[r][0].fill_lo(k0);
            c.key[r][1].fill_lo(k1);
            k0 += philox_w0;
            k1 += philox_w1;
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
    }

    uint64_t first_of(uint64_t i) const override {
        return onednn_ ? i : i / 4; // i is a multiple of 4
    }
    void init_state(uint64_t, uint64_t, void *) const override {}
    int state_bytes() const override { return 0; }

private:
    static constexpr int n_pairs = 4;
    int q() const { return h_.vlen() / 8; } // counters (qwords) per register

    Address key(int r, int half) const {
        return h_.ptr[f_.consts + RNDNN_JIT_CONST(key) + (2 * r + half) * 64];
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
    int state_bytes() const override { return n_regs * h_.vlen(); }

private:
    static constexpr int n_regs = 8;
    int q() const { return h_.vlen() / 8; }
};

} // namespace

std::unique_ptr<jit_engine_t> make_jit_engine(
        rng_alg alg, jit_generator_t &h, const jit_rng_frame_t &f) {
    switch (alg) {
        case rng_alg::philox4x32_10:
            return std::make_unique<jit_philox_t>(h, f, false);
        case rng_alg::philox4x32_10_onednn:
            return std::make_unique<jit_philox_t>(h, f, true);
        case rng_alg::mcg31m1: return std::make_unique<jit_mcg31m1_t>(h, f);
        default: return nullptr;
    }
}

} // namespace impl
} // namespace rndnn
