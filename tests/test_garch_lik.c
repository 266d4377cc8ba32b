/* Tests of the float64 cpu path of the GARCH-family likelihood (src/models/garch_lik.c): the FCP
 * benchmark on data/dem2gbp.csv, the analytic score against central differences for every model, error
 * distribution, mean and starting variance, scale invariance, invalid parameters, and the per-observation
 * scores and end variances. */
#define _POSIX_C_SOURCE 200809L
#include "support.h"
#include "garch_util.h"
#include "models/garch_lik.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PI 3.14159265358979323846

/* ---------------------------------------------------------------------------------------------- */
/* helpers                                                                                          */

/* Three points inside the valid region of each family, away from its boundaries. */
static const named GARCH_POINTS[3] = {
    {-0.006, 0.0108, 0.153, 0.05, 0.806, 6.0},
    {0.02, 0.05, 0.05, 0.1, 0.85, 4.5},
    {-0.03, 0.2, 0.3, -0.1, 0.4, 12.0},
};
static const named EGARCH_POINTS[3] = {
    {-0.006, -0.05, 0.25, -0.05, 0.95, 6.0},
    {0.02, -0.3, 0.1, 0.1, 0.7, 4.5},
    {-0.03, 0.01, 0.4, -0.2, -0.3, 12.0},
};

/* ---------------------------------------------------------------------------------------------- */
/* tests                                                                                            */

static void test_digamma(void **state)
{
    (void)state;
    const double euler = 0.57721566490153286061;
    assert_true(fabs(raidGarchLikDigamma(1.0) + euler) < 1e-15);
    assert_true(fabs(raidGarchLikDigamma(0.5) - (-euler - 2.0 * log(2.0))) < 1e-15);
    /* psi(x + 1) = psi(x) + 1/x across the switch to the asymptotic series */
    for (double x = 0.3; x < 30.0; x += 0.7)
        assert_true(fabs(raidGarchLikDigamma(x + 1.0) - raidGarchLikDigamma(x) - 1.0 / x) <
                    1e-14 * (1.0 + fabs(raidGarchLikDigamma(x))));
}

/* (a) Fiorentini, Calzolari and Panattoni (1996) / McCullough and Renfro (1998): GARCH(1,1), Normal,
 * constant mean, sample start, at the published estimates. */
static void test_fcp_benchmark(void **state)
{
    (void)state;
    size_t T;
    double *r = t_read_dem2gbp(&T);
    const RaidGarchLikSpec s = {RAID_GARCH_LIK_GARCH, RAID_GARCH_LIK_NORMAL, RAID_GARCH_LIK_MEAN_CONSTANT,
                                   RAID_GARCH_LIK_INIT_SAMPLE, RAID_GARCH_LIK_EZ_SQRT2PI};
    const double th[4] = {-0.00619041, 0.0107613, 0.153134, 0.805974};
    double g[4];
    const double nll = raidGarchLikNll(&s, r, T, th, g);
    /* -1106.608 to the digits shown, with the constant -0.5 log(2 pi) per observation */
    assert_true(fabs(-nll - (-1106.608)) <= 0.0005);

    /* The score at the rounded estimates: to first order g = H delta, delta the rounding of each estimate
     * to 6 significant digits (at most half a unit in its last digit). So |g_j| <= sum_i |H_ji| delta_i,
     * H from central differences of the analytic score; asserted with a factor 2 for the second-order
     * terms and the benchmark's own convergence. */
    double H[4][4], delta[4];
    for (int i = 0; i < 4; i++) {
        delta[i] = 0.5 * pow(10.0, floor(log10(fabs(th[i]))) - 5.0);
        const double hstep = 1e-4 * fabs(th[i]);
        double tp[4], tm[4], gp[4], gm[4];
        memcpy(tp, th, sizeof tp);
        memcpy(tm, th, sizeof tm);
        tp[i] += hstep;
        tm[i] -= hstep;
        raidGarchLikNll(&s, r, T, tp, gp);
        raidGarchLikNll(&s, r, T, tm, gm);
        for (int j = 0; j < 4; j++) H[j][i] = (gp[j] - gm[j]) / (2.0 * hstep);
    }
    for (int j = 0; j < 4; j++) {
        double bound = 0.0;
        for (int i = 0; i < 4; i++) bound += fabs(H[j][i]) * delta[i];
        print_message("fcp: grad[%d] = %.3e, bound %.3e\n", j, g[j], 2.0 * bound);
        assert_true(fabs(g[j]) <= 2.0 * bound);
    }
    free(r);
}

