/* The device path of raid_cov_compute (src/cov/cov_device.c, kernels/cov.cl) against the float64 cpu path:
 * every estimator within raid_cov_bound x raid_cov_scale entry by entry on random days (N = 1 .. 70, N not a
 * multiple of the tile, M = 1 .. 2,000 across chunk boundaries, zero returns, a constant symbol, returns from
 * 1e-10 to 30), bitwise reproducible run to run, the bound's adversarial case (terms that cancel: an entry a
 * million times below its absolute sum), hy (kernels/cov.cl cov_hy) within its bound on asynchronous ticks and
 * their edges (0 and 1 tick, shared times, no overlap, unequal counts, a shared time across a chunk boundary)
 * and bitwise reproducible across runs, contexts and batch sizes, the f32 policy refused, and `raid cov --check`
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

/* ---- hy on asynchronous ticks (kernels/cov.cl cov_hy) ---- */

/* One symbol's ticks: cnt Poisson times in [t0, t1] us (exponential gaps scaled to the span), each rounded
 * down to a multiple of grid us when grid > 0 (times repeat within a symbol and across symbols); log prices
 * scale * z (z i.i.d., repeated from the previous tick with probability 1/4: zero returns), so the returns
 * are about scale in size whatever the number of ticks. */
typedef struct tick_spec {
    int64_t cnt, t0, t1, grid;
    double scale;
} tick_spec;

static day make_ticks(size_t n, const tick_spec *sp, uint64_t seed)
{
    int64_t total = 0;
    for (size_t a = 0; a < n; a++)
        total += sp[a].cnt;
    day d = {n, malloc((n + 1) * sizeof(int64_t)), malloc((size_t)(total ? total : 1) * sizeof(int64_t)),
             malloc((size_t)(total ? total : 1) * sizeof(double))};
    double *gap = malloc((size_t)(total + 1) * sizeof *gap);
    assert_non_null(d.off);
    assert_non_null(gap);
    uint64_t st = seed;
    d.off[0] = 0;
    for (size_t a = 0; a < n; a++) {
        const int64_t c = sp[a].cnt, o = d.off[a];
        double sum = 0.0, x = 0.0;
        for (int64_t k = 0; k <= c; k++)
            sum += gap[k] = -log(1.0 - t_unif(&st));
        double at = 0.0;
        for (int64_t k = 0; k < c; k++) {
            at += gap[k];
            int64_t t = sp[a].t0 + (int64_t)((double)(sp[a].t1 - sp[a].t0) * (at / sum));
            if (sp[a].grid > 0)
                t -= (t - sp[a].t0) % sp[a].grid;
            d.t[o + k] = k > 0 && t < d.t[o + k - 1] ? d.t[o + k - 1] : t;
            if (k == 0 || t_unif(&st) >= 0.25)
                x = sp[a].scale * gauss(&st);
            d.p[o + k] = 100.0 * exp(x);
        }
        d.off[a + 1] = o + c;
    }
    free(gap);
    return d;
}

#define DAY_US 23400000000LL /* 6.5 hours */

/* Random days of asynchronous ticks: N = 1 .. 40 symbols, 0 to 5,000 ticks each (pairs of many chunks of
 * 1,024 merge positions), on a microsecond, millisecond or one-second grid (repeated times), return scales
 * from 1e-10 to 30, some symbols trading only part of the day; hy on the device within its bound of the cpu. */
