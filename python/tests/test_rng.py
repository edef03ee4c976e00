"""The random-tensor functions equal `rndnn gen`'s files, write into given
NumPy arrays and torch tensors without copying, and raise rndnn.Error with
the library's message."""
import copy
import os
import pickle

import numpy as np
import pytest
import torch

import rndnn


@pytest.mark.parametrize("py,args", [
    (lambda: rndnn.bits((3, 5), seed=7, offset=3),
     ["--shape", "3x5", "--seed", "7", "--offset", "3"]),
    (lambda: rndnn.bernoulli(0.3, size=1001, seed=-2, packed=True),
     ["--dist", "bernoulli", "--p", "0.3", "--shape", "1001", "--seed", "-2"]),
    (lambda: rndnn.bernoulli(0.7, size=(4, 9), dtype="u8", method="bitsliced:3", seed=0),
     ["--dist", "bernoulli", "--p", "0.7", "--dtype", "u8", "--method",
      "bitsliced:3", "--shape", "4x9"]),
    (lambda: rndnn.normal(1.0, 2.0, size=(2, 33), alg="threefry4x32_20", seed=0),
     ["--dist", "normal", "--mean", "1", "--stddev", "2", "--alg",
      "threefry4x32_20", "--shape", "2x33", "--dtype", "f64"]),
    (lambda: rndnn.uniform(-1.0, 1.0, size=77, dtype="f16", stream=5, seed=0),
     ["--dist", "uniform", "--a", "-1", "--b", "1", "--dtype", "f16",
      "--stream", "5", "--shape", "77"]),
    (lambda: rndnn.exponential(2.5, size=(3, 40), seed=4, offset=1),
     ["--dist", "exponential", "--scale", "2.5", "--shape", "3x40",
      "--seed", "4", "--offset", "1", "--dtype", "f64"]),
    (lambda: rndnn.gumbel(-1.0, 0.5, size=99, dtype="bf16", seed=2),
     ["--dist", "gumbel", "--loc", "-1", "--scale", "0.5", "--dtype",
      "bf16", "--shape", "99", "--seed", "2"]),
    (lambda: rndnn.laplace(-1.0, 0.5, size=(3, 33), seed=2, offset=5),
     ["--dist", "laplace", "--loc", "-1", "--scale", "0.5", "--shape",
      "3x33", "--seed", "2", "--offset", "5", "--dtype", "f64"]),
    (lambda: rndnn.laplace(2.0, 3.0, size=98, dtype="f16", seed=7),
     ["--dist", "laplace", "--loc", "2", "--scale", "3", "--dtype", "f16",
      "--shape", "98", "--seed", "7"]),
    (lambda: rndnn.rayleigh(0.5, size=(3, 33), seed=2, offset=5),
     ["--dist", "rayleigh", "--scale", "0.5", "--shape", "3x33", "--seed",
      "2", "--offset", "5", "--dtype", "f64"]),
    (lambda: rndnn.rayleigh(3.0, size=98, dtype="bf16", seed=7),
     ["--dist", "rayleigh", "--scale", "3", "--dtype", "bf16", "--shape",
      "98", "--seed", "7"]),
    (lambda: rndnn.lognormal(0.5, 1.5, size=101, dtype="f16", seed=3),
     ["--dist", "lognormal", "--mean", "0.5", "--sigma", "1.5", "--dtype",
      "f16", "--shape", "101", "--seed", "3"]),
    (lambda: rndnn.truncated_normal(0.5, 2.0, -1.0, 7.0, size=103,
                                    dtype="bf16", seed=6),
     ["--dist", "truncated_normal", "--mean", "0.5", "--stddev", "2",
      "--a", "-1", "--b", "7", "--dtype", "bf16", "--shape", "103",
      "--seed", "6"]),
])
def test_equals_rndnn_gen(cli, py, args):
    want = cli("gen", *args, "--out", "@g")("g")
    got = py()
    assert got.dtype == want.dtype and got.shape == want.shape
    assert got.tobytes() == want.tobytes()


