/* Faults survived (docs/testing.md "Faults"): every job that runs on a device is walked over the points of
 * the device layer that can fail (allocations, page-locked staging, kernel builds, uploads, launches,
 * downloads, waits), counted by the fault switch of include/raid/tuning.h. For each point n the n-th is
 * made to fail and the walk checks that the call returns the status the backend's own error maps to, with a
 * message naming the failed call, that it left nothing held on the context (buffers, staging, holds on
 * kernels, events), and that the next call on the same context succeeds with the same bytes. Then the same
 * with the failure sticky (every point from the n-th on fails: a device that stays broken, so that the
 * error paths' own device calls fail too). Leaks of memory are LeakSanitizer's, in build-asan.
 * The CLI's walk (exit status 4, no output file) and the full-disk tests of the outputs are in
 * tests/test_faults_cli.c. */
#define _GNU_SOURCE /* open_memstream */
#include "support.h"
#include "raid.h"
#include "device/device.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Points walked one by one at most per job and mode; beyond, every stride-th (docs/testing.md). The first
 * and the last point of every kind are walked whatever the stride. */
#define MAX_WALK 48

/* ---- the inputs (small: every path on the device, a few batches) ---- */

static double *g_ret;    /* returns: 3 segments */
static int64_t g_roff[4];
static double *g_px;     /* prices, 3 series of 300 bars (ma, sweep) */
static int64_t g_poff[4];
static int64_t *g_key;   /* keys and values for the column operations */
static double *g_val;
static uint8_t *g_valid;
static size_t g_n;
static int64_t g_soff[5]; /* segments of the column operations */
static int64_t *g_tus;    /* bars: trade times (us), prices, sizes */
static double *g_tpx, *g_tsz;
static size_t g_nt;
static const char *g_har_csv;

static int setup(void **state)
{
    (void)state;
    uint64_t s = 42;
    const size_t nr = 9000;
    g_ret = malloc(nr * sizeof *g_ret);
    for (size_t i = 0; i < nr; i++)
        g_ret[i] = 1e-3 * (t_unif(&s) - 0.5);
    g_roff[0] = 0, g_roff[1] = 5000, g_roff[2] = 5001, g_roff[3] = 9000;

    g_px = malloc(900 * sizeof *g_px);
    for (int k = 0; k < 3; k++) {
        double p = 100.0 * (k + 1);
        for (int i = 0; i < 300; i++) {
            p *= exp(0.02 * (t_unif(&s) - 0.5));
            g_px[k * 300 + i] = p;
        }
        g_poff[k] = 300 * k;
    }
    g_poff[3] = 900;

    g_n = 6000;
    g_key = malloc(g_n * sizeof *g_key);
    g_val = malloc(g_n * sizeof *g_val);
    g_valid = malloc(g_n);
    for (size_t i = 0; i < g_n; i++) {
        g_key[i] = (int64_t)(t_splitmix64(&s) % 37) - 5;
        g_val[i] = (t_unif(&s) - 0.5) * 1e3;
        g_valid[i] = (uint8_t)(i % 11 != 3);
    }
    g_soff[0] = 0, g_soff[1] = 2500, g_soff[2] = 2501, g_soff[3] = 4000, g_soff[4] = 6000;

    g_nt = 4000;
    g_tus = malloc(g_nt * sizeof *g_tus);
    g_tpx = malloc(g_nt * sizeof *g_tpx);
    g_tsz = malloc(g_nt * sizeof *g_tsz);
    int64_t t = INT64_C(1514885400000000); /* 2018-01-02 09:30 as local time */
    for (size_t i = 0; i < g_nt; i++) {
        t += (int64_t)(t_splitmix64(&s) % 5000000);
        g_tus[i] = t;
        g_tpx[i] = 100.0 + 0.01 * (double)(t_splitmix64(&s) % 200);
        g_tsz[i] = (double)(1 + t_splitmix64(&s) % 500);
    }

    /* HAR: two symbols of 200 days of rv */
    t_sbuf b = {0};
    t_sb_add(&b, "symbol,date,rv\n");
    for (int k = 0; k < 2; k++)
        for (int d = 0; d < 200; d++)
            t_sb_add(&b, "S%d,%04d-%02d-%02d,%.17g\n", k, 2000 + d / 336, 1 + d / 28 % 12, 1 + d % 28,
                     1e-4 * (1.0 + t_unif(&s)));
    g_har_csv = t_tmppath("har.csv");
    assert_int_equal(t_write_file(g_har_csv, b.s), 0);
    free(b.s);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    free(g_ret), free(g_px), free(g_key), free(g_val), free(g_valid), free(g_tus), free(g_tpx), free(g_tsz);
    return 0;
}

