/* The device path of the sorts (kernels/col_sort.cl; docs/column.md "Sorting"): the values go up as 32-bit
 * words, the device forms the keys (raid_key_sort), an LSD radix sort of the keys runs there (per pass: a
 * histogram, the exclusive scan of the digit table, a stable scatter; digits constant over the input are
 * skipped: the device ORs every key's difference from the first key), carrying the element indices; the
 * segment ids (segmented sorts) are the keys' most significant part, sorted by passes after the key's. The
 * outputs are the input's own words gathered by the sorted indices (sort, pairs) or the indices (argsort).
 * Digit width: SORT_BITS (default 8; a "-DSORT_BITS=b" in the context's tuning build options sets it, 1..8). */
#include "column/sort_impl.h"

#include "device/device.h"

#include <stdlib.h>
#include <string.h>

#define ROUNDS 16 /* rounds of a work-group per tile */

typedef struct sort_dev {
    raid_buf x, ik, valid, offs, segid, diff, counts, sums, khi[2], klo[2], idx[2], out;
    raid_kernel *keys, *segk, *hist, *sreduce, *stop, *sdown, *scatter, *gather;
} sort_dev;

static int digit_bits(raid_ctx *ctx)
{
    const char *o = strstr(raid_tune_build_options(ctx), "-DSORT_BITS=");
    int b = o ? atoi(o + 12) : 8;
    return b < 1 ? 1 : b > 8 ? 8 : b;
}

static raid_status launch(raid_ctx *ctx, raid_kernel *k, size_t items, size_t wg)
{
    const size_t global = (items + wg - 1) / wg * wg;
    ctx->timing.launches++;
    return raid_launch(ctx, k, 1, &global, &wg, NULL);
}

/* One pass: digit at `shift` of the keys (mode 0) or of the segment ids (mode 1); src -> 1 - src. */
static raid_status pass(raid_ctx *ctx, sort_dev *d, uint32_t n, int shift, int mode, int src, size_t wg,
                        uint32_t ngroups)
{
    raid_status st;
    const uint32_t radix = 1u << digit_bits(ctx), m = radix * ngroups;
    const uint32_t nb = (m + (uint32_t)wg * 4 - 1) / ((uint32_t)wg * 4);
    unsigned a = 0;
    if ((st = raid_arg_buf(ctx, d->hist, a++, &d->khi[src])) || (st = raid_arg_buf(ctx, d->hist, a++, &d->klo[src])) ||
        (st = raid_arg_buf(ctx, d->hist, a++, &d->idx[src])) || (st = raid_arg_buf(ctx, d->hist, a++, &d->segid)) ||
        (st = raid_arg_uint(ctx, d->hist, a++, n)) || (st = raid_arg_int(ctx, d->hist, a++, shift)) ||
        (st = raid_arg_int(ctx, d->hist, a++, mode)) || (st = raid_arg_buf(ctx, d->hist, a++, &d->counts)) ||
        (st = raid_arg_uint(ctx, d->hist, a++, ngroups)) || (st = launch(ctx, d->hist, (size_t)ngroups * wg, wg)))
        return st;
    if ((st = raid_arg_buf(ctx, d->sreduce, 0, &d->counts)) || (st = raid_arg_uint(ctx, d->sreduce, 1, m)) ||
        (st = raid_arg_buf(ctx, d->sreduce, 2, &d->sums)) || (st = launch(ctx, d->sreduce, (size_t)nb * wg, wg)) ||
        (st = raid_arg_buf(ctx, d->stop, 0, &d->sums)) || (st = raid_arg_uint(ctx, d->stop, 1, nb)) ||
        (st = launch(ctx, d->stop, wg, wg)) || (st = raid_arg_buf(ctx, d->sdown, 0, &d->counts)) ||
        (st = raid_arg_uint(ctx, d->sdown, 1, m)) || (st = raid_arg_buf(ctx, d->sdown, 2, &d->sums)) ||
        (st = launch(ctx, d->sdown, (size_t)nb * wg, wg)))
        return st;
    a = 0;
    raid_kernel *k = d->scatter;
    if ((st = raid_arg_buf(ctx, k, a++, &d->khi[src])) || (st = raid_arg_buf(ctx, k, a++, &d->klo[src])) ||
        (st = raid_arg_buf(ctx, k, a++, &d->idx[src])) || (st = raid_arg_buf(ctx, k, a++, &d->segid)) ||
        (st = raid_arg_uint(ctx, k, a++, n)) || (st = raid_arg_int(ctx, k, a++, shift)) ||
        (st = raid_arg_int(ctx, k, a++, mode)) || (st = raid_arg_buf(ctx, k, a++, &d->counts)) ||
        (st = raid_arg_uint(ctx, k, a++, ngroups)) || (st = raid_arg_buf(ctx, k, a++, &d->khi[1 - src])) ||
        (st = raid_arg_buf(ctx, k, a++, &d->klo[1 - src])) || (st = raid_arg_buf(ctx, k, a++, &d->idx[1 - src])) ||
        (st = launch(ctx, k, (size_t)ngroups * wg, wg)))
        return st;
    return RAID_OK;
}

