/* Ticks to bars (raid bars; include/raid/bars.h, docs/column.md "Ticks to bars"): the bars' fields from
 * raid_groupby_compute over the trades' (symbol, interval) keys: open, high, low, close, trades from the
 * prices (first, max, min, last, count), volume the exact sum of the sizes, vwap the exact sum of price x
 * size (each product split exactly into two doubles by TwoProd, both summed) divided by the volume, both
 * sums taken with no exponent range (raidGbGroupbySumScaled) so that sums beyond the largest double give
 * the vwap too. Every aggregation is the group-by's, so the bars are bit for bit the same on the cpu path
 * and a device. The trades come from the job (src/jobs/bars.c). */
#include "column/bars_internal.h"
#include "column/groupby_internal.h"

#include "io/tz.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void raid_bars_destroy(raid_bars *b)
{
    if (!b)
        return;
    raidSymtabFree(&b->syms);
    free(b->sym), free(b->start_us), free(b->open), free(b->high), free(b->low), free(b->close);
    free(b->volume), free(b->vwap), free(b->trades);
    raidStrlistFree(&b->notices);
    free(b);
}

#define RAID_BARS_MAX_DAYS 3650 /* the longest interval, in days */

/* N (a positive decimal integer) and a unit ms, s, min, h or d (any case), N x unit at most
 * RAID_BARS_MAX_DAYS days: every unit has the same limit, so 25h, 1500min and 90000s are as good as 2d. */
raid_status raid_bars_parse_interval(const char *s, int64_t *us)
{
    static const struct { const char *name; int64_t us; } units[] = {
        {"ms", 1000}, {"s", RAID_US_PER_S}, {"min", 60 * RAID_US_PER_S}, {"h", 3600 * RAID_US_PER_S},
        {"d", RAID_US_PER_DAY}};
    if (!s || !us)
        return raidFail(NULL, RAID_EINVAL, "raid_bars_parse_interval: NULL");
    const int64_t max_us = (int64_t)RAID_BARS_MAX_DAYS * RAID_US_PER_DAY;
    const char *p = s;
    int64_t n = 0;
    while (*p >= '0' && *p <= '9' && n <= max_us) /* n past max_us: refused below, never overflows */
        n = n * 10 + (*p++ - '0');
    if (p > s && n > 0 && !(*p >= '0' && *p <= '9'))
        for (size_t u = 0; u < sizeof units / sizeof *units; u++)
            if (strcasecmp(p, units[u].name) == 0 && n <= max_us / units[u].us) {
                *us = n * units[u].us;
                return RAID_OK;
            }
    return raidFail(NULL, RAID_EINVAL, "bad interval '%s' (expected Nms, Ns, Nmin, Nh or Nd, N a positive integer, "
                     "at most %d days)", RAID_SHOWZ(s), RAID_BARS_MAX_DAYS);
}

