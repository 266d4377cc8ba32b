/* The segmenter (segment.h): one open segment per symbol, the order checks, the session window (also
 * across midnight), previous-tick sampling on a calendar grid, returns from prices, the queue of complete
 * segments and the notices. docs/input.md describes the rules.
 *
 * Sampling: sample_us == 0 takes every observation ("tick"); sample_us > 0 is calendar-time
 * previous-tick sampling (as highfrequency's aggregateTS / Andersen, Bollerslev, Diebold and Labys
 * 2001): grid points at multiples of the interval after the local midnight before the segment's first
 * kept observation, inside [first, last] observation of the segment, each taking the last price at or
 * before it. Returns within a segment are r_i = log1p(q) with q = (p_i - p_{i-1}) / p_{i-1} when q is
 * finite and -0.5 <= q <= 1, that is for p_i / p_{i-1} in [0.5, 2], where the difference is exact
 * (Sterbenz) and r carries about one rounding of relative error (log(p_i / p_{i-1}) has an absolute
 * error of about 2^-53, a relative error of 2^-53/|r|, 1e-12 at r = 1e-4; log(p_i) - log(p_{i-1}) loses
 * a further log2|log p| bits to cancellation). Otherwise r_i = log(p_i) - log(p_{i-1}), finite for any
 * positive finite prices (|r| < 1500) where q may overflow (1e-200 -> 1e200) or round to -1. Every
 * operation is binary64 correctly rounded, log1p and log included (raidLogReturn, core/logret.h), on integer
 * words: the bits of raid_f64_log_returns on every device. */
#define _POSIX_C_SOURCE 200809L
#include "io/segment.h"
#include "core/internal.h"
#include "core/logret.h"
#include "io/symtab.h"
#include "io/tz.h"

#include <assert.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define PREV_TEXT 64
#define MAX_NOTICES 16
#define NOTICE_LEN 512

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

static raid_status bad_sample(const char *s)
{
    return raidFail(NULL, RAID_EINVAL, "bad sampling interval '%s' (expected tick, Ns, Nmin, Nh or Nms, N a positive "
                     "integer, at most one day)", RAID_SHOWZ(s));
}

raid_status raid_parse_sample(const char *s, int64_t *us)
{
    if (!s || !us)
        return bad_sample(s);
    if (strcasecmp(s, "tick") == 0) {
        *us = 0;
        return RAID_OK;
    }
    const char *p = s;
    int64_t n = 0;
    while (*p >= '0' && *p <= '9') {
        if (n > INT64_C(1000000000000))
            return bad_sample(s);
        n = n * 10 + (*p++ - '0');
    }
    if (p == s || n <= 0)
        return bad_sample(s);
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
        return bad_sample(s);
    if (n > RAID_US_PER_DAY / unit)
        return bad_sample(s); /* longer than a day */
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
        return raidFail(NULL, RAID_EINVAL, "raid_parse_session: NULL argument");
    int32_t a, b;
    const char *p = parse_hhmm(s, &a);
    if (!p || *p != '-' || !(p = parse_hhmm(p + 1, &b)) || *p)
        return raidFail(NULL, RAID_EINVAL, "bad session '%s' (expected HH:MM-HH:MM, the start to 23:59, the end to 24:00)",
                         RAID_SHOWZ(s));
    /* start > end: a window across midnight; it cannot start at 24:00 or end at 24:00 then. */
    if (b < a && (a == 86400 || b == 86400))
        return raidFail(NULL, RAID_EINVAL, "bad session '%s' (a window across midnight cannot start or end at 24:00)",
                         RAID_SHOWZ(s));
    /* 24:00 ends a window (the whole day: 00:00-24:00); a window starting there would hold nothing. */
    if (a == 86400)
        return raidFail(NULL, RAID_EINVAL, "bad session '%s' (a window cannot start at 24:00: the start is 00:00 to "
                         "23:59)", RAID_SHOWZ(s));
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
    free(b->price);
    free(b->time_us);
    free(b->first_price);
    free(b->first_time_us);
    free(b->offsets);
    free(b->symbol);
    free(b->date);
    memset(b, 0, sizeof *b);
}

