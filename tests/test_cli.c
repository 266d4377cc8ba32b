/* The raid command-line tool end to end: version and help, device against cpu on the real data with
 * --check, an independent oracle for rv and bpv on real trades, returns input, short segments, bad
 * input (exit 2, FILE:LINE:COL message, no output file left behind), usage errors (exit 1), a failing
 * the underflow guard, no progress bar on a non-terminal and output to stdout. */
#define _POSIX_C_SOURCE 200809L
#include "support.h"
#include "raid.h"
#include "core/outfile.h"

#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define HEADER "symbol,date,n,rv,bpv,rs_neg,rs_pos,rq,tpq,medrv,jump_z,jump_p"

/* ---- output CSV parsing ---- */

typedef struct orow {
    char symbol[64];
    char date[16];
    long long n;
    raid_realized x; /* NAN for an empty field */
} orow;

/* Split line (modified in place) at commas, keeping empty fields; returns the number of fields. */
static int split(char *line, char **f, int cap)
{
    int k = 0;
    char *p = line;
    while (k < cap) {
        f[k++] = p;
        char *c = strchr(p, ',');
        if (!c)
            break;
        *c = 0;
        p = c + 1;
    }
    return k;
}

/* A value field: empty, or a number printed as the library's writer prints it (raidF64Text: the
 * shortest decimal that reads back as the same double). */
static double parse_value(const char *s, const char *what)
{
    if (!*s)
        return NAN;
    char *end;
    double v = strtod(s, &end);
    if (*end || !isfinite(v))
        fail_msg("%s: bad value '%s'", what, s);
    char again[RAID_F64_TEXT];
    if (strcmp(raidF64Text(again, v), s))
        fail_msg("%s: '%s' is not the shortest text that reads back ('%s')", what, s, again);
    return v;
}

/* Parse an output CSV (text is modified); returns the number of rows, *rows malloc'd. */
static size_t parse_output(char *text, orow **rows, const char *what)
{
    size_t n = 0, cap = 16;
    orow *r = malloc(cap * sizeof *r);
    char *save = NULL;
    char *line = strtok_r(text, "\n", &save);
    assert_non_null(line);
    if (strcmp(line, HEADER))
        fail_msg("%s: header is '%s'", what, line);
    while ((line = strtok_r(NULL, "\n", &save))) {
        char *f[16] = {0};
        int nf = split(line, f, 16);
        if (nf != 12)
            fail_msg("%s: row %zu has %d fields", what, n + 1, nf);
        if (n == cap)
            r = realloc(r, (cap *= 2) * sizeof *r);
        orow *w = &r[n++];
        memset(w, 0, sizeof *w);
        snprintf(w->symbol, sizeof w->symbol, "%s", f[0]);
        snprintf(w->date, sizeof w->date, "%s", f[1]);
        char *end;
        w->n = strtoll(f[2], &end, 10);
        assert_true(*f[2] && !*end && w->n >= 0);
        w->x.n = w->n;
        double v[RAID_REALIZED_NMEASURES];
        for (int k = 0; k < RAID_REALIZED_NMEASURES; k++)
            v[k] = parse_value(f[3 + k], what);
        w->x.rv = v[0];
        w->x.bpv = v[1];
        w->x.rs_neg = v[2];
        w->x.rs_pos = v[3];
        w->x.rq = v[4];
        w->x.tpq = v[5];
        w->x.medrv = v[6];
        w->x.jump_z = v[7];
        w->x.jump_p = v[8];
    }
    *rows = r;
    return n;
}

static size_t read_output(const char *path, orow **rows)
{
    char *text = t_read_file(path);
    if (!text)
        fail_msg("no output file %s", path);
    size_t n = parse_output(text, rows, path);
    free(text);
    return n;
}

/* ---- version, help, devices ---- */

static void test_version_help(void **state)
{
    (void)state;
    char *out, *err;
    assert_int_equal(t_cli(&out, &err, "--version"), 0);
    assert_string_equal(out, "raid " RAID_VERSION_STRING "\n");
    assert_non_null(strstr(out, "raid 0.1.0"));
    free(out);
    free(err);

    assert_int_equal(t_cli(&out, &err, "help realized"), 0);
    static const char *const opts[] = {"-o,",         "--output",    "--device",   "--sample",    "--session",
                                       "--input",     "--precision", "--chunk",    "--check",     "--tz",
                                       "--symbol-col", "--time-col", "--price-col", "--date-col", "--ret-col",
                                       "--help",      HEADER,        "Exit status"};
    for (size_t i = 0; i < sizeof opts / sizeof opts[0]; i++)
        if (!strstr(out, opts[i]))
            fail_msg("raid help realized does not mention %s", opts[i]);
    free(out);
    free(err);
    /* --help of the command prints the same text */
    char *out2;
    assert_int_equal(t_cli(&out, NULL, "help realized"), 0);
    assert_int_equal(t_cli(&out2, NULL, "realized --help"), 0);
    assert_string_equal(out, out2);
    free(out);
    free(out2);

    assert_int_equal(t_cli(&out, &err, "help nope"), 1);
    assert_non_null(strstr(err, "nope"));
    free(out);
    free(err);

    assert_int_equal(t_cli(&out, &err, "%s", ""), 1);
    assert_non_null(strstr(err, "usage"));
    free(out);
    free(err);

    assert_int_equal(t_cli(&out, &err, "frobnicate"), 1);
    free(out);
    free(err);

    assert_int_equal(t_cli(&out, &err, "devices"), 0);
    assert_non_null(strstr(out, "\ncpu "));
    if (!raid_backend_absent(RAID_BACKEND_OPENCL))
        assert_non_null(strstr(out, "opencl:0.0"));
    if (raid_backend_absent(RAID_BACKEND_CUDA))
        assert_non_null(strstr(out, "(no CUDA: "));
    else
        assert_non_null(strstr(out, "\ncuda:0 "));
    free(out);
    free(err);
}

/* ---- device against cpu on the real data ---- */

/* |a-b|/|b| for k < 7 (0 when equal, including both zero), the library's scaled difference for the jump
 * statistics; both empty is 0, exactly one empty is infinite. */
static double rel_diff(const raid_realized *a, const raid_realized *b, int k)
{
    double x = raid_realized_get(a, k), y = raid_realized_get(b, k);
    if (isnan(x) && isnan(y))
        return 0.0;
    if (isnan(x) || isnan(y))
        return INFINITY;
    if (k >= 7)
        return raid_realized_diff(a, b, k);
    if (x == y)
        return 0.0;
    return fabs(x - y) / fabs(y);
}

typedef struct real_case {
    const char *file, *sample, *session;
    size_t rows;
} real_case;

