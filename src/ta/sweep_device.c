/* The device sweep's scan (kernels/ta_sweep.cl; docs/ta_sweep.md "The device sweep"): the return bars cut
 * by the chunk plan (src/device/chunk.h), one work-item per (chunk, combination), the per-chunk counts and
 * double-float partials combined here in float64 in chunk order (a fixed order: bitwise reproducible), and
 * the trade list by a second pass into slots from the counts' prefix sums. */
#include "device/chunk.h"
#include "device/launch.h"
#include "ta/sweep.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Chunks of at least 256 return bars, at most 64 per series: enough work-items for a GPU with a few
 * thousand combinations, a length that depends on n only (the results do not depend on the grid). */
static size_t chunk_len(size_t n)
{
    const size_t bars = n - 1, len = (bars + 63) / 64;
    return len < 256 ? 256 : len;
}

raid_status raidSweepDeviceTableUpload(raid_ctx *ctx, const double *ma, size_t nperiods, size_t n, RaidBuf *tab)
{
    memset(tab, 0, sizeof *tab);
    const size_t nv = nperiods * n;
    if (n == 0 || nperiods == 0 || nv / nperiods != n || nv > (size_t)INT32_MAX / 2)
        return raidFail(ctx, RAID_EUNSUPPORTED, "sweep on a device: %zu periods x %zu bars (at most 2^30 values)",
                         nperiods, n);
    float *h = malloc(2 * nv * sizeof *h);
    if (!h)
        return raidFail(ctx, RAID_ENOMEM, "sweep on a device: out of memory");
    raid_status st = RAID_OK;
    for (size_t i = 0; i < nv && st == RAID_OK; i++) {
        if (isnan(ma[i]))
            h[2 * i] = h[2 * i + 1] = NAN;
        else if (!(fabs(ma[i]) < 0x1p127)) /* float's range (the split's hi) */
            st = raidFail(ctx, RAID_EUNSUPPORTED, "sweep on a device: moving average %.17g (row %zu, bar %zu) beyond "
                           "float's range", ma[i], i / n, i % n);
        else
            raidDfSplit(ma[i], &h[2 * i], &h[2 * i + 1]);
    }
    if (st == RAID_OK && ((st = raidBufAcquire(ctx, RAID_DT_FLOAT, 2 * nv, tab)) != RAID_OK ||
                          (st = raidBufUpload(ctx, tab, 0, 2 * nv, h, 1, NULL)) != RAID_OK))
        raidBufRelease(ctx, tab);
    free(h);
    return st;
}

raid_status raidSweepDeviceTableDownload(raid_ctx *ctx, const RaidBuf *tab, size_t nperiods, size_t n, int escale,
                                         double *ma)
{
    const size_t nv = nperiods * n;
    float *h = malloc(2 * nv * sizeof *h);
    if (!h)
        return raidFail(ctx, RAID_ENOMEM, "sweep on a device: out of memory");
    const raid_status st = raidBufDownload(ctx, tab, 0, 2 * nv, h, 1, NULL);
    for (size_t i = 0; st == RAID_OK && i < nv; i++)
        ma[i] = isnan(h[2 * i]) ? NAN : ldexp((double)h[2 * i] + (double)h[2 * i + 1], escale);
    free(h);
    return st;
}

/* One pass (0: counts and partials; 1: the trades into their slots) of the scan, queued: one work-item per
 * (chunk, combination). b: the kernel's buffers in order (table, fidx, sidx, chunks, ret, cnt, part, base,
 * tr); c: the cost's log factor as a double-float. */
