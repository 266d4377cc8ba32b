/* The realized job: a table of daily measures from a source of segments (raid_realized_table_*,
 * include/raid/realized.h): pull a batch, compute it (and check it against the float64 cpu path), append
 * its rows with the symbol names, sort them as `raid realized` writes them, write the CSV. The one copy
 * of the loop that the CLI and the Python package both run. */
#define _POSIX_C_SOURCE 200809L
#include "realized/realized_internal.h"
#include "core/outfile.h"
#include "io/symtab.h"
#include "io/table.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NM RAID_REALIZED_NMEASURES
#define NCOL RAID_REALIZED_NCOLUMNS /* the nine and the noise-robust columns */
/* The largest part of a reader's batch computed at once (raid_realized_table_add_reader): on the reader's
 * parsing threads POOL_PART_RETURNS, NPARTS of them at most in flight; else 0, the whole batch.
 * RAID_REALIZED_PART=N sets it (0: the whole batch; benchmarks, tests), RAID_REALIZED_POOL=0 computes
 * the measures on OpenMP's threads instead of the reader's (benchmarks). */
#define POOL_PART_RETURNS ((size_t)1 << 19)
#define NPARTS 4

/* A part of a reader's batch whose measures the reader's parsing threads compute (add_reader). */
typedef struct part {
    raid_batch b;          /* its segments */
    RaidRealizedJob job; /* the float64 cpu path's chunks of b */
    RaidTableTask task;  /* the chunks as a task of the reader's table: task.n chunks, 0 if none */
} part;

struct raid_realized_table {
    RaidSymtab names;  /* symbol names in order of first appearance over the sources */
    size_t nrows, cap;  /* rows, as columns of cap entries */
    uint32_t *sym;      /* index into names */
    int32_t *date;      /* yyyymmdd */
    int64_t *n;
    double *col[NCOL];  /* the nine measures; the noise-robust ones (k >= NM) filled only when selected */
    int sel[NCOL];      /* the columns written, in order (raid_realized_table_set_measures) */
    size_t nsel;
    int noise;          /* 1: a noise-robust column is selected, computed for every row */
    raid_realized_noise *nz, *nzref; /* the context's and, with a check, the cpu path's */
    size_t nz_cap, nzref_cap;
    /* the source being read: from its first add until it reports that it is exhausted */
    const void *src;
    size_t src_named;   /* the source's symbols 0 .. src_named-1 are in names, map gives their index */
    uint32_t *map;
    size_t map_cap;
    raid_batch b;       /* the batch and the results of its computation, reused across adds */
    raid_realized *dev, *ref;
    size_t dev_cap, ref_cap;
    /* the check */
    size_t nchecked;
    int check_prec;     /* raid_precision of the checked contexts, -1 before the first check */
    double maxdiff[NCOL]; /* the nine's, then the noise-robust columns' (when selected) */
    size_t nz_checked;    /* rows whose noise-robust columns were checked */
    int finished;
    char *failed;       /* the message of a failed add, NULL while none failed */
    /* RAID_CSV_PROFILE: wall seconds from create, in the source (reading, segmenting), in the measures */
    int profile;
    double t_create, t_source, t_measures, t_free;
    uint64_t ncomputed; /* batches (or parts) computed */
    size_t part; /* RAID_REALIZED_PART (0: no parts), SIZE_MAX when not set: the defaults above */
    int pool;    /* RAID_REALIZED_POOL: measures of a cpu context on the reader's threads (1) or OpenMP's (0) */
    part parts[NPARTS]; /* posted parts: parts[(p0 + i) % NPARTS] for i < np, in the reader's order */
    size_t p0, np;
};

raid_status raid_realized_table_create(raid_realized_table **out)
{
    if (!out)
        return raidFail(NULL, RAID_EINVAL, "raid_realized_table_create: NULL");
    raid_realized_table *t = calloc(1, sizeof *t);
    *out = t;
    if (!t)
        return raidFail(NULL, RAID_ENOMEM, "out of memory");
    raidSymtabInit(&t->names);
    raid_batch_init(&t->b);
    t->check_prec = -1;
    t->profile = getenv("RAID_CSV_PROFILE") != NULL;
    t->t_create = raidNow();
    t->part = raidEnvSize("RAID_REALIZED_PART", 0, SIZE_MAX - 1, SIZE_MAX);
    t->pool = raidEnvSize("RAID_REALIZED_POOL", 0, 1, 1) != 0;
    for (int k = 0; k < NM; k++)
        t->sel[k] = k;
    t->nsel = NM;
    return RAID_OK;
}

