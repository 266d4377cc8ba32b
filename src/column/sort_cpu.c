/* The cpu path of the sorts (include/raid/sort.h; docs/column.md "Sorting"): the oracle of the device path
 * and the cpu backend.
 *
 * Every element gets its 64-bit sort key (raidKeySort of kernels/raid_keys.h: the order key, nulls and
 * descending folded in), then an LSD radix sort of the keys, 8-bit digits from the least significant,
 * skipping every digit that is the same in all keys (one thread: one read gives every digit's histogram,
 * and a digit is constant where one count is n; threads: the OR of key ^ key[0]), each pass a counting
 * sort: per-thread histograms of contiguous blocks, offsets digit-major then block-major, a scatter that
 * keeps each block's order: stable, so the output is the one stable order whatever the number
 * of threads. Payloads move with the keys: the element's index within its segment (argsort; uint32 or
 * uint64 words) or the value's bits (pairs). A sort of values moves the keys alone: a key gives its double
 * back exactly except for the two classes it folds (-0.0 onto +0.0, NaN payloads; nulls hold anything),
 * and each such class is one run of equal keys in the output that a stable sort fills with the class's
 * elements in input order: one scan of the input puts the input's own bits there.
 * Long sorts (MSD_MIN elements or more) first take one stable counting pass on the 16 most significant
 * bits that vary (msd_lsd): buckets that mostly fit the caches, each then LSD-sorted as above by one
 * thread, the buckets spread over the threads.
 * Sorts of VALUES of long segments (sort_values_msd) take another road: equal keys of numbers are equal
 * doubles, so any order of the keys is the stable one once the folded classes are refilled; an MSD radix
 * sort with no payload and no stability needed: keys straight from x into the output, buckets sorted in
 * the caches by one or two counting levels and a nearly-sorted finish, turned back into doubles there.
 * Segments: one after the other, each sorted by all threads, when one segment holds most elements; else
 * spread over the threads, one segment at a time each. */
#include "column/sort_impl.h"

#include "column/keys.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>

#define BITS 8
#define RADIX (1u << BITS)
#define NPASS ((64 + BITS - 1) / BITS)
#define SMALL 32         /* segments shorter than this: insertion sort */
#define PAR_MIN 100000   /* a segment's length from which threads share its passes */
#define MSD_BITS 16
#define MSD_RADIX (1u << MSD_BITS)
#define MSD_MIN 262144   /* a segment's length from which a most-significant pass splits it first */

typedef struct sort_bufs {
    uint64_t *k, *kt; /* keys and their scratch, indexed as x minus offsets[0] */
    void *p, *pt;     /* payloads (pw bytes each) and their scratch */
    int pw;           /* 0, 4 or 8 */
} sort_bufs;

static inline int is_valid(const uint8_t *valid, size_t i)
{
    return !valid || ((valid[i >> 3] >> (i & 7)) & 1u);
}

static inline uint64_t elem_key(const RaidSortReq *r, size_t i)
{
    if (r->ikeys) {
        const uint64_t k = (uint64_t)r->ikeys[i] ^ 0x8000000000000000ULL;
        return r->desc ? ~k : k;
    }
    uint64_t b;
    memcpy(&b, &r->x[i], sizeof b);
    const RaidKey k = raidKeySort((uint32_t)(b >> 32), (uint32_t)b, r->valid != NULL, is_valid(r->valid, i), r->desc);
    return (uint64_t)k.hi << 32 | k.lo;
}

/* elem_key of a double's bits without a validity mask: raidKeySort's cases as 64-bit selects (the same
 * keys; compilers vectorise it). */
static inline uint64_t bits_key(uint64_t b, int desc)
{
    const uint64_t mag = b & 0x7FFFFFFFFFFFFFFFULL;
    const uint64_t neg = (uint64_t)0 - (b >> 63);
    uint64_t k = b ^ (neg | 0x8000000000000000ULL);
    k = mag == 0 ? 0x8000000000000000ULL : k;
    k = desc ? ~k : k;
    return mag > 0x7FF0000000000000ULL ? UINT64_MAX : k;
}

static inline uint64_t value_key(const RaidSortReq *r, size_t i)
{
    if (r->valid)
        return elem_key(r, i);
    uint64_t b;
    memcpy(&b, &r->x[i], sizeof b);
    return bits_key(b, r->desc);
}

