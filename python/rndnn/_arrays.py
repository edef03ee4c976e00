"""The array functions of rndnn (docs/python.md): random tensors and
dropout on NumPy arrays and torch CPU tensors, without autograd; rndnn
(__init__.py) hands them on, rndnn.torch builds its autograd on them."""
import inspect
import numbers
import operator
import sys

import numpy as np

from . import _rndnn
from ._rndnn import Error, Generator, OutOfRangeError, __version__

# The generator of every call without seed=: seed 0 until manual_seed, as
# torch's default generator has a fixed seed, so a program that seeds
# nothing still draws the same values at every run.
default_generator = Generator(0, 0)


def manual_seed(seed):
    """Resets rndnn.default_generator to (seed, offset 0) and returns it:
    the calls without seed= that follow draw the same values again."""
    default_generator.__init__(seed, 0)
    return default_generator


# rndnn's data types as NumPy's (bf16 as its bits: NumPy has none) and
# torch's (bit: packed uint8; torch has no uint32: int32 holds the words).
# bool is the Python side's own: arrays of bool hold the library's u8
# bytes, 0 or 1 (_WRITTEN).
_NUMPY = {"u32": np.uint32, "s32": np.int32, "u8": np.uint8, "bit": np.uint8,
          "bool": np.bool_, "f32": np.float32, "f16": np.float16,
          "bf16": np.uint16}
_NUMPY["s64"] = np.int64  # integers' values
_NUMPY["f64"] = np.float64  # the continuous distributions' (53 bits)
_FROM_NUMPY = {np.dtype(v): k for k, v in _NUMPY.items() if k != "bit"}
_TORCH = {"u32": "int32", "s32": "int32", "u8": "uint8", "bit": "uint8",
          "bool": "bool", "f32": "float32", "f16": "float16",
          "bf16": "bfloat16"}
_TORCH["s64"] = "int64"
_TORCH["f64"] = "float64"
_FROM_TORCH = {"torch." + v: k for k, v in _TORCH.items()
               if k not in ("u32", "bit")}
_WRITTEN = {"bool": "u8"}
# dtype= as a string: rndnn's names and NumPy's and torch's.
_NAMES = {"u32": "u32", "uint32": "u32", "s32": "s32", "int32": "s32",
          "u8": "u8", "uint8": "u8", "bit": "bit", "bool": "bool",
          "f32": "f32", "float32": "f32", "f16": "f16", "float16": "f16",
          "half": "f16", "bf16": "bf16", "bfloat16": "bf16"}
_NAMES.update({"s64": "s64", "int64": "s64", "f64": "f64",
               "float64": "f64", "double": "f64"})
# dtype= as a NumPy type (uint16 is no dtype to ask for: bf16 is).
_FROM_NUMPY_DTYPE = {np.dtype(np.float32): "f32", np.dtype(np.float16): "f16",
                     np.dtype(np.uint8): "u8", np.dtype(np.int32): "s32",
                     np.dtype(np.uint32): "u32", np.dtype(np.bool_): "bool"}
_FROM_NUMPY_DTYPE[np.dtype(np.int64)] = "s64"
_FROM_NUMPY_DTYPE[np.dtype(np.float64)] = "f64"


# Whether calls try the lean path first (tests set it False to compare
# the two paths).
_lean = True

# What the lean path compares a call's arguments with (fast_path.cpp):
# dtype= objects (strings, NumPy types and dtypes) and their names, NumPy's
# dtype of each name, and the mask= kinds.
_rndnn._fast_setup(
    np.ndarray, Generator, default_generator,
    {**_NAMES, **_FROM_NUMPY_DTYPE,
     **{d.type: n for d, n in _FROM_NUMPY_DTYPE.items()},
     **{t: _FROM_NUMPY_DTYPE[np.dtype(t)] for t in (bool, int, float)}},
    {k: np.dtype(v) for k, v in _NUMPY.items()}, ("bit", "u8", "bool"))


def _torch():
    """torch if it has been imported (a tensor cannot exist before)."""
    return sys.modules.get("torch")


def _is_tensor(a):
    torch = _torch()
    return torch is not None and isinstance(a, torch.Tensor)


def _dtype(dtype):
    """(rndnn's name of @dtype, whether it is a torch dtype): None, a
    string, a NumPy dtype or type, or a torch dtype."""
    if dtype is None:
        return None, False
    torch = _torch()
    if torch is not None and isinstance(dtype, torch.dtype):
        name = _FROM_TORCH.get(str(dtype))
        if name is None:
            raise Error(f"dtype {dtype} is not one rndnn writes: "
                        "torch.float32, float64, float16, bfloat16, uint8, "
                        "int32, int64 or bool")
        return name, True
    if isinstance(dtype, str):
        if dtype not in _NAMES:
            raise Error(f"unknown dtype '{dtype}': " + ", ".join(_NAMES))
        return _NAMES[dtype], False
    try:
        d = np.dtype(dtype)
    except TypeError:
        raise TypeError("dtype must be a string, a NumPy dtype or a torch "
                        f"dtype, not {type(dtype).__name__} {dtype!r}") from None
    if d not in _FROM_NUMPY_DTYPE:
        raise Error(f"dtype {d} is not one rndnn writes: float32, float64, "
                    "float16, uint8, int32, uint32, int64, bool (or "
                    "'bfloat16', 'bit')")
    return _FROM_NUMPY_DTYPE[d], False


def _shape(shape, what="shape"):
    # operator.index: a float or a string is no dim (int() truncated 2.5).
    try:
        dims = ((operator.index(shape),) if np.isscalar(shape)
                else tuple(operator.index(d) for d in shape))
    except TypeError:
        raise TypeError(f"{what} {shape!r} is not an int or a sequence of "
                        "ints") from None
    if any(d < 0 for d in dims):
        raise Error(f"{what} {dims} has a negative dim")
    if any(d >= 1 << 63 for d in dims):
        raise OutOfRangeError(f"{what} {dims} has a dim outside [0, 2^63)")
    return dims


# The ranges of seed (s64), offset and stream (u64).
_RANGES = {"seed": (-(1 << 63), 1 << 63, "[-2^63, 2^63)"),
           "offset": (0, 1 << 63, "[0, 2^63)"),
           "stream": (0, 1 << 64, "[0, 2^64)")}


def _integer(value, name):
    """@value, an integer in @name's range: a TypeError for a float or a
    string (int() truncated 1.5), OutOfRangeError (an OverflowError and
    an rndnn.Error) outside the range."""
    try:
        v = operator.index(value)
    except TypeError:
        raise TypeError(f"{name} must be an integer, not "
                        f"{type(value).__name__} {value!r}") from None
    lo, hi, text = _RANGES[name]
    if not lo <= v < hi:
        raise OutOfRangeError(f"{name}={v} is outside {text}")
    return v


