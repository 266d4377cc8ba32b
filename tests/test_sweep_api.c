/* Tests of the public sweep (include/raid/sweep.h, docs/ta_sweep.md) and of raid sweep: range parsing and
 * its errors, the grid (fast >= slow skipped, its order), the worked example of docs/ta_sweep.md (the
 * hand-made cases of tests/test_sweep_cpu.c) through the reader and the public API (mean(1) against
 * mean(2) gives its decisions), several symbols == one by one, arrays == file, the writers' headers and
 * rows, the errors (bad prices with FILE:LINE:COL), and the CLI (outputs, --trades, bad input: exit 2 and
 * no output file; usage errors; --trades and -o naming one file, through a dangling link too). A client of the public API only. */
#define _POSIX_C_SOURCE 200809L
#include "support.h"
#include "raid.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define assert_prefix(s, p) assert_int_equal(strncmp((s), (p), strlen(p)), 0)

static void near(double got, double want, double tol)
{
    if (!(fabs(got - want) <= tol * (1.0 + fabs(want)))) {
        fprintf(stderr, "got %.17g want %.17g\n", got, want);
        fail();
    }
}

static void test_ranges(void **state)
{
    (void)state;
    int lo, hi, st;
    assert_int_equal(raid_sweep_parse_range("5:50:1", &lo, &hi, &st), RAID_OK);
    assert_true(lo == 5 && hi == 50 && st == 1);
    assert_int_equal(raid_sweep_parse_range("20:200:5", &lo, &hi, &st), RAID_OK);
    assert_true(lo == 20 && hi == 200 && st == 5);
    assert_int_equal(raid_sweep_parse_range("3:9", &lo, &hi, &st), RAID_OK);
    assert_true(lo == 3 && hi == 9 && st == 1);
    assert_int_equal(raid_sweep_parse_range("7", &lo, &hi, &st), RAID_OK);
    assert_true(lo == 7 && hi == 7 && st == 1);
    const char *bad[] = {"", ":", "5:", ":5", "5:50:", "5:50:0", "0:5", "50:5", "5:50:1:2", "a:b", "5:5x",
                         "-1:5", " 5:6", "5:6 ", "1:2000000", "5.0:6", "+5:6"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        lo = hi = st = -7;
        if (raid_sweep_parse_range(bad[i], &lo, &hi, &st) != RAID_EINVAL) {
            fprintf(stderr, "accepted '%s'\n", bad[i]);
            fail();
        }
        assert_true(lo == -7 && hi == -7 && st == -7); /* untouched */
        assert_non_null(strstr(raid_errmsg(), "range"));
    }
    assert_int_equal(raid_sweep_parse_range(NULL, &lo, &hi, &st), RAID_EINVAL);
}

/* A spec on mean(1) = close against mean(2). */
static raid_sweep_spec spec_mean(void)
{
    raid_sweep_spec s;
    raid_sweep_spec_default(&s);
    s.ma = RAID_MA_MEAN;
    s.fast_lo = s.fast_hi = s.fast_step = 1;
    s.slow_lo = s.slow_hi = 2, s.slow_step = 1;
    s.keep_trades = 1;
    return s;
}

