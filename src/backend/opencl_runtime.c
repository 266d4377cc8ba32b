/* OpenCL host layer: see opencl_runtime.h. Modelled on CLBlast's split between one kernel source and a
 * thin host layer: kernels are embedded at build time (cmake/embed.cmake) and compiled at first use. */
#define _POSIX_C_SOURCE 200809L
#include "backend/opencl_runtime.h"
#include "backend/kernels_embedded.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RAID_CL_MAX_KERNELS 32
#define RAID_CL_POOL_CLASSES 48
#define RAID_CL_POOL_PER_CLASS 4

typedef struct cached_kernel {
    char key[512];
    cl_program program;
    cl_kernel kernel;
} cached_kernel;

typedef struct pool_slot {
    cl_mem mem;
    int in_use;
    void *host; /* host pool: the mapped address */
    size_t size;
} pool_slot;

struct raid_cl {
    cl_platform_id platform;
    cl_device_id device;
    cl_context context;
    cl_command_queue queue;
    size_t max_wg;
    cl_ulong max_alloc;
    cl_ulong local_mem;
    cached_kernel kernels[RAID_CL_MAX_KERNELS];
    int nkernels;
    pool_slot pool[RAID_CL_POOL_CLASSES][RAID_CL_POOL_PER_CLASS];
    pool_slot hpool[RAID_CL_POOL_CLASSES][RAID_CL_POOL_PER_CLASS]; /* page-locked host memory */
};

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

raid_status raid_cl_check(raid_ctx *ctx, cl_int err, const char *what)
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
    return raid_fail(ctx, s, "%s failed with %s (%d)%s", what, cl_err_name(err), (int)err, hint);
}

static raid_status query_device(raid_ctx *ctx, raid_cl *cl)
{
    char name[200] = "", vendor[64] = "";
    cl_int e = clGetDeviceInfo(cl->device, CL_DEVICE_NAME, sizeof name, name, NULL);
    if (e == CL_SUCCESS)
        e = clGetPlatformInfo(cl->platform, CL_PLATFORM_NAME, sizeof vendor, vendor, NULL);
    if (e == CL_SUCCESS)
        e = clGetDeviceInfo(cl->device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof cl->max_wg, &cl->max_wg, NULL);
    if (e == CL_SUCCESS)
        e = clGetDeviceInfo(cl->device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof cl->max_alloc, &cl->max_alloc,
                            NULL);
    if (e == CL_SUCCESS)
        e = clGetDeviceInfo(cl->device, CL_DEVICE_LOCAL_MEM_SIZE, sizeof cl->local_mem, &cl->local_mem, NULL);
    if (e != CL_SUCCESS)
        return raid_cl_check(ctx, e, "clGetDeviceInfo");
    snprintf(ctx->device_name, sizeof ctx->device_name, "%.180s (%.60s)", name, vendor);
    return RAID_OK;
}

