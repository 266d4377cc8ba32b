/*
 * Statistics of the union of two disjoint row sets (raid_reg_stats_combine): the pairwise update of
 * Chan, Golub and LeVeque (1979), "Updating formulae and a pairwise algorithm for computing sample
 * variances", extended to cross-products:
 *   n = na + nb,  delta = mb - ma,  mean = ma + delta nb / n,
 *   C = Ca + Cb + (na nb / n) delta delta'.
 * Every term is a centred quantity, so nothing large is built and cancelled; windows of a rolling or
 * expanding regression combine per-block statistics this way.
 */
#include "core/internal.h"

#include <string.h>

raid_status raid_reg_stats_combine(const raid_reg_stats *a, const raid_reg_stats *b, raid_reg_stats *out)
{
    if (!a || !b || !out)
        return raidFail(NULL, RAID_EINVAL, "raid_reg_stats_combine: NULL argument");
    if (a->k != b->k || a->k < 1 || a->k > RAID_REG_MAX_K)
        return raidFail(NULL, RAID_EINVAL, "raid_reg_stats_combine: k = %d and %d (equal, in 1..%d, needed)", a->k, b->k,
                         RAID_REG_MAX_K);
    if (a->n < 0 || b->n < 0)
        return raidFail(NULL, RAID_EINVAL, "raid_reg_stats_combine: negative row count (%lld, %lld)", (long long)a->n,
                         (long long)b->n);
    const int k = a->k, d = k + 1;
    if (a->n == 0 || b->n == 0) {
        const raid_reg_stats *src = a->n == 0 ? b : a;
        if (out != src)
            memcpy(out, src, sizeof *out);
        return RAID_OK;
    }
    const double na = (double)a->n, nb = (double)b->n, n = na + nb, w = na * nb / n;
    double m[RAID_REG_MAX_K + 1], delta[RAID_REG_MAX_K + 1];
    for (int p = 0; p < d; p++) {
        delta[p] = b->mean[p] - a->mean[p];
        m[p] = a->mean[p] + delta[p] * (nb / n);
    }
    raid_reg_stats r;
    memset(&r, 0, sizeof r);
    r.k = k;
    r.n = a->n + b->n;
    for (int p = 0; p < d; p++)
        r.mean[p] = m[p];
    for (int p = 0; p < k; p++) {
        for (int q = 0; q < k; q++)
            r.cxx[p * k + q] = a->cxx[p * k + q] + b->cxx[p * k + q] + w * delta[p] * delta[q];
        r.cxy[p] = a->cxy[p] + b->cxy[p] + w * delta[p] * delta[k];
    }
    r.cyy = a->cyy + b->cyy + w * delta[k] * delta[k];
    for (int p = 0; p < k; p++) {
        for (int q = 0; q < k; q++)
            r.xtx[p * k + q] = r.cxx[p * k + q] + n * m[p] * m[q];
        r.xty[p] = r.cxy[p] + n * m[p] * m[k];
    }
    r.yty = r.cyy + n * m[k] * m[k];
    r.ysum = n * m[k];
    *out = r;
    return RAID_OK;
}

/* w = the combination of w and b, in place, as raid_reg_stats_combine(w, b, w) computes it (the same
 * expressions in the same order) but without building the whole struct: the raw moments (xtx, xty, yty, ysum)
 * are left to raid_reg_stats_range, which forms them once from the last means and centred sums, as the last
 * combination would. Returns whether w changed by an update (1), by a copy of b (2) or not at all (0), or -1 with
 * raid_reg_stats_combine's message when the arguments are invalid. */
