"""rndnn.torch: dropout for PyTorch CPU tensors (docs/python.md).

Dropout, Dropout1d, Dropout2d and Dropout3d are drop-ins for torch.nn's
(subclasses of them, with their arguments, shapes, warnings and errors and
an empty state_dict) that keep a 1-bit mask for the backward pass, or none
(mask=None: the backward recomputes it). Each training forward draws one
64-bit word from torch's default generator, or from the generator= given
(a torch.Generator, or an rndnn.Generator, whose offset moves on instead),
as the mask's seed: torch.manual_seed (or reseeding the generator given)
replays the masks, as it does torch's own dropout's.

shard=(global_shape, origin) makes the input the block at origin of a
global tensor, and the mask that block of the whole tensor's: ranks
that draw the same seed hold the blocks of one mask. rndnn.torch.init
holds torch.nn.init's initialisers, with shard= as well.

MultiheadAttention is torch.nn.MultiheadAttention whose dropout of the
attention probabilities is rndnn's fused softmax-dropout
(softmax_dropout, SoftmaxDropoutFunction).

replace_dropout(model) swaps torch's dropout modules and
MultiheadAttention for these. The modules script and trace (torch.jit)
through the operators torch.ops.rndnn.dropout and softmax_dropout.

Where the package was built with torch's headers, the dropout of the
modules and functions above runs in C++ (rndnn/_torch_ops.so, python/
torch_ops.cpp: the operators torch.ops.rndnn.* with their autograd in
C++), after the checks here; shards and rndnn.Generators keep the Python
path, whose masks, outputs and gradients are the same bits. Without the
library (or with RNDNN_TORCH_OPS=0 in the environment at import), the
operators are defined here in Python.
"""
import math
import numbers
import os
import secrets
import warnings
from typing import List, Optional, Tuple

import torch
import torch.fx
import torch.nn.functional as F

from .. import _arrays
from .._rndnn import Error, Generator
from . import init

__all__ = ["Dropout", "Dropout1d", "Dropout2d", "Dropout3d",
           "DropoutFunction", "dropout", "dropout1d", "dropout2d",
           "dropout3d", "replace_dropout", "MultiheadAttention",
           "SoftmaxDropoutFunction", "softmax_dropout", "init",
           "ShardedSampler"]


def _load_ops():
    """Whether the C++ operators (rndnn/_torch_ops.so) are loaded: where
    they were built, unless RNDNN_TORCH_OPS=0."""
    if os.environ.get("RNDNN_TORCH_OPS", "1") == "0":
        return False
    path = os.path.join(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))), "_torch_ops.so")
    if not os.path.exists(path):
        return False
    torch.ops.load_library(path)
    return True


# _OPS: the C++ operators are loaded (torch.ops.rndnn is theirs).
# _use_ops: the modules' and functions' eager dropout calls them (tests
# set it False to compare with the Python path in one process).
_OPS = _load_ops()
_use_ops = _OPS
if _OPS:
    # The overload's own callable (OpOverload.__call__ is one more Python
    # frame).
    _dropout_eager = torch.ops.rndnn.dropout_eager.default._op
    _softmax_dropout_eager = torch.ops.rndnn.softmax_dropout_eager.default._op

_TYPES = (torch.float32, torch.float16, torch.bfloat16)
_MASKS = ("bit", None)


def _check_p(p):
    # torch's check and message (torch.nn.functional.dropout's).
    if type(p) is float and 0.0 <= p <= 1.0:
        return  # the common case, without the ABC's isinstance
    if not isinstance(p, numbers.Real):
        raise TypeError(f"dropout probability must be a real number, not "
                        f"{type(p).__name__} {p!r}")
    if not 0.0 <= p <= 1.0:
        raise ValueError("dropout probability has to be between 0 and 1, "
                         f"but got {p}")


def _check_mask(mask):
    if mask not in _MASKS:
        raise Error(f"unknown mask '{mask}': \"bit\" or None")


def _check_generator(generator):
    if generator is not None and not isinstance(
            generator, (torch.Generator, Generator)):
        raise TypeError("generator must be a torch.Generator or an "
                        f"rndnn.Generator, not {type(generator).__name__}")


def _draw(generator):
    """(seed, offset, generator) of one forward, as rndnn.dropout's seed=,
    offset= and generator= take them: torch's generator (the default one
    when None) gives a seed, one random 63-bit integer, at offset 0; an
    rndnn.Generator is given on, to reserve the mask's elements once the
    call's arguments are checked."""
    if isinstance(generator, Generator):
        return None, None, generator
    return _arrays._torch_seed(generator), 0, None


class _Backward(torch.autograd.Function):
    """dx = keep ? dy / (1 - p) : 0, the mask given or recomputed. Linear in
    dy, so its own backward is itself: higher derivatives work."""

    @staticmethod
    def forward(ctx, dy, p, seed, offset, mask, noise_shape=None, stream=0,
                alg="philox4x32_10", method="auto", name=None,
                global_shape=None, origin=None):
        ctx.args = (p, seed, offset, mask, noise_shape, stream, alg, method,
                    name, global_shape, origin)
        return _arrays._dropout_backward(
            dy.contiguous(), p, mask, seed, offset, stream, noise_shape, alg,
            method, name, None, global_shape, origin)

    @staticmethod
    def backward(ctx, ddx):
        return (_Backward.apply(ddx, *ctx.args),) + (None,) * 11


class DropoutFunction(torch.autograd.Function):
    """y = keep ? x / (1 - p) : 0, the keep mask bernoulli(1 - p) of rndnn's
    Philox at (seed, offset + i), i the element's row-major index.

    DropoutFunction.apply(x, p, seed, offset, mask="bit", inplace=False,
    noise_shape=None): mask "bit" keeps the mask as bits for the backward
    pass (n/8 bytes), None keeps nothing and recomputes it; noise_shape
    shares the mask along its 1s. The result is a function of (x, p,
    seed, offset) alone, so torch.autograd.gradcheck applies. The gradient
    is the mask times 1 / (1 - p). Further arguments: stream, alg, method,
    name (rndnn.dropout's) and generator (an rndnn.Generator that gives
    the seed and offset instead, which are then None).
    """

    @staticmethod
    def forward(ctx, x, p, seed, offset, mask="bit", inplace=False,
                noise_shape=None, stream=0, alg="philox4x32_10",
                method="auto", name=None, generator=None, sink=None,
                global_shape=None, origin=None):
        if inplace and not x.is_contiguous():
            raise Error("x must be contiguous to be written in place")
        y, m, (seed, offset) = _arrays._dropout_forward(
            x.contiguous(), p, _arrays._source(seed, offset, generator), mask,
            noise_shape, stream, alg, method, name, x if inplace else None,
            global_shape, origin)
        if inplace:
            ctx.mark_dirty(x)
        if sink is not None:
            sink.append(m)  # rndnn.dropout's (y, mask)
        ctx.args = (p, seed, offset, m, noise_shape, stream, alg, method,
                    name, global_shape, origin)
        return y

    @staticmethod
    def backward(ctx, dy):
        return (_Backward.apply(dy, *ctx.args),) + (None,) * 14


