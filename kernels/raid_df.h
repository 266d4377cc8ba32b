/*
 * raid_df.h -- double-float ("df") arithmetic: an unevaluated sum hi + lo of two binary32 numbers with
 * |lo| <= ulp(hi)/2, giving about 48 significant bits out of float32 hardware.
 *
 * One source for the kernels (OpenCL C and CUDA) and host C, written in the dialect of raid_compat.h: the
 * device layer prepends it to every kernel program (kernels/prelude.txt; kernels may not include files),
 * and host code includes it directly (it then includes raid_compat.h's host branch). It never uses a 64-bit
 * floating type. It is correct only under IEEE 754 binary32 round-to-nearest-even arithmetic with
 * no reassociation and no contraction: kernels are built without -cl-fast-relaxed-math and
 * -cl-mad-enable and with FP_CONTRACT OFF (CUDA: --fmad=false); host code is compiled with
 * -ffp-contract=off, no -ffast-math.
 *
 * u = 2^-24 is the unit roundoff of binary32. Underflow is excluded from every bound below: callers
 * scale their data by powers of two so that terms stay in the normal range (docs/precision.md).
 *
 * Sources:
 *   Dekker, T. J. (1971). A floating-point technique for extending the available precision.
 *     Numerische Mathematik 18, 224-242.                                 (Fast2Sum, double-length ops)
 *   Knuth, D. E. (1998). The Art of Computer Programming, vol. 2, 3rd ed., sec. 4.2.2 (TwoSum, after
 *     Moller 1965).
 *   Higham, N. J. (1993). The accuracy of floating point summation. SIAM J. Sci. Comput. 14, 783-799.
 *   Joldes, M., Muller, J.-M., Popescu, V. (2017). Tight and rigorous error bounds for basic building
 *     blocks of double-word arithmetic. ACM Trans. Math. Softw. 44(2), 15:1-15:27.  (bounds quoted below)
 */
#ifndef RAID_DF_H
#define RAID_DF_H

#ifndef RAID_COMPAT_H /* host C: the dialect's host branch (kernels get it prepended) */
#include "raid_compat.h"
#endif
#define RAID_DF_FN RAID_FN

typedef struct RaidDf {
    float hi;
    float lo;
} RaidDf;

RAID_DF_FN RaidDf raidDfMake(float hi, float lo)
{
    RaidDf r;
    r.hi = hi;
    r.lo = lo;
    return r;
}

/* TwoSum (Moller 1965, Knuth): s = fl(a+b) and e with s + e = a + b exactly, for any a, b
 * (barring overflow). 6 operations. */
RAID_DF_FN RaidDf raidTwoSum(float a, float b)
{
    float s = a + b;
    float bb = s - a;
    float e = (a - (s - bb)) + (b - bb);
    return raidDfMake(s, e);
}

/* Fast2Sum (Dekker 1971): exact s + e = a + b provided exponent(a) >= exponent(b) (|a| >= |b|
 * suffices). 3 operations. */
RAID_DF_FN RaidDf raidFastTwoSum(float a, float b)
{
    float s = a + b;
    float e = b - (s - a);
    return raidDfMake(s, e);
}

/* TwoProd with fma: p = fl(a*b) and e = a*b - p exactly (fma computes it with one rounding of an exact
 * value that is representable), provided no underflow. 2 operations. */
RAID_DF_FN RaidDf raidTwoProd(float a, float b)
{
    float p = a * b;
    float e = RAID_FMAF(a, b, -p);
    return raidDfMake(p, e);
}

/* Renormalise (hi, lo) so that |lo| <= ulp(hi)/2; requires |hi| >= |lo| or hi == 0 (Fast2Sum). */
RAID_DF_FN RaidDf raidDfRenorm(RaidDf x)
{
    return raidFastTwoSum(x.hi, x.lo);
}

/* Double-float + double-float, "AccurateDWPlusDW" (Joldes, Muller, Popescu 2017, Alg. 6):
 * relative error <= 3u^2 / (1 - 4u) < 3.0000002 u^2 for any signs. 20 operations. */
