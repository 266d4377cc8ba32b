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
/* Options and parsers of option strings                                                           */
/* ---------------------------------------------------------------------------------------------- */

void raid_read_opts_init(raid_read_opts *o)
{
    if (!o)
        return;
    memset(o, 0, sizeof *o);
    o->kind = RAID_INPUT_PRICES;
    o->session_start_s = -1;
    o->session_end_s = -1;
    o->sample_us = INT64_C(300000000);
}

raid_status raid_parse_sample(const char *s, int64_t *us)
{
    if (!s || !us)
        return RAID_EINVAL;
    if (strcasecmp(s, "tick") == 0) {
        *us = 0;
        return RAID_OK;
    }
    const char *p = s;
    int64_t n = 0;
    while (*p >= '0' && *p <= '9') {
        if (n > INT64_C(1000000000000))
            return RAID_EINVAL;
        n = n * 10 + (*p++ - '0');
    }
    if (p == s || n <= 0)
        return RAID_EINVAL;
    int64_t unit;
    if (strcasecmp(p, "ms") == 0)
        unit = 1000;
    else if (strcasecmp(p, "s") == 0)
        unit = RAID_US_PER_S;
    else if (strcasecmp(p, "min") == 0)
        unit = 60 * RAID_US_PER_S;
    else if (strcasecmp(p, "h") == 0)
        unit = 3600 * RAID_US_PER_S;
    else
        return RAID_EINVAL;
    if (n > RAID_US_PER_DAY / unit)
        return RAID_EINVAL; /* longer than a day */
    *us = n * unit;
    return RAID_OK;
}

/* "H:MM" or "HH:MM", 00:00 .. 24:00, into seconds; returns the end or NULL. */
static const char *parse_hhmm(const char *p, int32_t *sec)
{
    int h = 0, nd = 0;
    while (*p >= '0' && *p <= '9' && nd < 2) {
        h = h * 10 + (*p++ - '0');
        nd++;
    }
    if (nd == 0 || *p != ':')
        return NULL;
    p++;
    if (!(p[0] >= '0' && p[0] <= '9' && p[1] >= '0' && p[1] <= '9'))
        return NULL;
    int m = (p[0] - '0') * 10 + (p[1] - '0');
    if (m > 59 || h > 24 || (h == 24 && m != 0))
        return NULL;
    *sec = h * 3600 + m * 60;
    return p + 2;
}

raid_status raid_parse_session(const char *s, int32_t *start_s, int32_t *end_s)
{
    if (!s || !start_s || !end_s)
        return RAID_EINVAL;
    int32_t a, b;
    const char *p = parse_hhmm(s, &a);
    if (!p || *p != '-' || !(p = parse_hhmm(p + 1, &b)) || *p || b < a)
        return RAID_EINVAL;
    *start_s = a;
    *end_s = b;
    return RAID_OK;
}

/* ---------------------------------------------------------------------------------------------- */
/* Batches                                                                                         */
/* ---------------------------------------------------------------------------------------------- */

void raid_batch_init(raid_batch *b)
{
    if (b)
        memset(b, 0, sizeof *b);
}

void raid_batch_clear(raid_batch *b)
{
    if (!b)
        return;
    b->nret = 0;
    b->nseg = 0;
    if (b->offsets)
        b->offsets[0] = 0;
}

void raid_batch_free(raid_batch *b)
{
    if (!b)
        return;
    free(b->ret);
    free(b->offsets);
    free(b->symbol);
    free(b->date);
    memset(b, 0, sizeof *b);
}

