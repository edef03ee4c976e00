"""Attention's dropout: rndnn.softmax_dropout and its backward against a
softmax then rndnn.dropout of the same seed (mask bit for bit, values
within float tolerance), windows, generators and errors;
rndnn.torch.softmax_dropout's autograd and replay; rndnn.torch.
MultiheadAttention against torch's (eval: equal; training: torch's
computation with rndnn's mask), its state_dict, TorchScript, copies; and
replace_dropout on a TransformerEncoder."""
import copy
import io

import numpy as np
import pytest
import torch

import rndnn
import rndnn.torch as rt

SHAPE = (2, 3, 5, 11)


def _softmax(x, causal=False):
    x = np.asarray(x, np.float64)
    if causal:
        rows, n = x.shape[-2:]
        x = np.where(np.triu(np.ones((rows, n), bool), 1), -np.inf, x)
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def _keep(shape, p, seed, offset=0, **kw):
    """rndnn.dropout's u8 keep mask of @shape."""
    _, m = rndnn.dropout(np.ones(shape, np.float32), p, seed=seed,
                         offset=offset, mask="u8", **kw)
    return m


@pytest.mark.parametrize("causal", [False, True])
def test_forward_is_softmax_then_dropout(causal):
    x = np.random.default_rng(0).normal(0, 3, SHAPE).astype(np.float32)
    y, stats, mask = rndnn.softmax_dropout(x, 0.25, seed=9, offset=4,
                                           stream=2, causal=causal,
                                           mask="u8")
    keep = _keep(SHAPE, 0.25, 9, 4, stream=2)
    np.testing.assert_array_equal(mask, keep)
    want = _softmax(x, causal) * keep / 0.75
    np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-6)
    assert stats.shape == SHAPE[:-1] + (2,) and stats.dtype == np.float32
    xm = np.where(np.triu(np.ones(SHAPE[-2:], bool), 1), -np.inf,
                  x) if causal else x
    np.testing.assert_array_equal(stats[..., 0], xm.max(-1))
    # The packed mask holds the same bits; no mask, the same y.
    y2, _, bits = rndnn.softmax_dropout(x, 0.25, seed=9, offset=4, stream=2,
                                        causal=causal, mask="bit")
    np.testing.assert_array_equal(rndnn.unpackbits(bits, SHAPE), keep)
    y3, _, none = rndnn.softmax_dropout(x, 0.25, seed=9, offset=4, stream=2,
                                        causal=causal)
    assert none is None
    np.testing.assert_array_equal(y2, y) and np.testing.assert_array_equal(
        y3, y)


@pytest.mark.parametrize("mask", [None, "bit", "u8"])
def test_backward_is_the_unfused_gradient(mask):
    rng = np.random.default_rng(1)
    x = rng.normal(0, 2, SHAPE).astype(np.float32)
    dy = rng.normal(0, 1, SHAPE).astype(np.float32)
    y, stats, m = rndnn.softmax_dropout(x, 0.4, seed=3, causal=True,
                                        mask=mask)
    dx = rndnn.softmax_dropout_backward(dy, x, stats, 0.4, mask=m,
                                        seed=None if m is not None else 3,
                                        causal=True)
    p = _softmax(x, True)
    dp = dy * _keep(SHAPE, 0.4, 3) / 0.6
    want = p * (dp - (p * dp).sum(-1, keepdims=True))
    np.testing.assert_allclose(dx, want, rtol=1e-4, atol=1e-5)
    # In place over dy: the same values.
    d2 = dy.copy()
    out = rndnn.softmax_dropout_backward(d2, x, stats, 0.4, mask=m,
                                         seed=None if m is not None else 3,
                                         causal=True, out=d2)
    assert out is d2
    np.testing.assert_array_equal(d2, dx)


def test_bf16_torch_tensors():
    x = torch.randn(SHAPE).to(torch.bfloat16)
    y, stats, m = rndnn.softmax_dropout(x, 0.5, seed=1, mask="u8")
    assert y.dtype == torch.bfloat16 and stats.dtype == torch.float32
    want = torch.softmax(x.float(), -1) * m / 0.5
    torch.testing.assert_close(y.float(), want, rtol=1e-2, atol=1e-3)


