/* Tests of the float64 cpu path of the crossover sweep (src/ta/sweep_cpu.c, docs/ta_sweep.md): small
 * hand-made series whose trades, per-bar returns, exposure, drawdown and Sharpe ratio are worked out by
 * hand (fills at the close and at the next open, the last open trade closed at the last close, costs, the
 * short side, flips, moving averages undefined at the start, a decision at the last bar, ties), the
 * argument checks, and on a random series: a second, plainly structured implementation (every option,
 * the same trades exactly), the trade invariants, determinism, independence of the number
 * of threads and of the order of the combinations, and the batch equal to one-by-one. */
#include "support.h"
#include "ta/sweep.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------------------------------------- */
/* helpers                                                                                          */

#define N6 6
/* close and open of the hand-made series */
static const double CL[N6] = {10, 11, 12, 11, 13, 14};
static const double OP[N6] = {9.5, 10.5, 11.5, 11.2, 12.5, 13.8};
static const double ZERO[N6] = {0, 0, 0, 0, 0, 0};

typedef struct expect_trade {
    int entry, exit;
    double ep, xp;
    int side;
} expect_trade;

/* Run one combination (fast against slow) and check the trades exactly. */
static raid_sweep_stats run_one(const double *close, const double *open, size_t n, const double *fast,
                                const double *slow, const RaidSweepOpts *o, const expect_trade *ex, int nex)
{
    RaidSweepSeries s;
    assert_int_equal(raidSweepSeriesInit(&s, close, open, n), RAID_OK);
    assert_int_equal(raidSweepOptsCheck(&s, o), RAID_OK);
    raid_sweep_stats st;
    raid_sweep_trade tr[16];
    assert_int_equal(raidSweepOne(&s, fast, slow, o, &st, tr, 16, NULL), RAID_OK);
    assert_int_equal(st.trades, nex);
    for (int i = 0; i < nex; i++) {
        assert_int_equal(tr[i].entry_bar, ex[i].entry);
        assert_int_equal(tr[i].exit_bar, ex[i].exit);
        assert_true(tr[i].entry_price == ex[i].ep);
        assert_true(tr[i].exit_price == ex[i].xp);
        assert_int_equal(tr[i].side, ex[i].side);
    }
    raidSweepSeriesFree(&s);
    return st;
}

static void near(double got, double want, double tol)
{
    if (!(fabs(got - want) <= tol * (1.0 + fabs(want)))) {
        fprintf(stderr, "got %.17g want %.17g\n", got, want);
        fail();
    }
}

/* The statistics that follow from per-bar returns r[0..N-1] (r[t-1] is bar t's), computed plainly. */
static void check_from_returns(const raid_sweep_stats *st, const double *r, int N, int held, double bpy)
{
    double sum = 0, peak = 0, mdd = 0;
    for (int i = 0; i < N; i++) {
        sum += r[i];
        if (sum > peak) peak = sum;
        if (peak - sum > mdd) mdd = peak - sum;
    }
    const double mean = sum / N;
    double ss = 0;
    for (int i = 0; i < N; i++) ss += (r[i] - mean) * (r[i] - mean);
    const double sd = sqrt(ss / (N - 1));
    near(st->total_log_return, sum, 1e-15);
    near(st->max_drawdown, mdd, 1e-15);
    near(st->sharpe, sd > 0 ? mean / sd * sqrt(bpy) : 0.0, 1e-14);
    assert_true(st->exposure == (double)held / N);
}

/* fast = +1 (long), -1 (fast <= slow), NaN (undefined) against slow = 0 */
static const double SIG[N6] = {NAN, 1, 1, -1, 1, 1};

/* ---------------------------------------------------------------------------------------------- */
/* hand-made cases                                                                                  */

/* Long/flat, fill at the close of t+1. Decisions d = 0 1 1 0 1 1: entry at close[2], exit at close[4];
 * d[4] = 1 would enter at close[5], the last close: not opened; d[5] is never filled. */
