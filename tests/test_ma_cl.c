/* The moving averages' device path (kernels/ta_ma.cl, src/ta/ma_device.c) against the float64 host path
 * (src/ta/ma.c) within the bounds of docs/ta.md ("The device path and its bound"): every statistic, odd and
 * even windows, window 1 and windows longer than the series, leading and inner NaN, many ragged series in
 * one call, price scale (a random walk near 30,000 over 150,000 bars: WMA and HMA at 10, 100 and 200
 * within 1e-13 of float64), values near 1e99 and 1e-100, NaN positions identical bit for bit, determinism,
 * and `raid ma --device`
 * against `--device cpu`. One device context for the file; skipped without an OpenCL device. */
#define _POSIX_C_SOURCE 200809L
#include "support.h"

#include "raid.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define U2 0x1p-48 /* u^2, u = 2^-24 */

static raid_ctx *g_ctx;

static int setup(void **state)
{
    (void)state;
    if (t_have_opencl())
        g_ctx = t_open_ctx(t_device());
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    raid_ctx_destroy(g_ctx);
    return 0;
}

static uint64_t rng = 0x2545f4914f6cdd1dULL;

/* The bound of docs/ta.md for output i (the host path's value c; M the largest |x| of the series around
 * i's window, over the whole input here: a looser but simpler scale). */
static double bound(raid_ma_stat s, int64_t n, double c, double M)
{
    switch (s) {
    case RAID_MA_SUM:
        return 2 * U2 * (double)n * M;
    case RAID_MA_MEAN:
    case RAID_MA_WMA:
        return 2 * U2 * M;
    case RAID_MA_SUMSQ:
        return 4 * U2 * (double)n * M * M;
    case RAID_MA_VAR: /* the deviations' errors (8 u^2 M each) against their spread, and the sum's */
        return 16 * U2 * M * sqrt((double)n / (double)(n - 1) * c) + 4 * U2 * c + 64 * U2 * U2 * M * M;
    case RAID_MA_EMA:
        return (4 + 14 * ((double)n + 1) / 2) * U2 * M;
    case RAID_MA_HMA:
        return 30 * U2 * M;
    default:
        return 0;
    }
}

/* Host and device on the same input: identical NaN positions, values within bound(); the largest
 * |device - host| / bound and relative error through *ratio and *rel (may be NULL). */
static void compare(raid_ma_stat s, int64_t n, const double *x, const int64_t *off, size_t nseg, double *ratio,
                    double *rel)
{
    const size_t N = (size_t)off[nseg];
    double *c = malloc((N + 1) * sizeof *c), *d = malloc((N + 1) * sizeof *d);
    assert_non_null(c);
    assert_non_null(d);
    double M = 0;
    for (size_t i = 0; i < N; i++)
        if (!isnan(x[i]) && fabs(x[i]) > M)
            M = fabs(x[i]);
    assert_int_equal(raid_ma_compute(NULL, s, n, x, off, nseg, c), RAID_OK);
    if (raid_ma_compute(g_ctx, s, n, x, off, nseg, d) != RAID_OK)
        fail_msg("%s", raid_ctx_errmsg(g_ctx));
    double worst = 0, wrel = 0;
    for (size_t i = (size_t)off[0]; i < N; i++) {
        if (isnan(c[i]) != isnan(d[i]))
            fail_msg("%s(%lld)[%zu]: NaN mask differs: host %.17g device %.17g", raid_ma_stat_name(s), (long long)n, i,
                     c[i], d[i]);
        if (isnan(c[i]))
            continue;
        const double b = bound(s, n, c[i], M), e = fabs(d[i] - c[i]);
        if (!(e <= b))
            fail_msg("%s(%lld)[%zu]: host %.17g device %.17g: |difference| %.3g above the bound %.3g",
                     raid_ma_stat_name(s), (long long)n, i, c[i], d[i], e, b);
        if (b > 0 && e / b > worst)
            worst = e / b;
        if (c[i] != 0 && e / fabs(c[i]) > wrel)
            wrel = e / fabs(c[i]);
    }
    if (ratio)
        *ratio = worst;
    if (rel)
        *rel = wrel;
    free(c);
    free(d);
}