raid_status raid_cl_open(raid_ctx *ctx, int platform, int device, int any_type)
{
    cl_uint np = 0;
    cl_int e = clGetPlatformIDs(0, NULL, &np);
    if (e == -1001 /* CL_PLATFORM_NOT_FOUND_KHR */ || np == 0)
        return raid_fail(ctx, RAID_ENODEV, "no OpenCL platform found (is an ICD such as pocl-opencl-icd installed?)");
    if (e != CL_SUCCESS)
        return raid_cl_check(ctx, e, "clGetPlatformIDs");
    cl_platform_id plats[16];
    if (np > 16)
        np = 16;
    if ((e = clGetPlatformIDs(np, plats, NULL)) != CL_SUCCESS)
        return raid_cl_check(ctx, e, "clGetPlatformIDs");

    cl_platform_id chosen_p = NULL;
    cl_device_id chosen_d = NULL;
    for (cl_uint p = 0; p < np && !chosen_d; p++) {
        if (platform >= 0 && (cl_uint)platform != p)
            continue;
        cl_device_id devs[16];
        cl_uint nd = 0;
        cl_device_type want = (platform >= 0 || any_type) ? CL_DEVICE_TYPE_ALL : CL_DEVICE_TYPE_GPU;
        if (platform >= 0)
            want = CL_DEVICE_TYPE_ALL;
        e = clGetDeviceIDs(plats[p], want, 16, devs, &nd);
        if (e == CL_DEVICE_NOT_FOUND || nd == 0)
            continue;
        if (e != CL_SUCCESS)
            return raid_cl_check(ctx, e, "clGetDeviceIDs");
        if (platform >= 0) {
            if (device < 0 || (cl_uint)device >= nd)
                return raid_fail(ctx, RAID_ENODEV, "OpenCL platform %d has no device %d (it has %u)", platform,
                                 device, nd);
            chosen_d = devs[device];
        } else {
            chosen_d = devs[0];
        }
        chosen_p = plats[p];
    }
    if (!chosen_d) {
        if (platform >= 0 && (cl_uint)platform >= np)
            return raid_fail(ctx, RAID_ENODEV, "no OpenCL platform %d (there are %u)", platform, np);
        return raid_fail(ctx, RAID_ENODEV, any_type ? "no OpenCL device found" : "no OpenCL GPU found");
    }

    raid_cl *cl = calloc(1, sizeof *cl);
    if (!cl)
        return raid_fail(ctx, RAID_ENOMEM, "out of memory");
    cl->platform = chosen_p;
    cl->device = chosen_d;
    ctx->cl = cl;
    raid_status s = query_device(ctx, cl);
    if (s != RAID_OK)
        return s;
    cl->context = clCreateContext(NULL, 1, &cl->device, NULL, NULL, &e);
    if (e != CL_SUCCESS)
        return raid_cl_check(ctx, e, "clCreateContext");
    cl->queue = clCreateCommandQueue(cl->context, cl->device, CL_QUEUE_PROFILING_ENABLE, &e);
    if (e != CL_SUCCESS)
        return raid_cl_check(ctx, e, "clCreateCommandQueue");
    return RAID_OK;
}

void raid_cl_close(raid_cl *cl)
{
    if (!cl)
        return;
    if (cl->queue)
        clFinish(cl->queue);
    for (int i = 0; i < cl->nkernels; i++) {
        clReleaseKernel(cl->kernels[i].kernel);
        clReleaseProgram(cl->kernels[i].program);
    }
    for (int c = 0; c < RAID_CL_POOL_CLASSES; c++)
        for (int j = 0; j < RAID_CL_POOL_PER_CLASS; j++) {
            if (cl->pool[c][j].mem)
                clReleaseMemObject(cl->pool[c][j].mem);
            pool_slot *h = &cl->hpool[c][j];
            if (h->mem) {
                if (cl->queue) {
                    clEnqueueUnmapMemObject(cl->queue, h->mem, h->host, 0, NULL, NULL);
                    clFinish(cl->queue);
                }
                clReleaseMemObject(h->mem);
            }
        }
    if (cl->queue)
        clReleaseCommandQueue(cl->queue);
    if (cl->context)
        clReleaseContext(cl->context);
    free(cl);
}

static const char *kernel_source(const char *file)
{
    for (const raid_kernel_file *k = raid_kernel_files; k->name; k++)
        if (!strcmp(k->name, file))
            return k->source;
    return NULL;
}