static void test_device_vs_cpu_real(void **state)
{
    (void)state;
    if (!t_have_opencl())
        skip();
    static const real_case cases[] = {
        {"usdchf_30min.csv", "30min", NULL, 1302},         {"usdchf_30min.csv", "tick", NULL, 1302},
        {"onemin_stock_market.csv", "1min", "09:30-16:00", 44}, {"onemin_stock_market.csv", "5min", "09:30-16:00", 44},
        {"trades_xxx_2days.csv", "tick", NULL, 2},         {"trades_xxx_2days.csv", "5min", NULL, 2},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const real_case *rc = &cases[c];
        char common[2048];
        snprintf(common, sizeof common, "'%s' --sample %s%s%s", t_data(rc->file), rc->sample,
                 rc->session ? " --session " : "", rc->session ? rc->session : "");
        char cpu_path[512];
        snprintf(cpu_path, sizeof cpu_path, "%s", t_tmppath("real_cpu.csv"));
        char *out, *err;
        if (t_cli(&out, &err, "realized %s --device cpu -o '%s'", common, cpu_path) != 0)
            fail_msg("cpu run of %s failed: %s", common, err);
        free(out);
        free(err);
        orow *cpu = NULL;
        size_t ncpu = read_output(cpu_path, &cpu);
        if (ncpu != rc->rows)
            fail_msg("%s: %zu rows on cpu, expected %zu", common, ncpu, rc->rows);
        for (int p = 0; p < 2; p++) {
            const raid_precision pol = p ? RAID_PREC_DF : RAID_PREC_F32;
            const char *pn = p ? "df" : "f32";
            char dev_path[512];
            snprintf(dev_path, sizeof dev_path, "%s", t_tmppath("real_dev.csv"));
            int st = t_cli(&out, &err, "realized %s --device %s --precision %s --check -o '%s'", common,
                         t_device(), pn, dev_path);
            if (st != 0 || !strstr(err, "check passed"))
                fail_msg("%s --precision %s: exit %d, stderr:\n%s", common, pn, st, err);
            assert_int_equal(out[0], 0); /* everything went to the file */
            free(out);
            free(err);
            orow *dev = NULL;
            size_t ndev = read_output(dev_path, &dev);
            if (ndev != rc->rows)
                fail_msg("%s --precision %s: %zu rows, expected %zu", common, pn, ndev, rc->rows);
            for (size_t i = 0; i < ndev; i++) {
                assert_string_equal(dev[i].symbol, cpu[i].symbol);
                assert_string_equal(dev[i].date, cpu[i].date);
                assert_int_equal(dev[i].n, cpu[i].n);
                for (int k = 0; k < RAID_REALIZED_NMEASURES; k++) {
                    double d = rel_diff(&dev[i].x, &cpu[i].x, k), b = raid_realized_bound(pol, k, dev[i].n);
                    if (!(d <= b))
                        fail_msg("%s %s: %s %s %s: device %.17g cpu %.17g diff %.3e > bound %.3e", common, pn,
                                 dev[i].symbol, dev[i].date, raid_realized_names[k],
                                 raid_realized_get(&dev[i].x, k), raid_realized_get(&cpu[i].x, k), d, b);
                }
            }
            free(dev);
        }
        free(cpu);
    }
}

/* ---- an independent oracle on real trades: rv and bpv per day from the raw prices ---- */

static void test_oracle_trades(void **state)
{
    (void)state;
    char *text = t_read_file(t_data("trades_xxx_2days.csv"));
    assert_non_null(text);
    /* header: symbol,timestamp,price,size (found by name) */
    char *save = NULL, *line = strtok_r(text, "\r\n", &save);
    assert_non_null(line);
    char *f[16] = {0};
    int nf = split(line, f, 16), ct = -1, cp = -1;
    for (int i = 0; i < nf; i++) {
        if (!strcmp(f[i], "timestamp"))
            ct = i;
        if (!strcmp(f[i], "price"))
            cp = i;
    }
    assert_true(ct >= 0 && cp >= 0);
    char dates[8][11] = {{0}};
    long long n[8] = {0};
    long double rv[8] = {0}, bp[8] = {0};
    int nd = 0;
    double prev = 0, prev_r = 0;
    while ((line = strtok_r(NULL, "\r\n", &save))) {
        if (split(line, f, 16) != nf)
            fail_msg("trades: bad row");
        const char *ts = f[ct];
        double p = strtod(f[cp], NULL);
        assert_true(p > 0);
        if (nd == 0 || strncmp(dates[nd - 1], ts, 10)) { /* a new day: no return across days */
            assert_true(nd < 8);
            memcpy(dates[nd], ts, 10);
            dates[nd++][10] = 0;
            prev = p;
            continue;
        }
        const int d = nd - 1;
        double r = log1p((p - prev) / prev);
        rv[d] += (long double)r * r;
        if (n[d] >= 1)
            bp[d] += fabsl((long double)r) * fabsl((long double)prev_r);
        n[d]++;
        prev = p;
        prev_r = r;
    }
    free(text);
    assert_int_equal(nd, 2);

    char *out, *err;
    const char *path = t_tmppath("oracle.csv");
    if (t_cli(&out, &err, "realized '%s' --sample tick --device cpu -o '%s'", t_data("trades_xxx_2days.csv"), path))
        fail_msg("raid realized failed: %s", err);
    free(out);
    free(err);
    orow *rows = NULL;
    size_t nr = read_output(path, &rows);
    assert_int_equal(nr, 2);
    const double pi = acos(-1.0);
    for (int d = 0; d < 2; d++) {
        assert_string_equal(rows[d].symbol, "XXX");
        assert_string_equal(rows[d].date, dates[d]);
        assert_int_equal(rows[d].n, n[d]);
        const double want_rv = (double)rv[d], want_bpv = pi / 2 * (double)bp[d];
        const double erv = fabs(rows[d].x.rv - want_rv) / want_rv, ebp = fabs(rows[d].x.bpv - want_bpv) / want_bpv;
        if (!(erv <= 1e-12 && ebp <= 1e-12))
            fail_msg("%s: rv %.17g vs oracle %.17g (%.2e), bpv %.17g vs oracle %.17g (%.2e)", dates[d], rows[d].x.rv,
                     want_rv, erv, rows[d].x.bpv, want_bpv, ebp);
    }
    free(rows);
}

/* ---- returns input, by hand ---- */

static void close_to(double got, double want, double tol, const char *what)
{
    if (!(fabs(got - want) <= tol * fabs(want)))
        fail_msg("%s: %.17g, expected %.17g", what, got, want);
}