def test_out_is_written_in_place():
    out = np.zeros((4, 8), np.float32)
    r = rndnn.normal(size=(4, 8), out=out, seed=3)
    assert r is out and np.any(out != 0)
    assert out.tobytes() == rndnn.normal(size=(4, 8), seed=3,
                                         dtype="f32").tobytes()


@pytest.mark.parametrize("dtype,torch_dtype", [
    ("f32", torch.float32), ("f16", torch.float16), ("bf16", torch.bfloat16)])
def test_out_may_be_a_torch_tensor(dtype, torch_dtype):
    t = torch.zeros(3, 7, dtype=torch_dtype)
    ptr = t.data_ptr()
    # The type comes from out; its memory is written, not replaced.
    assert rndnn.normal(size=(3, 7), seed=9, out=t) is t and t.data_ptr() == ptr
    want = rndnn.normal(size=(3, 7), seed=9, dtype=dtype)
    got = t.view(torch.int16) if dtype == "bf16" else t
    assert got.numpy().tobytes() == want.tobytes()


def test_masks_and_words_into_torch_tensors():
    mask = torch.empty(2, dtype=torch.uint8)
    rndnn.bernoulli(0.5, size=13, seed=4, out=mask)
    assert mask.numpy().tobytes() == rndnn.bernoulli(0.5, size=13, seed=4, packed=True).tobytes()
    u8 = torch.empty(13, dtype=torch.uint8)
    rndnn.bernoulli(0.5, size=13, seed=4, out=u8)  # 13 bytes: u8, not bits
    assert np.array_equal(u8.numpy(), rndnn.bernoulli(0.5, size=13, seed=4, dtype="u8"))
    words = torch.empty(5, dtype=torch.int32)  # torch has no uint32
    rndnn.bits(5, seed=4, out=words)
    assert words.numpy().view(np.uint32).tolist() == rndnn.bits(5, seed=4).tolist()


def test_unpackbits():
    packed = rndnn.bernoulli(0.5, size=(3, 5), seed=1, packed=True)
    u8 = rndnn.bernoulli(0.5, size=(3, 5), seed=1, dtype="u8")
    assert np.array_equal(rndnn.unpackbits(packed, (3, 5)), u8)


def test_unused_bits_of_a_mask_are_zero():
    # 15 elements: the second byte's top bit is no element's.
    out = np.full(2, 0xFF, np.uint8)
    rndnn.bernoulli(1.0, size=15, out=out)
    assert out.tolist() == [0xFF, 0x7F]


def test_errors_carry_the_message():
    with pytest.raises(rndnn.Error, match="p=1.5"):
        rndnn.bernoulli(1.5, size=8)
    with pytest.raises(rndnn.Error, match="bytes"):
        rndnn.normal(size=8, out=np.empty(7, np.float32))
    with pytest.raises(rndnn.Error, match="out is float16, the f32 values"):
        rndnn.normal(size=8, dtype="f32", out=np.empty(8, np.float16))
    with pytest.raises(rndnn.Error, match="complex128, a type rndnn does not"):
        rndnn.normal(size=8, out=np.empty(8, np.complex128))
    with pytest.raises(rndnn.Error, match="contiguous"):
        rndnn.normal(size=8, out=torch.empty(8, 2)[:, 0])
    with pytest.raises(rndnn.Error, match="bitsliced:x"):
        rndnn.bernoulli(size=8, method="bitsliced:x")
    # Not a silent bitsliced:1, which keeps everything at p = 0.9.
    with pytest.raises(rndnn.Error, match="'bitsliced' needs its bit count"):
        rndnn.bernoulli(0.9, size=8, method="bitsliced")
    with pytest.raises(rndnn.Error, match="bit count 4294967304"):
        rndnn.bernoulli(size=8, method="bitsliced:4294967304")
    with pytest.raises(rndnn.Error, match=r"holds 0 bytes.*needs 100 bits"):
        rndnn.unpackbits(np.empty(0, np.uint8), 100)
    with pytest.raises(rndnn.Error, match=r"holds 1 bytes.*needs 9 bits"):
        rndnn.unpackbits(np.zeros(1, np.uint8), (3, 3))
    with pytest.raises(rndnn.Error, match=r"size \(2, -1\) has a negative"):
        rndnn.normal(size=(2, -1))
    with pytest.raises(rndnn.Error, match="unknown dtype 'f128'"):
        rndnn.normal(size=8, dtype="f128")
    with pytest.raises(TypeError, match="list"):
        rndnn.normal(size=8, out=[0.0] * 8)


