/* The CSV reader (src/io/reader.c): option parsers, sampling, sessions, time zones, interleaved symbols,
 * returns input, every error message with its FILE:LINE:COL, and the real data files. */
#define _POSIX_C_SOURCE 200809L
#include "support.h"
#include "raid.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Read a whole file into b (max_returns per call); returns the status, the message in err. */
static raid_status read_all(const char *path, const raid_read_opts *o, raid_batch *b, size_t max_returns,
                            char *err, size_t errlen, raid_reader **keep)
{
    raid_reader *rd = NULL;
    raid_status s = raid_reader_open(&rd, path, o);
    if (s != RAID_OK) {
        assert_null(rd);
        snprintf(err, errlen, "%s", raid_errmsg());
        return s;
    }
    int done = 0;
    size_t calls = 0;
    while (!done) {
        size_t before = b->nseg;
        s = raid_reader_next(rd, b, max_returns, &done);
        if (s != RAID_OK) {
            snprintf(err, errlen, "%s", raid_errmsg());
            raid_reader_close(rd);
            return s;
        }
        assert_true(done || b->nseg > before); /* progress */
        assert_true(++calls < 10000000);
    }
    /* Once done, it stays done. */
    size_t nseg = b->nseg;
    assert_int_equal(raid_reader_next(rd, b, max_returns, &done), RAID_OK);
    assert_int_equal(done, 1);
    assert_int_equal(b->nseg, nseg);
    if (keep)
        *keep = rd;
    else
        raid_reader_close(rd);
    return RAID_OK;
}

static void read_ok(const char *path, const raid_read_opts *o, raid_batch *b, size_t max_returns,
                    raid_reader **keep)
{
    char err[1024];
    if (read_all(path, o, b, max_returns, err, sizeof err, keep) != RAID_OK)
        fail_msg("%s", err);
}

static const char *write_tmp(const char *name, const char *text)
{
    const char *p = t_tmppath(name);
    assert_int_equal(t_write_file(p, text), 0);
    return p;
}

static raid_read_opts opts(int64_t sample_us)
{
    raid_read_opts o;
    raid_read_opts_init(&o);
    o.sample_us = sample_us;
    return o;
}

static size_t seg_n(const raid_batch *b, size_t s) { return (size_t)(b->offsets[s + 1] - b->offsets[s]); }
static double seg_r(const raid_batch *b, size_t s, size_t i) { return b->ret[b->offsets[s] + (int64_t)i]; }

/* The return from price prev to p by the documented rule: log1p(q), q = (p - prev)/prev, when q is finite
 * and -0.5 <= q <= 1; else log(p) - log(prev). */
static double ref_ret(double prev, double p)
{
    const double q = (p - prev) / prev;
    if (isfinite(q) && q >= -0.5 && q <= 1)
        return log1p(q);
    return log(p) - log(prev);
}

/* Expect the segment s to hold exactly the returns of prices p[0..np). */
static void expect_prices(const raid_batch *b, size_t s, const double *p, size_t np)
{
    assert_int_equal(seg_n(b, s), np ? np - 1 : 0);
    for (size_t i = 1; i < np; i++)
        if (!(seg_r(b, s, i - 1) == ref_ret(p[i - 1], p[i])))
            fail_msg("segment %zu return %zu: %.17g, expected %.17g (prices %g -> %g)", s, i - 1, seg_r(b, s, i - 1),
                     ref_ret(p[i - 1], p[i]), p[i - 1], p[i]);
}

