/*
 * raid_f64_exp.h -- RAID's binary64 exponential family on integer words: exp, exp2, exp10, expm1 (correctly
 * rounded, round to nearest even, for every binary64 input), sinh, cosh, tanh (at most 1 ulp), and
 * raidWideExpOf, e^y for a RaidWide y (the exponential of pow(x, y) = exp(y ln x)).
 *
 * Method (Tang's table method, Muller's Handbook of Floating-Point Arithmetic 2nd ed. 11.3, with two tables):
 *   x log2(b) = N/4096 + u/ln 2:  N = round(x 4096 log2 b), r = x - N C1 - N C2 (C1 + C2 = 1/(4096 log2 b),
 *   Cody and Waite's two pieces), u = r ln b (|u| <= ln2/8192 (1 + 2^-100));  N = 4096 k + m, m in [-2048,
 *   2048), m = 64 i1 + i2, i1 in [-32, 32], i2 in [-32, 32);  b^x = 2^k (1 + D) with
 *       D = 2^(m/4096) e^u - 1 = S + (1 + S) p,   S = 2^(m/4096) - 1 = D1 + D2 + D1 D2,   p = e^u - 1,
 *   D1 = 2^(i1/64) - 1, D2 = 2^(i2/4096) - 1 from raid_f64_exp_tables.h (scripts/gen_f64_exp.py, MPFR), and
 *   p = u + u^2 q(u), q Taylor's 1/2 + u/3! + ... + u^6/8! by Horner. Everything is RaidWide (raid_wide.h).
 *   Keeping 2^t - 1 rather than 2^t in the tables makes D accurate relative to itself when k = 0, which
 *   expm1, sinh and tanh need near 0 (|D1| > 1.98 |D2| when i1 != 0, and |(1 + S) p| <= |S| / 2 (1 + 2^-12)
 *   when m != 0: each sum cancels by at most one bit).
 *
 * Argument reduction, exactly (binary64 x): C1 is a multiple of 2^-116 with at most 104 significant bits, so
 *   N C1 is exact in 128 bits for |N| < 2^24; when N != 0, |x| > 2^-15, so x is a multiple of 2^-67 and
 *   x - N C1 (a multiple of 2^-116 below 2^10) is exact too. N C2 (|C2| < 2^-116, C2 kept to 2^-128
 *   relative) and the last subtraction add below 2^-140 absolutely to u (|u| < 2^-13.5: the subtraction's
 *   truncation is below 2^-128 of it). exp2 (C1 = 2^-12, C2 = 0): r exact, u = r ln 2 within 2^-125.8 |u|.
 *   exp10: u = r ln 10 within 2^-125.8 |u| + 2^-138.
 *
 * Error of 1 + D (raid_wide.h's operation bounds; |D| <= 2^(1/2) - 1, 1 + D in [0.70, 1.42]):
 *   truncation of p's Taylor series |u|^9/9! e^|u| < 2^-140 (relative to p: 2^-126.7); Horner on q and the
 *   last steps u (u q), u + u^2 q: p within 2^-125.3 |p|. Tables 2^-129 relative each. Absolute errors: D1
 *   2^-130.3, D1 + D2 and S = (D1 + D2) + D1 D2 2^-127.25 each, s p and D1 D2 below 2^-133, D = S + s p
 *   2^-127.25, 1 + D 2^-125.5 (or 2^-127 when D < 0), u's 2^-138 times 1.42: in all below 2.8 2^-126 =
 *   2^-124.5 absolutely, so below 2^-124 relative to 1 + D >= 0.7 (when D < 0 the sum is 2.1 2^-126 / 0.7).
 *   Hence exp, exp2, exp10 are 2^k (1 + D) within 2^-124 relative; they round with raidWideToF64(., 123):
 *   correctly rounded wherever the exact value is farther than 2^-123 (relatively) from a rounding boundary,
 *   which Lefevre and Muller's searches (CORE-MATH's worst-case files, tests/data/f64_worst) show for every
 *   binary64 input outside the exact cases below.
 * expm1 = D when k = 0: relative to |S| (m != 0), S within 2^-124.7 |S| (D1 + D2 cancels by one bit at
 *   most), s p within 2^-125.3 |S|, the sum 2^-125.4 |S|, and |D| >= |S| / 2: within 2^-122.5 |D|; m = 0 gives
 *   D = p (2^-125.3). k != 0: 2^k (1 + D) - 1 with e^x / |e^x - 1| <= 3.42 (x >= ln2/2 - ln2/8192) or 2.42
 *   (x below -ln2/2 + ln2/8192): within 2^-122.6. expm1 rounds with raidWideToF64(., 122).
 * sinh = (D + D / (1 + D)) / 2 with D = expm1(|x|) (no cancellation: every term has x's sign); for |x| >= 46
 *   e^|x| / 2 (e^-|x| is below 2^-132 of it). cosh = (E + 1/E) / 2, E = e^|x| (E alone for |x| >= 46). tanh =
 *   D / (D + 2), D = expm1(2|x|). Each within 2^-120 relative (expm1's 2^-122.5, raidWideDiv's 2^-123,
 *   raidWideRecip's 2^-124, sums of like signs 2^-126): they round with raidWideToF64(., 120) and are
 *   correctly rounded unless the exact value is within 2^-120 of a boundary (claimed: at most 1 ulp).
 *
 * Exact and special cases, handled before the wide path (C99 Annex F, glibc and numpy on x86-64):
 *   NaN: the NaN made quiet (x | 2^51). exp(+inf) = +inf, exp(-inf) = +0; exp of |x| >= 1024: +inf or +0 (the
 *   wide path rounds the results between the thresholds: overflow to +inf above 0x1.62e42fefa39efp+9,
 *   subnormal results rounded once, +0 below -0x1.74910d52d3052p+9). |x| < 2^-54: exp(x) = exp2(x) = 1 (the
 *   exact value is within 2^-54 (1 + 2^-53) of 1, below half an ulp of 1 on either side); exp10 likewise
 *   for |x| < 2^-56. exp2 of an integer k: 2^k (subnormal, +inf or +0 as it falls); exp10 of an integer
 *   k in [0, 27]: 10^k = 5^k 2^k rounded once from the exact product (exact for k <= 22; 10^23 is a
 *   tie, rounded to even). expm1(+-0) = +-0 and expm1(x) = x for |x| < 2^-54 (|x^2/2| is below half an ulp
 *   of x, on the side away from the next binade); expm1(-inf) = -1, expm1(x) = -1 for x <= -40 (e^x < 2^-57);
 *   expm1 of x >= 710: +inf. sinh(x) = x and tanh(x) = x for |x| < 2^-27 (x^2/6, x^2/3 below 2^-55.5);
 *   cosh(x) = 1 there; sinh(+-inf) = +-inf, cosh(+-inf) = +inf, tanh(+-inf) = +-1, tanh(x) = +-1 for |x| >= 20
 *   (1 - tanh|x| < 2 e^-40 < 2^-56); sinh and cosh of |x| >= 711 overflow to infinity.
 *
 * Sources: Tang, P. T. P. Table-driven implementation of the exponential function in IEEE floating-point
 * arithmetic (ACM TOMS 15(2), 1989) and of expm1 (ACM TOMS 18(2), 1992); Cody, W. J., Waite, W. Software
 * Manual for the Elementary Functions (1980); Muller, J.-M. Elementary Functions, 3rd ed. (2016);
 * CORE-MATH (Sibidanov, Zimmermann, Glondu, ARITH 2022) for the worst cases and the rounding test.
 *
 * One source for host C, OpenCL C and CUDA, in the dialect of raid_compat.h; no floating type is used.
 */
