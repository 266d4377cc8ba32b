/*
 * kernels/raid_f64_exp.h on the host: exp, exp2, exp10, expm1 (correctly rounded), sinh, cosh, tanh (at most
 * 1 ulp). Special values and exact cases bit for bit; random inputs over the whole domain and the hard
 * ranges (tiny arguments, subnormal and near-overflow results) against glibc within 1 ulp (glibc is not
 * correctly rounded everywhere: differences are counted and printed, a difference beyond 1 ulp fails, 2 for
 * the functions glibc computes within 2 ulps only); the
 * worst cases of tests/data/f64_worst (CORE-MATH's, Lefevre's searches). For exp, exp2, exp10 and expm1 the
 * rounding test must be sure on every input outside the exact cases: an unsure one means the error bound of
 * the header does not hold there (or the input is harder than every known worst case), and fails the test.
 * MPFR checks the correct rounding itself (tests/python/test_f64_exp.py). RAID_F64_CASES sets the number of
 * random cases per function and range (default 10^5).
 */
#define _GNU_SOURCE /* glibc's exp10 */
#include "support.h"
#include "raid_f64_exp.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { F_EXP, F_EXP2, F_EXP10, F_EXPM1, F_SINH, F_COSH, F_TANH, NFN };
static const char *const fn_name[NFN] = {"exp", "exp2", "exp10", "expm1", "sinh", "cosh", "tanh"};

static uint64_t raid_fn(int fn, uint64_t x, int *sure)
{
    switch (fn) {
    case F_EXP: return raidF64ExpBaseChecked(x, RAID_F64_EXP_BASE_E, sure);
    case F_EXP2: return raidF64ExpBaseChecked(x, RAID_F64_EXP_BASE_2, sure);
    case F_EXP10: return raidF64ExpBaseChecked(x, RAID_F64_EXP_BASE_10, sure);
    case F_EXPM1: return raidF64Expm1Checked(x, sure);
    default: return raidF64HyperbolicChecked(x, fn - F_SINH, sure);
    }
}

static uint64_t glibc_fn(int fn, uint64_t xb)
{
    volatile double x = t_from_bits(xb);
    double r;
    switch (fn) {
    case F_EXP: r = exp(x); break;
    case F_EXP2: r = exp2(x); break;
    case F_EXP10: r = exp10(x); break;
    case F_EXPM1: r = expm1(x); break;
    case F_SINH: r = sinh(x); break;
    case F_COSH: r = cosh(x); break;
    default: r = tanh(x); break;
    }
    return t_bits_of(r);
}

static int is_nan(uint64_t x) { return (x & 0x7FFFFFFFFFFFFFFFull) > 0x7FF0000000000000ull; }

/* How many binary64 values apart a and b are (both finite or infinite, not NaN). */
static uint64_t ulps(uint64_t a, uint64_t b)
{
    const int64_t ka = a >> 63 ? -(int64_t)(a & ~(1ull << 63)) : (int64_t)a;
    const int64_t kb = b >> 63 ? -(int64_t)(b & ~(1ull << 63)) : (int64_t)b;
    return ka > kb ? (uint64_t)(ka - kb) : (uint64_t)(kb - ka);
}

/* How far glibc's result may be from RAID's: 1 ulp, but 2 for exp10, sinh, cosh and tanh, whose glibc
 * versions err by up to 2 ulps (glibc's libm-test-ulps for x86_64; glibc 2.36's exp10 is exp(x ln 10) in
 * double-double): exp10(93) is 0x533eae8caef261ad here and in MPFR, 0x...ab in glibc 2.36; sinh(0x1.96ce9d6adab9dp-1)
 * 0x3fec2fb4ef351c0c here and in MPFR, 0x...0e in glibc. MPFR checks correct rounding (test_f64_exp.py). */
static uint64_t glibc_ulps(int fn) { return fn == F_EXP10 || fn >= F_SINH ? 2 : 1; }

typedef struct {
    long long cases, differ, far, unsure;
} Tally;

