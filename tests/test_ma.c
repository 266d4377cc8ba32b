/* The moving averages' float64 path (include/raid/ma.h, docs/ta.md): hand-computed small cases of every
 * statistic (odd and even windows, window 1, window longer than the series), leading and inner NaN, many
 * series in one call equal to each alone, errors, the float32 prefix-sum trap at price scale against the
 * float64 WMA, and raid ma's reading, writing and errors (FILE:LINE:COL, no partial output). The
 * comparison with R TTR itself is tests/python/test_ma_ttr.py. */
#include "support.h"

#include "raid.h"
#include "ta/ma_internal.h"

#include <float.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NA NAN

/* One series x[0..n) through raid_ma_compute into out. */
static raid_status ma1(raid_ma_stat s, int64_t w, const double *x, size_t n, double *out)
{
    const int64_t off[2] = {0, (int64_t)n};
    return raid_ma_compute(NULL, s, w, x, off, 1, out);
}

/* got == want elementwise: NaN where want is NaN, else within tol relative (0: bit for bit). */
static void expect(raid_ma_stat s, int64_t w, const double *x, size_t n, const double *want, double tol)
{
    double got[64];
    assert_true(n <= 64);
    assert_int_equal(ma1(s, w, x, n, got), RAID_OK);
    for (size_t i = 0; i < n; i++) {
        if (isnan(want[i]) != isnan(got[i]) ||
            (!isnan(want[i]) && !(fabs(got[i] - want[i]) <= tol * fabs(want[i]))))
            fail_msg("%s(%lld)[%zu]: got %.17g, want %.17g", raid_ma_stat_name(s), (long long)w, i, got[i], want[i]);
    }
}

static const double X5[5] = {1, 2, 3, 4, 5};

static void test_window_stats(void **state)
{
    (void)state;
    expect(RAID_MA_SUM, 2, X5, 5, (double[]){NA, 3, 5, 7, 9}, 0);
    expect(RAID_MA_SUM, 3, X5, 5, (double[]){NA, NA, 6, 9, 12}, 0);
    expect(RAID_MA_MEAN, 2, X5, 5, (double[]){NA, 1.5, 2.5, 3.5, 4.5}, 0);
    expect(RAID_MA_MEAN, 3, X5, 5, (double[]){NA, NA, 2, 3, 4}, 0);
    expect(RAID_MA_SUMSQ, 2, X5, 5, (double[]){NA, 5, 13, 25, 41}, 0);
    expect(RAID_MA_SUMSQ, 3, X5, 5, (double[]){NA, NA, 14, 29, 50}, 0);
    /* sample variance (divisor n - 1, TTR runVar's default) */
    expect(RAID_MA_VAR, 2, X5, 5, (double[]){NA, 0.5, 0.5, 0.5, 0.5}, 0);
    expect(RAID_MA_VAR, 3, X5, 5, (double[]){NA, NA, 1, 1, 1}, 0);
    expect(RAID_MA_VAR, 3, (double[]){2, 4, 9, 1}, 4, (double[]){NA, NA, 13, 49. / 3}, 1e-15);
    /* WMA, weights 1..n over the window, the newest weighted n */
    expect(RAID_MA_WMA, 2, X5, 5, (double[]){NA, 5. / 3, 8. / 3, 11. / 3, 14. / 3}, 1e-15);
    expect(RAID_MA_WMA, 3, X5, 5, (double[]){NA, NA, 14. / 6, 20. / 6, 26. / 6}, 1e-15);
    expect(RAID_MA_WMA, 3, (double[]){4, 0, 1, 7}, 4, (double[]){NA, NA, 7. / 6, 23. / 6}, 1e-15);
}

