// The RNG primitive's internal interface: the validated problem
// (rng_conf_t), kernels, and the implementation list that creation walks.
// One execution's runtime values (rng_run_t) and their reader:
// rng/rng_args.hpp.
#ifndef RNDNN_RNG_RNG_IMPL_HPP
#define RNDNN_RNG_RNG_IMPL_HPP

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "rndnn/rng.hpp"
#include "rng/distributions.hpp"
#include "rng/engines/word_source.hpp"
#include "rng/rng_args.hpp"
#include "src/impl_list.hpp"
#include "src/parallel.hpp"

namespace rndnn {
namespace impl {

enum class dist_t {
    bits,
    bernoulli,
    uniform,
    normal,
    integers,
    exponential,
    gumbel,
    lognormal,
    permutation,
    truncated_normal,
    laplace,
    rayleigh,
};

// How a JIT kernel evaluates bitsliced(b); every way gives the same bits.
enum class bitsliced_eval_t {
    // lazy where the engine addresses its words by counter and b is a
    // multiple of 4 or at least the tuning's lazy_min_bits
    // (src/jit_tuning.hpp), else eager.
    automatic,
    // Every word of every group (the tests' oracle for lazy).
    eager,
    // Level by level from the most significant bit, a row of groups at a
    // time, drawing no word that no element of the row needs.
    lazy,
};

// A problem that passed validation (rng.cpp): every value is in range.
struct rng_conf_t {
    rng_alg alg = rng_alg::philox4x32_10;
    dist_t dist = dist_t::bits;
    // bernoulli: how a decision is made from words (include/rndnn/
    // enums.hpp), never automatic. Under every method p is the probability
    // of a 1: threshold32, 1 iff W < ceil(p * 2^32) (mcg31m1: W < ceil(p *
    // m)); bitsliced(b), 32 decisions from b words, 1 iff U < round(p *
    // 2^b); onednn, 1 iff ~W < ceil(p * 2^32) (rng/distributions.hpp).
    bernoulli_method method = bernoulli_method::threshold32;
    int bits = 1; // bitsliced b
    bitsliced_eval_t eval = bitsliced_eval_t::automatic; // JIT bitsliced
    // JIT bytewise: the engine blocks of tie words a chunk holds (0: one
    // vector's lanes, enough for a unit's ties but 1 time in 10^3 or less);
    // tests set 1 so that chunks run out every four ties.
    int tie_chunk_blocks = 0;
    double p = 0.5; // the probability of a 1, unless runtime_p
    bool runtime_p = false;
    // bernoulli with a p tensor (rng::desc::p_tensor; method threshold32):
    // element i's p is the p_dt element at rng_run_t::p_src + sum_d i_d *
    // p_strides[d] (i_d its coordinates in dst's dims; a stride is 0
    // where p broadcasts).
    bool p_tensor = false;
    data_type p_dt = data_type::f32;
    dims p_strides;
    // The real parameters as the kernels use them (post_ops::entry's): as
    // given for an f64 dst, else rounded to f32 by make_rng_conf, so that
    // the f32 kernels' static_cast<float> of each is exact.
    double a = 0.0, b = 1.0, mean = 0.0, stddev = 1.0;
    // integers: low and r = high - low in [1, 2^64) (rng/distributions.hpp).
    int64_t low = 0;
    uint64_t range = 2;
    // exponential and rayleigh: scale; gumbel and laplace: loc, scale;
    // lognormal: mean, sigma in mean and stddev (its exponent is
    // normal(mean, sigma)).
    double loc = 0.0, scale = 1.0;
    // permutation: n in [1, 2^63) (rng/distributions.hpp).
    uint64_t n = 1;
    // truncated_normal: a, b, mean, stddev above, and its constants (f64
    // dst: truncnorm64's).
    truncnorm_t truncnorm;
    truncnorm_f64_t truncnorm64;
    memory::desc dst;
    dim_t nelems = 0;
    std::string name; // multfly key name
    cpu_isa max_isa = cpu_isa::all; // the attribute's cap
};

// The thread rule's family of an RNG problem (src/parallel.hpp): its
// distribution's.
inline work_t rng_work(const rng_conf_t &c) {
    switch (c.dist) {
        case dist_t::bits: return work_t::rng_bits;
        case dist_t::bernoulli: return work_t::rng_bernoulli;
        case dist_t::uniform: return work_t::rng_uniform;
        case dist_t::normal: return work_t::rng_normal;
        case dist_t::integers: return work_t::rng_integers;
        case dist_t::exponential: return work_t::rng_exponential;
        case dist_t::gumbel: return work_t::rng_gumbel;
        case dist_t::lognormal: return work_t::rng_lognormal;
        case dist_t::permutation: return work_t::rng_permutation;
        case dist_t::truncated_normal: return work_t::rng_truncated_normal;
        case dist_t::laplace: return work_t::rng_laplace;
        case dist_t::rayleigh: return work_t::rng_rayleigh;
    }
    return work_t::rng_bernoulli; // unreachable: the cheapest family
}

// bernoulli_method::automatic as the method it is for alg (attr.hpp), with
// its b; other methods are returned as they are.
void resolve_bernoulli_method(
        rng_alg alg, bernoulli_method &method, int &bits);

// Validates an RNG problem (the checks rng::primitive_desc documents).
rng_conf_t make_rng_conf(const rng::desc &d, const primitive_attr &attr);
// A Bernoulli post-op's values (post_ops::entry's p, method and bits).
struct bernoulli_t {
    double p;
    bernoulli_method method;
    int bits;
};
// make_rng_conf() of @p d with the Bernoulli post-op @p b and the ISA cap
// @p max_isa: dropout's mask, built without a post-op (p is unused with
// d.runtime_p).
rng_conf_t make_bernoulli_conf(
        const rng::desc &d, const bernoulli_t &b, cpu_isa max_isa);
// The problem as one line: "alg=...,dist=...,dst=...".
std::string rng_info(const rng_conf_t &conf);
// rng_info's "alg=...,dist=..." part alone (no dst, no name).
std::string rng_alg_dist_info(const rng_conf_t &conf);

class rng_kernel_t {
public:
    virtual ~rng_kernel_t() = default;
    // The run is valid: throws only std::bad_alloc, where the memory of
    // a thread's scratch or word source runs out (the public call makes it
    // an out_of_memory error).
    virtual void execute(const rng_run_t &run) const = 0;
};

// One entry of the implementation list (src/impl_list.hpp).
using rng_impl_t = impl_entry_t<rng_conf_t, rng_kernel_t>;

// A JIT entry per tier (jit:<tier>), best first, then a simd:<tier> entry
// for each tier with mt19937 vector word code; the reference (ref:any) is
// last and takes every valid problem.
const std::vector<rng_impl_t> &rng_impl_list();

// An implementation that serves a problem and the kernel it made.
using rng_picked_t = picked_t<rng_impl_t, rng_kernel_t>;

// The first implementation of the list that takes conf and whose kernel
// can be made (a JIT kernel whose code cannot be generated declines);
// declines are logged as verbose `check` lines under `info`. With a
// window: pick_rng_window_impl() (rng/window.hpp).
// @throws error (unimplemented) naming `info` if none does.
rng_picked_t pick_rng_impl(const rng_conf_t &conf, const std::string &info);

// The reference kernel (rng/ref/ref_rng.cpp): takes every valid problem.
bool init_ref_rng(const rng_conf_t &conf, std::string &why);
std::unique_ptr<rng_kernel_t> create_ref_rng(const rng_conf_t &conf);

// The reference kernel with the words of @p words (seed, stream) and a p
// tensor's decisions from @p decide: the JIT tiers' kernel of a p tensor
// (rng/jit/jit_rng.cpp), whose words come from their bits kernel and whose
// decisions from their compare code, bit for bit the reference's.
using word_source_maker_t = std::function<std::unique_ptr<word_source_t>(
        uint64_t seed, uint64_t stream)>;
// Decides elements [0, m) of n, flags[k] = bernoulli_tensor_decide(words[k],
// p[k]), for some m <= n that it returns; the reference decides the rest.
using p_decider_t = std::function<dim_t(
        const uint32_t *words, const float *p, dim_t n, uint8_t *flags)>;
std::unique_ptr<rng_kernel_t> create_ref_rng_with_words(const rng_conf_t &conf,
        word_source_maker_t words, p_decider_t decide);

// The reference kernel with mt19937's words in tier isa's vector code
// (rng/ref/ref_rng.cpp): init() declines other algorithms, tiers the CPU
// lacks and tiers above the caps.
bool init_simd_rng(cpu_isa isa, const rng_conf_t &conf, std::string &why);
std::unique_ptr<rng_kernel_t> create_simd_rng(
        cpu_isa isa, const rng_conf_t &conf);

// The JIT kernels (rng/jit/jit_rng.cpp) at tier isa; init() declines
// problems they do not cover, tiers the CPU lacks and tiers above the caps.
bool init_jit_rng(cpu_isa isa, const rng_conf_t &conf, std::string &why);
std::unique_ptr<rng_kernel_t> create_jit_rng(
        cpu_isa isa, const rng_conf_t &conf);

} // namespace impl
} // namespace rndnn

#endif
