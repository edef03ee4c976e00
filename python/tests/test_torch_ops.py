"""rndnn.torch's C++ operators (python/torch_ops.cpp, rndnn/_torch_ops.so)
against its Python path: the same outputs, masks, gradients (double
backward too), versions and generator states, bit for bit; the seed
draw; scripted and traced modules through the C++ operator, and their
errors' messages under TorchScript; the package's layout."""
import itertools
import os
import subprocess
import sys
import tempfile
import warnings

import pytest
import torch

import rndnn
import rndnn.torch as rt
import rndnn.torch.init
from rndnn import _arrays

needs_ops = pytest.mark.skipif(not rt._OPS, reason="built without torch's "
                               "headers: no C++ operators")

FNS = [rt.dropout, rt.dropout1d, rt.dropout2d, rt.dropout3d]
SHAPES = [(4, 8, 3, 5), (4, 8, 15), (4, 8, 3, 5), (2, 4, 8, 3, 5)]


@pytest.fixture
def python_path():
    """A function that runs its argument on the Python path (the C++
    operators off), then restores the C++ one."""
    def run(f, *args, **kwargs):
        old = rt._use_ops
        rt._use_ops = False
        try:
            return f(*args, **kwargs)
        finally:
            rt._use_ops = old
    return run


def _step(kind, use_generator, inplace, grad, mask, dtype, p=0.3):
    """One training forward and double backward, from fixed seeds: every
    result that either path must give alike."""
    torch.manual_seed(7)
    g = None
    if use_generator:
        g = torch.Generator()
        g.manual_seed(3)
    a = torch.randn(SHAPES[kind], dtype=dtype, requires_grad=grad)
    x = a * 1 if grad else a.clone()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        y = FNS[kind](x, p, inplace=inplace, generator=g, mask=mask)
    out = [y.detach().clone(), x._version, y._version, y is x,
           torch.get_rng_state(), g.get_state() if g is not None else None]
    if grad:
        dy = torch.arange(y.numel(), dtype=dtype).reshape(y.shape)
        (dx,) = torch.autograd.grad(y, a, dy, create_graph=True)
        w = torch.linspace(0, 1, a.numel()).reshape(a.shape).to(dtype)
        # dx is linear in dy: its gradient with respect to dy is the mask.
        dy.requires_grad_(True)
        (dx2,) = torch.autograd.grad(y, a, dy, create_graph=True)
        (ddy,) = torch.autograd.grad((dx2 * w).sum(), dy)
        out += [dx.detach(), ddy]
    return out


def _same(u, v):
    if isinstance(u, torch.Tensor):
        return u.dtype == v.dtype and torch.equal(u, v)
    return u == v


@needs_ops
@pytest.mark.parametrize("kind", [0, 1, 2, 3])
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16,
                                   torch.float16])
def test_cpp_and_python_paths_give_the_same_bits(kind, dtype, python_path):
    for use_g, inplace, grad, mask in itertools.product(
            [False, True], [False, True], [False, True], ["bit", None]):
        want = python_path(_step, kind, use_g, inplace, grad, mask, dtype)
        got = _step(kind, use_g, inplace, grad, mask, dtype)
        for i, (u, v) in enumerate(zip(got, want)):
            assert _same(u, v), (kind, dtype, use_g, inplace, grad, mask, i)


@needs_ops
def test_the_cpp_path_is_taken():
    a = torch.randn(64, requires_grad=True)
    y = rt.Dropout(0.5)(a * 1)
    assert type(y.grad_fn).__name__ == "CppFunction"
    y = rt.Dropout(0.5, generator=torch.Generator())(a * 1)
    assert type(y.grad_fn).__name__ == "CppFunction"
    # An rndnn.Generator and a shard keep the Python path.
    y = rt.Dropout(0.5, generator=rndnn.Generator(1))(a * 1)
    assert type(y.grad_fn).__name__ == "DropoutFunctionBackward"
    y = rt.dropout(a * 1, 0.5, shard=((128,), (64,)))
    assert type(y.grad_fn).__name__ == "DropoutFunctionBackward"


