// The JIT softmax-dropout row kernels (pipeline/softmax_dropout.hpp): one
// generated function per conf at the avx2 and avx512 tiers, called once
// per row.
//
// Forward makes three passes: the max; e_j = exp(x_j - m) into work and
// their sum; then P_j = e_j * inv, the dropout and the rounding to the data
// type. Backward makes two: P_j (rebuilt from the scores and the stats, or
// read) into work with c = sum P_j dp_j; then dx_j. Each pass walks the
// row in vectors of V lanes (groups of several vectors, each with its own
// accumulator, so that the sums' and maxima's dependency chains overlap),
// then a partial vector whose lanes past the end are neither read nor
// written: masked loads and stores (k registers at avx512, vmaskmovps at
// avx2), and at avx2 in bf16, which has no 16-bit masked load, a copy
// through a stack buffer.
//
// exp(x) for x <= 0: n = round(x log2e) by adding a magic number (which
// also leaves n + 127 in the low bits, so that a shift makes 2^n), r = x -
// n ln2 in two Cody-Waite steps, and a degree-5 minimax polynomial (about
// 2.5 ulp). x is clamped at -88 first: n + 127 stays >= 0, and 2^n is +0
// (exactly) where n = -127, so that exp is +0 below about -87.7, -inf
// included; NaN passes through.
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <vector>

#include "pipeline/softmax_dropout.hpp"
#include "src/jit/jit_generator.hpp"

namespace rndnn {
namespace impl {

using namespace Xbyak;

namespace {

// The constant table: a 64-byte vector per entry (the widest tier's).
enum cst_t {
    c_neg_inf,
    c_lo, // exp's clamp
    c_magic, // 1.5 * 2^23 + 127
    c_log2e,
    c_ln2_hi, // ln2's 9 leading bits: n * ln2_hi is exact
    c_ln2_lo,
    c_p5, // the polynomial's coefficients, p5 r^5 + ... + p0
    c_p4,
    c_p3,
    c_p2,
    c_p1,
    c_p0,
    c_one,
    c_i_one, // 1 (an integer)
    c_round, // 0x7fff: below half a bf16 unit
    c_quiet, // a NaN's quiet bit, 16 bits above a bf16's
    c_lane_bit, // 1 << k in lane k
    c_lane_shift, // 31 - k in lane k
    c_tail, // two vectors: 16 lanes of ~0, then 16 of 0
    n_cst = c_tail + 2
};

// The entries before c_lane_bit, one value in every lane. The polynomial
// is the minimax one of exp's relative error on [-ln2 / 2, ln2 / 2].
constexpr uint32_t cst_value[c_lane_bit] = {
        0xff800000u, // -inf
        0xc2b00000u, // -88.f
        0x4b40007fu, // 12583039.f
        0x3fb8aa3bu, // 1.44269502f
        0x3f318000u, // 0.693359375f
        0xb95e8083u, // -2.12194442e-4f
        0x3c07f2e1u, // 8.29765294e-3f
        0x3d2baf77u, // 4.19153832e-2f
        0x3e2aad0cu, // 0.166675746f
        0x3efffe8du, // 0.499988943f
        0x3f7ffffbu, // 0.999999702f
        0x3f800001u, // 1.00000012f
        0x3f800000u, // 1.f
        1u, 0x7fffu, 0x00400000u};

// The stack buffer of avx2's bf16 partial vectors.
constexpr int stage_bytes = 64;

class jit_sd_row_gen_t : public jit_generator_t {
public:
    using fn_t = void (*)(const sd_row_call_t *);

    jit_sd_row_gen_t(cpu_isa isa, const sd_row_conf_t &conf)
        : jit_generator_t(isa)
        , conf_(conf)
        , V_(vlen() / 4)
        , es_(conf.dt == data_type::f32 ? 4 : 2)
        , n_vregs_(is_avx512() ? 32 : 16) {
        for (int id = 0; id < n_cst; ++id)
            caddr_.push_back(ptr[rip + table_ + id * 64]);
        preamble(stage_bytes);
        load_args();
        if (conf_.backward)
            backward();
        else
            forward();
        postamble();
        emit_table();
        fn_ = finalize<fn_t>();
    }

