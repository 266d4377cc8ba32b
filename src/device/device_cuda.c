/*
 * The CUDA backend of the device layer (src/device/device.h, behind the table of src/device/backend.h):
 * the CUDA driver API and NVRTC, both loaded at run time with dlopen, so that neither the build nor a
 * machine without NVIDIA's driver needs CUDA. The declarations below are the few types and functions used,
 * written from the driver API's and NVRTC's documented signatures (no cuda.h at build time). The kernels
 * are the same embedded sources as OpenCL's, compiled by NVRTC with RAID_CUDA defined (the CUDA branch of
 * kernels/raid_compat.h), --fmad=false (no contraction into fused multiply-adds: the double-float error-free
 * transforms need every product and sum rounded on its own) and the device's own architecture.
 * docs/device.md "The CUDA backend" is the guide.
 *
 * One primary context per device (shared by the process, retained per raid context), one stream per raid
 * context (in order, as the OpenCL queue is), events as pairs of CUevents recorded around the command.
 */
#define _POSIX_C_SOURCE 200809L
#include "device/backend.h"
#include "device/kernels_embedded.h"

#include <assert.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the driver API and NVRTC: our own declarations (CUDA driver API reference, NVRTC user guide) ---- */

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
typedef int nvrtcResult;
typedef struct _nvrtcProgram *nvrtcProgram;

enum {
    CUDA_SUCCESS = 0,
    CUDA_ERROR_OUT_OF_MEMORY = 2,
    CUDA_ERROR_NOT_INITIALIZED = 3,
    CUDA_ERROR_NO_DEVICE = 100,
    CUDA_ERROR_INVALID_IMAGE = 200,
    CUDA_ERROR_ECC_UNCORRECTABLE = 214,
    CUDA_ERROR_INVALID_PTX = 218,
    CUDA_ERROR_UNSUPPORTED_PTX_VERSION = 222,
    CUDA_ERROR_NOT_FOUND = 500,
    CUDA_ERROR_NOT_READY = 600,
    CUDA_ERROR_ILLEGAL_ADDRESS = 700,
    CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES = 701,
    CUDA_ERROR_LAUNCH_TIMEOUT = 702,
    CUDA_ERROR_HARDWARE_STACK_ERROR = 714,
    CUDA_ERROR_ILLEGAL_INSTRUCTION = 715,
    CUDA_ERROR_MISALIGNED_ADDRESS = 716,
    CUDA_ERROR_INVALID_ADDRESS_SPACE = 717,
    CUDA_ERROR_INVALID_PC = 718,
    CUDA_ERROR_LAUNCH_FAILED = 719,
    CUDA_ERROR_DEVICE_UNAVAILABLE = 46,
    CUDA_ERROR_CONTEXT_IS_DESTROYED = 709,
};
enum {
    CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1,
    CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK = 8,
    CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
};
#define CU_STREAM_NON_BLOCKING 0x1
#define CU_MEMHOSTALLOC_PORTABLE 0x1
#define NVRTC_SUCCESS 0
#define NVRTC_ERROR_OUT_OF_MEMORY 1
#define NVRTC_ERROR_COMPILATION 6

/* The entry points, resolved once (load_libs). Names with a _v2 are the ABI names cuda.h maps to. */
static struct {
    CUresult (*Init)(unsigned);
    CUresult (*DriverGetVersion)(int *);
    CUresult (*DeviceGetCount)(int *);
    CUresult (*DeviceGet)(CUdevice *, int);
    CUresult (*DeviceGetName)(char *, int, CUdevice);
    CUresult (*DeviceGetAttribute)(int *, int, CUdevice);
    CUresult (*DeviceTotalMem)(size_t *, CUdevice);
    CUresult (*DevicePrimaryCtxRetain)(CUcontext *, CUdevice);
    CUresult (*DevicePrimaryCtxRelease)(CUdevice);
    CUresult (*CtxSetCurrent)(CUcontext);
    CUresult (*MemAlloc)(CUdeviceptr *, size_t);
    CUresult (*MemFree)(CUdeviceptr);
    CUresult (*MemcpyHtoDAsync)(CUdeviceptr, const void *, size_t, CUstream);
    CUresult (*MemcpyDtoHAsync)(void *, CUdeviceptr, size_t, CUstream);
    CUresult (*MemcpyDtoDAsync)(CUdeviceptr, CUdeviceptr, size_t, CUstream);
    CUresult (*MemsetD32Async)(CUdeviceptr, unsigned, size_t, CUstream);
    CUresult (*MemsetD8Async)(CUdeviceptr, unsigned char, size_t, CUstream);
    CUresult (*MemsetD2D32Async)(CUdeviceptr, size_t, unsigned, size_t, size_t, CUstream);
    CUresult (*MemHostAlloc)(void **, size_t, unsigned);
    CUresult (*MemFreeHost)(void *);
    CUresult (*StreamCreate)(CUstream *, unsigned);
    CUresult (*StreamDestroy)(CUstream);
    CUresult (*StreamSynchronize)(CUstream);
    CUresult (*EventCreate)(CUevent *, unsigned);
    CUresult (*EventRecord)(CUevent, CUstream);
    CUresult (*EventSynchronize)(CUevent);
    CUresult (*EventElapsedTime)(float *, CUevent, CUevent);
    CUresult (*EventDestroy)(CUevent);
    CUresult (*ModuleLoadData)(CUmodule *, const void *);
    CUresult (*ModuleUnload)(CUmodule);
    CUresult (*ModuleGetFunction)(CUfunction *, CUmodule, const char *);
    CUresult (*LaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                             CUstream, void **, void **);
    CUresult (*GetErrorName)(CUresult, const char **);
} cu;

static struct {
    nvrtcResult (*Version)(int *, int *);
    nvrtcResult (*GetNumSupportedArchs)(int *);
    nvrtcResult (*GetSupportedArchs)(int *);
    nvrtcResult (*CreateProgram)(nvrtcProgram *, const char *, const char *, int, const char *const *,
                                 const char *const *);
    nvrtcResult (*DestroyProgram)(nvrtcProgram *);
    nvrtcResult (*CompileProgram)(nvrtcProgram, int, const char *const *);
    nvrtcResult (*GetPTXSize)(nvrtcProgram, size_t *);
    nvrtcResult (*GetPTX)(nvrtcProgram, char *);
    nvrtcResult (*GetCUBINSize)(nvrtcProgram, size_t *);
    nvrtcResult (*GetCUBIN)(nvrtcProgram, char *);
    nvrtcResult (*GetProgramLogSize)(nvrtcProgram, size_t *);
    nvrtcResult (*GetProgramLog)(nvrtcProgram, char *);
    const char *(*GetErrorString)(nvrtcResult);
} nv;

/* ---- loading, once per process ---- */

#define MAX_CUDA_DEVICES 16

typedef struct cuda_device_info {
    CUdevice dev;
    char name[128];
    int cc_major, cc_minor, max_threads, shared_mem, sms;
    size_t total_mem;
} cuda_device_info;

/* What the first use found: the libraries, cuInit's result, the devices; `absent` says why CUDA cannot run
 * (NULL when it can). nvrtc_absent separately: the NVRTC test needs NVRTC and no driver. */
static struct {
    const char *absent, *nvrtc_absent;
    char why[256], nvrtc_why[256];
    char nvrtc_path[64];
    int driver_version, nvrtc_major, nvrtc_minor;
    int ndev;
    cuda_device_info devs[MAX_CUDA_DEVICES];
} found;
static pthread_once_t nvrtc_once = PTHREAD_ONCE_INIT, cuda_once = PTHREAD_ONCE_INIT;

