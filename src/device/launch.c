/* The launch plan (launch.h): device.h's kernel, argument, launch and event calls behind one status. */
#include "device/launch.h"

#include <string.h>

void raidLaunchKernel(RaidLaunch *L, raid_ctx *ctx, const char *file, const char *name, const char *options)
{
    memset(L, 0, sizeof *L);
    L->ctx = ctx;
    L->dims = 1;
    L->st = raidKernelGet(ctx, file, name, options, &L->k);
    L->owned = L->st == RAID_OK;
}

void raidLaunchUse(RaidLaunch *L, raid_ctx *ctx, RaidKernel *k)
{
    memset(L, 0, sizeof *L);
    L->ctx = ctx;
    L->dims = 1;
    L->k = k;
}

void raidLaunchSize(RaidLaunch *L, size_t items, size_t wg)
{
    L->dims = 1;
    L->local_set = wg != 0;
    L->local[0] = wg;
    L->global[0] = wg ? (items + wg - 1) / wg * wg : items;
}

void raidLaunchShape(RaidLaunch *L, unsigned dims, const size_t *global, const size_t *local)
{
    L->dims = dims;
    L->local_set = local != NULL;
    for (unsigned d = 0; d < dims && d < 3; d++) {
        L->global[d] = global[d];
        L->local[d] = local ? local[d] : 0;
    }
}

void raidLaunchArgs(RaidLaunch *L, unsigned first, const RaidArg *args, size_t n)
{
    for (size_t i = 0; i < n && L->st == RAID_OK; i++) {
        const unsigned at = first + (unsigned)i;
        switch (args[i].kind) {
        case RAID_ARGK_BUF: L->st = raidArgBuf(L->ctx, L->k, at, args[i].v.buf); break;
        case RAID_ARGK_F32: L->st = raidArgFloat(L->ctx, L->k, at, args[i].v.f32); break;
        case RAID_ARGK_I32: L->st = raidArgInt(L->ctx, L->k, at, args[i].v.i32); break;
        case RAID_ARGK_U32: L->st = raidArgUint(L->ctx, L->k, at, args[i].v.u32); break;
        case RAID_ARGK_I64: L->st = raidArgLong(L->ctx, L->k, at, args[i].v.i64); break;
        }
    }
}

void raidLaunchFail(RaidLaunch *L, raid_status s)
{
    if (L->st == RAID_OK)
        L->st = s;
}

void raidLaunchGo(RaidLaunch *L, RaidEvent *ev)
{
    if (L->st != RAID_OK)
        return;
    L->ctx->timing.launches++;
    L->st = raidLaunch(L->ctx, L->k, L->dims, L->global, L->local_set ? L->local : NULL, ev);
}

void raidLaunchRun(RaidLaunch *L, double *acc)
{
    RaidEvent ev = {0};
    raidLaunchGo(L, &ev);
    if (L->st == RAID_OK)
        L->st = raidEventFinish(L->ctx, &ev, acc);
    raidEventRelease(&ev);
}

void raidLaunchRead(RaidLaunch *L, const RaidBuf *b, size_t n, void *dst, double *acc)
{
    RaidEvent ev = {0};
    if (L->st == RAID_OK)
        L->st = raidBufDownload(L->ctx, b, 0, n, dst, 1, &ev);
    if (L->st == RAID_OK)
        L->st = raidEventFinish(L->ctx, &ev, acc);
    raidEventRelease(&ev);
}

raid_status raidLaunchEnd(RaidLaunch *L)
{
    if (L->owned)
        raidKernelPut(L->ctx, L->k);
    L->owned = 0;
    L->k = NULL;
    return L->st;
}

raid_status raidGather64(raid_ctx *ctx, const RaidBuf *src, const uint32_t *idx, size_t n, void *dst)
{
    if (n == 0)
        return RAID_OK;
    RaidBuf bi = {NULL, 0, RAID_DT_UINT}, bo = {NULL, 0, RAID_DT_UINT};
    double t = 0;
    RaidLaunch L;
    raidLaunchKernel(&L, ctx, "col_sort.cl", "sort_gather", "");
    RAID_LAUNCH_CALL(&L, raidBufAcquire(ctx, RAID_DT_UINT, n, &bi));
    RAID_LAUNCH_CALL(&L, raidBufAcquire(ctx, RAID_DT_UINT, 2 * n, &bo));
    RAID_LAUNCH_CALL(&L, raidBufUpload(ctx, &bi, 0, n, idx, 1, NULL));
    RAID_LAUNCH_ARGS(&L, 0, RAID_ARG_BUF(src), RAID_ARG_BUF(&bi), RAID_ARG_U32(n), RAID_ARG_BUF(&bo));
    raidLaunchSize(&L, n, 64);
    raidLaunchRun(&L, &t);
    RAID_LAUNCH_CALL(&L, raidBufDownload(ctx, &bo, 0, 2 * n, dst, 1, NULL));
    if (L.st != RAID_OK)
        raidDevDrain(ctx); /* before the buffers go back to the pool */
    const raid_status st = raidLaunchEnd(&L);
    ctx->timing.kernel_s += t;
    ctx->timing.prep_s += t;
    raidBufRelease(ctx, &bi);
    raidBufRelease(ctx, &bo);
    return st;
}
