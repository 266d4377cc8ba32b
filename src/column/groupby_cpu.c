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

#include <omp.h>
#include <stdlib.h>
#include <string.h>

#define BLOCK_ROWS 2147483647u /* rows added to int64 chunks between normalisations */

typedef struct gb_tab {
    int64_t *acc; /* G x W chunks */
    int64_t *count, *first, *last;
    uint32_t *flags;
    uint64_t *min, *max;
} gb_tab;

static void tab_free(gb_tab *t)
{
    free(t->acc), free(t->count), free(t->first), free(t->last), free(t->flags), free(t->min), free(t->max);
}

static int tab_alloc(gb_tab *t, size_t G, int W, unsigned need)
{
    memset(t, 0, sizeof *t);
    t->count = calloc(G, sizeof *t->count);
    t->flags = calloc(G, sizeof *t->flags);
    int ok = t->count && t->flags;
    if (need & GB_NEED_SUM)
        ok = ok && (t->acc = calloc(G * (size_t)W, sizeof *t->acc));
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

/* Rows [lo, hi) into t. */
static void accumulate(const gb_plan *p, int W, size_t lo, size_t hi, gb_tab *t)
{
    const uint32_t *gid = p->gid;
    const double *x = p->x;
    const unsigned need = p->need;
    const int base = p->base;
    for (size_t b0 = lo; b0 < hi; b0 += BLOCK_ROWS) {
        const size_t b1 = hi - b0 > BLOCK_ROWS ? b0 + BLOCK_ROWS : hi;
        for (size_t i = b0; i < b1; i++) {
            const uint32_t g = gid[i];
            if (g == GB_NONE)
                continue;
            t->count[g]++;
            if (!need)
                continue;
            uint64_t b;
            memcpy(&b, &x[i], sizeof b);
            const unsigned E = (unsigned)(b >> 52) & 0x7FFu;
            if (E == 0x7FFu) {
                if (b & 0xFFFFFFFFFFFFFull) { /* NaN: counted, flagged, no order key */
                    t->flags[g] |= GB_F_NAN;
                    if (need & GB_NEED_FIRSTLAST) {
                        if (t->first[g] < 0)
                            t->first[g] = (int64_t)i;
                        t->last[g] = (int64_t)i;
                    }
                    continue;
                }
                t->flags[g] |= (b >> 63) ? GB_F_NINF : GB_F_PINF;
            } else {
                uint64_t m = b & 0xFFFFFFFFFFFFFull;
                if (b != 0x8000000000000000ull)
                    t->flags[g] |= GB_F_NZ;
                if ((need & GB_NEED_SUM) && (m | E)) {
                    int q;
                    if (E) {
                        m |= 1ull << 52;
                        q = (int)E - 1 - base;
                    } else {
                        q = -base;
                    }
                    const int s = q & 31;
                    int64_t *a = t->acc + (size_t)g * (size_t)W + (q >> 5);
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
        if (need & GB_NEED_SUM)
            for (size_t g = 0; g < p->ngroups; g++)
                normalise(t->acc + g * (size_t)W, W);
    }
}

/* The float64 sum of a normalised accumulator (chunks below the top in [0, 2^32), the top signed). */
static double round_acc(const int64_t *a, int W, int base, uint32_t *limbs /* W + 2 */)
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
    return gb_round_limbs(limbs, W + 2, neg, base);
}

raid_status gb_cpu_run(raid_ctx *ctx, const gb_plan *p, gb_partial *out)
{
    const size_t G = p->ngroups, n = p->n;
    const int W = p->pspan < 0 ? 1 : ((p->pspan + 118) >> 5) + 1;
    int T = n < 200000 ? 1 : omp_get_max_threads();
    if ((size_t)T > n / 100000 + 1)
        T = (int)(n / 100000 + 1);
    gb_tab *tabs = calloc((size_t)T, sizeof *tabs);
    if (!tabs)
        return raid_fail(ctx, RAID_ENOMEM, "out of memory (group-by tables)");
    int oom = 0;
#pragma omp parallel num_threads(T) reduction(| : oom)
    {
        const int t = omp_get_thread_num(), nt = omp_get_num_threads();
        if (!tab_alloc(&tabs[t], G, W, p->need))
            oom = 1;
        else
            accumulate(p, W, n * (size_t)t / (size_t)nt, n * (size_t)(t + 1) / (size_t)nt, &tabs[t]);
    }
    if (oom) {
        for (int t = 0; t < T; t++)
            tab_free(&tabs[t]);
        free(tabs);
        return raid_fail(ctx, RAID_ENOMEM, "out of memory (group-by tables: %zu groups x %d chunks x %d threads)",
                         G, W, T);
    }
    /* merge in thread order (every operation exact and commutative) */
    gb_tab *t0 = &tabs[0];
    for (int t = 1; t < T; t++) {
        const gb_tab *u = &tabs[t];
        if (!u->count)
            continue; /* a thread the runtime did not start */
#pragma omp parallel for schedule(static) if (G > 10000)
        for (size_t g = 0; g < G; g++) {
            t0->count[g] += u->count[g];
            t0->flags[g] |= u->flags[g];
            if (p->need & GB_NEED_SUM)
                for (int c = 0; c < W; c++)
                    t0->acc[g * (size_t)W + c] += u->acc[g * (size_t)W + c];
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
            out->count[g] = t0->count[g];
            out->flags[g] = t0->flags[g];
            if (p->need & GB_NEED_SUM) {
                double fin = 0.0;
                if (limbs) {
                    int64_t *a = t0->acc + g * (size_t)W;
                    normalise(a, W);
                    fin = round_acc(a, W, p->base, limbs);
                }
                out->sum[g] = gb_sum_finish(fin, t0->flags[g], t0->count[g]);
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
    for (int t = 0; t < T; t++)
        tab_free(&tabs[t]);
    free(tabs);
    if (oom2)
        return raid_fail(ctx, RAID_ENOMEM, "out of memory (group-by rounding)");
    return RAID_OK;
}
