/* Tests of the batched GARCH evaluator (src/models/garch_eval.{c,h}): the device path (kernels/garch.cl,
 * src/models/garch_eval_cl.c) against the float64 cpu path within the bound of docs/garch.md ("The device
 * path and its bound"), on dem2gbp and the SPY daily returns, for every spec, at many points (near the
 * stationarity boundary too), on scaled series; invalid points; determinism; a batch of several series of
 * different lengths. One device context for the whole file (PoCL's cold kernel builds are slow). */
#define _POSIX_C_SOURCE 200809L
#include "support.h"
#include "garch_util.h"
#include "models/garch_eval.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static raid_ctx *g_ctx;
static double *g_dem, *g_spy;
static size_t g_Tdem, g_Tspy;

/* SPY daily close-to-close log returns in percent (data/spy_realized_measures.csv, CLOSE). */
static double *read_spy(size_t *T)
{
    FILE *f = fopen(RAID_DATA_DIR "/spy_realized_measures.csv", "r");
    assert_non_null(f);
    char line[1024];
    assert_non_null(fgets(line, sizeof line, f));
    int col = -1, c = 0;
    for (char *tok = strtok(line, ",\n"); tok; tok = strtok(NULL, ",\n"), c++)
        if (strcmp(tok, "CLOSE") == 0) col = c;
    assert_true(col >= 0);
    size_t n = 0, cap = 2048;
    double *px = malloc(cap * sizeof *px);
    assert_non_null(px);
    while (fgets(line, sizeof line, f)) {
        char *p = line;
        for (int i = 0; i < col; i++) {
            p = strchr(p, ',');
            assert_non_null(p);
            p++;
        }
        if (n == cap) {
            cap *= 2;
            px = realloc(px, cap * sizeof *px);
            assert_non_null(px);
        }
        px[n++] = strtod(p, NULL);
    }
    fclose(f);
    assert_true(n > 1000);
    for (size_t i = 0; i + 1 < n; i++) px[i] = 100.0 * log(px[i + 1] / px[i]);
    *T = n - 1;
    return px;
}

static int setup(void **state)
{
    (void)state;
    g_dem = t_read_dem2gbp(&g_Tdem);
    g_spy = read_spy(&g_Tspy);
    if (t_have_opencl()) g_ctx = t_open_ctx(t_device());
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    raid_ctx_destroy(g_ctx);
    free(g_dem);
    free(g_spy);
    return 0;
}

static uint64_t rng = 0x9e3779b97f4a7c15ULL;
static double urand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)(rng >> 11) * 0x1p-53;
}

/* A point of spec's family for a series of variance var (the unit of omega) and mean m: persistence p,
 * alpha share a; EGARCH beta = p. */
static named point_for(const raid_garch_lik_spec *s, double var, double m, double p, double a, double nu)
{
    named q;
    q.mu = m + 0.1 * sqrt(var) * (urand() - 0.5);
    q.nu = nu;
    if (s->model == RAID_GARCH_LIK_EGARCH) {
        q.beta = p;
        q.alpha = 2.0 * a;
        q.gamma = -0.5 * a * (urand() - 0.3);
        q.omega = (1.0 - p) * log(var) + 0.01 * (urand() - 0.5);
    } else {
        q.gamma = s->model == RAID_GARCH_LIK_GJR ? a * (urand() + 0.2) : 0.0;
        q.alpha = a;
        q.beta = p - a - 0.5 * q.gamma;
        q.omega = var * (1.0 - p) * (0.5 + urand());
    }
    return q;
}

/* The bound of docs/garch.md on |nll_dev - nll_cpu| and on each |grad_dev_j - grad_cpu_j|: see there. */
static double g_worst_nll, g_worst_grad; /* largest ratio to the bound seen */

