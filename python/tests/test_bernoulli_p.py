"""rndnn.bernoulli(p) with an array p: each element's probability, its
equality with the scalar form, broadcasting, windows, types and errors."""
import numpy as np
import pytest

import rndnn


def _words(n, seed, offset=0):
    """The engine's words of elements [offset, offset + n) (raw bits)."""
    return rndnn.bits(n, seed=seed, offset=offset).astype(np.uint64)


def test_each_element_is_its_word_below_p_times_2_32():
    rng = np.random.default_rng(3)
    p = rng.random(5000).astype(np.float32)
    p[:6] = [0, 1, 2.0**-32, 2.0**-33, 1 - 2.0**-24, 1e-45]
    out = rndnn.bernoulli(p, seed=9, offset=4)
    w = _words(5000, 9, 4)
    expect = w < np.ceil(p.astype(np.float64) * 2.0**32)
    np.testing.assert_array_equal(out, expect.astype(np.uint8))
    assert out[0] == 0 and out[1] == 1


@pytest.mark.parametrize("p", [0.0, 1.0, 2.0**-32, 0.3, 1 - 2.0**-24])
def test_constant_p_is_the_scalar_threshold32(p):
    const = np.full((4, 300), p, np.float32)
    scalar = rndnn.bernoulli(float(np.float32(p)), (4, 300), seed=5,
                             method="threshold32")
    np.testing.assert_array_equal(rndnn.bernoulli(const, seed=5), scalar)
    np.testing.assert_array_equal(
        rndnn.bernoulli(np.float32([p]), (4, 300), seed=5), scalar)
    np.testing.assert_array_equal(
        rndnn.bernoulli(const, seed=5, packed=True),
        rndnn.bernoulli(float(np.float32(p)), (4, 300), seed=5,
                        method="threshold32", packed=True))


def test_broadcast_and_window():
    rng = np.random.default_rng(1)
    p = rng.random((6, 1, 50)).astype(np.float32)
    full = np.broadcast_to(p, (6, 7, 50)).copy()
    np.testing.assert_array_equal(rndnn.bernoulli(p, (6, 7, 50), seed=2),
                                  rndnn.bernoulli(full, seed=2))
    whole = rndnn.bernoulli(full, seed=2)
    block = rndnn.bernoulli(full[1:4, 2:5, 10:40].copy(), seed=2,
                            global_shape=(6, 7, 50), origin=(1, 2, 10))
    np.testing.assert_array_equal(block, whole[1:4, 2:5, 10:40])


def test_zero_dim_p_gives_a_zero_dim_result():
    out = rndnn.bernoulli(np.array(1.0, np.float32), seed=3)
    assert out.shape == () and out == 1
    assert rndnn.bernoulli(np.array(0.0), seed=3).shape == ()


def test_float64_is_rounded_to_float32_and_bool_dtype():
    p = np.random.default_rng(0).random(1000)
    np.testing.assert_array_equal(
        rndnn.bernoulli(p, seed=1, dtype=bool),
        rndnn.bernoulli(p.astype(np.float32), seed=1).astype(bool))


def test_torch_bfloat16():
    torch = pytest.importorskip("torch")
    p = torch.rand(999).to(torch.bfloat16)
    out = rndnn.bernoulli(p, seed=4)
    assert isinstance(out, torch.Tensor) and out.dtype == torch.uint8
    expect = rndnn.bernoulli(p.float().numpy(), seed=4)
    np.testing.assert_array_equal(out.numpy(), expect)


def test_errors():
    with pytest.raises(rndnn.Error, match="element 2 is 1.5"):
        rndnn.bernoulli(np.float32([0, 0.5, 1.5, np.nan]))
    with pytest.raises(rndnn.Error, match="element 1 is nan"):
        rndnn.bernoulli([0.5, np.nan])
    with pytest.raises(rndnn.Error, match="int64"):
        rndnn.bernoulli(np.array([0, 1]))
    with pytest.raises(rndnn.Error, match="do not broadcast"):
        rndnn.bernoulli(np.zeros(3, np.float32), size=(2, 4))
    with pytest.raises(rndnn.Error, match="more dims"):
        rndnn.bernoulli(np.zeros((1, 4), np.float32), size=4)
    with pytest.raises(rndnn.Error, match="not bitsliced"):
        rndnn.bernoulli(np.zeros(4, np.float32), method="bitsliced:8")
