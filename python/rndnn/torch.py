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

replace_dropout(model) swaps torch's dropout modules for these. The
modules script and trace (torch.jit) through the operator
torch.ops.rndnn.dropout, registered here.
"""
import numbers
import secrets
import sys
import warnings
from typing import List

import torch
import torch.fx

from . import _arrays
from . import torch_init as init
from ._rndnn import Error, Generator

__all__ = ["Dropout", "Dropout1d", "Dropout2d", "Dropout3d",
           "DropoutFunction", "dropout", "dropout1d", "dropout2d",
           "dropout3d", "replace_dropout", "init"]

# rndnn.torch.init, as torch.nn.init is imported: `import rndnn.torch.init`
# finds it here (this module is no package).
sys.modules[__name__ + ".init"] = init

_TYPES = (torch.float32, torch.float16, torch.bfloat16)
_MASKS = ("bit", None)


def _check_p(p):
    # torch's check and message (torch.nn.functional.dropout's).
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
    global_shape, origin = _arrays._shard(shard, x.shape)
    noise = _noise_shape(x.shape if shard is None else global_shape, kind)
    if not training or p == 0.0:
        return x
    _check_mask(mask)
    if x.dtype not in _TYPES:
        raise Error(f"dropout takes f32, bf16 or f16 data, not "
                          f"{x.dtype}")
    if x.device.type != "cpu":
        raise Error(f"x is on {x.device}, rndnn runs on the CPU")
    if inplace:
        if not x.is_contiguous():
            raise Error("x must be contiguous to be written in place")
        _check_inplace(x)
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
_library = torch.library.Library("rndnn", "DEF")
_library.define("dropout(Tensor input, float p, bool train, bool inplace, "
                "int kind, bool keep_mask, int generator, "
                "int[] global_shape=[], int[] origin=[]) -> Tensor",
                alias_analysis="CONSERVATIVE")
# torch.ops.rndnn.unknown_generator(key): _unknown_key's message.
_library.define("unknown_generator(int key) -> str")
# torch.ops.rndnn.shard_error(shape, global_shape, origin): _shard_error's.
_library.define("shard_error(int[] shape, int[] global_shape, int[] origin) "
                "-> str")


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


_library.impl("dropout", _dropout_op, "CPU")
_library.impl("unknown_generator", _unknown_key, "CompositeExplicitAutograd")
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
    that the operator's Python raises."""
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


_REPLACEMENTS = {torch.nn.Dropout: Dropout, torch.nn.Dropout1d: Dropout1d,
                 torch.nn.Dropout2d: Dropout2d, torch.nn.Dropout3d: Dropout3d}


def replace_dropout(model, *, mask="bit", generator=None):
    """Swaps every torch.nn.Dropout, Dropout1d, Dropout2d and Dropout3d in
    @model (recursively; exactly those types, not subclasses) for
    rndnn.torch's, and returns the model (the new module when @model is
    itself one of those). Each new module takes over all that the one it
    replaces held: p, inplace, the training mode, its hooks (whose
    handles still remove them), buffers, parameters and any other
    attribute but rndnn's own (mask, generator, shard: none). A module
    found at several places is replaced by one module."""
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
