/* The table reader (src/io/table.c): typed columns, header mapping, missing values, batches, the decimal
 * number rule, the last line without a line break, the header rules, and FILE:LINE:COL errors. */
#define _POSIX_C_SOURCE 200809L
#include "support.h"
#include "io/table.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *write_tmp(const char *name, const char *text)
{
    const char *p = t_tmppath(name);
    assert_int_equal(t_write_file(p, text), 0);
    return p;
}

/* The HAR measures shape: symbol, date, float64 columns with empty fields missing. */
static const RaidTspec HAR[] = {{"symbol", "symbol", RAID_T_STRING, RAID_T_OPTIONAL},
                                 {"date", NULL, RAID_T_DATE, 0},
                                 {"rv", "rv", RAID_T_F64, 0},
                                 {"jump_p", "jump_p", RAID_T_F64, RAID_T_EMPTY_NA},
                                 {"n", NULL, RAID_T_I64, RAID_T_OPTIONAL},
                                 {"ts", NULL, RAID_T_TIMESTAMP, RAID_T_OPTIONAL | RAID_T_KEEP_TEXT}};
#define NHAR (sizeof HAR / sizeof *HAR)

static void test_types(void **st)
{
    (void)st;
    const char *p = write_tmp("t.csv", "\xEF\xBB\xBF" "Jump_P,extra,DATE,RV,Symbol,N,extra,ts\r\n"
                                       "\r\n"
                                       ",x,2020-01-02,1.5e-4,SPY,42,y,2020-01-02T09:30:00.5+01:00\r\n"
                                       "0.25,x,2020-01-03,.5,\"S,\"\"P\"\"\",-9223372036854775808,y,2020-01-03 10:00:00\r\n");
    RaidTable *t = NULL;
    assert_int_equal(raidTableOpen(&t, p, HAR, NHAR), RAID_OK);
    assert_int_equal(raidTableCol(t, 0), 5);
    assert_int_equal(raidTableCol(t, 1), 3);
    assert_int_equal(raidTableCol(t, 3), 1);
    RaidTbatch b;
    assert_int_equal(raidTbatchInit(&b, t), RAID_OK);
    int done = 0;
    assert_int_equal(raidTableRead(t, &b, 100, &done), RAID_OK);
    assert_int_equal(done, 1);
    assert_int_equal(b.nrows, 2);
    size_t n;
    assert_string_equal(raidTcolText(&b.col[0], 0, &n), "SPY");
    assert_int_equal(n, 3);
    assert_string_equal(raidTcolText(&b.col[0], 1, &n), "S,\"P\"");
    assert_int_equal(b.col[1].i64[0], 18263);
    assert_true(b.col[2].f64[0] == 1.5e-4 && b.col[2].f64[1] == 0.5);
    assert_int_equal(b.col[3].missing[0], 1);
    assert_true(isnan(b.col[3].f64[0]));
    assert_int_equal(b.col[3].missing[1], 0);
    assert_true(b.col[3].f64[1] == 0.25);
    assert_int_equal(b.col[4].i64[0], 42);
    assert_true(b.col[4].i64[1] == INT64_MIN);
    assert_int_equal(b.col[5].tz_s[0], 3600);
    assert_int_equal(b.col[5].tz_s[1], RAID_T_NO_OFFSET);
    assert_true(b.col[5].i64[0] == INT64_C(18263) * 86400000000 + INT64_C(34200500000));
    assert_string_equal(raidTcolText(&b.col[5], 0, NULL), "2020-01-02T09:30:00.5+01:00");
    assert_int_equal(b.col[1].line[0], 3);
    assert_int_equal(b.col[1].line[1], 4);
    assert_int_equal(raidTableNoticeCount(t), 0);
    raidTbatchFree(&b);
    raidTableClose(t);
}

