/* Group-by, the device path (kernels/col_groupby.cl; docs/groupby.md "The device path").
 *
 * Everything per row runs on the device: the host uploads the keys, the values' bits (two uint32 words
 * each, as stored: no conversion) and the validity bytes (through page-locked staging,
 * raidBufUploadStaged; keys and values in the caller's CUDA device memory are read in place,
 * raidBufInput), then
 *   1. gb_range: the keys' range and the values' exponent range (per work-group partials, combined here);
 *   2. gb_ids_direct (keys spanning a small range) or gb_ids_hash (a lock-free hash table from 32-bit
 *      atomic_cmpxchg only): every row's slot, and the distinct keys with their slots (few: downloaded);
 *   3. the host sorts the distinct keys (raid_sort_i64_f64 on the cpu) and uploads their slots in key
 *      order; gb_map makes map[slot] = the group's rank, so groups come out in ascending key order, and
 *      gb_rank turns every row's slot into its group's rank (the dense id the aggregation kernels read);
 *   4. gb_rows_local (per-work-group tables in local memory, merged once) when the groups' tables fit in
 *      local memory; else, for sums, counts and means, the rows partitioned by group with one pass of the
 *      device sort and local tables per partition (partitioned(), at most 255 partitions); else
 *      gb_rows_global (exponent buckets for sums while their tables stay small, else limbs); then
 *      gb_minmax_lo for min and max;
 *   5. the host reads the tables back and rounds each group's exact sum (positive minus negative limbs)
 *      with the cpu path's raidGbRoundLimbs.
 * Everything the kernels compute is an exact integer held in 32-bit words, and the slots, ids and ranks do
 * not change what a group holds: the result is the cpu path's bit for bit, whatever the work-group count,
 * the hash seed or the atomics' order. */
#include "column/groupby_internal.h"

#include "device/launch.h"
#include "column/sort_impl.h"
#include "raid/sort.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GB_WG 256                  /* work-items per work-group */
#define GB_ROWS_DEFAULT 16384      /* rows per work-group with global tables */
#define GB_LOCAL_BUDGET 49152      /* bytes of local tables at most (the usual GPU's 48 KiB) */
#define GB_RANGE_WGS 2048          /* work-groups of gb_range at most (their partials are read back) */
#define GB_DIRECT_MAX (1u << 24)   /* keys spanning at most this many values: a direct table */
#define GB_HASH_START (1u << 21)   /* slots of the first hash table at most (a retry takes 2n) */
#define GB_EB_BUDGET (32u << 20)   /* bytes of exponent-bucket tables at most for the automatic choice */
#define GB_PART_ROWS 32768         /* rows per block and per chunk of the partitioned path */

/* The exponent buckets e[0 .. 3 nb) of one sign (kernels/col_groupby.cl: bucket b0 + j = (lo, hi, top), the
 * integer top 2^64 + hi 2^32 + lo at bit 8 (b0 + j) of the limbs) added into the L limbs at out. The sum
 * (of every bucket of a group's sign) is below 2^(32 L): nothing is lost. */
static void gb_eb_limbs(const uint32_t *e, int b0, int nb, int L, uint32_t *out)
{
    for (int j = 0; j < nb; j++) {
        const uint32_t lo = e[3 * j], hi = e[3 * j + 1], top = e[3 * j + 2];
        if (!(lo | hi | top))
            continue;
        const int b = b0 + j, w = (8 * b) >> 5, sh = (8 * b) & 31;
        const uint32_t v[4] = {lo << sh, sh ? (lo >> (32 - sh)) | (hi << sh) : hi,
                               sh ? (hi >> (32 - sh)) | (top << sh) : top, sh ? top >> (32 - sh) : 0u};
        uint64_t carry = 0;
        for (int i = w; i < L && (i < w + 4 || carry); i++) {
            const uint64_t t = (uint64_t)out[i] + (i < w + 4 ? v[i - w] : 0u) + carry;
            out[i] = (uint32_t)t;
            carry = t >> 32;
        }
        assert(!carry);
    }
}

gb_cl_knobs raidGbDeviceTestKnobs;

enum { B_GID, B_X, B_SUM, B_CNT, B_FLAG, B_MNHI, B_MXHI, B_FIRST, B_LAST, B_MNLO, B_MXLO, NBUF };

/* Launch plan L over `items` work-items (rounded up to whole work-groups of wg) and wait; its time into
 * kernel_s, and into prep_s too for a kernel of the group ids (prep != 0). RAID_GROUPBY_PROFILE set in the
 * environment: a line on stderr with the kernel's time (name: the benchmark's breakdown of the partitioned
 * path; NULL: no line). */
static void run(RaidLaunch *L, size_t items, size_t wg, int prep, const char *name)
{
    raid_ctx *ctx = L->ctx;
    const double t0 = ctx->timing.kernel_s;
    raidLaunchSize(L, items, wg);
    raidLaunchRun(L, &ctx->timing.kernel_s);
    if (L->st != RAID_OK)
        return;
    if (prep)
        ctx->timing.prep_s += ctx->timing.kernel_s - t0;
    if (name && getenv("RAID_GROUPBY_PROFILE"))
        fprintf(stderr, "groupby profile: %s %.4f ms (%zu work-groups)\n", name, (ctx->timing.kernel_s - t0) * 1e3,
                (items + wg - 1) / wg);
}

static raid_status download(raid_ctx *ctx, const RaidBuf *b, size_t n, void *dst)
{
    RaidEvent ev = {0};
    raid_status st = raidBufDownload(ctx, b, 0, n, dst, 1, &ev);
    return st != RAID_OK ? st : raidEventFinish(ctx, &ev, &ctx->timing.download_s);
}

