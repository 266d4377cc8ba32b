/* The device path of the selections (include/raid/select.h; kernels/col_select.cl; docs/column.md
 * "Selection"). The doubles are uploaded once per call as 32-bit word pairs (through page-locked staging,
 * raidBufUploadStaged); keys are formed in the
 * kernels. Radix select: up to SEL_MAXP wanted ranks per pass set, 11-bit digits (at most 6 passes for 64
 * bits); after each pass the host reads the histograms back and picks, for every rank, the bucket that
 * holds it. Once the elements matching the prefixes found so far are at most a quarter of those the pass
 * read, the next pass also copies them to a candidate buffer, and later passes read only that (compacted
 * again as it shrinks); once at most HOST_FINISH candidates remain they are read back and finished by the cpu path's raidSelKeys. The
 * result (key, count below, count equal) is the cpu path's exactly: both count the same keys. */
#include "column/select_internal.h"

#include "column/keys.h"
#include "device/launch.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SEL_MAXP 4 /* as in kernels/col_select.cl */
#define SEL_DIGIT 11
#define SEL_AUX_HIST 4
#define SEL_NONE 0xFFFFFFFFu
#define SEL_LOCAL 256
#define SEL_MAX_GROUPS 512
#define HOST_FINISH 65536
#define SEL_SAMPLE 65536     /* keys of the window pass's sample, about */
#define SEL_WE 8             /* elements per work-item and tile of col_sel_window (as in the kernel) */
#define SEL_NPIV 8           /* pivots per window of col_sel_window (as in the kernel) */
#define SEL_PSTRIDE (1 + 2 * SEL_NPIV)
#define SEL_WIN_TILES 4      /* tiles per work-group of col_sel_window (many work-groups: no tail) */
#define SEL_WIN_GROUPS 65535 /* work-groups of col_sel_window at most (then more tiles each) */

struct RaidSelDevice {
    raid_ctx *ctx;
    RaidBuf x, aux, pref;
    size_t N;
    uint32_t *haux; /* host copy of aux */
    RaidEvent ev[2]; /* launches not yet settled */
    int nev;
};

static size_t groups_for(size_t n)
{
    size_t g = (n + 4 * SEL_LOCAL - 1) / (4 * SEL_LOCAL);
    return g < 1 ? 1 : g > SEL_MAX_GROUPS ? SEL_MAX_GROUPS : g;
}

/* Enqueue plan L over n elements; its event is kept until the next blocking read-back, which waits for it
 * (one synchronisation per pass), and settle() adds its time. */
static void launch(RaidSelDevice *s, RaidLaunch *L, size_t n)
{
    raidLaunchSize(L, groups_for(n) * SEL_LOCAL, SEL_LOCAL);
    if (L->st != RAID_OK)
        return;
    assert(s->nev < 2);
    raidLaunchGo(L, &s->ev[s->nev++]);
}

/* After a blocking read-back: the kernels' times, events released. */
static void settle(RaidSelDevice *s)
{
    for (int i = 0; i < s->nev; i++) {
        s->ctx->timing.kernel_s += raidEventSeconds(&s->ev[i]);
        raidEventRelease(&s->ev[i]);
    }
    s->nev = 0;
}

raid_status raidSelDeviceOpen(raid_ctx *ctx, const double *x, size_t N, RaidSelDevice **out)
{
    *out = NULL;
    if (N >= 0x80000000u)
        return raidFail(ctx, RAID_EUNSUPPORTED, "selection on a device: %zu values in one call (at most %u)", N,
                         0x7FFFFFFFu);
    RaidSelDevice *s = calloc(1, sizeof *s);
    if (!s)
        return raidFail(ctx, RAID_ENOMEM, "out of memory (selection on a device)");
    s->ctx = ctx;
    s->N = N;
    const size_t naux = SEL_AUX_HIST + ((size_t)SEL_MAXP << SEL_DIGIT);
    raid_status st = RAID_OK;
    if (!(s->haux = malloc(naux * sizeof *s->haux)))
        st = raidFail(ctx, RAID_ENOMEM, "out of memory (selection on a device)");
    RaidMemKind kx = RAID_MEM_HOST; /* x wrapped where it is device memory (docs/device.md), else uploaded */
    if (st == RAID_OK && (st = raidBufInput(ctx, x, RAID_DT_UINT, 2 * N, "x", &s->x, &kx)) == RAID_OK &&
        (st = raidBufAcquire(ctx, RAID_DT_UINT, naux, &s->aux)) == RAID_OK &&
        (st = raidBufAcquire(ctx, RAID_DT_UINT, 2 * SEL_MAXP, &s->pref)) == RAID_OK)
        ctx->timing.bytes_in = kx == RAID_MEM_HOST ? 8 * (uint64_t)N : 0;
    if (st != RAID_OK) {
        raidSelDeviceClose(s);
        return st;
    }
    *out = s;
    return RAID_OK;
}