/* Many rows in small batches: every row comes once, in order; done only at the end. */
static void test_batches(void **st)
{
    (void)st;
    const size_t N = 200000;
    char *text = malloc(N * 40 + 64);
    assert_non_null(text);
    size_t len = (size_t)sprintf(text, "date,rv\n");
    for (size_t i = 0; i < N; i++)
        len += (size_t)sprintf(text + len, "2020-01-%02zu,%zu.25\n", 1 + i % 28, i);
    const char *p = write_tmp("big.csv", text);
    free(text);
    RaidTable *t = NULL;
    assert_int_equal(raidTableOpen(&t, p, HAR + 1, 2), RAID_OK);
    RaidTbatch b;
    assert_int_equal(raidTbatchInit(&b, t), RAID_OK);
    size_t seen = 0, maxrows = 0;
    int done = 0;
    while (!done) {
        assert_int_equal(raidTableRead(t, &b, 1000, &done), RAID_OK);
        for (size_t i = 0; i < b.nrows; i++, seen++)
            assert_true(b.col[1].f64[i] == (double)seen + 0.25);
        if (b.nrows > maxrows)
            maxrows = b.nrows;
    }
    assert_int_equal(seen, N);
    assert_true(maxrows < 1000 + 65536 / 8); /* bounded: the target plus one 64 KiB piece */
    uint64_t used, total;
    raidTableProgress(t, &used, &total);
    assert_true(used == total && total > 0);
    raidTbatchFree(&b);
    raidTableClose(t);
}

/* One column of type ty (with flags) read from the one-row file "v\n<field>\n": 0 if it parses. */
static int parse_one_flags(RaidTtype ty, unsigned flags, const char *field, double *f, int64_t *i)
{
    char text[256];
    snprintf(text, sizeof text, "v\n%s\n", field);
    const char *p = write_tmp("one.csv", text);
    const RaidTspec spec = {"v", NULL, ty, flags};
    RaidTable *t = NULL;
    assert_int_equal(raidTableOpen(&t, p, &spec, 1), RAID_OK);
    RaidTbatch b;
    assert_int_equal(raidTbatchInit(&b, t), RAID_OK);
    int done;
    raid_status s = raidTableRead(t, &b, 10, &done);
    if (s == RAID_OK) {
        assert_int_equal(b.nrows, 1);
        if (f)
            *f = b.col[0].f64[0];
        if (i)
            *i = b.col[0].i64[0];
    } else {
        assert_int_equal(s, RAID_EPARSE);
        assert_int_equal(b.nrows, 0);
    }
    raidTbatchFree(&b);
    raidTableClose(t);
    return s == RAID_OK ? 0 : -1;
}

static int parse_one(RaidTtype ty, const char *field, double *f, int64_t *i)
{
    return parse_one_flags(ty, 0, field, f, i);
}

/* A generic value column (RAID_T_SPECIALS) also reads IEEE 754's special values as numpy, pandas and
 * polars write them, ASCII case-insensitively, NaN as the quiet NaN of the sign written; decimals as
 * before (one beyond float64 still an error); nothing else. Without the flag every one is refused. */
