/*
 * The OpenCL backend of the device layer (src/device/device.h): the only file of the library that calls
 * OpenCL. Modelled on CLBlast's split between kernel sources and a thin host layer: kernels are
 * embedded at build time (cmake/embed.cmake) and compiled at first use, prefixed by the prelude
 * (raidKernelPrelude, kernels/prelude.txt: raid_compat.h, whose OpenCL C branch this compiler takes, then the
 * shared headers). A CUDA backend is a sibling file implementing the same functions (docs/device.md).
 */
#define _POSIX_C_SOURCE 200809L
#include "device/backend.h"
#include "device/kernels_embedded.h"

#include <CL/cl.h>
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A cached kernel: its entry in the context's kernel cache (kcache_mem.c), its program and kernel. */
struct RaidKernel {
    RaidKcEntry entry; /* first (backend.h) */
    cl_program program;
    cl_kernel kernel;
};

typedef struct ClDev {
    RaidDev base; /* the backend table, kernel cache and pools (backend.h); first, so that a RaidDev pointer is
                   * a ClDev pointer */
    cl_platform_id platform;
    cl_device_id device;
    cl_context context;
    cl_command_queue queue;
    int cr_divide_sqrt; /* CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT: the programs are built with its option */
} ClDev;

static const RaidDevOps opencl_ops;

static inline ClDev *cl_of(const raid_ctx *ctx) { return (ClDev *)ctx->dev; }

/* Count the event that a successful enqueue made in *ev (ev may be NULL). */
static inline void event_made(RaidEvent *ev) { raidEventMade(ev, &opencl_ops); }

