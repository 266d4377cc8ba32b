/* Ticks to bars (raid bars; include/raid/bars.h, docs/column.md "Ticks to bars"): trades read with the table
 * reader (symbol, timestamp, price, size), each put in its (symbol, interval) group by an int64 key, and the
 * bars' fields from raid_groupby_compute: open, high, low, close, trades from the prices (first, max, min,
 * last, count), volume the exact sum of the sizes, vwap the exact sum of price x size (each product
 * split exactly into two doubles by TwoProd, both summed) divided by the volume. Every aggregation is the
 * group-by's, so the bars are bit for bit the same on the cpu path and a device. */
#define _POSIX_C_SOURCE 200809L
#include "core/internal.h"
#include "core/outfile.h"
#include "io/symtab.h"
#include "io/table.h"
#include "io/tz.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TABLE_ROWS 8192
#define KEY_BITS 40 /* the interval index's bits in a key: the symbol's index above them */
/* The starts written: 0001-01-01T00:00:00 to 9999-12-31T23:59:59.999999 (microseconds from 1970). */
#define RAID_BARS_MIN_US (INT64_C(-62135596800) * RAID_US_PER_S)
#define RAID_BARS_MAX_US (INT64_C(253402300800) * RAID_US_PER_S - 1)

struct raid_bars {
    raid_symtab syms;
    size_t n;                  /* bars */
    uint32_t *sym;             /* n symbol indices */
    int64_t *start_us;         /* n local wall-clock starts (microseconds since 1970-01-01T00:00:00) */
    double *open, *high, *low, *close, *volume, *vwap;
    int64_t *trades;
};

void raid_bars_destroy(raid_bars *b)
{
    if (!b)
        return;
    raid_symtab_free(&b->syms);
    free(b->sym), free(b->start_us), free(b->open), free(b->high), free(b->low), free(b->close);
    free(b->volume), free(b->vwap), free(b->trades);
    free(b);
}

raid_status raid_bars_parse_interval(const char *s, int64_t *us)
{
    if (!s || !us)
        return raid_fail(NULL, RAID_EINVAL, "raid_bars_parse_interval: NULL");
    const size_t n = strlen(s);
    if (n >= 2 && s[n - 1] == 'd' && s[n - 2] >= '0' && s[n - 2] <= '9') { /* Nd: days */
        char *end = NULL;
        const long long d = strtoll(s, &end, 10);
        if (end != s + n - 1 || d < 1 || d > 3650 || s[0] < '1' || s[0] > '9')
            return raid_fail(NULL, RAID_EINVAL, "bad interval '%s' (expected Ns, Nmin, Nh or Nd)", s);
        *us = (int64_t)d * RAID_US_PER_DAY;
        return RAID_OK;
    }
    int64_t v = 0;
    if (raid_parse_sample(s, &v) != RAID_OK || v <= 0)
        return raid_fail(NULL, RAID_EINVAL, "bad interval '%s' (expected Ns, Nmin, Nh or Nd)", s);
    *us = v;
    return RAID_OK;
}

/* The rows read: symbol index, interval index, price, size. */
typedef struct rows {
    size_t n, cap;
    int64_t base;   /* the first trade's interval index: keys hold the index less it */
    int64_t *key;
    double *price, *size;
} rows;

static raid_status rows_push(rows *r, int64_t key, double price, double size)
{
    if (r->n == r->cap) {
        const size_t c = r->cap ? 2 * r->cap : 65536;
        int64_t *k = realloc(r->key, c * sizeof *k);
        if (k)
            r->key = k;
        double *p = realloc(r->price, c * sizeof *p);
        if (p)
            r->price = p;
        double *s = realloc(r->size, c * sizeof *s);
        if (s)
            r->size = s;
        if (!k || !p || !s)
            return raid_fail(NULL, RAID_ENOMEM, "out of memory");
        r->cap = c;
    }
    r->key[r->n] = key, r->price[r->n] = price, r->size[r->n] = size;
    r->n++;
    return RAID_OK;
}

enum { C_SYM = 0, C_TS = 1, C_PRICE = 2, C_SIZE = 3 };

