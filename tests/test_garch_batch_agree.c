/* The device path's guarantee (docs/garch.md "The device path's guarantee") on short simulated series, the
 * hard case: 300 series of 100 to 250 returns, simulated from GARCH, GJR and EGARCH with Normal and t errors
 * and varied parameters, units and means, fitted with each of GARCH, GJR and EGARCH, Normal and t (constant
 * mean, backcast start), on the float64 cpu evaluator and on the device (PoCL here). Asserted, for every
 * series and spec:
 *   - the device fit has the cpu fit's status, and its log-likelihood within 1e-6 of the cpu's;
 *   - a series' device result does not depend on the batch it is in: every fifth series fitted as a batch
 *     of their own, in reverse order, and three series fitted alone give the full batch's results bit for
 *     bit (status, estimates, standard errors, log-likelihood, iterations, h_T, h_{T+1});
 *   - no GJR fit ends below the GARCH fit of its series (docs/garch.md "Starts"), on either path.
 * Before the guarantee, on these series the device ended with another status or a log-likelihood more than
 * 1e-6 away in 14 (GARCH Normal), 76 (GARCH-t), 59 (GJR Normal), 126 (GJR-t), 135 (EGARCH Normal) and 164
 * (EGARCH-t) fits of 300, by up to 4.9, GJR fits up to 1.9e-5 below their GARCH fits, and fits alone or in
 * the smaller batch differed from fits in the full batch. Under the sanitizers (RAID_SANITIZE) the test fits
 * the first 60 series only (the 300 take 42 s there, 3 times the 13 s without them, on the 2-core
 * development machine; the 60, 6.5 s): every mechanism tested (the device's kept fits, the refits on the cpu path, the smaller batch,
 * the fits alone) is met in the first 60. Skipped without OpenCL. */
#define _POSIX_C_SOURCE 200809L
#include "support.h"
#include "models/garch_batch.h"
#include "garch_compare.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef __SANITIZE_ADDRESS__ /* GCC, under -fsanitize=address (RAID_SANITIZE) */
enum { NSER = 60 };
#else
enum { NSER = 300 };
#endif

static double gauss(uint64_t *st)
{
    const double u1 = fmax(t_unif(st), 1e-300), u2 = t_unif(st);
    return sqrt(-2 * log(u1)) * cos(6.283185307179586 * u2);
}

/* Series i: T in [100, 250); the model i % 3 (GARCH, GJR, EGARCH), t errors (nu 4 to 11) for odd i / 3;
 * persistence 0.5 to 0.99, alpha 0.02 to 0.2 of it, GJR's gamma 0 to 0.2; returns in units of 0.01 to 100
 * and a mean of -0.06 to 0.14 of that unit. 200 returns of burn-in. */
static double *simulate(size_t i, size_t *Tout)
{
    uint64_t st = 0x5eedULL + 7919ULL * i;
    const size_t T = 100 + (size_t)(150 * t_unif(&st));
    const int model = (int)(i % 3), tdist = (int)((i / 3) % 2);
    const double unit = exp(log(0.01) + t_unif(&st) * log(1e4)), mu = (t_unif(&st) - 0.3) * 0.2 * unit;
    const double pers = 0.5 + 0.49 * t_unif(&st), a = (0.02 + 0.18 * t_unif(&st)) * pers;
    const double ga = model == 1 ? 0.2 * t_unif(&st) : 0, be = fmax(0, pers - a - ga / 2);
    const int nu = 4 + (int)(8 * t_unif(&st));
    double *r = malloc(T * sizeof *r);
    assert_non_null(r);
    double h = 1, lh = 0, z = 0;
    for (long t = -200; t < (long)T; t++) {
        if (model == 2) {
            lh = 0.15 * (fabs(z) - 0.7979) - 0.08 * z + pers * lh;
            h = exp(lh);
        } else {
            h = (1 - pers) + (a + (z < 0 ? ga : 0)) * z * z * h + be * h;
        }
        z = gauss(&st);
        if (tdist) {
            double c = 0;
            for (int j = 0; j < nu; j++) {
                const double g = gauss(&st);
                c += g * g;
            }
            z = z / sqrt(c / nu) * sqrt((nu - 2.0) / nu);
        }
        if (t >= 0) r[t] = mu + unit * sqrt(h) * z;
    }
    *Tout = T;
    return r;
}

static const char *stname(raid_garch_status s)
{
    static const char *const names[] = {"converged", "iteration limit", "boundary",   "no progress",    "at start",
                                        "too short", "constant",        "non-finite", "no valid start", "out of range"};
    return (unsigned)s < 10 ? names[s] : "?";
}

