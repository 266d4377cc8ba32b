/* The table reader (table.h): libcsv underneath, line and field tracking for FILE:LINE:COL messages,
 * header mapping, typed columns, batches. */
#define _POSIX_C_SOURCE 200809L
#include "io/table.h"
#include "core/internal.h"
#include "io/sticky.h"
#include "io/tz.h"
#include "io/utf8.h"

#include <assert.h>
#include <csv.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#define BLOCK_SIZE ((size_t)1 << 20) /* bytes read at a time */
#define PIECE_SIZE ((size_t)1 << 16) /* bytes parsed between checks of the batch size */
#define MAX_NOTICES 4

typedef struct field_buf {
    char *s; /* NUL-terminated */
    size_t len, cap;
    uint64_t line;
} field_buf;

struct raid_table {
    char *path;
    FILE *f;
    int is_stdin;
    uint64_t consumed, total;
    struct csv_parser csv;
    int csv_inited;
    unsigned char *blk;
    size_t blk_len, blk_pos;
    int at_end; /* csv_fini done */

    /* wanted columns */
    size_t ncols;
    raid_tspec *spec; /* with copied strings */
    size_t *col;      /* 0-based field index of each wanted column, SIZE_MAX if absent */

    /* header */
    int header_done;
    char **hdr;
    size_t nhdr, hdr_cap;
    uint64_t hdr_line;
    size_t nfields;

    /* the row being tokenised */
    size_t fidx;
    uint64_t cur_line; /* line where the next field starts */
    int last_term;
    uint64_t extra_line, last_line;
    field_buf *fld; /* one per wanted column */
    uint64_t unterminated_line; /* the last row ended without a line break (0: no) */

    raid_tbatch *b; /* the batch being filled */

    /* raw bytes of the row being tokenised (raid_table_keep_rows; the header's always) */
    int keep_rows;
    char *raw, *hdr_text;
    size_t raw_len, raw_cap, hdr_len;

    char *notices[MAX_NOTICES];
    size_t nnotices;

    raid_sticky err;
};

/* ---------------------------------------------------------------------------------------------- */
/* Failures and notices                                                                            */
/* ---------------------------------------------------------------------------------------------- */

#define tfail(t, ...) raid_sticky_fail(&(t)->err, __VA_ARGS__)

raid_status raid_table_fail(raid_table *t, uint64_t line, size_t col, const char *fmt, ...)
{
    char m[RAID_ERRMSG_LEN / 2];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m, sizeof m, fmt, ap);
    va_end(ap);
    t->err.st = RAID_OK; /* the caller's row comes before a bad row the table may have met */
    return tfail(t, RAID_EPARSE, "%s:%llu:%zu: %s", t->path, (unsigned long long)line, col, m);
}

/* The table's own positional failure (first one wins). */
static raid_status pfail(raid_table *t, uint64_t line, size_t col, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static raid_status pfail(raid_table *t, uint64_t line, size_t col, const char *fmt, ...)
{
    if (t->err.st != RAID_OK)
        return t->err.st;
    char m[RAID_ERRMSG_LEN / 2];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m, sizeof m, fmt, ap);
    va_end(ap);
    return tfail(t, RAID_EPARSE, "%s:%llu:%zu: %s", t->path, (unsigned long long)line, col, m);
}

const char *raid_table_errmsg(const raid_table *t) { return t ? t->err.msg : ""; }

raid_status raid_table_job_status(raid_ctx *ctx, const raid_table *tab, raid_status st)
{
    if (st == RAID_OK)
        return st;
    return raid_fail(ctx, st, "%s", tab && *raid_table_errmsg(tab) ? raid_table_errmsg(tab) : raid_errmsg());
}

uint64_t raid_table_header_line(const raid_table *t) { return t ? t->hdr_line : 0; }

size_t raid_table_notice_count(const raid_table *t) { return t ? t->nnotices : 0; }

