/* Tests of the batched GARCH evaluator (src/models/garch_eval.{c,h}): the device path (kernels/garch.cl,
 * src/models/garch_eval_device.c) against the float64 cpu path within the bound of docs/garch.md ("The device
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
static named point_for(const RaidGarchLikSpec *s, double var, double m, double p, double a, double nu)
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

/* The bound of docs/garch.md ("The device path and its bound") on |nll_dev - nll_cpu| and on each
 * |grad_dev_j - grad_cpu_j| at one point, in units of eps = u^2 = 2^-48, computed along a float64 replica
 * of the state recursion in the scaled units of the device path (s as garch_eval_device.c chooses it):
 *   GARCH/GJR: R_t = sum_i beta^i m_{t-i} / h_t, m_t = h_t + a |e_{t-1}| (|r_{t-1}| + |mu|) (the state's
 *     relative error is at most 16 R_t eps), rho_t = |e_t| (|r_t| + |mu|) / h_t (the residual's rounding),
 *     X_t = 16 R_t + 8 rho_t + 32;
 *   EGARCH: E_t = f_t E_{t-1} + k_t, f_t = |beta - (alpha |z_{t-1}| + gamma z_{t-1}) / 2| (the
 *     linearised map of the log-variance's error), k_t = 16 (|omega| + |alpha| (|z| + kappa) + |gamma z| +
 *     |beta g|) + (|alpha| + |gamma|) (160 |z_{t-1}| + 4 w (|r| + |mu|)) (160 eps > raidDfExp's
 *     128 eps plus the products), X_t = E_t + 160;
 *   nll:  W sum_t (1 + z_t^2) X_t + 3 sum_t P_t, P_t = sum_{tau <= t} (1 + |log h_tau| + z_tau^2) (the
 *         double-float sums lose 3 eps of their running value per step), W = 1 (Normal) or (nu + 3)/2;
 *   grad: the same with the derivative states' magnitudes D_tj (their recursions in absolute values),
 *         W sum_t |dl/ds_t| D_tj 2 X_t (+ the residual's part for mu, + the nu part), plus 3 eps of the
 *         running sums, then un-scaled as the host does.
 * Plus the float64 combine's and the cpu path's own rounding, 1e-15 (|nll| + T (1 + |log s^2|)). */
typedef struct bound {
    double nll, grad[RAID_GARCH_LIK_MAXPAR];
} bound;

