// Operands of the element-wise passes (binary's bit path, dropout): each
// hands out the block of logical elements [i0, i0 + n) as dense memory, a
// pointer into the tensor where its layout allows, else a copy in a
// scratch buffer that is gathered before or scattered after the block.
#ifndef RNDNN_PIPELINE_OPERANDS_HPP
#define RNDNN_PIPELINE_OPERANDS_HPP

#include <cstdint>

#include "rndnn/memory.hpp"
#include "src/layout.hpp"

namespace rndnn {
namespace impl {

// Elements per block: a multiple of every JIT unit (64 elements, 2048 for
// bitsliced) and of 8 (whole mask bytes); 128 KiB of f32, which stays in
// L2 with its dst while the next step reads it.
constexpr dim_t pipeline_block = 32768;

// A data tensor (f32, bf16, f16).
class data_operand_t {
public:
    explicit data_operand_t(const memory::desc &md);
    bool dense() const { return dense_; }
    std::size_t esize() const { return esize_; }
    // The block's elements: in the tensor, or gathered into scratch.
    const void *read(const void *base, dim_t i0, dim_t n, void *scratch) const;
    // Where to write the block: in the tensor, or scratch (then write_back).
    void *target(void *base, dim_t i0, void *scratch) const;
    // Scatters a block written to scratch (nothing if dense).
    void write_back(void *base, dim_t i0, dim_t n, const void *block) const;

private:
    layout_t layout_;
    dim_t offset0_;
    std::size_t esize_;
    bool dense_;
};

// A mask tensor (bit or u8) seen with the dims of the data it applies to;
// dims of 1 broadcast. Blocks travel as packed bits: element k of a block
// is bit (k % 8) of byte k / 8.
class mask_operand_t {
public:
    mask_operand_t(const memory::desc &md, const dims &data_dims);
    bool broadcast() const { return broadcast_; }
    // Whether bits of [i0, ...) can be read or written in place: dense bit,
    // no broadcast, the first bit on a byte boundary.
    bool direct(dim_t i0) const;
    // The byte holding element i0 (direct(i0) must hold).
    uint8_t *at(void *base, dim_t i0) const;
    // The block's bits, in place or packed into scratch (n / 8 + 1 bytes).
    // flags: n bytes of scratch for u8 masks.
    const uint8_t *read(const void *base, dim_t i0, dim_t n, uint8_t *scratch,
            uint8_t *flags) const;
    // Stores the block's bits (no broadcast), through flags (n bytes).
    void write(void *base, dim_t i0, dim_t n, const uint8_t *packed,
            uint8_t *flags) const;

private:
    // A bit mask's bits for [i0, i0 + n), a row of the innermost dim at a
    // time.
    void read_broadcast_bits(
            const void *base, dim_t i0, dim_t n, uint8_t *packed) const;

    layout_t layout_; // with the data's dims, stride 0 where broadcast
    data_type dt_;
    dim_t offset0_;
    bool dense_bit_, broadcast_;
    dim_t inner_dim_, inner_stride_; // the innermost dim; its mask stride
};

} // namespace impl
} // namespace rndnn

#endif
