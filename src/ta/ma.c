/* Moving averages and rolling statistics, the float64 host path (include/raid/ma.h, docs/ta.md): the
 * oracle of the device kernels (src/ta/ma_device.c, chosen through raidMaBackends in raid_ma_compute) and
 * the cpu backend. Each maximal run of values
 * that are not NAN is a series of its own (leading and inner NAN, TTR's conventions extended: ma.h).
 * Window statistics (sum, mean, sumsq, var, wma; hma through wma) are exact: running sums of integers in
 * 128-bit fixed point, O(1) per point, rounded once at the end (block_exact); where a block's values span
 * too many bits for that, direct sums over each window, compensated (RaidDd of core/dd.h), products with
 * their fma rounding error. No rounded running add-and-subtract sum anywhere. Also the float32 prefix-sum
 * WMA, the trap kept to show its error. */
#include "core/dd.h"
#include "core/internal.h"
#include "ta/ma_internal.h"
#include "ta/ma_device.h"

#include <assert.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define PAR_WORK 200000  /* window terms of a run above which its direct sums are spread over OpenMP threads */
#define PAR_POINTS 50000 /* outputs of a run above which its exact blocks are spread over OpenMP threads */

static const char *const stat_names[RAID_MA_NSTATS] = {"sum", "mean", "sumsq", "var", "wma", "ema", "hma"};

raid_status raid_ma_stat_parse(const char *name, raid_ma_stat *out)
{
    int k = 0;
    if (!out)
        return raidFail(NULL, RAID_EINVAL, "raid_ma_stat_parse: NULL");
    if (name && !strcmp(name, "sma")) { /* R TTR's name of the simple moving average */
        *out = RAID_MA_MEAN;
        return RAID_OK;
    }
    raid_status st = raidParseWord(stat_names, RAID_MA_NSTATS, name, &k, "stat", "sum, mean, sumsq, var, wma, ema or hma");
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
    RaidDd acc = {0, 0};
    switch (stat) {
    case RAID_MA_SUM:
    case RAID_MA_MEAN:
        for (int64_t j = 0; j < n; j++)
            raidDdAdd(&acc, w[j]);
        return stat == RAID_MA_SUM ? raidDdValue(acc) : raidDdValue(acc) / (double)n;
    case RAID_MA_SUMSQ:
        for (int64_t j = 0; j < n; j++) {
            const double p = w[j] * w[j];
            raidDdAdd(&acc, p);
            raidDdAdd(&acc, fma(w[j], w[j], -p));
        }
        return raidDdValue(acc);
    case RAID_MA_VAR: {
        if (n < 2)
            return NAN;
        for (int64_t j = 0; j < n; j++)
            raidDdAdd(&acc, w[j]);
        const double m = raidDdValue(acc) / (double)n;
        RaidDd dev = {0, 0};
        for (int64_t j = 0; j < n; j++) {
            const double d = w[j] - m, p = d * d;
            raidDdAdd(&dev, p);
            raidDdAdd(&dev, fma(d, d, -p));
        }
        return raidDdValue(dev) / (double)(n - 1);
    }
    case RAID_MA_WMA:
        for (int64_t j = 0; j < n; j++) {
            const double c = (double)(j + 1), p = c * w[j];
            raidDdAdd(&acc, p);
            raidDdAdd(&acc, fma(c, w[j], -p));
        }
        /* n(n+1)/2 <= 2^59 is exact in float64 */
        return raidDdValue(acc) / ((double)n * (double)(n + 1) / 2.0);
    default:
        assert(0);
        return NAN;
    }
}

/* The direct compensated sums of one run, every output from its own window (the fallback of
 * run_window, and the reference the tests hold the exact path to). */
void raidMaWindowDirect(raid_ma_stat stat, const double *x, int64_t len, int64_t n, double *out)
{
    const int64_t first = n - 1 < len ? n - 1 : len;
    for (int64_t t = 0; t < first; t++)
        out[t] = NAN;
    for (int64_t t = first; t < len; t++)
        out[t] = window_value(stat, x, t, n);
}

