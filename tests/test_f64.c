/*
 * kernels/raid_f64.h on the host against the host's IEEE 754 double arithmetic (x86-64 SSE2 or AArch64:
 * correctly rounded to nearest even, subnormals kept), TestFloat's way: every pair of a set of patterned
 * operands (its level 1: exponents at the boundaries, significands of single bits, runs of ones at either
 * end, all ones), then random operands of three kinds (uniform bit patterns; magnitudes near one another,
 * where sums cancel and quotients sit near 1; subnormal and near-overflow results). Every result must have
 * the host's bits; a NaN result must be a NaN where the host's is, and on x86-64 the NaN the SSE rules give
 * (raid_f64.h's header): the first NaN operand made quiet, the default NaN 0xFFF8000000000000 for an
 * invalid operation. RAID_F64_CASES sets the number of random cases per operation and kind (default 10^5;
 * more on the lent GPU's host). test_level2 runs TestFloat's level 2 exhaustively for add, sub, mul, div and
 * sqrt (its fma level 2 would be 9e10 triples: fma gets the level-1 triples and random ones).
 */
#include "support.h"
#include "raid_f64.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_SQRT, NOPS };
static const char *const op_name[NOPS] = {"add", "sub", "mul", "div", "sqrt"};

/* The host's result; volatile so that the compiler computes it at run time, in this order of operands. */
static uint64_t host_op(int op, uint64_t a, uint64_t b)
{
    volatile double x = t_from_bits(a), y = t_from_bits(b);
    double r = 0;
    switch (op) {
    case OP_ADD: r = x + y; break;
    case OP_SUB: r = x - y; break;
    case OP_MUL: r = x * y; break;
    case OP_DIV: r = x / y; break;
    default: r = sqrt(x); break;
    }
    return t_bits_of(r);
}

static uint64_t raid_op(int op, uint64_t a, uint64_t b)
{
    switch (op) {
    case OP_ADD: return raidF64Add(a, b);
    case OP_SUB: return raidF64Sub(a, b);
    case OP_MUL: return raidF64Mul(a, b);
    case OP_DIV: return raidF64Div(a, b);
    default: return raidF64Sqrt(a);
    }
}

static int is_nan(uint64_t x) { return (x & 0x7FFFFFFFFFFFFFFFull) > 0x7FF0000000000000ull; }

static uint64_t nfail[NOPS];

/* One case: RAID's bits against the host's (NaN rules as in the header). */
static void check(int op, uint64_t a, uint64_t b)
{
    const uint64_t h = host_op(op, a, b), r = raid_op(op, a, b);
    int ok = r == h;
    if (!ok && is_nan(h) && is_nan(r)) {
#if defined(__x86_64__)
        /* the host may commute an addition's or multiplication's operands: with two NaN operands either is
         * the host's; RAID's is the first's */
        const int two = is_nan(a) && op != OP_SQRT && is_nan(b);
        ok = two && r == (a | 0x0008000000000000ull) && (op == OP_ADD || op == OP_MUL);
#else
        ok = 1; /* which NaN is the host's own choice */
#endif
    }
    if (!ok && nfail[op]++ < 8)
        print_error("%s(%016llx, %016llx): raid %016llx (%.17g), host %016llx (%.17g)\n", op_name[op],
                    (unsigned long long)a, (unsigned long long)b, (unsigned long long)r, t_from_bits(r),
                    (unsigned long long)h, t_from_bits(h));
}

/* TestFloat's level-1 operands: boundary exponents times patterned significands, both signs. */
static size_t patterns(uint64_t *out)
{
    static const int ex[] = {0, 1, 2, 3, 0x3FD, 0x3FE, 0x3FF, 0x400, 0x401, 0x433, 0x434, 0x7FC, 0x7FD, 0x7FE, 0x7FF};
    uint64_t sig[80];
    size_t ns = 0;
    const uint64_t all = (1ull << 52) - 1;
    sig[ns++] = 0;
    sig[ns++] = all;
    for (int k = 0; k < 52; k += 3) {
        sig[ns++] = 1ull << k;                       /* one bit */
        sig[ns++] = all & ~((1ull << k) - 1);        /* ones from the top down to bit k */
        sig[ns++] = (1ull << (k + 1)) - 1;           /* ones from bit k down */
    }
    sig[ns++] = 1ull << 51;
    sig[ns++] = (1ull << 51) | 1;
    size_t n = 0;
    for (size_t e = 0; e < sizeof ex / sizeof *ex; e++)
        for (size_t s = 0; s < ns; s++)
            for (int sign = 0; sign < 2; sign++)
                out[n++] = ((uint64_t)sign << 63) | ((uint64_t)ex[e] << 52) | sig[s];
    return n;
}

