#!/usr/bin/env python3
"""Known answers of the bytewise Bernoulli method (docs/semantics.md),
computed from its definition with scripts/philox_ref.py's Philox4x32-10, in
plain Python: it shares no code with the library, whose test
(tests/test_known_answers.cpp, KnownAnswers.BytewiseFromTheSpec) reads what
this script writes to tests/data/bytewise.md.

Usage: scripts/bytewise_known_answers.py > tests/data/bytewise.md
"""
import math

from philox_ref import philox4x32_10, word


def bytewise(alg, seed, stream, offset, p, n):
    """The n decisions of elements offset .. offset + n - 1."""
    t = math.ceil(p * 2**32)  # exact: p * 2^32 is exact in binary
    hi, lo = t >> 24, t & 0xFFFFFF
    out = []
    unit = -1
    for g in range(offset, offset + n):
        if g // 2048 != unit:
            unit = g // 2048
            words = [word(alg, seed, stream, 512 * unit + j)
                     for j in range(512)]
            ties = []  # the unit's elements that tie, in index order
            for e in range(2048):
                if (words[e // 4] >> (8 * (e % 4))) & 0xFF == hi:
                    ties.append(2048 * unit + e)
        v = (words[(g % 2048) // 4] >> (8 * (g % 4))) & 0xFF
        if v != hi:
            out.append(1 if v < hi else 0)
            continue
        k = ties.index(g)
        r = word(alg, seed, stream, 2**62 + 2048 * unit + k) >> 8
        out.append(1 if r < lo else 0)
    return out


def packed_hex(bits):
    data = bytearray((len(bits) + 7) // 8)
    for i, b in enumerate(bits):
        data[i // 8] |= b << (i % 8)
    return data.hex()


CASES = [  # alg, seed, stream, offset, p, n
    ("philox4x32_10", 42, 0, 0, 0.9, 2048),
    ("philox4x32_10", 7, 3, 1000, 0.3, 2100),
    ("philox4x32_10", -5 & (2**64 - 1), 2**64 - 1, 2**40 + 5, 1 - 2**-32, 3000),
    ("philox4x32_10", 1, 0, 4095, 2**-20, 900),
    ("philox4x32_10_onednn", 2024, 99, 12345, 0.1, 1500),
]


def main():
    print("# Known answers of the bytewise Bernoulli method\n")
    print("Written by scripts/bytewise_known_answers.py (its own Philox4x32-10")
    print("in plain Python, from the method's definition in docs/semantics.md).")
    print("Each line: the algorithm, seed (as u64), stream, offset, p (hex")
    print("float), the element count, then the mask of those elements as")
    print("bytes in hex (element k: bit k % 8 of byte k / 8). `ties` counts the")
    print("elements decided by a tie word.\n")
    for alg, seed, stream, offset, p, n in CASES:
        bits = bytewise(alg, seed, stream, offset, p, n)
        t = math.ceil(p * 2**32)
        ties = 0
        for g in range(offset, offset + n):
            w = word(alg, seed, stream, g // 4)
            ties += (w >> (8 * (g % 4))) & 0xFF == t >> 24
        print(f"    bytewise {alg} seed {seed} stream {stream} offset {offset}"
              f" p {p.hex()} n {n} ties {ties}")
        print(f"        -> {packed_hex(bits)}")


if __name__ == "__main__":
    assert philox4x32_10([0, 0, 0, 0], [0, 0]) == \
        [0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8]
    main()
