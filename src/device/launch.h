/*
 * The launch plan: the one way a device path sets up and runs a kernel, built only on device.h's
 * primitives (raidKernelGet, raidArg*, raidLaunch, raidEvent*), so it is the same on every backend.
 * docs/device.md, "How a capability's device path is built", is the guide.
 *
 * A plan holds a kernel, its global and local sizes and the status of the first call that failed. Its
 * arguments are bound by position in one statement, from a list of tagged values:
 *
 *     RaidLaunch L;
 *     raidLaunchKernel(&L, ctx, "ta_ma.cl", "ta_ema", opts);          // held by the plan
 *     raidLaunchSize(&L, nruns, 64);                                   // 1-D, rounded up to whole groups
 *     RAID_LAUNCH_ARGS(&L, 0, RAID_ARG_BUF(&x), RAID_ARG_BUF(&runs), RAID_ARG_I32(n), RAID_ARG_F32(a));
 *     raidLaunchRun(&L, &ctx->timing.kernel_s);                        // launch, wait, time
 *     st = raidLaunchEnd(&L);                                          // the first failure; kernel put
 *
 * Each step does nothing once a step has failed, so a path tests one status at the end: the first failing
 * call's status, whose message (through raidFail, in the device layer) is still the context's, since
 * nothing runs after it. A kernel that is launched again with other values binds them again (cached kernels
 * are shared: every argument is set before each launch). Any other device call of the path (an acquire, a
 * transfer) folds into the plan with RAID_LAUNCH_CALL. No allocation: a plan lives on the caller's stack.
 */
#ifndef RAID_DEVICE_LAUNCH_H
#define RAID_DEVICE_LAUNCH_H

#include "device/device.h"

#include <stddef.h>
#include <stdint.h>

/* A kernel argument's type (the kernel's parameter: a buffer, float, int, uint, long). */
typedef enum RaidArgKind { RAID_ARGK_BUF, RAID_ARGK_F32, RAID_ARGK_I32, RAID_ARGK_U32, RAID_ARGK_I64 } RaidArgKind;

/* One kernel argument: its type and value (a buffer by address: it must outlive the binding statement). */
typedef struct RaidArg {
    RaidArgKind kind;
    union {
        const RaidBuf *buf;
        float f32;
        int32_t i32;
        uint32_t u32;
        int64_t i64;
    } v;
} RaidArg;

#define RAID_ARG_BUF(b) ((RaidArg){.kind = RAID_ARGK_BUF, .v.buf = (b)})
#define RAID_ARG_F32(x) ((RaidArg){.kind = RAID_ARGK_F32, .v.f32 = (float)(x)})
#define RAID_ARG_I32(x) ((RaidArg){.kind = RAID_ARGK_I32, .v.i32 = (int32_t)(x)})
#define RAID_ARG_U32(x) ((RaidArg){.kind = RAID_ARGK_U32, .v.u32 = (uint32_t)(x)})
#define RAID_ARG_I64(x) ((RaidArg){.kind = RAID_ARGK_I64, .v.i64 = (int64_t)(x)})

/* A launch plan (zero it or start it with raidLaunchKernel / raidLaunchUse). */
typedef struct RaidLaunch {
    raid_ctx *ctx;
    RaidKernel *k;        /* the kernel launched */
    int owned;            /* 1: the plan holds k (raidLaunchKernel) and raidLaunchEnd puts it */
    unsigned dims;        /* 1 .. 3 */
    size_t global[3];     /* work-items per dimension (whole work-groups) */
    size_t local[3];      /* work-group shape; local_set 0: the backend's choice */
    int local_set;
    raid_status st;       /* the first failing step's status (its message is on ctx) */
} RaidLaunch;

/* Start plan L with kernel `name` of kernels/<file> built with `options` (raidKernelGet), held by L until
 * raidLaunchEnd. Its failure (RAID_EBUILD, RAID_EINVAL, RAID_EDEVICE) becomes L's status. */
void raidLaunchKernel(RaidLaunch *L, raid_ctx *ctx, const char *file, const char *name, const char *options);
/* Start plan L with kernel k that the caller holds (and puts): e.g. a kernel used by several plans. k NULL:
 * a plan of steps without a launch (acquires, transfers folded in with RAID_LAUNCH_CALL). */
void raidLaunchUse(RaidLaunch *L, raid_ctx *ctx, RaidKernel *k);
/* One dimension: `items` work-items rounded up to whole work-groups of `wg` (wg = 0: the backend's choice
 * of group and exactly `items`). */
void raidLaunchSize(RaidLaunch *L, size_t items, size_t wg);
/* dims (1 .. 3) dimensions: global[d] work-items in groups of local[d] (local NULL: the backend's choice). */
void raidLaunchShape(RaidLaunch *L, unsigned dims, const size_t *global, const size_t *local);

/* Bind args[0 .. n) to the kernel's parameters first .. first + n - 1; nothing after a failure. */
void raidLaunchArgs(RaidLaunch *L, unsigned first, const RaidArg *args, size_t n);
#define RAID_LAUNCH_ARGS(L, first, ...)                                                                          \
    raidLaunchArgs((L), (first), (const RaidArg[]){__VA_ARGS__},                                               \
                   sizeof((const RaidArg[]){__VA_ARGS__}) / sizeof(RaidArg))
/* Fold the status of another device call into the plan (the call is made only while the plan is good):
 * RAID_LAUNCH_CALL(&L, raidBufUpload(ctx, &b, 0, n, host, 1, NULL)). */
#define RAID_LAUNCH_CALL(L, call) ((void)((L)->st == RAID_OK && ((L)->st = (call)) != RAID_OK))
/* Fold a status the caller computed (e.g. raidFail's) into the plan: the first failure wins. */
void raidLaunchFail(RaidLaunch *L, raid_status s);

/* Enqueue the kernel; ev (may be NULL) receives its event. Counts ctx->timing.launches. */
void raidLaunchGo(RaidLaunch *L, RaidEvent *ev);
/* Enqueue the kernel, wait for it and add its profiled seconds to *acc (may be NULL). */
void raidLaunchRun(RaidLaunch *L, double *acc);
/* The plan's status, the kernel's hold released (if the plan holds it): the end of every plan. */
raid_status raidLaunchEnd(RaidLaunch *L);

/* dst[j] = 8-byte word idx[j] of src, j < n (n < 2^32), into host memory: the few elements of a large device
 * input that a host step needs (the caller's device memory, wrapped: the realized measures' seams, the
 * group-by's first and last values), gathered by kernels/col_sort.cl's sort_gather and read back. Blocking;
 * the kernel's time into ctx->timing.kernel_s and prep_s. Errors: the device layer's, RAID_EBUILD. */
raid_status raidGather64(raid_ctx *ctx, const RaidBuf *src, const uint32_t *idx, size_t n, void *dst);

/* A blocking read of n elements from b's start into dst with its profiled time added to *acc (may be NULL),
 * folded into L: the read-back step of a device path. */
void raidLaunchRead(RaidLaunch *L, const RaidBuf *b, size_t n, void *dst, double *acc);

#endif
