/* The table reader's blocks (src/io/table.c): a file cut into blocks parsed by several threads and merged
 * in file order gives the same rows, lines, errors and notices as one block read by libcsv alone, for any
 * block size and thread count, from a mapped file and from standard input (streamed): random files of
 * quoted fields with commas, quotes and line breaks, blanks, CR, LF and CRLF, empty and bad fields, NUL
 * bytes, with and without a last line break; then named cases (cuts inside quoted fields, CRLF, no last
 * line break, errors in several blocks, one line, an empty file); every way again with the rows' raw
 * bytes kept (raidTableKeepRows), and those bytes against the rows written, quoted line breaks and CR,
 * LF and CRLF ends falling across the cuts; the caller's tasks run by the parsing threads while the blocks
 * are read (raidTableTaskPost), each item once, the rows unchanged; and fast_float (with its shim's fast
 * path for short decimals) against strtod. */
#define _POSIX_C_SOURCE 200809L
#include "support.h"
#include "io/fastfloat.h"
#include "io/table.h"

#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const RaidTspec SPEC[] = {{"a", "symbol", RAID_T_STRING, RAID_T_KEYS},
                                  {"b", "price", RAID_T_F64, RAID_T_EMPTY_NA | RAID_T_KEEP_TEXT},
                                  {"c", NULL, RAID_T_I64, RAID_T_EMPTY_NA | RAID_T_OPTIONAL},
                                  {"t", NULL, RAID_T_TIMESTAMP, RAID_T_OPTIONAL | RAID_T_KEEP_TEXT}};
#define NSPEC (sizeof SPEC / sizeof *SPEC)


static void write_bytes(const char *path, const char *s, size_t n)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(s, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
}

/* Add each row's raw bytes and the header's to read_all's text (raidTableKeepRows). */
static int keep_rows;

/* s[0..n) quoted, bytes below 32 as \hh. */
static void sb_quoted(t_sbuf *o, const char *x, size_t n)
{
    t_sb_add(o, "'");
    for (size_t j = 0; j < n; j++)
        t_sb_add(o, (unsigned char)x[j] < 32 ? "\\%02x" : "%c", (unsigned char)x[j]);
    t_sb_add(o, "'");
}

/* msg with its leading name (the path, or "-") shown as FILE. */
static const char *unnamed(const char *msg, const char *name)
{
    const size_t n = strlen(name);
    static char out[4096];
    if (strncmp(msg, name, n) == 0 && msg[n] == ':')
        snprintf(out, sizeof out, "FILE%s", msg + n);
    else
        snprintf(out, sizeof out, "%s", msg);
    return out;
}

/* Everything a reader sees of path (standard input when via_stdin) read with these knobs, as text: each
 * row's columns (lines, values, texts), the batch sizes (at most max_rows), the status and message, the
 * notices. */
