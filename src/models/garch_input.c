/* GARCH input: the returns of every symbol, copied from the caller's arrays (include/raid/garch.h). */
#define _POSIX_C_SOURCE 200809L
#include "models/garch_internal.h"
#include "core/internal.h"
#include "io/order.h"
#include "io/utf8.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

raid_status raid_garch_input_create(raid_garch_input **out)
{
    if (!out)
        return raidFail(NULL, RAID_EINVAL, "raid_garch_input_create: NULL");
    *out = calloc(1, sizeof **out);
    return *out ? RAID_OK : raidFail(NULL, RAID_ENOMEM, "out of memory");
}

static void sym_free(garch_in_sym *s)
{
    free(s->name);
    free(s->r);
    free(s->dates);
    free(s->lines);
}

void raid_garch_input_destroy(raid_garch_input *in)
{
    if (!in)
        return;
    for (size_t q = 0; q < in->nsym; q++)
        sym_free(&in->sym[q]);
    free(in->sym);
    raidSymtabFree(&in->names);
    raidStrlistFree(&in->notices);
    free(in->path);
    free(in);
}

raid_status raid_garch_input_add(raid_garch_input *in, const char *name, size_t n, const double *r,
                                 const char *const *dates, const int64_t *lines)
{
    if (!in || !name || (n && !r))
        return raidFail(NULL, RAID_EINVAL, "raid_garch_input_add: NULL argument");
    int dev = -1;
    if (n && raid_memory_of(r, &dev) == RAID_MEMORY_CUDA) /* never read by the host below */
        return raidFail(NULL, RAID_EINVAL, "raid_garch_input_add: r is CUDA device memory (cuda:%d); the input keeps a "
                                           "host copy of every series, which the fits' float64 steps read: copy the "
                                           "returns to the host first", dev);
    const size_t nlen = strlen(name), bad = raidUtf8InvalidAt(name, nlen);
    if (bad < nlen) /* as the CSV reader refuses it (table.c) */
        return raidFail(NULL, RAID_EINVAL, "raid_garch_input_add: symbol is not valid UTF-8 (byte %zu is 0x%02X)",
                         bad + 1, (unsigned)(unsigned char)name[bad]);
    if (raidSymtabFind(&in->names, name, nlen) >= 0)
        return raidFail(NULL, RAID_EINVAL, "symbol '%s' added twice", RAID_SHOWZ(name));
    for (size_t t = 0; dates && t < n; t++)
        if (!dates[t] || !dates[t][0])
            return raidFail(NULL, RAID_EINVAL, "raid_garch_input_add: %s: row %lld: date is %s",
                             *name ? RAID_SHOWZ(name) : "(no symbol)", lines ? (long long)lines[t] : (long long)t + 1,
                             dates[t] ? "empty" : "NULL");
    /* in time order (io/order.h, the CSV reader's rule): a fit of returns out of order, and window ends
     * running backwards, are wrong answers */
    raid_status st;
    if (dates && (st = raidIoCheckDates("raid_garch_input_add", name, dates, n, lines)) != RAID_OK)
        return st;
    if (in->nsym == in->cap) {
        const size_t cap = in->cap ? 2 * in->cap : 16;
        garch_in_sym *s = realloc(in->sym, cap * sizeof *s);
        if (!s)
            return raidFail(NULL, RAID_ENOMEM, "out of memory");
        in->sym = s;
        in->cap = cap;
    }
    garch_in_sym s = {0};
    s.n = n;
    s.name = strdup(name);
    s.r = malloc((n ? n : 1) * sizeof *s.r);
    int fail = !s.name || !s.r;
    if (s.r && n)
        memcpy(s.r, r, n * sizeof *s.r);
    if (dates)
        fail |= !(s.dates = raidStringsDup(dates, n));
    if (lines && (s.lines = malloc((n ? n : 1) * sizeof *s.lines)) != NULL && n)
        memcpy(s.lines, lines, n * sizeof *s.lines);
    fail |= lines && !s.lines;
    if (fail || raidSymtabAdd(&in->names, name, nlen) < 0) {
        sym_free(&s);
        return raidFail(NULL, RAID_ENOMEM, "out of memory");
    }
    assert((size_t)raidSymtabFind(&in->names, name, nlen) == in->nsym);
    in->sym[in->nsym++] = s;
    return RAID_OK;
}

raid_status raid_garch_input_set_source(raid_garch_input *in, const char *path)
{
    if (!in)
        return raidFail(NULL, RAID_EINVAL, "raid_garch_input_set_source: NULL");
    char *p = path ? strdup(path) : NULL;
    if (path && !p)
        return raidFail(NULL, RAID_ENOMEM, "out of memory");
    free(in->path);
    in->path = p;
    return RAID_OK;
}

size_t raid_garch_input_nsymbols(const raid_garch_input *in) { return in ? in->nsym : 0; }
const char *raid_garch_input_symbol(const raid_garch_input *in, size_t s)
{
    return in && s < in->nsym ? in->sym[s].name : NULL;
}
size_t raid_garch_input_length(const raid_garch_input *in, size_t s) { return in && s < in->nsym ? in->sym[s].n : 0; }
const double *raid_garch_input_returns(const raid_garch_input *in, size_t s)
{
    return in && s < in->nsym ? in->sym[s].r : NULL;
}
size_t raid_garch_input_notice_count(const raid_garch_input *in) { return in ? in->notices.n : 0; }
const char *raid_garch_input_notice(const raid_garch_input *in, size_t i)
{
    return in ? raidStrlistGet(&in->notices, i) : NULL;
}