/* Read the n bytes of text (NUL bytes allowed) as a CSV and expect failure s with message "FILE:" msg. */
static void expect_error_n(const char *text, size_t n, const raid_read_opts *o, raid_status st, const char *msg)
{
    const char *p = t_tmppath("bad.csv");
    FILE *f = fopen(p, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
    raid_batch b;
    raid_batch_init(&b);
    char err[1024], want[1024];
    raid_status s = read_all(p, o, &b, 1000, err, sizeof err, NULL);
    assert_int_equal(s, st);
    snprintf(want, sizeof want, "%s:%s", p, msg);
    assert_string_equal(err, want);
    raid_batch_free(&b);
}

/* Read text as a CSV and expect failure s with message "FILE:" msg. */
static void expect_error(const char *text, const raid_read_opts *o, raid_status st, const char *msg)
{
    const char *p = write_tmp("bad.csv", text);
    raid_batch b;
    raid_batch_init(&b);
    char err[1024], want[1024];
    raid_status s = read_all(p, o, &b, 1000, err, sizeof err, NULL);
    assert_int_equal(s, st);
    snprintf(want, sizeof want, "%s:%s", p, msg);
    assert_string_equal(err, want);
    raid_batch_free(&b);
}

/* ---------------------------------------------------------------------------------------------- */

static void test_parse_options(void **st)
{
    (void)st;
    raid_read_opts o;
    raid_read_opts_init(&o);
    assert_int_equal(o.kind, RAID_INPUT_PRICES);
    assert_int_equal(o.sample_us, 300000000);
    assert_int_equal(o.session_start_s, -1);
    assert_null(o.tz);
    int64_t us = -1;
    assert_int_equal(raid_parse_sample("tick", &us), RAID_OK);
    assert_int_equal(us, 0);
    struct { const char *s; int64_t us; } ok[] = {{"30s", 30000000}, {"5min", 300000000}, {"1h", 3600000000},
                                                 {"500ms", 500000}, {"1s", 1000000}, {"24h", 86400000000}};
    for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
        assert_int_equal(raid_parse_sample(ok[i].s, &us), RAID_OK);
        assert_int_equal(us, ok[i].us);
    }
    const char *bad[] = {"0", "0s", "-5min", "5", "min", "5 min", "5m", "x", "", "1.5s", "25h", "99999999999999999999s"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        if (raid_parse_sample(bad[i], &us) != RAID_EINVAL)
            fail_msg("accepted sample '%s'", bad[i]);
    int32_t a, b;
    assert_int_equal(raid_parse_session("09:30-16:00", &a, &b), RAID_OK);
    assert_int_equal(a, 34200);
    assert_int_equal(b, 57600);
    assert_int_equal(raid_parse_session("00:00-24:00", &a, &b), RAID_OK);
    assert_int_equal(b, 86400);
    /* A start after the end: a window across midnight (FX, futures); not from or to 24:00 then. */
    assert_int_equal(raid_parse_session("17:00-16:00", &a, &b), RAID_OK);
    assert_int_equal(a, 61200);
    assert_int_equal(b, 57600);
    const char *bads[] = {"24:00-16:00", "17:00-24:00x", "25:00-26:00", "09:30", "09:30-", "9:3-16:00", "09:60-10:00",
                          "24:30-24:40", "09:30-16:00x", "x", "", "24:00-24:00"};
    for (size_t i = 0; i < sizeof bads / sizeof *bads; i++)
        if (raid_parse_session(bads[i], &a, &b) != RAID_EINVAL)
            fail_msg("accepted session '%s'", bads[i]);
    /* 24:00 ends the day; a window starting there would keep nothing */
    assert_int_equal(raid_parse_session("24:00-24:00", &a, &b), RAID_EINVAL);
    assert_string_equal(raid_errmsg(), "bad session '24:00-24:00' (a window cannot start at 24:00: the start is 00:00 "
                                       "to 23:59)");
    raid_read_opts o2;
    raid_read_opts_init(&o2);
    o2.session_start_s = o2.session_end_s = 86400;
    raid_reader *rd = NULL;
    assert_int_equal(raid_reader_open(&rd, t_data("trades_xxx_2days.csv"), &o2), RAID_EINVAL);
    /* an empty column name: the role named */
    raid_read_opts_init(&o2);
    o2.price_col = "";
    assert_int_equal(raid_reader_open(&rd, t_data("trades_xxx_2days.csv"), &o2), RAID_EINVAL);
    assert_string_equal(raid_errmsg(), "empty name for the price column");
    assert_null(rd);
}

static const char *SAMPLING_CSV = "symbol,timestamp,price\n"
                                  "A,2020-01-02T09:30:00,100\n"
                                  "A,2020-01-02T09:31:00,101\n"
                                  "A,2020-01-02T09:36:00,102\n"
                                  "A,2020-01-02T09:40:00,103\n"
                                  "A,2020-01-02T09:40:00,104\n"
                                  "A,2020-01-02T09:46:00,105\n";

static void test_tick_and_5min(void **st)
{
    (void)st;
    const char *p = write_tmp("s.csv", SAMPLING_CSV);
    raid_batch b;
    raid_batch_init(&b);
    raid_read_opts o = opts(0);
    read_ok(p, &o, &b, 1000, NULL);
    assert_int_equal(b.nseg, 1);
    assert_int_equal(b.date[0], 20200102);
    assert_int_equal(b.symbol[0], 0);
    const double tick[] = {100, 101, 102, 103, 104, 105}; /* equal timestamps: each observation counts */
    expect_prices(&b, 0, tick, 6);

    /* 5min: grid 09:30 (100), 09:35 (101), 09:40 (104: the last at 09:40 wins), 09:45 (104). */
    raid_batch_clear(&b);
    o = opts(300000000);
    read_ok(p, &o, &b, 1000, NULL);
    assert_int_equal(b.nseg, 1);
    const double five[] = {100, 101, 104, 104};
    expect_prices(&b, 0, five, 4);
    assert_true(seg_r(&b, 0, 2) == 0.0);
    /* With a session from 09:35 the grid is 09:40, 09:45 (docs/input.md's worked example). */
    raid_batch_clear(&b);
    assert_int_equal(raid_parse_session("09:35-16:00", &o.session_start_s, &o.session_end_s), RAID_OK);
    read_ok(p, &o, &b, 1000, NULL);
    const double five_s[] = {104, 104};
    expect_prices(&b, 0, five_s, 2);

    /* The grid starts at the first multiple at or after the first observation; 1min grid inside a gap. */
    p = write_tmp("s2.csv", "symbol,timestamp,price\n"
                            "A,2020-01-02T09:31:30.5,100\n"
                            "A,2020-01-02T09:34:59.999999,101\n"
                            "A,2020-01-02T09:35:00,102\n"
                            "A,2020-01-02T09:44:00,103\n");
    raid_batch_clear(&b);
    read_ok(p, &o, &b, 1000, NULL);
    const double g5[] = {102, 102}; /* 09:35, 09:40 */
    expect_prices(&b, 0, g5, 2);
    raid_batch_clear(&b);
    o = opts(60000000);
    read_ok(p, &o, &b, 1000, NULL);
    const double g1[] = {100, 100, 100, 102, 102, 102, 102, 102, 102, 102, 102, 102, 103}; /* 09:32 .. 09:44 */
    expect_prices(&b, 0, g1, 13);
    raid_batch_free(&b);
}

static void test_session_window(void **st)
{
    (void)st;
    const char *p = write_tmp("ses.csv", "symbol,timestamp,price\n"
                                         "A,2020-01-02T09:29:59.999,99\n"
                                         "A,2020-01-02T09:30:00,100\n"
                                         "A,2020-01-02T12:00:00,101\n"
                                         "A,2020-01-02T16:00:00,102\n"
                                         "A,2020-01-02T16:00:00.000001,103\n"
                                         "A,2020-01-03T08:00:00,50\n"   /* a day wholly outside: no segment */
                                         "A,2020-01-06T10:00:00,104\n"); /* one price: a segment, 0 returns */
    raid_read_opts o = opts(0);
    assert_int_equal(raid_parse_session("09:30-16:00", &o.session_start_s, &o.session_end_s), RAID_OK);
    raid_batch b;
    raid_batch_init(&b);
    read_ok(p, &o, &b, 1000, NULL);
    assert_int_equal(b.nseg, 2);
    assert_int_equal(b.date[0], 20200102);
    assert_int_equal(b.date[1], 20200106);
    const double d1[] = {100, 101, 102};
    expect_prices(&b, 0, d1, 3);
    assert_int_equal(seg_n(&b, 1), 0);
    /* Sampling grid restricted to the kept observations: 2h grid, 10:00 .. 16:00 */
    raid_batch_clear(&b);
    o.sample_us = INT64_C(7200000000);
    read_ok(p, &o, &b, 1000, NULL);
    const double d2[] = {100, 101, 101, 102}; /* 10:00, 12:00, 14:00, 16:00 */
    expect_prices(&b, 0, d2, 4);
    raid_batch_free(&b);
}

static void test_interleaved(void **st)
{
    (void)st;
    const char *p = write_tmp("il.csv", "Symbol,TimeStamp,PRICE,size\n" /* names match case-insensitively */
                                        "B,2020-01-02T10:00:00,10,1\n"
                                        "A,2020-01-02T10:00:00,100,1\n"
                                        "B,2020-01-02T10:01:00,11,1\n"
                                        "A,2020-01-02T10:00:00,101,1\n"  /* B's clock is its own */
                                        "B,2020-01-03T10:00:00,12,1\n"   /* completes (B, 01-02) */
                                        "A,2020-01-02T11:00:00,102,1\n"
                                        "B,2020-01-03T10:02:00,13,1\n"
                                        "A,2020-01-03T10:00:00,103,1\n");
    raid_read_opts o = opts(0);
    raid_batch b;
    raid_batch_init(&b);
    raid_reader *rd = NULL;
    read_ok(p, &o, &b, 1000, &rd);
    assert_string_equal(raid_reader_symbol(rd, 0), "B");
    assert_string_equal(raid_reader_symbol(rd, 1), "A");
    assert_null(raid_reader_symbol(rd, 2));
    raid_reader_close(rd);
    assert_int_equal(b.nseg, 4);
    /* completion order: (B,0102), (A,0102), then at the end (B,0103), (A,0103) */
    assert_int_equal(b.symbol[0], 0);
    assert_int_equal(b.date[0], 20200102);
    assert_int_equal(b.symbol[1], 1);
    assert_int_equal(b.date[1], 20200102);
    assert_int_equal(b.symbol[2], 0);
    assert_int_equal(b.date[2], 20200103);
    assert_int_equal(b.symbol[3], 1);
    assert_int_equal(b.date[3], 20200103);
    const double b1[] = {10, 11}, a1[] = {100, 101, 102}, b2[] = {12, 13}, a2[] = {103};
    expect_prices(&b, 0, b1, 2);
    expect_prices(&b, 1, a1, 3);
    expect_prices(&b, 2, b2, 2);
    expect_prices(&b, 3, a2, 1);
    assert_int_equal(b.offsets[0], 0);
    assert_int_equal(b.offsets[4], (int64_t)b.nret);
    raid_batch_free(&b);
}

/* Offsets are converted to UTC, then to --tz local time (with DST) before the date and the session. */
static void test_time_zone_conversion(void **st)
{
    (void)st;
    /* Europe/Zurich switches CET (+1) -> CEST (+2) at 2020-03-29T01:00:00Z. */
    const char *p = write_tmp("tz.csv", "timestamp,price\n"
                                        "2020-03-28T22:30:00Z,100\n"      /* 23:30 CET, 03-28 */
                                        "2020-03-28T23:30:00Z,101\n"      /* 00:30 CET, 03-29: date changes */
                                        "2020-03-29T00:59:00Z,102\n"      /* 01:59 CET */
                                        "2020-03-29T01:00:00Z,103\n"      /* 03:00 CEST */
                                        "2020-03-29T03:00:00+01:00,104\n" /* 02:00Z = 04:00 CEST */
                                        "2020-03-29T06:00:00+0200,105\n"); /* 04:00Z = 06:00 CEST */
    raid_read_opts o = opts(0);
    o.tz = "Europe/Zurich";
    raid_batch b;
    raid_batch_init(&b);
    read_ok(p, &o, &b, 1000, NULL);
    assert_int_equal(b.nseg, 2);
    assert_int_equal(b.date[0], 20200328);
    assert_int_equal(b.date[1], 20200329);
    assert_int_equal(seg_n(&b, 0), 0);
    const double all[] = {101, 102, 103, 104, 105};
    expect_prices(&b, 1, all, 5);

    /* Session 03:00-04:00 local: a wrong hours shift would keep other rows. */
    raid_batch_clear(&b);
    assert_int_equal(raid_parse_session("03:00-04:00", &o.session_start_s, &o.session_end_s), RAID_OK);
    read_ok(p, &o, &b, 1000, NULL);
    assert_int_equal(b.nseg, 1);
    const double s34[] = {103, 104};
    expect_prices(&b, 0, s34, 2);

    /* 1h grid from local midnight across the switch: 01:00 CET (101), 03:00 CEST (103), 04:00 (104),
     * 05:00 (104), 06:00 (105). */
    raid_batch_clear(&b);
    o.session_start_s = -1;
    o.sample_us = INT64_C(3600000000);
    read_ok(p, &o, &b, 1000, NULL);
    assert_int_equal(b.nseg, 2);
    const double h1[] = {101, 103, 104, 104, 105};
    expect_prices(&b, 1, h1, 5);

    /* Default tz UTC: Z rows keep their UTC date; rows without an offset are taken as they are. */
    raid_batch_clear(&b);
    o = opts(0);
    read_ok(p, &o, &b, 1000, NULL);
    assert_int_equal(b.nseg, 2);
    assert_int_equal(b.date[0], 20200328);
    assert_int_equal(seg_n(&b, 0), 1);
    assert_int_equal(b.date[1], 20200329);

    /* Autumn: CEST -> CET at 2020-10-25T01:00:00Z; local 02:xx repeats, instants still increase. */
    p = write_tmp("tz2.csv", "timestamp,price\n"
                             "2020-10-25T00:30:00Z,100\n"      /* 02:30 CEST */
                             "2020-10-25T01:30:00Z,101\n"      /* 02:30 CET */
                             "2020-10-25T21:30:00-02:00,102\n" /* 23:30Z = 00:30 CET 10-26 */
                             "2020-10-25T23:30:00+00:00,103\n");
    raid_batch_clear(&b);
    o.tz = "Europe/Zurich";
    read_ok(p, &o, &b, 1000, NULL);
    assert_int_equal(b.nseg, 2);
    assert_int_equal(b.date[0], 20201025);
    assert_int_equal(b.date[1], 20201026);
    const double au[] = {100, 101}, au2[] = {102, 103};
    expect_prices(&b, 0, au, 2);
    expect_prices(&b, 1, au2, 2);
    raid_batch_free(&b);
}

static void test_returns_input(void **st)
{
    (void)st;
    const char *p = write_tmp("ret.csv", "symbol,date,ret,extra\n"
                                         "X,2020-01-02,0.01,a\n"
                                         "Y,2020-01-02,-0.02,b\n"
                                         "X,2020-01-02,0.03,c\n"
                                         "X,2020-01-03,1e-3,d\n"
                                         "Y,2020-01-03,0,e\n"
                                         "Y,2020-01-03,-5E-4,f\n");
    raid_read_opts o = opts(300000000); /* sampling and session do not apply to returns */
    o.kind = RAID_INPUT_RETURNS;
    o.session_start_s = 0;
    o.session_end_s = 1;
    raid_batch b;
    raid_batch_init(&b);
    read_ok(p, &o, &b, 1000, NULL);
    assert_int_equal(b.nseg, 4);
    assert_int_equal(b.nret, 6);
    assert_int_equal(b.symbol[0], 0);
    assert_int_equal(b.date[0], 20200102);
    assert_int_equal(seg_n(&b, 0), 2);
    assert_true(seg_r(&b, 0, 0) == 0.01 && seg_r(&b, 0, 1) == 0.03);
    assert_int_equal(b.symbol[1], 1);
    assert_int_equal(seg_n(&b, 1), 1);
    assert_true(seg_r(&b, 1, 0) == -0.02);
    assert_int_equal(b.date[2], 20200103);
    assert_true(seg_r(&b, 2, 0) == 1e-3);
    assert_int_equal(seg_n(&b, 3), 2);
    assert_true(seg_r(&b, 3, 1) == -5e-4);
    raid_batch_free(&b);

    expect_error("symbol,date,ret\nX,2020-01-02,0.01\nX,2020-01-02,nan\n", &o, RAID_EPARSE,
                 "3:3: cannot parse return 'nan'"); /* numbers are decimal only */
    expect_error("symbol,date,ret\nX,2020-01-02,0.01\nX,2020-01-02,-1e400\n", &o, RAID_EPARSE,
                 "3:3: return out of float64's range: '-1e400'");
    expect_error("symbol,date,ret\nX,2020-01-02,0.01\nX,2020-01-02,1..2\n", &o, RAID_EPARSE,
                 "3:3: cannot parse return '1..2'");
    expect_error("symbol,date,ret\nX,2020-01-02,0.01\nX,2020-01-32,0\n", &o, RAID_EPARSE,
                 "3:2: cannot parse date '2020-01-32'");
    expect_error("symbol,date,ret\nX,2020-01-02,0.01\nY,2019-01-01,0\nX,2020-01-01,0\n", &o, RAID_EPARSE,
                 "4:2: date goes backwards for symbol 'X': '2020-01-01' before '2020-01-02' (line 2)");
    expect_error("symbol,date,return\nX,2020-01-02,0.01\n", &o, RAID_EPARSE, "1:1: missing column 'ret'");
}

static void test_errors(void **st)
{
    (void)st;
    raid_read_opts o = opts(0);
    expect_error("symbol,timestamp,price\nA,2020-01-02T09:30:00,100\nA,2020-01-02T09:31:00,-1.5\n", &o,
                 RAID_EPARSE, "3:3: price must be positive and finite: '-1.5'");
    expect_error("symbol,timestamp,price\nA,2020-01-02T09:30:00,0\n", &o, RAID_EPARSE,
                 "2:3: price must be positive and finite: '0'");
    expect_error("symbol,timestamp,price\nA,2020-01-02T09:30:00,1e-400\n", &o, RAID_EPARSE,
                 "2:3: price must be positive and finite (it underflows to 0): '1e-400'");
    expect_error("symbol,timestamp,price\nA,2020-01-02T09:30:00,0.000e-400\n", &o, RAID_EPARSE,
                 "2:3: price must be positive and finite: '0.000e-400'");
    expect_error("symbol,timestamp,price\nA,2020-01-02T09:30:00,inf\n", &o, RAID_EPARSE,
                 "2:3: cannot parse price 'inf'");
    expect_error("symbol,timestamp,price\nA,2020-01-02T09:30:00,1e309\n", &o, RAID_EPARSE,
                 "2:3: price out of float64's range: '1e309'");
    expect_error("symbol,timestamp,price\nA,2020-01-02T09:30:00,12abc\n", &o, RAID_EPARSE,
                 "2:3: cannot parse price '12abc'");
    expect_error("symbol,timestamp,price\nA,2020-01-02T09:30:00,\n", &o, RAID_EPARSE,
                 "2:3: cannot parse price ''");
    expect_error("symbol,timestamp,price\nA,2020-13-01T00:00:00,1\n", &o, RAID_EPARSE,
                 "2:2: cannot parse timestamp '2020-13-01T00:00:00'");
    expect_error("price,timestamp\n1,2020-01-01T00:00:00\n2,2020-01-01T00:00:00+25:00\n", &o, RAID_EPARSE,
                 "3:2: cannot parse timestamp '2020-01-01T00:00:00+25:00'");
    expect_error("symbol,timestamp,price\nA,2020-01-02T09:30:00,1\nA,2020-01-02T09:30:01,1,7\n", &o,
                 RAID_EPARSE, "3:4: expected 3 fields, found 4");
    expect_error("symbol,timestamp,price\nA,2020-01-02T09:30:00,1\nA,2020-01-02T09:30:01\n", &o, RAID_EPARSE,
                 "3:2: expected 3 fields, found 2");
    expect_error("symbol,timestamp,size\nA,2020-01-02T09:30:00,1\n", &o, RAID_EPARSE,
                 "1:1: missing column 'price'");
    expect_error("symbol,price\nA,1\n", &o, RAID_EPARSE, "1:1: missing column 'timestamp'");
    expect_error("", &o, RAID_EPARSE, "1:1: empty input (no header row)");
    expect_error("symbol,timestamp,price\n"
                 "A,2020-01-02T10:00:00,1\n"
                 "B,2020-01-02T09:00:00,1\n"
                 "A,2020-01-02T09:59:59.999999,1\n",
                 &o, RAID_EPARSE,
                 "4:2: time goes backwards for symbol 'A': '2020-01-02T09:59:59.999999' before "
                 "'2020-01-02T10:00:00' (line 2)");
    /* Instants are compared: 10:00+01:00 is before 09:30Z. */
    expect_error("symbol,timestamp,price\nA,2020-01-02T09:30:00Z,1\nA,2020-01-02T10:00:00+01:00,1\n", &o,
                 RAID_EPARSE,
                 "3:2: time goes backwards for symbol 'A': '2020-01-02T10:00:00+01:00' before "
                 "'2020-01-02T09:30:00Z' (line 2)");
    /* Line numbers count blank lines, CRLF, and line breaks inside quoted fields. */
    expect_error("symbol,timestamp,price\r\n\r\nA,2020-01-02T10:00:00,1\r\n\"A\nB\",2020-01-02T10:00:00,1\r\n"
                 "A,2020-01-02T10:00:00,x\r\n",
                 &o, RAID_EPARSE, "6:3: cannot parse price 'x'");
    expect_error("symbol,timestamp,price\n\"A\",\"2020-01-02T10:00:00\",\"1\nx\"\n", &o, RAID_EPARSE,
                 "2:3: cannot parse price '1\\x0Ax'"); /* the line break escaped: a message is one line */
    expect_error("symbol,timestamp,price\nA,2020-01-02T10:00:00,\"1\n", &o, RAID_EPARSE,
                 "2:3: unterminated quoted field");
    /* An explicitly named symbol column must exist; the default one is optional. */
    raid_read_opts os = opts(0);
    os.symbol_col = "ticker";
    expect_error("symbol,timestamp,price\nA,2020-01-02T10:00:00,1\n", &os, RAID_EPARSE,
                 "1:1: missing column 'ticker'");

    /* Open errors: unknown tz, missing file, bad options. */
    raid_reader *rd = NULL;
    const char *p = write_tmp("ok.csv", "timestamp,price\n2020-01-02T10:00:00,1\n");
    o.tz = "Nowhere/Land";
    assert_int_equal(raid_reader_open(&rd, p, &o), RAID_EINVAL);
    assert_string_equal(raid_errmsg(), "unknown time zone 'Nowhere/Land'");
    assert_null(rd);
    o = opts(0);
    assert_int_equal(raid_reader_open(&rd, t_tmppath("does-not-exist.csv"), &o), RAID_EIO);
    assert_null(rd);
    char want[600];
    snprintf(want, sizeof want, "%s: No such file or directory", t_tmppath("does-not-exist.csv"));
    assert_string_equal(raid_errmsg(), want);
    o.sample_us = -1;
    assert_int_equal(raid_reader_open(&rd, p, &o), RAID_EINVAL);
    o = opts(0);
    o.session_start_s = 100;
    o.session_end_s = 86401;
    assert_int_equal(raid_reader_open(&rd, p, &o), RAID_EINVAL);
    assert_string_equal(raid_errmsg(), "raid_reader_open: session window 100..86401 out of range");
    o.session_start_s = 86400;
    o.session_end_s = 50;
    assert_int_equal(raid_reader_open(&rd, p, &o), RAID_EINVAL);
    o = opts(0);
    o.kind = (raid_input_kind)7;
    assert_int_equal(raid_reader_open(&rd, p, &o), RAID_EINVAL);
    assert_null(rd);
    /* Errors are sticky. */
    p = write_tmp("sticky.csv", "timestamp,price\n2020-01-02T10:00:00,-1\n");
    o = opts(0);
    assert_int_equal(raid_reader_open(&rd, p, &o), RAID_OK);
    raid_batch b;
    raid_batch_init(&b);
    int done = 7;
    assert_int_equal(raid_reader_next(rd, &b, 10, &done), RAID_EPARSE);
    assert_int_equal(done, 0);
    snprintf(want, sizeof want, "%s:2:2: price must be positive and finite: '-1'", p);
    assert_string_equal(raid_errmsg(), want);
    int64_t us;
    assert_int_equal(raid_parse_sample("5parsecs", &us), RAID_EINVAL); /* another message in between */
    assert_int_equal(raid_reader_next(rd, &b, 10, &done), RAID_EPARSE);
    assert_string_equal(raid_errmsg(), want); /* set again by the sticky failure */
    raid_reader_close(rd);
    raid_batch_free(&b);
}

static void test_quoted_crlf_nosymbol(void **st)
{
    (void)st;
    raid_read_opts o = opts(0);
    raid_batch b;
    raid_batch_init(&b);
    raid_reader *rd = NULL;
    /* Quoted fields (with a comma and an escaped quote in the symbol), CRLF, a BOM, no final newline. */
    const char *p = write_tmp("q.csv", "\xEF\xBB\xBF\"symbol\",\"timestamp\",\"price\"\r\n"
                                       "\"A,\"\"B\",\"2020-01-02 10:00:00\",\"100.5\"\r\n"
                                       "\r\n"
                                       "\"A,\"\"B\", 2020-01-02T10:00:01 ,101\r\n"
                                       "C,2020-01-02T10:00:00,7");
    read_ok(p, &o, &b, 1000, &rd);
    assert_string_equal(raid_reader_symbol(rd, 0), "A,\"B");
    assert_string_equal(raid_reader_symbol(rd, 1), "C");
    raid_reader_close(rd);
    assert_int_equal(b.nseg, 2);
    const double q[] = {100.5, 101};
    expect_prices(&b, 0, q, 2);
    assert_int_equal(seg_n(&b, 1), 0);

    /* No symbol column: one symbol named "". */
    raid_batch_clear(&b);
    p = write_tmp("ns.csv", "timestamp,price\r\n2020-01-02T10:00:00,1\r\n2020-01-02T10:00:01,2\r\n"
                            "2020-01-03T10:00:00,3\r\n");
    read_ok(p, &o, &b, 1000, &rd);
    assert_string_equal(raid_reader_symbol(rd, 0), "");
    assert_null(raid_reader_symbol(rd, 1));
    raid_reader_close(rd);
    assert_int_equal(b.nseg, 2);
    assert_int_equal(b.symbol[1], 0);
    const double ns[] = {1, 2};
    expect_prices(&b, 0, ns, 2);

    /* Renamed columns. */
    raid_batch_clear(&b);
    p = write_tmp("rn.csv", "sym,t,px\nZ,2020-01-02T10:00:00,1\nZ,2020-01-02T10:00:01,2\n");
    o.symbol_col = "SYM";
    o.time_col = "T";
    o.price_col = "Px";
    read_ok(p, &o, &b, 1000, &rd);
    assert_string_equal(raid_reader_symbol(rd, 0), "Z");
    raid_reader_close(rd);
    expect_prices(&b, 0, ns, 2);
    raid_batch_free(&b);
}

/* Standard input ("-"): same result; progress total 0. */
static void test_stdin(void **st)
{
    (void)st;
    const char *p = write_tmp("in.csv", SAMPLING_CSV);
    assert_non_null(freopen(p, "r", stdin));
    raid_read_opts o = opts(0);
    raid_reader *rd = NULL;
    assert_int_equal(raid_reader_open(&rd, "-", &o), RAID_OK);
    raid_batch b;
    raid_batch_init(&b);
    int done = 0;
    while (!done)
        assert_int_equal(raid_reader_next(rd, &b, 1, &done), RAID_OK);
    uint64_t c, t;
    raid_reader_progress(rd, &c, &t);
    assert_int_equal(t, 0);
    assert_int_equal(c, strlen(SAMPLING_CSV));
    raid_reader_close(rd);
    assert_int_equal(b.nret, 5);
    raid_batch_free(&b);
}

/* ---------------------------------------------------------------------------------------------- */
/* Real data                                                                                       */
/* ---------------------------------------------------------------------------------------------- */

static double sumsq(const raid_batch *b)
{
    double s = 0;
    for (size_t i = 0; i < b->nret; i++)
        s += b->ret[i] * b->ret[i];
    return s;
}

/* Expected counts and sums of squared returns come from an independent Python implementation. */
static void check_file(const char *name, int64_t sample_us, size_t max_returns, size_t nseg, size_t nret,
                       double rv)
{
    raid_read_opts o = opts(sample_us);
    raid_batch b;
    raid_batch_init(&b);
    char err[512];
    raid_reader *rd = NULL;
    raid_status s = read_all(t_data(name), &o, &b, max_returns, err, sizeof err, &rd);
    if (s != RAID_OK)
        fail_msg("%s: %s", name, err);
    uint64_t c, t;
    raid_reader_progress(rd, &c, &t);
    assert_true(t > 0 && c == t);
    raid_reader_close(rd);
    assert_int_equal(b.nseg, nseg);
    assert_int_equal(b.nret, nret);
    for (size_t i = 0; i < b.nseg; i++) {
        assert_true(b.offsets[i] <= b.offsets[i + 1]);
        if (i > 0 && b.symbol[i] == b.symbol[i - 1])
            assert_true(b.date[i] > b.date[i - 1]);
    }
    double got = sumsq(&b);
    if (fabs(got - rv) > 1e-12 * rv)
        fail_msg("%s: sum of squares %.17g, expected %.17g", name, got, rv);
    raid_batch_free(&b);
}

static void test_usdchf(void **st)
{
    (void)st;
    /* 62,496 half-hourly quotes on 1,302 dates, no gaps: 30min equals tick. */
    check_file("usdchf_30min.csv", 0, 1 << 30, 1302, 62496 - 1302, 0.06216016807311088);
    check_file("usdchf_30min.csv", 1800000000, 1000, 1302, 62496 - 1302, 0.06216016807311088);
    check_file("usdchf_30min.csv", 3600000000, 1, 1302, 29946, 0.059736127309073274);
}

static void test_onemin(void **st)
{
    (void)st;
    raid_read_opts o = opts(0);
    raid_batch b;
    raid_batch_init(&b);
    raid_reader *rd = NULL;
    read_ok(t_data("onemin_stock_market.csv"), &o, &b, 1 << 30, &rd);
    assert_string_equal(raid_reader_symbol(rd, 0), "STOCK");
    assert_string_equal(raid_reader_symbol(rd, 1), "MARKET");
    raid_reader_close(rd);
    assert_int_equal(b.nseg, 44);
    size_t per[2] = {0, 0};
    for (size_t i = 0; i < b.nseg; i++) {
        per[b.symbol[i]]++;
        assert_int_equal(seg_n(&b, i), 390); /* 391 minutes 09:30 .. 16:00 */
    }
    assert_int_equal(per[0], 22);
    assert_int_equal(per[1], 22);
    raid_batch_free(&b);
    check_file("onemin_stock_market.csv", 0, 5000, 44, 17160, 0.0051411697583769135);
    check_file("onemin_stock_market.csv", 300000000, 100, 44, 3432, 0.005129617103583364);
}

static void test_trades(void **st)
{
    (void)st;
    check_file("trades_xxx_2days.csv", 0, 1 << 30, 2, 7166, 0.00017994552011499606);
    check_file("trades_xxx_2days.csv", 300000000, 1 << 30, 2, 152, 0.00015869018738820889);
    /* Batching: max_returns 1 delivers one segment per call. */
    raid_read_opts o = opts(300000000);
    raid_reader *rd = NULL;
    assert_int_equal(raid_reader_open(&rd, t_data("trades_xxx_2days.csv"), &o), RAID_OK);
    raid_batch b;
    raid_batch_init(&b);
    int done = 0;
    assert_int_equal(raid_reader_next(rd, &b, 1, &done), RAID_OK);
    assert_int_equal(b.nseg, 1);
    assert_int_equal(b.date[0], 20180102);
    assert_int_equal(done, 0);
    raid_batch_clear(&b);
    assert_int_equal(raid_reader_next(rd, &b, 1, &done), RAID_OK);
    assert_int_equal(b.nseg, 1);
    assert_int_equal(b.date[0], 20180103);
    assert_int_equal(b.offsets[0], 0);
    assert_int_equal(seg_n(&b, 0), 76);
    raid_batch_clear(&b);
    if (!done)
        assert_int_equal(raid_reader_next(rd, &b, 1, &done), RAID_OK);
    assert_int_equal(done, 1);
    assert_int_equal(b.nseg, 0);
    raid_reader_close(rd);
    raid_batch_free(&b);
}

/* Prices far apart: the ratio (p - prev)/prev overflows (1e-200 -> 1e200) or the relative change is -1
 * in float64 (1e200 -> 1e-300); the returns are then log(p) - log(prev), always finite. log1p is used
 * for -0.5 <= q <= 1 only (both ends included). */
static void test_extreme_prices(void **st)
{
    (void)st;
    const char *p = write_tmp("ext.csv", "symbol,timestamp,price\n"
                                         "A,2020-01-02T09:30:00,1e-200\n"
                                         "A,2020-01-02T09:30:01,1e200\n"
                                         "A,2020-01-02T09:30:02,1e-300\n"
                                         "A,2020-01-02T09:30:03,1.7976931348623157e308\n"
                                         "A,2020-01-02T09:30:04,4.9406564584124654e-324\n"
                                         "A,2020-01-02T09:30:05,100\n"
                                         "A,2020-01-02T09:30:06,150\n"
                                         "A,2020-01-02T09:30:07,300\n"
                                         "A,2020-01-02T09:30:08,601\n"
                                         "A,2020-01-02T09:30:09,300\n"
                                         "A,2020-01-02T09:30:10,150\n"
                                         "A,2020-01-02T09:30:11,75\n");
    raid_read_opts o = opts(0);
    raid_batch b;
    raid_batch_init(&b);
    read_ok(p, &o, &b, 1000, NULL);
    assert_int_equal(b.nseg, 1);
    const double px[] = {1e-200, 1e200, 1e-300, 1.7976931348623157e308, 4.9406564584124654e-324,
                         100, 150, 300, 601, 300, 150, 75};
    const size_t np = sizeof px / sizeof *px;
    assert_int_equal(b.nret, np - 1);
    for (size_t i = 0; i < b.nret; i++)
        if (!isfinite(b.ret[i]) || fabs(b.ret[i]) >= 1500)
            fail_msg("return %zu (%g -> %g) is %g", i, px[i], px[i + 1], b.ret[i]);
    expect_prices(&b, 0, px, np);
    assert_true(b.ret[0] == log(1e200) - log(1e-200));
    assert_true(b.ret[1] == log(1e-300) - log(1e200));
    assert_true(b.ret[5] == log1p(0.5));          /* 100 -> 150 */
    assert_true(b.ret[6] == log1p(1.0));          /* 150 -> 300: q = 1, log1p */
    assert_true(b.ret[7] == log(601.0) - log(300.0)); /* q > 1 */
    assert_true(b.ret[8] == log(300.0) - log(601.0)); /* q < -0.5 */
    assert_true(b.ret[9] == log1p(-0.5));         /* 300 -> 150: q = -0.5, log1p */
    raid_batch_free(&b);
}

/* Returns input: finite and |r| <= 1e74 (larger ones overflow the fourth powers of the quarticity). */
static void test_return_range(void **st)
{
    (void)st;
    raid_read_opts o = opts(0);
    o.kind = RAID_INPUT_RETURNS;
    expect_error("symbol,date,ret\nX,2020-01-02,0.01\nX,2020-01-02,1e300\n", &o, RAID_EPARSE,
                 "3:3: return out of range (|r| > 1e74): '1e300'");
    expect_error("date,ret,symbol\n2020-01-02,-1.0000001e74,X\n", &o, RAID_EPARSE,
                 "2:2: return out of range (|r| > 1e74): '-1.0000001e74'");
    expect_error("symbol,date,ret\nX,2020-01-02,inf\n", &o, RAID_EPARSE, "2:3: cannot parse return 'inf'");
    expect_error("symbol,date,ret\nX,2020-01-02,2e308\n", &o, RAID_EPARSE, "2:3: return out of float64's range: '2e308'");
    const char *p = write_tmp("big.csv", "symbol,date,ret\nX,2020-01-02,1e74\nX,2020-01-02,-1e74\n");
    raid_batch b;
    raid_batch_init(&b);
    read_ok(p, &o, &b, 1000, NULL);
    assert_int_equal(b.nret, 2);
    assert_true(b.ret[0] == 1e74 && b.ret[1] == -1e74);
    raid_batch_free(&b);
}

/* A NUL byte in any field (used or not, header or data, quoted or not) is an error at its field; it would
 * otherwise cut the symbol short ("A\0B" read as "A"). */
static void test_nul_bytes(void **st)
{
    (void)st;
    raid_read_opts o = opts(0);
    static const char t1[] = "symbol,timestamp,price\nA,2020-01-02T09:30:00,1\nA\0B,2020-01-02T09:30:01,2\n";
    expect_error_n(t1, sizeof t1 - 1, &o, RAID_EPARSE, "3:1: NUL byte in field");
    static const char t2[] = "symbol,timestamp,price,x\nA,2020-01-02T09:30:00,1,a\0\n";
    expect_error_n(t2, sizeof t2 - 1, &o, RAID_EPARSE, "2:4: NUL byte in field");
    static const char t3[] = "symbol,timestamp,price\nA,2020-01-02T09:30:00,1\n\"A\n\0\",2020-01-02T09:30:01,2\n";
    expect_error_n(t3, sizeof t3 - 1, &o, RAID_EPARSE, "3:1: NUL byte in field");
    static const char t4[] = "symbol,timestamp,price\nA,2020-01-02T09:30:00,1\0\n";
    expect_error_n(t4, sizeof t4 - 1, &o, RAID_EPARSE, "2:3: NUL byte in field");
    static const char t5[] = "symbol,time\0stamp,price\nA,2020-01-02T09:30:00,1\n";
    expect_error_n(t5, sizeof t5 - 1, &o, RAID_EPARSE, "1:2: NUL byte in field");
    o.kind = RAID_INPUT_RETURNS;
    static const char t6[] = "symbol,date,ret\nX,2020-01-02,0.01\0\n";
    expect_error_n(t6, sizeof t6 - 1, &o, RAID_EPARSE, "2:3: NUL byte in field");
}

/* A used column named twice (case-insensitively) is an error at the second occurrence; unused
 * duplicates are fine. */
static void test_duplicate_columns(void **st)
{
    (void)st;
    raid_read_opts o = opts(0);
    expect_error("symbol,timestamp,price,price\nA,2020-01-02T09:30:00,1,2\n", &o, RAID_EPARSE,
                 "1:4: duplicate column 'price' (also column 3)");
    expect_error("Symbol,timestamp,price,size,SYMBOL\nA,2020-01-02T09:30:00,1,2,B\n", &o, RAID_EPARSE,
                 "1:5: duplicate column 'symbol' (also column 1)");
    expect_error("timestamp,price,TimeStamp\n2020-01-02T09:30:00,1,2020-01-02T09:30:00\n", &o, RAID_EPARSE,
                 "1:3: duplicate column 'timestamp' (also column 1)");
    /* The earliest second occurrence is reported. */
    expect_error("price,timestamp,timestamp,price\n1,2020-01-02T09:30:00,2020-01-02T09:30:00,1\n", &o,
                 RAID_EPARSE, "1:3: duplicate column 'timestamp' (also column 2)");
    raid_read_opts rn = opts(0);
    rn.price_col = "Px";
    expect_error("px,timestamp,PX\n1,2020-01-02T09:30:00,2\n", &rn, RAID_EPARSE, "1:3: duplicate column 'Px' (also column 1)");
    raid_read_opts orr = opts(0);
    orr.kind = RAID_INPUT_RETURNS;
    expect_error("symbol,date,ret,date\nX,2020-01-02,0.01,2020-01-03\n", &orr, RAID_EPARSE,
                 "1:4: duplicate column 'date' (also column 2)");
    /* Unused duplicates. */
    const char *p = write_tmp("dup.csv", "size,symbol,timestamp,size,price,Size\n"
                                         "1,A,2020-01-02T09:30:00,2,100,3\n"
                                         "1,A,2020-01-02T09:30:01,2,101,3\n");
    raid_batch b;
    raid_batch_init(&b);
    read_ok(p, &o, &b, 1000, NULL);
    const double px[] = {100, 101};
    expect_prices(&b, 0, px, 2);
    raid_batch_free(&b);
}

/* An empty time zone name is an error (NULL means UTC). */
/* Bad inputs: hex and other non-decimal numbers, a symbol that is not UTF-8, a last line
 * without a line break (read, with a notice), a grid finer than the data (a notice), a session across
 * midnight; and raid_errmsg() carrying the reader's message. */
static void test_nondecimal_utf8_eol_inputs(void **st)
{
    (void)st;
    raid_read_opts o = opts(0);
    expect_error("symbol,timestamp,price\nA,2020-01-02T09:30:00,0x64\n", &o, RAID_EPARSE,
                 "2:3: cannot parse price '0x64'");
    assert_string_equal(raid_errmsg() + strlen(raid_errmsg()) - strlen("cannot parse price '0x64'"),
                        "cannot parse price '0x64'");
    expect_error("symbol,timestamp,price\nA,2020-01-02T09:30:00,1\nA,2020-01-02T09:30:00,1.5x\n", &o, RAID_EPARSE,
                 "3:3: cannot parse price '1.5x'");
    expect_error("symbol,timestamp,price\nA,2020-01-02T09:30:00,1\nAB\xE2\x82,2020-01-02T09:30:00,1\n", &o,
                 RAID_EPARSE, "3:1: symbol is not valid UTF-8 (byte 3 is 0xE2): 'AB\\xE2\\x82'");

    /* A cut last line: read as it is (10, not 102), with a notice naming FILE:LINE. */
    const char *p = write_tmp("cut.csv", "symbol,timestamp,price\nA,2020-01-02T09:30:00,100\nA,2020-01-02T09:31:00,10");
    raid_batch b;
    raid_batch_init(&b);
    raid_reader *rd = NULL;
    read_ok(p, &o, &b, 1000, &rd);
    const double cut[] = {100, 10};
    expect_prices(&b, 0, cut, 2);
    assert_int_equal(raid_reader_notice_count(rd), 1);
    char want[800];
    snprintf(want, sizeof want, "%s:3: the last line has no line break at its end; it was read as a complete row "
             "(if the file was cut short there, its last value is cut short too)", p);
    assert_string_equal(raid_reader_notice(rd, 0), want);
    assert_null(raid_reader_notice(rd, 1));
    raid_reader_close(rd);

    /* Quotes every 30 minutes on a 5-minute grid: 5 of 6 grid returns repeat a price. */
    raid_batch_clear(&b);
    o = opts(INT64_C(300000000));
    p = write_tmp("sparse.csv", "timestamp,price\n2020-01-02T09:00:00,1\n2020-01-02T09:30:00,2\n"
                                "2020-01-02T10:00:00,3\n");
    read_ok(p, &o, &b, 1000, &rd);
    assert_int_equal(seg_n(&b, 0), 12);
    /* the file has no symbol column: said first (interleaved symbols would be read as one series) */
    assert_int_equal(raid_reader_notice_count(rd), 2);
    assert_string_equal(raid_reader_notice(rd, 0), "no symbol column 'symbol': the whole file is one series");
    assert_string_equal(raid_reader_notice(rd, 1),
                        "the sampling grid of 300 s is finer than the data's spacing (kept observations are 1800 s "
                        "apart on average): 10 of 12 sampled returns (83.3%) repeat the previous price for lack of "
                        "an observation in their interval, adding zero returns (bpv and the jump test suffer); "
                        "choose a coarser sampling interval");
    raid_reader_close(rd);
    raid_batch_clear(&b);
    o = opts(INT64_C(1800000000));
    read_ok(p, &o, &b, 1000, &rd);
    assert_int_equal(raid_reader_notice_count(rd), 1);
    raid_reader_close(rd);
    /* with the symbol column: no notice */
    raid_batch_clear(&b);
    p = write_tmp("sparse_sym.csv", "symbol,timestamp,price\nA,2020-01-02T09:00:00,1\nA,2020-01-02T09:30:00,2\n");
    read_ok(p, &o, &b, 1000, &rd);
    assert_int_equal(raid_reader_notice_count(rd), 0);
    raid_reader_close(rd);

    /* 17:00-16:00: Thursday's evening opens Friday's trading date; 16:00 < t < 17:00 is dropped. */
    raid_batch_clear(&b);
    o = opts(0);
    assert_int_equal(raid_parse_session("17:00-16:00", &o.session_start_s, &o.session_end_s), RAID_OK);
    p = write_tmp("fx.csv", "timestamp,price\n2020-01-02T15:00:00,1\n2020-01-02T16:00:00,2\n"
                            "2020-01-02T16:30:00,99\n2020-01-02T17:00:00,3\n2020-01-03T01:00:00,4\n"
                            "2020-01-03T16:00:00,5\n2020-01-03T16:00:01,99\n");
    read_ok(p, &o, &b, 1000, NULL);
    assert_int_equal(b.nseg, 2);
    assert_int_equal(b.date[0], 20200102);
    assert_int_equal(b.date[1], 20200103);
    const double d1[] = {1, 2}, d2[] = {3, 4, 5};
    expect_prices(&b, 0, d1, 2);
    expect_prices(&b, 1, d2, 3);
    raid_batch_free(&b);
}

static void test_empty_tz(void **st)
{
    (void)st;
    const char *p = write_tmp("tzok.csv", "timestamp,price\n2020-01-02T10:00:00Z,1\n");
    raid_read_opts o = opts(0);
    o.tz = "";
    raid_reader *rd = NULL;
    assert_int_equal(raid_reader_open(&rd, p, &o), RAID_EINVAL);
    assert_string_equal(raid_errmsg(), "unknown time zone ''");
    assert_null(rd);
    o.tz = NULL;
    assert_int_equal(raid_reader_open(&rd, p, &o), RAID_OK);
    raid_reader_close(rd);
}

static void on_usr1(int sig) { (void)sig; }

static void nap_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* A signal whose handler does not restart system calls (no SA_RESTART: a runtime's SIGUSR1, a
 * program's SIGINT handler) arrives while the reader waits on a FIFO: the read goes on (it failed with
 * "read error: Interrupted system call"). */
static void test_fifo_signal(void **st)
{
    (void)st;
    const char *fifo = t_tmppath("sig.fifo");
    char path[1024];
    snprintf(path, sizeof path, "%s", fifo);
    assert_int_equal(mkfifo(path, 0600), 0);
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_usr1;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0;
    assert_int_equal(sigaction(SIGUSR1, &sa, &old), 0);
    const pid_t parent = getpid(), child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        FILE *f = fopen(path, "w");
        if (!f)
            _exit(1);
        fputs("symbol,timestamp,price\nA,2020-01-02T10:00:00,100\n", f);
        fflush(f);
        for (int i = 0; i < 3; i++) { /* the reader waits for more in a read of 1 MiB */
            nap_ms(150);
            kill(parent, SIGUSR1);
        }
        nap_ms(100);
        fputs("A,2020-01-02T10:01:00,101\n", f);
        fclose(f);
        _exit(0);
    }
    raid_read_opts o = opts(0);
    raid_batch b;
    raid_batch_init(&b);
    read_ok(path, &o, &b, 1000, NULL);
    int status = 0;
    assert_int_equal(waitpid(child, &status, 0), child);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    sigaction(SIGUSR1, &old, NULL);
    assert_int_equal(b.nseg, 1);
    const double want[] = {100, 101};
    expect_prices(&b, 0, want, 2);
    raid_batch_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_options),   cmocka_unit_test(test_tick_and_5min),
        cmocka_unit_test(test_session_window),  cmocka_unit_test(test_interleaved),
        cmocka_unit_test(test_time_zone_conversion), cmocka_unit_test(test_returns_input),
        cmocka_unit_test(test_errors),          cmocka_unit_test(test_quoted_crlf_nosymbol),
        cmocka_unit_test(test_stdin),           cmocka_unit_test(test_usdchf),
        cmocka_unit_test(test_onemin),          cmocka_unit_test(test_trades),
        cmocka_unit_test(test_extreme_prices),  cmocka_unit_test(test_return_range),
        cmocka_unit_test(test_nul_bytes),       cmocka_unit_test(test_duplicate_columns),
        cmocka_unit_test(test_empty_tz),        cmocka_unit_test(test_nondecimal_utf8_eol_inputs),
        cmocka_unit_test(test_fifo_signal),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