static void test_ema_hma(void **state)
{
    (void)state;
    /* EMA: seeded with the mean of the first n, then x r + e (1 - r), r = 2/(n+1) */
    expect(RAID_MA_EMA, 3, X5, 5, (double[]){NA, NA, 2, 3, 4}, 0);
    expect(RAID_MA_EMA, 2, X5, 5, (double[]){NA, 1.5, 2.5, 3.5, 4.5}, 1e-15);
    expect(RAID_MA_EMA, 3, (double[]){3, 0, 6, 1, 9}, 5, (double[]){NA, NA, 3, 2, 5.5}, 1e-15);
    /* HMA(4) = WMA(2 WMA(x,2) - WMA(x,4), 2): d_3 = 13/3, d_4 = 16/3, hma_4 = (13/3 + 2 16/3) / 3 = 5 */
    expect(RAID_MA_HMA, 4, X5, 5, (double[]){NA, NA, NA, NA, 5}, 1e-15);
    /* HMA(2) = WMA(2 x - WMA(x, 2), 1): 2 x_t - (x_{t-1} + 2 x_t)/3 */
    expect(RAID_MA_HMA, 2, (double[]){3, 0, 6}, 3, (double[]){NA, 0 - 1, 12 - 4}, 1e-15);
    /* On a line x_t = a + b t a WMA(k) lags by (k - 1)/3 bars, so the HMA lags by
     * (s - 1)/3 + 2 (m - 1)/3 - (n - 1)/3, m = trunc(n/2), s = trunc(sqrt(n)): the truncations of TTR's
     * convention show (odd and even n) */
    double x[64], want[64];
    for (int n = 2; n <= 17; n++) {
        const int m = n / 2, s = n >= 16 ? 4 : n >= 9 ? 3 : n >= 4 ? 2 : 1;
        const double lag = (s - 1) / 3.0 + 2.0 * (m - 1) / 3.0 - (n - 1) / 3.0;
        for (int t = 0; t < 64; t++) {
            x[t] = 100 + 0.25 * t;
            want[t] = t < raid_ma_warmup(RAID_MA_HMA, n) ? NA : x[t] - 0.25 * lag;
        }
        expect(RAID_MA_HMA, n, x, 64, want, 1e-14);
    }
    assert_int_equal(raid_ma_warmup(RAID_MA_HMA, 4), 4);
    assert_int_equal(raid_ma_warmup(RAID_MA_HMA, 10), 11);
    assert_int_equal(raid_ma_warmup(RAID_MA_HMA, 16), 18);
    assert_int_equal(raid_ma_warmup(RAID_MA_HMA, 15), 16);
    assert_int_equal(raid_ma_warmup(RAID_MA_WMA, 10), 9);
    assert_int_equal(raid_ma_warmup(RAID_MA_HMA, 1), -1);
}

static void test_window_one_and_long(void **state)
{
    (void)state;
    expect(RAID_MA_SUM, 1, X5, 5, X5, 0);
    expect(RAID_MA_MEAN, 1, X5, 5, X5, 0);
    expect(RAID_MA_WMA, 1, X5, 5, X5, 0); /* TTR 0.24 would also set the first NA: not copied */
    expect(RAID_MA_EMA, 1, X5, 5, X5, 0);
    expect(RAID_MA_SUMSQ, 1, X5, 5, (double[]){1, 4, 9, 16, 25}, 0);
    expect(RAID_MA_VAR, 1, X5, 5, (double[]){NA, NA, NA, NA, NA}, 0); /* as TTR: one value has no sample variance */
    const double all[5] = {NA, NA, NA, NA, NA};
    for (int s = 0; s < RAID_MA_NSTATS; s++) {
        expect((raid_ma_stat)s, 6, X5, 5, all, 0); /* TTR stops with an error; all NaN here */
        expect((raid_ma_stat)s, 1000, X5, 5, all, 0);
    }
    expect(RAID_MA_HMA, 5, X5, 5, all, 0); /* warm-up 4 + 1 = 5 */
}

static void test_nan_rules(void **state)
{
    (void)state;
    /* leading NaN shift the start (TTR) */
    const double lead[7] = {NA, NA, 1, 2, 3, 4, 5};
    expect(RAID_MA_WMA, 3, lead, 7, (double[]){NA, NA, NA, NA, 14. / 6, 20. / 6, 26. / 6}, 1e-15);
    expect(RAID_MA_EMA, 3, lead, 7, (double[]){NA, NA, NA, NA, 2, 3, 4}, 0);
    expect(RAID_MA_SUM, 2, lead, 7, (double[]){NA, NA, NA, 3, 5, 7, 9}, 0);
    expect(RAID_MA_HMA, 4, (double[]){NA, 1, 2, 3, 4, 5}, 6, (double[]){NA, NA, NA, NA, NA, 5}, 1e-15);
    /* an inner NaN splits the series: windows holding it NaN, the EMA restarts after it */
    const double in[8] = {1, 2, 3, NA, 4, 5, 6, 7};
    expect(RAID_MA_SUM, 2, in, 8, (double[]){NA, 3, 5, NA, NA, 9, 11, 13}, 0);
    expect(RAID_MA_VAR, 2, in, 8, (double[]){NA, .5, .5, NA, NA, .5, .5, .5}, 0);
    expect(RAID_MA_EMA, 2, in, 8, (double[]){NA, 1.5, 2.5, NA, NA, 4.5, 5.5, 6.5}, 1e-15);
    expect(RAID_MA_WMA, 3, in, 8, (double[]){NA, NA, 14. / 6, NA, NA, NA, 32. / 6, 38. / 6}, 1e-15);
    /* several NaN in a row, and a run shorter than the window */
    expect(RAID_MA_MEAN, 2, (double[]){NA, 1, NA, NA, 2, 4, NA, 6}, 8, (double[]){NA, NA, NA, NA, NA, 3, NA, NA}, 0);
    /* the HMA of each run is the HMA of that run alone */
    double x[40], a[40], b[40];
    for (int t = 0; t < 40; t++)
        x[t] = 50 + sin(t);
    x[17] = NA;
    assert_int_equal(ma1(RAID_MA_HMA, 5, x, 40, a), RAID_OK);
    assert_int_equal(ma1(RAID_MA_HMA, 5, x + 18, 22, b), RAID_OK);
    assert_true(isnan(a[17]));
    assert_memory_equal(a + 18, b, 22 * sizeof *b);
    for (int t = 17; t < 18 + raid_ma_warmup(RAID_MA_HMA, 5); t++)
        assert_true(isnan(a[t]));
}


