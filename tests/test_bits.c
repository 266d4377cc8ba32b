/* Tests of the float64-bits conversions of kernels/raid_df.h (raidBitsToDf, raidBitsToDfNear,
 * raidRoundMagToF32), the device's only way to read a float64 (the device receives the bits
 * and splits them with integer operations). The same source runs on the host here and in every kernel, so
 * these tests check the kernels' conversion: for doubles of every binade (float64 subnormals included),
 * signed zeros, values whose scaled forms are binary32 subnormals, ties at every rounding position and
 * powers of two reached by a carry, and scale exponents across [-250, 250], raidBitsToDf(d, e) is bit
 * for bit the host's raidDfSplit(ldexp(d, -e)) (hi: the f32 policy's (float)(d 2^-e)), and
 * raidBitsToDfNear gives the same bits wherever its condition holds. */
#include "support.h"
#include "raid_df.h"
#include "device/device.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

static uint32_t fbits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static long near_checked; /* how many checks met raidBitsToDfNear's condition */

/* 0 when the device conversion of d at scale e equals the host's bit for bit (and raidBitsToDfNear equals
 * raidBitsToDf where it applies); prints the first failures. */
static int check_one(double d, int e)
{
    const uint64_t b = t_bits_of(d);
    const RaidDf got = raidBitsToDf((RaidU32)(b >> 32), (RaidU32)b, e);
    /* the realized kernel's near case: the magnitude's bits in [max(1, e + 950), e + 1022] give the same */
    const RaidU32 bh = (RaidU32)(b >> 32) & 0x7FFFFFFFu;
    const int ex = (int)(bh >> 20);
    if (ex >= 1 && ex >= e + 950 && ex <= e + 1022) {
        const RaidDf mag = raidBitsToDf(bh, (RaidU32)b, e);
        const RaidDf near = raidBitsToDfNear(bh, (RaidU32)b, (RaidU32)(e + 896) << 20);
        if (fbits(near.hi) != fbits(mag.hi) || fbits(near.lo) != fbits(mag.lo)) {
            print_message("d=%a e=%d: raidBitsToDfNear (%a, %a), raidBitsToDf (%a, %a)\n", d, e, (double)near.hi,
                          (double)near.lo, (double)mag.hi, (double)mag.lo);
            return 1;
        }
        near_checked++;
    }
    float hi, lo;
    raidDfSplit(ldexp(d, -e), &hi, &lo);
    if (fbits(got.hi) == fbits(hi) && fbits(got.lo) == fbits(lo))
        return 0;
    /* Below float64's normal range the host's ldexp rounds first (the documented exception): both give
     * zeros, whose lo may differ in sign. */
    if (fabs(ldexp(d, -e)) < 0x1p-1022 && fbits(got.hi) == fbits(hi) && got.lo == 0.0f && lo == 0.0f)
        return 0;
    static int shown;
    if (shown++ < 10)
        print_message("d=%a e=%d: got (%a, %a) want (%a, %a)\n", d, e, (double)got.hi, (double)got.lo, (double)hi,
                      (double)lo);
    return 1;
}

/* A scale exponent that keeps d 2^-e at most 2^100 (the conversion's range; the kernels scale to [0.5, 1)). */
static int scale_for(double d, uint64_t *st)
{
    int ed;
    frexp(d, &ed);
    int e = (int)(t_splitmix64(st) % 501) - 250;
    return ed - e > 100 ? ed - 100 : e;
}

static void test_random_bits(void **state)
{
    (void)state;
    uint64_t st = 12345;
    int bad = 0;
    for (int i = 0; i < 3000000; i++) {
        const uint64_t b = t_splitmix64(&st); /* every exponent, subnormals, every sign */
        double d = t_from_bits(b);
        if (!isfinite(d))
            continue;
        bad += check_one(d, scale_for(d, &st));
    }
    assert_int_equal(bad, 0);
}

static void test_kernel_range(void **state)
{
    /* The realized kernel's own range: |d 2^-e| in [2^-160, 1), including binary32 subnormal results. */
    (void)state;
    uint64_t st = 7;
    int bad = 0;
    for (int i = 0; i < 2000000; i++) {
        const int ex = -(int)(t_splitmix64(&st) % 161);
        const double m = 1.0 + t_unif(&st);
        const double d = ldexp(m, ex - 1) * (t_splitmix64(&st) & 1 ? -1 : 1);
        const int e = (int)(t_splitmix64(&st) % 401) - 200;
        bad += check_one(ldexp(d, e), e);
    }
    assert_int_equal(bad, 0);
    assert_true(near_checked > 500000); /* the near case: 73 of the 160 binades here */
}

