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
#include "src/pd_cache.hpp"
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
        case impl::dist_t::rayleigh: return "rayleigh";
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
// messages name them) whose extreme values lo and hi (as the kernels
// compute them: in f32, in f64 for an f64 dst) are not finite, or round to
// infinity in dst's type.
void check_fits(const std::string &what, double lo, double hi,
        const memory::desc &dst) {
    const data_type t = dst.get_data_type();
    const auto finite = [t](double v) {
        if (t == data_type::bf16)
            v = impl::bf16_to_f32(impl::f32_to_bf16(static_cast<float>(v)));
        else if (t == data_type::f16)
            v = impl::f16_to_f32(impl::f32_to_f16(static_cast<float>(v)));
        return std::isfinite(v);
    };
    for (double v : {lo, hi}) {
        if (finite(v)) continue;
        fail(status::invalid_arguments,
                cat(what, " gives values up to ", v, " in magnitude, which ",
                        dt2str(t), " cannot hold (they would be infinite)"));
    }
}

// The real parameter @p v of a value post-op (`what` names it: "uniform
// a") as the kernels for @p dst's type use it: as given for f64, else
// rounded to f32 (to nearest), what the float signatures gave. NaN and
// infinities pass through (the post-op's checks name them).
// @throws error (invalid_arguments) where a finite v is not a finite f32.
double dst_param(const char *what, double v, const memory::desc &dst) {
    const data_type t = dst.get_data_type();
    if (t == data_type::f64 || !std::isfinite(v)) return v;
    // Rounding to nearest overflows from FLT_MAX + half its ulp (2^103) on.
    if (std::fabs(v) >= 0x1.ffffffp127)
        fail(status::invalid_arguments,
                cat(what, "=", v, " is not a finite f32 (a ", dt2str(t),
                        " dst computes in f32; an f64 dst takes it)"));
    return static_cast<float>(v);
}

