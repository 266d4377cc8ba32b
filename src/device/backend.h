/*
 * The backend table of the device layer: what a backend's host file (device_opencl.c, device_cuda.c)
 * gives device.c, which implements device.h by calling through it. Each context's device state
 * (ctx->dev) begins with a RaidDev whose `ops` is its backend's table, so every device.h call costs one
 * indirect call and no test of the backend; events carry their backend's table too (raidEventRelease and
 * raidEventSeconds take no context). Nothing above src/device/ includes this file.
 */
#ifndef RAID_DEVICE_BACKEND_H
#define RAID_DEVICE_BACKEND_H

#include "device/device.h"

/* The functions of device.h that depend on the backend, with the same contracts (device.h); `close` frees
 * the whole state, ctx->dev included (after raidKcacheClear and raidPoolClear). Every member is set.
 * The hooks after them are what the shared mechanisms (kcache_mem.c, pool.c) ask of a backend. */
typedef struct RaidDevOps {
    const char *name; /* "opencl", "cuda" */
    void (*close)(RaidDev *dev);
    raid_status (*flush)(raid_ctx *ctx);
    raid_status (*finish)(raid_ctx *ctx);
    void (*drain)(raid_ctx *ctx);
    void (*buf_release)(raid_ctx *ctx, RaidBuf *b); /* raidPoolBufRelease, or the backend's before it */
    /* raidBufUpload (write = 1, from host) and raidBufDownload (write = 0, into host) */
    raid_status (*buf_transfer)(raid_ctx *ctx, const RaidBuf *b, size_t first, size_t n, void *host, int blocking,
                                RaidEvent *ev, int write);
    raid_status (*buf_fill)(raid_ctx *ctx, const RaidBuf *b, const void *value, RaidEvent *ev);
    raid_status (*buf_copy)(raid_ctx *ctx, const RaidBuf *dst, size_t dfirst, const RaidBuf *src, size_t sfirst,
                            size_t n, RaidEvent *ev); /* raidBufCopyAt */
    raid_status (*buf_wrap)(raid_ctx *ctx, const void *p, RaidDtype t, size_t n, RaidBuf *out); /* raidBufWrap
                            after the checks of device.c: the caller's address as the buffer's handle */
    /* Build the kernel `name` of program `src` (NULL: an embedded file not found) labelled `label` with
     * options, for a key that the cache lacks (raidKcacheGet), and add it (raidKcacheAdd, which takes key;
     * on failure the backend frees key). injected: the fault switch fired at build_what; fail as the build
     * fails. Errors: RAID_EINVAL (no source), RAID_EBUILD, RAID_ENOMEM, the backend's. */
    raid_status (*kernel_build)(raid_ctx *ctx, const char *label, const char *src, uint64_t src_hash,
                                const char *name, const char *options, char *key, int injected, RaidKernel **out);
    const char *build_what; /* the fault switch's point of a build ("clBuildProgram") */
    raid_status (*arg_buf)(raid_ctx *ctx, RaidKernel *k, unsigned i, const RaidBuf *b);
    /* raidArgFloat, raidArgInt, raidArgUint, raidArgLong: the value's size bytes at v */
    raid_status (*arg_value)(raid_ctx *ctx, RaidKernel *k, unsigned i, const void *v, size_t size);
    raid_status (*launch)(raid_ctx *ctx, RaidKernel *k, unsigned dims, const size_t *global, const size_t *local,
                          RaidEvent *ev);
    size_t (*kernel_build_log)(raid_ctx *ctx, const RaidKernel *k, char *buf, size_t len);
    /* raidDevGetUsage's backend part: u->wrapped; device.c fills the rest (the shared counts). */
    void (*get_usage)(const raid_ctx *ctx, RaidDevUsage *u);
    raid_status (*event_wait)(raid_ctx *ctx, const RaidEvent *ev);
    double (*event_seconds)(const RaidEvent *ev);
    void (*event_release)(RaidEvent *ev); /* free the handle ev->h (not NULL; raidEventRelease counts it) */

    /* ---- hooks of the shared mechanisms ---- */
    /* Release what the backend made for cached kernel k (its program or module, its own allocations);
     * the cache frees k's key and k itself. Any thread that may use dev. */
    void (*kernel_release)(RaidDev *dev, RaidKernel *k);
    /* The name of the device allocation, the fault switch's point of raidPoolBufAcquire ("clCreateBuffer"). */
    const char *alloc_what;
    /* Allocate sz bytes of device memory into *mem (RAID_OK), or fail as the allocation does (its status and
     * message). injected: the fault switch fired; allocate nothing and fail as an out-of-memory would. */
    raid_status (*mem_alloc)(raid_ctx *ctx, size_t sz, int injected, void **mem);
    /* Free device memory that mem_alloc gave (commands queued on it finish first). */
    void (*mem_free)(RaidDev *dev, void *mem);
    /* Page-locked host memory of sz bytes: 0 with *host (the address) and *mem (the backend's handle of it,
     * may equal *host), -1 when none (the pool then falls back to malloc). Never sets an error. */
    int (*host_alloc)(raid_ctx *ctx, size_t sz, void **mem, void **host);
    /* Free what host_alloc gave. */
    void (*host_free)(RaidDev *dev, void *mem, void *host);
} RaidDevOps;