/* The address of the first of names that lib exports (a name list: newer ABI versions first). */
static void *sym(void *lib, const char *a, const char *b)
{
    void *p = dlsym(lib, a);
    return p || !b ? p : dlsym(lib, b);
}

#define NEED(tab, field, lib, n1, n2, miss)                                                                \
    do {                                                                                                 \
        *(void **)&tab.field = sym(lib, n1, n2);                                                          \
        if (!tab.field && !miss)                                                                         \
            miss = n1;                                                                                   \
    } while (0)

/* NVRTC: $RAID_NVRTC_LIB if set (a path or a name), else libnvrtc.so.13, .12, libnvrtc.so on the loader's
 * path and then in $CUDA_HOME/lib64 and /usr/local/cuda/lib64 (the toolkit's usual home, often not on the
 * loader's path). The versioned names first: an unversioned libnvrtc.so exists only with the toolkit's
 * development files. */
static void load_nvrtc(void)
{
    static const char *const names[] = {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"};
    void *lib = NULL;
    const char *env = getenv("RAID_NVRTC_LIB");
    if (env && *env) {
        lib = dlopen(env, RTLD_NOW | RTLD_LOCAL);
        snprintf(found.nvrtc_path, sizeof found.nvrtc_path, "%.63s", env);
        if (!lib) {
            snprintf(found.nvrtc_why, sizeof found.nvrtc_why, "NVRTC not found: RAID_NVRTC_LIB=%.150s cannot be loaded",
                     env);
            found.nvrtc_absent = found.nvrtc_why;
            return;
        }
    }
    const char *home = getenv("CUDA_HOME");
    for (int dir = 0; !lib && dir < 3; dir++)
        for (size_t i = 0; !lib && i < sizeof names / sizeof *names; i++) {
            char path[512];
            if (dir == 0)
                snprintf(path, sizeof path, "%s", names[i]);
            else if (dir == 1 && home && *home)
                snprintf(path, sizeof path, "%.400s/lib64/%s", home, names[i]);
            else if (dir == 2)
                snprintf(path, sizeof path, "/usr/local/cuda/lib64/%s", names[i]);
            else
                continue;
            lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
            if (lib)
                snprintf(found.nvrtc_path, sizeof found.nvrtc_path, "%s", names[i]);
        }
    if (!lib) {
        found.nvrtc_absent = "NVRTC not found (libnvrtc.so.13, .12 or libnvrtc.so; set RAID_NVRTC_LIB to its path)";
        return;
    }
    const char *miss = NULL;
    NEED(nv, Version, lib, "nvrtcVersion", NULL, miss);
    NEED(nv, CreateProgram, lib, "nvrtcCreateProgram", NULL, miss);
    NEED(nv, DestroyProgram, lib, "nvrtcDestroyProgram", NULL, miss);
    NEED(nv, CompileProgram, lib, "nvrtcCompileProgram", NULL, miss);
    NEED(nv, GetPTXSize, lib, "nvrtcGetPTXSize", NULL, miss);
    NEED(nv, GetPTX, lib, "nvrtcGetPTX", NULL, miss);
    NEED(nv, GetProgramLogSize, lib, "nvrtcGetProgramLogSize", NULL, miss);
    NEED(nv, GetProgramLog, lib, "nvrtcGetProgramLog", NULL, miss);
    NEED(nv, GetErrorString, lib, "nvrtcGetErrorString", NULL, miss);
    /* optional: cubins (CUDA 11.1+) and the list of architectures (11.2+) */
    *(void **)&nv.GetCUBINSize = dlsym(lib, "nvrtcGetCUBINSize");
    *(void **)&nv.GetCUBIN = dlsym(lib, "nvrtcGetCUBIN");
    *(void **)&nv.GetNumSupportedArchs = dlsym(lib, "nvrtcGetNumSupportedArchs");
    *(void **)&nv.GetSupportedArchs = dlsym(lib, "nvrtcGetSupportedArchs");
    if (miss) {
        snprintf(found.nvrtc_why, sizeof found.nvrtc_why, "NVRTC (%s) lacks %s", found.nvrtc_path, miss);
        found.nvrtc_absent = found.nvrtc_why;
        return; /* the library stays loaded: a process loads it once */
    }
    nv.Version(&found.nvrtc_major, &found.nvrtc_minor);
}

static void load_cuda(void)
{
    pthread_once(&nvrtc_once, load_nvrtc);
    const char *env = getenv("RAID_CUDA_LIB");
    const char *path = env && *env ? env : "libcuda.so.1";
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        if (env && *env)
            snprintf(found.why, sizeof found.why, "libcuda.so.1 not found: RAID_CUDA_LIB=%.150s cannot be loaded", env);
        else
            snprintf(found.why, sizeof found.why, "libcuda.so.1 not found (no NVIDIA driver)");
        found.absent = found.why;
        return;
    }
    const char *miss = NULL;
    NEED(cu, Init, lib, "cuInit", NULL, miss);
    NEED(cu, DriverGetVersion, lib, "cuDriverGetVersion", NULL, miss);
    NEED(cu, DeviceGetCount, lib, "cuDeviceGetCount", NULL, miss);
    NEED(cu, DeviceGet, lib, "cuDeviceGet", NULL, miss);
    NEED(cu, DeviceGetName, lib, "cuDeviceGetName", NULL, miss);
    NEED(cu, DeviceGetAttribute, lib, "cuDeviceGetAttribute", NULL, miss);
    NEED(cu, DeviceTotalMem, lib, "cuDeviceTotalMem_v2", NULL, miss);
    NEED(cu, DevicePrimaryCtxRetain, lib, "cuDevicePrimaryCtxRetain", NULL, miss);
    NEED(cu, DevicePrimaryCtxRelease, lib, "cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease", miss);
    NEED(cu, CtxSetCurrent, lib, "cuCtxSetCurrent", NULL, miss);
    NEED(cu, MemAlloc, lib, "cuMemAlloc_v2", NULL, miss);
    NEED(cu, MemFree, lib, "cuMemFree_v2", NULL, miss);
    NEED(cu, MemcpyHtoDAsync, lib, "cuMemcpyHtoDAsync_v2", NULL, miss);
    NEED(cu, MemcpyDtoHAsync, lib, "cuMemcpyDtoHAsync_v2", NULL, miss);
    NEED(cu, MemcpyDtoDAsync, lib, "cuMemcpyDtoDAsync_v2", NULL, miss);
    NEED(cu, MemsetD32Async, lib, "cuMemsetD32Async", NULL, miss);
    NEED(cu, MemsetD8Async, lib, "cuMemsetD8Async", NULL, miss);
    NEED(cu, MemsetD2D32Async, lib, "cuMemsetD2D32Async", NULL, miss);
    NEED(cu, MemHostAlloc, lib, "cuMemHostAlloc", NULL, miss);
    NEED(cu, MemFreeHost, lib, "cuMemFreeHost", NULL, miss);
    NEED(cu, StreamCreate, lib, "cuStreamCreate", NULL, miss);
    NEED(cu, StreamDestroy, lib, "cuStreamDestroy_v2", NULL, miss);
    NEED(cu, StreamSynchronize, lib, "cuStreamSynchronize", NULL, miss);
    NEED(cu, EventCreate, lib, "cuEventCreate", NULL, miss);
    NEED(cu, EventRecord, lib, "cuEventRecord", NULL, miss);
    NEED(cu, EventSynchronize, lib, "cuEventSynchronize", NULL, miss);
    NEED(cu, EventElapsedTime, lib, "cuEventElapsedTime_v2", "cuEventElapsedTime", miss);
    NEED(cu, EventDestroy, lib, "cuEventDestroy_v2", NULL, miss);
    NEED(cu, ModuleLoadData, lib, "cuModuleLoadData", NULL, miss);
    NEED(cu, ModuleUnload, lib, "cuModuleUnload", NULL, miss);
    NEED(cu, ModuleGetFunction, lib, "cuModuleGetFunction", NULL, miss);
    NEED(cu, LaunchKernel, lib, "cuLaunchKernel", NULL, miss);
    NEED(cu, GetErrorName, lib, "cuGetErrorName", NULL, miss);
    if (miss) {
        snprintf(found.why, sizeof found.why, "libcuda.so.1 lacks %s (driver too old)", miss);
        found.absent = found.why;
        return;
    }
    CUresult e = cu.Init(0);
    if (e == CUDA_SUCCESS)
        e = cu.DriverGetVersion(&found.driver_version);
    int n = 0;
    if (e == CUDA_SUCCESS)
        e = cu.DeviceGetCount(&n);
    if (e != CUDA_SUCCESS) {
        const char *name = NULL;
        if (cu.GetErrorName(e, &name) != CUDA_SUCCESS || !name)
            name = "unknown CUDA error";
        if (e == CUDA_ERROR_NO_DEVICE)
            snprintf(found.why, sizeof found.why, "no CUDA device");
        else
            snprintf(found.why, sizeof found.why, "cuInit failed with %s (%d)", name, e);
        found.absent = found.why;
        return;
    }
    if (n > MAX_CUDA_DEVICES)
        n = MAX_CUDA_DEVICES;
    for (int i = 0; i < n; i++) {
        cuda_device_info *d = &found.devs[found.ndev];
        if (cu.DeviceGet(&d->dev, i) != CUDA_SUCCESS ||
            cu.DeviceGetName(d->name, (int)sizeof d->name, d->dev) != CUDA_SUCCESS ||
            cu.DeviceGetAttribute(&d->cc_major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, d->dev) != CUDA_SUCCESS ||
            cu.DeviceGetAttribute(&d->cc_minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, d->dev) != CUDA_SUCCESS ||
            cu.DeviceGetAttribute(&d->max_threads, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, d->dev) != CUDA_SUCCESS ||
            cu.DeviceGetAttribute(&d->shared_mem, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, d->dev) != CUDA_SUCCESS ||
            cu.DeviceGetAttribute(&d->sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, d->dev) != CUDA_SUCCESS ||
            cu.DeviceTotalMem(&d->total_mem, d->dev) != CUDA_SUCCESS)
            break; /* the devices before it are usable; an ordinal is never renumbered */
        d->name[sizeof d->name - 1] = 0;
        found.ndev++;
    }
    if (found.ndev == 0) {
        snprintf(found.why, sizeof found.why, "no CUDA device");
        found.absent = found.why;
        return;
    }
    if (found.nvrtc_absent)
        found.absent = found.nvrtc_absent; /* devices, but nothing can compile their kernels */
}