static void test_hy_within_bound(void **state)
{
    (void)state;
    if (!t_have_opencl())
        skip();
    raid_ctx *ctx = t_open_ctx(t_device());
    static const size_t ns[] = {1, 2, 3, 5, 17, 40};
    static const int64_t grids[] = {0, 1000, 1000000};
    double worst = 0.0;
    uint64_t st = 41;
    for (size_t c = 0; c < sizeof ns / sizeof *ns; c++) {
        tick_spec sp[40];
        for (size_t a = 0; a < ns[c]; a++) {
            const int64_t t0 = t_unif(&st) < 0.3 ? (int64_t)(t_unif(&st) * 0.5 * DAY_US) : 0;
            sp[a] = (tick_spec){(int64_t)pow(10.0, t_unif(&st) * log10(5000.0)) - (t_unif(&st) < 0.1), t0,
                                t0 + (int64_t)((double)(DAY_US - t0) * (0.5 + 0.5 * t_unif(&st))), grids[(a + c) % 3],
                                pow(10.0, -10.0 + 11.5 * t_unif(&st))};
        }
        day d = make_ticks(ns[c], sp, 500 + c);
        const double diff = check_day(ctx, RAID_COV_HY, &d);
        raid_timing tm;
        raid_ctx_last_timing(ctx, &tm);
        assert_true(tm.launches > 0);
        worst = diff > worst ? diff : worst;
        day_free(&d);
    }
    printf("hy        largest |device - cpu| / scale %.3e (bound %.1e)\n", worst,
           raid_cov_bound(RAID_PREC_DF, RAID_COV_HY));
    raid_ctx_destroy(ctx);
}

/* The day's hy on ctx and the cpu, within the bound; the device's matrix (malloc'd) for the caller. */
static double *hy_both(raid_ctx *ctx, const day *d, double **cpu)
{
    check_day(ctx, RAID_COV_HY, d);
    *cpu = run(NULL, RAID_COV_HY, d);
    return run(ctx, RAID_COV_HY, d);
}

/* The edges: a symbol without a tick (absent: NaN) and one with one tick (no return: 0 everywhere); times
 * shared by every symbol and by a subset; one symbol's ticks all before the other's, and ending where the
 * other's start (no interval overlaps: exactly 0); 20,000 ticks against 3; returns of 1e-10 against 30. */
static void test_hy_edges(void **state)
{
    (void)state;
    if (!t_have_opencl())
        skip();
    raid_ctx *ctx = t_open_ctx(t_device());
    double *a, *b;
    { /* 0 and 1 tick */
        const tick_spec sp[] = {{500, 0, DAY_US, 0, 1e-3}, {0, 0, DAY_US, 0, 1e-3}, {1, 0, DAY_US, 0, 1e-3},
                                {700, 0, DAY_US, 1000000, 1e-3}};
        day d = make_ticks(4, sp, 1);
        a = hy_both(ctx, &d, &b);
        for (size_t j = 0; j < 4; j++) {
            assert_true(isnan(a[1 * 4 + j]) && isnan(a[j * 4 + 1]));
            if (j != 1)
                assert_true(a[2 * 4 + j] == 0.0 && a[j * 4 + 2] == 0.0 && b[2 * 4 + j] == 0.0);
        }
        assert_true(a[0 * 4 + 3] != 0.0);
        free(a);
        free(b);
        day_free(&d);
    }
    { /* the same times for three symbols (one second grid: many shared), a fourth on every other second */
        const tick_spec sp[] = {{3000, 0, 3000000000LL, 1000000, 1e-3}, {3000, 0, 3000000000LL, 1000000, 2e-3},
                                {3000, 0, 3000000000LL, 1000000, 1e-4}, {1500, 0, 3000000000LL, 2000000, 1e-3}};
        day d = make_ticks(4, sp, 2);
        memcpy(d.t + d.off[1], d.t, 3000 * sizeof(int64_t));
        memcpy(d.t + d.off[2], d.t, 3000 * sizeof(int64_t));
        a = hy_both(ctx, &d, &b);
        free(a);
        free(b);
        day_free(&d);
    }
    { /* no overlap: symbol 0 in the first hour, 1 in the third, 2 from the end of 0 on */
        const tick_spec sp[] = {{800, 0, 3600000000LL, 0, 1e-3}, {900, 7200000000LL, 10800000000LL, 0, 1e-3},
                                {50, 3600000000LL, 7200000000LL, 0, 1e-3}};
        day d = make_ticks(3, sp, 3);
        d.t[d.off[1] - 1] = 3600000000LL; /* 0 ends where 2 starts */
        d.t[d.off[2]] = 3600000000LL;
        a = hy_both(ctx, &d, &b);
        for (size_t e = 0; e < 9; e++)
            if (e / 3 != e % 3)
                assert_true(a[e] == 0.0 && b[e] == 0.0);
        free(a);
        free(b);
        day_free(&d);
    }
    { /* very unequal counts; extreme magnitudes */
        const tick_spec sp[] = {{20000, 0, DAY_US, 0, 1e-3}, {3, 0, DAY_US, 0, 1e-2}, {1500, 0, DAY_US, 0, 1e-10},
                                {2500, 0, DAY_US, 1000, 30.0}};
        day d = make_ticks(4, sp, 4);
        a = hy_both(ctx, &d, &b);
        assert_true(fabs(b[0 * 4 + 1]) > 0.0 && fabs(b[2 * 4 + 3]) > 0.0);
        free(a);
        free(b);
        day_free(&d);
    }
    raid_ctx_destroy(ctx);
}

