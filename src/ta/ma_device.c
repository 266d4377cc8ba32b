/* The device path of raid_ma_compute (kernels/ta_ma.cl; docs/ta.md "The device path and its bound").
 *
 * The host scales every series by a power of two (its largest |x| into [1/2, 1): exact, and float32's
 * range holds every accepted value), splits every value into a double-float pair (hi, lo), marks each point with the first
 * index of its run of non-NaN values (-1 at a NaN: each run is a series of its own, ma.h), uploads both
 * once, launches one work-item per point (sum, mean, sumsq, var, wma), two launches for the HMA (the inner
 * series 2 WMA(m) - WMA(n) stays on the device as double-float pairs, then the outer WMA reads it), or one
 * work-item per run for the EMA, and reads back double-float (or three-float) window sums. The float64
 * combine and division are here, in a fixed order; the validity mask (NaN where the window is
 * incomplete) is made here from the runs by the host path's rule, so the NaN positions are the host
 * path's exactly. */
#include "ta/ma_device.h"

#include "device/launch.h"
#include "ta/ma_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The staging of raidMaDeviceCompute and raidMaDeviceTable: x[offsets[0] .. offsets[nseg]) as double-float
 * pairs xs[2i], xs[2i+1] (NaN points (0, 0)), each series scaled by 2^-escale[s] (its largest |x| into
 * [1/2, 1): exact; float32 holds neither 1e100 nor 1e-100), and rs[i] the first index of the run of
 * non-NaN values that holds i (-1 at a NaN). Returns the number of runs. */
static size_t stage(const double *x, const int64_t *offsets, size_t nseg, float *xs, int32_t *rs, int *escale)
{
    const int64_t base = offsets[0];
    size_t nruns = 0;
    for (size_t s = 0; s < nseg; s++) {
        int32_t start = -1;
        double M = 0.0;
        for (int64_t g = offsets[s]; g < offsets[s + 1]; g++)
            if (fabs(x[g]) > M) /* false for NaN */
                M = fabs(x[g]);
        int e = 0;
        if (M > 0.0)
            (void)frexp(M, &e);
        escale[s] = e;
        for (int64_t g = offsets[s]; g < offsets[s + 1]; g++) {
            const size_t i = (size_t)(g - base);
            if (isnan(x[g])) {
                xs[2 * i] = xs[2 * i + 1] = 0.0f;
                rs[i] = start = -1;
                continue;
            }
            if (start < 0) {
                start = (int32_t)i;
                nruns++;
            }
            rs[i] = start;
            raidDfSplit(ldexp(x[g], -e), &xs[2 * i], &xs[2 * i + 1]);
        }
    }
    return nruns;
}

/* The runs of rs[0 .. N) (stage's) long enough to seed an EMA of window n, as (first index, length) pairs
 * into runs; their number. */
static size_t ema_runs(const int32_t *rs, size_t N, int64_t n, int32_t *runs)
{
    size_t nruns = 0;
    for (size_t i = 0; i < N;) {
        if (rs[i] < 0) {
            i++;
            continue;
        }
        size_t e = i;
        while (e < N && rs[e] == (int32_t)i)
            e++;
        if ((int64_t)(e - i) >= n) {
            runs[2 * nruns] = (int32_t)i;
            runs[2 * nruns + 1] = (int32_t)(e - i);
            nruns++;
        }
        i = e;
    }
    return nruns;
}

/* The device's buffers of one raidMaDeviceCompute: the staged pairs, the runs' starts, the window sums, the
 * HMA's inner series and the EMA's runs. */
typedef struct ma_bufs {
    RaidBuf x, rs, out, y, runs;
} ma_bufs;

/* The EMA: one work-item per run of at least n values (the host path's two factors as double-floats). */
static void launch_ema(RaidLaunch *L, raid_ctx *ctx, ma_bufs *d, const int32_t *runs, size_t nruns, int ni)
{
    const double alpha = 2.0 / ((double)ni + 1.0), beta = 1.0 - alpha;
    float ah, al, bh, bl;
    raidDfSplit(alpha, &ah, &al);
    raidDfSplit(beta, &bh, &bl);
    raidLaunchKernel(L, ctx, "ta_ma.cl", "ta_ema", raidTuneBuildOptions(ctx));
    RAID_LAUNCH_CALL(L, raidBufAcquire(ctx, RAID_DT_INT, 2 * nruns, &d->runs));
    RAID_LAUNCH_CALL(L, raidBufUpload(ctx, &d->runs, 0, 2 * nruns, runs, 1, NULL));
    raidLaunchSize(L, nruns, 64);
    RAID_LAUNCH_ARGS(L, 0, RAID_ARG_BUF(&d->x), RAID_ARG_BUF(&d->runs), RAID_ARG_BUF(&d->out), RAID_ARG_I32(0),
                     RAID_ARG_I32(nruns), RAID_ARG_I32(ni), RAID_ARG_F32(ah), RAID_ARG_F32(al), RAID_ARG_F32(bh),
                     RAID_ARG_F32(bl));
    raidLaunchRun(L, &ctx->timing.kernel_s);
}

