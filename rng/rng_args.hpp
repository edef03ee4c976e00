// The RNG's runtime arguments: what one execution of an RNG problem (the
// RNG primitive's, or the mask of dropout's) reads, checked, and the values
// its kernels run on (rng_run_t).
#ifndef RNDNN_RNG_RNG_ARGS_HPP
#define RNDNN_RNG_RNG_ARGS_HPP

#include <cstdint>
#include <unordered_map>

#include "rndnn/attr.hpp"
#include "rndnn/common.hpp"
#include "rndnn/memory.hpp"
#include "rndnn/rng.hpp"

namespace rndnn {
namespace impl {

// One execution: the runtime arguments, checked; what the RNG kernels
// (rng/rng_impl.hpp) and the fused dropout kernel run on.
struct rng_run_t {
    uint64_t seed = 0; // the s64 seed as u64
    uint64_t stream = 0;
    dim_t offset = 0; // >= 0, offset + nelems <= 2^63 - 1
    double p = 0.5; // the Bernoulli p, runtime or not
    // The p tensor (rng_conf_t::p_tensor): its element for dst's element 0
    // (offset0 applied), values checked to lie in [0, 1]; else nullptr.
    const void *p_src = nullptr;
    void *dst = nullptr;
    int nthr = 1;
};

// Which runtime arguments an execution reads: its draw's (draw_desc).
struct rng_arg_spec_t {
    rng_arg_spec_t(const draw_desc &d, dim_t n)
        : seed_dt(d.seed_dt)
        , scalars(d.scalars)
        , with_offset(d.with_offset)
        , with_next_offset(d.with_next_offset)
        , nelems(n) {}
    data_type seed_dt;
    scalar_kind scalars;
    bool with_offset;
    bool with_next_offset;
    dim_t nelems; // elements drawn: offset + nelems <= 2^63 - 1
    bool with_seed = true; // false: no seed is read (run.seed stays 0)
    int p_arg = 0; // the id of a runtime probability (f32 in [0, 1]), or 0
    // The desc of a p tensor (RNDNN_ARG_SRC: dense, f32 or bf16, values in
    // [0, 1]), or nullptr.
    const memory::desc *p_tensor = nullptr;
};
struct rng_args_t {
    // seed, offset, stream, (if p_arg) p and (if p_tensor) p_src; the rest
    // unset
    rng_run_t run;
    int64_t *next_offset = nullptr; // where to write it, if asked
};
// Reads and checks the arguments (src/args.hpp's readers).
// @throws error (invalid_arguments) naming a missing or bad one.
rng_args_t read_rng_args(const rng_arg_spec_t &spec,
        const std::unordered_map<int, memory> &args);

} // namespace impl
} // namespace rndnn

#endif
