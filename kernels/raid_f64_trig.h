/*
 * raid_f64_trig.h -- binary64 sin, cos and tan on integer words (bits in, bits out), within 1 ulp for every
 * binary64 input and correctly rounded (nearest even) on every input tested (docs/f64.md says which).
 *
 * Method (Muller, Handbook of Floating-Point Arithmetic, 2nd ed., 2018, ch. 11; Ng, "Argument reduction for
 * huge arguments: good to the last bit", 1992; Payne and Hanek, "Radian reduction for trigonometric
 * functions", SIGNUM Newsletter 18, 1983):
 *   1. |x| = (q + f) pi/2 with q an integer and |f| <= 1/2, exactly as far as it matters, for every finite
 *      x: |x| < 1/2 is its own reduced argument (q = 0, f pi/2 = |x| exactly); otherwise Payne-Hanek: the
 *      53-bit significand times the 320 bits of 2/pi (raid_f64_trig_tables.h) that the exponent selects, an
 *      integer product whose bits above the binary point give q mod 4 and whose 254 bits below it give f.
 *   2. r = f pi/2 in RaidWide (raid_wide.h), |r| <= pi/4, and sin r = r (s_0 + s_1 z + ... + s_N z^N),
 *      cos r = c_0 + ... + c_N z^N with z = r^2 (Taylor, N = RAID_F64_TRIG_DEGREE = 16), by Horner's rule
 *      in RaidWide. Direct polynomials rather than a table of sin and cos at j/2^L: sin or cos alone costs
 *      N + 1 Horner steps either way (the table's addition formula needs both sin t and cos t of the
 *      remainder, 2 x 7 steps, and four products), the coefficients are the same for every element (no
 *      data-dependent table load, which serialises on a GPU's constant memory), and the error analysis is
 *      simpler. The quadrant picks the half of the coefficient table (sin's or cos's) and the sign, not the
 *      code path: one loop of the same length for either.
 *   3. tan r = sin r / cos r (q even) or -cos r / sin r (q odd) with raidWideDiv.
 *   4. raidWideToF64 rounds to nearest even with CORE-MATH's rounding test. For sin and tan of |x| < 1/2
 *      the result is x + c, c = x z Qs(z) (sin) or x z (Qs - Qc) / (1 + z Qc) (tan: (sin x - x cos x) /
 *      cos x), and raidF64TrigNearX rounds it from c / ulp(x): a RaidWide of the sum keeps only 2^-127 of
 *      it, and tan(0x1.dffffffffff1fp-22) (CORE-MATH's tan.wc) lies 2^-132.4 from a midpoint.
 *
 * Error bound of the RaidWide result (units of 2^-128 relative; raid_wide.h's bounds per operation):
 *   f: the bits of 2/pi past the 320 read contribute below 2^53 2^(e - 64 w - 320) <= 2^-202 to |x| 2/pi
 *      (e - 64 w <= 65, raidF64TrigReduce), the product's bits below 2^-254 are dropped, and f is truncated
 *      to 128 bits (2 units). The closest approach of a binary64 to a multiple of pi/2 is |r| ~ 2^-60.9, at
 *      x = 6381956970095103 2^797 (Muller, Handbook, table 11.1; tests/test_f64_trig.c checks it), so |f| >
 *      2^-62 and 2^-202 / |f| < 2^-140: f within 2 + 2^-12 units.
 *   r = f pi/2: pi/2 rounded to 128 bits (1 unit), the product (4 units): r within 7 units (0 for |x| < 1/2).
 *   z = r^2: 2 x 7 + 4 = 18 units. z P'(z) / P(z) <= 0.12 for sin's P, 0.39 for cos's on z <= (pi/4)^2.
 *   Horner: each step is a product (4 units), a sum of opposite signs (below one ulp of 2^-128 of the larger
 *      operand: at most 2.2 units of sin's P >= 0.897, 2.8 units of cos's P >= 0.707) and a coefficient's
 *      rounding (1 unit); the error of the step k places before the last is weighted by |z^k (the rest)| / |P|
 *      <= 0.11^k (sin), 0.44 and then 0.05^k (cos): below 8.1 units (sin's P) and 11.3 units (cos's).
 *      The Taylor remainder is below 2^-130 (0.25 unit; scripts/gen_f64_trig.py).
 *   sin r = r P(z): 7 + 0.12 x 18 + 8.1 + 0.25 + 4 (the product by r) < 22 units = 2^-123.5.
 *   cos r = P(z): 0.39 x 18 + 11.3 + 0.25 < 19 units = 2^-123.7.
 *   tan: 22 + 19 + raidWideDiv's 32 < 73 units = 2^-121.8.
 *   c for |x| < 1/2 (r = |x| exact, z 4 units): sin: x z (4) times Qs (8.1 + 0.12 x 4) (4) < 21 units;
 *      tan: Qs - Qc loses at most (1/6 + 1/2) / (1/3) = 2 times their bounds (8.1, 11.3) and 2.2 units for the
 *      subtraction, then x z (4), the product (4), 1 + z Qc (4) and raidWideDiv (32): < 90 units = 2^-121.5.
 *      RAID_F64_TRIG_ERRBITS_SIN_C (120) and RAID_F64_TRIG_ERRBITS_TAN_C (119) are given to the rounding:
 *      since |c| < 2^51 ulp(x), c / ulp(x) is known within 2^-68 ulp (2^-120 relative to the result).
 * RAID_F64_TRIG_ERRBITS_SINCOS (122, 64 units) and RAID_F64_TRIG_ERRBITS_TAN (121, 128 units) are given to
 * the rounding test: about three and two times the bounds. With these, every worst case of CORE-MATH's
 * sin.wc, cos.wc and tan.wc (Lefevre and Muller's searches) is decided (tests/python/test_f64_trig.py).
 * Where the test is unsure, the rounded value is returned all the same: within 1 ulp whatever happens,
 * since the result is within 2^-121 of the true value, and correctly rounded unless the true value lies
 * within 2^-121 of a midpoint.
 *
 * Special values (C99 Annex F, glibc and numpy on x86-64): sin(+-0) = +-0, tan(+-0) = +-0, cos(+-0) = 1;
 * sin, cos, tan of +-inf: the default NaN (invalid); a NaN: that NaN made quiet. No exact case other than
 * x = 0 exists (sin, cos, tan of a non-zero rational are irrational: Lindemann), nor a midpoint.
 *
 * One source for host C, OpenCL C and CUDA, in the dialect of raid_compat.h; no floating type is used.
 */
