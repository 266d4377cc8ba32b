/* Knobs and measurements for benchmarks and tests (include/raid/tuning.h): the one way they reach a
 * context. Production contexts never allocate the knobs (ctx->tuning stays NULL). */
#include "core/internal.h"
#include "device/device.h"
#include "realized/realized_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static raid_status knobs(raid_ctx *ctx)
{
    if (!ctx->tuning && !(ctx->tuning = calloc(1, sizeof *ctx->tuning)))
        return raidFail(ctx, RAID_ENOMEM, "out of memory");
    return RAID_OK;
}

raid_status raid_tuning_set(raid_ctx *ctx, raid_tuning_knob knob, int64_t value)
{
    if (!ctx)
        return raidFail(NULL, RAID_EINVAL, "%s: ctx is NULL", __func__);
    raid_status s = knobs(ctx);
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

raid_status raid_tuning_set_build_options(raid_ctx *ctx, const char *options)
{
    if (!ctx)
        return raidFail(NULL, RAID_EINVAL, "%s: ctx is NULL", __func__);
    raid_status s = knobs(ctx);
    if (s != RAID_OK)
        return s;
    if (!options)
        options = "";
    if (strlen(options) >= sizeof ctx->tuning->build_options)
        return raidFail(ctx, RAID_EINVAL, "build options longer than %zu bytes",
                         sizeof ctx->tuning->build_options - 1);
    snprintf(ctx->tuning->build_options, sizeof ctx->tuning->build_options, "%s", options);
    return RAID_OK;
}

static raid_status need_device(raid_ctx *ctx, const char *what)
{
    if (!ctx)
        return raidFail(NULL, RAID_EINVAL, "%s: ctx is NULL", what);
    ctx->errmsg[0] = 0;
    return ctx->dev ? RAID_OK : raidFail(ctx, RAID_EUNSUPPORTED, "%s needs a device context, not cpu", what);
}

raid_status raid_tuning_realized_parts(raid_ctx *ctx, const double *r, const int64_t *offsets, size_t nseg,
                                       unsigned part_mask, double *acc)
{
    raid_status s = need_device(ctx, "raid_tuning_realized_parts");
    if (s != RAID_OK)
        return s;
    if (part_mask < 1 || part_mask > RAID_PART_ALL)
        return raidFail(ctx, RAID_EINVAL, "measure group mask %u is not in [1, 15]", part_mask);
    if (!offsets || (nseg && offsets[0] < 0))
        return raidFail(ctx, RAID_EINVAL, "NULL or negative offsets");
    for (size_t i = 0; i < nseg; i++)
        if (offsets[i + 1] < offsets[i])
            return raidFail(ctx, RAID_EINVAL, "offsets decrease at segment %zu", i);
    if (nseg && offsets[nseg] > offsets[0] && !r)
        return raidFail(ctx, RAID_EINVAL, "NULL returns");
    for (int64_t i = nseg ? offsets[0] : 0; i < (nseg ? offsets[nseg] : 0); i++)
        if (!(fabs(r[i]) <= RAID_MAX_RETURN))
            return raidFail(ctx, RAID_EINVAL, "return %lld is not finite or beyond 1e74", (long long)i);
    double *a = acc ? acc : malloc((nseg ? nseg : 1) * RAID_NACC * sizeof *a);
    if (!a)
        return raidFail(ctx, RAID_ENOMEM, "out of memory");
    s = raidRealizedAccCl(ctx, r, offsets, nseg, part_mask, a);
    if (!acc)
        free(a);
    return s;
}

raid_status raid_tuning_realized_build_log(raid_ctx *ctx, char *buf, size_t len)
{
    raid_status s = need_device(ctx, "raid_tuning_realized_build_log");
    if (s != RAID_OK)
        return s;
    if (!buf || len == 0)
        return raidFail(ctx, RAID_EINVAL, "no buffer for the build log");
    char opts[512];
    raidRealizedClOptions(ctx, RAID_PART_ALL, opts, sizeof opts);
    RaidKernel *k;
    if ((s = raidKernelGet(ctx, "realized.cl", "realized_fused", opts, &k)) != RAID_OK)
        return s;
    raidKernelBuildLog(ctx, k, buf, len);
    buf[len - 1] = 0;
    raidKernelPut(ctx, k);
    return RAID_OK;
}

raid_status raid_tuning_copy_bandwidth(raid_ctx *ctx, size_t bytes, int reps, double *bytes_per_s)
{
    raid_status s = need_device(ctx, "raid_tuning_copy_bandwidth");
    if (s != RAID_OK)
        return s;
    if (bytes < 1 || reps < 1 || !bytes_per_s)
        return raidFail(ctx, RAID_EINVAL, "copy bandwidth of %zu bytes, %d repetitions", bytes, reps);
    *bytes_per_s = 0;
    RaidBuf a = {0}, b = {0};
    const uint8_t zero = 0;
    if ((s = raidBufAcquire(ctx, RAID_DT_BYTE, bytes, &a)) == RAID_OK &&
        (s = raidBufAcquire(ctx, RAID_DT_BYTE, bytes, &b)) == RAID_OK)
        s = raidBufFill(ctx, &a, &zero, NULL);
    for (int i = 0; s == RAID_OK && i < reps + 1; i++) {
        RaidEvent ev = {0};
        if ((s = raidBufCopy(ctx, &b, &a, bytes, &ev)) == RAID_OK && (s = raidEventWait(ctx, &ev)) == RAID_OK) {
            const double t = raidEventSeconds(&ev);
            if (i > 0 && t > 0 && 2.0 * (double)bytes / t > *bytes_per_s)
                *bytes_per_s = 2.0 * (double)bytes / t;
        }
        raidEventRelease(&ev);
    }
    raidBufRelease(ctx, &a);
    raidBufRelease(ctx, &b);
    return s;
}

raid_status raid_tuning_upload_bandwidth(raid_ctx *ctx, size_t bytes, int reps, double *pinned, double *pageable)
{
    raid_status s = need_device(ctx, "raid_tuning_upload_bandwidth");
    if (s != RAID_OK)
        return s;
    if (bytes < 1 || reps < 1)
        return raidFail(ctx, RAID_EINVAL, "upload bandwidth of %zu bytes, %d repetitions", bytes, reps);
    RaidBuf a = {0};
    void *host = NULL;
    unsigned char *plain = NULL;
    double best = 0, best_plain = 0;
    if ((s = raidBufAcquire(ctx, RAID_DT_BYTE, bytes, &a)) == RAID_OK &&
        (s = raidHostAcquire(ctx, bytes, &host)) == RAID_OK) {
        memset(host, 1, bytes);
        for (int i = 0; s == RAID_OK && i < reps + 1; i++) {
            RaidEvent ev = {0};
            if ((s = raidBufUpload(ctx, &a, 0, bytes, host, 0, &ev)) == RAID_OK &&
                (s = raidEventWait(ctx, &ev)) == RAID_OK) {
                const double t = raidEventSeconds(&ev);
                if (i > 0 && t > 0 && (double)bytes / t > best)
                    best = (double)bytes / t;
            }
            raidEventRelease(&ev);
        }
        if (s == RAID_OK && pageable) {
            if (!(plain = malloc(bytes)))
                s = raidFail(ctx, RAID_ENOMEM, "out of memory");
            else
                memset(plain, 1, bytes);
        }
        for (int i = 0; s == RAID_OK && pageable && i < reps + 1; i++) {
            const double t0 = raidNow();
            if ((s = raidBufUpload(ctx, &a, 0, bytes, plain, 1, NULL)) == RAID_OK) {
                const double t = raidNow() - t0;
                if (i > 0 && t > 0 && (double)bytes / t > best_plain)
                    best_plain = (double)bytes / t;
            }
        }
    }
    free(plain);
    raidHostRelease(ctx, host);
    raidBufRelease(ctx, &a);
    if (pinned)
        *pinned = best;
    if (pageable)
        *pageable = best_plain;
    return s;
}

void raid_tuning_kernel_cache(const raid_ctx *ctx, uint64_t *entries, uint64_t *builds, uint64_t *evictions)
{
    RaidKernelCacheStats st = {0, 0, 0, 0};
    if (ctx && ctx->dev)
        raidKernelCacheGetStats(ctx, &st);
    if (entries)
        *entries = st.entries;
    if (builds)
        *builds = st.builds;
    if (evictions)
        *evictions = st.evictions;
}

raid_status raid_tuning_fault(raid_ctx *ctx, unsigned kinds, uint64_t at, int sticky)
{
    if (!ctx)
        return raidFail(NULL, RAID_EINVAL, "%s: ctx is NULL", __func__);
    if (kinds & ~(unsigned)RAID_FAULT_DEVICE)
        return raidFail(ctx, RAID_EINVAL, "fault kinds 0x%x are not all of the device layer (0x%x); the output "
                         "files' are armed by RAID_FAULT", kinds, (unsigned)RAID_FAULT_DEVICE);
    if (!ctx->dev)
        return raidFail(ctx, RAID_EUNSUPPORTED, "the cpu backend has no device points");
    raid_status s = knobs(ctx);
    if (s != RAID_OK)
        return s;
    raidFaultArm(&ctx->tuning->fault, kinds, at, sticky);
    return RAID_OK;
}

uint64_t raid_tuning_fault_points(const raid_ctx *ctx, unsigned kinds, uint64_t *fired, unsigned *kind,
                                  const char **what)
{
    const RaidFaultPlan *p = ctx && ctx->tuning ? &ctx->tuning->fault : NULL;
    if (fired)
        *fired = p ? p->fired : 0;
    if (kind)
        *kind = p && p->fired ? p->fired_kind : 0;
    if (what)
        *what = p && p->fired ? p->fired_what : "";
    return p ? raidFaultCount(p, kinds) : 0;
}
