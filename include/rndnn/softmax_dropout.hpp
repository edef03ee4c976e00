/// @file
/// The fused softmax-dropout of attention: y = dropout(softmax(x)) along
/// the last dim in one pass over each row, forward and backward (the
/// probabilities rebuilt from the scores and two floats a row). Semantics:
/// docs/attention.md, "The fused softmax-dropout".
#ifndef RNDNN_SOFTMAX_DROPOUT_HPP
#define RNDNN_SOFTMAX_DROPOUT_HPP

#include <cstddef>
#include <memory>
#include <string>
#include <unordered_map>

#include "rndnn/common.hpp"
#include "rndnn/dropout.hpp"
#include "rndnn/enums.hpp"
#include "rndnn/memory.hpp"
#include "rndnn/rng.hpp"

namespace rndnn {

/// Softmax along the last dim, then dropout with rate r, fused.
///
/// Forward, for each row x of n scores of which the first len count (n;
/// causal: len = min(i + 1, n), i the row's index along the dim before
/// the last, in the global tensor with a window), in f32:
///   m = max_{j<len} x_j, inv = 1 / sum_{j<len} exp(x_j - m),
///   P_j = exp(x_j - m) * inv for j < len, +0 after,
///   y_j = keep_j ? P_j * scale : +0, rounded once to the data type,
/// and, with stats, the row's {m, inv} (f32). keep is exactly the keep
/// mask that rndnn::dropout draws for a dropout::desc of the same data
/// dims, rate, alg, name, method, bits, window, seed, offset and stream
/// (no noise shape), and scale is its scale. Backward rebuilds P from the
/// scores and the stats and gives
///   dp_j = keep_j ? scale * dy_j : +0, c = sum_j P_j * dp_j,
///   dx_j = P_j * (dp_j - c) for j < len, +0 after,
/// the gradient of the forward's y with respect to x. Results match
/// softmax followed by rndnn::dropout within the last bits of exp and of
/// the sums' order (about 1e-6 of a row's largest value in f32); the mask
/// bit for bit.
class RNDNN_API softmax_dropout {
public:
    /// The problem. draw_desc: the mask's algorithm and key name, the
    /// runtime arguments (with_offset, with_next_offset, seed_dt,
    /// scalars) and the window. With a window, src and dst are a block of
    /// whole rows at `origin` of a tensor of dims `global_dims` (its last
    /// dim equal to the block's, origin's last 0: a softmax needs its whole
    /// row), the mask is the block of the global keep mask, and causal
    /// rows count from the global row; next_offset is offset + the global
    /// element count. Tensor-parallel attention thus shards heads (or
    /// queries) and still draws the unsharded model's mask.
    struct RNDNN_API desc : draw_desc {
        /// forward_training (softmax, then the dropout), forward_inference
        /// (the softmax alone: no mask, reads no seed) or backward.
        prop_kind prop = prop_kind::forward_training;
        /// Forward: src the scores, dst y. Backward: src diff_dst (dy) and
        /// the forward's scores, dst diff_src (dx). f32 or bf16, the same
        /// dims (causal: at least 2) and type, any layouts (rows whose last
        /// dim is not contiguous are copied). In place (one memory for src
        /// and dst; backward: dy and dx) is allowed.
        memory::desc src, dst;
        /// Forward: also write the row stats {m, inv} to RNDNN_ARG_STATS
        /// (stats_desc()). Backward reads them and needs stats = true, so
        /// that the backward desc is the forward's with prop = backward.
        bool stats = false;
        /// Row i of each matrix keeps only its first min(i + 1, n)
        /// elements (the future positions get probability 0).
        bool causal = false;
        /// The keep mask: empty (the default; backward draws it again
        /// from seed, offset and stream), or dims = src's, type bit or
        /// u8 (0/1 bytes), dense: forward_training writes it, backward
        /// reads it.
        memory::desc mask;
        double rate = 0.5; ///< the drop probability, in [0, 1]
        /// The mask's Bernoulli method and bits, as dropout::desc's.
        bernoulli_method method = bernoulli_method::automatic;
        int bits = 1;

