/* raid_ticks (src/io/ticks.c): prices given as arrays give the same segments and returns, bit for bit, as
 * the same data read from CSV (the CSV reader is built on the same segmenter): real data files, naive and
 * UTC timestamps (with a time zone across a DST change), sessions (also across midnight), sampling grids,
 * interleaved symbols; and the errors with their messages. */
#define _POSIX_C_SOURCE 200809L
#include "support.h"
#include "raid.h"
#include "io/tz.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct segs {
    raid_batch b;
    char **names; /* symbol names by index */
    size_t nnames;
    size_t nnotices;
} segs;

static void segs_free(segs *s)
{
    raid_batch_free(&s->b);
    for (size_t i = 0; i < s->nnames; i++)
        free(s->names[i]);
    free(s->names);
    memset(s, 0, sizeof *s);
}

static void keep_names(segs *s, const char *(*name)(const void *, uint32_t), const void *h)
{
    for (uint32_t i = 0;; i++) {
        const char *nm = name(h, i);
        if (!nm)
            break;
        s->names = realloc(s->names, (s->nnames + 1) * sizeof *s->names);
        assert_non_null(s->names);
        s->names[s->nnames++] = strdup(nm);
    }
}

static raid_status push_text_file(const char *path, const raid_read_opts *o, segs *out);

static const char *rd_name(const void *h, uint32_t i) { return raid_reader_symbol(h, i); }
static const char *tk_name(const void *h, uint32_t i) { return raid_ticks_symbol(h, i); }

static void read_csv(const char *path, const raid_read_opts *o, segs *out)
{
    memset(out, 0, sizeof *out);
    raid_batch_init(&out->b);
    raid_reader *rd = NULL;
    if (raid_reader_open(&rd, path, o) != RAID_OK)
        fail_msg("%s", raid_errmsg());
    int done = 0;
    while (!done)
        if (raid_reader_next(rd, &out->b, 1000, &done) != RAID_OK)
            fail_msg("%s", raid_errmsg());
    keep_names(out, rd_name, rd);
    out->nnotices = raid_reader_notice_count(rd);
    raid_reader_close(rd);
}

/* A table of rows: symbol, time (us), price. */
typedef struct rows {
    char (*sym)[16];
    int64_t *t;
    double *p;
    size_t n, cap;
} rows;

static void rows_add(rows *r, const char *sym, int64_t t, double p)
{
    if (r->n == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 1024;
        r->sym = realloc(r->sym, r->cap * sizeof *r->sym);
        r->t = realloc(r->t, r->cap * sizeof *r->t);
        r->p = realloc(r->p, r->cap * sizeof *r->p);
        assert_true(r->sym && r->t && r->p);
    }
    snprintf(r->sym[r->n], sizeof r->sym[r->n], "%s", sym);
    r->t[r->n] = t;
    r->p[r->n] = p;
    r->n++;
}

static void rows_free(rows *r)
{
    free(r->sym);
    free(r->t);
    free(r->p);
    memset(r, 0, sizeof *r);
}

/* Push the rows in runs of one symbol (taking complete segments now and then), then finish. */
static raid_status push_rows(const rows *r, const raid_read_opts *o, int utc, segs *out)
{
    memset(out, 0, sizeof *out);
    raid_batch_init(&out->b);
    raid_ticks *tk = NULL;
    raid_status s = raid_ticks_create(&tk, o);
    if (s != RAID_OK)
        return s;
    size_t i = 0, runs = 0;
    while (i < r->n) {
        size_t j = i + 1;
        while (j < r->n && strcmp(r->sym[j], r->sym[i]) == 0)
            j++;
        if ((s = raid_ticks_push(tk, r->sym[i], r->t + i, utc, r->p + i, j - i)) != RAID_OK)
            goto out;
        if (++runs % 7 == 0 && (s = raid_ticks_take(tk, &out->b, 0)) != RAID_OK)
            goto out;
        i = j;
    }
    s = raid_ticks_take(tk, &out->b, 1);
    /* Finished: nothing more comes, and no further rows are taken. */
    if (s == RAID_OK) {
        size_t nseg = out->b.nseg;
        assert_int_equal(raid_ticks_take(tk, &out->b, 1), RAID_OK);
        assert_int_equal(out->b.nseg, nseg);
        assert_int_equal(raid_ticks_push(tk, "A", r->t, 0, r->p, 1), RAID_EINVAL);
    }
    keep_names(out, tk_name, tk);
    out->nnotices = raid_ticks_notice_count(tk);
out:
    raid_ticks_destroy(tk);
    return s;
}

