/*
 * A stand-in for the NVIDIA driver's libcuda.so.1 (the functions src/device/device_cuda.c loads, with the
 * driver API's signatures), over host memory: one device of compute capability 9.0, allocations from
 * malloc, copies and fills with memcpy and loops, events stamped with a counter, modules and launches that
 * do nothing. It runs the CUDA backend's host side (discovery, contexts and streams, pools, transfers,
 * fills, events, staging, the fault points, the release of everything) where no GPU is: test_cuda_fake
 * runs test_cuda with RAID_CUDA_LIB naming this library. It proves nothing about a real driver, whose
 * calls only the GPU machine runs (test_cuda there).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef unsigned long long CUdeviceptr;
#define API __attribute__((visibility("default")))

static double clock_ms;

API CUresult cuInit(unsigned f) { (void)f; return 0; }
API CUresult cuDriverGetVersion(int *v) { *v = 13000; return 0; }
API CUresult cuDeviceGetCount(int *n) { *n = 1; return 0; }
API CUresult cuDeviceGet(int *d, int i) { *d = i; return i == 0 ? 0 : 101; }
API CUresult cuDeviceGetName(char *s, int len, int d) { (void)d; strncpy(s, "Fake CUDA device", (size_t)len); return 0; }
API CUresult cuDeviceGetAttribute(int *v, int a, int d)
{
    (void)d;
    *v = a == 1 ? 1024 : a == 8 ? 49152 : a == 16 ? 4 : a == 75 ? 9 : 0;
    return 0;
}
API CUresult cuDeviceTotalMem_v2(size_t *b, int d) { (void)d; *b = (size_t)1 << 30; return 0; }
static int primary;
API CUresult cuDevicePrimaryCtxRetain(void **c, int d) { (void)d; *c = &primary; primary++; return 0; }
API CUresult cuDevicePrimaryCtxRelease_v2(int d) { (void)d; primary--; return 0; }
API CUresult cuCtxSetCurrent(void *c) { return c == &primary ? 0 : 201; }
/* Allocations as cuPointerGetAttribute reports them: device memory of an ordinal and a context (the
 * primary context of device 0 for cuMemAlloc's; fake_cuda_alloc makes others for the tests), managed or
 * not, and page-locked host memory (cuMemHostAlloc's). Not thread-safe: the tests allocate from one thread. */
enum { MAX_ALLOCS = 4096 };
static struct alloc {
    uintptr_t p;
    size_t n;
    int type, ordinal, managed;
    void *ctx;
} allocs[MAX_ALLOCS];
static int other_ctx;

static void track(void *m, size_t n, int type, int ordinal, int managed, void *ctx)
{
    for (int i = 0; m && i < MAX_ALLOCS; i++)
        if (!allocs[i].p) {
            allocs[i] = (struct alloc){(uintptr_t)m, n, type, ordinal, managed, ctx};
            return;
        }
}

static void untrack(void *m)
{
    for (int i = 0; m && i < MAX_ALLOCS; i++)
        if (allocs[i].p == (uintptr_t)m)
            allocs[i].p = 0;
}

API CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t n)
{
    void *m = malloc(n);
    *p = (CUdeviceptr)(uintptr_t)m;
    track(m, n, 2, 0, 0, &primary);
    return m ? 0 : 2;
}
API CUresult cuMemFree_v2(CUdeviceptr p) { untrack((void *)(uintptr_t)p); free((void *)(uintptr_t)p); return 0; }

/* For the tests (found with dlsym): n bytes of "device memory" of `ordinal`, in device 0's primary context
 * (ctx 0), another context (1) or none (2: a stream-ordered pool's), managed or not; fake_cuda_free frees. */
API void *fake_cuda_alloc(size_t n, int ordinal, int ctx, int managed)
{
    void *m = malloc(n);
    track(m, n, managed ? 4 : 2, ordinal, managed, ctx == 0 ? (void *)&primary : ctx == 1 ? (void *)&other_ctx : NULL);
    return m;
}
API void fake_cuda_free(void *m) { untrack(m); free(m); }

/* The attributes src/device/device_cuda.c asks (cuda.h's numbers): CONTEXT 1, MEMORY_TYPE 2, IS_MANAGED 8,
 * DEVICE_ORDINAL 9, RANGE_START_ADDR 11, RANGE_SIZE 12; CUDA_ERROR_INVALID_VALUE (1) for an address no
 * allocation holds, as the driver answers for ordinary host memory. */