/* A segment's sampled prices (the segmenter's option samples): the end price and local time of each
 * return, and the first price and its local time. */
typedef struct seg_samples {
    const double *price;
    const int64_t *time_us;
    double first;
    int64_t first_time;
} seg_samples;

/* b's sample arrays (price, time_us: ret_cap entries; first_price, first_time_us: seg_cap entries) where a segment with
 * samples comes: they exist with their capacities once one did. 0, or -1 when out of memory. */
static int batch_samples(raid_batch *b)
{
    if (b->ret_cap) {
        double *pp = realloc(b->price, b->ret_cap * sizeof *pp);
        if (!pp)
            return -1;
        b->price = pp;
        int64_t *tt = realloc(b->time_us, b->ret_cap * sizeof *tt);
        if (!tt)
            return -1;
        b->time_us = tt;
    }
    if (b->seg_cap) {
        double *f = realloc(b->first_price, b->seg_cap * sizeof *f);
        if (!f)
            return -1;
        b->first_price = f;
        int64_t *ft = realloc(b->first_time_us, b->seg_cap * sizeof *ft);
        if (!ft)
            return -1;
        b->first_time_us = ft;
    }
    return 0;
}

static raid_status batch_append(raid_batch *b, uint32_t sym, int32_t date, const double *r, size_t n,
                                const seg_samples *smp)
{
    const int with = smp || b->price || b->first_price; /* the sample arrays grow with the others */
    if (b->nret + n > b->ret_cap) {
        size_t cap = b->ret_cap ? b->ret_cap : 1024;
        while (cap < b->nret + n)
            cap *= 2;
        double *t = realloc(b->ret, cap * sizeof *t);
        if (!t)
            return RAID_ENOMEM;
        b->ret = t;
        b->ret_cap = cap;
        if (with && batch_samples(b) != 0)
            return RAID_ENOMEM;
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
        if (with && batch_samples(b) != 0)
            return RAID_ENOMEM;
    }
    if (smp && (!b->first_price || !b->first_time_us || (b->ret_cap && !b->price)) && batch_samples(b) != 0)
        return RAID_ENOMEM;
    if (b->nseg == 0)
        b->offsets[0] = (int64_t)b->nret;
    if (n)
        memcpy(b->ret + b->nret, r, n * sizeof *r);
    if (smp) {
        if (n) {
            memcpy(b->price + b->nret, smp->price, n * sizeof *b->price);
            memcpy(b->time_us + b->nret, smp->time_us, n * sizeof *b->time_us);
        }
        b->first_price[b->nseg] = smp->first;
        b->first_time_us[b->nseg] = smp->first_time;
    }
    b->nret += n;
    b->symbol[b->nseg] = sym;
    b->date[b->nseg] = date;
    b->offsets[++b->nseg] = (int64_t)b->nret;
    return RAID_OK;
}

/* ---------------------------------------------------------------------------------------------- */
/* State                                                                                           */
/* ---------------------------------------------------------------------------------------------- */

typedef struct sym_state {
    /* ordering */
    int has_prev;
    int64_t prev_key;          /* instant (prices) or day (returns) of the previous row */
    uint64_t prev_ref;
    int64_t prev_raw;
    int prev_raw_utc;
    char prev_text[PREV_TEXT];
    const char *prev_tp;       /* the caller's text of the previous row, not yet copied into prev_text */
    size_t prev_tl;
    int pending;               /* the symbol is in the list of texts to copy (raidSegHoldTexts) */
    /* the open segment */
    int has_seg;
    int64_t day;               /* trading date, days since the epoch */
    int have_obs;              /* a kept observation in this segment */
    int fresh;                 /* an observation since the last grid point (notice statistics) */
    int64_t last_t, next_grid; /* instants, microseconds */
    int64_t first_t, anchor;   /* the segment's first kept observation and its local midnight (the grid's) */
    double last_p;
    size_t nsampled;
    double last_sampled;
    double *ret;
    size_t n, cap;
    /* the option samples: the end price and local time of each return (cap entries), the first price */
    double *px;
    int64_t *tm;
    double first_p;
    int64_t first_tm; /* its local time (option samples) */
} sym_state;

