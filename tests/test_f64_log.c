/*
 * kernels/raid_f64_log.h (log, log2, log10, log1p, correctly rounded) on the host: special values and exact
 * cases against C99 Annex F and the host's libm; every worst case of CORE-MATH's lists (tests/data/f64_worst/,
 * Lefevre and Muller's searches) must pass the rounding test with the proven bound 2^-RAID_F64_LOG_ERRBITS,
 * and the test prints the largest number of bits any of them needed (the smallest margin); random inputs over
 * the whole domain and in the hard ranges (near 1, near -1 and tiny for log1p, subnormals, near the
 * largest binary64) must be `sure` and within 1 ulp of the host's libm (which is not correctly rounded:
 * mismatches are counted and printed; tests/python/test_f64_log.py compares with MPFR). RAID_F64_CASES sets
 * the number of random cases per function and range (default 10^5). The device's bits are compared with the
 * cpu path's through raid_f64_map where OpenCL is present.
 */
#include "support.h"
#include "raid.h"
#include "raid_f64_log.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { FN_LOG, FN_LOG2, FN_LOG10, FN_LOG1P, NFN };
static const char *const fn_name[NFN] = {"log", "log2", "log10", "log1p"};
static const int fn_base[NFN] = {0, 2, 10, -1};

static uint64_t raid_fn(int fn, uint64_t x, int *sure)
{
    return fn == FN_LOG1P ? raidF64Log1pSure(x, sure) : raidF64LogBase(x, fn_base[fn], sure);
}

static uint64_t host_fn(int fn, uint64_t x)
{
    volatile double v = t_from_bits(x);
    switch (fn) {
    case FN_LOG: return t_bits_of(log(v));
    case FN_LOG2: return t_bits_of(log2(v));
    case FN_LOG10: return t_bits_of(log10(v));
    default: return t_bits_of(log1p(v));
    }
}

/* The RaidWide result (finite inputs past the special and exact cases). */
static RaidWide wide_fn(int fn, uint64_t x) { return fn == FN_LOG1P ? raidF64Log1pWide(x) : raidF64LogWideBase(x, fn_base[fn]); }

