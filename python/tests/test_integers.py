"""rndnn.integers: NumPy's Generator.integers names and conventions (high
None, endpoint, dtype, size last), exact s64 bounds, `rndnn gen --dist
integers`'s values, windows, and moments with tolerances from the sample
size."""
import numpy as np
import pytest
import torch

import rndnn


@pytest.mark.parametrize("py,args", [
    (lambda: rndnn.integers(-5, 5, size=(3, 7), seed=2, offset=1),
     ["--low", "-5", "--high", "5", "--shape", "3x7", "--seed", "2",
      "--offset", "1"]),
    (lambda: rndnn.integers(-2**63, 2**63 - 1, 33, seed=0),
     ["--low", "-9223372036854775808", "--high", "9223372036854775807",
      "--shape", "33"]),
    (lambda: rndnn.integers(256, size=40, dtype=np.uint8, seed=3),
     ["--high", "256", "--dtype", "u8", "--shape", "40", "--seed", "3"]),
    (lambda: rndnn.integers(-2**24, 2**24, size=9, dtype="float32",
                            endpoint=True, alg="threefry4x32_20", seed=0),
     ["--low", "-16777216", "--high", "16777217", "--dtype", "f32", "--alg",
      "threefry4x32_20", "--shape", "9"]),
    (lambda: rndnn.integers(-2**31, 2**31, 10, dtype=np.int32, seed=1),
     ["--low", "-2147483648", "--high", "2147483648", "--dtype", "s32",
      "--shape", "10", "--seed", "1"]),
])
def test_equals_rndnn_gen(cli, py, args):
    want = cli("gen", "--dist", "integers", *args, "--out", "@g")("g")
    got = py()
    assert got.dtype == want.dtype and got.shape == want.shape
    assert got.tobytes() == want.tobytes()


def test_numpy_conventions():
    # high=None: [0, low); endpoint=True: [low, high]; int64 by default.
    a = rndnn.integers(6, size=1000, seed=1)
    assert a.dtype == np.int64 and a.min() == 0 and a.max() == 5
    b = rndnn.integers(0, 6, size=1000, seed=1)
    assert np.array_equal(a, b)
    c = rndnn.integers(0, 5, size=1000, seed=1, endpoint=True)
    assert np.array_equal(a, c)
    d = rndnn.integers(5, size=1000, seed=1, endpoint=True)
    assert np.array_equal(a, d)
    # One value without size, positional size last, NumPy integer bounds.
    v = rndnn.integers(3, 9, seed=4)
    assert isinstance(v, np.int64) and 3 <= v < 9
    assert np.array_equal(rndnn.integers(np.int64(3), np.uint8(9), 5, seed=4),
                          rndnn.integers(3, 9, size=5, seed=4))
    # Negative lows and ranges that take 4 words an element.
    e = rndnn.integers(-2**62, 2**62, size=10000, seed=5)
    assert e.min() >= -2**62 and e.max() < 2**62
    assert e.min() < -2**61 and e.max() > 2**61
    f = rndnn.integers(-3, -1, size=100, seed=5)
    assert set(f.tolist()) == {-3, -2}


@pytest.mark.parametrize("dtype,torch_dtype", [
    (np.int64, torch.int64), (np.int32, torch.int32),
    (np.uint8, torch.uint8), (np.float32, torch.float32)])
def test_dtypes_numpy_and_torch(dtype, torch_dtype):
    a = rndnn.integers(0, 200, size=(4, 5), dtype=dtype, seed=7)
    assert a.dtype == dtype
    t = rndnn.integers(0, 200, size=(4, 5), dtype=torch_dtype, seed=7)
    assert isinstance(t, torch.Tensor) and t.dtype == torch_dtype
    assert np.array_equal(t.numpy(), a)
    # out= of the type: written in place; int32 and int64 values agree.
    out = torch.empty((4, 5), dtype=torch_dtype)
    assert rndnn.integers(0, 200, out=out, seed=7) is out
    assert np.array_equal(out.numpy(), a)
    assert np.array_equal(a.astype(np.int64),
                          rndnn.integers(0, 200, size=(4, 5), seed=7))


def test_bad_arguments_name_the_value():
    with pytest.raises(TypeError, match="low must be an integer"):
        rndnn.integers(1.5)
    with pytest.raises(TypeError, match="high must be an integer"):
        rndnn.integers(0, "9")
    with pytest.raises(rndnn.Error, match=r"\[5, 5\) is empty"):
        rndnn.integers(5, 5)
    with pytest.raises(rndnn.Error, match=r"\[0, 0\) is empty"):
        rndnn.integers(0)
    with pytest.raises(rndnn.OutOfRangeError, match="high=9223372036854775808"):
        rndnn.integers(0, 2**63)
    with pytest.raises(rndnn.OutOfRangeError, match="endpoint=True"):
        rndnn.integers(0, 2**63 - 1, endpoint=True)
    with pytest.raises(rndnn.Error, match="up to 256, outside u8"):
        rndnn.integers(0, 257, dtype=np.uint8)
    with pytest.raises(rndnn.Error, match="down to -1, outside u8"):
        rndnn.integers(-1, 3, dtype=np.uint8)
    with pytest.raises(rndnn.Error, match="outside f32"):
        rndnn.integers(0, 2**24 + 2, dtype=np.float32)
    with pytest.raises(rndnn.Error, match="cannot write dst type f16"):
        rndnn.integers(0, 2, dtype=np.float16)
    with pytest.raises(rndnn.Error, match="mcg31m1 has 31"):
        rndnn.integers(0, 2, alg="mcg31m1")
    with pytest.raises(rndnn.Error, match="passes 2"):
        rndnn.integers(0, 2**40, size=4, seed=0, offset=2**62 - 3)
    with pytest.raises(TypeError, match="endpoint must be a bool"):
        rndnn.integers(0, 2, endpoint=1)


@pytest.mark.parametrize("low,high", [(-3, 1000), (0, 2**40)])
def test_windows_hold_the_whole_tensor(low, high):
    whole = rndnn.integers(low, high, size=(9, 13), seed=11)
    for origin, dims in [((0, 0), (9, 13)), ((2, 3), (4, 5)),
                         ((8, 12), (1, 1)), ((1, 0), (3, 13))]:
        blk = rndnn.integers(low, high, size=dims, seed=11,
                             global_shape=(9, 13), origin=origin)
        assert np.array_equal(
            blk, whole[origin[0]:origin[0] + dims[0],
                       origin[1]:origin[1] + dims[1]])


@pytest.mark.parametrize("low,high", [(0, 10), (-1000, 2**31 + 1),
                                      (-2**62, 2**62 + 12345)])
def test_moments(low, high):
    # Discrete uniform on [low, high): mean (low + high - 1) / 2, variance
    # (r^2 - 1) / 12; the sample mean within 6 standard errors, the sample
    # variance within 6 of its own (fourth central moment of the uniform:
    # about r^4 / 80).
    n = 1 << 20
    x = rndnn.integers(low, high, size=n, seed=2024).astype(np.float64)
    r = float(high - low)
    mean, var = (low + high - 1) / 2, (r * r - 1) / 12
    assert abs(x.mean() - mean) <= 6 * np.sqrt(var / n)
    mu4 = r**4 / 80
    assert abs(x.var() - var) <= 6 * np.sqrt((mu4 - var * var) / n)
    assert x.min() >= low and x.max() <= high - 1
