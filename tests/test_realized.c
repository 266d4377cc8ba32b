/* Realized measures: the float64 path against a plain float64 implementation written here, and the
 * OpenCL device path (PoCL in CI) against the float64 path within the documented bounds. */
#define _POSIX_C_SOURCE 200809L
#include "support.h"
#include "raid.h"
#include "core/internal.h"
#include "realized/realized_internal.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- a deterministic generator (splitmix64) and Gaussian returns ---- */
static uint64_t rng_state = 12345;
static uint64_t next_u64(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
static double unif(void) { return ((double)(next_u64() >> 11) + 0.5) * 0x1p-53; }
static double gauss(void) { return sqrt(-2.0 * log(unif())) * cos(6.283185307179586 * unif()); }

static double *gaussian_returns(size_t n, double sd)
{
    double *r = malloc((n ? n : 1) * sizeof *r);
    for (size_t i = 0; i < n; i++)
        r[i] = sd * gauss();
    return r;
}

/* ---- the plain float64 oracle: formulas exactly as written in the issue, no shared code ---- */
static double med3(double a, double b, double c)
{
    double x[3] = {a, b, c}, t;
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2 - i; j++)
            if (x[j] > x[j + 1]) {
                t = x[j];
                x[j] = x[j + 1];
                x[j + 1] = t;
            }
    return x[1];
}

static void plain(const double *r, int64_t M, raid_realized *o)
{
    const double pi = acos(-1.0), m = (double)M;
    long double rv = 0, neg = 0, pos = 0, r4 = 0, bp = 0, tp = 0, md = 0;
    for (int64_t i = 0; i < M; i++) {
        rv += (long double)r[i] * r[i];
        if (r[i] < 0)
            neg += (long double)r[i] * r[i];
        if (r[i] > 0)
            pos += (long double)r[i] * r[i];
        r4 += (long double)r[i] * r[i] * r[i] * r[i];
        if (i >= 1)
            bp += fabsl((long double)r[i]) * fabsl((long double)r[i - 1]);
        if (i >= 2)
            tp += powl(fabsl((long double)r[i] * r[i - 1] * r[i - 2]), 4.0L / 3.0L);
        if (i >= 1 && i + 1 < M) {
            double q = med3(fabs(r[i - 1]), fabs(r[i]), fabs(r[i + 1]));
            md += (long double)q * q;
        }
    }
    o->n = M;
    o->rv = M >= 1 ? (double)rv : NAN;
    o->rs_neg = M >= 1 ? (double)neg : NAN;
    o->rs_pos = M >= 1 ? (double)pos : NAN;
    o->rq = M >= 1 ? m / 3 * (double)r4 : NAN;
    o->bpv = M >= 2 ? pi / 2 * (double)bp : NAN;
    const double mu43 = pow(2.0, 2.0 / 3) * tgamma(7.0 / 6) / tgamma(0.5);
    o->tpq = M >= 3 ? m * (m / (m - 2)) * pow(mu43, -3) * (double)tp : NAN;
    o->medrv = M >= 3 ? pi / (6 - 4 * sqrt(3.0) + pi) * (m / (m - 2)) * (double)md : NAN;
    o->jump_z = o->jump_p = NAN;
    if (M >= 3 && o->rv > 0 && o->bpv > 0) {
        double th = pi * pi / 4 + pi - 5;
        o->jump_z = sqrt(m) * (1 - o->bpv / o->rv) / sqrt(th * fmax(1.0, o->tpq / (o->bpv * o->bpv)));
        o->jump_p = 1 - 0.5 * (1 + erf(o->jump_z / sqrt(2.0)));
    }
}

/* Compare two result sets: the difference of measure k (raid_realized_diff) within tol[k]. */
static void expect_within(const raid_realized *a, const raid_realized *b, size_t n, const double *tol,
                          const char *what)
{
    for (size_t s = 0; s < n; s++) {
        assert_int_equal(a[s].n, b[s].n);
        for (int k = 0; k < RAID_REALIZED_NMEASURES; k++) {
            double d = raid_realized_diff(&a[s], &b[s], k);
            if (!(d <= tol[k]))
                fail_msg("%s: segment %zu (n=%lld) %s: %.17g vs %.17g (diff %.3e > %.3e)", what, s,
                         (long long)a[s].n, raid_realized_names[k], raid_realized_get(&a[s], k),
                         raid_realized_get(&b[s], k), d, tol[k]);
        }
    }
}

/* Relative differences of measures 0..6 within tol each, scaled jump differences within tol_z. */
static void expect_close(const raid_realized *a, const raid_realized *b, size_t n, double tol, double tol_z,
                         const char *what)
{
    double t[RAID_REALIZED_NMEASURES];
    for (int k = 0; k < RAID_REALIZED_NMEASURES; k++)
        t[k] = k < 7 ? tol : tol_z;
    expect_within(a, b, n, t, what);
}