static void insertion(uint64_t *k, void *p, size_t n, int pw)
{
    uint32_t *p4 = p;
    uint64_t *p8 = p;
    for (size_t i = 1; i < n; i++) {
        const uint64_t ki = k[i];
        const uint32_t a4 = pw == 4 ? p4[i] : 0;
        const uint64_t a8 = pw == 8 ? p8[i] : 0;
        size_t j = i;
        for (; j > 0 && k[j - 1] > ki; j--) {
            k[j] = k[j - 1];
            if (pw == 4)
                p4[j] = p4[j - 1];
            else if (pw == 8)
                p8[j] = p8[j - 1];
        }
        k[j] = ki;
        if (pw == 4)
            p4[j] = a4;
        else if (pw == 8)
            p8[j] = a8;
    }
}

static void histogram(const uint64_t *k, size_t b0, size_t b1, int shift, size_t *c)
{
    memset(c, 0, RADIX * sizeof *c);
    for (size_t i = b0; i < b1; i++)
        c[(k[i] >> shift) & (RADIX - 1)]++;
}

/* Move block [b0, b1) to the positions off[digit]++ (stable within the block). */
static void scatter(const uint64_t *k, const void *p, uint64_t *kt, void *pt, size_t b0, size_t b1, int shift,
                    uint64_t mask, size_t *off, int pw)
{
    if (pw == 0) {
        for (size_t i = b0; i < b1; i++)
            kt[off[(k[i] >> shift) & mask]++] = k[i];
    } else if (pw == 4) {
        const uint32_t *p4 = p;
        uint32_t *t4 = pt;
        for (size_t i = b0; i < b1; i++) {
            const size_t o = off[(k[i] >> shift) & mask]++;
            kt[o] = k[i];
            t4[o] = p4[i];
        }
    } else {
        const uint64_t *p8 = p;
        uint64_t *t8 = pt;
        for (size_t i = b0; i < b1; i++) {
            const size_t o = off[(k[i] >> shift) & mask]++;
            kt[o] = k[i];
            t8[o] = p8[i];
        }
    }
}

/* The pass's output becomes the next one's input; returns 1. */
static int swap(uint64_t **k, uint64_t **kt, void **p, void **pt)
{
    uint64_t *tk = *k;
    *k = *kt;
    *kt = tk;
    void *tp = *p;
    *p = *pt;
    *pt = tp;
    return 1;
}

/* Stable LSD radix sort of k[0 .. n) with payloads p, scratch kt, pt, by T threads (cnt: max(T, NPASS) *
 * RADIX counts).
 * Returns 1 when the result lies in (kt, pt), 0 when in (k, p). */
static int radix(uint64_t *k, void *p, uint64_t *kt, void *pt, size_t n, int pw, int T, size_t *cnt)
{
    if (n < SMALL) {
        insertion(k, p, n, pw);
        return 0;
    }
    const uint64_t k0 = k[0];
    if (T == 1) { /* one read for every digit's histogram: a digit is constant where one count is n */
        memset(cnt, 0, NPASS * RADIX * sizeof *cnt);
        for (size_t i = 0; i < n; i++) {
            const uint64_t ki = k[i];
            for (int d = 0; d < NPASS; d++)
                cnt[(size_t)d * RADIX + ((ki >> (d * BITS)) & (RADIX - 1))]++;
        }
        int flip = 0;
        for (int d = 0; d < NPASS; d++) {
            size_t *c = cnt + (size_t)d * RADIX;
            if (c[(k0 >> (d * BITS)) & (RADIX - 1)] == n)
                continue;
            size_t sum = 0;
            for (size_t e = 0; e < RADIX; e++) {
                const size_t v = c[e];
                c[e] = sum;
                sum += v;
            }
            scatter(k, p, kt, pt, 0, n, d * BITS, RADIX - 1, c, pw);
            flip ^= swap(&k, &kt, &p, &pt);
        }
        return flip;
    }
    uint64_t diff = 0;
#pragma omp parallel for schedule(static) reduction(| : diff) num_threads(T)
    for (size_t i = 0; i < n; i++)
        diff |= k[i] ^ k0;
    int flip = 0;
    for (int shift = 0; shift < 64; shift += BITS) {
        if (((diff >> shift) & (RADIX - 1)) == 0) /* this digit is the same in every key */
            continue;
        {
#pragma omp parallel num_threads(T)
            {
                const size_t t = (size_t)omp_get_thread_num(), nt = (size_t)omp_get_num_threads();
                const size_t b0 = n * t / nt, b1 = n * (t + 1) / nt;
                size_t *c = cnt + t * RADIX;
                histogram(k, b0, b1, shift, c);
#pragma omp barrier
#pragma omp single
                {
                    size_t sum = 0; /* digit-major, block-major: the stable offsets */
                    for (size_t d = 0; d < RADIX; d++)
                        for (size_t u = 0; u < nt; u++) {
                            const size_t v = cnt[u * RADIX + d];
                            cnt[u * RADIX + d] = sum;
                            sum += v;
                        }
                }
                scatter(k, p, kt, pt, b0, b1, shift, RADIX - 1, c, pw);
            }
        }
        flip ^= swap(&k, &kt, &p, &pt);
    }
    return flip;
}

