/* Benchmark of the element-wise binary64 arithmetic (include/raid/f64.h): on N float64 (standard normal
 * draws, bench_common.h; the divisors and square roots' operands are made positive and away from zero) each
 * of add, mul, div, sqrt, fma, the expression (a - b) / sqrt(abs(c)), the logarithms (of the positive c), the
 * exponential family, the trigonometric functions and pow (c^a, a^3) on --device: the best wall time of
 * --reps calls (the first call builds the kernel: a warm-up call precedes the timed ones; the wall time
 * includes the host arrays' trips to the device and back) and the best device kernel time (the call's
 * kernels, profiling events, raid_ctx_last_timing: the figure to set beside a native float64 kernel on
 * device-resident data, e.g. CuPy's, bench/peers_f64_cupy.py), with the bytes the kernel reads and writes
 * per second; --check compares every device result with the cpu path's bit for bit. Public API only.
 *
 *   bench_f64 [--n N] [--device D] [--reps R] [--check]
 *
 * Prints one line per operation: op, n, device, best wall seconds, best kernel seconds, GB/s of the
 * kernel's memory traffic (8 bytes per input and output element), and with --check the verdict. */
#define _POSIX_C_SOURCE 200809L
#include "raid.h"

#include "bench_common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int die(raid_ctx *ctx, const char *what)
{
    fprintf(stderr, "bench_f64: %s: %s\n", what, ctx ? raid_ctx_errmsg(ctx) : raid_errmsg());
    return 1;
}

typedef struct op {
    const char *name, *expr; /* an expression over a, b, c */
    int nin;                 /* inputs it reads */
} op;

static const op OPS[] = {
    {"add", "a + b", 2}, {"mul", "a * b", 2}, {"div", "a / c", 2}, {"sqrt", "sqrt(c)", 1},
    {"fma", "fma(a, b, c)", 3}, {"(a-b)/sqrt(|c|)", "(a - b) / sqrt(abs(c))", 3},
    {"asin", "asin(a / (abs(a) + 1))", 1}, {"acos", "acos(a / (abs(a) + 1))", 1}, {"atan", "atan(a)", 1},
    {"atan2", "atan2(a, b)", 2},
    {"log", "log(c)", 1}, {"log2", "log2(c)", 1}, {"log10", "log10(c)", 1}, {"log1p", "log1p(c)", 1},
    /* the exponential family on a (standard normal: the table path, no special case) */
    {"exp", "exp(a)", 1}, {"exp2", "exp2(a)", 1}, {"exp10", "exp10(a)", 1}, {"expm1", "expm1(a)", 1},
    {"sinh", "sinh(a)", 1}, {"cosh", "cosh(a)", 1}, {"tanh", "tanh(a)", 1},
    {"sin", "sin(a)", 1}, {"cos", "cos(a)", 1}, {"tan", "tan(a)", 1}, /* a ~ N(0, 1): mostly |a| < 1/2 */
    {"sin(1e6 c)", "sin(1000000 * c)", 1}, /* large arguments: the Payne-Hanek path */
    {"pow", "pow(c, a)", 2},        /* c = 0.5 + |N(0, 1)|, a ~ N(0, 1): the wide path */
    {"pow(a, 3)", "pow(a, 3)", 1},  /* bases of either sign, an odd integer power */
};

int main(int argc, char **argv)
{
    size_t n = 50000000;
    int reps = 5, check = 0;
    const char *device = "auto";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--n") && i + 1 < argc)
            n = (size_t)strtod(argv[++i], NULL);
        else if (!strcmp(argv[i], "--device") && i + 1 < argc)
            device = argv[++i];
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--check"))
            check = 1;
        else {
            fprintf(stderr, "usage: bench_f64 [--n N] [--device D] [--reps R] [--check]\n");
            return 2;
        }
    }
    if (n == 0 || reps < 1) {
        fprintf(stderr, "bench_f64: --n and --reps must be positive\n");
        return 2;
    }
    double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c),
           *o = malloc(n * sizeof *o), *ref = check ? malloc(n * sizeof *ref) : NULL;
    if (!a || !b || !c || !o || (check && !ref)) {
        fprintf(stderr, "bench_f64: out of memory\n");
        return 1;
    }
#pragma omp parallel for schedule(static)
    for (long long i = 0; i < (long long)n; i++) {
        a[i] = bench_gauss((uint64_t)i, 1);
        b[i] = bench_gauss((uint64_t)i, 2);
        c[i] = 0.5 + fabs(bench_gauss((uint64_t)i, 3)); /* positive, away from zero */
    }
    raid_ctx *dev = NULL, *cpu = NULL;
    if (raid_ctx_create(&dev, device) != RAID_OK)
        return die(NULL, "raid_ctx_create");
    if (check && raid_ctx_create(&cpu, "cpu") != RAID_OK)
        return die(NULL, "raid_ctx_create(cpu)");
    const char *names[] = {"a", "b", "c"};
    const double *in[] = {a, b, c};
    int bad = 0;
    for (size_t k = 0; k < sizeof OPS / sizeof *OPS; k++) {
        raid_f64_expr *e = NULL;
        if (raid_f64_expr_compile(dev, OPS[k].expr, names, 3, &e) != RAID_OK)
            return die(dev, OPS[k].expr);
        double best_wall = INFINITY, best_kernel = INFINITY;
        for (int r = -1; r < reps; r++) { /* r = -1: the warm-up (kernel build) */
            const double t0 = bench_now();
            if (raid_f64_eval(dev, e, in, n, o) != RAID_OK)
                return die(dev, OPS[k].name);
            const double w = bench_now() - t0;
            raid_timing tm;
            raid_ctx_last_timing(dev, &tm);
            if (r >= 0) {
                best_wall = w < best_wall ? w : best_wall;
                best_kernel = tm.kernel_s > 0 && tm.kernel_s < best_kernel ? tm.kernel_s : best_kernel;
            }
        }
        const char *verdict = "";
        if (check) {
            if (raid_f64_eval(cpu, e, in, n, ref) != RAID_OK)
                return die(cpu, OPS[k].name);
            const int same = !memcmp(o, ref, n * sizeof *o);
            verdict = same ? " check=bitwise-equal" : " check=DIFFERS";
            bad |= !same;
        }
        const double bytes = 8.0 * (double)n * (OPS[k].nin + 1);
        printf("op=%s n=%zu device=%s wall_s=%.6f kernel_s=%.6f kernel_GBps=%.1f%s\n", OPS[k].name, n, device,
               best_wall, best_kernel, isfinite(best_kernel) ? bytes / best_kernel / 1e9 : 0.0, verdict);
        fflush(stdout);
        raid_f64_expr_free(e);
    }
    raid_ctx_destroy(dev);
    if (cpu)
        raid_ctx_destroy(cpu);
    free(a), free(b), free(c), free(o), free(ref);
    return bad;
}