/* A time in both lists whose two merge positions straddle a chunk boundary: symbol 0 at every second
 * 0 .. 2999, symbol 1 at 1 .. 2999 (the copies of second i at positions 2i - 1 and 2i: 1,023 and 1,024 for
 * i = 512), and at 2 .. 2999 (positions 2i - 2 and 2i - 1: no straddle). The term of that time is counted once,
 * within the bound of the cpu's: a missed or doubled term is about 1/3,000 of the entry's absolute sum. */
static void test_hy_chunk_seam(void **state)
{
    (void)state;
    if (!t_have_opencl())
        skip();
    raid_ctx *ctx = t_open_ctx(t_device());
    for (int skip0 = 1; skip0 <= 2; skip0++) {
        const tick_spec sp[] = {{3000, 0, DAY_US, 0, 1e-3}, {3000 - skip0, 0, DAY_US, 0, 1e-3}};
        day d = make_ticks(2, sp, 10 + (uint64_t)skip0);
        for (int64_t k = 0; k < 3000; k++)
            d.t[k] = 1000000 * k;
        for (int64_t k = 0; k < 3000 - skip0; k++)
            d.t[3000 + k] = 1000000 * (k + skip0);
        double *b, *a = hy_both(ctx, &d, &b);
        free(a);
        free(b);
        day_free(&d);
    }
    raid_ctx_destroy(ctx);
}

/* The same bits from two runs, from a second context, and with batches of 7 (pair, chunk) items (a pair's
 * chunks in several launches); the bound is 1e-12. */
static void test_hy_reproducible(void **state)
{
    (void)state;
    if (!t_have_opencl())
        skip();
    raid_ctx *c1 = t_open_ctx(t_device()), *c2 = t_open_ctx(t_device());
    const tick_spec sp[] = {{4000, 0, DAY_US, 0, 1e-3}, {2000, 0, DAY_US, 1000000, 1e-3}, {1, 0, DAY_US, 0, 1e-3},
                            {300, DAY_US / 2, DAY_US, 0, 1e-5}, {5000, 0, DAY_US, 1000, 1e-3}};
    day d = make_ticks(5, sp, 99);
    const size_t sz = 25 * sizeof(double);
    double *a = run(c1, RAID_COV_HY, &d), *b = run(c1, RAID_COV_HY, &d), *c = run(c2, RAID_COV_HY, &d);
    assert_int_equal(raid_tuning_set(c2, RAID_TUNE_MAX_BATCH_ELEMS, 7), RAID_OK);
    double *e = run(c2, RAID_COV_HY, &d);
    raid_timing tm;
    raid_ctx_last_timing(c2, &tm);
    assert_true(tm.launches > 5);
    assert_memory_equal(a, b, sz);
    assert_memory_equal(a, c, sz);
    assert_memory_equal(a, e, sz);
    assert_true(raid_cov_bound(RAID_PREC_DF, RAID_COV_HY) == 1e-12);
    free(a);
    free(b);
    free(c);
    free(e);
    day_free(&d);
    raid_ctx_destroy(c1);
    raid_ctx_destroy(c2);
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
        cmocka_unit_test(test_hy_within_bound), cmocka_unit_test(test_hy_edges), cmocka_unit_test(test_hy_chunk_seam),
        cmocka_unit_test(test_hy_reproducible), cmocka_unit_test(test_f32_refused), cmocka_unit_test(test_cli_check),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
