"""rndnn's distributions against NumPy's Generator and torch, in one
process (docs/performance.md, "Distributions against NumPy and torch").

    PYTHONPATH=build/python /usr/bin/python3 python/benchmarks/bench_distributions.py

For each distribution, 2^24 values (--elements) on one thread
(--threads: torch.set_num_threads, which sets the OpenMP thread count that
rndnn's kernels use too; NumPy's Generator always uses one) into a new
array, as each library's users call it:
NumPy's Generator(PCG64) with float32 where it offers it (random,
standard_normal, standard_exponential; its gumbel and lognormal are
float64 only, as scipy.stats.truncnorm.rvs is), torch's in-place samplers
on a new tensor; the f64 rows compare float64 with float64 (NumPy's
default dtype, and rndnn's for these functions). Every row runs
once per round, in an order shuffled each round; the table gives
medians and the ratios NumPy/rndnn and torch/rndnn from this one run,
with the CPU and the load average. A distribution rndnn lacks is skipped;
--only runs the rows whose name contains its text (--only integers:
integers into new arrays and into `out=`, with a 4-word range, and the
bounds of any generator, a new array of ones and a fill of one written
before).
Categorical sampling has its own: bench_categorical.py.
"""
import argparse
import math

import numpy as np
import torch

import rndnn
from bench_common import cpu, load, medians


F32 = np.float32  # the f32 rows ask for it: rndnn's default is float64


