# Stubs of rndnn._rndnn, the pybind11 core (python/module.cpp). The
# package's functions wrap generate() and dropout(); use those.
from typing import List, Optional, Sequence, Tuple, Union

import numpy as np

__version__: str


class Error(ValueError): ...


class OutOfRangeError(Error, OverflowError): ...


class Generator:
    def __new__(cls, seed: int = ..., offset: int = ...) -> "Generator": ...
    def __init__(self, seed: int = ..., offset: int = ...) -> None: ...
    @property
    def seed(self) -> int: ...
    @property
    def offset(self) -> int: ...
    def reserve(self, count: int) -> int: ...
    # A new generator at offset 0 keyed by (seed, key), not by the offset:
    # key an int in [0, 2^64) or a str (its UTF-8 bytes).
    def fold_in(self, key: Union[int, str]) -> "Generator": ...
    # n children at offset 0; the offset moves on by n.
    def spawn(self, n: int) -> List["Generator"]: ...
    def save(self) -> bytes: ...
    @staticmethod
    def load(state: bytes) -> "Generator": ...
    def __getstate__(self) -> bytes: ...
    def __setstate__(self, state: bytes) -> None: ...
    def __eq__(self, other: object) -> bool: ...


# With a generator, seed and offset are not read: the generator gives
# them, reserving the call's elements once its arguments are checked.
def generate(out: np.ndarray, shape: Sequence[int], dtype: str, dist: str,
             params: Sequence[float], method: str, bits: int, alg: str,
             name: str, stream: int, seed: int, offset: int,
             generator: Optional[Generator],
             int_params: Sequence[int] = ...) -> None: ...


# Returns the (seed, offset) used.
def dropout(src: np.ndarray, dst: np.ndarray, mask: Optional[np.ndarray],
            shape: Sequence[int], dtype: str, noise_shape: Sequence[int],
            mask_dtype: str, rate: float, backward: bool, method: str,
            bits: int, alg: str, name: str, stream: int, seed: int,
            offset: int, generator: Optional[Generator]) -> Tuple[int, int]: ...


# Returns the (seed, offset) used; global_shape and origin empty: no window.
def softmax_dropout(src: np.ndarray, dst: np.ndarray, stats: np.ndarray,
                    scores: Optional[np.ndarray], mask: Optional[np.ndarray],
                    shape: Sequence[int], dtype: str, mask_dtype: str,
                    backward: bool, rate: float, causal: bool,
                    method: str, bits: int, alg: str, name: str, stream: int,
                    seed: int, offset: int, generator: Optional[Generator],
                    global_shape: Sequence[int],
                    origin: Sequence[int]) -> Tuple[int, int]: ...


def categorical(src: np.ndarray, idx: np.ndarray, max: Optional[np.ndarray],
                shape: Sequence[int], dtype: str, temperature: float,
                alg: str, name: str, stream: int, seed: int, offset: int,
                generator: Optional[Generator], global_shape: Sequence[int],
                origin: Sequence[int]) -> Tuple[int, int]: ...


def categorical_combine(max: np.ndarray, idx: np.ndarray, shards: int,
                        rows: int, out_max: np.ndarray,
                        out_idx: np.ndarray) -> None: ...


def advise_huge_pages(address: int, nbytes: int) -> int: ...
