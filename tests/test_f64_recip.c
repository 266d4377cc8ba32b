/*
 * The estimates inside kernels/raid_f64.h's division and square root, against exact integer arithmetic
 * (the host's 128-bit integers).
 *
 * The 32-bit stages depend on a 31-bit word alone, so they are run on every one of their inputs:
 * raidF64Recip31 on all 2^30 v in [2^30, 2^31), raidF64Rsqrt31 on all 1.5 2^30 v in [2^29, 2^31) (about 5
 * and 15 s of an idle core of the 2-core development machine, 30 s together when it is shared; built with
 * -O2 in every configuration, tests/CMakeLists.txt). Each result must lie below the value for the whole
 * interval its word stands for (x (2v + 2) <= 2^63, (2v + 2) y^2 <= 2^94), and the largest shortfall must be
 * the one the header's comments quote and its proofs use: 2^63 - 2v x = 12,058,526,740 (e < 2^-29.51) and
 * 2^94 - 2v y^2 = 50,752,271,360,970,936,828 (e < 2^-28.54). A change of either function that moves the
 * maximum fails here, so the header's bounds are never left stale.
 *
 * The 64-bit steps' bounds are proven in the header; raidF64DivEstimate and raidF64SqrtEstimate are checked
 * against them on boundary and random significands: the quotient and root estimates are the exact floor or
 * one less, never anything else (the one correction of raidF64Div and raidF64Sqrt is then enough), and the
 * wrapped 64-bit remainders are the exact ones. RAID_F64_CASES sets the random cases (default 3 10^5 of
 * each kind).
 */
#include "support.h"
#include "raid_f64.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

typedef unsigned __int128 u128;

/* The largest shortfalls the exhaustive runs find (raid_f64.h quotes them). */
#define RECIP31_MAX_SHORT 12058526740ull
#define RSQRT31_MAX_SHORT (((u128)2 << 64) | 13858783213551833596ull) /* 50,752,271,360,970,936,828 */

static void test_recip31_exhaustive(void **state)
{
    (void)state;
    uint64_t worst = 0, worst_v = 0, over = 0;
    for (uint64_t v = 1ull << 30; v < 1ull << 31; v++) {
        const uint64_t x = raidF64Recip31((RaidU32)v), d = 2 * v;
        if (x * d + 2 * x > 1ull << 63 && over++ < 4) /* x d + 2x < 2^64 for x, d < 2^32 */
            print_error("recip31(%#llx) = %#llx is above 2^62 / (v + 1)\n", (unsigned long long)v, (unsigned long long)x);
        const uint64_t shortfall = (1ull << 63) - x * d;
        if (shortfall > worst)
            worst = shortfall, worst_v = v;
    }
    print_message("recip31: the largest 2^63 - 2v x is %llu (2^%.3f relative) at v = %#llx\n", (unsigned long long)worst,
                  log2((double)worst) - 63, (unsigned long long)worst_v);
    assert_int_equal(over, 0);
    assert_true(worst == RECIP31_MAX_SHORT);
}

static void test_rsqrt31_exhaustive(void **state)
{
    (void)state;
    u128 worst = 0;
    uint64_t worst_v = 0, over = 0;
    const u128 top = (u128)1 << 94;
    for (uint64_t v = 1ull << 29; v < 1ull << 31; v++) {
        const uint64_t y = raidF64Rsqrt31((RaidU32)v), y2 = y * y, w = 2 * v;
        if ((u128)y2 * (w + 2) > top && over++ < 4)
            print_error("rsqrt31(%#llx) = %#llx is above 2^31 / sqrt((v + 1) 2^-31)\n", (unsigned long long)v,
                        (unsigned long long)y);
        const u128 shortfall = top - (u128)y2 * w;
        if (shortfall > worst)
            worst = shortfall, worst_v = v;
    }
    print_message("rsqrt31: the largest 2^94 - 2v y^2 is 2^%.4f (2^%.3f relative) at v = %#llx\n", log2((double)worst),
                  log2((double)worst) - 94, (unsigned long long)worst_v);
    assert_int_equal(over, 0);
    assert_true(worst == RSQRT31_MAX_SHORT);
}

