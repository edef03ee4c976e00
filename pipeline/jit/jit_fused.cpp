// The fused dropout kernel: the JIT RNG kernel's generator with a consumer
// that applies each unit's mask to the unit's data as soon as the
// distribution wrote it (jit_apply_emitter.hpp: the apply kernel's code,
// with the scale as a product), so the mask never leaves L1. A bit mask
// goes to the user's memory (write_mask), else the bits go to a one-unit
// slot that each unit overwrites; a u8 mask is written from the bits by
// the consumer (jit_mask_expand.hpp). The driver is the RNG kernel's
// (jit_rng_generator.hpp).
#include <algorithm>
#include <cstring>

#include "pipeline/fused.hpp"
#include "pipeline/jit/jit_apply_emitter.hpp"
#include "rng/jit/jit_mask_expand.hpp"
#include "rng/jit/jit_rng_generator.hpp"
#include "src/jit_tuning.hpp"

namespace rndnn {
namespace impl {

namespace {

// The constants of an execution: the RNG's, then the post-op's (alpha,
// beta) = (scale, -0.f). f.consts points to it.
struct jit_fused_consts_t {
    jit_rng_consts_t rng;
    float linear[2];
};

// The arguments: the RNG kernel's (rng.dst: where the units' mask bits go),
// the units' data, and with a u8 mask the units' mask bytes.
struct jit_fused_call_t {
    jit_rng_call_t rng;
    const void *src;
    void *dst;
    uint8_t *mask_u8;
};

jit_apply_ops_t ops_of(const fused_conf_t &conf, const jit_tuning_t &t) {
    jit_apply_ops_t ops;
    ops.alg = binary_alg::mul;
    ops.dt = conf.dt;
    ops.n_linear = 1;
    ops.beta_is_neg_zero = true;
    ops.scaled_select = t.scaled_select;
    return ops;
}

class jit_fused_generator_t : public jit_rng_generator_t {
public:
    jit_fused_generator_t(
            cpu_isa isa, const fused_conf_t &conf, const jit_tuning_t &t)
        : jit_rng_generator_t(isa, conf.rng)
        , tuning_(t)
        , apply_(*this, ops_of(conf, t))
        , mask_u8_(conf.write_mask
                  && conf.mask.get_data_type() == data_type::u8)
        , write_bits_(conf.write_mask && !mask_u8_)
        , expand_(*this, frame(), data_type::u8) {
        // Large f32 data is written non-temporally where it is aligned.
        create(conf.dt == data_type::f32
                && static_cast<double>(conf.rng.nelems) * 4
                        >= t.nt_min_bytes);
    }

    // The mask the kernel writes: u8 bytes (the consumer's), or the
    // distribution's bits to the mask memory.
    bool mask_u8() const { return mask_u8_; }
    bool write_bits() const { return write_bits_; }

private:
    // A unit's data is applied one unit late, while the next unit's mask is
    // drawn: in the steps that the distribution offers (lazy bitsliced:
    // between engine blocks, so that the loads and stores overlap with the
    // arithmetic), and what the steps left at the unit's end; the last
    // unit's at the call's end. The consumer's slots: the next unit's data
    // (src, dst), the pending unit's data, the next of its groups' mask
    // words (in a copy of its mask), whether a unit is pending, and three
    // registers a step keeps.
    Xbyak::Address slot(int k) const {
        return qword[rsp + jit_rng_frame_t::consumer_off + 8 * k];
    }
    Xbyak::Address src_slot() const { return slot(0); }
    Xbyak::Address dst_slot() const { return slot(1); }
    Xbyak::Address pending_src() const { return slot(2); }
    Xbyak::Address pending_dst() const { return slot(3); }
    Xbyak::Address pending_mask() const { return slot(4); }
    Xbyak::Address pending() const { return slot(5); }
    // The next unit's u8 mask bytes (slots 6 to 8 keep a step's registers).
    Xbyak::Address u8_slot() const { return slot(9); }
    // The pending unit's mask, and its end.
    Xbyak::RegExp mask_copy(int off = 0) const {
        return rsp + jit_rng_frame_t::consumer_unit_off + off;
    }
    Xbyak::RegExp linear() const {
        return frame().consts
                + static_cast<int>(offsetof(jit_fused_consts_t, linear));
    }
    int unit_data() const {
        return dist().unit_elems() / jit_apply_emitter_t::group_elems
                * apply_.group_bytes();
    }

