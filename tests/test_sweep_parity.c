/* Tests of the sweep's parity report (include/raid/sweep.h raid_sweep_parity*, docs/ta_sweep.md "Parity
 * report"): the device's double-float moving averages (PoCL) give the float64 trades on a simulated 20,000-bar
 * random walk near 30,000 with a 200-combination HMA grid (long/flat and short with next-open fills): zero
 * violations; the float32 prefix-sum trap fails (library and CLI: exit status 3); the report's numbers on
 * a hand-made case with a known near-tie and a known violation (sweep_parity.c's comparison directly);
 * plain float32 direct sums (the context's precision RAID_PREC_F32, --precision f32) report their shifted
 * trades within float32's bound; the sweep honours the context's precision on cpu and device; the CLI's
 * usage rules of --precision and --formulation. And the scan on the device (src/ta/sweep_device.c,
 * kernels/ta_sweep.cl): on the same double-float table its trade lists, counts and exposures equal
 * raidSweepCpu's exactly and its statistics are within raidSweepStatsBound (the walk's HMAs, 210
 * pairs, long/flat at the close and short at the next open with costs; rows equal or one ulp of the low
 * float apart, decisions that only an exact comparison gets right). */
#define _POSIX_C_SOURCE 200809L
#include "support.h"
#include "raid.h"
#include "ta/ma_device.h"
#include "ta/sweep.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An OpenCL context (PoCL here), or NULL: the device parts are skipped. */
static raid_ctx *device_ctx(void)
{
    return t_have_opencl() ? t_open_ctx(t_device()) : NULL;
}

/* A random walk near 30,000 of n bars (a fixed LCG: the same series every run), opens near the closes. */
static void walk(size_t n, double *close, double *open)
{
    uint64_t s = 12345;
    double v = 30000;
    for (size_t t = 0; t < n; t++) {
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        const double u = (double)(s >> 11) / 9007199254740992.0 - 0.5;
        open[t] = v * (1 + 1e-3 * u);
        v *= 1 + 0.01 * u;
        close[t] = v;
    }
}

/* fast 5..24 x slow 30..120 by 10: 200 combinations. */
static void grid200(raid_sweep_spec *sp)
{
    raid_sweep_spec_default(sp);
    sp->fast_lo = 5, sp->fast_hi = 24, sp->fast_step = 1;
    sp->slow_lo = 30, sp->slow_hi = 120, sp->slow_step = 10;
}

static void test_device_parity(void **state)
{
    (void)state;
    raid_ctx *ctx = device_ctx();
    if (!ctx)
        skip();
    const size_t N = 20000;
    double *c = malloc(N * sizeof *c), *o = malloc(N * sizeof *o);
    walk(N, c, o);
    const int64_t off[2] = {0, (int64_t)N};
    for (int variant = 0; variant < 2; variant++) {
        raid_sweep_spec sp;
        grid200(&sp);
        if (variant)
            sp.short_side = 1, sp.fill = RAID_SWEEP_FILL_NEXT_OPEN, sp.cost_bps = 5;
        raid_sweep_parity_report *rep = NULL;
        raid_sweep_result *res = NULL;
        assert_int_equal(raid_sweep_parity_arrays(ctx, &sp, c, o, off, 1, NULL, &rep, &res), RAID_OK);
        assert_true(rep->on_device);
        assert_int_equal(rep->combos, 200);
        assert_true(rep->trades > 1000);
        assert_int_equal(rep->violations, 0);
        assert_int_equal(rep->stat_violations, 0);
        assert_true(rep->stat_checked >= 190 && rep->max_stat_ratio <= 1.0);
        assert_true(rep->passed);
        /* the result is raid_sweep_run's on the device, bit for bit (deterministic) */
        raid_sweep_result *ref = NULL;
        assert_int_equal(raid_sweep_run_arrays(ctx, &sp, c, o, off, 1, NULL, &ref), RAID_OK);
        assert_int_equal(raid_sweep_result_count(res), 200);
        for (size_t k = 0; k < 200; k++) {
            raid_sweep_stats a, b;
            raid_sweep_result_get(res, k, NULL, NULL, NULL, &a);
            raid_sweep_result_get(ref, k, NULL, NULL, NULL, &b);
            assert_memory_equal(&a, &b, sizeof a);
        }
        raid_sweep_parity_write(rep, stderr);
        raid_sweep_result_destroy(ref);
        raid_sweep_result_destroy(res);
        raid_sweep_parity_destroy(rep);
    }
    free(c), free(o);
    raid_ctx_destroy(ctx);
}

