/*
 * Element-wise binary64 arithmetic (include/raid/f64.h): the entries, the expression compiler and the cpu
 * path. The cpu path evaluates each element's nodes with kernels/raid_f64.h, the integer-word arithmetic the
 * device kernels run (src/f64/f64_device.c), so both give the same bits, and those of the host's IEEE double
 * operators (tests/test_f64.c).
 */
#include "core/fastlog.h"
#include "core/logret.h"
#include "core/internal.h"
#include "device/device.h"
#include "f64/f64_internal.h"
#include "io/fastfloat.h"
#include "raid_f64.h"
#include "raid_f64_atrig.h"
#include "raid_f64_exp.h"
#include "raid_f64_trig.h"
#include "raid_f64_log.h"
#include "raid_f64_returns.h"
#include "raid_f64_pow.h"

#include <assert.h>
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- the compiler: recursive descent over the grammar of raid/f64.h ---- */

typedef struct Parser {
    raid_ctx *ctx;
    const char *s;
    size_t pos;
    const char *const *names;
    size_t nnames;
    raid_f64_expr *e;
    raid_status st;
} Parser;

/* Record the first failure (RAID_EINVAL at the current column); -1 for the callers to return. */
static int perr(Parser *p, const char *what)
{
    if (p->st == RAID_OK)
        p->st = raidFail(p->ctx, RAID_EINVAL, "raid_f64_expr_compile: column %zu: %s", p->pos + 1, what);
    return -1;
}

static void skip_space(Parser *p)
{
    while (p->s[p->pos] == ' ' || p->s[p->pos] == '\t')
        p->pos++;
}

/* A new node; its index, or -1 past RAID_F64_MAX_NODES. */
static int node3(Parser *p, int kind, int a, int b, int c, int var, uint64_t bits)
{
    raid_f64_expr *e = p->e;
    if (e->nnodes == RAID_F64_MAX_NODES)
        return perr(p, "more than 64 operations and constants");
    e->node[e->nnodes] = (RaidF64Node){kind, a, b, c, var, bits};
    return e->nnodes++;
}

static int node(Parser *p, int kind, int a, int b, int var, uint64_t bits) { return node3(p, kind, a, b, -1, var, bits); }

static int is_name_start(char c) { return isalpha((unsigned char)c) || c == '_'; }
static int is_name_char(char c) { return isalnum((unsigned char)c) || c == '_'; }

static int parse_expr(Parser *p);

#define OP_INFO(op, nm, fn, n) [op] = {nm, n, #fn},
#define OP_INFO1(op, nm, fn) OP_INFO(op, nm, fn, 1)
#define OP_INFO2(op, nm, fn) OP_INFO(op, nm, fn, 2)
#define OP_INFO3(op, nm, fn) OP_INFO(op, nm, fn, 3)
const RaidF64OpInfo raidF64Ops[RAID_F64_NOPS] = {RAID_F64_OPS1(OP_INFO1) RAID_F64_OPS2(OP_INFO2) RAID_F64_OPS3(OP_INFO3)};

/* The operation whose function is named s[0 .. len) in expressions, or 0. A variable may not take such a
 * name. */
static int function_named(const char *s, size_t len)
{
    for (int op = 0; op < RAID_F64_NOPS; op++) {
        const char *name = raidF64Ops[op].name;
        if (raidF64Ops[op].nargs && name[0] && strlen(name) == len && !strncmp(s, name, len))
            return op;
    }
    /* numpy's names of the same functions (raid.arcsin ... raid.power in Python), so that an expression may
     * use either spelling */
    static const struct { const char *name; int op; } numpy_names[] = {
        {"arcsin", RAID_F64_ASIN}, {"arccos", RAID_F64_ACOS}, {"arctan", RAID_F64_ATAN},
        {"arctan2", RAID_F64_ATAN2}, {"power", RAID_F64_POW}, {"absolute", RAID_F64_ABS}};
    for (size_t k = 0; k < sizeof numpy_names / sizeof *numpy_names; k++)
        if (strlen(numpy_names[k].name) == len && !strncmp(s, numpy_names[k].name, len))
            return numpy_names[k].op;
    return 0;
}