typedef struct ready_seg {
    uint32_t sym;
    int32_t date;
    double *ret;   /* the segment's returns: the symbol's buffer, handed over (not copied) when it closed */
    size_t n, cap;
    double *px;    /* the samples (option samples), handed over likewise */
    int64_t *tm;
    double first_p;
    int64_t first_tm; /* its local time (option samples) */
} ready_seg;

struct RaidSeg {
    raid_input_kind kind;
    int32_t ses_lo_s, ses_hi_s; /* -1: none; lo > hi: across midnight */
    int64_t sample_us;
    int samples;                /* raid_read_opts.samples: keep each return's end price and local time */
    RaidIoTz *tz;
    int tz_cached;
    int64_t tz_lo, tz_hi;
    int32_t tz_off;

    /* symbols: names in order of first appearance (tab), and the state of each */
    RaidSymtab tab;
    sym_state *syms;
    size_t nsyms, sym_cap;
    uint32_t *pend;             /* symbols whose prev_tp is to be copied (sym_cap entries) */
    size_t npend;

    /* complete segments not yet delivered */
    ready_seg *rq;
    size_t rq_n, rq_cap, rq_head;
    ready_seg *pool; /* buffers of taken segments (ret, cap), for the symbols' next segments */
    size_t npool, pool_cap;

    /* statistics for the notices */
    uint64_t grid_returns, stale_returns; /* grid returns, those with no observation in their interval */
    uint64_t gaps;                        /* pairs of consecutive kept observations of a segment */
    double gap_sum_s;                     /* their summed spacing, seconds (each segment's last minus first
                                             kept observation, exact in microseconds, summed as segments close) */

    char *notices[MAX_NOTICES];
    size_t nnotices;
};

raid_status raidSegCreate(RaidSeg **out, const raid_read_opts *o, const char *fn)
{
    assert(out && fn);
    *out = NULL;
    raid_read_opts defaults;
    if (!o) {
        raid_read_opts_init(&defaults);
        o = &defaults;
    }
    if (o->kind != RAID_INPUT_PRICES && o->kind != RAID_INPUT_RETURNS)
        return raidFail(NULL, RAID_EINVAL, "%s: unknown input kind %d", fn, (int)o->kind);
    if (o->sample_us < 0 || o->sample_us > RAID_US_PER_DAY)
        return raidFail(NULL, RAID_EINVAL, "%s: sampling interval out of range", fn);
    if (o->session_start_s != -1 &&
        (o->session_start_s < 0 || o->session_end_s < 0 || o->session_start_s >= 86400 ||
         o->session_end_s > 86400 ||
         (o->session_end_s < o->session_start_s && (o->session_start_s == 86400 || o->session_end_s == 86400))))
        return raidFail(NULL, RAID_EINVAL, "%s: session window %d..%d out of range", fn, (int)o->session_start_s,
                         (int)o->session_end_s);
    RaidSeg *sg = calloc(1, sizeof *sg);
    if (!sg)
        return raidFail(NULL, RAID_ENOMEM, "out of memory");
    const int ret = o->kind == RAID_INPUT_RETURNS;
    sg->kind = o->kind;
    sg->sample_us = ret ? 0 : o->sample_us;
    sg->ses_lo_s = ret ? -1 : o->session_start_s;
    sg->ses_hi_s = o->session_end_s;
    sg->samples = !ret && o->samples;
    raid_status s = raidIoTzOpen(&sg->tz, o->tz);
    if (s != RAID_OK) {
        raidSegFree(sg);
        return s;
    }
    *out = sg;
    return RAID_OK;
}

void raidSegFree(RaidSeg *sg)
{
    if (!sg)
        return;
    raidIoTzFree(sg->tz);
    for (size_t i = 0; i < sg->nsyms; i++) {
        free(sg->syms[i].ret);
        free(sg->syms[i].px);
        free(sg->syms[i].tm);
    }
    free(sg->syms);
    free(sg->pend);
    raidSymtabFree(&sg->tab);
    for (size_t j = sg->rq_head; j < sg->rq_n; j++) {
        free(sg->rq[j].ret);
        free(sg->rq[j].px);
        free(sg->rq[j].tm);
    }
    free(sg->rq);
    for (size_t j = 0; j < sg->npool; j++) {
        free(sg->pool[j].ret);
        free(sg->pool[j].px);
        free(sg->pool[j].tm);
    }
    free(sg->pool);
    for (size_t i = 0; i < sg->nnotices; i++)
        free(sg->notices[i]);
    free(sg);
}