/* Push the rows with raid_ticks_push_coded in blocks of 1,000 (a block cuts runs of one symbol anywhere),
 * taking complete segments after each block, then finish. */
static raid_status push_coded(const rows *r, const raid_read_opts *o, int utc, segs *out)
{
    memset(out, 0, sizeof *out);
    raid_batch_init(&out->b);
    raid_ticks *tk = NULL;
    raid_status s = raid_ticks_create(&tk, o);
    if (s != RAID_OK)
        return s;
    const char **names = malloc((r->n + 1) * sizeof *names);
    uint32_t *code = malloc((r->n + 1) * sizeof *code);
    assert_true(names && code);
    size_t nnames = 0;
    for (size_t i = 0; i < r->n; i++) { /* codes in order of first appearance */
        size_t k = 0;
        while (k < nnames && strcmp(names[k], r->sym[i]))
            k++;
        if (k == nnames)
            names[nnames++] = r->sym[i];
        code[i] = (uint32_t)k;
    }
    for (size_t i = 0; i < r->n && s == RAID_OK; i += 1000) {
        const size_t k = r->n - i < 1000 ? r->n - i : 1000;
        s = raid_ticks_push_coded(tk, names, nnames, code + i, r->t + i, utc, NULL, r->p + i, k);
        if (s == RAID_OK)
            s = raid_ticks_take(tk, &out->b, 0);
    }
    if (s == RAID_OK)
        s = raid_ticks_take(tk, &out->b, 1);
    if (s == RAID_OK) {
        keep_names(out, tk_name, tk);
        out->nnotices = raid_ticks_notice_count(tk);
    }
    free(names), free(code);
    raid_ticks_destroy(tk);
    return s;
}

static void expect_same(const segs *a, const segs *b)
{
    assert_int_equal(a->b.nseg, b->b.nseg);
    assert_int_equal(a->b.nret, b->b.nret);
    assert_int_equal(a->nnames, b->nnames);
    assert_int_equal(a->nnotices, b->nnotices);
    for (size_t i = 0; i < a->nnames; i++)
        assert_string_equal(a->names[i], b->names[i]);
    if (a->b.nseg) {
        assert_memory_equal(a->b.offsets, b->b.offsets, (a->b.nseg + 1) * sizeof *a->b.offsets);
        assert_memory_equal(a->b.symbol, b->b.symbol, a->b.nseg * sizeof *a->b.symbol);
        assert_memory_equal(a->b.date, b->b.date, a->b.nseg * sizeof *a->b.date);
    }
    if (a->b.nret) /* bit for bit */
        assert_memory_equal(a->b.ret, b->b.ret, a->b.nret * sizeof *a->b.ret);
}

/* Load a data file "symbol,timestamp,price[,...]" with naive timestamps. */
static void load_file(const char *path, rows *r)
{
    char *text = t_read_file(path);
    assert_non_null(text);
    char *save = NULL;
    int first = 1;
    for (char *line = strtok_r(text, "\r\n", &save); line; line = strtok_r(NULL, "\r\n", &save)) {
        if (first) {
            first = 0;
            continue;
        }
        char *c1 = strchr(line, ','), *c2 = c1 ? strchr(c1 + 1, ',') : NULL;
        assert_non_null(c2);
        *c1 = 0;
        *c2 = 0;
        char *c3 = strchr(c2 + 1, ',');
        if (c3)
            *c3 = 0;
        RaidIoTs ts;
        assert_int_equal(raidIoParseTimestamp(c1 + 1, strlen(c1 + 1), &ts), 0);
        assert_int_equal(ts.has_offset, 0);
        rows_add(r, line, ts.wall_us, strtod(c2 + 1, NULL));
    }
    free(text);
}