static void test_segments(void **state)
{
    (void)state;
    enum { NSEG = 40 };
    int64_t off[NSEG + 1];
    uint64_t seed = 7;
    off[0] = 3; /* offsets[0] need not be 0 */
    for (int s = 0; s < NSEG; s++)
        off[s + 1] = off[s] + (s % 7 == 3 ? 0 : (int64_t)(t_unif(&seed) * 300));
    const size_t n = (size_t)off[NSEG];
    double *x = malloc(n * sizeof *x), *all = malloc(n * sizeof *all), *one = malloc(n * sizeof *one);
    assert_non_null(x), assert_non_null(all), assert_non_null(one);
    double p = 100;
    for (size_t i = 0; i < n; i++) {
        p *= exp(0.01 * (t_unif(&seed) - 0.5));
        x[i] = t_unif(&seed) < 0.02 ? NA : p;
    }
    const int64_t wins[] = {1, 2, 3, 7, 10, 31};
    for (int s = 0; s < RAID_MA_NSTATS; s++)
        for (size_t k = 0; k < sizeof wins / sizeof *wins; k++) {
            if (raid_ma_warmup((raid_ma_stat)s, wins[k]) < 0)
                continue;
            all[0] = all[1] = all[2] = -1; /* before offsets[0]: untouched */
            assert_int_equal(raid_ma_compute(NULL, (raid_ma_stat)s, wins[k], x, off, NSEG, all), RAID_OK);
            assert_true(all[0] == -1 && all[2] == -1);
            for (int g = 0; g < NSEG; g++)
                assert_int_equal(raid_ma_compute(NULL, (raid_ma_stat)s, wins[k], x, off + g, 1, one), RAID_OK);
            assert_memory_equal(all + 3, one + 3, (n - 3) * sizeof *one);
        }
    /* with a context (any backend: the host float64 path today) the same bits */
    raid_ctx *ctx = NULL;
    assert_int_equal(raid_ctx_create(&ctx, "cpu"), RAID_OK);
    assert_int_equal(raid_ma_compute(ctx, RAID_MA_HMA, 20, x, off, NSEG, one), RAID_OK);
    assert_int_equal(raid_ma_compute(NULL, RAID_MA_HMA, 20, x, off, NSEG, all), RAID_OK);
    assert_memory_equal(all + 3, one + 3, (n - 3) * sizeof *one);
    raid_ctx_destroy(ctx);
    free(x), free(all), free(one);
}

