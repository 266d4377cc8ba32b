/*
 * The device path of element-wise binary64 expressions (include/raid/f64.h): the expression becomes the
 * body of kernels/f64.cl (F64_BODY: nested raidF64 calls, kernels/raid_f64.h), built once per expression and
 * cached like every kernel (the options are the cache key). Inputs and output go through the device layer's
 * input and output helpers: host arrays are uploaded and read back, CUDA device memory of the context is
 * read and written in place. Arrays longer than a slice are done a slice at a time (32-bit indices, bounded
 * device memory).
 */
#include "core/internal.h"
#include "device/device.h"
#include "device/launch.h"
#include "f64/f64_internal.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define SLICE ((size_t)1 << 25) /* elements per launch: 256 MiB per array */

/* Append node k of e as kernel source to buf[*at .. len): 0, or -1 when it does not fit. */
static int emit(const raid_f64_expr *e, int k, char *buf, size_t len, size_t *at)
{
    const RaidF64Node *d = &e->node[k];
    int w = 0;
    const size_t room = len - *at;
    switch (d->kind) {
    case RAID_F64N_VAR: w = snprintf(buf + *at, room, "x%d", d->var); break;
    case RAID_F64N_CONST: w = snprintf(buf + *at, room, "0x%016" PRIX64 "ul", d->bits); break;
    default: {
        w = snprintf(buf + *at, room, "%s(", raidF64Ops[d->kind].function);
        if (w < 0 || (size_t)w >= room)
            return -1;
        *at += (size_t)w;
        if (emit(e, d->a, buf, len, at))
            return -1;
        const int more[2] = {d->b, d->c};
        for (int j = 0; j < 2; j++) {
            if (more[j] < 0)
                continue;
            if (*at + 1 >= len)
                return -1;
            buf[(*at)++] = ',';
            if (emit(e, more[j], buf, len, at))
                return -1;
        }
        w = snprintf(buf + *at, len - *at, ")");
    }
    }
    if (w < 0 || (size_t)w >= len - *at)
        return -1;
    *at += (size_t)w;
    return 0;
}

/* Elements [first, first + m) of every array through the kernel k. */
static raid_status eval_slice(raid_ctx *ctx, RaidKernel *k, const raid_f64_expr *e, const double *const *inputs,
                              size_t first, size_t m, double *out)
{
    RaidBuf in[RAID_F64_MAX_VARS], ob;
    memset(in, 0, sizeof in);
    memset(&ob, 0, sizeof ob);
    RaidLaunch L;
    raidLaunchUse(&L, ctx, k);
    for (int v = 0; v < e->nvars; v++)
        RAID_LAUNCH_CALL(&L, raidBufInput(ctx, inputs[v] + first, RAID_DT_ULONG, m, "raid_f64_eval: input", &in[v], NULL));
    RAID_LAUNCH_CALL(&L, raidBufOutput(ctx, out + first, RAID_DT_ULONG, m, "raid_f64_eval: out", &ob));
    if (L.st == RAID_OK) {
        for (int v = e->nvars; v < 8; v++)
            in[v] = in[0]; /* bound, never read */
        raidLaunchSize(&L, m, 256);
        RAID_LAUNCH_ARGS(&L, 0, RAID_ARG_BUF(&in[0]), RAID_ARG_BUF(&in[1]), RAID_ARG_BUF(&in[2]), RAID_ARG_BUF(&in[3]),
                         RAID_ARG_BUF(&in[4]), RAID_ARG_BUF(&in[5]), RAID_ARG_BUF(&in[6]), RAID_ARG_BUF(&in[7]),
                         RAID_ARG_BUF(&ob), RAID_ARG_U32(m));
        raidLaunchRun(&L, &ctx->timing.kernel_s);
        RAID_LAUNCH_CALL(&L, raidBufDeliver(ctx, &ob, 0, m, out + first, "raid_f64_eval: out"));
    }
    for (int v = 0; v < e->nvars; v++)
        if (in[v].h)
            raidBufRelease(ctx, &in[v]);
    if (ob.h)
        raidBufRelease(ctx, &ob);
    return raidLaunchEnd(&L);
}

raid_status raidF64DeviceEval(raid_ctx *ctx, const raid_f64_expr *e, const double *const *inputs, size_t n,
                              double *out)
{
    memset(&ctx->timing, 0, sizeof ctx->timing);
    char opts[4096];
    size_t at = (size_t)snprintf(opts, sizeof opts, "-DF64_NIN=%d -DF64_BODY=", e->nvars);
    if (emit(e, e->nnodes - 1, opts, sizeof opts, &at))
        return raidFail(ctx, RAID_EINVAL, "raid_f64_eval: the expression is too long for a kernel");
    RaidKernel *k = NULL;
    raid_status st = raidKernelGet(ctx, "f64.cl", "f64_eval", opts, &k);
    for (size_t first = 0; st == RAID_OK && first < n; first += SLICE)
        st = eval_slice(ctx, k, e, inputs, first, n - first < SLICE ? n - first : SLICE, out);
    if (k)
        raidKernelPut(ctx, k);
    return st;
}