raid_input_kind raidSegKind(const RaidSeg *sg) { return sg->kind; }

/* ---------------------------------------------------------------------------------------------- */
/* Symbols                                                                                         */
/* ---------------------------------------------------------------------------------------------- */

int64_t raidSegSymbol(RaidSeg *sg, const char *s, size_t n)
{
    const int64_t i = raidSymtabAdd(&sg->tab, s, n);
    if (i < 0 || (size_t)i < sg->nsyms)
        return i;
    /* new: its state */
    if (sg->nsyms == sg->sym_cap) {
        size_t cap = sg->sym_cap ? sg->sym_cap * 2 : 16;
        sym_state *t = realloc(sg->syms, cap * sizeof *t);
        if (!t)
            return -1; /* the name stays in the table; the next call for it comes here again */
        sg->syms = t;
        uint32_t *q = realloc(sg->pend, cap * sizeof *q);
        if (!q)
            return -1;
        sg->pend = q;
        sg->sym_cap = cap;
    }
    memset(&sg->syms[sg->nsyms], 0, sizeof sg->syms[sg->nsyms]);
    return (int64_t)sg->nsyms++;
}

size_t raidSegNsymbols(const RaidSeg *sg) { return sg->nsyms; }

const char *raidSegSymbolName(const RaidSeg *sg, uint32_t i)
{
    return i < sg->nsyms ? raidSymtabName(&sg->tab, i) : NULL;
}

int64_t raidSegInstant(RaidSeg *sg, int64_t w_us)
{
    const int64_t off = raidSegLocal(sg, w_us) - w_us, w_s = raidIoFloordiv(w_us, RAID_US_PER_S);
    if (w_s - off / RAID_US_PER_S >= sg->tz_lo && w_s - off / RAID_US_PER_S < sg->tz_hi) /* one offset */
        return w_us - off;
    return raidIoTzInstant(sg->tz, w_us);
}

int64_t raidSegLocal(RaidSeg *sg, int64_t t_us)
{
    const int64_t utc_s = raidIoFloordiv(t_us, RAID_US_PER_S);
    if (!sg->tz_cached || utc_s < sg->tz_lo || utc_s >= sg->tz_hi) {
        sg->tz_off = raidIoTzOffset(sg->tz, utc_s, &sg->tz_lo, &sg->tz_hi);
        sg->tz_cached = 1;
    }
    return t_us + (int64_t)sg->tz_off * RAID_US_PER_S;
}

/* ---------------------------------------------------------------------------------------------- */
/* Segments                                                                                        */
/* ---------------------------------------------------------------------------------------------- */

/* Append the m returns r to the symbol's open segment (with the option samples, room for their samples:
 * the caller writes them). 0, or -1 when out of memory. */
static int push_rets(sym_state *s, const double *r, size_t m, int samples)
{
    if (s->n + m > s->cap || (samples && !s->px)) {
        size_t cap = s->cap ? s->cap : 256;
        while (cap < s->n + m)
            cap *= 2;
        double *t = realloc(s->ret, cap * sizeof *t);
        if (!t)
            return -1;
        s->ret = t;
        if (samples) {
            double *pp = realloc(s->px, cap * sizeof *pp);
            if (!pp)
                return -1;
            s->px = pp;
            int64_t *tt = realloc(s->tm, cap * sizeof *tt);
            if (!tt)
                return -1;
            s->tm = tt;
        }
        s->cap = cap;
    }
    memcpy(s->ret + s->n, r, m * sizeof *r);
    s->n += m;
    return 0;
}

static int push_ret(sym_state *s, double r) { return push_rets(s, &r, 1, 0); }

/* The return from price prev to p (both positive and finite): log1p of the relative change where that is
 * accurate (p/prev in [0.5, 2]: the subtraction is exact), else the difference of the logarithms, which
 * cannot overflow (|r| < 1500) where the relative change can: core/logret.h, kernels/raid_f64_returns.h's
 * correctly rounded binary64 on integer words, so that raid_f64_log_returns on a device gives the same bits. */
