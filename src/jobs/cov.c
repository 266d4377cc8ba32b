/* The covariance job (raid_cov_job_*, include/raid/cov.h): the sampled prices of a source's segments
 * grouped by trading date, each complete date computed by raid_cov_compute (and projected on request),
 * written as long CSV or .npy as it completes, or kept for the accessors. The one loop that `raid cov`
 * and raid.cov run. */
#define _POSIX_C_SOURCE 200809L
#include "raid.h"
#include "core/internal.h"
#include "core/outfile.h"
#include "io/symtab.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One symbol's sampled prices on one date. */
typedef struct obs {
    int64_t *t;
    double *p;
    size_t n, cap;
} obs;

/* A date not yet computed: the observations of the job's symbols (nsym entries, grown with the symbols). */
typedef struct day {
    int32_t date;
    obs *sym;
    size_t nsym;
} day;

struct raid_cov_job {
    raid_cov_opts o;
    size_t parts;
    int listed;          /* the symbols are the options' list */
    RaidSymtab names;    /* the matrices' symbols */
    int32_t *passed;     /* per symbol (listed): the latest date it delivered, 0 before any */
    /* the source */
    const void *src;
    int src_done;
    int64_t *map;        /* source symbol -> job symbol, -1: not in the list */
    size_t map_n, map_cap;
    raid_batch b;
    /* open dates, in increasing order */
    day *days;
    size_t ndays, days_cap;
    /* results: per computed date */
    int32_t *dates;
    int64_t *n;
    double *eig;         /* parts per date */
    double *values;      /* parts N N per date, when no output */
    size_t nres, res_cap;
    size_t nsym_out;     /* N of the results (fixed by the first computed date) */
    /* output */
    FILE *f;
    raid_cov_format fmt;
    long npy_at;         /* the header's offset in f, -1 before it was written */
    int csv_head;        /* the CSV header is written */
    int finished, failed;
    char **list;         /* the copied list */
    /* the check (raid_cov_job_set_check) */
    raid_ctx *cpu;       /* the float64 cpu context, NULL: no check */
    size_t checked;      /* days compared */
    double max_diff;     /* the largest raid_cov_diff */
    raid_precision prec; /* the policy of the checked context */
};

void raid_cov_opts_init(raid_cov_opts *o)
{
    if (!o)
        return;
    memset(o, 0, sizeof *o);
    o->estimator = RAID_COV_RCOV;
    o->sync = RAID_COV_SYNC_PREVIOUS;
    o->min_obs = 2;
}

void raid_cov_job_destroy(raid_cov_job *job)
{
    if (!job)
        return;
    for (size_t d = 0; d < job->ndays; d++) {
        for (size_t s = 0; s < job->days[d].nsym; s++) {
            free(job->days[d].sym[s].t);
            free(job->days[d].sym[s].p);
        }
        free(job->days[d].sym);
    }
    free(job->days);
    raidSymtabFree(&job->names);
    free(job->passed);
    free(job->map);
    raid_batch_free(&job->b);
    free(job->dates);
    free(job->n);
    free(job->eig);
    free(job->values);
    for (size_t i = 0; job->list && i < job->o.nsymbols; i++)
        free(job->list[i]);
    free(job->list);
    free(job);
}

