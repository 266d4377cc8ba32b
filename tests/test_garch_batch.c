/* Tests of the batched GARCH-family fit (src/models/garch_batch.c) on the cpu evaluator: the FCP
 * benchmark on data/dem2gbp.csv (estimates, log-likelihood, Hessian and robust standard errors), a mixed
 * batch, batch against one at a time, scale invariance, warm starts, the statuses (iteration limit, at
 * start, boundary), the float64 refinement from a bulk phase stopped early, forecasts. */
#define _POSIX_C_SOURCE 200809L
#include "support.h"
#include "models/garch_batch.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"

static const RaidGarchLikSpec FCP = {RAID_GARCH_LIK_GARCH, RAID_GARCH_LIK_NORMAL, RAID_GARCH_LIK_MEAN_CONSTANT,
                                        RAID_GARCH_LIK_INIT_SAMPLE, RAID_GARCH_LIK_EZ_SQRT2PI};

/* The statuses' names (raid_garch_status_name is the public API's, not linked here). */
static const char *stname(raid_garch_status s)
{
    static const char *const names[] = {"converged",   "iteration limit", "boundary",   "no progress",   "at start",
                                        "too short",   "constant",        "non-finite", "no valid start"};
    return (unsigned)s < 9 ? names[s] : "?";
}

static void print_fit(const char *what, const RaidGarchBatchOut *o, size_t k)
{
    printf("# %s: %s, loglik %.10f, %d iterations\n#   theta", what, stname(o->status), o->loglik,
           o->iterations);
    for (size_t i = 0; i < k; i++) printf(" %.9g", o->theta[i]);
    printf("\n#   se   ");
    for (size_t i = 0; i < k; i++) printf(" %.6g", o->se_classic[i]);
    printf("\n#   rse  ");
    for (size_t i = 0; i < k; i++) printf(" %.6g", o->se_robust[i]);
    printf("\n");
}

/* Fit n series with spec on the cpu; asserts RAID_OK. */
static void fit(const RaidGarchLikSpec *spec, size_t n, const double *const *r, const size_t *T,
                const double *warm, const RaidGarchBatchOpts *o, RaidGarchBatchOut *out)
{
    assert_int_equal(raidGarchBatchFit(NULL, spec, n, r, T, warm, o, out), RAID_OK);
}

static void fit1(const RaidGarchLikSpec *spec, const double *r, size_t T, const RaidGarchBatchOpts *o,
                 RaidGarchBatchOut *out)
{
    fit(spec, 1, &r, &T, NULL, o, out);
}

/* The score at a fit is about 0: each |df/dtheta_j| max(|theta_j|, 0.01) (the change of the nll for a
 * relative change of theta_j) below 1e-9 |f|. */
static void assert_score_small(const RaidGarchLikSpec *spec, const double *r, size_t T,
                               const RaidGarchBatchOut *o)
{
    const size_t k = raidGarchLikNpar(spec);
    double g[RAID_GARCH_LIK_MAXPAR];
    const double f = raidGarchLikNll(spec, r, T, o->theta, g);
    assert_true(f == -o->loglik);
    for (size_t j = 0; j < k; j++) assert_true(fabs(g[j]) * fmax(fabs(o->theta[j]), 0.01) <= 1e-9 * fabs(f));
}

static void assert_rel(double got, double want, double tol)
{
    if (!(fabs(got - want) <= tol * fabs(want))) {
        printf("# got %.17g want %.17g (relative %.3g, bound %.3g)\n", got, want, fabs(got - want) / fabs(want), tol);
        fail();
    }
}

