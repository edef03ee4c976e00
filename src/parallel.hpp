// OpenMP threading. Kernels split work so that results never depend on the
// thread count; callers pass the stream's thread count.
#ifndef RNDNN_SRC_PARALLEL_HPP
#define RNDNN_SRC_PARALLEL_HPP

#include <omp.h>

namespace rndnn {
namespace impl {

// Runs f(ithr, nthr) on nthr threads (inline when nthr == 1). f must not
// throw: exceptions cannot cross an OpenMP region.
template <typename F>
void parallel(int nthr, const F &f) {
    if (nthr <= 1) {
        f(0, 1);
        return;
    }
#pragma omp parallel num_threads(nthr)
    f(omp_get_thread_num(), omp_get_num_threads());
}

} // namespace impl
} // namespace rndnn

#endif