static bound bound_at(const RaidGarchLikSpec *sp, const double *r, size_t T, const double *th, double nll)
{
    const RaidGarchLikLayout l = raidGarchLikLayoutOf(sp);
    const size_t k = (size_t)l.k;
    const double eps = 0x1p-48;
    long double s1 = 0, s2 = 0, q2 = 0;
    for (size_t t = 0; t < T; t++) s1 += r[t];
    const double rbar = (double)(s1 / T);
    for (size_t t = 0; t < T; t++) {
        s2 += (r[t] - rbar) * (long double)(r[t] - rbar);
        q2 += r[t] * (long double)r[t];
    }
    const double s = sqrt((double)((l.mu >= 0 ? s2 : q2) / T)), L = 2.0 * log(s);
    bound b = {0, {0}};
    if (!(s > 0)) return b; /* the device path leaves the series to the cpu path: equal */
    const double mu = l.mu >= 0 ? th[l.mu] : 0.0, alpha = th[l.alpha], beta = th[l.beta];
    const double gamma = l.gamma >= 0 ? th[l.gamma] : 0.0, nu = l.nu >= 0 ? th[l.nu] : 0.0;
    const int eg = sp->model == RAID_GARCH_LIK_EGARCH;
    const double omega = eg ? th[l.omega] - (1.0 - beta) * L : th[l.omega] / (s * s), mus = mu / s;
    double v0, dv0 = 0.0;
    if (sp->init == RAID_GARCH_LIK_INIT_BACKCAST) {
        v0 = raidGarchLikBackcast(sp, r, T);
    } else {
        v0 = (double)(s2 / T) + (rbar - mu) * (rbar - mu);
        dv0 = -2.0 * (rbar - mu);
    }
    v0 /= s * s;
    dv0 /= s;
    double c, dc, kappa, dkappa;
    raidGarchLikConsts(sp, nu, &c, &dc, &kappa, &dkappa);
    const double W = l.nu >= 0 ? 0.5 * (nu + 3.0) : 1.0;
    const double Wnu = 1.0 + (nu + 1.0) / (nu - 2.0);
    double D[RAID_GARCH_LIK_MAXPAR] = {0}, acc[RAID_GARCH_LIK_MAXPAR] = {0}, run[RAID_GARCH_LIK_MAXPAR] = {0};
    double st, M = 0, E = 0;
    if (eg) {
        st = omega + beta * log(v0);
        D[l.omega] = 1;
        D[l.beta] = fabs(log(v0));
        if (l.mu >= 0) D[l.mu] = fabs(beta * dv0 / v0);
        E = 16.0 * (fabs(omega) + fabs(beta * log(v0))) + 2.0;
    } else {
        const double p = alpha + 0.5 * gamma + beta;
        st = omega + p * v0;
        D[l.omega] = 1;
        D[l.alpha] = v0;
        if (l.gamma >= 0) D[l.gamma] = 0.5 * v0;
        D[l.beta] = v0;
        if (l.mu >= 0) D[l.mu] = fabs(p * dv0);
        M = st;
    }
    double bn = 0, runn = 0, accn = 0, e_prev = 0, r_prev = 0, z_prev = 0, w_prev = 0;
    for (size_t t = 0; t < T; t++) {
        if (t > 0) {
            if (eg) {
                const double sg = alpha * (z_prev < 0 ? -1.0 : 1.0) + gamma;
                const double f = fabs(beta - 0.5 * sg * z_prev);
                E = f * E + 16.0 * (fabs(omega) + fabs(alpha) * (fabs(z_prev) + kappa) + fabs(gamma * z_prev) +
                                    fabs(beta * st)) +
                    (fabs(alpha) + fabs(gamma)) * (160.0 * fabs(z_prev) + 4.0 * w_prev * (fabs(r_prev) + fabs(mus)));
                for (size_t j = 0; j < k; j++) D[j] *= f;
                D[l.omega] += 1;
                D[l.alpha] += fabs(fabs(z_prev) - kappa);
                D[l.gamma] += fabs(z_prev);
                D[l.beta] += fabs(st);
                if (l.nu >= 0) D[l.nu] += fabs(alpha * dkappa);
                if (l.mu >= 0) D[l.mu] += fabs(sg) * w_prev;
                st = omega + alpha * (fabs(z_prev) - kappa) + gamma * z_prev + beta * st;
            } else {
                const double a = alpha + (e_prev < 0 ? gamma : 0.0), e2 = e_prev * e_prev;
                for (size_t j = 0; j < k; j++) D[j] *= beta;
                D[l.omega] += 1;
                D[l.alpha] += e2;
                if (l.gamma >= 0 && e_prev < 0) D[l.gamma] += e2;
                D[l.beta] += st;
                if (l.mu >= 0) D[l.mu] += 2.0 * fabs(a * e_prev);
                st = omega + a * e2 + beta * st;
                M = beta * M + st + a * fabs(e_prev) * (fabs(r_prev) + fabs(mus));
            }
        }
        const double e = r[t] / s - mus, h = eg ? exp(st) : st, z2 = e * e / h;
        double X, dlds, dle;
        if (eg) {
            X = E + 160.0;
            dlds = 0.5 * (1.0 + z2) * (l.nu >= 0 ? nu + 1.0 : 1.0); /* |dl/dg| */
            dle = (1.0 + sqrt(z2)) / sqrt(h);
        } else {
            X = 16.0 * M / st + 8.0 * fabs(e) * (fabs(r[t] / s) + fabs(mus)) / st + 32.0;
            dlds = 0.5 * (1.0 + z2) * (l.nu >= 0 ? nu + 1.0 : 1.0) / h; /* |dl/dh| */
            dle = (1.0 + sqrt(z2)) / sqrt(h);
        }
        bn += W * (1.0 + z2) * X;
        runn += 1.0 + fabs(log(h)) + z2;
        accn += runn;
        for (size_t j = 0; j < k; j++) {
            double term = dlds * D[j];
            if ((int)j == l.mu) term += W * dle;
            if ((int)j == l.nu) term += Wnu * (1.0 + z2);
            acc[j] += W * term * 2.0 * X;
            run[j] += term;
            acc[j] += 3.0 * run[j];
        }
        e_prev = e;
        r_prev = r[t] / s;
        z_prev = sqrt(z2) * (e < 0 ? -1.0 : 1.0);
        w_prev = 1.0 / sqrt(h);
    }
    const double extra = 1e-15 * (fabs(nll) + (double)T * (1.0 + fabs(L)));
    b.nll = eps * (bn + 3.0 * accn) + extra;
    for (size_t j = 0; j < k; j++) b.grad[j] = eps * acc[j] + extra;
    if (l.mu >= 0) b.grad[l.mu] /= s;
    if (eg)
        b.grad[l.beta] += fabs(L) * b.grad[l.omega];
    else
        b.grad[l.omega] /= s * s;
    return b;
}

