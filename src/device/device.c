/*
 * device.h's functions, dispatched to the context's backend through the table at the head of its device
 * state (src/device/backend.h): OpenCL (device_opencl.c) or CUDA (device_cuda.c). The backend-neutral
 * parts live here too: raidEventFinish and the device list raid_devices.
 */
#include "device/backend.h"

#include <string.h>

#define OPS(ctx) ((ctx)->dev->ops)

/* Events made and not yet released, in the whole process, on every backend (raidDevGetUsage; an event
 * carries no context). Relaxed atomics: a count, ordering nothing. */
static long live_events;

raid_status raidDevOpen(raid_ctx *ctx, int platform, int device, int any_type)
{
    return raidOpenclOpen(ctx, platform, device, any_type);
}
raid_status raidDevOpenCuda(raid_ctx *ctx, int ordinal) { return raidCudaOpen(ctx, ordinal); }
const char *raidDevCudaAbsent(void) { return raidCudaAbsent(); }

void raidDevClose(RaidDev *dev)
{
    if (dev)
        dev->ops->close(dev);
}

size_t raidDevMaxWg(const raid_ctx *ctx) { return ctx->dev->max_wg; }
uint64_t raidDevMaxAlloc(const raid_ctx *ctx) { return ctx->dev->max_alloc; }
uint64_t raidDevLocalMem(const raid_ctx *ctx) { return ctx->dev->local_mem; }
raid_status raidDevFlush(raid_ctx *ctx) { return OPS(ctx)->flush(ctx); }
raid_status raidDevFinish(raid_ctx *ctx) { return OPS(ctx)->finish(ctx); }
void raidDevDrain(raid_ctx *ctx) { OPS(ctx)->drain(ctx); }

raid_status raidBufAcquire(raid_ctx *ctx, RaidDtype t, size_t n, RaidBuf *out)
{
    return raidPoolBufAcquire(ctx, t, n, out);
}
void raidBufRelease(raid_ctx *ctx, RaidBuf *b) { OPS(ctx)->buf_release(ctx, b); }
raid_status raidBufUpload(raid_ctx *ctx, const RaidBuf *b, size_t first, size_t n, const void *src, int blocking,
                          RaidEvent *ev)
{
    return OPS(ctx)->buf_transfer(ctx, b, first, n, (void *)src, blocking, ev, 1);
}
raid_status raidBufDownload(raid_ctx *ctx, const RaidBuf *b, size_t first, size_t n, void *dst, int blocking,
                            RaidEvent *ev)
{
    return OPS(ctx)->buf_transfer(ctx, b, first, n, dst, blocking, ev, 0);
}
raid_status raidBufFill(raid_ctx *ctx, const RaidBuf *b, const void *value, RaidEvent *ev)
{
    return OPS(ctx)->buf_fill(ctx, b, value, ev);
}
raid_status raidBufCopy(raid_ctx *ctx, const RaidBuf *dst, const RaidBuf *src, size_t n, RaidEvent *ev)
{
    return OPS(ctx)->buf_copy(ctx, dst, 0, src, 0, n, ev);
}
raid_status raidBufCopyAt(raid_ctx *ctx, const RaidBuf *dst, size_t dfirst, const RaidBuf *src, size_t sfirst, size_t n,
                          RaidEvent *ev)
{
    return OPS(ctx)->buf_copy(ctx, dst, dfirst, src, sfirst, n, ev);
}
raid_status raidHostAcquire(raid_ctx *ctx, size_t bytes, void **host)
{
    return raidPoolHostAcquire(ctx, bytes, host);
}
void raidHostRelease(raid_ctx *ctx, void *host) { raidPoolHostRelease(ctx, host); }

raid_status raidKernelGet(raid_ctx *ctx, const char *file, const char *name, const char *options, RaidKernel **out)
{
    return raidKcacheGet(ctx, file, raidKernelSource(file), 0, name, options, out);
}
raid_status raidKernelGetSource(raid_ctx *ctx, const char *label, const char *source, const char *name,
                                const char *options, RaidKernel **out)
{
    if (!source) {
        *out = NULL;
        return raidFail(ctx, RAID_EINVAL, "no source for kernel '%s'", label);
    }
    return raidKcacheGet(ctx, label, source, raidKcacheSourceHash(source), name, options, out);
}
void raidKernelPut(raid_ctx *ctx, RaidKernel *k) { raidKcachePut(ctx->dev, k); }

