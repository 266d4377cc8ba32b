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
    int eig; /* 1: the smallest eigenvalues into info (0: the caller passed no info) */
} RaidCovDay;

/* A backend: the matrices of one day into out (raid_cov_parts(est) x nsym x nsym, row-major) and info
 * (never NULL here). Errors: RAID_ENOMEM, RAID_EINVAL, with the message on ctx. */
typedef struct RaidCovBackend {
    raid_status (*compute)(raid_ctx *ctx, const RaidCovDay *d, double *out, raid_cov_info *info);
} RaidCovBackend;
/* The table, indexed by RaidBackendIx: the cpu entry is the float64 host path; the device entry forms the
 * same series on the host and computes their Gram matrices (raidCovGram) or hy's merge sums (raidCovHy) on
 * the device (docs/measures.md "Covariance"). RAID_BACKEND(raidCovBackends, ctx) chooses. */
extern const RaidCovBackend raidCovBackends[2];

/* Rows of a chunk of the device path: each chunk's sums are double-float on the device, the chunks added
 * in float64 on the host in chunk order (docs/precision.md "Covariance" derives the bound from it). */
#define RAID_COV_CHUNK 1024

/* G (P x P, row-major; only the entries a <= b written) of the P series of L values in A and B (symbol-major:
 * A[a L + t]; B NULL: A) on ctx's device (cov_device.c, kernels/cov.cl):
 *   polar 0: G_ab = sum_t A_a,t B_b,t
 *   polar 1: G_ab = sum_{t>=1} |A_a,t + A_b,t| |A_a,t-1 + A_b,t-1| - |A_a,t - A_b,t| |A_a,t-1 - A_b,t-1| (B unused)
 * in double-float per chunk of RAID_COV_CHUNK rows, the chunks added in float64 in order; every column scaled
 * by the power of two of raidCovScales. Errors: the device layer's, RAID_EBUILD, RAID_ENOMEM, RAID_EINVAL
 * (beyond 32-bit indices). */
raid_status raidCovGram(raid_ctx *ctx, const double *A, const double *B, size_t P, int64_t L, int polar, double *G);
/* O (P x P, row-major; only the entries a <= b written): the Hayashi-Yoshida sums of P symbols on ctx's device
 * (cov_device.c, kernels/cov.cl cov_hy): symbol a's strictly increasing times t[off[a] .. off[a+1]) (at least
 * one), its returns r[off[a] + k] over (t[off[a] + k - 1], t[off[a] + k]] for k >= 1 (r[off[a]] unused);
 *   O_ab = sum of r_a,k r_b,l over the pairs of intervals that overlap (O_aa: sum_k r_a,k^2),
 * the terms of cov.c's merge (hy_pair) in its order, in double-float per chunk of RAID_COV_CHUNK positions of
 * the merge of the two time lists, the chunks added in float64 in order; each symbol's returns scaled by the
 * power of two of raidCovScales. Work O(n_a + n_b) per pair. Bitwise reproducible. Errors: the device layer's,
 * RAID_EBUILD, RAID_ENOMEM, RAID_EINVAL (a symbol's times beyond 32-bit indices). */
raid_status raidCovHy(raid_ctx *ctx, const int64_t *t, const double *r, const int64_t *off, size_t P, double *O);
/* G (P x P, row-major; only the entries a <= b written) = A A' of the P series of L values in A (symbol-major:
 * A[a L + t]) on the host (cov_gram.c): every entry a Dot2 compensated dot product (TwoProduct by fma, TwoSum)
 * of its L terms in the order t = 0 .. L-1, s + c at the end: within 2^-53 of the entry plus about L^2 2^-106
 * of sum_t |A_a,t A_b,t|, the same bits on every run and thread count. Errors: RAID_ENOMEM (returned, no
 * message set: the caller names the call). */
raid_status raidCovGramCpu(const double *A, size_t P, int64_t L, double *G);
/* e[a]: the exponent with max_t |V_a,t| 2^-e[a] in [0.5, 1) (0 for a zero series); common: all the largest. */
void raidCovScales(const double *V, size_t P, int64_t L, int common, int *e);

#endif