#ifndef RAID_F64_TRIG_H
#define RAID_F64_TRIG_H

#ifndef RAID_COMPAT_H /* host C */
#include "raid_compat.h"
#endif
#ifndef RAID_WIDE_H
#include "raid_wide.h"
#endif
#ifndef RAID_F64_TRIG_TABLES_H
#include "raid_f64_trig_tables.h"
#endif

#define RAID_F64_TRIG_ERRBITS_SINCOS 122
#define RAID_F64_TRIG_ERRBITS_TAN 121
#define RAID_F64_TRIG_ERRBITS_SIN_C 120 /* sin x - x for |x| < 1/2 (raidF64TrigEval) */
#define RAID_F64_TRIG_ERRBITS_TAN_C 119 /* tan x - x */

/* |x| = (q + f) pi/2 for a finite non-zero x, *quadrant = q mod 4, the result r = f pi/2 with |f| <= 1/2 (so
 * |r| <= pi/4), within 7 units of 2^-128 relative (the header's bound), exact for |x| < 1/2 (q = 0).
 *
 * Payne-Hanek: |x| = m 2^e (m < 2^53, e = be - 1075 >= -53 here). With w = floor((e - 2) / 64) + 1 and
 * sh = e - 2 - 64 (w - 1) in [0, 63], word w of raidF64TrigTwoOverPi (after its word of zeros) holds 2/pi's
 * bits 64 (w - 1) + 1 .. 64 w; each bit i before them adds m 2^(e - i), a multiple of 4 (e - i >= sh + 2),
 * which leaves q mod 4 alone. The five words w .. w + 4 as one 320-bit integer V give |x| 2/pi = m V
 * 2^(sh + 2 - 320) mod 4 (+ below 2^-202, the bits left out), so P = (m V) << sh has q mod 4 in its bits
 * 318 and 319 and f in bits 317 and below: the 254 bits from bit 64 up are kept. */
