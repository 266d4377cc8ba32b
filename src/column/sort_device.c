/* The device path of the sorts (kernels/col_sort.cl; docs/column.md "Sorting"): the values go up as 32-bit
 * words, the device forms the keys (raidKeySort) and counts every digit position's digits at once; the host
 * reads those histograms (12 KB at 8-bit digits), skips the digit positions that do not vary and sends each
 * pass's digit starts; then ONE kernel per pass (Onesweep: a stable tile ranking in local memory, decoupled look-back
 * across tiles, a coalesced write of each digit's run). The last pass writes the output itself: the doubles
 * of the keys (the sort of values when every key gives its value's bits back), the indices (argsort,
 * uint32 or int64 words) or the int64 keys (pairs); otherwise the element indices are carried and the
 * values gathered by them. Segmented sorts: the segment ids are the keys' most significant part, sorted by
 * passes after the key's. Digit width SORT_BITS (default 8; "-DSORT_BITS=b" in the context's tuning build
 * options, 1..8 and 2^b at most the work-group); tile rounds SORT_ROUNDS (default 20: the fastest of 12,
 * 16 and 20 on the H200, and the most whose tile of uint2 keys fits 48 KB of local memory; "-DSORT_ROUNDS=r",
 * reduced to what the device's local memory holds). The kernels' times (profiling events) are summed into
 * ctx->timing.kernel_s. */
#include "column/sort_impl.h"

#include "device/launch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_EVENTS 64
#define OUT_NONE 0 /* as in kernels/col_sort.cl */
#define OUT_VALUES 1
#define OUT_IDX32 2
#define OUT_IDX64 3
#define OUT_IKEYS 4

typedef struct sort_dev {
    raid_ctx *ctx;
    RaidBuf x, ik, valid, offs, segid, hist, bases, look, keys[2], pay[2], out;
    RaidKernel *kkeys, *kgather;
    RaidEvent ev[MAX_EVENTS];
    char lab[MAX_EVENTS]; /* what each event timed: f fill, k sort_keys, p a pass, g the gather */
    int nev;
} sort_dev;

static int tune_int(raid_ctx *ctx, const char *name, int dflt)
{
    const char *o = strstr(raidTuneBuildOptions(ctx), name);
    return o ? atoi(o + strlen(name)) : dflt;
}

/* The next event slot (events are summed and released at the end). */
static RaidEvent *next_ev(sort_dev *d, char lab)
{
    if (d->nev == MAX_EVENTS) { /* never with at most 8 + 11 passes; keep the time, free the slot */
        d->ctx->timing.kernel_s += raidEventSeconds(&d->ev[MAX_EVENTS - 1]);
        raidEventRelease(&d->ev[MAX_EVENTS - 1]);
        d->nev--;
    }
    d->lab[d->nev] = lab;
    return &d->ev[d->nev++];
}

/* Sums the events' times into the context's timing; RAID_SORT_PROFILE set in the environment: one line on
 * stderr per call with each event's time (the benchmark's breakdown of where the time goes). */
static void settle(sort_dev *d)
{
    const int profile = d->nev > 0 && getenv("RAID_SORT_PROFILE") != NULL;
    if (profile)
        fprintf(stderr, "sort profile (ms):");
    for (int i = 0; i < d->nev; i++) {
        const double t = raidEventSeconds(&d->ev[i]);
        d->ctx->timing.kernel_s += t;
        if (profile)
            fprintf(stderr, " %c %.4f", d->lab[i], t * 1e3);
        raidEventRelease(&d->ev[i]);
    }
    if (profile)
        fprintf(stderr, "\n");
    d->nev = 0;
}

/* Enqueue plan L over `items` work-items in groups of wg, its event timed as `lab` (settle sums them). */
static void launch(sort_dev *d, RaidLaunch *L, size_t items, size_t wg, char lab)
{
    raidLaunchSize(L, items, wg);
    raidLaunchGo(L, L->st == RAID_OK ? next_ev(d, lab) : NULL);
}

/* A pass as planned by the host. */
typedef struct pass_plan {
    int dmode, shift, row;
} pass_plan;

/* sort_pass's arguments, named (kernels/col_sort.cl: their meaning there), for the sort's passes and the
 * group-by's one-pass partition alike. */