raid_status raidF64DeviceCompare(raid_ctx *ctx, int cmp, const double *a, const double *b, unsigned char *mask,
                                 size_t n)
{
    memset(&ctx->timing, 0, sizeof ctx->timing);
    RaidLaunch L;
    raidLaunchKernel(&L, ctx, "f64.cl", "f64_compare", "");
    for (size_t first = 0; L.st == RAID_OK && first < n; first += SLICE) {
        const size_t m = n - first < SLICE ? n - first : SLICE;
        RaidBuf ba = {0}, bb = {0}, bm = {0};
        RAID_LAUNCH_CALL(&L, raidBufInput(ctx, a + first, RAID_DT_ULONG, m, "raid_f64_compare: a", &ba, NULL));
        if (b)
            RAID_LAUNCH_CALL(&L, raidBufInput(ctx, b + first, RAID_DT_ULONG, m, "raid_f64_compare: b", &bb, NULL));
        RAID_LAUNCH_CALL(&L, raidBufOutput(ctx, mask + first, RAID_DT_BYTE, m, "raid_f64_compare: mask", &bm));
        raidLaunchSize(&L, m, 256);
        RAID_LAUNCH_ARGS(&L, 0, RAID_ARG_BUF(&ba), RAID_ARG_BUF(b ? &bb : &ba), RAID_ARG_BUF(&bm), RAID_ARG_U32(cmp),
                         RAID_ARG_U32(m));
        raidLaunchRun(&L, &ctx->timing.kernel_s);
        RAID_LAUNCH_CALL(&L, raidBufDeliver(ctx, &bm, 0, m, mask + first, "raid_f64_compare: mask"));
        if (ba.h)
            raidBufRelease(ctx, &ba);
        if (bb.h)
            raidBufRelease(ctx, &bb);
        if (bm.h)
            raidBufRelease(ctx, &bm);
    }
    return raidLaunchEnd(&L);
}

/* The log returns (raid_f64_log_returns): slices of SLICE returns, each reading its SLICE + 1 prices (the
 * last price of a slice is the first of the next), the first bad price by an atomic minimum of its index. */
raid_status raidF64DeviceLogReturns(raid_ctx *ctx, const double *prices, size_t n, double *out, size_t *bad,
                                    double *badv)
{
    memset(&ctx->timing, 0, sizeof ctx->timing);
    RaidLaunch L;
    raidLaunchKernel(&L, ctx, "f64.cl", "f64_log_returns", "");
    RaidBuf bb = {0};
    RAID_LAUNCH_CALL(&L, raidBufAcquire(ctx, RAID_DT_UINT, 1, &bb));
    const uint32_t none = UINT32_MAX;
    for (size_t first = 0; L.st == RAID_OK && first < n - 1; first += SLICE) {
        const size_t m = n - 1 - first < SLICE ? n - 1 - first : SLICE; /* returns; m + 1 prices */
        RaidBuf bp = {0}, bo = {0};
        uint32_t at = none;
        RAID_LAUNCH_CALL(&L, raidBufFill(ctx, &bb, &none, NULL));
        RAID_LAUNCH_CALL(&L, raidBufInput(ctx, prices + first, RAID_DT_ULONG, m + 1, "raid_f64_log_returns: prices", &bp,
                                          NULL));
        RAID_LAUNCH_CALL(&L, raidBufOutput(ctx, out + first, RAID_DT_ULONG, m, "raid_f64_log_returns: out", &bo));
        raidLaunchSize(&L, m + 1, 256);
        RAID_LAUNCH_ARGS(&L, 0, RAID_ARG_BUF(&bp), RAID_ARG_BUF(&bo), RAID_ARG_BUF(&bb), RAID_ARG_U32(m + 1));
        raidLaunchRun(&L, &ctx->timing.kernel_s);
        raidLaunchRead(&L, &bb, 1, &at, NULL);
        if (L.st == RAID_OK && at != none) { /* the first bad price: its value for the message */
            *bad = first + at;
            RAID_LAUNCH_CALL(&L, raidBufDownload(ctx, &bp, at, 1, badv, 1, NULL));
        } else {
            RAID_LAUNCH_CALL(&L, raidBufDeliver(ctx, &bo, 0, m, out + first, "raid_f64_log_returns: out"));
        }
        if (bp.h)
            raidBufRelease(ctx, &bp);
        if (bo.h)
            raidBufRelease(ctx, &bo);
        if (*bad < n)
            break;
    }
    if (bb.h)
        raidBufRelease(ctx, &bb);
    return raidLaunchEnd(&L);
}