static double g_worst_nll, g_worst_grad; /* largest ratio to the bound seen */

static void compare(const RaidGarchLikSpec *spec, size_t nser, const double *const *r, const size_t *T,
                    size_t npts, const size_t *ser, const double *th, const char *what)
{
    const size_t k = raidGarchLikNpar(spec);
    double *nc = malloc(npts * sizeof *nc), *nd = malloc(npts * sizeof *nd);
    double *gc = malloc(npts * k * sizeof *gc), *gd = malloc(npts * k * sizeof *gd);
    assert_true(nc && nd && gc && gd);
    RaidGarchEval *ec, *ed;
    assert_int_equal(raidGarchEvalCreate(NULL, spec, nser, r, T, &ec), RAID_OK);
    if (raidGarchEvalCreate(g_ctx, spec, nser, r, T, &ed) != RAID_OK)
        fail_msg("device evaluator: %s", raid_ctx_errmsg(g_ctx));
    assert_true(raidGarchEvalOnDevice(ed));
    assert_int_equal(raidGarchEvalRun(ec, npts, ser, th, nc, gc), RAID_OK);
    if (raidGarchEvalRun(ed, npts, ser, th, nd, gd) != RAID_OK)
        fail_msg("device run: %s", raid_ctx_errmsg(g_ctx));
    raid_timing tm;
    raid_ctx_last_timing(g_ctx, &tm);
    double wn = 0, wg = 0, rel = 0, brel = 0;
    size_t ninf = 0;
    for (size_t p = 0; p < npts; p++) {
        if (isinf(nc[p])) {
            ninf++;
            if (!(isinf(nd[p]) && nd[p] > 0)) fail_msg("%s: point %zu: cpu +inf, device %.17g", what, p, nd[p]);
            for (size_t j = 0; j < k; j++) assert_true(gd[p * k + j] == 0.0 && gc[p * k + j] == 0.0);
            continue;
        }
        const size_t i = ser[p];
        const bound b = bound_at(spec, r[i], T[i], th + p * k, nc[p]);
        const double dn = fabs(nd[p] - nc[p]);
        if (!(dn <= b.nll))
            fail_msg("%s: point %zu (series %zu): nll device %.17g cpu %.17g, |d| %.3g > bound %.3g", what, p, i,
                     nd[p], nc[p], dn, b.nll);
        if (dn / b.nll > wn) wn = dn / b.nll;
        if (dn / fabs(nc[p]) > rel) rel = dn / fabs(nc[p]);
        if (T[i] >= 1000 && b.nll / fabs(nc[p]) > brel) brel = b.nll / fabs(nc[p]);
        for (size_t j = 0; j < k; j++) {
            const double dg = fabs(gd[p * k + j] - gc[p * k + j]);
            if (!(dg <= b.grad[j]))
                fail_msg("%s: point %zu (series %zu): grad[%zu] device %.17g cpu %.17g, |d| %.3g > bound %.3g",
                         what, p, i, j, gd[p * k + j], gc[p * k + j], dg, b.grad[j]);
            if (dg / b.grad[j] > wg) wg = dg / b.grad[j];
        }
    }
    printf("# %-14s model %d dist %d mean %d init %d ez %d: %zu points (%zu +inf, %llu on the host): "
           "nll rel %.2g, of bound %.2g (bound rel %.2g); grad of bound %.2g\n",
           what, spec->model, spec->dist, spec->mean, spec->init, spec->ez, npts, ninf,
           (unsigned long long)tm.host_segments, rel, wn, brel, wg);
    if (wn > g_worst_nll) g_worst_nll = wn;
    if (wg > g_worst_grad) g_worst_grad = wg;
    raidGarchEvalDestroy(ec);
    raidGarchEvalDestroy(ed);
    free(nc);
    free(nd);
    free(gc);
    free(gd);
}

