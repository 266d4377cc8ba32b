/* The sweep's computation (include/raid/sweep.h): the spec, the grid, every distinct moving average of a
 * series computed once (raid_ma_compute on the cpu, raidMaDeviceTable on a device), each series through
 * sweep_backends (the float64 cpu path of sweep_cpu.c or the device scan of sweep_device.c), the result
 * and its accessors; raid_sweep_run_arrays and raid_sweep_parity_arrays. The run over a series handle and
 * the writers are the job's (src/jobs/sweep.c). docs/ta_sweep.md is the specification. */
#define _POSIX_C_SOURCE 200809L
#include "core/internal.h"
#include "core/strlist.h"
#include "ta/ma_device.h"
#include "ta/ma_internal.h"
#include "ta/sweep.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void raid_sweep_spec_default(raid_sweep_spec *s)
{
    if (!s)
        return;
    memset(s, 0, sizeof *s);
    s->ma = RAID_MA_HMA;
    s->fast_lo = 5, s->fast_hi = 50, s->fast_step = 1;
    s->slow_lo = 20, s->slow_hi = 200, s->slow_step = 5;
    s->fill = RAID_SWEEP_FILL_CLOSE;
    s->bars_per_year = 252.0;
    s->formulation = RAID_SWEEP_DIRECT;
}

/* A decimal integer in [1, RAID_SWEEP_MAX_PERIOD] from s up to the end or ':'; NULL if none. */
static const char *period(const char *s, int *v)
{
    long x = 0;
    const char *p = s;
    while (*p >= '0' && *p <= '9') {
        x = x * 10 + (*p - '0');
        if (x > RAID_SWEEP_MAX_PERIOD)
            return NULL;
        p++;
    }
    if (p == s || x < 1 || (*p && *p != ':'))
        return NULL;
    *v = (int)x;
    return p;
}

raid_status raid_sweep_parse_range(const char *s, int *lo, int *hi, int *step)
{
    if (!s || !lo || !hi || !step)
        return raidFail(NULL, RAID_EINVAL, "raid_sweep_parse_range: NULL argument");
    int v[3] = {0, 0, 1}, k = 0;
    const char *p = s;
    for (;;) {
        if (k == 3 || !(p = period(p, &v[k])))
            return raidFail(NULL, RAID_EINVAL,
                             "bad range '%s' (expected LO:HI:STEP, LO:HI or P: integers in [1, %d])", RAID_SHOWZ(s),
                             RAID_SWEEP_MAX_PERIOD);
        k++;
        if (!*p)
            break;
        p++;
    }
    if (k == 1)
        v[1] = v[0];
    if (v[1] < v[0])
        return raidFail(NULL, RAID_EINVAL, "bad range '%s' (LO %d > HI %d)", RAID_SHOWZ(s), v[0], v[1]);
    *lo = v[0], *hi = v[1], *step = v[2];
    return RAID_OK;
}

static int range_ok(int lo, int hi, int step)
{
    return lo >= 1 && hi >= lo && hi <= RAID_SWEEP_MAX_PERIOD && step >= 1;
}

/* The combinations of the grid with fast < slow (fast, slow NULL: count only). */
static size_t grid(const raid_sweep_spec *s, int *fast, int *slow)
{
    size_t k = 0;
    for (int f = s->fast_lo; f <= s->fast_hi; f += s->fast_step) {
        for (int w = s->slow_lo; w <= s->slow_hi; w += s->slow_step) {
            if (f >= w)
                continue;
            if (fast)
                fast[k] = f, slow[k] = w;
            if (++k > RAID_SWEEP_MAX_COMBOS)
                return k;
            if (s->slow_hi - w < s->slow_step)
                break;
        }
        if (s->fast_hi - f < s->fast_step)
            break;
    }
    return k;
}

