/*
 * Sufficient statistics of many least-squares problems (raid_reg_stats_compute), the device backend
 * (kernels/regress.cl; chosen through raidRegBackends, ols.c), through the chunk reduction
 * (src/device/chunk.h: plan, batch pipeline, float64 combine) shared with the realized kernel:
 *   1. the host copies each chunk's rows as they are (float64 bits) into page-locked staging; no host
 *      pass converts, centres or scales them;
 *   2. the device, per chunk and column, with integer operations: range check, the chunk's largest
 *      exponent, an exact centre at (about) the chunk's own mean, a power of two that brings the centred
 *      column to [0.5, 1), the split into the policy's float or double-float, then sum z_p z_q (p <= q)
 *      and sum z_p in double-float (columns of very different scales or with large means all arrive as
 *      numbers of order one: float32 would otherwise lose the digits that the regression needs);
 *   3. the chunk layer unscales the partials exactly; the host merges each problem's chunks in chunk order
 *      (Chan, Golub and LeVeque 1979) with the running mean as a double-double; the raw moments are
 *      C + n m m' (raidRegFillStats, shared with the cpu path, stats.c).
 * The earlier path (the host centred, scaled and converted every row before the upload) was removed on
 * 2026-12-02 (docs/regression.md has its figures).
 */
#include "core/dd.h"
#include "core/internal.h"
#include "device/chunk.h"
#include "regress/ols_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_D RAID_REG_MAX_D
#define NA_OF(d) ((d) * ((d) + 1) / 2 + (d))

/* The kernel's partials in order (sum z_p z_q for p <= q, row by row of the upper triangle, then sum z_p)
 * as the upper triangle P and the first moments S. */
static void unpack_partials(const double *A, int d, double P[][MAX_D], double *S)
{
    int a2 = 0;
    for (int p = 0; p < d; p++)
        for (int q = p; q < d; q++)
            P[p][q] = A[a2++];
    for (int p = 0; p < d; p++)
        S[p] = A[a2++];
}

typedef struct reg_copy {
    const double *X, *y;
    int k;
} reg_copy;

/* Copy each chunk's float64 rows into the staging buffer as they are: its len rows of X, then its len
 * values of y (the device centres, scales and splits them). */
static void copy_rows(void *user, const RaidChunkPlan *plan, size_t first, size_t count, const uint32_t *table,
                      void *staging)
{
    const reg_copy *rc = user;
    const size_t k = (size_t)rc->k, d = k + 1;
    const long long n = (long long)count;
#pragma omp parallel for schedule(static)
    for (long long i = 0; i < n; i++) {
        const RaidChunk *ch = &plan->chunks[first + (size_t)i];
        double *dst = (double *)staging + (size_t)table[2 * i] * d;
        raidCopyStream(dst, rc->X + (size_t)ch->start * k, ch->len * k * sizeof(double));
        raidCopyStream(dst + ch->len * k, rc->y + ch->start, ch->len * sizeof(double));
    }
}

/* The centre the kernel used for a column of a chunk, as an exact double-double: the chunk's first value
 * v0 in fixed point at the chunk's unit 2^(eu - 1083) (truncated toward zero, as raidBitsToFixed does
 * on the device), plus K units. */
static RaidDd chunk_centre(double v0, int eu, int64_t K)
{
    const int64_t A = (int64_t)trunc(ldexp(v0, 1083 - eu)) + K; /* |A| < 2^61 + 2^62: exact */
    const double hi = (double)A;
    const double lo = (double)(A - (int64_t)hi);
    RaidDd c = {ldexp(hi, eu - 1083), ldexp(lo, eu - 1083)};
    return c;
}

/* Merge the chunks' centred statistics of problem g into o, in chunk order: chunk c (len rows, centre a,
 * partials P = sum z z' and S = sum z about a, unscaled) has mean a + S/len and centred cross-products
 * P - S S'/len; two sets merge as C = Ca + Cb + (na nb / n) delta delta' (Chan, Golub and LeVeque 1979,
 * as raid_reg_stats_combine), with the means kept as double-double so that delta keeps its own accuracy
 * however far the levels stand above the spread. */
