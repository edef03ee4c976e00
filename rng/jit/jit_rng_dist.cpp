// Distribution emitters: JIT code turning one unit's words into dst values.
#include "rng/jit/jit_rng_dist.hpp"

#include "rng/distributions.hpp"
#include "rng/engines/word_source.hpp"
#include "rng/jit/jit_mask_expand.hpp"
#include "src/utils.hpp"

namespace rndnn {
namespace impl {

void jit_vec_t::fill_f32(float v) { fill(float_bits(v)); }

namespace {

using namespace Xbyak;

#define C(field) RNDNN_JIT_C(field)

// 31-bit words (mcg31m1): another threshold and uniform shift, no bias.
bool is_mcg(const rng_conf_t &conf) {
    return engine_traits(conf.alg).word_bits == 31;
}

data_type dst_type(const rng_conf_t &conf) {
    return conf.dst.get_data_type();
}

// v (finite f32 lanes) = their bf16 in the low 16 bits of each lane,
// rounded to nearest even: (v + 0x7fff + ((v >> 16) & 1)) >> 16 (uniform's
// and normal's values; constants i_one and bf16_round). lsb is clobbered.
void emit_round_bf16_finite(jit_generator_t &h, const jit_rng_frame_t &f,
        const Xbyak::Xmm &v, const Xbyak::Xmm &lsb) {
    h.uni_vpsrld(lsb, v, 16);
    h.uni_vpand(lsb, lsb, h.ptr[f.consts + RNDNN_JIT_CONST(i_one)]);
    h.uni_vpaddd(v, v, lsb);
    h.uni_vpaddd(v, v, h.ptr[f.consts + RNDNN_JIT_CONST(bf16_round)]);
    h.uni_vpsrld(v, v, 16);
}

// --- bits: the words are the output ----------------------------------------

class jit_bits_t : public jit_dist_t {
public:
    using jit_dist_t::jit_dist_t;
    int unit_bytes() const override { return jit_unit_words * 4; }
    bool words_are_output() const override { return true; }
    void emit_unit() override {}
    void fill_consts(double, jit_rng_consts_t &) const override {}
};

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
    RegExp mask_base() const {
        return bits_out() ? RegExp(f_.dst)
                          : RegExp(h_.rsp + jit_rng_frame_t::mask_bits_off);
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
            const Xmm w = h_.vmm(i % 8);
            h_.uni_load(w, h_.ptr[h_.rsp + f_.words_off + i * vlen]);
            h_.uni_vpandn(w, w, C(keep));
            h_.uni_vpor(w, w, C(full));
            h_.uni_store(h_.ptr[mask_base() + i * vlen], w);
        }
    }