/* ---- the float64 path against the plain oracle ---- */
static void test_cpu_vs_plain(void **state)
{
    (void)state;
    raid_ctx *cpu = t_open_ctx("cpu");
    const int64_t lens[] = {0, 1, 2, 3, 4, 5, 17, 100, 4096, 40000, 70000};
    const size_t ns = sizeof lens / sizeof lens[0];
    int64_t off[16] = {0};
    for (size_t i = 0; i < ns; i++)
        off[i + 1] = off[i] + lens[i];
    double *r = gaussian_returns((size_t)off[ns], 1e-3);
    r[5] = 0.0; /* a zero return inside */
    raid_realized got[16], want[16];
    assert_int_equal(raid_realized_compute(cpu, r, off, ns, got), RAID_OK);
    for (size_t i = 0; i < ns; i++)
        plain(r + off[i], lens[i], &want[i]);
    expect_close(got, want, ns, 1e-13, 1e-12, "cpu vs plain");
    /* undefined measures are NAN, never made up */
    assert_true(isnan(got[0].rv) && isnan(got[1].bpv) && isnan(got[2].tpq) && isnan(got[2].medrv));
    assert_true(!isnan(got[1].rv) && !isnan(got[2].bpv) && !isnan(got[3].tpq));
    /* the jump statistic where float64 cannot give tpq / bpv^2: empty. A day 1e-3, 1e-250, 1e-3 (tpq and
       bpv^2 underflow: the exact p is 0.5, 0/0 taken as 1 gave 0.013), one of returns near 1e-100, one
       with subnormal returns. A day near 1e-70 (bpv^2 and tpq near 1e-280, still normal) has the
       statistic of the same day scaled to 1e-3, as homogeneity says. */
    const double tiny[] = {1e-3, 1e-250, 1e-3, 1e-100, 2e-100, -1e-100, 3e-100, 5e-324, 1e-3, -1e-310, 2e-3,
                           1e-320, 1e-70, 2e-70, -1e-70, 3e-70, 1e-3, 2e-3, -1e-3, 3e-3};
    const int64_t toff[] = {0, 3, 7, 12, 16, 20};
    raid_realized tg[5];
    assert_int_equal(raid_realized_compute(cpu, tiny, toff, 5, tg), RAID_OK);
    for (int i = 0; i < 3; i++)
        if (!isnan(tg[i].jump_z) || !isnan(tg[i].jump_p))
            fail_msg("day %d: jump_z %g, jump_p %g, expected empty", i, tg[i].jump_z, tg[i].jump_p);
    if (!(fabs(tg[3].jump_z - tg[4].jump_z) <= 1e-13 * fabs(tg[4].jump_z)))
        fail_msg("jump_z at 1e-70 %.17g, at 1e-3 %.17g", tg[3].jump_z, tg[4].jump_z);
    /* a tripower term whose factors' 4/3 powers underflow one by one but whose product does not (taken
       one by one they gave 0 for 3.4e-226) */
    const double far[3] = {1e70, 1e70, 1e-310};
    const int64_t foff[2] = {0, 3};
    raid_realized tf;
    assert_int_equal(raid_realized_compute(cpu, far, foff, 1, &tf), RAID_OK);
    const long double mu43 = powl(2.0L, 2.0L / 3) * tgammal(7.0L / 6) / tgammal(0.5L);
    const long double want_tpq = 3.0L * 3.0L / (mu43 * mu43 * mu43) * powl(1e70L * 1e70L * 1e-310L, 4.0L / 3);
    if (!(fabsl(tf.tpq - want_tpq) <= 1e-13L * want_tpq))
        fail_msg("tpq of 1e70, 1e70, 1e-310: %.17g, expected %.17Lg", tf.tpq, want_tpq);
    free(r);
    raid_ctx_destroy(cpu);
}

static void test_errors(void **state)
{
    (void)state;
    raid_ctx *cpu = t_open_ctx("cpu");
    double r[3] = {0.1, NAN, 0.2};
    int64_t off[2] = {0, 3}, bad[3] = {0, 2, 1};
    raid_realized out[2];
    assert_int_equal(raid_realized_compute(cpu, r, off, 1, out), RAID_EINVAL);
    assert_non_null(strstr(raid_ctx_errmsg(cpu), "not finite"));
    assert_int_equal(raid_realized_compute(cpu, r, bad, 2, out), RAID_EINVAL);
    double big[2] = {0.1, 1e75};
    int64_t off2[2] = {0, 2};
    assert_int_equal(raid_realized_compute(cpu, big, off2, 1, out), RAID_EINVAL);
    assert_non_null(strstr(raid_ctx_errmsg(cpu), "out of range"));
    assert_int_equal(raid_ctx_set_chunk(cpu, 1000, 256), RAID_EINVAL);
    assert_int_equal(raid_ctx_set_chunk(cpu, 4096, 3), RAID_EINVAL);
    raid_ctx *x = NULL;
    assert_int_equal(raid_ctx_create(&x, "gpu9"), RAID_EINVAL);
    assert_null(x);
    assert_string_equal(raid_errmsg(), "unknown device 'gpu9' (expected auto, cpu, opencl, opencl:P.D, cuda or cuda:N)");
    assert_int_equal(raid_ctx_create(&x, "opencl:97.0"), RAID_ENODEV);
    assert_non_null(strstr(raid_errmsg(), "no OpenCL platform 97"));
    raid_ctx_destroy(cpu);
}

/* ---- device against float64 ---- */

/* Round returns to what policy p gives the device (no scaling: rounding commutes with powers of two). */
static void round_to_policy(const double *r, double *out, size_t n, raid_precision p)
{
    for (size_t i = 0; i < n; i++) {
        float hi = (float)r[i];
        out[i] = p == RAID_PREC_F32 ? (double)hi : (double)hi + (double)(float)(r[i] - (double)hi);
    }
}

