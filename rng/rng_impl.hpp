// The RNG primitive's internal interface: the validated problem
// (rng_conf_t), one execution's runtime values (rng_run_t), kernels, and the
// implementation list that creation walks.
#ifndef RNDNN_RNG_RNG_IMPL_HPP
#define RNDNN_RNG_RNG_IMPL_HPP

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "rndnn/rng.hpp"

namespace rndnn {
namespace impl {

enum class dist_t { bits, bernoulli, uniform, normal };

// A problem that passed validation (rng.cpp): every value is in range.
struct rng_conf_t {
    rng_alg alg = rng_alg::philox4x32_10;
    dist_t dist = dist_t::bits;
    bernoulli_method method = bernoulli_method::threshold32;
    int bits = 1; // bitsliced b
    double p = 0.5; // unless runtime_p
    bool runtime_p = false;
    float a = 0.f, b = 1.f, mean = 0.f, stddev = 1.f;
    memory::desc dst;
    dim_t nelems = 0;
    std::string name; // multfly key name
    cpu_isa max_isa = cpu_isa::avx512; // the attribute's cap
};

// One execution: the runtime arguments, checked.
struct rng_run_t {
    uint64_t seed = 0; // the s64 seed as u64
    uint64_t stream = 0;
    dim_t offset = 0; // >= 0, offset + nelems <= 2^63 - 1
    double p = 0.5; // the Bernoulli p, runtime or not
    void *dst = nullptr;
    int nthr = 1;
};

class rng_kernel_t {
public:
    virtual ~rng_kernel_t() = default;
    // Never throws; the run is valid.
    virtual void execute(const rng_run_t &run) const = 0;
};

// One entry of the implementation list. init() is the primitive
// descriptor's run of guards: it returns false and says why when the
// implementation does not apply. create() builds the kernel (and its JIT
// code) once per primitive, for a problem init() accepted.
struct rng_impl_t {
    const char *name;
    bool (*init)(const rng_conf_t &conf, std::string &why);
    std::unique_ptr<rng_kernel_t> (*create)(const rng_conf_t &conf);
};

// Best first; the reference is last and takes every valid problem.
const std::vector<rng_impl_t> &rng_impl_list();

// The reference kernel (rng/ref/ref_rng.cpp): takes every valid problem.
bool init_ref_rng(const rng_conf_t &conf, std::string &why);
std::unique_ptr<rng_kernel_t> create_ref_rng(const rng_conf_t &conf);

// The JIT kernels (rng/jit/jit_rng.cpp) at tier isa; init() declines
// problems they do not cover, tiers the CPU lacks and tiers above the caps.
bool init_jit_rng(cpu_isa isa, const rng_conf_t &conf, std::string &why);
std::unique_ptr<rng_kernel_t> create_jit_rng(
        cpu_isa isa, const rng_conf_t &conf);

} // namespace impl
} // namespace rndnn

#endif