    void operator()(const sd_row_call_t &call) const { fn_(&call); }

private:
    bool f32() const { return es_ == 4; }

    // --- registers ------------------------------------------------------

    const Reg64 reg_param = rdi;
    const Reg64 reg_src = r8, reg_dst = r9, reg_p = r10, reg_bits = r11,
                reg_work = r12, reg_n = r13, reg_len = r14;
    const Reg64 reg_j = rax; // the vector's first column
    const Reg64 reg_rem = rdx; // a partial vector's lanes
    const Reg64 reg_jb = rbx; // j / 8: the byte of the vector's first bit
    const Reg64 reg_t0 = rsi, reg_t1 = r15, reg_t2 = rcx;

    // Vector registers: each pass takes its own from a given index up
    // (the earlier ones hold what it inherits), then the constants take
    // what is left in the order the pass names them; the others are read
    // from the table.
    Xmm take() {
        if (next_ >= n_vregs_) throw Error(ERR_INTERNAL);
        return vmm(next_++);
    }
    void use_consts(std::initializer_list<cst_t> ids) {
        for (int id = 0; id < n_cst; ++id)
            creg_[id] = -1;
        for (const cst_t id : ids) {
            if (next_ >= n_vregs_) break;
            creg_[id] = next_;
            cvmm_[id] = take();
            vmovaps(cvmm_[id], caddr_[id]);
        }
    }
    const Operand &C(cst_t id) const {
        if (creg_[id] >= 0) return cvmm_[id];
        return caddr_[id];
    }
    // A constant that must be in a register.
    const Xmm &CR(cst_t id) const {
        if (creg_[id] < 0) throw Error(ERR_INTERNAL);
        return cvmm_[id];
    }

    // --- arguments, addresses, masks --------------------------------------

    void load_args() {
        const auto arg = [&](size_t off) { return ptr[reg_param + off]; };
        mov(reg_src, arg(offsetof(sd_row_call_t, src)));
        mov(reg_dst, arg(offsetof(sd_row_call_t, dst)));
        if (conf_.backward) mov(reg_p, arg(offsetof(sd_row_call_t, p)));
        if (conf_.dropout)
            mov(reg_bits, arg(offsetof(sd_row_call_t, bits)));
        mov(reg_work, arg(offsetof(sd_row_call_t, work)));
        mov(reg_n, arg(offsetof(sd_row_call_t, n)));
        mov(reg_len, arg(offsetof(sd_row_call_t, len)));
    }

    // Vector u of the row at base (elements of the data type), counting
    // from column j.
    Address row(const Reg64 &base, int u) const {
        return ptr[base + reg_j * es_ + u * V_ * es_];
    }
    Address work(int u) const { return ptr[reg_work + reg_j * 4 + u * vlen()]; }

    // k5 (avx512) or mlen_ (avx2) = the lanes below rem.
    void set_len_mask() {
        if (is_avx512())
            lane_kmask(k5, reg_rem);
        else
            lane_vmask(mlen_, reg_rem);
    }
    void lane_kmask(const Opmask &k, const Reg64 &cnt) {
        // (1 << cnt) - 1, cnt in [1, 16].
        xor_(reg_t0.cvt32(), reg_t0.cvt32());
        bts(reg_t0.cvt32(), cnt.cvt32());
        dec(reg_t0.cvt32());
        kmovw(k, reg_t0.cvt32());
    }
    void lane_vmask(const Xmm &m, const Reg64 &cnt) {
        // The window of the tail table that starts cnt lanes before its
        // zeros.
        lea(reg_t1, ptr[rip + table_ + c_tail * 64 + 64]);
        mov(reg_t0, cnt);
        neg(reg_t0);
        vmovdqu(m, ptr[reg_t1 + reg_t0 * 4]);
    }

    // What each group of vectors needs first: the byte of its bits.
    void begin_step() {
        if (!conf_.dropout) return;
        mov(reg_jb, reg_j);
        shr(reg_jb, 3);
    }
    // Prefetches the next row's lines of base under the U vectors from
    // column j, n elements on: the hardware prefetchers lose rows of
    // several KiB between the passes. Into L2 to be read, or (write) for
    // writing, so that the row's stores do not wait for the lines'
    // ownership (forward's dst: rows of 4096 f32 1.1x faster).
    void prefetch_next(const Reg64 &base, int U, bool write = false) {
        lea(reg_t0, ptr[reg_j + reg_n]);
        for (int off = 0; off < U * V_ * es_; off += 64) {
            const Address a = ptr[base + reg_t0 * es_ + off];
            write ? prefetchw(a) : prefetcht1(a);
        }
    }