static size_t pow2_at_least(size_t x)
{
    size_t c = 1024;
    while (c < x)
        c *= 2;
    return c;
}

/* Device buffers of the group ids (released by the caller): keys, validity, gb_range's partials, the slot
 * table, meta (ids, overflow), the distinct keys, their slots in key order, the ranks by slot. */
enum { D_KEYS, D_VALID, D_RANGE, D_TAB, D_META, D_UK, D_SRT, D_MAP, ND };

/* 1. The keys (and validity) uploaded; gb_range: the keys' range (*kmin, *kmax as key ^ 2^63: unsigned
 *    order = signed order) and the values' exponent range (base, pspan, qmin into p), from per work-group
 *    partials combined here. */
static raid_status range_pass(raid_ctx *ctx, gb_plan *p, const RaidBuf *b, RaidBuf *d, size_t wg, uint64_t *kmin,
                              uint64_t *kmax)
{
    const size_t n = p->n;
    const int masked = p->valid != NULL, usep = p->need != 0;
    size_t rows = (n + GB_RANGE_WGS - 1) / GB_RANGE_WGS;
    rows = rows < 16 * wg ? 16 * wg : (rows + wg - 1) / wg * wg;
    const size_t nwg = (n + rows - 1) / rows;
    uint32_t *part = malloc(8 * nwg * sizeof *part);
    RaidLaunch L;
    raidLaunchKernel(&L, ctx, "col_groupby.cl", "gb_range", raidTuneBuildOptions(ctx));
    if (!part)
        raidLaunchFail(&L, raidFail(ctx, RAID_ENOMEM, "out of memory (group-by of %zu rows)", n));
    RaidMemKind kk = RAID_MEM_HOST; /* the keys wrapped where they are device memory (docs/device.md) */
    RAID_LAUNCH_CALL(&L, raidBufInput(ctx, p->keys, RAID_DT_UINT, 2 * n, "keys", &d[D_KEYS], &kk));
    RAID_LAUNCH_CALL(&L, raidBufAcquire(ctx, RAID_DT_BYTE, masked ? n : 1, &d[D_VALID]));
    RAID_LAUNCH_CALL(&L, raidBufAcquire(ctx, RAID_DT_UINT, 2, &d[D_META]));
    if (masked)
        RAID_LAUNCH_CALL(&L, raidBufUploadStaged(ctx, &d[D_VALID], 0, n, p->valid));
    if (L.st == RAID_OK)
        ctx->timing.bytes_in += n * ((kk == RAID_MEM_HOST ? 8u : 0u) + (masked ? 1u : 0u));
    RAID_LAUNCH_CALL(&L, raidBufAcquire(ctx, RAID_DT_UINT, 8 * nwg, &d[D_RANGE]));
    RAID_LAUNCH_ARGS(&L, 0, RAID_ARG_BUF(&d[D_KEYS]), RAID_ARG_BUF(&b[B_X]), RAID_ARG_U32(n), RAID_ARG_U32(rows),
                     RAID_ARG_U32(usep), RAID_ARG_BUF(&d[D_RANGE]));
    run(&L, nwg * wg, wg, 1, NULL);
    RAID_LAUNCH_CALL(&L, download(ctx, &d[D_RANGE], 8 * nwg, part));
    uint32_t pmin = 4096, pmax = 0;
    *kmin = UINT64_MAX, *kmax = 0;
    for (size_t w = 0; L.st == RAID_OK && w < nwg; w++) {
        const uint32_t *o = part + 8 * w;
        const uint64_t lo = (uint64_t)o[0] << 32 | o[1], hi = (uint64_t)o[2] << 32 | o[3];
        *kmin = lo < *kmin ? lo : *kmin;
        *kmax = hi > *kmax ? hi : *kmax;
        pmin = o[4] < pmin ? o[4] : pmin;
        pmax = o[5] > pmax ? o[5] : pmax;
    }
    p->kmin = (int64_t)(*kmin ^ (1ull << 63));
    if (usep && pmax > 0) { /* pmax holds p + 1 */
        p->base = 32 * (int)(pmin >> 5);
        p->pspan = (int)pmax - 1 - p->base;
        p->qmin = (int)pmin - p->base;
    }
    free(part);
    return raidLaunchEnd(&L);
}

/* 2. One attempt of gb_ids_direct (keys spanning a small range: slot = key - kmin, kmin as key ^ 2^63) or
 *    gb_ids_hash (a lock-free hash table of cap slots from 32-bit atomic_cmpxchg only): every row's slot
 *    into b[B_GID], the distinct keys with their slots into d[D_UK] (limit at most), their number and the
 *    overflow flag into meta. */