static void test_errors(void **state)
{
    (void)state;
    double out[5];
    int64_t off[3] = {0, 5, 4};
    assert_int_equal(ma1(RAID_MA_WMA, 0, X5, 5, out), RAID_EINVAL);
    assert_non_null(strstr(raid_errmsg(), "bad window 0"));
    assert_int_equal(ma1(RAID_MA_HMA, 1, X5, 5, out), RAID_EINVAL);
    assert_int_equal(ma1(RAID_MA_SUM, (int64_t)RAID_MA_MAX_WINDOW + 1, X5, 5, out), RAID_EINVAL);
    assert_int_equal(ma1((raid_ma_stat)7, 2, X5, 5, out), RAID_EINVAL);
    assert_int_equal(raid_ma_compute(NULL, RAID_MA_SUM, 2, X5, off, 2, out), RAID_EINVAL);
    assert_non_null(strstr(raid_errmsg(), "decrease"));
    assert_int_equal(ma1(RAID_MA_SUM, 2, (double[]){1, INFINITY, 3}, 3, out), RAID_EINVAL);
    assert_non_null(strstr(raid_errmsg(), "index 1 of series 0"));
    assert_int_equal(ma1(RAID_MA_SUM, 2, (double[]){1, 2e100, 3}, 3, out), RAID_EINVAL);
    assert_int_equal(raid_ma_compute(NULL, RAID_MA_SUM, 2, NULL, off, 1, out), RAID_EINVAL);
    assert_int_equal(raid_ma_compute(NULL, RAID_MA_SUM, 2, NULL, off, 0, NULL), RAID_OK); /* no series */
    raid_ma_stat s;
    assert_int_equal(raid_ma_stat_parse("hma", &s), RAID_OK);
    assert_int_equal(s, RAID_MA_HMA);
    assert_int_equal(raid_ma_stat_parse("sma", &s), RAID_OK); /* TTR's name of the mean */
    assert_int_equal(s, RAID_MA_MEAN);
    assert_int_equal(raid_ma_stat_parse("SMA", &s), RAID_EINVAL);
    assert_int_equal(raid_ma_stat_parse("smaa", &s), RAID_EINVAL);
    assert_string_equal(raid_ma_stat_name(RAID_MA_SUMSQ), "sumsq");
    assert_string_equal(raid_ma_stat_name((raid_ma_stat)9), "?");
    assert_int_equal(raid_ma_wma_prefix_f32((double[]){1, NAN}, 2, 1, out), RAID_EINVAL);
}

/* The trap at price scale: the float32 prefix-sum WMA against the float64 direct WMA, and the float64
 * WMA against a long double evaluation of the same windows. */
static void test_prefix_trap(void **state)
{
    (void)state;
    const size_t n = 150000;
    double *x = malloc(n * sizeof *x), *f64 = malloc(n * sizeof *x), *pre = malloc(n * sizeof *x);
    assert_non_null(x), assert_non_null(f64), assert_non_null(pre);
    uint64_t seed = 42;
    double p = 30000;
    for (size_t i = 0; i < n; i++) {
        p *= exp(0.002 * (t_unif(&seed) - 0.5)); /* a random walk around 30,000 */
        x[i] = p;
    }
    const int64_t wins[] = {10, 100};
    for (size_t k = 0; k < 2; k++) {
        const int64_t w = wins[k];
        assert_int_equal(ma1(RAID_MA_WMA, w, x, n, f64), RAID_OK);
        assert_int_equal(raid_ma_wma_prefix_f32(x, n, w, pre), RAID_OK);
        double worst = 0, worst64 = 0;
        for (size_t t = (size_t)w - 1; t < n; t++) {
            const double e = fabs(pre[t] - f64[t]) / fabs(f64[t]);
            worst = e > worst ? e : worst;
            if (t % 97 == 0) {
                long double acc = 0;
                for (int64_t j = 0; j < w; j++)
                    acc += (long double)(j + 1) * x[t + 1 - (size_t)w + (size_t)j];
                const long double ref = acc / ((long double)w * (w + 1) / 2);
                const double e64 = (double)(fabsl((long double)f64[t] - ref) / ref);
                worst64 = e64 > worst64 ? e64 : worst64;
            }
        }
        printf("prefix trap: price ~30,000, %zu bars, window %lld: float32 prefix-sum WMA max relative error %.3g; "
               "float64 WMA against long double %.3g\n", n, (long long)w, worst, worst64);
        assert_true(worst > 1.0);   /* the trap: wrong by more than the price itself */
        assert_true(worst64 < 2.3e-16); /* the float64 path: within about one rounding */
        assert_true(isnan(pre[w - 2]) && !isnan(pre[w - 1]));
    }
    free(x), free(f64), free(pre);
}

/* The exact window sums (docs/ta.md, "Precision"): where a block's values fit 128-bit fixed point the
 * outputs are the float64 nearest the exact sum (then divided by n, n(n+1)/2 or n(n-1)); elsewhere the
 * direct compensated sums. Held to: the correctly rounded value (a __float128 sum, exact for these
 * windows) on a price series; the direct path (raidMaWindowDirect) within the bound on adversarial
 * series; ties to even; bitwise the same on 1 and 2 threads. */

