// Bernoulli bitsliced(b) to bits, lazily: JIT code drawing a row's words
// only while an element is undecided.
#include "rng/jit/jit_rng_dist_parts.hpp"
#include "src/jit_tuning.hpp"

namespace rndnn {
namespace impl {
namespace {

using namespace Xbyak;

#define C(field) RNDNN_JIT_C(field)

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
// Each row offers consumer steps (jit_dist_t), so that a consumer's memory
// traffic overlaps with the engine's arithmetic: the tuning's
// lazy_row_steps (src/jit_tuning.hpp), two of G / 2 groups (at its start
// and after the first block's levels) or four of G / 4 (at its start,
// after each of its first two blocks is drawn, and after the first block's
// levels; two left the fused dropout kernel 8% slower at avx512 on Zen 5:
// 8.0 against 7.4 ms for 2^25 f32). A unit is the tuning's
// lazy_unit_groups groups (64 or 128, at most jit_lazy_unit_groups).
class jit_bitsliced_lazy_t : public jit_bitsliced_t {
public:
    jit_bitsliced_lazy_t(jit_generator_t &h, const jit_rng_frame_t &f,
            const rng_conf_t &conf, jit_engine_t &engine)
        : jit_bitsliced_t(h, f, conf)
        , engine_(engine)
        , unit_groups_(jit_tuning().lazy_unit_groups)
        , row_steps_(jit_tuning().lazy_row_steps) {
        // Whole rows of every tier's G (at most 32 groups), within the
        // slots' room; steps of a whole number of groups.
        if (unit_groups_ % 32 != 0 || unit_groups_ < 32
                || unit_groups_ > jit_lazy_unit_groups
                || (row_steps_ != 2 && row_steps_ != 4))
            throw Xbyak::Error(Xbyak::ERR_INTERNAL);
    }

    bool draws_words() const override { return true; }
    int unit_groups() const override { return unit_groups_; }

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
        const int step = groups() / row_steps_;
        emit_step(step);
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
            if (row_steps_ == 4 && jb < 2) emit_step(step);
            emit_levels(nv(), jb);
            if (jb == 0) emit_step(step);
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
    int unit_groups_, row_steps_; // the tuning's
};

#undef C

} // namespace

std::unique_ptr<jit_dist_t> make_jit_bitsliced_lazy(jit_generator_t &h,
        const jit_rng_frame_t &f, const rng_conf_t &conf,
        jit_engine_t &engine) {
    return std::make_unique<jit_bitsliced_lazy_t>(h, f, conf, engine);
}

} // namespace impl
} // namespace rndnn