static void test_returns_input(void **state)
{
    (void)state;
    const char *in = t_tmppath("rets.csv");
    assert_int_equal(t_write_file(in, "symbol,date,ret\n"
                                      "A,2020-01-02,0.01\n"
                                      "A,2020-01-02,-0.02\n"
                                      "B,2020-01-02,0.5\n"
                                      "A,2020-01-02,0.03\n"
                                      "A,2020-01-03,-0.001\n"),
                     0);
    const int ndev = t_have_opencl() ? 2 : 1;
    for (int dv = 0; dv < ndev; dv++) {
        const char *dev = dv ? t_device() : "cpu";
        char *out, *err;
        const char *path = t_tmppath("rets_out.csv");
        if (t_cli(&out, &err, "realized '%s' --input returns --device %s -o '%s'", in, dev, path))
            fail_msg("--input returns on %s: %s", dev, err);
        free(out);
        free(err);
        orow *r = NULL;
        assert_int_equal(read_output(path, &r), 3);
        const double pi = acos(-1.0), tol = 1e-14;
        /* sorted by symbol (order of first appearance), then date */
        assert_string_equal(r[0].symbol, "A");
        assert_string_equal(r[0].date, "2020-01-02");
        assert_int_equal(r[0].n, 3);
        close_to(r[0].x.rv, 0.0014, tol, "A 2020-01-02 rv");           /* 1e-4 + 4e-4 + 9e-4 */
        close_to(r[0].x.bpv, pi / 2 * 0.0008, tol, "A 2020-01-02 bpv"); /* pi/2 (2e-4 + 6e-4) */
        close_to(r[0].x.rs_neg, 0.0004, tol, "A 2020-01-02 rs_neg");
        close_to(r[0].x.rs_pos, 0.0010, tol, "A 2020-01-02 rs_pos");
        close_to(r[0].x.rq, 3.0 / 3.0 * (1e-8 + 16e-8 + 81e-8), tol, "A 2020-01-02 rq");
        assert_string_equal(r[1].symbol, "A");
        assert_string_equal(r[1].date, "2020-01-03");
        assert_int_equal(r[1].n, 1);
        close_to(r[1].x.rv, 1e-6, tol, "A 2020-01-03 rv");
        close_to(r[1].x.rs_neg, 1e-6, tol, "A 2020-01-03 rs_neg");
        assert_true(r[1].x.rs_pos == 0.0);
        assert_true(isnan(r[1].x.bpv));
        assert_string_equal(r[2].symbol, "B");
        assert_int_equal(r[2].n, 1);
        close_to(r[2].x.rv, 0.25, tol, "B rv");
        free(r);
    }
}

/* ---- segments of 0, 1, 2, 3 returns ---- */

static void test_short_segments(void **state)
{
    (void)state;
    const char *in = t_tmppath("short.csv");
    assert_int_equal(t_write_file(in, "symbol,timestamp,price\n"
                                      "A,2020-01-02T10:00:00,100\n"
                                      "A,2020-01-03T10:00:00,100\n"
                                      "A,2020-01-03T10:01:00,101\n"
                                      "A,2020-01-06T10:00:00,100\n"
                                      "A,2020-01-06T10:01:00,101\n"
                                      "A,2020-01-06T10:02:00,99.5\n"
                                      "A,2020-01-07T10:00:00,100\n"
                                      "A,2020-01-07T10:01:00,101\n"
                                      "A,2020-01-07T10:02:00,99.5\n"
                                      "A,2020-01-07T10:03:00,100.25\n"),
                     0);
    /* which of rv,bpv,rs_neg,rs_pos,rq,tpq,medrv,jump_z,jump_p are defined for n = 0..3 */
    static const int defined[4][RAID_REALIZED_NMEASURES] = {
        {0, 0, 0, 0, 0, 0, 0, 0, 0},
        {1, 0, 1, 1, 1, 0, 0, 0, 0},
        {1, 1, 1, 1, 1, 0, 0, 0, 0},
        {1, 1, 1, 1, 1, 1, 1, 1, 1},
    };
    const int ndev = t_have_opencl() ? 2 : 1;
    for (int dv = 0; dv < ndev; dv++) {
        const char *dev = dv ? t_device() : "cpu";
        char *out, *err;
        if (t_cli(&out, &err, "realized '%s' --sample tick --device %s", in, dev))
            fail_msg("short segments on %s: %s", dev, err);
        /* the raw text: n = 0 is a row of empty fields */
        assert_non_null(strstr(out, "\nA,2020-01-02,0,,,,,,,,,\n"));
        orow *r = NULL;
        assert_int_equal(parse_output(out, &r, "short segments"), 4);
        free(out);
        free(err);
        for (int s = 0; s < 4; s++) {
            assert_int_equal(r[s].n, s);
            for (int k = 0; k < RAID_REALIZED_NMEASURES; k++) {
                const double v = raid_realized_get(&r[s].x, k);
                if (defined[s][k] ? isnan(v) : !isnan(v))
                    fail_msg("%s: n=%d %s is %s", dev, s, raid_realized_names[k],
                             defined[s][k] ? "empty" : "not empty");
            }
        }
        close_to(r[1].x.rv, log(1.01) * log(1.01), 1e-14, "n=1 rv");
        free(r);
    }
}

/* ---- bad input: exit 2, FILE:LINE:COL: message, no output left behind ---- */

/* No entry of the directory of t_tmpdir()/bad named "<out>", "<out>.tmp.*" or ".raid-tmp-*" (the output
 * helper's temporary files). */
static void expect_no_output(const char *dir, const char *out_name)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    struct dirent *e;
    size_t len = strlen(out_name);
    while ((e = readdir(d))) {
        if ((!strncmp(e->d_name, out_name, len) && (!e->d_name[len] || !strncmp(e->d_name + len, ".tmp.", 5))) ||
            !strncmp(e->d_name, ".raid-tmp-", 10))
            fail_msg("output left behind: %s/%s", dir, e->d_name);
    }
    closedir(d);
}

static const char *bad_dir(void)
{
    static char dir[512];
    if (!dir[0]) {
        snprintf(dir, sizeof dir, "%s", t_tmppath("bad"));
        assert_int_equal(mkdir(dir, 0700), 0);
    }
    return dir;
}

/* Write content to bad/<name>.csv, run raid realized on it with --sample tick (prices), extra options and
 * -o bad/<name>.out.csv, expect exit 2 and a message starting with "PATH:LINE:COL: " followed by words. */
