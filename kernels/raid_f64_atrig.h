/*
 * raid_f64_atrig.h -- the inverse trigonometric functions of binary64 on integer words: raidF64Asin,
 * raidF64Acos, raidF64Atan and raidF64Atan2 (bits in, bits out), at most 1 ulp from the exact result for every
 * input and correctly rounded (nearest even) on every input tested (docs/f64.md "Inverse trigonometric
 * functions"). One source for host C, OpenCL C and CUDA (raid_compat.h's dialect); no floating type.
 *
 * Method: every function is atan(n / d) for two non-negative RaidWide values (raid_wide.h), then a quadrant:
 *   atan(x)     = sign(x) atan(|x| / 1)
 *   asin(x)     = sign(x) atan(|x| / s),  s = sqrt((1 - |x|)(1 + |x|))
 *   acos(x)     = atan(s / |x|), or pi - atan(s / |x|) for x < 0
 *   atan2(y, x) = sign(y) atan(|y| / |x|), or sign(y) (pi - atan(|y| / |x|)) when x's sign bit is set
 * 1 - |x| and 1 + |x| are exact in RaidWide (a binary64 |x| <= 1 spans far fewer than 128 bits below 1), so
 * 1 - x^2 has no cancellation, and near |x| = 1 the small s keeps acos near 1 (a small result) to its full
 * relative accuracy. The quotient n / d is never rounded to binary64: atan2's huge and tiny ratios and its
 * subnormal results keep their accuracy (the exponent of a RaidWide has no binary64 range).
 *
 * raidWideAtanRatio(n, d): with p = min(n, d), q = max(n, d), rho = p / q in [0, 1] and c = j / 2^L (L = 7)
 * nearest to rho (j from the quotient of the top words: |rho - c| <= 2^-8 + 2^-29),
 *   atan(rho) = atan(c) + atan(t),  t = (p - c q) / (q + c p)   (Tang's table method; one division),
 * atan(c) from the generated table, atan(t) = t (1 - u/3 + u^2/5 - ... - u^7/15), u = t^2, |t| < 2^-8 (1 +
 * 2^-20) (Taylor; the alternating tail is below u^8 / 17 < 2^-132 relative), and atan(n / d) = atan(rho), or
 * pi/2 - atan(rho) when n > d.
 *
 * Error bound (relative to the exact result R, from raid_wide.h's bounds; eps_s = 2^-122.9 the error of s:
 * Mul 2^-126 halved by the square root plus Sqrt's 2^-123; zero for atan and atan2, whose n and d are exact):
 *   - c q and c p: 2^-126 each; p - c q: opposite signs, below ulp128 of the larger operand (c q <= 2 p when
 *     j >= 1), so |error of p - c q| < (2^-125 + 2^-126 + eps_s) p; q + c p: 2^-126 + eps_s relative; the
 *     division 2^-123. The error of t is thus below (2^-124.4 + eps_s) rho + |t| (2^-122.9 + eps_s), and as
 *     |t| <= rho (j >= 1) or t = rho (1 + 2^-123 + eps_s) (j = 0) and atan(rho) >= (pi/4) rho, atan(t)
 *     contributes below (4/pi)(2^-122.3 + 2 eps_s) < 2^-121.2 of atan(rho);
 *   - the polynomial: u 2^-126 (2 |t|'s); each Horner step adds coefficients of alternating signs with
 *     u p << c_k: below 2^-127 of the step's value; the last multiplication 2^-126: below 2^-125.4 of atan(t);
 *   - the table's atan(c) (rounded to 128 bits, 2^-128) and the sum atan(c) + atan(t) (below 2^-126 of it:
 *     atan(c) <= 2 atan(rho));
 *   - pi/2 - atan(rho) (n > d) and pi - atan(...) (the quadrant): the result is at least pi/4 and the
 *     subtrahend at most the result, so each adds below 2^-126 (constants rounded to 128 bits).
 * In all below 2^-120.7 |R|, so raidWideToF64(r, RAID_F64_ATRIG_ERRBITS = 120) gives the correctly rounded
 * result whenever it says sure; otherwise the rounded r is still within 1 ulp (|r - R| < 2^-120 |R|). The
 * tests count the unsure inputs (none among CORE-MATH's worst cases of asin, acos, atan and atan2 and the
 * random ones: tests/test_f64_atrig.c, tests/python/test_f64_atrig.py).
 *
 * Tiny arguments: for |x| < 2^-27, atan(x) = x (1 - x^2/3 + ...) and asin(x) = x (1 + x^2/6 + ...) lie within
 * x^3/3 < 2^-55.5 |x| of x, closer than half an ulp of x: x is the correctly rounded result (glibc's too).
 *
 * Special values (C99 Annex F, glibc and numpy on x86-64): a NaN operand is returned quiet (x | 2^51; atan2:
 * y if it is a NaN, else x); asin and acos of |x| > 1 (infinities included) are the default NaN
 * 0xFFF8000000000000; asin(+-0) = +-0, atan(+-0) = +-0, acos(1) = +0, acos(-1) = pi rounded; atan(+-inf) =
 * +-pi/2 rounded; atan2(+-0, +0 or x > 0) = +-0, atan2(+-0, -0 or x < 0) = +-pi, atan2(y, +-0) = +-pi/2
 * for y != 0, atan2(+-y, +inf) = +-0 and atan2(+-y, -inf) = +-pi for finite y, atan2(+-inf, x) = +-pi/2 for
 * finite x, atan2(+-inf, +inf) = +-pi/4, atan2(+-inf, -inf) = +-3pi/4 (the infinities are treated as
 * the ratios 1/0, 0/1 and 1/1 of the general path).
 *
 * Sources: Tang, P. T. P. Table-driven implementation of the logarithm / exponential functions (ACM TOMS
 * 1989-1990), whose table method this follows; Muller, J.-M. Elementary Functions, 3rd ed. (2016), 6.2
 * (atan(x) = atan(c) + atan((x - c)/(1 + x c))); ISO C99 Annex F.9.1; Sibidanov, Zimmermann, Glondu, The
 * CORE-MATH Project (ARITH 2022): the worst cases tested (src/binary64/FN/FN.wc for FN = asin, acos, atan, atan2).
 */