static raid_status slot_pass(raid_ctx *ctx, const gb_plan *p, int upx, const RaidBuf *b, RaidBuf *d, size_t wg,
                             int direct, size_t cap, uint64_t kmin, uint64_t seed, uint32_t meta[2])
{
    const size_t n = p->n, limit = direct ? cap : cap / 2;
    const uint32_t zero2[2] = {0, 0}, empty = 0xFFFFFFFFu, ulimit = (uint32_t)(limit < n ? limit : n);
    raidBufRelease(ctx, &d[D_TAB]);
    raidBufRelease(ctx, &d[D_UK]);
    RaidLaunch L;
    raidLaunchKernel(&L, ctx, "col_groupby.cl", direct ? "gb_ids_direct" : "gb_ids_hash", raidTuneBuildOptions(ctx));
    RAID_LAUNCH_CALL(&L, raidBufAcquire(ctx, RAID_DT_UINT, direct ? cap : 4 * cap, &d[D_TAB]));
    RAID_LAUNCH_CALL(&L, raidBufAcquire(ctx, RAID_DT_UINT, 3 * (limit < n ? limit : n), &d[D_UK]));
    RAID_LAUNCH_CALL(&L, raidBufFill(ctx, &d[D_TAB], &empty, NULL));
    RAID_LAUNCH_CALL(&L, raidBufUpload(ctx, &d[D_META], 0, 2, zero2, 1, NULL));
    RAID_LAUNCH_ARGS(&L, 0, RAID_ARG_BUF(&d[D_KEYS]), RAID_ARG_BUF(&b[B_X]), RAID_ARG_BUF(&d[D_VALID]),
                     RAID_ARG_U32(n), RAID_ARG_U32(p->valid != NULL), RAID_ARG_U32(p->skipna && upx));
    unsigned a = 6;
    if (direct) {
        RAID_LAUNCH_ARGS(&L, a, RAID_ARG_U32(kmin), RAID_ARG_BUF(&d[D_TAB]));
        a += 2;
    } else {
        const uint32_t mask = (uint32_t)(cap - 1);
        const uint32_t hmask = raidGbDeviceTestKnobs.hmask ? raidGbDeviceTestKnobs.hmask & mask : mask;
        RAID_LAUNCH_ARGS(&L, a, RAID_ARG_BUF(&d[D_TAB]), RAID_ARG_U32(mask), RAID_ARG_U32(hmask), RAID_ARG_U32(seed),
                         RAID_ARG_U32(seed >> 32));
        a += 5;
    }
    RAID_LAUNCH_ARGS(&L, a, RAID_ARG_BUF(&d[D_META]), RAID_ARG_BUF(&d[D_UK]), RAID_ARG_U32(ulimit),
                     RAID_ARG_BUF(&b[B_GID]));
    run(&L, n, wg, 1, NULL);
    RAID_LAUNCH_CALL(&L, download(ctx, &d[D_META], 2, meta));
    return raidLaunchEnd(&L);
}

/* 3. The G distinct keys (uk: 3 words each as gb_ids wrote them: key low, high, slot) in ascending order into
 *    skey, and their slots in that order into uk[0 .. G) (direct: key order is slot order, a bitmap of the
 *    slots seen read in order; hash: the keys with their slots as a double's bits, sorted by key). */
static raid_status order_keys(raid_ctx *ctx, const gb_plan *p, int direct, size_t cap, size_t g, uint32_t *uk,
                              int64_t *skey)
{
    const size_t gs = g ? g : 1;
    if (direct) {
        uint64_t *bits = calloc((cap + 63) / 64, sizeof *bits);
        if (!bits)
            return raidFail(ctx, RAID_ENOMEM, "out of memory (%zu groups)", g);
        for (size_t j = 0; j < g; j++)
            bits[uk[3 * j + 2] >> 6] |= 1ull << (uk[3 * j + 2] & 63);
        size_t r = 0;
        for (size_t w = 0; w < (cap + 63) / 64; w++)
            for (uint64_t x = bits[w]; x; x &= x - 1, r++) {
                uk[r] = (uint32_t)(64 * w + (size_t)__builtin_ctzll(x));
                skey[r] = (int64_t)((uint64_t)p->kmin + uk[r]);
            }
        free(bits);
        assert(r == g);
        return RAID_OK;
    }
    int64_t *key = malloc(gs * sizeof *key);
    double *slot = malloc(gs * sizeof *slot), *sslot = malloc(gs * sizeof *sslot);
    raid_status st = RAID_OK;
    if (!key || !slot || !sslot) {
        st = raidFail(ctx, RAID_ENOMEM, "out of memory (%zu groups)", g);
    } else {
        for (size_t j = 0; j < g; j++) {
            key[j] = (int64_t)((uint64_t)uk[3 * j + 1] << 32 | uk[3 * j]);
            memcpy(&slot[j], &(uint64_t){uk[3 * j + 2]}, sizeof slot[j]);
        }
        if (raid_sort_i64_f64(NULL, key, slot, g, 0, skey, sslot) != RAID_OK)
            st = raidFail(ctx, RAID_ENOMEM, "group-by: %s", raid_errmsg());
        for (size_t j = 0; st == RAID_OK && j < g; j++) {
            uint64_t sl;
            memcpy(&sl, &sslot[j], sizeof sl);
            uk[j] = (uint32_t)sl;
        }
    }
    free(key), free(slot), free(sslot);
    return st;
}

/* 3. The slots in key order (uk, g of them) uploaded; gb_map: map[slot] = the group's rank, so groups come
 *    out in ascending key order; gb_rank: every row's slot in b[B_GID] turned into its group's rank. */
static raid_status map_ranks(raid_ctx *ctx, size_t n, size_t g, size_t cap, const uint32_t *uk, const RaidBuf *b,
                             RaidBuf *d, size_t wg)
{
    RaidEvent ev = {0};
    RaidLaunch L;
    raidLaunchKernel(&L, ctx, "col_groupby.cl", "gb_map", raidTuneBuildOptions(ctx));
    RAID_LAUNCH_CALL(&L, raidBufAcquire(ctx, RAID_DT_UINT, g ? g : 1, &d[D_SRT]));
    RAID_LAUNCH_CALL(&L, raidBufAcquire(ctx, RAID_DT_UINT, cap, &d[D_MAP]));
    if (g) {
        RAID_LAUNCH_CALL(&L, raidBufUpload(ctx, &d[D_SRT], 0, g, uk, 0, &ev));
        RAID_LAUNCH_CALL(&L, raidEventFinish(ctx, &ev, &ctx->timing.upload_s));
        raidEventRelease(&ev);
    }
    RAID_LAUNCH_ARGS(&L, 0, RAID_ARG_BUF(&d[D_SRT]), RAID_ARG_U32(g), RAID_ARG_BUF(&d[D_MAP]));
    if (g)
        run(&L, g, wg, 1, NULL);
    raid_status st = raidLaunchEnd(&L);
    if (st != RAID_OK)
        return st;
    raidLaunchKernel(&L, ctx, "col_groupby.cl", "gb_rank", raidTuneBuildOptions(ctx));
    RAID_LAUNCH_ARGS(&L, 0, RAID_ARG_BUF(&b[B_GID]), RAID_ARG_U32(n), RAID_ARG_BUF(&d[D_MAP]));
    run(&L, n, wg, 1, NULL);
    return raidLaunchEnd(&L);
}