/* The batch and result buffers of a source, freed when it is exhausted: a table kept after the job
 * holds its rows only. */
static void source_done(raid_realized_table *t)
{
    const double t0 = t->profile ? raidNow() : 0;
    t->src = NULL;
    t->src_named = 0;
    free(t->map);
    t->map = NULL;
    t->map_cap = 0;
    raid_batch_free(&t->b);
    raid_batch_init(&t->b);
    assert(t->np == 0);
    for (size_t i = 0; i < NPARTS; i++) {
        raid_batch_free(&t->parts[i].b);
        raid_batch_init(&t->parts[i].b);
    }
    free(t->dev);
    free(t->ref);
    free(t->nz);
    free(t->nzref);
    t->dev = t->ref = NULL;
    t->nz = t->nzref = NULL;
    t->dev_cap = t->ref_cap = t->nz_cap = t->nzref_cap = 0;
    if (t->profile)
        t->t_free += raidNow() - t0;
}

void raid_realized_table_destroy(raid_realized_table *tab)
{
    if (!tab)
        return;
    if (tab->profile)
        fprintf(stderr, "profile: realized table: %.3f s (wall) since created, of which reading the sources %.3f s "
                "and the measures %.3f s (%llu batches), freeing the sources' buffers %.3f s\n",
                raidNow() - tab->t_create, tab->t_source, tab->t_measures, (unsigned long long)tab->ncomputed,
                tab->t_free);
    source_done(tab); /* no part is in flight: add_reader waits for its parts before it returns */
    raidSymtabFree(&tab->names);
    free(tab->sym);
    free(tab->date);
    free(tab->n);
    for (int k = 0; k < NCOL; k++)
        free(tab->col[k]);
    free(tab->failed);
    free(tab);
}

/* ---- adding a batch ---- */

/* Arguments and order of an add, before anything is taken from the source: RAID_OK or RAID_EINVAL with
 * the message on ctx. */
static raid_status add_check(raid_realized_table *t, raid_ctx *ctx, raid_ctx *cpu, const void *src,
                             const char *fn)
{
    if (!t || !src)
        return raidFail(ctx, RAID_EINVAL, "%s: NULL argument", fn);
    if (t->failed)
        return raidFail(ctx, RAID_EINVAL, "%s: the table is incomplete: an earlier add failed: %s", fn, t->failed);
    if (t->finished)
        return raidFail(ctx, RAID_EINVAL, "%s: the table is finished: it takes no more rows", fn);
    if (t->src && t->src != src)
        return raidFail(ctx, RAID_EINVAL, "%s: another source is not yet exhausted", fn);
    if (cpu) {
        if (raid_ctx_backend(cpu) != RAID_BACKEND_CPU)
            return raidFail(ctx, RAID_EINVAL, "%s: the check's context is not the float64 cpu backend (%s)", fn,
                             raid_ctx_device_name(cpu));
        const int p = (int)raid_ctx_precision(ctx);
        if (t->check_prec >= 0 && p != t->check_prec)
            return raidFail(ctx, RAID_EINVAL, "%s: the check's batches use two precision policies", fn);
    }
    return RAID_OK;
}

/* Keep the first failure after a batch was taken: the table is incomplete from then on. */
static raid_status add_failed(raid_realized_table *t, raid_status st)
{
    assert(st != RAID_OK);
    if (!t->failed)
        t->failed = strdup(raid_errmsg()); /* NULL when out of memory: then the generic text below */
    if (!t->failed)
        t->failed = strdup("out of memory");
    return st;
}

/* Room for n elements of size sz at the pointer that pp points to (any object pointer type: POSIX
 * gives them one representation), *cap of them now; 0, or -1 when out of memory (the pointer unchanged). */
static int grow(void *pp, size_t *cap, size_t n, size_t sz)
{
    if (n <= *cap)
        return 0;
    if (raidRegrow(pp, n, sz))
        return -1;
    *cap = n;
    return 0;
}

