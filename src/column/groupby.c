/* Group-by with exact sums, the public side (include/raid/groupby.h, docs/groupby.md): arguments, the
 * cpu path's dense group ids (a direct table when the keys span a small range, else an open-addressing
 * hash of the keys; ids in ascending key order; the device forms its own: groupby_device.c), the plan (null
 * rows, the exponent range of the values), the one dispatch between the cpu path (groupby_cpu.c) and the
 * device path (groupby_device.c), the rounding of exact sums and the result's columns. */
#include "column/groupby_internal.h"

#include "device/launch.h"
#include "column/keys.h"

#include <assert.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define KEYED_MAX_ROWS ((uint64_t)1 << 20) /* the cpu path's tables indexed by key: keys spanning fewer values */

struct raid_groupby {
    size_t ngroups, naggs;
    int64_t *keys, *counts;
    int *aggs;
    double *cols; /* naggs x ngroups */
    double *fkeys;  /* raid_groupby_compute_f64: the groups' float64 keys (else NULL) */
    double *sfrac;  /* GB_SCALED: the sums' scaled form (gb_partial), else NULL */
    int32_t *sexp;
    int null_group; /* raid_groupby_compute_f64: the last group is the null keys' */
};

static const char *const agg_names[RAID_AGG_NAGGS] = {"count", "sum", "mean", "min", "max", "first", "last"};

raid_status raid_agg_parse(const char *name, raid_agg *out)
{
    int k = 0;
    if (!out)
        return raidFail(NULL, RAID_EINVAL, "raid_agg_parse: NULL");
    raid_status st = raidParseWord(agg_names, RAID_AGG_NAGGS, name, &k, "aggregation",
                                     "count, sum, mean, min, max, first or last");
    if (st == RAID_OK)
        *out = (raid_agg)k;
    return st;
}

const char *raid_agg_name(raid_agg a) { return (unsigned)a < RAID_AGG_NAGGS ? agg_names[a] : "?"; }

/* ---- exact sums to float64 ---------------------------------------------------------------------- */

/* k <= 64 bits of M from bit pos >= 0 up (bits beyond the limbs are 0). */
static uint64_t limb_bits(const uint32_t *limbs, int L, int pos, int k)
{
    const int i = pos >> 5, s = pos & 31;
    const uint64_t lo = (i < L ? limbs[i] : 0u) | (uint64_t)(i + 1 < L ? limbs[i + 1] : 0u) << 32;
    const uint64_t hi = i + 2 < L ? limbs[i + 2] : 0u;
    const uint64_t r = s ? (lo >> s) | (hi << (64 - s)) : lo;
    return k >= 64 ? r : r & ((1ull << k) - 1u);
}

/* The bit length of M = sum limbs[i] 2^(32 i), i < L (0 for M = 0). */
static int limbs_len(const uint32_t *limbs, int L)
{
    int t = L - 1;
    while (t >= 0 && limbs[t] == 0)
        t--;
    return t < 0 ? 0 : 32 * t + (32 - __builtin_clz(limbs[t]));
}

/* M (len bits) with its bits below bit q dropped and rounded to nearest, ties to even, the dropped part
 * being bits 0 .. q-1 of M and, when sticky is set, a non-zero fraction below bit 0. q >= 1, or q <= 0
 * with sticky 0 (nothing is dropped: M itself). len - q <= 53, so the result is at most 2^53. */
static uint64_t round_at(const uint32_t *limbs, int L, int len, int q, int sticky)
{
    if (q <= 0)
        return limb_bits(limbs, L, 0, len);
    const uint64_t mant = len > q ? limb_bits(limbs, L, q, len - q) : 0;
    const int half = (int)limb_bits(limbs, L, q - 1, 1);
    for (int i = 0; i <= (q - 2) >> 5 && !sticky && q > 1; i++) { /* bits 0 .. q-2 */
        const int top = q - 1 - 32 * i; /* bits of limb i below the half bit: 32, or fewer in its limb */
        const uint32_t w = i < L ? limbs[i] : 0u;
        sticky = (top >= 32 ? w : w & ((1u << top) - 1u)) != 0;
    }
    return mant + (uint64_t)(half && (sticky || (mant & 1u)));
}

double raidGbRoundLimbs(const uint32_t *limbs, int L, int neg, int base)
{
    const int len = limbs_len(limbs, L);
    if (len == 0)
        return 0.0;
    /* the 53 bits below the leading one; M 2^(base - 1074) with base >= 0 is never below the subnormals' last
     * bit, so a shorter M is exact (subnormal when small), and ldexp of the rounded 53 bits is exact or
     * overflows to +inf past the largest double */
    const int q = len - 53;
    const double r = ldexp((double)round_at(limbs, L, len, q, 0), (q > 0 ? q : 0) + base - 1074);
    return neg ? -r : r;
}

