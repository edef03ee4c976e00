"""The functions as numpy.random.Generator's: size=, low/high, loc/scale,
dtypes of NumPy, torch or by name, the default generator and manual_seed,
bernoulli of the shape asked for (packed bits on request), p everywhere
(rate still accepted), exceptions of the right type, rndnn.torch without
importing it, docstrings, stubs."""
import os
import pathlib
import pydoc
import subprocess
import sys
import threading

import numpy as np
import pytest
import torch

import rndnn

PACKAGE = pathlib.Path(rndnn.__file__).parent


@pytest.fixture(autouse=True)
def _reseed():
    rndnn.manual_seed(0)


def test_numpy_positional_order_and_names():
    # NumPy's order: the parameters, then size, positional or by keyword;
    # the older keyword names give the same values.
    assert np.array_equal(rndnn.normal(1.0, 2.0, size=(2, 3), seed=4),
                          rndnn.normal(1.0, 2.0, (2, 3), seed=4))
    assert np.array_equal(rndnn.normal(loc=1.0, scale=2.0, size=5, seed=4),
                          rndnn.normal(size=5, mean=1.0, stddev=2.0, seed=4))
    u = rndnn.uniform(-2.0, -1.0, size=1000, seed=1)
    assert u.shape == (1000,) and u.min() >= -2.0 and u.max() <= -1.0
    assert np.array_equal(u, rndnn.uniform(size=1000, a=-2.0, b=-1.0, seed=1))
    assert np.array_equal(rndnn.uniform(low=-2.0, high=-1.0, size=1000,
                                        seed=1), u)
    assert rndnn.bits(size=(2, 2), seed=0).shape == (2, 2)
    # The calls: never an empty array any more.
    assert rndnn.uniform(0, 1, 3).shape == (3,)
    assert rndnn.normal(0, 2, 5).shape == (5,)
    assert rndnn.bernoulli(0.9, 7).shape == (7,)
    assert rndnn.bits(4).shape == (4,)


def test_bits_dtype():
    words = rndnn.bits(6, seed=3)
    assert words.dtype == np.uint32
    for dtype in ("int32", np.int32, "s32"):
        s = rndnn.bits(size=6, dtype=dtype, seed=3)
        assert s.dtype == np.int32 and s.view(np.uint32).tolist() == \
            words.tolist()
    t = rndnn.bits(6, dtype=torch.int32, seed=3)
    assert isinstance(t, torch.Tensor) and t.dtype == torch.int32
    assert t.numpy().view(np.uint32).tolist() == words.tolist()
    with pytest.raises(rndnn.Error, match="bits\\(\\) writes 32-bit words"):
        rndnn.bits(6, dtype="float32")


def test_bernoulli_out_with_positional_p():
    buf = np.empty(100, np.uint8)
    assert rndnn.bernoulli(0.9, out=buf, seed=5) is buf
    assert np.array_equal(buf, rndnn.bernoulli(0.9, 100, seed=5))


@pytest.mark.parametrize("dtype", [bool, np.bool_, "bool", torch.bool])
def test_bool_masks(dtype):
    b = rndnn.bernoulli(0.3, (4, 9), dtype=dtype, seed=2)
    got = b.numpy() if isinstance(b, torch.Tensor) else b
    assert got.dtype == np.bool_
    assert np.array_equal(got, rndnn.bernoulli(0.3, (4, 9), seed=2) == 1)
    out = np.zeros((4, 9), bool)
    rndnn.bernoulli(0.3, out=out, seed=2)
    assert np.array_equal(out, got)
    with pytest.raises(rndnn.Error, match="does not write bool"):
        rndnn.uniform(size=3, dtype=bool)


def test_bool_dropout_masks():
    x = rndnn.normal(size=(6, 5), seed=1, dtype="f32")
    y, m = rndnn.dropout(x, 0.4, seed=3, mask="bool")
    y8, m8 = rndnn.dropout(x, 0.4, seed=3, mask="u8")
    assert m.dtype == np.bool_ and np.array_equal(m, m8 == 1)
    assert np.array_equal(y, y8)
    assert np.array_equal(rndnn.dropout_backward(x, 0.4, mask=m),
                          rndnn.dropout_backward(x, 0.4, mask=m8))


