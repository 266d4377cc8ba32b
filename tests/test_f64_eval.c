/*
 * include/raid/f64.h: raid_f64_map and compiled expressions (raid_f64_expr_compile, raid_f64_eval) on the
 * cpu backend against the host's double operators, and on the device (RAID_TEST_DEVICE; PoCL in CI) bit for
 * bit against the cpu backend; the compiler's refusals with the column of the fault; raid_f64_log_returns against
 * glibc's log1p and log, and on the device bit for bit.
 */
#include "support.h"
#include "raid.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* n values: ordinary magnitudes, the specials, subnormals, huge ones, random bit patterns. */
static double *values(size_t n, uint64_t seed)
{
    double *x = malloc(n * sizeof *x);
    assert_non_null(x);
    static const double sp[] = {0.0, -0.0, INFINITY, -INFINITY, NAN, 1.0, -1.0, 0x1p-1074, 0x1p-1022, 1.7976931348623157e308};
    for (size_t i = 0; i < n; i++) {
        const uint64_t r = t_splitmix64(&seed);
        switch (r % 8) {
        case 0: x[i] = sp[(r >> 8) % (sizeof sp / sizeof *sp)]; break;
        case 1: x[i] = t_from_bits(t_splitmix64(&seed)); break;
        case 2: x[i] = t_from_bits(t_splitmix64(&seed) & 0x800FFFFFFFFFFFFFull); break; /* subnormal */
        default: x[i] = ((double)(r >> 11) * 0x1p-53 - 0.5) * 100.0; break;
        }
    }
    return x;
}

/* Equal bits, or both NaN (which NaN a host operation returns with two NaN operands is its own). */
static int same(double a, double b) { return t_bits_of(a) == t_bits_of(b) || (isnan(a) && isnan(b)); }

static void test_map_cpu(void **state)
{
    (void)state;
    raid_ctx *cpu = t_open_ctx("cpu");
    enum { N = 20000 };
    double *a = values(N, 1), *b = values(N, 2), *o = malloc(N * sizeof *o);
    for (int op = RAID_F64_ADD; op <= RAID_F64_RINT; op++) {
        if (op == RAID_F64_FMA)
            continue;
        assert_int_equal(raid_f64_map(cpu, (raid_f64_op)op, a, b, o, N), RAID_OK);
        for (size_t i = 0; i < N; i++) {
            volatile double x = a[i], y = b[i];
            double h;
            switch (op) {
            case RAID_F64_ADD: h = x + y; break;
            case RAID_F64_SUB: h = x - y; break;
            case RAID_F64_MUL: h = x * y; break;
            case RAID_F64_DIV: h = x / y; break;
            case RAID_F64_SQRT: h = sqrt(x); break;
            case RAID_F64_NEG: h = t_from_bits(t_bits_of(x) ^ (1ull << 63)); break;
            case RAID_F64_ABS: h = t_from_bits(t_bits_of(x) & ~(1ull << 63)); break;
            case RAID_F64_MINIMUM: h = isnan(x) ? x : (x < y ? x : y); break; /* numpy's scalar loop */
            case RAID_F64_MAXIMUM: h = isnan(x) ? x : (x > y ? x : y); break;
            case RAID_F64_COPYSIGN: h = copysign(x, y); break;
            case RAID_F64_TRUNC: h = trunc(x); break;
            case RAID_F64_FLOOR: h = floor(x); break;
            case RAID_F64_CEIL: h = ceil(x); break;
            default: h = rint(x); break;
            }
            if (!same(o[i], h))
                fail_msg("op %d, element %zu: %a, host %a", op, i, o[i], h);
        }
    }
    /* in place */
    memcpy(o, a, N * sizeof *o);
    assert_int_equal(raid_f64_map(cpu, RAID_F64_MUL, o, b, o, N), RAID_OK);
    for (size_t i = 0; i < N; i++) {
        volatile double x = a[i], y = b[i];
        assert_true(same(o[i], x * y));
    }
    /* refusals */
    assert_int_equal(raid_f64_map(cpu, (raid_f64_op)99, a, b, o, N), RAID_EINVAL);
    assert_int_equal(raid_f64_map(cpu, RAID_F64_FMA, a, b, o, N), RAID_EINVAL);
    assert_non_null(strstr(raid_ctx_errmsg(cpu), "use an expression"));
    assert_int_equal(raid_f64_map(cpu, RAID_F64_ADD, a, NULL, o, N), RAID_EINVAL);
    assert_int_equal(raid_f64_map(cpu, RAID_F64_SQRT, a, NULL, o, N), RAID_OK);
    assert_int_equal(raid_f64_map(cpu, RAID_F64_ADD, NULL, NULL, NULL, 0), RAID_OK);
    free(a), free(b), free(o);
    raid_ctx_destroy(cpu);
}