/* number | name | function '(' expr [, expr, expr] ')' | '(' expr ')' */
static int parse_primary(Parser *p)
{
    skip_space(p);
    const char *s = p->s;
    const size_t at = p->pos;
    if (s[at] == '(') {
        p->pos++;
        const int r = parse_expr(p);
        skip_space(p);
        if (r < 0)
            return -1;
        if (s[p->pos] != ')')
            return perr(p, "expected ')'");
        p->pos++;
        return r;
    }
    if (isdigit((unsigned char)s[at]) || s[at] == '.') {
        size_t q = at;
        while (isdigit((unsigned char)s[q]))
            q++;
        if (s[q] == '.')
            for (q++; isdigit((unsigned char)s[q]); q++)
                ;
        if (s[q] == 'e' || s[q] == 'E') {
            size_t r = q + 1;
            if (s[r] == '+' || s[r] == '-')
                r++;
            if (isdigit((unsigned char)s[r])) {
                while (isdigit((unsigned char)s[r]))
                    r++;
                q = r;
            }
        }
        double v;
        if (is_name_char(s[q]) || s[q] == '.' || raidParseF64(s + at, q - at, &v) != 0)
            return perr(p, "not a number"); /* "1e", "2x", "1.2.3": at the number's first column */
        uint64_t bits;
        memcpy(&bits, &v, sizeof bits);
        p->pos = q;
        return node(p, RAID_F64N_CONST, -1, -1, -1, bits);
    }
    if (!is_name_start(s[at]))
        return perr(p, "expected a name, a number or '('");
    size_t q = at;
    while (is_name_char(s[q]))
        q++;
    const size_t len = q - at;
    p->pos = q;
    skip_space(p);
    if (s[p->pos] == '(') { /* a function */
        const int op = function_named(s + at, len), nargs = op ? raidF64Ops[op].nargs : 1;
        int arg[3] = {-1, -1, -1};
        if (!op) { /* the message lists the functions */
            char list[512];
            size_t w = 0;
            for (int f = 0; f < RAID_F64_NOPS && w < sizeof list; f++)
                if (raidF64Ops[f].nargs && raidF64Ops[f].name[0])
                    w += (size_t)snprintf(list + w, sizeof list - w, "%s%s", w ? ", " : "", raidF64Ops[f].name);
            p->pos = at;
            char msg[600];
            snprintf(msg, sizeof msg, "unknown function '%.*s' (%s)", (int)(len < 40 ? len : 40), s + at, list);
            return perr(p, msg);
        }
        p->pos++;
        for (int k = 0; k < nargs; k++) {
            if (k && s[p->pos] != ',')
                return perr(p, nargs == 3 ? "expected ',' (fma takes three arguments)" : "expected ','");
            p->pos += k > 0;
            arg[k] = parse_expr(p);
            skip_space(p);
            if (arg[k] < 0)
                return -1;
        }
        if (s[p->pos] != ')')
            return perr(p, nargs == 3 ? "expected ')' (fma takes three arguments)" : "expected ')'");
        p->pos++;
        return node3(p, op, arg[0], arg[1], arg[2], -1, 0);
    }
    for (size_t k = 0; k < p->nnames; k++)
        if (strlen(p->names[k]) == len && !strncmp(p->names[k], s + at, len))
            return node(p, RAID_F64N_VAR, -1, -1, (int)k, 0);
    p->pos = at;
    return perr(p, "unknown name");
}

/* ('-' | '+') unary | primary */
static int parse_unary(Parser *p)
{
    skip_space(p);
    if (p->s[p->pos] == '-' || p->s[p->pos] == '+') {
        const int neg = p->s[p->pos] == '-';
        p->pos++;
        const int a = parse_unary(p);
        return a < 0 ? -1 : neg ? node(p, RAID_F64_NEG, a, -1, -1, 0) : a;
    }
    return parse_primary(p);
}

/* unary (('*' | '/') unary)* */
static int parse_term(Parser *p)
{
    int a = parse_unary(p);
    for (;;) {
        if (a < 0)
            return -1;
        skip_space(p);
        const char c = p->s[p->pos];
        if (c != '*' && c != '/')
            return a;
        p->pos++;
        const int b = parse_unary(p);
        if (b < 0)
            return -1;
        a = node(p, c == '*' ? RAID_F64_MUL : RAID_F64_DIV, a, b, -1, 0);
    }
}

/* term (('+' | '-') term)* */
static int parse_expr(Parser *p)
{
    int a = parse_term(p);
    for (;;) {
        if (a < 0)
            return -1;
        skip_space(p);
        const char c = p->s[p->pos];
        if (c != '+' && c != '-')
            return a;
        p->pos++;
        const int b = parse_term(p);
        if (b < 0)
            return -1;
        a = node(p, c == '+' ? RAID_F64_ADD : RAID_F64_SUB, a, b, -1, 0);
    }
}

