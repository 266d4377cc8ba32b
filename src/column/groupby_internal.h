/* Group-by internals (include/raid/groupby.h, docs/groupby.md): the plan both paths read, the per-group
 * partial results both paths write, and the one rounding of an exact fixed-point sum to float64.
 *
 * Fixed point: a finite float64 v = (-1)^s m 2^(p - 1074) with m < 2^53 its integer significand (the
 * implicit bit set for normals) and p = max(E, 1) - 1 from its biased exponent E (0 .. 2045). A group's
 * sum is the integer S = sum of (-1)^s m 2^p in units of 2^-1074, kept from bit `base` = 32 clo up (clo
 * the lowest 32-bit chunk any value's p reaches; the bits below are zero), so S = S' 2^base. */
#ifndef RAID_GROUPBY_INTERNAL_H
#define RAID_GROUPBY_INTERNAL_H

#include "core/internal.h"

#include <stdint.h>

#define GB_NONE 0xFFFFFFFFu /* group id of a null row */

/* Flags per group (both paths): a NaN value, +inf, -inf, a finite value other than -0.0 (the sign of a zero sum). */
#define GB_F_NAN 1u
#define GB_F_PINF 2u
#define GB_F_NINF 4u
#define GB_F_NZ 8u
#define GB_F_PRESENT 16u /* the cpu path, rows indexed by key: a row of this key was seen */
#define GB_F_NEGZ 32u    /* the device path without counts: a -0.0 value (the group is not empty) */

/* Which partials a call needs (from its aggregations). */
#define GB_NEED_SUM 1u
#define GB_NEED_MINMAX 2u
#define GB_NEED_FIRSTLAST 4u
/* Partials computed from the sums' limbs where they are rounded (raidGbPartialAlloc only, never in
 * gb_plan.need, which says what the rows' passes keep): the means, the scaled sums. */
#define GB_NEED_MEAN 8u
#define GB_NEED_SCALED 16u

/* raidGbCompute's flag beside RAID_GROUPBY_SKIPNA (the library's own, refused by raid_groupby_compute): keep
 * each group's scaled sum (raidGbGroupbySumScaled). */
#define GB_SCALED 0x40000000u

typedef struct gb_plan {
    size_t n, ngroups;
    const uint32_t *gid;  /* dense group id per row (ascending key order), GB_NONE for a null row; or NULL
                             (the cpu path only): the table's rows are keys - kmin (ngroups = their range),
                             null rows by valid and skipna, rows of no key without GB_F_PRESENT */
    const int64_t *keys;
    int64_t kmin;
    const uint8_t *valid;
    int skipna;
    const double *x;      /* values (NULL when only counts are needed) */
    unsigned need;        /* GB_NEED_* */
    int counts;           /* the device path: the groups' counts are asked (count, mean); else no count per
                             row is kept, and the sums' signed zeros come from the flags (GB_F_NEGZ) */
    int base;             /* lowest bit kept: 32 x (lowest chunk of a finite non-zero value's p); 0 if none */
    int pspan;            /* highest p of a finite non-zero value minus base (-1: no such value) */
    int qmin;             /* the device path: lowest p of a finite non-zero value minus base (0 if none) */
    int mean;             /* a mean is asked: the partials' means, from the exact sums */
    int scaled;           /* sums asked and GB_SCALED: the scaled sums (gb_partial sfrac, sexp) */
} gb_plan;

/* The partials a plan fills (raidGbPartialAlloc's need). */
static inline unsigned gb_partials(const gb_plan *p)
{
    return p->need | (p->mean ? GB_NEED_MEAN : 0u) | (p->scaled ? GB_NEED_SCALED : 0u);
}

/* Per-group partials, ngroups each (arrays NULL where not needed). min/max as order keys (gb_order_key),
 * 0 / UINT64_MAX when no non-NaN value; first/last row indices, -1 when none. */
typedef struct gb_partial {
    int64_t *count;
    uint32_t *flags;
    double *sum;    /* the exact sum, rounded (specials and signed zeros applied) */
    double *mean;   /* mean asked: the exact sum divided by the count, rounded once (raidGbMeanFinish applied) */
    double *sfrac;  /* gb_plan.scaled: the exact finite part of the sum rounded to 53 bits with no exponent */
    int32_t *sexp;  /* range, sfrac 2^sexp (sfrac in [0.5, 1], 0 for an exact zero; specials not applied) */
    uint64_t *min, *max;
    int64_t *first, *last;
} gb_partial;

/* The order key of a non-NaN float64's bits: unsigned order = numeric order, -0.0 just below +0.0. */
static inline uint64_t gb_order_key(uint64_t b) { return (b >> 63) ? ~b : b | 0x8000000000000000ull; }
static inline uint64_t gb_order_key_inv(uint64_t k) { return (k >> 63) ? k & 0x7FFFFFFFFFFFFFFFull : ~k; }

/* The float64 nearest (ties to even) to (-1)^neg M 2^(base - 1074), M = sum limbs[i] 2^(32 i), i < L
 * (overflow: +-inf). M = 0 gives +0.0. */
