/// @file
/// The binary primitive: element-wise mul or add with NumPy broadcasting,
/// a bit-mask src1 (rndnn's kernels) or any other src1 type (oneDNN), and
/// linear post-ops. Used by the dropout chain; semantics: docs/dropout.md.
#ifndef RNDNN_BINARY_HPP
#define RNDNN_BINARY_HPP

#include <memory>
#include <string>
#include <unordered_map>

#include "rndnn/attr.hpp"
#include "rndnn/common.hpp"
#include "rndnn/enums.hpp"
#include "rndnn/memory.hpp"

namespace rndnn {

/// The binary primitive: dst = post_ops(src0 op src1), computed in f32 and
/// rounded once to dst's type.
///
/// - src0: f32, bf16 or f16; dst: the same dims and type as src0 (any
///   layout; dst may be the memory of src0: in place).
/// - src1: the same number of dims as src0, each equal to src0's or 1
///   (NumPy broadcasting). Type `bit` runs rndnn's own kernels (JIT, or the
///   reference): mul is then a select, so Inf or NaN in src0 where the bit
///   is 0 gives +0. Other types (u8, s8, s32, f32, bf16) go to oneDNN's
///   binary primitive, created once with the primitive.
/// - Post-ops: any number of post_ops::append_linear() entries, applied in
///   order: x = fma(alpha, x, beta) in f32.
class RNDNN_API binary {
public:
    struct RNDNN_API desc {
        desc() = default;
        desc(binary_alg aalg, const memory::desc &asrc0,
                const memory::desc &asrc1, const memory::desc &adst)
            : alg(aalg), src0(asrc0), src1(asrc1), dst(adst) {}

        binary_alg alg = binary_alg::mul;
        memory::desc src0, src1, dst;

        bool operator==(const desc &o) const;
    };

    class RNDNN_API primitive_desc {
    public:
        primitive_desc() = default;
        /// @throws error (invalid_arguments) naming the bad value: a type
        ///     other than the above, dims that do not broadcast, a dst that
        ///     differs from src0 in dims or type, a post-op other than
        ///     linear.
        /// @throws error (unimplemented) if oneDNN has no implementation
        ///     for a non-bit src1 (e.g. bf16 on a CPU without AVX-512).
        primitive_desc(const desc &adesc,
                const primitive_attr &attr = primitive_attr());

        /// @returns the implementation: "jit:avx2", "ref:any" or
        ///     "onednn:<oneDNN's name>".
        const char *impl_name() const;
        const desc &get_desc() const;
        const primitive_attr &get_attr() const;
        /// @returns the problem as one line, e.g.
        ///     "alg=mul,src0=f32:2x8,src1=bit:2x1,dst=f32:2x8,post=linear:2:0".
        std::string info() const;

        /// The chosen implementation's state: opaque, defined in the
        /// library.
        struct RNDNN_INTERNAL impl_t;

    private:
        /// Only the primitive created from this descriptor reads that
        /// state (its constructor and execute(), in the library).
        friend class binary;
        const std::shared_ptr<impl_t> &impl() const { return impl_; }
        std::shared_ptr<impl_t> impl_;
    };

    binary() = default;
    /// Creates the primitive: the kernel (JIT code) that the primitive
    /// descriptor made when it chose it, or the oneDNN primitive.
    explicit binary(const primitive_desc &pd);

    /// Arguments: RNDNN_ARG_SRC_0, RNDNN_ARG_SRC_1 and RNDNN_ARG_DST, whose
    /// descs must equal pd's.
    /// @throws error (invalid_arguments) naming the argument if one is
    ///     missing or does not match; nothing is written then.
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