static void test_fcp_benchmark(void **state)
{
    (void)state;
    size_t T;
    double *r = t_read_dem2gbp(&T);
    RaidGarchBatchOut o;
    fit1(&FCP, r, T, NULL, &o);
    print_fit("FCP GARCH(1,1) Normal", &o, 4);
    assert_int_equal(o.status, RAID_GARCH_CONVERGED);
    static const double want[4] = {-0.00619041, 0.0107613, 0.153134, 0.805974};
    static const double se[4] = {0.00846212, 0.00285271, 0.0265228, 0.0335527};
    static const double rse[4] = {0.00918935, 0.00649319, 0.0535317, 0.0724614};
    /* omega lies one unit of the published 6th digit away (0.01076140, score 2e-8 there): the likelihood
     * is flat along omega-beta (docs/garch.md); the others to 5e-7. */
    for (size_t i = 0; i < 4; i++) {
        printf("#   %zu: estimate %.2g, se %.2g, robust se %.2g relative\n", i, fabs(o.theta[i] - want[i]) / fabs(want[i]),
               fabs(o.se_classic[i] - se[i]) / se[i], fabs(o.se_robust[i] - rse[i]) / rse[i]);
        assert_rel(o.theta[i], want[i], 1e-5);
        assert_rel(o.se_classic[i], se[i], 1e-3);
        assert_rel(o.se_robust[i], rse[i], 1e-3);
    }
    assert_true(fabs(o.loglik - -1106.608) <= 0.0005);
    assert_score_small(&FCP, r, T, &o);
    /* h_T and h_{T+1} from the recursion */
    assert_true(o.sigma2_last > 0 && isfinite(o.sigma2_next));
    const double e = r[T - 1] - o.theta[0];
    assert_rel(o.sigma2_next, o.theta[1] + o.theta[2] * e * e + o.theta[3] * o.sigma2_last, 1e-14);
    free(r);
}

/* Good series, a 10-return series, a constant series, one with a 50-sigma outlier and one with a NaN in
 * one batch: each gets its status, and the good ones are bitwise those fitted alone. */
static void test_mixed_batch(void **state)
{
    (void)state;
    size_t T;
    double *r = t_read_dem2gbp(&T);
    double *c = malloc(500 * sizeof *c), *out50 = malloc(T * sizeof *out50), *nan = malloc(T * sizeof *nan);
    double *half = malloc(T * sizeof *half);
    assert_non_null(c && out50 && nan && half);
    for (size_t t = 0; t < 500; t++) c[t] = 0.25;
    memcpy(out50, r, T * sizeof *r);
    out50[900] = 50 * 0.47; /* the sample standard deviation is 0.47 */
    memcpy(nan, r, T * sizeof *r);
    nan[700] = NAN;
    for (size_t t = 0; t < T; t++) half[t] = r[(t * 7) % T]; /* another good series */
    const double *rs[6] = {r, r, c, out50, nan, half};
    const size_t Ts[6] = {T, 10, 500, T, T, T};
    RaidGarchBatchOut o[6], alone;
    fit(&FCP, 6, rs, Ts, NULL, NULL, o);
    /* the outlier: alpha and beta go to 0 (the one return dominates a Normal likelihood): a boundary
     * solution */
    static const raid_garch_status want[6] = {RAID_GARCH_CONVERGED, RAID_GARCH_TOO_SHORT, RAID_GARCH_CONSTANT,
                                              RAID_GARCH_BOUNDARY, RAID_GARCH_NONFINITE, RAID_GARCH_CONVERGED};
    for (size_t i = 0; i < 6; i++) {
        printf("# series %zu: %s\n", i, stname(o[i].status));
        assert_int_equal(o[i].status, want[i]);
    }
    static const size_t none[3] = {1, 2, 4}; /* no estimates */
    for (size_t i = 0; i < 3; i++)
        assert_true(isnan(o[none[i]].theta[0]) && isnan(o[none[i]].loglik) && isnan(o[none[i]].se_robust[1]));
    assert_true(isnan(o[2].theta[1]));
    for (size_t i = 0; i < 6; i++) {
        if (i == 1 || i == 2 || i == 4) continue;
        fit1(&FCP, rs[i], Ts[i], NULL, &alone);
        assert_memory_equal(&alone, &o[i], sizeof alone);
    }
    print_fit("50-sigma outlier", &o[3], 4);
    free(c);
    free(out50);
    free(nan);
    free(half);
    free(r);
}

/* The same batch on 1 and 2 threads: bitwise the same results (the refinement runs in parallel over
 * series, each series' arithmetic its own). */