/* The float32 prefix-sum trap fails the parity, on any context (it is computed on the host). */
static void test_prefix_fails(void **state)
{
    (void)state;
    const size_t N = 20000;
    double *c = malloc(N * sizeof *c), *o = malloc(N * sizeof *o);
    walk(N, c, o);
    const int64_t off[2] = {0, (int64_t)N};
    raid_sweep_spec sp;
    grid200(&sp);
    sp.formulation = RAID_SWEEP_PREFIX;
    raid_sweep_parity_report *rep = NULL;
    assert_int_equal(raid_sweep_parity_arrays(NULL, &sp, c, o, off, 1, NULL, &rep, NULL), RAID_OK);
    assert_false(rep->on_device);
    assert_false(rep->passed);
    assert_true(rep->violations > 0 && rep->count_differs > 0 && rep->nlisted > 0);
    raid_sweep_parity_destroy(rep);
    /* no device: the checked path is float64 again (equal by construction) */
    sp.formulation = RAID_SWEEP_DIRECT;
    assert_int_equal(raid_sweep_parity_arrays(NULL, &sp, c, o, off, 1, NULL, &rep, NULL), RAID_OK);
    assert_true(rep->passed && rep->shifted == 0 && rep->count_differs == 0 && rep->max_abs_dlogret == 0.0);
    raid_sweep_parity_destroy(rep);
    /* plain float32 direct sums (a cpu context at RAID_PREC_F32: emulated on the host): shifted trades
     * reported, all within float32's bound */
    raid_ctx *f32 = t_open_ctx("cpu");
    assert_int_equal(raid_ctx_set_precision(f32, RAID_PREC_F32), RAID_OK);
    assert_int_equal(raid_sweep_parity_arrays(f32, &sp, c, o, off, 1, NULL, &rep, NULL), RAID_OK);
    assert_int_equal(rep->precision, RAID_PREC_F32);
    assert_true(rep->tie_rel > 1e-5 && rep->tie_rel < 1e-4);
    assert_true(rep->passed && rep->violations == 0 && rep->shifted == rep->ties && rep->shifted > 0);
    raid_sweep_parity_write(rep, stderr);
    raid_sweep_parity_destroy(rep);
    /* prefix needs wma or hma; f32 hma, wma or mean */
    sp.formulation = RAID_SWEEP_PREFIX, sp.ma = RAID_MA_EMA;
    assert_int_equal(raid_sweep_parity_arrays(NULL, &sp, c, o, off, 1, NULL, &rep, NULL), RAID_EINVAL);
    assert_null(rep);
    sp.formulation = RAID_SWEEP_DIRECT;
    assert_int_equal(raid_sweep_parity_arrays(f32, &sp, c, o, off, 1, NULL, &rep, NULL), RAID_EINVAL);
    assert_non_null(strstr(raid_ctx_errmsg(f32), "precision f32 applies to hma, wma and mean, not ema"));
    assert_int_equal(raid_sweep_spec_check(f32, &sp), RAID_EINVAL);
    assert_int_equal(raid_sweep_spec_check(NULL, &sp), RAID_OK); /* ema at the default df */
    raid_ctx_destroy(f32);
    free(c), free(o);
}

/* One combination by hand: the float64 moving averages f64, s64 and the checked ones fc, sc. */
static void one(raid_sweep_parity_report *rep, const RaidSweepSeries *s, int fast, const double *f64,
                const double *s64, const double *fc, const double *sc)
{
    const RaidSweepOpts o = raidSweepOptsDefault();
    raid_sweep_stats a, b;
    raid_sweep_trade va[8], vb[8];
    assert_int_equal(raidSweepOne(s, f64, s64, &o, &a, va, 8, NULL), RAID_OK);
    assert_int_equal(raidSweepOne(s, fc, sc, &o, &b, vb, 8, NULL), RAID_OK);
    const RaidSweepTrades ta = {va, (size_t)a.trades}, tb = {vb, (size_t)b.trades};
    raidSweepParityAdd(rep, s, &o, 0, fast, 9, f64, s64, fc, sc, &a, &ta, &b, &tb);
}

/* docs/ta_sweep.md's worked example (fast - slow = NaN + + - + +: the float64 trade (2, 4, 12, 13, +1)).
 * Combination 1: the checked path decides flat at bar 1, where the float64 margin is 4.4e-13 of the close
 * (a tie): its trade is (3, 4): two shifted trades, both ties. Combination 2: the checked path stays long
 * at bar 3, where the float64 margin is 1/11 of the close: its trade is (2, 5): two violations. */
