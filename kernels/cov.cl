/*
 * cov.cl -- the tiled double-float Gram kernel of the realized covariance matrices (src/cov/cov_device.c).
 *
 * cov_gram computes, for every pair (i, j) of one tile of COV_T x COV_T entries with i <= j on a tile of the
 * upper triangle, and for every chunk of at most `chunk` rows of the day,
 *   COV_POLAR 0:  G_ij = sum_t a[t][i] b[t][j]                            (rcov, rsemicov, mrc, rkcov)
 *   COV_POLAR 1:  G_ij = sum_{t >= 1} |a_t,i + a_t,j| |a_{t-1},i + a_{t-1},j|
 *                                   - |a_t,i - a_t,j| |a_{t-1},i - a_{t-1},j|  (rbpcov's polarisation form)
 * in double-float, written as one float2 (hi, lo) per entry and chunk: part[(c ntiles + g) COV_T^2 + i' COV_T
 * + j'] for tile g of the table `tiles` (its (bi, bj) pair) and chunk c (the launch's second dimension, counted
 * from c0). The host adds the chunks' partials in float64 in chunk order and scales them back.
 *
 * Inputs: a and b (b may be a) hold double-floats (float2, hi + lo within 2^-48 of the host's float64 value,
 * raidDfSplit), row-major by time: a[(t - base) ld + col], ld a multiple of COV_T (columns past the symbols are
 * zero). Each column is scaled by a power of two chosen on the host (COV_POLAR 0: per column, so that its
 * largest magnitude is in [0.5, 1); COV_POLAR 1: one scale for all, since it adds columns), so that no product
 * nears binary32's overflow. Rows [base, ...) of the day are in the buffer (base: the first row of the
 * launch's first chunk, one row earlier for COV_POLAR 1).
 *
 * Work-group: 16 x 16 work-items (RAID_REQD_WG(256), one dimension), each owning 2 x 2 entries of the tile
 * (rows ty, ty + 16, columns tx, tx + 16), so that a warp reads one or two values of a and 16 consecutive
 * values of b from local memory per row. Rows are staged through local memory COV_TR at a time (plus the row
 * before them for COV_POLAR 1), loaded coalesced along the columns.
 * Accumulation (fixed order, bitwise reproducible): each entry's terms of one staged block of at most COV_TR
 * rows are added in row order into a fresh accumulator with raidDfAdd (AccurateDWPlusDW, any signs), which is
 * then added to the entry's chunk accumulator with raidDfAdd. Terms: raidDfMul (DWTimesDW3) of the two
 * double-floats; for COV_POLAR 1 the sums and differences by raidDfAdd, their magnitudes, two products and
 * their difference by raidDfAdd. docs/precision.md "Covariance" derives the bound.
 *
 * cov_hy computes the Hayashi-Yoshida sums (src/cov/cov_device.c raidCovHy; the host's is hy_pair in
 * src/cov/cov.c): for symbols a <= b with strictly increasing times t_0 < ... < t_{na-1} and u_0 < ... <
 * u_{nb-1} and returns x_k over (t_{k-1}, t_k], y_l over (u_{l-1}, u_l], the sum of x_k y_l over the pairs of
 * intervals that overlap (a == b: the sum of squares). The terms are those of a merge of the two time lists:
 * from (k, l), the term x_k y_l when k, l >= 1, then the list whose time is the smaller moves on (both on a
 * tie), until one list ends. Each distinct time of the union in (max(t_0, u_0), min(t_{na-1}, u_{nb-1})] is
 * the end of exactly one overlapping pair, so the terms, in time order, are the host's. Work item g does one
 * chunk of one pair (items[3g .. 3g+2] = a, b, c): the positions [c chunk, (c + 1) chunk) of the stable merge
 * of the two lists (ties: t first), found by a binary search on the merge path; a time in both lists
 * is one position of t and one of u, and its term belongs to the chunk of its t position (a chunk starting
 * at the u copy skips it, a chunk ending between the two copies takes the term and steps past both). So a
 * chunk has at most `chunk` terms, the chunks of a pair partition its terms, and the pair has ceil((na +
 * nb) / chunk) chunks, which the host counts without reading the times.
 * Inputs: t the times (int64, symbol-major: symbol a's at off[a] .. off[a+1]); x the returns as double-floats
 * (float2, x[off[a] + k] the return ending at t_k, x[off[a]] unused), each symbol's scaled by its power of two
 * (its largest return in [0.5, 1)). Accumulation (fixed order, bitwise reproducible): the products by
 * raidDfMul, added in merge order COV_HB at a time into a fresh block accumulator with raidDfAdd, each block
 * into the chunk's accumulator with raidDfAdd; one float2 per item into part[g]. The host adds a pair's
 * chunks in float64 in chunk order and scales them back; docs/precision.md "Covariance" derives the bound.
 */
