# Stubs of rndnn.torch.init (docs/python.md).
from typing import Optional, Sequence, Tuple, TypeVar, Union

import torch

import rndnn

AnyGenerator = Optional[Union[torch.Generator, rndnn.Generator]]
Shard = Optional[Tuple[Sequence[int], Sequence[int]]]
T = TypeVar("T", bound=torch.Tensor)


def uniform_(tensor: T, a: float = ..., b: float = ..., *,
             generator: AnyGenerator = ..., shard: Shard = ...) -> T: ...
def normal_(tensor: T, mean: float = ..., std: float = ..., *,
            generator: AnyGenerator = ..., shard: Shard = ...) -> T: ...
def trunc_normal_(tensor: T, mean: float = ..., std: float = ...,
                  a: float = ..., b: float = ..., *,
                  generator: AnyGenerator = ..., shard: Shard = ...) -> T: ...
def xavier_uniform_(tensor: T, gain: float = ..., *,
                    generator: AnyGenerator = ...,
                    shard: Shard = ...) -> T: ...
def xavier_normal_(tensor: T, gain: float = ..., *,
                   generator: AnyGenerator = ...,
                   shard: Shard = ...) -> T: ...
def kaiming_uniform_(tensor: T, a: float = ..., mode: str = ...,
                     nonlinearity: str = ..., *,
                     generator: AnyGenerator = ...,
                     shard: Shard = ...) -> T: ...
def kaiming_normal_(tensor: T, a: float = ..., mode: str = ...,
                    nonlinearity: str = ..., *,
                    generator: AnyGenerator = ...,
                    shard: Shard = ...) -> T: ...
