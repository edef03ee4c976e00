// The base of every JIT kernel: an Xbyak code generator that knows its ISA
// tier, saves and restores the System V callee-saved registers, and emits
// vector instructions in the form its tier has ("uni_" helpers: legacy SSE
// encodings with a register copy where the SSE form is destructive, VEX
// three-operand forms at AVX2, EVEX forms at AVX-512).
//
// Vector registers are Xbyak::Xmm values whose kind (xmm, ymm or zmm) comes
// from vmm(i); Xbyak encodes from that kind, so one emitter serves every
// tier. AVX-512 compares write mask registers, not vectors: the uni_
// compares and select go through k7 (reserved for them), so that code
// written for vectors of 0 / ~0 runs unchanged; hot paths use k registers
// directly (k1-k6).
//
// Kernels are made through make_jit_kernel() (below), which turns a failure
// to generate their code into a decline of their implementation-list entry.
#ifndef RNDNN_SRC_JIT_JIT_GENERATOR_HPP
#define RNDNN_SRC_JIT_JIT_GENERATOR_HPP

#include <algorithm>
#include <memory>
#include <new>
#include <string>

#include <xbyak/xbyak.h>

#include "rndnn/common.hpp"
#include "src/cpu_isa.hpp"
#include "src/impl_list.hpp"
#include "src/utils.hpp"

namespace rndnn {
namespace impl {

class jit_generator_t : public Xbyak::CodeGenerator {
public:
    // Bytes of code the buffer holds; kernels stay far below.
    static constexpr size_t max_code_size = 256 * 1024;

    explicit jit_generator_t(cpu_isa isa)
        : Xbyak::CodeGenerator(max_code_size, Xbyak::DontSetProtectRWE)
        , isa_(isa) {}

    cpu_isa isa() const { return isa_; }
    bool is_sse() const { return isa_ == cpu_isa::sse41; }
    bool is_avx512() const { return isa_ == cpu_isa::avx512; }
    // Bytes in a vector register of this tier.
    int vlen() const { return is_sse() ? 16 : is_avx512() ? 64 : 32; }
    Xbyak::Xmm vmm(int idx) const {
        if (is_sse()) return Xbyak::Xmm(idx);
        if (is_avx512()) return Xbyak::Zmm(idx);
        return Xbyak::Ymm(idx);
    }

    // The System V argument registers this code uses.
    const Xbyak::Reg64 abi_param1 = rdi;

    // Saves the callee-saved registers and sets rbp as the frame pointer;
    // then reserves `frame` bytes at rsp, aligned to 64.
    void preamble(int frame) {
        for (const auto &r : saved_) push(r);
        mov(rbp, rsp);
        sub(rsp, frame);
        and_(rsp, -64);
    }
    void postamble() {
        mov(rsp, rbp);
        for (int i = n_saved - 1; i >= 0; --i)
            pop(saved_[i]);
        if (!is_sse()) vzeroupper();
        // Non-temporal stores are weakly ordered: fence them before the
        // caller (another thread, after the join) reads the output.
        if (nt_stores_) sfence();
        ret();
    }

    // Whether uni_store_out() emits non-temporal stores (which need
    // addresses aligned to vlen()): set while generating a function for
    // large outputs (docs/jit.md, "Large outputs").
    bool nt_stores() const { return nt_stores_; }
    void set_nt_stores(bool nt) { nt_stores_ = nt; }

    // Makes the code executable (and no longer writable) and returns it.
    // @throws Xbyak::Error (can't protect) where the memory cannot be made
    //     executable (a W^X policy), or where the test hook RNDNN_JIT_FAIL
    //     (jit_fail_isa(), src/cpu_isa.hpp) covers this tier: it fails
    //     here, as such a policy would.
    template <typename fn_t>
    fn_t finalize() {
        if (jit_fail_hooked(isa_)) throw Xbyak::Error(Xbyak::ERR_CANT_PROTECT);
        setProtectModeRE();
        return getCode<fn_t>();
    }

    // --- uni_ helpers: d = a op b ---------------------------------------
    using Xmm = Xbyak::Xmm;
    using Operand = Xbyak::Operand;
    using Address = Xbyak::Address;

    void uni_load(const Xmm &d, const Address &a) {
        if (is_sse())
            movdqu(d, a);
        else if (d.isZMM())
            vmovdqu32(d, a);
        else
            vmovdqu(d, a);
    }
    void uni_store(const Address &a, const Xmm &s) {
        if (is_sse())
            movdqu(a, s);
        else if (s.isZMM())
            vmovdqu32(a, s);
        else
            vmovdqu(a, s);
    }
    // A store of kernel output: non-temporal while nt_stores().
    void uni_store_out(const Address &a, const Xmm &s) {
        if (!nt_stores_)
            uni_store(a, s);
        else if (is_sse())
            movntdq(a, s);
        else
            vmovntdq(a, s);
    }
    void uni_mov(const Xmm &d, const Xmm &s) {
        if (d.getIdx() == s.getIdx()) return;
        if (is_sse())
            movdqa(d, s);
        else if (d.isZMM())
            vmovdqa32(d, s);
        else
            vmovdqa(d, s);
    }

