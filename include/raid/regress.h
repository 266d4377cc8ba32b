/*
 * raid/regress.h -- least squares from sufficient statistics: statistics on the device, robust meats, OLS and robust inference in float64 on the host.
 * Part of the public API; include <raid.h> for all of it. Conventions: raid/core.h.
 */
#ifndef RAID_REGRESS_H
#define RAID_REGRESS_H

#include "raid/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------------------ */
/* Regression: sufficient statistics on the device, solution and inference in float64 on the host     */
/* ------------------------------------------------------------------------------------------------ */

#define RAID_REG_MAX_K 8          /* regressors per problem, the intercept column included */
#define RAID_REG_MAX_COND 1e12    /* largest accepted condition number estimate of the matrix factored
                                     (see raid_ols.cond) */

/** Sufficient statistics of one least-squares problem y = X b + e over n rows: the column means and the
 *  centred cross-products, which keep their accuracy when a column's mean is large against its spread
 *  (raw moments rounded to float64 cannot: sum x^2 of x = 1e4 + N(0,1) holds the variance in its last
 *  digits), and the raw moments derived from them (X'X = C + n m m'). */
typedef struct raid_reg_stats {
    int k;                                        /* columns of X */
    int64_t n;                                    /* rows */
    double mean[RAID_REG_MAX_K + 1];              /* column means of X, then of y */
    double cxx[RAID_REG_MAX_K * RAID_REG_MAX_K];  /* sum (x_p - m_p)(x_q - m_q), row-major k x k */
    double cxy[RAID_REG_MAX_K];                   /* sum (x_p - m_p)(y - m_y) */
    double cyy;                                   /* sum (y - m_y)^2 */
    double xtx[RAID_REG_MAX_K * RAID_REG_MAX_K];  /* X'X = cxx + n m m', full symmetric, row-major k x k */
    double xty[RAID_REG_MAX_K];                   /* X'y */
    double yty;                                   /* y'y */
    double ysum;                                  /* sum of y */
} raid_reg_stats;

/** Sufficient statistics of nreg problems at once (one per symbol, or per window): problem g uses rows
 *  offsets[g] .. offsets[g+1]-1 of X (row-major, k columns, 1 <= k <= RAID_REG_MAX_K) and y.
 *  On the cpu backend every column of every problem is centred at its float64 mean (a first pass) and
 *  the centred cross-products are compensated float64 sums. On opencl the host only copies the rows'
 *  float64 bits into page-locked staging (batches overlapped with the device's work); the device checks
 *  the range, centres each column of each chunk of rows exactly at (within 2^-42 of the chunk's range of)
 *  the chunk's own mean with integer operations, scales it by a power of two (so that float32 never sees
 *  columns of very different scales or large levels), and accumulates the cross-products and first
 *  moments in double-float; the host merges the chunks' centred statistics in float64 in chunk order
 *  (Chan, Golub and LeVeque 1979, the means as double-doubles). Within 2u(1 + u) + 1e-12 (f32) or 1e-12
 *  (df) of sum |d_p d_q|, d the centred values (docs/regression.md). Bitwise reproducible for a given
 *  chunk length and work-group width.
 *  Values must be finite and at most 1e150 in magnitude (their products must not overflow float64); the
 *  first one that is not (in row order, y before X) is named in the message on both backends.
 *  Errors: RAID_EINVAL (k out of range, decreasing offsets, a value out of range, NULL), RAID_ENOMEM and
 *  the device errors; message: raid_ctx_errmsg(ctx). */
RAID_API raid_status raid_reg_stats_compute(raid_ctx *ctx, const double *X, const double *y, int k,
                                            const int64_t *offsets, size_t nreg, raid_reg_stats *out);

/** Statistics of the union of two disjoint sets of rows of the same k columns, from theirs, in float64:
 *  n = na + nb, mean = (na ma + nb mb) / n, C = Ca + Cb + (na nb / n) (ma - mb)(ma - mb)'
 *  (Chan, Golub and LeVeque 1979), raw moments derived as in raid_reg_stats. Rolling and expanding
 *  windows combine per-block statistics this way instead of re-accumulating every window or adding
 *  and subtracting rows. out may alias a or b. Errors: RAID_EINVAL (different k, NULL); message:
 *  raid_errmsg(). */
RAID_API raid_status raid_reg_stats_combine(const raid_reg_stats *a, const raid_reg_stats *b, raid_reg_stats *out);

/** Statistics of rows [s0, s1) of one series from the statistics of its blocks: blocks[b] holds rows
 *  [b B, (b + 1) B) of the series (B = block_rows, the last block may be short), X and y start at the
 *  series' row 0. The whole blocks inside the range are combined (raid_reg_stats_combine) and the partial
 *  blocks at its edges (fewer than B rows each) computed with cpu, a context of the cpu backend that
 *  this call uses from one thread: a rolling or expanding window costs O((N/B + B) k^2) and no row is
 *  ever added and then subtracted. Errors: RAID_EINVAL (s0 > s1, s0 < 0, NULL, block_rows 0), and those
 *  of raid_reg_stats_compute; message: raid_ctx_errmsg(cpu). */
