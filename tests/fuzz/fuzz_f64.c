/* Fuzz target `f64`: the binary64 arithmetic on integer words (kernels/raid_f64.h) against the host's IEEE
 * double operators, and the expression compiler of include/raid/f64.h (src/f64/f64.c).
 *
 * Input: 1 option byte, then the payload.
 *   0     mode (bit 0): 0 arithmetic, 1 an expression.
 *   arithmetic: the payload's first 24 bytes (zeros past its end) are three float64 a, b, c; every operation
 *     (+ - * / sqrt fma, the rounding functions, minimum, maximum, copysign, the comparisons) must give the
 *     host's bits (a NaN result: NaN-ness where two operands are NaNs, tests/test_f64.c's rule); every
 *     elementary function of kernels/raid_f64_*.h must be a NaN where the host's long double function is
 *     and within 1 ulp of its value rounded to double otherwise (glibc's long double functions are far more
 *     accurate than 1 ulp of binary64; its double ones are not, near multiples of pi/2 by hundreds of ulps).
 *   expression: the payload is the text over the names a, b, c. Compiling it either succeeds, and then it
 *     evaluates on the cpu backend over four rows of special values, or fails with RAID_EINVAL and a
 *     message naming a column inside the text (1 to its length + 1).
 * Checks: as above; no crash, leak or undefined behaviour (ASan+UBSan). */
#include "fuzz_common.h"

#include "raid.h"
#include "raid_f64.h"
#include "raid_f64_atrig.h"
#include "raid_f64_exp.h"
#include "raid_f64_log.h"
#include "raid_f64_pow.h"
#include "raid_f64_trig.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

FZ_JOB_INITIALIZE()