/* (b) The analytic score against central differences. With the step h_j = 1e-5 s_j (s_j = max(|theta_j|,
 * 0.01)), the difference's rounding error is about u |f| / h_j = 2.2e-11 |f| / s_j and its truncation
 * error h_j^2 |f'''| / 6, about 1e-10 of the derivative's own scale |f| / s_j for these smooth functions;
 * we assert |fd - an| <= 1e-6 |an| + 1e-7 |f| / s_j, 4,500 times the rounding term. */
static void test_score_vs_differences(void **state)
{
    (void)state;
    size_t T;
    double *r = t_read_dem2gbp(&T);
    RaidGarchLikSpec specs[32];
    const size_t ns = all_specs(specs);
    assert_int_equal(ns, 28);
    double worst = 0.0;
    for (size_t si = 0; si < ns; si++) {
        const RaidGarchLikSpec *s = &specs[si];
        const named *pts = s->model == RAID_GARCH_LIK_EGARCH ? EGARCH_POINTS : GARCH_POINTS;
        for (int pi = 0; pi < 3; pi++) {
            double th[RAID_GARCH_LIK_MAXPAR], g[RAID_GARCH_LIK_MAXPAR];
            const size_t k = pack(s, &pts[pi], th);
            const double f = raidGarchLikNll(s, r, T, th, g);
            assert_true(isfinite(f));
            assert_true(f == raidGarchLikNll(s, r, T, th, NULL)); /* the score does not change the value */
            for (size_t j = 0; j < k; j++) {
                const double sj = fmax(fabs(th[j]), 0.01), h = 1e-5 * sj;
                double tp[RAID_GARCH_LIK_MAXPAR], tm[RAID_GARCH_LIK_MAXPAR];
                memcpy(tp, th, sizeof tp);
                memcpy(tm, th, sizeof tm);
                tp[j] += h;
                tm[j] -= h;
                const double fp = raidGarchLikNll(s, r, T, tp, NULL), fm = raidGarchLikNll(s, r, T, tm, NULL);
                assert_true(isfinite(fp) && isfinite(fm));
                const double fd = (fp - fm) / (2.0 * h);
                const double tol = 1e-6 * fabs(g[j]) + 1e-7 * fabs(f) / sj;
                if (fabs(fd - g[j]) > tol)
                    print_error("spec %zu (model %d dist %d mean %d init %d ez %d) point %d param %zu: analytic "
                                "%.10e, differences %.10e\n",
                                si, s->model, s->dist, s->mean, s->init, s->ez, pi, j, g[j], fd);
                assert_true(fabs(fd - g[j]) <= tol);
                worst = fmax(worst, fabs(fd - g[j]) / tol);
            }
        }
    }
    print_message("score vs differences: largest error %.3g of the tolerance\n", worst);
    free(r);
}

/* Per-observation scores (raidGarchLikScores, the same recursion) for every spec and point: the same
 * nll bit for bit; the scores sum to minus the gradient (to 1e-12 of the sum of their magnitudes, the
 * gradient's compensated sum against a plain one); h_{T+1} from h_T and the last return by the model's
 * recursion (to 1e-13). Invalid parameters: zeros and NaN. E|z|. */