/* Read every trade of path into r (keys from the symbol table and the interval). */
static raid_status read_trades(raid_bars *bars, const char *path, int64_t iv, const raid_io_tz *tz, rows *r)
{
    const raid_tspec spec[4] = {{"symbol", "symbol", RAID_T_STRING, RAID_T_OPTIONAL},
                                {"timestamp", "timestamp", RAID_T_TIMESTAMP, 0},
                                {"price", "price", RAID_T_F64, 0},
                                {"size", "size", RAID_T_F64, RAID_T_OPTIONAL}};
    raid_table *t = NULL;
    raid_tbatch b = {0};
    raid_status st = raid_table_open(&t, path, spec, 4);
    if (st == RAID_OK)
        st = raid_tbatch_init(&b, t);
    int64_t *last = NULL; /* the last UTC instant of each symbol: trades in time order */
    size_t lcap = 0;
    const int has_sym = st == RAID_OK && raid_table_col(t, C_SYM) != 0, has_size = st == RAID_OK && raid_table_col(t, C_SIZE) != 0;
    for (int fin = 0; !fin && st == RAID_OK;) {
        const raid_status rs = raid_table_read(t, &b, TABLE_ROWS, &fin);
        for (size_t i = 0; i < b.nrows && st == RAID_OK; i++) {
            size_t len = 0;
            const char *name = has_sym ? raid_tcol_text(&b.col[C_SYM], i, &len) : "";
            const int64_t q = raid_symtab_add(&bars->syms, name, len);
            if (q < 0 || q >= (INT64_C(1) << (62 - KEY_BITS))) {
                st = raid_fail(NULL, RAID_ENOMEM, "out of memory (or more than 2^22 symbols)");
                break;
            }
            if ((size_t)q >= lcap) {
                const size_t c = lcap ? 2 * lcap : 64;
                int64_t *l = realloc(last, c * sizeof *l);
                if (!l) {
                    st = raid_fail(NULL, RAID_ENOMEM, "out of memory");
                    break;
                }
                for (size_t j = lcap; j < c; j++)
                    l[j] = INT64_MIN;
                last = l, lcap = c;
            }
            const raid_tcol *ts = &b.col[C_TS];
            const uint64_t line = ts->line[i];
            /* the local wall-clock time: as written without an offset, else the instant in the zone */
            int64_t wall = ts->i64[i], utc;
            if (ts->tz_s[i] != RAID_T_NO_OFFSET) {
                utc = wall - (int64_t)ts->tz_s[i] * RAID_US_PER_S;
                wall = utc + (int64_t)raid_io_tz_offset(tz, raid_io_floordiv(utc, RAID_US_PER_S), NULL, NULL) * RAID_US_PER_S;
            } else { /* local wall time: its instant, for the order check (offset at the guess, then again) */
                const int64_t w = raid_io_floordiv(wall, RAID_US_PER_S);
                const int32_t o1 = raid_io_tz_offset(tz, w, NULL, NULL), o2 = raid_io_tz_offset(tz, w - o1, NULL, NULL);
                utc = wall - (int64_t)o2 * RAID_US_PER_S;
            }
            if (utc < last[q]) {
                st = raid_table_fail(t, line, raid_table_col(t, C_TS), "timestamp earlier than the previous trade of "
                                     "symbol '%s' (trades must be in time order within a symbol)", name);
                break;
            }
            last[q] = utc;
            const double p = b.col[C_PRICE].f64[i], s = has_size ? b.col[C_SIZE].f64[i] : 1.0;
            if (!(isfinite(p) && p > 0.0)) {
                st = raid_table_fail(t, line, raid_table_col(t, C_PRICE), "price %.17g (expected finite and > 0)", p);
                break;
            }
            if (!(isfinite(s) && s >= 0.0)) {
                st = raid_table_fail(t, line, raid_table_col(t, C_SIZE), "size %.17g (expected finite and >= 0)", s);
                break;
            }
            const int64_t k = raid_io_floordiv(wall, iv);
            if (r->n == 0)
                r->base = k; /* buckets counted from the first trade's: 2^39 of them either way */
            if (k - r->base <= -(INT64_C(1) << (KEY_BITS - 1)) || k - r->base >= (INT64_C(1) << (KEY_BITS - 1)) ||
                k * iv < RAID_BARS_MIN_US || k * iv > RAID_BARS_MAX_US) {
                st = raid_table_fail(t, line, raid_table_col(t, C_TS), "the interval of this timestamp starts before year 1, "
                                     "after year 9999 or 2^39 intervals away from the first trade's");
                break;
            }
            st = rows_push(r, (q << KEY_BITS) + (k - r->base) + (INT64_C(1) << (KEY_BITS - 1)), p, s);
        }
        if (st == RAID_OK)
            st = rs;
    }
    if (st != RAID_OK && t && *raid_table_errmsg(t))
        st = raid_fail(NULL, st, "%s", raid_table_errmsg(t));
    free(last);
    raid_tbatch_free(&b);
    raid_table_close(t);
    return st;
}