static void check_device(raid_ctx *dev, raid_ctx *cpu, const double *r, const int64_t *off, size_t ns,
                         const char *what)
{
    raid_realized *d = malloc(ns * sizeof *d), *c = malloc(ns * sizeof *c), *e = malloc(ns * sizeof *e);
    size_t n = (size_t)off[ns];
    double *rr = malloc((n ? n : 1) * sizeof *rr);
    for (int p = 0; p < 2; p++) {
        raid_precision pol = p ? RAID_PREC_DF : RAID_PREC_F32;
        char label[256];
        snprintf(label, sizeof label, "%s (%s)", what, p ? "df" : "f32");
        assert_int_equal(raid_ctx_set_precision(dev, pol), RAID_OK);
        raid_status s = raid_realized_compute(dev, r, off, ns, d);
        if (s != RAID_OK)
            fail_msg("%s: %s", label, raid_ctx_errmsg(dev));
        /* 1. within the documented bound of float64 */
        assert_int_equal(raid_realized_compute(cpu, r, off, ns, c), RAID_OK);
        for (size_t i = 0; i < ns; i++)
            for (int k = 0; k < RAID_REALIZED_NMEASURES; k++) {
                double diff = raid_realized_diff(&d[i], &c[i], k), b = raid_realized_bound(pol, k, d[i].n);
                if (!(diff <= b))
                    fail_msg("%s: segment %zu (n=%lld) %s: device %.17g cpu %.17g diff %.3e > bound %.3e", label, i,
                             (long long)d[i].n, raid_realized_names[k], raid_realized_get(&d[i], k),
                             raid_realized_get(&c[i], k), diff, b);
            }
        /* 2. the accumulation alone: against float64 on the values the device saw, to 1e-12 (df); f32 sums
         *    plain floats over runs of at most 8 terms, so its bound there is the run sums' gamma_8 and
         *    the terms' own roundings (raidRealizedBoundSeen, docs/precision.md) */
        round_to_policy(r, rr, n, pol);
        assert_int_equal(raid_realized_compute(cpu, rr, off, ns, e), RAID_OK);
        if (pol == RAID_PREC_DF) {
            expect_close(d, e, ns, 1e-12, 2e-12, label);
        } else {
            double seen[RAID_REALIZED_NMEASURES];
            for (int k = 0; k < RAID_REALIZED_NMEASURES; k++)
                seen[k] = raidRealizedBoundSeen(pol, k);
            expect_within(d, e, ns, seen, label);
        }
    }
    free(rr);
    free(d);
    free(c);
    free(e);
}

/* Segments of 0, 1, 2, 3 returns; one chunk exactly; chunk + 1; chunk - 1; runs not filling a work-item,
 * starting on return 7 of the buffer (odd: the unaligned loads); a run of zero returns (stale prices) and a
 * jump. Fills off[0 .. *ns] (at most 32 entries); returns the returns (free()). */
static const int64_t edge_lens[] = {0, 1, 2, 3, 4, 5, 15, 16, 17, 255, 256, 257, 4095, 4096, 4097, 8192, 12289, 0, 3};
static double *edge_returns(int64_t *off, size_t *ns)
{
    *ns = sizeof edge_lens / sizeof edge_lens[0];
    off[0] = 7;
    for (size_t i = 0; i < *ns; i++)
        off[i + 1] = off[i] + edge_lens[i];
    const size_t n = (size_t)off[*ns];
    assert_true(n > 4400);
    double *r = gaussian_returns(n, 2e-3);
    memset(r + 100, 0, 40 * sizeof *r);
    r[4200] = 0.05;
    return r;
}

static void test_device_edges(void **state)
{
    (void)state;
    if (!t_have_opencl())
        skip();
    raid_ctx *dev = t_open_ctx(t_device()), *cpu = t_open_ctx("cpu");
    int64_t off[32];
    size_t ns;
    double *r = edge_returns(off, &ns);
    check_device(dev, cpu, r, off, ns, "edges");
    free(r);
    raid_ctx_destroy(dev);
    raid_ctx_destroy(cpu);
}

static void test_device_many_chunks_and_policies(void **state)
{
    (void)state;
    if (!t_have_opencl())
        skip();
    raid_ctx *dev = t_open_ctx(t_device()), *cpu = t_open_ctx("cpu");
    /* one segment spanning thousands of chunks (chunk 256, work-group 64) */
    int64_t off[3] = {0, 1000003, 1000003 + 7777};
    double *r = gaussian_returns((size_t)off[2], 1e-4);
    assert_int_equal(raid_ctx_set_chunk(dev, 256, 64), RAID_OK);
    check_device(dev, cpu, r, off, 2, "thousands of chunks");
    /* other work-group widths and chunk lengths */
    const size_t pol[][2] = {{4096, 256}, {1024, 128}, {128, 64}, {512, 8}, {4096, 64}};
    for (size_t i = 0; i < sizeof pol / sizeof pol[0]; i++) {
        char what[64];
        snprintf(what, sizeof what, "chunk %zu wg %zu", pol[i][0], pol[i][1]);
        assert_int_equal(raid_ctx_set_chunk(dev, pol[i][0], pol[i][1]), RAID_OK);
        int64_t o2[2] = {0, 50000};
        check_device(dev, cpu, r, o2, 1, what);
    }
    free(r);
    raid_ctx_destroy(dev);
    raid_ctx_destroy(cpu);
}

static void test_device_many_segments(void **state)
{
    (void)state;
    if (!t_have_opencl())
        skip();
    raid_ctx *dev = t_open_ctx(t_device()), *cpu = t_open_ctx("cpu");
    const size_t ns = 100000;
    int64_t *off = malloc((ns + 1) * sizeof *off);
    off[0] = 0;
    for (size_t i = 0; i < ns; i++)
        off[i + 1] = off[i] + (int64_t)(next_u64() % 40);
    double *r = gaussian_returns((size_t)off[ns], 1e-3);
    /* scales that differ by many orders of magnitude between segments */
    for (size_t i = 0; i < ns; i += 7)
        for (int64_t j = off[i]; j < off[i + 1]; j++)
            r[j] *= 1e-6;
    check_device(dev, cpu, r, off, ns, "1e5 segments");
    free(off);
    free(r);
    raid_ctx_destroy(dev);
    raid_ctx_destroy(cpu);
}

