/* The batch pipeline of chunked reduction kernels: see chunk_launch.h. */
#include "backend/chunk_launch.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_BATCH_ELEMS ((size_t)1 << 25)
#define PART_BYTES ((size_t)1 << 27) /* 128 MiB of partials per batch at most */

typedef struct batch_buf {
    void *staging;        /* converted elements, host */
    cl_uint *table;       /* (offset, len) or (position, len, segment, 0) per chunk, host */
    float *part;          /* partials read back, host */
    cl_mem x, chunk, out; /* device buffers */
    cl_event ev_w, ev_k;  /* upload and kernel, for timing */
    cl_event done;        /* read of the partials */
    size_t first, count;  /* chunks of the batch in flight */
    double best_k;        /* fastest of the repeated launches (benchmark only) */
} batch_buf;

static void release_events(batch_buf *b)
{
    cl_event *evs[3] = {&b->ev_w, &b->ev_k, &b->done};
    for (int i = 0; i < 3; i++)
        if (*evs[i]) {
            clReleaseEvent(*evs[i]);
            *evs[i] = NULL;
        }
}

/* Positions of the batch's chunks (the rule of raid_plan_next_batch). */
static void fill_table(const raid_chunk_plan *plan, size_t first, size_t count, size_t align, cl_uint *table)
{
    size_t pos = 0;
    for (size_t i = 0; i < count; i++) {
        pos = raid_plan_align(pos, align);
        table[2 * i] = (cl_uint)pos;
        table[2 * i + 1] = plan->chunks[first + i].len;
        pos += plan->chunks[first + i].len;
    }
}

/* The table of a batch over resident input. */
static void fill_table_resident(const raid_chunk_plan *plan, size_t first, size_t count, int64_t base, cl_uint *table)
{
    for (size_t i = 0; i < count; i++) {
        const raid_chunk *ch = &plan->chunks[first + i];
        table[4 * i] = (cl_uint)(ch->start - base);
        table[4 * i + 1] = ch->len;
        table[4 * i + 2] = ch->seg;
        table[4 * i + 3] = 0;
    }
}

/* Convert, upload and launch batch b (chunks from c); enqueue the read of its partials. */
static cl_int enqueue_batch(raid_ctx *ctx, const raid_chunk_job *job, batch_buf *b, size_t c, size_t max_elems,
                            size_t max_count)
{
    const raid_chunk_plan *plan = job->plan;
    cl_command_queue q = raid_cl_queue(ctx);
    size_t el;
    b->first = c;
    b->count = raid_plan_next_batch(plan, c, max_elems, max_count, job->align, &el);
    const double tc = raid_now();
    const size_t tw = job->resident ? 4 : 2;
    cl_int e = CL_SUCCESS;
    if (job->resident) {
        fill_table_resident(plan, c, b->count, job->resident_base, b->table);
    } else {
        fill_table(plan, c, b->count, job->align, b->table);
        job->convert(job->user, plan, c, b->count, b->table, b->staging);
        e = clEnqueueWriteBuffer(q, b->x, CL_FALSE, 0, el * job->elem_bytes, b->staging, 0, NULL, &b->ev_w);
    }
    ctx->timing.convert_s += raid_now() - tc;
    if (e == CL_SUCCESS)
        e = clEnqueueWriteBuffer(q, b->chunk, CL_FALSE, 0, b->count * tw * sizeof(cl_uint), b->table, 0, NULL, NULL);
    if (e == CL_SUCCESS)
        e = clSetKernelArg(job->kernel, 0, sizeof(cl_mem), job->resident ? &job->resident : &b->x);
    if (e == CL_SUCCESS)
        e = clSetKernelArg(job->kernel, 1, sizeof(cl_mem), &b->chunk);
    if (e == CL_SUCCESS)
        e = clSetKernelArg(job->kernel, 2, sizeof(cl_mem), &b->out);
    size_t local = job->wg, global = b->count * job->wg;
    if (e == CL_SUCCESS)
        e = clEnqueueNDRangeKernel(q, job->kernel, 1, NULL, &global, &local, 0, NULL, &b->ev_k);
    /* Benchmark only: relaunch on the resident batch so the device stays busy; the fastest launch is
     * kept as the batch's kernel time. */
    b->best_k = INFINITY;
    for (int rep = 1; e == CL_SUCCESS && rep < ctx->kernel_repeat; rep++) {
        cl_event ev;
        e = clEnqueueNDRangeKernel(q, job->kernel, 1, NULL, &global, &local, 0, NULL, &ev);
        if (e == CL_SUCCESS && (e = clWaitForEvents(1, &ev)) == CL_SUCCESS) {
            const double t = raid_cl_event_seconds(ev);
            b->best_k = t < b->best_k ? t : b->best_k;
        }
        if (e == CL_SUCCESS)
            clReleaseEvent(ev);
    }
    if (e == CL_SUCCESS)
        e = clEnqueueReadBuffer(q, b->out, CL_FALSE, 0, b->count * job->nacc * 2 * sizeof(float), b->part, 0, NULL,
                                &b->done);
    if (e == CL_SUCCESS)
        e = clFlush(q);
    if (e == CL_SUCCESS) {
        if (!job->resident)
            ctx->timing.bytes_in += (uint64_t)(el * job->elem_bytes);
        ctx->timing.launches++;
    }
    return e;
}

