/* Realized measures: the accumulator layout shared by the cpu and opencl paths, and the float64 step
 * from accumulators to measures. */
#ifndef RAID_REALIZED_INTERNAL_H
#define RAID_REALIZED_INTERNAL_H

#include "core/dd.h"
#include "core/internal.h"
#include "device/chunk.h"

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
void raidMeasuresFromAcc(const double acc[RAID_NACC], int64_t M, raid_realized *out);

/* Float64 accumulators of one segment of m returns (compensated sums). */
void raidRealizedAccCpu(const double *r, int64_t m, double acc[RAID_NACC]);

/* Window terms ending at index j (j >= 1 for bpv, j >= 2 for tpq and medrv) of values v (absolute
 * values taken inside), added to acc: used by the device path for windows that straddle chunks. */
void raidRealizedWindowTerms(const double *v, int64_t j, int64_t seg_start, unsigned part_mask,
                                double acc[RAID_NACC]);

/* The bound of raid_realized_bound without the input rounding: the device against float64 run on the
 * values the device saw (the policy-rounded returns). For tests. */
double raidRealizedBoundSeen(raid_precision p, int k);

/* RAID_OK when every return r[i0 .. i1) is finite and at most RAID_MAX_RETURN in magnitude; otherwise
 * RAID_EINVAL naming the first one ("return I is not finite|out of range (...)"). Parallel beyond 65,536
 * returns. */
raid_status raidRealizedCheckRange(raid_ctx *ctx, const double *r, int64_t i0, int64_t i1);
/* The same over r[0 .. n), whose first element is return `first` of the call (the message's index): a host
 * copy of a device input's chunk. */
raid_status raidRealizedCheckRangeAt(raid_ctx *ctx, const double *r, int64_t n, int64_t first);

/* The arguments of raid_realized_compute and raid_realized_noise_compute (ctx not NULL, offsets
 * non-decreasing from 0 or more, r and out, the caller's array of results, not NULL where needed): RAID_OK (ctx's message cleared) or RAID_EINVAL with its message on ctx. */
raid_status raidRealizedArgs(raid_ctx *ctx, const double *r, const int64_t *offsets, size_t nseg,
                               const void *out);

/* The float64 cpu path of raid_realized_compute in steps, so that its caller chooses the threads that
 * sum the chunks (raid_realized_compute: OpenMP's; the realized job of a CSV file: the table reader's
 * parsing threads, src/jobs/realized.c). begin plans the segments' chunks (the chunk plan, chunks of
 * 2^15 returns from each segment's start: a segment's sums do not depend on the segments beside it);
 * raidRealizedCpuChunk(j, c) sums chunk c (0 .. nchunks - 1) and checks its returns' range, on any
 * thread, each chunk once, distinct chunks at the same time; end, once every chunk is summed, combines
 * them in float64 in chunk order into out[0 .. nseg) and frees the job, or reports the first return out
 * of range (RAID_EINVAL, "return I is not finite|out of range (...)", I an index of r). r and offsets
 * must stay valid and unchanged until end. Errors of begin (the job then holds nothing): RAID_EINVAL
 * (more than 2^32 - 1 segments), RAID_ENOMEM; a job begun and not ended is freed by
 * raidRealizedCpuFree. Messages on ctx. */
typedef struct RaidRealizedJob {
    const double *r;
    const int64_t *offsets;
    size_t nseg;
    RaidChunkPlan plan;
    RaidDd *part; /* nchunks x RAID_NACC: each chunk's sums */
    uint8_t *bad;  /* nchunks: 1 where the chunk has a return out of range */
} RaidRealizedJob;
raid_status raidRealizedCpuBegin(raid_ctx *ctx, RaidRealizedJob *j, const double *r, const int64_t *offsets,
                                    size_t nseg);