def test_a_torch_generator_gives_the_seed():
    g = torch.Generator().manual_seed(11)
    a = rndnn.normal(size=8, generator=g)
    b = rndnn.normal(size=8, generator=g)
    assert not np.array_equal(a, b)  # it moved on
    g.manual_seed(11)
    seed = int(torch.empty((), dtype=torch.int64).random_(generator=g))
    assert np.array_equal(a, rndnn.normal(size=8, seed=seed))
    g.manual_seed(11)
    x = np.ones(16, np.float32)
    y, _ = rndnn.dropout(x, 0.5, generator=g)
    assert np.array_equal(y, rndnn.dropout(x, 0.5, seed=seed)[0])


def test_dir_is_clean():
    names = dir(rndnn)
    for private in ("np", "sys", "functools", "importlib", "numbers",
                    "operator", "_ALG", "_array"):
        assert private not in names
    assert set(rndnn.__all__) <= set(names) and "torch" in names


def test_size_none_gives_one_value_or_outs_shape():
    v = rndnn.normal(seed=3)
    assert np.ndim(v) == 0 and isinstance(v, np.float64)
    assert v == rndnn.normal(size=1, seed=3)[0]
    out = np.empty((3, 4), np.float32)
    assert rndnn.uniform(seed=2, out=out) is out
    assert np.array_equal(out, rndnn.uniform(size=(3, 4), seed=2,
                                             dtype=np.float32))


@pytest.mark.parametrize("dtype", ["float16", "f16", "half", np.float16,
                                   np.dtype("float16")])
def test_dtype_as_string_or_numpy(dtype):
    y = rndnn.normal(size=8, dtype=dtype, seed=1)
    assert isinstance(y, np.ndarray) and y.dtype == np.float16


@pytest.mark.parametrize("dtype,want", [
    (torch.float16, "f16"), (torch.bfloat16, "bf16"),
    (torch.float32, "f32")])
def test_a_torch_dtype_gives_a_torch_tensor(dtype, want):
    y = rndnn.uniform(size=(2, 5), dtype=dtype, seed=6)
    assert isinstance(y, torch.Tensor) and y.dtype == dtype
    got = y.view(torch.int16) if dtype == torch.bfloat16 else y
    assert got.numpy().tobytes() == rndnn.uniform(
        size=(2, 5), dtype=want, seed=6).tobytes()


def test_bernoulli_dtypes():
    b = rndnn.bernoulli(0.5, size=20, dtype=torch.uint8, seed=1)
    assert isinstance(b, torch.Tensor) and b.dtype == torch.uint8
    for dtype, np_type in (("int32", np.int32), (np.float32, np.float32),
                           ("uint8", np.uint8)):
        assert rndnn.bernoulli(0.5, size=20, dtype=dtype).dtype == np_type


def test_without_a_seed_the_default_generator_moves_on():
    a, b = rndnn.normal(size=16), rndnn.normal(size=16)
    assert not np.array_equal(a, b)
    assert rndnn.default_generator == rndnn.Generator(0, 32)
    # Its draws are those of (its seed, the offset reserved): rndnn gen's.
    assert np.array_equal(a, rndnn.normal(size=16, seed=0, offset=0))
    assert np.array_equal(b, rndnn.normal(size=16, seed=0, offset=16))
    assert rndnn.manual_seed(7) is rndnn.default_generator
    c = rndnn.normal(size=16)
    rndnn.manual_seed(7)
    assert np.array_equal(rndnn.normal(size=16), c)
    assert np.array_equal(rndnn.normal(size=16, seed=5),
                          rndnn.normal(size=16, seed=5))  # no draw


def test_a_given_generator_moves_on_and_a_failed_call_does_not():
    g = rndnn.Generator(3, 10)
    rndnn.bernoulli(0.5, size=(4, 4), generator=g)
    assert g.offset == 26
    # Refused before the generator reserves anything: by Python, by the
    # library, for torch tensors that require grad too.
    x, leaf = np.ones(8, np.float32), torch.ones(8, requires_grad=True)
    for call in (lambda: rndnn.bernoulli(2.0, size=4, generator=g),
                 lambda: rndnn.normal(size=4, alg="nope", generator=g),
                 lambda: rndnn.normal(size=4, generator=g,
                                      out=np.empty(3, np.float32)),
                 lambda: rndnn.dropout(x, generator=g, method="bitsliced:40"),
                 lambda: rndnn.dropout(x, 0.9, generator=g,
                                       method="bitsliced:1"),
                 lambda: rndnn.dropout(leaf, generator=g,
                                       method="bitsliced:40"),
                 lambda: rndnn.dropout(x, generator=g,
                                       out=np.empty(7, np.float32))):
        with pytest.raises(rndnn.Error):
            call()
        assert g.offset == 26
    y, _ = rndnn.dropout(np.ones(8, np.float32), 0.5, generator=g)
    assert g.offset == 34
    assert np.array_equal(y, rndnn.dropout(np.ones(8, np.float32), 0.5,
                                           seed=3, offset=26)[0])