raid_status raidArgBuf(raid_ctx *ctx, RaidKernel *k, unsigned i, const RaidBuf *b)
{
    return OPS(ctx)->arg_buf(ctx, k, i, b);
}
raid_status raidArgFloat(raid_ctx *ctx, RaidKernel *k, unsigned i, float v)
{
    return OPS(ctx)->arg_value(ctx, k, i, &v, sizeof v);
}
raid_status raidArgInt(raid_ctx *ctx, RaidKernel *k, unsigned i, int32_t v)
{
    return OPS(ctx)->arg_value(ctx, k, i, &v, sizeof v);
}
raid_status raidArgUint(raid_ctx *ctx, RaidKernel *k, unsigned i, uint32_t v)
{
    return OPS(ctx)->arg_value(ctx, k, i, &v, sizeof v);
}
raid_status raidArgLong(raid_ctx *ctx, RaidKernel *k, unsigned i, int64_t v)
{
    return OPS(ctx)->arg_value(ctx, k, i, &v, sizeof v);
}
raid_status raidLaunch(raid_ctx *ctx, RaidKernel *k, unsigned dims, const size_t *global, const size_t *local,
                       RaidEvent *ev)
{
    return OPS(ctx)->launch(ctx, k, dims, global, local, ev);
}
size_t raidKernelBuildLog(raid_ctx *ctx, const RaidKernel *k, char *buf, size_t len)
{
    return OPS(ctx)->kernel_build_log(ctx, k, buf, len);
}
void raidKernelCacheGetStats(const raid_ctx *ctx, RaidKernelCacheStats *st) { raidKcacheStats(ctx->dev, st); }
void raidKernelCacheSetCapacity(raid_ctx *ctx, size_t cap) { raidKcacheSetCapacity(ctx->dev, cap); }
void raidDevGetUsage(const raid_ctx *ctx, RaidDevUsage *u)
{
    memset(u, 0, sizeof *u);
    u->bufs = ctx->dev->pools.live_bufs;
    u->host = ctx->dev->pools.live_host;
    u->holds = raidKcacheHolds(ctx->dev);
    u->events = __atomic_load_n(&live_events, __ATOMIC_RELAXED);
    OPS(ctx)->get_usage(ctx, u);
}

raid_status raidEventWait(raid_ctx *ctx, const RaidEvent *ev) { return OPS(ctx)->event_wait(ctx, ev); }

raid_status raidEventFinish(raid_ctx *ctx, RaidEvent *ev, double *acc)
{
    const raid_status st = raidEventWait(ctx, ev);
    if (acc)
        *acc += raidEventSeconds(ev);
    raidEventRelease(ev);
    return st;
}

double raidEventSeconds(const RaidEvent *ev) { return ev->ops ? ev->ops->event_seconds(ev) : 0.0; }

void raidEventMade(RaidEvent *ev, const RaidDevOps *ops)
{
    if (ev && ev->h) {
        ev->ops = ops;
        __atomic_fetch_add(&live_events, 1, __ATOMIC_RELAXED);
    }
}

void raidEventRelease(RaidEvent *ev)
{
    if (ev->ops && ev->h) {
        ev->ops->event_release(ev);
        __atomic_fetch_sub(&live_events, 1, __ATOMIC_RELAXED);
    }
    ev->h = NULL;
    ev->ops = NULL;
}

/* ---- the caller's memory: host or device (docs/device.md "The caller's device memory") ---- */

raid_status raidMemKindOf(raid_ctx *ctx, const void *p, size_t bytes, size_t align, const char *what,
                          RaidMemKind *kind)
{
    *kind = RAID_MEM_HOST;
    RaidCudaPtr m;
    if (!p || bytes == 0 || !raidCudaPointer(p, &m))
        return RAID_OK;
    int ord = -1;
    const void *cuctx = NULL;
    if (!raidCudaCtxDevice(ctx, &ord, &cuctx)) {
        if (m.managed)
            return RAID_OK; /* managed memory: the host may read it */
        return raidFail(ctx, RAID_EINVAL, "%s is CUDA device memory (cuda:%d), which a%s context cannot read: use a "
                                          "context of cuda:%d (device \"cuda:%d\"), or copy the array to the host",
                        what, m.ordinal, !ctx || !ctx->dev ? " cpu" : "n OpenCL", m.ordinal, m.ordinal);
    }
    if (m.ordinal != ord)
        return raidFail(ctx, RAID_EINVAL, "%s is memory of cuda:%d, and this context runs on cuda:%d: use a context "
                                          "of cuda:%d, or copy the array to cuda:%d", what, m.ordinal, ord, m.ordinal,
                        ord);
    if (m.cuctx && m.cuctx != cuctx)
        return raidFail(ctx, RAID_EINVAL, "%s is device memory of another CUDA context than this context's (cuda:%d's "
                                          "primary context, where CuPy, PyTorch and the CUDA runtime allocate): "
                                          "allocate it there, or copy it", what, ord);
    if (m.size && ((uintptr_t)p - m.start > m.size || bytes > m.size - ((uintptr_t)p - m.start)))
        return raidFail(ctx, RAID_EINVAL, "%s: its %zu bytes run past the end of its device allocation (%zu bytes "
                                          "from its address)", what, bytes, m.size - ((uintptr_t)p - m.start));
    if (align > 1 && (uintptr_t)p % align)
        return raidFail(ctx, RAID_EINVAL, "%s: device memory at %p is not aligned to its %zu-byte elements", what, p,
                        align);
    *kind = RAID_MEM_DEVICE;
    return RAID_OK;
}