static const raid_ma_stat ALL[RAID_MA_NSTATS] = {RAID_MA_SUM, RAID_MA_MEAN, RAID_MA_SUMSQ, RAID_MA_VAR,
                                                 RAID_MA_WMA, RAID_MA_EMA,  RAID_MA_HMA};

/* Small series by hand: every statistic, windows 1 to 9 (odd and even) and beyond the length, leading and
 * inner NaN, two series, a non-zero offsets[0]. */
static void test_small(void **state)
{
    (void)state;
    if (!g_ctx)
        skip();
    const double NA = NAN;
    const double x[] = {-1, NA, NA, 100.5, 101.25, 99.75, 102, 103.5, NA, 104, 103, 105.5, 106, 104.5, 107, 108,
                        NA, 2, 3, NA, 50, 51, 49.5, 52, 53, 54.25, 55, 56, 57.5, 58, 59, 60, 61, NA};
    const size_t N = sizeof x / sizeof x[0];
    const int64_t off[4] = {1, 17, 20, (int64_t)N}; /* offsets[0] = 1: x[0] is not part of the input */
    for (int k = 0; k < RAID_MA_NSTATS; k++)
        for (int64_t n = ALL[k] == RAID_MA_HMA ? 2 : 1; n <= 20; n++)
            compare(ALL[k], n, x, off, 3, NULL, NULL);
    /* a window above 2^24 stays on the host path (all NaN here, as the host gives) */
    compare(RAID_MA_WMA, (1 << 24) + 1, x, off, 3, NULL, NULL);
    compare(RAID_MA_HMA, RAID_MA_MAX_WINDOW, x, off, 3, NULL, NULL);
}

/* Many ragged series with NaN here and there, mixed signs in some. */
static void test_ragged(void **state)
{
    (void)state;
    if (!g_ctx)
        skip();
    const size_t nseg = 300;
    int64_t *off = malloc((nseg + 1) * sizeof *off);
    double *x = malloc(nseg * 80 * sizeof *x);
    assert_non_null(off);
    assert_non_null(x);
    off[0] = 0;
    for (size_t s = 0; s < nseg; s++) {
        const size_t len = (size_t)(t_unif(&rng) * 80);
        const double level = s % 5 == 0 ? 0.0 : 1000.0 * t_unif(&rng), step = s % 7 == 0 ? 0.001 : 1.0;
        double v = level;
        for (size_t i = 0; i < len; i++) {
            v += step * (t_unif(&rng) - 0.5);
            x[off[s] + (int64_t)i] = t_unif(&rng) < 0.04 || (s % 3 == 0 && i < 3) ? NAN : v;
        }
        off[s + 1] = off[s] + (int64_t)len;
    }
    const int64_t windows[] = {1, 2, 3, 4, 7, 10, 16, 25, 64, 81};
    for (int k = 0; k < RAID_MA_NSTATS; k++)
        for (size_t w = 0; w < sizeof windows / sizeof windows[0]; w++)
            if (!(ALL[k] == RAID_MA_HMA && windows[w] < 2))
                compare(ALL[k], windows[w], x, off, nseg, NULL, NULL);
    free(off);
    free(x);
}

/* The random walk near 30,000 (150,000 bars). */
static double *walk(size_t n)
{
    double *x = malloc(n * sizeof *x);
    assert_non_null(x);
    double v = 30000;
    for (size_t i = 0; i < n; i++) {
        v += 30 * (t_unif(&rng) - 0.5);
        x[i] = v;
    }
    return x;
}

/* Price scale: WMA and HMA at 10, 100, 200 within 1e-13 relative of float64, the other statistics within
 * their bounds (on a shorter stretch: PoCL's time). */
