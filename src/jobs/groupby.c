/* The group-by job on a CSV file (raid groupby; include/raid/groupby.h raid_groupby_table_*,
 * docs/groupby.md "raid groupby"): the aggregation list parsed, the key column (int64 when every key is an
 * integer, else float64 keys: raid_groupby_compute_f64) and every value
 * column named by it (decimal numbers; an empty field is a null) read with the table reader (table.c:
 * FILE:LINE:COL errors, bounded batches), one raid_groupby_compute per value column (and one for a bare
 * count), the columns joined by key (every call sees the same keys, so the same groups) and written. */
#define _POSIX_C_SOURCE 200809L
#include "core/internal.h"
#include "core/outfile.h"
#include "io/table.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define TABLE_ROWS 8192 /* rows per batch of the table reader */

/* One output column: aggregation agg of value column col (-1: a bare count, rows per group). */
typedef struct gb_out {
    raid_agg agg;
    int col;
} gb_out;

struct raid_groupby_table {
    char *by;                  /* the key column's name */
    int fkeys;                 /* float64 keys (a key that is not an integer); else int64 */
    size_t nout, ncols;        /* output columns; distinct value columns */
    gb_out *out;
    char **cols;               /* ncols value column names */
    raid_groupby **res;        /* ncols results, then (last) the bare count's when asked for */
    size_t nres;
    RaidStrlist notices;      /* the table reader's (raid_groupby_table_notice) */
};

void raid_groupby_table_destroy(raid_groupby_table *t)
{
    if (!t)
        return;
    for (size_t j = 0; j < t->ncols; j++)
        free(t->cols[j]);
    for (size_t j = 0; j < t->nres; j++)
        raid_groupby_destroy(t->res[j]);
    free(t->cols), free(t->res), free(t->out), free(t->by);
    raidStrlistFree(&t->notices);
    free(t);
}

/* Parse "AGG:COL,...,count" into t (out, cols). Errors: RAID_EINVAL with the item. */
static raid_status parse_aggs(raid_groupby_table *t, const char *spec)
{
    size_t cap = 1;
    for (const char *p = spec; *p; p++)
        cap += *p == ',';
    if (!(t->out = calloc(cap, sizeof *t->out)) || !(t->cols = calloc(cap, sizeof *t->cols)))
        return raidFail(NULL, RAID_ENOMEM, "out of memory");
    const char *p = spec;
    for (;;) {
        const char *end = strchr(p, ','), *stop = end ? end : p + strlen(p);
        const char *colon = memchr(p, ':', (size_t)(stop - p));
        char name[16];
        const size_t alen = (size_t)((colon ? colon : stop) - p);
        snprintf(name, sizeof name, "%.*s", alen < sizeof name ? (int)alen : 15, p);
        raid_agg a;
        if (alen >= sizeof name || raid_agg_parse(name, &a) != RAID_OK)
            return raidFail(NULL, RAID_EINVAL, "bad aggregation '%s' (expected count, sum, mean, min, max, first or last)",
                             RAID_SHOW(p, (size_t)(stop - p)));
        int col = -1;
        if (colon) {
            const size_t clen = (size_t)(stop - colon - 1);
            if (clen == 0)
                return raidFail(NULL, RAID_EINVAL, "bad aggregation '%s' (an empty column name)", RAID_SHOW(p, (size_t)(stop - p)));
            for (size_t j = 0; j < t->ncols && col < 0; j++)
                if (strlen(t->cols[j]) == clen && !strncasecmp(t->cols[j], colon + 1, clen)) /* as the header matches */
                    col = (int)j;
            if (col < 0) {
                if (!(t->cols[t->ncols] = strndup(colon + 1, clen)))
                    return raidFail(NULL, RAID_ENOMEM, "out of memory");
                col = (int)t->ncols++;
            }
        } else if (a != RAID_AGG_COUNT) {
            return raidFail(NULL, RAID_EINVAL, "bad aggregation '%s' (%s needs a column: %s:COL)", RAID_SHOW(p, (size_t)(stop - p)),
                             name, name);
        }
        for (size_t j = 0; j < t->nout; j++) /* twice would write two columns of one name */
            if (t->out[j].agg == a && t->out[j].col == col)
                return raidFail(NULL, RAID_EINVAL, "aggregation '%s' given twice", RAID_SHOW(p, (size_t)(stop - p)));
        if (t->nout == RAID_GROUPBY_MAX_AGGS)
            return raidFail(NULL, RAID_EINVAL, "more than %d aggregations", RAID_GROUPBY_MAX_AGGS);
        t->out[t->nout++] = (gb_out){a, col};
        if (!end)
            break;
        p = end + 1;
    }
    return RAID_OK;
}

/* The key column as read so far: int64 while every key is an integer (keys), float64 always (fkeys); the
 * first integer beyond int64 (an error only if every key is an integer). */
typedef struct gb_keys {
    int64_t *keys;
    double *fkeys;
    int all_int;
    uint64_t big_line;
    char big_text[RAID_SHOW_CAP];
} gb_keys;

