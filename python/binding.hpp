// What the pybind11 module's files share (module.cpp, fast_path.cpp): the
// arrays' bytes, tensors of shapes and type names, and binding_support.hpp
// (what the torch operators share too).
#ifndef RNDNN_PYTHON_BINDING_HPP
#define RNDNN_PYTHON_BINDING_HPP

#include <cstdint>
#include <string>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include "binding_support.hpp"
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