def _check_inplace(x):
    # Refused before anything is written, with torch's message (the
    # autograd function's mark_dirty says so only after the write).
    if x.requires_grad and torch.is_grad_enabled():
        if x.is_leaf:
            raise RuntimeError("a leaf Variable that requires grad is being "
                               "used in an in-place operation.")
        if x._base is not None and x._base.is_leaf:
            raise RuntimeError("a view of a leaf Variable that requires "
                               "grad is being used in an in-place "
                               "operation.")


def _dropout_with_grad(x, p, source, mask, inplace, noise_shape, stream,
                       alg, method, name, global_shape=None, origin=None):
    """rndnn.dropout's (y, mask) of a tensor that requires grad; @source:
    rndnn._source()'s."""
    if inplace:
        _check_inplace(x)
    seed, offset, generator = source
    if generator is not None:
        seed = offset = None
    sink = []
    y = DropoutFunction.apply(x, p, seed, offset, mask, inplace, noise_shape,
                              stream, alg, method, name, generator, sink,
                              global_shape, origin)
    return y, sink[0]


_NAMES = {0: "dropout", 1: "dropout1d", 2: "dropout2d", 3: "dropout3d"}


def _noise_shape(shape, kind):
    """The mask's shape for dropout @kind (0: elementwise, else the
    dropout@kind d of channels) of data of @shape (a shard's global
    shape: the channels are the global tensor's), or None for the data's;
    torch's errors and warnings on the number of dims."""
    d = len(shape)
    if kind == 0:
        return None
    if kind == 1:
        if d not in (2, 3):
            raise RuntimeError(
                f"dropout1d: Expected 2D or 3D input, but received a {d}D "
                "input. Note that dropout1d exists to provide channel-wise "
                "dropout on inputs with 1 spatial dimension, a channel "
                "dimension, and an optional batch dimension (i.e. 2D or 3D "
                "inputs).")
        batched = d == 3
    elif kind == 2:
        if d not in (3, 4):
            warnings.warn(
                f"dropout2d: Received a {d}-D input to dropout2d, which is "
                "deprecated and will result in an error in a future "
                "release. To retain the behavior and silence this warning, "
                "please use dropout instead. Note that dropout2d exists to "
                "provide channel-wise dropout on inputs with 2 spatial "
                "dimensions, a channel dimension, and an optional batch "
                "dimension (i.e. 3D or 4D inputs).")
        if d == 3:
            warnings.warn(
                "dropout2d: Received a 3D input to dropout2d and assuming "
                "that channel-wise 1D dropout behavior is desired - input is "
                "interpreted as shape (N, C, L), where C is the channel dim. "
                "This behavior will change in a future release to interpret "
                "the input as one without a batch dimension, i.e. shape (C, "
                "H, W). To maintain the 1D channel-wise dropout behavior, "
                "please switch to using dropout1d instead.")
        batched = True  # as torch: a 3D input is (N, C, L)
    else:
        if d not in (4, 5):
            warnings.warn(
                f"dropout3d: Received a {d}-D input to dropout3d, which is "
                "deprecated and will result in an error in a future "
                "release. To retain the behavior and silence this warning, "
                "please use dropout instead. Note that dropout3d exists to "
                "provide channel-wise dropout on inputs with 3 spatial "
                "dimensions, a channel dimension, and an optional batch "
                "dimension (i.e. 4D or 5D inputs).")
        batched = d == 5
    shape = tuple(shape)
    if not batched:
        shape = (1,) + shape
    if len(shape) < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions "
                           "in the input")
    noise = shape[:2] + (1,) * (len(shape) - 2)
    return noise if batched else noise[1:]


def _forward(x, p, training, inplace, kind, mask, generator, shard=None):
    """The dropout of every module and function here: x itself in eval
    mode or at p = 0, else the dropout of a seed drawn from @generator;
    @shard: (global_shape, origin) of x in a global tensor, checked in
    every mode, or None."""
    _check_p(p)
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"{_NAMES[kind]}(): argument 'input' must be Tensor, "
                        f"not {type(x).__name__}")
    if shard is None:
        global_shape = origin = None
        noise = _noise_shape(x.shape, kind) if kind else None
    else:
        global_shape, origin = _arrays._shard(shard, x.shape)
        noise = _noise_shape(global_shape, kind)
    if not training or p == 0.0:
        return x
    _check_mask(mask)
    if x.dtype not in _TYPES:
        raise Error(f"dropout takes f32, bf16 or f16 data, not "
                          f"{x.dtype}")
    if not x.is_cpu:
        raise Error(f"x is on {x.device}, rndnn runs on the CPU")
    if inplace:
        if not x.is_contiguous():
            raise Error("x must be contiguous to be written in place")
        _check_inplace(x)
    if _use_ops and shard is None and not isinstance(generator, Generator):
        # The C++ operator: the same draw, bits and autograd, in one call.
        try:
            return _dropout_eager(x, p, inplace, kind, mask is not None,
                                  generator)
        except ValueError as e:  # the library's error (rndnn::error)
            raise Error(str(e)) from None
    seed, offset, g = _draw(generator)
    if x.numel() == 0:
        # Nothing to draw, no mask to keep: x itself, as torch returns it,
        # the generator moved on as for any data (rndnn.dropout reserves
        # the mask's elements from an rndnn.Generator).
        _arrays._dropout_forward(x.detach(), p, _arrays._source(seed, offset, g),
                                 None, noise, 0, _arrays._ALG, "auto", None,
                                 None, global_shape, origin)
        return x
    if x.requires_grad and torch.is_grad_enabled():
        return DropoutFunction.apply(x, p, seed, offset, mask, inplace,
                                     noise, 0, "philox4x32_10", "auto", None,
                                     g, None, global_shape, origin)
    # No backward: no mask kept, and, in place, x itself returned, as torch
    # returns it (the autograd function's output is an alias of it).
    y, _, _ = _arrays._dropout_forward(
        x if inplace else x.contiguous(), p, _arrays._source(seed, offset, g),
        None, noise, 0, _arrays._ALG, "auto", None, x if inplace else None,
        global_shape, origin)
    return y