static const char *cl_err_name(cl_int e)
{
    switch (e) {
#define C(x) case x: return #x
        C(CL_SUCCESS); C(CL_DEVICE_NOT_FOUND); C(CL_DEVICE_NOT_AVAILABLE); C(CL_COMPILER_NOT_AVAILABLE);
        C(CL_MEM_OBJECT_ALLOCATION_FAILURE); C(CL_OUT_OF_RESOURCES); C(CL_OUT_OF_HOST_MEMORY);
        C(CL_PROFILING_INFO_NOT_AVAILABLE); C(CL_BUILD_PROGRAM_FAILURE); C(CL_INVALID_VALUE);
        C(CL_INVALID_DEVICE); C(CL_INVALID_CONTEXT); C(CL_INVALID_COMMAND_QUEUE); C(CL_INVALID_MEM_OBJECT);
        C(CL_INVALID_PROGRAM); C(CL_INVALID_KERNEL_NAME); C(CL_INVALID_KERNEL); C(CL_INVALID_ARG_INDEX);
        C(CL_INVALID_ARG_VALUE); C(CL_INVALID_ARG_SIZE); C(CL_INVALID_KERNEL_ARGS);
        C(CL_INVALID_WORK_GROUP_SIZE); C(CL_INVALID_WORK_ITEM_SIZE); C(CL_INVALID_GLOBAL_OFFSET);
        C(CL_INVALID_EVENT); C(CL_INVALID_OPERATION); C(CL_INVALID_BUFFER_SIZE);
        C(CL_INVALID_GLOBAL_WORK_SIZE); C(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
        C(CL_INVALID_BUILD_OPTIONS); C(CL_INVALID_PLATFORM);
#undef C
    default: return "unknown OpenCL error";
    }
}

/* The one mapping of an OpenCL error of call `what` to a status and message (RAID_OK for CL_SUCCESS). */
static raid_status cl_check(raid_ctx *ctx, cl_int err, const char *what)
{
    if (err == CL_SUCCESS)
        return RAID_OK;
    raid_status s = RAID_EDEVICE;
    const char *hint = "";
    switch (err) {
    case CL_MEM_OBJECT_ALLOCATION_FAILURE:
    case CL_INVALID_BUFFER_SIZE:
        s = RAID_EDEVMEM;
        hint = ": out of device memory";
        break;
    case CL_OUT_OF_RESOURCES:
        s = RAID_EDEVMEM;
        hint = ": out of device memory or resources (or a kernel faulted)";
        break;
    case CL_OUT_OF_HOST_MEMORY:
        s = RAID_ENOMEM;
        hint = ": out of host memory";
        break;
    case CL_DEVICE_NOT_AVAILABLE:
    case CL_INVALID_COMMAND_QUEUE:
    case CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST:
        s = RAID_EDEVLOST;
        hint = ": the device was lost or a kernel faulted";
        break;
    default:
        break;
    }
    return raidFail(ctx, s, "%s failed with %s (%d)%s", what, cl_err_name(err), (int)err, hint);
}

static raid_status query_device(raid_ctx *ctx, ClDev *cl)
{
    char name[200] = "", vendor[64] = "";
    size_t max_wg = 0;
    cl_ulong max_alloc = 0, local_mem = 0;
    cl_int e = clGetDeviceInfo(cl->device, CL_DEVICE_NAME, sizeof name, name, NULL);
    if (e == CL_SUCCESS)
        e = clGetPlatformInfo(cl->platform, CL_PLATFORM_NAME, sizeof vendor, vendor, NULL);
    if (e == CL_SUCCESS)
        e = clGetDeviceInfo(cl->device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof max_wg, &max_wg, NULL);
    if (e == CL_SUCCESS)
        e = clGetDeviceInfo(cl->device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof max_alloc, &max_alloc, NULL);
    if (e == CL_SUCCESS)
        e = clGetDeviceInfo(cl->device, CL_DEVICE_LOCAL_MEM_SIZE, sizeof local_mem, &local_mem, NULL);
    cl_device_fp_config fp = 0;
    if (e == CL_SUCCESS)
        e = clGetDeviceInfo(cl->device, CL_DEVICE_SINGLE_FP_CONFIG, sizeof fp, &fp, NULL);
    if (e != CL_SUCCESS)
        return cl_check(ctx, e, "clGetDeviceInfo");
    cl->base.max_wg = max_wg;
    cl->base.max_alloc = max_alloc;
    cl->base.local_mem = local_mem;
    cl->cr_divide_sqrt = (fp & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT) != 0;
    snprintf(ctx->device_name, sizeof ctx->device_name, "%.180s (%.60s)", name, vendor);
    return RAID_OK;
}

/* ---- discovery: the platforms and devices, found once per process ---- */

#define MAX_PLATFORMS 16
#define MAX_DEVICES 16

/* What clGetPlatformIDs and clGetDeviceIDs gave, once: every platform's devices of all types and its
 * GPUs (the order each call gives, which is the order of the "opencl:P.D" specs and of raid_devices). */
typedef struct discovery {
    int none;   /* no platform: the count's call failed (-1001, CL_PLATFORM_NOT_FOUND_KHR: no ICD) or gave 0 */
    cl_int err; /* the list's call: CL_SUCCESS or its error */
    cl_uint np;
    cl_platform_id plats[MAX_PLATFORMS];
    cl_int err_all[MAX_PLATFORMS], err_gpu[MAX_PLATFORMS]; /* clGetDeviceIDs' errors */
    cl_uint nall[MAX_PLATFORMS], ngpu[MAX_PLATFORMS];
    cl_device_id all[MAX_PLATFORMS][MAX_DEVICES], gpu[MAX_PLATFORMS][MAX_DEVICES];
} discovery;

static discovery found;
static pthread_once_t found_once = PTHREAD_ONCE_INIT;

/* The one place that enumerates platforms and devices, run once per process by pthread_once. The first
 * of these calls starts the driver, and a driver's start-up need not be safe against itself: PoCL 3.1's
 * (pocl_init_devices) returns CL_SUCCESS at once to a second thread that enters it while the first is
 * still inside, so that thread found no device (RAID_ENODEV) or a half-initialised one (a segfault in
 * clGetDeviceInfo) when 16 threads created their first contexts at once (tests/test_threads.c). After
 * this the driver has started and the lists are only read. Context creation and kernel builds stay
 * concurrent: the OpenCL API is thread-safe once started (OpenCL 1.2 appendix A.2), PoCL serialises its
 * compiler itself, and the test builds kernels on 16 new contexts at once. Devices that appear later in
 * the life of the process are not seen. */
static void discover(void)
{
    discovery *d = &found;
    cl_uint np = 0;
    if (clGetPlatformIDs(0, NULL, &np) != CL_SUCCESS || np == 0) {
        d->none = 1;
        return;
    }
    if (np > MAX_PLATFORMS)
        np = MAX_PLATFORMS;
    if ((d->err = clGetPlatformIDs(np, d->plats, NULL)) != CL_SUCCESS)
        return;
    d->np = np;
    for (cl_uint p = 0; p < np; p++) {
        d->err_all[p] = clGetDeviceIDs(d->plats[p], CL_DEVICE_TYPE_ALL, MAX_DEVICES, d->all[p], &d->nall[p]);
        if (d->err_all[p] != CL_SUCCESS)
            d->nall[p] = 0;
        d->err_gpu[p] = clGetDeviceIDs(d->plats[p], CL_DEVICE_TYPE_GPU, MAX_DEVICES, d->gpu[p], &d->ngpu[p]);
        if (d->err_gpu[p] != CL_SUCCESS)
            d->ngpu[p] = 0;
        if (d->nall[p] > MAX_DEVICES)
            d->nall[p] = MAX_DEVICES;
        if (d->ngpu[p] > MAX_DEVICES)
            d->ngpu[p] = MAX_DEVICES;
    }
}

/* The process's platforms and devices (discovered at the first call, by one thread; the others wait). */
static const discovery *discovered(void)
{
    pthread_once(&found_once, discover);
    return &found;
}

raid_status raidOpenclOpen(raid_ctx *ctx, int platform, int device, int any_type)
{
    const discovery *dv = discovered();
    const cl_uint np = dv->np;
    if (dv->none)
        return raidFail(ctx, RAID_ENODEV, "no OpenCL platform found (is an ICD such as pocl-opencl-icd installed?)");
    if (dv->err != CL_SUCCESS)
        return cl_check(ctx, dv->err, "clGetPlatformIDs");

    cl_platform_id chosen_p = NULL;
    cl_device_id chosen_d = NULL;
    for (cl_uint p = 0; p < np && !chosen_d; p++) {
        if (platform >= 0 && (cl_uint)platform != p)
            continue;
        const int all = platform >= 0 || any_type;
        const cl_int e = all ? dv->err_all[p] : dv->err_gpu[p];
        const cl_uint nd = all ? dv->nall[p] : dv->ngpu[p];
        const cl_device_id *devs = all ? dv->all[p] : dv->gpu[p];
        if (e == CL_DEVICE_NOT_FOUND || (e == CL_SUCCESS && nd == 0))
            continue;
        if (e != CL_SUCCESS)
            return cl_check(ctx, e, "clGetDeviceIDs");
        if (platform >= 0) {
            if (device < 0 || (cl_uint)device >= nd)
                return raidFail(ctx, RAID_ENODEV, "OpenCL platform %d has no device %d (it has %u)", platform,
                                 device, nd);
            chosen_d = devs[device];
        } else {
            chosen_d = devs[0];
        }
        chosen_p = dv->plats[p];
    }
    if (!chosen_d) {
        if (platform >= 0 && (cl_uint)platform >= np)
            return raidFail(ctx, RAID_ENODEV, "no OpenCL platform %d (there are %u)", platform, np);
        return raidFail(ctx, RAID_ENODEV, any_type ? "no OpenCL device found" : "no OpenCL GPU found");
    }

    ClDev *cl = calloc(1, sizeof *cl);
    if (!cl)
        return raidFail(ctx, RAID_ENOMEM, "out of memory");
    cl->platform = chosen_p;
    cl->device = chosen_d;
    cl->base.ops = &opencl_ops;
    raidKcacheInit(&cl->base);
    ctx->dev = &cl->base;
    raid_status s = query_device(ctx, cl);
    if (s != RAID_OK)
        return s;
    cl_int e;
    cl->context = clCreateContext(NULL, 1, &cl->device, NULL, NULL, &e);
    if (e != CL_SUCCESS)
        return cl_check(ctx, e, "clCreateContext");
    cl->queue = clCreateCommandQueue(cl->context, cl->device, CL_QUEUE_PROFILING_ENABLE, &e);
    if (e != CL_SUCCESS)
        return cl_check(ctx, e, "clCreateCommandQueue");
    return RAID_OK;
}

/* kernel_release (backend.h): the kernel and its program. */
static void kernel_release(RaidDev *dev, RaidKernel *k)
{
    (void)dev;
    clReleaseKernel(k->kernel);
    clReleaseProgram(k->program);
}

static void dev_close(RaidDev *dev)
{
    ClDev *cl = (ClDev *)dev;
    if (!cl)
        return;
    if (cl->queue)
        clFinish(cl->queue);
    raidKcacheClear(dev);
    raidPoolClear(dev);
    if (cl->queue)
        clReleaseCommandQueue(cl->queue);
    if (cl->context)
        clReleaseContext(cl->context);
    free(cl);
}

static raid_status dev_flush(raid_ctx *ctx)
{
    cl_int e = clFlush(cl_of(ctx)->queue);
    if (raidDevFault(ctx, RAID_FAULT_SYNC, "clFlush"))
        e = CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST;
    return cl_check(ctx, e, "clFlush");
}

static raid_status dev_finish(raid_ctx *ctx)
{
    cl_int e = clFinish(cl_of(ctx)->queue); /* an injected failure still waits, as a failed command's wait does */
    if (raidDevFault(ctx, RAID_FAULT_SYNC, "clFinish"))
        e = CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST;
    return cl_check(ctx, e, "clFinish");
}

static void dev_drain(raid_ctx *ctx) { (void)clFinish(cl_of(ctx)->queue); }

/* ---- kernels ---- */

/* The disk cache's key of a program (kcache.c): backend, platform, device and driver, the build options and
 * the full source text, so that another driver, device or source is another entry. NULL when out of memory. */
static char *disk_key(const ClDev *cl, const char *opts, const char *const *srcs, cl_uint ns)
{
    char plat[256] = "", dev[256] = "", drv[128] = "", ver[128] = "";
    clGetPlatformInfo(cl->platform, CL_PLATFORM_VERSION, sizeof plat - 1, plat, NULL);
    clGetDeviceInfo(cl->device, CL_DEVICE_NAME, sizeof dev - 1, dev, NULL);
    clGetDeviceInfo(cl->device, CL_DRIVER_VERSION, sizeof drv - 1, drv, NULL);
    clGetDeviceInfo(cl->device, CL_DEVICE_VERSION, sizeof ver - 1, ver, NULL);
    size_t klen = 64 + strlen(plat) + strlen(dev) + strlen(drv) + strlen(ver) + strlen(opts);
    for (cl_uint i = 0; i < ns; i++)
        klen += strlen(srcs[i]);
    char *key = malloc(klen);
    if (!key)
        return NULL;
    size_t at = (size_t)snprintf(key, klen, "opencl\n%s\n%s\n%s\n%s\n%s\n", plat, dev, drv, ver, opts);
    for (cl_uint i = 0; i < ns; i++) {
        const size_t n = strlen(srcs[i]);
        memcpy(key + at, srcs[i], n);
        at += n;
    }
    key[at] = 0;
    return key;
}

/* The program of dkey from the disk cache, built (a binary still needs clBuildProgram), or NULL: no entry, or
 * one the driver refuses (another driver's format, a damaged file), which is then rebuilt from source and
 * overwritten, never trusted. */
static cl_program program_from_disk(ClDev *cl, const char *dkey, const char *opts)
{
    void *bin = NULL;
    size_t len = 0;
    if (!dkey || !raidKcacheLoad(dkey, &bin, &len))
        return NULL;
    const unsigned char *b = bin;
    cl_int st = CL_INVALID_BINARY, e;
    cl_program prog = clCreateProgramWithBinary(cl->context, 1, &cl->device, &len, &b, &st, &e);
    free(bin);
    if (e != CL_SUCCESS || st != CL_SUCCESS || clBuildProgram(prog, 1, &cl->device, opts, NULL, NULL) != CL_SUCCESS) {
        if (e == CL_SUCCESS)
            clReleaseProgram(prog);
        return NULL;
    }
    return prog;
}

/* prog's binary into the disk cache under dkey (nothing when the driver gives none or the disk refuses). */
static void program_to_disk(cl_program prog, const char *dkey)
{
    size_t len = 0;
    if (!dkey || clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof len, &len, NULL) != CL_SUCCESS || !len)
        return;
    unsigned char *bin = malloc(len);
    if (!bin)
        return;
    unsigned char *bins[1] = {bin};
    if (clGetProgramInfo(prog, CL_PROGRAM_BINARIES, sizeof bins, bins, NULL) == CL_SUCCESS)
        (void)raidKcacheStore(dkey, bin, len);
    free(bin);
}