raid_status raid_cov_job_create(raid_cov_job **out, const raid_cov_opts *o)
{
    static const char fn[] = "raid_cov_job_create";
    if (!out)
        return raidFail(NULL, RAID_EINVAL, "%s: NULL", fn);
    *out = NULL;
    raid_cov_opts def;
    if (!o) {
        raid_cov_opts_init(&def);
        o = &def;
    }
    if (!raid_cov_parts(o->estimator))
        return raidFail(NULL, RAID_EINVAL, "%s: estimator %d out of range", fn, (int)o->estimator);
    if (o->sync != RAID_COV_SYNC_PREVIOUS && o->sync != RAID_COV_SYNC_REFRESH)
        return raidFail(NULL, RAID_EINVAL, "%s: synchronisation %d out of range", fn, (int)o->sync);
    if (o->min_obs < 1)
        return raidFail(NULL, RAID_EINVAL, "%s: min_obs %lld is below 1", fn, (long long)o->min_obs);
    if (o->nsymbols && !o->symbols)
        return raidFail(NULL, RAID_EINVAL, "%s: NULL list of symbols", fn);
    if (o->symbols && !o->nsymbols) /* a job of no symbol: nothing to compute (`raid cov --symbols ''` is refused) */
        return raidFail(NULL, RAID_EINVAL, "%s: an empty list of symbols (NULL: every symbol)", fn);
    raid_cov_job *j = calloc(1, sizeof *j);
    if (!j)
        return raidFail(NULL, RAID_ENOMEM, "out of memory");
    j->o = *o;
    j->parts = (size_t)raid_cov_parts(o->estimator);
    j->npy_at = -1;
    raidSymtabInit(&j->names);
    raid_batch_init(&j->b);
    j->listed = o->symbols != NULL;
    if (j->listed) {
        j->list = calloc(o->nsymbols ? o->nsymbols : 1, sizeof *j->list);
        j->passed = calloc(o->nsymbols ? o->nsymbols : 1, sizeof *j->passed);
        if (!j->list || !j->passed) {
            raid_cov_job_destroy(j);
            return raidFail(NULL, RAID_ENOMEM, "out of memory");
        }
        for (size_t i = 0; i < o->nsymbols; i++) {
            const char *s = o->symbols[i];
            if (!s || !*s) {
                raid_cov_job_destroy(j);
                return raidFail(NULL, RAID_EINVAL, "%s: symbol %zu of the list is %s", fn, i, s ? "empty" : "NULL");
            }
            if (raidSymtabFind(&j->names, s, strlen(s)) >= 0) {
                raid_cov_job_destroy(j);
                return raidFail(NULL, RAID_EINVAL, "symbol '%.64s' given twice in the list of symbols", s);
            }
            if (raidSymtabAdd(&j->names, s, strlen(s)) < 0 || !(j->list[i] = strdup(s))) {
                raid_cov_job_destroy(j);
                return raidFail(NULL, RAID_ENOMEM, "out of memory");
            }
        }
        j->o.symbols = (const char *const *)j->list;
    }
    *out = j;
    return RAID_OK;
}

raid_status raid_cov_job_set_output(raid_cov_job *job, FILE *f, raid_cov_format fmt)
{
    if (!job || !f)
        return raidFail(NULL, RAID_EINVAL, "raid_cov_job_set_output: NULL");
    if (fmt != RAID_COV_CSV && fmt != RAID_COV_NPY)
        return raidFail(NULL, RAID_EINVAL, "raid_cov_job_set_output: format %d out of range", (int)fmt);
    if (job->src || job->finished || job->failed || job->nres)
        return raidFail(NULL, RAID_EINVAL, "raid_cov_job_set_output: the output is set before the first add");
    job->f = f;
    job->fmt = fmt;
    return RAID_OK;
}

raid_status raid_cov_job_set_check(raid_cov_job *job, raid_ctx *cpu)
{
    if (!job || !cpu)
        return raidFail(NULL, RAID_EINVAL, "raid_cov_job_set_check: NULL");
    if (raid_ctx_backend(cpu) != RAID_BACKEND_CPU)
        return raidFail(NULL, RAID_EINVAL, "raid_cov_job_set_check: the check's context must be a cpu context");
    if (job->src || job->finished || job->failed || job->nres)
        return raidFail(NULL, RAID_EINVAL, "raid_cov_job_set_check: the check is set before the first add");
    job->cpu = cpu;
    return RAID_OK;
}

size_t raid_cov_job_check(const raid_cov_job *job, double *max_diff, double *bound)
{
    if (max_diff)
        *max_diff = job ? job->max_diff : 0.0;
    if (bound)
        *bound = job ? raid_cov_bound(job->prec, job->o.estimator) : NAN;
    return job ? job->checked : 0;
}