const char *raid_table_notice(const raid_table *t, size_t i) { return t && i < t->nnotices ? t->notices[i] : NULL; }

size_t raid_table_col(const raid_table *t, size_t k)
{
    assert(k < t->ncols);
    return t->col[k] == SIZE_MAX ? 0 : t->col[k] + 1;
}

const char *raid_table_path(const raid_table *t) { return t->path; }

void raid_table_keep_rows(raid_table *t) { t->keep_rows = 1; }

const char *raid_table_header_text(const raid_table *t, size_t *len)
{
    if (len)
        *len = t->hdr_len;
    return t->hdr_text ? t->hdr_text : "";
}

void raid_table_progress(const raid_table *t, uint64_t *consumed, uint64_t *total)
{
    if (consumed)
        *consumed = t ? t->consumed : 0;
    if (total)
        *total = t && !t->is_stdin ? t->total : 0;
}

/* ---------------------------------------------------------------------------------------------- */
/* Batches                                                                                         */
/* ---------------------------------------------------------------------------------------------- */

raid_status raid_tbatch_init(raid_tbatch *b, const raid_table *t)
{
    memset(b, 0, sizeof *b);
    b->col = calloc(t->ncols, sizeof *b->col);
    if (!b->col)
        return raid_fail(NULL, RAID_ENOMEM, "out of memory");
    b->ncols = t->ncols;
    return RAID_OK;
}

void raid_tbatch_free(raid_tbatch *b)
{
    if (!b)
        return;
    for (size_t k = 0; k < b->ncols; k++) {
        raid_tcol *c = &b->col[k];
        free(c->i64);
        free(c->f64);
        free(c->tz_s);
        free(c->missing);
        free(c->text_off);
        free(c->text);
        free(c->line);
    }
    free(b->row.text_off);
    free(b->row.text);
    free(b->col);
    memset(b, 0, sizeof *b);
}

static int grow(void **p, size_t n, size_t size)
{
    void *q = realloc(*p, n * size);
    if (!q)
        return -1;
    *p = q;
    return 0;
}

/* Room for one more row in every column array that the column's spec uses. */
static int batch_room(raid_table *t, raid_tbatch *b)
{
    if (b->nrows < b->cap)
        return 0;
    const size_t cap = b->cap ? 2 * b->cap : 1024;
    for (size_t k = 0; k < t->ncols; k++) {
        raid_tcol *c = &b->col[k];
        const raid_tspec *s = &t->spec[k];
        if (grow((void **)&c->line, cap, sizeof *c->line))
            return -1;
        if ((s->type == RAID_T_DATE || s->type == RAID_T_TIMESTAMP || s->type == RAID_T_I64) &&
            grow((void **)&c->i64, cap, sizeof *c->i64))
            return -1;
        if (s->type == RAID_T_F64 && grow((void **)&c->f64, cap, sizeof *c->f64))
            return -1;
        if (s->type == RAID_T_TIMESTAMP && grow((void **)&c->tz_s, cap, sizeof *c->tz_s))
            return -1;
        if ((s->flags & RAID_T_EMPTY_NA) && grow((void **)&c->missing, cap, sizeof *c->missing))
            return -1;
        if (s->type == RAID_T_STRING || (s->flags & RAID_T_KEEP_TEXT)) {
            if (grow((void **)&c->text_off, cap + 1, sizeof *c->text_off))
                return -1;
            if (b->nrows == 0)
                c->text_off[0] = 0;
        }
    }
    if (t->keep_rows) {
        if (grow((void **)&b->row.text_off, cap + 1, sizeof *b->row.text_off))
            return -1;
        if (b->nrows == 0)
            b->row.text_off[0] = 0;
    }
    b->cap = cap;
    return 0;
}

static void batch_clear(raid_tbatch *b)
{
    b->nrows = 0;
    if (b->row.text_off)
        b->row.text_off[0] = 0;
    for (size_t k = 0; k < b->ncols; k++)
        if (b->col[k].text_off)
            b->col[k].text_off[0] = 0;
}

