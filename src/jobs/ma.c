/* The CSV reader of raid ma (raid_ma_read_csv, include/raid/ma.h), on the table reader (table.c:
 * tokenising, byte order mark, header mapping, typed columns, FILE:LINE:COL errors) and the symbol table
 * (symtab.h: the series in order, to refuse a symbol seen again after others). Columns: symbol
 * (optional), the date (text: "date", else "timestamp", or the name given; not empty, after the series'
 * previous date: order.h), one or more value columns
 * (decimal numbers, an empty field NAN; raid_ma_read_csv reads one, raid_ma_read_csv_columns several, e.g.
 * close and open for the sweep). Errors come in file order. And the CSV writer of a statistic over the
 * series (raid_ma_write_csv; the statistic is raid_ma_compute's). */
#define _POSIX_C_SOURCE 200809L
#include "core/internal.h"
#include "core/outfile.h"
#include "io/order.h"
#include "io/table.h"
#include "ta/ma_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TABLE_ROWS 8192 /* rows per batch of the table reader */

enum { C_SYM = 0, C_DATE = 1, C_TS = 2 }; /* then the value columns (after C_TS, or after C_DATE when named) */

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
    const int64_t q = raidSymtabAdd(&in->syms, s, len);
    if (q < 0)
        return raidFail(NULL, RAID_ENOMEM, "out of memory");
    if (in->syms.n + 1 > in->offsets_cap) {
        const size_t cap = in->offsets_cap ? 2 * in->offsets_cap : 64;
        if (grow((void **)&in->offsets, cap, sizeof *in->offsets) || grow((void **)&in->end_line, cap, sizeof *in->end_line))
            return raidFail(NULL, RAID_ENOMEM, "out of memory");
        in->offsets_cap = cap;
    }
    in->offsets[q] = in->offsets[q + 1] = (int64_t)in->nrows;
    return RAID_OK;
}

/* Append a row (the values v[0..in->ncols) of the present columns, the date d[0..dlen)) to the last series. */
static raid_status push(raid_ma_input *in, const double *v, const char *d, size_t dlen, uint64_t line)
{
    if (in->nrows == in->cap) {
        const size_t cap = in->cap ? 2 * in->cap : 4096;
        for (size_t j = 0; j < in->ncols; j++)
            if (in->v[j] && grow((void **)&in->v[j], cap, sizeof *in->v[j]))
                return raidFail(NULL, RAID_ENOMEM, "out of memory");
        if (grow((void **)&in->date_off, cap, sizeof *in->date_off) || grow((void **)&in->line, cap, sizeof *in->line))
            return raidFail(NULL, RAID_ENOMEM, "out of memory");
        in->cap = cap;
    }
    if ((in->date_off[in->nrows] = raidTextAppend(&in->text, &in->text_len, &in->text_cap, d, dlen)) == (size_t)-1)
        return raidFail(NULL, RAID_ENOMEM, "out of memory");
    for (size_t j = 0; j < in->ncols; j++)
        if (in->v[j])
            in->v[j][in->nrows] = v[j];
    in->line[in->nrows++] = line;
    in->offsets[in->syms.n] = (int64_t)in->nrows;
    in->end_line[in->syms.n - 1] = line;
    return RAID_OK;
}

raid_status raid_ma_read_csv(const char *path, const char *const *names, raid_ma_input **out)
{
    const char *val = names && names[2] ? names[2] : "close";
    return raid_ma_read_csv_columns(path, names, &val, 1, 0u, out);
}

