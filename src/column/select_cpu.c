/* The cpu path of the selections (include/raid/select.h; docs/column.md "Selection"): radix select on the
 * uint64 order keys (src/column/keys.h). The first pass reads the doubles, forms their keys and counts the
 * top 16 bits (OpenMP: one histogram per thread, merged); the buckets that hold the wanted ranks are
 * gathered (their keys only, in parallel at offsets fixed by the per-thread counts); then each gathered
 * bucket is narrowed the same way on its keys (16, 11 or 8 bits per pass by its size), in place while a
 * single bucket holds everything, until at most 32 keys remain (sorted) or all 64 bits are known. Several
 * ranks share every pass until they fall into different buckets. O(n) per call. */
#include "column/select_internal.h"

#include "column/keys.h"

#include <math.h>
#include <omp.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include <stdlib.h>
#include <string.h>

#define TOP_BITS 16
#define TOP_SHIFT (64 - TOP_BITS)
/* A thread's histograms: NSUB interleaved copies (element j counts in copy j % NSUB: repeated keys do not
 * chain their increments), each of 2^TOP_BITS bins and NSUB bins for keys outside the prefix; folded into
 * copy 0 after the pass. */
#define NSUB 4
#define HSTRIDE ((1u << TOP_BITS) + NSUB)
#define TSTRIDE (NSUB * HSTRIDE)
#define SMALL_SORT 32
#define BIG_FIRST_PASS (1u << 18) /* below: keys formed into one array, no per-thread histograms */

#define KEY_BLOCK 256

/* The keys of x[0..m), m <= KEY_BLOCK: a full block has a fixed trip count, which compilers vectorise
 * (twice the speed of one key at a time on the development machine). */
static void keys_of(const double *x, size_t m, uint64_t *k)
{
    if (m == KEY_BLOCK)
        for (size_t j = 0; j < KEY_BLOCK; j++)
            k[j] = raidKey64(x[j]);
    else
        for (size_t j = 0; j < m; j++)
            k[j] = raidKey64(x[j]);
}

static void sort_keys(uint64_t *a, size_t m)
{
    for (size_t i = 1; i < m; i++) {
        const uint64_t v = a[i];
        size_t j = i;
        while (j > 0 && a[j - 1] > v) {
            a[j] = a[j - 1];
            j--;
        }
        a[j] = v;
    }
}

/* Groups of ranks falling into one bucket: bucket b, its first rank in the bucket order (start) and
 * count, ranks[j0 .. j1). Fills g[] from the histogram h[0..nb) and returns their number. */
typedef struct rank_group {
    size_t b, j0, j1;
    uint64_t start, count;
} rank_group;

static size_t group_ranks(const uint64_t *h, size_t nb, const int64_t *ranks, size_t nr, uint64_t rank0,
                          rank_group *g)
{
    size_t ng = 0, j = 0;
    uint64_t cum = 0;
    for (size_t b = 0; b < nb && j < nr; b++) {
        const uint64_t next = cum + h[b];
        if ((uint64_t)ranks[j] - rank0 < next) {
            g[ng].b = b;
            g[ng].start = cum;
            g[ng].count = h[b];
            g[ng].j0 = j;
            while (j < nr && (uint64_t)ranks[j] - rank0 < next)
                j++;
            g[ng].j1 = j;
            ng++;
        }
        cum = next;
    }
    return ng;
}

raid_status raidSelKeys(uint64_t *a, uint64_t *scratch, size_t m, int c, const int64_t *ranks, size_t nr,
                          uint64_t base, RaidSelRank *res)
{
    /* ranks are relative to `rank0`, the rank of a's smallest key in the whole segment (= base) */
    const uint64_t rank0 = base;
    for (;;) {
        if (m <= SMALL_SORT) {
            sort_keys(a, m);
            for (size_t j = 0; j < nr; j++) {
                const size_t r = (size_t)((uint64_t)ranks[j] - rank0);
                const uint64_t K = a[r];
                size_t lo = r, hi = r + 1;
                while (lo > 0 && a[lo - 1] == K)
                    lo--;
                while (hi < m && a[hi] == K)
                    hi++;
                res[j].key = K;
                res[j].nless = base + lo;
                res[j].neq = hi - lo;
            }
            return RAID_OK;
        }
        if (c >= 64) { /* every key equal */
            for (size_t j = 0; j < nr; j++) {
                res[j].key = a[0];
                res[j].nless = base;
                res[j].neq = m;
            }
            return RAID_OK;
        }
        int bits = m > (1u << 20) ? 16 : m > 4096 ? 11 : 8;
        if (bits > 64 - c)
            bits = 64 - c;
        const int shift = 64 - c - bits;
        const size_t nb = (size_t)1 << bits;
        const uint64_t mask = nb - 1;
        uint64_t *h = calloc(nb, sizeof *h);
        rank_group *g = malloc(nr * sizeof *g);
        if (!h || !g) {
            free(h);
            free(g);
            return raidFail(NULL, RAID_ENOMEM, "out of memory (selection)");
        }
        for (size_t i = 0; i < m; i++)
            h[(a[i] >> shift) & mask]++;
        const size_t ng = group_ranks(h, nb, ranks, nr, rank0, g);
        if (ng == 1 && g[0].count == m) { /* one bucket holds everything: narrow in place */
            free(h);
            free(g);
            c += bits;
            continue;
        }
        /* gather each group's bucket into scratch, at consecutive positions; recurse with a as scratch */
        int32_t *lut = (int32_t *)h; /* reuse: the histogram is no longer needed once groups are known */
        for (size_t b = 0; b < nb; b++)
            lut[b] = -1;
        uint64_t *pos = malloc(ng * sizeof *pos);
        if (!pos) {
            free(h);
            free(g);
            return raidFail(NULL, RAID_ENOMEM, "out of memory (selection)");
        }
        uint64_t p = 0;
        for (size_t k = 0; k < ng; k++) {
            lut[g[k].b] = (int32_t)k;
            pos[k] = p;
            p += g[k].count;
        }
        uint64_t *w = malloc(ng * sizeof *w);
        if (!w) {
            free(h);
            free(g);
            free(pos);
            return raidFail(NULL, RAID_ENOMEM, "out of memory (selection)");
        }
        memcpy(w, pos, ng * sizeof *w);
        for (size_t i = 0; i < m; i++) {
            const int32_t k = lut[(a[i] >> shift) & mask];
            if (k >= 0)
                scratch[w[k]++] = a[i];
        }
        raid_status st = RAID_OK;
        for (size_t k = 0; k < ng && st == RAID_OK; k++)
            st = raidSelKeys(scratch + pos[k], a + pos[k], g[k].count, c + bits, ranks + g[k].j0, g[k].j1 - g[k].j0,
                               rank0 + g[k].start, res + g[k].j0);
        free(h);
        free(g);
        free(pos);
        free(w);
        return st;
    }
}