static void bad_case(const char *name, const char *content, const char *extra, const char *loc, const char *words)
{
    char in[600], out_name[128], out_path[700], prefix[800];
    snprintf(in, sizeof in, "%s/%s.csv", bad_dir(), name);
    snprintf(out_name, sizeof out_name, "%s.out.csv", name);
    snprintf(out_path, sizeof out_path, "%s/%s", bad_dir(), out_name);
    assert_int_equal(t_write_file(in, content), 0);
    char *out, *err;
    /* --sample tick for prices (returns input refuses sampling options), unless extra gives its own
     * (an option may be given once) */
    const char *tick = strstr(extra, "--input returns") || strstr(extra, "--sample") ? "" : "--sample tick";
    int st = t_cli(&out, &err, "realized '%s' --device cpu %s %s -o '%s'", in, tick, extra, out_path);
    snprintf(prefix, sizeof prefix, "%s:%s: ", in, loc);
    if (st != 2 || !strstr(err, prefix) || !strstr(err, words))
        fail_msg("%s: exit %d (expected 2), stderr '%s' (expected '%s%s')", name, st, err, prefix, words);
    expect_no_output(bad_dir(), out_name);
    free(out);
    free(err);
}

#define H "symbol,timestamp,price\n"
#define R1 "A,2020-01-02T09:30:00,100\n"

static void test_bad_input(void **state)
{
    (void)state;
    bad_case("negative", H R1 "A,2020-01-02T09:31:00,-1.5\n", "", "3:3",
             "price must be positive and finite: '-1.5'");
    bad_case("zero", H R1 "A,2020-01-02T09:31:00,0\n", "", "3:3", "price must be positive and finite: '0'");
    /* Numbers are decimal only: no nan, inf, hex or junk around them. */
    bad_case("nan", H R1 "A,2020-01-02T09:31:00,nan\n", "", "3:3", "cannot parse price 'nan'");
    bad_case("inf", H R1 "A,2020-01-02T09:31:00,inf\n", "", "3:3", "cannot parse price 'inf'");
    bad_case("hex", H R1 "A,2020-01-02T09:31:00,0x64\n", "", "3:3", "cannot parse price '0x64'");
    bad_case("blank", H R1 "A,2020-01-02T09:31:00,\" 101\"\n", "", "3:3", "cannot parse price ' 101'");
    bad_case("overflow", H R1 "A,2020-01-02T09:31:00,1e999\n", "", "3:3", "price out of float64's range: '1e999'");
    /* A symbol must be UTF-8: the byte is named, and shown escaped. */
    bad_case("utf8", H R1 "A\xFF\xC3\xA9,2020-01-02T09:31:00,101\n", "", "3:1",
             "symbol is not valid UTF-8 (byte 2 is 0xFF): 'A\\xFF\\xC3\\xA9'");
    bad_case("unparsable", H R1 "A,2020-01-02T09:31:00,12x\n", "", "3:3", "cannot parse price '12x'");
    bad_case("timestamp", H R1 "A,2020-01-02 9h31,12\n", "", "3:2", "cannot parse timestamp '2020-01-02 9h31'");
    bad_case("month13", H R1 "A,2020-13-02T09:31:00,12\n", "", "3:2",
             "cannot parse timestamp '2020-13-02T09:31:00'");
    bad_case("backwards", H "A,2020-01-02T10:00:00,12\nB,2020-01-02T09:00:00,12\nA,2020-01-02T09:59:59,12\n", "",
             "4:2", "time goes backwards for symbol 'A'");
    /* rows with and without an offset under a zone other than UTC: a row without offset is a local time
       there, and the instants are compared (09:40 New York is 14:40Z, after 04:45-05:00 = 09:45Z; it was
       compared as 09:40Z and accepted) */
    bad_case("mixedtz", H "A,2018-01-02T09:40:00,10.05\nA,2018-01-02T04:45:00-05:00,10.2\n", "--tz America/New_York",
             "3:2", "time goes backwards for symbol 'A': '2018-01-02T04:45:00-05:00' before '2018-01-02T09:40:00'");
    {   /* and in order: 09:45Z, then 05:00 New York = 10:00Z (was refused: 05:00 read as 05:00Z) */
        const char *in = t_tmppath("mixedtz_ok.csv");
        assert_int_equal(t_write_file(in, H "A,2018-01-02T09:45:00Z,10.05\nA,2018-01-02T05:00:00,10.2\n"), 0);
        char *out, *err;
        const int st = t_cli(&out, &err, "realized '%s' --device cpu --sample tick --tz America/New_York", in);
        if (st != 0 || !strstr(out, "\nA,2018-01-02,1,"))
            fail_msg("mixedtz_ok: exit %d, stdout '%s', stderr '%s'", st, out, err);
        free(out);
        free(err);
    }
    bad_case("nopricecol", "symbol,timestamp,size\n" R1, "", "1:1", "missing column 'price'");
    bad_case("fewfields", H R1 "A,2020-01-02T10:00:01\n", "", "3:2", "expected 3 fields, found 2");
    bad_case("empty", "", "", "1:1", "empty input (no header row)");
    bad_case("blanklines", "\n\n\n", "", "3:1", "no header row: the file has only blank lines");
    bad_case("bom2", "\xEF\xBB\xBF\xEF\xBB\xBF" H R1, "", "1:1", "a second UTF-8 byte order mark at the start");
    /* trading dates the output cannot write: year 10000 through an offset, a time zone, a session across
       midnight; year 0 through an offset */
    bad_case("y10k", H "A,9999-12-31T22:00:00-05:00,100\nA,9999-12-31T23:00:00-05:00,101\n", "", "2:2",
             "symbol 'A': trading date outside the years 0001 to 9999 after the time zone and session: "
             "'9999-12-31T22:00:00-05:00'");
    bad_case("y10ktz", H "A,9999-12-31T18:00:00Z,100\n", "--tz Asia/Tokyo", "2:2", "trading date outside");
    bad_case("y10kses", H "A,9999-12-31T18:00:00,100\n", "--session 17:00-16:00", "2:2", "trading date outside");
    bad_case("y0", H "A,0001-01-01T00:00:00+05:00,100\n", "", "2:2", "trading date outside");
    /* a sampling grid that would give one segment more than 2^25 returns */
    bad_case("finegrid", H "A,2020-01-02T00:00:00,100\nA,2020-01-02T23:59:59,100\n",
             "--sample 1ms", "3:2", "the sampling grid of 0.001 s would give one segment more than 33554432 returns");
    bad_case("retnan", "symbol,date,ret\nA,2020-01-02,0.01\nA,2020-01-02,nan\n", "--input returns", "3:3",
             "cannot parse return 'nan'");
    bad_case("retinf", "symbol,date,ret\nA,2020-01-02,0.01\nA,2020-01-02,-inf\n", "--input returns", "3:3",
             "cannot parse return '-inf'");
    bad_case("retbig", "symbol,date,ret\nA,2020-01-02,0.01\nA,2020-01-02,-1e400\n", "--input returns", "3:3",
             "return out of float64's range: '-1e400'");

    /* a file that does not exist: exit 2, the path in the message */
    char missing[600], out_path[700];
    snprintf(missing, sizeof missing, "%s/no_such_file.csv", bad_dir());
    snprintf(out_path, sizeof out_path, "%s/missing.out.csv", bad_dir());
    char *out, *err;
    int st = t_cli(&out, &err, "realized '%s' --device cpu -o '%s'", missing, out_path);
    if (st != 2 || !strstr(err, missing))
        fail_msg("missing file: exit %d, stderr '%s'", st, err);
    expect_no_output(bad_dir(), "missing.out.csv");
    free(out);
    free(err);
}