static void test_all_specs_real_data(void **state)
{
    (void)state;
    if (!g_ctx) skip();
    RaidGarchLikSpec specs[32];
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
        const RaidGarchLikSpec *s = &specs[si];
        const size_t k = raidGarchLikNpar(s);
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

/* Points of spec on series of variance var and mean m: persistence 0.9 to 0.999, three alpha shares, two nu. */
static size_t points_for(const RaidGarchLikSpec *s, size_t i, double var, double m, size_t *ser, double *th)
{
    const double pers[] = {0.9, 0.99, 0.999};
    const double alph[] = {0.03, 0.1, 0.25};
    const size_t k = raidGarchLikNpar(s);
    size_t n = 0;
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++)
            for (int c = 0; c < 2; c++) {
                named q = point_for(s, var, m, pers[a], alph[b], c ? 4.0 : 12.0);
                ser[n] = i;
                pack(s, &q, th + n * k);
                n++;
            }
    return n;
}

/* The same series times 0.001 and 1000 (and 1): the device path scales them to unit variance, so the
 * bound holds alike (the bound is in the scaled units). */
static void test_scaled_series(void **state)
{
    (void)state;
    if (!g_ctx) skip();
    const double scales[3] = {1e-3, 1.0, 1e3};
    double *x[3];
    size_t T[3];
    for (int i = 0; i < 3; i++) {
        T[i] = g_Tdem;
        x[i] = malloc(g_Tdem * sizeof *x[i]);
        assert_non_null(x[i]);
        for (size_t t = 0; t < g_Tdem; t++) x[i][t] = g_dem[t] * scales[i];
    }
    const RaidGarchLikSpec specs[4] = {
        {RAID_GARCH_LIK_GARCH, RAID_GARCH_LIK_T, RAID_GARCH_LIK_MEAN_CONSTANT, RAID_GARCH_LIK_INIT_SAMPLE, 0},
        {RAID_GARCH_LIK_GJR, RAID_GARCH_LIK_NORMAL, RAID_GARCH_LIK_MEAN_ZERO, RAID_GARCH_LIK_INIT_BACKCAST, 0},
        {RAID_GARCH_LIK_EGARCH, RAID_GARCH_LIK_T, RAID_GARCH_LIK_MEAN_CONSTANT, RAID_GARCH_LIK_INIT_BACKCAST,
         RAID_GARCH_LIK_EZ_DIST},
        {RAID_GARCH_LIK_EGARCH, RAID_GARCH_LIK_NORMAL, RAID_GARCH_LIK_MEAN_CONSTANT, RAID_GARCH_LIK_INIT_SAMPLE, 0},
    };
    for (int si = 0; si < 4; si++) {
        size_t ser[3 * 18];
        double th[3 * 18 * 6];
        size_t n = 0;
        const size_t k = raidGarchLikNpar(&specs[si]);
        for (int i = 0; i < 3; i++)
            n += points_for(&specs[si], (size_t)i, 0.22 * scales[i] * scales[i], -0.006 * scales[i], ser + n,
                            th + n * k);
        compare(&specs[si], 3, (const double *const *)x, T, n, ser, th, "x 1e-3, 1, 1e3");
    }
    for (int i = 0; i < 3; i++) free(x[i]);
}