/* The table's index of the source's symbol i: the source's symbols up to i are named in the table in
 * the source's order (the order of first appearance in its input), whether or not they have rows yet,
 * so that one source gives the rows the order of the CLI. name(src, j) is the source's name of j. */
static int64_t symbol_of(raid_realized_table *t, uint32_t i, const char *(*name)(const void *, uint32_t))
{
    while (t->src_named <= i) {
        const size_t j = t->src_named;
        if (j >= t->map_cap && grow(&t->map, &t->map_cap, t->map_cap ? 2 * t->map_cap : 64, sizeof *t->map))
            return -1;
        const char *s = name(t->src, (uint32_t)j);
        assert(s); /* the source numbers its symbols from 0 without gaps */
        const int64_t id = raidSymtabAdd(&t->names, s ? s : "", s ? strlen(s) : 0);
        if (id < 0)
            return -1;
        t->map[j] = (uint32_t)id;
        t->src_named++;
    }
    return t->map[i];
}

/* Room for m more rows in every column (a column that grew before a failure keeps its size). */
static int rows_reserve(raid_realized_table *t, size_t m)
{
    if (t->nrows + m <= t->cap)
        return 0;
    size_t nc = t->cap ? t->cap : 1024;
    while (nc < t->nrows + m)
        nc *= 2;
    size_t c[3] = {t->cap, t->cap, t->cap};
    if (grow(&t->sym, &c[0], nc, sizeof *t->sym) || grow(&t->date, &c[1], nc, sizeof *t->date) ||
        grow(&t->n, &c[2], nc, sizeof *t->n))
        return -1;
    for (int k = 0; k < NCOL; k++) {
        size_t ck = t->cap;
        if ((k < NM || t->noise) && grow(&t->col[k], &ck, nc, sizeof *t->col[k]))
            return -1;
    }
    t->cap = nc;
    return 0;
}

static const char *reader_name(const void *src, uint32_t i) { return raid_reader_symbol(src, i); }
static const char *ticks_name(const void *src, uint32_t i) { return raid_ticks_symbol(src, i); }

/* Append the rows of batch b, whose measures are in t->dev (and, with a check, the cpu path's in t->ref). */
static raid_status add_rows(raid_realized_table *t, raid_ctx *ctx, raid_ctx *cpu, const raid_batch *b,
                            const char *(*name)(const void *, uint32_t))
{
    const size_t ns = b->nseg;
    if (rows_reserve(t, ns) != 0)
        return raidFail(ctx, RAID_ENOMEM, "out of memory");
    if (t->noise) { /* the noise-robust columns: float64 on the host, whatever ctx's device */
        if (grow(&t->nz, &t->nz_cap, ns, sizeof *t->nz) != 0)
            return raidFail(ctx, RAID_ENOMEM, "out of memory");
        const double t0 = t->profile ? raidNow() : 0;
        const raid_status st = raid_realized_noise_compute(ctx, b->ret, b->offsets, ns, t->nz);
        if (t->profile)
            t->t_measures += raidNow() - t0;
        if (st != RAID_OK)
            return st;
        if (cpu) { /* the check of the noise-robust columns: the float64 cpu path on the same returns */
            if (grow(&t->nzref, &t->nzref_cap, ns, sizeof *t->nzref) != 0)
                return raidFail(ctx, RAID_ENOMEM, "out of memory");
            const raid_status sc = raid_realized_noise_compute(cpu, b->ret, b->offsets, ns, t->nzref);
            if (sc != RAID_OK)
                return raidFail(ctx, sc, "%s", raid_ctx_errmsg(cpu));
        }
    }
    for (size_t s = 0; s < ns; s++) { /* names first: a failure leaves the rows as they were */
        const int64_t id = symbol_of(t, b->symbol[s], name);
        if (id < 0)
            return raidFail(ctx, RAID_ENOMEM, "out of memory (symbol names)");
    }
    if (cpu) {
        for (size_t s = 0; s < ns; s++)
            for (int k = 0; k < NM; k++) {
                const double dd = raid_realized_diff(&t->dev[s], &t->ref[s], k);
                if (!(dd <= t->maxdiff[k])) /* the comparison of --check: a NAN is taken */
                    t->maxdiff[k] = dd;
            }
        for (size_t s = 0; t->noise && s < ns; s++)
            for (int k = NM; k < NCOL; k++) {
                const double dd = raid_realized_noise_diff(&t->nz[s], &t->nzref[s], k - NM, t->ref[s].rv);
                if (!(dd <= t->maxdiff[k]))
                    t->maxdiff[k] = dd;
            }
        t->nz_checked += t->noise ? ns : 0;
        t->nchecked += ns;
        t->check_prec = (int)raid_ctx_precision(ctx);
    }
    for (size_t s = 0; s < ns; s++) {
        const size_t i = t->nrows++;
        t->sym[i] = t->map[b->symbol[s]];
        t->date[i] = b->date[s];
        t->n[i] = t->dev[s].n;
        for (int k = 0; k < NM; k++)
            t->col[k][i] = raid_realized_get(&t->dev[s], k);
        for (int k = NM; t->noise && k < NCOL; k++)
            t->col[k][i] = raid_realized_noise_get(&t->nz[s], k - NM);
    }
    return RAID_OK;
}

