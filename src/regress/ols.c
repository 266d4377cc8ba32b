/*
 * Least squares from sufficient statistics, robust covariance matrices and the distribution functions
 * of their inference: float64 on the host (the sufficient statistics come from src/regress/stats.c).
 *
 * Solution (raid_ols_from_stats). The statistics carry the column means m, the centred cross-products
 * C = sum (x - m)(x - m)', c = sum (x - m)(y - m_y), C_yy, and the raw moments A = X'X, X'y, y'y.
 *   - A constant column (C_jj == 0 exactly, m_j != 0: the intercept; the has_intercept flag only selects
 *     the R^2) is taken out: the slopes b_S solve C_SS b_S = c_S, which keeps the accuracy that raw
 *     moments lose when a column's mean is large against its spread, and m_j b_j = m_y - m_S'b_S.
 *     Without one, A b = X'y is solved. Either way M denotes the matrix factored.
 *   - M is equilibrated by powers of two, Ms = D M D with D = diag(2^-e_i) and 2^e_i the power of two
 *     nearest sqrt(M_ii): exact in binary floating point, and the condition number that governs the
 *     accuracy of the Cholesky factorisation is the one of the scaled matrix (van der Sluis 1969; Higham,
 *     "Accuracy and Stability of Numerical Algorithms", 2nd ed. 2002, sections 7.3 and 10.1), so that
 *     the units of the columns (RV in squared daily returns, ~1e-4, next to a constant 1) do not count.
 *   - Ms = R'R (LAPACKE_dpotrf); its 1-norm condition number is estimated by LAPACKE_dpocon from the
 *     1-norm of Ms (LAPACKE_dlansy). A failed factorisation (a singular design), two constant columns or
 *     an estimate above RAID_REG_MAX_COND give RAID_ESINGULAR. raid_ols.cond is the estimate for Ms
 *     (1 for an intercept alone).
 *   - b = D Ms^-1 D rhs (LAPACKE_dpotrs), then one step of iterative refinement with the residual
 *     rhs - M b accumulated in long double.
 *   - SSR = C_yy - 2 b_S'c_S + b_S'C_SS b_S (with a constant column) or y'y - 2 b'X'y + b'A b (long double,
 *     clamped at 0); sigma^2 = SSR / (n - k).
 *   - (X'X)^-1: M^-1 = D Ms^-1 D (LAPACKE_dpotri); with a constant column of value c0 and w = C_SS^-1 m_S,
 *     [(X'X)^-1]_00 = (1/n + m_S'w) / c0^2, [(X'X)^-1]_0S = -w'/c0, [(X'X)^-1]_SS = C_SS^-1 (the
 *     partitioned inverse). OLS standard errors sqrt(sigma^2 [(X'X)^-1]_ii).
 *   - R^2 = 1 - SSR/TSS with TSS = C_yy when has_intercept, else TSS = y'y (uncentred); adjusted
 *     R^2 = 1 - (n - h)/(n - k) (1 - R^2), h = 1 with an intercept else 0 (statsmodels' rsquared_adj,
 *     k_constant = h).
 *   - t = b / se; two-sided p-values from Student's t with n - k degrees of freedom.
 *
 * Robust covariance (raid_reg_meat_compute, raid_ols_robust). With residuals e_t = y_t - x_t'beta and
 * u_t = e_t x_t:
 *   meat_l = sum_{t = l}^{n-1} u_t u_{t-l}'   (l = 0 .. L, inside one problem's rows),
 *   HC0 (White 1980, Econometrica 48(4)):  V = (X'X)^-1 meat_0 (X'X)^-1;
 *   Newey-West (1987, Econometrica 55(3)), Bartlett kernel:
 *       S = meat_0 + sum_{l=1}^{L} (1 - l/(L+1)) (meat_l + meat_l'),   V = (X'X)^-1 S (X'X)^-1,
 *   with no small-sample factor: this is statsmodels' OLS(y, X).fit(cov_type='HAC',
 *   cov_kwds={'maxlags': L}), whose use_correction defaults to False (statsmodels 0.14 and 0.15,
 *   RegressionResults.get_robustcov_results and sandwich_covariance.cov_hac_simple; the n/(n-k) factor is
 *   applied only with use_correction=True). HC0 has no factor either (statsmodels cov_type='HC0').
 *   The p-values of both are two-sided standard normal, statsmodels' default use_t=False for robust
 *   covariances. The meat sums accumulate in long double; the rows are independent across problems and
 *   lags, which OpenMP shares out.
 *
 * Distributions.
 *   - Student t: P(|T| >= |t|) = I_x(df/2, 1/2) with x = df/(df + t^2), the regularized incomplete beta
 *     function (Abramowitz and Stegun 26.7.1 and 26.5.2), evaluated by its continued fraction (A&S 26.5.8)
 *     with the modified Lentz method (Lentz 1976, Applied Optics 15(3); Thompson and Barnett 1986,
 *     J. Comput. Phys. 64), as in Numerical Recipes (Press, Teukolsky, Vetterling and Flannery, 3rd ed.
 *     2007, section 6.4, Beta::betai and betacf), using the symmetry I_x(a,b) = 1 - I_{1-x}(b,a) beyond
 *     x = (a+1)/(a+b+2). The prefactor x^a (1-x)^b / (a B(a,b)) is taken in logarithms with log1p for
 *     x and 1 - x, and ln B(a,b) for a large argument from Stirling's series with the differences of
 *     the large terms taken analytically (the algdiv and betaln of DiDonato and Morris 1992, ACM TOMS 18(3),
 *     algorithm 708), so that large degrees of freedom lose no accuracy to cancellation.
 *     For df >= 30 and 1 - x < 0.3 the continued fraction, near x = 1, loses about log10(df) digits;
 *     there I_x(df/2, 1/2) comes from the asymptotic expansion BGRAT of DiDonato and Morris (1992,
 *     section 6), with Q(1/2, z) = erfc(sqrt z). Checked against scipy.stats.t.sf to 7e-14 relative
 *     for df 1 .. 1e12 and p down to 1e-176 (tests/test_ols.c keeps closed forms and such values).
 *   - Normal: P(|Z| >= |z|) = erfc(|z| / sqrt 2) (C99 erfc, no cancellation in the tail), with the
 *     rounding error of |z| / sqrt 2 corrected to first order (else 2 (z^2/2) eps relative in the tail).
 */
