"""truncated_normal: absolute bounds (torch's convention), values inside
[a, b] after rounding to every dtype, the known answers of
scripts/truncnorm_reference.py, moments against scipy.stats.truncnorm,
errors naming the bad value, and rndnn.torch.init.trunc_normal_."""
import math
import os
import sys

import numpy as np
import pytest
import torch

import rndnn
from rndnn.torch import init

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..",
                                "scripts"))


def test_names_positional_order_and_defaults():
    assert np.array_equal(
        rndnn.truncated_normal(0.5, 2.0, -1.0, 7.0, (2, 3), seed=1),
        rndnn.truncated_normal(loc=0.5, scale=2.0, a=-1.0, b=7.0,
                               size=(2, 3), seed=1))
    # torch's defaults: mean 0, std 1, a -2, b 2
    assert np.array_equal(rndnn.truncated_normal(size=9, seed=5),
                          rndnn.truncated_normal(0.0, 1.0, -2.0, 2.0,
                                                 size=9, seed=5))
    assert rndnn.truncated_normal(seed=1).shape == ()


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("loc,scale,a,b", [
    (0.0, 0.1, -0.30001, 0.30001), (0.0, 1.0, 6.0, 8.0),
    (0.0, 0.02, -2.0, 2.0), (1.0, 3.0, -8.0, -7.99)])
def test_every_value_within_the_bounds_after_rounding(dtype, loc, scale, a, b):
    x = rndnn.truncated_normal(loc, scale, a, b, size=1 << 16, seed=3,
                               dtype=dtype)
    if dtype == "bfloat16":  # NumPy holds bf16 as its uint16 bits
        x = (x.astype(np.uint32) << 16).view(np.float32)
    x = np.asarray(x, np.float64)
    # the bounds as the library takes them, f32
    assert x.min() >= np.float32(a) and x.max() <= np.float32(b)


def test_the_known_answers_of_the_independent_reference():
    import truncnorm_reference as ref
    from integers_known_answers import word
    for mean, sd, a, b, seed, stream, off, n in ref.KNOWN:
        w = [word("philox4x32_10", seed, stream, g)
             for g in range(off, off + n)]
        want = ref.values(mean, sd, a, b, w)
        got = rndnn.truncated_normal(mean, sd, a, b, size=n, seed=seed,
                                     stream=stream, offset=off,
                                     dtype=np.float32)
        assert got.tobytes() == want.tobytes()


@pytest.mark.parametrize("loc,scale,a,b", [
    (0.5, 2.0, -1.0, 7.0), (0.0, 1.0, 6.0, 8.0), (0.0, 1.0, -8.0, -7.5)])
def test_moments_match_scipy(loc, scale, a, b):
    stats = pytest.importorskip("scipy.stats")
    n = 1 << 18
    x = rndnn.truncated_normal(loc, scale, a, b, size=n, seed=21)
    d = stats.truncnorm((a - loc) / scale, (b - loc) / scale, loc=loc,
                        scale=scale)
    m, v = d.mean(), d.var()
    assert abs(x.mean() - m) < 6 * math.sqrt(v / n)
    assert abs(x.var() - v) < 6 * v * math.sqrt(3.0 / n)


@pytest.mark.parametrize("call,message", [
    (lambda: rndnn.truncated_normal(0.0, 0.0, -1.0, 1.0, size=4),
     "stddev=0"),
    (lambda: rndnn.truncated_normal(0.0, 1.0, 1.0, 1.0, size=4),
     "a=1 b=1: needs"),
    (lambda: rndnn.truncated_normal(0.0, 1.0, 9.5, 10.0, size=4),
     r"\(a - mean\) / stddev = 9.5"),
    (lambda: rndnn.truncated_normal(1.0, 1.0, 1.0002, 1.0004, size=4,
                                    dtype="f16"),
     "no finite f16 value"),
])
def test_errors_name_the_bad_value(call, message):
    with pytest.raises(rndnn.Error, match=message):
        call()


def test_trunc_normal_takes_torchs_absolute_bounds():
    # ViT's init: std 0.02, bounds +-2 (100 std): the normal, unclamped.
    w = init.trunc_normal_(torch.empty(256, 256), std=0.02, generator=
                           rndnn.Generator(4))
    assert abs(w.std().item() - 0.02) < 0.02 * 0.02
    w = init.trunc_normal_(torch.empty(64, 64, dtype=torch.bfloat16), 1.0,
                           2.0, 0.5, 1.5)
    assert w.dtype == torch.bfloat16
    assert w.min().item() >= 0.5 and w.max().item() <= 1.5
    g = torch.Generator().manual_seed(3)
    a = init.trunc_normal_(torch.empty(10), generator=g)
    g.manual_seed(3)
    assert torch.equal(init.trunc_normal_(torch.empty(10), generator=g), a)
    with pytest.raises(rndnn.Error, match="trunc_normal_"):
        init.trunc_normal_(torch.zeros(3, dtype=torch.int64))
