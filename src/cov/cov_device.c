/*
 * The device path of the covariance estimators' sums (kernels/cov.cl): a Gram matrix of two sets of series,
 * upper triangle only, accumulated in double-float per chunk of rows, the chunks added in float64 on the host
 * in chunk order. src/cov/cov.c forms every estimator's series on the host in float64 (synchronised returns,
 * their positive and negative parts, pre-averaged returns, the jittered and kernel-smoothed returns) and
 * combines the Gram matrices in float64; docs/precision.md "Covariance" derives the bound.
 *
 * Steps per call: (1) each column's power-of-two scale (one for all in the polarisation form); (2) the table
 * of the upper triangle's tiles; (3) for each batch of chunks: the rows transposed to time-major, scaled and
 * split into double-floats on the host, uploaded, one launch (tiles x chunks), the partials read back and
 * added into compensated float64 accumulators in chunk order; (4) each entry times its exact scale.
 * The result depends on COV_CHUNK and the kernel's tile and block sizes only: bitwise reproducible.
 *
 * Hayashi-Yoshida (raidCovHy, kernels/cov.cl cov_hy) is not an outer product: per pair of symbols a merge of
 * their two time lists. The times (int64) and the returns (double-floats, each symbol's scaled by its power of
 * two) are uploaded once; the work is a list of (pair, chunk) items, a chunk RAID_COV_CHUNK positions of the
 * pair's merge, one work-item each, in batches of at most HY_ITEMS; the partials are added on the host into
 * each pair's compensated float64 sum in item order (pair order, chunk order), whatever the batching.
 */
#include "cov/cov_internal.h"

#include "core/dd.h"
#include "device/launch.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TILE 32                          /* kernels/cov.cl COV_T */
#define TILE2 (TILE * TILE)
#define BATCH_BYTES ((uint64_t)256 << 20) /* a batch's partials and rows at most (or one chunk's) */

/* The exponent e with max |v| 2^-e in [0.5, 1) over v[0 .. n) with stride 1 (0 for all zeros). */
static int col_exp(const double *v, int64_t n)
{
    double m = 0.0;
    for (int64_t t = 0; t < n; t++)
        m = fabs(v[t]) > m ? fabs(v[t]) : m;
    int e = 0;
    if (m > 0.0)
        frexp(m, &e);
    return e;
}

void raidCovScales(const double *V, size_t P, int64_t L, int common, int *e)
{
    int emax = INT32_MIN;
    for (size_t a = 0; a < P; a++) {
        e[a] = col_exp(V + a * (size_t)L, L);
        emax = e[a] > emax ? e[a] : emax;
    }
    if (common)
        for (size_t a = 0; a < P; a++)
            e[a] = emax;
}

/* Rows [r0, r1) of V (P series of L, symbol-major), each column scaled by 2^-e[col], as double-floats into
 * st (time-major, ld columns, zero past P). */
static void stage_rows(const double *V, size_t P, int64_t L, const int *e, int64_t r0, int64_t r1, size_t ld,
                       float *st)
{
#pragma omp parallel for schedule(static)
    for (long long t = r0; t < r1; t++) {
        float *row = st + 2 * (size_t)(t - r0) * ld;
        for (size_t a = 0; a < ld; a++) {
            if (a < P)
                raidDfSplit(ldexp(V[a * (size_t)L + (size_t)t], -e[a]), &row[2 * a], &row[2 * a + 1]);
            else
                row[2 * a] = row[2 * a + 1] = 0.0f;
        }
    }
}

typedef struct gram_run {
    const double *A, *B;
    size_t P, ld, ntiles;
    int64_t L, nchunks;
    int polar;
    const int *ea, *eb;
    float *sta, *stb;    /* staging of a batch's rows */
    float *part;         /* a batch's partials, read back */
    RaidDd *acc;         /* ntiles x TILE2 compensated sums; NULL for one chunk (the sums are part's) */
    RaidBuf da, db, dt, dp;
} gram_run;

