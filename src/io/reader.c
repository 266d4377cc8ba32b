/* Reading intraday prices (or daily-segmented returns) from CSV into (symbol, trading date) segments:
 * the CSV through the table reader (table.c: tokenising, header, typed columns, FILE:LINE:COL errors,
 * batches in bounded memory), each row checked (a price positive and finite, a return finite with
 * |r| <= 1e74 = RAID_MAX_RETURN: the library's quarticity sums take fourth powers) and handed to the
 * segmenter (segment.c: order, session, time zone, sampling), the same one that raid_ticks feeds.
 * Timestamps with an offset are converted to UTC and then to the local time of opts->tz (tz.c, RFC 8536).
 * docs/input.md describes the format. */
#define _POSIX_C_SOURCE 200809L
#include "core/internal.h"
#include "io/segment.h"
#include "io/sticky.h"
#include "io/table.h"
#include "io/tz.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TABLE_ROWS RAID_TABLE_BLOCK_ROWS /* rows per batch of the table reader: a whole block of the file */

enum { F_SYM = 0, F_TIME = 1, F_VAL = 2, NF = 3 };

/* What the parsing threads work out for each block of prices (derive, the table's block function), so
 * that the calling thread, which segments the rows in file order, does as little as possible per row:
 * - each row's instant (the order key), trading date and time of day under the time zone and session,
 *   whether the session keeps it, and with tick sampling the return from the previous kept price of the
 *   row's symbol when that row is in the block and on the same trading date (the segmenter's log1p);
 * - for a block without a problem inside it (valid prices and dates, each symbol's rows in order; a grid
 *   of 50 ms or more, so that no segment can pass RAID_MAX_SEGMENT_RETURNS), the rows that the segmenter
 *   must see ("must" rows, in file order): each symbol's first and last row of the block, the first row of
 *   each trading date, the first and last kept observation of each date, and with a grid each observation
 *   whose price a grid point takes (one lies between it and the next kept observation). Any other kept
 *   observation changes the segment only by its tick return (kept here, handed over with the next must row
 *   of its symbol) or, with a grid, by the count of the notice's statistics; any other dropped row changes
 *   nothing. The calling thread then gives the segmenter the must rows only: a few per symbol and block.
 *   The one assumption about the state before the block, that a date continued from the previous block has
 *   its grid through the same midnight, is checked by the calling thread (grid_ok), else every row goes. */
enum { PRE_KEEP = 1, PRE_RET = 2, PRE_MUST = 4 };

#define NONE UINT32_MAX
/* A grid of 50 ms: the instants of one trading date (local times within a day; offsets in the file within a
 * day, a zone's within a week either way, as POSIX TZ strings allow: less than 360 hours) hold fewer than
 * RAID_MAX_SEGMENT_RETURNS (2^25) grid points, so that no left-out observation could be the row refused
 * with RAID_SEG_TOO_MANY. */
#define MIN_FAST_GRID_US INT64_C(50000)

typedef struct pre {
    size_t cap;
    int64_t *instant, *day, *tod;
    uint8_t *flag;
    double *ret;
    uint32_t *att; /* a left-out kept row: the must row (index in must) it goes with */
    /* the must rows */
    int fast;
    size_t nmust;
    uint32_t *must, *nskip, *fill;
    size_t *soff; /* tick: the returns of the kept rows left out before must row m: sret[soff[m] ..) */
    double *sret;
    /* per distinct symbol of the block */
    size_t kcap;
    double *kp;              /* the last kept price */
    int64_t *kday;           /* its date */
    uint8_t *khas;
    int64_t *kinst, *krowday; /* the last row's instant and date */
    uint32_t *klast, *klastkept, *knext;
    int64_t *kanchor, *kfirstday, *kanchor1; /* the run's anchor; the first row's date, the first run's anchor */
    uint8_t *krun1, *kanc1;
} pre;