static void test_price_scale(void **state)
{
    (void)state;
    if (!g_ctx)
        skip();
    const size_t N = 150000;
    double *x = walk(N);
    const int64_t off[2] = {0, (int64_t)N}, off_short[2] = {0, 20000};
    const int64_t periods[3] = {10, 100, 200};
    for (int p = 0; p < 3; p++) {
        double ratio, rel;
        raid_timing tm;
        compare(RAID_MA_WMA, periods[p], x, off, 1, &ratio, &rel);
        raid_ctx_last_timing(g_ctx, &tm);
        printf("price scale, %zu bars: device WMA(%lld) max relative error %.3g (%.3f of its bound); kernel %.3f s\n",
               N, (long long)periods[p], rel, ratio, tm.kernel_s);
        assert_true(rel <= 1e-13);
        compare(RAID_MA_HMA, periods[p], x, off, 1, &ratio, &rel);
        raid_ctx_last_timing(g_ctx, &tm);
        printf("price scale, %zu bars: device HMA(%lld) max relative error %.3g (%.3f of its bound); kernels %.3f s\n",
               N, (long long)periods[p], rel, ratio, tm.kernel_s);
        assert_true(rel <= 1e-13);
    }
    const raid_ma_stat others[5] = {RAID_MA_SUM, RAID_MA_MEAN, RAID_MA_SUMSQ, RAID_MA_VAR, RAID_MA_EMA};
    for (int k = 0; k < 5; k++)
        for (int p = 0; p < 3; p++) {
            double ratio, rel;
            compare(others[k], periods[p], x, off_short, 1, &ratio, &rel);
            printf("price scale, 20000 bars: device %s(%lld) max relative error %.3g (%.3f of its bound)\n",
                   raid_ma_stat_name(others[k]), (long long)periods[p], rel, ratio);
        }
    free(x);
}

/* Values beyond float32's range and far below it (the host scales each series by a power of two): every
 * statistic within its bound, one series per call (the bound's M is the series' own), and three series
 * of very different scales in one call (NaN positions; values against the host path relative to each
 * series' scale). */
static void test_scales(void **state)
{
    (void)state;
    if (!g_ctx)
        skip();
    const size_t L = 300;
    double *x = malloc(3 * L * sizeof *x), *c = malloc(3 * L * sizeof *c), *d = malloc(3 * L * sizeof *d);
    assert_non_null(x);
    assert_non_null(c);
    assert_non_null(d);
    const double scale[3] = {1e97, 1e-100, 3e-5}; /* |x| up to about 1.2e99 <= RAID_MA_MAX_VALUE */
    for (int k = 0; k < 3; k++) {
        double v = 100;
        for (size_t i = 0; i < L; i++) {
            v += t_unif(&rng) - 0.5;
            x[k * L + i] = i == 40 ? NAN : v * scale[k];
        }
    }
    const int64_t off3[4] = {0, (int64_t)L, 2 * (int64_t)L, 3 * (int64_t)L};
    for (int k = 0; k < RAID_MA_NSTATS; k++) {
        for (int j = 0; j < 3; j++) {
            /* compare() takes offsets from 0: shift the series to the front */
            const int64_t off0[2] = {0, (int64_t)L};
            compare(ALL[k], 12, x + j * L, off0, 1, NULL, NULL);
        }
        assert_int_equal(raid_ma_compute(NULL, ALL[k], 12, x, off3, 3, c), RAID_OK);
        assert_int_equal(raid_ma_compute(g_ctx, ALL[k], 12, x, off3, 3, d), RAID_OK);
        for (size_t i = 0; i < 3 * L; i++) {
            assert_int_equal(isnan(c[i]), isnan(d[i]));
            if (!isnan(c[i]))
                assert_true(fabs(d[i] - c[i]) <= 1e-9 * fabs(c[i]));
        }
    }
    free(x);
    free(c);
    free(d);
}

