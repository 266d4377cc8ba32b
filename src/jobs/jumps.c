/* The jumps job (include/raid/jumps.h): raid_jumps_lm over each symbol's rows of a finished table of returns
 * (src/jobs/returns.c reads and segments them), and the CSV of the detected jumps. */
#define _POSIX_C_SOURCE 200809L
#include "core/internal.h"
#include "core/outfile.h"
#include "io/tz.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct raid_jumps_table {
    size_t nrows;
    double *stat;
    int8_t *jump;
    size_t *window; /* per symbol */
    size_t nsym, njumps;
};

void raid_jumps_table_destroy(raid_jumps_table *tab)
{
    if (!tab)
        return;
    free(tab->stat);
    free(tab->jump);
    free(tab->window);
    free(tab);
}

raid_status raid_jumps_table_compute(raid_jumps_table **out, const raid_returns_table *ret, size_t window, double alpha)
{
    static const char fn[] = "raid_jumps_table_compute";
    if (!out || !ret)
        return raidFail(NULL, RAID_EINVAL, "%s: NULL", fn);
    *out = NULL;
    const size_t n = raid_returns_table_nrows(ret), nsym = raid_returns_table_nsymbols(ret);
    if (n && !raid_returns_table_returns(ret))
        return raidFail(NULL, RAID_EINVAL, "%s: the returns table is not finished", fn);
    if (window != 0 && window < 3)
        return raidFail(NULL, RAID_EINVAL, "%s: window %zu is below 3 (K - 2 >= 1 products)", fn, window);
    if (!(alpha > 0.0 && alpha < 1.0))
        return raidFail(NULL, RAID_EINVAL, "%s: alpha %g is not in (0, 1)", fn, alpha);
    raid_jumps_table *t = calloc(1, sizeof *t);
    int64_t *off = malloc((n + 1) * sizeof *off);
    if (t) {
        t->stat = malloc((n ? n : 1) * sizeof *t->stat);
        t->jump = malloc((n ? n : 1) * sizeof *t->jump);
        t->window = calloc(nsym ? nsym : 1, sizeof *t->window);
    }
    if (!t || !off || !t->stat || !t->jump || !t->window) {
        free(off);
        raid_jumps_table_destroy(t);
        return raidFail(NULL, RAID_ENOMEM, "out of memory");
    }
    t->nrows = n;
    t->nsym = nsym;
    const uint32_t *sym = raid_returns_table_symbol_ids(ret);
    const int32_t *date = raid_returns_table_dates(ret);
    const double *r = raid_returns_table_returns(ret);
    /* the rows are sorted by symbol, then date: each symbol's rows are one series, its dates the days */
    for (size_t a = 0; a < n;) {
        size_t b = a, nseg = 0;
        off[0] = (int64_t)a;
        while (b < n && sym[b] == sym[a]) {
            size_t e = b;
            while (e < n && sym[e] == sym[a] && date[e] == date[b])
                e++;
            off[++nseg] = (int64_t)e;
            b = e;
        }
        const size_t K = window ? window : raid_jumps_lm_window((int64_t)(b - a), (int64_t)nseg);
        t->window[sym[a]] = K;
        raid_status st = raid_jumps_lm(r, off, nseg, K, alpha, t->stat, t->jump);
        if (st != RAID_OK) {
            free(off);
            raid_jumps_table_destroy(t);
            return st;
        }
        a = b;
    }
    free(off);
    for (size_t i = 0; i < n; i++)
        t->njumps += t->jump[i] == RAID_JUMP_YES;
    *out = t;
    return RAID_OK;
}

size_t raid_jumps_table_nrows(const raid_jumps_table *tab) { return tab ? tab->nrows : 0; }
const double *raid_jumps_table_statistic(const raid_jumps_table *tab) { return tab && tab->nrows ? tab->stat : NULL; }
const int8_t *raid_jumps_table_jump(const raid_jumps_table *tab) { return tab && tab->nrows ? tab->jump : NULL; }
size_t raid_jumps_table_window(const raid_jumps_table *tab, size_t j) { return tab && j < tab->nsym ? tab->window[j] : 0; }
size_t raid_jumps_table_njumps(const raid_jumps_table *tab) { return tab ? tab->njumps : 0; }

raid_status raid_jumps_table_write_csv(const raid_jumps_table *tab, const raid_returns_table *ret, FILE *f, int all)
{
    static const char fn[] = "raid_jumps_table_write_csv";
    if (!tab || !ret || !f)
        return raidFail(NULL, RAID_EINVAL, "%s: NULL", fn);
    const size_t n = raid_returns_table_nrows(ret);
    if (n != tab->nrows || (n && !raid_returns_table_returns(ret)))
        return raidFail(NULL, RAID_EINVAL, "%s: not the returns table the jumps were computed from", fn);
    const uint32_t *sym = raid_returns_table_symbol_ids(ret);
    const int32_t *date = raid_returns_table_dates(ret);
    const int64_t *time = raid_returns_table_times(ret);
    const double *r = raid_returns_table_returns(ret);
    fputs(all ? "symbol,date,timestamp,ret,statistic,sign,jump\n" : "symbol,date,timestamp,ret,statistic,sign\n", f);
    char when[48];
    for (size_t i = 0; i < n; i++) {
        const int8_t j = tab->jump[i];
        if (all ? j == RAID_JUMP_UNTESTED : j != RAID_JUMP_YES)
            continue;
        const int32_t d = date[i];
        raid_csv_put_field(f, raid_returns_table_symbol_name(ret, sym[i]));
        fprintf(f, ",%04d-%02d-%02d,%s", d / 10000, d / 100 % 100, d % 100, raidIoFormatTime(when, sizeof when, time[i], 0));
        raid_csv_put_value(f, r[i]);
        raid_csv_put_value(f, tab->stat[i]);
        fprintf(f, ",%d", r[i] > 0 ? 1 : r[i] < 0 ? -1 : 0);
        if (all) {
            if (j == RAID_JUMP_UNDEFINED)
                fputs(",", f);
            else
                fprintf(f, ",%d", j == RAID_JUMP_YES);
        }
        fputc('\n', f);
    }
    return raidCsvWritten(f);
}