/* ---- the in-memory kernel cache (kcache_mem.c), shared by the backends ---- */

/* The head of every backend's struct RaidKernel (its first member, so that a RaidKernel pointer is a
 * RaidKcEntry pointer): the cache is a list in order of use, most recent first; an entry with no holds may
 * be evicted from the tail. */
typedef struct RaidKcEntry {
    RaidKernel *prev, *next;
    char *key;         /* "file|name|options" */
    uint64_t src_hash; /* 0 for an embedded file, else raidKcacheSourceHash of the caller's source */
    int holds;
} RaidKcEntry;

typedef struct RaidKcache {
    RaidKernel *head, *tail;
    size_t n, cap; /* entries; the soft capacity (device.h, raidKernelCacheSetCapacity) */
    RaidKernelCacheStats stats;
} RaidKcache;

/* ---- the device-buffer pool and the page-locked host pool (pool.c), shared by the backends ---- */

#define RAID_POOL_CLASSES 48
#define RAID_POOL_PER_CLASS 4

typedef struct RaidPoolSlot {
    void *mem;  /* the backend's handle (cl_mem; a CUdeviceptr; the host pool's: host_alloc's *mem) */
    void *host; /* host pool: the address */
    int in_use;
    size_t size;
} RaidPoolSlot;

typedef struct RaidPools {
    RaidPoolSlot buf[RAID_POOL_CLASSES][RAID_POOL_PER_CLASS];
    RaidPoolSlot host[RAID_POOL_CLASSES][RAID_POOL_PER_CLASS]; /* page-locked host memory */
    size_t live_bufs, live_host; /* acquired and not yet released (raidDevGetUsage) */
} RaidPools;

/* The head of every backend's device state: its table, the device's limits (raidDevMaxWg, raidDevMaxAlloc,
 * raidDevLocalMem: set by the backend's open), the kernel cache, the pools (zeroed by calloc, then
 * raidKcacheInit). */
struct RaidDev {
    const RaidDevOps *ops;
    size_t max_wg;
    uint64_t max_alloc, local_mem;
    RaidKcache kc;
    RaidPools pools;
};

/* 1 when the tests' fault switch makes this point fail (include/raid/tuning.h, raid_tuning_fault): the
 * caller then fails as the backend call `what` would have. Production contexts have no knobs (ctx->tuning
 * NULL): one pointer test. */
static inline int raidDevFault(raid_ctx *ctx, unsigned kind, const char *what)
{
    return ctx->tuning && ctx->tuning->fault.kinds && raidFaultAt(&ctx->tuning->fault, kind, what);
}

/* Count the event that a backend's successful command made in *ev (ev may be NULL; no handle: none made),
 * and give it the backend's table (device.c; raidEventRelease uncounts it). */