static void test_threads(void **state)
{
    (void)state;
    size_t T;
    double *r = t_read_dem2gbp(&T);
    const RaidGarchLikSpec s = {RAID_GARCH_LIK_GJR, RAID_GARCH_LIK_T, RAID_GARCH_LIK_MEAN_CONSTANT,
                                   RAID_GARCH_LIK_INIT_BACKCAST, RAID_GARCH_LIK_EZ_SQRT2PI};
    const double *rs[4] = {r, r + 300, r + 600, r + 900};
    const size_t Ts[4] = {T, T - 300, T - 600, T - 900};
    RaidGarchBatchOut a[4], b[4];
    const int nt = omp_get_max_threads();
    omp_set_num_threads(1);
    fit(&s, 4, rs, Ts, NULL, NULL, a);
    omp_set_num_threads(2);
    fit(&s, 4, rs, Ts, NULL, NULL, b);
    omp_set_num_threads(nt);
    assert_memory_equal(a, b, sizeof a);
    free(r);
}

/* A fit stopped by the iteration limit is not reported as converged. */
static void test_iteration_limit(void **state)
{
    (void)state;
    size_t T;
    double *r = t_read_dem2gbp(&T);
    for (size_t it = 1; it <= 6; it++) { /* it converges in 9 */
        RaidGarchBatchOut o;
        const RaidGarchBatchOpts opt = {.max_iter = it};
        fit1(&FCP, r, T, &opt, &o);
        assert_int_equal(o.status, RAID_GARCH_MAXITER);
        assert_int_equal(o.iterations, (int)it);
        assert_true(isfinite(o.loglik) && isfinite(o.theta[1]));
    }
    free(r);
}

/* The iterates do not depend on the number of line-search step lengths per call. */
static void test_step_lengths(void **state)
{
    (void)state;
    size_t T;
    double *r = t_read_dem2gbp(&T);
    RaidGarchBatchOut a, b;
    for (int m = 0; m < 3; m++) {
        RaidGarchLikSpec s = FCP;
        s.model = (RaidGarchLikModel)m;
        s.dist = m == 1 ? RAID_GARCH_LIK_T : RAID_GARCH_LIK_NORMAL;
        const RaidGarchBatchOpts o1 = {.nls = 1}, o4 = {.nls = 4}, o7 = {.nls = 7};
        fit1(&s, r, T, &o1, &a);
        fit1(&s, r, T, &o4, &b);
        assert_memory_equal(&a, &b, sizeof a);
        fit1(&s, r, T, &o7, &b);
        assert_memory_equal(&a, &b, sizeof a);
    }
    free(r);
}

static void test_gjr_egarch(void **state)
{
    (void)state;
    size_t T;
    double *r = t_read_dem2gbp(&T);
    RaidGarchBatchOut g, f;
    fit1(&FCP, r, T, NULL, &g);
    RaidGarchLikSpec s = FCP;
    s.model = RAID_GARCH_LIK_GJR;
    fit1(&s, r, T, NULL, &f);
    print_fit("GJR(1,1) Normal", &f, 5);
    assert_int_equal(f.status, RAID_GARCH_CONVERGED);
    assert_score_small(&s, r, T, &f);
    assert_true(f.loglik >= g.loglik - 1e-9 * fabs(g.loglik)); /* GJR nests GARCH (gamma = 0) */
    s.model = RAID_GARCH_LIK_EGARCH;
    fit1(&s, r, T, NULL, &f);
    print_fit("EGARCH(1,1) Normal", &f, 5);
    assert_int_equal(f.status, RAID_GARCH_CONVERGED);
    assert_score_small(&s, r, T, &f);
    for (size_t j = 0; j < 5; j++) assert_true(f.se_classic[j] > 0 && f.se_robust[j] > 0);
    s.dist = RAID_GARCH_LIK_T;
    s.init = RAID_GARCH_LIK_INIT_BACKCAST;
    fit1(&s, r, T, NULL, &f);
    print_fit("EGARCH(1,1) t backcast", &f, 6);
    assert_int_equal(f.status, RAID_GARCH_CONVERGED);
    assert_score_small(&s, r, T, &f);
    free(r);
}