static void test_hand_made(void **state)
{
    (void)state;
    const double close[6] = {10, 11, 12, 11, 13, 14};
    RaidSweepSeries s;
    assert_int_equal(raidSweepSeriesInit(&s, close, NULL, 6), RAID_OK);
    const double NA = NAN, eps = 11 * 4.4e-13;
    const double f64[6] = {NA, 11, 12, 11, 13, 14};
    const double s64[6] = {NA, 11 - eps, 11, 12, 12, 13};
    const double sc1[6] = {NA, 11 + eps, 11, 12, 12, 13};     /* bar 1 flips: fc = f64 */
    const double sc2[6] = {NA, 11 - eps, 11, 10, 12, 13};     /* bar 3 flips */
    raid_sweep_spec sp;
    raid_sweep_spec_default(&sp);
    raid_sweep_parity_report *rep = raidSweepParityNew(&sp, RAID_PREC_DF, 0);
    assert_non_null(rep);
    one(rep, &s, 1, f64, s64, f64, sc1);
    assert_int_equal(rep->shifted, 2);
    assert_int_equal(rep->ties, 2);
    assert_int_equal(rep->violations, 0);
    assert_true(rep->passed);
    assert_int_equal(rep->nlisted, 2);
    assert_int_equal(rep->listed[0].path, 0);
    assert_int_equal(rep->listed[0].trade.entry_bar, 2);
    assert_int_equal(rep->listed[1].path, 1);
    assert_int_equal(rep->listed[1].trade.entry_bar, 3);
    for (int k = 0; k < 2; k++) {
        assert_true(rep->listed[k].tie);
        assert_true(fabs(rep->listed[k].margin - eps / 11) <= 1e-3 * eps / 11);
    }
    assert_int_equal(rep->count_differs, 0);
    assert_true(fabs(rep->max_abs_dlogret - fabs(log(13.0 / 12) - log(13.0 / 11))) < 1e-15);
    one(rep, &s, 2, f64, s64, f64, sc2);
    assert_int_equal(rep->combos, 2);
    assert_int_equal(rep->shifted, 4);
    assert_int_equal(rep->ties, 2);
    assert_int_equal(rep->violations, 2);
    assert_false(rep->passed);
    assert_int_equal(rep->listed[2].trade.exit_bar, 4);
    assert_int_equal(rep->listed[3].trade.exit_bar, 5);
    assert_true(fabs(rep->listed[3].margin - 1.0 / 11) < 1e-15 && !rep->listed[3].tie);
    assert_int_equal(rep->trades, 2);
    assert_int_equal(rep->trades_checked, 2);
    /* combination 3: the checked path decides 0 1 0 1 0 0: trades (2, 3) and (4, 5), one more (drift 1) */
    const double fc3[6] = {NA, 11, 10, 13, 13, 14}, sc3[6] = {NA, 11 - eps, 11, 12, 14, 15};
    one(rep, &s, 3, f64, s64, fc3, sc3);
    assert_int_equal(rep->max_count_drift, 1);
    assert_int_equal(rep->count_differs, 1);
    assert_int_equal(rep->trades_checked, 4);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_int_equal(raid_sweep_parity_write(rep, f), RAID_OK);
    fclose(f);
    assert_non_null(strstr(text, "combinations 3,"));
    assert_non_null(strstr(text, "FAILED"));
    assert_non_null(strstr(text, "margin 4.4e-13 tie"));
    assert_non_null(strstr(text, "margin 0.0909 VIOLATION"));
    free(text);
    raid_sweep_parity_destroy(rep);
    raidSweepSeriesFree(&s);
}

/* The CLI: --parity's report on stderr and its exit status; --formulation prefix exits 3. */
static void test_cli(void **state)
{
    (void)state;
    const char *in = t_tmppath("parity_in.csv"), *o = t_tmppath("parity_out.csv");
    const int have_device = t_have_opencl();
    const size_t N = 3000;
    double *c = malloc(N * sizeof *c), *op = malloc(N * sizeof *op);
    walk(N, c, op);
    size_t cap = N * 64, at = 0;
    char *text = malloc(cap);
    at += (size_t)snprintf(text + at, cap - at, "date,close\n");
    for (size_t t = 0; t < N; t++)
        at += (size_t)snprintf(text + at, cap - at, "%zu,%.17g\n", t, c[t]); /* dates in order: numbers */
    assert_int_equal(t_write_file(in, text), 0);
    free(text), free(c), free(op);
    char *out, *err;
    assert_int_equal(t_cli(&out, &err, "sweep %s --fast 5:10 --slow 20:40:10 --parity --device cpu -o %s", in, o), 0);
    assert_non_null(strstr(err, "shifted trades outside ties 0 (threshold 0): PASSED"));
    assert_true(t_file_exists(o));
    free(out), free(err);
    assert_int_equal(t_cli(&out, &err, "sweep %s --fast 5:10 --slow 20:40:10 --parity --formulation prefix -o %s",
                           in, o), 3);
    assert_non_null(strstr(err, "FAILED"));
    free(out), free(err);
    if (have_device) {
        assert_int_equal(t_cli(&out, &err, "sweep %s --fast 5:10 --slow 20:40:10 --parity --device %s -o %s", in,
                               t_device(), o), 0);
        assert_non_null(strstr(err, "on the device"));
        assert_non_null(strstr(err, "outside the bound 0 (threshold 0)"));
        free(out), free(err);
    }
    const char *usage[][2] = {{"--parity --precision f32 --ma ema", "applies to hma, wma and mean"},
                              {"--parity --precision x", "bad --precision 'x' (expected df or f32)"},
                              {"--parity --formulation x", "bad --formulation"},
                              {"--parity --formulation prefix --ma ema", "applies to wma and hma"}};
    for (size_t i = 0; i < sizeof usage / sizeof *usage; i++) {
        const int rc = t_cli(&out, &err, "sweep %s %s", in, usage[i][0]);
        if (!(rc == 1 || rc == 2) || !strstr(err, usage[i][1])) {
            fprintf(stderr, "%s: rc %d %s", usage[i][0], rc, err);
            fail();
        }
        free(out), free(err);
    }
}

