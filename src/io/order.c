/* The time order of the rows of a series (order.h; the public raid_date_compare, raid_dates_check_order
 * and raid_times_check_order of include/raid/reader.h). docs/input.md "Time order" gives the rule. */
#define _POSIX_C_SOURCE 200809L
#include "io/order.h"
#include "core/internal.h"
#include "io/tz.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* What a date is, for the comparison: a time (ISO 8601: clock microseconds, and the offset when given), an
 * integer, another decimal number, or text. */
enum { K_TIME, K_INT, K_NUM, K_TEXT };

typedef struct date_key {
    int kind;
    int has_offset;
    int64_t us; /* K_TIME: the clock time written; K_INT: the integer */
    int32_t offset_s;
    double v; /* K_NUM */
} date_key;

static date_key key_of(const char *s, size_t n)
{
    date_key k = {K_TEXT, 0, 0, 0, 0.0};
    RaidIoTs ts;
    int64_t days;
    if (n == 10 && raidIoParseDate(s, n, &days) == 0)
        k.kind = K_TIME, k.us = days * RAID_US_PER_DAY;
    else if (n >= 19 && raidIoParseTimestamp(s, n, &ts) == 0)
        k.kind = K_TIME, k.us = ts.wall_us, k.has_offset = ts.has_offset, k.offset_s = ts.offset_s;
    else if (raidTableNumberInt(s, n, &k.us) == 1)
        k.kind = K_INT;
    else if (raidTableParseF64(s, n, &k.v) == 0)
        k.kind = K_NUM;
    return k;
}

static int cmp_i64(int64_t a, int64_t b) { return (a > b) - (a < b); }

/* raidIoDateCmp of a and b whose keys x = key_of(a), y = key_of(b) are already parsed (the checks
 * below parse each pair once for the mix test and the comparison). */
static int key_cmp(const date_key *xp, const char *a, size_t alen, const date_key *yp, const char *b, size_t blen)
{
    const date_key x = *xp, y = *yp;
    if (x.kind == K_TIME && y.kind == K_TIME) {
        if (x.has_offset && y.has_offset) /* UTC instants: clock time minus offset (both within years 1..9999) */
            return cmp_i64(x.us - x.offset_s * RAID_US_PER_S, y.us - y.offset_s * RAID_US_PER_S);
        return cmp_i64(x.us, y.us);
    }
    if (x.kind == K_INT && y.kind == K_INT)
        return cmp_i64(x.us, y.us);
    if ((x.kind == K_INT || x.kind == K_NUM) && (y.kind == K_INT || y.kind == K_NUM)) {
        const double u = x.kind == K_INT ? (double)x.us : x.v, w = y.kind == K_INT ? (double)y.us : y.v;
        if (u == u && w == w && u != w) /* (the number rule gives no NaN; infinities of overflow compare) */
            return u < w ? -1 : 1;
        if (u == w)
            return 0;
    }
    const size_t m = alen < blen ? alen : blen;
    const int c = memcmp(a, b, m);
    return c ? (c > 0) - (c < 0) : cmp_i64((int64_t)alen, (int64_t)blen);
}

int raidIoDateCmp(const char *a, size_t alen, const char *b, size_t blen)
{
    const date_key x = key_of(a, alen), y = key_of(b, blen);
    return key_cmp(&x, a, alen, &y, b, blen);
}

/* The digits at s[*i..n), at least lo and at most hi of them: 1 (*i moved past them) or 0. */
static int digits(const char *s, size_t n, size_t *i, size_t lo, size_t hi)
{
    size_t k = 0;
    while (*i + k < n && k <= hi && s[*i + k] >= '0' && s[*i + k] <= '9')
        k++;
    if (k < lo || k > hi)
        return 0;
    *i += k;
    return 1;
}

int raidIoDateYearLast(const char *s, size_t n)
{
    size_t i = 0;
    if (!digits(s, n, &i, 1, 2) || i >= n || !strchr("/.-", s[i]) || !s[i])
        return 0;
    const char sep = s[i++];
    if (!digits(s, n, &i, 1, 2) || i >= n || s[i++] != sep)
        return 0;
    const size_t y0 = i;
    if (!digits(s, n, &i, 2, 4) || i - y0 == 3)
        return 0;
    return i == n || s[i] == ' ' || s[i] == 'T';
}

/* The message of a date with the year last (raidIoDateYearLast). */
#define YEAR_LAST_WORDS "has the year last (day and month cannot be told apart, and such dates are misordered " \
                        "as text): write dates as ISO 8601, YYYY-MM-DD"

