"""rndnn.torch as a drop-in for torch.nn's dropouts: masks replayed by
torch.manual_seed and by reseeding a given torch.Generator, state_dict
compatible with torch.nn.Dropout both ways, Dropout1d/2d/3d against
torch's shapes, keep rates, warnings and errors, replace_dropout, inplace,
autograd, and torch.jit.trace and script."""
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest
import torch
import torch.fx

import rndnn
import rndnn.torch as rt

KINDS = [(rt.Dropout, torch.nn.Dropout, (4, 6, 5)),
         (rt.Dropout1d, torch.nn.Dropout1d, (4, 6, 5)),
         (rt.Dropout2d, torch.nn.Dropout2d, (4, 6, 5, 3)),
         (rt.Dropout3d, torch.nn.Dropout3d, (4, 6, 5, 3, 2))]


@pytest.mark.parametrize("ours,theirs,shape", KINDS)
def test_torch_manual_seed_replays_the_masks(ours, theirs, shape):
    d, x = ours(0.5), torch.ones(shape)
    torch.manual_seed(0)
    first = d(x)
    second = d(x)
    assert not torch.equal(first, second)  # the generator moved on
    torch.manual_seed(0)
    assert torch.equal(d(x), first) and torch.equal(d(x), second)
    torch.manual_seed(1)
    assert not torch.equal(d(x), first)


def test_the_functional_form_replays_too():
    x = torch.ones(64)
    torch.manual_seed(3)
    first = rt.dropout(x, 0.5)
    torch.manual_seed(3)
    assert torch.equal(rt.dropout(x, 0.5), first)


def test_each_forward_draws_one_word_from_torchs_generator():
    # The design docs/python.md gives: the seed is one random_() int64 of
    # the generator, the offset 0.
    x = torch.ones(1000)
    g = torch.Generator().manual_seed(11)
    y = rt.dropout(x, 0.25, generator=g)
    seed = int(torch.empty((), dtype=torch.int64).random_(
        generator=torch.Generator().manual_seed(11)))
    assert torch.equal(y, rndnn.dropout(x, 0.25, seed=seed)[0])
    assert torch.equal(g.get_state(), torch.Generator().manual_seed(11)
                       .get_state()) is False


def test_a_given_torch_generator_replays_when_reseeded():
    g = torch.Generator()
    d, x = rt.Dropout(0.5, generator=g), torch.ones(100)
    g.manual_seed(42)
    first = d(x)
    torch.manual_seed(0)  # the default generator plays no part
    g.manual_seed(42)
    assert torch.equal(d(x), first)
    g.manual_seed(43)
    assert not torch.equal(d(x), first)
    g.manual_seed(42)
    assert torch.equal(rt.dropout(x, 0.5, generator=g), first)


def test_an_rndnn_generator_still_reserves_its_offset():
    g = rndnn.Generator(9, 5)
    rt.Dropout(0.5, generator=g)(torch.ones(3, 4))
    assert g.offset == 17
    rt.Dropout2d(0.5, generator=g)(torch.ones(2, 3, 4, 4))
    assert g.offset == 17 + 6  # channel masks: one element a channel


@pytest.mark.parametrize("ours,theirs,shape", KINDS)
def test_state_dict_loads_both_ways_strictly(ours, theirs, shape):
    def model(dropout):
        return torch.nn.Sequential(torch.nn.Linear(shape[-1], shape[-1]),
                                   dropout(0.3), torch.nn.ReLU())
    mine, torchs = model(ours), model(theirs)
    assert list(mine.state_dict()) == list(torchs.state_dict()) \
        == ["0.weight", "0.bias"]
    mine.load_state_dict(torchs.state_dict())  # strict=True
    torchs.load_state_dict(mine.state_dict())
    assert torch.equal(mine[0].weight, torchs[0].weight)


@pytest.mark.parametrize("ours,theirs,shape", KINDS)
def test_variants_keep_torchs_shapes_channels_and_keep_rate(ours, theirs,
                                                            shape):
    torch.manual_seed(0)
    x = torch.ones(shape)
    y, t = ours(0.3)(x), theirs(0.3)(x)
    assert y.shape == t.shape == x.shape and y.dtype == t.dtype
    scale = torch.tensor(1 / 0.7, dtype=torch.float32)
    assert torch.all((y == 0) | (y == scale))
    if ours is not rt.Dropout:  # whole channels: all of (n, c) or none
        per_channel = y.flatten(2)
        assert torch.all((per_channel == 0).all(2) |
                         (per_channel != 0).all(2))
    big = torch.ones((64, 256) + shape[2:])
    keep = (ours(0.3)(big).flatten(2)[..., 0] != 0).float().mean().item()
    assert abs(keep - 0.7) < 0.02