/* Device scan against cpu scan on table ma (np rows of s->n), every pair of rows p < q: the table rounded
 * to double-floats first (what the device holds), so that both scan the same values. Trades, counts and
 * exposures equal exactly, the other statistics within raidSweepStatsBound. Returns the combinations. */
static size_t check(raid_ctx *ctx, const RaidSweepSeries *s, const double *ma, size_t np, const RaidSweepOpts *o)
{
    int *per = malloc(np * sizeof *per); /* ascending: no pair skipped by raidSweepCpu */
    double *m2 = malloc(np * s->n * sizeof *m2);
    for (size_t p = 0; p < np; p++)
        per[p] = (int)p + 1;
    for (size_t i = 0; i < np * s->n; i++) {
        const float hi = (float)ma[i];
        m2[i] = isnan(ma[i]) ? NAN : (double)hi + (double)(float)(ma[i] - (double)hi);
    }
    size_t nc = 0;
    uint32_t *fi = malloc(np * np * sizeof *fi), *si = malloc(np * np * sizeof *si);
    for (size_t p = 0; p < np; p++)
        for (size_t q = p + 1; q < np; q++)
            fi[nc] = (uint32_t)p, si[nc] = (uint32_t)q, nc++;
    raid_sweep_stats *a = malloc(nc * sizeof *a), *b = malloc(nc * sizeof *b), *b2 = malloc(nc * sizeof *b2);
    RaidSweepTrades *ta = calloc(nc, sizeof *ta), *tb = calloc(nc, sizeof *tb);
    RaidBuf tab;
    assert_int_equal(raidSweepCpu(s, m2, np, per, fi, si, nc, o, a, ta), RAID_OK);
    assert_int_equal(raidSweepDeviceTableUpload(ctx, m2, np, s->n, &tab), RAID_OK);
    assert_int_equal(raidSweepDeviceRun(ctx, s, &tab, np, fi, si, nc, o, b, tb), RAID_OK);
    double worst = 0;
    for (size_t k = 0; k < nc; k++) {
        assert_int_equal(a[k].trades, b[k].trades);
        assert_true(a[k].exposure == b[k].exposure);
        assert_int_equal(ta[k].n, tb[k].n);
        for (size_t i = 0; i < ta[k].n; i++) {
            const raid_sweep_trade *x = &ta[k].v[i], *y = &tb[k].v[i];
            assert_true(x->entry_bar == y->entry_bar && x->exit_bar == y->exit_bar && x->side == y->side);
            assert_true(x->entry_price == y->entry_price && x->exit_price == y->exit_price);
        }
        double bound[3];
        raidSweepStatsBound(s, o, &a[k], bound);
        const double d[3] = {fabs(a[k].total_log_return - b[k].total_log_return), fabs(a[k].sharpe - b[k].sharpe),
                             fabs(a[k].max_drawdown - b[k].max_drawdown)};
        for (int i = 0; i < 3; i++) {
            assert_true(d[i] <= bound[i]);
            if (bound[i] > 0 && isfinite(bound[i]) && d[i] / bound[i] > worst)
                worst = d[i] / bound[i];
        }
    }
    /* without the trade lists: the same statistics, bit for bit */
    assert_int_equal(raidSweepDeviceRun(ctx, s, &tab, np, fi, si, nc, o, b2, NULL), RAID_OK);
    assert_memory_equal(b, b2, nc * sizeof *b);
    raidBufRelease(ctx, &tab);
    printf("device scan: %zu combinations, trades equal, statistics within %.3g of their bound\n", nc, worst);
    raidSweepTradesFree(ta, nc), raidSweepTradesFree(tb, nc);
    free(ta), free(tb), free(a), free(b), free(b2), free(fi), free(si), free(per), free(m2);
    return nc;
}