/* What derive reads (set once at open; never written while blocks are parsed). */
typedef struct pre_cfg {
    const RaidSeg *sg;
    const RaidIoTz *tz;
    int has_sym, tick;
    int64_t sample_us;
    int fixed;         /* the zone has one offset at all times (UTC): a local time's instant is local - fixed_us */
    int64_t fixed_us;
    int samples;       /* raid_read_opts.samples: every kept row goes to the segmenter with tick sampling */
} pre_cfg;

struct raid_reader {
    pre_cfg cfg;
    int profile;     /* RAID_CSV_PROFILE */
    double t_seg, t_take;
    uint64_t nrows, nfast; /* rows read, rows of blocks whose must rows only went to the segmenter */
    RaidTable *tb;
    RaidTbatch rows;
    RaidSeg *sg;
    int64_t *kmap;   /* the batch's distinct symbols (table keys) to segmenter symbols, -1 not yet looked up */
    size_t kmap_cap;
    raid_input_kind kind;
    int has_sym;     /* the file has a symbol column */
    int eof;         /* every row read, open segments closed */
    RaidSticky err;
};

#define fail(rd, ...) raidStickyFail(&(rd)->err, __VA_ARGS__)

/* The table's failure (positional or not) as the reader's. */
static raid_status table_failed(raid_reader *rd) { return fail(rd, RAID_EPARSE, "%s", raidTableErrmsg(rd->tb)); }

/* ---------------------------------------------------------------------------------------------- */
/* Rows                                                                                            */
/* ---------------------------------------------------------------------------------------------- */

/* The segmenter's code for row i into the reader's status. */
static raid_status seg_result(raid_reader *rd, int rc, uint32_t si, size_t i)
{
    if (rc == RAID_SEG_OK)
        return RAID_OK;
    if (rc == RAID_SEG_ENOMEM)
        return fail(rd, RAID_ENOMEM, "out of memory");
    const RaidTcol *c = &rd->rows.col[F_TIME];
    size_t len;
    const char *text = raidTcolText(c, i, &len);
    if (rc == RAID_SEG_DATE_RANGE || rc == RAID_SEG_TOO_MANY) {
        char why[160];
        raidSegRowProblem(rd->sg, rc, why, sizeof why);
        raidTableFail(rd->tb, rd->rows.line_base + c->line[i], raidTableCol(rd->tb, F_TIME),
                        "symbol '%s': %s: '%s'", RAID_SHOWZ(raidSegSymbolName(rd->sg, si)), why, RAID_SHOW(text, len));
        return table_failed(rd);
    }
    uint64_t pline;
    const char *ptext;
    raidSegPrev(rd->sg, si, &pline, &ptext, NULL, NULL);
    raidTableFail(rd->tb, rd->rows.line_base + c->line[i], raidTableCol(rd->tb, F_TIME),
                    "%s goes backwards for symbol '%s': '%s' before '%s' (line %llu)",
                    rc == RAID_SEG_TIME_BACK ? "time" : "date", RAID_SHOWZ(raidSegSymbolName(rd->sg, si)),
                    RAID_SHOW(text, len), RAID_SHOWZ(ptext), (unsigned long long)pline);
    return table_failed(rd);
}

/* A value check that failed at row i: "FILE:LINE:COL: what 'text'". */
/* Whether value v = 0 of row i of column c was written as a number that is not zero (1e-400: positive as
 * written, 0 as a double; its message says so), i.e. its significand has a digit 1 to 9. */
static int underflowed(const RaidTcol *c, size_t i, double v)
{
    size_t len;
    const char *text = raidTcolText(c, i, &len);
    for (size_t k = 0; v == 0 && k < len && text[k] != 'e' && text[k] != 'E'; k++)
        if (text[k] >= '1' && text[k] <= '9')
            return 1;
    return 0;
}

static raid_status value_failed(raid_reader *rd, size_t i, const char *what)
{
    const RaidTcol *c = &rd->rows.col[F_VAL];
    size_t len;
    const char *text = raidTcolText(c, i, &len);
    raidTableFail(rd->tb, rd->rows.line_base + c->line[i], raidTableCol(rd->tb, F_VAL), "%s: '%s'", what,
                    RAID_SHOW(text, len));
    return table_failed(rd);
}