/* Invalid points (every rule of garch_lik.h) give +inf and a zero gradient on the device as on the cpu
 * (compare asserts both), mixed with valid ones; points whose state leaves the range of the bound (an
 * EGARCH log-variance beyond 27 in the scaled units, a GARCH variance beyond 2^40) go to the host and
 * equal the cpu path bit for bit. */
static void test_invalid_and_host(void **state)
{
    (void)state;
    if (!g_ctx) skip();
    const double *r[1] = {g_dem};
    const size_t T[1] = {g_Tdem};
    const RaidGarchLikSpec sg = {RAID_GARCH_LIK_GJR, RAID_GARCH_LIK_T, RAID_GARCH_LIK_MEAN_CONSTANT,
                                    RAID_GARCH_LIK_INIT_SAMPLE, 0};
    const double bad[][6] = {
        {NAN, 0.01, 0.1, 0.05, 0.8, 6},   {0, INFINITY, 0.1, 0.05, 0.8, 6}, {0, 0.0, 0.1, 0.05, 0.8, 6},
        {0, -0.01, 0.1, 0.05, 0.8, 6},    {0, 0.01, -0.1, 0.3, 0.8, 6},     {0, 0.01, 0.1, -0.2, 0.8, 6},
        {0, 0.01, 0.1, 0.05, -0.1, 6},    {0, 0.01, 0.1, 0.05, 0.876, 6},   {0, 0.01, 0.1, 0.05, 0.8, 2.0},
        {0, 0.01, 0.1, 0.05, 0.8, 1.5},   {0, 0.01, 0.1, 0.05, 0.8, 6},     {0, 1e13, 0.1, 0.05, 0.8, 6},
    };
    const size_t nb = sizeof bad / sizeof bad[0];
    size_t ser[16] = {0};
    compare(&sg, 1, r, T, nb, ser, &bad[0][0], "invalid GJR-t");
    const RaidGarchLikSpec se = {RAID_GARCH_LIK_EGARCH, RAID_GARCH_LIK_NORMAL, RAID_GARCH_LIK_MEAN_CONSTANT,
                                    RAID_GARCH_LIK_INIT_SAMPLE, 0};
    const double bade[][5] = {
        {0, 0.0, 0.1, 0.0, 1.0}, {0, 0.0, 0.1, 0.0, -1.0}, {0, 0.0, 0.1, NAN, 0.9},
        {0, -0.1, 0.1, 0.0, 0.9}, {0, 30.0, 0.1, 0.0, 0.1}, {0, -30.0, 0.1, 0.0, 0.1}, {0, 500.0, 0.1, 0.0, 0.1},
    };
    compare(&se, 1, r, T, sizeof bade / sizeof bade[0], ser, &bade[0][0], "invalid EGARCH");
    /* the host's points equal the cpu path exactly */
    RaidGarchEval *ec, *ed;
    double nc[2], nd[2], gc[10], gd[10];
    const double pts[2][5] = {{0, 30.0, 0.1, 0.0, 0.1}, {0, -30.0, 0.1, 0.0, 0.1}};
    assert_int_equal(raidGarchEvalCreate(NULL, &se, 1, r, T, &ec), RAID_OK);
    assert_int_equal(raidGarchEvalCreate(g_ctx, &se, 1, r, T, &ed), RAID_OK);
    assert_int_equal(raidGarchEvalRun(ec, 2, ser, &pts[0][0], nc, gc), RAID_OK);
    assert_int_equal(raidGarchEvalRun(ed, 2, ser, &pts[0][0], nd, gd), RAID_OK);
    raid_timing tm;
    raid_ctx_last_timing(g_ctx, &tm);
    assert_int_equal(tm.host_segments, 2);
    assert_memory_equal(nc, nd, sizeof nc);
    assert_memory_equal(gc, gd, sizeof gc);
    raidGarchEvalDestroy(ec);
    raidGarchEvalDestroy(ed);
}