static char *read_all(const char *path, int via_stdin, size_t block, int threads, int libcsv_only, size_t max_rows)
{
    raidTableTestTuning(block, threads, libcsv_only);
    t_sbuf o = {0};
    if (via_stdin)
        assert_non_null(freopen(path, "rb", stdin));
    RaidTable *t = NULL;
    const char *name = via_stdin ? "-" : path;
    raid_status s = raidTableOpen(&t, name, SPEC, NSPEC);
    if (s != RAID_OK) {
        t_sb_add(&o, "open %d: %s\n", (int)s, unnamed(raid_errmsg(), name));
        raidTableTestTuning(0, -1, 0);
        return o.s;
    }
    if (keep_rows) {
        raidTableKeepRows(t);
        size_t hl;
        const char *h = raidTableHeaderText(t, &hl);
        t_sb_add(&o, "header ");
        sb_quoted(&o, h, hl);
        t_sb_add(&o, "\n");
    }
    RaidTbatch b;
    assert_int_equal(raidTbatchInit(&b, t), RAID_OK);
    int done = 0;
    while (!done) {
        s = raidTableRead(t, &b, max_rows, &done);
        assert_true(b.nrows <= max_rows);
        if (b.col[0].keyed) /* the keys: one per distinct value, first seen where key_row says */
            for (size_t i = 0; i < b.nrows; i++) {
                const RaidTcol *c = &b.col[0];
                assert_true(c->key[i] < c->nkeys && c->key_row[c->key[i]] <= i);
                size_t n1, n2;
                const char *x = raidTcolText(c, i, &n1), *y = raidTcolText(c, c->key_row[c->key[i]], &n2);
                assert_true(n1 == n2 && memcmp(x, y, n1) == 0);
                for (size_t j = 0; j < i; j++) /* distinct values have distinct keys */
                    if (c->key[j] != c->key[i]) {
                        size_t n3;
                        const char *z = raidTcolText(c, j, &n3);
                        assert_false(n3 == n1 && memcmp(x, z, n1) == 0);
                    }
            }
        for (size_t i = 0; i < b.nrows; i++) {
            for (size_t k = 0; k < NSPEC; k++) {
                if (!raidTableCol(t, k))
                    continue;
                const RaidTcol *c = &b.col[k];
                t_sb_add(&o, "%llu|", (unsigned long long)c->line[i]);
                if (c->missing && c->missing[i])
                    t_sb_add(&o, "NA");
                else if (c->f64)
                    t_sb_add(&o, "%a", c->f64[i]);
                else if (c->i64)
                    t_sb_add(&o, "%lld", (long long)c->i64[i]);
                if (c->tz_s)
                    t_sb_add(&o, "@%d", (int)c->tz_s[i]);
                if (c->text_off) {
                    size_t n;
                    const char *x = raidTcolText(c, i, &n);
                    sb_quoted(&o, x, n);
                }
                t_sb_add(&o, ",");
            }
            if (keep_rows) {
                size_t n;
                const char *x = raidTcolText(&b.row, i, &n);
                t_sb_add(&o, "row ");
                sb_quoted(&o, x, n);
            }
            t_sb_add(&o, "\n");
        }
        if (s != RAID_OK) {
            t_sb_add(&o, "status %d: %s\n", (int)s, unnamed(raidTableErrmsg(t), name));
            assert_string_equal(raid_errmsg(), raidTableErrmsg(t));
            /* sticky */
            int d2 = 0;
            assert_int_equal(raidTableRead(t, &b, max_rows, &d2), s);
            break;
        }
    }
    for (size_t i = 0; i < raidTableNoticeCount(t); i++)
        t_sb_add(&o, "notice %s\n", unnamed(raidTableNotice(t, i), name));
    uint64_t used, total;
    raidTableProgress(t, &used, &total);
    if (s == RAID_OK && !via_stdin)
        assert_true(used == total);
    raidTbatchFree(&b);
    raidTableClose(t);
    raidTableTestTuning(0, -1, 0);
    if (!o.s)
        t_sb_add(&o, "%s", "");
    return o.s;
}

/* Every way of reading path gives the reference (one block, libcsv only, one thread, from the file); with
 * and without the raw rows kept. */
static void check_all_ways_kept(const char *path, const char *what);
static void check_all_ways(const char *path, const char *what)
{
    keep_rows = 0;
    check_all_ways_kept(path, what);
    keep_rows = 1;
    check_all_ways_kept(path, what);
    keep_rows = 0;
}

static void check_all_ways_kept(const char *path, const char *what)
{
    char *ref = read_all(path, 0, (size_t)1 << 30, 1, 1, 1000000);
    static const size_t blocks[] = {1, 2, 5, 13, 64, 1000, (size_t)1 << 30};
    static const int threads[] = {1, 3};
    static const size_t rows[] = {1, 7, 1000000};
    for (size_t ib = 0; ib < sizeof blocks / sizeof *blocks; ib++)
        for (size_t it = 0; it < 2; it++)
            for (int via = 0; via < 2; via++) {
                const size_t mr = rows[(ib + it + (size_t)via) % 3];
                char *got = read_all(path, via, blocks[ib], threads[it], 0, mr);
                if (strcmp(got, ref) != 0) {
                    fprintf(stderr,
                            "%s: block %zu, threads %d, stdin %d, max_rows %zu, raw rows %d:\n--- reference\n%s--- got\n%s",
                            what, blocks[ib], threads[it], via, mr, keep_rows, ref, got);
                    fail();
                }
                free(got);
            }
    free(ref);
}

