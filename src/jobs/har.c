/* The job of raid har (include/raid/har.h): the CSV reader of the daily realized measures (raid_har_read_csv; the
 * fit is raid_har_fit's) and the CSV writers of the result (raid_har_write_*). The reader: one row
 * per symbol and day, on the table reader (table.c: tokenising, byte order mark, header mapping, typed
 * columns, FILE:LINE:COL errors). Columns: symbol (string, optional unless required), date (a calendar
 * date, after the symbol's previous one: order.h), rv and, optional, bpv, rq, jump_p (decimal numbers, an empty field NAN). A
 * column the model does not read may be named twice (the first is read); bpv, rq or jump_p named like an
 * earlier column is absent (--rv-col bpv fits HAR to the bpv series). The rows of one symbol (a run) are
 * handed to raid_har_input_add as the run ends. */
#define _POSIX_C_SOURCE 200809L
#include "core/internal.h"
#include "core/outfile.h"
#include "core/strlist.h"
#include "io/order.h"
#include "io/symtab.h"
#include "io/table.h"
#include "models/har_internal.h"
#include "raid.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TABLE_ROWS 8192 /* rows per batch of the table reader */

enum { C_SYM = 0, C_DATE = 1, C_RV = 2, NCOL = 6 };

/* The rows of the current symbol, and the symbols already added (to refuse one seen again). */
typedef struct har_run {
    char *sym;          /* NULL before the first row */
    size_t n, cap;
    size_t *date_off;   /* into text */
    char *text;
    size_t text_len, text_cap;
    double *v[4];       /* rv, bpv, rq, jump_p */
    int64_t *line;
    RaidSymtab done;   /* the symbols added */
    uint64_t *done_end; /* their last lines, by index in done */
    size_t done_cap;
} har_run;

static void run_free(har_run *r)
{
    free(r->sym);
    free(r->date_off);
    free(r->text);
    for (int j = 0; j < 4; j++)
        free(r->v[j]);
    free(r->line);
    raidSymtabFree(&r->done);
    free(r->done_end);
}

static int grow(void **p, size_t n, size_t size)
{
    void *q = realloc(*p, n * size);
    if (!q)
        return -1;
    *p = q;
    return 0;
}

/* Add the current run to the input and remember its symbol. */
static raid_status run_flush(har_run *r, raid_har_input *hi, const int have[4])
{
    if (!r->sym)
        return RAID_OK;
    const char **dates = malloc((r->n ? r->n : 1) * sizeof *dates);
    if (!dates)
        return raidFail(NULL, RAID_ENOMEM, "out of memory");
    for (size_t i = 0; i < r->n; i++)
        dates[i] = r->text + r->date_off[i];
    raid_status st = raid_har_input_add(hi, r->sym, r->n, dates, r->v[0], have[1] ? r->v[1] : NULL,
                                        have[2] ? r->v[2] : NULL, have[3] ? r->v[3] : NULL, r->line);
    free(dates);
    if (st != RAID_OK)
        return st;
    if (r->done.n == r->done_cap) {
        const size_t cap = r->done_cap ? 2 * r->done_cap : 16;
        if (grow((void **)&r->done_end, cap, sizeof *r->done_end))
            return raidFail(NULL, RAID_ENOMEM, "out of memory");
        r->done_cap = cap;
    }
    const int64_t q = raidSymtabAdd(&r->done, r->sym, strlen(r->sym)); /* new: the caller checked */
    if (q < 0)
        return raidFail(NULL, RAID_ENOMEM, "out of memory");
    r->done_end[q] = (uint64_t)r->line[r->n - 1];
    free(r->sym);
    r->sym = NULL;
    r->n = 0;
    r->text_len = 0;
    return RAID_OK;
}

/* The value checks of row i of batch b (raidHarDayCheck, raid_har_input_add's rules too): an empty date or
 * one that is not a calendar date YYYY-MM-DD, a negative rv, bpv or rq (nm[2..4], their columns' names;
 * empty is a missing day; a bpv or rq column is checked where the file has one), or (pname, the jump_p
 * column's name, not NULL: the model reads it) a jump_p outside [0, 1], is refused at its FILE:LINE:COL
 * (raidTableFail). */
