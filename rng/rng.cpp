// The public RNG primitive: validates problems, walks the implementation
// list, and runs the chosen kernel on the arguments rng/rng_args.cpp reads.
#include <cmath>
#include <limits>
#include <vector>

#include "rng/distributions.hpp"
#include "rng/engines/word_source.hpp"
#include "rng/rng_impl.hpp"
#include "src/args.hpp"
#include "src/cpu_isa.hpp"
#include "rng/window.hpp"
#include "src/enums.hpp"
#include "src/impl_list.hpp"
#include "src/utils.hpp"
#include "src/verbose.hpp"

namespace rndnn {

using impl::cat;
using impl::fail;

bool draw_desc::operator==(const draw_desc &o) const {
    return alg == o.alg && name == o.name && seed_dt == o.seed_dt
            && with_offset == o.with_offset
            && with_next_offset == o.with_next_offset && scalars == o.scalars
            && global_dims == o.global_dims && origin == o.origin;
}

bool rng::desc::operator==(const desc &o) const {
    return draw_desc::operator==(o) && dst == o.dst
            && runtime_p == o.runtime_p && p_tensor == o.p_tensor;
}

// --- primitive descriptor -------------------------------------------------

namespace {

const char *dist2str(impl::dist_t d) {
    switch (d) {
        case impl::dist_t::bits: return "bits";
        case impl::dist_t::bernoulli: return "bernoulli";
        case impl::dist_t::uniform: return "uniform";
        case impl::dist_t::normal: return "normal";
        case impl::dist_t::integers: return "integers";
        case impl::dist_t::exponential: return "exponential";
        case impl::dist_t::gumbel: return "gumbel";
        case impl::dist_t::lognormal: return "lognormal";
        case impl::dist_t::permutation: return "permutation";
        case impl::dist_t::truncated_normal: return "truncated_normal";
        case impl::dist_t::laplace: return "laplace";
    }
    return "unknown";
}

// The dst types of distributions() (the one table).
void check_dst_type(impl::dist_t dist, data_type t) {
    std::string names;
    for (data_type d : find_distribution(dist2str(dist)).dst_types) {
        if (d == t) return;
        names += cat(names.empty() ? "" : ", ", dt2str(d));
    }
    fail(status::invalid_arguments,
            cat("dist=", dist2str(dist), " cannot write dst type ", dt2str(t),
                    " (supported: ", names, ")"));
}

// Refuses a value post-op (uniform, normal, ...) (`what`: it and its parameters, as
// messages name them) whose extreme values lo and hi (f32, as the kernels
// compute them) are not finite, or round to infinity in dst's type. An f64
// dst passes: its values are computed in f64, where finite f32 parameters
// keep every value but lognormal's finite (check_lognormal_f64).
void check_fits(const std::string &what, float lo, float hi,
        const memory::desc &dst) {
    const data_type t = dst.get_data_type();
    if (t == data_type::f64) return;
    const auto finite = [t](float v) {
        if (t == data_type::bf16)
            v = impl::bf16_to_f32(impl::f32_to_bf16(v));
        else if (t == data_type::f16)
            v = impl::f16_to_f32(impl::f32_to_f16(v));
        return std::isfinite(v);
    };
    for (float v : {lo, hi}) {
        if (finite(v)) continue;
        fail(status::invalid_arguments,
                cat(what, " gives values up to ", v, " in magnitude, which ",
                        dt2str(t), " cannot hold (they would be infinite)"));
    }
}

// Refuses integers [low, high) whose values dst's type cannot hold exactly
// (u8: [0, 255]; s32: 32-bit; f32: magnitude at most 2^24); s64 holds
// them all, and types integers does not write are refused by
// check_dst_type.
void check_integers_fit(int64_t low, int64_t high, data_type t) {
    int64_t lo = 0, hi = 0;
    const char *what = "";
    switch (t) {
        case data_type::u8: lo = 0, hi = 255, what = "[0, 255]"; break;
        case data_type::s32:
            lo = std::numeric_limits<int32_t>::min(),
            hi = std::numeric_limits<int32_t>::max(), what = "[-2^31, 2^31 - 1]";
            break;
        case data_type::f32:
            lo = -(int64_t(1) << 24), hi = int64_t(1) << 24,
            what = "[-2^24, 2^24], where every integer is exact";
            break;
        default: return;
    }
    const int64_t last = high - 1; // high > low, so no overflow
    if (low < lo || last > hi)
        fail(status::invalid_arguments,
                cat("integers [", low, ", ", high, ") has values ",
                        low < lo ? cat("down to ", low) : cat("up to ", last),
                        ", outside ", dt2str(t), "'s ", what));
}

} // namespace

namespace impl {

void resolve_bernoulli_method(
        rng_alg alg, bernoulli_method &method, int &bits) {
    if (method != bernoulli_method::automatic) return;
    const bool by_counter = engine_traits(alg).by_counter;
    method = by_counter ? bernoulli_method::bitsliced
                        : bernoulli_method::threshold32;
    bits = by_counter ? 32 : 1;
}

namespace {

// Sets @p d's p tensor on @p c (bernoulli by @p method), checked: the
// checks rng::desc::p_tensor documents but its values'.
void set_p_tensor(rng_conf_t &c, const rng::desc &d, bernoulli_method method) {
    const memory::desc &p = d.p_tensor;
    if (d.runtime_p)
        fail(status::invalid_arguments,
                "a p tensor and a runtime p cannot be given together");
    if (method != bernoulli_method::threshold32)
        fail(status::invalid_arguments,
                cat("a p tensor takes bernoulli threshold32, not ",
                        bernoulli_method2str(method)));
    if (engine_traits(c.alg).word_bits != 32)
        fail(status::invalid_arguments,
                cat("a p tensor needs 32-bit words; ", alg2str(c.alg),
                        " has ", engine_traits(c.alg).word_bits));
    if (p.is_host_scalar()
            || (p.get_data_type() != data_type::f32
                    && p.get_data_type() != data_type::bf16))
        fail(status::invalid_arguments,
                cat("p tensor ", p.str(), " is not an f32 or bf16 tensor"));
    if (!p.is_dense())
        fail(status::invalid_arguments,
                cat("p tensor ", p.str(), " is not dense row-major"));
    const dims &pd = p.get_dims(), &dd = d.dst.get_dims();
    bool fits = pd.size() == dd.size();
    for (size_t j = 0; fits && j < pd.size(); ++j)
        fits = pd[j] == dd[j] || pd[j] == 1;
    if (!fits)
        fail(status::invalid_arguments,
                cat("p tensor dims ", dims2str(pd),
                        " do not broadcast to dst dims ", dims2str(dd),
                        " (same rank, each dim dst's or 1)"));
    c.p_tensor = true;
    c.p_dt = p.get_data_type();
    c.p_strides = p.get_strides();
    for (size_t j = 0; j < pd.size(); ++j)
        if (pd[j] != dd[j]) c.p_strides[j] = 0;
}

// Sets the Bernoulli problem @p b on @p c, checked: p in [0, 1] unless
// runtime, a method and b that @p c's algorithm can draw; with a p tensor
// (@p d's), threshold32 (what automatic gives) and the tensor's checks.
void set_bernoulli(rng_conf_t &c, const bernoulli_t &b, const rng::desc &d) {
    const bool runtime_p = d.runtime_p;
    check_enum(b.method, "bernoulli method", "bernoulli_method");
    bernoulli_method method = b.method;
    int bits = b.bits;
    if (!d.p_tensor.is_zero()) {
        if (method == bernoulli_method::automatic)
            method = bernoulli_method::threshold32;
        set_p_tensor(c, d, method);
    }
    resolve_bernoulli_method(c.alg, method, bits);
    c.dist = dist_t::bernoulli;
    c.p = b.p;
    c.method = method;
    c.bits = method == bernoulli_method::bitsliced ? bits : 1;
    if (!runtime_p && !c.p_tensor) check_probability(b.p, "bernoulli p");
    if (method == bernoulli_method::bitsliced && (bits < 1 || bits > 32))
        fail(status::invalid_arguments,
                cat("bitsliced b=", bits, " is outside [1, 32]"));
    const engine_traits_t traits = engine_traits(c.alg);
    if ((method == bernoulli_method::bitsliced
                || method == bernoulli_method::onednn
                || method == bernoulli_method::bytewise)
            && traits.word_bits != 32)
        fail(status::invalid_arguments,
                cat(bernoulli_method2str(method),
                        " bernoulli needs 32-bit words; ", alg2str(c.alg),
                        " has ", traits.word_bits, " (use threshold32)"));
    if (method == bernoulli_method::bytewise && !traits.by_counter)
        fail(status::invalid_arguments,
                cat("bytewise bernoulli needs words addressed by counter; ",
                        alg2str(c.alg), " is sequential (use threshold32)"));
}

// The checks of @p d that every distribution shares, and the ISA cap.
rng_conf_t check_problem(const rng::desc &d, cpu_isa max_isa) {
    rng_conf_t c;
    c.alg = d.alg;
    impl::check_enum(d.alg, "algorithm", "rng_alg");
    impl::check_enum(d.scalars, "scalar kind", "scalar_kind");
    if (d.dst.is_zero())
        fail(status::invalid_arguments, "dst memory descriptor is empty");
    if (d.dst.is_host_scalar())
        fail(status::invalid_arguments, "dst cannot be a host scalar");
    c.dst = d.dst;
    c.nelems = d.dst.nelems();
    if (d.seed_dt != data_type::s32 && d.seed_dt != data_type::s64)
        fail(status::invalid_arguments,
                cat("seed type ", dt2str(d.seed_dt), " is not s32 or s64"));
    if (d.name.size() > 32)
        fail(status::invalid_arguments,
                cat("key name '", escape(d.name), "' has ", d.name.size(),
                        " bytes; at most 32 are allowed"));
    if (!d.name.empty() && d.alg != rng_alg::multfly)
        fail(status::invalid_arguments,
                cat("key name '", escape(d.name), "' is only used by multfly, not ",
                        alg2str(d.alg)));
    c.name = d.name;
    c.runtime_p = d.runtime_p;
    c.max_isa = max_isa;
    check_isa_cap(c.max_isa);
    return c;
}

} // namespace

rng_conf_t make_rng_conf(const rng::desc &d, const primitive_attr &attr) {
    rng_conf_t c = check_problem(d, attr.get_max_cpu_isa());
    const post_ops &po = attr.get_post_ops();
    if (po.len() > 1)
        fail(status::invalid_arguments,
                cat("at most one distribution post-op is allowed, got ",
                        po.len()));
    if (po.len() == 1) {
        const post_ops::entry &e = po.get(0);
        switch (e.k) {
            case post_ops::kind::bernoulli:
                set_bernoulli(c, {e.p, e.method, e.bits}, d);
                break;
            case post_ops::kind::uniform:
                c.dist = impl::dist_t::uniform;
                c.a = e.a;
                c.b = e.b;
                if (!std::isfinite(e.a) || !std::isfinite(e.b) || e.a > e.b)
                    fail(status::invalid_arguments,
                            cat("uniform range [", e.a, ", ", e.b,
                                    ") is not a finite range with a <= b"));
                if (c.dst.get_data_type() != data_type::f64
                        && !std::isfinite(e.b - e.a))
                    fail(status::invalid_arguments,
                            cat("uniform range [", e.a, ", ", e.b,
                                    "): its width b - a overflows f32"));
                {
                    // The values run from a to fma(1 - 2^-24, b - a, a).
                    const float top = std::fma(
                            1.f - 0x1p-24f, e.b - e.a, e.a);
                    check_fits(cat("uniform range [", e.a, ", ", e.b, ")"),
                            e.a, top, c.dst);
                }
                break;
            case post_ops::kind::normal:
                c.dist = impl::dist_t::normal;
                c.mean = e.mean;
                c.stddev = e.stddev;
                if (!std::isfinite(e.mean) || !std::isfinite(e.stddev)
                        || e.stddev < 0.f)
                    fail(status::invalid_arguments,
                            cat("normal mean=", e.mean, " stddev=", e.stddev,
                                    " is not finite with stddev >= 0"));
                {
                    // z reaches +-r_max exactly (u1 = 2^-24, angle 0 or
                    // pi), and |z| never passes it.
                    const float r_max
                            = std::sqrt(impl::ln_approx(0x1p-24f) * -2.f);
                    check_fits(cat("normal mean=", e.mean, " stddev=",
                                       e.stddev),
                            e.mean + e.stddev * -r_max,
                            e.mean + e.stddev * r_max, c.dst);
                }
                break;
            case post_ops::kind::integers:
                c.dist = impl::dist_t::integers;
                if (e.high <= e.low)
                    fail(status::invalid_arguments,
                            cat("integers [", e.low, ", ", e.high,
                                    ") is empty: high must exceed low"));
                c.low = e.low;
                c.range = static_cast<uint64_t>(e.high)
                        - static_cast<uint64_t>(e.low);
                if (impl::engine_traits(c.alg).word_bits != 32)
                    fail(status::invalid_arguments,
                            cat("integers needs 32-bit words; ",
                                    alg2str(c.alg), " has ",
                                    impl::engine_traits(c.alg).word_bits));
                check_integers_fit(e.low, e.high, d.dst.get_data_type());
                break;
            case post_ops::kind::exponential:
                c.dist = impl::dist_t::exponential;
                c.scale = e.scale;
                if (!std::isfinite(e.scale) || e.scale < 0.f)
                    fail(status::invalid_arguments,
                            cat("exponential scale=", e.scale,
                                    " is not finite and >= 0"));
                // The largest value comes at u = 2^-24 (-ln u = 16.64).
                check_fits(cat("exponential scale=", e.scale), 0.f,
                        impl::exponential_value(0, 8, e.scale), c.dst);
                break;
            case post_ops::kind::gumbel:
                c.dist = impl::dist_t::gumbel;
                c.loc = e.loc;
                c.scale = e.scale;
                if (!std::isfinite(e.loc) || !std::isfinite(e.scale)
                        || e.scale < 0.f)
                    fail(status::invalid_arguments,
                            cat("gumbel loc=", e.loc, " scale=", e.scale,
                                    " is not finite with scale >= 0"));
                // The extremes come at the ends of u (the largest at u =
                // 1): every value lies between these two.
                check_fits(cat("gumbel loc=", e.loc, " scale=", e.scale),
                        impl::gumbel_value(~0u, 8, e.loc, e.scale),
                        impl::gumbel_value(0, 8, e.loc, e.scale), c.dst);
                break;
            case post_ops::kind::laplace:
                c.dist = impl::dist_t::laplace;
                c.loc = e.loc;
                c.scale = e.scale;
                if (!std::isfinite(e.loc) || !std::isfinite(e.scale)
                        || e.scale < 0.f)
                    fail(status::invalid_arguments,
                            cat("laplace loc=", e.loc, " scale=", e.scale,
                                    " is not finite with scale >= 0"));
                // The extremes: loc -+ the largest exponential value (u =
                // 2^-24, word 0 with bit 0 set or clear).
                check_fits(cat("laplace loc=", e.loc, " scale=", e.scale),
                        impl::laplace_value(1, 8, e.loc, e.scale),
                        impl::laplace_value(0, 8, e.loc, e.scale), c.dst);
                break;
            case post_ops::kind::lognormal:
                c.dist = impl::dist_t::lognormal;
                c.mean = e.mean;
                c.stddev = e.stddev;
                if (!std::isfinite(e.mean) || !std::isfinite(e.stddev)
                        || e.stddev < 0.f)
                    fail(status::invalid_arguments,
                            cat("lognormal mean=", e.mean, " sigma=",
                                    e.stddev, " is not finite with sigma >= 0"));
                {
                    // The exponent is normal(mean, sigma)'s value, at most
                    // mean + sigma * r_max (as normal's check); exp_approx
                    // is not monotonic, but within 1.2 ulp of exp, so no
                    // value passes exp_approx there times 1 + 2^-21.
                    const float r_max
                            = std::sqrt(impl::ln_approx(0x1p-24f) * -2.f);
                    check_fits(cat("lognormal mean=", e.mean, " sigma=",
                                       e.stddev),
                            0.f,
                            impl::exp_approx(e.mean + e.stddev * r_max)
                                    * (1.f + 0x1p-21f),
                            c.dst);
                }
                if (c.dst.get_data_type() == data_type::f64) {
                    // As above in f64: t reaches mean + sigma * 8.57.
                    const double r_max64 = std::sqrt(
                            impl::ln_approx_f64(0x1p-53) * -2.0);
                    const double top = impl::exp_approx_f64(
                                               e.mean + e.stddev * r_max64)
                            * (1.0 + 0x1p-50);
                    if (!std::isfinite(top))
                        fail(status::invalid_arguments,
                                cat("lognormal mean=", e.mean, " sigma=",
                                        e.stddev, " gives values up to ", top,
                                        " in magnitude, which f64 cannot hold "
                                        "(they would be infinite)"));
                }
                break;
            case post_ops::kind::permutation:
                c.dist = impl::dist_t::permutation;
                if (e.n < 1)
                    fail(status::invalid_arguments,
                            cat("permutation n=", e.n,
                                    " is not >= 1 (it permutes [0, n))"));
                c.n = static_cast<uint64_t>(e.n);
                if (d.dst.get_data_type() == data_type::s32
                        && e.n > (int64_t(1) << 31))
                    fail(status::invalid_arguments,
                            cat("permutation n=", e.n, " has values up to ",
                                    e.n - 1,
                                    ", outside s32's [-2^31, 2^31 - 1] "
                                    "(use s64)"));
                break;
            case post_ops::kind::truncated_normal: {
                c.dist = impl::dist_t::truncated_normal;
                c.mean = e.mean;
                c.stddev = e.stddev;
                c.a = e.a;
                c.b = e.b;
                const std::string what = cat("truncated_normal mean=", e.mean,
                        " stddev=", e.stddev, " a=", e.a, " b=", e.b);
                if (!std::isfinite(e.mean) || !std::isfinite(e.stddev)
                        || !std::isfinite(e.a) || !std::isfinite(e.b)
                        || !(e.stddev > 0.f) || !(e.a < e.b))
                    fail(status::invalid_arguments,
                            cat(what,
                                    ": needs finite values, stddev > 0 and "
                                    "a < b"));
                const double alpha
                        = (static_cast<double>(e.a) - e.mean) / e.stddev;
                const double beta
                        = (static_cast<double>(e.b) - e.mean) / e.stddev;
                if (!(alpha < impl::truncnorm_z_limit)
                        || !(beta > -impl::truncnorm_z_limit))
                    fail(status::invalid_arguments,
                            cat(what, ": the interval lies ",
                                    impl::truncnorm_z_limit,
                                    " or more standard deviations from the "
                                    "mean ((a - mean) / stddev = ",
                                    alpha, ", (b - mean) / stddev = ", beta,
                                    "; needs alpha < 9 and beta > -9)"));
                c.truncnorm = impl::truncnorm_params(e.mean, e.stddev, e.a,
                        e.b, c.dst.get_data_type());
                if (!(c.truncnorm.lo <= c.truncnorm.hi)
                        || !std::isfinite(c.truncnorm.lo)
                        || !std::isfinite(c.truncnorm.hi))
                    fail(status::invalid_arguments,
                            cat(what, ": no finite ",
                                    dt2str(c.dst.get_data_type()),
                                    " value lies in [a, b]"));
                break;
            }
            case post_ops::kind::linear:
                fail(status::invalid_arguments,
                        "the RNG takes a distribution post-op (bernoulli, "
                        "uniform, normal, integers, exponential, gumbel, "
                        "lognormal, permutation, truncated_normal, laplace), "
                        "not linear");
        }
    }
    if (d.runtime_p && c.dist != impl::dist_t::bernoulli)
        fail(status::invalid_arguments,
                "a runtime p needs a bernoulli post-op");
    if (!d.p_tensor.is_zero() && c.dist != impl::dist_t::bernoulli)
        fail(status::invalid_arguments,
                cat("a p tensor needs a bernoulli post-op, not dist=",
                        dist2str(c.dist)));
    check_dst_type(c.dist, d.dst.get_data_type());
    return c;
}

rng_conf_t make_bernoulli_conf(
        const rng::desc &d, const bernoulli_t &b, cpu_isa max_isa) {
    rng_conf_t c = check_problem(d, max_isa);
    set_bernoulli(c, b, d);
    check_dst_type(c.dist, d.dst.get_data_type());
    return c;
}

std::string rng_alg_dist_info(const rng_conf_t &c) {
    std::string dist = dist2str(c.dist);
    if (c.dist == dist_t::bernoulli)
        dist += c.runtime_p ? ":p=runtime"
                : c.p_tensor ? cat(":p=tensor:", dt2str(c.p_dt))
                             : cat(":p=", c.p);
    if (c.dist == dist_t::bernoulli)
        dist += c.method == bernoulli_method::bitsliced
                ? cat(":bitsliced:", c.bits)
                : cat(":", bernoulli_method2str(c.method));
    if (c.dist == dist_t::uniform) dist += cat(":", c.a, ":", c.b);
    if (c.dist == dist_t::normal) dist += cat(":", c.mean, ":", c.stddev);
    if (c.dist == dist_t::integers)
        dist += cat(":", c.low, ":",
                integers_value(c.low, c.range)); // high, mod 2^64
    if (c.dist == dist_t::exponential) dist += cat(":", c.scale);
    if (c.dist == dist_t::gumbel || c.dist == dist_t::laplace)
        dist += cat(":", c.loc, ":", c.scale);
    if (c.dist == dist_t::lognormal) dist += cat(":", c.mean, ":", c.stddev);
    if (c.dist == dist_t::permutation) dist += cat(":", c.n);
    if (c.dist == dist_t::truncated_normal)
        dist += cat(":", c.mean, ":", c.stddev, ":", c.a, ":", c.b);
    return cat("alg=", alg2str(c.alg), ",dist=", dist);
}

std::string rng_info(const rng_conf_t &c) {
    return cat(rng_alg_dist_info(c), ",dst=", c.dst.str(),
            c.name.empty() ? "" : ",name=", c.name);
}

rng_picked_t pick_rng_impl(const rng_conf_t &conf, const std::string &info) {
    return pick_impl(rng_impl_list(), conf, info);
}

} // namespace impl

struct rng::primitive_desc::impl_t {
    rng::desc desc;
    primitive_attr attr;
    impl::rng_conf_t conf;
    const impl::rng_impl_t *chosen = nullptr;
    // Made with the choice (its JIT code generated); the primitives share
    // it.
    std::shared_ptr<const impl::rng_kernel_t> kernel;
    std::string info;
    // A window runs its rows with row kernels of the chosen entry.
    impl::rng_window_t window;
};

rng::primitive_desc::primitive_desc(
        const desc &adesc, const primitive_attr &attr)
    : impl_(std::make_shared<impl_t>()) {
    impl::verbose_errors("rng::primitive_desc", [&] {
        const double t0 = impl::now_ms();
        impl_->desc = adesc;
        impl_->attr = attr;
        impl_->conf = impl::make_rng_conf(adesc, attr);
        impl_->window = impl::make_rng_window(adesc);
        impl_->info = impl::rng_info(impl_->conf);
        const impl::rng_window_t &w = impl_->window;
        if (w.active)
            impl_->info += cat(",window=", impl::dims2str(adesc.global_dims),
                    "@", impl::dims2str(w.origin));
        const impl::rng_picked_t picked
                = impl::pick_rng_window_impl(w, impl_->conf, impl_->info);
        impl_->chosen = picked.entry;
        impl_->kernel = picked.kernel;
        impl::verbose_print(impl::verbose_t::dispatch, "create",
                cat(impl_->chosen->name, ",", impl_->info, ",",
                        impl::now_ms() - t0, "ms"));
    });
}

const char *rng::primitive_desc::impl_name() const {
    return impl::checked(impl_).chosen->name;
}

const rng::desc &rng::primitive_desc::get_desc() const {
    return impl::checked(impl_).desc;
}

const primitive_attr &rng::primitive_desc::get_attr() const {
    return impl::checked(impl_).attr;
}

std::string rng::primitive_desc::info() const {
    return impl::checked(impl_).info;
}

// --- primitive ------------------------------------------------------------

struct rng::impl_t {
    std::shared_ptr<const impl::rng_kernel_t> kernel;
};

rng::rng(const primitive_desc &pd) : pd_(pd) {
    impl::verbose_errors("rng", [&] {
        if (!pd.impl())
            fail(status::invalid_arguments, "empty primitive descriptor");
        auto p = std::make_shared<impl_t>();
        // The descriptor made the kernel when it chose it.
        p->kernel = pd.impl()->kernel;
        if (!p->kernel)
            fail(status::runtime_error,
                    cat("could not create ", pd.impl()->chosen->name));
        impl_ = p;
    });
}

void rng::execute(const stream &strm,
        const std::unordered_map<int, memory> &args) const {
    impl::verbose_errors("rng::execute", [&] {
        if (!impl_) fail(status::invalid_arguments, "empty rng primitive");
        const double t0 = impl::now_ms();
        const rng::desc &d = pd_.get_desc();
        const impl::rng_conf_t &c = pd_.impl()->conf;

        const memory &dst = impl::tensor_arg(args, RNDNN_ARG_DST, "dst", d.dst);

        const impl::rng_window_t &w = pd_.impl()->window;
        impl::rng_arg_spec_t spec(d, w.active ? w.global_nelems : c.nelems);
        spec.p_arg = d.runtime_p ? RNDNN_ARG_P : 0;
        if (c.p_tensor) spec.p_tensor = &d.p_tensor;
        impl::rng_args_t a = impl::read_rng_args(spec, args);
        impl::rng_run_t &run = a.run;
        if (!d.runtime_p) run.p = c.p;
        run.dst = dst.get_data_handle();
        run.nthr = strm.get_nthreads();
        int64_t *next = a.next_offset;
        // 4 words an element: word 4 g must stay below 2^64.
        if (c.dist == impl::dist_t::integers
                && impl::integers_words(c.range) == 4
                && static_cast<uint64_t>(run.offset + spec.nelems)
                        > (uint64_t(1) << 62))
            fail(status::invalid_arguments,
                    cat("offset=", run.offset, " plus ", spec.nelems,
                            " elements passes 2^62, the elements of integers "
                            "with high - low > 2^32 (4 words an element)"));

        // permutation: every element's g = offset + its global index
        // must lie in [0, n).
        if (c.dist == impl::dist_t::permutation
                && static_cast<uint64_t>(run.offset + spec.nelems) > c.n)
            fail(status::invalid_arguments,
                    cat("offset=", run.offset, " plus ", spec.nelems,
                            " elements passes n=", c.n,
                            ": permutation elements are g in [0, n), g = "
                            "offset + the global index"));

        impl_->kernel->execute(run);
        if (next) *next = run.offset + spec.nelems;

        if (impl::verbose_on(impl::verbose_t::profile))
            impl::verbose_print(impl::verbose_t::profile, "exec",
                    cat(pd_.impl_name(), ",", pd_.info(), ",nthr=", run.nthr, ",",
                            impl::now_ms() - t0, "ms"));
    });
}

} // namespace rndnn
