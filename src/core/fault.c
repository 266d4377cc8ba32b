/* The fault-injection switch of the tests: see fault.h. */
#define _POSIX_C_SOURCE 200809L
#include "core/fault.h"
#include "core/internal.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void raidFaultArm(RaidFaultPlan *p, unsigned kinds, uint64_t at, int sticky)
{
    memset(p, 0, sizeof *p);
    p->kinds = kinds;
    p->at = at;
    p->sticky = sticky != 0;
    p->fired_what = "";
}

static int bit_index(unsigned kind)
{
    int i = 0;
    while (i < RAID_FAULT_NKINDS && !(kind & (1u << i)))
        i++;
    return i < RAID_FAULT_NKINDS ? i : 0;
}

int raidFaultAt(RaidFaultPlan *p, unsigned kind, const char *what)
{
    if (!(p->kinds & kind))
        return 0;
    p->per_kind[bit_index(kind)]++;
    const uint64_t n = ++p->seen;
    if (p->at == 0 || n < p->at || (n > p->at && !p->sticky))
        return 0;
    if (p->fired++ == 0) {
        p->fired_kind = kind;
        p->fired_what = what;
    }
    return 1;
}

uint64_t raidFaultCount(const RaidFaultPlan *p, unsigned kinds)
{
    uint64_t n = 0;
    for (int i = 0; i < RAID_FAULT_NKINDS; i++)
        if (kinds & (1u << i))
            n += p->per_kind[i];
    return n;
}

static const char *const kind_names[RAID_FAULT_NKINDS] = {"alloc",    "host", "build", "upload", "launch",
                                                          "download", "sync", "write", "close",  "rename"};

int raidFaultEnv(unsigned *kinds, uint64_t *at, int *sticky)
{
    const char *env = getenv("RAID_FAULT");
    *kinds = 0;
    *at = 0;
    *sticky = 0;
    if (!env || !*env)
        return 0;
    const char *colon = strchr(env, ':');
    if (!colon)
        goto bad;
    for (const char *w = env; w < colon;) {
        const char *end = memchr(w, ',', (size_t)(colon - w));
        if (!end)
            end = colon;
        const size_t len = (size_t)(end - w);
        unsigned k = 0;
        if (len == 6 && !strncmp(w, "device", 6))
            k = RAID_FAULT_DEVICE;
        for (int i = 0; i < RAID_FAULT_NKINDS && !k; i++)
            if (strlen(kind_names[i]) == len && !strncmp(w, kind_names[i], len))
                k = 1u << i;
        if (!k)
            goto bad;
        *kinds |= k;
        w = end + (end < colon);
        if (end < colon && w == colon)
            goto bad; /* a trailing comma */
    }
    char *end;
    const unsigned long long n = strtoull(colon + 1, &end, 10);
    if (end == colon + 1 || colon[1] == '-' || colon[1] == '+')
        goto bad;
    if (*end == '+') {
        *sticky = 1;
        end++;
    }
    if (*end)
        goto bad;
    *at = n;
    return 1;
bad:
    *kinds = 0;
    raidFail(NULL, RAID_EINVAL, "RAID_FAULT='%s': expected KINDS:N or KINDS:N+ (KINDS a comma-separated list of "
              "alloc, host, build, upload, launch, download, sync, device, write, close, rename; N >= 0, 0 counting "
              "only)", env);
    return -1;
}

void raidFaultReport(const RaidFaultPlan *p)
{
    fprintf(stderr, "raid: RAID_FAULT: %llu device points (", (unsigned long long)raidFaultCount(p, RAID_FAULT_DEVICE));
    for (int i = 0; i < 7; i++)
        fprintf(stderr, "%s%s %llu", i ? ", " : "", kind_names[i], (unsigned long long)p->per_kind[i]);
    fprintf(stderr, "), %llu failed\n", (unsigned long long)p->fired);
}

/* ---- the output files' points: one plan per process ---- */

static pthread_once_t files_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t files_mutex = PTHREAD_MUTEX_INITIALIZER;
static RaidFaultPlan files_plan;
static int files_on; /* read and written under files_mutex, or before any thread asks (files_once) */

static void files_from_env(void)
{
    unsigned kinds;
    uint64_t at;
    int sticky;
    if (raidFaultEnv(&kinds, &at, &sticky) == 1 && (kinds & ~(unsigned)RAID_FAULT_DEVICE)) {
        raidFaultArm(&files_plan, kinds & ~(unsigned)RAID_FAULT_DEVICE, at, sticky);
        files_on = 1;
    }
}

int raidFaultFileArmed(void)
{
    pthread_once(&files_once, files_from_env);
    pthread_mutex_lock(&files_mutex);
    const int on = files_on;
    pthread_mutex_unlock(&files_mutex);
    return on;
}

int raidFaultFileAt(unsigned kind)
{
    pthread_once(&files_once, files_from_env);
    pthread_mutex_lock(&files_mutex);
    const int hit = files_on && raidFaultAt(&files_plan, kind, "");
    pthread_mutex_unlock(&files_mutex);
    return hit;
}

void raidFaultFilesArm(unsigned kinds, uint64_t at, int sticky)
{
    pthread_once(&files_once, files_from_env);
    pthread_mutex_lock(&files_mutex);
    raidFaultArm(&files_plan, kinds & ~(unsigned)RAID_FAULT_DEVICE, at, sticky);
    files_on = (kinds & ~(unsigned)RAID_FAULT_DEVICE) != 0;
    pthread_mutex_unlock(&files_mutex);
}