    void emit_consumer_init() override {
        const Xbyak::Reg64 &args = frame().args;
        mov(rax, ptr[args + offsetof(jit_fused_call_t, src)]);
        mov(src_slot(), rax);
        mov(rax, ptr[args + offsetof(jit_fused_call_t, dst)]);
        mov(dst_slot(), rax);
        if (mask_u8_) {
            mov(rax, ptr[args + offsetof(jit_fused_call_t, mask_u8)]);
            mov(u8_slot(), rax);
        }
        mov(pending(), 0);
    }

    // `groups` groups at [src], [dst] with mask words at [mask], unrolled;
    // the three registers move past them.
    void emit_groups(const Xbyak::Reg64 &src, const Xbyak::Reg64 &dst,
            const Xbyak::Reg64 &mask, int groups) {
        const int gb = apply_.group_bytes();
        for (int g = 0; g < groups; ++g)
            apply_.emit_group(mask + 4 * g, src + g * gb, dst + g * gb,
                    linear());
        add(src, groups * gb);
        add(dst, groups * gb);
        add(mask, groups * 4);
    }

    // `groups` groups of the pending unit; rcx, rdx and r9 are kept in
    // slots 6 to 8 meanwhile (the distribution's code holds values in
    // them). With the tuning's step_loop, two groups a loop iteration (a
    // step's code inlined in each of the distribution's places did not fit
    // Zen 5's op cache at avx2), else unrolled. With step_prefetch_units
    // n, each step first prefetches the data of the same groups n units
    // ahead: the next steps then find their data in L1 (without it, on Zen
    // 5, each step's loads waited on memory with the distribution's code
    // queued behind them, and a step cost about 400 cycles; docs/jit.md,
    // "The fused dropout kernel on Zen 5 and on the avx2 tier").
    void emit_consume_step(int groups) override {
        if (groups == 0) return;
        steps_ = true;
        Xbyak::Label skip, pair;
        cmp(pending(), 0);
        je(skip, T_NEAR);
        mov(slot(6), rcx);
        mov(slot(7), rdx);
        mov(slot(8), r9);
        const Xbyak::Reg64 src = rax, dst = rcx, mask = rdx, left = r9;
        mov(src, pending_src());
        mov(dst, pending_dst());
        mov(mask, pending_mask());
        const int ahead = tuning_.step_prefetch_units * unit_data();
        if (ahead > 0)
            for (int off = 0; off < groups * apply_.group_bytes(); off += 64)
                prefetcht0(ptr[src + ahead + off]);
        apply_.emit_load_consts(linear()); // the engine used the registers
        if (!tuning_.step_loop) {
            emit_groups(src, dst, mask, groups);
        } else if (groups >= 2) {
            mov(left, groups / 2);
            L(pair);
            emit_groups(src, dst, mask, 2);
            dec(left);
            jnz(pair, T_NEAR);
        }
        if (tuning_.step_loop && groups % 2) emit_groups(src, dst, mask, 1);
        mov(pending_src(), src);
        mov(pending_dst(), dst);
        mov(pending_mask(), mask);
        mov(rcx, slot(6));
        mov(rdx, slot(7));
        mov(r9, slot(8));
        L(skip);
    }

    // The pending unit's groups that the steps left, two at a time and
    // one left over (a row that ends early skips its later steps).
    void emit_finish_pending() {
        const Xbyak::Reg64 src = rax, dst = rcx, mask = rdx, end = r8,
                           pairs_end = r9;
        Xbyak::Label done, iter, single;
        cmp(pending(), 0);
        je(done, T_NEAR);
        mov(src, pending_src());
        mov(dst, pending_dst());
        mov(mask, pending_mask());
        lea(end, ptr[mask_copy(dist().unit_bytes())]);
        lea(pairs_end, ptr[end - 4]); // a pair starts before it
        apply_.emit_load_consts(linear());
        L(iter);
        cmp(mask, pairs_end);
        jae(single, T_NEAR);
        emit_groups(src, dst, mask, 2);
        jmp(iter, T_NEAR);
        L(single);
        cmp(mask, end);
        jae(done, T_NEAR);
        emit_groups(src, dst, mask, 1);
        L(done);
    }

