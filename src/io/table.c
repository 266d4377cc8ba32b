/* The table reader (table.h): the file cut at row boundaries into blocks parsed in parallel and handed
 * over in file order; line and field tracking for FILE:LINE:COL messages, header mapping, typed columns,
 * batches.
 *
 * Design (docs/input.md "How the table reader works"):
 * - Input: a regular file is memory-mapped; standard input, a pipe or a FIFO streams through block
 *   buffers (bounded memory). The header row is read first, byte by byte, by libcsv.
 * - Cutting (the calling thread, cut_block): blocks of about BLOCK_SIZE bytes, each ending right after a
 *   line feed that ends a row. A block with no '"' is cut after its last LF (without quotes every line
 *   break ends a row). Otherwise the cut is found by running libcsv's own state machine (non-strict mode:
 *   a quote opens a quoted field only at the start of a field, "" inside it is a quote, text after a
 *   closing quote continues the field) from the block's start, which is a row boundary, so that a line
 *   break inside a quoted field is never a cut, whatever the quote parity of the block. A mapped file is
 *   cut without a scan while no quote has been seen (slot.spec: the last LF within the block size, found
 *   from the end); the parsing thread checks its block for a quote and cuts it again where cut_block would
 *   have; a block that then ends elsewhere voids the blocks cut after it (release_head), and from the
 *   first quoted block on every cut is exact.
 * - Parsing (worker threads, one block each; parse_block, then the caller's block function and the drop of
 *   the block's mapped pages): rows without quotes or lone CRs by a direct
 *   scanner (parse_fast), exactly libcsv's rules for such rows (fields split at commas, spaces and tabs
 *   around them dropped, CRLF as one line break, a line of blanks skipped); from the first row that has a
 *   quote or a lone CR to the end of the block, libcsv itself (the same callbacks as for the header).
 *   Each block fills its own batch with lines counted from the block's start and stops at its first error,
 *   recorded with its position; its message text is made only then.
 * - Merging (the calling thread, raidTableRead): blocks are taken in file order; their rows are handed
 *   to the caller's batch (the block's arrays swapped in whole when they fit, else copied) with the line
 *   numbers of the earlier blocks added; a block's error becomes the table's error once every row before
 *   it has been handed over, so the first error in file order is the one reported, word for word as a
 *   sequential reader gives it. The caller's work on a batch (segmenting, measures) runs while the
 *   workers parse the next blocks.
 * - Raw rows (raidTableKeepRows; the header's always): a row's bytes are a span of its block, from the
 *   first byte after the previous line break to the byte before its own. The direct scanner knows both
 *   ends; libcsv is then fed one line at a time (up to and including the next CR or LF), so that a row it
 *   ends, ends at the last byte fed (a line break inside a quoted field ends none). */
#define _GNU_SOURCE /* memrchr */
#include "io/table.h"
#include "core/internal.h"
#include "io/fastfloat.h"
#include "io/sticky.h"
#include "io/symtab.h"
#include "io/tz.h"
#include "io/utf8.h"

#include <assert.h>
#include <csv.h>
#include <errno.h>
#include <math.h>
#include <omp.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#define BLOCK_SIZE ((size_t)1 << 20) /* bytes per block (a block ends at the first row end past it) */
#define HEAD_SIZE ((size_t)1 << 16)  /* bytes read at a time for the header of a stream */
#define MAX_NOTICES 4
#define MAX_WORKERS 64

/* Test knobs (raidTableTestTuning): 0 = defaults. */
static size_t tune_block;
static int tune_threads = -1;
static int tune_libcsv_only;

void raidTableTestTuning(size_t block_bytes, int threads, int libcsv_only)
{
    tune_block = block_bytes;
    tune_threads = threads;
    tune_libcsv_only = libcsv_only;
}

typedef struct field_buf {
    char *s; /* NUL-terminated */
    size_t len, cap;
    uint64_t line;
} field_buf;

/* The state of one parse: the header's, or one block's. Lines count from `cur_line`'s start (1 for the
 * header, 0 at a block's first line: the merge adds the block's first line). */
typedef struct pctx {
    RaidTable *t;
    struct csv_parser csv;
    int csv_inited;
    int header; /* collecting the header's names */
    size_t fidx;
    uint64_t cur_line; /* line where the next field starts */
    int last_term;
    uint64_t extra_line, last_line;
    field_buf *fld;        /* libcsv path: one per wanted column */
    const char **fs;       /* fast path: the wanted fields of the row */
    size_t *fl;
    int unterminated;      /* the last row ended without a line break, at line last_line */
    RaidIoDayCache days; /* the last date parsed */
    RaidSymtab *keys;     /* KEYS columns: the block's distinct values (one table per wanted column) */
    RaidTbatch *b;
    /* raw rows: offsets from rbase of the row's first byte and of the byte that ends what libcsv was fed
     * last (its line break, or the end of the input) */
    const unsigned char *rbase;
    size_t rstart, rend;
    size_t csv_from; /* parse_block: where the direct scanner stopped (a quote or a lone CR), the block's
                        length when it read every row or stopped at an error */
    /* the first failure */
    raid_status st;
    int positional;
    uint64_t eline;
    size_t ecol;
    char emsg[RAID_ERRMSG_LEN / 2];
} pctx;

enum { S_FREE = 0, S_QUEUED, S_BUSY, S_DONE };

typedef struct slot {
    const unsigned char *data;
    size_t len;
    uint64_t off;        /* offset in the file (mmap) */
    unsigned char *own;  /* stream: the block's own bytes */
    size_t own_cap;
    int eof;             /* the last block */
    int spec;            /* mmap: cut at the last line feed before the block size without looking for quotes
                            (the parsing thread checks: fill_slot) */
    int quoted;          /* the block has a '"' (parsing thread) */
    int recut;           /* a spec block that had to end elsewhere: the blocks cut after it are void */
    int state;
    size_t cursor;       /* rows handed over */
    RaidTbatch rows;
    pctx ps;
} slot;

struct RaidTable {
    char *path;
    FILE *f;
    int is_stdin;
    uint64_t consumed, total;
    int at_end;
    raid_ctx *progress; /* the context that raidTableRead reports the bytes read to (NULL: none) */

    /* the bytes: the whole mapped file, or the stream's first bytes (header) */
    unsigned char *map;
    size_t map_len;
    unsigned char *blk;
    size_t blk_len, blk_pos, blk_cap;

    /* wanted columns */
    size_t ncols;
    RaidTspec *spec; /* with copied strings */
    size_t *col;      /* 0-based field index of each wanted column, SIZE_MAX if absent */
    int *want;        /* field j -> wanted column, -1 (nfields entries) */

    /* header */
    int header_done;
    char **hdr;
    size_t nhdr, hdr_cap;
    uint64_t hdr_line;
    size_t nfields;
    pctx hp;

    /* blocks */
    int started;
    size_t block;
    size_t nslots;
    slot *slots;
    uint64_t head, tail, take; /* sequence numbers: next to merge, next to cut, next to parse */
    size_t cut_pos;            /* mmap: offset of the next block */
    int exact;                 /* mmap: a quote was seen: every cut from now on by cut_block */
    size_t pagesize;
    int cut_eof;               /* the last block is cut */
    unsigned char *carry;      /* stream: bytes read past the last cut */
    size_t carry_len, carry_cap;
    int read_errno;            /* stream: a read failed (reported after the blocks before it) */
    uint64_t line_base;        /* line of the next block's first line */
    int nworkers;
    pthread_t workers[MAX_WORKERS];
    pthread_mutex_t mu;
    pthread_cond_t cv_work, cv_done;
    int stop;

    raidTableBlockFn block_fn; /* raidTableSetBlockFn */
    const void *block_arg;
    RaidTableTask *tasks, *tasks_last; /* queued tasks with items not yet taken, in order (under mu) */

    /* RAID_CSV_PROFILE: seconds of the calling thread's phases and of the parsing threads (under mu); wall
     * seconds the calling thread waited for the head block and the workers for a block to parse (summed;
     * not the wait that ends with the input), from the start of the blocks to the last one merged */
    int profile;
    double t_cut, t_wait, t_merge, t_parse, t_parse_main, t_fn, t_task, t_task_main;
    double w_wait, w_idle, w_start, w_read, w_task;
    uint64_t nblocks, ntasks, nitems;

    int keep_rows;    /* raidTableKeepRows */
    int rel_lines;    /* raidTableRelativeLines */
    char *hdr_text;   /* the header's raw bytes */
    size_t hdr_len;

    char *notices[MAX_NOTICES];
    size_t nnotices;

    RaidSticky err;
};

/* ---------------------------------------------------------------------------------------------- */
/* Failures and notices                                                                            */
/* ---------------------------------------------------------------------------------------------- */