/* Why two neighbouring dates a and b of a series cannot be compared, or NULL when they can: the order of
 * a series is checked pair by pair, which is sound only when the rule orders its dates as one transitive
 * order. Two ISO 8601 times, one with a UTC offset and one without: the daily jobs have no time zone, and
 * as clock times a row without an offset between two with offsets let them through out of order
 * (10:00+00:00, 11:00, then 12:00+05:00, which is 07:00Z: each pair in order). Dates of different kinds
 * (a time, a number, text), compared as text: 10, 1a, then 2 passed (each pair in order as text), and 2
 * comes before 10. */
static const char *mix_words(const date_key *x, const date_key *y)
{
    const int cx = x->kind == K_NUM ? K_INT : x->kind, cy = y->kind == K_NUM ? K_INT : y->kind; /* numbers: one kind */
    if (cx != cy)
        return "are of different kinds (a time, a number, text), which have no common order: write every date of "
               "a symbol in one form";
    if (cx == K_TIME && x->has_offset != y->has_offset)
        return "mix a UTC offset and a time without one (the order of a series is that of its instants: give "
               "every date of a symbol a UTC offset, or none)";
    return NULL;
}

raid_status raidTableCheckDate(RaidTable *t, const char *date_name, const char *sym, const char *cur,
                                  size_t curlen, uint64_t line, size_t col, const char *prev, uint64_t prev_line)
{
    if (!curlen)
        return raidTableFail(t, line, col, "empty %s (every row needs one)", RAID_SHOWZ(date_name));
    if (raidIoDateYearLast(cur, curlen))
        return raidTableFail(t, line, col, "%s: date '%s' " YEAR_LAST_WORDS, *sym ? RAID_SHOWZ(sym) : "(no symbol)",
                               RAID_SHOW(cur, curlen));
    if (!prev)
        return RAID_OK;
    const size_t prevlen = strlen(prev);
    const date_key x = key_of(cur, curlen), y = key_of(prev, prevlen);
    const char *mix = mix_words(&x, &y);
    if (mix)
        return raidTableFail(t, line, col, "%s: date '%s' and '%s' on line %llu %s", *sym ? RAID_SHOWZ(sym) : "(no symbol)",
                               RAID_SHOW(cur, curlen), RAID_SHOWZ(prev), (unsigned long long)prev_line, mix);
    const int c = key_cmp(&x, cur, curlen, &y, prev, prevlen);
    if (c > 0)
        return RAID_OK;
    return raidTableFail(t, line, col,
                           "%s: date '%s' %s '%s' on line %llu (the rows of a symbol must be in time order: sort "
                           "FILE by symbol, date)",
                           *sym ? RAID_SHOWZ(sym) : "(no symbol)", RAID_SHOW(cur, curlen), raidIoOrderWords(c),
                           RAID_SHOWZ(prev), (unsigned long long)prev_line);
}

raid_status raidIoCheckDates(const char *fn, const char *sym, const char *const *dates, size_t n,
                                const int64_t *rows)
{
    for (size_t t = 0; t < n; t++)
        if (raidIoDateYearLast(dates[t], strlen(dates[t])))
            return raidFail(NULL, RAID_EINVAL, "%s: %s: row %lld: date '%s' " YEAR_LAST_WORDS, fn,
                             *sym ? RAID_SHOWZ(sym) : "(no symbol)", rows ? (long long)rows[t] : (long long)t + 1,
                             RAID_SHOWZ(dates[t]));
    for (size_t t = 1; t < n; t++) {
        const size_t n1 = strlen(dates[t]), n0 = strlen(dates[t - 1]);
        const date_key x = key_of(dates[t], n1), y = key_of(dates[t - 1], n0);
        const char *mix = mix_words(&x, &y);
        const int c = key_cmp(&x, dates[t], n1, &y, dates[t - 1], n0);
        if (c > 0 && !mix)
            continue;
        const long long r = rows ? (long long)rows[t] : (long long)t + 1, r0 = rows ? (long long)rows[t - 1] : (long long)t;
        if (mix)
            return raidFail(NULL, RAID_EINVAL, "%s: %s: row %lld: date '%s' and '%s' on row %lld %s", fn,
                             *sym ? RAID_SHOWZ(sym) : "(no symbol)", r, RAID_SHOWZ(dates[t]), RAID_SHOWZ(dates[t - 1]),
                             r0, mix);
        return raidFail(NULL, RAID_EINVAL,
                         "%s: %s: row %lld: date '%s' %s '%s' on row %lld (the rows of a series must be in time "
                         "order)", fn, *sym ? RAID_SHOWZ(sym) : "(no symbol)", r, RAID_SHOWZ(dates[t]),
                         raidIoOrderWords(c), RAID_SHOWZ(dates[t - 1]), r0);
    }
    return RAID_OK;
}

/* Public functions: contracts in include/raid/reader.h. */

int raid_date_compare(const char *a, const char *b)
{
    a = a ? a : "", b = b ? b : "";
    return raidIoDateCmp(a, strlen(a), b, strlen(b));
}

