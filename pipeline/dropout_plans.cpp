// Dropout's plans and their kernels: copy (forward_inference), fused JIT
// (one pass per tier), apply (a stored or pregenerated mask is read) and
// chain (RNG -> binary mul -> eltwise scale, in blocks); and their list.
#include "pipeline/dropout_plans.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

#include "pipeline/apply.hpp"
#include "pipeline/fused.hpp"
#include "src/onednn.hpp"
#include "pipeline/operands.hpp"
#include "pipeline/pipeline_utils.hpp"
#include "rng/distributions.hpp"
#include "src/jit_tuning.hpp"
#include "src/utils.hpp"
#include "src/verbose.hpp"

namespace rndnn {
namespace impl {

namespace {

memory::desc dense_bits(const dims &d) {
    return memory::desc(d, data_type::bit);
}

bool is_inference(const dropout_conf_t &c) {
    return c.desc.prop == prop_kind::forward_inference;
}

// The first check of every plan that applies a mask: the problem is not
// forward_inference, and `refused` was not asked for; else says why.
bool applies_mask(const dropout_conf_t &c, dropout_plan refused,
        std::string &why) {
    if (c.desc.plan == refused) {
        why = cat("plan=", dropout_plan2str(refused), " was asked");
        return false;
    }
    if (is_inference(c)) {
        why = "forward_inference applies no mask";
        return false;
    }
    return true;
}

// --- copy -------------------------------------------------------------------

class copy_kernel_t : public dropout_kernel_t {
public:
    explicit copy_kernel_t(const dropout_conf_t &c)
        : in_(c.desc.src), out_(c.desc.dst), n_(c.n)
        , same_desc_(c.desc.src == c.desc.dst) {}

    void execute(const dropout_run_t &run) const override {
        if (run.src == run.dst && same_desc_) return;
        for_data_blocks(work_t::blocks_copy, in_, run.src, out_, run.dst, n_,
                run.nthr,
                [&](data_block_t &b) {
                    if (b.dst != b.src)
                        std::memmove(b.dst, b.src, b.n * in_.esize());
                });
    }

private:
    data_operand_t in_, out_;
    dim_t n_;
    bool same_desc_;
};

// forward_inference: dst = src.
class copy_plan_t : public dropout_plan_t {
public:
    explicit copy_plan_t(const dropout_conf_t &c) : c_(c) {}
    bool init(std::string &why) override {
        if (is_inference(c_)) return true;
        why = cat(prop_kind2str(c_.desc.prop), " applies a mask");
        return false;
    }
    std::string name() const override { return "copy"; }
    // The plan asked for is the plan reported: inference is one either way.
    dropout_plan kind() const override {
        return c_.desc.plan == dropout_plan::chain ? dropout_plan::chain
                                                   : dropout_plan::fused;
    }
    std::unique_ptr<dropout_kernel_t> create() const override {
        return std::make_unique<copy_kernel_t>(c_);
    }

private:
    const dropout_conf_t &c_;
};

// --- fused JIT ---------------------------------------------------------------

#if RNDNN_ENABLE_JIT
// Up to this many elements, a fused plan that writes no mask draws the
// mask bits with the reference RNG kernel and applies them with the apply
// kernel of its tier instead of running its JIT kernel: that kernel
// computes a whole unit (4096 elements of lazy bitsliced) however few
// elements the tensor has, 0.75 us, where the reference draws only the
// tensor's 32-element groups, 0.1 us and 3.7 ns an element (Xeon, family
// 6, model 167; docs/jit.md, "Small tensors"). The bits are the same: every
// kernel of the RNG's list gives the reference's.
constexpr dim_t fused_small_max = 128;

class fused_kernel_adapter_t : public dropout_kernel_t {
public:
    fused_kernel_adapter_t(cpu_isa isa, const dropout_conf_t &c,
            const fused_conf_t &fc)
        : kernel_(create_jit_fused(isa, fc)), in_(c.desc.src), out_(c.desc.dst) {
        if (fc.write_mask || fc.rng.nelems > fused_small_max) return;
        apply_conf_t ac;
        ac.alg = binary_alg::mul;
        ac.dt = fc.dt;
        ac.n_linear = 1;
        ac.max_isa = c.attr.get_max_cpu_isa();
        std::string why;
        try {
            if (init_jit_apply(isa, ac, why)) apply_ = create_jit_apply(isa, ac);
        } catch (const codegen_error &) {
            // The reference below serves.
        }
        if (!apply_) apply_ = create_ref_apply(ac);
        small_rng_ = create_ref_rng(fc.rng);
        small_rng_n_ = fc.rng.nelems;
    }