/* i.i.d. Normal returns (no ARCH effect; a 64-bit LCG and Box-Muller): the maximum lies on the edge
 * alpha = 0, which the mapping reaches only as x goes to infinity; reported as a boundary solution, with
 * no standard errors. */
static void iid_normal(double *r, size_t T, uint64_t u)
{
    for (size_t t = 0; t < T; t++) {
        double v[2];
        for (int j = 0; j < 2; j++) {
            u = u * 6364136223846793005ULL + 1442695040888963407ULL;
            v[j] = ((double)(u >> 11) + 0.5) / 9007199254740992.0;
        }
        r[t] = sqrt(-2 * log(v[0])) * cos(6.283185307179586 * v[1]);
    }
}

static void test_boundary(void **state)
{
    (void)state;
    double r[1000];
    iid_normal(r, 1000, 7919);
    RaidGarchBatchOut o;
    fit1(&FCP, r, 1000, NULL, &o);
    print_fit("i.i.d. Normal, GARCH(1,1)", &o, 4);
    assert_int_equal(o.status, RAID_GARCH_BOUNDARY);
    /* stopped within 1e-4 of the edge (alpha's share of the persistence), the last step gaining less than
     * 1e-10 per observation; nothing much above it (the supremum along the edge reached from the old grid of
     * starts, after 500 iterations, is -1412.1025644; the grid of docs/garch.md "Starts" reaches alpha = 0
     * with beta 0.89 instead, at -1412.10177) */
    assert_true(o.theta[2] < 1e-4 * (o.theta[2] + o.theta[3]) && isfinite(o.loglik));
    assert_true(o.loglik > -1412.1025644 - 1e-4 && o.iterations < 100);
    assert_true(isnan(o.se_classic[0]) && isnan(o.se_robust[3]));
}

/* Returns +1, -1, +1, ... with a zero mean: every grid start has h_t = 1 throughout and is a stationary
 * point on a flat ridge (omega + alpha + beta = 1); the fit does not move and says so. */
static void test_at_start(void **state)
{
    (void)state;
    double r[200];
    for (size_t t = 0; t < 200; t++) r[t] = t % 2 ? -1.0 : 1.0;
    RaidGarchLikSpec s = FCP;
    s.mean = RAID_GARCH_LIK_MEAN_ZERO;
    RaidGarchBatchOut o;
    fit1(&s, r, 200, NULL, &o);
    print_fit("alternating signs, GARCH(1,1) zero mean", &o, 3);
    assert_int_equal(o.status, RAID_GARCH_AT_START);
    assert_int_equal(o.iterations, 0);
}

/* EGARCH-t fitted to GARCH(1,1)-t series (T = 2,500, parameters varied; an LCG, Box-Muller and the t as a
 * Normal over a chi-square): EGARCH's nll has a kink in mu at every return, and the minimum of three of
 * these 12 lies on one (the gradient in mu not small, its one-sided derivatives bracketing 0). Every fit
 * is converged, and the standard errors of mu of all are of one size. */
static uint64_t lcg = 12345;
static double unif(void)
{
    lcg = lcg * 6364136223846793005ULL + 1442695040888963407ULL;
    return ((double)(lcg >> 11) + 0.5) / 9007199254740992.0;
}
static double normal(void)
{
    const double a = unif(), b = unif();
    return sqrt(-2 * log(a)) * cos(6.283185307179586 * b);
}