RAID_FN RaidWide raidF64TrigReduce(RaidU64 x, int *quadrant)
{
    const RaidU64 ax = x & ~RAID_F64_SIGN;
    int be;
    const RaidU64 m = raidF64Unpack(ax, &be); /* |x| = m 2^(be - 1075) */
    if (be < 1022) {                          /* |x| < 1/2 */
        *quadrant = 0;
        return raidWideFromF64(ax);
    }
    const int e = be - 1075;
    const int w = (e + 62) >> 6; /* floor((e - 2) / 64) + 1, with e + 62 > 0 */
    const int sh = e - 2 - 64 * (w - 1);
    /* p = m V, six words, least significant first (m < 2^53: no carry out of the top word) */
    RaidU64 p[6];
    RaidU64 acc = 0;
    for (int i = 0; i < 5; i++) {
        RaidU64 h, l;
        raidF64Mul128(m, raidF64TrigTwoOverPi[w + 4 - i], &h, &l);
        l += acc;
        p[i] = l;
        acc = h + (l < acc);
    }
    p[5] = acc;
    /* the words 1 .. 4 of p << sh */
    RaidU64 a[4];
    for (int i = 0; i < 4; i++)
        a[i] = sh ? (p[i + 1] << sh) | (p[i] >> (64 - sh)) : p[i + 1];
    int q = (int)(a[3] >> 62);
    a[3] &= ((RaidU64)1 << 62) - 1; /* f = a 2^-254, a < 2^254 */
    int neg = 0;
    if (a[3] >> 61) { /* f >= 1/2: q + 1, and f - 1 = -(2^254 - a) 2^-254 */
        q++;
        neg = 1;
        RaidU64 c = 1;
        for (int i = 0; i < 4; i++) {
            a[i] = ~a[i] + c;
            c = c && !a[i];
        }
        a[3] &= ((RaidU64)1 << 62) - 1;
    }
    *quadrant = q & 3;
    /* normalise: whole words first (f >= 2^-62 by the closest approach: at most one, but three are safe) */
    int ez = 0;
    for (int k = 0; k < 3; k++) {
        if (!a[3]) {
            a[3] = a[2];
            a[2] = a[1];
            a[1] = a[0];
            a[0] = 0;
            ez += 64;
        }
    }
    const int s = RAID_CLZ64(a[3] | 1);
    RaidU64 hi = a[3], lo = a[2];
    if (s) {
        hi = (hi << s) | (lo >> (64 - s));
        lo = (lo << s) | (a[1] >> (64 - s));
    }
    /* a 2^-254 = (hi 2^64 + lo + below) 2^(128 - 254 - s - ez) = (hi 2^64 + lo) 2^(E - 128), E = 2 - s - ez */
    RaidWide f;
    f.hi = hi;
    f.lo = lo;
    f.e = 2 - s - ez;
    f.neg = neg;
    if (!hi) /* unreachable (f is never 0 for x != 0), kept so that no path reads an unnormalised value */
        return raidWideZero();
    return raidWideMul(f, raidWideWords(raidF64TrigPiOver2[0], raidF64TrigPiOver2[1], raidF64TrigPiOver2[2]));
}

/* Q(z) = p_1 + p_2 z + ... + p_N z^(N-1), with p the coefficients of sin r / r (odd = 0) or cos r (odd = 1),
 * so that sin r = r (1 + z Q) and cos r = 1 + z Q (Horner's rule; the header's bounds). */
