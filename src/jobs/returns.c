/* The returns job (include/raid/returns.h): batches of segments with their sampled prices from a source,
 * their returns as the segmenter took them or by raid_f64_log_returns on a context, rows kept by segment,
 * sorted by symbol and date at the end, written as CSV. */
#define _POSIX_C_SOURCE 200809L
#include "core/internal.h"
#include "core/outfile.h"
#include "io/symtab.h"
#include "io/tz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct seg {
    uint32_t sym;  /* index into names */
    int32_t date;  /* yyyymmdd */
    size_t first, n; /* rows [first, first + n) of ret and time */
} seg;

struct raid_returns_table {
    RaidSymtab names;
    seg *seg;
    size_t nseg, seg_cap;
    double *ret;
    int64_t *time;
    size_t nrows, cap;
    uint32_t *row_sym; /* after finish: per row */
    int32_t *row_date;
    /* the source being read */
    const void *src;
    uint32_t *map;     /* the source's symbol i is names' map[i], UINT32_MAX before it is looked up */
    size_t map_cap;
    raid_batch b;
    double *px, *dr;   /* a device batch's prices and returns */
    size_t px_cap;
    int finished;
    char *failed;
};

raid_status raid_returns_table_create(raid_returns_table **out)
{
    if (!out)
        return raidFail(NULL, RAID_EINVAL, "raid_returns_table_create: NULL");
    raid_returns_table *t = calloc(1, sizeof *t);
    *out = t;
    if (!t)
        return raidFail(NULL, RAID_ENOMEM, "out of memory");
    raidSymtabInit(&t->names);
    raid_batch_init(&t->b);
    return RAID_OK;
}

static void source_done(raid_returns_table *t)
{
    t->src = NULL;
    free(t->map);
    t->map = NULL;
    t->map_cap = 0;
    raid_batch_free(&t->b);
    raid_batch_init(&t->b);
    free(t->px);
    free(t->dr);
    t->px = t->dr = NULL;
    t->px_cap = 0;
}

void raid_returns_table_destroy(raid_returns_table *tab)
{
    if (!tab)
        return;
    source_done(tab);
    raidSymtabFree(&tab->names);
    free(tab->seg);
    free(tab->ret);
    free(tab->time);
    free(tab->row_sym);
    free(tab->row_date);
    free(tab->failed);
    free(tab);
}

/* The order of calls (include/raid/returns.h). */
static raid_status add_check(raid_returns_table *t, raid_ctx *ctx, const void *src, const char *fn)
{
    if (!t || !src)
        return raidFail(ctx, RAID_EINVAL, "%s: NULL argument", fn);
    if (t->failed)
        return raidFail(ctx, RAID_EINVAL, "%s: the table is incomplete: an earlier add failed: %s", fn, t->failed);
    if (t->finished)
        return raidFail(ctx, RAID_EINVAL, "%s: the table is finished", fn);
    if (t->src && t->src != src)
        return raidFail(ctx, RAID_EINVAL, "%s: another source is not yet exhausted", fn);
    return RAID_OK;
}

static raid_status add_failed(raid_returns_table *t, raid_ctx *ctx, raid_status st)
{
    const char *m = ctx ? raid_ctx_errmsg(ctx) : raid_errmsg();
    if (!t->failed)
        t->failed = strdup(m && *m ? m : raid_strerror(st));
    return st;
}

static int grow(void *pp, size_t *cap, size_t n, size_t sz)
{
    if (n <= *cap)
        return 0;
    size_t c = *cap ? *cap : 1024;
    while (c < n)
        c *= 2;
    void *q = realloc(*(void **)pp, c * sz);
    if (!q)
        return -1;
    *(void **)pp = q;
    *cap = c;
    return 0;
}

/* The returns of b's segments by raid_f64_log_returns on ctx: the segments' prices back to back (each
 * segment's first price, then its end prices) in one call; the entry from one segment's last price to the
 * next one's first is computed and not used. Into t->dr, in b's order of returns. */
static raid_status device_returns(raid_returns_table *t, raid_ctx *ctx, const raid_batch *b)
{
    const size_t np = b->nret + b->nseg;
    size_t cap = t->px_cap;
    if (grow(&t->px, &cap, np, sizeof *t->px) != 0)
        return raidFail(ctx, RAID_ENOMEM, "out of memory");
    double *dr = realloc(t->dr, cap * sizeof *dr);
    if (!dr)
        return raidFail(ctx, RAID_ENOMEM, "out of memory");
    t->dr = dr;
    t->px_cap = cap;
    size_t k = 0;
    for (size_t s = 0; s < b->nseg; s++) {
        const size_t lo = (size_t)b->offsets[s], hi = (size_t)b->offsets[s + 1];
        t->px[k++] = b->first_price[s];
        memcpy(t->px + k, b->price + lo, (hi - lo) * sizeof *t->px);
        k += hi - lo;
    }
    raid_status st = raid_f64_log_returns(ctx, t->px, np, t->dr);
    if (st != RAID_OK)
        return st;
    k = 0; /* the returns of segment s are dr[k + 0 .. n) where px[k] is its first price */
    for (size_t s = 0; s < b->nseg; s++) {
        const size_t lo = (size_t)b->offsets[s], n = (size_t)b->offsets[s + 1] - lo;
        memmove(t->dr + lo, t->dr + k, n * sizeof *t->dr);
        k += n + 1;
    }
    return RAID_OK;
}