static void test_fill_close(void **state)
{
    (void)state;
    RaidSweepOpts o = raidSweepOptsDefault();
    const expect_trade ex[] = {{2, 4, 12, 13, 1}};
    raid_sweep_stats st = run_one(CL, NULL, N6, SIG, ZERO, &o, ex, 1);
    near(st.total_log_return, log(13.0 / 12.0), 1e-15);
    const double r[5] = {0, 0, log(11.0 / 12.0), log(13.0 / 11.0), 0};
    check_from_returns(&st, r, 5, 2, 252);
    /* by hand: the drop from the start to E[3] = log(11/12); exposure 2 of 5 return bars */
    near(st.max_drawdown, log(12.0 / 11.0), 1e-15);
    assert_true(st.exposure == 0.4);
    /* the Sharpe ratio by hand: mean = log(13/12)/5, sd from the five returns */
    const double a = log(11.0 / 12.0), b = log(13.0 / 11.0), m = (a + b) / 5;
    const double sd = sqrt((3 * m * m + (a - m) * (a - m) + (b - m) * (b - m)) / 4);
    near(st.sharpe, m / sd * sqrt(252.0), 1e-14);
    o.bars_per_year = 52;
    st = run_one(CL, NULL, N6, SIG, ZERO, &o, ex, 1);
    near(st.sharpe, m / sd * sqrt(52.0), 1e-14);
}

/* The decision at the last bar is never filled; with fill at the close, neither is the entry the
 * decision at n-2 would open at the last close. A position held into the last bar closes at its close. */
static void test_last_bar(void **state)
{
    (void)state;
    RaidSweepOpts o = raidSweepOptsDefault();
    const expect_trade ex[] = {{2, 4, 12, 13, 1}};
    const double f1[N6] = {NAN, 1, 1, -1, 1, -1}; /* d[5] changes: nothing does */
    raid_sweep_stats a = run_one(CL, NULL, N6, SIG, ZERO, &o, ex, 1);
    raid_sweep_stats b = run_one(CL, NULL, N6, f1, ZERO, &o, ex, 1);
    assert_memory_equal(&a, &b, sizeof a);
    /* held from close[2] through the end: closed at close[5] */
    const double f2[N6] = {NAN, 1, 1, 1, 1, -1};
    const expect_trade ex2[] = {{2, 5, 12, 14, 1}};
    raid_sweep_stats c = run_one(CL, NULL, N6, f2, ZERO, &o, ex2, 1);
    near(c.total_log_return, log(14.0 / 12.0), 1e-15);
    assert_true(c.exposure == 3.0 / 5.0);
    /* an exit decided at n-2 and the final close are the same fill: one exit at close[5] */
    const double f3[N6] = {NAN, 1, 1, 1, -1, -1};
    run_one(CL, NULL, N6, f3, ZERO, &o, ex2, 1);
    /* with fill at the next open, the decision at n-2 enters at open[5] and closes at close[5] */
    o.fill = RAID_SWEEP_FILL_NEXT_OPEN;
    const double f4[N6] = {NAN, -1, -1, -1, 1, -1};
    const expect_trade ex4[] = {{5, 5, 13.8, 14, 1}};
    raid_sweep_stats d = run_one(CL, OP, N6, f4, ZERO, &o, ex4, 1);
    const double r[5] = {0, 0, 0, 0, log(14 / 13.8)};
    check_from_returns(&d, r, 5, 1, 252);
}

/* Long/flat, fill at the next open: entry at open[2], exit at open[4], entry at open[5] closed at
 * close[5]; the first bar of a trade counts from its open, the last up to its open. */
static void test_fill_next_open(void **state)
{
    (void)state;
    RaidSweepOpts o = raidSweepOptsDefault();
    o.fill = RAID_SWEEP_FILL_NEXT_OPEN;
    const expect_trade ex[] = {{2, 4, 11.5, 12.5, 1}, {5, 5, 13.8, 14, 1}};
    raid_sweep_stats st = run_one(CL, OP, N6, SIG, ZERO, &o, ex, 2);
    near(st.total_log_return, log(12.5 / 11.5) + log(14 / 13.8), 1e-15);
    const double r[5] = {0, log(12 / 11.5), log(11.0 / 12.0), log(12.5 / 11), log(14 / 13.8)};
    check_from_returns(&st, r, 5, 4, 252);
    assert_true(st.exposure == 0.8);
}