/* Simulated intraday returns (stochastic volatility, jumps, microstructure noise) with M from 2 to 10^6. */
static void test_device_simulated(void **state)
{
    (void)state;
    if (!t_have_opencl())
        skip();
    raid_ctx *dev = t_open_ctx(t_device()), *cpu = t_open_ctx("cpu");
    const int64_t ms[] = {2, 3, 10, 78, 390, 4097, 23400, 1000000};
    for (size_t i = 0; i < sizeof ms / sizeof ms[0]; i++) {
        raid_sim_opts o;
        raid_sim_opts_init(&o);
        o.seed = 100 + i;
        o.ndays = ms[i] < 1000 ? 50 : (ms[i] < 100000 ? 4 : 1);
        o.obs_per_day = ms[i] + 1;
        o.jump_rate = 1.0;
        o.noise_sd = i % 2 ? 1e-5 : 0.0;
        const size_t n = (size_t)o.ndays * (size_t)ms[i];
        double *r = malloc(n * sizeof *r);
        int64_t *off = malloc(((size_t)o.ndays + 1) * sizeof *off);
        assert_int_equal(raid_simulate_returns(&o, r, NULL), RAID_OK);
        for (int d = 0; d <= o.ndays; d++)
            off[d] = (int64_t)d * ms[i];
        char what[64];
        snprintf(what, sizeof what, "simulated M=%lld", (long long)ms[i]);
        check_device(dev, cpu, r, off, (size_t)o.ndays, what);
        free(r);
        free(off);
    }
    raid_ctx_destroy(dev);
    raid_ctx_destroy(cpu);
}

/* Batching: the chunk plan promises results independent of how chunks are grouped into launches.
 * Small batches force many launches through the two-buffer pipeline; the results must be bitwise equal
 * to one big batch. */
static void test_device_batches(void **state)
{
    (void)state;
    if (!t_have_opencl())
        skip();
    raid_ctx *dev = t_open_ctx(t_device()), *cpu = t_open_ctx("cpu");
    const size_t ns = 300;
    int64_t off[301];
    off[0] = 0;
    for (size_t i = 0; i < ns; i++)
        off[i + 1] = off[i] + (int64_t)(next_u64() % 9000);
    double *r = gaussian_returns((size_t)off[ns], 1e-3);
    raid_realized *a = malloc(ns * sizeof *a), *b = malloc(ns * sizeof *b);
    for (int p = 0; p < 2; p++) {
        raid_ctx_set_precision(dev, p ? RAID_PREC_DF : RAID_PREC_F32);
        assert_int_equal(raid_tuning_set(dev, RAID_TUNE_MAX_BATCH_ELEMS, (int64_t)(0)), RAID_OK);
        assert_int_equal(raid_realized_compute(dev, r, off, ns, a), RAID_OK);
        const size_t sizes[] = {4100, 10000, 65536};
        for (size_t k = 0; k < 3; k++) {
            assert_int_equal(raid_tuning_set(dev, RAID_TUNE_MAX_BATCH_ELEMS, (int64_t)(sizes[k])), RAID_OK);
            assert_int_equal(raid_realized_compute(dev, r, off, ns, b), RAID_OK);
            raid_timing t;
            raid_ctx_last_timing(dev, &t);
            assert_true(t.launches > 2);
            assert_memory_equal(a, b, ns * sizeof *a);
        }
    }
    assert_int_equal(raid_tuning_set(dev, RAID_TUNE_MAX_BATCH_ELEMS, (int64_t)(0)), RAID_OK);
    check_device(dev, cpu, r, off, ns, "batches");
    free(a);
    free(b);
    free(r);
    raid_ctx_destroy(dev);
    raid_ctx_destroy(cpu);
}

/* The device checks the returns' range itself (no host pass over the returns): the same status
 * and message as the cpu path, naming the first bad return in index order even when later chunks, read
 * first by no rule, hold others; in every policy. */
static void test_device_range_errors(void **state)
{
    (void)state;
    if (!t_have_opencl())
        skip();
    raid_ctx *dev = t_open_ctx(t_device()), *cpu = t_open_ctx("cpu");
    enum { N = 20000 };
    double *r = malloc(N * sizeof *r);
    uint64_t st = 99;
    for (int i = 0; i < N; i++)
        r[i] = (t_unif(&st) - 0.5) * 1e-3;
    int64_t off[] = {0, 7000, 7001, N};
    const struct { int at; double v; } cases[][3] = {
        {{12345, NAN, }, {19999, INFINITY}, {-1, 0}},  /* two chunks of the last segment */
        {{9000, 1e75}, {7000, -INFINITY}, {-1, 0}},   /* a one-return segment first */
        {{4097, -1e75}, {4096, 1e74}, {15000, NAN}},  /* 1e74 is allowed, -1e75 not */
        {{0, -NAN}, {-1, 0}, {-1, 0}},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        double saved[3] = {0.0, 0.0, 0.0}; /* set before use; the initialiser quiets gcc -O3 -Wmaybe-uninitialized */
        for (int j = 0; j < 3; j++)
            if (cases[c][j].at >= 0)
                saved[j] = r[cases[c][j].at], r[cases[c][j].at] = cases[c][j].v;
        raid_realized out[3];
        const raid_status sc = raid_realized_compute(cpu, r, off, 3, out);
        assert_int_equal(sc, RAID_EINVAL);
        for (int p = 0; p < 2; p++) {
            raid_ctx_set_precision(dev, p ? RAID_PREC_DF : RAID_PREC_F32);
            assert_int_equal(raid_realized_compute(dev, r, off, 3, out), sc);
            assert_string_equal(raid_ctx_errmsg(dev), raid_ctx_errmsg(cpu));
        }
        for (int j = 2; j >= 0; j--)
            if (cases[c][j].at >= 0)
                r[cases[c][j].at] = saved[j];
    }
    free(r);
    raid_ctx_destroy(dev);
    raid_ctx_destroy(cpu);
}

/* Each chunk is scaled by its own power of two on the device: a segment whose chunks differ by 1e60 in
 * magnitude (and windows straddling those chunk boundaries) stays within every bound. */
