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
#include "ta/ma_cl.h"

#include "device/device.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct ma_dev {
    raid_buf x, rs, out, y, runs;
    raid_kernel *k;
} ma_dev;

static raid_status launch1(raid_ctx *ctx, raid_kernel *k, size_t items, raid_event *ev)
{
    const size_t local = 64, global = (items + local - 1) / local * local;
    ctx->timing.launches++;
    return raid_launch(ctx, k, 1, &global, &local, ev);
}

static double kernel_seconds(raid_ctx *ctx, raid_event *ev)
{
    (void)raid_event_wait(ctx, ev);
    const double s = raid_event_seconds(ev);
    raid_event_release(ev);
    return s;
}

raid_status raid_ma_cl_compute(raid_ctx *ctx, raid_ma_stat stat, int64_t n, const double *x, const int64_t *offsets,
                               size_t nseg, double *out)
{
    memset(&ctx->timing, 0, sizeof ctx->timing);
    const int64_t base = offsets[0], total = offsets[nseg] - base;
    if (total == 0)
        return RAID_OK;
    if (total > RAID_MA_CL_MAX_VALUES)
        return raid_fail(ctx, RAID_EUNSUPPORTED, "raid_ma_compute on a device: %lld values in one call (at most %d)",
                         (long long)total, RAID_MA_CL_MAX_VALUES);
    const size_t N = (size_t)total;
    const double t0 = raid_now();
    raid_status st = RAID_OK;
    ma_dev d = {0};
    raid_event ev = {0};
    float *xs = malloc(2 * N * sizeof *xs), *res = NULL;
    int32_t *rs = malloc(N * sizeof *rs), *runs = NULL;
    int *escale = malloc((nseg ? nseg : 1) * sizeof *escale);
    size_t nruns = 0;
    if (!xs || !rs || !escale) {
        st = raid_fail(ctx, RAID_ENOMEM, "out of memory (moving average on a device)");
        goto done;
    }
    /* the pairs and the runs: NaN points carry (0, 0) and rs = -1; each series scaled by 2^-e[s], its
     * largest |x| in [1/2, 1) (exact; float32 holds neither 1e100 nor 1e-100) */
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
            raid_df_split(ldexp(x[g], -e), &xs[2 * i], &xs[2 * i + 1]);
        }
    }
    const int ni = (int)n;
    const int64_t warm = raid_ma_warmup(stat, n); /* a point is computed when its run has warm + 1 values */
    if (stat == RAID_MA_EMA) { /* the runs long enough to seed */
        runs = malloc(2 * (nruns ? nruns : 1) * sizeof *runs);
        if (!runs) {
            st = raid_fail(ctx, RAID_ENOMEM, "out of memory (moving average on a device)");
            goto done;
        }
        nruns = 0;
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
    }
    const int width = stat == RAID_MA_EMA ? 2 : 3; /* floats per output point */
    res = malloc(width * N * sizeof *res);
    if (!res) {
        st = raid_fail(ctx, RAID_ENOMEM, "out of memory (moving average on a device)");
        goto done;
    }
    ctx->timing.convert_s = raid_now() - t0;
    if ((st = raid_buf_acquire(ctx, RAID_DT_FLOAT, 2 * N, &d.x)) != RAID_OK ||
        (st = raid_buf_acquire(ctx, RAID_DT_INT, N, &d.rs)) != RAID_OK ||
        (st = raid_buf_acquire(ctx, RAID_DT_FLOAT, width * N, &d.out)) != RAID_OK)
        goto done;
    if ((st = raid_buf_upload(ctx, &d.x, 0, 2 * N, xs, 1, &ev)) != RAID_OK)
        goto done;
    ctx->timing.upload_s += kernel_seconds(ctx, &ev);
    if ((st = raid_buf_upload(ctx, &d.rs, 0, N, rs, 1, &ev)) != RAID_OK)
        goto done;
    ctx->timing.upload_s += kernel_seconds(ctx, &ev);
    ctx->timing.bytes_in = 2 * N * sizeof(float) + N * sizeof(int32_t);

    if (stat == RAID_MA_EMA) {
        if (nruns) {
            const double alpha = 2.0 / ((double)n + 1.0), beta = 1.0 - alpha; /* the host path's two factors */
            float ah, al, bh, bl;
            raid_df_split(alpha, &ah, &al);
            raid_df_split(beta, &bh, &bl);
            if ((st = raid_buf_acquire(ctx, RAID_DT_INT, 2 * nruns, &d.runs)) != RAID_OK ||
                (st = raid_buf_upload(ctx, &d.runs, 0, 2 * nruns, runs, 1, NULL)) != RAID_OK ||
                (st = raid_kernel_get(ctx, "ta_ma.cl", "ta_ema", raid_tune_build_options(ctx), &d.k)) != RAID_OK)
                goto done;
            unsigned a = 0;
            if ((st = raid_arg_buf(ctx, d.k, a++, &d.x)) != RAID_OK || (st = raid_arg_buf(ctx, d.k, a++, &d.runs)) != RAID_OK ||
                (st = raid_arg_buf(ctx, d.k, a++, &d.out)) != RAID_OK ||
                (st = raid_arg_int(ctx, d.k, a++, (int32_t)nruns)) != RAID_OK ||
                (st = raid_arg_int(ctx, d.k, a++, ni)) != RAID_OK || (st = raid_arg_float(ctx, d.k, a++, ah)) != RAID_OK ||
                (st = raid_arg_float(ctx, d.k, a++, al)) != RAID_OK || (st = raid_arg_float(ctx, d.k, a++, bh)) != RAID_OK ||
                (st = raid_arg_float(ctx, d.k, a++, bl)) != RAID_OK || (st = launch1(ctx, d.k, nruns, &ev)) != RAID_OK)
                goto done;
            ctx->timing.kernel_s += kernel_seconds(ctx, &ev);
        }
    } else {
        int wn = ni, minlen = (int)warm + 1, kstat = (int)stat;
        const raid_buf *in = &d.x;
        if (stat == RAID_MA_MEAN)
            kstat = RAID_MA_SUM;
        if (stat == RAID_MA_HMA) { /* the inner series y = 2 WMA(m) - WMA(n), resident */
            const int m = ni / 2;
            const double dn = (double)n * (double)(n + 1) / 2.0, dm = (double)m * (double)(m + 1) / 2.0;
            float dnh, dnl, dmh, dml;
            raid_df_split(dn, &dnh, &dnl); /* exact: n (n + 1) / 2 < 2^48 */
            raid_df_split(dm, &dmh, &dml);
            if ((st = raid_buf_acquire(ctx, RAID_DT_FLOAT, 2 * N, &d.y)) != RAID_OK ||
                (st = raid_kernel_get(ctx, "ta_ma.cl", "ta_hma_inner", raid_tune_build_options(ctx), &d.k)) != RAID_OK)
                goto done;
            unsigned a = 0;
            if ((st = raid_arg_buf(ctx, d.k, a++, &d.x)) != RAID_OK || (st = raid_arg_buf(ctx, d.k, a++, &d.rs)) != RAID_OK ||
                (st = raid_arg_buf(ctx, d.k, a++, &d.y)) != RAID_OK || (st = raid_arg_int(ctx, d.k, a++, (int32_t)N)) != RAID_OK ||
                (st = raid_arg_int(ctx, d.k, a++, ni)) != RAID_OK || (st = raid_arg_int(ctx, d.k, a++, m)) != RAID_OK ||
                (st = raid_arg_float(ctx, d.k, a++, dnh)) != RAID_OK || (st = raid_arg_float(ctx, d.k, a++, dnl)) != RAID_OK ||
                (st = raid_arg_float(ctx, d.k, a++, dmh)) != RAID_OK || (st = raid_arg_float(ctx, d.k, a++, dml)) != RAID_OK ||
                (st = launch1(ctx, d.k, N, &ev)) != RAID_OK)
                goto done;
            ctx->timing.kernel_s += kernel_seconds(ctx, &ev);
            raid_kernel_put(ctx, d.k);
            d.k = NULL;
            wn = (int)(warm - n + 2); /* trunc(sqrt(n)) */
            kstat = RAID_MA_WMA;
            in = &d.y;
        }
        if (!(stat == RAID_MA_VAR && n < 2)) {
            if ((st = raid_kernel_get(ctx, "ta_ma.cl", "ta_window", raid_tune_build_options(ctx), &d.k)) != RAID_OK)
                goto done;
            unsigned a = 0;
            if ((st = raid_arg_buf(ctx, d.k, a++, in)) != RAID_OK || (st = raid_arg_buf(ctx, d.k, a++, &d.rs)) != RAID_OK ||
                (st = raid_arg_buf(ctx, d.k, a++, &d.out)) != RAID_OK ||
                (st = raid_arg_int(ctx, d.k, a++, (int32_t)N)) != RAID_OK || (st = raid_arg_int(ctx, d.k, a++, wn)) != RAID_OK ||
                (st = raid_arg_int(ctx, d.k, a++, minlen)) != RAID_OK || (st = raid_arg_int(ctx, d.k, a++, kstat)) != RAID_OK ||
                (st = launch1(ctx, d.k, N, &ev)) != RAID_OK)
                goto done;
            ctx->timing.kernel_s += kernel_seconds(ctx, &ev);
        }
    }
    if ((st = raid_buf_download(ctx, &d.out, 0, width * N, res, 1, NULL)) != RAID_OK)
        goto done;

    /* the combine, in float64, and the mask: point i is a number when its run holds warm + 1 values up to i */
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
done:
    raid_event_release(&ev);
    raid_kernel_put(ctx, d.k);
    raid_buf_release(ctx, &d.x);
    raid_buf_release(ctx, &d.rs);
    raid_buf_release(ctx, &d.out);
    raid_buf_release(ctx, &d.y);
    raid_buf_release(ctx, &d.runs);
    free(xs);
    free(rs);
    free(runs);
    free(res);
    free(escale);
    return st;
}
