#!/usr/bin/env python3
"""Writes kernels/raid_f64_log_tables.h: the constants of the binary64 logarithms (kernels/raid_f64_log.h).

The reduction (raid_f64_log.h's header): y = 2^k m with m in [1, 2), i = round(256 (m - 1)) in [0, 256],
t = m C_i 2^-63 - 1 with C_i = round(2^71 / (256 + i)) (so |t| <= 2^-9 (1 + 2^-60)), and
ln y = (k + d_i) ln 2 + L_i + log1p(t) with d_i = 1 for i >= RAID_F64_LOG_HALF (1 + i/256 > sqrt 2), else 0,
and L_i = -ln(2^d_i C_i 2^-63): |L_i| < 0.3466, and L_0 = L_256 = 0 exactly.

The generator checks the two facts the error bound of raid_f64_log.h rests on: |t| <= 2^-9 (1 + 2^-60) for
every m of entry i, and |L_i| >= 1.96 max|t| for i not in {0, 256} (so that L_i + log1p(t) loses at most a
factor of about 2 to cancellation); and that the exponents of 10^0 .. 10^22 map back to their k through
raid_f64_log.h's formula k = (e 1233 + 4095) >> 12.

The fast path's table (raid_f64_log.h, "The fast path"): for the same i, c_i = C'_i 2^-11 with the 12-bit
integer C'_i = round(2^19 / (256 + i)) (so C'_i m 2^52 < 2^64 and z = c_i m - 1 is exact in one 64-bit word),
and L'_i = -ln(2^d_i c_i) in signed fixed point, round(L'_i 2^117) as two 64-bit words (two's complement);
L'_0 = L'_256 = 0. The generator checks |z| <= 2^-8.8 for every m of every entry (the bound the error analysis
uses), C'_0 = 2^11 and C'_256 = 2^10 (z = x - 1 exactly near 1), and the split of ln 2.
"""
import sys

import gmpy2
from gmpy2 import mpfr

import f64_tables

NTAB = 256          # entries 0 .. 256
HALF = 107          # the first i with 1 + i/256 > sqrt(2)
DEGREE = 14         # log1p(t) = t (1 + t Q(t)), Q = sum_{j=2..14} (-1)^(j+1) t^(j-2) / j
NPOW10 = 23         # 10^0 .. 10^22: exact in binary64
FAST_DEGREE = 9     # the fast path's log1p(z) = z - z^2/2 + z^3 Q3(z), Q3 = sum_{j=0..6} (-z)^j / (j + 3)
FAST_ZMAX = mpfr(2) ** mpfr(-8.8)  # the bound on |z| the fast path's error analysis uses


def c_int(i):
    """C_i = round(2^71 / (256 + i)), ties never occur (256 + i is not a power of two but for i = 0, 256)."""
    q, r = divmod(1 << 71, 256 + i)
    return q + (1 if 2 * r >= 256 + i else 0)


def entry(i, c, bits):
    """Entry i of a table of constants c 2^-bits ~ 1 / m for the m of [1 + (i - 1/2)/256, 1 + (i + 1/2)/256)
    within [1, 2): L_i = -ln(2^d_i c 2^-bits), d_i = (i >= HALF), exactly 0 at the ends (where 2^d_i c 2^-bits
    is 1), and the largest |m c 2^-bits - 1| over the entry's m."""
    d = 1 if i >= HALF else 0
    cv = mpfr(c) * mpfr(2) ** (d - bits)
    li = -gmpy2.log(cv)
    if i in (0, NTAB):
        assert cv == 1
        li = mpfr(0)
    lo = max(mpfr(1), 1 + (mpfr(i) - mpfr(0.5)) / 256)
    hi = min(mpfr(2), 1 + (mpfr(i) + mpfr(0.5)) / 256)
    return li, max(abs(lo * c * mpfr(2) ** -bits - 1), abs(hi * c * mpfr(2) ** -bits - 1))


def fast_tables():
    """The fast path's entries (C'_i, L'_i hi, L'_i lo), its coefficients round(2^64 / (j + 3)), and the split of
    ln 2 = H 2^-53 + L 2^-106 + err (|err| <= 2^-107)."""
    words, zmax_all = [], mpfr(0)
    for i in range(NTAB + 1):
        q, r = divmod(1 << 19, 256 + i)
        c = q + (1 if 2 * r >= 256 + i else 0)
        assert c * ((1 << 53) - 1) < (1 << 64)
        li, zmax = entry(i, c, 11)
        zmax_all = max(zmax_all, zmax)
        assert zmax <= FAST_ZMAX, (i, zmax)
        assert abs(li) < mpfr(0.35)
        v = int(gmpy2.rint(li * mpfr(2) ** 117)) & ((1 << 128) - 1)
        words += [c, v >> 64, v & ((1 << 64) - 1)]
    assert words[0] == 1 << 11 and words[3 * NTAB] == 1 << 10
    coef = [int(gmpy2.rint(mpfr(2) ** 64 / (j + 3))) for j in range(FAST_DEGREE - 2)]
    ln2 = gmpy2.log(mpfr(2))
    h = int(gmpy2.rint(ln2 * mpfr(2) ** 53))
    l = int(gmpy2.rint((ln2 - h * mpfr(2) ** -53) * mpfr(2) ** 106))
    assert abs(ln2 - h * mpfr(2) ** -53 - l * mpfr(2) ** -106) <= mpfr(2) ** -107
    assert 1074 * h < (1 << 63) and 1074 * abs(l) < (1 << 63)
    return words, coef, h, l, zmax_all