static void test_patterns(void **state)
{
    (void)state;
    uint64_t *v = malloc(4096 * sizeof *v);
    assert_non_null(v);
    const size_t n = patterns(v);
    assert_true(n < 4096);
    memset(nfail, 0, sizeof nfail);
    for (size_t i = 0; i < n; i++) {
        check(OP_SQRT, v[i], 0);
        for (size_t j = 0; j < n; j++)
            for (int op = OP_ADD; op <= OP_DIV; op++)
                check(op, v[i], v[j]);
    }
    for (int op = 0; op < NOPS; op++)
        if (nfail[op])
            fail_msg("%s: %llu of the patterned cases differ from the host", op_name[op], (unsigned long long)nfail[op]);
    free(v);
}

/* TestFloat's level-2 significands (its f64P2, 204 patterns): zero, each single bit, runs of ones from the
 * top down to each bit, all ones but one bit, runs of ones from each bit down to bit 0. */
static size_t level2_significands(uint64_t *sig)
{
    const uint64_t all = (1ull << 52) - 1;
    size_t n = 0;
    sig[n++] = 0;
    for (int k = 0; k < 52; k++)
        sig[n++] = 1ull << k;
    for (int k = 50; k >= 0; k--)
        sig[n++] = all & ~((1ull << k) - 1); /* bits 51..k (k = 0: all ones) */
    for (int k = 1; k <= 50; k++)
        sig[n++] = all & ~(1ull << k); /* (bit 0 cleared is the run down to bit 1, above) */
    for (int k = 50; k >= 1; k--)
        sig[n++] = (1ull << (k + 1)) - 1; /* bits k..0 */
    return n;
}

/* TestFloat's level 2, exhaustively (8e7 cases, about 4 s on one core of the 2-core CI machine): every
 * pair of its f64QIn x f64P2 operands (11 exponents -- subnormal, -1022, -53, -2, -1, 0, 1, 2, 53, 1023,
 * infinity/NaN -- both signs, times the 204 significands: 4,488 values, 2e7 pairs) through add, sub, mul
 * and div, and its f64QOut x f64P2 operands (32 exponents, both signs: 13,056 values) through sqrt. */
static void test_level2(void **state)
{
    (void)state;
    static const int qin[] = {0, 1, 0x3CA, 0x3FD, 0x3FE, 0x3FF, 0x400, 0x401, 0x434, 0x7FE, 0x7FF};
    static const int qout[] = {0,     1,     2,     0x37E, 0x37F, 0x380, 0x381, 0x3CA, 0x3FB, 0x3FC, 0x3FD,
                               0x3FE, 0x3FF, 0x400, 0x401, 0x402, 0x403, 0x41C, 0x41D, 0x41E, 0x41F, 0x434,
                               0x43C, 0x43D, 0x43E, 0x43F, 0x47E, 0x47F, 0x480, 0x7FD, 0x7FE, 0x7FF};
    uint64_t sig[256];
    const size_t ns = level2_significands(sig);
    assert_int_equal(ns, 204);
    const size_t nin = 2 * (sizeof qin / sizeof *qin) * ns, nout = 2 * (sizeof qout / sizeof *qout) * ns;
    uint64_t *in = malloc(nin * sizeof *in), *out = malloc(nout * sizeof *out);
    assert_true(in && out);
    size_t k = 0;
    for (int sign = 0; sign < 2; sign++)
        for (size_t e = 0; e < sizeof qin / sizeof *qin; e++)
            for (size_t s = 0; s < ns; s++)
                in[k++] = ((uint64_t)sign << 63) | ((uint64_t)qin[e] << 52) | sig[s];
    k = 0;
    for (int sign = 0; sign < 2; sign++)
        for (size_t e = 0; e < sizeof qout / sizeof *qout; e++)
            for (size_t s = 0; s < ns; s++)
                out[k++] = ((uint64_t)sign << 63) | ((uint64_t)qout[e] << 52) | sig[s];
    memset(nfail, 0, sizeof nfail);
    for (size_t i = 0; i < nout; i++)
        check(OP_SQRT, out[i], 0);
    for (size_t i = 0; i < nin; i++)
        for (size_t j = 0; j < nin; j++)
            for (int op = OP_ADD; op <= OP_DIV; op++)
                check(op, in[i], in[j]);
    print_message("level 2: %zu sqrt cases, %zu cases of each of add, sub, mul, div\n", nout, nin * nin);
    for (int op = 0; op < NOPS; op++)
        if (nfail[op])
            fail_msg("%s: %llu of the level-2 cases differ from the host", op_name[op], (unsigned long long)nfail[op]);
    free(in), free(out);
}