/* Two runs of the same batch are equal bit for bit; a batch over several series of different lengths
 * (1, 2, 10, 75, 76, 500 returns and the two whole series, and a constant series, which the device path
 * leaves to the host), points in mixed series order, within the bound. */
static void test_batch_and_determinism(void **state)
{
    (void)state;
    if (!g_ctx) skip();
    enum { NS = 9 };
    const double *r[NS];
    size_t T[NS];
    const size_t lens[6] = {1, 2, 10, 75, 76, 500};
    for (int i = 0; i < 6; i++) {
        r[i] = g_spy + 100 * i;
        T[i] = lens[i];
    }
    r[6] = g_dem;
    T[6] = g_Tdem;
    r[7] = g_spy;
    T[7] = g_Tspy;
    double cst[50];
    for (int t = 0; t < 50; t++) cst[t] = 0.25;
    r[8] = cst;
    T[8] = 50;
    RaidGarchLikSpec specs[32];
    const size_t ns = all_specs(specs);
    for (size_t si = 0; si < ns; si += 3) {
        const RaidGarchLikSpec *s = &specs[si];
        const size_t k = raidGarchLikNpar(s);
        size_t ser[NS * 18], n = 0;
        double th[NS * 18 * 6];
        for (size_t i = 0; i < NS; i++) n += points_for(s, i, i == 6 ? 0.22 : 1.0, 0.01, ser + n, th + n * k);
        for (size_t p = n - 1; p > 0; p--) { /* shuffle */
            const size_t q = (size_t)(urand() * (double)(p + 1));
            const size_t ts = ser[p];
            ser[p] = ser[q];
            ser[q] = ts;
            double tt[6];
            memcpy(tt, th + p * k, k * sizeof *tt);
            memcpy(th + p * k, th + q * k, k * sizeof *tt);
            memcpy(th + q * k, tt, k * sizeof *tt);
        }
        compare(s, NS, r, T, n, ser, th, "9 series");
        RaidGarchEval *ed;
        assert_int_equal(raidGarchEvalCreate(g_ctx, s, NS, r, T, &ed), RAID_OK);
        double *n1 = malloc(n * sizeof *n1), *n2 = malloc(n * sizeof *n2);
        double *g1 = malloc(n * k * sizeof *g1), *g2 = malloc(n * k * sizeof *g2);
        assert_true(n1 && n2 && g1 && g2);
        assert_int_equal(raidGarchEvalRun(ed, n, ser, th, n1, g1), RAID_OK);
        assert_int_equal(raidGarchEvalRun(ed, n, ser, th, n2, g2), RAID_OK);
        assert_memory_equal(n1, n2, n * sizeof *n1);
        assert_memory_equal(g1, g2, n * k * sizeof *g1);
        assert_int_equal(raidGarchEvalRun(ed, 0, NULL, NULL, NULL, NULL), RAID_OK);
        raidGarchEvalDestroy(ed);
        free(n1);
        free(n2);
        free(g1);
        free(g2);
    }
}

/* Where an optimiser on the device's scores lands: at the float64 optimum of the FCP benchmark (GARCH(1,1)
 * Normal, constant mean, sample start; the fit's estimates), the Newton step H^-1 (g_dev - g_cpu) (H
 * from central differences of the cpu score) is the displacement of the device's stationary point from
 * the cpu's to first order: asserted below 1e-8 of each parameter (the issue asks 1e-6 before a float64
 * refinement). */
