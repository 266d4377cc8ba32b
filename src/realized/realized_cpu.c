/*
 * The float64 reference path, which is also the product's cpu backend. The same chunk plan as the
 * device (src/device/chunk.h) with longer chunks gives parallelism inside long segments (OpenMP over
 * chunks); each chunk is accumulated with compensated float64 sums (TwoSum, Knuth), the window terms
 * that straddle chunks are added separately, and the chunk sums are combined in chunk order: the result
 * does not depend on the number of threads.
 */
#include "core/cbrt.h"
#include "core/dd.h"
#include "device/chunk.h"
#include "realized/realized_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CPU_CHUNK ((size_t)1 << 15)


/* The median of three non-negative values (finite unless the chunk has a bad return: then its sums are
 * not used), with
 * comparisons that compile to minsd/maxsd rather than calls to fmin and fmax. */
static inline double med3(double a, double b, double c)
{
    const double lo = a < b ? a : b, hi = a < b ? b : a, m = hi < c ? hi : c;
    return lo < m ? m : lo;
}

/* A tripower term |r_i r_{i-1} r_{i-2}|^(4/3) as p cbrt(p) of the product p: one cube root per term, and
 * no underflow of a 4/3 power before the product (1e70, 1e70, 1e-310 gave 0 for 3.4e-226
 * when each return's power was taken first: (1e-310)^(4/3) is below float64's range). |r| <= 1e74 keeps
 * p^(4/3) below 1e296. */
static inline double tripower(double a, double a1, double a2)
{
    const double p = a * a1 * a2;
    return p * raidCbrt(p);
}

/* Accumulate the terms of r[0..m) whose windows lie inside it, in blocks of CPU_BLOCK returns: the
 * tripower terms of a block first (independent cube roots, which the processor overlaps; inside the
 * accumulation loop their latency was exposed), then the sums. The accumulators are locals
 * (registers), written to acc once at the end: acc is a row of an array the threads share, and writing
 * it on every term made neighbouring chunks' threads contend for the same cache lines. rs_neg and
 * rs_pos both take a term for every return, zero on the other side (adding zero is exact), so the sign
 * selects a value rather than an accumulator. */
#define CPU_BLOCK 256
static void chunk_acc(const double *r, int64_t m, RaidDd acc[RAID_NACC])
{
    RaidDd neg = {0, 0}, pos = {0, 0}, quart = {0, 0}, bpv = {0, 0}, tpq = {0, 0}, med = {0, 0};
    double a1 = 0, a2 = 0, tb[CPU_BLOCK];
    for (int64_t i0 = 0; i0 < m; i0 += CPU_BLOCK) {
        const int nb = m - i0 < CPU_BLOCK ? (int)(m - i0) : CPU_BLOCK;
        for (int j = 0; j < nb; j++) {
            const int64_t i = i0 + j;
            tb[j] = i >= 2 ? tripower(fabs(r[i]), fabs(r[i - 1]), fabs(r[i - 2])) : 0.0;
        }
        for (int j = 0; j < nb; j++) {
            const int64_t i = i0 + j;
            const double x = r[i], a = fabs(x), sq = x * x;
            raidDdAdd(&neg, x < 0 ? sq : 0.0);
            raidDdAdd(&pos, x < 0 ? 0.0 : sq);
            raidDdAdd(&quart, sq * sq);
            if (i >= 1)
                raidDdAdd(&bpv, a * a1);
            if (i >= 2) {
                raidDdAdd(&tpq, tb[j]);
                const double md = med3(a, a1, a2);
                raidDdAdd(&med, md * md);
            }
            a2 = a1;
            a1 = a;
        }
    }
    acc[RAID_ACC_RS_NEG] = neg;
    acc[RAID_ACC_RS_POS] = pos;
    acc[RAID_ACC_QUART] = quart;
    acc[RAID_ACC_BPV] = bpv;
    acc[RAID_ACC_TPQ] = tpq;
    acc[RAID_ACC_MED] = med;
}

void raidRealizedWindowTerms(const double *v, int64_t j, int64_t seg_start, unsigned part_mask,
                                double acc[RAID_NACC])
{
    const double a = fabs(v[j]);
    if ((part_mask & RAID_PART_BPV) && j - seg_start >= 1)
        acc[RAID_ACC_BPV] += a * fabs(v[j - 1]);
    if (j - seg_start >= 2) {
        const double a1 = fabs(v[j - 1]), a2 = fabs(v[j - 2]);
        if (part_mask & RAID_PART_QUART)
            acc[RAID_ACC_TPQ] += tripower(a, a1, a2);
        if (part_mask & RAID_PART_MED) {
            const double md = med3(a, a1, a2);
            acc[RAID_ACC_MED] += md * md;
        }
    }
}

void raidRealizedAccCpu(const double *r, int64_t m, double acc[RAID_NACC])
{
    RaidDd d[RAID_NACC];
    chunk_acc(r, m, d);
    for (int k = 0; k < RAID_NACC; k++)
        acc[k] = raidDdValue(d[k]);
}

