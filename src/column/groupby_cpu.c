/* Group-by, the cpu path (the oracle of the device path and the cpu backend; docs/groupby.md).
 *
 * Each group's sum is an integer in units of 2^-1074 kept in W chunks of 32 bits from bit plan->base up,
 * each chunk an int64: a value's significand m (53 bits) shifted to its position spans at most three
 * chunks and is added (subtracted when negative) as three pieces below 2^32, so 2^31 - 1 rows leave every
 * chunk inside int64 with no carry at all; the chunks are normalised (carries into the next chunk) after
 * every 2^31 - 1 rows of a thread and at the end. W covers the data's exponent range plus 64 bits of
 * carries and a sign. OpenMP threads take contiguous row ranges with tables of their own, merged as exact
 * integers: nothing depends on the thread count. Counts, flags (NaN, infinities, non-(-0.0) values), min
 * and max as 64-bit order keys, first and last as row indices: all exact, all order-independent. */
#include "column/groupby_internal.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#define BLOCK_ROWS 2147483647u /* rows added to int64 chunks between normalisations */
#define CACHE_TABLE_BYTES (128u << 10) /* table rows of one bucket at most (a core's share of the cache) */
#define PART_ROWS ((size_t)1 << 20)     /* rows partitioned at a time */

/* Tables of one thread (row split) or of all (group split). Row g of acc: stride int64, chunks 0 .. W-1,
 * then count x 32 + flags (GB_F_*, GB_F_PRESENT; one cache line for prices' data: the row's every update in one line). */
typedef struct gb_tab {
    int64_t *acc;
    int64_t *first, *last;
    uint64_t *min, *max;
} gb_tab;

static void tab_free(gb_tab *t) { free(t->acc), free(t->first), free(t->last), free(t->min), free(t->max); }

static int tab_alloc(gb_tab *t, size_t G, size_t stride, unsigned need)
{
    memset(t, 0, sizeof *t);
    int ok = (t->acc = aligned_alloc(64, (G * stride * sizeof *t->acc + 63) / 64 * 64)) != NULL;
    if (ok)
        memset(t->acc, 0, G * stride * sizeof *t->acc);
    if (need & GB_NEED_MINMAX) {
        ok = ok && (t->min = malloc(G * sizeof *t->min)) && (t->max = calloc(G, sizeof *t->max));
        if (ok)
            memset(t->min, 0xFF, G * sizeof *t->min);
    }
    if (need & GB_NEED_FIRSTLAST) {
        ok = ok && (t->first = malloc(G * sizeof *t->first)) && (t->last = malloc(G * sizeof *t->last));
        if (ok)
            for (size_t g = 0; g < G; g++)
                t->first[g] = t->last[g] = -1;
    }
    return ok;
}

/* Carries up: chunks 0 .. W-2 into [0, 2^32), the top one signed. Exact (floor division by 2^32). */
static void normalise(int64_t *a, int W)
{
    for (int c = 0; c < W - 1; c++) {
        const int64_t lo = (int64_t)((uint64_t)a[c] & 0xFFFFFFFFu);
        a[c + 1] += (a[c] - lo) / 4294967296;
        a[c] = lo;
    }
}