/* The device trade scan on the walk's float64 HMA table. */
static void test_scan_walk(void **state)
{
    (void)state;
    if (!t_have_opencl())
        skip();
    raid_ctx *ctx = t_open_ctx(t_device());
    const size_t N = 20000, NP = 21; /* HMA 5, 7, .., 25 and 30, 40, .., 120: 210 pairs of rows */
    double *c = malloc(N * sizeof *c), *op = malloc(N * sizeof *op), *ma = malloc(NP * N * sizeof *ma);
    walk(N, c, op);
    const int64_t seg[2] = {0, (int64_t)N};
    for (size_t p = 0; p < NP; p++)
        assert_int_equal(raid_ma_compute(NULL, RAID_MA_HMA, p < 11 ? 5 + 2 * (int64_t)p : 30 + 10 * (int64_t)(p - 11),
                                         c, seg, 1, ma + p * N), RAID_OK);
    RaidSweepSeries s;
    assert_int_equal(raidSweepSeriesInit(&s, c, op, N), RAID_OK);
    RaidSweepOpts o = raidSweepOptsDefault();
    assert_int_equal(check(ctx, &s, ma, NP, &o), 210);
    o.short_side = 1, o.fill = RAID_SWEEP_FILL_NEXT_OPEN, o.cost_bps = 5;
    check(ctx, &s, ma, NP, &o);
    raidSweepSeriesFree(&s);
    free(c), free(op), free(ma);
    raid_ctx_destroy(ctx);
}

/* Rows equal or one ulp of the low float apart at random (double-float values: the finest difference the
 * device table holds), NaN warm-ups of different lengths. */
static void test_scan_ulp(void **state)
{
    (void)state;
    if (!t_have_opencl())
        skip();
    raid_ctx *ctx = t_open_ctx(t_device());
    const size_t N = 3000, NP = 6;
    double *c = malloc(N * sizeof *c), *ma = malloc(NP * N * sizeof *ma);
    uint64_t g = 99;
    for (size_t t = 0; t < N; t++) {
        c[t] = 100 + (double)(t % 7);
        for (size_t p = 0; p < NP; p++) {
            g = g * 6364136223846793005ULL + 1442695040888963407ULL;
            const int r = (int)(g >> 61); /* 0..7 */
            const double base = 123.456 + (double)(t % 3); /* hi + lo: one ulp of lo apart */
            const float hi = (float)base, lo = (float)(base - (double)hi);
            const float lo2 = r < 3 ? lo : r < 6 ? nextafterf(lo, 1e9f) : nextafterf(lo, -1e9f);
            ma[p * N + t] = t < 3 * p ? NAN : (double)hi + (double)lo2;
        }
    }
    RaidSweepSeries s;
    assert_int_equal(raidSweepSeriesInit(&s, c, NULL, N), RAID_OK);
    RaidSweepOpts o = raidSweepOptsDefault();
    check(ctx, &s, ma, NP, &o);
    o.short_side = 1;
    check(ctx, &s, ma, NP, &o);
    raidSweepSeriesFree(&s);
    free(c), free(ma);
    raid_ctx_destroy(ctx);
}

/* The device table (raidMaDeviceTable): df rows within 1e-13 of float64 with the float64 path's NaN
 * positions (hma, wma, mean, ema); f32 rows equal to the host emulation raidSweepF32Ma bit for bit; and
 * the f32 sweep on the device gives the emulated f32 sweep's trades exactly. */
