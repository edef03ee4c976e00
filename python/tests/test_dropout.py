"""rndnn.dropout and rndnn.dropout_backward on NumPy arrays and torch
tensors: the bytes of `rndnn dropout`'s files, masks kept as bits, as u8 or
not at all, in place, with a noise shape, errors, and the GIL released."""
import os
import subprocess
import sys
import threading
import time

import numpy as np
import pytest
import torch

import rndnn

BF16 = np.uint16  # NumPy has no bf16: its bits, as rndnn's files hold them


def data(shape, dtype, seed=1):
    if dtype is BF16:
        return rndnn.normal(size=shape, seed=seed, dtype="bf16")
    return rndnn.normal(size=shape, seed=seed).astype(dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, BF16])
@pytest.mark.parametrize("mask", ["bit", "u8"])
def test_forward_and_backward_equal_rndnn_dropout(cli, dtype, mask):
    x = data((5, 37), dtype)
    load = cli("dropout", "--in", "@x", "--out", "@y", "--mask-out", "@m",
               "--mask-dtype", mask, "--rate", "0.3", "--seed", "11",
               "--offset", "7", x=x)
    y, m = rndnn.dropout(x, 0.3, seed=11, offset=7, mask=mask)
    assert y.dtype == x.dtype and y.shape == x.shape
    assert y.tobytes() == load("y").tobytes()
    assert m.tobytes() == load("m").tobytes()
    load = cli("dropout", "--backward", "--in", "@x", "--out", "@dx",
               "--rate", "0.3", "--seed", "11", "--offset", "7", x=x)
    # From the mask and recomputed: the same bytes as the command's.
    for dx in (rndnn.dropout_backward(x, 0.3, mask=m),
               rndnn.dropout_backward(x, 0.3, seed=11, offset=7)):
        assert dx.tobytes() == load("dx").tobytes()


def test_the_mask_is_bernoulli_of_one_minus_the_rate(cli):
    x = np.ones(1000, np.float32)
    y, m = rndnn.dropout(x, 0.25, seed=-3, offset=100)
    want = cli("gen", "--dist", "bernoulli", "--p", "0.75", "--shape",
               "1000", "--seed", "-3", "--offset", "100", "--out", "@m")("m")
    assert m.tobytes() == want.tobytes()
    keep = rndnn.unpackbits(m, 1000).astype(bool)
    assert np.all(y[keep] == np.float32(4 / 3)) and np.all(y[~keep] == 0)


def test_no_mask_kept():
    x = data(100, np.float32)
    y, m = rndnn.dropout(x, 0.5, seed=2, mask=None)
    assert m is None
    assert y.tobytes() == rndnn.dropout(x, 0.5, seed=2)[0].tobytes()


def test_noise_shape_shares_the_mask(cli):
    x = data((6, 4, 9), np.float32)
    y, m = rndnn.dropout(x, 0.5, seed=5, noise_shape=(6, 1, 9), mask="u8")
    assert m.shape == (6, 1, 9)
    want = cli("dropout", "--in", "@x", "--out", "@y", "--rate", "0.5",
               "--seed", "5", "--noise-shape", "6x1x9", x=x)("y")
    assert y.tobytes() == want.tobytes()
    dx = rndnn.dropout_backward(x, 0.5, mask=m, noise_shape=(6, 1, 9))
    assert np.array_equal(dx == 0, np.broadcast_to(m == 0, x.shape) | (x == 0))


def test_in_place():
    x = data((3, 50), np.float32)
    want, _ = rndnn.dropout(x, 0.4, seed=8)
    y, _ = rndnn.dropout(x, 0.4, seed=8, out=x)
    assert y is x and x.tobytes() == want.tobytes()
    dy = data((3, 50), np.float32, seed=2)
    want = rndnn.dropout_backward(dy, 0.4, seed=8)
    assert rndnn.dropout_backward(dy, 0.4, seed=8, out=dy) is dy
    assert dy.tobytes() == want.tobytes()


@pytest.mark.parametrize("dtype,view", [(torch.float32, None),
                                        (torch.float16, None),
                                        (torch.bfloat16, torch.int16)])
def test_torch_tensors_equal_numpy_arrays(dtype, view):
    x = torch.randn(4, 33).to(dtype)
    y, m = rndnn.dropout(x, 0.2, seed=6, offset=1)
    assert isinstance(y, torch.Tensor) and y.dtype == dtype
    assert m.dtype == torch.uint8 and m.shape == (17,)
    x_np = (x.view(view) if view else x).numpy()
    if view:
        x_np = x_np.view(BF16)
    y_np, m_np = rndnn.dropout(x_np, 0.2, seed=6, offset=1)
    assert (y.view(view) if view else y).numpy().tobytes() == y_np.tobytes()
    assert m.numpy().tobytes() == m_np.tobytes()
    dx = rndnn.dropout_backward(x, 0.2, mask=m)
    assert torch.equal(dx, y)


