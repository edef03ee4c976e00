"""Windows (global_shape=, origin=): a block drawn alone holds the values
of the same block of the whole tensor, for every function, dtype, mask
kind and method, over random partitions into rows, columns and tiles."""
import itertools

import numpy as np
import pytest
import torch

import rndnn


def partition(shape, rng, cut):
    """The blocks (origin, dims) of @shape cut along the dims in @cut at
    random places (a dim of @cut may get empty blocks)."""
    ranges = []
    for k, n in enumerate(shape):
        if k in cut:
            points = sorted(rng.integers(0, n + 1, size=rng.integers(1, 4)))
            edges = [0, *points, n]
        else:
            edges = [0, n]
        ranges.append(list(zip(edges[:-1], edges[1:])))
    for box in itertools.product(*ranges):
        yield tuple(a for a, _ in box), tuple(b - a for a, b in box)


def block(whole, origin, dims):
    return whole[tuple(slice(o, o + d) for o, d in zip(origin, dims))]


# Rows, columns and tiles of a 2-D tensor, and a 3-D one cut in all dims.
CASES = [((23, 37), {0}), ((23, 37), {1}), ((23, 37), {0, 1}),
         ((5, 6, 19), {0, 1, 2})]


@pytest.mark.parametrize("shape,cut", CASES)
@pytest.mark.parametrize("fn,kwargs", [
    (rndnn.bits, {}),
    (rndnn.bits, {"dtype": "int32", "alg": "threefry4x32_20"}),
    (rndnn.bernoulli, {"p": 0.3}),
    (rndnn.bernoulli, {"p": 0.3, "dtype": bool, "method": "threshold32"}),
    (rndnn.bernoulli, {"p": 0.7, "dtype": "float32", "method": "bitsliced:3"}),
    (rndnn.bernoulli, {"p": 0.7, "dtype": "int32", "method": "bytewise"}),
    (rndnn.bernoulli, {"p": 0.2, "alg": "mt19937"}),
    (rndnn.bernoulli, {"p": 0.2, "alg": "mcg31m1"}),
    (rndnn.uniform, {"low": -1.0, "high": 2.0}),
    (rndnn.uniform, {"dtype": "float16", "stream": 3}),
    (rndnn.normal, {"loc": 1.0, "scale": 2.0}),
    (rndnn.normal, {"dtype": "bfloat16"}),
    (rndnn.normal, {"dtype": "float16", "alg": "multfly", "name": "w"}),
    (rndnn.exponential, {"scale": 2.0}),
    (rndnn.gumbel, {"loc": -1.0, "scale": 0.5, "dtype": "bfloat16"}),
    (rndnn.laplace, {"loc": 1.0, "scale": 2.0}),
    (rndnn.rayleigh, {"scale": 0.5, "dtype": "float16"}),
    (rndnn.lognormal, {"mean": 0.5, "sigma": 1.5, "alg": "mcg31m1"}),
    (rndnn.truncated_normal, {"loc": 0.5, "scale": 2.0, "a": -1.0, "b": 7.0,
                              "dtype": "float16"}),
])
def test_a_block_equals_the_block_of_the_whole(fn, kwargs, shape, cut):
    rng = np.random.default_rng(hash((fn.__name__, shape)) % 2**32)
    whole = fn(size=shape, seed=9, offset=5, **kwargs)
    for origin, dims in partition(shape, rng, cut):
        got = fn(size=dims, seed=9, offset=5, global_shape=shape,
                 origin=origin, **kwargs)
        assert got.shape == dims
        assert got.tobytes() == block(whole, origin, dims).tobytes(), (
            origin, dims)


@pytest.mark.parametrize("shape,cut", CASES)
def test_packed_bits_of_a_block(shape, cut):
    rng = np.random.default_rng(3)
    whole = rndnn.bernoulli(0.6, shape, seed=2)
    for origin, dims in partition(shape, rng, cut):
        got = rndnn.bernoulli(0.6, dims, packed=True, seed=2,
                              global_shape=shape, origin=origin)
        assert np.array_equal(rndnn.unpackbits(got, dims),
                              block(whole, origin, dims))


def test_torch_outputs_and_out():
    whole = rndnn.normal(size=(8, 12), seed=4, dtype=torch.float32)
    got = torch.empty(8, 5)
    assert rndnn.normal(seed=4, out=got, global_shape=(8, 12),
                        origin=(0, 7)) is got
    assert torch.equal(got, whole[:, 7:])