static double price_return(double prev, double p) { return raidLogReturn(prev, p); }

double raidSegReturnOf(double prev, double p) { return price_return(prev, p); }

/* ret: the return from the previous sample to p when the caller worked it out (raidSegPriceAt), else
 * NULL. local: the sample's local wall-clock time (microseconds), kept with the option samples. */
static int take_sample(const RaidSeg *sg, sym_state *s, double p, const double *ret, int64_t local)
{
    assert(!ret || s->nsampled > 0);
    if (s->nsampled++ > 0) {
        const double r = ret ? *ret : price_return(s->last_sampled, p);
        if (push_rets(s, &r, 1, sg->samples) != 0)
            return -1;
        if (sg->samples) {
            s->px[s->n - 1] = p;
            s->tm[s->n - 1] = local;
        }
    } else {
        s->first_p = p;
        s->first_tm = local;
    }
    s->last_sampled = p;
    return 0;
}

/* A grid point taking the last price: as take_sample, counting the grid returns with no observation
 * since the previous grid point (they repeat its price). */
static int take_grid(RaidSeg *sg, sym_state *s)
{
    if (s->nsampled > 0) {
        sg->grid_returns++;
        sg->stale_returns += !s->fresh;
    }
    s->fresh = 0;
    return take_sample(sg, s, s->last_p, NULL, sg->samples ? raidSegLocal(sg, s->next_grid) : 0);
}

static int32_t yyyymmdd(int64_t day)
{
    int64_t y;
    int m, d;
    raidIoCivilFromDays(day, &y, &m, &d);
    return (int32_t)(y * 10000 + m * 100 + d);
}

/* Close the open segment of symbol i and queue it (if it holds at least one price or return).
 * 0, or -1 when out of memory. */
static int close_segment(RaidSeg *sg, uint32_t i)
{
    sym_state *s = &sg->syms[i];
    if (!s->has_seg)
        return 0;
    s->has_seg = 0;
    if (sg->kind == RAID_INPUT_PRICES && sg->sample_us > 0 && s->have_obs) {
        sg->gap_sum_s += (double)(s->last_t - s->first_t) * 1e-6;
        while (s->next_grid <= s->last_t) {
            if (take_grid(sg, s) != 0)
                return -1;
            s->next_grid += sg->sample_us;
        }
    }
    /* A segment with at least one kept observation is delivered, even with 0 returns. */
    int nonempty = sg->kind == RAID_INPUT_RETURNS || s->nsampled > 0 || s->have_obs;
    if (nonempty) {
        if (sg->rq_n == sg->rq_cap) {
            size_t cap = sg->rq_cap ? sg->rq_cap * 2 : 64;
            ready_seg *t = realloc(sg->rq, cap * sizeof *t);
            if (!t)
                return -1;
            sg->rq = t;
            sg->rq_cap = cap;
        }
        if (s->n) { /* the returns go with the segment; the symbol takes a buffer of an earlier one */
            sg->rq[sg->rq_n++] = (ready_seg){i, yyyymmdd(s->day), s->ret, s->n, s->cap, s->px, s->tm, s->first_p,
                                                  s->first_tm};
            const ready_seg none = {0, 0, NULL, 0, 0, NULL, NULL, 0, 0}, *u = sg->npool ? &sg->pool[--sg->npool] : &none;
            s->ret = u->ret;
            s->cap = u->cap;
            s->px = u->px;
            s->tm = u->tm;
        } else {
            sg->rq[sg->rq_n++] = (ready_seg){i, yyyymmdd(s->day), NULL, 0, 0, NULL, NULL, s->first_p, s->first_tm};
        }
    }
    s->n = 0;
    s->nsampled = 0;
    s->have_obs = 0;
    return 0;
}

static void open_segment(sym_state *s, int64_t day)
{
    s->has_seg = 1;
    s->day = day;
    s->n = 0;
    s->nsampled = 0;
    s->have_obs = 0;
}

/* Whether an observation at instant t would take the symbol's open segment past RAID_MAX_SEGMENT_RETURNS
 * returns on the sampling grid: the grid points before t, plus the one at t that the segment's close may
 * add, on top of the samples taken. */