/* Costs: each side multiplies wealth by (1 - B 1e-4); the per-bar return of the bar of a fill carries it. */
static void test_costs(void **state)
{
    (void)state;
    RaidSweepOpts o = raidSweepOptsDefault();
    o.cost_bps = 10;
    const double c = log1p(-1e-3);
    const expect_trade ex[] = {{2, 4, 12, 13, 1}};
    raid_sweep_stats st = run_one(CL, NULL, N6, SIG, ZERO, &o, ex, 1);
    near(st.total_log_return, log(13.0 / 12.0) + 2 * c, 1e-15);
    near(st.total_log_return, log(13.0 / 12.0 * 0.999 * 0.999), 1e-15);
    const double r[5] = {0, c, log(11.0 / 12.0), log(13.0 / 11.0) + c, 0};
    check_from_returns(&st, r, 5, 2, 252);
    /* the drawdown now starts at the entry's cost */
    near(st.max_drawdown, -(c + log(11.0 / 12.0)), 1e-15);
    /* no trade: no cost, Sharpe 0 (sd = 0), no drawdown, no exposure */
    const double flat[N6] = {NAN, -1, -1, -1, -1, -1};
    st = run_one(CL, NULL, N6, flat, ZERO, &o, NULL, 0);
    assert_true(st.total_log_return == 0 && st.sharpe == 0 && st.max_drawdown == 0 && st.exposure == 0);
}

/* Short side, fill at the close: d = 0 1 1 -1 1 1; the flip at close[4] is two trades at the same fill,
 * each with its cost; the short is closed at the last close (the long entry there is not opened). */
static void test_short_flip_close(void **state)
{
    (void)state;
    RaidSweepOpts o = raidSweepOptsDefault();
    o.short_side = 1;
    o.cost_bps = 5;
    const double c = log1p(-5e-4);
    const expect_trade ex[] = {{2, 4, 12, 13, 1}, {4, 5, 13, 14, -1}};
    raid_sweep_stats st = run_one(CL, NULL, N6, SIG, ZERO, &o, ex, 2);
    near(st.total_log_return, log(13.0 / 12.0) - log(14.0 / 13.0) + 4 * c, 1e-15);
    const double r[5] = {0, c, log(11.0 / 12.0), log(13.0 / 11.0) + 2 * c, -log(14.0 / 13.0) + c};
    check_from_returns(&st, r, 5, 3, 252);
}

/* Short side, fill at the next open: flips at open[4] and open[5]; the last long is closed at close[5]
 * (three sides at bar 5). */
static void test_short_flip_next_open(void **state)
{
    (void)state;
    RaidSweepOpts o = raidSweepOptsDefault();
    o.short_side = 1;
    o.fill = RAID_SWEEP_FILL_NEXT_OPEN;
    o.cost_bps = 5;
    const double c = log1p(-5e-4);
    const expect_trade ex[] = {
        {2, 4, 11.5, 12.5, 1}, {4, 5, 12.5, 13.8, -1}, {5, 5, 13.8, 14, 1}};
    raid_sweep_stats st = run_one(CL, OP, N6, SIG, ZERO, &o, ex, 3);
    near(st.total_log_return, log(12.5 / 11.5) - log(13.8 / 12.5) + log(14 / 13.8) + 6 * c, 1e-15);
    const double r[5] = {0, log(12 / 11.5) + c, log(11.0 / 12.0), log(12.5 / 11) - log(13 / 12.5) + 2 * c,
                         -log(13.8 / 13) + log(14 / 13.8) + 3 * c};
    check_from_returns(&st, r, 5, 4, 252);
}

/* While either moving average is undefined the decision is flat, also with the short side; a tie
 * (fast == slow) is not long (short with the short side). */
static void test_undefined_and_ties(void **state)
{
    (void)state;
    RaidSweepOpts o = raidSweepOptsDefault();
    o.short_side = 1;
    const double f[N6] = {NAN, NAN, -1, -1, 1, 1};
    /* d = 0 0 -1 -1 1 1: short entered at close[3]; the flip at close[5] only exits */
    const expect_trade ex[] = {{3, 5, 11, 14, -1}};
    run_one(CL, NULL, N6, f, ZERO, &o, ex, 1);
    /* the slow average undefined instead */
    const double f2[N6] = {-1, -1, -1, -1, 1, 1};
    const double s2[N6] = {NAN, NAN, 0, 0, 0, 0};
    run_one(CL, NULL, N6, f2, s2, &o, ex, 1);
    /* ties: fast == slow */
    const double f3[N6] = {NAN, NAN, 0, 0, 1, 1};
    run_one(CL, NULL, N6, f3, ZERO, &o, ex, 1);
    o.short_side = 0;
    run_one(CL, NULL, N6, f3, ZERO, &o, NULL, 0);
    /* everything undefined: nothing */
    const double nan6[N6] = {NAN, NAN, NAN, NAN, NAN, NAN};
    o.short_side = 1;
    raid_sweep_stats st = run_one(CL, NULL, N6, nan6, ZERO, &o, NULL, 0);
    assert_true(st.total_log_return == 0 && st.exposure == 0 && st.sharpe == 0);
}

