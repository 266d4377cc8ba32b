/*
 * kernels/raid_f64_atrig.h (asin, acos, atan, atan2) on the host: the special values of C99 Annex F one by
 * one (bits, NaNs included); random inputs over the whole domain and the hard ranges (near +-1 for asin and
 * acos, near 0 and the tiny threshold 2^-27, huge arguments, atan2's huge and tiny ratios and subnormal
 * results) against glibc with a 1-ulp tolerance (glibc is not correctly rounded: differences are counted and
 * printed, a difference beyond 1 ulp fails); and CORE-MATH's worst cases (tests/data/f64_worst/FN.wc). The
 * rounding test must be sure on every random input and on every worst case of asin, acos and atan (the
 * 2^-120 bound of raid_f64_atrig.h is below their distance to a rounding boundary); atan2's worst cases
 * include ratios nearer than 2^-120 to a boundary (down to 2^-154), where the result may be the other
 * neighbour, still within 1 ulp: those are counted and printed. RAID_F64_CASES sets the number of random
 * cases per function and range (default 10^5).
 */
#include "support.h"
#include "raid_f64_atrig.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { F_ASIN, F_ACOS, F_ATAN, F_ATAN2, NF };
static const char *const fname[NF] = {"asin", "acos", "atan", "atan2"};

static uint64_t raid_fn(int f, uint64_t a, uint64_t b, int *sure)
{
    switch (f) {
    case F_ASIN: return raidF64AtrigAsin(a, sure);
    case F_ACOS: return raidF64AtrigAcos(a, sure);
    case F_ATAN: return raidF64AtrigAtan(a, sure);
    default: return raidF64AtrigAtan2(a, b, sure);
    }
}

static uint64_t glibc_fn(int f, uint64_t a, uint64_t b)
{
    volatile double x = t_from_bits(a), y = t_from_bits(b);
    switch (f) {
    case F_ASIN: return t_bits_of(asin(x));
    case F_ACOS: return t_bits_of(acos(x));
    case F_ATAN: return t_bits_of(atan(x));
    default: return t_bits_of(atan2(x, y));
    }
}

static int is_nan(uint64_t x) { return (x & 0x7FFFFFFFFFFFFFFFull) > 0x7FF0000000000000ull; }

/* How many binary64 values apart two non-NaN results are. */
static uint64_t ulps(uint64_t a, uint64_t b)
{
    const int64_t ka = a >> 63 ? -(int64_t)(a & ~(1ull << 63)) : (int64_t)a;
    const int64_t kb = b >> 63 ? -(int64_t)(b & ~(1ull << 63)) : (int64_t)b;
    return ka > kb ? (uint64_t)(ka - kb) : (uint64_t)(kb - ka);
}

typedef struct Tally {
    long long cases, differ, beyond, unsure, nanbad;
} Tally;

/* One input: within 1 ulp of glibc (NaN where glibc's is), the rounding test's verdict counted. */
static void check(int f, uint64_t a, uint64_t b, Tally *t)
{
    int sure;
    const uint64_t r = raid_fn(f, a, b, &sure), g = glibc_fn(f, a, b);
    t->cases++;
    t->unsure += !sure;
    if (is_nan(r) || is_nan(g)) {
        if (is_nan(r) != is_nan(g) && t->nanbad++ < 8)
            print_error("%s(%016llx, %016llx): raid %016llx, glibc %016llx\n", fname[f], (unsigned long long)a,
                        (unsigned long long)b, (unsigned long long)r, (unsigned long long)g);
        return;
    }
    const uint64_t d = ulps(r, g);
    t->differ += d != 0;
    if (d > 1 && t->beyond++ < 8)
        print_error("%s(%016llx, %016llx) = %016llx (%.17g), glibc %016llx: %llu ulps\n", fname[f],
                    (unsigned long long)a, (unsigned long long)b, (unsigned long long)r, t_from_bits(r),
                    (unsigned long long)g, (unsigned long long)d);
}

