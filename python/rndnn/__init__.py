"""rndnn: deep-learning randomness on CPUs (docs/python.md).

Random tensors whose values depend only on (seed, stream, global element
index): bits, bernoulli (bit masks packed 8 to a byte, LSB first), uniform
and normal, and dropout forward and backward, on NumPy arrays or torch CPU
tensors, into new ones or into those you give (out=, never copied).
rndnn.torch holds the torch.nn.Dropout replacement.
"""
import operator
import sys

import numpy as np

from . import _rndnn
from ._rndnn import Error, Generator, __version__

__all__ = ["Error", "Generator", "bits", "bernoulli", "uniform", "normal",
           "dropout", "dropout_backward", "unpackbits", "__version__"]

# rndnn's data types as NumPy's (bf16 as its bits: NumPy has none) and
# torch's (bit: packed uint8; torch has no uint32: int32 holds the words).
_NUMPY = {"u32": np.uint32, "s32": np.int32, "u8": np.uint8, "bit": np.uint8,
          "f32": np.float32, "f16": np.float16, "bf16": np.uint16}
_FROM_NUMPY = {np.dtype(v): k for k, v in _NUMPY.items() if k != "bit"}
_TORCH = {"u32": "int32", "s32": "int32", "u8": "uint8", "bit": "uint8",
          "f32": "float32", "f16": "float16", "bf16": "bfloat16"}
_FROM_TORCH = {"torch." + v: k for k, v in _TORCH.items()
               if k not in ("u32", "bit")}


def _torch():
    """torch if it has been imported (a tensor cannot exist before)."""
    return sys.modules.get("torch")


def _is_tensor(a):
    torch = _torch()
    return torch is not None and isinstance(a, torch.Tensor)


def _shape(shape):
    # operator.index: a float or a string is no dim (int() truncated 2.5).
    try:
        dims = ((operator.index(shape),) if np.isscalar(shape)
                else tuple(operator.index(d) for d in shape))
    except TypeError:
        raise TypeError(f"shape {shape!r} is not an int or a sequence of "
                        "ints") from None
    if any(d < 0 for d in dims):
        raise Error(f"shape {dims} has a negative dim")
    return dims


# The ranges of seed (s64), offset and stream (u64).
_RANGES = {"seed": (-(1 << 63), 1 << 63, "[-2^63, 2^63)"),
           "offset": (0, 1 << 63, "[0, 2^63)"),
           "stream": (0, 1 << 64, "[0, 2^64)")}


def _integer(value, name):
    """@value, an integer in @name's range: a TypeError for a float or a
    string (int() truncated 1.5), rndnn.Error outside the range."""
    try:
        v = operator.index(value)
    except TypeError:
        raise TypeError(f"{name} must be an integer, not "
                        f"{type(value).__name__} {value!r}") from None
    lo, hi, text = _RANGES[name]
    if not lo <= v < hi:
        raise Error(f"{name}={v} is outside {text}")
    return v


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
    if _is_tensor(a):
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


def _new(like, shape, dtype):
    """A new array of @shape and rndnn type @dtype: a torch tensor where
    @like is one, else NumPy."""
    if _is_tensor(like):
        # Advised for huge pages before the kernel first writes it (NumPy
        # advises its own arrays of 4 MiB and more itself).
        torch = _torch()
        t = torch.empty(shape, dtype=getattr(torch, _TORCH[dtype]))
        _rndnn.advise_huge_pages(t.data_ptr(), t.numel() * t.element_size())
        return t
    return np.empty(shape, _NUMPY[dtype])