void raidSelDeviceClose(RaidSelDevice *s)
{
    if (!s)
        return;
    raidDevDrain(s->ctx);
    settle(s);
    raidBufRelease(s->ctx, &s->x);
    raidBufRelease(s->ctx, &s->aux);
    raidBufRelease(s->ctx, &s->pref);
    free(s->haux);
    free(s);
}

static void info_from(RaidSelInfo *in, uint32_t nnan, uint32_t fz, uint32_t fn)
{
    in->nnan = nnan;
    in->first_zero = fz == SEL_NONE ? RAID_SEL_NONE : (int64_t)fz;
    in->first_nan = fn == SEL_NONE ? RAID_SEL_NONE : (int64_t)fn;
}

/* The prefixes of the ranks being found: each rank's prefix (its top c bits), the keys below it and the rank
 * within them, and the count of keys equal to its prefix after the last pass. */
typedef struct sel_state {
    uint64_t pfx[SEL_MAXP], nless[SEL_MAXP], rr[SEL_MAXP], cnt[SEL_MAXP];
} sel_state;

/* Few candidates (src[off .. off + len), top c bits known): read back and finished by the cpu path's select
 * (raidSelKeys), one prefix at a time. */
static raid_status host_finish(RaidSelDevice *s, const RaidBuf *src, size_t off, size_t len, int c, const sel_state *q,
                               const int64_t *ranks, size_t m, RaidSelRank *res)
{
    raid_ctx *ctx = s->ctx;
    uint32_t *words = malloc(2 * (len ? len : 1) * sizeof *words);
    uint64_t *keys = malloc(2 * (len ? len : 1) * sizeof *keys);
    raid_status st = RAID_OK;
    if (!words || !keys)
        st = raidFail(ctx, RAID_ENOMEM, "out of memory (selection on a device)");
    else
        st = raidBufDownload(ctx, src, 2 * off, 2 * len, words, 1, NULL);
    const uint64_t cmask = c ? ~0ull << (64 - c) : 0;
    for (size_t j0 = 0; j0 < m && st == RAID_OK;) {
        size_t j1 = j0 + 1;
        while (j1 < m && q->pfx[j1] == q->pfx[j0])
            j1++;
        size_t nq = 0;
        for (size_t i = 0; i < len; i++) {
            const RaidKey kk = raidKeyFromBits(words[2 * i + 1], words[2 * i]);
            const uint64_t key = (uint64_t)kk.hi << 32 | kk.lo;
            if ((key & cmask) == q->pfx[j0])
                keys[nq++] = key;
        }
        st = raidSelKeys(keys, keys + len, nq, c, ranks + j0, j1 - j0, q->nless[j0], res + j0);
        if (st != RAID_OK)
            st = raidFail(ctx, st, "%s", raid_errmsg());
        j0 = j1;
    }
    free(keys);
    free(words);
    return st;
}

/* One radix pass of col_sel_hist (kernel k) over src[off .. off + len) with c bits known: the histograms of
 * the next `bits` bits under each distinct prefix (np of them, words pw; qp[j]: rank j's), read back into
 * s->haux; with compact the matching keys copied into next. */