static void report(const char *what, int f, const Tally *t, int unsure_allowed)
{
    printf("%-6s %-22s %9lld cases: %lld differ from glibc by 1 ulp, %lld beyond, %lld unsure\n", fname[f], what,
           t->cases, t->differ, t->beyond, t->unsure);
    if (t->beyond || t->nanbad)
        fail_msg("%s %s: %lld results beyond 1 ulp of glibc, %lld NaN mismatches", fname[f], what, t->beyond,
                 t->nanbad);
    if (t->unsure && !unsure_allowed)
        fail_msg("%s %s: the rounding test was unsure on %lld inputs", fname[f], what, t->unsure);
}

#define NAN_Q 0x7FF8000000000000ull
#define DNAN 0xFFF8000000000000ull
#define PINF 0x7FF0000000000000ull
#define NINF 0xFFF0000000000000ull
#define NZERO 0x8000000000000000ull
#define ONE 0x3FF0000000000000ull
#define PI 0x400921FB54442D18ull      /* pi rounded */
#define PI_2 0x3FF921FB54442D18ull    /* pi/2 rounded */
#define PI_4 0x3FE921FB54442D18ull    /* pi/4 rounded */
#define PI3_4 0x4002D97C7F3321D2ull   /* 3pi/4 rounded */
#define SNAN 0x7FF0000000000001ull    /* a signalling NaN, payload 1 */
#define SNANQ 0x7FF8000000000001ull   /* ... made quiet */

static void test_specials(void **state)
{
    (void)state;
    static const struct {
        int f;
        uint64_t a, b, want;
    } c[] = {
        {F_ASIN, 0, 0, 0}, {F_ASIN, NZERO, 0, NZERO}, {F_ASIN, ONE, 0, PI_2}, {F_ASIN, ONE | NZERO, 0, PI_2 | NZERO},
        {F_ASIN, 0x3FF0000000000001ull, 0, DNAN}, {F_ASIN, PINF, 0, DNAN}, {F_ASIN, NINF, 0, DNAN},
        {F_ASIN, SNAN, 0, SNANQ}, {F_ASIN, SNAN | NZERO, 0, SNANQ | NZERO}, {F_ASIN, 1, 0, 1},
        {F_ASIN, 0x8000000000000001ull, 0, 0x8000000000000001ull},
        {F_ACOS, ONE, 0, 0}, {F_ACOS, ONE | NZERO, 0, PI}, {F_ACOS, 0, 0, PI_2}, {F_ACOS, NZERO, 0, PI_2},
        {F_ACOS, 0xBFF0000000000001ull, 0, DNAN}, {F_ACOS, PINF, 0, DNAN}, {F_ACOS, SNAN, 0, SNANQ},
        {F_ACOS, NAN_Q, 0, NAN_Q}, {F_ACOS, 1, 0, PI_2},
        {F_ATAN, 0, 0, 0}, {F_ATAN, NZERO, 0, NZERO}, {F_ATAN, PINF, 0, PI_2}, {F_ATAN, NINF, 0, PI_2 | NZERO},
        {F_ATAN, ONE, 0, PI_4}, {F_ATAN, SNAN, 0, SNANQ}, {F_ATAN, 0x7FEFFFFFFFFFFFFFull, 0, PI_2},
        {F_ATAN, 0x000FFFFFFFFFFFFFull, 0, 0x000FFFFFFFFFFFFFull},
        /* atan2(y, x): Annex F.9.1.4 */
        {F_ATAN2, 0, 0, 0}, {F_ATAN2, NZERO, 0, NZERO}, {F_ATAN2, 0, NZERO, PI}, {F_ATAN2, NZERO, NZERO, PI | NZERO},
        {F_ATAN2, 0, ONE, 0}, {F_ATAN2, NZERO, ONE, NZERO}, {F_ATAN2, 0, ONE | NZERO, PI},
        {F_ATAN2, NZERO, ONE | NZERO, PI | NZERO}, {F_ATAN2, ONE, 0, PI_2}, {F_ATAN2, ONE, NZERO, PI_2},
        {F_ATAN2, ONE | NZERO, 0, PI_2 | NZERO}, {F_ATAN2, ONE | NZERO, NZERO, PI_2 | NZERO},
        {F_ATAN2, ONE, PINF, 0}, {F_ATAN2, ONE | NZERO, PINF, NZERO}, {F_ATAN2, ONE, NINF, PI},
        {F_ATAN2, ONE | NZERO, NINF, PI | NZERO}, {F_ATAN2, PINF, ONE, PI_2}, {F_ATAN2, NINF, ONE | NZERO, PI_2 | NZERO},
        {F_ATAN2, PINF, PINF, PI_4}, {F_ATAN2, NINF, PINF, PI_4 | NZERO}, {F_ATAN2, PINF, NINF, PI3_4},
        {F_ATAN2, NINF, NINF, PI3_4 | NZERO}, {F_ATAN2, PINF, 0, PI_2}, {F_ATAN2, 0, PINF, 0},
        {F_ATAN2, NZERO, NINF, PI | NZERO}, {F_ATAN2, ONE, ONE, PI_4}, {F_ATAN2, ONE, ONE | NZERO, PI3_4},
        {F_ATAN2, SNAN, ONE, SNANQ}, {F_ATAN2, ONE, SNAN, SNANQ}, {F_ATAN2, SNAN | NZERO, NAN_Q, SNANQ | NZERO},
        {F_ATAN2, NAN_Q, SNAN, NAN_Q},
        /* the smallest ratios: an underflow to zero and a subnormal result */
        {F_ATAN2, 1, 0x7FEFFFFFFFFFFFFFull, 0}, {F_ATAN2, 1, 0x7FEFFFFFFFFFFFFFull | NZERO, PI},
        {F_ATAN2, 0x0010000000000000ull, 0x4000000000000000ull, 0x0008000000000000ull},
    };
    int bad = 0;
    for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
        int sure;
        const uint64_t r = raid_fn(c[i].f, c[i].a, c[i].b, &sure);
        if (r != c[i].want || !sure) {
            print_error("%s(%016llx, %016llx) = %016llx (sure %d), want %016llx\n", fname[c[i].f],
                        (unsigned long long)c[i].a, (unsigned long long)c[i].b, (unsigned long long)r, sure,
                        (unsigned long long)c[i].want);
            bad++;
        }
        /* glibc agrees on every non-NaN special value, and on NaN-ness */
        const uint64_t g = glibc_fn(c[i].f, c[i].a, c[i].b);
        if (is_nan(g) ? !is_nan(r) : g != r) {
            print_error("%s(%016llx, %016llx): glibc %016llx\n", fname[c[i].f], (unsigned long long)c[i].a,
                        (unsigned long long)c[i].b, (unsigned long long)g);
            bad++;
        }
    }
    assert_int_equal(bad, 0);
}