raid_status raidBarsMake(raid_ctx *ctx, raid_bars *bars, const RaidBarsTrades *r)
{
    int64_t *k2 = NULL;
    double *ps = NULL;
    raid_groupby *gp = NULL, *gv = NULL, *gs = NULL;
    raid_status st = RAID_OK;
    /* prices: open, high, low, close, trades; sizes: volume; price x size exactly (two doubles a trade) */
    const raid_agg pa[5] = {RAID_AGG_FIRST, RAID_AGG_MAX, RAID_AGG_MIN, RAID_AGG_LAST, RAID_AGG_COUNT},
                   sa[1] = {RAID_AGG_SUM};
    if (!(k2 = malloc(2 * (r->n ? r->n : 1) * sizeof *k2)) || !(ps = malloc(2 * (r->n ? r->n : 1) * sizeof *ps)))
        st = raidFail(NULL, RAID_ENOMEM, "out of memory");
    if (st == RAID_OK) {
        for (size_t i = 0; i < r->n; i++) {
            const double p = r->price[i] * r->size[i];
            k2[2 * i] = k2[2 * i + 1] = r->key[i];
            ps[2 * i] = p;
            ps[2 * i + 1] = fma(r->price[i], r->size[i], -p); /* the product's rounding error: p + e exact */
        }
        if ((st = raid_groupby_compute(ctx, r->key, r->price, NULL, r->n, pa, 5, 0, &gp)) == RAID_OK &&
            (st = raidGbCompute(ctx, r->key, r->size, NULL, r->n, sa, 1, GB_SCALED, 0, -1, &gv)) == RAID_OK &&
            (st = raidGbCompute(ctx, k2, ps, NULL, 2 * r->n, sa, 1, GB_SCALED, 0, -1, &gs)) == RAID_OK) {
            const size_t n = raid_groupby_ngroups(gp);
            bars->n = n;
            const size_t m = n ? n : 1;
            bars->sym = malloc(m * sizeof *bars->sym), bars->start_us = malloc(m * sizeof *bars->start_us);
            bars->open = malloc(m * sizeof(double)), bars->high = malloc(m * sizeof(double));
            bars->low = malloc(m * sizeof(double)), bars->close = malloc(m * sizeof(double));
            bars->volume = malloc(m * sizeof(double)), bars->vwap = malloc(m * sizeof(double));
            bars->trades = malloc(m * sizeof *bars->trades);
            if (!bars->sym || !bars->start_us || !bars->open || !bars->high || !bars->low || !bars->close ||
                !bars->volume || !bars->vwap || !bars->trades)
                st = raidFail(NULL, RAID_ENOMEM, "out of memory");
            const int64_t *key = raid_groupby_keys(gp), *cnt = raid_groupby_counts(gp);
            for (size_t g = 0; g < n && st == RAID_OK; g++) {
                bars->sym[g] = (uint32_t)(key[g] >> RAID_BARS_KEY_BITS);
                bars->start_us[g] = ((key[g] & ((INT64_C(1) << RAID_BARS_KEY_BITS) - 1)) - (INT64_C(1) << (RAID_BARS_KEY_BITS - 1)) + r->base) * r->iv;
                bars->open[g] = raid_groupby_column(gp, 0)[g], bars->high[g] = raid_groupby_column(gp, 1)[g];
                bars->low[g] = raid_groupby_column(gp, 2)[g], bars->close[g] = raid_groupby_column(gp, 3)[g];
                bars->volume[g] = raid_groupby_column(gv, 0)[g];
                /* the two exact sums rounded to 53 bits with no exponent range, divided, scaled back: the
                 * rounded sums' quotient wherever they are normal doubles, and also where a sum is beyond
                 * the largest double (two trades at 1e308 each: the products' sum is inf, the vwap 1e308) */
                int e1 = 0, e2 = 0;
                const double f1 = raidGbGroupbySumScaled(gs, g, &e1), f2 = raidGbGroupbySumScaled(gv, g, &e2);
                bars->vwap[g] = bars->volume[g] > 0.0 ? ldexp(f1 / f2, e1 - e2) : NAN;
                bars->trades[g] = cnt[g];
            }
        }
        if (st != RAID_OK)
            st = raidFail(NULL, st, "%s", ctx ? raid_ctx_errmsg(ctx) : raid_errmsg());
    }
    raid_groupby_destroy(gp), raid_groupby_destroy(gv), raid_groupby_destroy(gs);
    free(k2), free(ps);
    return st;
}

size_t raid_bars_count(const raid_bars *b) { return b ? b->n : 0; }

const double *raid_bars_field(const raid_bars *b, raid_bars_col f)
{
    if (!b || !b->n)
        return NULL;
    switch (f) {
    case RAID_BARS_OPEN: return b->open;
    case RAID_BARS_HIGH: return b->high;
    case RAID_BARS_LOW: return b->low;
    case RAID_BARS_CLOSE: return b->close;
    case RAID_BARS_VOLUME: return b->volume;
    case RAID_BARS_VWAP: return b->vwap;
    }
    return NULL;
}

const int64_t *raid_bars_start(const raid_bars *b) { return b && b->n ? b->start_us : NULL; }
const int64_t *raid_bars_trades(const raid_bars *b) { return b && b->n ? b->trades : NULL; }
const uint32_t *raid_bars_symbols(const raid_bars *b) { return b && b->n ? b->sym : NULL; }
size_t raid_bars_nsymbols(const raid_bars *b) { return b ? b->syms.n : 0; }
const char *raid_bars_symbol(const raid_bars *b, size_t j) { return b ? raidSymtabName(&b->syms, j) : NULL; }

size_t raid_bars_notice_count(const raid_bars *b) { return b ? b->notices.n : 0; }

const char *raid_bars_notice(const raid_bars *b, size_t i) { return b ? raidStrlistGet(&b->notices, i) : NULL; }
