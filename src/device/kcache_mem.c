/*
 * The in-memory kernel cache of a device context, one for both backends (backend.h): a list of the
 * context's kernels in order of use, their holds, lookup by key, eviction of unheld kernels past the soft
 * capacity, and the statistics of raidKernelCacheGetStats. A backend builds a kernel and releases its
 * program or module (the kernel_release hook); everything else about a cached kernel is here. The cache on
 * disk of compiled binaries is kcache.c.
 */
#define _POSIX_C_SOURCE 200809L
#include "device/backend.h"
#include "device/kernels_embedded.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A kernel's cache entry: its first member (backend.h, RaidKcEntry). */
static inline RaidKcEntry *entry(RaidKernel *k) { return (RaidKcEntry *)k; }

/* An empty cache of the default capacity. */
void raidKcacheInit(RaidDev *dev)
{
    dev->kc = (RaidKcache){0};
    dev->kc.cap = RAID_KERNEL_CACHE_DEFAULT;
}

/* The embedded kernel file `file`, or NULL. */
const char *raidKernelSource(const char *file)
{
    for (const RaidKernelFile *k = raidKernelFiles; k->name; k++)
        if (!strcmp(k->name, file))
            return k->source;
    return NULL;
}

/* The headers of file's program, in order: the prelude, then file's own (raidKernelExtra), at most max names
 * into names; their count, or -1 when there are more than max. */
int raidKernelHeaders(const char *file, const char **names, int max)
{
    int n = 0;
    for (const char *const *h = raidKernelPrelude; *h; h++) {
        if (n == max)
            return -1;
        names[n++] = *h;
    }
    for (int i = 0; raidKernelExtra[i][0]; i++)
        if (!strcmp(raidKernelExtra[i][0], file)) {
            if (n == max)
                return -1;
            names[n++] = raidKernelExtra[i][1];
        }
    return n;
}

/* FNV-1a of the source, never 0 (0 marks an embedded file). */
uint64_t raidKcacheSourceHash(const char *src) { return raidFnv(RAID_FNV_START, src, strlen(src)) | 1; }

/* "label|name|options" (options NULL: empty) into a malloc'd *key; RAID_ENOMEM when it cannot be made. */
static raid_status make_key(raid_ctx *ctx, const char *label, const char *name, const char *options, char **key)
{
    const size_t klen = strlen(label) + strlen(name) + (options ? strlen(options) : 0) + 3;
    *key = malloc(klen);
    if (!*key)
        return raidFail(ctx, RAID_ENOMEM, "out of memory");
    snprintf(*key, klen, "%s|%s|%s", label, name, options ? options : "");
    return RAID_OK;
}

/* Take k out of the list (it stays allocated). */
static void unlink_entry(RaidKcache *c, RaidKernel *k)
{
    RaidKcEntry *e = entry(k);
    if (e->prev)
        entry(e->prev)->next = e->next;
    else
        c->head = e->next;
    if (e->next)
        entry(e->next)->prev = e->prev;
    else
        c->tail = e->prev;
    e->prev = e->next = NULL;
}

/* Put k at the front (the most recently used end). */
static void push_front(RaidKcache *c, RaidKernel *k)
{
    RaidKcEntry *e = entry(k);
    e->prev = NULL;
    e->next = c->head;
    if (c->head)
        entry(c->head)->prev = k;
    c->head = k;
    if (!c->tail)
        c->tail = k;
}

/* Free k: the backend's part (kernel_release), then the key and the entry. */
static void free_kernel(RaidDev *dev, RaidKernel *k)
{
    dev->ops->kernel_release(dev, k);
    free(entry(k)->key);
    free(k);
}

/* Evict unheld kernels from the least recently used end until the cache is within its capacity. */
static void trim(RaidDev *dev)
{
    RaidKcache *c = &dev->kc;
    RaidKernel *k = c->tail;
    while (k && c->n > c->cap) {
        RaidKernel *prev = entry(k)->prev;
        if (entry(k)->holds == 0) {
            unlink_entry(c, k);
            free_kernel(dev, k);
            c->n--;
            c->stats.evictions++;
        }
        k = prev;
    }
}

/* The kernel of key and src_hash, moved to the front, held and counted as a hit; NULL when absent. */
RaidKernel *raidKcacheFind(RaidDev *dev, const char *key, uint64_t src_hash)
{
    RaidKcache *c = &dev->kc;
    for (RaidKernel *k = c->head; k; k = entry(k)->next)
        if (entry(k)->src_hash == src_hash && !strcmp(entry(k)->key, key)) {
            if (k != c->head) {
                unlink_entry(c, k);
                push_front(c, k);
            }
            entry(k)->holds++;
            c->stats.hits++;
            return k;
        }
    return NULL;
}

/* backend.h: the key, the fault switch's build point, the cache, else the backend's build. */
raid_status raidKcacheGet(raid_ctx *ctx, const char *label, const char *src, uint64_t src_hash, const char *name,
                          const char *options, RaidKernel **out)
{
    RaidDev *dev = ctx->dev;
    *out = NULL;
    char *key;
    raid_status s = make_key(ctx, label, name, options, &key);
    if (s != RAID_OK)
        return s;
    const int injected = raidDevFault(ctx, RAID_FAULT_BUILD, dev->ops->build_what);
    RaidKernel *hit = injected ? NULL : raidKcacheFind(dev, key, src_hash);
    if (hit) {
        free(key);
        *out = hit;
        return RAID_OK;
    }
    return dev->ops->kernel_build(ctx, label, src, src_hash, name, options, key, injected, out);
}

/* Add a newly built k under key (now the cache's), held once, counted as a build; evict past the capacity. */
void raidKcacheAdd(RaidDev *dev, RaidKernel *k, char *key, uint64_t src_hash)
{
    RaidKcEntry *e = entry(k);
    e->key = key;
    e->src_hash = src_hash;
    e->holds = 1;
    push_front(&dev->kc, k);
    dev->kc.n++;
    dev->kc.stats.builds++;
    trim(dev);
}

/* Drop a hold on k (NULL: nothing), then evict past the capacity. */
void raidKcachePut(RaidDev *dev, RaidKernel *k)
{
    if (!k)
        return;
    if (entry(k)->holds > 0)
        entry(k)->holds--;
    trim(dev);
}

/* The statistics, with the number of entries now. */
void raidKcacheStats(const RaidDev *dev, RaidKernelCacheStats *st)
{
    *st = dev->kc.stats;
    st->entries = dev->kc.n;
}

/* A new soft capacity (0: the default), applied at once. */
void raidKcacheSetCapacity(RaidDev *dev, size_t cap)
{
    dev->kc.cap = cap ? cap : RAID_KERNEL_CACHE_DEFAULT;
    trim(dev);
}

/* The holds on all cached kernels. */
size_t raidKcacheHolds(const RaidDev *dev)
{
    size_t holds = 0;
    for (RaidKernel *k = dev->kc.head; k; k = entry(k)->next)
        holds += (size_t)entry(k)->holds;
    return holds;
}

/* Free every cached kernel, held or not (the device is closing). */
void raidKcacheClear(RaidDev *dev)
{
    for (RaidKernel *k = dev->kc.head, *n; k; k = n) {
        n = entry(k)->next;
        free_kernel(dev, k);
    }
    dev->kc = (RaidKcache){0};
}