def _mask_shape(shape, dtype):
    return ((_elements(shape) + 7) // 8,) if dtype == "bit" else shape


def _noise(noise_shape, shape):
    """The mask's dims: @noise_shape, each of its dims @shape's or 1, or
    the data's @shape when None."""
    if noise_shape is None:
        return tuple(shape)
    noise = _shape(noise_shape)
    if len(noise) != len(shape) or any(
            n not in (d, 1) for n, d in zip(noise, shape)):
        raise Error(f"noise shape {noise} does not fit the data shape "
                    f"{tuple(shape)} (each noise dim must equal the data's "
                    "or be 1)")
    return noise


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
    kind, _, bits = method.partition(":")
    if (kind not in ("auto", "threshold32", "bitsliced")
            or (bits and kind != "bitsliced")):
        raise Error(f"unknown method '{method}': auto, threshold32 or "
                    "bitsliced:B")
    try:
        return kind, int(bits or 1)
    except ValueError:
        raise Error(f"bad bit count in method '{method}'") from None


def _run(shape, dtype, default, dist, params, *, method="auto", alg,
         seed, offset, stream, name, out):
    shape = _shape(shape)
    if dtype is not None and dtype not in _NUMPY:
        raise Error(f"unknown dtype '{dtype}': " + ", ".join(_NUMPY))
    if out is None:
        dtype = dtype or default
        out = _new(None, _mask_shape(shape, dtype), dtype)
    array, out_dtype = _view(out, "out", written=True)
    if out_dtype is None:
        raise Error(f"out is {out.dtype}, a type rndnn does not write")
    if dtype is None:
        # u8 and packed bits share uint8: the size tells them apart.
        dtype = ("bit" if default == "bit" and out_dtype == "u8"
                 and array.size != _elements(shape) else out_dtype)
    if dtype not in (out_dtype, {"u8": "bit", "s32": "u32"}.get(out_dtype)):
        raise Error(f"out is {out.dtype}, the {dtype} values need "
                    f"{_NUMPY[dtype].__name__}")
    kind, bits = _method(method)
    _rndnn.generate(array, list(shape), dtype, dist, list(params), kind,
                    bits, alg, _integer(seed, "seed"),
                    _integer(offset, "offset"), _integer(stream, "stream"),
                    name or "")
    return out


def bits(shape, *, alg="philox4x32_10", seed=0, offset=0, stream=0,
         name=None, out=None):
    """Raw 32-bit words (uint32; torch int32)."""
    return _run(shape, "u32", "u32", "bits", [], alg=alg, seed=seed,
                offset=offset, stream=stream, name=name, out=out)


def bernoulli(shape, p=0.5, *, dtype=None, method="auto",
              alg="philox4x32_10", seed=0, offset=0, stream=0, name=None,
              out=None):
    """1 with probability p. dtype "bit" (the default) gives packed uint8
    (see unpackbits), else "u8", "s32" or "f32". method: "auto" (the
    default: bitsliced:32 where alg allows, else threshold32; p exact to
    2^-32 either way), "threshold32" or "bitsliced:B"."""
    return _run(shape, dtype, "bit", "bernoulli", [p], method=method,
                alg=alg, seed=seed, offset=offset, stream=stream, name=name,
                out=out)


def uniform(shape, a=0.0, b=1.0, *, dtype=None, alg="philox4x32_10",
            seed=0, offset=0, stream=0, name=None, out=None):
    """Uniform on [a, b] (b only by rounding); dtype f32 (the default), f16
    or bf16 (as uint16 bits in NumPy)."""
    return _run(shape, dtype, "f32", "uniform", [a, b], alg=alg, seed=seed,
                offset=offset, stream=stream, name=name, out=out)


def normal(shape, mean=0.0, stddev=1.0, *, dtype=None,
           alg="philox4x32_10", seed=0, offset=0, stream=0, name=None,
           out=None):
    """Normal(mean, stddev) by Box-Muller; dtype f32, f16 or bf16."""
    return _run(shape, dtype, "f32", "normal", [mean, stddev], alg=alg,
                seed=seed, offset=offset, stream=stream, name=name, out=out)


def _dropout(src, rate, backward, mask, mask_dtype, *, seed, offset, stream,
             noise_shape, alg, method, name, out):
    s, dtype = _view(src, "dy" if backward else "x")
    if dtype not in ("f32", "bf16", "f16"):
        raise Error(f"dropout takes f32, bf16 or f16 data, not {src.dtype}")
    if out is None:
        out = _new(src, tuple(src.shape), dtype)
    d, out_dtype = _view(out, "out", written=True)
    if out_dtype != dtype:
        raise Error(f"out is {out.dtype}, the data is {src.dtype}")
    # The kernel reads each element before it writes it: out may be the
    # input itself, but shifted it reads what it wrote.
    x_name = "dy" if backward else "x"
    _overlap(d, s, "out", x_name, same=True)
    shape = list(src.shape)
    noise = list(_noise(noise_shape, shape)) if noise_shape is not None else []
    m = None
    if mask is not None:
        m, m_dtype = _view(mask, "mask")
        if m_dtype != "u8":
            raise Error(f"mask is {mask.dtype}, not uint8")
        _overlap(d, m, "out", "mask")
    _rndnn.dropout(s, d, m, shape, dtype, noise,
                   mask_dtype, float(rate), backward, *_method(method), alg,
                   _integer(seed, "seed"), _integer(offset, "offset"),
                   _integer(stream, "stream"), name or "")
    return out


def dropout(x, rate, *, seed=0, offset=0, stream=0, mask="bit",
            noise_shape=None, alg="philox4x32_10", method="auto",
            name=None, out=None):
    """Dropout forward in training: y = keep ? x / (1 - rate) : 0, the keep
    mask bernoulli(1 - rate) of the RNG at (seed, stream, offset + i).

    x: a C-contiguous f32, f16 or bf16 (uint16 in NumPy) array or torch CPU
    tensor. mask: "bit" (packed uint8 of ceil(n/8), as bernoulli's),
    "u8" (0/1 of the noise shape) or None (keep none: dropout_backward
    recomputes it). noise_shape: the mask's dims, each x's or 1 (shared
    along that axis). out: where y goes (may be x: in place; must not
    overlap x otherwise).

    Returns (y, mask), mask None when not kept.
    """
    if mask not in ("bit", "u8", None):
        raise Error(f"unknown mask '{mask}': \"bit\", \"u8\" or None")
    m = None
    if mask is not None:
        # Checked before the mask is made: a bad shape may be huge.
        m = _new(x, _mask_shape(_noise(noise_shape, _array(x, "x").shape),
                                mask), "u8")
    y = _dropout(x, rate, False, m, mask or "", seed=seed, offset=offset,
                 stream=stream, noise_shape=noise_shape, alg=alg,
                 method=method, name=name, out=out)
    return y, m


def dropout_backward(dy, rate, *, mask=None, seed=0, offset=0, stream=0,
                     noise_shape=None, alg="philox4x32_10",
                     method="auto", name=None, out=None):
    """Dropout backward: dx = keep ? dy / (1 - rate) : 0.

    mask: the mask dropout returned ("bit": packed, or "u8": of the noise
    shape, so with the forward's noise_shape), or None to recompute it from
    the same seed, offset, stream, alg, method and noise_shape as the
    forward's. out may be dy.
    """
    mask_dtype = ""
    if mask is not None:
        # A u8 mask has the noise shape, a bit mask is 1-D (packed): a u8
        # mask read as bits would keep 1 element in 8.
        noise = _noise(noise_shape, _array(dy, "dy").shape)
        packed = (_mask_shape(noise, "bit")[0],)
        m, _ = _view(mask, "mask")
        if m.shape == noise:
            mask_dtype = "u8"
        elif m.shape == packed:
            mask_dtype = "bit"
        else:
            raise Error(
                f"mask is {mask.dtype} of shape {m.shape}; for dy of shape "
                f"{tuple(dy.shape)} and noise_shape {noise_shape}, a mask is "
                f"u8 of shape {noise} or packed bits of shape {packed}"
                + (" (pass the forward's noise_shape)"
                   if noise_shape is None and len(m.shape) == len(noise)
                   else ""))
    return _dropout(dy, rate, True, mask, mask_dtype, seed=seed,
                    offset=offset, stream=stream, noise_shape=noise_shape,
                    alg=alg, method=method, name=name, out=out)


def unpackbits(packed, shape):
    """The 0/1 uint8 array of a packed bit mask of the given shape."""
    shape = _shape(shape)
    packed, _ = _view(packed, "packed")
    return np.unpackbits(packed, count=_elements(shape),
                         bitorder="little").reshape(shape)
