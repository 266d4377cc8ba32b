/*
 * The device layer: the one host interface between the library's operations (src/realized,
 * src/regress, ...) and a compute backend. Nothing here names OpenCL: a backend is one host file that
 * implements these functions behind a table (src/device/backend.h) plus the kernels' compatibility header
 * (kernels/raid_compat.h). docs/device.md is the guide.
 *
 * Backends: OpenCL (src/device/device_opencl.c) and CUDA (src/device/device_cuda.c, the driver API and
 * NVRTC loaded at run time); each context's device state names its backend's table (src/device/backend.h),
 * through which device.c dispatches these functions.
 *
 * What it has:
 *   - device-resident buffers, typed (float, uint, int, 64-bit integers, bytes), pooled by size class,
 *     which stay on the device across launches until released: multi-pass pipelines keep their data there;
 *   - page-locked host staging (pooled) for fast uploads and read-backs;
 *   - a program and kernel cache keyed by (file, kernel name, build options) that evicts the least
 *     recently used kernel nobody holds when it passes its soft capacity: a handle from raidKernelGet
 *     is retained until raidKernelPut, so a kernel in use is never evicted;
 *   - launches of any kernel (1 to 3 dimensions, typed arguments), events and their profiled times;
 *   - one error path: every backend error becomes a raid_status through raidFail with the call named.
 * A context's device state is used by one thread at a time (the context's rule).
 */
#ifndef RAID_DEVICE_H
#define RAID_DEVICE_H

#include "core/internal.h"

#include <stdint.h>

/* Element types of device buffers (the kernel side: float, uint, int, long, ulong, uchar). */
typedef enum RaidDtype {
    RAID_DT_BYTE = 0,
    RAID_DT_FLOAT = 1,
    RAID_DT_UINT = 2,
    RAID_DT_INT = 3,
    RAID_DT_LONG = 4,
    RAID_DT_ULONG = 5
} RaidDtype;

static inline size_t raidDtypeSize(RaidDtype t)
{
    return t == RAID_DT_BYTE ? 1 : (t == RAID_DT_LONG || t == RAID_DT_ULONG) ? 8 : 4;
}

/* A device buffer of n elements of type `type` (a handle: copy freely, release once). h is the
 * backend's object; a zeroed RaidBuf is "no buffer". */
typedef struct RaidBuf {
    void *h;
    size_t n;
    RaidDtype type;
} RaidBuf;

/* An event of an enqueued command (zeroed: none). ops: the backend that made it (set with h). */
typedef struct RaidEvent {
    void *h;
    const struct RaidDevOps *ops;
} RaidEvent;

/* A kernel from the cache (opaque; retained by raidKernelGet, released by raidKernelPut). */
typedef struct RaidKernel RaidKernel;

/* ---- the device ---- */

/* Open an OpenCL device into ctx->dev: (platform, device); platform < 0 selects the first GPU (RAID_ENODEV if
 * none), or with any_type = 1 the first device of any type. On failure ctx->dev may hold a partial state
 * (raidDevClose frees it). */
raid_status raidDevOpen(raid_ctx *ctx, int platform, int device, int any_type);
/* Open CUDA device `ordinal` (0-based, as cuDeviceGet numbers them) into ctx->dev. RAID_ENODEV when CUDA
 * is absent (no libcuda.so.1, no NVRTC, no device: the message says which) or there is no such device;
 * RAID_EDEVICE, RAID_EDEVMEM, RAID_ENOMEM. As raidDevOpen on failure. */
raid_status raidDevOpenCuda(raid_ctx *ctx, int ordinal);
/* NULL when the CUDA backend can run here, else a static sentence saying what is missing. */
const char *raidDevCudaAbsent(void);
/* Wait for the queue and free everything (buffers, staging, kernels). NULL is a no-op. */
void raidDevClose(RaidDev *dev);

size_t raidDevMaxWg(const raid_ctx *ctx);       /* work-items per work-group at most */
uint64_t raidDevMaxAlloc(const raid_ctx *ctx);  /* bytes of one buffer at most */
uint64_t raidDevLocalMem(const raid_ctx *ctx);  /* bytes of local memory per work-group */