/* kernel_build (backend.h): the program of the prelude and src, built for the device (or its binary from the
 * disk cache: NVIDIA's OpenCL takes seconds to build the larger programs, and every new context builds its
 * own), and its kernel. */
static raid_status kernel_build(raid_ctx *ctx, const char *label, const char *src, uint64_t src_hash,
                                const char *name, const char *options, char *key, int injected, RaidKernel **out)
{
    ClDev *cl = cl_of(ctx);
    /* the prelude and the file's own headers (kernels/prelude.txt), then the file */
    const char *srcs[RAID_PRELUDE_MAX + 2];
    const char *names[RAID_PRELUDE_MAX];
    const int nh = raidKernelHeaders(label, names, RAID_PRELUDE_MAX);
    cl_uint ns = 0;
    for (int i = 0; i < nh; i++)
        if (!(srcs[ns++] = raidKernelSource(names[i])))
            src = NULL;
    if (!src || nh < 0) { /* (more headers than RAID_PRELUDE_MAX: not built) */
        free(key);
        return raidFail(ctx, RAID_EINVAL, "no embedded kernel source '%s'", label);
    }
    /* #line makes the build log's line numbers those of the kernel file. */
    char line[160];
    snprintf(line, sizeof line, "\n#line 1 \"%.100s\"\n", label);
    srcs[ns++] = line;
    srcs[ns++] = src;
    cl_int e;
    /* Never -cl-fast-relaxed-math, -cl-mad-enable or -cl-unsafe-math-optimizations: the error-free
     * transforms need exact IEEE rounding. FP_CONTRACT OFF is also set in every kernel file. */
    /* Float division and sqrt correctly rounded where the device can (OpenCL C allows 2.5 and 3 ulp without
     * the option, and NVIDIA's OpenCL takes that licence): then a kernel's bits are the same on every
     * backend, CUDA's (NVRTC's -prec-div and -prec-sqrt are on by default) and PoCL's. Without it, on an
     * H100, the moving variance, the regression statistics, HAR and GARCH differed from CUDA's in their last
     * bits (test_backend_parity). */
    const size_t olen = (options ? strlen(options) : 0) + 80;
    char *opts = malloc(olen);
    if (!opts) {
        free(key);
        return raidFail(ctx, RAID_ENOMEM, "out of memory");
    }
    snprintf(opts, olen, "-cl-std=CL1.2%s %s", cl->cr_divide_sqrt ? " -cl-fp32-correctly-rounded-divide-sqrt" : "",
             options ? options : "");
    /* the disk cache, except for an injected failure and for -cl-nv-verbose, whose point is the build log (a
     * binary's build has none) */
    char *dkey = injected || strstr(opts, "-cl-nv-verbose") ? NULL : disk_key(cl, opts, srcs, ns);
    cl_program prog = program_from_disk(cl, dkey, opts);
    if (prog) {
        cl->base.kc.stats.disk_hits++;
        e = CL_SUCCESS;
    } else {
        prog = clCreateProgramWithSource(cl->context, ns, srcs, NULL, &e);
        if (e != CL_SUCCESS) {
            free(dkey);
            free(opts);
            free(key);
            return cl_check(ctx, e, "clCreateProgramWithSource");
        }
        e = injected ? CL_BUILD_PROGRAM_FAILURE : clBuildProgram(prog, 1, &cl->device, opts, NULL, NULL);
        if (e == CL_SUCCESS)
            program_to_disk(prog, dkey);
    }
    free(dkey);
    if (e != CL_SUCCESS) {
        size_t len = 0;
        clGetProgramBuildInfo(prog, cl->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &len);
        char *log = malloc(len + 1);
        if (log) {
            log[0] = 0;
            clGetProgramBuildInfo(prog, cl->device, CL_PROGRAM_BUILD_LOG, len, log, NULL);
            log[len] = 0;
        }
        raid_status s = raidFail(ctx, RAID_EBUILD, "building kernels/%s (%s) failed with %s (%d):\n%s", label,
                                  opts, cl_err_name(e), (int)e, log && *log ? log : "(no build log)");
        free(log);
        free(opts);
        free(key);
        clReleaseProgram(prog);
        return s;
    }
    free(opts);
    cl_kernel kern = clCreateKernel(prog, name, &e);
    if (e != CL_SUCCESS) {
        free(key);
        clReleaseProgram(prog);
        return cl_check(ctx, e, "clCreateKernel");
    }
    RaidKernel *k = calloc(1, sizeof *k);
    if (!k) {
        free(key);
        clReleaseKernel(kern);
        clReleaseProgram(prog);
        return raidFail(ctx, RAID_ENOMEM, "out of memory");
    }
    k->program = prog;
    k->kernel = kern;
    raidKcacheAdd(&cl->base, k, key, src_hash);
    *out = k;
    return RAID_OK;
}

