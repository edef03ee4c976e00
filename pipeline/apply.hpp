// The apply kernels: dst = post-ops(src op bit) over a dense block, the
// inner loop of the binary primitive's bit path and of dropout's chain.
// Every implementation computes exactly apply_value() (pipeline/apply.hpp)
// per element, so results are identical at every ISA tier.
#ifndef RNDNN_PIPELINE_APPLY_HPP
#define RNDNN_PIPELINE_APPLY_HPP

#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "rndnn/binary.hpp"
#include "src/impl_list.hpp"

namespace rndnn {
namespace impl {

// A block problem, fixed at creation.
struct apply_conf_t {
    binary_alg alg = binary_alg::mul;
    data_type dt = data_type::f32; // src and dst: f32, bf16 or f16
    int n_linear = 0; // linear post-ops; their values come with each call
    cpu_isa max_isa = cpu_isa::all; // the attribute's cap
    // Large f32 outputs that nothing reads back soon (dropout's apply
    // plan): JIT kernels also generate a function with non-temporal
    // stores, which calls with apply_call_t::stream use.
    bool stream_out = false;
};

// One call: n elements, all dense.
struct apply_call_t {
    const void *src; // n elements of conf.dt
    const uint8_t *mask; // element k's bit: bit (k % 8) of mask[k / 8]
    void *dst; // n elements of conf.dt; may equal src
    int64_t n; // >= 0, any value (kernels handle tails)
    const float *linear; // conf.n_linear pairs (alpha, beta), in order
    // With conf.stream_out: dst is the output's memory (not a scratch that
    // is read back); kernels may then store non-temporally where dst is
    // aligned. Results are the same either way.
    bool stream = false;
};

// The value of one element, in f32 before rounding to the dst type:
// mul selects (bit ? s : +0, so Inf and NaN do not pass a 0 bit), add adds
// 0 or 1; then each linear post-op x = fma(alpha, x, beta).
inline float apply_value(binary_alg alg, float s, bool bit, int n_linear,
        const float *linear) {
    float x = alg == binary_alg::mul ? (bit ? s : 0.f) : s + (bit ? 1.f : 0.f);
    for (int i = 0; i < n_linear; ++i)
        x = std::fma(linear[2 * i], x, linear[2 * i + 1]);
    return x;
}

class apply_kernel_t {
public:
    virtual ~apply_kernel_t() = default;
    // Never throws.
    virtual void operator()(const apply_call_t &call) const = 0;
};

// One entry of the implementation list, as rng_impl_t.
using apply_impl_t = impl_entry_t<apply_conf_t, apply_kernel_t>;

// A JIT entry per tier, best first; the reference is last and takes every
// problem.
const std::vector<apply_impl_t> &apply_impl_list();

// An implementation that serves a problem and the kernel it made.
using apply_picked_t = picked_t<apply_impl_t, apply_kernel_t>;

// The first implementation of the list that takes conf and whose kernel
// can be made (the reference takes all; a JIT kernel whose code cannot be
// generated declines). Declines are logged as verbose `check` lines under
// `info`.
apply_picked_t pick_apply_impl(
        const apply_conf_t &conf, const std::string &info);

// The reference kernel (pipeline/ref/ref_apply.cpp).
bool init_ref_apply(const apply_conf_t &conf, std::string &why);
std::unique_ptr<apply_kernel_t> create_ref_apply(const apply_conf_t &conf);

// The JIT kernels (pipeline/jit/jit_apply.cpp) at tier isa.
bool init_jit_apply(cpu_isa isa, const apply_conf_t &conf, std::string &why);
std::unique_ptr<apply_kernel_t> create_jit_apply(
        cpu_isa isa, const apply_conf_t &conf);

} // namespace impl
} // namespace rndnn

#endif
