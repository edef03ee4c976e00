/// @file
/// The dropout primitive: RNG mask -> multiply -> scale, forward and
/// backward, fused into one pass or chained (rng, binary, oneDNN eltwise).
/// Semantics and the memory each mode costs: docs/dropout.md.
#ifndef RNDNN_DROPOUT_HPP
#define RNDNN_DROPOUT_HPP

#include <cstddef>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "rndnn/attr.hpp"
#include "rndnn/common.hpp"
#include "rndnn/enums.hpp"
#include "rndnn/memory.hpp"
#include "rndnn/rng.hpp"

namespace rndnn {

/// Dropout with rate r (the probability of dropping an element).
///
/// The keep mask is bernoulli(1 - r) of the RNG over the noise shape:
/// mask element m (row-major in the noise shape) uses the global element
/// index g = offset + m of the RNG's stream. Data element i is kept iff the
/// mask element it broadcasts from is 1. dst = keep ? src * scale : +0,
/// scale = 1 / (1 - r) rounded once to f32 (0 when r = 1), the product
/// computed in f32 and rounded once to the data type. bitsliced(b) with
/// b < 32 draws 1 - r rounded to a multiple of 2^-b, q, and scales by 1 / q
/// instead, so that E[dst] = src under every method (docs/semantics.md).
class RNDNN_API dropout {
public:
    /// The problem: the mask's draw (draw_desc: the RNG's algorithm and
    /// key name, the runtime arguments, the window) and the data. With a
    /// window, src and dst are the block at `origin` (empty: zeros) of a
    /// data tensor of dims `global_dims`, and the mask is the matching
    /// block of the global keep mask, so the blocks of any partition give
    /// the whole tensor's dropout; noise_shape is then the global tensor's
    /// (each dim equals the global one or is 1), and the mask's dims are
    /// the block's, with 1 where the noise shape has 1. next_offset is
    /// offset + the mask's elements (the global mask's in a window).
    struct RNDNN_API desc : draw_desc {
        prop_kind prop = prop_kind::forward_training;
        /// Forward: src and dst. Backward: diff_dst (as src) and diff_src
        /// (as dst). f32, bf16 or f16; the same dims and type; any layouts.
        /// In place (one memory for both) is allowed.
        memory::desc src, dst;
        /// Dims of the keep mask; each equals the data's dim or is 1
        /// (TensorFlow's noise_shape). Empty: the data's dims. See
        /// noise_shape_for_axes() for MXNet's axes.
        dims noise_shape;
        /// The mask memory, dims = the noise shape, type bit or u8 (0/1
        /// bytes), any layout. forward_training writes it; backward reads
        /// it. Empty (the default): forward writes no mask and backward
        /// recomputes it from seed, offset and stream.
        memory::desc mask;
        double rate = 0.5; ///< in [0, 1], unless runtime_rate
        /// execute() takes the rate as RNDNN_ARG_RATE (f32 in [0, 1]).
        bool runtime_rate = false;

        /// The mask's Bernoulli method (bitsliced rounds 1 - r to a
        /// multiple of 2^-bits; automatic is bitsliced(32) or, for
        /// mcg31m1, mt19937 and onednn_compat, threshold32).
        bernoulli_method method = bernoulli_method::automatic;
        int bits = 1;
        /// oneDNN's dropout attribute: needs philox4x32_10_onednn and
        /// threshold32 (or automatic, which then is threshold32); the mask
        /// is then drawn with bernoulli_method::onednn (method onednn
        /// itself is refused: this flag is how dropout names it). The
        /// rate is taken as f32 r; keep iff W > (2^32 - 1) * r in double;
        /// scale = 1.f / (1.f - r) in f32.
        bool onednn_compat = false;


        dropout_plan plan = dropout_plan::any;

        bool operator==(const desc &o) const;
    };

    /// @returns @p data with the dims in @p axes set to 1: MXNet's
    ///     variational dropout, where the mask is shared along those axes.
    /// @throws error (invalid_arguments) naming the axis if one is outside
    ///     [-ndims, ndims) (negative axes count from the end) or repeats.
    static dims noise_shape_for_axes(const dims &data, const std::vector<int> &axes);

    /// @returns the probability of a keep (a 1 of the mask) for the drop
    ///     rate @p rate in [0, 1]: 1 - rate in double; with @p
    ///     onednn_compat, oneDNN's, for bernoulli_method::onednn: the rate
    ///     rounded to f32 r, t = 2^32 - 1 - floor((2^32 - 1) * r) and
    ///     t / 2^32, exact, so that ~W < t iff W > (2^32 - 1) * r.
    /// @throws error (invalid_arguments) naming a rate outside [0, 1].
    static double keep_probability(double rate, bool onednn_compat);