/* One input: within 1 ulp of glibc (NaN where glibc's is), and sure for the correctly rounded functions. */
static void check(int fn, uint64_t x, Tally *t)
{
    int sure;
    const uint64_t r = raid_fn(fn, x, &sure), g = glibc_fn(fn, x);
    t->cases++;
    if (!sure && t->unsure++ < 8)
        print_message("%s(%a = %016llx): rounding test unsure\n", fn_name[fn], t_from_bits(x), (unsigned long long)x);
    if (is_nan(r) || is_nan(g)) {
        if (is_nan(r) != is_nan(g) && t->far++ < 8)
            print_error("%s(%016llx): raid %016llx, glibc %016llx\n", fn_name[fn], (unsigned long long)x,
                        (unsigned long long)r, (unsigned long long)g);
        return;
    }
    const uint64_t d = ulps(r, g);
    if (d)
        t->differ++;
    if (d > glibc_ulps(fn) && t->far++ < 8)
        print_error("%s(%a = %016llx): raid %016llx, glibc %016llx (%llu ulps)\n", fn_name[fn], t_from_bits(x),
                    (unsigned long long)x, (unsigned long long)r, (unsigned long long)g, (unsigned long long)d);
}

/* Fails on a difference beyond 1 ulp, and on an unsure rounding of a correctly rounded function. */
static void verdict(int fn, const char *what, const Tally *t)
{
    print_message("%-6s %-22s %8lld cases: %lld differ from glibc, %lld unsure\n", fn_name[fn], what,
                  t->cases, t->differ, t->unsure);
    if (t->far)
        fail_msg("%s %s: %lld results beyond %d ulp of glibc", fn_name[fn], what, t->far, (int)glibc_ulps(fn));
    if (fn <= F_EXPM1 && t->unsure)
        fail_msg("%s %s: %lld unsure roundings", fn_name[fn], what, t->unsure);
}

