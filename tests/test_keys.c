/* Tests of the float64 order keys (kernels/raid_keys.h, src/column/keys.h; docs/column.md): on random
 * doubles across the whole exponent range plus 0.0, -0.0, +-inf, NaN of several payloads and signs, the
 * smallest and largest subnormals, +-1 and +-DBL_MAX, the keys' unsigned order is numpy's sort order
 * (x < y as doubles, -0.0 == 0.0, every NaN equal and last), the inverse gives back every non-NaN value
 * (-0.0 as +0.0) and the canonical NaN, and the radix digits reassemble the key. */
#include "support.h"
#include "column/keys.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* numpy's order: -1, 0, 1 (NaN after everything, NaNs equal; -0.0 == 0.0). */
static int order(double a, double b)
{
    if (isnan(a) || isnan(b))
        return isnan(a) && isnan(b) ? 0 : isnan(a) ? 1 : -1;
    return a < b ? -1 : a > b ? 1 : 0;
}

static void test_order(void **state)
{
    (void)state;
    enum { N = 4000 };
    double *x = malloc(N * sizeof *x);
    const double special[] = {0.0, -0.0, INFINITY, -INFINITY, NAN, -NAN, t_from_bits(0x7FF0000000000001ULL),
                              t_from_bits(0xFFF00000DEADBEEFULL), t_from_bits(0x7FFFFFFFFFFFFFFFULL), 4.9e-324, -4.9e-324,
                              DBL_MIN, -DBL_MIN, t_from_bits(0x000FFFFFFFFFFFFFULL), -t_from_bits(0x000FFFFFFFFFFFFFULL),
                              1.0, -1.0, DBL_MAX, -DBL_MAX, nextafter(1.0, 2.0), nextafter(1.0, 0.0)};
    const size_t ns = sizeof special / sizeof *special;
    uint64_t s = 7;
    for (size_t i = 0; i < N; i++) {
        if (i < ns) {
            x[i] = special[i];
            continue;
        }
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        const uint64_t b = s ^ (s >> 29);
        x[i] = t_from_bits(i % 3 ? b : (b & 0x800FFFFFFFFFFFFFULL) | ((uint64_t)(1023 + (int)(i % 40) - 20) << 52));
    }
    for (size_t i = 0; i < N; i++) {
        const uint64_t ki = raidKey64(x[i]);
        for (size_t j = 0; j < N; j += 1 + (i % 5)) {
            const uint64_t kj = raidKey64(x[j]);
            const int want = order(x[i], x[j]), got = ki < kj ? -1 : ki > kj ? 1 : 0;
            if (want != got) {
                fprintf(stderr, "%a vs %a: order %d, keys %d\n", x[i], x[j], want, got);
                fail();
            }
        }
        const double back = raidKey64Value(ki);
        if (isnan(x[i])) {
            assert_int_equal(ki, UINT64_MAX);
            uint64_t b;
            memcpy(&b, &back, sizeof b);
            assert_int_equal(b, 0x7FF8000000000000ULL);
        } else {
            assert_true(back == x[i] && (x[i] != 0.0 || !signbit(back)));
        }
        /* digits of 8, 11 and 16 bits reassemble the key (straddling the two words) */
        const RaidKey k = {(uint32_t)(ki >> 32), (uint32_t)ki};
        const int widths[3] = {8, 11, 16};
        for (int w = 0; w < 3; w++) {
            uint64_t re = 0;
            for (int shift = 0; shift < 64; shift += widths[w])
                re |= (uint64_t)raidKeyDigit(k, shift, shift + widths[w] > 64 ? 64 - shift : widths[w]) << shift;
            assert_int_equal(re, ki);
        }
    }
    assert_true(raidKey64(-0.0) == raidKey64(0.0) && raidKey64(INFINITY) < raidKey64(NAN) &&
                raidKey64(-INFINITY) < raidKey64(-DBL_MAX) && raidKey64(-4.9e-324) < raidKey64(-0.0));
    free(x);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_order)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