#define tfail(t, ...) raidStickyFail(&(t)->err, __VA_ARGS__)

raid_status raidTableFail(RaidTable *t, uint64_t line, size_t col, const char *fmt, ...)
{
    char m[RAID_ERRMSG_LEN / 2];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m, sizeof m, fmt, ap);
    va_end(ap);
    t->err.st = RAID_OK; /* the caller's row comes before a bad row the table may have met */
    return tfail(t, RAID_EPARSE, "%s:%llu:%zu: %s", t->path, (unsigned long long)line, col, m);
}

raid_status raidTableFailNoRows(RaidTable *t)
{
    return raidTableFail(t, raidTableHeaderLine(t) + 1, 1, "no data rows (only a header)");
}

/* A parse's positional failure (the first one wins): the text after "FILE:LINE:COL: ". */
static void pfail(pctx *ps, uint64_t line, size_t col, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void pfail(pctx *ps, uint64_t line, size_t col, const char *fmt, ...)
{
    if (ps->st != RAID_OK)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ps->emsg, sizeof ps->emsg, fmt, ap);
    va_end(ap);
    ps->st = RAID_EPARSE;
    ps->positional = 1;
    ps->eline = line;
    ps->ecol = col;
}

/* A parse's failure without a position (the whole message). */
static void pfail_plain(pctx *ps, raid_status st, const char *msg)
{
    if (ps->st != RAID_OK)
        return;
    snprintf(ps->emsg, sizeof ps->emsg, "%s", msg);
    ps->st = st;
    ps->positional = 0;
}

/* The parse's failure as the table's, its lines counted from line `base`. */
static raid_status ps_to_table(RaidTable *t, const pctx *ps, uint64_t base)
{
    if (ps->positional)
        return tfail(t, ps->st, "%s:%llu:%zu: %s", t->path, (unsigned long long)(base + ps->eline), ps->ecol,
                     ps->emsg);
    return tfail(t, ps->st, "%s", ps->emsg);
}

const char *raidTableErrmsg(const RaidTable *t) { return t ? t->err.msg : ""; }

raid_status raidTableJobStatus(raid_ctx *ctx, const RaidTable *tab, raid_status st)
{
    if (st == RAID_OK)
        return st;
    return raidFail(ctx, st, "%s", tab && *raidTableErrmsg(tab) ? raidTableErrmsg(tab) : raid_errmsg());
}

uint64_t raidTableHeaderLine(const RaidTable *t) { return t ? t->hdr_line : 0; }

size_t raidTableNoticeCount(const RaidTable *t) { return t ? t->nnotices : 0; }

const char *raidTableNotice(const RaidTable *t, size_t i) { return t && i < t->nnotices ? t->notices[i] : NULL; }

raid_status raidTableCopyNotices(const RaidTable *t, RaidStrlist *l)
{
    for (size_t i = 0; i < raidTableNoticeCount(t); i++)
        if (raidStrlistAddf(l, "%s", t->notices[i]))
            return raidFail(NULL, RAID_ENOMEM, "out of memory");
    return RAID_OK;
}

size_t raidTableCol(const RaidTable *t, size_t k)
{
    assert(k < t->ncols);
    return t->col[k] == SIZE_MAX ? 0 : t->col[k] + 1;
}

const char *raidTablePath(const RaidTable *t) { return t->path; }

void raidTableKeepRows(RaidTable *t) { t->keep_rows = 1; }

void raidTableRelativeLines(RaidTable *t) { t->rel_lines = 1; }

void raidTableSetBlockFn(RaidTable *t, raidTableBlockFn fn, const void *arg)
{
    t->block_fn = fn;
    t->block_arg = arg;
}

const char *raidTableHeaderText(const RaidTable *t, size_t *len)
{
    if (len)
        *len = t->hdr_len;
    return t->hdr_text ? t->hdr_text : "";
}

void raidTableProgress(const RaidTable *t, uint64_t *consumed, uint64_t *total)
{
    if (consumed)
        *consumed = t ? t->consumed : 0;
    if (total)
        *total = t && !t->is_stdin ? t->total : 0;
}

