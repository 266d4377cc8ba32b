/* Ticks to bars (raid bars; include/raid/bars.h, docs/column.md "Ticks to bars"): trades read with the table
 * reader (symbol, timestamp, price, size), each put in its (symbol, interval) group by an int64 key, and the
 * bars' fields from raid_groupby_compute: open, high, low, close, trades from the prices (first, max, min,
 * last, count), volume the exact sum of the sizes, vwap the exact sum of price x size (each product
 * split exactly into two doubles by TwoProd, both summed) divided by the volume, both sums taken with no
 * exponent range (raidGbGroupbySumScaled) so that sums beyond the largest double give the vwap too. Every
 * aggregation is the group-by's, so the bars are bit for bit the same on the cpu path and a device. */
#define _POSIX_C_SOURCE 200809L
#include "column/groupby_internal.h"
#include "core/internal.h"
#include "core/outfile.h"
#include "io/symtab.h"
#include "io/table.h"
#include "io/segment.h"
#include "io/tz.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define TABLE_ROWS 8192
#define KEY_BITS 40 /* the interval index's bits in a key: the symbol's index above them */
/* The starts written: 0001-01-01T00:00:00 to 9999-12-31T23:59:59.999999 (microseconds from 1970). */
#define RAID_BARS_MIN_US (INT64_C(-62135596800) * RAID_US_PER_S)
#define RAID_BARS_MAX_US (INT64_C(253402300800) * RAID_US_PER_S - 1)

struct raid_bars {
    RaidSymtab syms;
    size_t n;                  /* bars */
    uint32_t *sym;             /* n symbol indices */
    int64_t *start_us;         /* n local wall-clock starts (microseconds since 1970-01-01T00:00:00) */
    double *open, *high, *low, *close, *volume, *vwap;
    int64_t *trades;
    RaidStrlist notices;      /* the table reader's (raid_bars_notice); none from arrays */
};

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

/* The trades kept so far: their group keys, prices and sizes, and what the checks need. The one path of
 * every trade, from a CSV file (read_trades) or arrays (raid_bars_compute): trade_add, then bars_make. */
typedef struct acc {
    int64_t iv;                 /* the interval, microseconds */
    const RaidIoTz *tz;
    int32_t ses_lo_s, ses_hi_s; /* the session window (raid_parse_session; -1: none) */
    size_t n, cap;
    int64_t base;   /* the first kept trade's interval index: keys hold the index less it */
    int64_t *key;
    double *price, *size;
    int64_t *last;  /* the last UTC instant of each symbol: trades in time order */
    size_t lcap;
} acc;

static void acc_free(acc *a) { free(a->key), free(a->price), free(a->size), free(a->last); }

static int acc_push(acc *r, int64_t key, double price, double size)
{
    if (r->n == r->cap) {
        const size_t c = r->cap ? 2 * r->cap : 65536;
        if (raidRegrow(&r->key, c, sizeof *r->key) || raidRegrow(&r->price, c, sizeof *r->price) ||
            raidRegrow(&r->size, c, sizeof *r->size))
            return -1;
        r->cap = c;
    }
    r->key[r->n] = key, r->price[r->n] = price, r->size[r->n] = size;
    r->n++;
    return 0;
}

enum { C_SYM = 0, C_TS = 1, C_PRICE = 2, C_SIZE = 3 };

/* The local wall-clock time of a UTC instant (the instant of a local wall-clock time is raidIoTzInstant,
 * the same rule as `raid realized`'s: the order check compares instants; a time in a spring-forward gap
 * is the moment of the switch). */
static int64_t wall_of(const RaidIoTz *tz, int64_t utc)
{
    return utc + (int64_t)raidIoTzOffset(tz, raidIoFloordiv(utc, RAID_US_PER_S), NULL, NULL) * RAID_US_PER_S;
}


/* One trade of symbol q (its name for messages) at local time wall and instant utc: the order, price and
 * size checks (every trade), the session window, the interval's key. Returns RAID_OK, or RAID_ENOMEM, or
 * RAID_EPARSE with the problem in msg and *col the column it concerns (C_TS, C_PRICE, C_SIZE). */