// A real parameter @p v of rng_conf_t (an f32 value unless @p t is f64) in
// the fewest digits that read back as it in the type the kernels compute
// in: 0.1 given for an f32 dst is "0.1", not f32(0.1)'s 17 digits.
std::string param_str(double v, data_type t) {
    return t == data_type::f64 ? cat(v) : cat(static_cast<float>(v));
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
    // The value post-ops compute in f32, or in f64 for an f64 dst, with
    // c's parameters (f32 values unless f64: f32() of them is exact).
    const bool f64 = c.dst.get_data_type() == data_type::f64;
    const char *calc = f64 ? "f64" : "f32";
    const auto f32 = [](double v) { return static_cast<float>(v); };
    const auto str = [&c](double v) {
        return param_str(v, c.dst.get_data_type());
    };
    // Box-Muller's largest |z|, which z reaches exactly (u1 = 2^-24, f64:
    // 2^-53; angle 0 or pi), and mean + stddev * z as the kernels compute
    // it: every normal value lies in [normal_at(-r_max), normal_at(r_max)].
    const double r_max = f64 ? std::sqrt(impl::ln_approx_f64(0x1p-53) * -2.0)
                             : std::sqrt(impl::ln_approx(0x1p-24f) * -2.f);
    const auto normal_at = [&](double z) {
        return f64 ? c.mean + c.stddev * z
                   : f32(c.mean) + f32(c.stddev) * f32(z);
    };
    if (po.len() == 1) {
        const post_ops::entry &e = po.get(0);
        switch (e.k) {
            case post_ops::kind::bernoulli:
                set_bernoulli(c, {e.p, e.method, e.bits}, d);
                break;
            case post_ops::kind::uniform: {
                c.dist = impl::dist_t::uniform;
                c.a = dst_param("uniform a", e.a, c.dst);
                c.b = dst_param("uniform b", e.b, c.dst);
                const std::string what
                        = cat("uniform range [", str(c.a), ", ", str(c.b), ")");
                if (!std::isfinite(c.a) || !std::isfinite(c.b) || c.a > c.b)
                    fail(status::invalid_arguments,
                            cat(what, " is not a finite range with a <= b"));
                const double width = f64 ? c.b - c.a : f32(c.b) - f32(c.a);
                if (!std::isfinite(width))
                    fail(status::invalid_arguments,
                            cat(what, ": its width b - a overflows ", calc));
                // The values run from a to the largest u's (1 - 2^-24,
                // f64: 1 - 2^-53).
                const double top = f64
                        ? impl::uniform_value_f64(
                                (uint64_t(1) << 53) - 1, c.a, width)
                        : impl::uniform_value(~0u, 8, f32(c.a), f32(width));
                check_fits(what, c.a, top, c.dst);
                break;
            }
            case post_ops::kind::normal: {
                c.dist = impl::dist_t::normal;
                c.mean = dst_param("normal mean", e.mean, c.dst);
                c.stddev = dst_param("normal stddev", e.stddev, c.dst);
                const std::string what = cat("normal mean=", str(c.mean),
                        " stddev=", str(c.stddev));
                if (!std::isfinite(c.mean) || !std::isfinite(c.stddev)
                        || c.stddev < 0.0)
                    fail(status::invalid_arguments,
                            cat(what, " is not finite with stddev >= 0"));
                check_fits(what, normal_at(-r_max), normal_at(r_max), c.dst);
                break;
            }
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
                c.scale = dst_param("exponential scale", e.scale, c.dst);
                if (!std::isfinite(c.scale) || c.scale < 0.0)
                    fail(status::invalid_arguments,
                            cat("exponential scale=", str(c.scale),
                                    " is not finite and >= 0"));
                // The largest value comes at u = 2^-24 (-ln u = 16.64;
                // f64: u = 2^-53, 36.74).
                check_fits(cat("exponential scale=", str(c.scale)), 0.0,
                        f64 ? impl::exponential_value_f64(0, c.scale)
                            : impl::exponential_value(0, 8, f32(c.scale)),
                        c.dst);
                break;
            case post_ops::kind::gumbel: {
                c.dist = impl::dist_t::gumbel;
                c.loc = dst_param("gumbel loc", e.loc, c.dst);
                c.scale = dst_param("gumbel scale", e.scale, c.dst);
                const std::string what = cat(
                        "gumbel loc=", str(c.loc), " scale=", str(c.scale));
                if (!std::isfinite(c.loc) || !std::isfinite(c.scale)
                        || c.scale < 0.0)
                    fail(status::invalid_arguments,
                            cat(what, " is not finite with scale >= 0"));
                // The extremes come at the ends of u (the largest at u =
                // 1): every value lies between these two.
                check_fits(what,
                        f64 ? impl::gumbel_value_f64(
                                (uint64_t(1) << 53) - 1, c.loc, c.scale)
                            : impl::gumbel_value(
                                    ~0u, 8, f32(c.loc), f32(c.scale)),
                        f64 ? impl::gumbel_value_f64(0, c.loc, c.scale)
                            : impl::gumbel_value(
                                    0, 8, f32(c.loc), f32(c.scale)),
                        c.dst);
                break;
            }
            case post_ops::kind::laplace: {
                c.dist = impl::dist_t::laplace;
                c.loc = dst_param("laplace loc", e.loc, c.dst);
                c.scale = dst_param("laplace scale", e.scale, c.dst);
                const std::string what = cat(
                        "laplace loc=", str(c.loc), " scale=", str(c.scale));
                if (!std::isfinite(c.loc) || !std::isfinite(c.scale)
                        || c.scale < 0.0)
                    fail(status::invalid_arguments,
                            cat(what, " is not finite with scale >= 0"));
                // The extremes: loc -+ the largest exponential value (u =
                // 2^-24, f64: 2^-53; word 0 with bit 0 set or clear).
                check_fits(what,
                        f64 ? impl::laplace_value_f64(0, 1, c.loc, c.scale)
                            : impl::laplace_value(
                                    1, 8, f32(c.loc), f32(c.scale)),
                        f64 ? impl::laplace_value_f64(0, 0, c.loc, c.scale)
                            : impl::laplace_value(
                                    0, 8, f32(c.loc), f32(c.scale)),
                        c.dst);
                break;
            }
            case post_ops::kind::rayleigh: {
                c.dist = impl::dist_t::rayleigh;
                c.scale = dst_param("rayleigh scale", e.scale, c.dst);
                const std::string what = cat("rayleigh scale=", str(c.scale));
                if (!std::isfinite(c.scale) || c.scale < 0.0)
                    fail(status::invalid_arguments,
                            cat(what, " is not finite and >= 0"));
                // The largest value comes at u = 2^-24 (f64: 2^-53), as
                // exponential's.
                check_fits(what, 0.0,
                        f64 ? impl::rayleigh_value_f64(0, c.scale)
                            : impl::rayleigh_value(0, 8, f32(c.scale)),
                        c.dst);
                break;
            }
            case post_ops::kind::lognormal: {
                c.dist = impl::dist_t::lognormal;
                c.mean = dst_param("lognormal mean", e.mean, c.dst);
                c.stddev = dst_param("lognormal sigma", e.stddev, c.dst);
                const std::string what = cat("lognormal mean=", str(c.mean),
                        " sigma=", str(c.stddev));
                if (!std::isfinite(c.mean) || !std::isfinite(c.stddev)
                        || c.stddev < 0.0)
                    fail(status::invalid_arguments,
                            cat(what, " is not finite with sigma >= 0"));
                // The exponent is normal(mean, sigma)'s value, at most
                // mean + sigma * r_max (as normal's check); exp_approx is
                // not monotonic, but within 1.2 ulp of exp, so no value
                // passes exp_approx there times 1 + 2^-21 (f64: 2^-50).
                check_fits(what, 0.0,
                        f64 ? impl::exp_approx_f64(normal_at(r_max))
                                        * (1.0 + 0x1p-50)
                            : impl::exp_approx(f32(normal_at(r_max)))
                                        * (1.f + 0x1p-21f),
                        c.dst);
                break;
            }
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
                c.mean = dst_param("truncated_normal mean", e.mean, c.dst);
                c.stddev = dst_param(
                        "truncated_normal stddev", e.stddev, c.dst);
                c.a = dst_param("truncated_normal a", e.a, c.dst);
                c.b = dst_param("truncated_normal b", e.b, c.dst);
                const std::string what = cat("truncated_normal mean=",
                        str(c.mean), " stddev=", str(c.stddev), " a=",
                        str(c.a), " b=", str(c.b));
                if (!std::isfinite(c.mean) || !std::isfinite(c.stddev)
                        || !std::isfinite(c.a) || !std::isfinite(c.b)
                        || !(c.stddev > 0.0) || !(c.a < c.b))
                    fail(status::invalid_arguments,
                            cat(what,
                                    ": needs finite values, stddev > 0 and "
                                    "a < b"));
                const double alpha = (c.a - c.mean) / c.stddev;
                const double beta = (c.b - c.mean) / c.stddev;
                if (!(alpha < impl::truncnorm_z_limit)
                        || !(beta > -impl::truncnorm_z_limit))
                    fail(status::invalid_arguments,
                            cat(what, ": the interval lies ",
                                    impl::truncnorm_z_limit,
                                    " or more standard deviations from the "
                                    "mean ((a - mean) / stddev = ",
                                    alpha, ", (b - mean) / stddev = ", beta,
                                    "; needs alpha < 9 and beta > -9)"));
                if (f64) {
                    // Every f64 value in [a, b]: a and b themselves.
                    c.truncnorm64 = impl::truncnorm_params_f64(
                            c.mean, c.stddev, c.a, c.b);
                    break;
                }
                c.truncnorm = impl::truncnorm_params(f32(c.mean),
                        f32(c.stddev), f32(c.a), f32(c.b),
                        c.dst.get_data_type());
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
                        "lognormal, permutation, truncated_normal, laplace, "
                        "rayleigh), not linear");
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
    const auto p = [&c](double v) {
        return ":" + param_str(v, c.dst.get_data_type());
    };
    if (c.dist == dist_t::uniform) dist += p(c.a) + p(c.b);
    if (c.dist == dist_t::normal) dist += p(c.mean) + p(c.stddev);
    if (c.dist == dist_t::integers)
        dist += cat(":", c.low, ":",
                integers_value(c.low, c.range)); // high, mod 2^64
    if (c.dist == dist_t::exponential || c.dist == dist_t::rayleigh)
        dist += p(c.scale);
    if (c.dist == dist_t::gumbel || c.dist == dist_t::laplace)
        dist += p(c.loc) + p(c.scale);
    if (c.dist == dist_t::lognormal) dist += p(c.mean) + p(c.stddev);
    if (c.dist == dist_t::permutation) dist += cat(":", c.n);
    if (c.dist == dist_t::truncated_normal)
        dist += p(c.mean) + p(c.stddev) + p(c.a) + p(c.b);
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

namespace {

bool same_rng_desc(const rng::desc &a, const rng::desc &b) { return a == b; }

std::size_t hash_rng_desc(const rng::desc &d) {
    return impl::hash_md(static_cast<std::size_t>(d.alg) * 31
                    + (d.with_offset ? 2 : 0) + (d.runtime_p ? 1 : 0),
            d.dst);
}

using rng_pd_cache_t = impl::pd_cache_t<rng::desc, rng::primitive_desc::impl_t>;

rng_pd_cache_t &rng_pd_cache() {
    static rng_pd_cache_t cache(same_rng_desc, hash_rng_desc);
    return cache;
}

} // namespace

rng::primitive_desc::primitive_desc(
        const desc &adesc, const primitive_attr &attr) {
    impl::verbose_errors("rng::primitive_desc", [&] {
        const bool cached = impl::pd_cache_usable();
        if (cached && (impl_ = rng_pd_cache().find(adesc, attr))) return;
        const double t0 = impl::now_ms();
        impl_ = std::make_shared<impl_t>();
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
        if (cached) rng_pd_cache().insert(adesc, attr, impl_);
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