double raidGbRoundLimbsScaled(const uint32_t *limbs, int L, int base, int *e)
{
    const int len = limbs_len(limbs, L);
    *e = 0;
    if (len == 0)
        return 0.0;
    const int q = len - 53;
    uint64_t m = round_at(limbs, L, len, q, 0); /* 53 bits (at most 2^53 after rounding up), or M itself */
    if (q < 0)
        m <<= -q; /* M below 2^52: to 53 bits */
    *e = q + base - 1074 + 53;
    return (double)m * 0x1p-53; /* exact: 2^52 <= m <= 2^53 */
}

double raidGbMeanLimbs(const uint32_t *limbs, int L, int neg, int base, uint64_t count)
{
    /* Q = floor(M 2^128 / count) and the remainder's sticky bit: M >= 1 and count < 2^64 give Q >= 2^64,
     * so the rounding position (at least 11 bits above bit 0 of Q) is above the remainder, and the
     * quotient's 128 extra bits reach below the subnormals' last bit whatever base is */
    enum { XL = 4 };
    uint32_t q[GB_MAX_LIMBS + XL];
    assert(L <= GB_MAX_LIMBS && count > 0);
    unsigned __int128 rem = 0;
    for (int i = L + XL - 1; i >= 0; i--) {
        const unsigned __int128 cur = rem << 32 | (i >= XL ? limbs[i - XL] : 0u);
        q[i] = (uint32_t)(cur / count);
        rem = cur % count;
    }
    const int len = limbs_len(q, L + XL);
    if (len == 0)
        return neg ? -0.0 : 0.0;
    const int e = base - 1074 - 32 * XL;   /* Q's unit: 2^e */
    int at = len - 53;                     /* the lowest bit kept: 53 bits, */
    if (at < -1074 - e)                    /* or fewer below the normal range (the subnormals' last bit) */
        at = -1074 - e;
    const double r = ldexp((double)round_at(q, L + XL, len, at, rem != 0), at + e); /* exact: at + e >= -1074 */
    return neg ? -r : r;
}

double raidGbMeanFinish(double m, int zero, uint32_t flags, int64_t count)
{
    if (count <= 0)
        return NAN;
    if (zero || (flags & (GB_F_NAN | GB_F_PINF | GB_F_NINF))) /* the sum's special value or signed zero, / count */
        return raidGbSumFinish(0.0, flags, count);
    return m; /* a non-zero sum's mean, +-0.0 where it underflows (IEEE's sign) */
}

double raidGbSumFinish(double fin, uint32_t flags, int64_t count)
{
    if ((flags & GB_F_NAN) || ((flags & GB_F_PINF) && (flags & GB_F_NINF)))
        return NAN;
    if (flags & GB_F_PINF)
        return INFINITY;
    if (flags & GB_F_NINF)
        return -INFINITY;
    if (fin != 0.0)
        return fin;
    return count > 0 && !(flags & GB_F_NZ) ? -0.0 : 0.0;
}

/* ---- group ids ---------------------------------------------------------------------------------- */

typedef struct key_id {
    int64_t key;
    uint32_t id;
} key_id;

static int cmp_key_id(const void *a, const void *b)
{
    const int64_t x = ((const key_id *)a)->key, y = ((const key_id *)b)->key;
    return (x > y) - (x < y);
}

/* Whether row i is null: valid[i] == 0, or a NaN value under skipna. */
static inline int null_row(const double *x, const uint8_t *valid, int skipna, size_t i)
{
    return (valid && !valid[i]) || (skipna && x && x[i] != x[i]);
}

/* One pass over the rows: the keys' range and the range of p (groupby_internal.h) of the finite non-zero
 * values (pmin 4096, pmax -1 when none). Null rows are included: a wider range only costs limbs, never
 * exactness, and keeps the loop free of branches (vectorised). */
static void scan(const int64_t *keys, const double *x, size_t n, int64_t *kmin_, int64_t *kmax_, int *pmin_,
                 int *pmax_)
{
    int64_t kmin = keys[0], kmax = keys[0];
    int pmin = 4096, pmax = -1;
    if (x) {
#pragma omp parallel for simd schedule(static) reduction(min : kmin, pmin) reduction(max : kmax, pmax) if (n > 100000)
        for (size_t i = 0; i < n; i++) {
            kmin = keys[i] < kmin ? keys[i] : kmin;
            kmax = keys[i] > kmax ? keys[i] : kmax;
            uint64_t b;
            memcpy(&b, &x[i], sizeof b);
            const int E = (int)((b >> 52) & 0x7FF);
            const int none = E == 0x7FF || (b << 1) == 0, p = E ? E - 1 : 0;
            const int lo = none ? 4096 : p, hi = none ? -1 : p;
            pmin = lo < pmin ? lo : pmin;
            pmax = hi > pmax ? hi : pmax;
        }
    } else {
#pragma omp parallel for simd schedule(static) reduction(min : kmin) reduction(max : kmax) if (n > 100000)
        for (size_t i = 0; i < n; i++) {
            kmin = keys[i] < kmin ? keys[i] : kmin;
            kmax = keys[i] > kmax ? keys[i] : kmax;
        }
    }
    *kmin_ = kmin, *kmax_ = kmax, *pmin_ = pmin, *pmax_ = pmax;
}