static void test_scores(void **state)
{
    (void)state;
    size_t T;
    double *r = t_read_dem2gbp(&T);
    RaidGarchLikSpec specs[32];
    const size_t ns = all_specs(specs);
    double *S = malloc(T * RAID_GARCH_LIK_MAXPAR * sizeof *S);
    assert_non_null(S);
    for (size_t si = 0; si < ns; si++) {
        const RaidGarchLikSpec *s = &specs[si];
        const named *pts = s->model == RAID_GARCH_LIK_EGARCH ? EGARCH_POINTS : GARCH_POINTS;
        for (int pi = 0; pi < 3; pi++) {
            double th[RAID_GARCH_LIK_MAXPAR], g[RAID_GARCH_LIK_MAXPAR], h[2];
            const size_t k = pack(s, &pts[pi], th);
            const double f = raidGarchLikNll(s, r, T, th, g);
            assert_true(f == raidGarchLikScores(s, r, T, th, S, h));
            assert_true(f == raidGarchLikScores(s, r, T, th, NULL, NULL));
            for (size_t j = 0; j < k; j++) {
                double sum = 0, mag = 0;
                for (size_t t = 0; t < T; t++) {
                    sum += S[t * k + j];
                    mag += fabs(S[t * k + j]);
                }
                assert_true(fabs(sum + g[j]) <= 1e-12 * mag);
            }
            const double mu = s->mean == RAID_GARCH_LIK_MEAN_CONSTANT ? th[0] : 0.0;
            const size_t o = s->mean == RAID_GARCH_LIK_MEAN_CONSTANT;
            const double e = r[T - 1] - mu, omega = th[o], alpha = th[o + 1];
            const double gamma = s->model == RAID_GARCH_LIK_GARCH ? 0.0 : th[o + 2];
            const double beta = th[o + (s->model == RAID_GARCH_LIK_GARCH ? 2 : 3)];
            double want;
            if (s->model == RAID_GARCH_LIK_EGARCH) {
                const double z = e / sqrt(h[0]), nu = s->dist == RAID_GARCH_LIK_T ? th[k - 1] : 0.0;
                want = exp(omega + alpha * (fabs(z) - raidGarchLikKappa(s, nu)) + gamma * z + beta * log(h[0]));
            } else {
                want = omega + (alpha + (e < 0 ? gamma : 0.0)) * e * e + beta * h[0];
            }
            assert_true(h[0] > 0 && fabs(h[1] - want) <= 1e-13 * want);
        }
    }
    /* invalid: +inf, zero scores, NaN variances */
    const RaidGarchLikSpec *s = &specs[0];
    double th[RAID_GARCH_LIK_MAXPAR], h[2];
    const named bad = {0.0, -1.0, 0.1, 0.0, 0.8, 6.0};
    const size_t k = pack(s, &bad, th);
    for (size_t i = 0; i < T * k; i++) S[i] = 1.0;
    assert_true(isinf(raidGarchLikScores(s, r, T, th, S, h)));
    for (size_t i = 0; i < T * k; i++) assert_true(S[i] == 0.0);
    assert_true(isnan(h[0]) && isnan(h[1]));
    assert_true(fabs(raidGarchLikAbsMoment(RAID_GARCH_LIK_NORMAL, 0) - sqrt(2 / PI)) <= 1e-16);
    /* E|z| of the standardised t with nu = 3: sqrt(1) Gamma(1) / (sqrt(pi) Gamma(1.5)) = 2 / pi */
    assert_true(fabs(raidGarchLikAbsMoment(RAID_GARCH_LIK_T, 3.0) - 2 / PI) <= 1e-15);
    free(S);
    free(r);
}

/* (c) Returns times s give the log-likelihood shifted by -T log s at the scaled parameters (mu s,
 * omega s^2; EGARCH omega + (1 - beta) log s^2; alpha, gamma, beta, nu unchanged). Both starting
 * variances scale by s^2 exactly, so only rounding differs: asserted to 1e-11 of the sum's magnitude. */
static void test_scale_invariance(void **state)
{
    (void)state;
    size_t T;
    double *r = t_read_dem2gbp(&T);
    const double sc = 0.01;
    double *rs = malloc(T * sizeof *rs);
    assert_non_null(rs);
    for (size_t t = 0; t < T; t++) rs[t] = r[t] * sc;
    RaidGarchLikSpec specs[32];
    const size_t ns = all_specs(specs);
    for (size_t si = 0; si < ns; si++) {
        const RaidGarchLikSpec *s = &specs[si];
        const int eg = s->model == RAID_GARCH_LIK_EGARCH;
        for (int pi = 0; pi < 3; pi++) {
            named p = eg ? EGARCH_POINTS[pi] : GARCH_POINTS[pi];
            double th[RAID_GARCH_LIK_MAXPAR], ths[RAID_GARCH_LIK_MAXPAR];
            pack(s, &p, th);
            p.mu *= sc;
            p.omega = eg ? p.omega + (1.0 - p.beta) * log(sc * sc) : p.omega * sc * sc;
            pack(s, &p, ths);
            const double f = raidGarchLikNll(s, r, T, th, NULL);
            const double fs = raidGarchLikNll(s, rs, T, ths, NULL);
            const double shift = (double)T * log(sc); /* nll_s = nll + T log s */
            assert_true(isfinite(f) && isfinite(fs));
            assert_true(fabs(fs - (f + shift)) <= 1e-11 * (fabs(f) + fabs(shift)));
        }
    }
    free(rs);
    free(r);
}