/* ---- the jobs: one call each, its result as text (NULL on failure) ---- */

typedef raid_status (*job_fn)(raid_ctx *ctx, FILE *f);

static raid_status j_realized(raid_ctx *ctx, FILE *f)
{
    raid_realized out[3];
    const raid_status st = raid_realized_compute(ctx, g_ret, g_roff, 3, out);
    if (st == RAID_OK)
        fwrite(out, sizeof out, 1, f);
    return st;
}

static raid_status j_har(raid_ctx *ctx, FILE *f)
{
    raid_har_spec *sp = NULL;
    raid_har_input *in = NULL;
    raid_har_result *res = NULL;
    raid_status st = raid_har_spec_create(&sp);
    if (st == RAID_OK)
        st = raid_har_spec_set_se(sp, RAID_SE_NW, -1);
    if (st == RAID_OK)
        st = raid_har_spec_set_window(sp, RAID_HAR_ROLLING, 150);
    if (st == RAID_OK)
        st = raid_har_read_csv(g_har_csv, NULL, 1, RAID_HAR_RV, &in);
    assert_int_equal(st, RAID_OK);
    st = raid_har_fit(ctx, sp, in, &res);
    if (st == RAID_OK) {
        assert_non_null(res);
        assert_int_equal(raid_har_write_coefs(res, f), RAID_OK);
        assert_int_equal(raid_har_write_forecasts(res, f), RAID_OK);
    } else {
        assert_null(res);
    }
    raid_har_result_destroy(res);
    raid_har_input_destroy(in);
    raid_har_spec_destroy(sp);
    return st;
}

static raid_status j_har_full(raid_ctx *ctx, FILE *f)
{
    raid_har_spec *sp = NULL;
    raid_har_input *in = NULL;
    raid_har_result *res = NULL;
    assert_int_equal(raid_har_spec_create(&sp), RAID_OK);
    assert_int_equal(raid_har_spec_set_se(sp, RAID_SE_WHITE, -1), RAID_OK);
    assert_int_equal(raid_har_read_csv(g_har_csv, NULL, 1, RAID_HAR_RV, &in), RAID_OK);
    const raid_status st = raid_har_fit(ctx, sp, in, &res);
    if (st == RAID_OK)
        assert_int_equal(raid_har_write_coefs(res, f), RAID_OK);
    else
        assert_null(res);
    raid_har_result_destroy(res);
    raid_har_input_destroy(in);
    raid_har_spec_destroy(sp);
    return st;
}

static raid_status j_garch(raid_ctx *ctx, FILE *f)
{
    raid_garch_spec *sp = NULL;
    raid_garch_input *in = NULL;
    raid_garch_result *res = NULL;
    assert_int_equal(raid_garch_spec_create(&sp), RAID_OK);
    assert_int_equal(raid_garch_input_create(&in), RAID_OK);
    size_t T = 0;
    double *r = t_read_dem2gbp(&T);
    assert_true(T >= 1000);
    assert_int_equal(raid_garch_input_add(in, "A", 500, r, NULL, NULL), RAID_OK);
    assert_int_equal(raid_garch_input_add(in, "B", 500, r + 500, NULL, NULL), RAID_OK);
    free(r);
    const raid_status st = raid_garch_fit(ctx, sp, in, &res);
    if (st == RAID_OK)
        assert_int_equal(raid_garch_write_csv(res, f), RAID_OK);
    else
        assert_null(res);
    raid_garch_result_destroy(res);
    raid_garch_input_destroy(in);
    raid_garch_spec_destroy(sp);
    return st;
}

static raid_status ma_stat(raid_ctx *ctx, FILE *f, raid_ma_stat stat, int64_t n)
{
    double out[900];
    const raid_status st = raid_ma_compute(ctx, stat, n, g_px, g_poff, 3, out);
    if (st == RAID_OK)
        fwrite(out, sizeof out, 1, f);
    return st;
}
static raid_status j_ma_wma(raid_ctx *ctx, FILE *f) { return ma_stat(ctx, f, RAID_MA_WMA, 20); }
static raid_status j_ma_ema(raid_ctx *ctx, FILE *f) { return ma_stat(ctx, f, RAID_MA_EMA, 10); }
static raid_status j_ma_hma(raid_ctx *ctx, FILE *f) { return ma_stat(ctx, f, RAID_MA_HMA, 16); }