def test_channel_masks_are_the_librarys_noise_shape_masks():
    x = torch.randn(3, 4, 5, 6)
    g = rndnn.Generator(3)
    y = rt.Dropout2d(0.4, generator=g)(x)
    want, _ = rndnn.dropout(x, 0.4, seed=3, offset=0,
                            noise_shape=(3, 4, 1, 1))
    assert torch.equal(y, want)


def test_unbatched_channel_inputs_as_torch():
    torch.manual_seed(0)
    y = rt.Dropout1d(0.5)(torch.ones(8, 20))  # (C, L)
    assert torch.all((y == 0).all(1) | (y != 0).all(1))
    y = rt.Dropout3d(0.5)(torch.ones(8, 2, 3, 4))  # (C, D, H, W)
    assert torch.all((y.flatten(1) == 0).all(1) | (y.flatten(1) != 0).all(1))


def test_dropout2d_warns_and_errors_as_torch():
    x3 = torch.ones(2, 3, 4)
    for d in (rt.Dropout2d(0.5), torch.nn.Dropout2d(0.5)):
        with pytest.warns(UserWarning, match="Received a 3D input to "
                          "dropout2d and assuming that channel-wise 1D"):
            y = d(x3)
        # As (N, C, L): each (n, c) row whole.
        assert torch.all((y == 0).all(2) | (y != 0).all(2))
        with pytest.warns(UserWarning, match="Received a 5-D input to "
                          "dropout2d, which is deprecated"):
            d(torch.ones(2, 3, 4, 5, 6))
    with pytest.warns(UserWarning, match="Received a 3-D input to dropout3d"):
        rt.Dropout3d(0.5)(torch.ones(2, 3, 4))
    for d in (rt.Dropout1d(0.5), torch.nn.Dropout1d(0.5)):
        with pytest.raises(RuntimeError, match="dropout1d: Expected 2D or 3D "
                           "input, but received a 4D input"):
            d(torch.ones(2, 3, 4, 5))


@pytest.mark.parametrize("make", [
    lambda p: rt.Dropout(p), lambda p: rt.Dropout1d(p),
    lambda p: rt.Dropout2d(p), lambda p: rt.Dropout3d(p),
    lambda p: rt.dropout(torch.ones(3), p)])
@pytest.mark.parametrize("p", [-0.1, 1.5])
def test_p_outside_0_1_is_torchs_value_error(make, p):
    with pytest.raises(ValueError, match="dropout probability has to be "
                       f"between 0 and 1, but got {p}"):
        make(p)


def test_arguments_are_torchs():
    d = rt.Dropout(p=0.2, inplace=True)
    assert (d.p, d.inplace) == (0.2, True)
    assert isinstance(d, torch.nn.Dropout)
    assert repr(d) == "Dropout(p=0.2, inplace=True)"
    assert isinstance(rt.Dropout2d(), torch.nn.Dropout2d)
    y = rt.dropout(input=torch.ones(4), p=0.0, training=True, inplace=False)
    assert torch.equal(y, torch.ones(4))
    with pytest.raises(TypeError, match="argument 'input' must be Tensor"):
        rt.dropout([1.0, 2.0])


def test_replace_dropout_swaps_every_kind_recursively():
    shared = torch.nn.Dropout(0.1)
    model = torch.nn.Sequential(
        torch.nn.Linear(4, 4), torch.nn.Dropout(0.2, inplace=True),
        torch.nn.Sequential(torch.nn.Dropout1d(0.3), shared, shared),
        torch.nn.ModuleList([torch.nn.Dropout2d(0.4),
                             torch.nn.Dropout3d(0.5)]),
        torch.nn.AlphaDropout(0.5))
    model[2].eval()
    assert rt.replace_dropout(model) is model
    kinds = [(type(m), m.p, m.inplace, m.training) for m in model.modules()
             if isinstance(m, torch.nn.modules.dropout._DropoutNd)]
    assert kinds == [
        (rt.Dropout, 0.2, True, True), (rt.Dropout1d, 0.3, False, False),
        (rt.Dropout, 0.1, False, False), (rt.Dropout2d, 0.4, False, True),
        (rt.Dropout3d, 0.5, False, True),
        (torch.nn.AlphaDropout, 0.5, False, True)]  # not a dropout swapped
    assert model[2][1] is model[2][2]  # shared stays shared
    assert type(rt.replace_dropout(torch.nn.Dropout(0.3))) is rt.Dropout
    assert model[1](torch.ones(2, 4)).shape == (2, 4)