raid_status raid_chunk_launch(raid_ctx *ctx, const raid_chunk_job *job)
{
    const raid_chunk_plan *plan = job->plan;
    if (plan->nchunks == 0)
        return RAID_OK;
    size_t max_elems = ctx->max_batch_elems ? ctx->max_batch_elems : DEFAULT_BATCH_ELEMS;
    const size_t by_alloc = (size_t)(raid_cl_max_alloc(ctx) / job->elem_bytes);
    if (by_alloc < max_elems)
        max_elems = by_alloc > plan->chunk_len + job->align ? by_alloc : plan->chunk_len + job->align;
    if (job->resident) /* nothing is staged: only the partials limit a batch */
        max_elems = SIZE_MAX;
    const size_t tw = job->resident ? 4 : 2;
    /* Partials read back per batch stay under PART_BYTES however many accumulators a chunk has. */
    size_t max_count = PART_BYTES / (job->nacc * 2 * sizeof(float));
    if (max_count < 1)
        max_count = 1;
    size_t cap_elems = 1, max_chunks = 1;
    for (size_t c = 0, nb = 0; c < plan->nchunks; c += nb) {
        size_t el;
        nb = raid_plan_next_batch(plan, c, max_elems, max_count, job->align, &el);
        cap_elems = el > cap_elems ? el : cap_elems;
        max_chunks = nb > max_chunks ? nb : max_chunks;
    }

    raid_status st = RAID_OK;
    batch_buf bb[2];
    memset(bb, 0, sizeof bb);
    for (int i = 0; i < 2; i++) {
        /* staging and partials in page-locked memory (fast transfers), the small table in ordinary */
        if ((!job->resident && (st = raid_cl_acquire_host(ctx, cap_elems * job->elem_bytes, &bb[i].staging)) != RAID_OK) ||
            (st = raid_cl_acquire_host(ctx, max_chunks * job->nacc * 2 * sizeof(float), (void **)&bb[i].part)) != RAID_OK)
            goto out;
        bb[i].table = malloc(max_chunks * tw * sizeof(cl_uint));
        if (!bb[i].table) {
            st = raid_fail(ctx, RAID_ENOMEM, "out of memory for staging buffers");
            goto out;
        }
        if ((!job->resident && (st = raid_cl_acquire(ctx, cap_elems * job->elem_bytes, &bb[i].x)) != RAID_OK) ||
            (st = raid_cl_acquire(ctx, max_chunks * tw * sizeof(cl_uint), &bb[i].chunk)) != RAID_OK ||
            (st = raid_cl_acquire(ctx, max_chunks * job->nacc * 2 * sizeof(float), &bb[i].out)) != RAID_OK)
            goto out;
    }

    size_t c = 0;
    int cur = 0;
    batch_buf *prev = NULL;
    while (c < plan->nchunks || prev) {
        batch_buf *b = NULL;
        if (c < plan->nchunks) {
            b = &bb[cur];
            cl_int e = enqueue_batch(ctx, job, b, c, max_elems, max_count);
            if (e != CL_SUCCESS) {
                st = raid_cl_check(ctx, e, job->what);
                break;
            }
            c += b->count;
            cur ^= 1;
        }
        if (prev) {
            cl_int e = clWaitForEvents(1, &prev->done);
            if (e != CL_SUCCESS) {
                st = raid_cl_check(ctx, e, job->what);
                break;
            }
            if (prev->ev_w)
                ctx->timing.upload_s += raid_cl_event_seconds(prev->ev_w);
            const double tk = raid_cl_event_seconds(prev->ev_k);
            ctx->timing.kernel_s += tk < prev->best_k ? tk : prev->best_k;
            release_events(prev);
            raid_plan_combine(plan, prev->first, prev->count, prev->part, job->nacc, job->scale, job->acc);
        }
        prev = b;
    }
    if (st != RAID_OK)
        clFinish(raid_cl_queue(ctx));

out:
    for (int i = 0; i < 2; i++) {
        release_events(&bb[i]);
        raid_cl_release_host(ctx, bb[i].staging);
        free(bb[i].table);
        raid_cl_release_host(ctx, bb[i].part);
        raid_cl_release(ctx, bb[i].x);
        raid_cl_release(ctx, bb[i].chunk);
        raid_cl_release(ctx, bb[i].out);
    }
    return st;
}
