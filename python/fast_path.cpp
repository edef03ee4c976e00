// The lean path of the array functions (docs/python.md, "Small tensors"):
// rndnn.uniform, normal, integers, bernoulli, bits and the other
// distributions, and rndnn.dropout, called with their common arguments,
// run here in one call from Python: the arguments read with CPython's own
// checks, the primitive found by a key of what it was made from, a new
// NumPy array, the generator's reservation, the kernel. Anything else
// (another argument's type, a window, out=, a torch tensor or dtype, a
// torch.Generator, a value the library refuses) returns NotImplemented,
// and the caller takes the full path (rndnn/_arrays.py), which checks,
// raises its errors and handles every form: so the lean path raises
// nothing but MemoryError, and every error keeps its one message.
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "binding.hpp"

namespace rndnn_python {

namespace {

// Set once by _fast_setup (rndnn/_arrays.py at import); the references are
// owned by the module's lifetime (never released: the interpreter ends
// with it).
struct setup_t {
    PyObject *ndarray = nullptr; // numpy.ndarray
    PyObject *generator_type = nullptr; // rndnn.Generator
    PyObject *default_generator = nullptr; // rndnn.default_generator
    PyObject *dtypes = nullptr; // dict: dtype= objects -> rndnn's names
    PyObject *mask_bit = nullptr, *mask_u8 = nullptr, *mask_bool = nullptr;
    // NumPy's dtypes of rndnn's names (bf16 as uint16, bit as uint8).
    std::unordered_map<std::string, py::dtype> numpy;
};

setup_t &setup() {
    static setup_t s;
    return s;
}

// A primitive and what a call needs of it, made once per key: its
// arguments' memories, which a call points at its arrays and values
// (set_data_handle, the scalars written in place) instead of making
// memories and a map each time, where it holds the GIL throughout (below
// release_gil_from elements: no other call can use the entry meanwhile).
template <typename primitive_t>
struct entry_t {
    entry_t(primitive_t p, const rndnn::memory::desc &d,
            const rndnn::memory::desc &m)
        : prim(std::move(p)), dst(d), mask(m) {
        args = {{RNDNN_ARG_DST, rndnn::memory(dst, nullptr)},
                {RNDNN_ARG_SEED, rndnn::memory::scalar(std::int64_t(0))},
                {RNDNN_ARG_OFFSET, rndnn::memory::scalar(std::int64_t(0))},
                {RNDNN_ARG_STREAM, rndnn::memory::scalar(std::int64_t(0))}};
        if (std::is_same<primitive_t, rndnn::dropout>::value)
            args.emplace(RNDNN_ARG_SRC, rndnn::memory(dst, nullptr));
        if (!mask.is_zero())
            args.emplace(RNDNN_ARG_MASK, rndnn::memory(mask, nullptr));
    }
    primitive_t prim;
    rndnn::memory::desc dst, mask;
    mutable std::unordered_map<int, rndnn::memory> args;
};

// Primitives by key: the bytes of what they were made from. Bounded: at
// 256 entries it starts again (a program that draws ever new shapes makes
// a primitive per call either way).
template <typename primitive_t>
class cache_t {
public:
    using value_t = std::shared_ptr<const entry_t<primitive_t>>;
    template <typename make_t>
    value_t get(const std::string &key, make_t make) {
        const auto it = map_.find(key);
        if (it != map_.end()) return it->second;
        value_t v = std::make_shared<const entry_t<primitive_t>>(make());
        if (map_.size() >= 256) map_.clear();
        map_.emplace(key, v);
        return v;
    }

private:
    std::unordered_map<std::string, value_t> map_;
};

template <typename T>
void append(std::string &key, const T &value) {
    key.append(reinterpret_cast<const char *>(&value), sizeof(value));
}

// The UTF-8 of an exact str, or nullptr.
const char *utf8(PyObject *o, Py_ssize_t *size) {
    if (!PyUnicode_CheckExact(o)) return nullptr;
    const char *s = PyUnicode_AsUTF8AndSize(o, size);
    if (!s) PyErr_Clear();
    return s;
}

// An exact int in [lo, hi], or false.
bool to_s64(PyObject *o, std::int64_t lo, std::int64_t hi, std::int64_t &v) {
    if (!PyLong_CheckExact(o)) return false;
    int overflow = 0;
    const long long x = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (x == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        return false;
    }
    if (overflow || x < lo || x > hi) return false;
    v = x;
    return true;
}

// A dims tuple of the shape size= gives: an exact int n (n,), an exact
// tuple of exact ints, or None (a scalar: ()).
bool to_dims(PyObject *size, rndnn::dims &dims) {
    constexpr std::int64_t max = INT64_MAX;
    std::int64_t n = 0;
    if (size == Py_None) return true;
    if (to_s64(size, 0, max, n)) {
        dims.push_back(n);
        return true;
    }
    if (!PyTuple_CheckExact(size)) return false;
    const Py_ssize_t rank = PyTuple_GET_SIZE(size);
    for (Py_ssize_t k = 0; k < rank; ++k) {
        if (!to_s64(PyTuple_GET_ITEM(size, k), 0, max, n)) return false;
        dims.push_back(n);
    }
    return true;
}

// (seed, offset, generator) of seed=, offset=, generator=: a seed as
// given, or rndnn.default_generator or an rndnn.Generator to reserve
// from; false for the rest (a torch.Generator among them).
bool to_source(PyObject *seed, PyObject *offset, PyObject *generator,
        std::int64_t &s, std::int64_t &o, rndnn::generator *&g) {
    g = nullptr;
    if (seed == Py_None) {
        if (offset != Py_None) return false;
        PyObject *gen = generator == Py_None ? setup().default_generator
                                             : generator;
        if (Py_TYPE(gen) != reinterpret_cast<PyTypeObject *>(
                    setup().generator_type))
            return false;
        g = py::cast<rndnn::generator *>(py::handle(gen));
        return true;
    }
    if (generator != Py_None) return false;
    o = 0;
    return to_s64(seed, INT64_MIN, INT64_MAX, s)
            && (offset == Py_None || to_s64(offset, 0, INT64_MAX, o));
}

// The GIL is released around kernels of this many elements or more:
// below, releasing it costs more than the kernel's time that other
// threads would gain.
constexpr rndnn::dim_t release_gil_from = 1 << 14;

// Runs @p e's primitive on @p n elements: dst (and src, mask where the
// primitive has them) at the pointers given, the seed, offset and stream.
template <typename primitive_t>
void run(const entry_t<primitive_t> &e, rndnn::dim_t n, void *src,
        void *dst, void *mask, std::int64_t seed, std::int64_t offset,
        std::int64_t stream) {
    if (n < release_gil_from) {
        // The entry's memories, the GIL held throughout.
        std::unordered_map<int, rndnn::memory> &a = e.args;
        a.at(RNDNN_ARG_DST).set_data_handle(dst);
        if (src) a.at(RNDNN_ARG_SRC).set_data_handle(src);
        if (mask) a.at(RNDNN_ARG_MASK).set_data_handle(mask);
        *a.at(RNDNN_ARG_SEED).data<std::int64_t>() = seed;
        *a.at(RNDNN_ARG_OFFSET).data<std::int64_t>() = offset;
        *a.at(RNDNN_ARG_STREAM).data<std::int64_t>() = stream;
        e.prim.execute(kernel_stream(), a);
        return;
    }
    std::unordered_map<int, rndnn::memory> a
            = {{RNDNN_ARG_DST, rndnn::memory(e.dst, dst)},
                    {RNDNN_ARG_SEED, rndnn::memory::scalar(seed)},
                    {RNDNN_ARG_OFFSET, rndnn::memory::scalar(offset)},
                    {RNDNN_ARG_STREAM, rndnn::memory::scalar(stream)}};
    if (src) a.emplace(RNDNN_ARG_SRC, rndnn::memory(e.dst, src));
    if (mask) a.emplace(RNDNN_ARG_MASK, rndnn::memory(e.mask, mask));
    py::gil_scoped_release unlocked;
    e.prim.execute(kernel_stream(), a);
}

// Reserves @p count elements from @p g (if any) and returns (seed,
// offset); false where the reservation would pass 2^63 - 1 (the full
// path raises that).
bool draw(rndnn::generator *g, rndnn::dim_t count, std::int64_t &seed,
        std::int64_t &offset) {
    if (!g) return true;
    if (count > INT64_MAX - g->get_offset()) return false;
    offset = g->reserve(count);
    seed = g->get_seed();
    return true;
}

PyObject *not_implemented() {
    Py_RETURN_NOTIMPLEMENTED;
}

// The call's body, its C++ errors turned into Python's: a C++ error here
// is the library's (creation: the full path raises it with its own
// checks first) or memory.
template <typename body_t>
PyObject *guarded(body_t body) {
    try {
        return body();
    } catch (const py::error_already_set &e) {
        if (e.matches(PyExc_MemoryError)) {
            PyErr_NoMemory();
            return nullptr;
        }
        return not_implemented();
    } catch (const std::bad_alloc &) {
        PyErr_NoMemory();
        return nullptr;
    } catch (const rndnn::error &e) {
        if (e.status() == rndnn::status::out_of_memory) {
            PyErr_NoMemory();
            return nullptr;
        }
        return not_implemented();
    } catch (const std::exception &) {
        return not_implemented();
    }
}

// _sample(spec, params, size, dtype, seed, offset, stream, generator,
// alg): a distribution's values into a new NumPy array, or NotImplemented.
// spec: (dist, default dtype, int_params), the function's constant;
// params: a tuple of the real parameters (exact floats or ints);
// int_params: integers' (low, high) or ().
PyObject *sample(PyObject *, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 9) {
        PyErr_SetString(PyExc_TypeError, "_sample takes 9 arguments");
        return nullptr;
    }
    return guarded([&]() -> PyObject * {
        PyObject *spec = args[0], *params = args[1], *size = args[2],
                 *dtype = args[3];
        if (!PyTuple_CheckExact(spec) || PyTuple_GET_SIZE(spec) != 3
                || !PyTuple_CheckExact(params))
            return not_implemented();
        Py_ssize_t dist_size = 0, default_size = 0, alg_size = 0;
        const char *dist = utf8(PyTuple_GET_ITEM(spec, 0), &dist_size);
        const char *fallback = utf8(PyTuple_GET_ITEM(spec, 1), &default_size);
        PyObject *int_params = PyTuple_GET_ITEM(spec, 2);
        const char *alg = utf8(args[8], &alg_size);
        if (!dist || !fallback || !alg || !PyTuple_CheckExact(int_params))
            return not_implemented();
        // The dtype's name: the default, or dtype='s in the table.
        std::string type(fallback, default_size);
        if (dtype != Py_None) {
            PyObject *name = PyDict_GetItemWithError(setup().dtypes, dtype);
            if (!name) {
                PyErr_Clear();
                return not_implemented();
            }
            Py_ssize_t n = 0;
            const char *s = utf8(name, &n);
            if (!s) return not_implemented();
            type.assign(s, n);
        }
        const std::string_view d(dist, dist_size);
        const bool bits = d == "bits";
        if ((type == "bool" && d != "bernoulli")
                || (bits && type != "u32" && type != "s32")
                || (type == "bit" && d != "bernoulli"))
            return not_implemented();
        // The type the library writes: bits' words are u32 whatever the
        // array, bool arrays hold u8's 0/1 bytes.
        const std::string written
                = bits ? "u32" : type == "bool" ? "u8" : type;

        rndnn::dims dims;
        if (!to_dims(size, dims)) return not_implemented();
        std::vector<double> reals;
        reals.reserve(static_cast<std::size_t>(PyTuple_GET_SIZE(params)));
        for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(params); ++k) {
            PyObject *v = PyTuple_GET_ITEM(params, k);
            if (PyFloat_CheckExact(v))
                reals.push_back(PyFloat_AS_DOUBLE(v));
            else if (PyLong_CheckExact(v)) {
                const double x = PyLong_AsDouble(v);
                if (x == -1.0 && PyErr_Occurred()) {
                    PyErr_Clear();
                    return not_implemented();
                }
                reals.push_back(x);
            } else
                return not_implemented();
        }
        std::vector<std::int64_t> integers;
        integers.reserve(
                static_cast<std::size_t>(PyTuple_GET_SIZE(int_params)));
        for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(int_params); ++k) {
            std::int64_t v = 0;
            if (!to_s64(PyTuple_GET_ITEM(int_params, k), INT64_MIN, INT64_MAX,
                        v))
                return not_implemented();
            integers.push_back(v);
        }
        std::int64_t seed = 0, offset = 0, stream = 0;
        rndnn::generator *g = nullptr;
        if (!to_source(args[4], args[5], args[7], seed, offset, g))
            return not_implemented();
        std::uint64_t ustream = 0;
        if (!PyLong_CheckExact(args[6])) return not_implemented();
        ustream = PyLong_AsUnsignedLongLong(args[6]);
        if (ustream == static_cast<unsigned long long>(-1) && PyErr_Occurred()) {
            PyErr_Clear();
            return not_implemented();
        }
        stream = static_cast<std::int64_t>(ustream);