def test_a_generator_moves_on_by_the_global_count():
    # Each rank's copy of one generator stays the same.
    g0, g1 = rndnn.Generator(7), rndnn.Generator(7)
    a = rndnn.uniform(size=(3, 10), generator=g0, global_shape=(6, 10))
    b = rndnn.uniform(size=(3, 10), generator=g1, global_shape=(6, 10),
                      origin=(3, 0))
    assert g0 == g1 == rndnn.Generator(7, 60)
    assert np.array_equal(np.concatenate([a, b]),
                          rndnn.uniform(size=(6, 10), seed=7))


@pytest.mark.parametrize("dtype", [np.float32, np.float16, "bf16"])
@pytest.mark.parametrize("mask", ["bit", "u8", "bool", None])
@pytest.mark.parametrize("noise", [None, (1, 37), (23, 1)])
@pytest.mark.parametrize("cut", [{0}, {1}, {0, 1}])
def test_dropout_of_a_block(dtype, mask, noise, cut):
    shape = (23, 37)
    x = (rndnn.normal(size=shape, seed=1, dtype="bf16") if dtype == "bf16"
         else rndnn.normal(size=shape, seed=1).astype(dtype))
    y, m = rndnn.dropout(x, 0.3, seed=8, offset=2, mask="u8",
                         noise_shape=noise)
    rng = np.random.default_rng(len(str(noise)) + len(cut))
    for origin, dims in partition(shape, rng, cut):
        xb = np.ascontiguousarray(block(x, origin, dims))
        yb, mb = rndnn.dropout(xb, 0.3, seed=8, offset=2, mask=mask,
                               noise_shape=noise, global_shape=shape,
                               origin=origin)
        assert yb.tobytes() == block(y, origin, dims).tobytes()
        # The block's mask: its dims, 1 where the noise shape has 1.
        mdims = tuple(1 if noise and n == 1 else d
                      for n, d in zip(noise or shape, dims))
        mo = tuple(0 if noise and n == 1 else o
                   for n, o in zip(noise or shape, origin))
        want = block(m, mo, mdims)
        if mask == "bit":
            assert np.array_equal(rndnn.unpackbits(mb, mdims), want)
        elif mask is not None:
            assert np.array_equal(mb.astype(np.uint8), want)
        # Backward of the block: from its mask, or recomputed.
        dxb = rndnn.dropout_backward(xb, 0.3, mask=mb, seed=8, offset=2,
                                     noise_shape=noise, global_shape=shape,
                                     origin=origin)
        assert dxb.tobytes() == yb.tobytes()


def test_dropout_generator_and_autograd_in_a_window():
    x = torch.randn(4, 10)
    g0 = rndnn.Generator(3)
    whole, _ = rndnn.dropout(x, 0.5, generator=rndnn.Generator(3))
    xb = x[:, 6:].contiguous().requires_grad_()
    yb, _ = rndnn.dropout(xb, 0.5, generator=g0, global_shape=(4, 10),
                          origin=(0, 6))
    assert g0 == rndnn.Generator(3, 40)
    assert torch.equal(yb, whole[:, 6:])
    yb.sum().backward()
    assert torch.equal(xb.grad, (whole[:, 6:] != 0).float() * 2.0)


@pytest.mark.parametrize("call,error,message", [
    (lambda: rndnn.normal(size=3, origin=(1,)), TypeError,
     "origin= goes with global_shape="),
    (lambda: rndnn.normal(size=(2, 3), global_shape=(6,)), rndnn.Error,
     r"global_shape \(6,\) has 1 dims and the block \(2, 3\) 2"),
    (lambda: rndnn.normal(size=(2, 3), global_shape=(6, 3), origin=(1,)),
     rndnn.Error, r"origin \(1,\) has 1 dims"),
    (lambda: rndnn.normal(size=(2, 3), global_shape=(6, 3), origin=(5, 0)),
     rndnn.Error, "origin"),
    (lambda: rndnn.normal(size=(2, 3), global_shape=(6, -3)), rndnn.Error,
     "global_shape .* negative"),
    (lambda: rndnn.normal(size=2, global_shape=4.5), TypeError,
     "global_shape 4.5 is not an int"),
    (lambda: rndnn.dropout(np.ones((2, 3), np.float32), global_shape=(4, 3),
                           noise_shape=(2, 1)), rndnn.Error,
     r"noise shape \(2, 1\) does not fit the data shape \(4, 3\).*window"),
    (lambda: rndnn.dropout_backward(np.ones((2, 3), np.float32), 0.5,
                                    mask=np.ones((4, 3), np.uint8),
                                    global_shape=(4, 3)), rndnn.Error,
     r"uint8 or bool of shape \(2, 3\)"),
])
def test_bad_windows_name_the_value(call, error, message):
    with pytest.raises(error, match=message):
        call()
