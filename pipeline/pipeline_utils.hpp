// Checks and loops the pipeline's primitives share.
#ifndef RNDNN_PIPELINE_PIPELINE_UTILS_HPP
#define RNDNN_PIPELINE_PIPELINE_UTILS_HPP

#include <algorithm>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "pipeline/operands.hpp"
#include "rndnn/memory.hpp"
#include "src/parallel.hpp"
#include "src/utils.hpp"

namespace rndnn {
namespace impl {

// Throws error (invalid_arguments) naming `what` unless dt is f32, bf16 or
// f16.
void check_data_type(const char *what, data_type dt);
// Whether `shape` has the count of dims of `data` and each dim equals
// data's or is 1 (NumPy broadcasting of shape to data).
bool broadcasts_to(const dims &shape, const dims &data);
// Throws error (invalid_arguments) naming both shapes unless `shape`
// broadcasts_to() `data`.
void check_broadcast(const char *what, const dims &shape, const dims &data);

// Runs f(b0, b1) on threads_for(w, n, nthr) threads (src/parallel.hpp: w
// is the work's family) over a split of [0, n) whose inner boundaries are
// multiples of pipeline_block. An exception f throws (an allocation, a
// oneDNN call) is rethrown once every thread is done (parallel()).
template <typename F>
void for_blocks(work_t w, dim_t n, int nthr, const F &f) {
    const dim_t blocks = (n + pipeline_block - 1) / pipeline_block;
    const int t = static_cast<int>(
            std::min<dim_t>(std::max<dim_t>(blocks, 1), threads_for(w, n, nthr)));
    parallel(t, [&](int ithr, int nthr_) {
        dim_t s, e;
        balance211(blocks, nthr_, ithr, s, e);
        if (s >= e) return;
        f(s * pipeline_block, std::min(n, e * pipeline_block));
    });
}

// One thread's scratch for a block: data copies (only where a layout is
// not dense), packed mask bits and mask flags.
class block_scratch_t {
public:
    block_scratch_t(std::size_t esize, bool need_src, bool need_dst)
        : src_(need_src ? pipeline_block * esize : 0)
        , dst_(need_dst ? pipeline_block * esize : 0)
        , bits_(pipeline_block / 8 + 8)
        , flags_(pipeline_block) {}
    void *src() { return src_.data(); }
    void *dst() { return dst_.data(); }
    uint8_t *bits() { return bits_.data(); }
    uint8_t *flags() { return flags_.data(); }

private:
    std::vector<unsigned char> src_, dst_;
    std::vector<uint8_t> bits_, flags_;
};

// One block of for_data_blocks(): elements [i0, i0 + n) of the tensors.
struct data_block_t {
    dim_t i0, n;
    const void *src; // the block's src elements, dense: in place or a copy
    void *dst; // where its dst elements go, dense: in place or scratch
    block_scratch_t &scratch; // the thread's scratch (bits(), flags())
};

// The element-wise loop of binary and of dropout's block plans: [0, n) in
// blocks of pipeline_block over the threads for_blocks(w, ...) picks. Per block
// it reads src through `in`, calls body(block), which writes block.dst,
// and scatters block.dst through `out` where that is not dense.
template <typename F>
void for_data_blocks(work_t w, const data_operand_t &in, const void *src,
        const data_operand_t &out, void *dst, dim_t n, int nthr,
        const F &body) {
    for_blocks(w, n, nthr, [&](dim_t b0, dim_t b1) {
        block_scratch_t scratch(in.esize(), !in.dense(), !out.dense());
        for (dim_t i0 = b0; i0 < b1; i0 += pipeline_block) {
            const dim_t cnt = std::min(pipeline_block, b1 - i0);
            data_block_t block {i0, cnt, in.read(src, i0, cnt, scratch.src()),
                    out.target(dst, i0, scratch.dst()), scratch};
            body(block);
            out.write_back(dst, i0, cnt, block.dst);
        }
    });
}

} // namespace impl
} // namespace rndnn

#endif