/* Submit what is queued (flush) / wait until it has run (finish). */
raid_status raidDevFlush(raid_ctx *ctx);
raid_status raidDevFinish(raid_ctx *ctx);
/* Wait until what is queued has run, reporting nothing: the wait of an error path or of a release, before
 * host memory that queued commands use is freed or reused. The call's first error stays its message (a
 * failing clFinish there replaced it); and no result is lost, since every result a caller keeps came
 * through a blocking read or a wait that reported its own error. Not a point of the fault switch. */
void raidDevDrain(raid_ctx *ctx);

/* The double-float pair of a float64 value, as every device path stages it: hi = (float)v,
 * lo = (float)(v - hi); hi + lo equals v to about 2^-48 relative (in the float range). */
static inline void raidDfSplit(double v, float *hi, float *lo)
{
    const float h = (float)v;
    *hi = h;
    *lo = (float)(v - (double)h);
}

/* ---- buffers ---- */

/* A device buffer of n elements of type t from the pool (size class: the next power of two of the
 * bytes). Its contents are undefined. Errors: RAID_EDEVMEM (beyond the device's allocation limit or out
 * of memory), RAID_EDEVICE. */
raid_status raidBufAcquire(raid_ctx *ctx, RaidDtype t, size_t n, RaidBuf *out);
/* Back to the pool (or freed); b is zeroed. A zeroed b is a no-op. */
void raidBufRelease(raid_ctx *ctx, RaidBuf *b);

/* Copy n elements between host memory and elements [first, first + n) of b. blocking = 0 returns at
 * once (the host memory must then stay untouched until the command has run: wait on *ev, or a later
 * blocking command). ev may be NULL. */
raid_status raidBufUpload(raid_ctx *ctx, const RaidBuf *b, size_t first, size_t n, const void *src, int blocking,
                            RaidEvent *ev);
raid_status raidBufDownload(raid_ctx *ctx, const RaidBuf *b, size_t first, size_t n, void *dst, int blocking,
                              RaidEvent *ev);
/* Upload n elements from the caller's (pageable) memory src into elements [first, first + n) of b through
 * page-locked staging (src/device/staged.c: pieces of 32 MiB copied by the host's threads while the
 * previous piece uploads; a plain upload below 1 MiB or with RAID_TUNE_DIRECT_UPLOAD). Blocking: src may
 * change on return. Adds the uploads' times to ctx->timing.upload_s and the copies' to convert_s. */
raid_status raidBufUploadStaged(raid_ctx *ctx, const RaidBuf *b, size_t first, size_t n, const void *src);
/* Copy bytes from src to dst (not overlapping) for an upload from dst, typically page-locked staging that the
 * host does not read again: on x86-64 with stores that bypass the caches (SSE2 streaming stores, after a
 * head up to dst's 16-byte boundary), which saves the read of every destination line that an ordinary
 * store makes before writing it (a third of the host memory traffic of a copy); plain memcpy elsewhere.
 * Single-threaded: the callers split their copies over their threads. Completes with a store fence, so
 * the bytes are in memory before a later upload command reads them. */
void raidCopyStream(void *dst, const void *src, size_t bytes);
/* Set every element of b to *value (one element of b's type). */
raid_status raidBufFill(raid_ctx *ctx, const RaidBuf *b, const void *value, RaidEvent *ev);
/* Copy n elements from src to dst (same element size), on the device. */
raid_status raidBufCopy(raid_ctx *ctx, const RaidBuf *dst, const RaidBuf *src, size_t n, RaidEvent *ev);

/* Copy n elements from elements [sfirst, sfirst + n) of src to [dfirst, dfirst + n) of dst (same element
 * size, not overlapping), on the device. raidBufCopy is the case of both offsets 0. */
raid_status raidBufCopyAt(raid_ctx *ctx, const RaidBuf *dst, size_t dfirst, const RaidBuf *src, size_t sfirst, size_t n,
                          RaidEvent *ev);

/* ---- the caller's arrays: host memory or device memory (docs/device.md "The caller's device memory") ---- */

/* Where a caller's array lives for a context. */
typedef enum RaidMemKind {
    RAID_MEM_HOST = 0,  /* host memory (ordinary, page-locked, or managed memory on a non-CUDA context) */
    RAID_MEM_DEVICE = 1 /* device memory of ctx's own CUDA device, usable on its stream */
} RaidMemKind;