static void test_device_table(void **state)
{
    (void)state;
    raid_ctx *ctx = device_ctx();
    if (!ctx)
        skip();
    const size_t N = 5000;
    const int per[5] = {2, 5, 16, 49, 120};
    double *c = malloc(N * sizeof *c), *o = malloc(N * sizeof *o), *got = malloc(5 * N * sizeof *got);
    double *want = malloc(N * sizeof *want);
    walk(N, c, o);
    const int64_t seg[2] = {0, (int64_t)N};
    const raid_ma_stat stats[4] = {RAID_MA_HMA, RAID_MA_WMA, RAID_MA_MEAN, RAID_MA_EMA};
    for (int f32 = 0; f32 < 2; f32++)
        for (int k = 0; k < 4; k++) {
            if (f32 && stats[k] == RAID_MA_EMA)
                continue;
            RaidBuf tab;
            int e = 0;
            assert_int_equal(raidMaDeviceTable(ctx, stats[k], per, 5, c, N, f32, &tab, &e), RAID_OK);
            assert_int_equal(raidSweepDeviceTableDownload(ctx, &tab, 5, N, e, got), RAID_OK);
            raidBufRelease(ctx, &tab);
            double worst = 0;
            for (int p = 0; p < 5; p++) {
                if (f32)
                    assert_int_equal(raidSweepF32Ma(stats[k], per[p], c, N, want), RAID_OK);
                else
                    assert_int_equal(raid_ma_compute(NULL, stats[k], per[p], c, seg, 1, want), RAID_OK);
                for (size_t t = 0; t < N; t++) {
                    const double g = got[(size_t)p * N + t];
                    assert_int_equal(isnan(g), isnan(want[t]));
                    if (isnan(g))
                        continue;
                    if (f32)
                        assert_true(g == want[t]);
                    const double rel = fabs(g - want[t]) / fabs(want[t]);
                    worst = rel > worst ? rel : worst;
                }
            }
            assert_true(worst <= 1e-13);
            printf("device table %s %s: largest relative difference from the host %.3g\n", f32 ? "f32" : "df",
                   raid_ma_stat_name(stats[k]), worst);
        }
    /* the f32 sweep: device kernels and host emulation, the same moving averages, the same trades */
    raid_sweep_spec sp;
    grid200(&sp);
    sp.keep_trades = 1;
    raid_ctx *cpu = t_open_ctx("cpu");
    assert_int_equal(raid_ctx_set_precision(ctx, RAID_PREC_F32), RAID_OK);
    assert_int_equal(raid_ctx_set_precision(cpu, RAID_PREC_F32), RAID_OK);
    raid_sweep_result *rd = NULL, *rh = NULL;
    assert_int_equal(raid_sweep_run_arrays(ctx, &sp, c, o, seg, 1, NULL, &rd), RAID_OK);
    assert_int_equal(raid_sweep_run_arrays(cpu, &sp, c, o, seg, 1, NULL, &rh), RAID_OK);
    for (size_t k = 0; k < raid_sweep_result_count(rh); k++) {
        const raid_sweep_trade *va, *vb;
        size_t na, nb;
        raid_sweep_result_trades(rd, k, &va, &na);
        raid_sweep_result_trades(rh, k, &vb, &nb);
        assert_int_equal(na, nb);
        for (size_t i = 0; i < na; i++)
            assert_true(va[i].entry_bar == vb[i].entry_bar && va[i].exit_bar == vb[i].exit_bar && va[i].side == vb[i].side);
    }
    raid_sweep_result_destroy(rd), raid_sweep_result_destroy(rh);
    /* and its parity on the device: float32's shifted trades, all float32 ties */
    raid_sweep_parity_report *rep = NULL;
    assert_int_equal(raid_sweep_parity_arrays(ctx, &sp, c, o, seg, 1, NULL, &rep, NULL), RAID_OK);
    assert_true(rep->on_device && rep->shifted > 0 && rep->shifted == rep->ties && rep->passed);
    assert_int_equal(rep->precision, RAID_PREC_F32);
    raid_sweep_parity_write(rep, stderr);
    raid_sweep_parity_destroy(rep);
    raid_ctx_destroy(cpu);
    free(c), free(o), free(got), free(want);
    raid_ctx_destroy(ctx);
}

/* On a simulated 150,000-bar walk near 30,000 (fixed seed) and a grid of 1,020 HMA
 * combinations (fast 5..24, slow 30..130 by 2), long/flat at the close, the device sweep's trade lists are
 * the float64 path's (no shifted trade), its statistics within the bound. */
static void test_device_150k(void **state)
{
    (void)state;
    raid_ctx *ctx = device_ctx();
    if (!ctx)
        skip();
    const size_t N = 150000;
    double *c = malloc(N * sizeof *c), *o = malloc(N * sizeof *o);
    walk(N, c, o);
    const int64_t seg[2] = {0, (int64_t)N};
    raid_sweep_spec sp;
    raid_sweep_spec_default(&sp);
    sp.fast_lo = 5, sp.fast_hi = 24, sp.slow_lo = 30, sp.slow_hi = 130, sp.slow_step = 2;
    raid_sweep_parity_report *rep = NULL;
    assert_int_equal(raid_sweep_parity_arrays(ctx, &sp, c, o, seg, 1, NULL, &rep, NULL), RAID_OK);
    raid_sweep_parity_write(rep, stderr);
    assert_int_equal(rep->combos, 1020);
    assert_true(rep->trades > 1000000);
    assert_int_equal(rep->violations, 0);
    assert_int_equal(rep->stat_violations, 0);
    assert_int_equal(rep->stat_checked + rep->count_differs, 1020);
    assert_true(rep->passed);
    raid_sweep_parity_destroy(rep);
    free(c), free(o);
    raid_ctx_destroy(ctx);
}

/* Regressions: (a) exact float64 ties that the device's double-floats
 * split and the report's doubles join again (data/ttrc_daily.csv, mean 16/40 at bar 1489: 8.25 = 8.25)
 * are ties, not violations; (b) prices spanning more than float's range (1e-250 beside 5e99, a
 * subnormal) give finite statistics, the device sweeping such a series on the float64 path and raid ma
 * on the device equal to the host; (c) the f32 emulation scales as the device does: 1e50 prices give
 * the device's trades. */