/* Random files from pieces that exercise the tokeniser: the fast path and libcsv must agree everywhere. */
static void test_random_files(void **st)
{
    (void)st;
    static const char *fa[] = {"x", "SYM", " y ", "\"q,\nr\"", "\"a\"\"b\"", "\"ab\"c", "a\"b", "\"s\r\nt\"",
                               "\t z\t", "\"\"", "\" \"\"x\" \"", "\"\"\"\"", "\xC3\xA9", "\xFF", "\"a\nb\nc\""};
    static const char *fb[] = {"1.5", "2", " 3.25 ", "", "-0", "1e5", ".5", "5.", "+7", "\"8\"", "1e999", "0x10",
                               "nan", "1.2.3", "\" 1\"", "123456789012345678901234567890", "4.9e-324"};
    static const char *fc[] = {"1", "-42", "", " 7", "9223372036854775807", "9223372036854775808", "x"};
    static const char *eol[] = {"\n", "\r\n", "\n", "\n", "\r\n", "\r", "\n\n", " \n", "\r\r\n", "\n\t\n"};
    const char *path = t_tmppath("blocks_random.csv");
    uint64_t rng = 12345;
    const int nfiles = 150;
    for (int f = 0; f < nfiles; f++) {
        t_sbuf s = {0};
        const int has_c = (int)(t_splitmix64(&rng) % 2);
        t_sb_add(&s, has_c ? "a,b,c\n" : "b, a\r\n");
        const int nrows = (int)(t_splitmix64(&rng) % 40);
        const int bad = (int)(t_splitmix64(&rng) % 4); /* 0: bad pieces allowed, else valid ones only */
        for (int r = 0; r < nrows; r++) {
            const char *a = fa[t_splitmix64(&rng) % (bad ? 13 : 15)];
            const char *b = fb[t_splitmix64(&rng) % (bad ? 10 : 17)];
            const char *c = fc[t_splitmix64(&rng) % (bad ? 5 : 7)];
            if (has_c)
                t_sb_add(&s, "%s,%s,%s", a, b, c);
            else
                t_sb_add(&s, "%s,%s", b, a);
            if (!bad && t_splitmix64(&rng) % 50 == 0)
                t_sb_add(&s, ",extra");
            if (r + 1 < nrows || t_splitmix64(&rng) % 2)
                t_sb_add(&s, "%s", eol[t_splitmix64(&rng) % (bad ? 5 : 10)]);
        }
        size_t n = s.n;
        if (!bad && n > 10 && t_splitmix64(&rng) % 8 == 0)
            s.s[6 + t_splitmix64(&rng) % (n - 6)] = 0; /* a NUL byte somewhere */
        write_bytes(path, s.s ? s.s : "", n);
        char what[64];
        snprintf(what, sizeof what, "random file %d", f);
        check_all_ways(path, what);
        free(s.s);
    }
}

/* Quoted symbols holding commas, quotes and line breaks in every row: with blocks of a few dozen bytes the
 * cuts fall inside quoted fields; every value and line comes out right. */
static void test_cuts_inside_quotes(void **st)
{
    (void)st;
    const char *path = t_tmppath("blocks_quotes.csv");
    t_sbuf s = {0};
    t_sb_add(&s, "a,b\n");
    const int N = 3000;
    for (int i = 0; i < N; i++)
        t_sb_add(&s, "\"S%d,\n\"\"x\"\"\n\",%d.5\n", i, i);
    write_bytes(path, s.s, s.n);
    free(s.s);
    t_sbuf want = {0}; /* read_all's text of the rows */
    for (int i = 0; i < N; i++)
        t_sb_add(&want, "%d|'S%d,\\0a\"x\"\\0a',%d|%a'%d.5',\n", 2 + 3 * i, i, 4 + 3 * i, i + 0.5, i);
    for (int th = 1; th <= 3; th += 2)
        for (size_t blk = 16; blk <= 4096; blk *= 16) {
            char *got = read_all(path, 0, blk, th, 0, 100);
            assert_string_equal(got, want.s);
            free(got);
        }
    free(want.s);
    check_all_ways(path, "quoted line breaks");
}