static raid_status scan(raid_ctx *ctx, RaidKernel *k, const RaidBuf *b, size_t n, size_t ncomb, size_t nchunks,
                        const RaidSweepOpts *o, const float *c, int pass)
{
    RaidLaunch L;
    raidLaunchUse(&L, ctx, k);
    raidLaunchSize(&L, ncomb * nchunks, 64);
    RAID_LAUNCH_ARGS(&L, 0, RAID_ARG_BUF(&b[0]), RAID_ARG_BUF(&b[1]), RAID_ARG_BUF(&b[2]), RAID_ARG_BUF(&b[3]),
                     RAID_ARG_BUF(&b[4]), RAID_ARG_I32(n), RAID_ARG_I32(ncomb), RAID_ARG_I32(nchunks),
                     RAID_ARG_I32(o->short_side), RAID_ARG_I32(o->fill == RAID_SWEEP_FILL_NEXT_OPEN),
                     RAID_ARG_F32(c[0]), RAID_ARG_F32(c[1]), RAID_ARG_I32(pass), RAID_ARG_BUF(&b[5]),
                     RAID_ARG_BUF(&b[6]), RAID_ARG_BUF(&b[7]), RAID_ARG_BUF(&b[8]));
    raidLaunchGo(&L, NULL);
    return raidLaunchEnd(&L);
}

/* The float64 combine of combination k's chunk partials (chunk order) into *st. */
static void combine(const int *cnt, const float *part, size_t k, size_t ncomb, size_t nchunks, size_t n,
                    const RaidSweepOpts *o, raid_sweep_stats *st)
{
    double S = 0.0, SS = 0.0, P = 0.0, M = 0.0;
    int64_t trades = 0, held = 0;
    for (size_t j = 0; j < nchunks; j++) {
        const size_t g = j * ncomb + k;
        const float *p = part + 10 * g;
        const double e = (double)p[0] + (double)p[1], ss = (double)p[2] + (double)p[3];
        const double pk = (double)p[4] + (double)p[5], mn = (double)p[6] + (double)p[7], md = (double)p[8] + (double)p[9];
        /* the drop from the peak so far to this chunk's minimum; then the new peak and level */
        const double across = (P - S) - mn;
        M = md > M ? md : M;
        M = across > M ? across : M;
        P = S + pk > P ? S + pk : P;
        S += e;
        SS += ss;
        trades += cnt[2 * g];
        held += cnt[2 * g + 1];
    }
    const double N = (double)(n - 1), mean = S / N;
    double var = (SS - S * mean) / (N - 1.0);
    if (var < 0.0)
        var = 0.0;
    const double sd = sqrt(var);
    st->trades = trades;
    st->total_log_return = S;
    st->sharpe = sd > 0.0 ? mean / sd * sqrt(o->bars_per_year) : 0.0;
    st->max_drawdown = M;
    st->exposure = (double)held / N;
}

/* The kernel's inputs: the chunk table (offset, length) and the returns (close to close; with fills at the
 * next open also gap and intrabar) as double-floats, bar 0 unused. */
static void stage_inputs(const RaidSweepSeries *s, const RaidChunkPlan *plan, size_t nret, uint32_t *chunks,
                         float *ret)
{
    const size_t n = s->n;
    for (size_t j = 0; j < plan->nchunks; j++)
        chunks[2 * j] = (uint32_t)plan->chunks[j].start, chunks[2 * j + 1] = plan->chunks[j].len;
    const double *src[3] = {s->lc, s->lgap, s->lin};
    for (size_t a = 0; a < nret; a++) {
        ret[2 * a * n] = ret[2 * a * n + 1] = 0.0f; /* bar 0: unused */
        for (size_t t = 1; t < n; t++)
            raidDfSplit(src[a][t], &ret[2 * (a * n + t)], &ret[2 * (a * n + t) + 1]);
    }
}

/* Pass 1: each (chunk, combination)'s first slot from the counts (combination-major: combination k's trades
 * in chunk order), the scan again into the slots, and the lists into trades. b[7] holds the slots, b[8] is
 * acquired here (released by the caller). */