static void add_notice(RaidTable *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add_notice(RaidTable *t, const char *fmt, ...)
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

static void notice_unterminated(RaidTable *t, uint64_t line)
{
    add_notice(t,
               "%s:%llu: the last line has no line break at its end; it was read as a complete row (if the "
               "file was cut short there, its last value is cut short too)",
               t->path, (unsigned long long)line);
}

/* ---------------------------------------------------------------------------------------------- */
/* Batches                                                                                         */
/* ---------------------------------------------------------------------------------------------- */

raid_status raidTbatchInit(RaidTbatch *b, const RaidTable *t)
{
    memset(b, 0, sizeof *b);
    b->col = calloc(t->ncols, sizeof *b->col);
    if (!b->col)
        return raidFail(NULL, RAID_ENOMEM, "out of memory");
    b->ncols = t->ncols;
    return RAID_OK;
}

void raidTbatchFree(RaidTbatch *b)
{
    if (!b)
        return;
    for (size_t k = 0; k < b->ncols; k++) {
        RaidTcol *c = &b->col[k];
        free(c->i64);
        free(c->f64);
        free(c->tz_s);
        free(c->missing);
        free(c->text_off);
        free(c->text);
        free(c->line);
        free(c->key);
        free(c->key_row);
    }
    free(b->row.text_off);
    free(b->row.text);
    free(b->col);
    if (b->user_free)
        b->user_free(b->user);
    memset(b, 0, sizeof *b);
}


/* Room for `need` rows in every column array that the column's spec uses. */
static int batch_reserve(const RaidTable *t, RaidTbatch *b, size_t need)
{
    if (need <= b->cap)
        return 0;
    size_t cap = b->cap ? 2 * b->cap : 1024;
    while (cap < need)
        cap *= 2;
    for (size_t k = 0; k < t->ncols; k++) {
        RaidTcol *c = &b->col[k];
        const RaidTspec *s = &t->spec[k];
        if (raidRegrow(&c->line, cap, sizeof *c->line))
            return -1;
        if ((s->type == RAID_T_DATE || s->type == RAID_T_TIMESTAMP || s->type == RAID_T_I64) &&
            raidRegrow(&c->i64, cap, sizeof *c->i64))
            return -1;
        if (s->type == RAID_T_F64 && raidRegrow(&c->f64, cap, sizeof *c->f64))
            return -1;
        if (s->type == RAID_T_TIMESTAMP && raidRegrow(&c->tz_s, cap, sizeof *c->tz_s))
            return -1;
        if ((s->flags & RAID_T_EMPTY_NA) && raidRegrow(&c->missing, cap, sizeof *c->missing))
            return -1;
        if (s->type == RAID_T_STRING || (s->flags & RAID_T_KEEP_TEXT)) {
            if (raidRegrow(&c->text_off, cap + 1, sizeof *c->text_off))
                return -1;
            if (b->nrows == 0)
                c->text_off[0] = 0;
        }
        if ((s->flags & RAID_T_KEYS) &&
            (raidRegrow(&c->key, cap, sizeof *c->key) || raidRegrow(&c->key_row, cap, sizeof *c->key_row)))
            return -1;
    }
    if (t->keep_rows) {
        if (raidRegrow(&b->row.text_off, cap + 1, sizeof *b->row.text_off))
            return -1;
        if (b->nrows == 0)
            b->row.text_off[0] = 0;
    }
    b->cap = cap;
    return 0;
}

static void batch_clear(RaidTbatch *b)
{
    b->nrows = 0;
    b->user_ok = 0;
    b->line_base = 0;
    if (b->row.text_off)
        b->row.text_off[0] = 0;
    for (size_t k = 0; k < b->ncols; k++) {
        if (b->col[k].text_off)
            b->col[k].text_off[0] = 0;
        b->col[k].keyed = 0;
        b->col[k].nkeys = 0;
    }
}

static int text_reserve(RaidTcol *c, size_t need)
{
    if (need <= c->text_cap)
        return 0;
    size_t cap = c->text_cap ? c->text_cap : 4096;
    while (cap < need)
        cap *= 2;
    if (raidRegrow(&c->text, cap, 1))
        return -1;
    c->text_cap = cap;
    return 0;
}

static int put_text(RaidTcol *c, size_t row, const char *s, size_t n)
{
    const size_t at = c->text_off[row];
    if (text_reserve(c, at + n + 1))
        return -1;
    if (n)
        memcpy(c->text + at, s, n);
    c->text[at + n] = 0;
    c->text_off[row + 1] = at + n + 1;
    return 0;
}

/* Append the texts of rows [from, from + n) of s to d's, which has rows up to `at`. 0 or -1. */
static int text_append(RaidTcol *d, size_t at, const RaidTcol *s, size_t from, size_t n)
{
    const size_t s0 = s->text_off[from], s1 = s->text_off[from + n], d0 = d->text_off[at];
    if (text_reserve(d, d0 + (s1 - s0)))
        return -1;
    memcpy(d->text + d0, s->text + s0, s1 - s0);
    for (size_t i = 1; i <= n; i++)
        d->text_off[at + i] = s->text_off[from + i] - s0 + d0;
    return 0;
}

/* Append rows [from, from + n) of src to dst, their lines moved by `base`. 0 or -1 (out of memory). */
static int batch_append(const RaidTable *t, RaidTbatch *dst, const RaidTbatch *src, size_t from, size_t n,
                        uint64_t base)
{
    if (batch_reserve(t, dst, dst->nrows + n))
        return -1;
    const size_t at = dst->nrows;
    dst->user_ok = 0; /* the block function's data are those of whole blocks */
    for (size_t k = 0; k < t->ncols; k++) /* the blocks' numbers of distinct values differ: none kept */
        dst->col[k].keyed = 0;
    for (size_t k = 0; k < t->ncols; k++) {
        if (t->col[k] == SIZE_MAX)
            continue;
        RaidTcol *d = &dst->col[k];
        const RaidTcol *s = &src->col[k];
        for (size_t i = 0; i < n; i++)
            d->line[at + i] = s->line[from + i] + base;
        if (s->i64)
            memcpy(d->i64 + at, s->i64 + from, n * sizeof *d->i64);
        if (s->f64)
            memcpy(d->f64 + at, s->f64 + from, n * sizeof *d->f64);
        if (s->tz_s)
            memcpy(d->tz_s + at, s->tz_s + from, n * sizeof *d->tz_s);
        if (s->missing)
            memcpy(d->missing + at, s->missing + from, n * sizeof *d->missing);
        if (s->text_off && text_append(d, at, s, from, n) != 0)
            return -1;
    }
    if (t->keep_rows && text_append(&dst->row, at, &src->row, from, n) != 0)
        return -1;
    dst->nrows += n;
    return 0;
}

/* ---------------------------------------------------------------------------------------------- */
/* Typed fields                                                                                    */
/* ---------------------------------------------------------------------------------------------- */

static int is_digit(char c) { return c >= '0' && c <= '9'; }

/* A decimal number, the whole of s[0..n): [+-]digits[.digits][(e|E)[+-]digits] with at least one digit
 * before the exponent (also ".5", "5."), read by fast_float (fastfloat.h: strtod's value in the "C"
 * locale). 0 and the value, or -1. fast_float's own grammar is that one without the leading '+' (taken off
 * here), plus "inf", "infinity" and "nan", refused here by the first character: after the sign, a digit
 * or '.' (tests/test_io_blocks.c checks both sides). */
static int parse_decimal(const char *s, size_t n, double *v)
{
    const size_t sign = n && (s[0] == '+' || s[0] == '-');
    if (sign == n || !(is_digit(s[sign]) || s[sign] == '.'))
        return -1;
    const size_t plus = s[0] == '+'; /* fast_float takes no leading '+' */
    return raidParseF64(s + plus, n - plus, v);
}

int raidTableParseF64(const char *s, size_t n, double *v) { return parse_decimal(s, n, v); }

int raidTableParseSpecial(const char *s, size_t n, double *v)
{
    const size_t sign = n && (s[0] == '+' || s[0] == '-');
    const char *w = s + sign;
    const size_t m = n - sign;
    const int neg = sign && s[0] == '-';
    if ((m == 3 && strncasecmp(w, "inf", 3) == 0) || (m == 8 && strncasecmp(w, "infinity", 8) == 0)) {
        *v = neg ? -INFINITY : INFINITY;
        return 0;
    }
    if (m == 3 && strncasecmp(w, "nan", 3) == 0) {
        const uint64_t b = neg ? 0xFFF8000000000000ull : 0x7FF8000000000000ull; /* the sign as written */
        memcpy(v, &b, sizeof *v);
        return 0;
    }
    return -1;
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

int raidTableNumberInt(const char *s, size_t n, int64_t *v)
{
    const size_t sign = n && (s[0] == '+' || s[0] == '-');
    if (n == sign)
        return 0;
    for (size_t i = sign; i < n; i++)
        if (!is_digit(s[i]))
            return 0;
    return parse_int(s, n, v) == 0 ? 1 : -1;
}

static const char *type_noun(RaidTtype ty)
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

/* Parse field s[0..n) (line `line`) of wanted column k into row `row` of the parse's batch (room made by
 * the caller). 0, or -1 after a failure. */
static int put_field(pctx *ps, size_t k, size_t row, const char *s, size_t n, uint64_t line)
{
    const RaidTable *t = ps->t;
    const RaidTspec *sp = &t->spec[k];
    RaidTcol *c = &ps->b->col[k];
    const size_t colno = t->col[k] + 1;
    c->line[row] = line;
    if (c->text_off && put_text(c, row, s, n) != 0) {
        pfail_plain(ps, RAID_ENOMEM, "out of memory");
        return -1;
    }
    /* KEYS: every row gets its key, an empty field that EMPTY_NA makes missing too */
    int known = 0; /* a value seen before in the block: valid UTF-8 */
    if (sp->flags & RAID_T_KEYS) {
        const int64_t id = raidSymtabAdd(&ps->keys[k], s, n);
        if (id < 0) {
            pfail_plain(ps, RAID_ENOMEM, "out of memory");
            return -1;
        }
        c->key[row] = (uint32_t)id;
        known = (size_t)id < c->nkeys;
        if (!known)
            c->key_row[c->nkeys++] = row;
    }
    if (sp->flags & RAID_T_EMPTY_NA) {
        c->missing[row] = n == 0;
        if (n == 0) {
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
    switch (sp->type) {
    case RAID_T_STRING: {
        if (known)
            break;
        const size_t at = raidUtf8InvalidAt(s, n);
        if (at < n) {
            pfail(ps, line, colno, "%s is not valid UTF-8 (byte %zu is 0x%02X): '%s'", sp->what, at + 1,
                  (unsigned)(unsigned char)s[at], RAID_SHOW(s, n));
            return -1;
        }
        break;
    }
    case RAID_T_DATE:
        bad = raidIoParseDateC(s, n, &c->i64[row], &ps->days) != 0;
        break;
    case RAID_T_TIMESTAMP: {
        RaidIoTs ts;
        bad = raidIoParseTimestampC(s, n, &ts, &ps->days) != 0;
        if (!bad) {
            c->i64[row] = ts.wall_us;
            c->tz_s[row] = ts.has_offset ? ts.offset_s : RAID_T_NO_OFFSET;
        }
        break;
    }
    case RAID_T_F64:
        bad = parse_decimal(s, n, &c->f64[row]) != 0;
        if (bad && (sp->flags & RAID_T_SPECIALS)) { /* inf, nan: a generic value column */
            bad = raidTableParseSpecial(s, n, &c->f64[row]) != 0;
            break;
        }
        if (!bad && isinf(c->f64[row])) { /* a finite decimal beyond DBL_MAX (also where "inf" is read) */
            pfail(ps, line, colno, "%s out of float64's range: '%s'", sp->what, RAID_SHOW(s, n));
            return -1;
        }
        break;
    case RAID_T_I64:
        bad = parse_int(s, n, &c->i64[row]) != 0;
        break;
    }
    if (bad) {
        pfail(ps, line, colno, "cannot parse %s '%s'", sp->what, RAID_SHOW(s, n));
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
static void process_header(pctx *ps)
{
    RaidTable *t = ps->t;
    t->header_done = 1;
    ps->header = 0;
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
                pfail(ps, t->hdr_line, j + 1, "duplicate column '%s' (also column %zu)", RAID_SHOWZ(t->spec[k].name),
                      t->col[k] + 1);
                return;
            }
            if (taken != SIZE_MAX) {
                if (t->spec[k].flags & RAID_T_YIELD)
                    continue;
                pfail(ps, t->hdr_line, j + 1, "column '%s' is given two roles (%s and %s columns)", RAID_SHOWZ(t->hdr[j]),
                      t->spec[taken].what, t->spec[k].what);
                return;
            }
            taken = k;
            t->col[k] = j;
        }
    }
    for (size_t k = 0; k < t->ncols; k++) {
        if (t->col[k] == SIZE_MAX && !(t->spec[k].flags & RAID_T_OPTIONAL)) {
            pfail(ps, t->hdr_line, 1, "missing column '%s'", RAID_SHOWZ(t->spec[k].name));
            return;
        }
    }
    t->want = malloc((t->nfields ? t->nfields : 1) * sizeof *t->want);
    if (!t->want) {
        pfail_plain(ps, RAID_ENOMEM, "out of memory");
        return;
    }
    for (size_t j = 0; j < t->nfields; j++)
        t->want[j] = -1;
    for (size_t k = 0; k < t->ncols; k++)
        if (t->col[k] != SIZE_MAX)
            t->want[t->col[k]] = (int)k;
}

/* The wanted fields of a row of nf fields (checked against the header) into the batch: 0 or -1. The
 * fields are those of ps->fld (libcsv) when fs is NULL, else fs/fl, all on line `line`. raw[0..rawlen):
 * the row's bytes, kept with raidTableKeepRows. */
static int put_row(pctx *ps, size_t nf, uint64_t extra_line, uint64_t last_line, const char *const *fs,
                   const size_t *fl, uint64_t line, const unsigned char *raw, size_t rawlen)
{
    const RaidTable *t = ps->t;
    if (nf != t->nfields) {
        if (nf > t->nfields)
            pfail(ps, extra_line, t->nfields + 1, "expected %zu fields, found %zu", t->nfields, nf);
        else
            pfail(ps, last_line, nf, "expected %zu fields, found %zu", t->nfields, nf);
        return -1;
    }
    RaidTbatch *b = ps->b;
    if (b->nrows == b->cap && batch_reserve(t, b, b->nrows + 1) != 0) {
        pfail_plain(ps, RAID_ENOMEM, "out of memory");
        return -1;
    }
    for (size_t k = 0; k < t->ncols; k++) {
        if (t->col[k] == SIZE_MAX)
            continue;
        const int r = fs ? put_field(ps, k, b->nrows, fs[k], fl[k], line)
                         : put_field(ps, k, b->nrows, ps->fld[k].s, ps->fld[k].len, ps->fld[k].line);
        if (r != 0)
            return -1;
    }
    if (t->keep_rows && put_text(&b->row, b->nrows, (const char *)raw, rawlen) != 0) {
        pfail_plain(ps, RAID_ENOMEM, "out of memory");
        return -1;
    }
    b->nrows++;
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

/* libcsv callbacks (ud: the pctx) */

static void on_field(void *data, size_t n, void *ud)
{
    pctx *ps = ud;
    RaidTable *t = ps->t;
    const char *s = data ? data : "";
    if (!data)
        n = 0;
    const uint64_t line = ps->cur_line;
    for (size_t i = 0; i < n; i++) /* line breaks inside quoted fields */
        if (s[i] == '\n' || (s[i] == '\r' && (i + 1 == n || s[i + 1] != '\n')))
            ps->cur_line++;
    if (ps->st != RAID_OK)
        return;
    const size_t k = ps->fidx++;
    ps->last_line = line;
    if (n && memchr(s, 0, n)) { /* C strings would cut the field short (and merge symbols) */
        pfail(ps, line, k + 1, "NUL byte in field");
        return;
    }
    if (ps->header) {
        if (t->nhdr == t->hdr_cap) {
            size_t cap = t->hdr_cap ? t->hdr_cap * 2 : 16;
            char **h = realloc(t->hdr, cap * sizeof *h);
            if (!h) {
                pfail_plain(ps, RAID_ENOMEM, "out of memory");
                return;
            }
            t->hdr = h;
            t->hdr_cap = cap;
        }
        char *nm = malloc(n + 1);
        if (!nm) {
            pfail_plain(ps, RAID_ENOMEM, "out of memory");
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
        ps->extra_line = line;
    if (k < t->nfields && t->want[k] >= 0) {
        field_buf *f = &ps->fld[t->want[k]];
        if (store(f, s, n) != 0) {
            pfail_plain(ps, RAID_ENOMEM, "out of memory");
            return;
        }
        f->line = line;
    }
}

/* The row's raw bytes end at ps->rend: libcsv ends a row only at the last byte it was fed (a line break)
 * or at the end of the input (parse_block, the header's loop). */
static void on_row(int c, void *ud)
{
    pctx *ps = ud;
    RaidTable *t = ps->t;
    const size_t nf = ps->fidx;
    const unsigned char *raw = ps->rbase ? ps->rbase + ps->rstart : NULL;
    const size_t rawlen = ps->rbase ? ps->rend - ps->rstart : 0;
    if (ps->st == RAID_OK && nf > 0) {
        if (c == -1) /* ended by the end of the input, not by a line break */
            ps->unterminated = 1;
        if (ps->header) {
            process_header(ps);
            if (!(t->hdr_text = malloc(rawlen + 1))) {
                pfail_plain(ps, RAID_ENOMEM, "out of memory");
            } else {
                if (rawlen)
                    memcpy(t->hdr_text, raw, rawlen);
                t->hdr_text[t->hdr_len = rawlen] = 0;
            }
        } else {
            put_row(ps, nf, ps->extra_line, ps->last_line, NULL, NULL, 0, raw, rawlen);
        }
    }
    ps->rstart = ps->rend + 1;
    ps->cur_line += (uint64_t)lines_ended(c, nf, &ps->last_term);
    ps->fidx = 0;
}

/* libcsv's failure (out of memory only: the parser is not strict). */
static void csv_failed(pctx *ps)
{
    const int e = csv_error(&ps->csv);
    char m[RAID_ERRMSG_LEN / 2];
    if (e == CSV_ENOMEM || e == CSV_ETOOBIG) {
        snprintf(m, sizeof m, "%s: out of memory in the CSV parser", ps->t->path);
        pfail_plain(ps, RAID_ENOMEM, m);
    } else {
        pfail(ps, ps->cur_line, ps->fidx + 1, "%s", csv_strerror(e));
    }
}

/* End of the input: the quoted field still open, or the last row without a line break. */
static void csv_end(pctx *ps)
{
    /* libcsv's state 2 is FIELD_BEGUN: a quoted field still open at the end of input. */
    if (ps->st == RAID_OK && ps->csv.pstate == 2 && ps->csv.quoted) {
        pfail(ps, ps->cur_line, ps->fidx + 1, "unterminated quoted field");
        return;
    }
    if (csv_fini(&ps->csv, on_field, on_row, ps) != 0)
        csv_failed(ps);
}

static int pctx_init(pctx *ps, RaidTable *t)
{
    memset(ps, 0, sizeof *ps);
    ps->t = t;
    if (csv_init(&ps->csv, CSV_REPALL_NL) != 0)
        return -1;
    ps->csv_inited = 1;
    ps->fld = calloc(t->ncols, sizeof *ps->fld);
    ps->fs = calloc(t->ncols, sizeof *ps->fs);
    ps->fl = calloc(t->ncols, sizeof *ps->fl);
    ps->keys = calloc(t->ncols, sizeof *ps->keys);
    return ps->fld && ps->fs && ps->fl && ps->keys ? 0 : -1;
}

static void pctx_free(pctx *ps)
{
    if (ps->csv_inited)
        csv_free(&ps->csv);
    if (ps->fld)
        for (size_t k = 0; k < ps->t->ncols; k++)
            free(ps->fld[k].s);
    free(ps->fld);
    free(ps->fs);
    free(ps->fl);
    if (ps->keys)
        for (size_t k = 0; k < ps->t->ncols; k++)
            raidSymtabFree(&ps->keys[k]);
    free(ps->keys);
}

/* ---------------------------------------------------------------------------------------------- */
/* Blocks: the direct scanner, libcsv, the cut                                                     */
/* ---------------------------------------------------------------------------------------------- */

/* Bytes that stop the scan of an unquoted field. */
static const unsigned char stop_byte[256] = {[0] = 1, [','] = 1, ['\n'] = 1, ['\r'] = 1, ['"'] = 1};

/* The first stop byte at or after p; one lies before end (the region ends with a line feed). 16 bytes at a
 * time where SSE2 is there (every x86-64), never reading at or past end. */
static inline const unsigned char *next_stop(const unsigned char *p, const unsigned char *end)
{
#ifdef __SSE2__
    const __m128i comma = _mm_set1_epi8(','), lf = _mm_set1_epi8('\n'), cr = _mm_set1_epi8('\r'),
                  quote = _mm_set1_epi8('"'), zero = _mm_setzero_si128();
    while (end - p >= 16) {
        const __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
        const __m128i m = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, comma), _mm_cmpeq_epi8(v, lf)),
                                       _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, cr), _mm_cmpeq_epi8(v, quote)),
                                                    _mm_cmpeq_epi8(v, zero)));
        const unsigned bits = (unsigned)_mm_movemask_epi8(m);
        if (bits)
            return p + __builtin_ctz(bits);
        p += 16;
    }
#else
    (void)end;
#endif
    while (!stop_byte[*p])
        p++;
    return p;
}

