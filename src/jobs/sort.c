/* The sort job on a CSV file (raid sort; include/raid/sort.h raid_sort_run_csv, docs/column.md "raid
 * sort"): the sort column read with the table reader (empty fields are nulls), every row's raw bytes kept
 * (raidTableKeepRows: the whole file is held), the rows ordered by a stable sort of the column on the
 * context's device or the cpu path (raid_argsort_f64_i64 for a decimal column; raid_sort_i64_f64 with
 * the row numbers as payload for a column of integers, exact beyond 2^53), nulls last, and written. */
#define _POSIX_C_SOURCE 200809L
#include "core/internal.h"
#include "core/outfile.h"
#include "io/table.h"

#include <stdlib.h>
#include <string.h>

#define TABLE_ROWS 8192

struct raid_sort_table {
    char *header;      /* the header row's bytes */
    size_t header_len;
    char *text;        /* every data row's bytes, back to back */
    size_t *off;       /* row i: text[off[i] .. off[i + 1]) */
    int64_t *order;    /* n row numbers in output order */
    size_t n;
    RaidStrlist notices; /* the table reader's (raid_sort_table_notice) */
};

void raid_sort_table_destroy(raid_sort_table *t)
{
    if (!t)
        return;
    free(t->header), free(t->text), free(t->off), free(t->order);
    raidStrlistFree(&t->notices);
    free(t);
}

/* Grow *p to hold n elements of size sz (doubling from 65,536). */
static int grow(void **p, size_t *cap, size_t n, size_t sz)
{
    if (n <= *cap)
        return 0;
    size_t c = *cap ? *cap : 65536;
    while (c < n)
        c *= 2;
    void *q = realloc(*p, c * sz);
    if (!q)
        return -1;
    *p = q;
    *cap = c;
    return 0;
}

