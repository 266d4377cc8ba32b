/*
 * The chunk plan and the float64 combine: the one place where RAID decides how ragged segments are cut
 * into chunks for the device and how per-chunk double-float partials are summed back on the host.
 *
 * A segment of m elements becomes ceil(m / chunk_len) chunks (none when m == 0), in order. Each chunk
 * is reduced on the device by one work-group into `nacc` double-float partials (float2: hi, lo). The host
 * adds the partials of a segment's chunks in float64 in chunk order, so the result depends only on
 * (chunk_len, work-group width), never on how chunks are batched into launches: bitwise reproducible.
 * Chunk starts are 64-bit on the host; a launch covers a batch of consecutive chunks whose elements fit a
 * device buffer, and device indices are 32-bit offsets within that batch.
 *
 * Users: the fused realized kernel (src/realized/realized_cl.c) and every later reduction kernel.
 */
#ifndef RAID_CHUNK_PLAN_H
#define RAID_CHUNK_PLAN_H

#include "core/internal.h"
#include <stdint.h>

typedef struct raid_chunk {
    int64_t start;   /* first element (index into the caller's element array) */
    uint32_t len;    /* elements, 1 .. chunk_len */
    uint32_t seg;    /* segment index */
} raid_chunk;

typedef struct raid_chunk_plan {
    raid_chunk *chunks;
    size_t nchunks;
    size_t chunk_len;
} raid_chunk_plan;

/* Cut nseg segments (offsets: nseg + 1 non-decreasing entries) into chunks. Errors: RAID_EINVAL, RAID_ENOMEM. */
raid_status raid_plan_build(raid_chunk_plan *p, const int64_t *offsets, size_t nseg, size_t chunk_len);

/* The same for segments given as ranges [start[s], end[s]) that may overlap (rolling windows over one
 * series): chunk start stays an index into the caller's rows. */
raid_status raid_plan_build_ranges(raid_chunk_plan *p, const int64_t *start, const int64_t *end, size_t nseg,
                                   size_t chunk_len);
void raid_plan_free(raid_chunk_plan *p);

/* A batch: chunks [first, first + count) whose elements, each chunk's start rounded up to a multiple of
 * `align` elements, fit in max_elems, and at most max_count chunks. batch_elems receives the padded
 * size. Returns count (>= 1 unless first == nchunks). */
size_t raid_plan_next_batch(const raid_chunk_plan *p, size_t first, size_t max_elems, size_t max_count, size_t align,
                            size_t *batch_elems);

/* Padded position of chunk first+i within the batch starting at chunk `first` (same rule as above). */
static inline size_t raid_plan_align(size_t pos, size_t align) { return (pos + align - 1) / align * align; }

/* Float64 combine of a batch: for chunk first + i (i < count), add its nacc partials part[i*nacc + k]
 * (hi, lo as consecutive floats) times scale[seg][k] to acc[seg * nacc + k], in chunk order.
 * scale may be NULL (1). */
void raid_plan_combine(const raid_chunk_plan *p, size_t first, size_t count, const float *part, size_t nacc,
                       const double *scale, double *acc);

#endif