    // The lanes of vector u whose bits are set: avx512 k1; avx2 the sign
    // bits of t (vpsllvd moves lane k's bit shift + k to bit 31).
    void emit_bits(int u, const Xmm &t) {
        const RegExp a = reg_bits + reg_jb + u * V_ / 8;
        if (is_avx512()) {
            vptestmd(k1, lanev_, ptr_b[a]);
        } else {
            vpbroadcastd(t, dword[a]);
            vpsllvd(t, t, lanev_);
        }
    }
    // d = bit ? scale * d : +0 for vector u (t: avx2's temporary).
    void emit_drop(const Xmm &d, int u, const Xmm &t) {
        emit_bits(u, t);
        if (is_avx512()) {
            vmulps(d | k1 | T_z, d, scale_);
        } else {
            vmulps(d, d, scale_);
            vblendvps(d, zero_, d, t);
        }
    }
    void setup_dropout(const Xmm &t) {
        vbroadcastss(scale_,
                dword[reg_param + offsetof(sd_row_call_t, scale)]);
        vpbroadcastd(t, dword[reg_param + offsetof(sd_row_call_t, shift)]);
        if (is_avx512()) {
            vmovdqu32(lanev_, caddr_[c_lane_bit]);
            vpsllvd(lanev_, lanev_, t);
        } else {
            vmovdqu(lanev_, caddr_[c_lane_shift]);
            vpsubd(lanev_, lanev_, t);
        }
    }

    // Prefetches for writing the next row's lines of dst past column len
    // (causal rows: the zeros that the passes over [0, len) do not reach).
    void prefetch_next_tail() {
        Label l_loop, l_done;
        mov(reg_t0, reg_len);
        imul(reg_t0, reg_t0, es_);
        and_(reg_t0, -64);
        mov(reg_t1, reg_n);
        imul(reg_t1, reg_t1, es_);
        lea(reg_t2, ptr[reg_dst + reg_t1]); // the next row
        L(l_loop);
        cmp(reg_t0, reg_t1);
        jge(l_done, T_NEAR);
        prefetchw(ptr[reg_t2 + reg_t0]);
        add(reg_t0, 64);
        jmp(l_loop, T_NEAR);
        L(l_done);
    }

    // --- loads and stores ------------------------------------------------

    // x = the f32 values of vector u of the row at base; part: only the
    // lanes below rem (k5, mlen_) are read, the others are 0.
    void load_row(const Xmm &x, const Reg64 &base, int u, bool part) {
        const Address a = row(base, u);
        if (!part) {
            if (f32()) {
                vmovups(x, a);
            } else {
                vpmovzxwd(x, a);
                vpslld(x, x, 16);
            }
        } else if (is_avx512()) {
            if (f32()) {
                vmovups(x | k5 | T_z, a);
            } else {
                vpmovzxwd(x | k5 | T_z, a);
                vpslld(x, x, 16);
            }
        } else if (f32()) {
            vmaskmovps(x, mlen_, a);
        } else {
            stage_in(base);
            vpmovzxwd(x, ptr[rsp]);
            vpslld(x, x, 16);
        }
    }
    // The stack buffer = rem bf16 elements at base + j, then zeros.
    void stage_in(const Reg64 &base) {
        mov(qword[rsp], 0);
        mov(qword[rsp + 8], 0);
        stage_copy(base, true);
    }
    // dst + j = rem bf16 elements of the stack buffer.
    void stage_out() { stage_copy(reg_dst, false); }
    // Copies rem bf16 elements between base + j and the stack buffer (in:
    // to the buffer).
    void stage_copy(const Reg64 &base, bool in) {
        lea(reg_t0, ptr[base + reg_j * 2]);
        xor_(reg_t1, reg_t1);
        const Address row = word[reg_t0 + reg_t1 * 2];
        const Address stack = word[rsp + reg_t1 * 2];
        Label l;
        L(l);
        movzx(reg_t2.cvt32(), in ? row : stack);
        mov(in ? stack : row, reg_t2.cvt16());
        inc(reg_t1);
        cmp(reg_t1, reg_rem);
        jl(l);
    }