def test_a_window_is_the_block_of_the_whole():
    # Heads 1..2 of 4: tensor-parallel attention's shard.
    g = (2, 4, 6, 9)
    x = np.random.default_rng(2).normal(0, 2, g).astype(np.float32)
    y, stats, _ = rndnn.softmax_dropout(x, 0.3, seed=5, causal=True)
    block = x[:, 1:3].copy()
    yb, sb, _ = rndnn.softmax_dropout(block, 0.3, seed=5, causal=True,
                                      global_shape=g, origin=(0, 1, 0, 0))
    np.testing.assert_array_equal(yb, y[:, 1:3])
    # Query rows 3..5: causal rows count from the global row.
    yq, _, _ = rndnn.softmax_dropout(x[:, :, 3:].copy(), 0.3, seed=5,
                                     causal=True, global_shape=g,
                                     origin=(0, 0, 3, 0))
    np.testing.assert_array_equal(yq, y[:, :, 3:])
    dy = np.ones_like(block)
    dx = rndnn.softmax_dropout_backward(np.ones_like(x), x, stats, 0.3,
                                        seed=5, causal=True)
    dxb = rndnn.softmax_dropout_backward(dy, block, sb, 0.3, seed=5,
                                         causal=True, global_shape=g,
                                         origin=(0, 1, 0, 0))
    np.testing.assert_array_equal(dxb, dx[:, 1:3])
    # A generator reserves the global tensor's elements.
    gen = rndnn.Generator(7, 100)
    rndnn.softmax_dropout(block, 0.3, generator=gen, global_shape=g,
                          origin=(0, 1, 0, 0))
    assert gen.offset == 100 + int(np.prod(g))
    with pytest.raises(rndnn.Error, match="the window splits rows"):
        rndnn.softmax_dropout(x[..., :4].copy(), 0.3, seed=1,
                              global_shape=g, origin=(0, 0, 0, 4))


def test_the_default_generator_moves_on():
    x = np.zeros(SHAPE, np.float32)
    rndnn.manual_seed(4)
    a, _, _ = rndnn.softmax_dropout(x, 0.5)
    b, _, _ = rndnn.softmax_dropout(x, 0.5)
    assert not np.array_equal(a, b)
    assert rndnn.default_generator.offset == 2 * x.size
    rndnn.manual_seed(4)
    np.testing.assert_array_equal(rndnn.softmax_dropout(x, 0.5)[0], a)


def test_errors_name_the_bad_value():
    x = np.zeros(SHAPE, np.float32)
    with pytest.raises(rndnn.Error, match="p=1.5"):
        rndnn.softmax_dropout(x, 1.5, seed=0)
    with pytest.raises(rndnn.Error, match="f32 or bf16"):
        rndnn.softmax_dropout(x.astype(np.float16), seed=0)
    with pytest.raises(rndnn.Error, match="unknown mask 'byte'"):
        rndnn.softmax_dropout(x, seed=0, mask="byte")
    with pytest.raises(TypeError, match="origin= goes with global_shape="):
        rndnn.softmax_dropout(x, seed=0, origin=(0, 0, 0, 0))
    with pytest.raises(rndnn.Error, match="global_shape .* has 2 dims"):
        rndnn.softmax_dropout(x, seed=0, global_shape=(4, 11))
    with pytest.raises(TypeError, match="x must be a NumPy array"):
        rndnn.softmax_dropout([1.0, 2.0], seed=0)
    _, stats, _ = rndnn.softmax_dropout(x, seed=0)
    with pytest.raises(TypeError, match="needs the forward's mask= or its"):
        rndnn.softmax_dropout_backward(x, x, stats, 0.5)
    with pytest.raises(rndnn.Error, match="stats is float32 of shape"):
        rndnn.softmax_dropout_backward(x, x, stats[:1], 0.5, seed=0)
    with pytest.raises(rndnn.Error, match="x must be the forward's scores"):
        rndnn.softmax_dropout_backward(x, x[:1], stats, 0.5, seed=0)
    with pytest.raises(rndnn.Error, match="a mask is u8 of that shape"):
        rndnn.softmax_dropout_backward(x, x, stats, 0.5,
                                       mask=np.zeros(3, np.uint8))