/* Steps 1 to 3: every row's group rank (dense id) into b[B_GID] (through its slot and map[slot] = rank), the
 * sorted distinct keys into *ukeys (malloc'd) and their number into *G; base and pspan of the values into p. */
static raid_status form_ids(raid_ctx *ctx, gb_plan *p, int upx, RaidBuf *b, RaidBuf *d, size_t wg, int64_t **ukeys,
                            size_t *G)
{
    const size_t n = p->n;
    uint64_t kmin, kmax;
    raid_status st = range_pass(ctx, p, b, d, wg, &kmin, &kmax);
    if (st != RAID_OK)
        return st;
    /* 2. slots: a retry with a table of 2n slots when the first overflowed */
    const uint64_t range = kmax - kmin;
    const int direct = !raidGbDeviceTestKnobs.force_hash && range < GB_DIRECT_MAX && range <= 2 * (uint64_t)n + 65536;
    size_t cap = direct ? (size_t)range + 1 : pow2_at_least(2 * (n < GB_HASH_START / 2 ? n : GB_HASH_START / 2));
    if (!direct && raidGbDeviceTestKnobs.hash_cap)
        cap = raidGbDeviceTestKnobs.hash_cap;
    const uint64_t seed = raidMix64((uint64_t)(uintptr_t)ctx ^ (uint64_t)(raidNow() * 1e9));
    for (int attempt = 0;; attempt++) {
        uint32_t meta[2];
        if ((st = slot_pass(ctx, p, upx, b, d, wg, direct, cap, kmin, seed, meta)) != RAID_OK)
            return st;
        if (!meta[1]) {
            *G = meta[0];
            break;
        }
        if (direct || attempt > 0 || cap >= pow2_at_least(2 * n)) /* a table of 2n slots holds n keys */
            return raidFail(ctx, RAID_EDEVICE, "group-by: the group-id table of %zu slots overflowed", cap);
        cap = pow2_at_least(2 * n);
        if (cap > ((size_t)1 << 30)) /* word indices 4 x slot stay below 2^32 */
            return raidFail(ctx, RAID_EUNSUPPORTED, "raid_groupby_compute on a device: more than 2^20 distinct keys in "
                             "%zu rows (2^29 rows at most then)", n);
    }
    /* 3. the distinct keys in ascending order, their ranks by slot */
    const double t0 = raidNow();
    const size_t g = *G, gs = g ? g : 1;
    uint32_t *uk = malloc(3 * gs * sizeof *uk);
    int64_t *skey = malloc(gs * sizeof *skey);
    if (!uk || !skey)
        st = raidFail(ctx, RAID_ENOMEM, "out of memory (%zu groups)", g);
    if (st == RAID_OK && g)
        st = download(ctx, &d[D_UK], 3 * g, uk);
    if (st == RAID_OK)
        st = order_keys(ctx, p, direct, cap, g, uk, skey);
    if (st == RAID_OK)
        ctx->timing.convert_s += raidNow() - t0;
    if (st == RAID_OK && (st = map_ranks(ctx, n, g, cap, uk, b, d, wg)) == RAID_OK) {
        *ukeys = skey;
        skey = NULL;
    }
    free(uk);
    free(skey);
    return st;
}

/* The partitioned path's shape: 2^pb groups per partition (their tables: tw words a group, at most
 * GB_PART_TABLES bytes and the local memory lmax; pb at most maxb), np partitions. 0 when it does not fit:
 * the sort pass's digits are 8 bits (work-groups of 256), digit 255 holds the null rows, so 255 partitions at
 * most; and n rows fewer than 2^31 (RAID_SORT_DEVICE_MAX: the sort pass counts a digit's rows below 2^31, and one
 * partition, or the null rows, may hold nearly all of them). */
#define GB_PART_TABLES 32768 /* bytes of a partition's local tables at most */
static int part_shape(size_t n, size_t G, size_t tw, size_t wg, uint64_t lmax, int maxb, int *pb, size_t *np)
{
    int b = 0;
    while (b < maxb && ((tw * sizeof(uint32_t)) << (b + 1)) <= (GB_PART_TABLES < lmax ? GB_PART_TABLES : lmax))
        b++;
    const size_t P = (G + ((size_t)1 << b) - 1) >> b;
    *pb = b, *np = P;
    return ((tw * sizeof(uint32_t)) << b) <= lmax && P <= 255 && wg == 256 && n < RAID_SORT_DEVICE_MAX;
}

/* The sums of many groups by partitions (mode 8; kernels/col_groupby.cl "rows partitioned by group"):
 * gb_part_count (the rows per partition), gb_part_starts (their starts, the chunks'), one pass of the device
 * sort (raidSortDevicePartition: the values and ranks by partition, digit (rank >> pb) & 255), gb_part_rows,
 * every step on the device (no read-back between them). rows: rows per block of the count and per chunk of
 * gb_part_rows. */