#define _POSIX_C_SOURCE 200809L
#include "core/internal.h"
#include "regress/ols_internal.h"

#include <lapacke.h>
#include <assert.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

/* ------------------------------------------------------------------------------------------------ */
/* Distribution functions                                                                            */
/* ------------------------------------------------------------------------------------------------ */

/* ln Gamma(x) - [(x - 1/2) ln x - x + ln(2 pi)/2] for x >= 10: Stirling's series, sum of
 * B_2m / (2m (2m-1) x^(2m-1)), m = 1..7; the first omitted term is below 3e-17 at x = 10. */
static double lgamma_corr(double x)
{
    double z = 1.0 / (x * x);
    double s = 1.0 / 156.0;
    s = s * z - 691.0 / 360360.0;
    s = s * z + 1.0 / 1188.0;
    s = s * z - 1.0 / 1680.0;
    s = s * z + 1.0 / 1260.0;
    s = s * z - 1.0 / 360.0;
    s = s * z + 1.0 / 12.0;
    return s / x;
}

/* ln B(a, b) = ln Gamma(a) + ln Gamma(b) - ln Gamma(a + b), accurate when a or b is large. */
static double lbeta(double a, double b)
{
    if (a < b) {
        double t = a;
        a = b;
        b = t;
    }
    /* now a >= b */
    const double half_ln_2pi = 0.91893853320467274178;
    if (b >= 10.0) /* both large: Stirling for all three */
        return half_ln_2pi - 0.5 * log(b) - (a - 0.5) * log1p(b / a) - b * log1p(a / b) + lgamma_corr(a) +
               lgamma_corr(b) - lgamma_corr(a + b);
    if (a >= 10.0) /* ln Gamma(a) - ln Gamma(a + b) from Stirling, ln Gamma(b) directly */
        return raidLgamma(b) - (a - 0.5) * log1p(b / a) - b * log(a + b) + b + lgamma_corr(a) - lgamma_corr(a + b);
    return raidLgamma(a) + raidLgamma(b) - raidLgamma(a + b);
}

/* Continued fraction of I_x(a, b) (Numerical Recipes 3rd ed. 6.4, betacf), modified Lentz method. */
static double betacf(double a, double b, double x, double x1)
{
    const double fpmin = 1e-300, eps = 1e-16;
    const int maxit = 1000000;
    double qab = a + b, qap = a + 1.0, qam = a - 1.0;
    /* d = 1 - (a+b) x / (a+1), written with 1 - x: no cancellation for large a and x near 1 */
    double c = 1.0, d = (1.0 - b + qab * x1) / qap;
    if (fabs(d) < fpmin)
        d = fpmin;
    d = 1.0 / d;
    double h = d;
    for (int m = 1; m <= maxit; m++) {
        double m2 = 2.0 * m;
        double aa = m * (b - m) * x / ((qam + m2) * (a + m2));
        d = 1.0 + aa * d;
        if (fabs(d) < fpmin)
            d = fpmin;
        c = 1.0 + aa / c;
        if (fabs(c) < fpmin)
            c = fpmin;
        d = 1.0 / d;
        h *= d * c;
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
        d = 1.0 + aa * d;
        if (fabs(d) < fpmin)
            d = fpmin;
        c = 1.0 + aa / c;
        if (fabs(c) < fpmin)
            c = fpmin;
        d = 1.0 / d;
        double del = d * c;
        h *= del;
        if (fabs(del - 1.0) <= eps)
            return h;
    }
    return h; /* not reached for the arguments used here: convergence takes O(sqrt(max(a, b))) steps */
}