/* |a - b| <= 2u |b| + gamma_{m-1}^2 sabs (+ the divisions' roundings): both within u |S| + their
 * accumulation error of the exact S (the exact path: none; the direct path: Ogita, Rump and Oishi's Sum2
 * bound with m terms). */
static int within(double a, double b, double sabs, int64_t m, double den)
{
    const double u = DBL_EPSILON / 2, g = (double)(m - 1) * u / (1 - (double)(m - 1) * u);
    return fabs(a - b) <= 4 * u * fabs(b) + (g * g * sabs) / den * 1.0000001;
}

/* out (raid_ma_compute) against the direct path, every output within the bound, NaN identical. */
static void check_vs_direct(raid_ma_stat s, const double *x, size_t len, int64_t n, const double *out,
                            size_t *ndiff)
{
    double *d = malloc(len * sizeof *d);
    assert_non_null(d);
    raidMaWindowDirect(s, x, (int64_t)len, n, d);
    const double den = s == RAID_MA_MEAN ? (double)n : s == RAID_MA_WMA ? (double)n * (n + 1) / 2.0 : 1.0;
    for (size_t t = 0; t < len; t++) {
        if (isnan(out[t]) || isnan(d[t])) {
            assert_true(isnan(out[t]) && isnan(d[t]));
            continue;
        }
        if (out[t] == d[t])
            continue;
        ++*ndiff;
        double sabs = 0;
        for (int64_t j = 0; j < n; j++) {
            const double v = x[t - (size_t)j];
            sabs += s == RAID_MA_SUMSQ ? v * v : s == RAID_MA_WMA ? (double)(n - j) * fabs(v) : fabs(v);
        }
        if (s == RAID_MA_VAR) { /* the two-pass direct path: relative to the variance */
            if (!(fabs(out[t] - d[t]) <= 8 * DBL_EPSILON * d[t]))
                fail_msg("var(%lld)[%zu]: %.17g, direct %.17g", (long long)n, t, out[t], d[t]);
        } else if (!within(out[t], d[t], sabs, s == RAID_MA_WMA || s == RAID_MA_SUMSQ ? 2 * n : n, den))
            fail_msg("%s(%lld)[%zu]: %.17g, direct %.17g", raid_ma_stat_name(s), (long long)n, t, out[t], d[t]);
    }
    free(d);
}

static void test_exact_prices(void **state)
{
    (void)state;
    const size_t len = 150000;
    double *x = malloc(len * sizeof *x), *out = malloc(len * sizeof *x);
    assert_non_null(x), assert_non_null(out);
    uint64_t seed = 11;
    double p = 30000;
    for (size_t i = 0; i < len; i++) {
        p *= exp(0.002 * (t_unif(&seed) - 0.5));
        x[i] = p;
    }
    const int64_t wins[] = {1, 2, 3, 5, 10, 31, 64, 100, 200, 257, 500};
    const raid_ma_stat stats[] = {RAID_MA_SUM, RAID_MA_MEAN, RAID_MA_WMA, RAID_MA_SUMSQ, RAID_MA_VAR};
    for (size_t k = 0; k < sizeof wins / sizeof *wins; k++)
        for (size_t q = 0; q < sizeof stats / sizeof *stats; q++) {
            const raid_ma_stat s = stats[q];
            const int64_t n = wins[k];
            assert_int_equal(ma1(s, n, x, len, out), RAID_OK);
            size_t ndiff = 0, nref = 0;
            check_vs_direct(s, x, len, n, out, &ndiff);
#ifdef __SIZEOF_FLOAT128__
            /* sum and the WMA's sum of j x are exact in __float128 here (multiples of 2^-38 below 2^33):
             * the exact path is its rounding, bit for bit, then the same division */
            for (size_t t = (size_t)n - 1; s <= RAID_MA_WMA && s != RAID_MA_SUMSQ && s != RAID_MA_VAR && t < len;
                 t += (t % 4096 < 8 || t % 4096 > 4088) ? 1 : 41) {
                __float128 acc = 0;
                for (int64_t j = 0; j < n; j++)
                    acc += (__float128)(s == RAID_MA_WMA ? (double)(j + 1) : 1.0) * x[t + 1 - (size_t)n + (size_t)j];
                const double r = (double)acc, den = s == RAID_MA_SUM ? 1.0 : s == RAID_MA_MEAN ? (double)n
                                                                             : (double)n * (n + 1) / 2.0;
                if (out[t] != r / den)
                    fail_msg("%s(%lld)[%zu]: %.17g, correctly rounded %.17g", raid_ma_stat_name(s), (long long)n, t,
                             out[t], r / den);
                nref++;
            }
            /* var: against a two-pass __float128 evaluation (its own error below 1e-28 relative here):
             * within 2u + u^2 relative (the exact numerator rounded once, then the division) */
            for (size_t t = (size_t)n - 1; s == RAID_MA_VAR && n > 1 && t < len; t += 41) {
                __float128 m = 0, v = 0;
                for (int64_t j = 0; j < n; j++)
                    m += x[t - (size_t)j];
                m /= n;
                for (int64_t j = 0; j < n; j++)
                    v += (x[t - (size_t)j] - m) * (x[t - (size_t)j] - m);
                const double r = (double)(v / (n - 1));
                if (!(fabs(out[t] - r) <= 1.0000001 * DBL_EPSILON * r))
                    fail_msg("var(%lld)[%zu]: %.17g, __float128 %.17g", (long long)n, t, out[t], r);
                nref++;
            }
#endif
            if (n == 10 || n == 200 || n == 500)
                printf("exact path, %s(%lld), %zu bars near 30,000: %zu of %zu outputs differ from the direct "
                       "compensated sums (within the bound); %zu checked against __float128\n",
                       raid_ma_stat_name(s), (long long)n, len, ndiff, len - (size_t)n + 1, nref);
        }
    /* threads: the same bits on 1 and 2 (blocks fixed by the run) */
    double *o1 = malloc(len * sizeof *o1);
    assert_non_null(o1);
    const int nt = omp_get_max_threads();
    for (int q = 0; q < 2; q++) {
        const raid_ma_stat s = q ? RAID_MA_HMA : RAID_MA_WMA;
        omp_set_num_threads(1);
        assert_int_equal(ma1(s, 37, x, len, o1), RAID_OK);
        omp_set_num_threads(2);
        assert_int_equal(ma1(s, 37, x, len, out), RAID_OK);
        assert_memory_equal(o1, out, len * sizeof *out);
    }
    omp_set_num_threads(nt);
    free(x), free(out), free(o1);
}

