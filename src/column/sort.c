/* The public sorts of include/raid/sort.h: argument checks and the dispatch through raidSortBackends between
 * the cpu path (src/column/sort_cpu.c) and the device path (src/column/sort_device.c). */
#include "column/sort_impl.h"

#include "device/device.h"

#include <stdio.h>

/* Where the large arrays live (docs/device.md "The caller's device memory"): x and the output of the sort of
 * values and of the argsorts may be device memory of a CUDA context's device, read and written in place by
 * the device path (r->dev set); the validity bitmap and both arrays of the pairs are host memory. Device
 * memory elsewhere (a cpu or OpenCL context, another device, the pairs) is refused, never read. */
static raid_status memory(raid_ctx *ctx, const char *fn, RaidSortReq *r, int64_t n)
{
    const int64_t b = r->offsets[0];
    void *out = r->out == RAID_SORT_VALUES ? (void *)(r->vout + b) : r->out == RAID_SORT_IDX32 ? (void *)(r->i32 + b)
              : r->out == RAID_SORT_IDX64 ? (void *)(r->i64 + b) : (void *)(r->kout + b);
    const size_t es = r->out == RAID_SORT_IDX32 ? 4 : 8;
    char what[96];
    RaidMemKind kx, ko, kv = RAID_MEM_HOST;
    snprintf(what, sizeof what, "%s: x", fn);
    raid_status st = raidMemKindOf(ctx, r->x + b, (size_t)n * 8, 8, what, &kx);
    snprintf(what, sizeof what, "%s: the output", fn);
    if (st == RAID_OK)
        st = raidMemKindOf(ctx, out, (size_t)n * es, es, what, &ko);
    snprintf(what, sizeof what, "%s: valid", fn);
    if (st == RAID_OK && r->valid)
        st = raidMemKindOf(ctx, r->valid + b / 8, 1, 1, what, &kv);
    if (st == RAID_OK && r->out == RAID_SORT_PAIRS) { /* the keys and the values' output too */
        RaidMemKind k2 = RAID_MEM_HOST, k3 = RAID_MEM_HOST;
        snprintf(what, sizeof what, "%s: keys", fn);
        st = raidMemKindOf(ctx, r->ikeys + b, (size_t)n * 8, 8, what, &k2);
        snprintf(what, sizeof what, "%s: vals_out", fn);
        if (st == RAID_OK)
            st = raidMemKindOf(ctx, r->vout + b, (size_t)n * 8, 8, what, &k3);
        if (k2 == RAID_MEM_DEVICE || k3 == RAID_MEM_DEVICE)
            ko = RAID_MEM_DEVICE;
    }
    if (st != RAID_OK)
        return st;
    if (kv == RAID_MEM_DEVICE || (r->out == RAID_SORT_PAIRS && (kx == RAID_MEM_DEVICE || ko == RAID_MEM_DEVICE)))
        return raidFail(ctx, RAID_EINVAL, "%s: %s is device memory, and it takes host memory (docs/device.md \"The "
                                          "caller's device memory\")", fn, kv == RAID_MEM_DEVICE ? "valid" : "an array");
    r->dev = kx == RAID_MEM_DEVICE || ko == RAID_MEM_DEVICE;
    return RAID_OK;
}

