/// @file
/// Primitive attributes: post-ops (the RNG's distribution, the binary
/// primitive's linear steps), the ISA cap, and how scalar runtime
/// arguments are passed. Semantics: docs/semantics.md.
#ifndef RNDNN_ATTR_HPP
#define RNDNN_ATTR_HPP

#include <vector>

#include "rndnn/common.hpp"
#include "rndnn/enums.hpp"

namespace rndnn {

/// Post-ops. The RNG takes distribution post-ops (bernoulli, uniform,
/// normal): it writes raw u32 words unless its attributes hold exactly one.
/// The binary primitive takes linear post-ops.
class RNDNN_API post_ops {
public:
    enum class kind { bernoulli, uniform, normal, linear };
    struct RNDNN_API entry {
        kind k;
        double p = 0.5; ///< bernoulli: probability of 1, in [0, 1]
        bernoulli_method method = bernoulli_method::automatic;
        int bits = 1; ///< bitsliced: b in [1, 32]
        float a = 0.f, b = 1.f; ///< uniform: [a, b], b only by rounding
        float mean = 0.f, stddev = 1.f; ///< normal
        float alpha = 1.f, beta = 0.f; ///< linear
        bool operator==(const entry &o) const;
    };

    /// Bernoulli(p): 1 with probability @p p. Checked at primitive
    /// creation: p in [0, 1] (unless given at execution), bits in [1, 32].
    void append_bernoulli(double p,
            bernoulli_method method = bernoulli_method::automatic,
            int bits = 1);
    /// Uniform on [a, b], b only by rounding (docs/semantics.md): dst =
    /// fma(u, b - a, a) in f32, u in [0, 1), rounded once more to bf16/f16.
    /// Checked at creation: a, b and b - a finite, a <= b, and both ends
    /// of the values finite in the dst type (f16: below 65520).
    void append_uniform(float a, float b);
    /// Normal(mean, stddev) by Box-Muller. Checked at creation: finite,
    /// stddev >= 0, and mean +- stddev * 5.768 (the largest |z|) finite in
    /// f32 and in the dst type.
    void append_normal(float mean, float stddev);
    /// Linear: x = fma(alpha, x, beta) in f32 (oneDNN's eltwise_linear,
    /// rounded once). Checked at creation: alpha and beta finite.
    void append_linear(float alpha, float beta);

    int len() const { return static_cast<int>(entries_.size()); }
    const entry &get(int index) const;
    bool operator==(const post_ops &o) const { return entries_ == o.entries_; }

private:
    std::vector<entry> entries_;
};

/// Primitive attributes: the distribution post-op and an ISA cap.
class RNDNN_API primitive_attr {
public:
    void set_post_ops(const post_ops &po) { post_ops_ = po; }
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
