/*
 * raidFastLog, raidFastLog1p (core/fastlog.h): the correctly rounded log and log1p of kernels/raid_f64_log.h,
 * fast on the host. The integer-word functions cost about 0.35-0.5 us a call; the host's returns (the
 * segmenter's, core/logret.h) and the cpu path of raid_f64_map need them by the million. Here a double-double
 * evaluation in the host's binary64 arithmetic (C's fma from math.h; the project compiles with
 * -ffp-contract=off and without -ffast-math, so every other operation is one correctly rounded IEEE
 * operation in round-to-nearest) gives h + l with a PROVEN error bound, and CORE-MATH's rounding test returns
 * RN(h + l) only when every value within the bound rounds to the same binary64: that binary64 is then the
 * correctly rounded result, which raidF64Log / raidF64Log1p also return; otherwise (about 1 call in 10^4 or
 * fewer; tests/test_fastlog.c counts them) the integer-word function is called. So the bits are those of the
 * kernels for every input, by construction (the proof below) and by test (millions of inputs and every worst
 * case of CORE-MATH's lists, tests/test_fastlog.c, which also shows that a bound too small gives other bits).
 *
 * Method (Tang's table-driven reduction, as CORE-MATH's cr_log fast path, Sibidanov-Zimmermann-Glondu 2022;
 * tables by scripts/gen_fastlog.py, src/core/fastlog_tables.h). u = 2^-53.
 *
 * Series (S): log1p(q) for 2^-53 <= |q| <= 2^-9 (and log(x) as log1p(x - 1) for |x - 1| <= 2^-9, x - 1
 *   exact by Sterbenz's lemma). log1p(q) = q + q^2 (-1/2 + q R(q)), R(q) = sum_{j>=3} (-1)^(j+1) q^(j-3) / j.
 *   q^2 = q2h + q2l exactly (fma; q^2 >= 2^-106 and its error term a multiple of 2^-210: no underflow).
 *   R by Horner with fma on c_j = RN((-1)^(j+1)/j), j = 3..9. Against R9, the sum to j = 9 with exact
 *     coefficients: the last fma's rounding (|R| < 0.3339: half an ulp is 2^-55), c_3's rounding (2^-55),
 *     and the inner steps' errors (below 2^-54) times |q| <= 2^-9: |R - R9| <= rho = 2^-53.99.
 *   p = fl(q R): |p - q R9| <= 2^-9 rho + 2^-64 (|p| < 2^-10.58) <= 2^-62.4.
 *   sh + sl = -1/2 + p exactly (fast two-sum, |p| < 1/2).
 *   q^2 (sh + sl) = th + tl: th = fl(q2h sh), its error exactly by fma, plus fl(q2h sl + q2l sh) (dropping
 *     q2l sl): every rounding and the dropped term below 2^-104 q^2.
 *   h + l0 = q + th exactly (fast two-sum, |th| < |q|), l = fl(l0 + tl): rounding below 2^-105.9 |q|.
 *   The truncation after j = 9: |q|^10 / 10 / (1 - |q|) < 2^-93.3 |q|.
 *   So |h + l - log1p(q)| <= q^2 2^-62.4 + 2^-93.3 |q| + 2^-104 q^2 + 2^-105.9 |q| < 2^-71.39 |q|, and
 *   |log1p(q)| >= |q| (1 - 2^-10): relative error below 2^-71.3 (RAID_FASTLOG_EPS_SERIES = 2^-70 in the test).
 *
 * Table (T): ln(yh + yl) for a double-double yh + yl > 0 (yl = 0 for log; 1 + q exactly by two-sum for
 *   log1p), everywhere else (so |ln(yh + yl)| >= ln(1 + 2^-9) > 2^-9.002 and a bound on the absolute error
 *   is the one to use). yh = 2^e m, m in [RN(sqrt 2)/2, RN(sqrt 2)) from its bits; the entry j = (bits of
 *   m) >> 43 gives r (10 significant bits: z = r m - 1 is a binary64 for every m of the entry, which the
 *   generator checks exactly, so z = fma(r, m, -1) is exact; |z| <= ZMAX = 2^-9.43) and -ln r = l1 + l2
 *   (l1 a multiple of 2^-42, |l1 + l2 + ln r| <= 2^-97). For yl != 0: w = r yl 2^-e, |w| <= 2^-53 (|yl| is
 *   at most half an ulp of yh), computed as wl = fl(r (yl 2^-e)) (2^-e exact: e in [-53, 1000]), to 2^-106;
 *   zh + zt = z + wl exactly (two-sum; |zh| <= ZMAX + 2^-52, |zt| <= 2^-63). Then
 *     ln y = e ln 2 + (l1 + l2) + log1p(zh + eps),  eps = zt + (w - wl),
 *     log1p(zh + eps) = log1p(zh) + eps (1 - zh) + err, |err| <= |eps| zh^2 / (1 - zh) + eps^2 < 2^-81.8,
 *     log1p(zh) = zh - zh^2/2 + zh^3 R9(zh) + trunc, |trunc| < ZMAX'^10 / 10 / (1 - ZMAX') < 2^-97.
 *   zh^2 = z2h + z2l exactly (fma; halving is exact, an underflow costs at most 2^-1075 absolute);
 *   P = R by Horner as in (S) (|zh| < 2^-9: |P - R9(zh)| <= 2^-53.99); z3 = fl(z2h zh), within
 *   2^-51.99 |zh|^3; p3 = fl(z3 P): |p3 - zh^3 R9(zh)| <= |zh|^3 (0.3339 2^-51.99 + 2^-53.99 + 0.3339 2^-53
 *   1.01) < 2^-52.40 |zh|^3 <= 2^-80.69.
 *   A = e ln2_h + l1 exactly (multiples of 2^-42 below 2^11 in magnitude); s1 + t1 = A + zh and
 *   s2 + t2 = s1 - z2h/2 exactly (two-sums); low = ((t1 + t2) + (fl(e ln2_l + l2) + (c - z2l/2))) + p3
 *   with c = fl(zt (1 - zh)) (by fma, to 2^-115): the inner roundings are of sums below 2^-33.9 (3 of
 *   them, 2^-87 each), the last of a sum below 2^-29.8 (2^-83); e (ln2_h + ln2_l - ln 2): 1024 2^-97 = 2^-87.
 *   h + l = s2 + low exactly (fast two-sum: |low| < 2^-29.8 < |s2|).
 *   So |h + l - ln y| < 2^-80.69 + 2^-81.8 + 2^-83 + 3 2^-87 + 2^-87 + 2^-97 + 2^-97 + 2^-106 < 2^-79.9
 *   absolute (RAID_FASTLOG_ERR_TABLE = 2^-78 in the test), a relative error below 2^-70.9 at the smallest
 *   |ln y| this path sees.
 *
 * The rounding test (CORE-MATH's): with E >= 2 E_proven (E = eps |h| for (S), a power-of-two scaling, exact;
 *   E = err for (T)), a = fl(l - E), b = fl(l + E); if RN(h + a) == RN(h + b), return it. The exact f is in
 *   [h + l - E_proven, h + l + E_proven], and a <= l - E + 2^-53 (|l| + E) <= f - h (E - E_proven >=
 *   E_proven > 2^-53 (|l| + E), |l| <= 2^-53 |h|), likewise b >= f - h, so by the monotony of RN,
 *   RN(h + a) <= RN(f) <= RN(h + b): all equal. RN(f) is the correctly rounded result, the fallback's.
 *
 * Special values, subnormal arguments of log, |x| < 2^-53 and x >= 2^1000 for log1p, log(1): the fallback
 * (raidF64LogSpecial and its kin: cheap). Thread-safe, no state.
 *
 * Sources: Tang, ACM TOMS 16(4), 1990; Muller et al., Handbook of Floating-Point Arithmetic (2018), 4.3-4.4
 * (two-sum, fast two-sum, the fma's exact product error); CORE-MATH's src/binary64/log/log.c (the table
 * r m - 1 exact by fma, the rounding test), https://core-math.gitlabpages.inria.fr/.
 */