/* The offsets of a counting pass from nt per-thread histograms of nb digits (mcnt: MSD_RADIX counts per
 * thread), digit-major then block-major (stable), in place; start[0 .. nb]: the buckets' starts and the
 * end. Returns the largest bucket's size. */
static size_t msd_offsets(size_t *mcnt, size_t *start, size_t nb, size_t nt)
{
    size_t sum = 0, maxb = 0;
    for (size_t d = 0; d < nb; d++) {
        start[d] = sum;
        for (size_t u = 0; u < nt; u++) {
            const size_t v = mcnt[u * MSD_RADIX + d];
            mcnt[u * MSD_RADIX + d] = sum;
            sum += v;
        }
        if (sum - start[d] > maxb)
            maxb = sum - start[d];
    }
    start[nb] = sum;
    return maxb;
}

/* A sort of n >= MSD_MIN keys: one stable counting pass on the MSD_BITS most significant bits that vary
 * (buckets, most of them small enough for the caches), then each bucket's LSD radix sort (radix(), one
 * thread per bucket, the buckets spread over T threads). The result lies in (kt, pt): returns 1 (or
 * radix()'s answer where every varying bit is among the lowest MSD_BITS). mcnt: T * (2 MSD_RADIX + 1)
 * counts; cnt: as radix() wants for T threads. */
static int msd_lsd(uint64_t *k, void *p, uint64_t *kt, void *pt, size_t n, int pw, int T, size_t *cnt, size_t *mcnt)
{
    uint64_t diff = 0;
    const uint64_t k0 = k[0];
#pragma omp parallel for schedule(static) reduction(| : diff) num_threads(T) if (T > 1)
    for (size_t i = 0; i < n; i++)
        diff |= k[i] ^ k0;
    if ((diff >> MSD_BITS) == 0)
        return radix(k, p, kt, pt, n, pw, T, cnt);
    int hb = 63;
    while (!((diff >> hb) & 1u))
        hb--;
    const int ms = hb - MSD_BITS + 1;
    size_t *start = mcnt + (size_t)T * MSD_RADIX; /* MSD_RADIX + 1 bucket starts */
#pragma omp parallel num_threads(T) if (T > 1)
    {
        const size_t t = (size_t)omp_get_thread_num(), nt = (size_t)omp_get_num_threads();
        const size_t b0 = n * t / nt, b1 = n * (t + 1) / nt;
        size_t *c = mcnt + t * MSD_RADIX;
        memset(c, 0, MSD_RADIX * sizeof *c);
        for (size_t i = b0; i < b1; i++)
            c[(k[i] >> ms) & (MSD_RADIX - 1)]++;
#pragma omp barrier
#pragma omp single
        {
            msd_offsets(mcnt, start, MSD_RADIX, nt);
        }
        scatter(k, p, kt, pt, b0, b1, ms, MSD_RADIX - 1, c, pw);
    }
#pragma omp parallel for schedule(dynamic, 64) num_threads(T) if (T > 1)
    for (size_t d = 0; d < MSD_RADIX; d++) {
        const size_t a = start[d], len = start[d + 1] - start[d];
        if (len < 2)
            continue;
        const size_t pa = a * (size_t)pw;
        if (radix(kt + a, pw ? (char *)pt + pa : NULL, k + a, pw ? (char *)p + pa : NULL, len, pw, 1,
                  cnt + (size_t)omp_get_thread_num() * NPASS * RADIX)) {
            memcpy(kt + a, k + a, len * sizeof *k);
            if (pw)
                memcpy((char *)pt + pa, (char *)p + pa, len * (size_t)pw);
        }
    }
    return 1;
}

