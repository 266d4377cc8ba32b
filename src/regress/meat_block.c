/*
 * The float64 cpu path of the robust meat for overlapping row ranges (rolling and expanding windows of one
 * series, each with its own coefficients): per-block lagged cross-products of the rows' pair products,
 * combined per window with the window's coefficients, instead of the scores of every window's rows.
 *
 * Coordinates (one "piece": a run of ranges in the caller's order whose starts and ends do not decrease and
 * that overlap, so that they share rows). The residual is taken against a REFERENCE: b* the coefficients of
 * the piece's middle range, r_t = y_t - x_t'b* (long double, rounded to float64 once per row and piece), so that
 * a window's residual is e_t = r_t - x_t'(b - b*). The windows' coefficients differ little from b*, so the
 * terms of e_t are about as large as e_t itself: with y_t - x_t'b instead, collinear columns with large
 * coefficients of opposite signs (SPY's HARQ: rv_d and rq_rv on the days of large rv) made the terms up to
 * 270 times the residual, and the bound below refused 390 of 474 windows. As the device path
 * (src/regress/meat_device.c) does for a group, the columns are centred at their means c over the piece's rows and
 * scaled by powers of two (2^-e_p, 2^-e_y: the largest centred |value| in [0.5, 1)); a column constant over
 * the piece (the intercept) is not a coordinate. Row t is zeta_t = (1, x^_t[p] for the non-constant p, r^_t),
 * d <= k + 2 values, and its pair products P_t[(a, b)] = zeta_t[a] zeta_t[b] (a <= b, np = d (d + 1) / 2 of
 * them). With the score u_t[p] = e_t (x_t[p] - centre_p) of raid_reg_meat_ranges_at,
 *     e_t 2^-e_y = gamma' zeta_t,  gamma = (-a 2^-e_y, -(b_p - b*_p) 2^(e_p - e_y), 1),
 *     a = sum_p c_p (b_p - b*_p) - c_r   (c_r the mean of r over the piece),
 *     x_t[p] - centre_p = 2^f_p delta_p' zeta_t,  delta_p = ((c_p - centre_p) 2^-f_p on the 1, 1 on x^_p),
 * (f_p = e_p; for a constant column f_p = 0 and delta_p = (c_p - centre_p) on the 1 alone), so that
 *     meat_l[p][q] = 2^(2 e_y + f_p + f_q) delta_p' M_l delta_q,
 *     M_l[b][e] = sum_{a, c} gamma_a gamma_c I_l[(a, b)][(c, e)],   I_l = sum_t P_t P_{t-l}'   (np x np).
 * I_l does not depend on the window's coefficients: it is summed once per block of B >= L rows (the pairs
 * inside block j, and the pairs with t in block j and t - l in block j - 1), and a window's I_l is the sum
 * of the whole blocks it covers (by two stacks, mb_interior: only additions, each block added about twice).
 * The pairs that touch the window's partial edge blocks (fewer than B rows each side) are summed from
 * their scores, formed in the same coordinates. A window costs O((L + 1)((d - 1) d np + B k^2)) instead of
 * O((L + 1) n k^2); the rows' pair products are summed once per piece.
 *
 * Accuracy (Higham, "Accuracy and Stability of Numerical Algorithms", 2nd ed. 2002, 3.1 and 4.2, with
 * Cauchy-Schwarz over t; u = 2^-53). Let W_t = |gamma|'|zeta_t| and D_pt = |delta_p|'|zeta_t| (|.| elementwise,
 * the computed values), over the window's rows
 *     A_p = sum_t W_t^2 D_pt^2,   S_p = sum_t D_pt^2,
 * and let tau bound the error that every residual shares whatever its size: the long double errors of r_t
 * ((k + 4) 2^-63 of the largest sum of its terms' magnitudes in the piece) and of a ((k + 3) 2^-63 of its
 * terms'). Representation: gamma' zeta_t differs from the exact e_t 2^-e_y by at most 2u W_t + tau (the
 * roundings of x_t - c, of b - b* and of r_t, each relative to its own term) and delta_p' zeta_t from the exact
 * factor by u D_pt; arithmetic: the products, the sums inside a block (2B), the sum over nb blocks, the
 * contraction and the edges' sums, (2B + nb + np + k + 16) u relative to the same magnitudes. Together,
 * every entry of every lag is within
 *     eta sqrt(A_p A_q) + 1.01 (t_p sqrt(A_q) + sqrt(A_p) t_q + t_p t_q),   t_p = tau sqrt(S_p),
 *     eta = (2B + nb + np + k + 24) u
 * of the exact meat. A_p and S_p come from the blocks' sums of |P_t||P_t|' and the edge rows, and a window is
 * taken only when that is at most MB_TAU sqrt(meat_0[p][p] meat_0[q][q]) for every p and q (the row-wise
 * path's own error on that scale is about 2u). A window that misses it (a residual small against its terms:
 * a fit close to exact, a window far from the reference; regressors far from the piece's means), a non-finite
 * sum, or a window without a whole block is left to the row-wise path, which the caller runs on it.
 * docs/regression.md gives the measured errors, tests/tools/har_oracle.py the exact ones.
 */