static void test_optimum_displacement(void **state)
{
    (void)state;
    if (!g_ctx) skip();
    const RaidGarchLikSpec s = {RAID_GARCH_LIK_GARCH, RAID_GARCH_LIK_NORMAL, RAID_GARCH_LIK_MEAN_CONSTANT,
                                   RAID_GARCH_LIK_INIT_SAMPLE, 0};
    const double th[4] = {-0.00619040838, 0.0107613979, 0.153134062, 0.80597367};
    double H[4][4], gc[4], gd[4], nc, nd;
    for (int j = 0; j < 4; j++) {
        double tp[4], tm[4], gp[4], gm[4];
        memcpy(tp, th, sizeof tp);
        memcpy(tm, th, sizeof tm);
        const double h = 1e-5 * fabs(th[j]);
        tp[j] += h;
        tm[j] -= h;
        raidGarchLikNll(&s, g_dem, g_Tdem, tp, gp);
        raidGarchLikNll(&s, g_dem, g_Tdem, tm, gm);
        for (int i = 0; i < 4; i++) H[i][j] = (gp[i] - gm[i]) / (2 * h);
    }
    nc = raidGarchLikNll(&s, g_dem, g_Tdem, th, gc);
    const double *r[1] = {g_dem};
    const size_t T[1] = {g_Tdem}, ser[1] = {0};
    RaidGarchEval *ed;
    assert_int_equal(raidGarchEvalCreate(g_ctx, &s, 1, r, T, &ed), RAID_OK);
    assert_int_equal(raidGarchEvalRun(ed, 1, ser, th, &nd, gd), RAID_OK);
    raidGarchEvalDestroy(ed);
    /* solve H d = g_dev - g_cpu (Gaussian elimination with partial pivoting) */
    double A[4][5];
    for (int i = 0; i < 4; i++) {
        for (int j = 0; j < 4; j++) A[i][j] = 0.5 * (H[i][j] + H[j][i]);
        A[i][4] = gd[i] - gc[i];
    }
    for (int c = 0; c < 4; c++) {
        int piv = c;
        for (int i = c + 1; i < 4; i++)
            if (fabs(A[i][c]) > fabs(A[piv][c])) piv = i;
        for (int j = 0; j < 5; j++) {
            const double t = A[c][j];
            A[c][j] = A[piv][j];
            A[piv][j] = t;
        }
        for (int i = c + 1; i < 4; i++) {
            const double f = A[i][c] / A[c][c];
            for (int j = c; j < 5; j++) A[i][j] -= f * A[c][j];
        }
    }
    double d[4];
    for (int i = 3; i >= 0; i--) {
        double v = A[i][4];
        for (int j = i + 1; j < 4; j++) v -= A[i][j] * d[j];
        d[i] = v / A[i][i];
    }
    double worst = 0;
    for (int j = 0; j < 4; j++)
        if (fabs(d[j] / th[j]) > worst) worst = fabs(d[j] / th[j]);
    printf("# FCP optimum: nll device - cpu %.3g; score difference moves the optimum by %.3g relative "
           "(mu %.3g, omega %.3g, alpha %.3g, beta %.3g)\n",
           nd - nc, worst, d[0] / th[0], d[1] / th[1], d[2] / th[2], d[3] / th[3]);
    assert_true(worst < 1e-8);
}

/* A simulated GARCH(1,1) series of 20,000 returns with persistence 0.995 and 10-sigma jumps (the products'
 * renormalisation over a long series, large |z|), nu down to 2.01, every model with the t. */