static raid_status hist_pass(RaidSelDevice *s, RaidKernel *k, const RaidBuf *src, size_t off, size_t len, int c,
                             int bits, const uint32_t *pw, int np, int first, int compact, const RaidBuf *next)
{
    raid_ctx *ctx = s->ctx;
    const int shift = 64 - c - bits;
    const uint64_t mask = c == 0 ? 0 : ~0ull << (64 - c);
    const size_t nbins = (size_t)np << bits, naux = SEL_AUX_HIST + nbins;
    s->haux[0] = 0u;
    s->haux[1] = s->haux[2] = SEL_NONE;
    s->haux[3] = 0u;
    memset(s->haux + SEL_AUX_HIST, 0, nbins * sizeof *s->haux);
    RaidLaunch L;
    raidLaunchUse(&L, ctx, k);
    RAID_LAUNCH_CALL(&L, raidBufUpload(ctx, &s->aux, 0, naux, s->haux, 0, NULL));
    RAID_LAUNCH_CALL(&L, raidBufUpload(ctx, &s->pref, 0, 2 * (size_t)np, pw, 1, NULL));
    RAID_LAUNCH_ARGS(&L, 0, RAID_ARG_BUF(src), RAID_ARG_U32(off), RAID_ARG_U32(len), RAID_ARG_I32(np),
                     RAID_ARG_BUF(&s->pref), RAID_ARG_U32(mask >> 32), RAID_ARG_U32(mask), RAID_ARG_I32(shift),
                     RAID_ARG_I32(bits), RAID_ARG_I32(first), RAID_ARG_I32(compact), RAID_ARG_BUF(&s->aux),
                     RAID_ARG_BUF(compact ? next : &s->aux));
    launch(s, &L, len);
    RAID_LAUNCH_CALL(&L, raidBufDownload(ctx, &s->aux, 0, naux, s->haux, 1, NULL));
    if (L.st == RAID_OK)
        settle(s);
    return raidLaunchEnd(&L);
}

/* Ranks ranks[0..m) (m <= SEL_MAXP) of the keys src[off .. off + len) (as input words), whose top c0 bits
 * are known to be those of pfx0 and below which lie nless0 keys of the segment (ranks count from the
 * segment's smallest key); info from the first pass when want_info (src is x, c0 = 0). */
static raid_status ranks_from(RaidSelDevice *s, const RaidBuf *src0, size_t off, size_t len, int c0, uint64_t pfx0,
                              uint64_t nless0, const int64_t *ranks, size_t m, RaidSelRank *res,
                              RaidSelInfo *info, int want_info)
{
    raid_ctx *ctx = s->ctx;
    sel_state q;
    for (size_t j = 0; j < m; j++) {
        q.rr[j] = (uint64_t)ranks[j] - nless0;
        q.pfx[j] = pfx0;
        q.nless[j] = nless0;
    }
    RaidBuf cand[2] = {{0}, {0}}; /* candidates: the current one and the next (re-compaction) */
    int cur = 0;
    const RaidBuf *src = src0;
    int c = c0;
    uint64_t matching = len; /* elements matching the prefixes found so far */
    RaidKernel *k = NULL;
    raid_status st = RAID_OK;
    int knp = 0; /* the prefixes k was built for (SEL_NP) */
    while (st == RAID_OK) {
        if (src != &s->x && len <= HOST_FINISH) { /* few candidates: the cpu path's select finishes */
            st = host_finish(s, src, off, len, c, &q, ranks, m, res);
            break;
        }
        const int bits = 64 - c < SEL_DIGIT ? 64 - c : SEL_DIGIT, shift = 64 - c - bits;
        /* distinct prefixes (ranks ascending: equal prefixes are neighbours) */
        uint32_t pw[2 * SEL_MAXP];
        int qp[SEL_MAXP], np = 0;
        for (size_t j = 0; j < m; j++) {
            if (j == 0 || q.pfx[j] != q.pfx[j - 1]) {
                pw[2 * np] = (uint32_t)(q.pfx[j] >> 32);
                pw[2 * np + 1] = (uint32_t)q.pfx[j];
                np++;
            }
            qp[j] = np - 1;
        }
        const int compact = c > c0 && matching <= len / 4; /* from x or from the candidates */
        RaidBuf *next = &cand[1 - cur];
        const int first = want_info && c == c0;
        if (np != knp) { /* the kernel's local histogram has np << SEL_DIGIT counters: a build option */
            char opts[512];
            snprintf(opts, sizeof opts, "-DSEL_NP=%d %s", np, raidTuneBuildOptions(ctx));
            raidKernelPut(ctx, k);
            k = NULL;
            if ((st = raidKernelGet(ctx, "col_select.cl", "col_sel_hist", opts, &k)) != RAID_OK)
                break;
            knp = np;
        }
        if ((compact && (st = raidBufAcquire(ctx, RAID_DT_UINT, 2 * (size_t)matching, next)) != RAID_OK) ||
            (st = hist_pass(s, k, src, off, len, c, bits, pw, np, first, compact, next)) != RAID_OK)
            break;
        if (first)
            info_from(info, s->haux[0], s->haux[1], s->haux[2]);
        for (size_t j = 0; j < m; j++) {
            const uint32_t *h = s->haux + SEL_AUX_HIST + ((size_t)qp[j] << bits);
            uint64_t cum = 0;
            size_t b = 0;
            while (cum + h[b] <= q.rr[j])
                cum += h[b++];
            q.rr[j] -= cum;
            q.nless[j] += cum;
            q.pfx[j] |= (uint64_t)b << shift;
            q.cnt[j] = h[b];
        }
        c += bits;
        if (compact) {
            if (s->haux[3] != matching) { /* an invariant of the kernels (the counts of one pass set) */
                st = raidFail(ctx, RAID_EDEVICE, "selection on a device: %u candidates compacted, %llu expected",
                               s->haux[3], (unsigned long long)matching);
                break;
            }
            raidBufRelease(ctx, &cand[cur]);
            cur = 1 - cur;
            src = &cand[cur];
            off = 0;
            len = (size_t)matching;
        }
        matching = 0;
        for (size_t j = 0; j < m; j++)
            if (j == 0 || q.pfx[j] != q.pfx[j - 1])
                matching += q.cnt[j];
        if (c == 64) {
            for (size_t j = 0; j < m; j++)
                res[j] = (RaidSelRank){q.pfx[j], q.nless[j], q.cnt[j]};
            break;
        }
    }
    raidKernelPut(ctx, k);
    raidBufRelease(ctx, &cand[0]);
    raidBufRelease(ctx, &cand[1]);
    return st;
}