static void pre_free(void *p)
{
    pre *q = p;
    if (!q)
        return;
    void *arr[] = {q->instant, q->day, q->tod, q->flag, q->ret, q->att, q->must, q->nskip, q->fill, q->soff, q->sret,
                   q->kp, q->kday, q->khas, q->kinst, q->krowday, q->klast, q->klastkept, q->knext, q->kanchor,
                   q->kfirstday, q->kanchor1, q->krun1, q->kanc1};
    for (size_t i = 0; i < sizeof arr / sizeof *arr; i++)
        free(arr[i]);
    free(q);
}

#define GROW(a, n) raidRegrow(&(a), (n), sizeof *(a))

static void must(pre *q, uint32_t i) { q->flag[i] |= PRE_MUST; }

/* The table's block function (a parsing thread, or the calling thread for rows copied across blocks):
 * b->user's arrays for b's rows. 0, or -1 when out of memory. */
static int derive(const void *arg, RaidTbatch *b)
{
    const pre_cfg *cf = arg;
    pre *q = b->user;
    if (!q) {
        if (!(q = calloc(1, sizeof *q)))
            return -1;
        b->user = q;
        b->user_free = pre_free;
    }
    const size_t n = b->nrows;
    if (n > q->cap) {
        const size_t cap = n + n / 4;
        if (GROW(q->instant, cap) || GROW(q->day, cap) || GROW(q->tod, cap) || GROW(q->flag, cap) || GROW(q->ret, cap) ||
            GROW(q->att, cap) || GROW(q->must, cap) || GROW(q->nskip, cap) || GROW(q->fill, cap) || GROW(q->soff, cap) ||
            GROW(q->sret, cap))
            return -1;
        q->cap = cap;
    }
    const RaidTcol *sym = &b->col[F_SYM], *tc = &b->col[F_TIME], *vc = &b->col[F_VAL];
    const int64_t S = cf->sample_us;
    const int keys = !cf->has_sym || sym->keyed;
    /* with the samples, tick sampling needs every row's price and time: no row is left out */
    q->fast = keys && n <= NONE && (S == 0 ? !cf->samples : S >= MIN_FAST_GRID_US);
    q->nmust = 0;
    const size_t nk = !keys ? 0 : cf->has_sym ? sym->nkeys : 1;
    if (nk > q->kcap) {
        if (GROW(q->kp, nk) || GROW(q->kday, nk) || GROW(q->khas, nk) || GROW(q->kinst, nk) || GROW(q->krowday, nk) ||
            GROW(q->klast, nk) || GROW(q->klastkept, nk) || GROW(q->knext, nk) || GROW(q->kanchor, nk) ||
            GROW(q->kfirstday, nk) || GROW(q->kanchor1, nk) || GROW(q->krun1, nk) || GROW(q->kanc1, nk))
            return -1;
        q->kcap = nk;
    }
    if (nk) {
        memset(q->khas, 0, nk);
        memset(q->kanc1, 0, nk);
        for (size_t k = 0; k < nk; k++)
            q->klast[k] = q->klastkept[k] = NONE;
    }
    int64_t lo = 1, hi = 0; /* the offset of the UTC seconds [lo, hi) */
    int32_t off = 0;
    for (size_t i = 0; i < n; i++) {
        int64_t instant = tc->i64[i], local = instant; /* a timestamp without offset is local time */
        if (tc->tz_s[i] != RAID_T_NO_OFFSET) {
            instant -= (int64_t)tc->tz_s[i] * RAID_US_PER_S;
            const int64_t utc_s = raidIoFloordiv(instant, RAID_US_PER_S);
            if (utc_s < lo || utc_s >= hi)
                off = raidIoTzOffset(cf->tz, utc_s, &lo, &hi);
            local = instant + (int64_t)off * RAID_US_PER_S;
        } else if (cf->fixed) {
            instant -= cf->fixed_us; /* UTC: nothing */
        } else { /* the instant of a local time: one offset at it read as UTC and at the instant so found */
            const int64_t ws = raidIoFloordiv(local, RAID_US_PER_S);
            if (ws < lo || ws >= hi)
                off = raidIoTzOffset(cf->tz, ws, &lo, &hi);
            instant = ws - off >= lo && ws - off < hi ? local - (int64_t)off * RAID_US_PER_S
                                                      : raidIoTzInstant(cf->tz, local); /* near a switch */
        }
        int64_t day, tod;
        uint8_t f = raidSegDay(cf->sg, local, &day, &tod) ? PRE_KEEP : 0;
        q->instant[i] = instant;
        q->day[i] = day;
        q->tod[i] = tod;
        q->flag[i] = f;
        if (!nk)
            continue;
        const double p = vc->f64[i];
        const size_t k = cf->has_sym ? sym->key[i] : 0;
        if (!(p > 0) || !isfinite(p) || (f && (day < RAID_SEG_DAY_MIN || day > RAID_SEG_DAY_MAX)))
            q->fast = 0; /* the calling thread's check fails there: every row goes to it */
        if (f && p > 0 && isfinite(p) && cf->tick) {
            /* the previous kept row of the symbol on the same date is in the same segment: a row between
             * them on another date would make one of them go backwards (an error) */
            if (q->khas[k] && q->kday[k] == day) {
                q->ret[i] = raidSegReturnOf(q->kp[k], p);
                q->flag[i] |= PRE_RET;
            }
            q->khas[k] = 1;
            q->kday[k] = day;
            q->kp[k] = p;
        }
        if (!q->fast)
            continue;
        const uint32_t r = (uint32_t)i;
        if (q->klast[k] == NONE) { /* the symbol's first row in the block */
            must(q, r);
            q->kfirstday[k] = day;
            q->krun1[k] = 1;
        } else {
            if (instant < q->kinst[k] || day < q->krowday[k]) {
                q->fast = 0; /* goes backwards: the segmenter's message */
                continue;
            }
            if (day != q->krowday[k]) { /* a new date */
                must(q, r);
                if (q->klastkept[k] != NONE)
                    must(q, q->klastkept[k]);
                q->klastkept[k] = NONE;
                q->krun1[k] = 0;
            }
        }
        q->kinst[k] = instant;
        q->krowday[k] = day;
        q->klast[k] = r;
        if (f) {
            if (q->klastkept[k] == NONE) { /* the date's first kept observation in the block */
                must(q, r);
                q->kanchor[k] = instant - tod;
                if (q->krun1[k]) {
                    q->kanchor1[k] = q->kanchor[k];
                    q->kanc1[k] = 1;
                }
            } else if (S > 0 && raidSegGridAfter(q->kanchor[k], S, q->instant[q->klastkept[k]]) < instant) {
                must(q, q->klastkept[k]); /* a grid point takes its price */
            }
            q->klastkept[k] = r;
        }
    }
    if (!q->fast)
        return 0;
    for (size_t k = 0; k < nk; k++)
        if (q->klast[k] != NONE) {
            must(q, q->klast[k]);
            if (q->klastkept[k] != NONE)
                must(q, q->klastkept[k]);
        }
    for (size_t i = 0; i < n; i++)
        if (q->flag[i] & PRE_MUST) {
            q->nskip[q->nmust] = 0;
            q->must[q->nmust++] = (uint32_t)i;
        }
    /* each kept row left out goes with the next must row of its symbol (a kept row of the same date) */
    for (size_t k = 0; k < nk; k++)
        q->knext[k] = NONE;
    size_t m = q->nmust;
    for (size_t i = n; i-- > 0;) {
        const size_t k = cf->has_sym ? sym->key[i] : 0;
        if (q->flag[i] & PRE_MUST) {
            q->knext[k] = (uint32_t)--m;
        } else if (q->flag[i] & PRE_KEEP) {
            assert(q->knext[k] != NONE && (!cf->tick || (q->flag[i] & PRE_RET)));
            q->att[i] = q->knext[k];
            q->nskip[q->knext[k]]++;
        }
    }
    if (cf->tick) {
        size_t at = 0;
        for (size_t j = 0; j < q->nmust; j++) {
            q->soff[j] = at;
            q->fill[j] = 0;
            at += q->nskip[j];
        }
        for (size_t i = 0; i < n; i++)
            if ((q->flag[i] & (PRE_MUST | PRE_KEEP)) == PRE_KEEP)
                q->sret[q->soff[q->att[i]] + q->fill[q->att[i]]++] = q->ret[i];
    }
    return 0;
}

