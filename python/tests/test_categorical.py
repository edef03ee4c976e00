"""rndnn.categorical and rndnn.categorical_combine (docs/python.md,
"Categorical sampling") against the definition: rndnn.gumbel(0, 1)
materialised, then argmax(logits / T + G) in float32."""
import numpy as np
import pytest
import scipy.stats

import rndnn

SEED, OFFSET, STREAM = 21, 300, 4


def expected(x, temperature, seed=SEED, offset=OFFSET, stream=STREAM):
    g = rndnn.gumbel(0.0, 1.0, size=x.shape, seed=seed, offset=offset,
                     stream=stream, dtype="f32")
    s = x / np.float32(temperature) + g
    return np.argmax(s, axis=-1), s.max(axis=-1)


def bf16(x):
    """x (float32) rounded to bf16: (its bits as uint16, its values)."""
    u = x.view(np.uint32)
    b = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    return b, (b.astype(np.uint32) << 16).view(np.float32)


@pytest.mark.parametrize("temperature", [1.0, 0.6, 3.0])
def test_equals_materialised_gumbel_argmax(temperature):
    x = np.random.default_rng(1).normal(0, 3, (20, 5000)).astype(np.float32)
    want, wmax = expected(x, temperature)
    got, gmax = rndnn.categorical(x, temperature=temperature, seed=SEED,
                                  offset=OFFSET, stream=STREAM,
                                  return_max=True)
    assert got.dtype == np.int64 and got.shape == (20,)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(gmax, wmax)
    bits, values = bf16(x)
    want, _ = expected(values, temperature)
    np.testing.assert_array_equal(
        rndnn.categorical(bits, temperature=temperature, seed=SEED,
                          offset=OFFSET, stream=STREAM), want)


def test_torch_in_torch_out_and_bf16():
    torch = pytest.importorskip("torch")
    x = torch.randn(3, 4, 700) * 2
    want, _ = expected(x.numpy(), 1.0)
    got = rndnn.categorical(x, seed=SEED, offset=OFFSET, stream=STREAM)
    assert isinstance(got, torch.Tensor) and got.dtype == torch.int64
    np.testing.assert_array_equal(got.numpy(), want)
    xb = x.to(torch.bfloat16)
    want, _ = expected(xb.float().numpy(), 1.0)
    got, mx = rndnn.categorical(xb, seed=SEED, offset=OFFSET, stream=STREAM,
                                return_max=True)
    np.testing.assert_array_equal(got.numpy(), want)
    idx, m = rndnn.categorical_combine(torch.stack([mx, mx]),
                                       torch.stack([got, got + 1]))
    assert isinstance(idx, torch.Tensor) and torch.equal(idx, got)
    assert torch.equal(m, mx)


def test_axis_is_moved_last():
    x = np.random.default_rng(2).normal(0, 1, (6, 300, 5)).astype(np.float32)
    last = rndnn.categorical(np.ascontiguousarray(np.moveaxis(x, 1, -1)),
                             seed=SEED)
    np.testing.assert_array_equal(rndnn.categorical(x, axis=1, seed=SEED),
                                  last)
    np.testing.assert_array_equal(rndnn.categorical(x, axis=-2, seed=SEED),
                                  last)
    # A shard along that axis: global_shape and origin in x's own order.
    parts = [rndnn.categorical(x[:, a:a + 100].copy(), axis=1, seed=SEED,
                               global_shape=x.shape, origin=(0, a, 0),
                               return_max=True) for a in (0, 100, 200)]
    idx, _ = rndnn.categorical_combine(np.stack([m for _, m in parts]),
                                       np.stack([i for i, _ in parts]))
    np.testing.assert_array_equal(idx, last)


def test_shards_combine_to_the_unsharded_draw():
    rng = np.random.default_rng(3)
    x = rng.normal(0, 2, (5, 6000)).astype(np.float32)
    whole, wmax = rndnn.categorical(x, seed=SEED, offset=OFFSET,
                                    temperature=0.8, return_max=True)
    for trial in range(5):
        cuts = [0, *sorted(rng.choice(np.arange(1, 6000), 1 + trial,
                                      replace=False)), 6000]
        parts = [rndnn.categorical(x[:, a:b].copy(), seed=SEED,
                                   offset=OFFSET, temperature=0.8,
                                   global_shape=x.shape, origin=(0, a),
                                   return_max=True)
                 for a, b in zip(cuts, cuts[1:])]
        idx, mx = rndnn.categorical_combine(
            np.stack([m for _, m in parts]), np.stack([i for i, _ in parts]))
        np.testing.assert_array_equal(idx, whole)
        np.testing.assert_array_equal(mx, wmax)


def test_generator_reserves_the_global_count():
    g = rndnn.Generator(7)
    x = np.zeros((3, 10), np.float32)
    rndnn.categorical(x[:, :4].copy(), generator=g, global_shape=(3, 10),
                      origin=(0, 0))
    assert g.offset == 30
    first = rndnn.categorical(x, generator=rndnn.Generator(7))
    np.testing.assert_array_equal(first, rndnn.categorical(x, seed=7))


def test_frequencies_follow_softmax():
    logits = np.array([1.0, 0.0, -1.0, 2.0, 0.5, -3.0], np.float32)
    n = 1 << 17
    x = np.broadcast_to(logits, (n, 6)).copy()
    for t in (0.5, 2.0):
        counts = np.bincount(rndnn.categorical(x, temperature=t, seed=5),
                             minlength=6)
        w = logits.astype(np.float64)
        p = np.exp(w / t) / np.exp(w / t).sum()
        assert scipy.stats.chisquare(counts, n * p).pvalue > 1e-6
        q = np.exp(w) / np.exp(w).sum()
        assert scipy.stats.chisquare(counts, n * q).pvalue < 1e-6


def test_errors_name_the_bad_value():
    x = np.zeros((2, 5), np.float32)
    for t in (0.0, -1.0, float("nan"), float("inf")):
        with pytest.raises(rndnn.Error, match="temperature"):
            rndnn.categorical(x, temperature=t, seed=1)
    with pytest.raises(rndnn.Error, match="axis 2"):
        rndnn.categorical(x, axis=2, seed=1)
    with pytest.raises(rndnn.Error, match="f32 or bf16"):
        rndnn.categorical(x.astype(np.float64), seed=1)
    with pytest.raises(rndnn.Error, match="scalar"):
        rndnn.categorical(np.zeros((), np.float32), seed=1)
    with pytest.raises(rndnn.Error, match="do not fit"):
        rndnn.categorical(x, seed=1, global_shape=(2, 7), origin=(0, 3))
    with pytest.raises(rndnn.Error, match="differ"):
        rndnn.categorical_combine(np.zeros((2, 3), np.float32),
                                  np.zeros((2, 4), np.int64))
    with pytest.raises(rndnn.Error, match="int64"):
        rndnn.categorical_combine(np.zeros((2, 3), np.float32),
                                  np.zeros((2, 3), np.int32))