/* The window pass's windows (docs/column.md "Selection"), its pivots and their counts. */
typedef struct sel_windows {
    RaidSelWindows W;
    int nw;                                  /* after merging */
    uint64_t pk[RAID_SEL_MAXW][SEL_NPIV];    /* each window's pivots, ascending */
    int npk[RAID_SEL_MAXW];
    uint32_t pv[RAID_SEL_MAXW * SEL_PSTRIDE]; /* the pivots as the kernel reads them */
    uint32_t wv[4 * RAID_SEL_MAXW];          /* the windows (klo, kspan) as the kernel reads them */
    uint64_t cap;                            /* copies per window at most */
} sel_windows;

/* The keys of a sample of x[base .. base + n) (every step-th, ns of them; col_sel_sample) into sw (2 ns
 * words, as read) and sk (2 ns keys of room: the first ns the keys). */
static raid_status sample_keys(RaidSelDevice *s, size_t base, size_t step, size_t ns, uint32_t *sw, uint64_t *sk)
{
    raid_ctx *ctx = s->ctx;
    RaidBuf sb = {0};
    RaidLaunch L;
    raidLaunchKernel(&L, ctx, "col_select.cl", "col_sel_sample", raidTuneBuildOptions(ctx));
    RAID_LAUNCH_CALL(&L, raidBufAcquire(ctx, RAID_DT_UINT, 2 * ns, &sb));
    RAID_LAUNCH_ARGS(&L, 0, RAID_ARG_BUF(&s->x), RAID_ARG_U32(base), RAID_ARG_U32(step), RAID_ARG_U32(ns),
                     RAID_ARG_BUF(&sb));
    raidLaunchSize(&L, ns, SEL_LOCAL);
    if (L.st == RAID_OK) {
        assert(s->nev < 2);
        raidLaunchGo(&L, &s->ev[s->nev++]);
    }
    RAID_LAUNCH_CALL(&L, raidBufDownload(ctx, &sb, 0, 2 * ns, sw, 1, NULL));
    if (L.st == RAID_OK)
        settle(s);
    for (size_t j = 0; L.st == RAID_OK && j < ns; j++)
        sk[j] = (uint64_t)sw[2 * j] << 32 | sw[2 * j + 1];
    raidBufRelease(ctx, &sb);
    return raidLaunchEnd(&L);
}

