"""rndnn.torch.init: torch.nn.init's initialisers with rndnn's values
(docs/python.md, "rndnn.torch.init").

uniform_, normal_, trunc_normal_, xavier_uniform_, xavier_normal_,
kaiming_uniform_ and kaiming_normal_ take torch.nn.init's arguments and fill the tensor in
place, under torch.no_grad, returning it. Their values depend only on the
seed and each element's global index, so shard=(global_shape, origin)
fills the tensor with its block of the weight of global_shape: the
blocks that K ranks fill equal the one-process weight's, bit for bit.
Fans and gains are torch's, of the global shape.

generator: None (torch's default generator) or a torch.Generator gives
one 63-bit seed a call, as rndnn.torch's dropouts draw theirs, so
torch.manual_seed replays the weights; an rndnn.Generator moves on by the
global element count, so equal copies on every rank stay equal.

trunc_normal_'s a and b are absolute bounds, as torch's: rndnn's
truncated_normal, every value in [a, b] after rounding to the tensor's
type.
"""
import math
import warnings

import torch

from .. import _arrays
from .._rndnn import Error, Generator

__all__ = ["uniform_", "normal_", "trunc_normal_", "xavier_uniform_", "xavier_normal_",
           "kaiming_uniform_", "kaiming_normal_"]

_TYPES = (torch.float64, torch.float32, torch.float16, torch.bfloat16)


def _target(tensor, fn, generator, shard):
    """(global shape, origin or None) of @tensor, checked (a contiguous
    f64, f32, f16 or bf16 CPU tensor, a generator rndnn takes, a shard that
    fits) before anything is drawn."""
    if not isinstance(tensor, torch.Tensor):
        raise TypeError(f"{fn}(): tensor must be a torch.Tensor, not "
                        f"{type(tensor).__name__}")
    if tensor.dtype not in _TYPES:
        raise Error(f"{fn}(): tensor is {tensor.dtype}; rndnn fills "
                    "torch.float64, float32, float16 or bfloat16 tensors")
    if tensor.device.type != "cpu":
        raise Error(f"{fn}(): tensor is on {tensor.device}, rndnn runs on "
                    "the CPU")
    if not tensor.is_contiguous():
        raise Error(f"{fn}(): tensor must be contiguous (rndnn writes its "
                    "memory in order); fill a contiguous one and copy")
    if generator is not None and not isinstance(
            generator, (torch.Generator, Generator)):
        raise TypeError(f"{fn}(): generator must be a torch.Generator or an "
                        f"rndnn.Generator, not {type(generator).__name__}")
    global_shape, origin = _arrays._shard(shard, tensor.shape)
    return (tuple(tensor.shape) if global_shape is None else global_shape,
            origin)


def _fill(dist, tensor, params, generator, global_shape, origin):
    # The seed is drawn once every argument is checked: a refused call
    # leaves torch's generator where it was.
    fn = {"uniform": _arrays.uniform, "normal": _arrays.normal,
          "truncated_normal": _arrays.truncated_normal}[dist]
    if isinstance(generator, Generator):
        source = {"generator": generator}
    else:
        source = {"seed": _arrays._torch_seed(generator), "offset": 0}
    window = ({} if origin is None else
              {"global_shape": global_shape, "origin": origin})
    with torch.no_grad():
        fn(*params, out=tensor, **source, **window)
    return tensor


def _fans(shape, fn):
    """torch.nn.init's (fan_in, fan_out) of a weight of @shape: size(1)
    and size(0) times the receptive field, the product of the dims
    after them."""
    if len(shape) < 2:
        raise ValueError(f"{fn}(): Fan in and fan out can not be computed "
                         "for tensor with fewer than 2 dimensions")
    receptive = math.prod(shape[2:])
    return shape[1] * receptive, shape[0] * receptive


