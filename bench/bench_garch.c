/*
 * bench_garch: speed of the batched GARCH-family fit (not a test; bench/README.md).
 *
 * S simulated series x T returns of a GARCH(1,1) (default Student-t errors, constant mean), each with its
 * own parameters (unconditional variance 0.5..2 in squared percent, alpha 0.03..0.15, persistence
 * 0.90..0.99, mu -0.05..0.10, nu 5..12), from counter-based normal draws (bench_common.h): the same
 * series for any thread count. Then, through the public API only (include/raid.h):
 *   device  raid_garch_fit of all S series on --device (one call: the batched device likelihoods, the
 *           lock-step BFGS, the float64 refinement and robust standard errors);
 *   cpu     the same on the float64 cpu backend for the first C series (--cpu-series), its time also
 *           scaled to S (said so in the output), and the largest relative differences between the two
 *           backends' estimates and log-likelihoods over those C series;
 *   rolling one series of W + N - 1 returns (the first series' parameters), --window rolling:W: N windows
 *           of W returns, warm-started from the full-sample fit, on the device and on the cpu.
 * --dump FILE writes the panel for bench/peers_garch.py (int64 S, int64 T, S*T float64 returns row-major,
 * then S x 5 float64 true parameters mu, omega, alpha, beta, nu; native byte order).
 * usage: bench_garch [--device D] [--series S] [--T T] [--model M] [--dist normal|t] [--cpu-series C]
 *                    [--window W] [--windows N] [--dump FILE] [--no-cpu]
 */
#define _POSIX_C_SOURCE 200809L
#include "raid.h"

#include "bench_common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct truth {
    double mu, omega, alpha, beta, nu;
} truth;

static double unif(uint64_t i, uint64_t seed) /* U(0,1) from the normal stream's CDF-free trick */
{
    const double g = bench_gauss(i, seed);
    return 0.5 * erfc(-g / sqrt(2.0));
}

/* Series s: T returns of GARCH(1,1) with standardised t (nu integer) or Normal errors, 500 burn-in. */
static void simulate(long s, long T, int t_dist, double *r, truth *p)
{
    const uint64_t seed = 0x5eed0000ULL + (uint64_t)s * 7919ULL;
    const double var = 0.5 + 1.5 * unif(0, seed), a = 0.03 + 0.12 * unif(1, seed);
    const double pers = 0.90 + 0.09 * unif(2, seed);
    p->mu = -0.05 + 0.15 * unif(3, seed);
    p->alpha = a;
    p->beta = pers - a;
    p->omega = var * (1 - pers);
    p->nu = t_dist ? (double)(5 + (int)(8 * unif(4, seed))) : NAN;
    const int nu = t_dist ? (int)p->nu : 0;
    double h = var, e = 0;
    uint64_t c = 16;
    for (long t = -500; t < T; t++) {
        h = p->omega + p->alpha * e * e + p->beta * h;
        double z = bench_gauss(c++, seed);
        if (nu) {
            double chi2 = 0;
            for (int j = 0; j < nu; j++) {
                const double g = bench_gauss(c++, seed);
                chi2 += g * g;
            }
            z = z / sqrt(chi2 / nu) * sqrt((nu - 2.0) / nu);
        }
        e = sqrt(h) * z;
        if (t >= 0) r[t] = p->mu + e;
    }
}

static int check(raid_status st, raid_ctx *ctx, const char *what)
{
    if (st == RAID_OK) return 0;
    fprintf(stderr, "bench_garch: %s: %s\n", what, ctx ? raid_ctx_errmsg(ctx) : raid_errmsg());
    return 1;
}

/* Fit series [0, n) of the panel (full sample) on ctx; wall seconds into *secs. */
static raid_garch_result *fit_panel(raid_ctx *ctx, const raid_garch_spec *spec, const double *R, long n, long T,
                                    double *secs)
{
    raid_garch_input *in = NULL;
    if (check(raid_garch_input_create(&in), NULL, "input")) return NULL;
    char name[32];
    for (long s = 0; s < n; s++) {
        snprintf(name, sizeof name, "s%05ld", s);
        if (check(raid_garch_input_add(in, name, (size_t)T, R + (size_t)s * (size_t)T, NULL, NULL), NULL, "add")) {
            raid_garch_input_destroy(in);
            return NULL;
        }
    }
    raid_garch_result *res = NULL;
    const double t0 = bench_now();
    const raid_status st = raid_garch_fit(ctx, spec, in, &res);
    *secs = bench_now() - t0;
    raid_garch_input_destroy(in);
    if (check(st, ctx, "fit")) return NULL;
    return res;
}