static raid_status partitioned(raid_ctx *ctx, const gb_plan *p, const RaidBuf *b, size_t tw, int pb, size_t np,
                               size_t rows, size_t wg, const char *opts, int check)
{
    enum { S_PST, S_CST, S_VAL, S_RANK, S_ERR, NS };
    const size_t n = p->n, nblk = (n + rows - 1) / rows;
    RaidBuf s[NS] = {{0}};
    const uint32_t zero = 0, R = (uint32_t)rows, PB = (uint32_t)pb, NP = (uint32_t)np;
    const int profile = getenv("RAID_GROUPBY_PROFILE") != NULL;
    if (profile)
        fprintf(stderr, "groupby profile: partitioned, %zu rows, %zu groups, %zu partitions of 2^%d groups, tables "
                        "of %zu words a group, blocks and chunks of %zu rows, options '%s'\n",
                n, p->ngroups, np, pb, tw, rows, opts);
    RaidLaunch L; /* the steps; each kernel its own plan */
    raidLaunchUse(&L, ctx, NULL);
    RAID_LAUNCH_CALL(&L, raidBufAcquire(ctx, RAID_DT_UINT, 256, &s[S_PST])); /* the sort pass reads 256 starts */
    RAID_LAUNCH_CALL(&L, raidBufAcquire(ctx, RAID_DT_UINT, np + 1, &s[S_CST]));
    RAID_LAUNCH_CALL(&L, raidBufAcquire(ctx, RAID_DT_UINT, 2 * n, &s[S_VAL]));
    RAID_LAUNCH_CALL(&L, raidBufAcquire(ctx, RAID_DT_UINT, n, &s[S_RANK]));
    RAID_LAUNCH_CALL(&L, raidBufFill(ctx, &s[S_PST], &zero, NULL));
    RAID_LAUNCH_CALL(&L, raidBufAcquire(ctx, RAID_DT_UINT, 1, &s[S_ERR]));
    RAID_LAUNCH_CALL(&L, raidBufFill(ctx, &s[S_ERR], &zero, NULL));
    RaidLaunch K;
    if (L.st == RAID_OK) {
        raidLaunchKernel(&K, ctx, "col_groupby.cl", "gb_part_count", opts);
        RAID_LAUNCH_ARGS(&K, 0, RAID_ARG_BUF(&b[B_GID]), RAID_ARG_U32(n), RAID_ARG_U32(R), RAID_ARG_U32(PB),
                         RAID_ARG_U32(NP), RAID_ARG_BUF(&s[S_PST]), RAID_ARG_BUF(&s[S_ERR]));
        run(&K, nblk * wg, wg, 0, "gb_part_count");
        raidLaunchFail(&L, raidLaunchEnd(&K));
    }
    if (L.st == RAID_OK) {
        raidLaunchKernel(&K, ctx, "col_groupby.cl", "gb_part_starts", opts);
        RAID_LAUNCH_ARGS(&K, 0, RAID_ARG_BUF(&s[S_PST]), RAID_ARG_BUF(&s[S_CST]), RAID_ARG_U32(NP), RAID_ARG_U32(R),
                         RAID_ARG_U32(256));
        run(&K, wg, wg, 0, "gb_part_starts");
        raidLaunchFail(&L, raidLaunchEnd(&K));
    }
    const double t0 = ctx->timing.kernel_s;
    RAID_LAUNCH_CALL(&L, raidSortDevicePartition(ctx, &b[B_X], &b[B_GID], (uint32_t)n, pb, &s[S_PST], &s[S_VAL],
                                             &s[S_RANK]));
    if (profile && L.st == RAID_OK)
        fprintf(stderr, "groupby profile: sort_pass %.4f ms\n", (ctx->timing.kernel_s - t0) * 1e3);
    if (L.st == RAID_OK) {
        raidLaunchKernel(&K, ctx, "col_groupby.cl", "gb_part_rows", opts);
        RAID_LAUNCH_ARGS(&K, 0, RAID_ARG_BUF(&s[S_VAL]), RAID_ARG_BUF(&s[S_RANK]), RAID_ARG_BUF(&s[S_PST]),
                         RAID_ARG_BUF(&s[S_CST]), RAID_ARG_U32(NP), RAID_ARG_U32(R), RAID_ARG_U32(p->ngroups),
                         RAID_ARG_U32(PB), RAID_ARG_I32(p->base), RAID_ARG_BUF(&b[B_SUM]), RAID_ARG_BUF(&b[B_CNT]),
                         RAID_ARG_BUF(&b[B_FLAG]), RAID_ARG_BUF(&b[B_MNHI]), RAID_ARG_BUF(&b[B_MXHI]),
                         RAID_ARG_BUF(&b[B_FIRST]), RAID_ARG_BUF(&b[B_LAST]), RAID_ARG_BUF(&s[S_ERR]));
        run(&K, (nblk + np) * wg, wg, 0, "gb_part_rows");
        raidLaunchFail(&L, raidLaunchEnd(&K));
    }
    if (check) { /* -DGB_CHECK=1: the kernels' index checks */
        uint32_t err = 0;
        RAID_LAUNCH_CALL(&L, download(ctx, &s[S_ERR], 1, &err));
        if (L.st == RAID_OK && err)
            raidLaunchFail(&L, raidFail(ctx, RAID_EDEVICE, "group-by: the partitioned path's index check failed (0x%x)",
                                        err));
    }
    for (int j = 0; j < NS; j++)
        raidBufRelease(ctx, &s[j]);
    return raidLaunchEnd(&L);
}

/* How one call's sums, counts, min/max and first/last are kept on the device: the mode (-1 automatic, else
 * raidGbDeviceRun's local_tables), the limbs, the exponent buckets, the partitions, the rows per work-group and
 * the build options. */
typedef struct gb_shape {
    int mode, L, B0, NB, eb, pb, check;
    size_t np, SW, rows, nwg, lbytes;
    char opts[512];
} gb_shape;

