/* The chunk reduction: plan, batch pipeline and float64 combine (see chunk.h). Device calls go through
 * src/device/device.h only. */
#include "device/chunk.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

raid_status raidPlanBuildRanges(RaidChunkPlan *p, const int64_t *start, const int64_t *end, size_t nseg,
                                   size_t chunk_len)
{
    p->chunks = NULL;
    p->nchunks = 0;
    p->chunk_len = chunk_len;
    /* The chunk length is the context's (checked by raid_ctx_set_chunk) or a constant. */
    assert(chunk_len > 0 && chunk_len <= UINT32_MAX);
    if (nseg > UINT32_MAX)
        return RAID_EINVAL; /* an input too large for the plan's indices: the caller's message */
    size_t n = 0;
    for (size_t s = 0; s < nseg; s++) {
        int64_t m = end[s] - start[s];
        if (m < 0 || start[s] < 0) /* the operations check their ranges first; later users may not */
            return RAID_EINVAL;
        n += (size_t)((m + (int64_t)chunk_len - 1) / (int64_t)chunk_len);
    }
    if (n) {
        p->chunks = malloc(n * sizeof *p->chunks);
        if (!p->chunks)
            return RAID_ENOMEM;
    }
    size_t c = 0;
    for (size_t s = 0; s < nseg; s++)
        for (int64_t a = start[s]; a < end[s]; a += (int64_t)chunk_len) {
            int64_t left = end[s] - a;
            p->chunks[c].start = a;
            p->chunks[c].len = (uint32_t)(left < (int64_t)chunk_len ? left : (int64_t)chunk_len);
            p->chunks[c].seg = (uint32_t)s;
            c++;
        }
    p->nchunks = n;
    return RAID_OK;
}

raid_status raidPlanBuild(RaidChunkPlan *p, const int64_t *offsets, size_t nseg, size_t chunk_len)
{
    return raidPlanBuildRanges(p, offsets, offsets + 1, nseg, chunk_len);
}

void raidPlanFree(RaidChunkPlan *p)
{
    free(p->chunks);
    p->chunks = NULL;
    p->nchunks = 0;
}

size_t raidPlanNextBatch(const RaidChunkPlan *p, size_t first, size_t max_elems, size_t max_count, size_t align,
                            size_t *batch_elems)
{
    size_t pos = 0, c = first;
    while (c < p->nchunks && (c == first || c - first < max_count)) {
        size_t at = raidPlanAlign(pos, align);
        size_t end = at + p->chunks[c].len;
        if (end > max_elems && c > first)
            break;
        pos = end;
        c++;
        if (end >= max_elems)
            break;
    }
    *batch_elems = pos;
    return c - first;
}

/* The layout of a chunk-scaled kernel's trailing floats: nexp exponents, flags, ntail caller floats. */
typedef struct scaled_tail {
    const int *pow; /* nacc * nexp, or NULL: unscaled partials */
    size_t nexp, ntail;
    int32_t *chunk_exp;
    uint32_t *chunk_flags;
    float *chunk_tail;
    int per_chunk;
    int exp_given; /* the caller's chunk_exp (one exponent a chunk) instead of the kernel's tail */
} scaled_tail;

/* floats after the partials */
static size_t tail_floats(const scaled_tail *t)
{
    return t->pow && !t->exp_given ? (t->nexp + 1 + t->ntail + 1) / 2 * 2 : 0;
}

/* The combine of both kinds of partials: per chunk nacc float2 (times scale[seg][k], or 1), or, with pow,
 * nacc float2 followed by the tail (exponents, flags, caller floats), or with exp_given the caller's
 * chunk_exp instead of a tail; partial k times 2^(sum_j pow[k nexp + j] e_j). Each segment's chunks (consecutive in the plan) are added by one thread
 * in chunk order, so the result does not depend on the number of threads; segments are independent. */