/* Append batch b's rows to the arrays (keys, then per value column values and validity). */
static raid_status append(const RaidTbatch *b, size_t ncols, size_t *n, size_t *cap, gb_keys *kc, double **v,
                          uint8_t **valid)
{
    if (!b->nrows) /* a file with a header alone: memcpy of no bytes from a NULL column is undefined (UBSan) */
        return RAID_OK;
    if (*n + b->nrows > *cap) {
        size_t c = *cap ? *cap : 65536;
        while (c < *n + b->nrows)
            c *= 2;
        if (raidRegrow(&kc->keys, c, sizeof *kc->keys) || raidRegrow(&kc->fkeys, c, sizeof *kc->fkeys))
            return raidFail(NULL, RAID_ENOMEM, "out of memory");
        for (size_t j = 0; j < ncols; j++)
            if (raidRegrow(&v[j], c, sizeof *v[j]) || raidRegrow(&valid[j], c, sizeof *valid[j]))
                return raidFail(NULL, RAID_ENOMEM, "out of memory");
        *cap = c;
    }
    const RaidTcol *kcol = &b->col[0];
    memcpy(kc->fkeys + *n, kcol->f64, b->nrows * sizeof *kc->fkeys);
    for (size_t i = 0; i < b->nrows && kc->all_int; i++) {
        size_t len;
        const char *s = raidTcolText(kcol, i, &len);
        const int r = raidTableNumberInt(s, len, &kc->keys[*n + i]);
        if (r == 0)
            kc->all_int = 0;
        else if (r < 0 && !kc->big_line)
            kc->big_line = kcol->line[i], raid_show_text(kc->big_text, s, len);
    }
    for (size_t j = 0; j < ncols; j++) {
        const RaidTcol *c = &b->col[1 + j];
        memcpy(v[j] + *n, c->f64, b->nrows * sizeof *v[j]);
        for (size_t i = 0; i < b->nrows; i++)
            valid[j][*n + i] = !c->missing[i];
    }
    *n += b->nrows;
    return RAID_OK;
}

raid_status raid_groupby_run_csv(raid_ctx *ctx, const char *path, const char *by, const char *aggs, unsigned flags,
                                 raid_groupby_table **out)
{
    if (!out)
        return raidFail(ctx, RAID_EINVAL, "raid_groupby_run_csv: out is NULL");
    *out = NULL;
    if (!path || !by || !*by || !aggs)
        return raidFail(ctx, RAID_EINVAL, "raid_groupby_run_csv: NULL or empty argument");
    raid_groupby_table *t = calloc(1, sizeof *t);
    if (!t)
        return raidFail(ctx, RAID_ENOMEM, "out of memory");
    raid_status st = (t->by = strdup(by)) ? parse_aggs(t, aggs) : raidFail(NULL, RAID_ENOMEM, "out of memory");
    if (st != RAID_OK) {
        raid_groupby_table_destroy(t);
        return raidFail(ctx, st, "%s", raid_errmsg());
    }
    RaidTspec *spec = calloc(1 + t->ncols, sizeof *spec);
    double **v = calloc(t->ncols + 1, sizeof *v);
    uint8_t **valid = calloc(t->ncols + 1, sizeof *valid);
    gb_keys kc = {.all_int = 1};
    size_t n = 0, cap = 0;
    RaidTable *tab = NULL;
    RaidTbatch b = {0};
    if (!spec || !v || !valid) {
        st = raidFail(NULL, RAID_ENOMEM, "out of memory");
        goto done;
    }
    spec[0] = (RaidTspec){t->by, "key", RAID_T_F64, RAID_T_KEEP_TEXT | RAID_T_SPECIALS};
    for (size_t j = 0; j < t->ncols; j++)
        spec[1 + j] = (RaidTspec){t->cols[j], "value", RAID_T_F64, RAID_T_EMPTY_NA | RAID_T_SPECIALS};
    if ((st = raidTableOpen(&tab, path, spec, 1 + t->ncols)) != RAID_OK || (st = raidTbatchInit(&b, tab)) != RAID_OK)
        goto done;
    raidTableSetProgress(tab, ctx);
    for (int fin = 0; !fin && st == RAID_OK;) {
        const raid_status rs = raidTableRead(tab, &b, TABLE_ROWS, &fin);
        if ((st = append(&b, t->ncols, &n, &cap, &kc, v, valid)) == RAID_OK)
            st = rs;
    }
    if (st == RAID_OK && kc.all_int && kc.big_line)
        st = raidTableFail(tab, kc.big_line, raidTableCol(tab, 0),
                             "integer key '%s' is beyond the int64 range (integer keys are int64)", kc.big_text);
    if (st == RAID_OK)
        st = raidTableCopyNotices(tab, &t->notices);
    if (st != RAID_OK)
        goto done;
    t->fkeys = !kc.all_int;
    /* one call per value column with its aggregations; a bare count: the rows per group */
    int bare = 0;
    for (size_t k = 0; k < t->nout; k++)
        bare |= t->out[k].col < 0;
    if (!(t->res = calloc(t->ncols + 1, sizeof *t->res))) {
        st = raidFail(NULL, RAID_ENOMEM, "out of memory");
        goto done;
    }
    raid_agg list[RAID_GROUPBY_MAX_AGGS];
    for (size_t j = 0; j <= t->ncols && st == RAID_OK; j++) {
        size_t na = 0;
        for (size_t k = 0; k < t->nout && na < RAID_GROUPBY_MAX_AGGS; k++)
            if (t->out[k].col == (j < t->ncols ? (int)j : -1))
                list[na++] = t->out[k].agg;
        if (j == t->ncols && !bare)
            break;
        int counted = 0; /* a value column's counts tell a group without a value (an empty field) from NaN */
        for (size_t q = 0; q < na; q++)
            counted |= list[q] == RAID_AGG_COUNT || list[q] == RAID_AGG_MEAN;
        if (j < t->ncols && !counted && na < RAID_GROUPBY_MAX_AGGS)
            list[na++] = RAID_AGG_COUNT; /* after the column's outputs: their positions stay */
        const double *x = j < t->ncols ? v[j] : NULL;
        const uint8_t *ok = j < t->ncols ? valid[j] : NULL;
        st = t->fkeys ? raid_groupby_compute_f64(ctx, kc.fkeys, NULL, x, ok, n, list, na ? na : 1, flags, &t->res[j])
                      : raid_groupby_compute(ctx, kc.keys, x, ok, n, list, na ? na : 1, flags, &t->res[j]);
        if (st != RAID_OK)
            st = raidFail(NULL, st, "%s", ctx ? raid_ctx_errmsg(ctx) : raid_errmsg());
        t->nres = j + 1;
    }
done:
    st = raidTableJobStatus(ctx, tab, st);
    raidTbatchFree(&b);
    raidTableClose(tab);
    for (size_t j = 0; v && valid && j < t->ncols; j++)
        free(v[j]), free(valid[j]);
    free(v), free(valid), free(kc.keys), free(kc.fkeys), free(spec);
    if (st != RAID_OK) {
        raid_groupby_table_destroy(t);
        return st;
    }
    *out = t;
    return RAID_OK;
}