/* Compute batch b on ctx (and cpu) and append its rows. */
static raid_status add_batch(raid_realized_table *t, raid_ctx *ctx, raid_ctx *cpu, const raid_batch *b,
                             const char *(*name)(const void *, uint32_t))
{
    const size_t ns = b->nseg;
    if (ns == 0)
        return RAID_OK;
    if (grow(&t->dev, &t->dev_cap, ns, sizeof *t->dev) != 0 ||
        (cpu && grow(&t->ref, &t->ref_cap, ns, sizeof *t->ref) != 0))
        return raidFail(ctx, RAID_ENOMEM, "out of memory");
    const double t0 = t->profile ? raidNow() : 0;
    raid_status st = raid_realized_compute(ctx, b->ret, b->offsets, ns, t->dev);
    if (t->profile)
        t->t_measures += raidNow() - t0;
    t->ncomputed++;
    if (st != RAID_OK)
        return st; /* ctx's message as raid_realized_compute left it (raid_errmsg() has it too) */
    if (cpu) {
        if ((st = raid_realized_compute(cpu, b->ret, b->offsets, ns, t->ref)) != RAID_OK)
            return raidFail(ctx, st, "cpu path: %s", raid_ctx_errmsg(cpu));
    }
    return add_rows(t, ctx, cpu, b, name);
}

static void part_chunk(void *arg, size_t c) { raidRealizedCpuChunk(&((part *)arg)->job, c); }

/* Hand the chunks of the next part (its segments read into it) to the reader's table tb: its parsing
 * threads sum them while the calling thread reads on. */
static raid_status part_post(raid_realized_table *t, raid_ctx *ctx, RaidTable *tb)
{
    part *p = &t->parts[(t->p0 + t->np) % NPARTS];
    const raid_batch *b = &p->b;
    const double t0 = t->profile ? raidNow() : 0;
    raid_status st = RAID_OK;
    if (grow(&t->dev, &t->dev_cap, b->nseg, sizeof *t->dev) != 0)
        st = raidFail(ctx, RAID_ENOMEM, "out of memory");
    if (st == RAID_OK)
        st = raidRealizedArgs(ctx, b->ret, b->offsets, b->nseg, t->dev);
    if (st == RAID_OK)
        st = raidRealizedCpuBegin(ctx, &p->job, b->ret, b->offsets, b->nseg);
    if (st == RAID_OK) {
        p->task = (RaidTableTask){part_chunk, p, raidRealizedCpuNchunks(&p->job), 0, 0, NULL};
        if (p->task.n)
            raidTableTaskPost(tb, &p->task);
        t->np++;
    }
    if (t->profile)
        t->t_measures += raidNow() - t0;
    return st;
}

/* Wait for the oldest posted part's chunks, then append its rows (keep), or drop it (a failure before it). */
static raid_status part_collect(raid_realized_table *t, raid_ctx *ctx, RaidTable *tb, int keep)
{
    part *p = &t->parts[t->p0];
    t->p0 = (t->p0 + 1) % NPARTS;
    t->np--;
    const double t0 = t->profile ? raidNow() : 0;
    if (p->task.n)
        raidTableTaskWait(tb, &p->task);
    raid_status st = RAID_OK;
    if (keep) {
        st = raidRealizedCpuEnd(ctx, &p->job, t->dev);
        t->ncomputed++;
    } else {
        raidRealizedCpuFree(&p->job);
    }
    if (t->profile)
        t->t_measures += raidNow() - t0;
    return st == RAID_OK && keep ? add_rows(t, ctx, NULL, &p->b, reader_name) : st;
}