static raid_status batch_append(raid_batch *b, uint32_t sym, int32_t date, const double *r, size_t n)
{
    if (b->nret + n > b->ret_cap) {
        size_t cap = b->ret_cap ? b->ret_cap : 1024;
        while (cap < b->nret + n)
            cap *= 2;
        double *t = realloc(b->ret, cap * sizeof *t);
        if (!t)
            return RAID_ENOMEM;
        b->ret = t;
        b->ret_cap = cap;
    }
    if (b->nseg + 1 > b->seg_cap || !b->offsets) {
        size_t cap = b->seg_cap ? b->seg_cap * 2 : 64;
        int64_t *o = realloc(b->offsets, (cap + 1) * sizeof *o);
        if (!o)
            return RAID_ENOMEM;
        if (!b->offsets)
            o[0] = (int64_t)b->nret;
        b->offsets = o;
        uint32_t *s = realloc(b->symbol, cap * sizeof *s);
        if (!s)
            return RAID_ENOMEM;
        b->symbol = s;
        int32_t *d = realloc(b->date, cap * sizeof *d);
        if (!d)
            return RAID_ENOMEM;
        b->date = d;
        b->seg_cap = cap;
    }
    if (b->nseg == 0)
        b->offsets[0] = (int64_t)b->nret;
    if (n)
        memcpy(b->ret + b->nret, r, n * sizeof *r);
    b->nret += n;
    b->symbol[b->nseg] = sym;
    b->date[b->nseg] = date;
    b->offsets[++b->nseg] = (int64_t)b->nret;
    return RAID_OK;
}

/* ---------------------------------------------------------------------------------------------- */
/* Reader state                                                                                    */
/* ---------------------------------------------------------------------------------------------- */

typedef struct sym_state {
    char *name;
    /* ordering */
    int has_prev;
    int64_t prev_key;          /* instant (prices) or day (returns) of the previous row */
    uint64_t prev_line;
    char prev_text[PREV_TEXT];
    /* the open segment */
    int has_seg;
    int64_t day;               /* local date, days since the epoch */
    int have_obs;              /* a kept observation in this segment */
    int64_t last_t, next_grid; /* instants, microseconds */
    double last_p;
    size_t nsampled;
    double last_sampled;
    double *ret;
    size_t n, cap;
} sym_state;

typedef struct ready_seg {
    uint32_t sym;
    int32_t date;
    size_t off, n; /* into rbuf */
} ready_seg;

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
    int32_t ses_lo_s, ses_hi_s; /* -1: none */
    int64_t sample_us;
    char *colname[NF];         /* wanted column names */
    int sym_required;
    raid_io_tz *tz;
    int tz_cached;
    int64_t tz_lo, tz_hi;
    int32_t tz_off;

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

    /* symbols: table in order of first appearance, open-addressing hash of indices + 1 */
    sym_state *syms;
    size_t nsyms, sym_cap;
    uint32_t *hash;
    size_t hcap;

    /* complete segments not yet delivered */
    ready_seg *rq;
    size_t rq_n, rq_cap, rq_head;
    double *rbuf;
    size_t rbuf_n, rbuf_cap;

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
    return s;
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
/* Symbols                                                                                         */
/* ---------------------------------------------------------------------------------------------- */

static uint64_t hash_str(const char *s, size_t n)
{
    uint64_t h = UINT64_C(1469598103934665603);
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * UINT64_C(1099511628211);
    return h;
}

static int rehash(raid_reader *rd, size_t cap)
{
    uint32_t *h = calloc(cap, sizeof *h);
    if (!h)
        return -1;
    for (size_t i = 0; i < rd->nsyms; i++) {
        const char *nm = rd->syms[i].name;
        size_t j = hash_str(nm, strlen(nm)) & (cap - 1);
        while (h[j])
            j = (j + 1) & (cap - 1);
        h[j] = (uint32_t)i + 1;
    }
    free(rd->hash);
    rd->hash = h;
    rd->hcap = cap;
    return 0;
}

