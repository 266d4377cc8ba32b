/*
 * kernels/raid_f64_trig.h (sin, cos, tan on integer words) on the host: the special values; every worst case
 * of CORE-MATH's sin.wc, cos.wc and tan.wc (tests/data/f64_worst/) with the rounding test sure of each;
 * random inputs in the hard ranges (near multiples of pi/2, huge arguments, tiny and subnormal ones, the
 * closest approach of a binary64 to a multiple of pi/2 at 6381956970095103 2^797 and its multiples by
 * powers of two) and over the whole domain against glibc within 1 ulp, with every one of them decided by
 * the rounding test (raidF64TrigEval's sure: no exact case exists but x = 0). The oracle is glibc's long
 * double sinl, cosl, tanl rounded to binary64 (within 1 ulp of the true value: at least 64 bits, then one
 * rounding): glibc's double sin and cos are off by up to hundreds of ulps near multiples of pi/2 of huge
 * arguments (sin(0x1.0fe7a706a83b8p+1014): -0x1.9dea52af3fa74p-50 for -0x1.9dea52af3f9dbp-50, which MPFR,
 * sinl and RAID agree on), so their differences from RAID are only counted and printed. Differences from
 * the oracle are counted and printed, and fail only beyond 1 ulp. tests/python/test_f64_trig.py
 * checks correct rounding against MPFR. RAID_F64_CASES sets the number of random cases per function and
 * range (default 10^5).
 */
#include "support.h"
#include "raid_f64_trig.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const fn_name[3] = {"sin", "cos", "tan"};

static double host_fn(int fn, double x) { return fn == 0 ? sin(x) : fn == 1 ? cos(x) : tan(x); }

/* glibc's long double function, rounded to binary64. */
static double oracle(int fn, double x)
{
    volatile long double lx = x;
    return (double)(fn == 0 ? sinl(lx) : fn == 1 ? cosl(lx) : tanl(lx));
}

static long ulp_diff(uint64_t a, uint64_t b)
{
    const long long ka = a >> 63 ? -(long long)(a & ~(1ull << 63)) : (long long)a;
    const long long kb = b >> 63 ? -(long long)(b & ~(1ull << 63)) : (long long)b;
    return (long)llabs(ka - kb);
}

typedef struct Tally {
    long n, unsure, differ, beyond, glibc_double_beyond;
} Tally;

/* One input: the rounding test sure, within 1 ulp of the oracle (a difference counted). */
static void check(int fn, uint64_t x, Tally *t)
{
    int sure;
    const uint64_t r = raidF64TrigEval(x, fn, &sure);
    const uint64_t h = t_bits_of(oracle(fn, t_from_bits(x)));
    t->n++;
    t->glibc_double_beyond += ulp_diff(r, t_bits_of(host_fn(fn, t_from_bits(x)))) > 1;
    if (!sure && t->unsure++ < 5)
        printf("  %s(%a): rounding test unsure\n", fn_name[fn], t_from_bits(x));
    if (r != h) {
        t->differ++;
        if (ulp_diff(r, h) > 1 && t->beyond++ < 5)
            printf("  %s(%a) = %a, glibc's long double %a\n", fn_name[fn], t_from_bits(x), t_from_bits(r), t_from_bits(h));
    }
}

static void report(const char *what, int fn, const Tally *t)
{
    printf("%s %s: %ld inputs, %ld unsure, %ld differ from glibc's long double (by 1 ulp), %ld beyond 1 ulp; "
           "glibc's double %s more than 1 ulp away: %ld\n", fn_name[fn], what, t->n, t->unsure,
           t->differ - t->beyond, t->beyond, fn_name[fn], t->glibc_double_beyond);
    assert_int_equal(t->unsure, 0);
    assert_int_equal(t->beyond, 0);
}

static void test_specials(void **state)
{
    (void)state;
    const uint64_t pinf = 0x7FF0000000000000ull, nan_sig = 0x7FF0000000000001ull, nan_neg = 0xFFF4000000000000ull;
    for (int fn = 0; fn < 3; fn++) {
        int sure;
        assert_true(raidF64TrigEval(pinf, fn, &sure) == RAID_F64_DEFAULT_NAN && sure);
        assert_true(raidF64TrigEval(pinf | (1ull << 63), fn, &sure) == RAID_F64_DEFAULT_NAN);
        assert_true(raidF64TrigEval(nan_sig, fn, &sure) == (nan_sig | RAID_F64_QUIET));
        assert_true(raidF64TrigEval(nan_neg, fn, &sure) == (nan_neg | RAID_F64_QUIET));
    }
    assert_true(raidF64Sin(0) == 0 && raidF64Sin(1ull << 63) == 1ull << 63);
    assert_true(raidF64Tan(0) == 0 && raidF64Tan(1ull << 63) == 1ull << 63);
    assert_true(raidF64Cos(0) == 0x3FF0000000000000ull && raidF64Cos(1ull << 63) == 0x3FF0000000000000ull);
    /* the smallest subnormal: sin and tan are x, cos is 1 */
    assert_true(raidF64Sin(1) == 1 && raidF64Tan(1ull << 63 | 1) == (1ull << 63 | 1) && raidF64Cos(1) == 0x3FF0000000000000ull);
}