/* The window statistics: one work-item per point; the HMA first forms its inner series y = 2 WMA(m) - WMA(n)
 * on the device (resident), then the outer WMA of window trunc(sqrt(n)) reads it. */
static raid_status launch_window(raid_ctx *ctx, ma_bufs *d, raid_ma_stat stat, int ni, size_t N, int64_t warm)
{
    int wn = ni, minlen = (int)warm + 1, kstat = stat == RAID_MA_MEAN ? RAID_MA_SUM : (int)stat;
    const RaidBuf *in = &d->x;
    RaidLaunch L;
    if (stat == RAID_MA_HMA) {
        const int m = ni / 2;
        const double dn = (double)ni * (double)(ni + 1) / 2.0, dm = (double)m * (double)(m + 1) / 2.0;
        float dnh, dnl, dmh, dml;
        raidDfSplit(dn, &dnh, &dnl); /* exact: n (n + 1) / 2 < 2^48 */
        raidDfSplit(dm, &dmh, &dml);
        raidLaunchKernel(&L, ctx, "ta_ma.cl", "ta_hma_inner", raidTuneBuildOptions(ctx));
        RAID_LAUNCH_CALL(&L, raidBufAcquire(ctx, RAID_DT_FLOAT, 2 * N, &d->y));
        raidLaunchSize(&L, N, 64);
        RAID_LAUNCH_ARGS(&L, 0, RAID_ARG_BUF(&d->x), RAID_ARG_BUF(&d->rs), RAID_ARG_BUF(&d->y), RAID_ARG_I32(N),
                         RAID_ARG_I32(ni), RAID_ARG_I32(m), RAID_ARG_F32(dnh), RAID_ARG_F32(dnl), RAID_ARG_F32(dmh),
                         RAID_ARG_F32(dml));
        raidLaunchRun(&L, &ctx->timing.kernel_s);
        const raid_status st = raidLaunchEnd(&L);
        if (st != RAID_OK)
            return st;
        wn = (int)(warm - ni + 2); /* trunc(sqrt(n)) */
        kstat = RAID_MA_WMA;
        in = &d->y;
    }
    if (stat == RAID_MA_VAR && ni < 2)
        return RAID_OK; /* every value NaN */
    raidLaunchKernel(&L, ctx, "ta_ma.cl", "ta_window", raidTuneBuildOptions(ctx));
    raidLaunchSize(&L, N, 64);
    RAID_LAUNCH_ARGS(&L, 0, RAID_ARG_BUF(in), RAID_ARG_BUF(&d->rs), RAID_ARG_BUF(&d->out), RAID_ARG_I32(N),
                     RAID_ARG_I32(wn), RAID_ARG_I32(minlen), RAID_ARG_I32(kstat));
    raidLaunchRun(&L, &ctx->timing.kernel_s);
    return raidLaunchEnd(&L);
}

/* The combine, in float64, and the mask: point i is a number when its run holds warm + 1 values up to i; the
 * window sums res (width floats a point) divided in a fixed order and scaled back by the series' 2^escale. */
static void combine(raid_ma_stat stat, int64_t n, const int64_t *offsets, size_t nseg, const int32_t *rs,
                    const float *res, int width, const int *escale, double *out)
{
    const int64_t base = offsets[0], warm = raid_ma_warmup(stat, n);
    double div = 1.0;
    if (stat == RAID_MA_MEAN)
        div = (double)n;
    else if (stat == RAID_MA_VAR)
        div = (double)(n - 1);
    else if (stat == RAID_MA_WMA)
        div = (double)n * (double)(n + 1) / 2.0;
    else if (stat == RAID_MA_HMA) {
        const double s = (double)(warm - n + 2);
        div = s * (s + 1.0) / 2.0;
    }
    const int square = stat == RAID_MA_SUMSQ || stat == RAID_MA_VAR; /* squared units: 2^(2e) back */
    for (size_t s = 0; s < nseg; s++)
        for (int64_t g = offsets[s]; g < offsets[s + 1]; g++) {
            const size_t i = (size_t)(g - base);
            double v = NAN;
            if (rs[i] >= 0 && (int64_t)i - rs[i] >= warm && !(stat == RAID_MA_VAR && n < 2)) {
                const float *r = res + (size_t)width * i;
                v = width == 2 ? (double)r[0] + (double)r[1] : ((double)r[0] + (double)r[1]) + (double)r[2];
                if (div != 1.0)
                    v /= div;
                v = ldexp(v, square ? 2 * escale[s] : escale[s]);
            }
            out[g] = v;
        }
}

