/*
 * Element-wise binary64 arithmetic (include/raid/f64.h): the entries, the expression compiler and the cpu
 * path. The cpu path evaluates each element's nodes with kernels/raid_f64.h, the integer-word arithmetic the
 * device kernels run (src/f64/f64_device.c), so both give the same bits, and those of the host's IEEE double
 * operators (tests/test_f64.c).
 */
#include "core/internal.h"
#include "device/device.h"
#include "f64/f64_internal.h"
#include "io/fastfloat.h"
#include "raid_f64.h"

#include <assert.h>
#include <ctype.h>
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

/* The functions of the grammar (raid/f64.h): name, operation, number of arguments. A variable may not
 * take one of these names. */
typedef struct Function {
    const char *name;
    int op, nargs;
} Function;
static const Function functions[] = {
    {"sqrt", RAID_F64_SQRT, 1},       {"abs", RAID_F64_ABS, 1},         {"trunc", RAID_F64_TRUNC, 1},
    {"floor", RAID_F64_FLOOR, 1},     {"ceil", RAID_F64_CEIL, 1},       {"rint", RAID_F64_RINT, 1},
    {"minimum", RAID_F64_MINIMUM, 2}, {"maximum", RAID_F64_MAXIMUM, 2}, {"copysign", RAID_F64_COPYSIGN, 2},
    {"fma", RAID_F64_FMA, 3}};

/* The function named s[0 .. len), or NULL. */
static const Function *function_named(const char *s, size_t len)
{
    for (size_t f = 0; f < sizeof functions / sizeof *functions; f++)
        if (strlen(functions[f].name) == len && !strncmp(s, functions[f].name, len))
            return &functions[f];
    return NULL;
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
        const Function *fn = function_named(s + at, len);
        const int op = fn ? fn->op : 0, nargs = fn ? fn->nargs : 1;
        int arg[3] = {-1, -1, -1};
        if (!op) {
            p->pos = at;
            return perr(p, "unknown function (sqrt, abs, trunc, floor, ceil, rint, minimum, maximum, copysign, fma)");
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
    for (int k = 0; k < e->nvars; k++)
        if (!inputs[k])
            return raidFail(ctx, RAID_EINVAL, "raid_f64_eval: input %d is NULL", k);
    return RAID_BACKEND(raidF64Backends, ctx)->eval(ctx, e, inputs, n, out);
}

raid_status raid_f64_map(raid_ctx *ctx, raid_f64_op op, const double *a, const double *b, double *out, size_t n)
{
    if (!ctx)
        return raidFail(ctx, RAID_EINVAL, "raid_f64_map: NULL context");
    const int binary = (op >= RAID_F64_ADD && op <= RAID_F64_DIV) || (op >= RAID_F64_MINIMUM && op <= RAID_F64_COPYSIGN);
    if (op == RAID_F64_FMA)
        return raidFail(ctx, RAID_EINVAL, "raid_f64_map: fma takes three operands: use an expression, fma(a, b, c)");
    if (op < RAID_F64_ADD || op > RAID_F64_RINT)
        return raidFail(ctx, RAID_EINVAL, "raid_f64_map: unknown operation %d", (int)op);
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
    const long long nn = (long long)n;
#pragma omp parallel for schedule(static) if (nn > 65536)
    for (long long i = 0; i < nn; i++) {
        RaidU64 v[RAID_F64_MAX_NODES];
        for (int k = 0; k < e->nnodes; k++) {
            const RaidF64Node *d = &e->node[k];
            switch (d->kind) {
            case RAID_F64N_VAR: memcpy(&v[k], &inputs[d->var][i], sizeof v[k]); break;
            case RAID_F64N_CONST: v[k] = d->bits; break;
            case RAID_F64_ADD: v[k] = raidF64Add(v[d->a], v[d->b]); break;
            case RAID_F64_SUB: v[k] = raidF64Sub(v[d->a], v[d->b]); break;
            case RAID_F64_MUL: v[k] = raidF64Mul(v[d->a], v[d->b]); break;
            case RAID_F64_DIV: v[k] = raidF64Div(v[d->a], v[d->b]); break;
            case RAID_F64_SQRT: v[k] = raidF64Sqrt(v[d->a]); break;
            case RAID_F64_FMA: v[k] = raidF64Fma(v[d->a], v[d->b], v[d->c]); break;
            case RAID_F64_MINIMUM: v[k] = raidF64Minimum(v[d->a], v[d->b]); break;
            case RAID_F64_MAXIMUM: v[k] = raidF64Maximum(v[d->a], v[d->b]); break;
            case RAID_F64_COPYSIGN: v[k] = raidF64Copysign(v[d->a], v[d->b]); break;
            case RAID_F64_TRUNC: v[k] = raidF64RoundInt(v[d->a], 0); break;
            case RAID_F64_FLOOR: v[k] = raidF64RoundInt(v[d->a], 1); break;
            case RAID_F64_CEIL: v[k] = raidF64RoundInt(v[d->a], 2); break;
            case RAID_F64_RINT: v[k] = raidF64RoundInt(v[d->a], 3); break;
            case RAID_F64_NEG: v[k] = v[d->a] ^ RAID_F64_SIGN; break;
            default: v[k] = v[d->a] & ~RAID_F64_SIGN; break; /* RAID_F64_ABS */
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

const RaidF64Backend raidF64Backends[2] = {
    [RAID_ON_CPU] = {raidF64CpuEval, raidF64CpuCompare},
    [RAID_ON_DEVICE] = {raidF64DeviceEval, raidF64DeviceCompare},
};
