/* The realized covariance capability (include/raid/cov.h): its table of backends. */
#ifndef RAID_COV_INTERNAL_H
#define RAID_COV_INTERNAL_H

#include "core/internal.h"

/* One day of raid_cov_compute, its arguments checked (cov.c). */
typedef struct RaidCovDay {
    raid_cov_estimator est;
    raid_cov_sync sync;
    size_t nsym;
    const int64_t *offsets, *time_us;
    const double *price;
} RaidCovDay;

/* A backend: the matrices of one day into out (raid_cov_parts(est) x nsym x nsym, row-major) and info
 * (never NULL here). Errors: RAID_ENOMEM, RAID_EINVAL, with the message on ctx. */
typedef struct RaidCovBackend {
    raid_status (*compute)(raid_ctx *ctx, const RaidCovDay *d, double *out, raid_cov_info *info);
} RaidCovBackend;
/* The table, indexed by RaidBackendIx: the cpu entry is the float64 host path; the device entry is, for
 * now, the same host computation on any context (docs/measures.md "Covariance": a device path for the
 * outer-product sums is future work). RAID_BACKEND(raidCovBackends, ctx) chooses. */
extern const RaidCovBackend raidCovBackends[2];

#endif