/* Rows of p[0..end) (end[-1] is a line feed) by the direct scanner, as libcsv reads rows without quotes:
 * fields split at commas, spaces and tabs around each dropped, CRLF or LF ending the row, a row of
 * blanks only skipped. Returns where it stopped: end, the start of the first row with a quote or a CR not
 * followed by LF (for libcsv), or NULL after a failure. */
static const unsigned char *parse_fast(pctx *ps, const unsigned char *p, const unsigned char *end)
{
    const RaidTable *t = ps->t;
    const size_t nf = t->nfields;
    const int *want = t->want;
    const char **fs = ps->fs;
    size_t *fl = ps->fl;
    while (p < end) {
        const unsigned char *row = p, *row_end;
        size_t j = 0;
        int empty0 = 0;
        for (;;) {
            while (*p == ' ' || *p == '\t')
                p++;
            const unsigned char *s = p;
            p = next_stop(p, end);
            const unsigned char c = *p;
            if (c == '"' || (c == '\r' && p[1] != '\n'))
                return row;
            if (c == 0) {
                pfail(ps, ps->cur_line, j + 1, "NUL byte in field");
                return NULL;
            }
            const unsigned char *e = p;
            while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
                e--;
            if (j < nf && want[j] >= 0) {
                fs[want[j]] = (const char *)s;
                fl[want[j]] = (size_t)(e - s);
            }
            if (j == 0)
                empty0 = e == s;
            j++;
            if (c == ',') {
                p++;
                continue;
            }
            row_end = p;
            p += c == '\r' ? 2 : 1; /* CRLF or LF */
            break;
        }
        const uint64_t line = ps->cur_line++;
        if (j == 1 && empty0) /* a blank line */
            continue;
        if (put_row(ps, j, line, line, fs, fl, line, row, (size_t)(row_end - row)) != 0)
            return NULL;
    }
    return p;
}