    // The unit left before this one is finished; this one becomes pending,
    // with a copy of its mask (the mask output may be a slot that the next
    // unit overwrites).
    void emit_consume_unit() override {
        const jit_rng_frame_t &f = frame();
        const int unit_bytes = dist().unit_bytes();
        emit_finish_pending();
        for (int off = 0; off < unit_bytes; off += 8) {
            mov(rax, ptr[f.dst - unit_bytes + off]);
            mov(ptr[mask_copy(off)], rax);
        }
        lea(rax, ptr[mask_copy()]);
        mov(pending_mask(), rax);
        mov(rax, src_slot());
        mov(pending_src(), rax);
        // Where the distribution offers no steps (their code came first,
        // in its emit_unit()), with the tuning's unit_prefetch_bytes d,
        // the lines of this unit's data d bytes on: over the units, every
        // line d ahead of the data being applied.
        const bool unit_prefetch = !steps_ && tuning_.unit_prefetch_bytes > 0;
        for (int off = 0; unit_prefetch && off < unit_data(); off += 64)
            prefetcht0(ptr[rax + tuning_.unit_prefetch_bytes + off]);
        add(rax, unit_data());
        mov(src_slot(), rax);
        mov(rax, dst_slot());
        mov(pending_dst(), rax);
        add(rax, unit_data());
        mov(dst_slot(), rax);
        mov(pending(), 1);
        // A u8 mask: the unit's bytes from its bits, written now.
        if (mask_u8_) {
            mov(rcx, u8_slot());
            expand_.emit(mask_copy(), unit_bytes / 4, rcx);
            mov(u8_slot(), rcx);
        }
        // Without a bit mask output every unit's bits go to the same slot.
        if (!write_bits_) sub(f.dst, unit_bytes);
    }

    void emit_consumer_fini() override { emit_finish_pending(); }

    void emit_consumer_data() override { apply_.emit_table(); }

    const jit_tuning_t tuning_;
    bool steps_ = false; // the distribution offered consumer steps
    jit_apply_emitter_t apply_;
    bool mask_u8_, write_bits_;
    jit_mask_expand_t expand_;
};

class jit_fused_t : public fused_kernel_t {
public:
    jit_fused_t(cpu_isa isa, const fused_conf_t &conf)
        : tuning_(jit_tuning())
        , gen_(isa, conf, tuning_)
        , drv_(gen_)
        , mask_u8_(gen_.mask_u8())
        , write_bits_(gen_.write_bits())
        , u8_offset0_(mask_u8_ ? conf.mask.get_offset0() : 0)
        , esize_(dt_bits(conf.dt) / 8) {
        drv_.set_work(work_t::dropout_fused);
    }