    // Stores f32 lanes v (clobbered in bf16) to vector u of dst, rounded
    // to the data type; part: only the lanes below n.
    void store_row(const Xmm &v, int u, bool part) {
        const Address a = row(reg_dst, u);
        if (part) {
            // rem = min(V, n - j)
            mov(reg_rem, reg_n);
            sub(reg_rem, reg_j);
            mov(reg_t0, V_);
            cmp(reg_rem, reg_t0);
            cmovg(reg_rem, reg_t0);
            if (is_avx512())
                lane_kmask(k6, reg_rem);
            else if (f32())
                lane_vmask(mst_, reg_rem);
        }
        if (f32()) {
            if (!part)
                vmovups(a, v);
            else if (is_avx512())
                vmovups(a | k6, v);
            else
                vmaskmovps(a, mst_, v);
            return;
        }
        round_bf16(v);
        if (is_avx512()) {
            if (part)
                vpmovdw(a | k6, v);
            else
                vpmovdw(a, v);
            return;
        }
        const Ymm y(v.getIdx());
        vpackusdw(y, y, y);
        vpermq(y, y, 0x08);
        if (!part) {
            vmovdqu(a, Xmm(v.getIdx()));
        } else {
            vmovdqu(ptr[rsp], Xmm(v.getIdx()));
            stage_out();
        }
    }
    // Zeros at dst + j: a vector, or (part) rem elements.
    void store_zero(bool part) {
        const Address a = row(reg_dst, 0);
        const Xmm z = f32() ? zero_
                : is_avx512() ? Ymm(zero_.getIdx())
                              : Xmm(zero_.getIdx());
        if (!part) {
            if (is_avx512())
                vmovdqu32(a, z);
            else
                vmovdqu(a, z);
        } else if (is_avx512()) {
            lane_kmask(k6, reg_rem);
            if (f32())
                vmovdqu32(a | k6, z);
            else
                vmovdqu16(a | k6, z);
        } else if (f32()) {
            lane_vmask(mst_, reg_rem);
            vmaskmovps(a, mst_, z);
        } else {
            mov(qword[rsp], 0);
            mov(qword[rsp + 8], 0);
            stage_out();
        }
    }

    // f32_to_bf16 in the low 16 bits of each lane of v: round to nearest
    // even, (v + 0x7fff + lsb) >> 16, but a NaN keeps its top bits and
    // becomes quiet.
    void round_bf16(const Xmm &v) {
        const Xmm &t = rt1_, &q = rt2_;
        vpsrld(t, v, 16);
        if (is_avx512()) {
            vpandd(t, t, C(c_i_one));
            vpaddd(t, t, v);
            vpaddd(t, t, C(c_round));
            vcmpps(k2, v, v, 3); // unordered: NaN
            vpord(t | k2, v, C(c_quiet));
        } else {
            vpand(t, t, C(c_i_one));
            vpaddd(t, t, v);
            vpaddd(t, t, C(c_round));
            vcmpps(q, v, v, 3);
            vpor(v, v, C(c_quiet));
            vblendvps(t, t, v, q);
        }
        vpsrld(v, t, 16);
    }
    void take_round_regs() {
        if (f32()) return;
        rt1_ = take();
        if (!is_avx512()) rt2_ = take();
    }

    // --- arithmetic ------------------------------------------------------