static void test_device_chunk_scales(void **state)
{
    (void)state;
    if (!t_have_opencl())
        skip();
    raid_ctx *dev = t_open_ctx(t_device()), *cpu = t_open_ctx("cpu");
    enum { N = 5 * 4096 + 77 };
    double *r = malloc(N * sizeof *r);
    uint64_t st = 5;
    const double mag[] = {1e-30, 1e30, 1.0, 1e-30, 1e-3, 1e20};
    for (int i = 0; i < N; i++)
        r[i] = (t_unif(&st) - 0.4) * mag[(i / 4096) % 6] * (i % 4096 == 0 ? 3 : 1);
    int64_t off[] = {0, 4095, N};
    check_device(dev, cpu, r, off, 2, "chunks of different scales");
    free(r);
    raid_ctx_destroy(dev);
    raid_ctx_destroy(cpu);
}

/* Returns whose powers underflow binary32 even after the power-of-two scaling: the host recomputes the
 * affected segments in float64 (the underflow guard), so every measure stays within its bound. */
static void test_device_underflow_guard(void **state)
{
    (void)state;
    if (!t_have_opencl())
        skip();
    raid_ctx *dev = t_open_ctx(t_device()), *cpu = t_open_ctx("cpu");
    double r[] = {0.01, -1e-60, 0.02, -3e-60, 0.015,      /* negative returns all tiny */
                  1e-3, 2e-40, -1e-3, 3e-40, 2e-3, -4e-40, /* tiny returns between normal ones */
                  0.0, 0.0, 0.0,                          /* all zero */
                  1e-200, -2e-200, 3e-200,                /* tiny but of one scale: scaling handles it */
                  1e74, -1e70, 2e73, 1e-300, -5e73,       /* the largest allowed, and 1e-300 beside them */
                  1e-300, 2e-310, -3e-300};               /* below the float64 normal range */
    int64_t off[] = {0, 5, 11, 14, 17, 22, 25};
    enum { NS = 6 };
    raid_realized d[NS], c[NS];
    assert_int_equal(raid_realized_compute(cpu, r, off, NS, c), RAID_OK);
    for (int p = 0; p < 2; p++) {
        raid_precision pol = p ? RAID_PREC_DF : RAID_PREC_F32;
        raid_ctx_set_precision(dev, pol);
        assert_int_equal(raid_realized_compute(dev, r, off, NS, d), RAID_OK);
        for (int i = 0; i < NS; i++)
            for (int k = 0; k < RAID_REALIZED_NMEASURES; k++) {
                double diff = raid_realized_diff(&d[i], &c[i], k), b = raid_realized_bound(pol, k, d[i].n);
                if (!(diff <= b))
                    fail_msg("%s segment %d %s: device %.17g cpu %.17g", p ? "df" : "f32", i,
                             raid_realized_names[k], raid_realized_get(&d[i], k), raid_realized_get(&c[i], k));
            }
        raid_timing t;
        raid_ctx_last_timing(dev, &t);
        assert_true(t.host_segments >= 2);
    }
    raid_ctx_destroy(dev);
    raid_ctx_destroy(cpu);
}

/* The df policy within 1e-13 of float64 (the documented bound is 1e-12) on adversarial
 * magnitudes: chunks of very different scales, tiny returns beside large ones (binary32 underflow of
 * products of two and three returns after the chunk's scaling), runs of zeros, a jump among small
 * returns, and medrv windows whose magnitudes tie in their high parts (equal or adjacent float64 values:
 * the median must be chosen exactly). Also with other run lengths and renormalisation intervals
 * (-DRAID_FOLD, a benchmark's build option) and the library's cbrt instead of the fast seed. */
static void test_device_df_adversarial(void **state)
{
    (void)state;
    if (!t_have_opencl())
        skip();
    raid_ctx *dev = t_open_ctx(t_device()), *cpu = t_open_ctx("cpu");
    enum { N = 6 * 4096 + 1234 };
    double *r = malloc(N * sizeof *r);
    uint64_t st = 77;
    for (int i = 0; i < N; i++) {
        const int c = i / 4096;
        double v = (t_unif(&st) - 0.45) * 1e-3;
        switch (c) {
        case 0: /* tiny beside large: 1e-40 and 1e-25 of the chunk's largest */
            v *= (i % 3 == 0) ? 1e-40 : (i % 3 == 1 ? 1e-25 : 1.0);
            break;
        case 1: /* runs of zeros and a jump */
            v = (i % 50 < 20) ? 0.0 : v;
            if (i == 4096 + 777)
                v = 0.04;
            break;
        case 2: /* ties: values equal or one float64 ulp apart (same binary32 high part) */
        {
            const double base = 1e-3 * (1 + (double)((i / 3) % 7));
            const int k = (int)(t_unif(&st) * 3);
            v = k == 0 ? base : nextafter(base, k == 1 ? 1.0 : 0.0);
            v = (t_unif(&st) < 0.5) ? -v : v;
            break;
        }
        case 3: /* a chunk 1e-30 of its neighbours */
            v *= 1e-30;
            break;
        case 4: /* large scale */
            v *= 1e30;
            break;
        default: /* ordinary */
            break;
        }
        r[i] = v;
    }
    const int64_t off[] = {0, 4096 + 1000, 2 * 4096 + 5, 3 * 4096 + 2000, 5 * 4096 - 1, N};
    const size_t ns = sizeof off / sizeof off[0] - 1;
    raid_realized d[8], c[8];
    assert_int_equal(raid_realized_compute(cpu, r, off, ns, c), RAID_OK);
    assert_int_equal(raid_ctx_set_precision(dev, RAID_PREC_DF), RAID_OK);
    const struct { size_t chunk, wg; const char *opts; } cf[] = {
        {4096, 256, ""}, {4096, 256, "-DRAID_FOLD=1"}, {4096, 256, "-DRAID_FOLD=16"}, {4096, 256, "-DRAID_XSTEP=1"},
        {4096, 256, "-DRAID_RELOAD=1"}, {384, 64, "-DRAID_FOLD=1"}, {8192, 256, ""}, {2048, 64, ""},
        {4096, 64, ""}, {512, 8, ""}, {384, 64, ""}, {128, 64, ""}, {4096, 256, "-DRAID_DF_GROUPS=1"},
        {384, 64, "-DRAID_DF_GROUPS=1"}, {256, 64, "-DRAID_DF_GROUPS=1"}, {8192, 256, "-DRAID_DF_GROUPS=1 -DRAID_XSTEP=1"}};
    for (size_t j = 0; j < sizeof cf / sizeof cf[0]; j++) {
        assert_int_equal(raid_ctx_set_chunk(dev, cf[j].chunk, cf[j].wg), RAID_OK);
        assert_int_equal(raid_tuning_set_build_options(dev, cf[j].opts), RAID_OK);
        if (raid_realized_compute(dev, r, off, ns, d) != RAID_OK)
            fail_msg("%s", raid_ctx_errmsg(dev));
        char what[96];
        snprintf(what, sizeof what, "df adversarial, chunk %zu wg %zu '%s'", cf[j].chunk, cf[j].wg, cf[j].opts);
        expect_close(d, c, ns, 1e-13, 2e-13, what);
    }
    assert_int_equal(raid_tuning_set_build_options(dev, ""), RAID_OK);
    free(r);
    raid_ctx_destroy(dev);
    raid_ctx_destroy(cpu);
}