#ifndef RAID_F64_EXP_H
#define RAID_F64_EXP_H

#ifndef RAID_COMPAT_H /* host C */
#include "raid_compat.h"
#endif
#ifndef RAID_WIDE_H
#include "raid_wide.h"
#endif
#ifndef RAID_F64_EXP_TABLES_H
#include "raid_f64_exp_tables.h"
#endif

#define RAID_F64_EXP_BASE_E 0  /* rows of RAID_F64_EXP_RED */
#define RAID_F64_EXP_BASE_2 1
#define RAID_F64_EXP_BASE_10 2
#define RAID_F64_ONE ((RaidU64)0x3FF << 52)

/* Entry i of a generated table of RaidWide words. */
#define RAID_F64_EXP_WIDE(T, i) raidWideWords(T[3 * (i)], T[3 * (i) + 1], T[3 * (i) + 2])

/* The integer nearest t (halves away from zero), for |t| < 2^62. */
RAID_F64_FN RaidI64 raidWideRoundToInt(RaidWide t)
{
    if (!t.hi || t.e < 0) /* |t| < 1/2 */
        return 0;
    RaidU64 n = 1; /* e = 0: |t| in [1/2, 1) */
    if (t.e > 0)
        n = (t.hi >> (64 - t.e)) + ((t.hi >> (63 - t.e)) & 1);
    return t.neg ? -(RaidI64)n : (RaidI64)n;
}