static raid_status trade_add(acc *a, int64_t q, const char *name, int64_t wall, int64_t utc, double p, double s,
                             char *msg, size_t len, int *col)
{
    if (q < 0 || q >= (INT64_C(1) << (62 - KEY_BITS)))
        return raidFail(NULL, RAID_ENOMEM, "out of memory (or more than 2^22 symbols)");
    if ((size_t)q >= a->lcap) {
        size_t c = a->lcap ? 2 * a->lcap : 64;
        while (c <= (size_t)q)
            c *= 2;
        int64_t *l = realloc(a->last, c * sizeof *l);
        if (!l)
            return raidFail(NULL, RAID_ENOMEM, "out of memory");
        for (size_t j = a->lcap; j < c; j++)
            l[j] = INT64_MIN;
        a->last = l, a->lcap = c;
    }
    *col = C_TS;
    if (utc < a->last[q]) {
        snprintf(msg, len, "timestamp earlier than the previous trade of symbol '%s' (trades must be in time order "
                 "within a symbol)", RAID_SHOWZ(name));
        return RAID_EPARSE;
    }
    a->last[q] = utc;
    if (!(isfinite(p) && p > 0.0)) {
        *col = C_PRICE;
        snprintf(msg, len, "price %.17g (expected finite and > 0)", p);
        return RAID_EPARSE;
    }
    if (!(isfinite(s) && s >= 0.0)) {
        *col = C_SIZE;
        snprintf(msg, len, "size %.17g (expected finite and >= 0)", s);
        return RAID_EPARSE;
    }
    if (!isfinite(p * s)) { /* the vwap sums each trade's product exactly: it must be a double */
        *col = C_SIZE;
        snprintf(msg, len, "size %.17g: price x size (price %.17g) is beyond float64's range", s, p);
        return RAID_EPARSE;
    }
    int next = 0; /* a window across midnight: from its start on, the next trading date (bars of whole days) */
    if (!raidSessionKeep(a->ses_lo_s, a->ses_hi_s, raidIoFloormod(wall, RAID_US_PER_DAY), &next))
        return RAID_OK;
    const int64_t k = raidIoFloordiv(wall + (next && a->iv % RAID_US_PER_DAY == 0 ? RAID_US_PER_DAY : 0), a->iv);
    if (a->n == 0)
        a->base = k; /* buckets counted from the first trade's: 2^39 of them either way */
    if (k - a->base <= -(INT64_C(1) << (KEY_BITS - 1)) || k - a->base >= (INT64_C(1) << (KEY_BITS - 1)) ||
        k < RAID_BARS_MIN_US / a->iv || k > RAID_BARS_MAX_US / a->iv) {
        snprintf(msg, len, "the interval of this timestamp starts before year 1, after year 9999 or 2^39 intervals "
                 "away from the first trade's");
        return RAID_EPARSE;
    }
    if (acc_push(a, (q << KEY_BITS) + (k - a->base) + (INT64_C(1) << (KEY_BITS - 1)), p, s) != 0)
        return raidFail(NULL, RAID_ENOMEM, "out of memory");
    return RAID_OK;
}

/* Read every trade of path into a (symbols into bars->syms), the bytes read reported to ctx's progress. */
static raid_status read_trades(raid_ctx *ctx, raid_bars *bars, const char *path, acc *a)
{
    const RaidTspec spec[4] = {{"symbol", "symbol", RAID_T_STRING, RAID_T_OPTIONAL},
                                {"timestamp", "timestamp", RAID_T_TIMESTAMP, 0},
                                {"price", "price", RAID_T_F64, 0},
                                {"size", "size", RAID_T_F64, RAID_T_OPTIONAL}};
    RaidTable *t = NULL;
    RaidTbatch b = {0};
    raid_status st = raidTableOpen(&t, path, spec, 4);
    if (st == RAID_OK)
        st = raidTbatchInit(&b, t);
    if (st == RAID_OK)
        raidTableSetProgress(t, ctx);
    const int has_sym = st == RAID_OK && raidTableCol(t, C_SYM) != 0, has_size = st == RAID_OK && raidTableCol(t, C_SIZE) != 0;
    char msg[256];
    for (int fin = 0; !fin && st == RAID_OK;) {
        const raid_status rs = raidTableRead(t, &b, TABLE_ROWS, &fin);
        for (size_t i = 0; i < b.nrows && st == RAID_OK; i++) {
            size_t len = 0;
            const char *name = has_sym ? raidTcolText(&b.col[C_SYM], i, &len) : "";
            const RaidTcol *ts = &b.col[C_TS];
            /* the local wall-clock time: as written without an offset, else the instant in the zone */
            int64_t wall = ts->i64[i], utc;
            if (ts->tz_s[i] != RAID_T_NO_OFFSET)
                utc = wall - (int64_t)ts->tz_s[i] * RAID_US_PER_S, wall = wall_of(a->tz, utc);
            else
                utc = raidIoTzInstant(a->tz, wall);
            int col = 0;
            st = trade_add(a, raidSymtabAdd(&bars->syms, name, len), name, wall, utc, b.col[C_PRICE].f64[i],
                           has_size ? b.col[C_SIZE].f64[i] : 1.0, msg, sizeof msg, &col);
            if (st == RAID_EPARSE)
                st = raidTableFail(t, ts->line[i], raidTableCol(t, col), "%s", msg);
        }
        if (st == RAID_OK)
            st = rs;
    }
    if (st == RAID_OK)
        st = raidTableCopyNotices(t, &bars->notices);
    if (st != RAID_OK && t && *raidTableErrmsg(t))
        st = raidFail(NULL, st, "%s", raidTableErrmsg(t));
    raidTbatchFree(&b);
    raidTableClose(t);
    return st;
}

