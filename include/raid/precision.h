/*
 * raid/precision.h -- the f32 precision curve: how far rv on a device's float32 input path is from the
 * float64 cpu backend, as a function of the segment length, against its prediction
 * (docs/precision-figure.md; `raid precision-report` draws it).
 * Part of the public API; include <raid.h> for all of it. Conventions: raid/core.h.
 */
#ifndef RAID_PRECISION_H
#define RAID_PRECISION_H

#include "raid/core.h"

#ifdef __cplusplus
extern "C" {
#endif

#define RAID_PRECISION_MAX_POINTS 32 /* points of one curve at most */

/** The curve at M = 10, 30, 100, 300, ... up to max_m (in [10, 10^7]): for each M, K segments of M
 *  i.i.d. Gaussian returns (raid_simulate_returns: one day of M + 1 observations per segment, each its own
 *  stream from seed ^ (M * 0x9E3779B97F4A7C15); constant variance, no jumps, no noise), K = segments
 *  (in [1, 10^6]) reduced to max(4, floor(2e7 / M)); rv on dev (in the precision policy dev is set to:
 *  RAID_PREC_F32 for the curve of the figure) and on cpu (a context of the cpu backend). Per M:
 *  max_err and rms_err, the maximum and root mean square over the segments of |rv_dev - rv_cpu| / rv_cpu
 *  (a NAN propagates to max_err); rms_pred = 2u sqrt(3/M), u = 2^-24 (rounding each return to binary32:
 *  relative error 2 sum r^2 delta / sum r^2, whose variance is 4 E[delta^2] 3/M for Gaussian returns);
 *  max_pred = sqrt(2 ln K) rms_pred, the expected maximum over K segments. The arrays m, k, max_err,
 *  rms_err, rms_pred and max_pred hold RAID_PRECISION_MAX_POINTS values each; *npoints receives the
 *  count. Errors (raid_ctx_errmsg(dev)): RAID_EINVAL (max_m or segments out of range, NULL), RAID_ENOMEM
 *  ("out of memory"), a failure of the simulation ("simulate: ..."), of dev ("DEVICE NAME: message") or
 *  of cpu ("cpu: message") with its status. */
RAID_API raid_status raid_precision_curve(raid_ctx *dev, raid_ctx *cpu, int64_t max_m, int64_t segments, uint64_t seed,
                                          int64_t *m, int64_t *k, double *max_err, double *rms_err, double *rms_pred,
                                          double *max_pred, size_t *npoints);

#ifdef __cplusplus
}
#endif
#endif /* RAID_PRECISION_H */
