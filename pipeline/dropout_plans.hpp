// Dropout's plans: the validated problem (dropout_conf_t), one execution's
// values (dropout_run_t), and the implementation list of plans that
// dropout::primitive_desc walks (copy, fused JIT per tier, apply a read
// mask, chain; docs/dropout.md).
#ifndef RNDNN_PIPELINE_DROPOUT_PLANS_HPP
#define RNDNN_PIPELINE_DROPOUT_PLANS_HPP

#include <memory>
#include <string>
#include <vector>

#include "rndnn/dropout.hpp"
#include "rng/distributions.hpp"
#include "rng/rng_impl.hpp"
#include "rng/window.hpp"

namespace rndnn {
namespace impl {

// A dropout problem that passed validation (pipeline/dropout.cpp).
struct dropout_conf_t {
    dropout::desc desc;
    primitive_attr attr;
    dims noise; // the noise shape (the data's when desc.noise_shape is {})
    dim_t n = 0; // data elements
    dim_t mask_n = 0; // noise elements (the global mask's with a window)
    bool has_mask = false; // desc.mask is not empty
    bool broadcast = false; // noise != the data's shape
    // The mask comes from the RNG (all but backward with a stored mask).
    bool generate = false;
    // The noise mask's window of the global mask (inactive without one).
    rng_window_t window;
    // A window that is one contiguous range of the global mask, not
    // broadcast (a block of whole rows): the window is left inactive and
    // the range's first global index is added to the offset, so that it
    // runs as a plain problem (fused) rather than pregenerated.
    dim_t offset_shift = 0;
    // The block's whole noise mask is generated first (a broadcast noise
    // shape, or a window), then read.
    bool pregenerate = false;
    // The mask's RNG problem over the noise shape: dst is the mask desc, or
    // without a mask a dense bit tensor; a creation-time rate's p is in it.
    rng_conf_t noise_rng;
    // A creation-time rate's p and scale (dropout_keep()); unset for a
    // runtime rate.
    dropout_keep_t keep {0.0, 0.f, 0.0};
    std::string info; // the problem as pd.info() prints it
};

// Validates c.desc under c.attr into c (every field but info): the checks
// dropout::primitive_desc documents.
// @throws error (invalid_arguments) naming the bad value.
void check_dropout_desc(dropout_conf_t &c);

// One execution. Handles point at the memories' buffers (their offset0 not
// applied); mask is null without a mask.
struct dropout_run_t {
    const void *src;
    void *dst; // may equal src
    void *mask;
    // seed, stream, offset and p, the probability of a 1 (a keep), when the
    // mask is generated; nthr always. dst is unset.
    rng_run_t rng;
    float scale; // of kept elements: fma(scale, x, -0.f)
    int nthr;
};

class dropout_kernel_t {
public:
    virtual ~dropout_kernel_t() = default;
    // Never throws for a valid run, except for oneDNN or allocation
    // failures (error, runtime_error; std::bad_alloc, which the public
    // call makes an out_of_memory error).
    virtual void execute(const dropout_run_t &run) const = 0;
};

// A plan for one problem, made by its entry of the list. init() decides
// whether it takes the problem (else says why) and picks the
// implementations of its kernels (making the RNG's and apply's kernels as
// their lists' walks do); create() builds the dropout kernel from them,
// in the walk of the plans (pick_dropout_plan()), so that a fused JIT
// kernel whose code cannot be generated declines (codegen_error).
class dropout_plan_t {
public:
    virtual ~dropout_plan_t() = default;
    virtual bool init(std::string &why) = 0;
    // After init(): "fused:jit:avx2", "chain:jit:avx2+jit:avx2+onednn:...".
    virtual std::string name() const = 0;
    // After init(): the public plan kind it is.
    virtual dropout_plan kind() const = 0;
    virtual std::unique_ptr<dropout_kernel_t> create() const = 0;
};

// One entry of the list: a name for verbose lines ("fused:jit:avx2") and
// the plan's maker (isa: the tier of a JIT entry, else none).
struct dropout_impl_t {
    std::string name;
    cpu_isa isa;
    std::unique_ptr<dropout_plan_t> (*make)(
            cpu_isa isa, const dropout_conf_t &conf);
};

// copy, fused JIT per tier of jit_tiers(), apply (the mask is read), chain.
const std::vector<dropout_impl_t> &dropout_impl_list();

// A plan that serves a problem and the kernel it made (immutable: the
// primitives of one primitive descriptor share it).
struct dropout_picked_t {
    std::unique_ptr<dropout_plan_t> plan;
    std::shared_ptr<const dropout_kernel_t> kernel;
    explicit operator bool() const { return kernel != nullptr; }
};

// The first plan of the list whose init() takes conf and whose kernel can
// be made (a fused JIT kernel whose code cannot be generated declines);
// declines are logged as verbose `check` lines under conf.info.
// @throws error (unimplemented) naming every decline if none does ("the
// fused plan does not apply to ..." when desc.plan is fused).
dropout_picked_t pick_dropout_plan(const dropout_conf_t &conf);

} // namespace impl
} // namespace rndnn

#endif