static raid_status run(raid_ctx *ctx, const char *fn, RaidSortReq *r, unsigned flags, int have_out)
{
    if (!r->offsets)
        return raidFail(ctx, RAID_EINVAL, "%s: NULL offsets", fn);
    if (flags & ~(unsigned)RAID_SORT_DESC)
        return raidFail(ctx, RAID_EINVAL, "%s: unknown flags 0x%x", fn, flags & ~(unsigned)RAID_SORT_DESC);
    r->desc = (flags & RAID_SORT_DESC) != 0;
    if (r->nseg == 0)
        return RAID_OK;
    raid_status st = raidCheckOffsets(ctx, fn, "segment", r->offsets, r->nseg);
    if (st != RAID_OK)
        return st;
    const int64_t n = r->offsets[r->nseg] - r->offsets[0];
    if (n == 0)
        return RAID_OK;
    if (!r->x || !have_out || (r->out == RAID_SORT_PAIRS && !r->ikeys))
        return raidFail(ctx, RAID_EINVAL, "%s: NULL argument", fn);
    if (r->out == RAID_SORT_IDX32 && r->offsets[r->nseg] > (int64_t)UINT32_MAX)
        return raidFail(ctx, RAID_EINVAL, "%s: index %lld does not fit uint32 (use the int64 argsort)", fn,
                         (long long)r->offsets[r->nseg] - 1);
    if ((st = memory(ctx, fn, r, n)) != RAID_OK)
        return st;
    return RAID_BACKEND(raidSortBackends, ctx)->sort(ctx, r);
}

const RaidSortBackend raidSortBackends[2] = {
    [RAID_ON_CPU] = {raidSortCpu},
    [RAID_ON_DEVICE] = {raidSortDevice},
};

raid_status raid_sort_f64_seg(raid_ctx *ctx, const double *x, const int64_t *offsets, size_t nseg,
                              const uint8_t *valid, unsigned flags, double *out)
{
    RaidSortReq r = {.x = x, .offsets = offsets, .nseg = nseg, .valid = valid, .out = RAID_SORT_VALUES, .vout = out};
    return run(ctx, "raid_sort_f64", &r, flags, out != NULL);
}

raid_status raid_argsort_f64_seg_u32(raid_ctx *ctx, const double *x, const int64_t *offsets, size_t nseg,
                                     const uint8_t *valid, unsigned flags, uint32_t *idx)
{
    RaidSortReq r = {.x = x, .offsets = offsets, .nseg = nseg, .valid = valid, .out = RAID_SORT_IDX32, .i32 = idx};
    return run(ctx, "raid_argsort_f64_u32", &r, flags, idx != NULL);
}

raid_status raid_argsort_f64_seg_i64(raid_ctx *ctx, const double *x, const int64_t *offsets, size_t nseg,
                                     const uint8_t *valid, unsigned flags, int64_t *idx)
{
    RaidSortReq r = {.x = x, .offsets = offsets, .nseg = nseg, .valid = valid, .out = RAID_SORT_IDX64, .i64 = idx};
    return run(ctx, "raid_argsort_f64_i64", &r, flags, idx != NULL);
}

raid_status raid_sort_f64(raid_ctx *ctx, const double *x, size_t n, const uint8_t *valid, unsigned flags, double *out)
{
    const int64_t off[2] = {0, (int64_t)n};
    return raid_sort_f64_seg(ctx, x, off, 1, valid, flags, out);
}

raid_status raid_argsort_f64_u32(raid_ctx *ctx, const double *x, size_t n, const uint8_t *valid, unsigned flags,
                                 uint32_t *idx)
{
    const int64_t off[2] = {0, (int64_t)n};
    return raid_argsort_f64_seg_u32(ctx, x, off, 1, valid, flags, idx);
}

raid_status raid_argsort_f64_i64(raid_ctx *ctx, const double *x, size_t n, const uint8_t *valid, unsigned flags,
                                 int64_t *idx)
{
    const int64_t off[2] = {0, (int64_t)n};
    return raid_argsort_f64_seg_i64(ctx, x, off, 1, valid, flags, idx);
}

raid_status raid_sort_i64_f64(raid_ctx *ctx, const int64_t *keys, const double *vals, size_t n, unsigned flags,
                              int64_t *keys_out, double *vals_out)
{
    const int64_t off[2] = {0, (int64_t)n};
    RaidSortReq r = {.x = vals, .ikeys = keys, .offsets = off, .nseg = 1, .out = RAID_SORT_PAIRS, .vout = vals_out,
                       .kout = keys_out};
    return run(ctx, "raid_sort_i64_f64", &r, flags, keys_out != NULL && vals_out != NULL);
}