double raidGbRoundLimbs(const uint32_t *limbs, int L, int neg, int base);
/* A group's sum from its rounded exact finite part `fin` (0.0 for an exact zero), flags and count:
 * the special values and the sign of a zero by IEEE 754 (groupby.h). */
double raidGbSumFinish(double fin, uint32_t flags, int64_t count);
/* Limbs of a group's sum on either path, at most: gb_cl_limbs is at most 67 (pspan <= 2046), the cpu
 * path rounds W + 2 = 69 of them. */
#define GB_MAX_LIMBS 72
/* The float64 nearest (ties to even) to (-1)^neg M 2^(base - 1074) / count (count >= 1, L <= GB_MAX_LIMBS):
 * the exact mean of a group whose exact sum is the limbs', rounded once, also where the sum itself is
 * beyond the largest double (M 2^128 divided by the count in integers, the remainder as a sticky bit);
 * +-0.0 (the sign of the quotient) where it is below half the smallest subnormal. */
double raidGbMeanLimbs(const uint32_t *limbs, int L, int neg, int base, uint64_t count);
/* A group's mean from raidGbMeanLimbs' m, whether the exact finite sum is zero, the flags and the count: NaN
 * for count 0, the sum's special value (NaN, +-inf) or signed zero, else m. */
double raidGbMeanFinish(double m, int zero, uint32_t flags, int64_t count);
/* M 2^(base - 1074) rounded to 53 bits (ties to even) with no exponent range: m 2^(*e) with m in [0.5, 1]
 * (0 and *e = 0 for M = 0); equal to raidGbRoundLimbs' value scaled by a power of two wherever that is a
 * finite normal double. For a ratio of two exact sums that are each beyond float64's range (bars' vwap). */
double raidGbRoundLimbsScaled(const uint32_t *limbs, int L, int base, int *e);

/* The two paths: fill the partials the plan needs (count and flags always). */
raid_status raidGbCpuRun(raid_ctx *ctx, const gb_plan *p, gb_partial *out);
/* The device path: the group ids formed on the device from p's keys (p->gid, ngroups, kmin, base and pspan
 * are not read: it finds them), the sorted distinct keys into *ukeys (malloc'd), their number into
 * *ngroups, and the partials (raidGbPartialAlloc) in that order. rows_per_wg: rows of one work-group of the
 * sums (0: the default); local_tables: -1 automatic, 0 global atomics only, 1 per-work-group tables in
 * local memory, 3 global exponent-bucket tables (sums asked), 8 rows partitioned by group, then local
 * tables per partition (sums asked; counts, means; nothing else) (RAID_EUNSUPPORTED when they do not fit or
 * other aggregations are asked); 2, 4 to 7, 9 to 11: removed variants (RAID_EINVAL). Tests vary both.
 * RAID_TUNE_GROUPBY_PATH p > 0 stands for local_tables p - 1 when local_tables is -1. */
raid_status raidGbDeviceRun(raid_ctx *ctx, const gb_plan *p, int64_t **ukeys, size_t *ngroups, gb_partial *out,
                      size_t rows_per_wg, int local_tables);
/* Tests only (zeroed: automatic): force_hash, the hash path even for keys of a small range; hash_cap, the
 * first hash table's slots (a power of two >= 1024; too few makes the device retry with 2n); hmask, a mask
 * of the start slots (e.g. 3: every key starts in one of 4 slots, long collision chains); part_bits,
 * part_limbs (below). */
typedef struct gb_cl_knobs {
    int force_hash;
    size_t hash_cap;
    uint32_t hmask;
    int part_bits;  /* the partitioned path: at most 2^part_bits groups per partition (more partitions) */
    int check;      /* the partitioned path's kernels check their indices (-DGB_CHECK=1): RAID_EDEVICE if one fails */
    size_t *partitions_out; /* non-NULL: where each call writes the partitions its plan has (refused or not);
                               NULL (production): no write to this shared struct */
} gb_cl_knobs;
extern gb_cl_knobs raidGbDeviceTestKnobs;
/* The partials of G groups for the aggregations in need (GB_NEED_*, gb_partials): count and flags always.
 * RAID_ENOMEM. */
raid_status raidGbPartialAlloc(raid_ctx *ctx, gb_partial *part, size_t G, unsigned need);

/* Group k's sum, with GB_SCALED, as sfrac 2^(*e) (raidGbRoundLimbsScaled: the exact finite part rounded to
 * 53 bits with no exponent range, signed; 0 for an exact zero; the specials, in the sum's column, not
 * applied). */
double raidGbGroupbySumScaled(const raid_groupby *g, size_t k, int *e);

/* raid_groupby_compute with the device knobs of raidGbDeviceRun (tests; the public call passes 0, -1); flags
 * may hold GB_SCALED. */
raid_status raidGbCompute(raid_ctx *ctx, const int64_t *keys, const double *values, const uint8_t *valid, size_t n,
                       const raid_agg *aggs, size_t naggs, unsigned flags, size_t rows_per_wg, int local_tables,
                       raid_groupby **out);

/* Limbs of 32 bits the device keeps per group and sign for a plan (sums of fewer than 2^32 values). */
static inline int gb_cl_limbs(const gb_plan *p) { return p->pspan < 0 ? 1 : ((p->pspan + 85) >> 5) + 1; }

#endif