/* ---- notices: on stderr, exit 0, the output unchanged ---- */

/* raid realized IN OPTS -o a file; returns the output, stderr in *err. */
static char *realized_to(const char *in, const char *opts, const char *name, char **err)
{
    char out_path[700];
    snprintf(out_path, sizeof out_path, "%s/%s", bad_dir(), name);
    char *out;
    int st = t_cli(&out, err, "realized '%s' --device cpu %s -o '%s'", in, opts, out_path);
    if (st != 0)
        fail_msg("realized %s %s: exit %d, stderr '%s'", in, opts, st, *err);
    free(out);
    char *csv = t_read_file(out_path);
    assert_non_null(csv);
    return csv;
}

static void test_notices(void **state)
{
    (void)state;
    /* A last line without a line break is read, with a notice naming FILE:LINE. */
    char cut[600], whole[600];
    snprintf(cut, sizeof cut, "%s/cut.csv", bad_dir());
    snprintf(whole, sizeof whole, "%s/whole.csv", bad_dir());
    assert_int_equal(t_write_file(cut, H R1 "A,2020-01-02T09:31:00,10"), 0);
    assert_int_equal(t_write_file(whole, H R1 "A,2020-01-02T09:31:00,10\n"), 0);
    char *e1, *e2, want[800];
    char *o1 = realized_to(cut, "--sample tick", "cut.out.csv", &e1);
    char *o2 = realized_to(whole, "--sample tick", "whole.out.csv", &e2);
    assert_string_equal(o1, o2);
    snprintf(want, sizeof want, "raid realized: notice: %s:3: the last line has no line break at its end; it was "
             "read as a complete row", cut);
    if (!strstr(e1, want))
        fail_msg("stderr '%s', expected '%s'", e1, want);
    assert_string_equal(e2, "");
    free(o1), free(o2), free(e1), free(e2);

    /* A 5min grid on 30-minute quotes: the zero returns are reported; 30min is quiet. */
    const char *fx = t_data("usdchf_30min.csv");
    o1 = realized_to(fx, "", "fx5.out.csv", &e1);
    if (!strstr(e1, "raid realized: notice: the sampling grid of 300 s is finer than the data's spacing (kept "
                    "observations are 1") || !strstr(e1, "repeat the previous price"))
        fail_msg("stderr '%s'", e1);
    o2 = realized_to(fx, "--sample 30min", "fx30.out.csv", &e2);
    assert_string_equal(e2, "");
    free(o1), free(o2), free(e1), free(e2);

    /* No symbol column (here it is called ticker): the whole file is one series, said in a notice. */
    char tick[600];
    snprintf(tick, sizeof tick, "%s/ticker.csv", bad_dir());
    assert_int_equal(t_write_file(tick, "ticker,timestamp,price\nA,2020-01-02T09:30:00,100\n"
                                        "B,2020-01-02T09:30:01,50\nA,2020-01-02T09:30:02,101\n"), 0);
    o1 = realized_to(tick, "--sample tick", "ticker.out.csv", &e1);
    assert_string_equal(e1, "raid realized: notice: no symbol column 'symbol': the whole file is one series\n");
    free(o1), free(e1);

    /* A session across midnight: the evening opens the next trading date. */
    o1 = realized_to(fx, "--sample 30min --session 17:00-16:00", "fxses.out.csv", &e1);
    assert_string_equal(e1, "");
    assert_non_null(strstr(o1, "\nUSDCHF,1996-04-02,"));
    free(o1), free(e1);
}

/* The notices of the library's CSV jobs behind raid groupby, sort, quantile and bars for path (with cpu):
 * their count, and that notice 0 is *first (NULL: none) and notice count is NULL. */
static size_t job_notices(size_t job, const char *path, const char **first)
{
    size_t n = 0;
    const char *s0 = NULL, *past = "";
    raid_status st = RAID_EINVAL;
    if (job == 0) {
        raid_groupby_table *t = NULL;
        if ((st = raid_groupby_run_csv(NULL, path, "k", "sum:x", 0, &t)) == RAID_OK)
            n = raid_groupby_table_notice_count(t), s0 = raid_groupby_table_notice(t, 0),
            past = raid_groupby_table_notice(t, n);
        *first = s0 ? strdup(s0) : NULL;
        raid_groupby_table_destroy(t);
    } else if (job == 1) {
        raid_sort_table *t = NULL;
        if ((st = raid_sort_run_csv(NULL, path, "x", 0, &t)) == RAID_OK)
            n = raid_sort_table_notice_count(t), s0 = raid_sort_table_notice(t, 0), past = raid_sort_table_notice(t, n);
        *first = s0 ? strdup(s0) : NULL;
        raid_sort_table_destroy(t);
    } else if (job == 2) {
        raid_quantile_table *t = NULL;
        if ((st = raid_quantile_run_csv(NULL, path, "x", "0.5", NULL, &t)) == RAID_OK)
            n = raid_quantile_table_notice_count(t), s0 = raid_quantile_table_notice(t, 0),
            past = raid_quantile_table_notice(t, n);
        *first = s0 ? strdup(s0) : NULL;
        raid_quantile_table_destroy(t);
    } else {
        raid_bars *t = NULL;
        if ((st = raid_bars_run_csv(NULL, path, "1min", NULL, NULL, &t)) == RAID_OK)
            n = raid_bars_notice_count(t), s0 = raid_bars_notice(t, 0), past = raid_bars_notice(t, n);
        *first = s0 ? strdup(s0) : NULL;
        raid_bars_destroy(t);
    }
    if (st != RAID_OK)
        fail_msg("job %zu on %s: %s", job, path, raid_errmsg());
    assert_null(past);
    return n;
}

/* The table reader's notice of a last line without a line break, passed on by the commands that go
 * through cli_run_job (their library results' notice getters): "raid CMD: notice: ..." on stderr, exit 0,
 * the output of the same file with the break; nothing on stderr for that file. */