static int put_text(raid_tcol *c, size_t row, const char *s, size_t n)
{
    const size_t at = c->text_off[row];
    if (at + n + 1 > c->text_cap) {
        size_t cap = c->text_cap ? c->text_cap : 4096;
        while (cap < at + n + 1)
            cap *= 2;
        if (grow((void **)&c->text, cap, 1))
            return -1;
        c->text_cap = cap;
    }
    if (n)
        memcpy(c->text + at, s, n);
    c->text[at + n] = 0;
    c->text_off[row + 1] = at + n + 1;
    return 0;
}

/* ---------------------------------------------------------------------------------------------- */
/* Typed fields                                                                                    */
/* ---------------------------------------------------------------------------------------------- */

static int is_digit(char c) { return c >= '0' && c <= '9'; }

/* A decimal number, the whole of s[0..n) (s[n] == 0): [+-]digits[.digits][(e|E)[+-]digits] with at
 * least one digit before the exponent. 0 and the value, or -1. */
static int parse_decimal(const char *s, size_t n, double *v)
{
    size_t i = 0;
    if (i < n && (s[i] == '+' || s[i] == '-'))
        i++;
    size_t digits = 0;
    while (i < n && is_digit(s[i]))
        i++, digits++;
    if (i < n && s[i] == '.') {
        i++;
        while (i < n && is_digit(s[i]))
            i++, digits++;
    }
    if (digits == 0)
        return -1;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < n && (s[i] == '+' || s[i] == '-'))
            i++;
        const size_t e0 = i;
        while (i < n && is_digit(s[i]))
            i++;
        if (i == e0)
            return -1;
    }
    if (i != n)
        return -1;
    char *end;
    *v = strtod(s, &end);
    return end == s + n ? 0 : -1;
}

/* A decimal integer [+-]digits within int64. 0 or -1. */
static int parse_int(const char *s, size_t n, int64_t *v)
{
    size_t i = 0;
    int neg = 0;
    if (i < n && (s[i] == '+' || s[i] == '-'))
        neg = s[i++] == '-';
    if (i == n)
        return -1;
    uint64_t x = 0;
    const uint64_t lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    for (; i < n; i++) {
        if (!is_digit(s[i]))
            return -1;
        const unsigned d = (unsigned)(s[i] - '0');
        if (x > (lim - d) / 10)
            return -1;
        x = x * 10 + d;
    }
    *v = neg ? (x == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)x) : (int64_t)x;
    return 0;
}

int raid_table_number_int(const char *s, size_t n, int64_t *v)
{
    const size_t sign = n && (s[0] == '+' || s[0] == '-');
    if (n == sign)
        return 0;
    for (size_t i = sign; i < n; i++)
        if (!is_digit(s[i]))
            return 0;
    return parse_int(s, n, v) == 0 ? 1 : -1;
}

static const char *type_noun(raid_ttype ty)
{
    switch (ty) {
    case RAID_T_STRING: return "string";
    case RAID_T_DATE: return "date";
    case RAID_T_TIMESTAMP: return "timestamp";
    case RAID_T_F64: return "number";
    case RAID_T_I64: return "integer";
    }
    return "value";
}

/* s[0..n) for a message: at most 80 bytes, bytes outside printable ASCII as \xHH. */
static void show_escaped(char *out, size_t cap, const char *s, size_t n)
{
    size_t o = 0;
    for (size_t i = 0; i < n && i < 80 && o + 5 < cap; i++) {
        const unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c < 0x7F)
            out[o++] = (char)c;
        else
            o += (size_t)snprintf(out + o, cap - o, "\\x%02X", c);
    }
    out[o] = 0;
}