/* Limits below the defaults (500 iterations, 100 on the device) to keep the test's time (EGARCH fits that
 * wander to the limit cost the most); the device's limit stays below max_iter, as by default, so that fits
 * stopped by it are refitted by the cpu path with more iterations. Two step lengths per device call
 * instead of 4: PoCL evaluates the points no faster than the cpu does, and the iterates do not depend on
 * it (test_garch_batch.c, "step lengths per call"). */
static const RaidGarchBatchOpts OPTS = {.max_iter = 150, .nls = 2, .dev_max_iter = 50},
                                  CPU_OPTS = {.max_iter = 150};

static double *R[NSER];
static size_t TS[NSER];
/* log-likelihoods [model][dist][path: 0 cpu, 1 device][series] for the nested check */
static double LL[3][2][2][NSER];

static void fit_spec(raid_ctx *dev, RaidGarchLikModel model, RaidGarchLikDist dist)
{
    const RaidGarchLikSpec s = {model, dist, RAID_GARCH_LIK_MEAN_CONSTANT, RAID_GARCH_LIK_INIT_BACKCAST,
                                   RAID_GARCH_LIK_EZ_SQRT2PI};
    const size_t k = raidGarchLikNpar(&s), n = NSER;
    const double *const *r = (const double *const *)R;
    RaidGarchBatchOut *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c);
    assert_true(a && b && c);
    double tw[4];
    tw[0] = raidNow();
    assert_int_equal(raidGarchBatchFit(NULL, &s, n, r, TS, NULL, &CPU_OPTS, a), RAID_OK);
    tw[1] = raidNow();
    assert_int_equal(raidGarchBatchFit(dev, &s, n, r, TS, NULL, &OPTS, b), RAID_OK);
    tw[2] = raidNow();
    size_t bad = 0, nst[10] = {0};
    double worst = 0;
    for (size_t i = 0; i < n; i++) {
        nst[a[i].status]++;
        LL[model][dist][0][i] = a[i].loglik;
        LL[model][dist][1][i] = b[i].loglik;
        const double d = fabs(b[i].loglik - a[i].loglik);
        const int ok = b[i].status == a[i].status &&
                       (isnan(a[i].loglik) ? isnan(b[i].loglik) : d <= 1e-6);
        if (isfinite(d)) worst = fmax(worst, d);
        if (!ok) {
            printf("# model %d dist %d series %zu (T %zu): cpu %s %.10f, device %s %.10f\n", (int)model, (int)dist, i, TS[i],
                   stname(a[i].status), a[i].loglik, stname(b[i].status), b[i].loglik);
            bad++;
        }
    }
    printf("# model %d dist %d: cpu statuses converged %zu, boundary %zu, iteration limit %zu, no progress %zu, at start "
           "%zu; device: %zu differ, largest log-likelihood difference %.3g\n",
           (int)model, (int)dist, nst[RAID_GARCH_CONVERGED], nst[RAID_GARCH_BOUNDARY], nst[RAID_GARCH_MAXITER],
           nst[RAID_GARCH_NO_PROGRESS], nst[RAID_GARCH_AT_START], bad, worst);
    /* every fifth series (i = 5j + 1) as a batch of their own, in reverse order */
    size_t m = 0, at[NSER / 5 + 1];
    const double *rr[NSER / 5 + 1];
    size_t TT[NSER / 5 + 1];
    for (size_t i = n; i-- > 0;)
        if (i % 5 == 1) {
            at[m] = i;
            rr[m] = R[i];
            TT[m++] = TS[i];
        }
    assert_int_equal(raidGarchBatchFit(dev, &s, m, rr, TT, NULL, &OPTS, c), RAID_OK);
    tw[3] = raidNow();
    size_t differ = 0;
    for (size_t j = 0; j < m; j++)
        if (!garch_same_bits(&c[j], &b[at[j]], k)) {
            printf("# model %d dist %d series %zu: %s %.17g in the batch, %s %.17g in the smaller batch\n", (int)model,
                   (int)dist, at[j], stname(b[at[j]].status), b[at[j]].loglik, stname(c[j].status), c[j].loglik);
            differ++;
        }
    /* three alone */
    for (size_t i = 0; i < n; i += NSER / 3 + 1) {
        RaidGarchBatchOut o;
        assert_int_equal(raidGarchBatchFit(dev, &s, 1, &r[i], &TS[i], NULL, &OPTS, &o), RAID_OK);
        if (!garch_same_bits(&o, &b[i], k)) {
            printf("# model %d dist %d series %zu: %s %.17g in the batch, %s %.17g alone\n", (int)model, (int)dist, i,
                   stname(b[i].status), b[i].loglik, stname(o.status), o.loglik);
            differ++;
        }
    }
    printf("# wall: cpu %.2f s, device %.2f s, smaller batch %.2f s, alone %.2f s\n", tw[1] - tw[0], tw[2] - tw[1],
           tw[3] - tw[2], raidNow() - tw[3]);
    free(a), free(b), free(c);
    assert_int_equal(bad, 0);
    assert_int_equal(differ, 0);
}

