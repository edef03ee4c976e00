// The dropout composer: validates the problem, picks the fused or the chain
// plan (docs/dropout.md) and runs it.
#include <algorithm>
#include <cstring>
#include <vector>

#include "pipeline/apply.hpp"
#include "pipeline/fused.hpp"
#include "pipeline/onednn.hpp"
#include "pipeline/operands.hpp"
#include "pipeline/pipeline_utils.hpp"
#include "rndnn/dropout.hpp"
#include "rng/rng_impl.hpp"
#include "src/enums.hpp"
#include "src/utils.hpp"
#include "src/verbose.hpp"

namespace rndnn {

using impl::cat;
using impl::fail;

const char *prop_kind2str(prop_kind prop) {
    switch (prop) {
        case prop_kind::forward_training: return "forward_training";
        case prop_kind::forward_inference: return "forward_inference";
        case prop_kind::backward: return "backward";
    }
    return "unknown";
}

const char *dropout_plan2str(dropout_plan plan) {
    switch (plan) {
        case dropout_plan::any: return "any";
        case dropout_plan::fused: return "fused";
        case dropout_plan::chain: return "chain";
    }
    return "unknown";
}

bool dropout::desc::operator==(const desc &o) const {
    return prop == o.prop && src == o.src && dst == o.dst
            && noise_shape == o.noise_shape && mask == o.mask
            && rate == o.rate && runtime_rate == o.runtime_rate
            && alg == o.alg && method == o.method && bits == o.bits
            && name == o.name && onednn_compat == o.onednn_compat
            && seed_dt == o.seed_dt && with_offset == o.with_offset
            && with_next_offset == o.with_next_offset && scalars == o.scalars
            && plan == o.plan;
}

dims dropout::noise_shape_for_axes(
        const dims &data, const std::vector<int> &axes) {
    const int nd = static_cast<int>(data.size());
    dims noise = data;
    std::vector<bool> seen(data.size(), false);
    for (int a : axes) {
        if (a < -nd || a >= nd)
            fail(status::invalid_arguments,
                    cat("axis ", a, " is outside [", -nd, ", ", nd,
                            ") for data shape ", impl::dims2str(data)));
        const int d = a < 0 ? a + nd : a;
        if (seen[d])
            fail(status::invalid_arguments,
                    cat("axis ", a, " is given twice"));
        seen[d] = true;
        noise[d] = 1;
    }
    return noise;
}

namespace {

// The keep probability of the RNG and the scale of kept elements.
struct rate_values_t {
    double p; // RNG's bernoulli p (oneDNN rule: the rate itself)
    float scale;
};

rate_values_t rate_values(double rate, bool onednn_compat) {
    if (onednn_compat) { // oneDNN takes the rate as f32
        const auto r = static_cast<float>(rate);
        return {r, r == 1.f ? 0.f : 1.f / (1.f - r)};
    }
    return {1.0 - rate,
            rate == 1.0 ? 0.f : static_cast<float>(1.0 / (1.0 - rate))};
}

// How an execution runs.
enum class mode_t {
    copy, // forward_inference
    fused_jit, // the fused kernel generates the mask and applies it
    blocks, // blocks: mask bits, then apply (and the oneDNN scale)
};

} // namespace

struct dropout::primitive_desc::impl_t {
    dropout::desc desc;
    primitive_attr attr;
    dims noise;
    dim_t n = 0, mask_n = 0;
    bool has_mask = false, broadcast = false;
    bool generate = false; // the mask comes from the RNG
    bool pregenerate = false; // the whole noise mask first (broadcast)
    mode_t mode = mode_t::copy;
    dropout_plan plan = dropout_plan::fused;
    bool onednn_scale = false; // the chain's scale is oneDNN's eltwise

