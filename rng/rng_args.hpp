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
};
struct rng_args_t {
    rng_run_t run; // seed, offset, stream and (if p_arg) p; the rest unset
    int64_t *next_offset = nullptr; // where to write it, if asked
};
// Reads and checks the arguments (src/args.hpp's readers).
// @throws error (invalid_arguments) naming a missing or bad one.
rng_args_t read_rng_args(const rng_arg_spec_t &spec,
        const std::unordered_map<int, memory> &args);

} // namespace impl
} // namespace rndnn

#endif