/* A random operand near x: the same exponent or one next to it, random low bits. */
static uint64_t near(uint64_t x, uint64_t *s)
{
    const uint64_t r = t_splitmix64(s);
    const int dexp = (int)(r % 3) - 1;
    uint64_t y = (x & ~0xFFFFFFFull) ^ (t_splitmix64(s) & 0xFFFFFFFull);
    const uint64_t e = (y >> 52) & 0x7FF;
    if (e > 1 && e < 0x7FE)
        y += (uint64_t)(int64_t)dexp << 52;
    return (r >> 8) & 1 ? y ^ (1ull << 63) : y;
}

static void test_random(void **state)
{
    (void)state;
    const char *env = getenv("RAID_F64_CASES");
    const long long cases = env ? atoll(env) : 100000;
    uint64_t s = 20261207;
    memset(nfail, 0, sizeof nfail);
    for (long long i = 0; i < cases; i++) {
        /* uniform bit patterns */
        const uint64_t a = t_splitmix64(&s), b = t_splitmix64(&s);
        for (int op = 0; op < NOPS; op++)
            check(op, a, b);
        /* finite magnitudes near one another (cancellation, quotients near 1) */
        const uint64_t c = t_splitmix64(&s) & 0x7FEFFFFFFFFFFFFFull, d = near(c, &s);
        for (int op = 0; op < NOPS; op++)
            check(op, c, d);
        /* results at the ends of the range: exponents summing (products) or differing (quotients) past them */
        const uint64_t lo = (t_splitmix64(&s) % 60) << 52, hi = (0x7FEull - t_splitmix64(&s) % 60) << 52;
        const uint64_t e = (t_splitmix64(&s) & 0x800FFFFFFFFFFFFFull) | (t_splitmix64(&s) & 1 ? lo : hi);
        const uint64_t f = (t_splitmix64(&s) & 0x800FFFFFFFFFFFFFull) | ((0x3FFull + t_splitmix64(&s) % 1100 - 550) << 52);
        for (int op = 0; op < NOPS; op++)
            check(op, e, f), check(op, f, e);
        /* quotients and roots at or next to representable values, where the remainder alone decides the
         * sticky bit (UCBTEST's idea): exact quotients and roots (c of 21 significant bits: b c and c^2
         * exact), then a = fl(b c) and its neighbours divided by b, fl(c c) and its neighbours under the
         * root */
        const double bb = t_from_bits((t_splitmix64(&s) & 0x000FFFFFFFFFFFFFull) | ((0x3FFull + t_splitmix64(&s) % 400 - 200) << 52));
        const double cc = t_from_bits((t_splitmix64(&s) & 0x000FFFFFFFFFFFFFull) | ((0x3FFull + t_splitmix64(&s) % 400 - 200) << 52));
        const double short_c = t_from_bits(t_bits_of(cc) & ~0xFFFFFFFFull); /* 21 significant bits: b c exact, as is c^2 */
        check(OP_DIV, t_bits_of(bb * short_c), t_bits_of(bb));
        check(OP_SQRT, t_bits_of(short_c * short_c), 0);
        const uint64_t prod = t_bits_of(bb * cc), sq = t_bits_of(cc * cc);
        for (int d = -1; d <= 1; d++) {
            check(OP_DIV, prod + (uint64_t)(int64_t)d, t_bits_of(bb));
            check(OP_SQRT, sq + (uint64_t)(int64_t)d, 0);
        }
    }
    for (int op = 0; op < NOPS; op++)
        if (nfail[op])
            fail_msg("%s: %llu of %lld random cases differ from the host", op_name[op], (unsigned long long)nfail[op],
                     8 * cases);
}