/* Classify the caller's array p of `bytes` bytes (elements of `align` bytes) for ctx, without dereferencing
 * it. On a CUDA context: RAID_MEM_DEVICE when the driver knows p as memory of ctx's device
 * (cuPointerGetAttribute: memory type device or managed, device ordinal ctx's, allocated in the device's
 * primary context, where CuPy, PyTorch and the CUDA runtime allocate, or in no context: stream-ordered
 * pools), else RAID_MEM_HOST. On a cpu or OpenCL context: RAID_MEM_HOST, except that device memory the
 * process's CUDA driver knows (when libcuda is loaded in the process at all: it is not loaded for this)
 * is refused, since the host cannot read it. Managed memory is host memory there (the host may read it).
 * Errors (RAID_EINVAL, the message starting with `what`, e.g. "raid_sort_f64: x"): device memory on a cpu
 * or OpenCL context ("is CUDA device memory (cuda:N); this context runs on ... : use a context of cuda:N");
 * memory of another CUDA device or of another CUDA context than ctx's; an array that runs past the end of
 * its allocation; device memory not aligned to `align`. p NULL or bytes 0: RAID_MEM_HOST. */
raid_status raidMemKindOf(raid_ctx *ctx, const void *p, size_t bytes, size_t align, const char *what,
                          RaidMemKind *kind);

/* A RaidBuf over the caller's device memory p (n elements of t), without a copy: h is p, and the backend
 * remembers it as borrowed, so raidBufRelease forgets it (nothing frees or pools the caller's memory) and
 * raidDevGetUsage counts it apart (wrapped). p must be device memory of ctx (raidMemKindOf said
 * RAID_MEM_DEVICE). CUDA contexts only (RAID_EINVAL elsewhere). Adds n elements' bytes to
 * ctx->timing.bytes_wrapped. Errors: RAID_EINVAL, RAID_ENOMEM. */
raid_status raidBufWrap(raid_ctx *ctx, const void *p, RaidDtype t, size_t n, RaidBuf *out);

/* The input helper of every capability's large arrays: the caller's array src of n elements of t as a
 * device buffer. Device memory of ctx (raidMemKindOf): *out wraps it (raidBufWrap: no copy; the kernels
 * only read it, and it holds exactly n elements, no padding); host memory: a pool buffer of n elements into
 * which src is uploaded (raidBufUploadStaged, blocking). Release *out with raidBufRelease either way.
 * *kind (may be NULL): which it was. Errors: raidMemKindOf's (what names the argument), raidBufAcquire's,
 * the upload's; *out zeroed. */
raid_status raidBufInput(raid_ctx *ctx, const void *src, RaidDtype t, size_t n, const char *what, RaidBuf *out,
                         RaidMemKind *kind);

/* The output helpers. raidBufOutput: the buffer a capability writes n elements of t into for the caller's
 * array dst: dst itself (wrapped, written in place) when it is device memory of ctx, else a pool buffer.
 * raidBufDeliver: elements [first, first + n) of b to dst: nothing when b wraps dst at that place (first
 * 0); a device-to-device copy when dst is device memory of ctx; a blocking read-back into host memory
 * otherwise. Either way the commands of ctx's stream have run when it returns (the stream contract:
 * docs/device.md). Errors: raidMemKindOf's, the copy's or read-back's. */
raid_status raidBufOutput(raid_ctx *ctx, void *dst, RaidDtype t, size_t n, const char *what, RaidBuf *out);
raid_status raidBufDeliver(raid_ctx *ctx, const RaidBuf *b, size_t first, size_t n, void *dst, const char *what);

/* Small copies between the host and the caller's memory, host or device (raidMemKindOf): raidCopyToCaller
 * writes `bytes` of host memory src into dst (memcpy, or a blocking upload into device memory of ctx: a
 * selection's nseg results); raidCopyFromCaller reads `bytes` at src into host memory dst (memcpy, or a
 * blocking read-back: an element of a device input that a host step needs, or an explicit copy where a host
 * step scans part of it). ctx may be a cpu context or NULL (host memory only). Errors: raidMemKindOf's, the
 * transfer's. */
raid_status raidCopyToCaller(raid_ctx *ctx, void *dst, const void *src, size_t bytes, const char *what);
raid_status raidCopyFromCaller(raid_ctx *ctx, void *dst, const void *src, size_t bytes, const char *what);

/* Page-locked host memory of at least `bytes` from a second pool (uploads from it and read-backs into
 * it run at the bus's speed); plain malloc memory where the device cannot provide it. RAID_ENOMEM. */
