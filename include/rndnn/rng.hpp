/// @file
/// The RNG primitive: writes raw words, Bernoulli values or masks, uniform
/// or normal values into a tensor. Semantics: docs/semantics.md.
#ifndef RNDNN_RNG_HPP
#define RNDNN_RNG_HPP

#include <memory>
#include <string>
#include <unordered_map>

#include "rndnn/attr.hpp"
#include "rndnn/common.hpp"
#include "rndnn/enums.hpp"
#include "rndnn/memory.hpp"

namespace rndnn {

/// How a primitive draws from an RNG stream: the engine (and multfly's key
/// name), the runtime arguments its execute() reads, and the window of a
/// global tensor it covers. The description of every primitive that draws
/// (rng::desc, dropout::desc) is a draw_desc with its own fields added, so
/// these are declared, checked and compared in one place. A plain value.
struct RNDNN_API draw_desc {
    rng_alg alg = rng_alg::philox4x32_10;
    /// multfly only: the key name, at most 32 bytes.
    std::string name;
    /// Type of RNDNN_ARG_SEED: s64 or s32 (sign-extended).
    data_type seed_dt = data_type::s64;
    /// execute() takes RNDNN_ARG_OFFSET (s64 >= 0); else offset = 0.
    bool with_offset = false;
    /// execute() writes offset + the elements drawn (the global count in
    /// a window) to RNDNN_ARG_NEXT_OFFSET.
    bool with_next_offset = false;
    /// How seed, offset, stream and a runtime p or rate arrive.
    scalar_kind scalars = scalar_kind::host;
    /// A window of a global tensor (docs/semantics.md, "Windows"): empty
    /// (the default) makes the primitive's tensor the whole one. Otherwise
    /// the global tensor's dims, of the tensor's rank, and the origin of
    /// its block in it (empty: all zeros): element i of the block gets the
    /// value of global element origin + i, whose index g is its row-major
    /// index over global_dims, plus the offset. So the blocks of any
    /// partition of the global tensor, drawn apart (by threads, processes,
    /// machines), hold the whole tensor's values. next_offset is then
    /// offset + the global element count, and offset + that count must be
    /// at most 2^63 - 1.
    dims global_dims, origin;

    bool operator==(const draw_desc &o) const;
};

/// The RNG primitive.
class RNDNN_API rng {
public:
    /// The problem: a draw (algorithm, runtime arguments, window) into a
    /// destination. A plain value.
    struct RNDNN_API desc : draw_desc {
        desc() = default;
        desc(rng_alg aalg, const memory::desc &adst) : dst(adst) {
            alg = aalg;
        }

        /// Destination. Types: u32 for raw words; bit (default), u8, s32 or
        /// f32 for bernoulli; f32, bf16 or f16 for uniform and normal.
        /// With a window, dst is the block at origin.
        memory::desc dst;
        /// execute() takes the Bernoulli p as RNDNN_ARG_P (f32).
        bool runtime_p = false;
        /// Empty (the default), or the desc of a tensor of probabilities,
        /// one an element, that execute() takes as RNDNN_ARG_SRC: a
        /// bernoulli post-op (threshold32, the method automatic resolves
        /// to with it) then draws element i with probability p[i] (1 iff
        /// its word W < p[i] * 2^32 as exact reals, docs/semantics.md).
        /// Type f32 or bf16, dense row-major (any offset0), of dst's rank,
        /// each dim dst's or 1 (broadcast, NumPy's rule); with a window,
        /// dst is the block and p is the block's. Values in [0, 1], checked
        /// at execution. Needs 32-bit words (not mcg31m1).
        memory::desc p_tensor;

        bool operator==(const desc &o) const;
    };

    /// Validates the problem and picks the best implementation.
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
        /// @throws error (invalid_arguments) naming the bad value: a dst
        ///     type the distribution cannot write, p outside [0, 1], b
        ///     outside [1, 32], bitsliced with mcg31m1, uniform or normal
        ///     parameters whose values the dst type cannot hold, a name
        ///     longer than 32 bytes or given to another algorithm, more
        ///     than one post-op, a seed type other than s32/s64, a p tensor
        ///     (desc::p_tensor) without a bernoulli post-op, with a runtime
        ///     p, a method other than threshold32 or mcg31m1, of a type
        ///     other than f32/bf16, not dense, or whose dims are neither
        ///     dst's nor 1...
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

        /// The chosen implementation's state: opaque, defined in the
        /// library.
        struct RNDNN_INTERNAL impl_t;

    private:
        /// Only the primitive created from this descriptor reads that
        /// state (its constructor and execute(), in the library).
        friend class rng;
        const std::shared_ptr<impl_t> &impl() const { return impl_; }
        std::shared_ptr<impl_t> impl_;
    };

    rng() = default;
    /// Creates the primitive once, with the kernel (and its JIT code) that
    /// the primitive descriptor made when it chose it: the primitives of
    /// one descriptor share it. Immutable and safe to execute from several
    /// threads at once.
    explicit rng(const primitive_desc &pd);

    /// Generates into RNDNN_ARG_DST (its desc must equal pd's dst).
    /// Arguments: RNDNN_ARG_SEED (required), RNDNN_ARG_OFFSET (iff
    /// with_offset), RNDNN_ARG_STREAM (optional, default 0), RNDNN_ARG_P
    /// (iff runtime_p), RNDNN_ARG_SRC (the p tensor, iff desc::p_tensor is
    /// not empty; its desc must equal it), RNDNN_ARG_NEXT_OFFSET (iff
    /// with_next_offset).
    /// @throws error (invalid_arguments) naming the argument if one is
    ///     missing, of the wrong type or kind, offset < 0, offset +
    ///     nelems > 2^63 - 1, a runtime p outside [0, 1], or a value of
    ///     the p tensor outside [0, 1] or NaN (the message names the first
    ///     such, by its row-major index in the p tensor, and its value);
    ///     nothing is written then.
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