RAID_DF_FN RaidDf raidDfAdd(RaidDf x, RaidDf y)
{
    RaidDf s = raidTwoSum(x.hi, y.hi);
    RaidDf t = raidTwoSum(x.lo, y.lo);
    s.lo = s.lo + t.hi;
    s = raidFastTwoSum(s.hi, s.lo);
    s.lo = s.lo + t.lo;
    return raidFastTwoSum(s.hi, s.lo);
}

/* Double-float + double-float of the same sign, "SloppyDWPlusDW" (JMP 2017, Alg. 5): TwoSum of the high
 * parts, the low parts added to its error, Fast2Sum. When x.hi and y.hi have the same sign the two
 * roundings in the low part are each below u^2 of the result: relative error <= 3u^2 + O(u^3) (for
 * opposite signs it is unbounded: use raidDfAdd). 11 operations. */
RAID_DF_FN RaidDf raidDfAddSameSign(RaidDf x, RaidDf y)
{
    RaidDf s = raidTwoSum(x.hi, y.hi);
    float v = s.lo + (x.lo + y.lo);
    return raidFastTwoSum(s.hi, v);
}

/* Double-float + float, "DWPlusFP" (JMP 2017, Alg. 4): relative error <= 2u^2. 10 operations. */
RAID_DF_FN RaidDf raidDfAddF(RaidDf x, float y)
{
    RaidDf s = raidTwoSum(x.hi, y);
    float v = x.lo + s.lo;
    return raidFastTwoSum(s.hi, v);
}

/* Double-float * float, "DWTimesFP3" (JMP 2017, Alg. 9): relative error <= 2u^2. */
RAID_DF_FN RaidDf raidDfMulF(RaidDf x, float y)
{
    RaidDf c = raidTwoProd(x.hi, y);
    float l = RAID_FMAF(x.lo, y, c.lo);
    return raidFastTwoSum(c.hi, l);
}

/* Double-float * double-float, "DWTimesDW3" (JMP 2017, Alg. 12): relative error <= 5u^2. */
RAID_DF_FN RaidDf raidDfMul(RaidDf x, RaidDf y)
{
    RaidDf c = raidTwoProd(x.hi, y.hi);
    float tl0 = x.lo * y.lo;
    float tl1 = RAID_FMAF(x.hi, y.lo, tl0);
    float cl2 = RAID_FMAF(x.lo, y.hi, tl1);
    float cl3 = c.lo + cl2;
    return raidFastTwoSum(c.hi, cl3);
}

/* Accumulation of a non-negative term t = (th, tl) into a non-negative accumulator (h, l): TwoSum of the
 * high parts, its exact error and tl added to l, then Fast2Sum to renormalise (|l| <= ulp(h)/2 after
 * every step). Each step rounds twice in l, whose operands are at most about u times the running sum S,
 * so it loses at most about 3u^2 S: after n steps from zero the relative error of the sum of n
 * non-negative df terms is at most 3n u^2 (an adversarial search finds n/2 u^2; tests/test_df.c checks
 * (n+2) u^2). Without the renormalisation l grows to about k u h after k steps and the loss grows like
 * n^2 u^2 (Ogita, Rump and Oishi 2005, sec. 4): the earlier lazy form reached 1333 u^2 at n = 64.
 * Used for the at most 64 terms of one work-item before a tree reduction with raidDfAdd. 11 operations. */
RAID_DF_FN RaidDf raidDfAcc(RaidDf acc, float th, float tl)
{
    RaidDf s = raidTwoSum(acc.hi, th);
    return raidFastTwoSum(s.hi, acc.lo + (s.lo + tl));
}

/* 1 / b for a normal double-float b != 0 (|b| in [2^-100, 2^100]): one Newton step y + y (1 - b y) from
 * the binary32 quotient y = 1/b.hi (OpenCL allows 2.5 ulp): b y is formed to 2u^2 by DWTimesFP3,
 * 1 - (b y).hi is exact (Sterbenz), so the error is (2.5u)^2 + u 2.5u + 2u^2 + u^2 < 11u^2 relative
 * (tests/test_df.c measures it). 9 operations and a division. */