# --- rndnn.torch.softmax_dropout ---------------------------------------------

def test_torch_function_replays_and_backpropagates():
    scores = torch.randn(2, 3, 4, 7, requires_grad=True)
    torch.manual_seed(0)
    y = rt.softmax_dropout(scores, 0.3, causal=True)
    torch.manual_seed(0)
    assert torch.equal(rt.softmax_dropout(scores, 0.3, causal=True), y)
    # The mask is rndnn.dropout's of the seed drawn from torch's generator.
    torch.manual_seed(0)
    seed = int(torch.empty((), dtype=torch.int64).random_())
    keep = torch.from_numpy(_keep(tuple(scores.shape), 0.3, seed)).bool()
    ref = scores.detach().clone().requires_grad_()
    causal = torch.ones(4, 7, dtype=torch.bool).triu(1)
    want = torch.softmax(ref.masked_fill(causal, float("-inf")), -1) \
        * keep / 0.7
    torch.testing.assert_close(y, want)
    g = torch.randn(y.shape)
    y.backward(g)
    want.backward(g)
    torch.testing.assert_close(scores.grad, ref.grad, rtol=1e-4, atol=1e-5)


def test_a_tensor_that_requires_grad_backpropagates():
    scores = torch.randn(2, 3, 6, requires_grad=True)
    y, stats, m = rndnn.softmax_dropout(scores, 0.5, seed=2, mask="u8")
    assert stats.shape == (2, 3, 2) and m.shape == (2, 3, 6)
    y.sum().backward()
    p = torch.softmax(scores.detach(), -1)
    dp = m / 0.5
    want = p * (dp - (p * dp).sum(-1, keepdim=True))
    torch.testing.assert_close(scores.grad, want, rtol=1e-4, atol=1e-5)


def test_torch_function_eval_and_generators():
    scores = torch.randn(3, 5, 5)
    assert torch.equal(rt.softmax_dropout(scores, 0.5, training=False),
                       torch.softmax(scores, -1))
    assert torch.equal(rt.softmax_dropout(scores, 0.0),
                       torch.softmax(scores, -1))
    g = rndnn.Generator(3, 0)
    rt.softmax_dropout(scores, 0.5, generator=g, shard=((6, 5, 5),
                                                        (3, 0, 0)))
    assert g.offset == 150
    tg = torch.Generator().manual_seed(1)
    a = rt.softmax_dropout(scores, 0.5, generator=tg)
    tg.manual_seed(1)
    assert torch.equal(rt.softmax_dropout(scores, 0.5, generator=tg), a)
    with pytest.raises(TypeError, match=r"shard must be \(global_shape, origin\)"):
        rt.softmax_dropout(scores, 0.5, shard=(6, 5, 5))
    with pytest.raises(rndnn.Error, match="f32 or bf16 scores"):
        rt.softmax_dropout(scores.double(), 0.5)
    with pytest.raises(ValueError, match="between 0 and 1"):
        rt.softmax_dropout(scores, 2.0)


# --- MultiheadAttention ------------------------------------------------------

def _pair(**kw):
    torch.manual_seed(0)
    theirs = torch.nn.MultiheadAttention(8, 2, **kw)
    ours = rt.MultiheadAttention(8, 2, **kw)
    ours.load_state_dict(theirs.state_dict())
    theirs.load_state_dict(ours.state_dict())  # and back
    return ours, theirs


CONFIGS = [dict(dropout=0.3), dict(dropout=0.3, batch_first=True),
           dict(dropout=0.3, kdim=6, vdim=5),
           dict(dropout=0.3, add_bias_kv=True, add_zero_attn=True)]


def _inputs(kw, bsz=3, tgt=4, src=6):
    q = torch.randn((bsz, tgt, 8) if kw.get("batch_first") else (tgt, bsz, 8))
    shape = (bsz, src) if kw.get("batch_first") else (src, bsz)
    k = torch.randn(*shape, kw.get("kdim", 8))
    v = torch.randn(*shape, kw.get("vdim", 8))
    kpm = torch.zeros(bsz, src, dtype=torch.bool)
    kpm[0, -2:] = True
    am = torch.randn(tgt, src)
    return q, k, v, kpm, am