/* A fast block's one assumption about the segments open before it (derive): a date that continues one
 * with a kept observation has its grid through the same midnight (not so only where a time zone's offset
 * changed between them). */
static int grid_ok(raid_reader *rd, const pre *q)
{
    const RaidTbatch *b = &rd->rows;
    const RaidTcol *sym = &b->col[F_SYM];
    const int64_t S = rd->cfg.sample_us;
    const size_t nk = rd->has_sym ? sym->nkeys : 1;
    if (S == 0)
        return 1;
    for (size_t k = 0; k < nk; k++) {
        if (!q->kanc1[k])
            continue;
        size_t n = 0;
        const char *s = rd->has_sym ? raidTcolText(sym, sym->key_row[k], &n) : "";
        const int64_t si = rd->has_sym ? raidSegFind(rd->sg, s, n) : raidSegNsymbols(rd->sg) ? 0 : -1;
        int64_t day, anchor;
        if (si >= 0 && raidSegOpenState(rd->sg, (uint32_t)si, &day, &anchor) == 2 && day == q->kfirstday[k] &&
            (q->kanchor1[k] - anchor) % S != 0)
            return 0;
    }
    return 1;
}

/* Hand the rows of the table batch to the segmenter, in file order. */
static raid_status take_rows_in(raid_reader *rd)
{
    const RaidTbatch *b = &rd->rows;
    const RaidTcol *sym = &b->col[F_SYM], *tc = &b->col[F_TIME], *vc = &b->col[F_VAL];
    const int keyed = rd->has_sym && sym->keyed;
    if (keyed && sym->nkeys > rd->kmap_cap) {
        int64_t *m = realloc(rd->kmap, sym->nkeys * sizeof *m);
        if (!m)
            return fail(rd, RAID_ENOMEM, "out of memory");
        rd->kmap = m;
        rd->kmap_cap = sym->nkeys;
    }
    for (size_t k = 0; keyed && k < sym->nkeys; k++)
        rd->kmap[k] = -1;
    const int prices = rd->kind == RAID_INPUT_PRICES;
    if (prices && b->nrows && !b->user_ok) { /* rows copied across blocks: derive them here */
        if (derive(&rd->cfg, &rd->rows) != 0)
            return fail(rd, RAID_ENOMEM, "out of memory");
        rd->rows.user_ok = 1;
    }
    const pre *q = b->user;
    /* a block without a problem inside: its must rows only (derive) */
    const int fast = prices && b->nrows && q->fast && grid_ok(rd, q);
    const size_t nrows = fast ? q->nmust : b->nrows;
    rd->nfast += fast ? b->nrows : 0;
    rd->nrows += b->nrows;
    for (size_t j = 0; j < nrows; j++) {
        const size_t i = fast ? q->must[j] : j;
        int64_t si = keyed ? rd->kmap[sym->key[i]] : -1; /* each distinct symbol of a block looked up once */
        if (si < 0) {
            size_t n = 0;
            const char *s = rd->has_sym ? raidTcolText(sym, i, &n) : "";
            si = rd->has_sym || raidSegNsymbols(rd->sg) == 0 ? raidSegSymbol(rd->sg, s, n) : 0;
            if (si < 0)
                return fail(rd, RAID_ENOMEM, "out of memory");
            if (keyed)
                rd->kmap[sym->key[i]] = si;
        }
        size_t tlen;
        const char *ttext = raidTcolText(tc, i, &tlen);
        const double v = vc->f64[i];
        int rc;
        if (prices) {
            if (!(v > 0) || !isfinite(v))
                return value_failed(rd, i, underflowed(&rd->rows.col[F_VAL], i, v)
                                               ? "price must be positive and finite (it underflows to 0)"
                                               : "price must be positive and finite");
            const RaidSegRow w = {b->line_base + tc->line[i], ttext, tlen, q->instant[i], 0};
            const size_t nskip = fast ? q->nskip[j] : 0;
            rc = raidSegPriceAfter(rd->sg, (uint32_t)si, q->instant[i], q->day[i], q->tod[i], q->flag[i] & PRE_KEEP,
                                      v, q->flag[i] & PRE_RET ? &q->ret[i] : NULL,
                                      nskip && rd->cfg.tick ? q->sret + q->soff[j] : NULL, nskip, &w);
        } else {
            if (!isfinite(v))
                return value_failed(rd, i, "return must be finite");
            if (fabs(v) > RAID_MAX_RETURN)
                return value_failed(rd, i, "return out of range (|r| > 1e74)");
            const RaidSegRow w = {b->line_base + tc->line[i], ttext, tlen, tc->i64[i], 0};
            rc = raidSegReturn(rd->sg, (uint32_t)si, tc->i64[i], v, &w);
        }
        if (rc != RAID_SEG_OK)
            return seg_result(rd, rc, (uint32_t)si, i);
    }
    return RAID_OK;
}