static void combine(const RaidChunkPlan *p, size_t first, size_t count, const float *part, size_t nacc,
                    const double *scale, const scaled_tail *t, double *acc)
{
    const long long n = (long long)count;
    const int *pow = t ? t->pow : NULL;
    const size_t nexp = pow ? t->nexp : 0, stride = 2 * nacc + (t ? tail_floats(t) : 0);
#pragma omp parallel for schedule(dynamic, 256) if (count * nacc > 65536)
    for (long long i0 = 0; i0 < n; i0++) {
        const size_t seg = p->chunks[first + (size_t)i0].seg;
        if (i0 > 0 && p->chunks[first + (size_t)i0 - 1].seg == seg)
            continue; /* not the first chunk of its segment in this batch */
        for (size_t i = (size_t)i0; i < count && p->chunks[first + i].seg == seg; i++) {
            const float *q = part + stride * i;
            int e[RAID_CHUNK_MAX_EXP];
            if (pow && t->exp_given) {
                e[0] = t->chunk_exp[first + i];
            } else if (pow) {
                for (size_t j = 0; j < nexp; j++) {
                    e[j] = (int)q[2 * nacc + j];
                    if (t->chunk_exp)
                        t->chunk_exp[(first + i) * nexp + j] = e[j];
                }
                if (t->chunk_flags)
                    t->chunk_flags[first + i] = (uint32_t)q[2 * nacc + nexp];
                if (t->chunk_tail && t->ntail)
                    memcpy(t->chunk_tail + (first + i) * t->ntail, q + 2 * nacc + nexp + 1, t->ntail * sizeof(float));
            }
            double *a = acc + (t && t->per_chunk ? first + i : seg) * nacc;
            for (size_t k = 0; k < nacc; k++) {
                const double v = (double)q[2 * k] + (double)q[2 * k + 1];
                if (pow) {
                    int x = 0;
                    for (size_t j = 0; j < nexp; j++)
                        x += pow[k * nexp + j] * e[j];
                    a[k] += ldexp(v, x);
                } else {
                    a[k] += scale ? v * scale[seg * nacc + k] : v;
                }
            }
        }
    }
}

/* The tail of a job. */
static scaled_tail job_tail(const RaidChunkJob *job)
{
    const scaled_tail t = {job->chunk_pow, job->chunk_nexp > 0 ? (size_t)job->chunk_nexp : 1, job->chunk_ntail,
                           job->chunk_exp, job->chunk_flags, job->chunk_tail, job->per_chunk, job->exp_given};
    assert(t.nexp <= RAID_CHUNK_MAX_EXP);
    assert(!t.exp_given || (t.pow && t.nexp == 1 && t.ntail == 0 && t.chunk_exp)); /* one exponent, the caller's */
    return t;
}

/* ---- the batch pipeline ---- */

#define DEFAULT_BATCH_BYTES ((size_t)1 << 28) /* 2^25 float64 returns; rows of several values: fewer rows */
#define PART_BYTES ((size_t)1 << 27) /* 128 MiB of partials per batch at most */

typedef struct batch_buf {
    void *staging;            /* converted elements, host (page-locked) */
    uint32_t *table;          /* (offset, len) or (position, len, segment, 0) per chunk, host */
    float *part;              /* partials read back, host (page-locked) */
    RaidBuf x, chunk, out;   /* device buffers */
    RaidEvent ev_w, ev_k;    /* upload and kernel, for timing */
    RaidEvent done;          /* read of the partials */
    size_t first, count;      /* chunks of the batch in flight */
    double best_k;            /* fastest of the repeated launches (benchmark only) */
} batch_buf;

static void release_events(batch_buf *b)
{
    raidEventRelease(&b->ev_w);
    raidEventRelease(&b->ev_k);
    raidEventRelease(&b->done);
}

/* Positions of the batch's chunks (the rule of raidPlanNextBatch). */
static void fill_table(const RaidChunkPlan *plan, size_t first, size_t count, size_t align, uint32_t *table)
{
    size_t pos = 0;
    for (size_t i = 0; i < count; i++) {
        pos = raidPlanAlign(pos, align);
        table[2 * i] = (uint32_t)pos;
        table[2 * i + 1] = plan->chunks[first + i].len;
        pos += plan->chunks[first + i].len;
    }
}

/* The table of a batch over resident input: uint4 (position, length, segment, 0), or with narrow = 1 uint2
 * (position, length), a batch's layout. */
static void fill_table_resident(const RaidChunkPlan *plan, size_t first, size_t count, int64_t base, int narrow,
                                uint32_t *table)
{
    const size_t tw = narrow ? 2 : 4;
    for (size_t i = 0; i < count; i++) {
        const RaidChunk *ch = &plan->chunks[first + i];
        table[tw * i] = (uint32_t)(ch->start - base);
        table[tw * i + 1] = ch->len;
        if (!narrow) {
            table[4 * i + 2] = ch->seg;
            table[4 * i + 3] = 0;
        }
    }
}