static void expect_invalid(const RaidGarchLikSpec *s, const double *r, size_t T, const named *p)
{
    double th[RAID_GARCH_LIK_MAXPAR], g[RAID_GARCH_LIK_MAXPAR];
    const size_t k = pack(s, p, th);
    for (size_t j = 0; j < k; j++) g[j] = NAN;
    const double f = raidGarchLikNll(s, r, T, th, g);
    assert_true(isinf(f) && f > 0);
    for (size_t j = 0; j < k; j++) assert_true(g[j] == 0.0);
    assert_true(isinf(raidGarchLikNll(s, r, T, th, NULL)));
}

/* (d) Invalid parameters give +inf, a zero gradient and no NaN. */
static void test_invalid(void **state)
{
    (void)state;
    size_t T;
    double *r = t_read_dem2gbp(&T);
    const named ok = GARCH_POINTS[0], eok = EGARCH_POINTS[0];
    for (int d = 0; d < 2; d++)
        for (int m = 0; m < 2; m++) { /* GARCH, GJR */
            const RaidGarchLikSpec s = {(RaidGarchLikModel)m, (RaidGarchLikDist)d,
                                           RAID_GARCH_LIK_MEAN_CONSTANT, RAID_GARCH_LIK_INIT_BACKCAST,
                                           RAID_GARCH_LIK_EZ_SQRT2PI};
            named p;
            p = ok, p.omega = 0.0, expect_invalid(&s, r, T, &p);
            p = ok, p.omega = -1e-3, expect_invalid(&s, r, T, &p);
            p = ok, p.alpha = -1e-3, p.gamma = 0.1, expect_invalid(&s, r, T, &p);
            p = ok, p.beta = -1e-3, expect_invalid(&s, r, T, &p);
            p = ok, p.beta = 1.0 - p.alpha - 0.5 * (m ? p.gamma : 0.0), expect_invalid(&s, r, T, &p);
            p = ok, p.mu = NAN, expect_invalid(&s, r, T, &p);
            p = ok, p.omega = INFINITY, expect_invalid(&s, r, T, &p);
            p = ok, p.beta = NAN, expect_invalid(&s, r, T, &p);
            if (m == RAID_GARCH_LIK_GJR) {
                p = ok, p.alpha = 0.05, p.gamma = -0.06, expect_invalid(&s, r, T, &p); /* alpha + gamma < 0 */
                p = ok, p.gamma = NAN, expect_invalid(&s, r, T, &p);
            }
            if (d == RAID_GARCH_LIK_T) {
                p = ok, p.nu = 2.0, expect_invalid(&s, r, T, &p);
                p = ok, p.nu = 1.0, expect_invalid(&s, r, T, &p);
                p = ok, p.nu = NAN, expect_invalid(&s, r, T, &p);
            }
        }
    for (int d = 0; d < 2; d++) {
        const RaidGarchLikSpec s = {RAID_GARCH_LIK_EGARCH, (RaidGarchLikDist)d, RAID_GARCH_LIK_MEAN_CONSTANT,
                                       RAID_GARCH_LIK_INIT_BACKCAST, RAID_GARCH_LIK_EZ_DIST};
        named p;
        p = eok, p.beta = 1.0, expect_invalid(&s, r, T, &p);
        p = eok, p.beta = -1.0, expect_invalid(&s, r, T, &p);
        p = eok, p.omega = 800.0, p.beta = 0.0, expect_invalid(&s, r, T, &p); /* sigma^2 overflows */
        p = eok, p.alpha = INFINITY, expect_invalid(&s, r, T, &p);
        if (d == RAID_GARCH_LIK_T) p = eok, p.nu = 2.0, expect_invalid(&s, r, T, &p);
    }
    /* a zero starting variance: a constant series at mu equal to it (EGARCH takes its log) */
    const double flat[5] = {0.5, 0.5, 0.5, 0.5, 0.5};
    const RaidGarchLikSpec se = {RAID_GARCH_LIK_EGARCH, RAID_GARCH_LIK_NORMAL, RAID_GARCH_LIK_MEAN_CONSTANT,
                                    RAID_GARCH_LIK_INIT_SAMPLE, RAID_GARCH_LIK_EZ_SQRT2PI};
    named p = eok;
    p.mu = 0.5;
    expect_invalid(&se, flat, 5, &p);
    free(r);
}