        std::string key;
        key.reserve(64);
        key.append(dist, dist_size).push_back('\0');
        key.append(alg, alg_size).push_back('\0');
        key.append(written).push_back('\0');
        append(key, reals.size());
        for (const double v : reals)
            append(key, v);
        for (const std::int64_t v : integers)
            append(key, v);
        for (const rndnn::dim_t n : dims)
            append(key, n);
        static cache_t<rndnn::rng> cache;
        const auto e = cache.get(key, [&] {
            rndnn::rng::desc desc(rndnn::str2alg(std::string(alg, alg_size)),
                    rndnn::memory::desc(dims, rndnn::str2dt(written)));
            desc.with_offset = true;
            rndnn::post_ops po;
            po.append_distribution(std::string(d), reals,
                    rndnn::bernoulli_method::automatic, 1, integers);
            rndnn::primitive_attr attr;
            attr.set_post_ops(po);
            rndnn::rng prim {rndnn::rng::primitive_desc(desc, attr)};
            return entry_t<rndnn::rng>(std::move(prim), desc.dst, {});
        });

        const rndnn::dim_t n = elements(dims);
        const auto it = setup().numpy.find(type);
        if (it == setup().numpy.end()) return not_implemented();
        std::vector<py::ssize_t> shape(dims.begin(), dims.end());
        if (type == "bit") shape = {static_cast<py::ssize_t>((n + 7) / 8)};
        py::array out(it->second, shape);
        if (!draw(g, n, seed, offset)) return not_implemented();
        std::uint8_t *data = static_cast<std::uint8_t *>(out.mutable_data());
        run(*e, n, nullptr, data, nullptr, seed, offset, stream);
        clear_unused_bits(data, e->dst);
        if (dims.empty())
            return PyObject_GetItem(out.ptr(), py::tuple().ptr());
        return out.release().ptr();
    });
}

