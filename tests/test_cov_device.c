/* The device path of raid_cov_compute (src/cov/cov_device.c, kernels/cov.cl) against the float64 cpu path:
 * every estimator within raid_cov_bound x raid_cov_scale entry by entry on random days (N = 1 .. 70, N not a
 * multiple of the tile, M = 1 .. 2,000 across chunk boundaries, zero returns, a constant symbol, returns from
 * 1e-10 to 30), bitwise reproducible run to run, the bound's adversarial case (terms that cancel: an entry a
 * million times below its absolute sum), hy the host's bits, the f32 policy refused, and `raid cov --check`
 * on the bundled prices (exit 0) and its report. */
#define _POSIX_C_SOURCE 200809L
#include "support.h"
#include "raid.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One day of n symbols on a common grid of m + 1 times: symbol a's log price at time k is s_a z_k (z standard
 * normal-ish, i.i.d.), repeated from the previous time with probability 1/4 (zero returns); symbol 1 (when
 * n > 2) is constant (all returns zero); scales s_a from 1e-10 to 30. */
typedef struct day {
    size_t n;
    int64_t *off, *t;
    double *p;
} day;

static void day_free(day *d)
{
    free(d->off);
    free(d->t);
    free(d->p);
}

static double gauss(uint64_t *st)
{
    double s = 0.0;
    for (int k = 0; k < 12; k++)
        s += t_unif(st);
    return s - 6.0;
}

static day make_day(size_t n, int64_t m, uint64_t seed)
{
    day d = {n, malloc((n + 1) * sizeof(int64_t)), malloc(n * (size_t)(m + 1) * sizeof(int64_t)),
             malloc(n * (size_t)(m + 1) * sizeof(double))};
    assert_non_null(d.off);
    uint64_t st = seed;
    d.off[0] = 0;
    for (size_t a = 0; a < n; a++) {
        const double scale = a == 1 && n > 2 ? 0.0 : pow(10.0, -10.0 + 11.5 * t_unif(&st));
        double x = 0.0;
        for (int64_t k = 0; k <= m; k++) {
            const size_t e = a * (size_t)(m + 1) + (size_t)k;
            if (k == 0 || t_unif(&st) >= 0.25)
                x = scale * gauss(&st);
            d.t[e] = 1000000 * k;
            d.p[e] = 100.0 * exp(x);
        }
        d.off[a + 1] = d.off[a] + m + 1;
    }
    return d;
}

/* est of d on ctx into a malloc'd array (parts x n x n). */
static double *run(raid_ctx *ctx, raid_cov_estimator est, const day *d)
{
    const size_t sz = (size_t)raid_cov_parts(est) * d->n * d->n;
    double *v = malloc(sz * sizeof *v);
    assert_non_null(v);
    if (raid_cov_compute(ctx, est, RAID_COV_SYNC_PREVIOUS, d->n, d->off, d->t, d->p, v, NULL) != RAID_OK)
        fail_msg("raid_cov_compute(%s): %s", raid_cov_estimator_name(est), raid_ctx_errmsg(ctx));
    return v;
}

/* The scaled difference of est on d between ctx and the cpu; asserted within the bound. */
static double check_day(raid_ctx *ctx, raid_cov_estimator est, const day *d)
{
    const size_t sz = (size_t)raid_cov_parts(est) * d->n * d->n;
    double *a = run(ctx, est, d), *b = run(NULL, est, d), *s = malloc(sz * sizeof *s);
    assert_non_null(s);
    assert_int_equal(raid_cov_scale(est, RAID_COV_SYNC_PREVIOUS, d->n, d->off, d->t, d->p, s), RAID_OK);
    const double diff = raid_cov_diff(a, b, s, sz), bound = raid_cov_bound(RAID_PREC_DF, est);
    if (!(diff <= bound))
        fail_msg("%s n=%zu: scaled difference %.3e above the bound %.3e", raid_cov_estimator_name(est), d->n, diff,
                 bound);
    free(a);
    free(b);
    free(s);
    return diff;
}

