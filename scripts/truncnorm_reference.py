#!/usr/bin/env python3
"""truncated_normal (docs/semantics.md) from its definition, apart from the
library: the f32 steps in NumPy (one rounding an operation, no fused
multiply-add), the creation-time constants Phi(alpha), Q(beta) and the mass
from mpmath, and scripts/philox_ref.py's Philox4x32-10 (plain Python).

    scripts/truncnorm_reference.py known > tests/data/truncated-normal.md
        known answers, read by tests/test_known_answers.cpp
        (KnownAnswers.TruncatedNormalFromTheSpec)
    scripts/truncnorm_reference.py known64 > tests/data/truncated-normal-f64.md
        the f64 form's known answers and creation-time constants, in
        Python's floats (scripts/f64_known_answers.py's ln and u53; the
        constants from mpmath, correctly rounded), read by
        KnownAnswers.TruncatedNormalF64FromTheSpec
    scripts/truncnorm_reference.py accuracy
        the error of z against mpmath's exact quantile of the same u, on
        the cells nearest both ends and a spread of others, for a set of
        (alpha, beta) reaching 8 and beyond
    scripts/truncnorm_reference.py accuracy64
        the same for the f64 form (ulp of f64)
"""
import os
import sys

import mpmath as mp
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from philox_ref import word  # noqa: E402  (beside this file)
import f64_known_answers as f64  # noqa: E402

mp.mp.dps = 50
F = np.float32
Z_INF = 12

# Wichura's AS 241 PPND7, highest power first.
PA = [5.9109374720e1, 1.5929113202e2, 5.0434271938e1, 3.3871327179]
PB = [6.7187563600e1, 7.8757757664e1, 1.7895169469e1, 1.0]
PC = [1.7023821103e-1, 1.3067284816, 2.7568153900, 1.4234372777]
PD = [1.2021132975e-1, 7.3700164250e-1, 1.0]
PE = [1.7337203997e-2, 4.2868294337e-1, 3.0812263860, 6.6579051150]
PF = [1.2258202635e-2, 2.4197894225e-1, 1.0]


def horner(x, coefs):
    r = np.full_like(x, F(coefs[0]))
    for c in coefs[1:]:
        r = r * x + F(c)
    return r


def ln(x):
    """ln_approx: m in [sqrt(0.5), sqrt(2)), 2 atanh(s) to s^11."""
    bits = x.view(np.uint32)
    e = (bits >> 23).astype(np.int32) - 126
    mb = (bits & 0x007FFFFF) | 0x3F000000
    small = mb < 0x3F3504F3
    mb = np.where(small, mb + 0x00800000, mb).astype(np.uint32)
    e = np.where(small, e - 1, e)
    m = mb.view(np.float32)
    s = (m - F(1)) / (m + F(1))
    s2 = s * s
    q = horner(s2, [1 / 11, 1 / 9, 1 / 7, 1 / 5, 1 / 3]) * s2
    ln_m = (s + s * q) * F(2)
    fe = e.astype(np.float32)
    return (fe * F(-2.12194440e-4) + ln_m) + fe * F(0.693359375)


def quantile(v):
    q = v - F(0.5)
    r0 = F(0.180625) - q * q
    central = q * horner(r0, PA) / horner(r0, PB)
    with np.errstate(invalid="ignore", divide="ignore"):
        r = np.sqrt(F(0) - ln(np.where(q >= F(-0.425), F(0.25), v)))
    t1 = r - F(1.6)
    t2 = r - F(5)
    tail = np.where(r <= F(5), F(0) - horner(t1, PC) / horner(t1, PD),
                    F(0) - horner(t2, PE) / horner(t2, PF))
    return np.where(q >= F(-0.425), central, tail)


def upper_tail(z):
    if z >= Z_INF:
        return mp.mpf(0)
    if z <= -Z_INF:
        return mp.mpf(1)
    return mp.erfc(mp.mpf(z) / mp.sqrt(2)) / 2