/* The process's CUDA state, loaded by the first caller (the others wait), as OpenCL's discovery is. */
static void discovered(void) { pthread_once(&cuda_once, load_cuda); }

const char *raidCudaAbsent(void)
{
    discovered();
    return found.absent;
}

const char *raidCudaNvrtcAbsent(void)
{
    pthread_once(&nvrtc_once, load_nvrtc);
    return found.nvrtc_absent;
}

/* ---- the backend's state ---- */

#define MAX_ARGS 32

/* A cached kernel: its entry in the context's kernel cache (kcache_mem.c), its module, function, log and
 * arguments. */
struct RaidKernel {
    RaidKcEntry entry; /* first (backend.h) */
    CUmodule module;
    CUfunction fn;
    char *log; /* NVRTC's log of the build ("" from the disk cache) */
    /* arguments set by index (raidArg*), passed to cuLaunchKernel: each value in its 8-byte slot */
    unsigned nargs;     /* highest index set + 1 */
    uint32_t set;       /* bit i: argument i set */
    uint64_t val[MAX_ARGS];
    char name[64];
};

typedef struct CuDev {
    RaidDev base; /* the backend table, kernel cache and pools (backend.h); first, so that a RaidDev pointer is
                   * a CuDev pointer */
    const cuda_device_info *info;
    CUcontext cuctx; /* the device's primary context, retained */
    CUstream stream;
    char arch[16]; /* "sm_90" or "compute_90" */
    int cubin;     /* 1: NVRTC makes a cubin for arch, 0: PTX that the driver compiles */
    CUdeviceptr *wrapped; /* the caller's memory wrapped (buf_wrap) and not released: never freed or pooled */
    size_t nwrapped, capwrapped;
} CuDev;

/* A RaidEvent's h: the command's start and end, recorded around it on the stream. */
typedef struct cu_event {
    CUevent start, end;
} cu_event;

static const RaidDevOps cuda_ops;

static inline CuDev *cu_of(const raid_ctx *ctx) { return (CuDev *)ctx->dev; }

static const char *cu_err_name(CUresult e)
{
    const char *n = NULL;
    if (cu.GetErrorName && cu.GetErrorName(e, &n) == CUDA_SUCCESS && n)
        return n;
    return "unknown CUDA error";
}

/* The one mapping of a driver API error of call `what` to a status and message (RAID_OK for success). */
static raid_status cu_check(raid_ctx *ctx, CUresult err, const char *what)
{
    if (err == CUDA_SUCCESS)
        return RAID_OK;
    raid_status s = RAID_EDEVICE;
    const char *hint = "";
    switch (err) {
    case CUDA_ERROR_OUT_OF_MEMORY:
        s = RAID_EDEVMEM;
        hint = ": out of device memory";
        break;
    case CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES:
        s = RAID_EDEVMEM;
        hint = ": out of device resources (registers or shared memory) for the launch";
        break;
    case CUDA_ERROR_ILLEGAL_ADDRESS: case CUDA_ERROR_LAUNCH_TIMEOUT: case CUDA_ERROR_HARDWARE_STACK_ERROR:
    case CUDA_ERROR_ILLEGAL_INSTRUCTION: case CUDA_ERROR_MISALIGNED_ADDRESS: case CUDA_ERROR_INVALID_ADDRESS_SPACE:
    case CUDA_ERROR_INVALID_PC: case CUDA_ERROR_LAUNCH_FAILED: case CUDA_ERROR_ECC_UNCORRECTABLE:
    case CUDA_ERROR_DEVICE_UNAVAILABLE: case CUDA_ERROR_CONTEXT_IS_DESTROYED:
        s = RAID_EDEVLOST;
        hint = ": the device was lost or a kernel faulted (the context is unusable: destroy it)";
        break;
    default:
        break;
    }
    return raidFail(ctx, s, "%s failed with %s (%d)%s", what, cu_err_name(err), (int)err, hint);
}

/* Make the context's primary context current in the calling thread (a raid context may move between
 * threads, one at a time). */
static inline raid_status cur(raid_ctx *ctx)
{
    return cu_check(ctx, cu.CtxSetCurrent(cu_of(ctx)->cuctx), "cuCtxSetCurrent");
}

/* ---- NVRTC ---- */

/* The architecture option for a device of compute capability (major, minor): a cubin for sm_XY when this
 * NVRTC knows it, else PTX for the newest virtual architecture it knows below (the driver compiles PTX for
 * newer devices), else PTX for compute_XY. */