/* The special values and the rules of the header, spelled out. */
static void test_specials(void **state)
{
    (void)state;
    const uint64_t pinf = 0x7FF0000000000000ull, ninf = pinf | (1ull << 63), snan = 0x7FF0000000000123ull,
                   qnan = 0xFFF8000000000456ull, dnan = 0xFFF8000000000000ull, one = 0x3FF0000000000000ull,
                   pz = 0, nz = 1ull << 63;
    assert_true(raidF64Add(pinf, ninf) == dnan);
    assert_true(raidF64Sub(pinf, pinf) == dnan);
    assert_true(raidF64Mul(pz, ninf) == dnan);
    assert_true(raidF64Div(pz, nz) == dnan);
    assert_true(raidF64Div(ninf, pinf) == dnan);
    assert_true(raidF64Sqrt(ninf) == dnan);
    assert_true(raidF64Sqrt(one | (1ull << 63)) == dnan);
    assert_true(raidF64Sqrt(nz) == nz);
    assert_true(raidF64Add(nz, nz) == nz);
    assert_true(raidF64Add(nz, pz) == pz);
    assert_true(raidF64Sub(one, one) == pz);
    assert_true(raidF64Div(one, nz) == ninf);
    /* the first NaN operand, quiet, payload kept */
    assert_true(raidF64Add(snan, qnan) == (snan | (1ull << 51)));
    assert_true(raidF64Add(qnan, snan) == qnan);
    assert_true(raidF64Mul(one, snan) == (snan | (1ull << 51)));
    assert_true(raidF64Sub(one, qnan) == qnan); /* subtraction does not flip a NaN's sign */
    assert_true(raidF64Sqrt(snan) == (snan | (1ull << 51)));
    /* overflow to infinity, the largest finite when it rounds down, the smallest subnormal */
    const uint64_t big = 0x7FEFFFFFFFFFFFFFull;
    assert_true(raidF64Add(big, 0x7C90000000000000ull) == pinf);               /* + half an ulp (2^970): a tie, to even */
    assert_true(raidF64Add(big, 0x7C8FFFFFFFFFFFFFull) == big);                /* just below half an ulp */
    assert_true(raidF64Mul(0x0000000000000001ull, 0x3FE0000000000000ull) == 0); /* 2^-1075: a tie, to even 0 */
    assert_true(raidF64Mul(0x0000000000000001ull, 0x3FE0000000000001ull) == 1); /* just above: the smallest */
    for (int op = 0; op < NOPS; op++) {
        const uint64_t v[] = {pinf, ninf, snan, qnan, one, pz, nz, big, 1, 0x000FFFFFFFFFFFFFull, 0x0010000000000000ull};
        for (size_t i = 0; i < sizeof v / sizeof *v; i++)
            for (size_t j = 0; j < sizeof v / sizeof *v; j++)
                check(op, v[i], v[j]);
        if (nfail[op])
            fail_msg("%s: a special case differs from the host", op_name[op]);
    }
}

/* fma against the host's (glibc's fma: correctly rounded, in hardware or emulated). NaN results: NaN-ness
 * where two or three operands are NaNs (which one the host returns depends on its instruction's operand
 * order), the quiet NaN of the one NaN operand otherwise. */
static uint64_t nfma;
static void check_fma(uint64_t a, uint64_t b, uint64_t c)
{
    volatile double x = t_from_bits(a), y = t_from_bits(b), z = t_from_bits(c);
    const uint64_t h = t_bits_of(fma(x, y, z)), r = raidF64Fma(a, b, c);
    int ok = r == h;
    if (!ok && is_nan(h) && is_nan(r))
        ok = is_nan(a) + is_nan(b) + is_nan(c) >= 2;
    if (!ok && nfma++ < 8)
        print_error("fma(%016llx, %016llx, %016llx): raid %016llx (%.17g), host %016llx (%.17g)\n",
                    (unsigned long long)a, (unsigned long long)b, (unsigned long long)c, (unsigned long long)r,
                    t_from_bits(r), (unsigned long long)h, t_from_bits(h));
}

