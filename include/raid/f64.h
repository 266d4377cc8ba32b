/*
 * raid/f64.h -- element-wise IEEE 754 binary64 arithmetic on float64 arrays with the cpu's bits on every
 * device, including GPUs without a 64-bit floating type (docs/f64.md).
 * Part of the public API; include <raid.h> for all of it. Conventions: raid/core.h.
 *
 * Every operation is correctly rounded (round to nearest, ties to even; subnormals kept, no flush to zero),
 * so a result is bit-identical to the host's IEEE double arithmetic and to numpy's on x86-64, on the cpu
 * backend and on every device: the device computes each binary64 operation on integer words
 * (kernels/raid_f64.h; IEEE 754-2019 sections 5.4.1 and 6.2). NaNs follow x86-64's rules: the first NaN
 * operand made quiet, or for an invalid operation (inf - inf, 0 * inf, 0 / 0, inf / inf, sqrt of a negative
 * number) the default NaN 0xFFF8000000000000.
 *
 * Arrays may be host memory or, on a CUDA context, CUDA device memory of that context (read and written in
 * place: docs/device.md "The caller's device memory"); out may be one of the inputs
 * exactly; an out that overlaps an input otherwise is refused (RAID_EINVAL).
 */
#ifndef RAID_F64_API_H
#define RAID_F64_API_H

#include "raid/core.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum raid_f64_op {
    RAID_F64_ADD = 1, /* a + b */
    RAID_F64_SUB,     /* a - b */
    RAID_F64_MUL,     /* a * b */
    RAID_F64_DIV,     /* a / b */
    RAID_F64_SQRT,    /* sqrt(a) (b unused) */
    RAID_F64_NEG,     /* -a: the sign bit flipped, NaNs included (numpy.negative) */
    RAID_F64_ABS,     /* |a|: the sign bit cleared, NaNs included (numpy.absolute) */
    RAID_F64_FMA,     /* a * b + c rounded once (C's fma; expressions only: raid_f64_map refuses it) */
    RAID_F64_MINIMUM, /* numpy.minimum: a NaN operand (a first) is returned; of -0 and +0, b */
    RAID_F64_MAXIMUM, /* numpy.maximum: likewise */
    RAID_F64_COPYSIGN,/* |a| with b's sign (numpy.copysign) */
    RAID_F64_TRUNC,   /* a rounded toward zero (numpy.trunc; NaNs made quiet) */
    RAID_F64_FLOOR,   /* toward -inf (numpy.floor) */
    RAID_F64_CEIL,    /* toward +inf (numpy.ceil) */
    RAID_F64_RINT,    /* to nearest, ties to even (numpy.rint) */
    /* the logarithms (kernels/raid_f64_log.h; docs/f64.md): correctly rounded, every input */
    RAID_F64_LOG = 16,   /* natural logarithm (numpy.log), correctly rounded */
    RAID_F64_LOG2 = 17,  /* base-2 logarithm (numpy.log2), correctly rounded */
    RAID_F64_LOG10 = 18, /* base-10 logarithm (numpy.log10), correctly rounded */
    RAID_F64_LOG1P = 19, /* ln(1 + a) (numpy.log1p), correctly rounded */
    /* the exponential family (docs/f64.md): correctly rounded, every input */
    RAID_F64_EXP = 20,   /* e^a (numpy.exp; overflow +inf, gradual underflow, exp(-inf) = +0) */
    RAID_F64_EXP2 = 21,  /* 2^a (numpy.exp2; exact at integers) */
    RAID_F64_EXP10 = 22, /* 10^a (exact for the integers 0..22) */
    RAID_F64_EXPM1 = 23, /* e^a - 1 (numpy.expm1; expm1(-0) = -0, expm1(-inf) = -1) */
    /* hyperbolic functions: at most 1 ulp from the exact value (in practice correctly rounded: docs/f64.md) */
    RAID_F64_SINH = 24,  /* numpy.sinh */
    RAID_F64_COSH = 25,  /* numpy.cosh */
    RAID_F64_TANH = 26,  /* numpy.tanh */
    /* sin, cos, tan (kernels/raid_f64_trig.h; docs/f64.md): within 1 ulp for every a, argument reduced
     * exactly however large a is */
    RAID_F64_SIN = 27, /* sin(a), a in radians (numpy.sin) */
    RAID_F64_COS = 28, /* cos(a) (numpy.cos) */
    RAID_F64_TAN = 29, /* tan(a) (numpy.tan) */
    /* the inverse trigonometric functions (kernels/raid_f64_atrig.h; docs/f64.md): at most 1 ulp from the exact
     * result, correctly rounded on every input tested; special values as C99 Annex F and numpy */
    RAID_F64_ASIN = 30, /* arcsine of a, in [-pi/2, pi/2] (numpy.arcsin; |a| > 1: NaN) */
    RAID_F64_ACOS = 31, /* arccosine of a, in [0, pi] (numpy.arccos; |a| > 1: NaN) */
    RAID_F64_ATAN = 32, /* arctangent of a, in [-pi/2, pi/2] (numpy.arctan) */
    RAID_F64_ATAN2 = 33, /* atan2(a, b): the angle of the point (b, a), in [-pi, pi] (numpy.arctan2) */
    /* the power function (kernels/raid_f64_pow.h; docs/f64.md): at most 1 ulp, correctly rounded on every input
     * tested, exact midpoints rounded exactly; special values as C99 Annex F.9.4.4 and numpy */
    RAID_F64_POW = 34, /* a^b (C's pow, numpy.power; a < 0 with a non-integer b: NaN) */
} raid_f64_op;