/* The names: 1 to RAID_F64_MAX_VARS identifiers, distinct, none a function's. */
static raid_status check_names(raid_ctx *ctx, const char *const *names, size_t nnames)
{
    if (!names || nnames < 1 || nnames > RAID_F64_MAX_VARS)
        return raidFail(ctx, RAID_EINVAL, "raid_f64_expr_compile: %zu names (1 to %d)", names ? nnames : 0,
                        RAID_F64_MAX_VARS);
    for (size_t k = 0; k < nnames; k++) {
        const char *n = names[k];
        int ok = n && is_name_start(n[0]);
        for (size_t j = 1; ok && n[j]; j++)
            ok = is_name_char(n[j]);
        if (!ok || function_named(n, strlen(n)))
            return raidFail(ctx, RAID_EINVAL, "raid_f64_expr_compile: name %zu '%s' is not a variable's name "
                            "(letters, digits, '_', not a function's)", k, n ? n : "(null)");
        for (size_t j = 0; j < k; j++)
            if (!strcmp(names[j], n))
                return raidFail(ctx, RAID_EINVAL, "raid_f64_expr_compile: name '%s' given twice", n);
    }
    return RAID_OK;
}

raid_status raid_f64_expr_compile(raid_ctx *ctx, const char *text, const char *const *names, size_t nnames,
                                  raid_f64_expr **out)
{
    if (out)
        *out = NULL;
    if (!ctx || !text || !out)
        return raidFail(ctx, RAID_EINVAL, "raid_f64_expr_compile: NULL argument");
    raid_status st = check_names(ctx, names, nnames);
    if (st != RAID_OK)
        return st;
    raid_f64_expr *e = calloc(1, sizeof *e);
    if (!e)
        return raidFail(ctx, RAID_ENOMEM, "out of memory");
    e->nvars = (int)nnames;
    Parser p = {ctx, text, 0, names, nnames, e, RAID_OK};
    const int r = parse_expr(&p);
    skip_space(&p);
    if (r >= 0 && text[p.pos] != '\0')
        perr(&p, "expected an operator or the end");
    if (p.st != RAID_OK) {
        free(e);
        return p.st;
    }
    assert(r == e->nnodes - 1); /* the root is the last node: operands come first */
    *out = e;
    return RAID_OK;
}

void raid_f64_expr_free(raid_f64_expr *e) { free(e); }

/* ---- evaluation ---- */

raid_status raid_f64_eval(raid_ctx *ctx, const raid_f64_expr *e, const double *const *inputs, size_t n, double *out)
{
    if (!ctx || !e)
        return raidFail(ctx, RAID_EINVAL, "raid_f64_eval: NULL %s", ctx ? "expression" : "context");
    if (n == 0)
        return RAID_OK;
    if (!inputs || !out)
        return raidFail(ctx, RAID_EINVAL, "raid_f64_eval: NULL %s", inputs ? "output" : "inputs");
    for (int k = 0; k < e->nvars; k++) {
        if (!inputs[k])
            return raidFail(ctx, RAID_EINVAL, "raid_f64_eval: input %d is NULL", k);
        /* out may be an input exactly (each element is read before it is written); a partial overlap would
         * read elements already written on the cpu path and in a kernel (raid.log(b[:-1], out=b[1:]) gave
         * -inf and NaN where numpy copies first): refused, on every backend (addresses as integers) */
        const uintptr_t a = (uintptr_t)inputs[k], o = (uintptr_t)out, bytes = (uintptr_t)n * sizeof(double);
        if (a != o && a < o + bytes && o < a + bytes)
            return raidFail(ctx, RAID_EINVAL, "raid_f64_eval: out overlaps input %d without being it (elements %+lld "
                            "apart): give a separate output, or the input itself", k,
                            (long long)(((intptr_t)o - (intptr_t)a) / (intptr_t)sizeof(double)));
    }
    return RAID_BACKEND(raidF64Backends, ctx)->eval(ctx, e, inputs, n, out);
}