static inline void note_info(uint64_t k, size_t i, RaidSelInfo *in)
{
    if (k == RAID_SEL_KEY_NAN) {
        if (in->nnan++ == 0)
            in->first_nan = (int64_t)i;
    } else if (k == RAID_SEL_KEY_ZERO && in->first_zero == RAID_SEL_NONE) {
        in->first_zero = (int64_t)i;
    }
}

static void merge_info(RaidSelInfo *to, const RaidSelInfo *from)
{
    /* threads' ranges come in index order: the first thread that saw one has the first index */
    to->nnan += from->nnan;
    if (to->first_nan == RAID_SEL_NONE)
        to->first_nan = from->first_nan;
    if (to->first_zero == RAID_SEL_NONE)
        to->first_zero = from->first_zero;
}

static const RaidSelInfo info0 = {0, RAID_SEL_NONE, RAID_SEL_NONE};

/* f(keys of x[i .. i + m), i, m, arg) for the blocks of x[lo .. hi) in order. */
static void for_key_blocks(const double *x, size_t lo, size_t hi,
                           void (*f)(const uint64_t *kb, size_t i, size_t m, void *arg), void *arg)
{
    uint64_t kb[KEY_BLOCK];
    for (size_t i = lo; i < hi; i += KEY_BLOCK) {
        const size_t m = hi - i < KEY_BLOCK ? hi - i : KEY_BLOCK;
        keys_of(x + i, m, kb);
        f(kb, i, m, arg);
    }
}

/* A counting pass over the data: the histogram of the 16-bit digit at bit `shift` of the keys whose
 * bits under pmask are pval (the prefix known so far; pmask 0 on the first pass, which also notes the
 * info). */
typedef struct level {
    int shift;
    uint64_t pmask, pval;
} level;
typedef struct count_pass {
    uint64_t *h;
    RaidSelInfo in;
    level lv;
} count_pass;
static void count_block(const uint64_t *kb, size_t i, size_t m, void *arg)
{
    count_pass *c = arg;
    if (c->lv.pmask == 0) {
        for (size_t j = 0; j < m; j++) {
            const uint64_t k = kb[j];
            c->h[(j % NSUB) * HSTRIDE + (k >> TOP_SHIFT)]++;
            if (k == RAID_SEL_KEY_NAN || k == RAID_SEL_KEY_ZERO)
                note_info(k, i + j, &c->in);
        }
        return;
    }
    const uint64_t pmask = c->lv.pmask, pval = c->lv.pval;
    const int shift = c->lv.shift;
    uint64_t *h = c->h;
    for (size_t j = 0; j < m; j++) { /* branch-free (masks): keys outside the prefix count in extra bins */
        const uint64_t d = (kb[j] >> shift) & 0xFFFFu;
        const uint64_t out = (uint64_t)0 - (uint64_t)((kb[j] & pmask) != pval);
        h[(j % NSUB) * HSTRIDE + ((d & ~out) | ((((uint64_t)1 << TOP_BITS) + j % NSUB) & out))]++;
    }
}

/* The gather: keys of the selected buckets (lut: group or -1; all within [klo, klo + kspan]) to buf at
 * the thread's running offsets o. */