typedef struct pass_args {
    const RaidBuf *kin, *pin, *segid;
    uint32_t n;
    int shift, dmode, pmode, wkeys, wpay, omode, desc;
    uint32_t base_lo, base_hi;
    const RaidBuf *bases;
    uint32_t boff;
    const RaidBuf *look;
    uint32_t lcur, lnext;
    const RaidBuf *kout, *pout, *out;
} pass_args;

/* Binds p to plan L's kernel (a sort_pass) in the kernel's order: the one place that knows it. */
static void set_pass_args(RaidLaunch *L, const pass_args *p)
{
    RAID_LAUNCH_ARGS(L, 0, RAID_ARG_BUF(p->kin), RAID_ARG_BUF(p->pin), RAID_ARG_BUF(p->segid), RAID_ARG_U32(p->n),
                     RAID_ARG_I32(p->shift), RAID_ARG_I32(p->dmode), RAID_ARG_I32(p->pmode), RAID_ARG_I32(p->wkeys),
                     RAID_ARG_I32(p->wpay), RAID_ARG_I32(p->omode), RAID_ARG_I32(p->desc), RAID_ARG_U32(p->base_lo),
                     RAID_ARG_U32(p->base_hi), RAID_ARG_BUF(p->bases), RAID_ARG_U32(p->boff), RAID_ARG_BUF(p->look),
                     RAID_ARG_U32(p->lcur), RAID_ARG_U32(p->lnext), RAID_ARG_BUF(p->kout), RAID_ARG_BUF(p->pout),
                     RAID_ARG_BUF(p->out));
}

/* The passes' shape on ctx's device: work-group *wg (256 at most, a power of two, at least 32), digit width
 * *bits (want_bits, else the tuning's -DSORT_BITS=, default 8) and rounds per tile *rounds (-DSORT_ROUNDS=, default 20), reduced
 * until the tile as uint2 in local memory (or the ranking's masks and counts), the digit tables and the
 * scan's words fit the device's local memory (fewer rounds, then narrower digits unless want_bits is given:
 * 8-bit digits at one round take 28 KB, within OpenCL's 32 KB minimum). RAID_EUNSUPPORTED: work-groups of fewer
 * than 32 work-items, or than 2^want_bits. */
static raid_status sort_shape(raid_ctx *ctx, int want_bits, size_t *wgp, int *bitsp, int *roundsp)
{
    size_t wg = raidDevMaxWg(ctx);
    if (wg < 32 || (want_bits && ((size_t)1 << want_bits) > wg))
        return raidFail(ctx, RAID_EUNSUPPORTED, "sorting on a device: work-groups of %zu work-items (at least %d)", wg,
                         want_bits > 5 ? 1 << want_bits : 32);
    wg = wg >= 256 ? 256 : wg >= 128 ? 128 : wg >= 64 ? 64 : 32;
    int bits = want_bits ? want_bits : tune_int(ctx, "-DSORT_BITS=", 8);
    bits = bits < 1 ? 1 : bits > 8 ? 8 : bits;
    while ((1u << bits) > wg)
        bits--;
    int rounds = tune_int(ctx, "-DSORT_ROUNDS=", 20);
    rounds = rounds < 1 ? 1 : rounds > 64 ? 64 : rounds;
    for (;;) {
        const uint64_t tilew = (uint64_t)rounds * wg * 2, rw = ((uint64_t)1 << bits) * (wg / 32);
        const uint64_t maskw = 3 * rw; /* as SORT_RANKW */
        const uint64_t bytes = 4 * ((tilew > maskw ? tilew : maskw) + 2 * ((uint64_t)1 << bits) + wg + 1);
        if (bytes <= raidDevLocalMem(ctx) || (rounds == 1 && (bits == 1 || want_bits)))
            break;
        if (rounds > 1)
            rounds--;
        else
            bits--;
    }
    *wgp = wg, *bitsp = bits, *roundsp = rounds;
    return RAID_OK;
}

/* One sort's shape and state: the request, its size, the passes' shape, the segment bits, the plan of the
 * passes (the digit positions whose digits vary) and the host copies of the histograms and digit starts. */
typedef struct sort_job {
    const RaidSortReq *r;
    int64_t base;
    size_t N, wg;
    uint32_t n, radix, ntiles, vbit0;
    int bits, rounds, ndig, segbits, masked, pairs, exact, npass;
    size_t vbytes, nhist;
    char opts[512];
    pass_plan plan[64];
    uint32_t *hist, *bases;
} sort_job;

