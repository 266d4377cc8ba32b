/*
 * raid_f64_pow.h -- pow(x, y) for binary64 x and y on integer words (C's pow, numpy.power): at most 1 ulp
 * from the exact value for every pair of inputs, and correctly rounded (round to nearest even) wherever the
 * rounding test decides, which is every pair tested but those nearer a rounding boundary than the error bound
 * below; exact midpoints (such as (2^27 - 1)^2) are found and rounded exactly. The same bits on the host and
 * on every device.
 *
 * Method: |x|^y = e^P with P = y ln|x|, in RaidWide (kernels/raid_wide.h): L = raidWideLogOf(|x|)
 *   (kernels/raid_f64_log.h, relative error below 6.56 2^-127 for every finite x > 0, x near 1 included),
 *   P = y L (y exact in a RaidWide, the product truncated: 2^-127 relative), E = raidWideExpOf(P)
 *   (kernels/raid_f64_exp.h), then raidWideToF64(E, errbits) and its rounding test. The sign is y's parity's
 *   when x < 0 (then y is an integer).
 *
 * Error bound. v = 2^-127. P = y L (1 + a), |a| < 6.56 v + v + v^2 < 7.5601 v: P's absolute error d is
 *   below 7.5601 v |P|. raidWideExpOf(P) is e^P within 8 v + v (|P| + 2^-12) relative, and e^(P + d) =
 *   e^P (1 + d'), |d'| <= 1.0000001 |d| (raid_f64_exp.h): E is |x|^y within (8.0003 + 8.5601 |P|) v relative.
 *   With |P| < 2^e (e the RaidWide exponent of P: |P| in [2^(e-1), 2^e)):
 *     e <= -1: below 12.29 v < 2^-123.38, errbits 123;
 *     e = 0:   below 16.57 v < 2^-122.95, errbits 122;
 *     1 <= e <= 10: below (8.0003 + 8.5601 2^e) v < 2^(e + 4) v (as 8.0003 < 7.4399 2^e), errbits 123 - e
 *     (113 for the largest finite results, |P| < 710, and the subnormal ones, |P| < 745);
 *     e >= 11: |P| >= 1024 (1 - 2^-113), so the result is +inf or +0 exactly as rounded (no rounding test).
 *   So pow is within 1 ulp of the exact value for every input (the rounded E errs by half an ulp and by
 *   2^-113 relative); it is correctly rounded wherever the exact value lies farther from a rounding boundary
 *   (a midpoint of two binary64 values) than 2^-errbits relative. No exhaustive search of pow's worst cases
 *   exists (the inputs are pairs); CORE-MATH's list (tests/data/f64_worst/pow.wc: 9,419 finite pairs, the
 *   hardest 2^-122.25 from a midpoint) is decided in full, and random pairs come near a boundary with
 *   probability about 2^-60.
 * Exact midpoints. An exact x^y is never nearer a midpoint than half an ulp, so the rounding test decides
 *   every representable result; where it does not, raidF64PowExact finds whether x^y is dyadic and, when it
 *   is, rounds the exact value once (ties to even). With |x| = m 2^ex (m odd) and y = n 2^t (n odd):
 *     m = 1 (x a power of two): x^y = 2^(ex y), dyadic iff ex y is an integer (pow(2, -1075) = 2^-1075,
 *       the midpoint of 0 and the smallest subnormal: +0);
 *     m >= 3, y < 0: x^y = 1 / (m^|y| ...) is never dyadic (m^|y| odd, irrational for non-integer |y|);
 *     m >= 3, y > 0: dyadic iff m is a perfect 2^k-th power z^(2^k) and 2^k divides ex (k = max(0, -t));
 *       then x^y = z^p 2^(ex y) exactly, p = y 2^k an integer, and a midpoint or a binary64 needs z^p below
 *       2^55: p at most 34 (3^35 > 2^55), k at most 5 (3^64 > 2^53). z^p is computed in a 64-bit integer.
 *       Examples: (2^27 - 1)^2, 3^34, (z^2)^(3/2), 3 2^-215 to the 5th (243 2^-1075, a subnormal midpoint).
 *   An input that is neither stays unsure: raidF64PowChecked reports it (the C test fails on one), and the
 *   value returned is the rounded E, within 1 ulp.
 *
 * Special values (C99 Annex F.9.4.4, glibc and numpy on x86-64), before the wide path:
 *   pow(x, +-0) = 1 for every x, NaN included; pow(+1, y) = 1 for every y, NaN included; otherwise a NaN
 *   operand gives that NaN made quiet (x's when both are NaNs, as glibc's x + y on x86-64);
 *   pow(-1, +-inf) = 1; pow(x, -inf) = +inf for |x| < 1, +0 for |x| > 1; pow(x, +inf) = +0 for |x| < 1,
 *   +inf for |x| > 1; pow(+-0, y) = +-inf for an odd integer y < 0, +inf for other y < 0, +-0 for an odd
 *   integer y > 0, +0 for other y > 0; pow(-inf, y) = -0 (odd integer y < 0), +0 (other y < 0), -inf (odd
 *   integer y > 0), +inf (other y > 0); pow(+inf, y) = +0 for y < 0, +inf for y > 0; pow(x, y) for finite
 *   x < 0 and finite non-integer y: the default NaN 0xFFF8000000000000 (invalid); for finite x < 0 and an
 *   integer y, -|x|^y for odd y, |x|^y for even y. y's integerness and parity come from its bits (every |y|
 *   >= 2^53 is an even integer). Overflow gives +-inf, underflow +-0 or a subnormal rounded once.
 *
 * Sources: C99 Annex F.9.4.4; Muller, J.-M. et al. Handbook of Floating-Point Arithmetic, 2nd ed. (2018),
 *   12 (correct rounding, Ziv's test); Lauter, C., Lefevre, V. An efficient rounding boundary test for
 *   pow(x, y) in double precision (IEEE TC 58(2), 2009) for the exact and midpoint cases; CORE-MATH
 *   (Sibidanov, Zimmermann, Glondu, ARITH 2022) for the worst cases.
 *
 * One source for host C, OpenCL C and CUDA, in the dialect of raid_compat.h; no floating type is used.
 */
