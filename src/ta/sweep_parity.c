/* The parity report of the sweep (include/raid/sweep.h, docs/ta_sweep.md "Parity report"): the comparison
 * of one combination's trade lists (float64 path against a checked path), the classification of each
 * shifted trade by the float64 margin, and the prefix-sum trap's moving averages. The driver (both
 * tables, both scans) is sweep.c's raidSweepRun; the report's text is the job's (src/jobs/sweep.c). */
#include "core/internal.h"
#include "ta/sweep.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PARITY_LIST_CAP 1000 /* shifted trades listed in the report (all are counted) */

raid_status raidSweepPrefixMa(raid_ma_stat ma, int64_t n, const double *x, size_t len, double *out)
{
    if (ma == RAID_MA_WMA)
        return raid_ma_wma_prefix_f32(x, len, n, out);
    if (ma != RAID_MA_HMA)
        return raidFail(NULL, RAID_EINVAL, "sweep: --formulation prefix applies to wma and hma, not %s",
                         raid_ma_stat_name(ma));
    for (size_t t = 0; t < len; t++)
        out[t] = NAN;
    if ((size_t)n > len)
        return RAID_OK;
    const int64_t q = raid_ma_warmup(RAID_MA_HMA, n) - n + 2; /* trunc(sqrt(n)) */
    double *a = malloc(len * sizeof *a), *b = malloc(len * sizeof *b);
    raid_status st = a && b ? RAID_OK : raidFail(NULL, RAID_ENOMEM, "out of memory");
    if (st == RAID_OK && (st = raid_ma_wma_prefix_f32(x, len, n / 2, a)) == RAID_OK &&
        (st = raid_ma_wma_prefix_f32(x, len, n, b)) == RAID_OK) {
        const size_t w = (size_t)n - 1; /* the inner series is defined from bar n - 1 on */
        for (size_t t = w; t < len; t++)
            a[t] = 2.0 * a[t] - b[t];
        st = raid_ma_wma_prefix_f32(a + w, len - w, q, out + w);
    }
    free(a), free(b);
    return st;
}

/* The plain float32 direct window sum of WMA(n) (wma 1) or the mean (wma 0) at every t >= lo + n - 1 of
 * x[0..len), x already float32; NaN before. */
static void f32_window(const float *x, size_t lo, size_t len, int64_t n, int wma, float *out)
{
    const float div = wma ? (float)((double)n * (double)(n + 1) / 2.0) : (float)n;
    for (size_t t = 0; t < len; t++) {
        if (t < lo + (size_t)n - 1) {
            out[t] = NAN;
            continue;
        }
        float acc = 0.0f;
        for (int64_t j = 1; j <= n; j++)
            acc += (wma ? (float)j : 1.0f) * x[t + 1 - (size_t)n + (size_t)(j - 1)];
        out[t] = acc / div;
    }
}

raid_status raidSweepF32Ma(raid_ma_stat ma, int64_t n, const double *x, size_t len, double *out)
{
    if (ma != RAID_MA_WMA && ma != RAID_MA_HMA && ma != RAID_MA_MEAN)
        return raidFail(NULL, RAID_EINVAL, "sweep: precision f32 applies to hma, wma and mean, not %s",
                         raid_ma_stat_name(ma));
    if (len == 0)
        return RAID_OK;
    float *xf = calloc(len, sizeof *xf), *a = malloc(len * sizeof *a), *b = malloc(len * sizeof *b);
    if (!xf || !a || !b) {
        free(xf), free(a), free(b);
        return raidFail(NULL, RAID_ENOMEM, "out of memory");
    }
    /* scaled by 2^-e, the largest |x| into [1/2, 1), as the device scales (src/ta/ma_device.c): float's range
     * then holds every price; the float operations scale exactly, so the values are the device's */
    double M = 0.0;
    for (size_t t = 0; t < len; t++)
        M = fabs(x[t]) > M ? fabs(x[t]) : M;
    int e = 0;
    if (M > 0.0)
        (void)frexp(M, &e);
    for (size_t t = 0; t < len; t++)
        xf[t] = (float)ldexp(x[t], -e);
    if (ma == RAID_MA_HMA) {
        f32_window(xf, 0, len, n / 2, 1, a);
        f32_window(xf, 0, len, n, 1, b);
        for (size_t t = 0; t < len; t++)
            a[t] = 2.0f * a[t] - b[t]; /* NaN in the warm-up */
        f32_window(a, (size_t)n - 1, len, raid_ma_warmup(RAID_MA_HMA, n) - n + 2, 1, b);
    } else {
        f32_window(xf, 0, len, n, ma == RAID_MA_WMA, b);
    }
    for (size_t t = 0; t < len; t++)
        out[t] = ldexp((double)b[t], e);
    free(xf), free(a), free(b);
    return RAID_OK;
}

