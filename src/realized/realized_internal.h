/* Realized measures: the accumulator layout shared by the cpu and opencl paths, and the float64 step
 * from accumulators to measures. */
#ifndef RAID_REALIZED_INTERNAL_H
#define RAID_REALIZED_INTERNAL_H

#include "core/internal.h"

/* Accumulators of one segment, in the order of kernels/realized.cl. */
enum {
    RAID_ACC_RS_NEG = 0, /* sum r^2 1{r<0} */
    RAID_ACC_RS_POS = 1, /* sum r^2 1{r>0} */
    RAID_ACC_BPV = 2,    /* sum_{i>=2} |r_i||r_{i-1}| */
    RAID_ACC_QUART = 3,  /* sum r^4 */
    RAID_ACC_TPQ = 4,    /* sum_{i>=3} |r_i r_{i-1} r_{i-2}|^(4/3) */
    RAID_ACC_MED = 5,    /* sum_{i>=3} med(|r_i|,|r_{i-1}|,|r_{i-2}|)^2 */
    RAID_NACC = 6
};

/* Measure groups (bit masks) of the fusion ablation; RAID_PART_ALL is the fused kernel. */
enum { RAID_PART_RS = 1, RAID_PART_BPV = 2, RAID_PART_QUART = 4, RAID_PART_MED = 8, RAID_PART_ALL = 15 };

/* Measures of a segment of M returns from its accumulators (float64; docs/measures.md). */
void raid_measures_from_acc(const double acc[RAID_NACC], int64_t M, raid_realized *out);

/* Float64 accumulators of one segment of m returns (compensated sums). */
void raid_realized_acc_cpu(const double *r, int64_t m, double acc[RAID_NACC]);

/* Window terms ending at index j (j >= 1 for bpv, j >= 2 for tpq and medrv) of values v (absolute
 * values taken inside), added to acc: used by the device path for windows that straddle chunks. */
void raid_realized_window_terms(const double *v, int64_t j, int64_t seg_start, unsigned part_mask,
                                double acc[RAID_NACC]);

/* RAID_OK when every return r[i0 .. i1) is finite and at most RAID_MAX_RETURN in magnitude; otherwise
 * RAID_EINVAL naming the first one ("return I is not finite|out of range (...)"). Parallel. */
/* The bound of raid_realized_bound without the input rounding: the device against float64 run on the
 * values the device saw (the policy-rounded returns). For tests. */
double raid_realized_bound_seen(raid_precision p, int k);

raid_status raid_realized_check_range(raid_ctx *ctx, const double *r, int64_t i0, int64_t i1);

/* cpu backend: accumulators of all segments (acc: nseg * RAID_NACC). */
raid_status raid_realized_acc_cpu_all(raid_ctx *ctx, const double *r, const int64_t *offsets, size_t nseg,
                                      double *acc);

/* Build options of kernels/realized.cl for ctx's policy and the measure groups in part_mask. */
void raid_realized_cl_options(const raid_ctx *ctx, unsigned part_mask, char *buf, size_t len);

/* opencl backend: accumulators of all segments computed by the kernel groups in part_mask
 * (RAID_PART_ALL for the fused kernel); acc (nseg * RAID_NACC) is overwritten. The device checks the
 * returns' range itself (raid_realized_check_range's error and message). */
raid_status raid_realized_acc_cl(raid_ctx *ctx, const double *r, const int64_t *offsets, size_t nseg,
                                 unsigned part_mask, double *acc);

#endif
