// OpenMP threading. Kernels split work so that results never depend on the
// thread count; callers pass the stream's thread count.
#ifndef RNDNN_SRC_PARALLEL_HPP
#define RNDNN_SRC_PARALLEL_HPP

#include <exception>
#include <mutex>

#include <omp.h>

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

} // namespace impl
} // namespace rndnn

#endif