def test_replace_dropout_keeps_hooks_and_module_state():
    # Hooks registered on the torch modules replaced stopped firing.
    old = torch.nn.Dropout(0.5)
    model = torch.nn.Sequential(torch.nn.Linear(4, 4), old)
    calls = []
    old.register_forward_pre_hook(lambda m, i: calls.append("pre"))
    old.register_forward_hook(lambda m, i, o: calls.append("forward"))
    old.register_full_backward_hook(lambda m, gi, go: calls.append("back"))
    gone = old.register_forward_hook(lambda m, i, o: calls.append("removed"))
    old.register_buffer("tag", torch.tensor(7))
    old.note, old.mask = "mine", torch.ones(3)
    old.eval()
    rt.replace_dropout(model, mask=None)
    new = model[1]
    assert type(new) is rt.Dropout and not new.training
    assert new.note == "mine" and list(new.state_dict()) == ["tag"]
    assert new.mask is None  # rndnn's own attributes win
    gone.remove()  # the handles still remove the hooks
    model.train()
    model(torch.ones(2, 4, requires_grad=True)).sum().backward()
    assert calls == ["pre", "forward", "back"]
    # The forward is rndnn's: the mask of the seed torch's generator gave.
    torch.manual_seed(1)
    y = new(torch.ones(64))
    torch.manual_seed(1)
    assert torch.equal(y, rt.dropout(torch.ones(64), 0.5))


def test_inplace_as_torch():
    x = torch.randn(30, requires_grad=True)
    h = x * 1
    y = rt.Dropout(0.5, inplace=True)(h)
    assert y is h and h._version > 0
    y.sum().backward()
    assert torch.equal(x.grad, (y != 0).float() * 2)
    leaf = torch.ones(5, requires_grad=True)
    for d in (rt.Dropout(0.5, inplace=True), torch.nn.Dropout(0.5, True)):
        with pytest.raises(RuntimeError, match="a leaf Variable that "
                           "requires grad is being used in an in-place"):
            d(leaf)
    assert torch.equal(leaf, torch.ones(5))  # refused before any write


@pytest.mark.parametrize("mode", ["plain", "no_grad", "inference"])
def test_inplace_returns_the_input_itself_as_torch(mode):
    # It returned an alias of the input, not the input.
    for ours, theirs in ((rt.Dropout(0.5, inplace=True),
                          torch.nn.Dropout(0.5, inplace=True)),
                         (rt.Dropout2d(0.5, inplace=True),
                          torch.nn.Dropout2d(0.5, inplace=True))):
        for d in (ours, theirs):
            torch.manual_seed(0)
            if mode == "plain":
                x = torch.ones(4, 6, 5, 3)
                y = d(x)
            elif mode == "no_grad":  # a leaf that requires grad is written
                x = torch.ones(4, 6, 5, 3, requires_grad=True)
                with torch.no_grad():
                    y = d(x)
                assert x.is_leaf and x.grad_fn is None
            else:
                with torch.inference_mode():
                    x = torch.ones(4, 6, 5, 3)
                    y = d(x)
            assert y is x, (d, mode)
            if mode != "inference":  # inference tensors have no version
                assert x._version == 1
            assert torch.any(x == 0) and torch.any(x == 2)
    x = torch.ones(8)
    assert rt.dropout(x, 0.5, inplace=True) is x


