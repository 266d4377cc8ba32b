/*
 * kernels/raid_f64_pow.h (pow, at most 1 ulp, correctly rounded where the rounding test decides) on the host:
 * C99 Annex F.9.4.4's special values (a table, and the host's pow on it); exact cases against exact integer
 * arithmetic (integer powers of odd integers up to 2^128, their roots, powers of two, the exact midpoints
 * such as (2^27 - 1)^2 and 243 2^-1075, negative bases); every pair of CORE-MATH's worst-case list
 * (tests/data/f64_worst/pow.wc) must be decided by the rounding test with the header's error bound, and the
 * test prints the smallest margin; random pairs over several ranges (the whole domain, near-overflow and
 * near-underflow results, x near 1 with large y, negative x with integer y, subnormal x) must be decided and
 * within 1 ulp of glibc's pow (not correctly rounded: its own bound is 0.52 ulp, and (1 - 2^-53)^-1 = 1 + 2^-53 +
 * 2^-106 + ... gives it 1; differences are counted and printed, and tests/python/test_f64_pow.py arbitrates
 * with MPFR).
 * RAID_F64_CASES sets the number of random pairs per range (default 10^5). The device's bits are compared with
 * the cpu path's through raid_f64_map where OpenCL is present.
 */
#include "support.h"
#include "raid.h"
#include "raid_f64_pow.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const uint64_t INF = 0x7FF0000000000000ull, SIGN = 1ull << 63, ONE = 0x3FF0000000000000ull;
static const uint64_t DNAN = 0xFFF8000000000000ull;

static uint64_t host_pow(uint64_t x, uint64_t y)
{
    volatile double a = t_from_bits(x), b = t_from_bits(y);
    return t_bits_of(pow(a, b));
}

static int is_nan(uint64_t x) { return (x & ~SIGN) > INF; }

static int is_snan(uint64_t x) { return is_nan(x) && !(x & 1ull << 51); }

/* How many binary64 values apart two results are (infinity counts as the value after the largest). */
static uint64_t ulps(uint64_t a, uint64_t b)
{
    const int64_t ka = (a >> 63) ? -(int64_t)(a & ~SIGN) : (int64_t)a;
    const int64_t kb = (b >> 63) ? -(int64_t)(b & ~SIGN) : (int64_t)b;
    return ka > kb ? (uint64_t)(ka - kb) : (uint64_t)(kb - ka);
}

/* The header's errbits for the RaidWide P = y ln|x| (finite inputs past the special values). */
static int errbits_of(RaidWide p) { return p.e <= -1 ? 123 : p.e == 0 ? 122 : 123 - p.e; }