    void execute(const dropout_run_t &run) const override {
        if (small_rng_) {
            execute_small(run);
            return;
        }
        fused_run_t f;
        f.rng = run.rng;
        f.rng.dst = run.mask;
        f.src = in_.read(run.src, 0, 0, nullptr); // dense: offset0 applied
        f.dst = out_.target(run.dst, 0, nullptr);
        f.scale = run.scale;
        kernel_->execute(f);
    }

private:
    // At most fused_small_max elements, no mask written: the reference's
    // bits on this thread, then dst = src * bit, scaled (as the blocks).
    void execute_small(const dropout_run_t &run) const {
        alignas(64) uint8_t bits[fused_small_max / 8 + 8] = {};
        rng_run_t r = run.rng;
        r.dst = bits;
        r.nthr = 1;
        small_rng_->execute(r);
        const float linear[2] = {run.scale, -0.f};
        apply_call_t call;
        call.src = in_.read(run.src, 0, 0, nullptr);
        call.mask = bits;
        call.dst = out_.target(run.dst, 0, nullptr);
        call.n = small_rng_n_;
        call.linear = linear;
        (*apply_)(call);
    }

    std::unique_ptr<fused_kernel_t> kernel_;
    data_operand_t in_, out_;
    // Small tensors (fused_small_max): the reference RNG kernel of the
    // mask's problem and an apply kernel; null otherwise.
    std::unique_ptr<rng_kernel_t> small_rng_;
    std::unique_ptr<apply_kernel_t> apply_;
    int64_t small_rng_n_ = 0;
};

// The mask generated per element and applied in the same pass, by the JIT
// kernel of one tier (pipeline/jit/jit_fused.cpp).
class fused_plan_t : public dropout_plan_t {
public:
    fused_plan_t(cpu_isa isa, const dropout_conf_t &c) : isa_(isa), c_(c) {}

    bool init(std::string &why) override {
        const dropout::desc &d = c_.desc;
        if (!applies_mask(c_, dropout_plan::chain, why)) return false;
        if (!c_.generate) {
            why = "the stored mask is read, not generated";
            return false;
        }
        if (c_.broadcast || c_.window.active) {
            why = c_.broadcast ? "the noise shape broadcasts"
                               : "a window of a global tensor";
            return false;
        }
        if (!d.src.is_dense() || !d.dst.is_dense()) {
            why = "src or dst is not dense";
            return false;
        }
        if (c_.has_mask && !d.mask.is_dense()) {
            why = "the mask is not dense";
            return false;
        }
        const bool bit_mask
                = c_.has_mask && d.mask.get_data_type() == data_type::bit;
        fused_.rng = c_.noise_rng;
        fused_.rng.dst = bit_mask ? d.mask : dense_bits(c_.noise);
        fused_.dt = d.src.get_data_type();
        fused_.write_mask = c_.has_mask;
        fused_.mask = d.mask;
        return init_jit_fused(isa_, fused_, why);
    }
    std::string name() const override {
        return cat("fused:", jit_impl_name(isa_));
    }
    dropout_plan kind() const override { return dropout_plan::fused; }
    std::unique_ptr<dropout_kernel_t> create() const override {
        return std::make_unique<fused_kernel_adapter_t>(isa_, c_, fused_);
    }

private:
    cpu_isa isa_;
    const dropout_conf_t &c_;
    fused_conf_t fused_;
};
#endif

// --- blocks: apply and chain -------------------------------------------------

// What a block plan picked: where the mask comes from and how blocks are
// multiplied and scaled.
// Each kernel was made with its choice (pick_rng_impl(), ...).
struct blocks_conf_t {
    // The whole noise mask first (a broadcast noise shape), into the mask
    // or a scratch of mask_n bits; blocks then read it.
    rng_picked_t noise;
    // Else, when the mask is generated: per block, a full block and the
    // last one (the chain only).
    rng_conf_t block_rng, tail_rng;
    rng_picked_t block, tail;
    // mul by the mask, with the scale as a linear post-op (n_linear 1) or
    // followed by oneDNN's eltwise scale (n_linear 0, onednn_scale).
    apply_conf_t apply;
    apply_picked_t apply_impl;
    bool onednn_scale = false;
};

class blocks_kernel_t : public dropout_kernel_t {
public:
    blocks_kernel_t(const dropout_conf_t &c, const blocks_conf_t &b)
        : c_(c)
        , b_(b)
        , in_(c.desc.src)
        , out_(c.desc.dst)
        , noise_rng_(b.noise.kernel)
        , block_rng_(b.block.kernel)
        , tail_rng_(b.tail.kernel)
        , apply_(b.apply_impl.kernel) {
        // A creation-time rate: the scales now; a runtime one at execution.
        if (b.onednn_scale && !c.desc.runtime_rate)
            make_scales(c.keep.scale, block_scale_, tail_scale_);
    }