/* Errors in several blocks: the first in file order is reported, after the rows before it. */
static void test_first_error_wins(void **st)
{
    (void)st;
    const char *path = t_tmppath("blocks_errors.csv");
    t_sbuf s = {0};
    t_sb_add(&s, "a,b\r\n");
    for (int i = 0; i < 5000; i++) {
        if (i == 1234)
            t_sb_add(&s, "X,12abc\r\n");
        else if (i == 3000)
            t_sb_add(&s, "X,1,2\r\n");
        else if (i == 4000)
            t_sb_add(&s, "\"unterminated,1\r\n");
        else
            t_sb_add(&s, "X,%d\r\n", i);
    }
    write_bytes(path, s.s, s.n);
    free(s.s);
    for (int th = 1; th <= 4; th += 3)
        for (size_t blk = 64; blk <= 65536; blk *= 32) {
            char *got = read_all(path, 0, blk, th, 0, 1000);
            const char *last = strstr(got, "1235|'X',1235|"), *err = strstr(got, "status");
            assert_non_null(last); /* the rows before the error, then the error */
            assert_ptr_equal(strchr(last, '\n') + 1, err);
            char want[128];
            snprintf(want, sizeof want, "status %d: FILE:1236:2: cannot parse price '12abc'\n", (int)RAID_EPARSE);
            assert_string_equal(err, want);
            free(got);
        }
    check_all_ways(path, "errors in several blocks");
}

/* Small files: empty, header only (with and without a line break), one row without a line break, blank
 * lines only, CRLF and CR line ends. */
static void test_small_files(void **st)
{
    (void)st;
    static const char *files[] = {"", "a,b", "a,b\n", "a,b\r\n", "a,b\nX,1", "a,b\r\nX,1\r\nY,2", "\n\n\n",
                                  "a,b\rX,1\rY,2\r", "a,b\n\n\n", "a,b\n\"X\n", "a,b\nX,1\n\"", "a,b\r", ("\xEF\xBB\xBF" "a,b\nX,1\n"),
                                  "a,b\nX,1\n \n\t\n", "a,b\r\n\r\n\r\n"};
    const char *path = t_tmppath("blocks_small.csv");
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        write_bytes(path, files[i], strlen(files[i]));
        char what[64];
        snprintf(what, sizeof what, "small file %zu", i);
        check_all_ways(path, what);
    }
    /* the messages themselves */
    write_bytes(path, "", 0);
    char *got = read_all(path, 0, 0, -1, 0, 100);
    char want[512];
    snprintf(want, sizeof want, "open %d: FILE:1:1: empty input (no header row)\n", (int)RAID_EPARSE);
    assert_string_equal(got, want);
    free(got);
    write_bytes(path, "a,b\nX,1", 7);
    got = read_all(path, 1, 0, -1, 0, 100);
    assert_non_null(strstr(got, "notice FILE:2: the last line has no line break at its end"));
    free(got);
}

/* Raw rows against the rows written: random rows with quoted commas, quotes, CR, LF and CRLF inside quoted
 * fields, blanks around fields, ended by LF, CRLF or CR, blank lines between them, with and without a last
 * line break; every block size from 1 byte (cuts everywhere, CRLFs and quoted line breaks across them),
 * 1 to 3 threads, file and standard input, fast path or libcsv alone, batches of 1 to all rows. */