static void test_egarch_kinks(void **state)
{
    (void)state;
    enum { N = 62, T = 2500, FIRST = 50 };
    lcg = 12345;
    double *r = malloc((size_t)N * T * sizeof *r);
    assert_non_null(r);
    for (size_t i = 0; i < N; i++) {
        const double a = 0.03 + 0.12 * unif(), b = 0.97 - a - 0.1 * unif(), om = 0.02 * (1 - a - b);
        const int nu = 4 + (int)(8 * unif());
        const double mu = 0.05 * (unif() - 0.5);
        double h = om / (1 - a - b);
        for (size_t t = 0; t < T; t++) {
            double z = normal(), c = 0;
            for (int j = 0; j < nu; j++) {
                const double x = normal();
                c += x * x;
            }
            const double e = sqrt(h) * z / sqrt(c / nu) * sqrt((nu - 2.0) / nu);
            r[i * T + t] = mu + e;
            h = om + a * e * e + b * h;
        }
    }
    const RaidGarchLikSpec s = {RAID_GARCH_LIK_EGARCH, RAID_GARCH_LIK_T, RAID_GARCH_LIK_MEAN_CONSTANT,
                                   RAID_GARCH_LIK_INIT_BACKCAST, RAID_GARCH_LIK_EZ_SQRT2PI};
    const double *rs[N - FIRST];
    size_t Ts[N - FIRST];
    for (size_t i = 0; i < N - FIRST; i++) {
        rs[i] = r + (FIRST + i) * T;
        Ts[i] = T;
    }
    RaidGarchBatchOut o[N - FIRST];
    fit(&s, N - FIRST, rs, Ts, NULL, NULL, o);
    int kinks = 0;
    for (size_t i = 0; i < N - FIRST; i++) {
        assert_int_equal(o[i].status, RAID_GARCH_CONVERGED);
        double g[6], th[6];
        raidGarchLikNll(&s, rs[i], T, o[i].theta, g);
        memcpy(th, o[i].theta, sizeof th);
        const double sd = 0.1; /* about the returns' */
        if (fabs(g[0]) * sd > 1e-7 * T) { /* on a kink: the one-sided derivatives bracket 0 */
            kinks++;
            th[0] = o[i].theta[0] - 1e-8 * sd;
            raidGarchLikNll(&s, rs[i], T, th, g);
            assert_true(g[0] < 0);
            th[0] = o[i].theta[0] + 1e-8 * sd;
            raidGarchLikNll(&s, rs[i], T, th, g);
            assert_true(g[0] > 0);
        }
        printf("# series %zu: %d iterations, mu %.8g, se %.4g\n", FIRST + i, o[i].iterations, o[i].theta[0],
               o[i].se_classic[0]);
        assert_true(o[i].se_classic[0] > 0.0015 && o[i].se_classic[0] < 0.004);
    }
    assert_int_equal(kinks, 3);
    free(r);
}

/* The same series times 1, 0.01 and 0.001: alpha, beta, gamma, nu equal to 1e-6, omega scaled by s^2
 * (EGARCH: shifted by (1 - beta) log s^2), mu by s, the log-likelihood shifted by -T log s, the standard
 * errors scaled as their parameters (1e-5). all_t: every t fit must converge (else a t fit on an edge, nu
 * running off to infinity or p to 1, is not compared: its estimates lie on a flat ridge). */
static void scale_check(const double *r, size_t T, int all_t)
{
    static const double sc[3] = {1, 0.01, 0.001};
    double *rs[3];
    for (size_t i = 0; i < 3; i++) {
        rs[i] = malloc(T * sizeof *rs[i]);
        assert_non_null(rs[i]);
        for (size_t t = 0; t < T; t++) rs[i][t] = r[t] * sc[i];
    }
    const size_t Ts[3] = {T, T, T};
    for (int m = 0; m < 3; m++) {
        for (int d = 0; d < 2; d++) {
            const RaidGarchLikSpec s = {(RaidGarchLikModel)m, (RaidGarchLikDist)d, RAID_GARCH_LIK_MEAN_CONSTANT,
                                           RAID_GARCH_LIK_INIT_BACKCAST, RAID_GARCH_LIK_EZ_SQRT2PI};
            const size_t k = raidGarchLikNpar(&s);
            RaidGarchBatchOut o[3];
            fit(&s, 3, (const double *const *)rs, Ts, NULL, NULL, o);
            const size_t ibe = m == 0 ? 3 : 4;
            for (size_t i = 0; i < 3; i++) {
                printf("# model %d dist %d scale %g: %s\n", m, d, sc[i], stname(o[i].status));
                assert_int_equal(o[i].status, o[0].status);
                if (d == 1 && !all_t && o[0].status == RAID_GARCH_BOUNDARY) continue;
                assert_int_equal(o[0].status, RAID_GARCH_CONVERGED);
                const double s2 = sc[i] * sc[i];
                assert_rel(o[i].theta[0], o[0].theta[0] * sc[i], 1e-6);
                if (m == 2)
                    assert_true(fabs(o[i].theta[1] - (o[0].theta[1] + (1 - o[0].theta[ibe]) * log(s2))) <=
                                1e-6 * fabs(o[i].theta[1]));
                else
                    assert_rel(o[i].theta[1], o[0].theta[1] * s2, 1e-6);
                for (size_t j = 2; j < k; j++) assert_rel(o[i].theta[j], o[0].theta[j], 1e-6);
                assert_rel(o[i].loglik, o[0].loglik - (double)T * log(sc[i]), 1e-9);
                assert_rel(o[i].se_robust[0], o[0].se_robust[0] * sc[i], 1e-5);
                if (m != 2) assert_rel(o[i].se_classic[1], o[0].se_classic[1] * s2, 1e-5);
                for (size_t j = 2; j < k; j++) assert_rel(o[i].se_classic[j], o[0].se_classic[j], 1e-5);
            }
        }
    }
    for (size_t i = 0; i < 3; i++) free(rs[i]);
}

