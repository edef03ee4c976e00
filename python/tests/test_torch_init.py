"""rndnn.torch.init: torch.nn.init's initialisers with rndnn's values. A
weight filled in blocks on K ranks (shard=) equals the one-process weight
bit for bit; the values follow their distributions with torch's fans and
gains; the generators; the errors."""
import math
import warnings

import numpy as np
import pytest
import torch

import rndnn
import rndnn.torch as rt
from rndnn.torch import init


def test_the_three_ways_to_import_it():
    import rndnn.torch.init as by_path
    assert by_path is init is rt.init is rndnn.torch.init


# (initialiser, its arguments after the tensor).
FILLS = [(init.uniform_, (-2.0, 3.0)), (init.normal_, (1.0, 0.5)),
         (init.trunc_normal_, (0.5, 2.0, -1.0, 7.0)),
         (init.xavier_uniform_, (1.5,)), (init.xavier_normal_, (0.5,)),
         (init.kaiming_uniform_, (math.sqrt(5),)),
         (init.kaiming_normal_, (0, "fan_out", "relu"))]


def cuts(n, k):
    edges = [n * i // k for i in range(k + 1)]
    return list(zip(edges[:-1], edges[1:]))


@pytest.mark.parametrize("dtype,k", [
    (torch.float32, 1), (torch.float32, 2), (torch.float32, 3),
    (torch.float32, 4), (torch.bfloat16, 3), (torch.float16, 4),
    (torch.float64, 3)])
@pytest.mark.parametrize("shape", [(12, 10), (8, 6, 3, 3)])
@pytest.mark.parametrize("fill,args", FILLS)
def test_k_ranks_fill_the_blocks_of_one_weight(fill, args, shape, dtype, k):
    torch.manual_seed(7)
    whole = fill(torch.empty(shape, dtype=dtype), *args)
    for dim in range(len(shape)):
        for a, b in cuts(shape[dim], k):
            index = tuple(slice(a, b) if d == dim else slice(None)
                          for d in range(len(shape)))
            origin = tuple(a if d == dim else 0 for d in range(len(shape)))
            block = torch.empty(whole[index].shape, dtype=dtype)
            torch.manual_seed(7)
            assert fill(block, *args, shard=(shape, origin)) is block
            assert torch.equal(block, whole[index]), (dim, a, b)


@pytest.mark.parametrize("fill,args", FILLS)
def test_an_rndnn_generator_moves_on_by_the_global_count(fill, args):
    shape = (9, 8)
    g = rndnn.Generator(5, 10)
    whole = [fill(torch.empty(shape), *args, generator=g) for _ in range(2)]
    assert not torch.equal(whole[0], whole[1])
    for a, b in cuts(9, 3):
        g = rndnn.Generator(5, 10)
        for w in whole:
            block = fill(torch.empty(b - a, 8), *args, generator=g,
                         shard=(shape, (a, 0)))
            assert torch.equal(block, w[a:b])
        assert g.offset == 10 + 2 * 72


def test_torchs_generators_give_one_word_a_call():
    torch.manual_seed(3)
    w = init.normal_(torch.empty(5, 5))
    after = torch.randint(1 << 30, (4,))
    torch.manual_seed(3)
    seed = int(torch.empty((), dtype=torch.int64).random_())
    assert torch.equal(torch.randint(1 << 30, (4,)), after)
    assert torch.equal(w, rndnn.normal(size=(5, 5), seed=seed, offset=0,
                                       dtype=torch.float32))
    g = torch.Generator().manual_seed(3)
    assert torch.equal(init.normal_(torch.empty(5, 5), generator=g), w)


def test_a_parameter_is_filled_in_place_without_grad_history():
    p = torch.nn.Parameter(torch.zeros(6, 4))
    assert init.xavier_uniform_(p) is p
    assert p.grad_fn is None and p.requires_grad and p.abs().sum() > 0
    # The version moves on, as torch's in-place fills move it.
    v = p._version
    init.uniform_(p)
    assert p._version > v


def moments_ok(x, mean, std):
    """The sample mean and sd of @x (float64) within 6 standard errors of
    @mean and @std (the sd's error about std / sqrt(2n), normal or
    uniform alike within a factor 1.2)."""
    x = x.double().reshape(-1)
    n = x.numel()
    return (abs(x.mean().item() - mean) < 6 * std / math.sqrt(n)
            and abs(x.std().item() - std) < 6 * 1.2 * std / math.sqrt(2 * n))


@pytest.mark.parametrize("shape", [(256, 384), (64, 32, 3, 3)])
def test_values_follow_torchs_distributions(shape):
    fan_in, fan_out = torch.nn.init._calculate_fan_in_and_fan_out(
        torch.empty(shape))
    w = torch.empty(shape)
    torch.manual_seed(0)
    assert moments_ok(init.uniform_(w, -1.0, 3.0), 1.0, 4 / math.sqrt(12))
    assert w.min() >= -1.0 and w.max() < 3.0
    assert moments_ok(init.normal_(w, 2.0, 0.5), 2.0, 0.5)
    std = 1.5 * math.sqrt(2.0 / (fan_in + fan_out))
    init.xavier_uniform_(w, 1.5)
    assert moments_ok(w, 0.0, std)
    assert w.abs().max() <= math.sqrt(3) * std
    assert moments_ok(init.xavier_normal_(w, 1.5), 0.0, std)
    gain = torch.nn.init.calculate_gain("leaky_relu", 0.2)
    for mode, fan in (("fan_in", fan_in), ("fan_out", fan_out)):
        std = gain / math.sqrt(fan)
        init.kaiming_uniform_(w, 0.2, mode)
        assert moments_ok(w, 0.0, std)
        assert w.abs().max() <= math.sqrt(3) * std
        assert moments_ok(init.kaiming_normal_(w, 0.2, mode), 0.0, std)
    gain = torch.nn.init.calculate_gain("tanh")
    std = gain / math.sqrt(fan_in)
    assert moments_ok(init.kaiming_normal_(w, nonlinearity="tanh"), 0.0, std)


def test_sharded_fans_are_the_global_shapes():
    # Half the columns: a local fan would be half, the bound sqrt(2) wider.
    torch.manual_seed(0)
    w = init.kaiming_uniform_(torch.empty(512, 128), shard=((512, 256),
                                                            (0, 128)))
    bound = math.sqrt(3) * math.sqrt(2) / math.sqrt(256)
    assert w.abs().max() <= bound and w.abs().max() > 0.99 * bound


def test_zero_element_weights_are_torchs_no_op():
    w = torch.empty(0, 4)
    torch.manual_seed(1)
    with pytest.warns(UserWarning, match="zero-element tensors is a no-op"):
        assert init.kaiming_uniform_(w) is w
    after = torch.randint(1 << 30, (2,))
    torch.manual_seed(1)
    assert torch.equal(torch.randint(1 << 30, (2,)), after)  # no draw
    # An empty block of a weight that is not: drawn as any block (the
    # generator moves on alike on every rank).
    g = rndnn.Generator(1, 0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        init.kaiming_uniform_(w, generator=g, shard=((3, 4), (3, 0)))
    assert g.offset == 12


@pytest.mark.parametrize("call,error,match", [
    (lambda: init.uniform_(np.zeros(3)), TypeError,
     "tensor must be a torch.Tensor, not ndarray"),
    (lambda: init.normal_(torch.zeros(3, dtype=torch.int32)), rndnn.Error,
     "tensor is torch.int32; rndnn fills torch.float64, float32, float16 "
     "or bfloat16"),
    (lambda: init.xavier_normal_(torch.zeros(4, 6).t()), rndnn.Error,
     "xavier_normal_\\(\\): tensor must be contiguous"),
    (lambda: init.uniform_(torch.zeros(3), generator=1), TypeError,
     "generator must be a torch.Generator or an rndnn.Generator, not int"),
    (lambda: init.xavier_uniform_(torch.zeros(3)), ValueError,
     "fewer than 2 dimensions"),
    (lambda: init.kaiming_uniform_(torch.zeros(3, 3), mode="fan"),
     ValueError, "Mode fan not supported"),
    (lambda: init.kaiming_normal_(torch.zeros(3, 3), nonlinearity="swish"),
     ValueError, "Unsupported nonlinearity swish"),
    (lambda: init.normal_(torch.zeros(3, 3), shard=((3, 3, 1), (0, 0, 0))),
     rndnn.Error, "global_shape \\(3, 3, 1\\) has 3 dims"),
    (lambda: init.normal_(torch.zeros(3, 3), shard=((6, 3), (4, 0))),
     rndnn.Error, "dim 0 ends at 4 \\+ 3 = 7 > 6"),
    (lambda: init.normal_(torch.zeros(3, 3), shard=((6, 3), (7, 0))),
     rndnn.Error, "origin \\(7, 0\\) lies outside"),
])
def test_errors_are_named_and_draw_nothing(call, error, match):
    torch.manual_seed(4)
    with pytest.raises(error, match=match):
        call()
    after = torch.randint(1 << 30, (2,))
    torch.manual_seed(4)
    assert torch.equal(torch.randint(1 << 30, (2,)), after)