static int combine_into(raid_reg_stats *w, const raid_reg_stats *b)
{
    if (w->k != b->k || w->k < 1 || w->k > RAID_REG_MAX_K || w->n < 0 || b->n < 0)
        return raid_reg_stats_combine(w, b, w) == RAID_OK ? 0 : -1; /* its message */
    if (w->n == 0) { /* as raid_reg_stats_combine: an empty first operand gives the second */
        *w = *b;
        return 2;
    }
    if (b->n == 0)
        return 0;
    const int k = w->k, d = k + 1;
    const double na = (double)w->n, nb = (double)b->n, n = na + nb, wt = na * nb / n;
    double delta[RAID_REG_MAX_K + 1];
    for (int p = 0; p < d; p++) {
        delta[p] = b->mean[p] - w->mean[p];
        w->mean[p] = w->mean[p] + delta[p] * (nb / n);
    }
    w->n = w->n + b->n;
    for (int p = 0; p < k; p++) {
        for (int q = 0; q < k; q++)
            w->cxx[p * k + q] = w->cxx[p * k + q] + b->cxx[p * k + q] + wt * delta[p] * delta[q];
        w->cxy[p] = w->cxy[p] + b->cxy[p] + wt * delta[p] * delta[k];
    }
    w->cyy = w->cyy + b->cyy + wt * delta[k] * delta[k];
    return 1;
}

raid_status raid_reg_stats_range(raid_ctx *cpu, const raid_reg_stats *blocks, size_t block_rows, const double *X,
                                 const double *y, int k, int64_t s0, int64_t s1, raid_reg_stats *out)
{
    if (!cpu || !blocks || !X || !y || !out)
        return raidFail(cpu, RAID_EINVAL, "raid_reg_stats_range: NULL argument");
    if (block_rows == 0 || s0 < 0 || s1 < s0)
        return raidFail(cpu, RAID_EINVAL, "raid_reg_stats_range: rows [%lld, %lld) with blocks of %zu rows", (long long)s0,
                         (long long)s1, block_rows);
    const size_t B = block_rows, a = (size_t)s0, e = (size_t)s1;
    const size_t b0 = (a + B - 1) / B, b1 = e / B; /* whole blocks [b0, b1) */
    int64_t off[2] = {0, 0};
    if (b0 >= b1) { /* inside one block, or straddling one boundary without a whole block */
        off[1] = s1 - s0;
        return raid_reg_stats_compute(cpu, X + a * (size_t)k, y + a, k, off, 1, out);
    }
    /* the whole blocks, then the edges, combined in place (combine_into); the raw moments and the entries past
     * k are then as raid_reg_stats_combine's last call leaves them */
    raid_reg_stats w = blocks[b0], part;
    raid_status st = RAID_OK;
    int updated = 0;
    for (size_t b = b0 + 1; b < b1 && st == RAID_OK; b++) {
        const int c = combine_into(&w, &blocks[b]);
        if (c < 0)
            st = raidFail(cpu, RAID_EINVAL, "%s", raid_errmsg());
        updated = c == 1 ? 1 : c == 2 ? 0 : updated;
    }
    const size_t edges[2][2] = {{a, b0 * B}, {b1 * B, e}};
    for (int ed = 0; ed < 2 && st == RAID_OK; ed++) {
        if (edges[ed][0] >= edges[ed][1])
            continue;
        off[1] = (int64_t)(edges[ed][1] - edges[ed][0]);
        st = raid_reg_stats_compute(cpu, X + edges[ed][0] * (size_t)k, y + edges[ed][0], k, off, 1, &part);
        if (st == RAID_OK) {
            const int c = combine_into(&w, &part);
            if (c < 0)
                st = raidFail(cpu, RAID_EINVAL, "%s", raid_errmsg());
            updated = c == 1 ? 1 : c == 2 ? 0 : updated;
        }
    }
    if (st != RAID_OK)
        return st;
    if (updated) { /* as raid_reg_stats_combine's last call forms them, with zeros past k */
        const raid_reg_stats v = w;
        const double n = (double)v.n;
        memset(&w, 0, sizeof w);
        w.k = k;
        w.n = v.n;
        for (int p = 0; p <= k; p++)
            w.mean[p] = v.mean[p];
        for (int p = 0; p < k; p++) {
            for (int q = 0; q < k; q++) {
                w.cxx[p * k + q] = v.cxx[p * k + q];
                w.xtx[p * k + q] = v.cxx[p * k + q] + n * v.mean[p] * v.mean[q];
            }
            w.cxy[p] = v.cxy[p];
            w.xty[p] = v.cxy[p] + n * v.mean[p] * v.mean[k];
        }
        w.cyy = v.cyy;
        w.yty = v.cyy + n * v.mean[k] * v.mean[k];
        w.ysum = n * v.mean[k];
    }
    *out = w;
    return st;
}