/* The bars of the trades in a (bars->syms filled): three group-bys, then the fields. Reports through
 * raidFail(NULL, ...). */
static raid_status bars_make(raid_ctx *ctx, raid_bars *bars, const acc *r)
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
                bars->sym[g] = (uint32_t)(key[g] >> KEY_BITS);
                bars->start_us[g] = ((key[g] & ((INT64_C(1) << KEY_BITS) - 1)) - (INT64_C(1) << (KEY_BITS - 1)) + r->base) * r->iv;
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

/* The start of both entry points: the options into a (the zone into *tz), an empty *bars. Reports
 * through ctx; nothing to free on failure. */
static raid_status job_open(raid_ctx *ctx, acc *a, const char *interval, const char *tzname, const char *session,
                            RaidIoTz **tz, raid_bars **bars)
{
    memset(a, 0, sizeof *a);
    a->ses_lo_s = a->ses_hi_s = -1;
    *tz = NULL, *bars = NULL;
    raid_status st = raid_bars_parse_interval(interval, &a->iv);
    if (st == RAID_OK && session)
        st = raid_parse_session(session, &a->ses_lo_s, &a->ses_hi_s);
    if (st == RAID_OK)
        st = raidIoTzOpen(tz, tzname);
    if (st != RAID_OK)
        return raidFail(ctx, RAID_EINVAL, "%s", raid_errmsg());
    a->tz = *tz;
    if (!(*bars = calloc(1, sizeof **bars))) {
        raidIoTzFree(*tz);
        return raidFail(ctx, RAID_ENOMEM, "out of memory");
    }
    return RAID_OK;
}

/* The end of both entry points: the bars from a, or the failure st through ctx. */
static raid_status bars_end(raid_ctx *ctx, raid_status st, raid_bars *bars, acc *a, RaidIoTz *tz, raid_bars **out)
{
    if (st == RAID_OK)
        st = bars_make(ctx, bars, a);
    acc_free(a);
    raidIoTzFree(tz);
    if (st != RAID_OK) {
        raid_bars_destroy(bars);
        return raidFail(ctx, st, "%s", raid_errmsg());
    }
    *out = bars;
    return RAID_OK;
}

raid_status raid_bars_run_csv(raid_ctx *ctx, const char *path, const char *interval, const char *tzname,
                              const char *session, raid_bars **out)
{
    if (!out)
        return raidFail(ctx, RAID_EINVAL, "raid_bars_run_csv: out is NULL");
    *out = NULL;
    if (!path)
        return raidFail(ctx, RAID_EINVAL, "raid_bars_run_csv: path is NULL");
    acc a;
    RaidIoTz *tz;
    raid_bars *bars;
    const raid_status st = job_open(ctx, &a, interval, tzname, session, &tz, &bars);
    return st != RAID_OK ? st : bars_end(ctx, read_trades(ctx, bars, path, &a), bars, &a, tz, out);
}