    /// @returns the RNG's post-ops whose 1s are @p d's keep mask: one
    ///     Bernoulli of p = keep_probability(d.rate, d.onednn_compat), with
    ///     d's method and bits, or bernoulli_method::onednn under
    ///     onednn_compat. An RNG of d's alg and name over the noise shape
    ///     (a window of the global one where @p d has a window: its
    ///     global_dims and origin with 0 where the noise dim is 1), run
    ///     with d's seed, offset and stream, writes d's mask, bit for bit.
    /// @throws error (invalid_arguments) for a runtime rate, a rate outside
    ///     [0, 1], or onednn_compat without its algorithm and method.
    static post_ops keep_post_ops(const desc &d);

    class RNDNN_API primitive_desc {
    public:
        primitive_desc() = default;
        /// A descriptor equal to one made before (desc and attribute
        /// equal, each real number the same bits, the same process state)
        /// shares that one's implementation, kernels and JIT code: it is
        /// neither checked nor generated again (about 0.05 us instead of
        /// tens to hundreds; the 128 most recently used are kept, and
        /// get_desc() of both is then one object). Not with RNDNN_VERBOSE
        /// at check or above, where every creation prints its lines.
        /// @throws error (invalid_arguments) naming the bad value: a rate
        ///     outside [0, 1], a noise shape that does not fit the data
        ///     (naming both shapes), a mask whose dims differ from the noise
        ///     shape or whose type is not bit or u8, a mask in
        ///     forward_inference, src and dst that differ in dims or type,
        ///     a data type other than f32, bf16, f16, onednn_compat without
        ///     philox4x32_10_onednn and threshold32 (or automatic), a rate
        ///     below 1 that bitsliced(b) rounds to keeping nothing (naming
        ///     the rate, the method and the nearest rates it draws), or any
        ///     RNG error.
        /// @throws error (unimplemented) if plan is fused and the fused
        ///     kernel does not apply; the message says why.
        primitive_desc(const desc &adesc,
                const primitive_attr &attr = primitive_attr());

        /// @returns the plan and its kernels, e.g. "fused:jit:avx2" or
        ///     "chain:jit:avx2+jit:avx2+onednn:jit:avx2".
        const char *impl_name() const;
        /// @returns the plan taken (fused or chain; never any).
        dropout_plan plan() const;
        const desc &get_desc() const;
        const primitive_attr &get_attr() const;
        std::string info() const;
        /// @returns the bytes the mask memory takes (0 without a mask).
        std::size_t mask_bytes() const;

        /// The chosen implementation's state: opaque, defined in the
        /// library.
        struct RNDNN_INTERNAL impl_t;

    private:
        /// Only the primitive created from this descriptor reads that
        /// state (its constructor and execute(), in the library).
        friend class dropout;
        const std::shared_ptr<impl_t> &impl() const { return impl_; }
        std::shared_ptr<impl_t> impl_;
    };

    dropout() = default;
    /// Creates the primitive, with the kernels (JIT code, oneDNN
    /// primitives) that the primitive descriptor made when it chose its
    /// plan: the primitives of one descriptor share them.
    explicit dropout(const primitive_desc &pd);

    /// Arguments:
    /// - forward: RNDNN_ARG_SRC, RNDNN_ARG_DST (may be the same memory);
    ///   backward: RNDNN_ARG_DIFF_DST, RNDNN_ARG_DIFF_SRC;
    /// - RNDNN_ARG_MASK iff the desc has a mask;
    /// - forward_training and backward: RNDNN_ARG_SEED, RNDNN_ARG_OFFSET
    ///   (iff with_offset), RNDNN_ARG_STREAM (optional),
    ///   RNDNN_ARG_RATE (iff runtime_rate), RNDNN_ARG_NEXT_OFFSET (iff
    ///   with_next_offset). Backward with a stored mask reads no seed or
    ///   stream, but needs the rate for the scale; it reads the offset only
    ///   to write offset + mask elements to RNDNN_ARG_NEXT_OFFSET when
    ///   with_next_offset (0 + mask elements without with_offset).
    /// @throws error (invalid_arguments) naming the argument if one is
    ///     missing, does not match the desc, or is out of range (a runtime
    ///     rate as at creation); nothing is written then.
    /// @throws error (out_of_memory) if a kernel's scratch cannot be
    ///     allocated (as every public call turns std::bad_alloc; common.hpp).
    void execute(const stream &strm,
            const std::unordered_map<int, memory> &args) const;

    const primitive_desc &get_primitive_desc() const { return pd_; }

private:
    struct RNDNN_INTERNAL impl_t;
    primitive_desc pd_;
    std::shared_ptr<const impl_t> impl_;
};

} // namespace rndnn

#endif