static void test_compile_errors(void **state)
{
    (void)state;
    raid_ctx *cpu = t_open_ctx("cpu");
    const char *names[] = {"a", "b", "price_2"};
    raid_f64_expr *e = (raid_f64_expr *)1;
    const struct { const char *text, *msg; } bad[] = {
        {"a +", "column 4: expected a name, a number or '('"},
        {"a + c", "column 5: unknown name"},
        {"lgamma(a)", "column 1: unknown function 'lgamma'"},
        {"(a + b", "column 7: expected ')'"},
        {"a b", "column 3: expected an operator or the end"},
        {"sqrt(a", "column 7: expected ')'"},
        {"a * 1e", "column 5: not a number"},
        {"2x", "column 1: not a number"},
        {"1.5.2", "column 1: not a number"},
        {".", "column 1: not a number"},
        {"fma(a, b)", "column 9: expected ',' (fma takes three arguments)"},
        {"fma(a b, c)", "column 7: expected ','"},
        {"minimum(a)", "column 10: expected ','"},
        {"rint(a, b)", "column 7: expected ')'"},
        {"", "column 1: expected a name"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        assert_int_equal(raid_f64_expr_compile(cpu, bad[i].text, names, 3, &e), RAID_EINVAL);
        assert_null(e);
        if (!strstr(raid_ctx_errmsg(cpu), bad[i].msg))
            fail_msg("'%s': %s (expected %s)", bad[i].text, raid_ctx_errmsg(cpu), bad[i].msg);
    }
    const char *dup[] = {"a", "a"}, *fn[] = {"sqrt"}, *num[] = {"1x"};
    assert_int_equal(raid_f64_expr_compile(cpu, "a", dup, 2, &e), RAID_EINVAL);
    assert_int_equal(raid_f64_expr_compile(cpu, "a", fn, 1, &e), RAID_EINVAL);
    assert_int_equal(raid_f64_expr_compile(cpu, "a", num, 1, &e), RAID_EINVAL);
    assert_int_equal(raid_f64_expr_compile(cpu, "a", names, 0, &e), RAID_EINVAL);
    /* 64 nodes at most */
    char big[1024] = "a";
    for (int i = 0; i < 40; i++)
        strcat(big, " + a");
    assert_int_equal(raid_f64_expr_compile(cpu, big, names, 1, &e), RAID_EINVAL);
    assert_non_null(strstr(raid_ctx_errmsg(cpu), "more than 64"));
    raid_ctx_destroy(cpu);
}

/* The host's value of the test expression, operation by operation as written. */
#define EXPR "(a * b - 2.5) / sqrt(abs(price_2)) + -a * 1e-3 - (b - a) / (a + 0.1)"
static double host_expr(volatile double a, volatile double b, volatile double c)
{
    volatile double t1 = a * b, t2 = t1 - 2.5, t3 = sqrt(fabs(c)), t4 = t2 / t3, t5 = -a, t6 = t5 * 1e-3;
    volatile double t7 = t4 + t6, t8 = b - a, t9 = a + 0.1, t10 = t8 / t9;
    return t7 - t10;
}

static void test_eval(void **state)
{
    (void)state;
    raid_ctx *cpu = t_open_ctx("cpu");
    const char *names[] = {"a", "b", "price_2"};
    raid_f64_expr *e = NULL;
    assert_int_equal(raid_f64_expr_compile(cpu, EXPR, names, 3, &e), RAID_OK);
    enum { N = 100003 }; /* not a multiple of the work-group width */
    double *a = values(N, 3), *b = values(N, 4), *c = values(N, 5), *o = malloc(N * sizeof *o),
           *d = malloc(N * sizeof *d);
    const double *in[] = {a, b, c};
    assert_int_equal(raid_f64_eval(cpu, e, in, N, o), RAID_OK);
    for (size_t i = 0; i < N; i++)
        if (!same(o[i], host_expr(a[i], b[i], c[i])))
            fail_msg("element %zu: %a, host %a", i, o[i], host_expr(a[i], b[i], c[i]));
    /* fma, rounded once: the host's fma (glibc: correctly rounded) */
    raid_f64_expr *f = NULL;
    assert_int_equal(raid_f64_expr_compile(cpu, "fma(a, b, -price_2) - 1 + 0 * copysign(floor(a), minimum(b, 0))", names, 3, &f), RAID_OK);
    double *g = malloc(N * sizeof *g);
    assert_int_equal(raid_f64_eval(cpu, f, in, N, g), RAID_OK);
    for (size_t i = 0; i < N; i++) {
        volatile double x = a[i], y = b[i], z = -c[i];
        volatile double t = fma(x, y, z), t1 = t - 1, fl = floor(x), mn = isnan(y) ? y : (y < 0.0 ? y : 0.0);
        volatile double cs = copysign(fl, mn), t2 = 0 * cs;
        const double h = t1 + t2;
        if (!same(g[i], h) && !(isnan(g[i]) && isnan(h)))
            fail_msg("fma, element %zu: %a, host %a", i, g[i], h);
    }
    if (t_have_opencl()) { /* the device: the cpu backend's bits, NaNs included */
        raid_ctx *dev = t_open_ctx(t_device());
        assert_int_equal(raid_f64_eval(dev, f, in, N, d), RAID_OK);
        assert_memory_equal(g, d, N * sizeof *g);
        raid_ctx_destroy(dev);
    }
    raid_f64_expr_free(f);
    free(g);
    if (t_have_opencl()) { /* the device: the cpu backend's bits, NaNs included */
        raid_ctx *dev = t_open_ctx(t_device());
        assert_int_equal(raid_f64_eval(dev, e, in, N, d), RAID_OK);
        for (size_t i = 0; i < N; i++)
            if (t_bits_of(d[i]) != t_bits_of(o[i]))
                fail_msg("device, element %zu: %016llx, cpu %016llx", i, (unsigned long long)t_bits_of(d[i]),
                         (unsigned long long)t_bits_of(o[i]));
        for (int op = RAID_F64_ADD; op <= RAID_F64_RINT; op++) {
            if (op == RAID_F64_FMA)
                continue;
            assert_int_equal(raid_f64_map(cpu, (raid_f64_op)op, a, b, o, N), RAID_OK);
            assert_int_equal(raid_f64_map(dev, (raid_f64_op)op, a, b, d, N), RAID_OK);
            assert_memory_equal(o, d, N * sizeof *o);
        }
        memcpy(d, a, N * sizeof *d); /* in place on the device path */
        assert_int_equal(raid_f64_map(dev, RAID_F64_DIV, d, b, d, N), RAID_OK);
        assert_int_equal(raid_f64_map(cpu, RAID_F64_DIV, a, b, o, N), RAID_OK);
        assert_memory_equal(o, d, N * sizeof *o);
        raid_ctx_destroy(dev);
    }
    assert_int_equal(raid_f64_eval(cpu, NULL, in, N, o), RAID_EINVAL);
    const double *missing[] = {a, NULL, c};
    assert_int_equal(raid_f64_eval(cpu, e, missing, N, o), RAID_EINVAL);
    raid_f64_expr_free(e);
    free(a), free(b), free(c), free(o), free(d);
    raid_ctx_destroy(cpu);
}

/* raid_f64_compare against C's comparison operators and classification macros, on the cpu and (bit for bit)
 * on the device. */
static void test_compare(void **state)
{
    (void)state;
    raid_ctx *cpu = t_open_ctx("cpu");
    enum { N = 50001 };
    double *a = values(N, 8), *b = values(N, 9);
    for (size_t i = 0; i < N; i += 7)
        b[i] = a[i]; /* equal pairs, -0 against +0 among them */
    for (size_t i = 3; i < N; i += 11)
        b[i] = -a[i];
    unsigned char *m = malloc(N), *d = malloc(N);
    raid_ctx *dev = t_have_opencl() ? t_open_ctx(t_device()) : NULL;
    for (int c = RAID_F64_EQ; c <= RAID_F64_ISFINITE; c++) {
        assert_int_equal(raid_f64_compare(cpu, (raid_f64_cmp)c, a, b, m, N), RAID_OK);
        for (size_t i = 0; i < N; i++) {
            volatile double x = a[i], y = b[i];
            int h;
            switch (c) {
            case RAID_F64_EQ: h = x == y; break;
            case RAID_F64_NE: h = x != y; break;
            case RAID_F64_LT: h = x < y; break;
            case RAID_F64_LE: h = x <= y; break;
            case RAID_F64_GT: h = x > y; break;
            case RAID_F64_GE: h = x >= y; break;
            case RAID_F64_ISNAN: h = isnan(x) != 0; break;
            case RAID_F64_ISINF: h = isinf(x) != 0; break;
            default: h = isfinite(x) != 0; break;
            }
            if (m[i] != h)
                fail_msg("predicate %d, element %zu (%a, %a): %d, host %d", c, i, a[i], b[i], m[i], h);
        }
        if (dev) {
            assert_int_equal(raid_f64_compare(dev, (raid_f64_cmp)c, a, c <= RAID_F64_GE ? b : NULL, d, N), RAID_OK);
            assert_memory_equal(m, d, N);
        }
    }
    assert_int_equal(raid_f64_compare(cpu, (raid_f64_cmp)0, a, b, m, N), RAID_EINVAL);
    assert_int_equal(raid_f64_compare(cpu, RAID_F64_LT, a, NULL, m, N), RAID_EINVAL);
    assert_int_equal(raid_f64_compare(cpu, RAID_F64_ISNAN, a, NULL, m, N), RAID_OK);
    if (dev)
        raid_ctx_destroy(dev);
    free(a), free(b), free(m), free(d);
    raid_ctx_destroy(cpu);
}

/* Prices for the log returns: random walks with steps of every size (ticks of 1e-4, moves of a few percent,
 * jumps across the [0.5, 2] boundary of the formula and beyond 1e100), the boundary ratios 2 and 1/2 and
 * their neighbours, equal prices, and magnitudes from subnormal to near overflow. */
static double *walk(size_t n, uint64_t seed)
{
    double *p = malloc(n * sizeof *p);
    assert_non_null(p);
    p[0] = 100.0;
    for (size_t i = 1; i < n; i++) {
        const uint64_t r = t_splitmix64(&seed);
        const double u = (double)(r >> 11) * 0x1p-53 - 0.5, prev = p[i - 1];
        double v;
        switch (r % 10) {
        case 0: v = prev * 2.0; break;
        case 1: v = prev * 0.5; break;
        case 2: v = nextafter(prev * ((r >> 4) & 1 ? 2.0 : 0.5), (r >> 5) & 1 ? INFINITY : 0.0); break;
        case 3: v = prev; break;
        case 4: v = prev * exp(u * 200.0); break; /* far: the difference of the logarithms */
        case 5: v = t_from_bits((t_splitmix64(&seed) >> 1) | 1); break; /* any positive finite, subnormal too */
        case 6: v = prev * (1.0 + u * 0.1); break;
        default: v = prev * (1.0 + u * 1e-4); break;
        }
        if (!(v > 0) || !isfinite(v))
            v = 1.0;
        p[i] = v;
    }
    return p;
}

/* raid_f64_log_returns: on the cpu against the same formula with glibc's log1p and log (correctly rounded
 * here, glibc within an ulp: at most 1 ulp apart in the log1p branch; in the other one each logarithm may
 * differ by an ulp of itself), on the device bit for bit against the cpu, with the refusals of a bad price
 * naming its index on both. */
static void test_log_returns(void **state)
{
    (void)state;
    raid_ctx *cpu = t_open_ctx("cpu");
    enum { N = 40001 };
    double *p = walk(N, 11), *o = malloc(N * sizeof *o), *d = malloc(N * sizeof *d);
    assert_int_equal(raid_f64_log_returns(cpu, p, N, o), RAID_OK);
    size_t ndiff = 0;
    for (size_t i = 0; i + 1 < N; i++) {
        const double prev = p[i], x = p[i + 1], q = (x - prev) / prev;
        const int near = isfinite(q) && q >= -0.5 && q <= 1;
        const double h = near ? log1p(q) : log(x) - log(prev);
        const double tol = near ? fabs(nextafter(h, INFINITY) - h)
                                : fabs(nextafter(log(x), INFINITY) - log(x)) + fabs(nextafter(log(prev), INFINITY) - log(prev));
        if (!(fabs(o[i] - h) <= tol))
            fail_msg("return %zu (%a -> %a): %a, glibc's formula %a", i, prev, x, o[i], h);
        ndiff += o[i] != h;
    }
    print_message("log returns: %zu of %d differ from glibc's formula in their last bits\n", ndiff, N - 1);
    assert_int_equal(raid_f64_log_returns(cpu, p, 1, o), RAID_OK); /* fewer than two prices: nothing */
    assert_int_equal(raid_f64_log_returns(cpu, NULL, 0, NULL), RAID_OK);
    assert_int_equal(raid_f64_log_returns(cpu, NULL, 2, o), RAID_EINVAL);
    assert_int_equal(raid_f64_log_returns(cpu, p, N, p + 1), RAID_EINVAL); /* overlapping */
    raid_ctx *dev = t_have_opencl() ? t_open_ctx(t_device()) : NULL;
    if (dev) {
        assert_int_equal(raid_f64_log_returns(dev, p, N, d), RAID_OK);
        for (size_t i = 0; i + 1 < N; i++)
            if (t_bits_of(d[i]) != t_bits_of(o[i]))
                fail_msg("device, return %zu (%a -> %a): %a, cpu %a", i, p[i], p[i + 1], d[i], o[i]);
    }
    static const double bad[] = {0.0, -0.0, -1.0, INFINITY, -INFINITY, NAN};
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        raid_ctx *ctxs[2] = {cpu, dev};
        for (int c = 0; c < 2 && ctxs[c]; c++) {
            const size_t at = 1000 + 7 * k, later = at + 50;
            const double keep = p[at], keep2 = p[later];
            p[at] = bad[k];
            p[later] = -5.0; /* the first bad index is named */
            assert_int_equal(raid_f64_log_returns(ctxs[c], p, N, d), RAID_EINVAL);
            char want[96];
            snprintf(want, sizeof want, "raid_f64_log_returns: prices[%zu] = %.17g is not positive and finite", at, bad[k]);
            assert_string_equal(raid_ctx_errmsg(ctxs[c]), want);
            p[at] = keep;
            p[later] = keep2;
        }
    }
    if (dev) {
        const double two[2] = {1.0, 0.0};
        assert_int_equal(raid_f64_log_returns(dev, two, 2, d), RAID_EINVAL); /* the last price is checked too */
        assert_string_equal(raid_ctx_errmsg(dev), "raid_f64_log_returns: prices[1] = 0 is not positive and finite");
        raid_ctx_destroy(dev);
    }
    const double two[2] = {1.0, 0.0};
    assert_int_equal(raid_f64_log_returns(cpu, two, 2, d), RAID_EINVAL);
    free(p), free(o), free(d);
    raid_ctx_destroy(cpu);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_compare),
        cmocka_unit_test(test_map_cpu),
        cmocka_unit_test(test_compile_errors),
        cmocka_unit_test(test_eval),
        cmocka_unit_test(test_log_returns),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