raid_status raid_sweep_spec_check(const raid_ctx *ctx, const raid_sweep_spec *s)
{
    if (!s)
        return raidFail(NULL, RAID_EINVAL, "raid_sweep_spec_check: NULL spec");
    if (s->ma != RAID_MA_HMA && s->ma != RAID_MA_WMA && s->ma != RAID_MA_MEAN && s->ma != RAID_MA_EMA)
        return raidFail(NULL, RAID_EINVAL, "sweep: moving average '%s' (expected hma, wma, mean or ema)",
                         raid_ma_stat_name(s->ma));
    if (!range_ok(s->fast_lo, s->fast_hi, s->fast_step) || !range_ok(s->slow_lo, s->slow_hi, s->slow_step))
        return raidFail(NULL, RAID_EINVAL, "sweep: bad range fast %d:%d:%d or slow %d:%d:%d (1 <= LO <= HI <= %d, "
                         "STEP >= 1)", s->fast_lo, s->fast_hi, s->fast_step, s->slow_lo, s->slow_hi, s->slow_step,
                         RAID_SWEEP_MAX_PERIOD);
    if (s->ma == RAID_MA_HMA && s->fast_lo < 2)
        return raidFail(NULL, RAID_EINVAL, "sweep: hma needs periods >= 2 (fast starts at %d)", s->fast_lo);
    if (s->fill != RAID_SWEEP_FILL_CLOSE && s->fill != RAID_SWEEP_FILL_NEXT_OPEN)
        return raidFail(NULL, RAID_EINVAL, "sweep: bad fill %d", (int)s->fill);
    if (!(s->cost_bps >= 0.0 && s->cost_bps < 1e4))
        return raidFail(NULL, RAID_EINVAL, "sweep: cost_bps %g (expected [0, 10000))", s->cost_bps);
    if (!(s->bars_per_year > 0.0 && isfinite(s->bars_per_year)))
        return raidFail(NULL, RAID_EINVAL, "sweep: bars_per_year %g (expected > 0)", s->bars_per_year);
    if (s->formulation != RAID_SWEEP_DIRECT && s->formulation != RAID_SWEEP_PREFIX)
        return raidFail(NULL, RAID_EINVAL, "sweep: bad formulation %d", (int)s->formulation);
    if (s->formulation == RAID_SWEEP_DIRECT && raid_ctx_precision(ctx) == RAID_PREC_F32 && s->ma == RAID_MA_EMA)
        return raidFail(NULL, RAID_EINVAL, "sweep: precision f32 applies to hma, wma and mean, not ema");
    if (s->formulation == RAID_SWEEP_PREFIX && s->ma != RAID_MA_WMA && s->ma != RAID_MA_HMA)
        return raidFail(NULL, RAID_EINVAL, "sweep: --formulation prefix applies to wma and hma, not %s",
                         raid_ma_stat_name(s->ma));
    const size_t k = grid(s, NULL, NULL);
    if (k == 0)
        return raidFail(NULL, RAID_EINVAL, "sweep: no combination with fast < slow (fast %d:%d:%d, slow %d:%d:%d)",
                         s->fast_lo, s->fast_hi, s->fast_step, s->slow_lo, s->slow_hi, s->slow_step);
    if (k > RAID_SWEEP_MAX_COMBOS)
        return raidFail(NULL, RAID_EINVAL, "sweep: more than %d combinations", RAID_SWEEP_MAX_COMBOS);
    return RAID_OK;
}

void raid_sweep_result_destroy(raid_sweep_result *r)
{
    if (!r)
        return;
    if (r->tr)
        raidSweepTradesFree(r->tr, r->nseries * r->ncomb);
    if (r->sym)
        for (size_t s = 0; s < r->nseries; s++)
            free(r->sym[s]);
    free(r->sym), free(r->tr), free(r->st), free(r->fast), free(r->slow);
    raidStrlistFree(&r->msg);
    free(r->msg_series);
    free(r);
}

/* The first bad price of a series (t, *what); -1 when all are finite and > 0. */
static int64_t bad_price(const double *close, const double *open, size_t n, const char **what)
{
    for (size_t t = 0; t < n; t++) {
        if (!(isfinite(close[t]) && close[t] > 0.0))
            return *what = "close", (int64_t)t;
        if (open && !(isfinite(open[t]) && open[t] > 0.0))
            return *what = "open", (int64_t)t;
    }
    return -1;
}

/* Every period's float64 moving average of one series (raid_ma_compute on the host), the periods in
 * parallel: table[p n .. p n + n). Errors: raid_ma_compute's (the first period's that failed). */