static void choose_arch(int major, int minor, char *arch, size_t len, int *cubin)
{
    const int want = major * 10 + minor;
    int best = 0, n = 0;
    if (nv.GetNumSupportedArchs && nv.GetSupportedArchs && nv.GetNumSupportedArchs(&n) == NVRTC_SUCCESS && n > 0 &&
        n < 256) {
        int archs[256];
        if (nv.GetSupportedArchs(archs) == NVRTC_SUCCESS)
            for (int i = 0; i < n; i++)
                if (archs[i] <= want && archs[i] > best)
                    best = archs[i];
    } else {
        best = want;
    }
    if (best == want && nv.GetCUBIN && nv.GetCUBINSize) {
        snprintf(arch, len, "sm_%d", want);
        *cubin = 1;
    } else {
        snprintf(arch, len, "compute_%d", best ? best : want);
        *cubin = 0;
    }
}

raid_status raidCudaCompile(raid_ctx *ctx, const char *label, const char *const *parts, size_t nparts,
                            const char *options, const char *arch, int cubin, void **bin, size_t *len, char **log)
{
    *bin = NULL;
    *len = 0;
    if (log)
        *log = NULL;
    const char *absent = raidCudaNvrtcAbsent();
    if (absent)
        return raidFail(ctx, RAID_ENODEV, "%s", absent);
    size_t total = 1;
    for (size_t i = 0; i < nparts; i++)
        total += strlen(parts[i]);
    char *src = malloc(total);
    char *opts = malloc((options ? strlen(options) : 0) + 1);
    const char **argv = malloc(sizeof *argv * (8 + (options ? strlen(options) / 2 + 1 : 0)));
    if (!src || !opts || !argv) {
        free(src), free(opts), free(argv);
        return raidFail(ctx, RAID_ENOMEM, "out of memory");
    }
    size_t at = 0;
    for (size_t i = 0; i < nparts; i++) {
        const size_t n = strlen(parts[i]);
        memcpy(src + at, parts[i], n);
        at += n;
    }
    src[at] = 0;
    /* Options: the backend's own, then the caller's words (-D, -U, -I ... as NVRTC takes them). One options
     * string serves both backends, so OpenCL's words that have a CUDA meaning are translated: -cl-std=...
     * (the OpenCL C version) is dropped, -cl-nv-verbose (ptxas's report in the build log) becomes
     * --ptxas-options=-v, -cl-nv-maxrregcount=N becomes --maxrregcount=N. Every other word goes to NVRTC,
     * which refuses what it does not know (RAID_EBUILD): an unknown or unsafe option never passes
     * silently. */
    char archopt[48];
    snprintf(archopt, sizeof archopt, "--gpu-architecture=%s", arch);
    int argc = 0;
    argv[argc++] = archopt;
    argv[argc++] = "--fmad=false";
    argv[argc++] = "-DRAID_CUDA=1";
    argv[argc++] = "-diag-suppress=161"; /* the kernel files' own #pragma OPENCL FP_CONTRACT OFF, unknown to CUDA */
    argv[argc++] = "--std=c++17";
    argv[argc++] = "--device-as-default-execution-space"; /* the shared headers' functions (raid_df.h) run on the device */
    if (options) {
        strcpy(opts, options);
        for (char *w = strtok(opts, " \t\n"); w; w = strtok(NULL, " \t\n")) {
            if (!strncmp(w, "-cl-std=", 8))
                continue;
            if (!strcmp(w, "-cl-nv-verbose"))
                argv[argc++] = "--ptxas-options=-v";
            else if (!strncmp(w, "-cl-nv-maxrregcount=", 20)) {
                memcpy(w + 5, "--maxrregcount=", 15); /* rewritten in place: "-cl-n" + "--maxrregcount=N" */
                argv[argc++] = w + 5;
            }
            else
                argv[argc++] = w;
        }
    }
    nvrtcProgram prog = NULL;
    nvrtcResult r = nv.CreateProgram(&prog, src, label, 0, NULL, NULL);
    if (r != NVRTC_SUCCESS) {
        free(src), free(opts), free(argv);
        return raidFail(ctx, r == NVRTC_ERROR_OUT_OF_MEMORY ? RAID_ENOMEM : RAID_EDEVICE,
                        "nvrtcCreateProgram failed with %s (%d)", nv.GetErrorString(r), r);
    }
    r = nv.CompileProgram(prog, argc, argv);
    size_t loglen = 0;
    char *text = NULL;
    if (nv.GetProgramLogSize(prog, &loglen) == NVRTC_SUCCESS && (text = malloc(loglen + 1))) {
        text[0] = 0;
        if (nv.GetProgramLog(prog, text) != NVRTC_SUCCESS)
            text[0] = 0;
        text[loglen] = 0;
    }
    raid_status s = RAID_OK;
    if (r != NVRTC_SUCCESS) {
        s = raidFail(ctx, r == NVRTC_ERROR_OUT_OF_MEMORY ? RAID_ENOMEM : RAID_EBUILD,
                     "building kernels/%s (%s --fmad=false %s) with NVRTC failed with %s (%d):\n%s", label, archopt,
                     options ? options : "", nv.GetErrorString(r), r, text && *text ? text : "(no build log)");
    } else {
        size_t n = 0;
        r = cubin ? nv.GetCUBINSize(prog, &n) : nv.GetPTXSize(prog, &n);
        char *out = r == NVRTC_SUCCESS ? malloc(n ? n : 1) : NULL;
        if (r == NVRTC_SUCCESS && !out)
            s = raidFail(ctx, RAID_ENOMEM, "out of memory");
        else if (r == NVRTC_SUCCESS && (r = cubin ? nv.GetCUBIN(prog, out) : nv.GetPTX(prog, out)) == NVRTC_SUCCESS) {
            *bin = out;
            *len = n;
        } else {
            free(out);
            s = raidFail(ctx, RAID_EDEVICE, "%s failed with %s (%d)", cubin ? "nvrtcGetCUBIN" : "nvrtcGetPTX",
                         nv.GetErrorString(r), r);
        }
    }
    nv.DestroyProgram(&prog);
    if (log && s == RAID_OK)
        *log = text;
    else
        free(text);
    free(src), free(opts), free(argv);
    return s;
}

/* ---- the device ---- */

