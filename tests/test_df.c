/*
 * Host unit tests of the double-float building blocks in kernels/raid_df.h.
 *
 * The library and the tests are compiled with -ffp-contract=off and without -ffast-math; on x86-64 the
 * float arithmetic is SSE, i.e. IEEE 754 binary32 with round-to-nearest-even (FLT_EVAL_METHOD == 0), so
 * the host executes exactly the operation sequence the kernels specify.
 *
 * References. Nothing here trusts a float computation of the quantity under test:
 *   - exact_sum(): the exact sum of a few binary32 values (or of exact products of two binary32 values,
 *     which have at most 48 significant bits and so are binary64 numbers) is kept as a non-overlapping
 *     expansion of binary64 numbers (Shewchuk 1997, Grow-Expansion with zero elimination). Each step is
 *     a binary64 TwoSum, which is error-free for any binary64 operands barring overflow; all our values
 *     are below 2^130 in magnitude, so the expansion represents the sum EXACTLY. "The sum is zero" is
 *     then an exact test (the expansion is empty), and the value is approximated by adding the
 *     components from the smallest up, which is accurate to a few binary64 ulps (relative 2^-50), far
 *     below the u^2 = 2^-48 scale of the bounds being checked.
 *   - TwoProd: a*b of two binary32 numbers has at most 48 significant bits, so (double)a * b is exact, and
 *     (double)a * b - p is exact in double by Sterbenz's lemma (p = RN(a*b) is within a factor 2 of a*b).
 *   - the 4/3 powers and the host's cbrt: x = hi + lo with the exponent of lo at most 40 below that of hi
 *     spans at most 64 bits, so (long double)hi + lo is exact in the x87 80-bit format (64-bit
 *     significand); cbrtl and powl are accurate to a few long-double ulps (2^-62), and the rounding of 4/3
 *     in powl adds a relative error of at most |ln x| * 2^-64 < 2^-57 for |x| <= 2^120: all far below the
 *     errors being checked.
 *
 * u = 2^-24 is the unit roundoff of binary32. Underflow is outside every bound of raid_df.h, so the random
 * data keep every intermediate (including the low parts, ~u^2 of the result) in the normal range.
 */
#define _DEFAULT_SOURCE
#include "support.h"
#include "raid_df.h"
#include "core/cbrt.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if !defined(FLT_EVAL_METHOD) || FLT_EVAL_METHOD != 0
#error "these tests need float arithmetic evaluated in binary32 (FLT_EVAL_METHOD == 0, e.g. x86-64 SSE)"
#endif
#if LDBL_MANT_DIG < 64
#error "the cbrt and 4/3 power references need a 64-bit long double significand (x86 80-bit extended)"
#endif

#define U 0x1p-24
#define U2 0x1p-48

