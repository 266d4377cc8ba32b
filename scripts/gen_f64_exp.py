#!/usr/bin/env python3
"""Writes kernels/raid_f64_exp_tables.h: the constants of RAID's exponential family (kernels/raid_f64_exp.h).

- RAID_F64_EXP_D1[65]: 2^(i/64) - 1 for i = -32..32 and RAID_F64_EXP_D2[64]: 2^(i/4096) - 1 for i = -32..31
  (RaidWide, each within 2^-129 of its value relative to it). Storing 2^t - 1 rather than 2^t keeps
  2^(m/4096) - 1 = D1 + D2 + D1 D2 accurate relative to itself (expm1, sinh and tanh near 0 need it): for
  i1 != 0, |D1| > 1.98 |D2|, so the sum cancels by at most one bit.
- RAID_F64_EXP_RED[3 x 4]: for each base b (e, 2, 10; raid_f64_exp.h's RAID_F64_EXP_BASE_*), the argument
  reduction's constants: 4096 log2(b) (to find N = round(x 4096 log2 b)), C1 and C2 with C1 + C2 = 1 / (4096
  log2 b) to 2^-128 relative to C2 (C1 a multiple of 2^-116 with at most 104 significant bits, so that N C1 is
  exact in 128 bits for |N| < 2^24, and x - N C1 exact for a binary64 x), and ln(b) (u = r ln b).
- RAID_F64_EXP_POLY[7]: 1/n! for n = 2..8, Taylor's coefficients of (e^u - 1 - u) / u^2 (truncation bound in
  raid_f64_exp.h).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gmpy2  # noqa: E402
from gmpy2 import mpfr  # noqa: E402

import f64_tables  # noqa: E402

C1_LSB = -116  # C1 is a multiple of 2^C1_LSB


def split(c):
    """c = C1 + C2: C1 the multiple of 2^C1_LSB nearest c, C2 the rest (kept to 128 bits by the table)."""
    n = int(gmpy2.rint(c * mpfr(2) ** -C1_LSB))
    c1 = mpfr(n) * mpfr(2) ** C1_LSB
    assert (n >> ((n & -n).bit_length() - 1)).bit_length() <= 104, "N C1 must be exact for |N| < 2^24"
    return c1, c - c1


def body():
    two = mpfr(2)
    d1 = [two ** (mpfr(i) / 64) - 1 for i in range(-32, 33)]
    d2 = [two ** (mpfr(i) / 4096) - 1 for i in range(-32, 32)]
    red = []
    for lnb in (mpfr(1), gmpy2.log(two), gmpy2.log(mpfr(10))):
        # base e: lnb is ln(e) = 1; base 2: ln 2; base 10: ln 10
        log2b = lnb / gmpy2.log(two)
        c = 1 / (4096 * log2b)
        c1, c2 = split(c)
        red += [4096 * log2b, c1, c2, lnb]
    fact = 1
    poly = []
    for n in range(1, 9):
        fact *= n
        if n >= 2:
            poly.append(1 / mpfr(fact))
    return (f64_tables.c_words_table("RAID_F64_EXP_D1", d1, "2^(i/64) - 1, i = -32..32 (entry i + 32)")
            + "\n" + f64_tables.c_words_table("RAID_F64_EXP_D2", d2, "2^(i/4096) - 1, i = -32..31 (entry i + 32)")
            + "\n" + f64_tables.c_words_table(
                "RAID_F64_EXP_RED", red,
                "per base (e, 2, 10): 4096 log2(b), C1, C2 (C1 + C2 = 1/(4096 log2 b), C1 a multiple of 2^-116), ln(b)")
            + "\n" + f64_tables.c_words_table("RAID_F64_EXP_POLY", poly, "1/n!, n = 2..8"))


if __name__ == "__main__":
    sys.exit(f64_tables.main("exp", "gen_f64_exp.py", body,
                             "tables of the exponential family (kernels/raid_f64_exp.h)"))