static void test_scale(void **state)
{
    (void)state;
    size_t T;
    double *r = t_read_dem2gbp(&T);
    scale_check(r, T, 0); /* the t fits of GARCH and GJR reach p = 1 here */
    free(r);
    /* a simulated GARCH(1,1)-t series (omega 0.02, alpha 0.08, beta 0.9, nu 6, mu 0.03; T = 2,000), where
     * every t fit converges */
    enum { TS = 2000 };
    double *q = malloc(TS * sizeof *q), h = 1.0;
    lcg = 4242;
    assert_non_null(q);
    for (size_t t = 0; t < TS; t++) {
        double c = 0;
        const double z = normal();
        for (int j = 0; j < 6; j++) {
            const double x = normal();
            c += x * x;
        }
        const double e = sqrt(h) * z / sqrt(c / 6) * sqrt(4.0 / 6);
        q[t] = 0.03 + e;
        h = 0.02 + 0.08 * e * e + 0.9 * h;
    }
    scale_check(q, TS, 1);
    free(q);
}

/* A window warm-started from the full-sample estimates reaches the same optimum in fewer iterations. */
static void test_warm_start(void **state)
{
    (void)state;
    size_t T;
    double *r = t_read_dem2gbp(&T);
    for (int m = 0; m < 3; m++) {
        RaidGarchLikSpec s = FCP;
        s.model = (RaidGarchLikModel)m;
        s.init = RAID_GARCH_LIK_INIT_BACKCAST;
        const size_t k = raidGarchLikNpar(&s);
        RaidGarchBatchOut full, cold, hot;
        fit1(&s, r, T, NULL, &full);
        const double *w = r + 400;
        const size_t n = 1500;
        fit1(&s, w, n, NULL, &cold);
        fit(&s, 1, &w, &n, full.theta, NULL, &hot);
        printf("# model %d: cold %d iterations, warm %d\n", m, cold.iterations, hot.iterations);
        assert_int_equal(cold.status, RAID_GARCH_CONVERGED);
        assert_int_equal(hot.status, RAID_GARCH_CONVERGED);
        assert_true(hot.iterations < cold.iterations);
        for (size_t j = 0; j < k; j++) assert_true(fabs(hot.theta[j] - cold.theta[j]) <= 1e-6 * fmax(fabs(cold.theta[j]), 1e-2));
        assert_rel(hot.loglik, cold.loglik, 1e-12);
        /* a warm row with a NaN: the grid alone, as cold */
        double nanrow[RAID_GARCH_LIK_MAXPAR];
        memcpy(nanrow, full.theta, sizeof nanrow);
        nanrow[1] = NAN;
        fit(&s, 1, &w, &n, nanrow, NULL, &hot);
        assert_memory_equal(&hot, &cold, sizeof hot);
        /* warm-started at its own optimum: converged at once */
        fit(&s, 1, &w, &n, cold.theta, NULL, &hot);
        assert_int_equal(hot.status, RAID_GARCH_CONVERGED);
        assert_true(hot.iterations <= 2);
    }
    free(r);
}