static size_t kernel_build_log(raid_ctx *ctx, const RaidKernel *k, char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = 0;
    clGetProgramBuildInfo(k->program, cl_of(ctx)->device, CL_PROGRAM_BUILD_LOG, len, buf, &n);
    return n;
}

/* get_usage (backend.h): OpenCL wraps none of the caller's memory (buf_wrap). */
static void dev_get_usage(const raid_ctx *ctx, RaidDevUsage *u)
{
    (void)ctx;
    u->wrapped = 0;
}

/* arg_value (backend.h). */
static raid_status set_arg(raid_ctx *ctx, RaidKernel *k, unsigned i, const void *v, size_t size)
{
    cl_int e = clSetKernelArg(k->kernel, i, size, v);
    return e == CL_SUCCESS ? RAID_OK : cl_check(ctx, e, "clSetKernelArg");
}

static raid_status arg_buf(raid_ctx *ctx, RaidKernel *k, unsigned i, const RaidBuf *b)
{
    const cl_mem m = (cl_mem)b->h;
    return set_arg(ctx, k, i, &m, sizeof m);
}

static raid_status launch(raid_ctx *ctx, RaidKernel *k, unsigned dims, const size_t *global, const size_t *local,
                        RaidEvent *ev)
{
    assert(dims >= 1 && dims <= 3);
    cl_int e = raidDevFault(ctx, RAID_FAULT_LAUNCH, "clEnqueueNDRangeKernel")
                   ? CL_OUT_OF_RESOURCES
                   : clEnqueueNDRangeKernel(cl_of(ctx)->queue, k->kernel, dims, NULL, global, local, 0, NULL,
                                            ev ? (cl_event *)&ev->h : NULL);
    if (e != CL_SUCCESS)
        return cl_check(ctx, e, "clEnqueueNDRangeKernel");
    event_made(ev);
    return RAID_OK;
}