/* I_x(a, b) from x, 1 - x and their logarithms. */
static double betai_log(double a, double b, double x, double x1, double lnx, double lnx1)
{
    if (x <= 0.0)
        return 0.0;
    if (x1 <= 0.0)
        return 1.0;
    double bt = exp(a * lnx + b * lnx1 - lbeta(a, b));
    if (x < (a + 1.0) / (a + b + 2.0))
        return bt * betacf(a, b, x, x1) / a;
    return 1.0 - bt * betacf(b, a, x1, x) / b;
}

/* I_x(a, 1/2) for large a and x near 1 from ln x: the asymptotic expansion BGRAT of DiDonato and Morris
 * (1992, section 6 and algorithm 708) for b = 1/2, where the incomplete gamma ratio is Q(1/2, z) =
 * erfc(sqrt z). Every term carries the factor exp(-z) (it cancels in the product), so nothing overflows.
 * Returns 0 when the expansion does not converge (the caller falls back to the continued fraction). */
static int bgrat_half(double a, double lnx, double *p)
{
    const double b = 0.5, bm1 = -0.5;
    double nu = a + 0.5 * bm1, z = -nu * lnx;
    if (!(z > 0.0) || !isfinite(z))
        return 0;
    double u = exp(0.5 * log(z) - lbeta(a, b) - 0.5 * log(nu));
    double j = erfc(sqrt(z)) * sqrt(3.14159265358979323846 / z); /* exp(-z) Q(b, z) / r */
    double v = 0.25 / (nu * nu), t2 = 0.25 * lnx * lnx;
    double sum = j, t = exp(-z), cn = 1.0, n2 = 0.0, c[30], d[30];
    for (int n = 1; n <= 30; n++) {
        double bp2n = b + n2;
        j = (bp2n * (bp2n + 1.0) * j + (z + bp2n + 1.0) * t) * v;
        n2 += 2.0;
        t *= t2;
        cn /= n2 * (n2 + 1.0);
        c[n - 1] = cn;
        double s = 0.0, coef = b - n;
        for (int i = 1; i <= n - 1; i++) {
            s += coef * c[i - 1] * d[n - i - 1];
            coef += b;
        }
        d[n - 1] = bm1 * cn + s / n;
        double dj = d[n - 1] * j;
        sum += dj;
        if (!(sum > 0.0))
            return 0;
        if (fabs(dj) <= 1e-15 * sum) {
            *p = u * sum;
            return 1;
        }
    }
    return 0;
}

double raidBetai(double a, double b, double x, double x1)
{
    if (!(a > 0.0) || !(b > 0.0) || !(x >= 0.0) || !(x <= 1.0) || !(x1 >= 0.0) || !(x1 <= 1.0))
        return NAN;
    return betai_log(a, b, x, x1, x > 0.0 ? log(x) : -INFINITY, x1 > 0.0 ? log(x1) : -INFINITY);
}

double raidTPvalue2(double t, double df)
{
    if (isnan(t) || !(df > 0.0))
        return NAN;
    double t2 = t * t;
    if (t2 == 0.0)
        return 1.0;
    if (isinf(t2))
        return 0.0;
    if (isinf(df))
        return raidNormalPvalue2(t);
    /* x = df/(df + t^2), 1 - x = t^2/(df + t^2), ln x = -log1p(t^2/df) */
    double q = t2 / df;
    double x = 1.0 / (1.0 + q), x1 = q / (1.0 + q);
    if (isinf(q)) {
        x = 0.0;
        x1 = 1.0;
    }
    double lnx = -log1p(q), lnx1 = log(t2) - log(df + t2);
    if (isinf(t2 + df))
        lnx1 = 0.0;
    double p;
    /* Large df, x near 1: the continued fraction loses about log10(df) digits there, BGRAT none. */
    if (df >= 30.0 && x1 < 0.3 && bgrat_half(0.5 * df, lnx, &p))
        return p < 0.0 ? 0.0 : p > 1.0 ? 1.0 : p;
    p = betai_log(0.5 * df, 0.5, x, x1, lnx, lnx1);
    return p < 0.0 ? 0.0 : p > 1.0 ? 1.0 : p;
}

double raidTCdf(double t, double df)
{
    double p = raidTPvalue2(t, df);
    return t < 0.0 ? 0.5 * p : 1.0 - 0.5 * p;
}

double raidNormalPvalue2(double z)
{
    /* erfc(h + l) with h = fl(|z| / sqrt 2) and l the rounding error of that quotient (exact residual
     * through fma and sqrt 2 = SQRT2_HI + SQRT2_LO): erfc(h + l) = erfc(h) - l (2/sqrt pi) exp(-h^2) to
     * first order, which removes the relative error 2 h^2 eps of the rounded argument in the far tail. */
    const double sqrt2_hi = 1.4142135623730951, sqrt2_lo = -9.6672933134529135e-17;
    double a = fabs(z);
    if (isnan(a))
        return NAN;
    double h = a / sqrt2_hi;
    if (isinf(h))
        return 0.0;
    double l = (fma(-h, sqrt2_hi, a) - h * sqrt2_lo) / sqrt2_hi;
    return erfc(h) - l * 1.1283791670955126 * exp(-h * h);
}

/* ------------------------------------------------------------------------------------------------ */
/* Factorisation                                                                                     */
/* ------------------------------------------------------------------------------------------------ */

