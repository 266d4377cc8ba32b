/*
 * The device path of the noise-robust measures (raid_realized_noise_compute on a device context,
 * kernels/noise.cl, src/realized/noise_device.c) against the float64 cpu path, within
 * raid_realized_noise_bound on the scaled difference raid_realized_noise_diff (docs/precision.md "The
 * noise-robust measures"): random segments of 0 to 5,000 returns with runs of zeros, huge and tiny
 * magnitudes and noise of several sizes; adversarial cancellation (alternating signs: rk and TSRV's
 * window sums cancel); both policies; bitwise reproducibility; the bundled trades through `raid realized
 * --check`. PoCL compiles kernels slowly: a few small calls.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "raid.h"
#include "support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Device and cpu results of the segments, compared column by column: returns the largest diff / bound
 * over columns with a non-zero bound, fails on a column above its bound. */
static double compare(raid_ctx *dev, raid_ctx *cpu, const double *r, const int64_t *off, size_t ns, const char *what)
{
    raid_realized_noise *a = calloc(ns, sizeof *a), *b = calloc(ns, sizeof *b);
    raid_realized *c = calloc(ns, sizeof *c);
    assert_non_null(a);
    assert_non_null(b);
    assert_non_null(c);
    raid_timing t0, t1;
    raid_ctx_last_timing(dev, &t0);
    assert_int_equal(raid_realized_noise_compute(dev, r, off, ns, a), RAID_OK);
    raid_ctx_last_timing(dev, &t1);
    assert_true(t1.launches > t0.launches); /* the sums were formed on the device */
    assert_int_equal(raid_realized_noise_compute(cpu, r, off, ns, b), RAID_OK);
    assert_int_equal(raid_realized_compute(cpu, r, off, ns, c), RAID_OK);
    const raid_precision p = raid_ctx_precision(dev);
    double worst = 0;
    for (size_t s = 0; s < ns; s++)
        for (int k = 0; k < RAID_REALIZED_NOISE_NMEASURES; k++) {
            const double d = raid_realized_noise_diff(&a[s], &b[s], k, c[s].rv), bd = raid_realized_noise_bound(p, k, 0);
            if (!(d <= bd))
                fail_msg("%s: segment %zu (M = %lld) %s: device %.17g cpu %.17g diff %.3e > bound %.3e", what, s,
                         (long long)b[s].n, raid_realized_noise_names[k], raid_realized_noise_get(&a[s], k),
                         raid_realized_noise_get(&b[s], k), d, bd);
            if (bd > 0 && d / bd > worst)
                worst = d / bd;
        }
    free(a);
    free(b);
    free(c);
    return worst;
}

/* Random segments: lengths 0 .. 5,000 (the short ones every estimator's edge), Gaussian returns with
 * i.i.d. noise of a random size, runs of zeros, scales from 1e-100 to 1e60 per segment. */
static double *random_segments(uint64_t seed, int64_t *off, size_t ns)
{
    static const int64_t fixed[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 12, 39, 40, 41, 195, 390, 5000};
    const size_t nf = sizeof fixed / sizeof *fixed;
    uint64_t st = seed;
    off[0] = 0;
    for (size_t s = 0; s < ns; s++)
        off[s + 1] = off[s] + (s < nf ? fixed[s] : (int64_t)(t_unif(&st) * 5001));
    double *r = malloc((size_t)(off[ns] ? off[ns] : 1) * sizeof *r);
    assert_non_null(r);
    for (size_t s = 0; s < ns; s++) {
        const double scale = pow(10.0, -100 + 160 * t_unif(&st)), noise = t_unif(&st) * 3;
        double prev = 0;
        for (int64_t i = off[s]; i < off[s + 1]; i++) {
            const double u1 = t_unif(&st) + 1e-300, u2 = t_unif(&st);
            const double e = noise * sqrt(-2 * log(u1)) * cos(6.283185307179586 * u2);
            const double z = sqrt(-2 * log(t_unif(&st) + 1e-300)) * sin(6.283185307179586 * t_unif(&st));
            r[i] = scale * (z + e - prev); /* MA(1) from the noise: a price observed with noise */
            prev = e;
            if (t_unif(&st) < 0.05) /* a run of zeros */
                for (int64_t j = 0; j < 20 && i < off[s + 1]; j++, i++)
                    r[i] = 0;
        }
    }
    return r;
}