    void execute(const fused_run_t &run) const override {
        if (gen_.conf().nelems == 0) return;
        const auto e = consts_.get(run.rng.seed, run.rng.stream, run.rng.p,
                run.scale, [&](jit_fused_consts_t &c) {
                    drv_.fill_consts(run.rng, c.rng);
                    if (mask_u8_)
                        jit_mask_expand_t::fill_consts(data_type::u8, c.rng);
                    c.linear[0] = run.scale;
                    c.linear[1] = -0.f;
                });
        drv_.parallel_units(run.rng, [&](uint64_t u0, uint64_t u1) {
            run_range(run, e->c, u0, u1);
        });
    }

private:
    // Units [u0, u1) of the global index space, clipped to the tensor. The
    // data is dense, so whole units read and write it in place; a bit mask
    // goes straight to its memory when that starts units on byte
    // boundaries, else through scratch and the layout's bit stores; a u8
    // mask (dense) is written by the kernel in place. A unit the tensor
    // starts or ends inside runs on a copy of its data and of its mask
    // bytes.
    void run_range(const fused_run_t &run, const jit_fused_consts_t &consts,
            uint64_t u0, uint64_t u1) const {
        const rng_run_t &rr = run.rng;
        const uint64_t ue = static_cast<uint64_t>(drv_.unit_elems());
        const uint64_t g0 = rr.offset, g1 = g0 + gen_.conf().nelems;
        alignas(64) uint64_t state[jit_max_state_bytes / 8];
        alignas(64) unsigned char mask[jit_rng_scratch_elems / 8];
        alignas(64) unsigned char data[max_unit_elems * 4];
        alignas(64) uint8_t bytes[max_unit_elems];
        alignas(64) uint8_t flags[jit_rng_scratch_elems];
        const auto *src = static_cast<const unsigned char *>(run.src);
        auto *dst = static_cast<unsigned char *>(run.dst);
        const auto at = [&](uint64_t g) { return (g - g0) * esize_; };
        const auto u8_at = [&](uint64_t g) {
            return static_cast<uint8_t *>(rr.dst) + u8_offset0_ + (g - g0);
        };

        jit_fused_call_t call;
        call.rng.consts = &consts.rng;
        call.mask_u8 = nullptr;
        drv_.begin_range(rr, u0, state, call.rng);
        const bool mask_direct = write_bits_ && drv_.direct_ok(rr);
        for (uint64_t u = u0; u < u1;) {
            const uint64_t gs = std::max(g0, u * ue);
            drv_.at_unit(u, call.rng);
            if (gs == u * ue && std::min(g1, u1 * ue) - gs >= ue) {
                uint64_t k = (std::min(g1, u1 * ue) - gs) / ue;
                if (write_bits_ && !mask_direct)
                    k = std::min<uint64_t>(k, drv_.scratch_units());
                call.rng.dst = mask_direct ? drv_.dst_at(rr, gs) : mask;
                call.rng.units = k;
                call.src = src + at(gs);
                call.dst = dst + at(gs);
                if (mask_u8_) call.mask_u8 = u8_at(gs);
                // Non-temporal stores need the u8 mask aligned as the data;
                // in place, where the data's loads already brought its lines
                // in, they are the tuning's stream_in_place (2^25 f32, avx2,
                // Zen 5: backward recomputing the mask in place 10.5 ms with
                // them, 8.5 without).
                const bool nt = drv_.nt_ok(call.dst)
                        && (tuning_.stream_in_place || call.src != call.dst)
                        && (!mask_u8_
                                || reinterpret_cast<uintptr_t>(call.mask_u8)
                                                % gen_.vlen()
                                        == 0);
                gen_(call.rng, nt);
                if (write_bits_ && !mask_direct)
                    drv_.store(rr, gs, gs + k * ue, mask, gs, flags);
                u += k;
                continue;
            }
            const uint64_t ge = std::min(g1, (u + 1) * ue);
            unsigned char *part = data + (gs - u * ue) * esize_;
            // The unit's elements outside the tensor are zeros, not what
            // the stack held: garbage that reads as subnormal floats costs
            // a microcode assist an element (1.2 us a partial unit, Xeon,
            // family 6, model 167), and the kernel computes them too.
            std::memset(data, 0, (gs - u * ue) * esize_);
            std::memcpy(part, src + at(gs), (ge - gs) * esize_);
            std::memset(part + (ge - gs) * esize_, 0,
                    ((u + 1) * ue - ge) * esize_);
            call.rng.dst = mask;
            call.rng.units = 1;
            call.src = data;
            call.dst = data;
            call.mask_u8 = bytes;
            gen_(call.rng);
            std::memcpy(dst + at(gs), part, (ge - gs) * esize_);
            if (write_bits_) drv_.store(rr, gs, ge, mask, u * ue, flags);
            if (mask_u8_)
                std::memcpy(u8_at(gs), bytes + (gs - u * ue), ge - gs);
            ++u;
        }
    }

    // Elements of the largest unit (bitsliced, bytewise).
    static constexpr int max_unit_elems = jit_lazy_unit_groups * 32;
    static_assert(jit_rng_scratch_elems >= max_unit_elems,
            "the mask scratch holds a unit's bits");
    const jit_tuning_t tuning_; // as this kernel was generated
    jit_fused_generator_t gen_;
    jit_rng_driver_t drv_;
    jit_consts_cache_t<jit_fused_consts_t> consts_;
    bool mask_u8_, write_bits_;
    uint64_t u8_offset0_; // the u8 mask's first element, when mask_u8_
    uint64_t esize_;
};

} // namespace

bool init_jit_fused(cpu_isa isa, const fused_conf_t &conf, std::string &why) {
    if (!init_jit_rng(isa, conf.rng, why)) return false;
    if (conf.rng.dist != dist_t::bernoulli
            || conf.rng.dst.get_data_type() != data_type::bit) {
        why = "the mask is not a bernoulli bit tensor";
        return false;
    }
    if (conf.write_mask && conf.mask != conf.rng.dst
            && !(conf.mask.get_data_type() == data_type::u8
                    && conf.mask.is_dense()
                    && conf.mask.nelems() == conf.rng.nelems)) {
        why = cat("the mask ", conf.mask.str(),
                " is neither the bit mask nor a dense u8 tensor");
        return false;
    }
    return jit_apply_emitter_t::supported(
            isa, ops_of(conf, jit_tuning()), why);
}

std::unique_ptr<fused_kernel_t> create_jit_fused(
        cpu_isa isa, const fused_conf_t &conf) {
    return make_jit_kernel<fused_kernel_t, jit_fused_t>(isa, conf);
}

} // namespace impl
} // namespace rndnn
