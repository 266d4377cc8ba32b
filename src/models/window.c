/* Window plans and the per-thread cpu contexts of window statistics: see window.h. */
#include "models/window.h"
#include "core/internal.h"

#include <assert.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

size_t raidWindowCount(RaidWindowKind kind, size_t m, size_t N)
{
    if (kind == RAID_WINDOW_FULL)
        return m > 0;
    return N == 0 || m < N ? 0 : m - (N - 1);
}

void raidWindowRows(RaidWindowKind kind, size_t m, size_t N, size_t w, int64_t *s0, int64_t *s1)
{
    assert(w < raidWindowCount(kind, m, N));
    if (kind == RAID_WINDOW_FULL) {
        *s0 = 0;
        *s1 = (int64_t)m;
        return;
    }
    const size_t e = w + (N - 1); /* the end row, inclusive */
    *s0 = kind == RAID_WINDOW_ROLLING ? (int64_t)(e + 1 - N) : 0;
    *s1 = (int64_t)(e + 1);
}

size_t raidWindowNblocks(size_t m, size_t B)
{
    assert(B > 0);
    return (m + B - 1) / B;
}

size_t raidWindowBlockOffsets(size_t pos, size_t m, size_t B, int64_t *off)
{
    size_t g = 0;
    for (size_t b = 0; b < m; b += B)
        off[++g] = (int64_t)(pos + (b + B < m ? b + B : m));
    assert(g == raidWindowNblocks(m, B));
    return g;
}

raid_status raidWindowStats(raid_ctx *cpu, const raid_reg_stats *blocks, size_t B, const double *X, const double *y,
                              int k, RaidWindowKind kind, size_t m, size_t N, size_t w, int64_t *s0, int64_t *s1,
                              raid_reg_stats *out)
{
    raidWindowRows(kind, m, N, w, s0, s1);
    memset(out, 0, sizeof *out);
    out->k = k;
    return raid_reg_stats_range(cpu, blocks, B, X, y, k, *s0, *s1, out);
}

raid_status raidWindowCpus(raid_ctx *ctx, raid_ctx ***out, int *n)
{
    const int nthr = omp_get_max_threads();
    raid_ctx **cpus = calloc((size_t)nthr, sizeof *cpus);
    *out = NULL;
    *n = 0;
    if (!cpus)
        return raidFail(ctx, RAID_ENOMEM, "out of memory");
    for (int i = 0; i < nthr; i++) {
        if (i == 0 && raid_ctx_backend(ctx) == RAID_BACKEND_CPU) {
            cpus[i] = ctx;
            continue;
        }
        const raid_status st = raid_ctx_create(&cpus[i], "cpu");
        if (st != RAID_OK) {
            raidWindowCpusFree(ctx, cpus, i);
            return raidFail(ctx, st, "%s", raid_errmsg());
        }
    }
    *out = cpus;
    *n = nthr;
    return RAID_OK;
}

void raidWindowCpusFree(raid_ctx *ctx, raid_ctx **cpus, int n)
{
    for (int i = 0; cpus && i < n; i++)
        if (cpus[i] && cpus[i] != ctx)
            raid_ctx_destroy(cpus[i]);
    free(cpus);
}