/* The first index of sorted k[0 .. n) whose key is >= v. */
static size_t lower_bound(const uint64_t *k, size_t n, uint64_t v)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (k[mid] < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* A sort of values' folded classes: the zero run (-0.0 and +0.0, from out[cz]), the NaN run (from out[cn])
 * and the null run (from out[cu]) of segment [a, a + len), each filled with its class's input elements
 * in input order (the input's own bits). */
static void refill(const RaidSortReq *r, size_t a, size_t len, double *out, size_t cz, size_t cn, size_t cu)
{
    for (size_t i = a; i < a + len; i++) {
        if (!is_valid(r->valid, i))
            out[cu++] = r->x[i];
        else if (r->x[i] != r->x[i])
            out[cn++] = r->x[i];
        else if (r->x[i] == 0.0)
            out[cz++] = r->x[i];
    }
}

/* The sort of VALUES (no payload) of long segments: an MSD radix sort, since equal keys of numbers are
 * equal doubles and the folded classes are refilled afterwards, any correct order of the keys is the
 * stable one. vrec sorts src[0 .. m) (keys) into src (into_tmp 0) or tmp (into_tmp 1): insertion sort
 * under SMALL elements; else one counting pass on the VBITS (fewer for short ranges) most significant
 * bits that vary (the OR of every key's difference from the first: none varies, all keys are equal and
 * nothing moves) into the other buffer, then each digit's run the same way, buffers swapped. Every level
 * works on a range that the level above left in the caches. */
#define VBITS 11 /* digit width below a bucket's first level */
#define VTOP 17  /* digit width of a bucket's first level (counts: the spent MSD histograms' room) */
#define VSMALL 16

static void insertion_keys(uint64_t *k, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        const uint64_t ki = k[i];
        size_t j = i;
        for (; j > 0 && k[j - 1] > ki; j--)
            k[j] = k[j - 1];
        k[j] = ki;
    }
}

static void vrec(uint64_t *buf, uint64_t *tmp, size_t m, uint32_t *c, int maxw)
{
    if (m <= VSMALL) {
        insertion_keys(buf, m);
        return;
    }
    const uint64_t k0 = buf[0];
    uint64_t diff = 0;
    for (size_t i = 1; i < m; i++)
        diff |= buf[i] ^ k0;
    if (diff == 0)
        return;
    const int hb = 63 - __builtin_clzll(diff);
    int w = 1;
    while (((size_t)1 << w) < m && w < 24) /* about one key per digit value */
        w++;
    if (w > maxw) /* not in one level: two levels of about the same width */
        w = (w + 1) / 2 < maxw ? (w + 1) / 2 : maxw;
    if (w > hb + 1)
        w = hb + 1;
    const int shift = hb + 1 - w;
    const size_t nd = (size_t)1 << w, mask = nd - 1;
    memset(c, 0, nd * sizeof *c);
    for (size_t i = 0; i < m; i++)
        c[(buf[i] >> shift) & mask]++;
    uint32_t sum = 0;
    for (size_t d = 0; d < nd; d++) {
        const uint32_t v = c[d];
        c[d] = sum;
        sum += v;
    }
    for (size_t i = 0; i < m; i++)
        tmp[c[(buf[i] >> shift) & mask]++] = buf[i];
    memcpy(buf, tmp, m * sizeof *buf);
    size_t s = 0; /* c[d] is now the end of digit d's run */
    int small = 0;
    for (size_t d = 0; d < nd; d++) {
        const size_t e = c[d];
        if (e - s > VSMALL) {
            uint32_t cc[1u << VBITS];
            vrec(buf + s, tmp + s, e - s, cc, VBITS);
        } else {
            small |= e - s > 1;
        }
        s = e;
    }
    if (small) { /* runs of a few keys each, in order from run to run */
        uint64_t cur = buf[0];
        for (size_t i = 1; i < m; i++) { /* one branch-free bubble pass: most keys out of place by one */
            const uint64_t b = buf[i];
            buf[i - 1] = cur < b ? cur : b;
            cur = cur < b ? b : cur;
        }
        buf[m - 1] = cur;
        insertion_keys(buf, m);
    }
}

/* Segment [a, a + len) sorted into r->vout (values, len >= MSD_MIN): keys straight from x into vout (as
 * key bits) by one counting pass on the MSD_BITS most significant bits that vary, each bucket vrec()-sorted
 * in place (scratch: kt, one bucket's room per thread when that fits in len, else the bucket's own slice)
 * and turned back into doubles while in the caches; then, when some element's key does not give its bits
 * back (-0.0, a NaN other than the canonical one, a null), one scan refills those classes' runs. */
static void sort_values_msd(const RaidSortReq *r, size_t a, size_t len, uint64_t *kt, int T, size_t *mcnt)
{
    const int masked = r->valid != NULL;
    const uint64_t nan_key = masked ? UINT64_MAX - 1 : UINT64_MAX;
    const uint64_t zero_key = r->desc ? ~0x8000000000000000ULL : 0x8000000000000000ULL;
    const uint64_t k0 = elem_key(r, a);
    uint64_t diff = 0;
    int fix = 0; /* some element's key does not give its bits back */
    /* The digit guessed from 4,096 keys spread over the segment: the MSD_BITS bits below the highest bit
     * that varies among them (at most the true one; where it is lower, the histograms are recounted). */
    uint64_t sdiff = 0;
    for (size_t j = 0, step = len / 4096 > 0 ? len / 4096 : 1; j < len; j += step)
        sdiff |= value_key(r, a + j) ^ k0;
    const int shb = sdiff ? 63 - __builtin_clzll(sdiff) : 0;
    const int gms = shb + 1 < MSD_BITS ? 0 : shb + 1 - MSD_BITS;
    /* One read: the difference from the first key, the flag, and the histograms of the guessed digit. */
#pragma omp parallel num_threads(T) reduction(| : diff, fix) if (T > 1)
    {
        const size_t t = (size_t)omp_get_thread_num(), nt = (size_t)omp_get_num_threads();
        const size_t b0 = len * t / nt, b1 = len * (t + 1) / nt;
        size_t *c = mcnt + t * MSD_RADIX;
        memset(c, 0, MSD_RADIX * sizeof *c);
        if (masked) {
            for (size_t j = b0; j < b1; j++) {
                const uint64_t k = elem_key(r, a + j);
                diff |= k ^ k0;
                fix |= k >= nan_key || k == zero_key;
                c[(k >> gms) & (MSD_RADIX - 1)]++;
            }
        } else {
            const uint64_t *xb = (const uint64_t *)(const void *)(r->x + a);
            const int desc = r->desc;
            for (size_t j = b0; j < b1; j++) {
                const uint64_t bj = xb[j], k = bits_key(bj, desc);
                diff |= k ^ k0;
                fix |= (k == UINT64_MAX && bj != 0x7FF8000000000000ULL) | (bj == 0x8000000000000000ULL);
                c[(k >> gms) & (MSD_RADIX - 1)]++;
            }
        }
    }
    double *out = r->vout + a;
    uint64_t *ok = (uint64_t *)(void *)out;
    if (diff == 0) { /* all keys equal: the stable order is the input's */
        memcpy(out, r->x + a, len * sizeof *out);
        return;
    }
    int hb = 63;
    while (!((diff >> hb) & 1u))
        hb--;
    const int w0 = hb + 1 < MSD_BITS ? hb + 1 : MSD_BITS;
    const int ms = hb + 1 - w0;
    const size_t nb = (size_t)1 << w0, mask = nb - 1;
    size_t *start = mcnt + (size_t)T * MSD_RADIX; /* nb + 1 bucket starts */
    size_t maxb = 0;
#pragma omp parallel num_threads(T) if (T > 1)
    {
        const size_t t = (size_t)omp_get_thread_num(), nt = (size_t)omp_get_num_threads();
        const size_t b0 = len * t / nt, b1 = len * (t + 1) / nt;
        size_t *c = mcnt + t * MSD_RADIX;
        if (ms != gms || w0 != MSD_BITS) {
            memset(c, 0, nb * sizeof *c);
            for (size_t j = b0; j < b1; j++)
                c[(value_key(r, a + j) >> ms) & mask]++;
        }
#pragma omp barrier
#pragma omp single
        {
            maxb = msd_offsets(mcnt, start, nb, nt);
        }
        for (size_t j = b0; j < b1; j++) {
            const uint64_t k = value_key(r, a + j);
            ok[c[(k >> ms) & mask]++] = k;
        }
    }
    const int own = maxb * (size_t)T <= len; /* one bucket's room per thread, reused: stays in the caches */
    _Static_assert(((size_t)1 << VTOP) * sizeof(uint32_t) <= MSD_RADIX * sizeof(size_t), "VTOP counts fit");
    uint32_t *vcnt = (uint32_t *)(void *)mcnt; /* the histograms are spent: 2^VTOP counts per thread */
#pragma omp parallel for schedule(dynamic, 16) num_threads(T) if (T > 1)
    for (size_t d = 0; d < nb; d++) {
        const size_t s = start[d], e = start[d + 1];
        if (e - s > 1)
            vrec(ok + s, own ? kt + (size_t)omp_get_thread_num() * maxb : kt + s, e - s, vcnt + (size_t)omp_get_thread_num() * ((size_t)1 << VTOP), VTOP);
        for (size_t j = s; j < e; j++)
            out[j] = raidKey64Value(r->desc && ok[j] < nan_key ? ~ok[j] : ok[j]);
    }
    if (!fix)
        return;
    size_t cz = 0, cn = 0, cu = 0; /* the keys below the zero, NaN and null keys: where their runs start */
#pragma omp parallel for schedule(static) reduction(+ : cz, cn, cu) num_threads(T) if (T > 1)
    for (size_t j = 0; j < len; j++) {
        const uint64_t k = value_key(r, a + j);
        cz += k < zero_key;
        cn += k < nan_key;
        cu += k < UINT64_MAX;
    }
    refill(r, a, len, out, cz, cn, masked ? cu : len);
}

/* Segment s: keys, payloads, radix sort, outputs. */
static void sort_segment(const RaidSortReq *r, size_t s, const sort_bufs *b, int T, size_t *cnt, size_t *mcnt)
{
    const size_t a = (size_t)r->offsets[s], len = (size_t)(r->offsets[s + 1] - r->offsets[s]);
    const size_t rel = a - (size_t)r->offsets[0];
    if (len == 0)
        return;
    T = len >= PAR_MIN ? T : 1;
    uint64_t *k = b->k + rel, *kt = b->kt + rel;
    if (r->out == RAID_SORT_VALUES && len >= MSD_MIN && len <= UINT32_MAX) {
        sort_values_msd(r, a, len, kt, T, mcnt);
        return;
    }
    void *p = b->pw ? (char *)b->p + rel * (size_t)b->pw : NULL;
    void *pt = b->pw ? (char *)b->pt + rel * (size_t)b->pw : NULL;
#pragma omp parallel for schedule(static) num_threads(T) if (T > 1)
    for (size_t j = 0; j < len; j++) {
        k[j] = elem_key(r, a + j);
        if (r->out == RAID_SORT_PAIRS)
            memcpy((uint64_t *)p + j, &r->x[a + j], sizeof(uint64_t));
        else if (b->pw == 4)
            ((uint32_t *)p)[j] = (uint32_t)j;
        else if (b->pw == 8)
            ((uint64_t *)p)[j] = j;
    }
    const int flip = len >= MSD_MIN ? msd_lsd(k, p, kt, pt, len, b->pw, T, cnt, mcnt) : radix(k, p, kt, pt, len, b->pw, T, cnt);
    const uint64_t *ks = flip ? kt : k;
    const void *ps = flip ? pt : p;
    switch (r->out) {
    case RAID_SORT_IDX32:
    case RAID_SORT_IDX64:
#pragma omp parallel for schedule(static) num_threads(T) if (T > 1)
        for (size_t j = 0; j < len; j++) {
            const size_t i = a + (b->pw == 4 ? ((const uint32_t *)ps)[j] : (size_t)((const uint64_t *)ps)[j]);
            if (r->out == RAID_SORT_IDX32)
                r->i32[a + j] = (uint32_t)i;
            else
                r->i64[a + j] = (int64_t)i;
        }
        break;
    case RAID_SORT_PAIRS:
#pragma omp parallel for schedule(static) num_threads(T) if (T > 1)
        for (size_t j = 0; j < len; j++) {
            const uint64_t kk = (r->desc ? ~ks[j] : ks[j]) ^ 0x8000000000000000ULL;
            r->kout[a + j] = (int64_t)kk;
            memcpy(&r->vout[a + j], (const uint64_t *)ps + j, sizeof(double));
        }
        break;
    case RAID_SORT_VALUES: {
        /* Every key gives its double back, but for the folded classes: the zero run (-0.0 and +0.0), the
         * NaN run and the null run, each filled with its class's input elements in input order. */
        const int masked = r->valid != NULL;
        const uint64_t nan_key = masked ? UINT64_MAX - 1 : UINT64_MAX;
        const uint64_t zero_key = r->desc ? ~0x8000000000000000ULL : 0x8000000000000000ULL;
        double *out = r->vout + a;
#pragma omp parallel for schedule(static) num_threads(T) if (T > 1)
        for (size_t j = 0; j < len; j++)
            out[j] = raidKey64Value(r->desc && ks[j] < nan_key ? ~ks[j] : ks[j]);
        size_t cz = lower_bound(ks, len, zero_key), cn = lower_bound(ks, len, nan_key);
        size_t cu = masked ? lower_bound(ks, len, UINT64_MAX) : len;
        refill(r, a, len, out, cz, cn, cu);
        break;
    }
    }
}

raid_status raidSortCpu(raid_ctx *ctx, const RaidSortReq *r)
{
    const size_t n = (size_t)(r->offsets[r->nseg] - r->offsets[0]);
    size_t maxlen = 0;
    for (size_t s = 0; s < r->nseg; s++)
        if ((size_t)(r->offsets[s + 1] - r->offsets[s]) > maxlen)
            maxlen = (size_t)(r->offsets[s + 1] - r->offsets[s]);
    sort_bufs b = {0};
    b.pw = r->out == RAID_SORT_PAIRS ? 8 : r->out == RAID_SORT_VALUES ? 0 : maxlen > UINT32_MAX ? 8 : 4;
    const int T = omp_get_max_threads();
    b.k = malloc(n * sizeof *b.k);
    b.kt = malloc(n * sizeof *b.kt);
    if (b.pw) {
        b.p = malloc(n * (size_t)b.pw);
        b.pt = malloc(n * (size_t)b.pw);
    }
    size_t *cnt = malloc((size_t)T * NPASS * RADIX * sizeof *cnt); /* per thread: NPASS histograms */
    size_t *mcnt = maxlen >= MSD_MIN ? malloc((size_t)T * (2 * MSD_RADIX + 1) * sizeof *mcnt) : NULL;
    raid_status st = RAID_OK;
    if (!b.k || !b.kt || (b.pw && (!b.p || !b.pt)) || !cnt || (maxlen >= MSD_MIN && !mcnt)) {
        st = raidFail(ctx, RAID_ENOMEM, "out of memory (sorting %zu values)", n);
        goto done;
    }
    if (r->nseg == 1 || maxlen * 2 > n) {
        for (size_t s = 0; s < r->nseg; s++)
            sort_segment(r, s, &b, T, cnt, mcnt);
    } else {
#pragma omp parallel num_threads(T)
        {
            const size_t t = (size_t)omp_get_thread_num();
            size_t *c = cnt + t * NPASS * RADIX, *mc = mcnt ? mcnt + t * (2 * MSD_RADIX + 1) : NULL;
#pragma omp for schedule(dynamic, 16)
            for (size_t s = 0; s < r->nseg; s++)
                sort_segment(r, s, &b, 1, c, mc);
        }
    }
done:
    free(b.k);
    free(b.kt);
    free(b.p);
    free(b.pt);
    free(cnt);
    free(mcnt);
    return st;
}