static void test_exact_adversarial(void **state)
{
    (void)state;
    enum { LEN = 20000 };
    double *x = malloc(LEN * sizeof *x), *out = malloc(LEN * sizeof *x);
    assert_non_null(x), assert_non_null(out);
    uint64_t seed = 5;
    const raid_ma_stat stats[] = {RAID_MA_SUM, RAID_MA_MEAN, RAID_MA_WMA, RAID_MA_SUMSQ, RAID_MA_VAR};
    for (int kind = 0; kind < 5; kind++) {
        for (size_t i = 0; i < LEN; i++) {
            const double r = t_unif(&seed);
            switch (kind) {
            case 0: /* huge then tiny, in runs: blocks holding both fall back to the direct sums */
                x[i] = (i / 3000) % 2 ? 1e100 * (0.5 + r / 2) : 1e-100 * (1 + r);
                break;
            case 1: /* alternating signs, sums near zero */
                x[i] = (i % 2 ? -1 : 1) * (1000 + r * 1e-6);
                break;
            case 2: /* a wide but fitting range: 1e-5 .. 1e5 */
                x[i] = pow(10, 10 * r - 5) * (r < 0.5 ? -1 : 1);
                break;
            case 3: /* prices with one value near the underflow threshold (its blocks fall back) */
                x[i] = 30000 + 100 * r;
                if (i == 9000)
                    x[i] = 1e-300;
                break;
            default: /* exact zeros and integers */
                x[i] = r < 0.3 ? 0.0 : floor(r * 1e6) - 5e5;
            }
        }
        const int64_t wins[] = {1, 2, 7, 64, 300, 5000};
        for (size_t k = 0; k < sizeof wins / sizeof *wins; k++)
            for (size_t q = 0; q < sizeof stats / sizeof *stats; q++) {
                if (kind == 0 && stats[q] == RAID_MA_VAR)
                    continue; /* the two-pass direct variance of 1e100 beside 1e-100: not a reference */
                if (wins[k] == 5000 && q > 2)
                    continue; /* time */
                size_t ndiff = 0;
                assert_int_equal(ma1(stats[q], wins[k], x, LEN, out), RAID_OK);
                check_vs_direct(stats[q], x, LEN, wins[k], out, &ndiff);
                if (wins[k] == 1 && stats[q] != RAID_MA_VAR)
                    for (size_t t = 0; t < LEN; t++)
                        assert_true(out[t] == (stats[q] == RAID_MA_SUMSQ ? x[t] * x[t] : x[t]));
                if (kind == 4 && stats[q] == RAID_MA_SUM)
                    assert_int_equal(ndiff, 0); /* integers: both exact */
            }
    }
    /* windows longer than the runs: each run alone, NaN positions as before */
    for (size_t i = 0; i < LEN; i++)
        x[i] = t_unif(&seed) < 0.002 ? NA : 100 + t_unif(&seed);
    for (size_t q = 0; q < sizeof stats / sizeof *stats; q++) {
        assert_int_equal(ma1(stats[q], 700, x, LEN, out), RAID_OK);
        for (size_t t = 0; t < LEN;) {
            size_t e = t;
            while (e < LEN && !isnan(x[e]))
                e++;
            size_t nd = 0;
            if (e > t)
                check_vs_direct(stats[q], x + t, e - t, 700, out + t, &nd);
            if (e < LEN)
                assert_true(isnan(out[e]));
            t = e + 1;
        }
    }
    free(x), free(out);
    /* ties to even and the sticky bit of the conversion */
    expect(RAID_MA_SUM, 2, (double[]){0x1p60, 0x1p7}, 2, (double[]){NA, 0x1p60}, 0);
    expect(RAID_MA_SUM, 2, (double[]){-0x1p60, -0x1p7}, 2, (double[]){NA, -0x1p60}, 0);
    expect(RAID_MA_SUM, 2, (double[]){0x1p60 + 0x1p8, 0x1p7}, 2, (double[]){NA, 0x1p60 + 0x1p9}, 0);
    expect(RAID_MA_SUM, 3, (double[]){0x1p100, 0x1p47, 1}, 3, (double[]){NA, NA, 0x1p100 + 0x1p48}, 0);
    expect(RAID_MA_SUM, 2, (double[]){0x1p100, 0x1p47}, 2, (double[]){NA, 0x1p100}, 0);
    expect(RAID_MA_SUM, 3, (double[]){0x1p80, 1, -0x1p80}, 3, (double[]){NA, NA, 1}, 0);
    expect(RAID_MA_VAR, 3, (double[]){1e8 + 1, 1e8 + 2, 1e8 + 3}, 3, (double[]){NA, NA, 1}, 0);
}