RAID_FN RaidWide raidF64TrigTail(RaidWide z, int odd)
{
    int k = 3 * (RAID_F64_TRIG_DEGREE + 1) * odd + 3 * RAID_F64_TRIG_DEGREE;
    RaidWide s = raidWideWords(raidF64TrigCoef[k], raidF64TrigCoef[k + 1], raidF64TrigCoef[k + 2]);
    for (int n = RAID_F64_TRIG_DEGREE - 1; n >= 1; n--) {
        k -= 3;
        s = raidWideAdd(raidWideMul(s, z), raidWideWords(raidF64TrigCoef[k], raidF64TrigCoef[k + 1],
                                                          raidF64TrigCoef[k + 2]));
    }
    return s;
}

/* sin r (odd = 0) or cos r (odd = 1) for |r| <= pi/4, z = r^2. */
RAID_FN RaidWide raidF64TrigPoly(RaidWide r, RaidWide z, int odd)
{
    const RaidWide p = raidWideAdd(raidWideFromI64(1), raidWideMul(z, raidF64TrigTail(z, odd)));
    return odd ? p : raidWideMul(r, p);
}

/* |x| + c rounded to nearest, for a binary64 0 < |x| < 1/2 (its bits ax) and c (|c| < |x| / 4, relative error
 * below 2^-errbits, 66 <= errbits <= 127), when the sum lies in |x|'s binade: ax + n with n = c / ulp(x)
 * rounded to an integer, *sure = 1 when c (1 -+ 2^-errbits) round to the same n; otherwise (|x| subnormal, or
 * the sum leaves the binade) |x| + c in RaidWide, rounded by raidWideToF64 with fallback_errbits.
 *
 * Why: sin x = x + c and tan x = x + c for small x, and a RaidWide of the sum keeps only 128 bits of it
 * (2^-127 relative): tan(0x1.dffffffffff1fp-22) lies 2^-132.4 (relative) from a midpoint (CORE-MATH's
 * tan.wc), closer than that. c / ulp(x) has all its 128 bits below 2^51, so the fraction that decides the
 * rounding is known to 2^(51 - errbits) ulp (2^-80 ulp suffices for that input).
 * Fixed point: c / ulp(x) = (hi 2^64 + lo) 2^-sh, sh = be - c.e - 947 >= 77 (|c| / ulp(x) < 2^51); the
 * significand is shifted right 2 places first (the sums below then stay under 2^128), that truncation and
 * c's error together below the integer E added and subtracted. */
RAID_FN RaidU64 raidF64TrigNearX(RaidU64 ax, RaidWide c, int errbits, int fallback_errbits, int *sure)
{
    int be;
    const RaidU64 m = raidF64Unpack(ax, &be);
    const int sh = be - c.e - 947 - 2;
    if (be >= 1 && c.hi && sh >= 75) { /* sh >= 77 - 2 when |c| < 2^51 ulp(x), always here */
        RaidU64 n_up = 0, n_down = 0; /* n from c (1 + 2^-errbits) and from c (1 - 2^-errbits) */
        if (sh < 129) { /* else c / ulp(x) < 1/8: n = 0 */
            const RaidU64 H = c.hi >> 2, L = (c.lo >> 2) | (c.hi << 62);
            const RaidU64 E = (c.hi >> (errbits - 62)) + 2;
            const RaidU64 halfH = (RaidU64)1 << (sh - 65); /* 2^(sh - 1) = halfH 2^64, sh - 65 in [10, 63] */
            const RaidU64 uL = L + E;
            const RaidU64 uH = H + halfH + (uL < E), dH = H + halfH - (L < E); /* below 2^64: H < 2^62 */
            const int ws = sh - 64; /* in [11, 64]: the bits of n are those of the high word */
            n_up = ws < 64 ? uH >> ws : 0;
            n_down = ws < 64 ? dH >> ws : 0;
        }
        const RaidU64 N = c.neg ? m - n_down : m + n_down;
        if (n_up == n_down && N > ((RaidU64)1 << 52) && N < ((RaidU64)1 << 53)) {
            *sure = 1;
            return c.neg ? ax - n_down : ax + n_down;
        }
    }
    return raidWideToF64(raidWideAdd(raidWideFromF64(ax), c), fallback_errbits, sure);
}