/* The check of one computed day v (on ctx): the cpu's matrices and the scales, the largest scaled
 * difference kept. */
static raid_status check_day(raid_cov_job *job, raid_ctx *ctx, size_t N, const int64_t *off, const int64_t *t,
                             const double *p, const double *v)
{
    const size_t sz = job->parts * N * N;
    double *c = malloc((sz ? sz : 1) * sizeof *c), *sc = malloc((sz ? sz : 1) * sizeof *sc);
    raid_status st = RAID_OK;
    if (!c || !sc)
        st = raidFail(ctx, RAID_ENOMEM, "out of memory");
    else if ((st = raid_cov_compute(job->cpu, job->o.estimator, job->o.sync, N, off, t, p, c, NULL)) != RAID_OK)
        st = raidFail(ctx, st, "cpu path: %s", raid_ctx_errmsg(job->cpu));
    else if ((st = raid_cov_scale(job->o.estimator, job->o.sync, N, off, t, p, sc)) != RAID_OK)
        st = raidFail(ctx, st, "%s", raid_errmsg());
    if (st == RAID_OK) {
        const double d = raid_cov_diff(v, c, sc, sz);
        job->max_diff = d > job->max_diff ? d : job->max_diff;
        job->prec = raid_ctx_precision(ctx);
        job->checked++;
    }
    free(c);
    free(sc);
    return st;
}

/* ---- output ---- */

/* The .npy header (format 1.0) of shape (days, [3,] N, N), padded to 128 bytes, at the file's current
 * position (the start) or rewritten there. */
static void npy_header(raid_cov_job *job, size_t ndays)
{
    const uint16_t one = 1;
    unsigned char le;
    memcpy(&le, &one, 1);
    char dict[118];
    const size_t N = job->nsym_out;
    int len;
    if (job->parts == 3)
        len = snprintf(dict, sizeof dict, "{'descr': '%cf8', 'fortran_order': False, 'shape': (%zu, 3, %zu, %zu), }",
                       le ? '<' : '>', ndays, N, N);
    else
        len = snprintf(dict, sizeof dict, "{'descr': '%cf8', 'fortran_order': False, 'shape': (%zu, %zu, %zu), }",
                       le ? '<' : '>', ndays, N, N);
    for (int i = len; i < 117; i++)
        dict[i] = ' ';
    dict[117] = '\n';
    const unsigned char head[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, 118, 0};
    fwrite(head, 1, sizeof head, job->f);
    fwrite(dict, 1, sizeof dict, job->f);
}

static void csv_header(raid_cov_job *job)
{
    job->csv_head = 1;
    fputs(job->parts == 3 ? "date,symbol_i,symbol_j,part,value\n" : "date,symbol_i,symbol_j,value\n", job->f);
}

/* Write date `date`'s matrices v (parts x N x N) to the output. */
static raid_status write_day(raid_cov_job *job, int32_t date, const double *v)
{
    const size_t N = job->nsym_out;
    if (job->fmt == RAID_COV_NPY) {
        if (job->npy_at < 0) {
            job->npy_at = ftell(job->f);
            npy_header(job, 0);
        }
        fwrite(v, sizeof *v, job->parts * N * N, job->f);
    } else {
        static const char part_name[3] = {'P', 'N', 'M'};
        if (!job->csv_head)
            csv_header(job);
        char ds[16];
        snprintf(ds, sizeof ds, "%04d-%02d-%02d", date / 10000, date / 100 % 100, date % 100);
        for (size_t q = 0; q < job->parts; q++)
            for (size_t i = 0; i < N; i++)
                for (size_t k = q == 2 ? 0 : i; k < N; k++) {
                    fputs(ds, job->f);
                    fputc(',', job->f);
                    raid_csv_put_field(job->f, raidSymtabName(&job->names, i));
                    fputc(',', job->f);
                    raid_csv_put_field(job->f, raidSymtabName(&job->names, k));
                    if (job->parts == 3)
                        fprintf(job->f, ",%c", part_name[q]);
                    raid_csv_put_value(job->f, v[q * N * N + i * N + k]);
                    fputc('\n', job->f);
                }
    }
    return ferror(job->f) ? raidFail(NULL, RAID_EIO, "write error") : RAID_OK;
}

