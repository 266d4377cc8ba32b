/*
 * Every binary64 elementary function of kernels/raid_f64_*.h against MPFR's correctly rounded result, on
 * RAID_F64_CASES random inputs a function (default 10^6) across its whole domain, and the bound each one
 * claims asserted: the correctly rounded functions (log, log2, log10, log1p, exp, exp2, exp10, expm1) must
 * give MPFR's bits on every input; the others (sinh, cosh, tanh, sin, cos, tan, asin, acos, atan, atan2, pow)
 * must be within 1 ulp, and the test prints how many inputs were not correctly rounded and the largest
 * error in ulps, which docs/f64.md records.
 *
 * The oracle: MPFR at 53 bits with the exponent range of binary64 (emin -1073, emax 1024) and
 * mpfr_subnormalize, which gives the correctly rounded binary64 result, subnormals included, in one
 * rounding (MPFR's functions are correctly rounded at any precision: Fousse, Hanrot, Lefevre, Pelissier and
 * Zimmermann, ACM TOMS 33 (2007)). A NaN result is compared as a NaN (MPFR has no payloads or signs of NaN;
 * the special values and NaN bits are the families' own tests against numpy).
 *
 * Inputs, a third each: uniform 64-bit patterns (every exponent, both signs, infinities and NaNs); random
 * significands with exponents in [2^-30, 2^30] and both signs; and each function's hard region (log near 1,
 * exp near its overflow and underflow thresholds, sin, cos, tan near multiples of pi/2 and at huge
 * arguments, asin and acos near +-1, atan2 with ratios near 0 and infinity, pow with x near 1 and large y,
 * results near overflow and underflow, negative x with integer y). The same seed every run.
 */
#include "support.h"
#include "raid_f64.h"
#include "raid_f64_atrig.h"
#include "raid_f64_exp.h"
#include "raid_f64_log.h"
#include "raid_f64_pow.h"
#include "raid_f64_trig.h"

#include <math.h>
#include <mpfr.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int (*MpfrFn1)(mpfr_ptr, mpfr_srcptr, mpfr_rnd_t);
typedef int (*MpfrFn2)(mpfr_ptr, mpfr_srcptr, mpfr_srcptr, mpfr_rnd_t);

typedef struct Fn {
    const char *name;
    RaidU64 (*raid1)(RaidU64);
    RaidU64 (*raid2)(RaidU64, RaidU64);
    MpfrFn1 mpfr1;
    MpfrFn2 mpfr2;
    int correctly_rounded; /* 1: MPFR's bits on every input; 0: within 1 ulp */
    int region;            /* the kind of the function's hard region (hard_input) */
} Fn;

enum { R_NEAR1, R_LOG1P, R_EXP, R_EXP2, R_EXP10, R_EXPM1, R_HYP, R_TANH, R_TRIG, R_UNIT, R_WIDE, R_POW };

static const Fn fns[] = {
    {"log", raidF64Log, NULL, mpfr_log, NULL, 1, R_NEAR1},
    {"log2", raidF64Log2, NULL, mpfr_log2, NULL, 1, R_NEAR1},
    {"log10", raidF64Log10, NULL, mpfr_log10, NULL, 1, R_NEAR1},
    {"log1p", raidF64Log1p, NULL, mpfr_log1p, NULL, 1, R_LOG1P},
    {"exp", raidF64Exp, NULL, mpfr_exp, NULL, 1, R_EXP},
    {"exp2", raidF64Exp2, NULL, mpfr_exp2, NULL, 1, R_EXP2},
    {"exp10", raidF64Exp10, NULL, mpfr_exp10, NULL, 1, R_EXP10},
    {"expm1", raidF64Expm1, NULL, mpfr_expm1, NULL, 1, R_EXPM1},
    {"sinh", raidF64Sinh, NULL, mpfr_sinh, NULL, 0, R_HYP},
    {"cosh", raidF64Cosh, NULL, mpfr_cosh, NULL, 0, R_HYP},
    {"tanh", raidF64Tanh, NULL, mpfr_tanh, NULL, 0, R_TANH},
    {"sin", raidF64Sin, NULL, mpfr_sin, NULL, 0, R_TRIG},
    {"cos", raidF64Cos, NULL, mpfr_cos, NULL, 0, R_TRIG},
    {"tan", raidF64Tan, NULL, mpfr_tan, NULL, 0, R_TRIG},
    {"asin", raidF64Asin, NULL, mpfr_asin, NULL, 0, R_UNIT},
    {"acos", raidF64Acos, NULL, mpfr_acos, NULL, 0, R_UNIT},
    {"atan", raidF64Atan, NULL, mpfr_atan, NULL, 0, R_WIDE},
    {"atan2", NULL, raidF64Atan2, NULL, mpfr_atan2, 0, R_WIDE},
    {"pow", NULL, raidF64Pow, NULL, mpfr_pow, 0, R_POW},
};
#define NFNS (sizeof fns / sizeof *fns)