    void execute(const dropout_run_t &run) const override {
        const dropout::desc &d = c_.desc;
        // Where blocks read the mask from when it does not come per block.
        std::vector<uint8_t> noise_bits;
        memory::desc read_md = d.mask;
        const void *read_h = run.mask;
        if (noise_rng_) {
            rng_run_t r = run.rng;
            r.dst = run.mask;
            if (!run.mask) {
                read_md = dense_bits(c_.noise);
                noise_bits.resize(read_md.get_size());
                r.dst = noise_bits.data();
                read_h = r.dst;
            }
            noise_rng_->execute(r);
        }
        const bool per_block = block_rng_ != nullptr;
        const mask_operand_t mop(
                per_block && !run.mask ? dense_bits(c_.noise) : read_md,
                d.src.get_dims());

        eltwise_scale_t rt_block, rt_tail;
        const eltwise_scale_t *block_scale = &block_scale_;
        const eltwise_scale_t *tail_scale = &tail_scale_;
        if (b_.onednn_scale && d.runtime_rate) {
            make_scales(run.scale, rt_block, rt_tail);
            block_scale = &rt_block;
            tail_scale = &rt_tail;
        }
        const float linear[2] = {run.scale, -0.f};

        // The blocks draw their mask bits themselves (chain), or read them.
        const work_t w = per_block ? work_t::blocks_chain : work_t::blocks_apply;
        for_data_blocks(w, in_, run.src, out_, run.dst, c_.n, run.nthr,
                [&](data_block_t &blk) {
                    const bool full = blk.n == pipeline_block;
                    apply_call_t call;
                    call.src = blk.src;
                    if (per_block) {
                        rng_run_t r = run.rng;
                        r.offset = run.rng.offset + blk.i0;
                        r.nthr = 1;
                        const bool direct = run.mask && mop.direct(blk.i0);
                        uint8_t *bits = direct ? mop.at(run.mask, blk.i0)
                                               : blk.scratch.bits();
                        r.dst = bits;
                        (full ? block_rng_ : tail_rng_)->execute(r);
                        if (run.mask && !direct)
                            mop.write(run.mask, blk.i0, blk.n, bits,
                                    blk.scratch.flags());
                        call.mask = bits;
                    } else {
                        call.mask = mop.read(read_h, blk.i0, blk.n,
                                blk.scratch.bits(), blk.scratch.flags());
                    }
                    call.dst = blk.dst;
                    call.n = blk.n;
                    call.linear = linear;
                    call.stream = b_.apply.stream_out && out_.dense();
                    (*apply_)(call);
                    if (b_.onednn_scale)
                        (full ? block_scale : tail_scale)
                                ->execute(call.dst, call.dst);
                });
    }

private:
    // oneDNN's eltwise scales for a full and the last block.
    void make_scales(float scale, eltwise_scale_t &block,
            eltwise_scale_t &tail) const {
        const data_type dt = c_.desc.src.get_data_type();
        block = eltwise_scale_t(dt, std::min(pipeline_block, c_.n), scale);
        tail = eltwise_scale_t(dt, c_.n % pipeline_block, scale);
    }

    const dropout_conf_t c_;
    const blocks_conf_t b_;
    data_operand_t in_, out_;
    std::shared_ptr<const rng_kernel_t> noise_rng_, block_rng_, tail_rng_;
    std::shared_ptr<const apply_kernel_t> apply_;
    eltwise_scale_t block_scale_, tail_scale_;
};

// The plans that run blocks_kernel_t: their init() fills b_.
class blocks_plan_t : public dropout_plan_t {
public:
    explicit blocks_plan_t(const dropout_conf_t &c) : c_(c) {}
    std::unique_ptr<dropout_kernel_t> create() const override {
        return std::make_unique<blocks_kernel_t>(c_, b_);
    }

protected:
    // The whole noise mask first when it is generated and broadcast or a
    // window; returns its kernel's name and "+", or "".
    std::string init_noise() {
        if (!c_.pregenerate) return "";
        b_.noise = pick_rng_window_impl(c_.window, c_.noise_rng, c_.info);
        return cat(b_.noise.name(), "+");
    }
    void init_apply(int n_linear) {
        b_.apply.alg = binary_alg::mul;
        b_.apply.dt = c_.desc.src.get_data_type();
        b_.apply.max_isa = c_.attr.get_max_cpu_isa();
        b_.apply.n_linear = n_linear;
        b_.apply_impl = pick_apply_impl(b_.apply, c_.info);
    }