#ifndef RAID_F64_POW_H
#define RAID_F64_POW_H

#ifndef RAID_COMPAT_H /* host C */
#include "raid_compat.h"
#endif
#ifndef RAID_F64_EXP_H
#include "raid_f64_exp.h"
#endif
#ifndef RAID_F64_LOG_H
#include "raid_f64_log.h"
#endif

#define RAID_F64_POW_ONE ((RaidU64)0x3FF << 52)

/* The class of a finite non-zero y (its bits): 0 not an integer, 1 an odd integer, 2 an even integer. */
RAID_F64_FN int raidF64PowYClass(RaidU64 y)
{
    const int be = (int)((y >> 52) & 0x7FF);
    if (be >= 1076) /* |y| >= 2^53: a multiple of 2 */
        return 2;
    if (be < 1023) /* 0 < |y| < 1 */
        return 0;
    const int sh = 1075 - be; /* bits of the significand below the units place: 0 .. 52 */
    const RaidU64 s = (y & RAID_F64_FRAC) | ((RaidU64)1 << 52);
    if (s & (((RaidU64)1 << sh) - 1))
        return 0;
    return (s >> sh) & 1 ? 1 : 2;
}

/* The number of trailing zero bits of s != 0. */
RAID_F64_FN int raidF64PowCtz(RaidU64 s) { return 63 - RAID_CLZ64(s & ((RaidU64)0 - s)); }

/* s 2^j rounded to binary64 once (nearest even), with the sign bit sign: s an integer, exact in a RaidWide. */
RAID_F64_FN RaidU64 raidF64PowRoundExact(RaidU64 sign, RaidU64 s, int j)
{
    int sure;
    if (j > 4000) /* far beyond either end: keep RaidWide's exponent small */
        j = 4000;
    if (j < -4000)
        j = -4000;
    return sign | raidWideToF64(raidWideLdexp(raidWideFromI64((RaidI64)s), j), 127, &sure);
}

/* 1 with *r = sign | x^y rounded once when |x|^y (ax: |x|'s bits, finite, not 0 or 1; y finite, not 0) is
 * dyadic with a numerator below 2^55 (the header's "Exact midpoints": every exact midpoint and every
 * representable result is one); 0 when it is not. */
