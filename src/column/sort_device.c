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

#include "device/device.h"

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
    RaidKernel *kkeys, *kpass, *kgather;
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

static raid_status launch(sort_dev *d, RaidKernel *k, size_t items, size_t wg, char lab)
{
    const size_t global = (items + wg - 1) / wg * wg;
    d->ctx->timing.launches++;
    return raidLaunch(d->ctx, k, 1, &global, &wg, next_ev(d, lab));
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

/* Sets k's (a sort_pass kernel's) arguments in the kernel's order: the one place that knows it. The device
 * layer's errors. */
static raid_status set_pass_args(raid_ctx *ctx, RaidKernel *k, const pass_args *p)
{
    unsigned a = 0;
    raid_status st;
    if ((st = raidArgBuf(ctx, k, a++, p->kin)) || (st = raidArgBuf(ctx, k, a++, p->pin)) ||
        (st = raidArgBuf(ctx, k, a++, p->segid)) || (st = raidArgUint(ctx, k, a++, p->n)) ||
        (st = raidArgInt(ctx, k, a++, p->shift)) || (st = raidArgInt(ctx, k, a++, p->dmode)) ||
        (st = raidArgInt(ctx, k, a++, p->pmode)) || (st = raidArgInt(ctx, k, a++, p->wkeys)) ||
        (st = raidArgInt(ctx, k, a++, p->wpay)) || (st = raidArgInt(ctx, k, a++, p->omode)) ||
        (st = raidArgInt(ctx, k, a++, p->desc)) || (st = raidArgUint(ctx, k, a++, p->base_lo)) ||
        (st = raidArgUint(ctx, k, a++, p->base_hi)) || (st = raidArgBuf(ctx, k, a++, p->bases)) ||
        (st = raidArgUint(ctx, k, a++, p->boff)) || (st = raidArgBuf(ctx, k, a++, p->look)) ||
        (st = raidArgUint(ctx, k, a++, p->lcur)) || (st = raidArgUint(ctx, k, a++, p->lnext)) ||
        (st = raidArgBuf(ctx, k, a++, p->kout)) || (st = raidArgBuf(ctx, k, a++, p->pout)) ||
        (st = raidArgBuf(ctx, k, a++, p->out)))
        return st;
    return RAID_OK;
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

raid_status raidSortCl(raid_ctx *ctx, const RaidSortReq *r)
{
    memset(&ctx->timing, 0, sizeof ctx->timing);
    const int64_t base = r->offsets[0];
    const size_t N = (size_t)(r->offsets[r->nseg] - base);
    if (N > RAID_SORT_CL_MAX - 1)
        return raidFail(ctx, RAID_EUNSUPPORTED, "sorting on a device: %zu values in one call (at most %u)", N,
                         RAID_SORT_CL_MAX - 1);
    const uint32_t n = (uint32_t)N;
    raid_status st0;
    size_t wg;
    int bits, rounds;
    if ((st0 = sort_shape(ctx, 0, &wg, &bits, &rounds)) != RAID_OK)
        return st0;
    const uint32_t radix = 1u << bits, tile = (uint32_t)wg * (uint32_t)rounds, ntiles = (n + tile - 1) / tile;
    const int ndig = (64 + bits - 1) / bits, sdig = (32 + bits - 1) / bits, hrows = ndig + sdig;
    char opts[512];
    /* the tuning options first: a later -D wins, so the kernels get the (clamped) values the host plans with */
    snprintf(opts, sizeof opts, "%s -DSORT_BITS=%d -DSORT_WG=%zu -DSORT_ROUNDS=%d", raidTuneBuildOptions(ctx), bits,
             wg, rounds);
    /* the segments that hold elements: their ids' bits are sorted after the keys */
    size_t nonempty = 0;
    for (size_t s = 0; s < r->nseg; s++)
        nonempty += r->offsets[s + 1] > r->offsets[s];
    int segbits = 0;
    if (nonempty > 1)
        while (segbits < 32 && ((uint64_t)(r->nseg - 1) >> segbits) != 0)
            segbits++;

    sort_dev d = {.ctx = ctx};
    raid_status st = RAID_OK;
    uint32_t *offs = NULL, *hist = NULL, *bases = NULL;
    const uint32_t zero = 0;
    const uint8_t nobyte = 0;
    const int masked = r->valid != NULL, pairs = r->out == RAID_SORT_PAIRS;
    const uint32_t vbit0 = (uint32_t)(base & 7);
    const size_t vbytes = masked ? (vbit0 + N + 7) / 8 : 1, nhist = (size_t)hrows * radix + 1;
    if ((st = raidKernelGet(ctx, "col_sort.cl", "sort_keys", opts, &d.kkeys)) ||
        (st = raidKernelGet(ctx, "col_sort.cl", "sort_gather", opts, &d.kgather)))
        goto done;
    if ((st = raidBufAcquire(ctx, RAID_DT_UINT, 2 * N, &d.x)) ||
        (st = raidBufAcquire(ctx, RAID_DT_BYTE, vbytes, &d.valid)) ||
        (st = raidBufAcquire(ctx, RAID_DT_UINT, nhist, &d.hist)) ||
        (st = raidBufAcquire(ctx, RAID_DT_UINT, segbits ? N : 1, &d.segid)) ||
        (st = raidBufAcquire(ctx, RAID_DT_UINT, segbits ? r->nseg + 1 : 1, &d.offs)) ||
        (st = raidBufAcquire(ctx, RAID_DT_UINT, 2 * N, &d.keys[0])))
        goto done;
    /* The float64 (and int64) inputs as 32-bit words, little-endian (word 2i the low half). */
    if ((st = raidBufUpload(ctx, &d.x, 0, 2 * N, r->x + base, 0, NULL)) ||
        (masked && (st = raidBufUpload(ctx, &d.valid, 0, vbytes, r->valid + base / 8, 0, NULL))) ||
        (!masked && (st = raidBufFill(ctx, &d.valid, &nobyte, NULL))) ||
        (st = raidBufFill(ctx, &d.hist, &zero, next_ev(&d, 'f'))))
        goto done;
    ctx->timing.bytes_in = 2 * N * sizeof(uint32_t) + (masked ? vbytes : 0);
    const RaidBuf *keysrc = &d.x;
    if (pairs) {
        if ((st = raidBufAcquire(ctx, RAID_DT_UINT, 2 * N, &d.ik)) ||
            (st = raidBufUpload(ctx, &d.ik, 0, 2 * N, r->ikeys + base, 0, NULL)))
            goto done;
        keysrc = &d.ik;
        ctx->timing.bytes_in += 2 * N * sizeof(uint32_t);
    }
    if (segbits) {
        offs = malloc((r->nseg + 1) * sizeof *offs);
        if (!offs) {
            st = raidFail(ctx, RAID_ENOMEM, "out of memory (sorting on a device)");
            goto done;
        }
        for (size_t s = 0; s <= r->nseg; s++)
            offs[s] = (uint32_t)(r->offsets[s] - base);
        if ((st = raidBufUpload(ctx, &d.offs, 0, r->nseg + 1, offs, 1, NULL)))
            goto done;
    }
    {
        unsigned a = 0;
        RaidKernel *k = d.kkeys;
        size_t groups = (N + wg * 16 - 1) / (wg * 16);
        groups = groups < 1 ? 1 : groups > 1024 ? 1024 : groups;
        if ((st = raidArgBuf(ctx, k, a++, keysrc)) || (st = raidArgBuf(ctx, k, a++, &d.valid)) ||
            (st = raidArgInt(ctx, k, a++, masked)) || (st = raidArgUint(ctx, k, a++, vbit0)) ||
            (st = raidArgInt(ctx, k, a++, r->desc)) || (st = raidArgInt(ctx, k, a++, pairs)) ||
            (st = raidArgUint(ctx, k, a++, n)) || (st = raidArgBuf(ctx, k, a++, &d.offs)) ||
            (st = raidArgUint(ctx, k, a++, (uint32_t)r->nseg)) || (st = raidArgInt(ctx, k, a++, segbits)) ||
            (st = raidArgBuf(ctx, k, a++, &d.keys[0])) || (st = raidArgBuf(ctx, k, a++, &d.segid)) ||
            (st = raidArgBuf(ctx, k, a++, &d.hist)) || (st = launch(&d, k, groups * wg, wg, 'k')))
            goto done;
    }
    hist = malloc(nhist * sizeof *hist);
    bases = malloc((size_t)hrows * radix * sizeof *bases);
    if (!hist || !bases) {
        st = raidFail(ctx, RAID_ENOMEM, "out of memory (sorting on a device)");
        goto done;
    }
    if ((st = raidBufDownload(ctx, &d.hist, 0, nhist, hist, 1, NULL)))
        goto done;
    /* the passes: digit positions whose digits vary (a row with one non-zero count moves nothing) */
    pass_plan plan[64];
    int npass = 0;
    const int nsd = segbits ? (segbits + bits - 1) / bits : 0;
    for (int row = 0; row < ndig + nsd; row++) {
        const uint32_t *h = hist + (size_t)row * radix;
        int constant = 0;
        for (uint32_t b = 0; b < radix; b++)
            constant |= h[b] == n;
        if (constant)
            continue;
        uint32_t run = 0;
        for (uint32_t b = 0; b < radix; b++) {
            bases[(size_t)npass * radix + b] = run;
            run += h[b];
        }
        plan[npass].dmode = row >= ndig;
        plan[npass].shift = (row >= ndig ? row - ndig : row) * bits;
        plan[npass].row = row;
        npass++;
    }
    /* the sort of values needs no payload when every key gives its value's bits back */
    const int exact = r->out == RAID_SORT_VALUES && !masked && !segbits && !hist[nhist - 1];
    if (npass == 0) { /* every key (and segment id) equal: the stable sort is the input's order */
        settle(&d);
        switch (r->out) {
        case RAID_SORT_VALUES:
            memcpy(r->vout + base, r->x + base, N * sizeof *r->x);
            break;
        case RAID_SORT_PAIRS:
            memcpy(r->vout + base, r->x + base, N * sizeof *r->x);
            memcpy(r->kout + base, r->ikeys + base, N * sizeof *r->ikeys);
            break;
        case RAID_SORT_IDX32:
            for (size_t j = 0; j < N; j++)
                r->i32[base + j] = (uint32_t)(base + (int64_t)j);
            break;
        case RAID_SORT_IDX64:
            for (size_t j = 0; j < N; j++)
                r->i64[base + j] = base + (int64_t)j;
            break;
        }
        goto done;
    }
    const size_t nlook = 1 + (size_t)ntiles * radix; /* one half of the look-back words (two, alternating) */
    const int outmode = r->out == RAID_SORT_VALUES ? (exact ? OUT_VALUES : OUT_NONE)
                        : r->out == RAID_SORT_IDX32 ? OUT_IDX32
                        : r->out == RAID_SORT_IDX64 ? OUT_IDX64
                                                    : OUT_IKEYS;
    const size_t outwords = r->out == RAID_SORT_IDX32 ? N : 2 * N;
    char popts[560]; /* the passes of an exact sort of values move keys only: a kernel without payload */
    snprintf(popts, sizeof popts, "%s -DSORT_PAY=%d", opts, !exact);
    if ((st = raidKernelGet(ctx, "col_sort.cl", "sort_pass", popts, &d.kpass)))
        goto done;
    if (getenv("RAID_SORT_PROFILE"))
        fprintf(stderr, "sort plan: n %u, wg %zu, bits %d, rounds %d, passes %d, exact %d, options '%s'\n", n, wg, bits,
                rounds, npass, exact, raidTuneBuildOptions(ctx));
    if ((st = raidBufAcquire(ctx, RAID_DT_UINT, 2 * N, &d.keys[1])) ||
        (!exact && ((st = raidBufAcquire(ctx, RAID_DT_UINT, N, &d.pay[0])) ||
                    (st = raidBufAcquire(ctx, RAID_DT_UINT, N, &d.pay[1])))) ||
        (st = raidBufAcquire(ctx, RAID_DT_UINT, (size_t)npass * radix, &d.bases)) ||
        (st = raidBufAcquire(ctx, RAID_DT_UINT, 2 * nlook, &d.look)) ||
        (st = raidBufFill(ctx, &d.look, &zero, next_ev(&d, 'f'))) ||
        (st = raidBufAcquire(ctx, RAID_DT_UINT, outwords, &d.out)) ||
        (st = raidBufUpload(ctx, &d.bases, 0, (size_t)npass * radix, bases, 1, NULL)))
        goto done;
    int ks = 0, ps = 0;
    const RaidBuf *nopay = &d.segid; /* an argument the kernel does not read */
    for (int q = 0; q < npass; q++) {
        const int last = q == npass - 1, dmode = plan[q].dmode;
        const int pmode = exact ? 0 : q == 0 ? 1 : 2;
        const int wkeys = !last && plan[q + 1].dmode == 0;
        const int wpay = !exact && (!last || outmode == OUT_NONE || outmode == OUT_IKEYS);
        const int omode = last ? outmode : OUT_NONE;
        const pass_args pa = {.kin = &d.keys[ks], .pin = exact ? nopay : &d.pay[ps], .segid = &d.segid, .n = n,
                              .shift = plan[q].shift, .dmode = dmode, .pmode = pmode, .wkeys = wkeys, .wpay = wpay,
                              .omode = omode, .desc = r->desc,
                              .base_lo = (uint32_t)((uint64_t)base & 0xFFFFFFFFu),
                              .base_hi = (uint32_t)((uint64_t)base >> 32), .bases = &d.bases,
                              .boff = (uint32_t)q * radix, .look = &d.look, .lcur = (uint32_t)((q & 1) * nlook),
                              .lnext = (uint32_t)(((q + 1) & 1) * nlook), .kout = &d.keys[1 - ks],
                              .pout = exact ? nopay : &d.pay[1 - ps], .out = &d.out};
        if ((st = set_pass_args(ctx, d.kpass, &pa)) || (st = launch(&d, d.kpass, (size_t)ntiles * wg, wg, 'p')))
            goto done;
        if (wkeys)
            ks = 1 - ks;
        if (wpay)
            ps = 1 - ps;
    }
    /* the outputs; values not written by the last pass are gathered by the carried indices */
    const RaidBuf *gsrc = NULL, *gdst = NULL;
    if (r->out == RAID_SORT_VALUES && !exact)
        gsrc = &d.x, gdst = &d.out;
    else if (pairs)
        gsrc = &d.x, gdst = &d.keys[ks]; /* the keys are no longer needed */
    if (gsrc) {
        unsigned a = 0;
        if ((st = raidArgBuf(ctx, d.kgather, a++, gsrc)) || (st = raidArgBuf(ctx, d.kgather, a++, &d.pay[ps])) ||
            (st = raidArgUint(ctx, d.kgather, a++, n)) || (st = raidArgBuf(ctx, d.kgather, a++, gdst)) ||
            (st = launch(&d, d.kgather, N, 64, 'g')))
            goto done;
    }
    switch (r->out) {
    case RAID_SORT_VALUES:
        st = raidBufDownload(ctx, &d.out, 0, 2 * N, r->vout + base, 1, NULL);
        break;
    case RAID_SORT_PAIRS:
        if ((st = raidBufDownload(ctx, &d.out, 0, 2 * N, r->kout + base, 0, NULL)) == RAID_OK)
            st = raidBufDownload(ctx, gdst, 0, 2 * N, r->vout + base, 1, NULL);
        break;
    case RAID_SORT_IDX32:
        st = raidBufDownload(ctx, &d.out, 0, N, r->i32 + base, 1, NULL);
        break;
    case RAID_SORT_IDX64:
        st = raidBufDownload(ctx, &d.out, 0, 2 * N, r->i64 + base, 1, NULL);
        break;
    }
done:
    if (st != RAID_OK)
        raidDevDrain(ctx);
    settle(&d);
    free(offs);
    free(hist);
    free(bases);
    RaidBuf *bufs[] = {&d.x,       &d.ik,      &d.valid,  &d.offs,   &d.segid,  &d.hist, &d.bases, &d.look,
                        &d.keys[0], &d.keys[1], &d.pay[0], &d.pay[1], &d.out};
    for (size_t b = 0; b < sizeof bufs / sizeof *bufs; b++)
        raidBufRelease(ctx, bufs[b]);
    RaidKernel *ks_[] = {d.kkeys, d.kpass, d.kgather};
    for (size_t k = 0; k < sizeof ks_ / sizeof *ks_; k++)
        raidKernelPut(ctx, ks_[k]);
    return st;
}

raid_status raidSortClPartition(raid_ctx *ctx, const RaidBuf *vin, const RaidBuf *tin, uint32_t n, int shift,
                                   const RaidBuf *bases, RaidBuf *vout, RaidBuf *tout)
{
    size_t wg;
    int bits, rounds;
    if (n > RAID_SORT_CL_MAX - 1) /* a digit's count over tiles must stay below 2^31 (the flag is bit 31) */
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
    if ((st = raidKernelGet(ctx, "col_sort.cl", "sort_pass", opts, &d.kpass)) ||
        (st = raidBufAcquire(ctx, RAID_DT_UINT, 2 * nlook, &d.look)) ||
        (st = raidBufFill(ctx, &d.look, &zero, next_ev(&d, 'f'))))
        goto done;
    /* dmode 1 (destinations from the stored digits), pmode 2 (payload in: the tags), keys and payload out;
     * segid and out are not read or written with these modes */
    const pass_args pa = {.kin = vin, .pin = tin, .segid = tin, .n = n, .shift = shift, .dmode = 1, .pmode = 2,
                          .wkeys = 1, .wpay = 1, .omode = OUT_NONE, .bases = bases, .look = &d.look, .lcur = 0,
                          .lnext = (uint32_t)nlook, .kout = vout, .pout = tout, .out = tout};
    if ((st = set_pass_args(ctx, d.kpass, &pa)) || (st = launch(&d, d.kpass, (size_t)ntiles * wg, wg, 'p')))
        goto done;
    st = raidDevFinish(ctx);
done:
    if (st != RAID_OK)
        raidDevDrain(ctx);
    settle(&d);
    raidBufRelease(ctx, &d.look);
    raidKernelPut(ctx, d.kpass);
    return st;
}