/* EGARCH-t on two observations, written out by hand, under both E|z| conventions: backcast start
 * v0 = (b_0^2 + 0.94 b_1^2) / 1.94 with b_i = r_i - rbar (about the sample mean, held fixed as arch's
 * fit holds it), log sigma^2_0 = omega + beta log v0 (no alpha or gamma term before
 * the first observation, as in arch), log sigma^2_1 = omega + alpha (|z_0| - kappa) + gamma z_0 +
 * beta log sigma^2_0, and the standardised t density. */
static void test_egarch_by_hand(void **state)
{
    (void)state;
    const double r[2] = {0.7, -1.3};
    const named p = {0.1, -0.2, 0.3, -0.15, 0.8, 5.0};
    const double nu = p.nu;
    const double kd = sqrt(nu - 2.0) * exp(lgamma(0.5 * (nu - 1.0)) - lgamma(0.5 * nu)) / sqrt(PI);
    for (int ez = 0; ez < 2; ez++) {
        const RaidGarchLikSpec s = {RAID_GARCH_LIK_EGARCH, RAID_GARCH_LIK_T, RAID_GARCH_LIK_MEAN_CONSTANT,
                                       RAID_GARCH_LIK_INIT_BACKCAST, (RaidGarchLikEz)ez};
        const double kappa = ez == RAID_GARCH_LIK_EZ_DIST ? kd : sqrt(2.0 / PI);
        const double e0 = r[0] - p.mu, e1 = r[1] - p.mu;
        const double rbar = 0.5 * (r[0] + r[1]), b0 = r[0] - rbar, b1 = r[1] - rbar; /* fixed backcast */
        const double v0 = (b0 * b0 + 0.94 * b1 * b1) / 1.94;
        const double g0 = p.omega + p.beta * log(v0);
        const double z0 = e0 / exp(0.5 * g0);
        const double g1 = p.omega + p.alpha * (fabs(z0) - kappa) + p.gamma * z0 + p.beta * g0;
        const double c = lgamma(0.5 * (nu + 1.0)) - lgamma(0.5 * nu) - 0.5 * log(PI * (nu - 2.0));
        const double l0 = c - 0.5 * g0 - 0.5 * (nu + 1.0) * log(1.0 + e0 * e0 / ((nu - 2.0) * exp(g0)));
        const double l1 = c - 0.5 * g1 - 0.5 * (nu + 1.0) * log(1.0 + e1 * e1 / ((nu - 2.0) * exp(g1)));
        double th[RAID_GARCH_LIK_MAXPAR];
        pack(&s, &p, th);
        const double f = raidGarchLikNll(&s, r, 2, th, NULL);
        assert_true(fabs(f - (-(l0 + l1))) <= 1e-14 * fabs(l0 + l1) + 1e-15);
    }
    /* the t's own E|z| lies below the Normal's and tends to it as nu grows */
    assert_true(kd < sqrt(2.0 / PI));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_digamma),          cmocka_unit_test(test_fcp_benchmark),
        cmocka_unit_test(test_score_vs_differences), cmocka_unit_test(test_scale_invariance),
        cmocka_unit_test(test_invalid),          cmocka_unit_test(test_egarch_by_hand),
        cmocka_unit_test(test_scores),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
