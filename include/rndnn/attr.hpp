/// @file
/// Primitive attributes: post-ops (the RNG's distribution, the binary
/// primitive's linear steps), the ISA cap, and how scalar runtime
/// arguments are passed. Semantics: docs/semantics.md.
#ifndef RNDNN_ATTR_HPP
#define RNDNN_ATTR_HPP

#include <cstdint>
#include <string>
#include <vector>

#include "rndnn/common.hpp"
#include "rndnn/enums.hpp"

namespace rndnn {

/// Post-ops. The RNG takes distribution post-ops (bernoulli, uniform,
/// normal, integers, exponential, gumbel, lognormal, permutation,
/// truncated_normal, laplace, rayleigh): it
/// writes raw u32
/// words unless its attributes hold exactly one.
/// The binary primitive takes linear post-ops.
class RNDNN_API post_ops {
public:
    enum class kind {
        bernoulli,
        uniform,
        normal,
        linear,
        integers,
        exponential,
        gumbel,
        lognormal,
        permutation,
        truncated_normal,
        laplace,
        rayleigh,
    };
    struct RNDNN_API entry {
        kind k;
        double p = 0.5; ///< bernoulli: probability of 1, in [0, 1]
        bernoulli_method method = bernoulli_method::automatic;
        int bits = 1; ///< bitsliced: b in [1, 32]
        // The real parameters of the distributions below are doubles, used
        // as given for an f64 dst; for an f32, bf16 or f16 dst each is
        // first rounded to f32 (to nearest), the values a float gives.
        /// uniform: [a, b], b only by rounding; truncated_normal: its bounds
        double a = 0.0, b = 1.0;
        /// normal; lognormal: mean, sigma; truncated_normal
        double mean = 0.0, stddev = 1.0;
        /// exponential, rayleigh: scale; gumbel, laplace
        double loc = 0.0, scale = 1.0;
        float alpha = 1.f, beta = 0.f; ///< linear
        /// integers: [low, high), exact 64-bit bounds (never through a
        /// double).
        std::int64_t low = 0, high = 2;
        /// permutation: the permuted range [0, n), exact.
        std::int64_t n = 1;
        bool operator==(const entry &o) const;
    };