/* The shape of the rows' passes for p's G groups (p->ngroups) on ctx's device, local_tables as raidGbDeviceRun's;
 * RAID_EUNSUPPORTED for a path asked for that does not fit. */
static raid_status choose_shape(raid_ctx *ctx, const gb_plan *p, size_t wg, size_t rows_per_wg, int local_tables,
                                gb_shape *S)
{
    const size_t n = p->n, G = p->ngroups;
    S->L = gb_cl_limbs(p);
    /* exponent buckets: 8 values of q each, q in [qmin, pspan]: buckets b0 .. b0 + NB - 1 */
    S->B0 = p->pspan < 0 ? 0 : p->qmin >> 3, S->NB = p->pspan < 0 ? 1 : (p->pspan >> 3) - S->B0 + 1;
    S->lbytes = G * (2 * (size_t)S->L + 2) * sizeof(uint32_t);
    const uint64_t lmax = raidDevLocalMem(ctx) < GB_LOCAL_BUDGET ? raidDevLocalMem(ctx) : GB_LOCAL_BUDGET;
    const int fits = S->lbytes + 1024 <= lmax;
    if (local_tables == 1 && !fits)
        return raidFail(ctx, RAID_EUNSUPPORTED, "group-by: local tables of %zu bytes do not fit (%llu)", S->lbytes,
                         (unsigned long long)lmax);
    const int sums_only = (p->need & GB_NEED_SUM) && !(p->need & (GB_NEED_MINMAX | GB_NEED_FIRSTLAST));
    /* many groups: the exponent-bucket tables (two atomics per value) while they stay small enough for a
     * GPU's L2 cache, else the limb tables (three atomics per value) */
    const size_t ebwords = (size_t)G * (6 * (size_t)S->NB + 2);
    const int eb_ok = (p->need & GB_NEED_SUM) && ebwords * sizeof(uint32_t) <= GB_EB_BUDGET;
    if (local_tables == 3 && !(p->need & GB_NEED_SUM))
        return raidFail(ctx, RAID_EUNSUPPORTED, "group-by: exponent-bucket tables hold sums only");
    /* many groups, sums (counts, means) only: rows partitioned by group with one pass of the device sort,
     * the partitions' limb tables in local memory (the H200: 1.15 ms for 5e7 rows into 100,000 groups
     * against 1.42 ms for the exponent buckets; limbs rather than buckets: twice the groups a partition;
     * docs/groupby.md) */
    const int maxb = raidGbDeviceTestKnobs.part_bits ? raidGbDeviceTestKnobs.part_bits : 16;
    const int part_ok = sums_only && part_shape(n, G, 2 * (size_t)S->L + 2, wg, lmax, maxb, &S->pb, &S->np);
    if (raidGbDeviceTestKnobs.partitions_out)
        *raidGbDeviceTestKnobs.partitions_out = S->np;
    if (local_tables == 8 && !part_ok)
        return raidFail(ctx, RAID_EUNSUPPORTED,
                         "group-by: no partitioned tables for these aggregations, %zu groups or %zu rows (sums, counts "
                         "and means only; 255 partitions and fewer than 2^31 rows at most)", G, n);
    S->mode = local_tables >= 0 ? local_tables : fits ? 1 : part_ok ? 8 : eb_ok ? 3 : 0;
    S->eb = S->mode == 3; /* -DGB_EB */
    S->SW = S->eb ? 6 * (size_t)S->NB : 2 * (size_t)S->L; /* sum words per group */
    size_t rows = rows_per_wg ? rows_per_wg : S->mode == 8 ? GB_PART_ROWS : GB_ROWS_DEFAULT;
    if (!rows_per_wg && S->mode == 1 && rows < 4 * G * (2 * (size_t)S->L + 2))
        rows = 4 * G * (2 * (size_t)S->L + 2); /* the merge of a work-group's tables: a quarter of its work at most */
    S->rows = rows > 0x7FFFFFFF ? 0x7FFFFFFF : rows;
    S->nwg = (n + S->rows - 1) / S->rows;
    /* the partitioned kernels' index checks: tests, or RAID_GROUPBY_CHECK set in the environment */
    S->check = S->mode == 8 && (raidGbDeviceTestKnobs.check || getenv("RAID_GROUPBY_CHECK") != NULL);
    /* the local tables' words (kernels/col_groupby.cl GB_LTW, a build option): the partitions' tables, or
     * gb_rows_local's rounded up to a power of two (few programs, whatever the number of groups) within the
     * local memory */
    size_t ltw = 1;
    if (S->mode == 8)
        ltw = (S->SW + 2) << S->pb;
    else if (S->mode == 1) {
        const size_t need = G * (S->SW + 2), most = (lmax - 1024) / sizeof(uint32_t);
        for (ltw = 64; ltw < need; ltw *= 2)
            ;
        ltw = ltw > most ? (need > most ? need : most) : ltw;
    }
    snprintf(S->opts, sizeof S->opts,
             "-DGB_L=%d -DGB_SUM=%d -DGB_MINMAX=%d -DGB_FIRSTLAST=%d -DGB_EB=%d -DGB_NB=%d -DGB_B0=%d -DGB_NOCNT=%d "
             "-DGB_CHECK=%d -DGB_LTW=%zu %s",
             S->L, (p->need & GB_NEED_SUM) != 0, (p->need & GB_NEED_MINMAX) != 0, (p->need & GB_NEED_FIRSTLAST) != 0,
             S->eb, S->eb ? S->NB : 1, S->eb ? S->B0 : 0, !p->counts, S->check, ltw, raidTuneBuildOptions(ctx));
    return RAID_OK;
}