/* Row i (group g, value x) into t; need: p->need, or a constant equal to it (the loop specialised). */
static inline __attribute__((always_inline)) void add_row(const gb_plan *p, unsigned need, int W, size_t stride,
                                                          gb_tab *t, uint32_t g, const double *x, size_t i)
{
    int64_t *row = t->acc + (size_t)g * stride;
    if (!need) {
        row[W] = (row[W] + 32) | GB_F_PRESENT;
        return;
    }
    uint64_t b;
    memcpy(&b, x, sizeof b);
    const unsigned E = (unsigned)(b >> 52) & 0x7FFu;
    if (E == 0x7FFu) {
        if (b & 0xFFFFFFFFFFFFFull) { /* NaN: counted, flagged, no order key */
            row[W] = (row[W] + 32) | GB_F_PRESENT | GB_F_NAN;
            if (need & GB_NEED_FIRSTLAST) {
                if (t->first[g] < 0)
                    t->first[g] = (int64_t)i;
                t->last[g] = (int64_t)i;
            }
            return;
        }
        row[W] = (row[W] + 32) | GB_F_PRESENT | ((b >> 63) ? GB_F_NINF : GB_F_PINF);
    } else {
        uint64_t m = b & 0xFFFFFFFFFFFFFull;
        row[W] = (row[W] + 32) | GB_F_PRESENT | (b != 0x8000000000000000ull ? GB_F_NZ : 0u);
        if ((need & GB_NEED_SUM) && (m | E)) {
            int q;
            if (E) {
                m |= 1ull << 52;
                q = (int)E - 1 - p->base;
            } else {
                q = -p->base;
            }
            const int s = q & 31;
            int64_t *a = row + (q >> 5);
            const uint64_t w0 = (m << s) & 0xFFFFFFFFu, up = m >> (32 - s);
            const int64_t sg = -(int64_t)(b >> 63); /* 0 or -1: (w ^ sg) - sg negates */
            a[0] += ((int64_t)w0 ^ sg) - sg;
            a[1] += ((int64_t)(up & 0xFFFFFFFFu) ^ sg) - sg;
            a[2] += ((int64_t)(up >> 32) ^ sg) - sg;
        }
    }
    if (need & GB_NEED_MINMAX) {
        const uint64_t k = gb_order_key(b);
        if (k < t->min[g])
            t->min[g] = k;
        if (k > t->max[g])
            t->max[g] = k;
    }
    if (need & GB_NEED_FIRSTLAST) {
        if (t->first[g] < 0)
            t->first[g] = (int64_t)i;
        t->last[g] = (int64_t)i;
    }
}

/* The table row of row i, GB_NONE for a null row (whose key's row is marked present when rows are keys). */
static inline __attribute__((always_inline)) uint32_t fetch(const gb_plan *p, gb_tab *t, size_t stride, int W, size_t i)
{
    if (p->gid)
        return p->gid[i];
    const uint32_t g = (uint32_t)((uint64_t)p->keys[i] - (uint64_t)p->kmin);
    if ((p->valid && !p->valid[i]) || (p->skipna && p->x && p->x[i] != p->x[i])) {
        t->acc[(size_t)g * stride + W] |= GB_F_PRESENT;
        return GB_NONE;
    }
    return g;
}

/* Rows [lo, hi) into t, in blocks of at most BLOCK_ROWS between normalisations. Where the table outgrows
 * the cache (shift < 32), each block of PART_ROWS rows is first partitioned (stably) by g >> shift into
 * buckets of 2^shift groups whose table rows fit in the cache, then added bucket by bucket: a row's
 * update then hits the cache, and each group's rows keep their order (first and last). */