/* One batch: chunks [c0, c0 + nc). */
static raid_status gram_batch(raid_ctx *ctx, RaidKernel *k, gram_run *g, int64_t c0, int64_t nc)
{
    const int64_t r0 = c0 * RAID_COV_CHUNK - g->polar < 0 ? 0 : c0 * RAID_COV_CHUNK - g->polar;
    const int64_t r1 = (c0 + nc) * RAID_COV_CHUNK < g->L ? (c0 + nc) * RAID_COV_CHUNK : g->L;
    const size_t nv = (size_t)(r1 - r0) * g->ld;
    double t = raidNow();
    stage_rows(g->A, g->P, g->L, g->ea, r0, r1, g->ld, g->sta);
    if (g->B != g->A)
        stage_rows(g->B, g->P, g->L, g->eb, r0, r1, g->ld, g->stb);
    ctx->timing.convert_s += raidNow() - t;
    RaidLaunch L;
    raidLaunchUse(&L, ctx, k);
    RAID_LAUNCH_CALL(&L, raidBufUpload(ctx, &g->da, 0, 2 * nv, g->sta, 1, NULL));
    if (g->B != g->A)
        RAID_LAUNCH_CALL(&L, raidBufUpload(ctx, &g->db, 0, 2 * nv, g->stb, 1, NULL));
    ctx->timing.bytes_in += (uint64_t)nv * 8 * (g->B != g->A ? 2 : 1);
    const size_t global[2] = {g->ntiles * 256, (size_t)nc}, local[2] = {256, 1};
    raidLaunchShape(&L, 2, global, local);
    RAID_LAUNCH_ARGS(&L, 0, RAID_ARG_BUF(&g->da), RAID_ARG_BUF(g->B != g->A ? &g->db : &g->da), RAID_ARG_BUF(&g->dt),
                     RAID_ARG_BUF(&g->dp), RAID_ARG_I32(g->ld), RAID_ARG_I32(r0), RAID_ARG_I32(g->L),
                     RAID_ARG_I32(RAID_COV_CHUNK), RAID_ARG_I32(c0), RAID_ARG_I32(g->ntiles));
    raidLaunchRun(&L, &ctx->timing.kernel_s);
    raidLaunchRead(&L, &g->dp, 2 * (size_t)nc * g->ntiles * TILE2, g->part, &ctx->timing.download_s);
    raid_status st = raidLaunchEnd(&L);
    if (st != RAID_OK || !g->acc)
        return st;
    t = raidNow();
    const size_t ne = g->ntiles * TILE2;
    const long long nel = (long long)ne;
#pragma omp parallel for schedule(static)
    for (long long e = 0; e < nel; e++) /* chunk order, per entry */
        for (int64_t c = 0; c < nc; c++) {
            const float *p = g->part + 2 * ((size_t)c * ne + (size_t)e);
            raidDdAdd(&g->acc[e], (double)p[0] + (double)p[1]);
        }
    ctx->timing.combine_s += raidNow() - t;
    return RAID_OK;
}

/* The entries a <= b of the tiles into G, each times 2^(ea[a] + eb[b]). With one chunk (no acc) an entry is
 * its partial's double-float added once into a zero compensated sum, the bits of the many-chunk path. */
static void gram_out(const gram_run *g, const uint32_t *tiles, double *G)
{
    const long long nt = (long long)g->ntiles;
#pragma omp parallel for schedule(static)
    for (long long k = 0; k < nt; k++) {
        const size_t bi = tiles[2 * k], bj = tiles[2 * k + 1];
        for (size_t i = 0; i < TILE; i++)
            for (size_t j = 0; j < TILE; j++) {
                const size_t a = bi * TILE + i, b = bj * TILE + j, e = (size_t)k * TILE2 + i * TILE + j;
                if (a >= g->P || b >= g->P || a > b)
                    continue;
                RaidDd v = {0, 0};
                if (g->acc)
                    v = g->acc[e];
                else
                    raidDdAdd(&v, (double)g->part[2 * e] + (double)g->part[2 * e + 1]);
                G[a * g->P + b] = ldexp(raidDdValue(v), g->ea[a] + g->eb[b]);
            }
    }
}

