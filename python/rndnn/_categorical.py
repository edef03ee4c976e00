"""Categorical sampling by Gumbel-max (docs/python.md, "Categorical
sampling"): rndnn.categorical and rndnn.categorical_combine, on NumPy
arrays and torch CPU tensors, without autograd."""
import math

import numpy as np

from . import _rndnn
from ._arrays import (_ALG, Error, _array, _integer, _is_tensor, _new,
                      _real, _source, _string, _torch, _view, _window)


def _axis(axis, ndim):
    """@axis (an int in [-ndim, ndim)) as a non-negative index."""
    if not isinstance(axis, int) or isinstance(axis, bool):
        raise TypeError(f"axis must be an int, not {type(axis).__name__}")
    if not -ndim <= axis < ndim:
        raise Error(f"axis {axis} is out of range for logits of {ndim} dims")
    return axis % ndim


def categorical(logits, axis=-1, *, temperature=1.0, seed=None, offset=None,
                stream=0, generator=None, global_shape=None, origin=None,
                alg=_ALG, name=None, return_max=False):
    """One draw from softmax(logits / temperature) along @axis, by
    Gumbel-max: the index of max_j (logits_j / T + G_j), G the
    gumbel(0, 1) values of the logits' elements (rndnn.gumbel(0, 1) of
    the logits' global shape and the same seed, offset and stream),
    computed a block at a time, never stored; ties to the lowest index, a
    NaN logit counts as -inf (docs/semantics.md).

    logits: a NumPy array (float32, or uint16 holding bf16) or a torch CPU
    tensor (float32 or bfloat16), 1 dim or more, C-contiguous. axis: the
    vocabulary's; another than the last is moved last by a copy.
    temperature: finite and > 0. global_shape, origin: logits is the block
    at origin of logits of global_shape (the same axis order): the noise
    is that of the global element, and the indices are global, so shards
    of the vocabulary drawn apart and combined by categorical_combine()
    give the unsharded draw. Without seed=, the generator moves on by the
    global element count.

    Returns int64 indices of logits' shape without @axis (torch in, torch
    out) or, with return_max=True, (indices, max scores as float32).
    """
    _array(logits, "logits")
    ndim = len(logits.shape)
    if ndim == 0:
        raise Error("categorical needs logits of 1 dim or more, not a scalar")
    ax = _axis(axis, ndim)
    temperature = _real(temperature, "temperature")
    if not (math.isfinite(temperature) and temperature > 0):
        raise Error(f"categorical temperature {temperature} must be finite "
                    "and > 0")
    torch_like = _is_tensor(logits)
    if ax != ndim - 1:
        logits = (logits.movedim(ax, -1).contiguous() if torch_like
                  else np.ascontiguousarray(np.moveaxis(logits, ax, -1)))

        def moved(t):
            if t is None:
                return None
            t = list(t)
            return tuple(t[:ax] + t[ax + 1:] + t[ax:ax + 1])
        global_shape, origin = moved(global_shape), moved(origin)
    x, dtype = _view(logits, "logits")
    if dtype not in ("f32", "bf16"):
        raise Error(f"categorical takes f32 or bf16 logits, not "
                    f"{logits.dtype}")
    if not x.flags.c_contiguous:
        raise Error("logits must be C-contiguous")
    shape = list(x.shape)
    window = _window(global_shape, origin, shape)
    alg = _string(alg, "alg")
    name = "" if name is None else _string(name, "name")
    stream = _integer(stream, "stream")
    source = _source(seed, offset, generator)
    rows = tuple(shape[:-1])
    idx = _new(torch_like, rows, "s64")
    mx = _new(torch_like, rows, "f32") if return_max else None
    _rndnn.categorical(
        src=x, idx=_view(idx, "indices", written=True)[0],
        max=None if mx is None else _view(mx, "max", written=True)[0],
        shape=shape, dtype=dtype, temperature=temperature, alg=alg,
        name=name, stream=stream, seed=source[0], offset=source[1],
        generator=source[2], global_shape=window[0], origin=window[1])
    return (idx, mx) if return_max else idx


def categorical_combine(maxes, indices, axis=0):
    """The draw of shards of the vocabulary from their results: @maxes and
    @indices (categorical(..., return_max=True) of each shard, stacked
    along @axis) reduced along @axis: the greatest max wins, ties (and
    NaN, as -inf) to the lowest index. Returns (indices, maxes) of the
    shape without @axis; torch in, torch out."""
    _array(maxes, "maxes")
    _array(indices, "indices")
    if tuple(maxes.shape) != tuple(indices.shape):
        raise Error(f"maxes of shape {tuple(maxes.shape)} and indices of "
                    f"shape {tuple(indices.shape)} differ")
    ndim = len(maxes.shape)
    if ndim == 0:
        raise Error("categorical_combine needs a shard axis")
    ax = _axis(axis, ndim)
    torch_like = _is_tensor(maxes)
    m, mdt = _view(maxes.contiguous() if torch_like else maxes, "maxes")
    j, jdt = _view(indices.contiguous() if _is_tensor(indices) else indices,
                   "indices")
    if mdt != "f32" or jdt != "s64":
        raise Error(f"maxes must be float32 and indices int64, not "
                    f"{maxes.dtype} and {indices.dtype}")
    m = np.ascontiguousarray(np.moveaxis(m, ax, 0))
    j = np.ascontiguousarray(np.moveaxis(j, ax, 0))
    shards = m.shape[0]
    rest = tuple(m.shape[1:])
    rows = int(np.prod(rest, dtype=np.int64))
    out_j = _new(torch_like, rest, "s64")
    out_m = _new(torch_like, rest, "f32")
    _rndnn.categorical_combine(m, j, shards, rows,
                               _view(out_m, "out", written=True)[0],
                               _view(out_j, "out", written=True)[0])
    return out_j, out_m
