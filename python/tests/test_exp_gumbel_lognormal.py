"""exponential, gumbel, laplace, rayleigh and lognormal: NumPy's names and
positional order, lognormal's exponent is normal's value, laplace's
magnitude is exponential's value, rayleigh is sqrt(2 exponential(1)) *
scale, dtypes and torch output, errors naming the bad value, and moments
within 6 standard errors (fixed seeds)."""
import numpy as np
import pytest
import torch

import rndnn


def test_numpy_names_and_positional_order():
    assert np.array_equal(rndnn.exponential(2.0, (2, 3), seed=1),
                          rndnn.exponential(scale=2.0, size=(2, 3), seed=1))
    assert np.array_equal(rndnn.gumbel(1.0, 2.0, 5, seed=1),
                          rndnn.gumbel(loc=1.0, scale=2.0, size=5, seed=1))
    assert np.array_equal(rndnn.lognormal(0.5, 0.25, 5, seed=1),
                          rndnn.lognormal(mean=0.5, sigma=0.25, size=5,
                                          seed=1))
    assert np.array_equal(rndnn.laplace(1.0, 2.0, 5, seed=1),
                          rndnn.laplace(loc=1.0, scale=2.0, size=5, seed=1))
    assert np.array_equal(rndnn.rayleigh(2.0, 5, seed=1),
                          rndnn.rayleigh(scale=2.0, size=5, seed=1))
    assert rndnn.exponential(seed=1).shape == ()  # one value, as NumPy
    with pytest.raises(TypeError, match="scale, size"):
        rndnn.exponential((3, 4), 2.0)


def test_defaults_are_numpys():
    # exponential(1), gumbel(0, 1), lognormal(0, 1)
    assert np.array_equal(rndnn.exponential(size=9, seed=5),
                          rndnn.exponential(1.0, size=9, seed=5))
    assert np.array_equal(rndnn.gumbel(size=9, seed=5),
                          rndnn.gumbel(0.0, 1.0, size=9, seed=5))
    assert np.array_equal(rndnn.lognormal(size=9, seed=5),
                          rndnn.lognormal(0.0, 1.0, size=9, seed=5))
    assert np.array_equal(rndnn.laplace(size=9, seed=5),
                          rndnn.laplace(0.0, 1.0, size=9, seed=5))
    assert rndnn.laplace(size=3, seed=5).dtype == np.float64
    assert np.array_equal(rndnn.rayleigh(size=9, seed=5),
                          rndnn.rayleigh(1.0, size=9, seed=5))
    assert rndnn.rayleigh(size=3, seed=5).dtype == np.float64


@pytest.mark.parametrize("dtype", ["f64", "f32", "f16", "bf16"])
def test_laplace_is_a_signed_exponential(dtype):
    # |x| is exponential's value of the same word (f64: the same two), the
    # sign its bit 0 (f64: the element's first word's); symmetric about loc.
    n = 4099
    e = rndnn.exponential(1.5, size=n, seed=6, offset=3, dtype=dtype)
    x = rndnn.laplace(0.0, 1.5, size=n, seed=6, offset=3, dtype=dtype)
    w = rndnn.bits(2 * (n + 3), seed=6).astype(np.int64)
    bit0 = (w[6::2] if dtype == "f64" else w[3:n + 3]) & 1
    if dtype == "bf16":  # NumPy arrays of the bf16 bits
        e, x = ((v.astype(np.uint32) << 16).view(np.float32) for v in (e, x))
    assert np.array_equal(np.abs(x), e)
    assert np.array_equal(np.signbit(x), bit0 == 1)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_rayleigh_is_the_root_of_twice_an_exponential(dtype):
    # sqrt(e * 2) * scale in the dtype, e exponential(1)'s value of the
    # same word (float64: the same two).
    n = 4099
    e = rndnn.exponential(1.0, size=n, seed=6, offset=3, dtype=dtype)
    x = rndnn.rayleigh(0.3, size=n, seed=6, offset=3, dtype=dtype)
    assert np.array_equal(x, np.sqrt(e * dtype(2)) * dtype(0.3))