def cases(n):
    """[(name, {who: run})]: each run draws n values into a new array."""
    g = np.random.default_rng(1)
    out = [
        ("uniform f32", {
            "rndnn": lambda: rndnn.uniform(0.0, 1.0, n, seed=1, dtype=F32),
            "numpy": lambda: g.random(n, dtype=np.float32),
            "torch": lambda: torch.rand(n)}),
        ("normal f32", {
            "rndnn": lambda: rndnn.normal(0.0, 1.0, n, seed=1, dtype=F32),
            "numpy": lambda: g.standard_normal(n, dtype=np.float32),
            "torch": lambda: torch.randn(n)}),
        ("uniform f64", {
            "rndnn": lambda: rndnn.uniform(0.0, 1.0, n, seed=1),
            "numpy": lambda: g.random(n),
            "torch": lambda: torch.rand(n, dtype=torch.float64)}),
        ("normal f64", {
            "rndnn": lambda: rndnn.normal(0.0, 1.0, n, seed=1),
            "numpy": lambda: g.standard_normal(n),
            "torch": lambda: torch.randn(n, dtype=torch.float64)}),
        ("bernoulli(0.9) u8", {
            "rndnn": lambda: rndnn.bernoulli(0.9, n, seed=1),
            "numpy": lambda: (g.random(n, dtype=np.float32) < 0.9).view(
                np.uint8),
            "torch": lambda: torch.empty(n, dtype=torch.uint8).bernoulli_(
                0.9)}),
    ]
    # bernoulli with a p per element (p float32 in [0, 1), made once):
    # rndnn.bernoulli(p), rng.random(n) < p, torch.bernoulli(p).
    p = g.random(n, dtype=np.float32)
    p_torch = torch.from_numpy(p)
    out.append(("bernoulli(p array) u8", {
        "rndnn": lambda: rndnn.bernoulli(p, seed=1),
        "numpy": lambda: (g.random(n, dtype=np.float32) < p).view(np.uint8),
        "torch": lambda: torch.bernoulli(p_torch).to(torch.uint8)}))
    if hasattr(rndnn, "integers"):
        out.append(("integers [0, 1000) s64", {
            "rndnn": lambda: rndnn.integers(0, 1000, n, seed=1),
            "numpy": lambda: g.integers(0, 1000, n),
            "torch": lambda: torch.randint(0, 1000, (n,))}))
        # 4 words an element (high - low > 2^32).
        out.append(("integers [0, 2^40) s64", {
            "rndnn": lambda: rndnn.integers(0, 1 << 40, n, seed=1),
            "numpy": lambda: g.integers(0, 1 << 40, n),
            "torch": lambda: torch.randint(0, 1 << 40, (n,))}))
        # Into memory written before (NumPy's integers has no out=), and
        # the bounds of any generator: a new s64 array of ones, a fill of
        # one written before.
        mine, theirs = np.ones(n, np.int64), torch.ones(n, dtype=torch.int64)
        out.append(("integers [0, 1000) s64 out=", {
            "rndnn": lambda: rndnn.integers(0, 1000, n, seed=1, out=mine),
            "torch": lambda: torch.randint(0, 1000, (n,), out=theirs)}))
        out.append(("integers bound: new s64 ones", {
            "numpy": lambda: np.ones(n, np.int64),
            "torch": lambda: torch.ones(n, dtype=torch.int64)}))
        out.append(("integers bound: s64 fill, out=", {
            "numpy": lambda: mine.fill(1),
            "torch": lambda: theirs.fill_(1)}))
    if hasattr(rndnn, "exponential"):
        out.append(("exponential f32", {
            "rndnn": lambda: rndnn.exponential(1.0, n, seed=1, dtype=F32),
            "numpy": lambda: g.standard_exponential(n, dtype=np.float32),
            "torch": lambda: torch.empty(n).exponential_()}))
    if hasattr(rndnn, "gumbel"):
        out.append(("gumbel f32 (numpy f64)", {
            "rndnn": lambda: rndnn.gumbel(0.0, 1.0, n, seed=1, dtype=F32),
            "numpy": lambda: g.gumbel(0.0, 1.0, n),
            # torch has no Gumbel sampler: -log(-log(u)), as
            # F.gumbel_softmax draws it.
            "torch": lambda: -torch.empty(n).exponential_().log()}))
    if hasattr(rndnn, "lognormal"):
        out.append(("lognormal f32 (numpy f64)", {
            "rndnn": lambda: rndnn.lognormal(0.0, 1.0, n, seed=1,
                                             dtype=F32),
            "numpy": lambda: g.lognormal(0.0, 1.0, n),
            "torch": lambda: torch.empty(n).log_normal_()}))
    if hasattr(rndnn, "truncated_normal"):
        from scipy import stats
        out.append(("truncated normal [-2, 2] f32", {
            "rndnn": lambda: rndnn.truncated_normal(0.0, 1.0, -2.0, 2.0, n,
                                                    seed=1, dtype=F32),
            "numpy": lambda: stats.truncnorm.rvs(-2.0, 2.0, size=n,
                                                 random_state=g),
            "torch": lambda: torch.nn.init.trunc_normal_(torch.empty(n))}))
        out.append(("truncated normal [-2, 2] f64", {
            "rndnn": lambda: rndnn.truncated_normal(0.0, 1.0, -2.0, 2.0, n,
                                                    seed=1),
            "numpy": lambda: stats.truncnorm.rvs(-2.0, 2.0, size=n,
                                                 random_state=g),
            "torch": lambda: torch.nn.init.trunc_normal_(
                torch.empty(n, dtype=torch.float64))}))
    if hasattr(rndnn, "permutation"):
        out.append(("permutation s64", {
            "rndnn": lambda: rndnn.permutation(n, seed=1),
            "numpy": lambda: g.permutation(n),
            "torch": lambda: torch.randperm(n)}))
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--elements", type=int, default=1 << 24)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--only", default="",
                        help="the rows whose name contains this")
    args = parser.parse_args()
    # OpenMP's thread count, rndnn's kernels' too (they share libgomp).
    torch.set_num_threads(args.threads)
    n = args.elements
    size = (f"2^{int(math.log2(n))}" if n & (n - 1) == 0 else str(n))
    print(f"{size} values a call, {args.threads} thread(s), medians of "
          f"{args.rounds} rounds; rndnn {rndnn.__version__}, NumPy "
          f"{np.__version__}, torch {torch.__version__}")
    print(f"CPU: {cpu()}; load average before "
          f"{load()}")
    print(f"{'distribution':<30} {'rndnn ms':>9} {'numpy ms':>9} "
          f"{'torch ms':>9} {'numpy/rndnn':>11} {'torch/rndnn':>11}")
    for name, by in cases(n):
        if args.only not in name:
            continue
        med = medians(list(by.items()), args.rounds)
        cell = {who: f"{med[who] * 1e3:9.2f}" if who in med else f"{'-':>9}"
                for who in ("rndnn", "numpy", "torch")}
        ratio = {who: f"{med[who] / med['rndnn']:10.1f}x"
                 if who in med and "rndnn" in med else f"{'-':>11}"
                 for who in ("numpy", "torch")}
        print(f"{name:<30} {cell['rndnn']} {cell['numpy']} {cell['torch']} "
              f"{ratio['numpy']} {ratio['torch']}", flush=True)
    print(f"load average after "
          f"{load()}")


if __name__ == "__main__":
    main()