raid_status raid_sort_run_csv(raid_ctx *ctx, const char *path, const char *by, unsigned flags, raid_sort_table **out)
{
    if (!out)
        return raidFail(ctx, RAID_EINVAL, "raid_sort_run_csv: out is NULL");
    *out = NULL;
    if (!path || !by || !*by)
        return raidFail(ctx, RAID_EINVAL, "raid_sort_run_csv: NULL or empty argument");
    if (flags & ~(unsigned)RAID_SORT_DESC)
        return raidFail(ctx, RAID_EINVAL, "raid_sort_run_csv: unknown flags 0x%x", flags);
    raid_sort_table *t = calloc(1, sizeof *t);
    double *x = NULL, *vs = NULL;
    int64_t *ik = NULL, *ks = NULL;
    uint8_t *valid = NULL; /* Arrow bitmap of the non-null fields */
    size_t n = 0, cap_text = 0, cap_valid = 0, cap_ik = 0, cap_x = 0, cap_off = 0, ntext = 0;
    int all_int = 1;                 /* every non-null field an integer */
    uint64_t big_line = 0;           /* the first integer beyond int64 (0: none) */
    size_t big_col = 0;
    char big_text[RAID_SHOW_CAP] = "";
    RaidTable *tab = NULL;
    RaidTbatch b = {0};
    raid_status st = t ? RAID_OK : raidFail(NULL, RAID_ENOMEM, "out of memory");
    const RaidTspec spec = {by, "value", RAID_T_F64, RAID_T_EMPTY_NA | RAID_T_KEEP_TEXT | RAID_T_SPECIALS};
    if (st != RAID_OK || (st = raidTableOpen(&tab, path, &spec, 1)) != RAID_OK ||
        (st = raidTbatchInit(&b, tab)) != RAID_OK)
        goto done;
    raidTableKeepRows(tab);
    raidTableSetProgress(tab, ctx);
    {
        size_t hl;
        const char *h = raidTableHeaderText(tab, &hl);
        if (!(t->header = malloc(hl + 1))) {
            st = raidFail(NULL, RAID_ENOMEM, "out of memory");
            goto done;
        }
        memcpy(t->header, h, hl + 1);
        t->header_len = hl;
    }
    for (int fin = 0; st == RAID_OK && !fin;) {
        const raid_status rs = raidTableRead(tab, &b, TABLE_ROWS, &fin);
        const RaidTcol *c = &b.col[0];
        const size_t m = n + b.nrows, bytes = b.nrows ? b.row.text_off[b.nrows] : 0;
        if (grow((void **)&x, &cap_x, m, sizeof *x) || grow((void **)&ik, &cap_ik, m, sizeof *ik) ||
            grow((void **)&valid, &cap_valid, m / 8 + 1, 1) || grow((void **)&t->off, &cap_off, m + 1, sizeof *t->off) ||
            grow((void **)&t->text, &cap_text, ntext + bytes, 1)) {
            st = raidFail(NULL, RAID_ENOMEM, "out of memory");
            break;
        }
        for (size_t i = 0; i < b.nrows; i++, n++) {
            size_t rl, fl;
            const char *r = raidTcolText(&b.row, i, &rl), *f = raidTcolText(c, i, &fl);
            t->off[n] = ntext;
            memcpy(t->text + ntext, r, rl);
            ntext += rl;
            if (n % 8 == 0)
                valid[n / 8] = 0;
            x[n] = c->f64[i];
            ik[n] = 0;
            if (c->missing[i])
                continue;
            valid[n / 8] |= (uint8_t)(1u << (n % 8));
            if (!all_int)
                continue;
            const int k = raidTableNumberInt(f, fl, &ik[n]);
            if (k == 0)
                all_int = 0;
            else if (k < 0 && !big_line)
                big_line = c->line[i], big_col = raidTableCol(tab, 0),
                raid_show_text(big_text, f, fl);
        }
        t->off[n] = ntext;
        st = rs;
    }
    if (st == RAID_OK)
        st = raidTableCopyNotices(tab, &t->notices);
    if (st != RAID_OK)
        goto done;
    if (all_int && big_line) {
        st = raidTableFail(tab, big_line, big_col,
                             "integer '%s' is beyond the int64 range (a column of integers is sorted as int64)",
                             big_text);
        goto done;
    }
    t->n = n;
    if (!(t->order = malloc((n ? n : 1) * sizeof *t->order))) {
        st = raidFail(NULL, RAID_ENOMEM, "out of memory");
        goto done;
    }
    if (n && !all_int) { /* decimal numbers: the float64 stable argsort, nulls last */
        if ((st = raid_argsort_f64_i64(ctx, x, n, valid, flags, t->order)) != RAID_OK)
            st = raidFail(NULL, st, "%s", ctx ? raid_ctx_errmsg(ctx) : raid_errmsg());
    } else if (n) { /* integers: (key, row number) pairs of the non-null rows sorted by key, then the nulls */
        size_t nv = 0;
        for (size_t i = 0; i < n; i++)
            if (valid[i / 8] >> (i % 8) & 1)
                ik[nv] = ik[i], x[nv++] = (double)i; /* row numbers < 2^53: exact as doubles */
        if (!(ks = malloc((nv ? nv : 1) * sizeof *ks)) || !(vs = malloc((nv ? nv : 1) * sizeof *vs))) {
            st = raidFail(NULL, RAID_ENOMEM, "out of memory");
            goto done;
        }
        if (nv && (st = raid_sort_i64_f64(ctx, ik, x, nv, flags, ks, vs)) != RAID_OK) {
            st = raidFail(NULL, st, "%s", ctx ? raid_ctx_errmsg(ctx) : raid_errmsg());
            goto done;
        }
        size_t k = 0;
        for (; k < nv; k++)
            t->order[k] = (int64_t)vs[k];
        for (size_t i = 0; i < n; i++)
            if (!(valid[i / 8] >> (i % 8) & 1))
                t->order[k++] = (int64_t)i;
    }
done:
    st = raidTableJobStatus(ctx, tab, st);
    raidTbatchFree(&b);
    raidTableClose(tab);
    free(x), free(vs), free(ik), free(ks), free(valid);
    if (st != RAID_OK) {
        raid_sort_table_destroy(t);
        return st;
    }
    *out = t;
    return RAID_OK;
}

size_t raid_sort_table_nrows(const raid_sort_table *t) { return t ? t->n : 0; }

size_t raid_sort_table_notice_count(const raid_sort_table *t) { return t ? t->notices.n : 0; }

const char *raid_sort_table_notice(const raid_sort_table *t, size_t i)
{
    return t ? raidStrlistGet(&t->notices, i) : NULL;
}

raid_status raid_sort_table_write_csv(const raid_sort_table *t, FILE *f)
{
    if (!t || !f)
        return raidFail(NULL, RAID_EINVAL, "raid_sort_table_write_csv: NULL");
    fwrite(t->header, 1, t->header_len, f);
    fputc('\n', f);
    for (size_t k = 0; k < t->n; k++) {
        const size_t i = (size_t)t->order[k];
        fwrite(t->text + t->off[i], 1, t->off[i + 1] - t->off[i], f);
        fputc('\n', f);
    }
    return raidCsvWritten(f);
}