/* A bulk phase stopped early (as a device's noisier scores stop it) is refined in float64 to the float64
 * optimum: the estimates equal the full cpu fit's to 1e-6 relative, the standard errors to 1e-3 (the
 * Hessian of the refinement's first point is kept unless Newton moved x by more than 1e-4: measured up
 * to 1.5e-4, 1e-5 from a bulk stopped at 1e-6). */
static void test_refinement(void **state)
{
    (void)state;
    size_t T;
    double *r = t_read_dem2gbp(&T);
    for (int m = 0; m < 3; m++) {
        RaidGarchLikSpec s = FCP;
        s.model = (RaidGarchLikModel)m;
        s.dist = m == 2 ? RAID_GARCH_LIK_T : RAID_GARCH_LIK_NORMAL; /* GARCH-t, GJR-t: on an edge here */
        const size_t k = raidGarchLikNpar(&s);
        RaidGarchBatchOut a, b;
        fit1(&s, r, T, NULL, &a);
        for (int e = 3; e <= 6; e++) {
            const RaidGarchBatchOpts o = {.bulk_gtol = pow(10, -e), .nls = 4};
            fit1(&s, r, T, &o, &b);
            printf("# model %d, bulk gtol 1e-%d: %s, %d iterations (full: %d)\n", m, e, stname(b.status),
                   b.iterations, a.iterations);
            assert_int_equal(b.status, RAID_GARCH_CONVERGED);
            for (size_t j = 0; j < k; j++) assert_rel(b.theta[j], a.theta[j], 1e-6);
            assert_rel(b.loglik, a.loglik, 1e-12);
            for (size_t j = 0; j < k; j++) {
                assert_rel(b.se_classic[j], a.se_classic[j], 1e-3);
                assert_rel(b.se_robust[j], a.se_robust[j], 1e-3);
            }
        }
    }
    free(r);
}

static void test_forecast(void **state)
{
    (void)state;
    const RaidGarchLikSpec g = {RAID_GARCH_LIK_GJR, RAID_GARCH_LIK_T, RAID_GARCH_LIK_MEAN_CONSTANT,
                                   RAID_GARCH_LIK_INIT_BACKCAST, RAID_GARCH_LIK_EZ_SQRT2PI};
    const double th[6] = {0.01, 0.05, 0.04, 0.1, 0.85, 6};
    double f[50];
    raidGarchForecast(&g, th, 2.0, 50, f);
    assert_true(f[0] == 2.0);
    assert_rel(f[1], 0.05 + 0.94 * 2.0, 1e-15);
    assert_rel(f[49], 0.05 / 0.06 + pow(0.94, 49) * (2.0 - 0.05 / 0.06), 1e-12); /* to the unconditional */
    RaidGarchLikSpec e = g;
    e.model = RAID_GARCH_LIK_EGARCH;
    e.ez = RAID_GARCH_LIK_EZ_DIST; /* kappa = E|z|: log h_{T+j} = omega + beta log h_{T+j-1} */
    const double te[6] = {0.01, -0.02, 0.1, -0.05, 0.97, 6};
    raidGarchForecast(&e, te, 1.5, 3, f);
    assert_rel(f[1], exp(-0.02 + 0.97 * log(1.5)), 1e-14);
    assert_rel(f[2], exp(-0.02 + 0.97 * log(f[1])), 1e-14);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fcp_benchmark), cmocka_unit_test(test_mixed_batch),
        cmocka_unit_test(test_iteration_limit), cmocka_unit_test(test_step_lengths),
        cmocka_unit_test(test_gjr_egarch),    cmocka_unit_test(test_boundary),
        cmocka_unit_test(test_at_start),      cmocka_unit_test(test_scale),
        cmocka_unit_test(test_warm_start),    cmocka_unit_test(test_refinement),
        cmocka_unit_test(test_forecast),      cmocka_unit_test(test_egarch_kinks),
        cmocka_unit_test(test_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