// _dropout(x, p, mask, seed, offset, generator, stream, inplace): dropout
// forward in training of the NumPy array x (C-contiguous f32, f16 or
// bf16's uint16) with rndnn.dropout's defaults otherwise (philox4x32_10,
// method auto, no noise shape, no window); returns (y, mask or None), or
// NotImplemented. mask: "bit", "u8", "bool" or None; inplace: y is x.
PyObject *dropout(PyObject *, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 8) {
        PyErr_SetString(PyExc_TypeError, "_dropout takes 8 arguments");
        return nullptr;
    }
    return guarded([&]() -> PyObject * {
        PyObject *x = args[0], *p = args[1], *mask = args[2];
        const setup_t &s = setup();
        if (Py_TYPE(x) != reinterpret_cast<PyTypeObject *>(s.ndarray)
                || !PyFloat_CheckExact(p))
            return not_implemented();
        const double rate = PyFloat_AS_DOUBLE(p);
        if (!(rate >= 0.0 && rate <= 1.0)) return not_implemented();
        const char *mask_type = mask == Py_None ? ""
                : mask == s.mask_bit                ? "bit"
                : mask == s.mask_u8 || mask == s.mask_bool ? "u8"
                                                           : nullptr;
        if (!mask_type) return not_implemented();
        const bool inplace = args[7] == Py_True;
        py::array src = py::reinterpret_borrow<py::array>(x);
        const int need = py::array::c_style
                | (inplace ? py::detail::npy_api::NPY_ARRAY_WRITEABLE_ : 0);
        if ((src.flags() & need) != need) return not_implemented();
        const char *type = nullptr;
        PyObject *descr = src.dtype().ptr();
        for (const char *t : {"f32", "bf16", "f16"})
            if (descr == s.numpy.at(t).ptr()) type = t;
        if (!type) return not_implemented();
        rndnn::dims dims(src.shape(), src.shape() + src.ndim());
        const rndnn::dim_t n = elements(dims);
        if (n == 0) return not_implemented();
        std::int64_t seed = 0, offset = 0, stream = 0;
        rndnn::generator *g = nullptr;
        if (!to_source(args[3], args[4], args[5], seed, offset, g)
                || !to_s64(args[6], 0, INT64_MAX, stream))
            return not_implemented();

        std::string key(type);
        key.push_back('\0');
        key.append(mask_type).push_back('\0');
        append(key, rate);
        for (const rndnn::dim_t k : dims)
            append(key, k);
        static cache_t<rndnn::dropout> cache;
        const auto e = cache.get(key, [&] {
            rndnn::dropout::desc d;
            d.prop = rndnn::prop_kind::forward_training;
            d.src = d.dst = rndnn::memory::desc(dims, rndnn::str2dt(type));
            if (*mask_type)
                d.mask = rndnn::memory::desc(dims, rndnn::str2dt(mask_type));
            d.rate = rate;
            d.with_offset = true;
            rndnn::dropout prim {rndnn::dropout::primitive_desc(d)};
            return entry_t<rndnn::dropout>(std::move(prim), d.dst, d.mask);
        });

        py::array out = inplace
                ? src
                : py::array(src.dtype(),
                        std::vector<py::ssize_t>(
                                src.shape(), src.shape() + src.ndim()));
        py::object m = py::none();
        std::uint8_t *mask_data = nullptr;
        if (*mask_type) {
            std::vector<py::ssize_t> shape(src.shape(), src.shape() + src.ndim());
            if (mask_type[0] == 'b') shape = {static_cast<py::ssize_t>((n + 7) / 8)};
            py::array a(s.numpy.at(mask == s.mask_bool ? "bool" : "u8"), shape);
            mask_data = static_cast<std::uint8_t *>(a.mutable_data());
            m = std::move(a);
        }
        if (!draw(g, n, seed, offset)) return not_implemented();
        run(*e, n, const_cast<void *>(src.data()), out.mutable_data(),
                mask_data, seed, offset, stream);
        if (mask_data) clear_unused_bits(mask_data, e->mask);
        return py::make_tuple(out, m).release().ptr();
    });
}