@pytest.mark.parametrize("kw", CONFIGS)
def test_mha_eval_is_torchs(kw):
    ours, theirs = _pair(**kw)
    ours.eval(), theirs.eval()
    q, k, v, kpm, am = _inputs(kw)
    for args in [dict(), dict(key_padding_mask=kpm, attn_mask=am),
                 dict(attn_mask=am > 0.5, average_attn_weights=False)]:
        a, wa = ours(q, k, v, **args)
        b, wb = theirs(q, k, v, **args)
        torch.testing.assert_close(a, b) and torch.testing.assert_close(wa,
                                                                        wb)


@pytest.mark.parametrize("kw", CONFIGS)
def test_mha_training_is_torchs_with_rndnns_mask(kw, monkeypatch):
    ours, theirs = _pair(**kw)
    q, k, v, kpm, am = _inputs(kw)
    torch.manual_seed(5)
    a, wa = ours(q, k, v, key_padding_mask=kpm, attn_mask=am,
                 average_attn_weights=False)
    # torch's computation, its dropout replaced by rndnn's mask of the
    # seed drawn from torch's generator over (bsz, heads, tgt, src).
    torch.manual_seed(5)
    seed = int(torch.empty((), dtype=torch.int64).random_())
    keep = torch.from_numpy(_keep(tuple(wa.shape), 0.3, seed))
    keep = keep.reshape(-1, *wa.shape[2:])

    def masked(x, p=0.5, training=True, inplace=False):
        return x * keep / (1 - p)
    monkeypatch.setattr(torch.nn.functional, "dropout", masked)
    b, wb = theirs(q, k, v, key_padding_mask=kpm, attn_mask=am,
                   average_attn_weights=False)
    torch.testing.assert_close(a, b)
    torch.testing.assert_close(wa, wb)
    # Backward flows to every parameter.
    a.sum().backward()
    assert all(p.grad is not None for p in ours.parameters())


def test_mha_script_replay_and_copies(tmp_path):
    ours, _ = _pair(dropout=0.3)
    q = torch.randn(4, 2, 8)
    scripted = torch.jit.script(ours)
    torch.manual_seed(1)
    a = ours(q, q, q)[0]
    torch.manual_seed(1)
    assert torch.equal(scripted(q, q, q)[0], a)
    for copied in (copy.deepcopy(ours), _saved(ours)):
        assert isinstance(copied, rt.MultiheadAttention)
        torch.manual_seed(1)
        assert torch.equal(copied(q, q, q)[0], a)
    ours.eval(), scripted.eval()
    torch.testing.assert_close(scripted(q, q, q)[0], ours(q, q, q)[0])


def _saved(module):
    buf = io.BytesIO()
    torch.save(module, buf)
    buf.seek(0)
    return torch.load(buf)


def test_replace_dropout_covers_a_transformer_encoder(monkeypatch):
    torch.manual_seed(0)
    layer = torch.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.2)
    model = torch.nn.TransformerEncoder(layer, 2)
    x = torch.randn(5, 3, 8)
    model.eval()
    before = model(x)
    attn = model.layers[0].self_attn
    params = list(attn.parameters())
    calls = []
    hook = attn.register_forward_hook(lambda *args: calls.append(1))
    model.train()
    assert rt.replace_dropout(model) is model
    new = model.layers[0].self_attn
    assert type(new) is rt.MultiheadAttention and new.training
    assert all(a is b for a, b in zip(new.parameters(), params))

    def refuse(*args, **kwargs):
        raise AssertionError("torch's dropout ran")
    monkeypatch.setattr(torch.nn.functional, "dropout", refuse)
    y = model(x)
    y.sum().backward()
    assert calls  # the hook moved with the module
    monkeypatch.undo()
    model.eval()
    torch.testing.assert_close(model(x), before)
    hook.remove()  # its handle acts on the new module
    assert not new._forward_hooks
    torch.jit.script(model)  # scripts with rndnn's modules