RAID_API raid_status raid_reg_stats_range(raid_ctx *cpu, const raid_reg_stats *blocks, size_t block_rows,
                                          const double *X, const double *y, int k, int64_t s0, int64_t s1,
                                          raid_reg_stats *out);

/** Robust "meat" of problem g with coefficients beta (k per problem), residuals e = y - X beta:
 *  meat[g][0] = sum_t e_t^2 x_t x_t' (White) and, for l = 1..max_lag, meat[g][l] = sum_t e_t e_{t-l} x_t x_{t-l}'
 *  (t and t-l both inside the problem's rows; full k x k, not symmetric). out holds
 *  nreg * (max_lag + 1) * k * k doubles, problem-major, then lag, then row-major k x k. On the cpu
 *  backend (or ctx NULL: messages then in raid_errmsg() only) the scores u = e x and their sums are
 *  long double on the host. On opencl the rows are uploaded once, centred by column means and scaled by powers of two per
 *  column, and a device pass (kernels/meat.cl) forms e and u in double-float and sums the pairs inside
 *  chunks of up to 1,024 rows in double-float; the host adds the pairs across chunks in float64: within
 *  2e-11 (df) or 4u(1 + 2u) + 2e-11 (f32) of sum_t w_t[p] w_{t-l}[q], with w_t[p] the size of the
 *  centred terms of e_t times |x_t[p]| (with an intercept column: times |x_t[p] - m_p|, m a centre of the
 *  problem's rows, the sums mapped back in float64; docs/regression.md). Errors: RAID_EINVAL (also when
 *  a residual times a regressor is not finite), RAID_ENOMEM, and the device errors; message:
 *  raid_ctx_errmsg(ctx). */
RAID_API raid_status raid_reg_meat_compute(raid_ctx *ctx, const double *X, const double *y, int k,
                                           const int64_t *offsets, size_t nreg, const double *beta,
                                           int max_lag, double *out);

/** The same for problems given as row ranges [start[i], end[i]) that may overlap, e.g. the rolling
 *  windows of one series, each with its own coefficients (beta: k per range); out as above, range-major.
 *  On opencl all ranges go through one device pass. On the cpu backend, runs of consecutive ranges whose
 *  starts and ends do not decrease and that overlap (rolling or expanding windows) come, where cheaper,
 *  from per-block lagged cross-products of the rows' pair products combined with each range's
 *  coefficients (every row summed once, not once per window): each such range within 2^-36
 *  sqrt(meat_0[p][p] meat_0[q][q]) of the exact meat, checked per range against an a-posteriori bound, the
 *  others (and every other range) from their rows as raid_reg_meat_compute does (docs/regression.md,
 *  "Overlapping windows on the cpu"). Errors: RAID_EINVAL (a range with end < start or
 *  start < 0, k or max_lag out of range, NULL, a residual times a regressor not finite), RAID_ENOMEM and
 *  the device errors. */
RAID_API raid_status raid_reg_meat_ranges(raid_ctx *ctx, const double *X, const double *y, int k,
                                          const int64_t *start, const int64_t *end, size_t n, const double *beta,
                                          int max_lag, double *out);

/** The same with the scores taken about a centre: u_t = e_t (x_t - centre_r), centre k values per range
 *  (NULL: 0, i.e. raid_reg_meat_ranges). With an intercept column (centre 0 there) and the range's column
 *  means as the centre, the sums keep the scale of the centred regressors instead of their levels, and
 *  raid_ols_robust_at with the same centre gives the standard errors without the cancellation that limits
 *  raid_ols_robust (RAID_REG_MAX_ROBUST_LOSS; docs/regression.md). Errors as raid_reg_meat_ranges, and
 *  RAID_EINVAL for a centre that is not finite. */
RAID_API raid_status raid_reg_meat_ranges_at(raid_ctx *ctx, const double *X, const double *y, int k,
                                             const int64_t *start, const int64_t *end, size_t n,
                                             const double *beta, const double *centre, int max_lag, double *out);

/** Largest float64 cancellation bound that raid_ols_robust accepts (relative, on the variances). */
#define RAID_REG_MAX_ROBUST_LOSS 1e-8

typedef enum raid_se_kind {
    RAID_SE_OLS = 0,   /* sigma^2 (X'X)^-1, sigma^2 = SSR / (n - k) */
    RAID_SE_WHITE = 1, /* HC0: (X'X)^-1 S0 (X'X)^-1 (White 1980) */
    RAID_SE_NW = 2     /* Newey-West (1987), Bartlett weights 1 - l/(L+1), no small-sample factor:
                          statsmodels' cov_type='HAC' with its default use_correction=False */
} raid_se_kind;