def dropout(input, p=0.5, training=True, inplace=False, *, generator=None,
            mask="bit", shard=None):
    """torch.nn.functional.dropout's signature and results, rndnn's masks:
    each call draws its seed from @generator (a torch.Generator, or an
    rndnn.Generator whose offset moves on by input.numel()), torch's
    default generator without one.

    shard=(global_shape, origin): input is the block at origin of a
    tensor of global_shape (a rank's share of it), and the result that
    block of the whole tensor's dropout drawn from the same seed; an
    rndnn.Generator moves on by the global count, so ranks drawing their
    blocks from equal generators (or torch.manual_seed) keep them
    equal."""
    _check_generator(generator)
    return _forward(input, p, training, inplace, 0, mask, generator, shard)


def dropout1d(input, p=0.5, training=True, inplace=False, *,
              generator=None, mask="bit", shard=None):
    """torch.nn.functional.dropout1d: whole channels of (N, C, L) or
    (C, L) inputs, with rndnn's masks and shard= (see dropout: the
    channels are the global tensor's)."""
    _check_generator(generator)
    return _forward(input, p, training, inplace, 1, mask, generator,
                    shard)


def dropout2d(input, p=0.5, training=True, inplace=False, *,
              generator=None, mask="bit", shard=None):
    """torch.nn.functional.dropout2d: whole channels of (N, C, H, W)
    inputs (a 3-D input is (N, C, L), as torch has it, with its warning),
    with rndnn's masks and shard= (see dropout: the channels are the
    global tensor's)."""
    _check_generator(generator)
    return _forward(input, p, training, inplace, 2, mask, generator,
                    shard)


def dropout3d(input, p=0.5, training=True, inplace=False, *,
              generator=None, mask="bit", shard=None):
    """torch.nn.functional.dropout3d: whole channels of (N, C, D, H, W) or
    (C, D, H, W) inputs, with rndnn's masks and shard= (see dropout: the
    channels are the global tensor's)."""
    _check_generator(generator)
    return _forward(input, p, training, inplace, 3, mask, generator,
                    shard)


# The generators of modules, by a key that TorchScript can hold (it has
# no type for a generator): 0 is torch's default generator, any other a
# random 63-bit integer. A key lives as long as the process; a scripted
# module saved and loaded in another process finds its key no more (unless
# it is 0), and, keys being random, never names a generator of that
# process by chance (keys counted from 1 in each process did).
_GENERATORS = {0: None}
_KEYS = {}
_PICKLED = {}  # key: the _Pickled of a torch.Generator


def _key(generator):
    if generator is None:
        return 0
    key = _KEYS.get(id(generator))
    if key is None:
        while key is None or key in _GENERATORS:
            key = secrets.randbits(63)
        _KEYS[id(generator)] = key
        _GENERATORS[key] = generator  # held: the id stays its own
        if _OPS:  # the C++ operators' registry: None for rndnn's
            torch.ops.rndnn.register_generator(
                key, generator if isinstance(generator, torch.Generator)
                else None)
        if isinstance(generator, torch.Generator):
            _PICKLED[key] = _Pickled(generator)
    return key


class _Pickled:
    """A torch.Generator as the modules pickle it (it does not pickle
    itself): its state, read when pickled, restored as a new generator.
    One object per generator, so that the memo of pickle (torch.save) and
    of copy.deepcopy gives the modules that shared a generator one copy of
    it, as torch does for shared parameters."""

    def __init__(self, generator):
        self.generator = generator

    def __reduce__(self):
        return _restore, (self.generator.get_state(),)


def _restore(state):
    g = torch.Generator()
    g.set_state(state)
    return g


def _unknown_key(key):
    """The error of a generator key that names no generator in this
    process, or "" for one that does."""
    if key in _GENERATORS:
        return ""
    return (f"rndnn.dropout: no generator has key {key} in this process (a "
            "scripted module saved with its own generator= and loaded in "
            "another process: script it there, or use torch's default "
            "generator)")


def _generator(key):
    error = _unknown_key(key)
    if error:
        raise Error(error)
    return _GENERATORS[key]


# torch.ops.rndnn.dropout: the modules' forward under torch.jit.script
# and torch.jit.trace, which call it instead of Python. CONSERVATIVE: it
# may write its input (inplace) and draws from a generator, so the JIT
# neither merges two calls nor moves one. global_shape and origin are
# shard='s, empty for none; their defaults let modules scripted before
# they existed load and run.
if _OPS:
    # The C++ library defined the namespace, these operators' schemas
    # included (python/torch_ops.cpp): their Python kernels only.
    _library = torch.library.Library("rndnn", "IMPL")
else:
    _library = torch.library.Library("rndnn", "DEF")
    _library.define("dropout(Tensor input, float p, bool train, "
                    "bool inplace, int kind, bool keep_mask, int generator, "
                    "int[] global_shape=[], int[] origin=[]) -> Tensor",
                    alias_analysis="CONSERVATIVE")
    # torch.ops.rndnn.unknown_generator(key): _unknown_key's message.
    _library.define("unknown_generator(int key) -> str")
    # torch.ops.rndnn.shard_error(shape, global_shape, origin):
    # _shard_error's.
    _library.define("shard_error(int[] shape, int[] global_shape, "
                    "int[] origin) -> str")


def _shard_error(shape, global_shape, origin):
    """The error of a block of @shape that does not fit at @origin in
    @global_shape, or "" for one that does."""
    try:
        _arrays._shard((global_shape, origin), shape)
    except Error as e:
        return str(e)
    return ""