typedef struct gather_pass {
    uint64_t *o, *buf;
    const int32_t *lut;
    uint64_t klo, kspan;
    int shift;
} gather_pass;
static void gather_block(const uint64_t *kb, size_t i, size_t m, void *arg)
{
    (void)i;
    gather_pass *g = arg;
    for (size_t j = 0; j < m; j++) {
        const uint64_t k = kb[j];
        if (k - g->klo <= g->kspan) { /* within the selected buckets' range: a rare, predictable branch */
            const int32_t gk = g->lut[(k >> g->shift) & 0xFFFFu];
            if (gk >= 0)
                g->buf[g->o[gk]++] = k;
        }
    }
}

/* A counting pass over x[0..n) (OpenMP) at level lv (the first: pmask 0): per-thread histograms into *H
 * (*used x 2^TOP_BITS; thread t counts x[n t / used .. n (t + 1) / used)), their sum into h (zeroed here),
 * and (first pass) info. RAID_ENOMEM (no message). */
static raid_status top_histograms(const double *x, size_t n, level lv, uint64_t **H, int *used, uint64_t *h,
                                  RaidSelInfo *info)
{
    const size_t NB = (size_t)1 << TOP_BITS;
    int nt = omp_get_max_threads();
    if (nt > 64)
        nt = 64;
    RaidSelInfo ti[64];
    uint64_t *Ht = *H = calloc((size_t)nt * TSTRIDE, sizeof *Ht);
    if (!Ht)
        return RAID_ENOMEM;
    int u = 1;
#pragma omp parallel num_threads(nt)
    {
        const int t = omp_get_thread_num(), T = omp_get_num_threads();
#pragma omp single
        u = T;
        const size_t lo = n * (size_t)t / (size_t)T, hi = n * (size_t)(t + 1) / (size_t)T;
        count_pass cp = {Ht + (size_t)t * TSTRIDE, info0, lv};
        for_key_blocks(x, lo, hi, count_block, &cp);
        for (int c = 1; c < NSUB; c++)
            for (size_t b = 0; b < NB; b++)
                cp.h[b] += cp.h[(size_t)c * HSTRIDE + b];
        ti[t] = cp.in;
    }
    if (lv.pmask == 0)
        *info = info0;
    memset(h, 0, NB * sizeof *h);
    for (int t = 0; t < u; t++) {
        if (lv.pmask == 0)
            merge_info(info, &ti[t]);
        for (size_t b = 0; b < NB; b++)
            h[b] += Ht[(size_t)t * TSTRIDE + b];
    }
    *used = u;
    return RAID_OK;
}

#define SAMPLE_STEP 64

/* The keys of the sample x[0], x[SAMPLE_STEP], ... (ns of them) in a malloc'd array of 2 ns keys (the
 * second half: the select's scratch); NULL when out of memory. */
static uint64_t *sample_keys(const double *x, size_t ns)
{
    uint64_t *sk = malloc(2 * ns * sizeof *sk);
    if (sk)
        for (size_t i = 0; i < ns; i++)
            sk[i] = raidKey64(x[i * SAMPLE_STEP]);
    return sk;
}

/* Ranks in one pass over the data when they form at most MAXW clusters of close ranks (a median, a k-th
 * value, a few quantiles): the keys of a 1-in-64 sample give each cluster a window [klo, khi] that holds
 * its ranks with a margin of 2 sqrt(sample) + 16 sample positions on each side (four standard deviations
 * of a rank's position in the sample); one pass counts the keys below each window, gathers the keys in it
 * (bounded per-thread buffers) and notes the info. Valid when every cluster's ranks fall inside its window
 * (count below <= first rank, last rank < below + gathered) and no buffer overflowed; then every key equal
 * to an answer is in its window. Returns 1 (res and info set), 0 (not applicable: the caller counts), -1
 * (no memory). */