static raid_status j_sweep(raid_ctx *ctx, FILE *f)
{
    raid_sweep_spec s;
    raid_sweep_spec_default(&s);
    s.fast_lo = 3, s.fast_hi = 9, s.fast_step = 3;
    s.slow_lo = 10, s.slow_hi = 30, s.slow_step = 10;
    s.keep_trades = 1;
    raid_sweep_result *res = NULL;
    const char *syms[3] = {"a", "b", "c"};
    const raid_status st = raid_sweep_run_arrays(ctx, &s, g_px, NULL, g_poff, 3, syms, &res);
    if (st == RAID_OK) {
        assert_int_equal(raid_sweep_write_csv(res, f), RAID_OK);
        assert_int_equal(raid_sweep_write_trades(res, f), RAID_OK);
    } else {
        assert_null(res);
    }
    raid_sweep_result_destroy(res);
    return st;
}

static raid_status j_sort(raid_ctx *ctx, FILE *f)
{
    double *out = malloc(g_n * sizeof *out);
    uint8_t bits[(6000 + 7) / 8];
    for (size_t i = 0; i < g_n; i++)
        bits[i / 8] = (uint8_t)((i % 8 ? bits[i / 8] : 0) | (g_valid[i] << (i % 8)));
    const raid_status st = raid_sort_f64(ctx, g_val, g_n, bits, RAID_SORT_DESC, out);
    if (st == RAID_OK)
        fwrite(out, sizeof *out, g_n, f);
    free(out);
    return st;
}

static raid_status j_argsort_seg(raid_ctx *ctx, FILE *f)
{
    int64_t *idx = malloc(g_n * sizeof *idx);
    const raid_status st = raid_argsort_f64_seg_i64(ctx, g_val, g_soff, 4, NULL, 0, idx);
    if (st == RAID_OK)
        fwrite(idx, sizeof *idx, g_n, f);
    free(idx);
    return st;
}

static raid_status j_sort_pairs(raid_ctx *ctx, FILE *f)
{
    int64_t *k = malloc(g_n * sizeof *k);
    double *v = malloc(g_n * sizeof *v);
    const raid_status st = raid_sort_i64_f64(ctx, g_key, g_val, g_n, 0, k, v);
    if (st == RAID_OK) {
        fwrite(k, sizeof *k, g_n, f);
        fwrite(v, sizeof *v, g_n, f);
    }
    free(k), free(v);
    return st;
}

static raid_status j_quantile(raid_ctx *ctx, FILE *f)
{
    const double q[3] = {0.1, 0.5, 0.99};
    double out[12];
    const raid_status st = raid_select_quantile(ctx, g_val, g_soff, 4, q, 3, out);
    if (st == RAID_OK)
        fwrite(out, sizeof out, 1, f);
    return st;
}

static raid_status j_topk(raid_ctx *ctx, FILE *f)
{
    double v[20];
    int64_t ix[20];
    const int64_t off[3] = {0, 2500, 6000};
    const raid_status st = raid_select_topk(ctx, g_val, off, 2, 10, 1, v, ix);
    if (st == RAID_OK) {
        fwrite(v, sizeof v, 1, f);
        fwrite(ix, sizeof ix, 1, f);
    }
    return st;
}

static raid_status j_minmax(raid_ctx *ctx, FILE *f)
{
    double a[4], b[4], c[4], d[4];
    const raid_status st = raid_select_minmax(ctx, g_val, g_soff, 4, a, b, c, d);
    if (st == RAID_OK) {
        fwrite(a, sizeof a, 1, f), fwrite(b, sizeof b, 1, f);
        fwrite(c, sizeof c, 1, f), fwrite(d, sizeof d, 1, f);
    }
    return st;
}

