#!/usr/bin/env python3
"""Known answers of the integers distribution (docs/semantics.md),
computed from its definition with scripts/philox_ref.py's Philox4x32-10 and
Python's exact integers: it shares no code with the library, whose test
(tests/test_known_answers.cpp, KnownAnswers.IntegersFromTheSpec) reads
what this script writes to tests/data/integers.md.

Usage: scripts/integers_known_answers.py > tests/data/integers.md
"""
from philox_ref import philox4x32_10, word


def integers(alg, seed, stream, offset, low, high, n):
    """The values of elements offset .. offset + n - 1: low + floor(X r /
    2^m), X the element's k = m / 32 words, the first most significant."""
    r = high - low
    k = 2 if r <= 2**32 else 4
    out = []
    for g in range(offset, offset + n):
        x = 0
        for j in range(k):
            x = (x << 32) | word(alg, seed, stream, k * g + j)
        out.append(low + (x * r >> (32 * k)))
    return out


CASES = [  # alg, seed, stream, offset, low, high, dst type, n
    ("philox4x32_10", 42, 0, 0, 0, 10, "s64", 16),
    ("philox4x32_10", 7, 3, 1001, -1000, 1000, "s32", 13),
    ("philox4x32_10", 1, 0, 5, -2**63, 2**63 - 1, "s64", 9),
    ("philox4x32_10", 2, 0, 3, 0, 2**32, "s64", 10),
    ("philox4x32_10", 3, 1, 7, 5, 2**32 + 6, "s64", 10),
    ("philox4x32_10", -5 & (2**64 - 1), 2**64 - 1, 2**40 + 5,
     -2**62, 2**62, "s64", 7),
    ("philox4x32_10", 9, 0, 0, -7, -6, "s64", 5),
    ("philox4x32_10", 11, 0, 2, 2**31 + 1, 2**32 + 2**31 + 2, "s64", 6),
    ("philox4x32_10_onednn", 2024, 99, 12345, 0, 256, "u8", 20),
    ("philox4x32_10", 13, 0, 6, -2**24, 2**24 + 1, "f32", 12),
]


def main():
    print("# Known answers of the integers distribution\n")
    print("Written by scripts/integers_known_answers.py (its own Philox4x32-10")
    print("in plain Python, from the definition in docs/semantics.md). Each")
    print("line: the algorithm, seed (as u64), stream, offset, low, high, the")
    print("dst type and the element count, then the values of those elements.\n")
    for alg, seed, stream, offset, low, high, dt, n in CASES:
        values = integers(alg, seed, stream, offset, low, high, n)
        print(f"    integers {alg} seed {seed} stream {stream} offset {offset}"
              f" low {low} high {high} {dt} n {n}")
        print("        -> " + " ".join(str(v) for v in values))


if __name__ == "__main__":
    assert philox4x32_10([0, 0, 0, 0], [0, 0]) == \
        [0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8]
    main()