#define MAXW RAID_SEL_MAXW
typedef struct window_pass {
    int nw;
    uint64_t *ck[MAXW], cnt[MAXW], cap[MAXW], below[MAXW], klo[MAXW], kspan[MAXW];
    RaidSelInfo in;
    int over;
} window_pass;
static void window_block(const uint64_t *kb, size_t i, size_t m, void *arg)
{
    window_pass *p = arg;
    for (size_t j = 0; j < m; j++) {
        const uint64_t k = kb[j];
        for (int w = 0; w < p->nw; w++) {
            p->below[w] += k < p->klo[w];
            if (k - p->klo[w] <= p->kspan[w]) {
                if (p->cnt[w] < p->cap[w])
                    p->ck[w][p->cnt[w]++] = k;
                else
                    p->over = 1;
            }
        }
        if (k == RAID_SEL_KEY_NAN || k == RAID_SEL_KEY_ZERO)
            note_info(k, i + j, &p->in);
    }
}
int raidSelWindowsFromSample(uint64_t *sk, size_t ns, size_t step, size_t n, const int64_t *ranks, size_t m,
                                 RaidSelWindows *W)
{
    if (m == 0)
        return 0;
    /* clusters: ranks within n/256 of their cluster's first */
    size_t nw = 0;
    for (size_t j = 0; j < m; j++)
        if (j == 0 || (uint64_t)(ranks[j] - ranks[W->c0[nw - 1]]) > n / 256) {
            if (nw == RAID_SEL_MAXW)
                return 0;
            W->c0[nw++] = j;
        }
    W->c0[nw] = m;
    W->nw = (int)nw;
    const int64_t margin = (int64_t)(2.0 * sqrt((double)ns)) + 16;
    int64_t sr[2 * RAID_SEL_MAXW] = {0}, su[2 * RAID_SEL_MAXW] = {0};
    int open[2 * RAID_SEL_MAXW] = {0};
    for (size_t w = 0; w < nw; w++) {
        sr[2 * w] = (int64_t)((double)ranks[W->c0[w]] / (double)step) - margin;
        sr[2 * w + 1] = (int64_t)((double)ranks[W->c0[w + 1] - 1] / (double)step) + 1 + margin;
        open[2 * w] = sr[2 * w] < 0; /* the window reaches an end */
        open[2 * w + 1] = sr[2 * w + 1] >= (int64_t)ns;
        sr[2 * w] = open[2 * w] ? 0 : sr[2 * w];
        sr[2 * w + 1] = open[2 * w + 1] ? (int64_t)ns - 1 : sr[2 * w + 1];
    }
    size_t nu = 0; /* the sample ranks, ascending and distinct (windows in rank order) */
    for (size_t e = 0; e < 2 * nw; e++) {
        size_t a = nu;
        while (a > 0 && su[a - 1] > sr[e])
            a--;
        if (a > 0 && su[a - 1] == sr[e])
            continue;
        memmove(su + a + 1, su + a, (nu - a) * sizeof *su);
        su[a] = sr[e];
        nu++;
    }
    RaidSelRank wr[2 * RAID_SEL_MAXW];
    if (raidSelKeys(sk, sk + ns, ns, 0, su, nu, 0, wr) != RAID_OK)
        return -1;
    for (size_t w = 0; w < nw; w++) {
        size_t a = 0, b = 0;
        while (su[a] != sr[2 * w])
            a++;
        while (su[b] != sr[2 * w + 1])
            b++;
        const uint64_t klo = open[2 * w] ? 0 : wr[a].key, khi = open[2 * w + 1] ? UINT64_MAX : wr[b].key;
        W->klo[w] = klo;
        W->kspan[w] = khi - klo;
        W->expect[w] = (uint64_t)(sr[2 * w + 1] - sr[2 * w] + 1) * step;
    }
    return 1;
}

static int sampled_ranks(const double *x, size_t n, const int64_t *ranks, size_t m, RaidSelRank *res,
                         RaidSelInfo *info)
{
    const size_t step = SAMPLE_STEP, ns = n / step;
    if (m == 0 || ns < 4096)
        return 0;
    uint64_t *sk = sample_keys(x, ns);
    if (!sk)
        return -1;
    RaidSelWindows W;
    const int got = raidSelWindowsFromSample(sk, ns, step, n, ranks, m, &W);
    free(sk);
    if (got <= 0)
        return got;
    const size_t nw = (size_t)W.nw, *c0 = W.c0;
    window_pass w0 = {0};
    w0.nw = (int)nw;
    w0.in = info0;
    uint64_t capsum = 0;
    int nt = omp_get_max_threads();
    if (nt > 64)
        nt = 64;
    for (size_t w = 0; w < nw; w++) {
        w0.klo[w] = W.klo[w];
        w0.kspan[w] = W.kspan[w];
        w0.cap[w] = 4 * W.expect[w] / (uint64_t)nt + 8192;
        capsum += w0.cap[w];
    }
    window_pass wp[64];
    uint64_t *bk = malloc((size_t)nt * capsum * sizeof *bk), *ck = NULL;
    int ok = -1;
    if (!bk)
        goto out;
#pragma omp parallel for num_threads(nt) schedule(static, 1)
    for (int t = 0; t < nt; t++) {
        const size_t lo = n * (size_t)t / (size_t)nt, hi = n * (size_t)(t + 1) / (size_t)nt;
        window_pass p = w0;
        uint64_t *b = bk + (size_t)t * capsum;
        for (size_t w = 0; w < nw; b += p.cap[w], w++)
            p.ck[w] = b;
        for_key_blocks(x, lo, hi, window_block, &p);
        wp[t] = p;
    }
    ok = 0;
    uint64_t Cmax = 0, C[MAXW] = {0}, below[MAXW] = {0};
    for (int t = 0; t < nt; t++) {
        if (wp[t].over)
            goto out;
        for (size_t w = 0; w < nw; w++) {
            C[w] += wp[t].cnt[w];
            below[w] += wp[t].below[w];
        }
    }
    for (size_t w = 0; w < nw; w++) {
        if (below[w] > (uint64_t)ranks[c0[w]] || (uint64_t)ranks[c0[w + 1] - 1] >= below[w] + C[w])
            goto out;
        Cmax = C[w] > Cmax ? C[w] : Cmax;
    }
    ok = -1;
    if (!(ck = malloc(2 * (Cmax ? Cmax : 1) * sizeof *ck)))
        goto out;
    *info = info0;
    for (int t = 0; t < nt; t++)
        merge_info(info, &wp[t].in);
    ok = 1;
    for (size_t w = 0; w < nw && ok == 1; w++) {
        uint64_t q = 0;
        for (int t = 0; t < nt; q += wp[t].cnt[w], t++)
            memcpy(ck + q, wp[t].ck[w], wp[t].cnt[w] * sizeof *ck);
        if (raidSelKeys(ck, ck + C[w], C[w], 0, ranks + c0[w], c0[w + 1] - c0[w], below[w], res + c0[w]) != RAID_OK)
            ok = -1;
    }
out:
    free(bk);
    free(ck);
    return ok;
}