static raid_status row_check(RaidTable *tb, const RaidTbatch *b, size_t i, const char *const *nm, const char *pname)
{
    size_t len;
    const char *d = raidTcolText(&b->col[C_DATE], i, &len);
    double v[3];
    for (size_t j = 0; j < 3; j++)
        v[j] = raidTableCol(tb, C_RV + j) ? b->col[C_RV + j].f64[i] : NAN;
    const int r = raidHarDayCheck(d, len, v[0], v[1], v[2]);
    if (r == HAR_DAY_EMPTY)
        return raidTableFail(tb, b->col[C_DATE].line[i], raidTableCol(tb, C_DATE), "%s", raidHarDayWhy(r));
    if (r == HAR_DAY_DATE)
        return raidTableFail(tb, b->col[C_DATE].line[i], raidTableCol(tb, C_DATE), "date '%s' %s",
                               RAID_SHOW(d, len), raidHarDayWhy(r));
    if (r != HAR_DAY_OK) {
        const size_t c = C_RV + (size_t)(r - HAR_DAY_RV);
        return raidTableFail(tb, b->col[c].line[i], raidTableCol(tb, c), "%s %s", RAID_SHOWZ(nm[c]),
                               raidHarDayWhy(r));
    }
    const double p = pname ? b->col[C_RV + 3].f64[i] : NAN;
    if (!isnan(p) && !(p >= 0 && p <= 1)) {
        const char *pt = raidTcolText(&b->col[C_RV + 3], i, &len);
        return raidTableFail(tb, b->col[C_RV + 3].line[i], raidTableCol(tb, C_RV + 3),
                               "%s '%s' is not a p-value (expected a number in [0, 1], or empty for none)",
                               RAID_SHOWZ(pname), RAID_SHOW(pt, len));
    }
    return RAID_OK;
}

/* Append row i of batch b (date and values) to the current run. */
static raid_status run_push(har_run *r, const RaidTable *tb, const RaidTbatch *b, size_t i)
{
    size_t len;
    const char *d = raidTcolText(&b->col[C_DATE], i, &len);
    if (r->n == r->cap) {
        const size_t cap = r->cap ? 2 * r->cap : 1024;
        int bad = grow((void **)&r->date_off, cap, sizeof *r->date_off) || grow((void **)&r->line, cap, sizeof *r->line);
        for (int j = 0; j < 4 && !bad; j++)
            bad = grow((void **)&r->v[j], cap, sizeof *r->v[j]);
        if (bad)
            return raidFail(NULL, RAID_ENOMEM, "out of memory");
        r->cap = cap;
    }
    if ((r->date_off[r->n] = raidTextAppend(&r->text, &r->text_len, &r->text_cap, d, len)) == (size_t)-1)
        return raidFail(NULL, RAID_ENOMEM, "out of memory");
    for (int j = 0; j < 4; j++)
        r->v[j][r->n] = raidTableCol(tb, (size_t)(C_RV + j)) ? b->col[C_RV + j].f64[i] : NAN;
    r->line[r->n++] = (int64_t)b->col[C_DATE].line[i];
    return RAID_OK;
}