raid_status raid_f64_map(raid_ctx *ctx, raid_f64_op op, const double *a, const double *b, double *out, size_t n)
{
    if (!ctx)
        return raidFail(ctx, RAID_EINVAL, "raid_f64_map: NULL context");
    if ((int)op < 0 || (int)op >= RAID_F64_NOPS || !raidF64Ops[op].nargs)
        return raidFail(ctx, RAID_EINVAL, "raid_f64_map: unknown operation %d", (int)op);
    if (raidF64Ops[op].nargs == 3)
        return raidFail(ctx, RAID_EINVAL, "raid_f64_map: %s takes three operands: use an expression, %s(a, b, c)",
                        raidF64Ops[op].name, raidF64Ops[op].name);
    const int binary = raidF64Ops[op].nargs == 2;
    if (n && (!a || !out || (binary && !b)))
        return raidFail(ctx, RAID_EINVAL, "raid_f64_map: NULL %s", !a ? "a" : !out ? "out" : "b");
    raid_f64_expr e;
    memset(&e, 0, sizeof e);
    e.nvars = binary ? 2 : 1;
    e.node[0] = (RaidF64Node){RAID_F64N_VAR, -1, -1, -1, 0, 0};
    e.node[1] = (RaidF64Node){RAID_F64N_VAR, -1, -1, -1, 1, 0};
    e.node[e.nvars] = (RaidF64Node){(int)op, 0, binary ? 1 : -1, -1, -1, 0};
    e.nnodes = e.nvars + 1;
    const double *in[2] = {a, b};
    return raid_f64_eval(ctx, &e, in, n, out);
}

/* The host functions of the operations, indexed by raid_f64_op (the lists of f64_internal.h). */
#define OP_FN(op, nm, fn) [op] = fn,
static RaidU64 (*const unary[RAID_F64_NOPS])(RaidU64) = {RAID_F64_OPS1(OP_FN)};
static RaidU64 (*const binary[RAID_F64_NOPS])(RaidU64, RaidU64) = {RAID_F64_OPS2(OP_FN)};
static RaidU64 (*const ternary[RAID_F64_NOPS])(RaidU64, RaidU64, RaidU64) = {RAID_F64_OPS3(OP_FN)};

/* The host's function of a unary operation: the table's, but for log and log1p core/fastlog.h's, which give
 * the same bits (a double-double evaluation that falls back to raidF64Log / raidF64Log1p wherever its proven
 * bound does not decide the rounding: tests/test_fastlog.c) in a tenth of the time. */
static RaidU64 (*host_unary(int op))(RaidU64)
{
    if (op == RAID_F64_LOG)
        return raidFastLogBits;
    if (op == RAID_F64_LOG1P)
        return raidFastLog1pBits;
    return unary[op];
}

/* The cpu path: each element's nodes in order, in host integer words. */
raid_status raidF64CpuEval(raid_ctx *ctx, const raid_f64_expr *e, const double *const *inputs, size_t n, double *out)
{
    RaidMemKind kind;
    for (int k = 0; k < e->nvars; k++) {
        raid_status st = raidMemKindOf(ctx, inputs[k], n * sizeof(double), sizeof(double), "raid_f64_eval: input", &kind);
        if (st != RAID_OK)
            return st;
    }
    raid_status st = raidMemKindOf(ctx, out, n * sizeof(double), sizeof(double), "raid_f64_eval: out", &kind);
    if (st != RAID_OK)
        return st;
    RaidU64 (*fn1[RAID_F64_MAX_NODES])(RaidU64) = {0};
    for (int k = 0; k < e->nnodes; k++)
        if (e->node[k].kind < RAID_F64_NOPS && raidF64Ops[e->node[k].kind].nargs == 1)
            fn1[k] = host_unary(e->node[k].kind);
    const long long nn = (long long)n;
#pragma omp parallel for schedule(static) if (nn > 65536)
    for (long long i = 0; i < nn; i++) {
        RaidU64 v[RAID_F64_MAX_NODES];
        for (int k = 0; k < e->nnodes; k++) {
            const RaidF64Node *d = &e->node[k];
            switch (d->kind) {
            case RAID_F64N_VAR: memcpy(&v[k], &inputs[d->var][i], sizeof v[k]); break;
            case RAID_F64N_CONST: v[k] = d->bits; break;
            default:
                switch (raidF64Ops[d->kind].nargs) {
                case 1: v[k] = fn1[k](v[d->a]); break;
                case 2: v[k] = binary[d->kind](v[d->a], v[d->b]); break;
                default: v[k] = ternary[d->kind](v[d->a], v[d->b], v[d->c]); break;
                }
            }
        }
        memcpy(&out[i], &v[e->nnodes - 1], sizeof out[i]);
    }
    return RAID_OK;
}

raid_status raid_f64_compare(raid_ctx *ctx, raid_f64_cmp cmp, const double *a, const double *b, unsigned char *mask,
                             size_t n)
{
    if (!ctx)
        return raidFail(ctx, RAID_EINVAL, "raid_f64_compare: NULL context");
    if (cmp < RAID_F64_EQ || cmp > RAID_F64_ISFINITE)
        return raidFail(ctx, RAID_EINVAL, "raid_f64_compare: unknown predicate %d", (int)cmp);
    if (n && (!a || !mask || (cmp <= RAID_F64_GE && !b)))
        return raidFail(ctx, RAID_EINVAL, "raid_f64_compare: NULL %s", !a ? "a" : !mask ? "mask" : "b");
    if (n == 0)
        return RAID_OK;
    return RAID_BACKEND(raidF64Backends, ctx)->compare(ctx, (int)cmp, a, cmp <= RAID_F64_GE ? b : NULL, mask, n);
}