static void test_specials(void **st)
{
    (void)st;
    static const struct {
        const char *s;
        uint64_t bits;
    } ok[] = {{"inf", 0x7FF0000000000000ull},       {"-inf", 0xFFF0000000000000ull},
              {"+inf", 0x7FF0000000000000ull},      {"Infinity", 0x7FF0000000000000ull},
              {"-Infinity", 0xFFF0000000000000ull}, {"+INFINITY", 0x7FF0000000000000ull},
              {"INF", 0x7FF0000000000000ull},       {"iNf", 0x7FF0000000000000ull},
              {"nan", 0x7FF8000000000000ull},       {"NaN", 0x7FF8000000000000ull},
              {"NAN", 0x7FF8000000000000ull},       {"+nan", 0x7FF8000000000000ull},
              {"-nan", 0xFFF8000000000000ull},      {"-NaN", 0xFFF8000000000000ull},
              {"\"inf\"", 0x7FF0000000000000ull},   {" -inf\t", 0xFFF0000000000000ull},
              {"1.5", 0x3FF8000000000000ull},       {"-0", 0x8000000000000000ull}};
    for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
        double v = 0;
        if (parse_one_flags(RAID_T_F64, RAID_T_SPECIALS, ok[i].s, &v, NULL) != 0 || t_bits_of(v) != ok[i].bits)
            fail_msg("'%s' read as %016llx, expected %016llx", ok[i].s, (unsigned long long)t_bits_of(v),
                     (unsigned long long)ok[i].bits);
        if (ok[i].bits >> 52 == 0x7FF || ok[i].bits >> 52 == 0xFFF) /* a decimal column refuses the words */
            if (parse_one(RAID_T_F64, ok[i].s, NULL, NULL) == 0)
                fail_msg("a decimal column accepted '%s'", ok[i].s);
    }
    const char *bad[] = {"in",   "infin", "infinit", "infinityy", "infs", "nan(1)", "nan(0x1)", "nanq", "snan",
                         "--inf", "+-inf", "- inf",  "\" inf\"",  "1.#INF", "1.#IND", "-1.#QNAN", "NA", "null",
                         "None", "inf0",  "0inf",   "1e999",     "-1e999", "0x1p3", "\xE2\x88\x9E", "i",  "n"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        if (parse_one_flags(RAID_T_F64, RAID_T_SPECIALS, bad[i], NULL, NULL) == 0)
            fail_msg("accepted '%s'", bad[i]);
    /* an EMPTY_NA column: nan is a value, an empty field the null */
    double v = 0;
    assert_int_equal(parse_one_flags(RAID_T_F64, RAID_T_SPECIALS | RAID_T_EMPTY_NA, "nan", &v, NULL), 0);
    assert_true(isnan(v));
}

static void test_numbers(void **st)
{
    (void)st;
    static const struct {
        const char *s;
        double v;
    } ok[] = {{"1", 1},         {"-1.5", -1.5}, {"+2E-3", 2e-3}, {".5", 0.5},       {"5.", 5},
              {"1e3", 1000},    {"007", 7},     {"-0", -0.0},    {"1e-400", 0},     {"\"102\"", 102},
              {" 3.25\t", 3.25}}; /* blanks around an unquoted field are not part of it */
    for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
        double v = -99;
        if (parse_one(RAID_T_F64, ok[i].s, &v, NULL) != 0 || v != ok[i].v)
            fail_msg("'%s' read as %g, expected %g", ok[i].s, v, ok[i].v);
    }
    /* beyond float64 (it would round to an infinity, and "inf" is refused): an error; underflow rounds */
    const char *huge[] = {"1e999", "-1e999", "1.7976931348623159e308", "1000000000000000000000000000000000000000e300"};
    for (size_t i = 0; i < sizeof huge / sizeof *huge; i++)
        if (parse_one(RAID_T_F64, huge[i], NULL, NULL) == 0)
            fail_msg("accepted number '%s'", huge[i]);
    double v;
    assert_int_equal(parse_one(RAID_T_F64, "-1e-400", &v, NULL), 0);
    assert_true(v == 0.0 && signbit(v));
    assert_int_equal(parse_one(RAID_T_F64, "4e-324", &v, NULL), 0);
    assert_true(v > 0.0 && v < 1e-323);
    const char *bad[] = {"0x64", "0X1p3", "inf",  "-inf", "nan",    "NaN", "infinity", "\" 1\"", "\"1 \"",
                         "1e",   "e3",    ".",    "+",    "-",      "1,5", "1_000",    "1.2.3", "--1",
                         "1e+",  "\"\"",  "\xD9\xA1", "1d", "12abc", "\"1\n2\""};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        if (parse_one(RAID_T_F64, bad[i], NULL, NULL) == 0)
            fail_msg("accepted number '%s'", bad[i]);
    int64_t k;
    assert_int_equal(parse_one(RAID_T_I64, "9223372036854775807", NULL, &k), 0);
    assert_true(k == INT64_MAX);
    const char *badi[] = {"9223372036854775808", "-9223372036854775809", "1.0", "1e3", "0x10", "+", "\"\""};
    for (size_t i = 0; i < sizeof badi / sizeof *badi; i++)
        if (parse_one(RAID_T_I64, badi[i], NULL, NULL) == 0)
            fail_msg("accepted integer '%s'", badi[i]);
}

