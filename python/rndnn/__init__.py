"""rndnn: deep-learning randomness on CPUs (docs/python.md).

Random tensors whose values depend only on (seed, stream, global element
index): bits, bernoulli (bit masks packed 8 to a byte, LSB first), uniform
and normal, into new NumPy arrays or into arrays you give (out=, never
copied).
"""
import numpy as np

from ._rndnn import Error, Generator, __version__, generate

__all__ = ["Error", "Generator", "bits", "bernoulli", "uniform", "normal",
           "unpackbits", "__version__"]

_NUMPY = {"u32": np.uint32, "u8": np.uint8, "s32": np.int32,
          "f32": np.float32, "f16": np.float16, "bf16": np.uint16}


def _shape(shape):
    return (int(shape),) if np.isscalar(shape) else tuple(int(d) for d in shape)


def _run(shape, dtype, dist, params, *, method="threshold32", alg, seed,
         offset, stream, name, out):
    shape = _shape(shape)
    n = int(np.prod(shape, dtype=np.int64))
    if out is None:
        out = (np.empty((n + 7) // 8, np.uint8) if dtype == "bit"
               else np.empty(shape, _NUMPY[dtype]))
    kind, _, bits = method.partition(":")
    generate(out, list(shape), dtype, dist, list(params), kind,
             int(bits or 1), alg, int(seed), int(offset), int(stream),
             name or "")
    return out


def bits(shape, *, alg="philox4x32_10", seed=0, offset=0, stream=0,
         name=None, out=None):
    """Raw 32-bit words (uint32)."""
    return _run(shape, "u32", "bits", [], alg=alg, seed=seed, offset=offset,
                stream=stream, name=name, out=out)


def bernoulli(shape, p=0.5, *, dtype="bit", method="threshold32",
              alg="philox4x32_10", seed=0, offset=0, stream=0, name=None,
              out=None):
    """1 with probability p. dtype "bit" gives packed uint8 (see
    unpackbits), else "u8", "s32" or "f32". method: "threshold32" or
    "bitsliced:B"."""
    return _run(shape, dtype, "bernoulli", [p], method=method, alg=alg,
                seed=seed, offset=offset, stream=stream, name=name, out=out)


def uniform(shape, a=0.0, b=1.0, *, dtype="f32", alg="philox4x32_10",
            seed=0, offset=0, stream=0, name=None, out=None):
    """Uniform on [a, b] (b only by rounding); dtype f32, f16 or bf16 (as
    uint16 bits in NumPy)."""
    return _run(shape, dtype, "uniform", [a, b], alg=alg, seed=seed,
                offset=offset, stream=stream, name=name, out=out)


def normal(shape, mean=0.0, stddev=1.0, *, dtype="f32",
           alg="philox4x32_10", seed=0, offset=0, stream=0, name=None,
           out=None):
    """Normal(mean, stddev) by Box-Muller; dtype f32, f16 or bf16."""
    return _run(shape, dtype, "normal", [mean, stddev], alg=alg, seed=seed,
                offset=offset, stream=stream, name=name, out=out)


def unpackbits(packed, shape):
    """The 0/1 uint8 array of a packed bit mask of the given shape."""
    shape = _shape(shape)
    n = int(np.prod(shape, dtype=np.int64))
    return np.unpackbits(packed, count=n, bitorder="little").reshape(shape)
