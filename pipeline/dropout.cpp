// The dropout primitive: validates the problem, picks a plan from the list
// (pipeline/dropout_plans.*, docs/dropout.md) and runs its kernel.

#include <cmath>

#include "pipeline/dropout_plans.hpp"
#include "pipeline/pipeline_utils.hpp"
#include "rndnn/dropout.hpp"
#include "rng/rng_impl.hpp"
#include "src/args.hpp"
#include "rng/window.hpp"
#include "src/enums.hpp"
#include "src/pd_cache.hpp"
#include "src/utils.hpp"
#include "src/verbose.hpp"

namespace rndnn {

using impl::cat;
using impl::fail;

bool dropout::desc::operator==(const desc &o) const {
    return draw_desc::operator==(o) && prop == o.prop && src == o.src
            && dst == o.dst && noise_shape == o.noise_shape && mask == o.mask
            && rate == o.rate && runtime_rate == o.runtime_rate
            && method == o.method && bits == o.bits
            && onednn_compat == o.onednn_compat && plan == o.plan;
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

struct dropout::primitive_desc::impl_t {
    impl::dropout_conf_t conf;
    std::unique_ptr<impl::dropout_plan_t> plan; // conf's, picked
    // Made with the choice (its JIT code generated); the primitives share
    // it.
    std::shared_ptr<const impl::dropout_kernel_t> kernel;
    std::string name;
};

namespace {

using impl::dropout_conf_t;

memory::desc dense_bits(const dims &d) { return memory::desc(d, data_type::bit); }

// The Bernoulli post-op of @p d's keep mask with the probability of a keep
// @p p: oneDNN's rule under onednn_compat (which needs its algorithm and
// one word an element), else d's method and bits.
impl::bernoulli_t keep_bernoulli(const dropout::desc &d, double p) {
    impl::check_enum(d.method, "bernoulli method", "bernoulli_method");
    if (d.method == bernoulli_method::onednn)
        fail(status::invalid_arguments,
                "dropout::desc::method = bernoulli_method::onednn is "
                "refused: oneDNN's rule is dropout::desc::onednn_compat = "
                "true, with method bernoulli_method::threshold32 or "
                "bernoulli_method::automatic");
    if (!d.onednn_compat) return {p, d.method, d.bits};
    const bernoulli_method method = d.method == bernoulli_method::automatic
            ? bernoulli_method::threshold32
            : d.method;
    if (d.alg != rng_alg::philox4x32_10_onednn
            || method != bernoulli_method::threshold32)
        fail(status::invalid_arguments,
                cat("onednn_compat needs alg=philox4x32_10_onednn and method "
                    "threshold32, got alg=",
                        alg2str(d.alg), " method=",
                        bernoulli_method2str(method)));
    return {p, bernoulli_method::onednn, 1};
}

// The rate's p and scale under the mask's method @p keep (resolved): the
// scale is the inverse of the keep probability the method draws.
// @throws error (invalid_arguments) naming the rate, the method and the
//     nearest rates it draws, if it keeps no element at a rate below 1.
impl::dropout_keep_t make_keep(double rate, const impl::bernoulli_t &keep) {
    const impl::dropout_keep_t r
            = impl::dropout_keep(rate, keep.method, keep.bits);
    if (r.drawn == 0.0 && rate < 1.0)
        fail(status::invalid_arguments,
                cat("rate=", rate, " with method bitsliced:", keep.bits,
                        " keeps no element: 1 - rate rounds to 0 in steps of "
                        "2^-",
                        keep.bits,
                        ", and no scale makes the output's mean the "
                        "input's; the nearest rates it draws are ",
                        1.0 - std::ldexp(1.0, -keep.bits),
                        " and 1 (more bits draw rates closer to this one)"));
    return r;
}

} // namespace

namespace impl {

void check_dropout_desc(dropout_conf_t &c) {
    const dropout::desc &d = c.desc;
    impl::check_enum(d.prop, "propagation kind", "prop_kind");
    impl::check_enum(d.plan, "plan", "dropout_plan");
    impl::check_enum(d.alg, "algorithm", "rng_alg");
    if (c.attr.get_post_ops().len() != 0)
        fail(status::invalid_arguments, "dropout takes no post-ops");
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
    // The global data's dims (the block's own without a window); the noise
    // shape is relative to them.
    rng::desc window_d(d.alg, memory::desc(data, data_type::f32));
    window_d.global_dims = d.global_dims;
    window_d.origin = d.origin;
    const impl::rng_window_t dw = impl::make_rng_window(window_d);
    const dims &global = dw.active ? d.global_dims : data;
    const dims noise_global = d.noise_shape.empty() ? global : d.noise_shape;
    if (!impl::broadcasts_to(noise_global, global))
        fail(status::invalid_arguments,
                cat("noise shape ", impl::dims2str(d.noise_shape),
                        " does not fit the data shape ", impl::dims2str(global),
                        " (each noise dim must equal the data's or be 1)"));
    // The block's noise: 1 where the noise broadcasts, else the block's.
    c.noise = data;
    dims noise_origin(data.size(), 0);
    for (size_t j = 0; j < data.size(); ++j) {
        if (noise_global[j] == 1) c.noise[j] = 1;
        else if (dw.active) noise_origin[j] = dw.origin[j];
    }
    c.n = d.src.nelems();
    c.broadcast = c.noise != data;
    c.has_mask = !d.mask.is_zero();
    if (c.has_mask) {
        if (d.prop == prop_kind::forward_inference)
            fail(status::invalid_arguments,
                    "forward_inference writes no mask; the mask desc must be "
                    "empty");
        const data_type mdt = d.mask.get_data_type();
        if (mdt != data_type::bit && mdt != data_type::u8)
            fail(status::invalid_arguments,
                    cat("mask type ", dt2str(mdt), " is not bit or u8"));
        if (d.mask.is_host_scalar() || d.mask.get_dims() != c.noise)
            fail(status::invalid_arguments,
                    cat("mask ", d.mask.str(), " must have the noise shape ",
                            impl::dims2str(c.noise)));
    }
    c.generate = !(bwd && c.has_mask);
    c.mask_n = 1;
    for (dim_t x : dw.active ? noise_global : c.noise)
        c.mask_n *= x;
    if (!d.runtime_rate) impl::check_probability(d.rate, "rate");
    // The rate becomes p and the scale once the RNG has checked the method
    // (make_keep, below); p stands in until then.
    impl::bernoulli_t keep
            = keep_bernoulli(d, d.runtime_rate ? 0.0 : 1.0 - d.rate);
    impl::resolve_bernoulli_method(d.alg, keep.method, keep.bits);

    // The RNG problem, validated by the RNG's own checks.
    rng::desc rd;
    static_cast<draw_desc &>(rd) = d; // the window is the noise's, below
    rd.global_dims.clear();
    rd.origin.clear();
    rd.dst = c.has_mask ? d.mask : dense_bits(c.noise);
    rd.runtime_p = d.runtime_rate;
    // A block of whole rows of the global tensor, not broadcast, is one
    // range of the global mask: a plain problem at a shifted offset.
    bool contiguous = dw.active && !c.broadcast;
    for (size_t j = 0, k = 0; contiguous && j < data.size(); ++j) {
        if (k == 0 && data[j] != 1) k = j + 1; // the first dim past 1s
        else if (k != 0 && data[j] != noise_global[j]) contiguous = false;
    }
    if (contiguous) {
        for (size_t j = 0; j < data.size(); ++j)
            c.offset_shift = c.offset_shift * noise_global[j] + noise_origin[j];
    } else if (dw.active) {
        rd.global_dims = noise_global;
        rd.origin = noise_origin;
    }
    c.noise_rng = impl::make_bernoulli_conf(
            rd, keep, c.attr.get_max_cpu_isa());
    if (!d.runtime_rate) {
        c.keep = make_keep(d.rate, keep);
        c.noise_rng.p = c.keep.p;
    }
    c.window = impl::make_rng_window(rd);
    c.pregenerate = c.generate && (c.broadcast || c.window.active);
}

} // namespace impl

namespace {

bool same_dropout_desc(const dropout::desc &a, const dropout::desc &b) {
    return a == b && impl::same_bits(a.rate, b.rate);
}

std::size_t hash_dropout_desc(const dropout::desc &d) {
    return impl::hash_md(static_cast<std::size_t>(d.prop) * 131
                    + static_cast<std::size_t>(d.alg) * 7
                    + std::hash<double>()(d.rate),
            d.src);
}

using dropout_pd_cache_t
        = impl::pd_cache_t<dropout::desc, dropout::primitive_desc::impl_t>;

dropout_pd_cache_t &dropout_pd_cache() {
    static dropout_pd_cache_t cache(same_dropout_desc, hash_dropout_desc);
    return cache;
}

} // namespace

dropout::primitive_desc::primitive_desc(
        const desc &adesc, const primitive_attr &attr) {
    impl::verbose_errors("dropout::primitive_desc", [&] {
        const bool cached = impl::pd_cache_usable();
        if (cached && (impl_ = dropout_pd_cache().find(adesc, attr))) return;
        const double t0 = impl::now_ms();
        impl_ = std::make_shared<impl_t>();
        impl_t &p = *impl_;
        dropout_conf_t &c = p.conf;
        c.desc = adesc;
        c.attr = attr;
        impl::check_dropout_desc(c);
        const desc &d = adesc;
        c.info = cat("prop=", prop_kind2str(d.prop), ",rate=",
                d.runtime_rate ? std::string("runtime") : cat(d.rate),
                ",data=", d.src.str(), d.src == d.dst ? "" : ",dst=",
                d.src == d.dst ? "" : d.dst.str(), ",noise=",
                impl::dims2str(c.noise), ",mask=",
                c.has_mask ? d.mask.str() : std::string("none"), ",",
                impl::rng_alg_dist_info(c.noise_rng),
                d.onednn_compat ? ",onednn_compat" : "",
                d.global_dims.empty() ? std::string()
                                      : cat(",window=",
                                              impl::dims2str(d.global_dims),
                                              "@",
                                              impl::dims2str(d.origin.empty()
                                                              ? dims(d.global_dims.size(), 0)
                                                              : d.origin)));
        impl::dropout_picked_t picked = impl::pick_dropout_plan(c);
        p.plan = std::move(picked.plan);
        p.kernel = std::move(picked.kernel);
        p.name = p.plan->name();
        impl::verbose_print(impl::verbose_t::dispatch, "create",
                cat(p.name, ",", c.info, ",", impl::now_ms() - t0, "ms"));
        if (cached) dropout_pd_cache().insert(adesc, attr, impl_);
    });
}

const char *dropout::primitive_desc::impl_name() const {
    return impl::checked(impl_).name.c_str();
}

dropout_plan dropout::primitive_desc::plan() const {
    return impl::checked(impl_).plan->kind();
}

const dropout::desc &dropout::primitive_desc::get_desc() const {
    return impl::checked(impl_).conf.desc;
}

const primitive_attr &dropout::primitive_desc::get_attr() const {
    return impl::checked(impl_).conf.attr;
}

std::string dropout::primitive_desc::info() const {
    return impl::checked(impl_).conf.info;
}

std::size_t dropout::primitive_desc::mask_bytes() const {
    const impl_t &p = impl::checked(impl_);
    return p.conf.has_mask ? p.conf.desc.mask.get_size() : 0;
}

struct dropout::impl_t {
    std::shared_ptr<const impl::dropout_kernel_t> kernel;
};

dropout::dropout(const primitive_desc &pd) : pd_(pd) {
    impl::verbose_errors("dropout", [&] {
        if (!pd.impl())
            fail(status::invalid_arguments, "empty primitive descriptor");
        auto k = std::make_shared<impl_t>();
        k->kernel = pd.impl()->kernel; // made with the choice
        impl_ = k;
    });
}

void dropout::execute(const stream &strm,
        const std::unordered_map<int, memory> &args) const {
    impl::verbose_errors("dropout::execute", [&] {
        if (!impl_) fail(status::invalid_arguments, "empty dropout primitive");
        const double t0 = impl::now_ms();
        const primitive_desc::impl_t &p = *pd_.impl();
        const dropout_conf_t &c = p.conf;
        const desc &d = c.desc;
        const bool bwd = d.prop == prop_kind::backward;
        const memory &src = impl::tensor_arg(args,
                bwd ? RNDNN_ARG_DIFF_DST : RNDNN_ARG_SRC,
                bwd ? "diff_dst" : "src", d.src);
        const memory &dst = impl::tensor_arg(args,
                bwd ? RNDNN_ARG_DIFF_SRC : RNDNN_ARG_DST,
                bwd ? "diff_src" : "dst", d.dst);
        const memory *mask = c.has_mask
                ? &impl::tensor_arg(args, RNDNN_ARG_MASK, "mask", d.mask)
                : nullptr;
        impl::dropout_run_t run;
        run.src = src.get_data_handle();
        run.dst = dst.get_data_handle();
        run.mask = mask ? mask->get_data_handle() : nullptr;
        run.scale = 1.f;
        run.nthr = strm.get_nthreads();

        // forward_inference reads nothing else; training and backward read the
        // rate and, when the mask is generated, the RNG's arguments.
        int64_t *next_offset = nullptr;
        if (d.prop != prop_kind::forward_inference) {
            // A runtime rate is read and converted first, once.
            const impl::dropout_keep_t r = d.runtime_rate
                    ? make_keep(impl::read_probability(
                                        args, RNDNN_ARG_RATE, d.scalars),
                            {0.0, c.noise_rng.method, c.noise_rng.bits})
                    : c.keep;
            // A stored mask read back still advances next_offset (no seed read).
            if (c.generate || d.with_next_offset) {
                impl::rng_arg_spec_t spec(d, c.mask_n);
                spec.with_seed = c.generate;
                impl::rng_args_t a = impl::read_rng_args(spec, args);
                run.rng = a.run;
                next_offset = a.next_offset;
            }
            run.rng.p = r.p;
            run.scale = r.scale;
        }
        run.rng.nthr = run.nthr;
        const int64_t offset = run.rng.offset;
        run.rng.offset += c.offset_shift;
        impl_->kernel->execute(run);
        if (next_offset) *next_offset = offset + c.mask_n;

        if (impl::verbose_on(impl::verbose_t::profile))
            impl::verbose_print(impl::verbose_t::profile, "exec",
                    cat(p.name, ",", c.info, ",nthr=", run.nthr, ",",
                            impl::now_ms() - t0, "ms"));
    });
}

double dropout::keep_probability(double rate, bool onednn_compat) {
    impl::check_probability(rate, "rate");
    return impl::dropout_keep(rate,
                   onednn_compat ? bernoulli_method::onednn
                                 : bernoulli_method::threshold32,
                   32)
            .p;
}

post_ops dropout::keep_post_ops(const desc &d) {
    if (d.runtime_rate)
        fail(status::invalid_arguments,
                "keep_post_ops needs the rate: the desc has a runtime rate");
    const impl::bernoulli_t b
            = keep_bernoulli(d, keep_probability(d.rate, d.onednn_compat));
    post_ops po;
    po.append_bernoulli(b.p, b.method, b.bits);
    return po;
}

} // namespace rndnn
