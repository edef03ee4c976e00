# Stubs of rndnn.torch (docs/python.md).
from typing import Literal, Optional, TypeVar, Union

import torch

import rndnn

Mask = Optional[Literal["bit"]]
AnyGenerator = Optional[Union[torch.Generator, rndnn.Generator]]
M = TypeVar("M", bound=torch.nn.Module)


class DropoutFunction(torch.autograd.Function): ...


def dropout(input: torch.Tensor, p: float = ..., training: bool = ...,
            inplace: bool = ..., *, generator: AnyGenerator = ...,
            mask: Mask = ...) -> torch.Tensor: ...
def dropout1d(input: torch.Tensor, p: float = ..., training: bool = ...,
              inplace: bool = ..., *, generator: AnyGenerator = ...,
              mask: Mask = ...) -> torch.Tensor: ...
def dropout2d(input: torch.Tensor, p: float = ..., training: bool = ...,
              inplace: bool = ..., *, generator: AnyGenerator = ...,
              mask: Mask = ...) -> torch.Tensor: ...
def dropout3d(input: torch.Tensor, p: float = ..., training: bool = ...,
              inplace: bool = ..., *, generator: AnyGenerator = ...,
              mask: Mask = ...) -> torch.Tensor: ...


class Dropout(torch.nn.Dropout):
    mask: Mask
    generator: AnyGenerator
    def __init__(self, p: float = ..., inplace: bool = ..., *,
                 mask: Mask = ..., generator: AnyGenerator = ...) -> None: ...


class Dropout1d(torch.nn.Dropout1d):
    mask: Mask
    generator: AnyGenerator
    def __init__(self, p: float = ..., inplace: bool = ..., *,
                 mask: Mask = ..., generator: AnyGenerator = ...) -> None: ...


class Dropout2d(torch.nn.Dropout2d):
    mask: Mask
    generator: AnyGenerator
    def __init__(self, p: float = ..., inplace: bool = ..., *,
                 mask: Mask = ..., generator: AnyGenerator = ...) -> None: ...


class Dropout3d(torch.nn.Dropout3d):
    mask: Mask
    generator: AnyGenerator
    def __init__(self, p: float = ..., inplace: bool = ..., *,
                 mask: Mask = ..., generator: AnyGenerator = ...) -> None: ...


def replace_dropout(model: M, *, mask: Mask = ...,
                    generator: AnyGenerator = ...) -> M: ...
