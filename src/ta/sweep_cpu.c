/* The float64 cpu path of the crossover sweep (src/ta/sweep.h; the specification is docs/ta_sweep.md).
 * One scan over the bars per combination gives the trades, the per-bar returns, the exposure and the
 * drawdown; a second pass over the stored nonzero per-bar returns gives their sd. The trade sum is
 * compensated (src/core/dd.h), the sums of per-bar returns blocked (below). */
#include "ta/sweep.h"

#include <assert.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/dd.h"

/* Sums of per-bar returns are plain inside blocks of SWEEP_BLOCK terms and compensated across blocks
 * (docs/ta_sweep.md, "Precision of the cpu path"): the error of a partial sum is at most about
 * SWEEP_BLOCK u times the sum of |terms| of one block, besides the one rounding of its value; as fast as a
 * plain sum (a TwoSum per term made the scan 1.4 times slower). */
#define SWEEP_BLOCK 32

RaidSweepOpts raidSweepOptsDefault(void)
{
    RaidSweepOpts o = {0, RAID_SWEEP_FILL_CLOSE, 0.0, 252.0};
    return o;
}

void raidSweepSeriesFree(RaidSweepSeries *s)
{
    if (!s) return;
    free(s->lc);
    free(s->lgap);
    free(s->lin);
    memset(s, 0, sizeof *s);
}

/* log(a / b) for prices a, b > 0: the log of the quotient, or log a - log b where the quotient would
 * overflow or leave the normal range (prices up to 1e100 and down to the smallest subnormal). */
static double log_ratio(double a, double b)
{
    const double r = a / b;
    return r >= DBL_MIN && r <= DBL_MAX ? log(r) : log(a) - log(b);
}

static raid_status check_prices(const double *p, size_t n, const char *what)
{
    for (size_t t = 0; t < n; t++)
        if (!(isfinite(p[t]) && p[t] > 0.0))
            return raidFail(NULL, RAID_EINVAL, "sweep: %s at bar %zu is %.17g (prices must be finite and > 0)",
                             what, t, p[t]);
    return RAID_OK;
}

raid_status raidSweepSeriesInit(RaidSweepSeries *s, const double *close, const double *open, size_t n)
{
    assert(s);
    memset(s, 0, sizeof *s);
    if (!close) return raidFail(NULL, RAID_EINVAL, "sweep: close is NULL");
    if (n < 3) return raidFail(NULL, RAID_EINVAL, "sweep: %zu bars (at least 3 are needed)", n);
    raid_status st = check_prices(close, n, "close");
    if (st == RAID_OK && open) st = check_prices(open, n, "open");
    if (st != RAID_OK) return st;
    s->n = n;
    s->close = close;
    s->open = open;
    s->lc = malloc(n * sizeof *s->lc);
    if (open) {
        s->lgap = malloc(n * sizeof *s->lgap);
        s->lin = malloc(n * sizeof *s->lin);
    }
    if (!s->lc || (open && (!s->lgap || !s->lin))) {
        raidSweepSeriesFree(s);
        return raidFail(NULL, RAID_ENOMEM, "sweep: out of memory for %zu bars", n);
    }
    s->lc[0] = NAN;
    for (size_t t = 1; t < n; t++) s->lc[t] = log_ratio(close[t], close[t - 1]);
    if (open) {
        s->lgap[0] = s->lin[0] = NAN;
        for (size_t t = 1; t < n; t++) {
            s->lgap[t] = log_ratio(open[t], close[t - 1]);
            s->lin[t] = log_ratio(close[t], open[t]);
        }
    }
    return RAID_OK;
}

raid_status raidSweepOptsCheck(const RaidSweepSeries *s, const RaidSweepOpts *o)
{
    assert(s && o);
    if (o->fill != RAID_SWEEP_FILL_CLOSE && o->fill != RAID_SWEEP_FILL_NEXT_OPEN)
        return raidFail(NULL, RAID_EINVAL, "sweep: unknown fill %d", (int)o->fill);
    if (o->fill == RAID_SWEEP_FILL_NEXT_OPEN && !s->open)
        return raidFail(NULL, RAID_EINVAL, "sweep: fill at the next open needs open prices");
    if (!(o->cost_bps >= 0.0 && o->cost_bps < 1e4))
        return raidFail(NULL, RAID_EINVAL, "sweep: cost %.17g bps per side (expected 0 <= cost < 10000)",
                         o->cost_bps);
    if (!(o->bars_per_year > 0.0 && isfinite(o->bars_per_year)))
        return raidFail(NULL, RAID_EINVAL, "sweep: bars per year %.17g (expected finite and > 0)",
                         o->bars_per_year);
    return RAID_OK;
}