static void test_breakit(void **state)
{
    (void)state;
    raid_ctx *ctx = device_ctx();
    if (!ctx)
        skip();
    char *out, *err;
    assert_int_equal(t_cli(&out, &err, "sweep %s --ma mean --fast 5:20 --slow 30:60:10 --parity --device %s -o %s",
                           t_data("ttrc_daily.csv"), t_device(), t_tmppath("breakit.csv")), 0);
    assert_non_null(strstr(err, "PASSED"));
    assert_null(strstr(err, "VIOLATION"));
    free(out), free(err);
    const size_t N = 300;
    double *c = malloc(N * sizeof *c), *o = malloc(N * sizeof *o), *m1 = malloc(N * sizeof *m1), *m2 = malloc(N * sizeof *m2);
    walk(N, c, o);
    raid_ctx *cpu = t_open_ctx("cpu");
    const int64_t seg[2] = {0, (int64_t)N};
    for (int v = 0; v < 3; v++) {
        double *x = malloc(N * sizeof *x);
        for (size_t t = 0; t < N; t++)
            x[t] = v == 2 ? c[t] * 1e46 : c[t] * 1e95;
        if (v == 0)
            x[40] = 1e-250;
        if (v == 1)
            x[40] = 4.9e-324;
        raid_sweep_spec sp;
        raid_sweep_spec_default(&sp);
        sp.ma = RAID_MA_WMA, sp.fast_lo = 2, sp.fast_hi = 4, sp.slow_lo = 5, sp.slow_hi = 9, sp.slow_step = 1;
        const raid_precision p = v == 2 ? RAID_PREC_F32 : RAID_PREC_DF;
        assert_int_equal(raid_ctx_set_precision(ctx, p), RAID_OK);
        assert_int_equal(raid_ctx_set_precision(cpu, p), RAID_OK);
        raid_sweep_result *rd = NULL, *rh = NULL;
        assert_int_equal(raid_sweep_run_arrays(ctx, &sp, x, NULL, seg, 1, NULL, &rd), RAID_OK);
        assert_int_equal(raid_sweep_run_arrays(cpu, &sp, x, NULL, seg, 1, NULL, &rh), RAID_OK);
        for (size_t k = 0; k < raid_sweep_result_count(rh); k++) {
            raid_sweep_stats a, b;
            raid_sweep_result_get(rd, k, NULL, NULL, NULL, &a);
            raid_sweep_result_get(rh, k, NULL, NULL, NULL, &b);
            assert_true(isfinite(b.total_log_return) && isfinite(b.sharpe) && isfinite(b.max_drawdown));
            assert_int_equal(a.trades, b.trades);
            if (v < 2) /* swept on the float64 path on both */
                assert_memory_equal(&a, &b, sizeof a);
        }
        raid_sweep_result_destroy(rd), raid_sweep_result_destroy(rh);
        if (v < 2) { /* raid ma on the device: the float64 path for such a series */
            assert_int_equal(raid_ma_compute(ctx, RAID_MA_WMA, 1, x, seg, 1, m1), RAID_OK);
            assert_int_equal(raid_ma_compute(NULL, RAID_MA_WMA, 1, x, seg, 1, m2), RAID_OK);
            assert_memory_equal(m1, m2, N * sizeof *m1);
            assert_true(m1[40] == x[40]);
        }
        free(x);
    }
    free(c), free(o), free(m1), free(m2);
    raid_ctx_destroy(cpu);
    raid_ctx_destroy(ctx);
}

/* The sweep reads the context's precision (raid_ctx_set_precision, the one setting of every capability) at
 * each run: on a cpu context RAID_PREC_F32 is the float32 emulation (other trades than float64's on the
 * walk), RAID_PREC_DF float64 (NULL's, bit for bit), and setting it back gives float64 again; on a device
 * RAID_PREC_F32 is the float32 kernels (the cpu emulation's trades) and RAID_PREC_DF the double-float
 * path (float64's trades). A value outside the enum is refused (RAID_EINVAL) and leaves the policy as it was. */
