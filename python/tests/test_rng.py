"""The NumPy functions equal `rndnn gen`'s files, write into given arrays
without copying, and raise rndnn.Error with the library's message."""
import os
import subprocess

import numpy as np
import pytest

import rndnn

RNDNN = os.environ["RNDNN_CLI"]


def gen(tmp_path, *args):
    out = tmp_path / "g.npy"
    subprocess.run([RNDNN, "gen", *args, "--out", str(out)], check=True)
    return np.load(out)


@pytest.mark.parametrize("py,cli", [
    (lambda: rndnn.bits((3, 5), seed=7, offset=3),
     ["--shape", "3x5", "--seed", "7", "--offset", "3"]),
    (lambda: rndnn.bernoulli(1001, 0.3, seed=-2),
     ["--dist", "bernoulli", "--p", "0.3", "--shape", "1001", "--seed", "-2"]),
    (lambda: rndnn.bernoulli((4, 9), 0.7, dtype="u8", method="bitsliced:3"),
     ["--dist", "bernoulli", "--p", "0.7", "--dtype", "u8", "--method",
      "bitsliced:3", "--shape", "4x9"]),
    (lambda: rndnn.normal((2, 33), 1.0, 2.0, alg="threefry4x32_20"),
     ["--dist", "normal", "--mean", "1", "--stddev", "2", "--alg",
      "threefry4x32_20", "--shape", "2x33"]),
    (lambda: rndnn.uniform(77, -1.0, 1.0, dtype="f16", stream=5),
     ["--dist", "uniform", "--a", "-1", "--b", "1", "--dtype", "f16",
      "--stream", "5", "--shape", "77"]),
])
def test_equals_rndnn_gen(tmp_path, py, cli):
    want = gen(tmp_path, *cli)
    got = py()
    assert got.dtype == want.dtype and got.shape == want.shape
    assert got.tobytes() == want.tobytes()


def test_out_is_written_in_place():
    out = np.zeros((4, 8), np.float32)
    r = rndnn.normal((4, 8), out=out, seed=3)
    assert r is out and np.any(out != 0)
    assert out.tobytes() == rndnn.normal((4, 8), seed=3).tobytes()


def test_unpackbits():
    packed = rndnn.bernoulli((3, 5), 0.5, seed=1)
    u8 = rndnn.bernoulli((3, 5), 0.5, seed=1, dtype="u8")
    assert np.array_equal(rndnn.unpackbits(packed, (3, 5)), u8)


def test_unused_bits_of_a_mask_are_zero():
    # 15 elements: the second byte's top bit is no element's.
    out = np.full(2, 0xFF, np.uint8)
    rndnn.bernoulli(15, 1.0, out=out)
    assert out.tolist() == [0xFF, 0x7F]


def test_errors_carry_the_message():
    with pytest.raises(rndnn.Error, match="p=1.5"):
        rndnn.bernoulli(8, 1.5)
    with pytest.raises(rndnn.Error, match="bytes"):
        rndnn.normal(8, out=np.empty(7, np.float32))


def test_generator_state_is_16_bytes():
    g = rndnn.Generator(5, 10)
    assert g.reserve(100) == 10 and g.offset == 110
    s = g.save()
    assert len(s) == 16
    h = rndnn.Generator.load(s)
    assert (h.seed, h.offset) == (5, 110)