/* The reduced argument u and *n = N for b^x (b: RAID_F64_EXP_BASE_*), |x| < 2^11: b^x = 2^(N/4096) e^u, |u| <=
 * ln2/8192 (1 + 2^-100). Exact up to u's rounding (header) for a binary64 x; for a RaidWide x the subtraction
 * x - N C1 adds at most 2^-127 (|x| + 2^-12) absolutely (raidWideAdd's truncation). */
RAID_F64_FN RaidWide raidF64ExpReduce(RaidWide x, int base, RaidI64 *n)
{
    const int row = 4 * base;
    const RaidI64 N = raidWideRoundToInt(raidWideMul(x, RAID_F64_EXP_WIDE(RAID_F64_EXP_RED, row)));
    const RaidWide wn = raidWideFromI64(N);
    RaidWide r = raidWideSub(x, raidWideMul(wn, RAID_F64_EXP_WIDE(RAID_F64_EXP_RED, row + 1)));
    r = raidWideSub(r, raidWideMul(wn, RAID_F64_EXP_WIDE(RAID_F64_EXP_RED, row + 2)));
    if (base != RAID_F64_EXP_BASE_E)
        r = raidWideMul(r, RAID_F64_EXP_WIDE(RAID_F64_EXP_RED, row + 3));
    *n = N;
    return r;
}

/* D = 2^(m/4096) e^u - 1 and *k, where N = 4096 k + m, m in [-2048, 2048), |N| < 2^24, |u| <= ln2/8192
 * (1 + 2^-100): 2^(N/4096) e^u = 2^k (1 + D). Error bounds in the header. */
RAID_F64_FN RaidWide raidF64ExpCore(RaidI64 n, RaidWide u, int *k)
{
    const RaidI64 off = n + 2048 + ((RaidI64)1 << 36); /* >= 0: the shifts below are floors */
    *k = (int)(off >> 12) - (1 << 24);
    const int m = (int)(off & 4095) - 2048;
    const int i1 = ((m + 2048 + 32) >> 6) - 32; /* m = 64 i1 + i2, i2 in [-32, 32) */
    const int i2 = m - 64 * i1;
    const RaidWide d1 = RAID_F64_EXP_WIDE(RAID_F64_EXP_D1, i1 + 32), d2 = RAID_F64_EXP_WIDE(RAID_F64_EXP_D2, i2 + 32);
    const RaidWide s = raidWideAdd(raidWideAdd(d1, d2), raidWideMul(d1, d2)); /* 2^(m/4096) - 1 */
    RaidWide q = RAID_F64_EXP_WIDE(RAID_F64_EXP_POLY, 6);
    for (int i = 5; i >= 0; i--)
        q = raidWideAdd(raidWideMul(q, u), RAID_F64_EXP_WIDE(RAID_F64_EXP_POLY, i));
    const RaidWide p = raidWideAdd(u, raidWideMul(u, raidWideMul(u, q))); /* e^u - 1 */
    return raidWideAdd(s, raidWideMul(raidWideAdd(raidWideFromI64(1), s), p));
}

/* e^y for a RaidWide y, within 2^-124 + 2^-127 (|y| + 2^-12) relative (the header's bound and the
 * reduction's truncation), for |y| < 2^11; if y carries an absolute error d (|d| < 2^-60), e^(y + d) = e^y
 * (1 + d') with |d'| <= 1.0000001 |d|: the bounds add. |y| >= 2^11: 2^4096 or 2^-4096 (raidWideToF64 rounds
 * them to +inf or +0). The result is never zero or negative. */
RAID_F64_FN RaidWide raidWideExpOf(RaidWide y)
{
    const RaidWide one = raidWideFromI64(1);
    if (!y.hi)
        return one;
    if (y.e > 11)
        return raidWideLdexp(one, y.neg ? -4096 : 4096);
    RaidI64 n;
    int k;
    const RaidWide u = raidF64ExpReduce(y, RAID_F64_EXP_BASE_E, &n);
    const RaidWide d = raidF64ExpCore(n, u, &k);
    return raidWideLdexp(raidWideAdd(one, d), k);
}