RAID_DF_FN RaidDf raidDfRecip(RaidDf b)
{
    const float y = 1.0f / b.hi;
    const RaidDf p = raidDfMulF(b, y);
    const float e = (1.0f - p.hi) - p.lo;
    return raidFastTwoSum(y, y * e);
}

/* exp(x) for a double-float x with |x.hi| <= 60 (the result and its low part stay normal): x = n log 2 + r
 * (Cody and Waite 1980: log 2 = L1 + L2 + L3, L1 of 15 bits so that n L1 is exact for |n| < 512, n L2 by
 * TwoProd, the rest within 2^-69), |r| <= 0.35; s = r / 8 (exact), |s| <= 0.0434;
 * exp(s) = 1 + s (1 + s (1/2 + s (1/6 + s (1/24 + s f)))) by Horner in double-float (1/6 and 1/24 as
 * double-float constants), f = 1/120 + s/720 + s^2/5040 + s^3/40320 in binary32 (|s^5 f| < 1.3e-9, so
 * its rounding is below 2^-57 relative; the series' truncation below 2^-59); the Horner steps round to
 * about 10u^2; then squared three times, which multiplies that by 8 and adds (1 + 2 + 4) 5u^2; times 2^n
 * (exact). Relative error below 8 (10u^2 + 2^-57 + 2^-59) + 35u^2 < 128u^2 (4.6e-13), measured below 40u^2
 * (tests/test_df.c). About 150 operations. */
RAID_DF_FN RaidDf raidDfExp(RaidDf x)
{
    const float L1 = 0x1.62e4p-1f, L2 = 0x1.7f7d1cp-20f, L3 = 0x1.ef357ap-45f;
    const float n = RAID_RINTF(x.hi * 1.44269504f);
    RaidDf r = raidDfAddF(x, -n * L1);
    r = raidDfAdd(r, raidTwoProd(-n, L2));
    r = raidDfAddF(r, -n * L3);
    const RaidDf s = raidDfMake(r.hi * 0.125f, r.lo * 0.125f);
    const float sh = s.hi;
    const float f = 1.0f / 120.0f + sh * (1.0f / 720.0f + sh * (1.0f / 5040.0f + sh * (1.0f / 40320.0f)));
    RaidDf y = raidDfAddF(raidDfMake(0x1.555556p-5f, -0x1.555556p-30f), sh * f); /* 1/24 + s f */
    y = raidDfAdd(raidDfMake(0x1.555556p-3f, -0x1.555556p-28f), raidDfMul(s, y)); /* 1/6 + s y */
    y = raidDfAddF(raidDfMul(s, y), 0.5f);
    y = raidDfAddF(raidDfMul(s, y), 1.0f);
    y = raidDfAddF(raidDfMul(s, y), 1.0f);
    for (int i = 0; i < 3; i++)
        y = raidDfMul(y, y);
    const int ni = (int)n;
    return raidDfMake(RAID_LDEXPF(y.hi, ni), RAID_LDEXPF(y.lo, ni));
}

/* Order of non-negative normalised double-floats: hi first, then lo. */
RAID_DF_FN int raidDfLt(RaidDf a, RaidDf b)
{
    return (a.hi < b.hi) || (a.hi == b.hi && a.lo < b.lo);
}

RAID_DF_FN RaidDf raidDfMin(RaidDf a, RaidDf b) { return raidDfLt(b, a) ? b : a; }
RAID_DF_FN RaidDf raidDfMax(RaidDf a, RaidDf b) { return raidDfLt(a, b) ? b : a; }

/* Median of three without arithmetic (order only): max(min(a,b), min(max(a,b), c)). */
RAID_DF_FN RaidDf raidDfMed3(RaidDf a, RaidDf b, RaidDf c)
{
    return raidDfMax(raidDfMin(a, b), raidDfMin(raidDfMax(a, b), c));
}

