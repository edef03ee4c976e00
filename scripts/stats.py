#!/usr/bin/python3
"""Goodness of fit of rndnn's distributions against scipy.stats at scale:
2^24 draws a parameter set through the Python package, each with a
p-value: Kolmogorov-Smirnov for the continuous distributions, chi-square
of the counts for the discrete ones (tiny p-values on every seed mean a
wrong distribution; one in a hundred below 0.01 is chance). Not part of
the tests (it takes minutes): run it by hand after a change to a
distribution's formula; docs/semantics.md ("Statistics") has its table.

Usage: PYTHONPATH=build/python /usr/bin/python3 scripts/stats.py [SEED [NAME]]

NAME runs only the rows whose name starts with it ("laplace").

Each distribution adds its block to CASES: (name, test), test(seed)
giving (the statistic's name, its value, the p-value).
"""
import sys

import numpy as np
from scipy import stats

import rndnn

N = 1 << 24

CASES = []


def ks(draw, dist):
    """A KS test of @draw(seed) against the scipy distribution @dist. The
    values of 24-bit (f64: 52- or 53-bit) u are a discrete distribution,
    which KS cannot tell from the continuous one at 2^24 draws (its steps
    are below 2^-24)."""
    def test(seed):
        r = stats.kstest(draw(seed).astype(np.float64), dist.cdf)
        return "KS D", r.statistic, r.pvalue
    return test


def continuous(name, draw, dist):
    """KS tests of @draw(seed, dtype) against @dist for float32 (24 random
    bits a value) and float64 (53, or 52 for the truncated normal)."""
    for dt in ("float32", "float64"):
        CASES.append((f"{name} {dt}",
                      ks(lambda s, dt=dt: draw(s, dt), dist)))


def chi2(counts, expected=None):
    r = stats.chisquare(counts, expected)
    return "chi2", r.statistic, r.pvalue


# uniform, normal
for low, high in ((0.0, 1.0), (-3.0, 5.0)):
    continuous(f"uniform({low}, {high})",
               lambda s, dt, low=low, high=high:
               rndnn.uniform(low, high, N, seed=s, dtype=dt),
               stats.uniform(loc=low, scale=high - low))
for loc, scale in ((0.0, 1.0), (2.0, 0.5)):
    continuous(f"normal({loc}, {scale})",
               lambda s, dt, loc=loc, scale=scale:
               rndnn.normal(loc, scale, N, seed=s, dtype=dt),
               stats.norm(loc=loc, scale=scale))

# bernoulli: the count of ones against N p.
for p in (0.5, 0.1, 0.9999):
    def bernoulli_test(seed, p=p):
        ones = int(rndnn.bernoulli(p, N, seed=seed).sum(dtype=np.int64))
        return chi2([N - ones, ones], [N * (1 - p), N * p])
    CASES.append((f"bernoulli({p})", bernoulli_test))


# bernoulli with a p array: 16 levels of p tiled over the 2^24 elements
# (float32 values), each level's count of ones against n_k p_k: the sum of
# (ones_k - n_k p_k)^2 / (n_k p_k (1 - p_k)) is chi-square with 16 degrees
# of freedom.
P_LEVELS = np.float32([1e-4, 0.01, 0.05, 0.1, 0.2, 0.25, 0.3, 0.4, 0.5, 0.6,
                       0.7, 0.75, 0.8, 0.9, 0.99, 0.9999])