/* Parse block data[0..len) (starting at a row boundary, ending at one unless eof) into ps->b. */
static void parse_block(pctx *ps, const unsigned char *data, size_t len, int eof)
{
    ps->cur_line = 0;
    ps->last_term = '\n';
    ps->fidx = 0;
    ps->unterminated = 0;
    ps->st = RAID_OK;
    batch_clear(ps->b);
    for (size_t k = 0; k < ps->t->ncols; k++) {
        raidSymtabFree(&ps->keys[k]);
        ps->b->col[k].keyed = (ps->t->spec[k].flags & RAID_T_KEYS) != 0;
    }
    const unsigned char *end = data + len, *p = data;
    const unsigned char *lf = len && !tune_libcsv_only ? memrchr(data, '\n', len) : NULL;
    ps->csv_from = len;
    if (lf) {
        p = parse_fast(ps, data, lf + 1);
        if (!p)
            return;
    }
    ps->csv_from = (size_t)(p - data);
    if (p == end && !eof)
        return;
    /* libcsv from p: rows with quotes or lone CRs, and a last row without a line break */
    ps->csv.pstate = 0;
    ps->csv.quoted = 0;
    ps->csv.spaces = 0;
    ps->csv.entry_pos = 0;
    ps->csv.status = 0;
    ps->rbase = NULL;
    if (p < end && ps->t->keep_rows) { /* one line at a time: a row ends at the last byte fed */
        ps->rbase = data;
        ps->rstart = (size_t)(p - data);
        while (p < end && ps->st == RAID_OK) {
            const unsigned char *q = p;
            while (q < end && *q != '\n' && *q != '\r')
                q++;
            const size_t n = (size_t)(q - p) + (q < end);
            ps->rend = (size_t)(q - data);
            if (csv_parse(&ps->csv, p, n, on_field, on_row, ps) != n && ps->st == RAID_OK)
                csv_failed(ps);
            p += n;
        }
    } else if (p < end) {
        const size_t n = (size_t)(end - p);
        if (csv_parse(&ps->csv, p, n, on_field, on_row, ps) != n && ps->st == RAID_OK)
            csv_failed(ps);
    }
    ps->rend = len; /* the last row without a line break */
    if (eof && ps->st == RAID_OK)
        csv_end(ps);
}

/* The bytes that libcsv's state machine tells apart (non-strict mode), and its states as far as they
 * decide where a row ends: row not begun, field not begun, unquoted field, quoted field, a quote in a
 * quoted field (without, with blanks after it). */
enum { B_OTHER = 0, B_BLANK, B_TERM, B_LF, B_COMMA, B_QUOTE };
enum { Q_RNB = 0, Q_FNB, Q_FBU, Q_FBQ, Q_FM0, Q_FMS };
static const unsigned char qnext[6][6] = {
    /*          other  blank  CR     LF     comma  quote */
    /* RNB */ {Q_FBU, Q_RNB, Q_RNB, Q_RNB, Q_FNB, Q_FBQ},
    /* FNB */ {Q_FBU, Q_FNB, Q_RNB, Q_RNB, Q_FNB, Q_FBQ},
    /* FBU */ {Q_FBU, Q_FBU, Q_RNB, Q_RNB, Q_FNB, Q_FBU},
    /* FBQ */ {Q_FBQ, Q_FBQ, Q_FBQ, Q_FBQ, Q_FBQ, Q_FM0},
    /* FM0 */ {Q_FBQ, Q_FMS, Q_RNB, Q_RNB, Q_FNB, Q_FBQ},
    /* FMS */ {Q_FBQ, Q_FMS, Q_RNB, Q_RNB, Q_FNB, Q_FM0},
};

static unsigned char byte_class(unsigned char c)
{
    switch (c) {
    case ' ': case '\t': return B_BLANK;
    case '\r': return B_TERM;
    case '\n': return B_LF;
    case ',': return B_COMMA;
    case '"': return B_QUOTE;
    default: return B_OTHER;
    }
}

/* Where to end a block that starts at a row boundary p[0] with len bytes available (all the rest of the
 * input when eof): right after the last line feed ending a row within the first `want` bytes, else after
 * the first one past them; len when eof and none is found (the last row). 0: more bytes are needed. */
static size_t cut_block(const unsigned char *p, size_t len, size_t want, int eof)
{
    if (eof && want >= len)
        return len;
    if (want > len)
        want = len;
    if (!memchr(p, '"', want)) { /* no quote: every line feed ends a row */
        const unsigned char *lf = memrchr(p, '\n', want);
        if (lf)
            return (size_t)(lf - p) + 1;
    }
    unsigned st = Q_RNB;
    size_t last = 0;
    for (size_t i = 0; i < len; i++) {
        const unsigned char c = p[i];
        st = qnext[st][byte_class(c)];
        if (c == '\n' && st == Q_RNB) {
            last = i + 1;
            if (last >= want)
                return last;
        } else if (last && i + 1 >= want) {
            return last;
        }
    }
    return last ? last : eof ? len : 0;
}

/* ---------------------------------------------------------------------------------------------- */
/* The blocks' pipeline                                                                            */
/* ---------------------------------------------------------------------------------------------- */

/* Take the next queued block, parse it and run the caller's block function on its rows (called and
 * returning with t->mu held; main: by the calling thread). */
static void parse_next(RaidTable *t, int main)
{
    slot *s = &t->slots[t->take % t->nslots];
    t->take++;
    s->state = S_BUSY;
    pthread_mutex_unlock(&t->mu);
    const double t0 = t->profile ? raidCpuNow() : 0;
    s->quoted = s->recut = 0;
    parse_block(&s->ps, s->data, s->len, s->eof);
    /* A quote can only be where the direct scanner stopped (or after an error before it, which is then the
     * first error whatever comes after it). */
    const size_t from = s->ps.csv_from;
    if (t->map && from < s->len && memchr(s->data + from, '"', s->len - from)) {
        s->quoted = 1;
        if (s->spec) { /* the cut may fall inside a quoted field: cut where the calling thread would have */
            const size_t rest = t->map_len - (size_t)s->off, n = cut_block(s->data, rest, t->block, 1);
            if (n != s->len) {
                s->recut = 1;
                s->len = n;
                s->eof = n == rest;
                parse_block(&s->ps, s->data, s->len, s->eof);
            }
        }
    }
    if (t->map) { /* the block's rows are copied out: its own pages can go (the page cache keeps them) */
        const uintptr_t pg = t->pagesize;
        const uintptr_t a = ((uintptr_t)s->data + pg - 1) & ~(pg - 1), b = ((uintptr_t)s->data + s->len) & ~(pg - 1);
        if (b > a)
            madvise((void *)a, b - a, MADV_DONTNEED); /* read-only and private: the pages stay in the page cache */
    }
    const double t1 = t->profile ? raidCpuNow() : 0;
    s->rows.user_ok = t->block_fn && t->block_fn(t->block_arg, &s->rows) == 0;
    pthread_mutex_lock(&t->mu);
    if (t->profile) {
        *(main ? &t->t_parse_main : &t->t_parse) += t1 - t0;
        t->t_fn += raidCpuNow() - t1;
        t->nblocks++;
    }
    s->state = S_DONE;
    pthread_cond_broadcast(&t->cv_done);
}