static void test_raw_rows(void **st)
{
    (void)st;
    static const char *fa[] = {"x", "S1", " y ", "\"q,\nr\"", "\"a\"\"b\"", "\"s\r\nt\"", "\t z\t", "\"\"",
                               "\"\r\"", "\"\n\n\"", "\xC3\xA9", "\"e\r\n\r\nf\""};
    static const char *fb[] = {"1.5", "2", " 3.25 ", "", "-0", "\"8\"", "\"9\" ", "1e5 "};
    static const char *eol[] = {"\n", "\r\n", "\r"};
    static const char *blank[] = {"\n", " \n", "\r\n", "\t\r\n"};
    const char *path = t_tmppath("blocks_raw.csv");
    uint64_t rng = 777;
    for (int f = 0; f < 40; f++) {
        t_sbuf s = {0}, want = {0};
        const char *heol = eol[t_splitmix64(&rng) % 3];
        t_sb_add(&s, "%s\"a\" ,b%s", f % 2 ? "\xEF\xBB\xBF" : "", heol);
        t_sb_add(&want, "header '\"a\" ,b'\n");
        const int nrows = 1 + (int)(t_splitmix64(&rng) % 60);
        const char *prev = heol;
        for (int r = 0; r < nrows; r++) {
            if (t_splitmix64(&rng) % 6 == 0) { /* a blank line (after a CR, a LF would make it a CRLF) */
                const char *bl = blank[t_splitmix64(&rng) % 4];
                if (!(prev[0] == '\r' && prev[1] == 0 && bl[0] == '\n'))
                    t_sb_add(&s, "%s", bl);
            }
            t_sbuf row = {0};
            t_sb_add(&row, "%s,%s", fa[t_splitmix64(&rng) % 12], fb[t_splitmix64(&rng) % 8]);
            t_sb_add(&s, "%s", row.s);
            t_sb_add(&want, "row ");
            sb_quoted(&want, row.s, row.n);
            t_sb_add(&want, "\n");
            free(row.s);
            prev = eol[t_splitmix64(&rng) % 3];
            if (r + 1 < nrows || t_splitmix64(&rng) % 2)
                t_sb_add(&s, "%s", prev);
        }
        write_bytes(path, s.s, s.n);
        static const size_t blocks[] = {1, 2, 3, 5, 7, 13, 64, 1000, (size_t)1 << 30};
        for (size_t ib = 0; ib < sizeof blocks / sizeof *blocks; ib++)
            for (int th = 1; th <= 3; th++)
                for (int via = 0; via < 2; via++)
                    for (int lo = 0; lo < 2; lo++) {
                        static const size_t rows[] = {1, 7, 1000000};
                        keep_rows = 1;
                        char *got = read_all(path, via, blocks[ib], th, lo, rows[(ib + (size_t)th + (size_t)lo) % 3]);
                        keep_rows = 0;
                        /* only the raw rows and the header: the other columns are test_random_files' */
                        t_sbuf raw = {0};
                        for (char *l = got; *l;) {
                            char *nl = strchr(l, '\n');
                            assert_non_null(nl);
                            const char *r = strstr(l, "row '");
                            if (strncmp(l, "header ", 7) == 0)
                                t_sb_add(&raw, "%.*s\n", (int)(nl - l), l);
                            else if (strncmp(l, "notice ", 7) == 0)
                                ;
                            else if (r && r < nl)
                                t_sb_add(&raw, "%.*s\n", (int)(nl - r), r);
                            else
                                fail_msg("file %d: unexpected line %.*s", f, (int)(nl - l), l);
                            l = nl + 1;
                        }
                        if (strcmp(raw.s, want.s) != 0) {
                            fprintf(stderr, "file %d, block %zu, threads %d, stdin %d, libcsv %d:\n--- want\n%s--- got\n%s", f,
                                    blocks[ib], th, via, lo, want.s, raw.s);
                            fail();
                        }
                        free(raw.s);
                        free(got);
                    }
        free(s.s);
        free(want.s);
    }
}