def test_errors_name_the_bad_value():
    x = np.ones(8, np.float32)
    with pytest.raises(rndnn.Error, match="1.5"):
        rndnn.dropout(x, 1.5)
    with pytest.raises(rndnn.Error, match="not float64"):
        rndnn.dropout(np.ones(8), 0.5)
    with pytest.raises(rndnn.Error, match="unknown mask 'f32'"):
        rndnn.dropout(x, 0.5, mask="f32")
    with pytest.raises(rndnn.Error, match="out is float16, the data is float32"):
        rndnn.dropout(x, 0.5, out=np.ones(8, np.float16))
    with pytest.raises(rndnn.Error, match=r"mask is uint8 of shape \(2,\);"
                       r".* uint8 or bool of shape \(8,\) or packed bits \(uint8\) "
                       r"of shape \(1,\)"):
        rndnn.dropout_backward(x, 0.5, mask=np.ones(2, np.uint8))
    with pytest.raises(rndnn.Error, match="noise"):
        rndnn.dropout(x, 0.5, noise_shape=(3,))
    with pytest.raises(rndnn.Error, match="contiguous"):
        rndnn.dropout(torch.ones(8, 2).t(), 0.5)


@pytest.mark.parametrize("call", [
    lambda: rndnn.dropout(np.ones(8, np.float32), seed=1, method="onednn"),
    lambda: rndnn.dropout_backward(np.ones(8, np.float32), seed=1,
                                   method="onednn")])
def test_method_onednn_is_refused_in_pythons_words(call):
    # The library's message told Python users to "give onednn_compat", an
    # argument Python does not have.
    with pytest.raises(rndnn.Error) as e:
        call()
    assert str(e.value) == (
        "dropout has no method 'onednn' (oneDNN's rule is "
        "rndnn.bernoulli's, with alg='philox4x32_10_onednn'); "
        "rndnn.dropout's methods are 'auto', 'threshold32', 'bytewise' "
        "and 'bitsliced:B'")


def test_a_u8_mask_needs_the_forwards_noise_shape():
    # (1, 10) bytes are as many as the packed bits of (8, 10): read as bits,
    # the 0/1 bytes kept 1 element in 8, with no error.
    x = np.ones((8, 10), np.float32)
    y, m = rndnn.dropout(x, 0.5, seed=1, mask="u8", noise_shape=(1, 10))
    with pytest.raises(rndnn.Error, match=r"mask is uint8 of shape \(1, 10\);"
                       r".*\(pass the forward's noise_shape\)"):
        rndnn.dropout_backward(x, 0.5, mask=m)
    with pytest.raises(rndnn.Error, match=r"mask is torch.uint8 of shape \(1, 10\)"):
        rndnn.dropout_backward(torch.ones(8, 10), 0.5, mask=torch.from_numpy(m))
    dx = rndnn.dropout_backward(x, 0.5, mask=m, noise_shape=(1, 10))
    assert dx.tobytes() == y.tobytes()


@pytest.mark.parametrize("array", [
    lambda n: np.arange(n, dtype=np.float32),
    lambda n: torch.arange(n, dtype=torch.float32)])
def test_out_overlapping_the_input_is_refused(array):
    # Shifted by one element, the kernel read what it had written: 6247
    # of 100,000 elements were wrong.
    n = 100_000
    buf = array(n + 1)
    with pytest.raises(rndnn.Error, match="out overlaps x in memory "
                       r"\(out starts \+4 bytes from x"):
        rndnn.dropout(buf[:n], 0.0, out=buf[1:])
    with pytest.raises(rndnn.Error, match="out overlaps dy .* -4 bytes"):
        rndnn.dropout_backward(buf[1:], 0.5, seed=0, out=buf[:n])
    assert np.array_equal(np.asarray(buf), np.arange(n + 1))  # untouched
    x = buf[:n]
    assert rndnn.dropout(x, 0.0, out=x)[0] is x  # in place stays allowed
    assert np.array_equal(np.asarray(x), np.arange(n))


def test_out_overlapping_the_mask_is_refused():
    buf = np.zeros(40, np.uint8)
    mask, out = buf[:8], buf[4:36].view(np.float32)
    with pytest.raises(rndnn.Error, match="out overlaps mask"):
        rndnn.dropout_backward(np.ones(8, np.float32), 0.5, mask=mask, out=out)