/* float2 slots per chunk in the partials */
static size_t slots(const RaidChunkJob *job)
{
    const scaled_tail t = job_tail(job);
    return job->nacc + tail_floats(&t) / 2;
}

/* Convert, upload and launch batch b (chunks from c); enqueue the read of its partials. */
static raid_status enqueue_batch(raid_ctx *ctx, const RaidChunkJob *job, batch_buf *b, size_t c, size_t max_elems,
                                 size_t max_count)
{
    const RaidChunkPlan *plan = job->plan;
    const int resident = job->resident.h != NULL;
    size_t el;
    b->first = c;
    b->count = raidPlanNextBatch(plan, c, max_elems, max_count, job->align, &el);
    const double tc = raidNow();
    const size_t tw = resident && !job->resident_narrow ? 4 : 2;
    raid_status st = RAID_OK;
    if (resident) {
        fill_table_resident(plan, c, b->count, job->resident_base, job->resident_narrow, b->table);
    } else if (job->direct && raidTuneDirectUpload(ctx)) {
        fill_table(plan, c, b->count, job->align, b->table);
        const RaidChunk *c0 = &plan->chunks[c], *c1 = &plan->chunks[c + b->count - 1];
        assert(job->align == 1 && (size_t)(c1->start + c1->len - c0->start) == el);
        (void)c1;
        st = raidBufUpload(ctx, &b->x, 0, el * job->elem_bytes / sizeof(float),
                             (const char *)job->direct + (size_t)c0->start * job->elem_bytes, 0, &b->ev_w);
    } else {
        fill_table(plan, c, b->count, job->align, b->table);
        job->convert(job->user, plan, c, b->count, b->table, b->staging);
        st = raidBufUpload(ctx, &b->x, 0, el * job->elem_bytes / sizeof(float), b->staging, 0, &b->ev_w);
    }
    ctx->timing.convert_s += raidNow() - tc;
    if (st == RAID_OK)
        st = raidBufUpload(ctx, &b->chunk, 0, b->count * tw, b->table, 0, NULL);
    if (st == RAID_OK)
        st = raidArgBuf(ctx, job->kernel, 0, resident ? &job->resident : &b->x);
    if (st == RAID_OK)
        st = raidArgBuf(ctx, job->kernel, 1, &b->chunk);
    if (st == RAID_OK)
        st = raidArgBuf(ctx, job->kernel, 2, &b->out);
    const size_t local = job->wg, global = b->count * job->wg;
    if (st == RAID_OK)
        st = raidLaunch(ctx, job->kernel, 1, &global, &local, &b->ev_k);
    /* Benchmark only: relaunch on the resident batch so the device stays busy; the fastest launch is
     * kept as the batch's kernel time. */
    b->best_k = INFINITY;
    const int repeat = raidTuneKernelRepeat(ctx);
    for (int rep = 1; st == RAID_OK && rep < repeat; rep++) {
        RaidEvent ev = {0};
        st = raidLaunch(ctx, job->kernel, 1, &global, &local, &ev);
        if (st == RAID_OK && (st = raidEventWait(ctx, &ev)) == RAID_OK) {
            const double t = raidEventSeconds(&ev);
            b->best_k = t < b->best_k ? t : b->best_k;
        }
        raidEventRelease(&ev);
    }
    if (st == RAID_OK)
        st = raidBufDownload(ctx, &b->out, 0, b->count * slots(job) * 2, b->part, 0, &b->done);
    if (st == RAID_OK)
        st = raidDevFlush(ctx);
    if (st == RAID_OK) {
        if (!resident)
            ctx->timing.bytes_in += (uint64_t)(el * job->elem_bytes);
        ctx->timing.launches++;
    }
    return st;
}