static void test_errors(void **state)
{
    (void)state;
    RaidSweepSeries s;
    assert_int_equal(raidSweepSeriesInit(&s, CL, NULL, 2), RAID_EINVAL);
    const double bad[4] = {1, 2, 0, 3};
    assert_int_equal(raidSweepSeriesInit(&s, bad, NULL, 4), RAID_EINVAL);
    assert_non_null(strstr(raid_errmsg(), "close at bar 2"));
    const double badopen[4] = {1, NAN, 2, 3};
    assert_int_equal(raidSweepSeriesInit(&s, CL, badopen, 4), RAID_EINVAL);
    assert_non_null(strstr(raid_errmsg(), "open at bar 1"));
    assert_int_equal(raidSweepSeriesInit(&s, CL, NULL, N6), RAID_OK);
    RaidSweepOpts o = raidSweepOptsDefault();
    o.fill = RAID_SWEEP_FILL_NEXT_OPEN;
    assert_int_equal(raidSweepOptsCheck(&s, &o), RAID_EINVAL);
    assert_non_null(strstr(raid_errmsg(), "open"));
    o = raidSweepOptsDefault();
    o.cost_bps = -1;
    assert_int_equal(raidSweepOptsCheck(&s, &o), RAID_EINVAL);
    o.cost_bps = 1e4;
    assert_int_equal(raidSweepOptsCheck(&s, &o), RAID_EINVAL);
    o = raidSweepOptsDefault();
    o.bars_per_year = 0;
    assert_int_equal(raidSweepOptsCheck(&s, &o), RAID_EINVAL);
    o = raidSweepOptsDefault();
    const int periods[2] = {2, 3};
    const uint32_t fi[1] = {0}, si[1] = {2};
    double ma[2 * N6] = {0};
    raid_sweep_stats st;
    assert_int_equal(raidSweepCpu(&s, ma, 2, periods, fi, si, 1, &o, &st, NULL), RAID_EINVAL);
    raidSweepSeriesFree(&s);
}

/* ---------------------------------------------------------------------------------------------- */
/* random series: the batch                                                                         */

#define NR 3000
#define NP 7
static const int PER[NP] = {3, 5, 8, 13, 21, 34, 5}; /* 5 twice: fast == slow is skipped */

/* Prices as a random walk in logs (a fixed LCG), open near the previous close; the moving averages are
 * simple means (any arrays do: the sweep takes them as given), NaN before the window fills and, for one
 * period, NaN over a stretch inside the series. */
static void random_series(double *close, double *open, double *ma)
{
    uint64_t u = 12345;
    double lp = log(100.0);
    for (int t = 0; t < NR; t++) {
        u = u * 6364136223846793005ULL + 1442695040888963407ULL;
        const double z = ((double)(u >> 11) / 9007199254740992.0 - 0.5) * 0.04;
        u = u * 6364136223846793005ULL + 1442695040888963407ULL;
        const double g = ((double)(u >> 11) / 9007199254740992.0 - 0.5) * 0.01;
        open[t] = exp(lp + g);
        lp += z;
        close[t] = exp(lp);
    }
    for (int p = 0; p < NP; p++)
        for (int t = 0; t < NR; t++) {
            double *m = ma + (size_t)p * NR;
            if (t + 1 < PER[p]) {
                m[t] = NAN;
                continue;
            }
            double s = 0;
            for (int j = 0; j < PER[p]; j++) s += close[t - j];
            m[t] = s / PER[p];
            if (p == 2 && t > 1000 && t < 1040) m[t] = NAN;
        }
}