static void test_fma(void **state)
{
    (void)state;
    uint64_t *v = malloc(4096 * sizeof *v);
    assert_non_null(v);
    const size_t n = patterns(v);
    nfma = 0;
    /* patterned triples: every 7th pattern as the product's operands, every pattern as the addend */
    for (size_t i = 0; i < n; i += 7)
        for (size_t j = 3; j < n; j += 7)
            for (size_t k = 0; k < n; k++)
                check_fma(v[i], v[j], v[k]);
    const char *env = getenv("RAID_F64_CASES");
    const long long cases = env ? atoll(env) : 100000;
    uint64_t s = 77;
    for (long long i = 0; i < cases; i++) {
        check_fma(t_splitmix64(&s), t_splitmix64(&s), t_splitmix64(&s));
        /* the addend near minus the product: cancellation of up to all of the product's bits */
        const uint64_t a = t_splitmix64(&s) & 0x7FEFFFFFFFFFFFFFull, b = (t_splitmix64(&s) & 0x800FFFFFFFFFFFFFull) | (0x3FFull << 52);
        const double p = t_from_bits(a) * t_from_bits(b);
        const uint64_t c = t_bits_of(-p) ^ (t_splitmix64(&s) & 0xFFFFull);
        check_fma(a, b, c);
        /* products near the ends of the range, addends of any exponent */
        const uint64_t e = (t_splitmix64(&s) & 0x800FFFFFFFFFFFFFull) | ((t_splitmix64(&s) % 80) << 52);
        const uint64_t f = (t_splitmix64(&s) & 0x800FFFFFFFFFFFFFull) | ((0x3FFull + t_splitmix64(&s) % 200 - 100) << 52);
        check_fma(e, f, t_splitmix64(&s));
        check_fma(e, f, (t_splitmix64(&s) & 0x800FFFFFFFFFFFFFull) | ((t_splitmix64(&s) % 80) << 52));
    }
    free(v);
    if (nfma)
        fail_msg("fma: %llu cases differ from the host", (unsigned long long)nfma);
}

/* The bit operations: copysign, numpy's minimum and maximum, trunc, floor, ceil and rint against the host's
 * (libm's rounding functions; minimum and maximum as numpy's scalar loops define them). */
static void test_bit_ops(void **state)
{
    (void)state;
    uint64_t *v = malloc(8192 * sizeof *v);
    assert_non_null(v);
    size_t n = patterns(v);
    assert_true(n + 3000 <= 8192);
    uint64_t s = 5;
    for (int i = 0; i < 1000; i++) { /* values near integers and halves: the rounding functions' edges */
        const double d = (double)(int64_t)(t_splitmix64(&s) % 2000000) / 4.0 - 250000.0;
        v[n++] = t_bits_of(d), v[n++] = t_bits_of(d) + 1, v[n++] = t_bits_of(d) - 1;
    }
    uint64_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        volatile double x = t_from_bits(v[i]);
        const uint64_t want[4] = {t_bits_of(trunc(x)), t_bits_of(floor(x)), t_bits_of(ceil(x)), t_bits_of(rint(x))};
        for (int mode = 0; mode < 4; mode++) {
            const uint64_t r = raidF64RoundInt(v[i], mode);
            if (r != want[mode] && !(is_nan(r) && is_nan(want[mode])) && bad++ < 8)
                print_error("round mode %d of %016llx: %016llx, host %016llx\n", mode, (unsigned long long)v[i],
                            (unsigned long long)r, (unsigned long long)want[mode]);
        }
        for (size_t j = 0; j < n; j += 5) {
            volatile double y = t_from_bits(v[j]);
            const uint64_t mn = t_bits_of(isnan(x) ? x : (x < y ? x : y)), mx = t_bits_of(isnan(x) ? x : (x > y ? x : y));
            if ((raidF64Minimum(v[i], v[j]) != mn || raidF64Maximum(v[i], v[j]) != mx ||
                 raidF64Copysign(v[i], v[j]) != t_bits_of(copysign(x, y))) && bad++ < 8)
                print_error("min/max/copysign of %016llx, %016llx\n", (unsigned long long)v[i], (unsigned long long)v[j]);
        }
    }
    free(v);
    if (bad)
        fail_msg("%llu bit operations differ from the host", (unsigned long long)bad);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_specials),
        cmocka_unit_test(test_patterns),
        cmocka_unit_test(test_level2),
        cmocka_unit_test(test_random),
        cmocka_unit_test(test_fma),
        cmocka_unit_test(test_bit_ops),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