/* Dense ids in ascending key order into gid[n] (GB_NONE for a null row: its key still forms a group); the
 * sorted distinct keys into *ukeys (malloc'd), their number into *G. kmin, kmax: the keys' range. */
static raid_status form_groups(raid_ctx *ctx, const int64_t *keys, const double *x, const uint8_t *valid, int skipna,
                               size_t n, int64_t kmin, int64_t kmax, uint32_t *gid, int64_t **ukeys, size_t *G)
{
    const uint64_t range = (uint64_t)kmax - (uint64_t)kmin;
    const uint64_t direct_cap = n < (1u << 15) ? (1u << 16) : 2 * (uint64_t)n;
    if (range < direct_cap && range < (1ull << 31)) { /* a direct table over [kmin, kmax] */
        const size_t R = (size_t)range + 1;
        uint32_t *id = calloc(R, sizeof *id);
        if (!id)
            return raidFail(ctx, RAID_ENOMEM, "out of memory (group ids of %zu keys)", n);
#pragma omp parallel for schedule(static) if (n > 100000)
        for (size_t i = 0; i < n; i++) {
#pragma omp atomic write
            id[(uint64_t)keys[i] - (uint64_t)kmin] = 1u;
        }
        size_t g = 0;
        for (size_t r = 0; r < R; r++)
            if (id[r])
                id[r] = (uint32_t)g++;
            else
                id[r] = GB_NONE;
        int64_t *uk = malloc(g * sizeof *uk);
        if (!uk) {
            free(id);
            return raidFail(ctx, RAID_ENOMEM, "out of memory (group ids of %zu keys)", n);
        }
        for (size_t r = 0; r < R; r++)
            if (id[r] != GB_NONE)
                uk[id[r]] = (int64_t)((uint64_t)kmin + r);
#pragma omp parallel for schedule(static) if (n > 100000)
        for (size_t i = 0; i < n; i++)
            gid[i] = null_row(x, valid, skipna, i) ? GB_NONE : id[(uint64_t)keys[i] - (uint64_t)kmin];
        free(id);
        *ukeys = uk;
        *G = g;
        return RAID_OK;
    }
    /* open addressing (linear probing, load <= 1/2), ids in order of first appearance, then ranked. The
     * hash is keyed by a seed of this call (the table's address and the clock): keys crafted to collide
     * under a fixed multiplier (one slot for all: quadratic time) do not collide under it. The result
     * does not depend on the seed (the groups are ranked by key). */
    size_t cap = 1024, cnt = 0;
    int shift = 64 - 10;
    key_id *tab = malloc(cap * sizeof *tab), *uk = NULL;
    if (!tab)
        return raidFail(ctx, RAID_ENOMEM, "out of memory (hash of %zu keys)", n);
    const uint64_t seed = raidMix64((uint64_t)(uintptr_t)tab ^ (uint64_t)(raidNow() * 1e9));
    for (size_t s = 0; s < cap; s++)
        tab[s].id = GB_NONE;
    for (size_t i = 0; i < n; i++) {
        const int64_t k = keys[i];
        size_t s = (size_t)(raidMix64((uint64_t)k ^ seed) >> shift);
        while (tab[s].id != GB_NONE && tab[s].key != k)
            s = (s + 1) & (cap - 1);
        if (tab[s].id == GB_NONE) {
            if (cnt >= GB_NONE - 1) {
                free(tab);
                return raidFail(ctx, RAID_EUNSUPPORTED, "raid_groupby_compute: more than %u groups", GB_NONE - 1);
            }
            tab[s].key = k;
            tab[s].id = (uint32_t)cnt++;
            if (2 * cnt > cap) { /* grow and reinsert */
                const size_t ncap = 2 * cap;
                key_id *nt = malloc(ncap * sizeof *nt);
                if (!nt) {
                    free(tab);
                    return raidFail(ctx, RAID_ENOMEM, "out of memory (hash of %zu keys)", n);
                }
                for (size_t q = 0; q < ncap; q++)
                    nt[q].id = GB_NONE;
                shift--;
                for (size_t q = 0; q < cap; q++)
                    if (tab[q].id != GB_NONE) {
                        size_t u = (size_t)(raidMix64((uint64_t)tab[q].key ^ seed) >> shift);
                        while (nt[u].id != GB_NONE)
                            u = (u + 1) & (ncap - 1);
                        nt[u] = tab[q];
                    }
                free(tab);
                tab = nt;
                cap = ncap;
                s = (size_t)(raidMix64((uint64_t)k ^ seed) >> shift);
                while (tab[s].key != k || tab[s].id == GB_NONE)
                    s = (s + 1) & (cap - 1);
            }
        }
        gid[i] = tab[s].id;
    }
    uk = malloc((cnt ? cnt : 1) * sizeof *uk);
    uint32_t *rank = malloc((cnt ? cnt : 1) * sizeof *rank);
    int64_t *sorted = malloc((cnt ? cnt : 1) * sizeof *sorted);
    if (!uk || !rank || !sorted) {
        free(tab), free(uk), free(rank), free(sorted);
        return raidFail(ctx, RAID_ENOMEM, "out of memory (hash of %zu keys)", n);
    }
    size_t u = 0;
    for (size_t s = 0; s < cap; s++)
        if (tab[s].id != GB_NONE)
            uk[u++] = tab[s];
    free(tab);
    qsort(uk, cnt, sizeof *uk, cmp_key_id);
    for (size_t j = 0; j < cnt; j++) {
        rank[uk[j].id] = (uint32_t)j;
        sorted[j] = uk[j].key;
    }
    free(uk);
#pragma omp parallel for schedule(static) if (n > 100000)
    for (size_t i = 0; i < n; i++)
        gid[i] = null_row(x, valid, skipna, i) ? GB_NONE : rank[gid[i]];
    free(rank);
    *ukeys = sorted;
    *G = cnt;
    return RAID_OK;
}

