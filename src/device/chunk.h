/*
 * The chunk reduction, the one primitive of RAID's reductions on top of the device layer
 * (src/device/device.h): the chunk plan, the batch pipeline and the float64 combine. It is the one place
 * where RAID decides how ragged segments are cut into chunks for the device and how per-chunk
 * double-float partials are summed back on the host.
 *
 * A segment of m elements becomes ceil(m / chunk_len) chunks (none when m == 0), in order. Each chunk
 * is reduced on the device by one work-group into `nacc` double-float partials (float2: hi, lo). The host
 * adds the partials of a segment's chunks in float64 in chunk order, so the result depends only on
 * (chunk_len, work-group width), never on how chunks are batched into launches: bitwise reproducible.
 * Chunk starts are 64-bit on the host; a launch covers a batch of consecutive chunks whose elements fit a
 * device buffer, and device indices are 32-bit offsets within that batch.
 *
 * The pipeline (raidChunkReduce) groups consecutive chunks into batches that fit a device buffer, has
 * the caller convert each batch's elements into page-locked staging, uploads them with the chunk table,
 * launches one work-group per chunk, reads back nacc float2 partials per chunk and combines them in
 * float64 in chunk order (chunk.c's combine). Two sets of buffers let the host convert batch i+1 while
 * the device works on batch i. Kernel arguments 0, 1, 2 are the data, the chunk table (uint2: offset in
 * the batch, length) and the partials; the caller may set further arguments before the call.
 *
 * Resident input: when the caller has uploaded all elements once (chunks of overlapping ranges share
 * them, as the rolling windows of one series do), nothing is converted or uploaded per batch; argument 0
 * is that buffer and the table holds uint4 (position in it, length, segment, 0).
 *
 * Users: realized measures (src/realized/realized_device.c), regression statistics (src/regress/stats.c),
 * the robust meat (src/regress/meat_device.c), and every later reduction kernel.
 */
#ifndef RAID_DEVICE_CHUNK_H
#define RAID_DEVICE_CHUNK_H

#include "device/device.h"
#include <stdint.h>

typedef struct RaidChunk {
    int64_t start;   /* first element (index into the caller's element array) */
    uint32_t len;    /* elements, 1 .. chunk_len */
    uint32_t seg;    /* segment index */
} RaidChunk;

typedef struct RaidChunkPlan {
    RaidChunk *chunks;
    size_t nchunks;
    size_t chunk_len;
} RaidChunkPlan;

/* Cut nseg segments (offsets: nseg + 1 non-decreasing entries) into chunks; chunk_len in [1, 2^32 - 1]
 * (asserted). Errors, without a message (the caller names what it planned): RAID_EINVAL (more than 2^32 - 1
 * segments, a decreasing or negative range), RAID_ENOMEM. */
raid_status raidPlanBuild(RaidChunkPlan *p, const int64_t *offsets, size_t nseg, size_t chunk_len);

/* The same for segments given as ranges [start[s], end[s]) that may overlap (rolling windows over one
 * series): chunk start stays an index into the caller's rows. */
raid_status raidPlanBuildRanges(RaidChunkPlan *p, const int64_t *start, const int64_t *end, size_t nseg,
                                   size_t chunk_len);
void raidPlanFree(RaidChunkPlan *p);

/* A batch: chunks [first, first + count) whose elements, each chunk's start rounded up to a multiple of
 * `align` elements, fit in max_elems, and at most max_count chunks. batch_elems receives the padded
 * size. Returns count (>= 1 unless first == nchunks). */
size_t raidPlanNextBatch(const RaidChunkPlan *p, size_t first, size_t max_elems, size_t max_count, size_t align,
                            size_t *batch_elems);

/* Padded position of chunk first+i within the batch starting at chunk `first` (same rule as above). */
static inline size_t raidPlanAlign(size_t pos, size_t align) { return (pos + align - 1) / align * align; }

/* Store value v (already scaled) as element `at` of a staging buffer of the input policy: one float for
 * RAID_PREC_F32, the pair hi = (float)v, lo = (float)(v - hi) for RAID_PREC_DF (v to about 2^-48). */
static inline void raidStageValue(void *staging, size_t at, double v, raid_precision p)
{
    if (p == RAID_PREC_F32)
        ((float *)staging)[at] = (float)v;
    else
        raidDfSplit(v, &((float *)staging)[2 * at], &((float *)staging)[2 * at + 1]);
}