def _dropout_op(input, p, train, inplace, kind, keep_mask, generator,
                global_shape=(), origin=()):
    # The generator is looked up only to draw: in eval mode, a key unknown
    # here (a module saved elsewhere) is no error.
    return _forward(input, p, train, inplace, kind,
                    "bit" if keep_mask else None,
                    _generator(generator) if train and p != 0.0 else None,
                    (global_shape, origin) if global_shape else None)


if _OPS:
    # The C++ dropout hands shards and rndnn.Generators' keys to this one;
    # it knows the keys itself (_key registers them) and raises an unknown
    # one's error.
    _library.impl("dropout_python", _dropout_op, "CPU")
else:
    _library.impl("dropout", _dropout_op, "CPU")
    _library.impl("unknown_generator", _unknown_key,
                  "CompositeExplicitAutograd")
_library.impl("shard_error", _shard_error, "CompositeExplicitAutograd")


@torch.jit.script
def _scripted_dropout(input: torch.Tensor, p: float, train: bool,
                      inplace: bool, kind: int, keep_mask: bool,
                      generator: int, global_shape: List[int],
                      origin: List[int]) -> torch.Tensor:
    """The modules' forward under torch.jit.script and torch.jit.trace
    (which records this call, so a traced module checks its key too). An
    unknown generator key and a block that does not fit are raised here,
    by TorchScript: torch 1.13's interpreter drops the message of an error
    that an operator's Python raises (the C++ operators' errors keep
    theirs; unknown_generator is theirs where they are loaded)."""
    if len(global_shape) != 0:
        error = torch.ops.rndnn.shard_error(input.shape, global_shape,
                                            origin)
        if error != "":
            raise RuntimeError(error)
    if train and p != 0.0:
        error = torch.ops.rndnn.unknown_generator(generator)
        if error != "":
            raise RuntimeError(error)
    return torch.ops.rndnn.dropout(input, p, train, inplace, kind, keep_mask,
                                   generator, global_shape, origin)


class _Mixin:
    """What the four modules add to torch's: mask=, generator=, shard=
    and forward."""
    # TorchScript compiles forward alone: the generator and shard
    # properties and the Python branch of forward are never compiled.
    __jit_unused_properties__ = ["generator", "shard"]
    # shard as TorchScript reads it (its type said: an empty list would
    # be taken for a list of tensors), empty for none.
    _shard_global: List[int]
    _shard_origin: List[int]

    def _setup(self, mask, generator, shard=None):
        _check_mask(mask)
        self.mask = mask
        self._kind = self._KIND
        self._keep_mask = mask is not None
        self.generator = generator
        self.shard = shard

    @property
    def shard(self):
        """(global_shape, origin) of the input in a global tensor (tuples),
        or None: configuration, not state (state_dict holds nothing of
        it); a parallel layer may set it."""
        if not self._shard_global:
            return None
        return tuple(self._shard_global), tuple(self._shard_origin)

    @shard.setter
    def shard(self, shard):
        spec = _arrays._shard_spec(shard)
        if spec is not None and not spec[0]:
            raise Error("shard's global_shape is (): a 0-d tensor has no "
                        "blocks")
        self._shard_global = list(spec[0]) if spec else []
        self._shard_origin = list(spec[1]) if spec else []

    @property
    def generator(self):
        """The generator= given (a torch.Generator or an rndnn.Generator),
        or None for torch's default one."""
        return self._generator

    @generator.setter
    def generator(self, generator):
        _check_generator(generator)
        self._generator = generator
        self._generator_key = _key(generator)

    def forward(self, input):
        if torch.jit.is_scripting() or torch.jit.is_tracing():
            return _scripted_dropout(
                input, self.p, self.training, self.inplace, self._kind,
                self._keep_mask, self._generator_key, self._shard_global,
                self._shard_origin)
        if isinstance(input, torch.fx.Proxy):
            # torch.fx.symbolic_trace: a leaf, as torch.nn's dropouts are
            # (its default tracer traces through modules outside torch.nn),
            # so that the graph calls this module and its mode and
            # generator stay its own.
            tracer = input.tracer
            return tracer.create_proxy(
                "call_module", tracer.path_of_module(self), (input,), {})
        return _forward(input, self.p, self.training, self.inplace,
                        self._kind, self.mask, self._generator, self.shard)

    def extra_repr(self):
        return super().extra_repr() + (
            "" if self.mask == "bit" else f", mask={self.mask!r}") + (
            "" if self._generator is None else
            f", generator={self._generator!r}") + (
            "" if self.shard is None else f", shard={self.shard!r}")

    def _load_from_state_dict(self, state_dict, prefix, *args, **kwargs):
        # Older rndnn.torch.Dropouts saved their rndnn.Generator as
        # _extra_state: such checkpoints still load, restoring it.
        old = state_dict.pop(prefix + "_extra_state", None)
        if old is not None and isinstance(self._generator, Generator):
            self.generator = Generator.load(old)
        super()._load_from_state_dict(state_dict, prefix, *args, **kwargs)

    # A torch.Generator does not pickle: a module holding one is saved
    # (torch.save, copy.deepcopy) with the generator's _Pickled instead,
    # the same object for every module that holds the generator, so that
    # the copies share one generator as the originals did.
    def __getstate__(self):
        state = self.__dict__.copy()
        if isinstance(self._generator, torch.Generator):
            state["_generator"] = _PICKLED[self._generator_key]
        return state

    def __setstate__(self, state):
        # Modules pickled before shard= existed have none.
        state.setdefault("_shard_global", [])
        state.setdefault("_shard_origin", [])
        super().__setstate__(state)
        g = self.__dict__.get("_generator")
        if isinstance(g, _Pickled):  # copy.copy: the same generator
            g = g.generator
        elif isinstance(g, tuple) and g[:1] == ("torch.Generator",):
            g = _restore(g[1])  # pickled by earlier versions
        self.generator = g


class Dropout(_Mixin, torch.nn.Dropout):
    """torch.nn.Dropout(p=0.5, inplace=False) with rndnn's masks.

    mask: "bit" (the default) keeps a 1-bit mask per element for the
    backward pass, 32x less than a float mask; None keeps nothing and
    recomputes the mask from the seed and offset. generator: a
    torch.Generator or an rndnn.Generator; torch's default one without.
    Each training forward draws its seed from it (see rndnn.torch).
    shard: (global_shape, origin) of the input in a global tensor, or
    None (see rndnn.torch.dropout); a settable attribute too.
    """

    _KIND = 0  # _forward's kind

    def __init__(self, p=0.5, inplace=False, *, mask="bit", generator=None,
                 shard=None):
        super().__init__(p, inplace)
        self._setup(mask, generator, shard)