/* raid ma: output, symbols, dates as given, errors with FILE:LINE:COL and no partial output. */
static void test_cli(void **state)
{
    (void)state;
    const char *in = t_tmppath("ma_in.csv"), *o = t_tmppath("ma_out.csv");
    assert_int_equal(t_write_file(in, "Symbol,timestamp,close\nA,t1,1\nA,t2,2\nA,t3,3\n"
                                      "A,t4,\nB,u1,4\nB,u2,5\nB,u3,6\n"), 0);
    char *out = NULL, *err = NULL;
    assert_int_equal(t_cli(&out, &err, "ma %s --stat sum --window 2 --device cpu", in), 0);
    assert_string_equal(out, "symbol,timestamp,sum\nA,t1,\nA,t2,3\nA,t3,5\nA,t4,\nB,u1,\n"
                             "B,u2,9\nB,u3,11\n");
    free(out), free(err);
    assert_int_equal(t_cli(&out, &err, "ma %s --stat ema --window 2 --device cpu -o %s", in, o), 0);
    char *txt = t_read_file(o);
    assert_non_null(txt);
    assert_string_equal(txt, "symbol,timestamp,ema\nA,t1,\nA,t2,1.5\nA,t3,2.5\nA,t4,\nB,u1,\n"
                             "B,u2,4.5\nB,u3,5.5\n");
    free(txt), free(out), free(err);
    /* the real file: 5,550 rows plus the header, HMA(10) warm-up 11 */
    assert_int_equal(t_cli(&out, &err, "ma %s --stat hma --window 10 --device cpu", t_data("ttrc_daily.csv")), 0);
    assert_non_null(strstr(out, "date,hma\n1985-01-02,\n"));
    assert_non_null(strstr(out, "\n1985-01-16,\n1985-01-17,3.336080808080808"));
    free(out), free(err);
    /* the default device (a GPU where there is one): the same row within docs/ta.md's HMA bound, not bytes */
    assert_int_equal(t_cli(&out, &err, "ma %s --stat hma --window 10", t_data("ttrc_daily.csv")), 0);
    const char *row = strstr(out, "\n1985-01-16,\n1985-01-17,");
    assert_non_null(row);
    double v = strtod(row + strlen("\n1985-01-16,\n1985-01-17,"), NULL);
    assert_true(fabs(v - 3.336080808080808) <= 1e-14 * 3.336080808080808);
    free(out), free(err);
    /* bad input: FILE:LINE:COL, exit 2, no output file (an existing one is left as it was) */
    const char *bad = t_tmppath("ma_bad.csv"), *o2 = t_tmppath("ma_none.csv");
    assert_int_equal(t_write_file(bad, "date,close\nd1,1\nd2,2\nd3,2x\n"), 0);
    assert_int_equal(t_cli(&out, &err, "ma %s --stat wma --window 2 -o %s", bad, o2), 2);
    assert_non_null(strstr(err, "ma_bad.csv:4:2:"));
    assert_false(t_file_exists(o2));
    free(out), free(err);
    assert_int_equal(t_write_file(bad, "symbol,date,close\na,d1,1\nb,d2,2\na,d3,3\n"), 0);
    assert_int_equal(t_cli(&out, &err, "ma %s --stat wma --window 2 -o %s", bad, o), 2);
    assert_non_null(strstr(err, "ma_bad.csv:4:1: symbol 'a' again"));
    txt = t_read_file(o);
    assert_non_null(strstr(txt, "ema")); /* the earlier output untouched */
    free(txt), free(out), free(err);
    assert_int_equal(t_write_file(bad, "day,close\nd1,1\n"), 0);
    assert_int_equal(t_cli(&out, &err, "ma %s --stat wma --window 2", bad), 2);
    assert_non_null(strstr(err, "missing column 'date' (or 'timestamp')"));
    assert_string_equal(out, "");
    free(out), free(err);
    assert_int_equal(t_write_file(bad, "date,close\nd1,1\n,2\n"), 0);
    assert_int_equal(t_cli(&out, &err, "ma %s --stat wma --window 2", bad), 2);
    assert_non_null(strstr(err, "ma_bad.csv:3:1: empty date"));
    free(out), free(err);
    assert_int_equal(t_write_file(bad, "date,close\nd1,1\nd2,1e400\n"), 0);
    assert_int_equal(t_cli(&out, &err, "ma %s --stat wma --window 2", bad), 2);
    assert_non_null(strstr(err, "ma_bad.csv:3:2: value out of float64's range: '1e400'"));
    free(out), free(err);
    /* other columns by name */
    assert_int_equal(t_write_file(bad, "d,px,s\nd1,1,x\nd2,3,x\n"), 0);
    assert_int_equal(t_cli(&out, &err, "ma %s --stat mean --window 2 --col px --date-col d --symbol-col s", bad), 0);
    assert_string_equal(out, "symbol,d,mean\nx,d1,\nx,d2,2\n");
    free(out), free(err);
    assert_int_equal(t_cli(&out, &err, "ma %s --stat mean --window 2 --col px --date-col d --symbol-col sym", bad), 2);
    assert_non_null(strstr(err, "missing column 'sym'"));
    free(out), free(err);
    /* usage errors */
    assert_int_equal(t_cli(&out, &err, "ma %s --stat hma --window 1", in), 1);
    assert_non_null(strstr(err, "needs --window 2 or more"));
    free(out), free(err);
    char *mean_out = NULL;
    assert_int_equal(t_cli(&mean_out, &err, "ma %s --stat mean --window 3", in), 0);
    free(err);
    assert_int_equal(t_cli(&out, &err, "ma %s --stat sma --window 3", in), 0); /* TTR's SMA: the mean, its bytes */
    assert_string_equal(out, mean_out);
    free(out), free(err), free(mean_out);
    assert_int_equal(t_cli(&out, &err, "ma %s --stat SMA --window 3", in), 1);
    assert_non_null(strstr(err, "expected sum, mean or sma,"));
    free(out), free(err);
    assert_int_equal(t_cli(&out, &err, "ma %s --window 3", in), 1);
    assert_non_null(strstr(err, "--stat and --window are required"));
    free(out), free(err);
    assert_int_equal(t_cli(&out, &err, "help ma"), 0);
    assert_non_null(strstr(out, "usage: raid ma FILE"));
    free(out), free(err);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_window_stats), cmocka_unit_test(test_ema_hma),  cmocka_unit_test(test_window_one_and_long),
        cmocka_unit_test(test_nan_rules),    cmocka_unit_test(test_segments), cmocka_unit_test(test_errors),
        cmocka_unit_test(test_prefix_trap),  cmocka_unit_test(test_exact_prices),
        cmocka_unit_test(test_exact_adversarial), cmocka_unit_test(test_cli),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
