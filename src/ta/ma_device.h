/* The device path of raid_ma_compute (src/ta/ma_device.c, kernels/ta_ma.cl). Never installed. */
#ifndef RAID_TA_MA_DEVICE_H
#define RAID_TA_MA_DEVICE_H

#include "core/internal.h"
#include "device/device.h"

#include <stddef.h>
#include <stdint.h>

/* The largest window the device path takes (weights j <= 2^24 exact in float32); raid_ma_compute keeps
 * larger windows on the float64 host path. */
#define RAID_MA_DEVICE_MAX_WINDOW 16777216
/* The most values one device call takes (the kernels index 3 floats per value with 32-bit ints). */
#define RAID_MA_DEVICE_MAX_VALUES 536870912

/* The largest ratio, as a power of two, between the largest and the smallest nonzero |x| of one series that
 * the device path takes: scaled so that its largest |x| lies in [1/2, 1), the smallest stays above 2^-96, and
 * the double-float pairs' low parts stay normal floats. A series beyond it takes the float64 host path. */
#define RAID_MA_DEVICE_MAX_RANGE 95

/* 1 when x[0..len) (NaN ignored) is within RAID_MA_DEVICE_MAX_RANGE. */
int raidMaDeviceRangeOk(const double *x, size_t len);

/* raid_ma_compute's device entry (raidMaBackends, ma.c), arguments already validated by it (stat, n,
 * offsets, values): a window beyond RAID_MA_DEVICE_MAX_WINDOW or a series beyond RAID_MA_DEVICE_MAX_RANGE goes to
 * the cpu path (raidMaCpuCompute) for the whole call. Same outputs and NAN positions as the host path,
 * values within the bound of docs/ta.md ("The device path and its bound"). Errors: RAID_EUNSUPPORTED (more
 * than RAID_MA_DEVICE_MAX_VALUES values), RAID_ENOMEM, the device layer's (RAID_EDEVMEM, RAID_EDEVICE,
 * RAID_EBUILD, ...); message on ctx. */
raid_status raidMaDeviceCompute(raid_ctx *ctx, raid_ma_stat stat, int64_t n, const double *x, const int64_t *offsets,
                                  size_t nseg, double *out);

/* The sweep's table on ctx's device (docs/ta_sweep.md "The device sweep"): for each period periods[p]
 * (p < np), the moving average stat (RAID_MA_MEAN, WMA, HMA or EMA; HMA periods >= 2) of the finite
 * series x[0..len), scaled by 2^-*escale (exact: the trade scan's comparisons do not change), as
 * normalised double-floats in row p of *tab (2 len floats per row, value at bar t: tab[2 (p len + t)],
 * [.. + 1]; acquired here, released by the caller), NaN in both floats where the host path's value is NaN.
 * Values within docs/ta.md's device bound of float64. f32: plain float32 direct sums instead (mean, wma,
 * hma), equal to raidSweepF32Ma's values times 2^-*escale, lo 0. The launches are queued; the caller's
 * next launch on ctx's in-order queue sees the table. Errors: RAID_EINVAL (another stat),
 * RAID_EUNSUPPORTED (f32 with ema, np len beyond 2^30 values, a period outside [1 (hma 2),
 * RAID_MA_DEVICE_MAX_WINDOW]), RAID_ENOMEM, the device layer's; *tab zeroed on failure. */
raid_status raidMaDeviceTable(raid_ctx *ctx, raid_ma_stat stat, const int *periods, size_t np, const double *x,
                             size_t len, int f32, RaidBuf *tab, int *escale);

#endif
