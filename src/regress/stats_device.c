/*
 * Sufficient statistics of many least-squares problems (raid_reg_stats_compute).
 *
 * cpu backend: per problem, the float64 column means, then compensated float64 sums (TwoSum) of the
 * centred products (v_p - m_p)(v_q - m_q) and of v_p - m_p.
 * device backend (kernels/regress.cl), through the chunk reduction (src/device/chunk.h: plan, batch
 * pipeline, float64 combine) shared with the realized kernel:
 *   1. the host copies each chunk's rows as they are (float64 bits) into page-locked staging; no host
 *      pass converts, centres or scales them;
 *   2. the device, per chunk and column, with integer operations: range check, the chunk's largest
 *      exponent, an exact centre at (about) the chunk's own mean, a power of two that brings the centred
 *      column to [0.5, 1), the split into the policy's float or double-float, then sum z_p z_q (p <= q)
 *      and sum z_p in double-float (columns of very different scales or with large means all arrive as
 *      numbers of order one: float32 would otherwise lose the digits that the regression needs);
 *   3. the chunk layer unscales the partials exactly; the host merges each problem's chunks in chunk order
 *      (Chan, Golub and LeVeque 1979) with the running mean as a double-double; the raw moments are
 *      C + n m m' (fill_stats, shared with the cpu path).
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

#define MAX_D (RAID_REG_MAX_K + 1)
#define NA_OF(d) ((d) * ((d) + 1) / 2 + (d))
#define RAID_REG_MAX_VALUE 1e150 /* largest magnitude of a value (products stay finite in float64) */


/* Value of column p (p < k: X, p == k: y) of row t. */
static inline double col(const double *X, const double *y, int k, int64_t t, int p)
{
    return p < k ? X[t * k + p] : y[t];
}

/* Fill o from the means m, the sums of centred cross-products P (upper triangle, d x d, row-major with
 * stride MAX_D) and the first moments S of the centred columns: C = P - S S'/n removes what the rounded
 * mean left; the raw moments are C + n m m'. Shared by both backends. */
static void fill_stats(raid_reg_stats *o, int k, int64_t n, const double *m, double P[][MAX_D], const double *S)
{
    const int d = k + 1;
    double C[MAX_D][MAX_D];
    for (int p = 0; p < d; p++)
        for (int q = p; q < d; q++)
            C[p][q] = C[q][p] = n > 0 ? P[p][q] - S[p] * S[q] / (double)n : 0.0;
    memset(o, 0, sizeof *o);
    o->k = k;
    o->n = n;
    for (int p = 0; p < d; p++)
        o->mean[p] = m[p];
    const double dn = (double)n;
    for (int p = 0; p < k; p++) {
        for (int q = 0; q < k; q++) {
            o->cxx[p * k + q] = C[p][q];
            o->xtx[p * k + q] = C[p][q] + dn * m[p] * m[q];
        }
        o->cxy[p] = C[p][k];
        o->xty[p] = C[p][k] + dn * m[p] * m[k];
    }
    o->cyy = C[k][k];
    o->yty = C[k][k] + dn * m[k] * m[k];
    o->ysum = dn * m[k];
}

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

/* float64 mean of column p over rows a..b-1 (compensated). */
static double col_mean(const double *X, const double *y, int k, int64_t a, int64_t b, int p)
{
    if (b <= a)
        return 0.0;
    RaidDd s = {0, 0};
    for (int64_t t = a; t < b; t++)
        raidDdAdd(&s, col(X, y, k, t, p));
    return raidDdValue(s) / (double)(b - a);
}

static void stats_cpu(const double *X, const double *y, int k, int64_t a, int64_t b, raid_reg_stats *o)
{
    const int d = k + 1;
    double m[MAX_D];
    for (int p = 0; p < d; p++)
        m[p] = col_mean(X, y, k, a, b, p);
    RaidDd pm[MAX_D][MAX_D], s[MAX_D];
    memset(pm, 0, sizeof pm);
    memset(s, 0, sizeof s);
    for (int64_t t = a; t < b; t++) {
        double z[MAX_D];
        for (int p = 0; p < d; p++)
            z[p] = col(X, y, k, t, p) - m[p];
        for (int p = 0; p < d; p++) {
            raidDdAdd(&s[p], z[p]);
            for (int q = p; q < d; q++)
                raidDdAdd(&pm[p][q], z[p] * z[q]);
        }
    }
    double P[MAX_D][MAX_D], S[MAX_D];
    for (int p = 0; p < d; p++) {
        S[p] = raidDdValue(s[p]);
        for (int q = p; q < d; q++)
            P[p][q] = raidDdValue(pm[p][q]);
    }
    fill_stats(o, k, b - a, m, P, S);
}

