/* The realized job of the library (raid_realized_table_*, include/raid/realized.h), through the public
 * header only: the table from a CSV reader writes the bytes of `raid realized` (bundled data, and
 * interleaved symbols whose segments complete out of order, one segment per batch); from raid_ticks it
 * equals the table from the same prices as CSV; computed in parts on the reader's threads, the rows of one
 * batch on OpenMP's, bit for bit; the check's differences equal a direct computation;
 * NULL arguments and calls out of order fail with their messages and change nothing. */
#define _POSIX_C_SOURCE 200809L
#include "support.h"
#include "raid.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The table's CSV as a string (malloc'd). */
static char *csv_of(const raid_realized_table *tab)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    assert_int_equal(raid_realized_table_write_csv(tab, f), RAID_OK);
    fclose(f);
    return buf;
}

/* A finished table of the CSV at path, read with options o through batches of max_returns returns,
 * computed on ctx (and checked on cpu when not NULL). */
static raid_realized_table *table_of_csv(raid_ctx *ctx, raid_ctx *cpu, const char *path, const raid_read_opts *o,
                                         size_t max_returns)
{
    raid_reader *rd;
    if (raid_reader_open(&rd, path, o) != RAID_OK)
        fail_msg("raid_reader_open: %s", raid_errmsg());
    raid_realized_table *tab;
    assert_int_equal(raid_realized_table_create(&tab), RAID_OK);
    int done = 0, calls = 0;
    while (!done) {
        if (raid_realized_table_add_reader(tab, ctx, cpu, rd, max_returns, &done) != RAID_OK)
            fail_msg("add_reader: %s", raid_ctx_errmsg(ctx));
        calls++;
    }
    assert_true(calls >= 1);
    raid_reader_close(rd); /* the names are the table's own */
    assert_int_equal(raid_realized_table_finish(tab), RAID_OK);
    return tab;
}

/* `raid realized PATH --device cpu OPTS` as a string (malloc'd). */
static char *cli_csv(const char *path, const char *opts)
{
    const char *out = t_tmppath("cli_out.csv");
    char *o, *e;
    if (t_cli(&o, &e, "realized '%s' --device cpu %s -o '%s'", path, opts, out) != 0)
        fail_msg("raid realized %s %s: %s", path, opts, e);
    free(o);
    free(e);
    char *csv = t_read_file(out);
    assert_non_null(csv);
    return csv;
}

/* A: 2 Jan, B: 2 Jan and 3 Jan, C: 2 Jan; B's 2 Jan completes first (B moves on to 3 Jan), then A's and
 * C's at the end: the rows are still in order of first appearance (A, B, C), then date. A symbol with a
 * comma is quoted. */
static const char INTERLEAVED[] = "symbol,timestamp,price\n"
                                  "A,2020-01-02T10:00:00,100\n"
                                  "B,2020-01-02T10:00:00,50\n"
                                  "B,2020-01-02T10:01:00,51\n"
                                  "B,2020-01-02T10:02:00,50.5\n"
                                  "B,2020-01-02T10:03:00,50.7\n"
                                  "B,2020-01-03T10:00:00,52\n"
                                  "B,2020-01-03T10:01:00,52.5\n"
                                  "\"C,x\",2020-01-02T10:00:00,7\n"
                                  "A,2020-01-02T10:01:00,101\n"
                                  "A,2020-01-02T10:02:00,100.5\n"
                                  "\"C,x\",2020-01-02T10:05:00,7.1\n";

