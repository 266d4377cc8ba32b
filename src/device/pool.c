/*
 * The device-buffer pool and the page-locked host pool of a device context, one for both backends
 * (backend.h): buffers and staging kept by power-of-two size class (RAID_POOL_PER_CLASS a class) and reused,
 * and the counts of what is acquired and not released (raidDevGetUsage). The backend allocates and frees
 * through the hooks mem_alloc, mem_free, host_alloc and host_free of its table.
 */
#define _POSIX_C_SOURCE 200809L
#include "device/backend.h"

#include <stdlib.h>

/* The pool class of a request of bytes (> 0) and the size to allocate for it: the class's power of two, or
 * exactly bytes where that power would exceed the device's allocation limit. Device buffers and page-locked
 * host staging share the classes. */
static int pool_class(uint64_t max_alloc, size_t bytes, size_t *sz)
{
    int c = 0;
    while (c < RAID_POOL_CLASSES - 1 && ((size_t)1 << c) < bytes)
        c++;
    *sz = (size_t)1 << c;
    if (*sz < bytes || *sz > max_alloc)
        *sz = bytes;
    return c;
}

/* A pooled buffer of class c free and large enough for bytes, taken; NULL when none. */
static RaidPoolSlot *take_free(RaidPoolSlot slots[RAID_POOL_PER_CLASS], size_t bytes)
{
    for (int j = 0; j < RAID_POOL_PER_CLASS; j++) {
        RaidPoolSlot *p = &slots[j];
        if (p->mem && !p->in_use && p->size >= bytes) {
            p->in_use = 1;
            return p;
        }
    }
    return NULL;
}

/* An empty slot of class c, or NULL when the class is full. */
static RaidPoolSlot *empty_slot(RaidPoolSlot slots[RAID_POOL_PER_CLASS])
{
    for (int j = 0; j < RAID_POOL_PER_CLASS; j++)
        if (!slots[j].mem)
            return &slots[j];
    return NULL;
}

/* backend.h: from the pool, else mem_alloc (pooled when the class has room, else freed on release). */
raid_status raidPoolBufAcquire(raid_ctx *ctx, RaidDtype t, size_t n, RaidBuf *out)
{
    RaidDev *dev = ctx->dev;
    RaidPools *pl = &dev->pools;
    *out = (RaidBuf){NULL, 0, t};
    size_t bytes = n * raidDtypeSize(t);
    if (bytes == 0)
        bytes = 1;
    const uint64_t max_alloc = dev->max_alloc;
    size_t sz;
    const int c = pool_class(max_alloc, bytes, &sz);
    if (bytes > max_alloc)
        return raidFail(ctx, RAID_EDEVMEM, "a buffer of %zu bytes exceeds the device's allocation limit of %llu",
                        bytes, (unsigned long long)max_alloc);
    void *m = NULL;
    /* An injected failure: as if the pool had no free buffer and the allocation failed. */
    if (raidDevFault(ctx, RAID_FAULT_ALLOC, dev->ops->alloc_what))
        return dev->ops->mem_alloc(ctx, sz, 1, &m);
    const RaidPoolSlot *p = take_free(pl->buf[c], bytes);
    if (p) {
        *out = (RaidBuf){p->mem, n, t};
        pl->live_bufs++;
        return RAID_OK;
    }
    raid_status s = dev->ops->mem_alloc(ctx, sz, 0, &m);
    if (s != RAID_OK)
        return s;
    *out = (RaidBuf){m, n, t};
    pl->live_bufs++;
    RaidPoolSlot *e = empty_slot(pl->buf[c]);
    if (e)
        *e = (RaidPoolSlot){m, NULL, 1, sz};
    return RAID_OK; /* (the class full: an unpooled buffer, freed on release) */
}

/* backend.h: back to the pool, or freed (mem_free) when unpooled. */
void raidPoolBufRelease(raid_ctx *ctx, RaidBuf *b)
{
    void *m = b->h;
    *b = (RaidBuf){NULL, 0, b->type};
    if (!m)
        return;
    RaidDev *dev = ctx->dev;
    dev->pools.live_bufs--;
    for (int c = 0; c < RAID_POOL_CLASSES; c++)
        for (int j = 0; j < RAID_POOL_PER_CLASS; j++)
            if (dev->pools.buf[c][j].mem == m) {
                dev->pools.buf[c][j].in_use = 0;
                return;
            }
    dev->ops->mem_free(dev, m);
}

/* backend.h: from the host pool, else page-locked (host_alloc), else malloc. */
raid_status raidPoolHostAcquire(raid_ctx *ctx, size_t bytes, void **host)
{
    RaidDev *dev = ctx->dev;
    RaidPools *pl = &dev->pools;
    if (bytes == 0)
        bytes = 1;
    if (raidDevFault(ctx, RAID_FAULT_HOST, "staging")) { /* as if neither page-locked nor ordinary memory were left */
        *host = NULL;
        return raidFail(ctx, RAID_ENOMEM, "out of memory for %zu bytes of staging", bytes);
    }
    size_t sz;
    const int c = pool_class(dev->max_alloc, bytes, &sz);
    const RaidPoolSlot *p = take_free(pl->host[c], bytes);
    if (p) {
        *host = p->host;
        pl->live_host++;
        return RAID_OK;
    }
    RaidPoolSlot *e = empty_slot(pl->host[c]);
    void *mem = NULL, *h = NULL;
    if (e && dev->ops->host_alloc(ctx, sz, &mem, &h) == 0) {
        *e = (RaidPoolSlot){mem, h, 1, sz};
        *host = h;
        pl->live_host++;
        return RAID_OK;
    }
    /* no page-locked memory (or the class is full): ordinary memory, freed on release */
    *host = malloc(bytes);
    if (!*host)
        return raidFail(ctx, RAID_ENOMEM, "out of memory for %zu bytes of staging", bytes);
    pl->live_host++;
    return RAID_OK;
}

/* backend.h: back to the host pool, or freed when it came from malloc. */
void raidPoolHostRelease(raid_ctx *ctx, void *host)
{
    if (!host)
        return;
    RaidPools *pl = &ctx->dev->pools;
    pl->live_host--;
    for (int c = 0; c < RAID_POOL_CLASSES; c++)
        for (int j = 0; j < RAID_POOL_PER_CLASS; j++)
            if (pl->host[c][j].mem && pl->host[c][j].host == host) {
                pl->host[c][j].in_use = 0;
                return;
            }
    free(host);
}

/* backend.h: free every pooled buffer and host block. */
void raidPoolClear(RaidDev *dev)
{
    for (int c = 0; c < RAID_POOL_CLASSES; c++)
        for (int j = 0; j < RAID_POOL_PER_CLASS; j++) {
            RaidPoolSlot *b = &dev->pools.buf[c][j], *h = &dev->pools.host[c][j];
            if (b->mem)
                dev->ops->mem_free(dev, b->mem);
            if (h->mem)
                dev->ops->host_free(dev, h->mem, h->host);
            *b = *h = (RaidPoolSlot){0};
        }
}