static raid_status j_groupby(raid_ctx *ctx, FILE *f)
{
    const raid_agg aggs[7] = {RAID_AGG_COUNT, RAID_AGG_SUM, RAID_AGG_MEAN, RAID_AGG_MIN,
                              RAID_AGG_MAX,   RAID_AGG_FIRST, RAID_AGG_LAST};
    raid_groupby *g = NULL;
    const raid_status st = raid_groupby_compute(ctx, g_key, g_val, g_valid, g_n, aggs, 7, 0, &g);
    if (st == RAID_OK) {
        const size_t ng = raid_groupby_ngroups(g);
        fwrite(raid_groupby_keys(g), sizeof(int64_t), ng, f);
        fwrite(raid_groupby_counts(g), sizeof(int64_t), ng, f);
        for (size_t j = 0; j < 7; j++)
            fwrite(raid_groupby_column(g, j), sizeof(double), ng, f);
    } else {
        assert_null(g);
    }
    raid_groupby_destroy(g);
    return st;
}

static raid_status j_groupby_f64(raid_ctx *ctx, FILE *f)
{
    const raid_agg aggs[2] = {RAID_AGG_SUM, RAID_AGG_MAX};
    raid_groupby *g = NULL;
    double *keys = malloc(g_n * sizeof *keys);
    for (size_t i = 0; i < g_n; i++)
        keys[i] = (double)g_key[i] * 0.25;
    const raid_status st = raid_groupby_compute_f64(ctx, keys, NULL, g_val, NULL, g_n, aggs, 2, 0, &g);
    free(keys);
    if (st == RAID_OK) {
        const size_t ng = raid_groupby_ngroups(g);
        fwrite(raid_groupby_keys_f64(g), sizeof(double), ng, f);
        for (size_t j = 0; j < 2; j++)
            fwrite(raid_groupby_column(g, j), sizeof(double), ng, f);
    } else {
        assert_null(g);
    }
    raid_groupby_destroy(g);
    return st;
}

static raid_status j_groupby_sums(raid_ctx *ctx, FILE *f)
{
    const raid_agg aggs[3] = {RAID_AGG_SUM, RAID_AGG_COUNT, RAID_AGG_MEAN};
    raid_groupby *g = NULL;
    const raid_status st = raid_groupby_compute(ctx, g_key, g_val, g_valid, g_n, aggs, 3, 0, &g);
    if (st == RAID_OK) {
        const size_t ng = raid_groupby_ngroups(g);
        fwrite(raid_groupby_keys(g), sizeof(int64_t), ng, f);
        for (size_t j = 0; j < 3; j++)
            fwrite(raid_groupby_column(g, j), sizeof(double), ng, f);
    } else {
        assert_null(g);
    }
    raid_groupby_destroy(g);
    return st;
}

static raid_status j_bars(raid_ctx *ctx, FILE *f)
{
    raid_bars *b = NULL;
    const raid_status st = raid_bars_compute(ctx, NULL, NULL, 0, g_tus, g_tpx, g_tsz, g_nt, "5min", "UTC", NULL, 0, &b);
    if (st == RAID_OK)
        assert_int_equal(raid_bars_write_csv(b, f), RAID_OK);
    else
        assert_null(b);
    raid_bars_destroy(b);
    return st;
}

static raid_status j_quantile_big(raid_ctx *ctx, FILE *f)
{
    /* one segment long enough for the sampled window pass (4096 samples of every 64th key at least) */
    static double *x;
    const size_t n = 300000;
    if (!x) {
        x = malloc(n * sizeof *x);
        uint64_t s = 3;
        for (size_t i = 0; i < n; i++)
            x[i] = t_unif(&s) - 0.5;
    }
    const int64_t off[2] = {0, (int64_t)n};
    const double q[2] = {0.25, 0.75};
    double out[2];
    const raid_status st = raid_select_quantile(ctx, x, off, 1, q, 2, out);
    if (st == RAID_OK)
        fwrite(out, sizeof out, 1, f);
    return st;
}

/* The device layer's staged upload of an array of two pieces (32 MiB each at most: 36 MiB), read back. */
static raid_status j_staged(raid_ctx *ctx, FILE *f)
{
    static uint32_t *x;
    const size_t n = 9u << 20;
    if (!x) {
        x = malloc(n * sizeof *x);
        for (size_t i = 0; i < n; i++)
            x[i] = (uint32_t)(i * 2654435761u);
    }
    RaidBuf b = {0};
    uint32_t *back = malloc(n * sizeof *back);
    raid_status st = raidBufAcquire(ctx, RAID_DT_UINT, n, &b);
    if (st == RAID_OK)
        st = raidBufUploadStaged(ctx, &b, 0, n, x);
    if (st == RAID_OK)
        st = raidBufDownload(ctx, &b, 0, n, back, 1, NULL);
    raidBufRelease(ctx, &b);
    if (st == RAID_OK) {
        assert_memory_equal(back, x, n * sizeof *x);
        fputs("same", f);
    }
    free(back);
    return st;
}