#ifdef __SIZEOF_INT128__
/* Exact window sums in fixed point (docs/ta.md, "Precision"): the values of a block's windows are
 * integers times 2^L (L the lowest set bit among them), so their sums, the WMA's sum of j x and the sums
 * of squares are integers, kept exactly in 128 bits and updated in O(1) per point with no rounding at all
 * (S_t = S_{t-1} + x_t - x_{t-n}, W_t = W_{t-1} + n x_t - S_{t-1}). The only rounding is the final
 * conversion to float64 (correctly rounded), then the division by n, n(n+1)/2 or n(n-1) as in the direct
 * path. A block whose values span too many bits for 128 (mixed magnitudes: 1e100 beside 1e-100, values
 * near the underflow threshold) falls back to the direct compensated sums. */
__extension__ typedef __int128 i128;
__extension__ typedef unsigned __int128 u128;

#define MA_BLOCK 4096 /* outputs per block: one range check and one O(n) start each */

/* x (finite, not 0) = +-m 2^e with m odd: the exponent e of its lowest set bit, the bit length of m. */
static inline void fx_parts(double x, uint64_t *m, int *e, int *bits)
{
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    int be = (int)((b >> 52) & 0x7ff);
    uint64_t mm = b & 0xfffffffffffffull;
    if (be)
        mm |= 1ull << 52;
    else
        be = 1; /* subnormal */
    const int tz = __builtin_ctzll(mm);
    *m = mm >> tz;
    *e = be - 1075 + tz;
    *bits = 64 - __builtin_clzll(*m);
}

/* x / 2^L as an exact integer (x a multiple of 2^L, |x| / 2^L < 2^126). */
static inline i128 fx(double x, int L)
{
    if (x == 0)
        return 0;
    uint64_t m;
    int e, bits;
    fx_parts(x, &m, &e, &bits);
    const i128 v = (i128)((u128)m << (e - L));
    return x < 0 ? -v : v;
}

/* The float64 nearest v 2^L (ties to even), for |v| < 2^126 and |v| 2^L normal or 0: the top 62 bits of
 * |v| rounded to odd (the sticky bit), then one correctly rounded int64 -> float64 conversion (rounding to
 * odd at 62 >= 53 + 2 bits then to nearest at 53 is the nearest: Boldo and Melquiond 2008). */
static inline double fx_value(i128 v, int L)
{
    if (v == 0)
        return 0.0;
    const int neg = v < 0;
    u128 a = neg ? -(u128)v : (u128)v;
    const uint64_t hi = (uint64_t)(a >> 64);
    const int len = hi ? 128 - __builtin_clzll(hi) : 64 - __builtin_clzll((uint64_t)a);
    int k = 0;
    if (len > 62) {
        k = len - 62;
        const u128 sticky = (a & (((u128)1 << k) - 1)) != 0;
        a = (a >> k) | sticky;
    }
    double r = (double)(int64_t)(uint64_t)a;
    uint64_t pb = (uint64_t)(1023 + k + L) << 52; /* 2^(k + L), normal by the caller's check */
    double p;
    memcpy(&p, &pb, sizeof p);
    r *= p;
    return neg ? -r : r;
}

static int clog2(int64_t n) /* ceil(log2 n), n >= 1 */
{
    return n <= 1 ? 0 : 64 - __builtin_clzll((uint64_t)(n - 1));
}

/* The outputs t in [t0, t1) of a run (t0 >= n - 1) exactly, when the values x[t0-n+1 .. t1-1] fit; 0
 * when they do not (nothing written). */