static void test_specials(void **state)
{
    (void)state;
    const uint64_t P0 = 0, N0 = 1ull << 63, PINF = 0x7FF0000000000000ull, NINF = 0xFFF0000000000000ull;
    const uint64_t ONE = 0x3FF0000000000000ull, MONE = 0xBFF0000000000000ull;
    const uint64_t NAN_SIG = 0x7FF0000000000001ull, NAN_NEGQ = 0xFFF8000000000123ull;
    static const struct {
        int fn;
        uint64_t x, want;
    } c[] = {
        {F_EXP, 0, 0x3FF0000000000000ull}, {F_EXP, 1ull << 63, 0x3FF0000000000000ull},
        {F_EXP, 0x7FF0000000000000ull, 0x7FF0000000000000ull}, {F_EXP, 0xFFF0000000000000ull, 0},
        {F_EXP, 0x40862E42FEFA39EFull, 0x7FEFFFFFFFFFFF2Aull}, /* the largest x with a finite exp(x) */
        {F_EXP, 0x40862E42FEFA39F0ull, 0x7FF0000000000000ull},
        {F_EXP, 0xC0874910D52D3051ull, 1},                       /* exp(x) rounds to 2^-1074 */
        {F_EXP, 0xC0874910D52D3052ull, 0},                       /* and here to +0 */
        {F_EXP, 0x3FF0000000000000ull, 0x4005BF0A8B145769ull}, /* e */
        {F_EXP2, 0x4090000000000000ull, 0x7FF0000000000000ull}, /* 2^1024 */
        {F_EXP2, 0x408FF80000000000ull, 0x7FE0000000000000ull}, /* 2^1023 */
        {F_EXP2, 0xC090C80000000000ull, 1},                     /* 2^-1074 */
        {F_EXP2, 0xC090CC0000000000ull, 0},                     /* 2^-1075: a tie, to even */
        {F_EXP2, 0xFFF0000000000000ull, 0}, {F_EXP2, 0xBFF0000000000000ull, 0x3FE0000000000000ull},
        {F_EXP10, 0x4036000000000000ull, 0x4480F0CF064DD592ull}, /* 10^22 */
        {F_EXP10, 0x4037000000000000ull, 0x44B52D02C7E14AF6ull}, /* 10^23: a tie, to even (1e23) */
        {F_EXP10, 0x4073480000000000ull, 0x7FF0000000000000ull}, /* 10^309 */
        {F_EXP10, 0xFFF0000000000000ull, 0},
        {F_EXPM1, 0, 0}, {F_EXPM1, 1ull << 63, 1ull << 63}, {F_EXPM1, 0xFFF0000000000000ull, 0xBFF0000000000000ull},
        {F_EXPM1, 0x7FF0000000000000ull, 0x7FF0000000000000ull}, {F_EXPM1, 1, 1}, {F_EXPM1, 0x8000000000000001ull, 0x8000000000000001ull},
        {F_EXPM1, 0xC044000000000000ull, 0xBFF0000000000000ull}, /* -40 */
        {F_SINH, 0, 0}, {F_SINH, 1ull << 63, 1ull << 63}, {F_SINH, 0xFFF0000000000000ull, 0xFFF0000000000000ull},
        {F_COSH, 1ull << 63, 0x3FF0000000000000ull}, {F_COSH, 0xFFF0000000000000ull, 0x7FF0000000000000ull},
        {F_TANH, 1ull << 63, 1ull << 63}, {F_TANH, 0x7FF0000000000000ull, 0x3FF0000000000000ull},
        {F_TANH, 0xFFF0000000000000ull, 0xBFF0000000000000ull},
    };
    (void)P0, (void)N0, (void)PINF, (void)NINF, (void)ONE, (void)MONE;
    int bad = 0;
    for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
        int sure;
        const uint64_t r = raid_fn(c[i].fn, c[i].x, &sure);
        if (r != c[i].want || !sure) {
            bad++;
            print_error("%s(%016llx) = %016llx (sure %d), expected %016llx\n", fn_name[c[i].fn],
                        (unsigned long long)c[i].x, (unsigned long long)r, sure, (unsigned long long)c[i].want);
        }
    }
    /* a NaN comes back quiet, sign and payload kept */
    for (int fn = 0; fn < NFN; fn++) {
        int sure;
        if (raid_fn(fn, NAN_SIG, &sure) != (NAN_SIG | (1ull << 51)) || raid_fn(fn, NAN_NEGQ, &sure) != NAN_NEGQ) {
            bad++;
            print_error("%s of a NaN\n", fn_name[fn]);
        }
    }
    if (bad)
        fail_msg("%d special values wrong", bad);
}

/* exp2 of every integer is 2^k; exp10 of 0..27 is 10^k rounded once (strtod of "1eK" is, in glibc). */
static void test_exact(void **state)
{
    (void)state;
    int bad = 0;
    for (int k = -1100; k <= 1100; k++) {
        int sure;
        const uint64_t r = raid_fn(F_EXP2, t_bits_of((double)k), &sure);
        const uint64_t want = t_bits_of(ldexp(1.0, k));
        if (r != want || !sure) {
            bad++;
            print_error("exp2(%d) = %016llx, expected %016llx\n", k, (unsigned long long)r, (unsigned long long)want);
        }
    }
    for (int k = 0; k <= 27; k++) {
        char text[16];
        snprintf(text, sizeof text, "1e%d", k);
        int sure;
        const uint64_t r = raid_fn(F_EXP10, t_bits_of((double)k), &sure);
        const uint64_t want = t_bits_of(strtod(text, NULL));
        if (r != want || !sure) {
            bad++;
            print_error("exp10(%d) = %016llx, expected %016llx\n", k, (unsigned long long)r, (unsigned long long)want);
        }
    }
    /* the other integers of exp10's range go through the wide path: sure, and as glibc's within 1 ulp */
    Tally t = {0};
    for (int k = -330; k <= 310; k++)
        check(F_EXP10, t_bits_of((double)k), &t);
    verdict(F_EXP10, "integers", &t);
    if (bad)
        fail_msg("%d exact cases wrong", bad);
}