/* A random binary64 with a random significand, sign and binary exponent in [lo, hi]. */
static double rand_exp(uint64_t *s, int lo, int hi)
{
    const uint64_t r = t_splitmix64(s);
    const double m = 1.0 + (double)(r >> 12) * 0x1p-52;
    const int e = lo + (int)(t_splitmix64(s) % (uint64_t)(hi - lo + 1));
    return (r & 1 ? -1.0 : 1.0) * ldexp(m, e);
}

/* A random value uniform in [a, b]. */
static double rand_in(uint64_t *s, double a, double b) { return a + (b - a) * t_unif(s); }

/* An input of the function's hard region. */
static double hard_input(int region, uint64_t *s)
{
    const double u = t_unif(s);
    switch (region) {
    case R_NEAR1: /* 1 + d, d of any size down to 2^-60, and random positive values */
        return u < 0.7 ? 1.0 + rand_exp(s, -60, -1) : fabs(rand_exp(s, -1074, 1023));
    case R_LOG1P: return u < 0.5 ? rand_exp(s, -60, -1) : rand_in(s, -1.0, 4.0);
    case R_EXP: return u < 0.3 ? rand_in(s, 700.0, 710.0) : u < 0.6 ? rand_in(s, -746.0, -700.0) : rand_in(s, -746.0, 710.0);
    case R_EXP2: return u < 0.5 ? rand_in(s, -1080.0, -1000.0) : rand_in(s, -1080.0, 1025.0);
    case R_EXP10: return rand_in(s, -330.0, 310.0);
    case R_EXPM1: return u < 0.5 ? rand_exp(s, -60, 0) : rand_in(s, -40.0, 710.0);
    case R_HYP: return u < 0.3 ? rand_exp(s, -40, 0) : rand_in(s, -711.0, 711.0);
    case R_TANH: return u < 0.5 ? rand_exp(s, -40, 0) : rand_in(s, -20.0, 20.0);
    case R_TRIG: { /* near k pi/2, small to huge k, and huge arguments */
        if (u < 0.4) {
            const double k = floor(rand_in(s, 0.0, u < 0.2 ? 100.0 : 1e6));
            const double x = k * 1.5707963267948966;
            return nextafter(x, INFINITY) + (double)((int)(t_splitmix64(s) % 9) - 4) * 0x1p-52 * fabs(x);
        }
        return u < 0.7 ? rand_exp(s, 0, 1023) : rand_in(s, -10.0, 10.0);
    }
    case R_UNIT: return u < 0.5 ? (u < 0.25 ? 1.0 : -1.0) - (u < 0.25 ? 1 : -1) * fabs(rand_exp(s, -55, -1)) : rand_in(s, -1.0, 1.0);
    default: return rand_exp(s, -1074, 1023);
    }
}

/* A pair of pow's hard region: x near 1 with |y ln x| up to 710, results near the overflow and underflow
 * thresholds, negative x with integer y. */
static void hard_pow(uint64_t *s, double *x, double *y)
{
    const double u = t_unif(s);
    if (u < 0.35) {
        *x = 1.0 + rand_exp(s, -52, -1);
        *y = rand_in(s, -710.0, 710.0) / log(*x);
    } else if (u < 0.7) {
        *x = fabs(rand_exp(s, -1074, 1023));
        *y = (u < 0.52 ? rand_in(s, 700.0, 710.0) : rand_in(s, -746.0, -700.0)) / log(*x);
    } else {
        *x = -fabs(rand_exp(s, -30, 30));
        *y = floor(rand_in(s, -60.0, 61.0));
    }
}

/* The correctly rounded binary64 of fn at x (and y for atan2 and pow): MPFR at 53 bits, subnormalised. */
static uint64_t oracle(const Fn *f, double x, double y, mpfr_ptr mx, mpfr_ptr my, mpfr_ptr mr)
{
    mpfr_set_d(mx, x, MPFR_RNDN);
    int t;
    if (f->mpfr2) {
        mpfr_set_d(my, y, MPFR_RNDN);
        t = f->mpfr2(mr, mx, my, MPFR_RNDN);
    } else
        t = f->mpfr1(mr, mx, MPFR_RNDN);
    t = mpfr_subnormalize(mr, t, MPFR_RNDN);
    return t_bits_of(mpfr_get_d(mr, MPFR_RNDN));
}