    /// The real parameters of uniform, normal, exponential, gumbel,
    /// lognormal and truncated_normal are doubles. An f64 dst uses them as
    /// given (its values are computed in f64); an f32, bf16 or f16 dst
    /// first rounds each to f32 (to nearest) and computes in f32, so a
    /// float argument gives the values it always gave. Checked at creation,
    /// besides each method's checks: for an f32, bf16 or f16 dst, a finite
    /// parameter that is not a finite f32 (1e39) is refused, naming it.
    ///
    /// Bernoulli(p): 1 with probability @p p. Checked at primitive
    /// creation: p in [0, 1] (unless given at execution), bits in [1, 32].
    void append_bernoulli(double p,
            bernoulli_method method = bernoulli_method::automatic,
            int bits = 1);
    /// Uniform on [a, b], b only by rounding (docs/semantics.md): dst =
    /// fma(u, b - a, a) in f32, u in [0, 1), rounded once more to bf16/f16
    /// (f64: in f64, u with 53 bits). Checked at creation: a, b and b - a
    /// finite (in f32; f64 for an f64 dst), a <= b, and both ends of the
    /// values finite in the dst type (f16: below 65520).
    void append_uniform(double a, double b);
    /// Normal(mean, stddev) by Box-Muller. Checked at creation: finite,
    /// stddev >= 0, and mean +- stddev * 5.768 (the largest |z|; f64:
    /// 8.572) finite in f32 and in the dst type.
    void append_normal(double mean, double stddev);
    /// Integers uniform on [low, high) by multiply-shift of 64 or 128
    /// random bits (docs/semantics.md: the bias bound, the words an
    /// element). Checked at creation: low < high, and both ends of the
    /// values in the dst type (u8: [0, 255]; s32: 32-bit; f32: magnitude
    /// at most 2^24, so that every value is exact).
    void append_integers(std::int64_t low, std::int64_t high);
    /// Exponential(scale), NumPy's exponential: x = -ln(u) * scale in f32
    /// (docs/semantics.md), u in (0, 1]; values in [0, 16.64 * scale]
    /// (f64: in f64, [0, 36.74 * scale]). Checked at creation: scale
    /// finite and >= 0, and the largest value finite in the dst type (f16:
    /// scale up to about 3938).
    void append_exponential(double scale);
    /// Gumbel(loc, scale), NumPy's gumbel: x = loc - scale * ln(-ln u) in
    /// f32, u in (0, 1], -ln u at least 2^-25; values in [loc - 2.81
    /// scale, loc + 17.33 scale] (f64: in f64, [loc - 3.60 scale, loc +
    /// 37.43 scale]). Checked at creation: finite, scale >= 0, and both
    /// ends finite in f32 (f64 for an f64 dst) and in the dst type.
    void append_gumbel(double loc, double scale);
    /// Laplace(loc, scale), NumPy's laplace: a random sign times
    /// exponential(scale): t = -ln(u) * scale in f32 from the word's top 24
    /// bits as exponential's, the sign from its bit 0, x = loc + t or loc -
    /// t (docs/semantics.md); values in [loc - 16.64 scale, loc + 16.64
    /// scale] (f64: in f64, 36.74 scale), symmetric about loc. Checked at
    /// creation: loc and scale finite, scale >= 0, and both ends finite in
    /// f32 (f64 for an f64 dst) and in the dst type.
    void append_laplace(double loc, double scale);
    /// Rayleigh(scale), NumPy's rayleigh: scale * sqrt(2 E), E =
    /// exponential(1): e = -ln(u) in f32 from the word's top 24 bits as
    /// exponential's, x = sqrt(e * 2) * scale in f32 (docs/semantics.md);
    /// values in [0, 5.768 scale] (sqrt(2 * 16.64); f64: in f64, [0, 8.572
    /// scale]). Checked at creation: scale finite and >= 0, and the
    /// largest value finite in f32 (f64 for an f64 dst) and in the dst
    /// type (f16: scale up to 11359).
    void append_rayleigh(double scale);
    /// Log-normal(mean, sigma), NumPy's lognormal: x = exp(t) in f32 with t
    /// the value normal(mean, sigma) gives the element (the same words,
    /// the same bits). Checked at creation: finite, sigma >= 0, and the
    /// largest value exp(mean + 5.768 sigma) (f64: in f64, exp(mean +
    /// 8.572 sigma)) finite in the dst type.
    void append_lognormal(double mean, double sigma);
    /// Permutation of [0, n): element g (offset + its global index) is
    /// pi(g), pi a bijection of [0, n) keyed by the seed and stream (a
    /// Feistel network over Philox4x32-10 with cycle walking,
    /// docs/semantics.md), whatever the algorithm. Checked at creation:
    /// n >= 1, and n <= 2^31 for s32; at execution: every g < n.
    void append_permutation(std::int64_t n);
    /// Truncated normal: normal(mean, stddev) conditioned on [a, b], a and
    /// b absolute bounds (torch.nn.init.trunc_normal_'s convention, not
    /// scipy's standardised ones), by inversion of one word an element:
    /// x = mean + stddev * Phi^-1(u') in f32, u' uniform on [Phi(alpha),
    /// Phi(beta)], alpha = (a - mean) / stddev, beta = (b - mean) / stddev
    /// (docs/semantics.md: the formula and its measured error). Every
    /// value lies in [a, b] after rounding to the dst type (values are
    /// clamped to a and b rounded inward to it). Checked at creation: all
    /// finite, stddev > 0, a < b, alpha < 9 and beta > -9 (the interval
    /// reaches to within 9 standard deviations of the mean; a far bound
    /// may lie anywhere, beyond 12 it counts as infinite), and some value
    /// of the dst type in [a, b].
    void append_truncated_normal(
            double mean, double stddev, double a, double b);
    /// The post-op of the distribution named @p name (distributions()):
    /// @p values are its real parameters and @p integers its integer ones
    /// (distribution_info::param::integer), each in the row's order; @p
    /// method and @p bits are bernoulli's; "bits" appends nothing. The one
    /// way the CLI and the Python module build a distribution's post-op.
    /// @throws error (invalid_arguments) naming an unknown distribution or
    ///     a count of values or integers other than the row's.
    void append_distribution(const std::string &name,
            const std::vector<double> &values,
            bernoulli_method method = bernoulli_method::automatic,
            int bits = 1, const std::vector<std::int64_t> &integers = {});
    /// Linear: x = fma(alpha, x, beta) in f32 (oneDNN's eltwise_linear,
    /// rounded once). Checked at creation: alpha and beta finite.
    void append_linear(float alpha, float beta);

