/// @file
/// The RNG primitive: writes raw words, Bernoulli values or masks, uniform
/// or normal values into a tensor. Semantics: docs/semantics.md.
#ifndef RNDNN_RNG_HPP
#define RNDNN_RNG_HPP

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "rndnn/common.hpp"
#include "rndnn/memory.hpp"

namespace rndnn {

/// Word generators. Each defines a 32-bit word stream W(seed, stream, g)
/// over the global element index g = offset + logical row-major index.
enum class rng_alg {
    philox4x32_10, ///< default; cuRAND/MKL layout, counter {g/4, stream}
    philox4x32_10_onednn, ///< oneDNN dropout layout, counter {stream, g&~3}
    threefry4x32_20, ///< counter as philox4x32_10, key {seed, 0}
    mcg31m1, ///< x_g = s * a^g mod (2^31 - 1); 31-bit words
    mt19937, ///< output g of std::mt19937 (jump-ahead, no walk)
    multfly, ///< Multfly with a named key (rng::desc::name)
};
/// @returns the name of @p alg ("philox4x32_10", ...).
const char *alg2str(rng_alg alg);
/// @returns the algorithm named @p name.
/// @throws error (invalid_arguments) naming @p name if it names none.
rng_alg str2alg(const std::string &name);

/// How a Bernoulli decision is drawn from words.
enum class bernoulli_method {
    /// 1 iff W < ceil(p * 2^32) (mcg31m1: W < p * m); one word an element.
    threshold32,
    /// p rounded to a multiple of 2^-b; 32 elements share b words.
    bitsliced,
};

/// Post-ops. The RNG takes distribution post-ops (bernoulli, uniform,
/// normal): it writes raw u32 words unless its attributes hold exactly one.
/// The binary primitive takes linear post-ops.
class post_ops {
public:
    enum class kind { bernoulli, uniform, normal, linear };
    struct entry {
        kind k;
        double p = 0.5; ///< bernoulli: probability of 1, in [0, 1]
        bernoulli_method method = bernoulli_method::threshold32;
        int bits = 1; ///< bitsliced: b in [1, 32]
        float a = 0.f, b = 1.f; ///< uniform: [a, b], b only by rounding
        float mean = 0.f, stddev = 1.f; ///< normal
        float alpha = 1.f, beta = 0.f; ///< linear
        bool operator==(const entry &o) const;
    };

    /// Bernoulli(p): 1 with probability @p p. Checked at primitive
    /// creation: p in [0, 1] (unless given at execution), bits in [1, 32].
    void append_bernoulli(double p,
            bernoulli_method method = bernoulli_method::threshold32,
            int bits = 1);
    /// Uniform on [a, b], b only by rounding (docs/semantics.md): dst =
    /// fma(u, b - a, a) in f32, u in [0, 1), rounded once more to bf16/f16.
    /// Checked at creation: a, b and b - a finite, a <= b.
    void append_uniform(float a, float b);
    /// Normal(mean, stddev) by Box-Muller. Checked at creation: finite,
    /// stddev >= 0.
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
class primitive_attr {
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

/// How scalar runtime arguments (seed, offset, stream, p) are passed.
enum class scalar_kind {
    host, ///< memory::scalar(value)
    memory, ///< a one-element memory the caller may update in place
};

/// The RNG primitive.
class rng {
public:
    /// The problem: algorithm, destination and which runtime arguments
    /// execute() takes. A plain value.
    struct desc {
        desc() = default;
        desc(rng_alg aalg, const memory::desc &adst) : alg(aalg), dst(adst) {}

        rng_alg alg = rng_alg::philox4x32_10;
        /// Destination. Types: u32 for raw words; bit (default), u8, s32 or
        /// f32 for bernoulli; f32, bf16 or f16 for uniform and normal.
        memory::desc dst;
        /// Type of RNDNN_ARG_SEED: s64 or s32 (sign-extended).
        data_type seed_dt = data_type::s64;
        /// execute() takes RNDNN_ARG_OFFSET (s64 >= 0); else offset = 0.
        bool with_offset = false;
        /// execute() takes the Bernoulli p as RNDNN_ARG_P (f32).
        bool runtime_p = false;
        /// execute() writes offset + nelems to RNDNN_ARG_NEXT_OFFSET.
        bool with_next_offset = false;
        /// How seed, offset, stream and p arrive.
        scalar_kind scalars = scalar_kind::host;
        /// multfly only: the key name, at most 32 bytes.
        std::string name;

        bool operator==(const desc &o) const;
    };

    /// Validates the problem and picks the best implementation.
    class primitive_desc {
    public:
        primitive_desc() = default;
        /// @throws error (invalid_arguments) naming the bad value: a dst
        ///     type the distribution cannot write, p outside [0, 1], b
        ///     outside [1, 32], bitsliced with mcg31m1, a name longer than
        ///     32 bytes or given to another algorithm, more than one
        ///     post-op, a seed type other than s32/s64...
        /// @throws error (unimplemented) if no implementation applies.
        primitive_desc(const desc &adesc,
                const primitive_attr &attr = primitive_attr());

        /// @returns the chosen implementation, e.g. "ref:any".
        const char *impl_name() const;
        const desc &get_desc() const;
        const primitive_attr &get_attr() const;
        const memory::desc &dst_desc() const { return get_desc().dst; }
        /// @returns the problem as one line, e.g.
        ///     "alg=philox4x32_10,dist=bernoulli:0.5:threshold32,dst=bit:64".
        std::string info() const;

        struct impl_t;
        const std::shared_ptr<impl_t> &impl() const { return impl_; }

    private:
        std::shared_ptr<impl_t> impl_;
    };

    rng() = default;
    /// Creates the primitive (and, later, its JIT code) once; immutable and
    /// safe to execute from several threads at once.
    explicit rng(const primitive_desc &pd);

    /// Generates into RNDNN_ARG_DST (its desc must equal pd's dst).
    /// Arguments: RNDNN_ARG_SEED (required), RNDNN_ARG_OFFSET (iff
    /// with_offset), RNDNN_ARG_STREAM (optional, default 0), RNDNN_ARG_P
    /// (iff runtime_p), RNDNN_ARG_NEXT_OFFSET (iff with_next_offset).
    /// @throws error (invalid_arguments) naming the argument if one is
    ///     missing, of the wrong type or kind, offset < 0, offset +
    ///     nelems > 2^63 - 1, or a runtime p outside [0, 1]; nothing is
    ///     written then.
    void execute(const stream &strm,
            const std::unordered_map<int, memory> &args) const;

    const primitive_desc &get_primitive_desc() const { return pd_; }

private:
    struct impl_t;
    primitive_desc pd_;
    std::shared_ptr<const impl_t> impl_;
};

} // namespace rndnn

#endif