/* The random series of the batch tests, made once (group setup). */
static double *g_close, *g_open, *g_ma;
static RaidSweepSeries g_series;

static int setup(void **state)
{
    (void)state;
    g_close = malloc(NR * sizeof *g_close);
    g_open = malloc(NR * sizeof *g_open);
    g_ma = malloc((size_t)NP * NR * sizeof *g_ma);
    if (!g_close || !g_open || !g_ma) return -1;
    random_series(g_close, g_open, g_ma);
    return raidSweepSeriesInit(&g_series, g_close, g_open, NR) == RAID_OK ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    raidSweepSeriesFree(&g_series);
    free(g_close), free(g_open), free(g_ma);
    return 0;
}

static void check_trades(const RaidSweepTrades *tl, const double *close, const double *open,
                         const RaidSweepOpts *o, const raid_sweep_stats *st)
{
    assert_int_equal((int64_t)tl->n, st->trades);
    const double c = log1p(-o->cost_bps * 1e-4);
    double tot = 0;
    int64_t prev_exit = 0, span = 0;
    for (size_t i = 0; i < tl->n; i++) {
        const raid_sweep_trade *t = &tl->v[i];
        assert_true(t->entry_bar >= 1 && t->entry_bar >= prev_exit && t->exit_bar >= t->entry_bar);
        assert_true(t->exit_bar <= NR - 1);
        assert_true(t->side == 1 || (o->short_side && t->side == -1));
        const double *fp = o->fill == RAID_SWEEP_FILL_CLOSE ? close : open;
        assert_true(t->entry_price == fp[t->entry_bar]);
        /* the fill price of the exit bar, or the last close (the final exit) */
        assert_true(t->exit_price == fp[t->exit_bar] ||
                    (t->exit_bar == NR - 1 && i + 1 == tl->n && t->exit_price == close[NR - 1]));
        if (o->fill == RAID_SWEEP_FILL_CLOSE) assert_true(t->exit_bar > t->entry_bar);
        tot += t->side * log(t->exit_price / t->entry_price) + 2 * c;
        span += t->exit_bar - t->entry_bar;
        prev_exit = t->exit_bar;
    }
    near(st->total_log_return, tot, 1e-12);
    /* with fill at the close, the bars in a position are exactly the trades' spans */
    if (o->fill == RAID_SWEEP_FILL_CLOSE) assert_true(st->exposure == (double)span / (NR - 1));
}

/* Field by field (the struct has padding), prices bit for bit. */
static int trades_equal(const raid_sweep_trade *a, const raid_sweep_trade *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (a[i].entry_bar != b[i].entry_bar || a[i].exit_bar != b[i].exit_bar || a[i].side != b[i].side ||
            memcmp(&a[i].entry_price, &b[i].entry_price, sizeof(double)) ||
            memcmp(&a[i].exit_price, &b[i].exit_price, sizeof(double)))
            return 0;
    return 1;
}