/* The system that is factored: with a constant column (index ic) the centred cross-products of the
 * other m = k - 1 columns, else X'X (m = k). */
typedef struct chol {
    int k, m;
    int ic;                                      /* the constant column, -1 if none */
    int idx[RAID_REG_MAX_K];                     /* column of X of each row of the factored matrix */
    double dsc[RAID_REG_MAX_K];                  /* powers of two: Ms = D M D */
    double fac[RAID_REG_MAX_K * RAID_REG_MAX_K]; /* Cholesky factor of Ms, column-major, upper */
    double cond;                                 /* 1-norm condition estimate of Ms */
} chol;

static int all_finite(const double *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isfinite(v[i]))
            return 0;
    return 1;
}

static raid_status check_stats(const raid_reg_stats *s)
{
    if (!s) {
        return raidFail(NULL, RAID_EINVAL, "regression statistics are NULL");
    }
    if (s->k < 1 || s->k > RAID_REG_MAX_K) {
        return raidFail(NULL, RAID_EINVAL, "k = %d regressors is out of range 1..%d", s->k, RAID_REG_MAX_K);
    }
    if (s->n <= s->k) {
        return raidFail(NULL, RAID_EINVAL, "n = %lld observations must exceed k = %d regressors", (long long)s->n, s->k);
    }
    int k = s->k;
    for (int i = 0; i < k; i++)
        if (!all_finite(s->xtx + i * k, (size_t)k) || !all_finite(s->cxx + i * k, (size_t)k)) {
            return raidFail(NULL, RAID_EINVAL, "X'X or the centred cross-products: row %d is not finite", i);
        }
    if (!all_finite(s->xty, (size_t)k) || !all_finite(s->cxy, (size_t)k) || !all_finite(s->mean, (size_t)k + 1) ||
        !isfinite(s->yty) || !isfinite(s->ysum) || !isfinite(s->cyy)) {
        return raidFail(NULL, RAID_EINVAL, "X'y, the means, y'y or sum y is not finite");
    }
    return RAID_OK;
}

/* Matrix element (i, j) and right-hand side i of the factored system. */
static double sys_a(const raid_reg_stats *s, const chol *c, int i, int j)
{
    int p = c->idx[i], q = c->idx[j];
    return c->ic >= 0 ? s->cxx[p * s->k + q] : s->xtx[p * s->k + q];
}
static double sys_b(const raid_reg_stats *s, const chol *c, int i)
{
    return c->ic >= 0 ? s->cxy[c->idx[i]] : s->xty[c->idx[i]];
}

/* Find the constant column, equilibrate, factor and estimate the condition number. */
static raid_status factor(const raid_reg_stats *s, chol *c)
{
    int k = s->k;
    c->k = k;
    c->ic = -1;
    c->cond = INFINITY;
    for (int j = 0; j < k; j++)
        if (s->cxx[j * k + j] == 0.0 && s->mean[j] != 0.0) {
            if (c->ic >= 0) {
                return raidFail(NULL, RAID_ESINGULAR,
                         "X'X is singular: columns %d and %d of X are both constant; condition number estimate inf",
                         c->ic, j);
            }
            c->ic = j;
        }
    c->m = 0;
    for (int j = 0; j < k; j++)
        if (j != c->ic)
            c->idx[c->m++] = j;
    int m = c->m;
    for (int i = 0; i < m; i++) {
        double d = sys_a(s, c, i, i);
        if (!(d > 0.0)) {
            return raidFail(NULL, RAID_ESINGULAR,
                     "X'X is singular: column %d of X is %s; condition number estimate inf", c->idx[i],
                     c->ic >= 0 ? "constant (a second intercept) or zero" : "zero");
        }
        int e;
        frexp(sqrt(d), &e);
        c->dsc[i] = ldexp(1.0, -e);
    }
    if (m == 0) { /* the intercept alone */
        c->cond = 1.0;
        return RAID_OK;
    }
    /* The upper triangle of the row-major matrix is read: column-major upper storage of it. */
    for (int j = 0; j < m; j++)
        for (int i = 0; i < m; i++)
            c->fac[i + j * m] = sys_a(s, c, i < j ? i : j, i < j ? j : i) * c->dsc[i] * c->dsc[j];
    double work[3 * RAID_REG_MAX_K];
    lapack_int iwork[RAID_REG_MAX_K];
    double anorm = LAPACKE_dlansy_work(LAPACK_COL_MAJOR, '1', 'U', m, c->fac, m, work);
    lapack_int info = LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'U', m, c->fac, m);
    if (info > 0) {
        return raidFail(NULL, RAID_ESINGULAR,
                 "X'X is singular or not positive definite (Cholesky factorisation failed at column %d of X); "
                 "condition number estimate inf",
                 c->idx[info - 1]);
    }
    if (info < 0) {
        return raidFail(NULL, RAID_EINVAL, "LAPACKE_dpotrf: argument %d is invalid", (int)-info);
    }
    double rcond = 0.0;
    info = LAPACKE_dpocon_work(LAPACK_COL_MAJOR, 'U', m, c->fac, m, anorm, &rcond, work, iwork);
    if (info != 0) {
        return raidFail(NULL, RAID_EINVAL, "LAPACKE_dpocon failed (info %d)", (int)info);
    }
    c->cond = rcond > 0.0 ? 1.0 / rcond : INFINITY;
    if (!(c->cond <= RAID_REG_MAX_COND)) {
        return raidFail(NULL, RAID_ESINGULAR,
                 "X'X is too ill-conditioned to solve: condition number estimate %.3e (1-norm, %s with its columns "
                 "scaled to unit diagonal) exceeds RAID_REG_MAX_COND = %.0e",
                 c->cond, c->ic >= 0 ? "centred cross-products" : "X'X", RAID_REG_MAX_COND);
    }
    return RAID_OK;
}

