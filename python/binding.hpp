// What the pybind11 module's files share (module.cpp, fast_path.cpp): the
// arrays' bytes, the kernels' stream, tensors of shapes and type names.
#ifndef RNDNN_PYTHON_BINDING_HPP
#define RNDNN_PYTHON_BINDING_HPP

#include <cstdint>
#include <string>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include "rndnn/rndnn.hpp"

namespace rndnn_python {

namespace py = pybind11;

inline rndnn::error invalid(const std::string &message) {
    return rndnn::error(rndnn::status::invalid_arguments, message);
}

// The bytes of the C-contiguous array @p a, which must be those of @p md.
inline std::uint8_t *dense_data(py::array &a, const rndnn::memory::desc &md,
        const char *what, bool writable) {
    if (!(a.flags() & py::array::c_style))
        throw invalid(std::string(what) + " must be C-contiguous");
    if (static_cast<std::size_t>(a.nbytes()) != md.get_size())
        throw invalid(std::string(what) + " has " + std::to_string(a.nbytes())
                + " bytes, the " + md.str() + " tensor takes "
                + std::to_string(md.get_size()));
    return static_cast<std::uint8_t *>(
            writable ? a.mutable_data() : const_cast<void *>(a.data()));
}

// A bit tensor's last byte: kernels never write its unused high bits,
// which are 0 here as in rndnn gen's files (docs/cli.md).
inline void clear_unused_bits(std::uint8_t *data, const rndnn::memory::desc &md) {
    const rndnn::dim_t n = md.nelems();
    if (md.get_data_type() == rndnn::data_type::bit && n % 8)
        data[n / 8] &= static_cast<std::uint8_t>((1u << (n % 8)) - 1);
}

// fork() after threads (docs/python.md): GNU OpenMP's threads do not
// survive fork(), and a child forked after a parallel region ran in the
// parent (rndnn's, or another library's, torch's among them: they share
// libgomp) hangs at its first parallel region. So a child forked from a
// process that had threads other than the forking one runs the kernels of
// this module on one thread, which opens no parallel region; so do its
// own children, which inherit its OpenMP. module.cpp counts the threads in
// the parent just before the fork (pthread_atfork).
inline bool forked_after_threads = false;

// The stream of every kernel: OpenMP's thread count (which torch's
// set_num_threads sets too), or one thread after a fork after threads.
inline rndnn::stream kernel_stream() {
    return rndnn::stream(forked_after_threads ? 1 : 0);
}

inline rndnn::dims to_dims(const std::vector<std::int64_t> &v) {
    return rndnn::dims(v.begin(), v.end());
}

inline rndnn::memory::desc dense(const std::vector<std::int64_t> &shape,
        const std::string &dtype) {
    return rndnn::memory::desc(to_dims(shape), rndnn::str2dt(dtype));
}

// The elements of a tensor of dims @p d.
inline rndnn::dim_t elements(const rndnn::dims &d) {
    rndnn::dim_t n = 1;
    for (const rndnn::dim_t k : d)
        n *= k;
    return n;
}

// Registers the lean path's functions in @p m (fast_path.cpp).
void add_fast_path(py::module_ &m);

} // namespace rndnn_python

#endif
