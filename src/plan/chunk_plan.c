/* The chunk plan and float64 combine: see chunk_plan.h. */
#include "plan/chunk_plan.h"

#include <stdlib.h>

raid_status raid_plan_build_ranges(raid_chunk_plan *p, const int64_t *start, const int64_t *end, size_t nseg,
                                   size_t chunk_len)
{
    p->chunks = NULL;
    p->nchunks = 0;
    p->chunk_len = chunk_len;
    if (chunk_len == 0 || chunk_len > UINT32_MAX || nseg > UINT32_MAX)
        return RAID_EINVAL;
    size_t n = 0;
    for (size_t s = 0; s < nseg; s++) {
        int64_t m = end[s] - start[s];
        if (m < 0 || start[s] < 0)
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

raid_status raid_plan_build(raid_chunk_plan *p, const int64_t *offsets, size_t nseg, size_t chunk_len)
{
    return raid_plan_build_ranges(p, offsets, offsets + 1, nseg, chunk_len);
}

void raid_plan_free(raid_chunk_plan *p)
{
    free(p->chunks);
    p->chunks = NULL;
    p->nchunks = 0;
}

size_t raid_plan_next_batch(const raid_chunk_plan *p, size_t first, size_t max_elems, size_t max_count, size_t align,
                            size_t *batch_elems)
{
    size_t pos = 0, c = first;
    while (c < p->nchunks && (c == first || c - first < max_count)) {
        size_t at = raid_plan_align(pos, align);
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

void raid_plan_combine(const raid_chunk_plan *p, size_t first, size_t count, const float *part, size_t nacc,
                       const double *scale, double *acc)
{
    /* Each segment's chunks (consecutive in the plan) are added by one thread in chunk order, so the
     * result does not depend on the number of threads; segments are independent. */
    const long long n = (long long)count;
#pragma omp parallel for schedule(dynamic, 256) if (count * nacc > 65536)
    for (long long i0 = 0; i0 < n; i0++) {
        const size_t seg = p->chunks[first + (size_t)i0].seg;
        if (i0 > 0 && p->chunks[first + (size_t)i0 - 1].seg == seg)
            continue; /* not the first chunk of its segment in this batch */
        for (size_t i = (size_t)i0; i < count && p->chunks[first + i].seg == seg; i++) {
            const float *q = part + 2 * i * nacc;
            for (size_t k = 0; k < nacc; k++) {
                double v = (double)q[2 * k] + (double)q[2 * k + 1];
                acc[seg * nacc + k] += scale ? v * scale[seg * nacc + k] : v;
            }
        }
    }
}
