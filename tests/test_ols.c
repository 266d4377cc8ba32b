/* Tests of the host regression solver and its inference (src/regress/ols.c): raid_ols_from_stats,
 * raid_reg_meat_compute, raid_ols_robust and the distribution functions. The sufficient statistics are
 * built here in long double from X and y (not by raid_reg_stats_compute); the references are independent:
 * QR of X itself (LAPACKE_dgels), triple loops and the sandwich formulas written out. */
#define _POSIX_C_SOURCE 200809L
#include "support.h"
#include "raid.h"
#include "regress/ols_internal.h"

#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PI 3.14159265358979323846

/* ---------------------------------------------------------------------------------------------- */
/* helpers                                                                                          */

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;
static uint64_t splitmix(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
static double unif(void) { return ((double)(splitmix() >> 11) + 0.5) * 0x1p-53; }
static double gauss(void) { return sqrt(-2.0 * log(unif())) * cos(2.0 * PI * unif()); }

static double rel(double a, double b) { return a == b ? 0.0 : fabs(a - b) / fabs(b); }

#define assert_rel(a, b, tol)                                                                             \
    do {                                                                                                  \
        double a_ = (a), b_ = (b);                                                                        \
        if (!(rel(a_, b_) <= (tol)))                                                                      \
            fail_msg("%s = %.17g vs %s = %.17g: relative difference %.3g > %.3g (line %d)", #a, a_, #b, b_, \
                     rel(a_, b_), (double)(tol), __LINE__);                                               \
    } while (0)

/* Sufficient statistics of rows 0..n-1 of X (row-major, k columns) and y, in long double: the means, the
 * centred cross-products and the raw moments, as raid_reg_stats_compute fills them. */
static void fill_stats(const double *X, const double *y, int64_t n, int k, raid_reg_stats *s)
{
    memset(s, 0, sizeof *s);
    s->k = k;
    s->n = n;
    long double m[RAID_REG_MAX_K + 1];
    for (int p = 0; p <= k; p++) {
        long double acc = 0.0L;
        for (int64_t t = 0; t < n; t++)
            acc += p < k ? X[t * k + p] : y[t];
        m[p] = n > 0 ? acc / n : 0.0L;
        s->mean[p] = (double)m[p];
    }
    for (int p = 0; p <= k; p++)
        for (int q = 0; q <= k; q++) {
            long double c = 0.0L, r = 0.0L;
            for (int64_t t = 0; t < n; t++) {
                long double a = p < k ? X[t * k + p] : y[t], b = q < k ? X[t * k + q] : y[t];
                c += (a - m[p]) * (b - m[q]);
                r += a * b;
            }
            if (p < k && q < k) {
                s->cxx[p * k + q] = (double)c;
                s->xtx[p * k + q] = (double)r;
            } else if (p < k && q == k) {
                s->cxy[p] = (double)c;
                s->xty[p] = (double)r;
            } else if (p == k && q == k) {
                s->cyy = (double)c;
                s->yty = (double)r;
            }
        }
    s->ysum = (double)(m[k] * n);
}

/* Reference by QR of X (LAPACKE_dgels): beta, SSR and (X'X)^-1 = R^-1 R^-T (row-major k x k). */
static void ref_qr(const double *X, const double *y, int n, int k, double *beta, double *ssr, double *inv)
{
    double *A = malloc(sizeof(double) * (size_t)n * (size_t)k), *b = malloc(sizeof(double) * (size_t)n);
    assert_non_null(A);
    assert_non_null(b);
    for (int t = 0; t < n; t++) {
        for (int j = 0; j < k; j++)
            A[t + (size_t)j * n] = X[(size_t)t * k + j];
        b[t] = y[t];
    }
    assert_int_equal(LAPACKE_dgels(LAPACK_COL_MAJOR, 'N', n, k, 1, A, n, b, n), 0);
    long double ss = 0.0L;
    for (int t = k; t < n; t++)
        ss += (long double)b[t] * b[t];
    *ssr = (double)ss;
    for (int j = 0; j < k; j++)
        beta[j] = b[j];
    double R[RAID_REG_MAX_K * RAID_REG_MAX_K] = {0}; /* column-major upper */
    for (int j = 0; j < k; j++)
        for (int i = 0; i <= j; i++)
            R[i + j * k] = A[i + (size_t)j * n];
    assert_int_equal(LAPACKE_dtrtri(LAPACK_COL_MAJOR, 'U', 'N', k, R, k), 0);
    for (int i = 0; i < k; i++)
        for (int j = 0; j < k; j++) {
            long double acc = 0.0L;
            for (int m = (i > j ? i : j); m < k; m++)
                acc += (long double)R[i + m * k] * R[j + m * k];
            inv[i * k + j] = (double)acc;
        }
    free(A);
    free(b);
}

/* A random design: intercept column first, then columns of various scales and means. */
static void random_problem(int n, int k, double *X, double *y, double noise)
{
    double scale[RAID_REG_MAX_K], mean[RAID_REG_MAX_K], b[RAID_REG_MAX_K];
    for (int j = 0; j < k; j++) {
        scale[j] = j == 0 ? 1.0 : pow(10.0, 6.0 * unif() - 3.0);
        mean[j] = j == 0 ? 1.0 : 2.0 * scale[j] * gauss();
        b[j] = (unif() < 0.5 ? -1.0 : 1.0) * (0.5 + 1.5 * unif()) / scale[j];
    }
    for (int t = 0; t < n; t++) {
        double yt = noise * gauss();
        for (int j = 0; j < k; j++) {
            X[(size_t)t * k + j] = j == 0 ? 1.0 : mean[j] + scale[j] * gauss();
            yt += b[j] * X[(size_t)t * k + j];
        }
        y[t] = yt;
    }
}

/* ---------------------------------------------------------------------------------------------- */
/* (1) small problems with exact answers                                                            */

static void test_exact_linear(void **state)
{
    (void)state;
    /* y = 2 + 3 x exactly */
    double X[20], y[10];
    for (int t = 0; t < 10; t++) {
        X[2 * t] = 1.0;
        X[2 * t + 1] = t + 1.0;
        y[t] = 2.0 + 3.0 * (t + 1.0);
    }
    raid_reg_stats s;
    fill_stats(X, y, 10, 2, &s);
    raid_ols o;
    assert_int_equal(raid_ols_from_stats(&s, 1, &o), RAID_OK);
    assert_int_equal(o.k, 2);
    assert_int_equal(o.n, 10);
    assert_rel(o.beta[0], 2.0, 1e-14);
    assert_rel(o.beta[1], 3.0, 1e-14);
    assert_true(o.ssr >= 0.0 && o.ssr <= 1e-20 * s.yty);
    assert_rel(o.r2, 1.0, 1e-14);
    assert_true(o.cond >= 1.0 && o.cond < 1e4);

    /* three regressors, y = 1 - 2 x1 + 0.5 x2 exactly (binary fractions) */
    double X3[3 * 40], y3[40];
    for (int t = 0; t < 40; t++) {
        double x1 = (t % 7) * 0.25, x2 = (t % 5) - 2.0 + 0.125 * t;
        X3[3 * t] = 1.0;
        X3[3 * t + 1] = x1;
        X3[3 * t + 2] = x2;
        y3[t] = 1.0 - 2.0 * x1 + 0.5 * x2;
    }
    fill_stats(X3, y3, 40, 3, &s);
    assert_int_equal(raid_ols_from_stats(&s, 1, &o), RAID_OK);
    assert_true(fabs(o.beta[0] - 1.0) < 1e-13);
    assert_true(fabs(o.beta[1] + 2.0) < 1e-13);
    assert_true(fabs(o.beta[2] - 0.5) < 1e-13);
    assert_true(o.ssr <= 1e-20 * s.yty);
}

static void test_exact_textbook(void **state)
{
    (void)state;
    /* x = 1..5, y = 2,4,5,4,5: b0 = 2.2, b1 = 0.6, SSR = 2.4, sigma^2 = 0.8, (X'X)^-1 = [[1.1,-.3],[-.3,.1]] */
    const double X[] = {1, 1, 1, 2, 1, 3, 1, 4, 1, 5}, y[] = {2, 4, 5, 4, 5};
    raid_reg_stats s;
    fill_stats(X, y, 5, 2, &s);
    raid_ols o;
    assert_int_equal(raid_ols_from_stats(&s, 1, &o), RAID_OK);
    assert_rel(o.beta[0], 2.2, 1e-14);
    assert_rel(o.beta[1], 0.6, 1e-14);
    assert_rel(o.ssr, 2.4, 1e-13);
    assert_rel(o.sigma2, 0.8, 1e-13);
    assert_rel(o.se[0], sqrt(0.88), 1e-13);
    assert_rel(o.se[1], sqrt(0.08), 1e-13);
    assert_rel(o.tstat[1], 0.6 / sqrt(0.08), 1e-13);
    assert_rel(o.r2, 0.6, 1e-13);
    assert_rel(o.r2_adj, 1.0 - 4.0 / 3.0 * 0.4, 1e-13);
    /* df = 3: P(|T| > t) = 1 - (2/pi) [atan(t/sqrt3) + sqrt3 t / (3 + t^2)] */
    double t = o.tstat[1];
    double p3 = 1.0 - 2.0 / PI * (atan(t / sqrt(3.0)) + sqrt(3.0) * t / (3.0 + t * t));
    assert_rel(o.pvalue[1], p3, 1e-12);

    /* No intercept (uncentred R^2): y = 1, 2, 3 on x = 1: beta 2, SSR 2, sigma^2 1, se sqrt(1/3) */
    const double X1[] = {1, 1, 1}, y1[] = {1, 2, 3};
    fill_stats(X1, y1, 3, 1, &s);
    assert_int_equal(raid_ols_from_stats(&s, 0, &o), RAID_OK);
    assert_rel(o.beta[0], 2.0, 1e-15);
    assert_rel(o.ssr, 2.0, 1e-15);
    assert_rel(o.se[0], sqrt(1.0 / 3.0), 1e-15);
    assert_rel(o.r2, 6.0 / 7.0, 1e-15);
    assert_rel(o.r2_adj, 11.0 / 14.0, 1e-15);
    /* df = 2: P(|T| > t) = 1 - t / sqrt(t^2 + 2) */
    t = 2.0 * sqrt(3.0);
    assert_rel(o.pvalue[0], 1.0 - t / sqrt(t * t + 2.0), 1e-13);
    /* the same with an intercept flag: centred R^2 = 1 - SSR / TSS = 0 */
    assert_int_equal(raid_ols_from_stats(&s, 1, &o), RAID_OK);
    assert_true(fabs(o.r2) < 1e-15);
}

/* ---------------------------------------------------------------------------------------------- */
/* (2) random problems against QR of X                                                              */

static void test_random_vs_qr(void **state)
{
    (void)state;
    rng_state = 12345;
    double worst_b = 0, worst_se = 0, worst_ssr = 0, worst_cond = 0;
    int nprob = 40;
    for (int p = 0; p < nprob; p++) {
        int n = 50 + (int)(unif() * 4950.0), k = 1 + (int)(unif() * 8.0);
        if (p < 8)
            k = p + 1; /* every k at least once */
        double *X = malloc(sizeof(double) * (size_t)n * (size_t)k), *y = malloc(sizeof(double) * (size_t)n);
        assert_non_null(X);
        assert_non_null(y);
        random_problem(n, k, X, y, 0.5);
        int icpt = p % 4 != 3 || k == 1;
        if (!icpt) /* every fourth problem without an intercept: the X'X path */
            for (int t = 0; t < n; t++)
                X[(size_t)t * k] = 0.5 + gauss();
        if (!icpt)
            for (int t = 0; t < n; t++) {
                y[t] = 0.5 * gauss();
                for (int j = 0; j < k; j++)
                    y[t] += (j + 1.0) * X[(size_t)t * k + j] / (1.0 + fabs(X[(size_t)t * k + j]));
            }
        raid_reg_stats s;
        fill_stats(X, y, n, k, &s);
        raid_ols o;
        raid_status st = raid_ols_from_stats(&s, icpt, &o);
        if (st != RAID_OK)
            fail_msg("problem %d (n %d, k %d): %s", p, n, k, raid_errmsg());
        double beta[RAID_REG_MAX_K], ssr, inv[RAID_REG_MAX_K * RAID_REG_MAX_K];
        ref_qr(X, y, n, k, beta, &ssr, inv);
        double sigma2 = ssr / (n - k);
        for (int j = 0; j < k; j++) {
            assert_rel(o.beta[j], beta[j], 1e-10);
            double se = sqrt(sigma2 * inv[j * k + j]);
            assert_rel(o.se[j], se, 1e-10);
            assert_rel(o.tstat[j], beta[j] / se, 1e-10);
            double pv = raidTPvalue2(beta[j] / se, n - k);
            assert_true(fabs(o.pvalue[j] - pv) <= 1e-9 * pv + 1e-300);
            worst_b = fmax(worst_b, rel(o.beta[j], beta[j]));
            worst_se = fmax(worst_se, rel(o.se[j], se));
        }
        assert_rel(o.ssr, ssr, 1e-10);
        assert_rel(o.sigma2, sigma2, 1e-10);
        worst_ssr = fmax(worst_ssr, rel(o.ssr, ssr));
        double ybar = s.ysum / n, tss = 0.0;
        for (int t = 0; t < n; t++)
            tss += (y[t] - ybar) * (y[t] - ybar);
        if (!icpt)
            tss = s.yty;
        if (k > 1)
            assert_rel(o.r2, 1.0 - ssr / tss, 1e-9);
        assert_true(o.cond >= 0.99 && o.cond <= RAID_REG_MAX_COND);
        worst_cond = fmax(worst_cond, o.cond);
        free(X);
        free(y);
    }
    printf("[ random ] %d problems: worst relative difference to QR: beta %.2e, se %.2e, ssr %.2e "
           "(largest condition estimate %.2e)\n",
           nprob, worst_b, worst_se, worst_ssr, worst_cond);
}

/* ---------------------------------------------------------------------------------------------- */
/* (3) meat and robust covariance                                                                   */

static void test_meat_vs_loops(void **state)
{
    (void)state;
    rng_state = 777;
    const int k = 3, L = 4;
    const int64_t offsets[] = {5, 305, 305, 308, 1308, 1310}; /* lengths 300, 0, 3, 1000, 2; rows 0..4 unused */
    const size_t nreg = 5;
    int64_t rows = offsets[nreg];
    double *X = malloc(sizeof(double) * (size_t)rows * k), *y = malloc(sizeof(double) * (size_t)rows);
    assert_non_null(X);
    assert_non_null(y);
    for (int64_t t = 0; t < rows; t++) {
        X[t * k] = 1.0;
        X[t * k + 1] = 3.0 + gauss();
        X[t * k + 2] = 1e-3 * gauss();
        y[t] = 1.0 + 0.5 * X[t * k + 1] + 200.0 * X[t * k + 2] + (1.0 + fabs(X[t * k + 1])) * gauss();
    }
    double beta[5 * 3];
    for (int i = 0; i < 15; i++)
        beta[i] = gauss();
    double *meat = malloc(sizeof(double) * nreg * (L + 1) * k * k);
    assert_non_null(meat);
    raid_ctx *ctx = t_open_ctx("cpu");
    assert_int_equal(raid_reg_meat_compute(ctx, X, y, k, offsets, nreg, beta, L, meat), RAID_OK);
    double worst = 0;
    for (size_t g = 0; g < nreg; g++) {
        const double *b = beta + g * k;
        double scale[3] = {0, 0, 0}; /* sum e_t^2 x_ti^2 */
        for (int i = 0; i < k; i++)
            for (int64_t t = offsets[g]; t < offsets[g + 1]; t++) {
                double et = y[t];
                for (int m = 0; m < k; m++)
                    et -= b[m] * X[t * k + m];
                scale[i] += et * et * X[t * k + i] * X[t * k + i];
            }
        for (int l = 0; l <= L; l++)
            for (int i = 0; i < k; i++)
                for (int j = 0; j < k; j++) {
                    long double acc = 0.0L;
                    for (int64_t t = offsets[g] + l; t < offsets[g + 1]; t++) {
                        long double et = y[t], es = y[t - l];
                        for (int m = 0; m < k; m++) {
                            et -= (long double)b[m] * X[t * k + m];
                            es -= (long double)b[m] * X[(t - l) * k + m];
                        }
                        acc += et * X[t * k + i] * es * X[(t - l) * k + j];
                    }
                    double got = meat[((g * (L + 1) + (size_t)l) * k + (size_t)i) * k + (size_t)j];
                    double sc = sqrt(scale[i] * scale[j]);
                    double d = fabs(got - (double)acc);
                    if (offsets[g + 1] - offsets[g] <= l)
                        assert_true(got == 0.0);
                    else if (!(d <= 1e-13 * sc))
                        fail_msg("problem %zu lag %d [%d][%d]: %.17g vs %.17g", g, l, i, j, got, (double)acc);
                    if (sc > 0)
                        worst = fmax(worst, d / sc);
                }
    }
    printf("[ meat   ] worst scaled difference to the long double loops: %.2e\n", worst);

    /* errors */
    assert_int_equal(raid_reg_meat_compute(ctx, X, y, 0, offsets, nreg, beta, L, meat), RAID_EINVAL);
    assert_int_equal(raid_reg_meat_compute(ctx, X, y, 9, offsets, nreg, beta, L, meat), RAID_EINVAL);
    assert_int_equal(raid_reg_meat_compute(ctx, X, y, k, offsets, nreg, beta, -1, meat), RAID_EINVAL);
    assert_int_equal(raid_reg_meat_compute(ctx, NULL, y, k, offsets, nreg, beta, L, meat), RAID_EINVAL);
    const int64_t bad_off[] = {0, 10, 5};
    assert_int_equal(raid_reg_meat_compute(ctx, X, y, k, bad_off, 2, beta, L, meat), RAID_EINVAL);
    assert_non_null(strstr(raid_ctx_errmsg(ctx), "offsets"));
    double yb = y[400];
    y[400] = NAN;
    assert_int_equal(raid_reg_meat_compute(ctx, X, y, k, offsets, nreg, beta, L, meat), RAID_EINVAL);
    assert_non_null(strstr(raid_ctx_errmsg(ctx), "problem 3"));
    y[400] = yb;
    assert_int_equal(raid_reg_meat_compute(ctx, X, y, k, offsets, 0, beta, L, meat), RAID_OK);
    raid_ctx_destroy(ctx);
    free(meat);
    free(X);
    free(y);
}

static void test_robust_vs_sandwich(void **state)
{
    (void)state;
    rng_state = 4242;
    const int n = 2000, k = 4, L = 5;
    double *X = malloc(sizeof(double) * n * k), *y = malloc(sizeof(double) * n), *e = malloc(sizeof(double) * n);
    assert_non_null(X);
    assert_non_null(y);
    assert_non_null(e);
    /* AR(1) regressors and heteroskedastic AR(1) errors: HC0 and NW differ from OLS */
    double a1 = 0, a2 = 0, u = 0;
    for (int t = 0; t < n; t++) {
        a1 = 0.7 * a1 + gauss();
        a2 = 0.3 * a2 + gauss();
        u = 0.5 * u + (1.0 + 0.5 * fabs(a1)) * gauss();
        X[t * k] = 1.0;
        X[t * k + 1] = a1;
        X[t * k + 2] = 1e-4 * (1.0 + a2 * a2);
        X[t * k + 3] = 100.0 + 10.0 * a2;
        y[t] = 0.3 + 0.8 * a1 + 2e3 * X[t * k + 2] - 0.01 * X[t * k + 3] + u;
    }
    raid_reg_stats s;
    fill_stats(X, y, n, k, &s);
    raid_ols o, o0;
    assert_int_equal(raid_ols_from_stats(&s, 1, &o), RAID_OK);
    o0 = o;
    const int64_t off[] = {0, n};
    double *meat = malloc(sizeof(double) * (L + 1) * k * k);
    assert_non_null(meat);
    assert_int_equal(raid_reg_meat_compute(NULL, X, y, k, off, 1, o.beta, L, meat), RAID_OK);

    /* independent references: QR for beta and (X'X)^-1, scores u_t = e_t x_t, sandwich */
    double beta[RAID_REG_MAX_K], ssr, inv[RAID_REG_MAX_K * RAID_REG_MAX_K];
    ref_qr(X, y, n, k, beta, &ssr, inv);
    for (int t = 0; t < n; t++) {
        long double et = y[t];
        for (int j = 0; j < k; j++)
            et -= (long double)beta[j] * X[t * k + j];
        e[t] = (double)et;
    }
    for (int kind = 0; kind < 3; kind++) {
        int lags = kind == 0 ? 0 : kind == 1 ? L : 1;
        long double S[16] = {0};
        for (int l = 0; l <= lags; l++) {
            long double w = l == 0 ? 1.0L : 1.0L - (long double)l / (lags + 1);
            for (int t = l; t < n; t++)
                for (int i = 0; i < k; i++)
                    for (int j = 0; j < k; j++) {
                        long double c = (long double)e[t] * X[t * k + i] * e[t - l] * X[(t - l) * k + j];
                        S[i * k + j] += w * c;
                        if (l > 0)
                            S[j * k + i] += w * c;
                    }
        }
        raid_ols r = o0;
        if (kind == 0)
            assert_int_equal(raid_ols_robust(&s, meat, L, RAID_SE_WHITE, &r), RAID_OK);
        else
            assert_int_equal(raid_ols_robust(&s, meat, lags, RAID_SE_NW, &r), RAID_OK);
        for (int i = 0; i < k; i++) {
            long double v = 0.0L;
            for (int a = 0; a < k; a++)
                for (int b = 0; b < k; b++)
                    v += (long double)inv[i * k + a] * S[a * k + b] * inv[b * k + i];
            double se = sqrt((double)v);
            assert_rel(r.se[i], se, 1e-9);
            assert_rel(r.beta[i], o0.beta[i], 0.0);
            assert_rel(r.tstat[i], r.beta[i] / se, 1e-9);
            assert_rel(r.pvalue[i], raidNormalPvalue2(r.tstat[i]), 0.0);
            if (kind == 1)
                assert_true(rel(r.se[i], o0.se[i]) > 1e-3); /* NW really differs from OLS here */
        }
    }
    /* NW with 0 lags is HC0; RAID_SE_OLS restores the OLS errors */
    raid_ols w = o0, z = o0;
    assert_int_equal(raid_ols_robust(&s, meat, 0, RAID_SE_NW, &z), RAID_OK);
    assert_int_equal(raid_ols_robust(&s, meat, 0, RAID_SE_WHITE, &w), RAID_OK);
    for (int i = 0; i < k; i++)
        assert_true(w.se[i] == z.se[i]);
    assert_int_equal(raid_ols_robust(&s, NULL, 0, RAID_SE_OLS, &w), RAID_OK);
    for (int i = 0; i < k; i++) {
        assert_rel(w.se[i], o0.se[i], 1e-15);
        assert_rel(w.pvalue[i], o0.pvalue[i], 1e-15);
    }
    /* errors */
    raid_ols bad = o0;
    bad.k = 3;
    assert_int_equal(raid_ols_robust(&s, meat, L, RAID_SE_NW, &bad), RAID_EINVAL);
    assert_int_equal(raid_ols_robust(&s, meat, L, (raid_se_kind)7, &w), RAID_EINVAL);
    assert_int_equal(raid_ols_robust(&s, NULL, L, RAID_SE_NW, &w), RAID_EINVAL);
    assert_int_equal(raid_ols_robust(&s, meat, -1, RAID_SE_NW, &w), RAID_EINVAL);
    assert_int_equal(raid_ols_robust(NULL, meat, L, RAID_SE_NW, &w), RAID_EINVAL);
    /* a regressor whose mean is R times its standard deviation: float64's rounding of the meat, amplified
       by about (1 + R)^2 in the sandwich, beyond RAID_REG_MAX_ROBUST_LOSS: refused (R = 1e5 here), and
       accepted at R = 1e3; the OLS errors are not affected */
    for (int big = 0; big < 2; big++) {
        const double shift = (big ? 1e5 : 1e3) * sqrt(s.cxx[k + 1] / (double)s.n) - s.mean[1];
        double *Xs = malloc((size_t)n * k * sizeof *Xs);
        memcpy(Xs, X, (size_t)n * k * sizeof *Xs);
        for (int64_t t = 0; t < n; t++)
            Xs[t * k + 1] += shift;
        raid_reg_stats ss;
        raid_ols os;
        int64_t of[2] = {0, n};
        raid_ctx *cpu = t_open_ctx("cpu");
        assert_int_equal(raid_reg_stats_compute(cpu, Xs, y, k, of, 1, &ss), RAID_OK);
        raid_ctx_destroy(cpu);
        assert_int_equal(raid_ols_from_stats(&ss, 1, &os), RAID_OK);
        assert_int_equal(raid_reg_meat_compute(NULL, Xs, y, k, of, 1, os.beta, L, meat), RAID_OK);
        raid_ols ro = os;
        assert_int_equal(raid_ols_robust(&ss, meat, L, RAID_SE_NW, &ro), big ? RAID_ESINGULAR : RAID_OK);
        assert_int_equal(raid_ols_robust(&ss, NULL, 0, RAID_SE_OLS, &ro), RAID_OK);
        free(Xs);
    }
    free(meat);
    free(X);
    free(y);
    free(e);
}

/* ---------------------------------------------------------------------------------------------- */
/* (4) singular and ill-conditioned designs, invalid arguments                                       */

static void test_singular(void **state)
{
    (void)state;
    rng_state = 99;
    const int n = 200;
    double X[200 * 3], y[200];
    for (int t = 0; t < n; t++) {
        double x = gauss();
        X[3 * t] = 1.0;
        X[3 * t + 1] = x;
        X[3 * t + 2] = x; /* duplicate column */
        y[t] = 1.0 + x + gauss();
    }
    raid_reg_stats s;
    fill_stats(X, y, n, 3, &s);
    raid_ols o;
    assert_int_equal(raid_ols_from_stats(&s, 1, &o), RAID_ESINGULAR);
    printf("[ singular ] %s\n", raid_errmsg());
    assert_non_null(strstr(raid_errmsg(), "condition number"));
    assert_true(isnan(o.beta[0]));
    assert_true(!(o.cond <= RAID_REG_MAX_COND));
    o.k = 3;
    o.n = n;
    double meat[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    assert_int_equal(raid_ols_robust(&s, meat, 0, RAID_SE_WHITE, &o), RAID_ESINGULAR);

    /* nearly collinear: x2 = x1 + 1e-7 noise, condition number of the scaled X'X about 1e14 */
    for (int t = 0; t < n; t++)
        X[3 * t + 2] = X[3 * t + 1] + 1e-7 * gauss();
    fill_stats(X, y, n, 3, &s);
    assert_int_equal(raid_ols_from_stats(&s, 1, &o), RAID_ESINGULAR);
    printf("[ ill-conditioned ] %s\n", raid_errmsg());
    const char *c = strstr(raid_errmsg(), "condition number estimate ");
    assert_non_null(c);
    double cond = strtod(c + strlen("condition number estimate "), NULL);
    assert_true(cond > 1e12);
    assert_rel(o.cond, cond, 1e-3);

    /* a zero column */
    for (int t = 0; t < n; t++)
        X[3 * t + 2] = 0.0;
    fill_stats(X, y, n, 3, &s);
    assert_int_equal(raid_ols_from_stats(&s, 1, &o), RAID_ESINGULAR);
    assert_non_null(strstr(raid_errmsg(), "condition number"));

    /* mildly collinear is still accepted (cond ~ 1e6) */
    for (int t = 0; t < n; t++)
        X[3 * t + 2] = X[3 * t + 1] + 1e-3 * gauss();
    fill_stats(X, y, n, 3, &s);
    assert_int_equal(raid_ols_from_stats(&s, 1, &o), RAID_OK);
    assert_true(o.cond > 1e4 && o.cond < 1e9);
}

/* A column with mean 1e4 and spread 1 next to the intercept: X'X holds the spread in its last digits
 * (condition ~1e16 after scaling) while the centred cross-products keep it. */
static void test_large_mean(void **state)
{
    (void)state;
    rng_state = 2024;
    const int n = 3000, k = 3;
    double *X = malloc(sizeof(double) * n * k), *y = malloc(sizeof(double) * n);
    assert_non_null(X);
    assert_non_null(y);
    for (int t = 0; t < n; t++) {
        X[t * k] = 1.0;
        X[t * k + 1] = 1e4 + gauss();
        X[t * k + 2] = -3e5 + 0.01 * gauss();
        y[t] = 5.0 + 0.25 * X[t * k + 1] + 40.0 * X[t * k + 2] + gauss();
    }
    raid_reg_stats s;
    fill_stats(X, y, n, k, &s);
    raid_ols o;
    if (raid_ols_from_stats(&s, 1, &o) != RAID_OK)
        fail_msg("%s", raid_errmsg());
    double beta[RAID_REG_MAX_K], ssr, inv[RAID_REG_MAX_K * RAID_REG_MAX_K];
    ref_qr(X, y, n, k, beta, &ssr, inv);
    /* The intercept (-1e5 +- 5e5) is ill-determined: QR of X (condition ~1e7) loses about 1e-8 of it.
     * Reference: the centred normal equations solved in long double (2 x 2, Cramer). */
    long double m1 = 0, m2 = 0, my = 0, a = 0, b = 0, c = 0, d = 0, e = 0;
    for (int t = 0; t < n; t++) {
        m1 += X[t * k + 1];
        m2 += X[t * k + 2];
        my += y[t];
    }
    m1 /= n;
    m2 /= n;
    my /= n;
    for (int t = 0; t < n; t++) {
        long double z1 = X[t * k + 1] - m1, z2 = X[t * k + 2] - m2, zy = y[t] - my;
        a += z1 * z1;
        b += z1 * z2;
        c += z2 * z2;
        d += z1 * zy;
        e += z2 * zy;
    }
    long double det = a * c - b * b, b1 = (c * d - b * e) / det, b2 = (a * e - b * d) / det;
    assert_rel(o.beta[0], (double)(my - m1 * b1 - m2 * b2), 1e-12);
    assert_rel(o.beta[1], (double)b1, 1e-12);
    assert_rel(o.beta[2], (double)b2, 1e-12);
    for (int j = 0; j < k; j++) {
        double se = sqrt(ssr / (n - k) * inv[j * k + j]);
        if (j > 0)
            assert_rel(o.beta[j], beta[j], 1e-9);
        /* The QR solution is only as good as cond(X) u sqrt(n) allows (~1e-7 of the intercept) and that
         * depends on the LAPACK: for the intercept, netlib's dgels was 0.002 from the long double reference,
         * OpenBLAS's 0.0078, more than 1e-8 se = 0.0054; for beta[2] OpenBLAS's was 2.6e-8 off, 1.4 times
         * 1e-8 se. So the estimates are held to 1e-8 se of the long double reference (the truth), and to
         * the QR within the QR's own error (slopes 1e-9 relative above, the intercept 1e-6). */
        const double truth = j == 0 ? (double)(my - m1 * b1 - m2 * b2) : j == 1 ? (double)b1 : (double)b2;
        if (!(fabs(o.beta[j] - truth) <= 1e-8 * se))
            fail_msg("beta[%d] %.17g, long double reference %.17g: difference %.3g > 1e-8 se = %.3g", j, o.beta[j],
                     truth, fabs(o.beta[j] - truth), 1e-8 * se);
        if (j == 0 && !(fabs(o.beta[0] - beta[0]) <= 1e-6 * fabs(beta[0])))
            fail_msg("intercept %.17g, QR (LAPACK's dgels) %.17g: beyond the QR's error", o.beta[0], beta[0]);
        assert_rel(o.se[j], se, 1e-9);
    }
    /* SSR: to the long double reference (the residuals of the centred solution), and to the QR's within its
     * error (OpenBLAS's dgels: 1.4e-10 off here) */
    long double ssr_ld = 0;
    for (int t = 0; t < n; t++) {
        long double z = (y[t] - my) - b1 * (X[t * k + 1] - m1) - b2 * (X[t * k + 2] - m2);
        ssr_ld += z * z;
    }
    assert_rel(o.ssr, (double)ssr_ld, 1e-12);
    assert_rel(o.ssr, ssr, 1e-9);
    assert_true(o.cond < 10.0);
    printf("[ large mean ] intercept %.17g (QR %.17g), condition estimate %.3g\n", o.beta[0], beta[0], o.cond);

    /* two constant columns */
    for (int t = 0; t < n; t++)
        X[t * k + 2] = 2.0;
    fill_stats(X, y, n, k, &s);
    assert_int_equal(raid_ols_from_stats(&s, 1, &o), RAID_ESINGULAR);
    assert_non_null(strstr(raid_errmsg(), "condition number"));
    free(X);
    free(y);
}

static void test_invalid(void **state)
{
    (void)state;
    const double X[] = {1, 1, 1, 2, 1, 3}, y[] = {1, 2, 4};
    raid_reg_stats s;
    raid_ols o;
    fill_stats(X, y, 2, 2, &s); /* n == k */
    assert_int_equal(raid_ols_from_stats(&s, 1, &o), RAID_EINVAL);
    assert_non_null(strstr(raid_errmsg(), "n = 2"));
    fill_stats(X, y, 1, 2, &s); /* n < k */
    assert_int_equal(raid_ols_from_stats(&s, 1, &o), RAID_EINVAL);
    fill_stats(X, y, 3, 2, &s);
    assert_int_equal(raid_ols_from_stats(&s, 1, &o), RAID_OK);
    raid_reg_stats b = s;
    b.k = 0;
    assert_int_equal(raid_ols_from_stats(&b, 1, &o), RAID_EINVAL);
    b.k = RAID_REG_MAX_K + 1;
    b.n = 100;
    assert_int_equal(raid_ols_from_stats(&b, 1, &o), RAID_EINVAL);
    b = s;
    b.xty[1] = NAN;
    assert_int_equal(raid_ols_from_stats(&b, 1, &o), RAID_EINVAL);
    b = s;
    b.xtx[1] = INFINITY;
    assert_int_equal(raid_ols_from_stats(&b, 1, &o), RAID_EINVAL);
    assert_int_equal(raid_ols_from_stats(NULL, 1, &o), RAID_EINVAL);
    assert_int_equal(raid_ols_from_stats(&s, 1, NULL), RAID_EINVAL);
}

/* ---------------------------------------------------------------------------------------------- */
/* (5) distribution functions                                                                       */

static void test_t_distribution(void **state)
{
    (void)state;
    /* References: closed forms, and values of scipy.stats.t.sf (two-sided, x2) */
    assert_rel(raidTPvalue2(2.0, 10), 0.07338803477074037, 1e-13);
    assert_rel(raidTPvalue2(-2.0, 10), 0.07338803477074037, 1e-13);
    assert_rel(raidTPvalue2(3.0, 30), 0.005389964065651945, 1e-13);
    assert_rel(raidTPvalue2(1.0, 100.5), 0.319712177630808, 1e-13);
    assert_rel(raidTPvalue2(10.0, 50), 1.6077334688335447e-13, 1e-12);
    assert_rel(raidTPvalue2(4.0, 3.5), 0.020920616365403714, 1e-13);
    assert_rel(raidTPvalue2(2.0, 1e6), 0.04550053385131924, 1e-13);
    assert_rel(raidTPvalue2(5.0, 1e9), 5.733032403951619e-07, 1e-12);
    /* both sides of the switch to the asymptotic expansion at df = 30 */
    assert_rel(raidTPvalue2(0.5, 29.999), 0.6207231258226228, 1e-13);
    assert_rel(raidTPvalue2(0.5, 30.001), 0.6207228839556485, 1e-13);
    double worst = 0;
    for (int i = 0; i <= 200; i++) {
        double t = 0.05 * i * (1 + 0.1 * i); /* 0 .. 210 */
        /* df = 1, Cauchy: P(|T| > t) = 1 - 2 atan(t) / pi = 2 atan(1/t) / pi */
        double p1 = t == 0 ? 1.0 : 2.0 * atan(1.0 / t) / PI;
        assert_rel(raidTPvalue2(t, 1), p1, 1e-13);
        assert_rel(raidTCdf(-t, 1), 0.5 * p1, 1e-13);
        assert_rel(raidTCdf(t, 1), 1.0 - 0.5 * p1, 1e-14);
        worst = fmax(worst, rel(raidTPvalue2(t, 1), p1));
        /* df = 2: 1 - t / sqrt(t^2 + 2) = 2 / (sqrt(t^2 + 2) (sqrt(t^2 + 2) + t)) */
        double r = sqrt(t * t + 2.0), p2 = 2.0 / (r * (r + t));
        assert_rel(raidTPvalue2(t, 2), p2, 1e-13);
        worst = fmax(worst, rel(raidTPvalue2(t, 2), p2));
        if (t <= 8.0) { /* df = 3 closed form, cancellation-free for moderate t */
            double p3 = 1.0 - 2.0 / PI * (atan(t / sqrt(3.0)) + sqrt(3.0) * t / (3.0 + t * t));
            assert_rel(raidTPvalue2(t, 3), p3, 1e-11);
        }
        /* t(df) tends to the normal */
        double pn = raidNormalPvalue2(t);
        /* ... as P(|T| > t) = P(|Z| > t) + 2 phi(t) (t^3 + t) / (4 df) + O(df^-2) (A&S 26.7.5) */
        double pe = pn + 2.0 * exp(-0.5 * t * t) / sqrt(2.0 * PI) * (t * t * t + t) / 4e12;
        if (t < 8 && !(fabs(raidTPvalue2(t, 1e12) - pe) <= 1e-13 * pe))
            fail_msg("t %.17g df 1e12: %.17g vs %.17g", t, raidTPvalue2(t, 1e12), pe);
        assert_rel(raidTPvalue2(t, INFINITY), raidNormalPvalue2(t), 0.0);
    }
    printf("[ t      ] worst relative difference to the closed forms (df 1, 2): %.2e\n", worst);
    assert_true(raidTPvalue2(0.0, 7) == 1.0);
    assert_true(raidTPvalue2(INFINITY, 7) == 0.0);
    assert_true(raidTPvalue2(1e200, 7) == 0.0);
    assert_true(isnan(raidTPvalue2(NAN, 7)));
    assert_true(isnan(raidTPvalue2(1.0, 0.0)));
    assert_true(isnan(raidTPvalue2(1.0, -3.0)));

    /* incomplete beta: I_x(1,1) = x, I_x(a,1) = x^a, I_x(1,b) = 1 - (1-x)^b, I_x(a,b) = 1 - I_{1-x}(b,a) */
    for (int i = 1; i < 20; i++) {
        double x = i / 20.0;
        assert_rel(raidBetai(1, 1, x, 1 - x), x, 1e-14);
        assert_rel(raidBetai(3.5, 1, x, 1 - x), pow(x, 3.5), 1e-13);
        assert_rel(raidBetai(1, 2.5, x, 1 - x), 1.0 - pow(1 - x, 2.5), 1e-13);
        assert_rel(raidBetai(40, 7.5, x, 1 - x) + raidBetai(7.5, 40, 1 - x, x), 1.0, 1e-14);
    }
    assert_true(isnan(raidBetai(-1, 1, 0.5, 0.5)));
    assert_true(isnan(raidBetai(1, 1, 1.5, -0.5)));
}

static void test_normal(void **state)
{
    (void)state;
    assert_rel(raidNormalPvalue2(1.959963984540054), 0.05, 1e-14);
    assert_rel(raidNormalPvalue2(-1.959963984540054), 0.05, 1e-14);
    assert_rel(raidNormalPvalue2(10.0), 1.523970604832094e-23, 1e-14);
    assert_true(raidNormalPvalue2(0.0) == 1.0);
    /* against erfc of the rounded argument, whose relative error 2 (z^2/2) eps the function removes */
    for (int i = 0; i < 300; i++) {
        double z = 0.125 * i, h = z / sqrt(2.0);
        assert_rel(raidNormalPvalue2(z), erfc(h), 4e-16 * (1.0 + h * h));
    }
    assert_true(raidNormalPvalue2(INFINITY) == 0.0);
    assert_true(isnan(raidNormalPvalue2(NAN)));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exact_linear),      cmocka_unit_test(test_exact_textbook),
        cmocka_unit_test(test_random_vs_qr),      cmocka_unit_test(test_meat_vs_loops),
        cmocka_unit_test(test_robust_vs_sandwich), cmocka_unit_test(test_singular),
        cmocka_unit_test(test_large_mean),        cmocka_unit_test(test_invalid),           cmocka_unit_test(test_t_distribution),
        cmocka_unit_test(test_normal),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
