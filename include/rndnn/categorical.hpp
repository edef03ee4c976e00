/// @file
/// Categorical sampling by Gumbel-max, fused: each row of logits gives the
/// index argmax_j (logits_j / T + G_j) with G the gumbel(0, 1) values of
/// the RNG stream, drawn a block at a time and never stored whole. A call
/// may see a block of the vocabulary (a shard): it returns each row's
/// (max score, global index), and categorical::combine() of the shards'
/// results is the unsharded draw. Semantics: docs/semantics.md,
/// "categorical(logits, temperature)".
#ifndef RNDNN_CATEGORICAL_HPP
#define RNDNN_CATEGORICAL_HPP

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>

#include "rndnn/attr.hpp"
#include "rndnn/common.hpp"
#include "rndnn/memory.hpp"
#include "rndnn/rng.hpp"

namespace rndnn {

/// One draw from each row's categorical distribution softmax(logits / T).
///
/// For logits x of a row r of the global tensor [rows..., V] (V the whole
/// vocabulary) and vocabulary index j, the element's global index is
/// g = offset + r * V + j (row-major over the global dims), its noise
/// G(g) is exactly the value rng's gumbel(0, 1) post-op writes at g (f32),
/// and, in f32 with no contraction,
///   s_j = (x_j / T) + G(g)      a division rounded, then an addition
/// (x_j NaN counts as -inf). The row's result is the max score m =
/// max_j s_j and the lowest j with s_j = m (every s_j -inf: the row's
/// first index). A sample of softmax(x / T) up to the rounding of s and
/// G's 24-bit resolution.
class RNDNN_API categorical {
public:
    /// The problem. draw_desc: the noise's algorithm and key name, the
    /// runtime arguments (with_offset, with_next_offset, seed_dt,
    /// scalars) and the window. With a window, src is the block at
    /// `origin` of logits of dims `global_dims`, whose last dim is the
    /// whole vocabulary V: the block's columns [v0, v0 + n) (v0 = origin's
    /// last) are a shard of it, and its rows any block of rows. The
    /// indices written are global (v0 + j); next_offset is offset + the
    /// global element count.
    struct RNDNN_API desc : draw_desc {
        /// The logits: f32 or bf16, at least 1 dim, the last (the
        /// vocabulary) at least 1, dense.
        memory::desc src;
        /// The indices: s64 or s32, of src's dims with the last one 1,
        /// dense.
        memory::desc dst;
        /// Optional (empty: not written): each row's max score m, f32 of
        /// dst's dims, dense; what combine() takes with the indices.
        memory::desc max;
        /// T: finite and > 0, also as an f32 (it is used as one).
        double temperature = 1.0;

        bool operator==(const desc &o) const;
    };

    class RNDNN_API primitive_desc {
    public:
        primitive_desc() = default;
        /// A descriptor equal to one made before (desc and attribute
        /// equal, each real number the same bits, the same process state)
        /// shares that one's implementation and kernels: it is neither
        /// checked nor generated again (the 128 most recently used are
        /// kept, and get_desc() of both is then one object). Not with
        /// RNDNN_VERBOSE at check or above, where every creation prints
        /// its lines.
        /// @param attr its ISA cap alone (no post-ops).
        /// @throws error (invalid_arguments) naming the bad value: src
        ///     not f32 or bf16, empty, a host scalar, not dense, or with a
        ///     last dim 0; dst not s64 or s32, not dense or not of src's
        ///     dims with the last 1; max not f32, dense, of dst's dims; a
        ///     temperature not finite or not > 0 (as an f32 too); post-ops in attr; a
        ///     window outside its global dims, or any RNG error
        ///     (algorithm, name).
        primitive_desc(const desc &adesc,
                const primitive_attr &attr = primitive_attr());

        /// @returns the argmax loop's tier and the noise's RNG kernel,
        ///     e.g. "categorical:avx512+jit:avx512", "categorical:ref+ref:any".
        const char *impl_name() const;
        const desc &get_desc() const;
        /// @returns the problem as one line, e.g.
        ///     "logits=f32:4x32000,idx=s64:4x1,temperature=1,alg=...".
        std::string info() const;

        /// The chosen implementation's state: opaque, defined in the
        /// library.
        struct RNDNN_INTERNAL impl_t;

    private:
        friend class categorical;
        const std::shared_ptr<impl_t> &impl() const { return impl_; }
        std::shared_ptr<impl_t> impl_;
    };

    categorical() = default;
    /// Immutable and safe to execute from several threads at once.
    explicit categorical(const primitive_desc &pd);

    /// Arguments: RNDNN_ARG_SRC (the logits), RNDNN_ARG_DST (the indices),
    /// RNDNN_ARG_MAX_SCORES iff the desc has max, RNDNN_ARG_SEED,
    /// RNDNN_ARG_OFFSET (iff with_offset), RNDNN_ARG_STREAM (optional,
    /// default 0), RNDNN_ARG_NEXT_OFFSET (iff with_next_offset). Results
    /// never depend on the thread count or the tier.
    /// @throws error (invalid_arguments) naming the argument if one is
    ///     missing, does not match its desc, or is out of range (offset +
    ///     the global element count + 8192 must be at most 2^63 - 1: the
    ///     noise is drawn in blocks of 4096); nothing is written then.
    /// @throws error (out_of_memory) if the threads' scratch cannot be
    ///     allocated.
    void execute(const stream &strm,
            const std::unordered_map<int, memory> &args) const;

    /// Combines the results of shards of one draw: for each of @p rows
    /// rows, the shard with the greatest max wins, ties (and every max
    /// -inf or NaN) to the lowest index. Shard k's results are
    /// max[k * rows + r] and index[k * rows + r]. The result equals the
    /// unsharded draw's when the shards partition the vocabulary.
    /// @param out_max may be nullptr. out_* may alias shard 0's arrays.
    /// @throws error (invalid_arguments) if @p shards < 1, @p rows < 0 or
    ///     a pointer (but out_max) is null.
    static void combine(const float *max, const int64_t *index,
            int64_t shards, int64_t rows, float *out_max, int64_t *out_index);

    const primitive_desc &get_primitive_desc() const { return pd_; }

private:
    primitive_desc pd_;
};

} // namespace rndnn

#endif