/* Windows that overlap merged (ascending in rank, hence in klo: the kernel copies a key to one window);
 * pivots: a window whose sample keys (sw, ns of them) take at most SEL_NPIV distinct values (ties) counts
 * each of them, and when those counts add up to the window's keys its ranks are read off them (no copies
 * needed); the windows' copies at most (cap). */
static void shape_windows(sel_windows *v, const uint32_t *sw, size_t ns, size_t n)
{
    RaidSelWindows *W = &v->W;
    int nw = 0;
    for (int w = 0; w < W->nw; w++) {
        const uint64_t hi = W->klo[w] + W->kspan[w];
        if (nw > 0 && W->klo[w] <= W->klo[nw - 1] + W->kspan[nw - 1]) {
            const uint64_t phi = W->klo[nw - 1] + W->kspan[nw - 1];
            W->kspan[nw - 1] = (hi > phi ? hi : phi) - W->klo[nw - 1];
            W->expect[nw - 1] += W->expect[w];
            W->c0[nw] = W->c0[w + 1];
        } else {
            W->klo[nw] = W->klo[w];
            W->kspan[nw] = W->kspan[w];
            W->expect[nw] = W->expect[w];
            W->c0[nw] = W->c0[w];
            W->c0[nw + 1] = W->c0[w + 1];
            nw++;
        }
    }
    v->nw = nw;
    memset(v->pv, 0, sizeof v->pv);
    memset(v->npk, 0, sizeof v->npk);
    for (int w = 0; w < nw; w++) {
        uint64_t *pk = v->pk[w];
        int npk = 0;
        for (size_t j = 0; j < ns && npk >= 0; j++) { /* sw: the sample as read (sk is reordered) */
            const uint64_t key = (uint64_t)sw[2 * j] << 32 | sw[2 * j + 1];
            if (key - W->klo[w] > W->kspan[w])
                continue;
            int q = 0;
            while (q < npk && pk[q] != key)
                q++;
            if (q < npk)
                continue;
            if (q == SEL_NPIV)
                npk = -1; /* too many distinct keys: no pivots */
            else
                pk[npk++] = key;
        }
        npk = npk < 0 ? 0 : npk;
        for (int q = 1; q < npk; q++) /* ascending */
            for (int r = q; r > 0 && pk[r - 1] > pk[r]; r--) {
                const uint64_t t = pk[r];
                pk[r] = pk[r - 1];
                pk[r - 1] = t;
            }
        v->npk[w] = npk;
        v->pv[w * SEL_PSTRIDE] = (uint32_t)npk;
        for (int q = 0; q < npk; q++) {
            v->pv[w * SEL_PSTRIDE + 1 + 2 * q] = (uint32_t)(pk[q] >> 32);
            v->pv[w * SEL_PSTRIDE + 2 + 2 * q] = (uint32_t)pk[q];
        }
    }
    v->cap = 0;
    for (int w = 0; w < nw; w++) {
        const uint64_t cw = 2 * W->expect[w] + 65536;
        v->cap = cw > v->cap ? cw : v->cap;
        v->wv[4 * w] = (uint32_t)(W->klo[w] >> 32);
        v->wv[4 * w + 1] = (uint32_t)W->klo[w];
        v->wv[4 * w + 2] = (uint32_t)(W->kspan[w] >> 32);
        v->wv[4 * w + 3] = (uint32_t)W->kspan[w];
    }
    if (v->cap > n)
        v->cap = n;
}

/* One pass over x[base .. base + n) (col_sel_window): the keys below each window counted, those in it
 * copied into cb (cap per window, acquired here), the pivots counted, the info noted; the counts read back
 * into s->haux. wb and pb (acquired here) hold the windows and pivots; the caller releases all three. */
