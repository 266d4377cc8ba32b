/* Group-by, the device path (kernels/col_groupby.cl; docs/groupby.md "The device path").
 *
 * Everything per row runs on the device: the host uploads the keys, the values' bits (two uint32 words
 * each, as stored: no conversion) and the validity bytes (through page-locked staging,
 * raidBufUploadStaged), then
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

#include "device/device.h"
#include "column/sort_impl.h"
#include "raid/sort.h"

#include <assert.h>
#include <math.h>
#include <stdarg.h>
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

gb_cl_knobs raidGbClTestKnobs;

enum { B_GID, B_X, B_SUM, B_CNT, B_FLAG, B_MNHI, B_MXHI, B_FIRST, B_LAST, B_MNLO, B_MXLO, NBUF };

/* Launch k over `global` work-items (rounded up to whole work-groups of wg) and wait; its time into
 * kernel_s, and into prep_s too for a kernel of the group ids (prep != 0). */
static raid_status launch(raid_ctx *ctx, RaidKernel *k, size_t global, size_t wg, int prep)
{
    RaidEvent ev = {0};
    global = (global + wg - 1) / wg * wg;
    ctx->timing.launches++;
    raid_status st = raidLaunch(ctx, k, 1, &global, &wg, &ev);
    if (st != RAID_OK || (st = raidEventWait(ctx, &ev)) != RAID_OK) {
        raidEventRelease(&ev);
        return st;
    }
    const double t = raidEventSeconds(&ev);
    raidEventRelease(&ev);
    ctx->timing.kernel_s += t;
    if (prep)
        ctx->timing.prep_s += t;
    return RAID_OK;
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

/* Steps 1 to 3: every row's group rank (dense id) into b[B_GID] (through its slot and map[slot] = rank), the
 * sorted distinct keys into *ukeys (malloc'd) and their number into *G; base and pspan of the values into p. */
static raid_status form_ids(raid_ctx *ctx, gb_plan *p, int upx, RaidBuf *b, RaidBuf *d, size_t wg, int64_t **ukeys,
                            size_t *G)
{
    const size_t n = p->n;
    raid_status st;
    RaidKernel *k = NULL;
    RaidEvent ev = {0};
    uint32_t *part = NULL, *uk = NULL;
    int64_t *key = NULL, *skey = NULL;
    double *slot = NULL, *sslot = NULL;
    const int masked = p->valid != NULL;
    if ((st = raidBufAcquire(ctx, RAID_DT_UINT, 2 * n, &d[D_KEYS])) != RAID_OK ||
        (st = raidBufAcquire(ctx, RAID_DT_BYTE, masked ? n : 1, &d[D_VALID])) != RAID_OK ||
        (st = raidBufAcquire(ctx, RAID_DT_UINT, 2, &d[D_META])) != RAID_OK)
        return st;
    if ((st = raidBufUploadStaged(ctx, &d[D_KEYS], 0, 2 * n, p->keys)) != RAID_OK ||
        (masked && (st = raidBufUploadStaged(ctx, &d[D_VALID], 0, n, p->valid)) != RAID_OK))
        return st;
    ctx->timing.bytes_in += n * (masked ? 9u : 8u);

    /* 1. ranges */
    size_t rows = (n + GB_RANGE_WGS - 1) / GB_RANGE_WGS;
    rows = rows < 16 * wg ? 16 * wg : (rows + wg - 1) / wg * wg;
    const size_t nwg = (n + rows - 1) / rows;
    if ((st = raidBufAcquire(ctx, RAID_DT_UINT, 8 * nwg, &d[D_RANGE])) != RAID_OK ||
        (st = raidKernelGet(ctx, "col_groupby.cl", "gb_range", raidTuneBuildOptions(ctx), &k)) != RAID_OK)
        return st;
    const int usep = p->need != 0;
    if ((st = raidArgBuf(ctx, k, 0, &d[D_KEYS])) || (st = raidArgBuf(ctx, k, 1, &b[B_X])) ||
        (st = raidArgUint(ctx, k, 2, (uint32_t)n)) || (st = raidArgUint(ctx, k, 3, (uint32_t)rows)) ||
        (st = raidArgUint(ctx, k, 4, (uint32_t)usep)) || (st = raidArgBuf(ctx, k, 5, &d[D_RANGE])) ||
        (st = launch(ctx, k, nwg * wg, wg, 1)))
        goto done;
    raidKernelPut(ctx, k);
    k = NULL;
    if (!(part = malloc(8 * nwg * sizeof *part))) {
        st = raidFail(ctx, RAID_ENOMEM, "out of memory (group-by of %zu rows)", n);
        goto done;
    }
    if ((st = download(ctx, &d[D_RANGE], 8 * nwg, part)) != RAID_OK)
        goto done;
    uint64_t kmin = UINT64_MAX, kmax = 0; /* as key ^ 2^63: unsigned order = signed order */
    uint32_t pmin = 4096, pmax = 0;
    for (size_t w = 0; w < nwg; w++) {
        const uint32_t *o = part + 8 * w;
        const uint64_t lo = (uint64_t)o[0] << 32 | o[1], hi = (uint64_t)o[2] << 32 | o[3];
        kmin = lo < kmin ? lo : kmin;
        kmax = hi > kmax ? hi : kmax;
        pmin = o[4] < pmin ? o[4] : pmin;
        pmax = o[5] > pmax ? o[5] : pmax;
    }
    p->kmin = (int64_t)(kmin ^ (1ull << 63));
    if (usep && pmax > 0) { /* pmax holds p + 1 */
        p->base = 32 * (int)(pmin >> 5);
        p->pspan = (int)pmax - 1 - p->base;
        p->qmin = (int)pmin - p->base;
    }

    /* 2. slots */
    const uint64_t range = kmax - kmin;
    const int direct = !raidGbClTestKnobs.force_hash && range < GB_DIRECT_MAX && range <= 2 * (uint64_t)n + 65536;
    size_t cap = direct ? (size_t)range + 1 : pow2_at_least(2 * (n < GB_HASH_START / 2 ? n : GB_HASH_START / 2));
    if (!direct && raidGbClTestKnobs.hash_cap)
        cap = raidGbClTestKnobs.hash_cap;
    const uint64_t seed = raidMix64((uint64_t)(uintptr_t)ctx ^ (uint64_t)(raidNow() * 1e9));
    const uint32_t zero2[2] = {0, 0}, empty = 0xFFFFFFFFu;
    for (int attempt = 0;; attempt++) {
        const size_t limit = direct ? cap : cap / 2;
        raidBufRelease(ctx, &d[D_TAB]);
        raidBufRelease(ctx, &d[D_UK]);
        if ((st = raidBufAcquire(ctx, RAID_DT_UINT, direct ? cap : 4 * cap, &d[D_TAB])) != RAID_OK ||
            (st = raidBufAcquire(ctx, RAID_DT_UINT, 3 * (limit < n ? limit : n), &d[D_UK])) != RAID_OK ||
            (st = raidBufFill(ctx, &d[D_TAB], &empty, NULL)) != RAID_OK ||
            (st = raidBufUpload(ctx, &d[D_META], 0, 2, zero2, 1, NULL)) != RAID_OK)
            goto done;
        const uint32_t ulimit = (uint32_t)(limit < n ? limit : n);
        if ((st = raidKernelGet(ctx, "col_groupby.cl", direct ? "gb_ids_direct" : "gb_ids_hash", raidTuneBuildOptions(ctx), &k)) != RAID_OK)
            goto done;
        unsigned a = 0;
        if ((st = raidArgBuf(ctx, k, a++, &d[D_KEYS])) || (st = raidArgBuf(ctx, k, a++, &b[B_X])) ||
            (st = raidArgBuf(ctx, k, a++, &d[D_VALID])) || (st = raidArgUint(ctx, k, a++, (uint32_t)n)) ||
            (st = raidArgUint(ctx, k, a++, (uint32_t)masked)) ||
            (st = raidArgUint(ctx, k, a++, (uint32_t)(p->skipna && upx))))
            goto done;
        if (direct) {
            if ((st = raidArgUint(ctx, k, a++, (uint32_t)kmin)) || (st = raidArgBuf(ctx, k, a++, &d[D_TAB])))
                goto done;
        } else {
            const uint32_t mask = (uint32_t)(cap - 1);
            const uint32_t hmask = raidGbClTestKnobs.hmask ? raidGbClTestKnobs.hmask & mask : mask;
            if ((st = raidArgBuf(ctx, k, a++, &d[D_TAB])) || (st = raidArgUint(ctx, k, a++, mask)) ||
                (st = raidArgUint(ctx, k, a++, hmask)) || (st = raidArgUint(ctx, k, a++, (uint32_t)seed)) ||
                (st = raidArgUint(ctx, k, a++, (uint32_t)(seed >> 32))))
                goto done;
        }
        if ((st = raidArgBuf(ctx, k, a++, &d[D_META])) || (st = raidArgBuf(ctx, k, a++, &d[D_UK])) ||
            (st = raidArgUint(ctx, k, a++, ulimit)) || (st = raidArgBuf(ctx, k, a++, &b[B_GID])) ||
            (st = launch(ctx, k, n, wg, 1)))
            goto done;
        raidKernelPut(ctx, k);
        k = NULL;
        uint32_t meta[2];
        if ((st = download(ctx, &d[D_META], 2, meta)) != RAID_OK)
            goto done;
        if (!meta[1]) {
            *G = meta[0];
            break;
        }
        if (direct || attempt > 0 || cap >= pow2_at_least(2 * n)) { /* a table of 2n slots holds n keys */
            st = raidFail(ctx, RAID_EDEVICE, "group-by: the group-id table of %zu slots overflowed", cap);
            goto done;
        }
        cap = pow2_at_least(2 * n);
        if (cap > ((size_t)1 << 30)) { /* word indices 4 x slot stay below 2^32 */
            st = raidFail(ctx, RAID_EUNSUPPORTED,
                           "raid_groupby_compute on a device: more than 2^20 distinct keys in %zu rows (2^29 rows at most then)", n);
            goto done;
        }
    }

    /* 3. the distinct keys in ascending order, their ranks by slot */
    const double t0 = raidNow();
    const size_t g = *G, gs = g ? g : 1;
    uk = malloc(3 * gs * sizeof *uk);
    skey = malloc(gs * sizeof *skey);
    if (!uk || !skey) {
        st = raidFail(ctx, RAID_ENOMEM, "out of memory (%zu groups)", g);
        goto done;
    }
    if (g && (st = download(ctx, &d[D_UK], 3 * g, uk)) != RAID_OK)
        goto done;
    if (direct) { /* key order is slot order: a bitmap of the slots seen, read in order */
        uint64_t *bits = calloc((cap + 63) / 64, sizeof *bits);
        if (!bits) {
            st = raidFail(ctx, RAID_ENOMEM, "out of memory (%zu groups)", g);
            goto done;
        }
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
    } else { /* the keys with their slots (as a double's bits), sorted by key */
        key = malloc(gs * sizeof *key);
        slot = malloc(gs * sizeof *slot), sslot = malloc(gs * sizeof *sslot);
        if (!key || !slot || !sslot) {
            st = raidFail(ctx, RAID_ENOMEM, "out of memory (%zu groups)", g);
            goto done;
        }
        for (size_t j = 0; j < g; j++) {
            key[j] = (int64_t)((uint64_t)uk[3 * j + 1] << 32 | uk[3 * j]);
            memcpy(&slot[j], &(uint64_t){uk[3 * j + 2]}, sizeof slot[j]);
        }
        if (raid_sort_i64_f64(NULL, key, slot, g, 0, skey, sslot) != RAID_OK) {
            st = raidFail(ctx, RAID_ENOMEM, "group-by: %s", raid_errmsg());
            goto done;
        }
        for (size_t j = 0; j < g; j++) {
            uint64_t sl;
            memcpy(&sl, &sslot[j], sizeof sl);
            uk[j] = (uint32_t)sl;
        }
    }
    ctx->timing.convert_s += raidNow() - t0;
    if ((st = raidBufAcquire(ctx, RAID_DT_UINT, gs, &d[D_SRT])) != RAID_OK ||
        (st = raidBufAcquire(ctx, RAID_DT_UINT, cap, &d[D_MAP])) != RAID_OK)
        goto done;
    if (g && ((st = raidBufUpload(ctx, &d[D_SRT], 0, g, uk, 0, &ev)) != RAID_OK ||
              (st = raidEventFinish(ctx, &ev, &ctx->timing.upload_s)) != RAID_OK))
        goto done;
    if ((st = raidKernelGet(ctx, "col_groupby.cl", "gb_map", raidTuneBuildOptions(ctx), &k)) != RAID_OK ||
        (st = raidArgBuf(ctx, k, 0, &d[D_SRT])) || (st = raidArgUint(ctx, k, 1, (uint32_t)g)) ||
        (st = raidArgBuf(ctx, k, 2, &d[D_MAP])) || (g && (st = launch(ctx, k, g, wg, 1))))
        goto done;
    raidKernelPut(ctx, k);
    k = NULL;
    if ((st = raidKernelGet(ctx, "col_groupby.cl", "gb_rank", raidTuneBuildOptions(ctx), &k)) != RAID_OK ||
        (st = raidArgBuf(ctx, k, 0, &b[B_GID])) || (st = raidArgUint(ctx, k, 1, (uint32_t)n)) ||
        (st = raidArgBuf(ctx, k, 2, &d[D_MAP])) || (st = launch(ctx, k, n, wg, 1)))
        goto done;
    *ukeys = skey;
    skey = NULL;
done:
    raidKernelPut(ctx, k);
    free(part), free(uk), free(key), free(skey), free(slot), free(sslot);
    return st;
}

/* Kernel `name` of col_groupby.cl with its arguments in order, as `kinds` says ('b' a RaidBuf *, 'u' a
 * uint32_t, 'i' an int), launched over `global` work-items (kernel_s).
 * RAID_GROUPBY_PROFILE set in the environment: a line on stderr with the kernel's time (the benchmark's
 * breakdown of the partitioned path). */
static raid_status run_kernel(raid_ctx *ctx, const char *name, const char *opts, size_t global, size_t wg,
                              const char *kinds, ...)
{
    RaidKernel *k = NULL;
    raid_status st = raidKernelGet(ctx, "col_groupby.cl", name, opts, &k);
    va_list ap;
    va_start(ap, kinds);
    for (unsigned i = 0; st == RAID_OK && kinds[i]; i++)
        st = kinds[i] == 'b'   ? raidArgBuf(ctx, k, i, va_arg(ap, const RaidBuf *))
             : kinds[i] == 'u' ? raidArgUint(ctx, k, i, va_arg(ap, uint32_t))
                               : raidArgInt(ctx, k, i, va_arg(ap, int));
    va_end(ap);
    const double t0 = ctx->timing.kernel_s;
    if (st == RAID_OK)
        st = launch(ctx, k, global, wg, 0);
    if (st == RAID_OK && getenv("RAID_GROUPBY_PROFILE"))
        fprintf(stderr, "groupby profile: %s %.4f ms (%zu work-groups)\n", name, (ctx->timing.kernel_s - t0) * 1e3,
                (global + wg - 1) / wg);
    raidKernelPut(ctx, k);
    return st;
}

/* The partitioned path's shape: 2^pb groups per partition (their tables: tw words a group, at most
 * GB_PART_TABLES bytes and the local memory lmax; pb at most maxb), np partitions. 0 when it does not fit:
 * the sort pass's digits are 8 bits (work-groups of 256), digit 255 holds the null rows, so 255 partitions at
 * most; and n rows fewer than 2^31 (RAID_SORT_CL_MAX: the sort pass counts a digit's rows below 2^31, and one
 * partition, or the null rows, may hold nearly all of them). */
#define GB_PART_TABLES 32768 /* bytes of a partition's local tables at most */
static int part_shape(size_t n, size_t G, size_t tw, size_t wg, uint64_t lmax, int maxb, int *pb, size_t *np)
{
    int b = 0;
    while (b < maxb && ((tw * sizeof(uint32_t)) << (b + 1)) <= (GB_PART_TABLES < lmax ? GB_PART_TABLES : lmax))
        b++;
    const size_t P = (G + ((size_t)1 << b) - 1) >> b;
    *pb = b, *np = P;
    return ((tw * sizeof(uint32_t)) << b) <= lmax && P <= 255 && wg == 256 && n < RAID_SORT_CL_MAX;
}

/* The sums of many groups by partitions (mode 8; kernels/col_groupby.cl "rows partitioned by group"):
 * gb_part_count (the rows per partition), gb_part_starts (their starts, the chunks'), one pass of the device
 * sort (raidSortClPartition: the values and ranks by partition, digit (rank >> pb) & 255), gb_part_rows,
 * every step on the device (no read-back between them). rows: rows per block of the count and per chunk of
 * gb_part_rows. */
static raid_status partitioned(raid_ctx *ctx, const gb_plan *p, const RaidBuf *b, size_t tw, int pb, size_t np,
                               size_t rows, size_t wg, const char *opts, int check)
{
    enum { S_PST, S_CST, S_VAL, S_RANK, S_ERR, NS };
    const size_t n = p->n, nblk = (n + rows - 1) / rows;
    RaidBuf s[NS] = {{0}};
    raid_status st;
    const uint32_t zero = 0;
    const int profile = getenv("RAID_GROUPBY_PROFILE") != NULL;
    if (profile)
        fprintf(stderr, "groupby profile: partitioned, %zu rows, %zu groups, %zu partitions of 2^%d groups, tables "
                        "of %zu words a group, blocks and chunks of %zu rows, options '%s'\n",
                n, p->ngroups, np, pb, tw, rows, opts);
    if ((st = raidBufAcquire(ctx, RAID_DT_UINT, 256, &s[S_PST])) || /* the sort pass reads 256 digit starts */
        (st = raidBufAcquire(ctx, RAID_DT_UINT, np + 1, &s[S_CST])) ||
        (st = raidBufAcquire(ctx, RAID_DT_UINT, 2 * n, &s[S_VAL])) ||
        (st = raidBufAcquire(ctx, RAID_DT_UINT, n, &s[S_RANK])) ||
        (st = raidBufFill(ctx, &s[S_PST], &zero, NULL)) ||
        (st = raidBufAcquire(ctx, RAID_DT_UINT, 1, &s[S_ERR])) || (st = raidBufFill(ctx, &s[S_ERR], &zero, NULL)))
        goto done;
    const uint32_t R = (uint32_t)rows, PB = (uint32_t)pb, NP = (uint32_t)np;
    if ((st = run_kernel(ctx, "gb_part_count", opts, nblk * wg, wg, "buuuubb", &b[B_GID], (uint32_t)n, R, PB, NP,
                         &s[S_PST], &s[S_ERR])) ||
        (st = run_kernel(ctx, "gb_part_starts", opts, wg, wg, "bbuuu", &s[S_PST], &s[S_CST], NP, R, 256u)))
        goto done;
    const double t0 = ctx->timing.kernel_s;
    if ((st = raidSortClPartition(ctx, &b[B_X], &b[B_GID], (uint32_t)n, pb, &s[S_PST], &s[S_VAL], &s[S_RANK])))
        goto done;
    if (profile)
        fprintf(stderr, "groupby profile: sort_pass %.4f ms\n", (ctx->timing.kernel_s - t0) * 1e3);
    if ((st = run_kernel(ctx, "gb_part_rows", opts, (nblk + np) * wg, wg, "bbbbuuuuibbbbbbbb", &s[S_VAL], &s[S_RANK],
                         &s[S_PST], &s[S_CST], NP, R, (uint32_t)p->ngroups, PB, p->base, &b[B_SUM], &b[B_CNT],
                         &b[B_FLAG], &b[B_MNHI], &b[B_MXHI], &b[B_FIRST],
                         &b[B_LAST], &s[S_ERR])))
        goto done;
    if (check) { /* -DGB_CHECK=1: the kernels' index checks */
        uint32_t err = 0;
        if ((st = download(ctx, &s[S_ERR], 1, &err)) != RAID_OK)
            goto done;
        if (err)
            st = raidFail(ctx, RAID_EDEVICE, "group-by: the partitioned path's index check failed (0x%x)", err);
    }
done:
    for (int j = 0; j < NS; j++)
        raidBufRelease(ctx, &s[j]);
    return st;
}

raid_status raidGbClRun(raid_ctx *ctx, const gb_plan *p0, int64_t **ukeys, size_t *ngroups, gb_partial *out,
                      size_t rows_per_wg, int local_tables)
{
    gb_plan plan = *p0, *p = &plan;
    const size_t n = p->n;
    const int upx = p->x && (p->need || p->skipna); /* the values are read (sums, min/max, first/last, NaN nulls) */
    size_t wg = raidDevMaxWg(ctx) < GB_WG ? raidDevMaxWg(ctx) : GB_WG;
    RaidBuf b[NBUF] = {{0}};
    RaidBuf d[ND] = {{0}};
    RaidKernel *k = NULL, *k2 = NULL;
    raid_status st = RAID_OK;
    uint32_t *h = NULL;
    *ukeys = NULL;
    *ngroups = 0;
    p->base = 0, p->pspan = -1, p->qmin = 0;
    if (local_tables < 0 && raidTuneGroupbyPath(ctx)) /* RAID_TUNE_GROUPBY_PATH */
        local_tables = raidTuneGroupbyPath(ctx) - 1;
    if (local_tables == 2 || (local_tables >= 4 && local_tables <= 7) || (local_tables >= 9 && local_tables <= 11)) {
        st = raidFail(ctx, RAID_EINVAL, "group-by: path %d was removed (docs/groupby.md)", local_tables);
        goto done;
    }
    if ((st = raidBufAcquire(ctx, RAID_DT_UINT, n, &b[B_GID])) != RAID_OK ||
        (st = raidBufAcquire(ctx, RAID_DT_UINT, upx ? 2 * n : 2, &b[B_X])) != RAID_OK)
        goto done;
    if (upx && (st = raidBufUploadStaged(ctx, &b[B_X], 0, 2 * n, p->x)) != RAID_OK)
        goto done;
    ctx->timing.bytes_in = upx ? 8 * n : 0;
    if ((st = form_ids(ctx, p, upx, b, d, wg, ukeys, ngroups)) != RAID_OK)
        goto done;
    const size_t G = *ngroups;
    p->ngroups = G;
    for (int j = 0; j < ND; j++) /* the sums need only the ranks */
        raidBufRelease(ctx, &d[j]);
    if ((st = raidGbPartialAlloc(ctx, out, G, gb_partials(p))) != RAID_OK)
        goto done;

    const int L = gb_cl_limbs(p);
    /* exponent buckets: 8 values of q each, q in [qmin, pspan]: buckets b0 .. b0 + NB - 1 */
    const int B0 = p->pspan < 0 ? 0 : p->qmin >> 3, NB = p->pspan < 0 ? 1 : (p->pspan >> 3) - B0 + 1;
    const size_t lbytes = G * (2 * (size_t)L + 2) * sizeof(uint32_t);
    const uint64_t lmax = raidDevLocalMem(ctx) < GB_LOCAL_BUDGET ? raidDevLocalMem(ctx) : GB_LOCAL_BUDGET;
    const int fits = lbytes + 1024 <= lmax;
    if (local_tables == 1 && !fits) {
        st = raidFail(ctx, RAID_EUNSUPPORTED, "group-by: local tables of %zu bytes do not fit (%llu)", lbytes,
                       (unsigned long long)lmax);
        goto done;
    }
    const int sums_only = (p->need & GB_NEED_SUM) && !(p->need & (GB_NEED_MINMAX | GB_NEED_FIRSTLAST));
    /* many groups: the exponent-bucket tables (two atomics per value) while they stay small enough for a
     * GPU's L2 cache, else the limb tables (three atomics per value) */
    const size_t ebwords = (size_t)G * (6 * (size_t)NB + 2);
    const int eb_ok = (p->need & GB_NEED_SUM) && ebwords * sizeof(uint32_t) <= GB_EB_BUDGET;
    if (local_tables == 3 && !(p->need & GB_NEED_SUM)) {
        st = raidFail(ctx, RAID_EUNSUPPORTED, "group-by: exponent-bucket tables hold sums only");
        goto done;
    }
    /* many groups, sums (counts, means) only: rows partitioned by group with one pass of the device sort,
     * the partitions' limb tables in local memory (the H200: 1.15 ms for 5e7 rows into 100,000 groups
     * against 1.42 ms for the exponent buckets; limbs rather than buckets: twice the groups a partition;
     * docs/groupby.md) */
    int pb = 0;
    size_t np = 0;
    const int maxb = raidGbClTestKnobs.part_bits ? raidGbClTestKnobs.part_bits : 16;
    const int part_ok = sums_only && part_shape(n, G, 2 * (size_t)L + 2, wg, lmax, maxb, &pb, &np);
    if (raidGbClTestKnobs.partitions_out)
        *raidGbClTestKnobs.partitions_out = np;
    if (local_tables == 8 && !part_ok) {
        st = raidFail(ctx, RAID_EUNSUPPORTED,
                       "group-by: no partitioned tables for these aggregations, %zu groups or %zu rows (sums, counts "
                       "and means only; 255 partitions and fewer than 2^31 rows at most)", G, n);
        goto done;
    }
    const int mode = local_tables >= 0 ? local_tables : fits ? 1 : part_ok ? 8 : eb_ok ? 3 : 0;
    const int eb = mode == 3; /* -DGB_EB */
    const size_t SW = eb ? 6 * (size_t)NB : 2 * (size_t)L; /* sum words per group */
    size_t rows = rows_per_wg ? rows_per_wg : mode == 8 ? GB_PART_ROWS : GB_ROWS_DEFAULT;
    if (!rows_per_wg && mode == 1 && rows < 4 * G * (2 * (size_t)L + 2))
        rows = 4 * G * (2 * (size_t)L + 2); /* the merge of a work-group's tables: a quarter of its work at most */
    if (rows > 0x7FFFFFFF)
        rows = 0x7FFFFFFF;
    const size_t nwg = (n + rows - 1) / rows;

    /* the partitioned kernels' index checks: tests, or RAID_GROUPBY_CHECK set in the environment */
    const int check = mode == 8 && (raidGbClTestKnobs.check || getenv("RAID_GROUPBY_CHECK") != NULL);
    /* the local tables' words (kernels/col_groupby.cl GB_LTW, a build option): the partitions' tables, or
     * gb_rows_local's rounded up to a power of two (few programs, whatever the number of groups) within the
     * local memory */
    size_t ltw = 1;
    if (mode == 8)
        ltw = (SW + 2) << pb;
    else if (mode == 1) {
        const size_t need = G * (SW + 2), most = (lmax - 1024) / sizeof(uint32_t);
        for (ltw = 64; ltw < need; ltw *= 2)
            ;
        ltw = ltw > most ? (need > most ? need : most) : ltw;
    }
    char opts[512];
    snprintf(opts, sizeof opts,
             "-DGB_L=%d -DGB_SUM=%d -DGB_MINMAX=%d -DGB_FIRSTLAST=%d -DGB_EB=%d -DGB_NB=%d -DGB_B0=%d -DGB_NOCNT=%d "
             "-DGB_CHECK=%d -DGB_LTW=%zu %s",
             L, (p->need & GB_NEED_SUM) != 0, (p->need & GB_NEED_MINMAX) != 0, (p->need & GB_NEED_FIRSTLAST) != 0, eb,
             eb ? NB : 1, eb ? B0 : 0, !p->counts, check, ltw, raidTuneBuildOptions(ctx));
    const size_t Gs = G ? G : 1;
    const size_t sizes[NBUF] = {n, 0, Gs * SW, Gs, Gs, Gs, Gs, Gs, Gs, Gs, Gs};
    for (int j = B_SUM; j < NBUF; j++)
        if ((st = raidBufAcquire(ctx, RAID_DT_UINT, sizes[j], &b[j])) != RAID_OK)
            goto done;
    const uint32_t zero = 0, ones = 0xFFFFFFFFu;
    for (int j = B_SUM; j < NBUF; j++) {
        const int hi = j == B_MNHI || j == B_MNLO || j == B_FIRST;
        if ((st = raidBufFill(ctx, &b[j], hi ? &ones : &zero, NULL)) != RAID_OK)
            goto done;
    }

    unsigned a = 0;
    if (mode == 8) {
        if ((st = partitioned(ctx, p, b, SW + 2, pb, np, rows, wg, opts, check)) != RAID_OK)
            goto done;
    } else {
        if ((st = raidKernelGet(ctx, "col_groupby.cl", mode == 1 ? "gb_rows_local" : "gb_rows_global", opts, &k)) !=
            RAID_OK)
            goto done;
        if ((st = raidArgBuf(ctx, k, a++, &b[B_GID])) != RAID_OK ||
            (st = raidArgBuf(ctx, k, a++, &b[B_X])) != RAID_OK || (st = raidArgUint(ctx, k, a++, (uint32_t)n)) != RAID_OK ||
            (st = raidArgInt(ctx, k, a++, p->base)) != RAID_OK || (st = raidArgUint(ctx, k, a++, (uint32_t)rows)) != RAID_OK)
            goto done;
        for (int j = B_SUM; j <= B_LAST; j++)
            if ((st = raidArgBuf(ctx, k, a++, &b[j])) != RAID_OK)
                goto done;
        if (mode == 1 && (st = raidArgUint(ctx, k, a++, (uint32_t)G)) != RAID_OK)
            goto done;
        if ((st = launch(ctx, k, nwg * wg, wg, 0)) != RAID_OK)
            goto done;
    }
    if (p->need & GB_NEED_MINMAX) {
        if ((st = raidKernelGet(ctx, "col_groupby.cl", "gb_minmax_lo", opts, &k2)) != RAID_OK)
            goto done;
        a = 0;
        if ((st = raidArgBuf(ctx, k2, a++, &b[B_GID])) != RAID_OK ||
            (st = raidArgBuf(ctx, k2, a++, &b[B_X])) != RAID_OK ||
            (st = raidArgUint(ctx, k2, a++, (uint32_t)n)) != RAID_OK ||
            (st = raidArgBuf(ctx, k2, a++, &b[B_MNHI])) != RAID_OK || (st = raidArgBuf(ctx, k2, a++, &b[B_MXHI])) != RAID_OK ||
            (st = raidArgBuf(ctx, k2, a++, &b[B_MNLO])) != RAID_OK || (st = raidArgBuf(ctx, k2, a++, &b[B_MXLO])) != RAID_OK)
            goto done;
        if ((st = launch(ctx, k2, n, wg, 0)) != RAID_OK)
            goto done;
    }

    /* read back and round */
    h = malloc(Gs * (SW + 8) * sizeof *h);
    if (!h) {
        st = raidFail(ctx, RAID_ENOMEM, "out of memory (group-by read-back)");
        goto done;
    }
    uint32_t *hs = h, *hc = hs + Gs * SW, *hf = hc + Gs, *hmnh = hf + Gs, *hmxh = hmnh + Gs,
             *hfi = hmxh + Gs, *hla = hfi + Gs, *hmnl = hla + Gs, *hmxl = hmnl + Gs;
    uint32_t *dst[NBUF] = {NULL, NULL, hs, hc, hf, hmnh, hmxh, hfi, hla, hmnl, hmxl};
    for (int j = B_SUM; j < NBUF; j++) {
        if ((j == B_SUM && !(p->need & GB_NEED_SUM)) || (j == B_CNT && !p->counts) || ((j == B_MNHI || j == B_MXHI || j == B_MNLO || j == B_MXLO) && !(p->need & GB_NEED_MINMAX)) ||
            ((j == B_FIRST || j == B_LAST) && !(p->need & GB_NEED_FIRSTLAST)))
            continue;
        if ((st = download(ctx, &b[j], sizes[j], dst[j])) != RAID_OK)
            goto done;
    }
    const double t0 = raidNow();
#pragma omp parallel for schedule(static) if (G > 20000)
    for (size_t g = 0; g < G; g++) {
        out->count[g] = p->counts ? hc[g] : 0u;
        out->flags[g] = hf[g];
        if (p->need & GB_NEED_SUM) {
            uint32_t *P = hs + g * SW, *N = P + L; /* |P - N| into P */
            uint32_t eL[2 * GB_MAX_LIMBS];
            if (eb) { /* the buckets into limbs */
                P = eL, N = eL + L;
                memset(eL, 0, 2 * (size_t)L * sizeof *eL);
                gb_eb_limbs(hs + g * SW, B0, NB, L, P);
                gb_eb_limbs(hs + g * SW + 3 * (size_t)NB, B0, NB, L, N);
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
    ctx->timing.convert_s += raidNow() - t0;
done:
    free(h);
    raidKernelPut(ctx, k);
    raidKernelPut(ctx, k2);
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