/* The noise-robust measures' sums (rk, tsrv, prv, minrv on the device) of the 3 return segments. */
static raid_status j_noise(raid_ctx *ctx, FILE *f)
{
    raid_realized_noise out[3];
    const raid_status st = raid_realized_noise_compute(ctx, g_ret, g_roff, 3, out);
    if (st == RAID_OK)
        fwrite(out, sizeof out[0], 3, f);
    return st;
}

/* An expression of binary64 functions over the column values (one generated kernel). */
static raid_status j_f64_eval(raid_ctx *ctx, FILE *f)
{
    const char *names[] = {"a", "b"};
    raid_f64_expr *e = NULL;
    assert_int_equal(raid_f64_expr_compile(ctx, "log(abs(a)) * b + sqrt(abs(a)) / (b + 3)", names, 2, &e), RAID_OK);
    double *out = malloc(g_n * sizeof *out);
    const double *in[] = {g_val, g_val + 1};
    const raid_status st = raid_f64_eval(ctx, e, in, g_n - 1, out);
    if (st == RAID_OK)
        fwrite(out, sizeof *out, g_n - 1, f);
    raid_f64_expr_free(e);
    free(out);
    return st;
}

static raid_status j_f64_compare(raid_ctx *ctx, FILE *f)
{
    unsigned char *mask = malloc(g_n);
    const raid_status st = raid_f64_compare(ctx, RAID_F64_LT, g_val, g_val + 1, mask, g_n - 1);
    if (st == RAID_OK)
        fwrite(mask, 1, g_n - 1, f);
    free(mask);
    return st;
}

/* Log returns of the 900 bar prices. */
static raid_status j_log_returns(raid_ctx *ctx, FILE *f)
{
    double out[899];
    const raid_status st = raid_f64_log_returns(ctx, g_px, 900, out);
    if (st == RAID_OK)
        fwrite(out, sizeof out[0], 899, f);
    return st;
}

/* A day's covariance of the 3 price series (times every minute, the second series every 90 s: rcov by the
 * previous tick, hy on their own times). */
static raid_status cov_day(raid_ctx *ctx, raid_cov_estimator est, FILE *f)
{
    int64_t t[900];
    for (int k = 0; k < 3; k++)
        for (int i = 0; i < 300; i++)
            t[k * 300 + i] = (int64_t)i * (k == 1 ? 90000000 : 60000000);
    double out[27];
    const raid_status st = raid_cov_compute(ctx, est, RAID_COV_SYNC_PREVIOUS, 3, g_poff, t, g_px, out, NULL);
    if (st == RAID_OK)
        fwrite(out, sizeof out[0], 9 * (size_t)raid_cov_parts(est), f);
    return st;
}

static raid_status j_cov_rcov(raid_ctx *ctx, FILE *f) { return cov_day(ctx, RAID_COV_RCOV, f); }
static raid_status j_cov_rsemicov(raid_ctx *ctx, FILE *f) { return cov_day(ctx, RAID_COV_RSEMICOV, f); }
static raid_status j_cov_hy(raid_ctx *ctx, FILE *f) { return cov_day(ctx, RAID_COV_HY, f); }

/* ---- the walk ---- */

typedef struct job {
    const char *name;
    job_fn run;
    raid_tuning_knob knob; /* a path to force (0: none) */
    int64_t value;
} job;

