#!/usr/bin/python3
"""Words that lazy bitsliced(32) draws per element, by tier.

Replays the JIT kernel's schedule (rng/jit/jit_rng_dist.cpp,
jit_bitsliced_lazy_t) on philox4x32_10's words, which the rndnn Python
module gives: units of UNIT groups of 32 elements; rows of R groups draw
block 0 (levels 0-3) and, unless every element of the row is decided, block
1 (levels 4-7), each a block of four words a group; the groups still
undecided then go to the unit's queue, which runs in chunks of C lanes from
block 2 on until every element of the chunk is decided or the level has no
1 bit left. Every lane of a row or chunk draws its block, the empty ones of
a chunk included. Prints the words drawn per element, and per 512 elements
as engine calls of 16 lanes (the figure threshold32 puts at 8).

Usage: PYTHONPATH=build/python scripts/lazy_words.py [LOG2_ELEMENTS]
(Debian's /usr/bin/python3 with NumPy; default 2^22 elements.)
"""
import sys

import numpy as np

import rndnn

B = 32
UNIT = 128  # jit_lazy_unit_groups (rng/jit/jit_rng_common.hpp)
TIERS = {"avx512": (32, 16), "avx2": (16, 16), "sse41": (8, 8)}


def level_bits(p):
    level = int(round(p * 2**B))  # bitsliced_level: ties never occur here
    if level >> B:
        return None, 0
    bits = [(level >> (B - 1 - j)) & 1 for j in range(B)]
    ones = [j for j in range(B) if bits[j]]
    return bits, (ones[-1] // 4 + 1) if ones else 0


def decide(words, bits, lt, eq, j0, j1):
    """Levels j0..j1-1 on groups (rows of words); updates lt, eq."""
    for j in range(j0, j1):
        w = words[:, j]
        if bits[j]:
            lt |= eq & ~w
            eq &= w
        else:
            eq &= ~w


def words_per_element(p, n, row, chunk):
    bits, nblocks = level_bits(p)
    if nblocks == 0:
        return 0.0
    groups = n // 32
    words = rndnn.bits((groups * B,), seed=7).view(np.uint32)
    words = words.reshape(groups, B)
    lt = np.zeros(groups, np.uint32)
    eq = np.full(groups, 0xFFFFFFFF, np.uint32)
    blocks = 0
    decide(words, bits, lt, eq, 0, 4)
    blocks += groups
    if nblocks > 1:
        # Block 1 for the rows with an undecided element.
        rows = eq.reshape(-1, row).any(axis=1)
        need = np.repeat(rows, row)
        blocks += int(rows.sum()) * row
        sub_lt, sub_eq = lt[need], eq[need]
        decide(words[need], bits, sub_lt, sub_eq, 4, 8)
        lt[need], eq[need] = sub_lt, sub_eq
    if nblocks > 2:
        for u in range(groups // UNIT):
            q = np.nonzero(eq[u * UNIT:(u + 1) * UNIT])[0] + u * UNIT
            for c in range(0, len(q), chunk):
                idx = q[c:c + chunk]
                sub_lt, sub_eq = lt[idx], eq[idx]
                for jb in range(2, nblocks):
                    blocks += chunk
                    decide(words[idx], bits, sub_lt, sub_eq,
                           4 * jb, 4 * jb + 4)
                    if not sub_eq.any():
                        break
    return 4.0 * blocks / n


def main():
    log2 = int(sys.argv[1]) if len(sys.argv) > 1 else 22
    n = 1 << log2
    print(f"philox4x32_10, seed 7, 2^{log2} elements: words drawn per "
          "element (engine calls of 16 lanes per 512 elements)")
    print("| p | " + " | ".join(TIERS) + " |")
    print("|---|" + "---|" * len(TIERS))
    for p in (0.9, 0.5, 0.7, 0.1, 0.01, 0.75, 1 - 2**-32, 2**-32):
        cells = []
        for row, chunk in TIERS.values():
            w = words_per_element(p, n, row, chunk)
            cells.append(f"{w:.3f} ({w * 512 / 64:.2f})")
        print(f"| {p:.10g} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