raid_status raidSelCpuRanks(raid_ctx *ctx, const double *x, size_t n, const int64_t *ranks, size_t m,
                               RaidSelRank *res, RaidSelInfo *info)
{
    *info = info0;
    raid_status st = RAID_OK;
    if (n < BIG_FIRST_PASS) {
        uint64_t *keys = malloc(2 * (n ? n : 1) * sizeof *keys);
        if (!keys)
            return raidFail(ctx, RAID_ENOMEM, "out of memory (selection of %zu values)", n);
        for (size_t i = 0; i < n; i += KEY_BLOCK)
            keys_of(x + i, n - i < KEY_BLOCK ? n - i : KEY_BLOCK, keys + i);
        for (size_t i = 0; i < n; i++)
            if (keys[i] == RAID_SEL_KEY_NAN || keys[i] == RAID_SEL_KEY_ZERO)
                note_info(keys[i], i, info);
        st = m ? raidSelKeys(keys, keys + n, n, 0, ranks, m, 0, res) : RAID_OK;
        free(keys);
        return st != RAID_OK && ctx ? raidFail(ctx, st, "%s", raid_errmsg()) : st;
    }
    const int sampled = sampled_ranks(x, n, ranks, m, res, info); /* one pass, else the counting passes */
    if (sampled != 0)
        return sampled > 0 ? RAID_OK : raidFail(ctx, RAID_ENOMEM, "out of memory (selection of %zu values)", n);
    const size_t NB = (size_t)1 << TOP_BITS;
    uint64_t *H = NULL, *h = calloc(NB, sizeof *h), *buf = NULL, *off = NULL;
    int32_t *lut = malloc(NB * sizeof *lut);
    rank_group *g = malloc((m ? m : 1) * sizeof *g);
    int used = 1;
    level lv = {TOP_SHIFT, 0, 0};
    uint64_t rank0 = 0; /* the rank of the smallest key under the prefix */
    size_t ng = 0;
    for (;;) {
        free(H);
        H = NULL;
        if (!h || !lut || !g || top_histograms(x, n, lv, &H, &used, h, info) != RAID_OK) {
            st = raidFail(ctx, RAID_ENOMEM, "out of memory (selection of %zu values)", n);
            goto done;
        }
        if (m == 0)
            goto done;
        ng = group_ranks(h, NB, ranks, m, rank0, g);
        /* one bucket holding many (ties, a narrow range): count its next 16 bits on the data rather than
         * gather it (a pass of reading against one of writing) */
        if (ng == 1 && g[0].count > n / 8 && lv.shift >= TOP_BITS) {
            rank0 += g[0].start;
            lv.pval |= (uint64_t)g[0].b << lv.shift;
            lv.pmask |= (uint64_t)0xFFFFu << lv.shift;
            lv.shift -= TOP_BITS;
            continue;
        }
        break;
    }
    uint64_t M = 0;
    for (size_t b = 0; b < NB; b++)
        lut[b] = -1;
    for (size_t k = 0; k < ng; k++) {
        lut[g[k].b] = (int32_t)k;
        M += g[k].count;
    }
    buf = malloc(2 * M * sizeof *buf);
    off = malloc((size_t)used * ng * sizeof *off);
    if (!buf || !off) {
        st = raidFail(ctx, RAID_ENOMEM, "out of memory (selection of %zu values)", n);
        goto done;
    }
    /* the keys of the selected buckets lie in [klo, klo + kspan] (with the prefix) */
    const uint64_t klo = lv.pval | (uint64_t)g[0].b << lv.shift;
    const uint64_t kspan = ((uint64_t)(g[ng - 1].b - g[0].b + 1) << lv.shift) - 1;
    uint64_t p = 0;
    for (size_t k = 0; k < ng; k++) {
        for (int t = 0; t < used; t++) {
            off[(size_t)t * ng + k] = p;
            p += H[(size_t)t * TSTRIDE + g[k].b];
        }
    }
#pragma omp parallel for num_threads(used) schedule(static, 1)
    for (int t = 0; t < used; t++) { /* the first pass's ranges, whatever the team */
        const size_t lo = n * (size_t)t / (size_t)used, hi = n * (size_t)(t + 1) / (size_t)used;
        gather_pass gp = {off + (size_t)t * ng, buf, lut, klo, kspan, lv.shift};
        for_key_blocks(x, lo, hi, gather_block, &gp);
    }
    p = 0;
    for (size_t k = 0; k < ng && st == RAID_OK; k++) {
        st = raidSelKeys(buf + p, buf + M + p, g[k].count, 64 - lv.shift, ranks + g[k].j0, g[k].j1 - g[k].j0,
                           rank0 + g[k].start, res + g[k].j0);
        p += g[k].count;
    }
    if (st != RAID_OK && ctx)
        st = raidFail(ctx, st, "%s", raid_errmsg());
done:
    free(H);
    free(h);
    free(lut);
    free(g);
    free(buf);
    free(off);
    return st;
}