static raid_status window_pass(RaidSelDevice *s, size_t base, size_t n, const sel_windows *v, RaidBuf *wb, RaidBuf *cb,
                               RaidBuf *pb)
{
    raid_ctx *ctx = s->ctx;
    const int nw = v->nw;
    const size_t naux = SEL_AUX_HIST + 2 * RAID_SEL_MAXW + RAID_SEL_MAXW * SEL_NPIV;
    memset(s->haux, 0, naux * sizeof *s->haux);
    s->haux[1] = s->haux[2] = SEL_NONE;
    const size_t span = SEL_WIN_TILES * SEL_WE * SEL_LOCAL; /* elements per work-group */
    size_t ngr = (n + span - 1) / span;
    ngr = ngr > SEL_WIN_GROUPS ? SEL_WIN_GROUPS : ngr;
    RaidLaunch L;
    raidLaunchKernel(&L, ctx, "col_select.cl", "col_sel_window", raidTuneBuildOptions(ctx));
    RAID_LAUNCH_CALL(&L, raidBufAcquire(ctx, RAID_DT_UINT, 4 * RAID_SEL_MAXW, wb));
    RAID_LAUNCH_CALL(&L, raidBufAcquire(ctx, RAID_DT_UINT, 2 * (size_t)nw * v->cap, cb));
    RAID_LAUNCH_CALL(&L, raidBufAcquire(ctx, RAID_DT_UINT, RAID_SEL_MAXW * SEL_PSTRIDE, pb));
    RAID_LAUNCH_CALL(&L, raidBufUpload(ctx, wb, 0, 4 * (size_t)nw, v->wv, 0, NULL));
    RAID_LAUNCH_CALL(&L, raidBufUpload(ctx, pb, 0, (size_t)nw * SEL_PSTRIDE, v->pv, 0, NULL));
    RAID_LAUNCH_CALL(&L, raidBufUpload(ctx, &s->aux, 0, naux, s->haux, 1, NULL));
    RAID_LAUNCH_ARGS(&L, 0, RAID_ARG_BUF(&s->x), RAID_ARG_U32(base), RAID_ARG_U32(n), RAID_ARG_I32(nw),
                     RAID_ARG_BUF(wb), RAID_ARG_I32(1), RAID_ARG_BUF(&s->aux), RAID_ARG_BUF(cb), RAID_ARG_U32(v->cap),
                     RAID_ARG_BUF(pb));
    raidLaunchSize(&L, ngr * SEL_LOCAL, SEL_LOCAL);
    if (L.st == RAID_OK) {
        assert(s->nev < 2);
        raidLaunchGo(&L, &s->ev[s->nev++]);
    }
    RAID_LAUNCH_CALL(&L, raidBufDownload(ctx, &s->aux, 0, naux, s->haux, 1, NULL));
    if (L.st == RAID_OK)
        settle(s);
    return raidLaunchEnd(&L);
}

/* Each window's ranks from the window pass's counts (cnts): a window whose keys are all equal at once, one
 * whose keys are all pivots from their counts, the others by the radix passes on its copies in cb only
 * (starting after the bits its bounds share), or on the host when few. */
static raid_status answer_windows(RaidSelDevice *s, const sel_windows *v, const uint32_t *cnts, const RaidBuf *cb,
                                  const int64_t *ranks, RaidSelRank *res)
{
    const RaidSelWindows *W = &v->W;
    raid_status st = RAID_OK;
    for (int w = 0; w < v->nw && st == RAID_OK; w++) {
        const uint64_t below = cnts[w], C = cnts[RAID_SEL_MAXW + w];
        const uint64_t klo = W->klo[w], khi = klo + W->kspan[w];
        const int c0 = klo == khi ? 64 : __builtin_clzll(klo ^ khi); /* the bits every key in it shares */
        const size_t j0 = W->c0[w], nr = W->c0[w + 1] - j0;
        if (c0 == 64) { /* every key in the window is klo */
            for (size_t j = j0; j < j0 + nr; j++)
                res[j] = (RaidSelRank){klo, below, C};
            continue;
        }
        const uint32_t *eq = cnts + 2 * RAID_SEL_MAXW + w * SEL_NPIV;
        uint64_t all = 0;
        for (int q = 0; q < v->npk[w]; q++)
            all += eq[q];
        if (v->npk[w] > 0 && all == C) { /* every key in the window is a pivot: the ranks from their counts */
            for (size_t j = j0; j < j0 + nr; j++) {
                uint64_t cum = below;
                int q = 0;
                while (cum + eq[q] <= (uint64_t)ranks[j]) /* the window holds the rank: q < npk[w] */
                    cum += eq[q++];
                assert(q < v->npk[w]);
                res[j] = (RaidSelRank){v->pk[w][q], cum, eq[q]};
            }
            continue;
        }
        for (size_t j = j0; j < j0 + nr && st == RAID_OK; j += SEL_MAXP)
            st = ranks_from(s, cb, (size_t)w * v->cap, (size_t)C, c0, c0 ? klo & (~0ull << (64 - c0)) : 0, below,
                            ranks + j, j0 + nr - j < SEL_MAXP ? j0 + nr - j : SEL_MAXP, res + j, NULL, 0);
    }
    return st;
}