/* Bitwise reproducible: again, and with batches uploaded straight from the caller's array. */
static void test_device_determinism(void **state)
{
    (void)state;
    if (!t_have_opencl())
        skip();
    raid_ctx *dev = t_open_ctx(t_device());
    int64_t off[4] = {0, 100000, 100001, 123457};
    double *r = gaussian_returns((size_t)off[3], 1e-3);
    raid_realized a[3], b[3];
    for (int p = 0; p < 2; p++) {
        raid_ctx_set_precision(dev, p ? RAID_PREC_DF : RAID_PREC_F32);
        assert_int_equal(raid_realized_compute(dev, r, off, 3, a), RAID_OK);
        assert_int_equal(raid_realized_compute(dev, r, off, 3, b), RAID_OK);
        assert_memory_equal(a, b, sizeof a);
        /* uploads straight from the caller's array, in small batches: the same bits */
        assert_int_equal(raid_tuning_set(dev, RAID_TUNE_DIRECT_UPLOAD, 1), RAID_OK);
        assert_int_equal(raid_tuning_set(dev, RAID_TUNE_MAX_BATCH_ELEMS, 20000), RAID_OK);
        assert_int_equal(raid_realized_compute(dev, r, off, 3, b), RAID_OK);
        assert_memory_equal(a, b, sizeof a);
        assert_int_equal(raid_tuning_set(dev, RAID_TUNE_DIRECT_UPLOAD, 0), RAID_OK);
        assert_int_equal(raid_tuning_set(dev, RAID_TUNE_MAX_BATCH_ELEMS, 0), RAID_OK);
    }
    assert_int_equal(raid_tuning_set(dev, RAID_TUNE_DIRECT_UPLOAD, 2), RAID_EINVAL);
    free(r);
    raid_ctx_destroy(dev);
}

/* Two pairs shared per barrier (RAID_XSTEP 2, the host's choice where the returns per work-item are a
 * multiple of 4) give the bits of one pair per barrier (-DRAID_XSTEP=1): runs of 16, 8 and 4 (chunks of
 * 4096, 2048 and 1024 at width 256). A run of 6 (chunk 1536) gets RAID_XSTEP 1 from the host and stays within
 * the bounds of float64; -DRAID_XSTEP=2 there is refused by the kernel's build. Full and partial chunks,
 * chunks starting on odd returns, zeros, returns far below their chunk's largest (raidBitsToDf's general
 * split inside the kernel) and float64 subnormals, both policies. */
static void test_device_xstep_same(void **state)
{
    (void)state;
    if (!t_have_opencl())
        skip();
    raid_ctx *dev = t_open_ctx(t_device()), *cpu = t_open_ctx("cpu");
    const size_t N = 5 * 4096 + 777;
    double *r = gaussian_returns(N, 1e-3);
    for (size_t i = 0; i < N; i++) {
        if (i % 97 == 3)
            r[i] = 0.0;
        else if (i % 89 == 5)
            r[i] *= 1e-25; /* d 2^-e below 2^-73 */
        else if (i % 1009 == 7)
            r[i] = (i & 1 ? 1 : -1) * 0x1p-1060; /* float64 subnormal */
    }
    const int64_t off[] = {0, 4096, 3 * 4096 + 1, 3 * 4096 + 2, 4 * 4096 + 999, (int64_t)N};
    const size_t ns = sizeof off / sizeof off[0] - 1;
    raid_realized a[5], b[5];
    const size_t chunks[] = {4096, 2048, 1024};
    for (size_t c = 0; c < sizeof chunks / sizeof chunks[0]; c++) {
        assert_int_equal(raid_ctx_set_chunk(dev, chunks[c], 256), RAID_OK);
        for (int p = 0; p < 2; p++) {
            raid_ctx_set_precision(dev, p ? RAID_PREC_DF : RAID_PREC_F32);
            assert_int_equal(raid_tuning_set_build_options(dev, ""), RAID_OK);
            assert_int_equal(raid_realized_compute(dev, r, off, ns, a), RAID_OK);
            assert_int_equal(raid_tuning_set_build_options(dev, "-DRAID_XSTEP=1"), RAID_OK);
            assert_int_equal(raid_realized_compute(dev, r, off, ns, b), RAID_OK);
            assert_memory_equal(a, b, sizeof a);
        }
    }
    assert_int_equal(raid_ctx_set_chunk(dev, 1536, 256), RAID_OK);
    assert_int_equal(raid_tuning_set_build_options(dev, ""), RAID_OK);
    check_device(dev, cpu, r, off, ns, "run 6 (RAID_XSTEP 1)");
    assert_int_equal(raid_tuning_set_build_options(dev, "-DRAID_XSTEP=2"), RAID_OK);
    assert_int_not_equal(raid_realized_compute(dev, r, off, ns, b), RAID_OK);
    assert_int_equal(raid_tuning_set_build_options(dev, ""), RAID_OK);
    free(r);
    raid_ctx_destroy(dev);
    raid_ctx_destroy(cpu);
}