/* Read path with HAR's first 3 columns; expect failure s, message "PATH:" msg, after `rows` good rows. */
static void expect_error(const char *text, size_t rows, raid_status s, const char *msg)
{
    const char *p = write_tmp("bad.csv", text);
    char want[1024];
    snprintf(want, sizeof want, "%s:%s", p, msg);
    RaidTable *t = NULL;
    raid_status o = raidTableOpen(&t, p, HAR, 4);
    if (o != RAID_OK) {
        assert_int_equal(o, s);
        assert_null(t);
        assert_string_equal(raid_errmsg(), want);
        return;
    }
    RaidTbatch b;
    assert_int_equal(raidTbatchInit(&b, t), RAID_OK);
    int done = 0;
    assert_int_equal(raidTableRead(t, &b, 1000, &done), s);
    assert_int_equal(b.nrows, rows);
    assert_string_equal(raid_errmsg(), want);
    assert_string_equal(raidTableErrmsg(t), want);
    /* sticky */
    assert_int_equal(raidTableRead(t, &b, 1000, &done), s);
    assert_int_equal(b.nrows, 0);
    raidTbatchFree(&b);
    raidTableClose(t);
}

static void test_errors(void **st)
{
    (void)st;
    expect_error("", 0, RAID_EPARSE, "1:1: empty input (no header row)");
    expect_error("\n\nsymbol,rv\n", 0, RAID_EPARSE, "3:1: missing column 'date'");
    expect_error("date,rv,jump_p,RV\n", 0, RAID_EPARSE, "1:4: duplicate column 'rv' (also column 2)");
    expect_error("date,rv,jump_p\n2020-01-02,1,\n2020-01-03,x,\n", 1, RAID_EPARSE, "3:2: cannot parse rv 'x'");
    expect_error("date,rv,jump_p\n2020-01-02,1,\n2020-02-30,1,\n", 1, RAID_EPARSE, "3:1: cannot parse date '2020-02-30'");
    expect_error("date,rv,jump_p\n2020-01-02,1,0x1\n", 0, RAID_EPARSE, "2:3: cannot parse jump_p '0x1'");
    expect_error("date,rv,jump_p\n2020-01-02,1\n", 0, RAID_EPARSE, "2:2: expected 3 fields, found 2");
    expect_error("date,rv,jump_p\n2020-01-02,1,2,3\n", 0, RAID_EPARSE, "2:4: expected 3 fields, found 4");
    expect_error("date,rv,jump_p,symbol\n2020-01-02,1,2,A\n2020-01-02,1,2,\"B\n\xC3\x28\"\n", 1, RAID_EPARSE,
                 "3:4: symbol is not valid UTF-8 (byte 3 is 0xC3): 'B\\x0A\\xC3('");
    expect_error("date,rv,jump_p\n2020-01-02,1,\"2\n", 0, RAID_EPARSE, "2:3: unterminated quoted field");
    /* A caller's failure at an earlier row replaces the table's own further on. */
    const char *p = write_tmp("order.csv", "date,rv,jump_p\n2020-01-02,-1,\n2020-01-03,x,\n");
    RaidTable *t = NULL;
    assert_int_equal(raidTableOpen(&t, p, HAR + 1, 3), RAID_OK);
    RaidTbatch b;
    assert_int_equal(raidTbatchInit(&b, t), RAID_OK);
    int done;
    assert_int_equal(raidTableRead(t, &b, 1000, &done), RAID_EPARSE);
    assert_int_equal(b.nrows, 1);
    assert_int_equal(raidTableFail(t, b.col[1].line[0], raidTableCol(t, 1), "rv must be positive"), RAID_EPARSE);
    char want[700];
    snprintf(want, sizeof want, "%s:2:2: rv must be positive", p);
    assert_string_equal(raidTableErrmsg(t), want);
    assert_string_equal(raid_errmsg(), want);
    raidTbatchFree(&b);
    raidTableClose(t);
    /* Bad arguments, a missing file. */
    assert_int_equal(raidTableOpen(&t, p, HAR, 0), RAID_EINVAL);
    assert_int_equal(raidTableOpen(&t, t_tmppath("nope.csv"), HAR, 1), RAID_EIO);
    assert_null(t);
}