    // x = exp(x), x <= 0 (the file's comment); t, q clobbered. part: the
    // lanes past rem are +0.
    void emit_exp(const Xmm &x, const Xmm &t, const Xmm &q, bool part) {
        vmaxps(x, CR(c_lo), x);
        vmovaps(t, C(c_magic));
        vfmadd231ps(t, x, C(c_log2e));
        vsubps(q, t, C(c_magic));
        vfnmadd231ps(x, q, C(c_ln2_hi));
        vfnmadd231ps(x, q, C(c_ln2_lo));
        vmovaps(q, C(c_p4));
        vfmadd231ps(q, x, C(c_p5));
        vfmadd213ps(q, x, C(c_p3));
        vfmadd213ps(q, x, C(c_p2));
        vfmadd213ps(q, x, C(c_p1));
        vfmadd213ps(q, x, C(c_p0));
        vpslld(t, t, 23);
        if (part && is_avx512()) {
            vmulps(x | k5 | T_z, q, t);
        } else {
            vmulps(x, q, t);
            if (part) vandps(x, x, mlen_);
        }
    }
    void use_exp_consts() {
        use_consts({c_lo, c_magic, c_log2e, c_ln2_hi, c_ln2_lo, c_p5, c_p4,
                c_p3, c_p2, c_p1, c_p0});
    }

    // acc[0] = the max or sum of acc[0 .. U), in every lane; t clobbered.
    void reduce(const Xmm *acc, int U, const Xmm &t, bool max) {
        const auto op = [&](const Xmm &d, const Xmm &a, const Xmm &b) {
            max ? vmaxps(d, a, b) : vaddps(d, a, b);
        };
        for (int s = 1; s < U; s *= 2)
            for (int u = 0; u + s < U; u += 2 * s)
                op(acc[u], acc[u], acc[u + s]);
        const Xmm &a = acc[0];
        if (is_avx512()) {
            const Zmm tz(t.getIdx()), az(a.getIdx());
            vshuff32x4(tz, az, az, 0x4e); // swaps the 256-bit halves
            op(a, a, t);
            vshuff32x4(tz, az, az, 0xb1); // swaps the 128-bit blocks' pairs
        } else {
            vperm2f128(Ymm(t.getIdx()), Ymm(a.getIdx()), Ymm(a.getIdx()), 1);
        }
        op(a, a, t);
        vpermilps(t, a, 0x4e);
        op(a, a, t);
        vpermilps(t, a, 0xb1);
        op(a, a, t);
    }

    // --- walks over the row ---------------------------------------------

    // body(u, part) for the vectors of columns [0, end): groups of U, then
    // single vectors (u = 0), then a partial one (lanes below rem, under
    // set_len_mask() if mask_part); j ends past the last vector.
    template <typename body_t>
    void walk(const Reg64 &end, int U, body_t body, bool mask_part = true) {
        Label l_group, l_single, l_part, l_done;
        xor_(reg_j, reg_j);
        if (U > 1) {
            L(l_group);
            lea(reg_t0, ptr[reg_j + U * V_]);
            cmp(reg_t0, end);
            jg(l_single, T_NEAR);
            begin_step();
            for (int u = 0; u < U; ++u)
                body(u, false);
            add(reg_j, U * V_);
            jmp(l_group, T_NEAR);
        }
        L(l_single);
        lea(reg_t0, ptr[reg_j + V_]);
        cmp(reg_t0, end);
        jg(l_part, T_NEAR);
        begin_step();
        body(0, false);
        add(reg_j, V_);
        jmp(l_single, T_NEAR);
        L(l_part);
        mov(reg_rem, end);
        sub(reg_rem, reg_j);
        jle(l_done, T_NEAR);
        if (mask_part) set_len_mask();
        begin_step();
        body(0, true);
        add(reg_j, V_);
        L(l_done);
    }

    // As walk() over [0, len), where body stores its vector (a partial
    // one: the lanes below n, store_row()), then zeros up to n.
    // len_mask: the partial vector's loads need the lanes below len.
    template <typename body_t>
    void walk_store(int U, bool len_mask, body_t body) {
        walk(reg_len, U, body, len_mask);
        Label l_fill, l_fill_part, l_done;
        L(l_fill);
        lea(reg_t0, ptr[reg_j + V_]);
        cmp(reg_t0, reg_n);
        jg(l_fill_part, T_NEAR);
        store_zero(false);
        add(reg_j, V_);
        jmp(l_fill, T_NEAR);
        L(l_fill_part);
        mov(reg_rem, reg_n);
        sub(reg_rem, reg_j);
        jle(l_done, T_NEAR);
        store_zero(true);
        L(l_done);
    }

    // --- the passes ------------------------------------------------------