/* Found by a tester: with a work-group narrower than the six partials (width 1, 2 or 4, which
 * raid_ctx_set_chunk accepts) only work-items lid < 6 wrote them, so the others were whatever the pooled
 * buffer held: wrong values with status OK, varying from run to run, and after a switch f32 -> df the
 * previous policy's partials (e.g. chunk 16, width 4 on 1e-3 sin(0.7 i): tpq 5.4e-07 vs 4.3e-06). Every
 * width from 1 to 8 and chunk lengths from one return per work-item to 64, against float64 in both
 * policies on one context (check_device runs f32 then df), and bitwise the same on a second run. */
static void test_device_narrow_widths(void **state)
{
    (void)state;
    if (!t_have_opencl())
        skip();
    raid_ctx *dev = t_open_ctx(t_device()), *cpu = t_open_ctx("cpu");
    const int64_t lens[] = {4000, 0, 1, 2, 3, 5, 17, 63, 64, 65, 1000, 2049};
    const size_t ns = sizeof lens / sizeof lens[0];
    int64_t off[16] = {0};
    for (size_t i = 0; i < ns; i++)
        off[i + 1] = off[i] + lens[i];
    const size_t n = (size_t)off[ns];
    double *r = gaussian_returns(n, 2e-3);
    for (int i = 0; i < 4000; i++)
        r[i] = 1e-3 * sin(0.7 * i); /* the tester's series */
    raid_realized a[16], b[16];
    const size_t widths[] = {1, 2, 4, 8}, runs[] = {2, 6, 16, 64};
    for (size_t iw = 0; iw < 4; iw++)
        for (size_t ir = 0; ir < 4; ir++) {
            const size_t w = widths[iw], chunk = w * runs[ir];
            char what[64];
            snprintf(what, sizeof what, "chunk %zu wg %zu", chunk, w);
            if (raid_ctx_set_chunk(dev, chunk, w) != RAID_OK)
                fail_msg("%s: %s", what, raid_ctx_errmsg(dev));
            check_device(dev, cpu, r, off, ns, what); /* ends in df */
            assert_int_equal(raid_realized_compute(dev, r, off, ns, a), RAID_OK);
            assert_int_equal(raid_realized_compute(dev, r, off, ns, b), RAID_OK);
            assert_memory_equal(a, b, ns * sizeof *a);
        }
    free(r);
    raid_ctx_destroy(dev);
    raid_ctx_destroy(cpu);
}

/* The fusion ablation (benchmark only): each measure group's kernel gives the fused kernel's accumulators
 * of that group bit for bit, and sends no more segments to the host than the fused kernel (the underflow
 * guard looks only at the accumulators the kernel computes; it used to see the others' zeros and redo every
 * segment on the host, which made the ablation at 10^9 returns take minutes). */
static void test_device_ablation_parts(void **state)
{
    (void)state;
    if (!t_have_opencl())
        skip();
    raid_ctx *dev = t_open_ctx(t_device());
    int64_t off[4] = {0, 9000, 9001, 20000};
    double *r = gaussian_returns((size_t)off[3], 1e-3);
    double all[3 * RAID_NACC], part[3 * RAID_NACC];
    assert_int_equal(raidRealizedAccDevice(dev, r, off, 3, RAID_PART_ALL, all), RAID_OK);
    raid_timing tm;
    raid_ctx_last_timing(dev, &tm);
    const uint64_t host_all = tm.host_segments; /* the segment of one return has zero sums: host */
    const unsigned masks[4] = {RAID_PART_RS, RAID_PART_BPV, RAID_PART_QUART, RAID_PART_MED};
    const unsigned owner[RAID_NACC] = {RAID_PART_RS, RAID_PART_RS, RAID_PART_BPV, RAID_PART_QUART, RAID_PART_QUART,
                                       RAID_PART_MED};
    for (int m = 0; m < 4; m++) {
        assert_int_equal(raidRealizedAccDevice(dev, r, off, 3, masks[m], part), RAID_OK);
        raid_ctx_last_timing(dev, &tm);
        assert_true(tm.host_segments <= host_all);
        for (int s = 0; s < 3; s++)
            for (int k = 0; k < RAID_NACC; k++)
                if (owner[k] == masks[m])
                    assert_memory_equal(&part[s * RAID_NACC + k], &all[s * RAID_NACC + k], sizeof(double));
    }
    free(r);
    raid_ctx_destroy(dev);
}

/* The kernels' layouts (df: work-item j takes the pairs t WG + j, so that a warp's loads are consecutive
 * 16-byte pairs, the two returns before each pair split by the neighbouring work-item and shared through
 * local memory; f32: groups of 8, 4 or 2 returns, the two before each group read again): within the
 * documented bounds of float64 in both policies (check_device) on chunk boundaries, chunks starting on odd
 * returns of the buffer (the unaligned loads), segments shorter than a pair, runs of 2, 4, 6 and 64 and narrow
 * widths; bitwise reproducible; f32 from the float64 bits equal bit for bit to f32 staged as floats by the
 * host; each ablation part's accumulators equal bit for bit to the fused kernel's. Odd runs (chunk length over width) are refused by the realized path with RAID_EINVAL. */
