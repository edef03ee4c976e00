// The Python module rndnn._rndnn (pybind11): random tensors into NumPy
// arrays, the generator and dropout. python/rndnn/_arrays.py wraps it;
// docs/python.md describes the package.
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/operators.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "binding.hpp"
#include "rndnn/rndnn.hpp"

namespace py = pybind11;
using namespace rndnn_python;

namespace {

// The (seed, offset) of a call of @p count elements: @p seed and @p
// offset as given or, with a @p generator, its seed and the first of the
// @p count elements it reserves. Called once the call's arguments are
// checked, right before its kernel runs, with the GIL held: a bad argument
// reserves nothing, and the seed and the range are read in one step. A
// range reserved is never given back, even where the call fails after
// it: threads that share the generator reserve while kernels run (the GIL
// released), so putting the offset back would hand their ranges out again
// (docs/python.md).
std::pair<std::int64_t, std::int64_t> draw(std::int64_t seed,
        std::int64_t offset, rndnn::generator *generator,
        rndnn::dim_t count) {
    if (!generator) return {seed, offset};
    const std::int64_t first = generator->reserve(count);
    return {generator->get_seed(), first};
}

// Fills @p out (the dense tensor of @p shape and @p dtype) from the RNG;
// the GIL is released meanwhile. A generator reserves the elements of the
// global tensor, so that every block of a partition moves its generator
// alike (each rank's copy stays the same).
// A window (docs/semantics.md, "Windows") where @p global_shape is not
// empty: @p shape is then the block at @p origin (empty: zeros). @p p:
// bernoulli's p tensor (rng::desc::p_tensor), dense, of @p p_shape and
// @p p_dtype (f32 or bf16), or none.
void generate(py::array out, const std::vector<std::int64_t> &shape,
        const std::string &dtype, const rndnn::post_ops &po,
        const std::string &alg, const std::string &name, std::uint64_t stream,
        const std::vector<std::int64_t> &global_shape,
        const std::vector<std::int64_t> &origin, std::int64_t seed,
        std::int64_t offset, rndnn::generator *generator,
        std::optional<py::array> p, const std::vector<std::int64_t> &p_shape,
        const std::string &p_dtype) {
    rndnn::rng::desc d(rndnn::str2alg(alg), dense(shape, dtype));
    if (p) d.p_tensor = dense(p_shape, p_dtype);
    d.with_offset = true;
    d.name = name;
    d.global_dims = to_dims(global_shape);
    d.origin = to_dims(origin);
    rndnn::primitive_attr attr;
    attr.set_post_ops(po);
    static recent_primitives_t<std::pair<rndnn::rng::desc, rndnn::primitive_attr>,
            rndnn::rng>
            recent;
    const auto prim = recent.get({d, attr},
            [&] { return rndnn::rng(rndnn::rng::primitive_desc(d, attr)); });
    std::uint8_t *data = dense_data(out, d.dst, "out", true);
    std::unordered_map<int, rndnn::memory> args
            = {{RNDNN_ARG_DST, rndnn::memory(d.dst, data)},
                    {RNDNN_ARG_STREAM,
                            rndnn::memory::scalar(
                                    static_cast<std::int64_t>(stream))}};
    if (p)
        args[RNDNN_ARG_SRC] = rndnn::memory(
                d.p_tensor, dense_data(*p, d.p_tensor, "p", false));
    const auto [drawn_seed, drawn_offset]
            = draw(seed, offset, generator,
                    elements(d.global_dims.empty() ? d.dst.get_dims()
                                                   : d.global_dims));
    args[RNDNN_ARG_SEED] = rndnn::memory::scalar(drawn_seed);
    args[RNDNN_ARG_OFFSET] = rndnn::memory::scalar(drawn_offset);
    {
        py::gil_scoped_release unlocked;
        prim->execute(kernel_stream(), args);
    }
    clear_unused_bits(data, d.dst);
}

// The method named as rndnn/_arrays.py's _method() names it: the
// library's names.
rndnn::bernoulli_method to_method(const std::string &method) {
    return rndnn::str2bernoulli_method(method);
}

// Dropout forward (src -> dst, the mask written if given) or backward
// (diff_dst as src -> diff_src as dst, the mask read if given, else
// recomputed); src and dst may be one array. With a window (@p
// global_shape not empty), the data are the block at @p origin of a
// tensor of @p global_shape, @p noise_shape is the global tensor's and the
// mask is the block's (1 where the noise shape has 1). The GIL is released
// while the primitive runs. Returns the (seed, offset) used.
std::pair<std::int64_t, std::int64_t> dropout(py::array src, py::array dst,
        std::optional<py::array> mask, const std::vector<std::int64_t> &shape,
        const std::string &dtype, const std::vector<std::int64_t> &noise_shape,
        const std::string &mask_dtype, double rate, bool backward,
        const std::string &method, int bits, const std::string &alg,
        const std::string &name, std::uint64_t stream,
        const std::vector<std::int64_t> &global_shape,
        const std::vector<std::int64_t> &origin, std::int64_t seed,
        std::int64_t offset, rndnn::generator *generator) {
    rndnn::dropout::desc d;
    d.prop = backward ? rndnn::prop_kind::backward
                      : rndnn::prop_kind::forward_training;
    d.src = d.dst = dense(shape, dtype);
    d.noise_shape = to_dims(noise_shape);
    d.global_dims = to_dims(global_shape);
    d.origin = to_dims(origin);
    // The block's mask: the block's dims, 1 where the noise shape has 1
    // (the library checks that the noise shape fits).
    rndnn::dims mask_dims = to_dims(shape);
    for (std::size_t k = 0; k < noise_shape.size() && k < mask_dims.size(); ++k)
        if (noise_shape[k] == 1) mask_dims[k] = 1;
    if (mask) d.mask = rndnn::memory::desc(mask_dims, rndnn::str2dt(mask_dtype));
    d.rate = rate;
    d.alg = rndnn::str2alg(alg);
    d.method = to_method(method);
    d.bits = bits;
    d.name = name;
    d.with_offset = true;
    static recent_primitives_t<rndnn::dropout::desc, rndnn::dropout> recent;
    const auto prim = recent.get(
            d, [&] { return rndnn::dropout(rndnn::dropout::primitive_desc(d)); });

    // Read only: in place, dst's bytes are src's and are checked writable.
    std::uint8_t *s = dense_data(src, d.src, backward ? "dy" : "x", false);
    std::uint8_t *t = dense_data(dst, d.dst, "out", true);
    std::uint8_t *m = mask ? dense_data(*mask, d.mask, "mask", !backward)
                           : nullptr;
    // The global mask's elements (the noise shape is the global one).
    const auto [drawn_seed, drawn_offset] = draw(seed, offset, generator,
            elements(!d.noise_shape.empty() ? d.noise_shape
                            : !d.global_dims.empty() ? d.global_dims
                                                     : d.src.get_dims()));
    // No data and no mask to write: nothing to draw (the library would
    // still draw a broadcast noise mask whole, 512 MiB for Dropout2d's
    // (65536, 65536, 0, 2)); the generator has moved on as for any data.
    if (d.src.nelems() == 0 && (backward || !m))
        return {drawn_seed, drawn_offset};
    const rndnn::memory src_m(d.src, s), dst_m(d.dst, t);
    std::unordered_map<int, rndnn::memory> args {
            {backward ? RNDNN_ARG_DIFF_DST : RNDNN_ARG_SRC, src_m},
            {backward ? RNDNN_ARG_DIFF_SRC : RNDNN_ARG_DST, dst_m},
            {RNDNN_ARG_SEED, rndnn::memory::scalar(drawn_seed)},
            {RNDNN_ARG_OFFSET, rndnn::memory::scalar(drawn_offset)},
            {RNDNN_ARG_STREAM,
                    rndnn::memory::scalar(static_cast<std::int64_t>(stream))}};
    if (m) args.emplace(RNDNN_ARG_MASK, rndnn::memory(d.mask, m));
    {
        py::gil_scoped_release unlocked;
        prim->execute(kernel_stream(), args);
    }
    if (m && !backward) clear_unused_bits(m, d.mask);
    return {drawn_seed, drawn_offset};
}

// Categorical sampling by Gumbel-max (rndnn::categorical): the logits src
// (f32 or bf16, dense, the vocabulary last) -> each row's index into idx
// (s64, shape[:-1] + [1]) and, if given, its max score into max (f32, the
// same shape). global_shape/origin: the window (empty: none). A generator
// reserves the global element count. The GIL is released while the
// primitive runs. Returns the (seed, offset) used.
std::pair<std::int64_t, std::int64_t> categorical(py::array src,
        py::array idx, std::optional<py::array> max,
        const std::vector<std::int64_t> &shape, const std::string &dtype,
        double temperature, const std::string &alg, const std::string &name,
        std::uint64_t stream, std::int64_t seed, std::int64_t offset,
        rndnn::generator *generator,
        const std::vector<std::int64_t> &global_shape,
        const std::vector<std::int64_t> &origin) {
    rndnn::categorical::desc d;
    d.src = dense(shape, dtype);
    std::vector<std::int64_t> rows = shape;
    if (!rows.empty()) rows.back() = 1;
    d.dst = dense(rows, "s64");
    if (max) d.max = dense(rows, "f32");
    d.temperature = temperature;
    d.alg = rndnn::str2alg(alg);
    d.name = name;
    d.with_offset = true;
    d.global_dims = to_dims(global_shape);
    d.origin = to_dims(origin);
    static recent_primitives_t<rndnn::categorical::desc, rndnn::categorical>
            recent;
    const auto prim = recent.get(d, [&] {
        return rndnn::categorical(rndnn::categorical::primitive_desc(d));
    });
    std::uint8_t *s = dense_data(src, d.src, "logits", false);
    std::uint8_t *t = dense_data(idx, d.dst, "out", true);
    std::uint8_t *m = max ? dense_data(*max, d.max, "max", true) : nullptr;
    rndnn::dim_t elements = 1;
    for (const std::int64_t n : global_shape.empty() ? shape : global_shape)
        elements *= n;
    const auto [drawn_seed, drawn_offset]
            = draw(seed, offset, generator, elements);
    std::unordered_map<int, rndnn::memory> args {
            {RNDNN_ARG_SRC, rndnn::memory(d.src, s)},
            {RNDNN_ARG_DST, rndnn::memory(d.dst, t)},
            {RNDNN_ARG_SEED, rndnn::memory::scalar(drawn_seed)},
            {RNDNN_ARG_OFFSET, rndnn::memory::scalar(drawn_offset)},
            {RNDNN_ARG_STREAM,
                    rndnn::memory::scalar(static_cast<std::int64_t>(stream))}};
    if (m) args.emplace(RNDNN_ARG_MAX_SCORES, rndnn::memory(d.max, m));
    {
        py::gil_scoped_release unlocked;
        prim->execute(kernel_stream(), args);
    }
    return {drawn_seed, drawn_offset};
}

// Softmax-dropout along the last dim (rndnn::softmax_dropout): forward in
// training (the scores src -> dst, the stats written, the mask too if
// given) or backward (dy as src, the
// scores and the stats -> dx as dst, which may be dy; the mask read if
// given, else recomputed). global_shape/origin: the window (empty: none).
// The GIL is released while the primitive runs. Returns the (seed, offset)
// used.
std::pair<std::int64_t, std::int64_t> softmax_dropout(py::array src,
        py::array dst, py::array stats, std::optional<py::array> scores,
        std::optional<py::array> mask, const std::vector<std::int64_t> &shape,
        const std::string &dtype, const std::string &mask_dtype,
        bool backward, double rate, bool causal,
        const std::string &method, int bits, const std::string &alg,
        const std::string &name, std::uint64_t stream, std::int64_t seed,
        std::int64_t offset, rndnn::generator *generator,
        const std::vector<std::int64_t> &global_shape,
        const std::vector<std::int64_t> &origin) {
    rndnn::softmax_dropout::desc d;
    d.prop = backward ? rndnn::prop_kind::backward
                      : rndnn::prop_kind::forward_training;
    d.src = d.dst = dense(shape, dtype);
    d.stats = true;
    d.causal = causal;
    if (mask) d.mask = dense(shape, mask_dtype);
    d.rate = rate;
    d.alg = rndnn::str2alg(alg);
    d.method = to_method(method);
    d.bits = bits;
    d.name = name;
    d.with_offset = true;
    d.global_dims = rndnn::dims(global_shape.begin(), global_shape.end());
    d.origin = rndnn::dims(origin.begin(), origin.end());
    static recent_primitives_t<rndnn::softmax_dropout::desc,
            rndnn::softmax_dropout>
            recent;
    const auto prim = recent.get(d, [&] {
        return rndnn::softmax_dropout(rndnn::softmax_dropout::primitive_desc(d));
    });
    const rndnn::memory::desc stats_md
            = rndnn::softmax_dropout::stats_desc(d.src.get_dims());
    std::uint8_t *s = dense_data(src, d.src, backward ? "dy" : "x", false);
    std::uint8_t *t = dense_data(dst, d.dst, "out", true);
    std::uint8_t *st = dense_data(stats, stats_md, "stats", !backward);
    std::uint8_t *x = scores ? dense_data(*scores, d.src, "x", false) : nullptr;
    std::uint8_t *m = mask ? dense_data(*mask, d.mask, "mask", !backward)
                           : nullptr;
    rndnn::dim_t elements = 1;
    for (const std::int64_t n : global_shape.empty() ? shape : global_shape)
        elements *= n;
    // A backward with its mask draws nothing.
    const auto [drawn_seed, drawn_offset] = !(backward && m)
            ? draw(seed, offset, generator, elements)
            : std::make_pair(seed, offset);
    std::unordered_map<int, rndnn::memory> args {
            {backward ? RNDNN_ARG_DIFF_DST : RNDNN_ARG_SRC,
                    rndnn::memory(d.src, s)},
            {backward ? RNDNN_ARG_DIFF_SRC : RNDNN_ARG_DST,
                    rndnn::memory(d.dst, t)},
            {RNDNN_ARG_STATS, rndnn::memory(stats_md, st)},
            {RNDNN_ARG_SEED, rndnn::memory::scalar(drawn_seed)},
            {RNDNN_ARG_OFFSET, rndnn::memory::scalar(drawn_offset)},
            {RNDNN_ARG_STREAM,
                    rndnn::memory::scalar(static_cast<std::int64_t>(stream))}};
    if (x) args.emplace(RNDNN_ARG_SRC, rndnn::memory(d.src, x));
    if (m) args.emplace(RNDNN_ARG_MASK, rndnn::memory(d.mask, m));
    {
        py::gil_scoped_release unlocked;
        prim->execute(kernel_stream(), args);
    }
    if (m && !backward) clear_unused_bits(m, d.mask);
    return {drawn_seed, drawn_offset};
}

// The exception of an integer argument outside its range: rndnn.Error
// (so a ValueError) and OverflowError both, as Python's own conversions
// raise OverflowError. Made in PYBIND11_MODULE.
PyObject *out_of_range_error = nullptr;

// @p value, an integer argument named @p name in [@p lo, @p hi]
// (@p range says so in words): a TypeError for what is no integer (1.5
// is never truncated), OutOfRangeError outside, each naming the value,
// instead of pybind11's "incompatible function arguments".
// @p value as a Python int (operator.index): a TypeError naming it
// ("NAME must be WHAT, not float 1.5") for what is no integer.
py::object to_index(
        const py::handle &value, const char *name, const char *what) {
    PyObject *index = PyNumber_Index(value.ptr());
    if (!index) {
        PyErr_Clear();
        throw py::type_error(std::string(name) + " must be " + what
                + ", not "
                + std::string(py::str(py::type::of(value).attr("__name__")))
                + " " + std::string(py::repr(value)));
    }
    return py::reinterpret_steal<py::object>(index);
}

// Raises OutOfRangeError: "NAME=VALUE is outside RANGE".
[[noreturn]] void throw_out_of_range(
        const char *name, const py::object &value, const char *range) {
    PyErr_SetString(out_of_range_error,
            (std::string(name) + "=" + std::string(py::str(value))
                    + " is outside " + range)
                    .c_str());
    throw py::error_already_set();
}

std::int64_t to_integer(const py::handle &value, const char *name,
        std::int64_t lo, std::int64_t hi, const char *range) {
    const py::object i = to_index(value, name, "an integer");
    int overflow = 0;
    const long long v = PyLong_AsLongLongAndOverflow(i.ptr(), &overflow);
    if (overflow || v < lo || v > hi) throw_out_of_range(name, i, range);
    return v;
}

constexpr std::int64_t s64_min = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t s64_max = std::numeric_limits<std::int64_t>::max();

std::int64_t to_seed(const py::handle &value) {
    return to_integer(value, "seed", s64_min, s64_max, "[-2^63, 2^63)");
}

std::int64_t to_count(const py::handle &value, const char *name) {
    return to_integer(value, name, 0, s64_max, "[0, 2^63)");
}

rndnn::generator make_generator(
        const py::handle &seed, const py::handle &offset) {
    const std::int64_t s = to_seed(seed);
    return rndnn::generator(s, to_count(offset, "offset"));
}

// The bytes of a saved state: a TypeError for what is not bytes.
std::string state_bytes(const py::handle &state) {
    if (!py::isinstance<py::bytes>(state))
        throw py::type_error("state must be bytes, not "
                + std::string(py::str(py::type::of(state).attr("__name__"))));
    return py::reinterpret_borrow<py::bytes>(state);
}

} // namespace