raid_status raidRealizedCpuBegin(raid_ctx *ctx, RaidRealizedJob *j, const double *r, const int64_t *offsets,
                                    size_t nseg)
{
    memset(j, 0, sizeof *j);
    j->r = r;
    j->offsets = offsets;
    j->nseg = nseg;
    raid_status s = raidPlanBuild(&j->plan, offsets, nseg, CPU_CHUNK);
    if (s != RAID_OK)
        return raidFail(ctx, s, "cannot plan %zu segments", nseg);
    const size_t nc = j->plan.nchunks;
    j->part = nc ? malloc(nc * RAID_NACC * sizeof *j->part) : NULL;
    j->bad = nc ? malloc(nc * sizeof *j->bad) : NULL;
    if (nc && (!j->part || !j->bad)) {
        raidRealizedCpuFree(j);
        return raidFail(ctx, RAID_ENOMEM, "out of memory");
    }
    return RAID_OK;
}

size_t raidRealizedCpuNchunks(const RaidRealizedJob *j) { return j->plan.nchunks; }

void raidRealizedCpuChunk(RaidRealizedJob *j, size_t c)
{
    const RaidChunk *ch = &j->plan.chunks[c];
    const double *r = j->r + ch->start;
    /* the range check of the chunk's returns, in the pass that brings them into the cache; a chunk with a
     * bad return is summed all the same (its sums are not used) */
    int any = 0;
    for (uint32_t i = 0; i < ch->len; i++)
        any |= !(fabs(r[i]) <= RAID_MAX_RETURN);
    j->bad[c] = (uint8_t)any;
    chunk_acc(r, ch->len, j->part + c * RAID_NACC);
}

void raidRealizedCpuFree(RaidRealizedJob *j)
{
    free(j->part);
    free(j->bad);
    raidPlanFree(&j->plan);
    memset(j, 0, sizeof *j);
}

raid_status raidRealizedCpuEnd(raid_ctx *ctx, RaidRealizedJob *j, raid_realized *out)
{
    const double *r = j->r;
    const int64_t *offsets = j->offsets;
    const size_t nseg = j->nseg;
    for (size_t c = 0; c < j->plan.nchunks; c++)
        if (j->bad[c]) { /* the first return out of range is in the first chunk that has one */
            const RaidChunk *ch = &j->plan.chunks[c];
            raid_status s = raidRealizedCheckRange(ctx, r, ch->start, ch->start + ch->len);
            raidRealizedCpuFree(j);
            return s != RAID_OK ? s : raidFail(ctx, RAID_EINVAL, "chunk %zu: a return out of range not found again", c);
        }
    double *acc = calloc(nseg ? nseg * RAID_NACC : 1, sizeof *acc);
    double *straddle = calloc(nseg ? nseg * RAID_NACC : 1, sizeof *straddle);
    if (!acc || !straddle) {
        free(acc);
        free(straddle);
        raidRealizedCpuFree(j);
        return raidFail(ctx, RAID_ENOMEM, "out of memory");
    }
    for (size_t c = 0; c < j->plan.nchunks; c++) {
        const RaidChunk *ch = &j->plan.chunks[c];
        const int64_t s0 = offsets[ch->seg];
        for (int k = 0; k < RAID_NACC; k++)
            acc[ch->seg * RAID_NACC + k] += raidDdValue(j->part[c * RAID_NACC + k]);
        if (ch->start > s0) {
            const int64_t end = ch->start + (ch->len < 2 ? ch->len : 2);
            for (int64_t i = ch->start; i < end; i++)
                raidRealizedWindowTerms(r, i, s0, i == ch->start ? RAID_PART_ALL : RAID_PART_ALL & ~RAID_PART_BPV,
                                           straddle + ch->seg * RAID_NACC);
        }
    }
    for (size_t i = 0; i < nseg * RAID_NACC; i++)
        acc[i] += straddle[i];
    for (size_t i = 0; i < nseg; i++)
        raidMeasuresFromAcc(acc + i * RAID_NACC, offsets[i + 1] - offsets[i], &out[i]);
    free(straddle);
    free(acc);
    raidRealizedCpuFree(j);
    return RAID_OK;
}

raid_status raidRealizedCpuCompute(raid_ctx *ctx, const double *r, const int64_t *offsets, size_t nseg,
                                     raid_realized *out)
{
    RaidRealizedJob j; /* the chunks on OpenMP's threads; each checks its returns' range */
    const raid_status s = raidRealizedCpuBegin(ctx, &j, r, offsets, nseg);
    if (s != RAID_OK)
        return s;
    const long long nch = (long long)raidRealizedCpuNchunks(&j);
#pragma omp parallel for schedule(dynamic, 1)
    for (long long c = 0; c < nch; c++)
        raidRealizedCpuChunk(&j, (size_t)c);
    return raidRealizedCpuEnd(ctx, &j, out);
}