static const raid_cov_estimator dev_ests[] = {RAID_COV_RCOV, RAID_COV_RBPCOV, RAID_COV_RSEMICOV, RAID_COV_MRC,
                                              RAID_COV_MRC_PSD, RAID_COV_RKCOV};

static void test_within_bound(void **state)
{
    (void)state;
    if (!t_have_opencl())
        skip();
    raid_ctx *ctx = t_open_ctx(t_device());
    static const struct { size_t n; int64_t m; } cases[] = {{1, 1}, {2, 2}, {3, 7}, {1, 2000}, {33, 100},
                                                            {70, 41}, {5, 1025}, {40, 2000}};
    for (size_t e = 0; e < sizeof dev_ests / sizeof *dev_ests; e++) {
        double worst = 0.0;
        for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
            day d = make_day(cases[c].n, cases[c].m, 1000 * e + c + 1);
            const double diff = check_day(ctx, dev_ests[e], &d);
            raid_timing tm;
            raid_ctx_last_timing(ctx, &tm);
            if (cases[c].m >= 7 && dev_ests[e] != RAID_COV_RKCOV) /* defined there: the kernel ran */
                assert_true(tm.launches > 0);
            worst = diff > worst ? diff : worst;
            day_free(&d);
        }
        printf("%-9s largest |device - cpu| / scale %.3e (bound %.1e)\n", raid_cov_estimator_name(dev_ests[e]), worst,
               raid_cov_bound(RAID_PREC_DF, dev_ests[e]));
    }
    raid_ctx_destroy(ctx);
}

/* The same bits from two runs, and from a second context. */
static void test_reproducible(void **state)
{
    (void)state;
    if (!t_have_opencl())
        skip();
    raid_ctx *c1 = t_open_ctx(t_device()), *c2 = t_open_ctx(t_device());
    day d = make_day(37, 1100, 77);
    for (size_t e = 0; e < sizeof dev_ests / sizeof *dev_ests; e++) {
        const size_t sz = (size_t)raid_cov_parts(dev_ests[e]) * d.n * d.n * sizeof(double);
        double *a = run(c1, dev_ests[e], &d), *b = run(c1, dev_ests[e], &d), *c = run(c2, dev_ests[e], &d);
        assert_memory_equal(a, b, sz);
        assert_memory_equal(a, c, sz);
        free(a);
        free(b);
        free(c);
    }
    day_free(&d);
    raid_ctx_destroy(c1);
    raid_ctx_destroy(c2);
}

/* Cancelling terms: the second half of the day repeats the first half's returns; y's returns are x's in the
 * first half and minus x's in the second, so rcov's off-diagonal entry is below 1e-6 of its absolute sum (the
 * log returns' roundings only): a relative bound on the
 * entry itself would be meaningless, the bound against the absolute sum holds. Each half is 1,025 returns
 * (chunks of 1,024 meet inside both). */
