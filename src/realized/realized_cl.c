/*
 * Host driver of the fused realized kernel (kernels/realized.cl).
 *
 * 1. Each segment is scaled by a power of two 2^-e so that max |r| lies in [0.5, 1) (exact in binary
 *    floating point; keeps every term of every measure in float32's normal range).
 * 2. The chunk reduction (src/device/chunk.h: plan, batch pipeline, float64 combine) cuts segments into
 *    chunks and groups them into batches that fit a device buffer (32-bit device indices, 64-bit host
 *    offsets).
 * 3. For each batch this file converts the scaled returns to the input policy (f32: one float; df: hi
 *    and lo floats); the pipeline uploads them, launches one work-group per chunk and reads back six
 *    float2 partials per chunk, converting the next batch while the device works.
 * 4. Partials are combined in float64 in chunk order and unscaled; the window terms that straddle
 *    chunk boundaries are computed in float64 from the values the device saw and added per segment.
 * 5. A sum small enough for binary32 underflow to matter is recomputed on the host (see below).
 */
#include "device/chunk.h"
#include "realized/realized_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ALIGN_ELEMS 4

/* The value the device sees for return r of a segment with scale exponent e (scaled domain). With
 * keep_tiny, a value below binary32's normal range is kept exact instead (for the host recomputation,
 * where rounding it to a subnormal float would lose its relative accuracy). */
static inline double device_value(double r, int e, raid_precision p, int keep_tiny)
{
    const double v = ldexp(r, -e);
    if (keep_tiny && fabs(v) < (p == RAID_PREC_F32 ? 0x1p-126 : 0x1p-100)) /* df: lo must be normal too */
        return v;
    return raid_policy_value(v, p);
}

/* The exponent e with maxabs * 2^-e in [0.5, 1). Returns are at most 1e74 < 2^246 (raid_realized_compute
 * checks), so e <= 246 and 2^(4e) is finite; tiny segments are scaled up by at most 2^250, keeping
 * 2^(-4e) in range too (their values may stay subnormal in binary32: the underflow guard handles that). */
static int segment_exponent(double maxabs)
{
    if (maxabs == 0.0)
        return 0;
    int e;
    frexp(maxabs, &e);
    return e < -250 ? -250 : e;
}

typedef struct convert_ctx {
    const double *r;
    const int *seg_e;
    raid_precision prec;
} convert_ctx;

/* Scale each chunk's returns by its segment's power of two and convert them to the input policy. */
static void convert_batch(void *user, const raid_chunk_plan *plan, size_t first, size_t count, const uint32_t *table,
                          void *staging)
{
    const convert_ctx *cv = user;
    const long long n = (long long)count;
#pragma omp parallel for schedule(static)
    for (long long i = 0; i < n; i++) {
        const raid_chunk *ch = &plan->chunks[first + (size_t)i];
        const double f = ldexp(1.0, -cv->seg_e[ch->seg]);
        const double *src = cv->r + ch->start;
        for (uint32_t j = 0; j < ch->len; j++)
            raid_stage_value(staging, (size_t)table[2 * i] + j, src[j] * f, cv->prec);
    }
}

/* The measure group (RAID_PART_*) whose kernel computes accumulator k. */
static unsigned acc_part(int k)
{
    switch (k) {
    case RAID_ACC_RS_NEG:
    case RAID_ACC_RS_POS:
        return RAID_PART_RS;
    case RAID_ACC_BPV:
        return RAID_PART_BPV;
    case RAID_ACC_QUART:
    case RAID_ACC_TPQ:
        return RAID_PART_QUART;
    default:
        return RAID_PART_MED;
    }
}

void raid_realized_cl_options(const raid_ctx *ctx, unsigned part_mask, char *buf, size_t len)
{
    snprintf(buf, len, "-DRAID_WG=%zu -DRAID_RUN=%zu -DRAID_INPUT_DF=%d -DRAID_PART=%u %s", ctx->wg_width,
             ctx->chunk_len / ctx->wg_width, ctx->precision == RAID_PREC_DF, part_mask, raid_tune_build_options(ctx));
}