static void test_random_segments(void **state)
{
    (void)state;
    if (!t_have_opencl())
        skip();
    raid_ctx *dev = t_open_ctx(t_device()), *cpu = t_open_ctx("cpu");
    enum { NS = 40 };
    int64_t off[NS + 1];
    double *r = random_segments(11, off, NS);
    const double w = compare(dev, cpu, r, off, NS, "random df");
    print_message("random segments, df: largest diff / bound %.3g\n", w);
    assert_int_equal(raid_ctx_set_precision(dev, RAID_PREC_F32), RAID_OK);
    const double w32 = compare(dev, cpu, r, off, NS, "random f32");
    print_message("random segments, f32: largest diff / bound %.3g\n", w32);
    free(r);
    raid_ctx_destroy(dev);
    raid_ctx_destroy(cpu);
}

/* Adversarial cancellation: r_i = (-1)^i a (1 + small) makes gamma_h alternate in sign with |gamma_h|
 * near gamma_0, so rk is a small difference of large terms; a K-step window sum of an even K is near 0,
 * so TSRV's first term is far below K rv; a price that comes back exactly to its level (a, -a) gives
 * exact zeros. And a segment whose mins are all tiny (minrv's terms below binary32's range at the
 * segment's scale: the host recomputes minrv's sum). */
static void test_adversarial(void **state)
{
    (void)state;
    if (!t_have_opencl())
        skip();
    raid_ctx *dev = t_open_ctx(t_device()), *cpu = t_open_ctx("cpu");
    enum { NS = 5 };
    int64_t off[NS + 1] = {0, 3000, 6000, 6800, 7600, 9600};
    double *r = malloc(9600 * sizeof *r);
    assert_non_null(r);
    uint64_t st = 5;
    for (int64_t i = 0; i < 3000; i++) /* alternating, relative perturbation 1e-6 */
        r[i] = (i % 2 ? -1e-3 : 1e-3) * (1 + 1e-6 * (t_unif(&st) - 0.5));
    for (int64_t i = 3000; i < 6000; i++) /* exact bounce plus a small signal */
        r[i] = (i % 2 ? -2e-3 : 2e-3) + 1e-7 * (t_unif(&st) - 0.5);
    for (int64_t i = 6000; i < 6800; i++) /* exact bounce: every even window sums to 0 */
        r[i] = i % 2 ? -1e-3 : 1e-3;
    for (int64_t i = 6800; i < 7600; i++) /* big and tiny alternating: minrv's terms 1e-80 of the scale */
        r[i] = i % 2 ? 1e-42 * (1 + t_unif(&st)) : 1e-2 * (t_unif(&st) - 0.5);
    for (int64_t i = 7600; i < 9600; i++) /* a trend with alternating noise of 1e4 times its size */
        r[i] = 1e-8 + (i % 2 ? -1e-4 : 1e-4);
    const double w = compare(dev, cpu, r, off, NS, "adversarial df");
    print_message("adversarial, df: largest diff / bound %.3g\n", w);
    free(r);
    raid_ctx_destroy(dev);
    raid_ctx_destroy(cpu);
}

/* The same call twice: the same bits; and against the cpu path on a context of another work-group width. */
static void test_reproducible(void **state)
{
    (void)state;
    if (!t_have_opencl())
        skip();
    raid_ctx *dev = t_open_ctx(t_device());
    enum { NS = 6 };
    int64_t off[NS + 1];
    double *r = random_segments(23, off, NS);
    raid_realized_noise a[NS], b[NS];
    assert_int_equal(raid_realized_noise_compute(dev, r, off, NS, a), RAID_OK);
    assert_int_equal(raid_realized_noise_compute(dev, r, off, NS, b), RAID_OK);
    assert_memory_equal(a, b, sizeof a);
    raid_ctx *cpu = t_open_ctx("cpu");
    assert_int_equal(raid_ctx_set_chunk(dev, 4096, 64), RAID_OK);
    compare(dev, cpu, r, off, NS, "work-group 64");
    free(r);
    raid_ctx_destroy(dev);
    raid_ctx_destroy(cpu);
}

/* The bundled trades, tick by tick, through `raid realized --check` with the noise-robust columns. */
static void test_trades_check(void **state)
{
    (void)state;
    if (!t_have_opencl())
        skip();
    for (int p = 0; p < 2; p++) {
        char *out, *err;
        const int st = t_cli(&out, &err,
                             "realized '%s/trades_xxx_2days.csv' --sample tick --measures rv,rk,rk_h,tsrv,tsrv_k,prv,"
                             "minrv --device %s --precision %s --check -o /dev/null",
                             RAID_DATA_DIR, t_device(), p ? "f32" : "df");
        if (st != 0 || !strstr(err, "check passed") || !strstr(err, "  rk ") || !strstr(err, "  minrv "))
            fail_msg("exit %d, stderr:\n%s", st, err);
        free(out);
        free(err);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_segments),
        cmocka_unit_test(test_adversarial),
        cmocka_unit_test(test_reproducible),
        cmocka_unit_test(test_trades_check),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