static long long ncases(void)
{
    const char *env = getenv("RAID_F64_CASES");
    return env ? atoll(env) : 100000;
}

/* A random binary64 of exponent field in [elo, ehi] (biased), random significand and sign. */
static uint64_t rand_exp(uint64_t *s, int elo, int ehi)
{
    const uint64_t r = t_splitmix64(s);
    const uint64_t e = (uint64_t)elo + t_splitmix64(s) % (uint64_t)(ehi - elo + 1);
    return (r & (1ull << 63)) | (e << 52) | (r & 0xFFFFFFFFFFFFFull);
}

static void test_random(void **state)
{
    (void)state;
    const long long n = ncases();
    uint64_t s = 20261207;
    enum { KINDS = 5 };
    for (int f = 0; f < NF; f++)
        for (int k = 0; k < KINDS; k++) {
            Tally t = {0};
            const char *what = "";
            for (long long i = 0; i < n; i++) {
                uint64_t a = 0, b = 0;
                if (f == F_ASIN || f == F_ACOS) {
                    static const char *const w[KINDS] = {"[-1, 1]", "near +-1", "[2^-30, 2^-20]", "bit patterns",
                                                         "near +-0.5"};
                    what = w[k];
                    if (k == 0)
                        a = rand_exp(&s, 0, 0x3FE);
                    else if (k == 1) /* 1 - up to 2^20 ulps */
                        a = (ONE - 1 - t_splitmix64(&s) % (1u << 20)) | (t_splitmix64(&s) & NZERO);
                    else if (k == 2)
                        a = rand_exp(&s, 0x3FF - 30, 0x3FF - 20);
                    else if (k == 3)
                        a = t_splitmix64(&s);
                    else
                        a = (0x3FE0000000000000ull + (t_splitmix64(&s) % (1u << 24)) - (1u << 23)) |
                            (t_splitmix64(&s) & NZERO);
                } else if (f == F_ATAN) {
                    static const char *const w[KINDS] = {"[2^-30, 2^30]", "near +-1", "near 2^-27", "bit patterns",
                                                         "[2^30, 2^1024)"};
                    what = w[k];
                    if (k == 0)
                        a = rand_exp(&s, 0x3FF - 30, 0x3FF + 30);
                    else if (k == 1)
                        a = (ONE + (t_splitmix64(&s) % (1u << 21)) - (1u << 20)) | (t_splitmix64(&s) & NZERO);
                    else if (k == 2)
                        a = (0x3E40000000000000ull + (t_splitmix64(&s) % (1u << 21)) - (1u << 20)) |
                            (t_splitmix64(&s) & NZERO);
                    else if (k == 3)
                        a = t_splitmix64(&s);
                    else
                        a = rand_exp(&s, 0x3FF + 30, 0x7FE);
                } else {
                    static const char *const w[KINDS] = {"exponents +-30", "equal exponents", "bit patterns",
                                                         "ratios past 2^+-60", "subnormal results"};
                    what = w[k];
                    if (k == 0) {
                        a = rand_exp(&s, 0x3FF - 30, 0x3FF + 30);
                        b = rand_exp(&s, 0x3FF - 30, 0x3FF + 30);
                    } else if (k == 1) {
                        a = rand_exp(&s, 1, 0x7FE);
                        b = (t_splitmix64(&s) & (NZERO | 0xFFFFFFFFFFFFFull)) | (a & 0x7FF0000000000000ull);
                    } else if (k == 2) {
                        a = t_splitmix64(&s);
                        b = t_splitmix64(&s);
                    } else if (k == 3) {
                        a = rand_exp(&s, 0x3FF - 200, 0x3FF + 200);
                        const int up = (int)(t_splitmix64(&s) & 1);
                        const int e = (int)((a >> 52) & 0x7FF) + (up ? 1 : -1) * (60 + (int)(t_splitmix64(&s) % 100));
                        b = (t_splitmix64(&s) & (NZERO | 0xFFFFFFFFFFFFFull)) | ((uint64_t)e << 52);
                    } else { /* |y / x| below 2^-1022 */
                        a = rand_exp(&s, 0, 200);
                        b = rand_exp(&s, 0x3FF, 0x3FF + 300) & ~NZERO;
                    }
                }
                check(f, a, b, &t);
            }
            report(what, f, &t, 0);
        }
}

