"""rndnn: deep-learning randomness on CPUs (docs/python.md).

Random tensors whose values depend only on (seed, stream, global element
index), as NumPy's Generator draws them: bits, bernoulli, uniform(low,
high), normal(loc, scale), exponential(scale), gumbel(loc, scale),
laplace(loc, scale), rayleigh(scale), lognormal(mean, sigma) and
truncated_normal(loc, scale, a, b), each with size=, dtype= (a NumPy or
torch dtype or a string) and out=, and dropout forward and backward, on NumPy
arrays or torch CPU tensors, into new ones or into those you give (out=,
never copied), and categorical(logits) sampling by Gumbel-max. Without
seed=, the values come from default_generator, which moves on at each
call; manual_seed(s) resets it.

rndnn.torch (imported at first use) holds the drop-in replacements of
torch.nn.Dropout, Dropout1d, Dropout2d and Dropout3d.
"""

import importlib

from . import _arrays, _rndnn
from ._rndnn import Error, Generator, OutOfRangeError, __version__
from ._arrays import (_ALG, _array, _backward_source, _dropout,
                      _dropout_forward, _probability, _source, _wants_grad,
                      bernoulli, bits, default_generator, exponential,
                      gumbel, integers, laplace, lognormal, manual_seed,
                      normal,
                      permutation, rayleigh, shuffled_index,
                      softmax_dropout,
                      softmax_dropout_backward, truncated_normal,
                      unpackbits, uniform)
from ._categorical import categorical, categorical_combine

__all__ = ["Error", "OutOfRangeError", "Generator", "default_generator",
           "manual_seed", "bits", "bernoulli", "uniform", "normal",
           "integers", "exponential", "gumbel", "laplace", "rayleigh",
           "lognormal",
           "truncated_normal", "dropout",
           "dropout_backward", "softmax_dropout", "softmax_dropout_backward",
           "unpackbits", "permutation", "shuffled_index", "categorical",
           "categorical_combine", "__version__"]


def __getattr__(name):
    # rndnn.torch without `import rndnn.torch`, and without importing
    # torch at `import rndnn`.
    if name == "torch":
        return importlib.import_module(".torch", __name__)
    raise AttributeError(f"module 'rndnn' has no attribute {name!r}")


def __dir__():
    # The public names only (not the modules and helpers imported here).
    return sorted(__all__ + ["torch"])


def dropout(x, p=None, *, seed=None, offset=None, stream=0, generator=None,
            mask="bit", noise_shape=None, alg=_ALG, method="auto",
            name=None, global_shape=None, origin=None, out=None, rate=None):
    """Dropout forward in training: y = keep ? x / (1 - p) : 0, the keep
    mask bernoulli(1 - p) of the RNG at (seed, stream, offset + i).

    x: a C-contiguous f32, f16 or bf16 (uint16 in NumPy) array or torch CPU
    tensor. p: the probability of dropping an element (0.5 by default;
    rate is its older name, still accepted). seed, offset: without them,
    drawn from generator= or rndnn.default_generator (pass seed= to
    recompute the mask in dropout_backward); generator: an
    rndnn.Generator or a torch.Generator, as bernoulli's. mask: "bit"
    (packed uint8 of ceil(n/8), as bernoulli(packed=True)'s), "u8" (0/1
    of the noise shape), "bool" (the same as bool) or None (keep none:
    dropout_backward recomputes it). noise_shape: the mask's dims, each
    x's or 1 (shared along that axis). global_shape, origin: x is the
    block at origin (zeros by default) of a tensor of global_shape, and
    y and the mask are that block of the whole tensor's (noise_shape is
    then the global tensor's; the mask has the block's dims, 1 where the
    noise shape has 1; a generator moves on by the global mask's
    elements).
    method: 'auto', 'threshold32', 'bytewise' or 'bitsliced:B', as
    bernoulli's ('onednn' is bernoulli's only). out: where y goes (may be x: in place; must not overlap x otherwise).
    A torch x that requires grad gives a y that backpropagates (the
    gradient is the mask times 1 / (1 - p)).

    Returns (y, mask), mask None when not kept.
    """
    if (rate is None and noise_shape is None and alg is _ALG
            and method == "auto" and name is None and global_shape is None
            and origin is None and (out is None or out is x)
            and _arrays._lean):
        # The lean path (python/fast_path.cpp): NumPy data with the
        # defaults; anything else returns NotImplemented.
        result = _rndnn._dropout(x, 0.5 if p is None else p, mask, seed,
                                 offset, generator, stream, out is x)
        if result is not NotImplemented:
            return result
    p = _probability(p, rate, "dropout")
    if mask not in ("bit", "u8", "bool", None):
        raise Error(f"unknown mask '{mask}': \"bit\", \"u8\", \"bool\" "
                    "or None")
    _array(x, "x")
    source = _source(seed, offset, generator)
    if _wants_grad(x):
        if out is not None and out is not x:
            raise RuntimeError(
                "x requires grad and out= is another tensor: autograd does "
                "not record writes into out; use y, mask = "
                "rndnn.dropout(x, p) (or out=x: in place)")
        from . import torch as rt
        return rt._dropout_with_grad(x, p, source, mask, out is x,
                                     noise_shape, stream, alg, method, name,
                                     global_shape, origin)
    y, m, _ = _dropout_forward(x, p, source, mask, noise_shape, stream, alg,
                               method, name, out, global_shape, origin)
    return y, m


def dropout_backward(dy, p=None, *, mask=None, seed=None, offset=None,
                     stream=0, noise_shape=None, alg=_ALG, method="auto",
                     name=None, global_shape=None, origin=None, out=None,
                     rate=None):
    """Dropout backward: dx = keep ? dy / (1 - p) : 0.

    mask: the mask dropout returned ("bit": packed, or "u8"/"bool": of the
    noise shape, so with the forward's noise_shape), or None to recompute
    it from the forward's seed (required then), offset, stream, alg,
    method, noise_shape and window (global_shape, origin). rate is p's
    older name. out may be dy.
    """
    p = _probability(p, rate, "dropout_backward")
    mask_dtype, source = _backward_source(dy, mask, seed, offset, noise_shape,
                                          global_shape, origin)
    if _wants_grad(dy):
        if out is not None:
            raise RuntimeError("dy requires grad and out= is given: "
                               "autograd does not record writes into out")
        from . import torch as rt
        return rt._Backward.apply(dy, p, *source[:2], mask, noise_shape,
                                  stream, alg, method, name, global_shape,
                                  origin)
    return _dropout(dy, p, True, mask, mask_dtype, source, stream=stream,
                    noise_shape=noise_shape, alg=alg, method=method,
                    name=name, out=out, global_shape=global_shape,
                    origin=origin)[0]