static raid_status trade_lists(raid_ctx *ctx, RaidKernel *k, RaidBuf *b, const RaidSweepSeries *s, size_t ncomb,
                               size_t nch, const RaidSweepOpts *o, const float *c, const int *cnt,
                               const raid_sweep_stats *out, RaidSweepTrades *trades)
{
    const size_t n = s->n, items = nch * ncomb;
    size_t total = 0;
    int *base = malloc(items * sizeof *base), *tr = NULL;
    RaidLaunch L; /* the steps; the scan's own plan is scan()'s */
    raidLaunchUse(&L, ctx, NULL);
    if (!base)
        raidLaunchFail(&L, raidFail(ctx, RAID_ENOMEM, "sweep on a device: out of memory"));
    for (size_t kk = 0; kk < ncomb && L.st == RAID_OK; kk++)
        for (size_t j = 0; j < nch && L.st == RAID_OK; j++) {
            base[j * ncomb + kk] = (int)total;
            total += (size_t)cnt[2 * (j * ncomb + kk)];
            if (total > (size_t)INT32_MAX / 3)
                raidLaunchFail(&L, raidFail(ctx, RAID_EUNSUPPORTED, "sweep on a device: more than %d trades in one "
                                             "series", INT32_MAX / 3));
        }
    b[8] = (RaidBuf){0};
    if (L.st == RAID_OK && !(tr = malloc((total ? 3 * total : 1) * sizeof *tr)))
        raidLaunchFail(&L, raidFail(ctx, RAID_ENOMEM, "sweep on a device: out of memory for %zu trades", total));
    RAID_LAUNCH_CALL(&L, raidBufUpload(ctx, &b[7], 0, items, base, 1, NULL));
    RAID_LAUNCH_CALL(&L, raidBufAcquire(ctx, RAID_DT_INT, total ? 3 * total : 1, &b[8]));
    RAID_LAUNCH_CALL(&L, scan(ctx, k, b, n, ncomb, nch, o, c, 1));
    if (total)
        RAID_LAUNCH_CALL(&L, raidBufDownload(ctx, &b[8], 0, 3 * total, tr, 1, NULL));
    const double *fp = o->fill == RAID_SWEEP_FILL_NEXT_OPEN ? s->open : s->close;
    size_t at = 0;
    for (size_t kk = 0; kk < ncomb && L.st == RAID_OK; kk++) {
        const size_t m = (size_t)out[kk].trades;
        if (m && !(trades[kk].v = malloc(m * sizeof *trades[kk].v))) {
            raidSweepTradesFree(trades, kk);
            raidLaunchFail(&L, raidFail(ctx, RAID_ENOMEM, "sweep on a device: out of memory"));
            break;
        }
        trades[kk].n = m;
        for (size_t i = 0; i < m; i++, at++) {
            const int *x = tr + 3 * at;
            const int final = x[1] < 0;
            const int64_t exit_bar = final ? -(int64_t)x[1] - 1 : x[1];
            trades[kk].v[i] = (raid_sweep_trade){x[0], exit_bar, fp[x[0]], final ? s->close[exit_bar] : fp[exit_bar], x[2]};
        }
    }
    free(base);
    free(tr);
    return raidLaunchEnd(&L);
}