static double d_of(uint64_t u)
{
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

static uint64_t u_of(double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}

static int nan64(uint64_t x) { return (x & ~RAID_F64_SIGN) > RAID_F64_INF; }

/* r against the host's h for an operation of nops operands (two NaN operands: NaN-ness only). */
static void same(const char *op, uint64_t r, uint64_t h, uint64_t a, uint64_t b, uint64_t c, int nops)
{
    if (r == h)
        return;
    const int nn = nan64(a) + (nops > 1 && nan64(b)) + (nops > 2 && nan64(c));
    FZ_CHECK(nan64(r) && nan64(h) && nn >= 2, "%s(%016llx, %016llx, %016llx): %016llx, the host %016llx", op,
             (unsigned long long)a, (unsigned long long)b, (unsigned long long)c, (unsigned long long)r,
             (unsigned long long)h);
}

/* The distance in binary64 steps between a and b (neither a NaN). */
static uint64_t ulps(uint64_t a, uint64_t b)
{
    const int64_t ka = (int64_t)(a >> 63 ? ~(a & ~RAID_F64_SIGN) + 1 : a);
    const int64_t kb = (int64_t)(b >> 63 ? ~(b & ~RAID_F64_SIGN) + 1 : b);
    return ka > kb ? (uint64_t)(ka - kb) : (uint64_t)(kb - ka);
}

/* An elementary function's r against the host's long double h rounded to double: NaN where h is, else
 * within 1 ulp. */
static void near(const char *fn, uint64_t r, long double h, uint64_t a, uint64_t b)
{
    const uint64_t hb = u_of((double)h);
    if (nan64(hb) || nan64(r)) {
        FZ_CHECK(nan64(hb) == nan64(r), "%s(%016llx, %016llx): %016llx, the host %016llx", fn, (unsigned long long)a,
                 (unsigned long long)b, (unsigned long long)r, (unsigned long long)hb);
        return;
    }
    FZ_CHECK(ulps(r, hb) <= 1, "%s(%016llx, %016llx): %016llx, the host's long double %016llx", fn,
             (unsigned long long)a, (unsigned long long)b, (unsigned long long)r, (unsigned long long)hb);
}

static void functions(uint64_t a, uint64_t b)
{
    const long double x = d_of(a), y = d_of(b);
    near("log", raidF64Log(a), logl(x), a, b);
    near("log2", raidF64Log2(a), log2l(x), a, b);
    near("log10", raidF64Log10(a), log10l(x), a, b);
    near("log1p", raidF64Log1p(a), log1pl(x), a, b);
    near("exp", raidF64Exp(a), expl(x), a, b);
    near("exp2", raidF64Exp2(a), exp2l(x), a, b);
    near("exp10", raidF64Exp10(a), powl(10.0L, x), a, b);
    near("expm1", raidF64Expm1(a), expm1l(x), a, b);
    near("sinh", raidF64Sinh(a), sinhl(x), a, b);
    near("cosh", raidF64Cosh(a), coshl(x), a, b);
    near("tanh", raidF64Tanh(a), tanhl(x), a, b);
    near("sin", raidF64Sin(a), sinl(x), a, b);
    near("cos", raidF64Cos(a), cosl(x), a, b);
    near("tan", raidF64Tan(a), tanl(x), a, b);
    near("asin", raidF64Asin(a), asinl(x), a, b);
    near("acos", raidF64Acos(a), acosl(x), a, b);
    near("atan", raidF64Atan(a), atanl(x), a, b);
    near("atan2", raidF64Atan2(a, b), atan2l(x, y), a, b);
    /* pow(x, +-0) and pow(+1, y) are 1 for any NaN (C99 F.9.4.4, numpy); glibc gives a NaN for a signaling one */
    near("pow", raidF64Pow(a, b), (b & ~RAID_F64_SIGN) == 0 || a == 0x3FF0000000000000ull ? 1.0L : powl(x, y), a, b);
}

static void arithmetic(const uint8_t *p, size_t n)
{
    uint8_t w[24] = {0};
    memcpy(w, p, n < 24 ? n : 24);
    uint64_t a, b, c;
    memcpy(&a, w, 8), memcpy(&b, w + 8, 8), memcpy(&c, w + 16, 8);
    volatile double x = d_of(a), y = d_of(b), z = d_of(c);
    same("add", raidF64Add(a, b), u_of(x + y), a, b, c, 2);
    same("sub", raidF64Sub(a, b), u_of(x - y), a, b, c, 2);
    same("mul", raidF64Mul(a, b), u_of(x * y), a, b, c, 2);
    same("div", raidF64Div(a, b), u_of(x / y), a, b, c, 2);
    same("sqrt", raidF64Sqrt(a), u_of(sqrt(x)), a, b, c, 1);
    same("fma", raidF64Fma(a, b, c), u_of(fma(x, y, z)), a, b, c, 3);
    same("trunc", raidF64Trunc(a), u_of(trunc(x)), a, b, c, 1);
    same("floor", raidF64Floor(a), u_of(floor(x)), a, b, c, 1);
    same("ceil", raidF64Ceil(a), u_of(ceil(x)), a, b, c, 1);
    same("rint", raidF64Rint(a), u_of(rint(x)), a, b, c, 1);
    same("copysign", raidF64Copysign(a, b), u_of(copysign(x, y)), a, b, c, 2);
    same("minimum", raidF64Minimum(a, b), u_of(isnan(x) ? x : (x < y ? x : y)), a, b, c, 2);
    same("maximum", raidF64Maximum(a, b), u_of(isnan(x) ? x : (x > y ? x : y)), a, b, c, 2);
    const int want[10] = {0, x == y, x != y, x < y, x <= y, x > y, x >= y, isnan(x) != 0, isinf(x) != 0,
                          isfinite(x) != 0};
    for (int k = 1; k <= 9; k++)
        FZ_CHECK(raidF64Compare(a, b, k) == want[k], "compare %d (%016llx, %016llx): %d, the host %d", k,
                 (unsigned long long)a, (unsigned long long)b, raidF64Compare(a, b, k), want[k]);
    functions(a, b);
}

static void expression(const uint8_t *p, size_t n)
{
    char *text = malloc(n + 1);
    FZ_CHECK(text != NULL, "out of memory");
    memcpy(text, p, n);
    text[n] = 0;
    const size_t len = strlen(text); /* up to a NUL of the input */
    const char *names[] = {"a", "b", "c"};
    raid_ctx *ctx = fz_cpu();
    raid_f64_expr *e = NULL;
    const raid_status st = raid_f64_expr_compile(ctx, text, names, 3, &e);
    if (st != RAID_OK) {
        FZ_CHECK(st == RAID_EINVAL && e == NULL, "'%s': status %d", text, (int)st);
        const char *m = raid_ctx_errmsg(ctx);
        unsigned long col = 0;
        FZ_CHECK(sscanf(m, "raid_f64_expr_compile: column %lu:", &col) == 1 && col >= 1 && col <= len + 1,
                 "'%s': the message '%s' names no column of the text", text, m);
    } else {
        static const double av[] = {1.5, -0.0, INFINITY, NAN}, bv[] = {-2.0, 0x1p-1074, 0.0, 3.0},
                            cv[] = {1e308, -1e-308, -INFINITY, 7.0};
        const double *in[] = {av, bv, cv};
        double out[4];
        FZ_CHECK(raid_f64_eval(ctx, e, in, 4, out) == RAID_OK, "'%s': eval: %s", text, raid_ctx_errmsg(ctx));
        raid_f64_expr_free(e);
    }
    free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 4096)
        return -1;
    fz_in in = {data, size};
    const unsigned mode = fz_u8(&in) & 1;
    if (mode == 0)
        arithmetic(in.p, in.n);
    else
        expression(in.p, in.n);
    return 0;
}