raid_status raidCovGram(raid_ctx *ctx, const double *A, const double *B, size_t P, int64_t L, int polar, double *G)
{
    if (P == 0)
        return RAID_OK;
    if (L >= INT32_MAX / 2 || P > (size_t)INT32_MAX / 64)
        return raidFail(ctx, RAID_EINVAL, "raid_cov_compute: %lld returns of %zu symbols exceed the device path's "
                        "32-bit indices", (long long)L, P);
    gram_run g;
    memset(&g, 0, sizeof g);
    g.A = A;
    g.B = B ? B : A;
    g.P = P;
    g.L = L;
    g.polar = polar;
    g.ld = (P + TILE - 1) / TILE * TILE;
    const size_t T = g.ld / TILE;
    g.ntiles = T * (T + 1) / 2;
    g.nchunks = (L + RAID_COV_CHUNK - 1) / RAID_COV_CHUNK;
    int *ea = malloc(P * sizeof *ea), *eb = malloc(P * sizeof *eb);
    uint32_t *tiles = malloc(2 * g.ntiles * sizeof *tiles);
    /* one chunk (a day of up to RAID_COV_CHUNK returns, the usual case): no accumulators, the partials are the
     * sums (at N = 3,000 the accumulators were 73 MB zeroed and combined a day) */
    g.acc = g.nchunks != 1 ? calloc(g.ntiles * TILE2, sizeof *g.acc) : NULL; /* zeros for no chunk */
    /* chunks per batch: partials and rows within BATCH_BYTES (at least one chunk) */
    const uint64_t per_chunk = (uint64_t)g.ntiles * TILE2 * 8 + (uint64_t)RAID_COV_CHUNK * g.ld * 16;
    int64_t nb = (int64_t)(BATCH_BYTES / per_chunk);
    nb = nb < 1 ? 1 : nb > g.nchunks ? g.nchunks : nb;
    const size_t rows = (size_t)nb * RAID_COV_CHUNK + 1, nrow = (size_t)(L < (int64_t)rows ? L : (int64_t)rows);
    g.sta = malloc((nrow ? nrow : 1) * g.ld * 2 * sizeof(float));
    g.stb = g.B != g.A ? malloc((nrow ? nrow : 1) * g.ld * 2 * sizeof(float)) : NULL;
    g.part = malloc((size_t)nb * g.ntiles * TILE2 * 2 * sizeof(float));
    raid_status st = RAID_OK;
    if (!ea || !eb || !tiles || (g.nchunks != 1 && !g.acc) || !g.sta || (g.B != g.A && !g.stb) || !g.part) {
        st = raidFail(ctx, RAID_ENOMEM, "out of memory");
        goto out;
    }
    raidCovScales(g.A, P, L, polar, ea);
    if (g.B != g.A)
        raidCovScales(g.B, P, L, polar, eb);
    else
        memcpy(eb, ea, P * sizeof *eb);
    g.ea = ea;
    g.eb = eb;
    size_t k = 0;
    for (size_t bi = 0; bi < T; bi++)
        for (size_t bj = bi; bj < T; bj++) {
            tiles[2 * k] = (uint32_t)bi;
            tiles[2 * k + 1] = (uint32_t)bj;
            k++;
        }
    if (g.nchunks > 0) {
        char opts[320];
        snprintf(opts, sizeof opts, "-DCOV_POLAR=%d %s", polar, raidTuneBuildOptions(ctx));
        RaidLaunch K;
        raidLaunchKernel(&K, ctx, "cov.cl", "cov_gram", opts);
        RAID_LAUNCH_CALL(&K, raidBufAcquire(ctx, RAID_DT_FLOAT, 2 * (nrow ? nrow : 1) * g.ld, &g.da));
        if (g.B != g.A)
            RAID_LAUNCH_CALL(&K, raidBufAcquire(ctx, RAID_DT_FLOAT, 2 * (nrow ? nrow : 1) * g.ld, &g.db));
        RAID_LAUNCH_CALL(&K, raidBufAcquire(ctx, RAID_DT_UINT, 2 * g.ntiles, &g.dt));
        RAID_LAUNCH_CALL(&K, raidBufAcquire(ctx, RAID_DT_FLOAT, 2 * (size_t)nb * g.ntiles * TILE2, &g.dp));
        RAID_LAUNCH_CALL(&K, raidBufUpload(ctx, &g.dt, 0, 2 * g.ntiles, tiles, 1, NULL));
        for (int64_t c0 = 0; K.st == RAID_OK && c0 < g.nchunks; c0 += nb)
            RAID_LAUNCH_CALL(&K, gram_batch(ctx, K.k, &g, c0, c0 + nb <= g.nchunks ? nb : g.nchunks - c0));
        if (K.st != RAID_OK)
            raidDevDrain(ctx);
        st = raidLaunchEnd(&K);
        raidBufRelease(ctx, &g.da);
        raidBufRelease(ctx, &g.db);
        raidBufRelease(ctx, &g.dt);
        raidBufRelease(ctx, &g.dp);
    }
    if (st == RAID_OK)
        gram_out(&g, tiles, G);
out:
    free(ea);
    free(eb);
    free(tiles);
    free(g.acc);
    free(g.sta);
    free(g.stb);
    free(g.part);
    return st;
}