raid_status raidSweepDeviceRun(raid_ctx *ctx, const RaidSweepSeries *s, const RaidBuf *tab, size_t nperiods,
                              const uint32_t *fast_idx, const uint32_t *slow_idx, size_t ncomb,
                              const RaidSweepOpts *o, raid_sweep_stats *out, RaidSweepTrades *trades)
{
    const size_t n = s->n;
    if (trades)
        memset(trades, 0, ncomb * sizeof *trades);
    if (ncomb == 0)
        return RAID_OK;
    if (n < 3 || n > (size_t)INT32_MAX / 2 || ncomb > (size_t)INT32_MAX / 64 || tab->n < 2 * nperiods * n)
        return raidFail(ctx, RAID_EUNSUPPORTED, "sweep on a device: %zu bars x %zu combinations", n, ncomb);
    for (size_t k = 0; k < ncomb; k++)
        if (fast_idx[k] >= nperiods || slow_idx[k] >= nperiods)
            return raidFail(ctx, RAID_EINVAL, "sweep on a device: combination %zu: row out of range", k);
    RaidChunkPlan plan = {0};
    const int64_t bars[2] = {1, (int64_t)n};
    if (raidPlanBuild(&plan, bars, 1, chunk_len(n)) != RAID_OK)
        return raidFail(ctx, RAID_ENOMEM, "sweep on a device: out of memory");
    const size_t nch = plan.nchunks, items = nch * ncomb, nret = o->fill == RAID_SWEEP_FILL_NEXT_OPEN ? 3 : 1;
    uint32_t *chunks = malloc(2 * nch * sizeof *chunks);
    float *ret = malloc(2 * nret * n * sizeof *ret), *part = malloc(10 * items * sizeof *part);
    int *cnt = malloc(2 * items * sizeof *cnt);
    /* b: tab, fidx, sidx, chunks, ret, cnt, part, base, tr (the kernel's buffer arguments in order) */
    RaidBuf b[9] = {*tab};
    RaidLaunch L; /* the kernel, held by the plan; each pass's arguments are scan()'s */
    raidLaunchKernel(&L, ctx, "ta_sweep.cl", "ta_sweep_scan", raidTuneBuildOptions(ctx));
    if (!chunks || !ret || !part || !cnt)
        raidLaunchFail(&L, raidFail(ctx, RAID_ENOMEM, "sweep on a device: out of memory"));
    float c[2];
    raidDfSplit(log1p(-o->cost_bps * 1e-4), &c[0], &c[1]);
    if (L.st == RAID_OK)
        stage_inputs(s, &plan, nret, chunks, ret);
    RAID_LAUNCH_CALL(&L, raidBufAcquire(ctx, RAID_DT_UINT, ncomb, &b[1]));
    RAID_LAUNCH_CALL(&L, raidBufAcquire(ctx, RAID_DT_UINT, ncomb, &b[2]));
    RAID_LAUNCH_CALL(&L, raidBufAcquire(ctx, RAID_DT_UINT, 2 * nch, &b[3]));
    RAID_LAUNCH_CALL(&L, raidBufAcquire(ctx, RAID_DT_FLOAT, 2 * nret * n, &b[4]));
    RAID_LAUNCH_CALL(&L, raidBufAcquire(ctx, RAID_DT_INT, 2 * items, &b[5]));
    RAID_LAUNCH_CALL(&L, raidBufAcquire(ctx, RAID_DT_FLOAT, 10 * items, &b[6]));
    RAID_LAUNCH_CALL(&L, raidBufAcquire(ctx, RAID_DT_INT, trades ? items : 1, &b[7]));
    RAID_LAUNCH_CALL(&L, raidBufUpload(ctx, &b[1], 0, ncomb, fast_idx, 1, NULL));
    RAID_LAUNCH_CALL(&L, raidBufUpload(ctx, &b[2], 0, ncomb, slow_idx, 1, NULL));
    RAID_LAUNCH_CALL(&L, raidBufUpload(ctx, &b[3], 0, 2 * nch, chunks, 1, NULL));
    RAID_LAUNCH_CALL(&L, raidBufUpload(ctx, &b[4], 0, 2 * nret * n, ret, 1, NULL));
    b[8] = b[7]; /* pass 0 writes no trade: any buffer */
    RAID_LAUNCH_CALL(&L, scan(ctx, L.k, b, n, ncomb, nch, o, c, 0));
    RAID_LAUNCH_CALL(&L, raidBufDownload(ctx, &b[5], 0, 2 * items, cnt, 1, NULL));
    RAID_LAUNCH_CALL(&L, raidBufDownload(ctx, &b[6], 0, 10 * items, part, 1, NULL));
    for (size_t kk = 0; kk < ncomb && L.st == RAID_OK; kk++)
        combine(cnt, part, kk, ncomb, nch, n, o, &out[kk]);
    if (trades)
        RAID_LAUNCH_CALL(&L, trade_lists(ctx, L.k, b, s, ncomb, nch, o, c, cnt, out, trades));
    if (b[8].h != b[7].h)
        raidBufRelease(ctx, &b[8]);
    for (int i = 1; i < 8; i++)
        raidBufRelease(ctx, &b[i]);
    raidPlanFree(&plan);
    free(chunks), free(ret), free(part), free(cnt);
    return raidLaunchEnd(&L);
}
