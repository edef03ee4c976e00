// The fused dropout kernel: one pass that generates the keep mask (the RNG
// primitive's engine and Bernoulli code), applies it to the data and
// scales, and optionally stores the mask. It computes exactly what the
// chain computes: mask = the RNG problem `conf.rng`, then per element
// apply_value(mul, src, bit, 1, {scale, -0.f}), rounded to conf.dt.
#ifndef RNDNN_PIPELINE_FUSED_HPP
#define RNDNN_PIPELINE_FUSED_HPP

#include <memory>
#include <string>

#include "rng/rng_impl.hpp"

namespace rndnn {
namespace impl {

struct fused_conf_t {
    // The mask's RNG problem: a bernoulli post-op, dst a bit tensor with the
    // data's element count: the mask memory's desc when it is a bit tensor
    // (dense, any offset0), else a dense bit tensor the kernel never writes.
    rng_conf_t rng;
    data_type dt = data_type::f32; // src and dst, dense, same dims
    bool write_mask = false;
    // When write_mask: the mask memory, rng.dst itself or a dense u8 tensor
    // (0/1 bytes, any offset0) with the data's element count.
    memory::desc mask;
};

struct fused_run_t {
    // seed, stream, offset, p (for the oneDNN rule: the rate), nthr; dst is
    // the mask memory's handle when write_mask, else unused.
    rng_run_t rng;
    const void *src; // the data's first element (offset0 applied)
    void *dst; // ditto; may equal src
    // kept elements: fma(scale, src, -0.f). Not NaN (dropout's scale is
    // 1 / (1 - rate) or 0): bf16 results then round without a NaN case
    // (jit_apply_emitter.hpp, scaled_select).
    float scale;
};

class fused_kernel_t {
public:
    virtual ~fused_kernel_t() = default;
    // Never throws; the run is valid.
    virtual void execute(const fused_run_t &run) const = 0;
};

// The JIT kernels (pipeline/jit/jit_fused.cpp) at tier isa: init() declines,
// saying why, what they do not cover.
bool init_jit_fused(cpu_isa isa, const fused_conf_t &conf, std::string &why);
std::unique_ptr<fused_kernel_t> create_jit_fused(
        cpu_isa isa, const fused_conf_t &conf);

} // namespace impl
} // namespace rndnn

#endif
