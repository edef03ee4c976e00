// The glue to oneDNN that the pipeline (binary, dropout's chain) and the
// graph (its lowered oneDNN primitives) share: one CPU engine, rndnn ->
// oneDNN memory descriptors, thread control, and the eltwise scale
// (linear) step.
// Nothing here leaks into the public headers.
#ifndef RNDNN_SRC_ONEDNN_HPP
#define RNDNN_SRC_ONEDNN_HPP

#include <string>

#include <oneapi/dnnl/dnnl.hpp>

#include "rndnn/memory.hpp"

namespace rndnn {
namespace impl {

// The process's oneDNN CPU engine.
const dnnl::engine &onednn_engine();

// oneDNN's type for dt; throws error (unimplemented) for bit, u32, s64.
dnnl::memory::data_type to_onednn(data_type dt);
// dims, strides and type of md (offset0 goes into the handle instead:
// onednn_handle()).
dnnl::memory::desc to_onednn(const memory::desc &md);
// The rndnn desc of a plain oneDNN desc (no blocking; offset0 0), as
// to_onednn() writes them; throws error (unimplemented) for another.
memory::desc from_onednn(const dnnl::memory::desc &md);
// The address of md's first element in m.
void *onednn_handle(const memory &m);

// Sets OpenMP's thread count for oneDNN calls made on this thread (oneDNN
// reads omp_get_max_threads() at execution), and restores it.
class omp_threads_guard_t {
public:
    explicit omp_threads_guard_t(int nthr);
    ~omp_threads_guard_t();
    omp_threads_guard_t(const omp_threads_guard_t &) = delete;
    omp_threads_guard_t &operator=(const omp_threads_guard_t &) = delete;

private:
    int saved_;
};

// dst = fma(alpha, src, -0.f) by oneDNN's eltwise_linear (beta = -0.f,
// which equals 0 but keeps the sign of a zero product: the step is then an
// exact multiplication rounded once), over a dense 1D block of n elements
// of type dt; src may equal dst.
class eltwise_scale_t {
public:
    eltwise_scale_t() = default;
    // Creates the primitive; ok() is false (and why() says why) if oneDNN
    // has no implementation for dt on this CPU.
    eltwise_scale_t(data_type dt, dim_t n, float alpha);
    bool ok() const { return ok_; }
    const std::string &why() const { return why_; }
    // "onednn:jit:avx2" and the like.
    std::string name() const;
    // Runs on the calling thread only.
    // @throws error (runtime_error) if oneDNN fails.
    void execute(const void *src, void *dst) const;

private:
    bool ok_ = false;
    std::string why_;
    dnnl::memory::desc md_;
    dnnl::eltwise_forward prim_;
    std::string impl_;
};

} // namespace impl
} // namespace rndnn

#endif