def test_empty_data_draws_nothing_and_allocates_nothing(tmp_path):
    # Dropout2d of (65536, 65536, 0, 2) drew and kept the whole 2^32-bit
    # channel mask (512 MiB). Run under an address-space limit of 256 MiB
    # more than the process had.
    code = """
import resource
import numpy as np, torch, rndnn, rndnn.torch as rt
rt.Dropout2d(0.5)(torch.ones(2, 3, 4, 4))  # threads, code: made before
with open("/proc/self/status") as f:
    vm = next(int(l.split()[1]) for l in f if l.startswith("VmSize:")) << 10
resource.setrlimit(resource.RLIMIT_AS, (vm + (256 << 20),) * 2)
x = torch.empty(65536, 65536, 0, 2)
assert rt.Dropout2d(0.5)(x) is x
assert rt.Dropout2d(0.5, inplace=True)(x) is x
leaf = x.clone().requires_grad_()
assert rt.Dropout2d(0.5)(leaf) is leaf
a = np.empty((65536, 65536, 0, 2), np.float32)
noise = (65536, 65536, 1, 1)
y, m = rndnn.dropout(a, seed=1, mask=None, noise_shape=noise)
assert y.shape == a.shape and m is None
assert rndnn.dropout_backward(a, seed=1, noise_shape=noise).shape == a.shape
print("ok")
"""
    env = dict(os.environ, PYTHONPATH=os.path.dirname(
        os.path.dirname(rndnn.__file__)))
    out = subprocess.run([sys.executable, "-c", code], env=env, cwd=tmp_path,
                         capture_output=True, text=True, timeout=300)
    assert out.stdout == "ok\n", out.stderr[-2000:]


def test_empty_data_moves_the_generator_on_as_any_data():
    # As for data with elements: torch's generator gives one word a
    # forward; an rndnn.Generator reserves the mask's elements (the noise
    # shape's: the C++ dropout's next offset).
    g = torch.Generator().manual_seed(2)
    rt.Dropout2d(0.5, generator=g)(torch.empty(2, 3, 0, 2))
    want = torch.Generator().manual_seed(2)
    torch.empty((), dtype=torch.int64).random_(generator=want)
    assert torch.equal(g.get_state(), want.get_state())
    r = rndnn.Generator(3, 10)
    rt.Dropout2d(0.5, generator=r)(torch.empty(2, 3, 0, 2))
    assert r.offset == 16
    rt.Dropout(0.5, generator=r)(torch.empty(2, 3, 0))
    assert r.offset == 16
    y, m = rndnn.dropout(np.empty((2, 3, 0), np.float32), generator=r,
                         noise_shape=(2, 3, 1))
    assert r.offset == 22 and y.shape == (2, 3, 0)
    # A mask asked for is the noise shape's, as ever.
    assert np.array_equal(m, rndnn.bernoulli(0.5, size=6, seed=3, offset=16,
                                             packed=True))


def test_rndnn_dropout_of_a_tensor_requiring_grad_backpropagates():
    # It was detached silently: y had no grad_fn.
    x = torch.randn(6, 10, requires_grad=True)
    y, mask = rndnn.dropout(x, 0.25, seed=2)
    assert y.requires_grad and y.grad_fn is not None
    y.backward(torch.ones_like(y))
    keep = torch.from_numpy(rndnn.unpackbits(mask, (6, 10))).bool()
    assert torch.equal(x.grad, keep.float() / 0.75)
    assert torch.equal(y.detach(), rndnn.dropout(x.detach(), 0.25,
                                                 seed=2)[0])
    dy = torch.ones(6, 10, requires_grad=True)
    dx = rndnn.dropout_backward(dy, 0.25, mask=mask)
    dx.sum().backward()
    assert torch.equal(dy.grad, keep.float() / 0.75)


def _model(kind=rt.Dropout):
    return torch.nn.Sequential(torch.nn.Linear(8, 16), kind(0.5),
                               torch.nn.Linear(16, 4))


@pytest.mark.parametrize("kind", [rt.Dropout, rt.Dropout1d])
def test_script_in_eval_and_train(kind):
    model = _model(kind)
    scripted = torch.jit.script(model)
    x = torch.randn(3, 8)
    scripted.eval(), model.eval()
    assert torch.equal(scripted(x), model(x))
    scripted.train(), model.train()
    torch.manual_seed(0)
    a = scripted(x)
    torch.manual_seed(0)
    assert torch.equal(scripted(x), a)  # replayed
    torch.manual_seed(0)
    assert torch.equal(model(x), a)  # the same masks as the eager model
    xg = x.clone().requires_grad_()
    scripted(xg).sum().backward()
    assert xg.grad is not None


def test_script_with_a_given_generator():
    g = torch.Generator()
    scripted = torch.jit.script(torch.nn.Sequential(
        rt.Dropout(0.5, generator=g)))
    x = torch.ones(50)
    g.manual_seed(1)
    a = scripted(x)
    g.manual_seed(1)
    assert torch.equal(scripted(x), a)


