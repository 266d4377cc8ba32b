/*
 * The cpu path's Gram matrix (raidCovGramCpu, cov_internal.h): G_ab = sum_t A_a,t A_b,t of P series of L
 * float64 values, every entry an Ogita-Rump-Oishi Dot2 (SIAM J. Sci. Comput. 26(6), 2005, Algorithm 5.3):
 * each product split exactly into p + e by TwoProduct (p = x y rounded, e = fma(x, y, -p)), p added into s by
 * TwoSum (Knuth), the two errors into c; the entry is s + c, within 2^-53 of itself plus about L^2 2^-106 of
 * sum_t |A_a,t A_b,t| of the exact sum.
 *
 * The order of the terms is fixed: t = 0, 1, ..., L-1 into one accumulator per entry, whatever the tiling,
 * the thread count or the instruction set (fma is exact wherever it runs), so the result is the same bits on
 * every run and every number of threads. The speed is in evaluating many entries at once: the series
 * transposed (row t of all series contiguous), a tile of TI x TJ entries whose accumulators stay in
 * registers while t runs (the TJ columns of a row one vector), the columns in blocks whose rows fit the L2
 * cache, OpenMP over the row tiles of a block.
 */
#include "cov/cov_internal.h"

#include <math.h>
#include <stdlib.h>

enum { TI = 4, TJ = 8 };

/* One tile: rows a0 .. a0+TI-1 against columns b0 .. b0+TJ-1 of UT (L x Pp, the series transposed) into
 * G (P x P), the entries a <= b < P only. On x86-64 it is also compiled for x86-64-v3 (AVX2, FMA) and v4
 * (AVX-512) and chosen at run time: the same operations in the same order (fma exact everywhere), so the same
 * bits on wider vectors. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#endif
static void tile(const double *UT, size_t Pp, int64_t L, size_t a0, size_t b0, size_t P, double *G)
{
    double s[TI][TJ], c[TI][TJ];
    for (int i = 0; i < TI; i++)
        for (int j = 0; j < TJ; j++)
            s[i][j] = c[i][j] = 0.0;
    for (int64_t t = 0; t < L; t++) {
        const double *x = UT + (size_t)t * Pp + a0, *y = UT + (size_t)t * Pp + b0;
        /* unrolled, so that the accumulators stay in registers (rolled: 15% slower, through the stack) */
#pragma GCC unroll 8
        for (int i = 0; i < TI; i++) {
            const double xi = x[i];
#pragma omp simd
            for (int j = 0; j < TJ; j++) {
                const double p = xi * y[j], e = fma(xi, y[j], -p);
                const double u = s[i][j] + p, bb = u - s[i][j];
                c[i][j] += ((s[i][j] - (u - bb)) + (p - bb)) + e;
                s[i][j] = u;
            }
        }
    }
    for (int i = 0; i < TI; i++)
        for (int j = 0; j < TJ; j++) {
            const size_t a = a0 + (size_t)i, b = b0 + (size_t)j;
            if (a <= b && b < P)
                G[a * P + b] = s[i][j] + c[i][j];
        }
}

raid_status raidCovGramCpu(const double *A, size_t P, int64_t L, double *G)
{
    if (P == 0)
        return RAID_OK;
    const size_t Pp = (P + TJ - 1) / TJ * TJ, n = (size_t)(L > 0 ? L : 1);
    double *UT = malloc(n * Pp * sizeof *UT);
    if (!UT)
        return RAID_ENOMEM;
    for (size_t t = 0; t < (size_t)L; t++) {
        for (size_t a = 0; a < P; a++)
            UT[t * Pp + a] = A[a * (size_t)L + t];
        for (size_t a = P; a < Pp; a++)
            UT[t * Pp + a] = 0.0;
    }
    /* columns in blocks of about 512 KiB of UT (the rows a tile pass reads again for every row tile) */
    size_t JB = (size_t)65536 / n / TJ * TJ;
    JB = JB < TJ ? TJ : JB;
    for (size_t j0 = 0; j0 < Pp; j0 += JB) {
        const size_t j1 = j0 + JB < Pp ? j0 + JB : Pp;
        const size_t nrt = ((j1 < P ? j1 : P) + TI - 1) / TI; /* the row tiles with an entry a <= b < j1 */
#pragma omp parallel for schedule(dynamic, 1)
        for (long long r = 0; r < (long long)nrt; r++) {
            const size_t a0 = (size_t)r * TI, first = a0 / TJ * TJ;
            for (size_t b0 = first > j0 ? first : j0; b0 < j1; b0 += TJ)
                tile(UT, Pp, L, a0, b0, P, G);
        }
    }
    free(UT);
    return RAID_OK;
}
