/* The device layer's measurements and counters for benchmarks and tests (include/raid/tuning.h): copy and
 * upload bandwidths, the kernel cache's counters. */
#include "core/internal.h"
#include "device/device.h"

#include <stdlib.h>
#include <string.h>

raid_status raid_tuning_copy_bandwidth(raid_ctx *ctx, size_t bytes, int reps, double *bytes_per_s)
{
    raid_status s = raidTuningNeedDevice(ctx, "raid_tuning_copy_bandwidth");
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
    raid_status s = raidTuningNeedDevice(ctx, "raid_tuning_upload_bandwidth");
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
    RaidKernelCacheStats st = {0, 0, 0, 0, 0};
    if (ctx && ctx->dev)
        raidKernelCacheGetStats(ctx, &st);
    if (entries)
        *entries = st.entries;
    if (builds)
        *builds = st.builds;
    if (evictions)
        *evictions = st.evictions;
}