def test_trace_in_eval_and_train():
    model = _model()
    x = torch.randn(3, 8)
    model.eval()
    traced = torch.jit.trace(model, x)
    assert torch.equal(traced(x), model(x))
    model.train()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the check sees new masks
        traced = torch.jit.trace(model, x)
    assert "rndnn::dropout" in str(traced.inlined_graph)
    torch.manual_seed(5)
    a = traced(x)
    torch.manual_seed(5)
    assert torch.equal(traced(x), a)
    assert not torch.equal(traced(x), a)  # not frozen into the trace
    torch.manual_seed(5)
    assert torch.equal(model(x), a)


# Scripting a GraphModule warns about torch's own attributes.
@pytest.mark.filterwarnings("ignore:The TorchScript type system")
def test_fx_trace_and_script_of_one_model_agree():
    # torch.fx.symbolic_trace failed: "argument 'input' must be Tensor,
    # not Proxy". The modules are FX leaves, as torch's own dropouts.
    model = rt.replace_dropout(torch.nn.Sequential(
        torch.nn.Linear(8, 16), torch.nn.Dropout(0.5), torch.nn.ReLU(),
        torch.nn.Unflatten(1, (4, 2, 2)), torch.nn.Dropout2d(0.3)))
    x = torch.randn(3, 8)
    fx = torch.fx.symbolic_trace(model)
    assert [n.op for n in fx.graph.nodes].count("call_module") == 5
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the check sees new masks
        traced = torch.jit.trace(model, x, check_trace=False)
    forms = [fx, traced, torch.jit.script(model), torch.jit.script(fx)]
    torch.manual_seed(4)
    want = model(x)
    for f in forms:
        torch.manual_seed(4)
        assert torch.equal(f(x), want), f
    # A trace keeps the mode it was traced in, as torch's dropout's does.
    model.eval()
    forms[1] = torch.jit.trace(model, x)
    for f in forms:
        f.eval()
    assert all(torch.equal(f(x), model(x)) for f in forms)


def test_a_scripted_model_saves_and_loads(tmp_path):
    model = _model()
    path = str(tmp_path / "model.pt")
    torch.jit.save(torch.jit.script(model), path)
    loaded = torch.jit.load(path)
    x = torch.randn(3, 8)
    torch.manual_seed(2)
    a = loaded(x)
    torch.manual_seed(2)
    assert torch.equal(model(x), a)
    loaded.eval(), model.eval()
    assert torch.equal(loaded(x), model(x))


def test_an_unknown_generator_key_raises_in_train_mode_only():
    x = torch.ones(4)
    assert torch.ops.rndnn.dropout(x, 0.5, False, False, 0, True,
                                   10**9) is x
    with pytest.raises(Exception, match="no generator has key 1000000000"):
        torch.ops.rndnn.dropout(x, 0.5, True, False, 0, True, 10**9)


def test_a_loaded_model_never_borrows_another_processs_generator(tmp_path):
    # Keys were 1, 2, ... in each process: a model scripted with its own
    # generator and loaded in a process that had given a module a generator
    # first silently drew from that one. Scripted or traced, it raises
    # now, naming the key (TorchScript dropped the message of the error
    # raised in the operator's Python).
    model = torch.nn.Sequential(rt.Dropout(0.5, generator=torch.Generator()))
    x = torch.ones(8)
    torch.jit.save(torch.jit.script(model), str(tmp_path / "script.pt"))
    torch.jit.save(torch.jit.trace(model, x, check_trace=False),
                   str(tmp_path / "trace.pt"))
    code = """
import torch, rndnn.torch as rt
mine = rt.Dropout(0.5, generator=torch.Generator())
x = torch.ones(8)
for name in ("script.pt", "trace.pt"):
    loaded = torch.jit.load(name)
    try:
        loaded(x)
    except Exception as e:
        print(name, str(e).splitlines()[-1])
    else:
        print(name, "drew from key", mine._generator_key)
loaded = torch.jit.load("script.pt")
loaded.eval()
assert torch.equal(loaded(x), x)  # eval mode draws nothing
"""
    env = dict(os.environ, PYTHONPATH=os.path.dirname(
        os.path.dirname(rndnn.__file__)))
    out = subprocess.run([sys.executable, "-c", code], env=env, cwd=tmp_path,
                         check=True, capture_output=True, text=True).stdout
    key = model[0]._generator_key
    assert 0 < key < 2**63
    for name in ("script.pt", "trace.pt"):
        assert (f"{name} builtins.RuntimeError: rndnn.dropout: no generator "
                f"has key {key} in this process") in out, out