static void test_reader_equals_cli(void **state)
{
    (void)state;
    raid_ctx *cpu = t_open_ctx("cpu");
    raid_read_opts o;
    raid_read_opts_init(&o);
    o.sample_us = 30 * 60 * 1000000LL;
    raid_realized_table *tab = table_of_csv(cpu, NULL, t_data("usdchf_30min.csv"), &o, (size_t)1 << 24);
    char *mine = csv_of(tab), *cli = cli_csv(t_data("usdchf_30min.csv"), "--sample 30min");
    assert_string_equal(mine, cli);
    /* a batch computed in parts (RAID_REALIZED_PART returns at most, whole segments: one segment each, a
     * few), with a check: the same rows, bit for bit */
    for (int k = 0; k < 3; k++) {
        setenv("RAID_REALIZED_PART", k == 0 ? "1" : k == 1 ? "37" : "0", 1);
        raid_realized_table *pt = table_of_csv(cpu, k == 1 ? cpu : NULL, t_data("usdchf_30min.csv"), &o,
                                               k == 2 ? 1000 : (size_t)1 << 24);
        char *parts = csv_of(pt);
        assert_string_equal(parts, cli);
        assert_int_equal(raid_realized_table_check(pt, NULL, NULL, NULL), k == 1 ? raid_realized_table_nrows(pt) : 0);
        raid_realized_table_destroy(pt);
        free(parts);
    }
    unsetenv("RAID_REALIZED_PART");
    assert_true(raid_realized_table_nrows(tab) > 1000);
    assert_int_equal(raid_realized_table_check(tab, NULL, NULL, NULL), 0); /* no check ran */
    raid_realized_table_destroy(tab);
    free(mine);
    free(cli);

    const char *in = t_tmppath("interleaved.csv");
    assert_int_equal(t_write_file(in, INTERLEAVED), 0);
    o.sample_us = 0;
    for (size_t batch = 1; batch <= 100; batch *= 100) { /* one segment per batch, and all in one */
        tab = table_of_csv(cpu, NULL, in, &o, batch);
        mine = csv_of(tab);
        cli = cli_csv(in, "--sample tick");
        assert_string_equal(mine, cli);
        /* the accessors: 4 rows A, B, B, C */
        assert_int_equal(raid_realized_table_nrows(tab), 4);
        assert_int_equal(raid_realized_table_nsymbols(tab), 3);
        const char *want[4] = {"A", "B", "B", "C,x"};
        const int32_t dates[4] = {20200102, 20200102, 20200103, 20200102};
        const int64_t n[4] = {2, 3, 1, 1};
        for (size_t i = 0; i < 4; i++) {
            assert_string_equal(raid_realized_table_symbol(tab, i), want[i]);
            assert_string_equal(raid_realized_table_symbol_name(tab, raid_realized_table_symbol_ids(tab)[i]), want[i]);
            assert_int_equal(raid_realized_table_dates(tab)[i], dates[i]);
            assert_int_equal(raid_realized_table_n(tab)[i], n[i]);
        }
        const double r1 = log(101.0 / 100.0), r2 = log(100.5 / 101.0);
        assert_true(raid_realized_table_column(tab, 0)[0] == r1 * r1 + r2 * r2 ||
                    fabs(raid_realized_table_column(tab, 0)[0] - (r1 * r1 + r2 * r2)) < 1e-18);
        assert_true(isnan(raid_realized_table_column(tab, 5)[0])); /* tpq needs 3 returns */
        assert_null(raid_realized_table_symbol(tab, 4));
        assert_null(raid_realized_table_column(tab, RAID_REALIZED_NMEASURES));
        assert_null(raid_realized_table_column(tab, -1));
        raid_realized_table_destroy(tab);
        free(mine);
        free(cli);
    }
    raid_ctx_destroy(cpu);
}

/* Prices of 3 symbols over 3 days, runs of each interleaved, as CSV and as arrays. */
#define NT 600
static void test_ticks_equal_csv(void **state)
{
    (void)state;
    static int64_t t[NT];
    static double p[NT];
    static int sym[NT];
    const char *names[3] = {"ZZ", "AA", "M m"};
    int64_t clock[3] = {0, 0, 0};
    double px[3] = {100, 20, 3000};
    uint64_t seed = 12345;
    const int64_t day0 = 18263LL * 86400 * 1000000; /* 2020-01-02T00:00 local */
    char *csv = malloc(NT * 80 + 64), *w = csv;
    w += sprintf(w, "symbol,timestamp,price\n");
    for (int i = 0; i < NT; i++) {
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        const int s = (int)((i / 7 + (int)(seed >> 60)) % 3); /* runs of rows of one symbol */
        clock[s] += 1 + (int64_t)(seed >> 40) % 900;         /* seconds */
        px[s] *= exp(((double)(seed >> 11) / 9007199254740992.0 - 0.5) * 0.004);
        const int64_t sec = 9 * 3600 + clock[s] % (8 * 3600) + clock[s] / (8 * 3600) * 86400;
        sym[i] = s;
        t[i] = day0 + sec * 1000000;
        p[i] = px[s];
        const int64_t d = sec / 86400, hh = sec % 86400 / 3600, mm = sec % 3600 / 60, ss = sec % 60;
        w += sprintf(w, "\"%s\",2020-01-%02d %02d:%02d:%02d,%.17g\n", names[s], (int)(2 + d), (int)hh, (int)mm,
                     (int)ss, p[i]);
    }
    const char *in = t_tmppath("ticks.csv");
    assert_int_equal(t_write_file(in, csv), 0);
    free(csv);

    raid_ctx *cpu = t_open_ctx("cpu");
    raid_read_opts o;
    raid_read_opts_init(&o);
    o.sample_us = 60 * 1000000LL;
    raid_realized_table *from_csv = table_of_csv(cpu, NULL, in, &o, 1000);

    raid_ticks *tk;
    assert_int_equal(raid_ticks_create(&tk, &o), RAID_OK);
    raid_realized_table *tab;
    assert_int_equal(raid_realized_table_create(&tab), RAID_OK);
    int adds = 0;
    for (int i = 0; i < NT;) {
        int j = i;
        while (j < NT && sym[j] == sym[i])
            j++;
        assert_int_equal(raid_ticks_push(tk, names[sym[i]], t + i, 0, p + i, (size_t)(j - i)), RAID_OK);
        if (++adds % 5 == 0) /* a take now and then: segments come in several batches */
            assert_int_equal(raid_realized_table_add_ticks(tab, cpu, NULL, tk, 0), RAID_OK);
        i = j;
    }
    assert_int_equal(raid_realized_table_add_ticks(tab, cpu, NULL, tk, 1), RAID_OK);
    raid_ticks_destroy(tk);
    assert_int_equal(raid_realized_table_finish(tab), RAID_OK);
    char *a = csv_of(from_csv), *b = csv_of(tab);
    assert_string_equal(a, b);
    assert_true(raid_realized_table_nrows(tab) >= 9);
    assert_string_equal(raid_realized_table_symbol(tab, 0), names[sym[0]]); /* first appearance, not sorted */
    free(a);
    free(b);
    raid_realized_table_destroy(tab);
    raid_realized_table_destroy(from_csv);
    raid_ctx_destroy(cpu);
}