static long long n_cases(void)
{
    const char *env = getenv("RAID_F64_CASES");
    return env ? atoll(env) : 300000;
}

/* q - q_est for one pair (A in [B, 2B), B in [2^52, 2^53)), and the wrapped remainder checked exact. */
static uint64_t dshort[3], dbad;
static void check_div(uint64_t A, uint64_t B)
{
    const uint64_t q = (uint64_t)(((u128)A << 54) / B), qe = raidF64DivEstimate(A, B);
    const uint64_t r = (A << 54) - qe * B; /* as raidF64Div forms it */
    const int ok = qe <= q && q - qe <= 1 && (u128)r == ((u128)A << 54) - (u128)qe * B;
    if (!ok) {
        if (dbad++ < 8)
            print_error("div estimate of A = %#llx, B = %#llx: %#llx, exact %#llx\n", (unsigned long long)A,
                        (unsigned long long)B, (unsigned long long)qe, (unsigned long long)q);
        return;
    }
    dshort[q - qe]++;
}

/* Significands B at the edges: the ends of the range and of Recip31's intervals (B >> 22 = v: its first and
 * last B, where 1/B is farthest from the interval's end), the interval of the largest shortfall; A at B, B + 1,
 * 2B - 1, 2B - 2 and random. */
static void test_div_estimate(void **state)
{
    (void)state;
    uint64_t s = 20261208;
    dbad = dshort[0] = dshort[1] = 0;
    const uint64_t lo = 1ull << 52, hi = (1ull << 53) - 1;
    uint64_t edge[64];
    int ne = 0;
    const uint64_t vs[] = {1ull << 30, (1ull << 30) + 1, 0x40003232ull /* the largest shortfall */, 0x5A827999ull,
                           (1ull << 31) - 2, (1ull << 31) - 1};
    for (size_t i = 0; i < sizeof vs / sizeof *vs; i++) {
        edge[ne++] = vs[i] << 22;
        edge[ne++] = (vs[i] << 22) | ((1ull << 22) - 1);
        edge[ne++] = (vs[i] << 22) | (t_splitmix64(&s) & ((1ull << 22) - 1));
    }
    edge[ne++] = lo + 1, edge[ne++] = hi - 1, edge[ne++] = 3ull << 51, edge[ne++] = (3ull << 51) - 1;
    for (int i = 0; i < ne; i++) {
        const uint64_t B = edge[i];
        const uint64_t as[] = {B, B + 1, 2 * B - 1, 2 * B - 2, B + (B >> 1), B + t_splitmix64(&s) % B};
        for (size_t j = 0; j < sizeof as / sizeof *as; j++)
            check_div(as[j], B);
        for (int k = 0; k < 2000; k++)
            check_div(B + t_splitmix64(&s) % B, B);
    }
    const long long cases = n_cases();
    for (long long i = 0; i < cases; i++) {
        const uint64_t B = lo | (t_splitmix64(&s) >> 12), A = B + t_splitmix64(&s) % B;
        check_div(A, B);
        /* the worst interval, any B in it */
        const uint64_t Bw = (0x40003232ull << 22) | (t_splitmix64(&s) & ((1ull << 22) - 1));
        check_div(Bw + t_splitmix64(&s) % Bw, Bw);
        /* exact quotients: A = B c / 2^k with a short c, so that the remainder is zero */
        const uint64_t c = (1ull << 20) | (t_splitmix64(&s) >> 44), Bs = lo | ((t_splitmix64(&s) >> 32) << 20);
        check_div((uint64_t)(((u128)Bs * c) >> 20), Bs); /* B c 2^-20 in [B, 2B), exact: the quotient is c 2^34 */
    }
    print_message("div estimate: %llu exact, %llu one below (of %llu)\n", (unsigned long long)dshort[0],
                  (unsigned long long)dshort[1], (unsigned long long)(dshort[0] + dshort[1] + dbad));
    assert_int_equal(dbad, 0);
}

