/* HAR input: the daily series of every symbol, copied from the caller's arrays (include/raid/har.h). */
#define _POSIX_C_SOURCE 200809L
#include "models/har_internal.h"
#include "core/internal.h"
#include "io/order.h"
#include "io/symtab.h"
#include "io/tz.h"
#include "io/utf8.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const default_names[4] = {"rv", "bpv", "rq", "jump_p"};

raid_status raid_har_input_create(raid_har_input **out)
{
    if (!out)
        return raidFail(NULL, RAID_EINVAL, "raid_har_input_create: NULL");
    raid_har_input *in = calloc(1, sizeof *in);
    *out = in;
    if (!in)
        return raidFail(NULL, RAID_ENOMEM, "out of memory");
    for (int j = 0; j < 4; j++)
        if (!(in->colname[j] = strdup(default_names[j]))) {
            raid_har_input_destroy(in);
            *out = NULL;
            return raidFail(NULL, RAID_ENOMEM, "out of memory");
        }
    return RAID_OK;
}

/* Free what a symbol owns (any member may be NULL). */
static void sym_free(har_in_sym *s)
{
    free(s->name);
    free(s->dates);
    for (int j = 0; j < 4; j++)
        free(s->v[j]);
    free(s->lines);
}

int raidHarDayCheck(const char *date, size_t len, double rv, double bpv, double rq)
{
    int64_t days;
    if (!len)
        return HAR_DAY_EMPTY;
    if (raidIoParseDate(date, len, &days) != 0)
        return HAR_DAY_DATE;
    if (rv < 0) /* (a decimal beyond float64's range is refused by the table reader itself) */
        return HAR_DAY_RV;
    if (bpv < 0)
        return HAR_DAY_BPV;
    if (rq < 0)
        return HAR_DAY_RQ;
    return HAR_DAY_OK;
}

const char *raidHarDayWhy(int r)
{
    static const char *const why[] = {"", "empty date (every row needs one)", "is not a calendar date YYYY-MM-DD",
                                      "is negative (a realized variance is non-negative and finite)",
                                      "is negative (a bipower variation is non-negative)",
                                      "is negative (a realized quarticity is non-negative)"};
    assert(r > HAR_DAY_OK && (size_t)r < sizeof why / sizeof *why);
    return why[r];
}

/* Public functions: contracts in include/raid/har.h. */

void raid_har_input_destroy(raid_har_input *in)
{
    if (!in)
        return;
    for (size_t q = 0; q < in->nsym; q++)
        sym_free(&in->sym[q]);
    free(in->sym);
    raidSymtabFree(&in->names);
    raidStrlistFree(&in->notices);
    free(in->path);
    for (int j = 0; j < 4; j++)
        free(in->colname[j]);
    free(in);
}

/* A copy of bytes at p (NULL for p NULL); sets *fail when out of memory. */
static void *dup_mem(const void *p, size_t bytes, int *fail)
{
    if (!p)
        return NULL;
    void *d = malloc(bytes ? bytes : 1);
    if (!d)
        *fail = 1;
    else
        memcpy(d, p, bytes);
    return d;
}

raid_status raid_har_input_add(raid_har_input *in, const char *name, size_t n, const char *const *dates,
                               const double *rv, const double *bpv, const double *rq, const double *jump_p,
                               const int64_t *lines)
{
    if (!in || !name || (n && (!dates || !rv)))
        return raidFail(NULL, RAID_EINVAL, "raid_har_input_add: NULL argument");
    const size_t nlen = strlen(name), bad = raidUtf8InvalidAt(name, nlen);
    if (bad < nlen) /* as the CSV reader refuses it (table.c) */
        return raidFail(NULL, RAID_EINVAL, "raid_har_input_add: symbol is not valid UTF-8 (byte %zu is 0x%02X)",
                         bad + 1, (unsigned)(unsigned char)name[bad]);
    if (raidSymtabFind(&in->names, name, nlen) >= 0) /* a hash: 120k symbols were quadratic to add */
        return raidFail(NULL, RAID_EINVAL, "symbol '%s' added twice", RAID_SHOWZ(name));
    for (size_t t = 0; t < n; t++) { /* the CSV reader's rules (raidHarDayCheck) */
        const long long row = lines ? (long long)lines[t] : (long long)t + 1;
        if (!dates[t] || !dates[t][0])
            return raidFail(NULL, RAID_EINVAL, "raid_har_input_add: %s: row %lld: date is %s", RAID_SHOWZ(name), row,
                             dates[t] ? "empty" : "NULL");
        const int r = raidHarDayCheck(dates[t], strlen(dates[t]), rv[t], bpv ? bpv[t] : NAN, rq ? rq[t] : NAN);
        if (r == HAR_DAY_DATE)
            return raidFail(NULL, RAID_EINVAL, "raid_har_input_add: %s: row %lld: date '%s' %s", RAID_SHOWZ(name),
                             row, RAID_SHOWZ(dates[t]), raidHarDayWhy(r));
        if (r != HAR_DAY_OK)
            return raidFail(NULL, RAID_EINVAL, "raid_har_input_add: %s: row %lld: %s %s", RAID_SHOWZ(name), row,
                             RAID_SHOWZ(in->colname[r - HAR_DAY_RV]), raidHarDayWhy(r));
    }
    /* in increasing date order (io/order.h, the CSV reader's rule): the lags of a day out of order are
     * other days */
    const raid_status ost = raidIoCheckDates("raid_har_input_add", name, dates, n, lines);
    if (ost != RAID_OK)
        return ost;
    if (in->nsym == in->cap) {
        const size_t cap = in->cap ? 2 * in->cap : 16;
        har_in_sym *s = realloc(in->sym, cap * sizeof *s);
        if (!s)
            return raidFail(NULL, RAID_ENOMEM, "out of memory");
        in->sym = s;
        in->cap = cap;
    }
    har_in_sym s;
    memset(&s, 0, sizeof s);
    int fail = 0;
    s.n = n;
    s.name = strdup(name);
    fail = !s.name;
    s.dates = raidStringsDup(dates, n); /* n pointers, then their text, in one allocation */
    fail |= !s.dates;
    /* rv is present, also for n == 0, where the caller may pass NULL arrays */
    static const double none = 0.0;
    const double *src[4] = {rv ? rv : &none, bpv, rq, jump_p};
    for (int j = 0; j < 4; j++)
        s.v[j] = dup_mem(src[j], n * sizeof(double), &fail);
    s.lines = dup_mem(lines, n * sizeof *lines, &fail);
    if (fail || raidSymtabAdd(&in->names, name, nlen) < 0) {
        sym_free(&s);
        return raidFail(NULL, RAID_ENOMEM, "out of memory");
    }
    assert((size_t)raidSymtabFind(&in->names, name, nlen) == in->nsym);
    in->sym[in->nsym++] = s;
    return RAID_OK;
}