raid_status raid_har_read_csv(const char *path, const char *const *names, int symbol_required, raid_har_model model,
                              raid_har_input **out)
{
    static const char *const roles[NCOL] = {"symbol", "date", "rv", "bpv", "rq", "jump_p"};
    if (!out || !path)
        return raidFail(NULL, RAID_EINVAL, "raid_har_read_csv: NULL argument");
    *out = NULL;
    if ((unsigned)model > RAID_HAR_Q)
        return raidFail(NULL, RAID_EINVAL, "raid_har_read_csv: bad model %d", (int)model);
    const char *nm[NCOL];
    for (int j = 0; j < NCOL; j++)
        nm[j] = names && names[j] ? names[j] : roles[j];
    /* bit j: the model reads column j (symbol, date and rv always) */
    const unsigned used = 7u | (model == RAID_HAR_J ? 1u << 3 : model == RAID_HAR_CJ ? (1u << 3 | 1u << 5)
                                : model == RAID_HAR_Q ? 1u << 4 : 0u);
    RaidTspec spec[NCOL];
    for (int j = 0; j < NCOL; j++) {
        spec[j].name = nm[j];
        spec[j].what = roles[j];
        spec[j].type = j < C_RV ? RAID_T_STRING : RAID_T_F64;
        spec[j].flags = j < C_RV ? 0u : RAID_T_EMPTY_NA;
        if (j == C_SYM && !symbol_required)
            spec[j].flags |= RAID_T_OPTIONAL;
        if (j > C_RV)
            spec[j].flags |= RAID_T_OPTIONAL | RAID_T_YIELD | (used >> j & 1u ? 0u : RAID_T_DUP_FIRST);
        if (j == C_RV + 3 && (used >> j & 1u))
            spec[j].flags |= RAID_T_KEEP_TEXT; /* for the message of a jump_p out of range */
    }
    RaidTable *tb = NULL;
    raid_status st = raidTableOpen(&tb, path, spec, NCOL);
    if (st != RAID_OK)
        return st;
    RaidTbatch b;
    if ((st = raidTbatchInit(&b, tb)) != RAID_OK) {
        raidTableClose(tb);
        return st;
    }
    raid_har_input *hi = NULL;
    har_run run;
    memset(&run, 0, sizeof run);
    int have[4];
    for (int j = 0; j < 4; j++)
        have[j] = raidTableCol(tb, (size_t)(C_RV + j)) != 0;
    const int has_sym = raidTableCol(tb, C_SYM) != 0;
    const char *pname = have[3] && (used >> 5 & 1u) ? nm[5] : NULL; /* the model reads jump_p: in [0, 1] */
    if ((st = raid_har_input_create(&hi)) == RAID_OK &&
        (st = raid_har_input_set_source(hi, path, (int)raidTableCol(tb, C_DATE))) == RAID_OK)
        st = raid_har_input_set_names(hi, nm[2], nm[3], nm[4], nm[5]);
    /* A symbol seen again after others: the first such row, reported once the whole file has read well
     * (a bad field anywhere comes first, as it always has). */
    char again[RAID_ERRMSG_LEN / 2] = "";
    size_t nrows = 0;
    int done = 0;
    while (st == RAID_OK && !done) {
        const raid_status rs = raidTableRead(tb, &b, TABLE_ROWS, &done);
        size_t i = 0;
        for (; i < b.nrows && st == RAID_OK && !*again; i++, nrows++) {
            if ((st = row_check(tb, &b, i, nm, pname)) != RAID_OK)
                break;
            size_t slen = 0;
            const char *s = has_sym ? raidTcolText(&b.col[C_SYM], i, &slen) : "";
            if (!run.sym || strcmp(run.sym, s)) {
                const int64_t q = raidSymtabFind(&run.done, s, slen);
                if (q >= 0)
                    snprintf(again, sizeof again,
                             "%s:%llu:%zu: symbol '%s' again, after other symbols (its rows end on line %llu); "
                             "the rows of a symbol must be contiguous (sort FILE by symbol, date)",
                             path, (unsigned long long)b.col[C_SYM].line[i], raidTableCol(tb, C_SYM),
                             RAID_SHOW(s, slen),
                             (unsigned long long)run.done_end[q]);
                if (*again || (st = run_flush(&run, hi, have)) != RAID_OK)
                    break;
                if (!(run.sym = malloc(slen + 1))) {
                    st = raidFail(NULL, RAID_ENOMEM, "out of memory");
                    break;
                }
                memcpy(run.sym, s, slen + 1);
            }
            if (run.n) { /* after the symbol's previous date (order.h; row_check refused an empty one) */
                size_t dlen;
                const char *d = raidTcolText(&b.col[C_DATE], i, &dlen);
                if ((st = raidTableCheckDate(tb, nm[C_DATE], run.sym, d, dlen, b.col[C_DATE].line[i],
                                                raidTableCol(tb, C_DATE), run.text + run.date_off[run.n - 1],
                                                (uint64_t)run.line[run.n - 1])) != RAID_OK)
                    break;
            }
            st = run_push(&run, tb, &b, i);
        }
        for (; i < b.nrows && st == RAID_OK && *again; i++) /* the batch's rows after the symbol seen again */
            st = row_check(tb, &b, i, nm, pname);
        if (st == RAID_OK && rs != RAID_OK)
            st = raidFail(NULL, rs, "%s", raidTableErrmsg(tb));
        if (*again && st == RAID_OK) /* read on for a bad field further on, keeping no rows */
            while (!done && st == RAID_OK) {
                const raid_status rs2 = raidTableRead(tb, &b, TABLE_ROWS, &done);
                for (size_t i = 0; i < b.nrows && st == RAID_OK; i++)
                    st = row_check(tb, &b, i, nm, pname);
                if (st == RAID_OK)
                    st = rs2;
            }
    }
    if (st == RAID_OK && *again)
        st = raidFail(NULL, RAID_EPARSE, "%s", again);
    if (st == RAID_OK)
        st = run_flush(&run, hi, have);
    if (st == RAID_OK && !nrows) /* a fit of no data: where the first row would be */
        st = raidTableFailNoRows(tb);
    for (size_t i = 0; st == RAID_OK && i < raidTableNoticeCount(tb); i++) /* facts the fit does not show */
        st = raid_har_input_add_notice(hi, raidTableNotice(tb, i));
    run_free(&run);
    raidTbatchFree(&b);
    raidTableClose(tb);
    if (st != RAID_OK) {
        raid_har_input_destroy(hi);
        return st;
    }
    *out = hi;
    return RAID_OK;
}

/* ---- The CSV writers of a result (raid_har_write_*) ---- */