    // avx512_op: the EVEX form at zmm, where its name differs.
#define RNDNN_UNI_BINARY(name, sse_op, avx_op, avx512_op) \
    void name(const Xmm &d, const Xmm &a, const Operand &b) { \
        if (is_sse()) { \
            if (b.isXMM() && d.getIdx() == b.getIdx() \
                    && d.getIdx() != a.getIdx()) { \
                /* d aliases b: only commutative ops come here */ \
                sse_op(d, a); \
                return; \
            } \
            uni_mov(d, a); \
            sse_op(d, b); \
        } else if (d.isZMM()) { \
            avx512_op(d, a, b); \
        } else { \
            avx_op(d, a, b); \
        } \
    }
    RNDNN_UNI_BINARY(uni_vpxor, pxor, vpxor, vpxord)
    RNDNN_UNI_BINARY(uni_vpor, por, vpor, vpord)
    RNDNN_UNI_BINARY(uni_vpand, pand, vpand, vpandd)
    RNDNN_UNI_BINARY(uni_vpaddd, paddd, vpaddd, vpaddd)
    RNDNN_UNI_BINARY(uni_vpaddq, paddq, vpaddq, vpaddq)
    RNDNN_UNI_BINARY(uni_vpmuludq, pmuludq, vpmuludq, vpmuludq)
    RNDNN_UNI_BINARY(uni_vpmulld, pmulld, vpmulld, vpmulld)
    RNDNN_UNI_BINARY(uni_vmulps, mulps, vmulps, vmulps)
    RNDNN_UNI_BINARY(uni_vaddps, addps, vaddps, vaddps)
#undef RNDNN_UNI_BINARY

    // d = a == b per 32-bit lane, as 0 / ~0.
    void uni_vpcmpeqd(const Xmm &d, const Xmm &a, const Operand &b) {
        if (d.isZMM()) {
            vpcmpeqd(k7, a, b);
            vpmovm2d(d, k7);
        } else if (is_sse()) {
            if (b.isXMM() && d.getIdx() == b.getIdx()
                    && d.getIdx() != a.getIdx()) {
                pcmpeqd(d, a);
                return;
            }
            uni_mov(d, a);
            pcmpeqd(d, b);
        } else {
            vpcmpeqd(d, a, b);
        }
    }
    // d = a > b per signed 32-bit lane, as 0 / ~0. d must not alias b
    // unless it also aliases a.
    void uni_vpcmpgtd(const Xmm &d, const Xmm &a, const Operand &b) {
        if (d.isZMM()) {
            vpcmpgtd(k7, a, b);
            vpmovm2d(d, k7);
        } else if (is_sse()) {
            check_no_alias(d, a, b);
            uni_mov(d, a);
            pcmpgtd(d, b);
        } else {
            vpcmpgtd(d, a, b);
        }
    }