/* ---- the dates ---- */

static int grow(void *pp, size_t *cap, size_t n, size_t sz)
{
    if (n <= *cap)
        return 0;
    size_t c = *cap ? *cap : 16;
    while (c < n)
        c *= 2;
    if (raidRegrow(pp, c, sz))
        return -1;
    *cap = c;
    return 0;
}

/* Compute the oldest open date and drop it. */
static raid_status compute_first(raid_cov_job *job, raid_ctx *ctx)
{
    day *d = &job->days[0];
    if (job->nres == 0)
        job->nsym_out = job->names.n;
    const size_t N = job->nsym_out, P = job->parts;
    size_t total = 0;
    for (size_t s = 0; s < d->nsym && s < N; s++)
        if ((int64_t)d->sym[s].n >= job->o.min_obs)
            total += d->sym[s].n;
    int64_t *off = malloc((N + 1) * sizeof *off), *t = malloc((total ? total : 1) * sizeof *t);
    double *p = malloc((total ? total : 1) * sizeof *p), *v = malloc((N > 0 ? P * N * N : 1) * sizeof *v);
    raid_status st = RAID_OK;
    if (!off || !t || !p || !v) {
        st = raidFail(ctx, RAID_ENOMEM, "out of memory");
        goto out;
    }
    off[0] = 0;
    for (size_t s = 0; s < N; s++) {
        size_t k = (size_t)off[s];
        if (s < d->nsym && (int64_t)d->sym[s].n >= job->o.min_obs) {
            memcpy(t + k, d->sym[s].t, d->sym[s].n * sizeof *t);
            memcpy(p + k, d->sym[s].p, d->sym[s].n * sizeof *p);
            k += d->sym[s].n;
        }
        off[s + 1] = (int64_t)k;
    }
    raid_cov_info info;
    if ((st = raid_cov_compute(ctx, job->o.estimator, job->o.sync, N, off, t, p, v, &info)) != RAID_OK)
        goto out;
    if (job->cpu && (st = check_day(job, ctx, N, off, t, p, v)) != RAID_OK)
        goto out;
    if (job->o.psd_project)
        for (size_t q = 0; q < P && q < 2; q++)
            /* a matrix already PSD (its smallest eigenvalue, computed above, not negative) is its own nearest:
             * left as it is (the projection's round trip changed last bits of such matrices) */
            if (!(info.min_eig[q] >= 0.0) && (st = raid_cov_psd_project(v + q * N * N, N, NULL)) != RAID_OK) {
                st = raidFail(ctx, st, "%s", raid_errmsg());
                goto out;
            }
    if (grow(&job->dates, &job->res_cap, job->nres + 1, sizeof *job->dates)) {
        st = raidFail(ctx, RAID_ENOMEM, "out of memory");
        goto out;
    }
    if (raidRegrow(&job->n, job->res_cap, sizeof *job->n) || raidRegrow(&job->eig, job->res_cap * P, sizeof *job->eig) ||
        (!job->f && raidRegrow(&job->values, N > 0 ? job->res_cap * P * N * N : 1, sizeof *v))) {
        st = raidFail(ctx, RAID_ENOMEM, "out of memory");
        goto out;
    }
    const size_t i = job->nres;
    job->dates[i] = d->date;
    job->n[i] = info.n;
    for (size_t q = 0; q < P; q++)
        job->eig[i * P + q] = info.min_eig[q];
    if (job->f) {
        if ((st = write_day(job, d->date, v)) != RAID_OK) { /* the message on ctx, where the caller reads it */
            st = raidFail(ctx, st, "%s", raid_errmsg());
            goto out;
        }
    } else {
        memcpy(job->values + i * P * N * N, v, P * N * N * sizeof *v);
    }
    job->nres++;
    for (size_t s = 0; s < d->nsym; s++) {
        free(d->sym[s].t);
        free(d->sym[s].p);
    }
    free(d->sym);
    memmove(job->days, job->days + 1, (job->ndays - 1) * sizeof *job->days);
    job->ndays--;
out:
    free(off);
    free(t);
    free(p);
    free(v);
    return st;
}