/* ---- device path, from the float64 bits ----
 * The host only copies the rows' float64 bits into page-locked staging; the device checks the range,
 * centres each column of each chunk exactly at (about) its own mean, scales it by a power of two and
 * accumulates (kernels/regress.cl); the host merges the chunks' centred statistics. */

/* RAID_OK when every value of rows a..b-1 is finite and at most 1e150 in magnitude; otherwise the first
 * one out of range (row order, y before X) is named. The one check of both backends: the cpu path runs it
 * over all rows, the device path over the chunk that the kernel flagged. */
static raid_status check_rows(raid_ctx *ctx, const double *X, const double *y, int k, int64_t a, int64_t b)
{
    for (int64_t t = a; t < b; t++) {
        if (!(fabs(y[t]) <= RAID_REG_MAX_VALUE))
            return raidFail(ctx, RAID_EINVAL, "y of row %lld is not finite or beyond 1e150", (long long)t);
        for (int p = 0; p < k; p++)
            if (!(fabs(X[t * k + p]) <= RAID_REG_MAX_VALUE))
                return raidFail(ctx, RAID_EINVAL, "X of row %lld, column %d is not finite or beyond 1e150",
                                 (long long)t, p);
    }
    return RAID_OK;
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
            mc[p] = chunk_centre(col(X, y, k, ch->start, p), (int)t[0], K);
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
    fill_stats(o, k, n, mean, C, zero);
}

static raid_status stats_cl(raid_ctx *ctx, const double *X, const double *y, int k, const int64_t *offsets,
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
                              flags, NULL, d, (size_t)ntail, tail, 1};
        if ((st = raidChunkReduce(ctx, &job)) != RAID_OK)
            goto out;
    }
    const double th = raidNow();
    /* A flagged chunk holds a value out of range: the first one in row order is named as the cpu path
     * names it (the chunks are in row order). */
    for (size_t c = 0; c < plan.nchunks; c++)
        if (flags[c]) {
            st = check_rows(ctx, X, y, k, plan.chunks[c].start, plan.chunks[c].start + plan.chunks[c].len);
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

raid_status raid_reg_stats_compute(raid_ctx *ctx, const double *X, const double *y, int k, const int64_t *offsets,
                                   size_t nreg, raid_reg_stats *out)
{
    if (!ctx)
        return raidFail(NULL, RAID_EINVAL, "%s: ctx is NULL", __func__);
    ctx->errmsg[0] = 0;
    if (k < 1 || k > RAID_REG_MAX_K)
        return raidFail(ctx, RAID_EINVAL, "k = %d regressors; 1 to %d are supported", k, RAID_REG_MAX_K);
    if (!offsets || (nreg && !out))
        return raidFail(ctx, RAID_EINVAL, "NULL argument");
    if (nreg && offsets[0] < 0)
        return raidFail(ctx, RAID_EINVAL, "negative offset");
    for (size_t g = 0; g < nreg; g++)
        if (offsets[g + 1] < offsets[g])
            return raidFail(ctx, RAID_EINVAL, "offsets decrease at problem %zu", g);
    const int64_t n0 = nreg ? offsets[0] : 0, n1 = nreg ? offsets[nreg] : 0;
    if (n1 > n0 && (!X || !y))
        return raidFail(ctx, RAID_EINVAL, "NULL data");
    if (!raidOnDevice(ctx)) {
        raid_status st = check_rows(ctx, X, y, k, n0, n1);
        if (st != RAID_OK)
            return st;
        const long long ng = (long long)nreg;
        if (ng == 1) { /* one problem (a window's edge block): no parallel region to enter */
            stats_cpu(X, y, k, offsets[0], offsets[1], &out[0]);
            return RAID_OK;
        }
#pragma omp parallel for schedule(dynamic, 4)
        for (long long g = 0; g < ng; g++)
            stats_cpu(X, y, k, offsets[g], offsets[g + 1], &out[g]);
        return RAID_OK;
    }
    return stats_cl(ctx, X, y, k, offsets, nreg, out);
}