raid_status raid_realized_table_add_reader(raid_realized_table *tab, raid_ctx *ctx, raid_ctx *cpu, raid_reader *rd,
                                           size_t max_returns, int *done)
{
    static const char fn[] = "raid_realized_table_add_reader";
    if (!ctx)
        return raidFail(NULL, RAID_EINVAL, "%s: ctx is NULL", fn);
    raid_status st = add_check(tab, ctx, cpu, rd, fn);
    if (st == RAID_OK && (!done || max_returns == 0))
        st = raidFail(ctx, RAID_EINVAL, "%s: %s", fn, done ? "max_returns is 0" : "NULL argument");
    if (st != RAID_OK)
        return st;
    *done = 0;
    tab->src = rd;
    /* The batch of max_returns is pulled and computed in parts of at most `part` returns (whole segments,
     * as raid_reader_next gives them), so that the measures of each part run while the reader's threads
     * parse the next blocks, rather than all at the end of a file whose returns fit in one batch (tick
     * sampling), and a few parts' buffers are reused (a batch of 1e7 returns is 80 MB of fresh pages touched
     * by the calling thread, and freed at the end). On a cpu context without a check the reader's own
     * parsing threads sum the parts' chunks, taking them before their next block (pooled: RaidTableTask;
     * NPARTS parts in flight at most, their rows appended in order). Otherwise each part is computed where
     * it is read (on the cpu an OpenMP region, whose threads then spin, about 12 ms each in libgomp by
     * default, on cores the parsing threads need: so no parts there unless asked for). Each segment's
     * measures depend on its own returns only (the chunk plan is per segment), so the rows are those of one
     * batch, bit for bit. A failure takes back the rows, and the check's figures, of the parts before it:
     * the add appends nothing. */
    const int pooled = tab->pool && !cpu && RAID_BACKEND(raidRealizedBackends, ctx)->pooled;
    RaidTable *tb = pooled ? raidReaderTable(rd) : NULL;
    raidTableSetProgress(raidReaderTable(rd), ctx); /* the bytes read, on ctx for this add only */
    const size_t part = tab->part != SIZE_MAX ? tab->part : pooled ? POOL_PART_RETURNS : 0;
    const size_t nrows0 = tab->nrows, nchecked0 = tab->nchecked;
    const int check_prec0 = tab->check_prec;
    double maxdiff0[NCOL];
    const size_t nz_checked0 = tab->nz_checked;
    memcpy(maxdiff0, tab->maxdiff, sizeof maxdiff0);
    size_t got = 0;
    while (st == RAID_OK && !*done && got < max_returns) {
        if (pooled && tab->np == NPARTS && (st = part_collect(tab, ctx, tb, 1)) != RAID_OK)
            break;
        raid_batch *b = pooled ? &tab->parts[(tab->p0 + tab->np) % NPARTS].b : &tab->b;
        raid_batch_clear(b);
        const size_t want = part && part < max_returns - got ? part : max_returns - got;
        const double t0 = tab->profile ? raidNow() : 0;
        st = raid_reader_next(rd, b, want, done);
        if (tab->profile)
            tab->t_source += raidNow() - t0;
        if (st != RAID_OK)
            st = raidFail(ctx, st, "%s", raid_errmsg());
        else if (b->nseg == 0)
            ; /* the end of the input: nothing to compute */
        else if (pooled)
            st = part_post(tab, ctx, tb);
        else
            st = add_batch(tab, ctx, cpu, b, reader_name);
        got += b->nret;
    }
    while (tab->np) { /* every posted part waited for, its rows appended in order unless a failure came first */
        const raid_status s = part_collect(tab, ctx, tb, st == RAID_OK);
        if (st == RAID_OK)
            st = s;
    }
    raidTableSetProgress(raidReaderTable(rd), NULL);
    if (st != RAID_OK) {
        tab->nrows = nrows0;
        tab->nchecked = nchecked0;
        tab->check_prec = check_prec0;
        memcpy(tab->maxdiff, maxdiff0, sizeof maxdiff0);
        tab->nz_checked = nz_checked0;
        return add_failed(tab, st);
    }
    if (*done)
        source_done(tab);
    return RAID_OK;
}