static void summary(const char *label, const raid_garch_result *res, double secs, double scale)
{
    const size_t n = raid_garch_result_nrows(res);
    const int32_t *st = raid_garch_result_status(res), *it = raid_garch_result_iterations(res);
    size_t nconv = 0, nbound = 0;
    double iters = 0;
    for (size_t i = 0; i < n; i++) {
        nconv += st[i] == RAID_GARCH_CONVERGED;
        nbound += st[i] == RAID_GARCH_BOUNDARY;
        iters += it[i];
    }
    printf("%-8s fits %zu  wall %.3f s  (%.3f ms/fit)%s  converged %zu  boundary %zu  other %zu  mean iterations %.1f\n",
           label, n, secs, 1e3 * secs / (double)n, scale > 0 ? "" : "", nconv, nbound, n - nconv - nbound,
           n ? iters / (double)n : 0.0);
    if (scale > 0) printf("%-8s scaled to %.0f fits: %.2f s (scaled, not measured)\n", label, scale, secs / (double)n * scale);
}

/* Largest relative differences of the parameters and log-likelihoods of rows [0, n) of a and b. */
static void compare(const raid_garch_result *a, const raid_garch_result *b, size_t n)
{
    const double *pa = raid_garch_result_params(a), *pb = raid_garch_result_params(b);
    const double *la = raid_garch_result_loglik(a), *lb = raid_garch_result_loglik(b);
    double dp = 0, dl = 0;
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (raid_garch_result_status(a)[i] != RAID_GARCH_CONVERGED || raid_garch_result_status(b)[i] != RAID_GARCH_CONVERGED)
            continue;
        m++;
        for (int j = 0; j < RAID_GARCH_MAXPAR; j++) {
            const double x = pa[i * RAID_GARCH_MAXPAR + j], y = pb[i * RAID_GARCH_MAXPAR + j];
            if (isnan(x) && isnan(y)) continue;
            const double d = fabs(x - y) / fmax(fabs(y), 1e-300);
            dp = isnan(d) ? INFINITY : fmax(dp, d);
        }
        dl = fmax(dl, fabs(la[i] - lb[i]) / fabs(lb[i]));
    }
    printf("device vs cpu on %zu series both converged: max rel diff params %.3e, loglik %.3e\n", m, dp, dl);
}

int main(int argc, char **argv)
{
    const char *device = "auto", *dump = NULL, *model = "garch", *dist = "t";
    long S = 10000, T = 2500, C = 200, W = 1000, N = 1000;
    int no_cpu = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--no-cpu")) {
            no_cpu = 1;
            continue;
        }
        if (!v) {
            fprintf(stderr, "bench_garch: %s needs a value\n", a);
            return 2;
        }
        i++;
        if (!strcmp(a, "--device")) device = v;
        else if (!strcmp(a, "--series")) S = atol(v);
        else if (!strcmp(a, "--T")) T = atol(v);
        else if (!strcmp(a, "--model")) model = v;
        else if (!strcmp(a, "--dist")) dist = v;
        else if (!strcmp(a, "--cpu-series")) C = atol(v);
        else if (!strcmp(a, "--window")) W = atol(v);
        else if (!strcmp(a, "--windows")) N = atol(v);
        else if (!strcmp(a, "--dump")) dump = v;
        else {
            fprintf(stderr, "bench_garch: unknown option %s\n", a);
            return 2;
        }
    }
    if (S < 1 || T < RAID_GARCH_MIN_T || C < 0 || W < RAID_GARCH_MIN_T || N < 1) {
        fprintf(stderr, "bench_garch: bad sizes\n");
        return 2;
    }
    if (C > S) C = S;
    raid_garch_spec *spec = NULL;
    raid_garch_model m;
    raid_garch_dist d;
    if (check(raid_garch_model_parse(model, &m), NULL, "--model") || check(raid_garch_dist_parse(dist, &d), NULL, "--dist") ||
        check(raid_garch_spec_create(&spec), NULL, "spec") || check(raid_garch_spec_set_model(spec, m), NULL, "spec") ||
        check(raid_garch_spec_set_dist(spec, d), NULL, "spec"))
        return 1;

    const long Troll = W + N - 1, Tsim = T > Troll ? T : Troll;
    double *R = malloc((size_t)S * (size_t)T * sizeof *R), *roll = malloc((size_t)Tsim * sizeof *roll);
    truth *P = malloc((size_t)S * sizeof *P);
    if (!R || !roll || !P) {
        fprintf(stderr, "bench_garch: out of memory\n");
        return 1;
    }
    double t0 = bench_now();