class Dropout1d(_Mixin, torch.nn.Dropout1d):
    """torch.nn.Dropout1d(p=0.5, inplace=False): whole channels of (N, C,
    L) or (C, L) inputs, with rndnn's masks (mask=, generator=, shard= as
    Dropout's; the channels are the global tensor's)."""

    _KIND = 1  # _forward's kind

    def __init__(self, p=0.5, inplace=False, *, mask="bit", generator=None,
                 shard=None):
        super().__init__(p, inplace)
        self._setup(mask, generator, shard)


class Dropout2d(_Mixin, torch.nn.Dropout2d):
    """torch.nn.Dropout2d(p=0.5, inplace=False): whole channels of (N, C,
    H, W) inputs (a 3-D input is (N, C, L), with torch's warning), with
    rndnn's masks (mask=, generator=, shard= as Dropout's; the channels
    are the global tensor's)."""

    _KIND = 2  # _forward's kind

    def __init__(self, p=0.5, inplace=False, *, mask="bit", generator=None,
                 shard=None):
        super().__init__(p, inplace)
        self._setup(mask, generator, shard)


class Dropout3d(_Mixin, torch.nn.Dropout3d):
    """torch.nn.Dropout3d(p=0.5, inplace=False): whole channels of (N, C,
    D, H, W) or (C, D, H, W) inputs, with rndnn's masks (mask=,
    generator=, shard= as Dropout's; the channels are the global
    tensor's)."""

    _KIND = 3  # _forward's kind

    def __init__(self, p=0.5, inplace=False, *, mask="bit", generator=None,
                 shard=None):
        super().__init__(p, inplace)
        self._setup(mask, generator, shard)


# --- attention's dropout -----------------------------------------------------


def _softmax(scores, causal, row0):
    """torch's softmax along the last dim; @causal: row i of each matrix
    keeps its first row0 + i + 1 elements."""
    if causal:
        rows, n = scores.shape[-2], scores.shape[-1]
        future = torch.ones(rows, n, dtype=torch.bool).triu(1 + row0)
        scores = scores.masked_fill(future, float("-inf"))
    return torch.softmax(scores, -1)


class SoftmaxDropoutFunction(torch.autograd.Function):
    """y = dropout(softmax(x)) along the last dim, fused (rndnn.
    softmax_dropout); saves the scores and the row stats (2 floats a row),
    not the probabilities, and the mask as bits (mask "bit") or nothing
    (None: recomputed).

    SoftmaxDropoutFunction.apply(x, p, seed, offset, causal=False,
    mask="bit", global_shape=None, origin=None, stream=0,
    alg="philox4x32_10", method="auto", name=None, generator=None): the
    arguments of rndnn.softmax_dropout; generator (an rndnn.Generator)
    gives the seed and offset instead, which are then None. Once
    differentiable: f32 and bf16 only, so gradcheck's double does not
    apply.
    """

    @staticmethod
    def forward(ctx, x, p, seed, offset, causal=False, mask="bit",
                global_shape=None, origin=None, stream=0,
                alg="philox4x32_10", method="auto", name=None,
                generator=None, sink=None):
        x = x.contiguous()
        y, stats, m, (seed, offset) = _arrays._softmax_dropout_forward(
            x, p, _arrays._source(seed, offset, generator), mask, causal,
            stream, global_shape, origin, alg, method, name, None)
        ctx.save_for_backward(x, stats)
        ctx.args = (p, m, seed, offset, causal, stream, global_shape, origin,
                    alg, method, name)
        if sink is not None:
            sink.append((stats, m))  # rndnn.softmax_dropout's
        return y

    @staticmethod
    @torch.autograd.function.once_differentiable
    def backward(ctx, dy):
        x, stats = ctx.saved_tensors
        p, m, seed, offset, causal, stream, global_shape, origin, alg, \
            method, name = ctx.args
        dx = _arrays._softmax_dropout_backward(
            dy.contiguous(), x, stats, p, m, seed, offset, causal, stream,
            global_shape, origin, alg, method, name, None)
        return (dx,) + (None,) * 13


def _softmax_dropout_with_grad(x, p, source, mask, causal, stream,
                               global_shape, origin, alg, method, name):
    """rndnn.softmax_dropout's (y, stats, mask) of a tensor that requires
    grad; @source: rndnn._source()'s."""
    seed, offset, generator = source
    if generator is not None:
        seed = offset = None
    sink = []
    y = SoftmaxDropoutFunction.apply(x, p, seed, offset, causal, mask,
                                     global_shape, origin, stream, alg,
                                     method, name, generator, sink)
    return (y,) + sink[0]


def softmax_dropout(scores, p=0.5, training=True, *, causal=False,
                    generator=None, shard=None, mask="bit"):
    """dropout(softmax(scores, -1), p, training), fused, with rndnn's
    mask: attention's probabilities and their dropout in one pass, and a
    backward that keeps the scores and two floats a row (the row's max and
    1 / sum) instead of the probabilities.

    Each training call draws its seed as rndnn.torch.dropout does: from
    @generator (a torch.Generator, or an rndnn.Generator whose offset
    moves on by the mask's elements), torch's default generator without
    one, so torch.manual_seed replays it. scores: f32 or bf16 on the CPU.
    causal: row i of each matrix keeps only its first i + 1 scores.
    shard: (global_shape, origin): scores is that block of whole rows of a
    tensor of global_shape (tensor-parallel heads), whose mask is the
    global tensor's block. mask: "bit" keeps the mask for the backward
    pass (n/8 bytes), None recomputes it. In eval mode or at p = 0, torch's
    softmax (causal as above).
    """
    _check_p(p)
    _check_generator(generator)
    _check_mask(mask)
    if not isinstance(scores, torch.Tensor):
        raise TypeError("softmax_dropout(): argument 'scores' must be Tensor, "
                        f"not {type(scores).__name__}")
    global_shape, origin = _arrays._shard(shard, scores.shape)
    if not training or p == 0.0:
        row0 = origin[-2] if causal and origin and len(origin) >= 2 else 0
        return _softmax(scores, causal, row0)
    if scores.dtype not in (torch.float32, torch.bfloat16):
        raise Error(f"softmax_dropout takes f32 or bf16 scores, not "
                    f"{scores.dtype}")
    if scores.device.type != "cpu":
        raise Error(f"scores is on {scores.device}, rndnn runs on the CPU")
    if (_use_ops and shard is None and not isinstance(generator, Generator)
            and scores.dim() != 0 and scores.numel() != 0):
        # The C++ operator: the same draw, bits and autograd.
        try:
            return _softmax_dropout_eager(scores, p, bool(causal),
                                          mask is not None, generator)
        except ValueError as e:  # the library's error (rndnn::error)
            raise Error(str(e)) from None
    seed, offset, g = _draw(generator)
    if scores.requires_grad and torch.is_grad_enabled():
        return SoftmaxDropoutFunction.apply(
            scores, p, seed, offset, causal, mask, global_shape, origin, 0,
            _arrays._ALG, "auto", None, g)
    y, _, _, _ = _arrays._softmax_dropout_forward(
        scores.contiguous(), p, _arrays._source(seed, offset, g), None,
        causal, 0, global_shape, origin, _arrays._ALG, "auto", None, None)
    return y