static raid_status take_rows(raid_reader *rd)
{
    const double t0 = rd->profile ? raidCpuNow() : 0;
    const raid_status st = take_rows_in(rd);
    raidSegHoldTexts(rd->sg); /* the batch's texts are reused */
    if (rd->profile)
        rd->t_seg += raidCpuNow() - t0;
    return st;
}

/* ---------------------------------------------------------------------------------------------- */
/* Open, next, close                                                                               */
/* ---------------------------------------------------------------------------------------------- */

void raid_reader_close(raid_reader *rd)
{
    if (!rd)
        return;
    if (rd->profile)
        fprintf(stderr,
                "profile: reader: rows to the segmenter %.3f s (%llu rows, %llu of them in blocks whose must rows "
                "only went), segments taken %.3f s\n",
                rd->t_seg, (unsigned long long)rd->nrows, (unsigned long long)rd->nfast, rd->t_take);
    raidTbatchFree(&rd->rows);
    free(rd->kmap);
    raidTableClose(rd->tb);
    raidSegFree(rd->sg);
    free(rd);
}

raid_status raid_reader_open(raid_reader **out, const char *path, const raid_read_opts *o)
{
    if (!out)
        return raidFail(NULL, RAID_EINVAL, "raid_reader_open: out is NULL");
    *out = NULL;
    raid_read_opts defaults;
    if (!o) {
        raid_read_opts_init(&defaults);
        o = &defaults;
    }
    if (!path || !*path)
        return raidFail(NULL, RAID_EINVAL, "raid_reader_open: no path");
    raid_reader *rd = calloc(1, sizeof *rd);
    if (!rd)
        return raidFail(NULL, RAID_ENOMEM, "out of memory");
    raid_status s = raidSegCreate(&rd->sg, o, "raid_reader_open");
    if (s != RAID_OK) { /* the message is raidSegCreate's */
        raid_reader_close(rd);
        return s;
    }
    const int ret = o->kind == RAID_INPUT_RETURNS;
    rd->kind = o->kind;
    RaidTspec cols[NF] = {
        {o->symbol_col ? o->symbol_col : "symbol", "symbol", RAID_T_STRING, RAID_T_KEYS | (o->symbol_col ? 0u : RAID_T_OPTIONAL)},
        {ret ? (o->date_col ? o->date_col : "date") : (o->time_col ? o->time_col : "timestamp"),
         ret ? "date" : "timestamp", ret ? RAID_T_DATE : RAID_T_TIMESTAMP, RAID_T_KEEP_TEXT},
        {ret ? (o->ret_col ? o->ret_col : "ret") : (o->price_col ? o->price_col : "price"), ret ? "return" : "price",
         RAID_T_F64, RAID_T_KEEP_TEXT}};
    if ((s = raidTableOpen(&rd->tb, path, cols, NF)) != RAID_OK ||
        (s = raidTbatchInit(&rd->rows, rd->tb)) != RAID_OK) {
        raid_reader_close(rd); /* the message is the table's */
        return s;
    }
    rd->has_sym = raidTableCol(rd->tb, F_SYM) != 0;
    raidTableRelativeLines(rd->tb); /* lines are needed for messages only: no pass over them per block */
    rd->profile = getenv("RAID_CSV_PROFILE") != NULL;
    if (!ret) { /* the parsing threads derive each block's instants, dates and (tick) returns */
        int64_t lo, hi;
        const int32_t off0 = raidIoTzOffset(raidSegTz(rd->sg), 0, &lo, &hi);
        rd->cfg = (pre_cfg){rd->sg, raidSegTz(rd->sg), rd->has_sym, raidSegSampleUs(rd->sg) == 0,
                            raidSegSampleUs(rd->sg), lo == INT64_MIN && hi == INT64_MAX,
                            (int64_t)off0 * RAID_US_PER_S, o && o->samples};
        raidTableSetBlockFn(rd->tb, derive, &rd->cfg);
    }
    /* Without a symbol column every row is one symbol's: say so, since interleaved symbols would be read
     * as one series of wild returns. */
    if (!rd->has_sym)
        raidSegAddNotice(rd->sg, "no symbol column '%s': the whole file is one series", RAID_SHOWZ(cols[F_SYM].name));
    *out = rd;
    return RAID_OK;
}