#pragma omp parallel for schedule(dynamic, 16)
    for (long s = 0; s < S; s++) simulate(s, T, d == RAID_GARCH_T, R + (size_t)s * (size_t)T, &P[s]);
    truth p0;
    simulate(0, Tsim, d == RAID_GARCH_T, roll, &p0);
    printf("simulated %ld series x %ld returns (%s-%s) in %.2f s\n", S, T, model, dist, bench_now() - t0);
    if (dump) {
        FILE *f = fopen(dump, "wb");
        const int64_t hdr[2] = {S, T};
        int ok = f && fwrite(hdr, sizeof hdr, 1, f) == 1 && fwrite(R, sizeof *R, (size_t)S * (size_t)T, f) == (size_t)S * (size_t)T;
        for (long s = 0; ok && s < S; s++) ok = fwrite(&P[s], sizeof P[s], 1, f) == 1;
        if (!f || fclose(f) != 0 || !ok) {
            fprintf(stderr, "bench_garch: cannot write %s\n", dump);
            return 1;
        }
    }

    raid_ctx *dev = NULL, *cpu = NULL;
    if (check(raid_ctx_create(&dev, device), NULL, "device") || check(raid_ctx_create(&cpu, "cpu"), NULL, "cpu")) return 1;
    printf("device: %s\ncpu: %s\n", raid_ctx_device_name(dev), raid_ctx_device_name(cpu));

    /* full-sample fits */
    double sd = 0, sc = 0;
    raid_garch_result *rd = fit_panel(dev, spec, R, S, T, &sd); /* the first call also builds the kernels */
    if (!rd) return 1;
    raid_garch_result_destroy(rd);
    rd = fit_panel(dev, spec, R, S, T, &sd);
    if (!rd) return 1;
    summary("device", rd, sd, 0);
    if (!no_cpu && C > 0) {
        raid_garch_result *rc = fit_panel(cpu, spec, R, C, T, &sc);
        if (!rc) return 1;
        summary("cpu", rc, sc, (double)S);
        compare(rd, rc, (size_t)C);
        raid_garch_result_destroy(rc);
    }
    /* parameter recovery (a sanity check of the simulation and the fit) */
    double ea = 0, eb = 0;
    size_t nc = 0;
    for (long s = 0; s < S; s++) {
        if (raid_garch_result_status(rd)[s] != RAID_GARCH_CONVERGED) continue;
        const double *p = raid_garch_result_params(rd) + (size_t)s * RAID_GARCH_MAXPAR;
        ea += fabs(p[2] - P[s].alpha);
        eb += fabs(p[4] - P[s].beta);
        nc++;
    }
    printf("mean |alpha - true| %.4f, |beta - true| %.4f over %zu converged series\n", nc ? ea / nc : NAN,
           nc ? eb / nc : NAN, nc);
    raid_garch_result_destroy(rd);

    /* rolling windows of one series */
    if (check(raid_garch_spec_set_window(spec, RAID_GARCH_ROLLING, W, 1), NULL, "window")) return 1;
    raid_garch_result *wd = fit_panel(dev, spec, roll, 1, Troll, &sd);
    if (!wd) return 1;
    printf("rolling: %ld windows of %ld returns (one series of %ld), full-sample fit included\n", N, W, Troll);
    summary("device", wd, sd, 0);
    if (!no_cpu) {
        raid_garch_result *wc = fit_panel(cpu, spec, roll, 1, Troll, &sc);
        if (!wc) return 1;
        summary("cpu", wc, sc, 0);
        compare(wd, wc, raid_garch_result_nrows(wd));
        raid_garch_result_destroy(wc);
    }
    raid_garch_result_destroy(wd);
    raid_ctx_destroy(dev);
    raid_ctx_destroy(cpu);
    raid_garch_spec_destroy(spec);
    free(R), free(roll), free(P);
    return 0;
}