# torch.ops.rndnn.softmax_dropout: MultiheadAttention's dropout under
# torch.jit.script and trace, as torch.ops.rndnn.dropout is the dropout
# modules' (its schema the C++ library's where it is loaded).
if not _OPS:
    _library.define("softmax_dropout(Tensor scores, float p, "
                    "bool keep_mask, int generator) -> Tensor",
                    alias_analysis="CONSERVATIVE")


def _softmax_dropout_op(scores, p, keep_mask, generator):
    return softmax_dropout(scores, p, True, generator=_generator(generator),
                           mask="bit" if keep_mask else None)


# The C++ operator hands rndnn.Generators' keys (and scalar or empty
# scores) to this one.
_library.impl("softmax_dropout_python" if _OPS else "softmax_dropout",
              _softmax_dropout_op, "CPU")


@torch.jit.script
def _scripted_softmax_dropout(scores: torch.Tensor, p: float,
                              keep_mask: bool,
                              generator: int) -> torch.Tensor:
    """MultiheadAttention's dropout of the attention probabilities, in
    training at p > 0 (eager, scripted and traced alike); an unknown
    generator key is raised here, as _scripted_dropout does."""
    error = torch.ops.rndnn.unknown_generator(generator)
    if error != "":
        raise RuntimeError(error)
    return torch.ops.rndnn.softmax_dropout(scores, p, keep_mask, generator)


