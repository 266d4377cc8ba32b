/* The job of raid bars (include/raid/bars.h, docs/column.md "Ticks to bars"): trades read with the table
 * reader (symbol, timestamp, price, size; raid_bars_run_csv) or given as arrays (raid_bars_compute), each
 * checked (time order within a symbol, price, size), kept in its session window and put in its (symbol,
 * interval of local time) group by an int64 key; the bars computed by the group-by (raidBarsMake,
 * src/column/bars.c) and written (raid_bars_write_csv). */
#define _POSIX_C_SOURCE 200809L
#include "column/bars_internal.h"
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
/* The starts written: 0001-01-01T00:00:00 to 9999-12-31T23:59:59.999999 (microseconds from 1970). */
#define RAID_BARS_MIN_US (INT64_C(-62135596800) * RAID_US_PER_S)
#define RAID_BARS_MAX_US (INT64_C(253402300800) * RAID_US_PER_S - 1)

/* The trades kept so far: their group keys, prices and sizes, and what the checks need. The one path of
 * every trade, from a CSV file (read_trades) or arrays (raid_bars_compute): trade_add, then raidBarsMake. */
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
    if (q < 0 || q >= (INT64_C(1) << (62 - RAID_BARS_KEY_BITS)))
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
    if (k - a->base <= -(INT64_C(1) << (RAID_BARS_KEY_BITS - 1)) || k - a->base >= (INT64_C(1) << (RAID_BARS_KEY_BITS - 1)) ||
        k < RAID_BARS_MIN_US / a->iv || k > RAID_BARS_MAX_US / a->iv) {
        snprintf(msg, len, "the interval of this timestamp starts before year 1, after year 9999 or 2^39 intervals "
                 "away from the first trade's");
        return RAID_EPARSE;
    }
    if (acc_push(a, (q << RAID_BARS_KEY_BITS) + (k - a->base) + (INT64_C(1) << (RAID_BARS_KEY_BITS - 1)), p, s) != 0)
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
        st = raidBarsMake(ctx, bars, &(RaidBarsTrades){a->iv, a->n, a->base, a->key, a->price, a->size});
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

raid_status raid_bars_write_csv(const raid_bars *b, FILE *f)
{
    if (!b || !f)
        return raidFail(NULL, RAID_EINVAL, "raid_bars_write_csv: NULL");
    fputs("symbol,start,open,high,low,close,volume,vwap,trades\n", f);
    for (size_t g = 0; g < b->n; g++) {
        raid_csv_put_field(f, raidSymtabName(&b->syms, b->sym[g]));
        char when[48];
        fprintf(f, ",%s", raidIoFormatTime(when, sizeof when, b->start_us[g], 0));
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