static int grid_too_long(const RaidSeg *sg, const sym_state *s, int64_t t)
{
    if (sg->sample_us == 0 || !s->have_obs || t <= s->next_grid)
        return 0;
    const uint64_t pending = (uint64_t)(t - s->next_grid - 1) / (uint64_t)sg->sample_us + 1;
    return (uint64_t)s->nsampled + pending > (uint64_t)RAID_MAX_SEGMENT_RETURNS;
}

/* A kept price observation at instant t (us), local wall-clock time local; anchor is the instant of the
 * local midnight before it. The caller checked grid_too_long. */
static int observe(RaidSeg *sg, sym_state *s, int64_t t, int64_t local, int64_t anchor, double p, const double *ret)
{
    if (sg->sample_us == 0)
        return take_sample(sg, s, p, ret, local);
    const int64_t S = sg->sample_us;
    if (!s->have_obs) {
        s->have_obs = 1;
        s->first_t = t;
        s->anchor = anchor;
        s->next_grid = raidSegGridAfter(anchor, S, t);
    } else {
        sg->gaps++;
        while (s->next_grid < t) { /* grid points in [last_t, t) take the previous price */
            if (take_grid(sg, s) != 0)
                return -1;
            s->next_grid += S;
        }
    }
    s->fresh = 1;
    s->last_t = t;
    s->last_p = p;
    return 0;
}

/* Order checks and segment switching shared by prices and returns. key orders the rows of a symbol
 * (the instant of a price, the day of a return; equal keys are allowed), day is the row's trading date.
 * Closes the symbol's segment when the date moves on and opens the next. */
static int advance(RaidSeg *sg, sym_state *s, uint32_t si, int64_t key, int64_t day, const RaidSegRow *w)
{
    if (s->has_prev && key < s->prev_key)
        return sg->kind == RAID_INPUT_RETURNS ? RAID_SEG_DATE_BACK : RAID_SEG_TIME_BACK;
    if (s->has_seg && day < s->day)
        return RAID_SEG_DATE_BACK;
    s->has_prev = 1;
    s->prev_key = key;
    s->prev_ref = w->ref;
    s->prev_raw = w->raw;
    s->prev_raw_utc = w->raw_utc;
    s->prev_tp = w->text; /* copied only when the caller lets go of it (raidSegHoldTexts) */
    s->prev_tl = w->text_len;
    if (!w->text)
        s->prev_text[0] = 0;
    else if (!s->pending) {
        s->pending = 1;
        sg->pend[sg->npend++] = si;
    }
    if (s->has_seg && day != s->day && close_segment(sg, si) != 0)
        return RAID_SEG_ENOMEM;
    if (!s->has_seg)
        open_segment(s, day);
    return RAID_SEG_OK;
}

int raidSegDay(const RaidSeg *sg, int64_t local, int64_t *day, int64_t *tod)
{
    const int64_t cal = raidIoFloordiv(local, RAID_US_PER_DAY);
    *tod = local - cal * RAID_US_PER_DAY;
    int next = 0;
    const int keep = raidSessionKeep(sg->ses_lo_s, sg->ses_hi_s, *tod, &next);
    *day = cal + next;
    return keep;
}

int raidSegPrice(RaidSeg *sg, uint32_t si, int64_t instant, int64_t local, double p, const RaidSegRow *w)
{
    int64_t day, tod;
    const int keep = raidSegDay(sg, local, &day, &tod);
    return raidSegPriceAt(sg, si, instant, day, tod, keep, p, NULL, w);
}

int raidSegPriceAt(RaidSeg *sg, uint32_t si, int64_t instant, int64_t day, int64_t tod, int keep, double p,
                      const double *ret, const RaidSegRow *w)
{
    return raidSegPriceAfter(sg, si, instant, day, tod, keep, p, ret, NULL, 0, w);
}