/* The float64 value that raidStageValue represents for v (hi, or hi + lo, which is exact in double). */
static inline double raidPolicyValue(double v, raid_precision p)
{
    const float hi = (float)v;
    return p == RAID_PREC_F32 ? (double)hi : (double)hi + (double)(float)(v - (double)hi);
}

/* Fill staging with chunks first .. first+count-1 of the plan: chunk i (0-based in the batch) starts at
 * element table[2*i] of staging (elements of elem_bytes each) and has table[2*i+1] elements. */
typedef void (*raidChunkConvertFn)(void *user, const RaidChunkPlan *plan, size_t first, size_t count,
                                      const uint32_t *table, void *staging);

#define RAID_CHUNK_MAX_EXP 16 /* exponents per chunk at most (chunk_nexp) */

typedef struct RaidChunkJob {
    const RaidChunkPlan *plan;
    RaidKernel *kernel;          /* held by the caller */
    size_t wg;                     /* work-group width */
    size_t elem_bytes;             /* bytes of one element on the device */
    size_t align;                  /* chunk starts are multiples of align elements in a batch */
    size_t nacc;                   /* partials (float2) per chunk */
    raidChunkConvertFn convert;
    void *user;
    const double *scale;           /* nseg * nacc factors for the combine, or NULL */
    double *acc;                   /* nseg * nacc, added to */
    const char *what;              /* kernel name for messages */
    RaidBuf resident;             /* zeroed, or all elements on the device: element i at i - resident_base */
    int64_t resident_base;         /* (convert and align are then unused) */
    /* Chunk-scaled kernels (optional): when chunk_pow is not NULL the kernel scales each chunk itself by a
     * power of two 2^-e of its choosing and writes nacc + 1 float2 per chunk: the nacc partials, then
     * (e, flags), two integers exact in float (|e| < 2^24, 0 <= flags < 2^24). The combine adds partial k
     * times 2^(chunk_pow[k] e) (scale is then unused); chunk_exp[c] and chunk_flags[c] (nchunks entries
     * each, either may be NULL) receive every chunk's e and flags. */
    const int *chunk_pow;
    int32_t *chunk_exp;
    uint32_t *chunk_flags;
    /* Direct input (optional): the elements already in the device's layout in host memory, element i of
     * the plan at direct + i * elem_bytes (align 1, chunks contiguous as raidPlanBuild makes them).
     * With the RAID_TUNE_DIRECT_UPLOAD knob each batch is uploaded straight from there (convert unused);
     * otherwise convert stages it as usual. */
    const void *direct;
    /* Several exponents per chunk (optional, with chunk_pow): chunk_nexp > 1 exponents e_0 .. e_{nexp-1}
     * (one per column of the regression statistics' rows), then flags, then chunk_ntail further floats
     * for the caller, all as floats after the nacc partials (padded to whole float2). Partial k is then
     * times 2^(sum_j chunk_pow[k * nexp + j] e_j); chunk_exp receives nchunks * nexp exponents and
     * chunk_tail (if not NULL) nchunks * chunk_ntail floats. chunk_nexp 0 means 1 (the layout above). */
    int chunk_nexp;
    size_t chunk_ntail;
    float *chunk_tail;
    /* 1: acc holds nchunks * nacc, each chunk's own (scaled) partials, for a caller that combines the
     * chunks itself (the regression statistics merge chunk-centred statistics); 0: nseg * nacc sums. */
    int per_chunk;
    /* With resident: 1 when the kernel reads a batch's table, uint2 (position in the resident buffer,
     * length), as the realized kernel does over the caller's device memory (docs/device.md "The caller's
     * device memory"); 0: the uint4 table above. Positions are 32-bit: the resident buffer holds at most
     * 2^32 - 1 elements. */
    int resident_narrow;
    /* With chunk_pow (one exponent a chunk, no tail): 1 when the caller scaled the elements on the host, so
     * that chunk_exp[c] (and chunk_flags[c]) hold chunk c's e (and flags) by the time its batch is combined
     * (convert writes them, as the realized f32 staging does) and the kernel writes the nacc partials only;
     * 0: the kernel's tail as above. */
    int exp_given;
} RaidChunkJob;

/* Run the job; adds kernel, upload and conversion times, bytes and launches to ctx->timing.
 * Errors: RAID_ENOMEM and the device errors. */
raid_status raidChunkReduce(raid_ctx *ctx, const RaidChunkJob *job);

#endif
