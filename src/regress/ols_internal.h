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

/* Device pass of the meat (src/regress/meat_device.c) for problems given as row ranges [start, end) (which may
 * overlap), coefficients beta (k per problem), and centre (k per problem, the scores e_t (x_t - centre);
 * NULL: the scores e_t x_t): out in the layout of raid_reg_meat_compute. */
raid_status raidRegMeatCl(raid_ctx *ctx, const double *X, const double *y, int k, const int64_t *start,
                             const int64_t *end, size_t nprob, const double *beta, const double *centre,
                             int max_lag, double *out);

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