API CUresult cuPointerGetAttribute(void *data, int attr, CUdeviceptr ptr)
{
    for (int i = 0; i < MAX_ALLOCS; i++) {
        const struct alloc *a = &allocs[i];
        if (!a->p || ptr < a->p || ptr >= a->p + (a->n ? a->n : 1))
            continue;
        switch (attr) {
        case 1: *(void **)data = a->ctx; return 0;
        case 2: *(unsigned *)data = (unsigned)a->type; return 0;
        case 8: *(unsigned *)data = (unsigned)a->managed; return 0;
        case 9: *(int *)data = a->ordinal; return 0;
        case 11: *(CUdeviceptr *)data = a->p; return 0;
        case 12: *(size_t *)data = a->n; return 0;
        default: return 1;
        }
    }
    return 1;
}
API CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr d, const void *s, size_t n, void *st) { (void)st; memcpy((void *)(uintptr_t)d, s, n); return 0; }
API CUresult cuMemcpyDtoHAsync_v2(void *d, CUdeviceptr s, size_t n, void *st) { (void)st; memcpy(d, (void *)(uintptr_t)s, n); return 0; }
API CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr d, CUdeviceptr s, size_t n, void *st) { (void)st; memmove((void *)(uintptr_t)d, (void *)(uintptr_t)s, n); return 0; }
API CUresult cuMemsetD8Async(CUdeviceptr d, unsigned char v, size_t n, void *st) { (void)st; memset((void *)(uintptr_t)d, v, n); return 0; }
API CUresult cuMemsetD32Async(CUdeviceptr d, unsigned v, size_t n, void *st)
{
    (void)st;
    for (size_t i = 0; i < n; i++)
        memcpy((char *)(uintptr_t)d + 4 * i, &v, 4);
    return 0;
}
API CUresult cuMemsetD2D32Async(CUdeviceptr d, size_t pitch, unsigned v, size_t w, size_t h, void *st)
{
    (void)st;
    for (size_t r = 0; r < h; r++)
        for (size_t c = 0; c < w; c++)
            memcpy((char *)(uintptr_t)d + r * pitch + 4 * c, &v, 4);
    return 0;
}
API CUresult cuMemHostAlloc(void **p, size_t n, unsigned f)
{
    (void)f;
    *p = malloc(n);
    track(*p, n, 1, 0, 0, &primary);
    return *p ? 0 : 2;
}
API CUresult cuMemFreeHost(void *p) { untrack(p); free(p); return 0; }
API CUresult cuStreamCreate(void **s, unsigned f) { (void)f; *s = malloc(1); return 0; }
API CUresult cuStreamDestroy_v2(void *s) { free(s); return 0; }
API CUresult cuStreamSynchronize(void *s) { (void)s; return 0; }
API CUresult cuEventCreate(void **e, unsigned f) { (void)f; *e = calloc(1, sizeof(double)); return 0; }
API CUresult cuEventRecord(void *e, void *s) { (void)s; clock_ms += 0.25; *(double *)e = clock_ms; return 0; }
API CUresult cuEventSynchronize(void *e) { (void)e; return 0; }
API CUresult cuEventElapsedTime(float *ms, void *a, void *b) { *ms = (float)(*(double *)b - *(double *)a); return 0; }
API CUresult cuEventDestroy_v2(void *e) { free(e); return 0; }
API CUresult cuModuleLoadData(void **m, const void *img) { (void)img; *m = malloc(1); return 0; }
API CUresult cuModuleUnload(void *m) { free(m); return 0; }
API CUresult cuModuleGetFunction(void **f, void *m, const char *name) { (void)name; *f = m; return 0; }
API CUresult cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                            unsigned sh, void *st, void **params, void **extra)
{
    (void)f, (void)gx, (void)gy, (void)gz, (void)bx, (void)by, (void)bz, (void)sh, (void)st, (void)params, (void)extra;
    return 0;
}
API CUresult cuGetErrorName(CUresult e, const char **s)
{
    *s = e == 2 ? "CUDA_ERROR_OUT_OF_MEMORY" : e == 701 ? "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES"
         : e == 719 ? "CUDA_ERROR_LAUNCH_FAILED" : "CUDA_ERROR_UNKNOWN";
    return 0;
}
