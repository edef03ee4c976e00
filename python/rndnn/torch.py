"""rndnn.torch: dropout for PyTorch CPU tensors (docs/python.md).

Dropout is a drop-in for torch.nn.Dropout that keeps a 1-bit mask for the
backward pass, or none (mask=None: the backward recomputes it from the seed
and offset), and draws its masks from an rndnn.Generator that replays: the
same generator state gives the same masks, whatever the thread count.
"""
import torch

import rndnn

__all__ = ["Dropout", "DropoutFunction", "dropout"]


def _check_p(p):
    if not 0.0 <= p <= 1.0:
        raise rndnn.Error(f"dropout probability p={p} is outside [0, 1]")


class _Backward(torch.autograd.Function):
    """dx = keep ? dy / (1 - p) : 0, the mask given or recomputed. Linear in
    dy, so its own backward is itself: higher derivatives work."""

    @staticmethod
    def forward(ctx, dy, p, seed, offset, mask):
        ctx.args = (p, seed, offset, mask)
        return rndnn.dropout_backward(dy.contiguous(), p, mask=mask,
                                      seed=seed, offset=offset)

    @staticmethod
    def backward(ctx, ddx):
        return _Backward.apply(ddx, *ctx.args), None, None, None, None


class DropoutFunction(torch.autograd.Function):
    """y = keep ? x / (1 - p) : 0, the keep mask bernoulli(1 - p) of rndnn's
    Philox at (seed, offset + i), i the element's row-major index.

    DropoutFunction.apply(x, p, seed, offset, mask="bit", inplace=False):
    mask "bit" keeps the mask as bits for the backward pass (n/8 bytes),
    None keeps nothing and recomputes it. The result is a function of
    (x, p, seed, offset) alone, so torch.autograd.gradcheck applies.
    """

    @staticmethod
    def forward(ctx, x, p, seed, offset, mask="bit", inplace=False):
        if mask not in ("bit", None):
            raise rndnn.Error(f"unknown mask '{mask}': \"bit\" or None")
        y, m = rndnn.dropout(x.contiguous(), p, seed=seed, offset=offset,
                             mask=mask, out=x if inplace else None)
        if inplace:
            ctx.mark_dirty(x)
        ctx.args = (p, seed, offset, m)
        return y

    @staticmethod
    def backward(ctx, dy):
        return (_Backward.apply(dy, *ctx.args), None, None, None, None, None)


def _check_generator(generator):
    if generator is not None and not isinstance(generator, rndnn.Generator):
        raise TypeError("generator must be an rndnn.Generator, not "
                        f"{type(generator).__name__}")


def _seed_from_torch():
    """A seed from torch's default generator, so torch.manual_seed decides
    it as it decides torch's own dropout."""
    return int(torch.empty((), dtype=torch.int64).random_())


def dropout(x, p=0.5, training=True, inplace=False, *, generator=None,
            mask="bit"):
    """torch.nn.functional.dropout's signature. Its masks come from
    @generator (an rndnn.Generator: the offset moves on by x.numel()), or,
    without one, from a seed drawn from torch's default generator."""
    _check_p(p)
    _check_generator(generator)
    if not training or p == 0.0:
        return x
    if generator is None:
        seed, offset = _seed_from_torch(), 0
    else:
        seed, offset = generator.seed, generator.reserve(x.numel())
    return DropoutFunction.apply(x, p, seed, offset, mask, inplace)


class Dropout(torch.nn.Module):
    """torch.nn.Dropout(p, inplace) with rndnn's masks.

    mask: "bit" (the default) keeps a 1-bit mask per element for the
    backward pass, 32x less than a float mask; None keeps nothing and
    recomputes the mask from the seed and offset.
    generator: an rndnn.Generator; the default one is seeded from torch's
    default generator when the module is made. Its 16-byte state is part
    of state_dict(), so a loaded checkpoint replays the same masks.
    """

    def __init__(self, p=0.5, inplace=False, *, mask="bit", generator=None):
        super().__init__()
        _check_p(p)
        _check_generator(generator)
        if mask not in ("bit", None):
            raise rndnn.Error(f"unknown mask '{mask}': \"bit\" or None")
        self.p, self.inplace, self.mask = p, inplace, mask
        self.generator = (generator if generator is not None
                          else rndnn.Generator(_seed_from_torch()))

    def forward(self, x):
        return dropout(x, self.p, self.training, self.inplace,
                       generator=self.generator, mask=self.mask)

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}, mask={self.mask!r}"

    def get_extra_state(self):
        return self.generator.save()

    def set_extra_state(self, state):
        self.generator = rndnn.Generator.load(state)