raid_status raidHostAcquire(raid_ctx *ctx, size_t bytes, void **host);
void raidHostRelease(raid_ctx *ctx, void *host);

/* ---- kernels ---- */

/* The kernel `name` of the embedded file kernels/<file> built with `options` (after the backend's own,
 * e.g. "-cl-std=CL1.2"), retained for the caller. The program is the prelude (raidKernelPrelude), then the file.
 * Errors: RAID_EINVAL (no such embedded file), RAID_EBUILD (the message carries the build log),
 * RAID_EDEVICE (e.g. no such kernel in the file). */
raid_status raidKernelGet(raid_ctx *ctx, const char *file, const char *name, const char *options,
                            RaidKernel **out);
/* The same from a caller's source text (label names it in messages and in the cache key, which also
 * holds the text); the headers are prepended as for a file. */
raid_status raidKernelGetSource(raid_ctx *ctx, const char *label, const char *source, const char *name,
                                   const char *options, RaidKernel **out);
/* Release the caller's hold; the kernel stays cached until evicted. NULL is a no-op. */
void raidKernelPut(raid_ctx *ctx, RaidKernel *k);

/* Typed kernel arguments (index i of kernel k). Kernels are shared through the cache: set every argument
 * before each launch. */
raid_status raidArgBuf(raid_ctx *ctx, RaidKernel *k, unsigned i, const RaidBuf *b);
raid_status raidArgFloat(raid_ctx *ctx, RaidKernel *k, unsigned i, float v);
raid_status raidArgInt(raid_ctx *ctx, RaidKernel *k, unsigned i, int32_t v);
raid_status raidArgUint(raid_ctx *ctx, RaidKernel *k, unsigned i, uint32_t v);
raid_status raidArgLong(raid_ctx *ctx, RaidKernel *k, unsigned i, int64_t v);

/* Launch k over `global` work-items in `dims` (1..3) dimensions in work-groups of `local` (NULL: the
 * backend's choice). ev may be NULL. */
raid_status raidLaunch(raid_ctx *ctx, RaidKernel *k, unsigned dims, const size_t *global, const size_t *local,
                        RaidEvent *ev);

/* The build log of k's program into buf (diagnostics such as -cl-nv-verbose); its length. */
size_t raidKernelBuildLog(raid_ctx *ctx, const RaidKernel *k, char *buf, size_t len);

/* The cache's counters: kernels held now, built, evicted since the context was made. */
typedef struct RaidKernelCacheStats {
    uint64_t entries, builds, evictions, hits;
    uint64_t disk_hits; /* builds whose binary came from the disk cache (kcache.c) instead of the compiler */
} RaidKernelCacheStats;
void raidKernelCacheGetStats(const raid_ctx *ctx, RaidKernelCacheStats *st);
/* Soft capacity: kernels kept before unused ones are evicted (least recently used first); 0 restores
 * the default (RAID_KERNEL_CACHE_DEFAULT). Kernels in use are never evicted, so it is not a hard cap. */
#define RAID_KERNEL_CACHE_DEFAULT 64
void raidKernelCacheSetCapacity(raid_ctx *ctx, size_t cap);

/* What ctx holds now: device buffers and staging acquired and not released, holds on cached kernels; and
 * the events of the whole process not yet released. After any call of an operation, failed or not, all
 * are 0 (the fault walk of tests/test_faults.c checks it). */
typedef struct RaidDevUsage {
    size_t bufs, host, holds;
    long events;
    size_t wrapped; /* the caller's device memory wrapped (raidBufWrap) and not yet released */
} RaidDevUsage;
void raidDevGetUsage(const raid_ctx *ctx, RaidDevUsage *u);

/* ---- events ---- */

raid_status raidEventWait(raid_ctx *ctx, const RaidEvent *ev);
/* Wait for *ev, add its profiled seconds to *acc (may be NULL) and release it (ev zeroed): the status of
 * the wait. */
raid_status raidEventFinish(raid_ctx *ctx, RaidEvent *ev, double *acc);
/* Seconds between the command's start and end (profiling; 0 if unavailable). */
double raidEventSeconds(const RaidEvent *ev);
/* Release (ev zeroed); a zeroed ev is a no-op. */
void raidEventRelease(RaidEvent *ev);

#endif