size_t raid_groupby_table_notice_count(const raid_groupby_table *t) { return t ? t->notices.n : 0; }

const char *raid_groupby_table_notice(const raid_groupby_table *t, size_t i)
{
    return t ? raidStrlistGet(&t->notices, i) : NULL;
}

raid_status raid_groupby_table_write_csv(const raid_groupby_table *t, FILE *f)
{
    if (!t || !f || !t->nres)
        return raidFail(NULL, RAID_EINVAL, "raid_groupby_table_write_csv: NULL");
    raid_csv_put_field(f, t->by);
    for (size_t k = 0; k < t->nout; k++) {
        fputc(',', f);
        if (t->out[k].col < 0) {
            fputs("count", f);
            continue;
        }
        char name[512];
        snprintf(name, sizeof name, "%s_%s", raid_agg_name(t->out[k].agg), t->cols[t->out[k].col]);
        raid_csv_put_field(f, name);
    }
    fputc('\n', f);
    const raid_groupby *g0 = t->res[0] ? t->res[0] : t->res[t->ncols];
    const size_t ng = raid_groupby_ngroups(g0);
    const int64_t *keys = raid_groupby_keys(g0);
    const double *fkeys = raid_groupby_keys_f64(g0);
    for (size_t i = 0; i < ng; i++) {
        char kt[RAID_F64_TEXT];
        if (!t->fkeys)
            fprintf(f, "%lld", (long long)keys[i]);
        else /* the key +0.0 for 0.0 and -0.0; NaN's key (every NaN, "nan" and "-nan") the quiet NaN "nan" */
            fputs(raidF64Text(kt, fkeys[i]), f);
        for (size_t k = 0; k < t->nout; k++) {
            const int col = t->out[k].col;
            const raid_groupby *g = t->res[col < 0 ? t->ncols : (size_t)col];
            /* the aggregation's position in its call: the k-th output of the column in spec order */
            size_t j = 0;
            for (size_t q = 0; q < k; q++)
                j += t->out[q].col == col;
            const double x = raid_groupby_column(g, j)[i];
            if (t->out[k].agg == RAID_AGG_COUNT)
                fprintf(f, ",%lld", (long long)x);
            else if (t->out[k].agg != RAID_AGG_SUM && raid_groupby_counts(g)[i] == 0)
                fputc(',', f); /* no value in the group: a null, an empty field (a sum of none is 0) */
            else
                raidCsvPutF64(f, x); /* a value: inf, -inf and NaN written as such (a NaN value, an
                                           infinite sum, inf - inf) */
        }
        fputc('\n', f);
    }
    return raidCsvWritten(f);
}