    const dropout_conf_t &c_;
    blocks_conf_t b_;
};

// A mask that is read: backward's stored mask, or a broadcast noise mask
// generated whole first; one pass of apply with the scale folded in.
class apply_plan_t : public blocks_plan_t {
public:
    using blocks_plan_t::blocks_plan_t;
    bool init(std::string &why) override {
        if (!applies_mask(c_, dropout_plan::chain, why)) return false;
        if (c_.generate && !c_.pregenerate) {
            why = "the mask is generated per element, not read";
            return false;
        }
        pre_ = init_noise();
        // Its output is read back by nobody soon: large f32 data streams.
        b_.apply.stream_out = c_.desc.src.get_data_type() == data_type::f32
                && static_cast<double>(c_.n) * 4
                        >= jit_tuning().nt_min_bytes;
        init_apply(1);
        return true;
    }
    std::string name() const override {
        return cat("fused:", pre_, b_.apply_impl.name());
    }
    dropout_plan kind() const override { return dropout_plan::fused; }

private:
    std::string pre_;
};

// RNG -> binary mul -> oneDNN's eltwise scale, block by block (the scale
// folds into mul's linear post-op where oneDNN's eltwise does not serve).
class chain_plan_t : public blocks_plan_t {
public:
    using blocks_plan_t::blocks_plan_t;
    bool init(std::string &why) override {
        if (!applies_mask(c_, dropout_plan::fused, why)) return false;
        rng_name_ = init_noise();
        if (c_.generate && !c_.pregenerate) {
            b_.block_rng = c_.noise_rng;
            b_.block_rng.dst = dense_bits({std::min(pipeline_block, c_.n)});
            b_.block_rng.nelems = b_.block_rng.dst.nelems();
            b_.block = pick_rng_impl(b_.block_rng, c_.info);
            b_.tail_rng = c_.noise_rng;
            b_.tail_rng.dst = dense_bits({c_.n % pipeline_block});
            b_.tail_rng.nelems = b_.tail_rng.dst.nelems();
            b_.tail = pick_rng_impl(b_.tail_rng, c_.info);
            rng_name_ = cat(b_.block.name(), "+");
        }
        // oneDNN's bf16 and f16 conversions flush subnormals to zero (they
        // use vcvtneps2bf16 and the like), which rndnn's single rounding
        // does not: only f32 goes through oneDNN's eltwise.
        std::string no_onednn = "its bf16 and f16 conversions flush subnormals";
        if (c_.desc.src.get_data_type() == data_type::f32) {
            const eltwise_scale_t probe(data_type::f32, 1, 1.f);
            if (probe.ok()) {
                b_.onednn_scale = true;
                scale_name_ = cat("+", probe.name());
                init_apply(0);
                return true;
            }
            no_onednn = probe.why();
        }
        verbose_print(verbose_t::check, "check",
                cat("onednn eltwise,", c_.info, ",declined: ", no_onednn));
        init_apply(1);
        return true;
    }
    std::string name() const override {
        return cat("chain:", rng_name_, b_.apply_impl.name(), scale_name_);
    }
    dropout_plan kind() const override { return dropout_plan::chain; }

private:
    std::string rng_name_, scale_name_;
};

template <typename plan_t>
std::unique_ptr<dropout_plan_t> make_plan(cpu_isa, const dropout_conf_t &c) {
    return std::make_unique<plan_t>(c);
}

#if RNDNN_ENABLE_JIT
std::unique_ptr<dropout_plan_t> make_fused_plan(
        cpu_isa isa, const dropout_conf_t &c) {
    return std::make_unique<fused_plan_t>(isa, c);
}
#endif

} // namespace

const std::vector<dropout_impl_t> &dropout_impl_list() {
    static const std::vector<dropout_impl_t> list = [] {
        std::vector<dropout_impl_t> l;
        l.push_back({"copy", cpu_isa::none, make_plan<copy_plan_t>});
#if RNDNN_ENABLE_JIT
        for (cpu_isa isa : jit_tiers())
            l.push_back({cat("fused:", jit_impl_name(isa)), isa,
                    make_fused_plan});
#endif
        l.push_back({"apply", cpu_isa::none, make_plan<apply_plan_t>});
        l.push_back({"chain", cpu_isa::none, make_plan<chain_plan_t>});
        return l;
    }();
    return list;
}

dropout_picked_t pick_dropout_plan(const dropout_conf_t &conf) {
    std::string declines;
    auto picked = walk_impl_list(dropout_impl_list(), conf.info,
            [&](const dropout_impl_t &entry, std::string &why) {
                dropout_picked_t taken;
                auto p = entry.make(entry.isa, conf);
                if (!p->init(why)) return taken;
                taken.kernel = p->create();
                taken.plan = std::move(p);
                return taken;
            },
            declines);
    if (!picked)
        fail(status::unimplemented,
                conf.desc.plan == dropout_plan::fused
                        ? cat("the fused plan does not apply to ", conf.info,
                                ": ", declines)
                        : cat("no dropout plan for ", conf.info, ": ",
                                declines));
    return picked;
}

} // namespace impl
} // namespace rndnn