static void merge_chunks(const RaidChunkPlan *plan, size_t c0, size_t c1, const double *acc, const float *tail,
                         const double *X, const double *y, int k, raid_reg_stats *o)
{
    const int d = k + 1, na = NA_OF(d);
    RaidDd m[MAX_D];
    double C[MAX_D][MAX_D], zero[MAX_D];
    memset(C, 0, sizeof C);
    memset(zero, 0, sizeof zero);
    int64_t n = 0;
    for (size_t c = c0; c < c1; c++) {
        const RaidChunk *ch = &plan->chunks[c];
        const float *tl = tail + c * (size_t)(4 * d);
        const double len = (double)ch->len;
        double P[MAX_D][MAX_D], S[MAX_D], delta[MAX_D];
        RaidDd mc[MAX_D];
        unpack_partials(acc + c * (size_t)na, d, P, S);
        for (int p = 0; p < d; p++) {
            const float *t = tl + 4 * p;
            const int64_t K = (int64_t)t[1] * ((int64_t)1 << 42) + (int64_t)t[2] * ((int64_t)1 << 21) + (int64_t)t[3];
            mc[p] = chunk_centre(raidRegCol(X, y, k, ch->start, p), (int)t[0], K);
            raidDdAdd(&mc[p], S[p] / len);
        }
        if (n == 0) {
            for (int p = 0; p < d; p++) {
                m[p] = mc[p];
                for (int q = p; q < d; q++)
                    C[p][q] = P[p][q] - S[p] * S[q] / len;
            }
            n = ch->len;
            continue;
        }
        const double nn = (double)(n + ch->len), w = (double)n * len / nn;
        for (int p = 0; p < d; p++) {
            RaidDd dl = mc[p];
            raidDdAdd(&dl, -m[p].s);
            raidDdAdd(&dl, -m[p].c);
            delta[p] = raidDdValue(dl);
        }
        for (int p = 0; p < d; p++)
            for (int q = p; q < d; q++)
                C[p][q] += (P[p][q] - S[p] * S[q] / len) + w * delta[p] * delta[q];
        for (int p = 0; p < d; p++)
            raidDdAdd(&m[p], delta[p] * (len / nn));
        n += ch->len;
    }
    double mean[MAX_D];
    for (int p = 0; p < d; p++)
        mean[p] = n ? raidDdValue(m[p]) : 0.0;
    raidRegFillStats(o, k, n, mean, C, zero);
}