int raidSegPriceAfter(RaidSeg *sg, uint32_t si, int64_t instant, int64_t day, int64_t tod, int keep, double p,
                         const double *ret, const double *skip_ret, size_t nskip, const RaidSegRow *w)
{
    assert(sg->kind == RAID_INPUT_PRICES && si < sg->nsyms);
    sym_state *s = &sg->syms[si];
    /* A kept row's trading date must be one the outputs can write as YYYY-MM-DD (a time zone, an offset or
     * a session across midnight can move a valid timestamp's date to year 0 or 10000); a dropped row's
     * segment is never delivered. */
    if (keep && (day < RAID_SEG_DAY_MIN || day > RAID_SEG_DAY_MAX))
        return RAID_SEG_DATE_RANGE;
    if (keep && s->has_seg && day == s->day && grid_too_long(sg, s, instant))
        return RAID_SEG_TOO_MANY;
    assert(keep || nskip == 0);
    int rc = advance(sg, s, si, instant, day, w);
    if (rc != RAID_SEG_OK || !keep)
        return rc;
    if (nskip) { /* kept observations of this segment before this one that the caller left out */
        assert(s->has_seg && day == s->day && (sg->sample_us > 0 ? s->have_obs : s->nsampled > 0));
        if (sg->sample_us > 0) {
            sg->gaps += nskip;
        } else {
            assert(!sg->samples); /* the samples need every row (reader.c) */
            if (push_rets(s, skip_ret, nskip, 0) != 0)
                return RAID_SEG_ENOMEM;
            s->nsampled += nskip;
        }
    }
    int64_t local = 0; /* the row's local wall-clock time: its calendar date is the trading date's, or the day
                          before for the evening part of a session across midnight */
    if (sg->samples) {
        int next = 0;
        raidSessionKeep(sg->ses_lo_s, sg->ses_hi_s, tod, &next);
        local = (day - next) * RAID_US_PER_DAY + tod;
    }
    return observe(sg, s, instant, local, instant - tod, p, ret) == 0 ? RAID_SEG_OK : RAID_SEG_ENOMEM;
}

int raidSegReturn(RaidSeg *sg, uint32_t si, int64_t day, double r, const RaidSegRow *w)
{
    assert(sg->kind == RAID_INPUT_RETURNS && si < sg->nsyms);
    sym_state *s = &sg->syms[si];
    int rc = advance(sg, s, si, day, day, w);
    if (rc != RAID_SEG_OK)
        return rc;
    return push_ret(s, r) == 0 ? RAID_SEG_OK : RAID_SEG_ENOMEM;
}

void raidSegRowProblem(const RaidSeg *sg, int rc, char *buf, size_t len)
{
    assert(rc == RAID_SEG_DATE_RANGE || rc == RAID_SEG_TOO_MANY);
    if (rc == RAID_SEG_DATE_RANGE)
        snprintf(buf, len, "trading date outside the years 0001 to 9999 after the time zone and session");
    else
        snprintf(buf, len, "the sampling grid of %g s would give one segment more than %lld returns; use a coarser "
                 "sampling interval", (double)sg->sample_us * 1e-6, (long long)RAID_MAX_SEGMENT_RETURNS);
}

/* Copy symbol s's pending text into prev_text. */
static void hold_text(sym_state *s)
{
    if (s->prev_tp) {
        const size_t n = s->prev_tl < PREV_TEXT - 1 ? s->prev_tl : PREV_TEXT - 1;
        memcpy(s->prev_text, s->prev_tp, n);
        s->prev_text[n] = 0;
        s->prev_tp = NULL;
    }
}

void raidSegHoldTexts(RaidSeg *sg)
{
    for (size_t j = 0; j < sg->npend; j++) {
        sym_state *s = &sg->syms[sg->pend[j]];
        hold_text(s);
        s->pending = 0;
    }
    sg->npend = 0;
}

const RaidIoTz *raidSegTz(const RaidSeg *sg) { return sg->tz; }

int64_t raidSegFind(const RaidSeg *sg, const char *s, size_t n)
{
    const int64_t i = raidSymtabFind(&sg->tab, s, n);
    return i >= 0 && (size_t)i < sg->nsyms ? i : -1;
}

int raidSegOpenState(const RaidSeg *sg, uint32_t si, int64_t *day, int64_t *anchor)
{
    assert(si < sg->nsyms);
    const sym_state *s = &sg->syms[si];
    *day = s->day;
    *anchor = s->anchor;
    return !s->has_seg ? 0 : s->have_obs ? 2 : 1;
}

