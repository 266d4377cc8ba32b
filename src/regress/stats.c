/*
 * Sufficient statistics of many least-squares problems (raid_reg_stats_compute): the entry, the float64 cpu
 * backend and what both backends share (the dispatch: raidRegBackends, ols.c; the device backend:
 * stats_device.c).
 *
 * cpu backend: per problem, the float64 column means, then compensated float64 sums (TwoSum) of the
 * centred products (v_p - m_p)(v_q - m_q) and of v_p - m_p.
 */
#include "core/dd.h"
#include "core/internal.h"
#include "regress/ols_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_D RAID_REG_MAX_D

/* Fill o from the means m, the sums of centred cross-products P (upper triangle, d x d, row-major with
 * stride MAX_D) and the first moments S of the centred columns: C = P - S S'/n removes what the rounded
 * mean left; the raw moments are C + n m m'. Shared by both backends. */
void raidRegFillStats(raid_reg_stats *o, int k, int64_t n, const double *m, double P[][MAX_D], const double *S)
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

/* float64 mean of column p over rows a..b-1 (compensated). */
static double col_mean(const double *X, const double *y, int k, int64_t a, int64_t b, int p)
{
    if (b <= a)
        return 0.0;
    RaidDd s = {0, 0};
    for (int64_t t = a; t < b; t++)
        raidDdAdd(&s, raidRegCol(X, y, k, t, p));
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
            z[p] = raidRegCol(X, y, k, t, p) - m[p];
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
    raidRegFillStats(o, k, b - a, m, P, S);
}

/* RAID_OK when every value of rows a..b-1 is finite and at most 1e150 in magnitude; otherwise the first
 * one out of range (row order, y before X) is named. The one check of both backends: the cpu path runs it
 * over all rows, the device path over the chunk that the kernel flagged. */
raid_status raidRegCheckRows(raid_ctx *ctx, const double *X, const double *y, int k, int64_t a, int64_t b)
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

raid_status raidRegStatsCpu(raid_ctx *ctx, const double *X, const double *y, int k, const int64_t *offsets,
                              size_t nreg, raid_reg_stats *out)
{
    raid_status st = raidRegCheckRows(ctx, X, y, k, nreg ? offsets[0] : 0, nreg ? offsets[nreg] : 0);
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
    return RAID_BACKEND(raidRegBackends, ctx)->stats(ctx, X, y, k, offsets, nreg, out);
}