/* The window pass (docs/column.md "Selection"): the keys of a sample of x (every step-th, about
 * SEL_SAMPLE of them, col_sel_sample) give each cluster of ranks a window (raidSelWindowsFromSample,
 * the cpu path's choice); windows that overlap are merged (the kernel copies a key to one window); one
 * pass over x (col_sel_window) counts the keys below each window, copies those in it and notes the info;
 * each window whose keys are all equal is answered at once, the others by the radix passes on its copies
 * only (starting after the bits its bounds share), or on the host when few. Returns 1 (res and info set),
 * 0 (not applicable or a window missed its ranks: the caller runs the radix passes on x; results never
 * depend on which path answered), -1 (an error: *st). */
static int window_ranks(RaidSelDevice *s, size_t base, size_t n, const int64_t *ranks, size_t m, RaidSelRank *res,
                        RaidSelInfo *info, raid_status *st)
{
    raid_ctx *ctx = s->ctx;
    const size_t step = n / SEL_SAMPLE < 64 ? 64 : n / SEL_SAMPLE, ns = n / step;
    RaidBuf wb = {0}, cb = {0}, pb = {0};
    uint64_t *sk = NULL;
    uint32_t *sw = NULL;
    sel_windows *v = NULL;
    int ret = -1;
    *st = RAID_OK;
    if (ns < 4096)
        return 0;
    if (!(sk = malloc(2 * ns * sizeof *sk)) || !(sw = malloc(2 * ns * sizeof *sw)) || !(v = malloc(sizeof *v))) {
        *st = raidFail(ctx, RAID_ENOMEM, "out of memory (selection on a device)");
        goto out;
    }
    if ((*st = sample_keys(s, base, step, ns, sw, sk)) != RAID_OK)
        goto out;
    const int got = raidSelWindowsFromSample(sk, ns, step, n, ranks, m, &v->W);
    if (got <= 0) {
        if (got < 0)
            *st = raidFail(ctx, RAID_ENOMEM, "out of memory (selection on a device)");
        ret = got;
        goto out;
    }
    shape_windows(v, sw, ns, n);
    if ((*st = window_pass(s, base, n, v, &wb, &cb, &pb)) != RAID_OK)
        goto out;
    ret = 0;
    for (int w = 0; w < v->nw; w++) {
        const uint64_t below = s->haux[SEL_AUX_HIST + w], C = s->haux[SEL_AUX_HIST + RAID_SEL_MAXW + w];
        if (C > v->cap || below > (uint64_t)ranks[v->W.c0[w]] || (uint64_t)ranks[v->W.c0[w + 1] - 1] >= below + C)
            goto out; /* the window missed: the radix passes answer */
    }
    info_from(info, s->haux[0], s->haux[1], s->haux[2]);
    uint32_t cnts[2 * RAID_SEL_MAXW + RAID_SEL_MAXW * SEL_NPIV];
    memcpy(cnts, s->haux + SEL_AUX_HIST, sizeof cnts);
    *st = answer_windows(s, v, cnts, &cb, ranks, res);
    ret = *st == RAID_OK ? 1 : -1;
out:
    /* wv and pv are uploaded without waiting: a failure after their uploads were queued must not return
     * (freeing v) while they may still be read (an upload that failed behind them showed it) */
    if (*st != RAID_OK)
        raidDevDrain(ctx);
    raidBufRelease(ctx, &wb);
    raidBufRelease(ctx, &cb);
    raidBufRelease(ctx, &pb);
    free(sk);
    free(sw);
    free(v);
    return ret;
}

raid_status raidSelDeviceRanks(RaidSelDevice *s, size_t base, size_t n, const int64_t *ranks, size_t m,
                              RaidSelRank *res, RaidSelInfo *info)
{
    raid_status st = RAID_OK;
    if (m == 0) { /* the info alone */
        const int64_t r0 = 0;
        RaidSelRank dummy;
        return ranks_from(s, &s->x, base, n, 0, 0, 0, &r0, 1, &dummy, info, 1);
    }
    if (raidTuneSelectPath(s->ctx) != 1) { /* RAID_TUNE_SELECT_PATH 1: the radix passes only */
        const int r = window_ranks(s, base, n, ranks, m, res, info, &st);
        if (r != 0)
            return r > 0 ? RAID_OK : st;
    }
    for (size_t j = 0; j < m && st == RAID_OK; j += SEL_MAXP)
        st = ranks_from(s, &s->x, base, n, 0, 0, 0, ranks + j, m - j < SEL_MAXP ? m - j : SEL_MAXP, res + j, info,
                        j == 0);
    return st;
}

