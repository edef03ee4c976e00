"""float64 output (docs/python.md, docs/semantics.md "f64"): NumPy's default
dtype for uniform, normal, exponential, gumbel, laplace, rayleigh and
lognormal, 53 random bits a value (2 words an element), compared with
NumPy's Generator."""
import numpy as np
import pytest
import torch

import rndnn
from rndnn.torch import init

CONTINUOUS = (rndnn.uniform, rndnn.normal, rndnn.exponential, rndnn.gumbel,
              rndnn.laplace, rndnn.rayleigh, rndnn.lognormal)


@pytest.mark.parametrize("fn", CONTINUOUS)
def test_default_is_numpys_float64(fn):
    a = fn(size=(3, 5), seed=1)
    assert a.dtype == np.float64 and a.shape == (3, 5)
    assert isinstance(fn(seed=1), np.float64)
    # float64 by any name; float32 still on request.
    for dt in ("f64", "float64", "double", np.float64):
        assert fn(size=(3, 5), seed=1, dtype=dt).tobytes() == a.tobytes()
    assert fn(size=4, seed=1, dtype="f32").dtype == np.float32


def test_uniform_is_53_bits_from_two_words():
    # Element g: X = W(2g) + W(2g + 1) 2^32, u = (X >> 11) 2^-53.
    n = 1001
    w = rndnn.bits(2 * (n + 7), seed=5, stream=2).astype(np.uint64)
    x = (w[0::2] | (w[1::2] << np.uint64(32))) >> np.uint64(11)
    want = x.astype(np.float64) * 2.0 ** -53
    got = rndnn.uniform(size=n, seed=5, stream=2, offset=7)
    np.testing.assert_array_equal(got, want[7:])
    # Values NumPy's random() gives: 53 bits, on the 2^-53 grid.
    assert np.all(got * 2.0 ** 53 == np.floor(got * 2.0 ** 53))
    assert len(np.unique(got)) == n


@pytest.mark.parametrize("ours,numpys", [
    (lambda n: rndnn.uniform(size=n, seed=2024),
     lambda g, n: g.random(n)),
    (lambda n: rndnn.normal(size=n, seed=2024),
     lambda g, n: g.standard_normal(n)),
    (lambda n: rndnn.exponential(2.0, size=n, seed=2024),
     lambda g, n: g.exponential(2.0, n)),
    (lambda n: rndnn.gumbel(1.0, 0.5, size=n, seed=2024),
     lambda g, n: g.gumbel(1.0, 0.5, n)),
    (lambda n: rndnn.lognormal(0.25, 0.5, size=n, seed=2024),
     lambda g, n: g.lognormal(0.25, 0.5, n)),
    (lambda n: rndnn.laplace(-1.0, 2.0, size=n, seed=2024),
     lambda g, n: g.laplace(-1.0, 2.0, n)),
    (lambda n: rndnn.rayleigh(1.5, size=n, seed=2024),
     lambda g, n: g.rayleigh(1.5, n)),
])
def test_moments_match_numpys_generator(ours, numpys):
    n = 1 << 20
    a = ours(n)
    b = numpys(np.random.default_rng(7), n)
    assert a.dtype == b.dtype == np.float64
    for k in (1, 2, 3):
        ma, mb = np.mean(a ** k), np.mean(b ** k)
        # Both estimate the same moment: within 6 standard errors of each
        # other (the k-th power's spread from NumPy's sample).
        se = np.sqrt(2 * np.var(b ** k) / n)
        assert abs(ma - mb) < 6 * se, (k, ma, mb)