/* The triple-float accumulator (h, l, c) of the direct window sums (kernels/ta_ma.cl) and the sweep's
 * per-chunk sums (kernels/ta_sweep.cl): terms are split into floats whose sum is the term EXACTLY (TwoProd
 * with fma); the high part goes into h by TwoSum, its error and the low parts into l by TwoSum, l's errors
 * into c; after every element (h, l) and (l, c) are renormalised by TwoSum (exact). So the only roundings
 * are those of c (|c| <= a few u^2 S_abs, S_abs the sum of the terms' magnitudes): the sum h + l + c is
 * within about 20 k u^3 S_abs of the exact sum of the k float terms (k = 2 to 5 per element), far below
 * u^2. raidTaccDf rounds it to a double-float once (below u^3 of the sum). */
typedef struct RaidTacc {
    float h, l, c;
} RaidTacc;

RAID_DF_FN RaidTacc raidTaccZero(void)
{
    RaidTacc a;
    a.h = 0.0f;
    a.l = 0.0f;
    a.c = 0.0f;
    return a;
}

/* l += t exactly, the rounding error of l into c. */
RAID_DF_FN RaidTacc raidTaccLow(RaidTacc a, float t)
{
    RaidDf s = raidTwoSum(a.l, t);
    a.l = s.hi;
    a.c = a.c + s.lo;
    return a;
}

/* h += t exactly, its rounding error into the low parts. */
RAID_DF_FN RaidTacc raidTaccHigh(RaidTacc a, float t)
{
    RaidDf s = raidTwoSum(a.h, t);
    a.h = s.hi;
    return raidTaccLow(a, s.lo);
}

/* Exact renormalisation: |l| <= ulp(h)/2, then c folded into l (its error the new c). */
RAID_DF_FN RaidTacc raidTaccRenorm(RaidTacc a)
{
    RaidDf s = raidTwoSum(a.h, a.l);
    a.h = s.hi;
    a.l = s.lo;
    s = raidTwoSum(a.l, a.c);
    a.l = s.hi;
    a.c = s.lo;
    return a;
}

/* Add the square of the double-float d = (hi, lo): hi^2 (TwoProd), 2 hi lo (TwoProd, 2 hi exact) and
 * lo^2 (rounded: below u^4 d^2). */
RAID_DF_FN RaidTacc raidTaccAddSq(RaidTacc a, float hi, float lo)
{
    RaidDf p = raidTwoProd(hi, hi);
    RaidDf q = raidTwoProd(2.0f * hi, lo);
    a = raidTaccHigh(a, p.hi);
    a = raidTaccLow(a, p.lo);
    a = raidTaccLow(a, q.hi);
    a = raidTaccLow(a, q.lo);
    a = raidTaccLow(a, lo * lo);
    return raidTaccRenorm(a);
}

/* w (hi + lo) for an integer weight w <= 2^24 (exact in float): four exact terms. */
RAID_DF_FN RaidTacc raidTaccAddW(RaidTacc a, float w, float hi, float lo)
{
    RaidDf p = raidTwoProd(w, hi);
    RaidDf q = raidTwoProd(w, lo);
    a = raidTaccHigh(a, p.hi);
    a = raidTaccLow(a, p.lo);
    a = raidTaccLow(a, q.hi);
    a = raidTaccLow(a, q.lo);
    return raidTaccRenorm(a);
}

/* Add the double-float (hi, lo): two exact terms. */
RAID_DF_FN RaidTacc raidTaccAddDf(RaidTacc a, float hi, float lo)
{
    a = raidTaccHigh(a, hi);
    a = raidTaccLow(a, lo);
    return raidTaccRenorm(a);
}

/* The accumulator as a double-float (one rounding of l + c, below u^3 of the sum). */
RAID_DF_FN RaidDf raidTaccDf(RaidTacc a)
{
    return raidTwoSum(a.h, a.l + a.c);
}