/* Parse the field of wanted column k into row `row` of the batch. 0, or -1 after a failure. */
static int put_field(raid_table *t, raid_tbatch *b, size_t k, size_t row)
{
    const raid_tspec *s = &t->spec[k];
    const field_buf *f = &t->fld[k];
    raid_tcol *c = &b->col[k];
    const size_t colno = t->col[k] + 1;
    c->line[row] = f->line;
    if (c->text_off && put_text(c, row, f->s, f->len) != 0) {
        tfail(t, RAID_ENOMEM, "out of memory");
        return -1;
    }
    if (s->flags & RAID_T_EMPTY_NA) {
        c->missing[row] = f->len == 0;
        if (f->len == 0) {
            if (c->f64)
                c->f64[row] = NAN;
            if (c->i64)
                c->i64[row] = 0;
            if (c->tz_s)
                c->tz_s[row] = RAID_T_NO_OFFSET;
            return 0;
        }
    }
    int bad = 0;
    switch (s->type) {
    case RAID_T_STRING: {
        const size_t at = raid_utf8_invalid_at(f->s, f->len);
        if (at < f->len) {
            char shown[400];
            show_escaped(shown, sizeof shown, f->s, f->len);
            pfail(t, f->line, colno, "%s is not valid UTF-8 (byte %zu is 0x%02X): '%s'", s->what, at + 1,
                            (unsigned)(unsigned char)f->s[at], shown);
            return -1;
        }
        break;
    }
    case RAID_T_DATE:
        bad = raid_io_parse_date(f->s, f->len, &c->i64[row]) != 0;
        break;
    case RAID_T_TIMESTAMP: {
        raid_io_ts ts;
        bad = raid_io_parse_timestamp(f->s, f->len, &ts) != 0;
        if (!bad) {
            c->i64[row] = ts.wall_us;
            c->tz_s[row] = ts.has_offset ? ts.offset_s : RAID_T_NO_OFFSET;
        }
        break;
    }
    case RAID_T_F64:
        bad = parse_decimal(f->s, f->len, &c->f64[row]) != 0;
        break;
    case RAID_T_I64:
        bad = parse_int(f->s, f->len, &c->i64[row]) != 0;
        break;
    }
    if (bad) {
        pfail(t, f->line, colno, "cannot parse %s '%.*s'", s->what, raid_table_show(f->len), f->s);
        return -1;
    }
    return 0;
}

/* ---------------------------------------------------------------------------------------------- */
/* Header and rows                                                                                 */
/* ---------------------------------------------------------------------------------------------- */

/* The header row: each field, left to right, is taken by the wanted columns of its name, in spec order.
 * A wanted column named again further on is an error unless DUP_FIRST (the first occurrence is taken);
 * a second wanted column of the same name as one that took the field is an error unless YIELD (it is then
 * absent). Then the first absent column not OPTIONAL, in spec order, is an error. */
static void process_header(raid_table *t)
{
    t->header_done = 1;
    t->nfields = t->nhdr;
    for (size_t k = 0; k < t->ncols; k++)
        t->col[k] = SIZE_MAX;
    for (size_t j = 0; j < t->nhdr; j++) {
        size_t taken = SIZE_MAX;
        for (size_t k = 0; k < t->ncols; k++) {
            if (strcasecmp(t->hdr[j], t->spec[k].name) != 0)
                continue;
            if (t->col[k] != SIZE_MAX) {
                if (t->spec[k].flags & RAID_T_DUP_FIRST)
                    continue;
                pfail(t, t->hdr_line, j + 1, "duplicate column '%s' (also column %zu)", t->spec[k].name,
                      t->col[k] + 1);
                return;
            }
            if (taken != SIZE_MAX) {
                if (t->spec[k].flags & RAID_T_YIELD)
                    continue;
                pfail(t, t->hdr_line, j + 1, "column '%s' is given two roles (%s and %s columns)", t->hdr[j],
                      t->spec[taken].what, t->spec[k].what);
                return;
            }
            taken = k;
            t->col[k] = j;
        }
    }
    for (size_t k = 0; k < t->ncols; k++) {
        if (t->col[k] == SIZE_MAX && !(t->spec[k].flags & RAID_T_OPTIONAL)) {
            pfail(t, t->hdr_line, 1, "missing column '%s'", t->spec[k].name);
            return;
        }
    }
}