    void emit_general() {
        const int b = conf_.bits;
        const Reg64 wp = h_.r8, out = h_.r9, cnt = h_.r10;
        const Reg32 lt = h_.eax, eq = h_.edx, w = h_.ecx, t = h_.r11d;
        h_.lea(wp, h_.ptr[h_.rsp + f_.words_off]);
        h_.lea(out, h_.ptr[mask_base()]);
        h_.mov(cnt, unit_groups());
        Label group;
        h_.L(group);
        h_.xor_(lt, lt);
        h_.mov(eq, -1);
        for (int j = 0; j < b; ++j) {
            const Address lj = h_.ptr[f_.consts + RNDNN_JIT_CONST(level_bit)
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
        h_.or_(lt, C(full));
        h_.mov(h_.ptr[out], lt);
        h_.add(out, 4);
        h_.add(wp, 4 * b);
        h_.dec(cnt);
        h_.jnz(group);
    }
};

// --- Bernoulli bitsliced(b) to bit, lazily ---------------------------------
// jit_bitsliced_t's bits from fewer words. A row of G groups (the engine's
// lazy_vectors() vectors of 32-bit lanes, a group a lane) compares
// U < level from the most significant bit, four levels a block (one
// engine block a lane: its four words), with level's bits as 0/~0 L_j:
//   L_j = ~0: lt |= eq & ~w;  eq &= w      L_j = 0: eq &= ~w
// and stops after the block where no element of the row is undecided
// (eq == 0 everywhere), or where level has no 1 bit left (lazy_blocks):
// an element still undecided then is a 0. Levels j >= b (in the last block
// of a b that is not a multiple of 4) are never compared.
//
// With b % 4 == 0 a lane's four levels are the words of one block, and
// after two blocks (eight levels) the row's groups that still have an
// undecided element (about 12%, whatever p is) are deferred: their index,
// lt and eq go to a queue, which the end of the unit runs G at a time
// from the third block on, so that a row never draws a third block for
// one group. Otherwise group n starts at word r = n * b % 4 of a block and
// runs into the next, so the row keeps the last block drawn (P) beside the
// next (N), lane_r picks each lane's word, and nothing is deferred. The
// output is jit_bitsliced_t's, unit for unit.
//
// Each row offers four consumer steps of G / 4 groups (jit_dist_t): at its
// start, after each of its first two blocks is drawn, and after the first
// block's levels, so that a consumer's memory traffic overlaps with the
// engine's arithmetic in small pieces (two steps of G / 2 a row left the
// fused dropout kernel 8% slower at avx512 on Zen 5: 8.0 against 7.4 ms
// for 2^25 f32).
class jit_bitsliced_lazy_t : public jit_bitsliced_t {
public:
    jit_bitsliced_lazy_t(jit_generator_t &h, const jit_rng_frame_t &f,
            const rng_conf_t &conf, jit_engine_t &engine)
        : jit_bitsliced_t(h, f, conf), engine_(engine) {}

    bool draws_words() const override { return true; }
    int unit_groups() const override {
        return jit_lazy_unit_groups;
    }

    void emit_init() override {
        h_.mov(h_.rax, h_.ptr[f_.args + offsetof(jit_rng_call_t, first)]);
        h_.mov(h_.ptr[h_.rsp + base_off], h_.rax);
    }

    void emit_unit() override {
        const int b = conf_.bits, vlen = h_.vlen();
        h_.mov(row_base, h_.ptr[h_.rsp + base_off]);
        h_.lea(out, h_.ptr[mask_base()]);
        h_.mov(rows, unit_groups() / groups());
        h_.mov(nblocks, C(lazy_blocks));
        if (deferring()) {
            h_.xor_(queued, queued);
            h_.xor_(row_group, row_group);
        }
        Label row;
        h_.L(row);
        Label done;
        emit_step(groups() / 4);
        for (int v = 0; v < nv(); ++v) { // lt = 0, eq = ~0
            const Xmm z = h_.vmm(0), ones = h_.vmm(1);
            h_.uni_vpxor(z, z, z);
            h_.uni_vpcmpeqd(ones, z, z);
            h_.uni_store(slot(lt_off, v), z);
            h_.uni_store(slot(eq_off, v), ones);
        }
        const RegExp offsets = f_.consts + RNDNN_JIT_CONST(lazy_ctr);
        const int row_blocks = deferring() ? deferred_from : max_blocks();
        for (int jb = 0; jb < row_blocks; ++jb) {
            h_.cmp(nblocks, jb);
            h_.jbe(done, h_.T_NEAR);
            if (shifted() && jb == 0)
                draw(nv(), row_base, 0, offsets, area(0));
            draw(nv(), row_base, jb + (shifted() ? 1 : 0), offsets,
                    area(jb + 1));
            if (jb < 2) emit_step(groups() / 4);
            emit_levels(nv(), jb);
            if (jb == 0) emit_step(groups() / 4);
            if (jb + 1 < row_blocks) emit_exit_if_decided(nv(), done);
        }
        h_.L(done);
        for (int v = 0; v < nv(); ++v) {
            const Xmm lt = h_.vmm(0);
            h_.uni_load(lt, slot(lt_off, v));
            h_.uni_vpor(lt, lt, C(full));
            h_.uni_store(h_.ptr[out + v * vlen], lt);
        }
        if (deferring()) {
            emit_defer();
            h_.add(row_group, groups());
        }
        h_.add(out, groups() * 4);
        h_.add(row_base, groups() * b / 4);
        h_.dec(rows);
        h_.jnz(row, h_.T_NEAR);
        if (deferring()) emit_queue();
        h_.mov(h_.ptr[h_.rsp + base_off], row_base);
        emit_unit_end();
    }

    void fill_consts(double p, jit_rng_consts_t &c) const override {
        jit_bitsliced_t::fill_consts(p, c);
        const int b = conf_.bits;
        const uint64_t level = bitsliced_level(p, b);
        uint32_t blocks = 0;
        if (level != 0 && !(level >> b)) {
            int last = b - 1; // the level's last 1 bit, as a level j
            while (!((level >> (b - 1 - last)) & 1u))
                --last;
            blocks = static_cast<uint32_t>(last / 4 + 1);
        }
        c.lazy_blocks = blocks;
        const int lanes = h_.vlen() / 4;
        for (int l = 0; l < 16; ++l) {
            for (int r = 0; r < 4; ++r)
                c.lane_r[r].d[l] = l * b % 4 == r ? ~0u : 0u;
            for (int v = 0; v < 2; ++v)
                c.lazy_ctr[v].d[l] = static_cast<uint32_t>(
                        (v * lanes + l) * b / 4);
            for (int v = 0; v < 2; ++v)
                c.lazy_iota[v].d[l] = static_cast<uint32_t>(16 * v + l);
        }
        c.lazy_mul.fill(static_cast<uint32_t>(b / 4));
    }

private:
    // The groups undecided after this many blocks are deferred.
    static constexpr int deferred_from = 2;
    // Stack slots, in the words' area (unused here): two areas of a row's
    // words, the row's lt and eq vectors and its lanes' block offsets, the
    // next unit's block, and the queue of deferred groups (their index in
    // the unit, lt and eq, with a row's room of slack).
    static constexpr int area_bytes = 2 * 4 * 64;
    static constexpr int lt_off = jit_rng_frame_t::words_off + 2 * area_bytes;
    static constexpr int eq_off = lt_off + 2 * 64;
    static constexpr int offsets_off = eq_off + 2 * 64;
    static constexpr int base_off = offsets_off + 2 * 64;
    static constexpr int queue_len = jit_lazy_unit_groups + 32;
    static constexpr int qn_off = base_off + 64;
    static constexpr int qlt_off = qn_off + 4 * queue_len;
    static constexpr int qeq_off = qlt_off + 4 * queue_len;
    static_assert(qeq_off + 4 * queue_len <= jit_rng_frame_t::max_words * 4,
            "the lazy slots fit the words' area");

    // Registers: the first block of the row (then of the next unit), the
    // engine's block, rows left (then the queue's next entry), the row's
    // output, level blocks to evaluate, groups queued, the row's first
    // group in the unit, and a temporary (batch_cnt's: no batches here).
    const Reg64 row_base = h_.r8, cbase = h_.r9, rows = h_.r10, out = h_.rdx,
                queued = h_.r11, row_group = h_.rsi, tmp = h_.rbx;
    const Reg32 nblocks = h_.ecx;

    // Vectors of a row, and of a chunk of the queue (which holds about 15
    // groups a unit of 128: 16 lanes suffice).
    int nv() const { return engine_.lazy_vectors(); }
    int nq() const { return std::min(nv(), std::max(1, 64 / h_.vlen())); }
    int groups() const { return nv() * h_.vlen() / 4; }
    int max_blocks() const { return (conf_.bits + 3) / 4; }
    bool shifted() const { return conf_.bits % 4 != 0; }
    bool deferring() const {
        return !shifted() && max_blocks() > deferred_from;
    }
    int area(int k) const {
        return jit_rng_frame_t::words_off + (k % 2) * area_bytes;
    }
    Address slot(int off, int v) const {
        return h_.ptr[h_.rsp + off + v * h_.vlen()];
    }
    // Word i of vector v in the area at off.
    Address word(int off, int v, int i) const {
        return h_.ptr[h_.rsp + off + (4 * v + i) * h_.vlen()];
    }

    // The blocks first + k + [offsets] of nvec vectors' lanes into the
    // area at off.
    void draw(int nvec, const Reg64 &first, int k, const RegExp &offsets,
            int off) {
        h_.lea(cbase, h_.ptr[first + k]);
        engine_.emit_lazy_blocks(nvec, cbase, offsets, h_.rsp + off);
    }

    // x = level 4 * jb + m's word of vector v's lanes.
    void emit_word(const Xmm &x, int jb, int v, int m) {
        const int n = area(jb + 1); // the block drawn last
        if (!shifted()) {
            h_.uni_load(x, word(n, v, m));
            return;
        }
        const int p = area(jb); // the one before
        const Xmm src = h_.vmm(0), mask = h_.vmm(1), t = h_.vmm(2),
                  sel = h_.vmm(3);
        h_.uni_load(x, word(p, v, m));
        for (int r = 1; r < 4; ++r) {
            if (!has_lanes_at(r)) continue;
            const int i = r + m;
            h_.uni_load(src, i < 4 ? word(p, v, i) : word(n, v, i - 4));
            h_.uni_load(mask, h_.ptr[f_.consts + RNDNN_JIT_CONST(lane_r)
                                      + r * 64]);
            h_.uni_select(sel, mask, src, x, t);
            h_.uni_mov(x, sel);
        }
    }
    bool has_lanes_at(int r) const {
        for (int l = 0; l < 4; ++l)
            if (l * conf_.bits % 4 == r) return true;
        return false;
    }

    // The levels of block jb on nvec vectors' lt and eq slots (in vmm
    // 8 + v and 10 + v meanwhile).
    void emit_levels(int nvec, int jb) {
        for (int v = 0; v < nvec; ++v) {
            h_.uni_load(h_.vmm(8 + v), slot(lt_off, v));
            h_.uni_load(h_.vmm(10 + v), slot(eq_off, v));
        }
        const Xmm t = h_.vmm(14);
        for (int m = 0; m < 4 && 4 * jb + m < conf_.bits; ++m) {
            const int j = 4 * jb + m;
            for (int v = 0; v < nvec; ++v)
                emit_word(h_.vmm(12 + v), jb, v, m);
            Label zero, next;
            h_.cmp(h_.dword[f_.consts + RNDNN_JIT_CONST(level_bit) + 4 * j],
                    0);
            h_.je(zero);
            for (int v = 0; v < nvec; ++v) {
                const Xmm lt = h_.vmm(8 + v), eq = h_.vmm(10 + v),
                          x = h_.vmm(12 + v);
                if (h_.is_avx512()) {
                    h_.vpternlogd(lt, eq, x, 0xF4); // lt | (eq & ~x)
                } else {
                    h_.uni_vpandn(t, x, eq);
                    h_.uni_vpor(lt, lt, t);
                }
                h_.uni_vpand(eq, eq, x);
            }
            h_.jmp(next);
            h_.L(zero);
            for (int v = 0; v < nvec; ++v) {
                const Xmm eq = h_.vmm(10 + v), x = h_.vmm(12 + v);
                h_.uni_vpandn(t, x, eq);
                h_.uni_mov(eq, t);
            }
            h_.L(next);
        }
        for (int v = 0; v < nvec; ++v) {
            h_.uni_store(slot(lt_off, v), h_.vmm(8 + v));
            h_.uni_store(slot(eq_off, v), h_.vmm(10 + v));
        }
    }

    // Jumps to done when the eq slots of nvec vectors are 0 in every lane.
    void emit_exit_if_decided(int nvec, const Label &done) {
        const Xmm any = h_.vmm(0);
        h_.uni_load(any, slot(eq_off, 0));
        if (nvec == 2) h_.uni_vpor(any, any, slot(eq_off, 1));
        if (h_.is_avx512()) {
            h_.vptestmd(h_.k1, any, any);
            h_.kortestw(h_.k1, h_.k1);
        } else if (h_.is_sse()) {
            h_.ptest(any, any);
        } else {
            h_.vptest(any, any);
        }
        h_.jz(done, h_.T_NEAR);
    }

    // Appends the row's groups with an undecided element to the queue:
    // every lane is written at the queue's end, which then moves past the
    // undecided ones (vpcompressd at zmm; branch-free scalar code below).
    void emit_defer() {
        if (h_.is_avx512()) {
            for (int v = 0; v < nv(); ++v) {
                const Zmm lt(0), eq(1), n(2);
                h_.vmovdqu32(eq, slot(eq_off, v));
                h_.vptestmd(h_.k1, eq, eq);
                h_.vpcompressd(eq | h_.k1 | h_.T_z, eq);
                h_.vmovdqu32(lt, slot(lt_off, v));
                h_.vpcompressd(lt | h_.k1 | h_.T_z, lt);
                h_.vpbroadcastd(n, row_group.cvt32());
                h_.vpaddd(n, n,
                        h_.ptr[f_.consts + RNDNN_JIT_CONST(lazy_iota)
                                + v * 64]);
                h_.vpcompressd(n | h_.k1 | h_.T_z, n);
                h_.vmovdqu32(h_.ptr[h_.rsp + queued * 4 + qeq_off], eq);
                h_.vmovdqu32(h_.ptr[h_.rsp + queued * 4 + qlt_off], lt);
                h_.vmovdqu32(h_.ptr[h_.rsp + queued * 4 + qn_off], n);
                h_.kmovw(h_.eax, h_.k1);
                h_.popcnt(h_.eax, h_.eax);
                h_.add(queued, h_.rax);
            }
            return;
        }
        for (int k = 0; k < groups(); ++k) {
            h_.mov(h_.eax, h_.ptr[h_.rsp + eq_off + 4 * k]);
            h_.mov(tmp.cvt32(), h_.ptr[h_.rsp + lt_off + 4 * k]);
            h_.mov(h_.ptr[h_.rsp + queued * 4 + qeq_off], h_.eax);
            h_.mov(h_.ptr[h_.rsp + queued * 4 + qlt_off], tmp.cvt32());
            h_.lea(tmp.cvt32(), h_.ptr[row_group + k]);
            h_.mov(h_.ptr[h_.rsp + queued * 4 + qn_off], tmp.cvt32());
            h_.cmp(h_.eax, 1);
            h_.sbb(queued, -1); // + 1 unless eq == 0
        }
    }

    // Runs the queue, nq() vectors at a time, from block deferred_from on, at
    // the unit's blocks (row_base - 16 b, before it moves to the next
    // unit), then writes its groups' decisions over the row's.
    void emit_queue() {
        const int b = conf_.bits, vlen = h_.vlen();
        const int unit_blocks = unit_groups() * b / 4;
        const Reg64 next = rows; // the rows are done
        Label end, chunk, scatter;
        h_.cmp(nblocks, deferred_from);
        h_.jbe(end, h_.T_NEAR);
        h_.test(queued, queued);
        h_.jz(end, h_.T_NEAR);
        // Entries past the end are decided (eq = 0).
        const Xmm z = h_.vmm(0);
        h_.uni_vpxor(z, z, z);
        for (int v = 0; v < nq(); ++v)
            h_.uni_store(h_.ptr[h_.rsp + queued * 4 + qeq_off + v * vlen], z);
        h_.xor_(next, next);
        h_.L(chunk);
        Label done;
        for (int v = 0; v < nq(); ++v) {
            const Xmm x = h_.vmm(0);
            h_.uni_load(x, h_.ptr[h_.rsp + next * 4 + qn_off + v * vlen]);
            h_.uni_vpmulld(x, x, C(lazy_mul));
            h_.uni_store(slot(offsets_off, v), x);
            h_.uni_load(x, h_.ptr[h_.rsp + next * 4 + qlt_off + v * vlen]);
            h_.uni_store(slot(lt_off, v), x);
            h_.uni_load(x, h_.ptr[h_.rsp + next * 4 + qeq_off + v * vlen]);
            h_.uni_store(slot(eq_off, v), x);
        }
        for (int jb = deferred_from; jb < max_blocks(); ++jb) {
            if (jb > deferred_from) {
                h_.cmp(nblocks, jb);
                h_.jbe(done, h_.T_NEAR);
            }
            draw(nq(), row_base, jb - unit_blocks, h_.rsp + offsets_off,
                    area(jb + 1));
            emit_levels(nq(), jb);
            if (jb + 1 < max_blocks()) emit_exit_if_decided(nq(), done);
        }
        h_.L(done);
        for (int v = 0; v < nq(); ++v) {
            const Xmm x = h_.vmm(0);
            h_.uni_load(x, slot(lt_off, v));
            h_.uni_store(h_.ptr[h_.rsp + next * 4 + qlt_off + v * vlen], x);
        }
        h_.add(next, nq() * vlen / 4);
        h_.cmp(next, queued);
        h_.jb(chunk, h_.T_NEAR);
        h_.xor_(next, next);
        h_.L(scatter);
        h_.mov(h_.eax, h_.ptr[h_.rsp + next * 4 + qn_off]);
        h_.mov(tmp.cvt32(), h_.ptr[h_.rsp + next * 4 + qlt_off]);
        h_.mov(h_.ptr[mask_base() + h_.rax * 4], tmp.cvt32());
        h_.inc(next);
        h_.cmp(next, queued);
        h_.jb(scatter);
        h_.L(end);
    }

    jit_engine_t &engine_;
};

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

// --- Uniform to f32, bf16 or f16 (FMA: avx2 and up) ------------------------
// u = (W >> shift) * 2^-24; v = fma(u, b - a, a); bf16 rounds to nearest
// even: (v + 0x7fff + ((v >> 16) & 1)) >> 16 (v is finite); f16 rounds
// with vcvtps2ph (to nearest even, whatever MXCSR says).
class jit_uniform_t : public jit_dist_t {
public:
    using jit_dist_t::jit_dist_t;

    int unit_bytes() const override { return jit_unit_words * out_size(); }

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
        c.a.fill_f32(conf_.a);
        c.b_minus_a.fill_f32(conf_.b - conf_.a);
        c.i_one.fill(1);
        c.bf16_round.fill(0x7fff);
    }

private:
    int out_size() const {
        return conf_.dst.get_data_type() == data_type::f32 ? 4 : 2;
    }
};

// --- Normal to f32, bf16 or f16 --------------------------------------------
// normal_pair() on 2 * vlen / 4 pairs at a time: shufps splits a pair of
// registers into even words (u1, the radius) and odd words (the angle);
// unpck{l,h}ps interleave the two results back into index order. Every
// operation is the reference's, in its order: mul and add, never fma. bf16
// and f16 round the f32 values once, as uniform's do.
class jit_normal_t : public jit_dist_t {
public:
    using jit_dist_t::jit_dist_t;

