/// @file
/// Memory descriptors (shape, strides, first-element offset, data type),
/// padded layouts, and memory objects.
#ifndef RNDNN_MEMORY_HPP
#define RNDNN_MEMORY_HPP

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "rndnn/common.hpp"

namespace rndnn {

/// A tensor in host memory: a descriptor plus a data handle.
///
/// Copies share the same data (a memory is a handle, like dnnl::memory).
class RNDNN_API memory {
public:
    /// Describes the layout of a tensor. A plain value: copyable and
    /// comparable.
    ///
    /// Element (i_0, ..., i_{n-1}) lives at element position
    /// offset0 + sum_d i_d * strides[d] from the data handle, counted in
    /// elements (in bits for `bit`). Strides are >= 0 and must not let two
    /// elements overlap: sorted by stride, each stride is at least the
    /// extent (dim * stride) of the smaller ones (dims of size 1 ignored).
    class RNDNN_API desc {
    public:
        /// An empty descriptor (zero dims, undef type).
        desc() = default;
        /// A dense row-major tensor.
        /// @param adims 0 to 8 dims, each >= 0; no dims is a scalar.
        /// @throws error (invalid_arguments) naming the shape if a dim is
        ///     negative, there are more than 8, the element count or byte
        ///     size overflows, or @p adt is undef.
        desc(const dims &adims, data_type adt);
        /// A strided tensor.
        /// @param astrides one per dim, in elements (bits for `bit`), >= 0.
        /// @param aoffset0 position of the first element, >= 0, in
        ///     elements (bits for `bit`).
        /// @throws error (invalid_arguments) naming the value if strides
        ///     are negative, their count differs from the dims', elements
        ///     overlap, or the extent overflows.
        desc(const dims &adims, data_type adt, const dims &astrides,
                dim_t aoffset0 = 0);
        /// A host scalar of type @p adt: its value travels inside the
        /// memory object (see memory::scalar) rather than behind a user
        /// pointer.
        static desc host_scalar(data_type adt);

        int get_ndims() const { return static_cast<int>(dims_.size()); }
        const dims &get_dims() const { return dims_; }
        const dims &get_strides() const { return strides_; }
        /// Position of the first element, in elements (bits for `bit`).
        dim_t get_offset0() const { return offset0_; }
        data_type get_data_type() const { return dt_; }
        bool is_host_scalar() const { return host_scalar_; }
        /// @returns the number of logical elements (1 for no dims).
        dim_t nelems() const;
        /// @returns the minimal allocation in bytes that holds every
        ///     element (offset0 and strides included), 0 if no elements.
        std::size_t get_size() const;
        /// @returns true if the strides are dense row-major (any offset0).
        bool is_dense() const;
        /// @returns true for a default-constructed descriptor.
        bool is_zero() const { return dt_ == data_type::undef; }
        /// @returns a short description, e.g. "f32:2x3" or
        ///     "bit:2x3:s=8,1:o=3".
        std::string str() const;

        bool operator==(const desc &other) const;
        bool operator!=(const desc &other) const { return !(*this == other); }

    private:
        dims dims_;
        dims strides_;
        dim_t offset0_ = 0;
        data_type dt_ = data_type::undef;
        bool host_scalar_ = false;
    };

    /// A logical tensor hosted inside a larger padded row-major buffer,
    /// like a padded tensor of arm_compute. Kernels write only the logical
    /// elements; the padding is never touched.
    struct padded_layout {
        desc md; ///< the logical elements inside the host buffer
        dims host_dims; ///< dims + pad_before + pad_after
        std::size_t host_size; ///< bytes of the whole host buffer
    };
    /// Builds a padded layout.
    /// @param logical the logical dims, each >= 0.
    /// @param pad_before, pad_after padding per dim in elements, >= 0,
    ///     one per dim.
    /// @throws error (invalid_arguments) naming the value if a padding is
    ///     negative or the counts of dims disagree.
    static padded_layout pad(const dims &logical, data_type adt,
            const dims &pad_before, const dims &pad_after);

    /// An empty memory.
    memory() = default;
    /// Allocates get_size() bytes, 64-byte aligned, uninitialized.
    /// @throws error (out_of_memory) if the allocation fails.
    explicit memory(const desc &md);
    /// Wraps a user buffer of at least md.get_size() bytes; the buffer
    /// must outlive every use of this memory.
    memory(const desc &md, void *handle);

    /// Host scalars (desc::host_scalar of s32, s64 or f32).
    static memory scalar(std::int32_t value);
    static memory scalar(std::int64_t value);
    static memory scalar(float value);

    const desc &get_desc() const;
    /// Points this memory, which wraps a user buffer (or none yet), at
    /// @p handle instead: another buffer of at least get_desc().get_size()
    /// bytes, which must outlive every use of this memory. Copies of a
    /// memory share it, so they all see the new handle (a host scalar's
    /// value is written through get_data_handle() instead). Not safe
    /// while an execute() reads this memory on another thread.
    /// @throws error (invalid_arguments) for an empty memory, a host
    ///     scalar, or a memory that owns its allocation
    ///     (memory(const desc &)).
    void set_data_handle(void *handle);
    /// @returns the data: the owned allocation (64-byte aligned), the
    ///     user's buffer, or a host scalar's value held inside the memory;
    ///     nullptr for an empty memory.
    void *get_data_handle() const;
    template <typename T>
    T *data() const {
        return static_cast<T *>(get_data_handle());
    }
    explicit operator bool() const { return impl_ != nullptr; }

private:
    struct RNDNN_INTERNAL impl_t;
    std::shared_ptr<impl_t> impl_;
};

} // namespace rndnn

#endif
