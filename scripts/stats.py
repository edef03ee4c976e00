#!/usr/bin/python3
"""Goodness of fit of rndnn's value distributions against scipy.stats at
scale: 2^24 draws per parameter set through the Python package, a
Kolmogorov-Smirnov p-value each (tiny p-values on every seed mean a wrong
distribution; one in a hundred below 0.01 is chance). Not part of the
tests: run it by hand after a change to a distribution's formula.

Usage: PYTHONPATH=build/python /usr/bin/python3 scripts/stats.py [SEED]

Each distribution is a block of its own in CASES (other distributions add
theirs after these).
"""
import sys

import numpy as np
from scipy import stats

import rndnn

N = 1 << 24

# (name, rndnn call with size= and seed=, the scipy.stats distribution)
CASES = []

# exponential, gumbel, lognormal: the values of 24-bit u are a discrete
# distribution, which KS cannot tell from the continuous one at 2^24 draws
# (its steps are below 2^-24 in probability).
for scale in (1.0, 0.5, 3.0):
    CASES.append((f"exponential(scale={scale})",
                  lambda n, s, scale=scale: rndnn.exponential(scale, n, seed=s),
                  stats.expon(scale=scale)))
for loc, scale in ((0.0, 1.0), (-2.0, 0.5), (3.0, 4.0)):
    CASES.append((f"gumbel(loc={loc}, scale={scale})",
                  lambda n, s, loc=loc, scale=scale:
                      rndnn.gumbel(loc, scale, n, seed=s),
                  stats.gumbel_r(loc=loc, scale=scale)))
for mean, sigma in ((0.0, 1.0), (1.0, 0.25), (-1.0, 2.0)):
    CASES.append((f"lognormal(mean={mean}, sigma={sigma})",
                  lambda n, s, mean=mean, sigma=sigma:
                      rndnn.lognormal(mean, sigma, n, seed=s),
                  stats.lognorm(s=sigma, scale=np.exp(mean))))


def main():
    seed = int(sys.argv[1]) if len(sys.argv) > 1 else 2024
    for name, draw, dist in CASES:
        x = draw(N, seed).astype(np.float64)
        ks = stats.kstest(x, dist.cdf)
        print(f"{name:40s} n=2^24 KS D={ks.statistic:.3e} "
              f"p={ks.pvalue:.4f}")


if __name__ == "__main__":
    main()