/* The fewest bits of relative accuracy with which w's rounding is certain (65 .. 127; 128: never). */
static int bits_needed(RaidWide w)
{
    int lo = 65, hi = 128, sure;
    while (lo < hi) { /* sure is monotone in errbits */
        const int mid = (lo + hi) / 2;
        raidWideToF64(w, mid, &sure);
        if (sure)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

static int is_nan(uint64_t x) { return (x & 0x7FFFFFFFFFFFFFFFull) > 0x7FF0000000000000ull; }

/* How many binary64 values apart two finite results are. */
static uint64_t ulps(uint64_t a, uint64_t b)
{
    const int64_t ka = (a >> 63) ? -(int64_t)(a & ~(1ull << 63)) : (int64_t)a;
    const int64_t kb = (b >> 63) ? -(int64_t)(b & ~(1ull << 63)) : (int64_t)b;
    return ka > kb ? (uint64_t)(ka - kb) : (uint64_t)(kb - ka);
}

/* The host libm's own error bound in ulps, glibc's (its manual's table of known maximal errors, x86-64):
 * log10 near 1 is 2 ulps off (log10(0x1.ffffffffffeeap-1): glibc -0x1.e2ef7a8f83d3fp-47, MPFR's correctly
 * rounded -0x1.e2ef7a8f83d41p-47). */
static const uint64_t libm_ulps[NFN] = {1, 1, 2, 1};

typedef struct {
    uint64_t n, unsure, far, differ; /* cases; not sure; beyond libm's error from libm; within it */
    uint64_t second;                 /* decided by raidF64LogRoundSum's second test (log1p, |x| <= 2^-9) */
} Tally;

/* One finite input in the function's domain, past the exact cases: sure, within 1 ulp of libm. */
static void check(int fn, uint64_t x, Tally *t)
{
    int sure;
    const uint64_t r = raid_fn(fn, x, &sure), h = host_fn(fn, x);
    t->n++;
    t->second += sure == 2;
    if (!sure && t->unsure++ < 8)
        print_error("%s(%a) = %a: not sure\n", fn_name[fn], t_from_bits(x), t_from_bits(r));
    if (r != h) {
        const uint64_t d = ulps(r, h);
        if (d > libm_ulps[fn] || is_nan(r) != is_nan(h)) {
            if (t->far++ < 8)
                print_error("%s(%a): raid %a, libm %a\n", fn_name[fn], t_from_bits(x), t_from_bits(r), t_from_bits(h));
        } else
            t->differ++;
    }
}

static void report(int fn, const char *range, const Tally *t)
{
    print_message("%-5s %-12s %8llu cases, %llu differ from libm within its error, %llu unsure, %llu beyond it, "
                  "%llu decided by the second test\n", fn_name[fn], range, (unsigned long long)t->n,
                  (unsigned long long)t->differ, (unsigned long long)t->unsure, (unsigned long long)t->far,
                  (unsigned long long)t->second);
    if (t->unsure || t->far)
        fail_msg("%s %s: %llu unsure, %llu beyond libm's error", fn_name[fn], range, (unsigned long long)t->unsure,
                 (unsigned long long)t->far);
}

static void test_specials(void **state)
{
    (void)state;
    const uint64_t inf = 0x7FF0000000000000ull, dnan = 0xFFF8000000000000ull, one = 0x3FF0000000000000ull;
    const uint64_t snan = 0x7FF0000000000001ull, nnan = 0xFFF4000000000000ull;
    for (int fn = FN_LOG; fn <= FN_LOG10; fn++) {
        assert_true(raid_fn(fn, 0, &(int){0}) == (inf | 1ull << 63));
        assert_true(raid_fn(fn, 1ull << 63, &(int){0}) == (inf | 1ull << 63));
        assert_true(raid_fn(fn, inf, &(int){0}) == inf);
        assert_true(raid_fn(fn, inf | 1ull << 63, &(int){0}) == dnan);
        assert_true(raid_fn(fn, one | 1ull << 63, &(int){0}) == dnan);
        assert_true(raid_fn(fn, 1ull << 63 | 1, &(int){0}) == dnan); /* -min subnormal */
        assert_true(raid_fn(fn, one, &(int){0}) == 0);              /* +0 */
        assert_true(raid_fn(fn, snan, &(int){0}) == (snan | 1ull << 51));
        assert_true(raid_fn(fn, nnan, &(int){0}) == (nnan | 1ull << 51));
        for (uint64_t x = 0; x < 4; x++) /* the host agrees where it is Annex F's */
            assert_true(raid_fn(fn, x << 62, &(int){0}) == host_fn(fn, x << 62) || is_nan(host_fn(fn, x << 62)));
    }
    assert_true(raidF64Log1p(0) == 0);
    assert_true(raidF64Log1p(1ull << 63) == 1ull << 63);
    assert_true(raidF64Log1p(one | 1ull << 63) == (inf | 1ull << 63));
    assert_true(raidF64Log1p(0xBFF0000000000001ull) == dnan); /* just below -1 */
    assert_true(raidF64Log1p(inf | 1ull << 63) == dnan);
    assert_true(raidF64Log1p(inf) == inf);
    assert_true(raidF64Log1p(snan) == (snan | 1ull << 51));
    /* tiny: x itself, signed zeros and subnormals included */
    const uint64_t tiny[] = {1, 0x8000000000000001ull, 0x000FFFFFFFFFFFFFull, 0x3C9FFFFFFFFFFFFFull,
                             0xBC9FFFFFFFFFFFFFull, 0x3C90000000000000ull, 0xBC90000000000000ull};
    for (size_t i = 0; i < sizeof tiny / sizeof *tiny; i++)
        assert_true(raidF64Log1p(tiny[i]) == tiny[i] && host_fn(FN_LOG1P, tiny[i]) == tiny[i]);
}

static void test_exact(void **state)
{
    (void)state;
    int sure;
    for (int k = -1074; k <= 1023; k++) { /* log2(2^k) = k */
        const uint64_t x = k >= -1022 ? (uint64_t)(k + 1023) << 52 : 1ull << (k + 1074);
        assert_true(raidF64LogBase(x, 2, &sure) == t_bits_of((double)k) && sure);
    }
    double p = 1;
    for (int k = 0; k <= 22; k++, p *= 10) /* log10(10^k) = k: 10^k exact in binary64 */
        assert_true(raidF64LogBase(t_bits_of(p), 10, &sure) == t_bits_of((double)k) && sure);
    /* the exponents of 10^23 .. 10^308's neighbourhoods do not meet the table: results still sure */
    assert_true(raidF64LogBase(t_bits_of(1e23), 10, &sure) == t_bits_of(log10(1e23)) && sure);
    /* every exponent k's candidate: x = 10^k's neighbours are not exact (rounded, sure) */
    for (int k = 1; k <= 22; k++) {
        const uint64_t x = raidF64LogPow10[k];
        Tally t = {0};
        check(FN_LOG10, x + 1, &t);
        check(FN_LOG10, x - 1, &t);
        assert_true(t.unsure == 0 && t.far == 0);
    }
}

/* True for the inputs whose result is a special value or an exact case (handled before the RaidWide). */
static int special_or_exact(int fn, uint64_t x)
{
    if (is_nan(x) || (x & ~(1ull << 63)) == 0x7FF0000000000000ull)
        return 1;
    if (fn == FN_LOG1P)
        return x >= 0xBFF0000000000000ull || (x & ~(1ull << 63)) < 0x3CA0000000000000ull;
    if (x >> 63 || !x || x == 0x3FF0000000000000ull)
        return 1;
    if (fn == FN_LOG2 && !(x & 0x000FFFFFFFFFFFFFull) && x >> 52)
        return 1;
    if (fn == FN_LOG2 && !(x >> 52) && !(x & (x - 1)))
        return 1;
    if (fn == FN_LOG10)
        for (int k = 0; k <= 22; k++)
            if (x == raidF64LogPow10[k])
                return 1;
    return 0;
}

static void test_worst_cases(void **state)
{
    (void)state;
    for (int fn = 0; fn < NFN; fn++) {
        size_t n;
        uint64_t *v = t_read_worst_finite(fn_name[fn], &n);
        Tally t = {0};
        int most = 0;
        uint64_t hardest = 0;
        for (size_t i = 0; i < n; i++) {
            if (special_or_exact(fn, v[i]))
                continue;
            const uint64_t second = t.second;
            check(fn, v[i], &t);
            if (t.second != second) /* decided past the first rounding test: see raidF64LogRoundSum */
                continue;
            const int b = bits_needed(wide_fn(fn, v[i]));
            if (b > most) {
                most = b;
                hardest = v[i];
            }
        }
        print_message("%-5s worst cases: the hardest of those the first rounding test decides, %a, needs %d bits "
                      "of the %d proven (margin %d bits)\n",
                      fn_name[fn], t_from_bits(hardest), most, RAID_F64_LOG_ERRBITS, RAID_F64_LOG_ERRBITS - most);
        report(fn, "worst cases", &t);
        assert_true(most <= RAID_F64_LOG_ERRBITS);
        free(v);
    }
}

static uint64_t ncases(void)
{
    const char *env = getenv("RAID_F64_CASES");
    return env ? strtoull(env, NULL, 10) : 100000;
}

/* Random inputs: uniform positive bit patterns (the whole domain), near 1 (x = 1 + d, |d| from 2^-60 to
 * 2^-4 with random bits), subnormals, and the top binade; for log1p also tiny (|x| < 2^-8), near -1, and
 * above 2^53 (where 1 + x is not a binary64). */
static void test_random(void **state)
{
    (void)state;
    const uint64_t n = ncases();
    uint64_t s = 0x10615;
    static const char *const range[] = {"uniform", "near 1", "subnormal", "top binade", "tiny", "near -1", "large"};
    for (int fn = 0; fn < NFN; fn++)
        for (int rg = 0; rg < 7; rg++) {
            if ((rg >= 4 && fn != FN_LOG1P) || (rg == 2 && fn == FN_LOG1P)) /* log1p(subnormal) = x: specials */
                continue;
            Tally t = {0};
            for (uint64_t i = 0; i < n; i++) {
                const uint64_t u = t_splitmix64(&s);
                uint64_t x;
                switch (rg) {
                case 0: x = u % 0x7FF0000000000000ull; break;
                case 1: {
                    const int e = 60 - (int)(u % 57); /* |d| in [2^-60, 2^-3) */
                    const double d = ldexp((double)(t_splitmix64(&s) >> 11) * 0x1p-53 + 1, -e);
                    x = t_bits_of(fn == FN_LOG1P ? ((u >> 32) & 1 ? d : -d) : 1 + ((u >> 32) & 1 ? d : -d));
                    break;
                }
                case 2: x = 1 + u % 0x000FFFFFFFFFFFFFull; break;
                case 3: x = 0x7FE0000000000000ull | (u & 0x000FFFFFFFFFFFFFull); break;
                case 4: x = ((u >> 63) << 63) | ((uint64_t)(0x3CA + (u >> 52) % (0x3F7 - 0x3CA)) << 52) |
                            (u & 0x000FFFFFFFFFFFFFull); break; /* 2^-53 <= |x| < 2^-8 */
                case 5: x = t_bits_of(-1 + ldexp((double)(u >> 11) * 0x1p-53 + 1, -(int)(t_splitmix64(&s) % 53) - 1));
                    break;
                default: x = ((uint64_t)(0x434 + (u >> 52) % (0x7FF - 0x434)) << 52) | (u & 0x000FFFFFFFFFFFFFull);
                }
                if (special_or_exact(fn, x) || (fn == FN_LOG1P && x >= 0xBFF0000000000000ull))
                    continue;
                check(fn, x, &t);
            }
            report(fn, range[rg], &t);
        }
}

/* The device (OpenCL, PoCL in CI) gives the cpu path's bits through raid_f64_map. */
static void test_device(void **state)
{
    (void)state;
    if (!t_have_opencl())
        skip();
    enum { N = 4096 };
    double *a = malloc(N * sizeof *a), *c = malloc(N * sizeof *c), *d = malloc(N * sizeof *d);
    assert_true(a && c && d);
    uint64_t s = 0xD0;
    for (int i = 0; i < N; i++) {
        const uint64_t u = t_splitmix64(&s);
        a[i] = i % 3 == 0 ? t_from_bits(u) : i % 3 == 1 ? 1 + ldexp(t_unif(&s) - 0.5, -(int)(u % 40)) : -1 + t_unif(&s) * 4;
    }
    a[0] = 1;
    a[1] = -1;
    a[2] = 0;
    raid_ctx *cpu = t_open_ctx("cpu"), *dev = t_open_ctx(t_device());
    static const raid_f64_op ops[NFN] = {RAID_F64_LOG, RAID_F64_LOG2, RAID_F64_LOG10, RAID_F64_LOG1P};
    for (int fn = 0; fn < NFN; fn++) {
        assert_int_equal(raid_f64_map(cpu, ops[fn], a, NULL, c, N), RAID_OK);
        assert_int_equal(raid_f64_map(dev, ops[fn], a, NULL, d, N), RAID_OK);
        for (int i = 0; i < N; i++) {
            if (t_bits_of(c[i]) != t_bits_of(d[i]))
                fail_msg("%s(%a): device %a, cpu %a", fn_name[fn], a[i], d[i], c[i]);
            assert_true(t_bits_of(c[i]) == raid_fn(fn, t_bits_of(a[i]), &(int){0}));
        }
    }
    raid_ctx_destroy(dev);
    raid_ctx_destroy(cpu);
    free(a);
    free(c);
    free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_specials),
        cmocka_unit_test(test_exact),
        cmocka_unit_test(test_worst_cases),
        cmocka_unit_test(test_random),
        cmocka_unit_test(test_device),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