    void forward() {
        constexpr int U = 4;
        Xmm acc[U];
        // Pass 1: m = max x_j, into vmm(0). A partial vector's lanes past
        // len take no part (avx512: a merge under k5; avx2: -inf there).
        next_ = 0;
        for (auto &a : acc)
            a = take();
        Xmm x = take();
        const Xmm ninf = take();
        if (!is_avx512()) mlen_ = take();
        vmovaps(ninf, caddr_[c_neg_inf]);
        for (const auto &a : acc)
            vmovaps(a, ninf);
        walk(reg_len, U, [&](int u, bool part) {
            const Xmm &a = acc[u];
            if (!part && f32()) {
                vmaxps(a, a, row(reg_src, u));
                return;
            }
            load_row(x, reg_src, u, part);
            if (part && is_avx512()) {
                vmaxps(a | k5, a, x);
                return;
            }
            if (part) vblendvps(x, ninf, x, mlen_);
            vmaxps(a, a, x);
        });
        reduce(acc, U, x, true);
        const Xmm m = acc[0];

        // Pass 2: e_j into work, their sum into vmm(1), then inv there.
        next_ = 1;
        for (auto &a : acc)
            a = take();
        x = take();
        const Xmm t = take(), q = take();
        if (!is_avx512()) mlen_ = take();
        use_exp_consts();
        for (const auto &a : acc)
            vxorps(a, a, a);
        walk(reg_len, U, [&](int u, bool part) {
            if (u == 0 && !part) {
                prefetch_next(reg_src, U);
                prefetch_next(reg_dst, U, true);
            }
            load_row(x, reg_src, u, part);
            vsubps(x, x, m);
            emit_exp(x, t, q, part);
            vmovups(work(u), x);
            vaddps(acc[u], acc[u], x);
        });
        reduce(acc, U, x, false);
        const Xmm inv = acc[0];
        vmovaps(x, caddr_[c_one]);
        vdivps(inv, x, inv);
        if (conf_.stats) {
            mov(reg_t0, ptr[reg_param + offsetof(sd_row_call_t, stats)]);
            vmovss(dword[reg_t0], Xmm(m.getIdx()));
            vmovss(dword[reg_t0 + 4], Xmm(inv.getIdx()));
        }

        // Pass 3: y_j. work is 0 past len in the partial vector (pass 2),
        // so that it needs no mask but the store's.
        next_ = 2;
        const Xmm y = take();
        zero_ = take();
        Xmm bt;
        if (conf_.dropout) {
            scale_ = take();
            lanev_ = take();
            if (!is_avx512()) bt = take();
        }
        take_round_regs();
        if (!is_avx512()) mst_ = take();
        use_consts({c_i_one, c_round, c_quiet});
        vxorps(zero_, zero_, zero_);
        if (conf_.dropout) setup_dropout(y);
        prefetch_next_tail();
        walk_store(U, false, [&](int u, bool part) {
            // P = e * inv, then P * scale: two roundings, as the
            // reference.
            vmulps(y, inv, work(u));
            if (conf_.dropout) emit_drop(y, u, bt);
            store_row(y, u, part);
        });
    }