        bool operator==(const desc &o) const;
    };

    /// @returns the stats tensor of data dims @p data: f32 {rows, 2},
    ///     dense, rows = the product of all dims but the last; element
    ///     (r, 0) is row r's max m, (r, 1) its 1 / sum.
    static memory::desc stats_desc(const dims &data);

    class RNDNN_API primitive_desc {
    public:
        primitive_desc() = default;
        /// A descriptor equal to one made before (desc equal, each real
        /// number the same bits, the same process state) shares that one's
        /// implementation and kernels: it is neither checked nor
        /// generated again (the 128 most recently used are kept, and
        /// get_desc() of both is then one object). Not with RNDNN_VERBOSE
        /// at check or above, where every creation prints its lines.
        /// @throws error (invalid_arguments) naming the bad value: src or
        ///     dst empty, a host scalar, not f32 or bf16, or differing in
        ///     dims or type; causal with fewer than 2 dims; a
        ///     rate outside [0, 1]; a mask not bit or u8, not dense, of
        ///     other dims than src's, or with forward_inference; backward
        ///     without stats; a window that splits rows (naming its last
        ///     dim and origin); a rate below 1 that bitsliced(b) rounds to
        ///     keeping nothing; or any RNG error (algorithm, method, bits,
        ///     name, window).
        primitive_desc(const desc &adesc);

        /// @returns the row kernel and the mask's RNG kernel, e.g.
        ///     "softmax_dropout:jit:avx512+jit:avx512".
        const char *impl_name() const;
        const desc &get_desc() const;
        /// @returns the problem as one line, e.g.
        ///     "prop=forward_training,rate=0.1,data=f32:2x4x8x8,causal,...".
        std::string info() const;
        /// @returns the stats' desc (stats_desc() of src's dims) when the
        ///     desc has stats, else an empty desc.
        memory::desc stats_md() const;
        /// @returns the bytes the mask memory takes (0 without a mask).
        std::size_t mask_bytes() const;

        /// The chosen implementation's state: opaque, defined in the
        /// library.
        struct RNDNN_INTERNAL impl_t;

    private:
        friend class softmax_dropout;
        const std::shared_ptr<impl_t> &impl() const { return impl_; }
        std::shared_ptr<impl_t> impl_;
    };

    softmax_dropout() = default;
    /// Creates the primitive; the primitives of one descriptor share its
    /// kernels. Immutable and safe to execute from several threads at
    /// once.
    explicit softmax_dropout(const primitive_desc &pd);

    /// Arguments:
    /// - forward: RNDNN_ARG_SRC (the scores), RNDNN_ARG_DST (y; may be the
    ///   same memory), RNDNN_ARG_STATS iff stats;
    /// - backward: RNDNN_ARG_DIFF_DST and RNDNN_ARG_SRC (the forward's
    ///   scores), both of the desc's src, RNDNN_ARG_DIFF_SRC (of dst; may
    ///   be diff_dst's memory), RNDNN_ARG_STATS (the forward's);
    /// - RNDNN_ARG_MASK iff the desc has a mask (not in forward_inference);
    /// - forward_training, and backward without a mask: RNDNN_ARG_SEED,
    ///   RNDNN_ARG_OFFSET (iff with_offset), RNDNN_ARG_STREAM (optional,
    ///   default 0); RNDNN_ARG_NEXT_OFFSET (iff with_next_offset, also
    ///   written by backward with a mask, which reads the offset only for
    ///   it). forward_inference reads none of these.
    /// @throws error (invalid_arguments) naming the argument if one is
    ///     missing, does not match its desc, or is out of range; nothing
    ///     is written then.
    /// @throws error (out_of_memory) if the threads' scratch cannot be
    ///     allocated.
    void execute(const stream &strm,
            const std::unordered_map<int, memory> &args) const;

    const primitive_desc &get_primitive_desc() const { return pd_; }

private:
    primitive_desc pd_;
};

} // namespace rndnn

#endif
