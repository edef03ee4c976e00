// OpenMP threading. Kernels split work so that results never depend on the
// thread count; callers pass the stream's thread count. Which problems are
// worth more than one thread is decided here, by one measured rule
// (threads_for(): docs/architecture.md, "Threads").
#ifndef RNDNN_SRC_PARALLEL_HPP
#define RNDNN_SRC_PARALLEL_HPP

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <exception>
#include <mutex>

#include <omp.h>
#include <strings.h>

#include "rndnn/common.hpp"

namespace rndnn {
namespace impl {

// Runs f(ithr, nthr) on nthr threads (inline when nthr == 1). An exception
// cannot cross an OpenMP region (it would end the process): one that f
// throws on a thread (std::bad_alloc from a kernel's scratch, say) is
// caught there, and the first one is rethrown once every thread is done,
// so that the public call turns it into an rndnn::error (verbose_errors(),
// src/verbose.hpp).
template <typename F>
void parallel(int nthr, const F &f) {
    if (nthr <= 1) {
        f(0, 1);
        return;
    }
    std::exception_ptr failure;
    std::mutex failure_mutex;
#pragma omp parallel num_threads(nthr)
    {
        try {
            f(omp_get_thread_num(), omp_get_num_threads());
        } catch (...) {
            const std::lock_guard<std::mutex> lock(failure_mutex);
            if (!failure) failure = std::current_exception();
        }
    }
    if (failure) std::rethrow_exception(failure);
}

// --- threads only where they pay ---------------------------------------------

// The kernel families whose work per element differs: the RNG kernels by
// distribution (JIT or reference: the reference is slower per element, so
// the JIT's cost is the conservative one for both), dropout's fused kernel,
// the block loop of the pipeline (copy, apply a mask, chain: RNG, multiply,
// scale), softmax-dropout's rows and categorical's rows.
enum class work_t {
    rng_bits,
    rng_bernoulli,
    rng_uniform,
    rng_normal,
    rng_integers,
    rng_exponential,
    rng_gumbel,
    rng_lognormal,
    rng_permutation,
    rng_truncated_normal,
    rng_laplace,
    rng_rayleigh,
    dropout_fused,
    blocks_copy,
    blocks_apply,
    blocks_chain,
    softmax_dropout,
    categorical,
};

// Nanoseconds a family spends per element on one thread, measured with
// `rndnn bench --threads 1` at 2^18 elements (the cheapest data type of the
// family: f32, a bit mask, u32 bits; categorical by a scratch loop over
// 256 rows of 1024) on an Intel Xeon, cpu family 6, model 167, AVX-512
// (docs/performance.md, "Small calls and threads"). The other data types
// and the slower tiers (the reference) cost more per element, so their
// threads get more work than min_thread_ns(), never less. Another CPU has
// other costs: measure them again there.
constexpr double work_ns_per_elem(work_t w) {
    switch (w) {
        case work_t::rng_bits: return 0.49;
        case work_t::rng_bernoulli: return 0.085;
        case work_t::rng_uniform: return 0.55;
        case work_t::rng_normal: return 1.18;
        case work_t::rng_integers: return 1.14;
        case work_t::rng_exponential: return 1.04;
        case work_t::rng_gumbel: return 1.97;
        case work_t::rng_lognormal: return 1.92;
        case work_t::rng_permutation: return 50.0; // the reference only
        case work_t::rng_truncated_normal: return 2.33;
        case work_t::rng_laplace: return 1.07;
        case work_t::rng_rayleigh: return 1.15;
        case work_t::dropout_fused: return 0.19;
        case work_t::blocks_copy: return 0.1;
        case work_t::blocks_apply: return 0.19;
        case work_t::blocks_chain: return 0.42;
        case work_t::softmax_dropout: return 0.51;
        case work_t::categorical: return 2.5;
    }
    return 0.085; // unreachable: the cheapest family's
}

// The least work (ns on one thread) worth a thread of its own: an OpenMP
// region of 2 threads costs 0.7 us where the threads still spin from the
// last region and 3 to 19 us where one must be woken (futex, a VM's idle
// CPU; measured on the same Xeon at load 3-7). A thread gets at least
// 20 us, so that even a woken one leaves 2 threads >= 1.14x faster than 1
// (t2 / t1 <= 1/2 + 15 / (2 * 20)). Under OMP_WAIT_POLICY=passive the
// threads never spin and every region wakes them: 30 to 70 us a region on
// the quiet Xeon (bernoulli u8, 2^19 elements: 45 us on one thread, 91 on
// two; 2^21: 180 and 165), so a thread gets 100 us there.
inline double min_thread_ns() {
    static const double ns = [] {
        const char *policy = std::getenv("OMP_WAIT_POLICY");
        return policy && strcasecmp(policy, "passive") == 0 ? 100000.0
                                                             : 20000.0;
    }();
    return ns;
}

namespace detail {
// set_min_thread_elems()'s value; 0: none.
inline std::atomic<dim_t> min_thread_elems_override {0};
} // namespace detail

// Elements of family w below which a thread is not worth its fork and join
// (>= 1): min_thread_ns() / work_ns_per_elem(w), unless a test set
// another.
inline dim_t min_thread_elems(work_t w) {
    const dim_t o = detail::min_thread_elems_override.load(
            std::memory_order_relaxed);
    if (o > 0) return o;
    return std::max<dim_t>(1,
            static_cast<dim_t>(min_thread_ns() / work_ns_per_elem(w)));
}

// The threads that run n elements of family w when the stream allows
// nthr: at most nthr, and at most one per min_thread_elems(w) elements;
// at least 1. Never changes a value, only who computes it.
inline int threads_for(work_t w, dim_t n, int nthr) {
    if (nthr <= 1 || n <= 0) return 1;
    const dim_t most = n / min_thread_elems(w);
    return static_cast<int>(std::max<dim_t>(1, std::min<dim_t>(nthr, most)));
}

// For tests: min_thread_elems() becomes `elems` for every family (0: the
// measured values again), so that suites checking that values do not
// depend on the thread count split small problems too. Not to be called
// while kernels run.
inline void set_min_thread_elems(dim_t elems) {
    detail::min_thread_elems_override.store(
            std::max<dim_t>(elems, 0), std::memory_order_relaxed);
}

} // namespace impl
} // namespace rndnn

#endif
