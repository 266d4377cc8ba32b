/*
 * kernels/raid_f64_log.h's fast path (fixed point on 64-bit words with a proven bound and CORE-MATH's
 * rounding test) against the 128-bit path it falls back to: raidF64LogBase and raidF64Log1pSure must give the
 * bits of raidF64LogBaseWide and raidF64Log1pSureWide (the 128-bit path alone, the functions as they were
 * before the fast path) on every input tested:
 *   - every input of the worst-case lists tests/data/f64_worst/log.wc, log2.wc, log10.wc, log1p.wc, with both
 *     signs (hard by construction: about half of them fall back);
 *   - RAID_F64_CASES random inputs (default 10^6) of each kind, for log, log2, log10 and log1p: uniform 64-bit
 *     patterns (both signs, infinities and NaNs), random significands with exponents in [2^-30, 2^30] (both
 *     signs for log1p), near 1 (x = 1 +- d, d from 2^-60 to 2^-3; for log1p x = +-d, the fast path's whole
 *     range 2^-53 .. 2^-9 and beyond), and subnormals.
 * The fast path's value of ln x and log1p x must lie within its proven bound of raid_wide.h's (2^-124
 * relative) wherever it applies; the test prints the largest error seen as a fraction of the bound, and how
 * many inputs fell back. With every bound 4 times smaller (drop = 2) the worst cases must give other bits:
 * the bounds are tight enough that the identity test would see one too small.
 */
#include "support.h"
#include "raid_f64_log.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { FN_LOG, FN_LOG2, FN_LOG10, FN_LOG1P, NFN };
static const char *const fn_name[NFN] = {"log", "log2", "log10", "log1p"};
static const int fn_base[NFN] = {0, 2, 10, -1};

static uint64_t ncases(void)
{
    const char *env = getenv("RAID_F64_CASES");
    return env ? strtoull(env, NULL, 10) : 1000000;
}

/* The fast path applies (its caller's test): positive finite x != 1 for log, raidF64Log1pFastApplies for log1p. */
static int fast_applies(int fn, uint64_t x)
{
    if (fn == FN_LOG1P)
        return raidF64Log1pFastApplies(x);
    return x - 1 < RAID_F64_INF - 1 && x != RAID_F64_LOG_ONE;
}

typedef struct {
    uint64_t n, fast, fell_back, differ, teeth; /* teeth: other bits with bounds 4 times too small */
    double worst;                               /* the largest error seen / the bound */
} Tally;

/* log x or log1p x: the fast path's value against the 128-bit one, as a fraction of its bound. */
static double error_ratio(int fn, uint64_t x)
{
    RaidU64 vh, vl, err;
    int f, neg;
    if (fn == FN_LOG1P)
        raidF64Log1pFastValue(x, &vh, &vl, &f, &err, &neg);
    else
        raidF64LogFastValue(x, &vh, &vl, &f, &err, &neg);
    const RaidWide w = fn == FN_LOG1P ? raidF64Log1pWide(x) : raidWideLogOf(x);
    const RaidWide d = raidWideSub(raidWideMake(vh, vl, 128 - f, neg), w);
    if (raidWideIsZero(d))
        return 0;
    /* |d| in units 2^-f: hi 2^(e - 64) 2^f (the 128-bit value's own error, 2^-124 of at most 2^9.6, is below
     * 2^-114: a few units of 2^-117 at most, 2^-31 of the bound) */
    return ldexp((double)d.hi, d.e - 64 + f) / (double)err;
}