/* A tick file of 3 symbols over 4 days, interleaved, one of whose segments is long enough for 3 chunks of
 * the cpu path (2^15 returns each: the windows across chunks). */
static const char *long_ticks(void)
{
    const char *path = t_tmppath("long_ticks.csv");
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "symbol,timestamp,price\n");
    uint64_t seed = 99;
    double px[3] = {100, 20, 3000};
    for (int d = 0; d < 4; d++) {
        const int n = d == 2 ? 70000 : 1500; /* rows of each symbol that day */
        for (int i = 0; i < 3 * n; i++) {
            const int s = i % 3;
            px[s] *= exp((t_unif(&seed) - 0.5) * 0.002);
            const int64_t us = (int64_t)i * 8 * 3600 * 1000000LL / (3 * n); /* 09:00 to 17:00 */
            fprintf(f, "%c,2020-01-%02dT%02d:%02d:%02d.%06d,%.6f\n", "ABC"[s], 6 + d, (int)(9 + us / 3600000000LL),
                    (int)(us / 60000000 % 60), (int)(us / 1000000 % 60), (int)(us % 1000000), px[s]);
        }
    }
    assert_int_equal(fclose(f), 0);
    return path;
}

/* The measures of a reader's batch in parts on the reader's parsing threads (the default for a cpu context
 * without a check: RaidTableTask) give the rows of one batch computed on OpenMP's threads
 * (RAID_REALIZED_POOL=0, RAID_REALIZED_PART=0), bit for bit, with 1, 2 and 16 threads, blocks of 4 KiB,
 * parts of 1 return (one segment each), of 5,000 (several), of the default and of the whole batch; a
 * part that fails (the reader's error after parts are in flight) leaves no row, and the table incomplete. */