/* The index of symbol s[0..n), added if new; -1 on ENOMEM. */
static int64_t symbol_index(raid_reader *rd, const char *s, size_t n)
{
    if (rd->nsyms == 1 && rd->col[F_SYM] < 0)
        return 0;
    if (rd->hcap) {
        size_t j = hash_str(s, n) & (rd->hcap - 1);
        while (rd->hash[j]) {
            const char *nm = rd->syms[rd->hash[j] - 1].name;
            if (strncmp(nm, s, n) == 0 && nm[n] == 0)
                return rd->hash[j] - 1;
            j = (j + 1) & (rd->hcap - 1);
        }
    }
    if (rd->nsyms >= UINT32_MAX - 1)
        return -1;
    if ((rd->nsyms + 1) * 2 > rd->hcap && rehash(rd, rd->hcap ? rd->hcap * 2 : 64) != 0)
        return -1;
    if (rd->nsyms == rd->sym_cap) {
        size_t cap = rd->sym_cap ? rd->sym_cap * 2 : 16;
        sym_state *t = realloc(rd->syms, cap * sizeof *t);
        if (!t)
            return -1;
        rd->syms = t;
        rd->sym_cap = cap;
    }
    sym_state *st = &rd->syms[rd->nsyms];
    memset(st, 0, sizeof *st);
    st->name = malloc(n + 1);
    if (!st->name)
        return -1;
    memcpy(st->name, s, n);
    st->name[n] = 0;
    size_t j = hash_str(s, n) & (rd->hcap - 1);
    while (rd->hash[j])
        j = (j + 1) & (rd->hcap - 1);
    rd->hash[j] = (uint32_t)rd->nsyms + 1;
    return (int64_t)rd->nsyms++;
}

/* ---------------------------------------------------------------------------------------------- */
/* Segments                                                                                        */
/* ---------------------------------------------------------------------------------------------- */

static int push_ret(sym_state *s, double r)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 256;
        double *t = realloc(s->ret, cap * sizeof *t);
        if (!t)
            return -1;
        s->ret = t;
        s->cap = cap;
    }
    s->ret[s->n++] = r;
    return 0;
}

/* The return from price prev to p (both positive and finite): log1p of the relative change where that is
 * accurate (p/prev in [0.5, 2]: the subtraction is exact), else the difference of the logarithms, which
 * cannot overflow (|r| < 1500) where the relative change can. */
static double price_return(double prev, double p)
{
    const double q = (p - prev) / prev;
    if (isfinite(q) && q >= -0.5 && q <= 1)
        return log1p(q);
    return log(p) - log(prev);
}

static int take_sample(sym_state *s, double p)
{
    if (s->nsampled++ > 0 && push_ret(s, price_return(s->last_sampled, p)) != 0)
        return -1;
    s->last_sampled = p;
    return 0;
}

static int32_t yyyymmdd(int64_t day)
{
    int64_t y;
    int m, d;
    raid_io_civil_from_days(day, &y, &m, &d);
    return (int32_t)(y * 10000 + m * 100 + d);
}

/* Close the open segment of symbol i and queue it (if it holds at least one price or return). */
static raid_status close_segment(raid_reader *rd, uint32_t i)
{
    sym_state *s = &rd->syms[i];
    if (!s->has_seg)
        return RAID_OK;
    s->has_seg = 0;
    if (rd->kind == RAID_INPUT_PRICES && rd->sample_us > 0 && s->have_obs) {
        while (s->next_grid <= s->last_t) {
            if (take_sample(s, s->last_p) != 0)
                return fail(rd, RAID_ENOMEM, "out of memory");
            s->next_grid += rd->sample_us;
        }
    }
    /* A segment with at least one kept observation is delivered, even with 0 returns. */
    int nonempty = rd->kind == RAID_INPUT_RETURNS || s->nsampled > 0 || s->have_obs;
    if (nonempty) {
        if (rd->rbuf_n + s->n > rd->rbuf_cap) {
            size_t cap = rd->rbuf_cap ? rd->rbuf_cap : 4096;
            while (cap < rd->rbuf_n + s->n)
                cap *= 2;
            double *t = realloc(rd->rbuf, cap * sizeof *t);
            if (!t)
                return fail(rd, RAID_ENOMEM, "out of memory");
            rd->rbuf = t;
            rd->rbuf_cap = cap;
        }
        if (rd->rq_n == rd->rq_cap) {
            size_t cap = rd->rq_cap ? rd->rq_cap * 2 : 64;
            ready_seg *t = realloc(rd->rq, cap * sizeof *t);
            if (!t)
                return fail(rd, RAID_ENOMEM, "out of memory");
            rd->rq = t;
            rd->rq_cap = cap;
        }
        if (s->n)
            memcpy(rd->rbuf + rd->rbuf_n, s->ret, s->n * sizeof *s->ret);
        rd->rq[rd->rq_n++] = (ready_seg){i, yyyymmdd(s->day), rd->rbuf_n, s->n};
        rd->rbuf_n += s->n;
    }
    s->n = 0;
    s->nsampled = 0;
    s->have_obs = 0;
    return RAID_OK;
}