/* ---- the call ----------------------------------------------------------------------------------- */

void raid_groupby_destroy(raid_groupby *g)
{
    if (!g)
        return;
    free(g->keys), free(g->counts), free(g->aggs), free(g->cols), free(g->fkeys), free(g->sfrac), free(g->sexp);
    free(g);
}

static void partial_free(gb_partial *p)
{
    free(p->count), free(p->flags), free(p->sum), free(p->mean), free(p->sfrac), free(p->sexp), free(p->min);
    free(p->max), free(p->first), free(p->last);
}

raid_status raidGbPartialAlloc(raid_ctx *ctx, gb_partial *part, size_t G, unsigned need)
{
    const size_t Gs = G ? G : 1;
    part->count = malloc(Gs * sizeof *part->count);
    part->flags = malloc(Gs * sizeof *part->flags);
    int oom = !part->count || !part->flags;
    if (need & GB_NEED_SUM)
        oom |= !(part->sum = malloc(Gs * sizeof *part->sum));
    if (need & GB_NEED_MEAN)
        oom |= !(part->mean = malloc(Gs * sizeof *part->mean));
    if (need & GB_NEED_SCALED) {
        oom |= !(part->sfrac = malloc(Gs * sizeof *part->sfrac));
        oom |= !(part->sexp = malloc(Gs * sizeof *part->sexp));
    }
    if (need & GB_NEED_MINMAX) {
        oom |= !(part->min = malloc(Gs * sizeof *part->min));
        oom |= !(part->max = malloc(Gs * sizeof *part->max));
    }
    if (need & GB_NEED_FIRSTLAST) {
        oom |= !(part->first = malloc(Gs * sizeof *part->first));
        oom |= !(part->last = malloc(Gs * sizeof *part->last));
    }
    return oom ? raidFail(ctx, RAID_ENOMEM, "out of memory (partials of %zu groups)", G) : RAID_OK;
}

/* The cpu path's groups (gb_backends): dense ids from the keys (indexed by key - kmin where the keys span a
 * small range, the groups the keys seen), the partials by raidGbCpuRun, the keys in ascending order. */