    // Non-commutative: d must not alias b unless it also aliases a.
#define RNDNN_UNI_ORDERED(name, sse_op, avx_op) \
    void name(const Xmm &d, const Xmm &a, const Operand &b) { \
        if (is_sse()) { \
            check_no_alias(d, a, b); \
            uni_mov(d, a); \
            sse_op(d, b); \
        } else { \
            avx_op(d, a, b); \
        } \
    }
    // d = ~a & b
    void uni_vpandn(const Xmm &d, const Xmm &a, const Operand &b) {
        if (d.isZMM()) {
            vpandnd(d, a, b);
            return;
        }
        if (is_sse()) {
            check_no_alias(d, a, b);
            uni_mov(d, a);
            pandn(d, b);
        } else {
            vpandn(d, a, b);
        }
    }
    RNDNN_UNI_ORDERED(uni_vpsubd, psubd, vpsubd)
    RNDNN_UNI_ORDERED(uni_vpsubq, psubq, vpsubq)
    RNDNN_UNI_ORDERED(uni_vpackssdw, packssdw, vpackssdw)
    RNDNN_UNI_ORDERED(uni_vpacksswb, packsswb, vpacksswb)
    RNDNN_UNI_ORDERED(uni_vpackusdw, packusdw, vpackusdw)
    RNDNN_UNI_ORDERED(uni_vpunpckldq, punpckldq, vpunpckldq)
    RNDNN_UNI_ORDERED(uni_vpunpckhdq, punpckhdq, vpunpckhdq)
    RNDNN_UNI_ORDERED(uni_vpunpcklqdq, punpcklqdq, vpunpcklqdq)
    RNDNN_UNI_ORDERED(uni_vpunpckhqdq, punpckhqdq, vpunpckhqdq)
    RNDNN_UNI_ORDERED(uni_vunpcklps, unpcklps, vunpcklps)
    RNDNN_UNI_ORDERED(uni_vunpckhps, unpckhps, vunpckhps)
    RNDNN_UNI_ORDERED(uni_vsubps, subps, vsubps)
    RNDNN_UNI_ORDERED(uni_vdivps, divps, vdivps)
    // Not NaN-symmetric: d = b where either is NaN (callers pass no NaN).
    RNDNN_UNI_ORDERED(uni_vmaxps, maxps, vmaxps)
    RNDNN_UNI_ORDERED(uni_vminps, minps, vminps)
#undef RNDNN_UNI_ORDERED

#define RNDNN_UNI_SHIFT(name, sse_op, avx_op) \
    void name(const Xmm &d, const Xmm &a, int imm) { \
        if (is_sse()) { \
            uni_mov(d, a); \
            sse_op(d, static_cast<uint8_t>(imm)); \
        } else { \
            avx_op(d, a, static_cast<uint8_t>(imm)); \
        } \
    }
    RNDNN_UNI_SHIFT(uni_vpsrld, psrld, vpsrld)
    RNDNN_UNI_SHIFT(uni_vpslld, pslld, vpslld)
    RNDNN_UNI_SHIFT(uni_vpsrad, psrad, vpsrad)
    RNDNN_UNI_SHIFT(uni_vpsrlq, psrlq, vpsrlq)
    RNDNN_UNI_SHIFT(uni_vpsllq, psllq, vpsllq)
#undef RNDNN_UNI_SHIFT

    // x = rotl(x, n) per 32-bit lane; t is clobbered (not at zmm, which
    // has vprold).
    void uni_rotl(const Xmm &x, int n, const Xmm &t) {
        if (x.isZMM()) {
            vprold(x, x, static_cast<uint8_t>(n));
            return;
        }
        uni_vpslld(t, x, n);
        uni_vpsrld(x, x, 32 - n);
        uni_vpor(x, x, t);
    }

