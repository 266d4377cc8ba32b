/* Reading intraday prices (or daily-segmented returns) from CSV into (symbol, local date) segments.
 *
 * Input: long-format CSV with a header row, parsed by libcsv in fixed 1 MiB blocks so that files of any
 * size are read in bounded memory (the open segments, one per symbol, plus the batch). Every field's
 * line and 1-based column (field number) is tracked for error messages "FILE:LINE:COL: what".
 * Timestamps: ISO 8601 (timeparse.c). Those with an offset are converted to UTC and then to the local
 * time of opts->tz with the zone's rules read from the system's TZif files (RFC 8536; tz.c).
 * Sampling: sample_us == 0 takes every observation ("tick"); sample_us > 0 is calendar-time
 * previous-tick sampling (as highfrequency's aggregateTS / Andersen, Bollerslev, Diebold and Labys
 * 2001): grid points at multiples of the interval after local midnight, inside [first, last]
 * observation of the day, each taking the last price at or before it. Returns within a segment are
 * r_i = log1p(q) with q = (p_i - p_{i-1}) / p_{i-1} when q is finite and -0.5 <= q <= 1, that is for
 * p_i / p_{i-1} in [0.5, 2], where the difference is exact (Sterbenz) and r carries about one rounding of
 * relative error (log(p_i / p_{i-1}) has an absolute error of about 2^-53, a relative error of 2^-53/|r|,
 * 1e-12 at r = 1e-4; log(p_i) - log(p_{i-1}) loses a further log2|log p| bits to cancellation). Otherwise
 * r_i = log(p_i) - log(p_{i-1}), finite for any positive finite prices (|r| < 1500) where q may overflow
 * (1e-200 -> 1e200) or round to -1. Returns input must be finite with |r| <= 1e74 (RAID_MAX_RETURN: the
 * library's quarticity sums take fourth powers). A NUL byte in any field and a column RAID uses named
 * twice in the header are errors.
 * docs/input.md describes the format. */
#define _POSIX_C_SOURCE 200809L
#include "io/csv_lines.h"
#include "core/internal.h"
#include "io/segment.h"
#include "io/tz.h"

#include <csv.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#define BLOCK_SIZE ((size_t)1 << 20)
#define PREV_TEXT 64

/* ---------------------------------------------------------------------------------------------- */
/* Reader state                                                                                    */
/* ---------------------------------------------------------------------------------------------- */

typedef struct field_buf {
    char *s;
    size_t len, cap;
    uint64_t line;
} field_buf;

enum { F_SYM = 0, F_TIME = 1, F_VAL = 2, NF = 3 };

struct raid_reader {
    char *path;
    FILE *f;
    int is_stdin;
    uint64_t consumed, total;
    struct csv_parser csv;
    int csv_inited;
    unsigned char *blk;
    size_t blk_len, blk_pos;
    int eof;       /* csv_fini done, open segments flushed */

    raid_input_kind kind;
    char *colname[NF];         /* wanted column names */
    int sym_required;
    raid_seg *sg;              /* the segmenter: symbols, order, session, sampling, queue */

    /* header */
    int header_done;
    char **hdr;
    size_t nhdr, hdr_cap;
    uint64_t hdr_line;
    int col[NF];               /* 0-based field index of each wanted column, -1 if absent */
    size_t nfields;            /* fields per row */

    /* current row */
    size_t fidx;
    uint64_t cur_line;         /* line where the next field starts */
    int last_term;
    uint64_t row_line, extra_line, last_line;
    field_buf fld[NF];

    raid_status st;
    char errmsg[RAID_ERRMSG_LEN];
};