static void test_parts_on_reader_threads(void **state)
{
    (void)state;
    const char *in = long_ticks();
    raid_ctx *cpu = t_open_ctx("cpu");
    raid_read_opts o;
    raid_read_opts_init(&o);
    o.sample_us = 0; /* tick: the returns are the rows' */
    const int saved = omp_get_max_threads();
    setenv("RAID_CSV_BLOCK", "4096", 1);
    setenv("RAID_REALIZED_POOL", "0", 1);
    setenv("RAID_REALIZED_PART", "0", 1);
    raid_realized_table *one = table_of_csv(cpu, NULL, in, &o, (size_t)1 << 24);
    unsetenv("RAID_REALIZED_POOL");
    char *want = csv_of(one);
    const size_t nrows = raid_realized_table_nrows(one);
    assert_int_equal(nrows, 12);
    assert_true(raid_realized_table_n(one)[2] > 2 << 15); /* A's third day (rows by symbol, then date) */
    static const int threads[] = {1, 2, 16};
    static const char *parts[] = {"1", "5000", NULL, "0"};
    for (size_t ti = 0; ti < 3; ti++) {
        omp_set_num_threads(threads[ti]);
        for (size_t pi = 0; pi < 4; pi++) {
            if (parts[pi])
                setenv("RAID_REALIZED_PART", parts[pi], 1);
            else
                unsetenv("RAID_REALIZED_PART");
            raid_realized_table *tab = table_of_csv(cpu, NULL, in, &o, pi == 1 ? 20000 : (size_t)1 << 24);
            char *got = csv_of(tab);
            assert_string_equal(got, want);
            assert_int_equal(raid_realized_table_nrows(tab), nrows);
            for (int k = 0; k < RAID_REALIZED_NMEASURES; k++)
                assert_memory_equal(raid_realized_table_column(tab, k), raid_realized_table_column(one, k),
                                    nrows * sizeof(double));
            free(got);
            raid_realized_table_destroy(tab);
        }
    }
    free(want);
    raid_realized_table_destroy(one);

    /* a bad price on the last day, after parts of the days before are in flight */
    char *text = t_read_file(in);
    assert_non_null(text);
    char *last = strstr(text, "2020-01-09T09:00:00.000000,"), *row = last;
    assert_non_null(last);
    while (row[-1] != '\n')
        row--;
    size_t line = 1;
    for (const char *c = text; c < row; c++)
        line += *c == '\n';
    char *comma = strchr(last, ',');
    const char *bad = t_tmppath("long_bad.csv");
    FILE *f = fopen(bad, "w");
    assert_non_null(f);
    fprintf(f, "%.*s,-1%s", (int)(comma - text), text, strchr(comma, '\n'));
    assert_int_equal(fclose(f), 0);
    free(text);
    char msg[128];
    snprintf(msg, sizeof msg, "long_bad.csv:%zu:3: price must be positive and finite: '-1'", line);
    setenv("RAID_REALIZED_PART", "1000", 1);
    for (size_t ti = 0; ti < 3; ti++) {
        omp_set_num_threads(threads[ti]);
        raid_reader *rd;
        raid_realized_table *tab;
        assert_int_equal(raid_reader_open(&rd, bad, &o), RAID_OK);
        assert_int_equal(raid_realized_table_create(&tab), RAID_OK);
        int done = 0;
        assert_int_equal(raid_realized_table_add_reader(tab, cpu, NULL, rd, (size_t)1 << 24, &done), RAID_EPARSE);
        if (!strstr(raid_ctx_errmsg(cpu), msg))
            fail_msg("%d threads: '%s' lacks '%s'", threads[ti], raid_ctx_errmsg(cpu), msg);
        assert_int_equal(raid_realized_table_nrows(tab), 0);
        assert_int_equal(raid_realized_table_add_reader(tab, cpu, NULL, rd, (size_t)1 << 24, &done), RAID_EINVAL);
        assert_non_null(strstr(raid_ctx_errmsg(cpu), "an earlier add failed: "));
        raid_reader_close(rd);
        raid_realized_table_destroy(tab);
    }
    unsetenv("RAID_REALIZED_PART");
    unsetenv("RAID_CSV_BLOCK");
    omp_set_num_threads(saved);
    raid_ctx_destroy(cpu);
}

/* The check's largest differences equal those of the segments computed directly on both contexts. */
static void test_check_differences(void **state)
{
    (void)state;
    const int have_dev = t_have_opencl();
    raid_ctx *cpu = t_open_ctx("cpu");
    for (int pol = 0; pol < 2; pol++) {
        raid_ctx *dev = t_open_ctx(have_dev ? t_device() : "cpu");
        const raid_precision p = pol ? RAID_PREC_DF : RAID_PREC_F32;
        assert_int_equal(raid_ctx_set_precision(dev, p), RAID_OK);
        raid_read_opts o;
        raid_read_opts_init(&o);
        o.sample_us = 30 * 60 * 1000000LL;
        raid_realized_table *tab = table_of_csv(dev, cpu, t_data("usdchf_30min.csv"), &o, 5000);

        /* directly: every segment of the file in one batch */
        raid_reader *rd;
        assert_int_equal(raid_reader_open(&rd, t_data("usdchf_30min.csv"), &o), RAID_OK);
        raid_batch b;
        raid_batch_init(&b);
        int done = 0;
        while (!done)
            assert_int_equal(raid_reader_next(rd, &b, (size_t)1 << 30, &done), RAID_OK);
        raid_realized *x = calloc(b.nseg, sizeof *x), *y = calloc(b.nseg, sizeof *y);
        assert_int_equal(raid_realized_compute(dev, b.ret, b.offsets, b.nseg, x), RAID_OK);
        assert_int_equal(raid_realized_compute(cpu, b.ret, b.offsets, b.nseg, y), RAID_OK);
        double want[RAID_REALIZED_NMEASURES] = {0}, got[RAID_REALIZED_NMEASURES], bound[RAID_REALIZED_NMEASURES];
        int ok[RAID_REALIZED_NMEASURES];
        for (size_t s = 0; s < b.nseg; s++)
            for (int k = 0; k < RAID_REALIZED_NMEASURES; k++)
                want[k] = fmax(want[k], raid_realized_diff(&x[s], &y[s], k));
        assert_int_equal(raid_realized_table_check(tab, got, bound, ok), b.nseg);
        assert_int_equal(raid_realized_table_nrows(tab), b.nseg);
        for (int k = 0; k < RAID_REALIZED_NMEASURES; k++) {
            if (got[k] != want[k])
                fail_msg("policy %d %s: check %.17g, direct %.17g", pol, raid_realized_names[k], got[k], want[k]);
            assert_true(bound[k] == raid_realized_bound(p, k, 0));
            assert_int_equal(ok[k], got[k] <= bound[k]);
            assert_int_equal(ok[k], 1);
            if (have_dev && k < 7)
                assert_true(got[k] > 0); /* a real comparison (the device rounds differently) */
        }
        /* the measures are the device's */
        for (size_t s = 0; s < b.nseg; s++)
            assert_true(raid_realized_table_n(tab)[s] >= 0);
        free(x);
        free(y);
        raid_batch_free(&b);
        raid_reader_close(rd);
        raid_realized_table_destroy(tab);
        raid_ctx_destroy(dev);
    }
    raid_ctx_destroy(cpu);
}