def test_threads_sharing_a_generator_never_get_one_range_twice():
    # A call that raised put the generator back where it had been before
    # its reservation, undoing the ranges that other threads reserved
    # meanwhile (torch's allocations and the kernels release the GIL): their
    # draws overlapped, and the offset ended short of the elements drawn.
    # A bad argument now reserves nothing, and nothing is ever given back.
    g = rndnn.Generator(5, 0)
    n, calls, threads = 1 << 12, 100, 4
    x, wrong = torch.ones(n), torch.empty(n - 1)  # out of the wrong size
    drawn = [[] for _ in range(threads)]
    surprises = []

    def work(k):
        for _ in range(calls):
            drawn[k].append(rndnn.bits(n, generator=g))
            try:
                rndnn.dropout(x, generator=g, out=wrong)
                surprises.append("out of the wrong size was taken")
            except rndnn.Error:
                pass
            except BaseException as e:  # pragma: no cover
                surprises.append(e)

    workers = [threading.Thread(target=work, args=(k,))
               for k in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert not surprises
    assert g.offset == threads * calls * n
    # Each range of n handed out once: the draws are the chunks of one
    # long draw, each once.
    want = rndnn.bits(threads * calls * n, seed=5, offset=0).reshape(-1, n)
    assert sorted(a.tobytes() for d in drawn for a in d) == sorted(
        w.tobytes() for w in want)


def test_dropout_without_a_seed_differs_between_calls():
    x = np.ones(256, np.float32)
    (a, ma), (b, _) = rndnn.dropout(x, 0.5), rndnn.dropout(x, 0.5)
    assert not np.array_equal(a, b)
    assert np.array_equal(rndnn.dropout_backward(x, 0.5, mask=ma), a)
    with pytest.raises(TypeError, match="needs the forward's mask= or its "
                       "seed="):
        rndnn.dropout_backward(x, 0.5)


def test_bernoulli_has_the_shape_asked_for():
    b = rndnn.bernoulli(size=(64, 1024), seed=1)
    assert b.shape == (64, 1024) and b.dtype == np.uint8
    assert set(np.unique(b)) <= {0, 1}
    packed = rndnn.bernoulli(size=(64, 1024), seed=1, packed=True)
    assert packed.shape == (8192,)
    assert np.array_equal(rndnn.unpackbits(packed, (64, 1024)), b)
    assert np.array_equal(rndnn.bernoulli(size=(64, 1024), seed=1,
                                          dtype="bit"), packed)
    with pytest.raises(rndnn.Error, match=r"packed=True\) gives packed bits"):
        rndnn.bernoulli(size=8, packed=True, dtype="f32")


def test_p_everywhere_and_rate_still_accepted():
    x = np.ones(64, np.float32)
    y, m = rndnn.dropout(x, p=0.3, seed=1)
    assert np.array_equal(rndnn.dropout(x, rate=0.3, seed=1)[0], y)
    assert np.array_equal(rndnn.dropout(x, 0.3, seed=1)[0], y)
    assert np.array_equal(rndnn.dropout_backward(x, rate=0.3, mask=m), y)
    with pytest.raises(TypeError, match="p=0.3 and rate=0.3"):
        rndnn.dropout(x, p=0.3, rate=0.3)
    with pytest.raises(rndnn.Error, match=r"dropout probability p=1.5 is "
                       r"outside \[0, 1\]"):
        rndnn.dropout(x, 1.5)
    assert np.array_equal(rndnn.bernoulli(p=0.2, size=9, seed=1),
                          rndnn.bernoulli(0.2, size=9, seed=1))


@pytest.mark.parametrize("call,error,message", [
    (lambda: rndnn.dropout([1.0, 2.0], 0.5), TypeError,
     "x must be a NumPy array or a torch tensor, not list"),
    (lambda: rndnn.dropout_backward([1.0], 0.5, seed=0), TypeError,
     "dy must be a NumPy array or a torch tensor, not list"),
    (lambda: rndnn.normal(size=4, seed=2**64), OverflowError,
     r"seed=18446744073709551616 is outside \[-2\^63, 2\^63\)"),
    (lambda: rndnn.normal(size=4, seed=2**63), OverflowError,
     r"seed=9223372036854775808 is outside"),
    (lambda: rndnn.normal(size=4, seed=0, offset=-1), OverflowError,
     r"offset=-1 is outside \[0, 2\^63\)"),
    (lambda: rndnn.bits(4, stream=-1), OverflowError, "stream=-1"),
    (lambda: rndnn.normal(size=4, seed=1.5), TypeError,
     "seed must be an integer, not float 1.5"),
    (lambda: rndnn.manual_seed(1.5), TypeError,
     "seed must be an integer, not float 1.5"),
    (lambda: rndnn.manual_seed(-1 - 2**63), OverflowError, "seed="),
    (lambda: rndnn.Generator(2**63), OverflowError,
     "seed=9223372036854775808 is outside"),
    (lambda: rndnn.Generator("1"), TypeError,
     "seed must be an integer, not str '1'"),
    (lambda: rndnn.Generator(0, 1.0), TypeError, "offset must be an integer"),
    (lambda: rndnn.Generator().reserve(-1), OverflowError, "count=-1"),
    (lambda: rndnn.Generator.load("x" * 16), TypeError,
     "state must be bytes, not str"),
    (lambda: rndnn.bernoulli("0.5", size=4), TypeError,
     "p must be a real number, not str '0.5'"),
    (lambda: rndnn.normal([0.0, 1.0], size=2), TypeError,
     "loc must be a real number, not list"),
    (lambda: rndnn.uniform(size=2, high=None), TypeError,
     "high must be a real number, not NoneType"),
    (lambda: rndnn.normal(size=4, alg=1), TypeError, "alg must be a string"),
    (lambda: rndnn.normal(size=4, alg="nope"), rndnn.Error, "nope"),
    (lambda: rndnn.normal(size=4, dtype="float128"), rndnn.Error,
     "unknown dtype 'float128'"),
    (lambda: rndnn.normal(size=4, dtype=np.complex128), rndnn.Error,
     "dtype complex128 is not one rndnn writes"),
    (lambda: rndnn.normal(size=4, dtype=torch.complex64), rndnn.Error,
     "dtype torch.complex64 is not one rndnn writes"),
    (lambda: rndnn.integers(9, size=4, dtype=np.float64), rndnn.Error,
     "cannot write dst type f64"),
    (lambda: rndnn.bernoulli(size=4, dtype="float64"), rndnn.Error,
     "cannot write dst type f64"),
    (lambda: rndnn.normal(size=4, dtype=3.0), TypeError,
     "dtype must be a string, a NumPy dtype or a torch dtype"),
    (lambda: rndnn.normal(size=4, offset=3), TypeError, "offset= goes with seed="),
    (lambda: rndnn.normal(size=4, seed=1, generator=rndnn.Generator()),
     TypeError, "exclude each other"),
    (lambda: rndnn.normal(size=4, generator=np.random.default_rng()),
     TypeError, "generator must be an rndnn.Generator or a torch.Generator, "
     "not Generator"),
    (lambda: rndnn.normal(0.0, 1.0, 4, size=4), TypeError,
     "multiple values for argument 'size'"),
    (lambda: rndnn.normal((2, 3), 1.0, 2.0), TypeError,
     r"loc must be a real number, not tuple \(2, 3\) \(the positional "
     r"arguments are NumPy's: loc, scale, size\)"),
    (lambda: rndnn.normal(1.0, size=4, loc=2.0), TypeError,
     "multiple values for argument 'loc'"),
    (lambda: rndnn.normal(size=4, mean=0.0, loc=0.0), TypeError,
     "got mean= and loc="),
    (lambda: rndnn.normal(size=4, nope=1), TypeError,
     "normal\\(\\) got an unexpected keyword argument 'nope'"),
    (lambda: rndnn.bernoulli(size=0.3), TypeError,
     "size 0.3 is not an int"),
    # Strings that are no UTF-8 and values past C++'s types reached
    # pybind11, which refused them as "incompatible function arguments".
    (lambda: rndnn.normal(size=4, name="\udcff"), rndnn.Error,
     r"name '\\udcff' is not valid UTF-8 text: its character 0 is a "
     "lone surrogate"),
    (lambda: rndnn.dropout(np.ones(4, np.float32), alg="philox\udcff"),
     rndnn.Error, "alg 'philox.*' is not valid UTF-8 text: its character 6"),
    (lambda: rndnn.dropout_backward(np.ones(4, np.float32), seed=1,
                                    method="auto\ud800"),
     rndnn.Error, "method 'auto.*' is not valid UTF-8"),
    (lambda: rndnn.bernoulli(size=4, method="bitsliced:\udcff"),
     rndnn.Error, "method 'bitsliced:.*' is not valid UTF-8"),
    (lambda: rndnn.dropout(np.ones(4, np.float32), name=b"key"), TypeError,
     "name must be a string, not bytes b'key'"),
    (lambda: rndnn.normal(size=2**63, out=np.empty(4, np.float32)),
     OverflowError, r"size \(9223372036854775808,\) has a dim outside "
     r"\[0, 2\^63\)"),
    (lambda: rndnn.unpackbits(np.ones(1, np.uint8), 2**70), OverflowError,
     "shape .* has a dim outside"),
    (lambda: rndnn.bernoulli(10**400, size=4), OverflowError,
     "p=1000.* is outside the range of a double"),
    (lambda: rndnn.bernoulli(size=4, method="bitsliced:4294967304"),
     rndnn.Error, "bit count 4294967304 in method 'bitsliced:4294967304' is "
     r"outside \[1, 32\]"),
    (lambda: rndnn.dropout(np.ones(4, np.float32),
                           method="bitsliced:4294967304"),
     rndnn.Error, "bit count 4294967304"),
])
def test_bad_arguments_raise_the_right_type_naming_the_value(call, error,
                                                             message):
    with pytest.raises(error, match=message) as e:
        call()
    assert "incompatible function arguments" not in str(e.value)


def test_out_of_range_is_both_overflow_and_rndnn_error():
    assert issubclass(rndnn.OutOfRangeError, OverflowError)
    assert issubclass(rndnn.OutOfRangeError, rndnn.Error)
    assert issubclass(rndnn.Error, ValueError)
    rndnn.normal(size=2, seed=-(1 << 63))  # negative seeds stay: the CLI's s64
    assert rndnn.Generator(-5).seed == -5


def test_rndnn_torch_is_reachable_lazily(tmp_path):
    # `import rndnn` imports no torch; rndnn.torch then imports it.
    code = ("import sys, rndnn; assert 'torch' not in sys.modules; "
            "d = rndnn.torch.Dropout(0.5); assert 'torch' in sys.modules; "
            "print(type(d).__module__)")
    env = dict(os.environ, PYTHONPATH=str(PACKAGE.parent))
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env,
                         check=True, capture_output=True, text=True)
    assert out.stdout.strip() == "rndnn.torch"
    assert "torch" in dir(rndnn)
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        rndnn.nope


