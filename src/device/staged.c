/* Uploads of large arrays from the caller's (pageable) memory through the device layer's page-locked
 * staging (raidHostAcquire): pieces copied by the host's threads into one of two staging buffers while
 * the other's upload runs (device.h, raidBufUploadStaged). Pageable memory uploads at a fraction of the
 * bus's speed (the H200's host: 8.3 GB/s against 55.5 GB/s page-locked, bench/RESULTS.md); the column
 * operations (select, group-by) upload whole arrays once per call and use this. */
#include "device/device.h"

#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define STAGE_BYTES ((size_t)32 << 20) /* bytes per piece */
#define STAGE_MIN ((size_t)1 << 20)    /* below: one plain upload */

void raidCopyStream(void *dst, const void *src, size_t bytes)
{
#if defined(__SSE2__)
    char *d = dst;
    const char *s = src;
    size_t head = (size_t)(-(uintptr_t)d & 15u);
    if (head > bytes)
        head = bytes;
    memcpy(d, s, head);
    size_t i = head;
    for (; i + 64 <= bytes; i += 64) {
        const __m128i a = _mm_loadu_si128((const __m128i *)(s + i)), b = _mm_loadu_si128((const __m128i *)(s + i + 16));
        const __m128i c = _mm_loadu_si128((const __m128i *)(s + i + 32)), e = _mm_loadu_si128((const __m128i *)(s + i + 48));
        _mm_stream_si128((__m128i *)(d + i), a);
        _mm_stream_si128((__m128i *)(d + i + 16), b);
        _mm_stream_si128((__m128i *)(d + i + 32), c);
        _mm_stream_si128((__m128i *)(d + i + 48), e);
    }
    memcpy(d + i, s + i, bytes - i);
    _mm_sfence();
#else
    memcpy(dst, src, bytes);
#endif
}

raid_status raidBufUploadStaged(raid_ctx *ctx, const RaidBuf *b, size_t first, size_t n, const void *src)
{
    const size_t es = raidDtypeSize(b->type), bytes = n * es;
    RaidEvent ev[2] = {{0}, {0}};
    void *stage[2] = {NULL, NULL};
    raid_status st = RAID_OK;
    if (bytes < STAGE_MIN || raidTuneDirectUpload(ctx)) { /* RAID_TUNE_DIRECT_UPLOAD: from src itself */
        if ((st = raidBufUpload(ctx, b, first, n, src, 1, &ev[0])) == RAID_OK)
            ctx->timing.upload_s += raidEventSeconds(&ev[0]);
        raidEventRelease(&ev[0]);
        return st;
    }
    const size_t per = STAGE_BYTES / es; /* elements per piece */
    for (int i = 0; i < 2 && st == RAID_OK; i++)
        st = raidHostAcquire(ctx, STAGE_BYTES, &stage[i]);
    for (size_t at = 0, p = 0; at < n && st == RAID_OK; at += per, p++) {
        const int i = (int)(p & 1);
        const size_t cnt = n - at < per ? n - at : per;
        if (ev[i].h) { /* the staging buffer's previous upload must have run */
            if ((st = raidEventWait(ctx, &ev[i])) != RAID_OK)
                break;
            ctx->timing.upload_s += raidEventSeconds(&ev[i]);
            raidEventRelease(&ev[i]);
        }
        const double t0 = raidNow();
        const char *from = (const char *)src + at * es;
        char *to = stage[i];
        const size_t pb = cnt * es, blk = (size_t)1 << 20, nblk = (pb + blk - 1) / blk;
#pragma omp parallel for schedule(static)
        for (size_t q = 0; q < nblk; q++)
            raidCopyStream(to + q * blk, from + q * blk, pb - q * blk < blk ? pb - q * blk : blk);
        ctx->timing.convert_s += raidNow() - t0;
        if ((st = raidBufUpload(ctx, b, first + at, cnt, stage[i], 0, &ev[i])) == RAID_OK)
            st = raidDevFlush(ctx);
    }
    for (int i = 0; i < 2 && st == RAID_OK; i++)
        if (ev[i].h)
            st = raidEventFinish(ctx, &ev[i], &ctx->timing.upload_s);
    /* After a failure nothing may still read the staging released below, and a second failing wait would
     * replace the first error's message (a failed clFlush was reported as clWaitForEvents). */
    if (st != RAID_OK)
        raidDevDrain(ctx);
    for (int i = 0; i < 2; i++) {
        raidEventRelease(&ev[i]);
        raidHostRelease(ctx, stage[i]);
    }
    return st;
}