/* Append b's segments and returns (the source's symbol names by name(src, i)). */
static raid_status add_batch(raid_returns_table *t, raid_ctx *ctx, const raid_batch *b,
                             const char *(*name)(const void *, uint32_t))
{
    if (b->nret && (!b->price || !b->time_us))
        return raidFail(ctx, RAID_EINVAL, "the source was opened without raid_read_opts.samples = 1: the returns "
                        "table needs the sampled prices and their times");
    const double *r = b->ret;
    if (ctx && b->nseg) {
        raid_status st = device_returns(t, ctx, b);
        if (st != RAID_OK)
            return st;
        r = t->dr;
    }
    size_t cap = t->cap, cap2 = t->cap;
    if (grow(&t->ret, &cap, t->nrows + b->nret, sizeof *t->ret) != 0 ||
        grow(&t->time, &cap2, t->nrows + b->nret, sizeof *t->time) != 0)
        return raidFail(ctx, RAID_ENOMEM, "out of memory");
    t->cap = cap < cap2 ? cap : cap2;
    if (grow(&t->seg, &t->seg_cap, t->nseg + b->nseg, sizeof *t->seg) != 0)
        return raidFail(ctx, RAID_ENOMEM, "out of memory");
    for (size_t s = 0; s < b->nseg; s++) {
        const uint32_t i = b->symbol[s];
        if (i >= t->map_cap) {
            size_t c = t->map_cap;
            const size_t old = c;
            if (grow(&t->map, &c, (size_t)i + 1, sizeof *t->map) != 0)
                return raidFail(ctx, RAID_ENOMEM, "out of memory");
            for (size_t j = old; j < c; j++)
                t->map[j] = UINT32_MAX;
            t->map_cap = c;
        }
        if (t->map[i] == UINT32_MAX) {
            const char *nm = name(t->src, i);
            const int64_t j = raidSymtabAdd(&t->names, nm ? nm : "", nm ? strlen(nm) : 0);
            if (j < 0)
                return raidFail(ctx, RAID_ENOMEM, "out of memory");
            t->map[i] = (uint32_t)j;
        }
    }
    for (size_t s = 0; s < b->nseg; s++) { /* nothing fails from here: the batch goes in whole */
        const size_t lo = (size_t)b->offsets[s], n = (size_t)b->offsets[s + 1] - lo;
        if (n == 0) /* a segment of one price has no return, hence no row */
            continue;
        t->seg[t->nseg++] = (seg){t->map[b->symbol[s]], b->date[s], t->nrows, n};
        memcpy(t->ret + t->nrows, r + lo, n * sizeof *t->ret);
        memcpy(t->time + t->nrows, b->time_us + lo, n * sizeof *t->time);
        t->nrows += n;
    }
    return RAID_OK;
}

static const char *reader_name(const void *src, uint32_t i) { return raid_reader_symbol(src, i); }
static const char *ticks_name(const void *src, uint32_t i) { return raid_ticks_symbol(src, i); }

raid_status raid_returns_table_add_reader(raid_returns_table *tab, raid_ctx *ctx, raid_reader *rd, size_t max_returns,
                                          int *done)
{
    static const char fn[] = "raid_returns_table_add_reader";
    raid_status st = add_check(tab, ctx, rd, fn);
    if (st == RAID_OK && (!done || max_returns == 0))
        st = raidFail(ctx, RAID_EINVAL, "%s: %s", fn, done ? "max_returns is 0" : "NULL argument");
    if (st != RAID_OK)
        return st;
    *done = 0;
    tab->src = rd;
    raid_batch_clear(&tab->b);
    if ((st = raid_reader_next(rd, &tab->b, max_returns, done)) != RAID_OK) {
        if (ctx)
            raidFail(ctx, st, "%s", raid_errmsg()); /* the reader's message, unchanged */
        return add_failed(tab, ctx, st);
    }
    if ((st = add_batch(tab, ctx, &tab->b, reader_name)) != RAID_OK)
        return add_failed(tab, ctx, st);
    if (*done)
        source_done(tab);
    return RAID_OK;
}

