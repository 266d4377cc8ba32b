/* Knobs of benchmarks and tests (include/raid/tuning.h): the context's knobs (ctx->tuning) and the fault
 * switch, the one way they reach a context. Production contexts never allocate the knobs (ctx->tuning
 * stays NULL). The knobs that reach a layer above core are that layer's: raid_tuning_set
 * (src/context/tuning.c: the kernel cache's capacity), the device's measurements (src/device/tuning.c),
 * the realized measures' parts (src/realized/tuning.c). */
#include "core/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

raid_status raidTuningKnobs(raid_ctx *ctx)
{
    if (!ctx->tuning && !(ctx->tuning = calloc(1, sizeof *ctx->tuning)))
        return raidFail(ctx, RAID_ENOMEM, "out of memory");
    return RAID_OK;
}

raid_status raid_tuning_set_build_options(raid_ctx *ctx, const char *options)
{
    if (!ctx)
        return raidFail(NULL, RAID_EINVAL, "%s: ctx is NULL", __func__);
    raid_status s = raidTuningKnobs(ctx);
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

raid_status raidTuningNeedDevice(raid_ctx *ctx, const char *what)
{
    if (!ctx)
        return raidFail(NULL, RAID_EINVAL, "%s: ctx is NULL", what);
    ctx->errmsg[0] = 0;
    return ctx->dev ? RAID_OK : raidFail(ctx, RAID_EUNSUPPORTED, "%s needs a device context, not cpu", what);
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
    raid_status s = raidTuningKnobs(ctx);
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