/* x = M^-1 x in place (M = D^-1 Ms D^-1 through the factor), m entries. */
static void chol_solve(const chol *c, double *x)
{
    int m = c->m;
    if (m == 0)
        return;
    for (int i = 0; i < m; i++)
        x[i] *= c->dsc[i];
    const lapack_int info = LAPACKE_dpotrs_work(LAPACK_COL_MAJOR, 'U', m, 1, c->fac, m, x, m);
    assert(info == 0); /* the factor exists (factor() succeeded) and the arguments are ours */
    (void)info;
    for (int i = 0; i < m; i++)
        x[i] *= c->dsc[i];
}

/* beta from the factored system: slopes (or all coefficients) by Cholesky with one step of iterative
 * refinement (residual in long double), the intercept from the means. */
static void chol_beta(const raid_reg_stats *s, const chol *c, double *beta)
{
    int m = c->m;
    double b[RAID_REG_MAX_K], r[RAID_REG_MAX_K];
    for (int i = 0; i < m; i++)
        b[i] = sys_b(s, c, i);
    chol_solve(c, b);
    for (int i = 0; i < m; i++) {
        long double acc = sys_b(s, c, i);
        for (int j = 0; j < m; j++)
            acc -= (long double)sys_a(s, c, i, j) * b[j];
        r[i] = (double)acc;
    }
    chol_solve(c, r);
    for (int i = 0; i < m; i++)
        beta[c->idx[i]] = b[i] + r[i];
    if (c->ic >= 0) { /* c0 b0 = mean(y) - sum_j mean_j b_j */
        long double a = s->mean[s->k];
        for (int i = 0; i < m; i++)
            a -= (long double)s->mean[c->idx[i]] * beta[c->idx[i]];
        beta[c->ic] = (double)(a / s->mean[c->ic]);
    }
}

/* (X'X)^-1, full, row-major (symmetric). With a constant column of value c0 and M^-1 the inverse of the
 * centred cross-products of the others (means ms): [c0 c0][ic][ic] = 1/n + ms' M^-1 ms,
 * [ic][S] = -(M^-1 ms)' / c0, [S][S] = M^-1. */
static void chol_inverse(const raid_reg_stats *s, const chol *c, double *inv)
{
    int k = c->k, m = c->m;
    double a[RAID_REG_MAX_K * RAID_REG_MAX_K];
    if (m > 0) {
        memcpy(a, c->fac, sizeof(double) * (size_t)(m * m));
        const lapack_int info = LAPACKE_dpotri_work(LAPACK_COL_MAJOR, 'U', m, a, m);
        assert(info == 0); /* a positive definite factor has an inverse */
        (void)info;
    }
    for (int i = 0; i < m; i++)
        for (int j = 0; j < m; j++) {
            int r = i < j ? i : j, q = i < j ? j : i;
            inv[c->idx[i] * k + c->idx[j]] = a[r + q * m] * c->dsc[i] * c->dsc[j];
        }
    if (c->ic < 0)
        return;
    int ic = c->ic;
    double c0 = s->mean[ic];
    long double quad = 0.0L;
    for (int i = 0; i < m; i++) {
        long double w = 0.0L; /* (M^-1 ms)_i */
        for (int j = 0; j < m; j++)
            w += (long double)inv[c->idx[i] * k + c->idx[j]] * s->mean[c->idx[j]];
        inv[ic * k + c->idx[i]] = inv[c->idx[i] * k + ic] = (double)(-w / c0);
        quad += w * s->mean[c->idx[i]];
    }
    inv[ic * k + ic] = (double)((1.0L / (long double)s->n + quad) / ((long double)c0 * c0));
}

static void ols_clear(raid_ols *o, int k, int64_t n)
{
    memset(o, 0, sizeof *o);
    o->k = k;
    o->n = n;
    for (int i = 0; i < RAID_REG_MAX_K; i++)
        o->beta[i] = o->se[i] = o->tstat[i] = o->pvalue[i] = NAN;
    o->r2 = o->r2_adj = o->ssr = o->sigma2 = o->cond = NAN;
}

