/* raid_ticks: intraday prices given as arrays, into (symbol, trading date) segments through the
 * segmenter (segment.c) that the CSV reader uses too, so that arrays and CSV give identical segments. */
#define _POSIX_C_SOURCE 200809L
#include "core/internal.h"
#include "io/segment.h"
#include "io/sticky.h"
#include "io/table.h"
#include "io/tz.h"
#include "io/utf8.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct raid_ticks {
    RaidSeg *sg;
    uint64_t rows;     /* rows pushed so far */
    int finished;
    RaidSticky err;
};

/* Years 0001 to 9999, as the CSV's timestamps. */
#define T_MIN (RAID_SEG_DAY_MIN * RAID_US_PER_DAY)
#define T_MAX ((RAID_SEG_DAY_MAX + 1) * RAID_US_PER_DAY - 1)

#define tfail(tk, ...) raidStickyFail(&(tk)->err, __VA_ARGS__)

raid_status raid_ticks_create(raid_ticks **out, const raid_read_opts *o)
{
    if (!out)
        return raidFail(NULL, RAID_EINVAL, "raid_ticks_create: out is NULL");
    *out = NULL;
    if (o && o->kind != RAID_INPUT_PRICES)
        return raidFail(NULL, RAID_EINVAL, "raid_ticks_create: o->kind must be RAID_INPUT_PRICES");
    raid_ticks *tk = calloc(1, sizeof *tk);
    if (!tk)
        return raidFail(NULL, RAID_ENOMEM, "out of memory");
    raid_status s = raidSegCreate(&tk->sg, o, "raid_ticks_create");
    if (s != RAID_OK) {
        free(tk);
        return s;
    }
    *out = tk;
    return RAID_OK;
}

void raid_ticks_destroy(raid_ticks *tk)
{
    if (!tk)
        return;
    raidSegFree(tk->sg);
    free(tk);
}

/* The checks common to raid_ticks_push and raid_ticks_push_text before the rows; *si: the symbol's index.
 * Returns RAID_OK with *si = -1 when there is nothing to push. */
static raid_status push_start(raid_ticks *tk, const char *fn, const char **symbol, const void *t, const double *price,
                              size_t n, int64_t *si)
{
    *si = -1;
    if (!tk)
        return raidFail(NULL, RAID_EINVAL, "%s: tk is NULL", fn);
    if (tk->err.st != RAID_OK)
        return raidStickyAgain(&tk->err);
    if (tk->finished)
        return raidFail(NULL, RAID_EINVAL, "%s: rows after raid_ticks_take(..., finish = 1)", fn);
    if (n && (!t || !price))
        return raidFail(NULL, RAID_EINVAL, "%s: NULL times or price with n = %zu", fn, n);
    if (!*symbol)
        *symbol = "";
    const size_t len = strlen(*symbol);
    const size_t bad = raidUtf8InvalidAt(*symbol, len);
    if (bad < len)
        return tfail(tk, RAID_EINVAL, "%s: row %" PRIu64 ": symbol is not valid UTF-8 (byte %zu, 0x%02X)", fn,
                     tk->rows, bad + 1, (unsigned)(unsigned char)(*symbol)[bad]);
    if (n == 0)
        return RAID_OK;
    *si = raidSegSymbol(tk->sg, *symbol, len);
    if (*si < 0)
        return tfail(tk, RAID_ENOMEM, "out of memory");
    return RAID_OK;
}

/* A row's time for a message: its text as given, quoted, else "YYYY-MM-DDTHH:MM:SS[.ffffff][Z]". */
static const char *show_time(char *buf, size_t len, const char *text, size_t tlen, int64_t raw, int utc)
{
    if (text && tlen) {
        snprintf(buf, len, "'%s'", RAID_SHOW(text, tlen));
        return buf;
    }
    return raidIoFormatTime(buf, len, raw, utc);
}

/* Row tk->rows of symbol si at `instant` (a UTC instant when utc, else local wall-clock time, whose UTC
 * instant is the order key), price p; text: the row's timestamp as given (NULL from raid_ticks_push). */
static raid_status push_row(raid_ticks *tk, uint32_t si, const char *symbol, int64_t instant, int utc, double p,
                            const char *text, size_t tlen)
{
    char a[RAID_SHOW_CAP + 4], b[RAID_SHOW_CAP + 4];
    if (!(p > 0) || !isfinite(p))
        return tfail(tk, RAID_EPARSE, "row %" PRIu64 " (symbol '%s'): price must be positive and finite: %.17g",
                     tk->rows, RAID_SHOWZ(symbol), p);
    const int64_t local = utc ? raidSegLocal(tk->sg, instant) : instant;
    const RaidSegRow w = {tk->rows, text, tlen, instant, utc};
    const int rc = raidSegPrice(tk->sg, si, utc ? instant : raidSegInstant(tk->sg, instant), local, p, &w);
    if (rc == RAID_SEG_OK)
        return RAID_OK;
    if (rc == RAID_SEG_ENOMEM)
        return tfail(tk, RAID_ENOMEM, "out of memory");
    if (rc == RAID_SEG_DATE_RANGE || rc == RAID_SEG_TOO_MANY) {
        char why[160];
        raidSegRowProblem(tk->sg, rc, why, sizeof why);
        return tfail(tk, RAID_EPARSE, "row %" PRIu64 " (symbol '%s'): %s: %s", tk->rows, RAID_SHOWZ(symbol), why,
                     show_time(a, sizeof a, text, tlen, instant, utc));
    }
    uint64_t pref;
    int64_t praw;
    int putc;
    const char *ptext;
    raidSegPrev(tk->sg, si, &pref, &ptext, &praw, &putc);
    return tfail(tk, RAID_EPARSE, "row %" PRIu64 " (symbol '%s'): %s goes backwards: %s before %s (row %" PRIu64 ")",
                 tk->rows, RAID_SHOWZ(symbol), rc == RAID_SEG_TIME_BACK ? "time" : "date",
                 show_time(a, sizeof a, text, tlen, instant, utc), show_time(b, sizeof b, ptext, strlen(ptext), praw, putc),
                 pref);
}