#define _DEFAULT_SOURCE /* madvise, MADV_HUGEPAGE */
#include "core/internal.h"
#include "regress/ols_internal.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define MB_MAX_D (RAID_REG_MAX_K + 2)
#define MB_MAX_NP (MB_MAX_D * (MB_MAX_D + 1) / 2)
/* Rows per block at least (B = max(MB_MIN_BLOCK, L): a pair reaches back one block at most). A window costs
 * about 4 (L + 2) np^2 / B for its blocks' sums and B (L + 1) k^2 for its edges; B = L is about the best
 * for the usual lags. */
#define MB_MIN_BLOCK 8
/* The bytes of one piece's block sums at most (a longer run is cut into pieces). */
#define MB_PIECE_BYTES ((size_t)48 << 20)
/* The tolerance of a window's meat relative to sqrt(meat_0[p][p] meat_0[q][q]) (above). */
#define MB_TAU 0x1p-36

/* The frame of a piece: centres, scales, coordinates. */
typedef struct mb_frame {
    int k, d, np, nq, L, B; /* nq: np rounded up to a multiple of 4, the rows' stride (zeros beyond np) */
    int slot[RAID_REG_MAX_K]; /* coordinate of column p in zeta, 0 for a constant column */
    int ex[RAID_REG_MAX_K + 1];
    double c[RAID_REG_MAX_K + 1]; /* the centres (column means over the piece; a constant column: its value) */
    double sc[RAID_REG_MAX_K + 1]; /* 2^-ex */
    double tau; /* the reference residuals' long double error at most, in the units of zeta's last coordinate */
    int pa[MB_MAX_NP], pb[MB_MAX_NP];
    int pidx[MB_MAX_D][MB_MAX_D]; /* the pair (a, b) in either order */
} mb_frame;

/* One thread's work space. A block's record holds its (L + 1) lagged sums, then its sum of |P_t||P_t|'. */
typedef struct mb_work {
    double *Z;               /* the piece's rows: span x d */
    size_t cap_z;
    double *P, *Tint, *Tall; /* span x nq; per block a record (Tall: becomes suffix sums, below) */
    size_t cap_p, cap_t, cap_a; /* kept from piece to piece (fresh pages for every piece cost as much as
                                   the sums) */
    double *I, *Bk;          /* the interior's record; the sum of the back blocks */
    size_t cap_i;
    int64_t ib0, ib1;        /* the interior's whole blocks [ib0, ib1) */
    int64_t fe, be;          /* blocks [lo, fe) of Tall hold suffix sums up to fe - 1, Bk sums [fe, be) */
    double *U;               /* the window's edge scores, indexed by row - s0: k each */
    size_t cap_u;
    double *E;               /* the edges' sums, (L + 1) k k */
    size_t cap_e;
    double *R;               /* the piece's reference residuals, by row - lo */
    size_t cap_r;
} mb_work;

/* A buffer of at least need doubles, kept from piece to piece. The blocks' sums are megabytes allocated afresh by
 * every call: on Linux they are asked for in transparent huge pages (2 MiB-aligned, madvise), which makes the
 * first touch one page fault per 2 MiB instead of per 4 KiB (measured: 3,000 faults, about 8% of a rolling
 * HAR's cpu time with 4 KiB pages). */
static int grow(double **p, size_t *cap, size_t need)
{
    if (need <= *cap)
        return 1;
    free(*p);
    const size_t bytes = need * sizeof **p, huge = (size_t)2 << 20;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (bytes >= huge) {
        const size_t rounded = (bytes + huge - 1) / huge * huge;
        *p = aligned_alloc(huge, rounded);
        if (*p)
            (void)madvise(*p, rounded, MADV_HUGEPAGE); /* a hint: without it, 4 KiB pages */
    } else
#endif
        *p = malloc(bytes);
    *cap = *p ? need : 0;
    return *p != NULL;
}

/* Frame of rows [lo, hi) of X and y (y indexed from lo: y[t - lo]); 0 when a column is not finite there (the
 * row-wise path names the problem). */