    int len() const { return static_cast<int>(entries_.size()); }
    const entry &get(int index) const;
    bool operator==(const post_ops &o) const { return entries_ == o.entries_; }

private:
    // Appends an entry of kind @p k (every other field its default).
    // @returns it, for the caller to set its parameters.
    entry &push(kind k);

    std::vector<entry> entries_;
};

/// A distribution the RNG draws (docs/semantics.md defines each): one row
/// of distributions(), the table from which the RNG's checks of dst types,
/// the CLI's --dist (its names, parameters and default dst type), the
/// Python module and the docs' tables take them.
struct RNDNN_API distribution_info {
    /// A parameter: its name (the CLI's option, e.g. "p" for --p), its
    /// default, what it is and the values it takes, in words; integer:
    /// an exact s64 (integers' low and high), parsed and passed as one.
    struct param {
        const char *name;
        double default_value;
        const char *what;
        const char *range;
        bool integer = false;
    };
    const char *name; ///< "bits", "bernoulli", "uniform", "normal", ...
    /// The parameters, in the post-op's order (bernoulli's method and
    /// bits are apart).
    std::vector<param> params;
    /// The dst types it writes; the first is the default.
    std::vector<data_type> dst_types;
    /// The engine words a value takes: a fixed count per element (or per
    /// group of elements), so that any window draws exactly the words of
    /// its elements; permutation draws none (each value is a function of
    /// the seed, stream, n and its index alone, so windows are exact too).
    const char *words;
};
/// @returns every distribution, in the order messages list them.
RNDNN_API const std::vector<distribution_info> &distributions();
/// @returns the row named @p name.
/// @throws error (invalid_arguments) "unknown distribution 'x' (expected
///     bits, bernoulli, uniform, normal, integers, exponential, gumbel,
///     lognormal, permutation, truncated_normal, laplace or rayleigh)".
RNDNN_API const distribution_info &find_distribution(const std::string &name);

/// Primitive attributes: the distribution post-op and an ISA cap.
class RNDNN_API primitive_attr {
public:
    // Out of line: GCC 12 warns (-Wnonnull) in an out-of-line copy of
    // the entries' vector that an inline one may instantiate.
    void set_post_ops(const post_ops &po);
    const post_ops &get_post_ops() const { return post_ops_; }
    /// Caps the ISA tier of this primitive's implementation below
    /// get_max_cpu_isa() (which still applies): cpu_isa::none selects the
    /// reference kernel. The default, cpu_isa::all, caps nothing. Results
    /// are identical at every tier; this is for testing and benchmarks.
    void set_max_cpu_isa(cpu_isa isa) { max_isa_ = isa; }
    cpu_isa get_max_cpu_isa() const { return max_isa_; }
    bool operator==(const primitive_attr &o) const {
        return post_ops_ == o.post_ops_ && max_isa_ == o.max_isa_;
    }

private:
    post_ops post_ops_;
    cpu_isa max_isa_ = cpu_isa::all;
};

} // namespace rndnn

#endif
