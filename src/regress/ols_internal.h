/* Distribution functions of the regression inference (src/regress/ols.c), shared with the tests. */
#ifndef RAID_OLS_INTERNAL_H
#define RAID_OLS_INTERNAL_H

/* Regularized incomplete beta function I_x(a, b) for a, b > 0, given both x and x1 = 1 - x (so that the
 * caller can supply the one it knows without cancellation); NAN outside 0 <= x <= 1 or for a, b <= 0. */
double raid_betai(double a, double b, double x, double x1);

/* Two-sided p-value P(|T| >= |t|) of Student's t with df > 0 degrees of freedom (df need not be an
 * integer); NAN for NAN t or df <= 0. */
double raid_t_pvalue2(double t, double df);

/* Lower tail P(T <= t) of Student's t with df degrees of freedom. */
double raid_t_cdf(double t, double df);

/* Two-sided p-value P(|Z| >= |z|) of the standard normal: erfc(|z| / sqrt 2). */
double raid_normal_pvalue2(double z);

/* Device pass of raid_reg_meat_compute (src/regress/meat_cl.c): from the scores u (absolute row t at
 * u + t k), the lag cross-products of every problem into out (layout of raid_reg_meat_compute). */
#include "core/internal.h"
raid_status raid_reg_meat_cl(raid_ctx *ctx, const double *u, int k, const int64_t *offsets, size_t nreg, int max_lag,
                             double *out);

#endif