/* ---- events ---- */

static raid_status event_wait(raid_ctx *ctx, const RaidEvent *ev)
{
    cl_event e = (cl_event)ev->h;
    cl_int r = clWaitForEvents(1, &e);
    if (raidDevFault(ctx, RAID_FAULT_SYNC, "clWaitForEvents"))
        r = CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST;
    return r == CL_SUCCESS ? RAID_OK : cl_check(ctx, r, "clWaitForEvents");
}

static double event_seconds(const RaidEvent *ev)
{
    cl_ulong t0 = 0, t1 = 0;
    cl_event e = (cl_event)ev->h;
    if (!e || clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_START, sizeof t0, &t0, NULL) != CL_SUCCESS ||
        clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_END, sizeof t1, &t1, NULL) != CL_SUCCESS)
        return 0.0;
    return t1 > t0 ? 1e-9 * (double)(t1 - t0) : 0.0;
}

/* event_release (backend.h). */
static void event_release(RaidEvent *ev) { clReleaseEvent((cl_event)ev->h); }

/* ---- buffers ---- */

/* mem_alloc (backend.h): a cl_mem of sz bytes; an injected failure is the allocation's failure. */
static raid_status mem_alloc(raid_ctx *ctx, size_t sz, int injected, void **mem)
{
    *mem = NULL;
    if (injected)
        return cl_check(ctx, CL_MEM_OBJECT_ALLOCATION_FAILURE, "clCreateBuffer");
    cl_int e;
    cl_mem m = clCreateBuffer(cl_of(ctx)->context, CL_MEM_READ_WRITE, sz, NULL, &e);
    if (e != CL_SUCCESS)
        return cl_check(ctx, e, "clCreateBuffer");
    *mem = m;
    return RAID_OK;
}