size_t raidRealizedCpuNchunks(const RaidRealizedJob *j);
void raidRealizedCpuChunk(RaidRealizedJob *j, size_t c);
raid_status raidRealizedCpuEnd(raid_ctx *ctx, RaidRealizedJob *j, raid_realized *out);
void raidRealizedCpuFree(RaidRealizedJob *j);

/* Build options of kernels/realized.cl for ctx's policy and the measure groups in part_mask; for the f32
 * policy, bits = 1 where the kernel reads the returns' float64 bits, 0 where it reads the host's scaled
 * floats (RAID_BITS). */
void raidRealizedDeviceOptions(const raid_ctx *ctx, unsigned part_mask, int bits, char *buf, size_t len);

/* Device path: accumulators of all segments computed by the kernel groups in part_mask (RAID_PART_ALL for
 * the fused kernel); acc (nseg * RAID_NACC) is overwritten. The device checks the returns' range itself
 * (raidRealizedCheckRange's error and message). */
raid_status raidRealizedAccDevice(raid_ctx *ctx, const double *r, const int64_t *offsets, size_t nseg,
                                    unsigned part_mask, double *acc);

/* The backends of raid_realized_compute (arguments checked): compute fills out[0 .. nseg). pooled is 1
 * where the caller may instead sum the chunks on its own threads through raidRealizedCpuBegin .. End
 * (the cpu's; the realized table's parsing threads). */
typedef struct RaidRealizedBackend {
    raid_status (*compute)(raid_ctx *ctx, const double *r, const int64_t *offsets, size_t nseg,
                           raid_realized *out);
    int pooled;
} RaidRealizedBackend;
/* The table, indexed by RaidBackendIx (realized.c); RAID_BACKEND(raidRealizedBackends, ctx) chooses. */
extern const RaidRealizedBackend raidRealizedBackends[2];
/* The entries: realized_cpu.c (OpenMP over the chunks) and realized_device.c (the fused kernel). */
raid_status raidRealizedCpuCompute(raid_ctx *ctx, const double *r, const int64_t *offsets, size_t nseg,
                                     raid_realized *out);
raid_status raidRealizedDeviceCompute(raid_ctx *ctx, const double *r, const int64_t *offsets, size_t nseg,
                                        raid_realized *out);

/* ---- pieces of the noise-robust measures (noise.c) shared with the realized covariance (src/cov/) ---- */

/* Parzen weight k(x), 0 <= x <= 1 (BNHLS 2008, 2009): 1 - 6x^2 + 6x^3 to 1/2, 2 (1-x)^3 beyond. */
double raidRealizedParzen(double x);
/* xi^2 = omega^2 / IV of BNHLS 2009's bandwidth rule on M >= 1 returns r (docs/measures.md "The noise
 * ratio"): 0 when omega^2 = 0, INFINITY when IV = 0 < omega^2, NAN when M < 1 or out of memory. */
double raidRealizedNoiseRatio(const double *r, int64_t M);
/* The pre-averaging window of M >= 1 returns with theta = 1: the smallest kn with kn^2 >= M (exactly). */
int64_t raidPreavgKn(int64_t M);
/* The pre-averaging weights g[j] = min(j/kn, 1 - j/kn), j = 0 .. kn (g has kn + 1 entries; kn >= 1), and
 * the finite-kn constants psi1 = kn sum_{j=1}^{kn} (g_j - g_{j-1})^2 and psi2 = (1/kn) sum_{j=1}^{kn-1}
 * g_j^2 (Jacod, Li, Mykland, Podolskij and Vetter 2009; Christensen, Kinnebrock and Podolskij 2010). */
void raidPreavgWeights(int64_t kn, double *g, double *psi1, double *psi2);

/* ---- the noise-robust measures (noise.c: entry, choices, combinations, cpu backend; noise_device.c) ---- */