/* The shape of sorting r on ctx's device into j (sizes, digits, tiles, the segment ids' bits, build options). */
static raid_status sort_setup(raid_ctx *ctx, const RaidSortReq *r, sort_job *j)
{
    j->r = r;
    j->base = r->offsets[0];
    j->N = (size_t)(r->offsets[r->nseg] - j->base);
    if (j->N > RAID_SORT_DEVICE_MAX - 1)
        return raidFail(ctx, RAID_EUNSUPPORTED, "sorting on a device: %zu values in one call (at most %u)", j->N,
                         RAID_SORT_DEVICE_MAX - 1);
    j->n = (uint32_t)j->N;
    const raid_status st = sort_shape(ctx, 0, &j->wg, &j->bits, &j->rounds);
    if (st != RAID_OK)
        return st;
    const uint32_t tile = (uint32_t)j->wg * (uint32_t)j->rounds;
    j->radix = 1u << j->bits;
    j->ntiles = (j->n + tile - 1) / tile;
    j->ndig = (64 + j->bits - 1) / j->bits;
    const int sdig = (32 + j->bits - 1) / j->bits;
    /* the tuning options first: a later -D wins, so the kernels get the (clamped) values the host plans with */
    snprintf(j->opts, sizeof j->opts, "%s -DSORT_BITS=%d -DSORT_WG=%zu -DSORT_ROUNDS=%d", raidTuneBuildOptions(ctx),
             j->bits, j->wg, j->rounds);
    /* the segments that hold elements: their ids' bits are sorted after the keys */
    size_t nonempty = 0;
    for (size_t s = 0; s < r->nseg; s++)
        nonempty += r->offsets[s + 1] > r->offsets[s];
    if (nonempty > 1)
        while (j->segbits < 32 && ((uint64_t)(r->nseg - 1) >> j->segbits) != 0)
            j->segbits++;
    j->masked = r->valid != NULL;
    j->pairs = r->out == RAID_SORT_PAIRS;
    j->vbit0 = (uint32_t)(j->base & 7);
    j->vbytes = j->masked ? (j->vbit0 + j->N + 7) / 8 : 1;
    j->nhist = (size_t)(j->ndig + sdig) * j->radix + 1;
    return RAID_OK;
}

/* The inputs on the device (the float64 or int64 values as 32-bit words, little-endian: word 2i the low
 * half; validity bits; the segments' offsets) and sort_keys: every element's key (and segment id) and every
 * digit position's histogram, read back into j->hist. */