raid_status raid_ols_from_stats(const raid_reg_stats *s, int has_intercept, raid_ols *out)
{
    if (!out) {
        return raidFail(NULL, RAID_EINVAL, "output is NULL");
    }
    raid_status st = check_stats(s);
    if (st != RAID_OK) {
        ols_clear(out, s ? s->k : 0, s ? s->n : 0);
        return st;
    }
    int k = s->k;
    int64_t n = s->n;
    ols_clear(out, k, n);
    chol c;
    st = factor(s, &c);
    out->cond = c.cond;
    if (st != RAID_OK)
        return st;
    double beta[RAID_REG_MAX_K];
    chol_beta(s, &c, beta);

    /* SSR = y'y - 2 b'X'y + b'X'X b, from the centred moments (slopes only) with a constant column */
    long double ssr;
    if (c.ic >= 0) {
        ssr = s->cyy;
        for (int i = 0; i < c.m; i++) {
            long double ai = 0.0L;
            for (int j = 0; j < c.m; j++)
                ai += (long double)sys_a(s, &c, i, j) * beta[c.idx[j]];
            ssr += (long double)beta[c.idx[i]] * (ai - 2.0L * sys_b(s, &c, i));
        }
    } else {
        ssr = s->yty;
        for (int i = 0; i < k; i++) {
            long double ai = 0.0L;
            for (int j = 0; j < k; j++)
                ai += (long double)s->xtx[i * k + j] * beta[j];
            ssr += (long double)beta[i] * (ai - 2.0L * s->xty[i]);
        }
    }
    if (ssr < 0.0L)
        ssr = 0.0L;
    double df = (double)(n - k);
    out->ssr = (double)ssr;
    out->sigma2 = (double)(ssr / (long double)df);

    double inv[RAID_REG_MAX_K * RAID_REG_MAX_K];
    chol_inverse(s, &c, inv);
    for (int i = 0; i < k; i++) {
        out->beta[i] = beta[i];
        out->se[i] = sqrt(out->sigma2 * inv[i * k + i]);
        out->tstat[i] = beta[i] / out->se[i];
        out->pvalue[i] = raidTPvalue2(out->tstat[i], df);
    }
    long double tss = has_intercept ? (long double)s->cyy : (long double)s->yty;
    out->r2 = (double)(1.0L - ssr / tss);
    out->r2_adj = 1.0 - (double)(n - (has_intercept ? 1 : 0)) / df * (1.0 - out->r2);
    return RAID_OK;
}

/* The constant column (the intercept: cxx[p][p] == 0, mean != 0), the first as factor() takes it; -1 if none. */
static int const_column(const raid_reg_stats *s)
{
    for (int p = 0; p < s->k; p++)
        if (s->cxx[p * s->k + p] == 0 && s->mean[p] != 0)
            return p;
    return -1;
}

void raid_reg_stats_centre(const raid_reg_stats *s, double *c)
{
    const int ic = const_column(s);
    for (int p = 0; p < s->k; p++)
        c[p] = ic < 0 || p == ic ? 0.0 : s->mean[p];
}

double raid_reg_level_ratio(const raid_reg_stats *s)
{
    const int ic = const_column(s), k = s->k;
    double R = 0;
    for (int p = 0; p < k && ic >= 0; p++)
        if (p != ic && s->cxx[p * k + p] > 0)
            R = fmax(R, fabs(s->mean[p]) / sqrt(s->cxx[p * k + p] / (double)s->n));
    return R;
}

raid_status raid_ols_robust(const raid_reg_stats *s, const double *meat, int max_lag, raid_se_kind kind,
                            raid_ols *o)
{
    return raid_ols_robust_at(s, meat, NULL, max_lag, kind, o);
}