def constants(mean, sd, a, b):
    alpha = (mp.mpf(float(F(a))) - float(F(mean))) / float(F(sd))
    beta = (mp.mpf(float(F(b))) - float(F(mean))) / float(F(sd))
    pa, qb = upper_tail(-alpha), upper_tail(beta)
    mass = upper_tail(alpha) - qb if alpha >= 0 else (
        upper_tail(-beta) - pa if beta <= 0 else 1 - pa - qb)
    return F(float(pa)), F(float(qb)), F(float(mass)), alpha, beta


# Wichura's AS 241 PPND16, highest power first.
QA = [2509.0809287301226727, 33430.575583588128105, 67265.770927008700853,
      45921.953931549871457, 13731.693765509461125, 1971.5909503065514427,
      133.14166789178437745, 3.387132872796366608]
QB = [5226.495278852854561, 28729.085735721942674, 39307.89580009271061,
      21213.794301586595867, 5394.1960214247511077, 687.1870074920579083,
      42.313330701600911252, 1.0]
QC = [7.7454501427834140764e-4, .0227238449892691845833,
      .24178072517745061177, 1.27045825245236838258, 3.64784832476320460504,
      5.7694972214606914055, 4.6303378461565452959, 1.42343711074968357734]
QD = [1.05075007164441684324e-9, 5.475938084995344946e-4,
      .0151986665636164571966, .14810397642748007459, .68976733498510000455,
      1.6763848301838038494, 2.05319162663775882187, 1.0]
QE = [2.01033439929228813265e-7, 2.71155556874348757815e-5,
      .0012426609473880784386, .026532189526576123093, .29656057182850489123,
      1.7848265399172913358, 5.4637849111641143699, 6.6579046435011037772]
QF = [2.04426310338993978564e-15, 1.4215117583164458887e-7,
      1.8463183175100546818e-5, 7.868691311456132591e-4,
      .0148753612908506148525, .13692988092273580531, .59983220655588793769,
      1.0]


def quantile64(v):
    """PPND16 in Python's floats (r by f64_known_answers.ln)."""
    q = v - 0.5
    if q >= -0.425:
        r = 0.180625 - q * q
        return q * f64.horner(r, QA) / f64.horner(r, QB)
    r = (0.0 - f64.ln(v)) ** 0.5
    if r <= 5.0:
        t = r - 1.6
        return 0.0 - f64.horner(t, QC) / f64.horner(t, QD)
    t = r - 5.0
    return 0.0 - f64.horner(t, QE) / f64.horner(t, QF)


def constants64(mean, sd, a, b):
    """Pa, Qb and M in f64: each Q correctly rounded (mpmath), then the
    differences in f64; alpha and beta in f64 from the f64 parameters."""
    alpha = (float(a) - float(mean)) / float(sd)
    beta = (float(b) - float(mean)) / float(sd)
    qa, qb = float(upper_tail(alpha)), float(upper_tail(beta))
    pa, pb = float(upper_tail(-alpha)), float(upper_tail(-beta))
    mass = qa - qb if alpha >= 0 else (pb - pa if beta <= 0 else
                                       1.0 - pa - qb)
    return pa, qb, mass, alpha, beta


def z64(k52, pa, qb, mass):
    """z of cell k52 (52 bits) in f64."""
    j = 2 * k52 + 1
    u, u_c = j * 2.0**-53, (2**53 - j) * 2.0**-53
    p = pa + u * mass
    if p > 0.5:
        return 0.0 - quantile64(qb + u_c * mass)
    return quantile64(p)


def value64(mean, sd, a, b, consts, u53):
    pa, qb, mass = consts[:3]
    x = float(mean) + float(sd) * z64(u53 >> 1, pa, qb, mass)
    return min(max(x, float(a)), float(b))


