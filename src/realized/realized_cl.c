/*
 * Host driver of the fused realized kernel (kernels/realized.cl).
 *
 * 1. Each segment is scaled by a power of two 2^-e so that max |r| lies in [0.5, 1) (exact in binary
 *    floating point; keeps every term of every measure in float32's normal range).
 * 2. The chunk plan (src/plan/chunk_plan.h) cuts segments into chunks; consecutive chunks form batches
 *    that fit a device buffer (32-bit device indices, 64-bit host offsets).
 * 3. For each batch the host converts the scaled returns to the input policy (f32: one float; df: hi and
 *    lo floats), uploads them with the chunk table, launches one work-group per chunk and reads back
 *    six float2 partials per chunk. The next batch is converted while the device works (two staging
 *    buffers).
 * 4. Partials are combined in float64 in chunk order and unscaled; the window terms that straddle
 *    chunk boundaries are computed in float64 from the values the device saw and added per segment.
 * 5. A sum small enough for binary32 underflow to matter is recomputed on the host (see below).
 */
#include "backend/opencl_runtime.h"
#include "plan/chunk_plan.h"
#include "realized/realized_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_BATCH_ELEMS ((size_t)1 << 25)
#define ALIGN_ELEMS 4

typedef struct cl_batch_buf {
    void *staging;        /* converted returns, host */
    cl_uint *table;       /* (offset, len) per chunk, host */
    float *part;          /* partials read back, host */
    cl_mem x, chunk, out; /* device buffers */
    cl_event ev_w, ev_k;  /* upload and kernel, for timing */
    cl_event done;        /* read of the partials */
    size_t first, count;  /* chunks of the batch in flight */
    double best_k;        /* fastest of the repeated launches (benchmark only) */
} cl_batch_buf;

static void release_events(cl_batch_buf *b)
{
    cl_event *evs[3] = {&b->ev_w, &b->ev_k, &b->done};
    for (int i = 0; i < 3; i++)
        if (*evs[i]) {
            clReleaseEvent(*evs[i]);
            *evs[i] = NULL;
        }
}

/* The value the device sees for return r of a segment with scale exponent e (scaled domain). With
 * keep_tiny, a value below binary32's normal range is kept exact instead (for the host recomputation,
 * where rounding it to a subnormal float would lose its relative accuracy). */
