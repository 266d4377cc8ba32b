/*
 * The batch pipeline of every chunked reduction kernel: given a chunk plan (src/plan/chunk_plan.h), it
 * groups consecutive chunks into batches that fit a device buffer, has the caller convert each batch's
 * elements into a staging buffer, uploads them with the chunk table, launches one work-group per chunk,
 * reads back nacc float2 partials per chunk and combines them in float64 in chunk order
 * (raid_plan_combine). Two sets of buffers let the host convert batch i+1 while the device works on
 * batch i. Kernel arguments 0, 1, 2 are the data, the chunk table (uint2: offset in the batch, length)
 * and the partials; the caller may set further arguments before the launch.
 *
 * Resident input: when the caller has uploaded all elements once (chunks of overlapping ranges share
 * them, as the rolling windows of one series do), nothing is converted or uploaded per batch; argument 0
 * is that buffer and the table holds uint4 (position in it, length, segment, 0).
 */
#ifndef RAID_CHUNK_LAUNCH_H
#define RAID_CHUNK_LAUNCH_H

#include "backend/opencl_runtime.h"
#include "plan/chunk_plan.h"

/* Store value v (already scaled) as element `at` of a staging buffer of the input policy: one float for
 * RAID_PREC_F32, the pair hi = (float)v, lo = (float)(v - hi) for RAID_PREC_DF (v to about 2^-48). */
static inline void raid_stage_value(void *staging, size_t at, double v, raid_precision p)
{
    const float hi = (float)v;
    if (p == RAID_PREC_F32) {
        ((float *)staging)[at] = hi;
    } else {
        ((float *)staging)[2 * at] = hi;
        ((float *)staging)[2 * at + 1] = (float)(v - (double)hi);
    }
}

/* The float64 value that raid_stage_value represents for v (hi, or hi + lo, which is exact in double). */
static inline double raid_policy_value(double v, raid_precision p)
{
    const float hi = (float)v;
    return p == RAID_PREC_F32 ? (double)hi : (double)hi + (double)(float)(v - (double)hi);
}

/* Fill staging with chunks first .. first+count-1 of the plan: chunk i (0-based in the batch) starts at
 * element table[2*i] of staging (elements of elem_bytes each) and has table[2*i+1] elements. */
typedef void (*raid_chunk_convert_fn)(void *user, const raid_chunk_plan *plan, size_t first, size_t count,
                                      const cl_uint *table, void *staging);

typedef struct raid_chunk_job {
    const raid_chunk_plan *plan;
    cl_kernel kernel;
    size_t wg;                     /* work-group width */
    size_t elem_bytes;             /* bytes of one element on the device */
    size_t align;                  /* chunk starts are multiples of align elements in a batch */
    size_t nacc;                   /* partials (float2) per chunk */
    raid_chunk_convert_fn convert;
    void *user;
    const double *scale;           /* nseg * nacc factors for the combine, or NULL */
    double *acc;                   /* nseg * nacc, added to */
    const char *what;              /* kernel name for messages */
    cl_mem resident;               /* NULL, or all elements on the device: element i at i - resident_base */
    int64_t resident_base;         /* (convert and align are then unused) */
} raid_chunk_job;

/* Run the job; adds kernel, upload and conversion times, bytes and launches to ctx->timing.
 * Errors: RAID_ENOMEM and the device errors. */
raid_status raid_chunk_launch(raid_ctx *ctx, const raid_chunk_job *job);

#endif