raid_status raid_ols_robust_at(const raid_reg_stats *s0, const double *meat, const double *centre, int max_lag,
                               raid_se_kind kind, raid_ols *o)
{
    if (!o)
        return raidFail(NULL, RAID_EINVAL, "the estimates are NULL");
    raid_status st = check_stats(s0);
    if (st != RAID_OK)
        return st;
    if (o->k != s0->k || o->n != s0->n)
        return raidFail(NULL, RAID_EINVAL, "the estimates (k %d, n %lld) are not those of the statistics (k %d, n %lld)",
                         o->k, (long long)o->n, s0->k, (long long)s0->n);
    if (kind != RAID_SE_OLS && kind != RAID_SE_WHITE && kind != RAID_SE_NW)
        return raidFail(NULL, RAID_EINVAL, "unknown standard error kind %d", (int)kind);
    if (kind != RAID_SE_OLS && !meat)
        return raidFail(NULL, RAID_EINVAL, "robust standard errors need the meat (NULL)");
    if (kind == RAID_SE_NW && max_lag < 0)
        return raidFail(NULL, RAID_EINVAL, "Newey-West lag %d is negative", max_lag);
    int k = s0->k;
    chol c;
    st = factor(s0, &c);
    if (st != RAID_OK)
        return st;
    /* The basis of the meat: x - centre. With a constant column (value c0, centre 0 there) that is the same
     * regression with the intercept b~_ic = b_ic + centre'b / c0: its (X~'X~)^-1 comes from the same
     * factor and the shifted means, the slopes' variances are the same, and the intercept's variance is
     * mapped back below. Without a constant column the centre must be 0. */
    raid_reg_stats sh = *s0;
    const raid_reg_stats *s = s0;
    int shifted = 0;
    for (int p = 0; p < k && centre; p++)
        if (centre[p] != 0) {
            if (!isfinite(centre[p]) || c.ic < 0 || p == c.ic)
                return raidFail(NULL, RAID_EINVAL,
                                 "centre[%d] = %g: a centre must be finite, and nonzero only on a non-constant "
                                 "column of a design with a constant column", p, centre[p]);
            if (kind != RAID_SE_OLS) { /* the OLS errors need no meat, and no shift */
                sh.mean[p] -= centre[p];
                shifted = 1;
            }
        }
    /* About the means, the means' own rounding (half an ulp of the level) still enters, to first order:
     * 2^-53 R0 relative, R0 the level ratio before the shift (regressors at 1e12 times their spread: standard errors 2e-6 to 4e-6
     * off, where float64 cannot hold the intercept either). Beyond RAID_REG_MAX_ROBUST_LOSS: refused. */
    if (shifted && 0x1p-53 * raid_reg_level_ratio(s0) > RAID_REG_MAX_ROBUST_LOSS)
        return raidFail(NULL, RAID_ESINGULAR,
                         "the regressors' means stand %.3g standard deviations from 0: their own rounding alone "
                         "exceeds the robust variances' tolerance %g (subtract a constant from such a column)",
                         raid_reg_level_ratio(s0), RAID_REG_MAX_ROBUST_LOSS);
    if (shifted)
        s = &sh;
    double inv[RAID_REG_MAX_K * RAID_REG_MAX_K];
    chol_inverse(s, &c, inv);
    double var[RAID_REG_MAX_K];
    if (kind == RAID_SE_OLS) {
        for (int i = 0; i < k; i++)
            var[i] = o->sigma2 * inv[i * k + i];
    } else {
        /* S = meat_0 + sum_l w_l (meat_l + meat_l'), w_l = 1 - l/(L+1) */
        size_t kk = (size_t)(k * k);
        double S[RAID_REG_MAX_K * RAID_REG_MAX_K];
        int L = kind == RAID_SE_NW ? max_lag : 0;
        for (int i = 0; i < k; i++)
            for (int j = 0; j < k; j++) {
                long double acc = meat[i * k + j];
                for (int l = 1; l <= L; l++) {
                    const double *ml = meat + (size_t)l * kk;
                    long double w = 1.0L - (long double)l / (long double)(L + 1);
                    acc += w * ((long double)ml[i * k + j] + ml[j * k + i]);
                }
                S[i * k + j] = (double)acc;
            }
        if (!all_finite(S, kk))
            return raidFail(NULL, RAID_EINVAL, "the meat is not finite");
        /* V_ii = sum_ab inv[i][a] S[a][b] inv[b][i] */
        for (int i = 0; i < k; i++) {
            long double v = 0.0L;
            for (int a = 0; a < k; a++) {
                long double sa = 0.0L;
                for (int b = 0; b < k; b++)
                    sa += (long double)S[a * k + b] * inv[b * k + i];
                v += (long double)inv[i * k + a] * sa;
            }
            var[i] = (double)v;
        }
        if (shifted) { /* b_ic = b~_ic - sum_p w_p b~_p, w = centre / c0: var = t' V t = g' S g, g = inv t */
            const int ic = c.ic;
            long double t[RAID_REG_MAX_K], g[RAID_REG_MAX_K], v = 0.0L;
            for (int p = 0; p < k; p++)
                t[p] = p == ic ? 1.0L : -(long double)centre[p] / s0->mean[ic];
            for (int a = 0; a < k; a++) {
                g[a] = 0.0L;
                for (int p = 0; p < k; p++)
                    g[a] += (long double)inv[a * k + p] * t[p];
            }
            for (int a = 0; a < k; a++)
                for (int b = 0; b < k; b++)
                    v += g[a] * S[a * k + b] * g[b];
            var[ic] = (double)v;
        }
        /* The meat's entries carry the levels of x - centre; the sandwich cancels them, amplifying float64's
         * rounding of the meat by about (1 + R)^2, R = max over the non-constant columns of
         * |mean - centre| / standard deviation (with a constant column). Beyond RAID_REG_MAX_ROBUST_LOSS
         * (1e-8, the tolerance the tests hold standard errors to) the robust variances would be rounding,
         * not estimates (rv + 1000 with the meat at 0: R 1e7, standard errors 4% off on both
         * backends and NaN in short windows; statsmodels 74% off): refused, as is a variance that is not
         * positive. A centre at the problem's means (raid_reg_meat_ranges_at) makes R about 0. */
        const double R = raid_reg_level_ratio(s);
        if (0x1p-53 * (1 + R) * (1 + R) > RAID_REG_MAX_ROBUST_LOSS)
            return raidFail(NULL, RAID_ESINGULAR,
                             "the regressors stand %.3g standard deviations from the meat's centre: float64's "
                             "cancellation in the sandwich (2^-53 (1 + R)^2) exceeds the tolerance %g; take the meat "
                             "about the means (raid_reg_meat_ranges_at, raid_ols_robust_at)", R,
                             RAID_REG_MAX_ROBUST_LOSS);
        for (int i = 0; i < k; i++)
            if (!(var[i] > 0) || !isfinite(var[i]))
                return raidFail(NULL, RAID_ESINGULAR, "the robust variance of coefficient %d is %g, not positive",
                                 i, var[i]);
    }
    double df = (double)(s->n - k);
    for (int i = 0; i < k; i++) {
        o->se[i] = sqrt(var[i]);
        o->tstat[i] = o->beta[i] / o->se[i];
        o->pvalue[i] = kind == RAID_SE_OLS ? raidTPvalue2(o->tstat[i], df) : raidNormalPvalue2(o->tstat[i]);
    }
    o->cond = c.cond;
    return RAID_OK;
}