static const job jobs[] = {
    {"realized", j_realized, 0, 0},
    {"realized (batches of 4096)", j_realized, RAID_TUNE_MAX_BATCH_ELEMS, 4096},
    {"realized (direct upload)", j_realized, RAID_TUNE_DIRECT_UPLOAD, 1},
    {"staged upload", j_staged, 0, 0},
    {"har (rolling, nw)", j_har, 0, 0},
    {"har (full, white)", j_har_full, 0, 0},
    {"garch", j_garch, 0, 0},
    {"ma wma", j_ma_wma, 0, 0},
    {"ma ema", j_ma_ema, 0, 0},
    {"ma hma", j_ma_hma, 0, 0},
    {"sweep", j_sweep, 0, 0},
    {"sort", j_sort, 0, 0},
    {"argsort segments", j_argsort_seg, 0, 0},
    {"sort pairs", j_sort_pairs, 0, 0},
    {"quantile", j_quantile, 0, 0},
    {"quantile (radix passes)", j_quantile, RAID_TUNE_SELECT_PATH, 1},
    {"quantile (sampled window)", j_quantile_big, RAID_TUNE_SELECT_PATH, 2},
    {"quantile (radix, 300000)", j_quantile_big, RAID_TUNE_SELECT_PATH, 1},
    {"topk", j_topk, 0, 0},
    {"minmax", j_minmax, 0, 0},
    {"groupby", j_groupby, 0, 0},
    {"groupby (global tables)", j_groupby, RAID_TUNE_GROUPBY_PATH, 1},
    {"groupby (local tables)", j_groupby, RAID_TUNE_GROUPBY_PATH, 2},
    {"groupby (exponent buckets)", j_groupby, RAID_TUNE_GROUPBY_PATH, 4},
    {"groupby (partitioned)", j_groupby_sums, RAID_TUNE_GROUPBY_PATH, 9},
    {"groupby f64", j_groupby_f64, 0, 0},
    {"bars", j_bars, 0, 0},
    {"noise-robust measures", j_noise, 0, 0},
    {"f64 expression", j_f64_eval, 0, 0},
    {"f64 compare", j_f64_compare, 0, 0},
    {"log returns", j_log_returns, 0, 0},
    {"cov rcov", j_cov_rcov, 0, 0},
    {"cov rsemicov", j_cov_rsemicov, 0, 0},
    {"cov hy", j_cov_hy, 0, 0},
};

static const char *const kind_names[7] = {"alloc", "host", "build", "upload", "launch", "download", "sync"};

/* The status a failure of kind k maps to, and what its message must name. */
static raid_status expected_status(unsigned k)
{
    switch (k) {
    case RAID_FAULT_HOST: return RAID_ENOMEM;
    case RAID_FAULT_BUILD: return RAID_EBUILD;
    case RAID_FAULT_SYNC: return RAID_EDEVLOST;
    default: return RAID_EDEVMEM;
    }
}
static const char *expected_text(const raid_ctx *ctx, unsigned k, const char *what)
{
    const char *build = raid_ctx_backend(ctx) == RAID_BACKEND_CUDA ? "NVRTC_ERROR_COMPILATION" : "CL_BUILD_PROGRAM_FAILURE";
    return k == RAID_FAULT_BUILD ? build : k == RAID_FAULT_HOST ? "staging" : what;
}

/* Run j once on ctx: its status, and its output into *text (NULL on failure; malloc'd). */
static raid_status run_job(raid_ctx *ctx, const job *j, char **text, size_t *len)
{
    FILE *f = open_memstream(text, len);
    assert_non_null(f);
    const raid_status st = j->run(ctx, f);
    fclose(f);
    if (st != RAID_OK) {
        free(*text);
        *text = NULL;
    }
    return st;
}

static void check_clean(raid_ctx *ctx, const char *job, const char *when)
{
    RaidDevUsage u;
    raidDevGetUsage(ctx, &u);
    if (u.bufs || u.host || u.holds || u.events)
        fail_msg("%s, %s: the context holds %zu buffers, %zu staging buffers, %zu kernel holds, %ld events", job,
                 when, u.bufs, u.host, u.holds, u.events);
}

typedef struct walk_total {
    uint64_t points, runs;
} walk_total;

/* Fail point `at` of `kinds` (sticky or not) on ctx and check the call, then the next. */
static void fail_one(raid_ctx *ctx, const job *j, const char *ref, size_t ref_len, unsigned kinds, uint64_t at,
                     int sticky)
{
    char when[160];
    snprintf(when, sizeof when, "point %llu of kinds 0x%x%s", (unsigned long long)at, kinds, sticky ? " (sticky)" : "");
    if (getenv("RAID_FAULT_TRACE"))
        print_message("%s: %s\n", j->name, when);
    assert_int_equal(raid_tuning_fault(ctx, kinds, at, sticky), RAID_OK);
    char *text = NULL;
    size_t len = 0;
    const raid_status st = run_job(ctx, j, &text, &len);
    uint64_t fired = 0;
    unsigned kind = 0;
    const char *what = "";
    raid_tuning_fault_points(ctx, kinds, &fired, &kind, &what);
    if (fired == 0)
        fail_msg("%s, %s: no point failed (the job passes fewer points than counted)", j->name, when);
    const char *msg = raid_ctx_errmsg(ctx);
    if (st != expected_status(kind))
        fail_msg("%s, %s (%s, %s): status %d (%s), expected %d; message: %s", j->name, when, what,
                 kind_names[__builtin_ctz(kind)], (int)st, raid_strerror(st), (int)expected_status(kind), msg);
    if (!strstr(msg, expected_text(ctx, kind, what)))
        fail_msg("%s, %s: the message does not name %s: '%s'", j->name, when, expected_text(ctx, kind, what), msg);
    assert_null(text);
    check_clean(ctx, j->name, when);
    /* the same context, switch off: the same answer */
    assert_int_equal(raid_tuning_fault(ctx, 0, 0, 0), RAID_OK);
    const raid_status st2 = run_job(ctx, j, &text, &len);
    if (st2 != RAID_OK)
        fail_msg("%s, after %s: the next call failed: %s", j->name, when, raid_ctx_errmsg(ctx));
    if (len != ref_len || memcmp(text, ref, len))
        fail_msg("%s, after %s: the next call gave another answer", j->name, when);
    free(text);
    check_clean(ctx, j->name, "the call after a failure");
}