static raid_read_opts opts(int64_t sample_us, const char *session, const char *tz)
{
    raid_read_opts o;
    raid_read_opts_init(&o);
    o.sample_us = sample_us;
    o.tz = tz;
    if (session)
        assert_int_equal(raid_parse_session(session, &o.session_start_s, &o.session_end_s), RAID_OK);
    return o;
}

static void same_on_file(const char *name, const raid_read_opts *o)
{
    rows r = {0};
    load_file(t_data(name), &r);
    segs a, b;
    read_csv(t_data(name), o, &a);
    assert_int_equal(push_rows(&r, o, 0, &b), RAID_OK);
    assert_true(a.b.nseg > 0);
    expect_same(&a, &b);
    segs_free(&b);
    assert_int_equal(push_text_file(t_data(name), o, &b), RAID_OK); /* the file's own text, parsed */
    expect_same(&a, &b);
    segs_free(&b);
    assert_int_equal(push_coded(&r, o, 0, &b), RAID_OK); /* interleaved rows in blocks, one call a block */
    expect_same(&a, &b);
    segs_free(&a);
    segs_free(&b);
    rows_free(&r);
}

static void test_real_files(void **st)
{
    (void)st;
    raid_read_opts o = opts(INT64_C(300000000), "09:30-16:00", NULL);
    same_on_file("onemin_stock_market.csv", &o);
    o = opts(0, NULL, NULL);
    same_on_file("trades_xxx_2days.csv", &o);
    o = opts(INT64_C(1800000000), NULL, NULL);
    same_on_file("usdchf_30min.csv", &o);
    o = opts(INT64_C(3600000000), "17:00-16:00", NULL); /* FX session across midnight */
    same_on_file("usdchf_30min.csv", &o);
    o = opts(INT64_C(300000000), NULL, NULL); /* a grid finer than the data: a notice both ways */
    same_on_file("usdchf_30min.csv", &o);
}

/* "YYYY-MM-DDTHH:MM:SS.ffffff" of wall-clock microseconds. */
static void fmt_wall(char *buf, size_t len, int64_t t)
{
    const int64_t day = raidIoFloordiv(t, RAID_US_PER_DAY), tod = t - day * RAID_US_PER_DAY;
    int64_t y;
    int m, d;
    raidIoCivilFromDays(day, &y, &m, &d);
    const int64_t s = tod / 1000000;
    snprintf(buf, len, "%04" PRId64 "-%02d-%02dT%02d:%02d:%02d.%06d", y, m, d, (int)(s / 3600), (int)(s / 60 % 60),
             (int)(s % 60), (int)(tod % 1000000));
}

/* Random rows of 3 interleaved symbols over 5 days around the US DST change of 2020-03-08, written to a
 * CSV with naive timestamps (offset = NULL), or as UTC instants with the given offset suffix ("Z",
 * "+05:30": the wall clock then is the instant plus the offset). */
static const char *synth(rows *r, const char *offset, int32_t offset_s)
{
    static const char *syms[] = {"AAA", "BB\xC3\xA9", "C"};
    int64_t t[3];
    double p[3] = {100, 20, 3000};
    uint64_t x = 88172645463325252u;
    for (int k = 0; k < 3; k++)
        t[k] = raidIoDaysFromCivil(2020, 3, 6) * RAID_US_PER_DAY + (int64_t)k * 7000000;
    const int64_t end = raidIoDaysFromCivil(2020, 3, 11) * RAID_US_PER_DAY;
    char *csv = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&csv, &len);
    assert_non_null(f);
    fputs("symbol,timestamp,price\n", f);
    int k = 0;
    while (t[0] < end || t[1] < end || t[2] < end) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        k = (int)(x % 3);
        int run = 1 + (int)(x >> 8) % 40;
        for (int i = 0; i < run && t[k] < end; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            t[k] += (int64_t)(x % 240000000); /* 0 to 4 minutes, equal times included */
            p[k] *= exp(((double)(x >> 40) / 16777216.0 - 0.5) * 4e-3);
            rows_add(r, syms[k], t[k], p[k]);
            char ts[48];
            if (offset && strcmp(offset, "mixed") == 0) { /* every form of offset, 't' and 'z' too */
                static const struct { const char *sfx; int32_t s; } mix[] = {
                    {"Z", 0}, {"z", 0}, {"+05:30", 19800}, {"-0800", -28800}, {"+01", 3600}, {"-00:00", 0}};
                const int m = (int)((x >> 20) % 6);
                fmt_wall(ts, sizeof ts, t[k] + (int64_t)mix[m].s * 1000000);
                if (m == 1)
                    ts[10] = 't';
                fprintf(f, "%s,%s%s,%.17g\n", syms[k], ts, mix[m].sfx, p[k]);
            } else {
                fmt_wall(ts, sizeof ts, t[k] + (int64_t)offset_s * 1000000);
                fprintf(f, "%s,%s%s,%.17g\n", syms[k], ts, offset ? offset : "", p[k]);
            }
        }
    }
    fclose(f);
    const char *path = t_tmppath("synth.csv");
    assert_int_equal(t_write_file(path, csv), 0);
    free(csv);
    return path;
}