/* ------------------------------------------------------------------------------------------------ */
/* Robust meat                                                                                       */
/* ------------------------------------------------------------------------------------------------ */

raid_status raid_reg_meat_compute(raid_ctx *ctx, const double *X, const double *y, int k, const int64_t *offsets,
                                  size_t nreg, const double *beta, int max_lag, double *out)
{
    if (k < 1 || k > RAID_REG_MAX_K)
        return raidFail(ctx, RAID_EINVAL, "raid_reg_meat_compute: k = %d is out of range 1..%d", k,
                         RAID_REG_MAX_K);
    if (max_lag < 0)
        return raidFail(ctx, RAID_EINVAL, "raid_reg_meat_compute: max_lag = %d is negative", max_lag);
    if (nreg == 0)
        return RAID_OK;
    if (!X || !y || !offsets || !beta || !out)
        return raidFail(ctx, RAID_EINVAL, "raid_reg_meat_compute: NULL argument");
    if (offsets[0] < 0)
        return raidFail(ctx, RAID_EINVAL, "raid_reg_meat_compute: offsets[0] = %lld is negative",
                         (long long)offsets[0]);
    for (size_t g = 0; g < nreg; g++)
        if (offsets[g + 1] < offsets[g])
            return raidFail(ctx, RAID_EINVAL, "raid_reg_meat_compute: offsets decrease at problem %zu", g);
    if (!all_finite(beta, nreg * (size_t)k))
        return raidFail(ctx, RAID_EINVAL, "raid_reg_meat_compute: a coefficient is not finite");
    return RAID_BACKEND(raidRegBackends, ctx)->meat(ctx, X, y, k, offsets, nreg, beta, max_lag, out);
}

raid_status raid_reg_meat_ranges(raid_ctx *ctx, const double *X, const double *y, int k, const int64_t *start,
                                 const int64_t *end, size_t n, const double *beta, int max_lag, double *out)
{
    return raid_reg_meat_ranges_at(ctx, X, y, k, start, end, n, beta, NULL, max_lag, out);
}

raid_status raid_reg_meat_ranges_at(raid_ctx *ctx, const double *X, const double *y, int k, const int64_t *start,
                                    const int64_t *end, size_t n, const double *beta, const double *centre,
                                    int max_lag, double *out)
{
    return raidRegMeatRangesHow(ctx, X, y, k, start, end, n, beta, centre, max_lag, out, 1);
}

raid_status raidRegMeatRangesHow(raid_ctx *ctx, const double *X, const double *y, int k, const int64_t *start,
                                     const int64_t *end, size_t n, const double *beta, const double *centre,
                                     int max_lag, double *out, int blocks)
{
    if (k < 1 || k > RAID_REG_MAX_K)
        return raidFail(ctx, RAID_EINVAL, "raid_reg_meat_ranges: k = %d is out of range 1..%d", k, RAID_REG_MAX_K);
    if (max_lag < 0)
        return raidFail(ctx, RAID_EINVAL, "raid_reg_meat_ranges: max_lag = %d is negative", max_lag);
    if (n == 0)
        return RAID_OK;
    if (!X || !y || !start || !end || !beta || !out)
        return raidFail(ctx, RAID_EINVAL, "raid_reg_meat_ranges: NULL argument");
    for (size_t r = 0; r < n; r++)
        if (start[r] < 0 || end[r] < start[r])
            return raidFail(ctx, RAID_EINVAL, "raid_reg_meat_ranges: range %zu is [%lld, %lld)", r,
                             (long long)start[r], (long long)end[r]);
    if (!all_finite(beta, n * (size_t)k))
        return raidFail(ctx, RAID_EINVAL, "raid_reg_meat_ranges: a coefficient is not finite");
    if (centre && !all_finite(centre, n * (size_t)k))
        return raidFail(ctx, RAID_EINVAL, "raid_reg_meat_ranges_at: a centre is not finite");
    return RAID_BACKEND(raidRegBackends, ctx)->meat_ranges(ctx, X, y, k, start, end, n, beta, centre, max_lag, out,
                                                            blocks);
}

const RaidRegBackend raidRegBackends[2] = {
    [RAID_ON_CPU] = {raidRegStatsCpu, raidRegMeatCpu, raidRegMeatRangesCpu},
    [RAID_ON_DEVICE] = {raidRegStatsDevice, raidRegMeatDevice, raidRegMeatRangesDevice},
};