static raid_status gather(raid_ctx *ctx, sort_dev *d, const raid_buf *src, const raid_buf *idx, uint32_t n, void *host)
{
    raid_status st;
    if ((st = raid_arg_buf(ctx, d->gather, 0, src)) || (st = raid_arg_buf(ctx, d->gather, 1, idx)) ||
        (st = raid_arg_uint(ctx, d->gather, 2, n)) || (st = raid_arg_buf(ctx, d->gather, 3, &d->out)) ||
        (st = launch(ctx, d->gather, n, 64)))
        return st;
    return raid_buf_download(ctx, &d->out, 0, 2 * (size_t)n, host, 1, NULL);
}

raid_status raid_sort_cl(raid_ctx *ctx, const raid_sort_req *r)
{
    memset(&ctx->timing, 0, sizeof ctx->timing);
    const int64_t base = r->offsets[0];
    const size_t N = (size_t)(r->offsets[r->nseg] - base);
    if (N > RAID_SORT_CL_MAX - 1)
        return raid_fail(ctx, RAID_EUNSUPPORTED, "sorting on a device: %zu values in one call (at most %u)", N,
                         RAID_SORT_CL_MAX - 1);
    const uint32_t n = (uint32_t)N;
    size_t wg = raid_dev_max_wg(ctx);
    wg = wg >= 256 ? 256 : wg / 32 * 32;
    if (wg < 32)
        return raid_fail(ctx, RAID_EUNSUPPORTED, "sorting on a device: work-groups of %zu work-items (at least 32)",
                         raid_dev_max_wg(ctx));
    const int bits = digit_bits(ctx);
    const uint32_t radix = 1u << bits, tile = (uint32_t)wg * ROUNDS, ngroups = (n + tile - 1) / tile;
    char opts[512];
    /* the tuning options first: a later -D wins, so the kernels get the (clamped) width the host plans with */
    snprintf(opts, sizeof opts, "%s -DSORT_BITS=%d -DSORT_WG=%zu -DSORT_ROUNDS=%d", raid_tune_build_options(ctx), bits,
             wg, ROUNDS);
    /* the segments that hold elements: their ids' bits are sorted after the keys */
    size_t nonempty = 0;
    for (size_t s = 0; s < r->nseg; s++)
        nonempty += r->offsets[s + 1] > r->offsets[s];
    int segbits = 0;
    if (nonempty > 1)
        while (segbits < 32 && ((uint64_t)(r->nseg - 1) >> segbits) != 0)
            segbits++;

    const double t0 = raid_now();
    sort_dev d = {0};
    raid_status st = RAID_OK;
    uint32_t *offs = NULL, *idx32 = NULL;
    const uint32_t zero = 0;
    const uint8_t nobyte = 0;
    const int masked = r->valid != NULL;
    const uint32_t vbit0 = (uint32_t)(base & 7);
    const size_t vbytes = masked ? (vbit0 + N + 7) / 8 : 1;
    if ((st = raid_kernel_get(ctx, "col_sort.cl", "sort_keys", opts, &d.keys)) ||
        (st = raid_kernel_get(ctx, "col_sort.cl", "sort_hist", opts, &d.hist)) ||
        (st = raid_kernel_get(ctx, "col_sort.cl", "sort_scan_reduce", opts, &d.sreduce)) ||
        (st = raid_kernel_get(ctx, "col_sort.cl", "sort_scan_top", opts, &d.stop)) ||
        (st = raid_kernel_get(ctx, "col_sort.cl", "sort_scan_down", opts, &d.sdown)) ||
        (st = raid_kernel_get(ctx, "col_sort.cl", "sort_scatter", opts, &d.scatter)) ||
        (st = raid_kernel_get(ctx, "col_sort.cl", "sort_gather", opts, &d.gather)))
        goto done;
    const uint32_t m = radix * ngroups, nb = (m + (uint32_t)wg * 4 - 1) / ((uint32_t)wg * 4);
    if ((st = raid_buf_acquire(ctx, RAID_DT_UINT, 2 * N, &d.x)) ||
        (st = raid_buf_acquire(ctx, RAID_DT_BYTE, vbytes, &d.valid)) ||
        (st = raid_buf_acquire(ctx, RAID_DT_UINT, 2, &d.diff)) ||
        (st = raid_buf_acquire(ctx, RAID_DT_UINT, segbits ? N : 1, &d.segid)) ||
        (st = raid_buf_acquire(ctx, RAID_DT_UINT, m, &d.counts)) || (st = raid_buf_acquire(ctx, RAID_DT_UINT, nb, &d.sums)))
        goto done;
    for (int b = 0; b < 2; b++)
        if ((st = raid_buf_acquire(ctx, RAID_DT_UINT, N, &d.khi[b])) ||
            (st = raid_buf_acquire(ctx, RAID_DT_UINT, N, &d.klo[b])) ||
            (st = raid_buf_acquire(ctx, RAID_DT_UINT, N, &d.idx[b])))
            goto done;
    /* The float64 (and int64) inputs as 32-bit words, little-endian (word 2i the low half). */
    if ((st = raid_buf_upload(ctx, &d.x, 0, 2 * N, r->x + base, 0, NULL)) ||
        (masked && (st = raid_buf_upload(ctx, &d.valid, 0, vbytes, r->valid + base / 8, 0, NULL))) ||
        (!masked && (st = raid_buf_fill(ctx, &d.valid, &nobyte, NULL))) || (st = raid_buf_fill(ctx, &d.diff, &zero, NULL)))
        goto done;
    ctx->timing.bytes_in = 2 * N * sizeof(uint32_t) + (masked ? vbytes : 0);
    const raid_buf *keysrc = &d.x;
    if (r->out == RAID_SORT_PAIRS) {
        if ((st = raid_buf_acquire(ctx, RAID_DT_UINT, 2 * N, &d.ik)) ||
            (st = raid_buf_upload(ctx, &d.ik, 0, 2 * N, r->ikeys + base, 0, NULL)))
            goto done;
        keysrc = &d.ik;
        ctx->timing.bytes_in += 2 * N * sizeof(uint32_t);
    }
    unsigned a = 0;
    if ((st = raid_arg_buf(ctx, d.keys, a++, keysrc)) || (st = raid_arg_buf(ctx, d.keys, a++, &d.valid)) ||
        (st = raid_arg_int(ctx, d.keys, a++, masked)) || (st = raid_arg_uint(ctx, d.keys, a++, vbit0)) ||
        (st = raid_arg_int(ctx, d.keys, a++, r->desc)) || (st = raid_arg_int(ctx, d.keys, a++, r->out == RAID_SORT_PAIRS)) ||
        (st = raid_arg_uint(ctx, d.keys, a++, n)) || (st = raid_arg_buf(ctx, d.keys, a++, &d.khi[0])) ||
        (st = raid_arg_buf(ctx, d.keys, a++, &d.klo[0])) || (st = raid_arg_buf(ctx, d.keys, a++, &d.idx[0])) ||
        (st = raid_arg_buf(ctx, d.keys, a++, &d.diff)) || (st = launch(ctx, d.keys, N, wg)))
        goto done;
    if (segbits) {
        offs = malloc((r->nseg + 1) * sizeof *offs);
        if (!offs) {
            st = raid_fail(ctx, RAID_ENOMEM, "out of memory (sorting on a device)");
            goto done;
        }
        for (size_t s = 0; s <= r->nseg; s++)
            offs[s] = (uint32_t)(r->offsets[s] - base);
        if ((st = raid_kernel_get(ctx, "col_sort.cl", "sort_segid", opts, &d.segk)) ||
            (st = raid_buf_acquire(ctx, RAID_DT_UINT, r->nseg + 1, &d.offs)) ||
            (st = raid_buf_upload(ctx, &d.offs, 0, r->nseg + 1, offs, 1, NULL)) ||
            (st = raid_arg_buf(ctx, d.segk, 0, &d.offs)) || (st = raid_arg_uint(ctx, d.segk, 1, (uint32_t)r->nseg)) ||
            (st = raid_arg_uint(ctx, d.segk, 2, n)) || (st = raid_arg_buf(ctx, d.segk, 3, &d.segid)) ||
            (st = launch(ctx, d.segk, N, wg)))
            goto done;
    }
    uint32_t diff[2];
    if ((st = raid_buf_download(ctx, &d.diff, 0, 2, diff, 1, NULL)))
        goto done;
    const uint64_t diff64 = (uint64_t)diff[0] << 32 | diff[1];
    int src = 0;
    for (int shift = 0; shift < 64; shift += bits)
        if ((diff64 >> shift) & (radix - 1)) {
            if ((st = pass(ctx, &d, n, shift, 0, src, wg, ngroups)))
                goto done;
            src = 1 - src;
        }
    for (int shift = 0; shift < segbits; shift += bits) {
        if ((st = pass(ctx, &d, n, shift, 1, src, wg, ngroups)))
            goto done;
        src = 1 - src;
    }
    switch (r->out) {
    case RAID_SORT_VALUES:
        if ((st = raid_buf_acquire(ctx, RAID_DT_UINT, 2 * N, &d.out)) ||
            (st = gather(ctx, &d, &d.x, &d.idx[src], n, r->vout + base)))
            goto done;
        break;
    case RAID_SORT_PAIRS:
        if ((st = raid_buf_acquire(ctx, RAID_DT_UINT, 2 * N, &d.out)) ||
            (st = gather(ctx, &d, &d.x, &d.idx[src], n, r->vout + base)) ||
            (st = gather(ctx, &d, &d.ik, &d.idx[src], n, r->kout + base)))
            goto done;
        break;
    case RAID_SORT_IDX32:
        if ((st = raid_buf_download(ctx, &d.idx[src], 0, N, r->i32 + base, 1, NULL)))
            goto done;
        if (base)
            for (size_t j = 0; j < N; j++)
                r->i32[base + j] += (uint32_t)base;
        break;
    case RAID_SORT_IDX64:
        idx32 = malloc(N * sizeof *idx32);
        if (!idx32) {
            st = raid_fail(ctx, RAID_ENOMEM, "out of memory (sorting on a device)");
            goto done;
        }
        if ((st = raid_buf_download(ctx, &d.idx[src], 0, N, idx32, 1, NULL)))
            goto done;
        for (size_t j = 0; j < N; j++)
            r->i64[base + j] = base + idx32[j];
        break;
    }
    ctx->timing.kernel_s = raid_now() - t0; /* wall: upload, passes and read-back */
done:
    free(offs);
    free(idx32);
    raid_buf *bufs[] = {&d.x, &d.ik, &d.valid, &d.offs, &d.segid, &d.diff, &d.counts, &d.sums, &d.khi[0], &d.khi[1],
                        &d.klo[0], &d.klo[1], &d.idx[0], &d.idx[1], &d.out};
    for (size_t b = 0; b < sizeof bufs / sizeof *bufs; b++)
        raid_buf_release(ctx, bufs[b]);
    raid_kernel *ks[] = {d.keys, d.segk, d.hist, d.sreduce, d.stop, d.sdown, d.scatter, d.gather};
    for (size_t k = 0; k < sizeof ks / sizeof *ks; k++)
        raid_kernel_put(ctx, ks[k]);
    return st;
}
