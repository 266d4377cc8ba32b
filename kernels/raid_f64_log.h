/*
 * raid_f64_log.h -- the binary64 logarithms log, log2, log10 and log1p, correctly rounded (round to nearest,
 * ties to even) for every binary64 input, on integer words (kernels/raid_wide.h): the same bits on the host
 * and on every device.
 *
 * Method (Tang's table-driven reduction, as in CORE-MATH's log and Muller's Handbook 11.2):
 *   y = 2^k m, m in [1, 2) (a binary64, or for log1p the exact 1 + x held in a RaidWide);
 *   i = round(256 (m - 1)) in [0, 256], C_i = round(2^71 / (256 + i)) (a 63-bit integer, ~ 2^63 / m);
 *   t = m C_i 2^-63 - 1, computed exactly as a 192-bit integer (then |t| <= 2^-9 (1 + 2^-60));
 *   ln y = (k + d_i) ln 2 + L_i + log1p(t), with d_i = 1 where 1 + i/256 > sqrt 2 (i >= 107), else 0, and
 *   L_i = -ln(2^d_i C_i 2^-63) from a table (|L_i| < 0.3466; L_0 = L_256 = 0). The d_i is what makes
 *   the reduced argument m / 2^d_i lie in about [sqrt(1/2), sqrt 2): near y = 1 (k + d_i = 0, i in {0, 256})
 *   ln y = log1p(t) with t = y - 1 exactly, so the result keeps its relative accuracy however small it is;
 *   for other i with k + d_i = 0, |L_i| >= 1.96 max|t| (checked by the generator), so L_i + log1p(t) loses
 *   at most a factor 2.05 to cancellation; for k + d_i != 0, |(k + d_i) ln 2 + L_i| >= ln 2 - 0.3466 >=
 *   0.4999 |(k + d_i) ln 2|.
 *   log1p(t) = t (1 + t Q(t)), Q the Taylor polynomial sum_{j=2..14} (-1)^(j+1) t^(j-2) / j, by Horner.
 *   log2 y = ln y (1/ln 2), log10 y = ln y (1/ln 10) (RaidWide constants). log1p(x) = log1p(t = x) for
 *   |x| <= 2^-9, x itself for |x| < 2^-53 (then x is the nearest binary64 to x - x^2/2 + ...), else
 *   ln(1 + x) with 1 + x exact in a RaidWide (it is for |x| < 2^127; above, its truncation changes ln by
 *   less than 2^-127 absolute, 2^-133 relative as ln(1 + x) > 88 there).
 *
 * Error bound. v = 2^-127. Each of raid_wide.h's raidWideMul and raidWideAdd truncates its exact result to
 * 128 bits (its code: the product's words below the top two, or the smaller addend's bits shifted out, are
 * dropped), so it errs by less than one ulp128 of its result (the larger operand's for a subtraction), which
 * is at most v times that value: raid_wide.h's header states 2^-126, and the tighter v is used here. A table
 * entry is rounded to nearest: 2^-128 = v/2 relative. "rel" is relative to the quantity computed.
 *   Q by Horner: a step c_j + t q has |t q| < 2^-9 |c_j|, so its sum is c_j (1 +- 2^-9); the step errs by
 *     v/2 (c_j) + v (the add, opposite signs: one ulp128 of c_j) + 2^-9 (rel(q) + v): rel(Q) < 1.51 v.
 *   S = 1 + t Q: |t Q| < 2^-9.98, the add's error at most v (1 + 2^-9.9): rel(S) < 1.005 v.
 *   P = t S: the mul's v, S's 1.005 v, the Taylor remainder |t|^14 / 15 / (1 - |t|/2) < 0.134 v, and where
 *     y's significand has more than 65 bits (log1p's 1 + x) t's truncation to 128 bits, v |t| (1.003 v in P):
 *     rel(P) < 2.14 v (t exact), < 3.15 v (t truncated).
 *   K = k + d_i = 0, L_i = 0: ln y = P, rel < 3.15 v.
 *   K = 0, L_i != 0: |P| <= |t| (1 + |t|) <= 0.5113 |L_i| (the generator checks |L_i| >= 1.96 max|t|), so
 *     |L_i + P| >= 0.4887 |L_i|; the errors: v/2 |L_i| (L_i), 3.15 v 0.5113 |L_i| (P), v |L_i| (the add):
 *     rel < (0.5 + 1.611 + 1) v / 0.4887 < 6.37 v.
 *   K != 0: K ln 2 errs by 1.5 v |K ln 2| (ln 2's rounding, the mul); A = K ln 2 + L_i (|L_i| < 0.3466 <=
 *     |K ln 2| / 2) by that, v |K ln 2| (the add) and v/2 |L_i| <= v/4 |K ln 2|: 2.75 v |K ln 2| <= 5.5 v |A|
 *     (|A| >= ln 2 - 0.3466 >= 0.49998 |K ln 2|); then A + P (|P| < 2^-8.99 < 0.0057 |A|) adds v |A| and
 *     3.15 v 0.0057 |A|: rel < (5.5 + 0.018 + 1) v / 0.9943 < 6.56 v.
 *   So raidWideLogOf's (and log1p's) relative error is below 6.56 v < 2^-124.28 for every input; log2 and
 *     log10 multiply by a rounded constant (v/2) with a mul (v): below 8.06 v < 2^-123.98. The rounding test
 *     of raidWideToF64 runs with RAID_F64_LOG_ERRBITS = 123 for all four.
 *   Correct rounding follows for every input whose exact result is more than 2^-123 (relative) away from a
 *   rounding boundary (a midpoint of two binary64 values): by Lefevre and Muller's searches (the worst cases
 *   of CORE-MATH's src/binary64/FN/FN.wc, in tests/data/f64_worst/README.md) no logarithm of a binary64 that is not
 *   an exact case comes closer; the tests run every one of them and require `sure`. The closest, log10 of
 *   0x1.e12d66744ff81p+429, needs 123 bits: the bound leaves it about one bit of room.
 * Exact cases, handled first: log(1) = log2(1) = log10(1) = +0, log2(2^k) = k, log10(10^k) = k for
 * k = 0 .. 22, log1p(+-0) = +-0.
 * Special values (C99 Annex F, glibc, numpy): a NaN is returned made quiet; log(+-0) = -inf, log(x < 0) and
 * log(-inf) = the default NaN 0xFFF8000000000000, log(+inf) = +inf; log1p(-1) = -inf, log1p(x < -1) = the
 * default NaN, log1p(+inf) = +inf.
 *
 * Sources:
 *   Tang, P. T. P. Table-driven implementation of the logarithm function in IEEE floating-point arithmetic.
 *     ACM TOMS 16(4), 1990.
 *   Muller, J.-M. et al. Handbook of Floating-Point Arithmetic, 2nd ed. (2018), 11-12.
 *   Lefevre, V., Muller, J.-M. Worst cases for correct rounding of the elementary functions in double
 *     precision. ARITH 15, 2001; CORE-MATH (Sibidanov, Zimmermann, Glondu, ARITH 2022) for the worst cases.
 */
