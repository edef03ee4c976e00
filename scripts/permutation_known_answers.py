#!/usr/bin/env python3
"""Known answers of the permutation distribution (docs/semantics.md),
computed from its definition with scripts/philox_ref.py's Philox4x32-10 and
Python's exact integers: it shares no code with the library, whose test
(tests/test_known_answers.cpp, KnownAnswers.PermutationFromTheSpec) reads
what this script writes to tests/data/permutation.md.

Usage: scripts/permutation_known_answers.py > tests/data/permutation.md
"""
from philox_ref import MASK, key_of, philox4x32_10

ROUNDS = 8
TAG = 0x70650000  # ASCII "ep" in the high half of the counter's word 1


def half_bits(n):
    """h: the least h >= 1 with 2h >= bits(n - 1)."""
    return max(1, ((n - 1).bit_length() + 1) // 2)


def feistel(x, h, seed, stream):
    key = key_of(seed)
    left, right = x >> h, x & ((1 << h) - 1)
    for r in range(ROUNDS):
        ctr = [right, TAG | h << 8 | r, stream & MASK, stream >> 32]
        f = philox4x32_10(ctr, key)[0] & ((1 << h) - 1)
        left, right = right, left ^ f
    return left << h | right


def permutation(seed, stream, n, g):
    """pi(g): the network applied until the value falls below n."""
    h = half_bits(n)
    x = feistel(g, h, seed, stream)
    while x >= n:
        x = feistel(x, h, seed, stream)
    return x


CASES = [  # seed (u64), stream (u64), n, offset, dst type, count
    (42, 0, 10, 0, "s64", 10),
    (42, 1, 10, 0, "s64", 10),
    (7, 0, 1, 0, "s64", 1),
    (7, 0, 2, 0, "s32", 2),
    (7, 3, 5, 0, "s32", 5),
    (2024, 0, 1000, 990, "s64", 10),
    (1, 0, 2**31, 2**31 - 8, "s32", 8),
    (3, 5, 2**32 + 1, 2**32 - 4, "s64", 5),
    (2**64 - 5, 2**64 - 1, 2**63 - 1, 2**63 - 7, "s64", 6),
    (11, 0, 3 * 2**40 + 17, 2**41, "s64", 7),
]


def main():
    print("# Known answers of the permutation distribution\n")
    print("Written by scripts/permutation_known_answers.py (its own "
          "Philox4x32-10")
    print("in plain Python, from the definition in docs/semantics.md). Each")
    print("line: the seed (as u64), stream (as u64), n, the offset, the dst")
    print("type and the element count, then the values of those elements.\n")
    for seed, stream, n, offset, dt, count in CASES:
        values = [permutation(seed, stream, n, g)
                  for g in range(offset, offset + count)]
        print(f"    permutation seed {seed} stream {stream} n {n} offset"
              f" {offset} {dt} count {count}")
        print("        -> " + " ".join(str(v) for v in values))


if __name__ == "__main__":
    assert philox4x32_10([0, 0, 0, 0], [0, 0]) == \
        [0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8]
    assert sorted(permutation(42, 0, 10, g) for g in range(10)) == \
        list(range(10))
    main()