def z_values(k, pa, qb, mass):
    """z of cells k (uint32 array): the quantile of the nearer tail."""
    j = (k << 1) | 1
    u = j.astype(np.float32) * F(2.0**-25)  # rounded: j has 25 bits
    u_c = (2**25 - j).astype(np.float32) * F(2.0**-25)
    p = pa + u * mass
    q = qb + u_c * mass
    upper = p > F(0.5)
    zl = quantile(np.where(upper, q, p))
    return np.where(upper, F(0) - zl, zl)


def values(mean, sd, a, b, words):
    pa, qb, mass, _, _ = constants(mean, sd, a, b)
    z = z_values(np.asarray(words, np.uint32) >> 8, pa, qb, mass)
    x = F(mean) + F(sd) * z
    return np.minimum(np.maximum(x, F(a)), F(b))


KNOWN = [  # mean, stddev, a, b, seed, stream, offset, n
    (0, 1, -2, 2, 0, 0, 0, 12),
    (0.5, 2, -1, 7, 7, 3, 1001, 12),
    (0, 0.02, -2, 2, 1, 0, 5, 12),
    (0, 1, 6, 8, 2, 0, 3, 12),
    (0, 1, -8, -7.5, 3, 1, 7, 12),
    (1, 3, -30, 1, 4, 0, 0, 12),
]


def known():
    print("# Known answers of truncated_normal\n")
    print("Written by scripts/truncnorm_reference.py (NumPy's f32 steps of")
    print("docs/semantics.md's formula, mpmath's constants, its own")
    print("Philox4x32-10). Each line: mean, stddev, a, b, then seed, stream")
    print("and offset of `rndnn gen --alg philox4x32_10 --dist")
    print("truncated_normal` (f32), then the f32 bits (hex) of the elements")
    print("offset, offset + 1, ...\n")
    for mean, sd, a, b, seed, stream, off, n in KNOWN:
        w = [word("philox4x32_10", seed, stream, g)
             for g in range(off, off + n)]
        x = values(mean, sd, a, b, w)
        hexes = [f"{int(v):08x}" for v in x.view(np.uint32)]
        print(f"    truncated_normal({mean}, {sd}, {a}, {b}) seed {seed} "
              f"stream {stream} offset {off}")
        print("        -> " + " ".join(hexes[:6]))
        print("           " + " ".join(hexes[6:]))


KNOWN64 = [  # mean, stddev, a, b, seed, stream, offset, n (f32 values)
    (0, 1, -2, 2, 0, 0, 0, 8),
    (0.5, 2, -1, 7, 7, 3, 1001, 8),
    (0, 1, 6, 8, 2, 0, 3, 8),
    (0, 1, -8, -7.5, 3, 1, 7, 8),
    (0, 1, -8, 8, 5, 0, 2**40 + 1, 8),
    (1, 3, -40, 1, 4, 0, 0, 8),
]


def known64():
    print("# Known answers of truncated_normal to f64\n")
    print("Written by scripts/truncnorm_reference.py known64 (Python's f64")
    print("steps of docs/semantics.md's formula, the constants from mpmath")
    print("correctly rounded, its own Philox4x32-10). Each line: mean,")
    print("stddev, a, b, the algorithm, seed, stream and offset; then the")
    print("f64 bits (hex) of Phi(alpha), Q(beta) and M; then those of the")
    print("elements offset, offset + 1, ...\n")
    alg = "philox4x32_10"
    for mean, sd, a, b, seed, stream, off, n in KNOWN64:
        c = constants64(mean, sd, a, b)
        vals = [value64(mean, sd, a, b, c, f64.u53(alg, seed, stream, g))
                for g in range(off, off + n)]
        print(f"    truncated_normal({mean}, {sd}, {a}, {b}) {alg} "
              f"seed {seed} stream {stream} offset {off}")
        print("        constants " + " ".join(
            f"{f64.bits(v):016x}" for v in c[:3]))
        hexes = [f"{f64.bits(v):016x}" for v in vals]
        print("        -> " + " ".join(hexes[:4]))
        print("           " + " ".join(hexes[4:]))


