"""The lean path (python/fast_path.cpp) against the full one (_arrays.py):
the same values, the same generator states and the same errors, and the
common calls do take it."""
import numpy as np
import pytest

import rndnn
from rndnn import _arrays, _rndnn


@pytest.fixture
def full_path():
    """Runs the block with the lean path off."""
    class Switch:
        def __enter__(self):
            _arrays._lean = False

        def __exit__(self, *exc):
            _arrays._lean = True
    return Switch()


# (function, positional parameters) of every distribution.
DISTS = [
    (rndnn.uniform, (-1.0, 3)),
    (rndnn.normal, (0.5, 2.0)),
    (rndnn.exponential, (1.5,)),
    (rndnn.gumbel, (0.0, 1.0)),
    (rndnn.laplace, (1, 2)),
    (rndnn.rayleigh, (3.0,)),
    (rndnn.lognormal, (0.0, 0.5)),
    (rndnn.truncated_normal, (0.0, 1.0, -1.0, 2.0)),
]
SIZES = [None, 0, 1, 16, 1000, (3, 5), (2, 0, 4)]
FLOATS = [None, np.float32, np.float64, "float16", "bfloat16", "f32",
          np.dtype(np.float16)]


def both(call, full_path):
    """(lean result, full result) of call(generator), each from a fresh
    Generator(7, 3), with the generators after."""
    g1, g2 = rndnn.Generator(7, 3), rndnn.Generator(7, 3)
    lean = call(g1)
    with full_path:
        full = call(g2)
    return lean, full, g1, g2


def same(a, b):
    if isinstance(a, tuple):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            same(x, y)
        return
    if a is None:
        assert b is None
        return
    assert type(a) is type(b)
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape
    assert a.tobytes() == b.tobytes()


@pytest.mark.parametrize("fn,params", DISTS, ids=lambda v: getattr(
    v, "__name__", ""))
@pytest.mark.parametrize("size", SIZES, ids=str)
@pytest.mark.parametrize("dtype", FLOATS, ids=str)
def test_distributions_equal_the_full_path(fn, params, size, dtype,
                                           full_path):
    lean, full, g1, g2 = both(
        lambda g: fn(*params, size, dtype=dtype, generator=g), full_path)
    same(lean, full)
    assert g1 == g2


@pytest.mark.parametrize("kwargs", [
    dict(seed=5), dict(seed=-3, offset=100), dict(seed=5, stream=9),
    dict(seed=5, alg="threefry4x32_20"), dict(seed=5, alg="mt19937"),
    dict(seed=2**63 - 1, offset=2**62)], ids=str)
def test_seeds_streams_and_engines(kwargs, full_path):
    lean = rndnn.normal(size=(4, 33), dtype=np.float32, **kwargs)
    with full_path:
        full = rndnn.normal(size=(4, 33), dtype=np.float32, **kwargs)
    same(lean, full)


@pytest.mark.parametrize("call", [
    lambda g: rndnn.bits(100, generator=g),
    lambda g: rndnn.bits((3, 4), dtype=np.int32, generator=g),
    lambda g: rndnn.bernoulli(0.3, 100, generator=g),
    lambda g: rndnn.bernoulli(0.3, 100, dtype=bool, generator=g),
    lambda g: rndnn.bernoulli(0.3, 100, dtype=np.bool_, generator=g),
    lambda g: rndnn.integers(7, size=9, dtype=int, generator=g),
    lambda g: rndnn.normal(size=9, dtype=float, generator=g),
    lambda g: rndnn.bernoulli(0.3, 100, dtype="bit", generator=g),
    lambda g: rndnn.bernoulli(0.3, 99, dtype=np.float32, generator=g),
    lambda g: rndnn.bernoulli(1, 10, generator=g),
    lambda g: rndnn.integers(10, size=50, generator=g),
    lambda g: rndnn.integers(-5, 5, size=(2, 9), dtype=np.int32,
                             generator=g),
    lambda g: rndnn.integers(0, 2**40, size=7, endpoint=True, generator=g),
    lambda g: rndnn.integers(3, generator=g),
])
def test_other_functions(call, full_path):
    lean, full, g1, g2 = both(call, full_path)
    same(lean, full)
    assert g1 == g2


def test_the_default_generator_moves_alike(full_path):
    rndnn.manual_seed(11)
    lean = rndnn.uniform(size=40, dtype=np.float32)
    after = rndnn.default_generator.offset
    rndnn.manual_seed(11)
    with full_path:
        full = rndnn.uniform(size=40, dtype=np.float32)
    same(lean, full)
    assert rndnn.default_generator.offset == after == 40


def test_common_calls_take_the_lean_path():
    # Were every call to fall back, the other tests would pass unseen.
    spec = ("normal", "f64", ())
    for dtype in (None, np.float32, "float16", np.dtype(np.float64), float):
        for size in (None, 16, (2, 3)):
            r = _rndnn._sample(spec, (0.0, 1.0), size, dtype, None, None, 0,
                               None, "philox4x32_10")
            assert r is not NotImplemented
    for dtype in (None, int, np.int32):
        r = _rndnn._sample(("integers", "s64", (0, 10)), (), 8, dtype, 1,
                           None, 0, None, "philox4x32_10")
        assert r is not NotImplemented
    for dtype in (None, bool, np.bool_, "bool"):
        r = _rndnn._sample(("bernoulli", "u8", ()), (0.5,), 8, dtype, 1,
                           None, 0, None, "philox4x32_10")
        assert r is not NotImplemented
    x = np.ones(64, np.float32)
    for mask in ("bit", "u8", "bool", None):
        r = _rndnn._dropout(x, 0.25, mask, None, None, None, 0, False)
        assert r is not NotImplemented