static void open_segment(sym_state *s, int64_t day)
{
    s->has_seg = 1;
    s->day = day;
    s->n = 0;
    s->nsampled = 0;
    s->have_obs = 0;
}

/* A kept price observation at instant t (us); anchor is the instant of local midnight. */
static int observe(raid_reader *rd, sym_state *s, int64_t t, int64_t anchor, double p)
{
    if (rd->sample_us == 0)
        return take_sample(s, p);
    const int64_t S = rd->sample_us;
    if (!s->have_obs) {
        s->have_obs = 1;
        s->next_grid = anchor + (raid_io_floordiv(t - anchor - 1, S) + 1) * S; /* first grid point >= t */
    } else {
        while (s->next_grid < t) { /* grid points in [last_t, t) take the previous price */
            if (take_sample(s, s->last_p) != 0)
                return -1;
            s->next_grid += S;
        }
    }
    s->last_t = t;
    s->last_p = p;
    return 0;
}

/* ---------------------------------------------------------------------------------------------- */
/* Rows                                                                                            */
/* ---------------------------------------------------------------------------------------------- */

static int32_t tz_offset(raid_reader *rd, int64_t utc_s)
{
    if (!rd->tz_cached || utc_s < rd->tz_lo || utc_s >= rd->tz_hi) {
        rd->tz_off = raid_io_tz_offset(rd->tz, utc_s, &rd->tz_lo, &rd->tz_hi);
        rd->tz_cached = 1;
    }
    return rd->tz_off;
}

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

/* Order checks and segment switching shared by prices and returns. key orders the rows of a symbol
 * (the instant of a price, the day of a return; equal keys are allowed), day is the row's local date.
 * Closes the symbol's segment when the date moves on and opens the next. 0, or -1 after a failure. */
static int advance(raid_reader *rd, sym_state *s, uint32_t si, int64_t key, int64_t day)
{
    const char *what = NULL;
    if (s->has_prev && key < s->prev_key)
        what = rd->kind == RAID_INPUT_RETURNS ? "date" : "time";
    else if (s->has_seg && day < s->day)
        what = "date";
    if (what) {
        PARSE_FAIL(rd, FLINE(F_TIME), FCOL(F_TIME), "%s goes backwards for symbol '%s': '%.*s' before '%s' (line %llu)",
                   what, s->name, FTEXT(F_TIME), s->prev_text, (unsigned long long)s->prev_line);
        return -1;
    }
    s->has_prev = 1;
    s->prev_key = key;
    s->prev_line = FLINE(F_TIME);
    snprintf(s->prev_text, sizeof s->prev_text, "%.*s", FTEXT(F_TIME));
    if (s->has_seg && day != s->day && close_segment(rd, si) != RAID_OK)
        return -1;
    if (!s->has_seg)
        open_segment(s, day);
    return 0;
}