/* The rows of a CSV file written by synth (or a real file: symbol,timestamp,price, no quotes) pushed as
 * text through raid_ticks_push_text, in runs of one symbol. */
static raid_status push_text_file(const char *path, const raid_read_opts *o, segs *out)
{
    memset(out, 0, sizeof *out);
    raid_batch_init(&out->b);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    size_t n = 0, cap = 0;
    char **sym = NULL, **ts = NULL;
    double *p = NULL;
    char line[256];
    assert_non_null(fgets(line, sizeof line, f)); /* header */
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = 0;
        char *c1 = strchr(line, ','), *c2 = c1 ? strchr(c1 + 1, ',') : NULL;
        assert_true(c1 && c2);
        *c1 = *c2 = 0;
        if (n == cap) {
            cap = cap ? 2 * cap : 1024;
            sym = realloc(sym, cap * sizeof *sym);
            ts = realloc(ts, cap * sizeof *ts);
            p = realloc(p, cap * sizeof *p);
            assert_true(sym && ts && p);
        }
        sym[n] = strdup(line);
        ts[n] = strdup(c1 + 1);
        p[n] = strtod(c2 + 1, NULL);
        n++;
    }
    fclose(f);
    raid_ticks *tk = NULL;
    raid_status s = raid_ticks_create(&tk, o);
    assert_int_equal(s, RAID_OK);
    for (size_t i = 0; i < n && s == RAID_OK;) {
        size_t j = i + 1;
        while (j < n && strcmp(sym[j], sym[i]) == 0)
            j++;
        s = raid_ticks_push_text(tk, sym[i], (const char *const *)ts + i, p + i, j - i);
        i = j;
    }
    if (s == RAID_OK)
        s = raid_ticks_take(tk, &out->b, 1);
    if (s == RAID_OK) {
        keep_names(out, tk_name, tk);
        out->nnotices = raid_ticks_notice_count(tk);
    }
    raid_ticks_destroy(tk);
    for (size_t i = 0; i < n; i++) {
        free(sym[i]);
        free(ts[i]);
    }
    free(sym);
    free(ts);
    free(p);
    return s;
}

static void same_synth(const char *offset, int32_t offset_s, int utc)
{
    static const struct {
        int64_t sample_us;
        const char *session, *tz;
    } cases[] = {{0, NULL, NULL},
                 {300000000, NULL, NULL},
                 {60000000, "09:30-16:00", "America/New_York"},
                 {420000000, "18:00-17:00", "America/New_York"},
                 {1000000, "22:00-06:00", "Europe/Zurich"},
                 {0, "17:00-16:00", "Asia/Tokyo"}};
    rows r = {0};
    const char *path = synth(&r, offset, offset_s);
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        raid_read_opts o = opts(cases[c].sample_us, cases[c].session, cases[c].tz);
        segs a, b;
        read_csv(path, &o, &a);
        if (utc >= 0) {
            assert_int_equal(push_rows(&r, &o, utc, &b), RAID_OK);
            assert_true(a.b.nseg >= 3);
            expect_same(&a, &b);
            segs_free(&b);
        }
        /* the same text through raid_ticks_push_text: the CSV reader's parser, bit for bit */
        assert_int_equal(push_text_file(path, &o, &b), RAID_OK);
        expect_same(&a, &b);
        segs_free(&a);
        segs_free(&b);
    }
    rows_free(&r);
}