static void check(int fn, uint64_t x, Tally *t)
{
    int sure_new, sure_old;
    const uint64_t got =
        fn == FN_LOG1P ? raidF64Log1pSure(x, &sure_new) : raidF64LogBase(x, fn_base[fn], &sure_new);
    const uint64_t want =
        fn == FN_LOG1P ? raidF64Log1pSureWide(x, &sure_old) : raidF64LogBaseWide(x, fn_base[fn], &sure_old);
    t->n++;
    if (got != want && t->differ++ < 8)
        print_error("%s(%a): fast path %016llx, 128-bit path %016llx\n", fn_name[fn], t_from_bits(x),
                    (unsigned long long)got, (unsigned long long)want);
    if (!fast_applies(fn, x))
        return;
    t->fast++;
    int sure;
    const uint64_t r = fn == FN_LOG1P ? raidF64Log1pFastTry(x, 0, &sure) : raidF64LogFastTry(x, fn_base[fn], 0, &sure);
    if (!sure)
        t->fell_back++;
    else if (r != want && t->differ++ < 8)
        print_error("%s(%a): fast path alone %016llx, 128-bit path %016llx\n", fn_name[fn], t_from_bits(x),
                    (unsigned long long)r, (unsigned long long)want);
    if (fn == FN_LOG || fn == FN_LOG1P) {
        const double q = error_ratio(fn, x);
        if (q > t->worst)
            t->worst = q;
    }
}

static void report(int fn, const char *what, const Tally *t)
{
    char err[64] = "(log's value)"; /* log2 and log10 round log's value times a constant */
    if (fn == FN_LOG || fn == FN_LOG1P)
        snprintf(err, sizeof err, "%.3f of the bound", t->worst);
    print_message("%-5s %-14s %9llu inputs, %9llu on the fast path, %6llu fell back (%.2g), largest error %s, "
                  "%llu differ\n",
                  fn_name[fn], what, (unsigned long long)t->n, (unsigned long long)t->fast,
                  (unsigned long long)t->fell_back, t->fast ? (double)t->fell_back / (double)t->fast : 0.0, err,
                  (unsigned long long)t->differ);
    if (t->differ)
        fail_msg("%s %s: %llu inputs differ", fn_name[fn], what, (unsigned long long)t->differ);
    if (t->worst >= 1)
        fail_msg("%s %s: an error of %.3f times the proven bound", fn_name[fn], what, t->worst);
}

static void test_worst_cases(void **state)
{
    (void)state;
    for (int fn = 0; fn < NFN; fn++) {
        size_t n;
        uint64_t *v = t_read_worst_finite(fn_name[fn], &n);
        Tally t = {0};
        for (size_t i = 0; i < n; i++)
            for (int sign = 0; sign < 2; sign++) {
                const uint64_t x = v[i] ^ (uint64_t)sign << 63;
                check(fn, x, &t);
                if (!fast_applies(fn, x))
                    continue;
                int sure, s2;
                const uint64_t r = fn == FN_LOG1P ? raidF64Log1pFastTry(x, 2, &sure)
                                                  : raidF64LogFastTry(x, fn_base[fn], 2, &sure);
                const uint64_t want =
                    fn == FN_LOG1P ? raidF64Log1pSureWide(x, &s2) : raidF64LogBaseWide(x, fn_base[fn], &s2);
                t.teeth += sure && r != want;
            }
        report(fn, "worst cases", &t);
        print_message("%-5s worst cases with bounds 4 times too small: %llu wrong results\n", fn_name[fn],
                      (unsigned long long)t.teeth);
        assert_true(t.teeth > 0);
        free(v);
    }
}

static void test_random(void **state)
{
    (void)state;
    static const char *const kind[] = {"uniform bits", "2^-30 .. 2^30", "near 1", "subnormal"};
    const uint64_t n = ncases();
    for (int fn = 0; fn < NFN; fn++)
        for (int k = 0; k < 4; k++) {
            uint64_t s = 0x106F + 977 * (uint64_t)(4 * fn + k);
            Tally t = {0};
            for (uint64_t i = 0; i < n; i++) {
                const uint64_t u = t_splitmix64(&s);
                uint64_t x;
                switch (k) {
                case 0: x = u; break;
                case 1: /* significand and exponent at random, |x| in [2^-30, 2^31) */
                    x = ((uint64_t)(1023 - 30 + (int)((u >> 52) % 61)) << 52) | (t_splitmix64(&s) & RAID_F64_FRAC);
                    if (fn == FN_LOG1P)
                        x |= u << 63;
                    break;
                case 2: { /* 1 +- d (log1p: +-d), |d| in [2^-60, 2^-3) */
                    const double d = ldexp(1 + t_unif(&s), -4 - (int)(u % 57));
                    const double y = (u >> 32) & 1 ? d : -d;
                    x = t_bits_of(fn == FN_LOG1P ? y : 1 + y);
                    break;
                }
                default: x = (u & RAID_F64_FRAC) | (fn == FN_LOG1P ? u & RAID_F64_SIGN : 0); /* subnormal */
                }
                check(fn, x, &t);
            }
            report(fn, kind[k], &t);
        }
}

