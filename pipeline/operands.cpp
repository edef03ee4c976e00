// Operands of the element-wise passes: blocks of data and mask elements.
#include "pipeline/operands.hpp"

#include <algorithm>
#include <cstring>

namespace rndnn {
namespace impl {

data_operand_t::data_operand_t(const memory::desc &md)
    : layout_(md)
    , offset0_(md.get_offset0())
    , esize_(dt_bits(md.get_data_type()) / 8)
    , dense_(md.is_dense()) {}

const void *data_operand_t::read(
        const void *base, dim_t i0, dim_t n, void *scratch) const {
    if (dense_)
        return static_cast<const unsigned char *>(base)
                + (offset0_ + i0) * static_cast<dim_t>(esize_);
    layout_.load(base, i0, n, scratch);
    return scratch;
}

void *data_operand_t::target(void *base, dim_t i0, void *scratch) const {
    if (dense_)
        return static_cast<unsigned char *>(base)
                + (offset0_ + i0) * static_cast<dim_t>(esize_);
    return scratch;
}

void data_operand_t::write_back(
        void *base, dim_t i0, dim_t n, const void *block) const {
    if (!dense_) layout_.store(base, i0, n, block);
}

namespace {
// md's strides seen with data_dims: 0 where md's dim is 1 (broadcast).
dims broadcast_strides(const memory::desc &md, const dims &data_dims) {
    dims s(md.get_strides());
    for (size_t d = 0; d < s.size(); ++d)
        if (md.get_dims()[d] != data_dims[d]) s[d] = 0;
    return s;
}
} // namespace

mask_operand_t::mask_operand_t(const memory::desc &md, const dims &data_dims)
    : layout_(md.get_dims() == data_dims
                      ? layout_t(md)
                      : layout_t(data_dims, broadcast_strides(md, data_dims),
                              md.get_offset0(), md.get_data_type()))
    , dt_(md.get_data_type())
    , offset0_(md.get_offset0())
    , dense_(md.is_dense())
    , dense_bit_(md.get_data_type() == data_type::bit && md.is_dense())
    , broadcast_(md.get_dims() != data_dims)
    , inner_dim_(data_dims.empty() ? 1 : data_dims.back())
    , inner_stride_(data_dims.empty() || md.get_dims().back() != data_dims.back()
                      ? 0
                      : md.get_strides().back()) {}

bool mask_operand_t::direct(dim_t i0) const {
    return dense_bit_ && !broadcast_ && (offset0_ + i0) % 8 == 0;
}

uint8_t *mask_operand_t::at(void *base, dim_t i0) const {
    return static_cast<uint8_t *>(base) + (offset0_ + i0) / 8;
}

namespace {

// Sets bits [k, k + len) of dst to v.
void fill_bits(uint8_t *dst, dim_t k, dim_t len, bool v) {
    for (; len > 0 && k % 8; ++k, --len)
        dst[k / 8] = static_cast<uint8_t>(
                v ? dst[k / 8] | 1u << (k % 8) : dst[k / 8] & ~(1u << (k % 8)));
    std::memset(dst + k / 8, v ? 0xff : 0, static_cast<std::size_t>(len / 8));
    for (k += len / 8 * 8, len %= 8; len > 0; ++k, --len)
        dst[k / 8] = static_cast<uint8_t>(
                v ? dst[k / 8] | 1u << (k % 8) : dst[k / 8] & ~(1u << (k % 8)));
}

// Copies bits [p, p + len) of src to bits [k, k + len) of dst.
void copy_bits(uint8_t *dst, dim_t k, const uint8_t *src, dim_t p, dim_t len) {
    if (k % 8 == 0 && p % 8 == 0) {
        std::memcpy(dst + k / 8, src + p / 8, static_cast<std::size_t>(len / 8));
        const dim_t done = len / 8 * 8;
        k += done;
        p += done;
        len -= done;
    }
    for (; len > 0; ++k, ++p, --len)
        fill_bits(dst, k, 1, (src[p / 8] >> (p % 8)) & 1u);
}

} // namespace

void mask_operand_t::read_broadcast_bits(
        const void *base, dim_t i0, dim_t n, uint8_t *packed) const {
    // Row by row of the innermost dim: one bit for the whole row segment
    // (stride 0), a run of bits (stride 1), or bit by bit.
    const auto *src = static_cast<const uint8_t *>(base);
    const dim_t row = inner_dim_, stride = inner_stride_;
    for (dim_t k = 0; k < n;) {
        const dim_t i = i0 + k;
        const dim_t len = std::min(n - k, row - i % row);
        const dim_t p = layout_.position(i);
        if (stride == 0)
            fill_bits(packed, k, len, (src[p / 8] >> (p % 8)) & 1u);
        else if (stride == 1)
            copy_bits(packed, k, src, p, len);
        else
            for (dim_t j = 0; j < len; ++j)
                fill_bits(packed, k + j, 1,
                        (src[(p + j * stride) / 8] >> ((p + j * stride) % 8)) & 1u);
        k += len;
    }
}

const uint8_t *mask_operand_t::read(const void *base, dim_t i0, dim_t n,
        uint8_t *scratch, uint8_t *flags) const {
    if (direct(i0)) return at(const_cast<void *>(base), i0);
    if (dt_ == data_type::bit) {
        read_broadcast_bits(base, i0, n, scratch);
        return scratch;
    }
    // A dense u8 mask is read in place, else gathered into flags.
    const uint8_t *bytes = flags;
    if (dense_ && !broadcast_)
        bytes = static_cast<const uint8_t *>(base) + offset0_ + i0;
    else
        layout_.load(base, i0, n, flags);
    // Any non-zero byte keeps; eight bytes at a time, then the rest.
    const dim_t whole = n / 8 * 8;
    for (dim_t k = 0; k < whole; k += 8) {
        uint64_t x;
        std::memcpy(&x, bytes + k, 8);
        // The top bit of each byte: set iff the byte is non-zero (adding
        // 0x7f to its low 7 bits never carries out of the byte).
        const uint64_t nz = (((x & 0x7f7f7f7f7f7f7f7full) + 0x7f7f7f7f7f7f7f7full)
                                    | x)
                & 0x8080808080808080ull;
        // Gather the eight top bits into one byte, byte j to bit j.
        scratch[k / 8] = static_cast<uint8_t>(
                ((nz >> 7) * 0x0102040810204080ull) >> 56);
    }
    if (whole < n) {
        unsigned byte = 0;
        for (dim_t k = whole; k < n; ++k)
            byte |= unsigned(bytes[k] != 0) << (k - whole);
        scratch[whole / 8] = static_cast<uint8_t>(byte);
    }
    return scratch;
}

void mask_operand_t::write(void *base, dim_t i0, dim_t n, const uint8_t *packed,
        uint8_t *flags) const {
    for (dim_t k = 0; k < n; ++k)
        flags[k] = (packed[k / 8] >> (k % 8)) & 1u;
    if (dt_ == data_type::bit)
        layout_.store_bits(base, i0, n, flags);
    else
        layout_.store(base, i0, n, flags);
}

} // namespace impl
} // namespace rndnn