def test_torch_float64_and_the_torch_default():
    t = rndnn.normal(size=(4, 4), seed=3, dtype=torch.float64)
    assert isinstance(t, torch.Tensor) and t.dtype == torch.float64
    np.testing.assert_array_equal(t.numpy(), rndnn.normal(size=(4, 4), seed=3))
    out = torch.empty(6, dtype=torch.float64)
    assert rndnn.uniform(seed=3, out=out) is out
    np.testing.assert_array_equal(out.numpy(), rndnn.uniform(size=6, seed=3))
    # torch output follows the tensor it writes (torch's default dtype).
    out32 = torch.empty(6, dtype=torch.get_default_dtype())
    rndnn.uniform(seed=3, out=out32)
    assert out32.dtype == torch.float32


def test_windows_and_threads_keep_f64_values():
    whole = rndnn.normal(size=(6, 1001), seed=9)
    part = rndnn.normal(size=(2, 501), seed=9, global_shape=(6, 1001),
                        origin=(3, 499))
    np.testing.assert_array_equal(part, whole[3:5, 499:1000])


@pytest.mark.parametrize("call,match", [
    (lambda: rndnn.dropout(np.ones(8), 0.5, seed=1),
     "dropout takes f32, bf16 or f16 data, not float64"),
    (lambda: rndnn.categorical(np.zeros((2, 8)), seed=1), "float64"),
])
def test_f64_where_not_supported_is_refused(call, match):
    with pytest.raises(rndnn.Error, match=match):
        call()


def test_float64_takes_the_parameters_as_given():
    # uniform(0.1, 0.3): fma(u53 2^-53, 0.3 - 0.1, 0.1) of Python's floats
    # (rounded once: exact through fractions), not of their float32s.
    from fractions import Fraction
    n = 257
    w = rndnn.bits(2 * (n + 7), seed=5, stream=2).astype(np.uint64)
    x = (w[0::2] | (w[1::2] << np.uint64(32))) >> np.uint64(11)
    want = [float(Fraction(int(k)) / 2 ** 53 * Fraction(0.3 - 0.1)
                  + Fraction(0.1)) for k in x[7:]]
    got = rndnn.uniform(0.1, 0.3, size=n, seed=5, stream=2, offset=7)
    assert got.dtype == np.float64
    np.testing.assert_array_equal(got, np.array(want))
    # float32 rounds them to float32 first: the values of float32 arguments.
    for fn, args in ((rndnn.uniform, (0.1, 0.3)), (rndnn.normal, (0.1, 0.7)),
                     (rndnn.exponential, (0.3,)), (rndnn.gumbel, (0.1, 0.3)),
                     (rndnn.lognormal, (0.1, 0.3))):
        f32 = [np.float32(a) for a in args]
        assert (fn(*args, size=64, seed=3, dtype="f32").tobytes()
                == fn(*f32, size=64, seed=3, dtype="f32").tobytes())
        assert (fn(*args, size=64, seed=3).tobytes()
                != fn(*f32, size=64, seed=3).tobytes())


def test_a_parameter_past_float32_is_float64s_alone():
    got = rndnn.uniform(1e39, 2e39, size=16, seed=1)
    assert np.all((got >= 1e39) & (got < 2e39))
    with pytest.raises(rndnn.Error, match=r"uniform a=1e\+39 is not a finite "
                                          "f32"):
        rndnn.uniform(1e39, 2e39, size=16, seed=1, dtype=np.float32)


def test_truncated_normal_is_float64_by_default_and_in_bounds():
    x = rndnn.truncated_normal(0.0, 1.0, 6.0, 8.0, size=4096, seed=2)
    assert x.dtype == np.float64
    assert x.min() >= 6.0 and x.max() <= 8.0
    # 52 bits a value: the f32 form has no more than 2^24 values.
    assert len(np.unique(x)) == x.size
    t = torch.empty(8, dtype=torch.float64)
    init.trunc_normal_(t, 0.5, 2.0, -1.0, 7.0, generator=rndnn.Generator(4, 0))
    np.testing.assert_array_equal(
        t.numpy(), rndnn.truncated_normal(0.5, 2.0, -1.0, 7.0, size=8,
                                          seed=4, offset=0))