/* 4. The rows into the groups' tables b[B_SUM ..]: gb_rows_local (per-work-group tables in local memory,
 *    merged once), the partitions, or gb_rows_global; then gb_minmax_lo for min and max. */
static raid_status rows_passes(raid_ctx *ctx, const gb_plan *p, const RaidBuf *b, size_t wg, const gb_shape *S)
{
    const size_t n = p->n;
    if (S->mode == 8) {
        const raid_status st = partitioned(ctx, p, b, S->SW + 2, S->pb, S->np, S->rows, wg, S->opts, S->check);
        if (st != RAID_OK)
            return st;
    } else {
        RaidLaunch L;
        raidLaunchKernel(&L, ctx, "col_groupby.cl", S->mode == 1 ? "gb_rows_local" : "gb_rows_global", S->opts);
        RAID_LAUNCH_ARGS(&L, 0, RAID_ARG_BUF(&b[B_GID]), RAID_ARG_BUF(&b[B_X]), RAID_ARG_U32(n), RAID_ARG_I32(p->base),
                         RAID_ARG_U32(S->rows), RAID_ARG_BUF(&b[B_SUM]), RAID_ARG_BUF(&b[B_CNT]),
                         RAID_ARG_BUF(&b[B_FLAG]), RAID_ARG_BUF(&b[B_MNHI]), RAID_ARG_BUF(&b[B_MXHI]),
                         RAID_ARG_BUF(&b[B_FIRST]), RAID_ARG_BUF(&b[B_LAST]));
        if (S->mode == 1)
            RAID_LAUNCH_ARGS(&L, 12, RAID_ARG_U32(p->ngroups));
        run(&L, S->nwg * wg, wg, 0, NULL);
        const raid_status st = raidLaunchEnd(&L);
        if (st != RAID_OK)
            return st;
    }
    if (!(p->need & GB_NEED_MINMAX))
        return RAID_OK;
    RaidLaunch M;
    raidLaunchKernel(&M, ctx, "col_groupby.cl", "gb_minmax_lo", S->opts);
    RAID_LAUNCH_ARGS(&M, 0, RAID_ARG_BUF(&b[B_GID]), RAID_ARG_BUF(&b[B_X]), RAID_ARG_U32(n), RAID_ARG_BUF(&b[B_MNHI]),
                     RAID_ARG_BUF(&b[B_MXHI]), RAID_ARG_BUF(&b[B_MNLO]), RAID_ARG_BUF(&b[B_MXLO]));
    run(&M, n, wg, 0, NULL);
    return raidLaunchEnd(&M);
}

/* 5. Group g's partials from the tables read back (h: the sums, SW words a group, then counts, flags,
 *    min/max high words, first, last, min/max low words, Gs words each): each exact sum (positive minus
 *    negative limbs; exponent buckets first into limbs) rounded by the cpu path's raidGbRoundLimbs. */
static void round_group(const gb_plan *p, const gb_shape *S, size_t Gs, const uint32_t *h, size_t g, gb_partial *out)
{
    const size_t SW = S->SW;
    const int L = S->L;
    const uint32_t *hs = h, *hc = hs + Gs * SW, *hf = hc + Gs, *hmnh = hf + Gs, *hmxh = hmnh + Gs,
                   *hfi = hmxh + Gs, *hla = hfi + Gs, *hmnl = hla + Gs, *hmxl = hmnl + Gs;
    out->count[g] = p->counts ? hc[g] : 0u;
    out->flags[g] = hf[g];
    if (p->need & GB_NEED_SUM) {
        uint32_t eL[4 * GB_MAX_LIMBS];
        uint32_t *P = eL, *N = eL + L; /* |P - N| into P */
        memset(eL, 0, 2 * (size_t)L * sizeof *eL);
        if (S->eb) { /* the buckets into limbs */
            gb_eb_limbs(hs + g * SW, S->B0, S->NB, L, P);
            gb_eb_limbs(hs + g * SW + 3 * (size_t)S->NB, S->B0, S->NB, L, N);
        } else {
            memcpy(eL, hs + g * SW, 2 * (size_t)L * sizeof *eL);
        }
        int nz = 0; /* a finite value other than +-0.0: the kernels flag only +0.0 */
        for (int i = 0; i < L && !nz; i++)
            nz = (P[i] | N[i]) != 0;
        if (nz)
            out->flags[g] |= GB_F_NZ;
        int c = L - 1;
        while (c >= 0 && P[c] == N[c])
            c--;
        const int neg = c >= 0 && N[c] > P[c];
        uint32_t *A = neg ? N : P, *B = neg ? P : N, borrow = 0;
        for (int i = 0; i < L; i++) {
            const uint64_t dd = (uint64_t)A[i] - B[i] - borrow;
            borrow = (uint32_t)(dd >> 63);
            P[i] = (uint32_t)dd;
        }
        /* without counts, a group whose tables and flags are zero is empty unless a -0.0 flagged it */
        const int64_t cg = p->counts ? out->count[g] : (out->flags[g] & GB_F_NEGZ) != 0;
        const double fin = raidGbRoundLimbs(P, L, neg, p->base);
        out->sum[g] = raidGbSumFinish(fin, out->flags[g], cg);
        if (out->mean) /* from the exact sum, which may lie beyond the largest double (counts are kept) */
            out->mean[g] = raidGbMeanFinish(cg > 0 ? raidGbMeanLimbs(P, L, neg, p->base, (uint64_t)cg) : NAN,
                                          fin == 0.0, out->flags[g], cg);
        if (out->sfrac)
            out->sfrac[g] = raidGbRoundLimbsScaled(P, L, p->base, &out->sexp[g]) * (neg ? -1.0 : 1.0);
    }
    out->flags[g] &= ~GB_F_NEGZ;
    if (p->need & GB_NEED_MINMAX) {
        out->min[g] = (uint64_t)hmnh[g] << 32 | hmnl[g];
        out->max[g] = (uint64_t)hmxh[g] << 32 | hmxl[g];
    }
    if (p->need & GB_NEED_FIRSTLAST) {
        out->first[g] = hfi[g] == 0xFFFFFFFFu ? -1 : (int64_t)hfi[g];
        out->last[g] = (int64_t)hla[g] - 1;
    }
}