def _fan(shape, mode, fn):
    if not isinstance(mode, str) or mode.lower() not in ("fan_in",
                                                         "fan_out"):
        raise ValueError(f"{fn}(): Mode {mode} not supported, please use one "
                         "of ['fan_in', 'fan_out']")
    fan_in, fan_out = _fans(shape, fn)
    return fan_in if mode.lower() == "fan_in" else fan_out


def uniform_(tensor, a=0.0, b=1.0, *, generator=None, shard=None):
    """Fills @tensor with values uniform on [a, b)."""
    global_shape, origin = _target(tensor, "uniform_", generator, shard)
    return _fill("uniform", tensor, (a, b), generator, global_shape, origin)


def normal_(tensor, mean=0.0, std=1.0, *, generator=None, shard=None):
    """Fills @tensor with values of Normal(mean, std)."""
    global_shape, origin = _target(tensor, "normal_", generator, shard)
    return _fill("normal", tensor, (mean, std), generator, global_shape,
                 origin)


def trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0, *,
                  generator=None, shard=None):
    """Fills @tensor with values of Normal(mean, std) conditioned on [a, b]
    (absolute bounds, as torch's)."""
    global_shape, origin = _target(tensor, "trunc_normal_", generator, shard)
    return _fill("truncated_normal", tensor, (mean, std, a, b), generator,
                 global_shape, origin)


def _xavier_std(shape, gain, fn):
    fan_in, fan_out = _fans(shape, fn)
    return gain * math.sqrt(2.0 / float(fan_in + fan_out))


def xavier_uniform_(tensor, gain=1.0, *, generator=None, shard=None):
    """Glorot's uniform: U(-a, a), a = gain * sqrt(6 / (fan_in +
    fan_out)) of the global shape."""
    global_shape, origin = _target(tensor, "xavier_uniform_", generator,
                                   shard)
    a = math.sqrt(3.0) * _xavier_std(global_shape, gain, "xavier_uniform_")
    return _fill("uniform", tensor, (-a, a), generator, global_shape, origin)


def xavier_normal_(tensor, gain=1.0, *, generator=None, shard=None):
    """Glorot's normal: N(0, std^2), std = gain * sqrt(2 / (fan_in +
    fan_out)) of the global shape."""
    global_shape, origin = _target(tensor, "xavier_normal_", generator,
                                   shard)
    std = _xavier_std(global_shape, gain, "xavier_normal_")
    return _fill("normal", tensor, (0.0, std), generator, global_shape,
                 origin)


def _kaiming_std(shape, a, mode, nonlinearity, fn):
    fan = _fan(shape, mode, fn)
    return torch.nn.init.calculate_gain(nonlinearity, a) / math.sqrt(fan)


def kaiming_uniform_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu",
                     *, generator=None, shard=None):
    """He's uniform: U(-bound, bound), bound = gain * sqrt(3 / fan), the fan
    (mode: "fan_in" or "fan_out") of the global shape and the gain
    torch.nn.init.calculate_gain(nonlinearity, a)'s. A weight of no
    elements is left as it is, with torch's warning."""
    return _kaiming("uniform", tensor, a, mode, nonlinearity, generator,
                    shard, "kaiming_uniform_")


def kaiming_normal_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu",
                    *, generator=None, shard=None):
    """He's normal: N(0, std^2), std = gain / sqrt(fan), as
    kaiming_uniform_'s."""
    return _kaiming("normal", tensor, a, mode, nonlinearity, generator,
                    shard, "kaiming_normal_")


def _kaiming(dist, tensor, a, mode, nonlinearity, generator, shard, fn):
    global_shape, origin = _target(tensor, fn, generator, shard)
    if 0 in global_shape:
        # torch's no-op, on the global shape: every rank skips it alike.
        warnings.warn("Initializing zero-element tensors is a no-op")
        return tensor
    std = _kaiming_std(global_shape, a, mode, nonlinearity, fn)
    params = ((-math.sqrt(3.0) * std, math.sqrt(3.0) * std)
              if dist == "uniform" else (0.0, std))
    return _fill(dist, tensor, params, generator, global_shape, origin)