@needs_ops
def test_the_seed_is_torchs_draw():
    # One draw of random64() % 2^63 under the generator's mutex, as
    # torch.empty((), dtype=torch.int64).random_(generator).
    x = torch.ones(1000)
    for g in (None, torch.Generator()):
        gen = torch.default_generator if g is None else g
        gen.manual_seed(11)
        y = rt.dropout(x, 0.4, generator=g)
        state = gen.get_state()
        gen.manual_seed(11)
        seed = _arrays._torch_seed(g)
        assert torch.equal(state, gen.get_state())
        assert torch.equal(y, rndnn.dropout(x, 0.4, seed=seed)[0])
        assert 0 <= seed < 2**63


@needs_ops
def test_eval_p0_and_empty_tensors(python_path):
    x = torch.randn(3, 4)
    state = torch.get_rng_state()
    assert rt.dropout(x, 0.5, training=False) is x
    assert rt.dropout(x, 0.0) is x
    assert torch.equal(state, torch.get_rng_state())  # nothing drawn
    for shape in [(0,), (2, 0, 3)]:
        e = torch.empty(shape, requires_grad=True)
        torch.manual_seed(1)
        assert rt.dropout(e, 0.5) is e
        got = torch.get_rng_state()
        torch.manual_seed(1)
        assert python_path(rt.dropout, e, 0.5) is e
        assert torch.equal(got, torch.get_rng_state())  # one draw each


@needs_ops
def test_errors_keep_their_types_and_messages():
    with pytest.raises(rndnn.Error, match="dropout takes f32, bf16 or f16 "
                       "data, not torch.float64"):
        rt.dropout(torch.ones(4, dtype=torch.float64), 0.5)
    with pytest.raises(rndnn.Error, match="contiguous"):
        rt.dropout(torch.ones(4, 4).t(), 0.5, inplace=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires "
                       "grad is being used in an in-place operation"):
        rt.dropout(torch.ones(4, requires_grad=True), 0.5, inplace=True)
    with pytest.raises(ValueError, match="between 0 and 1, but got 1.5"):
        rt.dropout(torch.ones(4), 1.5)


@needs_ops
@pytest.mark.parametrize("how", ["script", "trace"])
def test_scripted_and_traced_modules_call_the_cpp_operator(how):
    model = torch.nn.Sequential(rt.Dropout(0.3), rt.Dropout2d(0.2),
                                rt.Dropout(0.1, mask=None,
                                           generator=torch.Generator()))
    model[2].generator.manual_seed(5)
    x = torch.randn(2, 3, 4, 5)
    if how == "script":
        jit = torch.jit.script(model)
    else:
        jit = torch.jit.trace(model, (x,), check_trace=False)
    assert "rndnn::dropout" in str(jit.inlined_graph)
    a = x.clone().requires_grad_(True)
    torch.manual_seed(3)
    model[2].generator.manual_seed(5)
    want = model(a)
    (want_dx,) = torch.autograd.grad(want.sum(), a)
    b = x.clone().requires_grad_(True)
    torch.manual_seed(3)
    model[2].generator.manual_seed(5)
    got = jit(b)
    assert type(got.grad_fn).__name__ == "CppFunction"
    (got_dx,) = torch.autograd.grad(got.sum(), b)
    assert torch.equal(got, want) and torch.equal(got_dx, want_dx)


@needs_ops
def test_errors_under_torchscript_keep_their_messages():
    d = torch.jit.script(rt.Dropout(0.5))
    with pytest.raises(RuntimeError, match="dropout takes f32, bf16 or f16 "
                       "data, not torch.float64"):
        d(torch.ones(4, dtype=torch.float64))
    d = torch.jit.script(rt.Dropout(0.5, inplace=True))
    with pytest.raises(RuntimeError, match="a leaf Variable that requires "
                       "grad is being used in an in-place operation"):
        d(torch.ones(4, requires_grad=True))
    with pytest.raises(RuntimeError, match="x must be contiguous to be "
                       "written in place"):
        d(torch.ones(4, 4).t())
    d1 = torch.jit.script(rt.Dropout1d(0.5))
    with pytest.raises(RuntimeError, match="dropout1d: Expected 2D or 3D "
                       "input, but received a 4D input"):
        d1(torch.ones(1, 2, 3, 4))
    with pytest.raises(ValueError, match="between 0 and 1, but got 1.5"):
        torch.ops.rndnn.dropout(torch.ones(4), 1.5, True, False, 0, True, 0)
    with pytest.raises(RuntimeError, match="no generator has key 12345 in "
                       "this process"):
        torch.ops.rndnn.dropout(torch.ones(4), 0.5, True, False, 0, True,
                                12345)
    # In eval mode an unknown key draws nothing and is no error.
    x = torch.ones(4)
    assert torch.ops.rndnn.dropout(x, 0.5, False, False, 0, True,
                                   12345) is x
    d2 = torch.jit.script(rt.Dropout2d(0.5))
    with pytest.warns(UserWarning, match="Received a 3D input to dropout2d"):
        d2(torch.ones(2, 3, 4))