/* The edges of the fast path's cases: the binades (the subnormals' and those near 2^-1022, 1 and 2^1024, and
 * every 37th) at the significands 1, 1 + ulp, 2 - ulp and both sides of every table interval's ends
 * 1 + (i +- 1/2)/256; x = 1 +- n ulp for n up to 2^12 and the ends of the near-1 case (1 - 2^-10, 1 + 2^-9);
 * log1p at +-n 2^-53 and about +-2^-53, +-2^-9 (the ends of its two fast paths), +-0.5, +-1 and 2^52, 2^53. */
static void test_edges(void **state)
{
    (void)state;
    Tally t[NFN] = {{0}};
    for (int be = -51; be <= 2046; be++)
        for (int j = -1; j <= 2 * 256 + 2; j++) {
            if (!(be < 8 || (be > 1010 && be < 1036) || be > 2040 || be % 37 == 0))
                continue;
            uint64_t m; /* the significand's 52 stored bits */
            if (j == -1)
                m = 0;
            else if (j == 2 * 256 + 2)
                m = RAID_F64_FRAC;
            else /* 1 + (2 (j/2) - 1) / 512 +- a few ulps */
                m = (((uint64_t)(j / 2) << 44) - ((uint64_t)1 << 43) + (j & 1 ? 3 : 0)) & RAID_F64_FRAC;
            for (int d = -1; d <= 1; d++) {
                const uint64_t f = (m + (uint64_t)(int64_t)d) & RAID_F64_FRAC;
                const uint64_t x = be >= 1 ? (uint64_t)be << 52 | f : (f | (uint64_t)1 << 52) >> (1 - be);
                for (int fn = 0; fn < FN_LOG1P; fn++)
                    check(fn, x, &t[fn]);
            }
        }
    for (int64_t n = -4096; n <= 4096; n++) {
        const uint64_t one = RAID_F64_LOG_ONE;
        for (int fn = 0; fn < FN_LOG1P; fn++) {
            check(fn, one + (uint64_t)n, &t[fn]);
            check(fn, t_bits_of(1 - 0x1p-10) + (uint64_t)n, &t[fn]);
            check(fn, t_bits_of(1 + 0x1p-9) + (uint64_t)n, &t[fn]);
        }
        for (int sign = 0; sign < 2; sign++) {
            const uint64_t sg = (uint64_t)sign << 63;
            check(FN_LOG1P, sg | t_bits_of((double)(n < 0 ? -n : n) * 0x1p-53), &t[FN_LOG1P]);
            check(FN_LOG1P, sg | (t_bits_of(0x1p-53) + (uint64_t)n), &t[FN_LOG1P]);
            check(FN_LOG1P, sg | (t_bits_of(0x1p-9) + (uint64_t)n), &t[FN_LOG1P]);
            check(FN_LOG1P, sg | (t_bits_of(0.5) + (uint64_t)n), &t[FN_LOG1P]);
            check(FN_LOG1P, sg | (t_bits_of(1) + (uint64_t)n), &t[FN_LOG1P]); /* -1 - n ulp: NaNs */
        }
        check(FN_LOG1P, t_bits_of(0x1p53) + (uint64_t)n, &t[FN_LOG1P]); /* the end of the fast path */
        check(FN_LOG1P, t_bits_of(0x1p52) + (uint64_t)n, &t[FN_LOG1P]);
    }
    for (int fn = 0; fn < NFN; fn++)
        report(fn, "edges", &t[fn]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_edges),
        cmocka_unit_test(test_worst_cases),
        cmocka_unit_test(test_random),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