static int mb_frame_make(const double *X, const double *y, int k, int L, int64_t lo, int64_t hi, mb_frame *f)
{
    memset(f, 0, sizeof *f);
    f->k = k;
    f->L = L;
    f->B = L > MB_MIN_BLOCK ? L : MB_MIN_BLOCK;
    long double sum[RAID_REG_MAX_K + 1] = {0};
    double mn[RAID_REG_MAX_K + 1], mx[RAID_REG_MAX_K + 1];
    for (int p = 0; p <= k; p++)
        mn[p] = INFINITY, mx[p] = -INFINITY;
    for (int64_t t = lo; t < hi; t++)
        for (int p = 0; p <= k; p++) {
            const double v = p < k ? X[(size_t)t * (size_t)k + (size_t)p] : y[t - lo];
            sum[p] += v;
            mn[p] = fmin(mn[p], v);
            mx[p] = fmax(mx[p], v);
        }
    int d = 1;
    for (int p = 0; p <= k; p++) {
        if (!isfinite(mn[p]) || !isfinite(mx[p]) || !isfinite((double)sum[p]))
            return 0;
        const int constant = p < k && mn[p] == mx[p];
        f->c[p] = constant ? mn[p] : (double)(sum[p] / (long double)(hi - lo));
        const double m = fmax(fabs(mx[p] - f->c[p]), fabs(mn[p] - f->c[p]));
        int e = 0;
        if (m > 0)
            frexp(m, &e);
        f->ex[p] = constant ? 0 : e;
        f->sc[p] = ldexp(1.0, -f->ex[p]);
        if (p < k)
            f->slot[p] = constant ? 0 : d++;
    }
    d++; /* y */
    f->d = d;
    int i = 0;
    for (int a = 0; a < d; a++)
        for (int b = a; b < d; b++, i++) {
            f->pa[i] = a, f->pb[i] = b;
            f->pidx[a][b] = f->pidx[b][a] = i;
        }
    f->np = i;
    f->nq = (i + 3) & ~3;
    return 1;
}

/* zeta and the pair products of rows [lo, hi) (y indexed from lo). */
static inline __attribute__((always_inline)) void mb_rows(const double *X, const double *y, const mb_frame *f, int64_t lo, int64_t hi, double *Z, double *P)
{
    const int k = f->k, d = f->d, np = f->np, nq = f->nq;
    for (int64_t t = lo; t < hi; t++) {
        double *z = Z + (size_t)(t - lo) * (size_t)d, *pp = P + (size_t)(t - lo) * (size_t)nq;
        z[0] = 1;
        for (int p = 0; p < k; p++)
            if (f->slot[p])
                z[f->slot[p]] = (X[(size_t)t * (size_t)k + (size_t)p] - f->c[p]) * f->sc[p];
        z[d - 1] = (y[t - lo] - f->c[k]) * f->sc[k];
        for (int i = 0; i < np; i++)
            pp[i] = z[f->pa[i]] * z[f->pb[i]];
        for (int i = np; i < nq; i++)
            pp[i] = 0;
    }
}

/* Four doubles at once (GCC's vector extensions: element-wise, the same roundings as the scalar code; no
 * FMA under -ffp-contract=off), unaligned. */
typedef double mb_v4 __attribute__((vector_size(32), aligned(8), may_alias));
#define V4(p) (*(mb_v4 *)(p))

/* row[j] += a v[j], j < n (n a multiple of 4) */
static inline __attribute__((always_inline)) void axpy(double *restrict row, double a, const double *restrict v, int n)
{
    const mb_v4 av = {a, a, a, a};
    for (int j = 0; j < n; j += 4)
        V4(row + j) += av * V4(v + j);
}

/* dst[c] += src[c], c < n (n a multiple of 4) */
static inline __attribute__((always_inline)) void add_to(double *restrict dst, const double *restrict src, size_t n)
{
    for (size_t c = 0; c < n; c += 4)
        V4(dst + c) += V4(src + c);
}

/* Block j (rows [jB, (j + 1) B) of the piece): the pairs inside it (Tint), those and the pairs reaching
 * into block j - 1 (Tall), and sum |P_t||P_t|' (the records' last np np). */