static void test_cancelling(void **state)
{
    (void)state;
    if (!t_have_opencl())
        skip();
    raid_ctx *ctx = t_open_ctx(t_device());
    const int64_t m = 2050;
    day d = {2, malloc(3 * sizeof(int64_t)), malloc(2 * (size_t)(m + 1) * sizeof(int64_t)),
             malloc(2 * (size_t)(m + 1) * sizeof(double))};
    uint64_t st = 5;
    double x = 0.0, y = 0.0, r[1026];
    for (int64_t k = 0; k <= m; k++) {
        if (k > 0) { /* the second half repeats the first half's returns */
            if (k <= m / 2)
                r[k] = 0.01 * gauss(&st);
            const double v = r[k <= m / 2 ? k : k - m / 2];
            x += v;
            y += k <= m / 2 ? v : -v;
        }
        d.t[k] = d.t[m + 1 + k] = 60000000 * k;
        d.p[k] = 100.0 * exp(x);
        d.p[m + 1 + k] = 100.0 * exp(y);
    }
    d.off[0] = 0;
    d.off[1] = m + 1;
    d.off[2] = 2 * (m + 1);
    double *a = run(ctx, RAID_COV_RCOV, &d), *b = run(NULL, RAID_COV_RCOV, &d), s[4];
    assert_int_equal(raid_cov_scale(RAID_COV_RCOV, RAID_COV_SYNC_PREVIOUS, 2, d.off, d.t, d.p, s), RAID_OK);
    printf("cancelling: entry %.3e, scale %.3e, |device - cpu| %.3e\n", b[1], s[1], fabs(a[1] - b[1]));
    assert_true(fabs(b[1]) < 1e-6 * s[1]);
    assert_true(raid_cov_diff(a, b, s, 4) <= raid_cov_bound(RAID_PREC_DF, RAID_COV_RCOV));
    free(a);
    free(b);
    day_free(&d);
    raid_ctx_destroy(ctx);
}

/* hy is the host's computation on a device context: the same bits; its bound is 0. */
static void test_hy_host(void **state)
{
    (void)state;
    if (!t_have_opencl())
        skip();
    raid_ctx *ctx = t_open_ctx(t_device());
    day d = make_day(6, 50, 9);
    double *a = run(ctx, RAID_COV_HY, &d), *b = run(NULL, RAID_COV_HY, &d);
    assert_memory_equal(a, b, 36 * sizeof(double));
    assert_true(raid_cov_bound(RAID_PREC_DF, RAID_COV_HY) == 0.0);
    free(a);
    free(b);
    day_free(&d);
    raid_ctx_destroy(ctx);
}

/* The f32 policy is not offered on a device: refused with its message; its bound is NAN. */
static void test_f32_refused(void **state)
{
    (void)state;
    if (!t_have_opencl())
        skip();
    raid_ctx *ctx = t_open_ctx(t_device());
    assert_int_equal(raid_ctx_set_precision(ctx, RAID_PREC_F32), RAID_OK);
    day d = make_day(3, 10, 3);
    double v[9];
    assert_int_equal(raid_cov_compute(ctx, RAID_COV_RCOV, RAID_COV_SYNC_PREVIOUS, 3, d.off, d.t, d.p, v, NULL),
                     RAID_EINVAL);
    assert_non_null(strstr(raid_ctx_errmsg(ctx), "df precision policy only"));
    assert_true(isnan(raid_cov_bound(RAID_PREC_F32, RAID_COV_RCOV)));
    day_free(&d);
    raid_ctx_destroy(ctx);
}

/* raid cov --check on the bundled one-minute prices of two symbols: every estimator within its bound (exit
 * 0), the report names the estimator and the bound. */
static void test_cli_check(void **state)
{
    (void)state;
    if (!t_have_opencl())
        skip();
    static const char *const ests[] = {"rcov", "rbpcov", "rsemicov", "mrc", "mrc_psd", "rkcov", "hy"};
    for (size_t e = 0; e < sizeof ests / sizeof *ests; e++) {
        char *err = NULL;
        const int rc = t_cli(NULL, &err, "cov %s --estimator %s --device %s --check -q -o /dev/null",
                             t_data("onemin_stock_market.csv"), ests[e], t_device());
        if (rc != 0)
            fail_msg("raid cov --estimator %s --check: exit %d: %s", ests[e], rc, err);
        assert_non_null(strstr(err, "check passed"));
        assert_non_null(strstr(err, ests[e]));
        free(err);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_within_bound), cmocka_unit_test(test_reproducible), cmocka_unit_test(test_cancelling),
        cmocka_unit_test(test_hy_host),      cmocka_unit_test(test_f32_refused),  cmocka_unit_test(test_cli_check),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
