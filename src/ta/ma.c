/* Moving averages and rolling statistics, the float64 host path (include/raid/ma.h, docs/ta.md): the
 * oracle of the device kernels (src/ta/ma_cl.c, chosen at the one dispatch point in raid_ma_compute) and
 * the cpu backend. Each maximal run of values
 * that are not NAN is a series of its own (leading and inner NAN, TTR's conventions extended: ma.h).
 * Window statistics are direct sums over each window, compensated (raid_dd of core/dd.h), products with
 * their fma rounding error; no running add-and-subtract sum anywhere. Also the float32 prefix-sum WMA,
 * the trap kept to show its error. */
#include "core/dd.h"
#include "core/internal.h"
#include "ta/ma_cl.h"

#include <assert.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#define PAR_WORK 200000 /* window terms of a run above which its points are spread over OpenMP threads */

static const char *const stat_names[RAID_MA_NSTATS] = {"sum", "mean", "sumsq", "var", "wma", "ema", "hma"};

raid_status raid_ma_stat_parse(const char *name, raid_ma_stat *out)
{
    int k = 0;
    if (!out)
        return raid_fail(NULL, RAID_EINVAL, "raid_ma_stat_parse: NULL");
    raid_status st = raid_parse_word(stat_names, RAID_MA_NSTATS, name, &k, "stat", "sum, mean, sumsq, var, wma, ema or hma");
    if (st == RAID_OK)
        *out = (raid_ma_stat)k;
    return st;
}

const char *raid_ma_stat_name(raid_ma_stat s)
{
    return (unsigned)s < RAID_MA_NSTATS ? stat_names[s] : "?";
}

/* trunc(sqrt(n)) exactly, for n >= 1. */
static int64_t isqrt64(int64_t n)
{
    int64_t s = (int64_t)sqrt((double)n);
    while (s * s > n)
        s--;
    while ((s + 1) * (s + 1) <= n)
        s++;
    return s;
}

int64_t raid_ma_warmup(raid_ma_stat stat, int64_t n)
{
    if ((unsigned)stat >= RAID_MA_NSTATS || n < 1 || n > RAID_MA_MAX_WINDOW || (stat == RAID_MA_HMA && n < 2))
        return -1;
    return stat == RAID_MA_HMA ? n - 1 + isqrt64(n) - 1 : n - 1;
}

/* One window statistic at point t of a run (x[t-n+1 .. t] all finite). */
static double window_value(raid_ma_stat stat, const double *x, int64_t t, int64_t n)
{
    const double *w = x + t - n + 1;
    raid_dd acc = {0, 0};
    switch (stat) {
    case RAID_MA_SUM:
    case RAID_MA_MEAN:
        for (int64_t j = 0; j < n; j++)
            raid_dd_add(&acc, w[j]);
        return stat == RAID_MA_SUM ? raid_dd_value(acc) : raid_dd_value(acc) / (double)n;
    case RAID_MA_SUMSQ:
        for (int64_t j = 0; j < n; j++) {
            const double p = w[j] * w[j];
            raid_dd_add(&acc, p);
            raid_dd_add(&acc, fma(w[j], w[j], -p));
        }
        return raid_dd_value(acc);
    case RAID_MA_VAR: {
        if (n < 2)
            return NAN;
        for (int64_t j = 0; j < n; j++)
            raid_dd_add(&acc, w[j]);
        const double m = raid_dd_value(acc) / (double)n;
        raid_dd dev = {0, 0};
        for (int64_t j = 0; j < n; j++) {
            const double d = w[j] - m, p = d * d;
            raid_dd_add(&dev, p);
            raid_dd_add(&dev, fma(d, d, -p));
        }
        return raid_dd_value(dev) / (double)(n - 1);
    }
    case RAID_MA_WMA:
        for (int64_t j = 0; j < n; j++) {
            const double c = (double)(j + 1), p = c * w[j];
            raid_dd_add(&acc, p);
            raid_dd_add(&acc, fma(c, w[j], -p));
        }
        /* n(n+1)/2 <= 2^59 is exact in float64 */
        return raid_dd_value(acc) / ((double)n * (double)(n + 1) / 2.0);
    default:
        assert(0);
        return NAN;
    }
}

/* A window statistic over one run of len finite values. */
static void run_window(raid_ma_stat stat, const double *x, int64_t len, int64_t n, double *out)
{
    const int64_t first = n - 1 < len ? n - 1 : len;
    for (int64_t t = 0; t < first; t++)
        out[t] = NAN;
    if (len < n)
        return;
    const int par = (double)(len - first) * (double)n > PAR_WORK;
#pragma omp parallel for schedule(static) if (par)
    for (int64_t t = first; t < len; t++)
        out[t] = window_value(stat, x, t, n);
}

/* The EMA of one run (TTR's ema.c recursion: seed the mean of the first n, then x r + e (1 - r)). */
static void run_ema(const double *x, int64_t len, int64_t n, double *out)
{
    for (int64_t t = 0; t < len && t < n - 1; t++)
        out[t] = NAN;
    if (len < n)
        return;
    raid_dd acc = {0, 0};
    for (int64_t j = 0; j < n; j++)
        raid_dd_add(&acc, x[j]);
    const double r = 2.0 / ((double)n + 1.0);
    double e = raid_dd_value(acc) / (double)n;
    out[n - 1] = e;
    for (int64_t t = n; t < len; t++)
        out[t] = e = x[t] * r + e * (1.0 - r);
}

static raid_status series(raid_ma_stat stat, const double *x, int64_t len, int64_t n, double *out);