static void test_naive(void **st)
{
    (void)st;
    same_synth(NULL, 0, 0);
}

static void test_utc(void **st)
{
    (void)st;
    same_synth("Z", 0, 1);
    same_synth("+05:30", 19800, 1);
    same_synth("-0800", -28800, 1);
    same_synth("mixed", 0, -1); /* offsets of every form in one column: text only */
}

/* raid_ticks_push_text's own errors: the row, the symbol and the text; the times quoted as given. */
static void test_text_errors(void **st)
{
    (void)st;
    raid_ticks *tk = NULL;
    const double p[] = {100, 101, 102};
    const char *bad[] = {"2020-01-02T09:30:00", "2020-01-02 09:31", NULL};
    assert_int_equal(raid_ticks_create(&tk, NULL), RAID_OK);
    assert_int_equal(raid_ticks_push_text(tk, "A", bad, p, 2), RAID_EPARSE);
    assert_string_equal(raid_errmsg(), "row 1 (symbol 'A'): cannot parse timestamp '2020-01-02 09:31'");
    raid_ticks_destroy(tk);
    assert_int_equal(raid_ticks_create(&tk, NULL), RAID_OK);
    const char *nul[] = {NULL};
    assert_int_equal(raid_ticks_push_text(tk, "A", nul, p, 1), RAID_EPARSE);
    assert_string_equal(raid_errmsg(), "row 0 (symbol 'A'): missing timestamp (NULL)");
    raid_ticks_destroy(tk);
    const char *rejected[] = {"2020-01-02T0931", "20200102T093100", "2020-1-2T09:31:00", "2020-01-02",
                              "09:31:00 +01:00", "2020-01-02T09:31:00+1", "2020-01-02T24:00:00"};
    for (size_t i = 0; i < sizeof rejected / sizeof *rejected; i++) {
        assert_int_equal(raid_ticks_create(&tk, NULL), RAID_OK);
        assert_int_equal(raid_ticks_push_text(tk, "A", rejected + i, p, 1), RAID_EPARSE);
        raid_ticks_destroy(tk);
    }
    /* backwards across an offset: both texts as given */
    const char *back[] = {"2020-01-02T09:30:00Z", "2020-01-02T10:00:00+01:00"};
    assert_int_equal(raid_ticks_create(&tk, NULL), RAID_OK);
    assert_int_equal(raid_ticks_push_text(tk, "A", back, p, 2), RAID_EPARSE);
    assert_string_equal(raid_errmsg(), "row 1 (symbol 'A'): time goes backwards: '2020-01-02T10:00:00+01:00' before "
                                       "'2020-01-02T09:30:00Z' (row 0)");
    raid_ticks_destroy(tk);
    /* raid_ticks_push after a UTC row, without an offset: each time shown as it was given (a Z on UTC) */
    const int64_t d = raidIoDaysFromCivil(2020, 1, 2) * RAID_US_PER_DAY;
    const int64_t t1 = d + 36000000000, t0 = d + 35000000000;
    assert_int_equal(raid_ticks_create(&tk, NULL), RAID_OK);
    assert_int_equal(raid_ticks_push(tk, "A", &t1, 1, p, 1), RAID_OK);
    assert_int_equal(raid_ticks_push(tk, "A", &t0, 0, p, 1), RAID_EPARSE);
    assert_string_equal(raid_errmsg(), "row 1 (symbol 'A'): time goes backwards: 2020-01-02T09:43:20 before "
                                       "2020-01-02T10:00:00Z (row 0)");
    raid_ticks_destroy(tk);
}