int64_t raidSegSampleUs(const RaidSeg *sg) { return sg->sample_us; }

void raidSegPrev(RaidSeg *sg, uint32_t si, uint64_t *ref, const char **text, int64_t *raw, int *raw_utc)
{
    assert(si < sg->nsyms);
    sym_state *s = &sg->syms[si];
    hold_text(s);
    if (ref)
        *ref = s->prev_ref;
    if (text)
        *text = s->prev_text;
    if (raw)
        *raw = s->prev_raw;
    if (raw_utc)
        *raw_utc = s->prev_raw_utc;
}

/* ---------------------------------------------------------------------------------------------- */
/* End, delivery, notices                                                                          */
/* ---------------------------------------------------------------------------------------------- */

void raidSegAddNotice(RaidSeg *sg, const char *fmt, ...)
{
    if (sg->nnotices == MAX_NOTICES)
        return;
    char *m = malloc(NOTICE_LEN);
    if (!m)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m, NOTICE_LEN, fmt, ap);
    va_end(ap);
    sg->notices[sg->nnotices++] = m;
}

raid_status raidSegFinish(RaidSeg *sg)
{
    for (size_t i = 0; i < sg->nsyms; i++)
        if (close_segment(sg, (uint32_t)i) != 0)
            return raidFail(NULL, RAID_ENOMEM, "out of memory");
    /* A grid finer than the data: more than half of the grid returns repeat the previous grid price
     * (no observation in their interval), which adds zero returns and pulls bpv towards 0. */
    if (sg->grid_returns > 0 && sg->stale_returns * 2 > sg->grid_returns) {
        const double S = (double)sg->sample_us * 1e-6;
        char spacing[96] = "";
        if (sg->gaps)
            snprintf(spacing, sizeof spacing, " (kept observations are %.6g s apart on average)",
                     sg->gap_sum_s / (double)sg->gaps);
        raidSegAddNotice(sg,
                            "the sampling grid of %.6g s is finer than the data's spacing%s: %llu of %llu "
                            "sampled returns (%.1f%%) repeat the previous price for lack of an observation "
                            "in their interval, adding zero returns (bpv and the jump test suffer); choose a "
                            "coarser sampling interval",
                            S, spacing, (unsigned long long)sg->stale_returns,
                            (unsigned long long)sg->grid_returns,
                            100.0 * (double)sg->stale_returns / (double)sg->grid_returns);
    }
    return RAID_OK;
}

size_t raidSegQueued(const RaidSeg *sg) { return sg->rq_n - sg->rq_head; }

raid_status raidSegTake(RaidSeg *sg, raid_batch *b, size_t max_returns)
{
    size_t delivered = 0;
    while (sg->rq_head < sg->rq_n && (delivered == 0 || b->nret < max_returns)) {
        ready_seg *q = &sg->rq[sg->rq_head];
        const seg_samples smp = {q->px, q->tm, q->first_p, q->first_tm};
        if (batch_append(b, q->sym, q->date, q->ret, q->n, sg->samples ? &smp : NULL) != RAID_OK)
            return raidFail(NULL, RAID_ENOMEM, "out of memory");
        sg->rq_head++;
        if (q->ret) { /* its buffer, for a symbol's next segment */
            if (sg->npool == sg->pool_cap) {
                const size_t cap = sg->pool_cap ? 2 * sg->pool_cap : 16;
                ready_seg *t = realloc(sg->pool, cap * sizeof *t);
                if (t) {
                    sg->pool = t;
                    sg->pool_cap = cap;
                }
            }
            if (sg->npool < sg->pool_cap) {
                sg->pool[sg->npool++] = *q;
            } else {
                free(q->ret);
                free(q->px);
                free(q->tm);
            }
            q->ret = NULL;
            q->px = NULL;
            q->tm = NULL;
        }
        delivered++;
    }
    if (sg->rq_head == sg->rq_n) {
        sg->rq_head = sg->rq_n = 0;
    }
    return RAID_OK;
}

size_t raidSegNoticeCount(const RaidSeg *sg) { return sg->nnotices; }

const char *raidSegNotice(const RaidSeg *sg, size_t i) { return i < sg->nnotices ? sg->notices[i] : NULL; }