PYBIND11_MODULE(_rndnn, m) {
    m.doc() = "rndnn: deep-learning randomness on CPUs (the C++ core)";
    const auto error
            = py::register_exception<rndnn::error>(m, "Error", PyExc_ValueError);
    out_of_range_error = PyErr_NewException("rndnn._rndnn.OutOfRangeError",
            py::make_tuple(error, py::handle(PyExc_OverflowError)).ptr(),
            nullptr);
    if (!out_of_range_error) throw py::error_already_set();
    m.attr("OutOfRangeError") = py::handle(out_of_range_error);
    m.attr("__version__") = rndnn::version().str;
    watch_forks();
    add_fast_path(m);

    const auto save = [](const rndnn::generator &g) {
        const auto s = g.save();
        return py::bytes(reinterpret_cast<const char *>(s.data()), s.size());
    };
    const auto load = [](const py::object &b) {
        const std::string s = state_bytes(b);
        return rndnn::generator::load(s.data(), s.size());
    };
    // A Generator holds a valid state from the moment it exists: __new__
    // makes it, so one that __init__ never ran on is Generator(0, 0), not
    // uninitialised memory. __init__ and __setstate__ assign a new state
    // and so re-initialise a live generator: they are plain methods bound
    // under other names, as pybind11 silently skips any function named
    // __init__ or __setstate__ on an object already made. Final: __new__
    // makes Generators only. Integers arrive as objects, converted by
    // to_integer: TypeError or OutOfRangeError naming the value.
    py::class_<rndnn::generator> generator_class(m, "Generator",
            "Generator(seed=0, offset=0): a seed and the next free element "
            "of its stream.\n\n"
            "The graph executor's generator (docs/graph.md), and the "
            "default generator of the package's functions "
            "(rndnn.default_generator, reset by rndnn.manual_seed). "
            "reserve(count) hands out the elements [offset, offset + count) "
            "and moves the offset past them; save() and Generator.load() "
            "give and take its 16 bytes (seed, then offset, little-endian "
            "s64). It pickles and copies as those bytes; generators compare "
            "with ==. fold_in(key) and spawn(n) derive new generators "
            "(docs/semantics.md, \"Derived generators\").\n\n"
            "seed: an integer in [-2^63, 2^63); offset: in [0, 2^63). A "
            "float or a string raises TypeError, a value outside its range "
            "rndnn.OutOfRangeError (an OverflowError and an rndnn.Error).",
            py::is_final());
    generator_class
            .def_static(
                    "__new__",
                    [](const py::object &cls, const py::object &seed,
                            const py::object &offset) {
                        if (!cls.is(py::type::of<rndnn::generator>()))
                            throw py::type_error("Generator.__new__("
                                    + py::repr(cls).cast<std::string>()
                                    + "): not rndnn.Generator");
                        return make_generator(seed, offset);
                    },
                    py::arg("cls"), py::arg("seed") = 0, py::arg("offset") = 0)
            .def(
                    "_init",
                    [](rndnn::generator &g, const py::object &seed,
                            const py::object &offset) {
                        g = make_generator(seed, offset);
                    },
                    py::arg("seed") = 0, py::arg("offset") = 0,
                    "Re-initialises the generator to (seed, offset).")
            .def_property_readonly("seed", &rndnn::generator::get_seed,
                    "The seed (an s64).")
            .def_property_readonly("offset", &rndnn::generator::get_offset,
                    "The next free element of the stream.")
            .def(
                    "reserve",
                    [](rndnn::generator &g, const py::object &count) {
                        return g.reserve(to_count(count, "count"));
                    },
                    py::arg("count"),
                    "Reserves the elements [offset, offset + count): returns "
                    "the first and moves the offset past them (rndnn.Error "
                    "if it would pass 2^63 - 1).")
            .def(
                    "fold_in",
                    [](const rndnn::generator &g, const py::object &key) {
                        if (py::isinstance<py::str>(key)) {
                            const std::string utf8 = key.cast<std::string>();
                            return g.fold_in(std::string_view(utf8));
                        }
                        // An integer in [0, 2^64): TypeError for the rest
                        // (bytes, 1.5), else OutOfRangeError naming it.
                        const py::object i = to_index(
                                key, "key", "an integer or a str");
                        const unsigned long long v
                                = PyLong_AsUnsignedLongLong(i.ptr());
                        if (v == static_cast<unsigned long long>(-1)
                                && PyErr_Occurred()) {
                            PyErr_Clear();
                            throw_out_of_range("key", i, "[0, 2^64)");
                        }
                        return g.fold_in(static_cast<std::uint64_t>(v));
                    },
                    py::arg("key"),
                    "The sub-stream named key, a new Generator at offset 0 "
                    "whose seed depends on this seed and key only (not on "
                    "the offset; docs/semantics.md, \"Derived generators\"). "
                    "key: an integer in [0, 2^64), or a str (its UTF-8 "
                    "bytes). This generator does not move.")
            .def(
                    "spawn",
                    [](rndnn::generator &g, const py::object &n) {
                        return g.spawn(to_count(n, "n"));
                    },
                    py::arg("n"),
                    "A list of n new Generators at offset 0: child i's seed "
                    "is keyed by element first + i, first = reserve(n), so "
                    "the offset moves on by n and spawning again gives new "
                    "children (docs/semantics.md, \"Derived generators\").")
            .def("save", save,
                    "The 16 bytes of the state: seed, then offset, "
                    "little-endian s64.")
            .def_static("load", load, py::arg("state"),
                    "The generator that save() described (TypeError for "
                    "what is not bytes, rndnn.Error for a bad state).")
            // Pickled (and so copied, and saved with a whole model) as its
            // 16 bytes: Generator() then __setstate__(bytes). __reduce__
            // serves every protocol; without it protocols 0 and 1 go
            // through copyreg's reconstructor, which aborts on pybind11
            // types.
            .def("__getstate__", save)
            .def(
                    "_setstate",
                    [load](rndnn::generator &g, const py::object &state) {
                        g = load(state);
                    },
                    py::arg("state"))
            .def("__reduce__",
                    [save](const rndnn::generator &g) {
                        return py::make_tuple(py::type::of<rndnn::generator>(),
                                py::tuple(), save(g));
                    })
            .def(py::self == py::self)
            .def("__repr__", [](const rndnn::generator &g) {
                return "rndnn.Generator(seed=" + std::to_string(g.get_seed())
                        + ", offset=" + std::to_string(g.get_offset()) + ")";
            });
    generator_class.attr("__init__") = generator_class.attr("_init");
    generator_class.attr("__setstate__") = generator_class.attr("_setstate");
    py::delattr(generator_class, "_init");
    py::delattr(generator_class, "_setstate");

    // generate(*, out, shape, dtype, dist, params, method, bits, alg, name,
    // stream, global_shape, origin, seed, offset, generator, int_params,
    // p, p_shape, p_dtype):
    // the one entry point of bits/bernoulli/uniform/normal/integers
    // (params: the real parameters, int_params the exact s64 ones; p:
    // bernoulli's p tensor, C-contiguous, of p_shape (dst's rank) and
    // p_dtype 'f32' or 'bf16', or None). With a generator (not None), seed and
    // offset are not read: the generator gives them (draw()).
    m.def(
            "generate",
            [](py::array out, const std::vector<std::int64_t> &shape,
                    const std::string &dtype, const std::string &dist,
                    const std::vector<double> &params,
                    const std::string &method, int bits,
                    const std::string &alg, const std::string &name,
                    std::uint64_t stream,
                    const std::vector<std::int64_t> &global_shape,
                    const std::vector<std::int64_t> &origin,
                    std::int64_t seed, std::int64_t offset,
                    rndnn::generator *generator,
                    const std::vector<std::int64_t> &int_params,
                    std::optional<py::array> p,
                    const std::vector<std::int64_t> &p_shape,
                    const std::string &p_dtype) {
                rndnn::post_ops po;
                po.append_distribution(
                        dist, params, to_method(method), bits, int_params);
                generate(std::move(out), shape, dtype, po, alg, name, stream,
                        global_shape, origin, seed, offset, generator,
                        std::move(p), p_shape, p_dtype);
            },
            py::kw_only(), py::arg("out"), py::arg("shape"),
            py::arg("dtype"), py::arg("dist"), py::arg("params"), py::arg("method"),
            py::arg("bits"), py::arg("alg"), py::arg("name"),
            py::arg("stream"), py::arg("global_shape"), py::arg("origin"),
            py::arg("seed"), py::arg("offset"),
            py::arg("generator").none(true),
            py::arg("int_params") = std::vector<std::int64_t>(),
            py::arg("p").none(true) = py::none(),
            py::arg("p_shape") = std::vector<std::int64_t>(),
            py::arg("p_dtype") = "f32");

    // dropout(*, src, dst, mask, shape, dtype, noise_shape, mask_dtype, rate,
    // backward, method, bits, alg, name, stream, global_shape, origin,
    // seed, offset, generator):
    // returns the (seed, offset) used; the generator as generate's.
    m.def("dropout", &dropout, py::kw_only(), py::arg("src"),
            py::arg("dst"),
            py::arg("mask").none(true), py::arg("shape"), py::arg("dtype"),
            py::arg("noise_shape"), py::arg("mask_dtype"), py::arg("rate"),
            py::arg("backward"), py::arg("method"), py::arg("bits"),
            py::arg("alg"), py::arg("name"), py::arg("stream"),
            py::arg("global_shape"), py::arg("origin"), py::arg("seed"),
            py::arg("offset"), py::arg("generator").none(true));

    // advise_huge_pages(address, nbytes): a new output's huge pages
    // (advise_huge_pages above); returns the bytes advised.
    m.def("advise_huge_pages", &advise_huge_pages, py::arg("address"),
            py::arg("nbytes"));

    // softmax_dropout(*, src, dst, stats, scores, mask, shape, dtype,
    // mask_dtype, backward, rate, causal, method, bits, alg, name, stream, seed,
    // offset, generator, global_shape, origin): returns the (seed, offset)
    // used; the generator as generate's.
    m.def("softmax_dropout", &softmax_dropout, py::kw_only(),
            py::arg("src"), py::arg("dst"),
            py::arg("stats"), py::arg("scores").none(true),
            py::arg("mask").none(true), py::arg("shape"), py::arg("dtype"),
            py::arg("mask_dtype"), py::arg("backward"), py::arg("rate"),
            py::arg("causal"), py::arg("method"), py::arg("bits"),
            py::arg("alg"), py::arg("name"), py::arg("stream"),
            py::arg("seed"), py::arg("offset"),
            py::arg("generator").none(true), py::arg("global_shape"),
            py::arg("origin"));

    // categorical(*, src, idx, max, shape, dtype, temperature, alg, name,
    // stream, seed, offset, generator, global_shape, origin): returns the
    // (seed, offset) used; the generator as generate's.
    m.def("categorical", &categorical, py::kw_only(), py::arg("src"),
            py::arg("idx"),
            py::arg("max").none(true), py::arg("shape"), py::arg("dtype"),
            py::arg("temperature"), py::arg("alg"), py::arg("name"),
            py::arg("stream"), py::arg("seed"), py::arg("offset"),
            py::arg("generator").none(true), py::arg("global_shape"),
            py::arg("origin"));

    // categorical_combine(max, idx, shards, rows, out_max, out_idx): the
    // shards' results (dense f32 and s64 arrays of shards * rows) reduced.
    m.def("categorical_combine",
            [](py::array max, py::array idx, std::int64_t shards,
                    std::int64_t rows, py::array out_max, py::array out_idx) {
                const std::vector<std::int64_t> all {shards * rows};
                const std::vector<std::int64_t> one {rows};
                rndnn::categorical::combine(
                        reinterpret_cast<const float *>(dense_data(
                                max, dense(all, "f32"), "max", false)),
                        reinterpret_cast<const std::int64_t *>(dense_data(
                                idx, dense(all, "s64"), "indices", false)),
                        shards, rows,
                        reinterpret_cast<float *>(dense_data(
                                out_max, dense(one, "f32"), "out max", true)),
                        reinterpret_cast<std::int64_t *>(dense_data(out_idx,
                                dense(one, "s64"), "out indices", true)));
            },
            py::arg("max"), py::arg("idx"), py::arg("shards"),
            py::arg("rows"), py::arg("out_max"), py::arg("out_idx"));
}
