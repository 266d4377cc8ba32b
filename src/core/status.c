/* Status names, messages and small host utilities. */
#define _POSIX_C_SOURCE 200809L
#include "core/internal.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

const char *raid_version(void) { return RAID_VERSION_STRING; }

const char *raid_strerror(raid_status s)
{
    switch (s) {
    case RAID_OK: return "success";
    case RAID_EINVAL: return "invalid argument";
    case RAID_ENOMEM: return "out of host memory";
    case RAID_EIO: return "input/output error";
    case RAID_EPARSE: return "bad input data";
    case RAID_ENODEV: return "no such device";
    case RAID_EDEVICE: return "device backend error";
    case RAID_EBUILD: return "kernel build failed";
    case RAID_EDEVMEM: return "out of device memory";
    case RAID_EDEVLOST: return "device lost";
    case RAID_EUNSUPPORTED: return "not supported";
    case RAID_ESINGULAR: return "singular or ill-conditioned design";
    }
    return "unknown status";
}

/* The message of the last failure in this thread (raid_errmsg). */
static _Thread_local char thread_errmsg[RAID_ERRMSG_LEN];

const char *raid_errmsg(void) { return thread_errmsg; }

raid_status raidFail(raid_ctx *ctx, raid_status s, const char *fmt, ...)
{
    /* Formatted aside first: an argument may be raid_errmsg() itself (passing a message on, with a prefix). */
    char m[RAID_ERRMSG_LEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m, sizeof m, fmt, ap);
    va_end(ap);
    memcpy(thread_errmsg, m, sizeof thread_errmsg);
    if (ctx)
        memcpy(ctx->errmsg, thread_errmsg, sizeof ctx->errmsg);
    return s;
}

raid_status raidParseWord(const char *const *names, int n, const char *s, int *out, const char *what,
                            const char *expected)
{
    for (int i = 0; s && out && i < n; i++)
        if (!strcmp(s, names[i])) {
            *out = i;
            return RAID_OK;
        }
    return raidFail(NULL, RAID_EINVAL, "bad %s '%s' (expected %s)", what, RAID_SHOWZ(s ? s : ""), expected);
}

double raidNow(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double raidCpuNow(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

size_t raidEnvSize(const char *name, size_t lo, size_t hi, size_t dflt)
{
    const char *env = getenv(name);
    if (!env)
        return dflt;
    char *e;
    const unsigned long long v = strtoull(env, &e, 10);
    return e != env && !*e && v >= lo && v <= hi ? (size_t)v : dflt;
}

raid_status raidCheckOffsets(raid_ctx *ctx, const char *fn, const char *noun, const int64_t *offsets, size_t nseg)
{
    if (offsets[0] < 0)
        return raidFail(ctx, RAID_EINVAL, "%s: negative offset %lld", fn, (long long)offsets[0]);
    for (size_t s = 0; s < nseg; s++)
        if (offsets[s + 1] < offsets[s])
            return raidFail(ctx, RAID_EINVAL, "%s: offsets decrease at %s %zu (%lld < %lld)", fn, noun, s,
                             (long long)offsets[s + 1], (long long)offsets[s]);
    return RAID_OK;
}
