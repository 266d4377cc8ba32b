/*
 * raid/realized.h -- daily realized measures of ragged segments of returns, their device bounds and the check's differences.
 * Part of the public API; include <raid.h> for all of it. Conventions: raid/core.h.
 */
#ifndef RAID_REALIZED_H
#define RAID_REALIZED_H

#include "raid/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------------------ */
/* Realized measures                                                                                 */
/* ------------------------------------------------------------------------------------------------ */

/** Daily realized measures of one segment of M returns (Barndorff-Nielsen and Shephard 2004, 2006;
 *  Barndorff-Nielsen, Kinnebrock and Shephard 2010; Andersen, Dobrev and Schaumburg 2012; Huang and
 *  Tauchen 2005). Formulas and constants: docs/measures.md. NAN where undefined for M. */
typedef struct raid_realized {
    int64_t n;        /* M, the number of returns */
    double rv;        /* sum r^2                                   (M >= 1) */
    double bpv;       /* (pi/2) sum |r_i||r_{i-1}|                 (M >= 2) */
    double rs_neg;    /* sum r^2 1{r<0}                            (M >= 1) */
    double rs_pos;    /* sum r^2 1{r>0}                            (M >= 1) */
    double rq;        /* (M/3) sum r^4                             (M >= 1) */
    double tpq;       /* tripower quarticity                       (M >= 3) */
    double medrv;     /* median realized variance                  (M >= 3) */
    double jump_z;    /* ratio jump statistic                      (M >= 3, rv > 0, bpv > 0) */
    double jump_p;    /* 1 - Phi(jump_z)                           (as jump_z) */
} raid_realized;

#define RAID_REALIZED_NMEASURES 9
#define RAID_MAX_RETURN 1e74
/** Names of the measure columns in output order: "rv","bpv","rs_neg","rs_pos","rq","tpq","medrv",
 *  "jump_z","jump_p". raid_realized_get(x, k) returns the k-th of them. */
extern RAID_API const char *const raid_realized_names[RAID_REALIZED_NMEASURES];
RAID_API double raid_realized_get(const raid_realized *x, int k);

/** Compute the realized measures of nseg segments.
 *  r: the returns of all segments back to back; segment s is r[offsets[s] .. offsets[s+1]) (offsets has
 *  nseg+1 non-decreasing entries, offsets[0] may be non-zero). out: nseg results.
 *  On the cpu backend everything is float64; on opencl one fused kernel accumulates per chunk in
 *  double-float and the host combines the partials in float64 (docs/precision.md).
 *  Returns must be finite and at most RAID_MAX_RETURN = 1e74 in magnitude (beyond, r^4 overflows float64
 *  in the quarticity sums); log returns of prices are far below.
 *  Errors: RAID_EINVAL (NULL pointers, decreasing offsets, a return that is not finite or exceeds
 *  RAID_MAX_RETURN), RAID_ENOMEM and the device errors; message: raid_ctx_errmsg(ctx) (ctx NULL:
 *  raid_errmsg()). */
RAID_API raid_status raid_realized_compute(raid_ctx *ctx, const double *r, const int64_t *offsets, size_t nseg,
                                  raid_realized *out);

/** Documented worst-case relative bound of the device path against float64 for measure k (order of
 *  raid_realized_names) under policy p, for a segment of M returns. For jump_z and jump_p the bound is on
 *  the scaled error described in docs/precision.md. */
RAID_API double raid_realized_bound(raid_precision p, int k, int64_t M);

/** The scaled difference used by `--check` between a device result a and a float64 result b for
 *  measure k: |a-b|/|b| for k < 7; for jump_z and jump_p the difference scaled as docs/precision.md says.
 *  0 when both are NAN; INFINITY when exactly one is. */
RAID_API double raid_realized_diff(const raid_realized *a, const raid_realized *b, int k);

#ifdef __cplusplus
}
#endif
#endif /* RAID_REALIZED_H */