/* fast_float gives strtod's double for every decimal form the reader accepts. */
static void test_fast_float(void **st)
{
    (void)st;
    static const char *fixed[] = {"0", "-0", "1", "0.1", ".5", "5.", "1e999", "-1e999", "1e-400", "4.9406564584124654e-324",
                                  "2.4703282292062327e-324", "2.4703282292062328e-324", "2.2250738585072011e-308",
                                  "2.2250738585072012e-308", "1.7976931348623157e308", "1.7976931348623158e308",
                                  "1.7976931348623159e308", "9007199254740993", "9007199254740993.0000000000000000001",
                                  "158.5", "0.000001", "123456789012345678901234567890e-20", "1E5", "1e+05", "1e-05"};
    for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++) {
        double v = -1;
        assert_int_equal(raidParseF64(fixed[i], strlen(fixed[i]), &v), 0);
        const double w = strtod(fixed[i], NULL);
        if (t_bits_of(v) != t_bits_of(w)) {
            fprintf(stderr, "%s: %a, strtod %a\n", fixed[i], v, w);
            fail();
        }
    }
    uint64_t rng = 99;
    char s[1200];
    for (int i = 0; i < 300000; i++) {
        size_t n = 0;
        if (t_splitmix64(&rng) % 2)
            s[n++] = '-';
        const int nd = 1 + (int)(t_splitmix64(&rng) % (i % 100 == 0 ? 800 : 25));
        const int dot = (int)(t_splitmix64(&rng) % (size_t)(nd + 2)) - 1; /* -1: none */
        for (int d = 0; d < nd; d++) {
            if (d == dot)
                s[n++] = '.';
            s[n++] = (char)('0' + t_splitmix64(&rng) % 10);
        }
        if (dot == nd)
            s[n++] = '.';
        if (t_splitmix64(&rng) % 3 == 0)
            n += (size_t)snprintf(s + n, sizeof s - n, "e%d", (int)(t_splitmix64(&rng) % 700) - 350);
        s[n] = 0;
        double v = -1;
        assert_int_equal(raidParseF64(s, n, &v), 0);
        const double w = strtod(s, NULL);
        if (t_bits_of(v) != t_bits_of(w)) {
            fprintf(stderr, "%s: %a, strtod %a\n", s, v, w);
            fail();
        }
    }
    /* not entirely a number */
    static const char *bad[] = {"", "-", ".", "1e", "1e+", "e5", "1.2.3", "1 ", " 1", "1,5", "0x"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        double v;
        assert_int_equal(raidParseF64(bad[i], strlen(bad[i]), &v), -1);
    }
}

/* The reader's number rule on top: the forms it accepts give strtod's double (a leading '+' included),
 * and the others stay refused with the same message. */
static void test_number_rule(void **st)
{
    (void)st;
    static const char *ok[] = {"+7", "+.5", "-5.", "1e5", "+1E-5", "0.1", "1e-400", "-1e-400", "4e-324",
                               "1.7976931348623158e308"}; /* underflow rounds to 0 or a subnormal */
    /* the refused: junk (cannot parse), and the first 5 a finite decimal that rounds to +-inf (strtod's
     * HUGE_VAL): refused rather than read as the inf that "inf" itself may not give */
    static const char *no[] = {"1e999", "-1e999", "1e309", "1.7976931348623159e308", "+2e308", "0x10", "inf", "nan",
                               "infinity", "+inf", "-nan", "1e", ".", "+", "1.2.3", "1e+", "e5", "0x1p3", "1_000",
                               "\" 1\"", "1d5"};
    const char *path = t_tmppath("blocks_num.csv");
    for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
        char text[128];
        snprintf(text, sizeof text, "a,b\nX,%s\n", ok[i]);
        write_bytes(path, text, strlen(text));
        char *got = read_all(path, 0, 0, -1, 0, 10);
        char want[256];
        snprintf(want, sizeof want, "2|'X',2|%a'%s',\n", strtod(ok[i], NULL), ok[i]);
        assert_string_equal(got, want);
        free(got);
    }
    for (size_t i = 0; i < sizeof no / sizeof *no; i++) {
        char text[128];
        snprintf(text, sizeof text, "a,b\nX,%s\n", no[i]);
        write_bytes(path, text, strlen(text));
        char *got = read_all(path, 0, 0, -1, 0, 10);
        const char *shown = no[i][0] == '"' ? " 1" : no[i];
        char want[512];
        if (i < 5)
            snprintf(want, sizeof want, "status %d: FILE:2:2: price out of float64's range: '%s'\n", (int)RAID_EPARSE,
                     shown);
        else
            snprintf(want, sizeof want, "status %d: FILE:2:2: cannot parse price '%s'\n", (int)RAID_EPARSE, shown);
        assert_string_equal(got, want);
        free(got);
    }
    /* 400 digits: shown cut to 80 */
    char text[512] = "a,b\nX,";
    memset(text + strlen(text), '9', 400);
    strcpy(text + 7 + 400, "\n");
    write_bytes(path, text, strlen(text));
    char *got = read_all(path, 0, 0, -1, 0, 10);
    assert_non_null(strstr(got, "FILE:2:2: price out of float64's range: '9999"));
    free(got);
}

