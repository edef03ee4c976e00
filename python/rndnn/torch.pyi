# Stubs of rndnn.torch (docs/python.md).
from typing import Literal, Optional, Sequence, Tuple, TypeVar, Union

import torch

import rndnn
from . import torch_init as init

Mask = Optional[Literal["bit"]]
AnyGenerator = Optional[Union[torch.Generator, rndnn.Generator]]
M = TypeVar("M", bound=torch.nn.Module)
# shard=: (global_shape, origin) of a tensor in a global one.
Shard = Optional[Tuple[Sequence[int], Sequence[int]]]


class DropoutFunction(torch.autograd.Function): ...


def dropout(input: torch.Tensor, p: float = ..., training: bool = ...,
            inplace: bool = ..., *, generator: AnyGenerator = ...,
            mask: Mask = ..., shard: Shard = ...) -> torch.Tensor: ...
def dropout1d(input: torch.Tensor, p: float = ..., training: bool = ...,
              inplace: bool = ..., *, generator: AnyGenerator = ...,
              mask: Mask = ..., shard: Shard = ...) -> torch.Tensor: ...
def dropout2d(input: torch.Tensor, p: float = ..., training: bool = ...,
              inplace: bool = ..., *, generator: AnyGenerator = ...,
              mask: Mask = ..., shard: Shard = ...) -> torch.Tensor: ...
def dropout3d(input: torch.Tensor, p: float = ..., training: bool = ...,
              inplace: bool = ..., *, generator: AnyGenerator = ...,
              mask: Mask = ..., shard: Shard = ...) -> torch.Tensor: ...


class Dropout(torch.nn.Dropout):
    mask: Mask
    generator: AnyGenerator
    shard: Optional[Tuple[Tuple[int, ...], Tuple[int, ...]]]
    def __init__(self, p: float = ..., inplace: bool = ..., *,
                 mask: Mask = ..., generator: AnyGenerator = ...,
                 shard: Shard = ...) -> None: ...


class Dropout1d(torch.nn.Dropout1d):
    mask: Mask
    generator: AnyGenerator
    shard: Optional[Tuple[Tuple[int, ...], Tuple[int, ...]]]
    def __init__(self, p: float = ..., inplace: bool = ..., *,
                 mask: Mask = ..., generator: AnyGenerator = ...,
                 shard: Shard = ...) -> None: ...


class Dropout2d(torch.nn.Dropout2d):
    mask: Mask
    generator: AnyGenerator
    shard: Optional[Tuple[Tuple[int, ...], Tuple[int, ...]]]
    def __init__(self, p: float = ..., inplace: bool = ..., *,
                 mask: Mask = ..., generator: AnyGenerator = ...,
                 shard: Shard = ...) -> None: ...


class Dropout3d(torch.nn.Dropout3d):
    mask: Mask
    generator: AnyGenerator
    shard: Optional[Tuple[Tuple[int, ...], Tuple[int, ...]]]
    def __init__(self, p: float = ..., inplace: bool = ..., *,
                 mask: Mask = ..., generator: AnyGenerator = ...,
                 shard: Shard = ...) -> None: ...


def replace_dropout(model: M, *, mask: Mask = ...,
                    generator: AnyGenerator = ...) -> M: ...