static raid_status cpu_groups(raid_ctx *ctx, const gb_plan *dp, size_t rows_per_wg, int local_tables, int64_t **ukeys,
                              size_t *ngroups, gb_partial *part)
{
    (void)rows_per_wg, (void)local_tables; /* the device's knobs */
    const size_t n = dp->n;
    const int64_t *keys = dp->keys;
    const double *values = dp->x;
    const uint8_t *valid = dp->valid;
    const int skipna = dp->skipna, mean = dp->mean, scaled = dp->scaled;
    const unsigned need = dp->need;
    raid_status st = RAID_OK;
    uint32_t *gid = NULL;
    size_t G;
    int64_t kmin, kmax;
    int pmin, pmax;
    scan(keys, need ? values : NULL, n, &kmin, &kmax, &pmin, &pmax);
    /* The cpu path indexes its tables by key - kmin where the keys span a small range (the groups are
     * the keys seen, found after the pass); else rows get dense group ids first. */
    const uint64_t range = (uint64_t)kmax - (uint64_t)kmin;
    const int keyed = range < KEYED_MAX_ROWS && range <= 2 * (uint64_t)n + 65536;
    if (keyed) {
        *ngroups = (size_t)range + 1;
    } else {
        if (!(gid = malloc(n * sizeof *gid))) {
            st = raidFail(ctx, RAID_ENOMEM, "out of memory (group-by of %zu rows)", n);
            goto done;
        }
        if ((st = form_groups(ctx, keys, values, valid, skipna, n, kmin, kmax, gid, ukeys, ngroups)) != RAID_OK)
            goto done;
    }
    G = *ngroups;
    gb_plan plan = {.n = n, .ngroups = G, .gid = gid, .keys = keys, .kmin = kmin, .valid = valid, .skipna = skipna,
                    .x = values, .need = need, .base = 0, .pspan = -1, .mean = mean, .scaled = scaled};
    if (pmax >= 0) {
        plan.base = 32 * (pmin >> 5);
        plan.pspan = pmax - plan.base;
    }
    if ((st = raidGbPartialAlloc(ctx, part, G, gb_partials(&plan))) != RAID_OK)
        goto done;
    if (keyed && !(*ukeys = malloc(G * sizeof **ukeys))) {
        st = raidFail(ctx, RAID_ENOMEM, "out of memory (group-by of %zu rows into %zu groups)", n, G);
        goto done;
    }
    if ((st = raidGbCpuRun(ctx, &plan, part)) != RAID_OK)
        goto done;
    if (keyed) { /* the keys seen, in order: compact the partials */
        size_t j = 0;
        for (size_t r = 0; r < G; r++) {
            if (!(part->flags[r] & GB_F_PRESENT))
                continue;
            (*ukeys)[j] = (int64_t)((uint64_t)kmin + r);
            part->count[j] = part->count[r];
            part->flags[j] = part->flags[r] & ~GB_F_PRESENT;
            if (part->sum)
                part->sum[j] = part->sum[r];
            if (part->mean)
                part->mean[j] = part->mean[r];
            if (part->sfrac)
                part->sfrac[j] = part->sfrac[r], part->sexp[j] = part->sexp[r];
            if (part->min)
                part->min[j] = part->min[r], part->max[j] = part->max[r];
            if (part->first)
                part->first[j] = part->first[r], part->last[j] = part->last[r];
            j++;
        }
        *ngroups = j;
    }
done:
    free(gid);
    return st;
}

/* The first and last values of the G groups (part.first, part.last: row indices, -1 for none) from values
 * in device memory: gathered on the device (raidGather64) into *firstv and *lastv (malloc'd, G each; a
 * group without one gets row 0's value, never used). */
static raid_status gather_ends(raid_ctx *ctx, const double *values, size_t n, const gb_partial *part, size_t G,
                               double **firstv, double **lastv)
{
    uint32_t *idx = malloc((G ? 2 * G : 1) * sizeof *idx);
    double *got = malloc((G ? 2 * G : 1) * sizeof *got);
    RaidBuf w = {NULL, 0, RAID_DT_UINT};
    raid_status st = idx && got ? RAID_OK : raidFail(ctx, RAID_ENOMEM, "out of memory (group-by of %zu rows)", n);
    for (size_t k = 0; st == RAID_OK && k < G; k++) {
        idx[k] = part->first[k] >= 0 ? (uint32_t)part->first[k] : 0u;
        idx[G + k] = part->last[k] >= 0 ? (uint32_t)part->last[k] : 0u;
    }
    if (st == RAID_OK && (st = raidBufWrap(ctx, values, RAID_DT_UINT, 2 * n, &w)) == RAID_OK)
        st = raidGather64(ctx, &w, idx, 2 * G, got);
    raidBufRelease(ctx, &w);
    free(idx);
    if (st != RAID_OK) {
        free(got);
        return st;
    }
    *firstv = got;
    if (!(*lastv = malloc((G ? G : 1) * sizeof **lastv))) {
        free(got);
        *firstv = NULL;
        return raidFail(ctx, RAID_ENOMEM, "out of memory (group-by of %zu rows)", n);
    }
    memcpy(*lastv, got + G, G * sizeof **lastv);
    return RAID_OK;
}

