/* The device path of raid_ma_compute (src/ta/ma_cl.c, kernels/ta_ma.cl). Never installed. */
#ifndef RAID_TA_MA_CL_H
#define RAID_TA_MA_CL_H

#include "core/internal.h"

#include <stddef.h>
#include <stdint.h>

/* The largest window the device path takes (weights j <= 2^24 exact in float32); raid_ma_compute keeps
 * larger windows on the float64 host path. */
#define RAID_MA_CL_MAX_WINDOW 16777216
/* The most values one device call takes (the kernels index 3 floats per value with 32-bit ints). */
#define RAID_MA_CL_MAX_VALUES 536870912

/* raid_ma_compute on ctx's device, arguments already validated by it (stat, n <= RAID_MA_CL_MAX_WINDOW,
 * offsets, values). Same outputs and NAN positions as the host path, values within the bound of docs/ta.md
 * ("The device path and its bound"). Errors: RAID_EUNSUPPORTED (more than RAID_MA_CL_MAX_VALUES values), RAID_ENOMEM,
 * the device layer's (RAID_EDEVMEM, RAID_EDEVICE, RAID_EBUILD, ...); message on ctx. */
raid_status raid_ma_cl_compute(raid_ctx *ctx, raid_ma_stat stat, int64_t n, const double *x, const int64_t *offsets,
                               size_t nseg, double *out);

#endif