static raid_status host_table(raid_ctx *ctx, raid_ma_stat ma, const int *periods, size_t np, const double *c, size_t n,
                              double *table)
{
    const int64_t seg[2] = {0, (int64_t)n};
    long bad = -1;
#pragma omp parallel for schedule(dynamic, 1)
    for (size_t p = 0; p < np; p++)
        if (raid_ma_compute(NULL, ma, periods[p], c, seg, 1, table + p * n) != RAID_OK) {
#pragma omp critical(raidSweepTable)
            bad = bad < 0 || (long)p < bad ? (long)p : bad;
        }
    if (bad >= 0) /* again, on this thread, for its message */
        return raidFail(ctx, raid_ma_compute(NULL, ma, periods[bad], c, seg, 1, table + (size_t)bad * n), "sweep: %s",
                         raid_errmsg());
    return RAID_OK;
}

/* The checked path's moving averages on the host when they are not float64's: the prefix-sum trap or the
 * float32 direct sums (emulated), table[p n ..]. */
static raid_status host_other(raid_ctx *ctx, const raid_sweep_spec *spec, const int *periods, size_t np,
                              const double *c, size_t n, double *table)
{
    for (size_t p = 0; p < np; p++) {
        const raid_status st = spec->formulation == RAID_SWEEP_PREFIX
                                   ? raidSweepPrefixMa(spec->ma, periods[p], c, n, table + p * n)
                                   : raidSweepF32Ma(spec->ma, periods[p], c, n, table + p * n);
        if (st != RAID_OK)
            return raidFail(ctx, st, "%s", raid_errmsg());
    }
    return RAID_OK;
}

/* A combination without a value: its series skipped, or its slow average undefined up to the last bar
 * (include/raid/sweep.h: trades -1, NaN statistics; written as empty fields). */
static const raid_sweep_stats no_value = {-1, NAN, NAN, NAN, NAN};

/* Record that the message just added to r->msg is about series s. RAID_OK or RAID_ENOMEM (message set). */
static raid_status msg_of(raid_ctx *ctx, raid_sweep_result *r, size_t s)
{
    if (r->msg.n > r->msg_cap) {
        const size_t cap = r->msg_cap ? 2 * r->msg_cap : 16;
        size_t *p = realloc(r->msg_series, cap * sizeof *p);
        if (!p)
            return raidFail(ctx, RAID_ENOMEM, "out of memory");
        r->msg_series = p, r->msg_cap = cap;
    }
    r->msg_series[r->msg.n - 1] = s;
    return RAID_OK;
}

/* Series s in messages: "series 'A'" (a file with symbols), "the series" (a file without), "series S ('A')"
 * or "series S" (arrays). */
static void series_label(const char *const *symbols, const raid_ma_input *in, size_t s, char *buf, size_t n)
{
    if (in)
        symbols ? snprintf(buf, n, "series '%s'", RAID_SHOWZ(symbols[s])) : snprintf(buf, n, "the series");
    else
        symbols ? snprintf(buf, n, "series %zu ('%s')", s, RAID_SHOWZ(symbols[s])) : snprintf(buf, n, "series %zu", s);
}

/* A series of fewer than 3 bars (the Sharpe ratio's sd needs two returns): reported and skipped, its
 * combinations without a value, as raid garch reports a series too short and fits the others. The message
 * names, for a file, the series' first row and its symbol column (the close column without one). */
static raid_status skip_series(raid_ctx *ctx, raid_sweep_result *r, const char *const *symbols,
                               const raid_ma_input *in, const int64_t *off, size_t s, size_t n)
{
    char lab[RAID_ERRMSG_LEN / 4], where[RAID_ERRMSG_LEN / 2] = "";
    series_label(symbols, in, s, lab, sizeof lab);
    if (in && n)
        snprintf(where, sizeof where, "%s:%llu:%zu: ", in->path, (unsigned long long)in->line[off[s]],
                 in->sym_field ? in->sym_field : in->field[0]);
    for (size_t k = 0; k < r->ncomb; k++)
        r->st[s * r->ncomb + k] = no_value;
    if (raidStrlistAddf(&r->msg, "%s%s has %zu bar%s (at least 3 are needed): skipped, its combinations have no value",
                          where, lab, n, n == 1 ? "" : "s"))
        return raidFail(ctx, RAID_ENOMEM, "out of memory");
    return msg_of(ctx, r, s);
}