/* The device path's groups (gb_backends): ids, keys and partials on the device (groupby_device.c). */
static raid_status device_groups(raid_ctx *ctx, const gb_plan *dp, size_t rows_per_wg, int local_tables,
                                 int64_t **ukeys, size_t *ngroups, gb_partial *part)
{
    return raidGbDeviceRun(ctx, dp, ukeys, ngroups, part, rows_per_wg, local_tables);
}

static raid_status cpu_admit(raid_ctx *ctx, size_t n)
{
    (void)ctx, (void)n;
    return RAID_OK;
}

/* The device takes fewer than 2^32 rows (32-bit ids); its timing starts here. */
static raid_status device_admit(raid_ctx *ctx, size_t n)
{
    if (n >= GB_NONE)
        return raidFail(ctx, RAID_EUNSUPPORTED, "raid_groupby_compute on a device: %zu rows (fewer than 2^32)", n);
    memset(&ctx->timing, 0, sizeof ctx->timing);
    return RAID_OK;
}

/* The backends of raid_groupby_compute, chosen by RAID_BACKEND(gb_backends, ctx): admit (a refusal before
 * anything is allocated), then groups (ukeys malloc'd, ascending; the partials raidGbPartialAlloc'd). */
typedef struct gb_backend {
    raid_status (*admit)(raid_ctx *ctx, size_t n);
    raid_status (*groups)(raid_ctx *ctx, const gb_plan *dp, size_t rows_per_wg, int local_tables, int64_t **ukeys,
                          size_t *ngroups, gb_partial *part);
} gb_backend;
static const gb_backend gb_backends[2] = {
    [RAID_ON_CPU] = {cpu_admit, cpu_groups},
    [RAID_ON_DEVICE] = {device_admit, device_groups},
};