def test_help_shows_docstrings():
    text = pydoc.render_doc(rndnn.Generator, renderer=pydoc.plaintext)
    assert "a seed and the next free element" in text
    assert "Reserves the elements" in text
    text = pydoc.render_doc(rndnn.normal, renderer=pydoc.plaintext)
    assert "normal(loc=0.0, scale=1.0, size=None" in text
    assert "Normal(loc, scale)" in text and "size=" in text
    import rndnn.torch as rt
    assert "torch.manual_seed" in pydoc.render_doc(rt, renderer=pydoc.plaintext)
    for f in (rndnn.bits, rndnn.bernoulli, rndnn.uniform, rndnn.dropout,
              rndnn.dropout_backward, rndnn.manual_seed, rt.dropout2d,
              rt.replace_dropout, rt.Dropout3d):
        assert f.__doc__ and len(f.__doc__) > 40, f


def test_stubs_and_py_typed_are_in_the_package():
    for name in ("py.typed", "__init__.pyi", "torch/__init__.pyi",
                 "_rndnn.pyi", "torch/init.pyi", "torch/init.py"):
        assert (PACKAGE / name).is_file(), name
    stub = (PACKAGE / "__init__.pyi").read_text()
    for name in rndnn.__all__:
        assert name in stub, name
    compile(stub, "__init__.pyi", "exec")
    compile((PACKAGE / "torch/__init__.pyi").read_text(),
            "torch/__init__.pyi", "exec")
    stub = (PACKAGE / "torch/init.pyi").read_text()
    compile(stub, "torch/init.pyi", "exec")
    for name in rndnn.torch.init.__all__:
        assert f"def {name}(" in stub, name