static inline double device_value(double r, int e, raid_precision p, int keep_tiny)
{
    const double v = ldexp(r, -e);
    if (keep_tiny && fabs(v) < (p == RAID_PREC_F32 ? 0x1p-126 : 0x1p-100)) /* df: lo must be normal too */
        return v;
    const float hi = (float)v;
    if (p == RAID_PREC_F32)
        return (double)hi;
    const float lo = (float)(v - (double)hi);
    return (double)hi + (double)lo;
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

static raid_status convert_batch(const raid_chunk_plan *plan, size_t first, size_t count, const double *r,
                                 const int *seg_e, raid_precision p, void *staging, cl_uint *table)
{
    /* Positions of chunks inside the batch (the same rule as raid_plan_next_batch). */
    size_t pos = 0;
    for (size_t i = 0; i < count; i++) {
        pos = raid_plan_align(pos, ALIGN_ELEMS);
        table[2 * i] = (cl_uint)pos;
        table[2 * i + 1] = plan->chunks[first + i].len;
        pos += plan->chunks[first + i].len;
    }
    const long long n = (long long)count;
#pragma omp parallel for schedule(static)
    for (long long i = 0; i < n; i++) {
        const raid_chunk *ch = &plan->chunks[first + (size_t)i];
        const double f = ldexp(1.0, -seg_e[ch->seg]);
        const double *src = r + ch->start;
        if (p == RAID_PREC_F32) {
            float *dst = (float *)staging + table[2 * i];
            for (uint32_t j = 0; j < ch->len; j++)
                dst[j] = (float)(src[j] * f);
        } else {
            float *dst = (float *)staging + 2 * (size_t)table[2 * i];
            for (uint32_t j = 0; j < ch->len; j++) {
                const double v = src[j] * f;
                const float hi = (float)v;
                dst[2 * j] = hi;
                dst[2 * j + 1] = (float)(v - (double)hi);
            }
        }
    }
    return RAID_OK;
}

raid_status raid_realized_acc_cl(raid_ctx *ctx, const double *r, const int64_t *offsets, size_t nseg,
                                 unsigned part_mask, double *acc)
{
    double t_convert = 0;
    memset(&ctx->timing, 0, sizeof ctx->timing);
    memset(acc, 0, nseg * RAID_NACC * sizeof *acc);
    const raid_precision prec = ctx->precision;
    const size_t esize = prec == RAID_PREC_F32 ? sizeof(float) : 2 * sizeof(float);
    const size_t run = ctx->chunk_len / ctx->wg_width;

    /* The kernel stages a chunk in local memory (padded one word in 32) next to its reduction arrays. */
    const size_t padded = ctx->chunk_len + ctx->chunk_len / 32 + 1;
    const uint64_t local_need = (uint64_t)(padded * (prec == RAID_PREC_DF ? 2 : 1) + 2 * RAID_NACC * ctx->wg_width) * 4;
    if (local_need > raid_cl_local_mem(ctx))
        return raid_fail(ctx, RAID_EINVAL, "chunk length %zu with work-group width %zu needs %llu bytes of local memory; "
                         "the device has %llu (use a shorter chunk)", ctx->chunk_len, ctx->wg_width,
                         (unsigned long long)local_need, (unsigned long long)raid_cl_local_mem(ctx));
    char opts[512];
    snprintf(opts, sizeof opts, "-DRAID_WG=%zu -DRAID_RUN=%zu -DRAID_INPUT_DF=%d -DRAID_PART=%u %s", ctx->wg_width,
             run, prec == RAID_PREC_DF, part_mask, ctx->cl_extra_options);
    cl_kernel kern;
    raid_status st = raid_cl_kernel(ctx, "realized.cl", "realized_fused", opts, &kern);
    if (st != RAID_OK)
        return st;

    /* 1. Per segment, the scale exponent that brings max |r| into [0.5, 1). */
    raid_chunk_plan plan;
    memset(&plan, 0, sizeof plan);
    int *seg_e = malloc((nseg ? nseg : 1) * sizeof *seg_e);
    double *scale = malloc((nseg ? nseg : 1) * RAID_NACC * sizeof *scale);
    double *straddle = calloc((nseg ? nseg : 1) * RAID_NACC, sizeof *straddle);
    cl_batch_buf bb[2];
    memset(bb, 0, sizeof bb);
    size_t max_elems = ctx->max_batch_elems ? ctx->max_batch_elems : MAX_BATCH_ELEMS;
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

    /* 2. Batches: sized once, two sets of buffers, conversion of batch i+1 overlapping the device. */
    {
        const size_t by_alloc = (size_t)(raid_cl_max_alloc(ctx) / esize);
        if (by_alloc < max_elems)
            max_elems = by_alloc > ctx->chunk_len + ALIGN_ELEMS ? by_alloc : ctx->chunk_len + ALIGN_ELEMS;
        size_t cap_elems = 1, max_chunks = 1;
        for (size_t c = 0, nb = 0; c < plan.nchunks; c += nb) {
            size_t el;
            nb = raid_plan_next_batch(&plan, c, max_elems, ALIGN_ELEMS, &el);
            cap_elems = el > cap_elems ? el : cap_elems;
            max_chunks = nb > max_chunks ? nb : max_chunks;
        }
        for (int i = 0; i < 2; i++) {
            bb[i].staging = malloc(cap_elems * esize);
            bb[i].table = malloc(max_chunks * 2 * sizeof(cl_uint));
            bb[i].part = malloc(max_chunks * RAID_NACC * 2 * sizeof(float));
            if (!bb[i].staging || !bb[i].table || !bb[i].part) {
                st = raid_fail(ctx, RAID_ENOMEM, "out of memory for staging buffers");
                goto out;
            }
            if ((st = raid_cl_acquire(ctx, cap_elems * esize, &bb[i].x)) != RAID_OK ||
                (st = raid_cl_acquire(ctx, max_chunks * 2 * sizeof(cl_uint), &bb[i].chunk)) != RAID_OK ||
                (st = raid_cl_acquire(ctx, max_chunks * RAID_NACC * 2 * sizeof(float), &bb[i].out)) != RAID_OK)
                goto out;
        }
        cl_command_queue q = raid_cl_queue(ctx);
        size_t c = 0;
        int cur = 0;
        cl_batch_buf *prev = NULL;
        while (c < plan.nchunks || prev) {
            cl_batch_buf *b = NULL;
            if (c < plan.nchunks) {
                b = &bb[cur];
                size_t el;
                b->first = c;
                b->count = raid_plan_next_batch(&plan, c, max_elems, ALIGN_ELEMS, &el);
                const double tc = raid_now();
                convert_batch(&plan, c, b->count, r, seg_e, prec, b->staging, b->table);
                t_convert += raid_now() - tc;
                cl_int e = clEnqueueWriteBuffer(q, b->x, CL_FALSE, 0, el * esize, b->staging, 0, NULL, &b->ev_w);
                if (e == CL_SUCCESS)
                    e = clEnqueueWriteBuffer(q, b->chunk, CL_FALSE, 0, b->count * 2 * sizeof(cl_uint), b->table, 0,
                                             NULL, NULL);
                if (e == CL_SUCCESS)
                    e = clSetKernelArg(kern, 0, sizeof(cl_mem), &b->x);
                if (e == CL_SUCCESS)
                    e = clSetKernelArg(kern, 1, sizeof(cl_mem), &b->chunk);
                if (e == CL_SUCCESS)
                    e = clSetKernelArg(kern, 2, sizeof(cl_mem), &b->out);
                size_t local = ctx->wg_width, global = b->count * ctx->wg_width;
                if (e == CL_SUCCESS)
                    e = clEnqueueNDRangeKernel(q, kern, 1, NULL, &global, &local, 0, NULL, &b->ev_k);
                /* Benchmark only: relaunch on the resident batch so the device stays busy; the fastest
                 * launch is kept as the batch's kernel time. */
                b->best_k = INFINITY;
                for (int rep = 1; e == CL_SUCCESS && rep < ctx->kernel_repeat; rep++) {
                    cl_event ev;
                    e = clEnqueueNDRangeKernel(q, kern, 1, NULL, &global, &local, 0, NULL, &ev);
                    if (e == CL_SUCCESS && (e = clWaitForEvents(1, &ev)) == CL_SUCCESS) {
                        const double t = raid_cl_event_seconds(ev);
                        b->best_k = t < b->best_k ? t : b->best_k;
                    }
                    if (e == CL_SUCCESS)
                        clReleaseEvent(ev);
                }
                if (e == CL_SUCCESS)
                    e = clEnqueueReadBuffer(q, b->out, CL_FALSE, 0, b->count * RAID_NACC * 2 * sizeof(float), b->part,
                                            0, NULL, &b->done);
                if (e == CL_SUCCESS)
                    e = clFlush(q);
                if (e != CL_SUCCESS) {
                    st = raid_cl_check(ctx, e, "enqueueing the realized kernel");
                    goto drain;
                }
                ctx->timing.bytes_in += (uint64_t)(el * esize);
                ctx->timing.launches++;
                c += b->count;
                cur ^= 1;
            }
            if (prev) {
                cl_int e = clWaitForEvents(1, &prev->done);
                if (e != CL_SUCCESS) {
                    st = raid_cl_check(ctx, e, "running the realized kernel");
                    goto drain;
                }
                ctx->timing.upload_s += raid_cl_event_seconds(prev->ev_w);
                const double tk = raid_cl_event_seconds(prev->ev_k);
                ctx->timing.kernel_s += tk < prev->best_k ? tk : prev->best_k;
                release_events(prev);
                raid_plan_combine(&plan, prev->first, prev->count, prev->part, RAID_NACC, scale, acc);
            }
            prev = b;
        }
        goto windows;
    drain:
        clFinish(q);
        for (int i = 0; i < 2; i++)
            release_events(&bb[i]);
        goto out;
    }

windows:
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
    for (int i = 0; i < 2; i++) {
        free(bb[i].staging);
        free(bb[i].table);
        free(bb[i].part);
        raid_cl_release(ctx, bb[i].x);
        raid_cl_release(ctx, bb[i].chunk);
        raid_cl_release(ctx, bb[i].out);
    }
    free(seg_e);
    free(scale);
    free(straddle);
    raid_plan_free(&plan);
    ctx->timing.convert_s = t_convert;
    return st;
}