static void test_grid(void **state)
{
    (void)state;
    raid_sweep_spec s;
    raid_sweep_spec_default(&s);
    assert_true(s.ma == RAID_MA_HMA && s.fast_lo == 5 && s.fast_hi == 50 && s.slow_lo == 20 && s.slow_hi == 200 &&
                s.slow_step == 5 && s.fill == RAID_SWEEP_FILL_CLOSE && s.bars_per_year == 252 && s.cost_bps == 0);
    assert_int_equal(raid_sweep_spec_check(NULL, &s), RAID_OK);
    s.ma = RAID_MA_MEAN;
    s.fast_lo = 2, s.fast_hi = 7, s.fast_step = 2;  /* 2 4 6 */
    s.slow_lo = 3, s.slow_hi = 6, s.slow_step = 1;  /* 3 4 5 6 */
    double x[40];
    for (int i = 0; i < 40; i++) x[i] = 100 + 10 * sin(0.7 * i);
    const int64_t off[3] = {0, 20, 40};
    raid_sweep_result *r = NULL;
    assert_int_equal(raid_sweep_run_arrays(NULL, &s, x, NULL, off, 2, NULL, &r), RAID_OK);
    /* fast 2: 3 4 5 6; fast 4: 5 6; fast 6: none (6 >= 6 skipped) */
    const int wf[6] = {2, 2, 2, 2, 4, 4}, ws[6] = {3, 4, 5, 6, 5, 6};
    assert_int_equal(raid_sweep_result_count(r), 12);
    for (size_t k = 0; k < 12; k++) {
        size_t se;
        int f, w;
        raid_sweep_stats st;
        assert_int_equal(raid_sweep_result_get(r, k, &se, &f, &w, &st), RAID_OK);
        assert_int_equal(se, k / 6);
        assert_int_equal(f, wf[k % 6]);
        assert_int_equal(w, ws[k % 6]);
        assert_true(st.trades >= 0 && st.exposure >= 0 && st.exposure <= 1 && st.max_drawdown >= 0);
    }
    assert_int_equal(raid_sweep_result_get(r, 12, NULL, NULL, NULL, NULL), RAID_EINVAL);
    const raid_sweep_trade *v;
    size_t n;
    assert_int_equal(raid_sweep_result_trades(r, 0, &v, &n), RAID_EINVAL); /* not kept */
    assert_string_equal(raid_sweep_result_symbol(r, 1), "");
    assert_null(raid_sweep_result_symbol(r, 2));
    raid_sweep_result_destroy(r);
    /* no combination with fast < slow; hma needs 2; bad options */
    s.fast_lo = 10, s.fast_hi = 12, s.slow_lo = 5, s.slow_hi = 10;
    assert_int_equal(raid_sweep_spec_check(NULL, &s), RAID_EINVAL);
    assert_non_null(strstr(raid_errmsg(), "no combination with fast < slow"));
    raid_sweep_spec_default(&s);
    s.fast_lo = 1;
    assert_int_equal(raid_sweep_spec_check(NULL, &s), RAID_EINVAL);
    assert_non_null(strstr(raid_errmsg(), "hma needs periods >= 2"));
    raid_sweep_spec_default(&s);
    s.cost_bps = 1e4;
    assert_int_equal(raid_sweep_spec_check(NULL, &s), RAID_EINVAL);
    raid_sweep_spec_default(&s);
    s.bars_per_year = 0;
    assert_int_equal(raid_sweep_spec_check(NULL, &s), RAID_EINVAL);
    raid_sweep_spec_default(&s);
    s.ma = RAID_MA_VAR;
    assert_int_equal(raid_sweep_spec_check(NULL, &s), RAID_EINVAL);
    raid_sweep_spec_default(&s);
    s.slow_step = 0;
    assert_int_equal(raid_sweep_spec_check(NULL, &s), RAID_EINVAL);
}

typedef struct expect_trade {
    int entry, exit;
    double ep, xp;
    int side;
} expect_trade;

/* Read FILE (close, and open), run spec, check the one combination's trades exactly; its statistics out. */
static raid_sweep_stats run_file(const char *path, const raid_sweep_spec *s, const expect_trade *ex, size_t nex)
{
    const char *cols[2] = {"close", "open"};
    raid_ma_input *in = NULL;
    assert_int_equal(raid_ma_read_csv_columns(path, NULL, cols, 2, 2u, &in), RAID_OK);
    raid_sweep_result *r = NULL;
    raid_ctx *ctx = t_open_ctx("cpu");
    assert_int_equal(raid_sweep_run(ctx, s, in, &r), RAID_OK);
    assert_int_equal(raid_sweep_result_count(r), 1);
    raid_sweep_stats st;
    assert_int_equal(raid_sweep_result_get(r, 0, NULL, NULL, NULL, &st), RAID_OK);
    const raid_sweep_trade *v;
    size_t n;
    assert_int_equal(raid_sweep_result_trades(r, 0, &v, &n), RAID_OK);
    assert_int_equal(n, nex);
    assert_int_equal(st.trades, (int64_t)nex);
    for (size_t i = 0; i < nex; i++) {
        assert_int_equal(v[i].entry_bar, ex[i].entry);
        assert_int_equal(v[i].exit_bar, ex[i].exit);
        assert_true(v[i].entry_price == ex[i].ep && v[i].exit_price == ex[i].xp);
        assert_int_equal(v[i].side, ex[i].side);
    }
    raid_sweep_result_destroy(r);
    raid_ctx_destroy(ctx);
    raid_ma_input_destroy(in);
    return st;
}

