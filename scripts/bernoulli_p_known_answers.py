#!/usr/bin/env python3
"""Known answers of Bernoulli with a p tensor (docs/semantics.md, "bernoulli
with a p tensor"): element g is 1 iff W(g) < p * 2^32 as exact reals, with
scripts/philox_ref.py's Philox4x32-10 and Python's exact comparison of an
int with a float. It shares no code with the library, whose test
(tests/test_known_answers.cpp, KnownAnswers.BernoulliPFromTheSpec) reads
what this script writes to tests/data/bernoulli_p.md.

The p values are edge values (0, 1, 2^-32, 2^-33, the largest value below
1 and the smallest subnormal of the p type) and, for most elements, the
values of the p type just below and just above the element's own word
over 2^32 (W truncated to the type's significant bits, and that plus one
unit), so that each decision lies at its exact boundary.

Usage: scripts/bernoulli_p_known_answers.py > tests/data/bernoulli_p.md
"""
import struct

from philox_ref import philox4x32_10, word

# Edge values of each p type: 0, 1, 2^-32, 2^-33, the largest below 1, the
# smallest subnormal.
EDGES = {24: [0.0, 1.0, 2.0**-32, 2.0**-33, 1 - 2.0**-24, 2.0**-149],
         8: [0.0, 1.0, 2.0**-32, 2.0**-33, 1 - 2.0**-8, 2.0**-133]}


def f32_bits(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


def bits_f32(u):
    return struct.unpack("<f", struct.pack("<I", u))[0]


def boundary(w, sig, up):
    """w / 2^32 cut to @sig significant bits (plus one unit if @up): a value
    of the p type (exact in f32, and in bf16 for sig = 8)."""
    if w == 0:
        return 2.0**-32 if up else 0.0
    shift = max(w.bit_length() - sig, 0)
    return ((w >> shift) + (1 if up else 0)) * 2.0**shift / 2.0**32


def p_values(alg, seed, stream, offset, n, sig):
    """n values of the p type; element i's boundary uses W(offset + i)."""
    out = []
    for i in range(n):
        if i < len(EDGES[sig]):
            out.append(EDGES[sig][i])
        else:
            w = word(alg, seed, stream, offset + i)
            out.append(boundary(w, sig, i % 2 == 1))
    return out


CASES = [  # alg, seed, stream, offset, p type, dst dims, p dims
    ("philox4x32_10", 42, 0, 0, "f32", (24,), (24,)),
    ("philox4x32_10", 7, 3, 1001, "bf16", (2, 13), (2, 13)),
    ("philox4x32_10", 2**64 - 5, 2**64 - 1, 2**40 + 5, "f32", (3, 9),
     (1, 9)),
    ("philox4x32_10_onednn", 2024, 99, 12345, "f32", (20,), (20,)),
    ("philox4x32_10", 5, 1, 7, "bf16", (4, 5), (4, 1)),
]


def main():
    print("# Known answers of Bernoulli with a p tensor\n")
    print("Written by scripts/bernoulli_p_known_answers.py (its own")
    print("Philox4x32-10 in plain Python, from the definition in")
    print("docs/semantics.md: 1 iff W(g) < p * 2^32 exactly). Each case: the")
    print("algorithm, seed (as u64), stream, offset, the p type, dst's and p's")
    print("dims; then p's values as their bits in hex (f32, or bf16's 16")
    print("bits), row-major, and dst's 0/1 values, row-major (p broadcast).\n")
    for alg, seed, stream, offset, pdt, dims, pdims in CASES:
        npe = 1
        for d in pdims:
            npe *= d
        sig = 24 if pdt == "f32" else 8
        p = p_values(alg, seed, stream, offset, npe, sig)
        bits = [f32_bits(x) for x in p]
        assert [bits_f32(b) for b in bits] == p  # exact in f32
        if pdt == "bf16":
            assert all(b & 0xffff == 0 for b in bits)
            text = [f"{b >> 16:04x}" for b in bits]
        else:
            text = [f"{b:08x}" for b in bits]
        n = 1
        for d in dims:
            n *= d
        values = []
        for i in range(n):
            # dst element i's coordinates, and p's element (1: broadcast).
            c, r = [], i
            for d in reversed(dims):
                c.append(r % d)
                r //= d
            c.reverse()
            j = 0
            for k, d in enumerate(pdims):
                j = j * d + (0 if d == 1 else c[k])
            w = word(alg, seed, stream, offset + i)
            values.append(1 if w < p[j] * 2**32 else 0)
        print(f"    bernoulli_p {alg} seed {seed} stream {stream} offset "
              f"{offset} {pdt} dims {'x'.join(map(str, dims))} p "
              f"{'x'.join(map(str, pdims))}")
        print("        p -> " + " ".join(text))
        print("        -> " + " ".join(map(str, values)))


if __name__ == "__main__":
    assert philox4x32_10([0, 0, 0, 0], [0, 0]) == \
        [0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8]
    main()