static raid_status fail(raid_reader *rd, raid_status s, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static raid_status fail(raid_reader *rd, raid_status s, const char *fmt, ...)
{
    if (rd->st != RAID_OK)
        return rd->st;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(rd->errmsg, sizeof rd->errmsg, fmt, ap);
    va_end(ap);
    rd->st = s;
    return raid_fail(NULL, s, "%s", rd->errmsg);
}

#define PARSE_FAIL(rd, line, col, ...)                                                                \
    do {                                                                                              \
        char m_[RAID_ERRMSG_LEN / 2];                                                                 \
        snprintf(m_, sizeof m_, __VA_ARGS__);                                                         \
        fail(rd, RAID_EPARSE, "%s:%llu:%llu: %s", (rd)->path, (unsigned long long)(line),               \
             (unsigned long long)(col), m_);                                                          \
    } while (0)

/* A field's text for a message: at most 80 bytes, quoted by the caller. */
static int show_len(size_t n) { return n > 80 ? 80 : (int)n; }

static char *xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

/* ---------------------------------------------------------------------------------------------- */
/* Rows                                                                                            */
/* ---------------------------------------------------------------------------------------------- */

static int parse_double(const char *s, size_t n, double *v)
{
    if (n == 0)
        return -1;
    char *end;
    errno = 0;
    *v = strtod(s, &end);
    if (end != s + n)
        return -1;
    return 0;
}

static void process_header(raid_reader *rd)
{
    rd->header_done = 1;
    rd->nfields = rd->nhdr;
    for (int k = 0; k < NF; k++) {
        rd->col[k] = -1;
        for (size_t j = 0; j < rd->nhdr; j++) {
            if (strcasecmp(rd->hdr[j], rd->colname[k]) == 0) {
                rd->col[k] = (int)j;
                break;
            }
        }
    }
    if (rd->col[F_SYM] < 0 && rd->sym_required)
        PARSE_FAIL(rd, rd->hdr_line, 1, "missing column '%s'", rd->colname[F_SYM]);
    else if (rd->col[F_TIME] < 0)
        PARSE_FAIL(rd, rd->hdr_line, 1, "missing column '%s'", rd->colname[F_TIME]);
    else if (rd->col[F_VAL] < 0)
        PARSE_FAIL(rd, rd->hdr_line, 1, "missing column '%s'", rd->colname[F_VAL]);
    if (rd->st != RAID_OK)
        return;
    /* A used column named twice: report the earliest second occurrence. */
    size_t dup = rd->nhdr;
    int dupk = -1;
    for (int k = 0; k < NF; k++) {
        if (rd->col[k] < 0)
            continue;
        for (size_t j = (size_t)rd->col[k] + 1; j < rd->nhdr && j < dup; j++) {
            if (strcasecmp(rd->hdr[j], rd->colname[k]) == 0) {
                dup = j;
                dupk = k;
                break;
            }
        }
    }
    if (dupk >= 0)
        PARSE_FAIL(rd, rd->hdr_line, dup + 1, "duplicate column '%s'", rd->colname[dupk]);
}

#define FTEXT(k) show_len(rd->fld[k].len), rd->fld[k].s
#define FLINE(k) rd->fld[k].line
#define FCOL(k) (rd->col[k] + 1)

/* A segmenter code of the row just given (raid_seg_price / raid_seg_return) into the reader's status. */
static void seg_result(raid_reader *rd, int rc, uint32_t si)
{
    if (rc == RAID_SEG_OK)
        return;
    if (rc == RAID_SEG_ENOMEM) {
        fail(rd, RAID_ENOMEM, "out of memory");
        return;
    }
    uint64_t pline;
    const char *ptext;
    raid_seg_prev(rd->sg, si, &pline, &ptext, NULL);
    const char *what = rc == RAID_SEG_TIME_BACK ? "time" : "date";
    PARSE_FAIL(rd, FLINE(F_TIME), FCOL(F_TIME), "%s goes backwards for symbol '%s': '%.*s' before '%s' (line %llu)",
               what, raid_seg_symbol_name(rd->sg, si), FTEXT(F_TIME), ptext, (unsigned long long)pline);
}

static void process_prices(raid_reader *rd, uint32_t si)
{
    raid_io_ts ts;
    if (raid_io_parse_timestamp(rd->fld[F_TIME].s, rd->fld[F_TIME].len, &ts) != 0) {
        PARSE_FAIL(rd, FLINE(F_TIME), FCOL(F_TIME), "cannot parse timestamp '%.*s'", FTEXT(F_TIME));
        return;
    }
    double p;
    if (parse_double(rd->fld[F_VAL].s, rd->fld[F_VAL].len, &p) != 0) {
        PARSE_FAIL(rd, FLINE(F_VAL), FCOL(F_VAL), "cannot parse price '%.*s'", FTEXT(F_VAL));
        return;
    }
    if (!(p > 0) || !isfinite(p)) {
        PARSE_FAIL(rd, FLINE(F_VAL), FCOL(F_VAL), "price must be positive and finite: '%.*s'", FTEXT(F_VAL));
        return;
    }
    int64_t instant = ts.wall_us, local = ts.wall_us;
    if (ts.has_offset) {
        instant = ts.wall_us - (int64_t)ts.offset_s * RAID_US_PER_S;
        local = raid_seg_local(rd->sg, instant);
    }
    const raid_seg_row w = {FLINE(F_TIME), rd->fld[F_TIME].s, rd->fld[F_TIME].len, instant};
    seg_result(rd, raid_seg_price(rd->sg, si, instant, local, p, &w), si);
}

static void process_returns(raid_reader *rd, uint32_t si)
{
    int64_t day;
    if (raid_io_parse_date(rd->fld[F_TIME].s, rd->fld[F_TIME].len, &day) != 0) {
        PARSE_FAIL(rd, FLINE(F_TIME), FCOL(F_TIME), "cannot parse date '%.*s'", FTEXT(F_TIME));
        return;
    }
    double r;
    if (parse_double(rd->fld[F_VAL].s, rd->fld[F_VAL].len, &r) != 0) {
        PARSE_FAIL(rd, FLINE(F_VAL), FCOL(F_VAL), "cannot parse return '%.*s'", FTEXT(F_VAL));
        return;
    }
    if (!isfinite(r)) {
        PARSE_FAIL(rd, FLINE(F_VAL), FCOL(F_VAL), "return must be finite: '%.*s'", FTEXT(F_VAL));
        return;
    }
    if (fabs(r) > RAID_MAX_RETURN) {
        PARSE_FAIL(rd, FLINE(F_VAL), FCOL(F_VAL), "return out of range (|r| > 1e74): '%.*s'", FTEXT(F_VAL));
        return;
    }
    const raid_seg_row w = {FLINE(F_TIME), rd->fld[F_TIME].s, rd->fld[F_TIME].len, day};
    seg_result(rd, raid_seg_return(rd->sg, si, day, r, &w), si);
}

static void process_row(raid_reader *rd)
{
    if (rd->fidx != rd->nfields) {
        if (rd->fidx > rd->nfields)
            PARSE_FAIL(rd, rd->extra_line, rd->nfields + 1, "expected %zu fields, found %zu", rd->nfields,
                       rd->fidx);
        else
            PARSE_FAIL(rd, rd->last_line, rd->fidx, "expected %zu fields, found %zu", rd->nfields, rd->fidx);
        return;
    }
    int64_t si = 0;
    if (rd->col[F_SYM] >= 0)
        si = raid_seg_symbol(rd->sg, rd->fld[F_SYM].s, rd->fld[F_SYM].len);
    else if (raid_seg_nsymbols(rd->sg) == 0)
        si = raid_seg_symbol(rd->sg, "", 0);
    if (si < 0) {
        fail(rd, RAID_ENOMEM, "out of memory");
        return;
    }
    if (rd->kind == RAID_INPUT_PRICES)
        process_prices(rd, (uint32_t)si);
    else
        process_returns(rd, (uint32_t)si);
}

/* libcsv callbacks */

static int store(field_buf *f, const char *s, size_t n)
{
    if (n + 1 > f->cap) {
        size_t cap = f->cap ? f->cap : 64;
        while (cap < n + 1)
            cap *= 2;
        char *t = realloc(f->s, cap);
        if (!t)
            return -1;
        f->s = t;
        f->cap = cap;
    }
    if (n)
        memcpy(f->s, s, n);
    f->s[n] = 0;
    f->len = n;
    return 0;
}

static void on_field(void *data, size_t n, void *ud)
{
    raid_reader *rd = ud;
    const char *s = data ? data : "";
    if (!data)
        n = 0;
    uint64_t line = rd->cur_line;
    for (size_t i = 0; i < n; i++) /* line breaks inside quoted fields */
        if (s[i] == '\n' || (s[i] == '\r' && (i + 1 == n || s[i + 1] != '\n')))
            rd->cur_line++;
    if (rd->st != RAID_OK)
        return;
    size_t k = rd->fidx++;
    if (k == 0)
        rd->row_line = line;
    rd->last_line = line;
    if (n && memchr(s, 0, n)) { /* C strings would cut the field short (and merge symbols) */
        PARSE_FAIL(rd, line, k + 1, "NUL byte in field");
        return;
    }
    if (!rd->header_done) {
        if (rd->nhdr == rd->hdr_cap) {
            size_t cap = rd->hdr_cap ? rd->hdr_cap * 2 : 16;
            char **t = realloc(rd->hdr, cap * sizeof *t);
            if (!t) {
                fail(rd, RAID_ENOMEM, "out of memory");
                return;
            }
            rd->hdr = t;
            rd->hdr_cap = cap;
        }
        char *nm = malloc(n + 1);
        if (!nm) {
            fail(rd, RAID_ENOMEM, "out of memory");
            return;
        }
        if (n)
            memcpy(nm, s, n);
        nm[n] = 0;
        rd->hdr[rd->nhdr++] = nm;
        if (k == 0)
            rd->hdr_line = line;
        return;
    }
    if (k == rd->nfields)
        rd->extra_line = line;
    for (int j = 0; j < NF; j++) {
        if (rd->col[j] == (int)k) {
            if (store(&rd->fld[j], s, n) != 0) {
                fail(rd, RAID_ENOMEM, "out of memory");
                return;
            }
            rd->fld[j].line = line;
        }
    }
}

static void on_row(int c, void *ud)
{
    raid_reader *rd = ud;
    size_t nf = rd->fidx;
    if (rd->st == RAID_OK && nf > 0) {
        if (!rd->header_done)
            process_header(rd);
        else
            process_row(rd);
    }
    rd->cur_line += (uint64_t)raid_csv_lines_ended(c, nf, &rd->last_term);
    rd->fidx = 0;
}

/* ---------------------------------------------------------------------------------------------- */
/* Open, next, close                                                                               */
/* ---------------------------------------------------------------------------------------------- */

void raid_reader_close(raid_reader *rd)
{
    if (!rd)
        return;
    if (rd->f && !rd->is_stdin)
        fclose(rd->f);
    if (rd->csv_inited)
        csv_free(&rd->csv);
    free(rd->blk);
    free(rd->path);
    for (int k = 0; k < NF; k++) {
        free(rd->colname[k]);
        free(rd->fld[k].s);
    }
    raid_seg_free(rd->sg);
    for (size_t i = 0; i < rd->nhdr; i++)
        free(rd->hdr[i]);
    free(rd->hdr);
    free(rd);
}

/* Read the next block into rd->blk; sets blk_len (0 at end of input). */
static raid_status read_block(raid_reader *rd)
{
    rd->blk_pos = 0;
    rd->blk_len = fread(rd->blk, 1, BLOCK_SIZE, rd->f);
    if (rd->blk_len < BLOCK_SIZE && ferror(rd->f))
        return fail(rd, RAID_EIO, "%s: read error: %s", rd->path, strerror(errno));
    rd->consumed += rd->blk_len;
    return RAID_OK;
}

static raid_status csv_status(raid_reader *rd)
{
    if (rd->st != RAID_OK)
        return rd->st;
    int e = csv_error(&rd->csv);
    if (e == CSV_ENOMEM || e == CSV_ETOOBIG)
        return fail(rd, RAID_ENOMEM, "%s: out of memory in the CSV parser", rd->path);
    return fail(rd, RAID_EPARSE, "%s:%llu:%zu: %s", rd->path, (unsigned long long)rd->cur_line,
                rd->fidx + 1, csv_strerror(e));
}

/* End of input: last row, then every open segment (in symbol order). */
static raid_status finish(raid_reader *rd)
{
    /* libcsv's state 2 is FIELD_BEGUN: a quoted field still open at the end of input. */
    if (rd->st == RAID_OK && rd->csv.pstate == 2 && rd->csv.quoted)
        return fail(rd, RAID_EPARSE, "%s:%llu:%zu: unterminated quoted field", rd->path,
                    (unsigned long long)rd->cur_line, rd->fidx + 1);
    if (csv_fini(&rd->csv, on_field, on_row, rd) != 0)
        return csv_status(rd);
    if (rd->st != RAID_OK)
        return rd->st;
    if (!rd->header_done)
        return fail(rd, RAID_EPARSE, "%s:1:1: empty input (no header row)", rd->path);
    if (raid_seg_finish(rd->sg) != RAID_OK)
        return fail(rd, RAID_ENOMEM, "out of memory");
    rd->eof = 1;
    return RAID_OK;
}

/* A failure of raid_reader_open: the thread's message and, for compatibility, errbuf. */
static raid_status open_fail(char *errbuf, size_t errbuf_len, raid_status s, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static raid_status open_fail(char *errbuf, size_t errbuf_len, raid_status s, const char *fmt, ...)
{
    char m[RAID_ERRMSG_LEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m, sizeof m, fmt, ap);
    va_end(ap);
    raid_msg(errbuf, errbuf_len, "%s", m);
    return raid_fail(NULL, s, "%s", m);
}

raid_status raid_reader_open(raid_reader **out, const char *path, const raid_read_opts *o, char *errbuf,
                             size_t errbuf_len)
{
    if (!out)
        return open_fail(errbuf, errbuf_len, RAID_EINVAL, "raid_reader_open: out is NULL");
    *out = NULL;
    raid_read_opts defaults;
    if (!o) {
        raid_read_opts_init(&defaults);
        o = &defaults;
    }
    if (!path || !*path)
        return open_fail(errbuf, errbuf_len, RAID_EINVAL, "raid_reader_open: no path");
    raid_seg *sg = NULL;
    raid_status s = raid_seg_create(&sg, o, "raid_reader_open");
    if (s != RAID_OK)
        return open_fail(errbuf, errbuf_len, s, "%s", raid_errmsg());
    const char *names[NF];
    int ret = o->kind == RAID_INPUT_RETURNS;
    names[F_SYM] = o->symbol_col ? o->symbol_col : "symbol";
    names[F_TIME] = ret ? (o->date_col ? o->date_col : "date") : (o->time_col ? o->time_col : "timestamp");
    names[F_VAL] = ret ? (o->ret_col ? o->ret_col : "ret") : (o->price_col ? o->price_col : "price");
    for (int k = 0; k < NF; k++) {
        if (!*names[k]) {
            raid_seg_free(sg);
            return open_fail(errbuf, errbuf_len, RAID_EINVAL, "raid_reader_open: empty column name");
        }
    }

    raid_reader *rd = calloc(1, sizeof *rd);
    if (!rd) {
        raid_seg_free(sg);
        return open_fail(errbuf, errbuf_len, RAID_ENOMEM, "out of memory");
    }
    rd->sg = sg;
    rd->kind = o->kind;
    rd->sym_required = o->symbol_col != NULL;
    rd->cur_line = 1;
    rd->path = xstrdup(path);
    rd->blk = malloc(BLOCK_SIZE);
    int ok = rd->path && rd->blk;
    for (int k = 0; k < NF; k++)
        ok = ok && (rd->colname[k] = xstrdup(names[k])) != NULL;
    if (!ok) {
        raid_reader_close(rd);
        return open_fail(errbuf, errbuf_len, RAID_ENOMEM, "out of memory");
    }
    if (strcmp(path, "-") == 0) {
        rd->f = stdin;
        rd->is_stdin = 1;
    } else {
        rd->f = fopen(path, "rb");
        if (!rd->f) {
            const int e = errno;
            raid_reader_close(rd);
            return open_fail(errbuf, errbuf_len, RAID_EIO, "%s: %s", path, strerror(e));
        }
        struct stat stt;
        if (fstat(fileno(rd->f), &stt) == 0 && S_ISREG(stt.st_mode))
            rd->total = (uint64_t)stt.st_size;
    }
    if (csv_init(&rd->csv, CSV_REPALL_NL) != 0) {
        raid_reader_close(rd);
        return open_fail(errbuf, errbuf_len, RAID_ENOMEM, "out of memory");
    }
    rd->csv_inited = 1;

    /* The header: parse byte by byte so that no data row is processed before open returns. A UTF-8
     * byte order mark at the start is skipped. */
    if (read_block(rd) == RAID_OK && rd->blk_len >= 3 && memcmp(rd->blk, "\xEF\xBB\xBF", 3) == 0)
        rd->blk_pos = 3;
    while (rd->st == RAID_OK && !rd->header_done) {
        if (rd->blk_pos == rd->blk_len) {
            if (read_block(rd) != RAID_OK)
                break;
            if (rd->blk_len == 0) {
                finish(rd);
                break;
            }
        }
        if (csv_parse(&rd->csv, rd->blk + rd->blk_pos, 1, on_field, on_row, rd) != 1) {
            csv_status(rd);
            break;
        }
        rd->blk_pos++;
    }
    if (rd->st != RAID_OK) {
        s = rd->st;
        open_fail(errbuf, errbuf_len, s, "%s", rd->errmsg);
        raid_reader_close(rd);
        return s;
    }
    for (size_t i = 0; i < rd->nhdr; i++)
        free(rd->hdr[i]);
    free(rd->hdr);
    rd->hdr = NULL;
    rd->nhdr = rd->hdr_cap = 0;
    *out = rd;
    return RAID_OK;
}

raid_status raid_reader_next(raid_reader *rd, raid_batch *b, size_t max_returns, int *done)
{
    if (done)
        *done = 0;
    if (!rd || !b || !done)
        return rd ? fail(rd, RAID_EINVAL, "raid_reader_next: NULL argument")
                  : raid_fail(NULL, RAID_EINVAL, "raid_reader_next: NULL argument");
    if (rd->st != RAID_OK)
        return raid_fail(NULL, rd->st, "%s", rd->errmsg);
    size_t before = b->nseg;
    for (;;) {
        /* Deliver queued segments: at least one per call, then until max_returns. */
        if (raid_seg_queued(rd->sg) && raid_seg_take(rd->sg, b, max_returns) != RAID_OK)
            return fail(rd, RAID_ENOMEM, "out of memory");
        if (b->nseg > before && b->nret >= max_returns)
            return RAID_OK;
        if (rd->eof) {
            if (raid_seg_queued(rd->sg) == 0)
                *done = 1;
            return RAID_OK;
        }
        /* Parse more input (the queue is empty here). */
        if (rd->blk_pos == rd->blk_len) {
            if (read_block(rd) != RAID_OK)
                return rd->st;
            if (rd->blk_len == 0) {
                if (finish(rd) != RAID_OK)
                    return rd->st;
                continue;
            }
        }
        size_t len = rd->blk_len - rd->blk_pos;
        size_t used = csv_parse(&rd->csv, rd->blk + rd->blk_pos, len, on_field, on_row, rd);
        rd->blk_pos = rd->blk_len;
        if (rd->st != RAID_OK)
            return rd->st;
        if (used != len)
            return csv_status(rd);
    }
}

const char *raid_reader_errmsg(const raid_reader *rd) { return rd ? rd->errmsg : ""; }

const char *raid_reader_symbol(const raid_reader *rd, uint32_t i) { return rd ? raid_seg_symbol_name(rd->sg, i) : NULL; }

size_t raid_reader_notice_count(const raid_reader *rd) { return rd ? raid_seg_notice_count(rd->sg) : 0; }

const char *raid_reader_notice(const raid_reader *rd, size_t i) { return rd ? raid_seg_notice(rd->sg, i) : NULL; }

void raid_reader_progress(const raid_reader *rd, uint64_t *consumed, uint64_t *total)
{
    if (consumed)
        *consumed = rd ? rd->consumed : 0;
    if (total)
        *total = rd && !rd->is_stdin ? rd->total : 0;
}