/* raid_ma_compute on the device (arguments validated, n <= RAID_MA_DEVICE_MAX_WINDOW, every series within
 * RAID_MA_DEVICE_MAX_RANGE). */
static raid_status compute(raid_ctx *ctx, raid_ma_stat stat, int64_t n, const double *x, const int64_t *offsets,
                           size_t nseg, double *out)
{
    memset(&ctx->timing, 0, sizeof ctx->timing);
    const int64_t total = offsets[nseg] - offsets[0];
    if (total == 0)
        return RAID_OK;
    if (total > RAID_MA_DEVICE_MAX_VALUES)
        return raidFail(ctx, RAID_EUNSUPPORTED, "raid_ma_compute on a device: %lld values in one call (at most %d)",
                         (long long)total, RAID_MA_DEVICE_MAX_VALUES);
    const size_t N = (size_t)total;
    const int width = stat == RAID_MA_EMA ? 2 : 3; /* floats per output point */
    const double t0 = raidNow();
    ma_bufs d = {0};
    RaidLaunch L; /* the transfers' steps; the kernels' plans are launch_ema's and launch_window's */
    raidLaunchUse(&L, ctx, NULL);
    float *xs = malloc(2 * N * sizeof *xs), *res = malloc(width * N * sizeof *res);
    int32_t *rs = malloc(N * sizeof *rs), *runs = NULL;
    int *escale = malloc((nseg ? nseg : 1) * sizeof *escale);
    if (!xs || !rs || !escale || !res)
        raidLaunchFail(&L, raidFail(ctx, RAID_ENOMEM, "out of memory (moving average on a device)"));
    size_t nruns = L.st == RAID_OK ? stage(x, offsets, nseg, xs, rs, escale) : 0;
    if (L.st == RAID_OK && stat == RAID_MA_EMA) { /* the runs long enough to seed */
        if (!(runs = malloc(2 * (nruns ? nruns : 1) * sizeof *runs)))
            raidLaunchFail(&L, raidFail(ctx, RAID_ENOMEM, "out of memory (moving average on a device)"));
        else
            nruns = ema_runs(rs, N, n, runs);
    }
    if (L.st == RAID_OK)
        ctx->timing.convert_s = raidNow() - t0;
    RaidEvent ev = {0};
    RAID_LAUNCH_CALL(&L, raidBufAcquire(ctx, RAID_DT_FLOAT, 2 * N, &d.x));
    RAID_LAUNCH_CALL(&L, raidBufAcquire(ctx, RAID_DT_INT, N, &d.rs));
    RAID_LAUNCH_CALL(&L, raidBufAcquire(ctx, RAID_DT_FLOAT, width * N, &d.out));
    RAID_LAUNCH_CALL(&L, raidBufUpload(ctx, &d.x, 0, 2 * N, xs, 1, &ev));
    RAID_LAUNCH_CALL(&L, raidEventFinish(ctx, &ev, &ctx->timing.upload_s));
    RAID_LAUNCH_CALL(&L, raidBufUpload(ctx, &d.rs, 0, N, rs, 1, &ev));
    RAID_LAUNCH_CALL(&L, raidEventFinish(ctx, &ev, &ctx->timing.upload_s));
    raidEventRelease(&ev);
    if (L.st == RAID_OK)
        ctx->timing.bytes_in = 2 * N * sizeof(float) + N * sizeof(int32_t);
    if (L.st == RAID_OK && stat == RAID_MA_EMA && nruns) {
        RaidLaunch E;
        launch_ema(&E, ctx, &d, runs, nruns, (int)n);
        raidLaunchFail(&L, raidLaunchEnd(&E));
    } else if (L.st == RAID_OK && stat != RAID_MA_EMA) {
        raidLaunchFail(&L, launch_window(ctx, &d, stat, (int)n, N, raid_ma_warmup(stat, n)));
    }
    RAID_LAUNCH_CALL(&L, raidBufDownload(ctx, &d.out, 0, width * N, res, 1, NULL));
    if (L.st == RAID_OK)
        combine(stat, n, offsets, nseg, rs, res, width, escale, out);
    raidBufRelease(ctx, &d.x);
    raidBufRelease(ctx, &d.rs);
    raidBufRelease(ctx, &d.out);
    raidBufRelease(ctx, &d.y);
    raidBufRelease(ctx, &d.runs);
    free(xs);
    free(rs);
    free(runs);
    free(res);
    free(escale);
    return raidLaunchEnd(&L);
}