raid_status raidBufWrap(raid_ctx *ctx, const void *p, RaidDtype t, size_t n, RaidBuf *out)
{
    const raid_status s = OPS(ctx)->buf_wrap(ctx, p, t, n, out);
    if (s == RAID_OK)
        ctx->timing.bytes_wrapped += (uint64_t)n * raidDtypeSize(t);
    return s;
}

raid_status raidBufInput(raid_ctx *ctx, const void *src, RaidDtype t, size_t n, const char *what, RaidBuf *out,
                         RaidMemKind *kind)
{
    *out = (RaidBuf){NULL, 0, t};
    RaidMemKind k;
    raid_status s = raidMemKindOf(ctx, src, n * raidDtypeSize(t), raidDtypeSize(t), what, &k);
    if (kind)
        *kind = k;
    if (s != RAID_OK)
        return s;
    if (k == RAID_MEM_DEVICE)
        return raidBufWrap(ctx, src, t, n, out);
    if ((s = raidBufAcquire(ctx, t, n, out)) != RAID_OK)
        return s;
    if (n && (s = raidBufUploadStaged(ctx, out, 0, n, src)) != RAID_OK)
        raidBufRelease(ctx, out);
    return s;
}

raid_status raidBufOutput(raid_ctx *ctx, void *dst, RaidDtype t, size_t n, const char *what, RaidBuf *out)
{
    *out = (RaidBuf){NULL, 0, t};
    RaidMemKind k;
    const raid_status s = raidMemKindOf(ctx, dst, n * raidDtypeSize(t), raidDtypeSize(t), what, &k);
    if (s != RAID_OK)
        return s;
    return k == RAID_MEM_DEVICE ? raidBufWrap(ctx, dst, t, n, out) : raidBufAcquire(ctx, t, n, out);
}

raid_status raidBufDeliver(raid_ctx *ctx, const RaidBuf *b, size_t first, size_t n, void *dst, const char *what)
{
    const size_t es = raidDtypeSize(b->type);
    RaidMemKind k;
    raid_status s = raidMemKindOf(ctx, dst, n * es, es, what, &k);
    if (s != RAID_OK || n == 0)
        return s;
    if (k == RAID_MEM_HOST)
        return raidBufDownload(ctx, b, first, n, dst, 1, NULL);
    if (!(b->h == dst && first == 0)) { /* not written in place: a pool buffer never has the caller's address */
        RaidBuf d;
        if ((s = raidBufWrap(ctx, dst, b->type, n, &d)) != RAID_OK)
            return s;
        s = raidBufCopyAt(ctx, &d, 0, b, first, n, NULL);
        raidBufRelease(ctx, &d);
        if (s != RAID_OK)
            return s;
    }
    return raidDevFinish(ctx);
}

/* Host memory src or dst of a caller's transfer (write 1: into the caller's dst). */
static raid_status caller_copy(raid_ctx *ctx, void *dst, const void *src, size_t bytes, const char *what, int write)
{
    RaidMemKind k;
    raid_status s = raidMemKindOf(ctx, write ? dst : src, bytes, 1, what, &k);
    if (s != RAID_OK || bytes == 0)
        return s;
    if (k == RAID_MEM_HOST) {
        memcpy(dst, src, bytes);
        return RAID_OK;
    }
    RaidBuf b; /* wrapped without counting in bytes_wrapped: these bytes are copied */
    if ((s = OPS(ctx)->buf_wrap(ctx, write ? dst : src, RAID_DT_BYTE, bytes, &b)) != RAID_OK)
        return s;
    s = write ? raidBufUpload(ctx, &b, 0, bytes, src, 1, NULL) : raidBufDownload(ctx, &b, 0, bytes, dst, 1, NULL);
    raidBufRelease(ctx, &b);
    return s;
}

raid_status raidCopyToCaller(raid_ctx *ctx, void *dst, const void *src, size_t bytes, const char *what)
{
    return caller_copy(ctx, dst, src, bytes, what, 1);
}

raid_status raidCopyFromCaller(raid_ctx *ctx, void *dst, const void *src, size_t bytes, const char *what)
{
    return caller_copy(ctx, dst, src, bytes, what, 0);
}

raid_memory raid_memory_of(const void *p, int *device)
{
    RaidCudaPtr m;
    const int dev = raidCudaPointer(p, &m);
    if (device)
        *device = dev ? m.ordinal : -1;
    return dev ? RAID_MEMORY_CUDA : RAID_MEMORY_HOST;
}

/* ---- the device list (raid/core.h) ---- */

raid_status raid_devices(raid_device_info *out, size_t cap, size_t *count)
{
    if (!count)
        return raidFail(NULL, RAID_EINVAL, "raid_devices: count is NULL");
    *count = 0;
    raidOpenclDevices(out, cap, count); /* first: their indices are those of before the CUDA backend */
    raidCudaDevices(out, cap, count);
    return RAID_OK;
}

const char *raid_backend_absent(raid_backend b)
{
    switch (b) {
    case RAID_BACKEND_CPU: return NULL;
    case RAID_BACKEND_OPENCL: return raidOpenclAbsent();
    case RAID_BACKEND_CUDA: return raidCudaAbsent();
    }
    return "unknown backend";
}