/* ---- float64 bits to float and double-float, with 32-bit integer operations only ----
 * A device without float64 (or whose float64 is slow) receives the float64 values as their bits (two
 * 32-bit words: lo, hi as little-endian memory holds them) and forms the float or double-float itself.
 * raidBitsToDf(hi, lo, e) returns, for the finite double d with those bits, exactly what the host's
 * raidDfSplit(ldexp(d, -e)) gives: hi = RN(d 2^-e) in binary32 and lo = RN(d 2^-e - hi), each rounded
 * once to nearest even, binary32 subnormals and zeros included (the scaling is exact, so it is a
 * rounding of d 2^-e itself; a host ldexp that lands in float64's subnormal range rounds first, but then
 * the value is below 2^-1022 and both give 0). Its .hi alone is the f32 policy's (float)(d 2^-e).
 * Results for infinities and NaNs are unspecified (callers check the range first). The sign of a zero
 * hi is the sign of d, a zero lo is +0 when hi is exact (d 2^-e - hi = +0) and has the sign of the
 * remainder otherwise. tests/test_bits.c checks every case against the host's conversions. */
/* ---- 4/3 powers without division or special functions ----
 * x^(-1/3) from the bits and one polynomial step, then x^(2/3) (f32) or x^(4/3) (double-float) corrected by
 * the measured error of that root: binary32 multiplications and fma only (every device gives the same
 * bits; no special-function unit, no division). For x in [2^-126, 1] (the realized kernel's scaled window
 * products; larger x up to 2^100 work the same way, the errors repeat with period 2^3). */

/* x^(-1/3) within 1.7u (u = 2^-24; 1.691u measured over every x), for a normal binary32 x > 0 below 2^126:
 * the seed w0 = K - bits(x)/3 (within 3.5%: an exponent divided by 3 and a linear guess of the significand),
 * e = 1 - x w0^3 (|e| < 0.107) and w0 (1 + e q(e)) with q of degree 4 fitted to ((1 - e)^(-1/3) - 1)/e on
 * [-0.107, 0.1] (within 2^-27.5). The errors are scale-invariant (x 2^3k gives w 2^-k exactly), so
 * tests/test_df.c checks every binary32 of [2^-3, 1). A zero or subnormal x gives a finite w (about 1e13):
 * callers multiply it by x. 3 integer operations and 9 binary32 ones. */
RAID_DF_FN float raidRcbrt(float x)
{
    const float w0 = RAID_AS_FLOAT(0x54A232A3u - RAID_AS_UINT(x) / 3u);
    const float e = RAID_FMAF(-x, (w0 * w0) * w0, 1.0f);
    float q = RAID_FMAF(0x1.fe84p-4f, e, 0x1.2a563ap-3f);
    q = RAID_FMAF(q, e, 0x1.61ff2ep-3f);
    q = RAID_FMAF(q, e, 0x1.c719a2p-3f);
    q = RAID_FMAF(q, e, 0x1.555554p-2f);
    return RAID_FMAF(w0, e * q, w0);
}

/* v with v^2 = x^(4/3) within 3.25u (3.216u measured over every x; fma(v, v, s) adds the power with that
 * error and one rounding), for x in [2^-126, 1]: v = x w (w = raidRcbrt(x)) with its exact rounding error,
 * times 1 + e/3 where e = 1 - x w^3 is w's own error measured (|e| < 5.1u; the e^2 term is below u^2).
 * Below 2^-126 v^2 is below 2^-160 (no cube root is taken of a subnormal: w is finite, and x w tiny); 0
 * gives 0. tests/test_df.c checks every x of [2^-3, 1) and the period. 7 operations after the root. */
RAID_DF_FN float raidPow23F(float x)
{
    const float w = raidRcbrt(x);
    const float v = x * w, vl = RAID_FMAF(x, w, -v);
    const float e = RAID_FMAF(-(v * w), w, 1.0f);
    return v + RAID_FMAF(v, e * (1.0f / 3.0f), vl);
}