def build():
    assert mpfr(1 + (HALF - 1) / 256) < gmpy2.sqrt(mpfr(2)) < mpfr(1 + HALF / 256)
    cs, ls = [], []
    ln2 = gmpy2.log(mpfr(2))
    tmax_all = mpfr(0)
    for i in range(NTAB + 1):
        c = c_int(i)
        assert c < (1 << 64)
        li, tmax = entry(i, c, 63)
        tmax_all = max(tmax_all, tmax)
        assert tmax <= mpfr(2) ** -9 * (1 + mpfr(2) ** -60), (i, tmax)
        if i not in (0, NTAB):
            assert abs(li) >= mpfr(1.96) * tmax * (1 + tmax), (i, li, tmax)
        assert abs(li) < mpfr(0.3466)
        cs.append(c)
        ls.append(li)
    coef = [mpfr((-1) ** (j + 1)) / j for j in range(2, DEGREE + 1)]
    pow10 = []
    for k in range(NPOW10):
        b = f64_bits(10 ** k)
        ee = ((b >> 52) & 0x7FF) - 1023
        assert (ee * 1233 + 4095) >> 12 == k, (k, ee)
        pow10.append(b)
    fwords, fcoef, ln2h, ln2l, zmax = fast_tables()
    body = (
        f"#define RAID_F64_LOG_NTAB {NTAB} /* entries 0 .. RAID_F64_LOG_NTAB */\n"
        f"#define RAID_F64_LOG_HALF {HALF} /* the first i with 1 + i/256 > sqrt(2): ln 2 moves to k */\n"
        f"#define RAID_F64_LOG_DEGREE {DEGREE} /* of the Taylor polynomial of log1p */\n\n"
        + f64_tables.c_u64_table("raidF64LogC", cs, "C_i = round(2^71 / (256 + i)), i = 0 .. 256")
        + "\n"
        + f64_tables.c_words_table("raidF64LogL", ls,
                                   "L_i = -ln(2^d_i C_i 2^-63), d_i = (i >= RAID_F64_LOG_HALF); L_0 = L_256 = 0")
        + "\n"
        + f64_tables.c_words_table("raidF64LogQ", coef,
                                   "(-1)^(j+1) / j for j = 2 .. RAID_F64_LOG_DEGREE (the coefficients of Q)")
        + "\n"
        + f64_tables.c_words_table("raidF64LogConst", [ln2, 1 / ln2, 1 / gmpy2.log(mpfr(10))],
                                   "ln 2, 1 / ln 2, 1 / ln 10")
        + "\n"
        + f64_tables.c_u64_table("raidF64LogPow10", pow10,
                                 "the binary64 bits of 10^k, k = 0 .. 22 (exact): log10's exact cases")
        + "\n"
        + f"/* the fast path: max |z| over every entry is {float(gmpy2.log2(zmax)):.4f} in log2 (bound used: -8.8) */\n"
        + f"#define RAID_F64_LOGF_LN2H 0x{ln2h:016X}u /* round(ln 2 2^53) */\n"
        + f"#define RAID_F64_LOGF_LN2L 0x{ln2l & ((1 << 64) - 1):016X}u /* round((ln 2 - H 2^-53) 2^106), signed */\n"
        + f64_tables.c_u64_table("raidF64LogFastT", fwords,
                                 "for i = 0 .. 256: C'_i = round(2^19 / (256 + i)), then round(L'_i 2^117) as hi, lo "
                                 "(two's complement),\n * L'_i = -ln(2^d_i C'_i 2^-11)", per_line=3)
        + "\n"
        + f64_tables.c_u64_table("raidF64LogFastQ", fcoef, "round(2^64 / (j + 3)), j = 0 .. 6: Q3's coefficients")
    )
    return body


def f64_bits(n):
    """The bits of the binary64 equal to the integer n (which must be exact)."""
    import struct
    v = float(n)
    assert int(v) == n
    return struct.unpack("<Q", struct.pack("<d", v))[0]


if __name__ == "__main__":
    sys.exit(f64_tables.main("log", "gen_f64_log.py", build,
                             "tables of the binary64 logarithms log, log2, log10, log1p (raid_f64_log.h)"))