/* The distance in binary64 steps between two finite-or-infinite values of one sign convention. */
static uint64_t ulps(uint64_t a, uint64_t b)
{
    const int64_t ka = (int64_t)(a >> 63 ? ~(a & ~(1ull << 63)) + 1 : a);
    const int64_t kb = (int64_t)(b >> 63 ? ~(b & ~(1ull << 63)) + 1 : b);
    return ka > kb ? (uint64_t)(ka - kb) : (uint64_t)(kb - ka);
}

static int is_nan_bits(uint64_t x) { return (x & 0x7FFFFFFFFFFFFFFFull) > 0x7FF0000000000000ull; }

static void test_against_mpfr(void **state)
{
    (void)state;
    const char *env = getenv("RAID_F64_CASES");
    const long long cases = env ? atoll(env) : 1000000;
    int failed = 0;
    for (size_t k = 0; k < NFNS; k++) {
        const Fn *f = &fns[k];
        unsigned long long not_cr = 0, beyond = 0, maxulp = 0;
        uint64_t worst_x = 0, worst_y = 0;
#pragma omp parallel reduction(+ : not_cr, beyond) reduction(max : maxulp)
        {
            mpfr_set_emin(-1073); /* thread-local in MPFR built with TLS (Debian's) */
            mpfr_set_emax(1024);
            mpfr_t mx, my, mr;
            mpfr_inits2(53, mx, my, mr, (mpfr_ptr)0);
#pragma omp for schedule(static)
            for (long long i = 0; i < cases; i++) {
                uint64_t s = 0x9E3779B97F4A7C15ull * (uint64_t)(i + 1) ^ (uint64_t)k << 56;
                const int kind = (int)(i % 3);
                double x, y = 1.0;
                if (kind == 0)
                    x = t_from_bits(t_splitmix64(&s)), y = t_from_bits(t_splitmix64(&s));
                else if (kind == 1)
                    x = rand_exp(&s, -30, 30), y = rand_exp(&s, -30, 30);
                else if (f->region == R_POW)
                    hard_pow(&s, &x, &y);
                else {
                    x = hard_input(f->region, &s);
                    y = f->raid2 ? (t_unif(&s) < 0.5 ? rand_exp(&s, -1074, 1023) : x * rand_exp(&s, -60, 60)) : 1.0;
                }
                const uint64_t bx = t_bits_of(x), by = t_bits_of(y);
                const uint64_t r = f->raid2 ? f->raid2(bx, by) : f->raid1(bx);
                const uint64_t m = oracle(f, x, y, mx, my, mr);
                if (is_nan_bits(m) || is_nan_bits(r)) {
                    if (is_nan_bits(m) != is_nan_bits(r)) {
                        beyond++;
#pragma omp critical
                        print_error("%s(%a, %a): raid %016llx, MPFR %016llx\n", f->name, x, y, (unsigned long long)r,
                                    (unsigned long long)m);
                    }
                    continue;
                }
                if (r == m)
                    continue;
                not_cr++;
                const uint64_t d = ulps(r, m);
                if (d > maxulp) {
                    maxulp = d;
#pragma omp critical
                    worst_x = bx, worst_y = by;
                }
                if (f->correctly_rounded || d > 1) {
                    beyond++;
#pragma omp critical
                    if (beyond < 4)
                        print_error("%s(%a, %a): raid %a, MPFR %a (%llu ulps)\n", f->name, x, y, t_from_bits(r),
                                    t_from_bits(m), (unsigned long long)d);
                }
            }
            mpfr_clears(mx, my, mr, (mpfr_ptr)0);
        }
        print_message("%-6s %lld inputs: %llu not correctly rounded, max %llu ulp\n", f->name, cases, not_cr, maxulp);
        if (maxulp)
            print_message("       worst input %a, %a\n", t_from_bits(worst_x), t_from_bits(worst_y));
        if (beyond) {
            print_error("%s: %llu inputs beyond its claim (%s)\n", f->name, beyond,
                        f->correctly_rounded ? "correctly rounded" : "1 ulp");
            failed = 1;
        }
    }
    if (failed)
        fail_msg("a function broke its claimed bound against MPFR");
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_against_mpfr)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