/* Two runs give the same bits. */
static void test_determinism(void **state)
{
    (void)state;
    if (!g_ctx)
        skip();
    const size_t N = 5000;
    double *x = walk(N), *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b);
    assert_non_null(a);
    assert_non_null(b);
    x[100] = NAN;
    const int64_t off[3] = {0, 2000, (int64_t)N};
    for (int k = 0; k < RAID_MA_NSTATS; k++) {
        assert_int_equal(raid_ma_compute(g_ctx, ALL[k], 50, x, off, 2, a), RAID_OK);
        assert_int_equal(raid_ma_compute(g_ctx, ALL[k], 50, x, off, 2, b), RAID_OK);
        assert_memory_equal(a, b, N * sizeof *a);
    }
    /* nothing to do: no series, or empty series */
    const int64_t empty[3] = {0, 0, 0};
    assert_int_equal(raid_ma_compute(g_ctx, RAID_MA_WMA, 3, x, empty, 2, a), RAID_OK);
    assert_int_equal(raid_ma_compute(g_ctx, RAID_MA_WMA, 3, x, empty, 0, a), RAID_OK);
    free(x);
    free(a);
    free(b);
}

/* Parse raid ma's CSV output: the last field of each data row (NaN when empty). */
static size_t parse_last(char *txt, double *v, size_t cap)
{
    size_t n = 0;
    char *line = strchr(txt, '\n');
    while (line && line[1]) {
        char *next = strchr(line + 1, '\n'), *comma = line + 1, *p;
        if (next)
            *next = '\0';
        while ((p = strchr(comma, ',')))
            comma = p + 1;
        assert_true(n < cap);
        v[n++] = *comma ? strtod(comma, NULL) : NAN;
        line = next;
    }
    return n;
}

/* raid ma --device opencl equals --device cpu to the bound, NaN for NaN. */
static void test_cli_device(void **state)
{
    (void)state;
    if (!g_ctx)
        skip();
    const char *stats[3] = {"wma", "hma", "ema"};
    enum { CAP = 6000 };
    static double vc[CAP], vd[CAP];
    char *ox = NULL;
    assert_int_equal(t_cli(&ox, NULL, "ma %s --stat sum --window 1 --device cpu", t_data("ttrc_daily.csv")), 0);
    double M = 0; /* the largest close: the EMA's bound scales with it */
    const size_t nx = parse_last(ox, vc, CAP);
    for (size_t i = 0; i < nx; i++)
        M = fabs(vc[i]) > M ? fabs(vc[i]) : M;
    free(ox);
    for (int k = 0; k < 3; k++) {
        char *oc = NULL, *od = NULL, *err = NULL;
        assert_int_equal(t_cli(&oc, &err, "ma %s --stat %s --window 20 --device cpu", t_data("ttrc_daily.csv"), stats[k]), 0);
        free(err);
        assert_int_equal(t_cli(&od, &err, "ma %s --stat %s --window 20 --device %s", t_data("ttrc_daily.csv"), stats[k],
                               t_device()),
                         0);
        free(err);
        const size_t nc = parse_last(oc, vc, CAP), nd = parse_last(od, vd, CAP);
        assert_int_equal(nc, nd);
        assert_true(nc == 5550);
        for (size_t i = 0; i < nc; i++) {
            assert_int_equal(isnan(vc[i]), isnan(vd[i]));
            if (!isnan(vc[i]))
                assert_true(fabs(vd[i] - vc[i]) <= (k < 2 ? 1e-13 * fabs(vc[i]) : bound(RAID_MA_EMA, 20, vc[i], M)));
        }
        free(oc);
        free(od);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_small),       cmocka_unit_test(test_ragged), cmocka_unit_test(test_price_scale),
        cmocka_unit_test(test_scales),      cmocka_unit_test(test_determinism), cmocka_unit_test(test_cli_device),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
