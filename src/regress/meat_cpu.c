/*
 * The robust meat on the cpu: float64 scores u_t = e_t (x_t - c) and their lagged cross-products summed in
 * long double, per problem (raid_reg_meat_compute) or per row range (raid_reg_meat_ranges_at, with block
 * sums where cheaper: meat_block.c). The oracle of the device path (meat_device.c); chosen through
 * raidRegBackends (ols.c).
 */
#include "regress/ols_internal.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

/* u_t = e_t (x_t - c) for rows lo..hi-1 of one problem (c NULL: 0); returns 0 if one is not finite. */
static int meat_scores(const double *X, const double *y, int k, int64_t lo, int64_t hi, const double *b,
                       const double *c, double *u)
{
    int ok = 1;
    for (int64_t t = lo; t < hi; t++)
        ok &= raidRegScoreAt(X, y, k, t, b, c, u + (size_t)t * (size_t)k);
    return ok;
}

/* meat_l of rows lo..hi-1: out[i][j] = sum_{t = lo+l}^{hi-1} u_t[i] u_{t-l}[j]. */
static void meat_lag(const double *u, int k, int64_t lo, int64_t hi, int l, double *out)
{
    long double acc[RAID_REG_MAX_K * RAID_REG_MAX_K] = {0};
    for (int64_t t = lo + l; t < hi; t++) {
        const double *a = u + (size_t)t * (size_t)k, *b = u + (size_t)(t - l) * (size_t)k;
        for (int i = 0; i < k; i++) {
            long double ai = a[i];
            for (int j = l == 0 ? i : 0; j < k; j++)
                acc[i * k + j] += ai * b[j];
        }
    }
    for (int i = 0; i < k; i++)
        for (int j = 0; j < k; j++)
            out[i * k + j] = (double)(l == 0 && j < i ? acc[j * k + i] : acc[i * k + j]);
}

raid_status raidRegMeatCpu(raid_ctx *ctx, const double *X, const double *y, int k, const int64_t *offsets,
                             size_t nreg, const double *beta, int max_lag, double *out)
{
    int64_t rows = offsets[nreg];
    if ((uint64_t)rows > SIZE_MAX / sizeof(double) / (size_t)k)
        return raidFail(ctx, RAID_ENOMEM, "raid_reg_meat_compute: %lld rows do not fit in memory",
                         (long long)rows);
    /* u is indexed by absolute row (rows before offsets[0] are not touched) */
    double *u = malloc((size_t)(rows > 0 ? rows : 1) * (size_t)k * sizeof *u);
    if (!u)
        return raidFail(ctx, RAID_ENOMEM, "raid_reg_meat_compute: out of memory for %lld x %d scores",
                         (long long)rows, k);

    long long bad = -1;
    /* Scores: across problems when there are many, else across the rows of each problem. */
    if (nreg >= 64) {
#pragma omp parallel for schedule(dynamic, 16)
        for (size_t g = 0; g < nreg; g++)
            if (!meat_scores(X, y, k, offsets[g], offsets[g + 1], beta + g * (size_t)k, NULL, u)) {
#pragma omp critical(raidMeatBad)
                if (bad < 0 || (long long)g < bad)
                    bad = (long long)g;
            }
    } else {
        for (size_t g = 0; g < nreg && bad < 0; g++) {
            int64_t lo = offsets[g], hi = offsets[g + 1];
            int ok = 1;
#pragma omp parallel for schedule(static) reduction(&& : ok)
            for (int64_t t0 = lo; t0 < hi; t0 += 4096) {
                int64_t t1 = hi - t0 > 4096 ? t0 + 4096 : hi;
                ok = ok && meat_scores(X, y, k, t0, t1, beta + g * (size_t)k, NULL, u);
            }
            if (!ok)
                bad = (long long)g;
        }
    }
    if (bad >= 0) {
        free(u);
        return raidFail(ctx, RAID_EINVAL,
                         "raid_reg_meat_compute: problem %lld: a residual times a regressor is not finite (X or y "
                         "not finite, or overflow)",
                         bad);
    }

    size_t nl = (size_t)max_lag + 1, kk = (size_t)(k * k);
    size_t ntask = nreg * nl;
#pragma omp parallel for schedule(dynamic, 1)
    for (size_t task = 0; task < ntask; task++) {
        size_t g = task / nl;
        int l = (int)(task % nl);
        meat_lag(u, k, offsets[g], offsets[g + 1], l, out + task * kk);
    }
    free(u);
    return RAID_OK;
}

raid_status raidRegMeatRangesCpu(raid_ctx *ctx, const double *X, const double *y, int k, const int64_t *start,
                                   const int64_t *end, size_t n, const double *beta, const double *centre,
                                   int max_lag, double *out, int blocks)
{
    const size_t nl = (size_t)max_lag + 1, kk = (size_t)(k * k);
    /* Overlapping windows: from block sums where that is cheaper and within its bound (meat_block.c); the
     * others (and those it leaves) from their rows below. */
    unsigned char *done = calloc(n, 1);
    if (!done)
        return raidFail(ctx, RAID_ENOMEM, "raid_reg_meat_ranges: out of memory");
    if (blocks && !raidTuneMeatRows(ctx))
        raidRegMeatBlocks(X, y, k, start, end, n, beta, centre, max_lag, out, done, 0);
    long long bad = -1;
#pragma omp parallel
    {
        double *u = NULL;
        size_t cap = 0;
#pragma omp for schedule(dynamic, 4)
        for (size_t r = 0; r < n; r++) {
            if (done[r])
                continue;
            const size_t m = (size_t)(end[r] - start[r]);
            if (m * (size_t)k > cap) {
                free(u);
                cap = m * (size_t)k;
                u = malloc(cap * sizeof *u);
            }
            const double *Xr = X + (size_t)start[r] * (size_t)k, *yr = y + start[r];
            if (!u || !meat_scores(Xr, yr, k, 0, (int64_t)m, beta + r * (size_t)k, centre ? centre + r * (size_t)k : NULL,
                                   u)) {
#pragma omp critical(raidMeatRangesBad)
                if (bad < 0 || (long long)r < bad)
                    bad = (long long)r;
                continue;
            }
            for (size_t l = 0; l < nl; l++)
                meat_lag(u, k, 0, (int64_t)m, (int)l, out + (r * nl + l) * kk);
        }
        free(u);
    }
    free(done);
    if (bad >= 0)
        return raidFail(ctx, RAID_EINVAL,
                         "raid_reg_meat_ranges: range %lld: a residual times a regressor is not finite (or out of "
                         "memory)",
                         bad);
    return RAID_OK;
}