raid_status raidF64CpuCompare(raid_ctx *ctx, int cmp, const double *a, const double *b, unsigned char *mask, size_t n)
{
    RaidMemKind kind;
    raid_status st = raidMemKindOf(ctx, a, n * sizeof(double), sizeof(double), "raid_f64_compare: a", &kind);
    if (st == RAID_OK && b)
        st = raidMemKindOf(ctx, b, n * sizeof(double), sizeof(double), "raid_f64_compare: b", &kind);
    if (st == RAID_OK)
        st = raidMemKindOf(ctx, mask, n, 1, "raid_f64_compare: mask", &kind);
    if (st != RAID_OK)
        return st;
    const long long nn = (long long)n;
#pragma omp parallel for schedule(static) if (nn > 65536)
    for (long long i = 0; i < nn; i++) {
        RaidU64 x, y = 0;
        memcpy(&x, &a[i], sizeof x);
        if (b)
            memcpy(&y, &b[i], sizeof y);
        mask[i] = (unsigned char)raidF64Compare(x, y, cmp);
    }
    return RAID_OK;
}

raid_status raid_f64_log_returns(raid_ctx *ctx, const double *prices, size_t n, double *out)
{
    if (!ctx)
        return raidFail(ctx, RAID_EINVAL, "raid_f64_log_returns: NULL context");
    if (n < 2)
        return RAID_OK;
    if (!prices || !out)
        return raidFail(ctx, RAID_EINVAL, "raid_f64_log_returns: NULL %s", prices ? "out" : "prices");
    const uintptr_t p0 = (uintptr_t)prices, p1 = (uintptr_t)(prices + n), o0 = (uintptr_t)out, o1 = (uintptr_t)(out + n - 1);
    if (o0 < p1 && p0 < o1) /* in place would need a second buffer: every return reads two prices */
        return raidFail(ctx, RAID_EINVAL, "raid_f64_log_returns: out overlaps prices");
    size_t bad = n;
    double v = 0;
    raid_status st = RAID_BACKEND(raidF64Backends, ctx)->log_returns(ctx, prices, n, out, &bad, &v);
    if (st == RAID_OK && bad < n)
        st = raidFail(ctx, RAID_EINVAL, "raid_f64_log_returns: prices[%zu] = %.17g is not positive and finite", bad, v);
    return st;
}

/* The cpu path: the prices checked (a scan of their bits), then raidF64LogReturn over the array (through
 * core/logret.h's raidLogReturn: the same bits, its fast host path where the rounding is certain). */
raid_status raidF64CpuLogReturns(raid_ctx *ctx, const double *prices, size_t n, double *out, size_t *bad, double *badv)
{
    RaidMemKind kind;
    raid_status st = raidMemKindOf(ctx, prices, n * sizeof(double), sizeof(double), "raid_f64_log_returns: prices", &kind);
    if (st == RAID_OK)
        st = raidMemKindOf(ctx, out, (n - 1) * sizeof(double), sizeof(double), "raid_f64_log_returns: out", &kind);
    if (st != RAID_OK)
        return st;
    const long long nn = (long long)n;
    size_t first = n;
    for (long long i = 0; i < nn && first == n; i++) {
        RaidU64 x;
        memcpy(&x, &prices[i], sizeof x);
        if (x == 0 || x >= RAID_F64_INF) { /* +0, +inf, NaN, every negative value (sign bit set) */
            first = (size_t)i;
            *badv = prices[i];
        }
    }
    *bad = first;
    if (first < n)
        return RAID_OK;
#pragma omp parallel for schedule(static) if (nn > 65536)
    for (long long i = 0; i < nn - 1; i++) {
        out[i] = raidLogReturn(prices[i], prices[i + 1]); /* raidF64LogReturn's bits, by the host's fast path */
    }
    return RAID_OK;
}

const RaidF64Backend raidF64Backends[2] = {
    [RAID_ON_CPU] = {raidF64CpuEval, raidF64CpuCompare, raidF64CpuLogReturns},
    [RAID_ON_DEVICE] = {raidF64DeviceEval, raidF64DeviceCompare, raidF64DeviceLogReturns},
};
