/* The text of a float64 in RAID's CSV outputs (src/core/f64text.c raidF64Text): the shortest decimal that
 * reads back as the same double (the digits of Python's repr), laid out as "%.17g" lays out numbers, and
 * the special values; cases checked by hand against Python's repr, then 200,000 random doubles (normal,
 * subnormal, prices, integers), each read back with strtod and compared with every shorter "%.*e". */
#include "support.h"

#include "core/outfile.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void t_cases(void **state)
{
    (void)state;
    static const struct {
        double v;
        const char *text;
    } c[] = {
        {0.1, "0.1"},                          /* %.17g: 0.10000000000000001 */
        {0.3, "0.3"},
        {0.30000000000000004, "0.30000000000000004"},
        {1.0 / 3.0, "0.3333333333333333"},     /* 16 digits */
        {2.5, "2.5"},
        {100.0, "100"},
        {-1.5, "-1.5"},
        {0.0, "0"},
        {-0.0, "-0"},
        {5e-324, "5e-324"},                    /* the smallest subnormal: 1 digit, not 4.94065645841247e-324 */
        {2.225073858507201e-308, "2.225073858507201e-308"}, /* the largest subnormal */
        {2.2250738585072014e-308, "2.2250738585072014e-308"},
        {1.7976931348623157e308, "1.7976931348623157e+308"},
        {-1.7976931348623157e308, "-1.7976931348623157e+308"},
        {1e16, "10000000000000000"},           /* fixed up to exponent 16, as %.17g */
        {1e17, "1e+17"},
        {123456789012345678.0, "1.2345678901234568e+17"},
        {9007199254740992.0, "9007199254740992"},
        {1e22, "1e+22"},
        {1e23, "1e+23"},                       /* %.17g: 9.9999999999999992e+22 */
        {0.0001, "0.0001"},
        {0.00001, "1e-05"},
        {1.5e-7, "1.5e-07"},
        {6.386688990511104e293, "6.386688990511104e+293"}, /* 2^975: the 16-digit neighbour above, not %.16g's */
        {158.5, "158.5"},
        {INFINITY, "inf"},
        {-INFINITY, "-inf"},
    };
    char t[RAID_F64_TEXT];
    for (size_t i = 0; i < sizeof c / sizeof *c; i++)
        if (strcmp(raidF64Text(t, c[i].v), c[i].text) != 0)
            fail_msg("%a: '%s', expected '%s'", c[i].v, t, c[i].text);
    assert_string_equal(raidF64Text(t, t_from_bits(0x7FF8000000000000ull)), "nan");
    assert_string_equal(raidF64Text(t, t_from_bits(0xFFF8000000000000ull)), "-nan");
    assert_string_equal(raidF64Text(t, t_from_bits(0x7FF0000000000001ull)), "nan"); /* payloads are not written */
}

/* The number of significant digits of a text (no sign, point, exponent, leading or trailing zeros). */
static int ndigits(const char *s)
{
    int first = -1, last = -1, k = 0;
    for (; *s && *s != 'e'; s++) {
        if (*s < '0' || *s > '9')
            continue;
        if (*s != '0') {
            if (first < 0)
                first = k;
            last = k;
        }
        k++;
    }
    return first < 0 ? 1 : last - first + 1;
}

static void t_random(void **state)
{
    (void)state;
    uint64_t s = 0x9E3779B97F4A7C15ull;
    char t[RAID_F64_TEXT], b[64];
    for (int i = 0; i < 200000; i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        double v;
        switch (i % 4) {
        case 0: v = t_from_bits(s); break;                          /* any bits */
        case 1: v = t_from_bits(s >> 12); break;                    /* subnormals */
        case 2: v = (double)(s % 100000000) / 100.0; break;       /* prices */
        default: v = ldexp(1.0, (int)(s % 2098) - 1074); break;   /* powers of two: the narrow interval below */
        }
        if (!isfinite(v))
            continue;
        raidF64Text(t, v);
        const double w = strtod(t, NULL);
        if (memcmp(&v, &w, sizeof v) != 0)
            fail_msg("%a written '%s' reads back as %a", v, t, w);
        const int n = ndigits(t);
        for (int p = 1; p < n; p++) { /* no shorter correctly rounded decimal reads back as v */
            snprintf(b, sizeof b, "%.*e", p - 1, v);
            if (strtod(b, NULL) == v)
                fail_msg("%a written '%s' (%d digits), but '%s' reads back too", v, t, n, b);
        }
        if (strchr(t, ','))
            fail_msg("'%s': a comma", t);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(t_cases), cmocka_unit_test(t_random)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
