/* The job of raid garch (include/raid/garch.h): the CSV reader (raid_garch_read_csv; the fit is raid_garch_fit's)
 * and the CSV writer of the result (raid_garch_write_csv). The reader: on the table reader (table.c:
 * tokenising, byte order mark, header mapping, typed columns, FILE:LINE:COL errors) and the symbol table
 * (symtab.h: the symbols finished, to refuse one seen again). Columns: symbol and date (strings,
 * optional; a date not empty and after the symbol's previous one, order.h), the value (ret or price: a
 * decimal number, an empty field NAN). The rows of one symbol (a
 * run) are handed to raid_garch_input_add as the run ends; prices become log returns there, per symbol.
 * Errors come in file order. */
#define _POSIX_C_SOURCE 200809L
#include "core/internal.h"
#include "core/outfile.h"
#include "core/strlist.h"
#include "io/order.h"
#include "io/symtab.h"
#include "io/table.h"
#include "models/garch_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TABLE_ROWS 8192 /* rows per batch of the table reader */

enum { C_SYM = 0, C_DATE = 1, C_VAL = 2, NCOL = 3 };

typedef struct garch_run {
    char *sym;        /* the current symbol; NULL before the first row */
    size_t n, cap;
    double *v;        /* values (returns or prices) */
    int64_t *line;
    size_t *date_off; /* into text */
    char *text;
    size_t text_len, text_cap;
    RaidSymtab done; /* symbols finished */
    uint64_t *done_end;
} garch_run;

static void run_free(garch_run *r)
{
    free(r->sym), free(r->v), free(r->line), free(r->date_off), free(r->text), free(r->done_end);
    raidSymtabFree(&r->done);
}

static int grow(void **p, size_t n, size_t size)
{
    void *q = realloc(*p, n * size);
    if (q)
        *p = q;
    return q ? 0 : -1;
}

/* Add the current run (prices: its log returns, dated by the later price) to the input. */
static raid_status run_flush(garch_run *r, raid_garch_input *gi, int has_date, int prices)
{
    if (!r->sym)
        return RAID_OK;
    const size_t skip = prices && r->n ? 1 : 0, n = r->n - skip;
    const char **dates = has_date ? malloc((n ? n : 1) * sizeof *dates) : NULL;
    if (has_date && !dates)
        return raidFail(NULL, RAID_ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        if (dates)
            dates[i] = r->text + r->date_off[i + skip];
        if (prices) /* in place: v[i] still holds the price i when return i is formed */
            r->v[i] = log(r->v[i + 1] / r->v[i]);
    }
    raid_status st = raid_garch_input_add(gi, r->sym, n, r->v, dates, r->line + skip);
    free(dates);
    if (st != RAID_OK)
        return st;
    const int64_t q = raidSymtabAdd(&r->done, r->sym, strlen(r->sym));
    if (q < 0 || grow((void **)&r->done_end, r->done.n, sizeof *r->done_end))
        return raidFail(NULL, RAID_ENOMEM, "out of memory");
    r->done_end[q] = (uint64_t)r->line[r->n - 1];
    free(r->sym);
    r->sym = NULL;
    r->n = r->text_len = 0;
    return RAID_OK;
}

/* Append row i of batch b to the current run. */
static raid_status run_push(garch_run *r, const RaidTbatch *b, size_t i, int has_date)
{
    size_t len = 0;
    const char *d = has_date ? raidTcolText(&b->col[C_DATE], i, &len) : "";
    if (r->n == r->cap) {
        const size_t cap = r->cap ? 2 * r->cap : 1024;
        if (grow((void **)&r->v, cap, sizeof *r->v) || grow((void **)&r->line, cap, sizeof *r->line) ||
            grow((void **)&r->date_off, cap, sizeof *r->date_off))
            return raidFail(NULL, RAID_ENOMEM, "out of memory");
        r->cap = cap;
    }
    if ((r->date_off[r->n] = raidTextAppend(&r->text, &r->text_len, &r->text_cap, d, len)) == (size_t)-1)
        return raidFail(NULL, RAID_ENOMEM, "out of memory");
    r->v[r->n] = b->col[C_VAL].f64[i];
    r->line[r->n++] = (int64_t)b->col[C_VAL].line[i];
    return RAID_OK;
}

