/* The progress reports of the jobs (include/raid/core.h raid_ctx_set_progress, its contract): every report
 * from the calling thread, a phase's done never decreasing, a known total reached at the end, at most
 * about one report per 100 ms (plus a phase's first and last), for the jobs that report: moving averages
 * (cpu), GARCH windows, HAR windows (OpenMP), the sweep, a CSV job reading bytes and the realized table's
 * adds (on the device under test), the simulator; none without a callback or after it is removed. */
#define _POSIX_C_SOURCE 200809L
#include "support.h"

#include "raid.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* What a job reported. */
typedef struct rec {
    pthread_t caller;
    size_t n;                    /* reports */
    size_t other_thread;         /* reports from another thread than caller */
    size_t decreasing;           /* reports below the one before, in the same unit */
    char unit[32];               /* of the last report */
    char units[4][32];           /* the distinct units, in order */
    size_t nunits;
    uint64_t done, total;        /* of the last report */
    uint64_t first_total;
} rec;

static void on_progress(void *user, uint64_t done, uint64_t total, const char *unit)
{
    rec *r = user;
    if (!pthread_equal(pthread_self(), r->caller))
        r->other_thread++;
    if (r->n && !strcmp(unit, r->unit) && done < r->done)
        r->decreasing++;
    if (!r->n || strcmp(unit, r->unit)) {
        if (r->nunits < 4)
            snprintf(r->units[r->nunits++], sizeof r->units[0], "%s", unit);
        r->first_total = total;
    }
    snprintf(r->unit, sizeof r->unit, "%s", unit);
    r->done = done;
    r->total = total;
    r->n++;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void start(rec *r, raid_ctx *ctx)
{
    memset(r, 0, sizeof *r);
    r->caller = pthread_self();
    assert_int_equal(raid_ctx_set_progress(ctx, on_progress, r), RAID_OK);
}

/* The contract on what r saw of a job of `seconds` that ended in unit with done == total == want. */
static void expect_reports(const rec *r, const char *unit, uint64_t want, double seconds)
{
    assert_true(r->n >= 1);
    assert_int_equal(r->other_thread, 0);
    assert_int_equal(r->decreasing, 0);
    assert_string_equal(r->unit, unit);
    assert_int_equal(r->total, want);
    assert_int_equal(r->done, want);
    /* throttled: one report per 100 ms, plus the first and last of each phase (and rounding) */
    const double most = seconds / 0.1 + 2.0 * (double)r->nunits + 2;
    if ((double)r->n > most)
        fail_msg("%zu reports in %.3f s (at most %.0f)", r->n, seconds, most);
}

static void test_set_progress_errors(void **state)
{
    (void)state;
    assert_int_equal(raid_ctx_set_progress(NULL, on_progress, NULL), RAID_EINVAL);
    assert_non_null(strstr(raid_errmsg(), "raid_ctx_set_progress"));
}

/* Many series on the cpu: one report per series asked for, throttled to a few; none once removed. */
static void test_ma_series(void **state)
{
    (void)state;
    raid_ctx *ctx = t_open_ctx("cpu");
    const size_t ns = 400000, len = 20;
    double *x = malloc(ns * len * sizeof *x), *y = malloc(ns * len * sizeof *y);
    int64_t *off = malloc((ns + 1) * sizeof *off);
    assert_non_null(x), assert_non_null(y), assert_non_null(off);
    for (size_t i = 0; i < ns * len; i++)
        x[i] = 100 + (double)(i % 97);
    for (size_t s = 0; s <= ns; s++)
        off[s] = (int64_t)(s * len);
    rec r;
    start(&r, ctx);
    const double t0 = now_s();
    assert_int_equal(raid_ma_compute(ctx, RAID_MA_WMA, 5, x, off, ns, y), RAID_OK);
    expect_reports(&r, "series", ns, now_s() - t0);
    assert_true(r.n < ns / 1000); /* throttled, not one per series */
    assert_int_equal(raid_ctx_set_progress(ctx, NULL, NULL), RAID_OK);
    const size_t n0 = r.n;
    assert_int_equal(raid_ma_compute(ctx, RAID_MA_WMA, 5, x, off, ns, y), RAID_OK);
    assert_int_equal(r.n, n0);
    free(x), free(y), free(off);
    raid_ctx_destroy(ctx);
}

/* GARCH with a rolling window on the bundled DEM/GBP returns: the full-sample fit then 1,475 windows, one
 * phase of 1,476 fits. */
static void test_garch_windows(void **state)
{
    (void)state;
    raid_ctx *ctx = t_open_ctx("cpu");
    raid_garch_input *in = NULL;
    const char *names[3] = {NULL, NULL, NULL};
    assert_int_equal(raid_garch_read_csv(t_data("dem2gbp.csv"), names, RAID_GARCH_RETURNS, &in), RAID_OK);
    raid_garch_spec *sp = NULL;
    assert_int_equal(raid_garch_spec_create(&sp), RAID_OK);
    assert_int_equal(raid_garch_spec_set_window(sp, RAID_GARCH_ROLLING, 500, 1), RAID_OK);
    raid_garch_result *res = NULL;
    rec r;
    start(&r, ctx);
    const double t0 = now_s();
    assert_int_equal(raid_garch_fit(ctx, sp, in, &res), RAID_OK);
    const size_t rows = raid_garch_result_nrows(res);
    assert_int_equal(rows, 1974 - 500 + 1);
    expect_reports(&r, "fits", 1 + rows, now_s() - t0);
    assert_int_equal(r.nunits, 1);
    assert_int_equal(r.first_total, 1 + rows);
    assert_true(r.n >= 2);
    /* the messages name their symbol: the one series */
    for (size_t i = 0; i < raid_garch_result_nmessages(res); i++)
        assert_int_equal(raid_garch_result_message_symbol(res, i), 0);
    assert_int_equal(raid_garch_result_message_symbol(res, raid_garch_result_nmessages(res)), (size_t)-1);
    raid_garch_result_destroy(res);
    raid_garch_spec_destroy(sp);
    raid_garch_input_destroy(in);
    raid_ctx_destroy(ctx);
}

/* HAR windows are solved on OpenMP threads: the reports still come from the caller's thread only. */
static void test_har_windows(void **state)
{
    (void)state;
    raid_ctx *ctx = t_open_ctx("cpu");
    raid_har_input *in = NULL;
    const char *names[6] = {"symbol", "DT", "RV5", "bpv", "rq", "jump_p"};
    assert_int_equal(raid_har_read_csv(t_data("spy_realized_measures.csv"), names, 0, RAID_HAR_RV, &in),
                     RAID_OK);
    raid_har_spec *sp = NULL;
    assert_int_equal(raid_har_spec_create(&sp), RAID_OK);
    assert_int_equal(raid_har_spec_set_window(sp, RAID_HAR_ROLLING, 100), RAID_OK);
    raid_har_result *res = NULL;
    rec r;
    start(&r, ctx);
    const double t0 = now_s();
    assert_int_equal(raid_har_fit(ctx, sp, in, &res), RAID_OK);
    assert_true(raid_har_result_nrows(res) > 1000);
    expect_reports(&r, "windows", r.total, now_s() - t0);
    assert_true(r.total >= raid_har_result_nrows(res));
    raid_har_result_destroy(res);
    raid_har_spec_destroy(sp);
    raid_har_input_destroy(in);
    raid_ctx_destroy(ctx);
}

/* The sweep: series x pairs. */
static void test_sweep_backtests(void **state)
{
    (void)state;
    raid_ctx *ctx = t_open_ctx("cpu");
    const size_t ns = 30, len = 300;
    double *c = malloc(ns * len * sizeof *c);
    int64_t off[31];
    assert_non_null(c);
    for (size_t i = 0; i < ns * len; i++)
        c[i] = 100 * exp(0.01 * sin(0.05 * (double)i) + 0.001 * (double)(i % 13));
    for (size_t s = 0; s <= ns; s++)
        off[s] = (int64_t)(s * len);
    raid_sweep_spec sp;
    raid_sweep_spec_default(&sp);
    sp.fast_lo = 2, sp.fast_hi = 10, sp.fast_step = 1, sp.slow_lo = 12, sp.slow_hi = 40, sp.slow_step = 4;
    raid_sweep_result *res = NULL;
    rec r;
    start(&r, ctx);
    const double t0 = now_s();
    assert_int_equal(raid_sweep_run_arrays(ctx, &sp, c, NULL, off, ns, NULL, &res), RAID_OK);
    expect_reports(&r, "backtests", raid_sweep_result_count(res), now_s() - t0);
    raid_sweep_result_destroy(res);
    free(c);
    raid_ctx_destroy(ctx);
}

static uint64_t file_size(const char *path)
{
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    return (uint64_t)st.st_size;
}

/* A CSV job on the device under test: the bytes of the file, in blocks of 4 KiB (RAID_CSV_BLOCK) so that
 * there are many reads. */
static void test_csv_job_bytes(void **state)
{
    (void)state;
    raid_ctx *ctx = t_open_ctx(t_device());
    const char *path = t_data("trades_xxx_2days.csv");
    setenv("RAID_CSV_BLOCK", "4096", 1);
    raid_sort_table *t = NULL;
    rec r;
    start(&r, ctx);
    const double t0 = now_s();
    assert_int_equal(raid_sort_run_csv(ctx, path, "price", 0, &t), RAID_OK);
    expect_reports(&r, "bytes", file_size(path), now_s() - t0);
    raid_sort_table_destroy(t);
    unsetenv("RAID_CSV_BLOCK");
    raid_ctx_destroy(ctx);
}

/* The realized table's adds report the bytes of their reader; the reader reports nothing on its own. */
static void test_realized_reader_bytes(void **state)
{
    (void)state;
    raid_ctx *ctx = t_open_ctx(t_device());
    const char *path = t_data("usdchf_30min.csv");
    raid_reader *rd = NULL;
    assert_int_equal(raid_reader_open(&rd, path, NULL), RAID_OK);
    raid_realized_table *tab = NULL;
    assert_int_equal(raid_realized_table_create(&tab), RAID_OK);
    rec r;
    start(&r, ctx);
    const double t0 = now_s();
    int done = 0;
    while (!done)
        assert_int_equal(raid_realized_table_add_reader(tab, ctx, NULL, rd, (size_t)1 << 16, &done), RAID_OK);
    expect_reports(&r, "bytes", file_size(path), now_s() - t0);
    raid_realized_table_destroy(tab);
    raid_reader_close(rd);
    raid_ctx_destroy(ctx);
}

/* The simulator as a job: rows of prices. */
static void test_simulate_rows(void **state)
{
    (void)state;
    raid_ctx *ctx = t_open_ctx("cpu");
    raid_sim_opts o;
    raid_sim_opts_init(&o);
    o.nsymbols = 3, o.ndays = 4, o.obs_per_day = 391;
    rec r;
    start(&r, ctx);
    const double t0 = now_s();
    assert_int_equal(raid_simulate_run_csv(ctx, &o, t_tmppath("sim.csv"), NULL), RAID_OK);
    expect_reports(&r, "rows", 3 * 4 * 391, now_s() - t0);
    /* a failure is reported on the context too */
    o.nsymbols = 0;
    assert_int_not_equal(raid_simulate_run_csv(ctx, &o, t_tmppath("sim2.csv"), NULL), RAID_OK);
    assert_string_equal(raid_ctx_errmsg(ctx), raid_errmsg());
    raid_ctx_destroy(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_set_progress_errors), cmocka_unit_test(test_ma_series),
        cmocka_unit_test(test_garch_windows),       cmocka_unit_test(test_har_windows),
        cmocka_unit_test(test_sweep_backtests),     cmocka_unit_test(test_csv_job_bytes),
        cmocka_unit_test(test_realized_reader_bytes), cmocka_unit_test(test_simulate_rows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