static void walk_job(const job *j, walk_total *tot)
{
    raid_ctx *ctx = t_open_ctx(t_device());
    if (j->knob)
        assert_int_equal(raid_tuning_set(ctx, j->knob, j->value), RAID_OK);
    const double t0 = raidNow();
    char *ref = NULL;
    size_t ref_len = 0;
    if (run_job(ctx, j, &ref, &ref_len) != RAID_OK)
        fail_msg("%s: %s", j->name, raid_ctx_errmsg(ctx));
    check_clean(ctx, j->name, "a call");
    /* count the points (twice: the count must not depend on what the pools and the cache hold) */
    uint64_t count[7] = {0}, total = 0;
    for (int pass = 0; pass < 2; pass++) {
        assert_int_equal(raid_tuning_fault(ctx, RAID_FAULT_DEVICE, 0, 0), RAID_OK);
        char *text = NULL;
        size_t len = 0;
        assert_int_equal(run_job(ctx, j, &text, &len), RAID_OK);
        assert_true(len == ref_len && !memcmp(text, ref, len));
        free(text);
        const uint64_t n = raid_tuning_fault_points(ctx, RAID_FAULT_DEVICE, NULL, NULL, NULL);
        if (pass && n != total)
            fail_msg("%s: %llu points, then %llu", j->name, (unsigned long long)total, (unsigned long long)n);
        total = n;
        for (int k = 0; k < 7; k++)
            count[k] = raid_tuning_fault_points(ctx, 1u << k, NULL, NULL, NULL);
    }
    assert_true(total > 0);
    const uint64_t stride = (total + MAX_WALK - 1) / MAX_WALK;
    uint64_t runs = 0;
    for (int sticky = 0; sticky < 2; sticky++) {
        for (uint64_t n = 1; n <= total; n += stride, runs++)
            fail_one(ctx, j, ref, ref_len, RAID_FAULT_DEVICE, n, sticky);
        if ((total - 1) % stride) /* the last point */
            fail_one(ctx, j, ref, ref_len, RAID_FAULT_DEVICE, total, sticky), runs++;
        for (int k = 0; k < 7; k++) /* the first and the last of each kind */
            if (count[k] && (stride > 1 || sticky)) {
                fail_one(ctx, j, ref, ref_len, 1u << k, 1, sticky), runs++;
                if (count[k] > 1)
                    fail_one(ctx, j, ref, ref_len, 1u << k, count[k], sticky), runs++;
            }
    }
    free(ref);
    raid_ctx_destroy(ctx);
    print_message("%-28s %5llu points (alloc %llu, host %llu, build %llu, upload %llu, launch %llu, download %llu, "
                  "sync %llu), stride %llu, %llu failing runs, %.2f s\n",
                  j->name, (unsigned long long)total, (unsigned long long)count[0], (unsigned long long)count[1],
                  (unsigned long long)count[2], (unsigned long long)count[3], (unsigned long long)count[4],
                  (unsigned long long)count[5], (unsigned long long)count[6], (unsigned long long)stride,
                  (unsigned long long)runs, raidNow() - t0);
    tot->points += total;
    tot->runs += runs;
}