/* The open date `date`, created in order if new; NULL when out of memory. */
static day *day_of(raid_cov_job *job, int32_t date)
{
    size_t i = job->ndays;
    while (i > 0 && job->days[i - 1].date > date)
        i--;
    if (i > 0 && job->days[i - 1].date == date)
        return &job->days[i - 1];
    if (grow(&job->days, &job->days_cap, job->ndays + 1, sizeof *job->days))
        return NULL;
    memmove(job->days + i + 1, job->days + i, (job->ndays - i) * sizeof *job->days);
    job->days[i] = (day){date, NULL, 0};
    job->ndays++;
    return &job->days[i];
}

/* The job's symbol of the source's symbol i: the source's symbols up to i named in order (their order of
 * first appearance); -1 for a symbol not in the list; -2 when out of memory. */
static int64_t symbol_of(raid_cov_job *job, uint32_t i, const char *(*name)(const void *, uint32_t))
{
    while (job->map_n <= i) {
        if (grow(&job->map, &job->map_cap, job->map_n + 1, sizeof *job->map))
            return -2;
        const char *s = name(job->src, (uint32_t)job->map_n);
        const size_t len = s ? strlen(s) : 0;
        int64_t id = raidSymtabFind(&job->names, s ? s : "", len);
        if (id < 0 && !job->listed && (id = raidSymtabAdd(&job->names, s ? s : "", len)) < 0)
            return -2;
        job->map[job->map_n++] = id;
    }
    return job->map[i];
}

static const char *reader_name(const void *src, uint32_t i) { return raid_reader_symbol(src, i); }
static const char *ticks_name(const void *src, uint32_t i) { return raid_ticks_symbol(src, i); }

/* Take the batch's segments into their dates, then compute the dates now complete (all of them at the
 * end of the source, when done). */