raid_status raidMaDeviceCompute(raid_ctx *ctx, raid_ma_stat stat, int64_t n, const double *x, const int64_t *offsets,
                                  size_t nseg, double *out)
{
    /* Inputs the device refuses go to the cpu path, as on a cpu context: a window beyond float32's exact
     * weights, or a series spanning more than float's range. */
    int here = n <= RAID_MA_DEVICE_MAX_WINDOW;
    for (size_t s = 0; s < nseg && here; s++)
        here = raidMaDeviceRangeOk(x + offsets[s], (size_t)(offsets[s + 1] - offsets[s]));
    if (!here)
        return raidMaCpuCompute(ctx, stat, n, x, offsets, nseg, out);
    const raid_status st = compute(ctx, stat, n, x, offsets, nseg, out);
    if (st == RAID_OK)
        raidProgress(ctx, nseg, nseg, "series"); /* one pass of every series */
    return st;
}

int raidMaDeviceRangeOk(const double *x, size_t len)
{
    double M = 0.0, m = INFINITY;
    for (size_t i = 0; i < len; i++) {
        const double a = fabs(x[i]);
        if (a > M) /* false for NaN */
            M = a;
        if (a > 0.0 && a < m)
            m = a;
    }
    return M == 0.0 || m >= ldexp(M, -RAID_MA_DEVICE_MAX_RANGE);
}

/* One launch of the sweep table's kernels, queued: the three buffers, then ni ints and nf floats. */
static raid_status row_launch(raid_ctx *ctx, RaidKernel *k, const RaidBuf *in, const RaidBuf *rs, const RaidBuf *out,
                              const int32_t *iv, int ni, const float *fv, int nf, size_t items)
{
    RaidArg args[3 + 5 + 4] = {RAID_ARG_BUF(in), RAID_ARG_BUF(rs), RAID_ARG_BUF(out)};
    for (int i = 0; i < ni; i++)
        args[3 + i] = RAID_ARG_I32(iv[i]);
    for (int i = 0; i < nf; i++)
        args[3 + ni + i] = RAID_ARG_F32(fv[i]);
    RaidLaunch L;
    raidLaunchUse(&L, ctx, k);
    raidLaunchSize(&L, items, 64);
    raidLaunchArgs(&L, 0, args, (size_t)(3 + ni + nf));
    raidLaunchGo(&L, NULL);
    return raidLaunchEnd(&L);
}