/* The worked example of docs/ta_sweep.md: close 10 11 12 11 13 14, mean(2) NaN 10.5 11.5 11.5 12 13.5, so
 * close - mean(2) = NaN + + - + +, d = 0 1 1 0 1 1. */
static const char *EXAMPLE = "date,open,close\nd0,9.5,10\nd1,10.5,11\nd2,11.5,12\nd3,11.2,11\nd4,12.5,13\nd5,13.8,14\n";

static void test_worked_example(void **state)
{
    (void)state;
    const char *path = t_tmppath("sweep_example.csv");
    assert_int_equal(t_write_file(path, EXAMPLE), 0);
    raid_sweep_spec s = spec_mean();
    /* fill at the close, long/flat */
    const expect_trade e1[] = {{2, 4, 12, 13, 1}};
    raid_sweep_stats st = run_file(path, &s, e1, 1);
    near(st.total_log_return, log(13.0 / 12.0), 1e-15);
    near(st.max_drawdown, log(12.0 / 11.0), 1e-15);
    assert_true(st.exposure == 0.4);
    const double a = log(11.0 / 12.0), b = log(13.0 / 11.0), m = (a + b) / 5;
    const double sd = sqrt((3 * m * m + (a - m) * (a - m) + (b - m) * (b - m)) / 4);
    near(st.sharpe, m / sd * sqrt(252.0), 1e-14);
    /* fill at the next open */
    s.fill = RAID_SWEEP_FILL_NEXT_OPEN;
    const expect_trade e2[] = {{2, 4, 11.5, 12.5, 1}, {5, 5, 13.8, 14, 1}};
    st = run_file(path, &s, e2, 2);
    near(st.total_log_return, log(12.5 / 11.5) + log(14 / 13.8), 1e-15);
    assert_true(st.exposure == 0.8);
    /* short, 5 bps per side, fill at the close: the flip at close[4] is two trades */
    s.fill = RAID_SWEEP_FILL_CLOSE;
    s.short_side = 1;
    s.cost_bps = 5;
    const expect_trade e3[] = {{2, 4, 12, 13, 1}, {4, 5, 13, 14, -1}};
    st = run_file(path, &s, e3, 2);
    const double c = log1p(-5e-4);
    near(st.total_log_return, log(13.0 / 12.0) + log(13.0 / 14.0) + 4 * c, 1e-15);
    assert_true(st.exposure == 0.6);
}

