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
 * the whole state, ctx->dev included. Every member is set. */
typedef struct RaidDevOps {
    const char *name; /* "opencl", "cuda" */
    void (*close)(RaidDev *dev);
    size_t (*max_wg)(const raid_ctx *ctx);
    uint64_t (*max_alloc)(const raid_ctx *ctx);
    uint64_t (*local_mem)(const raid_ctx *ctx);
    raid_status (*flush)(raid_ctx *ctx);
    raid_status (*finish)(raid_ctx *ctx);
    void (*drain)(raid_ctx *ctx);
    raid_status (*buf_acquire)(raid_ctx *ctx, RaidDtype t, size_t n, RaidBuf *out);
    void (*buf_release)(raid_ctx *ctx, RaidBuf *b);
    raid_status (*buf_upload)(raid_ctx *ctx, const RaidBuf *b, size_t first, size_t n, const void *src,
                              int blocking, RaidEvent *ev);
    raid_status (*buf_download)(raid_ctx *ctx, const RaidBuf *b, size_t first, size_t n, void *dst,
                                int blocking, RaidEvent *ev);
    raid_status (*buf_fill)(raid_ctx *ctx, const RaidBuf *b, const void *value, RaidEvent *ev);
    raid_status (*buf_copy)(raid_ctx *ctx, const RaidBuf *dst, size_t dfirst, const RaidBuf *src, size_t sfirst,
                            size_t n, RaidEvent *ev); /* raidBufCopyAt */
    raid_status (*buf_wrap)(raid_ctx *ctx, const void *p, RaidDtype t, size_t n, RaidBuf *out); /* raidBufWrap
                            after the checks of device.c: the caller's address as the buffer's handle */
    raid_status (*host_acquire)(raid_ctx *ctx, size_t bytes, void **host);
    void (*host_release)(raid_ctx *ctx, void *host);
    raid_status (*kernel_get)(raid_ctx *ctx, const char *file, const char *name, const char *options,
                              RaidKernel **out);
    raid_status (*kernel_get_source)(raid_ctx *ctx, const char *label, const char *source, const char *name,
                                     const char *options, RaidKernel **out);
    void (*kernel_put)(raid_ctx *ctx, RaidKernel *k);
    raid_status (*arg_buf)(raid_ctx *ctx, RaidKernel *k, unsigned i, const RaidBuf *b);
    raid_status (*arg_float)(raid_ctx *ctx, RaidKernel *k, unsigned i, float v);
    raid_status (*arg_int)(raid_ctx *ctx, RaidKernel *k, unsigned i, int32_t v);
    raid_status (*arg_uint)(raid_ctx *ctx, RaidKernel *k, unsigned i, uint32_t v);
    raid_status (*arg_long)(raid_ctx *ctx, RaidKernel *k, unsigned i, int64_t v);
    raid_status (*launch)(raid_ctx *ctx, RaidKernel *k, unsigned dims, const size_t *global, const size_t *local,
                          RaidEvent *ev);
    size_t (*kernel_build_log)(raid_ctx *ctx, const RaidKernel *k, char *buf, size_t len);
    void (*cache_get_stats)(const raid_ctx *ctx, RaidKernelCacheStats *st);
    void (*cache_set_capacity)(raid_ctx *ctx, size_t cap);
    void (*get_usage)(const raid_ctx *ctx, RaidDevUsage *u);
    raid_status (*event_wait)(raid_ctx *ctx, const RaidEvent *ev);
    double (*event_seconds)(const RaidEvent *ev);
    void (*event_release)(RaidEvent *ev);
} RaidDevOps;

/* The head of every backend's device state. */
struct RaidDev {
    const RaidDevOps *ops;
};

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
