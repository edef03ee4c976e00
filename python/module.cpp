// The Python module rndnn._rndnn (pybind11): random tensors into NumPy
// arrays, the generator and dropout. python/rndnn/__init__.py wraps it;
// docs/python.md describes the package.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "rndnn/rndnn.hpp"

namespace py = pybind11;

namespace {

// Fills the C-contiguous array @p out (its bytes: the dense tensor of
// @p dims and @p dt) from the RNG; the GIL is released meanwhile.
void generate(py::array out, const rndnn::dims &dims, rndnn::data_type dt,
        const rndnn::post_ops &po, const std::string &alg, std::int64_t seed,
        std::int64_t offset, std::uint64_t stream, const std::string &name) {
    if (!(out.flags() & py::array::c_style))
        throw rndnn::error(rndnn::status::invalid_arguments,
                "out must be C-contiguous");
    rndnn::rng::desc d(rndnn::str2alg(alg), rndnn::memory::desc(dims, dt));
    d.with_offset = true;
    d.name = name;
    rndnn::primitive_attr attr;
    attr.set_post_ops(po);
    const rndnn::rng prim {rndnn::rng::primitive_desc(d, attr)};
    if (static_cast<std::size_t>(out.nbytes()) != d.dst.get_size())
        throw rndnn::error(rndnn::status::invalid_arguments,
                "out has " + std::to_string(out.nbytes()) + " bytes, the "
                        + d.dst.str() + " tensor takes "
                        + std::to_string(d.dst.get_size()));
    auto *data = static_cast<std::uint8_t *>(out.mutable_data());
    {
        py::gil_scoped_release unlocked;
        prim.execute(rndnn::stream(),
                {{RNDNN_ARG_DST, rndnn::memory(d.dst, data)},
                        {RNDNN_ARG_SEED, rndnn::memory::scalar(seed)},
                        {RNDNN_ARG_OFFSET, rndnn::memory::scalar(offset)},
                        {RNDNN_ARG_STREAM,
                                rndnn::memory::scalar(
                                        static_cast<std::int64_t>(stream))}});
    }
    // A bit tensor's last byte: kernels never write its unused high bits,
    // which are 0 here as in rndnn gen's files (docs/cli.md).
    const rndnn::dim_t n = d.dst.nelems();
    if (dt == rndnn::data_type::bit && n % 8)
        data[n / 8] &= static_cast<std::uint8_t>((1u << (n % 8)) - 1);
}

} // namespace

PYBIND11_MODULE(_rndnn, m) {
    m.doc() = "rndnn: deep-learning randomness on CPUs (the C++ core)";
    py::register_exception<rndnn::error>(m, "Error", PyExc_ValueError);
    m.attr("__version__") = rndnn::version().str;

    // generate(out, shape, dtype, dist, params, alg, seed, offset, stream,
    // name): the one entry point of bits/bernoulli/uniform/normal.
    m.def(
            "generate",
            [](py::array out, const std::vector<std::int64_t> &shape,
                    const std::string &dtype, const std::string &dist,
                    const std::vector<double> &params,
                    const std::string &method, int bits,
                    const std::string &alg, std::int64_t seed,
                    std::int64_t offset, std::uint64_t stream,
                    const std::string &name) {
                rndnn::post_ops po;
                if (dist == "bernoulli")
                    po.append_bernoulli(params.at(0),
                            method == "bitsliced"
                                    ? rndnn::bernoulli_method::bitsliced
                                    : rndnn::bernoulli_method::threshold32,
                            bits);
                else if (dist == "uniform")
                    po.append_uniform(static_cast<float>(params.at(0)),
                            static_cast<float>(params.at(1)));
                else if (dist == "normal")
                    po.append_normal(static_cast<float>(params.at(0)),
                            static_cast<float>(params.at(1)));
                else if (dist != "bits")
                    throw rndnn::error(rndnn::status::invalid_arguments,
                            "unknown distribution '" + dist + "'");
                generate(std::move(out), rndnn::dims(shape.begin(), shape.end()),
                        rndnn::str2dt(dtype), po, alg, seed, offset, stream,
                        name);
            },
            py::arg("out"), py::arg("shape"), py::arg("dtype"),
            py::arg("dist"), py::arg("params"), py::arg("method"),
            py::arg("bits"), py::arg("alg"), py::arg("seed"),
            py::arg("offset"), py::arg("stream"), py::arg("name"));

    py::class_<rndnn::generator>(m, "Generator")
            .def(py::init<std::int64_t, std::int64_t>(), py::arg("seed") = 0,
                    py::arg("offset") = 0)
            .def_property_readonly("seed", &rndnn::generator::get_seed)
            .def_property_readonly("offset", &rndnn::generator::get_offset)
            .def("reserve", &rndnn::generator::reserve, py::arg("count"))
            .def("save",
                    [](const rndnn::generator &g) {
                        const auto s = g.save();
                        return py::bytes(reinterpret_cast<const char *>(s.data()),
                                s.size());
                    })
            .def_static("load", [](const py::bytes &b) {
                const std::string s = b;
                return rndnn::generator::load(s.data(), s.size());
            });
}