static int block_exact(raid_ma_stat stat, const double *x, int64_t t0, int64_t t1, int64_t n, double *out)
{
    int lo = INT32_MAX, hi = INT32_MIN;
    for (int64_t i = t0 - n + 1; i < t1; i++)
        if (x[i] != 0) {
            uint64_t m;
            int e, bits;
            fx_parts(x[i], &m, &e, &bits);
            lo = e < lo ? e : lo;
            hi = e + bits > hi ? e + bits : hi;
        }
    if (lo == INT32_MAX) { /* all zero */
        for (int64_t t = t0; t < t1; t++)
            out[t] = stat == RAID_MA_VAR && n < 2 ? NAN : 0.0;
        return 1;
    }
    const int d = hi - lo, k = clog2(n); /* |x| < 2^hi, x a multiple of 2^lo: |x / 2^lo| < 2^d */
    const int sq = stat == RAID_MA_SUMSQ || stat == RAID_MA_VAR;
    /* every intermediate is below 2^need (docs/ta.md): sums, S + (x_t - x_{t-n}) <= (n + 2) 2^d <
     * 2^(d+k+2); the WMA's W + (n x_t - S) <= n (n + 5) / 2 2^d < 2^(d+2k+2); sums of squares
     * Q + (x_t^2 - x_{t-n}^2) <= (n + 1) 2^2d <= 2^(2d+k+1); n Q and S^2 <= n^2 2^2d <= 2^(2d+2k) */
    const int need = stat == RAID_MA_WMA ? d + 2 * k + 2 : stat == RAID_MA_SUMSQ ? 2 * d + k + 1
                     : stat == RAID_MA_VAR ? 2 * d + 2 * k : d + k + 2;
    if (need > 126 || (sq ? 2 * lo : lo) < -1022 || (stat == RAID_MA_VAR && n < 2))
        return 0;
    const int L = lo;
    const i128 ni = (i128)n;
    const int64_t w0 = t0 - n + 1; /* the window of t0 starts here */
    i128 S = 0, W = 0, Q = 0;
    switch (stat) { /* one loop per statistic, each updating only its own sums */
    case RAID_MA_SUM:
    case RAID_MA_MEAN: {
        const double den = stat == RAID_MA_MEAN ? (double)n : 1.0;
        for (int64_t j = 0; j < n; j++)
            S += fx(x[w0 + j], L);
        for (int64_t t = t0;; t++) {
            out[t] = fx_value(S, L) / den;
            if (t + 1 == t1)
                break;
            S += fx(x[t + 1], L) - fx(x[t + 1 - n], L);
        }
        break;
    }
    case RAID_MA_WMA: {
        const double den = (double)n * (double)(n + 1) / 2.0; /* exact: n(n+1)/2 <= 2^59 */
        for (int64_t j = 0; j < n; j++) {
            const i128 v = fx(x[w0 + j], L);
            S += v;
            W += (i128)(j + 1) * v;
        }
        for (int64_t t = t0;; t++) {
            out[t] = fx_value(W, L) / den;
            if (t + 1 == t1)
                break;
            const i128 v = fx(x[t + 1], L);
            W += ni * v - S; /* W_t = W_{t-1} + n x_t - S_{t-1}, before S moves */
            S += v - fx(x[t + 1 - n], L);
        }
        break;
    }
    case RAID_MA_SUMSQ:
        for (int64_t j = 0; j < n; j++) {
            const i128 v = fx(x[w0 + j], L);
            Q += v * v;
        }
        for (int64_t t = t0;; t++) {
            out[t] = fx_value(Q, 2 * L);
            if (t + 1 == t1)
                break;
            const i128 v = fx(x[t + 1], L), o = fx(x[t + 1 - n], L);
            Q += v * v - o * o;
        }
        break;
    case RAID_MA_VAR: {
        const double den = (double)n * (double)(n - 1); /* exact: <= 2^60 */
        for (int64_t j = 0; j < n; j++) {
            const i128 v = fx(x[w0 + j], L);
            S += v;
            Q += v * v;
        }
        for (int64_t t = t0;; t++) {
            /* n Q - S^2 = n^2 (n - 1) var / 2^2L >= 0, exactly */
            out[t] = fx_value(ni * Q - S * S, 2 * L) / den;
            if (t + 1 == t1)
                break;
            const i128 v = fx(x[t + 1], L), o = fx(x[t + 1 - n], L);
            S += v - o;
            Q += v * v - o * o;
        }
        break;
    }
    default:
        assert(0);
        return 0;
    }
    return 1;
}
#endif

/* A window statistic over one run of len finite values: exact blocks where the values fit (above),
 * the direct compensated sums elsewhere. Blocks are fixed by the run alone, so the result does not
 * depend on the number of threads. */
static void run_window(raid_ma_stat stat, const double *x, int64_t len, int64_t n, double *out)
{
    const int64_t first = n - 1 < len ? n - 1 : len;
    for (int64_t t = 0; t < first; t++)
        out[t] = NAN;
    if (len < n)
        return;
#ifdef __SIZEOF_INT128__
    const int64_t nb = (len - first + MA_BLOCK - 1) / MA_BLOCK;
#pragma omp parallel for schedule(dynamic, 1) if (nb > 1 && len - first > PAR_POINTS)
    for (int64_t b = 0; b < nb; b++) {
        const int64_t t0 = first + b * MA_BLOCK, t1 = t0 + MA_BLOCK < len ? t0 + MA_BLOCK : len;
        if (!block_exact(stat, x, t0, t1, n, out))
            for (int64_t t = t0; t < t1; t++)
                out[t] = window_value(stat, x, t, n);
    }
#else
#pragma omp parallel for schedule(static) if ((double)(len - first) * (double)n > PAR_WORK)
    for (int64_t t = first; t < len; t++)
        out[t] = window_value(stat, x, t, n);
#endif
}