/* x^(4/3) for a non-negative double-float x (|x.lo| up to 5u |x.hi|: unnormalised products are fine) with
 * x.hi in [2^-126, 1], as an unnormalised pair (hi, lo) within 45u^2 (measured 34u^2): w = raidRcbrt(x.hi)
 * (1.7u), v = x w as a pair (4u^2), e = 1 - x w^3 from it to about 18u^2 absolute (TwoProd of v.hi w),
 * v* = v (1 + e/3 + 2e^2/9) = x^(2/3) within 21u^2 (the e^3 term is below u^3), renormalised (Fast2Sum)
 * and squared as a pair (TwoProd and the cross term: 3u^2). The power's hi is the binary32 square of the
 * renormalised v*, so it is >= 0. Below 2^-126 (x^(4/3) below 2^-168) the result is 0 or a few 2^-149;
 * (0, 0) gives (0, 0). 17 operations after the root. */
RAID_DF_FN RaidDf raidDfPow43Raw(RaidDf x)
{
    const float w = raidRcbrt(x.hi);
    const float vh = x.hi * w;
    const float vl = RAID_FMAF(x.lo, w, RAID_FMAF(x.hi, w, -vh)); /* x w = vh + vl */
    const float z = vh * w, zl = RAID_FMAF(vh, w, -z);              /* vh w = z + zl */
    const float e = RAID_FMAF(-RAID_FMAF(vl, w, zl), w, RAID_FMAF(-z, w, 1.0f)); /* 1 - x w^3 */
    const float k = e * RAID_FMAF(e, 2.0f / 9.0f, 1.0f / 3.0f);                 /* (1 - e)^(-1/3) - 1 */
    const RaidDf s = raidFastTwoSum(vh, RAID_FMAF(vh, k, vl));               /* x^(2/3) */
    const float h = s.hi * s.hi;
    return raidDfMake(h, RAID_FMAF(2.0f * s.hi, s.lo, RAID_FMAF(s.hi, s.hi, -h)));
}

/* The binary32 bits (sign 0) of RN(m 2^x), to nearest even, binary32 subnormals included, for a 64-bit
 * magnitude m = mh 2^32 + ml (not 0) with m 2^x below 2^128 (the callers' ranges). *rem receives the
 * magnitude of m 2^x minus the result, as an integer (rem_h 2^32 + rem_l) times 2^x, and *up whether the
 * rounding went up (the result exceeds m 2^x). */
RAID_DF_FN RaidU32 raidRoundMagToF32(RaidU32 mh, RaidU32 ml, int x, int *up, RaidU32 *rem_h, RaidU32 *rem_l)
{
    const int len = mh ? 64 - RAID_CLZ32(mh) : 32 - RAID_CLZ32(ml); /* bit length of m, 1..64 */
    const int top = len - 1 + x;                                    /* exponent of m's leading bit */
    const int keep = top >= -126 ? 24 : top + 150;                  /* bits kept: 24, or down to 2^-149 */
    const int shift = keep <= 0 ? len : len - keep;                 /* bits dropped, at most 64 */
    RaidU32 q, dh, dl; /* the kept part (at most 24 bits) and the dropped one */
    if (shift <= 0) {
        q = ml << (-shift), dh = 0, dl = 0;
    } else if (shift < 32) {
        q = (ml >> shift) | (mh << (32 - shift)), dh = 0, dl = ml & ((1u << shift) - 1u);
    } else if (shift == 32) {
        q = mh, dh = 0, dl = ml;
    } else if (shift < 64) {
        q = mh >> (shift - 32), dh = mh & ((1u << (shift - 32)) - 1u), dl = ml;
    } else {
        q = 0, dh = mh, dl = ml;
    }
    /* half an ulp of the kept part: 2^(shift - 1) */
    const RaidU32 hh = shift > 32 ? 1u << (shift - 33) : 0u, hl = shift >= 1 && shift <= 32 ? 1u << (shift - 1) : 0u;
    const int gt = dh > hh || (dh == hh && dl > hl), eq = dh == hh && dl == hl;
    /* keep < 0: below 2^-150, which rounds to 0 */
    *up = keep >= 0 && shift > 0 && (gt || (eq && (q & 1u))) ? 1 : 0;
    if (!*up) {
        *rem_h = dh, *rem_l = dl;
    } else { /* 2^shift - dropped: the dropped part negated modulo 2^64, masked to shift bits */
        RaidU32 nl = ~dl + 1u, nh = ~dh + (nl == 0u ? 1u : 0u);
        if (shift < 32)
            nh = 0, nl &= (1u << shift) - 1u;
        else if (shift < 64)
            nh &= shift == 32 ? 0u : (1u << (shift - 32)) - 1u;
        *rem_h = nh, *rem_l = nl;
    }
    q += (RaidU32)*up;
    /* Normal: the biased exponent top + 127 >= 1 on top of q's hidden bit (added as 2^23 from the
     * exponent field minus one, so a carry out of 24 bits raises the exponent as it should); subnormal and
     * zero: q itself (a carry reaches the smallest normal). */
    return keep == 24 ? ((RaidU32)(top + 127 - 1) << 23) + q : q;
}