#pragma OPENCL FP_CONTRACT OFF

#define COV_T 32  /* tile side, entries */
#define COV_TR 16 /* rows staged per block */
#define COV_HB 32 /* terms per block of cov_hy */
#ifndef COV_POLAR
#define COV_POLAR 0
#endif

RAID_FN RaidDf cov_ld(RAID_LOCAL const float2 *s, int k)
{
    const float2 v = s[k];
    return raidDfMake(v.x, v.y);
}

RAID_FN RaidDf cov_abs(RaidDf x)
{
    return x.hi < 0.0f ? raidDfMake(-x.hi, -x.lo) : x;
}

/* The term of row r (of the staged block) for columns p of sa and q of sb. */
RAID_FN RaidDf cov_term(RAID_LOCAL const float2 *sa, RAID_LOCAL const float2 *sb, int r, int p, int q)
{
#if COV_POLAR
    /* rows r and r + 1 of the block: r the previous return, r + 1 the current */
    const RaidDf x0 = cov_ld(sa, r * COV_T + p), y0 = cov_ld(sb, r * COV_T + q);
    const RaidDf x1 = cov_ld(sa, (r + 1) * COV_T + p), y1 = cov_ld(sb, (r + 1) * COV_T + q);
    const RaidDf ny0 = raidDfMake(-y0.hi, -y0.lo), ny1 = raidDfMake(-y1.hi, -y1.lo);
    const RaidDf s = raidDfMul(cov_abs(raidDfAdd(x1, y1)), cov_abs(raidDfAdd(x0, y0)));
    const RaidDf d = raidDfMul(cov_abs(raidDfAdd(x1, ny1)), cov_abs(raidDfAdd(x0, ny0)));
    return raidDfAdd(s, raidDfMake(-d.hi, -d.lo));
#else
    return raidDfMul(cov_ld(sa, r * COV_T + p), cov_ld(sb, r * COV_T + q));
#endif
}

RAID_KERNEL RAID_REQD_WG(256) void cov_gram(RAID_GLOBAL const float2 *a, RAID_GLOBAL const float2 *b,
                                            RAID_GLOBAL const uint *tiles, RAID_GLOBAL float2 *part, int ld,
                                            int base, int nrows, int chunk, int c0, int ntiles)
{
    RAID_SHARED float2 sa[(COV_TR + 1) * COV_T];
    RAID_SHARED float2 sb[(COV_TR + 1) * COV_T];
    const int lid = (int)RAID_LOCAL_ID(0);
    const int tx = lid & 15, ty = lid >> 4;
    const int g = (int)RAID_GROUP_ID(0), cl = (int)RAID_GROUP_ID(1);
    const int c = c0 + cl;
    const int ca = (int)tiles[2 * g] * COV_T, cb = (int)tiles[2 * g + 1] * COV_T;
    const int row0 = c * chunk;
    const int row1 = row0 + chunk < nrows ? row0 + chunk : nrows;
    RaidDf acc[4];
    for (int k = 0; k < 4; k++)
        acc[k] = raidDfMake(0.0f, 0.0f);
    const int start = COV_POLAR && row0 < 1 ? 1 : row0;
    for (int t0 = start; t0 < row1; t0 += COV_TR) {
        const int nr = row1 - t0 < COV_TR ? row1 - t0 : COV_TR;
        const int nload = (nr + COV_POLAR) * COV_T;
        RAID_BARRIER();
        for (int e = lid; e < nload; e += 256) {
            const size_t row = (size_t)(t0 - COV_POLAR + (e >> 5) - base);
            sa[e] = a[row * (size_t)ld + (size_t)(ca + (e & 31))];
            sb[e] = b[row * (size_t)ld + (size_t)(cb + (e & 31))];
        }
        RAID_BARRIER();
        RaidDf blk[4];
        for (int k = 0; k < 4; k++)
            blk[k] = raidDfMake(0.0f, 0.0f);
        for (int r = 0; r < nr; r++)
            for (int k = 0; k < 4; k++)
                blk[k] = raidDfAdd(blk[k], cov_term(sa, sb, r, ty + 16 * (k >> 1), tx + 16 * (k & 1)));
        for (int k = 0; k < 4; k++)
            acc[k] = raidDfAdd(acc[k], blk[k]);
    }
    RAID_GLOBAL float2 *o = part + ((size_t)cl * (size_t)ntiles + (size_t)g) * (size_t)(COV_T * COV_T);
    for (int k = 0; k < 4; k++)
        o[(ty + 16 * (k >> 1)) * COV_T + tx + 16 * (k & 1)] = RAID_FLOAT2(acc[k].hi, acc[k].lo);
}