/* Open path with specs; RAID_OK and the field numbers of the columns in col, or the failure "PATH:" msg. */
static raid_status open_cols(const char *text, const RaidTspec *spec, size_t n, size_t *col, const char *msg)
{
    const char *p = write_tmp("hdr.csv", text);
    RaidTable *t = NULL;
    const raid_status s = raidTableOpen(&t, p, spec, n);
    if (s != RAID_OK) {
        char want[1024];
        snprintf(want, sizeof want, "%s:%s", p, msg ? msg : "");
        assert_null(t);
        assert_string_equal(raid_errmsg(), want);
        return s;
    }
    assert_null(msg);
    for (size_t k = 0; k < n; k++)
        col[k] = raidTableCol(t, k);
    raidTableClose(t);
    return s;
}

/* The header rules: one column named by two wanted columns (an error, or absent for a YIELD one); a column
 * named twice (an error, or the first taken for a DUP_FIRST one); header errors in the header's field order,
 * before a missing column; a byte order mark before a quoted header. */
static void test_header(void **st)
{
    (void)st;
    RaidTspec s[4] = {{"symbol", "symbol", RAID_T_STRING, RAID_T_OPTIONAL},
                       {"date", "date", RAID_T_STRING, 0},
                       {"rv", "rv", RAID_T_F64, 0},
                       {"bpv", "bpv", RAID_T_F64, RAID_T_OPTIONAL | RAID_T_YIELD}};
    size_t col[4];
    assert_int_equal(open_cols("\xEF\xBB\xBF\"date\",rv,bpv\n", s, 4, col, NULL), RAID_OK);
    assert_true(col[0] == 0 && col[1] == 1 && col[2] == 2 && col[3] == 3);
    s[2].name = "Date"; /* two roles */
    assert_int_equal(open_cols("x,DATE,rv\n", s, 4, col, "1:2: column 'DATE' is given two roles (date and rv columns)"),
                     RAID_EPARSE);
    s[0].name = "date"; /* the first of two: an optional column is no exception unless YIELD */
    s[2].name = "rv";
    assert_int_equal(open_cols("rv,date\n", s, 4, col, "1:2: column 'date' is given two roles (symbol and date columns)"),
                     RAID_EPARSE);
    s[0].name = "symbol";
    s[2].name = "bpv"; /* rv takes bpv's column; bpv, YIELD, is absent */
    assert_int_equal(open_cols("date,bpv\n", s, 4, col, NULL), RAID_OK);
    assert_true(col[2] == 2 && col[3] == 0);
    s[2].name = "rv";
    /* named twice: an error at the second occurrence, naming the first; or, DUP_FIRST, the first taken */
    assert_int_equal(open_cols("date,bpv,rv,BPV\n", s, 4, col, "1:4: duplicate column 'bpv' (also column 2)"),
                     RAID_EPARSE);
    s[3].flags |= RAID_T_DUP_FIRST;
    assert_int_equal(open_cols("date,bpv,rv,BPV\n", s, 4, col, NULL), RAID_OK);
    assert_true(col[3] == 2);
    /* header errors in field order, then a missing column */
    assert_int_equal(open_cols("rv,date,RV,DATE\n", s, 4, col, "1:3: duplicate column 'rv' (also column 1)"),
                     RAID_EPARSE);
    assert_int_equal(open_cols("x,rv,rv\n", s, 4, col, "1:3: duplicate column 'rv' (also column 2)"), RAID_EPARSE);
    assert_int_equal(open_cols("x,rv\n", s, 4, col, "1:1: missing column 'date'"), RAID_EPARSE);
}