/* The documented number rule, spelled out: [+-]digits[.digits][(e|E)[+-]digits], a digit before the
 * exponent (also ".5", "5."). */
static int rule_accepts(const char *s, size_t n)
{
    size_t i = 0, digits = 0;
    if (i < n && (s[i] == '+' || s[i] == '-'))
        i++;
    for (; i < n && s[i] >= '0' && s[i] <= '9'; i++)
        digits++;
    if (i < n && s[i] == '.')
        for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++)
            digits++;
    if (digits == 0)
        return 0;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < n && (s[i] == '+' || s[i] == '-'))
            i++;
        const size_t e0 = i;
        while (i < n && s[i] >= '0' && s[i] <= '9')
            i++;
        if (i == e0)
            return 0;
    }
    return i == n;
}

/* The table's number rule (a sign and first-character check, then fast_float) accepts exactly the
 * documented forms, with strtod's value, on random short strings of the characters that matter. */
static void test_number_rule_random(void **st)
{
    (void)st;
    static const char alpha[] = "0123456789..eE+-+- xXinfaINFA,_";
    uint64_t rng = 7;
    char s[16];
    for (int i = 0; i < 400000; i++) {
        const size_t n = t_splitmix64(&rng) % 9;
        for (size_t j = 0; j < n; j++)
            s[j] = alpha[t_splitmix64(&rng) % (sizeof alpha - 1)];
        s[n] = 0;
        double v = -1;
        const int got = raidTableParseF64(s, n, &v) == 0, want = rule_accepts(s, n);
        if (got != want) {
            fprintf(stderr, "'%s': accepted %d, the rule says %d\n", s, got, want);
            fail();
        }
        if (got)
            assert_true(t_bits_of(v) == t_bits_of(strtod(s, NULL)));
    }
}

/* A task of the test: each item counts its runs, and whether it ran off the calling thread. */
#define TASK_ITEMS 64
typedef struct ttask {
    RaidTableTask task;
    int runs[TASK_ITEMS];
    pthread_t caller;
    atomic_int done, elsewhere;
} ttask;

static void ttask_run(void *arg, size_t i)
{
    ttask *k = arg;
    k->runs[i]++;
    for (volatile int spin = 0; spin < 2000; spin++) { /* a little work, so that items overlap */
    }
    if (!pthread_equal(pthread_self(), k->caller))
        atomic_fetch_add(&k->elsewhere, 1);
    atomic_fetch_add(&k->done, 1);
}

static void ttask_post(RaidTable *t, ttask *k, size_t n)
{
    assert_true(n >= 1 && n <= TASK_ITEMS);
    memset(k->runs, 0, sizeof k->runs);
    k->caller = pthread_self();
    atomic_store(&k->done, 0);
    atomic_store(&k->elsewhere, 0);
    k->task.run = ttask_run;
    k->task.arg = k;
    k->task.n = n;
    raidTableTaskPost(t, &k->task);
}

/* The rows of b as text: the symbol and the price. */
static void rows_text(t_sbuf *o, const RaidTbatch *b)
{
    for (size_t i = 0; i < b->nrows; i++) {
        size_t n;
        const char *x = raidTcolText(&b->col[0], i, &n);
        t_sb_add(o, "%.*s %a\n", (int)n, x, b->col[1].f64[i]);
    }
}

/* Every item of k ran once. */
static void ttask_check(const ttask *k)
{
    for (size_t i = 0; i < TASK_ITEMS; i++)
        assert_int_equal(k->runs[i], i < k->task.n ? 1 : 0);
    assert_int_equal(atomic_load(&k->done), (int)k->task.n);
}

/* The caller's tasks on the parsing threads (raidTableTaskPost, _wait) while the blocks are read, with
 * 0, 1, 2 and 16 parsing threads: every item runs once, tasks waited for in or out of order, one posted
 * before the first read (run at once: no parsing thread yet) and one after the last; with parsing threads,
 * a task's items run without the calling thread's help; the rows are those read without tasks. */