/* out[i] = a[i] op b[i] for i in [0, n) (b ignored for the unary operations, and may be NULL then: sqrt,
 * neg, abs, trunc, floor, ceil, rint, log, log2, log10, log1p, exp, exp2, exp10, expm1, sinh, cosh, tanh, sin,
 * cos, tan, asin, acos, atan).
 * Errors: RAID_EINVAL (ctx, a, out, or b for a binary operation NULL while n > 0; an unknown op or
 * RAID_F64_FMA; device
 * memory that is not ctx's), the device layer's (RAID_ENOMEM, RAID_EDEVMEM, RAID_EDEVICE, RAID_EBUILD);
 * message on ctx. */
RAID_API raid_status raid_f64_map(raid_ctx *ctx, raid_f64_op op, const double *a, const double *b, double *out,
                                  size_t n);

/* IEEE 754's quiet comparisons (C's and numpy's): a NaN compares unordered, so every predicate but
 * RAID_F64_NE is false for it; -0 == +0. The last three test a alone (b ignored, may be NULL). */
typedef enum raid_f64_cmp {
    RAID_F64_EQ = 1, /* a == b */
    RAID_F64_NE,     /* a != b (true for a NaN) */
    RAID_F64_LT,     /* a < b */
    RAID_F64_LE,     /* a <= b */
    RAID_F64_GT,     /* a > b */
    RAID_F64_GE,     /* a >= b */
    RAID_F64_ISNAN,  /* a is a NaN */
    RAID_F64_ISINF,  /* a is +-infinity */
    RAID_F64_ISFINITE /* a is neither */
} raid_f64_cmp;

/* mask[i] = 1 where a[i] cmp b[i] holds, else 0, for i in [0, n): one byte an element (numpy's bool). Arrays
 * as raid_f64_map's (host, or CUDA device memory of ctx). Errors: RAID_EINVAL (NULL ctx, a, mask, or b for
 * a two-operand predicate while n > 0; an unknown cmp), the device layer's; message on ctx. */
RAID_API raid_status raid_f64_compare(raid_ctx *ctx, raid_f64_cmp cmp, const double *a, const double *b,
                                      unsigned char *mask, size_t n);

/* A compiled element-wise expression (opaque). */
typedef struct raid_f64_expr raid_f64_expr;