static int accumulate(const gb_plan *p, int W, size_t stride, size_t lo, size_t hi, int shift, gb_tab *t)
{
    const double *x = p->x;
    const size_t G = p->ngroups;
    const size_t nb = shift < 32 ? ((G - 1) >> shift) + 1 : 1;
    uint32_t *pg = NULL, *pf = NULL;
    double *px = NULL;
    uint64_t *pi = NULL;
    size_t *cnt = NULL;
    if (nb > 1) {
        pg = malloc(PART_ROWS * sizeof *pg);
        pf = malloc(PART_ROWS * sizeof *pf);
        px = malloc(PART_ROWS * sizeof *px);
        pi = (p->need & GB_NEED_FIRSTLAST) ? malloc(PART_ROWS * sizeof *pi) : NULL;
        cnt = malloc((nb + 1) * sizeof *cnt);
        if (!pg || !pf || !px || !cnt || ((p->need & GB_NEED_FIRSTLAST) && !pi)) {
            free(pg), free(pf), free(px), free(pi), free(cnt);
            return 0;
        }
    }
    for (size_t b0 = lo; b0 < hi; b0 += BLOCK_ROWS) {
        const size_t b1 = hi - b0 > BLOCK_ROWS ? b0 + BLOCK_ROWS : hi;
        if (nb == 1) {
            if (!p->gid && !p->valid && !p->skipna && p->need == GB_NEED_SUM) { /* the common case */
                const int64_t *k = p->keys;
                const uint64_t kmin = (uint64_t)p->kmin;
                for (size_t i = b0; i < b1; i++)
                    add_row(p, GB_NEED_SUM, W, stride, t, (uint32_t)((uint64_t)k[i] - kmin), x + i, i);
            } else {
                for (size_t i = b0; i < b1; i++) {
                    const uint32_t g = fetch(p, t, stride, W, i);
                    if (g != GB_NONE)
                        add_row(p, p->need, W, stride, t, g, x ? x + i : NULL, i);
                }
            }
        } else {
            for (size_t c0 = b0; c0 < b1; c0 += PART_ROWS) {
                const size_t c1 = b1 - c0 > PART_ROWS ? c0 + PART_ROWS : b1;
                memset(cnt, 0, (nb + 1) * sizeof *cnt);
                for (size_t i = c0; i < c1; i++) { /* the rows' table rows into pg, then counted */
                    const uint32_t g = fetch(p, t, stride, W, i);
                    pf[i - c0] = g;
                    if (g != GB_NONE)
                        cnt[(g >> shift) + 1]++;
                }
                for (size_t k = 1; k <= nb; k++)
                    cnt[k] += cnt[k - 1];
                const size_t used = cnt[nb];
                for (size_t i = c0; i < c1; i++) { /* stable scatter */
                    const uint32_t g = pf[i - c0];
                    if (g == GB_NONE)
                        continue;
                    const size_t at = cnt[g >> shift]++;
                    pg[at] = g;
                    if (x)
                        px[at] = x[i];
                    if (pi)
                        pi[at] = i;
                }
                if (p->need == GB_NEED_SUM)
                    for (size_t r = 0; r < used; r++)
                        add_row(p, GB_NEED_SUM, W, stride, t, pg[r], px + r, 0);
                else
                    for (size_t r = 0; r < used; r++)
                        add_row(p, p->need, W, stride, t, pg[r], px + r, pi ? pi[r] : 0);
            }
        }
        if (p->need & GB_NEED_SUM)
            for (size_t g = 0; g < G; g++)
                normalise(t->acc + g * stride, W);
    }
    free(pg), free(pf), free(px), free(pi), free(cnt);
    return 1;
}

/* The magnitude of a normalised accumulator's sum (chunks below the top in [0, 2^32), the top signed) into
 * limbs[W + 2]; returns its sign (1: negative). */
static int acc_limbs(const int64_t *a, int W, uint32_t *limbs /* W + 2 */)
{
    for (int c = 0; c < W - 1; c++)
        limbs[c] = (uint32_t)a[c];
    const uint64_t top = (uint64_t)a[W - 1];
    limbs[W - 1] = (uint32_t)top;
    limbs[W] = (uint32_t)(top >> 32);
    const int neg = a[W - 1] < 0;
    limbs[W + 1] = neg ? 0xFFFFFFFFu : 0u;
    if (neg) { /* two's complement: invert and add one */
        uint32_t carry = 1;
        for (int c = 0; c < W + 2; c++) {
            const uint32_t v = ~limbs[c] + carry;
            carry = carry && v == 0;
            limbs[c] = v;
        }
    }
    return neg;
}