/* Min and max by float64 comparisons (the keys' order for every double that is not NaN, -0.0 == +0.0):
 * x < a ? x : a skips NaN (SSE2's minpd/maxpd where there is SSE2, eight lanes per thread); NaNs counted by
 * x != x. The zero's sign and
 * the NaN's payload come from a scan for the first of them, only when needed. */
void raidSelCpuMinmax(const double *x, size_t n, uint64_t *kmin, uint64_t *kmax, RaidSelInfo *info)
{
    *info = info0;
    int nt = n >= BIG_FIRST_PASS ? omp_get_max_threads() : 1;
    if (nt > 64)
        nt = 64;
    double mn[64], mx[64];
    uint64_t nn[64];
    int used = 1;
#pragma omp parallel num_threads(nt) if (nt > 1)
    {
        const int t = omp_get_thread_num(), T = omp_get_num_threads();
#pragma omp single
        used = T;
        const size_t lo = n * (size_t)t / (size_t)T, hi = n * (size_t)(t + 1) / (size_t)T;
        double a0 = INFINITY, b0 = -INFINITY;
        uint64_t c0 = 0;
        size_t i = lo;
#ifdef __SSE2__
        /* minpd(v, acc) returns acc where v is NaN: NaN skipped, as the scalar ternary below */
        __m128d va[4], vb[4];
        __m128i vc[4];
        for (int l = 0; l < 4; l++) {
            va[l] = _mm_set1_pd(INFINITY);
            vb[l] = _mm_set1_pd(-INFINITY);
            vc[l] = _mm_setzero_si128();
        }
        for (; i + 8 <= hi; i += 8)
            for (int l = 0; l < 4; l++) {
                const __m128d v = _mm_loadu_pd(x + i + 2 * l);
                va[l] = _mm_min_pd(v, va[l]);
                vb[l] = _mm_max_pd(v, vb[l]);
                vc[l] = _mm_sub_epi64(vc[l], _mm_castpd_si128(_mm_cmpunord_pd(v, v)));
            }
        for (int l = 0; l < 4; l++) {
            double ta[2], tb[2];
            uint64_t tc[2];
            _mm_storeu_pd(ta, va[l]);
            _mm_storeu_pd(tb, vb[l]);
            _mm_storeu_si128((__m128i *)tc, vc[l]);
            for (int e = 0; e < 2; e++) {
                a0 = ta[e] < a0 ? ta[e] : a0;
                b0 = tb[e] > b0 ? tb[e] : b0;
                c0 += tc[e];
            }
        }
#endif
        for (; i < hi; i++) {
            const double v = x[i];
            a0 = v < a0 ? v : a0;
            b0 = v > b0 ? v : b0;
            c0 += v != v;
        }
        double a[1] = {a0}, b[1] = {b0};
        uint64_t c[1] = {c0};
        mn[t] = a[0];
        mx[t] = b[0];
        nn[t] = c[0];
    }
    double a = INFINITY, b = -INFINITY;
    for (int t = 0; t < used; t++) {
        a = mn[t] < a ? mn[t] : a;
        b = mx[t] > b ? mx[t] : b;
        info->nnan += nn[t];
    }
    if (info->nnan)
        for (size_t i = 0; i < n; i++)
            if (x[i] != x[i]) {
                info->first_nan = (int64_t)i;
                break;
            }
    if (info->nnan < n && (a == 0.0 || b == 0.0))
        for (size_t i = 0; i < n; i++)
            if (x[i] == 0.0) {
                info->first_zero = (int64_t)i;
                break;
            }
    *kmin = info->nnan == n ? RAID_SEL_KEY_NAN : raidKey64(a);
    *kmax = info->nnan == n ? 0 : raidKey64(b);
}

void raidSelCpuSurvivors(const double *x, size_t n, uint64_t K, int largest, size_t k, size_t t, int64_t *idx)
{
    uint64_t kb[KEY_BLOCK];
    size_t got = 0, tie = 0;
    for (size_t b = 0; b < n && got < k; b += KEY_BLOCK) { /* blocks from the start, or from the end */
        const size_t m = n - b < KEY_BLOCK ? n - b : KEY_BLOCK, i0 = largest ? n - b - m : b;
        keys_of(x + i0, m, kb);
        for (size_t jj = 0; jj < m; jj++) {
            const size_t j = largest ? m - 1 - jj : jj;
            const uint64_t kj = kb[j];
            if (largest ? kj > K : kj < K)
                idx[got++] = (int64_t)(i0 + j);
            else if (kj == K && tie < t) {
                idx[got++] = (int64_t)(i0 + j);
                tie++;
            }
        }
    }
}

/* Top-k gather: the keys and indices of the elements whose top digit lies in [blo, bhi], at the thread's
 * running offset *o (index order within the thread's range). */