raid_status raid_ma_read_csv_columns(const char *path, const char *const *names, const char *const *cols, size_t nval,
                                     unsigned optional, raid_ma_input **out)
{
    if (!out || !path || !cols)
        return raidFail(NULL, RAID_EINVAL, "raid_ma_read_csv: NULL argument");
    *out = NULL;
    if (nval < 1 || nval > RAID_MA_MAX_COLUMNS || (optional & 1u))
        return raidFail(NULL, RAID_EINVAL, "raid_ma_read_csv_columns: %zu value columns (1 to %d; the first required)",
                         nval, RAID_MA_MAX_COLUMNS);
    for (size_t j = 0; j < nval; j++)
        if (!cols[j] || !*cols[j])
            return raidFail(NULL, RAID_EINVAL, "raid_ma_read_csv_columns: value column %zu has no name", j);
    const char *sym = names && names[0] ? names[0] : "symbol";
    const char *date = names && names[1] ? names[1] : NULL;
    /* without a date name: "date", else "timestamp" (both optional here, one required below); then the
     * value columns */
    RaidTspec spec[3 + RAID_MA_MAX_COLUMNS] = {{sym, "symbol", RAID_T_STRING, names && names[0] ? 0u : RAID_T_OPTIONAL},
                                                {date ? date : "date", "date", RAID_T_STRING, date ? 0u : RAID_T_OPTIONAL},
                                                {"timestamp", "date", RAID_T_STRING, RAID_T_OPTIONAL | RAID_T_YIELD}};
    const size_t c_val = date ? 2 : 3; /* the first value column's index in spec */
    for (size_t j = 0; j < nval; j++)
        spec[c_val + j] = (RaidTspec){cols[j], "value", RAID_T_F64,
                                       RAID_T_EMPTY_NA | RAID_T_KEEP_TEXT | ((optional >> j) & 1u ? RAID_T_OPTIONAL : 0u)};
    const size_t ncols = c_val + nval;
    RaidTable *tb = NULL;
    raid_status st = raidTableOpen(&tb, path, spec, ncols);
    if (st != RAID_OK)
        return st;
    int dcol = C_DATE;
    if (!date && !raidTableCol(tb, C_DATE)) {
        dcol = C_TS;
        if (!raidTableCol(tb, C_TS)) {
            raidTableClose(tb);
            return raidFail(NULL, RAID_EPARSE, "%s:1:1: missing column 'date' (or 'timestamp')", path);
        }
    }
    raid_ma_input *in = calloc(1, sizeof *in);
    RaidTbatch b;
    int binit = 0;
    if (!in || !(in->date_name = strdup(spec[dcol].name)) || !(in->path = strdup(path)))
        st = raidFail(NULL, RAID_ENOMEM, "out of memory");
    size_t val_col[RAID_MA_MAX_COLUMNS] = {0};
    for (size_t j = 0; in && st == RAID_OK && j < nval; j++) {
        in->field[j] = val_col[j] = raidTableCol(tb, c_val + j);
        if (val_col[j] && !(in->v[j] = malloc(sizeof(double)))) /* a present column: grown with the rows */
            st = raidFail(NULL, RAID_ENOMEM, "out of memory");
    }
    if (in)
        in->ncols = nval;
    if (st == RAID_OK && (st = raidTbatchInit(&b, tb)) == RAID_OK)
        binit = 1;
    const size_t sym_col = raidTableCol(tb, C_SYM), date_col = raidTableCol(tb, (size_t)dcol);
    if (in)
        in->has_symbol = sym_col != 0, in->sym_field = sym_col;
    int done = 0;
    while (st == RAID_OK && !done) {
        const raid_status rs = raidTableRead(tb, &b, TABLE_ROWS, &done);
        for (size_t i = 0; i < b.nrows && st == RAID_OK; i++) {
            size_t dlen = 0, slen = 0;
            const char *d = raidTcolText(&b.col[dcol], i, &dlen);
            double v[RAID_MA_MAX_COLUMNS] = {0};
            for (size_t j = 0; j < nval && st == RAID_OK; j++) {
                if (!val_col[j])
                    continue;
                const RaidTcol *vc = &b.col[c_val + j];
                v[j] = vc->f64[i];
                if (!isnan(v[j]) && !(fabs(v[j]) <= RAID_MA_MAX_VALUE)) {
                    size_t len = 0;
                    const char *vt = raidTcolText(vc, i, &len);
                    st = raidTableFail(tb, vc->line[i], val_col[j], "%s '%s' is out of range (|value| <= %g)",
                                         RAID_SHOWZ(spec[c_val + j].name), RAID_SHOW(vt, len), RAID_MA_MAX_VALUE);
                }
            }
            if (st != RAID_OK)
                break;
            const char *s = sym_col ? raidTcolText(&b.col[C_SYM], i, &slen) : "";
            const size_t ns = in->syms.n;
            if (!ns || strcmp(in->syms.names[ns - 1], s)) {
                const int64_t q = raidSymtabFind(&in->syms, s, slen);
                if (q >= 0) {
                    st = raidTableFail(tb, b.col[C_SYM].line[i], sym_col,
                                         "symbol '%s' again, after other symbols (its rows end on line %llu); the "
                                         "rows of a symbol must be contiguous (sort FILE by symbol, date)",
                                         RAID_SHOW(s, slen), (unsigned long long)in->end_line[q]);
                    break;
                }
                if ((st = new_series(in, s, slen)) != RAID_OK)
                    break;
            }
            /* not empty, after the series' previous date (order.h): a moving average of rows out of time
             * order, or of a day given twice, is a wrong answer */
            const int first = in->offsets[in->syms.n - 1] == (int64_t)in->nrows;
            if ((st = raidTableCheckDate(tb, spec[dcol].name, s, d, dlen, b.col[dcol].line[i], date_col,
                                            first ? NULL : in->text + in->date_off[in->nrows - 1],
                                            first ? 0 : in->line[in->nrows - 1])) != RAID_OK)
                break;
            st = push(in, v, d, dlen, b.col[dcol].line[i]);
        }
        if (st == RAID_EPARSE) /* a row of ours: raidTableFail set the message */
            st = raidFail(NULL, st, "%s", raidTableErrmsg(tb));
        else if (st == RAID_OK && rs != RAID_OK)
            st = raidFail(NULL, rs, "%s", raidTableErrmsg(tb));
    }
    if (in) /* a header alone is an empty input here (raid ma writes its header); the sweep refuses it */
        in->header_line = raidTableHeaderLine(tb);
    if (st == RAID_OK && !in->offsets && !(in->offsets = calloc(1, sizeof *in->offsets))) /* no series: {0} */
        st = raidFail(NULL, RAID_ENOMEM, "out of memory");
    if (st == RAID_OK)
        st = raidTableCopyNotices(tb, &in->notices);
    if (binit)
        raidTbatchFree(&b);
    raidTableClose(tb);
    if (st != RAID_OK) {
        raid_ma_input_destroy(in);
        return st;
    }
    *out = in;
    return RAID_OK;
}

/* The CSV writer of a statistic over the series (raid_ma_write_csv). */
raid_status raid_ma_write_csv(const raid_ma_input *in, raid_ma_stat stat, const double *values, FILE *f)
{
    if (!in || !f || (in->nrows && !values))
        return raidFail(NULL, RAID_EINVAL, "raid_ma_write_csv: NULL");
    if ((unsigned)stat >= RAID_MA_NSTATS)
        return raidFail(NULL, RAID_EINVAL, "raid_ma_write_csv: bad stat %d", (int)stat);
    if (in->has_symbol)
        fputs("symbol,", f);
    raid_csv_put_field(f, in->date_name);
    fprintf(f, ",%s\n", raid_ma_stat_name(stat));
    for (size_t s = 0; s < in->syms.n; s++)
        for (int64_t i = in->offsets[s]; i < in->offsets[s + 1]; i++) {
            if (in->has_symbol) {
                raid_csv_put_field(f, in->syms.names[s]);
                fputc(',', f);
            }
            raid_csv_put_field(f, in->text + in->date_off[i]);
            raid_csv_put_value(f, values[i]);
            fputc('\n', f);
        }
    return raidCsvWritten(f);
}