raid_status raid_har_write_coefs(const raid_har_result *res, FILE *f)
{
    if (!res || !f)
        return raidFail(NULL, RAID_EINVAL, "raid_har_write_coefs: NULL");
    if (!res->nrows)
        return RAID_OK;
    const raid_har_spec *sp = &res->spec;
    const int k = res->k;
    fputs(sp->win_kind ? "symbol,model,transform,h,window_end,n,r2,r2_adj" : "symbol,model,transform,h,n,r2,r2_adj", f);
    for (int j = 0; j < k; j++)
        fprintf(f, ",%s,%s_se,%s_t", sp->names[j], sp->names[j], sp->names[j]);
    fputc('\n', f);
    for (size_t r = 0; r < res->nrows; r++) {
        raid_csv_put_field(f, res->sym[res->row_sym[r]]);
        fprintf(f, ",%s,%s,%d", raid_har_model_name((raid_har_model)sp->model),
                raid_har_transform_name((raid_har_transform)sp->transform), sp->h);
        if (res->row_end[r]) {
            fputc(',', f);
            raid_csv_put_field(f, res->row_end[r]);
        }
        fprintf(f, ",%lld", (long long)res->row_n[r]);
        raid_csv_put_value(f, res->r2[r]);
        raid_csv_put_value(f, res->r2_adj[r]);
        for (int j = 0; j < k; j++) {
            raid_csv_put_value(f, res->beta[r * (size_t)k + (size_t)j]);
            raid_csv_put_value(f, res->se[r * (size_t)k + (size_t)j]);
            raid_csv_put_value(f, res->tstat[r * (size_t)k + (size_t)j]);
        }
        fputc('\n', f);
    }
    return raidCsvWritten(f);
}

raid_status raid_har_write_forecasts(const raid_har_result *res, FILE *f)
{
    if (!res || !f)
        return raidFail(NULL, RAID_EINVAL, "raid_har_write_forecasts: NULL");
    fputs("symbol,date,forecast,actual,sq_err,qlike\n", f);
    for (size_t i = 0; i < res->nfc; i++) {
        raid_csv_put_field(f, res->sym[res->fc_sym[i]]);
        fputc(',', f);
        raid_csv_put_field(f, res->fc_date[i]);
        raid_csv_put_value(f, res->fc[i]);
        raid_csv_put_value(f, res->act[i]);
        raid_csv_put_value(f, res->sqe[i]);
        raid_csv_put_value(f, res->ql[i]);
        fputc('\n', f);
    }
    return raidCsvWritten(f);
}

raid_status raid_har_write_losses(const raid_har_result *res, FILE *f)
{
    if (!res || !f)
        return raidFail(NULL, RAID_EINVAL, "raid_har_write_losses: NULL");
    const raid_har_spec *sp = &res->spec;
    fputs("symbol,model,transform,h,n_forecasts,mse,qlike,n_qlike\n", f);
    for (size_t q = 0; q < res->nsym; q++) {
        size_t n, nq;
        double mse, ql;
        if (!raid_har_result_loss(res, q, &n, &mse, &ql, &nq))
            continue;
        raid_csv_put_field(f, res->sym[q]);
        fprintf(f, ",%s,%s,%d,%zu", raid_har_model_name((raid_har_model)sp->model),
                raid_har_transform_name((raid_har_transform)sp->transform), sp->h, n);
        raid_csv_put_value(f, mse);
        raid_csv_put_value(f, ql);
        fprintf(f, ",%zu\n", nq);
    }
    return raidCsvWritten(f);
}

raid_status raid_har_write_loss_table(const raid_har_result *res, FILE *f)
{
    if (!res || !f)
        return raidFail(NULL, RAID_EINVAL, "raid_har_write_loss_table: NULL");
    const raid_har_spec *sp = &res->spec;
    if (!sp->win_kind || !res->ran)
        return RAID_OK;
    fprintf(f, "forecast losses (%s, transform %s, h %d; QLIKE on the variance scale):\n",
            raid_har_model_name((raid_har_model)sp->model), raid_har_transform_name((raid_har_transform)sp->transform),
            sp->h);
    fprintf(f, "  %-16s %8s %-24s %-24s\n", "symbol", "n", "mse", "qlike");
    for (size_t q = 0; q < res->nsym; q++) {
        size_t n;
        double mse, ql;
        if (raid_har_result_loss(res, q, &n, &mse, &ql, NULL))
            fprintf(f, "  %-16s %8zu %-24.17g %-24.17g\n", *res->sym[q] ? res->sym[q] : "(no symbol)", n, mse, ql);
    }
    return raidCsvWritten(f);
}
