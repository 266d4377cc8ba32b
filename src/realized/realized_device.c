/*
 * Host driver of the fused realized kernel (kernels/realized.cl).
 *
 * 1. The chunk reduction (src/device/chunk.h: plan, batch pipeline, float64 combine) cuts segments into
 *    chunks and groups them into batches that fit a device buffer (32-bit device indices, 64-bit host
 *    offsets).
 * 2. For each batch the host copies the returns' float64 bits into page-locked staging (a parallel memcpy,
 *    overlapped with the device's upload and kernel of the previous batch); the device does the rest: it
 *    checks the range, scales each chunk by the power of two 2^-e that brings its largest magnitude into
 *    [0.5, 1) (exact in binary floating point; keeps every term in float32's normal range), splits the
 *    values into double-floats with integer operations, and reduces the chunk into six double-float
 *    partials plus (e, out-of-range flag). The f32 policy rounds every scaled return to binary32, so the
 *    host stages those floats instead, 4 bytes a return (stage_f32: the range check and the chunk's e on the
 *    host, in the same pass), and its kernel reads half the bytes; where the kernel reads the float64 bits
 *    anyway (device memory, direct uploads) it forms the same floats itself.
 * 3. Partials are combined in float64 in chunk order, each times 2^(p e) (p = 2 or 4, the measure's
 *    power); a flagged chunk names the first return out of range (the message of the cpu path).
 * 4. The window terms that straddle chunk boundaries are computed in float64 from the values the device
 *    saw and added per segment.
 * 5. A sum small enough for binary32 underflow to matter is recomputed on the host (see below).
 *
 * Returns in the caller's CUDA device memory (docs/device.md "The caller's device memory") are read in place:
 * the chunk reduction runs over them as resident input (nothing staged or uploaded), the few values at the
 * chunks' seams that step 4 needs are gathered on the device and read back (four a chunk), and only a
 * flagged chunk (the message's return) and a segment the underflow guard recomputes are copied to the host.
 */
#include "device/chunk.h"
#include "device/launch.h"
#include "realized/realized_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The value the device sees for return r of a chunk with scale exponent e (scaled domain). With
 * keep_tiny, a value below binary32's normal range is kept exact instead (for the host recomputation,
 * where rounding it to a subnormal float would lose its relative accuracy). */
static inline double device_value(double r, int e, raid_precision p, int keep_tiny)
{
    const double v = ldexp(r, -e);
    if (keep_tiny && fabs(v) < (p == RAID_PREC_F32 ? 0x1p-126 : 0x1p-100)) /* df: lo must be normal too */
        return v;
    return raidPolicyValue(v, p);
}

/* Copy each chunk's float64 returns into the staging buffer (streaming stores: raidCopyStream; the device
 * scales and splits them). */
static void copy_batch(void *user, const RaidChunkPlan *plan, size_t first, size_t count, const uint32_t *table,
                       void *staging)
{
    const double *r = user;
    const long long n = (long long)count;
#pragma omp parallel for schedule(static)
    for (long long i = 0; i < n; i++) {
        const RaidChunk *ch = &plan->chunks[first + (size_t)i];
        raidCopyStream((double *)staging + table[2 * i], r + ch->start, ch->len * sizeof(double));
    }
}

/* The bits of RAID_MAX_RETURN: a magnitude's bits above them are out of range (NaN and infinity included),
 * the kernels' RAID_MAXR_HI/LO and the host staging's test alike. */
static uint64_t max_return_bits(void)
{
    uint64_t b;
    const double m = RAID_MAX_RETURN;
    memcpy(&b, &m, sizeof b);
    return b;
}