    // d = (a & mask) | (b & ~mask), bitwise; t is clobbered (not at zmm).
    void uni_select(const Xmm &d, const Xmm &mask, const Xmm &a, const Xmm &b,
            const Xmm &t) {
        if (d.isZMM()) {
            // One bitwise select: t = t ? a : b per bit (truth table 0xCA
            // over (t, a, b)).
            uni_mov(t, mask);
            vpternlogd(t, a, b, 0xCA);
            uni_mov(d, t);
            return;
        }
        uni_vpand(d, a, mask);
        uni_vpandn(t, mask, b);
        uni_vpor(d, d, t);
    }
    // d = b in the qword lanes whose sign bit `sign` sets, else a (avx2
    // and up: vblendvpd; zmm: k7 from the sign bits, vblendmpd).
    void uni_vblendvpd(
            const Xmm &d, const Xmm &a, const Xmm &b, const Xmm &sign) {
        if (d.isZMM()) {
            vpmovq2m(k7, sign);
            vblendmpd(d | k7, a, b);
        } else {
            vblendvpd(d, a, b, sign);
        }
    }
    void uni_vpshufd(const Xmm &d, const Operand &a, uint8_t imm) {
        is_sse() ? pshufd(d, a, imm) : vpshufd(d, a, imm);
    }
    void uni_vshufps(const Xmm &d, const Xmm &a, const Operand &b, uint8_t imm) {
        if (is_sse()) {
            check_no_alias(d, a, b);
            uni_mov(d, a);
            shufps(d, b, imm);
        } else {
            vshufps(d, a, b, imm);
        }
    }
    void uni_vcvtdq2ps(const Xmm &d, const Operand &a) {
        is_sse() ? cvtdq2ps(d, a) : vcvtdq2ps(d, a);
    }
    void uni_vsqrtps(const Xmm &d, const Operand &a) {
        is_sse() ? sqrtps(d, a) : vsqrtps(d, a);
    }
    void uni_vpmovmskb(const Xbyak::Reg32 &d, const Xmm &a) {
        is_sse() ? pmovmskb(d, a) : vpmovmskb(d, a);
    }
    // d = the sign bits of a's 32-bit lanes (bit i: lane i); k7 is
    // clobbered at zmm.
    void uni_vmovmskps(const Xbyak::Reg32 &d, const Xmm &a) {
        if (a.isZMM()) {
            vpmovd2m(k7, a);
            kmovw(d, k7);
        } else if (is_sse()) {
            movmskps(d, a);
        } else {
            vmovmskps(d, a);
        }
    }
    // d = the sign bits of a's qword lanes (bit i: lane i), avx2 and up;
    // k7 is clobbered at zmm.
    void uni_vmovmskpd(const Xbyak::Reg32 &d, const Xmm &a) {
        if (a.isZMM()) {
            vpmovq2m(k7, a);
            kmovb(d, k7);
        } else {
            vmovmskpd(d, a);
        }
    }
    // d = the 32-bit word at a in every lane.
    void uni_vpbroadcastd(const Xmm &d, const Address &a) {
        if (is_sse()) {
            movd(d, a);
            pshufd(d, d, 0);
        } else {
            vpbroadcastd(d, a);
        }
    }
    // d = the 64-bit r in every qword lane.
    void uni_broadcast_q(const Xmm &d, const Xbyak::Reg64 &r) {
        if (is_sse()) {
            movq(d, r);
            punpcklqdq(d, d);
        } else {
            vmovq(Xmm(d.getIdx()), r);
            vpbroadcastq(d, Xmm(d.getIdx()));
        }
    }
    void uni_vbroadcastss(const Xmm &d, const Address &a) {
        if (is_sse()) {
            movss(d, a);
            shufps(d, d, 0);
        } else {
            vbroadcastss(d, a);
        }
    }
    // d = 16-bit words at a, zero-extended to 32-bit lanes.
    void uni_vpmovzxwd(const Xmm &d, const Address &a) {
        is_sse() ? pmovzxwd(d, a) : vpmovzxwd(d, a);
    }
    // d = ~0 in the lanes where a is NaN.
    void uni_vcmpunordps(const Xmm &d, const Xmm &a) {
        if (d.isZMM()) {
            vcmpunordps(k7, a, a);
            vpmovm2d(d, k7);
        } else if (is_sse()) {
            uni_mov(d, a);
            cmpunordps(d, a);
        } else {
            vcmpunordps(d, a, a);
        }
    }
    // d = ~0 in the lanes where a `pred` b holds, pred one of SSE's eight
    // (0 .. 7: eq, lt, le, unord, neq, nlt, nle, ord). d must not alias b
    // unless it also aliases a.
    void uni_vcmpps(const Xmm &d, const Xmm &a, const Operand &b, uint8_t pred) {
        if (d.isZMM()) {
            vcmpps(k7, a, b, pred);
            vpmovm2d(d, k7);
        } else if (is_sse()) {
            check_no_alias(d, a, b);
            uni_mov(d, a);
            cmpps(d, b, pred);
        } else {
            vcmpps(d, a, b, pred);
        }
    }
    // uni_vcmpps's qword form, avx2 and up (zmm: k7 is clobbered).
    void uni_vcmppd(const Xmm &d, const Xmm &a, const Operand &b, uint8_t pred) {
        if (d.isZMM()) {
            vcmppd(k7, a, b, pred);
            vpmovm2q(d, k7);
        } else {
            vcmppd(d, a, b, pred);
        }
    }

private:
    // SSE's destructive form would overwrite b before reading it.
    static void check_no_alias(const Xmm &d, const Xmm &a, const Operand &b) {
        if (b.isXMM() && d.getIdx() == b.getIdx() && d.getIdx() != a.getIdx())
            throw Xbyak::Error(Xbyak::ERR_BAD_COMBINATION);
    }

    static constexpr int n_saved = 6;
    const Xbyak::Reg64 saved_[n_saved] = {rbx, rbp, r12, r13, r14, r15};
    cpu_isa isa_;
    bool nt_stores_ = false;
};

// Makes a JIT kernel, std::make_unique<kernel_t>(isa, args...), whose
// construction generates its code, as a base_t: every JIT kernel's create
// function (create_jit_rng(), ...) is this, the one place where a failure
// to generate code is caught.
// @throws codegen_error (src/impl_list.hpp), which the implementation
//     list's walk turns into a decline, when the code cannot be generated:
//     Xbyak::Error (a generator's check, executable memory that cannot be
//     mapped or protected, RNDNN_JIT_FAIL) as runtime_error, std::bad_alloc
//     as out_of_memory.
template <typename base_t, typename kernel_t, typename... args_t>
std::unique_ptr<base_t> make_jit_kernel(cpu_isa isa, const args_t &...args) {
    try {
        return std::make_unique<kernel_t>(isa, args...);
    } catch (const Xbyak::Error &e) {
        throw codegen_error(status::runtime_error,
                cat("code generation failed: ", e.what(),
                        jit_fail_hooked(isa) ? " (RNDNN_JIT_FAIL is set)"
                                             : ""));
    } catch (const std::bad_alloc &) {
        throw codegen_error(status::out_of_memory,
                "code generation failed: out of memory");
    }
}

} // namespace impl
} // namespace rndnn

#endif
