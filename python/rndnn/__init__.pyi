# Stubs of the rndnn package (docs/python.md).
from types import ModuleType
from typing import Any, Literal, Optional, Sequence, Tuple, Union

import numpy as np

from ._rndnn import Error as Error
from ._rndnn import Generator as Generator
from ._rndnn import OutOfRangeError as OutOfRangeError

__version__: str
__all__: list[str]

torch: ModuleType  # rndnn.torch, imported at first use

Size = Union[int, Sequence[int]]
# A string ('float64', 'float16', 'f16', 'bfloat16', 'bit'...), a NumPy dtype or
# type, or a torch dtype (the result is then a torch tensor).
DType = Any
Array = Any  # a NumPy array or a torch CPU tensor
Method = str  # 'auto', 'threshold32', 'bytewise', 'onednn' or 'bitsliced:B'

default_generator: Generator


def manual_seed(seed: int) -> Generator: ...


# An rndnn.Generator, or a torch.Generator (it gives the seed).
AnyGenerator = Any


# NumPy's positional order, size last; the rest keyword-only. The older
# keyword names (shape, a, b, mean, stddev) are accepted too.
def bits(size: Optional[Size] = ..., *, dtype: DType = ...,
         seed: Optional[int] = ..., offset: Optional[int] = ...,
         stream: int = ..., generator: Optional[AnyGenerator] = ...,
         alg: str = ..., name: Optional[str] = ...,
         global_shape: Optional[Size] = ..., origin: Optional[Size] = ...,
         out: Optional[Array] = ...) -> Any: ...


def bernoulli(p: Union[float, Array, Sequence[float]] = ...,
              size: Optional[Size] = ..., *,
              dtype: DType = ..., packed: bool = ..., method: Method = ...,
              seed: Optional[int] = ..., offset: Optional[int] = ...,
              stream: int = ..., generator: Optional[AnyGenerator] = ...,
              alg: str = ..., name: Optional[str] = ...,
              global_shape: Optional[Size] = ...,
              origin: Optional[Size] = ...,
              out: Optional[Array] = ...) -> Any: ...


def uniform(low: float = ..., high: float = ...,
            size: Optional[Size] = ..., *, dtype: DType = ...,
            seed: Optional[int] = ..., offset: Optional[int] = ...,
            stream: int = ..., generator: Optional[AnyGenerator] = ...,
            alg: str = ..., name: Optional[str] = ...,
            global_shape: Optional[Size] = ..., origin: Optional[Size] = ...,
            out: Optional[Array] = ...) -> Any: ...


def normal(loc: float = ..., scale: float = ...,
           size: Optional[Size] = ..., *, dtype: DType = ...,
           seed: Optional[int] = ..., offset: Optional[int] = ...,
           stream: int = ..., generator: Optional[AnyGenerator] = ...,
           alg: str = ..., name: Optional[str] = ...,
           global_shape: Optional[Size] = ..., origin: Optional[Size] = ...,
           out: Optional[Array] = ...) -> Any: ...


def permutation(x: Union[int, Array], size: Optional[Size] = ..., *,
                dtype: DType = ..., seed: Optional[int] = ...,
                offset: Optional[int] = ..., stream: int = ...,
                generator: Optional[AnyGenerator] = ...,
                global_shape: Optional[Size] = ...,
                origin: Optional[Size] = ...,
                out: Optional[Array] = ...) -> Any: ...


def shuffled_index(i: Union[int, Array], n: int, *, seed: int,
                   stream: int = ...) -> Any: ...


def integers(low: int, high: Optional[int] = ...,
             size: Optional[Size] = ..., *, dtype: DType = ...,
             endpoint: bool = ...,
             seed: Optional[int] = ..., offset: Optional[int] = ...,
             stream: int = ..., generator: Optional[AnyGenerator] = ...,
             alg: str = ..., name: Optional[str] = ...,
             global_shape: Optional[Size] = ..., origin: Optional[Size] = ...,
             out: Optional[Array] = ...) -> Any: ...


def exponential(scale: float = ..., size: Optional[Size] = ..., *,
                dtype: DType = ..., seed: Optional[int] = ...,
                offset: Optional[int] = ..., stream: int = ...,
                generator: Optional[AnyGenerator] = ..., alg: str = ...,
                name: Optional[str] = ...,
                global_shape: Optional[Size] = ...,
                origin: Optional[Size] = ...,
                out: Optional[Array] = ...) -> Any: ...


def gumbel(loc: float = ..., scale: float = ...,
           size: Optional[Size] = ..., *, dtype: DType = ...,
           seed: Optional[int] = ..., offset: Optional[int] = ...,
           stream: int = ..., generator: Optional[AnyGenerator] = ...,
           alg: str = ..., name: Optional[str] = ...,
           global_shape: Optional[Size] = ..., origin: Optional[Size] = ...,
           out: Optional[Array] = ...) -> Any: ...