/* The derived error bound of one float32 direct moving average of period n, in units of u = 2^-24 times
 * the largest price of its windows: n + 3 (each price's rounding to float, each product, the n - 1
 * additions of positive terms, the division); HMA: the two inner averages (2 B(n/2) + B(n)), their doubling
 * and difference (3), the outer WMA of values up to 3 M (3 B(trunc(sqrt n))). */
static double f32_bound(raid_ma_stat ma, int64_t n)
{
    if (ma == RAID_MA_HMA) {
        const int64_t q = raid_ma_warmup(RAID_MA_HMA, n) - n + 2;
        return (double)(2 * (n / 2 + 3) + n + 3 + 3 + 3 * (q + 3));
    }
    return (double)(n + 3);
}

raid_sweep_parity_report *raidSweepParityNew(const raid_sweep_spec *spec, raid_precision prec, int on_device)
{
    raid_sweep_parity_report *r = calloc(1, sizeof *r);
    if (!r || !(r->listed = malloc(PARITY_LIST_CAP * sizeof *r->listed))) {
        free(r);
        return NULL;
    }
    r->precision = prec;
    r->ma = spec->ma;
    r->formulation = spec->formulation;
    r->on_device = on_device;
    r->tie_rel = 1e-12;
    if (prec == RAID_PREC_F32 && spec->formulation == RAID_SWEEP_DIRECT)
        /* twice the bound of the largest periods (windows' prices within twice the close) */
        r->tie_rel = 2.0 * 0x1p-24 * (f32_bound(spec->ma, spec->fast_hi) + f32_bound(spec->ma, spec->slow_hi));
    r->max_violations = 0;
    r->passed = 1;
    return r;
}

void raid_sweep_parity_destroy(raid_sweep_parity_report *r)
{
    if (r)
        free(r->listed);
    free(r);
}

/* The largest float64 margin |f - s| / close at a bar of [lo, hi] where the two paths decide differently;
 * NaN when a moving average is defined on one path only there; -1 when no decision differs. fuzzy (the
 * checked values are a device's double-floats rounded to float64 for the report: hi + lo can need more
 * than 53 bits, and two values that differ as pairs can round to one double): a bar where the checked
 * values are within 2^-51 of each other counts as one where the decisions may differ. */
static double span_margin(const RaidSweepSeries *s, int short_side, const double *f64, const double *s64,
                          const double *fc, const double *sc, size_t lo, size_t hi, int fuzzy)
{
    double m = -1.0;
    for (size_t t = lo; t <= hi && t < s->n; t++) {
        const int near = fuzzy && !isnan(fc[t]) && !isnan(sc[t]) &&
                         fabs(fc[t] - sc[t]) <= 0x1p-51 * fmax(fabs(fc[t]), fabs(sc[t]));
        if (!near && raidSweepDecide(f64[t], s64[t], short_side) == raidSweepDecide(fc[t], sc[t], short_side))
            continue;
        if (isnan(f64[t]) != isnan(fc[t]) || isnan(s64[t]) != isnan(sc[t]))
            return NAN;
        const double v = fabs(f64[t] - s64[t]) / s->close[t];
        if (v > m)
            m = v;
    }
    return m;
}

static void shifted(raid_sweep_parity_report *rep, const RaidSweepSeries *s, int short_side, size_t series,
                    int fast, int slow, const double *f64, const double *s64, const double *fc, const double *sc,
                    int path, const raid_sweep_trade *t)
{
    const size_t lo = t->entry_bar >= 2 ? (size_t)t->entry_bar - 2 : 0;
    const size_t hi = t->exit_bar >= 1 ? (size_t)t->exit_bar - 1 : 0;
    const int f32 = rep->precision == RAID_PREC_F32 && rep->formulation == RAID_SWEEP_DIRECT;
    const double m = span_margin(s, short_side, f64, s64, fc, sc, lo, hi,
                                 rep->on_device && !f32 && rep->formulation == RAID_SWEEP_DIRECT);
    /* float32's tie threshold is the combination's own (its two periods' bounds); float64's 1e-12 */
    const double thr = f32 ? 2.0 * 0x1p-24 * (f32_bound(rep->ma, fast) + f32_bound(rep->ma, slow)) : rep->tie_rel;
    /* m < 0 cannot happen (identical decisions over the span give the same trade); a violation if it does */
    const int tie = m >= 0.0 && m < thr;
    rep->shifted++;
    if (tie)
        rep->ties++;
    else
        rep->violations++;
    if (rep->nlisted < PARITY_LIST_CAP)
        rep->listed[rep->nlisted++] = (raid_sweep_shift){.series = series, .fast = fast, .slow = slow,
                                                         .path = path, .trade = *t, .margin = m < 0.0 ? NAN : m,
                                                         .tie = tie};
    rep->passed = rep->violations <= rep->max_violations && rep->stat_violations == 0;
}