#ifndef RAID_F64_LOG_H
#define RAID_F64_LOG_H

#ifndef RAID_COMPAT_H /* host C */
#include "raid_compat.h"
#endif
#ifndef RAID_WIDE_H
#include "raid_wide.h"
#endif
#ifndef RAID_F64_LOG_TABLES_H
#include "raid_f64_log_tables.h"
#endif

#define RAID_F64_LOG_ERRBITS 123 /* the RaidWide results' relative error is below 2^-123 (derivation above) */
#define RAID_F64_LOG_ONE ((RaidU64)0x3FF << 52)

/* Entry i of a generated table of RaidWide words (a macro: a pointer into a RAID_CONSTANT table has no
 * spelling common to the three dialects). */
#define RAID_F64_LOG_ENTRY(tab, i) raidWideWords((tab)[3 * (i)], (tab)[3 * (i) + 1], (tab)[3 * (i) + 2])

/* t Q(t) for |t| <= 2^-9 (1 + 2^-60), Q's Taylor coefficients by Horner: relative error below 2.51 2^-127
 * (Q's 1.51 and the mul's 1; the header's derivation), the Taylor remainder apart. */
RAID_F64_FN RaidWide raidF64LogTQ(RaidWide t)
{
    RaidWide q = RAID_F64_LOG_ENTRY(raidF64LogQ, RAID_F64_LOG_DEGREE - 2);
    for (int j = RAID_F64_LOG_DEGREE - 3; j >= 0; j--)
        q = raidWideAdd(RAID_F64_LOG_ENTRY(raidF64LogQ, j), raidWideMul(t, q));
    return raidWideMul(t, q);
}