/* Correctly rounded values from MPFR (tests/python/mpfr_oracle.py): the closest approach to a multiple of
 * pi/2 (glibc 2.36 is 8 ulps off its cos there), the tan worst case 2^-132.4 from a midpoint, 1e22 and the
 * largest binary64. */
static void test_known_values(void **state)
{
    (void)state;
    static const uint64_t cases[][4] = {
        {0x7506AC5B262CA1FFull, 0x3FF0000000000000ull, 0xBC214AE72E6BA22Full, 0xC3BD9BA9A7975636ull},
        {0x3E9DFFFFFFFFFF1Full, 0x3E9DFFFFFFFFFE06ull, 0x3FEFFFFFFFFFFC7Cull, 0x3E9E000000000151ull},
        {0x4480F0CF064DD592ull, 0xBFEB453AB76BF397ull, 0x3FE0BE2CEF01C8F4ull, 0xBFFA0F79C1B6B257ull},
        {0x7FEFFFFFFFFFFFFFull, 0x3F7452FC98B34E97ull, 0xBFEFFFE62ECFAB75ull, 0xBF74530CFE729484ull},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        for (int fn = 0; fn < 3; fn++) {
            int sure;
            const uint64_t r = raidF64TrigEval(cases[i][0], fn, &sure);
            if (r != cases[i][fn + 1] || !sure)
                printf("%s(%a) = %a (sure %d), want %a\n", fn_name[fn], t_from_bits(cases[i][0]), t_from_bits(r),
                       sure, t_from_bits(cases[i][fn + 1]));
            assert_true(r == cases[i][fn + 1] && sure);
            /* odd and even: -x */
            const uint64_t rn = raidF64TrigEval(cases[i][0] | (1ull << 63), fn, &sure);
            assert_true(rn == (fn == 1 ? r : r ^ (1ull << 63)) && sure);
        }
}

static void test_worst_cases(void **state)
{
    (void)state;
    for (int fn = 0; fn < 3; fn++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/tests/data/f64_worst/%s.wc", RAID_SOURCE_DIR, fn_name[fn]);
        FILE *f = fopen(path, "r");
        assert_non_null(f);
        char line[256];
        Tally t = {0};
        while (fgets(line, sizeof line, f)) {
            if (line[0] == '#' || strstr(line, "nan") || strstr(line, "inf"))
                continue;
            char *end;
            const double x = strtod(line, &end);
            if (end == line)
                continue;
            check(fn, t_bits_of(x), &t);
            check(fn, t_bits_of(-x), &t);
        }
        fclose(f);
        assert_true(t.n > 10000);
        report("worst cases", fn, &t);
    }
}

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t next(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* A binary64 with a random significand and sign and a biased exponent in [lo, hi]. */
static uint64_t with_exponent(int lo, int hi)
{
    const uint64_t e = (uint64_t)(lo + (int)(next() % (uint64_t)(hi - lo + 1)));
    return (next() & 0x800FFFFFFFFFFFFFull) | e << 52;
}

static void test_random(void **state)
{
    (void)state;
    long n = 100000;
    const char *env = getenv("RAID_F64_CASES");
    if (env && atol(env) > 0)
        n = atol(env);
    static const char *const range[] = {"|x| < 4", "tiny", "subnormal", "near k pi/2", "huge", "bits", "2^-1022..2^1024 x closest"};
    for (int fn = 0; fn < 3; fn++)
        for (int k = 0; k < 7; k++) {
            Tally t = {0};
            for (long i = 0; i < n; i++) {
                uint64_t x;
                switch (k) {
                case 0: x = with_exponent(1000, 1024); break;
                case 1: x = with_exponent(900, 1021); break;
                case 2: x = (next() & 0x800FFFFFFFFFFFFFull) | 1; break;
                case 3: { /* k pi/2 rounded, and neighbours */
                    const double m = (double)(1 + next() % (1u << 30)) * 1.5707963267948966;
                    x = t_bits_of(m) + (next() % 7) - 3;
                    break;
                }
                case 4: x = with_exponent(1050, 2046); break;
                case 5: x = next(); if (((x >> 52) & 0x7FF) == 0x7FF) x &= ~(1ull << 62); break;
                default: /* 6381956970095103 2^e and neighbours */
                    x = t_bits_of(ldexp(6381956970095103.0, (int)(next() % 1020) - 52 - 1000 + 1000 - 80)) +
                        (next() % 5) - 2;
                    if (((x >> 52) & 0x7FF) == 0x7FF || (x & 0x7FFFFFFFFFFFFFFFull) == 0)
                        x = 0x3FF0000000000000ull;
                    break;
                }
                check(fn, x, &t);
            }
            report(range[k], fn, &t);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_specials),
        cmocka_unit_test(test_known_values),
        cmocka_unit_test(test_worst_cases),
        cmocka_unit_test(test_random),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