/* The EMA of one run (TTR's ema.c recursion: seed the mean of the first n, then x r + e (1 - r)). */
static void run_ema(const double *x, int64_t len, int64_t n, double *out)
{
    for (int64_t t = 0; t < len && t < n - 1; t++)
        out[t] = NAN;
    if (len < n)
        return;
    RaidDd acc = {0, 0};
    for (int64_t j = 0; j < n; j++)
        raidDdAdd(&acc, x[j]);
    const double r = 2.0 / ((double)n + 1.0);
    double e = raidDdValue(acc) / (double)n;
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
        st = raidFail(NULL, RAID_ENOMEM, "out of memory");
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
        return raidFail(ctx, RAID_EINVAL, "raid_ma_compute: NULL argument");
    if ((unsigned)stat >= RAID_MA_NSTATS)
        return raidFail(ctx, RAID_EINVAL, "raid_ma_compute: bad stat %d", (int)stat);
    if (raid_ma_warmup(stat, n) < 0)
        return raidFail(ctx, RAID_EINVAL, "bad window %lld for %s (expected an integer in [%d, %d])", (long long)n,
                         stat_names[stat], stat == RAID_MA_HMA ? 2 : 1, RAID_MA_MAX_WINDOW);
    raid_status ost = raidCheckOffsets(ctx, "raid_ma_compute", "series", offsets, nseg);
    if (ost != RAID_OK)
        return ost;
    for (size_t s = 0; s < nseg; s++) {
        for (int64_t i = offsets[s]; i < offsets[s + 1]; i++)
            if (!isnan(x[i]) && !(fabs(x[i]) <= RAID_MA_MAX_VALUE))
                return raidFail(ctx, RAID_EINVAL,
                                 "value %g at index %lld of series %zu is not a finite number of magnitude at most %g",
                                 x[i], (long long)(i - offsets[s]), s, RAID_MA_MAX_VALUE);
    }
    return RAID_BACKEND(raidMaBackends, ctx)->compute(ctx, stat, n, x, offsets, nseg, out);
}

raid_status raidMaCpuCompute(raid_ctx *ctx, raid_ma_stat stat, int64_t n, const double *x, const int64_t *offsets,
                               size_t nseg, double *out)
{
    for (size_t s = 0; s < nseg; s++) {
        const raid_status st = series(stat, x + offsets[s], offsets[s + 1] - offsets[s], n, out + offsets[s]);
        if (st != RAID_OK)
            return ctx ? raidFail(ctx, st, "%s", raid_errmsg()) : st;
        raidProgress(ctx, s + 1, nseg, "series");
    }
    return RAID_OK;
}

const RaidMaBackend raidMaBackends[2] = {
    [RAID_ON_CPU] = {raidMaCpuCompute},
    [RAID_ON_DEVICE] = {raidMaDeviceCompute},
};

raid_status raid_ma_wma_prefix_f32(const double *x, size_t len, int64_t n, double *out)
{
    if ((len && (!x || !out)))
        return raidFail(NULL, RAID_EINVAL, "raid_ma_wma_prefix_f32: NULL argument");
    if (n < 1 || n > RAID_MA_MAX_WINDOW)
        return raidFail(NULL, RAID_EINVAL, "bad window %lld (expected an integer in [1, %d])", (long long)n,
                         RAID_MA_MAX_WINDOW);
    for (size_t i = 0; i < len; i++)
        if (!isfinite(x[i]))
            return raidFail(NULL, RAID_EINVAL, "raid_ma_wma_prefix_f32: value %zu is not finite", i);
    float *s1 = malloc((len + 1) * sizeof *s1), *s2 = malloc((len + 1) * sizeof *s2);
    if (!s1 || !s2) {
        free(s1);
        free(s2);
        return raidFail(NULL, RAID_ENOMEM, "out of memory");
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
