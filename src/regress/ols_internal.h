/* Distribution functions of the regression inference (src/regress/ols.c), shared with the tests. */
#ifndef RAID_OLS_INTERNAL_H
#define RAID_OLS_INTERNAL_H

/* Regularized incomplete beta function I_x(a, b) for a, b > 0, given both x and x1 = 1 - x (so that the
 * caller can supply the one it knows without cancellation); NAN outside 0 <= x <= 1 or for a, b <= 0. */
double raidBetai(double a, double b, double x, double x1);

/* Two-sided p-value P(|T| >= |t|) of Student's t with df > 0 degrees of freedom (df need not be an
 * integer); NAN for NAN t or df <= 0. */
double raidTPvalue2(double t, double df);

/* Lower tail P(T <= t) of Student's t with df degrees of freedom. */
double raidTCdf(double t, double df);

/* Two-sided p-value P(|Z| >= |z|) of the standard normal: erfc(|z| / sqrt 2). */
double raidNormalPvalue2(double z);

#include "core/internal.h"
#include <math.h>

/* The score u_t = e_t (x_t - c) of row t with coefficients b, e_t = y_t - x_t'b and x_t - c taken in long
 * double (c NULL: 0); returns 0 when a component is not finite. One place for the host and the device
 * paths. */
static inline int raidRegScoreAt(const double *X, const double *y, int k, int64_t t, const double *b,
                                    const double *c, double *u)
{
    const double *x = X + (size_t)t * (size_t)k;
    long double e = y[t];
    for (int j = 0; j < k; j++)
        e -= (long double)x[j] * b[j];
    int ok = 1;
    for (int j = 0; j < k; j++) {
        u[j] = (double)(e * ((long double)x[j] - (c ? c[j] : 0.0)));
        ok &= isfinite(u[j]) != 0;
    }
    return ok;
}

static inline int raidRegScore(const double *X, const double *y, int k, int64_t t, const double *b, double *u)
{
    return raidRegScoreAt(X, y, k, t, b, NULL, u);
}

/* Columns of a problem's rows: the k regressors and y. */
#define RAID_REG_MAX_D (RAID_REG_MAX_K + 1)
/* Largest magnitude of a value of the regression statistics (products stay finite in float64). */
#define RAID_REG_MAX_VALUE 1e150

/* Value of column p (p < k: X, p == k: y) of row t. */
static inline double raidRegCol(const double *X, const double *y, int k, int64_t t, int p)
{
    return p < k ? X[t * k + p] : y[t];
}

/* Fill o from the means m, the sums of centred cross-products P (upper triangle, d x d, row-major with
 * stride RAID_REG_MAX_D) and the first moments S of the centred columns (stats.c; both backends). */
void raidRegFillStats(raid_reg_stats *o, int k, int64_t n, const double *m, double P[][RAID_REG_MAX_D],
                        const double *S);
/* RAID_OK when every value of rows a..b-1 is finite and at most 1e150 in magnitude; otherwise RAID_EINVAL
 * naming the first one out of range (row order, y before X). The one check of both backends: the cpu path
 * runs it over all rows, the device path over the chunk that the kernel flagged. */
raid_status raidRegCheckRows(raid_ctx *ctx, const double *X, const double *y, int k, int64_t a, int64_t b);

/* The backends of the regression operations (arguments checked by the public entries; the table in ols.c,
 * chosen by RAID_BACKEND(raidRegBackends, ctx)):
 *   stats:       raid_reg_stats_compute (stats.c: cpu; stats_device.c: kernels/regress.cl);
 *   meat:        raid_reg_meat_compute, problems as consecutive offsets (meat_cpu.c: scores by absolute row;
 *                meat_device.c: the ranges [offsets[g], offsets[g + 1]));
 *   meat_ranges: raidRegMeatRangesHow, problems as row ranges that may overlap (centre NULL: the scores
 *                e_t x_t); blocks as raidRegMeatRangesHow's (the cpu's choice; the device ignores it). */
typedef struct RaidRegBackend {
    raid_status (*stats)(raid_ctx *ctx, const double *X, const double *y, int k, const int64_t *offsets,
                         size_t nreg, raid_reg_stats *out);
    raid_status (*meat)(raid_ctx *ctx, const double *X, const double *y, int k, const int64_t *offsets,
                        size_t nreg, const double *beta, int max_lag, double *out);
    raid_status (*meat_ranges)(raid_ctx *ctx, const double *X, const double *y, int k, const int64_t *start,
                               const int64_t *end, size_t n, const double *beta, const double *centre,
                               int max_lag, double *out, int blocks);
} RaidRegBackend;
extern const RaidRegBackend raidRegBackends[2];

raid_status raidRegStatsCpu(raid_ctx *ctx, const double *X, const double *y, int k, const int64_t *offsets,
                              size_t nreg, raid_reg_stats *out);
raid_status raidRegStatsDevice(raid_ctx *ctx, const double *X, const double *y, int k, const int64_t *offsets,
                                 size_t nreg, raid_reg_stats *out);
raid_status raidRegMeatCpu(raid_ctx *ctx, const double *X, const double *y, int k, const int64_t *offsets,
                             size_t nreg, const double *beta, int max_lag, double *out);
raid_status raidRegMeatDevice(raid_ctx *ctx, const double *X, const double *y, int k, const int64_t *offsets,
                                size_t nreg, const double *beta, int max_lag, double *out);
raid_status raidRegMeatRangesCpu(raid_ctx *ctx, const double *X, const double *y, int k, const int64_t *start,
                                   const int64_t *end, size_t n, const double *beta, const double *centre,
                                   int max_lag, double *out, int blocks);
/* Device pass of the meat (src/regress/meat_device.c) for problems given as row ranges [start, end) (which
 * may overlap), coefficients beta (k per problem), and centre (k per problem, the scores e_t (x_t - centre);
 * NULL: the scores e_t x_t): out in the layout of raid_reg_meat_compute. A problem whose sums binary32 may
 * have spoilt goes to the cpu path (raidRegMeatRangesCpu), inside this entry. */
raid_status raidRegMeatRangesDevice(raid_ctx *ctx, const double *X, const double *y, int k, const int64_t *start,
                                      const int64_t *end, size_t n, const double *beta, const double *centre,
                                      int max_lag, double *out, int blocks);

/* raid_reg_meat_ranges_at with the choice of the cpu path: blocks 1 lets overlapping windows come from block
 * sums (raidRegMeatBlocks) where cheaper and within its bound, blocks 0 keeps every window's meat summed
 * from its rows (the long double scores path: the oracle, and what `raid har` uses while its recorded
 * outputs (tests/golden) are those of that path). On a device context: the device path either way. */
raid_status raidRegMeatRangesHow(raid_ctx *ctx, const double *X, const double *y, int k, const int64_t *start,
                                     const int64_t *end, size_t n, const double *beta, const double *centre,
                                     int max_lag, double *out, int blocks);

/* The meat of overlapping ranges from per-block lagged cross-products of the rows' pair products
 * (src/regress/meat_block.c): ranges it computes (within its bound) get done[r] = 1 and their meat in out
 * (layout of raid_reg_meat_ranges_at); the others are left for the row-wise path (their out may hold
 * anything). Runs of at least two overlapping ranges are taken where its cost model finds them cheaper
 * than the rows, or always with force (tests). Arguments already checked by the caller. Returns the
 * number done. */
size_t raidRegMeatBlocks(const double *X, const double *y, int k, const int64_t *start, const int64_t *end,
                            size_t n, const double *beta, const double *centre, int max_lag, double *out,
                            unsigned char *done, int force);

#endif