raid_status raid_reader_next(raid_reader *rd, raid_batch *b, size_t max_returns, int *done)
{
    if (done)
        *done = 0;
    if (!rd || !b || !done)
        return rd ? fail(rd, RAID_EINVAL, "raid_reader_next: NULL argument")
                  : raidFail(NULL, RAID_EINVAL, "raid_reader_next: NULL argument");
    if (rd->err.st != RAID_OK)
        return raidStickyAgain(&rd->err);
    const size_t before = b->nseg;
    for (;;) {
        /* Deliver queued segments: at least one per call, then until max_returns. */
        const double t0 = rd->profile ? raidCpuNow() : 0;
        if (raidSegQueued(rd->sg) && raidSegTake(rd->sg, b, max_returns) != RAID_OK)
            return fail(rd, RAID_ENOMEM, "out of memory");
        if (rd->profile)
            rd->t_take += raidCpuNow() - t0;
        if (b->nseg > before && b->nret >= max_returns)
            return RAID_OK;
        if (rd->eof) {
            if (raidSegQueued(rd->sg) == 0)
                *done = 1;
            return RAID_OK;
        }
        /* Read more rows (the queue is empty here). Rows before a bad one are taken in first, so that
         * errors come in file order. */
        int tdone = 0;
        const raid_status ts = raidTableRead(rd->tb, &rd->rows, TABLE_ROWS, &tdone);
        if (take_rows(rd) != RAID_OK)
            return rd->err.st;
        if (ts != RAID_OK)
            return ts == RAID_EPARSE ? table_failed(rd) : fail(rd, ts, "%s", raidTableErrmsg(rd->tb));
        if (tdone) {
            if (raidSegFinish(rd->sg) != RAID_OK)
                return fail(rd, RAID_ENOMEM, "out of memory");
            rd->eof = 1;
        }
    }
}

RaidTable *raidReaderTable(raid_reader *rd) { return rd->tb; }

const char *raid_reader_symbol(const raid_reader *rd, uint32_t i) { return rd ? raidSegSymbolName(rd->sg, i) : NULL; }

size_t raid_reader_notice_count(const raid_reader *rd)
{
    return rd ? raidTableNoticeCount(rd->tb) + raidSegNoticeCount(rd->sg) : 0;
}

const char *raid_reader_notice(const raid_reader *rd, size_t i)
{
    if (!rd)
        return NULL;
    const size_t nt = raidTableNoticeCount(rd->tb);
    return i < nt ? raidTableNotice(rd->tb, i) : raidSegNotice(rd->sg, i - nt);
}

void raid_reader_progress(const raid_reader *rd, uint64_t *consumed, uint64_t *total)
{
    raidTableProgress(rd ? rd->tb : NULL, consumed, total);
}