/* Several symbols in one call == each alone; arrays == the file; the writers. */
static void test_symbols_and_writers(void **state)
{
    (void)state;
    enum { N = 300 };
    char *txt = malloc(64 * 2 * N + 64), *p = txt;
    double x[2 * N];
    p += sprintf(p, "symbol,date,close\n");
    for (int i = 0; i < 2 * N; i++) {
        x[i] = (i < N ? 50 : 3000) * exp(0.05 * sin(0.13 * i) + 0.02 * cos(0.71 * i));
        p += sprintf(p, "%s,%d,%.17g\n", i < N ? "AA" : "\"B,x\"", i % N, x[i]); /* dates in order: numbers */
    }
    const char *path = t_tmppath("sweep_two.csv");
    assert_int_equal(t_write_file(path, txt), 0);
    free(txt);
    raid_sweep_spec s;
    raid_sweep_spec_default(&s);
    s.fast_lo = 2, s.fast_hi = 12, s.fast_step = 1;
    s.slow_lo = 5, s.slow_hi = 40, s.slow_step = 3;
    s.keep_trades = 1;
    s.short_side = 1;
    s.cost_bps = 2;
    raid_ma_input *in = NULL;
    assert_int_equal(raid_ma_read_csv(path, NULL, &in), RAID_OK);
    raid_sweep_result *r = NULL, *ra = NULL, *r1 = NULL;
    assert_int_equal(raid_sweep_run(NULL, &s, in, &r), RAID_OK);
    const char *syms[2] = {"AA", "B,x"};
    const int64_t off[3] = {0, N, 2 * N};
    assert_int_equal(raid_sweep_run_arrays(NULL, &s, x, NULL, off, 2, syms, &ra), RAID_OK);
    const size_t K = raid_sweep_result_count(r);
    assert_int_equal(raid_sweep_result_count(ra), K);
    assert_int_equal(K % 2, 0);
    assert_string_equal(raid_sweep_result_symbol(r, 1), "B,x");
    for (int s1 = 0; s1 < 2; s1++) {
        const int64_t o1[2] = {0, N};
        assert_int_equal(raid_sweep_run_arrays(NULL, &s, x + s1 * N, NULL, o1, 1, NULL, &r1), RAID_OK);
        assert_int_equal(raid_sweep_result_count(r1), K / 2);
        for (size_t k = 0; k < K / 2; k++) {
            raid_sweep_stats a, b, c;
            assert_int_equal(raid_sweep_result_get(r, s1 * K / 2 + k, NULL, NULL, NULL, &a), RAID_OK);
            assert_int_equal(raid_sweep_result_get(ra, s1 * K / 2 + k, NULL, NULL, NULL, &b), RAID_OK);
            assert_int_equal(raid_sweep_result_get(r1, k, NULL, NULL, NULL, &c), RAID_OK);
            assert_memory_equal(&a, &c, sizeof a);
            assert_memory_equal(&b, &c, sizeof b);
        }
        raid_sweep_result_destroy(r1);
    }
    /* the writers: headers, symbols quoted, 8 and 8 fields, one trades row per trade */
    const char *o = t_tmppath("sweep_out.csv"), *ot = t_tmppath("sweep_trades.csv");
    FILE *f = fopen(o, "w"), *ft = fopen(ot, "w");
    assert_int_equal(raid_sweep_write_csv(r, f), RAID_OK);
    assert_int_equal(raid_sweep_write_trades(r, ft), RAID_OK);
    fclose(f), fclose(ft);
    char *csv = t_read_file(o), *tcsv = t_read_file(ot);
    assert_prefix(csv, "symbol,fast,slow,trades,total_log_return,sharpe,max_drawdown,exposure\nAA,2,5,");
    assert_prefix(tcsv, "symbol,fast,slow,entry_bar,exit_bar,entry_price,exit_price,side\nAA,");
    assert_non_null(strstr(csv, "\n\"B,x\",12,38,"));
    size_t lines = 0, tlines = 0, ntr = 0;
    for (char *q = csv; *q; q++) lines += *q == '\n';
    for (char *q = tcsv; *q; q++) tlines += *q == '\n';
    for (size_t k = 0; k < K; k++) {
        raid_sweep_stats st;
        raid_sweep_result_get(r, k, NULL, NULL, NULL, &st);
        ntr += (size_t)st.trades;
    }
    assert_int_equal(lines, K + 1);
    assert_int_equal(tlines, ntr + 1);
    free(csv), free(tcsv);
    raid_sweep_result_destroy(r);
    raid_sweep_result_destroy(ra);
    raid_ma_input_destroy(in);
    /* without symbols: no symbol column; trades not kept: the trades writer refuses */
    f = fopen(o, "w");
    assert_int_equal(t_write_file(path, EXAMPLE), 0);
    assert_int_equal(raid_ma_read_csv(path, NULL, &in), RAID_OK);
    raid_sweep_spec sm = spec_mean();
    sm.keep_trades = 0;
    assert_int_equal(raid_sweep_run(NULL, &sm, in, &r), RAID_OK);
    assert_int_equal(raid_sweep_write_csv(r, f), RAID_OK);
    assert_int_equal(raid_sweep_write_trades(r, f), RAID_EINVAL);
    fclose(f);
    csv = t_read_file(o);
    const char *want = "fast,slow,trades,total_log_return,sharpe,max_drawdown,exposure\n1,2,1,";
    assert_memory_equal(csv, want, strlen(want));
    char *end = NULL; /* the number reads back as the double computed (written in its fewest digits) */
    assert_true(strtod(csv + strlen(want), &end) == log(13.0 / 12.0) && *end == ',');
    assert_non_null(strstr(csv, ",0.4\n")); /* not %.17g's 0.40000000000000002 */
    free(csv);
    raid_sweep_result_destroy(r);
    raid_ma_input_destroy(in);
}