#include "core/fastlog.h"
#include "core/fastlog_tables.h"
#include "raid_f64_log.h"

#include <math.h>
#include <string.h>

#define SQRT2_BITS 0x3FF6A09E667F3BCDull /* RN(sqrt 2): the table's m are below it, at or above its half */

static inline void two_sum(double a, double b, double *s, double *t)
{
    *s = a + b;
    const double bb = *s - a;
    *t = (a - (*s - bb)) + (b - bb);
}

static inline void fast_two_sum(double a, double b, double *s, double *t) /* |a| >= |b| or a == 0 */
{
    *s = a + b;
    *t = b - (*s - a);
}

/* R(q) = c_3 + c_4 q + ... + c_9 q^6 by Horner (the contract's R9 to rho = 2^-53.99 for |q| <= 2^-9). */
static inline double poly_r(double q)
{
    double p = fastlog_c[6];
    for (int j = 5; j >= 0; j--)
        p = fma(q, p, fastlog_c[j]);
    return p;
}

/* (S): log1p(q) for 2^-53 <= |q| <= 2^-9 as h + l, relative error below 2^-71.3. */
static inline void series(double q, double *h, double *l)
{
    const double q2h = q * q, q2l = fma(q, q, -q2h);
    const double p = q * poly_r(q);
    double sh, sl;
    fast_two_sum(-0.5, p, &sh, &sl);
    const double th = q2h * sh, t0 = fma(q2h, sh, -th);
    const double tl = t0 + fma(q2h, sl, q2l * sh);
    double l0;
    fast_two_sum(q, th, h, &l0);
    *l = l0 + tl;
}

/* (T): ln(yh + yl) for yh a positive normal binary64 (and yl = 0, or |yl| <= ulp(yh)/2 with yh's exponent in
 * [-53, 1000]) as h + l, absolute error below 2^-79.9, for |ln(yh + yl)| > 2^-9.002. */