raid_status raidChunkReduce(raid_ctx *ctx, const RaidChunkJob *job)
{
    const RaidChunkPlan *plan = job->plan;
    if (plan->nchunks == 0)
        return RAID_OK;
    const int resident = job->resident.h != NULL;
    const int direct = job->direct && raidTuneDirectUpload(ctx); /* no staging */
    assert(job->elem_bytes % sizeof(float) == 0);
    const size_t tuned = raidTuneMaxBatchElems(ctx);
    size_t max_elems = tuned ? tuned : DEFAULT_BATCH_BYTES / job->elem_bytes;
    if (max_elems < plan->chunk_len + job->align)
        max_elems = plan->chunk_len + job->align;
    const size_t by_alloc = (size_t)(raidDevMaxAlloc(ctx) / job->elem_bytes);
    if (by_alloc < max_elems)
        max_elems = by_alloc > plan->chunk_len + job->align ? by_alloc : plan->chunk_len + job->align;
    if (resident) /* nothing is staged: only the partials limit a batch */
        max_elems = SIZE_MAX;
    const size_t tw = resident && !job->resident_narrow ? 4 : 2;
    /* Partials read back per batch stay under PART_BYTES however many accumulators a chunk has. */
    size_t max_count = PART_BYTES / (slots(job) * 2 * sizeof(float));
    if (max_count < 1)
        max_count = 1;
    size_t cap_elems = 1, max_chunks = 1;
    for (size_t c = 0, nb = 0; c < plan->nchunks; c += nb) {
        size_t el;
        nb = raidPlanNextBatch(plan, c, max_elems, max_count, job->align, &el);
        cap_elems = el > cap_elems ? el : cap_elems;
        max_chunks = nb > max_chunks ? nb : max_chunks;
    }
    const size_t cap_floats = cap_elems * job->elem_bytes / sizeof(float);

    raid_status st = RAID_OK;
    batch_buf bb[2];
    memset(bb, 0, sizeof bb);
    for (int i = 0; i < 2; i++) {
        /* staging and partials in page-locked memory (fast transfers), the small table in ordinary */
        if ((!resident && !direct && (st = raidHostAcquire(ctx, cap_floats * sizeof(float), &bb[i].staging)) != RAID_OK) ||
            (st = raidHostAcquire(ctx, max_chunks * slots(job) * 2 * sizeof(float), (void **)&bb[i].part)) != RAID_OK)
            goto out;
        bb[i].table = malloc(max_chunks * tw * sizeof(uint32_t));
        if (!bb[i].table) {
            st = raidFail(ctx, RAID_ENOMEM, "out of memory for staging buffers");
            goto out;
        }
        if ((!resident && (st = raidBufAcquire(ctx, RAID_DT_FLOAT, cap_floats, &bb[i].x)) != RAID_OK) ||
            (st = raidBufAcquire(ctx, RAID_DT_UINT, max_chunks * tw, &bb[i].chunk)) != RAID_OK ||
            (st = raidBufAcquire(ctx, RAID_DT_FLOAT, max_chunks * slots(job) * 2, &bb[i].out)) != RAID_OK)
            goto out;
    }

    size_t c = 0;
    int cur = 0;
    batch_buf *prev = NULL;
    while (c < plan->nchunks || prev) {
        batch_buf *b = NULL;
        if (c < plan->nchunks) {
            b = &bb[cur];
            if ((st = enqueue_batch(ctx, job, b, c, max_elems, max_count)) != RAID_OK)
                break;
            c += b->count;
            cur ^= 1;
        }
        if (prev) {
            if ((st = raidEventWait(ctx, &prev->done)) != RAID_OK)
                break;
            if (prev->ev_w.h)
                ctx->timing.upload_s += raidEventSeconds(&prev->ev_w);
            const double tk = raidEventSeconds(&prev->ev_k);
            ctx->timing.kernel_s += tk < prev->best_k ? tk : prev->best_k;
            release_events(prev);
            const double tc = raidNow();
            const scaled_tail t = job_tail(job);
            combine(plan, prev->first, prev->count, prev->part, job->nacc, job->scale, &t, job->acc);
            ctx->timing.combine_s += raidNow() - tc;
        }
        prev = b;
    }
    if (st != RAID_OK) {
        /* the message names the kernel; the device error that caused it follows */
        raidDevDrain(ctx);
        st = raidFail(ctx, st, "%s: %s", job->what, ctx->errmsg);
    }

out:
    for (int i = 0; i < 2; i++) {
        release_events(&bb[i]);
        raidHostRelease(ctx, bb[i].staging);
        free(bb[i].table);
        raidHostRelease(ctx, bb[i].part);
        raidBufRelease(ctx, &bb[i].x);
        raidBufRelease(ctx, &bb[i].chunk);
        raidBufRelease(ctx, &bb[i].out);
    }
    return st;
}