RAID_F64_FN int raidF64PowExact(RaidU64 ax, RaidU64 y, RaidU64 sign, RaidU64 *r)
{
    int bx, by;
    const RaidU64 sx = raidF64Unpack(ax, &bx), sy = raidF64Unpack(y & ~RAID_F64_SIGN, &by);
    const int tx = raidF64PowCtz(sx), ty = raidF64PowCtz(sy);
    RaidU64 m = sx >> tx;       /* |x| = m 2^ex, m odd */
    int ex = bx - 1075 + tx;
    const RaidU64 n = sy >> ty; /* |y| = n 2^t, n odd */
    const int t = by - 1075 + ty;
    const int yneg = (int)(y >> 63);
    if (m == 1) { /* 2^(ex y): dyadic iff ex y is an integer; |ex y| < 2^12 where the rounding test is unsure */
        RaidI64 j;
        if (t >= 0) {
            if (t > 20 || n >= ((RaidU64)1 << 20))
                return 0;
            j = (RaidI64)ex * (RaidI64)n * ((RaidI64)1 << t); /* no shift of a negative value */
        } else {
            if (-t > 11 || (ex & ((1 << -t) - 1)))
                return 0;
            j = (RaidI64)(ex / (1 << -t)) * (RaidI64)n; /* ex divisible by 2^-t: exact */
        }
        if (j > 8192 || j < -8192)
            return 0;
        *r = raidF64PowRoundExact(sign, 1, (int)(yneg ? -j : j));
        return 1;
    }
    if (yneg) /* 1 / (m^|y| 2^(ex |y|)), m odd >= 3: never dyadic */
        return 0;
    RaidU64 p; /* the power of the odd base z */
    if (t >= 0) {
        if (t > 6 || (n << t) > 34)
            return 0;
        p = n << t;
    } else {
        const int k = -t; /* m = z^(2^k), 2^k | ex */
        if (k > 5 || n > 34 || (ex & ((1 << k) - 1)))
            return 0;
        for (int i = 0; i < k; i++) { /* m's square root, k times: exact where m is a perfect square */
            int sure, be;
            const RaidU64 q = raidF64Sqrt(raidWideToF64(raidWideFromI64((RaidI64)m), 127, &sure));
            const RaidU64 s = raidF64Unpack(q, &be); /* sqrt(m) = s 2^(be - 1075), 1 <= sqrt(m) < 2^27 */
            if (be < 1023 || (s & (((RaidU64)1 << (1075 - be)) - 1)))
                return 0;
            const RaidU64 z = s >> (1075 - be);
            if (z * z != m)
                return 0;
            m = z;
        }
        ex /= 1 << k; /* exact: 2^k divides ex */
        p = n;
    }
    RaidU64 acc = 1; /* m^p, stopped at 2^55 */
    for (RaidU64 i = 0; i < p; i++) {
        RaidU64 hi, lo;
        raidF64Mul128(acc, m, &hi, &lo);
        if (hi || (lo >> 55))
            return 0;
        acc = lo;
    }
    *r = raidF64PowRoundExact(sign, acc, ex * (int)p);
    return 1;
}

/* The special values of pow (the header's list): 1 with *r set, else 0 with *sign the result's sign bit
 * (x < 0 and y an odd integer) for a finite x != 0, 1 (its magnitude passes on) and finite y != 0. */
RAID_F64_FN int raidF64PowSpecial(RaidU64 x, RaidU64 y, RaidU64 *r, RaidU64 *sign)
{
    const RaidU64 ax = x & ~RAID_F64_SIGN, ay = y & ~RAID_F64_SIGN;
    *sign = 0;
    if (!ay || x == RAID_F64_POW_ONE) {
        *r = RAID_F64_POW_ONE;
        return 1;
    }
    if (ax > RAID_F64_INF || ay > RAID_F64_INF) {
        *r = raidF64PropagateNan(x, y);
        return 1;
    }
    if (ay == RAID_F64_INF) { /* by |x| against 1 */
        *r = ax == RAID_F64_POW_ONE ? RAID_F64_POW_ONE : (ax < RAID_F64_POW_ONE) == !(y >> 63) ? 0 : RAID_F64_INF;
        return 1;
    }
    const int cls = raidF64PowYClass(y);
    const RaidU64 s = (x >> 63) && cls == 1 ? RAID_F64_SIGN : 0;
    if (!ax || ax == RAID_F64_INF) { /* +-0, +-inf: 0 or inf by y's sign, the sign by its parity */
        *r = s | ((!ax) == (int)(y >> 63) ? RAID_F64_INF : 0);
        return 1;
    }
    if ((x >> 63) && !cls) {
        *r = RAID_F64_DEFAULT_NAN;
        return 1;
    }
    *sign = s;
    return 0;
}

/* pow(x, y) and *sure: 1 when the special values or the rounding test decide, 2 when raidF64PowExact rounds an
 * exact dyadic value, 0 when neither (then the result is within 1 ulp; the header). */
RAID_F64_FN RaidU64 raidF64PowChecked(RaidU64 x, RaidU64 y, int *sure)
{
    RaidU64 r, sign;
    *sure = 1;
    if (raidF64PowSpecial(x, y, &r, &sign))
        return r;
    const RaidU64 ax = x & ~RAID_F64_SIGN;
    const RaidWide p = raidWideMul(raidWideFromF64(y), raidWideLogOf(ax));
    if (!p.hi) /* |x| = 1: x = -1 with an integer y */
        return sign | RAID_F64_POW_ONE;
    if (p.e >= 11) /* |P| >= 1024 (1 - 2^-113): overflow or underflow, whatever the rounding */
        return sign | (p.neg ? 0 : RAID_F64_INF);
    const int errbits = p.e <= -1 ? 123 : p.e == 0 ? 122 : 123 - p.e;
    r = sign | raidWideToF64(raidWideExpOf(p), errbits, sure);
    if (!*sure && raidF64PowExact(ax, y, sign, &r))
        *sure = 2;
    return r;
}

/* x^y (C's pow, numpy.power): within 1 ulp, correctly rounded wherever the rounding test decides (header). */
RAID_F64_FN RaidU64 raidF64Pow(RaidU64 x, RaidU64 y)
{
    int sure;
    return raidF64PowChecked(x, y, &sure);
}

#endif /* RAID_F64_POW_H */