@needs_ops
def test_scripted_rndnn_generator_and_shard_keep_the_python_path():
    g = rndnn.Generator(5)
    d = rt.Dropout(0.5, generator=g)
    s = torch.jit.script(d)
    x = torch.ones(100)
    y = s(x)
    assert g.offset == 100
    assert torch.equal(y, rndnn.dropout(x, 0.5, seed=5, offset=0)[0])
    d = rt.Dropout(0.5, shard=((4, 100), (1, 0)))
    torch.manual_seed(2)
    want = d(torch.ones(1, 100))
    torch.manual_seed(2)
    assert torch.equal(torch.jit.script(d)(torch.ones(1, 100)), want)


def test_python_path_alone_gives_the_same_bits():
    # A process without the C++ operators (RNDNN_TORCH_OPS=0: the
    # operators defined in Python, as where the package was built without
    # torch's headers) gives what this one gives, eager and scripted.
    code = """
import torch, rndnn.torch as rt
torch.manual_seed(4)
x = torch.randn(4, 6, 5, requires_grad=True)
outs = []
for m in (rt.Dropout(0.3), rt.Dropout1d(0.4, mask=None), rt.Dropout2d(0.2)):
    for f in (m, torch.jit.script(m)):
        y = f(x)
        (dx,) = torch.autograd.grad(y.sum() * 1.5, x)
        outs += [y.detach(), dx]
outs.append(torch.get_rng_state())
torch.save(outs, "out.pt")
print(rt._OPS)
"""
    results = []
    for ops in ("0", "1"):
        env = dict(os.environ, RNDNN_TORCH_OPS=ops, PYTHONPATH=os.path.dirname(
            os.path.dirname(rndnn.__file__)))
        with tempfile.TemporaryDirectory() as tmp:
            out = subprocess.run([sys.executable, "-W", "ignore", "-c",
                                  code], env=env, cwd=tmp, check=True,
                                 capture_output=True, text=True).stdout
            results.append((out.strip(), torch.load(os.path.join(tmp,
                                                                 "out.pt"))))
    assert results[0][0] == "False"
    built = os.path.exists(os.path.join(os.path.dirname(rndnn.__file__),
                                        "_torch_ops.so"))
    assert results[1][0] == str(built)
    for u, v in zip(results[0][1], results[1][1]):
        assert torch.equal(u, v)


def test_the_package_layout():
    import importlib
    init = importlib.import_module("rndnn.torch.init")
    assert init is rndnn.torch.init is rt.init
    assert init.__name__ == "rndnn.torch.init"
    assert init.__file__.endswith(os.path.join("rndnn", "torch", "init.py"))
    assert rt.__file__.endswith(os.path.join("rndnn", "torch",
                                             "__init__.py"))
    assert rt.__path__  # a package
    # No alias: every rndnn module is in sys.modules under its own name.
    for name, module in list(sys.modules.items()):
        if name.startswith("rndnn") and module is not None:
            assert module.__name__ == name, (name, module.__name__)
    # No import circle: _arrays imports neither rndnn.torch nor its init at
    # module level, and rndnn.torch.init does not import rndnn.torch's
    # names (a fresh interpreter imports each alone).
    for first in ("rndnn._arrays", "rndnn.torch.init", "rndnn.torch"):
        code = (f"import sys, importlib; importlib.import_module({first!r}); "
                "print(sorted(m for m in sys.modules if m.startswith("
                "'rndnn')))")
        out = subprocess.run([sys.executable, "-c", code], check=True,
                             capture_output=True, text=True,
                             env=dict(os.environ, PYTHONPATH=os.path.dirname(
                                 os.path.dirname(rndnn.__file__)))).stdout
        if first == "rndnn._arrays":
            assert "rndnn.torch" not in out, out


