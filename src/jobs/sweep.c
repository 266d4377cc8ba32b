/* The job of raid sweep (include/raid/sweep.h): the sweep of a table read by raid_ma_read_csv_columns
 * (src/jobs/ma.c: the closes and, optional, the opens; raid_sweep_run, raid_sweep_parity), computed by the
 * sweep's entry (src/ta/sweep.c raidSweepRun), and the writers of the result (raid_sweep_write_csv,
 * raid_sweep_write_trades) and of the parity report (raid_sweep_parity_write). docs/ta_sweep.md. */
#include "core/internal.h"
#include "core/outfile.h"
#include "ta/ma_internal.h"
#include "ta/sweep.h"

#include <stdio.h>
#include <stdlib.h>

/* raid_sweep_run and raid_sweep_parity on a read table (par NULL: the sweep). */
static raid_status run_input(raid_ctx *ctx, const raid_sweep_spec *spec, const raid_ma_input *in,
                             raid_sweep_result **out, raid_sweep_parity_report **par)
{
    if (out)
        *out = NULL;
    if (par)
        *par = NULL;
    if (!in)
        return raidFail(ctx, RAID_EINVAL, "raid_sweep_run: input is NULL");
    if (!in->nrows) /* a backtest of no data (raidTableFailNoRows' words): where the first row would be */
        return raidFail(ctx, RAID_EPARSE, "%s:%llu:1: no data rows (only a header)", in->path,
                         (unsigned long long)in->header_line + 1);
    const size_t ns = in->syms.n;
    const char **sym = NULL;
    if (in->has_symbol && !(sym = malloc(ns * sizeof *sym)))
        return raidFail(ctx, RAID_ENOMEM, "out of memory");
    for (size_t s = 0; sym && s < ns; s++)
        sym[s] = in->syms.names[s];
    const raid_status st =
        raidSweepRun(ctx, spec, in->v[0], in->ncols > 1 ? in->v[1] : NULL, in->offsets, ns, sym, in, out, par);
    free(sym);
    return st;
}

raid_status raid_sweep_run(raid_ctx *ctx, const raid_sweep_spec *spec, const raid_ma_input *in, raid_sweep_result **out)
{
    if (!out)
        return raidFail(ctx, RAID_EINVAL, "raid_sweep_run: out is NULL");
    return run_input(ctx, spec, in, out, NULL);
}

raid_status raid_sweep_parity(raid_ctx *ctx, const raid_sweep_spec *spec, const raid_ma_input *in,
                              raid_sweep_parity_report **out, raid_sweep_result **res)
{
    if (res)
        *res = NULL;
    if (!out)
        return raidFail(ctx, RAID_EINVAL, "raid_sweep_parity: out is NULL");
    return run_input(ctx, spec, in, res, out);
}

/* "symbol,fast,slow" of combination k (the symbol when the result has symbols). */
static void put_key(FILE *f, const raid_sweep_result *r, size_t k)
{
    if (r->sym) {
        raid_csv_put_field(f, r->sym[k / r->ncomb]);
        fputc(',', f);
    }
    fprintf(f, "%d,%d", r->fast[k % r->ncomb], r->slow[k % r->ncomb]);
}

raid_status raid_sweep_write_csv(const raid_sweep_result *r, FILE *f)
{
    if (!r || !f)
        return raidFail(NULL, RAID_EINVAL, "raid_sweep_write_csv: NULL");
    fprintf(f, "%sfast,slow,trades,total_log_return,sharpe,max_drawdown,exposure\n", r->sym ? "symbol," : "");
    for (size_t k = 0; k < r->nseries * r->ncomb; k++) {
        const raid_sweep_stats *s = &r->st[k];
        put_key(f, r, k);
        if (s->trades >= 0)
            fprintf(f, ",%lld", (long long)s->trades);
        else /* no value: empty fields, as every undefined value of RAID's outputs */
            fputc(',', f);
        raid_csv_put_value(f, s->total_log_return);
        raid_csv_put_value(f, s->sharpe);
        raid_csv_put_value(f, s->max_drawdown);
        raid_csv_put_value(f, s->exposure);
        fputc('\n', f);
    }
    return raidCsvWritten(f);
}