def _real(value, name):
    """@value as a float: TypeError for what is no real number (a string,
    a list: rndnn's parameters are scalars)."""
    if not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, not "
                        f"{type(value).__name__} {value!r}")
    try:
        return float(value)
    except OverflowError:
        raise OutOfRangeError(f"{name}={value} is outside the range of a "
                              "double") from None


def _probability(p, rate, fn, default=0.5):
    """The probability given as @p or, by its older name, @rate."""
    if p is not None and rate is not None:
        raise TypeError(f"{fn}() got p={p!r} and rate={rate!r}: rate is p's "
                        "older name, give one")
    p = _real(default if p is None and rate is None
              else rate if p is None else p, "p")
    if not 0.0 <= p <= 1.0:
        raise Error(f"{fn} probability p={p} is outside [0, 1]")
    return p


def _string(value, name):
    """@value, a str that UTF-8 encodes (the library's strings are UTF-8):
    TypeError for what is no str (bytes among them), rndnn.Error for a
    str with a lone surrogate ('\\udcff', as os.fsdecode makes of a bad
    byte)."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a string, not "
                        f"{type(value).__name__} {value!r}")
    try:
        value.encode()
    except UnicodeEncodeError as e:
        raise Error(f"{name} {value!r} is not valid UTF-8 text: its "
                    f"character {e.start} is a lone surrogate") from None
    return value


def _source(seed, offset, generator):
    """(seed, offset, generator) of a call, as _rndnn's functions take
    them: @seed and @offset as given or, without a seed, @generator
    (default_generator when None), from which the C++ reserves the call's
    elements once it has checked the call's arguments, or a
    torch.Generator, which gives a seed (_torch_seed) at offset 0. A range
    is never given back, even if the call fails after reserving it
    (threads that share the generator reserve meanwhile:
    docs/python.md)."""
    if seed is None:
        if offset is not None:
            raise TypeError("offset= goes with seed=: without seed=, the "
                            "generator gives both")
        g = default_generator if generator is None else generator
        torch = _torch()
        if torch is not None and isinstance(g, torch.Generator):
            return _torch_seed(g), 0, None
        if not isinstance(g, Generator):
            raise TypeError("generator must be an rndnn.Generator or a "
                            f"torch.Generator, not {type(g).__name__}")
        return 0, 0, g
    if generator is not None:
        raise TypeError("seed= and generator= exclude each other")
    return (_integer(seed, "seed"),
            _integer(0 if offset is None else offset, "offset"), None)


def _torch_seed(generator):
    """A seed drawn from the torch.Generator @generator (torch's default
    one when None): one random 63-bit integer, as a seed of a call at
    offset 0."""
    torch = _torch()
    return int(torch.empty((), dtype=torch.int64).random_(
        generator=generator))


def _elements(shape):
    return int(np.prod(shape, dtype=np.int64))


def _check_written(a):
    """Refuses a torch tensor @a that rndnn would write behind autograd's
    back, as torch's own in-place operations do, and moves its version
    counter on as they do, so a backward that saved it raises instead of
    using the new values."""
    torch = _torch()
    if a.requires_grad and torch.is_grad_enabled():
        if a.is_leaf:
            raise RuntimeError(
                "out= is a leaf Variable that requires grad: a leaf "
                "Variable that requires grad is being used in an in-place "
                "operation.")
        if a._base is not None and a._base.is_leaf:
            raise RuntimeError(
                "out= is a view of a leaf Variable that requires grad: a "
                "view of a leaf Variable that requires grad is being used "
                "in an in-place operation.")
        raise RuntimeError(
            "out= requires grad, and autograd does not record rndnn's "
            "writes: write under torch.no_grad(), or use rndnn.torch for "
            "a differentiable dropout")
    if not a.is_inference():
        a.detach().view(-1)[:0].zero_()  # the version moves on


def _array(a, what):
    """@a, refused (TypeError) unless a NumPy array or a torch tensor."""
    if not isinstance(a, np.ndarray) and not _is_tensor(a):
        raise TypeError(f"{what} must be a NumPy array or a torch tensor, "
                        f"not {type(a).__name__}")
    return a


def _view(a, what, written=False):
    """(the ndarray sharing @a's memory, rndnn's name of its type) of a
    NumPy array or a torch CPU tensor; @written: rndnn writes it."""
    _array(a, what)
    if isinstance(a, np.ndarray):
        if written and not a.flags.writeable:
            raise Error(f"{what} is read-only")
        return a, _FROM_NUMPY.get(a.dtype)
    torch = _torch()
    if a.device.type != "cpu":
        raise Error(f"{what} is on {a.device}, rndnn runs on the CPU")
    if not a.is_contiguous():
        raise Error(f"{what} must be contiguous")
    if written:
        _check_written(a)
    a = a.detach()
    dtype = _FROM_TORCH.get(str(a.dtype))
    return (a.view(torch.int16) if dtype == "bf16" else a).numpy(), dtype


def _new(torch_like, shape, dtype):
    """A new array of @shape and rndnn type @dtype: a torch tensor where
    @torch_like, else NumPy."""
    if torch_like:
        # Advised for huge pages before the kernel first writes it, where
        # it is a fresh block of 32 MiB or more (module.cpp's
        # advise_huge_pages; NumPy advises its own arrays itself).
        torch = _torch()
        t = torch.empty(shape, dtype=getattr(torch, _TORCH[dtype]))
        _rndnn.advise_huge_pages(t.data_ptr(), t.numel() * t.element_size())
        return t
    return np.empty(shape, _NUMPY[dtype])


def _mask_shape(shape, dtype):
    return ((_elements(shape) + 7) // 8,) if dtype == "bit" else shape


def _noise(noise_shape, shape, global_shape=None):
    """The mask's dims: @noise_shape, each of its dims the data's or 1, or
    the data's when None, and the block's mask dims: the data's @shape
    with 1 where the noise shape has 1. The data's dims are
    @global_shape's in a window (the noise shape is the global tensor's),
    else @shape's; returns (noise, block's mask dims)."""
    data = tuple(shape if global_shape is None else global_shape)
    if noise_shape is None:
        return data, tuple(shape)
    noise = _shape(noise_shape, "noise_shape")
    if len(noise) != len(data) or any(
            n not in (d, 1) for n, d in zip(noise, data)):
        raise Error(f"noise shape {noise} does not fit the data shape "
                    f"{data} (each noise dim must equal the data's or be 1)"
                    + ("" if global_shape is None else
                       ": in a window, the global tensor's noise shape"))
    return noise, tuple(1 if n == 1 else d for n, d in zip(noise, shape))


def _overlap(a, b, a_name, b_name, same=False):
    """Refuses arrays @a and @b whose bytes overlap, except, with @same,
    when they are the same bytes (in place)."""
    if a.size == 0 or b.size == 0:
        return
    (a_lo, a_hi), (b_lo, b_hi) = np.byte_bounds(a), np.byte_bounds(b)
    if a_lo < b_hi and b_lo < a_hi and not (
            same and (a_lo, a_hi) == (b_lo, b_hi)):
        raise Error(f"{a_name} overlaps {b_name} in memory ({a_name} starts "
                    f"{a_lo - b_lo:+d} bytes from {b_name}, ends "
                    f"{a_hi - b_hi:+d} from its end)"
                    + (f"; in place, {a_name} must be {b_name} itself"
                       if same else ""))


def _method(method):
    """(the method's name, its b) of 'name' or 'bitsliced:B'; the library
    parses the name (its table of methods: auto, threshold32, bitsliced,
    onednn, bytewise) and refuses, naming them all, one it does not know."""
    kind, colon, bits = _string(method, "method").partition(":")
    if colon and kind != "bitsliced":
        raise Error(f"unknown method '{method}': only bitsliced takes :B")
    if kind == "bitsliced" and not colon:
        raise Error("method 'bitsliced' needs its bit count: 'bitsliced:B', "
                    "1 <= B <= 32 (bitsliced:32 keeps p exact to 2^-32)")
    try:
        b = int(bits) if colon else 1
    except ValueError:
        raise Error(f"bad bit count in method '{method}'") from None
    # The library names a bad B; one past a C int would not reach it.
    if not -2**31 <= b < 2**31:
        raise Error(f"bit count {b} in method '{method}' is outside [1, 32]")
    return kind, b


_ALG = "philox4x32_10"


def _older_names(legacy):
    """Marks a function that also takes the keywords of @legacy ({older
    name: name}), as earlier versions named them: it catches them in
    **older and hands them to _renamed (no wrapper: a call pays nothing
    for names nobody passes)."""
    def decorate(impl):
        impl._older = legacy
        return impl
    return decorate


def _renamed(fn, older, **given):
    """The values of @given (the parameters of @fn that have older names,
    in order) with the values of the older names in @older put in: a
    TypeError for a keyword that is neither, or for a parameter given
    both ways."""
    defaults = {k: v.default
                for k, v in inspect.signature(fn).parameters.items()}
    for old, value in older.items():
        new = fn._older.get(old)
        if new is None:
            raise TypeError(f"{fn.__name__}() got an unexpected keyword "
                            f"argument '{old}'")
        if given[new] is not defaults[new]:
            raise TypeError(f"{fn.__name__}() got {old}= and {new}=: {old} "
                            f"is {new}'s older name")
        given[new] = value
    return tuple(given.values())


def _window(global_shape, origin, shape):
    """([global dims], [origin]) of a window (docs/semantics.md,
    "Windows"), as _rndnn takes them: the block of @shape at @origin (None:
    zeros) of a tensor of @global_shape, or ([], []) without one. The
    library checks that the block lies inside and names the dim that does
    not."""
    if global_shape is None:
        if origin is not None:
            raise TypeError("origin= goes with global_shape=: the origin of "
                            "a block in a tensor of that shape")
        return [], []
    dims = _shape(global_shape, "global_shape")
    if len(dims) != len(shape):
        raise Error(f"global_shape {dims} has {len(dims)} dims and the "
                    f"block {tuple(shape)} {len(shape)}: a block has the "
                    "global tensor's rank")
    at = (0,) * len(dims) if origin is None else _shape(origin, "origin")
    if len(at) != len(dims):
        raise Error(f"origin {at} has {len(at)} dims, global_shape {dims} "
                    f"{len(dims)}")
    return list(dims), list(at)


def _shard_spec(shard):
    """shard= of rndnn.torch (its modules, functions and init): None, or
    (global_shape, origin) checked as ints and returned as two tuples of
    one length; its fit to a tensor is _shard's to check."""
    if shard is None:
        return None
    try:
        global_shape, origin = shard
    except (TypeError, ValueError):
        raise TypeError("shard must be (global_shape, origin), two sequences "
                        f"of ints, or None, not {shard!r}") from None
    dims = _shape(global_shape, "shard's global_shape")
    at = _shape(origin, "shard's origin")
    if len(at) != len(dims):
        raise Error(f"shard's origin {at} has {len(at)} dims and its "
                    f"global_shape {dims} {len(dims)}")
    return dims, at


def _shard(shard, shape):
    """(global_shape, origin) of a block of @shape at shard= (None: (None,
    None)), checked to lie inside, naming the dim that does not: before
    anything is drawn, so a generator never moves on for a bad block."""
    spec = _shard_spec(shard)
    if spec is None:
        return None, None
    dims, at = spec
    shape = tuple(shape)
    if len(dims) != len(shape):
        raise Error(f"shard's global_shape {dims} has {len(dims)} dims and "
                    f"the tensor {shape} {len(shape)}: a block has the "
                    "global tensor's rank")
    for k, (g, o, n) in enumerate(zip(dims, at, shape)):
        if o > g:
            raise Error(f"shard's origin {at} lies outside global_shape "
                        f"{dims}: dim {k} starts at {o} > {g}")
        if o + n > g:
            raise Error(f"the tensor {shape} at shard's origin {at} does not "
                        f"fit in global_shape {dims}: dim {k} ends at "
                        f"{o} + {n} = {o + n} > {g}")
    return dims, at


def _draw(spec, params, size, dtype, seed, offset, stream, generator, alg,
          name, global_shape, origin, out):
    """A distribution's call: the lean path (python/fast_path.cpp) where
    it takes it, else _generate. @spec: (the lean path's (name, default
    dtype, integer parameters), the names of the real parameters);
    @params: their values, in order."""
    if (out is None and name is None and global_shape is None
            and origin is None and _lean):
        result = _rndnn._sample(spec[0], params, size, dtype, seed, offset,
                                stream, generator, alg)
        if result is not NotImplemented:
            return result
    dist, default, int_params = spec[0]
    return _generate(dist, dist, list(zip(spec[1], params)), size, dtype,
                     default, alg=alg, seed=seed, offset=offset,
                     stream=stream, generator=generator, name=name, out=out,
                     global_shape=global_shape, origin=origin,
                     int_params=int_params)


def _generate(fn, dist, params, size, dtype, default, *, packed=False,
              method="auto", alg, seed, offset, stream, generator, name,
              out, global_shape, origin, int_params=(), p_tensor=None):
    """@params: (name, value) of the real parameters; @int_params: the
    exact s64 ones, checked (integers'); @p_tensor: bernoulli's p array
    as _p_tensor() gives it, or None."""
    dtype, as_torch = _dtype(dtype)
    if packed:
        if dtype not in (None, "bit"):
            raise Error(f"{fn}(packed=True) gives packed bits (uint8); "
                        f"dtype={dtype} asks for another type")
        dtype = "bit"
    if dtype == "bool" and dist != "bernoulli":
        raise Error(f"{fn}() does not write bool: bool holds bernoulli's "
                    "0/1 values")
    # The parameters first: a size given first, as earlier versions took
    # it, is named as a parameter that is no number.
    try:
        params = [_real(v, k) for k, v in params]
    except TypeError as e:
        raise TypeError(f"{e} (the positional arguments are NumPy's: "
                        + "".join(f"{k}, " for k, _ in params)
                        + "size)") from None
    scalar = size is None and out is None
    if size is None:
        if out is not None:
            if dtype == "bit":
                raise TypeError(f"{fn}() of packed bits into out= needs "
                                "size=: out holds 8 elements a byte")
            shape = tuple(_array(out, "out").shape)
        else:
            shape = ()
    else:
        shape = _shape(size, "size")
    window = _window(global_shape, origin, shape)
    if dtype is not None and dtype not in _NUMPY:
        raise Error(f"unknown dtype '{dtype}': " + ", ".join(_NUMPY))
    kind, bits = _method(method)
    alg = _string(alg, "alg")
    name = "" if name is None else _string(name, "name")
    stream = _integer(stream, "stream")
    if out is None:
        dtype = dtype or default
        out = _new(as_torch, _mask_shape(shape, dtype), dtype)
    array, out_dtype = _view(out, "out", written=True)
    if out_dtype is None:
        raise Error(f"out is {out.dtype}, a type rndnn does not write")
    if dtype is None:
        # u8 and packed bits share uint8: the size tells them apart.
        dtype = ("bit" if dist == "bernoulli" and out_dtype == "u8"
                 and array.size != _elements(shape) else out_dtype)
    if dtype not in (out_dtype, {"u8": "bit", "s32": "u32"}.get(out_dtype)):
        raise Error(f"out is {out.dtype}, the {dtype} values need "
                    f"{_NUMPY[dtype].__name__}")
    # The type the library writes: bits' words are u32 whatever the array
    # (int32 holds them), bool arrays hold u8's 0/1 bytes.
    written = "u32" if dist == "bits" else _WRITTEN.get(dtype, dtype)
    p_args = {}
    if p_tensor is not None:
        p_array, p_dtype = p_tensor
        if p_array.ndim > len(shape):
            raise Error(f"p of shape {p_array.shape} does not broadcast to "
                        f"size {shape}: it has more dims")
        p_args = {"p": p_array, "p_dtype": p_dtype, "p_shape":
                  [1] * (len(shape) - p_array.ndim) + list(p_array.shape)}
    seed, offset, generator = _source(seed, offset, generator)
    _rndnn.generate(out=array, shape=list(shape), dtype=written, dist=dist,
                    params=params, method=kind, bits=bits, alg=alg,
                    name=name, stream=stream, global_shape=window[0],
                    origin=window[1], seed=seed, offset=offset,
                    generator=generator, int_params=list(int_params),
                    **p_args)
    return out[()] if scalar and isinstance(out, np.ndarray) else out


_COMMON = """
    size: an int or a tuple of ints; None (the default) gives one value,
    or out's shape when out= is given. dtype: a string ('float16', 'f16'),
    a NumPy dtype (np.float16) or a torch dtype (torch.float16: the result
    is then a torch tensor). seed/offset: the values at (seed, stream,
    offset + i) for element i; without seed= (and with no offset=), they
    come from generator= (an rndnn.Generator, which moves on by the
    element count, or a torch.Generator, which gives the seed: one 63-bit
    word a call, offset 0) or rndnn.default_generator. global_shape,
    origin: the result is the block at origin (zeros by default) of a
    tensor of global_shape, with that tensor's values (element i of the
    block is the global element origin + i): the blocks of any partition,
    drawn apart (by threads, processes, machines), make the whole tensor;
    a generator moves on by the global element count, so every block's
    copy of it stays the same. stream, alg ('philox4x32_10'...), name
    (Multfly's key): as `rndnn gen` takes them. out: a C-contiguous NumPy
    array or torch CPU tensor written in place and returned.

    The positional arguments are NumPy's, size last (normal(0.0, 2.0,
    (3, 4))); everything after size is keyword-only.
"""


_BITS = (("bits", "u32", ()), ())


@_older_names({"shape": "size"})
def bits(size=None, *, dtype=None, seed=None, offset=None, stream=0,
         generator=None, alg=_ALG, name=None, global_shape=None, origin=None,
         out=None, **older):
    """Raw 32-bit words: dtype uint32 (the default; into a torch tensor,
    int32, as torch 1.13 has no uint32) or int32, the same bits.
    """
    if older:
        size, = _renamed(bits, older, size=size)
    if dtype is not None and _dtype(dtype)[0] not in ("u32", "s32"):
        raise Error(f"bits() writes 32-bit words: dtype uint32 or int32, "
                    f"not {dtype}")
    return _draw(_BITS, (), size, dtype, seed, offset, stream, generator,
                 alg, name, global_shape, origin, out)


_BERNOULLI = (("bernoulli", "u8", ()), ("p",))


@_older_names({"shape": "size"})
def bernoulli(p=0.5, size=None, *, dtype=None, packed=False, method="auto",
              seed=None, offset=None, stream=0, generator=None, alg=_ALG,
              name=None, global_shape=None, origin=None, out=None, **older):
    """1 with probability p, 0 otherwise, of the shape size.

    dtype: uint8 (the default, 0/1), bool, int32 or float32; packed=True
    (or dtype='bit') gives the bits packed 8 to a byte, LSB first, a 1-D
    uint8 array of ceil(n/8) (rndnn gen's bit files; see unpackbits).
    method: 'auto' (the default: bitsliced:32 where alg allows, else
    threshold32; p exact to 2^-32 either way), 'threshold32',
    'bytewise' (threshold32's p from a byte an element), 'bitsliced:B' or
    'onednn' (oneDNN's dropout rule, docs/semantics.md).

    p may be an array (NumPy array, torch CPU tensor or sequence): element
    i is 1 with probability p[i] (threshold32: 1 iff its word W < p[i] *
    2^32 exactly; a constant p gives bernoulli(p)'s values). p broadcasts
    to size by NumPy's rule; size defaults to p's shape (with a window,
    size and p are the block's). float32 and bfloat16 are used as they
    are; float64, float16 and sequences are rounded to float32 first
    (float64 to the nearest float32, which may move p by 2^-25 of
    itself); other types are refused. Values outside [0, 1] or NaN raise
    rndnn.Error naming the first. A torch p gives a torch result
    (uint8 unless dtype= says otherwise). method: 'auto' or 'threshold32'.
    """
    if older:
        size, = _renamed(bernoulli, older, size=size)
    if type(p) in (float, int) and not packed and method == "auto":
        return _draw(_BERNOULLI, (p,), size, dtype, seed, offset, stream,
                     generator, alg, name, global_shape, origin, out)
    p_tensor = None
    if isinstance(p, (np.ndarray, list, tuple)) or _is_tensor(p):
        p_tensor = _p_tensor(p)
        if size is None and out is None:
            size = p_tensor[0].shape
        if dtype is None and out is None and _is_tensor(p):
            dtype = _torch().uint8
        p = 0.5  # unused: the array gives each element's
    return _generate("bernoulli", "bernoulli", [("p", p)], size, dtype,
                     "u8", packed=packed, method=method, alg=alg, seed=seed,
                     offset=offset, stream=stream, generator=generator,
                     name=name, out=out, global_shape=global_shape,
                     origin=origin, p_tensor=p_tensor)


def _p_tensor(p):
    """(a C-contiguous NumPy array of bernoulli's p values, 'f32' or
    'bf16' (its uint16 bits)): float32 and bfloat16 as they are, float64,
    float16 and sequences rounded to float32; other types refused."""
    if _is_tensor(p):
        if p.device.type != "cpu":
            raise Error(f"p is on {p.device}, rndnn runs on the CPU")
        p = p.detach().contiguous()
        if str(p.dtype) == "torch.bfloat16":
            torch = _torch()
            return p.view(torch.int16).numpy().view(np.uint16), "bf16"
        p = p.numpy()
    elif not isinstance(p, np.ndarray):
        p = np.asarray(p, dtype=np.float64)
    if p.dtype not in (np.float32, np.float64, np.float16):
        raise Error(f"p is {p.dtype}: bernoulli's p array must be float32, "
                    "bfloat16 (torch), float16 or float64")
    # asarray, not ascontiguousarray: a 0-d p stays 0-d.
    return np.asarray(p, dtype=np.float32, order="C"), "f32"


_UNIFORM = (("uniform", "f64", ()), ('low', 'high'))


@_older_names({"shape": "size", "a": "low", "b": "high"})
def uniform(low=0.0, high=1.0, size=None, *, dtype=None, seed=None,
            offset=None, stream=0, generator=None, alg=_ALG, name=None,
            global_shape=None, origin=None, out=None, **older):
    """Uniform on [low, high) (high only by rounding); dtype float64 (the
    default, as NumPy's Generator.random: 53 random bits a value, 2 words
    an element), float32, float16 or bfloat16 (uint16 bits in NumPy; 24
    random bits, a word an element). low and high are taken as float32
    values. a and b are low's and high's older names.
    """
    if older:
        low, high, size = _renamed(uniform, older, low=low, high=high,
                                   size=size)
    return _draw(_UNIFORM, (low, high), size, dtype, seed, offset, stream,
                 generator, alg, name, global_shape, origin, out)


_NORMAL = (("normal", "f64", ()), ('loc', 'scale'))


@_older_names({"shape": "size", "mean": "loc", "stddev": "scale"})
def normal(loc=0.0, scale=1.0, size=None, *, dtype=None, seed=None,
           offset=None, stream=0, generator=None, alg=_ALG, name=None,
           global_shape=None, origin=None, out=None, **older):
    """Normal(loc, scale) by Box-Muller; dtype float64 (the default, as
    NumPy's, from 53-bit uniforms), float32, float16 or bfloat16. loc and
    scale are taken as float32 values. mean and stddev are loc's and
    scale's older names.
    """
    if older:
        loc, scale, size = _renamed(normal, older, loc=loc, scale=scale,
                                    size=size)
    return _draw(_NORMAL, (loc, scale), size, dtype, seed, offset, stream,
                 generator, alg, name, global_shape, origin, out)


_EXPONENTIAL = (("exponential", "f64", ()), ('scale',))


def exponential(scale=1.0, size=None, *, dtype=None, seed=None,
                offset=None, stream=0, generator=None, alg=_ALG, name=None,
                global_shape=None, origin=None, out=None):
    """Exponential(scale), NumPy's exponential: -ln(u) * scale, u in
    (0, 1], a word an element (two for float64); dtype float64 (the
    default, as NumPy's), float32, float16 or bfloat16.
    """
    return _draw(_EXPONENTIAL, (scale,), size, dtype, seed, offset, stream,
                 generator, alg, name, global_shape, origin, out)


_GUMBEL = (("gumbel", "f64", ()), ('loc', 'scale'))


def gumbel(loc=0.0, scale=1.0, size=None, *, dtype=None, seed=None,
           offset=None, stream=0, generator=None, alg=_ALG, name=None,
           global_shape=None, origin=None, out=None):
    """Gumbel(loc, scale), NumPy's gumbel: loc - scale * ln(-ln(u)), u in
    (0, 1), a word an element (two for float64); dtype float64 (the
    default, as NumPy's), float32, float16 or bfloat16.
    """
    return _draw(_GUMBEL, (loc, scale), size, dtype, seed, offset, stream,
                 generator, alg, name, global_shape, origin, out)


_LAPLACE = (("laplace", "f64", ()), ('loc', 'scale'))


def laplace(loc=0.0, scale=1.0, size=None, *, dtype=None, seed=None,
            offset=None, stream=0, generator=None, alg=_ALG, name=None,
            global_shape=None, origin=None, out=None):
    """Laplace(loc, scale), NumPy's laplace: loc +- scale * (-ln u), the
    magnitude exactly exponential(scale)'s value of the same word, the sign
    from its bit 0 (docs/semantics.md), a word an element (two for
    float64); dtype float64 (the default, as NumPy's), float32, float16 or
    bfloat16.
    """
    return _draw(_LAPLACE, (loc, scale), size, dtype, seed, offset, stream,
                 generator, alg, name, global_shape, origin, out)


_RAYLEIGH = (("rayleigh", "f64", ()), ('scale',))


def rayleigh(scale=1.0, size=None, *, dtype=None, seed=None, offset=None,
             stream=0, generator=None, alg=_ALG, name=None,
             global_shape=None, origin=None, out=None):
    """Rayleigh(scale), NumPy's rayleigh: scale * sqrt(2 E), E exactly
    exponential(1)'s value of the same word (docs/semantics.md), a word an
    element (two for float64); dtype float64 (the default, as NumPy's),
    float32, float16 or bfloat16.
    """
    return _draw(_RAYLEIGH, (scale,), size, dtype, seed, offset, stream,
                 generator, alg, name, global_shape, origin, out)


_LOGNORMAL = (("lognormal", "f64", ()), ('mean', 'sigma'))


def lognormal(mean=0.0, sigma=1.0, size=None, *, dtype=None, seed=None,
              offset=None, stream=0, generator=None, alg=_ALG, name=None,
              global_shape=None, origin=None, out=None):
    """Log-normal, NumPy's lognormal: exp(t) with t exactly what
    normal(mean, sigma) gives the element (the same words); dtype float64
    (the default, as NumPy's), float32, float16 or bfloat16.
    """
    return _draw(_LOGNORMAL, (mean, sigma), size, dtype, seed, offset,
                 stream, generator, alg, name, global_shape, origin, out)


_TRUNCATED_NORMAL = (("truncated_normal", "f64", ()),
                     ("loc", "scale", "a", "b"))


def truncated_normal(loc=0.0, scale=1.0, a=-2.0, b=2.0, size=None, *,
                     dtype=None, seed=None, offset=None, stream=0,
                     generator=None, alg=_ALG, name=None, global_shape=None,
                     origin=None, out=None):
    """Truncated normal: normal(loc, scale) conditioned on [a, b]. a and b
    are ABSOLUTE bounds, as torch.nn.init.trunc_normal_'s (scipy's
    truncnorm(a', b', loc, scale) takes standardised ones: a = loc + a' *
    scale); (a - loc) / scale must be below 9 and (b - loc) / scale above
    -9. By inversion of the normal CDF (one word an element; float64: two,
    52 bits); every value lies in [a, b] after rounding to dtype: float64
    (the default, as NumPy's), float32, float16 or bfloat16.
    """
    return _draw(_TRUNCATED_NORMAL, (loc, scale, a, b), size, dtype, seed,
                 offset, stream, generator, alg, name, global_shape, origin,
                 out)


for _f in (bits, bernoulli, uniform, normal, exponential, gumbel, lognormal,
           truncated_normal):
    _f.__doc__ += _COMMON
del _f


def _s64(value, name):
    """@value, an integer in [-2^63, 2^63) (integers' bounds): TypeError
    for what is no integer (1.5 would be truncated), OutOfRangeError
    outside."""
    try:
        v = operator.index(value)
    except TypeError:
        raise TypeError(f"{name} must be an integer, not "
                        f"{type(value).__name__} {value!r} (the positional "
                        "arguments are NumPy's: low, high, size)") from None
    if not -(1 << 63) <= v < 1 << 63:
        raise OutOfRangeError(f"{name}={v} is outside [-2^63, 2^63)")
    return v


def integers(low, high=None, size=None, *, dtype=None, endpoint=False,
             seed=None, offset=None, stream=0, generator=None, alg=_ALG,
             name=None, global_shape=None, origin=None, out=None):
    """Integers uniform on [low, high) as NumPy's Generator.integers:
    high=None draws from [0, low); endpoint=True includes high. dtype
    int64 (the default), int32, uint8 or float32 (for index math; values
    of magnitude up to 2^24). Multiply-shift of 64 random bits (2 words
    an element) where high - low <= 2^32, else of 128 (4 words): every
    value's probability is within 2^-32 of 1 / (high - low), relatively
    (docs/semantics.md). The bounds must be s64: with endpoint=True,
    high + 1 too.
    """
    lo = _s64(low, "low")
    if high is None:
        lo, hi = 0, lo
        what = "low"
    else:
        hi = _s64(high, "high")
        what = "high"
    if not isinstance(endpoint, (bool, np.bool_)):
        raise TypeError(f"endpoint must be a bool, not "
                        f"{type(endpoint).__name__} {endpoint!r}")
    if endpoint:
        hi += 1
        if hi >= 1 << 63:
            raise OutOfRangeError(f"{what}={hi - 1} with endpoint=True "
                                  "ends at 2^63, past the s64 bounds")
    return _draw((("integers", "s64", (lo, hi)), ()), (), size, dtype, seed,
                 offset, stream, generator, alg, name, global_shape, origin,
                 out)


integers.__doc__ += _COMMON


def _wants_grad(a):
    return _is_tensor(a) and a.requires_grad and _torch().is_grad_enabled()


def _dropout(src, p, backward, mask, mask_dtype, source, *, stream,
             noise_shape, alg, method, name, out, global_shape=None,
             origin=None):
    """(out, (seed, offset) used) of dropout's forward or backward;
    @source: _source()'s; @src the block at @origin of a tensor of
    @global_shape in a window."""
    s, dtype = _view(src, "dy" if backward else "x")
    if dtype not in ("f32", "bf16", "f16"):
        raise Error(f"dropout takes f32, bf16 or f16 data, not {src.dtype}")
    shape = list(src.shape)
    window = _window(global_shape, origin, shape)
    noise = (list(_noise(noise_shape, shape, global_shape)[0])
             if noise_shape is not None else [])
    if out is None:
        out = _new(_is_tensor(src), tuple(src.shape), dtype)
    d, out_dtype = _view(out, "out", written=True)
    if out_dtype != dtype:
        raise Error(f"out is {out.dtype}, the data is {src.dtype}")
    # The kernel reads each element before it writes it: out may be the
    # input itself, but shifted it reads what it wrote.
    x_name = "dy" if backward else "x"
    _overlap(d, s, "out", x_name, same=True)
    m = None
    if mask is not None:
        m, m_dtype = _view(mask, "mask")
        if m_dtype not in ("u8", "bool"):
            raise Error(f"mask is {mask.dtype}, not uint8 or bool")
        _overlap(d, m, "out", "mask")
    kind, bits = _method(method)
    if kind == "onednn":
        # The library's message names its C++ spelling (onednn_compat),
        # which Python has no argument for.
        raise Error("dropout has no method 'onednn' (oneDNN's rule is "
                    "rndnn.bernoulli's, with alg='philox4x32_10_onednn'); "
                    "rndnn.dropout's methods are 'auto', 'threshold32', "
                    "'bytewise' and 'bitsliced:B'")
    drawn = _rndnn.dropout(
        src=s, dst=d, mask=m, shape=shape, dtype=dtype, noise_shape=noise,
        mask_dtype=mask_dtype, rate=p, backward=backward, method=kind,
        bits=bits, alg=_string(alg, "alg"),
        name="" if name is None else _string(name, "name"),
        stream=_integer(stream, "stream"), global_shape=window[0],
        origin=window[1], seed=source[0], offset=source[1],
        generator=source[2])
    return out, drawn


# dropout's mask= kinds: the type of the array kept, as _dropout's
# mask_dtype (bool arrays hold u8's 0/1 bytes).
_MASKS = {"bit": "bit", "u8": "u8", "bool": "u8"}


def _dropout_forward(x, p, source, mask, noise_shape, stream, alg, method,
                     name, out, global_shape=None, origin=None):
    """(y, mask, (seed, offset) used) of dropout's forward, without
    autograd; @source: _source()'s; @mask "bit", "u8", "bool" or None."""
    _window(global_shape, origin, x.shape)
    # Before the mask is made: it may be huge.
    _, block = _noise(noise_shape, x.shape, global_shape)
    m = (_new(_is_tensor(x), _mask_shape(block, mask),
              "bool" if mask == "bool" else "u8") if mask else None)
    y, drawn = _dropout(x, p, False, m, _MASKS[mask] if mask else "", source,
                        stream=stream, noise_shape=noise_shape, alg=alg,
                        method=method, name=name, out=out,
                        global_shape=global_shape, origin=origin)
    return y, m, drawn


def _backward_source(dy, mask, seed, offset, noise_shape, global_shape=None,
                     origin=None):
    """(mask dtype, _source()'s) of dropout_backward's arguments, checked:
    a mask given ("u8": of the noise shape, the block's in a window, uint8
    or bool; "bit": packed) or a seed to recompute it from."""
    mask_dtype = ""
    shape = _array(dy, "dy").shape
    _window(global_shape, origin, shape)
    _, block = _noise(noise_shape, shape, global_shape)
    if mask is not None:
        # A u8 mask has the noise shape, a bit mask is 1-D (packed): a u8
        # mask read as bits would keep 1 element in 8.
        packed = (_mask_shape(block, "bit")[0],)
        m, m_dtype = _view(mask, "mask")
        if m.shape == block:
            mask_dtype = "u8"
        elif m.shape == packed and m_dtype != "bool":
            mask_dtype = "bit"
        else:
            raise Error(
                f"mask is {mask.dtype} of shape {m.shape}; for dy of shape "
                f"{tuple(dy.shape)} and noise_shape {noise_shape}, a mask is "
                f"uint8 or bool of shape {block} or packed bits (uint8) of "
                f"shape {packed}"
                + (" (pass the forward's noise_shape)"
                   if noise_shape is None and len(m.shape) == len(block)
                   else ""))
        if seed is None:
            seed = 0  # not read: the mask is given
    elif seed is None:
        raise TypeError("dropout_backward() needs the forward's mask= or its "
                        "seed= (and offset=) to recompute the mask")
    return mask_dtype, _source(seed, offset, None)


def _dropout_backward(dy, p, mask, seed, offset, stream, noise_shape, alg,
                      method, name, out, global_shape=None, origin=None):
    """dropout_backward's dx, without autograd; @p checked."""
    mask_dtype, source = _backward_source(dy, mask, seed, offset, noise_shape,
                                          global_shape, origin)
    return _dropout(dy, p, True, mask, mask_dtype, source, stream=stream,
                    noise_shape=noise_shape, alg=alg, method=method,
                    name=name, out=out, global_shape=global_shape,
                    origin=origin)[0]


def unpackbits(packed, shape):
    """The 0/1 uint8 array of a packed bit mask of the given shape."""
    shape = _shape(shape)
    packed, _ = _view(packed, "packed")
    n = _elements(shape)
    if packed.nbytes * 8 < n:
        raise Error(f"packed holds {packed.nbytes} bytes, {packed.nbytes * 8} "
                    f"bits, and shape {shape} needs {n} bits "
                    f"({(n + 7) // 8} bytes)")
    return np.unpackbits(packed.view(np.uint8).reshape(-1), count=n,
                         bitorder="little").reshape(shape)


def _softmax_dropout(src, p, backward, scores, stats, mask, mask_dtype,
                     source, *, causal, stream, global_shape, origin, alg,
                     method, name, out):
    """(out, (seed, offset) used) of softmax_dropout's forward or backward;
    @stats: the array to write (forward) or read; @source: _source()'s."""
    x_name = "dy" if backward else "x"
    s, dtype = _view(src, x_name)
    if dtype not in ("f32", "bf16"):
        raise Error(f"softmax_dropout takes f32 or bf16 data, not "
                    f"{src.dtype}")
    shape = list(src.shape)
    if not shape:
        raise Error(f"softmax_dropout needs {x_name} of 1 dim or more (the "
                    "softmax runs along the last), not a scalar")
    window = _window(global_shape, origin, shape)
    if out is None:
        out = _new(_is_tensor(src), tuple(shape), dtype)
    d, out_dtype = _view(out, "out", written=True)
    if out_dtype != dtype:
        raise Error(f"out is {out.dtype}, the data is {src.dtype}")
    _overlap(d, s, "out", x_name, same=True)
    st, st_dtype = _view(stats, "stats", written=not backward)
    if st_dtype != "f32" or tuple(st.shape) != tuple(shape[:-1]) + (2,):
        raise Error(f"stats is {stats.dtype} of shape {tuple(st.shape)}, "
                    f"not float32 of shape {tuple(shape[:-1]) + (2,)} (the "
                    "forward's)")
    x = None
    if scores is not None:
        x, x_dtype = _view(scores, "x")
        if x_dtype != dtype or list(x.shape) != shape:
            raise Error(f"x is {scores.dtype} of shape {tuple(x.shape)}, dy "
                        f"{src.dtype} of shape {tuple(shape)}: x must be "
                        "the forward's scores")
        _overlap(d, x, "out", "x")
    m = None
    if mask is not None:
        m, _ = _view(mask, "mask", written=not backward)
        _overlap(d, m, "out", "mask")
    kind, bits = _method(method)
    if kind == "onednn":
        raise Error("softmax_dropout has no method 'onednn'; its methods are "
                    "'auto', 'threshold32', 'bytewise' and 'bitsliced:B'")
    drawn = _rndnn.softmax_dropout(
        src=s, dst=d, stats=st, scores=x, mask=m, shape=shape, dtype=dtype,
        mask_dtype=mask_dtype, backward=backward, rate=p,
        causal=bool(causal), method=kind, bits=bits,
        alg=_string(alg, "alg"),
        name="" if name is None else _string(name, "name"),
        stream=_integer(stream, "stream"), seed=source[0], offset=source[1],
        generator=source[2], global_shape=window[0], origin=window[1])
    return out, drawn


def _softmax_dropout_forward(x, p, source, mask, causal, stream,
                             global_shape, origin, alg, method, name, out):
    """(y, stats, mask, (seed, offset) used) of softmax_dropout's forward,
    without autograd; @source: _source()'s."""
    _array(x, "x")
    if mask not in ("bit", "u8", None):
        raise Error(f"unknown mask '{mask}': \"bit\", \"u8\" or None")
    torch_like = _is_tensor(x)
    stats = _new(torch_like, tuple(x.shape[:-1]) + (2,), "f32")
    m = (_new(torch_like, _mask_shape(tuple(x.shape), mask), "u8")
         if mask else None)
    y, drawn = _softmax_dropout(
        x, p, False, None, stats, m, mask or "", source,
        causal=causal, stream=stream, global_shape=global_shape,
        origin=origin, alg=alg, method=method, name=name, out=out)
    return y, stats, m, drawn


def _softmax_dropout_backward(dy, x, stats, p, mask, seed, offset, causal,
                              stream, global_shape, origin, alg, method, name,
                              out):
    """softmax_dropout_backward's dx, without autograd; @p checked."""
    _array(dy, "dy")
    mask_dtype = ""
    if mask is not None:
        # A u8 mask has dy's shape, a bit mask is 1-D (packed).
        shape = tuple(dy.shape)
        packed = _mask_shape(shape, "bit")
        m, _ = _view(mask, "mask")
        if m.shape == shape:
            mask_dtype = "u8"
        elif m.shape == packed:
            mask_dtype = "bit"
        else:
            raise Error(f"mask is {mask.dtype} of shape {m.shape}; for dy of "
                        f"shape {shape}, a mask is u8 of that shape or "
                        f"packed bits of shape {packed}")
        if seed is None:
            seed = 0  # not read: the mask is given
    elif seed is None:
        raise TypeError("softmax_dropout_backward() needs the forward's mask= "
                        "or its seed= (and offset=) to recompute the mask")
    return _softmax_dropout(
        dy, p, True, x, stats, mask, mask_dtype,
        _source(seed, offset, None), causal=causal, stream=stream,
        global_shape=global_shape, origin=origin, alg=alg, method=method,
        name=name, out=out)[0]


def softmax_dropout_backward(dy, x, stats, p=0.5, *, mask=None, seed=None,
                             offset=None, stream=0, causal=False,
                             global_shape=None, origin=None, alg=_ALG,
                             method="auto", name=None, out=None):
    """The gradient of softmax_dropout's y with respect to x: dx = P * (dp
    - sum(P * dp)) along the last dim, dp = keep ? dy / (1 - p) : 0, P the
    softmax rebuilt from the scores x and the forward's stats.

    mask: the mask softmax_dropout returned ("bit" or "u8"), or None to
    recompute it from the forward's seed (required then), offset, stream,
    alg, method and window (global_shape, origin); causal as the forward's.
    out: where dx goes (may be dy). No autograd: the result is detached.
    """
    p = _probability(p, None, "softmax_dropout_backward")
    return _softmax_dropout_backward(dy, x, stats, p, mask, seed, offset,
                                     causal, stream, global_shape, origin,
                                     alg, method, name, out)


def permutation(x, size=None, *, dtype=None, seed=None, offset=None,
                stream=0, generator=None, global_shape=None, origin=None,
                out=None):
    """NumPy's Generator.permutation: x an int n gives a permutation of
    arange(n), pi(0), ..., pi(n - 1), with pi the keyed bijection of [0, n)
    of docs/semantics.md (a Feistel network over Philox4x32-10 with cycle
    walking); x an array gives x[permutation(len(x))], a shuffled copy
    along axis 0. With size= (or out=, or global_shape/origin) the result
    is a window of the permutation: element i is pi(offset + i), so any
    shard is computed alone in time and memory of its own size. Every
    element's offset + global index must be below n. dtype int64 (the
    default) or int32 (n <= 2^31). n = 0 gives an empty array, as NumPy.
    Without seed=, an rndnn.Generator reserves n elements (first =
    reserve(n)) and the permutation is the one of seed
    fold_in(first).seed, offset 0; a torch.Generator gives a seed (offset
    0). The algorithm does not enter: the values depend on (seed, stream,
    n, index) only.
    """
    if not isinstance(x, numbers.Integral):
        if size is not None or out is not None or global_shape is not None:
            raise TypeError("permutation of an array takes no size=, out= "
                            "or global_shape=: it shuffles the whole array")
        array = x if _is_tensor(x) else np.asarray(x)
        if array.ndim < 1:
            raise TypeError("x must be an integer or an array of at least "
                            f"one dimension, not {type(x).__name__} {x!r}")
        index = permutation(len(array), seed=seed, offset=offset,
                            stream=stream, generator=generator)
        if _is_tensor(array):
            index = _torch().from_numpy(index)
        return array[index]
    n = _s64(x, "n")
    if n < 0:
        raise OutOfRangeError(f"permutation n={n} is negative")
    if size is None and out is None and global_shape is None:
        if n == 0:
            return np.empty(0, dtype=np.int64)
        size = n
    if seed is None:
        seed, offset, g = _source(seed, offset, generator)
        if g is not None:
            seed = g.fold_in(g.reserve(n)).seed
    elif generator is not None:
        raise TypeError("seed= and generator= exclude each other")
    return _generate("permutation", "permutation", [], size, dtype, "s64",
                     int_params=(n,), alg=_ALG, seed=seed, offset=offset,
                     stream=stream, generator=None, name=None, out=out,
                     global_shape=global_shape, origin=origin)


def shuffled_index(i, n, *, seed, stream=0):
    """pi(i), element i of permutation(n, seed=seed, stream=stream): an int
    i gives an int, an array of them an int64 array of its shape (one
    primitive call an element; for a contiguous range, permutation(n,
    size, seed=..., offset=first) is one call). Each i in [0, n)
    (OutOfRangeError otherwise).
    """
    n = _s64(n, "n")
    scalar = isinstance(i, numbers.Integral)
    index = np.asarray(i)
    if not scalar and (index.dtype.kind not in "iu"):
        raise TypeError(f"i must be an integer or an array of integers, "
                        f"not {index.dtype}")
    result = np.empty(index.shape, dtype=np.int64)
    for at, value in np.ndenumerate(index):
        g = int(value)
        if not 0 <= g < n:
            raise OutOfRangeError(f"i={g} is outside [0, n={n})")
        result[at] = permutation(n, 1, seed=seed, offset=g, stream=stream)[0]
    return int(result[()]) if scalar else result