static inline __attribute__((always_inline)) void mb_block(const mb_frame *f, const double *P, int64_t j, double *restrict Tint, double *restrict Tall)
{
    const int np = f->np, nq = f->nq, L = f->L;
    const size_t nn = (size_t)np * (size_t)nq, rec = (size_t)(L + 2) * nn;
    const int64_t r0 = j * f->B, r1 = r0 + f->B;
    memset(Tint, 0, rec * sizeof *Tint);
    memset(Tall, 0, rec * sizeof *Tall);
    double *Q = Tint + (size_t)(L + 1) * nn;
    /* lag by lag, so that each lag's np x nq sums stay in the first-level cache over the block's rows */
    for (int l = 0; l <= L; l++)
        for (int64_t t = r0 > l ? r0 : l; t < r1; t++) {
            double *T = (t - l >= r0 ? Tint : Tall) + (size_t)l * nn;
            const double *pt = P + (size_t)t * (size_t)nq, *ps = P + (size_t)(t - l) * (size_t)nq;
            for (int i = 0; i < np; i++)
                axpy(T + (size_t)i * (size_t)nq, pt[i], ps, nq);
        }
    for (int64_t t = r0; t < r1; t++) {
        const double *pt = P + (size_t)t * (size_t)nq;
        double ab[MB_MAX_NP + 3];
        for (int i = 0; i < nq; i++)
            ab[i] = fabs(pt[i]);
        for (int i = 0; i < np; i++)
            axpy(Q + (size_t)i * (size_t)nq, ab[i], ab, nq);
    }
    /* Tall = the cross pairs (accumulated there) + Tint; the same Q */
    add_to(Tall, Tint, rec);
}

/* The interior's record w->I: Tint(b0) + sum_{b0 < j < b1} Tall(j), by two stacks (a queue of sums that
 * only adds): the back blocks [fe, be) summed in Bk as b1 grows, and, when b0 passes fe, suffix sums of
 * the blocks [b0 + 1, be) formed in place in Tall (their raw sums are not needed again: the back only
 * reads blocks from be on). Each block is added about twice in all, whatever the window. */
static inline __attribute__((always_inline)) void mb_interior(const mb_frame *f, mb_work *w, int64_t b0, int64_t b1)
{
    const size_t nn = (size_t)f->np * (size_t)f->nq, rec = (size_t)(f->L + 2) * nn;
    const int64_t lo_ = b0 + 1, hi_ = b1;
    double *restrict Bk = w->Bk;
    if (w->be < 0) {
        w->fe = w->be = lo_;
        memset(Bk, 0, rec * sizeof *Bk);
    }
    for (; w->be < hi_; w->be++)
        add_to(Bk, w->Tall + (size_t)w->be * rec, rec);
    if (lo_ >= w->fe) {
        for (int64_t j = w->be - 2; j >= lo_; j--)
            add_to(w->Tall + (size_t)j * rec, w->Tall + (size_t)(j + 1) * rec, rec);
        w->fe = w->be;
        memset(Bk, 0, rec * sizeof *Bk);
    }
    double *restrict I = w->I;
    const double *restrict Ti = w->Tint + (size_t)b0 * rec;
    if (lo_ < w->fe) {
        const double *restrict S = w->Tall + (size_t)lo_ * rec;
        for (size_t c = 0; c < rec; c += 4)
            V4(I + c) = V4(Ti + c) + (V4(S + c) + V4(Bk + c));
    } else {
        for (size_t c = 0; c < rec; c += 4)
            V4(I + c) = V4(Ti + c) + V4(Bk + c);
    }
}

/* M[b][e] = sum_{a, c} g[a] g[c] T[(a, b)][(c, e)] for b, e < d - 1 (the scores' factors x_t - centre have
 * no y term), row stride MB_MAX_D. */
static inline __attribute__((always_inline)) void mb_contract(const mb_frame *f, const double *T, const double *g,
                                                              double M[][MB_MAX_D])
{
    const int d = f->d, nq = f->nq;
    double N[MB_MAX_D][MB_MAX_NP + 3];
    /* N[b][j] = sum_a g[a] T[(a, b)][j], the terms in the order of a, each sum kept in a register over a (the
     * same roundings as accumulating N[b] row by row in memory, without its store-to-load chain) */
    for (int b = 0; b < d - 1; b++) {
        const double *rows[MB_MAX_D];
        double ga[MB_MAX_D];
        int na = 0;
        for (int a = 0; a < d; a++)
            if (g[a] != 0) {
                rows[na] = T + (size_t)f->pidx[a][b] * (size_t)nq;
                ga[na++] = g[a];
            }
        for (int j = 0; j < nq; j += 4) {
            mb_v4 acc = {0, 0, 0, 0};
            for (int i = 0; i < na; i++) {
                const mb_v4 av = {ga[i], ga[i], ga[i], ga[i]};
                acc += av * V4(rows[i] + j);
            }
            V4(N[b] + j) = acc;
        }
    }
    for (int b = 0; b < d - 1; b++)
        for (int e = 0; e < d - 1; e++) {
            double s = 0;
            for (int c = 0; c < d; c++)
                s += g[c] * N[b][f->pidx[c][e]];
            M[b][e] = s;
        }
}

/* El[p][q] += sum_t u_{t0 + t}[p] u_{t0 + t - l}[q] for t in [0, n) (U from row t0 - l, K columns), the pairs
 * in the order of t, each lag's sums kept in registers for K = 4 */