raid_status raidGbCompute(raid_ctx *ctx, const int64_t *keys, const double *values, const uint8_t *valid, size_t n,
                       const raid_agg *aggs, size_t naggs, unsigned flags, size_t rows_per_wg, int local_tables,
                       raid_groupby **out)
{
    if (out)
        *out = NULL;
    if (!out || !aggs || (n && !keys))
        return raidFail(ctx, RAID_EINVAL, "raid_groupby_compute: NULL argument");
    if (naggs < 1 || naggs > RAID_GROUPBY_MAX_AGGS)
        return raidFail(ctx, RAID_EINVAL, "raid_groupby_compute: %zu aggregations (1 to %d)", naggs,
                         RAID_GROUPBY_MAX_AGGS);
    if (flags & ~(unsigned)(RAID_GROUPBY_SKIPNA | GB_SCALED))
        return raidFail(ctx, RAID_EINVAL, "raid_groupby_compute: unknown flags 0x%x", flags);
    unsigned need = 0;
    int counts = 0; /* the groups' counts are part of the result (count, mean) */
    int mean = 0;
    for (size_t j = 0; j < naggs; j++) {
        if ((unsigned)aggs[j] >= RAID_AGG_NAGGS)
            return raidFail(ctx, RAID_EINVAL, "raid_groupby_compute: aggregation %zu is %d (0 to %d)", j,
                             (int)aggs[j], RAID_AGG_NAGGS - 1);
        need |= aggs[j] == RAID_AGG_SUM || aggs[j] == RAID_AGG_MEAN               ? GB_NEED_SUM
                : aggs[j] == RAID_AGG_MIN || aggs[j] == RAID_AGG_MAX              ? GB_NEED_MINMAX
                : aggs[j] == RAID_AGG_FIRST || aggs[j] == RAID_AGG_LAST           ? GB_NEED_FIRSTLAST
                                                                                  : 0u;
        counts |= aggs[j] == RAID_AGG_COUNT || aggs[j] == RAID_AGG_MEAN;
        mean |= aggs[j] == RAID_AGG_MEAN;
    }
    const int scaled = (flags & GB_SCALED) && (need & GB_NEED_SUM);
    if (n && need && !values)
        return raidFail(ctx, RAID_EINVAL, "raid_groupby_compute: values NULL (needed by an aggregation other than count)");
    /* keys and values in CUDA device memory: read in place on a CUDA context of their device (the device
     * path), refused elsewhere; the validity bytes are host memory */
    RaidMemKind kk = RAID_MEM_HOST, kx = RAID_MEM_HOST, kv = RAID_MEM_HOST;
    raid_status mem = n ? raidMemKindOf(ctx, keys, n * 8, 8, "raid_groupby_compute: keys", &kk) : RAID_OK;
    if (mem == RAID_OK && n && values)
        mem = raidMemKindOf(ctx, values, n * 8, 8, "raid_groupby_compute: values", &kx);
    if (mem == RAID_OK && n && valid)
        mem = raidMemKindOf(ctx, valid, n, 1, "raid_groupby_compute: valid", &kv);
    if (mem != RAID_OK)
        return mem;
    if (kv == RAID_MEM_DEVICE)
        return raidFail(ctx, RAID_EINVAL, "raid_groupby_compute: valid is device memory, and it takes host memory "
                                          "(docs/device.md \"The caller's device memory\")");
    const raid_status adm = RAID_BACKEND(gb_backends, ctx)->admit(ctx, n);
    if (adm != RAID_OK)
        return adm;

    raid_status st = RAID_OK;
    raid_groupby *g = calloc(1, sizeof *g);
    gb_partial part = {0};
    if (!g) {
        st = raidFail(ctx, RAID_ENOMEM, "out of memory (group-by of %zu rows)", n);
        goto fail;
    }
    g->naggs = naggs;
    if (!(g->aggs = malloc(naggs * sizeof *g->aggs))) {
        st = raidFail(ctx, RAID_ENOMEM, "out of memory (group-by of %zu rows)", n);
        goto fail;
    }
    for (size_t j = 0; j < naggs; j++)
        g->aggs[j] = (int)aggs[j];
    if (n == 0) {
        *out = g;
        return RAID_OK;
    }
    const int skipna = (flags & RAID_GROUPBY_SKIPNA) != 0;
    size_t G;
    const gb_plan dp = {.n = n, .keys = keys, .valid = valid, .skipna = skipna, .x = values, .need = need,
                        .counts = counts, .mean = mean, .scaled = scaled};
    if ((st = RAID_BACKEND(gb_backends, ctx)->groups(ctx, &dp, rows_per_wg, local_tables, &g->keys, &g->ngroups,
                                                     &part)) != RAID_OK)
        goto fail;
    G = g->ngroups;
    g->counts = counts ? malloc(G * sizeof *g->counts) : NULL;
    g->cols = malloc(naggs * G * sizeof *g->cols);
    if ((counts && !g->counts) || !g->cols) {
        st = raidFail(ctx, RAID_ENOMEM, "out of memory (group-by of %zu rows into %zu groups)", n, G);
        goto fail;
    }
    if (counts)
        memcpy(g->counts, part.count, G * sizeof *g->counts);
    if (part.sfrac) { /* kept with the result (raidGbGroupbySumScaled) */
        g->sfrac = part.sfrac, g->sexp = part.sexp;
        part.sfrac = NULL, part.sexp = NULL;
    }
    double *firstv = NULL, *lastv = NULL; /* device values: the groups' first and last, gathered */
    if (kx == RAID_MEM_DEVICE && (need & GB_NEED_FIRSTLAST) &&
        (st = gather_ends(ctx, values, n, &part, G, &firstv, &lastv)) != RAID_OK)
        goto fail;
    for (size_t j = 0; j < naggs; j++) {
        double *c = g->cols + j * G;
        for (size_t k = 0; k < G; k++) {
            const int64_t cnt = part.count[k];
            double v = NAN;
            switch (aggs[j]) {
            case RAID_AGG_COUNT: v = (double)cnt; break;
            case RAID_AGG_SUM: v = part.sum[k]; break;
            case RAID_AGG_MEAN: v = part.mean[k]; break;
            case RAID_AGG_MIN:
            case RAID_AGG_MAX: {
                const uint64_t key = aggs[j] == RAID_AGG_MIN ? part.min[k] : part.max[k];
                if (!(part.flags[k] & GB_F_NAN) && key != (aggs[j] == RAID_AGG_MIN ? UINT64_MAX : 0)) { /* no value:
                                                                                the key's initial value */
                    const uint64_t b = gb_order_key_inv(key);
                    memcpy(&v, &b, sizeof v);
                }
                break;
            }
            case RAID_AGG_FIRST:
                v = part.first[k] < 0 ? NAN : firstv ? firstv[k] : values[part.first[k]];
                break;
            case RAID_AGG_LAST:
                v = part.last[k] < 0 ? NAN : lastv ? lastv[k] : values[part.last[k]];
                break;
            }
            c[k] = v;
        }
    }
    free(firstv);
    free(lastv);
    partial_free(&part);
    *out = g;
    return RAID_OK;
fail:
    partial_free(&part);
    raid_groupby_destroy(g);
    return st;
}

raid_status raid_groupby_compute(raid_ctx *ctx, const int64_t *keys, const double *values, const uint8_t *valid,
                                 size_t n, const raid_agg *aggs, size_t naggs, unsigned flags, raid_groupby **out)
{
    if (flags & GB_SCALED) { /* the library's own flag */
        if (out)
            *out = NULL;
        return raidFail(ctx, RAID_EINVAL, "raid_groupby_compute: unknown flags 0x%x", flags);
    }
    return raidGbCompute(ctx, keys, values, valid, n, aggs, naggs, flags, 0, -1, out);
}

