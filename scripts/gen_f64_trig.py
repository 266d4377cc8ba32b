"""Generates kernels/raid_f64_trig_tables.h: the constants of RAID's binary64 sin, cos and tan
(kernels/raid_f64_trig.h).

- raidF64TrigTwoOverPi: the bits of 2/pi for the Payne-Hanek argument reduction, 64 to a word, most significant
  first, after one word of zeros: word w + 1 holds bits 64 w + 1 .. 64 w + 64 of 2/pi's binary expansion
  (floor(2/pi 2^(64 (w + 1))) mod 2^64). TWO_OVER_PI_WORDS words of 2/pi cover every binary64 exponent
  (the largest, 2^971 times a 53-bit integer, reads words 16 to 20 of the padded table).
- raidF64TrigPiOver2: pi/2 as a RaidWide, rounded to nearest at 128 bits (relative error below 2^-128).
- raidF64TrigCoef: the Taylor coefficients in z = r^2 of sin r = r sum_n (-1)^n z^n / (2n+1)! (entries 0 .. N)
  and then of cos r = sum_n (-1)^n z^n / (2n)! (entries N+1 .. 2N+1), each rounded to 128 bits (relative error
  below 2^-128), N = RAID_F64_TRIG_DEGREE the smallest degree where, for both, the first term left out is
  below 2^-130 of the function on |r| <= pi/4 (the series alternate with terms decreasing there, so the
  remainder is below the first term left out; sin r / r >= sin(pi/4) / (pi/4) > 0.9 and cos r >= cos(pi/4) >
  0.7 there). One degree for both keeps the evaluation's loop the same for either function (the kernel picks
  the half of the table, not the code path).
"""
import os
import sys

import gmpy2
from gmpy2 import mpfr

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import f64_tables  # noqa: E402

TWO_OVER_PI_WORDS = 20
TAIL_BITS = 130  # the first Taylor term left out is below 2^-TAIL_BITS of the function on |r| <= pi/4


def degree(first_coef, lower_bound):
    """The smallest N with |c_(N+1)| (pi/4)^(2(N+1)) < 2^-TAIL_BITS lower_bound; c_n = first_coef(n)."""
    z = (gmpy2.const_pi() / 4) ** 2
    n = 0
    while abs(first_coef(n + 1)) * z ** (n + 1) >= mpfr(2) ** -TAIL_BITS * lower_bound:
        n += 1
    return n


def body():
    with gmpy2.context(gmpy2.get_context(), precision=TWO_OVER_PI_WORDS * 64 + 256):
        t = int(gmpy2.floor(2 / gmpy2.const_pi() * mpfr(2) ** (64 * TWO_OVER_PI_WORDS)))
    words = [0] + [(t >> (64 * (TWO_OVER_PI_WORDS - 1 - w))) & ((1 << 64) - 1) for w in range(TWO_OVER_PI_WORDS)]
    sin_c = lambda n: mpfr((-1) ** n) / gmpy2.fac(2 * n + 1)  # noqa: E731
    cos_c = lambda n: mpfr((-1) ** n) / gmpy2.fac(2 * n)  # noqa: E731
    n = max(degree(sin_c, mpfr("0.9")), degree(cos_c, mpfr("0.7")))
    out = [f"#define RAID_F64_TRIG_DEGREE {n} /* sin r = r (s_0 + ... + s_{n} z^{n}), cos r = c_0 + ... + c_{n} z^{n} */\n\n",
           f64_tables.c_u64_table("raidF64TrigTwoOverPi", words,
                                  f"a word of zeros, then 2/pi's first {64 * TWO_OVER_PI_WORDS} bits"), "\n",
           f64_tables.c_words_table("raidF64TrigPiOver2", [gmpy2.const_pi() / 2], "pi/2"), "\n",
           f64_tables.c_words_table("raidF64TrigCoef", [sin_c(k) for k in range(n + 1)] + [cos_c(k) for k in range(n + 1)],
                                    "s_k = (-1)^k / (2k+1)!, then c_k = (-1)^k / (2k)!, k = 0 .. RAID_F64_TRIG_DEGREE")]
    return "".join(out)


if __name__ == "__main__":
    sys.exit(f64_tables.main("trig", "gen_f64_trig.py", body,
                             "the constants of RAID's binary64 sin, cos and tan (kernels/raid_f64_trig.h)"))