static raid_status sort_keys(raid_ctx *ctx, sort_job *j, sort_dev *d)
{
    const RaidSortReq *r = j->r;
    const size_t N = j->N;
    const uint32_t zero = 0;
    const uint8_t nobyte = 0;
    uint32_t *offs = j->segbits ? malloc((r->nseg + 1) * sizeof *offs) : NULL;
    RaidLaunch L;
    raidLaunchUse(&L, ctx, d->kkeys);
    if (j->segbits && !offs)
        raidLaunchFail(&L, raidFail(ctx, RAID_ENOMEM, "out of memory (sorting on a device)"));
    RaidMemKind kx = RAID_MEM_HOST; /* x: wrapped where it is device memory (docs/device.md), else uploaded */
    RAID_LAUNCH_CALL(&L, raidBufInput(ctx, r->x + j->base, RAID_DT_UINT, 2 * N, "x", &d->x, &kx));
    RAID_LAUNCH_CALL(&L, raidBufAcquire(ctx, RAID_DT_BYTE, j->vbytes, &d->valid));
    RAID_LAUNCH_CALL(&L, raidBufAcquire(ctx, RAID_DT_UINT, j->nhist, &d->hist));
    RAID_LAUNCH_CALL(&L, raidBufAcquire(ctx, RAID_DT_UINT, j->segbits ? N : 1, &d->segid));
    RAID_LAUNCH_CALL(&L, raidBufAcquire(ctx, RAID_DT_UINT, j->segbits ? r->nseg + 1 : 1, &d->offs));
    RAID_LAUNCH_CALL(&L, raidBufAcquire(ctx, RAID_DT_UINT, 2 * N, &d->keys[0]));
    if (j->masked)
        RAID_LAUNCH_CALL(&L, raidBufUpload(ctx, &d->valid, 0, j->vbytes, r->valid + j->base / 8, 0, NULL));
    else
        RAID_LAUNCH_CALL(&L, raidBufFill(ctx, &d->valid, &nobyte, NULL));
    RAID_LAUNCH_CALL(&L, raidBufFill(ctx, &d->hist, &zero, next_ev(d, 'f')));
    ctx->timing.bytes_in = (kx == RAID_MEM_HOST ? 2 * N * sizeof(uint32_t) : 0) + (j->masked ? j->vbytes : 0);
    const RaidBuf *keysrc = &d->x;
    if (j->pairs) {
        RAID_LAUNCH_CALL(&L, raidBufAcquire(ctx, RAID_DT_UINT, 2 * N, &d->ik));
        RAID_LAUNCH_CALL(&L, raidBufUpload(ctx, &d->ik, 0, 2 * N, r->ikeys + j->base, 0, NULL));
        keysrc = &d->ik;
        ctx->timing.bytes_in += 2 * N * sizeof(uint32_t);
    }
    for (size_t s = 0; offs && L.st == RAID_OK && s <= r->nseg; s++)
        offs[s] = (uint32_t)(r->offsets[s] - j->base);
    if (offs)
        RAID_LAUNCH_CALL(&L, raidBufUpload(ctx, &d->offs, 0, r->nseg + 1, offs, 1, NULL));
    size_t groups = (N + j->wg * 16 - 1) / (j->wg * 16);
    groups = groups < 1 ? 1 : groups > 1024 ? 1024 : groups;
    RAID_LAUNCH_ARGS(&L, 0, RAID_ARG_BUF(keysrc), RAID_ARG_BUF(&d->valid), RAID_ARG_I32(j->masked),
                     RAID_ARG_U32(j->vbit0), RAID_ARG_I32(r->desc), RAID_ARG_I32(j->pairs), RAID_ARG_U32(j->n),
                     RAID_ARG_BUF(&d->offs), RAID_ARG_U32(r->nseg), RAID_ARG_I32(j->segbits), RAID_ARG_BUF(&d->keys[0]),
                     RAID_ARG_BUF(&d->segid), RAID_ARG_BUF(&d->hist));
    launch(d, &L, groups * j->wg, j->wg, 'k');
    j->hist = malloc(j->nhist * sizeof *j->hist);
    j->bases = malloc((j->nhist - 1) * sizeof *j->bases);
    if (!j->hist || !j->bases)
        raidLaunchFail(&L, raidFail(ctx, RAID_ENOMEM, "out of memory (sorting on a device)"));
    RAID_LAUNCH_CALL(&L, raidBufDownload(ctx, &d->hist, 0, j->nhist, j->hist, 1, NULL));
    free(offs);
    return raidLaunchEnd(&L);
}

/* The passes: the digit positions whose digits vary (a row with one non-zero count moves nothing), each
 * with its digits' starts in j->bases; whether the sort of values needs no payload (exact: every key gives
 * its value's bits back). */
static void plan_passes(sort_job *j)
{
    const int nsd = j->segbits ? (j->segbits + j->bits - 1) / j->bits : 0;
    j->npass = 0;
    for (int row = 0; row < j->ndig + nsd; row++) {
        const uint32_t *h = j->hist + (size_t)row * j->radix;
        int constant = 0;
        for (uint32_t b = 0; b < j->radix; b++)
            constant |= h[b] == j->n;
        if (constant)
            continue;
        uint32_t run = 0;
        for (uint32_t b = 0; b < j->radix; b++) {
            j->bases[(size_t)j->npass * j->radix + b] = run;
            run += j->hist[(size_t)row * j->radix + b];
        }
        j->plan[j->npass].dmode = row >= j->ndig;
        j->plan[j->npass].shift = (row >= j->ndig ? row - j->ndig : row) * j->bits;
        j->plan[j->npass].row = row;
        j->npass++;
    }
    j->exact = j->r->out == RAID_SORT_VALUES && !j->masked && !j->segbits && !j->hist[j->nhist - 1];
}

/* Every key (and segment id) equal: the stable sort is the input's order. With device memory (r->dev) the
 * output is made where it lives: x's words (d->x) delivered, the indices uploaded into it. */