static inline __attribute__((always_inline)) void mb_edge_run(const int K, int l, const double *ut, int64_t n,
                                                              double *restrict El)
{
    const double *us = ut - (size_t)l * (size_t)K;
    if (K == 4) {
        mb_v4 e0 = V4(El), e1 = V4(El + 4), e2 = V4(El + 8), e3 = V4(El + 12);
        for (int64_t t = 0; t < n; t++, ut += 4, us += 4) {
            const mb_v4 v = V4(us);
            const mb_v4 a0 = {ut[0], ut[0], ut[0], ut[0]}, a1 = {ut[1], ut[1], ut[1], ut[1]},
                        a2 = {ut[2], ut[2], ut[2], ut[2]}, a3 = {ut[3], ut[3], ut[3], ut[3]};
            e0 += a0 * v;
            e1 += a1 * v;
            e2 += a2 * v;
            e3 += a3 * v;
        }
        V4(El) = e0, V4(El + 4) = e1, V4(El + 8) = e2, V4(El + 12) = e3;
        return;
    }
    for (int64_t t = 0; t < n; t++, ut += K, us += K)
        for (int p = 0; p < K; p++)
            for (int q = 0; q < K; q++)
                El[p * K + q] += ut[p] * us[q];
}

/* out[l][p][q] += sum_{t, t - l} u_t[p] u_{t-l}[q] over the pairs with a row in the edges [s0, Ar) or
 * [Cr, s1) (U: the scores by row - s0); K the number of columns (a constant for the common sizes). Each lag's
 * pairs are added in the order of t: first those with t in the right edge (t - l anywhere in the window), then
 * those with t - l in the left edge and t before the right edge. */
static inline __attribute__((always_inline)) void mb_edges(const int K, int L, const double *restrict U, int64_t s0,
                                                           int64_t Ar, int64_t Cr, int64_t s1, double *restrict E)
{
    const size_t kk = (size_t)K * (size_t)K;
    for (int l = 0; l <= L; l++) {
        const int64_t t0 = Cr > s0 + l ? Cr : s0 + l;
        if (t0 < s1)
            mb_edge_run(K, l, U + (size_t)(t0 - s0) * (size_t)K, s1 - t0, E + (size_t)l * kk);
    }
    for (int l = 0; l <= L; l++) {
        const int64_t ts1 = Ar < Cr - l ? Ar : Cr - l; /* t - l in [s0, ts1) */
        if (ts1 > s0)
            mb_edge_run(K, l, U + (size_t)(s0 + l - s0) * (size_t)K, ts1 - s0, E + (size_t)l * kk);
    }
}

/* One window [s0, s1) with coefficients b and centre cen (NULL: 0) in the piece starting at row lo, whose
 * reference coefficients are bs; out (L + 1) k k. Returns 1 when taken (within the bound), 0 to leave it to the
 * row-wise path. */