static void test_context_precision(void **state)
{
    (void)state;
    const size_t N = 5000;
    double *c = malloc(N * sizeof *c), *o = malloc(N * sizeof *o);
    walk(N, c, o);
    const int64_t off[2] = {0, (int64_t)N};
    raid_sweep_spec sp;
    grid200(&sp);
    sp.keep_trades = 1;
    raid_ctx *cpu = t_open_ctx("cpu");
    raid_ctx *dev = device_ctx();
    assert_int_equal(raid_ctx_precision(NULL), RAID_PREC_DF);
    assert_int_equal(raid_ctx_precision(cpu), RAID_PREC_DF);
    raid_sweep_result *r64 = NULL, *rdf = NULL, *r32 = NULL, *rback = NULL;
    assert_int_equal(raid_sweep_run_arrays(NULL, &sp, c, o, off, 1, NULL, &r64), RAID_OK);
    assert_int_equal(raid_sweep_run_arrays(cpu, &sp, c, o, off, 1, NULL, &rdf), RAID_OK);
    assert_int_equal(raid_ctx_set_precision(cpu, RAID_PREC_F32), RAID_OK);
    assert_int_equal(raid_sweep_run_arrays(cpu, &sp, c, o, off, 1, NULL, &r32), RAID_OK);
    /* out of range: refused, the policy unchanged (f32) */
    assert_int_equal(raid_ctx_set_precision(cpu, (raid_precision)2), RAID_EINVAL);
    assert_non_null(strstr(raid_ctx_errmsg(cpu), "unknown precision policy 2"));
    assert_int_equal(raid_ctx_set_precision(cpu, (raid_precision)-1), RAID_EINVAL);
    assert_int_equal(raid_ctx_precision(cpu), RAID_PREC_F32);
    raid_sweep_parity_report *rep = NULL;
    assert_int_equal(raid_sweep_parity_arrays(cpu, &sp, c, o, off, 1, NULL, &rep, NULL), RAID_OK);
    assert_int_equal(rep->precision, RAID_PREC_F32);
    assert_false(rep->on_device);
    assert_true(rep->shifted > 0 && rep->passed);
    raid_sweep_parity_destroy(rep);
    assert_int_equal(raid_ctx_set_precision(cpu, RAID_PREC_DF), RAID_OK);
    assert_int_equal(raid_sweep_run_arrays(cpu, &sp, c, o, off, 1, NULL, &rback), RAID_OK);
    size_t differ = 0;
    for (size_t k = 0; k < raid_sweep_result_count(r64); k++) {
        raid_sweep_stats a, b, f, g;
        raid_sweep_result_get(r64, k, NULL, NULL, NULL, &a);
        raid_sweep_result_get(rdf, k, NULL, NULL, NULL, &b);
        raid_sweep_result_get(r32, k, NULL, NULL, NULL, &f);
        raid_sweep_result_get(rback, k, NULL, NULL, NULL, &g);
        assert_memory_equal(&a, &b, sizeof a);
        assert_memory_equal(&a, &g, sizeof a);
        differ += memcmp(&a, &f, sizeof a) != 0;
    }
    assert_true(differ > 0);
    if (dev) {
        for (int p = 0; p < 2; p++) {
            const raid_precision pol = p ? RAID_PREC_F32 : RAID_PREC_DF;
            assert_int_equal(raid_ctx_set_precision(dev, pol), RAID_OK);
            raid_sweep_result *rd = NULL;
            assert_int_equal(raid_sweep_run_arrays(dev, &sp, c, o, off, 1, NULL, &rd), RAID_OK);
            const raid_sweep_result *want = r32; /* f32: the same trades; df: others (float64's but at ties) */
            size_t dtrades = 0;
            for (size_t k = 0; k < raid_sweep_result_count(want); k++) {
                const raid_sweep_trade *va, *vb;
                size_t na, nb;
                raid_sweep_result_trades(rd, k, &va, &na);
                raid_sweep_result_trades(want, k, &vb, &nb);
                int same = na == nb;
                for (size_t i = 0; same && i < na; i++)
                    same = va[i].entry_bar == vb[i].entry_bar && va[i].exit_bar == vb[i].exit_bar && va[i].side == vb[i].side;
                dtrades += !same;
            }
            printf("device sweep at %s: %zu of %zu combinations with other trades than the cpu emulation of f32\n",
                   p ? "f32" : "df", dtrades, raid_sweep_result_count(want));
            if (p)
                assert_int_equal(dtrades, 0);
            else
                assert_true(dtrades > 0);
            raid_sweep_result_destroy(rd);
            assert_int_equal(raid_sweep_parity_arrays(dev, &sp, c, o, off, 1, NULL, &rep, NULL), RAID_OK);
            assert_true(rep->on_device && rep->precision == pol && rep->passed);
            raid_sweep_parity_destroy(rep);
        }
        raid_ctx_destroy(dev);
    }
    raid_sweep_result_destroy(r64), raid_sweep_result_destroy(rdf), raid_sweep_result_destroy(r32);
    raid_sweep_result_destroy(rback);
    raid_ctx_destroy(cpu);
    free(c), free(o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_hand_made), cmocka_unit_test(test_prefix_fails),
                                       cmocka_unit_test(test_device_parity), cmocka_unit_test(test_cli),
                                       cmocka_unit_test(test_scan_walk), cmocka_unit_test(test_scan_ulp), cmocka_unit_test(test_device_table),
                                       cmocka_unit_test(test_device_150k), cmocka_unit_test(test_breakit),
                                       cmocka_unit_test(test_context_precision)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