static void test_errors(void **st)
{
    (void)st;
    raid_ticks *tk = NULL;
    raid_read_opts o = opts(0, NULL, NULL);
    o.kind = RAID_INPUT_RETURNS;
    assert_int_equal(raid_ticks_create(&tk, &o), RAID_EINVAL);
    assert_null(tk);
    assert_string_equal(raid_errmsg(), "raid_ticks_create: o->kind must be RAID_INPUT_PRICES");
    o = opts(0, NULL, "Nowhere/Land");
    assert_int_equal(raid_ticks_create(&tk, &o), RAID_EINVAL);
    assert_string_equal(raid_errmsg(), "unknown time zone 'Nowhere/Land'");
    o = opts(-1, NULL, NULL);
    assert_int_equal(raid_ticks_create(&tk, &o), RAID_EINVAL);
    assert_string_equal(raid_errmsg(), "raid_ticks_create: sampling interval out of range");

    const int64_t d = raidIoDaysFromCivil(2020, 1, 2) * RAID_US_PER_DAY;
    const int64_t t[] = {d + 36000000000, d + 36001000000, d + 35999999999};
    const double p[] = {100, 101, 102}, bad[] = {100, -1.5, NAN};
    raid_batch b;
    raid_batch_init(&b);

    /* Time backwards: rows counted over every push; the times shown naive, or UTC with Z. */
    assert_int_equal(raid_ticks_create(&tk, NULL), RAID_OK);
    assert_int_equal(raid_ticks_push(tk, "B", t, 0, p, 1), RAID_OK);
    assert_int_equal(raid_ticks_push(tk, "A", t, 0, p, 3), RAID_EPARSE);
    assert_string_equal(raid_errmsg(), "row 3 (symbol 'A'): time goes backwards: 2020-01-02T09:59:59.999999 before "
                                       "2020-01-02T10:00:01 (row 2)");
    /* Sticky: the same status and message. */
    assert_int_equal(raid_ticks_push(tk, "C", t, 0, p, 1), RAID_EPARSE);
    assert_int_equal(raid_ticks_take(tk, &b, 1), RAID_EPARSE);
    assert_string_equal(raid_errmsg(), "row 3 (symbol 'A'): time goes backwards: 2020-01-02T09:59:59.999999 before "
                                       "2020-01-02T10:00:01 (row 2)");
    raid_ticks_destroy(tk);
    assert_int_equal(raid_ticks_create(&tk, NULL), RAID_OK);
    assert_int_equal(raid_ticks_push(tk, "A", t + 1, 1, p, 2), RAID_EPARSE);
    assert_string_equal(raid_errmsg(), "row 1 (symbol 'A'): time goes backwards: 2020-01-02T09:59:59.999999Z before "
                                       "2020-01-02T10:00:01Z (row 0)");
    raid_ticks_destroy(tk);

    /* The coded push: a code out of range names the row; NULL arrays; its row numbers are every push's. */
    {
        const char *names[] = {"A", "B"};
        const uint32_t code[] = {0, 1, 2};
        assert_int_equal(raid_ticks_create(&tk, NULL), RAID_OK);
        assert_int_equal(raid_ticks_push_coded(tk, names, 2, code, t, 0, NULL, p, 2), RAID_OK);
        assert_int_equal(raid_ticks_push_coded(tk, names, 2, code, t, 0, NULL, p, 3), RAID_EINVAL);
        assert_string_equal(raid_errmsg(), "raid_ticks_push_coded: row 4: symbol code 2 is not below 2");
        raid_ticks_destroy(tk);
        assert_int_equal(raid_ticks_create(&tk, NULL), RAID_OK);
        assert_int_equal(raid_ticks_push_coded(tk, names, 2, NULL, t, 0, NULL, p, 1), RAID_EINVAL);
        assert_string_equal(raid_errmsg(), "raid_ticks_push_coded: NULL code with n = 1");
        assert_int_equal(raid_ticks_push_coded(tk, names, 2, code, NULL, 0, NULL, p, 1), RAID_EINVAL);
        assert_string_equal(raid_errmsg(), "raid_ticks_push_coded: NULL t_us and timestamps with n = 1");
        assert_int_equal(raid_ticks_push_coded(tk, NULL, 0, NULL, NULL, 0, NULL, NULL, 0), RAID_OK);
        assert_int_equal(raid_ticks_push_coded(NULL, names, 2, code, t, 0, NULL, p, 1), RAID_EINVAL);
        /* a row error inside a block: the row number counts every row pushed before it */
        const uint32_t ab[] = {1, 0, 0};
        assert_int_equal(raid_ticks_push_coded(tk, names, 2, ab, t, 0, NULL, bad, 3), RAID_EPARSE);
        assert_string_equal(raid_errmsg(), "row 1 (symbol 'A'): price must be positive and finite: -1.5");
        raid_ticks_destroy(tk);
    }

    /* Prices: positive and finite. */
    assert_int_equal(raid_ticks_create(&tk, NULL), RAID_OK);
    assert_int_equal(raid_ticks_push(tk, "A", t, 0, bad, 2), RAID_EPARSE);
    assert_string_equal(raid_errmsg(), "row 1 (symbol 'A'): price must be positive and finite: -1.5");
    raid_ticks_destroy(tk);
    assert_int_equal(raid_ticks_create(&tk, NULL), RAID_OK);
    assert_int_equal(raid_ticks_push(tk, "A", t + 2, 0, bad + 2, 1), RAID_EPARSE);
    assert_string_equal(raid_errmsg(), "row 0 (symbol 'A'): price must be positive and finite: nan");
    raid_ticks_destroy(tk);

    /* Symbols: UTF-8; time in range; NULL arrays. */
    assert_int_equal(raid_ticks_create(&tk, NULL), RAID_OK);
    assert_int_equal(raid_ticks_push(tk, "", t, 0, p, 1), RAID_OK);
    assert_int_equal(raid_ticks_push(tk, "AB\xFF", t, 0, p, 1), RAID_EINVAL);
    assert_string_equal(raid_errmsg(), "raid_ticks_push: row 1: symbol is not valid UTF-8 (byte 3, 0xFF)");
    raid_ticks_destroy(tk);
    assert_int_equal(raid_ticks_create(&tk, NULL), RAID_OK);
    assert_int_equal(raid_ticks_push(tk, "A", NULL, 0, p, 1), RAID_EINVAL);
    const int64_t far[] = {INT64_C(253402300800000000)}; /* 10000-01-01 */
    assert_int_equal(raid_ticks_push(tk, "A", far, 0, p, 1), RAID_EPARSE);
    assert_string_equal(raid_errmsg(), "row 0 (symbol 'A'): time 253402300800000000 us out of range (years 0001 to 9999)");
    raid_ticks_destroy(tk);

    /* A NULL handle and destroy(NULL). */
    assert_int_equal(raid_ticks_push(NULL, "A", t, 0, p, 1), RAID_EINVAL);
    assert_int_equal(raid_ticks_take(NULL, &b, 1), RAID_EINVAL);
    assert_null(raid_ticks_symbol(NULL, 0));
    raid_ticks_destroy(NULL);
    raid_batch_free(&b);
}

