/* The realized measures' knobs for tests (include/raid/tuning.h): the device accumulators of chosen
 * measure groups, the build log of the fused kernel. */
#include "core/internal.h"
#include "device/device.h"
#include "realized/realized_internal.h"

#include <math.h>
#include <stdlib.h>

raid_status raid_tuning_realized_parts(raid_ctx *ctx, const double *r, const int64_t *offsets, size_t nseg,
                                       unsigned part_mask, double *acc)
{
    raid_status s = raidTuningNeedDevice(ctx, "raid_tuning_realized_parts");
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
    s = raidRealizedAccDevice(ctx, r, offsets, nseg, part_mask, a);
    if (!acc)
        free(a);
    return s;
}

raid_status raid_tuning_realized_build_log(raid_ctx *ctx, char *buf, size_t len)
{
    raid_status s = raidTuningNeedDevice(ctx, "raid_tuning_realized_build_log");
    if (s != RAID_OK)
        return s;
    if (!buf || len == 0)
        return raidFail(ctx, RAID_EINVAL, "no buffer for the build log");
    char opts[512];
    raidRealizedDeviceOptions(ctx, RAID_PART_ALL, raidTuneDirectUpload(ctx), opts, sizeof opts);
    RaidKernel *k;
    if ((s = raidKernelGet(ctx, "realized.cl", "realized_fused", opts, &k)) != RAID_OK)
        return s;
    raidKernelBuildLog(ctx, k, buf, len);
    buf[len - 1] = 0;
    raidKernelPut(ctx, k);
    return RAID_OK;
}
