// Layouts: logical indices to positions in a memory desc, loads and stores.
#include <cstring>

#include "src/layout.hpp"

namespace rndnn {
namespace impl {

layout_t::layout_t(const memory::desc &md)
    : ndims_(md.get_ndims())
    , offset0_(md.get_offset0())
    , esize_(dt_bits(md.get_data_type()) / 8)
    , dense_(md.is_dense()) {
    for (int d = 0; d < ndims_; ++d) {
        dims_[d] = md.get_dims()[d];
        strides_[d] = md.get_strides()[d];
    }
}

layout_t::layout_t(const dims &adims, const dims &astrides, dim_t aoffset0,
        data_type adt)
    : ndims_(static_cast<int>(adims.size()))
    , offset0_(aoffset0)
    , esize_(dt_bits(adt) / 8)
    , dense_(false) {
    for (int d = 0; d < ndims_; ++d) {
        dims_[d] = adims[d];
        strides_[d] = astrides[d];
    }
}

dim_t layout_t::position(dim_t i) const {
    if (dense_) return offset0_ + i;
    dim_t pos = offset0_;
    for (int d = ndims_; d-- > 0;) {
        pos += (i % dims_[d]) * strides_[d];
        i /= dims_[d];
    }
    return pos;
}

void layout_t::store(void *base, dim_t i0, dim_t n, const void *vals) const {
    auto *dst = static_cast<unsigned char *>(base);
    const auto *src = static_cast<const unsigned char *>(vals);
    if (dense_) {
        std::memcpy(dst + (offset0_ + i0) * esize_, src, n * esize_);
        return;
    }
    const std::size_t es = esize_;
    for_range(i0, n, [&](dim_t k, dim_t pos) {
        std::memcpy(dst + pos * es, src + k * es, es);
    });
}

void layout_t::load(const void *base, dim_t i0, dim_t n, void *vals) const {
    const auto *src = static_cast<const unsigned char *>(base);
    auto *dst = static_cast<unsigned char *>(vals);
    if (dense_) {
        std::memcpy(dst, src + (offset0_ + i0) * esize_, n * esize_);
        return;
    }
    const std::size_t es = esize_;
    for_range(i0, n, [&](dim_t k, dim_t pos) {
        std::memcpy(dst + k * es, src + pos * es, es);
    });
}

namespace {
// Sets bit `pos` of dst to v without disturbing its neighbours.
inline void put_bit_atomic(uint8_t *dst, dim_t pos, uint8_t v) {
    uint8_t *byte = dst + (pos >> 3);
    const auto mask = static_cast<uint8_t>(1u << (pos & 7));
    if (v)
        __atomic_fetch_or(byte, mask, __ATOMIC_RELAXED);
    else
        __atomic_fetch_and(byte, static_cast<uint8_t>(~mask), __ATOMIC_RELAXED);
}
} // namespace

void layout_t::store_bits(
        void *base, dim_t i0, dim_t n, const uint8_t *vals) const {
    auto *dst = static_cast<uint8_t *>(base);
    if (!dense_) {
        for_range(i0, n,
                [&](dim_t k, dim_t pos) { put_bit_atomic(dst, pos, vals[k]); });
        return;
    }
    // Dense: whole bytes are assembled and written plainly; the partial
    // bytes at either end go bit by bit, atomically.
    dim_t pos = offset0_ + i0, k = 0;
    for (; k < n && (pos & 7); ++k, ++pos)
        put_bit_atomic(dst, pos, vals[k]);
    for (; k + 8 <= n; k += 8, pos += 8) {
        unsigned byte = 0;
        for (int j = 0; j < 8; ++j)
            byte |= unsigned(vals[k + j]) << j;
        dst[pos >> 3] = static_cast<uint8_t>(byte);
    }
    for (; k < n; ++k, ++pos)
        put_bit_atomic(dst, pos, vals[k]);
}

} // namespace impl
} // namespace rndnn