/* CORE-MATH's worst cases: a token of a .wc line as binary64 bits (hex floats, +-0, +-inf, +-nan, +-snan). */
static uint64_t wc_token(const char *p)
{
    const int neg = *p == '-';
    const char *q = (*p == '-' || *p == '+') ? p + 1 : p;
    if (!strncmp(q, "snan", 4))
        return (neg ? NZERO : 0) | SNAN;
    return t_bits_of(strtod(p, NULL)); /* hex floats, "0", "inf", "nan" */
}

static void test_worst(void **state)
{
    (void)state;
    for (int f = 0; f < NF; f++) {
        char path[512];
        snprintf(path, sizeof path, "%s/tests/data/f64_worst/%s.wc", RAID_SOURCE_DIR, fname[f]);
        FILE *fp = fopen(path, "r");
        assert_non_null(fp);
        char line[256];
        Tally t = {0};
        while (fgets(line, sizeof line, fp)) {
            char *hash = strchr(line, '#');
            if (hash)
                *hash = 0;
            char *tok = strtok(line, ", \t\r\n");
            if (!tok)
                continue;
            const uint64_t a = wc_token(tok);
            tok = strtok(NULL, ", \t\r\n");
            const uint64_t b = f == F_ATAN2 && tok ? wc_token(tok) : 0;
            check(f, a, b, &t);
        }
        fclose(fp);
        assert_true(t.cases > 1000);
        report("CORE-MATH worst cases", f, &t, f == F_ATAN2);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_specials),
        cmocka_unit_test(test_random),
        cmocka_unit_test(test_worst),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