/* A session across midnight: the evening belongs to the next trading date; the gap is dropped. */
static void test_overnight_session(void **st)
{
    (void)st;
    raid_ticks *tk = NULL;
    raid_read_opts o = opts(0, "17:00-16:00", NULL);
    assert_int_equal(raid_ticks_create(&tk, &o), RAID_OK);
    const int64_t d = raidIoDaysFromCivil(2020, 1, 2) * RAID_US_PER_DAY, h = INT64_C(3600000000);
    /* Thu 15:00, 16:00 (date 01-02); 16:30 (gap, dropped); 17:00, 23:00, Fri 01:00, 16:00 (date 01-03). */
    const int64_t t[] = {d + 15 * h, d + 16 * h, d + 16 * h + h / 2, d + 17 * h, d + 23 * h, d + 25 * h, d + 40 * h};
    const double p[] = {1, 2, 99, 3, 4, 5, 6};
    assert_int_equal(raid_ticks_push(tk, "FX", t, 0, p, 7), RAID_OK);
    raid_batch b;
    raid_batch_init(&b);
    assert_int_equal(raid_ticks_take(tk, &b, 1), RAID_OK);
    assert_int_equal(b.nseg, 2);
    assert_int_equal(b.date[0], 20200102);
    assert_int_equal(b.date[1], 20200103);
    assert_int_equal(b.offsets[1], 1);
    assert_int_equal(b.offsets[2], 4);
    assert_true(b.ret[0] == log1p(1.0));
    assert_true(b.ret[1] == log1p(1.0 / 3.0));
    raid_batch_free(&b);
    raid_ticks_destroy(tk);
}