static void test_notices_column_jobs(void **state)
{
    (void)state;
    static const struct {
        const char *cmd, *opts, *text; /* text without its final line break */
        int line;                      /* the last line */
    } jobs[] = {
        {"groupby", "--by k --agg sum:x,count", "k,x\n1,2.5\n2,1\n1,3", 4},
        {"sort", "--by x --desc", "k,x\n1,2.5\n2,1\n1,3", 4},
        {"quantile", "--col x --q 0.25,0.5 --by k", "k,x\n1,2.5\n2,1\n1,3", 4},
        {"bars", "--interval 1min", "symbol,timestamp,price,size\nA,2020-01-02T09:30:00,10,2\n"
                                    "A,2020-01-02T09:30:30,11,1\nA,2020-01-02T09:31:00,12,3", 4},
    };
    for (size_t j = 0; j < sizeof jobs / sizeof jobs[0]; j++) {
        char cut[600], whole[600], text[256], note[800], want[900];
        snprintf(cut, sizeof cut, "%s/%s_cut.csv", bad_dir(), jobs[j].cmd);
        snprintf(whole, sizeof whole, "%s/%s_whole.csv", bad_dir(), jobs[j].cmd);
        snprintf(text, sizeof text, "%s\n", jobs[j].text);
        assert_int_equal(t_write_file(cut, jobs[j].text), 0);
        assert_int_equal(t_write_file(whole, text), 0);
        char *o1, *e1, *o2, *e2;
        const int s1 = t_cli(&o1, &e1, "%s '%s' --device cpu %s", jobs[j].cmd, cut, jobs[j].opts);
        const int s2 = t_cli(&o2, &e2, "%s '%s' --device cpu %s", jobs[j].cmd, whole, jobs[j].opts);
        if (s1 != 0 || s2 != 0)
            fail_msg("raid %s: exit %d and %d, stderr '%s' and '%s'", jobs[j].cmd, s1, s2, e1, e2);
        assert_string_equal(o1, o2);
        snprintf(note, sizeof note, "%s:%d: the last line has no line break at its end; it was read as a complete "
                 "row (if the file was cut short there, its last value is cut short too)", cut, jobs[j].line);
        snprintf(want, sizeof want, "raid %s: notice: %s\n", jobs[j].cmd, note);
        assert_string_equal(e1, want);
        assert_string_equal(e2, "");
        free(o1), free(e1), free(o2), free(e2);
        /* the library's getters behind them */
        const char *first;
        assert_int_equal(job_notices(j, cut, &first), 1);
        assert_string_equal(first, note);
        free((void *)first);
        assert_int_equal(job_notices(j, whole, &first), 0);
        assert_null(first);
    }
    assert_int_equal(raid_groupby_table_notice_count(NULL) + raid_sort_table_notice_count(NULL) +
                     raid_quantile_table_notice_count(NULL) + raid_bars_notice_count(NULL), 0);
    assert_null(raid_groupby_table_notice(NULL, 0));
    assert_null(raid_sort_table_notice(NULL, 0));
    assert_null(raid_quantile_table_notice(NULL, 0));
    assert_null(raid_bars_notice(NULL, 0));
}

/* ---- usage errors: exit 1, no output ---- */

static void usage_case(const char *opts, const char *words)
{
    char out_path[700];
    snprintf(out_path, sizeof out_path, "%s/usage.out.csv", bad_dir());
    char *out, *err;
    int st = t_cli(&out, &err, "realized '%s' %s -o '%s'", t_data("trades_xxx_2days.csv"), opts, out_path);
    if (st != 1 || !strstr(err, words))
        fail_msg("'%s': exit %d (expected 1), stderr '%s' (expected '%s')", opts, st, err, words);
    expect_no_output(bad_dir(), "usage.out.csv");
    free(out);
    free(err);
}

static void test_usage_errors(void **state)
{
    (void)state;
    usage_case("--device cpu --bogus", "unknown option --bogus");
    usage_case("--device cpu --sample 0min", "bad --sample '0min'");
    usage_case("--device cpu --precision f64", "bad --precision 'f64' (expected df or f32)"); /* raid sweep's words */
    usage_case("--device cpu --chunk 1000", "1000");
    usage_case("--device gpu9", "unknown device 'gpu9'");
    /* the library's message (raid_parse_session), as raid bars and Python give it */
    usage_case("--device cpu --session 25:00-26:00", "raid realized: --session: bad session '25:00-26:00' (expected "
                                                     "HH:MM-HH:MM, the start to 23:59, the end to 24:00)\n");
    usage_case("--device cpu --input bars", "bad --input 'bars'");
    usage_case("--device cpu --session 24:00-24:00", "raid realized: --session: bad session '24:00-24:00' (a window "
                                                     "cannot start at 24:00: the start is 00:00 to 23:59)\n");
    /* empty column names: the option named */
    usage_case("--device cpu --date-col ''", "raid realized: empty --date-col\n");
    usage_case("--device cpu --price-col=", "raid realized: empty --price-col\n");
    /* options of prices with returns input: refused, not ignored */
    usage_case("--device cpu --input returns --sample 5min", "--sample applies to prices, not to --input returns");
    usage_case("--device cpu --session 09:30-16:00 --input returns", "--session applies to prices");
    usage_case("--device cpu --input returns --tz UTC", "--tz applies to prices");
    /* an unknown time zone is an invalid option (RAID_EINVAL from raid_reader_open), so exit 1 */
    usage_case("--device cpu --tz Mars/Olympus", "unknown time zone 'Mars/Olympus'");
    /* no input file, two input files */
    char *out, *err;
    assert_int_equal(t_cli(&out, &err, "realized --device cpu"), 1);
    free(out);
    free(err);
    assert_int_equal(t_cli(&out, &err, "realized a.csv b.csv --device cpu"), 1);
    free(out);
    free(err);
}

/* ---- the underflow guard ----
 * The device path scales each segment so that its largest |r| is in [0.5, 1) and works in binary32
 * (f32) or hi+lo binary32 pairs (df). When every negative return of a segment is ~1e-60 times its
 * largest return, their squares underflow in binary32; the host notices the tiny sums and recomputes
 * that segment in float64, so --check passes (exit 0) with rs_neg, bpv and tpq tiny but right.
 * (Before the guard this input made --check fail with exit 3; no other input is known to, so the
 * exit-3 path has no end-to-end test.) */