/* log1p(t) = t (1 + t Q(t)) for |t| <= 2^-9 (1 + 2^-60): relative error below 2.14 2^-127 for an exact t
 * (the header's derivation). */
RAID_F64_FN RaidWide raidF64LogPoly(RaidWide t) { return raidWideMul(t, raidWideAdd(raidWideFromI64(1), raidF64LogTQ(t))); }

/* ln y for a RaidWide y > 0, relative error below 6.56 2^-127 < 2^-124.28 (the header's derivation; t is
 * exact when y's significand has at most 65 significant bits, as a binary64's has, else truncated to 128). */
RAID_F64_FN RaidWide raidWideLogWide(RaidWide y)
{
    const int k = y.e - 1; /* y = 2^k m, m = (hi 2^64 + lo) 2^-127 in [1, 2) */
    const int i = (int)((((y.hi >> 54) & 0x1FF) + 1) >> 1);
    const RaidU64 c = raidF64LogC[i];
    /* W = (hi 2^64 + lo) c, 192 bits w2 w1 w0, then W - 2^190 (t = that 2^-190) */
    RaidU64 a1, a0, b1, b0;
    raidF64Mul128(y.hi, c, &a1, &a0);
    raidF64Mul128(y.lo, c, &b1, &b0);
    RaidU64 w0 = b0, w1 = a0 + b1;
    RaidU64 w2 = a1 + (w1 < b1) - ((RaidU64)1 << 62);
    const int neg = (int)(w2 >> 63); /* |t| < 2^-8: W - 2^190 fits 183 bits with its sign */
    if (neg) { /* the magnitude: two's complement of the 192 bits */
        w0 = ~w0 + 1;
        w1 = ~w1 + (w0 == 0);
        w2 = ~w2 + (w0 == 0 && w1 == 0);
    }
    int e = 2; /* the value (w2 2^128 + w1 2^64 + w0) 2^-190 = (w2 2^64 + w1 + w0 2^-64) 2^(e - 128) */
    for (int s = 0; s < 2 && !w2; s++) { /* whole words first: t is exact in 128 bits when it is that small */
        w2 = w1;
        w1 = w0;
        w0 = 0;
        e -= 64;
    }
    const int sh = RAID_CLZ64(w2) & 63; /* w2 == 0 only for t == 0 (all three words zero) */
    if (sh) {
        w2 = (w2 << sh) | (w1 >> (64 - sh));
        w1 = (w1 << sh) | (w0 >> (64 - sh));
        e -= sh;
    }
    const RaidWide t = raidWideMake(w2, w1, e, neg); /* truncated: relative error below 2^-127 */
    const RaidWide p = raidF64LogPoly(t);
    const int kk = k + (i >= RAID_F64_LOG_HALF);
    const RaidWide l = RAID_F64_LOG_ENTRY(raidF64LogL, i);
    if (!kk)
        return raidWideAdd(l, p);
    const RaidWide a = raidWideAdd(raidWideMul(raidWideFromI64(kk), RAID_F64_LOG_ENTRY(raidF64LogConst, 0)), l);
    return raidWideAdd(a, p);
}

/* ln x for the bits x of a finite binary64 x > 0, as a RaidWide with RELATIVE error below 2^-124.28 (the
 * header's derivation) for every such x, also near x = 1 where ln x is small (there it is log1p of the exact
 * x - 1, so the bound stays relative): the building block of pow (exp(y ln x)). ln 1 is exactly zero, and
 * ln of a power of two is K ln 2 to 1.5 2^-127. */
RAID_F64_FN RaidWide raidWideLogOf(RaidU64 x) { return raidWideLogWide(raidWideFromF64(x)); }

