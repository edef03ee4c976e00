"""Generator.fold_in and Generator.spawn (docs/semantics.md, "Derived
generators") against the definition computed here by a pure-Python
Philox4x32-10, the C++ known answers (tests/test_generator_derive.cpp) and
the RNG's own words at the tag's stream; their argument rules; pickling."""
import copy
import pickle

import numpy as np
import pytest

import rndnn

M32 = 0xFFFFFFFF
FOLD_TAG = int.from_bytes(b"rndnfold", "little")
SPAWN_TAG = int.from_bytes(b"rndnspwn", "little")


def philox4x32_10(ctr, key):
    """Salmon et al.'s Philox4x32 with 10 rounds, as published."""
    x0, x1, x2, x3 = ctr
    k0, k1 = key
    for r in range(10):
        if r:
            k0 = (k0 + 0x9E3779B9) & M32
            k1 = (k1 + 0xBB67AE85) & M32
        p0 = 0xD2511F53 * x0
        p1 = 0xCD9E8D57 * x2
        x0, x1, x2, x3 = ((p1 >> 32) ^ x1 ^ k0, p1 & M32,
                          (p0 >> 32) ^ x3 ^ k1, p0 & M32)
    return x0, x1, x2, x3


def s64(u):
    return u - (1 << 64) if u >= 1 << 63 else u


def derive(seed, tag, key):
    """derive(seed, tag, key) of docs/semantics.md."""
    s = seed & (1 << 64) - 1
    w = philox4x32_10((key & M32, key >> 32, tag & M32, tag >> 32),
                      (s & M32, s >> 32))
    return s64(w[0] | w[1] << 32)


def fold_text(seed, text):
    b = text.encode("utf-8")
    for at in range(0, len(b), 8):
        seed = derive(seed, FOLD_TAG, int.from_bytes(b[at:at + 8], "little"))
    return derive(seed, FOLD_TAG, len(b))


def test_the_python_philox_has_the_published_answers():
    assert philox4x32_10((0, 0, 0, 0), (0, 0)) == (
        0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8)
    assert philox4x32_10((M32,) * 4, (M32, M32)) == (
        0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd)
    assert philox4x32_10((0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344),
                         (0xa4093822, 0x299f31d0)) == (
        0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1)


def test_known_answers_equal_the_cpp_ones():
    # The numbers of GeneratorDerive.KnownAnswers (Random123 computed them).
    want = {(0, 0): -2919298508387269169, (42, 7): -4037562740363405058,
            (-1, 2**64 - 1): 4753374143770492271}
    for (seed, key), s in want.items():
        assert derive(seed, FOLD_TAG, key) == s
        assert rndnn.Generator(seed, 5).fold_in(key) == rndnn.Generator(s)
    assert fold_text(42, "a") == 2749295462218776753
    assert rndnn.Generator(42).fold_in("a").seed == 2749295462218776753
    kids = rndnn.Generator(42).spawn(3)
    assert [k.seed for k in kids] == [4651482588039019271,
                                      5557886579736776431,
                                      7847109226280074558]


@pytest.mark.parametrize("seed", [0, 1, -1, 42, -2**63, 2**63 - 1])
@pytest.mark.parametrize("key", [0, 1, 2**32 - 1, 2**32, 2**63, 2**64 - 1])
def test_fold_in_is_the_definition(seed, key):
    g = rndnn.Generator(seed, 123)
    c = g.fold_in(key)
    assert type(c) is rndnn.Generator
    assert (c.seed, c.offset) == (derive(seed, FOLD_TAG, key), 0)
    assert g == rndnn.Generator(seed, 123)       # the parent does not move
    assert rndnn.Generator(seed, 0).fold_in(key) == c


def test_the_seed_is_the_rng_stream_at_the_tag():
    for tag in (FOLD_TAG, SPAWN_TAG):
        w = rndnn.bits(2, seed=42, stream=tag, offset=4 * 5)
        assert derive(42, tag, 5) == s64(int(w[0]) | int(w[1]) << 32)