def _attention(query: torch.Tensor, key: torch.Tensor, value: torch.Tensor,
               num_heads: int, in_proj_weight: Optional[torch.Tensor],
               in_proj_bias: Optional[torch.Tensor],
               bias_k: Optional[torch.Tensor], bias_v: Optional[torch.Tensor],
               add_zero_attn: bool, dropout_p: float,
               out_proj_weight: torch.Tensor,
               out_proj_bias: Optional[torch.Tensor], training: bool,
               key_padding_mask: Optional[torch.Tensor], need_weights: bool,
               attn_mask: Optional[torch.Tensor],
               use_separate_proj_weight: bool,
               q_proj_weight: Optional[torch.Tensor],
               k_proj_weight: Optional[torch.Tensor],
               v_proj_weight: Optional[torch.Tensor],
               average_attn_weights: bool, keep_mask: bool,
               generator: int) -> Tuple[torch.Tensor, Optional[torch.Tensor]]:
    """torch 1.13's F.multi_head_attention_forward (without static_k/v),
    its steps and checks in its order, with rndnn's fused softmax-dropout
    of the attention probabilities in training at dropout_p > 0."""
    is_batched = F._mha_shape_check(query, key, value, key_padding_mask,
                                    attn_mask, num_heads)
    if not is_batched:
        query = query.unsqueeze(1)
        key = key.unsqueeze(1)
        value = value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    src_len, _, _ = key.shape
    if key_padding_mask is not None:
        if (key_padding_mask.dtype != torch.bool
                and not torch.is_floating_point(key_padding_mask)):
            raise AssertionError("only bool and floating types of "
                                 "key_padding_mask are supported")
    head_dim = embed_dim // num_heads
    assert head_dim * num_heads == embed_dim, \
        f"embed_dim {embed_dim} not divisible by num_heads {num_heads}"
    if use_separate_proj_weight:
        assert key.shape[:2] == value.shape[:2], \
            f"key's sequence and batch dims {key.shape[:2]} do not match " \
            f"value's {value.shape[:2]}"
        assert q_proj_weight is not None, \
            "use_separate_proj_weight is True but q_proj_weight is None"
        assert k_proj_weight is not None, \
            "use_separate_proj_weight is True but k_proj_weight is None"
        assert v_proj_weight is not None, \
            "use_separate_proj_weight is True but v_proj_weight is None"
        if in_proj_bias is None:
            b_q = b_k = b_v = None
        else:
            b_q, b_k, b_v = in_proj_bias.chunk(3)
        q, k, v = F._in_projection(query, key, value, q_proj_weight,
                                   k_proj_weight, v_proj_weight, b_q, b_k,
                                   b_v)
    else:
        assert key.shape == value.shape, \
            f"key shape {key.shape} does not match value shape {value.shape}"
        assert in_proj_weight is not None, \
            "use_separate_proj_weight is False but in_proj_weight is None"
        q, k, v = F._in_projection_packed(query, key, value, in_proj_weight,
                                          in_proj_bias)

    if attn_mask is not None:
        if attn_mask.dtype == torch.uint8:
            warnings.warn("Byte tensor for attn_mask in nn.MultiheadAttention "
                          "is deprecated. Use bool tensor instead.")
            attn_mask = attn_mask.to(torch.bool)
        else:
            assert attn_mask.is_floating_point() \
                or attn_mask.dtype == torch.bool, \
                "Only float, byte, and bool types are supported for " \
                f"attn_mask, not {attn_mask.dtype}"
        if attn_mask.dim() == 2:
            correct_2d_size = (tgt_len, src_len)
            if attn_mask.shape != correct_2d_size:
                raise RuntimeError(
                    f"The shape of the 2D attn_mask is {attn_mask.shape}, "
                    f"but should be {correct_2d_size}.")
            attn_mask = attn_mask.unsqueeze(0)
        elif attn_mask.dim() == 3:
            correct_3d_size = (bsz * num_heads, tgt_len, src_len)
            if attn_mask.shape != correct_3d_size:
                raise RuntimeError(
                    f"The shape of the 3D attn_mask is {attn_mask.shape}, "
                    f"but should be {correct_3d_size}.")
        else:
            raise RuntimeError(
                f"attn_mask's dimension {attn_mask.dim()} is not supported")

    if bias_k is not None and bias_v is not None:
        k = torch.cat([k, bias_k.repeat(1, bsz, 1)])
        v = torch.cat([v, bias_v.repeat(1, bsz, 1)])
        if attn_mask is not None:
            attn_mask = F.pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = F.pad(key_padding_mask, (0, 1))
    else:
        assert bias_k is None
        assert bias_v is None

    q = q.contiguous().view(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    k = k.contiguous().view(k.shape[0], bsz * num_heads,
                            head_dim).transpose(0, 1)
    v = v.contiguous().view(v.shape[0], bsz * num_heads,
                            head_dim).transpose(0, 1)
    if add_zero_attn:
        zero_attn_shape = (bsz * num_heads, 1, head_dim)
        k = torch.cat([k, torch.zeros(zero_attn_shape, dtype=k.dtype,
                                      device=k.device)], dim=1)
        v = torch.cat([v, torch.zeros(zero_attn_shape, dtype=v.dtype,
                                      device=v.device)], dim=1)
        if attn_mask is not None:
            attn_mask = F.pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = F.pad(key_padding_mask, (0, 1))
    src_len = k.size(1)

    if key_padding_mask is not None:
        kpm_size = (bsz, src_len)
        assert key_padding_mask.shape == kpm_size, \
            f"expecting key_padding_mask shape of {kpm_size}, but " \
            f"got {key_padding_mask.shape}"
        key_padding_mask = key_padding_mask.view(bsz, 1, 1, src_len).expand(
            -1, num_heads, -1, -1).reshape(bsz * num_heads, 1, src_len)
        if attn_mask is None:
            attn_mask = key_padding_mask
        elif attn_mask.dtype == torch.bool:
            attn_mask = attn_mask.logical_or(key_padding_mask)
        else:
            attn_mask = attn_mask.masked_fill(key_padding_mask, float("-inf"))
    if attn_mask is not None and attn_mask.dtype == torch.bool:
        new_attn_mask = torch.zeros_like(attn_mask, dtype=q.dtype)
        new_attn_mask.masked_fill_(attn_mask, float("-inf"))
        attn_mask = new_attn_mask

    # The scores (bsz * num_heads, tgt_len, src_len): the mask's element
    # index is that of (bsz, num_heads, tgt_len, src_len).
    q_scaled = q / math.sqrt(float(head_dim))
    if attn_mask is not None:
        weights = torch.baddbmm(attn_mask, q_scaled, k.transpose(-2, -1))
    else:
        weights = torch.bmm(q_scaled, k.transpose(-2, -1))
    if training and dropout_p > 0.0:
        weights = _scripted_softmax_dropout(weights, dropout_p, keep_mask,
                                            generator)
    else:
        weights = torch.softmax(weights, dim=-1)

    attn_output = torch.bmm(weights, v)
    attn_output = attn_output.transpose(0, 1).contiguous().view(
        tgt_len * bsz, embed_dim)
    attn_output = F.linear(attn_output, out_proj_weight, out_proj_bias)
    attn_output = attn_output.view(tgt_len, bsz, attn_output.size(1))
    if need_weights:
        # torch returns the weights after the dropout.
        weights = weights.view(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            weights = weights.sum(dim=1) / num_heads
        if not is_batched:
            attn_output = attn_output.squeeze(1)
            weights = weights.squeeze(0)
        return attn_output, weights
    if not is_batched:
        attn_output = attn_output.squeeze(1)
    return attn_output, None


class MultiheadAttention(_Mixin, torch.nn.MultiheadAttention):
    """torch.nn.MultiheadAttention(embed_dim, num_heads, dropout=0.0,
    bias=True, add_bias_kv=False, add_zero_attn=False, kdim=None,
    vdim=None, batch_first=False, device=None, dtype=None), its parameters
    and state_dict, whose dropout of the attention probabilities in
    training is rndnn's fused softmax-dropout (rndnn.torch.softmax_dropout),
    its seed drawn from torch's default generator or generator= (see
    rndnn.torch). In eval mode or at dropout 0, torch's forward (its fast
    path included). mask: "bit" (the default) keeps the probabilities'
    mask as bits for the backward pass, None recomputes it.
    """

    def __init__(self, *args, mask="bit", generator=None, **kwargs):
        super().__init__(*args, **kwargs)
        self._setup(mask, generator)

    def _setup(self, mask, generator):
        _check_mask(mask)
        self.mask = mask
        self._keep_mask = mask is not None
        self.generator = generator

    def forward(self, query: torch.Tensor, key: torch.Tensor,
                value: torch.Tensor,
                key_padding_mask: Optional[torch.Tensor] = None,
                need_weights: bool = True,
                attn_mask: Optional[torch.Tensor] = None,
                average_attn_weights: bool = True
                ) -> Tuple[torch.Tensor, Optional[torch.Tensor]]:
        if not (torch.jit.is_scripting() or torch.jit.is_tracing()):
            if not self.training or self.dropout == 0.0:
                # torch's own (not _Mixin's, the dropouts').
                return torch.nn.MultiheadAttention.forward(
                    self, query, key, value, key_padding_mask=key_padding_mask,
                    need_weights=need_weights, attn_mask=attn_mask,
                    average_attn_weights=average_attn_weights)
        is_batched = query.dim() == 3
        if self.batch_first and is_batched:
            # As torch: "is" kept, so that self-attention projects once.
            if key is value:
                if query is key:
                    query = key = value = query.transpose(1, 0)
                else:
                    query, key = query.transpose(1, 0), key.transpose(1, 0)
                    value = key
            else:
                query, key, value = (query.transpose(1, 0),
                                     key.transpose(1, 0),
                                     value.transpose(1, 0))
        attn_output, weights = _attention(
            query, key, value, self.num_heads, self.in_proj_weight,
            self.in_proj_bias, self.bias_k, self.bias_v, self.add_zero_attn,
            self.dropout, self.out_proj.weight, self.out_proj.bias,
            self.training, key_padding_mask, need_weights, attn_mask,
            not self._qkv_same_embed_dim, self.q_proj_weight,
            self.k_proj_weight, self.v_proj_weight, average_attn_weights,
            self._keep_mask, self._generator_key)
        if self.batch_first and is_batched:
            return attn_output.transpose(1, 0), weights
        return attn_output, weights

    def extra_repr(self):
        return (f"embed_dim={self.embed_dim}, num_heads={self.num_heads}, "
                f"dropout={self.dropout}"
                + ("" if self.mask == "bit" else f", mask={self.mask!r}")
                + ("" if self._generator is None else
                   f", generator={self._generator!r}"))


_REPLACEMENTS = {torch.nn.Dropout: Dropout, torch.nn.Dropout1d: Dropout1d,
                 torch.nn.Dropout2d: Dropout2d, torch.nn.Dropout3d: Dropout3d,
                 torch.nn.MultiheadAttention: MultiheadAttention}


def replace_dropout(model, *, mask="bit", generator=None):
    """Swaps every torch.nn.Dropout, Dropout1d, Dropout2d, Dropout3d and
    MultiheadAttention in @model (recursively; exactly those types, not
    subclasses) for rndnn.torch's, so that nn.Transformer and its layers
    draw all their dropout from rndnn, and returns the model (the new module when @model is
    itself one of those). Each new module takes over all that the one it
    replaces held: p (MultiheadAttention's dropout), inplace, the training
    mode, its hooks (whose handles still remove them), buffers, parameters
    (the same Parameter objects) and any other attribute but rndnn's own
    (mask, generator, shard: none). A module found at several places is
    replaced by one module."""
    _check_mask(mask)
    _check_generator(generator)
    done = {}

    def swap(m):
        if id(m) not in done:
            cls = _REPLACEMENTS[type(m)]
            new = cls.__new__(cls)
            # torch's attributes (the hooks' dicts themselves, so that
            # their handles act on the new module) and the user's, then
            # rndnn's, which win over a user's of the same name.
            new.__dict__.update(m.__dict__)
            new._setup(mask, generator)
            done[id(m)] = new
        return done[id(m)]

    def walk(module):
        # _modules, not named_children(), which gives a module found at
        # several places once.
        for name, child in list(module._modules.items()):
            if child is None:
                continue
            if type(child) in _REPLACEMENTS:
                setattr(module, name, swap(child))
            else:
                walk(child)

    if type(model) in _REPLACEMENTS:
        return swap(model)
    walk(model)
    return model


class ShardedSampler(torch.utils.data.Sampler):
    """A DataLoader sampler that gives rank r of W its share of one
    epoch's permutation, computed alone in time and memory of the share:
    torch.utils.data.DistributedSampler's contract (num_samples, padding
    by wrapping to the start, drop_last, set_epoch) with rndnn's
    permutation (docs/python.md). The epoch's sequence is s(p) =
    pi(p mod N), p = 0, 1, ..., with pi = rndnn.permutation(N, seed=seed,
    stream=epoch) (shuffle=False: s(p) = p mod N); rank r takes the
    contiguous positions [r m, (r + 1) m), m = len(self). So the ranks'
    shares, in rank order, make the same sequence for every W (its first
    W m elements): with drop_last=False every index appears, the first
    W m - N twice; with drop_last=True, m = N // W and the last N mod W
    positions of the permutation are dropped.

    data_source: a dataset (its len()) or the length N itself.
    num_replicas, rank: torch.distributed's world size and rank when it
    is initialized, else 1 and 0.
    """

    def __init__(self, data_source, *, num_replicas=None, rank=None,
                 shuffle=True, seed=0, drop_last=False):
        length = (data_source if isinstance(data_source, numbers.Integral)
                  else len(data_source))
        if length < 0:
            raise ValueError(f"dataset length {length} is negative")
        dist = torch.distributed
        initialized = dist.is_available() and dist.is_initialized()
        if num_replicas is None:
            num_replicas = dist.get_world_size() if initialized else 1
        if rank is None:
            rank = dist.get_rank() if initialized else 0
        if num_replicas < 1:
            raise ValueError(f"num_replicas={num_replicas} is not >= 1")
        if not 0 <= rank < num_replicas:
            raise ValueError(f"rank={rank} is outside [0, num_replicas="
                             f"{num_replicas})")
        self.length = int(length)
        self.num_replicas = int(num_replicas)
        self.rank = int(rank)
        self.shuffle = bool(shuffle)
        self.seed = _arrays._integer(seed, "seed")
        self.drop_last = bool(drop_last)
        self.epoch = 0
        if self.drop_last:
            self.num_samples = self.length // self.num_replicas
        else:
            self.num_samples = -(-self.length // self.num_replicas)
        self.total_size = self.num_samples * self.num_replicas

    def set_epoch(self, epoch):
        """The epoch of the next iteration: its permutation's stream."""
        if not isinstance(epoch, numbers.Integral):
            raise TypeError(f"epoch must be an integer, not "
                            f"{type(epoch).__name__} {epoch!r}")
        if not 0 <= epoch < 1 << 64:
            raise _arrays.OutOfRangeError(
                f"epoch={epoch} is outside [0, 2^64) (it is the "
                "permutation's stream)")
        self.epoch = int(epoch)

    def indices(self):
        """This rank's share, an int64 NumPy array of len(self)."""
        n, m = self.length, self.num_samples
        begin, end = self.rank * m, (self.rank + 1) * m
        pieces = []
        p = begin
        while p < end:
            # Positions [p, q) lie in one pass over [0, n).
            q = min(end, (p // n + 1) * n)
            first = p % n
            if self.shuffle:
                pieces.append(_arrays.permutation(
                    n, q - p, seed=self.seed, offset=first,
                    stream=self.epoch))
            else:
                pieces.append(_arrays.np.arange(first, first + q - p,
                                           dtype="int64"))
            p = q
        return (_arrays.np.concatenate(pieces) if pieces
                else _arrays.np.empty(0, dtype="int64"))

    def __iter__(self):
        return iter(self.indices().tolist())

    def __len__(self):
        return self.num_samples