    void backward() {
        // Pass 1: P_j into work, c = sum P_j dp_j.
        const int U = is_avx512() ? 4 : 2;
        next_ = 0;
        Xmm m, inv;
        if (conf_.stats) {
            m = take();
            inv = take();
            mov(reg_t0, ptr[reg_param + offsetof(sd_row_call_t, stats)]);
            vbroadcastss(m, dword[reg_t0]);
            vbroadcastss(inv, dword[reg_t0 + 4]);
        }
        if (conf_.dropout) {
            scale_ = take();
            lanev_ = take();
            zero_ = take();
        }
        Xmm acc[4];
        for (int u = 0; u < U; ++u)
            acc[u] = take();
        const Xmm x = take(), t = take(), q = take();
        if (!is_avx512()) mlen_ = take();
        if (conf_.stats)
            use_exp_consts();
        else
            use_consts({});
        if (conf_.dropout) {
            vxorps(zero_, zero_, zero_);
            setup_dropout(x);
        }
        for (int u = 0; u < U; ++u)
            vxorps(acc[u], acc[u], acc[u]);
        walk(reg_len, U, [&](int u, bool part) {
            if (u == 0 && !part) {
                prefetch_next(reg_p, U);
                prefetch_next(reg_src, U);
            }
            // A partial vector's P is 0 past len: the loads give 0 there,
            // and exp's lanes are zeroed.
            load_row(x, reg_p, u, part);
            if (conf_.stats) {
                vsubps(x, x, m);
                emit_exp(x, t, q, false);
                if (part && is_avx512()) {
                    vmulps(x | k5 | T_z, x, inv);
                } else {
                    vmulps(x, x, inv);
                    if (part) vandps(x, x, mlen_);
                }
            }
            vmovups(work(u), x);
            load_row(t, reg_src, u, part);
            if (conf_.dropout) emit_drop(t, u, q);
            vfmadd231ps(acc[u], x, t);
        });
        reduce(acc, U, x, false);
        const Xmm c = acc[0];

        // Pass 2: dx_j = P_j (dp_j - c), +0 past len (the partial vector's
        // lanes are zeroed: P (dp - c) would be -0 there).
        next_ = c.getIdx() + 1;
        const Xmm d = take(), w = take();
        Xmm bt;
        if (!conf_.dropout)
            zero_ = take();
        else if (!is_avx512())
            bt = take();
        take_round_regs();
        if (!is_avx512()) {
            mlen_ = take();
            mst_ = take();
        }
        use_consts({c_i_one, c_round, c_quiet});
        if (!conf_.dropout) vxorps(zero_, zero_, zero_);
        prefetch_next_tail();
        walk_store(4, true, [&](int u, bool part) {
            load_row(d, reg_src, u, part);
            if (conf_.dropout) emit_drop(d, u, bt);
            vsubps(d, d, c);
            if (part && is_avx512()) {
                vmovups(w, work(u));
                vmulps(d | k5 | T_z, d, w);
            } else {
                vmulps(d, d, work(u));
                if (part) vandps(d, d, mlen_);
            }
            store_row(d, u, part);
        });
    }

    void emit_table() {
        align(64);
        L(table_);
        for (int id = 0; id < c_lane_bit; ++id)
            for (int i = 0; i < 16; ++i)
                dd(cst_value[id]);
        for (uint32_t k = 0; k < 16; ++k)
            dd(1u << k);
        for (uint32_t k = 0; k < 16; ++k)
            dd(31u - k);
        for (int i = 0; i < 32; ++i)
            dd(i < 16 ? ~0u : 0u);
    }

    sd_row_conf_t conf_;
    int V_; // f32 lanes
    int es_; // bytes of an element of the data type
    int n_vregs_;
    int next_ = 0;
    int creg_[n_cst] = {};
    Xmm cvmm_[n_cst];
    std::vector<Address> caddr_;
    // Registers the helpers share, set by each pass.
    Xmm mlen_, mst_; // avx2: the partial vector's load and store lanes
    Xmm rt1_, rt2_; // bf16 rounding's temporaries
    Xmm scale_, lanev_, zero_; // lanev_: avx512 1 << (shift + k), avx2
                               // 31 - shift - k
    Label table_;
    fn_t fn_ = nullptr;
};

class jit_sd_row_t : public sd_row_kernel_t {
public:
    jit_sd_row_t(cpu_isa isa, const sd_row_conf_t &conf) : gen_(isa, conf) {}
    void operator()(const sd_row_call_t &call) const override { gen_(call); }

private:
    jit_sd_row_gen_t gen_;
};

} // namespace

bool init_jit_sd_row(cpu_isa isa, const sd_row_conf_t &conf, std::string &why) {
    if (!tier_usable(isa, conf.max_isa, why)) return false;
    if (isa < cpu_isa::avx2) {
        why = "sse41 has no FMA (softmax-dropout needs avx2)";
        return false;
    }
    if (conf.dt != data_type::f32 && conf.dt != data_type::bf16) {
        why = cat("dt=", dt2str(conf.dt), " has no JIT kernel");
        return false;
    }
    return true;
}

std::unique_ptr<sd_row_kernel_t> create_jit_sd_row(
        cpu_isa isa, const sd_row_conf_t &conf) {
    return make_jit_kernel<sd_row_kernel_t, jit_sd_row_t>(isa, conf);
}

} // namespace impl
} // namespace rndnn