static inline __attribute__((always_inline)) int mb_window(const mb_frame *f, mb_work *w, int64_t lo, int64_t s0,
                                                           int64_t s1, const double *b, const double *bs,
                                                           const double *cen, double *out)
{
    const int k = f->k, d = f->d, np = f->np, L = f->L, B = f->B;
    const size_t nn = (size_t)np * (size_t)f->nq, kk = (size_t)k * (size_t)k;
    const int64_t b0 = (s0 - lo + B - 1) / B, b1 = (s1 - lo) / B; /* whole blocks [b0, b1) */
    if (b1 - b0 < 1)
        return 0;
    /* gamma and delta_p (its support: the 1 and the column's own coordinate) */
    double gam[MB_MAX_D] = {0}, gab[MB_MAX_D], dl0[RAID_REG_MAX_K];
    /* a = sum_p c_p (b_p - bs_p) - c_r (c_r the mean of the reference residuals) in long double; its error (its
     * terms cancel when the levels are large) is the same in every residual: counted with tau in the bound */
    long double a = -(long double)f->c[k], asum = fabsl((long double)f->c[k]);
    for (int p = 0; p < k; p++) {
        const long double dbp = (long double)b[p] - bs[p];
        a += (long double)f->c[p] * dbp;
        asum += fabsl((long double)f->c[p] * dbp);
    }
    gam[0] = -(double)a * f->sc[k];
    const double aerr = (double)(asum * (long double)(k + 3) * LDBL_EPSILON) * f->sc[k];
    gam[d - 1] = 1;
    int fe[RAID_REG_MAX_K];
    for (int p = 0; p < k; p++) {
        const double cp = cen ? cen[p] : 0.0;
        if (f->slot[p]) {
            gam[f->slot[p]] = -ldexp(b[p] - bs[p], f->ex[p] - f->ex[k]); /* rounded: within u of the difference */
            dl0[p] = (f->c[p] - cp) * f->sc[p];
            fe[p] = f->ex[p];
        } else {
            dl0[p] = f->c[p] - cp;
            fe[p] = 0;
        }
        if (!isfinite(dl0[p]))
            return 0;
    }
    for (int i = 0; i < d; i++) {
        if (!isfinite(gam[i]))
            return 0;
        gab[i] = fabs(gam[i]);
    }
    if (w->ib0 != b0 || w->ib1 != b1) {
        mb_interior(f, w, b0, b1);
        w->ib0 = b0;
        w->ib1 = b1;
    }
    /* interior: M_l = sum_t e_t e_{t-l} zeta_t zeta_{t-l}', meat_l[p][q] = delta_p' M_l delta_q */
    double M[MB_MAX_D][MB_MAX_D];
    for (int l = 0; l <= L; l++) {
        mb_contract(f, w->I + (size_t)l * nn, gam, M);
        double *o = out + (size_t)l * kk;
        for (int p = 0; p < k; p++) {
            const int sp = f->slot[p];
            for (int q = 0; q < k; q++) {
                const int sq = f->slot[q];
                double v = dl0[p] * (dl0[q] * M[0][0]);
                if (sq)
                    v += dl0[p] * M[0][sq];
                if (sp)
                    v += dl0[q] * M[sp][0] + (sq ? M[sp][sq] : 0.0);
                o[(size_t)p * (size_t)k + (size_t)q] = v;
            }
        }
    }
    /* the bound's sums: A_p = |delta_p|' Ma |delta_p|, Ma from |gamma| and sum |P||P|', plus the edge rows' */
    double A[RAID_REG_MAX_K], S2[RAID_REG_MAX_K];
    const double *Q = w->I + (size_t)(L + 1) * nn;
    mb_contract(f, Q, gab, M);
    for (int p = 0; p < k; p++) {
        const int sp = f->slot[p];
        const double z = fabs(dl0[p]);
        A[p] = z * (z * M[0][0]) + (sp ? z * (M[0][sp] + M[sp][0]) + M[sp][sp] : 0.0);
        /* S2_p = sum_t (|delta_p|'|zeta_t|)^2 from the sums of |P_t[(0, a)] P_t[(0, b)]| = |zeta_t[a] zeta_t[b]| */
        const double *q0 = Q + (size_t)f->pidx[0][sp] * (size_t)f->nq;
        S2[p] = z * (z * Q[0]) + (sp ? z * (Q[f->pidx[0][sp]] + q0[0]) + q0[f->pidx[0][sp]] : 0.0);
    }
    /* edges: the scores of the rows that pair with a row outside [Ar, Cr) */
    const int64_t Ar = lo + b0 * B, Cr = lo + b1 * B;
    const int64_t l1 = Ar + L < Cr ? Ar + L : Cr, r0 = Cr - L > l1 ? Cr - L : l1;
    for (int pass = 0; pass < 2; pass++) {
        const int64_t u0 = pass ? r0 : s0, u1 = pass ? s1 : l1;
        for (int64_t t = u0; t < u1; t++) {
            const double *z = w->Z + (size_t)(t - lo) * (size_t)d;
            double e = 0, ea = 0;
            for (int i = 0; i < d; i++) {
                e += gam[i] * z[i];
                ea += gab[i] * fabs(z[i]);
            }
            double *u = w->U + (size_t)(t - s0) * (size_t)k;
            const int edge = t < Ar || t >= Cr;
            for (int p = 0; p < k; p++) {
                const int sl = f->slot[p];
                const double x = dl0[p] + (sl ? z[sl] : 0.0), xa = fabs(dl0[p]) + (sl ? fabs(z[sl]) : 0.0);
                u[p] = e * x;
                if (edge) {
                    A[p] += (ea * xa) * (ea * xa);
                    S2[p] += xa * xa;
                }
            }
        }
    }
    double *E = w->E;
    memset(E, 0, (size_t)(L + 1) * kk * sizeof *E);
    if (k == 4)
        mb_edges(4, L, w->U, s0, Ar, Cr, s1, E);
    else
        mb_edges(k, L, w->U, s0, Ar, Cr, s1, E);
    for (size_t c = 0; c < (size_t)(L + 1) * kk; c++)
        out[c] += E[c];
    /* the bound, then the units (powers of two: exact) */
    const double eta = (double)(2 * B + (b1 - b0) + np + k + 24) * 0x1p-53;
    double a_[RAID_REG_MAX_K], t_[RAID_REG_MAX_K], m_[RAID_REG_MAX_K];
    for (int p = 0; p < k; p++) {
        a_[p] = sqrt(A[p]);
        t_[p] = (f->tau + aerr) * sqrt(S2[p]);
        m_[p] = sqrt(fmax(out[(size_t)p * (size_t)k + (size_t)p], 0.0));
    }
    for (int p = 0; p < k; p++)
        for (int q = 0; q < k; q++) {
            const double bound = eta * (a_[p] * a_[q]) + 1.01 * (t_[p] * a_[q] + a_[p] * t_[q] + t_[p] * t_[q]);
            if (!(bound <= MB_TAU * (m_[p] * m_[q])))
                return 0;
        }
    for (int p = 0; p < k; p++)
        for (int q = 0; q < k; q++) {
            const int ex = 2 * f->ex[k] + fe[p] + fe[q];
            const double fac = ldexp(1.0, ex);
            const int normal = isnormal(fac);
            for (int l = 0; l <= L; l++) {
                double *o = out + (size_t)l * kk + (size_t)p * (size_t)k + (size_t)q;
                *o = normal ? *o * fac : ldexp(*o, ex);
                if (!isfinite(*o))
                    return 0;
            }
        }
    return 1;
}