/* Trading dates the outputs cannot write (years 0 and 10000, reached through a time zone or a session
 * across midnight from valid times) and a sampling grid that would give one segment more than
 * RAID_MAX_SEGMENT_RETURNS returns: errors naming the row, nothing allocated for the grid. */
static void test_out_of_range(void **st)
{
    (void)st;
    const double p[] = {100, 101};
    const int64_t last = INT64_C(253402300799999999); /* 9999-12-31T23:59:59.999999 */
    const int64_t h = INT64_C(3600000000);
    struct {
        const char *ses, *tz;
        int utc;
        int64_t t;
        const char *msg;
    } cases[] = {
        {NULL, "Asia/Tokyo", 1, last - h,
         "row 0 (symbol 'A'): trading date outside the years 0001 to 9999 after the time zone and session: "
         "9999-12-31T22:59:59.999999Z"},
        {"17:00-16:00", NULL, 0, last - 5 * h,
         "row 0 (symbol 'A'): trading date outside the years 0001 to 9999 after the time zone and session: "
         "9999-12-31T18:59:59.999999"},
        {NULL, "America/New_York", 1, INT64_C(-62135596800000000), /* 0001-01-01T00:00Z */
         "row 0 (symbol 'A'): trading date outside the years 0001 to 9999 after the time zone and session: "
         "0001-01-01T00:00:00Z"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        raid_ticks *tk = NULL;
        raid_read_opts o = opts(0, cases[i].ses, cases[i].tz);
        assert_int_equal(raid_ticks_create(&tk, &o), RAID_OK);
        assert_int_equal(raid_ticks_push(tk, "A", &cases[i].t, cases[i].utc, p, 1), RAID_EPARSE);
        assert_string_equal(raid_errmsg(), cases[i].msg);
        raid_ticks_destroy(tk);
    }
    /* sample_us = 1 on two prices a day apart: refused at the second, at once */
    raid_ticks *tk = NULL;
    raid_read_opts o = opts(1, NULL, NULL);
    assert_int_equal(raid_ticks_create(&tk, &o), RAID_OK);
    const int64_t d = raidIoDaysFromCivil(2020, 1, 2) * RAID_US_PER_DAY;
    const int64_t t[] = {d, d + 24 * h - 1};
    assert_int_equal(raid_ticks_push(tk, "A", t, 0, p, 2), RAID_EPARSE);
    assert_string_equal(raid_errmsg(), "row 1 (symbol 'A'): the sampling grid of 1e-06 s would give one segment more "
                                       "than 33554432 returns; use a coarser sampling interval: 2020-01-02T23:59:59.999999");
    raid_ticks_destroy(tk);
    /* exactly at the limit: accepted (1 us grid, 2^25 returns) */
    assert_int_equal(raid_ticks_create(&tk, &o), RAID_OK);
    const int64_t t2[] = {d, d + RAID_MAX_SEGMENT_RETURNS};
    assert_int_equal(raid_ticks_push(tk, "A", t2, 0, p, 2), RAID_OK);
    raid_batch b;
    raid_batch_init(&b);
    assert_int_equal(raid_ticks_take(tk, &b, 1), RAID_OK);
    assert_int_equal(b.nseg, 1);
    assert_int_equal(b.offsets[1], RAID_MAX_SEGMENT_RETURNS);
    raid_batch_free(&b);
    raid_ticks_destroy(tk);
    assert_int_equal(raid_ticks_create(&tk, &o), RAID_OK);
    const int64_t t3[] = {d, d + RAID_MAX_SEGMENT_RETURNS + 1};
    assert_int_equal(raid_ticks_push(tk, "A", t3, 0, p, 2), RAID_EPARSE);
    raid_ticks_destroy(tk);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_real_files), cmocka_unit_test(test_naive),  cmocka_unit_test(test_utc),
        cmocka_unit_test(test_errors),     cmocka_unit_test(test_overnight_session),
        cmocka_unit_test(test_out_of_range), cmocka_unit_test(test_text_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
