/* The quantile job on a CSV file (raid quantile; include/raid/select.h raid_quantile_*, docs/column.md
 * "raid quantile"): the value column (and the key column with --by) read with the table reader (empty
 * value fields are nulls, dropped; inf and nan are values), the rows sorted stably by key
 * (raid_sort_i64_f64 with the row numbers as payload: the groups become segments), then
 * raid_select_quantile on the segments, on the context's device or the cpu path. */
#define _POSIX_C_SOURCE 200809L
#include "core/internal.h"
#include "core/outfile.h"
#include "io/table.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TABLE_ROWS 8192
#define QUANTILE_MAX_Q 1024

struct raid_quantile_table {
    char *by;          /* the key column, NULL without --by */
    char **qtext;      /* nq texts of the q, as given */
    size_t nq, ngroups;
    int64_t *keys;     /* ngroups keys (by) */
    double *out;       /* ngroups x nq quantiles */
    uint8_t *none;     /* ngroups: 1 for a group without a value (its quantiles NaN, written empty) */
    RaidStrlist notices; /* the table reader's (raid_quantile_table_notice) */
};

void raid_quantile_table_destroy(raid_quantile_table *t)
{
    if (!t)
        return;
    for (size_t j = 0; j < t->nq; j++)
        free(t->qtext[j]);
    free(t->qtext), free(t->by), free(t->keys), free(t->out), free(t->none);
    raidStrlistFree(&t->notices);
    free(t);
}

/* "0.01,0.5,0.99" into q[] (each a decimal in [0, 1], each number once: 0.5 and 0.50 are one q) and the
 * texts. Errors: RAID_EINVAL with the item, RAID_ENOMEM. */
static raid_status parse_q(raid_quantile_table *t, const char *s, double **q)
{
    size_t cap = 1;
    for (const char *p = s; *p; p++)
        cap += *p == ',';
    if (cap > QUANTILE_MAX_Q)
        return raidFail(NULL, RAID_EINVAL, "more than %d quantiles", QUANTILE_MAX_Q);
    if (!(*q = malloc(cap * sizeof **q)) || !(t->qtext = calloc(cap, sizeof *t->qtext)))
        return raidFail(NULL, RAID_ENOMEM, "out of memory");
    for (const char *p = s;;) {
        const char *end = strchr(p, ','), *stop = end ? end : p + strlen(p);
        char buf[64], *e = NULL;
        const size_t len = (size_t)(stop - p);
        snprintf(buf, sizeof buf, "%.*s", (int)(len < sizeof buf ? len : sizeof buf - 1), p);
        const double v = len && len < sizeof buf && strspn(buf, "0123456789.eE+-") == len ? strtod(buf, &e) : NAN;
        if (!e || *e || !(v >= 0.0 && v <= 1.0))
            return raidFail(NULL, RAID_EINVAL, "bad quantile '%s' (expected a number in [0, 1])", RAID_SHOW(p, len));
        for (size_t j = 0; j < t->nq; j++) /* twice would write two columns of one q (and, as given, one name) */
            if ((*q)[j] == v)
                return strcmp(t->qtext[j], buf) == 0
                           ? raidFail(NULL, RAID_EINVAL, "quantile '%s' given twice", buf)
                           : raidFail(NULL, RAID_EINVAL, "quantile '%s' given twice (the same q as '%s')", buf, t->qtext[j]);
        if (!(t->qtext[t->nq] = strdup(buf)))
            return raidFail(NULL, RAID_ENOMEM, "out of memory");
        (*q)[t->nq++] = v;
        if (!end)
            return RAID_OK;
        p = end + 1;
    }
}