/* The special values of log, log2 and log10: 1 with *r set for a NaN, x <= 0, +inf and x = 1; else 0. */
RAID_F64_FN int raidF64LogSpecial(RaidU64 x, RaidU64 *r)
{
    if (raidF64IsNan(x)) {
        *r = x | RAID_F64_QUIET;
        return 1;
    }
    if (!(x & ~RAID_F64_SIGN)) { /* +-0 */
        *r = RAID_F64_SIGN | RAID_F64_INF;
        return 1;
    }
    if (x >> 63) { /* negative, -inf included */
        *r = RAID_F64_DEFAULT_NAN;
        return 1;
    }
    if (x == RAID_F64_INF || x == RAID_F64_LOG_ONE) {
        *r = x == RAID_F64_INF ? RAID_F64_INF : 0;
        return 1;
    }
    return 0;
}

/* log_b x as a RaidWide for finite x > 0, base 0: e, 2: 2, 10: 10; relative error below 2^-123.98. */
RAID_F64_FN RaidWide raidF64LogWideBase(RaidU64 x, int base)
{
    const RaidWide w = raidWideLogOf(x);
    if (!base)
        return w;
    return raidWideMul(w, RAID_F64_LOG_ENTRY(raidF64LogConst, base == 2 ? 1 : 2));
}

/* log_b x (base 0: e, 2: 2, 10: 10) correctly rounded, with *sure from the rounding test (1 for the special
 * values and exact cases; 0 would mean an input closer to a rounding boundary than the error bound, which
 * the worst-case searches say no binary64 is). */
RAID_F64_FN RaidU64 raidF64LogBase(RaidU64 x, int base, int *sure)
{
    RaidU64 r;
    *sure = 1;
    if (raidF64LogSpecial(x, &r))
        return r;
    int be;
    const RaidU64 s = raidF64Unpack(x, &be); /* x = s 2^(be - 1075) */
    if (base == 2 && s == ((RaidU64)1 << 52)) /* 2^k: k exactly */
        return raidWideToF64(raidWideFromI64(be - 1075 + 52), 127, sure);
    if (base == 10 && be >= 1023 && be < 1023 + 76) { /* 10^k, k = 0 .. 22: k exactly */
        const int k = ((be - 1023) * 1233 + 4095) >> 12;
        if (k < 23 && x == raidF64LogPow10[k])
            return raidWideToF64(raidWideFromI64(k), 127, sure);
    }
    return raidWideToF64(raidF64LogWideBase(x, base), RAID_F64_LOG_ERRBITS, sure);
}

/* log1p(x) as a RaidWide for finite x > -1 with |x| >= 2^-53: x + x (x Q(x)) for |x| <= 2^-9, relative
 * error below 1.1 2^-127 (the correction x (x Q(x)), below 2^-9.99 |x|, is known to 2^-119.8 of itself: its
 * 3.51 2^-127 and the Taylor remainder 2 |x|^13 / 15 < 2^-119.9; then the add's 2^-127), else ln(1 + x),
 * relative error below 6.56 2^-127 (the header). */
RAID_F64_FN RaidWide raidF64Log1pWide(RaidU64 x)
{
    const RaidWide w = raidWideFromF64(x);
    if ((x & ~RAID_F64_SIGN) <= ((RaidU64)(1023 - 9) << 52)) /* |x| <= 2^-9: t = x exactly */
        return raidWideAdd(w, raidWideMul(w, raidF64LogTQ(w)));
    return raidWideLogWide(raidWideAdd(raidWideFromI64(1), w));
}