raid_status raid_realized_acc_cl(raid_ctx *ctx, const double *r, const int64_t *offsets, size_t nseg,
                                 unsigned part_mask, double *acc)
{
    double t_convert = 0;
    memset(&ctx->timing, 0, sizeof ctx->timing);
    memset(acc, 0, nseg * RAID_NACC * sizeof *acc);
    const raid_precision prec = ctx->precision;
    const size_t esize = prec == RAID_PREC_F32 ? sizeof(float) : 2 * sizeof(float);

    /* The kernel stages a chunk in local memory (padded one word in 32) next to its reduction arrays. */
    const size_t padded = ctx->chunk_len + ctx->chunk_len / 32 + 1;
    const uint64_t local_need = (uint64_t)(padded * (prec == RAID_PREC_DF ? 2 : 1) + 2 * RAID_NACC * ctx->wg_width) * 4;
    if (local_need > raid_dev_local_mem(ctx))
        return raid_fail(ctx, RAID_EINVAL, "chunk length %zu with work-group width %zu needs %llu bytes of local memory; "
                         "the device has %llu (use a shorter chunk)", ctx->chunk_len, ctx->wg_width,
                         (unsigned long long)local_need, (unsigned long long)raid_dev_local_mem(ctx));
    char opts[512];
    raid_realized_cl_options(ctx, part_mask, opts, sizeof opts);
    raid_kernel *kern;
    raid_status st = raid_kernel_get(ctx, "realized.cl", "realized_fused", opts, &kern);
    if (st != RAID_OK)
        return st;

    /* 1. Per segment, the scale exponent that brings max |r| into [0.5, 1). */
    raid_chunk_plan plan;
    memset(&plan, 0, sizeof plan);
    int *seg_e = malloc((nseg ? nseg : 1) * sizeof *seg_e);
    double *scale = malloc((nseg ? nseg : 1) * RAID_NACC * sizeof *scale);
    double *straddle = calloc((nseg ? nseg : 1) * RAID_NACC, sizeof *straddle);
    if (!seg_e || !scale || !straddle) {
        st = raid_fail(ctx, RAID_ENOMEM, "out of memory");
        goto out;
    }
    const double t0 = raid_now();
    {
        const long long ns = (long long)nseg;
#pragma omp parallel for schedule(dynamic, 64)
        for (long long s = 0; s < ns; s++) {
            double mx = 0;
            for (int64_t j = offsets[s]; j < offsets[s + 1]; j++)
                mx = fmax(mx, fabs(r[j]));
            seg_e[s] = segment_exponent(mx);
            for (int k = 0; k < RAID_NACC; k++) {
                const int pw = (k == RAID_ACC_QUART || k == RAID_ACC_TPQ) ? 4 : 2;
                scale[s * RAID_NACC + k] = ldexp(1.0, pw * seg_e[s]);
            }
        }
    }
    t_convert += raid_now() - t0;
    st = raid_plan_build(&plan, offsets, nseg, ctx->chunk_len);
    if (st != RAID_OK) {
        st = raid_fail(ctx, st, "cannot plan %zu segments", nseg);
        goto out;
    }

    /* 2. Batches through the shared pipeline: conversion, upload, one work-group per chunk, float64
     *    combine in chunk order. */
    {
        convert_ctx cv = {r, seg_e, prec};
        raid_chunk_job job = {&plan, kern, ctx->wg_width, esize, ALIGN_ELEMS, RAID_NACC, convert_batch, &cv, scale,
                              acc, "the realized kernel", {NULL, 0, RAID_DT_FLOAT}, 0};
        st = raid_chunk_reduce(ctx, &job);
        if (st != RAID_OK)
            goto out;
    }

    /* 4. Window terms straddling chunk boundaries, from the values the device saw, in float64. */
    {
        const double tw = raid_now();
        for (size_t c = 0; c < plan.nchunks; c++) {
            const raid_chunk *ch = &plan.chunks[c];
            const int64_t s0 = offsets[ch->seg];
            if (ch->start == s0)
                continue;
            const int e = seg_e[ch->seg];
            double v[4];
            const int64_t lo = ch->start - 2 < s0 ? s0 : ch->start - 2;
            const int64_t hi = ch->start + (ch->len < 2 ? ch->len : 2);
            for (int64_t j = lo; j < hi; j++)
                v[j - lo] = device_value(r[j], e, prec, 0);
            double *sa = straddle + ch->seg * RAID_NACC;
            for (int64_t j = ch->start; j < hi; j++) {
                unsigned m = part_mask & (j == ch->start ? RAID_PART_ALL : (RAID_PART_ALL & ~RAID_PART_BPV));
                raid_realized_window_terms(v, j - lo, s0 - lo, m, sa);
            }
        }
        for (size_t s = 0; s < nseg; s++)
            for (int k = 0; k < RAID_NACC; k++)
                acc[s * RAID_NACC + k] += straddle[s * RAID_NACC + k] * scale[s * RAID_NACC + k];
        /* 5. Underflow guard. After scaling, a term of the device can leave binary32's normal range only
         * when it is below 2^-100 or so (products of up to four returns, each |r| < 1, and their TwoProd
         * error terms), and then it is wrong by at most a few 2^-149 in absolute terms. A sum of M terms
         * that is at least M 2^-100 is therefore unaffected at 2^-48; a smaller one (a segment whose
         * negative returns are all tiny, or that has none) is recomputed on the host in float64 from the
         * same policy-rounded returns, tiny ones kept exact. */
        double *host_v = NULL;
        size_t host_cap = 0;
        for (size_t s = 0; s < nseg; s++) {
            const int64_t m = offsets[s + 1] - offsets[s];
            for (int k = 0; k < RAID_NACC; k++) {
                if (!(part_mask & acc_part(k)))
                    continue; /* not computed by this kernel (fusion ablation): zero, and no sign of underflow */
                if (acc[s * RAID_NACC + k] / scale[s * RAID_NACC + k] < ldexp((double)m, -100)) {
                    if ((size_t)m > host_cap) {
                        free(host_v);
                        host_cap = (size_t)m;
                        host_v = malloc(host_cap * sizeof *host_v);
                        if (!host_v) {
                            st = raid_fail(ctx, RAID_ENOMEM, "out of memory");
                            goto out;
                        }
                    }
                    for (int64_t j = 0; j < m; j++)
                        host_v[j] = device_value(r[offsets[s] + j], seg_e[s], prec, 1);
                    raid_realized_acc_cpu(host_v, m, acc + s * RAID_NACC);
                    for (int q = 0; q < RAID_NACC; q++)
                        acc[s * RAID_NACC + q] *= scale[s * RAID_NACC + q];
                    ctx->timing.host_segments++;
                    break;
                }
            }
        }
        free(host_v);
        t_convert += raid_now() - tw;
    }
    st = RAID_OK;

out:
    free(seg_e);
    free(scale);
    free(straddle);
    raid_plan_free(&plan);
    raid_kernel_put(ctx, kern);
    ctx->timing.convert_s += t_convert;
    return st;
}