static void process_row(raid_table *t)
{
    if (t->fidx != t->nfields) {
        if (t->fidx > t->nfields)
            pfail(t, t->extra_line, t->nfields + 1, "expected %zu fields, found %zu", t->nfields, t->fidx);
        else
            pfail(t, t->last_line, t->fidx, "expected %zu fields, found %zu", t->nfields, t->fidx);
        return;
    }
    raid_tbatch *b = t->b;
    assert(b);
    if (batch_room(t, b) != 0) {
        tfail(t, RAID_ENOMEM, "out of memory");
        return;
    }
    for (size_t k = 0; k < t->ncols; k++)
        if (t->col[k] != SIZE_MAX && put_field(t, b, k, b->nrows) != 0)
            return;
    if (t->keep_rows && put_text(&b->row, b->nrows, t->raw, t->raw_len) != 0) {
        tfail(t, RAID_ENOMEM, "out of memory");
        return;
    }
    b->nrows++;
}

/* Append s[0..n) to the raw bytes of the row being tokenised. 0 or -1 (out of memory, reported). */
static int raw_add(raid_table *t, const unsigned char *s, size_t n)
{
    if (t->raw_len + n > t->raw_cap) {
        size_t cap = t->raw_cap ? t->raw_cap : 256;
        while (cap < t->raw_len + n)
            cap *= 2;
        if (grow((void **)&t->raw, cap, 1)) {
            tfail(t, RAID_ENOMEM, "out of memory");
            return -1;
        }
        t->raw_cap = cap;
    }
    memcpy(t->raw + t->raw_len, s, n);
    t->raw_len += n;
    return 0;
}

static int store(field_buf *f, const char *s, size_t n)
{
    if (n + 1 > f->cap) {
        size_t cap = f->cap ? f->cap : 64;
        while (cap < n + 1)
            cap *= 2;
        char *p = realloc(f->s, cap);
        if (!p)
            return -1;
        f->s = p;
        f->cap = cap;
    }
    if (n)
        memcpy(f->s, s, n);
    f->s[n] = 0;
    f->len = n;
    return 0;
}

/* The number of lines that the row ending with terminator c (libcsv's row callback argument) and nfields
 * fields completes: with CSV_REPALL_NL libcsv reports every line break as the end of a row (a blank line
 * is a row of no fields), and CR, LF and CRLF each end one line; so 1, or 0 for the LF of a CRLF or the
 * end of the input. *last_term keeps the previous terminator (start it at 0). */
static int lines_ended(int c, size_t nfields, int *last_term)
{
    const int n = c == '\n' ? !(nfields == 0 && *last_term == '\r') : c == '\r';
    *last_term = c;
    return n;
}

/* libcsv callbacks */

static void on_field(void *data, size_t n, void *ud)
{
    raid_table *t = ud;
    const char *s = data ? data : "";
    if (!data)
        n = 0;
    const uint64_t line = t->cur_line;
    for (size_t i = 0; i < n; i++) /* line breaks inside quoted fields */
        if (s[i] == '\n' || (s[i] == '\r' && (i + 1 == n || s[i + 1] != '\n')))
            t->cur_line++;
    if (t->err.st != RAID_OK)
        return;
    const size_t k = t->fidx++;
    t->last_line = line;
    if (n && memchr(s, 0, n)) { /* C strings would cut the field short (and merge symbols) */
        pfail(t, line, k + 1, "NUL byte in field");
        return;
    }
    if (!t->header_done) {
        if (t->nhdr == t->hdr_cap) {
            size_t cap = t->hdr_cap ? t->hdr_cap * 2 : 16;
            char **h = realloc(t->hdr, cap * sizeof *h);
            if (!h) {
                tfail(t, RAID_ENOMEM, "out of memory");
                return;
            }
            t->hdr = h;
            t->hdr_cap = cap;
        }
        char *nm = malloc(n + 1);
        if (!nm) {
            tfail(t, RAID_ENOMEM, "out of memory");
            return;
        }
        if (n)
            memcpy(nm, s, n);
        nm[n] = 0;
        t->hdr[t->nhdr++] = nm;
        if (k == 0)
            t->hdr_line = line;
        return;
    }
    if (k == t->nfields)
        t->extra_line = line;
    for (size_t j = 0; j < t->ncols; j++) {
        if (t->col[j] == k) {
            if (store(&t->fld[j], s, n) != 0) {
                tfail(t, RAID_ENOMEM, "out of memory");
                return;
            }
            t->fld[j].line = line;
        }
    }
}