raid_status raid_realized_table_add_ticks(raid_realized_table *tab, raid_ctx *ctx, raid_ctx *cpu, raid_ticks *tk,
                                          int finish)
{
    static const char fn[] = "raid_realized_table_add_ticks";
    if (!ctx)
        return raidFail(NULL, RAID_EINVAL, "%s: ctx is NULL", fn);
    raid_status st = add_check(tab, ctx, cpu, tk, fn);
    if (st != RAID_OK)
        return st;
    tab->src = tk;
    raid_batch_clear(&tab->b);
    if ((st = raid_ticks_take(tk, &tab->b, finish)) != RAID_OK)
        return add_failed(tab, raidFail(ctx, st, "%s", raid_errmsg()));
    if ((st = add_batch(tab, ctx, cpu, &tab->b, ticks_name)) != RAID_OK)
        return add_failed(tab, st);
    if (finish)
        source_done(tab);
    return RAID_OK;
}

/* ---- sorting ---- */

typedef struct sort_key {
    uint32_t sym;
    int32_t date;
    size_t row; /* the order of addition: ties keep it */
} sort_key;

static int cmp_key(const void *a, const void *b)
{
    const sort_key *x = a, *y = b;
    if (x->sym != y->sym)
        return x->sym < y->sym ? -1 : 1;
    if (x->date != y->date)
        return x->date < y->date ? -1 : 1;
    return (x->row > y->row) - (x->row < y->row);
}

/* Put column c (elements of size sz) in the order of key; tmp has room for n elements. */
static void permute(void *c, void *tmp, size_t sz, const sort_key *key, size_t n)
{
    char *src = c, *dst = tmp;
    for (size_t i = 0; i < n; i++)
        memcpy(dst + i * sz, src + key[i].row * sz, sz);
    memcpy(c, tmp, n * sz);
}