@pytest.mark.parametrize("call", [
    lambda: rndnn.normal(0.0, -1.0, 4),
    lambda: rndnn.normal(0.0, float("nan"), 4),
    lambda: rndnn.uniform(2.0, 1.0, 4),
    lambda: rndnn.uniform(size=-1),
    lambda: rndnn.uniform(size=2.5),
    lambda: rndnn.uniform(size=[3, "a"]),
    lambda: rndnn.uniform(size=4, dtype="float8"),
    lambda: rndnn.uniform(size=4, dtype=np.int32),
    lambda: rndnn.uniform(size=4, dtype=bool),
    lambda: rndnn.uniform(size=4, seed=1.5),
    lambda: rndnn.uniform(size=4, seed=2**63),
    lambda: rndnn.uniform(size=4, offset=3),
    lambda: rndnn.uniform(size=4, stream=-1),
    lambda: rndnn.uniform(size=4, alg="philox"),
    lambda: rndnn.uniform(size=4, generator=3),
    lambda: rndnn.uniform("0", 1.0, 4),
    lambda: rndnn.bits(4, dtype=np.float32),
    lambda: rndnn.bernoulli(1.5, 4),
    lambda: rndnn.integers(5, 5, 3),
    lambda: rndnn.normal(size=2**62),
    lambda: rndnn.normal(size=(2**40, 2**40)),
])
def test_errors_equal_the_full_path(call, full_path):
    # The lean path raises nothing itself: the full one names the value.
    before = rndnn.default_generator.save()
    with pytest.raises(Exception) as lean:
        call()
    with full_path:
        with pytest.raises(Exception) as full:
            call()
    assert type(lean.value) is type(full.value)
    assert str(lean.value) == str(full.value)
    assert rndnn.default_generator.save() == before


def test_a_reservation_past_the_end_is_the_full_paths_error(full_path):
    g = rndnn.Generator(1, 2**63 - 10)
    with pytest.raises(rndnn.Error) as lean:
        rndnn.uniform(size=11, generator=g)
    assert g.offset == 2**63 - 10
    with full_path:
        with pytest.raises(rndnn.Error) as full:
            rndnn.uniform(size=11, generator=g)
    assert str(lean.value) == str(full.value)


DROPOUT_DATA = [np.float32, np.float16, np.uint16]


@pytest.mark.parametrize("dtype", DROPOUT_DATA, ids=str)
@pytest.mark.parametrize("mask", ["bit", "u8", "bool", None], ids=str)
@pytest.mark.parametrize("shape", [(1,), (13,), (4, 1000)], ids=str)
@pytest.mark.parametrize("p", [0.0, 0.1, 0.5, 1.0, None], ids=str)
def test_dropout_equals_the_full_path(dtype, mask, shape, p, full_path):
    x = (np.arange(np.prod(shape)).reshape(shape) % 251 + 1).astype(dtype)
    lean, full, g1, g2 = both(
        lambda g: rndnn.dropout(x, p, mask=mask, generator=g), full_path)
    same(lean, full)
    assert g1 == g2


def test_dropout_in_place_and_seeds(full_path):
    x = np.linspace(1, 2, 777, dtype=np.float32)
    a, b = x.copy(), x.copy()
    ya, ma = rndnn.dropout(a, 0.3, seed=4, offset=9, stream=2, out=a)
    with full_path:
        yb, mb = rndnn.dropout(b, 0.3, seed=4, offset=9, stream=2, out=b)
    assert ya is a and yb is b
    same((ya, ma), (yb, mb))


@pytest.mark.parametrize("call", [
    lambda x: rndnn.dropout(x, 1.5),
    lambda x: rndnn.dropout(x, 0.5, mask="bits"),
    lambda x: rndnn.dropout(x.astype(np.float64), 0.5),
    lambda x: rndnn.dropout(x[::2], 0.5),
    lambda x: rndnn.dropout(x, 0.5, seed=1.0),
    lambda x: rndnn.dropout(x, 0.5, stream=-2),
    lambda x: rndnn.dropout(np.frombuffer(x.tobytes(), np.float32), 0.5,
                            out=np.frombuffer(x.tobytes(), np.float32)),
    lambda x: rndnn.dropout(x, 0.5, out=x[:4]),
])
def test_dropout_errors_equal_the_full_path(call, full_path):
    x = np.ones(64, np.float32)
    before = rndnn.default_generator.save()
    outcome = []
    for lean in (True, False):
        _arrays._lean = lean
        try:
            try:
                r = call(x)
                outcome.append(("ok", [np.asarray(v).tobytes() for v in r
                                       if v is not None]))
            except Exception as e:  # noqa: BLE001 - compared below
                outcome.append((type(e), str(e)))
        finally:
            _arrays._lean = True
    assert outcome[0] == outcome[1]
    if outcome[0][0] != "ok":
        assert rndnn.default_generator.save() == before