/* The fewest bits of relative accuracy with which w's rounding is certain (65 .. 127; 128: never). */
static int bits_needed(RaidWide w)
{
    int lo = 65, hi = 128, sure;
    while (lo < hi) {
        const int mid = (lo + hi) / 2;
        raidWideToF64(w, mid, &sure);
        if (sure)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* N 2^j rounded once to binary64, nearest even (an oracle independent of raid_wide.h: integer arithmetic on a
 * 128-bit N). */
static uint64_t round_exact(unsigned __int128 n, int j)
{
    if (!n)
        return 0;
    int b = 0;
    for (unsigned __int128 t = n; t; t >>= 1)
        b++;
    int q = (b - 1 + j > -1022 ? b - 1 + j : -1022) - 52; /* the exponent of the last place */
    unsigned __int128 m;
    if (q <= j)
        m = n << (j - q);
    else {
        const int s = q - j;
        if (s > 127)
            return 0;
        m = n >> s;
        const unsigned __int128 rem = n & ((((unsigned __int128)1) << s) - 1), half = ((unsigned __int128)1) << (s - 1);
        if (rem > half || (rem == half && (m & 1)))
            m++;
    }
    if (m >> 53) {
        m >>= 1;
        q++;
    }
    if (m >> 52) {
        const int be = q + 52 + 1023;
        return be >= 2047 ? INF : ((uint64_t)be << 52) | ((uint64_t)m & 0x000FFFFFFFFFFFFFull);
    }
    return (uint64_t)m; /* subnormal or zero */
}

typedef struct {
    uint64_t n, unsure, far, differ, exact; /* cases; undecided; beyond 1 ulp of glibc; within; by the exact path */
} Tally;

static void check(uint64_t x, uint64_t y, Tally *t)
{
    int sure;
    const uint64_t r = raidF64PowChecked(x, y, &sure), h = host_pow(x, y);
    t->n++;
    t->exact += sure == 2;
    if (!sure && t->unsure++ < 8)
        print_error("pow(%a, %a) = %a: not sure\n", t_from_bits(x), t_from_bits(y), t_from_bits(r));
    if (r != h) {
        if (is_nan(r) != is_nan(h) || (!is_nan(r) && ulps(r, h) > 1)) {
            if (t->far++ < 8)
                print_error("pow(%a, %a): raid %a, glibc %a\n", t_from_bits(x), t_from_bits(y), t_from_bits(r),
                            t_from_bits(h));
        } else if (!is_nan(r) && t->differ++ < 8)
            print_message("pow(%a, %a): raid %a, glibc %a (1 ulp)\n", t_from_bits(x), t_from_bits(y), t_from_bits(r),
                          t_from_bits(h));
    }
}

static void report(const char *range, const Tally *t)
{
    print_message("pow %-22s %8llu pairs, %llu differ from glibc by 1 ulp, %llu unsure, %llu beyond 1 ulp, %llu "
                  "rounded exactly by the exact path\n", range, (unsigned long long)t->n, (unsigned long long)t->differ,
                  (unsigned long long)t->unsure, (unsigned long long)t->far, (unsigned long long)t->exact);
    if (t->unsure || t->far)
        fail_msg("pow %s: %llu unsure, %llu beyond 1 ulp", range, (unsigned long long)t->unsure,
                 (unsigned long long)t->far);
}

#define D(v) t_bits_of(v)

static void test_specials(void **state)
{
    (void)state;
    const uint64_t snan = 0x7FF0000000000001ull, nnan = 0xFFF4000000000000ull, qnan = 0x7FF8000000000000ull;
    const uint64_t ninf = INF | SIGN, nz = SIGN, tiny = 1, ntiny = SIGN | 1, big = 0x7FEFFFFFFFFFFFFFull;
    const struct {
        uint64_t x, y, want;
    } T[] = {
        /* pow(x, +-0) = 1 for any x, NaN included */
        {D(3.5), 0, ONE}, {D(-3.5), SIGN, ONE}, {snan, 0, ONE}, {nnan, SIGN, ONE}, {INF | SIGN, 0, ONE}, {0, SIGN, ONE},
        /* pow(+1, y) = 1 for any y, NaN included */
        {ONE, snan, ONE}, {ONE, nnan, ONE}, {ONE, INF, ONE}, {ONE, ninf, ONE}, {ONE, D(-7.25), ONE},
        /* NaNs: the first NaN made quiet */
        {snan, D(2.0), snan | 1ull << 51}, {D(2.0), nnan, nnan | 1ull << 51}, {snan, nnan, snan | 1ull << 51},
        {nnan, snan, nnan | 1ull << 51}, {D(-1.0), qnan, qnan}, {qnan, D(-1.0), qnan}, {qnan, INF, qnan},
        /* pow(-1, +-inf) = 1 */
        {D(-1.0), INF, ONE}, {D(-1.0), ninf, ONE},
        /* pow(x, +-inf) by |x| against 1 */
        {D(0.5), ninf, INF}, {D(-0.5), ninf, INF}, {D(2.0), ninf, 0}, {D(-2.0), ninf, 0}, {D(0.5), INF, 0},
        {D(-0.5), INF, 0}, {D(2.0), INF, INF}, {D(-2.0), INF, INF}, {0x3FEFFFFFFFFFFFFFull, INF, 0},
        {0x3FF0000000000001ull, INF, INF}, {tiny, ninf, INF}, {big, ninf, 0}, {0, INF, 0}, {0, ninf, INF},
        {nz, INF, 0}, {nz, ninf, INF}, {INF, INF, INF}, {INF, ninf, 0}, {ninf, INF, INF}, {ninf, ninf, 0},
        /* pow(+-0, y) */
        {0, D(-3.0), INF}, {nz, D(-3.0), ninf}, {0, D(-2.0), INF}, {nz, D(-2.0), INF}, {nz, D(-0.5), INF},
        {nz, D(-1e300), INF}, {0, D(3.0), 0}, {nz, D(3.0), nz}, {nz, D(2.0), 0}, {nz, D(0.5), 0}, {nz, D(1e300), 0},
        {nz, D(1.0), nz}, {nz, D(-1.0), ninf}, {nz, ntiny, INF}, {nz, tiny, 0},
        /* pow(-inf, y), pow(+inf, y) */
        {ninf, D(-3.0), nz}, {ninf, D(-2.0), 0}, {ninf, D(-0.5), 0}, {ninf, D(3.0), ninf}, {ninf, D(2.0), INF},
        {ninf, D(0.5), INF}, {ninf, D(1.0), ninf}, {INF, D(-3.0), 0}, {INF, tiny, INF}, {INF, ntiny, 0},
        /* negative finite x, non-integer finite y: the default NaN */
        {D(-2.0), D(0.5), DNAN}, {D(-2.0), D(-0.5), DNAN}, {D(-0.5), D(2.5), DNAN}, {ntiny, D(1.5), DNAN},
        {D(-1.0), D(0.5), DNAN}, {D(-3.0), D(4503599627370495.5), DNAN}, /* 2^52 - 1/2 */
        /* negative x, integer y: the sign by y's parity, |y| >= 2^53 even */
        {D(-2.0), D(3.0), D(-8.0)}, {D(-2.0), D(2.0), D(4.0)}, {D(-2.0), D(-3.0), D(-0.125)}, {D(-1.0), D(1e300), ONE},
        {D(-1.0), D(9007199254740991.0), D(-1.0)}, {D(-1.0), D(9007199254740992.0), ONE},
        {D(-1.0), D(4503599627370497.0), D(-1.0)}, {D(-1.0), D(-4503599627370497.0), D(-1.0)},
        {D(-1.0), D(-4503599627370495.5), DNAN}, {D(-1.0000000000000002), D(1e300), INF},
        /* overflow and underflow, signed */
        {D(10.0), D(400.0), INF}, {D(-10.0), D(401.0), ninf}, {D(-10.0), D(-401.0), nz}, {D(10.0), D(-400.0), 0},
        {D(2.0), D(1024.0), INF}, {D(2.0), D(-1075.0), 0}, {D(-2.0), D(-1075.0), nz}, {D(2.0), D(-1074.0), tiny},
        {D(0.5), D(1075.0), 0}, {big, D(2.0), INF}, {tiny, D(0.5), D(0x1p-537)}, {tiny, D(1.0), tiny},
        {D(2.0), D(1023.0), 0x7FE0000000000000ull}, {D(-2.0), D(-1073.0), SIGN | 2},
    };
    for (size_t i = 0; i < sizeof T / sizeof *T; i++) {
        const uint64_t want = T[i].want;
        int sure;
        const uint64_t r = raidF64PowChecked(T[i].x, T[i].y, &sure);
        if (r != want || !sure)
            fail_msg("pow(%a, %a) [%zu] = %016llx, want %016llx (sure %d)", t_from_bits(T[i].x), t_from_bits(T[i].y),
                     i, (unsigned long long)r, (unsigned long long)want, sure);
        /* glibc agrees bit for bit (these results are exact), but for a signaling NaN with y = +-0 or x = 1:
         * glibc signals and returns the NaN made quiet, where Annex F's 1 (numpy.power's, and IEEE 754's for a
         * quiet NaN) is kept */
        const int snan_one = want == ONE && (is_snan(T[i].x) || is_snan(T[i].y));
        if (!snan_one && host_pow(T[i].x, T[i].y) != want)
            fail_msg("glibc pow(%a, %a) = %016llx, table %016llx", t_from_bits(T[i].x), t_from_bits(T[i].y),
                     (unsigned long long)host_pow(T[i].x, T[i].y), (unsigned long long)want);
    }
}

static void test_y_class(void **state)
{
    (void)state;
    assert_int_equal(raidF64PowYClass(D(3.0)), 1);
    assert_int_equal(raidF64PowYClass(D(-3.0)), 1);
    assert_int_equal(raidF64PowYClass(D(2.0)), 2);
    assert_int_equal(raidF64PowYClass(D(1.0)), 1);
    assert_int_equal(raidF64PowYClass(D(0.5)), 0);
    assert_int_equal(raidF64PowYClass(D(2.5)), 0);
    assert_int_equal(raidF64PowYClass(1), 0);
    assert_int_equal(raidF64PowYClass(D(4503599627370495.5)), 0);
    assert_int_equal(raidF64PowYClass(D(4503599627370497.0)), 1);
    assert_int_equal(raidF64PowYClass(D(9007199254740991.0)), 1); /* 2^53 - 1: the largest odd */
    assert_int_equal(raidF64PowYClass(D(9007199254740992.0)), 2);
    assert_int_equal(raidF64PowYClass(D(9007199254740994.0)), 2);
    assert_int_equal(raidF64PowYClass(0x7FEFFFFFFFFFFFFFull), 2);
}

/* x^y for x = m 2^e (m odd), y a small positive integer: exact against N = m^y in 128 bits, sure (1 or 2);
 * the midpoints among them rounded to even. Returns how many were midpoints. */
static int check_int_power(uint64_t m, int e, int y, int neg)
{
    unsigned __int128 n = 1;
    for (int i = 0; i < y; i++) {
        if (n > (~(unsigned __int128)0) / m)
            return 0; /* beyond 128 bits */
        n *= m;
    }
    const uint64_t x = t_bits_of(ldexp((double)m, e)) | (neg ? SIGN : 0);
    if ((x & ~SIGN) >= INF || !(x & ~SIGN))
        return 0;
    uint64_t want = round_exact(n, e * y);
    if (neg && (y & 1))
        want |= SIGN;
    int sure;
    const uint64_t r = raidF64PowChecked(x, t_bits_of((double)y), &sure);
    if (r != want || !sure)
        fail_msg("pow(%a, %d) = %a, exact %a (sure %d)", t_from_bits(x), y, t_from_bits(r), t_from_bits(want), sure);
    int b = 0;
    for (unsigned __int128 t = n; t; t >>= 1)
        b++;
    return b == 54 && (n & 1) && e * y >= -1075; /* a midpoint of two normal binary64 values */
}

static void test_exact(void **state)
{
    (void)state;
    int sure, mids = 0;
    /* the classic midpoints: (2^27 - 1)^2 = 2^54 - 2^28 + 1 and 3^34, 54-bit odd integers */
    assert_true(raidF64PowChecked(D(134217727.0), D(2.0), &sure) == D(18014398241046528.0) && sure == 2);
    assert_true(host_pow(D(134217727.0), D(2.0)) == D(18014398241046528.0));
    assert_true(raidF64PowChecked(D(3.0), D(34.0), &sure) == round_exact(16677181699666569ull, 0) && sure == 2);
    assert_true(raidF64PowChecked(D(-3.0), D(33.0), &sure) == D(-5559060566555523.0) && sure == 1);
    /* a subnormal midpoint: (3 2^-215)^5 = 243 2^-1075, between 121 and 122 times 2^-1074: to even, 122 */
    assert_true(raidF64PowChecked(D(0x3p-215), D(5.0), &sure) == 122 && sure == 2);
    assert_true(raidF64PowChecked(D(-0x3p-215), D(5.0), &sure) == (SIGN | 122) && sure == 2);
    /* 2^-1075: the midpoint of 0 and the smallest subnormal, to even (+0); 2^-1075 (1 + tiny) is not exact */
    assert_true(raidF64PowChecked(D(2.0), D(-1075.0), &sure) == 0 && sure == 2);
    assert_true(raidF64PowChecked(D(0.5), D(1075.0), &sure) == 0 && sure == 2);
    assert_true(raidF64PowChecked(D(0x1p-43), D(25.0), &sure) == 0 && sure == 2);
    assert_true(raidF64PowChecked(D(0x1p-430), D(2.5), &sure) == 0 && sure == 2);
    /* roots: (z^2)^(3/2) = z^3, (z^4)^(5/4) = z^5, (z^32)^(33/32) = 3^33, a midpoint (z^2)^(3/2) */
    assert_true(raidF64PowChecked(D(49.0), D(1.5), &sure) == D(343.0) && sure == 1);
    assert_true(raidF64PowChecked(D(81.0), D(1.25), &sure) == D(243.0) && sure == 1);
    assert_true(raidF64PowChecked(D(1853020188851841.0), D(1.03125), &sure) == D(5559060566555523.0) && sure);
    {
        const uint64_t z = 262143; /* 2^18 - 1: z^3 has 54 bits, odd: (z^2)^(3/2) is a midpoint */
        const unsigned __int128 z3 = (unsigned __int128)z * z * z;
        assert_true(raidF64PowChecked(D((double)(z * z)), D(1.5), &sure) == round_exact(z3, 0) && sure == 2);
        assert_true(raidF64PowChecked(D(ldexp((double)(z * z), -100)), D(1.5), &sure) == round_exact(z3, -150) &&
                    sure == 2);
        /* its exponent not divisible by 2: 2^(-101 * 3 / 2) irrational, the result not exact (and decided) */
        const uint64_t r = raidF64PowChecked(D(ldexp((double)(z * z), -101)), D(1.5), &sure);
        assert_true(sure == 1 && r == host_pow(D(ldexp((double)(z * z), -101)), D(1.5)));
    }
    /* square roots of squares, y = 1/2: exact, sure */
    for (uint64_t z = 1; z < 1u << 26; z = z * 3 + 1)
        assert_true(raidF64PowChecked(D((double)(z * z)), D(0.5), &sure) == D((double)z) && sure);
    /* powers of two: 2^(k y) for integer and fractional y */
    for (int k = -1074; k <= 1023; k += 7) {
        const uint64_t x = t_bits_of(ldexp(1, k));
        for (int y = -40; y <= 40; y++) {
            if (!y)
                continue;
            const uint64_t r = raidF64PowChecked(x, D((double)y), &sure);
            const long j = (long)k * y;
            const uint64_t want = j > 1100 ? INF : j < -1200 ? 0 : round_exact(1, (int)j);
            if (r != want || !sure)
                fail_msg("pow(2^%d, %d) = %a, want %a", k, y, t_from_bits(r), t_from_bits(want));
        }
        if (k % 4 == 0) { /* y = 1/4, 3/4, -5/4 */
            assert_true(raidF64PowChecked(x, D(0.25), &sure) == round_exact(1, k / 4) && sure);
            assert_true(raidF64PowChecked(x, D(0.75), &sure) == round_exact(1, 3 * k / 4) && sure);
            assert_true(raidF64PowChecked(x, D(-1.25), &sure) == round_exact(1, -5 * k / 4) && sure);
        }
    }
    /* small integer powers of odd integers (and their negatives, scaled by powers of two) against 128-bit
     * arithmetic: every representable result, every 54-bit midpoint */
    uint64_t s = 0x90E;
    for (int y = 2; y <= 40; y++)
        for (int i = 0; i < 400; i++) {
            const int bits = 1 + (int)(t_splitmix64(&s) % (unsigned)(y <= 2 ? 27 : 128 / y + 1));
            uint64_t m = (t_splitmix64(&s) >> (64 - bits)) | 1;
            if (i < 8) /* the largest odd m with m^y about 2^54 and its odd neighbours below */
                m = ((uint64_t)floor(pow(0x1p54, 1.0 / y)) | 1) - 2 * (uint64_t)i;
            if (m < 3)
                m = 3;
            const int e = i % 3 == 0 ? 0 : (int)(t_splitmix64(&s) % 64) - 32;
            mids += check_int_power(m, e, y, i & 1);
            mids += check_int_power(m, (-1074 - 20) / y, y, 0); /* results near the subnormals */
        }
    print_message("pow exact cases: %d of them 54-bit midpoints, rounded to even\n", mids);
    assert_true(mids > 50);
}

/* Reads pow.wc: the finite pairs "x, y" (comments after '#'). */
static uint64_t *read_wc(size_t *n)
{
    char path[512];
    snprintf(path, sizeof path, "%s/tests/data/f64_worst/pow.wc", RAID_SOURCE_DIR);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    size_t cap = 1 << 14, k = 0;
    uint64_t *v = malloc(2 * cap * sizeof *v);
    assert_non_null(v);
    char line[256];
    while (fgets(line, sizeof line, f)) {
        char *hash = strchr(line, '#');
        if (hash)
            *hash = 0;
        char *end, *end2;
        const double x = strtod(line, &end);
        if (end == line)
            continue;
        assert_true(*end == ',');
        const double y = strtod(end + 1, &end2);
        assert_true(end2 != end + 1);
        if (k == cap) {
            cap *= 2;
            v = realloc(v, 2 * cap * sizeof *v);
            assert_non_null(v);
        }
        v[2 * k] = t_bits_of(x);
        v[2 * k + 1] = t_bits_of(y);
        k++;
    }
    fclose(f);
    *n = k;
    return v;
}

static void test_worst_cases(void **state)
{
    (void)state;
    size_t n;
    uint64_t *v = read_wc(&n);
    Tally t = {0};
    int margin = 1000, wide = 0;
    uint64_t hx = 0, hy = 0;
    for (size_t i = 0; i < n; i++) {
        const uint64_t x = v[2 * i], y = v[2 * i + 1];
        check(x, y, &t);
        RaidU64 r, sign;
        if (raidF64PowSpecial(x, y, &r, &sign))
            continue;
        const RaidWide p = raidWideMul(raidWideFromF64(y), raidWideLogOf(x & ~SIGN));
        if (!p.hi || p.e >= 11)
            continue;
        wide++;
        const int m = errbits_of(p) - bits_needed(raidWideExpOf(p));
        if (m < margin) {
            margin = m;
            hx = x;
            hy = y;
        }
    }
    print_message("pow worst cases: %zu pairs, %d through the rounding test; the smallest margin, %d bits of the "
                  "bound left, at pow(%a, %a)\n", n, wide, margin, t_from_bits(hx), t_from_bits(hy));
    report("worst cases", &t);
    assert_true(n > 9000 && margin >= 0);
    free(v);
}

static uint64_t ncases(void)
{
    const char *env = getenv("RAID_F64_CASES");
    return env ? strtoull(env, NULL, 10) : 100000;
}

static void test_random(void **state)
{
    (void)state;
    const uint64_t n = ncases();
    uint64_t s = 0x90F;
    static const char *const range[] = {"whole domain", "moderate", "near overflow/underflow", "x near 1, large y",
                                        "negative x, integer y", "subnormal x", "y near 0"};
    for (int rg = 0; rg < 7; rg++) {
        Tally t = {0};
        for (uint64_t i = 0; i < n; i++) {
            const uint64_t u = t_splitmix64(&s), w = t_splitmix64(&s);
            uint64_t x, y;
            switch (rg) {
            case 0: /* every finite positive x, every finite y */
                x = u % INF;
                y = w % INF | (w & SIGN);
                break;
            case 1: /* |x| in [2^-20, 2^20], |y| in [2^-6, 64] */
                x = t_bits_of(ldexp(1 + t_unif(&s), (int)(u % 40) - 20));
                y = t_bits_of(ldexp(1 + t_unif(&s), (int)(w % 12) - 6)) | (w & SIGN);
                break;
            case 2: { /* |y ln x| near 709.78 or 744.4: results near the largest and the subnormals */
                y = t_bits_of(ldexp(1 + t_unif(&s), (int)(w % 40) - 10)) | (w & SIGN);
                const double target = u & 1 ? 709.0 + 1.5 * t_unif(&s) : -(700.0 + 46.0 * t_unif(&s));
                const double lx = target / t_from_bits(y);
                if (fabs(lx) > 709)
                    continue;
                x = t_bits_of(exp(lx));
                break;
            }
            case 3: { /* x = 1 +- d, |y| ~ 1/d up to 2^10/d */
                const int e = 1 + (int)(u % 52);
                const double d = ldexp(1 + t_unif(&s), -e);
                x = t_bits_of(u & 2 ? 1 + d : 1 - d);
                y = t_bits_of(ldexp(1 + t_unif(&s), e + (int)(w % 12) - 2)) | (w & SIGN);
                break;
            }
            case 4: /* x < 0, y an integer of either parity */
                x = t_bits_of(-ldexp(1 + t_unif(&s), (int)(u % 60) - 30));
                y = t_bits_of((double)((int64_t)(w % 121) - 60));
                break;
            case 5: /* subnormal x, |y| in [2^-12, 2) */
                x = 1 + u % 0x000FFFFFFFFFFFFFull;
                y = t_bits_of(ldexp(1 + t_unif(&s), (int)(w % 12) - 12)) | (w & SIGN);
                break;
            default: /* |y| tiny: results near 1 */
                x = u % INF;
                y = t_bits_of(ldexp(1 + t_unif(&s), -(int)(w % 80) - 1)) | (w & SIGN);
            }
            check(x, y, &t);
        }
        report(range[rg], &t);
    }
}

/* The device (OpenCL, PoCL in CI) gives the cpu path's bits through raid_f64_map. */
static void test_device(void **state)
{
    (void)state;
    if (!t_have_opencl())
        skip();
    enum { N = 4096 };
    double *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b);
    double *c = malloc(N * sizeof *c), *d = malloc(N * sizeof *d);
    assert_true(a && b && c && d);
    uint64_t s = 0xD1;
    for (int i = 0; i < N; i++) {
        const uint64_t u = t_splitmix64(&s);
        switch (i % 4) {
        case 0: a[i] = t_from_bits(u); b[i] = t_from_bits(t_splitmix64(&s)); break;
        case 1: a[i] = ldexp(t_unif(&s), (int)(u % 40) - 20); b[i] = 100 * (t_unif(&s) - 0.5); break;
        case 2: a[i] = -ldexp(1 + t_unif(&s), (int)(u % 20) - 10); b[i] = (double)((int)(u % 41) - 20); break;
        default: a[i] = 1 + ldexp(t_unif(&s) - 0.5, -(int)(u % 50)); b[i] = ldexp(t_unif(&s) - 0.5, (int)(u % 55));
        }
    }
    a[0] = 134217727.0; b[0] = 2; /* a midpoint: the exact path */
    a[1] = 0x3p-215; b[1] = 5;
    a[2] = -0.0; b[2] = -3;
    raid_ctx *cpu = t_open_ctx("cpu"), *dev = t_open_ctx(t_device());
    assert_int_equal(raid_f64_map(cpu, RAID_F64_POW, a, b, c, N), RAID_OK);
    assert_int_equal(raid_f64_map(dev, RAID_F64_POW, a, b, d, N), RAID_OK);
    for (int i = 0; i < N; i++) {
        if (t_bits_of(c[i]) != t_bits_of(d[i]))
            fail_msg("pow(%a, %a): device %a, cpu %a", a[i], b[i], d[i], c[i]);
        assert_true(t_bits_of(c[i]) == raidF64Pow(t_bits_of(a[i]), t_bits_of(b[i])));
    }
    raid_ctx_destroy(dev);
    raid_ctx_destroy(cpu);
    free(a);
    free(b);
    free(c);
    free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_specials),
        cmocka_unit_test(test_y_class),
        cmocka_unit_test(test_exact),
        cmocka_unit_test(test_worst_cases),
        cmocka_unit_test(test_random),
        cmocka_unit_test(test_device),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