static void test_batch(void **state)
{
    (void)state;
    const double *close = g_close, *open = g_open, *ma = g_ma;
    const RaidSweepSeries s = g_series;
    uint32_t fi[NP * NP], si[NP * NP];
    size_t nc = 0;
    for (int a = 0; a < NP; a++)
        for (int b = 0; b < NP; b++) fi[nc] = a, si[nc++] = b;
    /* the same combinations in reverse order */
    uint32_t fr[NP * NP], sr[NP * NP];
    for (size_t k = 0; k < nc; k++) fr[k] = fi[nc - 1 - k], sr[k] = si[nc - 1 - k];
    raid_sweep_stats *st1 = malloc(nc * sizeof *st1), *st2 = malloc(nc * sizeof *st2),
                     *st3 = malloc(nc * sizeof *st3);
    RaidSweepTrades *tl1 = malloc(nc * sizeof *tl1), *tl2 = malloc(nc * sizeof *tl2),
                      *tl3 = malloc(nc * sizeof *tl3);
    raid_sweep_trade *buf = malloc(NR * sizeof *buf);
    int ntraded = 0;
    for (int variant = 0; variant < 4; variant++) {
        RaidSweepOpts o = raidSweepOptsDefault();
        o.short_side = variant & 1;
        o.fill = variant & 2 ? RAID_SWEEP_FILL_NEXT_OPEN : RAID_SWEEP_FILL_CLOSE;
        o.cost_bps = 2.5 * variant;
        omp_set_num_threads(1);
        assert_int_equal(raidSweepCpu(&s, ma, NP, PER, fi, si, nc, &o, st1, tl1), RAID_OK);
        omp_set_num_threads(3);
        assert_int_equal(raidSweepCpu(&s, ma, NP, PER, fi, si, nc, &o, st2, tl2), RAID_OK);
        assert_int_equal(raidSweepCpu(&s, ma, NP, PER, fr, sr, nc, &o, st3, tl3), RAID_OK);
        for (size_t k = 0; k < nc; k++) {
            const size_t kr = nc - 1 - k;
            /* thread count and order: bit for bit (NaN statistics of skipped ones compare as bytes) */
            assert_memory_equal(&st1[k], &st2[k], sizeof st1[k]);
            assert_memory_equal(&st1[k], &st3[kr], sizeof st1[k]);
            assert_int_equal(tl1[k].n, tl2[k].n);
            assert_int_equal(tl1[k].n, tl3[kr].n);
            if (tl1[k].n) {
                assert_true(trades_equal(tl1[k].v, tl2[k].v, tl1[k].n));
                assert_true(trades_equal(tl1[k].v, tl3[kr].v, tl1[k].n));
            }
            if (PER[fi[k]] >= PER[si[k]]) {
                assert_int_equal(st1[k].trades, -1);
                assert_true(isnan(st1[k].sharpe) && tl1[k].n == 0 && tl1[k].v == NULL);
                continue;
            }
            /* the batch is one-by-one */
            raid_sweep_stats one;
            assert_int_equal(raidSweepOne(&s, ma + (size_t)fi[k] * NR, ma + (size_t)si[k] * NR, &o, &one, buf,
                                            NR, NULL),
                             RAID_OK);
            assert_memory_equal(&one, &st1[k], sizeof one);
            assert_true(trades_equal(buf, tl1[k].v, (size_t)one.trades));
            check_trades(&tl1[k], close, open, &o, &st1[k]);
            assert_true(st1[k].max_drawdown >= 0 && st1[k].exposure >= 0 && st1[k].exposure <= 1);
            assert_true(isfinite(st1[k].sharpe));
            ntraded += st1[k].trades > 10;
        }
        /* without trade lists: the same statistics */
        assert_int_equal(raidSweepCpu(&s, ma, NP, PER, fi, si, nc, &o, st2, NULL), RAID_OK);
        assert_memory_equal(st1, st2, nc * sizeof *st1);
        raidSweepTradesFree(tl1, nc);
        raidSweepTradesFree(tl2, nc);
        raidSweepTradesFree(tl3, nc);
    }
    assert_true(ntraded > 40); /* the series crosses: the checks above saw real trade lists */
    /* a capacity smaller than the count: the count is still the full one */
    RaidSweepOpts o = raidSweepOptsDefault();
    raid_sweep_stats a, b;
    raidSweepOne(&s, ma, ma + 3 * NR, &o, &a, NULL, 0, NULL);
    raidSweepOne(&s, ma, ma + 3 * NR, &o, &b, buf, 2, NULL);
    assert_memory_equal(&a, &b, sizeof a);
    assert_true(a.trades > 2);
    free(buf);
    free(st1), free(st2), free(st3), free(tl1), free(tl2), free(tl3);
}

/* A second, plainly structured implementation of docs/ta_sweep.md: the positions after the fills of every
 * bar first (q[t] = d[t-1]; with fill at the close q[n-1] = 0, the last fill only exits), then the trades
 * from the changes of q, the per-bar returns from (q[t-1], q[t]), the statistics in long double. */