raid_status raid_ticks_push(raid_ticks *tk, const char *symbol, const int64_t *t_us, int t_is_utc,
                            const double *price, size_t n)
{
    int64_t si;
    raid_status st = push_start(tk, "raid_ticks_push", &symbol, t_us, price, n, &si);
    if (st != RAID_OK || si < 0)
        return st;
    for (size_t i = 0; i < n; i++, tk->rows++) {
        const int64_t t = t_us[i];
        if (t < T_MIN || t > T_MAX)
            return tfail(tk, RAID_EPARSE, "row %" PRIu64 " (symbol '%s'): time %" PRId64 " us out of range (years 0001 to 9999)",
                         tk->rows, RAID_SHOWZ(symbol), t);
        if ((st = push_row(tk, (uint32_t)si, symbol, t, t_is_utc != 0, price[i], NULL, 0)) != RAID_OK)
            return st;
    }
    return RAID_OK;
}

raid_status raid_ticks_push_text(raid_ticks *tk, const char *symbol, const char *const *timestamps,
                                 const double *price, size_t n)
{
    int64_t si;
    raid_status st = push_start(tk, "raid_ticks_push_text", &symbol, timestamps, price, n, &si);
    if (st != RAID_OK || si < 0)
        return st;
    for (size_t i = 0; i < n; i++, tk->rows++) {
        const char *text = timestamps[i];
        if (!text) {
            st = tfail(tk, RAID_EPARSE, "row %" PRIu64 " (symbol '%s'): missing timestamp (NULL)", tk->rows,
                       RAID_SHOWZ(symbol));
            break;
        }
        const size_t tlen = strlen(text);
        RaidIoTs ts;
        /* the CSV reader's parser and its reading of an offset (reader.c): one set of rules */
        if (raidIoParseTimestamp(text, tlen, &ts) != 0) {
            st = tfail(tk, RAID_EPARSE, "row %" PRIu64 " (symbol '%s'): cannot parse timestamp '%s'", tk->rows,
                       RAID_SHOWZ(symbol), RAID_SHOW(text, tlen));
            break;
        }
        const int64_t instant = ts.has_offset ? ts.wall_us - (int64_t)ts.offset_s * RAID_US_PER_S : ts.wall_us;
        if ((st = push_row(tk, (uint32_t)si, symbol, instant, ts.has_offset, price[i], text, tlen)) != RAID_OK)
            break;
    }
    raidSegHoldTexts(tk->sg); /* the caller's texts are its own again */
    return st;
}

raid_status raid_ticks_push_coded(raid_ticks *tk, const char *const *symbols, size_t nsymbols, const uint32_t *code,
                                  const int64_t *t_us, int t_is_utc, const char *const *timestamps, const double *price,
                                  size_t n)
{
    static const char fn[] = "raid_ticks_push_coded";
    if (!tk)
        return raidFail(NULL, RAID_EINVAL, "%s: tk is NULL", fn);
    if (n == 0) /* the handle's checks only (its sticky error, finished) */
        return raid_ticks_push(tk, NULL, NULL, t_is_utc, NULL, 0);
    if (tk->err.st == RAID_OK && (!code || !symbols || (!t_us && !timestamps) || !price))
        return raidFail(NULL, RAID_EINVAL, "%s: NULL %s with n = %zu", fn,
                        !code ? "code" : !symbols ? "symbols" : !price ? "price" : "t_us and timestamps", n);
    raid_status st = RAID_OK;
    size_t i = 0;
    while (i < n && st == RAID_OK) {
        /* the run of rows of one symbol from row i: one push, as the caller's run would be */
        const uint32_t c = code[i];
        if (c >= nsymbols)
            return tfail(tk, RAID_EINVAL, "%s: row %" PRIu64 ": symbol code %" PRIu32 " is not below %zu", fn,
                         tk->rows, c, nsymbols);
        size_t j = i + 1;
        while (j < n && code[j] == c)
            j++;
        st = t_us ? raid_ticks_push(tk, symbols[c], t_us + i, t_is_utc, price + i, j - i)
                  : raid_ticks_push_text(tk, symbols[c], timestamps + i, price + i, j - i);
        i = j;
    }
    return st;
}

raid_status raid_ticks_take(raid_ticks *tk, raid_batch *b, int finish)
{
    if (!tk || !b)
        return raidFail(NULL, RAID_EINVAL, "raid_ticks_take: NULL argument");
    if (tk->err.st != RAID_OK)
        return raidStickyAgain(&tk->err);
    if (finish && !tk->finished) {
        if (raidSegFinish(tk->sg) != RAID_OK)
            return tfail(tk, RAID_ENOMEM, "out of memory");
        tk->finished = 1;
    }
    while (raidSegQueued(tk->sg))
        if (raidSegTake(tk->sg, b, SIZE_MAX) != RAID_OK)
            return tfail(tk, RAID_ENOMEM, "out of memory");
    return RAID_OK;
}

const char *raid_ticks_symbol(const raid_ticks *tk, uint32_t i) { return tk ? raidSegSymbolName(tk->sg, i) : NULL; }

size_t raid_ticks_notice_count(const raid_ticks *tk) { return tk ? raidSegNoticeCount(tk->sg) : 0; }

const char *raid_ticks_notice(const raid_ticks *tk, size_t i) { return tk ? raidSegNotice(tk->sg, i) : NULL; }