void raidEventMade(RaidEvent *ev, const RaidDevOps *ops);

/* An empty cache of the default capacity. */
void raidKcacheInit(RaidDev *dev);
/* The embedded kernel file `file` (kernels/, raidKernelFiles), or NULL. */
const char *raidKernelSource(const char *file);
/* The headers prepended to file's program (kernels/prelude.txt: the prelude, then file's own), at most max
 * names into names; their count, or -1 when there are more. */
int raidKernelHeaders(const char *file, const char **names, int max);
/* The hash that tells a caller's source apart (never 0, which marks an embedded file). */
uint64_t raidKcacheSourceHash(const char *src);
/* raidKernelGet, raidKernelGetSource: the kernel `name` of src (src_hash 0 for an embedded file, else
 * raidKcacheSourceHash) with options, from the cache (a hit) or built by the backend (kernel_build). The
 * fault switch's point is build_what, before the cache is searched: a fault takes the path of a kernel not
 * yet cached. Errors: RAID_ENOMEM, kernel_build's. */
raid_status raidKcacheGet(raid_ctx *ctx, const char *label, const char *src, uint64_t src_hash, const char *name,
                          const char *options, RaidKernel **out);
/* The cached kernel of key and src_hash, moved to the front, held once more and counted as a hit; NULL when
 * absent. */
RaidKernel *raidKcacheFind(RaidDev *dev, const char *key, uint64_t src_hash);
/* Add k (allocated by the backend with calloc, RaidKcEntry first) under key (malloc'd, now the cache's),
 * held once, counted as a build; then evict past the capacity. */
void raidKcacheAdd(RaidDev *dev, RaidKernel *k, char *key, uint64_t src_hash);
/* Drop a hold on k (NULL: nothing), then evict past the capacity (raidKernelPut). */
void raidKcachePut(RaidDev *dev, RaidKernel *k);
/* raidKernelCacheGetStats, raidKernelCacheSetCapacity (0: the default). */
void raidKcacheStats(const RaidDev *dev, RaidKernelCacheStats *st);
void raidKcacheSetCapacity(RaidDev *dev, size_t cap);
/* The holds on all cached kernels (raidDevGetUsage). */
size_t raidKcacheHolds(const RaidDev *dev);
/* Free every cached kernel (through kernel_release), held or not: the device is closing. */
void raidKcacheClear(RaidDev *dev);

/* raidBufAcquire: a buffer of n elements of t from the pool of its size class, else allocated (mem_alloc;
 * pooled when the class has room, else freed on release). Errors: RAID_EDEVMEM past the allocation limit,
 * mem_alloc's. The fault switch's point is alloc_what, before the pool is searched. */
raid_status raidPoolBufAcquire(raid_ctx *ctx, RaidDtype t, size_t n, RaidBuf *out);
/* raidBufRelease of a buffer of the pool or mem_alloc (b zeroed; a NULL handle: nothing). */
void raidPoolBufRelease(raid_ctx *ctx, RaidBuf *b);
/* raidHostAcquire: staging of bytes from the host pool, else page-locked (host_alloc, pooled when the class
 * has room), else malloc. Errors: RAID_ENOMEM. The fault switch's point is "staging". */
raid_status raidPoolHostAcquire(raid_ctx *ctx, size_t bytes, void **host);
/* raidHostRelease (NULL: nothing). */
void raidPoolHostRelease(raid_ctx *ctx, void *host);
/* Free every pooled buffer and host block (mem_free, host_free): the device is closing. */
void raidPoolClear(RaidDev *dev);

/* The backends' entry points (device.c's raidDevOpen and raidDevOpenCuda, raid_devices call them). */

/* device_opencl.c: open OpenCL device (platform, device) into ctx->dev (device.h, raidDevOpen). */
raid_status raidOpenclOpen(raid_ctx *ctx, int platform, int device, int any_type);
/* Append the process's OpenCL devices to out[*count ..] (up to cap entries written), counting every one. */
void raidOpenclDevices(raid_device_info *out, size_t cap, size_t *count);

