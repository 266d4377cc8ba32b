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
 * Fast path (raidF64LogBase and raidF64Log1pSure try it first; CORE-MATH's scheme of a cheap evaluation with a
 * proven bound and a rounding test, then the 128-bit path above only where the test fails: the same bits,
 * since both return the correctly rounded result, at about a tenth of the instructions). Fixed point on
 * 64-bit words, every step integer arithmetic as above.
 *   Reduction: x = m 2^(be - 1075) (m the 53-bit integer significand, a subnormal's normalised), k =
 *   be - 1023, the same i and d_i, K = k + d_i, but c_i = C'_i 2^-11 with C'_i = round(2^19 / (256 + i)) a
 *   12-bit integer (the generator's raidF64LogFastT): z = c_i m 2^-52 - 1 = (C'_i m - 2^63) 2^-63 is exact in
 *   one 64-bit word, and |z| <= 2^-8.85 for every m of every entry (the generator's check; 2^-8.8 is used).
 *   ln x = K ln 2 + L'_i + log1p(z), L'_i = -ln(2^d_i c_i) (L'_0 = L'_256 = 0). Write a = |z|, za = a 2^63
 *   (an integer below 2^54.2). Near 1 (K = 0, i in {0, 256}: x in [1 - 2^-10, 1 + 2^-9), x != 1) the
 *   result is log1p(z) with z = x - 1 exactly; elsewhere |ln x| > 2^-10 (K = 0 and 1 <= i < 107: x >= 1 +
 *   2^-9; K = 0 and i >= 107: x < 1 - 2^-10; K != 0: |ln x| > 0.34), so an absolute bound suffices there.
 *   log1p(z) = z - z^2/2 + z^3 Q3(z) + R, Q3(z) = sum_{j=0..6} (-z)^j / (j + 3) (the Taylor polynomial), |R|
 *   <= a^10 / (10 (1 - a)). Its magnitude is a + s a^2/2 + a^3 Q3 (s = +1 for z < 0, -1 for z > 0), computed
 *   in units u = 2^-(127 + sh): sh = 0 away from 1; near 1, sh = clz(za) - 9, so that zn = za 2^sh is in
 *   [2^54, 2^55) and the result keeps a relative accuracy however small z is (sh <= 44: za >= 2^10 as x - 1
 *   is a multiple of 2^-53). log1p(x) for 2^-53 <= |x| <= 2^-9 is the same computation with z = x, zn = x's
 *   significand times 4 and sh = 1014 - (x's biased exponent). log1p(x) for 2^-9 < |x|, -1 < x < 2^53:
 *   1 + x is exact as the integer Y = (1 + x) 2^(1075 - be) < 2^62 (x = sx 2^(be - 1075)), normalised to
 *   m64 2^(k - 63) (m64 in [2^63, 2^64), up to 62 significant bits); i, d_i and C'_i from its top 53 bits m =
 *   floor(m64 2^-11) as for ln, and z = (C'_i m - 2^63) 2^-63 + C'_i (m64 mod 2^11) 2^-74 exactly, a 2^74 =
 *   ah 2^11 + al (ah < 2^54.2, al < 2^11) in two words; never near 1 (K = 0 with i in {0, 256} would need
 *   |x| <= 2^-9), so |ln(1 + x)| > 2^-9.003 and sh = 0.
 *   raidF64LogFastP, with every product the high word (floor) of a 64 x 64-bit product:
 *     a = zn 2^64 u exactly (log1p above 2^-9: ah 2^64 + al 2^53 u); a^2/2 = za zn u exactly (a 128-bit
 *     product; log1p up to 2^-9: floor(zn^2 2^-sh), < 1 u short; above: ah^2 + floor(2 ah al 2^-11), the
 *     dropped al^2 2^-22 included, < 2 u short).
 *     Horner on az = a 2^64 (log: 2 za exactly; log1p: its floor): p_6 = Q_6, p_j = Q_j +- floor(az p_{j+1}
 *     2^-64) (+ for z < 0), Q_j = round(2^64 / (j + 3)). Each step errs by 1/2 (Q_j) + 1 (floor) + 0.252
 *     (log1p: az's floor times p_{j+1} 2^-64 <= 0.252) + a times the previous error, so |p_0 - Q3 2^64| <=
 *     delta = 1.76 (1.51 for log); every p_j lies in (0, 2^62.5] (the partial sums of Q3 are in (0, 0.335]),
 *     and 0.332 < Q3 < 0.3344.
 *     N = zn 2^9 = a 2^(72 + sh) < 2^64 (log1p above 2^-9: its floor, N = a 2^72 - xi0, xi0 < 1), X =
 *     floor(N^2 2^-64) = a^2 2^(80 + 2 sh) - xi1 (0 <= xi1 < 1, or < 1 + 2 a 2^8 <= 2.149 with xi0), Y =
 *     floor(X p_0 2^-64), W = floor(Y N 2^-64), against T = a^3 Q3 2^(88 + 3 sh): |Y - a^2 Q3 2^(80 + 2 sh)| <=
 *     rho delta + 0.3345 xi1 + 1 (rho = (a 2^(8 + sh))^2) and |W - T| <= a 2^(8 + sh) |Y - a^2 Q3 2^(80 +
 *     2 sh)| + Y 2^-64 xi0 + 1, which is below 2.06 for sh = 0, N exact and a <= 2^-8.8 (a 2^8 <= 2^-0.8),
 *     2.44 with N's floor (Y 2^-64 < 0.111), 1.89 for a = 2^-9 (a 2^8 = 1/2) and 4.1 for any sh >= 1.
 *     a^3 Q3 = W 2^(39 - 2 sh) u (shifted right, for 2 sh > 39, by a floor: < 1 u more).
 *   The magnitude P, against |log1p(z)|: away from 1 (sh = 0) within 2.06 2^39 u + |R| (< 2^-91.31 = 2^35.69
 *     u) < 2^40.11 u = 2^-86.89 (log1p above 2^-9: 2.44 2^39 + 2 + |R| < 2^40.35 u); near 1 and for log1p up
 *     to 2^-9 within ERRB(sh) = 2^(42 - 2 sh) + 4 u (sh <= 21; 4 u above): for sh = 0, 1.89 2^39 + 2 + |R|
 *     (2^33.68 u) < 2^39.95; for sh >= 1, 4.1 2^(39 - 2 sh) + 2 + |R| (a < 2^-(8 + sh): |R| < 2^(43.69 -
 *     9 sh) u), below 0.6 2^(42 - 2 sh) + 4 (the 2 u: the shift's floor and log1p's a^2/2; for sh >= 22 the
 *     first term is below 0.13). As P >= 2^118 (1 - 2^-10) u - ERRB > 2^117.99 u, that is below 2^-75.99
 *     relative, and far less as z gets small (where the function's value comes close to a midpoint by its
 *     structure: x = 1 + n 2^-52 for small n makes z - z^2/2 a short binary number).
 *   Away from 1: V = K H 2^-53 + K L 2^-106 + L'_i +- floor(P 2^-10) in two's complement units v = 2^-117
 *     (ln 2 = H 2^-53 + L 2^-106 + e2, |e2| <= 2^-107, both products exact below 2^63; |V| < 2^127): errors
 *     2^30.11 (P; log1p 2^30.35) + 1 (the floor) + 1074 2^-107 = 2^20.07 (K e2) + 1/2 (L'_i rounded) <
 *     2^30.36 v, so ERRA = 2^31 v = 2^-86 absolute, below 2^-76 relative as |ln x| > 2^-10. Near 1, V = P.
 *   log2, log10: V's top 128 bits times 1/ln 2 or 1/ln 10 (raidF64LogConst, rounded to 128 bits), the
 *     product's top 128 bits (3 units short at most, the constant's rounding 1/2 unit), normalised by at
 *     most one place: the bound e becomes 2 e + 8 units.
 *   The rounding test (raidF64LogFastRound): V normalised to H = |V| 2^t in [2^127, 2^128), the bound to e =
 *     err 2^t (e < 2^53 is required, else the path gives up: away from 1 t <= 21 as |V| > 2^106.99 v, near
 *     1 t <= 10). The exact value lies in [H - e, H + e] (scaled). The binary64 values there are multiples
 *     of 2^75, the rounding boundaries the odd multiples of 2^74; below 2^127 the nearest boundary is 2^127 -
 *     2^73 and above 2^128 it is 2^128 + 2^75, both farther than e < 2^55, so the only boundary the interval
 *     can meet is the midpoint nearest H, at distance |D - 2^74| (D = H mod 2^75). Where |D - 2^74| > e
 *     (*sure = 1) every value of the interval rounds to the same binary64 (rounding to nearest is monotone
 *     and changes only at the midpoints), the exact result's, which the 128-bit path also returns: H's
 *     significand plus bit 74 (D = 2^74 is excluded). Otherwise *sure = 0 and the 128-bit path decides. The
 *     results are normal binary64 (a logarithm past the exact cases is above 2^-54 and below 2^10).
 *   Fallback rate: about 2 e / 2^75, i.e. 2^53 times the relative bound, so at most about 2^-23 of the inputs
 *   near |ln x| = 2^-10 and far fewer elsewhere; tests/test_f64_logfast.c counts them (none in 10^7 random
 *   inputs of each kind, about half of the worst-case lists, which are hard by construction) and shows
 *   that bounds 4 times smaller give wrong bits on the worst cases.
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

/* log_b x (base 0: e, 2: 2, 10: 10) correctly rounded by the 128-bit path alone (the fast path's fallback),
 * with *sure from the rounding test (1 for the special values and exact cases; 0 would mean an input closer
 * to a rounding boundary than the error bound, which the worst-case searches say no binary64 is). */
RAID_F64_FN RaidU64 raidF64LogBaseWide(RaidU64 x, int base, int *sure)
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

/* log1p(x) correctly rounded by the 128-bit path alone (the fast path's fallback), *sure as
 * raidF64LogBaseWide's (2: decided by raidF64LogRoundSum's second test). */
RAID_F64_FN RaidU64 raidF64Log1pSureWide(RaidU64 x, int *sure)
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

/* ---- The fast path: fixed point on 64-bit words, then CORE-MATH's rounding test (header: "Fast path") ---- */

/* The error bounds in units of the result's last bit: far from 1, |V - ln x| < 2^31 units of 2^-117 (2^-86
 * absolute); near 1 (and log1p of |x| <= 2^-9), |P - |log1p(z)|| < 2^(42 - 2 sh) + 4 units of 2^-(127 + sh)
 * (below 2^-76 relative, and far less as |z| = 2^-(8 + sh) .. 2^-(9 + sh) gets small). */
#define RAID_F64_LOGF_ERRA ((RaidU64)1 << 31)
#define RAID_F64_LOGF_ERRB(sh) (((sh) <= 21 ? (RaidU64)1 << (42 - 2 * (sh)) : 0) + 4)

/* |log1p(z)| for z = (-1)^zneg a, 0 <= a <= 2^-8.8, in units u = 2^-(127 + sh) as the 128 bits (*ph, *pl): from
 * a itself in units u, (ah, al) (below 2^119); az = a 2^64 and n = a 2^(72 + sh) < 2^64 (or their floors);
 * and (hh, hl) = a^2/2 in units u (or a little less). a + (zneg ? + : -) a^2/2 + a^3 Q3(z), Q3(z) =
 * sum_{j=0..6} (-z)^j / (j + 3) by Horner in 64-bit words; a^3 Q3 from three high products, then scaled by
 * 2^(39 - 2 sh). Error, the Taylor remainder and the inputs' apart: below 2.06 2^39 units for sh = 0, az and
 * n exact and a <= 2^-8.8; 1.89 2^39 + 1 for a = 2^-9; 4.1 2^(39 - 2 sh) + 1 for sh >= 1 (the header's
 * derivation, which also bounds the floors' share). */
RAID_F64_FN void raidF64LogFastP(int zneg, RaidU64 az, RaidU64 n, int sh, RaidU64 ah, RaidU64 al, RaidU64 hh,
                                 RaidU64 hl, RaidU64 *ph, RaidU64 *pl)
{
    const RaidU64 flip = zneg ? 0 : ~(RaidU64)0; /* Q3's Horner step adds a p for z < 0, subtracts it for z > 0 */
    RaidU64 p = raidF64LogFastQ[6];
    for (int j = 5; j >= 0; j--)
        p = raidF64LogFastQ[j] + ((RAID_MUL_HI64(az, p) ^ flip) - flip);
    const RaidU64 w = RAID_MUL_HI64(RAID_MUL_HI64(RAID_MUL_HI64(n, n), p), n); /* a^3 Q3 2^(88 + 3 sh) */
    const int s3 = 39 - 2 * sh;
    RaidU64 wh = 0, wl;
    if (s3 >= 0) {
        wh = (w >> 1) >> (63 - s3);
        wl = w << s3;
    } else
        wl = s3 > -64 ? w >> -s3 : 0;
    RaidU64 lo = al + wl, hi = ah + wh + (lo < wl); /* a + a^3 Q3: below 2^119 */
    if (zneg) {
        lo += hl;
        hi += hh + (lo < hl);
    } else {
        hi -= hh + (lo < hl);
        lo -= hl;
    }
    *ph = hi;
    *pl = lo;
}

/* V = K ln 2 + L'_i + (-1)^zneg floor(P 2^-ps) as the magnitude (*vh, *vl) and sign *neg, for P in units
 * 2^-(117 + ps) (ps = 10: V in units 2^-117, two's complement on the way; ps = 0 with K = 0 and L'_i = 0, near
 * 1: V = P). K ln 2 = K H 2^-53 + K L 2^-106 (both products exact, below 2^63), L'_i from the table. */
RAID_F64_FN void raidF64LogFastSum(int k, int i, int zneg, RaidU64 ph, RaidU64 pl, int ps, RaidU64 *vh,
                                   RaidU64 *vl, int *neg)
{
    RaidU64 h = ph >> ps, l = (pl >> ps) | ((ph << 1) << (63 - ps));
    if (zneg) {
        l = ~l + 1;
        h = ~h + (l == 0);
    }
    const RaidU64 kl = (RaidU64)(RaidI64)k * RAID_F64_LOGF_LN2L; /* K L at 2^-106 */
    const RaidU64 ks = (RaidU64)0 - (kl >> 63);
    const RaidU64 lh = raidF64LogFastT[3 * i + 1], ll = raidF64LogFastT[3 * i + 2], kll = kl << 11;
    l += kll;
    h += (l < kll) + (((kl ^ ks) >> 53) ^ ks) + (RaidU64)(RaidI64)k * RAID_F64_LOGF_LN2H + lh;
    l += ll;
    h += l < ll;
    *neg = (int)(h >> 63);
    if (*neg) {
        l = ~l + 1;
        h = ~h + (l == 0);
    }
    *vh = h;
    *vl = l;
}

/* The binary64 nearest (-1)^neg V, V = (vh 2^64 + vl) 2^-f known to within err units (2^-f each), times
 * 1 / ln 2 (base 2) or 1 / ln 10 (base 10) before the rounding: *sure = 1 where every value within the bound
 * rounds alike (CORE-MATH's rounding test; the header's proof), else 0 (the return value is then
 * meaningless). The result must be a normal binary64 (a logarithm of a binary64 past the exact cases is at
 * least 2^-54 in magnitude and below 2^10). */
RAID_F64_FN RaidU64 raidF64LogFastRound(RaidU64 vh, RaidU64 vl, int f, RaidU64 err, int neg, int base, int *sure)
{
    const int s = RAID_CLZ64(vh);
    *sure = s <= 21 && err < ((RaidU64)1 << (53 - s)); /* the bound after normalising, e, below 2^53; V != 0 */
    const int t = *sure ? s : 0;
    RaidU64 h = (vh << t) | ((vl >> 1) >> (63 - t)), l = vl << t; /* bit 127 set */
    RaidU64 e = err << t;
    int ue = 127 - f - t; /* the value is in [2^ue, 2^(ue + 1)) */
    if (base) {           /* (h, l) c 2^-128, c in [2^127, 2^128): 3 units short at most, c's rounding 1/2 */
        const RaidWide c = RAID_F64_LOG_ENTRY(raidF64LogConst, base == 2 ? 1 : 2);
        RaidU64 qh, ql;
        raidF64Mul128(h, c.hi, &qh, &ql);
        const RaidU64 m1 = RAID_MUL_HI64(h, c.lo), m2 = RAID_MUL_HI64(l, c.hi);
        ql += m1;
        qh += ql < m1;
        ql += m2;
        qh += ql < m2;
        ue += c.e; /* (h, l) c = Q 2^128, the value Q 2^(ue + c.e - 127) */
        if (!(qh >> 63)) { /* in [2^126, 2^127): one place left */
            qh = (qh << 1) | (ql >> 63);
            ql <<= 1;
            ue--;
        }
        h = qh;
        l = ql;
        e = 2 * e + 8; /* (e + 3.5) 2 */
    }
    /* the rounding boundaries within e of (h, l): only the midpoint D = 2^74 of this binade, D = the 75 bits
     * below the 53 kept (e < 2^55: the boundaries of the binades below and above are farther; the header) */
    const RaidU64 dl = l + e, dh = (h & 0x7FF) + (dl < e); /* D + e */
    *sure &= !(dh == 0x400 && dl <= 2 * e);                /* D + e - 2^74 in [0, 2e]: unsure */
    const RaidU64 mant = (h >> 11) + ((h >> 10) & 1);    /* D > 2^74: up (D = 2^74 is unsure) */
    return (neg ? RAID_F64_SIGN : 0) | (((RaidU64)(ue + 1022) << 52) + mant);
}

/* The fast path's value of ln x for x > 0 finite, x != 1: (-1)^*neg (*vh 2^64 + *vl) 2^-*f, within *err units
 * (2^-*f each) of ln x (the header's derivation). */
RAID_F64_FN void raidF64LogFastValue(RaidU64 x, RaidU64 *vh, RaidU64 *vl, int *f, RaidU64 *err, int *neg)
{
    int be;
    const RaidU64 m = raidF64Unpack(x, &be); /* x = m 2^(be - 1075), m in [2^52, 2^53) */
    const int i = (int)((((m >> 43) & 0x1FF) + 1) >> 1);
    const int k = be - 1023 + (i >= RAID_F64_LOG_HALF);
    const RaidU64 zs = raidF64LogFastT[3 * i] * m - ((RaidU64)1 << 63); /* z 2^63, exact */
    const int zneg = (int)(zs >> 63);
    const RaidU64 za = zneg ? (RaidU64)0 - zs : zs; /* a 2^63 */
    const int near1 = k == 0 && (i == 0 || i == RAID_F64_LOG_NTAB);
    const int sh = near1 ? RAID_CLZ64(za) - 9 : 0;
    const RaidU64 zn = za << sh;
    RaidU64 hh, hl, ph, pl;
    raidF64Mul128(za, zn, &hh, &hl); /* a^2/2 in units 2^-(127 + sh), exactly */
    raidF64LogFastP(zneg, za << 1, zn << 9, sh, zn, 0, hh, hl, &ph, &pl);
    raidF64LogFastSum(k, i, zneg, ph, pl, near1 ? 0 : 10, vh, vl, neg);
    *f = near1 ? 127 + sh : 117;
    *err = near1 ? RAID_F64_LOGF_ERRB(sh) : RAID_F64_LOGF_ERRA;
}

/* The fast path of log_b x (base 0, 2, 10) for x > 0 finite, x != 1: the correctly rounded result with *sure =
 * 1, or *sure = 0 (fall back to raidF64LogBaseWide). drop = 0; the tests pass drop > 0 (bounds 2^drop times
 * too small) to show that the bounds matter. */
RAID_F64_FN RaidU64 raidF64LogFastTry(RaidU64 x, int base, int drop, int *sure)
{
    RaidU64 vh, vl, err;
    int f, neg;
    raidF64LogFastValue(x, &vh, &vl, &f, &err, &neg);
    return raidF64LogFastRound(vh, vl, f, err >> drop, neg, base, sure);
}

/* Where the fast path of log1p applies: 2^-53 <= |x| < 1 and x < 2^53 (NaNs, infinities, x <= -1, tiny |x|
 * and x >= 2^53 go to the 128-bit path). */
RAID_F64_FN int raidF64Log1pFastApplies(RaidU64 x)
{
    const RaidU64 ax = x & ~RAID_F64_SIGN;
    return ax >= ((RaidU64)(1023 - 53) << 52) && (x >> 63 ? ax < RAID_F64_LOG_ONE : ax < ((RaidU64)1076 << 52));
}

/* The fast path's value of log1p x where raidF64Log1pFastApplies, as raidF64LogFastValue's. For |x| <= 2^-9,
 * z = x (the near-1 case of raidF64LogFastValue, with a^2/2 and a 2^64 truncated); else y = 1 + x exactly as
 * the integer (1 + x) 2^(1075 - be) < 2^62, reduced as ln's x but with its significand's 11 bits below the
 * table's 53 kept: z = z_53 + C'_i (those bits) 2^-74, exact as a 2^74 in 66 bits, split as a 2^74 = ah 2^11 +
 * al (the header's derivation). */
RAID_F64_FN void raidF64Log1pFastValue(RaidU64 x, RaidU64 *vh, RaidU64 *vl, int *f, RaidU64 *err, int *neg)
{
    const int be = (int)((x >> 52) & 0x7FF);                       /* 970 .. 1075 */
    const RaidU64 sx = (x & RAID_F64_FRAC) | ((RaidU64)1 << 52); /* |x| = sx 2^(be - 1075) */
    RaidU64 hh, hl, ph, pl;
    if (be <= 1014 && (x & ~RAID_F64_SIGN) <= ((RaidU64)(1023 - 9) << 52)) { /* |x| <= 2^-9: z = x */
        const RaidU64 zn = sx << 2;                                         /* a = zn 2^-(63 + sh) */
        const int sh = 1014 - be;                                           /* 0 .. 44 */
        raidF64Mul128(zn, zn, &hh, &hl);
        hl = (hl >> sh) | ((hh << 1) << (63 - sh)); /* zn^2 2^-sh = a^2/2 in units 2^-(127 + sh), floor */
        hh >>= sh;
        *neg = (int)(x >> 63);
        raidF64LogFastP(*neg, (zn << 1) >> sh, zn << 9, sh, zn, 0, hh, hl, vh, vl);
        *f = 127 + sh;
        *err = RAID_F64_LOGF_ERRB(sh);
        return;
    }
    const RaidU64 one = (RaidU64)1 << (1075 - be);       /* 2^-9 < |x| < 2^53: 1075 - be in [0, 61] */
    const RaidU64 y = x >> 63 ? one - sx : one + sx;      /* (1 + x) 2^(1075 - be), exact, in [1, 2^62) */
    const int c = RAID_CLZ64(y);
    const RaidU64 m64 = y << c, m = m64 >> 11;          /* 1 + x = m64 2^(be - 1012 - c - 63) */
    const int i = (int)((((m >> 43) & 0x1FF) + 1) >> 1); /* never 0 or 256 with k + d_i = 0: |x| > 2^-9 */
    const int k = be - 1012 - c + (i >= RAID_F64_LOG_HALF);
    const RaidU64 ci = raidF64LogFastT[3 * i], d = ci * (m64 & 0x7FF);
    const RaidU64 zs = ci * m - ((RaidU64)1 << 63); /* (C'_i m - 2^63): z_53 2^63 */
    const RaidU64 zss = (RaidU64)0 - (zs >> 63);
    RaidU64 zl = (zs << 11) + d; /* z 2^74 = z_53 2^74 + d, 66 bits with the sign */
    RaidU64 zh = (((zs ^ zss) >> 53) ^ zss) + (zl < d);
    const int zneg = (int)(zh >> 63);
    if (zneg) {
        zl = ~zl + 1;
        zh = ~zh + (zl == 0);
    }
    const RaidU64 ah = (zh << 53) | (zl >> 11), al = zl & 0x7FF; /* a 2^74 = ah 2^11 + al, ah < 2^54.2 */
    RaidU64 ch, cl;
    raidF64Mul128(ah, ah, &hh, &hl); /* a^2/2 2^127 = ah^2 + 2 ah al 2^-11 + al^2 2^-22: the last dropped */
    raidF64Mul128(ah, al << 1, &ch, &cl);
    cl = (cl >> 11) | (ch << 53);
    hl += cl;
    hh += (ch >> 11) + (hl < cl);
    raidF64LogFastP(zneg, (ah << 1) | (al >> 10), (ah << 9) | (al >> 2), 0, ah, al << 53, hh, hl, &ph, &pl);
    raidF64LogFastSum(k, i, zneg, ph, pl, 10, vh, vl, neg);
    *f = 117;
    *err = RAID_F64_LOGF_ERRA;
}

/* The fast path of log1p x where raidF64Log1pFastApplies, as raidF64LogFastTry. */
RAID_F64_FN RaidU64 raidF64Log1pFastTry(RaidU64 x, int drop, int *sure)
{
    RaidU64 vh, vl, err;
    int f, neg;
    raidF64Log1pFastValue(x, &vh, &vl, &f, &err, &neg);
    return raidF64LogFastRound(vh, vl, f, err >> drop, neg, 0, sure);
}

/* log_b x (base 0: e, 2: 2, 10: 10) correctly rounded: the fast path, and where its rounding test fails (none
 * of 10^7 random inputs of each kind; about half of the worst cases) the 128-bit path; *sure as
 * raidF64LogBaseWide's. The exact cases log2(2^k) = k and log10(10^k) = k come out of the fast path exactly
 * (an integer result lies far from every midpoint). */
RAID_F64_FN RaidU64 raidF64LogBase(RaidU64 x, int base, int *sure)
{
    if (x - 1 < RAID_F64_INF - 1 && x != RAID_F64_LOG_ONE) { /* positive, finite, not 1 */
        const RaidU64 r = raidF64LogFastTry(x, base, 0, sure);
        if (*sure)
            return r;
    }
    return raidF64LogBaseWide(x, base, sure);
}

/* log1p(x) correctly rounded: the fast path for 2^-53 <= |x| < 1 and x < 2^53, else (and where its rounding
 * test fails) the 128-bit path; *sure as raidF64Log1pSureWide's. */
RAID_F64_FN RaidU64 raidF64Log1pSure(RaidU64 x, int *sure)
{
    if (raidF64Log1pFastApplies(x)) {
        const RaidU64 r = raidF64Log1pFastTry(x, 0, sure);
        if (*sure)
            return r;
    }
    return raidF64Log1pSureWide(x, sure);
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