raid_status raid_garch_read_csv(const char *path, const char *const *names, raid_garch_column kind,
                                raid_garch_input **out)
{
    if (!out || !path)
        return raidFail(NULL, RAID_EINVAL, "raid_garch_read_csv: NULL argument");
    *out = NULL;
    if ((unsigned)kind > RAID_GARCH_PRICES)
        return raidFail(NULL, RAID_EINVAL, "raid_garch_read_csv: bad input kind %d", (int)kind);
    const int prices = kind == RAID_GARCH_PRICES;
    const char *const roles[NCOL] = {"symbol", "date", prices ? "price" : "ret"};
    RaidTspec spec[NCOL];
    for (int j = 0; j < NCOL; j++) {
        spec[j].name = names && names[j] ? names[j] : roles[j];
        spec[j].what = roles[j];
        spec[j].type = j == C_VAL ? RAID_T_F64 : RAID_T_STRING;
        /* symbol and date are optional under their default names; a name the caller gives is required
         * (a misspelt --symbol-col must not pool every symbol into one series), as raid har does */
        spec[j].flags = j == C_VAL ? RAID_T_EMPTY_NA | (prices ? RAID_T_KEEP_TEXT : 0u)
                                   : names && names[j] ? 0u : RAID_T_OPTIONAL;
    }
    RaidTable *tb = NULL;
    raid_status st = raidTableOpen(&tb, path, spec, NCOL);
    if (st != RAID_OK)
        return st;
    const int has_sym = raidTableCol(tb, C_SYM) != 0, has_date = raidTableCol(tb, C_DATE) != 0;
    garch_run run = {0};
    raid_garch_input *gi = NULL;
    RaidTbatch b;
    if ((st = raidTbatchInit(&b, tb)) == RAID_OK && (st = raid_garch_input_create(&gi)) == RAID_OK)
        st = raid_garch_input_set_source(gi, path);
    size_t nrows = 0;
    int done = 0;
    while (st == RAID_OK && !done) {
        const raid_status rs = raidTableRead(tb, &b, TABLE_ROWS, &done);
        for (size_t i = 0; i < b.nrows && st == RAID_OK; i++, nrows++) {
            const double p = b.col[C_VAL].f64[i];
            if (prices && !(p > 0) && !isnan(p)) { /* NAN: an empty field, a missing price */
                size_t len;
                const char *pt = raidTcolText(&b.col[C_VAL], i, &len);
                st = raidTableFail(tb, b.col[C_VAL].line[i], raidTableCol(tb, C_VAL),
                                     "%s '%s' is not a positive number (log returns need prices > 0)",
                                     RAID_SHOWZ(spec[C_VAL].name), RAID_SHOW(pt, len));
                break;
            }
            size_t slen = 0;
            const char *s = has_sym ? raidTcolText(&b.col[C_SYM], i, &slen) : "";
            if (!run.sym || strcmp(run.sym, s)) {
                const int64_t q = raidSymtabFind(&run.done, s, slen);
                if (q >= 0) {
                    st = raidTableFail(tb, b.col[C_SYM].line[i], raidTableCol(tb, C_SYM),
                                         "symbol '%s' again, after other symbols (its rows end on line %llu); the "
                                         "rows of a symbol must be contiguous (sort FILE by symbol, date)",
                                         RAID_SHOW(s, slen), (unsigned long long)run.done_end[q]);
                    break;
                }
                if ((st = run_flush(&run, gi, has_date, prices)) != RAID_OK)
                    break;
                if (!(run.sym = strdup(s)))
                    st = raidFail(NULL, RAID_ENOMEM, "out of memory");
            }
            if (st == RAID_OK && has_date) { /* not empty, after the symbol's previous date (order.h) */
                size_t dlen;
                const char *d = raidTcolText(&b.col[C_DATE], i, &dlen);
                st = raidTableCheckDate(tb, spec[C_DATE].name, run.sym, d, dlen, b.col[C_DATE].line[i],
                                           raidTableCol(tb, C_DATE), run.n ? run.text + run.date_off[run.n - 1] : NULL,
                                           run.n ? (uint64_t)run.line[run.n - 1] : 0);
                if (st != RAID_OK)
                    break;
            }
            if (st == RAID_OK)
                st = run_push(&run, &b, i, has_date);
        }
        if (st == RAID_EPARSE) /* a row of ours: raidTableFail set the message */
            st = raidFail(NULL, st, "%s", raidTableErrmsg(tb));
        else if (st == RAID_OK && rs != RAID_OK)
            st = raidFail(NULL, rs, "%s", raidTableErrmsg(tb));
    }
    if (st == RAID_OK)
        st = run_flush(&run, gi, has_date, prices);
    if (st == RAID_OK && !nrows) /* a fit of no data: where the first row would be */
        st = raidTableFailNoRows(tb);
    if (st == RAID_OK)
        st = raidTableCopyNotices(tb, &gi->notices);
    run_free(&run);
    raidTbatchFree(&b);
    raidTableClose(tb);
    if (st != RAID_OK) {
        raid_garch_input_destroy(gi);
        return st;
    }
    *out = gi;
    return RAID_OK;
}

raid_status raid_garch_write_csv(const raid_garch_result *res, FILE *f)
{
    if (!res || !f)
        return raidFail(NULL, RAID_EINVAL, "raid_garch_write_csv: NULL");
    const raid_garch_spec *sp = &res->spec;
    fputs("symbol,window_end,n,model,dist,mu,omega,alpha,gamma,beta,nu,se_mu,se_omega,se_alpha,se_gamma,se_beta,"
          "se_nu,loglik,iterations,status,sigma2_last,sigma2_next\n", f);
    for (size_t r = 0; r < res->nrows; r++) {
        raid_csv_put_field(f, res->sym[res->row_sym[r]]);
        fputc(',', f);
        if (res->row_end[r])
            raid_csv_put_field(f, res->row_end[r]);
        fprintf(f, ",%lld,%s,%s", (long long)res->n[r], raid_garch_model_name((raid_garch_model)sp->model),
                raid_garch_dist_name((raid_garch_dist)sp->dist));
        for (int j = 0; j < 2 * RAID_GARCH_MAXPAR; j++)
            raid_csv_put_value(f, (j < RAID_GARCH_MAXPAR ? res->params : res->se)[r * RAID_GARCH_MAXPAR +
                                                                                   (size_t)(j % RAID_GARCH_MAXPAR)]);
        raid_csv_put_value(f, res->loglik[r]);
        fprintf(f, ",%ld,", (long)res->iterations[r]);
        raid_csv_put_field(f, raid_garch_status_name((raid_garch_status)res->status[r]));
        raid_csv_put_value(f, res->sigma2_last[r]);
        raid_csv_put_value(f, res->sigma2_next[r]);
        fputc('\n', f);
    }
    return raidCsvWritten(f);
}