raid_status raid_realized_table_finish(raid_realized_table *tab)
{
    static const char fn[] = "raid_realized_table_finish";
    if (!tab)
        return raidFail(NULL, RAID_EINVAL, "%s: NULL", fn);
    if (tab->failed)
        return raidFail(NULL, RAID_EINVAL, "%s: the table is incomplete: an earlier add failed: %s", fn, tab->failed);
    if (tab->finished)
        return raidFail(NULL, RAID_EINVAL, "%s: the table is already finished", fn);
    if (tab->src)
        return raidFail(NULL, RAID_EINVAL, "%s: a source is not yet exhausted (add until done, or with finish = 1)",
                         fn);
    const size_t n = tab->nrows;
    sort_key *key = malloc((n ? n : 1) * sizeof *key);
    void *tmp = malloc((n ? n : 1) * sizeof(double));
    if (!key || !tmp) {
        free(key);
        free(tmp);
        return raidFail(NULL, RAID_ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < n; i++)
        key[i] = (sort_key){tab->sym[i], tab->date[i], i};
    if (n)
        qsort(key, n, sizeof *key, cmp_key);
    if (n) {
        permute(tab->sym, tmp, sizeof *tab->sym, key, n);
        permute(tab->date, tmp, sizeof *tab->date, key, n);
        permute(tab->n, tmp, sizeof *tab->n, key, n);
        for (int k = 0; k < NCOL; k++)
            if (tab->col[k])
                permute(tab->col[k], tmp, sizeof *tab->col[k], key, n);
    }
    free(key);
    free(tmp);
    tab->finished = 1;
    return RAID_OK;
}

/* ---- accessors ---- */

size_t raid_realized_table_nrows(const raid_realized_table *tab) { return tab ? tab->nrows : 0; }

const char *raid_realized_table_symbol(const raid_realized_table *tab, size_t i)
{
    return tab && i < tab->nrows ? raidSymtabName(&tab->names, tab->sym[i]) : NULL;
}

const uint32_t *raid_realized_table_symbol_ids(const raid_realized_table *tab)
{
    return tab && tab->nrows ? tab->sym : NULL;
}

size_t raid_realized_table_nsymbols(const raid_realized_table *tab) { return tab ? tab->names.n : 0; }

const char *raid_realized_table_symbol_name(const raid_realized_table *tab, size_t j)
{
    return tab ? raidSymtabName(&tab->names, j) : NULL;
}

const int32_t *raid_realized_table_dates(const raid_realized_table *tab)
{
    return tab && tab->nrows ? tab->date : NULL;
}

const int64_t *raid_realized_table_n(const raid_realized_table *tab) { return tab && tab->nrows ? tab->n : NULL; }

const double *raid_realized_table_column(const raid_realized_table *tab, int k)
{
    return tab && tab->nrows && k >= 0 && k < (tab->noise ? NCOL : NM) ? tab->col[k] : NULL;
}

raid_status raid_realized_table_set_measures(raid_realized_table *tab, const char *list)
{
    static const char fn[] = "raid_realized_table_set_measures";
    if (!tab || !list)
        return raidFail(NULL, RAID_EINVAL, "%s: NULL", fn);
    if (tab->nrows || tab->cap || tab->src || tab->finished || tab->failed)
        return raidFail(NULL, RAID_EINVAL, "%s: the measures are chosen before the first add", fn);
    int cols[NCOL];
    size_t n = 0;
    const raid_status st = raid_realized_measures_parse(list, cols, &n);
    if (st != RAID_OK)
        return st;
    memcpy(tab->sel, cols, n * sizeof *cols);
    tab->nsel = n;
    tab->noise = 0;
    for (size_t j = 0; j < n; j++)
        tab->noise |= cols[j] >= NM;
    return RAID_OK;
}

size_t raid_realized_table_measures(const raid_realized_table *tab, int *cols)
{
    if (!tab)
        return 0;
    if (cols)
        memcpy(cols, tab->sel, tab->nsel * sizeof *cols);
    return tab->nsel;
}

/* The check's figures of n measures, tab's differences from maxdiff[first] on, against bound_of(p, k, 0):
 * the two reports below (the nine measures, the noise-robust ones). */
static void check_report(const raid_realized_table *tab, int first, int n,
                         double (*bound_of)(raid_precision, int, int64_t), double *max_diff, double *bound, int *ok)
{
    const raid_precision p = tab && tab->check_prec >= 0 ? (raid_precision)tab->check_prec : RAID_PREC_DF;
    for (int k = 0; k < n; k++) {
        const double d = tab ? tab->maxdiff[first + k] : 0, b = bound_of(p, k, 0);
        if (max_diff)
            max_diff[k] = d;
        if (bound)
            bound[k] = b;
        if (ok)
            ok[k] = d <= b;
    }
}

size_t raid_realized_table_check(const raid_realized_table *tab, double *max_diff, double *bound, int *ok)
{
    check_report(tab, 0, NM, raid_realized_bound, max_diff, bound, ok);
    return tab ? tab->nchecked : 0;
}

size_t raid_realized_table_check_noise(const raid_realized_table *tab, double *max_diff, double *bound, int *ok)
{
    check_report(tab, NM, RAID_REALIZED_NOISE_NMEASURES, raid_realized_noise_bound, max_diff, bound, ok);
    return tab ? tab->nz_checked : 0;
}

/* ---- the CSV ---- */

raid_status raid_realized_table_write_csv(const raid_realized_table *tab, FILE *f)
{
    static const char fn[] = "raid_realized_table_write_csv";
    if (!tab || !f)
        return raidFail(NULL, RAID_EINVAL, "%s: NULL", fn);
    if (!tab->finished)
        return raidFail(NULL, RAID_EINVAL, "%s: the table is not finished (raid_realized_table_finish sorts it)", fn);
    fputs("symbol,date,n", f);
    for (size_t j = 0; j < tab->nsel; j++)
        fprintf(f, ",%s", raid_realized_column_name(tab->sel[j]));
    fputc('\n', f);
    for (size_t i = 0; i < tab->nrows; i++) {
        const int32_t d = tab->date[i];
        raid_csv_put_field(f, raidSymtabName(&tab->names, tab->sym[i]));
        fprintf(f, ",%04d-%02d-%02d,%lld", d / 10000, d / 100 % 100, d % 100, (long long)tab->n[i]);
        for (size_t j = 0; j < tab->nsel; j++)
            raid_csv_put_value(f, tab->col[tab->sel[j]][i]);
        fputc('\n', f);
    }
    return raidCsvWritten(f);
}