/* One piece: ranges [r0, r1) (starts and ends not decreasing), rows [lo, hi). On x86-64 it is also compiled
 * for AVX2 and chosen at run time: the same operations in the same order (no FMA: -ffp-contract=off, no
 * reassociation), so the same bits, on wider vectors. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
__attribute__((target_clones("avx2", "default")))
#endif
static void mb_piece(const double *X, const double *y, int k, const int64_t *start, const int64_t *end,
                     const double *beta, const double *centre, int L, size_t r0, size_t r1, double *out,
                     unsigned char *done, mb_work *w)
{
    const int64_t lo = start[r0], hi = end[r1 - 1];
    const size_t span = (size_t)(hi - lo);
    mb_frame f;
    if (!grow(&w->R, &w->cap_r, span) || !mb_frame_make(X, y + lo, k, L, lo, hi, &f))
        return;
    /* The reference residuals r_t = y_t - x_t'b* (b* the coefficients of the piece's middle range) in long
     * double, about the columns' means: (y_t - c_y) - sum_p b*_p (x_t[p] - c_p) - a*, a* = sum_p b*_p c_p - c_y.
     * Their error is at most (k + 4) 2^-64 (1 + ...) of the sum of the terms' magnitudes (and of a*'s); tau keeps
     * the largest over the piece (twice that), in the units of r's coordinate below. */
    const double *bs = beta + (r0 + (r1 - r0) / 2) * (size_t)k;
    long double as = -(long double)f.c[k], asabs = fabsl((long double)f.c[k]);
    for (int p = 0; p < k; p++) {
        as += (long double)bs[p] * f.c[p];
        asabs += fabsl((long double)bs[p] * f.c[p]);
    }
    double tmax = 0;
    for (int64_t t = lo; t < hi; t++) {
        long double v = (long double)y[t] - f.c[k], T = fabsl(v);
        for (int p = 0; p < k; p++)
            if (f.slot[p]) {
                const long double term = (long double)bs[p] * ((long double)X[(size_t)t * (size_t)k + (size_t)p] - f.c[p]);
                v -= term;
                T += fabsl(term);
            }
        w->R[t - lo] = (double)(v - as);
        tmax = fmax(tmax, (double)(T + fabsl(as) + asabs));
    }
    if (!mb_frame_make(X, w->R, k, L, lo, hi, &f))
        return;
    f.tau = ldexp(tmax * (double)(2 * (k + 4)) * 0x1p-64, -f.ex[k]);
    const size_t nn = (size_t)f.np * (size_t)f.nq, rec = (size_t)(L + 2) * nn;
    const int64_t nblk = (hi - lo) / f.B;
    size_t maxlen = 0;
    for (size_t r = r0; r < r1; r++)
        if ((size_t)(end[r] - start[r]) > maxlen)
            maxlen = (size_t)(end[r] - start[r]);
    if (nblk < 1)
        return;
    if (grow(&w->P, &w->cap_p, span * (size_t)f.nq) && grow(&w->Tint, &w->cap_t, (size_t)nblk * rec) &&
        grow(&w->Tall, &w->cap_a, (size_t)nblk * rec) && grow(&w->Z, &w->cap_z, span * (size_t)f.d) &&
        grow(&w->I, &w->cap_i, 2 * rec) && grow(&w->U, &w->cap_u, maxlen * (size_t)k) &&
        grow(&w->E, &w->cap_e, (size_t)(L + 1) * (size_t)k * (size_t)k)) {
        w->Bk = w->I + rec;
        w->ib0 = w->ib1 = w->fe = w->be = -1;
        mb_rows(X, w->R, &f, lo, hi, w->Z, w->P);
        for (int64_t j = 0; j < nblk; j++)
            mb_block(&f, w->P, j, w->Tint + (size_t)j * rec, w->Tall + (size_t)j * rec);
        const size_t nc = (size_t)(L + 1) * (size_t)k * (size_t)k;
        for (size_t r = r0; r < r1; r++)
            done[r] = (unsigned char)mb_window(&f, w, lo, start[r], end[r], beta + r * (size_t)k, bs,
                                               centre ? centre + r * (size_t)k : NULL, out + r * nc);
    }
}