static void test_errors(void **state)
{
    (void)state;
    const char *path = t_tmppath("sweep_bad.csv");
    raid_sweep_spec s = spec_mean();
    raid_ma_input *in = NULL;
    raid_sweep_result *r = (raid_sweep_result *)&s;
    raid_ctx *ctx = t_open_ctx("cpu");
    /* a close <= 0 and an empty one: FILE:LINE:COL and the date */
    assert_int_equal(t_write_file(path, "date,close\nd0,1\nd1,0\nd2,3\n"), 0);
    assert_int_equal(raid_ma_read_csv(path, NULL, &in), RAID_OK);
    assert_int_equal(raid_sweep_run(ctx, &s, in, &r), RAID_EPARSE);
    assert_null(r);
    assert_non_null(strstr(raid_ctx_errmsg(ctx), "sweep_bad.csv:3:2: close 0 on d1"));
    raid_ma_input_destroy(in);
    assert_int_equal(t_write_file(path, "date,close,open\nd0,1,1\nd1,2,2\nd2,3,\n"), 0);
    const char *cols[2] = {"close", "open"};
    assert_int_equal(raid_ma_read_csv_columns(path, NULL, cols, 2, 0u, &in), RAID_OK);
    assert_int_equal(raid_sweep_run(ctx, &s, in, &r), RAID_OK); /* fill close: open not used */
    raid_sweep_result_destroy(r);
    s.fill = RAID_SWEEP_FILL_NEXT_OPEN;
    assert_int_equal(raid_sweep_run(ctx, &s, in, &r), RAID_EPARSE);
    assert_non_null(strstr(raid_ctx_errmsg(ctx), "sweep_bad.csv:4:3: open is missing on d2"));
    raid_ma_input_destroy(in);
    /* next-open without an open column */
    assert_int_equal(raid_ma_read_csv_columns(path, NULL, cols, 1, 0u, &in), RAID_OK);
    assert_int_equal(raid_sweep_run(ctx, &s, in, &r), RAID_EINVAL);
    assert_non_null(strstr(raid_ctx_errmsg(ctx), "needs open prices"));
    raid_ma_input_destroy(in);
    /* an optional open column absent; a required one absent */
    assert_int_equal(t_write_file(path, "date,close\nd0,1\nd1,2\n"), 0);
    assert_int_equal(raid_ma_read_csv_columns(path, NULL, cols, 2, 2u, &in), RAID_OK);
    assert_null(raid_ma_input_column(in, 1));
    assert_non_null(raid_ma_input_column(in, 0));
    assert_int_equal(raid_ma_input_ncolumns(in), 2);
    /* two bars: too short, reported (FILE:LINE:COL of its first row: the close column without a symbol
     * column) and skipped; nothing has a value */
    s.fill = RAID_SWEEP_FILL_CLOSE;
    assert_int_equal(raid_sweep_run(ctx, &s, in, &r), RAID_OK);
    assert_int_equal(raid_sweep_result_nvalued(r), 0);
    assert_int_equal(raid_sweep_result_nmessages(r), 1);
    assert_non_null(strstr(raid_sweep_result_message(r, 0),
                           "sweep_bad.csv:2:2: the series has 2 bars (at least 3 are needed): skipped, its combinations "
                           "have no value"));
    raid_sweep_stats st0;
    assert_int_equal(raid_sweep_result_get(r, 0, NULL, NULL, NULL, &st0), RAID_OK);
    assert_true(st0.trades == -1 && isnan(st0.total_log_return) && isnan(st0.sharpe) && isnan(st0.exposure));
    raid_sweep_result_destroy(r);
    raid_ma_input_destroy(in);
    assert_int_equal(raid_ma_read_csv_columns(path, NULL, cols, 2, 0u, &in), RAID_EPARSE);
    assert_non_null(strstr(raid_errmsg(), "missing column 'open'"));
    assert_int_equal(raid_ma_read_csv_columns(path, NULL, cols, 2, 1u, &in), RAID_EINVAL);
    assert_int_equal(raid_ma_read_csv_columns(path, NULL, cols, 0, 0u, &in), RAID_EINVAL);
    /* arrays: a bad price names its series and bar; offsets */
    const double x[4] = {1, 2, -3, 4};
    const int64_t off[2] = {0, 4}, boff[2] = {3, 1};
    assert_int_equal(raid_sweep_run_arrays(NULL, &s, x, NULL, off, 1, NULL, &r), RAID_EINVAL);
    assert_non_null(strstr(raid_errmsg(), "series 0, bar 2: close is -3"));
    assert_int_equal(raid_sweep_run_arrays(NULL, &s, x, NULL, boff, 1, NULL, &r), RAID_EINVAL);
    assert_int_equal(raid_sweep_run_arrays(NULL, NULL, x, NULL, off, 1, NULL, &r), RAID_EINVAL);
    assert_int_equal(raid_sweep_run(NULL, &s, NULL, &r), RAID_EINVAL);
    assert_null(r);
    raid_ctx_destroy(ctx);
}