/* x + c rounded to nearest for a binary64 x and a RaidWide c with |c| <= 2^-9.99 |x|, c known to 2^-119
 * (relative): *sure = 1 where the rounding test of raidWideToF64 on the RaidWide x + c (within 1.1 2^-127 of
 * the exact sum) decides; otherwise the sum lies near the midpoint m of two binary64 values (a case such as
 * log1p(0x1.080000000016bp-42), whose value is closer to m than 2^-128 relative: x - x^2/2 has a long run of
 * zeros where a binary64 ends), and the side of m is the sign of d = (x - m) + c, x - m exact (both have at
 * most 55 significant bits within 2^-9 of each other), so d errs by less than 2^-119 |c| + 2^-127 max(|x -
 * m|, |c|) < 2^-118 |c| whenever |d| >= 2^-118 |c|: then *sure = 2. Else *sure = 0 (the nearer candidate
 * is returned). This resolves x + c to within 2^-118 |c| (2^-128 |x| and far less for small x), where the
 * single RaidWide could not go below 2^-127 |x|. */
RAID_F64_FN RaidU64 raidF64LogRoundSum(RaidU64 x, RaidWide c, int *sure)
{
    const RaidWide xw = raidWideFromF64(x);
    const RaidWide s = raidWideAdd(xw, c);
    const RaidU64 r = raidWideToF64(s, RAID_F64_LOG_ERRBITS, sure);
    if (*sure)
        return r;
    const RaidWide rw = raidWideFromF64(r);
    const RaidWide side = raidWideSub(s, rw);
    /* the neighbour of r on s's side: the next magnitude up where |s| > |r|, down otherwise */
    const RaidU64 nb = side.neg == rw.neg ? r + 1 : r - 1;
    const RaidWide m = raidWideLdexp(raidWideAdd(rw, raidWideFromF64(nb)), -1); /* exact: r, nb adjacent */
    const RaidWide d = raidWideAdd(raidWideSub(xw, m), c);
    if (raidWideLessAbs(d, raidWideLdexp(c, -118)))
        return r;
    *sure = 2;
    /* d > 0: the exact sum is above m, so the candidate of larger value */
    const int nb_above = (nb > r) != (int)(r >> 63); /* nb's value above r's */
    return (!d.neg) == nb_above ? nb : r;
}

/* log1p(x) correctly rounded, *sure as raidF64LogBase's (2: decided by raidF64LogRoundSum's second test). */
RAID_F64_FN RaidU64 raidF64Log1pSure(RaidU64 x, int *sure)
{
    *sure = 1;
    if (raidF64IsNan(x))
        return x | RAID_F64_QUIET;
    if (x == (RAID_F64_SIGN | RAID_F64_LOG_ONE)) /* -1 */
        return RAID_F64_SIGN | RAID_F64_INF;
    if (x > (RAID_F64_SIGN | RAID_F64_LOG_ONE)) /* below -1, -inf included */
        return RAID_F64_DEFAULT_NAN;
    if (x == RAID_F64_INF)
        return x;
    if ((x & ~RAID_F64_SIGN) < ((RaidU64)(1023 - 53) << 52)) /* |x| < 2^-53, +-0 included: x */
        return x;
    if ((x & ~RAID_F64_SIGN) <= ((RaidU64)(1023 - 9) << 52)) { /* |x| <= 2^-9: x + x (x Q(x)) */
        const RaidWide w = raidWideFromF64(x);
        return raidF64LogRoundSum(x, raidWideMul(w, raidF64LogTQ(w)), sure);
    }
    return raidWideToF64(raidF64Log1pWide(x), RAID_F64_LOG_ERRBITS, sure);
}

/* The natural logarithm of x (C's log, numpy.log), correctly rounded; special values in the header. */
RAID_F64_FN RaidU64 raidF64Log(RaidU64 x)
{
    int sure;
    return raidF64LogBase(x, 0, &sure);
}

/* log2 x (C's log2, numpy.log2), correctly rounded. */
RAID_F64_FN RaidU64 raidF64Log2(RaidU64 x)
{
    int sure;
    return raidF64LogBase(x, 2, &sure);
}

/* log10 x (C's log10, numpy.log10), correctly rounded. */
RAID_F64_FN RaidU64 raidF64Log10(RaidU64 x)
{
    int sure;
    return raidF64LogBase(x, 10, &sure);
}

/* ln(1 + x) (C's log1p, numpy.log1p), correctly rounded. */
RAID_F64_FN RaidU64 raidF64Log1p(RaidU64 x)
{
    int sure;
    return raidF64Log1pSure(x, &sure);
}

#endif /* RAID_F64_LOG_H */