/* ---- deterministic generator (splitmix64) ---- */
static uint64_t rng = 0x5eed2024ULL;
static uint64_t next_u64(void)
{
    uint64_t z = (rng += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
static int rnd_int(int lo, int hi) { return lo + (int)(next_u64() % (uint64_t)(hi - lo + 1)); }
static int rnd_sign(void) { return (next_u64() & 1) ? -1 : 1; }

/* A 24-bit significand in [2^23, 2^24): mostly random, sometimes adversarial (a power of two, all ones,
 * 2^23 + 1, or a short significand whose low bits are zero, which makes ties and exact cases). */
static float rnd_mant(void)
{
    uint32_t m;
    switch (next_u64() % 8) {
    case 0: m = 1u << 23; break;
    case 1: m = (1u << 24) - 1; break;
    case 2: m = (1u << 23) + 1; break;
    case 3: m = (1u << 23) | ((uint32_t)next_u64() & 0x7ff000u); break;
    default: m = (1u << 23) | ((uint32_t)next_u64() & 0x7fffffu); break;
    }
    return (float)m;
}

/* A float with binary exponent e (value in [2^e, 2^(e+1))), random sign. */
static float rnd_float_e(int e) { return (float)rnd_sign() * ldexpf(rnd_mant(), e - 23); }
static float rnd_float(int emin, int emax) { return rnd_float_e(rnd_int(emin, emax)); }

/* A normalised double-float (hi = RN(hi + lo)) with exponent e: lo is drawn at 1 to 2^-gapmax of
 * ulp(hi), sometimes zero, sometimes exactly +-ulp(hi)/2 (a tie, resolved by the renormalisation). */
static RaidDf rnd_df_e(int e, int gapmax)
{
    float hi = rnd_float_e(e), lo;
    int k = (int)(next_u64() % 16);
    if (k == 0)
        lo = 0.0f;
    else if (k == 1)
        lo = (float)rnd_sign() * ldexpf(1.0f, e - 24);
    else
        lo = (float)rnd_sign() * ldexpf(rnd_mant(), e - 23 - 24 - rnd_int(0, gapmax));
    return raidFastTwoSum(hi, lo); /* |hi| >= |lo|: exact, and hi = RN(hi + lo) afterwards */
}

/* ---- exact sums as binary64 expansions ---- */
#define EXP_CAP 320
typedef struct expansion {
    int n;
    double c[EXP_CAP]; /* non-overlapping, increasing magnitude, no zeros */
} expansion;

static void exp_add(expansion *x, double b)
{
    double q = b;
    int m = 0;
    for (int i = 0; i < x->n; i++) {
        double s = q + x->c[i];
        double bb = s - q;
        double e = (q - (s - bb)) + (x->c[i] - bb); /* binary64 TwoSum: q + c[i] = s + e exactly */
        q = s;
        if (e != 0.0)
            x->c[m++] = e;
    }
    if (q != 0.0)
        x->c[m++] = q;
    x->n = m;
    assert_true(x->n < EXP_CAP);
}

static double exp_value(const expansion *x)
{
    double v = 0.0;
    for (int i = 0; i < x->n; i++)
        v += x->c[i];
    return v;
}

/* Sum of n terms, exact as an expansion; returns a binary64 approximation (relative error ~2^-50). */
static double exact_sum(const double *t, int n, int *is_zero)
{
    expansion x;
    x.n = 0;
    for (int i = 0; i < n; i++)
        exp_add(&x, t[i]);
    if (is_zero)
        *is_zero = x.n == 0;
    return exp_value(&x);
}

/* Relative error |(r.hi + r.lo) - sum(t)| / |sum(t)| with the exact value given by n terms t;
 * an exact zero must be reproduced exactly (returns +inf otherwise). */
static double rel_err(RaidDf r, const double *t, int n)
{
    double d[160];
    assert_true(n + 2 <= 160);
    int zero_ref, zero_err;
    double ref = exact_sum(t, n, &zero_ref);
    d[0] = r.hi;
    d[1] = r.lo;
    for (int i = 0; i < n; i++)
        d[i + 2] = -t[i];
    double err = exact_sum(d, n + 2, &zero_err);
    if (zero_err)
        return 0.0;
    if (zero_ref)
        return INFINITY;
    return fabs(err) / fabs(ref);
}

/* |lo| <= ulp(hi)/2, i.e. hi == RN(hi + lo): the result is a normalised double-float. */
static int is_normalised(RaidDf r)
{
    if (r.hi == 0.0f)
        return r.lo == 0.0f;
    RaidDf s = raidFastTwoSum(r.hi, r.lo);
    return s.hi == r.hi && s.lo == r.lo;
}

static void report(const char *what, double maxrel, double bound_u2, long n)
{
    printf("# %-14s %8ld cases, max relative error %.4f u^2 (bound %.4g u^2)\n", what, n, maxrel / U2,
           bound_u2);
}

/* ================================ TwoSum ================================ */

/* s + e == a + b exactly, s == RN(a + b) bit for bit (including the sign of zero), e tiny. */
static void check_two_sum(float a, float b)
{
    RaidDf r = raidTwoSum(a, b);
    float s = a + b;
    assert_true(isfinite(r.hi) && isfinite(r.lo));
    assert_memory_equal(&r.hi, &s, sizeof s);
    double t[4] = {r.hi, r.lo, -(double)a, -(double)b};
    int zero;
    exact_sum(t, 4, &zero);
    if (!zero)
        fail_msg("TwoSum(%a, %a) = (%a, %a) is not exact", (double)a, (double)b, (double)r.hi, (double)r.lo);
    assert_true(is_normalised(r));
}

static void test_two_sum_cases(void **state)
{
    (void)state;
    /* ties to even: 1 + 2^-24 is halfway between 1 and 1 + 2^-23 and rounds to 1 (even) */
    RaidDf r = raidTwoSum(1.0f, 0x1p-24f);
    assert_true(r.hi == 1.0f && r.lo == 0x1p-24f);
    /* (1 + 2^-23) + 2^-24 is halfway and rounds up to the even 1 + 2^-22; the error is negative */
    r = raidTwoSum(1.0f + 0x1p-23f, 0x1p-24f);
    assert_true(r.hi == 1.0f + 0x1p-22f && r.lo == -0x1p-24f);
    r = raidTwoSum(-0x1p-24f, -(1.0f + 0x1p-23f)); /* |b| > |a|, mirrored */
    assert_true(r.hi == -(1.0f + 0x1p-22f) && r.lo == 0x1p-24f);
    r = raidTwoSum(0x1p24f + 2.0f, 1.0f);
    assert_true(r.hi == 0x1p24f + 4.0f && r.lo == -1.0f);
    /* huge exponent gaps, either order */
    r = raidTwoSum(0x1p-100f, 0x1p100f);
    assert_true(r.hi == 0x1p100f && r.lo == 0x1p-100f);
    r = raidTwoSum(-0x1p120f, 0x1.fffffep-120f);
    assert_true(r.hi == -0x1p120f && r.lo == 0x1.fffffep-120f);
    /* opposite signs cancelling exactly, and the sign of a zero sum */
    r = raidTwoSum(1.5f, -1.5f);
    assert_true(r.hi == 0.0f && !signbit(r.hi) && r.lo == 0.0f);
    r = raidTwoSum(-0.0f, -0.0f);
    assert_true(r.hi == 0.0f && signbit(r.hi) && r.lo == 0.0f);
    r = raidTwoSum(0.0f, -0.0f);
    assert_true(r.hi == 0.0f && !signbit(r.hi) && r.lo == 0.0f);
    r = raidTwoSum(-0.0f, 3.0f);
    assert_true(r.hi == 3.0f && r.lo == 0.0f);
    /* near the top of the range: FLT_MAX - 2^103 is a tie between FLT_MAX (odd) and FLT_MAX - 2^104 */
    r = raidTwoSum(FLT_MAX, -0x1p103f);
    assert_true(r.hi == FLT_MAX - 0x1p104f && r.lo == 0x1p103f);
    check_two_sum(FLT_MAX, -0x1p103f);
    check_two_sum(-0x1p103f, FLT_MAX);
    check_two_sum(FLT_MAX, -FLT_MAX);
    check_two_sum(FLT_MAX / 2, FLT_MAX / 2);
    check_two_sum(FLT_MAX / 2, 0x1.fffffcp126f);
    check_two_sum(-FLT_MAX, 0x1p-149f);
    /* subnormals are exact too */
    check_two_sum(FLT_MIN, 0x1p-149f);
    check_two_sum(0x1p-149f, -FLT_MIN);
    float specials[] = {0.0f, -0.0f, 1.0f, -1.0f, 0x1p-24f, -0x1p-24f, 0x1p-25f, 1.0f + 0x1p-23f,
                        0x1.fffffep0f, -0x1.fffffep-1f, 3.0f, 0x1p24f, 0x1p24f + 2.0f, 0x1p-126f,
                        0x1p126f, -0x1.fffffep126f, 0x1.fffffep125f, 0x1p-149f};
    size_t ns = sizeof specials / sizeof specials[0];
    for (size_t i = 0; i < ns; i++)
        for (size_t j = 0; j < ns; j++)
            check_two_sum(specials[i], specials[j]);
}

static void test_two_sum_random(void **state)
{
    (void)state;
    for (long i = 0; i < 400000; i++) {
        float a, b;
        int ea = rnd_int(-120, 120);
        switch (i % 5) {
        case 0: /* any exponents: gaps up to 240 */
            a = rnd_float_e(ea);
            b = rnd_float(-120, 120);
            break;
        case 1: /* close exponents, opposite signs: cancellation */
            a = rnd_float_e(ea);
            b = -copysignf(rnd_float_e(ea + rnd_int(-1, 1)), a);
            break;
        case 2: /* gap of 20..30 bits: the error is the whole of the smaller operand or a part of it */
            a = rnd_float_e(ea);
            b = rnd_float_e(ea - rnd_int(20, 30));
            break;
        case 3: /* near FLT_MAX / 2 = 2^127: |a + b| < 1.5 * 2^127 stays finite */
            a = rnd_float_e(126);
            b = rnd_float_e(rnd_int(100, 125));
            break;
        default: /* |b| > |a| on purpose */
            a = rnd_float_e(ea - rnd_int(0, 40));
            b = rnd_float_e(ea);
            break;
        }
        if (next_u64() & 1) {
            float t = a;
            a = b;
            b = t;
        }
        check_two_sum(a, b);
    }
}

/* ================================ Fast2Sum ================================ */

static void test_fast_two_sum(void **state)
{
    (void)state;
    RaidDf r = raidFastTwoSum(1.0f + 0x1p-23f, 0x1p-24f);
    assert_true(r.hi == 1.0f + 0x1p-22f && r.lo == -0x1p-24f);
    r = raidFastTwoSum(2.0f, -2.0f);
    assert_true(r.hi == 0.0f && r.lo == 0.0f);
    r = raidFastTwoSum(0x1p100f, -0x1p-100f);
    assert_true(r.hi == 0x1p100f && r.lo == -0x1p-100f);
    r = raidFastTwoSum(FLT_MAX, -0x1p103f);
    assert_true(r.hi == FLT_MAX - 0x1p104f && r.lo == 0x1p103f);
    for (long i = 0; i < 300000; i++) {
        int ea = rnd_int(-100, 126);
        float a = rnd_float_e(ea);
        float b = (i % 3 == 0) ? -copysignf(rnd_float_e(ea), a) : rnd_float_e(ea - rnd_int(0, 60));
        if (fabsf(b) > fabsf(a)) {
            float t = a;
            a = b;
            b = t;
        }
        if (ea == 126 && signbit(a) == signbit(b))
            b = -b; /* keep a + b finite */
        r = raidFastTwoSum(a, b);
        double t[4] = {r.hi, r.lo, -(double)a, -(double)b};
        int zero;
        exact_sum(t, 4, &zero);
        if (!zero || r.hi != a + b)
            fail_msg("Fast2Sum(%a, %a) = (%a, %a) is not exact", (double)a, (double)b, (double)r.hi,
                     (double)r.lo);
    }
}

/* ================================ TwoProd ================================ */

/* p == RN(a*b) and e == a*b - p exactly. (double)a*b is exact (<= 48 significant bits); P - p is exact in
 * double by Sterbenz's lemma since p = RN(P) lies within a factor 2 of P. */
static void check_two_prod(float a, float b)
{
    RaidDf r = raidTwoProd(a, b);
    double P = (double)a * (double)b;
    assert_true(r.hi == a * b);
    double low = P - (double)r.hi;
    if ((double)r.lo != low || (double)r.hi + (double)r.lo != P)
        fail_msg("TwoProd(%a, %a) = (%a, %a), exact product %a", (double)a, (double)b, (double)r.hi,
                 (double)r.lo, P);
}

static void test_two_prod_cases(void **state)
{
    (void)state;
    /* (1 + 2^-12)^2 = 1 + 2^-11 + 2^-24: the low part is exactly half an ulp of 1, ties to even */
    RaidDf r = raidTwoProd(1.0f + 0x1p-12f, 1.0f + 0x1p-12f);
    assert_true(r.hi == 1.0f + 0x1p-11f && r.lo == 0x1p-24f);
    /* (2^12 + 1)^2 = 2^24 + 2^13 + 1: again exactly half an ulp (ulp = 2 at 2^24), rounds to even */
    r = raidTwoProd(4097.0f, 4097.0f);
    assert_true(r.hi == 16785408.0f && r.lo == 1.0f);
    /* (1 + 2^-23) * 1.5 = 1.5 + 2^-23 + 2^-24: a tie whose even neighbour is above: the error is negative */
    r = raidTwoProd(1.0f + 0x1p-23f, 1.5f);
    assert_true(r.hi == 1.5f + 0x1p-22f && r.lo == -0x1p-24f);
    /* (1 + 2^-23)^2 = 1 + 2^-22 + 2^-46 */
    r = raidTwoProd(1.0f + 0x1p-23f, 1.0f + 0x1p-23f);
    assert_true(r.hi == 1.0f + 0x1p-22f && r.lo == 0x1p-46f);
    /* (2^24 - 1)^2 = 2^48 - 2^25 + 1 */
    r = raidTwoProd(16777215.0f, 16777215.0f);
    assert_true(r.hi == 0x1p48f - 0x1p25f && r.lo == 1.0f);
    /* (1 - 2^-24)^2 = 1 - 2^-23 + 2^-48 */
    r = raidTwoProd(0x1.fffffep-1f, 0x1.fffffep-1f);
    assert_true(r.hi == 1.0f - 0x1p-23f && r.lo == 0x1p-48f);
    /* powers of two and short significands: exact products, zero error */
    r = raidTwoProd(0x1p-60f, 0x1p70f);
    assert_true(r.hi == 0x1p10f && r.lo == 0.0f);
    r = raidTwoProd(-3.0f, 0x1p-40f);
    assert_true(r.hi == -0x3p-40f && r.lo == 0.0f);
    r = raidTwoProd(0.0f, -5.0f);
    assert_true(r.hi == 0.0f && r.lo == 0.0f);
    float specials[] = {1.0f, -1.0f, 1.0f + 0x1p-23f, 1.0f + 0x1p-12f, 1.5f, 3.0f, 4097.0f, 16777215.0f,
                        0x1.fffffep-1f, -0x1.fffffep-1f, 0x1p-40f, 0x1p40f, 0x1.555556p-2f, 0x1.99999ap-4f,
                        -0x1.6a09e6p0f};
    size_t ns = sizeof specials / sizeof specials[0];
    for (size_t i = 0; i < ns; i++)
        for (size_t j = 0; j < ns; j++)
            check_two_prod(specials[i], specials[j]);
}

static void test_two_prod_random(void **state)
{
    (void)state;
    /* products in [2^-80, 2^84]: the low part (>= 2^-24 of the product, or zero) stays normal */
    for (long i = 0; i < 400000; i++)
        check_two_prod(rnd_float(-40, 40), rnd_float(-40, 40));
    /* near the top of the range: a product just below FLT_MAX */
    for (long i = 0; i < 10000; i++)
        check_two_prod(rnd_float_e(63), rnd_float_e(63));
}

/* ================================ raidDfAdd ================================ */

/* One sum r = x + y of an addition under test: its relative error (tracked in *maxrel) within bound u^2 and
 * r normalised, or the test fails naming the operation. */
static void check_df_sum(const char *name, RaidDf r, RaidDf x, RaidDf y, double bound, double *maxrel)
{
    double t[4] = {x.hi, x.lo, y.hi, y.lo};
    double rel = rel_err(r, t, 4);
    if (rel > *maxrel)
        *maxrel = rel;
    if (!(rel <= bound * U2) || !is_normalised(r))
        fail_msg("%s((%a, %a), (%a, %a)) = (%a, %a): relative error %.6g u^2 > %g u^2 or not normalised", name,
                 (double)x.hi, (double)x.lo, (double)y.hi, (double)y.lo, (double)r.hi, (double)r.lo, rel / U2, bound);
}

static void test_df_add(void **state)
{
    (void)state;
    double maxrel = 0.0;
    long n = 1000000;
    for (long i = 0; i < n; i++) {
        int ex = rnd_int(-30, 30), ey;
        RaidDf x = rnd_df_e(ex, 30), y;
        switch (i % 6) {
        case 0: /* independent */
            y = rnd_df_e(rnd_int(-30, 30), 30);
            break;
        case 1: /* opposite signs, same or adjacent binade: heavy cancellation of the high parts */
            ey = ex + rnd_int(-1, 1);
            y = rnd_df_e(ey, 30);
            if (signbit(y.hi) == signbit(x.hi))
                y = raidDfMake(-y.hi, -y.lo);
            break;
        case 2: /* y.hi = -x.hi up to a few ulps: the result is made of the low parts */
        {
            float h = -x.hi;
            for (int k = rnd_int(-3, 3); k > 0; k--)
                h = nextafterf(h, INFINITY);
            for (int k = rnd_int(-3, 3); k < 0; k++)
                h = nextafterf(h, -INFINITY);
            float lo = (float)rnd_sign() * ldexpf(rnd_mant(), ex - 23 - 24 - rnd_int(0, 20));
            y = raidFastTwoSum(h, lo);
            break;
        }
        case 3: /* y.hi = -x.hi exactly: the result is x.lo + y.lo */
            y = raidFastTwoSum(-x.hi, (float)rnd_sign() * ldexpf(rnd_mant(), ex - 23 - 24 - rnd_int(0, 10)));
            break;
        case 4: /* different magnitudes, any signs */
            y = rnd_df_e(ex - rnd_int(0, 60), 30);
            break;
        default: /* same magnitude, same sign, low parts of opposite signs */
            y = rnd_df_e(ex, 30);
            y = raidDfMake(copysignf(y.hi, x.hi), -copysignf(y.lo, x.lo));
            y = raidFastTwoSum(y.hi, y.lo);
            break;
        }
        if (next_u64() & 1) {
            RaidDf t = x;
            x = y;
            y = t;
        }
        check_df_sum("raidDfAdd", raidDfAdd(x, y), x, y, 3.0, &maxrel);
    }
    report("df_add", maxrel, 3, n);
}

/* raidDfAddSameSign (SloppyDWPlusDW) on operands of the same sign: any magnitudes, low parts of any
 * signs, nearly equal high parts. */
static void test_df_add_same_sign(void **state)
{
    (void)state;
    double maxrel = 0.0;
    long n = 1000000;
    for (long i = 0; i < n; i++) {
        int ex = rnd_int(-30, 30);
        RaidDf x = rnd_df_e(ex, 30), y;
        switch (i % 3) {
        case 0: y = rnd_df_e(rnd_int(-30, 30), 30); break;
        case 1: y = rnd_df_e(ex - rnd_int(0, 60), 30); break;
        default: y = rnd_df_e(ex, 30); break;
        }
        y = raidDfMake(copysignf(y.hi, x.hi), copysignf(y.lo, y.lo) * (float)((next_u64() & 1) ? 1 : -1));
        y = raidFastTwoSum(y.hi, y.lo);
        check_df_sum("raidDfAddSameSign", raidDfAddSameSign(x, y), x, y, 3.0, &maxrel);
    }
    report("df_add_same_sign", maxrel, 3, n);
}

/* ================================ raidDfAddF ================================ */

static void test_df_add_f(void **state)
{
    (void)state;
    double maxrel = 0.0;
    long n = 400000;
    for (long i = 0; i < n; i++) {
        int ex = rnd_int(-30, 30);
        RaidDf x = rnd_df_e(ex, 30);
        float y;
        switch (i % 4) {
        case 0: y = rnd_float(-30, 30); break;
        case 1: y = -copysignf(rnd_float_e(ex + rnd_int(-1, 1)), x.hi); break; /* cancellation */
        case 2: /* y = -x.hi up to a few ulps */
            y = -x.hi;
            for (int k = rnd_int(0, 4); k > 0; k--)
                y = nextafterf(y, (next_u64() & 1) ? INFINITY : -INFINITY);
            break;
        default: y = rnd_float_e(ex - rnd_int(0, 60)); break;
        }
        RaidDf r = raidDfAddF(x, y);
        double t[3] = {x.hi, x.lo, y};
        double rel = rel_err(r, t, 3);
        if (rel > maxrel)
            maxrel = rel;
        if (!(rel <= 2.0 * U2) || !is_normalised(r))
            fail_msg("raidDfAddF((%a, %a), %a) = (%a, %a): relative error %.6g u^2 > 2 u^2 or not normalised",
                     (double)x.hi, (double)x.lo, (double)y, (double)r.hi, (double)r.lo, rel / U2);
    }
    report("df_add_f", maxrel, 2, n);
}

/* ================================ products ================================ */

static void test_df_mul_f(void **state)
{
    (void)state;
    double maxrel = 0.0;
    long n = 400000;
    for (long i = 0; i < n; i++) {
        RaidDf x = rnd_df_e(rnd_int(-20, 20), 24);
        float y = rnd_float(-20, 20);
        RaidDf r = raidDfMulF(x, y);
        /* x.hi*y and x.lo*y: exact binary64 products of two floats */
        double t[2] = {(double)x.hi * y, (double)x.lo * y};
        double rel = rel_err(r, t, 2);
        if (rel > maxrel)
            maxrel = rel;
        if (!(rel <= 2.0 * U2) || !is_normalised(r))
            fail_msg("raidDfMulF((%a, %a), %a) = (%a, %a): relative error %.6g u^2 > 2 u^2", (double)x.hi,
                     (double)x.lo, (double)y, (double)r.hi, (double)r.lo, rel / U2);
    }
    report("df_mul_f", maxrel, 2, n);
}

static void test_df_mul(void **state)
{
    (void)state;
    double maxrel = 0.0;
    long n = 400000;
    for (long i = 0; i < n; i++) {
        RaidDf x = rnd_df_e(rnd_int(-20, 20), 24);
        RaidDf y = rnd_df_e(rnd_int(-20, 20), 24);
        if (i % 4 == 0) /* squares, as the kernel forms them */
            y = x;
        RaidDf r = raidDfMul(x, y);
        double t[4] = {(double)x.hi * y.hi, (double)x.hi * y.lo, (double)x.lo * y.hi, (double)x.lo * y.lo};
        double rel = rel_err(r, t, 4);
        if (rel > maxrel)
            maxrel = rel;
        if (!(rel <= 5.0 * U2) || !is_normalised(r))
            fail_msg("raidDfMul((%a, %a), (%a, %a)) = (%a, %a): relative error %.6g u^2 > 5 u^2", (double)x.hi,
                     (double)x.lo, (double)y.hi, (double)y.lo, (double)r.hi, (double)r.lo, rel / U2);
    }
    report("df_mul", maxrel, 5, n);
}

/* ================================ raidDfAcc ================================ */

/* Accumulate n terms lazily from zero, renormalise, and return the relative error against the exact sum. */
static double acc_rel_err(const RaidDf *terms, int n, RaidDf *out)
{
    RaidDf acc = raidDfMake(0.0f, 0.0f);
    for (int i = 0; i < n; i++)
        acc = raidDfAcc(acc, terms[i].hi, terms[i].lo);
    RaidDf r = raidDfRenorm(acc);
    double t[128];
    for (int i = 0; i < n; i++) {
        t[2 * i] = terms[i].hi;
        t[2 * i + 1] = terms[i].lo;
    }
    if (out)
        *out = r;
    return rel_err(r, t, 2 * n);
}

/* The documented bound: (n + 2) u^2 (1 + O(nu)); the O(nu) is taken as 4nu. */
static double acc_bound(int n) { return (n + 2) * U2 * (1.0 + 4.0 * n * U); }

static void test_df_acc_random(void **state)
{
    (void)state;
    RaidDf terms[64];
    double maxrel = 0.0;
    long trials = 30000;
    for (long k = 0; k < trials; k++) {
        int n = rnd_int(1, 64);
        int e0 = rnd_int(-20, 20), spread = (int)(k % 4) * 8; /* equal magnitudes up to 24 binades apart */
        for (int i = 0; i < n; i++) {
            RaidDf t = rnd_df_e(e0 - rnd_int(0, spread), 20);
            if (t.hi < 0.0f)
                t = raidDfMake(-t.hi, -t.lo);
            if (k % 5 == 0 && i % 7 == 3)
                t = raidDfMake(0.0f, 0.0f);
            terms[i] = t;
        }
        double rel = acc_rel_err(terms, n, NULL);
        double b = acc_bound(n);
        if (rel / b > maxrel)
            maxrel = rel / b;
        if (!(rel <= b))
            fail_msg("raidDfAcc: %d random terms, relative error %.4g u^2 > %.4g u^2", n, rel / U2, b / U2);
    }
    printf("# df_acc random  %8ld sums, max relative error %.4f of the bound (n + 2) u^2\n", trials, maxrel);
}

/* Adversarial data for the accumulation: first term 1, then n - 1 terms just below u = 2^-24, each
 * chosen greedily among 4096 candidates to maximise the rounding loss of that step of raidDfAcc
 * (measured exactly in double: all values lie within 2^-50 .. 2). Against the earlier lazy form (no
 * renormalisation: acc.hi stays 1 while acc.lo grows to about k u, and each addition to acc.lo rounds
 * away up to (k u) u / 2) this attack reached n^2 u^2 / 4 (cf. Ogita, Rump, Oishi 2005, SIAM J. Sci.
 * Comput. 26, Prop. 4.5: gamma_{n-1}^2 sum|p_i| for Sum2); with renormalisation at every step the loss
 * per step stays O(u^2) and the documented (n + 2) u^2 holds. */
static int acc_adversarial(RaidDf *terms, int n)
{
    RaidDf acc = raidDfMake(0.0f, 0.0f);
    terms[0] = raidDfMake(1.0f, 0.0f);
    acc = raidDfAcc(acc, 1.0f, 0.0f);
    for (int i = 1; i < n; i++) {
        float best = 0x1p-25f;
        double best_loss = -1.0;
        for (int k = 1; k <= 4096; k++) {
            float th = 0x1p-24f - (float)k * 0x1p-48f; /* in (2^-25, 2^-24) */
            RaidDf next = raidDfAcc(acc, th, 0.0f);
            double loss = fabs((((double)acc.hi + (double)acc.lo) + (double)th) - ((double)next.hi + (double)next.lo));
            if (loss > best_loss) {
                best_loss = loss;
                best = th;
            }
        }
        terms[i] = raidDfMake(best, 0.0f);
        acc = raidDfAcc(acc, best, 0.0f);
    }
    return n;
}

static void test_df_acc_adversarial(void **state)
{
    (void)state;
    RaidDf terms[64], r;
    int bad = 0;
    for (int n = 4; n <= 64; n *= 2) {
        acc_adversarial(terms, n);
        double rel = acc_rel_err(terms, n, &r);
        double b = acc_bound(n);
        printf("# df_acc adversarial n = %2d: relative error %7.1f u^2, documented bound (n + 2) u^2 = %4.1f u^2\n",
               n, rel / U2, b / U2);
        if (!(rel <= b)) {
            printf("#   terms: 1, then (th, 0) with th =");
            for (int i = 1; i < n; i++)
                printf(" %a", (double)terms[i].hi);
            printf("\n#   result after raidDfRenorm: (%a, %a)\n", (double)r.hi, (double)r.lo);
            bad++;
        }
    }
    if (bad)
        fail_msg("raidDfAcc: the documented bound (n + 2) u^2 does not hold for %d of 5 adversarial sums "
                 "(terms printed above)", bad);
}

/* raidRcbrt, raidPow23F and raidDfPow43Raw: the 4/3 powers of the realized kernel (no division, no
 * special functions). The errors repeat with period 2^3 in x (the seed's bits scale exactly), so checking
 * every binary32 of [2^-3, 1) checks every normal x of the kernel's range [2^-126, 1]. Errors from long
 * double identities (no powl): w's relative error is (1 + t)^(1/3) - 1 with t = x w^3 - 1, the square of v's
 * is (1 + t)^(2/3) - 1 with t = v^3 / x^2 - 1 (|t| < 2^-20: two terms of the series leave below 2^-62; each t
 * within a few 2^-64). */
static void test_pow43_fma(void **state)
{
    (void)state;
    double worst_w = 0.0, worst_v = 0.0;
    for (uint32_t b = (127u - 3u) << 23; b < (127u << 23); b++) {
        float x;
        memcpy(&x, &b, sizeof x);
        const long double xl = x, w = raidRcbrt(x), v = raidPow23F(x);
        const long double tw = xl * w * w * w - 1.0L, tv = v * v * v / (xl * xl) - 1.0L; /* both below 2^-20 */
        const double ew = fabs((double)(tw / 3.0L - tw * tw / 9.0L)) / U;             /* (1 + tw)^(1/3) - 1 */
        const double ev = fabs((double)(2.0L * tv / 3.0L - tv * tv / 9.0L)) / U;      /* (1 + tv)^(2/3) - 1 */
        worst_w = ew > worst_w ? ew : worst_w;
        worst_v = ev > worst_v ? ev : worst_v;
        if (!(ew <= 1.7) || !(ev <= 3.25))
            fail_msg("x = %a: raidRcbrt %a (%.3f u), raidPow23F %a (its square %.3f u)", (double)x, (double)w, ew,
                     (double)v, ev);
    }
    /* the period: x 2^3k gives w 2^-k and v 2^2k exactly, down to 2^-126 */
    for (int k = -41; k <= 0; k++)
        for (long i = 0; i < 2000; i++) {
            const float x = ldexpf(1.0f + (float)(next_u64() >> 41) * 0x1p-23f, -rnd_int(1, 3)); /* [2^-3, 1) */
            const float xs = ldexpf(x, 3 * k);
            if (raidRcbrt(xs) != ldexpf(raidRcbrt(x), -k) || raidPow23F(xs) != ldexpf(raidPow23F(x), 2 * k))
                fail_msg("raidRcbrt / raidPow23F of %a and of %a 2^%d differ by more than the scale", (double)x,
                         (double)x, 3 * k);
        }
    /* zero and below 2^-126: finite, and the powers vanish (below 2^-160) */
    assert_true(raidPow23F(0.0f) == 0.0f && isfinite(raidRcbrt(0.0f)));
    RaidDf z = raidDfPow43Raw(raidDfMake(0.0f, 0.0f));
    assert_true(z.hi == 0.0f && z.lo == 0.0f);
    for (int e = -149; e < -126; e++) {
        const float x = ldexpf(1.0f, e);
        const float v = raidPow23F(x);
        RaidDf p = raidDfPow43Raw(raidDfMake(x, 0.0f));
        assert_true(isfinite(v) && (double)v * v <= 0x1p-160 && p.hi <= 0x1p-147f && fabsf(p.lo) <= 0x1p-147f);
    }
    /* double-float: x.hi in [2^-57, 1) (x^(4/3) and its low part normal), x.lo up to 4u |x.hi| of either
     * sign (the kernel's products are unnormalised), against powl */
    double worst_d = 0.0;
    for (long i = 0; i < 1000000; i++) {
        const float hi = ldexpf(1.0f + (float)(next_u64() >> 41) * 0x1p-23f, rnd_int(-57, -1));
        const float lo = hi * (float)((int64_t)(next_u64() >> 40) - (1 << 23)) * 0x1p-45f; /* |lo| < 4u hi */
        const RaidDf p = raidDfPow43Raw(raidDfMake(hi, lo));
        const long double t = powl((long double)hi + lo, 4.0L / 3.0L);
        const double rel = (double)(fabsl(((long double)p.hi + p.lo) - t) / t) / U2;
        worst_d = rel > worst_d ? rel : worst_d;
        if (!(rel <= 45.0) || !(p.hi >= 0.0f))
            fail_msg("raidDfPow43Raw((%a, %a)) = (%a, %a): %.2f u^2", (double)hi, (double)lo, (double)p.hi,
                     (double)p.lo, rel);
    }
    printf("# rcbrt %.3f u (bound 1.7), pow23_f squared %.3f u (3.25), df pow43_raw %.2f u^2 (45)\n", worst_w, worst_v,
           worst_d);
}

/* ================================ med3 ================================ */

static int df_same(RaidDf a, RaidDf b) { return a.hi == b.hi && a.lo == b.lo; }

/* Reference median: sort three by (hi, lo) lexicographically (insertion sort). */
static RaidDf ref_med3(RaidDf a, RaidDf b, RaidDf c)
{
    RaidDf v[3] = {a, b, c};
    for (int i = 1; i < 3; i++)
        for (int j = i; j > 0 && (v[j].hi < v[j - 1].hi || (v[j].hi == v[j - 1].hi && v[j].lo < v[j - 1].lo));
             j--) {
            RaidDf t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    return v[1];
}

static void check_med3_all_perms(RaidDf a, RaidDf b, RaidDf c, RaidDf expect)
{
    static const int perm[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    RaidDf v[3] = {a, b, c};
    for (int p = 0; p < 6; p++) {
        RaidDf m = raidDfMed3(v[perm[p][0]], v[perm[p][1]], v[perm[p][2]]);
        if (!df_same(m, expect))
            fail_msg("raidDfMed3 permutation %d%d%d of (%a,%a) (%a,%a) (%a,%a) gave (%a,%a), expected (%a,%a)",
                     perm[p][0], perm[p][1], perm[p][2], (double)a.hi, (double)a.lo, (double)b.hi, (double)b.lo,
                     (double)c.hi, (double)c.lo, (double)m.hi, (double)m.lo, (double)expect.hi,
                     (double)expect.lo);
    }
}

/* raidCbrt, the host's float64 cube root (src/core/cbrt.h), against cbrtl: error in ulps of the true
 * cube root (whose binade gives the ulp; every cube root of a finite binary64 number is normal). Held to
 * the measured 0.75 ulp that src/core/cbrt.h quotes (its analysis gives 1 ulp to first order), and to
 * exact roots where the root is a binary64 number. */
static double cbrt_ulps(double x)
{
    const long double t = cbrtl((long double)x);
    int e;
    frexpl(t, &e);
    return (double)(fabsl((long double)raidCbrt(x) - t) / ldexpl(1.0L, e - 53));
}

static void test_host_cbrt(void **state)
{
    (void)state;
    double worst = 0, at = 0;
    for (int i = 0; i < 2000000; i++) { /* every binade, the subnormals included */
        uint64_t b = next_u64() & 0x7fffffffffffffffULL;
        if ((b >> 52) == 0x7ff)
            continue;
        double x;
        memcpy(&x, &b, sizeof x);
        const double e = cbrt_ulps(x);
        if (e > worst)
            worst = e, at = x;
        if (i % 64 == 0)
            assert_true(raidCbrt(-x) == -raidCbrt(x));
    }
    for (int e = -1074; e <= 1023; e++) { /* powers of two and their neighbours, the scaling thresholds */
        const double x = ldexp(1, e), v[3] = {x, nextafter(x, INFINITY), nextafter(x, 0)};
        for (int j = 0; j < 3; j++)
            if (v[j] > 0 && isfinite(v[j]) && cbrt_ulps(v[j]) > worst)
                worst = cbrt_ulps(v[j]), at = v[j];
    }
    const double edge[] = {DBL_MAX, DBL_MIN, DBL_TRUE_MIN, 0x1p-1000, 0x1p1000, 1e74, 1e-300};
    for (size_t j = 0; j < sizeof edge / sizeof *edge; j++)
        if (cbrt_ulps(edge[j]) > worst)
            worst = cbrt_ulps(edge[j]), at = edge[j];
    printf("# raidCbrt: largest error %.3f ulp (at %.17g); bound 0.75\n", worst, at);
    assert_true(worst <= 0.75);
    for (int64_t k = 1; k <= 1 << 17; k++) /* k^3 < 2^53: exact cubes have exact roots */
        assert_true(raidCbrt((double)(k * k * k)) == (double)k);
    for (int j = -358; j <= 341; j++) /* 2^(3j), subnormal to near the largest: exact */
        assert_true(raidCbrt(ldexp(1, 3 * j)) == ldexp(1, j));
    assert_true(raidCbrt(0.0) == 0 && !signbit(raidCbrt(0.0)) && signbit(raidCbrt(-0.0)));
    assert_true(raidCbrt(INFINITY) == INFINITY && raidCbrt(-INFINITY) == -INFINITY && isnan(raidCbrt(NAN)));
}

/* raidDfRecip against 1 / (hi + lo) in long double (hi + lo exact there: lo at most 2^-24 hi apart). */
static void test_df_recip(void **state)
{
    (void)state;
    double worst = 0;
    for (int i = 0; i < 200000; i++) {
        const float hi = (float)rnd_sign() * ldexpf(rnd_mant(), rnd_int(-60, 60) - 23);
        const float lo = hi * (float)((double)(next_u64() >> 11) * 0x1p-53 - 0.5) * 0x1p-24f;
        const RaidDf x = raidFastTwoSum(hi, lo);
        const RaidDf y = raidDfRecip(x);
        const long double ref = 1.0L / ((long double)x.hi + x.lo);
        const double rel = (double)fabsl(((long double)y.hi + y.lo - ref) / ref);
        if (rel > worst) worst = rel;
    }
    printf("# raidDfRecip: largest relative error %.3g u^2; bound 11 u^2\n", worst / U2);
    assert_true(worst <= 11 * U2);
}

/* raidDfExp against expl on |x| <= 60 (dense in [-1, 1], where the squarings amplify the most, and
 * the whole range). */
static void test_df_exp(void **state)
{
    (void)state;
    double worst = 0;
    for (int i = 0; i < 400000; i++) {
        const double span = (i & 1) ? 60.0 : 1.0;
        const double v = ((double)(next_u64() >> 11) * 0x1p-53 * 2.0 - 1.0) * span;
        const RaidDf x = raidFastTwoSum((float)v, (float)(v - (double)(float)v));
        const RaidDf y = raidDfExp(x);
        const long double ref = expl((long double)x.hi + x.lo);
        const double rel = (double)fabsl(((long double)y.hi + y.lo - ref) / ref);
        if (rel > worst) worst = rel;
    }
    printf("# raidDfExp: largest relative error %.3g u^2; bound 128 u^2\n", worst / U2);
    assert_true(worst <= 128 * U2);
}

static void test_med3(void **state)
{
    (void)state;
    RaidDf lo = raidDfMake(1.0f, -0x1p-30f), mid = raidDfMake(1.0f, 0.0f), hi = raidDfMake(1.0f, 0x1p-30f);
    /* equal hi, different lo */
    check_med3_all_perms(lo, mid, hi, mid);
    /* distinct hi */
    check_med3_all_perms(raidDfMake(0.5f, 0x1p-27f), raidDfMake(2.0f, -0x1p-24f), raidDfMake(3.0f, 0.0f),
                         raidDfMake(2.0f, -0x1p-24f));
    /* ties: two equal, three equal */
    check_med3_all_perms(lo, lo, hi, lo);
    check_med3_all_perms(lo, hi, hi, hi);
    check_med3_all_perms(mid, mid, mid, mid);
    /* zeros (the kernel's padding) */
    RaidDf zero = raidDfMake(0.0f, 0.0f);
    check_med3_all_perms(zero, zero, mid, zero);
    check_med3_all_perms(zero, lo, mid, lo);
    /* the median's low part must come with its high part (no mixing of components) */
    check_med3_all_perms(raidDfMake(2.0f, 0x1p-25f), raidDfMake(2.0f, -0x1p-25f), raidDfMake(1.0f, 0x1p-26f),
                         raidDfMake(2.0f, -0x1p-25f));
    /* random triples drawn from few values to force ties in hi and in lo */
    const float his[] = {0.0f, 0.25f, 1.0f, 1.0f + 0x1p-23f, 3.0f};
    const float los[] = {-0x1p-26f, -0x1p-40f, 0.0f, 0x1p-40f, 0x1p-26f};
    for (int i = 0; i < 20000; i++) {
        RaidDf v[3];
        for (int j = 0; j < 3; j++) {
            float h = his[next_u64() % 5];
            v[j] = raidDfMake(h, h == 0.0f ? 0.0f : los[next_u64() % 5]);
        }
        check_med3_all_perms(v[0], v[1], v[2], ref_med3(v[0], v[1], v[2]));
    }
}

/* The environment the tests rely on: binary32 arithmetic that rounds to nearest even and a true fma. */
static void test_environment(void **state)
{
    (void)state;
    volatile float one = 1.0f, tiny = 0x1p-24f;
    assert_true(one + tiny == 1.0f);                             /* tie to even, no extended precision */
    assert_true((one + 0x1p-23f) + tiny == 1.0f + 0x1p-22f);     /* tie to even, upwards */
    volatile float a = 1.0f + 0x1p-23f;
    assert_true(fmaf(a, a, -(1.0f + 0x1p-22f)) == 0x1p-46f);     /* fma rounds once */
    assert_true(a * a - (1.0f + 0x1p-22f) == 0.0f);              /* no contraction into an fma */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_environment),
        cmocka_unit_test(test_two_sum_cases),
        cmocka_unit_test(test_two_sum_random),
        cmocka_unit_test(test_fast_two_sum),
        cmocka_unit_test(test_two_prod_cases),
        cmocka_unit_test(test_two_prod_random),
        cmocka_unit_test(test_df_add),
        cmocka_unit_test(test_df_add_same_sign),
        cmocka_unit_test(test_df_add_f),
        cmocka_unit_test(test_df_mul_f),
        cmocka_unit_test(test_df_mul),
        cmocka_unit_test(test_df_acc_random),
        cmocka_unit_test(test_df_acc_adversarial),
        cmocka_unit_test(test_pow43_fma),
        cmocka_unit_test(test_host_cbrt),
        cmocka_unit_test(test_df_recip),
        cmocka_unit_test(test_df_exp),
        cmocka_unit_test(test_med3),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