/* The state of one combination's scan outside its hot loop: the open trade and the trade sum. */
typedef struct scan {
    const RaidSweepSeries *s;
    int at_open;
    double c;                    /* log of the wealth factor of one side, <= 0 */
    int pos;                     /* the position after the fills so far */
    size_t entry_bar;
    double entry_price;
    int64_t ntr;
    RaidDd total;               /* sum over trades */
    raid_sweep_trade *trades;
    size_t cap;
} scan;

static void close_trade(scan *S, size_t bar, double price)
{
    if (S->trades && (size_t)S->ntr < S->cap)
        S->trades[S->ntr] = (raid_sweep_trade){(int64_t)S->entry_bar, (int64_t)bar, S->entry_price, price, S->pos};
    raidDdAdd(&S->total, S->pos * log_ratio(price, S->entry_price));
    raidDdAdd(&S->total, 2.0 * S->c);
    S->ntr++;
}

/* Bar t with its fills (target: the position the decision at t-1 asks for) and, at the last bar, the
 * final exit: updates S, returns r[t] and sets *in_pos (a position held over part of the bar). */
static double bar_with_fill(scan *S, size_t t, int target, int *in_pos)
{
    const RaidSweepSeries *s = S->s;
    const int last = t == s->n - 1;
    if (last && !S->at_open) target = 0; /* the fill at the last close only exits */
    const int old = S->pos;
    int sides = 0;
    if (target != old) {
        const double fp = S->at_open ? s->open[t] : s->close[t];
        if (old != 0) {
            close_trade(S, t, fp);
            sides++;
        }
        S->pos = target;
        if (target != 0) {
            S->entry_bar = t;
            S->entry_price = fp;
            sides++;
        }
    }
    const int pos = S->pos;
    /* the price part: old over close[t-1] -> close[t], or old to open[t] and the new one after it */
    double rt;
    if (!S->at_open || pos == old)
        rt = old != 0 ? old * s->lc[t] : 0.0;
    else
        rt = (old != 0 ? old * s->lgap[t] : 0.0) + (pos != 0 ? pos * s->lin[t] : 0.0);
    *in_pos = old != 0 || (S->at_open && pos != 0);
    if (last && pos != 0) {
        close_trade(S, t, s->close[t]);
        sides++;
        S->pos = 0;
    }
    return sides ? rt + sides * S->c : rt;
}

raid_status raidSweepOne(const RaidSweepSeries *s, const double *fast, const double *slow,
                           const RaidSweepOpts *o, raid_sweep_stats *st, raid_sweep_trade *trades,
                           size_t cap, double *work)
{
    assert(s && s->n >= 3 && fast && slow && o && st);
    const size_t n = s->n;
    double *r = work;
    if (!r) {
        r = malloc((n - 1) * sizeof *r);
        if (!r) return raidFail(NULL, RAID_ENOMEM, "sweep: out of memory for %zu bars", n);
    }
    scan S = {s, o->fill == RAID_SWEEP_FILL_NEXT_OPEN, log1p(-o->cost_bps * 1e-4), 0, 0, 0.0, 0, {0.0, 0.0},
              trades, trades ? cap : 0};
    const int short_side = o->short_side;
    const double *lc = s->lc;
    size_t held = 0;             /* return bars in a position */
    size_t nz = 0;               /* nonzero per-bar returns, in r[0..nz), in bar order */
    /* the log equity curve E[t] = base + loc: loc a plain sum of the last < SWEEP_BLOCK nonzero returns,
     * base the compensated sum of the blocks before (its value) */
    RaidDd eq = {0.0, 0.0};
    double base = 0.0, loc = 0.0;
    int inblk = 0;
    double peak = 0.0, mdd = 0.0;
    int pos = 0;

    for (size_t t = 1; t < n; t++) {
        const int target = raidSweepDecide(fast[t - 1], slow[t - 1], short_side);
        double rt;
        if (target == pos && t < n - 1) { /* no fill: the hot path */
            if (pos == 0) continue;       /* flat: r[t] = 0 */
            rt = pos * lc[t];
            held++;
        } else {
            int in_pos;
            S.pos = pos;
            rt = bar_with_fill(&S, t, target, &in_pos);
            pos = S.pos;
            held += in_pos;
        }
        /* a zero return leaves the equity, its peak and the drawdown as they are: only the others are
         * added and kept for the sd */
        if (rt != 0.0) {
            r[nz++] = rt;
            loc += rt;
            const double e = base + loc;
            if (e > peak) peak = e;
            if (peak - e > mdd) mdd = peak - e;
            if (++inblk == SWEEP_BLOCK) {
                raidDdAdd(&eq, loc);
                base = raidDdValue(eq);
                loc = 0.0;
                inblk = 0;
            }
        }
    }
    raidDdAdd(&eq, loc);

    /* sd by two passes: sum over the nonzero returns of (r - mean)^2, plus mean^2 for each zero one */
    const size_t N = n - 1;
    const double mean = raidDdValue(eq) / (double)N;
    RaidDd ss = {0.0, 0.0};
    for (size_t i = 0; i < nz; i += SWEEP_BLOCK) { /* plain inside a block, compensated across */
        const size_t end = i + SWEEP_BLOCK < nz ? i + SWEEP_BLOCK : nz;
        double b = 0.0;
        for (size_t j = i; j < end; j++) {
            const double d = r[j] - mean;
            b += d * d;
        }
        raidDdAdd(&ss, b);
    }
    raidDdAdd(&ss, (double)(N - nz) * (mean * mean));
    const double sd = sqrt(raidDdValue(ss) / (double)(N - 1));
    st->trades = S.ntr;
    st->total_log_return = raidDdValue(S.total);
    st->sharpe = sd > 0.0 ? mean / sd * sqrt(o->bars_per_year) : 0.0;
    st->max_drawdown = mdd;
    st->exposure = (double)held / (double)N;
    if (!work) free(r);
    return RAID_OK;
}

