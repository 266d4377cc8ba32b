/* The context's state that every layer reads or sets, none of it the device's: its backend and device
 * name, the last error, the precision policy, the chunk plan's lengths, the timing of the last call, and
 * the progress reports (raidProgressReport, called by io's table reader, models and ta while they work).
 * Creation, destruction, the device's selection and raid_ctx_set_chunk (which asks the device for its
 * work-group limit) are src/context/ctx.c's: core knows no device. */
#include "core/internal.h"

#include <string.h>

raid_backend raid_ctx_backend(const raid_ctx *ctx) { return ctx->backend; }
const char *raid_ctx_device_name(const raid_ctx *ctx) { return ctx->device_name; }
const char *raid_ctx_errmsg(const raid_ctx *ctx) { return ctx ? ctx->errmsg : ""; }

raid_status raid_ctx_set_precision(raid_ctx *ctx, raid_precision p)
{
    if (!ctx || (p != RAID_PREC_F32 && p != RAID_PREC_DF))
        return raidFail(ctx, RAID_EINVAL, "unknown precision policy %d", (int)p);
    ctx->precision = p;
    return RAID_OK;
}

raid_precision raid_ctx_precision(const raid_ctx *ctx) { return ctx ? ctx->precision : RAID_PREC_DF; }

void raid_ctx_chunk(const raid_ctx *ctx, size_t *chunk_len, size_t *wg_width)
{
    if (chunk_len)
        *chunk_len = ctx->chunk_len;
    if (wg_width)
        *wg_width = ctx->wg_width;
}

void raid_ctx_last_timing(const raid_ctx *ctx, raid_timing *t) { *t = ctx->timing; }

raid_status raid_ctx_set_progress(raid_ctx *ctx, raid_progress_fn fn, void *user)
{
    if (!ctx)
        return raidFail(NULL, RAID_EINVAL, "raid_ctx_set_progress: ctx is NULL");
    memset(&ctx->progress, 0, sizeof ctx->progress);
    ctx->progress.fn = fn;
    ctx->progress.user = user;
    return RAID_OK;
}

void raidProgressReport(raid_ctx *ctx, uint64_t done, uint64_t total, const char *unit)
{
    RaidProgressState *p = &ctx->progress;
    const double now = raidNow();
    /* a new phase: a new unit, or the same one counted again from below the last report */
    const int phase = !p->unit || (p->unit != unit && strcmp(p->unit, unit)) || done < p->done;
    if (!phase) {
        if (done == p->done && total == p->total)
            return; /* nothing new */
        if (!(total && done >= total) && now - p->last < RAID_PROGRESS_INTERVAL)
            return;
    }
    p->unit = unit;
    p->done = done;
    p->total = total;
    p->last = now;
    p->fn(p->user, done, total, unit);
}