/* 5. The tables the aggregations need read back, every group rounded (round_group). */
static raid_status read_back(raid_ctx *ctx, const gb_plan *p, const gb_shape *S, const RaidBuf *b,
                             const size_t *sizes, gb_partial *out)
{
    const size_t G = p->ngroups, Gs = G ? G : 1;
    uint32_t *h = malloc(Gs * (S->SW + 8) * sizeof *h);
    if (!h)
        return raidFail(ctx, RAID_ENOMEM, "out of memory (group-by read-back)");
    raid_status st = RAID_OK;
    size_t at = 0;
    for (int j = B_SUM; j < NBUF && st == RAID_OK; at += sizes[j], j++) {
        if ((j == B_SUM && !(p->need & GB_NEED_SUM)) || (j == B_CNT && !p->counts) ||
            ((j == B_MNHI || j == B_MXHI || j == B_MNLO || j == B_MXLO) && !(p->need & GB_NEED_MINMAX)) ||
            ((j == B_FIRST || j == B_LAST) && !(p->need & GB_NEED_FIRSTLAST)))
            continue;
        st = download(ctx, &b[j], sizes[j], h + at);
    }
    if (st == RAID_OK) {
        const double t0 = raidNow();
#pragma omp parallel for schedule(static) if (G > 20000)
        for (size_t g = 0; g < G; g++)
            round_group(p, S, Gs, h, g, out);
        ctx->timing.convert_s += raidNow() - t0;
    }
    free(h);
    return st;
}

raid_status raidGbDeviceRun(raid_ctx *ctx, const gb_plan *p0, int64_t **ukeys, size_t *ngroups, gb_partial *out,
                      size_t rows_per_wg, int local_tables)
{
    gb_plan plan = *p0, *p = &plan;
    const size_t n = p->n;
    const int upx = p->x && (p->need || p->skipna); /* the values are read (sums, min/max, first/last, NaN nulls) */
    const size_t wg = raidDevMaxWg(ctx) < GB_WG ? raidDevMaxWg(ctx) : GB_WG;
    RaidBuf b[NBUF] = {{0}};
    RaidBuf d[ND] = {{0}};
    raid_status st = RAID_OK;
    gb_shape S = {0};
    *ukeys = NULL;
    *ngroups = 0;
    p->base = 0, p->pspan = -1, p->qmin = 0;
    if (local_tables < 0 && raidTuneGroupbyPath(ctx)) /* RAID_TUNE_GROUPBY_PATH */
        local_tables = raidTuneGroupbyPath(ctx) - 1;
    if (local_tables == 2 || (local_tables >= 4 && local_tables <= 7) || (local_tables >= 9 && local_tables <= 11)) {
        st = raidFail(ctx, RAID_EINVAL, "group-by: path %d was removed (docs/groupby.md)", local_tables);
        goto done;
    }
    RaidMemKind kx = RAID_MEM_HOST; /* the values wrapped where they are device memory (docs/device.md) */
    if ((st = raidBufAcquire(ctx, RAID_DT_UINT, n, &b[B_GID])) != RAID_OK ||
        (st = upx ? raidBufInput(ctx, p->x, RAID_DT_UINT, 2 * n, "values", &b[B_X], &kx)
                  : raidBufAcquire(ctx, RAID_DT_UINT, 2, &b[B_X])) != RAID_OK)
        goto done;
    ctx->timing.bytes_in = upx && kx == RAID_MEM_HOST ? 8 * n : 0;
    if ((st = form_ids(ctx, p, upx, b, d, wg, ukeys, ngroups)) != RAID_OK)
        goto done;
    const size_t G = *ngroups, Gs = G ? G : 1;
    p->ngroups = G;
    for (int j = 0; j < ND; j++) /* the sums need only the ranks */
        raidBufRelease(ctx, &d[j]);
    if ((st = raidGbPartialAlloc(ctx, out, G, gb_partials(p))) != RAID_OK ||
        (st = choose_shape(ctx, p, wg, rows_per_wg, local_tables, &S)) != RAID_OK)
        goto done;
    const size_t sizes[NBUF] = {n, 0, Gs * S.SW, Gs, Gs, Gs, Gs, Gs, Gs, Gs, Gs};
    const uint32_t zero = 0, ones = 0xFFFFFFFFu;
    for (int j = B_SUM; j < NBUF && st == RAID_OK; j++) {
        const int hi = j == B_MNHI || j == B_MNLO || j == B_FIRST;
        if ((st = raidBufAcquire(ctx, RAID_DT_UINT, sizes[j], &b[j])) == RAID_OK)
            st = raidBufFill(ctx, &b[j], hi ? &ones : &zero, NULL);
    }
    if (st == RAID_OK && (st = rows_passes(ctx, p, b, wg, &S)) == RAID_OK)
        st = read_back(ctx, p, &S, b, sizes, out);
done:
    for (int j = 0; j < ND; j++)
        raidBufRelease(ctx, &d[j]);
    for (int j = 0; j < NBUF; j++)
        raidBufRelease(ctx, &b[j]);
    if (st != RAID_OK) {
        free(*ukeys);
        *ukeys = NULL;
        *ngroups = 0;
    }
    return st;
}