typedef struct topk_pass {
    uint64_t *o, *ck;
    int64_t *ci;
    uint64_t kmin, kspan; /* the candidates: keys in [kmin, kmin + kspan] */
} topk_pass;
static void topk_block(const uint64_t *kb, size_t i, size_t m, void *arg)
{
    topk_pass *p = arg;
    for (size_t j = 0; j < m; j++)
        if (kb[j] - p->kmin <= p->kspan) {
            p->ck[*p->o] = kb[j];
            p->ci[(*p->o)++] = (int64_t)(i + j);
        }
}

/* The survivors among C >= k candidates (keys ck[0..C) and indices ci, in index order; ck holds 3 C keys:
 * a copy and scratch for the select) into idx: the keys beyond the k-th and, of those equal to it, the
 * last (largest) or first in index order. RAID_ENOMEM (no message). */
static raid_status topk_finish(uint64_t *ck, const int64_t *ci, uint64_t C, size_t k, int largest, int64_t *idx)
{
    memcpy(ck + C, ck, C * sizeof *ck); /* the select reorders its keys: a copy */
    const int64_t r = largest ? (int64_t)(C - k) : (int64_t)k - 1;
    RaidSelRank res;
    const raid_status st = raidSelKeys(ck + C, ck + 2 * C, C, 0, &r, 1, 0, &res);
    if (st != RAID_OK)
        return st;
    const uint64_t K = res.key;
    const size_t strict = largest ? (size_t)(C - res.nless - res.neq) : (size_t)res.nless;
    size_t got = 0, tie = 0;
    for (uint64_t i = 0; i < C; i++) { /* candidates in index order: ties first to last (smallest) or back */
        const uint64_t j = largest ? C - 1 - i : i;
        if (largest ? ck[j] > K : ck[j] < K)
            idx[got++] = ci[j];
        else if (ck[j] == K && tie < k - strict) {
            idx[got++] = ci[j];
            tie++;
        }
    }
    return RAID_OK;
}

/* Top-k in one pass over the data when k is small: the threshold T of a 1-in-64 sample that leaves about
 * 2 k + 2048 keys beyond it; one gather of every key at or beyond T (per-thread buffers of a bounded
 * size); valid when at least k were gathered (then the k-th key is at or beyond T, and every key equal to
 * it was gathered) and no buffer overflowed. Returns 1 (idx filled), 0 (not applicable: the caller
 * counts), -1 (no memory). */
typedef struct sample_pass {
    uint64_t *ck, cnt, cap, kmin, kspan;
    int64_t *ci;
    int over;
} sample_pass;
static void sample_block(const uint64_t *kb, size_t i, size_t m, void *arg)
{
    sample_pass *p = arg;
    for (size_t j = 0; j < m; j++)
        if (kb[j] - p->kmin <= p->kspan) {
            if (p->cnt == p->cap) {
                p->over = 1;
                return;
            }
            p->ck[p->cnt] = kb[j];
            p->ci[p->cnt++] = (int64_t)(i + j);
        }
}
static int topk_sampled(const double *x, size_t n, size_t k, int largest, int64_t *idx)
{
    const size_t step = SAMPLE_STEP, ns = n / step;
    if (ns < 4096 || k > n / 1024)
        return 0;
    uint64_t *sk = sample_keys(x, ns);
    if (!sk)
        return -1;
    size_t j = 2 * ((k + step - 1) / step) + 32;
    if (j > ns)
        j = ns;
    const int64_t r = largest ? (int64_t)(ns - j) : (int64_t)j - 1;
    RaidSelRank res;
    const raid_status st = raidSelKeys(sk, sk + ns, ns, 0, &r, 1, 0, &res);
    free(sk);
    if (st != RAID_OK)
        return -1;
    int nt = omp_get_max_threads();
    if (nt > 64)
        nt = 64;
    const uint64_t cap = 4 * (uint64_t)j * step / (uint64_t)nt + 4096;
    sample_pass tp[64];
    uint64_t *bk = malloc((size_t)nt * cap * sizeof *bk), *ck = NULL;
    int64_t *bi = malloc((size_t)nt * cap * sizeof *bi), *ci = NULL;
    int ok = -1;
    if (!bk || !bi)
        goto out;
#pragma omp parallel for num_threads(nt) schedule(static, 1)
    for (int t = 0; t < nt; t++) {
        const size_t lo = n * (size_t)t / (size_t)nt, hi = n * (size_t)(t + 1) / (size_t)nt;
        sample_pass p = {bk + (size_t)t * cap, 0, cap, largest ? res.key : 0,
                         largest ? UINT64_MAX - res.key : res.key, bi + (size_t)t * cap, 0};
        for_key_blocks(x, lo, hi, sample_block, &p);
        tp[t] = p;
    }
    uint64_t C = 0;
    ok = 0;
    for (int t = 0; t < nt; t++) {
        C += tp[t].cnt;
        if (tp[t].over)
            goto out;
    }
    if (C < k)
        goto out;
    ok = -1;
    ck = malloc(3 * C * sizeof *ck);
    ci = malloc(C * sizeof *ci);
    if (!ck || !ci)
        goto out;
    uint64_t q = 0;
    for (int t = 0; t < nt; q += tp[t].cnt, t++) { /* thread order is index order */
        memcpy(ck + q, tp[t].ck, tp[t].cnt * sizeof *ck);
        memcpy(ci + q, tp[t].ci, tp[t].cnt * sizeof *ci);
    }
    ok = topk_finish(ck, ci, C, k, largest, idx) == RAID_OK ? 1 : -1;
out:
    free(bk);
    free(bi);
    free(ck);
    free(ci);
    return ok;
}

