"""rndnn.permutation and rndnn.shuffled_index (NumPy's
Generator.permutation names and conventions, windows of the permutation,
`rndnn gen --dist permutation`'s values, generators) and
rndnn.torch.ShardedSampler (DistributedSampler's contract; the ranks'
shares make the same sequence whatever the world size)."""
import numpy as np
import pytest
import torch

import rndnn
from rndnn.torch import ShardedSampler


def test_known_answer():
    # tests/data/permutation.md's first lines.
    assert rndnn.permutation(10, seed=42).tolist() == \
        [5, 2, 4, 8, 1, 3, 9, 7, 0, 6]
    assert rndnn.permutation(10, seed=42, stream=1).tolist() == \
        [4, 3, 5, 9, 2, 0, 6, 8, 7, 1]


@pytest.mark.parametrize("n", [1, 2, 3, 5, 64, 1000, 4099])
def test_is_a_permutation(n):
    p = rndnn.permutation(n, seed=7)
    assert p.dtype == np.int64 and p.shape == (n,)
    assert np.array_equal(np.sort(p), np.arange(n))
    p32 = rndnn.permutation(n, dtype=np.int32, seed=7)
    assert p32.dtype == np.int32 and np.array_equal(p32, p)


def test_windows_equal_the_whole():
    n = 5000
    whole = rndnn.permutation(n, seed=3, stream=2)
    for first, count in [(0, 1), (1, 17), (4000, 1000), (4999, 1)]:
        part = rndnn.permutation(n, count, seed=3, stream=2, offset=first)
        assert np.array_equal(part, whole[first:first + count])
    block = rndnn.permutation(n, (3, 4), seed=3, stream=2,
                              global_shape=(50, 100), origin=(10, 20))
    assert np.array_equal(block, whole.reshape(50, 100)[10:13, 20:24])
    out = np.empty(9, dtype=np.int64)
    rndnn.permutation(n, seed=3, stream=2, offset=11, out=out)
    assert np.array_equal(out, whole[11:20])
    assert [rndnn.shuffled_index(i, n, seed=3, stream=2)
            for i in (0, 42, 4999)] == [whole[0], whole[42], whole[4999]]
    idx = np.array([[5, 6], [7, 4999]])
    assert np.array_equal(rndnn.shuffled_index(idx, n, seed=3, stream=2),
                          whole[idx])


def test_huge_n_shard():
    n = 2**63 - 1
    part = rndnn.permutation(n, 2000, seed=1, offset=n - 2000)
    assert len(set(part.tolist())) == 2000
    assert part.min() >= 0 and part.max() < n
    assert rndnn.shuffled_index(n - 1, n, seed=1) == part[-1]


def test_equals_rndnn_gen(cli):
    want = cli("gen", "--dist", "permutation", "--n", "1000", "--shape",
               "10x3", "--seed", "5", "--stream", "4", "--offset", "900",
               "--dtype", "s32", "--out", "@g")("g")
    got = rndnn.permutation(1000, (10, 3), dtype="int32", seed=5, stream=4,
                            offset=900)
    assert got.dtype == want.dtype and got.tobytes() == want.tobytes()


def test_numpy_conventions_and_generators():
    assert rndnn.permutation(0).shape == (0,)
    a = np.arange(6) * 10
    assert np.array_equal(rndnn.permutation(a, seed=2),
                          a[rndnn.permutation(6, seed=2)])
    t = torch.arange(6)
    assert torch.equal(rndnn.permutation(t, seed=2),
                       t[rndnn.permutation(6, seed=2)])
    assert rndnn.permutation(4, dtype=torch.int64, seed=1).dtype == \
        torch.int64
    # An rndnn.Generator reserves n elements; the permutation is the one of
    # seed fold_in(first).seed.
    g = rndnn.Generator(9, 100)
    p = rndnn.permutation(50, generator=g)
    assert g.offset == 150
    assert np.array_equal(
        p, rndnn.permutation(50, seed=rndnn.Generator(9).fold_in(100).seed))
    assert not np.array_equal(p, rndnn.permutation(50, generator=g))
    tg = torch.Generator().manual_seed(3)
    first = rndnn.permutation(40, generator=tg)
    assert np.array_equal(np.sort(first), np.arange(40))
    assert not np.array_equal(first, rndnn.permutation(40, generator=tg))