/* b^x for a binary64 x (|x| < 2^11, b: RAID_F64_EXP_BASE_*) in RaidWide, within 2^-124 relative. */
RAID_F64_FN RaidWide raidF64ExpWide(RaidU64 x, int base)
{
    RaidI64 n;
    int k;
    const RaidWide u = raidF64ExpReduce(raidWideFromF64(x), base, &n);
    const RaidWide d = raidF64ExpCore(n, u, &k); /* sets k: before the call that reads it */
    return raidWideLdexp(raidWideAdd(raidWideFromI64(1), d), k);
}

/* e^x - 1 for a binary64 x (|x| < 2^11) in RaidWide, within 2^-122.5 relative. */
RAID_F64_FN RaidWide raidF64Expm1Wide(RaidU64 x)
{
    RaidI64 n;
    int k;
    const RaidWide u = raidF64ExpReduce(raidWideFromF64(x), RAID_F64_EXP_BASE_E, &n);
    const RaidWide d = raidF64ExpCore(n, u, &k);
    if (!k)
        return d;
    const RaidWide one = raidWideFromI64(1);
    return raidWideSub(raidWideLdexp(raidWideAdd(one, d), k), one);
}

/* The special and exact cases of exp, exp2 and exp10 (b: RAID_F64_EXP_BASE_*): 1 with *r set when x is one of
 * them (NaN, infinities, |x| beyond the thresholds, tiny |x|, exp2 of an integer, exp10 of an integer in
 * [0, 27]). */
RAID_F64_FN int raidF64ExpSpecial(RaidU64 x, int base, RaidU64 *r)
{
    const RaidU64 ax = x & ~RAID_F64_SIGN;
    /* |x| beyond which b^x is +inf or +0: 1024 (e), 1100 (2), 400 (10); tiny: 2^-54, 2^-54, 2^-56 */
    const RaidU64 big = base == RAID_F64_EXP_BASE_E ? 0x4090000000000000u
                        : base == RAID_F64_EXP_BASE_2 ? 0x4091300000000000u : 0x4079000000000000u;
    const RaidU64 tiny = base == RAID_F64_EXP_BASE_10 ? 0x3C70000000000000u : 0x3C90000000000000u;
    if (ax > RAID_F64_INF) {
        *r = x | RAID_F64_QUIET;
        return 1;
    }
    if (ax >= big) {
        *r = x >> 63 ? 0 : RAID_F64_INF;
        return 1;
    }
    if (ax < tiny) {
        *r = RAID_F64_ONE;
        return 1;
    }
    if (base == RAID_F64_EXP_BASE_E || raidF64Trunc(x) != x)
        return 0;
    /* an integer k, |k| < 1100 */
    int e;
    const RaidU64 s = raidF64Unpack(ax, &e); /* |x| = s 2^(e - 1075), e >= 1023 */
    const int k = (int)(s >> (1075 - e)) * (x >> 63 ? -1 : 1);
    int sure;
    if (base == RAID_F64_EXP_BASE_2) {
        *r = raidWideToF64(raidWideLdexp(raidWideFromI64(1), k), 127, &sure);
        return 1;
    }
    if (k < 0 || k > 27)
        return 0;
    RaidU64 p = 1, b = 5; /* 5^k < 2^63, by squaring */
    for (int i = 0; i < 5; i++) {
        if ((k >> i) & 1)
            p *= b;
        b *= b;
    }
    *r = raidWideToF64(raidWideLdexp(raidWideFromI64((RaidI64)p), k), 127, &sure); /* exact: one rounding */
    return 1;
}

/* b^x and *sure, raidWideToF64's rounding test (1 for the special and exact cases). */
RAID_F64_FN RaidU64 raidF64ExpBaseChecked(RaidU64 x, int base, int *sure)
{
    RaidU64 r;
    *sure = 1;
    if (raidF64ExpSpecial(x, base, &r))
        return r;
    return raidWideToF64(raidF64ExpWide(x, base), 123, sure);
}