/* A call on a context fails with st and a message containing part, in raid_ctx_errmsg(ctx). */
#define CTX_FAILS(ctx, call, st, part)                                                                          \
    do {                                                                                                        \
        assert_int_equal((call), (st));                                                                         \
        if (!strstr(raid_ctx_errmsg(ctx), (part)))                                                              \
            fail_msg("message '%s' lacks '%s'", raid_ctx_errmsg(ctx), (part));                                 \
    } while (0)
/* A context-free call, message in raid_errmsg(). */
#define FAILS(call, st, part)                                                                                   \
    do {                                                                                                        \
        assert_int_equal((call), (st));                                                                         \
        if (!strstr(raid_errmsg(), (part)))                                                                     \
            fail_msg("message '%s' lacks '%s'", raid_errmsg(), (part));                                        \
    } while (0)

/* --measures: the table's noise-robust columns equal raid_realized_noise_compute of the same segments,
 * bit for bit on the cpu, within raid_realized_noise_bound on a device context (its sums are the device's:
 * test_noise_device.c has the rest); the CSV has the chosen
 * columns in the order given; the nine are unchanged. Errors: names, order of calls, the entry's
 * arguments. */
static void test_noise_measures(void **state)
{
    (void)state;
    raid_ctx *cpu = t_open_ctx("cpu"), *dev = t_open_ctx(t_have_opencl() ? t_device() : "cpu");
    raid_read_opts o;
    raid_read_opts_init(&o);
    o.sample_us = 0; /* tick */
    raid_realized_table *tab[2];
    for (int d = 0; d < 2; d++) {
        raid_reader *rd;
        assert_int_equal(raid_reader_open(&rd, t_data("trades_xxx_2days.csv"), &o), RAID_OK);
        assert_int_equal(raid_realized_table_create(&tab[d]), RAID_OK);
        assert_int_equal(raid_realized_table_set_measures(tab[d], "minrv,rv,rk,rk_h,tsrv,tsrv_k,prv"), RAID_OK);
        int cols[RAID_REALIZED_NCOLUMNS];
        assert_int_equal(raid_realized_table_measures(tab[d], cols), 7);
        assert_int_equal(cols[0], 14);
        assert_int_equal(cols[1], 0);
        int done = 0;
        while (!done)
            if (raid_realized_table_add_reader(tab[d], d ? dev : cpu, NULL, rd, 1000, &done) != RAID_OK)
                fail_msg("add_reader: %s", raid_ctx_errmsg(d ? dev : cpu));
        /* after an add the choice is closed */
        FAILS(raid_realized_table_set_measures(tab[d], "rv"), RAID_EINVAL, "before the first add");
        raid_reader_close(rd);
        assert_int_equal(raid_realized_table_finish(tab[d]), RAID_OK);
    }
    const size_t n = raid_realized_table_nrows(tab[0]);
    assert_int_equal(n, 2);
    for (size_t i = 0; i < n; i++) { /* a device's within raid_realized_noise_bound of the cpu path's */
        raid_realized_noise x[2];
        for (int d = 0; d < 2; d++) {
            const double *c[RAID_REALIZED_NOISE_NMEASURES];
            for (int k = 0; k < RAID_REALIZED_NOISE_NMEASURES; k++)
                c[k] = raid_realized_table_column(tab[d], RAID_REALIZED_NMEASURES + k);
            x[d] = (raid_realized_noise){raid_realized_table_n(tab[d])[i], c[0][i], c[1][i], c[2][i], c[3][i], c[4][i],
                                         c[5][i]};
        }
        const double rv = raid_realized_table_column(tab[0], 0)[i];
        for (int k = 0; k < RAID_REALIZED_NOISE_NMEASURES; k++)
            if (!(raid_realized_noise_diff(&x[1], &x[0], k, rv) <= raid_realized_noise_bound(raid_ctx_precision(dev), k, 0)))
                fail_msg("row %zu %s: %.17g against the cpu's %.17g", i, raid_realized_noise_names[k],
                         raid_realized_noise_get(&x[1], k), raid_realized_noise_get(&x[0], k));
    }
    /* the returns of the day directly: the same values */
    raid_reader *rd;
    assert_int_equal(raid_reader_open(&rd, t_data("trades_xxx_2days.csv"), &o), RAID_OK);
    raid_batch b;
    raid_batch_init(&b);
    int done = 0;
    assert_int_equal(raid_reader_next(rd, &b, (size_t)1 << 24, &done), RAID_OK);
    assert_int_equal(b.nseg, 2);
    raid_realized_noise nz[2];
    assert_int_equal(raid_realized_noise_compute(cpu, b.ret, b.offsets, 2, nz), RAID_OK);
    for (size_t i = 0; i < 2; i++)
        for (int k = 0; k < RAID_REALIZED_NOISE_NMEASURES; k++) {
            const double x = raid_realized_table_column(tab[0], RAID_REALIZED_NMEASURES + k)[i];
            const double y = raid_realized_noise_get(&nz[i], k);
            assert_memory_equal(&x, &y, sizeof x);
        }
    assert_true(nz[0].rk > 0 && nz[0].rk_h >= 1 && nz[0].tsrv_k >= 2 && nz[0].prv > 0 && nz[0].minrv > 0);
    char *csv = csv_of(tab[0]);
    assert_memory_equal(csv, "symbol,date,n,minrv,rv,rk,rk_h,tsrv,tsrv_k,prv\nXXX,2018-01-02,3690,",
                        strlen("symbol,date,n,minrv,rv,rk,rk_h,tsrv,tsrv_k,prv\nXXX,2018-01-02,3690,"));
    free(csv);

    /* the default: the nine, no noise columns */
    raid_realized_table *plain;
    assert_int_equal(raid_realized_table_create(&plain), RAID_OK);
    assert_int_equal(raid_realized_table_measures(plain, NULL), RAID_REALIZED_NMEASURES);
    FAILS(raid_realized_table_set_measures(plain, "rv,RV"), RAID_EINVAL,
          "unknown measure 'RV' (valid: rv, bpv, rs_neg, rs_pos, rq, tpq, medrv, jump_z, jump_p, rk, rk_h, tsrv, "
          "tsrv_k, prv, minrv)");
    FAILS(raid_realized_table_set_measures(plain, "rk,prv,rk"), RAID_EINVAL, "measure 'rk' given twice");
    FAILS(raid_realized_table_set_measures(plain, "rv,,bpv"), RAID_EINVAL, "an empty name");
    FAILS(raid_realized_table_set_measures(plain, ""), RAID_EINVAL, "empty list of measures");
    FAILS(raid_realized_table_set_measures(NULL, "rv"), RAID_EINVAL, "NULL");
    assert_int_equal(raid_realized_table_measures(plain, NULL), RAID_REALIZED_NMEASURES); /* unchanged */
    raid_realized_table_destroy(plain);
    assert_null(raid_realized_column_name(-1));
    assert_null(raid_realized_column_name(RAID_REALIZED_NCOLUMNS));
    assert_string_equal(raid_realized_column_name(9), "rk");

    /* the entry's arguments */
    FAILS(raid_realized_noise_compute(NULL, b.ret, b.offsets, 2, nz), RAID_EINVAL, "ctx is NULL");
    CTX_FAILS(cpu, raid_realized_noise_compute(cpu, b.ret, b.offsets, 2, NULL), RAID_EINVAL, "NULL argument");
    const double bad[4] = {1e-3, 2e-3, INFINITY, 1e-3};
    const int64_t off[2] = {0, 4}, dec[3] = {0, 3, 2};
    CTX_FAILS(cpu, raid_realized_noise_compute(cpu, bad, off, 1, nz), RAID_EINVAL, "return 2 is not finite");
    CTX_FAILS(cpu, raid_realized_noise_compute(cpu, bad, dec, 2, nz), RAID_EINVAL, "offsets decrease at segment 1");
    const int64_t none[3] = {5, 5, 5};
    assert_int_equal(raid_realized_noise_compute(cpu, NULL, none, 2, nz), RAID_OK);
    assert_int_equal(nz[1].n, 0);
    assert_true(isnan(nz[1].rk) && isnan(nz[1].minrv) && isnan(nz[1].prv));

    raid_batch_free(&b);
    raid_reader_close(rd);
    raid_realized_table_destroy(tab[0]);
    raid_realized_table_destroy(tab[1]);
    raid_ctx_destroy(cpu);
    raid_ctx_destroy(dev);
}