static raid_status take_batch(raid_cov_job *job, raid_ctx *ctx, const char *(*name)(const void *, uint32_t), int done)
{
    const raid_batch *b = &job->b;
    if (b->nseg && (!b->first_price || !b->first_time_us))
        return raidFail(ctx, RAID_EINVAL, "raid cov: the source was opened without samples (raid_read_opts.samples = 1)");
    for (size_t s = 0; s < b->nseg; s++) {
        const int64_t js = symbol_of(job, b->symbol[s], name);
        if (js == -2)
            return raidFail(ctx, RAID_ENOMEM, "out of memory");
        if (js < 0)
            continue;
        const int32_t date = b->date[s];
        if (job->listed && date > job->passed[js])
            job->passed[js] = date;
        day *d = day_of(job, date);
        if (!d)
            return raidFail(ctx, RAID_ENOMEM, "out of memory");
        if ((size_t)js >= d->nsym) {
            obs *g = realloc(d->sym, ((size_t)js + 1) * sizeof *g);
            if (!g)
                return raidFail(ctx, RAID_ENOMEM, "out of memory");
            memset(g + d->nsym, 0, ((size_t)js + 1 - d->nsym) * sizeof *g);
            d->sym = g;
            d->nsym = (size_t)js + 1;
        }
        obs *o = &d->sym[js];
        const int64_t a = b->offsets[s], e = b->offsets[s + 1];
        const size_t n = (size_t)(e - a) + 1;
        o->t = malloc(n * sizeof *o->t);
        o->p = malloc(n * sizeof *o->p);
        if (!o->t || !o->p)
            return raidFail(ctx, RAID_ENOMEM, "out of memory");
        o->n = o->cap = n;
        o->t[0] = b->first_time_us[s];
        o->p[0] = b->first_price[s];
        memcpy(o->t + 1, b->time_us + a, (n - 1) * sizeof *o->t);
        memcpy(o->p + 1, b->price + a, (n - 1) * sizeof *o->p);
        for (size_t k = 1; k < n; k++)
            if (o->t[k] < o->t[k - 1]) { /* local time going back within a day: a change of daylight saving time */
                const int64_t us = 1000000, t0 = o->t[k - 1], t1 = o->t[k];
                return raidFail(ctx, RAID_EINVAL,
                                "symbol '%.64s', %04d-%02d-%02d: the local time goes back from %02lld:%02lld:%02lld to "
                                "%02lld:%02lld:%02lld within the day (a change of daylight saving time): the symbols' "
                                "times cannot be put in one order; use --tz UTC or a session without the change",
                                raidSymtabName(&job->names, (size_t)js), date / 10000, date / 100 % 100, date % 100,
                                (long long)(t0 / us / 3600 % 24), (long long)(t0 / us / 60 % 60),
                                (long long)(t0 / us % 60), (long long)(t1 / us / 3600 % 24),
                                (long long)(t1 / us / 60 % 60), (long long)(t1 / us % 60));
            }
    }
    raid_status st = RAID_OK;
    while (st == RAID_OK && job->ndays) {
        int complete = done;
        if (!complete && job->listed) { /* every listed symbol has delivered a later date */
            complete = 1;
            for (size_t i = 0; i < job->o.nsymbols && complete; i++)
                complete = job->passed[i] > job->days[0].date;
        }
        if (!complete)
            break;
        st = compute_first(job, ctx);
    }
    return st;
}

static raid_status add_check(raid_cov_job *job, raid_ctx *ctx, const void *src, const char *fn)
{
    if (!job || !src || !ctx)
        return raidFail(ctx, RAID_EINVAL, "%s: NULL argument", fn);
    if (job->failed)
        return raidFail(ctx, RAID_EINVAL, "%s: an earlier call failed", fn);
    if (job->finished || job->src_done || (job->src && job->src != src))
        return raidFail(ctx, RAID_EINVAL, "%s: the job takes one source, until it is exhausted", fn);
    return RAID_OK;
}

raid_status raid_cov_job_add_reader(raid_cov_job *job, raid_ctx *ctx, raid_reader *rd, int *done)
{
    static const char fn[] = "raid_cov_job_add_reader";
    raid_status st = add_check(job, ctx, rd, fn);
    if (st == RAID_OK && !done)
        st = raidFail(ctx, RAID_EINVAL, "%s: NULL argument", fn);
    if (st != RAID_OK)
        return st;
    job->src = rd;
    *done = 0;
    raid_batch_clear(&job->b);
    st = raid_reader_next(rd, &job->b, (size_t)1 << 22, done);
    if (st != RAID_OK)
        st = raidFail(ctx, st, "%s", raid_errmsg());
    else
        st = take_batch(job, ctx, reader_name, *done);
    if (st != RAID_OK)
        job->failed = 1;
    job->src_done = *done;
    return st;
}

raid_status raid_cov_job_add_ticks(raid_cov_job *job, raid_ctx *ctx, raid_ticks *tk, int finish)
{
    static const char fn[] = "raid_cov_job_add_ticks";
    raid_status st = add_check(job, ctx, tk, fn);
    if (st != RAID_OK)
        return st;
    job->src = tk;
    raid_batch_clear(&job->b);
    st = raid_ticks_take(tk, &job->b, finish);
    if (st != RAID_OK)
        st = raidFail(ctx, st, "%s", raid_errmsg());
    else
        st = take_batch(job, ctx, ticks_name, finish);
    if (st != RAID_OK)
        job->failed = 1;
    job->src_done = finish;
    return st;
}