/* The merge step of cov_hy: the list whose time is the smaller moves on, both on a tie; *p counts the
 * positions of the stable merge passed. */
RAID_FN void cov_hy_step(RaidI64 tk, RaidI64 ul, int *k, int *l, int *p)
{
    const int dk = tk <= ul ? 1 : 0, dl = ul <= tk ? 1 : 0;
    *k += dk;
    *l += dl;
    *p += dk + dl;
}

RAID_KERNEL RAID_REQD_WG(64) void cov_hy(RAID_GLOBAL const RaidI64 *t, RAID_GLOBAL const float2 *x,
                                         RAID_GLOBAL const RaidI64 *off, RAID_GLOBAL const uint *items,
                                         RAID_GLOBAL float2 *part, int nitems, int chunk)
{
    const int g = (int)RAID_GLOBAL_ID(0);
    if (g >= nitems)
        return;
    const uint a = items[3 * g], b = items[3 * g + 1];
    const RaidI64 oa = off[a], ob = off[b];
    const int na = (int)(off[a + 1] - oa), nb = (int)(off[b + 1] - ob);
    RAID_GLOBAL const RaidI64 *ta = t + oa;
    RAID_GLOBAL const RaidI64 *tb = t + ob;
    RAID_GLOBAL const float2 *xa = x + oa;
    RAID_GLOBAL const float2 *xb = x + ob;
    const int p0 = (int)items[3 * g + 2] * chunk;
    const int p1 = RAID_MIN(p0 + chunk, na + nb); /* na + nb + chunk < 2^31: the host checks */
    /* the merge path: the number k of t's among the first p0 positions (ties: t first) */
    int lo = RAID_MAX(0, p0 - nb), hi = RAID_MIN(p0, na);
    while (lo < hi) {
        const int mid = lo + (hi - lo) / 2;
        if (ta[mid] <= tb[p0 - mid - 1])
            lo = mid + 1;
        else
            hi = mid;
    }
    int k = lo, l = p0 - lo, p = p0;
    if (k >= 1 && l < nb && ta[k - 1] == tb[l]) { /* the u copy of a time whose term the previous chunk took */
        l++;
        p++;
    }
    while (p < p1 && k < na && l < nb && (k == 0 || l == 0)) /* before both first intervals: no term */
        cov_hy_step(ta[k], tb[l], &k, &l, &p);
    RaidDf acc = raidDfMake(0.0f, 0.0f), blk = raidDfMake(0.0f, 0.0f);
    int nt = 0;
    while (p < p1 && k < na && l < nb) {
        const float2 u = xa[k], v = xb[l];
        blk = raidDfAdd(blk, raidDfMul(raidDfMake(u.x, u.y), raidDfMake(v.x, v.y)));
        if (++nt == COV_HB) {
            acc = raidDfAdd(acc, blk);
            blk = raidDfMake(0.0f, 0.0f);
            nt = 0;
        }
        cov_hy_step(ta[k], tb[l], &k, &l, &p);
    }
    acc = raidDfAdd(acc, blk);
    part[g] = RAID_FLOAT2(acc.hi, acc.lo);
}