/* A last line without a line break is read, with a notice naming FILE:LINE; with one, no notice. */
static void test_last_line(void **st)
{
    (void)st;
    const char *texts[] = {"date,rv\r\n2020-01-02,1\r\n2020-01-03,10", "date,rv\n2020-01-02,1\n2020-01-03,10\n"};
    for (int k = 0; k < 2; k++) {
        const char *p = write_tmp("last.csv", texts[k]);
        RaidTable *t = NULL;
        assert_int_equal(raidTableOpen(&t, p, HAR + 1, 2), RAID_OK);
        RaidTbatch b;
        assert_int_equal(raidTbatchInit(&b, t), RAID_OK);
        int done;
        assert_int_equal(raidTableRead(t, &b, 1000, &done), RAID_OK);
        assert_int_equal(done, 1);
        assert_int_equal(b.nrows, 2);
        assert_true(b.col[1].f64[1] == 10);
        if (k == 0) {
            assert_int_equal(raidTableNoticeCount(t), 1);
            char want[800];
            snprintf(want, sizeof want, "%s:3: the last line has no line break at its end; it was read as a complete "
                     "row (if the file was cut short there, its last value is cut short too)", p);
            assert_string_equal(raidTableNotice(t, 0), want);
        } else {
            assert_int_equal(raidTableNoticeCount(t), 0);
        }
        assert_null(raidTableNotice(t, 1));
        raidTbatchFree(&b);
        raidTableClose(t);
    }
}

/* A KEYS column whose empty fields are missing (EMPTY_NA): every row has a key, the empty value one of
 * its own. A quoted empty field ("") left key[i] unset (read from uninitialised memory), found by
 * fuzzing (tests/fuzz/corpus/table). */
static void test_keys_empty(void **st)
{
    (void)st;
    static const RaidTspec spec[] = {{"b", NULL, RAID_T_STRING, RAID_T_KEYS | RAID_T_EMPTY_NA}};
    const char *p = write_tmp("k.csv", "b\nx\n\"\"\ny\n\nx\n\"\"\n");
    RaidTable *t = NULL;
    assert_int_equal(raidTableOpen(&t, p, spec, 1), RAID_OK);
    RaidTbatch b;
    assert_int_equal(raidTbatchInit(&b, t), RAID_OK);
    int done = 0;
    assert_int_equal(raidTableRead(t, &b, RAID_TABLE_BLOCK_ROWS, &done), RAID_OK);
    assert_int_equal(done, 1);
    assert_int_equal(b.nrows, 5); /* the blank line is skipped */
    const RaidTcol *c = &b.col[0];
    assert_int_equal(c->keyed, 1);
    assert_int_equal(c->nkeys, 3);
    static const uint32_t key[5] = {0, 1, 2, 0, 1};
    static const uint8_t missing[5] = {0, 1, 0, 0, 1};
    for (size_t i = 0; i < 5; i++) {
        assert_int_equal(c->key[i], key[i]);
        assert_int_equal(c->missing[i], missing[i]);
    }
    assert_int_equal(c->key_row[1], 1);
    raidTbatchFree(&b);
    raidTableClose(t);
}

/* The one escaping of quoted input in messages (raid_show_text, include/raid/core.h): printable ASCII as
 * it is, a backslash doubled, every other byte \xHH; 80 bytes at most, then the length. */