static void process_prices(raid_reader *rd, sym_state *s, uint32_t si)
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
        local = instant + (int64_t)tz_offset(rd, raid_io_floordiv(instant, RAID_US_PER_S)) * RAID_US_PER_S;
    }
    const int64_t day = raid_io_floordiv(local, RAID_US_PER_DAY);
    if (advance(rd, s, si, instant, day) != 0)
        return;
    int64_t tod = local - day * RAID_US_PER_DAY;
    if (rd->ses_lo_s >= 0 &&
        (tod < rd->ses_lo_s * RAID_US_PER_S || tod > rd->ses_hi_s * RAID_US_PER_S))
        return;
    if (observe(rd, s, instant, instant - tod, p) != 0)
        fail(rd, RAID_ENOMEM, "out of memory");
}

static void process_returns(raid_reader *rd, sym_state *s, uint32_t si)
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
    if (advance(rd, s, si, day, day) != 0)
        return;
    if (push_ret(s, r) != 0)
        fail(rd, RAID_ENOMEM, "out of memory");
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
        si = symbol_index(rd, rd->fld[F_SYM].s, rd->fld[F_SYM].len);
    else if (rd->nsyms == 0)
        si = symbol_index(rd, "", 0);
    if (si < 0) {
        fail(rd, RAID_ENOMEM, "out of memory");
        return;
    }
    if (rd->kind == RAID_INPUT_PRICES)
        process_prices(rd, &rd->syms[si], (uint32_t)si);
    else
        process_returns(rd, &rd->syms[si], (uint32_t)si);
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
    raid_io_tz_free(rd->tz);
    for (size_t i = 0; i < rd->nhdr; i++)
        free(rd->hdr[i]);
    free(rd->hdr);
    for (size_t i = 0; i < rd->nsyms; i++) {
        free(rd->syms[i].name);
        free(rd->syms[i].ret);
    }
    free(rd->syms);
    free(rd->hash);
    free(rd->rq);
    free(rd->rbuf);
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
    for (size_t i = 0; i < rd->nsyms; i++)
        if (close_segment(rd, (uint32_t)i) != RAID_OK)
            return rd->st;
    rd->eof = 1;
    return RAID_OK;
}

