#!/usr/bin/env python3
"""Known answers of the f64 continuous distributions (docs/semantics.md,
"f64 values"), computed from their definition with scripts/philox_ref.py's
Philox4x32-10 and Python's floats (each operation one IEEE f64 rounding;
fma exact through fractions): it shares no code with the library, whose
test (tests/test_known_answers.cpp, KnownAnswers.F64FromTheSpec) reads what
this script writes to tests/data/f64.md.

Usage: scripts/f64_known_answers.py > tests/data/f64.md
"""
import math
import struct
from fractions import Fraction

from philox_ref import philox4x32_10, word


def bits(x):
    return struct.unpack("<Q", struct.pack("<d", x))[0]


def from_bits(b):
    return struct.unpack("<d", struct.pack("<Q", b))[0]


def fma(a, b, c):
    """a * b + c rounded once."""
    return float(Fraction(a) * Fraction(b) + Fraction(c))


def horner(x, coefs):
    r = coefs[0]
    for c in coefs[1:]:
        r = r * x + c
    return r


LN2_HI = float.fromhex("0x1.62e42fee00000p-1")
LN2_LO = float.fromhex("0x1.a39ef35793c76p-33")
ATANH = [1.0 / n for n in range(21, 2, -2)]
SIN = [float.fromhex(h) for h in (
    "-0x1.8a404211f9547p-45", "0x1.aaec32af93359p-38",
    "-0x1.6fadb9f155744p-31", "0x1.e8f434d018d63p-25",
    "-0x1.e3074fde8871fp-19", "0x1.50783487ee782p-13",
    "-0x1.32d2cce62bd86p-8", "0x1.466bc6775aae2p-4",
    "-0x1.4abbce625be53p-1", "0x1.921fb54442d18p+0")]
COS = [float.fromhex(h) for h in (
    "-0x1.2a0c591af8314p-41", "0x1.20c62c2f2d7f5p-34",
    "-0x1.b6e24f44b128fp-28", "0x1.f9d38a3763cc3p-22",
    "-0x1.a6d1f2a204a8cp-16", "0x1.e1f506891babbp-11",
    "-0x1.55d3c7e3cbffap-6", "0x1.03c1f081b5ac4p-2",
    "-0x1.3bd3cc9be45dep+0", "0x1p+0")]
EXP = [1.0 / math.factorial(k) for k in range(13, -1, -1)]
MAGIC = 1.5 * 2.0**52  # round(t / ln 2) by adding and subtracting it


def ln(x):
    b = bits(x)
    e = (b >> 52) - 1022
    mb = (b & (2**52 - 1)) | 0x3FE0000000000000
    if mb < 0x3FE6A09E667F3BCD:
        mb += 2**52
        e -= 1
    m = from_bits(mb)
    s = (m - 1.0) / (m + 1.0)
    s2 = s * s
    q = horner(s2, ATANH) * s2
    return (e * LN2_LO + (s + s * q) * 2.0) + e * LN2_HI


def sincos(k):
    j = k + 2**50
    quad = (j >> 51) & 3
    t = ((j & (2**51 - 1)) - 2**50) * 2.0**-51
    t2 = t * t
    s, c = horner(t2, SIN) * t, horner(t2, COS)
    sn, cs = (c, s) if quad & 1 else (s, c)
    return (-sn if quad in (2, 3) else sn), (-cs if quad in (1, 2) else cs)


def exp(t):
    t = min(max(t, -746.0), 710.0)
    y = t * float.fromhex("0x1.71547652b82fep+0") + MAGIC
    nf = y - MAGIC
    n = bits(y) - bits(MAGIC)
    if n >= 2**63:
        n -= 2**64
    r = (t - nf * LN2_HI) - nf * LN2_LO
    n1 = n >> 1
    return (horner(r, EXP) * from_bits((n1 + 1023) << 52)) \
        * from_bits((n - n1 + 1023) << 52)


def u53(alg, seed, stream, g):
    """Element g's 53 bits: X = W(2g) + W(2g + 1) 2^32, X >> 11."""
    x = word(alg, seed, stream, 2 * g) | word(alg, seed, stream, 2 * g + 1) << 32
    return x >> 11