/* sin (fn 0), cos (fn 1) or tan (fn 2) of x, rounded to nearest even; *sure is the rounding test's verdict
 * (1 for the special values): 0 only where the result might not be the correctly rounded one (it is within
 * 1 ulp all the same). */
RAID_FN RaidU64 raidF64TrigEval(RaidU64 x, int fn, int *sure)
{
    *sure = 1;
    const RaidU64 ax = x & ~RAID_F64_SIGN;
    if (ax >= RAID_F64_INF) /* NaN: made quiet; +-inf: invalid */
        return ax > RAID_F64_INF ? x | RAID_F64_QUIET : RAID_F64_DEFAULT_NAN;
    if (!ax)
        return fn == 1 ? (RaidU64)0x3FF0000000000000 : x;
    int q;
    const RaidWide r = raidF64TrigReduce(x, &q);
    const RaidWide z = raidWideMul(r, r);
    const RaidU64 xsign = x & RAID_F64_SIGN;
    if (ax < (RaidU64)0x3FE0000000000000 && fn != 1) {
        /* |x| < 1/2, r = |x|: sin |x| = |x| + |x| z Qs, tan |x| = |x| + |x| z (Qs - Qc) / (1 + z Qc) (sin r - r cos r
         * over cos r), rounded around |x| (raidF64TrigNearX) */
        const RaidWide xz = raidWideMul(r, z), qs = raidF64TrigTail(z, 0);
        if (fn == 0)
            return xsign | raidF64TrigNearX(ax, raidWideMul(xz, qs), RAID_F64_TRIG_ERRBITS_SIN_C,
                                            RAID_F64_TRIG_ERRBITS_SINCOS, sure);
        const RaidWide qc = raidF64TrigTail(z, 1);
        const RaidWide cr = raidWideAdd(raidWideFromI64(1), raidWideMul(z, qc));
        return xsign | raidF64TrigNearX(ax, raidWideDiv(raidWideMul(xz, raidWideSub(qs, qc)), cr),
                                        RAID_F64_TRIG_ERRBITS_TAN_C, RAID_F64_TRIG_ERRBITS_TAN, sure);
    }
    const int xneg = (int)(x >> 63);
    RaidWide w;
    if (fn == 2) {
        const RaidWide sr = raidF64TrigPoly(r, z, 0), cr = raidF64TrigPoly(r, z, 1);
        w = (q & 1) ? raidWideNeg(raidWideDiv(cr, sr)) : raidWideDiv(sr, cr);
        w.neg ^= xneg;
        return raidWideToF64(w, RAID_F64_TRIG_ERRBITS_TAN, sure);
    }
    /* sin x = sin r, cos r, -sin r, -cos r for q = 0 .. 3 (|x|; sin is odd); cos x = cos r, -sin r, -cos r,
     * sin r */
    w = raidF64TrigPoly(r, z, (q + fn) & 1);
    w.neg ^= fn ? ((q + 1) >> 1) & 1 : ((q >> 1) & 1) ^ xneg;
    return raidWideToF64(w, RAID_F64_TRIG_ERRBITS_SINCOS, sure);
}

/* sin x (numpy.sin, C's sin) for the bits of a binary64 x: within 1 ulp (see the header). */
RAID_F64_FN RaidU64 raidF64Sin(RaidU64 x)
{
    int sure;
    return raidF64TrigEval(x, 0, &sure);
}

/* cos x (numpy.cos): within 1 ulp (see the header). */
RAID_F64_FN RaidU64 raidF64Cos(RaidU64 x)
{
    int sure;
    return raidF64TrigEval(x, 1, &sure);
}

/* tan x (numpy.tan): within 1 ulp (see the header). */
RAID_F64_FN RaidU64 raidF64Tan(RaidU64 x)
{
    int sure;
    return raidF64TrigEval(x, 2, &sure);
}

#endif /* RAID_F64_TRIG_H */