static void on_row(int c, void *ud)
{
    raid_table *t = ud;
    const size_t nf = t->fidx;
    if (c != -1 && t->raw_len > 0) /* the raw bytes end with the line break (input cut after it) */
        t->raw_len--;
    if (t->err.st == RAID_OK && nf > 0) {
        if (c == -1) /* ended by the end of the input, not by a line break */
            t->unterminated_line = t->last_line;
        if (!t->header_done) {
            process_header(t);
            if (!(t->hdr_text = malloc(t->raw_len + 1)))
                tfail(t, RAID_ENOMEM, "out of memory");
            else
                memcpy(t->hdr_text, t->raw ? t->raw : "", t->raw_len), t->hdr_text[t->hdr_len = t->raw_len] = 0;
        } else {
            process_row(t);
        }
    }
    t->raw_len = 0;
    t->cur_line += (uint64_t)lines_ended(c, nf, &t->last_term);
    t->fidx = 0;
}

/* ---------------------------------------------------------------------------------------------- */
/* Input                                                                                           */
/* ---------------------------------------------------------------------------------------------- */

/* Read the next block; blk_len 0 at the end of the input. */
size_t raid_io_read_full(FILE *f, void *buf, size_t n)
{
    size_t got = 0;
    while (got < n) {
        errno = 0;
        got += fread((char *)buf + got, 1, n - got, f);
        if (got == n || feof(f) || !ferror(f) || errno != EINTR)
            break;
        clearerr(f); /* a signal interrupted the read (a pipe, a FIFO, a terminal): read on */
    }
    return got;
}

static raid_status read_block(raid_table *t)
{
    t->blk_pos = 0;
    t->blk_len = raid_io_read_full(t->f, t->blk, BLOCK_SIZE);
    if (t->blk_len < BLOCK_SIZE && ferror(t->f))
        return tfail(t, RAID_EIO, "%s: read error: %s", t->path, strerror(errno));
    t->consumed += t->blk_len;
    return RAID_OK;
}

static raid_status csv_status(raid_table *t)
{
    if (t->err.st != RAID_OK)
        return t->err.st;
    const int e = csv_error(&t->csv);
    if (e == CSV_ENOMEM || e == CSV_ETOOBIG)
        return tfail(t, RAID_ENOMEM, "%s: out of memory in the CSV parser", t->path);
    return tfail(t, RAID_EPARSE, "%s:%llu:%zu: %s", t->path, (unsigned long long)t->cur_line, t->fidx + 1,
                 csv_strerror(e));
}