static inline void table(double yh, double yl, double *h, double *l)
{
    uint64_t b;
    memcpy(&b, &yh, sizeof b);
    int e = (int)(b >> 52) - 1023;
    uint64_t mb = (b & 0x000FFFFFFFFFFFFFull) | 0x3FF0000000000000ull;
    if (mb >= SQRT2_BITS) {
        mb -= 1ull << 52;
        e++;
    }
    const double *t = fastlog_tab[(mb >> 43) - RAID_FASTLOG_J0];
    double m;
    memcpy(&m, &mb, sizeof m);
    const double z = fma(t[0], m, -1.0); /* exact (the generator's check) */
    double zh = z, zt = 0;
    if (yl != 0) {
        const uint64_t sb = (uint64_t)(1023 - e) << 52; /* 2^-e */
        double s;
        memcpy(&s, &sb, sizeof s);
        two_sum(z, t[0] * (yl * s), &zh, &zt);
    }
    const double z2h = zh * zh, z2l = fma(zh, zh, -z2h);
    const double p3 = (z2h * zh) * poly_r(zh);
    const double ee = (double)e;
    const double a = fma(ee, fastlog_ln2_h, t[1]); /* exact */
    double s1, t1, s2, t2;
    two_sum(a, zh, &s1, &t1);
    two_sum(s1, -0.5 * z2h, &s2, &t2);
    const double c = fma(-zt, zh, zt);
    const double low = ((t1 + t2) + (fma(ee, fastlog_ln2_l, t[2]) + (c - 0.5 * z2l))) + p3;
    fast_two_sum(s2, low, h, l);
}

/* CORE-MATH's rounding test, e (absolute) at least twice the proven error of h + l: 1 with *r = RN(h + l - e)
 * when it equals RN(h + l + e), which is then the rounding of the exact value (the contract's argument). */
static inline int rounds_alike(double h, double l, double e, double *r)
{
    const double lo = h + (l - e), hi = h + (l + e);
    if (lo != hi)
        return 0;
    *r = lo;
    return 1;
}

static inline int log_try(double x, double eps_series, double err_table, double *r, double *ph, double *pl)
{
    double h = 0, l = 0;
    int ok = 0;
    if (x >= 0x1p-1022 && x <= 0x1.fffffffffffffp+1023) { /* positive, normal, finite */
        const double q = x - 1.0;                       /* exact where |q| <= 2^-9 */
        if (fabs(q) <= 0x1p-9) {
            if (q != 0) { /* log(1) = +0: the fallback's special value */
                series(q, &h, &l);
                ok = rounds_alike(h, l, eps_series * fabs(h), r);
            }
        } else {
            table(x, 0.0, &h, &l);
            ok = rounds_alike(h, l, err_table, r);
        }
    }
    if (ph)
        *ph = h;
    if (pl)
        *pl = l;
    return ok;
}

static inline int log1p_try(double x, double eps_series, double err_table, double *r, double *ph, double *pl)
{
    double h = 0, l = 0;
    int ok = 0;
    const double ax = fabs(x);
    if (x > -1.0 && ax >= 0x1p-53 && x < 0x1p1000) { /* NaN fails every comparison */
        if (ax <= 0x1p-9) {
            series(x, &h, &l);
            ok = rounds_alike(h, l, eps_series * fabs(h), r);
        } else {
            double yh, yl;
            two_sum(1.0, x, &yh, &yl);
            table(yh, yl, &h, &l);
            ok = rounds_alike(h, l, err_table, r);
        }
    }
    if (ph)
        *ph = h;
    if (pl)
        *pl = l;
    return ok;
}

int raidFastLogTry(double x, double eps_series, double err_table, double *r, double *h, double *l)
{
    return log_try(x, eps_series, err_table, r, h, l);
}

int raidFastLog1pTry(double x, double eps_series, double err_table, double *r, double *h, double *l)
{
    return log1p_try(x, eps_series, err_table, r, h, l);
}

uint64_t raidFastLogBits(uint64_t x)
{
    double v, r;
    memcpy(&v, &x, sizeof v);
    if (!log_try(v, RAID_FASTLOG_EPS_SERIES, RAID_FASTLOG_ERR_TABLE, &r, NULL, NULL))
        return raidF64Log(x);
    uint64_t b;
    memcpy(&b, &r, sizeof b);
    return b;
}

uint64_t raidFastLog1pBits(uint64_t x)
{
    double v, r;
    memcpy(&v, &x, sizeof v);
    if (!log1p_try(v, RAID_FASTLOG_EPS_SERIES, RAID_FASTLOG_ERR_TABLE, &r, NULL, NULL))
        return raidF64Log1p(x);
    uint64_t b;
    memcpy(&b, &r, sizeof b);
    return b;
}

double raidFastLog(double x)
{
    double r;
    if (log_try(x, RAID_FASTLOG_EPS_SERIES, RAID_FASTLOG_ERR_TABLE, &r, NULL, NULL))
        return r;
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    b = raidF64Log(b);
    memcpy(&r, &b, sizeof r);
    return r;
}

double raidFastLog1p(double x)
{
    double r;
    if (log1p_try(x, RAID_FASTLOG_EPS_SERIES, RAID_FASTLOG_ERR_TABLE, &r, NULL, NULL))
        return r;
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    b = raidF64Log1p(b);
    memcpy(&r, &b, sizeof r);
    return r;
}