static void test_device_pairs(void **state)
{
    (void)state;
    if (!t_have_opencl())
        skip();
    raid_ctx *dev = t_open_ctx(t_device()), *cpu = t_open_ctx("cpu");
    int64_t off[32];
    size_t ns;
    double *r = edge_returns(off, &ns);
    for (int i = 4300; i < 4400; i++)
        r[i] = 1e-3 * sin(0.7 * i);
    const size_t cf[][2] = {{4096, 256}, {4096, 64}, {384, 64}, {512, 8}, {16, 4}, {2, 1}, {64, 2}, {64, 1}};
    raid_realized *a = malloc(ns * sizeof *a), *b = malloc(ns * sizeof *b);
    for (size_t j = 0; j < sizeof cf / sizeof cf[0]; j++) {
        char what[64];
        snprintf(what, sizeof what, "pairs, chunk %zu wg %zu", cf[j][0], cf[j][1]);
        assert_int_equal(raid_ctx_set_chunk(dev, cf[j][0], cf[j][1]), RAID_OK);
        check_device(dev, cpu, r, off, ns, what); /* ends in df */
        for (int p = 0; p < 2; p++) {
            assert_int_equal(raid_ctx_set_precision(dev, p ? RAID_PREC_F32 : RAID_PREC_DF), RAID_OK);
            assert_int_equal(raid_realized_compute(dev, r, off, ns, a), RAID_OK);
            assert_int_equal(raid_realized_compute(dev, r, off, ns, b), RAID_OK);
            assert_memory_equal(a, b, ns * sizeof *a);
            if (p) { /* f32: the kernel reading the float64 bits (as from device memory) gives the staged floats' bits */
                assert_int_equal(raid_tuning_set(dev, RAID_TUNE_DIRECT_UPLOAD, 1), RAID_OK);
                assert_int_equal(raid_realized_compute(dev, r, off, ns, b), RAID_OK);
                assert_int_equal(raid_tuning_set(dev, RAID_TUNE_DIRECT_UPLOAD, 0), RAID_OK);
                if (memcmp(a, b, ns * sizeof *a))
                    fail_msg("%s: f32 from the float64 bits differs from f32 staged by the host", what);
            }
        }
    }
    /* odd runs are refused, naming the rule; the context stays usable */
    const size_t odd[][2] = {{3, 1}, {192, 64}, {256, 256}};
    for (size_t j = 0; j < 3; j++) {
        assert_int_equal(raid_ctx_set_chunk(dev, odd[j][0], odd[j][1]), RAID_OK);
        assert_int_equal(raid_realized_compute(dev, r, off, ns, a), RAID_EINVAL);
        assert_non_null(strstr(raid_ctx_errmsg(dev), "the realized kernel needs an even number"));
    }
    /* the ablation's parts (aligned and unaligned chunk starts), on the segments of 5 returns or more: the
     * fused kernel's underflow guard sends some shorter ones to the host whole */
    assert_int_equal(raid_ctx_set_chunk(dev, 4096, 256), RAID_OK);
    const unsigned masks[4] = {RAID_PART_RS, RAID_PART_BPV, RAID_PART_QUART, RAID_PART_MED};
    const unsigned owner[RAID_NACC] = {RAID_PART_RS, RAID_PART_RS, RAID_PART_BPV, RAID_PART_QUART, RAID_PART_QUART,
                                       RAID_PART_MED};
    double *all = malloc(ns * RAID_NACC * sizeof *all), *part = malloc(ns * RAID_NACC * sizeof *part);
    for (int p = 0; p < 2; p++) {
        assert_int_equal(raid_ctx_set_precision(dev, p ? RAID_PREC_DF : RAID_PREC_F32), RAID_OK);
        assert_int_equal(raidRealizedAccDevice(dev, r, off, ns, RAID_PART_ALL, all), RAID_OK);
        for (int m = 0; m < 4; m++) {
            assert_int_equal(raidRealizedAccDevice(dev, r, off, ns, masks[m], part), RAID_OK);
            for (size_t s = 0; s < ns; s++)
                for (int k = 0; k < RAID_NACC; k++)
                    if (owner[k] == masks[m] && edge_lens[s] >= 5)
                        assert_memory_equal(&part[s * RAID_NACC + k], &all[s * RAID_NACC + k], sizeof(double));
        }
    }
    assert_int_equal(raid_tuning_set_build_options(dev, ""), RAID_OK);
    free(all);
    free(part);
    free(a);
    free(b);
    free(r);
    raid_ctx_destroy(dev);
    raid_ctx_destroy(cpu);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cpu_vs_plain),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_device_edges),
        cmocka_unit_test(test_device_many_chunks_and_policies),
        cmocka_unit_test(test_device_many_segments),
        cmocka_unit_test(test_device_simulated),
        cmocka_unit_test(test_device_batches),
        cmocka_unit_test(test_device_underflow_guard),
        cmocka_unit_test(test_device_range_errors),
        cmocka_unit_test(test_device_chunk_scales),
        cmocka_unit_test(test_device_df_adversarial),
        cmocka_unit_test(test_device_determinism),
        cmocka_unit_test(test_device_xstep_same),
        cmocka_unit_test(test_device_ablation_parts),
        cmocka_unit_test(test_device_narrow_widths),
        cmocka_unit_test(test_device_pairs),
    };
    if (getenv("RAID_TEST_FILTER")) /* e.g. RAID_TEST_FILTER='test_device_layout*' while working */
        cmocka_set_test_filter(getenv("RAID_TEST_FILTER"));
    return cmocka_run_group_tests(tests, NULL, NULL);
}