#ifndef RAID_F64_ATRIG_H
#define RAID_F64_ATRIG_H

#ifndef RAID_COMPAT_H /* host C */
#include "raid_compat.h"
#endif
#ifndef RAID_WIDE_H
#include "raid_wide.h"
#endif
#ifndef RAID_F64_ATRIG_TABLES_H
#include "raid_f64_atrig_tables.h"
#endif

#define RAID_F64_ATRIG_L 7         /* the table's step 2^-L (scripts/gen_f64_atrig.py ATRIG_L) */
#define RAID_F64_ATRIG_K 7         /* the polynomial's last power of u = t^2 (ATRIG_K) */
#define RAID_F64_ATRIG_ERRBITS 120 /* the relative error bound 2^-120 of the header's derivation */
#define RAID_F64_ATRIG_TINY ((RaidU64)0x3E4 << 52) /* 2^-27: below it asin(x) and atan(x) round to x */
#define RAID_F64_ATRIG_ONE ((RaidU64)0x3FF << 52)

/* Entry i of a generated table of RaidWide words (raid_f64_atrig_tables.h). */
RAID_FN RaidWide raidF64AtrigTabWide(int i) { return raidWideWords(raidF64AtrigTab[3 * i], raidF64AtrigTab[3 * i + 1], raidF64AtrigTab[3 * i + 2]); }
RAID_FN RaidWide raidF64AtrigPolyWide(int k) { return raidWideWords(raidF64AtrigPoly[3 * k], raidF64AtrigPoly[3 * k + 1], raidF64AtrigPoly[3 * k + 2]); }
/* pi/2 (i = 0) or pi (i = 1), rounded to 128 bits. */
RAID_FN RaidWide raidF64AtrigPiWide(int i) { return raidWideWords(raidF64AtrigPi[3 * i], raidF64AtrigPi[3 * i + 1], raidF64AtrigPi[3 * i + 2]); }