    int unit_bytes() const override { return jit_unit_words * out_size(); }

    void emit_unit() override {
        const int vlen = h_.vlen();
        for (int i = 0; i < jit_unit_words * 4 / vlen; i += 2)
            emit_pairs(h_.rsp + f_.words_off + i * vlen, i * vlen / 4);
        h_.add(f_.dst, unit_bytes());
    }

    void fill_consts(double, jit_rng_consts_t &c) const override {
        c.two_m24.fill_f32(0x1p-24f);
        c.bf16_round.fill(0x7fff);
        c.mean.fill_f32(conf_.mean);
        c.stddev.fill_f32(conf_.stddev);
        c.i_one.fill(1);
        c.i_three.fill(3);
        c.i_126.fill(126);
        c.mant_mask.fill(0x007fffffu);
        c.half_bits.fill(0x3f000000u);
        c.sqrt_half.fill(sqrt_half_bits);
        c.exp_one.fill(0x00800000u);
        c.f_one.fill_f32(1.f);
        c.f_two.fill_f32(2.f);
        c.f_minus_two.fill_f32(-2.f);
        const float atanh[5]
                = {atanh_c11, atanh_c9, atanh_c7, atanh_c5, atanh_c3};
        for (int k = 0; k < 5; ++k)
            c.atanh_c[k].fill_f32(atanh[k]);
        c.ln2_lo.fill_f32(ln2_lo);
        c.ln2_hi.fill_f32(ln2_hi);
        c.i_2p21.fill(1u << 21);
        c.mask22.fill((1u << 22) - 1);
        c.two_m22.fill_f32(0x1p-22f);
        const float sinc[6]
                = {sin_c11, sin_c9, sin_c7, sin_c5, sin_c3, sin_c1};
        const float cosc[6]
                = {cos_c10, cos_c8, cos_c6, cos_c4, cos_c2, cos_c0};
        for (int k = 0; k < 6; ++k) {
            c.sin_c[k].fill_f32(sinc[k]);
            c.cos_c[k].fill_f32(cosc[k]);
        }
    }

private:
    int out_size() const {
        return static_cast<int>(dt_bits(dst_type(conf_)) / 8);
    }
    Address vec(size_t off, int k = 0) const {
        return h_.ptr[f_.consts + off + k * 64];
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
        const Xmm u = h.vmm(0), e = h.vmm(1), mb = h.vmm(4), x = h.vmm(5),
                  s = h.vmm(6), s2 = h.vmm(7), q = h.vmm(8), r = h.vmm(9);
        h.uni_vpsrld(ev, ev, shift);
        h.uni_vpaddd(ev, ev, C(i_one));
        h.uni_vcvtdq2ps(u, ev);
        h.uni_vmulps(u, u, C(two_m24));
        // ln_approx(u).
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
        h.uni_vunpcklps(v1, z0, z1);
        h.uni_vunpckhps(v2, z0, z1);
        emit_store(v1, v2, first);
    }
};

#undef C

} // namespace

bool jit_dist_supported(const rng_conf_t &conf, cpu_isa isa, std::string &why) {
    const data_type t = conf.dst.get_data_type();
    // F16C (vcvtps2ph) comes with the avx2 tier.
    const auto f16_ok = [&] {
        if (t != data_type::f16 || isa >= cpu_isa::avx2) return true;
        why = "f16 needs F16C (avx2 tier and up)";
        return false;
    };
    switch (conf.dist) {
        case dist_t::bits:
        case dist_t::bernoulli: return true; // every dst type they write
        case dist_t::uniform:
            if (isa < cpu_isa::avx2) {
                why = "uniform needs FMA (avx2 tier and up)";
                return false;
            }
            return true;
        case dist_t::normal: return f16_ok();
    }
    why = "unknown distribution";
    return false;
}

bool jit_bitsliced_lazy(const rng_conf_t &conf, const jit_engine_t &engine) {
    if (conf.dist != dist_t::bernoulli || conf.method != bernoulli_method::bitsliced
            || engine.lazy_vectors() == 0)
        return false;
    switch (conf.eval) {
        case bitsliced_eval_t::automatic:
            return conf.bits % 4 == 0 || conf.bits >= jit_lazy_min_bits;
        case bitsliced_eval_t::eager: return false;
        case bitsliced_eval_t::lazy: return true;
    }
    return false;
}

std::unique_ptr<jit_dist_t> make_jit_dist(jit_generator_t &h,
        const jit_rng_frame_t &f, const rng_conf_t &conf,
        jit_engine_t &engine, std::string &why) {
    if (!jit_dist_supported(conf, h.isa(), why)) return nullptr;
    switch (conf.dist) {
        case dist_t::bits: return std::make_unique<jit_bits_t>(h, f, conf);
        case dist_t::bernoulli:
            if (conf.method == bernoulli_method::bytewise)
                return std::make_unique<jit_bytewise_t>(h, f, conf, engine);
            if (jit_bitsliced_lazy(conf, engine))
                return std::make_unique<jit_bitsliced_lazy_t>(
                        h, f, conf, engine);
            if (conf.method == bernoulli_method::bitsliced)
                return std::make_unique<jit_bitsliced_t>(h, f, conf);
            return std::make_unique<jit_threshold_t>(h, f, conf);
        case dist_t::uniform: return std::make_unique<jit_uniform_t>(h, f, conf);
        case dist_t::normal: return std::make_unique<jit_normal_t>(h, f, conf);
    }
    return nullptr;
}

} // namespace impl
} // namespace rndnn