/* mem_free (backend.h): OpenCL keeps a released buffer alive until the commands using it are done. */
static void mem_free(RaidDev *dev, void *mem)
{
    (void)dev;
    clReleaseMemObject((cl_mem)mem);
}

/* buf_transfer (backend.h): an upload (write = 1) or read-back of elements [first, first + n) of b. */
static raid_status transfer(raid_ctx *ctx, const RaidBuf *b, size_t first, size_t n, void *host, int blocking,
                            RaidEvent *ev, int write)
{
    const size_t es = raidDtypeSize(b->type);
    assert(first + n <= b->n);
    const cl_bool bl = blocking ? CL_TRUE : CL_FALSE;
    cl_event *e_out = ev ? (cl_event *)&ev->h : NULL;
    const char *what = write ? "clEnqueueWriteBuffer" : "clEnqueueReadBuffer";
    cl_int e = raidDevFault(ctx, write ? RAID_FAULT_UPLOAD : RAID_FAULT_DOWNLOAD, what) ? CL_OUT_OF_RESOURCES
               : write ? clEnqueueWriteBuffer(cl_of(ctx)->queue, (cl_mem)b->h, bl, first * es, n * es, host, 0, NULL, e_out)
                       : clEnqueueReadBuffer(cl_of(ctx)->queue, (cl_mem)b->h, bl, first * es, n * es, host, 0, NULL, e_out);
    if (e != CL_SUCCESS)
        return cl_check(ctx, e, what);
    event_made(ev);
    return RAID_OK;
}

