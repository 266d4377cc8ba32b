/* Device backend of the batched GARCH evaluator (kernels/garch.cl). Placeholder until the kernel lands:
 * reports RAID_EUNSUPPORTED so that callers fall back to nothing silently. */
#include "models/garch_eval_internal.h"

raid_status raid_garch_eval_cl_create(raid_garch_eval *ev)
{
    return raid_fail(ev->ctx, RAID_EUNSUPPORTED, "GARCH on a device: not built yet");
}

raid_status raid_garch_eval_cl_run(raid_garch_eval *ev, size_t npts, const size_t *series, const double *theta,
                                   double *nll, double *grad)
{
    (void)npts, (void)series, (void)theta, (void)nll, (void)grad;
    return raid_fail(ev->ctx, RAID_EUNSUPPORTED, "GARCH on a device: not built yet");
}

void raid_garch_eval_cl_destroy(raid_garch_eval *ev) { (void)ev; }
