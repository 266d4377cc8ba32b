/*
 * The element-wise binary64 capability's internals (include/raid/f64.h): the compiled expression, shared by
 * the entry and cpu path (f64.c) and the device path (f64_device.c), and the table of backends.
 */
#ifndef RAID_F64_INTERNAL_H
#define RAID_F64_INTERNAL_H

#include "raid/f64.h"

#include <stdint.h>

#define RAID_F64_MAX_NODES 64 /* operations and constants of one expression */
#define RAID_F64_MAX_VARS 8   /* inputs of one expression */

/* Every operation of raid_f64_op, by its number of operands: X(op, name, function), where name is its name in
 * expressions ("" for an operator's: + - * /, unary -) and function the one of kernels/raid_f64*.h that
 * computes it, on the host (the cpu path calls it) and in the kernel (f64_device.c writes its name into the
 * kernel's source). A new operation is a line here, its enum value in raid/f64.h and its function. */
#define RAID_F64_OPS1(X)                                                                                          \
    X(RAID_F64_SQRT, "sqrt", raidF64Sqrt)                                                                         \
    X(RAID_F64_NEG, "", raidF64Neg)                                                                               \
    X(RAID_F64_ABS, "abs", raidF64Abs)                                                                            \
    X(RAID_F64_TRUNC, "trunc", raidF64Trunc)                                                                      \
    X(RAID_F64_FLOOR, "floor", raidF64Floor)                                                                      \
    X(RAID_F64_CEIL, "ceil", raidF64Ceil)                                                                         \
    X(RAID_F64_RINT, "rint", raidF64Rint)                                                                         \
    X(RAID_F64_EXP, "exp", raidF64Exp)                                                                            \
    X(RAID_F64_EXP2, "exp2", raidF64Exp2)                                                                         \
    X(RAID_F64_EXP10, "exp10", raidF64Exp10)                                                                      \
    X(RAID_F64_EXPM1, "expm1", raidF64Expm1)                                                                      \
    X(RAID_F64_SINH, "sinh", raidF64Sinh)                                                                         \
    X(RAID_F64_COSH, "cosh", raidF64Cosh)                                                                         \
    X(RAID_F64_TANH, "tanh", raidF64Tanh)                                                                         \
    X(RAID_F64_SIN, "sin", raidF64Sin)                                                                            \
    X(RAID_F64_COS, "cos", raidF64Cos)                                                                            \
    X(RAID_F64_TAN, "tan", raidF64Tan)                                                                            \
    X(RAID_F64_ASIN, "asin", raidF64Asin)                                                                         \
    X(RAID_F64_ACOS, "acos", raidF64Acos)                                                                         \
    X(RAID_F64_ATAN, "atan", raidF64Atan)                                                                         \
    X(RAID_F64_LOG, "log", raidF64Log)                                                                            \
    X(RAID_F64_LOG2, "log2", raidF64Log2)                                                                         \
    X(RAID_F64_LOG10, "log10", raidF64Log10)                                                                      \
    X(RAID_F64_LOG1P, "log1p", raidF64Log1p)                                                                      \
    /* (every line above ends with a backslash: a new one is added without touching the others) */
#define RAID_F64_OPS2(X)                                                                                          \
    X(RAID_F64_ADD, "", raidF64Add)                                                                               \
    X(RAID_F64_SUB, "", raidF64Sub)                                                                               \
    X(RAID_F64_MUL, "", raidF64Mul)                                                                               \
    X(RAID_F64_DIV, "", raidF64Div)                                                                               \
    X(RAID_F64_MINIMUM, "minimum", raidF64Minimum)                                                                \
    X(RAID_F64_MAXIMUM, "maximum", raidF64Maximum)                                                                \
    X(RAID_F64_COPYSIGN, "copysign", raidF64Copysign)                                                             \
    X(RAID_F64_ATAN2, "atan2", raidF64Atan2)                                                                      \
    X(RAID_F64_POW, "pow", raidF64Pow)                                                                            \
    /* (likewise) */
#define RAID_F64_OPS3(X) X(RAID_F64_FMA, "fma", raidF64Fma)
#define RAID_F64_NOPS 64 /* above every raid_f64_op: the size of tables indexed by operation */

/* An operation's name in expressions ("" for an operator), its number of operands (0: not an operation) and
 * its kernel function's name, indexed by raid_f64_op (f64.c). */
typedef struct RaidF64OpInfo {
    const char *name;
    int nargs;
    const char *function;
} RaidF64OpInfo;
extern const RaidF64OpInfo raidF64Ops[RAID_F64_NOPS];

/* A node: an input (RAID_F64N_VAR, var), a constant (RAID_F64N_CONST, bits) or an operation of
 * include/raid/f64.h (op, operands a, b and c: node indices, b < 0 for a unary one, c < 0 but for fma). */
enum { RAID_F64N_VAR = 100, RAID_F64N_CONST = 101 };
typedef struct RaidF64Node {
    int kind; /* RAID_F64N_VAR, RAID_F64N_CONST or a raid_f64_op */
    int a, b, c; /* operand nodes (operations) */
    int var;  /* input index (RAID_F64N_VAR) */
    uint64_t bits; /* the constant's binary64 bits (RAID_F64N_CONST) */
} RaidF64Node;

/* Nodes in evaluation order: every operand before its operation, the result last. */
struct raid_f64_expr {
    int nnodes, nvars;
    RaidF64Node node[RAID_F64_MAX_NODES];
};

/* out[i] = e(inputs[.][i]), i < n: the backends (RAID_BACKEND(raidF64Backends, ctx)); arguments validated by
 * raid_f64_eval. The cpu path evaluates the nodes with kernels/raid_f64.h on the host, the device path runs
 * the same operations in one generated kernel: the same bits. Errors: the device layer's; message on ctx. */
typedef struct RaidF64Backend {
    raid_status (*eval)(raid_ctx *ctx, const raid_f64_expr *e, const double *const *inputs, size_t n, double *out);
    /* mask[i] = raidF64Compare(a[i], b[i], cmp), i < n (b may be NULL for the one-operand predicates) */
    raid_status (*compare)(raid_ctx *ctx, int cmp, const double *a, const double *b, unsigned char *mask, size_t n);
    /* out[i] = raidF64LogReturn(prices[i], prices[i + 1]), i < n - 1 (n >= 2, arguments validated by
     * raid_f64_log_returns), and *bad the first index of a price that is not positive and finite with its
     * value *badv, or n when there is none (out's contents unspecified then; the entry reports it) */
    raid_status (*log_returns)(raid_ctx *ctx, const double *prices, size_t n, double *out, size_t *bad, double *badv);
} RaidF64Backend;
extern const RaidF64Backend raidF64Backends[2];
raid_status raidF64CpuEval(raid_ctx *ctx, const raid_f64_expr *e, const double *const *inputs, size_t n, double *out);
raid_status raidF64DeviceEval(raid_ctx *ctx, const raid_f64_expr *e, const double *const *inputs, size_t n,
                              double *out);
raid_status raidF64CpuCompare(raid_ctx *ctx, int cmp, const double *a, const double *b, unsigned char *mask, size_t n);
raid_status raidF64CpuLogReturns(raid_ctx *ctx, const double *prices, size_t n, double *out, size_t *bad,
                                 double *badv);
raid_status raidF64DeviceLogReturns(raid_ctx *ctx, const double *prices, size_t n, double *out, size_t *bad,
                                    double *badv);
raid_status raidF64DeviceCompare(raid_ctx *ctx, int cmp, const double *a, const double *b, unsigned char *mask,
                                 size_t n);

#endif