void raidSweepTradesFree(RaidSweepTrades *t, size_t ncomb)
{
    if (!t) return;
    for (size_t k = 0; k < ncomb; k++) {
        free(t[k].v);
        t[k].v = NULL;
        t[k].n = 0;
    }
}

raid_status raidSweepCpu(const RaidSweepSeries *s, const double *ma, size_t nperiods, const int *periods,
                           const uint32_t *fast_idx, const uint32_t *slow_idx, size_t ncomb,
                           const RaidSweepOpts *o, raid_sweep_stats *out, RaidSweepTrades *trades)
{
    assert(s && o);
    raid_status st = raidSweepOptsCheck(s, o);
    if (st != RAID_OK) return st;
    if (ncomb == 0) return RAID_OK;
    if (!ma || !periods || !fast_idx || !slow_idx || !out)
        return raidFail(NULL, RAID_EINVAL, "sweep: NULL table, periods, indices or output");
    for (size_t k = 0; k < ncomb; k++)
        if (fast_idx[k] >= nperiods || slow_idx[k] >= nperiods)
            return raidFail(NULL, RAID_EINVAL, "sweep: combination %zu uses period index %u or %u (%zu periods)",
                             k, fast_idx[k], slow_idx[k], nperiods);
    if (trades) memset(trades, 0, ncomb * sizeof *trades);
    const size_t n = s->n;
    int oom = 0;
#pragma omp parallel reduction(| : oom)
    {
        double *work = malloc((n - 1) * sizeof *work);
        raid_sweep_trade *buf = trades ? malloc((n - 1) * sizeof *buf) : NULL; /* count <= n-1 */
        if (!work || (trades && !buf)) oom = 1;
#pragma omp for schedule(dynamic, 4)
        for (size_t k = 0; k < ncomb; k++) {
            if (oom) continue;
            if (periods[fast_idx[k]] >= periods[slow_idx[k]]) {
                out[k] = (raid_sweep_stats){-1, NAN, NAN, NAN, NAN};
                continue;
            }
            raidSweepOne(s, ma + (size_t)fast_idx[k] * n, ma + (size_t)slow_idx[k] * n, o, &out[k], buf,
                           trades ? n - 1 : 0, work);
            if (trades && out[k].trades > 0) {
                const size_t m = (size_t)out[k].trades;
                trades[k].v = malloc(m * sizeof *trades[k].v);
                if (!trades[k].v) {
                    oom = 1;
                    continue;
                }
                memcpy(trades[k].v, buf, m * sizeof *buf);
                trades[k].n = m;
            }
        }
        free(work);
        free(buf);
    }
    if (oom) {
        raidSweepTradesFree(trades, trades ? ncomb : 0);
        return raidFail(NULL, RAID_ENOMEM, "sweep: out of memory (%zu bars, %zu combinations)", n, ncomb);
    }
    return RAID_OK;
}
