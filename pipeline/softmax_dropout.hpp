// Softmax and dropout in one pass over each row (docs/attention.md, "The
// fused softmax-dropout"): the row kernels (reference and JIT, one
// implementation list), and the plan the graph runs, which splits a
// tensor's rows over threads and gives each row its mask bits, drawn by the
// RNG's own kernels exactly as the dropout primitive draws them.
//
// Forward, for a row x of n scores of which the first len count (causal:
// len = min(i + 1, n) for the row's index i along the dim before the last;
// else n), in f32:
//   m = max_{j<len} x_j,  e_j = exp(x_j - m),  inv = 1 / sum_{j<len} e_j
//   P_j = e_j * inv for j < len, +0 for j >= len
//   y_j = dropout ? (bit_j ? P_j * scale : +0) : P_j, rounded to the type
// and, if asked, the row's stats {m, inv}: backward rebuilds P from the
// scores and them. Backward, for a row of dy:
//   P_j as forward made it (exp(x_j - m) * inv from the scores and stats),
//       or read (a plain softmax's probabilities)
//   dp_j = dropout ? (bit_j ? scale * dy_j : +0) : dy_j
//   c = sum_j P_j * dp_j,  dx_j = P_j * (dp_j - c) for j < len, +0 after.
// Implementations differ in the last bits of exp and of the sums' order
// (the tests' tolerance), never in the mask.
#ifndef RNDNN_PIPELINE_SOFTMAX_DROPOUT_HPP
#define RNDNN_PIPELINE_SOFTMAX_DROPOUT_HPP

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "rndnn/common.hpp"
#include "rndnn/dropout.hpp"
#include "rndnn/memory.hpp"
#include "src/impl_list.hpp"

namespace rndnn {
namespace impl {

// --- row kernels -------------------------------------------------------------

// What a row kernel is built for.
struct sd_row_conf_t {
    bool backward = false;
    data_type dt = data_type::f32; // every row operand: f32 or bf16
    bool dropout = false; // mask bits are read (false: rate 0, no mask)
    // Forward: the row's stats are written. Backward: P is rebuilt from
    // the scores and the stats (false: P is read).
    bool stats = false;
    cpu_isa max_isa = cpu_isa::all; // the ISA cap
};

// One row. Row operands are n consecutive elements of conf.dt. Kernels
// prefetch the next row of src (backward: and of p; forward: of dst, for
// writing) n elements further on, as rows of a dense tensor lie.
struct sd_row_call_t {
    const void *src; // forward: the scores; backward: dy
    void *dst; // forward: y; backward: dx (may equal src)
    // Backward: the scores (conf.stats) or the probabilities.
    const void *p;
    float *stats; // conf.stats: {m, inv}, written forward, read backward
    // conf.dropout: element j's bit is bit (shift + j) % 8 of byte
    // bits[(shift + j) / 8]; kernels may read up to 8 bytes past the
    // row's last bit.
    const uint8_t *bits;
    int64_t shift; // in [0, 8)
    // Thread scratch of at least sd_work_floats(n) floats, 64-byte
    // aligned.
    float *work;
    int64_t n; // >= 1
    int64_t len; // in [1, n]
    float scale; // conf.dropout: of kept elements (finite, > 0)
};

// Floats of sd_row_call_t::work for rows of n elements.
inline int64_t sd_work_floats(int64_t n) { return n + 64; }

class sd_row_kernel_t {
public:
    virtual ~sd_row_kernel_t() = default;
    // Never throws.
    virtual void operator()(const sd_row_call_t &call) const = 0;
};

using sd_row_impl_t = impl_entry_t<sd_row_conf_t, sd_row_kernel_t>;

// A JIT entry per tier of jit_tiers() (sse41 declines: no FMA), then the
// reference, which takes every problem.
const std::vector<sd_row_impl_t> &sd_row_impl_list();

// The reference (pipeline/ref/ref_softmax_dropout.cpp): scalar f32 with
// std::exp, sums in order.
bool init_ref_sd_row(const sd_row_conf_t &conf, std::string &why);
std::unique_ptr<sd_row_kernel_t> create_ref_sd_row(const sd_row_conf_t &conf);

// The JIT kernels (pipeline/jit/jit_softmax_dropout.cpp) at tier isa.
bool init_jit_sd_row(cpu_isa isa, const sd_row_conf_t &conf, std::string &why);
std::unique_ptr<sd_row_kernel_t> create_jit_sd_row(
        cpu_isa isa, const sd_row_conf_t &conf);

// --- the plan over a tensor --------------------------------------------------

// A softmax along the last dim of a tensor, with or without a dropout.
struct softmax_dropout_desc_t {
    bool backward = false;
    // Row i of each matrix (i: the index along the dim before the last)
    // has len = min(causal_row0 + i + 1, n): the future positions get
    // probability 0.
    bool causal = false;
    // causal: the global index of each matrix's first row, where the
    // tensor is a window's block of a larger one (its origin there).
    dim_t causal_row0 = 0;
    // Forward: src the scores, dst y. Backward: src dy, dst dx (may be the
    // same memory with the same desc). Same dims, f32 or bf16, any layout.
    memory::desc src, dst;
    memory::desc p; // backward: the scores (stats) or the probabilities
    bool stats = false; // as sd_row_conf_t::stats; stats_dims() of f32
    // A dropout after the softmax: drop's rate, alg, method, bits, window
    // and mask (empty: the mask is drawn again, else a dense bit or u8
    // mask that forward writes and backward reads). Its prop, src and dst
    // are set from the fields above. Its noise shape must not broadcast.
    bool dropout = false;
    dropout::desc drop;
    cpu_isa max_isa = cpu_isa::all;
};

// One execution: buffers at their descs' offset0.
struct softmax_dropout_args_t {
    const void *src = nullptr;
    void *dst = nullptr;
    const void *p = nullptr;
    float *stats = nullptr;
    void *mask = nullptr;
    uint64_t seed = 0; // the dropout's, as its RNDNN_ARG_SEED
    int64_t offset = 0; // the dropout's, as its RNDNN_ARG_OFFSET
    uint64_t stream = 0; // the dropout's, as its RNDNN_ARG_STREAM
    int nthr = 1;
};

class softmax_dropout_t {
public:
    // @throws error (invalid_arguments) naming a bad value, (unimplemented)
    //     for a broadcast noise shape.
    explicit softmax_dropout_t(const softmax_dropout_desc_t &d);
    ~softmax_dropout_t();

    // "softmax_dropout:jit:avx512", "softmax_dropout:ref:any+jit:avx2"
    // (the row kernel, then the mask's RNG kernel).
    const std::string &impl_name() const;
    // Never throws but for memory (std::bad_alloc, which the public call
    // makes an out_of_memory error).
    void execute(const softmax_dropout_args_t &a) const;

    // The stats tensor of data dims d: {rows, 2} (rows: the elements of d
    // but the last dim).
    static dims stats_dims(const dims &d);

private:
    struct impl_t;
    std::unique_ptr<impl_t> impl_;
};

} // namespace impl
} // namespace rndnn

#endif