/* Take the next item of queued task k (called with t->mu held): k leaves the queue with its last item. */
static size_t take_item(RaidTable *t, RaidTableTask *k)
{
    const size_t i = k->next++;
    if (k->next == k->n) { /* unlink k */
        RaidTableTask **p = &t->tasks, *prev = NULL;
        while (*p != k) {
            prev = *p;
            p = &(*p)->link;
        }
        *p = k->link;
        if (t->tasks_last == k)
            t->tasks_last = prev;
        k->link = NULL;
    }
    return i;
}

/* Run item i of task k, taken (called and returning with t->mu held; main: by the calling thread). Once
 * its last item is done, k is the table's no more. */
static void run_item(RaidTable *t, RaidTableTask *k, size_t i, int main)
{
    pthread_mutex_unlock(&t->mu);
    const double t0 = t->profile ? raidCpuNow() : 0;
    k->run(k->arg, i);
    const double dt = t->profile ? raidCpuNow() - t0 : 0;
    pthread_mutex_lock(&t->mu);
    *(main ? &t->t_task_main : &t->t_task) += dt;
    t->nitems++;
    if (++k->ndone == k->n)
        pthread_cond_broadcast(&t->cv_done);
}

static void *worker_main(void *arg)
{
    RaidTable *t = arg;
    pthread_mutex_lock(&t->mu);
    for (;;) {
        const double w0 = t->profile && t->take == t->tail && !t->tasks ? raidNow() : 0;
        while (!t->stop && t->take == t->tail && !t->tasks)
            pthread_cond_wait(&t->cv_work, &t->mu);
        if (t->stop)
            break;
        if (w0 != 0)
            t->w_idle += raidNow() - w0;
        /* a task's items before the next block: the calling thread is reading on, and the blocks cut ahead
         * keep it supplied meanwhile */
        if (t->tasks) {
            RaidTableTask *k = t->tasks;
            run_item(t, k, take_item(t, k), 0);
        } else {
            parse_next(t, 0);
        }
    }
    pthread_mutex_unlock(&t->mu);
    return NULL;
}

void raidTableTaskPost(RaidTable *t, RaidTableTask *task)
{
    assert(task->n >= 1);
    task->next = task->ndone = 0;
    task->link = NULL;
    pthread_mutex_lock(&t->mu);
    t->ntasks++;
    if (t->nworkers == 0) { /* no parsing threads: the items run now */
        while (task->next < task->n)
            run_item(t, task, task->next++, 1);
    } else {
        *(t->tasks_last ? &t->tasks_last->link : &t->tasks) = task;
        t->tasks_last = task;
        pthread_cond_broadcast(&t->cv_work);
    }
    pthread_mutex_unlock(&t->mu);
}

void raidTableTaskWait(RaidTable *t, RaidTableTask *task)
{
    pthread_mutex_lock(&t->mu);
    const double w0 = t->profile ? raidNow() : 0;
    while (task->next < task->n) /* queued: its items not yet taken run here */
        run_item(t, task, take_item(t, task), 1);
    while (task->ndone < task->n)
        pthread_cond_wait(&t->cv_done, &t->mu);
    if (t->profile)
        t->w_task += raidNow() - w0;
    pthread_mutex_unlock(&t->mu);
}

/* Cut the next block into slot s (the calling thread). 0, or -1 when the input is exhausted (or a read
 * failed: t->read_errno, reported after the blocks before it). */
static int fill_slot(RaidTable *t, slot *s)
{
    if (t->cut_eof)
        return -1;
    if (t->map || t->f == NULL) { /* the whole input is in memory */
        const size_t rest = t->map_len - t->cut_pos;
        /* Until a quote is seen, the cut is the last line feed within the block size, found from the end
         * (the calling thread touches one page of the block); the parsing thread checks that the block has
         * no quote, the case where every line feed ends a row, else cuts it as cut_block does. */
        const unsigned char *lf = t->map && !t->exact && rest > t->block ? memrchr(t->map + t->cut_pos, '\n', t->block)
                                                                       : NULL;
        const size_t n = lf ? (size_t)(lf - (t->map + t->cut_pos)) + 1 : cut_block(t->map + t->cut_pos, rest, t->block, 1);
        s->spec = lf != NULL;
        s->data = t->map + t->cut_pos;
        s->len = n;
        s->off = t->cut_pos;
        s->eof = n == rest;
        t->cut_pos += n;
        t->cut_eof = s->eof;
        return 0;
    }
    /* a stream: the carried bytes, then reads until a row ends past the block size */
    size_t have = t->carry_len;
    int eof = 0;
    if (have > s->own_cap || t->block + 1 > s->own_cap) {
        size_t cap = have > t->block ? have : t->block;
        unsigned char *q = realloc(s->own, cap + 1);
        if (!q)
            return t->read_errno = ENOMEM, t->cut_eof = 1, -1;
        s->own = q;
        s->own_cap = cap + 1;
    }
    memcpy(s->own, t->carry, have);
    size_t cut = 0;
    for (;;) {
        if (have < s->own_cap && !eof) {
            const size_t want = s->own_cap - have;
            const size_t got = raidIoReadFull(t->f, s->own + have, want);
            if (got < want && ferror(t->f)) {
                t->read_errno = errno ? errno : EIO;
                eof = 1;
            } else if (got < want) {
                eof = 1;
            }
            have += got;
        }
        if ((cut = cut_block(s->own, have, t->block, eof)) != 0 || (eof && have == 0))
            break;
        unsigned char *q = realloc(s->own, 2 * s->own_cap); /* a row longer than the buffer */
        if (!q)
            return t->read_errno = ENOMEM, t->cut_eof = 1, -1;
        s->own = q;
        s->own_cap *= 2;
    }
    if (t->read_errno) { /* nothing of a failed read is parsed: the error comes after the earlier blocks */
        t->cut_eof = 1;
        t->carry_len = 0;
        return -1;
    }
    if (have - cut > t->carry_cap) {
        unsigned char *q = realloc(t->carry, have - cut);
        if (!q)
            return t->read_errno = ENOMEM, t->cut_eof = 1, -1;
        t->carry = q;
        t->carry_cap = have - cut;
    }
    memcpy(t->carry, s->own + cut, have - cut);
    t->carry_len = have - cut;
    s->data = s->own;
    s->len = cut;
    s->spec = 0;
    s->off = 0;
    s->eof = eof && t->carry_len == 0;
    t->cut_eof = s->eof;
    return 0;
}

/* Cut blocks into the free slots and hand them to the workers. */
static void fill(RaidTable *t)
{
    while (!t->cut_eof && t->tail - t->head < t->nslots) {
        slot *s = &t->slots[t->tail % t->nslots];
        assert(s->state == S_FREE);
        if (fill_slot(t, s) != 0)
            break;
        s->cursor = 0;
        pthread_mutex_lock(&t->mu);
        s->state = S_QUEUED;
        t->tail++;
        pthread_cond_signal(&t->cv_work);
        pthread_mutex_unlock(&t->mu);
    }
}

static int start_blocks(RaidTable *t)
{
    t->started = 1;
    t->pagesize = (size_t)sysconf(_SC_PAGESIZE);
    t->block = tune_block ? tune_block : raidEnvSize("RAID_CSV_BLOCK", 1, (size_t)1 << 40, BLOCK_SIZE);
    int nth = tune_threads >= 0 ? tune_threads : omp_get_max_threads();
    if (nth > MAX_WORKERS)
        nth = MAX_WORKERS;
    /* one thread: the calling thread parses each block when it needs it */
    const size_t rest = t->map ? t->map_len - t->cut_pos : t->f ? SIZE_MAX : 0;
    t->nworkers = nth > 1 && rest > t->block ? nth : 0;
    /* Blocks cut beyond one per worker: the slack that lets the workers parse on while the calling thread is
     * busy elsewhere (the caller's work between two blocks comes in bursts: a day's segments taken at once
     * with tick sampling); RAID_CSV_AHEAD=N sets it (benchmarks). Each slot holds a block's parsed rows. */
    t->nslots = (size_t)t->nworkers + raidEnvSize("RAID_CSV_AHEAD", 1, 1024, 2 + (size_t)t->nworkers / 2);
    t->w_start = t->profile ? raidNow() : 0;
    t->slots = calloc(t->nslots, sizeof *t->slots);
    if (!t->slots)
        return -1;
    for (size_t i = 0; i < t->nslots; i++) {
        slot *s = &t->slots[i];
        if (raidTbatchInit(&s->rows, t) != RAID_OK || pctx_init(&s->ps, t) != 0)
            return -1;
        s->ps.b = &s->rows;
    }
    /* The workers block every signal, so that the process's signals go to the caller's threads. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    for (int i = 0; i < t->nworkers; i++) {
        if (pthread_create(&t->workers[i], NULL, worker_main, t) != 0) {
            t->nworkers = i; /* fewer workers; the calling thread parses what they do not */
            break;
        }
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return 0;
}