raid_status raid_bars_compute(raid_ctx *ctx, const int64_t *sym, const char *const *names, size_t nsym,
                              const int64_t *ts_us, const double *price, const double *size, size_t n,
                              const char *interval, const char *tzname, const char *session, unsigned flags,
                              raid_bars **out)
{
    static const char fn[] = "raid_bars_compute";
    if (!out)
        return raidFail(ctx, RAID_EINVAL, "%s: out is NULL", fn);
    *out = NULL;
    if (n && (!ts_us || !price || (!sym && nsym)))
        return raidFail(ctx, RAID_EINVAL, "%s: NULL timestamps, prices or symbols", fn);
    if ((sym && !nsym && n) || (nsym && !names) || flags & ~(unsigned)RAID_BARS_UTC)
        return raidFail(ctx, RAID_EINVAL, "%s: %s", fn, flags & ~(unsigned)RAID_BARS_UTC ? "unknown flags" : "no symbol names");
    acc a;
    RaidIoTz *tz;
    raid_bars *bars;
    raid_status st = job_open(ctx, &a, interval, tzname, session, &tz, &bars);
    if (st != RAID_OK)
        return st;
    for (size_t j = 0; j < (sym ? nsym : 1) && st == RAID_OK; j++) { /* the names, in code order */
        const char *nm = sym ? names[j] : "";
        if (!nm)
            st = raidFail(NULL, RAID_EINVAL, "%s: symbol name %zu is NULL", fn, j);
        else if (raidSymtabFind(&bars->syms, nm, strlen(nm)) >= 0)
            st = raidFail(NULL, RAID_EINVAL, "%s: symbol name '%s' given twice", fn, RAID_SHOWZ(nm));
        else if (raidSymtabAdd(&bars->syms, nm, strlen(nm)) < 0)
            st = raidFail(NULL, RAID_ENOMEM, "out of memory");
    }
    char msg[256];
    for (size_t i = 0; i < n && st == RAID_OK; i++) {
        const int64_t q = sym ? sym[i] : 0;
        if (q < 0 || (sym && (uint64_t)q >= nsym)) {
            st = raidFail(NULL, RAID_EINVAL, "%s: row %zu: symbol code %lld outside [0, %zu)", fn, i, (long long)q, nsym);
            break;
        }
        const int64_t t = ts_us[i];
        if (t < RAID_BARS_MIN_US || t > RAID_BARS_MAX_US) {
            st = raidFail(NULL, RAID_EINVAL, "%s: row %zu: timestamp %lld us outside the years 0001 to 9999", fn, i,
                           (long long)t);
            break;
        }
        const int64_t wall = flags & RAID_BARS_UTC ? wall_of(tz, t) : t, utc = flags & RAID_BARS_UTC ? t : raidIoTzInstant(tz, t);
        int col = 0;
        st = trade_add(&a, q, raidSymtabName(&bars->syms, (size_t)q), wall, utc, price[i], size ? size[i] : 1.0, msg,
                       sizeof msg, &col);
        if (st == RAID_EPARSE)
            st = raidFail(NULL, RAID_EINVAL, "%s: row %zu: %s", fn, i, msg);
    }
    return bars_end(ctx, st, bars, &a, tz, out);
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

raid_status raid_bars_write_csv(const raid_bars *b, FILE *f)
{
    if (!b || !f)
        return raidFail(NULL, RAID_EINVAL, "raid_bars_write_csv: NULL");
    fputs("symbol,start,open,high,low,close,volume,vwap,trades\n", f);
    for (size_t g = 0; g < b->n; g++) {
        raid_csv_put_field(f, raidSymtabName(&b->syms, b->sym[g]));
        const int64_t days = raidIoFloordiv(b->start_us[g], RAID_US_PER_DAY);
        const int64_t us = raidIoFloormod(b->start_us[g], RAID_US_PER_DAY), s = us / RAID_US_PER_S;
        int64_t y;
        int mo, d;
        raidIoCivilFromDays(days, &y, &mo, &d);
        fprintf(f, ",%04lld-%02d-%02dT%02lld:%02lld:%02lld", (long long)y, mo, d, (long long)(s / 3600),
                (long long)(s / 60 % 60), (long long)(s % 60));
        if (us % RAID_US_PER_S)
            fprintf(f, ".%06lld", (long long)(us % RAID_US_PER_S));
        raid_csv_put_value(f, b->open[g]);
        raid_csv_put_value(f, b->high[g]);
        raid_csv_put_value(f, b->low[g]);
        raid_csv_put_value(f, b->close[g]);
        if (isinf(b->volume[g])) /* an infinite exact sum is a result, not a missing value */
            fputs(",inf", f);
        else
            raid_csv_put_value(f, b->volume[g]);
        raid_csv_put_value(f, b->vwap[g]);
        fprintf(f, ",%lld\n", (long long)b->trades[g]);
    }
    return raidCsvWritten(f);
}