static void test_tasks(void **st)
{
    (void)st;
    const char *path = t_tmppath("tasks.csv");
    t_sbuf f = {0};
    t_sb_add(&f, "a,b\n");
    for (int i = 0; i < 3000; i++)
        t_sb_add(&f, "S%d,%d.25\n", i % 7, i);
    write_bytes(path, f.s, strlen(f.s));
    free(f.s);
    char *want = NULL; /* the rows read in one block, without tasks */
    {
        RaidTable *t = NULL;
        assert_int_equal(raidTableOpen(&t, path, SPEC, NSPEC), RAID_OK);
        RaidTbatch b;
        assert_int_equal(raidTbatchInit(&b, t), RAID_OK);
        t_sbuf o = {0};
        int done = 0;
        while (!done) {
            assert_int_equal(raidTableRead(t, &b, 1u << 20, &done), RAID_OK);
            rows_text(&o, &b);
        }
        raidTbatchFree(&b);
        raidTableClose(t);
        want = o.s;
    }
    assert_non_null(want);
    static const int threads[] = {0, 1, 2, 16};
    for (size_t ti = 0; ti < sizeof threads / sizeof *threads; ti++) {
        raidTableTestTuning(256, threads[ti], 0);
        RaidTable *t = NULL;
        assert_int_equal(raidTableOpen(&t, path, SPEC, NSPEC), RAID_OK);
        ttask k[4];
        ttask_post(t, &k[0], 5); /* before the first read: run here, now */
        ttask_check(&k[0]);
        raidTableTaskWait(t, &k[0].task);
        RaidTbatch b;
        assert_int_equal(raidTbatchInit(&b, t), RAID_OK);
        t_sbuf got = {0};
        int done = 0, nblocks = 0, posted = 0, waited = 0;
        while (!done) {
            assert_int_equal(raidTableRead(t, &b, 1u << 20, &done), RAID_OK);
            rows_text(&got, &b);
            nblocks++;
            /* three tasks in flight at most, waited for oldest first except every fifth time newest first */
            if (posted - waited == 3) {
                const int newest = nblocks % 5 == 0;
                ttask *w = &k[1 + (newest ? (posted - 1) % 3 : waited % 3)];
                raidTableTaskWait(t, &w->task);
                ttask_check(w);
                if (newest) { /* then the other two, in order */
                    for (int j = waited; j < posted - 1; j++) {
                        raidTableTaskWait(t, &k[1 + j % 3].task);
                        ttask_check(&k[1 + j % 3]);
                    }
                    waited = posted;
                } else {
                    waited++;
                }
            }
            ttask_post(t, &k[1 + posted % 3], 1 + (size_t)(nblocks * 7) % TASK_ITEMS);
            posted++;
        }
        assert_true(nblocks > 20);
        for (int j = waited; j < posted; j++) {
            raidTableTaskWait(t, &k[1 + j % 3].task);
            ttask_check(&k[1 + j % 3]);
        }
        /* after the last block: the parsing threads (when there are) run a task without the calling thread */
        ttask_post(t, &k[0], TASK_ITEMS);
        if (threads[ti] > 1) {
            for (int ms = 0; atomic_load(&k[0].done) < TASK_ITEMS; ms++) {
                if (ms == 20000)
                    fail_msg("%d parsing threads: the task's items did not run in 20 s", threads[ti]);
                nanosleep(&(struct timespec){0, 1000000}, NULL);
            }
            assert_int_equal(atomic_load(&k[0].elsewhere), TASK_ITEMS);
        }
        raidTableTaskWait(t, &k[0].task);
        ttask_check(&k[0]);
        raidTbatchFree(&b);
        raidTableClose(t);
        raidTableTestTuning(0, -1, 0);
        assert_string_equal(got.s, want); /* the rows as read without tasks */
        free(got.s);
    }
    free(want);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_files),     cmocka_unit_test(test_cuts_inside_quotes),
        cmocka_unit_test(test_first_error_wins), cmocka_unit_test(test_small_files),
        cmocka_unit_test(test_fast_float),       cmocka_unit_test(test_number_rule),
        cmocka_unit_test(test_number_rule_random), cmocka_unit_test(test_raw_rows),
        cmocka_unit_test(test_tasks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