raid_status raidMaDeviceTable(raid_ctx *ctx, raid_ma_stat stat, const int *periods, size_t np, const double *x,
                             size_t len, int f32, RaidBuf *tab, int *escale)
{
    memset(tab, 0, sizeof *tab);
    if (stat != RAID_MA_MEAN && stat != RAID_MA_WMA && stat != RAID_MA_HMA && stat != RAID_MA_EMA)
        return raidFail(ctx, RAID_EINVAL, "sweep table on a device: moving average '%s'", raid_ma_stat_name(stat));
    if (f32 && stat == RAID_MA_EMA)
        return raidFail(ctx, RAID_EUNSUPPORTED, "sweep table on a device: float32 sums apply to mean, wma and hma, not ema");
    if (len == 0 || np == 0 || len > (size_t)INT32_MAX / np / 2)
        return raidFail(ctx, RAID_EUNSUPPORTED, "sweep table on a device: %zu periods x %zu bars (at most 2^30 values)",
                         np, len);
    for (size_t p = 0; p < np; p++)
        if (periods[p] < 1 || periods[p] > RAID_MA_DEVICE_MAX_WINDOW || (stat == RAID_MA_HMA && periods[p] < 2))
            return raidFail(ctx, RAID_EUNSUPPORTED, "sweep table on a device: period %d", periods[p]);
    const int64_t off[2] = {0, (int64_t)len};
    float *xs = malloc(2 * len * sizeof *xs);
    int32_t *rs = malloc(len * sizeof *rs);
    RaidBuf bx = {0}, brs = {0}, by = {0}, bruns = {0};
    RaidKernel *kin = NULL, *krow = NULL;
    raid_status st = RAID_OK;
    if (!xs || !rs) {
        st = raidFail(ctx, RAID_ENOMEM, "out of memory (sweep table on a device)");
        goto done;
    }
    (void)stage(x, off, 1, xs, rs, escale);
    const char *opt = raidTuneBuildOptions(ctx);
    if ((st = raidBufAcquire(ctx, RAID_DT_FLOAT, 2 * len, &bx)) != RAID_OK ||
        (st = raidBufAcquire(ctx, RAID_DT_INT, len, &brs)) != RAID_OK ||
        (st = raidBufAcquire(ctx, RAID_DT_FLOAT, 2 * len * np, tab)) != RAID_OK ||
        (st = raidBufUpload(ctx, &bx, 0, 2 * len, xs, 1, NULL)) != RAID_OK ||
        (st = raidBufUpload(ctx, &brs, 0, len, rs, 1, NULL)) != RAID_OK)
        goto done;
    if (stat == RAID_MA_EMA) { /* one run, the whole series: one work-item per period, in turn */
        const float nan = NAN;
        const int32_t run[2] = {0, (int32_t)len};
        if ((st = raidBufFill(ctx, tab, &nan, NULL)) != RAID_OK ||
            (st = raidBufAcquire(ctx, RAID_DT_INT, 2, &bruns)) != RAID_OK ||
            (st = raidBufUpload(ctx, &bruns, 0, 2, run, 1, NULL)) != RAID_OK ||
            (st = raidKernelGet(ctx, "ta_ma.cl", "ta_ema", opt, &krow)) != RAID_OK)
            goto done;
        for (size_t p = 0; p < np; p++) {
            if ((size_t)periods[p] > len)
                continue; /* never seeded: NaN */
            const double alpha = 2.0 / ((double)periods[p] + 1.0), beta = 1.0 - alpha;
            float f[4];
            raidDfSplit(alpha, &f[0], &f[1]);
            raidDfSplit(beta, &f[2], &f[3]);
            const int32_t iv[3] = {(int32_t)(p * len), 1, periods[p]};
            if ((st = row_launch(ctx, krow, &bx, &bruns, tab, iv, 3, f, 4, 1)) != RAID_OK)
                goto done;
        }
        goto done;
    }
    if ((st = raidKernelGet(ctx, "ta_ma.cl", f32 ? "ta_ma_row_f32" : "ta_ma_row", opt, &krow)) != RAID_OK)
        goto done;
    if (stat == RAID_MA_HMA &&
        ((st = raidBufAcquire(ctx, RAID_DT_FLOAT, 2 * len, &by)) != RAID_OK ||
         (st = raidKernelGet(ctx, "ta_ma.cl", f32 ? "ta_hma_inner_f32" : "ta_hma_inner", opt, &kin)) != RAID_OK))
        goto done;
    for (size_t p = 0; p < np; p++) {
        const int n = periods[p], minlen = (int)raid_ma_warmup(stat, n) + 1;
        int w = n; /* the window of the row's launch */
        const RaidBuf *in = &bx;
        if (stat == RAID_MA_HMA) { /* the inner series into by, then the outer WMA of window trunc(sqrt(n)) */
            const int m = n / 2;
            const double dn = (double)n * (double)(n + 1) / 2.0, dm = (double)m * (double)(m + 1) / 2.0;
            float f[4];
            const int32_t iv[3] = {(int32_t)len, n, m};
            raidDfSplit(dn, &f[0], &f[1]); /* exact: n (n + 1) / 2 < 2^48 */
            raidDfSplit(dm, &f[2], &f[3]);
            if (f32)
                f[1] = (float)dm; /* ta_hma_inner_f32 takes dn, dm rounded to float */
            if ((st = row_launch(ctx, kin, &bx, &brs, &by, iv, 3, f, f32 ? 2 : 4, len)) != RAID_OK)
                goto done;
            w = minlen - n + 1; /* trunc(sqrt(n)) */
            in = &by;
        }
        const int wma = stat != RAID_MA_MEAN;
        const double div = wma ? (double)w * (double)(w + 1) / 2.0 : (double)w;
        float f[2];
        raidDfSplit(div, &f[0], &f[1]);
        if (f32)
            f[0] = (float)div;
        const int32_t iv[5] = {(int32_t)(p * len), (int32_t)len, w, minlen, wma};
        if ((st = row_launch(ctx, krow, in, &brs, tab, iv, 5, f, f32 ? 1 : 2, len)) != RAID_OK)
            goto done;
    }
done:
    raidKernelPut(ctx, kin);
    raidKernelPut(ctx, krow);
    raidBufRelease(ctx, &bx), raidBufRelease(ctx, &brs), raidBufRelease(ctx, &by), raidBufRelease(ctx, &bruns);
    if (st != RAID_OK)
        raidBufRelease(ctx, tab);
    free(xs), free(rs);
    return st;
}