raid_status raidCudaOpen(raid_ctx *ctx, int ordinal)
{
    discovered();
    if (found.absent)
        return raidFail(ctx, RAID_ENODEV, "CUDA is not available: %s", found.absent);
    if (ordinal < 0 || ordinal >= found.ndev)
        return raidFail(ctx, RAID_ENODEV, "no CUDA device %d (there are %d)", ordinal, found.ndev);
    CuDev *d = calloc(1, sizeof *d);
    if (!d)
        return raidFail(ctx, RAID_ENOMEM, "out of memory");
    d->base.ops = &cuda_ops;
    d->info = &found.devs[ordinal];
    raidKcacheInit(&d->base);
    ctx->dev = &d->base;
    raid_status s = cu_check(ctx, cu.DevicePrimaryCtxRetain(&d->cuctx, d->info->dev), "cuDevicePrimaryCtxRetain");
    if (s != RAID_OK) {
        d->cuctx = NULL;
        return s;
    }
    if ((s = cur(ctx)) != RAID_OK)
        return s;
    if ((s = cu_check(ctx, cu.StreamCreate(&d->stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate")) != RAID_OK) {
        d->stream = NULL;
        return s;
    }
    d->base.max_wg = (size_t)d->info->max_threads;
    d->base.local_mem = (uint64_t)d->info->shared_mem;
    /* CUDA has no per-allocation limit (cuMemAlloc reports what does not fit: RAID_EDEVMEM); a quarter of
     * the memory is what NVIDIA's OpenCL reports as CL_DEVICE_MAX_MEM_ALLOC_SIZE (OpenCL's minimum), so
     * the operations size their batches on one GPU alike under both backends. */
    d->base.max_alloc = (uint64_t)d->info->total_mem / 4;
    choose_arch(d->info->cc_major, d->info->cc_minor, d->arch, sizeof d->arch, &d->cubin);
    snprintf(ctx->device_name, sizeof ctx->device_name, "%.150s (CUDA %d.%d, %s)", d->info->name,
             found.driver_version / 1000, found.driver_version % 1000 / 10, d->arch);
    return RAID_OK;
}

/* kernel_release (backend.h): the module (unloaded in d's context: cuModuleUnload acts on the calling
 * thread's current context) and NVRTC's log. */
static void kernel_release(RaidDev *dev, RaidKernel *k)
{
    if (k->module) {
        cu.CtxSetCurrent(((CuDev *)dev)->cuctx);
        cu.ModuleUnload(k->module);
    }
    free(k->log);
}

static void dev_close(RaidDev *dev)
{
    CuDev *d = (CuDev *)dev;
    if (!d)
        return;
    if (d->cuctx) {
        cu.CtxSetCurrent(d->cuctx);
        if (d->stream)
            cu.StreamSynchronize(d->stream);
        raidKcacheClear(dev);
        raidPoolClear(dev);
        if (d->stream)
            cu.StreamDestroy(d->stream);
        cu.DevicePrimaryCtxRelease(d->info->dev);
    }
    free(d->wrapped);
    free(d);
}

/* CUDA submits at once: a flush is only the fault switch's point (as OpenCL's clFlush is). */
static raid_status dev_flush(raid_ctx *ctx)
{
    return raidDevFault(ctx, RAID_FAULT_SYNC, "cuStreamQuery") ? cu_check(ctx, CUDA_ERROR_LAUNCH_FAILED, "cuStreamQuery")
                                                       : RAID_OK;
}

static raid_status dev_finish(raid_ctx *ctx)
{
    raid_status s = cur(ctx);
    if (s != RAID_OK)
        return s;
    CUresult e = cu.StreamSynchronize(cu_of(ctx)->stream);
    if (raidDevFault(ctx, RAID_FAULT_SYNC, "cuStreamSynchronize"))
        e = CUDA_ERROR_LAUNCH_FAILED;
    return cu_check(ctx, e, "cuStreamSynchronize");
}

static void dev_drain(raid_ctx *ctx)
{
    if (cu.CtxSetCurrent(cu_of(ctx)->cuctx) == CUDA_SUCCESS)
        (void)cu.StreamSynchronize(cu_of(ctx)->stream);
}

/* ---- kernels ---- */

/* Build (or take from the disk cache) the module of program `parts` for d; *log NVRTC's log. */
static raid_status build_module(raid_ctx *ctx, CuDev *d, const char *label, const char *const *parts, size_t nparts,
                                const char *options, CUmodule *mod, char **log)
{
    *mod = NULL;
    *log = NULL;
    /* The disk cache's key: backend, device, driver and NVRTC versions, architecture, options, the full
     * source text. */
    size_t klen = 256 + strlen(d->info->name) + (options ? strlen(options) : 0);
    for (size_t i = 0; i < nparts; i++)
        klen += strlen(parts[i]);
    char *key = malloc(klen);
    if (!key)
        return raidFail(ctx, RAID_ENOMEM, "out of memory");
    int at = snprintf(key, klen, "cuda\n%s\ndriver %d\nnvrtc %d.%d\n%s\n--fmad=false %s\n", d->info->name,
                      found.driver_version, found.nvrtc_major, found.nvrtc_minor, d->arch, options ? options : "");
    for (size_t i = 0; i < nparts; i++) {
        const size_t n = strlen(parts[i]);
        memcpy(key + at, parts[i], n);
        at += (int)n;
    }
    key[at] = 0;
    void *bin = NULL;
    size_t len = 0;
    raid_status s = RAID_OK;
    int cached = raidKcacheLoad(key, &bin, &len);
    if (!cached) {
        s = raidCudaCompile(ctx, label, parts, nparts, options, d->arch, d->cubin, &bin, &len, log);
        if (s == RAID_OK)
            (void)raidKcacheStore(key, bin, len); /* no cache (an unwritable directory): built every time */
    }
    free(key);
    if (s != RAID_OK)
        return s;
    CUresult e = cu.ModuleLoadData(mod, bin);
    if (e == CUDA_SUCCESS && cached)
        d->base.kc.stats.disk_hits++;
    if (e != CUDA_SUCCESS && cached) {
        /* an entry that the driver refuses (e.g. PTX of a newer NVRTC than the driver) is rebuilt, not trusted */
        free(bin);
        bin = NULL;
        s = raidCudaCompile(ctx, label, parts, nparts, options, d->arch, d->cubin, &bin, &len, log);
        if (s != RAID_OK)
            return s;
        e = cu.ModuleLoadData(mod, bin);
    }
    free(bin);
    if (e != CUDA_SUCCESS) {
        *mod = NULL;
        free(*log);
        *log = NULL;
        return e == CUDA_ERROR_INVALID_PTX || e == CUDA_ERROR_INVALID_IMAGE || e == CUDA_ERROR_UNSUPPORTED_PTX_VERSION
                   ? raidFail(ctx, RAID_EBUILD, "cuModuleLoadData of kernels/%s (%s) failed with %s (%d)", label,
                              d->arch, cu_err_name(e), (int)e)
                   : cu_check(ctx, e, "cuModuleLoadData");
    }
    if (!*log)
        *log = calloc(1, 1);
    return RAID_OK;
}

/* kernel_build (backend.h): the module of the prelude and src (NVRTC, or the disk cache), its function. */
static raid_status kernel_build(raid_ctx *ctx, const char *label, const char *src, uint64_t src_hash,
                                const char *name, const char *options, char *key, int injected, RaidKernel **out)
{
    CuDev *d = cu_of(ctx);
    if (injected) { /* as NVRTC's failure (the OpenCL backend's goes on to clBuildProgram's) */
        free(key);
        return raidFail(ctx, RAID_EBUILD, "building kernels/%s with NVRTC failed with NVRTC_ERROR_COMPILATION (6):\n"
                                          "(no build log)", label);
    }
    /* the prelude and the file's own headers (kernels/prelude.txt, the list the OpenCL backend prepends too),
     * each header after a #line naming it, so that NVRTC's log names the file and line of an error */
    const char *parts[2 * RAID_PRELUDE_MAX + 2];
    char lines[RAID_PRELUDE_MAX][64];
    const char *names[RAID_PRELUDE_MAX];
    const int nh = raidKernelHeaders(label, names, RAID_PRELUDE_MAX);
    if (nh < 0) { /* more headers than RAID_PRELUDE_MAX: not built */
        free(key);
        return raidFail(ctx, RAID_EINVAL, "kernels/%s's program names more than %d headers", label, RAID_PRELUDE_MAX);
    }
    size_t np = 0;
    for (; np < (size_t)nh; np++) {
        snprintf(lines[np], sizeof lines[np], "\n#line 1 \"%s\"\n", names[np]);
        parts[2 * np] = lines[np];
        if (!(parts[2 * np + 1] = raidKernelSource(names[np]))) {
            free(key);
            return raidFail(ctx, RAID_EINVAL, "no embedded kernel source '%s'", names[np]);
        }
    }
    if (!src) {
        free(key);
        return raidFail(ctx, RAID_EINVAL, "no embedded kernel source '%s'", label);
    }
    char line[160];
    snprintf(line, sizeof line, "\n#line 1 \"%.100s\"\n", label);
    parts[2 * np] = line;
    parts[2 * np + 1] = src;
    raid_status s = cur(ctx);
    CUmodule mod = NULL;
    char *log = NULL;
    if (s == RAID_OK)
        s = build_module(ctx, d, label, parts, 2 * np + 2, options, &mod, &log);
    if (s != RAID_OK) {
        free(key);
        return s;
    }
    CUfunction fn = NULL;
    CUresult e = cu.ModuleGetFunction(&fn, mod, name);
    RaidKernel *k = e == CUDA_SUCCESS ? calloc(1, sizeof *k) : NULL;
    if (!k) {
        free(key);
        free(log);
        cu.ModuleUnload(mod);
        return e != CUDA_SUCCESS ? raidFail(ctx, RAID_EDEVICE, "cuModuleGetFunction(%s) of kernels/%s failed with %s (%d)",
                                            name, label, cu_err_name(e), (int)e)
                                 : raidFail(ctx, RAID_ENOMEM, "out of memory");
    }
    k->module = mod;
    k->fn = fn;
    k->log = log;
    snprintf(k->name, sizeof k->name, "%s", name);
    raidKcacheAdd(&d->base, k, key, src_hash);
    *out = k;
    return RAID_OK;
}

static size_t kernel_build_log(raid_ctx *ctx, const RaidKernel *k, char *buf, size_t len)
{
    (void)ctx;
    const size_t n = k->log ? strlen(k->log) : 0;
    if (len)
        snprintf(buf, len, "%s", k->log ? k->log : "");
    return n + 1;
}

/* get_usage (backend.h): the caller's memory wrapped and not released. */
static void dev_get_usage(const raid_ctx *ctx, RaidDevUsage *u) { u->wrapped = cu_of(ctx)->nwrapped; }

/* ---- arguments and launches ---- */

/* arg_value (backend.h): kept in the kernel's slot i until the launch. */
static raid_status set_arg(raid_ctx *ctx, RaidKernel *k, unsigned i, const void *v, size_t size)
{
    if (i >= MAX_ARGS)
        return raidFail(ctx, RAID_EDEVICE, "kernel %s: argument index %u exceeds the CUDA backend's %d", k->name, i,
                        MAX_ARGS);
    k->val[i] = 0;
    if (v)
        memcpy(&k->val[i], v, size);
    k->set |= 1u << i;
    if (i + 1 > k->nargs)
        k->nargs = i + 1;
    return RAID_OK;
}

static raid_status arg_buf(raid_ctx *ctx, RaidKernel *k, unsigned i, const RaidBuf *b)
{
    const CUdeviceptr p = (CUdeviceptr)(uintptr_t)b->h;
    return set_arg(ctx, k, i, &p, sizeof p);
}

/* Record the start of a command with an event (ev may be NULL): *ce the pair, its start recorded. */
static raid_status event_begin(raid_ctx *ctx, RaidEvent *ev, cu_event **ce)
{
    *ce = NULL;
    if (!ev)
        return RAID_OK;
    cu_event *x = calloc(1, sizeof *x);
    if (!x)
        return raidFail(ctx, RAID_ENOMEM, "out of memory");
    CUresult e = cu.EventCreate(&x->start, 0);
    if (e == CUDA_SUCCESS && (e = cu.EventCreate(&x->end, 0)) != CUDA_SUCCESS) {
        cu.EventDestroy(x->start);
        x->start = NULL;
    }
    if (e == CUDA_SUCCESS)
        e = cu.EventRecord(x->start, cu_of(ctx)->stream);
    if (e != CUDA_SUCCESS) {
        if (x->start)
            cu.EventDestroy(x->start), cu.EventDestroy(x->end);
        free(x);
        return cu_check(ctx, e, "cuEventRecord");
    }
    *ce = x;
    return RAID_OK;
}

/* After the command: a failed command (e != success) drops the pair; else its end is recorded into *ev. */
static raid_status event_end(raid_ctx *ctx, RaidEvent *ev, cu_event *ce, CUresult e, const char *what)
{
    if (e == CUDA_SUCCESS && ce && (e = cu.EventRecord(ce->end, cu_of(ctx)->stream)) != CUDA_SUCCESS)
        what = "cuEventRecord";
    if (e != CUDA_SUCCESS) {
        if (ce) {
            cu.EventDestroy(ce->start);
            cu.EventDestroy(ce->end);
            free(ce);
        }
        return cu_check(ctx, e, what);
    }
    if (ce) {
        ev->h = ce;
        raidEventMade(ev, &cuda_ops);
    }
    return RAID_OK;
}

/* The block shape when the caller gives none: dimension 0 the largest divisor of global[0] up to 256 (and
 * the device's limit), the others 1. A divisor, because OpenCL's choice divides the global size too and a
 * kernel may rely on every work-item existing (no tail guard); 256 because it is the library's
 * default work-group width. */
static void choose_block(const CuDev *d, unsigned dims, const size_t *global, size_t *block)
{
    size_t cap = d->base.max_wg < 256 ? d->base.max_wg : 256;
    size_t b = cap;
    while (b > 1 && global[0] % b)
        b--;
    block[0] = b ? b : 1;
    for (unsigned i = 1; i < 3; i++)
        block[i] = 1;
    (void)dims;
}

static raid_status launch(raid_ctx *ctx, RaidKernel *k, unsigned dims, const size_t *global, const size_t *local,
                          RaidEvent *ev)
{
    assert(dims >= 1 && dims <= 3);
    CuDev *d = cu_of(ctx);
    size_t block[3] = {1, 1, 1}, grid[3] = {1, 1, 1};
    if (local)
        for (unsigned i = 0; i < dims; i++)
            block[i] = local[i];
    else
        choose_block(d, dims, global, block);
    for (unsigned i = 0; i < dims; i++) {
        if (block[i] == 0 || global[i] % block[i])
            return raidFail(ctx, RAID_EDEVICE, "cuLaunchKernel of %s: global size %zu in dimension %u is not a "
                                               "multiple of the block size %zu (OpenCL 1.2's rule too)", k->name,
                            global[i], i, block[i]);
        grid[i] = global[i] / block[i]; /* ceil(global / local), exact under the rule above */
    }
    if (grid[0] > 0x7fffffffu || grid[1] > 65535 || grid[2] > 65535 || block[0] * block[1] * block[2] > d->base.max_wg)
        return raidFail(ctx, RAID_EDEVICE, "cuLaunchKernel of %s: grid %zu x %zu x %zu of blocks %zu x %zu x %zu "
                                           "exceeds the device's limits", k->name, grid[0], grid[1], grid[2],
                        block[0], block[1], block[2]);
    if (k->nargs && k->set != (k->nargs >= 32 ? 0xffffffffu : (1u << k->nargs) - 1u))
        return raidFail(ctx, RAID_EDEVICE, "cuLaunchKernel of %s: an argument below index %u is not set", k->name,
                        k->nargs);
    void *params[MAX_ARGS];
    for (unsigned i = 0; i < k->nargs; i++)
        params[i] = &k->val[i];
    raid_status s = cur(ctx);
    cu_event *ce = NULL;
    if (s == RAID_OK)
        s = event_begin(ctx, ev, &ce);
    if (s != RAID_OK)
        return s;
    const CUresult e = raidDevFault(ctx, RAID_FAULT_LAUNCH, "cuLaunchKernel")
                           ? CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES
                           : cu.LaunchKernel(k->fn, (unsigned)grid[0], (unsigned)grid[1], (unsigned)grid[2],
                                             (unsigned)block[0], (unsigned)block[1], (unsigned)block[2],
                                             0, d->stream, k->nargs ? params : NULL, NULL);
    return event_end(ctx, ev, ce, e, "cuLaunchKernel");
}

/* ---- events ---- */

static raid_status event_wait(raid_ctx *ctx, const RaidEvent *ev)
{
    const cu_event *ce = ev->h;
    raid_status s = cur(ctx);
    if (s != RAID_OK)
        return s;
    CUresult r = ce ? cu.EventSynchronize(ce->end) : CUDA_SUCCESS;
    if (raidDevFault(ctx, RAID_FAULT_SYNC, "cuEventSynchronize"))
        r = CUDA_ERROR_LAUNCH_FAILED;
    return cu_check(ctx, r, "cuEventSynchronize");
}

static double event_seconds(const RaidEvent *ev)
{
    const cu_event *ce = ev->h;
    float ms = 0;
    if (!ce || cu.EventElapsedTime(&ms, ce->start, ce->end) != CUDA_SUCCESS || !(ms > 0))
        return 0.0;
    return 1e-3 * (double)ms;
}

/* event_release (backend.h): the pair and its holder. */
static void event_release(RaidEvent *ev)
{
    cu_event *ce = ev->h;
    cu.EventDestroy(ce->start);
    cu.EventDestroy(ce->end);
    free(ce);
}

/* ---- buffers ---- */

/* mem_alloc (backend.h): cuMemAlloc in the context's CUDA context; an injected failure is its
 * out-of-memory. */
static raid_status mem_alloc(raid_ctx *ctx, size_t sz, int injected, void **mem)
{
    *mem = NULL;
    if (injected)
        return cu_check(ctx, CUDA_ERROR_OUT_OF_MEMORY, "cuMemAlloc");
    raid_status s = cur(ctx);
    if (s != RAID_OK)
        return s;
    CUdeviceptr m = 0;
    CUresult e = cu.MemAlloc(&m, sz);
    if (e != CUDA_SUCCESS)
        return cu_check(ctx, e, "cuMemAlloc");
    *mem = (void *)(uintptr_t)m;
    return RAID_OK;
}

/* mem_free (backend.h): commands queued on the buffer must finish before it is freed (cuMemFree does not
 * wait for the stream). */
static void mem_free(RaidDev *dev, void *mem)
{
    const CuDev *d = (const CuDev *)dev;
    if (cu.CtxSetCurrent(d->cuctx) == CUDA_SUCCESS) {
        cu.StreamSynchronize(d->stream);
        cu.MemFree((CUdeviceptr)(uintptr_t)mem);
    }
}

/* buf_release: the caller's memory (buf_wrap) is forgotten, the rest goes back to the pool (pool.c). */
static void buf_release(raid_ctx *ctx, RaidBuf *b)
{
    const CUdeviceptr m = (CUdeviceptr)(uintptr_t)b->h;
    CuDev *d = cu_of(ctx);
    for (size_t i = d->nwrapped; m && i-- > 0;)
        if (d->wrapped[i] == m) { /* the caller's memory: forgotten */
            d->wrapped[i] = d->wrapped[--d->nwrapped];
            *b = (RaidBuf){NULL, 0, b->type};
            return;
        }
    raidPoolBufRelease(ctx, b);
}

/* buf_transfer (backend.h): an upload (write = 1) or read-back of elements [first, first + n) of b. */
static raid_status transfer(raid_ctx *ctx, const RaidBuf *b, size_t first, size_t n, void *host, int blocking,
                            RaidEvent *ev, int write)
{
    const size_t es = raidDtypeSize(b->type);
    assert(first + n <= b->n);
    CuDev *d = cu_of(ctx);
    const char *what = write ? "cuMemcpyHtoDAsync" : "cuMemcpyDtoHAsync";
    const CUdeviceptr p = (CUdeviceptr)(uintptr_t)b->h + first * es;
    raid_status s = cur(ctx);
    cu_event *ce = NULL;
    if (s == RAID_OK)
        s = event_begin(ctx, ev, &ce);
    if (s != RAID_OK)
        return s;
    CUresult e = raidDevFault(ctx, write ? RAID_FAULT_UPLOAD : RAID_FAULT_DOWNLOAD, what) ? CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES
                 : write ? cu.MemcpyHtoDAsync(p, host, n * es, d->stream)
                         : cu.MemcpyDtoHAsync(host, p, n * es, d->stream);
    s = event_end(ctx, ev, ce, e, what);
    if (s == RAID_OK && blocking && (e = cu.StreamSynchronize(d->stream)) != CUDA_SUCCESS) {
        if (ev)
            raidEventRelease(ev);
        return cu_check(ctx, e, "cuStreamSynchronize");
    }
    return s;
}

static raid_status buf_fill(raid_ctx *ctx, const RaidBuf *b, const void *value, RaidEvent *ev)
{
    const size_t es = raidDtypeSize(b->type);
    if (b->n == 0)
        return RAID_OK;
    CuDev *d = cu_of(ctx);
    const CUdeviceptr p = (CUdeviceptr)(uintptr_t)b->h;
    raid_status s = cur(ctx);
    cu_event *ce = NULL;
    if (s == RAID_OK)
        s = event_begin(ctx, ev, &ce);
    if (s != RAID_OK)
        return s;
    CUresult e;
    const char *what = es == 1 ? "cuMemsetD8Async" : es == 4 ? "cuMemsetD32Async" : "cuMemsetD2D32Async";
    if (raidDevFault(ctx, RAID_FAULT_LAUNCH, what)) {
        e = CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES;
    } else if (es == 1) {
        e = cu.MemsetD8Async(p, *(const unsigned char *)value, b->n, d->stream);
    } else if (es == 4) {
        uint32_t w;
        memcpy(&w, value, 4);
        e = cu.MemsetD32Async(p, w, b->n, d->stream);
    } else { /* 8-byte elements: the low and the high words, each a column of pitch 8 */
        uint32_t w[2];
        memcpy(w, value, 8);
        e = cu.MemsetD2D32Async(p, 8, w[0], 1, b->n, d->stream);
        if (e == CUDA_SUCCESS)
            e = cu.MemsetD2D32Async(p + 4, 8, w[1], 1, b->n, d->stream);
    }
    return event_end(ctx, ev, ce, e, what);
}

static raid_status buf_copy(raid_ctx *ctx, const RaidBuf *dst, size_t dfirst, const RaidBuf *src, size_t sfirst,
                            size_t n, RaidEvent *ev)
{
    const size_t es = raidDtypeSize(src->type);
    assert(raidDtypeSize(dst->type) == es && sfirst + n <= src->n && dfirst + n <= dst->n);
    raid_status s = cur(ctx);
    cu_event *ce = NULL;
    if (s == RAID_OK)
        s = event_begin(ctx, ev, &ce);
    if (s != RAID_OK)
        return s;
    const CUresult e = raidDevFault(ctx, RAID_FAULT_LAUNCH, "cuMemcpyDtoDAsync")
                           ? CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES
                           : cu.MemcpyDtoDAsync((CUdeviceptr)(uintptr_t)dst->h + dfirst * es,
                                                (CUdeviceptr)(uintptr_t)src->h + sfirst * es, n * es,
                                                cu_of(ctx)->stream);
    return event_end(ctx, ev, ce, e, "cuMemcpyDtoDAsync");
}

/* The caller's device memory as a buffer: its address is the handle (a CUdeviceptr, as cuMemAlloc's),
 * remembered in d->wrapped so that buf_release forgets it instead of pooling or freeing it. */
static raid_status buf_wrap(raid_ctx *ctx, const void *p, RaidDtype t, size_t n, RaidBuf *out)
{
    CuDev *d = cu_of(ctx);
    *out = (RaidBuf){NULL, 0, t};
    if (d->nwrapped == d->capwrapped) {
        const size_t cap = d->capwrapped ? 2 * d->capwrapped : 8;
        CUdeviceptr *w = realloc(d->wrapped, cap * sizeof *w);
        if (!w)
            return raidFail(ctx, RAID_ENOMEM, "out of memory");
        d->wrapped = w;
        d->capwrapped = cap;
    }
    d->wrapped[d->nwrapped++] = (CUdeviceptr)(uintptr_t)p;
    *out = (RaidBuf){(void *)(uintptr_t)p, n, t};
    return RAID_OK;
}

/* host_alloc (backend.h): page-locked memory (cuMemHostAlloc, portable); its handle is its address. */
static int host_alloc(raid_ctx *ctx, size_t sz, void **mem, void **host)
{
    void *p = NULL;
    if (cu.CtxSetCurrent(cu_of(ctx)->cuctx) != CUDA_SUCCESS ||
        cu.MemHostAlloc(&p, sz, CU_MEMHOSTALLOC_PORTABLE) != CUDA_SUCCESS || !p)
        return -1;
    *mem = *host = p;
    return 0;
}

/* host_free (backend.h). */
static void host_free(RaidDev *dev, void *mem, void *host)
{
    (void)dev, (void)mem;
    cu.MemFreeHost(host);
}

static const RaidDevOps cuda_ops = {
    .name = "cuda", .close = dev_close, .flush = dev_flush, .finish = dev_finish, .drain = dev_drain,
    .buf_release = buf_release, .buf_transfer = transfer, .buf_fill = buf_fill, .buf_copy = buf_copy,
    .buf_wrap = buf_wrap, .kernel_build = kernel_build, .build_what = "nvrtcCompileProgram",
    .arg_buf = arg_buf, .arg_value = set_arg, .launch = launch, .kernel_build_log = kernel_build_log,
    .get_usage = dev_get_usage, .event_wait = event_wait, .event_seconds = event_seconds,
    .event_release = event_release, .kernel_release = kernel_release, .alloc_what = "cuMemAlloc",
    .mem_alloc = mem_alloc, .mem_free = mem_free, .host_alloc = host_alloc, .host_free = host_free,
};

/* ---- the caller's memory ---- */

#define CU_POINTER_ATTRIBUTE_CONTEXT 1
#define CU_POINTER_ATTRIBUTE_MEMORY_TYPE 2
#define CU_POINTER_ATTRIBUTE_IS_MANAGED 8
#define CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL 9
#define CU_POINTER_ATTRIBUTE_RANGE_START_ADDR 11
#define CU_POINTER_ATTRIBUTE_RANGE_SIZE 12
#define CU_MEMORYTYPE_DEVICE 2
#define CU_MEMORYTYPE_UNIFIED 4

typedef CUresult (*pointer_attr_fn)(void *, int, CUdeviceptr);
static pointer_attr_fn pointer_attr;

/* cuPointerGetAttribute of the driver already loaded in the process (RTLD_NOLOAD: never loaded here; the
 * handle is kept, so the function stays valid), or NULL. Found once, then read without a lock. */
static pointer_attr_fn pointer_query(void)
{
    pointer_attr_fn f = __atomic_load_n(&pointer_attr, __ATOMIC_ACQUIRE);
    if (f)
        return f;
    const char *env = getenv("RAID_CUDA_LIB");
    void *lib = dlopen(env && *env ? env : "libcuda.so.1", RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
    if (!lib)
        return NULL;
    *(void **)&f = dlsym(lib, "cuPointerGetAttribute");
    if (!f) {
        dlclose(lib);
        return NULL;
    }
    __atomic_store_n(&pointer_attr, f, __ATOMIC_RELEASE);
    return f;
}

int raidCudaPointer(const void *p, RaidCudaPtr *info)
{
    memset(info, 0, sizeof *info);
    info->ordinal = -1;
    const pointer_attr_fn f = p ? pointer_query() : NULL;
    if (!f)
        return 0;
    const CUdeviceptr a = (CUdeviceptr)(uintptr_t)p;
    unsigned type = 0, managed = 0;
    if (f(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, a) != CUDA_SUCCESS)
        return 0; /* not known to CUDA (CUDA_ERROR_INVALID_VALUE), or CUDA not initialised: host memory */
    if (f(&managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, a) != CUDA_SUCCESS)
        managed = 0;
    if (type != CU_MEMORYTYPE_DEVICE && type != CU_MEMORYTYPE_UNIFIED && !managed)
        return 0; /* page-locked host memory (cuMemHostAlloc, cudaHostRegister): the host's */
    int ordinal = -1;
    CUcontext c = NULL;
    if (f(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, a) != CUDA_SUCCESS)
        ordinal = -1;
    if (f(&c, CU_POINTER_ATTRIBUTE_CONTEXT, a) != CUDA_SUCCESS)
        c = NULL;
    CUdeviceptr start = 0;
    size_t size = 0;
    if (f(&start, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, a) != CUDA_SUCCESS ||
        f(&size, CU_POINTER_ATTRIBUTE_RANGE_SIZE, a) != CUDA_SUCCESS || start > a)
        start = 0, size = 0; /* the driver does not say (some virtual memory mappings): no range check */
    info->ordinal = ordinal;
    info->cuctx = c;
    info->managed = managed != 0;
    info->start = (uintptr_t)start;
    info->size = size;
    return 1;
}

int raidCudaCtxDevice(const raid_ctx *ctx, int *ordinal, const void **cuctx)
{
    if (!ctx || !ctx->dev || ctx->dev->ops != &cuda_ops)
        return 0;
    const CuDev *d = cu_of(ctx);
    *ordinal = (int)(d->info - found.devs);
    *cuctx = d->cuctx;
    return 1;
}

/* ---- the device list ---- */

void raidCudaDevices(raid_device_info *out, size_t cap, size_t *count)
{
    discovered();
    if (found.ndev == 0)
        return;
    for (int i = 0; i < found.ndev; i++) {
        if (*count < cap && out) {
            const cuda_device_info *d = &found.devs[i];
            raid_device_info *x = &out[*count];
            memset(x, 0, sizeof *x);
            x->backend = RAID_BACKEND_CUDA;
            x->platform = -1;
            x->device = i;
            snprintf(x->spec, sizeof x->spec, "cuda:%d", i);
            snprintf(x->platform_name, sizeof x->platform_name, "CUDA %d.%d%s", found.driver_version / 1000,
                     found.driver_version % 1000 / 10, found.nvrtc_absent ? ", no NVRTC" : "");
            snprintf(x->name, sizeof x->name, "%s", d->name);
            snprintf(x->type, sizeof x->type, "gpu");
            x->compute_units = (unsigned)d->sms;
            x->global_mem_bytes = d->total_mem;
            x->has_fp64 = 1; /* every CUDA device has float64 (slow on most) */
            x->cc_major = d->cc_major;
            x->cc_minor = d->cc_minor;
        }
        (*count)++;
    }
}