/* The name of series s in messages: its symbol ("(no symbol)" for ""), or "series S" without symbols. */
static const char *series_name(const char *const *symbols, size_t s, char *buf, size_t n)
{
    if (symbols && symbols[s])
        return symbols[s];
    snprintf(buf, n, "series %zu", s);
    return buf;
}

/* The common checks of the offsets of raid_dates_check_order and raid_times_check_order. */
static raid_status check_offsets(const char *fn, const void *v, const int64_t *offsets, size_t nseries)
{
    if (!offsets || (nseries && !v))
        return raidFail(NULL, RAID_EINVAL, "%s: NULL argument", fn);
    for (size_t s = 0; s < nseries; s++)
        if (offsets[s] < 0 || offsets[s + 1] < offsets[s])
            return raidFail(NULL, RAID_EINVAL, "%s: offsets negative or decreasing at series %zu", fn, s);
    return RAID_OK;
}

raid_status raid_dates_check_order(const char *const *dates, const int64_t *offsets, size_t nseries,
                                   const char *const *symbols, const int64_t *rows)
{
    static const char fn[] = "raid_dates_check_order";
    raid_status st = check_offsets(fn, dates, offsets, nseries);
    for (size_t s = 0; s < nseries && st == RAID_OK; s++) {
        char buf[48];
        const char *nm = series_name(symbols, s, buf, sizeof buf);
        const size_t i0 = (size_t)offsets[s], n = (size_t)(offsets[s + 1] - offsets[s]);
        for (size_t t = 0; t < n && st == RAID_OK; t++)
            if (!dates[i0 + t] || !dates[i0 + t][0])
                st = raidFail(NULL, RAID_EINVAL, "%s: %s: row %lld: date is %s", fn, *nm ? RAID_SHOWZ(nm) : "(no symbol)",
                               rows ? (long long)rows[i0 + t] : (long long)t + 1, dates[i0 + t] ? "empty" : "NULL");
        if (st == RAID_OK)
            st = raidIoCheckDates(fn, nm, dates + i0, n, rows ? rows + i0 : NULL);
    }
    return st;
}

/* t (units_per_s units since 1970-01-01) as ISO 8601 "YYYY-MM-DDTHH:MM:SS[.f]" (the fraction with as many
 * digits as the unit has), or the integer where the year leaves 1..9999. */
static void time_text(int64_t t, int64_t units_per_s, char *buf, size_t n)
{
    const int64_t sec = raidIoFloordiv(t, units_per_s), frac = raidIoFloormod(t, units_per_s);
    const int64_t days = raidIoFloordiv(sec, 86400), tod = raidIoFloormod(sec, 86400);
    int64_t y;
    int m, d;
    raidIoCivilFromDays(days, &y, &m, &d);
    if (y < 1 || y > 9999) {
        snprintf(buf, n, "%" PRId64, t);
        return;
    }
    int len = snprintf(buf, n, "%04d-%02d-%02dT%02d:%02d:%02d", (int)y, m, d, (int)(tod / 3600), (int)(tod / 60 % 60),
                       (int)(tod % 60));
    int digits = 0;
    for (int64_t u = units_per_s; u > 1 && u % 10 == 0; u /= 10)
        digits++;
    if (frac && digits && len > 0 && (size_t)len < n)
        snprintf(buf + len, n - (size_t)len, ".%0*" PRId64, digits, frac);
}

raid_status raid_times_check_order(const int64_t *t, int64_t units_per_s, const int64_t *offsets, size_t nseries,
                                   const char *const *symbols, const int64_t *rows)
{
    static const char fn[] = "raid_times_check_order";
    if (units_per_s < 1)
        return raidFail(NULL, RAID_EINVAL, "%s: units_per_s %lld (expected >= 1)", fn, (long long)units_per_s);
    raid_status st = check_offsets(fn, t, offsets, nseries);
    for (size_t s = 0; s < nseries && st == RAID_OK; s++) {
        for (int64_t i = offsets[s] + 1; i < offsets[s + 1]; i++) {
            if (t[i] > t[i - 1])
                continue;
            char buf[48], a[48], b[48];
            const char *nm = series_name(symbols, s, buf, sizeof buf);
            time_text(t[i], units_per_s, a, sizeof a);
            time_text(t[i - 1], units_per_s, b, sizeof b);
            const int64_t k = i - offsets[s];
            return raidFail(NULL, RAID_EINVAL,
                             "%s: %s: row %lld: time %s %s %s on row %lld (the rows of a series must be in time order)",
                             fn, *nm ? RAID_SHOWZ(nm) : "(no symbol)", rows ? (long long)rows[i] : (long long)k + 1, a,
                             raidIoOrderWords(cmp_i64(t[i], t[i - 1])), b,
                             rows ? (long long)rows[i - 1] : (long long)k);
        }
    }
    return st;
}