    // The mask's RNG problem over the noise shape: dst is the mask desc or
    // (without a mask) a dense bit tensor.
    impl::rng_conf_t noise_rng;
    const impl::rng_impl_t *noise_impl = nullptr;
    // The same per block (no broadcast): a full block and the last one.
    impl::rng_conf_t block_rng, tail_rng;
    const impl::rng_impl_t *block_impl = nullptr, *tail_impl = nullptr;
    // apply without and with the scale as a linear post-op.
    impl::apply_conf_t apply0, apply1;
    const impl::apply_impl_t *apply0_impl = nullptr, *apply1_impl = nullptr;
    impl::fused_conf_t fused;
    cpu_isa fused_isa = cpu_isa::none;

    std::string info, name;
};

namespace {

using pd_impl_t = dropout::primitive_desc::impl_t;

memory::desc dense_bits(const dims &d) { return memory::desc(d, data_type::bit); }

// Validates everything but the plan.
void check_desc(pd_impl_t &p) {
    const dropout::desc &d = p.desc;
    impl::check_enum(d.prop, "propagation kind", "prop_kind");
    impl::check_enum(d.plan, "plan", "dropout_plan");
    impl::check_enum(d.method, "bernoulli method", "bernoulli_method");
    impl::check_enum(d.alg, "algorithm", "rng_alg");
    const bool bwd = d.prop == prop_kind::backward;
    const char *src_name = bwd ? "diff_dst" : "src";
    const char *dst_name = bwd ? "diff_src" : "dst";
    for (const auto &t : {std::make_pair(src_name, &d.src),
                 std::make_pair(dst_name, &d.dst)}) {
        if (t.second->is_zero())
            fail(status::invalid_arguments,
                    cat(t.first, " memory descriptor is empty"));
        if (t.second->is_host_scalar())
            fail(status::invalid_arguments,
                    cat(t.first, " cannot be a host scalar"));
        impl::check_data_type(t.first, t.second->get_data_type());
    }
    if (d.dst.get_dims() != d.src.get_dims()
            || d.dst.get_data_type() != d.src.get_data_type())
        fail(status::invalid_arguments,
                cat(dst_name, " ", d.dst.str(), " must have the dims and type of ",
                        src_name, " ", d.src.str()));
    const dims &data = d.src.get_dims();
    p.noise = d.noise_shape.empty() ? data : d.noise_shape;
    if (!impl::broadcasts_to(p.noise, data))
        fail(status::invalid_arguments,
                cat("noise shape ", impl::dims2str(d.noise_shape),
                        " does not fit the data shape ", impl::dims2str(data),
                        " (each noise dim must equal the data's or be 1)"));
    p.n = d.src.nelems();
    p.broadcast = p.noise != data;
    p.has_mask = !d.mask.is_zero();
    if (p.has_mask) {
        if (d.prop == prop_kind::forward_inference)
            fail(status::invalid_arguments,
                    "forward_inference writes no mask; the mask desc must be "
                    "empty");
        const data_type mdt = d.mask.get_data_type();
        if (mdt != data_type::bit && mdt != data_type::u8)
            fail(status::invalid_arguments,
                    cat("mask type ", dt2str(mdt), " is not bit or u8"));
        if (d.mask.is_host_scalar() || d.mask.get_dims() != p.noise)
            fail(status::invalid_arguments,
                    cat("mask ", d.mask.str(), " must have the noise shape ",
                            impl::dims2str(p.noise)));
    }
    p.mask_n = 1;
    for (dim_t x : p.noise)
        p.mask_n *= x;
    if (!d.runtime_rate && !(d.rate >= 0.0 && d.rate <= 1.0))
        fail(status::invalid_arguments,
                cat("rate=", d.rate, " is outside [0, 1]"));
    if (d.onednn_compat
            && (d.alg != rng_alg::philox4x32_10_onednn
                    || d.method != bernoulli_method::threshold32))
        fail(status::invalid_arguments,
                cat("onednn_compat needs alg=philox4x32_10_onednn and method "
                    "threshold32, got alg=",
                        alg2str(d.alg), " method=",
                        d.method == bernoulli_method::threshold32
                                ? "threshold32"
                                : "bitsliced"));

    // The RNG problem, validated by the RNG's own checks.
    rng::desc rd;
    rd.alg = d.alg;
    rd.dst = p.has_mask ? d.mask : dense_bits(p.noise);
    rd.seed_dt = d.seed_dt;
    rd.with_offset = d.with_offset;
    rd.runtime_p = d.runtime_rate;
    rd.with_next_offset = d.with_next_offset;
    rd.scalars = d.scalars;
    rd.name = d.name;
    post_ops po;
    po.append_bernoulli(d.runtime_rate ? 0.5 : rate_values(d.rate, d.onednn_compat).p,
            d.method, d.bits);
    primitive_attr rattr = p.attr;
    rattr.set_post_ops(po);
    p.noise_rng = impl::make_rng_conf(rd, rattr);
    p.noise_rng.onednn_keep = d.onednn_compat;
}

// Whether the fused kernel applies; else why not.
bool fused_jit_ok(pd_impl_t &p, std::string &why) {
    const dropout::desc &d = p.desc;
    if (p.broadcast) {
        why = "the noise shape broadcasts";
        return false;
    }
    if (!d.src.is_dense() || !d.dst.is_dense()) {
        why = "src or dst is not dense";
        return false;
    }
    if (p.has_mask && !d.mask.is_dense()) {
        why = "the mask is not dense";
        return false;
    }
    const bool bit_mask
            = p.has_mask && d.mask.get_data_type() == data_type::bit;
    p.fused.rng = p.noise_rng;
    p.fused.rng.dst = bit_mask ? d.mask : dense_bits(p.noise);
    p.fused.dt = d.src.get_data_type();
    p.fused.write_mask = p.has_mask;
    p.fused.mask = d.mask;
#if RNDNN_ENABLE_JIT
    for (cpu_isa isa : impl::jit_tiers()) {
        std::string w;
        if (impl::init_jit_fused(isa, p.fused, w)) {
            p.fused_isa = isa;
            return true;
        }
        why += cat(why.empty() ? "" : "; ", impl::jit_impl_name(isa), ": ", w);
    }
    return false;
#else
    why = "the build has no JIT";
    return false;
#endif
}

void pick_plan(pd_impl_t &p) {
    const dropout::desc &d = p.desc;
    if (d.prop == prop_kind::forward_inference) {
        p.mode = mode_t::copy;
        p.plan = d.plan == dropout_plan::chain ? dropout_plan::chain
                                               : dropout_plan::fused;
        p.name = "copy";
        return;
    }
    p.generate = !(d.prop == prop_kind::backward && p.has_mask);
    p.pregenerate = p.generate && p.broadcast;
    const bool reads_mask = !p.generate || p.pregenerate;

    const std::string &info = p.info;
    p.apply0.alg = p.apply1.alg = binary_alg::mul;
    p.apply0.dt = p.apply1.dt = d.src.get_data_type();
    p.apply0.max_isa = p.apply1.max_isa = p.attr.get_max_cpu_isa();
    p.apply1.n_linear = 1;
    p.apply1_impl = &impl::pick_apply_impl(p.apply1, info);
    if (p.pregenerate)
        p.noise_impl = &impl::pick_rng_impl(p.noise_rng, info);
    const std::string pre = p.pregenerate
            ? cat(p.noise_impl->name, "+")
            : std::string();

    std::string why;
    if (d.plan != dropout_plan::chain) {
        if (reads_mask) {
            // The mask is read: one pass of apply with the scale folded in.
            p.mode = mode_t::blocks;
            p.plan = dropout_plan::fused;
            p.name = cat("fused:", pre, p.apply1_impl->name);
            return;
        }
        if (fused_jit_ok(p, why)) {
            p.mode = mode_t::fused_jit;
            p.plan = dropout_plan::fused;
            p.name = cat("fused:", impl::jit_impl_name(p.fused_isa));
            return;
        }
        if (d.plan == dropout_plan::fused)
            fail(status::unimplemented,
                    cat("the fused plan does not apply to ", info, ": ", why));
        impl::verbose_print(impl::verbose_t::check, "check",
                cat("fused,", info, ",declined: ", why));
    }

    // The chain: RNG -> binary mul -> oneDNN eltwise scale.
    p.mode = mode_t::blocks;
    p.plan = dropout_plan::chain;
    std::string rng_name = pre;
    if (p.generate && !p.broadcast) {
        p.block_rng = p.noise_rng;
        p.block_rng.dst = dense_bits({std::min(impl::pipeline_block, p.n)});
        p.block_rng.nelems = p.block_rng.dst.nelems();
        p.block_impl = &impl::pick_rng_impl(p.block_rng, info);
        p.tail_rng = p.noise_rng;
        p.tail_rng.dst = dense_bits({p.n % impl::pipeline_block});
        p.tail_rng.nelems = p.tail_rng.dst.nelems();
        p.tail_impl = &impl::pick_rng_impl(p.tail_rng, info);
        rng_name = cat(p.block_impl->name, "+");
    }
    // oneDNN's bf16 and f16 conversions flush subnormals to zero (they use
    // vcvtneps2bf16 and the like), which rndnn's single rounding does not:
    // only f32 goes through oneDNN's eltwise.
    std::string no_onednn = "its bf16 and f16 conversions flush subnormals";
    if (d.src.get_data_type() == data_type::f32) {
        const impl::eltwise_scale_t probe(data_type::f32, 1, 1.f);
        if (probe.ok()) {
            p.onednn_scale = true;
            p.apply0_impl = &impl::pick_apply_impl(p.apply0, info);
            p.name = cat("chain:", rng_name, p.apply0_impl->name, "+",
                    probe.name());
            return;
        }
        no_onednn = probe.why();
    }
    // The scale folds into binary mul's linear post-op, which rounds once
    // all the same.
    impl::verbose_print(impl::verbose_t::check, "check",
            cat("onednn eltwise,", info, ",declined: ", no_onednn));
    p.name = cat("chain:", rng_name, p.apply1_impl->name);
}

} // namespace

dropout::primitive_desc::primitive_desc(
        const desc &adesc, const primitive_attr &attr)
    : impl_(std::make_shared<impl_t>()) {
    const double t0 = impl::now_ms();
    impl_t &p = *impl_;
    p.desc = adesc;
    p.attr = attr;
    if (attr.get_post_ops().len() != 0)
        fail(status::invalid_arguments, "dropout takes no post-ops");
    check_desc(p);
    const desc &d = adesc;
    p.info = cat("prop=", prop_kind2str(d.prop), ",rate=",
            d.runtime_rate ? std::string("runtime") : cat(d.rate),
            ",data=", d.src.str(), d.src == d.dst ? "" : ",dst=",
            d.src == d.dst ? "" : d.dst.str(), ",noise=",
            impl::dims2str(p.noise), ",mask=",
            p.has_mask ? d.mask.str() : std::string("none"), ",",
            impl::rng_alg_dist_info(p.noise_rng),
            d.onednn_compat ? ",onednn_compat" : "");
    pick_plan(p);
    impl::verbose_print(impl::verbose_t::dispatch, "create",
            cat(p.name, ",", p.info, ",", impl::now_ms() - t0, "ms"));
}

const char *dropout::primitive_desc::impl_name() const {
    return impl::checked(impl_).name.c_str();
}

dropout_plan dropout::primitive_desc::plan() const {
    return impl::checked(impl_).plan;
}

const dropout::desc &dropout::primitive_desc::get_desc() const {
    return impl::checked(impl_).desc;
}

const primitive_attr &dropout::primitive_desc::get_attr() const {
    return impl::checked(impl_).attr;
}

std::string dropout::primitive_desc::info() const {
    return impl::checked(impl_).info;
}

std::size_t dropout::primitive_desc::mask_bytes() const {
    const impl_t &p = impl::checked(impl_);
    return p.has_mask ? p.desc.mask.get_size() : 0;
}

struct dropout::impl_t {
    std::unique_ptr<impl::fused_kernel_t> fused;
    std::unique_ptr<impl::rng_kernel_t> noise_rng, block_rng, tail_rng;
    std::unique_ptr<impl::apply_kernel_t> apply0, apply1;
    // The chain's oneDNN scale for a full and the last block (creation-time
    // rate only; a runtime rate creates them at execution).
    impl::eltwise_scale_t block_scale, tail_scale;
};

dropout::dropout(const primitive_desc &pd) : pd_(pd) {
    if (!pd.impl())
        fail(status::invalid_arguments, "empty primitive descriptor");
    const primitive_desc::impl_t &p = *pd.impl();
    auto k = std::make_shared<impl_t>();
#if RNDNN_ENABLE_JIT
    if (p.mode == mode_t::fused_jit)
        k->fused = impl::create_jit_fused(p.fused_isa, p.fused);
#endif
    if (p.noise_impl) k->noise_rng = p.noise_impl->create(p.noise_rng);
    if (p.block_impl) {
        k->block_rng = p.block_impl->create(p.block_rng);
        k->tail_rng = p.tail_impl->create(p.tail_rng);
    }
    if (p.apply0_impl) k->apply0 = p.apply0_impl->create(p.apply0);
    if (p.apply1_impl) k->apply1 = p.apply1_impl->create(p.apply1);
    if (p.onednn_scale && !p.desc.runtime_rate) {
        const float scale = rate_values(p.desc.rate, p.desc.onednn_compat).scale;
        k->block_scale = impl::eltwise_scale_t(p.desc.src.get_data_type(),
                std::min(impl::pipeline_block, p.n), scale);
        k->tail_scale = impl::eltwise_scale_t(p.desc.src.get_data_type(),
                p.n % impl::pipeline_block, scale);
    }
    impl_ = k;
}

void dropout::execute(const stream &strm,
        const std::unordered_map<int, memory> &args) const {
    if (!impl_) fail(status::invalid_arguments, "empty dropout primitive");
    const double t0 = impl::now_ms();
    const primitive_desc::impl_t &p = *pd_.impl();
    const desc &d = p.desc;
    const bool bwd = d.prop == prop_kind::backward;
    const memory &src = impl::tensor_arg(args,
            bwd ? RNDNN_ARG_DIFF_DST : RNDNN_ARG_SRC,
            bwd ? "diff_dst" : "src", d.src);
    const memory &dst = impl::tensor_arg(args,
            bwd ? RNDNN_ARG_DIFF_SRC : RNDNN_ARG_DST,
            bwd ? "diff_src" : "dst", d.dst);
    const memory *mask = p.has_mask
            ? &impl::tensor_arg(args, RNDNN_ARG_MASK, "mask", d.mask)
            : nullptr;
    const int nthr = strm.get_nthreads();
    const impl::data_operand_t in(d.src), out(d.dst);
    void *const src_h = src.get_data_handle();
    void *const dst_h = dst.get_data_handle();

    if (p.mode == mode_t::copy) {
        if (src_h == dst_h && d.src == d.dst) return;
        impl::for_blocks(p.n, nthr, [&](dim_t b0, dim_t b1) {
            impl::block_scratch_t scratch(in.esize(), !in.dense(), false);
            for (dim_t i0 = b0; i0 < b1; i0 += impl::pipeline_block) {
                const dim_t cnt = std::min(impl::pipeline_block, b1 - i0);
                const void *s = in.read(src_h, i0, cnt, scratch.src());
                out.write_back(dst_h, i0, cnt, s);
                if (out.dense())
                    std::memmove(out.target(dst_h, i0, nullptr), s,
                            cnt * in.esize());
            }
        });
        return;
    }

    // Rate, then the RNG's arguments when the mask is generated.
    const double rate = d.runtime_rate
            ? impl::read_probability(args, RNDNN_ARG_RATE, d.scalars)
            : d.rate;
    const rate_values_t rv = rate_values(rate, d.onednn_compat);
    impl::rng_run_t run;
    int64_t *next_offset = nullptr;
    // A stored mask read back still advances next_offset (no seed needed).
    if (p.generate || d.with_next_offset) {
        impl::rng_arg_spec_t spec;
        spec.with_seed = p.generate;
        spec.seed_dt = d.seed_dt;
        spec.scalars = d.scalars;
        spec.with_offset = d.with_offset;
        spec.with_next_offset = d.with_next_offset;
        spec.nelems = p.mask_n;
        impl::rng_args_t a = impl::read_rng_args(spec, args);
        run = a.run;
        next_offset = a.next_offset;
    }
    run.p = rv.p;
    run.nthr = nthr;
    run.dst = mask ? mask->get_data_handle() : nullptr;

    if (p.mode == mode_t::fused_jit) {
        impl::fused_run_t f;
        f.rng = run;
        f.src = in.read(src_h, 0, 0, nullptr);
        f.dst = out.target(dst_h, 0, nullptr);
        f.scale = rv.scale;
        impl_->fused->execute(f);
    } else {
        // Where apply reads the mask from when it does not come per block.
        std::vector<uint8_t> noise_bits;
        memory::desc read_md = d.mask;
        const void *read_h = run.dst;
        if (p.pregenerate) {
            if (!mask) {
                read_md = dense_bits(p.noise);
                noise_bits.resize(read_md.get_size());
                run.dst = noise_bits.data();
                read_h = run.dst;
            }
            impl_->noise_rng->execute(run);
        }
        const bool reads = !p.generate || p.pregenerate;
        const impl::mask_operand_t mop(
                reads ? read_md : (mask ? d.mask : dense_bits(p.noise)),
                d.src.get_dims());

        const bool chain_scale = p.plan == dropout_plan::chain && p.onednn_scale;
        impl::eltwise_scale_t rt_block, rt_tail;
        const impl::eltwise_scale_t *block_scale = &impl_->block_scale;
        const impl::eltwise_scale_t *tail_scale = &impl_->tail_scale;
        if (chain_scale && d.runtime_rate) {
            rt_block = impl::eltwise_scale_t(d.src.get_data_type(),
                    std::min(impl::pipeline_block, p.n), rv.scale);
            rt_tail = impl::eltwise_scale_t(d.src.get_data_type(),
                    p.n % impl::pipeline_block, rv.scale);
            block_scale = &rt_block;
            tail_scale = &rt_tail;
        }
        const float linear[2] = {rv.scale, -0.f};

        impl::for_blocks(p.n, nthr, [&](dim_t b0, dim_t b1) {
            impl::block_scratch_t scratch(in.esize(), !in.dense(), !out.dense());
            for (dim_t i0 = b0; i0 < b1; i0 += impl::pipeline_block) {
                const dim_t cnt = std::min(impl::pipeline_block, b1 - i0);
                const bool full = cnt == impl::pipeline_block;
                impl::apply_call_t call;
                call.src = in.read(src_h, i0, cnt, scratch.src());
                if (reads) {
                    call.mask = mop.read(read_h, i0, cnt, scratch.bits(),
                            scratch.flags());
                } else {
                    impl::rng_run_t r = run;
                    r.offset = run.offset + i0;
                    r.nthr = 1;
                    const bool direct = mask && mop.direct(i0);
                    uint8_t *bits = direct ? mop.at(mask->get_data_handle(), i0)
                                           : scratch.bits();
                    r.dst = bits;
                    (full ? impl_->block_rng : impl_->tail_rng)->execute(r);
                    if (mask && !direct)
                        mop.write(mask->get_data_handle(), i0, cnt, bits,
                                scratch.flags());
                    call.mask = bits;
                }
                call.dst = out.target(dst_h, i0, scratch.dst());
                call.n = cnt;
                call.linear = linear;
                if (chain_scale) {
                    (*impl_->apply0)(call);
                    (full ? block_scale : tail_scale)->execute(call.dst, call.dst);
                } else {
                    (*impl_->apply1)(call);
                }
                out.write_back(dst_h, i0, cnt, call.dst);
            }
        });
    }
    if (next_offset) *next_offset = run.offset + p.mask_n;

    if (impl::verbose_on(impl::verbose_t::profile))
        impl::verbose_print(impl::verbose_t::profile, "exec",
                cat(p.name, ",", p.info, ",nthr=", nthr, ",",
                        impl::now_ms() - t0, "ms"));
}

} // namespace rndnn