def test_generator_state_is_16_bytes():
    g = rndnn.Generator(5, 10)
    assert g.reserve(100) == 10 and g.offset == 110
    s = g.save()
    assert len(s) == 16
    h = rndnn.Generator.load(s)
    assert (h.seed, h.offset) == (5, 110) and h == g
    assert repr(h) == "rndnn.Generator(seed=5, offset=110)"


def test_generator_pickles_and_copies():
    g = rndnn.Generator(-7, 3)
    for h in (pickle.loads(pickle.dumps(g)), copy.deepcopy(g), copy.copy(g)):
        assert h == g and h is not g
        h.reserve(1)
        assert h != g


@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
def test_generator_pickles_with_every_protocol(protocol):
    # Protocols 0 and 1 went through copyreg's reconstructor, which
    # aborted the interpreter on a pybind11 type.
    g = rndnn.Generator(-7, 3)
    h = pickle.loads(pickle.dumps(g, protocol))
    assert type(h) is rndnn.Generator and h == g


def test_generators_pickled_before_still_load():
    # What pickle.dumps(Generator(5, 6)) wrote before __reduce__:
    # copyreg.__newobj__(Generator), then __setstate__ of the 16 bytes.
    state = rndnn.Generator(5, 6).save()
    old = (b"\x80\x04crndnn._rndnn\nGenerator\n)\x81C\x10" + state + b"b.")
    assert pickle.loads(old) == rndnn.Generator(5, 6)


def test_a_generator_never_initialised_is_the_default():
    # __new__ alone used to leave the state uninitialised memory.
    g = rndnn.Generator.__new__(rndnn.Generator)
    assert (g.seed, g.offset) == (0, 0) and g == rndnn.Generator()
    with pytest.raises(TypeError, match="not rndnn.Generator"):
        rndnn.Generator.__new__(int)


def test_init_and_setstate_reinitialise_a_live_generator():
    # Both used to be silently ignored on a generator already made.
    g = rndnn.Generator(5, 6)
    with pytest.raises(rndnn.Error, match="16 bytes, not 3"):
        g.__setstate__(b"\0" * 3)
    assert g == rndnn.Generator(5, 6)
    g.__setstate__(rndnn.Generator(7, 8).save())
    assert g == rndnn.Generator(7, 8)
    g.__init__(9, offset=10)
    assert g == rndnn.Generator(9, 10)
    with pytest.raises(rndnn.Error, match=r"offset=-1 is outside \[0, 2\^63\)"):
        g.__init__(1, -1)
    assert g == rndnn.Generator(9, 10)
    g.__init__()
    assert g == rndnn.Generator()


def test_values_a_type_cannot_hold_are_refused():
    # Never infinities: f16 holds up to 65504, bf16 up to about 3.39e38.
    with pytest.raises(rndnn.Error, match="f16 cannot hold"):
        rndnn.uniform(0.0, 1e6, size=(8,), dtype="f16")
    with pytest.raises(rndnn.Error, match="f16 cannot hold"):
        rndnn.normal(0.0, 20000.0, size=(8,), dtype="f16")
    with pytest.raises(rndnn.Error, match="bf16 cannot hold"):
        rndnn.uniform(0.0, 3.4e38, size=(8,), dtype="bf16")
    h = rndnn.uniform(0.0, 65504.0, size=(1000,), dtype="f16")
    assert np.isfinite(h).all()