/** Estimates and inference of one regression. */
typedef struct raid_ols {
    int k;
    int64_t n;
    double beta[RAID_REG_MAX_K];
    double se[RAID_REG_MAX_K];
    double tstat[RAID_REG_MAX_K];
    double pvalue[RAID_REG_MAX_K]; /* two-sided: Student t(n-k) for RAID_SE_OLS, normal for WHITE and NW
                                      (statsmodels' defaults) */
    double r2, r2_adj;             /* centred R^2 when the design has an intercept column, else uncentred */
    double ssr;                    /* sum of squared residuals, from the statistics */
    double sigma2;                 /* ssr / (n - k) */
    double cond;                   /* 1-norm condition number estimate (LAPACK dpocon) of the matrix
                                      factored, its columns scaled to unit diagonal: the centred
                                      cross-products of the non-constant columns when X has a constant
                                      column, else X'X; 1 for an intercept alone */
} raid_ols;

/** Coefficients and OLS standard errors from sufficient statistics, in float64. A constant column
 *  (cxx[j][j] == 0, mean[j] != 0) is the intercept: the slopes solve the centred system cxx b = cxy by
 *  Cholesky (LAPACKE_dpotrf/dpotrs, columns equilibrated by powers of two, one step of iterative
 *  refinement) and the intercept comes from the means; without one X'X b = X'y is solved.
 *  has_intercept only selects the centred R^2. Errors: RAID_ESINGULAR (not positive definite, two
 *  constant columns, or condition estimate above RAID_REG_MAX_COND; the message gives it), RAID_EINVAL
 *  (n <= k, k out of range, a non-finite statistic, NULL); message: raid_errmsg(). */
RAID_API raid_status raid_ols_from_stats(const raid_reg_stats *s, int has_intercept, raid_ols *out);

/** Replace the standard errors, t statistics and p-values of o by robust ones: kind RAID_SE_WHITE uses
 *  meat[0]; RAID_SE_NW uses S = meat[0] + sum_{l=1}^{L} (1 - l/(L+1)) (meat[l] + meat[l]') with L = max_lag
 *  (meat as raid_reg_meat_compute writes it for this problem); kind RAID_SE_OLS restores
 *  sigma^2 (X'X)^-1 (meat may be NULL). Errors: RAID_EINVAL, RAID_ESINGULAR (the design; or, for the
 *  robust kinds, a variance that is not positive, or float64's cancellation bound 2^-53 (1 + R)^2 above
 *  RAID_REG_MAX_ROBUST_LOSS, R = max over the non-constant columns of |mean| / standard deviation when X
 *  has a constant column: subtract a constant from such a column, docs/regression.md); message:
 *  raid_errmsg(). */
RAID_API raid_status raid_ols_robust(const raid_reg_stats *s, const double *meat, int max_lag, raid_se_kind kind,
                                     raid_ols *o);

/** The centre for raid_reg_meat_ranges_at and raid_ols_robust_at from a problem's statistics: c[p] = its
 *  column means, 0 on the constant column (the intercept: cxx[p][p] == 0, mean != 0); all 0 when X has
 *  no constant column. c holds s->k values. */
RAID_API void raid_reg_stats_centre(const raid_reg_stats *s, double *c);

/** R = max over the non-constant columns of |mean| / standard deviation (sd = sqrt(cxx[p][p] / n)) when X
 *  has a constant column, else 0: how far the levels stand above the spread, the factor that float64's
 *  cancellation in the robust sandwich grows with (raid_ols_robust, raid_ols_robust_at). */
RAID_API double raid_reg_level_ratio(const raid_reg_stats *s);

/** raid_ols_robust for a meat taken about a centre (raid_reg_meat_ranges_at; k values, NULL: 0). A nonzero
 *  centre needs a constant column in X (the intercept), with centre 0 there: the regression on x - centre
 *  is the same one with a shifted intercept, so the slopes' variances come from the centred basis and the
 *  intercept's is mapped back (in long double). Use the means (raid_reg_stats_centre): the cancellation
 *  bound 2^-53 (1 + R)^2 counts float64's rounding with R = max |mean - centre| / sd, but a device meat's
 *  own error (2e-11 of its scale) is amplified by the same (1 + R)^2 for a centre far from the means; and
 *  the means' rounding enters as 2^-53 R0, R0 = max |mean| / sd, refused above RAID_REG_MAX_ROBUST_LOSS.
 *  Errors as raid_ols_robust; RAID_EINVAL for a nonzero centre without a constant column, or on it (any
 *  kind). */
RAID_API raid_status raid_ols_robust_at(const raid_reg_stats *s, const double *meat, const double *centre,
                                        int max_lag, raid_se_kind kind, raid_ols *o);

#ifdef __cplusplus
}
#endif
#endif /* RAID_REGRESS_H */