raid_status raid_returns_table_add_ticks(raid_returns_table *tab, raid_ctx *ctx, raid_ticks *tk, int finish)
{
    static const char fn[] = "raid_returns_table_add_ticks";
    raid_status st = add_check(tab, ctx, tk, fn);
    if (st != RAID_OK)
        return st;
    tab->src = tk;
    raid_batch_clear(&tab->b);
    if ((st = raid_ticks_take(tk, &tab->b, finish)) != RAID_OK) {
        if (ctx)
            raidFail(ctx, st, "%s", raid_errmsg());
        return add_failed(tab, ctx, st);
    }
    if ((st = add_batch(tab, ctx, &tab->b, ticks_name)) != RAID_OK)
        return add_failed(tab, ctx, st);
    if (finish)
        source_done(tab);
    return RAID_OK;
}

/* ---- sorting: segments by symbol (order of first appearance), date, then order of addition ---- */

static int cmp_seg(const void *a, const void *b)
{
    const seg *x = a, *y = b;
    if (x->sym != y->sym)
        return x->sym < y->sym ? -1 : 1;
    if (x->date != y->date)
        return x->date < y->date ? -1 : 1;
    return x->first < y->first ? -1 : x->first > y->first;
}

raid_status raid_returns_table_finish(raid_returns_table *tab)
{
    static const char fn[] = "raid_returns_table_finish";
    if (!tab)
        return raidFail(NULL, RAID_EINVAL, "%s: NULL", fn);
    if (tab->failed)
        return raidFail(NULL, RAID_EINVAL, "%s: the table is incomplete: an earlier add failed: %s", fn, tab->failed);
    if (tab->finished)
        return raidFail(NULL, RAID_EINVAL, "%s: the table is already finished", fn);
    if (tab->src)
        return raidFail(NULL, RAID_EINVAL, "%s: a source is not yet exhausted", fn);
    const size_t n = tab->nrows;
    double *ret = malloc((n ? n : 1) * sizeof *ret);
    int64_t *time = malloc((n ? n : 1) * sizeof *time);
    uint32_t *sym = malloc((n ? n : 1) * sizeof *sym);
    int32_t *date = malloc((n ? n : 1) * sizeof *date);
    if (!ret || !time || !sym || !date) {
        free(ret), free(time), free(sym), free(date);
        return raidFail(NULL, RAID_ENOMEM, "out of memory");
    }
    if (tab->nseg)
        qsort(tab->seg, tab->nseg, sizeof *tab->seg, cmp_seg);
    size_t k = 0;
    for (size_t s = 0; s < tab->nseg; s++) {
        const seg *g = &tab->seg[s];
        memcpy(ret + k, tab->ret + g->first, g->n * sizeof *ret);
        memcpy(time + k, tab->time + g->first, g->n * sizeof *time);
        for (size_t j = 0; j < g->n; j++) {
            sym[k + j] = g->sym;
            date[k + j] = g->date;
        }
        k += g->n;
    }
    free(tab->ret);
    free(tab->time);
    tab->ret = ret;
    tab->time = time;
    tab->row_sym = sym;
    tab->row_date = date;
    tab->finished = 1;
    return RAID_OK;
}

size_t raid_returns_table_nrows(const raid_returns_table *tab) { return tab && tab->finished ? tab->nrows : 0; }
#define COLUMN(t, c) ((t) && (t)->finished && (t)->nrows ? (t)->c : NULL)
const uint32_t *raid_returns_table_symbol_ids(const raid_returns_table *tab) { return COLUMN(tab, row_sym); }
const int32_t *raid_returns_table_dates(const raid_returns_table *tab) { return COLUMN(tab, row_date); }
const int64_t *raid_returns_table_times(const raid_returns_table *tab) { return COLUMN(tab, time); }
const double *raid_returns_table_returns(const raid_returns_table *tab) { return COLUMN(tab, ret); }
size_t raid_returns_table_nsymbols(const raid_returns_table *tab) { return tab ? tab->names.n : 0; }
const char *raid_returns_table_symbol_name(const raid_returns_table *tab, size_t j)
{
    return tab ? raidSymtabName(&tab->names, j) : NULL;
}

raid_status raid_returns_table_write_csv(const raid_returns_table *tab, FILE *f)
{
    static const char fn[] = "raid_returns_table_write_csv";
    if (!tab || !f)
        return raidFail(NULL, RAID_EINVAL, "%s: NULL", fn);
    if (!tab->finished)
        return raidFail(NULL, RAID_EINVAL, "%s: the table is not finished (raid_returns_table_finish sorts it)", fn);
    fputs("symbol,date,timestamp,ret\n", f);
    char when[48];
    for (size_t i = 0; i < tab->nrows; i++) {
        const int32_t d = tab->row_date[i];
        raid_csv_put_field(f, raidSymtabName(&tab->names, tab->row_sym[i]));
        fprintf(f, ",%04d-%02d-%02d,%s", d / 10000, d / 100 % 100, d % 100,
                raidIoFormatTime(when, sizeof when, tab->time[i], 0));
        raid_csv_put_value(f, tab->ret[i]);
        fputc('\n', f);
    }
    return raidCsvWritten(f);
}
