/* The trade scan of the sweep on the device (kernels/ta_sweep.cl; docs/ta_sweep.md "The trade scan on the
 * device"): the table split exactly into three floats per value, one work-item per combination, the
 * trades' bars and sides and the bars in a position back, the prices and the exposure formed here. */
#include "device/device.h"
#include "ta/sweep.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* v = h + m + l exactly in floats (h NaN for NaN); 0 when v does not split exactly (beyond float's range,
 * or l below its normal range). */
static int split3(double v, float *o)
{
    if (isnan(v)) {
        o[0] = o[1] = o[2] = NAN;
        return 1;
    }
    const float h = (float)v;
    const double r = v - (double)h;
    const float m = (float)r;
    const double q = r - (double)m;
    const float l = (float)q;
    o[0] = h, o[1] = m, o[2] = l;
    return isfinite(h) && (double)l == q && (l == 0.0f || fabsf(l) >= 0x1p-126f);
}

raid_status raid_sweep_cl_trades(raid_ctx *ctx, const raid_sweep_series *s, const double *ma, size_t nperiods,
                                 const uint32_t *fast_idx, const uint32_t *slow_idx, size_t ncomb,
                                 const raid_sweep_opts *o, raid_sweep_stats *out, raid_sweep_trades *trades)
{
    const size_t n = s->n, nv = nperiods * n, cap = trades ? n - 1 : 0;
    if (n > INT32_MAX / 2 || ncomb > INT32_MAX || nv > SIZE_MAX / 12 || (cap && ncomb > SIZE_MAX / 12 / cap))
        return raid_fail(ctx, RAID_EUNSUPPORTED, "sweep on a device: %zu bars x %zu combinations too large", n, ncomb);
    for (size_t k = 0; k < ncomb; k++)
        if (fast_idx[k] >= nperiods || slow_idx[k] >= nperiods)
            return raid_fail(ctx, RAID_EINVAL, "sweep on a device: combination %zu: row out of range", k);
    float *t3 = malloc(3 * nv * sizeof *t3);
    int *cnt = malloc(ncomb * sizeof *cnt), *held = malloc(ncomb * sizeof *held);
    int *tr = cap ? malloc(3 * ncomb * cap * sizeof *tr) : NULL;
    raid_status st = RAID_OK;
    if (!t3 || !cnt || !held || (cap && !tr))
        st = raid_fail(ctx, RAID_ENOMEM, "sweep on a device: out of memory");
    for (size_t i = 0; st == RAID_OK && i < nv; i++)
        if (!split3(ma[i], t3 + 3 * i))
            st = raid_fail(ctx, RAID_EUNSUPPORTED, "sweep on a device: moving average %.17g (row %zu, bar %zu) does "
                           "not split exactly into three floats", ma[i], i / n, i % n);
    raid_buf b_ma = {0}, b_f = {0}, b_s = {0}, b_cnt = {0}, b_held = {0}, b_tr = {0};
    raid_kernel *k = NULL;
    if (st == RAID_OK &&
        ((st = raid_buf_acquire(ctx, RAID_DT_FLOAT, 3 * nv, &b_ma)) != RAID_OK ||
         (st = raid_buf_acquire(ctx, RAID_DT_UINT, ncomb, &b_f)) != RAID_OK ||
         (st = raid_buf_acquire(ctx, RAID_DT_UINT, ncomb, &b_s)) != RAID_OK ||
         (st = raid_buf_acquire(ctx, RAID_DT_INT, ncomb, &b_cnt)) != RAID_OK ||
         (st = raid_buf_acquire(ctx, RAID_DT_INT, ncomb, &b_held)) != RAID_OK ||
         (st = raid_buf_acquire(ctx, RAID_DT_INT, cap ? 3 * ncomb * cap : 1, &b_tr)) != RAID_OK ||
         (st = raid_buf_upload(ctx, &b_ma, 0, 3 * nv, t3, 1, NULL)) != RAID_OK ||
         (st = raid_buf_upload(ctx, &b_f, 0, ncomb, fast_idx, 1, NULL)) != RAID_OK ||
         (st = raid_buf_upload(ctx, &b_s, 0, ncomb, slow_idx, 1, NULL)) != RAID_OK ||
         (st = raid_kernel_get(ctx, "ta_sweep.cl", "ta_sweep_trades", raid_tune_build_options(ctx), &k)) != RAID_OK)) {
        /* st holds the first failure (reported by the device layer); the buffers are released below */
    }
    if (st == RAID_OK) {
        unsigned a = 0;
        const size_t local = 64, global = (ncomb + local - 1) / local * local;
        if ((st = raid_arg_buf(ctx, k, a++, &b_ma)) != RAID_OK || (st = raid_arg_buf(ctx, k, a++, &b_f)) != RAID_OK ||
            (st = raid_arg_buf(ctx, k, a++, &b_s)) != RAID_OK || (st = raid_arg_int(ctx, k, a++, (int32_t)n)) != RAID_OK ||
            (st = raid_arg_int(ctx, k, a++, (int32_t)ncomb)) != RAID_OK ||
            (st = raid_arg_int(ctx, k, a++, o->short_side)) != RAID_OK ||
            (st = raid_arg_int(ctx, k, a++, o->fill == RAID_SWEEP_FILL_NEXT_OPEN)) != RAID_OK ||
            (st = raid_arg_int(ctx, k, a++, (int32_t)cap)) != RAID_OK ||
            (st = raid_arg_buf(ctx, k, a++, &b_cnt)) != RAID_OK || (st = raid_arg_buf(ctx, k, a++, &b_held)) != RAID_OK ||
            (st = raid_arg_buf(ctx, k, a++, &b_tr)) != RAID_OK || (st = raid_launch(ctx, k, 1, &global, &local, NULL)) != RAID_OK ||
            (st = raid_buf_download(ctx, &b_cnt, 0, ncomb, cnt, 1, NULL)) != RAID_OK ||
            (st = raid_buf_download(ctx, &b_held, 0, ncomb, held, 1, NULL)) != RAID_OK ||
            (cap && (st = raid_buf_download(ctx, &b_tr, 0, 3 * ncomb * cap, tr, 1, NULL)) != RAID_OK)) {
            /* st holds the first failure */
        }
    }
    if (k)
        raid_kernel_put(ctx, k);
    raid_buf_release(ctx, &b_ma), raid_buf_release(ctx, &b_f), raid_buf_release(ctx, &b_s);
    raid_buf_release(ctx, &b_cnt), raid_buf_release(ctx, &b_held), raid_buf_release(ctx, &b_tr);
    const int at_open = o->fill == RAID_SWEEP_FILL_NEXT_OPEN;
    for (size_t c = 0; st == RAID_OK && c < ncomb; c++) {
        out[c] = (raid_sweep_stats){cnt[c], NAN, NAN, NAN, (double)held[c] / (double)(n - 1)};
        if (!trades)
            continue;
        trades[c].v = NULL, trades[c].n = 0;
        if (cnt[c] == 0)
            continue;
        if (!(trades[c].v = malloc((size_t)cnt[c] * sizeof *trades[c].v))) {
            raid_sweep_trades_free(trades, c);
            st = raid_fail(ctx, RAID_ENOMEM, "sweep on a device: out of memory");
            break;
        }
        trades[c].n = (size_t)cnt[c];
        for (size_t i = 0; i < (size_t)cnt[c]; i++) {
            const int *x = tr + 3 * (c * cap + i);
            const int side = x[2] > 0 ? 1 : -1, final = x[2] == 2 || x[2] == -2;
            const double *fp = at_open ? s->open : s->close;
            trades[c].v[i] = (raid_sweep_trade){x[0], x[1], fp[x[0]], final ? s->close[x[1]] : fp[x[1]], side};
        }
    }
    free(t3), free(cnt), free(held), free(tr);
    return st;
}
