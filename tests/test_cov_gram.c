/* The cpu path's Gram matrix (raidCovGramCpu, src/cov/cov_gram.c): every entry the bits of one Dot2 over
 * t = 0 .. L-1 in order (the documented order) whatever P (not a multiple of the tile), L (0, across the
 * column blocks) and the thread count; and within 2^-52 of the exact entry plus L^2 2^-104 of its absolute sum
 * on entries whose terms cancel a billion-fold (exact sums in 128-bit integers), which a compensated sum of
 * rounded products (about 2^-53 of the absolute sum) misses. */
#define _POSIX_C_SOURCE 200809L
#include "support.h"
#include "raid.h"
#include "cov/cov_internal.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

/* Dot2 of x and y (stride 1), the order of the documentation: the reference of the bits. */
static double dot2(const double *x, const double *y, int64_t L)
{
    double s = 0.0, c = 0.0;
    for (int64_t t = 0; t < L; t++) {
        const double p = x[t] * y[t], e = fma(x[t], y[t], -p);
        const double u = s + p, bb = u - s;
        c += ((s - (u - bb)) + (p - bb)) + e;
        s = u;
    }
    return s + c;
}

static void test_bits(void **state)
{
    (void)state;
    static const size_t Ps[] = {1, 3, 4, 8, 13, 37};
    static const int64_t Ls[] = {0, 1, 7, 78, 1000, 9000};
    uint64_t st = 11;
    for (size_t i = 0; i < sizeof Ps / sizeof *Ps; i++)
        for (size_t j = 0; j < sizeof Ls / sizeof *Ls; j++) {
            const size_t P = Ps[i];
            const int64_t L = Ls[j];
            double *A = malloc((P * (size_t)L + 1) * sizeof *A), *G1 = malloc(P * P * sizeof *G1),
                   *G2 = malloc(P * P * sizeof *G2);
            assert_non_null(A);
            assert_non_null(G1);
            assert_non_null(G2);
            for (size_t k = 0; k < P * (size_t)L; k++)
                A[k] = (t_unif(&st) - 0.5) * ldexp(1.0, (int)(t_unif(&st) * 40.0) - 30);
            for (size_t k = 0; k < P * P; k++)
                G1[k] = G2[k] = NAN;
            const int nt = omp_get_max_threads();
            omp_set_num_threads(1);
            assert_int_equal(raidCovGramCpu(A, P, L, G1), RAID_OK);
            omp_set_num_threads(2);
            assert_int_equal(raidCovGramCpu(A, P, L, G2), RAID_OK);
            omp_set_num_threads(nt);
            for (size_t a = 0; a < P; a++)
                for (size_t b = 0; b < P; b++) {
                    if (b < a) { /* not written */
                        assert_true(isnan(G1[a * P + b]) && isnan(G2[a * P + b]));
                        continue;
                    }
                    const double r = dot2(A + a * (size_t)L, A + b * (size_t)L, L);
                    assert_memory_equal(&G1[a * P + b], &r, sizeof r);
                    assert_memory_equal(&G2[a * P + b], &r, sizeof r);
                }
            free(A);
            free(G1);
            free(G2);
        }
}

/* Series of 40-bit integers times 2^-40 (products of 80 bits: rounded in float64, exact in __int128): row 0
 * random, row 1 = row 0 but in pairs whose products cancel, so that G_01 is about 1e-9 of its absolute sum. */
static void test_cancelling(void **state)
{
    (void)state;
    enum { P = 3, L = 2000 };
    static double A[P * L];
    int64_t K[P * L];
    uint64_t st = 5;
    for (int t = 0; t < L; t++) {
        K[t] = (int64_t)(t_unif(&st) * 0x1p40) - ((int64_t)1 << 39);
        K[2 * L + t] = (int64_t)(t_unif(&st) * 0x1p40) - ((int64_t)1 << 39);
    }
    for (int t = 0; t < L; t += 2) { /* K0[t] K1[t] + K0[t+1] K1[t+1] small: K1[t] = K0[t+1], K1[t+1] ~ -K0[t] */
        K[L + t] = K[t + 1];
        K[L + t + 1] = -K[t] + (int64_t)(t_unif(&st) * 2000.0) - 1000;
    }
    for (int k = 0; k < P * L; k++)
        A[k] = ldexp((double)K[k], -40);
    double G[P * P];
    assert_int_equal(raidCovGramCpu(A, P, L, G), RAID_OK);
    for (int a = 0; a < P; a++)
        for (int b = a; b < P; b++) {
            __int128 S = 0, Aabs = 0;
            for (int t = 0; t < L; t++) {
                const __int128 q = (__int128)K[a * L + t] * K[b * L + t];
                S += q;
                Aabs += q < 0 ? -q : q;
            }
            const double exact = ldexp((double)S, -80), abs_sum = ldexp((double)Aabs, -80);
            const double tol = 0x1p-52 * fabs(exact) + (double)L * (double)L * 0x1p-104 * abs_sum;
            if (a == 0 && b == 1)
                assert_true(fabs(exact) < 1e-8 * abs_sum); /* the case cancels */
            assert_true(fabs(G[a * P + b] - exact) <= tol);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_bits), cmocka_unit_test(test_cancelling)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