static raid_status identity_output(raid_ctx *ctx, const sort_job *j, sort_dev *d)
{
    const RaidSortReq *r = j->r;
    const int64_t base = j->base;
    const size_t N = j->N;
    if (r->dev) {
        if (r->out == RAID_SORT_VALUES)
            return raidBufDeliver(ctx, &d->x, 0, 2 * N, r->vout + base, "the output");
        const int wide = r->out == RAID_SORT_IDX64;
        void *h = malloc(N * (wide ? 8 : 4));
        if (!h)
            return raidFail(ctx, RAID_ENOMEM, "out of memory (sorting on a device)");
        for (size_t i = 0; i < N; i++)
            if (wide)
                ((int64_t *)h)[i] = base + (int64_t)i;
            else
                ((uint32_t *)h)[i] = (uint32_t)(base + (int64_t)i);
        RaidBuf o;
        raid_status st = raidBufOutput(ctx, wide ? (void *)(r->i64 + base) : (void *)(r->i32 + base), RAID_DT_UINT,
                                       wide ? 2 * N : N, "the output", &o);
        if (st == RAID_OK && (st = raidBufUpload(ctx, &o, 0, wide ? 2 * N : N, h, 1, NULL)) == RAID_OK)
            st = raidBufDeliver(ctx, &o, 0, wide ? 2 * N : N, wide ? (void *)(r->i64 + base) : (void *)(r->i32 + base),
                                "the output");
        raidBufRelease(ctx, &o);
        free(h);
        return st;
    }
    switch (r->out) {
    case RAID_SORT_VALUES:
        memcpy(r->vout + base, r->x + base, N * sizeof *r->x);
        break;
    case RAID_SORT_PAIRS:
        memcpy(r->vout + base, r->x + base, N * sizeof *r->x);
        memcpy(r->kout + base, r->ikeys + base, N * sizeof *r->ikeys);
        break;
    case RAID_SORT_IDX32:
        for (size_t i = 0; i < N; i++)
            r->i32[base + i] = (uint32_t)(base + (int64_t)i);
        break;
    case RAID_SORT_IDX64:
        for (size_t i = 0; i < N; i++)
            r->i64[base + i] = base + (int64_t)i;
        break;
    }
    return RAID_OK;
}

/* The passes (one sort_pass launch each); the last writes the output, or the indices that the gather then
 * follows (sort of values that is not exact, pairs); the outputs read back. */