static void add_notice(raid_table *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add_notice(raid_table *t, const char *fmt, ...)
{
    if (t->nnotices == MAX_NOTICES)
        return;
    char m[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m, sizeof m, fmt, ap);
    va_end(ap);
    char *d = malloc(strlen(m) + 1);
    if (!d)
        return; /* a notice never fails a read */
    strcpy(d, m);
    t->notices[t->nnotices++] = d;
}

/* End of input: the last row, if it has no line break. */
static raid_status finish(raid_table *t)
{
    /* libcsv's state 2 is FIELD_BEGUN: a quoted field still open at the end of input. */
    if (t->err.st == RAID_OK && t->csv.pstate == 2 && t->csv.quoted)
        return tfail(t, RAID_EPARSE, "%s:%llu:%zu: unterminated quoted field", t->path,
                     (unsigned long long)t->cur_line, t->fidx + 1);
    if (csv_fini(&t->csv, on_field, on_row, t) != 0)
        return csv_status(t);
    if (t->err.st != RAID_OK)
        return t->err.st;
    t->at_end = 1;
    if (!t->header_done && t->cur_line > 1) /* line breaks and nothing else: the last blank line */
        return tfail(t, RAID_EPARSE, "%s:%llu:1: no header row: the file has only blank lines", t->path,
                     (unsigned long long)(t->cur_line - 1));
    if (!t->header_done)
        return tfail(t, RAID_EPARSE, "%s:1:1: empty input (no header row)", t->path);
    if (t->unterminated_line)
        add_notice(t,
                   "%s:%llu: the last line has no line break at its end; it was read as a complete row (if the "
                   "file was cut short there, its last value is cut short too)",
                   t->path, (unsigned long long)t->unterminated_line);
    return RAID_OK;
}

void raid_table_close(raid_table *t)
{
    if (!t)
        return;
    if (t->f && !t->is_stdin)
        fclose(t->f);
    if (t->csv_inited)
        csv_free(&t->csv);
    free(t->blk);
    free(t->raw);
    free(t->hdr_text);
    free(t->path);
    for (size_t k = 0; k < t->ncols; k++) {
        if (t->spec) {
            free((char *)t->spec[k].name);
            free((char *)t->spec[k].what);
        }
        if (t->fld)
            free(t->fld[k].s);
    }
    free(t->spec);
    free(t->col);
    free(t->fld);
    for (size_t i = 0; i < t->nhdr; i++)
        free(t->hdr[i]);
    free(t->hdr);
    for (size_t i = 0; i < t->nnotices; i++)
        free(t->notices[i]);
    free(t);
}

static char *xstrdup(const char *s)
{
    const size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

raid_status raid_table_open(raid_table **out, const char *path, const raid_tspec *cols, size_t ncols)
{
    if (!out)
        return raid_fail(NULL, RAID_EINVAL, "raid_table_open: out is NULL");
    *out = NULL;
    if (!path || !*path || !cols || ncols == 0)
        return raid_fail(NULL, RAID_EINVAL, "raid_table_open: no path or no columns");
    for (size_t k = 0; k < ncols; k++)
        if (!cols[k].name || !*cols[k].name)
            return raid_fail(NULL, RAID_EINVAL, "empty name for the %s column", cols[k].what);
    raid_table *t = calloc(1, sizeof *t);
    if (!t)
        return raid_fail(NULL, RAID_ENOMEM, "out of memory");
    t->cur_line = 1;
    t->ncols = ncols;
    t->path = xstrdup(path);
    t->blk = malloc(BLOCK_SIZE);
    t->spec = calloc(ncols, sizeof *t->spec);
    t->col = calloc(ncols, sizeof *t->col);
    t->fld = calloc(ncols, sizeof *t->fld);
    int ok = t->path && t->blk && t->spec && t->col && t->fld;
    for (size_t k = 0; ok && k < ncols; k++) {
        t->spec[k] = cols[k];
        t->spec[k].name = xstrdup(cols[k].name);
        t->spec[k].what = xstrdup(cols[k].what ? cols[k].what : type_noun(cols[k].type));
        ok = t->spec[k].name && t->spec[k].what;
    }
    if (!ok) {
        raid_table_close(t);
        return raid_fail(NULL, RAID_ENOMEM, "out of memory");
    }
    if (strcmp(path, "-") == 0) {
        t->f = stdin;
        t->is_stdin = 1;
    } else {
        t->f = fopen(path, "rb");
        if (!t->f) {
            const int e = errno;
            raid_table_close(t);
            return raid_fail(NULL, RAID_EIO, "%s: %s", path, strerror(e));
        }
        struct stat st;
        if (fstat(fileno(t->f), &st) == 0 && S_ISREG(st.st_mode))
            t->total = (uint64_t)st.st_size;
    }
    if (csv_init(&t->csv, CSV_REPALL_NL) != 0) {
        raid_table_close(t);
        return raid_fail(NULL, RAID_ENOMEM, "out of memory");
    }
    t->csv_inited = 1;

    /* The header: parse byte by byte so that no data row is tokenised before open returns. A UTF-8 byte
     * order mark at the start is skipped. */
    if (read_block(t) == RAID_OK && t->blk_len >= 3 && memcmp(t->blk, "\xEF\xBB\xBF", 3) == 0) {
        t->blk_pos = 3;
        /* A second mark (a file converted twice) would glue itself to the first column's name, which
         * then is not found, or silently not (an optional symbol column): an error. */
        if (t->blk_len >= 6 && memcmp(t->blk + 3, "\xEF\xBB\xBF", 3) == 0)
            pfail(t, 1, 1, "a second UTF-8 byte order mark at the start of the file (EF BB BF EF BB BF); "
                           "remove the extra one");
    }
    while (t->err.st == RAID_OK && !t->header_done) {
        if (t->blk_pos == t->blk_len) {
            if (read_block(t) != RAID_OK)
                break;
            if (t->blk_len == 0) {
                finish(t);
                break;
            }
        }
        if (raw_add(t, t->blk + t->blk_pos, 1) != 0)
            break;
        if (csv_parse(&t->csv, t->blk + t->blk_pos, 1, on_field, on_row, t) != 1) {
            csv_status(t);
            break;
        }
        t->blk_pos++;
    }
    if (t->err.st != RAID_OK) {
        const raid_status s = t->err.st;
        raid_sticky_again(&t->err);
        raid_table_close(t);
        return s;
    }
    for (size_t i = 0; i < t->nhdr; i++)
        free(t->hdr[i]);
    free(t->hdr);
    t->hdr = NULL;
    t->nhdr = t->hdr_cap = 0;
    *out = t;
    return RAID_OK;
}

raid_status raid_table_read(raid_table *t, raid_tbatch *b, size_t max_rows, int *done)
{
    if (done)
        *done = 0;
    if (!t || !b || !done || b->ncols != t->ncols || max_rows == 0)
        return t ? tfail(t, RAID_EINVAL, "raid_table_read: bad argument")
                 : raid_fail(NULL, RAID_EINVAL, "raid_table_read: bad argument");
    batch_clear(b);
    if (t->err.st != RAID_OK)
        return raid_sticky_again(&t->err);
    t->b = b;
    raid_status s = RAID_OK;
    while (b->nrows < max_rows) {
        if (t->at_end) {
            *done = 1;
            break;
        }
        if (t->blk_pos == t->blk_len) {
            if ((s = read_block(t)) != RAID_OK)
                break;
            if (t->blk_len == 0) {
                if ((s = finish(t)) != RAID_OK)
                    break;
                continue;
            }
        }
        size_t len = t->blk_len - t->blk_pos;
        if (len > PIECE_SIZE)
            len = PIECE_SIZE;
        if (t->keep_rows) { /* up to the first line break: a row's end is then the end of what is parsed */
            const unsigned char *p = t->blk + t->blk_pos;
            size_t i = 0;
            while (i < len && p[i] != '\n' && p[i] != '\r')
                i++;
            len = i < len ? i + 1 : len;
            if (raw_add(t, p, len) != 0) {
                s = t->err.st;
                break;
            }
        }
        const size_t used = csv_parse(&t->csv, t->blk + t->blk_pos, len, on_field, on_row, t);
        t->blk_pos += len;
        if (t->err.st != RAID_OK) {
            s = t->err.st;
            break;
        }
        if (used != len) {
            s = csv_status(t);
            break;
        }
    }
    if (t->at_end && s == RAID_OK)
        *done = 1;
    t->b = NULL;
    return s;
}