/* The df (hi, lo) of the float64 with bits (bh: sign, exponent, top 20 mantissa bits; bl: the low 32),
 * scaled by 2^-e (see above). */
RAID_DF_FN RaidDf raidBitsToDf(RaidU32 bh, RaidU32 bl, int e)
{
    const RaidU32 sign = bh & 0x80000000u;
    const int ex = (int)((bh >> 20) & 0x7FFu);
    if (ex && ex - 1075 - e >= -125 && ex - 1075 - e <= 50) {
        /* The common case: a normal double d 2^-e = m 2^x whose leading bit is at 2^(x + 52) >= 2^-73, so hi
         * (24 bits) is a normal float and lo = rem 2^x, rem the 29 dropped bits (or 2^29 minus them) below
         * 2^29, is one int-to-float rounding times an exact normal power of two. Rounding to nearest even:
         * up iff rem + (q & 1) + 2^28 - 1 >= 2^29. A zero remainder gives lo = +0. */
        const int x = ex - 1075 - e;
        const RaidU32 mh = (bh & 0xFFFFFu) | 0x100000u; /* the hidden bit */
        const RaidU32 q = (mh << 3) | (bl >> 29), rem = bl & 0x1FFFFFFFu;
        const RaidU32 up = (rem + (q & 1u) + 0x0FFFFFFFu) >> 29;
        const float h = RAID_AS_FLOAT((((RaidU32)(x + 52 + 127 - 1) << 23) + q + up) | sign);
        const int ri = (int)rem - (int)(up << 29); /* d 2^-e - hi in units of 2^x, for |d| */
        const float lo = (float)(sign ? -ri : ri) * RAID_AS_FLOAT((RaidU32)(x + 127) << 23);
        return raidDfMake(h, lo);
    }
    const RaidU32 mh = (bh & 0xFFFFFu) | (ex ? 0x100000u : 0u); /* the hidden bit of a normal double */
    if ((mh | bl) == 0u) /* +-0: hi keeps the sign, lo = hi - hi is +0 */
        return raidDfMake(RAID_AS_FLOAT(sign), 0.0f);
    const int x = (ex ? ex : 1) - 1075 - e; /* d 2^-e = m 2^x */
    int up, u2;
    RaidU32 rh, rl, r2h, r2l;
    const float h = RAID_AS_FLOAT(raidRoundMagToF32(mh, bl, x, &up, &rh, &rl) | sign);
    if ((rh | rl) == 0u) /* exact: d 2^-e - hi is +0 */
        return raidDfMake(h, 0.0f);
    /* d 2^-e - hi = -+ rem 2^x: of d's sign when rounded down, the opposite when rounded up */
    const RaidU32 lb = raidRoundMagToF32(rh, rl, x, &u2, &r2h, &r2l);
    return raidDfMake(h, RAID_AS_FLOAT(lb | (up ? sign ^ 0x80000000u : sign)));
}