def laplace(loc: float = ..., scale: float = ...,
            size: Optional[Size] = ..., *, dtype: DType = ...,
            seed: Optional[int] = ..., offset: Optional[int] = ...,
            stream: int = ..., generator: Optional[AnyGenerator] = ...,
            alg: str = ..., name: Optional[str] = ...,
            global_shape: Optional[Size] = ..., origin: Optional[Size] = ...,
            out: Optional[Array] = ...) -> Any: ...


def rayleigh(scale: float = ..., size: Optional[Size] = ..., *,
             dtype: DType = ..., seed: Optional[int] = ...,
             offset: Optional[int] = ..., stream: int = ...,
             generator: Optional[AnyGenerator] = ..., alg: str = ...,
             name: Optional[str] = ..., global_shape: Optional[Size] = ...,
             origin: Optional[Size] = ...,
             out: Optional[Array] = ...) -> Any: ...


def lognormal(mean: float = ..., sigma: float = ...,
              size: Optional[Size] = ..., *, dtype: DType = ...,
              seed: Optional[int] = ..., offset: Optional[int] = ...,
              stream: int = ..., generator: Optional[AnyGenerator] = ...,
              alg: str = ..., name: Optional[str] = ...,
              global_shape: Optional[Size] = ...,
              origin: Optional[Size] = ...,
              out: Optional[Array] = ...) -> Any: ...


def truncated_normal(loc: float = ..., scale: float = ..., a: float = ...,
                     b: float = ..., size: Optional[Size] = ..., *,
                     dtype: DType = ..., seed: Optional[int] = ...,
                     offset: Optional[int] = ..., stream: int = ...,
                     generator: Optional[AnyGenerator] = ...,
                     alg: str = ..., name: Optional[str] = ...,
                     global_shape: Optional[Size] = ...,
                     origin: Optional[Size] = ...,
                     out: Optional[Array] = ...) -> Any: ...


def dropout(x: Array, p: Optional[float] = ..., *,
            seed: Optional[int] = ..., offset: Optional[int] = ...,
            stream: int = ..., generator: Optional[AnyGenerator] = ...,
            mask: Optional[Literal["bit", "u8", "bool"]] = ...,
            noise_shape: Optional[Size] = ..., alg: str = ...,
            method: Method = ..., name: Optional[str] = ...,
            global_shape: Optional[Size] = ..., origin: Optional[Size] = ...,
            out: Optional[Array] = ...,
            rate: Optional[float] = ...) -> Tuple[Any, Optional[Any]]: ...


def dropout_backward(dy: Array, p: Optional[float] = ..., *,
                     mask: Optional[Array] = ..., seed: Optional[int] = ...,
                     offset: Optional[int] = ..., stream: int = ...,
                     noise_shape: Optional[Size] = ..., alg: str = ...,
                     method: Method = ..., name: Optional[str] = ...,
                     global_shape: Optional[Size] = ...,
                     origin: Optional[Size] = ...,
                     out: Optional[Array] = ...,
                     rate: Optional[float] = ...) -> Any: ...


def categorical(logits: Array, axis: int = ..., *, temperature: float = ...,
                seed: Optional[int] = ..., offset: Optional[int] = ...,
                stream: int = ..., generator: Optional[AnyGenerator] = ...,
                global_shape: Optional[Size] = ...,
                origin: Optional[Size] = ..., alg: str = ...,
                name: Optional[str] = ..., return_max: bool = ...) -> Any: ...


def categorical_combine(maxes: Array, indices: Array,
                        axis: int = ...) -> Tuple[Any, Any]: ...


def softmax_dropout(x: Array, p: float = ..., *, seed: Optional[int] = ...,
                    offset: Optional[int] = ..., stream: int = ...,
                    generator: Optional[Generator] = ..., causal: bool = ...,
                    mask: Optional[Literal["bit", "u8"]] = ...,
                    global_shape: Optional[Size] = ...,
                    origin: Optional[Size] = ..., alg: str = ...,
                    method: Method = ..., name: Optional[str] = ...,
                    out: Optional[Array] = ...
                    ) -> Tuple[Any, Any, Optional[Any]]: ...


def softmax_dropout_backward(dy: Array, x: Array, stats: Array,
                             p: float = ..., *, mask: Optional[Array] = ...,
                             seed: Optional[int] = ...,
                             offset: Optional[int] = ..., stream: int = ...,
                             causal: bool = ...,
                             global_shape: Optional[Size] = ...,
                             origin: Optional[Size] = ..., alg: str = ...,
                             method: Method = ..., name: Optional[str] = ...,
                             out: Optional[Array] = ...) -> Any: ...


def unpackbits(packed: Array, shape: Size) -> np.ndarray: ...