/* Scratch of one segment of up to `longest` returns. init: RAID_OK or RAID_ENOMEM (free it either way). */
typedef struct RaidNoiseScratch {
    double *x;      /* longest + 1: the jittered returns, prv's weights */
    double *gamma;  /* longest + 1: the autocovariances */
    RaidDd *sq;     /* longest: the subgrids' sums of squares */
    int64_t *nz;    /* longest: their counts of non-zero window sums */
} RaidNoiseScratch;
raid_status raidNoiseScratchInit(RaidNoiseScratch *w, int64_t longest);
/* The length of the longest of nseg segments (offsets: nseg + 1 entries), the size of each thread's scratch. */
int64_t raidNoiseLongest(const int64_t *offsets, size_t nseg);
void raidNoiseScratchFree(RaidNoiseScratch *w);

/* The host's choices for a segment of M returns: H (rk's bandwidth), K (tsrv's subsamples), kn (prv's
 * window), each 0 where its estimator is undefined (docs/measures.md). From the float64 noise ratio, O(M). */
typedef struct RaidNoisePlan {
    int64_t M, H, K, kn;
} RaidNoisePlan;
void raidNoisePlanOf(const double *r, int64_t M, RaidNoiseScratch *w, RaidNoisePlan *p);

/* The sums a segment's estimators are formed from (float64, original scale). */
typedef struct RaidNoiseSums {
    double rv;     /* sum r_i^2 */
    double mn;     /* sum_{i>=1} min(|r_i|, |r_{i-1}|)^2 */
    double *gamma; /* gamma_h, h = 0 .. min(H, M - 3): autocovariances of the jittered returns (with plan.H) */
    double qk;     /* sum over the M - K + 1 windows of K returns of the window's sum squared (with plan.K) */
    double qp;     /* sum_i Ybar_i^2 of the pre-averaged returns (with plan.kn) */
} RaidNoiseSums;
/* The measures from the sums, in float64 (the final combinations of both backends); g: room for kn + 1. */
void raidNoiseFinish(const RaidNoisePlan *p, const RaidNoiseSums *s, double *g, raid_realized_noise *o);
/* The float64 path of one segment (w may be NULL when M == 0). */
void raidNoiseCpuSegment(const double *r, int64_t M, RaidNoiseScratch *w, raid_realized_noise *o);
/* sum_{i>=1} min(|r_i|, |r_{i-1}|)^2 in float64 (compensated). */
double raidNoiseMinSum(const double *r, int64_t M);
/* The terms of gamma_h that involve a jittered end point (x_0 or x_{n-1}, n = M - 2 >= 1), in float64
 * as the cpu path forms them: gamma_h minus the sum over the interior returns r_2 .. r_{M-3}. */
double raidNoiseGammaEnds(const double *r, int64_t M, int64_t h);
/* 1 for h = 0, else 2 k(h/(H+1)) (Parzen): rk = sum_h weight_h gamma_h. */
double raidNoiseKernelWeight(int64_t h, int64_t H);

/* The backends of raid_realized_noise_compute (arguments and range checked, host memory): out[0 .. nseg). */
typedef struct RaidRealizedNoiseBackend {
    raid_status (*compute)(raid_ctx *ctx, const double *r, const int64_t *offsets, size_t nseg,
                           raid_realized_noise *out);
} RaidRealizedNoiseBackend;
extern const RaidRealizedNoiseBackend raidRealizedNoiseBackends[2];
raid_status raidRealizedNoiseCpu(raid_ctx *ctx, const double *r, const int64_t *offsets, size_t nseg,
                                 raid_realized_noise *out);
/* The device backend (noise_device.c): the plans on the host, the sums on the device (kernels/noise.cl),
 * the combinations on the host; a segment the device cannot take (beyond RAID_NOISE_DEVICE_MAX returns,
 * or a window beyond 2^16 returns) is computed by the cpu path. */
raid_status raidRealizedNoiseDevice(raid_ctx *ctx, const double *r, const int64_t *offsets, size_t nseg,
                                    raid_realized_noise *out);
#define RAID_NOISE_DEVICE_MAX ((int64_t)1 << 26)
#define RAID_NOISE_MAX_WINDOW ((int64_t)1 << 16)

#endif