def test_shapes_and_seeds_are_integers_never_truncated():
    # int() made 2.5 elements 2 and seed 1.5 seed 1.
    with pytest.raises(TypeError, match="size 2.5 is not an int"):
        rndnn.normal(size=2.5)
    with pytest.raises(TypeError, match=r"size \(2, 1.5\) is not an int"):
        rndnn.normal(size=(2, 1.5))
    with pytest.raises(TypeError, match="size '8' is not an int"):
        rndnn.normal(size="8")
    with pytest.raises(TypeError, match="seed must be an integer, not float 1.5"):
        rndnn.normal(size=2, seed=1.5)
    with pytest.raises(TypeError, match="offset must be an integer, not str"):
        rndnn.dropout(np.ones(2, np.float32), 0.5, seed=0, offset="1")
    assert np.array_equal(rndnn.normal(size=np.int64(2), seed=np.int32(3)),
                          rndnn.normal(size=2, seed=3))


def test_seeds_offsets_and_streams_out_of_range_are_named():
    # They reached pybind11, whose TypeError named no argument.
    with pytest.raises(rndnn.Error, match=r"seed=18446744073709551616 is "
                       r"outside \[-2\^63, 2\^63\)"):
        rndnn.normal(size=2, seed=1 << 64)
    with pytest.raises(rndnn.Error, match=r"stream=-1 is outside \[0, 2\^64\)"):
        rndnn.bits(2, stream=-1)
    with pytest.raises(rndnn.Error, match="offset=9223372036854775808 is outside"):
        rndnn.dropout_backward(np.ones(2, np.float32), 0.5, seed=0,
                               offset=1 << 63)
    rndnn.normal(size=2, seed=-(1 << 63), stream=(1 << 64) - 1)  # the extremes


def test_a_read_only_out_is_refused_by_name():
    # pybind11 said "array is not writeable", naming no array.
    ro = np.zeros(8, np.float32)
    ro.setflags(write=False)
    with pytest.raises(rndnn.Error, match="out is read-only"):
        rndnn.normal(size=8, out=ro)
    with pytest.raises(rndnn.Error, match="out is read-only"):
        rndnn.dropout(np.ones(8, np.float32), 0.5, out=ro)
    with pytest.raises(rndnn.Error, match="out is read-only"):
        rndnn.dropout(ro, 0.5, out=ro)  # in place
    assert not ro.any()
    y, _ = rndnn.dropout(ro, 0.5)  # read, not written: allowed
    assert not y.any()



def test_bernoulli_bytewise_is_the_librarys():
    # The method by name, its mask the one `rndnn gen --method bytewise`
    # writes (tests/data/bytewise.md's first line: seed 42, p 0.9).
    path = os.path.join(os.path.dirname(__file__), "..", "..", "tests",
                        "data", "bytewise.md")
    with open(path) as f:
        want = bytes.fromhex(f.read().split("-> ")[1].split()[0])
    got = rndnn.bernoulli(0.9, size=2048, packed=True, method="bytewise",
                          seed=42)
    assert got.tobytes() == want
    with pytest.raises(rndnn.Error, match="mcg31m1"):
        rndnn.bernoulli(0.9, size=8, method="bytewise", alg="mcg31m1")


def test_bernoulli_onednn_method_writes_onednns_mask():
    # oneDNN 3.14's dropout mask (rate 0.1 as f32, seed 7, its offset 99:
    # rndnn's stream), the RNG's onednn method at the keep probability
    # t / 2^32, t = 2^32 - 1 - floor((2^32 - 1) * 0.1f) = 3865470560.
    path = os.path.join(os.path.dirname(__file__), "..", "..", "tests",
                        "data", "onednn-dropout-mask.u8")
    want = np.fromfile(path, np.uint8)
    got = rndnn.bernoulli(3865470560 / 2**32, size=4099, dtype="u8",
                          method="onednn", alg="philox4x32_10_onednn",
                          seed=7, stream=99)
    assert np.array_equal(got, want)
    # The names come from the library's table, which lists them all.
    with pytest.raises(rndnn.Error, match="onednn or bytewise"):
        rndnn.bernoulli(size=8, method="bogus")
    with pytest.raises(rndnn.Error, match="only bitsliced takes"):
        rndnn.bernoulli(size=8, method="threshold32:3")