static void test_cli(void **state)
{
    (void)state;
    const char *in = t_tmppath("sweep_cli.csv"), *o = t_tmppath("sweep_cli_out.csv"),
               *ot = t_tmppath("sweep_cli_trades.csv");
    assert_int_equal(t_write_file(in, EXAMPLE), 0);
    char *out = NULL, *err = NULL;
    assert_int_equal(t_cli(&out, &err, "sweep %s --ma mean --fast 1 --slow 2 --short --cost-bps 5 --trades %s -o %s",
                           in, ot, o), 0);
    assert_string_equal(out, "");
    free(out), free(err);
    char *txt = t_read_file(ot);
    assert_string_equal(txt, "fast,slow,entry_bar,exit_bar,entry_price,exit_price,side\n1,2,2,4,12,13,1\n"
                             "1,2,4,5,13,14,-1\n");
    free(txt);
    txt = t_read_file(o);
    assert_prefix(txt, "fast,slow,trades,total_log_return,sharpe,max_drawdown,exposure\n1,2,2,");
    free(txt);
    /* next-open reads the open column */
    assert_int_equal(t_cli(&out, &err, "sweep %s --ma mean --fast 1 --slow 2 --fill next-open --trades %s -o %s",
                           in, ot, o), 0);
    free(out), free(err);
    txt = t_read_file(ot);
    assert_string_equal(txt, "fast,slow,entry_bar,exit_bar,entry_price,exit_price,side\n1,2,2,4,11.5,12.5,1\n"
                             "1,2,5,5,13.8,14,1\n");
    free(txt);
    /* the real file: the default grid's 1,590 combinations (fast 5..50, slow 20..200 by 5, fast < slow) */
    assert_int_equal(t_cli(&out, &err, "sweep %s --fast 5:50:1 --slow 20:200:5", t_data("ttrc_daily.csv")), 0);
    size_t lines = 0;
    for (char *q = out; *q; q++) lines += *q == '\n';
    assert_int_equal(lines, 1591);
    assert_non_null(strstr(out, "\n5,20,"));
    assert_non_null(strstr(out, "\n50,55,"));
    assert_null(strstr(out, "\n50,50,"));
    free(out), free(err);
    /* bad input: FILE:LINE:COL, exit 2, no output files (an existing one left as it was) */
    const char *bad = t_tmppath("sweep_cli_bad.csv"), *none = t_tmppath("sweep_none.csv");
    assert_int_equal(t_write_file(bad, "date,close\nd0,1\nd1,2\nd2,-2\nd3,4\n"), 0);
    assert_int_equal(t_cli(&out, &err, "sweep %s --ma mean --fast 1 --slow 2 --trades %s -o %s", bad, none, o), 2);
    assert_non_null(strstr(err, "sweep_cli_bad.csv:4:2: close -2 on d2"));
    assert_false(t_file_exists(none));
    txt = t_read_file(o);
    assert_non_null(strstr(txt, "fast,slow"));
    free(txt), free(out), free(err);
    assert_int_equal(t_write_file(bad, "date,close\nd0,1\nd1,2x\n"), 0);
    assert_int_equal(t_cli(&out, &err, "sweep %s --ma mean --fast 1 --slow 2 -o %s", bad, none), 2);
    assert_non_null(strstr(err, "sweep_cli_bad.csv:3:2:"));
    assert_false(t_file_exists(none));
    free(out), free(err);
    assert_int_equal(t_write_file(bad, "date,close\nd0,1\nd1,2\nd2,3\n"), 0);
    assert_int_equal(t_cli(&out, &err, "sweep %s --ma mean --fast 1 --slow 2 --fill next-open -o %s", bad, none), 2);
    assert_non_null(strstr(err, "missing column 'open'"));
    assert_false(t_file_exists(none));
    free(out), free(err);
    /* other columns by name */
    assert_int_equal(t_write_file(bad, "d,px,o,s\nd0,1,1,x\nd1,2,2,x\nd2,3,2.5,x\n"), 0);
    assert_int_equal(t_cli(&out, &err, "sweep %s --ma mean --fast 1 --slow 2 --close-col px --open-col o --date-col d "
                                       "--symbol-col s --fill next-open --device cpu", bad), 0);
    /* one trade from open[2] = 2.5 to close[2] = 3 */
    const char *want = "symbol,fast,slow,trades,total_log_return,sharpe,max_drawdown,exposure\nx,1,2,1,";
    assert_memory_equal(out, want, strlen(want));
    char *end = NULL;
    assert_true(strtod(out + strlen(want), &end) == log(3 / 2.5) && *end == ',');
    assert_non_null(strstr(out, ",0,0.5\n"));
    free(out), free(err);
    /* the default device (a GPU where there is one): the same trade, the log return within the bound */
    assert_int_equal(t_cli(&out, &err, "sweep %s --ma mean --fast 1 --slow 2 --close-col px --open-col o --date-col d "
                                       "--symbol-col s --fill next-open", bad), 0);
    assert_prefix(out, "symbol,fast,slow,trades,total_log_return,sharpe,max_drawdown,exposure\nx,1,2,1,");
    assert_true(fabs(strtod(out + strlen("symbol,fast,slow,trades,total_log_return,sharpe,max_drawdown,exposure\nx,1,2,1,"),
                            NULL) - log(3 / 2.5)) <= 1e-15);
    free(out), free(err);
    /* usage errors, exit 1 */
    const char *usage[][2] = {{"--fast 5:50:0", "--fast: bad range"},
                              {"--fast 30:40 --slow 10:20", "no combination with fast < slow"},
                              {"--fast 1:5", "hma needs periods >= 2"},
                              {"--fill open", "bad --fill"},
                              {"--cost-bps -1", "bad --cost-bps"},
                              {"--precision f32 --ma ema", "applies to hma, wma and mean"},
                              {"--formulation prefix --ma mean", "applies to wma and hma"},
                              {"--ma var", "expected hma, wma, mean or ema"}};
    for (size_t i = 0; i < sizeof usage / sizeof *usage; i++) {
        assert_int_equal(t_cli(&out, &err, "sweep %s %s -o %s", in, usage[i][0], none), 1);
        if (!strstr(err, usage[i][1])) {
            fprintf(stderr, "%s: %s", usage[i][0], err);
            fail();
        }
        assert_false(t_file_exists(none));
        free(out), free(err);
    }
    assert_int_equal(t_cli(&out, &err, "sweep %s --trades %s -o %s", in, o, o), 1);
    free(out), free(err);
    /* --trades a dangling symbolic link to -o's file (not there yet): the same file, refused */
    const char *link = t_tmppath("sweep_link.csv"), *target = t_tmppath("sweep_link_target.csv");
    unlink(link), unlink(target);
    assert_int_equal(symlink(target, link), 0);
    assert_int_equal(t_cli(&out, &err, "sweep %s --trades %s -o %s", in, link, target), 1);
    assert_non_null(strstr(err, "name the same file"));
    assert_false(t_file_exists(target));
    unlink(link);
    free(out), free(err);
    assert_int_equal(t_cli(&out, &err, "sweep %s -o %s", in, in), 1);
    free(out), free(err);
    assert_int_equal(t_cli(&out, &err, "help sweep"), 0);
    assert_non_null(strstr(out, "usage: raid sweep FILE"));
    free(out), free(err);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ranges), cmocka_unit_test(test_grid), cmocka_unit_test(test_worked_example),
        cmocka_unit_test(test_symbols_and_writers), cmocka_unit_test(test_errors), cmocka_unit_test(test_cli),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