raid_status raidRegStatsDevice(raid_ctx *ctx, const double *X, const double *y, int k, const int64_t *offsets,
                                 size_t nreg, raid_reg_stats *out)
{
    const int d = k + 1, na = NA_OF(d), ntail = 4 * d;
    const raid_precision prec = raid_ctx_precision(ctx);
    const size_t run = ctx->chunk_len / ctx->wg_width;
    memset(&ctx->timing, 0, sizeof ctx->timing);
    if ((uint64_t)(2 * 8 * ctx->wg_width + 4 * d + 2 * d + 1) * 4 > raidDevLocalMem(ctx))
        return raidFail(ctx, RAID_EINVAL, "work-group width %zu needs more local memory than the device has",
                         ctx->wg_width);
    uint64_t maxv;
    const double mv = RAID_REG_MAX_VALUE;
    memcpy(&maxv, &mv, sizeof maxv);
    char opts[512];
    snprintf(opts, sizeof opts, "-DRAID_WG=%zu -DRAID_RUN=%zu -DRAID_D=%d -DRAID_INPUT_DF=%d "
             "-DRAID_MAXV_HI=0x%08Xu -DRAID_MAXV_LO=0x%08Xu %s", ctx->wg_width, run, d, prec == RAID_PREC_DF,
             (unsigned)(maxv >> 32), (unsigned)(maxv & 0xFFFFFFFFu), raidTuneBuildOptions(ctx));
    RaidKernel *kern;
    raid_status st = raidKernelGet(ctx, "regress.cl", "reg_stats", opts, &kern);
    if (st != RAID_OK)
        return st;

    RaidChunkPlan plan;
    memset(&plan, 0, sizeof plan);
    double *acc = NULL;
    float *tail = NULL;
    uint32_t *flags = NULL;
    int *pw = malloc((size_t)na * d * sizeof *pw);
    const double t0 = raidNow();
    if ((st = raidPlanBuild(&plan, offsets, nreg, ctx->chunk_len)) != RAID_OK) {
        st = raidFail(ctx, st, "cannot plan %zu problems", nreg);
        goto out;
    }
    const size_t nc = plan.nchunks ? plan.nchunks : 1;
    acc = calloc(nc * na, sizeof *acc);
    tail = malloc(nc * ntail * sizeof *tail);
    flags = malloc(nc * sizeof *flags);
    if (!pw || !acc || !tail || !flags) {
        st = raidFail(ctx, RAID_ENOMEM, "out of memory");
        goto out;
    }
    /* partial (p, q) times 2^(e_p + e_q), first moment p times 2^e_p */
    memset(pw, 0, (size_t)na * d * sizeof *pw);
    {
        int a2 = 0;
        for (int p = 0; p < d; p++)
            for (int q = p; q < d; q++, a2++) {
                pw[a2 * d + p]++;
                pw[a2 * d + q]++;
            }
        for (int p = 0; p < d; p++, a2++)
            pw[a2 * d + p] = 1;
    }
    ctx->timing.convert_s += raidNow() - t0;
    {
        reg_copy rc = {X, y, k};
        RaidChunkJob job = {&plan, kern, ctx->wg_width, (size_t)d * sizeof(double), 1, (size_t)na, copy_rows, &rc,
                              NULL, acc, "the regression statistics kernel", {NULL, 0, RAID_DT_FLOAT}, 0, pw, NULL,
                              flags, NULL, d, (size_t)ntail, tail, 1, 0, 0};
        if ((st = raidChunkReduce(ctx, &job)) != RAID_OK)
            goto out;
    }
    const double th = raidNow();
    /* A flagged chunk holds a value out of range: the first one in row order is named as the cpu path
     * names it (the chunks are in row order). */
    for (size_t c = 0; c < plan.nchunks; c++)
        if (flags[c]) {
            st = raidRegCheckRows(ctx, X, y, k, plan.chunks[c].start, plan.chunks[c].start + plan.chunks[c].len);
            if (st == RAID_OK)
                st = raidFail(ctx, RAID_EDEVICE, "the regression statistics kernel flagged chunk %zu, whose values "
                               "are in range", c);
            goto out;
        }
    {
        /* each problem's chunks are consecutive in the plan */
        size_t *first = malloc((nreg + 1) * sizeof *first);
        if (!first) {
            st = raidFail(ctx, RAID_ENOMEM, "out of memory");
            goto out;
        }
        for (size_t g = 0, c = 0; g <= nreg; g++) {
            while (c < plan.nchunks && plan.chunks[c].seg < g)
                c++;
            first[g] = c;
        }
        const long long ng = (long long)nreg;
#pragma omp parallel for schedule(dynamic, 64)
        for (long long g = 0; g < ng; g++)
            merge_chunks(&plan, first[g], first[g + 1], acc, tail, X, y, k, &out[g]);
        free(first);
    }
    ctx->timing.host_s += raidNow() - th;
    st = RAID_OK;
out:
    free(pw);
    free(acc);
    free(tail);
    free(flags);
    raidPlanFree(&plan);
    raidKernelPut(ctx, kern);
    return st;
}