static raid_status buf_fill(raid_ctx *ctx, const RaidBuf *b, const void *value, RaidEvent *ev)
{
    const size_t es = raidDtypeSize(b->type);
    if (b->n == 0)
        return RAID_OK;
    cl_int e = raidDevFault(ctx, RAID_FAULT_LAUNCH, "clEnqueueFillBuffer")
                   ? CL_OUT_OF_RESOURCES
                   : clEnqueueFillBuffer(cl_of(ctx)->queue, (cl_mem)b->h, value, es, 0, b->n * es, 0, NULL,
                                         ev ? (cl_event *)&ev->h : NULL);
    if (e != CL_SUCCESS)
        return cl_check(ctx, e, "clEnqueueFillBuffer");
    event_made(ev);
    return RAID_OK;
}

static raid_status buf_copy(raid_ctx *ctx, const RaidBuf *dst, size_t dfirst, const RaidBuf *src, size_t sfirst,
                            size_t n, RaidEvent *ev)
{
    const size_t es = raidDtypeSize(src->type);
    assert(raidDtypeSize(dst->type) == es && sfirst + n <= src->n && dfirst + n <= dst->n);
    cl_int e = raidDevFault(ctx, RAID_FAULT_LAUNCH, "clEnqueueCopyBuffer")
                   ? CL_OUT_OF_RESOURCES
                   : clEnqueueCopyBuffer(cl_of(ctx)->queue, (cl_mem)src->h, (cl_mem)dst->h, sfirst * es, dfirst * es,
                                         n * es, 0, NULL, ev ? (cl_event *)&ev->h : NULL);
    if (e != CL_SUCCESS)
        return cl_check(ctx, e, "clEnqueueCopyBuffer");
    event_made(ev);
    return RAID_OK;
}

/* OpenCL has no address of a caller's memory to wrap (raidMemKindOf never calls memory of an OpenCL
 * context device memory, so no capability asks). */
static raid_status buf_wrap(raid_ctx *ctx, const void *p, RaidDtype t, size_t n, RaidBuf *out)
{
    (void)p, (void)n;
    *out = (RaidBuf){NULL, 0, t};
    return raidFail(ctx, RAID_EINVAL, "an OpenCL context cannot use the caller's device memory in place");
}

/* host_alloc (backend.h): a buffer of host-allocated (page-locked where the driver can) memory, mapped
 * for good; none past the allocation limit. */