def value(dist, p, alg, seed, stream, g):
    u = u53(alg, seed, stream, g)
    uo = (u + 1) * 2.0**-53  # (0, 1]
    if dist == "uniform":
        return fma(u * 2.0**-53, p[1] - p[0], p[0])
    if dist == "exponential":
        return (0.0 - ln(uo)) * p[0]
    if dist == "gumbel":
        return p[0] - p[1] * ln(max(0.0 - ln(uo), 2.0**-54))
    if dist == "laplace":  # the sign from X's bit 0: W(2g)'s bit 0
        t = (0.0 - ln(uo)) * p[1]
        return p[0] + (-t if word(alg, seed, stream, 2 * g) & 1 else t)
    if dist == "rayleigh":  # sqrt(exponential(1)'s value * 2) * scale
        return math.sqrt((0.0 - ln(uo)) * 2.0) * p[0]
    even = u53(alg, seed, stream, g & ~1)
    odd = u53(alg, seed, stream, g | 1)
    r = math.sqrt(ln((even + 1) * 2.0**-53) * -2.0)
    sn, cs = sincos(odd)
    z = p[0] + p[1] * (r * (sn if g & 1 else cs))
    return exp(z) if dist == "lognormal" else z


CASES = [  # dist, parameters (doubles, used as given), alg, seed, stream,
    # offset, n
    ("uniform", (0.0, 1.0), "philox4x32_10", 0, 0, 0, 8),
    ("uniform", (-2.5, 7.0), "philox4x32_10", 7, 3, 1001, 8),
    ("uniform", (0.0, 1.0), "philox4x32_10_onednn", 2024, 99, 12345, 8),
    ("normal", (0.0, 1.0), "philox4x32_10", 0, 0, 0, 8),
    ("normal", (1.5, 2.0), "philox4x32_10", 42, 1, 3, 8),
    ("normal", (0.0, 1.0), "philox4x32_10_onednn", 5, 0, 2**40 + 1, 8),
    ("exponential", (2.5,), "philox4x32_10", 4, 0, 1, 8),
    ("gumbel", (-1.0, 0.5), "philox4x32_10", 2, 0, 0, 8),
    ("lognormal", (0.5, 1.5), "philox4x32_10", 3, 0, 7, 8),
    # Parameters no f32 holds, and past f32's range: an f64 dst takes the
    # doubles as given.
    ("uniform", (0.1, 0.3), "philox4x32_10", 1, 0, 0, 8),
    ("uniform", (-1e300, 1e39), "philox4x32_10", 1, 5, 9, 8),
    ("normal", (0.1, 0.7), "philox4x32_10", 6, 2, 5, 8),
    ("exponential", (0.3,), "philox4x32_10", 8, 0, 0, 8),
    ("gumbel", (0.1, 0.3), "philox4x32_10", 9, 1, 2, 8),
    ("lognormal", (0.1, 0.3), "philox4x32_10", 10, 0, 3, 8),
    ("laplace", (0.0, 1.0), "philox4x32_10", 0, 0, 0, 8),
    ("laplace", (-1.5, 2.0), "philox4x32_10", 7, 3, 1001, 8),
    ("laplace", (0.1, 0.3), "philox4x32_10", 11, 0, 4, 8),
    ("rayleigh", (1.0,), "philox4x32_10", 0, 0, 0, 8),
    ("rayleigh", (2.5,), "philox4x32_10", 7, 3, 1001, 8),
    ("rayleigh", (0.3,), "philox4x32_10", 12, 0, 4, 8),
]


def num(v):
    """v in the fewest digits that read back as it (repr), 1 for 1.0."""
    r = repr(v)
    return r[:-2] if r.endswith(".0") else r


def main():
    print("# Known answers of the f64 distributions\n")
    print("Written by scripts/f64_known_answers.py (its own Philox4x32-10 in")
    print("plain Python, from the definitions in docs/semantics.md). Each line:")
    print("the distribution and its parameters, the algorithm, seed, stream and")
    print("offset, then the f64 bits (hex) of the elements offset, offset + 1,")
    print("...\n")
    for dist, p, alg, seed, stream, offset, n in CASES:
        vals = [value(dist, p, alg, seed, stream, g)
                for g in range(offset, offset + n)]
        ps = ", ".join(num(v) for v in p)
        print(f"    {dist}({ps}) {alg} seed {seed} stream {stream} "
              f"offset {offset}")
        hexes = [f"{bits(v):016x}" for v in vals]
        print("        -> " + " ".join(hexes[:4]))
        print("           " + " ".join(hexes[4:]))


if __name__ == "__main__":
    assert philox4x32_10([0, 0, 0, 0], [0, 0]) == \
        [0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8]
    main()