/* Compile text, an expression over the variables names[0 .. nnames) (1 to 8 names of letters, digits and
 * '_', not starting with a digit), into *out:
 *   expr    := term (('+' | '-') term)*                 left to right
 *   term    := unary (('*' | '/') unary)*               left to right
 *   unary   := ('-' | '+') unary | primary
 *   primary := number | name | f1 '(' expr ')' | f2 '(' expr ',' expr ')' | 'fma' '(' expr ',' expr ',' expr ')'
 *              | '(' expr ')'
 *   f1      := 'sqrt' | 'abs' | 'trunc' | 'floor' | 'ceil' | 'rint'
 *              | 'log' | 'log2' | 'log10' | 'log1p'
 *              | 'exp' | 'exp2' | 'exp10' | 'expm1' | 'sinh' | 'cosh' | 'tanh'
 *              | 'sin' | 'cos' | 'tan' | 'asin' | 'acos' | 'atan'
 *              | 'absolute' | 'arcsin' | 'arccos' | 'arctan'      (numpy's names of the same functions)
 *   f2      := 'minimum' | 'maximum' | 'copysign' | 'atan2' | 'pow'
 *              | 'arctan2' | 'power'                              (numpy's names)
 * fma(x, y, z) is x * y + z rounded once (C's fma, IEEE 754's fusedMultiplyAdd). A number is a decimal float64 literal (1, 2.5, 1e-3; read correctly rounded). Each operation is
 * evaluated as written, never reassociated or fused, so the result is that of the same expression in C or
 * numpy. At most 64 operations and constants. Errors: RAID_EINVAL (the message names the column of the
 * fault: "column 7: expected a name, a number or '('"; "column 1: unknown function 'lgamma' (sqrt, ...)"),
 * RAID_ENOMEM; *out NULL then. */
RAID_API raid_status raid_f64_expr_compile(raid_ctx *ctx, const char *text, const char *const *names,
                                           size_t nnames, raid_f64_expr **out);
RAID_API void raid_f64_expr_free(raid_f64_expr *e);

/* out[i] = e(inputs[0][i], ..., inputs[nnames - 1][i]) for i in [0, n): on a device one kernel reads each
 * input once and writes out once (the whole chain in registers). Errors: RAID_EINVAL (NULL ctx, e, inputs,
 * an input or out while n > 0; device memory that is not ctx's), the device layer's; message on ctx. */
RAID_API raid_status raid_f64_eval(raid_ctx *ctx, const raid_f64_expr *e, const double *const *inputs, size_t n,
                                   double *out);

/* Log returns of a price series: out[i] = log(prices[i + 1] / prices[i]) for i in [0, n - 1) (n prices, n - 1
 * returns; n < 2: nothing to do), each computed as
 *   q = (p - prev) / prev;  r = log1p(q) if q is finite and -0.5 <= q <= 1, else log(p) - log(prev)
 * in binary64 with log1p and log correctly rounded (kernels/raid_f64_returns.h, docs/f64.md "Log returns"):
 * the bits of the returns that `raid realized`, `raid returns` and every segment of the readers take, on the
 * cpu backend and on every device. For p / prev in [0.5, 2] the result is within about one ulp of the exact
 * log(p / prev) however small it is. Arrays as raid_f64_map's: host memory, or on a CUDA context CUDA device
 * memory of that context read (prices) and written (out) in place; out holds n - 1 elements and may not
 * overlap prices. Errors: RAID_EINVAL (NULL ctx, or prices or out NULL while n > 1; a price that is not
 * positive and finite: "raid_f64_log_returns: prices[I] = V is not positive and finite", the first such
 * index; then out's contents are unspecified; device memory that is not ctx's), the device layer's;
 * message on ctx. */
RAID_API raid_status raid_f64_log_returns(raid_ctx *ctx, const double *prices, size_t n, double *out);

#ifdef __cplusplus
}
#endif

#endif