static void test_long_series(void **state)
{
    (void)state;
    if (!g_ctx) skip();
    enum { TL = 20000 };
    double *x = malloc(TL * sizeof *x);
    assert_non_null(x);
    double h = 1.0;
    for (size_t t = 0; t < TL; t++) {
        const double u1 = urand() + 1e-300, u2 = urand();
        double z = sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
        if (t % 1000 == 999) z *= 10.0;
        x[t] = 0.05 + sqrt(h) * z;
        h = 0.005 + 0.08 * (x[t] - 0.05) * (x[t] - 0.05) + 0.915 * h;
    }
    const double *r[1] = {x};
    const size_t T[1] = {TL};
    for (int m = 0; m < 3; m++) {
        const RaidGarchLikSpec s = {(RaidGarchLikModel)m, RAID_GARCH_LIK_T, RAID_GARCH_LIK_MEAN_CONSTANT,
                                       RAID_GARCH_LIK_INIT_BACKCAST, RAID_GARCH_LIK_EZ_DIST};
        const size_t k = raidGarchLikNpar(&s);
        size_t ser[8] = {0};
        double th[8 * 6];
        const double nus[4] = {2.01, 3.0, 8.0, 100.0};
        for (int p = 0; p < 8; p++) {
            named q = point_for(&s, 1.0, 0.05, p < 4 ? 0.995 : 0.95, 0.08, nus[p % 4]);
            pack(&s, &q, th + (size_t)p * k);
        }
        compare(&s, 1, r, T, 8, ser, th, "20,000 returns");
    }
    free(x);
}

/* PoCL's time per point (not a test of speed: the device here is the cpu). */
static void test_timing(void **state)
{
    (void)state;
    if (!g_ctx) skip();
    const RaidGarchLikSpec s = {RAID_GARCH_LIK_GARCH, RAID_GARCH_LIK_T, RAID_GARCH_LIK_MEAN_CONSTANT,
                                   RAID_GARCH_LIK_INIT_BACKCAST, 0};
    enum { NP = 256 };
    size_t ser[NP];
    double th[NP * 5];
    for (size_t p = 0; p < NP; p++) {
        named q = point_for(&s, 0.22, -0.006, 0.9 + 0.09 * urand(), 0.05 + 0.1 * urand(), 4 + 8 * urand());
        pack(&s, &q, th + p * 5);
        ser[p] = 0;
    }
    const double *r[1] = {g_dem};
    const size_t T[1] = {g_Tdem};
    RaidGarchEval *ed, *ec;
    assert_int_equal(raidGarchEvalCreate(g_ctx, &s, 1, r, T, &ed), RAID_OK);
    assert_int_equal(raidGarchEvalCreate(NULL, &s, 1, r, T, &ec), RAID_OK);
    double nll[NP], grad[NP * 5];
    assert_int_equal(raidGarchEvalRun(ed, NP, ser, th, nll, grad), RAID_OK); /* warm */
    double t0 = raidNow();
    assert_int_equal(raidGarchEvalRun(ed, NP, ser, th, nll, grad), RAID_OK);
    const double tdev = raidNow() - t0;
    raid_timing tm;
    raid_ctx_last_timing(g_ctx, &tm);
    t0 = raidNow();
    assert_int_equal(raidGarchEvalRun(ec, NP, ser, th, nll, grad), RAID_OK);
    const double tcpu = raidNow() - t0;
    printf("# GARCH(1,1)-t, %zu returns, %d points: device (PoCL here) %.1f us per point (kernel %.1f us, host "
           "side %.2f us), cpu path %.1f us per point\n",
           g_Tdem, NP, 1e6 * tdev / NP, 1e6 * tm.kernel_s / NP, 1e6 * tm.convert_s / NP, 1e6 * tcpu / NP);
    raidGarchEvalDestroy(ed);
    raidGarchEvalDestroy(ec);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_all_specs_real_data),
        cmocka_unit_test(test_scaled_series),
        cmocka_unit_test(test_invalid_and_host),
        cmocka_unit_test(test_batch_and_determinism),
        cmocka_unit_test(test_optimum_displacement),
        cmocka_unit_test(test_long_series),
        cmocka_unit_test(test_timing),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