/* floor(sqrt(S)) for S < 2^110, from the double root corrected in 128-bit integers. */
static uint64_t isqrt128(u128 S)
{
    uint64_t r = (uint64_t)sqrtl((long double)S);
    while ((u128)r * r > S)
        r--;
    while ((u128)(r + 1) * (r + 1) <= S)
        r++;
    return r;
}

static uint64_t sshort[2], sbad;
static void check_sqrt(uint64_t sv)
{
    const u128 S = (u128)sv << 56;
    const uint64_t root = isqrt128(S), re = raidF64SqrtEstimate(sv);
    const uint64_t rem = (sv << 56) - re * re; /* as raidF64Sqrt forms it */
    const int ok = re <= root && root - re <= 1 && (u128)rem == S - (u128)re * re;
    if (!ok) {
        if (sbad++ < 8)
            print_error("sqrt estimate of s = %#llx: %#llx, exact %#llx\n", (unsigned long long)sv,
                        (unsigned long long)re, (unsigned long long)root);
        return;
    }
    sshort[root - re]++;
}

/* s at the edges: the ends of the range, of each binade and of Rsqrt31's intervals (s >> 23 = v), the
 * interval of the largest shortfall, perfect squares m^2 2^k (a zero remainder) and their neighbours. */
static void test_sqrt_estimate(void **state)
{
    (void)state;
    uint64_t s = 20261209;
    sbad = sshort[0] = sshort[1] = 0;
    const uint64_t vs[] = {1ull << 29, (1ull << 29) + 1, 0x2000c702ull /* the largest shortfall */, (1ull << 30) - 1,
                           1ull << 30, (1ull << 30) + 1, 0x5A827999ull, (1ull << 31) - 1};
    for (size_t i = 0; i < sizeof vs / sizeof *vs; i++) {
        check_sqrt(vs[i] << 23);
        check_sqrt((vs[i] << 23) | ((1ull << 23) - 1));
        for (int k = 0; k < 2000; k++)
            check_sqrt((vs[i] << 23) | (t_splitmix64(&s) & ((1ull << 23) - 1)));
    }
    const uint64_t fixed[] = {1ull << 52, (1ull << 52) + 1, (1ull << 53) - 1, 1ull << 53, (1ull << 53) + 1,
                              (1ull << 54) - 1, (1ull << 54) - 2};
    for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++)
        check_sqrt(fixed[i]);
    const long long cases = n_cases();
    for (long long i = 0; i < cases; i++) {
        check_sqrt((1ull << 52) + t_splitmix64(&s) % (3ull << 52));
        check_sqrt((0x2000c702ull << 23) | (t_splitmix64(&s) & ((1ull << 23) - 1)));
        /* m^2 for m in [2^26, 2^27): s 2^56 = (m 2^28)^2, and its neighbours */
        const uint64_t m = (1ull << 26) | (t_splitmix64(&s) >> 38), sq = m * m;
        check_sqrt(sq), check_sqrt(sq + 1), check_sqrt(sq + m), check_sqrt(sq + 2 * m); /* (m + 1)^2 - 1 at most */
        if (sq > 1ull << 52)
            check_sqrt(sq - 1);
    }
    print_message("sqrt estimate: %llu exact, %llu one below (of %llu)\n", (unsigned long long)sshort[0],
                  (unsigned long long)sshort[1], (unsigned long long)(sshort[0] + sshort[1] + sbad));
    assert_int_equal(sbad, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_div_estimate),
        cmocka_unit_test(test_sqrt_estimate),
        cmocka_unit_test(test_recip31_exhaustive),
        cmocka_unit_test(test_rsqrt31_exhaustive),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