def bernoulli_p_test(seed):
    p = np.tile(P_LEVELS, N // P_LEVELS.size)
    x = rndnn.bernoulli(p, seed=seed)
    ones = x.reshape(-1, P_LEVELS.size).sum(axis=0, dtype=np.int64)
    n = N // P_LEVELS.size
    q = P_LEVELS.astype(np.float64)
    stat = float((((ones - n * q) ** 2) / (n * q * (1 - q))).sum())
    return "chi2", stat, float(stats.chi2.sf(stat, P_LEVELS.size))


CASES.append(("bernoulli(p array, 16 levels)", bernoulli_p_test))


# integers: the counts of [low, high) against the uniform (r small), or of
# the values' 2^16 equal-width bins (r large).
def integers_test(low, high):
    def test(seed):
        x = rndnn.integers(low, high, size=N, seed=seed)
        r = high - low
        if r <= 1 << 16:
            counts = np.bincount(x - low, minlength=r)
        else:
            counts = np.bincount(((x - low).astype(np.float64) / r * 65536)
                                 .astype(np.int64), minlength=65536)
        return chi2(counts)
    return test


for low, high, name in ((0, 10, "0, 10"), (-1000, 1000, "-1000, 1000"),
                        (0, 2**31 + 1, "0, 2^31 + 1"),
                        (-2**62, 2**62, "-2^62, 2^62")):
    CASES.append((f"integers({name})", integers_test(low, high)))

# exponential, gumbel, lognormal, laplace, rayleigh
for scale in (1.0, 0.5, 3.0):
    continuous(f"exponential(scale={scale})",
               lambda s, dt, scale=scale:
               rndnn.exponential(scale, N, seed=s, dtype=dt),
               stats.expon(scale=scale))
for loc, scale in ((0.0, 1.0), (-2.0, 0.5), (3.0, 4.0)):
    continuous(f"gumbel(loc={loc}, scale={scale})",
               lambda s, dt, loc=loc, scale=scale:
               rndnn.gumbel(loc, scale, N, seed=s, dtype=dt),
               stats.gumbel_r(loc=loc, scale=scale))
for mean, sigma in ((0.0, 1.0), (1.0, 0.25), (-1.0, 2.0)):
    continuous(f"lognormal(mean={mean}, sigma={sigma})",
               lambda s, dt, mean=mean, sigma=sigma:
               rndnn.lognormal(mean, sigma, N, seed=s, dtype=dt),
               stats.lognorm(s=sigma, scale=np.exp(mean)))

for loc, scale in ((0.0, 1.0), (-2.0, 0.5), (3.0, 4.0)):
    continuous(f"laplace(loc={loc}, scale={scale})",
               lambda s, dt, loc=loc, scale=scale:
               rndnn.laplace(loc, scale, N, seed=s, dtype=dt),
               stats.laplace(loc=loc, scale=scale))

for scale in (1.0, 0.5, 3.0):
    continuous(f"rayleigh(scale={scale})",
               lambda s, dt, scale=scale:
               rndnn.rayleigh(scale, N, seed=s, dtype=dt),
               stats.rayleigh(scale=scale))

# truncated_normal: rndnn's bounds are absolute, scipy's standardised
for loc, scale, a, b in ((0.0, 1.0, -2.0, 2.0), (0.5, 2.0, -1.0, 7.0),
                         (0.0, 1.0, 6.0, 8.0), (0.0, 1.0, -8.0, -7.5),
                         (0.0, 0.02, -2.0, 2.0)):
    continuous(f"truncated_normal(loc={loc}, scale={scale}, a={a}, b={b})",
               lambda s, dt, loc=loc, scale=scale, a=a, b=b:
               rndnn.truncated_normal(loc, scale, a, b, N, seed=s, dtype=dt),
               stats.truncnorm((a - loc) / scale, (b - loc) / scale,
                               loc=loc, scale=scale))


# categorical: 2^24 draws of an 8-word vocabulary (2^20 rows a call, at
# consecutive offsets), their counts against softmax(logits / T).
CAT_LOGITS = np.array([1.0, 0.0, -1.0, 2.0, 0.5, -3.0, 4.0, -0.25],
                      np.float32)


def categorical_test(t):
    def test(seed):
        rows = 1 << 20
        x = np.broadcast_to(CAT_LOGITS, (rows, CAT_LOGITS.size)).copy()
        counts = np.zeros(CAT_LOGITS.size, np.int64)
        for k in range(N // rows):
            counts += np.bincount(
                rndnn.categorical(x, temperature=t, seed=seed,
                                  offset=k * x.size),
                minlength=CAT_LOGITS.size)
        w = CAT_LOGITS.astype(np.float64)
        p = np.exp(w / t) / np.exp(w / t).sum()
        return chi2(counts, N * p)
    return test


for t in (1.0, 0.5, 3.0):
    CASES.append((f"categorical(8 logits, temperature={t})",
                  categorical_test(t)))


def main():
    seed = int(sys.argv[1]) if len(sys.argv) > 1 else 2024
    only = sys.argv[2] if len(sys.argv) > 2 else ""
    print(f"n = 2^24 a row, seed {seed}")
    for name, test in CASES:
        if not name.startswith(only):
            continue
        what, value, p = test(seed)
        print(f"{name:62s} {what} {value:.3e} p={p:.4f}", flush=True)


if __name__ == "__main__":
    main()