static void test_edges(void **state)
{
    (void)state;
    int bad = 0;
    const double special[] = {0.0, -0.0, 1.0, -1.0, 0x1p-1074, -0x1p-1074, 0x1p-1022, 0x0.fffffffffffffp-1022,
                              0x1.fffffffffffffp+1023, 0x1.000001p0, 0x1.0000010000001p0, 0x1.0000030000000p0,
                              0x1.ffffffp0, 0x1.fffffefffffffp0, 0x1.fffffe8p0, 0x1.fffffe0000001p0, 0x1p-126,
                              0x1p-149, 0x1p-150, 0x1.0000000000001p-150, 0x1.8p-150, 0x1p-151, 0x1.fffffep-127,
                              0x1.ffffffp-127, 0x1.000001p-130, 0x1.0000018p-140, 0.1, -0.1, 1e-40, 1e-45, 3.5e-46};
    for (size_t i = 0; i < sizeof special / sizeof *special; i++)
        for (int e = -250; e <= 250; e++) {
            const double d = special[i];
            int ed;
            frexp(d, &ed);
            if (d != 0 && ed - e > 100)
                continue;
            bad += check_one(d, e) + check_one(-d, e) + check_one(ldexp(d, e), e) + check_one(-ldexp(d, e), e);
        }
    /* ties at every position of the low part: 1 + 2^-24 (+- small), with every sign */
    for (int k = 1; k <= 52; k++)
        for (int e = -150; e <= 150; e += 3) {
            const double d = ldexp(1.0 + ldexp(1.0, -k) + ldexp(1.0, -52), e);
            bad += check_one(d, e) + check_one(-d, e) + check_one(ldexp(1.0 + ldexp(1.0, -k), e), e);
        }
    assert_int_equal(bad, 0);
}

/* The regression kernel's exact centring (kernels/regress.cl): raidBitsToFixed(d, eu) is the host's
 * trunc(ldexp(d, 1083 - eu)) (the rule src/regress/stats.c uses to know the centres), for every binade up
 * to the unit's and far below it (truncated), subnormals and signed zeros; and raidFixedToDf(D, 2^x) is
 * the host's raidDfSplit of D 2^x, each part rounded once from the exact integer (a long double oracle:
 * 64 bits of mantissa hold D exactly). */
static void test_fixed(void **state)
{
    (void)state;
    uint64_t st = 99;
    int bad = 0;
    for (int i = 0; i < 2000000; i++) {
        const uint64_t b = t_splitmix64(&st) & ~(0x7FFull << 52);
        int ex = (int)(t_splitmix64(&st) % 2047); /* biased, 0: subnormal */
        if (i % 7 == 0)
            ex = (int)(t_splitmix64(&st) % 4);
        const double d = t_from_bits(b | ((uint64_t)ex << 52));
        const int eu = (ex ? ex : 1) + (int)(t_splitmix64(&st) % (i % 3 ? 12 : 80));
        if (eu > 2046)
            continue;
        const RaidI64 got = raidBitsToFixed((RaidU32)(t_bits_of(d) >> 32), (RaidU32)t_bits_of(d), eu);
        const double want = trunc(ldexp(d, 1083 - eu));
        if ((double)got != want || (got == 0 && want != 0)) {
            if (bad++ < 10)
                print_message("fixed: d=%a eu=%d: got %lld want %.17g\n", d, eu, (long long)got, want);
        }
        /* D 2^x split: D of up to 63 bits, x so that D 2^x is a normal float (as the kernel's 2^-L) */
        const int len = 1 + (int)(t_splitmix64(&st) % 62);
        RaidI64 D = (RaidI64)(t_splitmix64(&st) >> (64 - len));
        if (i & 1)
            D = -D;
        const int x = -(int)(t_splitmix64(&st) % 64);
        const float sc = ldexpf(1.0f, x);
        const RaidDf f = raidFixedToDf(D, sc);
        const long double exact = ldexpl((long double)D, x);
        const float hi = (float)exact, lo = (float)(exact - (long double)hi);
        if (fbits(f.hi) != fbits(hi) || fbits(f.lo) != fbits(lo)) {
            if (bad++ < 10)
                print_message("fixed_to_df: D=%lld x=%d: got (%a, %a) want (%a, %a)\n", (long long)D, x, (double)f.hi,
                              (double)f.lo, (double)hi, (double)lo);
        }
    }
    /* signed zeros, the largest in-range magnitude (1e150), ties */
    const double special[] = {0.0, -0.0, 1e150, -1e150, 0x1p-1074, 0x1.0000010000000p0, 0x1.0000030000000p0, -0x1.8p-1030};
    for (size_t i = 0; i < sizeof special / sizeof *special; i++) {
        int e;
        frexp(special[i], &e);
        for (int eu = (e + 1022 > 1 ? e + 1022 : 1); eu < (e + 1022 > 1 ? e + 1022 : 1) + 70 && eu <= 2046; eu++) {
            const RaidI64 got = raidBitsToFixed((RaidU32)(t_bits_of(special[i]) >> 32), (RaidU32)t_bits_of(special[i]), eu);
            bad += (double)got != trunc(ldexp(special[i], 1083 - eu));
        }
    }
    assert_int_equal(bad, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_edges),
        cmocka_unit_test(test_kernel_range),
        cmocka_unit_test(test_random_bits),
        cmocka_unit_test(test_fixed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