/* The combinations of series s (n bars) whose slow average has its first value too late for a position
 * (its warm-up, raid_ma_warmup, is the first bar with a decision; a decision at bar t is filled at bar t+1,
 * and a fill at the last close only exits: a position needs t <= n - 3 with fill at the close, t <= n - 2
 * at the next open): without a value rather than zeros that would pose as the statistics of a strategy
 * (R TTR refuses a window longer than the series). Their trade lists are empty (no position). One message
 * per series that has any. */
static raid_status mark_no_value(raid_ctx *ctx, raid_sweep_result *r, const raid_sweep_spec *spec,
                                 const char *const *symbols, const raid_ma_input *in, size_t s, size_t n)
{
    const raid_ma_stat ma = spec->ma;
    const int64_t last = (int64_t)n - (spec->fill == RAID_SWEEP_FILL_CLOSE ? 3 : 2); /* the last useful decision */
    size_t cnt = 0;
    int pmin = 0;
    for (size_t k = 0; k < r->ncomb; k++)
        if (raid_ma_warmup(ma, r->slow[k]) > last) {
            r->st[s * r->ncomb + k] = no_value;
            if (!cnt++ || r->slow[k] < pmin)
                pmin = r->slow[k];
        }
    if (!cnt)
        return RAID_OK;
    char lab[RAID_ERRMSG_LEN / 4];
    series_label(symbols, in, s, lab, sizeof lab);
    if (raidStrlistAddf(&r->msg, "%s: %zu of %zu combinations have no value: a slow %s of period %d or more has its "
                          "first value at bar %lld or later (0-based), too late for a position in %zu bars",
                          lab, cnt, r->ncomb, raid_ma_stat_name(ma), pmin, (long long)raid_ma_warmup(ma, pmin), n))
        return raidFail(ctx, RAID_ENOMEM, "out of memory");
    return msg_of(ctx, r, s);
}

/* What one series' sweep shares with the next (run): the grid's rows, the options, the tables of moving
 * averages (table: float64's; table2: the checked path's on the host; either allocated on first need) and
 * the parity's arrays (par: a parity run). */
typedef struct sweep_job {
    const raid_sweep_spec *spec;
    const int *periods;
    size_t np, maxn;
    const uint32_t *fi, *si;
    size_t ncomb;
    const RaidSweepOpts *o;
    int par, other;
    double **table, **table2;
    raid_sweep_stats *st2;
    RaidSweepTrades *tr64, *tr2;
} sweep_job;

/* One series on the cpu: the checked path's table and scan (float64, the f32 emulation, or the trap), then
 * float64's for the parity. */
static raid_status series_cpu(raid_ctx *ctx, const sweep_job *j, const RaidSweepSeries *ser, const double *c,
                              size_t n, raid_sweep_stats *res, RaidSweepTrades *rtr)
{
    const size_t np = j->np;
    raid_status st = RAID_OK;
    if (!*j->table && !(*j->table = malloc(np * j->maxn * sizeof **j->table)))
        st = raidFail(ctx, RAID_ENOMEM, "out of memory");
    if (st == RAID_OK && j->other && !*j->table2 && !(*j->table2 = malloc(np * j->maxn * sizeof **j->table2)))
        st = raidFail(ctx, RAID_ENOMEM, "out of memory");
    if (st != RAID_OK)
        return st;
    double *table = *j->table, *table2 = *j->table2;
    if ((st = host_table(ctx, j->spec->ma, j->periods, np, c, n, table)) == RAID_OK && j->other)
        st = host_other(ctx, j->spec, j->periods, np, c, n, table2);
    if (st != RAID_OK)
        return st;
    const double *tc = j->other ? table2 : table;
    if ((st = raidSweepCpu(ser, tc, np, j->periods, j->fi, j->si, j->ncomb, j->o, res, j->par ? j->tr2 : rtr)) ==
            RAID_OK && j->par)
        st = raidSweepCpu(ser, table, np, j->periods, j->fi, j->si, j->ncomb, j->o, j->st2, j->tr64);
    if (st == RAID_OK && j->par && !j->other && table2) /* the parity's checked table */
        memcpy(table2, table, np * n * sizeof *table);
    if (st != RAID_OK)
        st = raidFail(ctx, st, "%s", raid_errmsg());
    return st;
}

