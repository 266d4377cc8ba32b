/* The CSV reader of raid ma (raid_ma_read_csv, include/raid/ma.h), on the table reader (table.c:
 * tokenising, byte order mark, header mapping, typed columns, FILE:LINE:COL errors) and the symbol table
 * (symtab.h: the series in order, to refuse a symbol seen again after others). Columns: symbol
 * (optional), the date (text: "date", else "timestamp", or the name given), the value (a decimal number,
 * an empty field NAN). Errors come in file order. */
#define _POSIX_C_SOURCE 200809L
#include "core/internal.h"
#include "io/table.h"
#include "ta/ma_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TABLE_ROWS 8192 /* rows per batch of the table reader */

enum { C_SYM = 0, C_VAL = 1, C_DATE = 2, C_TS = 3 };

static int grow(void **p, size_t n, size_t size)
{
    void *q = realloc(*p, n * size);
    if (q)
        *p = q;
    return q ? 0 : -1;
}

/* Start series s (its name s[0..len)) at row in->nrows. */
static raid_status new_series(raid_ma_input *in, const char *s, size_t len)
{
    const int64_t q = raid_symtab_add(&in->syms, s, len);
    if (q < 0)
        return raid_fail(NULL, RAID_ENOMEM, "out of memory");
    if (in->syms.n + 1 > in->offsets_cap) {
        const size_t cap = in->offsets_cap ? 2 * in->offsets_cap : 64;
        if (grow((void **)&in->offsets, cap, sizeof *in->offsets) || grow((void **)&in->end_line, cap, sizeof *in->end_line))
            return raid_fail(NULL, RAID_ENOMEM, "out of memory");
        in->offsets_cap = cap;
    }
    in->offsets[q] = in->offsets[q + 1] = (int64_t)in->nrows;
    return RAID_OK;
}

/* Append row i of batch b (the value v, the date d[0..dlen)) to the last series. */
static raid_status push(raid_ma_input *in, double v, const char *d, size_t dlen, uint64_t line)
{
    if (in->nrows == in->cap) {
        const size_t cap = in->cap ? 2 * in->cap : 4096;
        if (grow((void **)&in->v, cap, sizeof *in->v) || grow((void **)&in->date_off, cap, sizeof *in->date_off))
            return raid_fail(NULL, RAID_ENOMEM, "out of memory");
        in->cap = cap;
    }
    if ((in->date_off[in->nrows] = raid_text_append(&in->text, &in->text_len, &in->text_cap, d, dlen)) == (size_t)-1)
        return raid_fail(NULL, RAID_ENOMEM, "out of memory");
    in->v[in->nrows++] = v;
    in->offsets[in->syms.n] = (int64_t)in->nrows;
    in->end_line[in->syms.n - 1] = line;
    return RAID_OK;
}