static raid_ctx *open_dev(void)
{
    if (!t_have_opencl()) return NULL;
    return t_open_ctx(t_device());
}

#define SPEC_TEST(name, model, dist)                                                                                   \
    static void name(void **state)                                                                                     \
    {                                                                                                                  \
        raid_ctx *dev = *state;                                                                                        \
        if (!dev) skip();                                                                                              \
        fit_spec(dev, model, dist);                                                                                    \
    }
SPEC_TEST(test_garch_normal, RAID_GARCH_LIK_GARCH, RAID_GARCH_LIK_NORMAL)
SPEC_TEST(test_garch_t, RAID_GARCH_LIK_GARCH, RAID_GARCH_LIK_T)
SPEC_TEST(test_gjr_normal, RAID_GARCH_LIK_GJR, RAID_GARCH_LIK_NORMAL)
SPEC_TEST(test_gjr_t, RAID_GARCH_LIK_GJR, RAID_GARCH_LIK_T)
SPEC_TEST(test_egarch_normal, RAID_GARCH_LIK_EGARCH, RAID_GARCH_LIK_NORMAL)
SPEC_TEST(test_egarch_t, RAID_GARCH_LIK_EGARCH, RAID_GARCH_LIK_T)

/* GJR nests GARCH (gamma = 0): no GJR fit below its series' GARCH fit, on either path (after the four
 * tests above), beyond the rounding the optimiser accepts: a step that changes f by less than 1e-13 |f| is
 * taken when its gradient is smaller (docs/garch.md "The lock-step iteration"), so a GJR fit started at the
 * GARCH optimum can end a few units in the last place below it (measured 2 ulp on the cpu path: -11.888094565211237
 * against -11.888094565211235). 1e-12 of |loglik| is asserted; before the device path's guarantee the
 * device's GJR fits ended up to 1.9e-5 below. */
static void test_nested(void **state)
{
    if (!*state) skip();
    size_t below = 0;
    double worst = 0;
    for (int d = 0; d < 2; d++)
        for (int p = 0; p < 2; p++)
            for (size_t i = 0; i < NSER; i++) {
                const double g = LL[RAID_GARCH_LIK_GARCH][d][p][i], j = LL[RAID_GARCH_LIK_GJR][d][p][i];
                if (isnan(g)) continue;
                worst = fmin(worst, j - g);
                if (!(j >= g - 1e-12 * fabs(g))) {
                    printf("# dist %d %s series %zu: GJR %.17g below GARCH %.17g\n", d, p ? "device" : "cpu", i, j, g);
                    below++;
                }
            }
    printf("# GJR - GARCH log-likelihood: smallest %.3g\n", worst);
    /* not promised (docs/garch.md "The device path's guarantee"), printed: t fits below the Normal fit */
    for (int m = 0; m < 3; m++) {
        size_t tb = 0;
        double tw = 0;
        for (size_t i = 0; i < NSER; i++) {
            const double dn = LL[m][RAID_GARCH_LIK_T][0][i] - LL[m][RAID_GARCH_LIK_NORMAL][0][i];
            tb += dn < -1e-6;
            tw = fmin(tw, isnan(dn) ? 0 : dn);
        }
        printf("# model %d: %zu t fits more than 1e-6 below the Normal fit (cpu; smallest difference %.3g)\n", m, tb, tw);
    }
    assert_int_equal(below, 0);
}

static int setup(void **state)
{
    for (size_t i = 0; i < NSER; i++) R[i] = simulate(i, &TS[i]);
    *state = open_dev();
    return 0;
}

static int teardown(void **state)
{
    for (size_t i = 0; i < NSER; i++) free(R[i]);
    if (*state) raid_ctx_destroy(*state);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_garch_normal), cmocka_unit_test(test_garch_t),    cmocka_unit_test(test_gjr_normal),
        cmocka_unit_test(test_gjr_t),        cmocka_unit_test(test_egarch_normal), cmocka_unit_test(test_egarch_t),
        cmocka_unit_test(test_nested),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
