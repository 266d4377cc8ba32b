/* Benchmark of the element-wise binary64 arithmetic (include/raid/f64.h): on N float64 (standard normal
 * draws, bench_common.h; the divisors and square roots' operands are made positive and away from zero) each
 * of add, mul, div, sqrt, fma, the expression (a - b) / sqrt(abs(c)), the logarithms (of the positive c), the
 * exponential family, the trigonometric functions and pow (c^a, a^3) on --device: the best wall time of
 * --reps calls (the first call builds the kernel: a warm-up call precedes the timed ones; the wall time
 * includes the host arrays' trips to the device and back) and the best device kernel time (the call's
 * kernels, profiling events, raid_ctx_last_timing: the figure to set beside a native float64 kernel on
 * device-resident data, e.g. CuPy's, bench/peers_f64_cupy.py), with the bytes the kernel reads and writes
 * per second; --check compares every device result with the cpu path's bit for bit. --libm also times the
 * same expression with the host's C operators and libm (glibc) in one thread, best of --reps, beside the
 * call's wall time: with --device cpu and OMP_NUM_THREADS=1, the cpu path's throughput per core against
 * glibc's. Public API only.
 *
 *   bench_f64 [--n N] [--device D] [--reps R] [--check] [--libm]
 *
 * Prints one line per operation: op, n, device, best wall seconds, best kernel seconds, GB/s of the
 * kernel's memory traffic (8 bytes per input and output element), with --check the verdict, and with
 * --libm libm_s and both per element in ns. */
#define _GNU_SOURCE /* exp10 */
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
    const char *name, *expr;              /* an expression over a, b, c */
    int nin;                              /* inputs it reads */
    double (*libm)(double, double, double); /* the same with C's operators and libm */
} op;

#define LIBM(name, body) \
    static double name(double a, double b, double c) { (void)a, (void)b, (void)c; return body; }
LIBM(l_add, a + b) LIBM(l_mul, a * b) LIBM(l_div, a / c) LIBM(l_sqrt, sqrt(c)) LIBM(l_fma, fma(a, b, c))
LIBM(l_expr, (a - b) / sqrt(fabs(c))) LIBM(l_asin, asin(a / (fabs(a) + 1))) LIBM(l_acos, acos(a / (fabs(a) + 1)))
LIBM(l_atan, atan(a)) LIBM(l_atan2, atan2(a, b)) LIBM(l_log, log(c)) LIBM(l_log2, log2(c)) LIBM(l_log10, log10(c))
LIBM(l_log1p, log1p(c)) LIBM(l_exp, exp(a)) LIBM(l_exp2, exp2(a)) LIBM(l_exp10, exp10(a)) LIBM(l_expm1, expm1(a))
LIBM(l_sinh, sinh(a)) LIBM(l_cosh, cosh(a)) LIBM(l_tanh, tanh(a)) LIBM(l_sin, sin(a)) LIBM(l_cos, cos(a))
LIBM(l_tan, tan(a)) LIBM(l_sin6, sin(1000000 * c)) LIBM(l_pow, pow(c, a)) LIBM(l_pow3, pow(a, 3))

static const op OPS[] = {
    {"add", "a + b", 2, l_add}, {"mul", "a * b", 2, l_mul}, {"div", "a / c", 2, l_div}, {"sqrt", "sqrt(c)", 1, l_sqrt},
    {"fma", "fma(a, b, c)", 3, l_fma}, {"(a-b)/sqrt(|c|)", "(a - b) / sqrt(abs(c))", 3, l_expr},
    {"asin", "asin(a / (abs(a) + 1))", 1, l_asin}, {"acos", "acos(a / (abs(a) + 1))", 1, l_acos}, {"atan", "atan(a)", 1, l_atan},
    {"atan2", "atan2(a, b)", 2, l_atan2},
    {"log", "log(c)", 1, l_log}, {"log2", "log2(c)", 1, l_log2}, {"log10", "log10(c)", 1, l_log10}, {"log1p", "log1p(c)", 1, l_log1p},
    /* the exponential family on a (standard normal: the table path, no special case) */
    {"exp", "exp(a)", 1, l_exp}, {"exp2", "exp2(a)", 1, l_exp2}, {"exp10", "exp10(a)", 1, l_exp10}, {"expm1", "expm1(a)", 1, l_expm1},
    {"sinh", "sinh(a)", 1, l_sinh}, {"cosh", "cosh(a)", 1, l_cosh}, {"tanh", "tanh(a)", 1, l_tanh},
    {"sin", "sin(a)", 1, l_sin}, {"cos", "cos(a)", 1, l_cos}, {"tan", "tan(a)", 1, l_tan}, /* a ~ N(0, 1): mostly |a| < 1/2 */
    {"sin(1e6 c)", "sin(1000000 * c)", 1, l_sin6}, /* large arguments: the Payne-Hanek path */
    {"pow", "pow(c, a)", 2, l_pow},        /* c = 0.5 + |N(0, 1)|, a ~ N(0, 1): the wide path */
    {"pow(a, 3)", "pow(a, 3)", 1, l_pow3},  /* bases of either sign, an odd integer power */
};

int main(int argc, char **argv)
{
    size_t n = 50000000;
    int reps = 5, check = 0, libm = 0;
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
        else if (!strcmp(argv[i], "--libm"))
            libm = 1;
        else {
            fprintf(stderr, "usage: bench_f64 [--n N] [--device D] [--reps R] [--check] [--libm]\n");
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
        char lm[128] = "";
        if (libm) { /* one thread, the same inputs, best of reps */
            double best = INFINITY;
            for (int r = 0; r < reps; r++) {
                const double t0 = bench_now();
                for (size_t i = 0; i < n; i++)
                    o[i] = OPS[k].libm(a[i], b[i], c[i]);
                const double w = bench_now() - t0;
                best = w < best ? w : best;
            }
            snprintf(lm, sizeof lm, " libm_s=%.6f ns_per_value=%.2f libm_ns_per_value=%.2f", best,
                     best_wall / (double)n * 1e9, best / (double)n * 1e9);
        }
        const double bytes = 8.0 * (double)n * (OPS[k].nin + 1);
        printf("op=%s n=%zu device=%s wall_s=%.6f kernel_s=%.6f kernel_GBps=%.1f%s%s\n", OPS[k].name, n, device,
               best_wall, best_kernel, isfinite(best_kernel) ? bytes / best_kernel / 1e9 : 0.0, verdict, lm);
        fflush(stdout);
        raid_f64_expr_free(e);
    }
    raid_ctx_destroy(dev);
    if (cpu)
        raid_ctx_destroy(cpu);
    free(a), free(b), free(c), free(o), free(ref);
    return bad;
}