/* One series on a device: the moving averages (or the trap's, from the host), the scan and the statistics
 * there (sweep_device.c), float64's on the cpu for the parity. A series whose prices span more than float's
 * range (2^95) is swept on the cpu path (series_cpu), as on a cpu context: part of this entry. */
static raid_status series_device(raid_ctx *ctx, const sweep_job *j, const RaidSweepSeries *ser, const double *c,
                                 size_t n, raid_sweep_stats *res, RaidSweepTrades *rtr)
{
    if (!raidMaDeviceRangeOk(c, n))
        return series_cpu(ctx, j, ser, c, n, res, rtr);
    const size_t np = j->np;
    raid_status st = RAID_OK;
    if (*j->table && j->par)
        st = host_table(ctx, j->spec->ma, j->periods, np, c, n, *j->table);
    RaidBuf tab = {0};
    int e = 0;
    if (st == RAID_OK && j->spec->formulation == RAID_SWEEP_PREFIX) {
        if ((st = host_other(ctx, j->spec, j->periods, np, c, n, *j->table2)) == RAID_OK)
            st = raidSweepDeviceTableUpload(ctx, *j->table2, np, n, &tab);
    } else if (st == RAID_OK) {
        st = raidMaDeviceTable(ctx, j->spec->ma, j->periods, np, c, n, raid_ctx_precision(ctx) == RAID_PREC_F32,
                              &tab, &e);
        if (st == RAID_OK && j->par)
            st = raidSweepDeviceTableDownload(ctx, &tab, np, n, e, *j->table2);
    }
    if (st == RAID_OK)
        st = raidSweepDeviceRun(ctx, ser, &tab, np, j->fi, j->si, j->ncomb, j->o, res, j->par ? j->tr2 : rtr);
    raidBufRelease(ctx, &tab);
    if (st == RAID_OK && j->par &&
        (st = raidSweepCpu(ser, *j->table, np, j->periods, j->fi, j->si, j->ncomb, j->o, j->st2, j->tr64)) != RAID_OK)
        st = raidFail(ctx, st, "%s", raid_errmsg());
    return st;
}

/* The backends of a series' sweep, chosen by RAID_BACKEND(sweep_backends, ctx); device: 1 where the checked
 * path is the device's (the parity report's label, the tables it needs). */
typedef struct sweep_backend {
    raid_status (*series)(raid_ctx *ctx, const sweep_job *j, const RaidSweepSeries *ser, const double *c, size_t n,
                          raid_sweep_stats *res, RaidSweepTrades *rtr);
    int device;
} sweep_backend;
static const sweep_backend sweep_backends[2] = {
    [RAID_ON_CPU] = {series_cpu, 0},
    [RAID_ON_DEVICE] = {series_device, 1},
};

/* The sweep of every series (sweep.h); with par, the parity report: a second table of the checked path's
 * moving averages (ctx's, the prefix trap's or the float32 direct sums') and a second scan of every
 * combination on it, compared by raidSweepParityAdd. */
