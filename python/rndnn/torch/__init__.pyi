# Stubs of rndnn.torch (docs/python.md).
from typing import (Any, Iterator, Literal, Optional, Sequence, Tuple, TypeVar,
                    Union)

import numpy as np
import torch

import rndnn
from . import init as init

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


class SoftmaxDropoutFunction(torch.autograd.Function): ...


def softmax_dropout(scores: torch.Tensor, p: float = ..., training: bool = ...,
                    *, causal: bool = ..., generator: AnyGenerator = ...,
                    shard: Optional[Tuple[Sequence[int], Sequence[int]]] = ...,
                    mask: Mask = ...) -> torch.Tensor: ...


class MultiheadAttention(torch.nn.MultiheadAttention):
    mask: Mask
    generator: AnyGenerator
    def __init__(self, embed_dim: int, num_heads: int, dropout: float = ...,
                 bias: bool = ..., add_bias_kv: bool = ...,
                 add_zero_attn: bool = ..., kdim: Optional[int] = ...,
                 vdim: Optional[int] = ..., batch_first: bool = ...,
                 device: Optional[torch.device] = ...,
                 dtype: Optional[torch.dtype] = ..., *, mask: Mask = ...,
                 generator: AnyGenerator = ...) -> None: ...


def replace_dropout(model: M, *, mask: Mask = ...,
                    generator: AnyGenerator = ...) -> M: ...


class ShardedSampler(torch.utils.data.Sampler[int]):
    length: int
    num_replicas: int
    rank: int
    shuffle: bool
    seed: int
    drop_last: bool
    epoch: int
    num_samples: int
    total_size: int
    def __init__(self, data_source: Any, *,
                 num_replicas: Optional[int] = ..., rank: Optional[int] = ...,
                 shuffle: bool = ..., seed: int = ...,
                 drop_last: bool = ...) -> None: ...
    def set_epoch(self, epoch: int) -> None: ...
    def indices(self) -> np.ndarray: ...
    def __iter__(self) -> Iterator[int]: ...
    def __len__(self) -> int: ...