/* Float64 keys: each key's sort key (raidKeySort: numpy's order, -0.0 folded onto 0.0, every NaN one
 * key after +inf, a null key the largest) with its top bit flipped is an int64 of the same (signed) order:
 * the int64 call groups them, and the groups' keys map back. */
#define GB_TOP 0x8000000000000000ull

raid_status raid_groupby_compute_f64(raid_ctx *ctx, const double *keys, const uint8_t *key_valid,
                                     const double *values, const uint8_t *valid, size_t n, const raid_agg *aggs,
                                     size_t naggs, unsigned flags, raid_groupby **out)
{
    if (out)
        *out = NULL;
    if (!out || (n && !keys))
        return raidFail(ctx, RAID_EINVAL, "raid_groupby_compute_f64: NULL argument");
    int64_t *ik = malloc((n ? n : 1) * sizeof *ik);
    if (!ik)
        return raidFail(ctx, RAID_ENOMEM, "out of memory (group-by of %zu rows)", n);
    /* Keys in CUDA device memory (on a CUDA context of their device): their order keys are formed here, on
     * the host, from a copy made into ik first (read as bits below, in place); the values stay where they
     * are. Elsewhere device memory is refused (raidMemKindOf). */
    RaidMemKind kk = RAID_MEM_HOST;
    raid_status mst = n ? raidMemKindOf(ctx, keys, n * 8, 8, "raid_groupby_compute_f64: keys", &kk) : RAID_OK;
    if (mst == RAID_OK && kk == RAID_MEM_DEVICE)
        mst = raidCopyFromCaller(ctx, ik, keys, n * sizeof *ik, "raid_groupby_compute_f64: keys");
    if (mst != RAID_OK) {
        free(ik);
        return mst;
    }
    const double *hk = kk == RAID_MEM_DEVICE ? (const double *)(const void *)ik : keys;
#pragma omp parallel for schedule(static) if (n > 100000)
    for (size_t i = 0; i < n; i++) {
        uint64_t b;
        memcpy(&b, &hk[i], sizeof b);
        const RaidKey k = raidKeySort((uint32_t)(b >> 32), (uint32_t)b, key_valid != NULL,
                                         key_valid ? key_valid[i] != 0 : 1, 0);
        ik[i] = (int64_t)(((uint64_t)k.hi << 32 | k.lo) ^ GB_TOP);
    }
    raid_status st = raid_groupby_compute(ctx, ik, values, valid, n, aggs, naggs, flags, out);
    free(ik);
    if (st != RAID_OK)
        return st;
    raid_groupby *g = *out;
    if (!(g->fkeys = malloc((g->ngroups ? g->ngroups : 1) * sizeof *g->fkeys))) {
        raid_groupby_destroy(g);
        *out = NULL;
        return raidFail(ctx, RAID_ENOMEM, "out of memory (group-by of %zu rows)", n);
    }
    for (size_t j = 0; j < g->ngroups; j++) {
        uint64_t k = (uint64_t)g->keys[j] ^ GB_TOP;
        if (key_valid && k == UINT64_MAX) /* the null keys' group: last */
            g->null_group = 1, k = UINT64_MAX;
        else if (key_valid && k == UINT64_MAX - 1) /* NaN below the nulls: the NaN key */
            k = UINT64_MAX;
        g->fkeys[j] = raidKey64Value(k);
    }
    return RAID_OK;
}

double raidGbGroupbySumScaled(const raid_groupby *g, size_t k, int *e)
{
    assert(g && g->sfrac && k < g->ngroups);
    *e = g->sexp[k];
    return g->sfrac[k];
}

const double *raid_groupby_keys_f64(const raid_groupby *g) { return g && g->ngroups ? g->fkeys : NULL; }
int raid_groupby_null_group(const raid_groupby *g) { return g ? g->null_group : 0; }

size_t raid_groupby_ngroups(const raid_groupby *g) { return g ? g->ngroups : 0; }
const int64_t *raid_groupby_keys(const raid_groupby *g) { return g && g->ngroups ? g->keys : NULL; }
const int64_t *raid_groupby_counts(const raid_groupby *g) { return g && g->ngroups ? g->counts : NULL; }
size_t raid_groupby_naggs(const raid_groupby *g) { return g ? g->naggs : 0; }
int raid_groupby_agg(const raid_groupby *g, size_t j) { return g && j < g->naggs ? g->aggs[j] : -1; }
const double *raid_groupby_column(const raid_groupby *g, size_t j)
{
    return g && j < g->naggs && g->ngroups ? g->cols + j * g->ngroups : NULL;
}