static raid_status run_passes(raid_ctx *ctx, const sort_job *j, sort_dev *d)
{
    const RaidSortReq *r = j->r;
    const size_t N = j->N, nlook = 1 + (size_t)j->ntiles * j->radix; /* one half of the look-back words */
    const int exact = j->exact, npass = j->npass;
    const int outmode = r->out == RAID_SORT_VALUES ? (exact ? OUT_VALUES : OUT_NONE)
                        : r->out == RAID_SORT_IDX32 ? OUT_IDX32
                        : r->out == RAID_SORT_IDX64 ? OUT_IDX64
                                                    : OUT_IKEYS;
    const uint32_t zero = 0;
    char popts[560]; /* the passes of an exact sort of values move keys only: a kernel without payload */
    snprintf(popts, sizeof popts, "%s -DSORT_PAY=%d", j->opts, !exact);
    RaidLaunch L;
    raidLaunchKernel(&L, ctx, "col_sort.cl", "sort_pass", popts);
    if (getenv("RAID_SORT_PROFILE") && L.st == RAID_OK)
        fprintf(stderr, "sort plan: n %u, wg %zu, bits %d, rounds %d, passes %d, exact %d, options '%s'\n", j->n, j->wg,
                j->bits, j->rounds, npass, exact, raidTuneBuildOptions(ctx));
    RAID_LAUNCH_CALL(&L, raidBufAcquire(ctx, RAID_DT_UINT, 2 * N, &d->keys[1]));
    if (!exact) {
        RAID_LAUNCH_CALL(&L, raidBufAcquire(ctx, RAID_DT_UINT, N, &d->pay[0]));
        RAID_LAUNCH_CALL(&L, raidBufAcquire(ctx, RAID_DT_UINT, N, &d->pay[1]));
    }
    RAID_LAUNCH_CALL(&L, raidBufAcquire(ctx, RAID_DT_UINT, (size_t)npass * j->radix, &d->bases));
    RAID_LAUNCH_CALL(&L, raidBufAcquire(ctx, RAID_DT_UINT, 2 * nlook, &d->look));
    RAID_LAUNCH_CALL(&L, raidBufFill(ctx, &d->look, &zero, next_ev(d, 'f')));
    /* the output buffer: the caller's device memory itself where it is (written in place), else the pool's */
    void *dst = r->out == RAID_SORT_VALUES ? (void *)(r->vout + j->base) : r->out == RAID_SORT_IDX32
                ? (void *)(r->i32 + j->base) : r->out == RAID_SORT_IDX64 ? (void *)(r->i64 + j->base) : NULL;
    if (dst)
        RAID_LAUNCH_CALL(&L, raidBufOutput(ctx, dst, RAID_DT_UINT, r->out == RAID_SORT_IDX32 ? N : 2 * N, "the output",
                                           &d->out));
    else
        RAID_LAUNCH_CALL(&L, raidBufAcquire(ctx, RAID_DT_UINT, 2 * N, &d->out));
    RAID_LAUNCH_CALL(&L, raidBufUpload(ctx, &d->bases, 0, (size_t)npass * j->radix, j->bases, 1, NULL));
    int ks = 0, ps = 0;
    const RaidBuf *nopay = &d->segid; /* an argument the kernel does not read */
    for (int q = 0; q < npass && L.st == RAID_OK; q++) {
        const int last = q == npass - 1;
        const int wkeys = !last && j->plan[q + 1].dmode == 0;
        const int wpay = !exact && (!last || outmode == OUT_NONE || outmode == OUT_IKEYS);
        const pass_args pa = {.kin = &d->keys[ks], .pin = exact ? nopay : &d->pay[ps], .segid = &d->segid, .n = j->n,
                              .shift = j->plan[q].shift, .dmode = j->plan[q].dmode,
                              .pmode = exact ? 0 : q == 0 ? 1 : 2, .wkeys = wkeys, .wpay = wpay,
                              .omode = last ? outmode : OUT_NONE, .desc = r->desc,
                              .base_lo = (uint32_t)((uint64_t)j->base & 0xFFFFFFFFu),
                              .base_hi = (uint32_t)((uint64_t)j->base >> 32), .bases = &d->bases,
                              .boff = (uint32_t)q * j->radix, .look = &d->look, .lcur = (uint32_t)((q & 1) * nlook),
                              .lnext = (uint32_t)(((q + 1) & 1) * nlook), .kout = &d->keys[1 - ks],
                              .pout = exact ? nopay : &d->pay[1 - ps], .out = &d->out};
        set_pass_args(&L, &pa);
        launch(d, &L, (size_t)j->ntiles * j->wg, j->wg, 'p');
        if (wkeys)
            ks = 1 - ks;
        if (wpay)
            ps = 1 - ps;
    }
    /* the outputs; values not written by the last pass are gathered by the carried indices */
    const RaidBuf *gsrc = NULL, *gdst = NULL;
    if (r->out == RAID_SORT_VALUES && !exact)
        gsrc = &d->x, gdst = &d->out;
    else if (j->pairs)
        gsrc = &d->x, gdst = &d->keys[ks]; /* the keys are no longer needed */
    RaidLaunch G;
    raidLaunchUse(&G, ctx, d->kgather);
    raidLaunchFail(&G, L.st);
    if (gsrc) {
        RAID_LAUNCH_ARGS(&G, 0, RAID_ARG_BUF(gsrc), RAID_ARG_BUF(&d->pay[ps]), RAID_ARG_U32(j->n), RAID_ARG_BUF(gdst));
        launch(d, &G, N, 64, 'g');
    }
    const int64_t base = j->base;
    if (r->out == RAID_SORT_PAIRS) {
        RAID_LAUNCH_CALL(&G, raidBufDownload(ctx, &d->out, 0, 2 * N, r->kout + base, 0, NULL));
        RAID_LAUNCH_CALL(&G, raidBufDownload(ctx, gdst, 0, 2 * N, r->vout + base, 1, NULL));
    } else { /* read back, or nothing where the output was written in place (the stream finished) */
        RAID_LAUNCH_CALL(&G, raidBufDeliver(ctx, &d->out, 0, r->out == RAID_SORT_IDX32 ? N : 2 * N, dst, "the output"));
    }
    if (G.st != RAID_OK)
        raidDevDrain(ctx); /* before the kernels' holds go */
    const raid_status st = raidLaunchEnd(&G);
    raidLaunchEnd(&L); /* the passes' kernel held until they have run */
    return st;
}