/* NULL when an OpenCL device exists, else why not. */
const char *raidOpenclAbsent(void);

/* device_cuda.c: open CUDA device `ordinal` (device.h, raidDevOpenCuda). */
raid_status raidCudaOpen(raid_ctx *ctx, int ordinal);
/* Append the process's CUDA devices as raidOpenclDevices does (none when CUDA is absent). */
void raidCudaDevices(raid_device_info *out, size_t cap, size_t *count);
/* NULL when the CUDA backend can run (libcuda.so.1 and NVRTC loaded, cuInit succeeded, a device found);
 * else a static sentence saying what is missing ("libcuda.so.1 not found: no NVIDIA driver", ...). */
const char *raidCudaAbsent(void);

/* What the process's CUDA driver knows of address p, asked without loading the driver (libcuda.so.1, or
 * RAID_CUDA_LIB, only if already loaded in the process, by RAID or by CuPy, PyTorch, ...) and without
 * dereferencing p: 1 when p is device or managed memory, with its device ordinal, the CUDA context it was
 * allocated in (NULL for none, e.g. a stream-ordered pool's), whether it is managed, and its allocation's
 * range (start, size; size 0 when the driver does not say); 0 for anything else (host memory, page-locked
 * host memory, no driver loaded, CUDA not initialised). Any thread; never fails. */
typedef struct RaidCudaPtr {
    int ordinal;
    const void *cuctx;
    int managed;
    uintptr_t start;
    size_t size;
} RaidCudaPtr;
int raidCudaPointer(const void *p, RaidCudaPtr *info);
/* ctx's CUDA device ordinal and primary context when ctx is a CUDA context (1), else 0. */
int raidCudaCtxDevice(const raid_ctx *ctx, int *ordinal, const void **cuctx);

/* NULL when NVRTC is loaded (it needs no driver), else why not. */
const char *raidCudaNvrtcAbsent(void);
/* Compile the program that is the concatenation of parts[0 .. nparts) (label names it in messages) with
 * NVRTC: options (OpenCL-style words: -D, -U, -I pass, -cl-... are dropped) after --gpu-architecture=arch
 * (sm_XY: a cubin, cubin = 1; compute_XY: PTX, cubin = 0), --fmad=false, -DRAID_CUDA=1. *bin (malloc'd,
 * *len bytes; PTX is NUL-terminated) and, when log is not NULL, NVRTC's log (malloc'd). Needs no driver.
 * Errors: RAID_ENODEV (no NVRTC), RAID_EBUILD (with the log), RAID_ENOMEM, RAID_EDEVICE. ctx may be NULL. */
raid_status raidCudaCompile(raid_ctx *ctx, const char *label, const char *const *parts, size_t nparts,
                            const char *options, const char *arch, int cubin, void **bin, size_t *len, char **log);

/* ---- the compiled-kernel cache on disk (kcache.c) ---- */

/* The 64-bit FNV-1a hash of n bytes, continuing from h (start: RAID_FNV_START). */
#define RAID_FNV_START 1469598103934665603ULL
uint64_t raidFnv(uint64_t h, const void *p, size_t n);
/* The cached binary of key (the backend, the device and driver, the options and the full source text:
 * the caller's string) into a malloc'd *bin of *len bytes: 1 when found and intact, 0 when absent,
 * unreadable or corrupt (an entry whose stored key or checksum differs is never trusted). Never fails. */
int raidKcacheLoad(const char *key, void **bin, size_t *len);
/* Store bin under key (atomically: a temporary file renamed over the entry). 0 on success, -1 when the
 * directory cannot be made or written (the caller goes on without the cache). */
int raidKcacheStore(const char *key, const void *bin, size_t len);
/* The directory of the cache into buf: $RAID_CACHE_DIR, else $XDG_CACHE_HOME/raid, else $HOME/.cache/raid;
 * "" when none is set or RAID_CACHE_DIR is "off". */
void raidKcacheDir(char *buf, size_t len);

#endif