def test_autograd_is_reached_from_one_place():
    # The array layer (_arrays, _categorical) never reaches up to
    # rndnn.torch, not even inside a function: rndnn/__init__.py's
    # _torch_subpackage() is the one place that does (a tensor that
    # requires grad goes to it there).
    import ast
    package = os.path.dirname(rndnn.__file__)
    for module in ("_arrays.py", "_categorical.py", "__init__.py"):
        with open(os.path.join(package, module)) as f:
            tree = ast.parse(f.read())
        reaching = [node.lineno for node in ast.walk(tree)
                    if (isinstance(node, ast.ImportFrom) and node.level == 1
                        and (node.module == "torch" or any(
                            a.name == "torch" for a in node.names)))
                    or (isinstance(node, ast.Constant)
                        and node.value == ".torch")]
        assert len(reaching) == (1 if module == "__init__.py" else 0), (
            module, reaching)


def _softmax_step(use_generator, grad, mask, causal, dtype):
    torch.manual_seed(5)
    g = None
    if use_generator:
        g = torch.Generator()
        g.manual_seed(9)
    a = torch.randn(3, 4, 7, 9, dtype=dtype, requires_grad=grad)
    x = a * 1 if grad else a.clone()
    y = rt.softmax_dropout(x, 0.3, causal=causal, generator=g, mask=mask)
    out = [y.detach().clone(), y._version, torch.get_rng_state(),
           g.get_state() if g is not None else None]
    if grad:
        dy = torch.arange(y.numel(), dtype=dtype).reshape(y.shape)
        out += list(torch.autograd.grad(y, a, dy))
    return out


@needs_ops
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_softmax_dropout_paths_give_the_same_bits(dtype, python_path):
    for use_g, grad, mask, causal in itertools.product(
            [False, True], [False, True], ["bit", None], [False, True]):
        want = python_path(_softmax_step, use_g, grad, mask, causal, dtype)
        got = _softmax_step(use_g, grad, mask, causal, dtype)
        for i, (u, v) in enumerate(zip(got, want)):
            assert _same(u, v), (dtype, use_g, grad, mask, causal, i)


def _attention_step(script):
    torch.manual_seed(0)
    m = rt.MultiheadAttention(64, 4, dropout=0.1)
    if script:
        m = torch.jit.script(m)
    q = torch.randn(16, 4, 64, requires_grad=True)
    out, w = m(q, q, q)
    out.sum().backward()
    return [out.detach(), w.detach(), q.grad, m.in_proj_weight.grad,
            torch.get_rng_state()]


@needs_ops
@pytest.mark.parametrize("script", [False, True])
def test_multihead_attention_paths_give_the_same_bits(script, python_path):
    want = python_path(_attention_step, script)
    got = _attention_step(script)
    for u, v in zip(got, want):
        assert torch.equal(u, v)
    a = torch.randn(2, 3, 5, requires_grad=True)
    y = rt.softmax_dropout(a * 1, 0.5)
    assert type(y.grad_fn).__name__ == "CppFunction"


@needs_ops
def test_softmax_dropout_errors_under_torchscript():
    with pytest.raises(RuntimeError, match="softmax_dropout takes f32 or "
                       "bf16 scores, not torch.float64"):
        rt._scripted_softmax_dropout(torch.ones(2, 3, dtype=torch.float64),
                                     0.5, True, 0)
    with pytest.raises(RuntimeError, match="no generator has key 54321"):
        torch.ops.rndnn.softmax_dropout(torch.ones(2, 3), 0.5, True, 54321)


@needs_ops
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16,
                                   torch.float16])
def test_expanded_and_strided_gradients(dtype, python_path):
    # y.sum().backward() gives the backward one value expanded; a
    # transposed gradient is another non-contiguous one.
    def run(mask, how):
        torch.manual_seed(1)
        a = torch.randn(40, 30, dtype=dtype, requires_grad=True)
        y = rt.dropout(a * 1, 0.3, mask=mask)
        if how == "sum":
            (y.sum() * 3).backward()
        else:
            y.backward(torch.randn(30, 40, dtype=dtype).t())
        return a.grad
    for mask, how in itertools.product(["bit", None], ["sum", "t"]):
        assert torch.equal(run(mask, how), python_path(run, mask, how))