static void stop_blocks(RaidTable *t)
{
    if (!t->started)
        return;
    pthread_mutex_lock(&t->mu);
    assert(!t->tasks); /* every task waited for (raidTableTaskPost) */
    t->stop = 1;
    pthread_cond_broadcast(&t->cv_work);
    pthread_mutex_unlock(&t->mu);
    for (int i = 0; i < t->nworkers; i++)
        pthread_join(t->workers[i], NULL);
    t->nworkers = 0;
    if (t->slots) {
        for (size_t i = 0; i < t->nslots; i++) {
            raidTbatchFree(&t->slots[i].rows);
            if (t->slots[i].ps.t)
                pctx_free(&t->slots[i].ps);
            free(t->slots[i].own);
        }
        free(t->slots);
        t->slots = NULL;
    }
}

/* The block at the head, parsed (by the calling thread if no worker has taken it yet). */
static slot *head_block(RaidTable *t)
{
    slot *s = &t->slots[t->head % t->nslots];
    pthread_mutex_lock(&t->mu);
    if (t->take == t->head) /* not taken: parse it here */
        parse_next(t, 1);
    const double w0 = t->profile && s->state != S_DONE ? raidNow() : 0;
    while (s->state != S_DONE)
        pthread_cond_wait(&t->cv_done, &t->mu);
    if (w0 != 0)
        t->w_wait += raidNow() - w0;
    pthread_mutex_unlock(&t->mu);
    return s;
}

/* The head block is merged: free its slot (and the mapped pages it alone covers). */
static void release_head(RaidTable *t, slot *s)
{
    t->consumed += s->len;
    if (s->quoted) /* a file with quotes: no more cuts without looking at them */
        t->exact = 1;
    pthread_mutex_lock(&t->mu);
    s->state = S_FREE;
    t->head++;
    if (s->recut) {
        /* The block ended past (or before) where it was cut: the blocks cut after it start in the wrong
         * place. Those not taken yet are dropped, those being parsed are waited for and dropped, and the
         * cutting starts again at the block's true end. */
        for (uint64_t j = t->take; j < t->tail; j++)
            t->slots[j % t->nslots].state = S_FREE;
        t->tail = t->take;
        for (uint64_t j = t->head; j < t->take; j++) {
            slot *v = &t->slots[j % t->nslots];
            while (v->state != S_DONE)
                pthread_cond_wait(&t->cv_done, &t->mu);
            v->state = S_FREE;
        }
        t->head = t->tail;
        t->cut_pos = (size_t)s->off + s->len;
        t->cut_eof = s->eof;
    }
    pthread_mutex_unlock(&t->mu);
}

/* ---------------------------------------------------------------------------------------------- */
/* Open, close, read                                                                               */
/* ---------------------------------------------------------------------------------------------- */

size_t raidIoReadFull(FILE *f, void *buf, size_t n)
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

/* The stream's next bytes for the header (blk_len 0 at the end of the input). */
static raid_status read_head(RaidTable *t)
{
    if (t->map || !t->f) /* the mapped file is all there is */
        return RAID_OK;
    if (t->blk_len == t->blk_cap) {
        const size_t cap = t->blk_cap ? 2 * t->blk_cap : HEAD_SIZE;
        unsigned char *q = realloc(t->blk, cap);
        if (!q)
            return tfail(t, RAID_ENOMEM, "out of memory");
        t->blk = q;
        t->blk_cap = cap;
    }
    const size_t got = raidIoReadFull(t->f, t->blk + t->blk_len, t->blk_cap - t->blk_len);
    if (got < t->blk_cap - t->blk_len && ferror(t->f))
        return tfail(t, RAID_EIO, "%s: read error: %s", t->path, raidErrnoText(errno));
    t->blk_len += got;
    t->consumed += got;
    return RAID_OK;
}

void raidTableClose(RaidTable *t)
{
    if (!t)
        return;
    if (t->profile && t->started)
        fprintf(stderr,
                "profile: table %s (cpu seconds of each thread): calling thread: cut %.3f s, wait %.3f s (of which parsing %.3f s), merge "
                "%.3f s; parsing threads (%d): parse %.3f s, block function %.3f s (summed); %llu blocks of "
                "%zu bytes, %zu slots; wall: blocks read in %.3f s, the calling thread waited %.3f s for the head "
                "block, the parsing threads %.3f s for a block (summed)\n",
                t->path, t->t_cut, t->t_wait, t->t_parse_main, t->t_merge, t->nworkers, t->t_parse, t->t_fn,
                (unsigned long long)t->nblocks, t->block, t->nslots, t->w_read, t->w_wait, t->w_idle);
    if (t->profile && t->ntasks)
        fprintf(stderr, "profile: table %s tasks: %llu tasks of %llu items; cpu: parsing threads %.3f s (summed), "
                "calling thread %.3f s; wall: the calling thread waited %.3f s for tasks (running items included)\n",
                t->path, (unsigned long long)t->ntasks, (unsigned long long)t->nitems, t->t_task, t->t_task_main,
                t->w_task);
    const double c0 = t->profile && t->started ? raidNow() : 0;
    stop_blocks(t);
    if (t->f && !t->is_stdin)
        fclose(t->f);
    if (t->map)
        munmap(t->map, t->map_len);
    else
        free(t->blk);
    if (c0 != 0)
        fprintf(stderr, "profile: table closed in %.3f s (wall: the parsing threads joined, the blocks freed, the file "
                "unmapped)\n", raidNow() - c0);
    if (t->hp.t)
        pctx_free(&t->hp);
    free(t->carry);
    free(t->hdr_text);
    free(t->path);
    if (t->spec)
        for (size_t k = 0; k < t->ncols; k++) {
            free((char *)t->spec[k].name);
            free((char *)t->spec[k].what);
        }
    free(t->spec);
    free(t->col);
    free(t->want);
    for (size_t i = 0; i < t->nhdr; i++)
        free(t->hdr[i]);
    free(t->hdr);
    for (size_t i = 0; i < t->nnotices; i++)
        free(t->notices[i]);
    pthread_mutex_destroy(&t->mu);
    pthread_cond_destroy(&t->cv_work);
    pthread_cond_destroy(&t->cv_done);
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

/* Map a regular file whole (0), or leave it to be streamed (-1). The file must not shrink while it is
 * read (a mapped page past its new end is SIGBUS), as with any reader that maps files. */
static int map_file(RaidTable *t)
{
    struct stat st;
    if (fstat(fileno(t->f), &st) != 0 || !S_ISREG(st.st_mode))
        return -1;
    t->total = (uint64_t)st.st_size;
    if (st.st_size == 0 || (uint64_t)st.st_size > SIZE_MAX) /* empty, or a size that says nothing (/proc) */
        return -1;
    void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fileno(t->f), 0);
    if (m == MAP_FAILED)
        return -1;
    madvise(m, (size_t)st.st_size, MADV_SEQUENTIAL);
    t->map = m;
    t->map_len = (size_t)st.st_size;
    t->blk = t->map;
    t->blk_len = t->map_len;
    fclose(t->f); /* the mapping stays valid */
    t->f = NULL;
    return 0;
}