/* raidBitsToDf(bh, bl, e), the same bits, for a magnitude near its chunk's largest: bh's sign bit 0 and its
 * exponent field ex in [max(1, e + 950), e + 1022] (d normal, d 2^-e in [2^-73, 1): the common case of the
 * realized kernel, whose scale e is the chunk's largest exponent); k1 = (e + 896) << 20, the caller's
 * constant. The high word minus k1 holds the binary32 exponent ex - e - 896 (in [54, 126]) in place, so one
 * shift of the two words gives the truncated hi's bits (a carry of the rounding raises the exponent); lo is
 * the 29 dropped bits (or 2^29 minus them) times 2^(ex - 1075 - e), whose exponent is hi's minus 52.
 * tests/test_bits.c checks it against raidBitsToDf. 10 integer operations, a conversion and a
 * multiplication. */
RAID_DF_FN RaidDf raidBitsToDfNear(RaidU32 bh, RaidU32 bl, RaidU32 k1)
{
    const RaidU32 t = ((bh - k1) << 3) | (bl >> 29);  /* d 2^-e truncated to 24 bits, binary32 bits */
    const RaidU32 rem = bl & 0x1FFFFFFFu;               /* the dropped bits */
    const RaidU32 s = rem + (t & 1u) + 0x0FFFFFFFu;     /* bit 29: round up (to nearest even); s < 2^30 */
    const int ri = (int)rem - (int)(s & 0x20000000u);    /* d 2^-e - hi in units of 2^(ex - 1075 - e) */
    return raidDfMake(RAID_AS_FLOAT(t + (s >> 29)), (float)ri * RAID_AS_FLOAT((t & 0x7F800000u) - (52u << 23)));
}


/* ---- float64 bits to 64-bit fixed point, and a fixed-point integer to double-float ----
 * A column whose values stand far above their spread is centred before float32 sees it, and the
 * centring must be exact: raidBitsToFixed gives the float64 with bits (bh, bl) as a signed integer
 * in units of 2^(eu - 1083), eu >= 1 a biased exponent at least the value's own (the largest of its
 * column in a chunk): |result| < 2^61, exact when the value's exponent is at least eu - 61 + 53, else
 * truncated toward zero (by less than one unit, 2^-61 of the chunk's largest magnitude). The same
 * rule, trunc(ldexp(d, 1083 - eu)), on the host gives the host the centres the device used. Differences
 * of two such integers are exact. raidFixedToDf(D, x) is the host's raidDfSplit(D 2^x) for
 * |D| < 2^63 and 2^x a normal float with D 2^x normal (one rounding of D to nearest even for hi, one
 * of the exact remainder for lo). 64-bit integers (RaidI64, RaidU64 of raid_compat.h), no 64-bit float. */
RAID_DF_FN RaidI64 raidBitsToFixed(RaidU32 bh, RaidU32 bl, int eu)
{
    const int ex = (int)((bh >> 20) & 0x7FFu);
    const RaidU64 m = ((RaidU64)((bh & 0xFFFFFu) | (ex ? 0x100000u : 0u)) << 32) | (RaidU64)bl;
    const int sh = (ex ? ex : 1) - eu + 8; /* d = m 2^((ex|1) - 1075) = m 2^sh units */
    const RaidU64 mag = sh >= 0 ? m << (sh > 10 ? 10 : sh) : (sh > -64 ? m >> (-sh) : (RaidU64)0);
    return (bh & 0x80000000u) ? -(RaidI64)mag : (RaidI64)mag;
}

RAID_DF_FN RaidDf raidFixedToDf(RaidI64 v, float scale)
{
    const float h = RAID_I64_TO_F32(v); /* RN(v) */
    const RaidI64 rem = v - (RaidI64)h; /* exact: |v| < 2^63 and h within half an ulp of it */
    return raidDfMake(h * scale, RAID_I64_TO_F32(rem) * scale);
}

#endif /* RAID_DF_H */
