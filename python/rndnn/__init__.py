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
                      _dropout_forward, _probability,
                      _softmax_dropout_forward, _source, _wants_grad,
                      bernoulli, bits, default_generator, exponential,
                      gumbel, integers, laplace, lognormal, manual_seed,
                      normal, permutation, rayleigh, shuffled_index,
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
        return _torch_subpackage()
    raise AttributeError(f"module 'rndnn' has no attribute {name!r}")


def __dir__():
    # The public names only (not the modules and helpers imported here).
    return sorted(__all__ + ["torch"])


def _torch_subpackage():
    """rndnn.torch, imported at first use: the attribute rndnn.torch, and
    where all of the package's autograd lives, for the functions here
    given a torch tensor that requires grad. The one place that reaches
    up to it (_arrays, below rndnn.torch, never does)."""
    return importlib.import_module(".torch", __name__)


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
        return _torch_subpackage()._dropout_with_grad(
            x, p, source, mask, out is x, noise_shape, stream, alg, method,
            name, global_shape, origin)
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
        return _torch_subpackage()._Backward.apply(
            dy, p, *source[:2], mask, noise_shape, stream, alg, method, name,
            global_shape, origin)
    return _dropout(dy, p, True, mask, mask_dtype, source, stream=stream,
                    noise_shape=noise_shape, alg=alg, method=method,
                    name=name, out=out, global_shape=global_shape,
                    origin=origin)[0]


def softmax_dropout(x, p=0.5, *, seed=None, offset=None, stream=0,
                    generator=None, causal=False, mask=None, global_shape=None,
                    origin=None, alg=_ALG, method="auto", name=None, out=None):
    """Attention's softmax and dropout, fused: y = dropout(softmax(x)) along
    the last dim, in training (docs/python.md, "Attention dropout").

    x: a C-contiguous f32 or bf16 (uint16 in NumPy) array or torch CPU
    tensor of scores, 1 dim or more. p: the probability of dropping an
    element, in [0, 1]. The keep mask is rndnn.dropout's of the same shape,
    p, seed, offset, stream, alg and method, bit for bit: without seed=,
    drawn from generator= or rndnn.default_generator, which moves on by
    the mask's elements (the global tensor's with a window). causal: row i
    of each matrix (i: the index along the dim before the last) keeps only
    its first i + 1 elements. mask: None (the default: backward recomputes
    it from the seed), "bit" (packed uint8 of ceil(n/8)) or "u8" (0/1 of
    x's shape). global_shape, origin: x is the block at origin (zeros by
    default) of a tensor of global_shape, of whole rows (the last dim is
    x's): its mask is that block of the global tensor's, and causal rows
    count from the global row, so shards of heads or batches draw the
    unsharded tensor's dropout. out: where y goes (may be x).

    Returns (y, stats, mask): stats, float32 of shape x.shape[:-1] + (2,),
    holds each row's max and 1 / sum, which softmax_dropout_backward
    takes with x to rebuild the probabilities; mask None when not kept. A
    torch x that requires grad gives a y that backpropagates.
    """
    p = _probability(p, None, "softmax_dropout")
    _array(x, "x")
    source = _source(seed, offset, generator)
    if _wants_grad(x):
        if out is not None:
            raise RuntimeError("x requires grad and out= is given: autograd "
                               "does not record writes into out")
        return _torch_subpackage()._softmax_dropout_with_grad(
            x, p, source, mask, causal, stream, global_shape, origin, alg,
            method, name)
    y, stats, m, _ = _softmax_dropout_forward(
        x, p, source, mask, causal, stream, global_shape, origin, alg,
        method, name, out)
    return y, stats, m