static int host_alloc(raid_ctx *ctx, size_t sz, void **mem, void **host)
{
    ClDev *cl = cl_of(ctx);
    if (sz > cl->base.max_alloc)
        return -1;
    cl_int e;
    cl_mem m = clCreateBuffer(cl->context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, sz, NULL, &e);
    if (e != CL_SUCCESS)
        return -1;
    void *p = clEnqueueMapBuffer(cl->queue, m, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, sz, 0, NULL, NULL, &e);
    if (e != CL_SUCCESS || !p) {
        clReleaseMemObject(m);
        return -1;
    }
    *mem = m;
    *host = p;
    return 0;
}

/* host_free (backend.h): unmapped (and the unmap finished) before the buffer is released. */
static void host_free(RaidDev *dev, void *mem, void *host)
{
    ClDev *cl = (ClDev *)dev;
    if (cl->queue) {
        clEnqueueUnmapMemObject(cl->queue, (cl_mem)mem, host, 0, NULL, NULL);
        clFinish(cl->queue);
    }
    clReleaseMemObject((cl_mem)mem);
}

static const RaidDevOps opencl_ops = {
    .name = "opencl", .close = dev_close, .flush = dev_flush, .finish = dev_finish, .drain = dev_drain,
    .buf_release = raidPoolBufRelease, .buf_transfer = transfer, .buf_fill = buf_fill, .buf_copy = buf_copy,
    .buf_wrap = buf_wrap, .kernel_build = kernel_build, .build_what = "clBuildProgram",
    .arg_buf = arg_buf, .arg_value = set_arg, .launch = launch, .kernel_build_log = kernel_build_log,
    .get_usage = dev_get_usage, .event_wait = event_wait, .event_seconds = event_seconds,
    .event_release = event_release, .kernel_release = kernel_release, .alloc_what = "clCreateBuffer",
    .mem_alloc = mem_alloc, .mem_free = mem_free, .host_alloc = host_alloc, .host_free = host_free,
};

/* ---- the device list (raid/core.h) ---- */

const char *raidOpenclAbsent(void)
{
    const discovery *dv = discovered();
    for (cl_uint p = 0; p < dv->np; p++)
        if (dv->nall[p])
            return NULL;
    return dv->none ? "no OpenCL platform found" : "no OpenCL device found";
}

void raidOpenclDevices(raid_device_info *out, size_t cap, size_t *count)
{
    const discovery *dv = discovered();
    for (cl_uint p = 0; p < dv->np; p++) {
        const cl_device_id *devs = dv->all[p];
        const cl_uint nd = dv->nall[p];
        for (cl_uint d = 0; d < nd; d++) {
            if (*count < cap && out) {
                raid_device_info *x = &out[*count];
                memset(x, 0, sizeof *x);
                x->backend = RAID_BACKEND_OPENCL;
                x->platform = (int)p;
                x->device = (int)d;
                snprintf(x->spec, sizeof x->spec, "opencl:%d.%d", (int)p, (int)d);
                clGetPlatformInfo(dv->plats[p], CL_PLATFORM_NAME, sizeof x->platform_name, x->platform_name, NULL);
                clGetDeviceInfo(devs[d], CL_DEVICE_NAME, sizeof x->name, x->name, NULL);
                cl_device_type t = 0;
                clGetDeviceInfo(devs[d], CL_DEVICE_TYPE, sizeof t, &t, NULL);
                snprintf(x->type, sizeof x->type, "%s",
                         (t & CL_DEVICE_TYPE_GPU) ? "gpu"
                         : (t & CL_DEVICE_TYPE_CPU) ? "cpu"
                         : (t & CL_DEVICE_TYPE_ACCELERATOR) ? "accelerator" : "other");
                cl_uint cu = 0;
                clGetDeviceInfo(devs[d], CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cu, &cu, NULL);
                x->compute_units = cu;
                cl_ulong mem = 0;
                clGetDeviceInfo(devs[d], CL_DEVICE_GLOBAL_MEM_SIZE, sizeof mem, &mem, NULL);
                x->global_mem_bytes = mem;
                cl_device_fp_config fp = 0;
                clGetDeviceInfo(devs[d], CL_DEVICE_DOUBLE_FP_CONFIG, sizeof fp, &fp, NULL);
                x->has_fp64 = fp != 0;
            }
            (*count)++;
        }
    }
}