/* A random double: uniform in [lo, hi], or with a log-uniform magnitude in [2^lo, 2^hi] and a random sign. */
static uint64_t uniform(uint64_t *s, double lo, double hi)
{
    const double u = (double)(t_splitmix64(s) >> 11) * 0x1p-53;
    return t_bits_of(lo + (hi - lo) * u);
}

static uint64_t log_uniform(uint64_t *s, double lo, double hi)
{
    const double u = (double)(t_splitmix64(s) >> 11) * 0x1p-53;
    const uint64_t m = t_splitmix64(s);
    double x = ldexp(1.0 + (double)(m >> 12) * 0x1p-52, (int)floor(lo + (hi - lo) * u));
    return t_bits_of(m & 1 ? -x : x);
}

static void test_random(void **state)
{
    (void)state;
    const char *env = getenv("RAID_F64_CASES");
    const long long cases = env ? atoll(env) : 100000;
    /* per function: the whole domain where the result is finite and not saturated, the hard ranges */
    static const struct {
        int fn;
        const char *what;
        int log;
        double lo, hi;
    } r[] = {
        {F_EXP, "[-746, 710]", 0, -746, 710},      {F_EXP, "|x| in [2^-60, 2]", 1, -60, 1},
        {F_EXP, "subnormal results", 0, -745.2, -708}, {F_EXP, "near overflow", 0, 700, 709.8},
        {F_EXP2, "[-1076, 1024]", 0, -1076, 1024}, {F_EXP2, "|x| in [2^-60, 2]", 1, -60, 1},
        {F_EXP2, "subnormal results", 0, -1075, -1020},
        {F_EXP10, "[-324, 309]", 0, -324, 309},    {F_EXP10, "|x| in [2^-60, 2]", 1, -60, 1},
        {F_EXP10, "subnormal results", 0, -323.7, -307},
        {F_EXPM1, "[-40, 710]", 0, -40, 710},      {F_EXPM1, "|x| in [2^-60, 2]", 1, -60, 1},
        {F_EXPM1, "|x| in [2^-1074, 2^-50]", 1, -1074, -50}, {F_EXPM1, "[-1, 1]", 0, -1, 1},
        {F_SINH, "[-711, 711]", 0, -711, 711},     {F_SINH, "|x| in [2^-30, 4]", 1, -30, 2},
        {F_COSH, "[-711, 711]", 0, -711, 711},     {F_COSH, "|x| in [2^-30, 4]", 1, -30, 2},
        {F_TANH, "[-20, 20]", 0, -20, 20},         {F_TANH, "|x| in [2^-30, 4]", 1, -30, 2},
    };
    uint64_t s = 20261207;
    for (size_t i = 0; i < sizeof r / sizeof *r; i++) {
        Tally t = {0};
        for (long long c = 0; c < cases; c++)
            check(r[i].fn, r[i].log ? log_uniform(&s, r[i].lo, r[i].hi) : uniform(&s, r[i].lo, r[i].hi), &t);
        verdict(r[i].fn, r[i].what, &t);
    }
}

/* tests/data/f64_worst/FN.wc: every input sure (correctly rounded functions) and within 1 ulp of glibc. */
static void test_worst(void **state)
{
    (void)state;
    for (int fn = 0; fn < NFN; fn++) {
        char path[512];
        snprintf(path, sizeof path, "%s/tests/data/f64_worst/%s.wc", RAID_SOURCE_DIR, fn_name[fn]);
        FILE *f = fopen(path, "r");
        assert_non_null(f);
        char line[256];
        Tally t = {0};
        while (fgets(line, sizeof line, f)) {
            if (line[0] == '#' || line[0] == '\n')
                continue;
            check(fn, t_bits_of(strtod(line, NULL)), &t);
        }
        fclose(f);
        assert_true(t.cases > 1000);
        verdict(fn, "worst cases", &t);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_specials),
        cmocka_unit_test(test_exact),
        cmocka_unit_test(test_worst),
        cmocka_unit_test(test_random),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