raid_status raidTableOpen(RaidTable **out, const char *path, const RaidTspec *cols, size_t ncols)
{
    if (!out)
        return raidFail(NULL, RAID_EINVAL, "raidTableOpen: out is NULL");
    *out = NULL;
    if (!path || !*path || !cols || ncols == 0)
        return raidFail(NULL, RAID_EINVAL, "raidTableOpen: no path or no columns");
    for (size_t k = 0; k < ncols; k++)
        if (!cols[k].name || !*cols[k].name)
            return raidFail(NULL, RAID_EINVAL, "empty name for the %s column", cols[k].what);
    RaidTable *t = calloc(1, sizeof *t);
    if (!t)
        return raidFail(NULL, RAID_ENOMEM, "out of memory");
    pthread_mutex_init(&t->mu, NULL);
    pthread_cond_init(&t->cv_work, NULL);
    pthread_cond_init(&t->cv_done, NULL);
    t->profile = getenv("RAID_CSV_PROFILE") != NULL;
    t->ncols = ncols;
    t->path = xstrdup(path);
    t->spec = calloc(ncols, sizeof *t->spec);
    t->col = calloc(ncols, sizeof *t->col);
    int ok = t->path && t->spec && t->col && pctx_init(&t->hp, t) == 0;
    for (size_t k = 0; ok && k < ncols; k++) {
        t->spec[k] = cols[k];
        t->spec[k].name = xstrdup(cols[k].name);
        t->spec[k].what = xstrdup(cols[k].what ? cols[k].what : type_noun(cols[k].type));
        ok = t->spec[k].name && t->spec[k].what;
    }
    if (!ok) {
        raidTableClose(t);
        return raidFail(NULL, RAID_ENOMEM, "out of memory");
    }
    if (strcmp(path, "-") == 0) {
        t->f = stdin;
        t->is_stdin = 1;
    } else {
        t->f = fopen(path, "rb");
        if (!t->f) {
            const int e = errno;
            raidTableClose(t);
            return raidFail(NULL, RAID_EIO, "%s: %s", path, raidErrnoText(e));
        }
        map_file(t); /* else streamed, as standard input */
    }

    /* The header: parse byte by byte so that no data row is tokenised before open returns. A UTF-8 byte
     * order mark at the start is skipped. */
    pctx *hp = &t->hp;
    hp->header = 1;
    hp->cur_line = 1;
    hp->rbase = t->blk; /* the header's raw bytes: offsets in t->blk (moved as a stream's grows) */
    if (read_head(t) == RAID_OK)
        while (t->blk_len < 6 && t->f && !feof(t->f) && read_head(t) == RAID_OK && t->err.st == RAID_OK) {
        }
    if (t->err.st == RAID_OK && t->blk_len >= 3 && memcmp(t->blk, "\xEF\xBB\xBF", 3) == 0) {
        t->blk_pos = 3;
        hp->rstart = 3;
        /* A second mark (a file converted twice) would glue itself to the first column's name, which
         * then is not found, or silently not (an optional symbol column): an error. */
        if (t->blk_len >= 6 && memcmp(t->blk + 3, "\xEF\xBB\xBF", 3) == 0)
            pfail(hp, 1, 1, "a second UTF-8 byte order mark at the start of the file (EF BB BF EF BB BF); "
                            "remove the extra one");
    }
    while (t->err.st == RAID_OK && hp->st == RAID_OK && !t->header_done) {
        if (t->blk_pos == t->blk_len) {
            const size_t before = t->blk_len;
            if (read_head(t) != RAID_OK)
                break;
            if (t->blk_len == before) { /* the end of the input */
                hp->rbase = t->blk;
                hp->rend = t->blk_len;
                csv_end(hp);
                if (hp->st != RAID_OK)
                    break;
                t->at_end = 1;
                if (!t->header_done && hp->cur_line > 1) /* line breaks and nothing else: the last blank line */
                    tfail(t, RAID_EPARSE, "%s:%llu:1: no header row: the file has only blank lines", t->path,
                          (unsigned long long)(hp->cur_line - 1));
                else if (!t->header_done)
                    tfail(t, RAID_EPARSE, "%s:1:1: empty input (no header row)", t->path);
                else if (hp->unterminated)
                    notice_unterminated(t, hp->last_line);
                break;
            }
        }
        hp->rbase = t->blk;
        hp->rend = t->blk_pos;
        if (csv_parse(&hp->csv, t->blk + t->blk_pos, 1, on_field, on_row, hp) != 1) {
            csv_failed(hp);
            break;
        }
        t->blk_pos++;
    }
    if (t->err.st == RAID_OK && hp->st != RAID_OK)
        ps_to_table(t, hp, 0);
    if (t->err.st != RAID_OK) {
        const raid_status s = t->err.st;
        raidStickyAgain(&t->err);
        raidTableClose(t);
        return s;
    }
    for (size_t i = 0; i < t->nhdr; i++)
        free(t->hdr[i]);
    free(t->hdr);
    t->hdr = NULL;
    t->nhdr = t->hdr_cap = 0;
    /* The data start right after the header's line break; the LF of a CRLF ends no line. */
    if (!t->at_end && hp->last_term == '\r' && t->blk_pos == t->blk_len && !t->map && t->f)
        read_head(t);
    if (!t->at_end && hp->last_term == '\r' && t->blk_pos < t->blk_len && t->blk[t->blk_pos] == '\n')
        t->blk_pos++;
    t->line_base = hp->cur_line;
    if (t->map) {
        t->cut_pos = t->blk_pos;
        t->consumed = t->blk_pos;
    } else if (t->f) { /* the bytes read past the header are carried into the first block */
        t->carry_len = t->blk_len - t->blk_pos;
        t->carry_cap = t->carry_len;
        t->carry = malloc(t->carry_len ? t->carry_len : 1);
        if (!t->carry) {
            raidTableClose(t);
            return raidFail(NULL, RAID_ENOMEM, "out of memory");
        }
        memcpy(t->carry, t->blk + t->blk_pos, t->carry_len);
        t->consumed -= t->carry_len;
    }
    *out = t;
    return RAID_OK;
}

static raid_status table_read(RaidTable *t, RaidTbatch *b, size_t max_rows, int *done);

void raidTableSetProgress(RaidTable *t, raid_ctx *ctx) { t->progress = ctx; }

raid_status raidTableRead(RaidTable *t, RaidTbatch *b, size_t max_rows, int *done)
{
    const raid_status st = table_read(t, b, max_rows, done);
    if (t && t->progress && st == RAID_OK) {
        uint64_t used, total;
        raidTableProgress(t, &used, &total);
        raidProgress(t->progress, *done && total ? total : used, total, "bytes");
    }
    return st;
}

static raid_status table_read(RaidTable *t, RaidTbatch *b, size_t max_rows, int *done)
{
    if (done)
        *done = 0;
    if (!t || !b || !done || b->ncols != t->ncols || max_rows == 0)
        return t ? tfail(t, RAID_EINVAL, "raidTableRead: bad argument")
                 : raidFail(NULL, RAID_EINVAL, "raidTableRead: bad argument");
    batch_clear(b);
    if (t->err.st != RAID_OK)
        return raidStickyAgain(&t->err);
    if (t->at_end) {
        *done = 1;
        return RAID_OK;
    }
    if (!t->started && start_blocks(t) != 0)
        return tfail(t, RAID_ENOMEM, "out of memory");
    while (b->nrows < max_rows) {
        double t0 = t->profile ? raidCpuNow() : 0;
        fill(t);
        if (t->profile) {
            const double t1 = raidCpuNow();
            t->t_cut += t1 - t0;
            t0 = t1;
        }
        if (t->head == t->tail) { /* every block is merged */
            if (t->read_errno)
                return tfail(t, t->read_errno == ENOMEM ? RAID_ENOMEM : RAID_EIO, "%s: read error: %s", t->path,
                             raidErrnoText(t->read_errno));
            t->at_end = 1;
            *done = 1;
            if (t->profile)
                t->w_read = raidNow() - t->w_start;
            break;
        }
        slot *s = head_block(t);
        if (t->profile) {
            const double t1 = raidCpuNow();
            t->t_wait += t1 - t0;
            t0 = t1;
        }
        RaidTbatch *r = &s->rows;
        const uint64_t base = t->line_base;
        int whole = 0;
        if (b->nrows == 0 && s->cursor == 0 && r->nrows <= max_rows) { /* the block's rows: swap the arrays */
            const RaidTbatch tmp = *b;
            *b = *r;
            *r = tmp;
            batch_clear(r);
            if (t->rel_lines)
                b->line_base = base;
            else
                for (size_t k = 0; k < t->ncols; k++)
                    if (t->col[k] != SIZE_MAX)
                        for (size_t i = 0; i < b->nrows; i++)
                            b->col[k].line[i] += base;
            s->cursor = SIZE_MAX;
            whole = b->nrows > 0;
        } else if (s->cursor != SIZE_MAX && s->cursor < r->nrows) {
            size_t n = r->nrows - s->cursor;
            if (n > max_rows - b->nrows)
                n = max_rows - b->nrows;
            if (batch_append(t, b, r, s->cursor, n, base) != 0)
                return tfail(t, RAID_ENOMEM, "out of memory");
            s->cursor += n;
            if (s->cursor < r->nrows) {
                if (t->profile)
                    t->t_merge += raidCpuNow() - t0;
                break; /* b is full */
            }
        }
        if (t->profile)
            t->t_merge += raidCpuNow() - t0;
        /* every row of the block is handed over */
        if (s->ps.st != RAID_OK) {
            const raid_status st = ps_to_table(t, &s->ps, base);
            release_head(t, s);
            return st;
        }
        if (s->eof && s->ps.unterminated)
            notice_unterminated(t, base + s->ps.last_line);
        t->line_base += s->ps.cur_line;
        const int last = s->eof;
        release_head(t, s);
        if (last) {
            t->at_end = 1;
            *done = 1;
            if (t->profile)
                t->w_read = raidNow() - t->w_start;
            break;
        }
        if (whole) /* a block's rows as they were parsed: the caller works on them while the next are parsed */
            break;
    }
    return RAID_OK;
}