raid_status raid_ma_read_csv(const char *path, const char *const *names, raid_ma_input **out)
{
    if (!out || !path)
        return raid_fail(NULL, RAID_EINVAL, "raid_ma_read_csv: NULL argument");
    *out = NULL;
    const char *sym = names && names[0] ? names[0] : "symbol", *val = names && names[2] ? names[2] : "close";
    const char *date = names && names[1] ? names[1] : NULL;
    /* without a date name: "date", else "timestamp" (both optional here, one required below) */
    raid_tspec spec[4] = {{sym, "symbol", RAID_T_STRING, names && names[0] ? 0u : RAID_T_OPTIONAL},
                          {val, "value", RAID_T_F64, RAID_T_EMPTY_NA | RAID_T_KEEP_TEXT},
                          {date ? date : "date", "date", RAID_T_STRING, date ? 0u : RAID_T_OPTIONAL},
                          {"timestamp", "date", RAID_T_STRING, RAID_T_OPTIONAL | RAID_T_YIELD}};
    const size_t ncols = date ? 3 : 4;
    raid_table *tb = NULL;
    raid_status st = raid_table_open(&tb, path, spec, ncols);
    if (st != RAID_OK)
        return st;
    int dcol = C_DATE;
    if (!date && !raid_table_col(tb, C_DATE)) {
        dcol = C_TS;
        if (!raid_table_col(tb, C_TS)) {
            raid_table_close(tb);
            return raid_fail(NULL, RAID_EPARSE, "%s:1:1: missing column 'date' (or 'timestamp')", path);
        }
    }
    raid_ma_input *in = calloc(1, sizeof *in);
    raid_tbatch b;
    int binit = 0;
    if (!in || !(in->date_name = strdup(spec[dcol].name)))
        st = raid_fail(NULL, RAID_ENOMEM, "out of memory");
    else if ((st = raid_tbatch_init(&b, tb)) == RAID_OK)
        binit = 1;
    const size_t sym_col = raid_table_col(tb, C_SYM), val_col = raid_table_col(tb, C_VAL),
                 date_col = raid_table_col(tb, (size_t)dcol);
    if (in)
        in->has_symbol = sym_col != 0;
    int done = 0;
    while (st == RAID_OK && !done) {
        const raid_status rs = raid_table_read(tb, &b, TABLE_ROWS, &done);
        for (size_t i = 0; i < b.nrows && st == RAID_OK; i++) {
            const raid_tcol *vc = &b.col[C_VAL];
            const double v = vc->f64[i];
            size_t len = 0, dlen = 0, slen = 0;
            const char *d = raid_tcol_text(&b.col[dcol], i, &dlen);
            if (!dlen) {
                st = raid_table_fail(tb, b.col[dcol].line[i], date_col, "empty %s", spec[dcol].name);
                break;
            }
            if (!isnan(v) && !(fabs(v) <= RAID_MA_MAX_VALUE)) {
                const char *vt = raid_tcol_text(vc, i, &len);
                st = raid_table_fail(tb, vc->line[i], val_col, "%s '%.*s' is out of range (|value| <= %g)", spec[C_VAL].name,
                                     raid_table_show(len), vt, RAID_MA_MAX_VALUE);
                break;
            }
            const char *s = sym_col ? raid_tcol_text(&b.col[C_SYM], i, &slen) : "";
            const size_t ns = in->syms.n;
            if (!ns || strcmp(in->syms.names[ns - 1], s)) {
                const int64_t q = raid_symtab_find(&in->syms, s, slen);
                if (q >= 0) {
                    st = raid_table_fail(tb, b.col[C_SYM].line[i], sym_col,
                                         "symbol '%s' again, after other symbols (its rows end on line %llu); the "
                                         "rows of a symbol must be contiguous (sort FILE by symbol, date)",
                                         s, (unsigned long long)in->end_line[q]);
                    break;
                }
                if ((st = new_series(in, s, slen)) != RAID_OK)
                    break;
            }
            st = push(in, v, d, dlen, vc->line[i]);
        }
        if (st == RAID_EPARSE) /* a row of ours: raid_table_fail set the message */
            st = raid_fail(NULL, st, "%s", raid_table_errmsg(tb));
        else if (st == RAID_OK && rs != RAID_OK)
            st = raid_fail(NULL, rs, "%s", raid_table_errmsg(tb));
    }
    if (st == RAID_OK && !in->nrows)
        st = raid_fail(NULL, RAID_EPARSE, "%s: no data rows", path);
    for (size_t i = 0; st == RAID_OK && i < raid_table_notice_count(tb); i++)
        if (raid_strlist_addf(&in->notices, "%s", raid_table_notice(tb, i)))
            st = raid_fail(NULL, RAID_ENOMEM, "out of memory");
    if (binit)
        raid_tbatch_free(&b);
    raid_table_close(tb);
    if (st != RAID_OK) {
        raid_ma_input_destroy(in);
        return st;
    }
    *out = in;
    return RAID_OK;
}
