// Maps logical row-major element indices to positions in a memory
// descriptor's layout, and stores values there. Only logical elements are
// written: padding, and bits of a shared byte outside the tensor, keep their
// values.
#ifndef RNDNN_SRC_LAYOUT_HPP
#define RNDNN_SRC_LAYOUT_HPP

#include <cstdint>

#include "rndnn/memory.hpp"

namespace rndnn {
namespace impl {

class layout_t {
public:
    explicit layout_t(const memory::desc &md);
    // A view with any strides, 0 included: a broadcast operand seen with
    // the dims of the tensor it broadcasts to.
    layout_t(const dims &adims, const dims &astrides, dim_t aoffset0,
            data_type adt);

    // Position of logical element i, in elements (bits for `bit`).
    dim_t position(dim_t i) const;

    // Calls f(k, position of logical element i0 + k) for k in [0, n).
    template <typename F>
    void for_range(dim_t i0, dim_t n, const F &f) const {
        if (dense_) {
            for (dim_t k = 0; k < n; ++k)
                f(k, offset0_ + i0 + k);
            return;
        }
        dim_t idx[max_ndims];
        dim_t rest = i0;
        for (int d = ndims_; d-- > 0;) {
            idx[d] = rest % dims_[d];
            rest /= dims_[d];
        }
        dim_t pos = position(i0);
        for (dim_t k = 0; k < n; ++k) {
            f(k, pos);
            // Step the multi-index like an odometer.
            for (int d = ndims_; d-- > 0;) {
                pos += strides_[d];
                if (++idx[d] < dims_[d]) break;
                pos -= strides_[d] * dims_[d];
                idx[d] = 0;
            }
        }
    }

    // Loads the n elements at logical [i0, i0 + n) to vals (esize bytes
    // each; not for bit).
    void load(const void *base, dim_t i0, dim_t n, void *vals) const;
    // Stores n elements of esize bytes from vals at logical [i0, i0 + n).
    void store(void *base, dim_t i0, dim_t n, const void *vals) const;
    // Stores n 0/1 bytes from vals as bits at logical [i0, i0 + n). Bytes
    // shared with other threads or with bits outside the tensor are updated
    // atomically, so threads may store disjoint ranges concurrently.
    void store_bits(void *base, dim_t i0, dim_t n, const uint8_t *vals) const;

private:
    int ndims_;
    dim_t dims_[max_ndims];
    dim_t strides_[max_ndims];
    dim_t offset0_;
    std::size_t esize_; // bytes per element; 0 for bit
    bool dense_;
};

} // namespace impl
} // namespace rndnn

#endif