raid_status raid_quantile_run_csv(raid_ctx *ctx, const char *path, const char *col, const char *qs, const char *by,
                                  raid_quantile_table **out)
{
    if (!out)
        return raidFail(ctx, RAID_EINVAL, "raid_quantile_run_csv: out is NULL");
    *out = NULL;
    if (!path || !col || !*col || !qs || (by && !*by))
        return raidFail(ctx, RAID_EINVAL, "raid_quantile_run_csv: NULL or empty argument");
    raid_quantile_table *t = calloc(1, sizeof *t);
    double *q = NULL, *v = NULL, *vs = NULL, *rows = NULL;
    int64_t *k = NULL, *ks = NULL, *off = NULL;
    uint8_t *valid = NULL;
    RaidTable *tab = NULL;
    RaidTbatch b = {0};
    size_t n = 0, cap = 0;
    raid_status st = t ? parse_q(t, qs, &q) : raidFail(NULL, RAID_ENOMEM, "out of memory");
    if (st == RAID_OK && by && !(t->by = strdup(by)))
        st = raidFail(NULL, RAID_ENOMEM, "out of memory");
    const RaidTspec spec[2] = {{col, "value", RAID_T_F64, RAID_T_EMPTY_NA | RAID_T_SPECIALS},
                                {by ? by : "", "key", RAID_T_I64, 0}};
    if (st == RAID_OK && ((st = raidTableOpen(&tab, path, spec, by ? 2 : 1)) != RAID_OK ||
                          (st = raidTbatchInit(&b, tab)) != RAID_OK))
        goto done;
    if (st == RAID_OK) /* else a bad q: no table was opened */
        raidTableSetProgress(tab, ctx);
    for (int fin = 0; st == RAID_OK && !fin;) { /* the rows with a value */
        const raid_status rs = raidTableRead(tab, &b, TABLE_ROWS, &fin);
        if (n + b.nrows > cap) {
            size_t c = cap ? cap : 65536;
            while (c < n + b.nrows)
                c *= 2;
            double *nv = realloc(v, c * sizeof *v);
            if (nv)
                v = nv;
            int64_t *nk = realloc(k, c * sizeof *k);
            if (nk)
                k = nk;
            uint8_t *nok = realloc(valid, c);
            if (nok)
                valid = nok;
            if (!nv || !nk || !nok) {
                st = raidFail(NULL, RAID_ENOMEM, "out of memory");
                break;
            }
            cap = c;
        }
        for (size_t i = 0; i < b.nrows; i++) { /* a null apart from NaN, a value (numpy's quantile gives NaN) */
            v[n] = b.col[0].f64[i];
            valid[n] = !b.col[0].missing[i];
            k[n++] = by ? b.col[1].i64[i] : 0;
        }
        st = rs;
    }
    if (st == RAID_OK)
        st = raidTableCopyNotices(tab, &t->notices);
    if (st != RAID_OK)
        goto done;
    /* the groups as segments: sorted stably by key (all one key without --by) */
    const size_t m = n ? n : 1;
    if (!(vs = malloc(m * sizeof *vs)) || !(ks = malloc(m * sizeof *ks)) || !(off = malloc((m + 1) * sizeof *off)) ||
        !(t->keys = malloc(m * sizeof *t->keys)) || !(rows = malloc(m * sizeof *rows))) {
        st = raidFail(NULL, RAID_ENOMEM, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < n; i++)
        rows[i] = (double)i; /* row numbers < 2^53: exact as doubles */
    if (n && (st = raid_sort_i64_f64(ctx, k, rows, n, 0, ks, vs)) != RAID_OK) {
        st = raidFail(NULL, st, "%s", ctx ? raid_ctx_errmsg(ctx) : raid_errmsg());
        goto done;
    }
    /* each key's values without the nulls, back to back: the non-empty groups are the segments */
    size_t ng = 0, nv = 0, ns = 0;
    int64_t *seg_of = malloc(m * sizeof *seg_of); /* group g's segment, -1: no value */
    if (!seg_of) {
        st = raidFail(NULL, RAID_ENOMEM, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < n; i++) {
        const size_t r = (size_t)vs[i];
        if (i == 0 || ks[i] != ks[i - 1])
            t->keys[ng] = ks[i], seg_of[ng++] = -1;
        if (!valid[r])
            continue;
        if (seg_of[ng - 1] < 0)
            off[ns] = (int64_t)nv, seg_of[ng - 1] = (int64_t)ns++;
        vs[nv++] = v[r]; /* nv <= i: row i's slot is read before it is written */
    }
    off[ns] = (int64_t)nv;
    if (!by && ns == 0) { /* no value at all: refused, as np.quantile of an empty array raises */
        free(seg_of);
        st = raidFail(NULL, RAID_EPARSE, "%s: column '%s' has no values (no quantile of no values)",
                       path, RAID_SHOWZ(col));
        goto done;
    }
    t->ngroups = ng;
    double *res = malloc((ns ? ns : 1) * t->nq * sizeof *res);
    if (!res || !(t->out = malloc(ng * t->nq * sizeof *t->out)) || !(t->none = malloc(ng ? ng : 1))) {
        free(res), free(seg_of);
        st = raidFail(NULL, RAID_ENOMEM, "out of memory");
        goto done;
    }
    if (ns && (st = raid_select_quantile(ctx, vs, off, ns, q, t->nq, res)) != RAID_OK)
        st = raidFail(NULL, st, "%s", ctx ? raid_ctx_errmsg(ctx) : raid_errmsg());
    for (size_t g = 0; st == RAID_OK && g < ng; g++) {
        t->none[g] = seg_of[g] < 0;
        for (size_t j = 0; j < t->nq; j++)
            t->out[g * t->nq + j] = seg_of[g] < 0 ? NAN : res[(size_t)seg_of[g] * t->nq + j];
    }
    free(res), free(seg_of);
done:
    st = raidTableJobStatus(ctx, tab, st);
    raidTbatchFree(&b);
    raidTableClose(tab);
    free(q), free(v), free(vs), free(rows), free(k), free(ks), free(off), free(valid);
    if (st != RAID_OK) {
        raid_quantile_table_destroy(t);
        return st;
    }
    *out = t;
    return RAID_OK;
}

size_t raid_quantile_table_notice_count(const raid_quantile_table *t) { return t ? t->notices.n : 0; }

const char *raid_quantile_table_notice(const raid_quantile_table *t, size_t i)
{
    return t ? raidStrlistGet(&t->notices, i) : NULL;
}

raid_status raid_quantile_table_write_csv(const raid_quantile_table *t, FILE *f)
{
    if (!t || !f)
        return raidFail(NULL, RAID_EINVAL, "raid_quantile_table_write_csv: NULL");
    if (t->by)
        raid_csv_put_field(f, t->by);
    for (size_t j = 0; j < t->nq; j++)
        fprintf(f, "%sq%s", t->by || j ? "," : "", t->qtext[j]);
    fputc('\n', f);
    for (size_t g = 0; g < t->ngroups; g++) {
        if (t->by)
            fprintf(f, "%lld", (long long)t->keys[g]);
        for (size_t j = 0; j < t->nq; j++) {
            char xt[RAID_F64_TEXT];
            fputs(!t->by && j == 0 ? "" : ",", f);
            if (!t->none[g]) /* a group without a value: an empty field; a NaN quantile (a NaN among the
                                values, inf - inf) is written "nan" */
                fputs(raidF64Text(xt, t->out[g * t->nq + j]), f);
        }
        fputc('\n', f);
    }
    return raidCsvWritten(f);
}