def test_errors():
    with pytest.raises(rndnn.Error, match="passes n=10"):
        rndnn.permutation(10, 5, seed=1, offset=6)
    with pytest.raises(rndnn.OutOfRangeError, match="n=-1 is negative"):
        rndnn.permutation(-1, seed=1)
    with pytest.raises(rndnn.Error, match="outside s32"):
        rndnn.permutation(2**31 + 1, 4, dtype=np.int32, seed=1)
    with pytest.raises(rndnn.Error, match="cannot write dst type f32"):
        rndnn.permutation(4, dtype=np.float32, seed=1)
    with pytest.raises(rndnn.OutOfRangeError, match=r"i=10 is outside"):
        rndnn.shuffled_index(10, 10, seed=1)
    with pytest.raises(rndnn.OutOfRangeError, match=r"i=-1 is outside"):
        rndnn.shuffled_index([0, -1], 10, seed=1)
    with pytest.raises(TypeError, match="i must be an integer"):
        rndnn.shuffled_index(1.5, 10, seed=1)
    with pytest.raises(TypeError, match="x must be an integer or an array"):
        rndnn.permutation(4.0, seed=1)
    with pytest.raises(TypeError, match="exclude each other"):
        rndnn.permutation(4, seed=1, generator=rndnn.Generator())


def shares(n, w, **kw):
    return [ShardedSampler(n, num_replicas=w, rank=r, **kw)
            for r in range(w)]


@pytest.mark.parametrize("n", [1, 10, 97, 1000])
@pytest.mark.parametrize("drop_last", [False, True])
def test_sampler_same_sequence_for_every_world_size(n, drop_last):
    whole = rndnn.permutation(n, seed=5, stream=3)
    for w in (1, 2, 3, 4, 7):
        samplers = shares(n, w, seed=5, drop_last=drop_last)
        for s in samplers:
            s.set_epoch(3)
        got = [list(s) for s in samplers]
        m = n // w if drop_last else -(-n // w)
        assert all(len(s) == m and len(g) == m
                   for s, g in zip(samplers, got))
        flat = [i for g in got for i in g]
        # The padded sequence: positions past n wrap to the start, as
        # DistributedSampler pads.
        assert flat == [int(whole[p % n]) for p in range(w * m)]
        if not drop_last:
            assert set(flat) == set(range(n))


def test_sampler_epochs_shuffle_and_loader():
    a = ShardedSampler(100, num_replicas=3, rank=1, seed=2)
    e0 = list(a)
    a.set_epoch(1)
    e1 = list(a)
    assert e0 != e1 and sorted(e0) != sorted(range(34))
    a.set_epoch(0)
    assert list(a) == e0
    plain = ShardedSampler(10, num_replicas=3, rank=2, shuffle=False)
    assert list(plain) == [8, 9, 0, 1]  # padded from the start
    data = torch.arange(100) * 2
    loader = torch.utils.data.DataLoader(
        data, batch_size=8, sampler=ShardedSampler(data, num_replicas=3,
                                                   rank=1, seed=2))
    assert torch.cat(list(loader)).tolist() == [2 * i for i in e0]
    # More ranks than elements: every rank still gets its padded share.
    assert [list(s) for s in shares(2, 5, shuffle=False)] == \
        [[0], [1], [0], [1], [0]]
    assert [len(s) for s in shares(2, 5, drop_last=True)] == [0] * 5
    with pytest.raises(ValueError, match="rank=3 is outside"):
        ShardedSampler(10, num_replicas=3, rank=3)
    with pytest.raises(rndnn.OutOfRangeError, match="epoch=-1 is outside"):
        a.set_epoch(-1)
    with pytest.raises(TypeError, match="epoch must be an integer"):
        a.set_epoch(1.0)
    with pytest.raises(ValueError, match="num_replicas=0"):
        ShardedSampler(10, num_replicas=0, rank=0)