/* The HMA of one run: the composition of WMAs (each one splitting its own input into runs). */
static raid_status run_hma(const double *x, int64_t len, int64_t n, double *out)
{
    double *a = malloc((size_t)(len ? len : 1) * sizeof *a), *b = malloc((size_t)(len ? len : 1) * sizeof *b);
    raid_status st = RAID_OK;
    if (!a || !b)
        st = raid_fail(NULL, RAID_ENOMEM, "out of memory");
    else {
        run_window(RAID_MA_WMA, x, len, n / 2, a);
        run_window(RAID_MA_WMA, x, len, n, b);
        for (int64_t t = 0; t < len; t++)
            a[t] = 2.0 * a[t] - b[t]; /* NAN where b is */
        st = series(RAID_MA_WMA, a, len, isqrt64(n), out);
    }
    free(a);
    free(b);
    return st;
}

/* One series: NAN at NAN, and each maximal run of non-NAN values computed as a series of its own. */
static raid_status series(raid_ma_stat stat, const double *x, int64_t len, int64_t n, double *out)
{
    int64_t t = 0;
    while (t < len) {
        if (isnan(x[t])) {
            out[t++] = NAN;
            continue;
        }
        int64_t e = t;
        while (e < len && !isnan(x[e]))
            e++;
        if (stat == RAID_MA_EMA)
            run_ema(x + t, e - t, n, out + t);
        else if (stat == RAID_MA_HMA) {
            const raid_status st = run_hma(x + t, e - t, n, out + t);
            if (st != RAID_OK)
                return st;
        } else
            run_window(stat, x + t, e - t, n, out + t);
        t = e;
    }
    return RAID_OK;
}

raid_status raid_ma_compute(raid_ctx *ctx, raid_ma_stat stat, int64_t n, const double *x, const int64_t *offsets,
                            size_t nseg, double *out)
{
    if (!offsets || (nseg && (!x || !out)))
        return raid_fail(ctx, RAID_EINVAL, "raid_ma_compute: NULL argument");
    if ((unsigned)stat >= RAID_MA_NSTATS)
        return raid_fail(ctx, RAID_EINVAL, "raid_ma_compute: bad stat %d", (int)stat);
    if (raid_ma_warmup(stat, n) < 0)
        return raid_fail(ctx, RAID_EINVAL, "bad window %lld for %s (expected an integer in [%d, %d])", (long long)n,
                         stat_names[stat], stat == RAID_MA_HMA ? 2 : 1, RAID_MA_MAX_WINDOW);
    if (offsets[0] < 0)
        return raid_fail(ctx, RAID_EINVAL, "raid_ma_compute: negative offset %lld", (long long)offsets[0]);
    for (size_t s = 0; s < nseg; s++) {
        if (offsets[s + 1] < offsets[s])
            return raid_fail(ctx, RAID_EINVAL, "raid_ma_compute: offsets decrease at series %zu (%lld < %lld)", s,
                             (long long)offsets[s + 1], (long long)offsets[s]);
        for (int64_t i = offsets[s]; i < offsets[s + 1]; i++)
            if (!isnan(x[i]) && !(fabs(x[i]) <= RAID_MA_MAX_VALUE))
                return raid_fail(ctx, RAID_EINVAL,
                                 "value %g at index %lld of series %zu is not a finite number of magnitude at most %g",
                                 x[i], (long long)(i - offsets[s]), s, RAID_MA_MAX_VALUE);
    }
    if (raid_on_device(ctx) && n <= RAID_MA_CL_MAX_WINDOW) /* the one dispatch point: src/ta/ma_cl.c */
        return raid_ma_cl_compute(ctx, stat, n, x, offsets, nseg, out);
    for (size_t s = 0; s < nseg; s++) {
        const raid_status st = series(stat, x + offsets[s], offsets[s + 1] - offsets[s], n, out + offsets[s]);
        if (st != RAID_OK)
            return ctx ? raid_fail(ctx, st, "%s", raid_errmsg()) : st;
    }
    return RAID_OK;
}

raid_status raid_ma_wma_prefix_f32(const double *x, size_t len, int64_t n, double *out)
{
    if ((len && (!x || !out)))
        return raid_fail(NULL, RAID_EINVAL, "raid_ma_wma_prefix_f32: NULL argument");
    if (n < 1 || n > RAID_MA_MAX_WINDOW)
        return raid_fail(NULL, RAID_EINVAL, "bad window %lld (expected an integer in [1, %d])", (long long)n,
                         RAID_MA_MAX_WINDOW);
    for (size_t i = 0; i < len; i++)
        if (!isfinite(x[i]))
            return raid_fail(NULL, RAID_EINVAL, "raid_ma_wma_prefix_f32: value %zu is not finite", i);
    float *s1 = malloc((len + 1) * sizeof *s1), *s2 = malloc((len + 1) * sizeof *s2);
    if (!s1 || !s2) {
        free(s1);
        free(s2);
        return raid_fail(NULL, RAID_ENOMEM, "out of memory");
    }
    /* s1[k], s2[k]: the prefix sums of the first k values, each step rounded to float32 */
    s1[0] = s2[0] = 0.0f;
    for (size_t k = 0; k < len; k++) {
        const float xf = (float)x[k];
        s1[k + 1] = s1[k] + xf;
        s2[k + 1] = s2[k] + (float)(k + 1) * xf;
    }
    const float den = (float)n * (float)(n + 1) / 2.0f;
    for (size_t t = 0; t < len; t++) {
        if ((int64_t)t < n - 1) {
            out[t] = NAN;
            continue;
        }
        const size_t lo = t + 1 - (size_t)n; /* the window is x[lo .. t] */
        const float a = s2[t + 1] - s2[lo], b = s1[t + 1] - s1[lo];
        out[t] = (double)((a - (float)lo * b) / den); /* weight of x_k is k + 1 - lo */
    }
    free(s1);
    free(s2);
    return RAID_OK;
}