raid_status raid_cl_kernel(raid_ctx *ctx, const char *file, const char *name, const char *options,
                           cl_kernel *out)
{
    raid_cl *cl = ctx->cl;
    char key[512];
    snprintf(key, sizeof key, "%s|%s|%s", file, name, options ? options : "");
    for (int i = 0; i < cl->nkernels; i++)
        if (!strcmp(cl->kernels[i].key, key)) {
            *out = cl->kernels[i].kernel;
            return RAID_OK;
        }
    if (cl->nkernels == RAID_CL_MAX_KERNELS)
        return raid_fail(ctx, RAID_EINVAL, "kernel cache full (%d kernels)", RAID_CL_MAX_KERNELS);
    const char *hdr = kernel_source("raid_df.h");
    const char *src = kernel_source(file);
    if (!hdr || !src)
        return raid_fail(ctx, RAID_EINVAL, "no embedded kernel source '%s'", file);
    /* #line makes the build log's line numbers those of the kernel file. */
    char line[128];
    snprintf(line, sizeof line, "\n#line 1 \"%s\"\n", file);
    const char *srcs[3] = {hdr, line, src};
    cl_int e;
    cl_program prog = clCreateProgramWithSource(cl->context, 3, srcs, NULL, &e);
    if (e != CL_SUCCESS)
        return raid_cl_check(ctx, e, "clCreateProgramWithSource");
    /* Never -cl-fast-relaxed-math, -cl-mad-enable or -cl-unsafe-math-optimizations: the error-free
     * transforms need exact IEEE rounding. FP_CONTRACT OFF is also set in every kernel file. */
    char opts[1024];
    snprintf(opts, sizeof opts, "-cl-std=CL1.2 %s", options ? options : "");
    e = clBuildProgram(prog, 1, &cl->device, opts, NULL, NULL);
    if (e != CL_SUCCESS) {
        size_t len = 0;
        clGetProgramBuildInfo(prog, cl->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &len);
        char *log = malloc(len + 1);
        if (log) {
            log[0] = 0;
            clGetProgramBuildInfo(prog, cl->device, CL_PROGRAM_BUILD_LOG, len, log, NULL);
            log[len] = 0;
        }
        raid_status s = raid_fail(ctx, RAID_EBUILD, "building kernels/%s (%s) failed with %s (%d):\n%s", file,
                                  opts, cl_err_name(e), (int)e, log ? log : "(no build log)");
        free(log);
        clReleaseProgram(prog);
        return s;
    }
    cl_kernel k = clCreateKernel(prog, name, &e);
    if (e != CL_SUCCESS) {
        clReleaseProgram(prog);
        return raid_cl_check(ctx, e, "clCreateKernel");
    }
    cached_kernel *c = &cl->kernels[cl->nkernels++];
    snprintf(c->key, sizeof c->key, "%s", key);
    c->program = prog;
    c->kernel = k;
    *out = k;
    return RAID_OK;
}

/* The pool class of a request of bytes (> 0) and the size to allocate for it: the class's power of two, or
 * exactly bytes where that power would exceed the device's allocation limit. Device buffers and page-locked
 * host staging share the classes. */
static int pool_class(const raid_cl *cl, size_t bytes, size_t *sz)
{
    int c = 0;
    while (c < RAID_CL_POOL_CLASSES - 1 && ((size_t)1 << c) < bytes)
        c++;
    *sz = (size_t)1 << c;
    if (*sz < bytes || *sz > cl->max_alloc)
        *sz = bytes;
    return c;
}

raid_status raid_cl_acquire(raid_ctx *ctx, size_t bytes, cl_mem *out)
{
    raid_cl *cl = ctx->cl;
    if (bytes == 0)
        bytes = 1;
    size_t sz;
    const int c = pool_class(cl, bytes, &sz);
    if (bytes > cl->max_alloc)
        return raid_fail(ctx, RAID_EDEVMEM, "a buffer of %zu bytes exceeds the device's allocation limit of %llu",
                         bytes, (unsigned long long)cl->max_alloc);
    for (int j = 0; j < RAID_CL_POOL_PER_CLASS; j++) {
        pool_slot *p = &cl->pool[c][j];
        if (p->mem && !p->in_use) {
            size_t have = 0;
            clGetMemObjectInfo(p->mem, CL_MEM_SIZE, sizeof have, &have, NULL);
            if (have >= bytes) {
                p->in_use = 1;
                *out = p->mem;
                return RAID_OK;
            }
        }
    }
    cl_int e;
    cl_mem m = clCreateBuffer(cl->context, CL_MEM_READ_WRITE, sz, NULL, &e);
    if (e != CL_SUCCESS)
        return raid_cl_check(ctx, e, "clCreateBuffer");
    for (int j = 0; j < RAID_CL_POOL_PER_CLASS; j++) {
        pool_slot *p = &cl->pool[c][j];
        if (!p->mem) {
            p->mem = m;
            p->in_use = 1;
            *out = m;
            return RAID_OK;
        }
    }
    *out = m; /* the class is full: an unpooled buffer, released on return */
    return RAID_OK;
}

void raid_cl_release(raid_ctx *ctx, cl_mem m)
{
    if (!m)
        return;
    raid_cl *cl = ctx->cl;
    for (int c = 0; c < RAID_CL_POOL_CLASSES; c++)
        for (int j = 0; j < RAID_CL_POOL_PER_CLASS; j++)
            if (cl->pool[c][j].mem == m) {
                cl->pool[c][j].in_use = 0;
                return;
            }
    clReleaseMemObject(m);
}