/* e^x - 1 and *sure (1 for the special cases). */
RAID_F64_FN RaidU64 raidF64Expm1Checked(RaidU64 x, int *sure)
{
    const RaidU64 ax = x & ~RAID_F64_SIGN;
    *sure = 1;
    if (ax > RAID_F64_INF)
        return x | RAID_F64_QUIET;
    if (x >= 0xC044000000000000u) /* x <= -40, -inf included: -1 + e^x rounds to -1 */
        return RAID_F64_ONE | RAID_F64_SIGN;
    if (x >= 0x4086300000000000u && !(x >> 63)) /* x >= 710, +inf included */
        return RAID_F64_INF;
    if (ax < 0x3C90000000000000u) /* |x| < 2^-54, +-0 included */
        return x;
    return raidWideToF64(raidF64Expm1Wide(x), 122, sure);
}

/* sinh, cosh or tanh (fn 0, 1, 2) and *sure (1 for the special cases). */
RAID_F64_FN RaidU64 raidF64HyperbolicChecked(RaidU64 x, int fn, int *sure)
{
    const RaidU64 ax = x & ~RAID_F64_SIGN, sign = x & RAID_F64_SIGN;
    *sure = 1;
    if (ax > RAID_F64_INF)
        return x | RAID_F64_QUIET;
    if (fn == 2 && ax >= 0x4034000000000000u) /* |x| >= 20, infinities included */
        return sign | RAID_F64_ONE;
    if (ax >= 0x4086380000000000u) /* |x| >= 711 */
        return (fn == 1 ? 0 : sign) | RAID_F64_INF;
    if (ax < 0x3E40000000000000u) /* |x| < 2^-27 */
        return fn == 1 ? RAID_F64_ONE : x;
    RaidWide w;
    const RaidWide one = raidWideFromI64(1);
    if (fn == 2) { /* D / (D + 2), D = e^(2|x|) - 1: 2|x| is exact */
        const RaidWide d = raidF64Expm1Wide(ax + ((RaidU64)1 << 52));
        w = raidWideDiv(d, raidWideAdd(d, raidWideFromI64(2)));
    } else if (ax >= 0x4047000000000000u) { /* |x| >= 46: e^-|x| < 2^-132 e^|x| */
        w = raidF64ExpWide(ax, RAID_F64_EXP_BASE_E);
    } else if (fn == 1) {
        const RaidWide e = raidF64ExpWide(ax, RAID_F64_EXP_BASE_E);
        w = raidWideAdd(e, raidWideRecip(e));
    } else { /* e^|x| - e^-|x| = D + D / (1 + D), D = e^|x| - 1 */
        const RaidWide d = raidF64Expm1Wide(ax);
        w = raidWideAdd(d, raidWideDiv(d, raidWideAdd(one, d)));
    }
    if (fn != 2)
        w = raidWideLdexp(w, -1);
    const RaidU64 r = raidWideToF64(w, 120, sure);
    return fn == 1 ? r : r | sign;
}

/* e^x, 2^x, 10^x, e^x - 1: correctly rounded (header). */
RAID_F64_FN RaidU64 raidF64Exp(RaidU64 x)
{
    int sure;
    return raidF64ExpBaseChecked(x, RAID_F64_EXP_BASE_E, &sure);
}

RAID_F64_FN RaidU64 raidF64Exp2(RaidU64 x)
{
    int sure;
    return raidF64ExpBaseChecked(x, RAID_F64_EXP_BASE_2, &sure);
}

RAID_F64_FN RaidU64 raidF64Exp10(RaidU64 x)
{
    int sure;
    return raidF64ExpBaseChecked(x, RAID_F64_EXP_BASE_10, &sure);
}

RAID_F64_FN RaidU64 raidF64Expm1(RaidU64 x)
{
    int sure;
    return raidF64Expm1Checked(x, &sure);
}

/* sinh, cosh, tanh: at most 1 ulp (header). */
RAID_F64_FN RaidU64 raidF64Sinh(RaidU64 x)
{
    int sure;
    return raidF64HyperbolicChecked(x, 0, &sure);
}

RAID_F64_FN RaidU64 raidF64Cosh(RaidU64 x)
{
    int sure;
    return raidF64HyperbolicChecked(x, 1, &sure);
}

RAID_F64_FN RaidU64 raidF64Tanh(RaidU64 x)
{
    int sure;
    return raidF64HyperbolicChecked(x, 2, &sure);
}

#endif /* RAID_F64_EXP_H */