raid_status raidSortDevice(raid_ctx *ctx, const RaidSortReq *r)
{
    memset(&ctx->timing, 0, sizeof ctx->timing);
    sort_job j = {0};
    sort_dev d = {.ctx = ctx};
    raid_status st = sort_setup(ctx, r, &j);
    if (st != RAID_OK)
        return st;
    if ((st = raidKernelGet(ctx, "col_sort.cl", "sort_keys", j.opts, &d.kkeys)) == RAID_OK &&
        (st = raidKernelGet(ctx, "col_sort.cl", "sort_gather", j.opts, &d.kgather)) == RAID_OK &&
        (st = sort_keys(ctx, &j, &d)) == RAID_OK) {
        plan_passes(&j);
        if (j.npass == 0) {
            settle(&d);
            st = identity_output(ctx, &j, &d);
        } else {
            st = run_passes(ctx, &j, &d);
        }
    }
    if (st != RAID_OK)
        raidDevDrain(ctx);
    settle(&d);
    free(j.hist);
    free(j.bases);
    RaidBuf *bufs[] = {&d.x,       &d.ik,      &d.valid,  &d.offs,   &d.segid,  &d.hist, &d.bases, &d.look,
                        &d.keys[0], &d.keys[1], &d.pay[0], &d.pay[1], &d.out};
    for (size_t b = 0; b < sizeof bufs / sizeof *bufs; b++)
        raidBufRelease(ctx, bufs[b]);
    RaidKernel *ks_[] = {d.kkeys, d.kgather};
    for (size_t k = 0; k < sizeof ks_ / sizeof *ks_; k++)
        raidKernelPut(ctx, ks_[k]);
    return st;
}

raid_status raidSortDevicePartition(raid_ctx *ctx, const RaidBuf *vin, const RaidBuf *tin, uint32_t n, int shift,
                                   const RaidBuf *bases, RaidBuf *vout, RaidBuf *tout)
{
    size_t wg;
    int bits, rounds;
    if (n > RAID_SORT_DEVICE_MAX - 1) /* a digit's count over tiles must stay below 2^31 (the flag is bit 31) */
        return raidFail(ctx, RAID_EUNSUPPORTED, "sorting on a device: a partition of %u rows (fewer than 2^31)", n);
    raid_status st = sort_shape(ctx, 8, &wg, &bits, &rounds);
    if (st != RAID_OK)
        return st;
    if (n == 0)
        return RAID_OK;
    const uint32_t radix = 256, tile = (uint32_t)wg * (uint32_t)rounds, ntiles = (n + tile - 1) / tile;
    const size_t nlook = 1 + (size_t)ntiles * radix; /* this pass's look-back words, then the next's (unused) */
    char opts[600];
    snprintf(opts, sizeof opts, "%s -DSORT_BITS=8 -DSORT_WG=%zu -DSORT_ROUNDS=%d -DSORT_PAY=1 -DSORT_PDIG=1",
             raidTuneBuildOptions(ctx), wg, rounds);
    sort_dev d = {.ctx = ctx};
    const uint32_t zero = 0;
    RaidLaunch L;
    raidLaunchKernel(&L, ctx, "col_sort.cl", "sort_pass", opts);
    RAID_LAUNCH_CALL(&L, raidBufAcquire(ctx, RAID_DT_UINT, 2 * nlook, &d.look));
    RAID_LAUNCH_CALL(&L, raidBufFill(ctx, &d.look, &zero, next_ev(&d, 'f')));
    /* dmode 1 (destinations from the stored digits), pmode 2 (payload in: the tags), keys and payload out;
     * segid and out are not read or written with these modes */
    const pass_args pa = {.kin = vin, .pin = tin, .segid = tin, .n = n, .shift = shift, .dmode = 1, .pmode = 2,
                          .wkeys = 1, .wpay = 1, .omode = OUT_NONE, .bases = bases, .look = &d.look, .lcur = 0,
                          .lnext = (uint32_t)nlook, .kout = vout, .pout = tout, .out = tout};
    set_pass_args(&L, &pa);
    launch(&d, &L, (size_t)ntiles * wg, wg, 'p');
    RAID_LAUNCH_CALL(&L, raidDevFinish(ctx));
    if (L.st != RAID_OK)
        raidDevDrain(ctx); /* before the kernel's hold and the buffers go */
    st = raidLaunchEnd(&L);
    settle(&d);
    raidBufRelease(ctx, &d.look);
    return st;
}