@pytest.mark.parametrize("text", ["", "a", "a\0", "dropout", "abcdefgh",
                                  "abcdefghi", "layer.17.attention",
                                  "\u00e9t\u00e9", "\U0001f600"])
def test_fold_in_text_is_chunks_then_size(text):
    g = rndnn.Generator(-9, 4)
    assert g.fold_in(text) == rndnn.Generator(fold_text(-9, text))


def test_text_and_integer_keys():
    g = rndnn.Generator(3)
    assert g.fold_in("a") == g.fold_in(0x61).fold_in(1)
    assert g.fold_in("a") != g.fold_in("a\0")
    assert g.fold_in("") == g.fold_in(0)
    assert g.fold_in(True) == g.fold_in(1)           # an int, as elsewhere
    assert g.fold_in(np.uint64(2**64 - 1)) == g.fold_in(2**64 - 1)


@pytest.mark.parametrize("key,exc,match", [
    (1.0, TypeError, "key must be an integer or a str, not float 1.0"),
    (b"a", TypeError, "key must be an integer or a str, not bytes"),
    (None, TypeError, "not NoneType"),
    (-1, rndnn.OutOfRangeError, r"key=-1 is outside \[0, 2\^64\)"),
    (2**64, rndnn.OutOfRangeError, "key=18446744073709551616 is outside"),
])
def test_fold_in_refuses(key, exc, match):
    with pytest.raises(exc, match=match):
        rndnn.Generator().fold_in(key)
    assert issubclass(rndnn.OutOfRangeError, OverflowError)


def test_spawn_reserves_and_counts_its_children():
    g = rndnn.Generator(42, 10)
    saved = g.save()
    a = g.spawn(3)
    assert type(a) is list and all(type(c) is rndnn.Generator for c in a)
    assert g == rndnn.Generator(42, 13)
    assert [(c.seed, c.offset) for c in a] == [
        (derive(42, SPAWN_TAG, 10 + i), 0) for i in range(3)]
    b = g.spawn(2)
    assert g.offset == 15
    assert [c.seed for c in b] == [derive(42, SPAWN_TAG, k) for k in (13, 14)]
    assert len({c.seed for c in a + b}) == 5
    again = rndnn.Generator.load(saved)
    assert again.spawn(3) == a and again.spawn(2) == b
    assert g.spawn(0) == [] and g.offset == 15


@pytest.mark.parametrize("n,exc,match", [
    (-1, rndnn.OutOfRangeError, "n=-1"),
    (1.0, TypeError, "n must be an integer"),
    ("2", TypeError, "n must be an integer"),
])
def test_spawn_refuses(n, exc, match):
    g = rndnn.Generator(1, 5)
    with pytest.raises(exc, match=match):
        g.spawn(n)
    assert g == rndnn.Generator(1, 5)


def test_spawn_past_the_last_element_leaves_the_state():
    g = rndnn.Generator(1, 2**63 - 3)
    with pytest.raises(rndnn.Error, match=r"2\^63 - 1"):
        g.spawn(3)
    assert g == rndnn.Generator(1, 2**63 - 3)
    assert len(g.spawn(2)) == 2 and g.offset == 2**63 - 1


def test_pickling_is_unaffected():
    g = rndnn.Generator(7, 2)
    kids = g.spawn(2)
    child = g.fold_in("x")
    for proto in range(pickle.HIGHEST_PROTOCOL + 1):
        assert pickle.loads(pickle.dumps(g, proto)) == g
        assert pickle.loads(pickle.dumps(kids, proto)) == kids
        assert pickle.loads(pickle.dumps(child, proto)) == child
    assert g.save() == rndnn.Generator(7, 4).save()
    h = copy.deepcopy(g)
    assert h.spawn(1) == g.spawn(1)


def test_help_names_them():
    assert "Derived generators" in rndnn.Generator.__doc__
    assert "[0, 2^64)" in rndnn.Generator.fold_in.__doc__
    assert "reserve(n)" in rndnn.Generator.spawn.__doc__