static void compare(const raid_garch_lik_spec *spec, size_t nser, const double *const *r, const size_t *T,
                    size_t npts, const size_t *ser, const double *th, const char *what)
{
    const size_t k = raid_garch_lik_npar(spec);
    double *nc = malloc(npts * sizeof *nc), *nd = malloc(npts * sizeof *nd);
    double *gc = malloc(npts * k * sizeof *gc), *gd = malloc(npts * k * sizeof *gd);
    assert_true(nc && nd && gc && gd);
    raid_garch_eval *ec, *ed;
    assert_int_equal(raid_garch_eval_create(NULL, spec, nser, r, T, &ec), RAID_OK);
    if (raid_garch_eval_create(g_ctx, spec, nser, r, T, &ed) != RAID_OK)
        fail_msg("device evaluator: %s", raid_ctx_errmsg(g_ctx));
    assert_true(raid_garch_eval_on_device(ed));
    assert_int_equal(raid_garch_eval_run(ec, npts, ser, th, nc, gc), RAID_OK);
    if (raid_garch_eval_run(ed, npts, ser, th, nd, gd) != RAID_OK)
        fail_msg("device run: %s", raid_ctx_errmsg(g_ctx));
    double wn = 0, wg = 0;
    for (size_t p = 0; p < npts; p++) {
        if (isinf(nc[p])) {
            assert_true(isinf(nd[p]) && nd[p] > 0);
            for (size_t j = 0; j < k; j++) assert_true(gd[p * k + j] == 0.0);
            continue;
        }
        const double rel = fabs(nd[p] - nc[p]) / (double)T[ser[p]];
        if (rel > wn) wn = rel;
        for (size_t j = 0; j < k; j++) {
            const double gr = fabs(gd[p * k + j] - gc[p * k + j]) / ((double)T[ser[p]] * (1.0 + fabs(gc[p*k+j])/ (double)T[ser[p]]));
            if (gr > wg) wg = gr;
        }
    }
    printf("# %-28s model %d dist %d mean %d init %d ez %d: nll |d|/T %.3g, grad %.3g\n", what, spec->model,
           spec->dist, spec->mean, spec->init, spec->ez, wn, wg);
    if (wn > g_worst_nll) g_worst_nll = wn;
    if (wg > g_worst_grad) g_worst_grad = wg;
    raid_garch_eval_destroy(ec);
    raid_garch_eval_destroy(ed);
    free(nc);
    free(nd);
    free(gc);
    free(gd);
}

static void test_all_specs_real_data(void **state)
{
    (void)state;
    if (!g_ctx) skip();
    raid_garch_lik_spec specs[32];
    const size_t ns = all_specs(specs);
    const double *r[2] = {g_dem, g_spy};
    const size_t T[2] = {g_Tdem, g_Tspy};
    double var[2], mean[2];
    for (int i = 0; i < 2; i++) {
        long double s1 = 0, s2 = 0;
        for (size_t t = 0; t < T[i]; t++) s1 += r[i][t];
        mean[i] = (double)(s1 / T[i]);
        for (size_t t = 0; t < T[i]; t++) s2 += (r[i][t] - mean[i]) * (r[i][t] - mean[i]);
        var[i] = (double)(s2 / T[i]);
    }
    const double pers[] = {0.5, 0.9, 0.97, 0.99, 0.999};
    const double alph[] = {0.02, 0.08, 0.2};
    const double nus[] = {2.5, 5.0, 30.0};
    for (size_t si = 0; si < ns; si++) {
        const raid_garch_lik_spec *s = &specs[si];
        const size_t k = raid_garch_lik_npar(s);
        size_t npts = 0, ser[120];
        double th[120 * 6];
        for (int i = 0; i < 2; i++)
            for (int a = 0; a < 5; a++)
                for (int b = 0; b < 3; b++)
                    for (int c = 0; c < 3; c += 1 + (s->dist == RAID_GARCH_LIK_NORMAL)) {
                        named q = point_for(s, var[i], mean[i], pers[a], alph[b], nus[c]);
                        ser[npts] = (size_t)i;
                        pack(s, &q, th + npts * k);
                        npts++;
                    }
        compare(s, 2, r, T, npts, ser, th, "dem2gbp+spy");
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_all_specs_real_data),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