raid_status raid_bars_run_csv(raid_ctx *ctx, const char *path, const char *interval, const char *tzname, raid_bars **out)
{
    if (!out)
        return raid_fail(ctx, RAID_EINVAL, "raid_bars_run_csv: out is NULL");
    *out = NULL;
    int64_t iv = 0;
    if (!path || raid_bars_parse_interval(interval, &iv) != RAID_OK)
        return raid_fail(ctx, RAID_EINVAL, "%s", path ? raid_errmsg() : "raid_bars_run_csv: path is NULL");
    raid_io_tz *tz = NULL;
    if (raid_io_tz_open(&tz, tzname) != RAID_OK)
        return raid_fail(ctx, RAID_EINVAL, "%s", raid_errmsg());
    raid_bars *bars = calloc(1, sizeof *bars);
    rows r = {0};
    int64_t *k2 = NULL;
    double *ps = NULL;
    raid_groupby *gp = NULL, *gv = NULL;
    raid_status st = bars ? read_trades(bars, path, iv, tz, &r) : raid_fail(NULL, RAID_ENOMEM, "out of memory");
    /* prices: open, high, low, close, trades; sizes: volume; price x size exactly (two doubles a trade) */
    const raid_agg pa[4] = {RAID_AGG_FIRST, RAID_AGG_MAX, RAID_AGG_MIN, RAID_AGG_LAST}, sa[1] = {RAID_AGG_SUM};
    if (st == RAID_OK && (!(k2 = malloc(2 * (r.n ? r.n : 1) * sizeof *k2)) || !(ps = malloc(2 * (r.n ? r.n : 1) * sizeof *ps))))
        st = raid_fail(NULL, RAID_ENOMEM, "out of memory");
    if (st == RAID_OK) {
        for (size_t i = 0; i < r.n; i++) {
            const double p = r.price[i] * r.size[i];
            k2[2 * i] = k2[2 * i + 1] = r.key[i];
            ps[2 * i] = p;
            ps[2 * i + 1] = fma(r.price[i], r.size[i], -p); /* the product's rounding error: p + e exact */
        }
        raid_groupby *gs = NULL;
        if ((st = raid_groupby_compute(ctx, r.key, r.price, NULL, r.n, pa, 4, 0, &gp)) == RAID_OK &&
            (st = raid_groupby_compute(ctx, r.key, r.size, NULL, r.n, sa, 1, 0, &gv)) == RAID_OK &&
            (st = raid_groupby_compute(ctx, k2, ps, NULL, 2 * r.n, sa, 1, 0, &gs)) == RAID_OK) {
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
                st = raid_fail(NULL, RAID_ENOMEM, "out of memory");
            const int64_t *key = raid_groupby_keys(gp), *cnt = raid_groupby_counts(gp);
            for (size_t g = 0; g < n && st == RAID_OK; g++) {
                bars->sym[g] = (uint32_t)(key[g] >> KEY_BITS);
                bars->start_us[g] = ((key[g] & ((INT64_C(1) << KEY_BITS) - 1)) - (INT64_C(1) << (KEY_BITS - 1)) + r.base) * iv;
                bars->open[g] = raid_groupby_column(gp, 0)[g], bars->high[g] = raid_groupby_column(gp, 1)[g];
                bars->low[g] = raid_groupby_column(gp, 2)[g], bars->close[g] = raid_groupby_column(gp, 3)[g];
                bars->volume[g] = raid_groupby_column(gv, 0)[g];
                bars->vwap[g] = bars->volume[g] > 0.0 ? raid_groupby_column(gs, 0)[g] / bars->volume[g] : NAN;
                bars->trades[g] = cnt[g];
            }
        }
        if (st != RAID_OK)
            st = raid_fail(NULL, st, "%s", ctx ? raid_ctx_errmsg(ctx) : raid_errmsg());
        raid_groupby_destroy(gs);
    }
    raid_groupby_destroy(gp), raid_groupby_destroy(gv);
    free(r.key), free(r.price), free(r.size), free(k2), free(ps);
    raid_io_tz_free(tz);
    if (st != RAID_OK) {
        raid_bars_destroy(bars);
        return raid_fail(ctx, st, "%s", raid_errmsg());
    }
    *out = bars;
    return RAID_OK;
}

size_t raid_bars_count(const raid_bars *b) { return b ? b->n : 0; }

raid_status raid_bars_write_csv(const raid_bars *b, FILE *f)
{
    if (!b || !f)
        return raid_fail(NULL, RAID_EINVAL, "raid_bars_write_csv: NULL");
    fputs("symbol,start,open,high,low,close,volume,vwap,trades\n", f);
    for (size_t g = 0; g < b->n; g++) {
        raid_csv_put_field(f, raid_symtab_name(&b->syms, b->sym[g]));
        const int64_t days = raid_io_floordiv(b->start_us[g], RAID_US_PER_DAY);
        const int64_t us = raid_io_floormod(b->start_us[g], RAID_US_PER_DAY), s = us / RAID_US_PER_S;
        int64_t y;
        int mo, d;
        raid_io_civil_from_days(days, &y, &mo, &d);
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
    return raid_csv_written(f);
}