/* ---- Hayashi-Yoshida (kernels/cov.cl cov_hy) ---- */

#define HY_WG 64                          /* kernels/cov.cl: cov_hy's RAID_REQD_WG */
#define HY_ITEMS ((size_t)1 << 20)        /* (pair, chunk) items per launch at most: 20 MiB of table and partials */

typedef struct hy_run {
    const int64_t *off;
    size_t P, cap;     /* symbols; items per batch */
    const int *e;
    uint32_t *items;   /* a batch's (a, b, chunk) */
    float *part;       /* its partials, read back */
    size_t a, b;       /* the next item: pair (a, b), chunk c */
    int64_t c;
    RaidDd acc;        /* the current pair's chunks so far */
    RaidBuf dt, dx, doff, ditems, dpart;
} hy_run;

/* The chunks of pair (a, b): ceil((n_a + n_b) / RAID_COV_CHUNK) positions of the merge of their times. */
static int64_t hy_chunks(const hy_run *h, size_t a, size_t b)
{
    const int64_t n = h->off[a + 1] - h->off[a] + h->off[b + 1] - h->off[b];
    return (n + RAID_COV_CHUNK - 1) / RAID_COV_CHUNK;
}

/* The next batch of items from (h->a, h->b, h->c) on, in pair order and chunk order; their number. */
static size_t hy_fill(hy_run *h)
{
    size_t n = 0;
    while (n < h->cap && h->a < h->P) {
        h->items[3 * n] = (uint32_t)h->a;
        h->items[3 * n + 1] = (uint32_t)h->b;
        h->items[3 * n + 2] = (uint32_t)h->c;
        n++;
        if (++h->c == hy_chunks(h, h->a, h->b)) {
            h->c = 0;
            if (++h->b == h->P)
                h->b = ++h->a;
        }
    }
    return n;
}

/* The batch's n partials added into the pairs' sums in item order (a pair's chunks in chunk order, a pair
 * across batches in order); a pair's entry written, times 2^(e_a + e_b), at its last chunk. */
static void hy_combine(hy_run *h, const uint32_t *items, size_t n, double *O)
{
    for (size_t g = 0; g < n; g++) {
        const size_t a = items[3 * g], b = items[3 * g + 1];
        raidDdAdd(&h->acc, (double)h->part[2 * g] + (double)h->part[2 * g + 1]);
        if ((int64_t)items[3 * g + 2] + 1 == hy_chunks(h, a, b)) {
            O[a * h->P + b] = ldexp(raidDdValue(h->acc), h->e[a] + h->e[b]);
            h->acc = (RaidDd){0, 0};
        }
    }
}

/* Symbol-major returns r (r[off[a] + k], k >= 1), each symbol's scaled by 2^-e[a], as double-floats into st
 * (the first of each symbol 0). */
static void hy_stage(const double *r, const int64_t *off, size_t P, const int *e, float *st)
{
#pragma omp parallel for schedule(dynamic, 16)
    for (long long a = 0; a < (long long)P; a++) {
        st[2 * off[a]] = st[2 * off[a] + 1] = 0.0f;
        for (int64_t j = off[a] + 1; j < off[a + 1]; j++)
            raidDfSplit(ldexp(r[j], -e[a]), &st[2 * j], &st[2 * j + 1]);
    }
}

/* Every batch of items: upload the table, one launch, the partials read back and combined. */
static raid_status hy_batches(raid_ctx *ctx, RaidKernel *k, hy_run *h, double *O)
{
    raid_status st = RAID_OK;
    for (size_t n; st == RAID_OK && (n = hy_fill(h)) > 0;) {
        RaidLaunch L;
        raidLaunchUse(&L, ctx, k);
        RAID_LAUNCH_CALL(&L, raidBufUpload(ctx, &h->ditems, 0, 3 * n, h->items, 1, NULL));
        ctx->timing.bytes_in += (uint64_t)n * 12;
        raidLaunchSize(&L, n, HY_WG);
        RAID_LAUNCH_ARGS(&L, 0, RAID_ARG_BUF(&h->dt), RAID_ARG_BUF(&h->dx), RAID_ARG_BUF(&h->doff),
                         RAID_ARG_BUF(&h->ditems), RAID_ARG_BUF(&h->dpart), RAID_ARG_I32(n),
                         RAID_ARG_I32(RAID_COV_CHUNK));
        raidLaunchRun(&L, &ctx->timing.kernel_s);
        raidLaunchRead(&L, &h->dpart, 2 * n, h->part, &ctx->timing.download_s);
        if ((st = raidLaunchEnd(&L)) == RAID_OK) {
            const double t = raidNow();
            hy_combine(h, h->items, n, O);
            ctx->timing.combine_s += raidNow() - t;
        }
    }
    return st;
}