@pytest.mark.parametrize("offset", [0, 1, 1001])
def test_lognormal_exponent_is_normals_value(offset):
    t = rndnn.normal(-0.5, 2.0, size=4097, seed=8, offset=offset,
                     stream=3).astype(np.float64)
    x = rndnn.lognormal(-0.5, 2.0, size=4097, seed=8, offset=offset,
                        stream=3).astype(np.float64)
    # exp within 1.2 ulp of f32 (docs/semantics.md): relative 1.5e-7.
    assert np.all(np.abs(x - np.exp(t)) <= 1.5e-7 * np.exp(t))


def test_dtypes_and_torch():
    for dt in ("float32", "float16", "bfloat16"):
        a = rndnn.gumbel(size=64, seed=2, dtype=dt)
        assert a.shape == (64,)
    t = rndnn.exponential(size=(4, 4), seed=2, dtype=torch.bfloat16)
    assert isinstance(t, torch.Tensor) and t.dtype == torch.bfloat16
    assert torch.all(t >= 0)
    out = np.empty(10, np.float32)
    assert rndnn.lognormal(seed=4, out=out) is out
    assert out.tobytes() == rndnn.lognormal(size=10, seed=4,
                                            dtype="f32").tobytes()


@pytest.mark.parametrize("call,message", [
    (lambda: rndnn.exponential(-1.0, size=4), "exponential scale=-1"),
    (lambda: rndnn.exponential(4000.0, size=4, dtype="f16"), "f16 cannot"),
    (lambda: rndnn.gumbel(0.0, float("nan"), size=4), "scale=nan"),
    (lambda: rndnn.gumbel(0.0, 3e37, size=4, dtype="f32"), "f32 cannot hold"),
    (lambda: rndnn.lognormal(0.0, -2.0, size=4), "sigma=-2"),
    (lambda: rndnn.lognormal(6.0, 1.0, size=4, dtype="f16"), "f16 cannot"),
    (lambda: rndnn.gumbel(size=4, dtype="u8"), "cannot write dst type u8"),
    (lambda: rndnn.laplace(0.0, -1.0, size=4), "laplace loc=0 scale=-1"),
    (lambda: rndnn.laplace(float("inf"), 1.0, size=4), "loc=inf"),
    (lambda: rndnn.laplace(-6e4, 1e3, size=4, dtype="f16"), "f16 cannot"),
    (lambda: rndnn.rayleigh(-1.0, size=4), "rayleigh scale=-1"),
    (lambda: rndnn.rayleigh(float("nan"), size=4), "scale=nan"),
    (lambda: rndnn.rayleigh(12000.0, size=4, dtype="f16"), "f16 cannot"),
])
def test_bad_parameters_name_the_value(call, message):
    with pytest.raises(rndnn.Error, match=message):
        call()


def test_moments():
    n = 1 << 20
    z = 6.0
    euler = 0.5772156649015329

    def check(x, mean, var, kurtosis):
        x = x.astype(np.float64)
        assert abs(x.mean() - mean) <= z * np.sqrt(var / n)
        assert abs(x.var() - var) <= z * var * np.sqrt((kurtosis - 1) / n)

    check(rndnn.exponential(2.0, size=n, seed=21), 2.0, 4.0, 9.0)
    check(rndnn.gumbel(1.0, 2.0, size=n, seed=22), 1.0 + 2.0 * euler,
          np.pi ** 2 / 6 * 4.0, 5.4)
    check(rndnn.laplace(-1.0, 2.0, size=n, seed=24), -1.0, 8.0, 6.0)
    check(rndnn.rayleigh(2.0, size=n, seed=25), 2.0 * np.sqrt(np.pi / 2),
          (4 - np.pi) / 2 * 4.0, 3.245)
    w = np.exp(0.25)  # sigma = 0.5
    check(rndnn.lognormal(0.0, 0.5, size=n, seed=23), np.exp(0.125),
          (w - 1) * w, w ** 4 + 2 * w ** 3 + 3 * w ** 2 - 3)
