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

// Which runtime arguments an execution reads (rng::desc's fields).
struct rng_arg_spec_t {
    data_type seed_dt = data_type::s64;
    scalar_kind scalars = scalar_kind::host;
    bool with_seed = true; // false: no seed is read (run.seed stays 0)
    bool with_offset = false;
    bool with_next_offset = false;
    int p_arg = 0; // the id of a runtime probability (f32 in [0, 1]), or 0
    dim_t nelems = 0; // elements generated: offset + nelems <= 2^63 - 1
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