static void test_errors(void **state)
{
    (void)state;
    raid_ctx *cpu = t_open_ctx("cpu");
    raid_realized_table *tab;
    FAILS(raid_realized_table_create(NULL), RAID_EINVAL, "raid_realized_table_create: NULL");
    assert_int_equal(raid_realized_table_create(&tab), RAID_OK);
    const char *in = t_tmppath("errors.csv");
    assert_int_equal(t_write_file(in, INTERLEAVED), 0);
    raid_read_opts o;
    raid_read_opts_init(&o);
    o.sample_us = 0;
    raid_reader *rd, *rd2;
    assert_int_equal(raid_reader_open(&rd, in, &o), RAID_OK);
    assert_int_equal(raid_reader_open(&rd2, in, &o), RAID_OK);
    int done = 0;

    /* NULL arguments */
    FAILS(raid_realized_table_add_reader(tab, NULL, NULL, rd, 10, &done), RAID_EINVAL, "ctx is NULL");
    CTX_FAILS(cpu, raid_realized_table_add_reader(NULL, cpu, NULL, rd, 10, &done), RAID_EINVAL, "NULL argument");
    CTX_FAILS(cpu, raid_realized_table_add_reader(tab, cpu, NULL, NULL, 10, &done), RAID_EINVAL, "NULL argument");
    CTX_FAILS(cpu, raid_realized_table_add_reader(tab, cpu, NULL, rd, 10, NULL), RAID_EINVAL, "NULL argument");
    CTX_FAILS(cpu, raid_realized_table_add_reader(tab, cpu, NULL, rd, 0, &done), RAID_EINVAL, "max_returns is 0");
    CTX_FAILS(cpu, raid_realized_table_add_ticks(tab, cpu, NULL, NULL, 1), RAID_EINVAL,
              "raid_realized_table_add_ticks: NULL argument");
    FAILS(raid_realized_table_finish(NULL), RAID_EINVAL, "raid_realized_table_finish: NULL");
    FAILS(raid_realized_table_write_csv(NULL, stdout), RAID_EINVAL, "NULL");
    FAILS(raid_realized_table_write_csv(tab, NULL), RAID_EINVAL, "NULL");
    assert_int_equal(raid_realized_table_nrows(NULL), 0);
    assert_null(raid_realized_table_symbol(NULL, 0));
    assert_null(raid_realized_table_dates(tab)); /* no rows yet */
    assert_int_equal(raid_realized_table_check(NULL, NULL, NULL, NULL), 0);
    raid_realized_table_destroy(NULL);

    /* the check's context must be the cpu backend */
    if (t_have_opencl()) {
        raid_ctx *dev = t_open_ctx(t_device());
        CTX_FAILS(cpu, raid_realized_table_add_reader(tab, cpu, dev, rd, 10, &done), RAID_EINVAL,
                  "not the float64 cpu backend");
        raid_ctx_destroy(dev);
    }

    /* out of order: write before finish; a second source before the first is exhausted; finish then */
    FAILS(raid_realized_table_write_csv(tab, stdout), RAID_EINVAL, "the table is not finished");
    assert_int_equal(raid_realized_table_add_reader(tab, cpu, NULL, rd, 1, &done), RAID_OK);
    assert_int_equal(done, 0);
    const size_t n1 = raid_realized_table_nrows(tab);
    assert_true(n1 >= 1);
    CTX_FAILS(cpu, raid_realized_table_add_reader(tab, cpu, NULL, rd2, 1, &done), RAID_EINVAL,
              "another source is not yet exhausted");
    FAILS(raid_realized_table_finish(tab), RAID_EINVAL, "a source is not yet exhausted");
    assert_int_equal(raid_realized_table_nrows(tab), n1); /* nothing changed */
    /* a check on a second policy */
    raid_ctx *df = t_open_ctx("cpu"), *f32 = t_open_ctx("cpu");
    assert_int_equal(raid_ctx_set_precision(f32, RAID_PREC_F32), RAID_OK);
    assert_int_equal(raid_realized_table_add_reader(tab, df, cpu, rd, 1, &done), RAID_OK);
    CTX_FAILS(f32, raid_realized_table_add_reader(tab, f32, cpu, rd, 1, &done), RAID_EINVAL,
              "two precision policies");
    while (!done)
        assert_int_equal(raid_realized_table_add_reader(tab, cpu, NULL, rd, 1, &done), RAID_OK);
    /* now a second source may follow: its rows are the same (symbol, date) pairs, kept in order of addition */
    done = 0;
    while (!done)
        assert_int_equal(raid_realized_table_add_reader(tab, cpu, NULL, rd2, 100, &done), RAID_OK);
    assert_int_equal(raid_realized_table_nrows(tab), 8);
    assert_int_equal(raid_realized_table_finish(tab), RAID_OK);
    assert_string_equal(raid_realized_table_symbol(tab, 2), "B");
    assert_string_equal(raid_realized_table_symbol(tab, 3), "B");
    assert_int_equal(raid_realized_table_dates(tab)[3], 20200102);
    FAILS(raid_realized_table_finish(tab), RAID_EINVAL, "already finished");
    CTX_FAILS(cpu, raid_realized_table_add_reader(tab, cpu, NULL, rd, 1, &done), RAID_EINVAL,
              "the table is finished");
    raid_reader_close(rd);
    raid_reader_close(rd2);
    raid_realized_table_destroy(tab);

    /* a failing source: its message on the context, the table incomplete from then on */
    const char *bad = t_tmppath("bad.csv");
    assert_int_equal(t_write_file(bad, "symbol,timestamp,price\nA,2020-01-02T10:00:00,100\n"
                                       "A,2020-01-03T10:00:00,100\nA,2020-01-03T10:01:00,-1\n"),
                     0);
    assert_int_equal(raid_reader_open(&rd, bad, &o), RAID_OK);
    assert_int_equal(raid_realized_table_create(&tab), RAID_OK);
    done = 0;
    CTX_FAILS(cpu, raid_realized_table_add_reader(tab, cpu, NULL, rd, 1 << 20, &done), RAID_EPARSE,
              "bad.csv:4:3: price must be positive and finite: '-1'");
    assert_string_equal(raid_errmsg(), raid_ctx_errmsg(cpu));
    CTX_FAILS(cpu, raid_realized_table_add_reader(tab, cpu, NULL, rd, 1 << 20, &done), RAID_EINVAL,
              "the table is incomplete: an earlier add failed: ");
    FAILS(raid_realized_table_finish(tab), RAID_EINVAL, "an earlier add failed: ");
    FAILS(raid_realized_table_finish(tab), RAID_EINVAL, "price must be positive");
    raid_reader_close(rd);
    raid_realized_table_destroy(tab);
    /* the same in parts: the parts before the failing one take their rows and check back (no row added) */
    assert_int_equal(t_write_file(bad, "symbol,timestamp,price\nA,2020-01-02T10:00:00,100\n"
                                       "A,2020-01-02T10:01:00,101\nA,2020-01-03T10:00:00,100\n"
                                       "A,2020-01-04T10:00:00,100\nA,2020-01-04T10:01:00,-1\n"),
                     0);
    setenv("RAID_REALIZED_PART", "1", 1);
    assert_int_equal(raid_reader_open(&rd, bad, &o), RAID_OK);
    assert_int_equal(raid_realized_table_create(&tab), RAID_OK);
    unsetenv("RAID_REALIZED_PART");
    done = 0;
    CTX_FAILS(cpu, raid_realized_table_add_reader(tab, cpu, cpu, rd, 1 << 20, &done), RAID_EPARSE,
              "bad.csv:6:3: price must be positive and finite: '-1'");
    assert_int_equal(raid_realized_table_nrows(tab), 0);
    assert_int_equal(raid_realized_table_check(tab, NULL, NULL, NULL), 0);
    FAILS(raid_realized_table_finish(tab), RAID_EINVAL, "price must be positive");
    raid_reader_close(rd);
    raid_realized_table_destroy(tab);

    raid_ctx_destroy(df);
    raid_ctx_destroy(f32);
    raid_ctx_destroy(cpu);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reader_equals_cli),
        cmocka_unit_test(test_ticks_equal_csv),
        cmocka_unit_test(test_parts_on_reader_threads),
        cmocka_unit_test(test_check_differences),
        cmocka_unit_test(test_noise_measures),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