/* atan(t) for |t| <= 2^-8 (1 + 2^-20): t (1 - u/3 + ... - u^7/15), u = t^2, by Horner; below 2^-125.4
 * relative error plus t's own (header). */
RAID_FN RaidWide raidWideAtanSmall(RaidWide t)
{
    const RaidWide u = raidWideMul(t, t);
    RaidWide p = raidF64AtrigPolyWide(RAID_F64_ATRIG_K);
    for (int k = RAID_F64_ATRIG_K - 1; k >= 0; k--)
        p = raidWideAdd(raidF64AtrigPolyWide(k), raidWideMul(u, p));
    return raidWideMul(t, p);
}

/* atan(n / d) in [0, pi/2] for n, d >= 0, not both zero (d = 0 gives pi/2), below 2^-120.7 relative error
 * plus that of n and d (header: the ratio is never formed, one division gives the reduced argument). */
RAID_FN RaidWide raidWideAtanRatio(RaidWide n, RaidWide d)
{
    const int swap = raidWideLessAbs(d, n);
    const RaidWide p = swap ? d : n, q = swap ? n : d; /* p <= q, q > 0 */
    /* j nearest to 2^L p / q from the top words: (p.hi / 2) / (q.hi / 2^32) = 2^31 p.hi / q.hi (1 + < 2^-30),
     * p / q = (p.hi / q.hi) 2^(p.e - q.e) with p.e <= q.e, so 2^L p / q ~ qq 2^-sh, sh >= 31 - L;
     * ((qq >> (sh - 1)) + 1) >> 1 rounds qq 2^-sh to nearest */
    int j = 0;
    if (p.hi) {
        const RaidU64 qq = (p.hi >> 1) / (q.hi >> 32);
        const int sh = 31 - RAID_F64_ATRIG_L - (p.e - q.e);
        if (sh - 1 < 64)
            j = (int)(((qq >> (sh - 1)) + 1) >> 1);
        if (j > (1 << RAID_F64_ATRIG_L))
            j = 1 << RAID_F64_ATRIG_L;
    }
    const RaidWide c = raidWideLdexp(raidWideFromI64(j), -RAID_F64_ATRIG_L);
    const RaidWide num = raidWideSub(p, raidWideMul(c, q));
    const RaidWide den = raidWideAdd(q, raidWideMul(c, p));
    RaidWide r = raidWideAdd(raidF64AtrigTabWide(j), raidWideAtanSmall(raidWideDiv(num, den)));
    if (swap)
        r = raidWideSub(raidF64AtrigPiWide(0), r);
    return r;
}

/* sqrt((1 - a)(1 + a)) for a binary64 0 <= a <= 1 given as RaidWide: the two factors exact, below 2^-122.9
 * relative error (header). */
RAID_FN RaidWide raidWideAtrigCofactor(RaidWide a)
{
    const RaidWide one = raidWideFromI64(1);
    return raidWideSqrt(raidWideMul(raidWideSub(one, a), raidWideAdd(one, a)));
}

/* atan(x), with *sure the rounding test's verdict (1: correctly rounded; 1 for the special values). */
RAID_F64_FN RaidU64 raidF64AtrigAtan(RaidU64 x, int *sure)
{
    const RaidU64 ax = x & ~RAID_F64_SIGN;
    *sure = 1;
    if (ax > RAID_F64_INF)
        return x | RAID_F64_QUIET;
    if (ax < RAID_F64_ATRIG_TINY)
        return x;
    const int inf = ax == RAID_F64_INF; /* atan(+-inf) = +-atan(1 / 0) */
    RaidWide r = raidWideAtanRatio(inf ? raidWideFromI64(1) : raidWideFromF64(ax), raidWideFromI64(inf ? 0 : 1));
    r.neg = (int)(x >> 63);
    return raidWideToF64(r, RAID_F64_ATRIG_ERRBITS, sure);
}

