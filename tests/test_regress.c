/* Regression sufficient statistics: the float64 cpu path against long double sums written here, and the
 * OpenCL device path (PoCL in CI) against them within stated bounds; centring and scaling shown to
 * matter on a badly scaled design. */
#define _POSIX_C_SOURCE 200809L
#include "support.h"
#include "raid.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng = 777;
static double unif(void)
{
    uint64_t z = (rng += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return ((double)((z ^ (z >> 31)) >> 11) + 0.5) * 0x1p-53;
}
static double gauss(void) { return sqrt(-2.0 * log(unif())) * cos(6.283185307179586 * unif()); }

/* A design: column 0 the intercept, columns with means mu[p] and spreads sd[p]; y linear plus noise. */
typedef struct design {
    int k;
    size_t nreg;
    int64_t *off;
    double *X, *y;
} design;

static design make_design(int k, size_t nreg, int64_t maxlen, const double *mu, const double *sd)
{
    design D = {k, nreg, malloc((nreg + 1) * sizeof(int64_t)), NULL, NULL};
    D.off[0] = 0;
    for (size_t g = 0; g < nreg; g++)
        D.off[g + 1] = D.off[g] + (int64_t)(unif() * (double)maxlen);
    const size_t n = (size_t)D.off[nreg];
    D.X = malloc((n ? n : 1) * k * sizeof(double));
    D.y = malloc((n ? n : 1) * sizeof(double));
    for (size_t t = 0; t < n; t++) {
        double yy = 0.5;
        D.X[t * k] = 1.0;
        for (int p = 1; p < k; p++) {
            D.X[t * k + p] = mu[p] + sd[p] * gauss();
            yy += 0.3 / p * D.X[t * k + p];
        }
        D.y[t] = yy + 0.1 * gauss();
    }
    return D;
}

static void free_design(design *D)
{
    free(D->off);
    free(D->X);
    free(D->y);
}

/* Column p of row t (p == k: y). */
static double col(const design *D, size_t t, int p) { return p < D->k ? D->X[t * D->k + p] : D->y[t]; }

/* The largest scaled error of the statistics s of problem g against long double sums written here:
 * centred cross-products relative to sum |d_p d_q| (d = v - mean), raw moments relative to
 * sum |v_p v_q|, means relative to mean |v|. Returns the worst of the three. */
static double max_scaled_error(const design *D, size_t g, const raid_reg_stats *s)
{
    const int k = D->k, d = k + 1;
    const size_t a = (size_t)D->off[g], b = (size_t)D->off[g + 1];
    const long double n = (long double)(b - a);
    long double m[9] = {0}, am[9] = {0};
    for (size_t t = a; t < b; t++)
        for (int p = 0; p < d; p++) {
            m[p] += col(D, t, p);
            am[p] += fabsl((long double)col(D, t, p));
        }
    double worst = 0;
    for (int p = 0; p < d; p++) {
        m[p] /= n;
        /* one correction pass: long double's running sum of levels 1e12 times the spread loses ~1e-6 of
         * the spread in the mean, 1e-12 in the centred sums (the adversarial designs below) */
        long double r = 0;
        for (size_t t = a; t < b; t++)
            r += col(D, t, p) - m[p];
        m[p] += r / n;
        long double e = fabsl((long double)s->mean[p] - m[p]) / (am[p] / n);
        if (am[p] > 0 && e > worst)
            worst = (double)e;
    }
    for (int p = 0; p < d; p++)
        for (int q = p; q < d; q++) {
            long double c = 0, ad = 0, raw = 0, av = 0;
            for (size_t t = a; t < b; t++) {
                long double dp = col(D, t, p) - m[p], dq = col(D, t, q) - m[q];
                c += dp * dq;
                ad += fabsl(dp * dq);
                raw += (long double)col(D, t, p) * col(D, t, q);
                av += fabsl((long double)col(D, t, p) * col(D, t, q));
            }
            const double gc = q < k ? s->cxx[p * k + q] : (p < k ? s->cxy[p] : s->cyy);
            const double gr = q < k ? s->xtx[p * k + q] : (p < k ? s->xty[p] : s->yty);
            double ec = ad > 0 ? (double)(fabsl((long double)gc - c) / ad) : (gc == 0 ? 0 : INFINITY);
            double er = av > 0 ? (double)(fabsl((long double)gr - raw) / av) : (gr == 0 ? 0 : INFINITY);
            if (ec > worst)
                worst = ec;
            if (er > worst)
                worst = er;
        }
    return worst;
}

static void check(raid_ctx *ctx, const design *D, double tol, const char *what)
{
    raid_reg_stats *s = malloc((D->nreg ? D->nreg : 1) * sizeof *s);
    raid_status st = raid_reg_stats_compute(ctx, D->X, D->y, D->k, D->off, D->nreg, s);
    if (st != RAID_OK)
        fail_msg("%s: %s", what, raid_ctx_errmsg(ctx));
    double worst = 0;
    for (size_t g = 0; g < D->nreg; g++) {
        if (D->off[g + 1] == D->off[g])
            continue;
        assert_int_equal(s[g].n, D->off[g + 1] - D->off[g]);
        double e = max_scaled_error(D, g, &s[g]);
        if (e > worst)
            worst = e;
    }
    printf("# %-40s max scaled error %.3e (tolerance %.1e)\n", what, worst, tol);
    if (!(worst <= tol))
        fail_msg("%s: scaled error %.3e > %.1e", what, worst, tol);
    free(s);
}

/* The documented bounds (docs/regression.md), relative to sum |d_p d_q|: f32 rounds each centred value
 * once, so a product is within 2u + u^2 and a sum of products of any signs within 2u(1 + u); df
 * represents values to 2^-48 and accumulates in double-float (3u^2 per addition): 1e-12 for both
 * accumulations. */
#define BOUND_F32 (2.0 * 0x1p-24 * (1.0 + 0x1p-24) + 1e-12)
#define BOUND_DF 1e-12

static const double MU[8] = {0, 0.5, 1e4, -3.0, 1e-3, 250.0, 0.0, 7.0};
static const double SD[8] = {0, 1.0, 1.0, 1e-3, 1e-4, 50.0, 1e3, 1e-2};

static void test_cpu(void **state)
{
    (void)state;
    raid_ctx *cpu = t_open_ctx("cpu");
    for (int k = 1; k <= RAID_REG_MAX_K; k++) {
        design D = make_design(k, 20, 3000, MU, SD);
        char what[64];
        snprintf(what, sizeof what, "cpu k=%d", k);
        check(cpu, &D, 1e-14, what);
        free_design(&D);
    }
    raid_ctx_destroy(cpu);
}

static void test_device(void **state)
{
    (void)state;
    if (!t_have_opencl())
        skip();
    raid_ctx *dev = t_open_ctx(t_device());
    const int ks[] = {1, 2, 4, 8};
    for (size_t i = 0; i < 4; i++) {
        /* problems from empty to several chunks, of unequal lengths */
        design D = make_design(ks[i], 300, 9000, MU, SD);
        for (int p = 0; p < 2; p++) {
            raid_ctx_set_precision(dev, p ? RAID_PREC_DF : RAID_PREC_F32);
            char what[64];
            snprintf(what, sizeof what, "device %s k=%d", p ? "df" : "f32", ks[i]);
            check(dev, &D, p ? BOUND_DF : BOUND_F32, what);
        }
        free_design(&D);
    }
    raid_ctx_destroy(dev);
}

/* A panel of 10^4 symbols of unequal lengths (0 to 60 rows) in one call. */
static void test_device_panel(void **state)
{
    (void)state;
    if (!t_have_opencl())
        skip();
    raid_ctx *dev = t_open_ctx(t_device());
    design D = make_design(4, 10000, 60, MU, SD);
    for (int p = 0; p < 2; p++) {
        raid_ctx_set_precision(dev, p ? RAID_PREC_DF : RAID_PREC_F32);
        check(dev, &D, p ? BOUND_DF : BOUND_F32, p ? "device df, 10^4 symbols" : "device f32, 10^4 symbols");
    }
    free_design(&D);
    raid_ctx_destroy(dev);
}

/* The largest difference between device (d) and host (h) meats of the problems of D, entry by entry
 * relative to the scale given above test_device_meat. */
static double meat_worst(const design *D, const double *beta, int L, const double *h, const double *d)
{
    const int k = D->k;
    const size_t nc = (size_t)(L + 1) * k * k;
    /* the centres: column means over all rows (here one group: fewer than 2^26 rows) */
    long double cs[9] = {0};
    const int64_t nall = D->off[D->nreg];
    for (int64_t t = 0; t < nall; t++) {
        for (int j = 0; j < k; j++)
            cs[j] += D->X[t * k + j];
        cs[k] += D->y[t];
    }
    double cen[9];
    for (int j = 0; j <= k; j++)
        cen[j] = (double)(cs[j] / (long double)nall);
    double worst = 0;
    for (size_t g = 0; g < D->nreg; g++) {
        const int64_t a = D->off[g], b = D->off[g + 1];
        for (int l = 0; l <= L; l++)
            for (int pp = 0; pp < k; pp++)
                for (int q = 0; q < k; q++) {
                    long double sc = 0;
                    long double ag = -(long double)cen[k]; /* a = sum c_j beta_j - c_y */
                    for (int j = 0; j < k; j++)
                        ag += (long double)cen[j] * beta[g * k + j];
                    for (int64_t t = a + l; t < b; t++) {
                        long double ut = D->y[t], us = D->y[t - l];
                        long double at = fabs(D->y[t] - cen[k]) + fabsl(ag),
                                    as = fabs(D->y[t - l] - cen[k]) + fabsl(ag);
                        for (int j = 0; j < k; j++) {
                            ut -= (long double)D->X[t * k + j] * beta[g * k + j];
                            us -= (long double)D->X[(t - l) * k + j] * beta[g * k + j];
                            at += fabsl((long double)(D->X[t * k + j] - cen[j]) * beta[g * k + j]);
                            as += fabsl((long double)(D->X[(t - l) * k + j] - cen[j]) * beta[g * k + j]);
                        }
                        sc += (fabsl(ut) + at) * (fabs(D->X[t * k + pp] - cen[pp]) + fabs(cen[pp])) *
                              (fabsl(us) + as) * (fabs(D->X[(t - l) * k + q] - cen[q]) + fabs(cen[q]));
                    }
                    const size_t at = g * nc + ((size_t)l * k + pp) * k + q;
                    const double e = sc > 0 ? (double)(fabsl((long double)d[at] - h[at]) / sc)
                                            : (d[at] == h[at] ? 0 : INFINITY);
                    if (e > worst)
                        worst = e;
                }
    }
    return worst;
}

/* The residual cross-products (White, Newey-West) on the device against the float64 host path, entry by
 * entry relative to sum_t w_t[p] w_{t-l}[q], w_t[p] = (|e_t| + |y_t - c_y| + sum_j |(x_t[j] - c_j) beta_j|
 * + |a|) (|x_t[p] - c_p| + |c_p|), c the column means of the rows, a = sum_j c_j beta_j - c_y (the device
 * forms e from policy-rounded centred values, so an input's rounding enters e at the size of those, not of
 * e): problems across several chunks of 1,024 rows, lags up to 22 and beyond a chunk. */
static void test_device_meat(void **state)
{
    (void)state;
    if (!t_have_opencl())
        skip();
    raid_ctx *dev = t_open_ctx(t_device()), *cpu = t_open_ctx("cpu");
    const int ks[2] = {4, 8}, lags[3] = {0, 22, 600};
    for (int ik = 0; ik < 2; ik++) {
        design D = make_design(ks[ik], 40, 1600, MU, SD);
        const int k = D.k;
        double *beta = malloc(D.nreg * k * sizeof *beta);
        for (size_t i = 0; i < D.nreg * (size_t)k; i++)
            beta[i] = 0.3 * gauss();
        for (int il = 0; il < (k == 4 ? 3 : 2); il++) { /* a lag beyond a chunk: k = 4 only (time) */
            const int L = lags[il];
            const size_t nc = (size_t)(L + 1) * k * k;
            double *h = malloc(D.nreg * nc * sizeof *h), *d = malloc(D.nreg * nc * sizeof *d);
            assert_int_equal(raid_reg_meat_compute(cpu, D.X, D.y, k, D.off, D.nreg, beta, L, h), RAID_OK);
            for (int p = 0; p < 2; p++) {
                raid_ctx_set_precision(dev, p ? RAID_PREC_DF : RAID_PREC_F32);
                if (raid_reg_meat_compute(dev, D.X, D.y, k, D.off, D.nreg, beta, L, d) != RAID_OK)
                    fail_msg("%s", raid_ctx_errmsg(dev));
                const double tol = p ? 2e-11 : 4.0 * 0x1p-24 * (1.0 + 2.0 * 0x1p-24) + 2e-11;
                const double worst = meat_worst(&D, beta, L, h, d);
                printf("# meat k=%d L=%3d %s: max scaled difference from the host %.3e (bound %.1e)\n", k, L,
                       p ? "df " : "f32", worst, tol);
                if (!(worst <= tol))
                    fail_msg("meat k=%d L=%d: %.3e > %.3e", k, L, worst, tol);
            }
            free(h);
            free(d);
        }
        free(beta);
        free_design(&D);
    }
    raid_ctx_destroy(dev);
    raid_ctx_destroy(cpu);
}

/* Found by a tester: with a work-group narrower than GROUP (8) the regression kernel wrote only the
 * partials of work-items lid < width (width 4: "X'X is singular" in raid_har_fit, width 1: "row 0 is not
 * finite"). The statistics at widths 1, 2, 4, 8 and chunks of 1 to 64 rows per work-item, in both policies
 * switched on one context, within the bounds of float64; and the meat at the same widths within the bound
 * of test_device_meat and bitwise equal to the default width (each combination's rows are summed in order
 * by one work-item, whatever the width). */
static void test_device_narrow_widths(void **state)
{
    (void)state;
    if (!t_have_opencl())
        skip();
    raid_ctx *dev = t_open_ctx(t_device()), *cpu = t_open_ctx("cpu");
    const size_t widths[] = {1, 2, 4, 8}, runs[] = {1, 5, 64};
    const int ks[] = {1, 4, 8};
    for (size_t ik = 0; ik < 3; ik++) {
        design D = make_design(ks[ik], 12, 700, MU, SD);
        for (size_t iw = 0; iw < 4; iw++)
            for (size_t ir = 0; ir < 3; ir++) {
                const size_t w = widths[iw], chunk = w * runs[ir];
                assert_int_equal(raid_ctx_set_chunk(dev, chunk, w), RAID_OK);
                for (int p = 0; p < 2; p++) {
                    raid_ctx_set_precision(dev, p ? RAID_PREC_DF : RAID_PREC_F32);
                    char what[96];
                    snprintf(what, sizeof what, "device %s k=%d chunk %zu wg %zu", p ? "df" : "f32", ks[ik], chunk, w);
                    check(dev, &D, p ? BOUND_DF : BOUND_F32, what);
                }
            }
        free_design(&D);
    }
    /* the meat: problems across chunks of 1,024 rows, lags 0 and 3 */
    design D = make_design(4, 6, 2500, MU, SD);
    const int k = D.k;
    double *beta = malloc(D.nreg * k * sizeof *beta);
    for (size_t i = 0; i < D.nreg * (size_t)k; i++)
        beta[i] = 0.3 * gauss();
    for (int L = 0; L <= 3; L += 3) {
        const size_t nc = (size_t)(L + 1) * k * k;
        double *h = malloc(D.nreg * nc * sizeof *h), *d = malloc(D.nreg * nc * sizeof *d),
               *d0 = malloc(D.nreg * nc * sizeof *d0);
        assert_int_equal(raid_reg_meat_compute(cpu, D.X, D.y, k, D.off, D.nreg, beta, L, h), RAID_OK);
        for (int p = 0; p < 2; p++) {
            raid_ctx_set_precision(dev, p ? RAID_PREC_DF : RAID_PREC_F32);
            const double tol = p ? 2e-11 : 4.0 * 0x1p-24 * (1.0 + 2.0 * 0x1p-24) + 2e-11;
            assert_int_equal(raid_ctx_set_chunk(dev, 4096, 256), RAID_OK);
            assert_int_equal(raid_reg_meat_compute(dev, D.X, D.y, k, D.off, D.nreg, beta, L, d0), RAID_OK);
            for (size_t iw = 0; iw < 4; iw++) {
                assert_int_equal(raid_ctx_set_chunk(dev, widths[iw], widths[iw]), RAID_OK);
                if (raid_reg_meat_compute(dev, D.X, D.y, k, D.off, D.nreg, beta, L, d) != RAID_OK)
                    fail_msg("%s", raid_ctx_errmsg(dev));
                const double worst = meat_worst(&D, beta, L, h, d);
                printf("# meat k=%d L=%d %s wg %zu: max scaled difference from the host %.3e (bound %.1e)\n", k, L,
                       p ? "df " : "f32", widths[iw], worst, tol);
                if (!(worst <= tol))
                    fail_msg("meat L=%d wg %zu: %.3e > %.3e", L, widths[iw], worst, tol);
                assert_memory_equal(d, d0, D.nreg * nc * sizeof *d);
            }
        }
        free(h);
        free(d);
        free(d0);
    }
    free(beta);
    free_design(&D);
    raid_ctx_destroy(dev);
    raid_ctx_destroy(cpu);
}

/* Large levels and small residuals (log rv near -9, intercept near -58) made the device
 * meat lose digits when it formed e = y - X beta from uncentred columns. Here the levels are 1e4 and -3e5
 * times the spread, and the residuals (1e-3) a thousandth of the centred terms (about 1): the device df
 * meat's error, about 2^-45 times that ratio (3e-11), relative to sum |u u|, is held to 1e-10; with
 * uncentred inputs the ratio is |y| / |e| ~ 1e10 and the error was 7.6e-7 (measured). */
static void test_meat_large_levels(void **state)
{
    (void)state;
    if (!t_have_opencl())
        skip();
    raid_ctx *dev = t_open_ctx(t_device()), *cpu = t_open_ctx("cpu");
    const int k = 3, n = 3000, L = 5;
    double *X = malloc(sizeof(double) * n * k), *y = malloc(sizeof(double) * n);
    for (int t = 0; t < n; t++) {
        X[t * k] = 1.0;
        X[t * k + 1] = 1e4 + gauss();
        X[t * k + 2] = -3e5 + 0.01 * gauss();
        y[t] = 5.0 + 0.25 * X[t * k + 1] + 40.0 * X[t * k + 2] + 1e-3 * gauss();
    }
    int64_t off[2] = {0, n};
    raid_reg_stats s;
    raid_ols o;
    assert_int_equal(raid_reg_stats_compute(cpu, X, y, k, off, 1, &s), RAID_OK);
    assert_int_equal(raid_ols_from_stats(&s, 1, &o), RAID_OK);
    const size_t nc = (size_t)(L + 1) * k * k;
    double *h = malloc(nc * sizeof *h), *d = malloc(nc * sizeof *d);
    assert_int_equal(raid_reg_meat_compute(cpu, X, y, k, off, 1, o.beta, L, h), RAID_OK);
    raid_ctx_set_precision(dev, RAID_PREC_DF);
    if (raid_reg_meat_compute(dev, X, y, k, off, 1, o.beta, L, d) != RAID_OK)
        fail_msg("%s", raid_ctx_errmsg(dev));
    double worst = 0;
    for (int l = 0; l <= L; l++)
        for (int p = 0; p < k; p++)
            for (int q = 0; q < k; q++) {
                long double sc = 0;
                for (int t = l; t < n; t++) {
                    long double et = y[t], es = y[t - l];
                    for (int j = 0; j < k; j++) {
                        et -= (long double)X[t * k + j] * o.beta[j];
                        es -= (long double)X[(t - l) * k + j] * o.beta[j];
                    }
                    sc += fabsl(et * X[t * k + p] * es * X[(t - l) * k + q]);
                }
                const size_t at = ((size_t)l * k + p) * k + q;
                worst = fmax(worst, (double)(fabsl((long double)d[at] - h[at]) / sc));
            }
    printf("# meat with levels 1e4 and -3e5, residuals 1e-3, device df: max scaled difference %.3e\n", worst);
    assert_true(worst < 1e-10);
    free(X), free(y), free(h), free(d);
    raid_ctx_destroy(dev);
    raid_ctx_destroy(cpu);
}

/* Robust standard errors of designs with an intercept whose regressors sit far from zero (log rv scaled by
 * 1e140: level 320, spread 1), two such problems at different levels in ONE call (their group's centres are
 * far from either): the device scores are centred per problem and mapped back in float64, so the device's
 * NW standard errors agree with the cpu path's to float64's own amplified rounding (measured 7.2e-11; 1.1e-8
 * before the per-problem centring). */
static void test_meat_level_se(void **state)
{
    (void)state;
    if (!t_have_opencl())
        skip();
    raid_ctx *dev = t_open_ctx(t_device()), *cpu = t_open_ctx("cpu");
    raid_ctx_set_precision(dev, RAID_PREC_DF);
    const int k = 4, n = 600, L = 5;
    const double level[2] = {320.0, -9.0};
    double *X = malloc(sizeof(double) * 2 * n * k), *y = malloc(sizeof(double) * 2 * n);
    for (int g = 0; g < 2; g++) {
        double h = 0, x[700];
        for (int t = 0; t < n + 22; t++) {
            h = 0.9 * h + 0.4 * gauss();
            x[t] = level[g] + h;
        }
        for (int i = 0; i < n; i++) {
            const int t = i + 21;
            double w = 0, m = 0;
            for (int j = 0; j < 5; j++) w += x[t - j];
            for (int j = 0; j < 22; j++) m += x[t - j];
            double *r = X + ((size_t)g * n + i) * k;
            r[0] = 1, r[1] = x[t], r[2] = w / 5, r[3] = m / 22;
            y[g * n + i] = x[t + 1];
        }
    }
    const int64_t off[3] = {0, n, 2 * n};
    const size_t nc = (size_t)(L + 1) * k * k;
    raid_reg_stats s[2];
    raid_ols o[2];
    double beta[8], *mc = malloc(2 * nc * sizeof *mc), *md = malloc(2 * nc * sizeof *md);
    assert_int_equal(raid_reg_stats_compute(cpu, X, y, k, off, 2, s), RAID_OK);
    for (int g = 0; g < 2; g++) {
        assert_int_equal(raid_ols_from_stats(&s[g], 1, &o[g]), RAID_OK);
        memcpy(beta + g * k, o[g].beta, k * sizeof *beta);
    }
    assert_int_equal(raid_reg_meat_compute(cpu, X, y, k, off, 2, beta, L, mc), RAID_OK);
    if (raid_reg_meat_compute(dev, X, y, k, off, 2, beta, L, md) != RAID_OK)
        fail_msg("%s", raid_ctx_errmsg(dev));
    double worst = 0;
    for (int g = 0; g < 2; g++) {
        raid_ols a = o[g], b = o[g];
        assert_int_equal(raid_ols_robust(&s[g], mc + g * nc, L, RAID_SE_NW, &a), RAID_OK);
        assert_int_equal(raid_ols_robust(&s[g], md + g * nc, L, RAID_SE_NW, &b), RAID_OK);
        for (int j = 0; j < k; j++)
            worst = fmax(worst, fabs(a.se[j] - b.se[j]) / a.se[j]);
    }
    printf("# NW standard errors at levels 320 and -9 in one call, device df against cpu: %.3e\n", worst);
    assert_true(worst < 1e-9);
    free(X), free(y), free(mc), free(md);
    raid_ctx_destroy(dev);
    raid_ctx_destroy(cpu);
}

/* Inverse of a small symmetric positive definite matrix in long double (Gauss-Jordan), for references. */
static void inv_ld(long double *a, int m)
{
    long double b[64];
    for (int i = 0; i < m; i++)
        for (int j = 0; j < m; j++)
            b[i * m + j] = i == j;
    for (int c = 0; c < m; c++) {
        const long double piv = a[c * m + c];
        for (int j = 0; j < m; j++)
            a[c * m + j] /= piv, b[c * m + j] /= piv;
        for (int r = 0; r < m; r++)
            if (r != c) {
                const long double f = a[r * m + c];
                for (int j = 0; j < m; j++)
                    a[r * m + j] -= f * a[c * m + j], b[r * m + j] -= f * b[c * m + j];
            }
    }
    memcpy(a, b, sizeof(long double) * (size_t)(m * m));
}

/* Robust errors about a centre (raid_reg_meat_ranges_at + raid_ols_robust_at) where the regressors' levels
 * are 1e7 times their spread (rv + 1000): raid_ols_robust refuses (float64's cancellation), the centred
 * pair gives the slopes' NW standard errors of a long double computation in the centred basis, on the cpu
 * and on the device, and an intercept error that is finite and positive. */
static void test_robust_at_centre(void **state)
{
    (void)state;
    const uint64_t saved = rng; /* its own draws: the later tests' data stay as they were */
    rng = 4242;
    raid_ctx *cpu = t_open_ctx("cpu");
    const int k = 4, n = 1500, L = 6;
    double *X = malloc(sizeof(double) * n * k), *y = malloc(sizeof(double) * n);
    double a[3] = {0, 0, 0};
    for (int t = 0; t < n; t++) {
        X[t * k] = 1.0;
        for (int j = 0; j < 3; j++) {
            a[j] = (0.5 + 0.15 * j) * a[j] + gauss();
            X[t * k + 1 + j] = 1000.0 + 1e-4 * a[j];
        }
        y[t] = 2.0 + 3e3 * (X[t * k + 1] - 1000.0) - 1e3 * (X[t * k + 3] - 1000.0) + 0.2 * gauss();
    }
    int64_t st[1] = {0}, en[1] = {n};
    const int64_t off[2] = {0, n};
    raid_reg_stats s;
    raid_ols o;
    assert_int_equal(raid_reg_stats_compute(cpu, X, y, k, off, 1, &s), RAID_OK);
    assert_int_equal(raid_ols_from_stats(&s, 1, &o), RAID_OK);
    const size_t nc = (size_t)(L + 1) * k * k;
    double *meat = malloc(nc * sizeof *meat), centre[4] = {0, s.mean[1], s.mean[2], s.mean[3]};
    raid_ols r = o;
    assert_int_equal(raid_reg_meat_ranges(cpu, X, y, k, st, en, 1, o.beta, L, meat), RAID_OK);
    assert_int_equal(raid_ols_robust(&s, meat, L, RAID_SE_NW, &r), RAID_ESINGULAR);
    /* the reference: centred in long double, slopes only */
    long double m[3] = {0, 0, 0}, C[9] = {0}, Sm[9] = {0};
    for (int t = 0; t < n; t++)
        for (int j = 0; j < 3; j++)
            m[j] += X[t * k + 1 + j];
    for (int j = 0; j < 3; j++)
        m[j] /= n;
    long double *u = malloc(sizeof(long double) * n * 3);
    for (int t = 0; t < n; t++) {
        long double e = y[t];
        for (int j = 0; j < k; j++)
            e -= (long double)X[t * k + j] * o.beta[j];
        for (int j = 0; j < 3; j++)
            u[t * 3 + j] = e * ((long double)X[t * k + 1 + j] - m[j]);
        for (int p = 0; p < 3; p++)
            for (int q = 0; q < 3; q++)
                C[p * 3 + q] += ((long double)X[t * k + 1 + p] - m[p]) * ((long double)X[t * k + 1 + q] - m[q]);
    }
    for (int l = 0; l <= L; l++) {
        const long double w = l ? 1.0L - (long double)l / (L + 1) : 1.0L;
        for (int t = l; t < n; t++)
            for (int p = 0; p < 3; p++)
                for (int q = 0; q < 3; q++) {
                    const long double g = u[t * 3 + p] * u[(t - l) * 3 + q];
                    Sm[p * 3 + q] += w * g;
                    if (l)
                        Sm[q * 3 + p] += w * g;
                }
    }
    inv_ld(C, 3);
    long double want[3];
    for (int i = 0; i < 3; i++) {
        long double v = 0;
        for (int p = 0; p < 3; p++)
            for (int q = 0; q < 3; q++)
                v += C[i * 3 + p] * Sm[p * 3 + q] * C[q * 3 + i];
        want[i] = sqrtl(v);
    }
    const char *devs[2] = {"cpu", t_have_opencl() ? t_device() : NULL};
    for (int d = 0; d < 2 && devs[d]; d++) {
        raid_ctx *ctx = t_open_ctx(devs[d]);
        raid_ctx_set_precision(ctx, RAID_PREC_DF);
        if (raid_reg_meat_ranges_at(ctx, X, y, k, st, en, 1, o.beta, centre, L, meat) != RAID_OK)
            fail_msg("%s", raid_ctx_errmsg(ctx));
        r = o;
        assert_int_equal(raid_ols_robust_at(&s, meat, centre, L, RAID_SE_NW, &r), RAID_OK);
        double worst = 0;
        for (int i = 0; i < 3; i++)
            worst = fmax(worst, (double)(fabsl(r.se[1 + i] - want[i]) / want[i]));
        printf("# slopes' NW errors about the means, levels 1e7 x spread, %s: %.3e from long double\n", devs[d], worst);
        assert_true(worst < 1e-9);
        assert_true(r.se[0] > 0 && isfinite(r.se[0]));
        raid_ctx_destroy(ctx);
    }
    /* a nonzero centre on the constant column, or without one: refused */
    centre[0] = 1;
    assert_int_equal(raid_ols_robust_at(&s, meat, centre, L, RAID_SE_NW, &r), RAID_EINVAL);
    assert_int_equal(raid_ols_robust_at(&s, NULL, centre, L, RAID_SE_OLS, &r), RAID_EINVAL); /* any kind */
    free(X), free(y), free(meat), free(u);
    raid_ctx_destroy(cpu);
    rng = saved;
}

/* Overlapping windows of one series, each with its own coefficients, in one call: the host path equals the
 * per-window raid_reg_meat_compute bit for bit; the device path is within the bounds of test_device_meat. */
static void test_meat_ranges(void **state)
{
    (void)state;
    raid_ctx *cpu = t_open_ctx("cpu");
    design D = make_design(4, 1, 3000, MU, SD);
    const int k = 4, L = 7;
    const int64_t n = D.off[1];
    const size_t nw = 40, nc = (size_t)(L + 1) * k * k;
    int64_t st[40], en[40];
    double *beta = malloc(nw * k * sizeof *beta), *a = malloc(nw * nc * sizeof *a), *b = malloc(nc * sizeof *b);
    for (size_t w = 0; w < nw; w++) {
        st[w] = (int64_t)w * (n / 60);
        en[w] = st[w] + n / 3;
        for (int j = 0; j < k; j++)
            beta[w * k + j] = 0.2 * gauss();
    }
    assert_int_equal(raid_reg_meat_ranges(cpu, D.X, D.y, k, st, en, nw, beta, L, a), RAID_OK);
    for (size_t w = 0; w < nw; w++) {
        int64_t off[2] = {st[w], en[w]};
        assert_int_equal(raid_reg_meat_compute(cpu, D.X, D.y, k, off, 1, beta + w * k, L, b), RAID_OK);
        assert_memory_equal(a + w * nc, b, nc * sizeof *b);
    }
    int64_t bad_st[1] = {5}, bad_en[1] = {4};
    assert_int_equal(raid_reg_meat_ranges(cpu, D.X, D.y, k, bad_st, bad_en, 1, beta, L, a), RAID_EINVAL);
    if (t_have_opencl()) {
        raid_ctx *dev = t_open_ctx(t_device());
        double *d = malloc(nw * nc * sizeof *d);
        raid_ctx_set_precision(dev, RAID_PREC_DF);
        assert_int_equal(raid_reg_meat_ranges(dev, D.X, D.y, k, st, en, nw, beta, L, d), RAID_OK);
        double worst = 0;
        for (size_t i = 0; i < nw * nc; i++) {
            const double scale = fabs(a[i]) > 1e-300 ? fabs(a[i]) : 1;
            worst = fmax(worst, fabs(d[i] - a[i]) / scale);
        }
        printf("# meat over 40 overlapping windows, device df: max relative difference %.3e\n", worst);
        /* relative to the entry itself, a stricter measure than sum |u u| for the diagonal lag-0 terms */
        assert_true(worst < 1e-9);
        free(d);
        raid_ctx_destroy(dev);
    }
    free(beta);
    free(a);
    free(b);
    free_design(&D);
    raid_ctx_destroy(cpu);
}

/* The device meat's groups and its host fallbacks: windows uploaded in several groups (a small group
 * limit); a non-finite value in rows no window covers is harmless, inside a window it is an error naming
 * that window; a window fitted exactly (zero residuals: binary32's range could matter) and one whose
 * coefficients are beyond the device's scaled range are done on the host, equal to the host path. */
static void test_meat_groups_and_host(void **state)
{
    (void)state;
    if (!t_have_opencl())
        skip();
    raid_ctx *cpu = t_open_ctx("cpu"), *dev = t_open_ctx(t_device());
    design D = make_design(4, 1, 8000, MU, SD);
    while (D.off[1] < 3200) { /* the windows below need 3150 rows */
        free_design(&D);
        D = make_design(4, 1, 8000, MU, SD);
    }
    const int k = 4, L = 5;
    const size_t nw = 12, nc = (size_t)(L + 1) * k * k;
    int64_t st[12], en[12];
    double *beta = malloc(nw * k * sizeof *beta), *h = malloc(nw * nc * sizeof *h), *d = malloc(nw * nc * sizeof *d);
    for (size_t w = 0; w < nw; w++) { /* rows 1450..1699 are in no window */
        st[w] = w < 6 ? (int64_t)w * 150 : 1700 + (int64_t)(w - 6) * 150;
        en[w] = st[w] + 700;
        for (int j = 0; j < k; j++)
            beta[w * k + j] = 0.2 * gauss();
    }
    /* window 3 fits exactly: y = X beta on its rows (other windows overlap them, so set beta to fit) */
    for (int j = 0; j < k; j++)
        beta[3 * k + j] = 0;
    for (int64_t t = st[3]; t < en[3]; t++)
        D.y[t] = 0 * D.X[t * k];
    /* window 7's coefficients are beyond 2^60 in the scaled units */
    beta[7 * k + 1] = 1e30;
    D.y[1600] = NAN; /* in the gap */
    raid_ctx_set_precision(dev, RAID_PREC_DF);
    assert_int_equal(raid_tuning_set(dev, RAID_TUNE_MAX_BATCH_ELEMS, (int64_t)(1000)), RAID_OK);
    if (raid_reg_meat_ranges(cpu, D.X, D.y, k, st, en, nw, beta, L, h) != RAID_OK)
        fail_msg("%s", raid_ctx_errmsg(cpu));
    if (raid_reg_meat_ranges(dev, D.X, D.y, k, st, en, nw, beta, L, d) != RAID_OK)
        fail_msg("%s", raid_ctx_errmsg(dev));
    raid_timing tm;
    raid_ctx_last_timing(dev, &tm);
    assert_true(tm.host_segments >= 2);
    assert_memory_equal(d + 3 * nc, h + 3 * nc, nc * sizeof *d); /* host path: bit for bit */
    assert_memory_equal(d + 7 * nc, h + 7 * nc, nc * sizeof *d);
    double worst = 0;
    for (size_t i = 0; i < nw * nc; i++)
        worst = fmax(worst, fabs(d[i] - h[i]) / (fabs(h[i]) > 1e-300 ? fabs(h[i]) : 1));
    printf("# meat in groups with host fallbacks, device df: max relative difference %.3e\n", worst);
    assert_true(worst < 1e-9);
    D.y[1600] = 1;
    D.X[(size_t)2000 * k + 2] = INFINITY; /* inside windows 6 and 7 */
    assert_int_equal(raid_reg_meat_ranges(dev, D.X, D.y, k, st, en, nw, beta, L, d), RAID_EINVAL);
    printf("# %s\n", raid_ctx_errmsg(dev));
    assert_non_null(strstr(raid_ctx_errmsg(dev), "problem 6:"));
    assert_int_equal(raid_tuning_set(dev, RAID_TUNE_MAX_BATCH_ELEMS, (int64_t)(0)), RAID_OK);
    free(beta);
    free(h);
    free(d);
    free_design(&D);
    raid_ctx_destroy(dev);
    raid_ctx_destroy(cpu);
}

/* A design with a large mean keeps the digits the regression needs on the f32 device path, because the
 * device centres and scales each chunk before rounding to float32. What an upload of the raw values in
 * float32 would lose (the ablation that the host-converting path, removed on 2026-12-02, offered as
 * RAID_TUNE_REG_NO_CENTRING) is shown here on the host: the statistics of the values rounded to float32,
 * computed exactly enough in float64, are already far outside the f32 bound. */
static void test_centring_matters(void **state)
{
    (void)state;
    if (!t_have_opencl())
        skip();
    raid_ctx *dev = t_open_ctx(t_device()), *cpu = t_open_ctx("cpu");
    raid_ctx_set_precision(dev, RAID_PREC_F32);
    const double mu[3] = {0, 1e4, 1e4}, sd[3] = {0, 1.0, 1.0};
    design D = make_design(3, 8, 20000, mu, sd);
    const size_t n = (size_t)D.off[D.nreg];
    design R = D; /* the same rows rounded to float32 */
    R.X = malloc((n ? n : 1) * D.k * sizeof(double));
    R.y = malloc((n ? n : 1) * sizeof(double));
    for (size_t t = 0; t < n; t++) {
        for (int p = 0; p < D.k; p++)
            R.X[t * D.k + p] = (double)(float)D.X[t * D.k + p];
        R.y[t] = (double)(float)D.y[t];
    }
    raid_reg_stats *s = malloc(D.nreg * sizeof *s);
    assert_int_equal(raid_reg_stats_compute(cpu, R.X, R.y, R.k, R.off, R.nreg, s), RAID_OK);
    double raw = 0;
    for (size_t g = 0; g < D.nreg; g++)
        if (D.off[g + 1] > D.off[g])
            raw = fmax(raw, max_scaled_error(&D, g, &s[g]));
    assert_int_equal(raid_reg_stats_compute(dev, D.X, D.y, D.k, D.off, D.nreg, s), RAID_OK);
    double centred = 0;
    for (size_t g = 0; g < D.nreg; g++)
        if (D.off[g + 1] > D.off[g])
            centred = fmax(centred, max_scaled_error(&D, g, &s[g]));
    printf("# badly scaled design (means 1e4, sd 1), f32: values rounded to float32 %.3e, device (centred and "
           "scaled) %.3e\n", raw, centred);
    assert_true(raw > 10 * BOUND_F32); /* float32's rounding of 1e4 + x is u 1e4 / sd of the spread */
    assert_true(centred < BOUND_F32);
    free(s);
    free(R.X);
    free(R.y);
    free_design(&D);
    raid_ctx_destroy(dev);
    raid_ctx_destroy(cpu);
}

/* Windows from blocks: the statistics of consecutive blocks combined (Chan, Golub, LeVeque) equal the
 * statistics of their union computed directly, to float64 accuracy on the centred scale, also for
 * columns with means far above their spread. */
static void test_combine(void **state)
{
    (void)state;
    raid_ctx *cpu = t_open_ctx("cpu");
    const size_t nb = 40;
    design D = make_design(4, nb, 200, MU, SD);
    raid_reg_stats *blk = malloc(nb * sizeof *blk), whole, acc;
    assert_int_equal(raid_reg_stats_compute(cpu, D.X, D.y, D.k, D.off, nb, blk), RAID_OK);
    int64_t all[2] = {D.off[0], D.off[nb]};
    assert_int_equal(raid_reg_stats_compute(cpu, D.X, D.y, D.k, all, 1, &whole), RAID_OK);
    acc = blk[0];
    for (size_t g = 1; g < nb; g++)
        assert_int_equal(raid_reg_stats_combine(&acc, &blk[g], &acc), RAID_OK);
    assert_int_equal(acc.n, whole.n);
    design U = D; /* one problem over all rows, for max_scaled_error */
    U.nreg = 1;
    U.off = all;
    double e = max_scaled_error(&U, 0, &acc);
    printf("# combine 40 blocks vs direct: max scaled error %.3e\n", e);
    assert_true(e < 1e-13);
    raid_reg_stats bad = whole;
    bad.k = 3;
    assert_int_equal(raid_reg_stats_combine(&whole, &bad, &acc), RAID_EINVAL);

    /* raid_reg_stats_range: the same rows as blocks of 50 (last one short), ranges inside one block,
     * across one boundary, and over whole blocks with partial edges, against the direct statistics */
    const int64_t n = D.off[nb], B = 50, nblk = (n + B - 1) / B;
    int64_t *boff = malloc((size_t)(nblk + 1) * sizeof *boff);
    raid_reg_stats *bs = malloc((size_t)nblk * sizeof *bs);
    for (int64_t b = 0; b <= nblk; b++)
        boff[b] = b * B < n ? b * B : n;
    assert_int_equal(raid_reg_stats_compute(cpu, D.X, D.y, D.k, boff, (size_t)nblk, bs), RAID_OK);
    const int64_t ranges[5][2] = {{3, 40}, {45, 60}, {50, 150}, {17, n - 9}, {0, n}};
    for (int r = 0; r < 5; r++) {
        raid_reg_stats got;
        assert_int_equal(raid_reg_stats_range(cpu, bs, (size_t)B, D.X, D.y, D.k, ranges[r][0], ranges[r][1], &got),
                         RAID_OK);
        int64_t ro[2] = {ranges[r][0], ranges[r][1]};
        design V = D;
        V.nreg = 1;
        V.off = ro;
        assert_int_equal(got.n, ranges[r][1] - ranges[r][0]);
        const double er = max_scaled_error(&V, 0, &got);
        printf("# stats_range [%lld, %lld): max scaled error %.3e\n", (long long)ro[0], (long long)ro[1], er);
        /* float64 rounding of the combine's mean-difference terms for a column whose mean is 1e4 times its
         * spread: a few hundred ulps of sum |dp dq| (1.7e-13 measured for two blocks) */
        assert_true(er < 1e-12);
    }
    raid_reg_stats got;
    assert_int_equal(raid_reg_stats_range(cpu, bs, (size_t)B, D.X, D.y, D.k, 60, 59, &got), RAID_EINVAL);
    assert_int_equal(raid_reg_stats_range(cpu, bs, 0, D.X, D.y, D.k, 0, 10, &got), RAID_EINVAL);
    free(boff);
    free(bs);
    free(blk);
    free_design(&D);
    raid_ctx_destroy(cpu);
}

/* raid_reg_stats_range as a chain of public calls (its code before the combinations were made in place). */
static raid_status range_by_combine(raid_ctx *cpu, const raid_reg_stats *blocks, size_t B, const double *X,
                                    const double *y, int k, int64_t s0, int64_t s1, raid_reg_stats *out)
{
    const size_t a = (size_t)s0, e = (size_t)s1, b0 = (a + B - 1) / B, b1 = e / B;
    int64_t off[2] = {0, s1 - s0};
    if (b0 >= b1)
        return raid_reg_stats_compute(cpu, X + a * (size_t)k, y + a, k, off, 1, out);
    raid_reg_stats w = blocks[b0], part;
    raid_status st = RAID_OK;
    for (size_t b = b0 + 1; b < b1 && st == RAID_OK; b++)
        st = raid_reg_stats_combine(&w, &blocks[b], &w);
    const size_t edges[2][2] = {{a, b0 * B}, {b1 * B, e}};
    for (int ed = 0; ed < 2 && st == RAID_OK; ed++) {
        if (edges[ed][0] >= edges[ed][1])
            continue;
        off[1] = (int64_t)(edges[ed][1] - edges[ed][0]);
        st = raid_reg_stats_compute(cpu, X + edges[ed][0] * (size_t)k, y + edges[ed][0], k, off, 1, &part);
        if (st == RAID_OK)
            st = raid_reg_stats_combine(&w, &part, &w);
    }
    if (st == RAID_OK)
        *out = w;
    return st;
}

/* raid_reg_stats_range combines in place: the same bytes as the chain of raid_reg_stats_combine calls, for
 * every range of a series (also with empty blocks among the whole ones, first or later), and the same errors. */
static void test_range_bytes(void **state)
{
    (void)state;
    raid_ctx *cpu = t_open_ctx("cpu");
    design D = make_design(3, 1, 700, MU, SD);
    const int64_t n = D.off[1], B = 25, nblk = (n + B - 1) / B;
    int64_t *boff = malloc((size_t)(nblk + 1) * sizeof *boff);
    raid_reg_stats *bs = malloc((size_t)nblk * sizeof *bs), *holes = malloc((size_t)nblk * sizeof *holes);
    for (int64_t b = 0; b <= nblk; b++)
        boff[b] = b * B < n ? b * B : n;
    assert_int_equal(raid_reg_stats_compute(cpu, D.X, D.y, D.k, boff, (size_t)nblk, bs), RAID_OK);
    memcpy(holes, bs, (size_t)nblk * sizeof *bs);
    int64_t zero[2] = {0, 0};
    for (int64_t b = 0; b < nblk; b += 3) /* every third block empty (blocks 0, 3, ...) */
        assert_int_equal(raid_reg_stats_compute(cpu, D.X, D.y, D.k, zero, 1, &holes[b]), RAID_OK);
    size_t checked = 0;
    for (int set = 0; set < 2; set++) {
        const raid_reg_stats *blk = set ? holes : bs;
        for (int64_t s0 = 0; s0 < n; s0 += 7)
            for (int64_t s1 = s0; s1 <= n; s1 += 11) {
                raid_reg_stats got, want;
                memset(&got, 0x5a, sizeof got);
                memset(&want, 0x5a, sizeof want);
                const raid_status a = raid_reg_stats_range(cpu, blk, (size_t)B, D.X, D.y, D.k, s0, s1, &got);
                const raid_status b = range_by_combine(cpu, blk, (size_t)B, D.X, D.y, D.k, s0, s1, &want);
                assert_int_equal(a, b);
                if (a == RAID_OK && memcmp(&got, &want, sizeof got) != 0)
                    fail_msg("stats_range [%lld, %lld) (%s): bytes differ from the chain of combinations", (long long)s0,
                             (long long)s1, set ? "empty blocks" : "blocks");
                checked++;
            }
    }
    raid_reg_stats got, bad = bs[2];
    bad.k = 2; /* a block of another k: the combination's error */
    raid_reg_stats *mixed = malloc((size_t)nblk * sizeof *mixed);
    memcpy(mixed, bs, (size_t)nblk * sizeof *bs);
    mixed[2] = bad;
    assert_int_equal(raid_reg_stats_range(cpu, mixed, (size_t)B, D.X, D.y, D.k, 0, 200, &got), RAID_EINVAL);
    assert_non_null(strstr(raid_ctx_errmsg(cpu), "raid_reg_stats_combine"));
    printf("# stats_range: %zu ranges, the same bytes as the chain of raid_reg_stats_combine calls\n", checked);
    free(mixed), free(holes), free(bs), free(boff);
    free_design(&D);
    raid_ctx_destroy(cpu);
}

/* The device receives the float64 bits and centres each chunk itself (kernels/regress.cl): adversarial
 * scales within the documented bounds in both policies, at the default chunk and at chunks of 64 rows
 * (many chunks per problem, merged on the host): an outlier 1e6 spreads away as the first row of every
 * chunk (the reference the device shifts by before it finds the chunk's mean; below the column's level,
 * so that the raw moments' scale sum |v_p v_q| stays above the centred sum |d_p d_q| that the bounds are
 * relative to), levels 1e12 and -3e11 times the spread, columns near 1e145 and near 1e-140, a column spanning 60 binades (values far below
 * the chunk's largest are truncated in the fixed point by less than 2^-61 of it), and a column at a level
 * with no exact float32 (1/3) 1e9 times its spread. */
static void test_device_adversarial(void **state)
{
    (void)state;
    if (!t_have_opencl())
        skip();
    raid_ctx *dev = t_open_ctx(t_device()), *cpu = t_open_ctx("cpu");
    const double mu[8] = {0, 1e12, -3e11, 1e145, 1e-140, 0, 1.0 / 3.0, 5e6};
    const double sd[8] = {0, 1.0, 1.0, 1e139, 1e-146, 0, 1e-9 / 3.0, 1.0};
    for (int chunked = 0; chunked < 2; chunked++) {
        const size_t chunk = chunked ? 64 : 4096;
        design D = make_design(8, 12, chunked ? 900 : 9000, mu, sd);
        const int64_t n = D.off[D.nreg];
        for (int64_t t = 0; t < n; t++) {
            D.X[t * 8 + 5] = ldexp(1.0 + unif(), (int)(unif() * 200) - 100) * (unif() < 0.5 ? -1 : 1);
        }
        for (size_t g = 0; g < D.nreg; g++)
            for (int64_t t = D.off[g]; t < D.off[g + 1]; t += (int64_t)chunk) {
                D.X[t * 8 + 1] += 1e6;
                D.X[t * 8 + 7] -= 1e6;
                D.y[t] += 1e6;
            }
        check(cpu, &D, 1e-14, chunked ? "cpu adversarial, chunks of 64" : "cpu adversarial");
        for (int p = 0; p < 2; p++) {
            assert_int_equal(raid_ctx_set_chunk(dev, chunk, chunked ? 16 : 256), RAID_OK);
            raid_ctx_set_precision(dev, p ? RAID_PREC_DF : RAID_PREC_F32);
            char what[64];
            snprintf(what, sizeof what, "device %s adversarial%s", p ? "df" : "f32", chunked ? ", chunks of 64" : "");
            check(dev, &D, p ? BOUND_DF : BOUND_F32, what);
        }
        free_design(&D);
    }
    raid_ctx_destroy(dev);
    raid_ctx_destroy(cpu);
}

/* A value out of range (not finite, or beyond 1e150) is found by the device (a flag per chunk) and named
 * by the host exactly as the cpu path names it: the first in row order, y before X within a row; 1e150
 * itself is accepted. */
static void test_device_out_of_range(void **state)
{
    (void)state;
    if (!t_have_opencl())
        skip();
    raid_ctx *dev = t_open_ctx(t_device()), *cpu = t_open_ctx("cpu");
    assert_int_equal(raid_ctx_set_chunk(dev, 64, 16), RAID_OK);
    const double bad[] = {NAN, -NAN, INFINITY, -INFINITY, 1e151, -1.0000000000000002e150,
                          1.7976931348623157e308};
    design D = make_design(3, 5, 400, MU, SD);
    const int64_t n = D.off[D.nreg];
    raid_reg_stats *s = malloc(D.nreg * sizeof *s);
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        for (int where = 0; where < 4; where++) {
            design E = D;
            E.X = malloc((size_t)n * 3 * sizeof(double));
            E.y = malloc((size_t)n * sizeof(double));
            memcpy(E.X, D.X, (size_t)n * 3 * sizeof(double));
            memcpy(E.y, D.y, (size_t)n * sizeof(double));
            const int64_t t = where == 3 ? n - 1 : (int64_t)(unif() * (double)n);
            if (where == 0)
                E.y[t] = bad[i];
            else if (where == 1)
                E.X[t * 3 + 2] = bad[i];
            else { /* two in one row and a later one: y of the row is named */
                E.X[t * 3 + 1] = bad[i];
                E.y[t] = bad[i];
                if (t + 70 < n)
                    E.X[(t + 70) * 3] = bad[i];
            }
            char want[512];
            assert_int_equal(raid_reg_stats_compute(cpu, E.X, E.y, 3, E.off, E.nreg, s), RAID_EINVAL);
            snprintf(want, sizeof want, "%s", raid_ctx_errmsg(cpu));
            for (int p = 0; p < 2; p++) {
                raid_ctx_set_precision(dev, p ? RAID_PREC_DF : RAID_PREC_F32);
                assert_int_equal(raid_reg_stats_compute(dev, E.X, E.y, 3, E.off, E.nreg, s), RAID_EINVAL);
                if (strcmp(raid_ctx_errmsg(dev), want) != 0)
                    fail_msg("value %g at row %lld: device says \"%s\", cpu \"%s\"", bad[i], (long long)t,
                             raid_ctx_errmsg(dev), want);
            }
            if (i == 0 && where == 0)
                printf("# out of range: %s\n", want);
            free(E.X);
            free(E.y);
        }
    /* 1e150 and -1e150 are in range on both */
    D.y[3] = 1e150;
    D.X[5 * 3 + 1] = -1e150;
    assert_int_equal(raid_reg_stats_compute(cpu, D.X, D.y, 3, D.off, D.nreg, s), RAID_OK);
    assert_int_equal(raid_reg_stats_compute(dev, D.X, D.y, 3, D.off, D.nreg, s), RAID_OK);
    free(s);
    free_design(&D);
    raid_ctx_destroy(dev);
    raid_ctx_destroy(cpu);
}

static void test_determinism_and_errors(void **state)
{
    (void)state;
    raid_ctx *cpu = t_open_ctx("cpu");
    double X[4] = {1, 2, 1, NAN}, y[2] = {1, 2};
    int64_t off[2] = {0, 2};
    raid_reg_stats s[2];
    assert_int_equal(raid_reg_stats_compute(cpu, X, y, 2, off, 1, s), RAID_EINVAL);
    assert_int_equal(raid_reg_stats_compute(cpu, X, y, 0, off, 1, s), RAID_EINVAL);
    assert_int_equal(raid_reg_stats_compute(cpu, X, y, 9, off, 1, s), RAID_EINVAL);
    raid_ctx_destroy(cpu);
    if (!t_have_opencl())
        return;
    raid_ctx *dev = t_open_ctx(t_device());
    design D = make_design(5, 50, 20000, MU, SD);
    raid_reg_stats *a = malloc(D.nreg * sizeof *a), *b = malloc(D.nreg * sizeof *b);
    assert_int_equal(raid_reg_stats_compute(dev, D.X, D.y, D.k, D.off, D.nreg, a), RAID_OK);
    assert_int_equal(raid_tuning_set(dev, RAID_TUNE_MAX_BATCH_ELEMS, (int64_t)(5000)), RAID_OK); /* many launches: still bitwise equal */
    assert_int_equal(raid_reg_stats_compute(dev, D.X, D.y, D.k, D.off, D.nreg, b), RAID_OK);
    assert_memory_equal(a, b, D.nreg * sizeof *a);
    free(a);
    free(b);
    free_design(&D);
    raid_ctx_destroy(dev);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cpu),
        cmocka_unit_test(test_device),
        cmocka_unit_test(test_device_panel),
        cmocka_unit_test(test_device_meat),
        cmocka_unit_test(test_device_narrow_widths),
        cmocka_unit_test(test_meat_ranges),
        cmocka_unit_test(test_meat_large_levels),
        cmocka_unit_test(test_meat_level_se),
        cmocka_unit_test(test_robust_at_centre),
        cmocka_unit_test(test_meat_groups_and_host),
        cmocka_unit_test(test_centring_matters),
        cmocka_unit_test(test_combine), cmocka_unit_test(test_range_bytes),
        cmocka_unit_test(test_determinism_and_errors),
        cmocka_unit_test(test_device_adversarial),
        cmocka_unit_test(test_device_out_of_range),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