raid_status raidSweepRun(raid_ctx *ctx, const raid_sweep_spec *spec, const double *close, const double *open,
                       const int64_t *off, size_t nseries, const char *const *symbols, const raid_ma_input *in,
                       raid_sweep_result **out, raid_sweep_parity_report **par)
{
    if (!out && !par)
        return raidFail(ctx, RAID_EINVAL, "raid_sweep_run: out is NULL");
    if (out)
        *out = NULL;
    if (par)
        *par = NULL;
    if (!spec || !close || !off || nseries == 0)
        return raidFail(ctx, RAID_EINVAL, "raid_sweep_run: NULL argument or no series");
    if (raid_sweep_spec_check(ctx, spec) != RAID_OK)
        return raidFail(ctx, RAID_EINVAL, "%s", raid_errmsg());
    if (spec->fill == RAID_SWEEP_FILL_NEXT_OPEN && !open)
        return raidFail(ctx, RAID_EINVAL, "sweep: --fill next-open needs open prices (no open column)");
    if (spec->fill == RAID_SWEEP_FILL_CLOSE)
        open = NULL; /* not used: not checked */
    if (off[0] < 0)
        return raidFail(ctx, RAID_EINVAL, "raid_sweep_run: offsets[0] = %lld < 0", (long long)off[0]);
    for (size_t s = 0; s < nseries; s++) {
        if (off[s + 1] < off[s])
            return raidFail(ctx, RAID_EINVAL, "raid_sweep_run: offsets decrease at series %zu", s);
        const size_t n = (size_t)(off[s + 1] - off[s]); /* fewer than 3 bars: skipped below (skip_series) */
        const char *what = NULL;
        const int64_t t = bad_price(close + off[s], open ? open + off[s] : NULL, n, &what);
        if (t >= 0) {
            const size_t i = (size_t)(off[s] + t);
            const double v = (what[0] == 'c' ? close : open)[i];
            if (in && isnan(v)) /* the file's row: FILE:LINE:COL */
                return raidFail(ctx, RAID_EPARSE, "%s:%llu:%zu: %s is missing on %s (prices must be finite and > 0)",
                                 in->path, (unsigned long long)in->line[i], in->field[what[0] == 'c' ? 0 : 1], what,
                                 in->text + in->date_off[i]);
            if (in)
                return raidFail(ctx, RAID_EPARSE, "%s:%llu:%zu: %s %.17g on %s (prices must be finite and > 0)",
                                 in->path, (unsigned long long)in->line[i], in->field[what[0] == 'c' ? 0 : 1], what,
                                 v, in->text + in->date_off[i]);
            return raidFail(ctx, RAID_EINVAL, "sweep: series %zu, bar %lld: %s is %.17g (prices must be finite and > 0)",
                             s, (long long)t, what, v);
        }
    }
    raid_sweep_result *r = calloc(1, sizeof *r);
    if (!r)
        return raidFail(ctx, RAID_ENOMEM, "out of memory");
    r->nseries = nseries;
    r->ncomb = grid(spec, NULL, NULL);
    const size_t nk = nseries * r->ncomb;
    if (nk / nseries != r->ncomb || nk > SIZE_MAX / sizeof(raid_sweep_stats)) {
        raid_sweep_result_destroy(r);
        return raidFail(ctx, RAID_ENOMEM, "sweep: %zu series x %zu combinations do not fit in memory", nseries,
                         r->ncomb);
    }
    r->fast = malloc(r->ncomb * sizeof *r->fast);
    r->slow = malloc(r->ncomb * sizeof *r->slow);
    r->st = malloc(nk * sizeof *r->st);
    if (spec->keep_trades)
        r->tr = calloc(nk, sizeof *r->tr);
    if (symbols && (r->sym = calloc(nseries, sizeof *r->sym)))
        for (size_t s = 0; s < nseries; s++)
            if (!(r->sym[s] = strdup(symbols[s] ? symbols[s] : ""))) {
                raid_sweep_result_destroy(r);
                return raidFail(ctx, RAID_ENOMEM, "out of memory");
            }
    /* the distinct periods (ascending) and each combination's rows of the table */
    int maxp = spec->fast_hi > spec->slow_hi ? spec->fast_hi : spec->slow_hi;
    int *row = calloc((size_t)maxp + 1, sizeof *row), *periods = NULL;
    uint32_t *fi = malloc(r->ncomb * sizeof *fi), *si = malloc(r->ncomb * sizeof *si);
    size_t maxn = 3; /* (at least: the tables of a run whose every series is skipped are still allocated) */
    for (size_t s = 0; s < nseries; s++)
        if ((size_t)(off[s + 1] - off[s]) > maxn)
            maxn = (size_t)(off[s + 1] - off[s]);
    raid_status st = RAID_OK;
    if (!r->fast || !r->slow || !r->st || (spec->keep_trades && !r->tr) || (symbols && !r->sym) || !row || !fi || !si)
        st = raidFail(ctx, RAID_ENOMEM, "out of memory");
    size_t np = 0;
    if (st == RAID_OK) {
        grid(spec, r->fast, r->slow);
        for (size_t k = 0; k < r->ncomb; k++)
            row[r->fast[k]] = row[r->slow[k]] = 1;
        for (int p = 1; p <= maxp; p++)
            np += (size_t)row[p];
        if (!(periods = malloc(np * sizeof *periods)))
            st = raidFail(ctx, RAID_ENOMEM, "out of memory");
    }
    const int dev = RAID_BACKEND(sweep_backends, ctx)->device;
    /* the checked path's moving averages when they are not float64's: the trap or float32 sums */
    const raid_precision prec = raid_ctx_precision(ctx);
    const int other = spec->formulation == RAID_SWEEP_PREFIX || prec == RAID_PREC_F32;
    double *table = NULL, *table2 = NULL;
    raid_sweep_stats *st2 = NULL;
    RaidSweepTrades *tr64 = NULL, *tr2 = NULL;
    raid_sweep_parity_report *rep = NULL;
    if (st == RAID_OK && par) {
        if (!(rep = raidSweepParityNew(spec, prec, dev)) || !(st2 = malloc(r->ncomb * sizeof *st2)) ||
            !(tr64 = calloc(r->ncomb, sizeof *tr64)) || !(tr2 = calloc(r->ncomb, sizeof *tr2)))
            st = raidFail(ctx, RAID_ENOMEM, "out of memory");
    }
    if (st == RAID_OK) {
        np = 0;
        for (int p = 1; p <= maxp; p++)
            if (row[p])
                row[p] = (int)np, periods[np++] = p;
        for (size_t k = 0; k < r->ncomb; k++)
            fi[k] = (uint32_t)row[r->fast[k]], si[k] = (uint32_t)row[r->slow[k]];
        /* table: float64's (the cpu sweep, the parity's oracle); table2: the checked path's on the host */
        const int need64 = !dev || par, need2 = (!dev && other) || (dev && (par || spec->formulation == RAID_SWEEP_PREFIX));
        if (np > SIZE_MAX / sizeof(double) / maxn || (need64 && !(table = malloc(np * maxn * sizeof *table))) ||
            (need2 && !(table2 = malloc(np * maxn * sizeof *table2))))
            st = raidFail(ctx, RAID_ENOMEM, "out of memory for %zu moving averages of %zu bars", np, maxn);
    }
    RaidSweepOpts o = raidSweepOptsDefault();
    o.short_side = spec->short_side;
    o.fill = spec->fill;
    o.cost_bps = spec->cost_bps;
    o.bars_per_year = spec->bars_per_year;
    for (size_t s = 0; s < nseries && st == RAID_OK; s++) {
        const size_t n = (size_t)(off[s + 1] - off[s]);
        const double *c = close + off[s];
        if (n < 3) { /* skipped: its backtests count as done */
            if ((st = skip_series(ctx, r, symbols, in, off, s, n)) == RAID_OK)
                raidProgress(ctx, (s + 1) * r->ncomb, nseries * r->ncomb, "backtests");
            continue;
        }
        RaidSweepSeries ser;
        if ((st = raidSweepSeriesInit(&ser, c, open ? open + off[s] : NULL, n)) != RAID_OK) {
            st = raidFail(ctx, st, "%s", raid_errmsg());
            break;
        }
        raid_sweep_stats *res = r->st + s * r->ncomb;           /* the sweep's (checked path's) results */
        RaidSweepTrades *rtr = r->tr ? r->tr + s * r->ncomb : NULL;
        const sweep_job job = {spec, periods, np, maxn, fi, si, r->ncomb, &o, par != NULL, other, &table, &table2,
                               st2, tr64, tr2};
        st = RAID_BACKEND(sweep_backends, ctx)->series(ctx, &job, &ser, c, n, res, rtr);
        /* the parity: float64 (table, st2, tr64) against the checked path (table2 or table, res, tr2) */
        const double *tc = other || (dev && table2) ? table2 : table;
        for (size_t k = 0; par && st == RAID_OK && k < r->ncomb; k++)
            raidSweepParityAdd(rep, &ser, &o, s, r->fast[k], r->slow[k], table + fi[k] * n, table + si[k] * n,
                                  tc + fi[k] * n, tc + si[k] * n, st2 + k, tr64 + k, res + k, tr2 + k);
        if (par && st == RAID_OK) {
            if (rtr) /* the checked path's lists are the result's */
                memcpy(rtr, tr2, r->ncomb * sizeof *tr2), memset(tr2, 0, r->ncomb * sizeof *tr2);
            raidSweepTradesFree(tr2, r->ncomb); /* the lists go, the arrays stay */
            raidSweepTradesFree(tr64, r->ncomb);
        }
        if (st == RAID_OK) /* after the parity, which compares what both paths computed */
            st = mark_no_value(ctx, r, spec, symbols, in, s, n);
        raidSweepSeriesFree(&ser);
        if (st == RAID_OK)
            raidProgress(ctx, (s + 1) * r->ncomb, nseries * r->ncomb, "backtests");
    }
    free(table), free(periods), free(row), free(fi), free(si), free(table2), free(st2);
    if (tr2)
        raidSweepTradesFree(tr2, r->ncomb); /* after a failure: freed per series otherwise */
    if (tr64)
        raidSweepTradesFree(tr64, r->ncomb);
    free(tr2), free(tr64);
    if (st != RAID_OK) {
        raid_sweep_result_destroy(r);
        raid_sweep_parity_destroy(rep);
        return st;
    }
    for (size_t k = 0; k < nk; k++)
        r->nvalued += r->st[k].trades >= 0;
    if (par) {
        rep->passed = rep->violations <= rep->max_violations && rep->stat_violations == 0;
        *par = rep;
    }
    if (out)
        *out = r;
    else
        raid_sweep_result_destroy(r);
    return RAID_OK;
}