raid_status raidCovHy(raid_ctx *ctx, const int64_t *t, const double *r, const int64_t *off, size_t P, double *O)
{
    if (P == 0)
        return RAID_OK;
    const size_t T = (size_t)off[P];
    for (size_t a = 0; a < P; a++)
        if (off[a + 1] - off[a] >= INT32_MAX / 2 - RAID_COV_CHUNK || P > UINT32_MAX)
            return raidFail(ctx, RAID_EINVAL, "raid_cov_compute: %lld times of a symbol (of %zu) exceed the device "
                            "path's 32-bit indices", (long long)(off[a + 1] - off[a]), P);
    hy_run h;
    memset(&h, 0, sizeof h);
    h.off = off;
    h.P = P;
    uint64_t total = 0; /* the items of the day: a batch's buffers hold min(total, HY_ITEMS) */
    for (size_t a = 0; a < P; a++)
        for (size_t b = a; b < P; b++)
            total += (uint64_t)hy_chunks(&h, a, b);
    const size_t tuned = raidTuneMaxBatchElems(ctx), cap = tuned && tuned < HY_ITEMS ? tuned : HY_ITEMS;
    const size_t nb = total < cap ? (size_t)total : cap; /* tests: small batches, a pair's chunks across them */
    h.cap = nb;
    int *e = malloc(P * sizeof *e);
    float *st = malloc(2 * T * sizeof *st);
    h.items = malloc(3 * nb * sizeof *h.items);
    h.part = malloc(2 * nb * sizeof *h.part);
    raid_status s = RAID_OK;
    if (!e || !st || !h.items || !h.part) {
        s = raidFail(ctx, RAID_ENOMEM, "out of memory");
        goto out;
    }
    double t0 = raidNow();
    for (size_t a = 0; a < P; a++) /* each symbol's returns (its first time has none) */
        raidCovScales(r + off[a] + 1, 1, off[a + 1] - off[a] - 1, 0, &e[a]);
    h.e = e;
    hy_stage(r, off, P, e, st);
    ctx->timing.convert_s += raidNow() - t0;
    RaidLaunch K;
    raidLaunchKernel(&K, ctx, "cov.cl", "cov_hy", raidTuneBuildOptions(ctx));
    RAID_LAUNCH_CALL(&K, raidBufInput(ctx, t, RAID_DT_LONG, T, "raid_cov_compute: time_us", &h.dt, NULL));
    RAID_LAUNCH_CALL(&K, raidBufInput(ctx, st, RAID_DT_FLOAT, 2 * T, "raid_cov_compute: returns", &h.dx, NULL));
    RAID_LAUNCH_CALL(&K, raidBufInput(ctx, off, RAID_DT_LONG, P + 1, "raid_cov_compute: offsets", &h.doff, NULL));
    ctx->timing.bytes_in += (uint64_t)T * 16 + (uint64_t)(P + 1) * 8;
    RAID_LAUNCH_CALL(&K, raidBufAcquire(ctx, RAID_DT_UINT, 3 * nb, &h.ditems));
    RAID_LAUNCH_CALL(&K, raidBufAcquire(ctx, RAID_DT_FLOAT, 2 * nb, &h.dpart));
    RAID_LAUNCH_CALL(&K, hy_batches(ctx, K.k, &h, O));
    if (K.st != RAID_OK)
        raidDevDrain(ctx);
    s = raidLaunchEnd(&K);
    raidBufRelease(ctx, &h.dt);
    raidBufRelease(ctx, &h.dx);
    raidBufRelease(ctx, &h.doff);
    raidBufRelease(ctx, &h.ditems);
    raidBufRelease(ctx, &h.dpart);
out:
    free(e);
    free(st);
    free(h.items);
    free(h.part);
    return s;
}