raid_status raid_cl_acquire_host(raid_ctx *ctx, size_t bytes, void **host)
{
    raid_cl *cl = ctx->cl;
    if (bytes == 0)
        bytes = 1;
    size_t sz;
    const int c = pool_class(cl, bytes, &sz);
    for (int j = 0; j < RAID_CL_POOL_PER_CLASS; j++) {
        pool_slot *p = &cl->hpool[c][j];
        if (p->mem && !p->in_use && p->size >= bytes) {
            p->in_use = 1;
            *host = p->host;
            return RAID_OK;
        }
    }
    int j = 0;
    while (j < RAID_CL_POOL_PER_CLASS && cl->hpool[c][j].mem)
        j++;
    if (j < RAID_CL_POOL_PER_CLASS && sz <= cl->max_alloc) {
        cl_int e;
        cl_mem m = clCreateBuffer(cl->context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, sz, NULL, &e);
        if (e == CL_SUCCESS) {
            void *p = clEnqueueMapBuffer(cl->queue, m, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, sz, 0, NULL, NULL, &e);
            if (e == CL_SUCCESS && p) {
                cl->hpool[c][j] = (pool_slot){m, 1, p, sz};
                *host = p;
                return RAID_OK;
            }
            clReleaseMemObject(m);
        }
    }
    /* no page-locked memory (or the class is full): ordinary memory, freed on release */
    *host = malloc(bytes);
    return *host ? RAID_OK : raid_fail(ctx, RAID_ENOMEM, "out of memory for %zu bytes of staging", bytes);
}

void raid_cl_release_host(raid_ctx *ctx, void *host)
{
    if (!host)
        return;
    raid_cl *cl = ctx->cl;
    for (int c = 0; c < RAID_CL_POOL_CLASSES; c++)
        for (int j = 0; j < RAID_CL_POOL_PER_CLASS; j++)
            if (cl->hpool[c][j].mem && cl->hpool[c][j].host == host) {
                cl->hpool[c][j].in_use = 0;
                return;
            }
    free(host);
}

size_t raid_cl_build_log(const raid_ctx *ctx, cl_kernel k, char *buf, size_t len)
{
    raid_cl *cl = ctx->cl;
    for (int i = 0; i < cl->nkernels; i++)
        if (cl->kernels[i].kernel == k) {
            size_t n = 0;
            buf[0] = 0;
            clGetProgramBuildInfo(cl->kernels[i].program, cl->device, CL_PROGRAM_BUILD_LOG, len, buf, &n);
            return n;
        }
    return 0;
}

cl_command_queue raid_cl_queue(const raid_ctx *ctx) { return ctx->cl->queue; }
size_t raid_cl_max_wg(const raid_ctx *ctx) { return ctx->cl->max_wg; }
uint64_t raid_cl_max_alloc(const raid_ctx *ctx) { return ctx->cl->max_alloc; }
uint64_t raid_cl_local_mem(const raid_ctx *ctx) { return ctx->cl->local_mem; }

double raid_cl_event_seconds(cl_event ev)
{
    cl_ulong t0 = 0, t1 = 0;
    if (clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof t0, &t0, NULL) != CL_SUCCESS ||
        clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof t1, &t1, NULL) != CL_SUCCESS)
        return 0.0;
    return t1 > t0 ? 1e-9 * (double)(t1 - t0) : 0.0;
}

raid_status raid_devices(raid_device_info *out, size_t cap, size_t *count)
{
    *count = 0;
    cl_uint np = 0;
    if (clGetPlatformIDs(0, NULL, &np) != CL_SUCCESS || np == 0)
        return RAID_OK;
    cl_platform_id plats[16];
    if (np > 16)
        np = 16;
    if (clGetPlatformIDs(np, plats, NULL) != CL_SUCCESS)
        return RAID_OK;
    for (cl_uint p = 0; p < np; p++) {
        cl_device_id devs[16];
        cl_uint nd = 0;
        if (clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, 16, devs, &nd) != CL_SUCCESS)
            continue;
        for (cl_uint d = 0; d < nd; d++) {
            if (*count < cap && out) {
                raid_device_info *x = &out[*count];
                memset(x, 0, sizeof *x);
                x->platform = (int)p;
                x->device = (int)d;
                clGetPlatformInfo(plats[p], CL_PLATFORM_NAME, sizeof x->platform_name, x->platform_name, NULL);
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
    return RAID_OK;
}