raid_status raidSelCpuTopk(raid_ctx *ctx, const double *x, size_t n, size_t k, int largest, int64_t *idx)
{
    raid_status st = RAID_OK;
    if (n < BIG_FIRST_PASS) { /* small: the threshold by select, then one scan */
        const int64_t r = largest ? (int64_t)(n - k) : (int64_t)k - 1;
        RaidSelRank res;
        RaidSelInfo in;
        if ((st = raidSelCpuRanks(ctx, x, n, &r, 1, &res, &in)) != RAID_OK)
            return st;
        const size_t strict = largest ? (size_t)(n - res.nless - res.neq) : (size_t)res.nless;
        raidSelCpuSurvivors(x, n, res.key, largest, k, k - strict, idx);
        return RAID_OK;
    }
    const int sampled = topk_sampled(x, n, k, largest, idx);
    if (sampled != 0)
        return sampled > 0 ? RAID_OK : raidFail(ctx, RAID_ENOMEM, "out of memory (top-k of %zu values)", n);
    /* Counting passes find a key range from the end that holds at least k keys and few more: the buckets
     * from the end holding the k wanted; while the last of them holds more than n/8 (ties, a narrow
     * range), its next 16 bits are counted again on the data. Then one gather of the keys and indices
     * in that range (index order), the threshold among them by select, the survivors. */
    const size_t NB = (size_t)1 << TOP_BITS;
    uint64_t *H = NULL, *h = calloc(NB, sizeof *h), *ck = NULL, *off = NULL, St[64] = {0};
    int64_t *ci = NULL;
    int used = 1, used0 = 0;
    RaidSelInfo info;
    level lv = {TOP_SHIFT, 0, 0};
    uint64_t S = 0, C = 0, kmin, kspan; /* S: keys beyond the current prefix (all candidates) */
    for (;;) {
        free(H);
        H = NULL;
        if (!h || top_histograms(x, n, lv, &H, &used, h, &info) != RAID_OK)
            goto nomem;
        if (used0 && used != used0)
            used0 = -1; /* the team changed: per-thread counts unusable, one thread gathers */
        else
            used0 = used;
        C = S;
        size_t b = largest ? NB : 0;
        while (C < k)
            C += largest ? h[--b] : h[b++];
        if (!largest)
            b--; /* the last bucket taken */
        if (h[b] > n / 8 && lv.shift >= TOP_BITS) { /* narrow the last bucket on the data */
            S = C - h[b];
            for (int t = 0; used0 > 0 && t < used; t++)
                for (size_t d = largest ? b + 1 : 0; d < (largest ? NB : b); d++)
                    St[t] += H[(size_t)t * TSTRIDE + d];
            lv.pval |= (uint64_t)b << lv.shift;
            lv.pmask |= (uint64_t)0xFFFFu << lv.shift;
            lv.shift -= TOP_BITS;
            continue;
        }
        /* the range: from bucket b to the end (largest) or from the start to b, under the prefix and
         * beyond it */
        const uint64_t below = lv.shift ? ((uint64_t)1 << lv.shift) - 1 : 0;
        if (largest) {
            kmin = lv.pval | (uint64_t)b << lv.shift;
            kspan = UINT64_MAX - kmin;
        } else {
            kmin = 0;
            kspan = (lv.pval | (uint64_t)b << lv.shift) | below;
        }
        for (int t = 0; used0 > 0 && t < used; t++)
            for (size_t d = largest ? b : 0; d < (largest ? NB : b + 1); d++)
                St[t] += H[(size_t)t * TSTRIDE + d];
        break;
    }
    ck = malloc(3 * C * sizeof *ck); /* the candidates' keys, a copy for the select, its scratch */
    ci = malloc(C * sizeof *ci);
    off = malloc((size_t)used * sizeof *off);
    if (!ck || !ci || !off)
        goto nomem;
    if (used0 < 0)
        used = 1;
    uint64_t p = 0;
    for (int t = 0; t < used; t++) {
        off[t] = p;
        p += St[t];
    }
#pragma omp parallel for num_threads(used) schedule(static, 1)
    for (int t = 0; t < used; t++) {
        const size_t lo = n * (size_t)t / (size_t)used, hi = n * (size_t)(t + 1) / (size_t)used;
        topk_pass tp = {&off[t], ck, ci, kmin, kspan};
        for_key_blocks(x, lo, hi, topk_block, &tp);
    }
    if ((st = topk_finish(ck, ci, C, k, largest, idx)) != RAID_OK)
        goto nomem;
    goto done;
nomem:
    st = raidFail(ctx, RAID_ENOMEM, "out of memory (top-k of %zu values)", n);
done:
    free(H);
    free(h);
    free(ck);
    free(ci);
    free(off);
    return st;
}