raid_status raid_sweep_write_trades(const raid_sweep_result *r, FILE *f)
{
    if (!r || !f || !r->tr)
        return raidFail(NULL, RAID_EINVAL, "raid_sweep_write_trades: NULL, or the trades were not kept");
    fprintf(f, "%sfast,slow,entry_bar,exit_bar,entry_price,exit_price,side\n", r->sym ? "symbol," : "");
    for (size_t k = 0; k < r->nseries * r->ncomb; k++)
        for (size_t i = 0; i < r->tr[k].n; i++) {
            const raid_sweep_trade *t = &r->tr[k].v[i];
            put_key(f, r, k);
            fprintf(f, ",%lld,%lld", (long long)t->entry_bar, (long long)t->exit_bar);
            raid_csv_put_value(f, t->entry_price);
            raid_csv_put_value(f, t->exit_price);
            fprintf(f, ",%d\n", t->side);
        }
    return raidCsvWritten(f);
}

raid_status raid_sweep_parity_write(const raid_sweep_parity_report *r, FILE *f)
{
    if (!r || !f)
        return raidFail(NULL, RAID_EINVAL, "raid_sweep_parity_write: NULL");
    const char *path = r->formulation == RAID_SWEEP_PREFIX
                           ? "float32 prefix-sum moving averages on the host (the trap)"
                       : r->precision == RAID_PREC_F32
                           ? (r->on_device ? "plain float32 direct-sum moving averages on the device"
                                           : "plain float32 direct-sum moving averages (emulated on the host)")
                       : r->on_device ? "double-float moving averages on the device"
                                      : "float64 moving averages on the host (no device: equal by construction)";
    fprintf(f, "parity: float64 cpu path against %s, %s\n", path,
            r->on_device ? "trades and statistics scanned on the device" : "the same scan on the host");
    fprintf(f, "parity: combinations %zu, trades %lld (float64) %lld (checked)\n", r->combos, (long long)r->trades,
            (long long)r->trades_checked);
    fprintf(f, "parity: combinations whose trade count differs %zu; largest trade-count drift %lld\n",
            r->count_differs, (long long)r->max_count_drift);
    fprintf(f, "parity: largest |delta total_log_return| %.3g\n", r->max_abs_dlogret);
    const int64_t all = r->trades + r->trades_checked;
    fprintf(f, "parity: shifted trades %lld of %lld (%.3g); at %s (margin < %.3g of the close) %lld\n",
            (long long)r->shifted, (long long)all, all ? (double)r->shifted / (double)all : 0.0,
            r->tie_rel > 1e-12 ? "float32 ties" : "float64 ties", r->tie_rel,
            (long long)r->ties);
    fprintf(f, "parity: statistics of the %zu combinations with equal trades: outside the bound %zu (threshold 0); "
               "largest |delta| / bound %.3g\n", r->stat_checked, r->stat_violations, r->max_stat_ratio);
    fprintf(f, "parity: shifted trades outside ties %lld (threshold %lld): %s\n", (long long)r->violations,
            (long long)r->max_violations, r->passed ? "PASSED" : "FAILED");
    if (r->nlisted)
        fprintf(f, "parity: %s (path 0: float64 trade, 1: checked path's):\n",
                r->nlisted < (size_t)r->shifted ? "the first shifted trades" : "shifted trades");
    for (size_t k = 0; k < r->nlisted; k++) {
        const raid_sweep_shift *x = &r->listed[k];
        fprintf(f, "parity:   series %zu fast %d slow %d path %d entry %lld exit %lld side %d margin %.3g %s\n",
                x->series, x->fast, x->slow, x->path, (long long)x->trade.entry_bar, (long long)x->trade.exit_bar,
                x->trade.side, x->margin, x->tie ? "tie" : "VIOLATION");
    }
    return raidCsvWritten(f);
}