static int same(const raid_sweep_trade *a, const raid_sweep_trade *b)
{
    return a->entry_bar == b->entry_bar && a->exit_bar == b->exit_bar && a->side == b->side;
}

void raidSweepStatsBound(const RaidSweepSeries *s, const RaidSweepOpts *o, const raid_sweep_stats *a,
                            double bound[3])
{
    const double u = 0x1p-53, c = fabs(log1p(-o->cost_bps * 1e-4));
    const size_t n = s->n;
    const int at_open = o->fill == RAID_SWEEP_FILL_NEXT_OPEN && s->lgap;
    double R = 0.0, rmax = 0.0;
    for (size_t t = 1; t < n; t++) {
        const double m = fabs(s->lc[t]) + (at_open ? fabs(s->lgap[t]) + fabs(s->lin[t]) : 0.0);
        R += m;
        rmax = m > rmax ? m : rmax;
    }
    const double T = a->trades > 0 ? (double)a->trades : 0.0, N = (double)(n - 1);
    R += 2.0 * T * c;
    rmax += 3.0 * c;
    const double bt = 2.0 * u * (N + T) + 0x1p-45 * R;
    bound[0] = bt;
    bound[2] = 2.0 * bt;
    bound[1] = INFINITY; /* the sharpe ratio: from the float64 path's sd, when it can be had */
    const double mean = a->total_log_return / N;
    if (mean != 0.0 && a->sharpe != 0.0 && isfinite(a->sharpe)) {
        const double sd = sqrt(o->bars_per_year) * mean / a->sharpe;
        const double dvar = rmax * (0x1p-44 * R + 4.0 * bt) / (N - 1.0);
        const double a1 = sqrt(dvar), a2 = dvar / (2.0 * sd), dsd = a1 < a2 ? a1 : a2;
        if (sd > dsd)
            bound[1] = sqrt(o->bars_per_year) * (bt / N + fabs(mean) * dsd / sd) / (sd - dsd);
    }
}

void raidSweepParityAdd(raid_sweep_parity_report *rep, const RaidSweepSeries *s, const RaidSweepOpts *o,
                           size_t series, int fast, int slow, const double *f64, const double *s64, const double *fc,
                           const double *sc, const raid_sweep_stats *a, const RaidSweepTrades *ta,
                           const raid_sweep_stats *b, const RaidSweepTrades *tb)
{
    const int short_side = o->short_side;
    const int64_t shifted_before = rep->shifted;
    rep->combos++;
    rep->trades += a->trades;
    rep->trades_checked += b->trades;
    const int64_t drift = llabs((long long)(a->trades - b->trades));
    if (drift) {
        rep->count_differs++;
        if (drift > rep->max_count_drift)
            rep->max_count_drift = drift;
    }
    const double d = fabs(a->total_log_return - b->total_log_return);
    if (d > rep->max_abs_dlogret || isnan(d))
        rep->max_abs_dlogret = d;
    /* merge the two lists (entry bars strictly increasing in each) */
    size_t i = 0, j = 0;
    while (i < ta->n || j < tb->n) {
        if (i < ta->n && j < tb->n && same(&ta->v[i], &tb->v[j])) {
            i++, j++;
        } else if (j >= tb->n || (i < ta->n && ta->v[i].entry_bar <= tb->v[j].entry_bar)) {
            shifted(rep, s, short_side, series, fast, slow, f64, s64, fc, sc, 0, &ta->v[i++]);
        } else {
            shifted(rep, s, short_side, series, fast, slow, f64, s64, fc, sc, 1, &tb->v[j++]);
        }
    }
    if (rep->shifted != shifted_before)
        return;
    /* equal trade lists: equal counts and exposures, the other statistics within the bound */
    double bound[3];
    raidSweepStatsBound(s, o, a, bound);
    const double dv[3] = {fabs(a->total_log_return - b->total_log_return), fabs(a->sharpe - b->sharpe),
                          fabs(a->max_drawdown - b->max_drawdown)};
    int bad = a->trades != b->trades || a->exposure != b->exposure;
    for (int i = 0; i < 3; i++) {
        if (!(dv[i] <= bound[i])) /* NaN too */
            bad = 1;
        else if (isfinite(bound[i]) && bound[i] > 0.0 && dv[i] / bound[i] > rep->max_stat_ratio)
            rep->max_stat_ratio = dv[i] / bound[i];
    }
    rep->stat_checked++;
    rep->stat_violations += (size_t)bad;
    rep->passed = rep->violations <= rep->max_violations && rep->stat_violations == 0;
}