static void test_show_text(void **st)
{
    (void)st;
    char out[RAID_SHOW_CAP];
    assert_string_equal(raid_show_text(out, "12abc", RAID_SHOW_NUL), "12abc");
    assert_string_equal(raid_show_text(out, "\x1B[2J\x1B]0;owned\x07", RAID_SHOW_NUL), "\\x1B[2J\\x1B]0;owned\\x07");
    assert_string_equal(raid_show_text(out, "a\0b", 3), "a\\x00b");
    assert_string_equal(raid_show_text(out, "1\r2\n3\t4\x7F", RAID_SHOW_NUL), "1\\x0D2\\x0A3\\x094\\x7F");
    assert_string_equal(raid_show_text(out, "A\xFF\xC3\xA9", RAID_SHOW_NUL), "A\\xFF\\xC3\\xA9"); /* bytes, not letters */
    assert_string_equal(raid_show_text(out, "C:\\x41", RAID_SHOW_NUL), "C:\\\\x41"); /* not the escape of 'A' */
    assert_string_equal(raid_show_text(out, NULL, 3), "(null)");
    assert_string_equal(raid_show_text(out, "", 0), "");
    char big[5001];
    memset(big, 'A', 5000);
    big[5000] = 0;
    raid_show_text(out, big, 80); /* 80 bytes: no cut */
    assert_int_equal(strlen(out), 80);
    raid_show_text(out, big, 5000);
    assert_int_equal(strncmp(out, big, 80), 0);
    assert_string_equal(out + 80, "... (5000 bytes)");
    memset(big, 0x1B, 5000); /* the worst case fits the buffer */
    raid_show_text(out, big, 5000);
    assert_int_equal(strlen(out), 4 * 80 + strlen("... (5000 bytes)"));
    assert_true(strlen(out) < RAID_SHOW_CAP);
}

/* A message holds no byte outside printable ASCII. */
static void assert_clean(const char *m)
{
    for (const unsigned char *p = (const unsigned char *)m; *p; p++)
        if (*p < 0x20 || *p >= 0x7F)
            fail_msg("byte 0x%02X in message: %s", *p, m);
}

/* Every message of the table reader that quotes a field shows it through raid_show_text: an ESC sequence
 * in a number field (it would clear the terminal), a CR inside a quoted field, bytes that are not UTF-8,
 * a field of 10,000 bytes (cut, with its length). (A NUL is refused without echoing the field: "NUL byte
 * in field", test_io_blocks.) */
static void test_escaped_messages(void **st)
{
    (void)st;
    expect_error("date,rv,jump_p\n2020-01-02,\x1B[2J\x1B[H1,\n", 0, RAID_EPARSE,
                 "2:2: cannot parse rv '\\x1B[2J\\x1B[H1'");
    expect_error("date,rv,jump_p\n2020-01-02,\"1\r2\",\n", 0, RAID_EPARSE, "2:2: cannot parse rv '1\\x0D2'");
    expect_error("date,rv,jump_p\n2020-01-02,1\xFF\x7F,\n", 0, RAID_EPARSE, "2:2: cannot parse rv '1\\xFF\\x7F'");
    expect_error("date,rv,jump_p\n\x1B[31m2020-01-02,1,\n", 0, RAID_EPARSE,
                 "2:1: cannot parse date '\\x1B[31m2020-01-02'");
    expect_error("date,rv,jump_p\n2020-01-02,1,9e999\x1B\n", 0, RAID_EPARSE, "2:3: cannot parse jump_p '9e999\\x1B'");
    expect_error("date,rv,jump_p,symbol\n2020-01-02,1,2,\x1B\xFF\n", 0, RAID_EPARSE,
                 "2:4: symbol is not valid UTF-8 (byte 2 is 0xFF): '\\x1B\\xFF'");
    const size_t N = 10000;
    char *text = malloc(N + 64), want[256];
    int k = sprintf(text, "date,rv,jump_p\n2020-01-02,");
    memset(text + k, 'A', N);
    strcpy(text + k + N, ",\n");
    snprintf(want, sizeof want, "2:2: cannot parse rv '%.80s... (10000 bytes)'", text + k);
    expect_error(text, 0, RAID_EPARSE, want);
    assert_clean(raid_errmsg());
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_types),  cmocka_unit_test(test_batches),   cmocka_unit_test(test_numbers),
        cmocka_unit_test(test_specials), cmocka_unit_test(test_show_text), cmocka_unit_test(test_escaped_messages),
        cmocka_unit_test(test_errors), cmocka_unit_test(test_last_line), cmocka_unit_test(test_header),
        cmocka_unit_test(test_keys_empty),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