raid_status raidGbCpuRun(raid_ctx *ctx, const gb_plan *p, gb_partial *out)
{
    const size_t G = p->ngroups, n = p->n;
    /* W chunks: the pieces reach chunk pspan/32 + 2, and the sum of fewer than 2^64 values needs pspan + 117
     * bits, which the top chunk's int64 holds from 32 (W - 1) up (the device's limb count, gb_cl_limbs) */
    const int W = gb_cl_limbs(p);
    const size_t stride = W + 1 <= 8 ? 8 : (size_t)W + 1;
    int T = n < 200000 ? 1 : omp_get_max_threads();
    if ((size_t)T > n / 100000 + 1)
        T = (int)(n / 100000 + 1);
    int shift = 32; /* groups per bucket 2^shift: the largest with 2^shift table rows in CACHE_TABLE_BYTES */
    if (G * stride * sizeof(int64_t) > 2 * CACHE_TABLE_BYTES) {
        shift = 0;
        while (((size_t)2 << shift) * stride * sizeof(int64_t) <= CACHE_TABLE_BYTES)
            shift++;
    }
    const int ntabs = T;
    gb_tab *tabs = calloc((size_t)ntabs, sizeof *tabs);
    if (!tabs)
        return raidFail(ctx, RAID_ENOMEM, "out of memory (group-by tables)");
    int oom = 0;
#pragma omp parallel num_threads(T) reduction(| : oom)
    {
        const int t = omp_get_thread_num(), nt = omp_get_num_threads();
        if (!tab_alloc(&tabs[t], G, stride, p->need) ||
            !accumulate(p, W, stride, n * (size_t)t / (size_t)nt, n * (size_t)(t + 1) / (size_t)nt, shift, &tabs[t]))
            oom = 1;
    }
    if (oom) {
        for (int t = 0; t < ntabs; t++)
            tab_free(&tabs[t]);
        free(tabs);
        return raidFail(ctx, RAID_ENOMEM, "out of memory (group-by tables: %zu groups x %d chunks x %d threads)",
                         G, W, ntabs);
    }
    /* merge the row split's tables in thread order (every operation exact and commutative) */
    gb_tab *t0 = &tabs[0];
    for (int t = 1; t < ntabs; t++) {
        const gb_tab *u = &tabs[t];
        if (!u->acc)
            continue; /* a thread the runtime did not start */
#pragma omp parallel for schedule(static) if (G > 10000)
        for (size_t g = 0; g < G; g++) {
            int64_t *a = t0->acc + g * stride;
            const int64_t *b = u->acc + g * stride;
            a[W] = ((a[W] >> 5) + (b[W] >> 5)) << 5 | ((a[W] | b[W]) & 31);
            if (p->need & GB_NEED_SUM)
                for (int c = 0; c < W; c++)
                    a[c] += b[c];
            if (p->need & GB_NEED_MINMAX) {
                t0->min[g] = u->min[g] < t0->min[g] ? u->min[g] : t0->min[g];
                t0->max[g] = u->max[g] > t0->max[g] ? u->max[g] : t0->max[g];
            }
            if (p->need & GB_NEED_FIRSTLAST) {
                if (t0->first[g] < 0)
                    t0->first[g] = u->first[g];
                if (u->last[g] >= 0)
                    t0->last[g] = u->last[g];
            }
        }
    }
    int oom2 = 0;
#pragma omp parallel reduction(| : oom2) if (G > 10000)
    {
        uint32_t *limbs = malloc(((size_t)W + 2) * sizeof *limbs);
        if (!limbs)
            oom2 = 1;
#pragma omp for schedule(static)
        for (size_t g = 0; g < G; g++) {
            int64_t *a = t0->acc + g * stride;
            out->count[g] = a[W] >> 5;
            out->flags[g] = (uint32_t)(a[W] & 31);
            if ((p->need & GB_NEED_SUM) && limbs) {
                normalise(a, W);
                const int neg = acc_limbs(a, W, limbs);
                const double fin = raidGbRoundLimbs(limbs, W + 2, neg, p->base);
                out->sum[g] = raidGbSumFinish(fin, out->flags[g], out->count[g]);
                if (out->mean) /* from the exact sum, which may lie beyond the largest double */
                    out->mean[g] = raidGbMeanFinish(out->count[g] > 0 ? raidGbMeanLimbs(limbs, W + 2, neg, p->base,
                                                                                   (uint64_t)out->count[g])
                                                                    : NAN,
                                                  fin == 0.0, out->flags[g], out->count[g]);
                if (out->sfrac)
                    out->sfrac[g] = raidGbRoundLimbsScaled(limbs, W + 2, p->base, &out->sexp[g]) * (neg ? -1.0 : 1.0);
            }
            if (p->need & GB_NEED_MINMAX) {
                out->min[g] = t0->min[g];
                out->max[g] = t0->max[g];
            }
            if (p->need & GB_NEED_FIRSTLAST) {
                out->first[g] = t0->first[g];
                out->last[g] = t0->last[g];
            }
        }
        free(limbs);
    }
    for (int t = 0; t < ntabs; t++)
        tab_free(&tabs[t]);
    free(tabs);
    if (oom2)
        return raidFail(ctx, RAID_ENOMEM, "out of memory (group-by rounding)");
    return RAID_OK;
}