def exact_z(k, pa, qb, alpha, beta, cells=2**24):
    """mpmath's Phi^-1 of the exact p of cell k of `cells` (the real
    mass)."""
    u = mp.mpf(2 * int(k) + 1) / (2 * cells)
    pa_e, qb_e = upper_tail(-alpha), upper_tail(beta)
    mass = 1 - pa_e - qb_e if alpha < 0 < beta else (
        upper_tail(alpha) - qb_e if alpha >= 0 else upper_tail(-beta) - pa_e)
    p = pa_e + u * mass
    if p <= 0.5:
        return -mp.sqrt(2) * mp.erfinv(1 - 2 * p)
    q = qb_e + (1 - u) * mass
    return mp.sqrt(2) * mp.erfinv(1 - 2 * q)


def accuracy():
    sets = [(-2, 2), (-8, 8), (-1, 8), (0, 0.5), (6, 8), (7.9, 8), (-8, -6),
            (-8, -7.9), (8.5, 30), (-30, -8.5), (-3, 1e-3), (1, 2)]
    # The cells nearest both ends of u (the tails) and a spread of others,
    # against mpmath.
    ks = np.unique(np.concatenate([
        np.arange(0, 256), np.arange(2**24 - 256, 2**24),
        np.linspace(0, 2**24 - 1, 1024).astype(np.int64)])).astype(np.uint32)
    worst_all = 0.0
    for alpha, beta in sets:
        pa, qb, mass, al, be = constants(0, 1, alpha, beta)
        z = z_values(ks, pa, qb, mass)
        worst_rel, worst_abs = 0.0, 0.0
        for k, zf in zip(ks, z):
            ze = exact_z(k, pa, qb, al, be)
            err = abs(mp.mpf(float(zf)) - ze)
            worst_abs = max(worst_abs, float(err))
            ulp = np.spacing(np.float32(abs(float(ze))))
            if abs(ze) >= 0.5:
                worst_rel = max(worst_rel, float(err / ulp))
        worst_all = max(worst_all, worst_rel)
        print(f"alpha {alpha:>6} beta {beta:>6}: max |z error| "
              f"{worst_abs:.3g}, {worst_rel:.2f} ulp where |z| >= 0.5")
    print(f"worst: {worst_all:.2f} ulp")


def accuracy64():
    """As accuracy() in f64: z against the exact quantile of the same u, in
    ulp of max(|z|, 0.5) (f64), on the cells of 2^52 nearest both ends and
    a spread between."""
    sets = [(-2, 2), (-8, 8), (-1, 8), (0, 0.5), (6, 8), (7.9, 8), (-8, -6),
            (-8, -7.9), (8.5, 30), (-30, -8.5), (-3, 1e-3), (1, 2)]
    n = 2**52
    ks = sorted(set(list(range(0, 128)) + list(range(n - 128, n))
                    + [int(x) for x in np.linspace(0, n - 1, 512)]))
    worst_all = 0.0
    for alpha, beta in sets:
        pa, qb, mass, al, be = constants64(0, 1, alpha, beta)
        worst = 0.0
        for k in ks:
            ze = exact_z(k, pa, qb, mp.mpf(al), mp.mpf(be), n)
            err = abs(mp.mpf(z64(k, pa, qb, mass)) - ze)
            worst = max(worst, float(err / np.spacing(max(abs(float(ze)),
                                                          0.5))))
        worst_all = max(worst_all, worst)
        print(f"alpha {alpha:>6} beta {beta:>6}: {worst:.2f} ulp of "
              f"max(|z|, 0.5)")
    print(f"worst: {worst_all:.2f} ulp")


if __name__ == "__main__":
    {"known": known, "known64": known64, "accuracy": accuracy,
     "accuracy64": accuracy64}[sys.argv[1]]()
