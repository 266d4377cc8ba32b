/* raid_tuning_set (include/raid/tuning.h): the knobs of a context, core's (ctx->tuning,
 * src/core/tuning.c) and the device layer's kernel cache capacity, hence above both. */
#include "core/internal.h"
#include "device/device.h"

raid_status raid_tuning_set(raid_ctx *ctx, raid_tuning_knob knob, int64_t value)
{
    if (!ctx)
        return raidFail(NULL, RAID_EINVAL, "%s: ctx is NULL", __func__);
    raid_status s = raidTuningKnobs(ctx);
    if (s != RAID_OK)
        return s;
    switch (knob) {
    case RAID_TUNE_KERNEL_REPEAT:
        if (value < 1 || value > 1000000)
            return raidFail(ctx, RAID_EINVAL, "kernel repeat %lld is not in [1, 1e6]", (long long)value);
        ctx->tuning->kernel_repeat = (int)value;
        return RAID_OK;
    case RAID_TUNE_MAX_BATCH_ELEMS:
        if (value < 0)
            return raidFail(ctx, RAID_EINVAL, "negative batch size %lld", (long long)value);
        ctx->tuning->max_batch_elems = (size_t)value;
        return RAID_OK;
    case RAID_TUNE_DIRECT_UPLOAD:
        if (value != 0 && value != 1)
            return raidFail(ctx, RAID_EINVAL, "RAID_TUNE_DIRECT_UPLOAD takes 0 or 1, not %lld", (long long)value);
        ctx->tuning->direct_upload = (int)value;
        return RAID_OK;
    case RAID_TUNE_MEAT_ROWS:
        if (value != 0 && value != 1)
            return raidFail(ctx, RAID_EINVAL, "RAID_TUNE_MEAT_ROWS takes 0 or 1, not %lld", (long long)value);
        ctx->tuning->meat_rows = (int)value;
        return RAID_OK;
    case RAID_TUNE_GROUPBY_PATH:
        if (value < 0 || value > 12)
            return raidFail(ctx, RAID_EINVAL, "RAID_TUNE_GROUPBY_PATH takes 0 to 12, not %lld", (long long)value);
        if (value == 3 || (value >= 5 && value <= 8) || value >= 10)
            return raidFail(ctx, RAID_EINVAL, "RAID_TUNE_GROUPBY_PATH %lld: a removed variant (reserved; "
                             "docs/groupby.md)", (long long)value);
        ctx->tuning->groupby_path = (int)value;
        return RAID_OK;
    case RAID_TUNE_SELECT_PATH:
        if (value < 0 || value > 2)
            return raidFail(ctx, RAID_EINVAL, "RAID_TUNE_SELECT_PATH takes 0 to 2, not %lld", (long long)value);
        ctx->tuning->select_path = (int)value;
        return RAID_OK;
    case RAID_TUNE_KERNEL_CACHE_CAP:
        if (!ctx->dev)
            return raidFail(ctx, RAID_EUNSUPPORTED, "the cpu backend has no kernel cache");
        if (value < 0)
            return raidFail(ctx, RAID_EINVAL, "negative kernel cache capacity %lld", (long long)value);
        raidKernelCacheSetCapacity(ctx, (size_t)value);
        return RAID_OK;
    }
    return raidFail(ctx, RAID_EINVAL, "unknown tuning knob %d", (int)knob);
}