/* asin(x), with *sure as raidF64AtrigAtan's. */
RAID_F64_FN RaidU64 raidF64AtrigAsin(RaidU64 x, int *sure)
{
    const RaidU64 ax = x & ~RAID_F64_SIGN;
    *sure = 1;
    if (ax > RAID_F64_INF)
        return x | RAID_F64_QUIET;
    if (ax > RAID_F64_ATRIG_ONE)
        return RAID_F64_DEFAULT_NAN;
    if (ax < RAID_F64_ATRIG_TINY)
        return x;
    const RaidWide a = raidWideFromF64(ax);
    RaidWide r = raidWideAtanRatio(a, raidWideAtrigCofactor(a)); /* |x| = 1: pi/2 */
    r.neg = (int)(x >> 63);
    return raidWideToF64(r, RAID_F64_ATRIG_ERRBITS, sure);
}

/* acos(x), with *sure as raidF64AtrigAtan's. */
RAID_F64_FN RaidU64 raidF64AtrigAcos(RaidU64 x, int *sure)
{
    const RaidU64 ax = x & ~RAID_F64_SIGN;
    *sure = 1;
    if (ax > RAID_F64_INF)
        return x | RAID_F64_QUIET;
    if (ax > RAID_F64_ATRIG_ONE)
        return RAID_F64_DEFAULT_NAN;
    const RaidWide a = raidWideFromF64(ax);
    RaidWide r = raidWideAtanRatio(raidWideAtrigCofactor(a), a); /* x = 1: +0; x = +-0: pi/2 */
    if (x >> 63)
        r = raidWideSub(raidF64AtrigPiWide(1), r);
    return raidWideToF64(r, RAID_F64_ATRIG_ERRBITS, sure);
}

/* atan2(y, x), with *sure as raidF64AtrigAtan's. */
RAID_F64_FN RaidU64 raidF64AtrigAtan2(RaidU64 y, RaidU64 x, int *sure)
{
    const RaidU64 ay = y & ~RAID_F64_SIGN, ax = x & ~RAID_F64_SIGN;
    *sure = 1;
    if (ay > RAID_F64_INF || ax > RAID_F64_INF)
        return raidF64PropagateNan(y, x);
    /* an infinity makes the ratio 1/0 (y infinite), 0/1 (x infinite) or 1/1 (both) */
    RaidWide n, d;
    if (ay == RAID_F64_INF || ax == RAID_F64_INF) {
        n = raidWideFromI64(ay == RAID_F64_INF);
        d = raidWideFromI64(ax == RAID_F64_INF);
    } else {
        n = raidWideFromF64(ay);
        d = raidWideFromF64(ax);
    }
    RaidWide r = raidWideIsZero(n) ? raidWideZero() : raidWideAtanRatio(n, d);
    if (x >> 63) /* x < 0 or x = -0 */
        r = raidWideSub(raidF64AtrigPiWide(1), r);
    r.neg = (int)(y >> 63);
    return raidWideToF64(r, RAID_F64_ATRIG_ERRBITS, sure);
}

/* The functions of include/raid/f64.h's RAID_F64_ASIN, ACOS, ATAN, ATAN2 (the header's contract). */
RAID_F64_FN RaidU64 raidF64Asin(RaidU64 x)
{
    int sure;
    return raidF64AtrigAsin(x, &sure);
}

RAID_F64_FN RaidU64 raidF64Acos(RaidU64 x)
{
    int sure;
    return raidF64AtrigAcos(x, &sure);
}

RAID_F64_FN RaidU64 raidF64Atan(RaidU64 x)
{
    int sure;
    return raidF64AtrigAtan(x, &sure);
}

RAID_F64_FN RaidU64 raidF64Atan2(RaidU64 y, RaidU64 x)
{
    int sure;
    return raidF64AtrigAtan2(y, x, &sure);
}

#endif /* RAID_F64_ATRIG_H */
