"""shard= on rndnn.torch's dropouts: K ranks, each holding a block of a
global tensor and drawing from the same seed (torch.manual_seed or an
equal rndnn.Generator), get the blocks of the one-process mask, output and
gradient; TorchScript, state_dict, repr, pickling and the errors."""
import copy
import pickle

import pytest
import torch

import rndnn
import rndnn.torch as rt


def cuts(n, k):
    """@k near-equal ranges [a, b) of range(n) (some empty when k > n)."""
    edges = [n * i // k for i in range(k + 1)]
    return list(zip(edges[:-1], edges[1:]))


def blocks(shape, dim, k):
    """(origin, slices) of @shape cut into @k blocks along @dim."""
    for a, b in cuts(shape[dim], k):
        origin = tuple(a if d == dim else 0 for d in range(len(shape)))
        index = tuple(slice(a, b) if d == dim else slice(None)
                      for d in range(len(shape)))
        yield origin, index


def data(shape):
    return torch.randn(shape, generator=torch.Generator().manual_seed(5))


# (module kind, functional form, global shape, the dims to cut along):
# rows, columns and the batch; the channel dropouts also along channels
# and spatial dims (the mask is shared along those: the global tensor's).
CASES = [(rt.Dropout, rt.dropout, (12, 10), (0, 1)),
         (rt.Dropout, rt.dropout, (4, 6, 10), (0, 1, 2)),
         (rt.Dropout1d, rt.dropout1d, (4, 6, 10), (0, 1, 2)),
         (rt.Dropout1d, rt.dropout1d, (6, 10), (0, 1)),
         (rt.Dropout2d, rt.dropout2d, (4, 6, 3, 5), (0, 1, 3)),
         (rt.Dropout3d, rt.dropout3d, (3, 4, 2, 3, 5), (0, 1, 4))]


@pytest.mark.parametrize("k", [1, 2, 3, 4])
@pytest.mark.parametrize("kind,fn,shape,dims", CASES)
def test_k_ranks_masks_are_the_blocks_of_one_process(kind, fn, shape, dims,
                                                     k):
    x = data(shape)
    torch.manual_seed(11)
    whole = kind(0.4)(x)
    for dim in dims:
        for origin, index in blocks(shape, dim, k):
            shard = (shape, origin)
            torch.manual_seed(11)
            got = kind(0.4, shard=shard)(x[index].contiguous())
            assert torch.equal(got, whole[index]), (dim, origin)
            torch.manual_seed(11)
            got = fn(x[index].contiguous(), 0.4, shard=shard)
            assert torch.equal(got, whole[index]), (dim, origin)


@pytest.mark.parametrize("k", [1, 2, 3, 4])
def test_an_rndnn_generator_moves_on_by_the_global_count(k):
    shape = (6, 4, 9)
    x = data(shape)
    g = rndnn.Generator(3, 100)
    model = rt.Dropout(0.3, generator=g)
    whole = [model(x), model(x)]  # two forwards: two masks
    for dim in range(3):
        for origin, index in blocks(shape, dim, k):
            g = rndnn.Generator(3, 100)
            model = rt.Dropout(0.3, generator=g, shard=(shape, origin))
            for y in whole:
                assert torch.equal(model(x[index].contiguous()), y[index])
            # Every rank's copy where the one process's is, even a rank
            # with an empty block.
            assert g.offset == 100 + 2 * x.numel()


@pytest.mark.parametrize("k", [2, 3, 4])
@pytest.mark.parametrize("mask", ["bit", None])
def test_backward_gives_the_blocks_of_the_gradient(k, mask):
    shape = (5, 8, 6)
    x = data(shape).requires_grad_()
    dy = data(shape) * 3
    torch.manual_seed(2)
    y = rt.Dropout1d(0.5, mask=mask)(x)
    y.backward(dy)
    whole = x.grad.clone()
    for dim in range(3):
        for origin, index in blocks(shape, dim, k):
            xb = x.detach()[index].contiguous().requires_grad_()
            torch.manual_seed(2)
            yb = rt.Dropout1d(0.5, mask=mask, shard=(shape, origin))(xb)
            assert torch.equal(yb, y.detach()[index])
            yb.backward(dy[index].contiguous())
            assert torch.equal(xb.grad, whole[index])


def test_inplace_and_half_types_shard_as_well():
    shape = (8, 6)
    for dtype in (torch.float16, torch.bfloat16):
        x = data(shape).to(dtype)
        torch.manual_seed(4)
        whole = rt.dropout(x, 0.5)
        for origin, index in blocks(shape, 1, 3):
            xb = x[index].contiguous()
            torch.manual_seed(4)
            assert rt.dropout(xb, 0.5, inplace=True,
                              shard=(shape, origin)) is xb
            assert torch.equal(xb, whole[index])


def test_the_attribute_is_settable_and_shown_and_not_state():
    m = rt.Dropout(0.2)
    assert m.shard is None and "shard" not in repr(m)
    m.shard = ([4, 6], [0, 3])
    assert m.shard == ((4, 6), (0, 3))
    assert repr(m) == "Dropout(p=0.2, inplace=False, shard=((4, 6), (0, 3)))"
    assert m.state_dict() == {}
    # Configuration, not state: a module without shard loads the
    # state_dict of one with, and the other way.
    rt.Dropout(0.2).load_state_dict(m.state_dict(), strict=True)
    m.load_state_dict(torch.nn.Dropout(0.2).state_dict(), strict=True)
    assert m.shard == ((4, 6), (0, 3))
    for c in (copy.deepcopy(m), pickle.loads(pickle.dumps(m))):
        assert c.shard == ((4, 6), (0, 3))
    m.shard = None
    assert m.shard is None and "shard" not in repr(m)


def test_a_module_pickled_before_shard_existed_loads_without_one():
    m = rt.Dropout(0.2)
    state = m.__getstate__()
    del state["_shard_global"], state["_shard_origin"]
    old = rt.Dropout.__new__(rt.Dropout)
    old.__setstate__(state)
    assert old.shard is None
    torch.manual_seed(1)
    y = old(torch.ones(8))
    torch.manual_seed(1)
    assert torch.equal(y, m(torch.ones(8)))


def test_replace_dropout_gives_no_shard():
    model = torch.nn.Sequential(torch.nn.Dropout(0.1))
    assert rt.replace_dropout(model)[0].shard is None


@pytest.mark.parametrize("kind", [rt.Dropout, rt.Dropout1d])
def test_script_and_trace_take_the_shard(kind):
    shape = (4, 6, 10)
    x = data(shape)
    torch.manual_seed(8)
    whole = kind(0.5)(x)
    for origin, index in blocks(shape, 1, 2):
        model = torch.nn.Sequential(kind(0.5, shard=(shape, origin)))
        xb = x[index].contiguous()
        scripted = torch.jit.script(model)
        traced = torch.jit.trace(model, xb, check_trace=False)
        for form in (model, scripted, traced):
            torch.manual_seed(8)
            assert torch.equal(form(xb), whole[index])
        # The window is checked in the scripted op too.
        with pytest.raises(Exception, match="does not fit"):
            scripted(torch.ones(4, 7, 10))


def test_the_op_without_a_window_is_the_op_of_before():
    # Modules scripted before shard= called the op with 7 arguments.
    x = data((5, 7))
    torch.manual_seed(3)
    old = torch.ops.rndnn.dropout(x, 0.5, True, False, 0, True, 0)
    torch.manual_seed(3)
    assert torch.equal(old, rt.dropout(x, 0.5))
    z = data((5, 9))
    torch.manual_seed(3)
    got = torch.ops.rndnn.dropout(z[:, 2:7].contiguous(), 0.5, True, False,
                                  0, True, 0, [5, 9], [0, 2])
    torch.manual_seed(3)
    assert torch.equal(got, rt.dropout(z, 0.5)[:, 2:7])


def test_eval_and_p_zero_are_the_identity_with_the_shard_checked():
    x = data((3, 4))
    m = rt.Dropout(0.5, shard=((6, 4), (3, 0))).eval()
    assert m(x) is x
    assert rt.dropout(x, 0.0, shard=((6, 4), (3, 0))) is x
    with pytest.raises(rndnn.Error, match="dim 0 ends at 4 \\+ 3 = 7 > 6"):
        rt.Dropout(0.5, shard=((6, 4), (4, 0))).eval()(x)


@pytest.mark.parametrize("shard,error,match", [
    (((6, 4, 1), (0, 0, 0)), rndnn.Error,
     r"global_shape \(6, 4, 1\) has 3 dims and the tensor \(3, 4\) 2"),
    (((6, 4), (0,)), rndnn.Error,
     r"origin \(0,\) has 1 dims and its global_shape \(6, 4\) 2"),
    (((6, 4), (7, 0)), rndnn.Error,
     r"origin \(7, 0\) lies outside global_shape \(6, 4\): dim 0 starts at 7"),
    (((6, 4), (0, 2)), rndnn.Error,
     r"tensor \(3, 4\) at shard's origin \(0, 2\) does not fit in "
     r"global_shape \(6, 4\): dim 1 ends at 2 \+ 4 = 6 > 4"),
    (((6, 4), (0, -1)), rndnn.Error, r"origin \(0, -1\) has a negative dim"),
    (((6, 4.0), (0, 0)), TypeError, r"global_shape \(6, 4.0\) is not an int"),
    ("rows", TypeError, r"shard must be \(global_shape, origin\)"),
    (((6, 4), (0, 0), 1), TypeError, r"shard must be \(global_shape, origin\)"),
])
def test_bad_shards_are_named_and_draw_nothing(shard, error, match):
    x = data((3, 4))
    g = rndnn.Generator(1, 0)
    with pytest.raises(error, match=match):
        rt.dropout(x, 0.5, generator=g, shard=shard)
    with pytest.raises(error, match=match):
        rt.Dropout(0.5, generator=g, shard=shard)(x)
    assert g.offset == 0


def test_a_0d_global_shape_is_refused_by_the_module():
    with pytest.raises(rndnn.Error, match="0-d tensor has no blocks"):
        rt.Dropout(0.5, shard=((), ()))