/* Pieces of a run of rolling ranges: [r0, r1) at most `most` ranges, rows within MB_PIECE_BYTES of blocks. */
typedef struct mb_piece_t {
    size_t r0, r1;
} mb_piece_t;

size_t raidRegMeatBlocks(const double *X, const double *y, int k, const int64_t *start, const int64_t *end,
                            size_t n, const double *beta, const double *centre, int max_lag, double *out,
                            unsigned char *done, int force)
{
    const int L = max_lag, B = L > MB_MIN_BLOCK ? L : MB_MIN_BLOCK;
    const size_t npmax = (size_t)(k + 2) * (size_t)(k + 3) / 2;
    const double blk_bytes_per_row = (double)(2 * (size_t)(L + 2) * npmax * npmax * sizeof(double)) / B;
    /* runs: consecutive ranges whose starts and ends do not decrease and which overlap the previous one */
    mb_piece_t *pc = malloc((n ? n : 1) * sizeof *pc);
    if (!pc)
        return 0;
    size_t npc = 0, total = 0;
    for (size_t r = 0; r < n;) {
        size_t e = r + 1;
        while (e < n && start[e] >= start[e - 1] && end[e] >= end[e - 1] && start[e] < end[e - 1])
            e++;
        /* worth it? per lag and window, the row-wise path's n k^2 products (long double) against the blocks':
         * np nq per row of the run, (d - 1) d nq + (d - 1)^2 for the contraction, B k^2 for the edges and
         * 4 np nq / B for the sums of blocks (d = k + 1: an intercept, the usual case) */
        const double d = k + 1, np = d * (d + 1) / 2, nq = np + 3, kd = k, nw = (double)(e - r);
        double rows = 0;
        for (size_t i = r; i < e; i++)
            rows += (double)(end[i] - start[i]);
        const double rowwise = rows * kd * kd,
                     blocks = (double)(end[e - 1] - start[r]) * np * nq +
                              nw * ((d - 1) * d * nq + (d - 1) * (d - 1) + B * kd * kd + 4 * np * nq / B);
        if (e - r >= 2 && (force || blocks < rowwise)) {
            pc[npc].r0 = r;
            pc[npc].r1 = e;
            npc++;
            total += e - r;
        }
        r = e;
    }
    /* cut the runs into pieces of at most max(256, 2 W) windows (W the run's longest: a piece's rows are summed
     * at most 1.5 times per window) and memory-bounded spans (a window whose blocks alone exceed the bound is
     * left to the row-wise path). The pieces, and so the results, depend on the ranges only, not on the
     * threads that share the pieces out. */
    mb_piece_t *pieces = malloc((total ? total : 1) * sizeof *pieces);
    if (!pieces) {
        free(pc);
        return 0;
    }
    size_t cnt = 0;
    for (size_t i = 0; i < npc; i++) {
        size_t most = 256;
        for (size_t r = pc[i].r0; r < pc[i].r1; r++)
            if (2 * (size_t)(end[r] - start[r]) > most)
                most = 2 * (size_t)(end[r] - start[r]);
        for (size_t s = pc[i].r0, e; s < pc[i].r1; s = e) {
            e = s + 1;
            while (e < pc[i].r1 && e - s < most &&
                   (double)(end[e] - start[s]) * blk_bytes_per_row <= (double)MB_PIECE_BYTES)
                e++;
            if ((double)(end[e - 1] - start[s]) * blk_bytes_per_row <= (double)MB_PIECE_BYTES) {
                pieces[cnt].r0 = s;
                pieces[cnt].r1 = e;
                cnt++;
            }
        }
    }
    free(pc);
    const long long np_ = (long long)cnt;
#pragma omp parallel
    {
        mb_work w;
        memset(&w, 0, sizeof w);
#pragma omp for schedule(dynamic, 1)
        for (long long i = 0; i < np_; i++)
            mb_piece(X, y, k, start, end, beta, centre, L, pieces[i].r0, pieces[i].r1, out, done, &w);
        free(w.R), free(w.Z), free(w.I), free(w.U), free(w.E), free(w.P), free(w.Tint), free(w.Tall);
    }
    free(pieces);
    size_t ndone = 0;
    for (size_t r = 0; r < n; r++)
        ndone += done[r];
    return ndone;
}