static void test_underflow_guard(void **state)
{
    (void)state;
    if (!t_have_opencl())
        skip();
    const char *in = t_tmppath("underflow.csv");
    assert_int_equal(t_write_file(in, "symbol,date,ret\n"
                                      "A,2020-01-02,0.01\n"
                                      "A,2020-01-02,-1e-60\n"
                                      "A,2020-01-02,0.02\n"
                                      "A,2020-01-02,-3e-60\n"
                                      "A,2020-01-02,0.015\n"),
                     0);
    for (int p = 0; p < 2; p++) {
        const char *path = t_tmppath("underflow_out.csv");
        char *out, *err;
        int st = t_cli(&out, &err, "realized '%s' --input returns --device %s --precision %s --check -o '%s'", in,
                     t_device(), p ? "df" : "f32", path);
        if (st != 0 || !strstr(err, "check passed"))
            fail_msg("underflowing returns (%s): exit %d (expected 0), stderr:\n%s", p ? "df" : "f32", st, err);
        char *csv = t_read_file(path);
        assert_non_null(csv);
        /* rs_neg = 1e-120 + 9e-120 */
        assert_non_null(strstr(csv, ",1.0000000000000002e-119,"));
        free(csv);
        free(out);
        free(err);
    }
}

/* ---- output files: symbolic links followed, long names, quoted symbols ---- */
static void test_output_files(void **state)
{
    (void)state;
    const char *in = t_tmppath("quoted.csv");
    assert_int_equal(t_write_file(in, "symbol,timestamp,price\n"
                                      "\"A,x\",2020-01-02T10:00:00,100\n"
                                      "\"A,x\",2020-01-02T10:01:00,101\n"
                                      "\"B\"\"q\",2020-01-02T10:00:00,100\n"),
                     0);
    /* -o through a symbolic link: the target gets the output, the link stays a link */
    const char *target = t_tmppath("target.csv"), *link = t_tmppath("link.csv");
    assert_int_equal(t_write_file(target, "old\n"), 0);
    assert_int_equal(symlink(target, link), 0);
    char *out, *err;
    assert_int_equal(t_cli(&out, &err, "realized '%s' --sample tick --device cpu -o '%s'", in, link), 0);
    struct stat st;
    assert_int_equal(lstat(link, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    char *csv = t_read_file(target);
    assert_non_null(csv);
    /* symbols with a comma or a quote are quoted as RFC 4180 says */
    assert_non_null(strstr(csv, "\n\"A,x\",2020-01-02,1,"));
    assert_non_null(strstr(csv, "\n\"B\"\"q\",2020-01-02,0,"));
    free(csv);
    free(out);
    free(err);
    /* -o naming the input (through another spelling, or a link to it): refused, the input intact */
    char *before = t_read_file(in);
    const char *inlink = t_tmppath("in_link.csv");
    assert_int_equal(symlink(in, inlink), 0);
    char other[4200];
    snprintf(other, sizeof other, "%s/%s", t_tmppath("."), strrchr(in, '/') + 1); /* DIR/./NAME */
    const char *spell[2] = {other, inlink};
    for (int i = 0; i < 2; i++) {
        assert_int_equal(t_cli(&out, &err, "realized '%s' --sample tick --device cpu -o '%s'", in, spell[i]), 1);
        if (!strstr(err, "is the input file"))
            fail_msg("-o %s: %s", spell[i], err);
        free(out);
        free(err);
    }
    char *after = t_read_file(in);
    assert_string_equal(before, after);
    free(before);
    free(after);
    /* -o /dev/stdout appended to a file by the shell: written through standard output, the file's old
       contents kept (they were replaced by a new file) */
    const char *logf = t_tmppath("append.log");
    assert_int_equal(t_write_file(logf, "old line\n"), 0);
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "'%s' realized '%s' --sample tick --device cpu -o /dev/stdout >> '%s'", RAID_CLI, in,
             logf);
    assert_int_equal(t_run(cmd, NULL, NULL), 0);
    char *logt = t_read_file(logf);
    assert_non_null(logt);
    assert_true(!strncmp(logt, "old line\nsymbol,date,n,rv,", 26));
    free(logt);
    /* a name near the file system's limit (the temporary file must not need a longer one) */
    char name[256];
    memset(name, 'n', 250);
    strcpy(name + 250, ".csv");
    const char *longp = t_tmppath(name);
    assert_int_equal(t_cli(&out, &err, "realized '%s' --sample tick --device cpu -o '%s'", in, longp), 0);
    assert_true(t_file_exists(longp));
    free(out);
    free(err);
    /* an empty -o is a usage error */
    assert_int_equal(t_cli(&out, &err, "realized '%s' --device cpu -o ''", in), 1);
    free(out);
    free(err);
    /* a dangling link (relative, through a second link): the target is created, the links kept
       (t_tmppath's names are copied: its slots rotate) */
    char inq[4200], sub[4200], l1[4200], lp1[4200], lp2[4200], sp[4200];
    snprintf(inq, sizeof inq, "%s", in); /* still t_tmppath's first slot here */
    in = inq;
    snprintf(sub, sizeof sub, "%s", t_tmppath("linksub"));
    snprintf(l1, sizeof l1, "%s", t_tmppath("l1.csv"));
    snprintf(lp1, sizeof lp1, "%s", t_tmppath("loop1"));
    snprintf(lp2, sizeof lp2, "%s", t_tmppath("loop2"));
    snprintf(sp, sizeof sp, "%s", t_tmppath("spaced.csv"));
    assert_int_equal(mkdir(sub, 0700), 0);
    char l2[4300], made[4300];
    snprintf(l2, sizeof l2, "%s/l2", sub);
    snprintf(made, sizeof made, "%s/made.csv", sub);
    assert_int_equal(symlink("made.csv", l2), 0);
    assert_int_equal(symlink("linksub/l2", l1), 0);
    assert_int_equal(t_cli(&out, &err, "realized '%s' --sample tick --device cpu -o '%s'", in, l1), 0);
    free(out);
    free(err);
    assert_int_equal(lstat(l1, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    csv = t_read_file(made);
    assert_non_null(csv);
    assert_non_null(strstr(csv, "\n\"A,x\",2020-01-02,1,"));
    free(csv);
    /* a loop of links: an error, exit 2, the links kept */
    assert_int_equal(symlink(lp2, lp1), 0);
    assert_int_equal(symlink(lp1, lp2), 0);
    assert_int_equal(t_cli(&out, &err, "realized '%s' --sample tick --device cpu -o '%s'", in, lp1), 2);
    if (!strstr(err, "Too many levels of symbolic links"))
        fail_msg("loop: %s", err);
    free(out);
    free(err);
    assert_int_equal(lstat(lp1, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    /* a symbol with a leading or trailing space or tab is quoted, so that it reads back as written */
    assert_int_equal(t_write_file(sp, "symbol,timestamp,price\n"
                                      "\" A\",2020-01-02T10:00:00,100\n"
                                      "\"B\t\",2020-01-02T10:00:00,100\n"
                                      "C D,2020-01-02T10:00:00,100\n"),
                     0);
    assert_int_equal(t_cli(&out, &err, "realized '%s' --sample tick --device cpu", sp), 0);
    if (!strstr(out, "\n\" A\",2020-01-02,0,") || !strstr(out, "\n\"B\t\",2020-01-02,0,") ||
        !strstr(out, "\nC D,2020-01-02,0,"))
        fail_msg("spaced symbols: %s", out);
    free(out);
    free(err);
    /* standard output that cannot be written: a message with the reason, exit 2 */
    const char *redir[2] = {"> /dev/full", ">&-"}, *why[2] = {"No space left on device", "Bad file descriptor"};
    for (int i = 0; i < 2; i++) {
        snprintf(cmd, sizeof cmd, "'%s' realized '%s' --sample tick --device cpu %s", RAID_CLI, in, redir[i]);
        char msg[128];
        snprintf(msg, sizeof msg, "raid realized: cannot write standard output: %s\n", why[i]);
        assert_int_equal(t_run(cmd, NULL, &err), 2);
        if (!strstr(err, msg))
            fail_msg("%s: stderr '%s'", cmd, err);
        free(err);
    }
}

/* ---- progress bar and stdout ---- */

static void test_progress_and_stdout(void **state)
{
    (void)state;
    const char *dev = t_have_opencl() ? t_device() : "cpu";
    char *out, *err;
    /* stderr of t_run is a file: no progress bar (no carriage return) */
    int st = t_cli(&out, &err, "realized '%s' --sample tick --device %s --check", t_data("usdchf_30min.csv"), dev);
    assert_int_equal(st, 0);
    assert_null(strchr(err, '\r'));
    assert_non_null(strstr(err, "check passed"));
    /* an input with no segment: nothing compared, and the check does not claim to have passed */
    const char *empty = t_tmppath("empty_check.csv");
    assert_int_equal(t_write_file(empty, "symbol,timestamp,price\n"), 0);
    char *oe, *ee;
    assert_int_equal(t_cli(&oe, &ee, "realized '%s' --device %s --check", empty, dev), 0);
    assert_string_equal(oe, HEADER "\n");
    assert_non_null(strstr(ee, "check: nothing to compare (the input has no segment)"));
    assert_null(strstr(ee, "check passed"));
    free(oe), free(ee);
    /* without -o the CSV goes to stdout, identical to what -o writes */
    assert_int_equal(strncmp(out, HEADER "\n", strlen(HEADER) + 1), 0);
    const char *path = t_tmppath("stdout_cmp.csv");
    char *out2, *err2;
    assert_int_equal(
        t_cli(&out2, &err2, "realized '%s' --sample tick --device %s -o '%s'", t_data("usdchf_30min.csv"), dev, path), 0);
    assert_int_equal(out2[0], 0);
    assert_null(strchr(err2, '\r'));
    char *file = t_read_file(path);
    assert_non_null(file);
    assert_string_equal(out, file);
    orow *r = NULL;
    assert_int_equal(parse_output(out, &r, "stdout"), 1302);
    free(r);
    free(file);
    free(out);
    free(err);
    free(out2);
    free(err2);
    /* "-o -" is stdout too */
    assert_int_equal(t_cli(&out, &err, "realized '%s' --device cpu -o -", t_data("trades_xxx_2days.csv")), 0);
    assert_int_equal(strncmp(out, HEADER "\n", strlen(HEADER) + 1), 0);
    assert_false(t_file_exists("-"));
    free(out);
    free(err);
}

/* Number of entries of dir whose name starts with ".raid-tmp-". */
static int count_tmp(const char *dir)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        n += !strncmp(e->d_name, ".raid-tmp-", 10);
    closedir(d);
    return n;
}

/* A run killed by SIGTERM (or Ctrl-C) left its hidden temporary output beside -o. The
 * tool reads from a FIFO fed by a writer that keeps going, so it is surely mid-run when the signal comes. */
static void test_signal_removes_temporary(void **state)
{
    (void)state;
    const char *dir = t_tmppath("sigdir");
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", dir, dir);
    assert_int_equal(system(cmd), 0);
    char fifo[4096], out[4096];
    snprintf(fifo, sizeof fifo, "%s/in.csv", dir);
    snprintf(out, sizeof out, "%s/out.csv", dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    const int sigs[2] = {SIGTERM, SIGINT};
    for (int i = 0; i < 2; i++) {
        pid_t writer = fork();
        assert_true(writer >= 0);
        if (writer == 0) { /* prices every second for months: more than the tool reads in this test */
            FILE *f = fopen(fifo, "w");
            if (!f)
                _exit(1);
            fputs("symbol,timestamp,price\n", f);
            for (long t = 0; t < 300L * 86400; t++)
                if (fprintf(f, "X,2020-%02ld-%02ldT%02ld:%02ld:%02ld,%.4f\n", 1 + t / (28 * 86400), 1 + t / 86400 % 28,
                            t / 3600 % 24, t / 60 % 60, t % 60, 1.5 + 0.001 * (double)(t % 7)) < 0)
                    _exit(0);
            _exit(0);
        }
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            execl(RAID_CLI, RAID_CLI, "realized", fifo, "--device", "cpu", "-o", out, (char *)NULL);
            _exit(127);
        }
        int seen = 0; /* wait until the temporary exists */
        for (int t = 0; t < 500 && !seen; t++) {
            seen = count_tmp(dir) > 0;
            if (!seen) {
                struct timespec ts = {0, 20 * 1000 * 1000};
                nanosleep(&ts, NULL);
            }
        }
        kill(pid, sigs[i]);
        int status = 0;
        waitpid(pid, &status, 0);
        kill(writer, SIGKILL);
        waitpid(writer, NULL, 0);
        assert_true(seen);
        if (!(WIFSIGNALED(status) && WTERMSIG(status) == sigs[i]))
            fail_msg("the tool was not ended by signal %d (status %d)", sigs[i], status);
        assert_int_equal(count_tmp(dir), 0);
        assert_false(t_file_exists(out));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_version_help),     cmocka_unit_test(test_device_vs_cpu_real),
        cmocka_unit_test(test_oracle_trades),    cmocka_unit_test(test_returns_input),
        cmocka_unit_test(test_short_segments),   cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_notices),          cmocka_unit_test(test_notices_column_jobs),
        cmocka_unit_test(test_usage_errors),     cmocka_unit_test(test_underflow_guard),
        cmocka_unit_test(test_output_files),
        cmocka_unit_test(test_progress_and_stdout),
        cmocka_unit_test(test_signal_removes_temporary),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