raid_status raidSelDeviceMinmax(RaidSelDevice *s, size_t base, size_t n, uint64_t *kmin, uint64_t *kmax,
                               RaidSelInfo *info)
{
    raid_ctx *ctx = s->ctx;
    uint32_t *h = s->haux;
    h[0] = SEL_NONE;
    h[1] = 0u;
    h[2] = 0u;
    h[3] = h[4] = h[5] = SEL_NONE;
    h[6] = 0u;
    RaidLaunch L;
    raidLaunchKernel(&L, ctx, "col_select.cl", "col_sel_minmax", raidTuneBuildOptions(ctx));
    RAID_LAUNCH_CALL(&L, raidBufUpload(ctx, &s->aux, 0, 7, h, 1, NULL));
    for (int pass = 0; pass < 2 && L.st == RAID_OK; pass++) {
        RAID_LAUNCH_ARGS(&L, 0, RAID_ARG_BUF(&s->x), RAID_ARG_U32(base), RAID_ARG_U32(n), RAID_ARG_I32(pass),
                         RAID_ARG_BUF(&s->aux));
        launch(s, &L, n);
    }
    RAID_LAUNCH_CALL(&L, raidBufDownload(ctx, &s->aux, 0, 7, h, 1, NULL));
    if (L.st == RAID_OK)
        settle(s);
    const raid_status st = raidLaunchEnd(&L);
    if (st != RAID_OK)
        return st;
    info_from(info, h[2], h[3], h[4]);
    *kmin = (uint64_t)h[0] << 32 | h[5];
    *kmax = info->nnan == n ? 0 : (uint64_t)h[1] << 32 | h[6];
    return RAID_OK;
}

raid_status raidSelDeviceGather(RaidSelDevice *s, size_t base, size_t n, uint64_t K, int mode, int64_t *idx, size_t cnt)
{
    raid_ctx *ctx = s->ctx;
    RaidBuf out = {0};
    uint32_t *w = malloc((cnt ? cnt : 1) * sizeof *w);
    if (!w)
        return raidFail(ctx, RAID_ENOMEM, "out of memory (selection on a device)");
    s->haux[0] = 0u;
    RaidLaunch L;
    raidLaunchKernel(&L, ctx, "col_select.cl", "col_sel_gather", raidTuneBuildOptions(ctx));
    RAID_LAUNCH_CALL(&L, raidBufAcquire(ctx, RAID_DT_UINT, cnt ? cnt : 1, &out));
    RAID_LAUNCH_CALL(&L, raidBufUpload(ctx, &s->aux, 0, 1, s->haux, 1, NULL));
    RAID_LAUNCH_ARGS(&L, 0, RAID_ARG_BUF(&s->x), RAID_ARG_U32(base), RAID_ARG_U32(n), RAID_ARG_U32(K >> 32),
                     RAID_ARG_U32(K), RAID_ARG_I32(mode), RAID_ARG_BUF(&s->aux), RAID_ARG_BUF(&out));
    launch(s, &L, n);
    RAID_LAUNCH_CALL(&L, raidBufDownload(ctx, &s->aux, 0, 1, s->haux, 1, NULL));
    if (L.st == RAID_OK) {
        settle(s);
        if (s->haux[0] != cnt)
            raidLaunchFail(&L, raidFail(ctx, RAID_EDEVICE, "selection on a device: %u elements gathered, %zu expected",
                                        s->haux[0], cnt));
    }
    if (cnt)
        RAID_LAUNCH_CALL(&L, raidBufDownload(ctx, &out, 0, cnt, w, 1, NULL));
    for (size_t i = 0; L.st == RAID_OK && i < cnt; i++)
        idx[i] = w[i];
    raidBufRelease(ctx, &out);
    free(w);
    return raidLaunchEnd(&L);
}