raid_status raid_reader_open(raid_reader **out, const char *path, const raid_read_opts *o, char *errbuf,
                             size_t errbuf_len)
{
    if (!out) {
        raid_msg(errbuf, errbuf_len, "raid_reader_open: out is NULL");
        return RAID_EINVAL;
    }
    *out = NULL;
    raid_read_opts defaults;
    if (!o) {
        raid_read_opts_init(&defaults);
        o = &defaults;
    }
    if (!path || !*path) {
        raid_msg(errbuf, errbuf_len, "raid_reader_open: no path");
        return RAID_EINVAL;
    }
    if (o->kind != RAID_INPUT_PRICES && o->kind != RAID_INPUT_RETURNS) {
        raid_msg(errbuf, errbuf_len, "raid_reader_open: unknown input kind %d", (int)o->kind);
        return RAID_EINVAL;
    }
    if (o->sample_us < 0 || o->sample_us > RAID_US_PER_DAY) {
        raid_msg(errbuf, errbuf_len, "raid_reader_open: sampling interval out of range");
        return RAID_EINVAL;
    }
    if (o->session_start_s != -1 &&
        (o->session_start_s < 0 || o->session_end_s < o->session_start_s || o->session_end_s > 86400)) {
        raid_msg(errbuf, errbuf_len, "raid_reader_open: session window %d..%d out of range",
                 (int)o->session_start_s, (int)o->session_end_s);
        return RAID_EINVAL;
    }
    const char *names[NF];
    int ret = o->kind == RAID_INPUT_RETURNS;
    names[F_SYM] = o->symbol_col ? o->symbol_col : "symbol";
    names[F_TIME] = ret ? (o->date_col ? o->date_col : "date") : (o->time_col ? o->time_col : "timestamp");
    names[F_VAL] = ret ? (o->ret_col ? o->ret_col : "ret") : (o->price_col ? o->price_col : "price");
    for (int k = 0; k < NF; k++) {
        if (!*names[k]) {
            raid_msg(errbuf, errbuf_len, "raid_reader_open: empty column name");
            return RAID_EINVAL;
        }
    }

    raid_reader *rd = calloc(1, sizeof *rd);
    if (!rd) {
        raid_msg(errbuf, errbuf_len, "out of memory");
        return RAID_ENOMEM;
    }
    rd->kind = o->kind;
    rd->sample_us = ret ? 0 : o->sample_us;
    rd->ses_lo_s = ret ? -1 : o->session_start_s;
    rd->ses_hi_s = o->session_end_s;
    rd->sym_required = o->symbol_col != NULL;
    rd->cur_line = 1;
    rd->path = xstrdup(path);
    rd->blk = malloc(BLOCK_SIZE);
    int ok = rd->path && rd->blk;
    for (int k = 0; k < NF; k++)
        ok = ok && (rd->colname[k] = xstrdup(names[k])) != NULL;
    if (!ok) {
        raid_reader_close(rd);
        raid_msg(errbuf, errbuf_len, "out of memory");
        return RAID_ENOMEM;
    }
    raid_status s = raid_io_tz_open(&rd->tz, o->tz, errbuf, errbuf_len);
    if (s != RAID_OK) {
        raid_reader_close(rd);
        return s;
    }
    if (strcmp(path, "-") == 0) {
        rd->f = stdin;
        rd->is_stdin = 1;
    } else {
        rd->f = fopen(path, "rb");
        if (!rd->f) {
            raid_msg(errbuf, errbuf_len, "%s: %s", path, strerror(errno));
            raid_reader_close(rd);
            return RAID_EIO;
        }
        struct stat stt;
        if (fstat(fileno(rd->f), &stt) == 0 && S_ISREG(stt.st_mode))
            rd->total = (uint64_t)stt.st_size;
    }
    if (csv_init(&rd->csv, CSV_REPALL_NL) != 0) {
        raid_reader_close(rd);
        raid_msg(errbuf, errbuf_len, "out of memory");
        return RAID_ENOMEM;
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
        raid_msg(errbuf, errbuf_len, "%s", rd->errmsg);
        s = rd->st;
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
        return rd ? fail(rd, RAID_EINVAL, "raid_reader_next: NULL argument") : RAID_EINVAL;
    if (rd->st != RAID_OK)
        return rd->st;
    size_t delivered = 0;
    for (;;) {
        /* Deliver queued segments: at least one per call, then until max_returns. */
        while (rd->rq_head < rd->rq_n && (delivered == 0 || b->nret < max_returns)) {
            const ready_seg *q = &rd->rq[rd->rq_head];
            if (batch_append(b, q->sym, q->date, rd->rbuf + q->off, q->n) != RAID_OK)
                return fail(rd, RAID_ENOMEM, "out of memory");
            rd->rq_head++;
            delivered++;
        }
        if (rd->rq_head == rd->rq_n) {
            rd->rq_head = rd->rq_n = 0;
            rd->rbuf_n = 0;
        }
        if (delivered && b->nret >= max_returns)
            return RAID_OK;
        if (rd->eof) {
            if (rd->rq_n == 0)
                *done = 1;
            return RAID_OK;
        }
        if (rd->rq_n > 0)
            continue;
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

const char *raid_reader_symbol(const raid_reader *rd, uint32_t i)
{
    if (!rd || i >= rd->nsyms)
        return NULL;
    return rd->syms[i].name;
}

void raid_reader_progress(const raid_reader *rd, uint64_t *consumed, uint64_t *total)
{
    if (consumed)
        *consumed = rd ? rd->consumed : 0;
    if (total)
        *total = rd && !rd->is_stdin ? rd->total : 0;
}