raid_status raid_cov_job_finish(raid_cov_job *job)
{
    if (!job)
        return raidFail(NULL, RAID_EINVAL, "raid_cov_job_finish: NULL");
    if (job->failed || job->finished || (job->src && !job->src_done))
        return raidFail(NULL, RAID_EINVAL, "raid_cov_job_finish: %s", job->failed ? "an earlier call failed"
                        : job->finished ? "finished twice" : "the source is not exhausted");
    if (job->nres == 0)
        job->nsym_out = job->names.n;
    if (job->f && job->fmt == RAID_COV_NPY) {
        if (job->npy_at < 0) {
            job->npy_at = ftell(job->f);
            npy_header(job, 0);
        }
        const long end = ftell(job->f);
        if (fseek(job->f, job->npy_at, SEEK_SET) != 0)
            return raidFail(NULL, RAID_EIO, "the .npy output is not seekable");
        npy_header(job, job->nres);
        fseek(job->f, end, SEEK_SET);
    } else if (job->f && !job->csv_head) {
        csv_header(job);
    }
    job->finished = 1;
    return job->f && ferror(job->f) ? raidFail(NULL, RAID_EIO, "write error") : RAID_OK;
}

/* ---- accessors ---- */

size_t raid_cov_job_ndays(const raid_cov_job *job) { return job && job->finished ? job->nres : 0; }
size_t raid_cov_job_nsymbols(const raid_cov_job *job) { return job ? job->nsym_out : 0; }
const char *raid_cov_job_symbol(const raid_cov_job *job, size_t i)
{
    return job && i < job->nsym_out ? raidSymtabName(&job->names, i) : NULL;
}
const int32_t *raid_cov_job_dates(const raid_cov_job *job) { return job && job->nres ? job->dates : NULL; }
const double *raid_cov_job_values(const raid_cov_job *job) { return job && job->nres && !job->f ? job->values : NULL; }
const double *raid_cov_job_min_eig(const raid_cov_job *job) { return job && job->nres ? job->eig : NULL; }
const int64_t *raid_cov_job_n(const raid_cov_job *job) { return job && job->nres ? job->n : NULL; }

raid_status raid_cov_job_write_symbols(const raid_cov_job *job, FILE *f)
{
    if (!job || !f || !job->finished)
        return raidFail(NULL, RAID_EINVAL, "raid_cov_job_write_symbols: %s", job && f ? "not finished" : "NULL");
    for (size_t i = 0; i < job->nsym_out; i++) {
        raid_csv_put_field(f, raidSymtabName(&job->names, i));
        fputc('\n', f);
    }
    return raidCsvWritten(f);
}

raid_status raid_cov_job_write_dates(const raid_cov_job *job, FILE *f)
{
    if (!job || !f || !job->finished)
        return raidFail(NULL, RAID_EINVAL, "raid_cov_job_write_dates: %s", job && f ? "not finished" : "NULL");
    for (size_t i = 0; i < job->nres; i++) {
        const int32_t d = job->dates[i];
        fprintf(f, "%04d-%02d-%02d\n", d / 10000, d / 100 % 100, d % 100);
    }
    return raidCsvWritten(f);
}

raid_status raid_cov_job_write_info(const raid_cov_job *job, FILE *f)
{
    if (!job || !f || !job->finished)
        return raidFail(NULL, RAID_EINVAL, "raid_cov_job_write_info: %s", job && f ? "not finished" : "NULL");
    fputs(job->parts == 3 ? "date,n,min_eig_P,min_eig_N\n" : "date,n,min_eig\n", f);
    for (size_t i = 0; i < job->nres; i++) {
        const int32_t d = job->dates[i];
        fprintf(f, "%04d-%02d-%02d,%lld", d / 10000, d / 100 % 100, d % 100, (long long)job->n[i]);
        for (size_t q = 0; q < (job->parts == 3 ? 2 : 1); q++)
            raid_csv_put_value(f, job->eig[i * job->parts + q]);
        fputc('\n', f);
    }
    return raidCsvWritten(f);
}