raid_status raid_sweep_run_arrays(raid_ctx *ctx, const raid_sweep_spec *spec, const double *close, const double *open,
                                  const int64_t *offsets, size_t nseries, const char *const *symbols,
                                  raid_sweep_result **out)
{
    return raidSweepRun(ctx, spec, close, open, offsets, nseries, symbols, NULL, out, NULL);
}

raid_status raid_sweep_parity_arrays(raid_ctx *ctx, const raid_sweep_spec *spec, const double *close,
                                     const double *open, const int64_t *offsets, size_t nseries,
                                     const char *const *symbols, raid_sweep_parity_report **out,
                                     raid_sweep_result **res)
{
    if (res)
        *res = NULL;
    if (!out)
        return raidFail(ctx, RAID_EINVAL, "raid_sweep_parity: out is NULL");
    return raidSweepRun(ctx, spec, close, open, offsets, nseries, symbols, NULL, res, out);
}

size_t raid_sweep_result_count(const raid_sweep_result *r) { return r ? r->nseries * r->ncomb : 0; }

raid_status raid_sweep_result_get(const raid_sweep_result *r, size_t k, size_t *series, int *fast, int *slow,
                                  raid_sweep_stats *st)
{
    if (!r || k >= r->nseries * r->ncomb)
        return raidFail(NULL, RAID_EINVAL, "raid_sweep_result_get: NULL result or k %zu out of range", k);
    if (series)
        *series = k / r->ncomb;
    if (fast)
        *fast = r->fast[k % r->ncomb];
    if (slow)
        *slow = r->slow[k % r->ncomb];
    if (st)
        *st = r->st[k];
    return RAID_OK;
}

raid_status raid_sweep_result_trades(const raid_sweep_result *r, size_t k, const raid_sweep_trade **v, size_t *n)
{
    if (!r || !v || !n || k >= r->nseries * r->ncomb || !r->tr)
        return raidFail(NULL, RAID_EINVAL, "raid_sweep_result_trades: NULL, k out of range or trades not kept");
    *v = r->tr[k].v;
    *n = r->tr[k].n;
    return RAID_OK;
}

size_t raid_sweep_result_nvalued(const raid_sweep_result *r) { return r ? r->nvalued : 0; }
size_t raid_sweep_result_nmessages(const raid_sweep_result *r) { return r ? r->msg.n : 0; }
const char *raid_sweep_result_message(const raid_sweep_result *r, size_t i)
{
    return r ? raidStrlistGet(&r->msg, i) : NULL;
}
size_t raid_sweep_result_message_series(const raid_sweep_result *r, size_t i)
{
    return r && i < r->msg.n ? r->msg_series[i] : (size_t)-1;
}

const char *raid_sweep_result_symbol(const raid_sweep_result *r, size_t s)
{
    return r && s < r->nseries ? (r->sym ? r->sym[s] : "") : NULL;
}