static void reference(const double *close, const double *open, size_t n, const double *fast, const double *slow,
                      const RaidSweepOpts *o, raid_sweep_stats *st, raid_sweep_trade *tr)
{
    const int at_open = o->fill == RAID_SWEEP_FILL_NEXT_OPEN;
    const long double c = log1pl(-(long double)o->cost_bps * 1e-4L);
    int *q = calloc(n, sizeof *q);
    long double *r = calloc(n, sizeof *r);
    for (size_t t = 1; t < n; t++) {
        const double f = fast[t - 1], sl = slow[t - 1];
        q[t] = (isnan(f) || isnan(sl)) ? 0 : f > sl ? 1 : o->short_side ? -1 : 0;
    }
    if (!at_open) q[n - 1] = 0;
    int64_t m = 0, held = 0;
    long double total = 0;
    size_t eb = 0;
    for (size_t t = 1; t < n; t++) {
        const int p = q[t - 1], qq = q[t];
        const double fp = at_open ? open[t] : close[t];
        int sides = 0;
        if (qq != p) {
            if (p) {
                tr[m++] = (raid_sweep_trade){(int64_t)eb, (int64_t)t, at_open ? open[eb] : close[eb], fp, p};
                sides++;
            }
            if (qq) eb = t, sides++;
        }
        if (at_open && qq != p)
            r[t] = p * logl((long double)open[t] / close[t - 1]) + qq * logl((long double)close[t] / open[t]);
        else
            r[t] = p * logl((long double)close[t] / close[t - 1]);
        held += p != 0 || (at_open && qq != 0);
        if (t == n - 1 && qq) {
            tr[m++] = (raid_sweep_trade){(int64_t)eb, (int64_t)t, at_open ? open[eb] : close[eb], close[t], qq};
            sides++;
        }
        r[t] += sides * c;
    }
    for (int64_t i = 0; i < m; i++)
        total += tr[i].side * logl((long double)tr[i].exit_price / tr[i].entry_price) + 2 * c;
    const size_t N = n - 1;
    long double sum = 0, peak = 0, mdd = 0, ss = 0;
    for (size_t t = 1; t < n; t++) {
        sum += r[t];
        if (sum > peak) peak = sum;
        if (peak - sum > mdd) mdd = peak - sum;
    }
    const long double mean = sum / N;
    for (size_t t = 1; t < n; t++) ss += (r[t] - mean) * (r[t] - mean);
    const long double sd = sqrtl(ss / (N - 1));
    st->trades = m;
    st->total_log_return = (double)total;
    st->sharpe = sd > 0 ? (double)(mean / sd * sqrtl(o->bars_per_year)) : 0.0;
    st->max_drawdown = (double)mdd;
    st->exposure = (double)held / N;
    free(q);
    free(r);
}

/* The cpu path against the reference on the random series, every option, every combination: the same
 * trades exactly, the same exposure, the statistics to rounding. */
static void test_against_reference(void **state)
{
    (void)state;
    const double *close = g_close, *open = g_open, *ma = g_ma;
    const RaidSweepSeries s = g_series;
    raid_sweep_trade *a = malloc(NR * sizeof *a), *b = malloc(NR * sizeof *b);
    int64_t ntr = 0;
    for (int variant = 0; variant < 8; variant++) {
        RaidSweepOpts o = raidSweepOptsDefault();
        o.short_side = variant & 1;
        o.fill = variant & 2 ? RAID_SWEEP_FILL_NEXT_OPEN : RAID_SWEEP_FILL_CLOSE;
        o.cost_bps = variant & 4 ? 7.5 : 0;
        o.bars_per_year = 365;
        for (int f = 0; f < NP; f++)
            for (int sl = 0; sl < NP; sl++) {
                if (f == sl) continue;
                raid_sweep_stats x, y;
                raidSweepOne(&s, ma + (size_t)f * NR, ma + (size_t)sl * NR, &o, &x, a, NR, NULL);
                reference(close, open, NR, ma + (size_t)f * NR, ma + (size_t)sl * NR, &o, &y, b);
                assert_int_equal(x.trades, y.trades);
                assert_true(trades_equal(a, b, (size_t)x.trades));
                assert_true(x.exposure == y.exposure);
                near(x.total_log_return, y.total_log_return, 1e-14);
                near(x.max_drawdown, y.max_drawdown, 1e-14);
                near(x.sharpe, y.sharpe, 1e-13);
                ntr += x.trades;
            }
    }
    assert_true(ntr > 10000);
    free(a), free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fill_close),
        cmocka_unit_test(test_last_bar),
        cmocka_unit_test(test_fill_next_open),
        cmocka_unit_test(test_costs),
        cmocka_unit_test(test_short_flip_close),
        cmocka_unit_test(test_short_flip_next_open),
        cmocka_unit_test(test_undefined_and_ties),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_batch),
        cmocka_unit_test(test_against_reference),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