PyMethodDef sample_def {"_sample", reinterpret_cast<PyCFunction>(
                                          reinterpret_cast<void (*)()>(sample)),
        METH_FASTCALL,
        "_sample(spec, params, size, dtype, seed, offset, stream, generator, "
        "alg): the lean path of the distributions (python/fast_path.cpp)"};
PyMethodDef dropout_def {"_dropout", reinterpret_cast<PyCFunction>(
                                            reinterpret_cast<void (*)()>(dropout)),
        METH_FASTCALL,
        "_dropout(x, p, mask, seed, offset, generator, stream, inplace): the "
        "lean path of dropout's forward (python/fast_path.cpp)"};

} // namespace

void add_fast_path(py::module_ &m) {
    for (PyMethodDef *def : {&sample_def, &dropout_def}) {
        PyObject *f = PyCFunction_NewEx(def, nullptr, m.ptr());
        if (!f) throw py::error_already_set();
        m.add_object(def->ml_name, py::reinterpret_steal<py::object>(f));
    }
    // _fast_setup(ndarray, Generator, default_generator, dtypes, numpy,
    // masks): what the lean path compares with, once, at import.
    m.def("_fast_setup",
            [](py::object ndarray, py::object generator_type,
                    py::object default_generator, py::dict dtypes,
                    py::dict numpy, py::tuple masks) {
                setup_t &s = setup();
                s.ndarray = ndarray.release().ptr();
                s.generator_type = generator_type.release().ptr();
                s.default_generator = default_generator.release().ptr();
                s.dtypes = dtypes.release().ptr();
                for (const auto &item : numpy)
                    s.numpy[py::cast<std::string>(item.first)]
                            = py::reinterpret_borrow<py::dtype>(item.second);
                s.mask_bit = py::object(masks[0]).release().ptr();
                s.mask_u8 = py::object(masks[1]).release().ptr();
                s.mask_bool = py::object(masks[2]).release().ptr();
            });
}

} // namespace rndnn_python