raid_status raid_har_input_add_ymd(raid_har_input *in, const char *name, size_t n, const int32_t *yyyymmdd,
                                   const double *rv, const double *bpv, const double *rq, const double *jump_p,
                                   const int64_t *lines)
{
    if (n && !yyyymmdd)
        return raidFail(NULL, RAID_EINVAL, "raid_har_input_add_ymd: NULL dates");
    char *text = malloc(n * 11 + 1);
    const char **dates = malloc((n ? n : 1) * sizeof *dates);
    if (!text || !dates) {
        free(text), free(dates);
        return raidFail(NULL, RAID_ENOMEM, "out of memory");
    }
    raid_status st = RAID_OK;
    for (size_t t = 0; t < n && st == RAID_OK; t++) {
        const int32_t v = yyyymmdd[t], y = v / 10000, mo = v / 100 % 100, d = v % 100;
        if (y < 1 || y > 9999 || mo < 1 || mo > 12 || d < 1 || d > raidIoDaysInMonth(y, mo))
            st = raidFail(NULL, RAID_EINVAL, "raid_har_input_add_ymd: %s: row %lld: %ld is not a date yyyymmdd",
                           name ? name : "(NULL)", lines ? (long long)lines[t] : (long long)t + 1, (long)v);
        char buf[48]; /* "YYYY-MM-DD" once the ranges hold */
        snprintf(buf, sizeof buf, "%04d-%02d-%02d", (int)y, (int)mo, (int)d);
        memcpy(text + 11 * t, buf, 11);
        text[11 * t + 10] = 0;
        dates[t] = text + 11 * t;
    }
    if (st == RAID_OK)
        st = raid_har_input_add(in, name, n, dates, rv, bpv, rq, jump_p, lines);
    free(text), free(dates);
    return st;
}

raid_status raid_har_input_set_source(raid_har_input *in, const char *path, int date_col)
{
    if (!in)
        return raidFail(NULL, RAID_EINVAL, "raid_har_input_set_source: NULL");
    char *p = path ? strdup(path) : NULL;
    if (path && !p)
        return raidFail(NULL, RAID_ENOMEM, "out of memory");
    free(in->path);
    in->path = p;
    in->date_col = date_col;
    return RAID_OK;
}

raid_status raid_har_input_set_names(raid_har_input *in, const char *rv, const char *bpv, const char *rq,
                                     const char *jump_p)
{
    if (!in)
        return raidFail(NULL, RAID_EINVAL, "raid_har_input_set_names: NULL");
    const char *nm[4] = {rv, bpv, rq, jump_p};
    for (int j = 0; j < 4; j++) {
        if (!nm[j])
            continue;
        char *d = strdup(nm[j]);
        if (!d)
            return raidFail(NULL, RAID_ENOMEM, "out of memory");
        free(in->colname[j]);
        in->colname[j] = d;
    }
    return RAID_OK;
}

size_t raid_har_input_nsymbols(const raid_har_input *in) { return in ? in->nsym : 0; }

raid_status raid_har_input_add_notice(raid_har_input *in, const char *text)
{
    if (!in || !text)
        return raidFail(NULL, RAID_EINVAL, "raid_har_input_add_notice: NULL argument");
    return raidStrlistAddf(&in->notices, "%s", text) ? raidFail(NULL, RAID_ENOMEM, "out of memory") : RAID_OK;
}

size_t raid_har_input_notice_count(const raid_har_input *in) { return in ? in->notices.n : 0; }

const char *raid_har_input_notice(const raid_har_input *in, size_t i)
{
    return in ? raidStrlistGet(&in->notices, i) : NULL;
}
