#!/usr/bin/env python3
"""Writes kernels/raid_f64_atrig_tables.h, the constants of the inverse trigonometric functions of
kernels/raid_f64_atrig.h (asin, acos, atan, atan2), from MPFR:

- raidF64AtrigTab: atan(j / 2^L) for j = 0 .. 2^L (L = ATRIG_L = 7), the table of the argument reduction
  atan(r) = atan(c) + atan((r - c) / (1 + r c)), c = j / 2^L nearest to r in [0, 1];
- raidF64AtrigPoly: (-1)^k / (2k + 1) for k = 0 .. ATRIG_K (7), the Taylor series of atan(t) / t in u = t^2.
  For |t| <= 2^-(L+1) (1 + 2^-20) the series is alternating with decreasing terms, so stopping after k = 7
  leaves less than u^8 / 17 < 2^-132 relative (raid_f64_atrig.h's error budget);
- raidF64AtrigPi: pi/2 and pi.
Every entry is rounded to nearest at 128 bits (relative error at most 2^-128)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gmpy2  # noqa: E402
from gmpy2 import mpfr  # noqa: E402

import f64_tables  # noqa: E402

ATRIG_L = 7  # the table's step 2^-L (kernels/raid_f64_atrig.h RAID_F64_ATRIG_L)
ATRIG_K = 7  # the polynomial's last power of u = t^2


def body():
    tab = [gmpy2.atan(mpfr(j) / (1 << ATRIG_L)) for j in range((1 << ATRIG_L) + 1)]
    poly = [mpfr((-1) ** k) / (2 * k + 1) for k in range(ATRIG_K + 1)]
    pi = gmpy2.const_pi()
    return (f64_tables.c_words_table("raidF64AtrigTab", tab, f"atan(j / 2^{ATRIG_L}), j = 0 .. 2^{ATRIG_L}")
            + "\n" + f64_tables.c_words_table("raidF64AtrigPoly", poly,
                                              f"(-1)^k / (2k + 1), k = 0 .. {ATRIG_K}: atan(t) / t in u = t^2")
            + "\n" + f64_tables.c_words_table("raidF64AtrigPi", [pi / 2, pi], "pi / 2, pi"))


if __name__ == "__main__":
    sys.exit(f64_tables.main("atrig", "gen_f64_atrig.py", body,
                             "the constants of the inverse trigonometric functions (raid_f64_atrig.h)"))