static void test_walk(void **state)
{
    (void)state;
    if (!t_have_opencl())
        skip();
    walk_total tot = {0, 0};
    const char *only = getenv("RAID_FAULT_JOB"); /* one job by name (debugging) */
    for (size_t i = 0; i < sizeof jobs / sizeof *jobs; i++)
        if (!only || strstr(jobs[i].name, only))
            walk_job(&jobs[i], &tot);
    print_message("all jobs: %llu points, %llu failing runs\n", (unsigned long long)tot.points,
                  (unsigned long long)tot.runs);
}

/* The switch itself: counting, off, the kinds' statuses through the device layer's own calls. */
static void test_switch(void **state)
{
    (void)state;
    if (!t_have_opencl())
        skip();
    raid_ctx *ctx = t_open_ctx(t_device());
    const int cuda = raid_ctx_backend(ctx) == RAID_BACKEND_CUDA; /* the backend's own calls and errors */
    assert_int_equal(raid_tuning_fault(ctx, 1u << 12, 1, 0), RAID_EINVAL);
    assert_int_equal(raid_tuning_fault(NULL, RAID_FAULT_ALLOC, 1, 0), RAID_EINVAL);
    RaidBuf b = {0};
    void *h = NULL;
    assert_int_equal(raid_tuning_fault(ctx, RAID_FAULT_ALLOC | RAID_FAULT_HOST, 2, 0), RAID_OK);
    assert_int_equal(raidBufAcquire(ctx, RAID_DT_FLOAT, 100, &b), RAID_OK);
    raidBufRelease(ctx, &b);
    assert_int_equal(raidHostAcquire(ctx, 100, &h), RAID_ENOMEM);
    assert_null(h);
    assert_non_null(strstr(raid_ctx_errmsg(ctx), "staging"));
    assert_int_equal(raidBufAcquire(ctx, RAID_DT_FLOAT, 100, &b), RAID_OK); /* one-shot */
    raidBufRelease(ctx, &b);
    uint64_t fired = 0;
    unsigned kind = 0;
    const char *what = NULL;
    assert_int_equal(raid_tuning_fault_points(ctx, RAID_FAULT_DEVICE, &fired, &kind, &what), 3);
    assert_int_equal(fired, 1);
    assert_int_equal(kind, RAID_FAULT_HOST);
    assert_int_equal(raid_tuning_fault(ctx, RAID_FAULT_ALLOC, 1, 1), RAID_OK); /* sticky */
    for (int i = 0; i < 3; i++) {
        assert_int_equal(raidBufAcquire(ctx, RAID_DT_FLOAT, 100, &b), RAID_EDEVMEM);
        assert_null(b.h);
        assert_non_null(strstr(raid_ctx_errmsg(ctx), cuda ? "cuMemAlloc failed with CUDA_ERROR_OUT_OF_MEMORY"
                                                         : "clCreateBuffer failed with CL_MEM_OBJECT_ALLOCATION_FAILURE"));
    }
    assert_int_equal(raid_tuning_fault(ctx, RAID_FAULT_BUILD, 1, 0), RAID_OK);
    RaidKernel *k = NULL;
    assert_int_equal(raidKernelGet(ctx, "ta_ma.cl", "ma_window", "", &k), RAID_EBUILD);
    assert_null(k);
    assert_non_null(strstr(raid_ctx_errmsg(ctx), "building kernels/ta_ma.cl"));
    assert_int_equal(raid_tuning_fault(ctx, RAID_FAULT_SYNC, 1, 0), RAID_OK);
    assert_int_equal(raidDevFinish(ctx), RAID_EDEVLOST);
    assert_non_null(strstr(raid_ctx_errmsg(ctx), cuda ? "cuStreamSynchronize failed with CUDA_ERROR_LAUNCH_FAILED"
                                                     : "clFinish failed with CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST"));
    assert_int_equal(raid_tuning_fault(ctx, 0, 0, 0), RAID_OK);
    assert_int_equal(raidDevFinish(ctx), RAID_OK);
    check_clean(ctx, "switch", "the end");
    raid_ctx_destroy(ctx);
    raid_ctx *cpu = t_open_ctx("cpu");
    assert_int_equal(raid_tuning_fault(cpu, RAID_FAULT_ALLOC, 1, 0), RAID_EUNSUPPORTED);
    raid_ctx_destroy(cpu);
}

int main(int argc, char **argv)
{
    if (argc > 1) /* a test by name (a pattern: test_walk, test_full*) */
        cmocka_set_test_filter(argv[1]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_switch),
        cmocka_unit_test(test_walk),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