/* The f32 policy's staging (the kernel's RAID_BITS 0), 4 bytes a return: each chunk's scale exponent e and
 * out-of-range flag, found here by the kernel's rule (chunk_scale in kernels/realized.cl: frexp's exponent
 * of the largest magnitude, 0 for an all-zero chunk, at least -250; a return not finite or above
 * RAID_MAX_RETURN flags it), into chunk_e and chunk_flag (chunk.h's exp_given), and each return as
 * (float)(r 2^-e): the float the kernel forms from the bits (raidBitsToDf's hi; the product by 2^-e is exact
 * unless it lands below 2^-1022, where both give a zero of r's sign). Half the bytes of the float64 bits to
 * upload and for the kernel to read. */
typedef struct F32Stage {
    const double *r;
    int32_t *chunk_e;
    uint32_t *chunk_flag;
} F32Stage;

static void stage_f32(void *user, const RaidChunkPlan *plan, size_t first, size_t count, const uint32_t *table,
                      void *staging)
{
    const F32Stage *S = user;
    const uint64_t maxr = max_return_bits();
    const long long n = (long long)count;
#pragma omp parallel for schedule(static)
    for (long long i = 0; i < n; i++) {
        const RaidChunk *ch = &plan->chunks[first + (size_t)i];
        const double *x = S->r + ch->start;
        uint64_t mx = 0;
        for (uint32_t j = 0; j < ch->len; j++) {
            uint64_t b;
            memcpy(&b, &x[j], sizeof b);
            b &= 0x7FFFFFFFFFFFFFFFull;
            mx = b > mx ? b : mx;
        }
        const int e = mx == 0 ? 0 : ((int)(mx >> 52) - 1022 > -250 ? (int)(mx >> 52) - 1022 : -250);
        S->chunk_e[first + (size_t)i] = e;
        S->chunk_flag[first + (size_t)i] = mx > maxr; /* NaN's and infinity's bits are above any finite's */
        const double sc = ldexp(1.0, -e);
        float *o = (float *)staging + table[2 * i];
        for (uint32_t j = 0; j < ch->len; j++)
            o[j] = (float)(x[j] * sc);
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

/* The power of the returns in accumulator k's terms: 4 for rq and tpq, 2 otherwise. */
static int acc_pow(int k)
{
    return k == RAID_ACC_QUART || k == RAID_ACC_TPQ ? 4 : 2;
}

/* Bytes of local memory the kernel needs for ctx's shape and policy, the measure groups in part_mask and
 * xstep pairs shared per barrier: the reduction arrays (six float2 a work-item), s_max and s_bad, and for
 * the df policy unless only rs is computed the neighbours' split pairs (4 xstep steps of WG pairs, 16 bytes
 * a pair; the f32 kernel reads its neighbours again from global memory). */
static uint64_t local_need(const raid_ctx *ctx, unsigned part_mask, int xstep)
{
    const int df = raid_ctx_precision(ctx) == RAID_PREC_DF;
    const uint64_t xs = df && (part_mask & ~(unsigned)RAID_PART_RS) ? 4 * (uint64_t)xstep * ctx->wg_width * 16 : 0;
    return (uint64_t)(2 * RAID_NACC * ctx->wg_width + 2) * 4 + xs;
}

/* The df kernel's RAID_XSTEP, pairs shared per barrier (the same bits either way): 2 where the returns per
 * work-item are a multiple of 4 and the local memory holds the 8 rotating buffers (faster on the H200),
 * else 1. Build options holding -DRAID_XSTEP=1 (or 2) choose it instead (tests/test_realized.c
 * compares the bits of both). 1 for the f32 policy, whose kernel shares nothing. */
static int realized_xstep(const raid_ctx *ctx, unsigned part_mask)
{
    const char *tune = raidTuneBuildOptions(ctx);
    if (raid_ctx_precision(ctx) != RAID_PREC_DF)
        return 1;
    if (strstr(tune, "RAID_XSTEP="))
        return strstr(tune, "RAID_XSTEP=2") ? 2 : 1;
    return (ctx->chunk_len / ctx->wg_width) % 4 == 0 && local_need(ctx, part_mask, 2) <= raidDevLocalMem(ctx)
               ? 2
               : 1;
}

void raidRealizedDeviceOptions(const raid_ctx *ctx, unsigned part_mask, int bits, char *buf, size_t len)
{
    const uint64_t maxr = max_return_bits();
    const char *tune = raidTuneBuildOptions(ctx);
    const int df = raid_ctx_precision(ctx) == RAID_PREC_DF;
    char mode[32] = "";
    if (!df)
        snprintf(mode, sizeof mode, "-DRAID_BITS=%d ", bits != 0);
    else if (!strstr(tune, "RAID_XSTEP="))
        snprintf(mode, sizeof mode, "-DRAID_XSTEP=%d ", realized_xstep(ctx, part_mask));
    snprintf(buf, len, "-DRAID_WG=%zu -DRAID_RUN=%zu -DRAID_INPUT_DF=%d -DRAID_PART=%u -DRAID_MAXR_HI=0x%08Xu "
             "-DRAID_MAXR_LO=0x%08Xu %s%s", ctx->wg_width, ctx->chunk_len / ctx->wg_width, df,
             part_mask, (unsigned)(maxr >> 32), (unsigned)(maxr & 0xFFFFFFFFu), mode, tune);
}

/* The shape checks of the kernel: an even number of returns per work-item (it reads pairs: one 16-byte
 * load a pair per work-item and step), and its local memory (the reduction arrays and the neighbours'
 * split pairs, local_need) within the device's. */
static raid_status check_shape(raid_ctx *ctx, unsigned part_mask)
{
    if ((ctx->chunk_len / ctx->wg_width) % 2 != 0)
        return raidFail(ctx, RAID_EINVAL, "chunk length %zu over work-group width %zu gives %zu returns per "
                         "work-item; the realized kernel needs an even number (pairs of returns)", ctx->chunk_len,
                         ctx->wg_width, ctx->chunk_len / ctx->wg_width);
    const uint64_t need = local_need(ctx, part_mask, realized_xstep(ctx, part_mask));
    if (need > raidDevLocalMem(ctx))
        return raidFail(ctx, RAID_EINVAL, "work-group width %zu needs %llu bytes of local memory; "
                         "the device has %llu (use a narrower work-group)", ctx->wg_width,
                         (unsigned long long)need, (unsigned long long)raidDevLocalMem(ctx));
    return RAID_OK;
}

/* A flagged chunk holds a return out of range: the first one in index order is named, as the cpu path
 * names it (chunks are in index order). RAID_OK when no chunk is flagged. */
static raid_status flagged_chunks(raid_ctx *ctx, const double *r, int rdev, const RaidChunkPlan *plan,
                                  const uint32_t *chunk_flag)
{
    for (size_t c = 0; c < plan->nchunks; c++)
        if (chunk_flag[c]) {
            const RaidChunk *ch = &plan->chunks[c];
            raid_status st;
            if (rdev) { /* device memory: the chunk copied to the host for the message */
                double *h = malloc(ch->len * sizeof *h);
                if (!h)
                    return raidFail(ctx, RAID_ENOMEM, "out of memory");
                st = raidCopyFromCaller(ctx, h, r + ch->start, ch->len * sizeof *h, "returns");
                if (st == RAID_OK)
                    st = raidRealizedCheckRangeAt(ctx, h, ch->len, ch->start);
                free(h);
            } else {
                st = raidRealizedCheckRange(ctx, r, ch->start, ch->start + ch->len);
            }
            if (st == RAID_OK) /* the device flagged what the host does not see: a device fault */
                return raidFail(ctx, RAID_EDEVICE, "the realized kernel flagged chunk %zu, whose returns are in range", c);
            return st;
        }
    return RAID_OK;
}

/* The returns [*lo, *hi) around the start of chunk c (at most 2 before it, in its segment, and 2 of it) whose
 * window terms straddle the start: empty for a segment's first chunk. */
static void seam_range(const int64_t *offsets, const RaidChunkPlan *plan, size_t c, int64_t *lo, int64_t *hi)
{
    const RaidChunk *ch = &plan->chunks[c];
    const int64_t s0 = offsets[ch->seg];
    *lo = ch->start - 2 < s0 ? s0 : ch->start - 2;
    *hi = ch->start == s0 ? *lo : ch->start + (ch->len < 2 ? ch->len : 2);
}

/* 4. The window terms of chunk c that straddle its start, from the values the device saw, in float64:
 *    each value at its own chunk's scale, brought to the scale of the chunk that owns the window (exact),
 *    into w[0 .. RAID_NACC) at the original scale (zeros for a segment's first chunk). rs: the returns
 *    [lo, hi) of seam_range on the host. */
static void straddle_terms(const double *rs, const int64_t *offsets, const RaidChunkPlan *plan, size_t c,
                           const int32_t *chunk_e, raid_precision prec, unsigned part_mask, double *w)
{
    const RaidChunk *ch = &plan->chunks[c];
    const int64_t s0 = offsets[ch->seg];
    for (int k = 0; k < RAID_NACC; k++)
        w[k] = 0;
    if (ch->start == s0)
        return;
    const size_t c0 = c - (size_t)((ch->start - s0) / (int64_t)plan->chunk_len); /* the segment's first */
    const int e = chunk_e[c];
    double v[4];
    int64_t lo, hi;
    seam_range(offsets, plan, c, &lo, &hi);
    for (int64_t j = lo; j < hi; j++) {
        const int ej = chunk_e[c0 + (size_t)((j - s0) / (int64_t)plan->chunk_len)];
        v[j - lo] = ldexp(device_value(rs[j - lo], ej, prec, 0), ej - e);
    }
    for (int64_t j = ch->start; j < hi; j++) {
        unsigned m = part_mask & (j == ch->start ? RAID_PART_ALL : (RAID_PART_ALL & ~RAID_PART_BPV));
        raidRealizedWindowTerms(v, j - lo, s0 - lo, m, w);
    }
    for (int k = 0; k < RAID_NACC; k++)
        w[k] = ldexp(w[k], acc_pow(k) * e);
}

/* The seams' returns of device input rb (return i at element i - rbase, as uint2 words): for every chunk
 * the returns of seam_range into seam[4 c ..], gathered on the device (raidGather64) and read back, 32 bytes a
 * chunk. */
static raid_status fetch_seams(raid_ctx *ctx, const RaidBuf *rb, int64_t rbase, const int64_t *offsets,
                               const RaidChunkPlan *plan, double *seam)
{
    const size_t n = 4 * plan->nchunks;
    uint32_t *idx = malloc((n ? n : 1) * sizeof *idx);
    if (!idx)
        return raidFail(ctx, RAID_ENOMEM, "out of memory");
    for (size_t c = 0; c < plan->nchunks; c++) {
        int64_t lo, hi;
        seam_range(offsets, plan, c, &lo, &hi);
        for (int64_t k = 0; k < 4; k++) /* slots past the range read the chunk's start (never used) */
            idx[4 * c + (size_t)k] = (uint32_t)((lo + k < hi ? lo + k : plan->chunks[c].start) - rbase);
    }
    const raid_status st = raidGather64(ctx, rb, idx, n, seam);
    free(idx);
    return st;
}

/* Add every chunk's straddling window terms to its segment's accumulators: formed in parallel per chunk,
 * added in chunk order (the same bits on any thread count). seam: NULL (r is host memory) or the returns of
 * every chunk's seam_range (fetch_seams). */
static raid_status add_straddles(raid_ctx *ctx, const double *r, const double *seam, const int64_t *offsets,
                                 const RaidChunkPlan *plan, const int32_t *chunk_e, unsigned part_mask, double *acc)
{
    double *straddle = malloc((plan->nchunks ? plan->nchunks : 1) * RAID_NACC * sizeof *straddle);
    if (!straddle)
        return raidFail(ctx, RAID_ENOMEM, "out of memory");
    const raid_precision prec = raid_ctx_precision(ctx);
    const long long nc = (long long)plan->nchunks;
#pragma omp parallel for schedule(static) if (nc > 4096)
    for (long long ci = 0; ci < nc; ci++) {
        int64_t lo, hi;
        seam_range(offsets, plan, (size_t)ci, &lo, &hi);
        const double *rs = seam ? seam + 4 * (size_t)ci : r + lo;
        straddle_terms(rs, offsets, plan, (size_t)ci, chunk_e, prec, part_mask, straddle + (size_t)ci * RAID_NACC);
    }
    for (size_t c = 0; c < plan->nchunks; c++)
        if (plan->chunks[c].start != offsets[plan->chunks[c].seg])
            for (int k = 0; k < RAID_NACC; k++)
                acc[plan->chunks[c].seg * RAID_NACC + k] += straddle[c * RAID_NACC + k];
    free(straddle);
    return RAID_OK;
}

/* 5. Underflow guard. After scaling, a term of the device can leave binary32's normal range only when it is
 * below 2^-100 or so (products of up to four returns, each |r| < 1, and their TwoProd error terms), and then
 * it is wrong by at most a few 2^-149 in absolute terms. A sum of M terms that is at least M 2^-100 at the
 * segment's scale (seg_e: its largest chunk's, which no chunk exceeds) is therefore unaffected at 2^-48; a
 * smaller one (a segment whose negative returns are all tiny, or that has none) is recomputed on the host
 * in float64 from the same policy-rounded returns, tiny ones kept exact. */
static raid_status underflow_guard(raid_ctx *ctx, const double *r, int rdev, const int64_t *offsets, size_t nseg,
                                   const int *seg_e, unsigned part_mask, double *acc)
{
    double *host_v = NULL;
    size_t host_cap = 0;
    raid_status st = RAID_OK;
    for (size_t s = 0; s < nseg; s++) {
        const int64_t m = offsets[s + 1] - offsets[s];
        if (m == 0)
            continue;
        for (int k = 0; k < RAID_NACC; k++) {
            if (!(part_mask & acc_part(k)))
                continue; /* not computed by this kernel (fusion ablation): zero, and no sign of underflow */
            if (!(ldexp(acc[s * RAID_NACC + k], -acc_pow(k) * seg_e[s]) < ldexp((double)m, -100)))
                continue;
            if ((size_t)m > host_cap) {
                free(host_v);
                host_cap = (size_t)m;
                if (!(host_v = malloc(host_cap * sizeof *host_v)))
                    return raidFail(ctx, RAID_ENOMEM, "out of memory");
            }
            /* device memory: the segment copied to the host first (the only whole segment the host reads) */
            if (rdev && (st = raidCopyFromCaller(ctx, host_v, r + offsets[s], (size_t)m * sizeof *host_v,
                                                 "returns")) != RAID_OK)
                break;
            const double *rv = rdev ? host_v : r + offsets[s];
            for (int64_t j = 0; j < m; j++)
                host_v[j] = device_value(rv[j], seg_e[s], raid_ctx_precision(ctx), 1);
            raidRealizedAccCpu(host_v, m, acc + s * RAID_NACC);
            for (int q = 0; q < RAID_NACC; q++)
                acc[s * RAID_NACC + q] = ldexp(acc[s * RAID_NACC + q], acc_pow(q) * seg_e[s]);
            ctx->timing.host_segments++;
            break;
        }
        if (st != RAID_OK)
            break;
    }
    free(host_v);
    return st;
}

/* 1-3. Batches through the shared pipeline: copy, upload, one work-group per chunk, float64 combine in chunk
 * order with each chunk's own scale; every chunk's exponent and flag into chunk_e and chunk_flag. The f32
 * policy stages floats scaled on the host (stage_f32) unless the kernel reads float64 bits anyway: the
 * caller's device memory, or batches uploaded straight from the caller's array (RAID_TUNE_DIRECT_UPLOAD). */
static raid_status reduce(raid_ctx *ctx, const double *r, const RaidBuf *rb, int64_t rbase, const RaidChunkPlan *plan,
                          unsigned part_mask, double *acc, int32_t *chunk_e, uint32_t *chunk_flag)
{
    const int staged_f32 = raid_ctx_precision(ctx) == RAID_PREC_F32 && !rb && !raidTuneDirectUpload(ctx);
    char opts[512];
    raidRealizedDeviceOptions(ctx, part_mask, !staged_f32, opts, sizeof opts);
    RaidKernel *kern;
    raid_status st = raidKernelGet(ctx, "realized.cl", "realized_fused", opts, &kern);
    if (st != RAID_OK)
        return st;
    int pw[RAID_NACC];
    for (int k = 0; k < RAID_NACC; k++)
        pw[k] = acc_pow(k);
    RaidChunkJob job = {plan, kern, ctx->wg_width, sizeof(double), 1, RAID_NACC, copy_batch, (void *)r, NULL,
                          acc, "the realized kernel", {NULL, 0, RAID_DT_FLOAT}, 0, pw, chunk_e, chunk_flag, r, 0, 0, NULL, 0,
                          0, 0};
    F32Stage fs = {r, chunk_e, chunk_flag};
    if (staged_f32) { /* floats, chunks on 16-byte boundaries (the kernel's vector loads) */
        job.elem_bytes = sizeof(float), job.align = 4, job.convert = stage_f32, job.user = &fs;
        job.direct = NULL, job.exp_given = 1;
    }
    if (rb) { /* device memory: resident input in the kernel's own table layout, nothing staged */
        job.convert = NULL, job.user = NULL, job.direct = NULL;
        job.resident = *rb, job.resident_base = rbase, job.resident_narrow = 1;
    }
    st = raidChunkReduce(ctx, &job);
    raidKernelPut(ctx, kern);
    return st;
}

raid_status raidRealizedAccDevice(raid_ctx *ctx, const double *r, const int64_t *offsets, size_t nseg,
                                    unsigned part_mask, double *acc)
{
    memset(&ctx->timing, 0, sizeof ctx->timing);
    memset(acc, 0, nseg * RAID_NACC * sizeof *acc);
    raid_status st = check_shape(ctx, part_mask);
    if (st != RAID_OK)
        return st;
    RaidChunkPlan plan;
    memset(&plan, 0, sizeof plan);
    int32_t *chunk_e = NULL;
    uint32_t *chunk_flag = NULL;
    RaidBuf rb = {NULL, 0, RAID_DT_UINT}; /* device input, wrapped: return i at element (word pair) i - rbase */
    int64_t rbase = 0;
    double *seam = NULL; /* device input: the returns at every chunk's seam (fetch_seams) */
    int *seg_e = malloc((nseg ? nseg : 1) * sizeof *seg_e);
    const double t0 = raidNow();
    st = raidPlanBuild(&plan, offsets, nseg, ctx->chunk_len);
    ctx->timing.convert_s += raidNow() - t0;
    if (st != RAID_OK) {
        st = raidFail(ctx, st, "cannot plan %zu segments", nseg);
        goto out;
    }
    chunk_e = malloc((plan.nchunks ? plan.nchunks : 1) * sizeof *chunk_e);
    chunk_flag = malloc((plan.nchunks ? plan.nchunks : 1) * sizeof *chunk_flag);
    if (!seg_e || !chunk_e || !chunk_flag) {
        st = raidFail(ctx, RAID_ENOMEM, "out of memory");
        goto out;
    }
    /* The returns: host memory (staged per batch), or the caller's device memory, wrapped whole (rb) */
    const int64_t n0 = nseg ? offsets[0] : 0, N = nseg ? offsets[nseg] - offsets[0] : 0;
    RaidMemKind kr = RAID_MEM_HOST;
    if (N && (st = raidMemKindOf(ctx, r + n0, (size_t)N * sizeof *r, sizeof *r, "returns", &kr)) != RAID_OK)
        goto out;
    if (kr == RAID_MEM_DEVICE) {
        /* The kernel loads pairs of returns as 16-byte words at even positions of its buffer: the buffer
         * starts on a 16-byte boundary, one return before the first where needed (never read: no chunk
         * starts at position 0 then). Positions are 32-bit. */
        const int64_t pad = ((uintptr_t)(r + n0) & 15u) ? 1 : 0;
        if (N + pad > (int64_t)UINT32_MAX) {
            st = raidFail(ctx, RAID_EUNSUPPORTED, "realized measures of device memory: %lld returns in one call (at "
                                                  "most %lld; give the segments in several calls)", (long long)N,
                          (long long)UINT32_MAX - 1);
            goto out;
        }
        rbase = n0 - pad;
        if ((st = raidBufWrap(ctx, r + rbase, RAID_DT_UINT, 2 * (size_t)(N + pad), &rb)) != RAID_OK)
            goto out;
        if (!(seam = malloc((plan.nchunks ? plan.nchunks : 1) * 4 * sizeof *seam))) {
            st = raidFail(ctx, RAID_ENOMEM, "out of memory");
            goto out;
        }
    }
    const int rdev = kr == RAID_MEM_DEVICE;
    if ((st = reduce(ctx, r, rdev ? &rb : NULL, rbase, &plan, part_mask, acc, chunk_e, chunk_flag)) != RAID_OK)
        goto out;
    if (rdev && (st = fetch_seams(ctx, &rb, rbase, offsets, &plan, seam)) != RAID_OK)
        goto out;
    const double th = raidNow();
    if ((st = flagged_chunks(ctx, r, rdev, &plan, chunk_flag)) != RAID_OK)
        goto out;
    /* Each segment's exponent: the largest of its chunks' (the underflow guard's scale). */
    for (size_t s = 0; s < nseg; s++)
        seg_e[s] = INT32_MIN;
    for (size_t c = 0; c < plan.nchunks; c++) {
        const uint32_t s = plan.chunks[c].seg;
        seg_e[s] = chunk_e[c] > seg_e[s] ? chunk_e[c] : seg_e[s];
    }
    if ((st = add_straddles(ctx, r, seam, offsets, &plan, chunk_e, part_mask, acc)) != RAID_OK ||
        (st = underflow_guard(ctx, r, rdev, offsets, nseg, seg_e, part_mask, acc)) != RAID_OK)
        goto out;
    ctx->timing.host_s += raidNow() - th;
out:
    if (rb.h)
        raidBufRelease(ctx, &rb);
    free(seam);
    free(seg_e);
    free(chunk_e);
    free(chunk_flag);
    raidPlanFree(&plan);
    return st;
}

raid_status raidRealizedDeviceCompute(raid_ctx *ctx, const double *r, const int64_t *offsets, size_t nseg,
                                        raid_realized *out)
{
    /* The device checks the range itself, in its pass over the returns (the same message). */
    double *acc = malloc((nseg ? nseg : 1) * RAID_NACC * sizeof *acc);
    if (!acc)
        return raidFail(ctx, RAID_ENOMEM, "out of memory");
    raid_status s = raidRealizedAccDevice(ctx, r, offsets, nseg, RAID_PART_ALL, acc);
    if (s == RAID_OK)
        for (size_t i = 0; i < nseg; i++)
            raidMeasuresFromAcc(acc + i * RAID_NACC, offsets[i + 1] - offsets[i], &out[i]);
    free(acc);
    return s;
}