def test_a_bad_noise_shape_is_refused_before_the_mask_is_made():
    # The mask of the shape asked for was made first: MemoryError.
    x = np.ones((4, 5), np.float32)
    with pytest.raises(rndnn.Error, match=r"noise shape \(1099511627776, 5\) "
                       r"does not fit the data shape \(4, 5\)"):
        rndnn.dropout(x, 0.5, noise_shape=(1 << 40, 5))
    for bad in ((4, 5, 1), (2, 5)):
        with pytest.raises(rndnn.Error, match=r"noise shape \(\d, 5"):
            rndnn.dropout(x, 0.5, noise_shape=bad, mask=None)
        with pytest.raises(rndnn.Error, match=r"noise shape \(\d, 5"):
            rndnn.dropout_backward(x, 0.5, noise_shape=bad)


def test_data_that_is_no_array_is_a_type_error():
    # With a mask to make, dropout read x.shape first: AttributeError.
    with pytest.raises(TypeError, match="x must be a NumPy array or a torch "
                       "tensor, not list"):
        rndnn.dropout([1.0, 2.0], 0.5)
    with pytest.raises(TypeError, match="dy must be a NumPy array or a torch "
                       "tensor, not list"):
        rndnn.dropout_backward([1.0, 2.0], 0.5, mask=np.ones(1, np.uint8))


def test_the_gil_is_released():
    # While one thread is inside dropout, this one runs Python: iterations
    # strictly inside the call are impossible if the call held the GIL
    # (5 ms switch interval; the margins take 10 ms off each end).
    x = np.ones(1 << 24, np.float32)
    y = np.empty_like(x)
    for _ in range(5):
        span = []

        def call():
            span.append(time.perf_counter())
            rndnn.dropout(x, 0.5, out=y, mask=None)
            span.append(time.perf_counter())

        worker = threading.Thread(target=call)
        ticks = []
        worker.start()
        while worker.is_alive():
            ticks.append(time.perf_counter())
        worker.join()
        start, end = span[0] + 0.01, span[1] - 0.01
        if end - start > 0.01:
            assert any(start < t < end for t in ticks)
            return
    pytest.skip("dropout of 2^24 elements never took 30 ms")


@pytest.mark.parametrize("method,rate,scale", [
    ("bitsliced:1", 0.3, 2.0),   # 0.7 rounds to 1/2
    ("bitsliced:1", 0.1, 1.0),   # 0.9 rounds to 1: all kept, unscaled
    ("bitsliced:2", 0.3, 4 / 3),  # 0.7 rounds to 3/4
    ("bitsliced:3", 0.1, 8 / 7),  # 0.9 rounds to 7/8
    ("threshold32", 0.3, 1 / 0.7)])
def test_bitsliced_dropout_keeps_the_mean(method, rate, scale):
    x = np.ones(1 << 20, np.float32)
    y, _ = rndnn.dropout(x, rate, seed=1, method=method)
    assert set(np.unique(y)) <= {0, np.float32(scale)}
    assert abs(y.mean(dtype=np.float64) - 1) < 0.01


def test_a_rate_bitsliced_rounds_to_no_keep_is_refused():
    with pytest.raises(rndnn.Error, match=r"rate=0\.77 with method "
                       r"bitsliced:1 keeps no element.*nearest rates it "
                       r"draws are 0\.5 and 1"):
        rndnn.dropout(np.ones(8, np.float32), 0.77, seed=1,
                      method="bitsliced:1")


@pytest.mark.parametrize("parent", ["rndnn", "torch"])
def test_a_child_forked_after_threads_runs_instead_of_hanging(parent,
                                                              tmp_path):
    # GNU OpenMP's threads do not survive fork(): a child forked after a
    # parallel region (rndnn's or torch's: they share libgomp) hung at its
    # first one. It runs on one thread now, with the same values.
    code = f"""
import multiprocessing, sys
import numpy as np, rndnn
x = np.ones(1 << 22, np.float32)
if {parent!r} == "torch":
    import torch
    torch.ones(1 << 24).exp().sum()  # torch's threads
else:
    rndnn.dropout(x, seed=1)  # rndnn's threads
y = rndnn.dropout(x, seed=2)[0]

def child(queue):
    queue.put((rndnn.dropout(x, seed=2)[0].tobytes() == y.tobytes(),
               rndnn.normal(size=1 << 20, seed=3).sum()))

ctx = multiprocessing.get_context("fork")
queue = ctx.Queue()
worker = ctx.Process(target=child, args=(queue,))
worker.start()
worker.join(60)
if worker.is_alive():
    worker.kill()
    sys.exit("the child hung")
same, total = queue.get(timeout=10)
assert same and total == rndnn.normal(size=1 << 20, seed=3).sum()
print("ok")
"""
    env = dict(os.environ, OMP_NUM_THREADS="2", PYTHONPATH=os.path.dirname(
        os.path.dirname(rndnn.__file__)))
    out = subprocess.run([sys.executable, "-c", code], env=env, cwd=tmp_path,
                         capture_output=True, text=True, timeout=300)
    assert out.stdout == "ok\n", out.stderr[-2000:]
