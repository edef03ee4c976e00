#!/usr/bin/python3
"""Goodness of fit of rndnn's distributions against scipy.stats: 2^24
values a parameter set through the Python package, each with its
p-value (chi-square over the values for integers). Not run in CI (it
takes minutes); run it after a change to a distribution's formula.

Usage: PYTHONPATH=build/python /usr/bin/python3 scripts/stats.py
Other distributions add their own block to CASES.
"""
import numpy as np
from scipy import stats

import rndnn

N = 1 << 24


def integers_chi2(low, high):
    """Chi-square of [low, high)'s counts against the uniform (r small), or
    of the values' 2^16 equal-width bins (r large)."""
    x = rndnn.integers(low, high, size=N, seed=1)
    r = high - low
    if r <= 1 << 16:
        counts = np.bincount(x - low, minlength=r)
    else:
        counts = np.bincount(((x - low).astype(np.float64) / r * 65536)
                             .astype(np.int64), minlength=65536)
    return stats.chisquare(counts).pvalue


CASES = [
    ("integers(0, 10)", lambda: integers_chi2(0, 10)),
    ("integers(-1000, 1000)", lambda: integers_chi2(-1000, 1000)),
    ("integers(0, 2^31 + 1)", lambda: integers_chi2(0, 2**31 + 1)),
    ("integers(-2^62, 2^62)", lambda: integers_chi2(-2**62, 2**62)),
]


def main():
    for name, test in CASES:
        print(f"{name:32s} p = {test():.4f}")


if __name__ == "__main__":
    main()
