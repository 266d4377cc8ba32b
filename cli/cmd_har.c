/* raid har: HAR-family forecasting regressions of daily realized variance (docs/har.md).
 *
 * The design of every symbol is built on the host in float64; the sufficient statistics of all
 * symbols (or of all blocks of rows, for rolling and expanding windows) come from ONE
 * raid_reg_stats_compute call on the selected device; the solution and the inference are float64 on
 * the host (raid_ols_from_stats, raid_reg_meat_compute, raid_ols_robust). */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "io/csv_lines.h"

#include <ctype.h>
#include <csv.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

enum har_model { HAR_HAR = 0, HAR_J = 1, HAR_CJ = 2, HAR_Q = 3 };
enum har_transform { HAR_NONE = 0, HAR_LOG = 1, HAR_SQRT = 2 };
enum { HAR_MAX_LAGS = 6, HAR_BLOCK = 50 };

static const char *const har_model_names[] = {"har", "har-j", "har-cj", "harq"};
static const char *const har_transform_names[] = {"none", "log", "sqrt"};

typedef struct har_spec {
    int model, transform, h;
    int nlags, lags[HAR_MAX_LAGS];
    double alpha; /* jump significance of har-cj: jump_p < alpha */
} har_spec;

/* One symbol's daily series, rows as given (NAN where a field is empty or the column is absent). */
typedef struct har_series {
    size_t n;
    const double *rv, *bpv, *rq, *jump_p;
} har_series;

/* Columns of the design (the intercept first). */
static int har_k(const har_spec *sp)
{
    switch (sp->model) {
    case HAR_J:
    case HAR_CJ: return 2 + sp->nlags;
    case HAR_Q: return 2 + sp->nlags;
    default: return 1 + sp->nlags;
    }
}

static void har_lag_name(char *buf, size_t len, const char *prefix, int lag)
{
    if (lag == 1)
        snprintf(buf, len, "%s_d", prefix);
    else if (lag == 5)
        snprintf(buf, len, "%s_w", prefix);
    else if (lag == 22)
        snprintf(buf, len, "%s_m", prefix);
    else
        snprintf(buf, len, "%s_l%d", prefix, lag);
}

/* Coefficient names, in column order: const, rv_d, [rq_rv,] rv_w, rv_m [, j] or const, c_d, c_w, c_m, j. */
static int har_names(const har_spec *sp, char names[][24])
{
    int c = 0;
    snprintf(names[c++], 24, "const");
    const char *pre = sp->model == HAR_CJ ? "c" : "rv";
    for (int l = 0; l < sp->nlags; l++) {
        har_lag_name(names[c++], 24, pre, sp->lags[l]);
        if (sp->model == HAR_Q && l == 0)
            snprintf(names[c++], 24, "rq_rv");
    }
    if (sp->model == HAR_J || sp->model == HAR_CJ)
        snprintf(names[c++], 24, "j");
    return c;
}

static double har_f(int transform, double v)
{
    switch (transform) {
    case HAR_LOG: return log(v);
    case HAR_SQRT: return sqrt(v);
    default: return v;
    }
}

/* The jump regressor's transform: log(1 + J) for log (J is often 0), sqrt and identity otherwise. */
static double har_fj(int transform, double j)
{
    return transform == HAR_LOG ? log1p(j) : har_f(transform, j);
}

/* Inverse of the transform (the naive back-transform of a forecast). */
static double har_finv(int transform, double v)
{
    switch (transform) {
    case HAR_LOG: return exp(v);
    case HAR_SQRT: return v * v;
    default: return v;
    }
}

/* Build the design of one symbol: X (rows x k, row-major) and y, and tix[r] = the day t of row r. A row
 * t needs days t-maxlag+1 .. t+h and every entry of X and y finite (rows touching a missing or
 * non-positive-under-log value are left out). X, y, tix hold s->n rows at most. *bad = the first day whose
 * value is missing or invalid (s->n if none). Returns the row count. */
static size_t har_design(const har_spec *sp, const har_series *s, double *X, double *y, size_t *tix,
                         size_t *bad)
{
    const int k = har_k(sp), maxlag = sp->lags[sp->nlags - 1], h = sp->h;
    const size_t n = s->n;
    *bad = n;
    if (n < (size_t)maxlag + (size_t)h)
        return 0;
    double *a = malloc((n ? n : 1) * sizeof *a); /* the lagged series: f(rv) or f(C) */
    double *jv = malloc((n ? n : 1) * sizeof *jv);
    double *sq = malloc((n ? n : 1) * sizeof *sq);
    double *fy = malloc((n ? n : 1) * sizeof *fy);
    if (!a || !jv || !sq || !fy) {
        free(a), free(jv), free(sq), free(fy);
        return (size_t)-1;
    }
    for (size_t t = 0; t < n; t++) {
        double rv = s->rv[t], bpv = s->bpv ? s->bpv[t] : NAN;
        fy[t] = har_f(sp->transform, rv);
        a[t] = fy[t];
        jv[t] = NAN;
        sq[t] = NAN;
        if (sp->model == HAR_J) {
            jv[t] = har_fj(sp->transform, fmax(rv - bpv, 0.0));
            if (isnan(rv - bpv))
                jv[t] = NAN;
        } else if (sp->model == HAR_CJ) {
            double p = s->jump_p ? s->jump_p[t] : NAN;
            if (isnan(p) || isnan(rv) || isnan(bpv)) {
                a[t] = jv[t] = NAN;
            } else if (p < sp->alpha) {
                a[t] = har_f(sp->transform, bpv);
                jv[t] = har_fj(sp->transform, fmax(rv - bpv, 0.0));
            } else {
                jv[t] = har_fj(sp->transform, 0.0);
            }
        } else if (sp->model == HAR_Q) {
            sq[t] = s->rq ? sqrt(s->rq[t]) : NAN;
        }
        const int used_j = sp->model == HAR_J || sp->model == HAR_CJ, used_q = sp->model == HAR_Q;
        if (*bad == n && (!isfinite(fy[t]) || !isfinite(a[t]) || (used_j && !isfinite(jv[t])) ||
                          (used_q && !isfinite(sq[t]))))
            *bad = t;
    }
    size_t m = 0;
    for (size_t t = (size_t)maxlag - 1; t + (size_t)h < n; t++) {
        double *x = X + m * (size_t)k;
        int c = 0, ok = 1;
        x[c++] = 1.0;
        for (int l = 0; l < sp->nlags; l++) {
            const int L = sp->lags[l];
            double acc = 0;
            for (size_t i = t + 1 - (size_t)L; i <= t; i++)
                acc += a[i];
            x[c++] = acc / (double)L;
            if (sp->model == HAR_Q && l == 0)
                x[c++] = sq[t]; /* centred below, once the rows are known */
        }
        if (sp->model == HAR_J || sp->model == HAR_CJ)
            x[c++] = jv[t];
        double acc = 0;
        for (size_t i = t + 1; i <= t + (size_t)h; i++)
            acc += fy[i];
        double yy = acc / (double)h;
        for (int j = 0; j < k; j++)
            ok &= isfinite(x[j]) != 0;
        if (!ok || !isfinite(yy))
            continue;
        y[m] = yy;
        tix[m] = t;
        m++;
    }
    if (sp->model == HAR_Q && m) { /* rq_rv = rv_t (sqrt(rq_t) - mean over the rows of sqrt(rq)) */
        double acc = 0;
        for (size_t r = 0; r < m; r++)
            acc += X[r * (size_t)k + 2];
        const double mq = acc / (double)m;
        for (size_t r = 0; r < m; r++)
            X[r * (size_t)k + 2] = X[r * (size_t)k + 1] * (X[r * (size_t)k + 2] - mq);
    }
    free(a), free(jv), free(sq), free(fy);
    return m;
}

/* Newey and West (1994) rule of thumb, as statsmodels users commonly write it. */
static int har_nw_default(int64_t n)
{
    return (int)floor(4.0 * pow((double)n / 100.0, 2.0 / 9.0));
}

/* The largest lag the meat of n rows needs: 0 for White, nw_lag (or the default rule when negative) for
 * Newey-West, at most n - 1. */
static int har_meat_lag(raid_se_kind se, int64_t nw_lag, int64_t n)
{
    int64_t L = se == RAID_SE_WHITE ? 0 : nw_lag >= 0 ? nw_lag : har_nw_default(n);
    return (int)(L > n - 1 ? n - 1 : L);
}

/* The message for a failed raid_ols_robust_at (about the means): when a regressor's level dwarfs its spread,
 * say so (the rounding of the means costs 2^-53 R of the robust variances, refused above
 * RAID_REG_MAX_ROBUST_LOSS). */
static void har_robust_msg(const raid_reg_stats *s, raid_status rs, char *buf, size_t n)
{
    const double R = raid_reg_level_ratio(s);
    if (rs == RAID_ESINGULAR && 0x1p-53 * R > RAID_REG_MAX_ROBUST_LOSS)
        snprintf(buf, n, "robust standard errors would be float64 rounding: a regressor's mean is %.3g times its "
                 "standard deviation, and the rounding of the means alone costs 2^-53 x %.3g = %.2g of the robust "
                 "variances (limit %g); subtract a constant from rv, or use --transform log or --se ols", R, R,
                 0x1p-53 * R, RAID_REG_MAX_ROBUST_LOSS);
    else
        snprintf(buf, n, "robust standard errors: %s", raid_strerror(rs));
}

/* ---- CSV input ---- */

typedef struct har_input {
    char *buf;       /* the file, fields split in place */
    size_t nrows;
    char **sym;      /* per row ("" when there is no symbol column) */
    char **date;
    double *v[4];    /* rv, bpv, rq, jump_p (NULL when the column is absent) */
    int have[4];
    size_t *line;    /* per row, its line in the file (the last one, for a row with quoted line breaks) */
    int date_col;    /* 1-based column of the dates, for messages */
} har_input;

static void har_input_free(har_input *in)
{
    free(in->buf);
    free(in->sym);
    free(in->date);
    free(in->line);
    for (int i = 0; i < 4; i++)
        free(in->v[i]);
    memset(in, 0, sizeof *in);
}

/* Reading goes through libcsv (as src/io/reader.c does), streamed in blocks; LINE counts the line
 * breaks inside quoted fields too, COL is the field number. Symbols and dates are kept in one growing
 * text arena (in->buf) and pointed to once the file is read. */
typedef struct har_parse {
    const char *path;
    const char *const *names;
    int symbol_required;
    har_input *in;
    int col[6], ncol, header_done, fidx, failed, last_term;
    unsigned used; /* bit j: the model reads column j (symbol, date and rv always) */
    size_t line, row_cap;
    size_t *sym_off, *date_off; /* per row, offsets into the arena */
    size_t arlen, arcap;
    double cur[4];
    size_t cur_sym, cur_date;
    char *err;
    size_t errlen;
} har_parse;

static size_t har_arena_put(har_parse *hp, const char *s, size_t len)
{
    if (hp->arlen + len + 1 > hp->arcap) {
        size_t cap = hp->arcap ? hp->arcap : 1 << 16;
        while (cap < hp->arlen + len + 1)
            cap *= 2;
        char *b = realloc(hp->in->buf, cap);
        if (!b) {
            hp->failed = 1;
            snprintf(hp->err, hp->errlen, "out of memory");
            return 0;
        }
        hp->in->buf = b;
        hp->arcap = cap;
    }
    const size_t off = hp->arlen;
    memcpy(hp->in->buf + off, s, len);
    hp->in->buf[off + len] = 0;
    hp->arlen += len + 1;
    return off;
}

static const char *const har_role_names[6] = {"symbol", "date", "rv", "bpv", "rq", "jump_p"};

static void har_field(void *data, size_t len, void *user)
{
    har_parse *hp = user;
    const char *s = data ? data : "";
    const size_t line = hp->line, colno = (size_t)hp->fidx + 1;
    for (size_t i = 0; i < len; i++)
        hp->line += s[i] == '\n';
    if (hp->failed)
        return;
    if (memchr(s, 0, len)) {
        hp->failed = 1;
        snprintf(hp->err, hp->errlen, "%s:%zu:%zu: NUL byte in field", hp->path, line, colno);
        return;
    }
    char tmp[256];
    const size_t n = len < sizeof tmp - 1 ? len : sizeof tmp - 1;
    memcpy(tmp, s, n);
    tmp[n] = 0;
    if (!hp->header_done) {
        const char *name = tmp; /* (a byte order mark was skipped before parsing) */
        int role = -1;
        for (int j = 0; j < 6; j++)
            if (!strcasecmp(name, hp->names[j])) {
                if (hp->col[j] >= 0 && !(hp->used >> j & 1u)) /* a column the model does not read, twice */
                    continue;
                if (hp->col[j] >= 0) { /* as src/io/reader.c: a used column named twice */
                    hp->failed = 1;
                    snprintf(hp->err, hp->errlen, "%s:%zu:%zu: duplicate column '%s' (also column %d)", hp->path,
                             line, colno, name, hp->col[j] + 1);
                    return;
                }
                if (role >= 0 && j >= 3) /* an optional column (bpv, rq, jump_p) named like a used one: */
                    continue;            /* not taken (e.g. --rv-col bpv fits HAR to the bpv series) */
                if (role >= 0) { /* symbol, date and rv need three columns, e.g. --rv-col date */
                    hp->failed = 1;
                    snprintf(hp->err, hp->errlen, "%s:%zu:%zu: column '%s' is given two roles (%s and %s columns)",
                             hp->path, line, colno, name, har_role_names[role], har_role_names[j]);
                    return;
                }
                role = j;
                hp->col[j] = hp->fidx;
            }
    } else if (hp->fidx == hp->col[0]) {
        hp->cur_sym = har_arena_put(hp, s, len);
    } else if (hp->fidx == hp->col[1]) {
        hp->cur_date = har_arena_put(hp, s, len);
    } else {
        for (int j = 0; j < 4; j++)
            if (hp->fidx == hp->col[2 + j] && len) {
                char *end;
                errno = 0;
                const double v = strtod(tmp, &end);
                if (*end || len >= sizeof tmp) {
                    hp->failed = 1;
                    snprintf(hp->err, hp->errlen, "%s:%zu:%zu: bad number '%s' in column %s", hp->path, line, colno,
                             tmp, hp->names[2 + j]);
                    return;
                }
                hp->cur[j] = v;
            }
    }
    hp->fidx++;
}

static void har_row(int c, void *user)
{
    har_parse *hp = user;
    const size_t line = hp->line;
    const int nf = hp->fidx;
    hp->fidx = 0;
    hp->line += (size_t)raid_csv_lines_ended(c, (size_t)nf, &hp->last_term); /* blank lines count too */
    if (hp->failed || nf == 0) /* nothing more to do for a blank line */
        return;
    if (!hp->header_done) {
        hp->header_done = 1;
        hp->ncol = nf;
        if (hp->col[1] < 0 || hp->col[2] < 0 || (hp->symbol_required && hp->col[0] < 0)) {
            const int j = hp->col[1] < 0 ? 1 : hp->col[2] < 0 ? 2 : 0;
            hp->failed = 1;
            snprintf(hp->err, hp->errlen, "%s:%zu: no column '%s' in the header", hp->path, line, hp->names[j]);
            return;
        }
        for (int j = 0; j < 4; j++)
            hp->in->have[j] = hp->col[2 + j] >= 0;
        hp->in->date_col = hp->col[1] + 1;
    } else {
        if (nf != hp->ncol) {
            hp->failed = 1;
            snprintf(hp->err, hp->errlen, "%s:%zu:%d: %d fields, the header has %d", hp->path, line,
                     nf > hp->ncol ? hp->ncol + 1 : nf, nf, hp->ncol);
            return;
        }
        har_input *in = hp->in;
        if (in->nrows == hp->row_cap) {
            const size_t cap = hp->row_cap ? 2 * hp->row_cap : 1024;
            size_t *so = realloc(hp->sym_off, cap * sizeof *so);
            if (so)
                hp->sym_off = so;
            size_t *dof = so ? realloc(hp->date_off, cap * sizeof *dof) : NULL;
            if (dof)
                hp->date_off = dof;
            size_t *ln = dof ? realloc(in->line, cap * sizeof *ln) : NULL;
            if (ln)
                in->line = ln;
            int ok = so && dof && ln;
            for (int j = 0; j < 4 && ok; j++) {
                double *v = realloc(in->v[j], cap * sizeof *v);
                if (v)
                    in->v[j] = v;
                ok = v != NULL;
            }
            if (!ok) {
                hp->failed = 1;
                snprintf(hp->err, hp->errlen, "out of memory");
                return;
            }
            hp->row_cap = cap;
        }
        const size_t r = in->nrows++;
        hp->sym_off[r] = hp->col[0] >= 0 ? hp->cur_sym : (size_t)-1;
        hp->date_off[r] = hp->cur_date;
        in->line[r] = line;
        for (int j = 0; j < 4; j++)
            in->v[j][r] = hp->cur[j];
    }
    for (int j = 0; j < 4; j++)
        hp->cur[j] = NAN;
}

/* names: symbol, date, rv, bpv, rq, jump_p; used: bit j when the model reads column j. Returns 0, or
 * EXIT_INPUT with a message in err. */
static int har_read(const char *path, const char *const names[6], int symbol_required, unsigned used, har_input *in,
                    char *err, size_t errlen)
{
    memset(in, 0, sizeof *in);
    har_parse hp;
    memset(&hp, 0, sizeof hp);
    hp.path = path;
    hp.names = names;
    hp.symbol_required = symbol_required;
    hp.used = used | 7u;
    hp.in = in;
    hp.line = 1;
    hp.err = err;
    hp.errlen = errlen;
    for (int j = 0; j < 6; j++)
        hp.col[j] = -1;
    for (int j = 0; j < 4; j++)
        hp.cur[j] = NAN;
    FILE *fp = strcmp(path, "-") ? fopen(path, "rb") : stdin;
    if (!fp) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return EXIT_INPUT;
    }
    struct csv_parser p;
    if (csv_init(&p, CSV_APPEND_NULL | CSV_REPALL_NL) != 0) {
        snprintf(err, errlen, "out of memory");
        if (fp != stdin)
            fclose(fp);
        return EXIT_INPUT;
    }
    static char block[1 << 20];
    size_t got;
    int bad = 0;
    int first = 1;
    while (!hp.failed && (got = fread(block, 1, sizeof block, fp)) > 0) {
        size_t skip = 0; /* a UTF-8 byte order mark, before libcsv sees it (a quoted header follows it) */
        if (first && got >= 3 && !memcmp(block, "\xEF\xBB\xBF", 3))
            skip = 3;
        first = 0;
        if (csv_parse(&p, block + skip, got - skip, har_field, har_row, &hp) != got - skip) {
            bad = 1;
            break;
        }
    }
    if (!hp.failed && !bad && csv_fini(&p, har_field, har_row, &hp) != 0)
        bad = 1;
    const int rerr = ferror(fp);
    if (fp != stdin)
        fclose(fp);
    if (!hp.failed && (bad || rerr)) {
        hp.failed = 1;
        snprintf(err, errlen, "%s:%zu: %s", path, hp.line, rerr ? "read error" : csv_strerror(csv_error(&p)));
    }
    csv_free(&p);
    if (!hp.failed && !hp.header_done) {
        hp.failed = 1;
        snprintf(err, errlen, "%s: empty file (no header)", path);
    }
    if (!hp.failed && in->nrows) {
        in->sym = malloc(in->nrows * sizeof *in->sym);
        in->date = malloc(in->nrows * sizeof *in->date);
        if (!in->sym || !in->date) {
            hp.failed = 1;
            snprintf(err, errlen, "out of memory");
        } else {
            for (size_t r = 0; r < in->nrows; r++) {
                in->sym[r] = hp.sym_off[r] == (size_t)-1 ? (char *)"" : in->buf + hp.sym_off[r];
                in->date[r] = in->buf + hp.date_off[r];
            }
        }
    }
    free(hp.sym_off);
    free(hp.date_off);
    return hp.failed ? EXIT_INPUT : 0;
}

/* ---- output ---- */

/* The header of the coefficients CSV, once (*done). */
static void har_put_header(FILE *f, int *done, int windows, int k, char cname[][24])
{
    if (*done)
        return;
    *done = 1;
    fputs(windows ? "symbol,model,transform,h,window_end,n,r2,r2_adj" : "symbol,model,transform,h,n,r2,r2_adj", f);
    for (int j = 0; j < k; j++)
        fprintf(f, ",%s,%s_se,%s_t", cname[j], cname[j], cname[j]);
    fputc('\n', f);
}

static void har_put_row(FILE *f, const char *sym, const har_spec *sp, const char *window_end, const raid_ols *o)
{
    cli_put_field(f, sym);
    fprintf(f, ",%s,%s,%d", har_model_names[sp->model], har_transform_names[sp->transform], sp->h);
    if (window_end)
        fprintf(f, ",%s", window_end);
    fprintf(f, ",%lld", (long long)o->n);
    cli_put_value(f, o->r2);
    cli_put_value(f, o->r2_adj);
    for (int j = 0; j < o->k; j++) {
        cli_put_value(f, o->beta[j]);
        cli_put_value(f, o->se[j]);
        cli_put_value(f, o->tstat[j]);
    }
    fputc('\n', f);
}

/* ---- estimation ---- */

typedef struct har_sym {
    const char *name;
    size_t first, n;  /* input rows */
    double *X, *y;    /* design */
    size_t *tix;
    size_t m;         /* design rows */
    int ok;           /* design usable */
} har_sym;

/* OLS and inference of rows [0, m) of X, y with statistics s; 0 or -1 (message in err). */
static int har_fit(raid_ctx *ctx, const raid_reg_stats *s, const double *X, const double *y, int k, int64_t m,
                   raid_se_kind se, int nw_lag, raid_ols *o, char *err, size_t errlen)
{
    raid_status st = raid_ols_from_stats(s, 1, o, err, errlen);
    if (st != RAID_OK) {
        if (!*err)
            snprintf(err, errlen, "%s", raid_strerror(st));
        return -1;
    }
    if (se == RAID_SE_OLS)
        return 0;
    const int L = har_meat_lag(se, nw_lag, m);
    double *meat = malloc((size_t)(L + 1) * (size_t)k * (size_t)k * sizeof *meat);
    if (!meat) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    int64_t lo = 0, hi = m;
    double c[RAID_REG_MAX_K];
    raid_reg_stats_centre(s, c);
    st = raid_reg_meat_ranges_at(ctx, X, y, k, &lo, &hi, 1, o->beta, c, L, meat);
    if (st == RAID_OK)
        st = raid_ols_robust_at(s, meat, c, L, se, o);
    free(meat);
    if (st != RAID_OK) {
        har_robust_msg(s, st, err, errlen);
        return -1;
    }
    return 0;
}

/* Path of a companion file: base with ".csv" removed, then suffix. */
static char *har_companion(const char *base, const char *strip, const char *suffix)
{
    size_t bl = strlen(base), sl = strlen(strip);
    if (bl > sl && !strcmp(base + bl - sl, strip))
        bl -= sl;
    else if (bl > 4 && !strcmp(base + bl - 4, ".csv"))
        bl -= 4;
    char *p = malloc(bl + strlen(suffix) + 1);
    if (p) {
        memcpy(p, base, bl);
        strcpy(p + bl, suffix);
    }
    return p;
}

static int har_parse_lags(const char *s, har_spec *sp)
{
    sp->nlags = 0;
    const char *p = s;
    while (*p) {
        char *end;
        errno = 0;
        long v = strtol(p, &end, 10);
        if (end == p || errno || v < 1 || v > 10000 || sp->nlags == HAR_MAX_LAGS)
            return -1;
        if (sp->nlags && v <= sp->lags[sp->nlags - 1])
            return -1;
        sp->lags[sp->nlags++] = (int)v;
        if (*end == ',' && end[1])
            end++;
        else if (*end) /* anything else, or a trailing comma */
            return -1;
        p = end;
    }
    return sp->nlags >= 1 && sp->lags[0] == 1 ? 0 : -1;
}

typedef struct har_losses {
    size_t n, nq;
    double sse, sq;
} har_losses;

int cmd_har(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"output", required_argument, 0, 'o'},   {"device", required_argument, 0, 'd'},
        {"model", required_argument, 0, 'm'},    {"lags", required_argument, 0, 'l'},
        {"h", required_argument, 0, 'H'},        {"transform", required_argument, 0, 't'},
        {"se", required_argument, 0, 's'},       {"nw-lag", required_argument, 0, 'n'},
        {"window", required_argument, 0, 'w'},   {"forecasts", required_argument, 0, 'f'},
        {"alpha", required_argument, 0, 'a'},    {"rv-col", required_argument, 0, 1},
        {"bpv-col", required_argument, 0, 2},    {"rq-col", required_argument, 0, 3},
        {"jump-p-col", required_argument, 0, 4}, {"symbol-col", required_argument, 0, 5},
        {"date-col", required_argument, 0, 6},   {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    har_spec sp = {.model = HAR_HAR, .transform = HAR_NONE, .h = 1, .nlags = 3, .lags = {1, 5, 22}, .alpha = 0.05};
    const char *names[6] = {"symbol", "date", "rv", "bpv", "rq", "jump_p"};
    const char *out_path = NULL, *fc_path = NULL, *device = NULL;
    raid_se_kind se = RAID_SE_NW;
    int64_t nw_lag = -1, win = 0, h = 1;
    int win_kind = 0, symbol_required = 0, opt; /* win_kind 0 none, 1 rolling, 2 expanding */
    optind = 1;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, ":o:h", longopts, NULL)) != -1) {
        switch (opt) {
        case 'o':
            if (!*optarg) {
                fprintf(stderr, "raid har: empty -o\n");
                return EXIT_USAGE;
            }
            out_path = optarg;
            break;
        case 'f':
            if (!*optarg) {
                fprintf(stderr, "raid har: empty --forecasts\n");
                return EXIT_USAGE;
            }
            fc_path = optarg;
            break;
        case 'd':
            if (!*optarg) {
                fprintf(stderr, "raid har: empty --device\n");
                return EXIT_USAGE;
            }
            device = optarg;
            break;
        case 'm': {
            int found = -1;
            for (int i = 0; i < 4; i++)
                if (!strcmp(optarg, har_model_names[i]))
                    found = i;
            if (found < 0) {
                fprintf(stderr, "raid har: bad --model '%s' (expected har, har-j, har-cj or harq)\n", optarg);
                return EXIT_USAGE;
            }
            sp.model = found;
            break;
        }
        case 't': {
            int found = -1;
            for (int i = 0; i < 3; i++)
                if (!strcmp(optarg, har_transform_names[i]))
                    found = i;
            if (found < 0) {
                fprintf(stderr, "raid har: bad --transform '%s' (expected none, log or sqrt)\n", optarg);
                return EXIT_USAGE;
            }
            sp.transform = found;
            break;
        }
        case 'l':
            if (har_parse_lags(optarg, &sp)) {
                fprintf(stderr,
                        "raid har: bad --lags '%s' (expected at most %d increasing integers from 1 to 10000, the "
                        "first 1)\n", optarg, HAR_MAX_LAGS);
                return EXIT_USAGE;
            }
            break;
        case 'H':
            if (cli_parse_i64(optarg, 1, 1000, &h)) {
                fprintf(stderr, "raid har: bad --h '%s' (expected an integer in [1, 1000])\n", optarg);
                return EXIT_USAGE;
            }
            sp.h = (int)h;
            break;
        case 's':
            if (!strcmp(optarg, "ols"))
                se = RAID_SE_OLS;
            else if (!strcmp(optarg, "white"))
                se = RAID_SE_WHITE;
            else if (!strcmp(optarg, "nw"))
                se = RAID_SE_NW;
            else {
                fprintf(stderr, "raid har: bad --se '%s' (expected ols, white or nw)\n", optarg);
                return EXIT_USAGE;
            }
            break;
        case 'n':
            if (cli_parse_i64(optarg, 0, 100000, &nw_lag)) {
                fprintf(stderr, "raid har: bad --nw-lag '%s' (expected an integer from 0 to 100000)\n", optarg);
                return EXIT_USAGE;
            }
            break;
        case 'w': {
            const char *c = strchr(optarg, ':');
            size_t pl = c ? (size_t)(c - optarg) : 0;
            if (c && pl == 7 && !strncmp(optarg, "rolling", 7))
                win_kind = 1;
            else if (c && pl == 9 && !strncmp(optarg, "expanding", 9))
                win_kind = 2;
            if (!win_kind || cli_parse_i64(c + 1, 0, INT32_MAX, &win)) { /* N <= k: the message below */
                fprintf(stderr, "raid har: bad --window '%s' (expected rolling:N or expanding:N)\n", optarg);
                return EXIT_USAGE;
            }
            break;
        }
        case 'a': {
            double a;
            if (cli_parse_double(optarg, &a) || !(a > 0 && a < 1)) {
                fprintf(stderr, "raid har: bad --alpha '%s' (expected a number in (0, 1))\n", optarg);
                return EXIT_USAGE;
            }
            sp.alpha = a;
            break;
        }
        case 1: names[2] = optarg; break;
        case 2: names[3] = optarg; break;
        case 3: names[4] = optarg; break;
        case 4: names[5] = optarg; break;
        case 5:
            names[0] = optarg;
            symbol_required = 1;
            break;
        case 6: names[1] = optarg; break;
        case 'h': fputs(cli_help("har"), stdout); return 0;
        case ':': fprintf(stderr, "raid har: option %s needs a value\n", argv[optind - 1]); return EXIT_USAGE;
        default: fprintf(stderr, "raid har: unknown option %s\n", argv[optind - 1]); return EXIT_USAGE;
        }
    }
    if (optind != argc - 1) {
        fprintf(stderr, "raid har: expected one input FILE (see raid help har)\n");
        return EXIT_USAGE;
    }
    if (fc_path && !cli_is_plain_file(fc_path)) {
        fprintf(stderr, "raid har: --forecasts '%s' must name a file (its losses file goes beside it), not standard "
                "output or a device\n", fc_path);
        return EXIT_USAGE;
    }
    if (cli_same_file(fc_path, out_path)) {
        fprintf(stderr, "raid har: --forecasts and -o name the same file '%s'\n", out_path);
        return EXIT_USAGE;
    }
    for (int j = 0; j < 2; j++)
        if (cli_same_file(argv[optind], j ? fc_path : out_path) ||
            (!strcmp(argv[optind], "-") && cli_is_stdin_file(j ? fc_path : out_path))) {
            fprintf(stderr, "raid har: %s '%s' is the input file '%s'\n", j ? "--forecasts" : "-o",
                    j ? fc_path : out_path, argv[optind]);
            return EXIT_USAGE;
        }
    if (sp.model == HAR_Q && sp.transform != HAR_NONE) {
        fprintf(stderr, "raid har: --model harq takes --transform none only\n");
        return EXIT_USAGE;
    }
    if (har_k(&sp) > RAID_REG_MAX_K) {
        fprintf(stderr, "raid har: too many regressors (%d, at most %d): use fewer --lags\n", har_k(&sp),
                RAID_REG_MAX_K);
        return EXIT_USAGE;
    }
    if (fc_path && !win_kind) {
        fprintf(stderr, "raid har: --forecasts needs --window\n");
        return EXIT_USAGE;
    }
    if (win_kind && win <= har_k(&sp)) {
        fprintf(stderr, "raid har: --window N must exceed the number of regressors (%d)\n", har_k(&sp));
        return EXIT_USAGE;
    }
    const char *in_path = argv[optind];
    const int k = har_k(&sp);
    char cname[RAID_REG_MAX_K][24];
    har_names(&sp, cname);

    char err[4096];
    err[0] = 0;
    raid_ctx *ctx = NULL;
    raid_status st = raid_ctx_create(&ctx, device, err, sizeof err);
    if (st != RAID_OK) {
        fprintf(stderr, "raid har: %s\n", err);
        return cli_exit_for(st) == EXIT_USAGE ? EXIT_USAGE : EXIT_DEVICE;
    }
    /* Windows: the statistics of the partial edge blocks come from the float64 cpu path, one context per
     * thread (a context serves one thread at a time), since a symbol's windows are solved in parallel. */
    const int nthr = win_kind ? omp_get_max_threads() : 1;
    raid_ctx **cpus = win_kind ? calloc((size_t)nthr, sizeof *cpus) : NULL;
    if (win_kind) {
        if (!cpus) {
            fprintf(stderr, "raid har: out of memory\n");
            raid_ctx_destroy(ctx);
            return EXIT_DEVICE;
        }
        for (int i = 0; i < nthr; i++) {
            if (i == 0 && raid_ctx_backend(ctx) == RAID_BACKEND_CPU)
                cpus[i] = ctx;
            else if ((st = raid_ctx_create(&cpus[i], "cpu", err, sizeof err)) != RAID_OK) {
                fprintf(stderr, "raid har: %s\n", err);
                for (int j = 0; j < i; j++)
                    if (cpus[j] != ctx)
                        raid_ctx_destroy(cpus[j]);
                free(cpus);
                raid_ctx_destroy(ctx);
                return EXIT_DEVICE;
            }
        }
    }

    int rc = 0;
    har_input in;
    har_sym *sy = NULL;
    size_t nsym = 0;
    double *Xall = NULL, *yall = NULL;
    int64_t *off = NULL;
    raid_reg_stats *stats = NULL;
    raid_ols *fit = NULL;       /* full-sample fits of every symbol (batched robust errors) */
    double *fit_meat = NULL, *fit_centre = NULL;
    int fit_lmax = 0;
    char *fcp = NULL, *lsp = NULL;
    har_losses *loss = NULL;
    cli_out out, fout, lout;
    memset(&out, 0, sizeof out);
    memset(&fout, 0, sizeof fout);
    memset(&lout, 0, sizeof lout);
    out.is_stdout = fout.is_stdout = lout.is_stdout = 1; /* nothing to abort yet */
    int fopen_ = 0, lopen = 0;

    const unsigned used = sp.model == HAR_J ? 1u << 3 : sp.model == HAR_CJ ? (1u << 3 | 1u << 5)
                          : sp.model == HAR_Q ? 1u << 4 : 0u;
    if ((rc = har_read(in_path, names, symbol_required, used, &in, err, sizeof err)) != 0) {
        fprintf(stderr, "raid har: %s\n", err);
        goto done;
    }
    /* Symbols: runs of rows with the same symbol, in file order; a symbol seen again later is an error. */
    sy = calloc(in.nrows ? in.nrows : 1, sizeof *sy);
    if (!sy) {
        fprintf(stderr, "raid har: out of memory\n");
        rc = EXIT_INPUT;
        goto done;
    }
    for (size_t r = 0; r < in.nrows; r++) {
        if (nsym && !strcmp(sy[nsym - 1].name, in.sym[r])) {
            sy[nsym - 1].n++;
            continue;
        }
        for (size_t q = 0; q < nsym; q++)
            if (!strcmp(sy[q].name, in.sym[r])) {
                fprintf(stderr,
                        "raid har: %s:%zu: symbol '%s' again, after other symbols (its rows end on line %zu); the rows "
                        "of a symbol must be contiguous (sort FILE by symbol, date)\n",
                        in_path, in.line[r], in.sym[r], in.line[sy[q].first + sy[q].n - 1]);
                rc = EXIT_INPUT;
                goto done;
            }
        sy[nsym].name = in.sym[r];
        sy[nsym].first = r;
        sy[nsym].n = 1;
        nsym++;
    }
    if (!nsym) {
        fprintf(stderr, "raid har: %s: no data rows\n", in_path);
        rc = EXIT_INPUT;
        goto done;
    }
    int need_col = sp.model == HAR_J ? 1 : sp.model == HAR_Q ? 2 : -1;
    int nok = 0;
    size_t total = 0;
    for (size_t q = 0; q < nsym; q++) {
        har_sym *S = &sy[q];
        const char *nm = *S->name ? S->name : "(no symbol)";
        if (need_col >= 0 && !in.have[need_col]) {
            fprintf(stderr, "raid har: %s: no column '%s' (needed by --model %s)\n", nm, names[2 + need_col],
                    har_model_names[sp.model]);
            continue;
        }
        if (sp.model == HAR_CJ && (!in.have[1] || !in.have[3])) {
            fprintf(stderr, "raid har: %s: no column '%s' (needed by --model har-cj)\n", nm,
                    !in.have[1] ? names[3] : names[5]);
            continue;
        }
        int sorted = 1;
        for (size_t r = S->first + 1; r < S->first + S->n; r++)
            if (strcmp(in.date[r - 1], in.date[r]) >= 0) {
                fprintf(stderr, "raid har: %s:%zu:%d: %s: date '%s' %s '%s' on line %zu (dates must increase within a "
                        "symbol); symbol skipped\n", in_path, in.line[r], in.date_col, nm, in.date[r],
                        strcmp(in.date[r - 1], in.date[r]) ? "comes before" : "repeats", in.date[r - 1], in.line[r - 1]);
                sorted = 0;
                break;
            }
        if (!sorted)
            continue;
        size_t bad = 0;
        har_series ser = {S->n, in.v[0] + S->first, in.have[1] ? in.v[1] + S->first : NULL,
                          in.have[2] ? in.v[2] + S->first : NULL, in.have[3] ? in.v[3] + S->first : NULL};
        S->X = malloc(S->n * (size_t)k * sizeof *S->X);
        S->y = malloc(S->n * sizeof *S->y);
        S->tix = malloc(S->n * sizeof *S->tix);
        if (!S->X || !S->y || !S->tix || (S->m = har_design(&sp, &ser, S->X, S->y, S->tix, &bad)) == (size_t)-1) {
            fprintf(stderr, "raid har: out of memory\n");
            rc = EXIT_INPUT;
            goto done;
        }
        { /* rows left out for missing or invalid days: say how many, and where the first one is */
            const size_t lo = (size_t)sp.lags[sp.nlags - 1] - 1, nposs = S->n >= lo + (size_t)sp.h + 1
                                                                         ? S->n - lo - (size_t)sp.h : 0;
            if (S->m < nposs && bad < S->n)
                fprintf(stderr, "raid har: %s: %zu of %zu design rows left out: they touch a day whose value is empty, "
                        "not finite or invalid for the transform (the first such day: %s, line %zu)\n", nm,
                        nposs - S->m, nposs, in.date[S->first + bad], in.line[S->first + bad]);
        }
        /* The statistics take values up to 1e150 (their products must not overflow float64): a symbol
         * with larger ones is reported and skipped, the others are still estimated. */
        int in_range = 1;
        for (size_t i = 0; i < S->m * (size_t)k && in_range; i++)
            in_range = fabs(S->X[i]) <= 1e150;
        for (size_t i = 0; i < S->m && in_range; i++)
            in_range = fabs(S->y[i]) <= 1e150;
        if (!in_range) {
            fprintf(stderr, "raid har: %s: a regressor or target beyond 1e150 in magnitude (rv out of range)\n", nm);
            continue;
        }
        /* Robust errors sum products of four values (e^2 x x'): beyond 1e60, or nonzero below 1e-60, those
         * leave float64's normal range and the standard errors would be silently wrong or empty. */
        if (se != RAID_SE_OLS) {
            for (size_t i = 0; i < S->m * ((size_t)k + 1) && in_range; i++) {
                const double v = i < S->m * (size_t)k ? S->X[i] : S->y[i - S->m * (size_t)k];
                in_range = v == 0 || (fabs(v) >= 1e-60 && fabs(v) <= 1e60);
            }
            if (!in_range) {
                fprintf(stderr, "raid har: %s: robust standard errors need regressors and targets within 1e-60 to 1e60 "
                        "in magnitude (sums of their fourth powers must stay in float64's normal range): rescale rv, "
                        "or use --se ols\n", nm);
                continue;
            }
        }
        size_t need_rows = win_kind ? (size_t)win : (size_t)k + 1;
        if (S->m < need_rows) {
            fprintf(stderr, "raid har: %s: too few observations (%zu usable rows of %zu days, need %zu)\n", nm, S->m,
                    S->n, need_rows);
            continue;
        }
        S->ok = 1;
        total += S->m;
    }

    /* The estimation problems: one per symbol, or one per block of HAR_BLOCK rows for windows. */
    size_t nprob = 0;
    for (size_t q = 0; q < nsym; q++)
        if (sy[q].ok)
            nprob += win_kind ? (sy[q].m + HAR_BLOCK - 1) / HAR_BLOCK : 1;
    if (!nprob) {
        fprintf(stderr, "raid har: no symbol could be estimated\n");
        rc = EXIT_INPUT;
        goto done;
    }
    Xall = malloc(total * (size_t)k * sizeof *Xall);
    yall = malloc(total * sizeof *yall);
    off = malloc((nprob + 1) * sizeof *off);
    stats = malloc(nprob * sizeof *stats);
    if (!Xall || !yall || !off || !stats) {
        fprintf(stderr, "raid har: out of memory\n");
        rc = EXIT_INPUT;
        goto done;
    }
    {
        size_t pos = 0, g = 0;
        off[0] = 0;
        for (size_t q = 0; q < nsym; q++) {
            if (!sy[q].ok)
                continue;
            memcpy(Xall + pos * (size_t)k, sy[q].X, sy[q].m * (size_t)k * sizeof *Xall);
            memcpy(yall + pos, sy[q].y, sy[q].m * sizeof *yall);
            if (win_kind)
                for (size_t b = 0; b < sy[q].m; b += HAR_BLOCK)
                    off[++g] = (int64_t)(pos + (b + HAR_BLOCK < sy[q].m ? b + HAR_BLOCK : sy[q].m));
            else
                off[++g] = (int64_t)(pos + sy[q].m);
            pos += sy[q].m;
        }
    }
    if ((st = raid_reg_stats_compute(ctx, Xall, yall, k, off, nprob, stats)) != RAID_OK) {
        fprintf(stderr, "raid har: %s: %s\n", raid_strerror(st), raid_ctx_errmsg(ctx));
        rc = st == RAID_EINVAL ? EXIT_INPUT : EXIT_DEVICE;
        goto done;
    }

    if (cli_open_output(&out, out_path ? out_path : "-") != 0) {
        out.is_stdout = 1;
        rc = EXIT_INPUT;
        goto done;
    }
    if (win_kind) {
        /* Side files go beside OUT only when OUT is a regular file (not stdout, /dev/null or a FIFO). */
        const int out_regular = cli_is_plain_file(out_path); /* not stdout, /dev/..., a FIFO */
        const char *base = fc_path ? fc_path : out_regular ? out_path : NULL;
        if (base) {
            fcp = fc_path ? strdup(fc_path) : har_companion(out_path, ".csv", ".forecasts.csv");
            lsp = har_companion(base, ".forecasts.csv", ".losses.csv");
            if (!fcp || !lsp) {
                fprintf(stderr, "raid har: out of memory\n");
                rc = EXIT_INPUT;
                goto done;
            }
            /* the side files against each other, -o and the input (e.g. -o x.losses.csv --forecasts x.csv) */
            const char *const pth[4] = {in_path, out_path, fcp, lsp};
            for (int i = 0; i < 3; i++)
                for (int j = i < 2 ? 2 : 3; j < 4; j++)
                    if (cli_same_file(pth[i], pth[j])) {
                        fprintf(stderr, "raid har: the %s '%s' and the %s are the same file\n",
                                j == 3 ? "losses file" : "forecasts file", pth[j],
                                i == 0 ? "input" : i == 1 ? "-o file" : "forecasts file");
                        rc = EXIT_USAGE;
                        goto done;
                    }
            if (cli_open_output(&fout, fcp) != 0) {
                fout.is_stdout = 1;
                rc = EXIT_INPUT;
                goto done;
            }
            fopen_ = 1;
            if (cli_open_output(&lout, lsp) != 0) {
                lout.is_stdout = 1;
                rc = EXIT_INPUT;
                goto done;
            }
            lopen = 1;
            fputs("symbol,date,forecast,actual,sq_err,qlike\n", fout.fp);
            fputs("symbol,model,transform,h,n_forecasts,mse,qlike,n_qlike\n", lout.fp);
        }
        loss = calloc(nsym, sizeof *loss);
        if (!loss) {
            fprintf(stderr, "raid har: out of memory\n");
            rc = EXIT_INPUT;
            goto done;
        }
    }
    int header_done = 0; /* the header goes out with the first row: nothing when no symbol is estimated */

    /* Full-sample fits with robust errors: every symbol's OLS first, then the meat of all of them in ONE
     * call (one device pass for thousands of symbols), each symbol with the lags it needs read from a
     * common (Lmax + 1) k k layout. Should that call fail (a value the device path refuses), each symbol
     * falls back to its own call below, so that one symbol's problem does not stop the others. */
    if (!win_kind && se != RAID_SE_OLS) {
        fit = calloc(nprob, sizeof *fit);
        double *fb = calloc(nprob * (size_t)k, sizeof *fb), *fc = calloc(nprob * (size_t)k, sizeof *fc);
        if (fit && fb && fc) {
            size_t gg = 0;
            for (size_t q = 0; q < nsym; q++) {
                if (!sy[q].ok)
                    continue;
                raid_reg_stats_centre(&stats[gg], fc + gg * (size_t)k);
                if (raid_ols_from_stats(&stats[gg], 1, &fit[gg], NULL, 0) == RAID_OK) {
                    memcpy(fb + gg * (size_t)k, fit[gg].beta, (size_t)k * sizeof *fb);
                    const int L = har_meat_lag(se, nw_lag, (int64_t)sy[q].m);
                    fit_lmax = L > fit_lmax ? L : fit_lmax;
                } else {
                    fit[gg].k = 0; /* failed: reported by the per-symbol path */
                }
                gg++;
            }
            const size_t nc = (size_t)(fit_lmax + 1) * (size_t)k * (size_t)k;
            fit_meat = malloc(nprob * nc * sizeof *fit_meat);
            if (fit_meat &&
                raid_reg_meat_ranges_at(ctx, Xall, yall, k, off, off + 1, nprob, fb, fc, fit_lmax, fit_meat) != RAID_OK) {
                free(fit_meat);
                fit_meat = NULL;
            }
            fit_centre = fc;
            fc = NULL;
        }
        free(fb);
        free(fc);
    }

    size_t g = 0;
    for (size_t q = 0; q < nsym; q++) {
        har_sym *S = &sy[q];
        if (!S->ok)
            continue;
        const char *nm = *S->name ? S->name : "(no symbol)";
        char **date = in.date + S->first;
        const double *rawrv = in.v[0] + S->first;
        raid_ols o;
        err[0] = 0;
        if (!win_kind) {
            int fitted;
            if (fit_meat && fit[g].k) { /* the batched path */
                const int L = har_meat_lag(se, nw_lag, (int64_t)S->m);
                o = fit[g];
                const size_t nc = (size_t)(fit_lmax + 1) * (size_t)k * (size_t)k;
                raid_status rs = raid_ols_robust_at(&stats[g], fit_meat + g * nc, fit_centre + g * (size_t)k, L, se, &o);
                if (rs != RAID_OK)
                    har_robust_msg(&stats[g], rs, err, sizeof err);
                fitted = rs == RAID_OK ? 0 : -1;
            } else {
                fitted = har_fit(ctx, &stats[g], S->X, S->y, k, (int64_t)S->m, se, (int)nw_lag, &o, err, sizeof err);
            }
            if (fitted == 0) {
                har_put_header(out.fp, &header_done, win_kind != 0, k, cname);
                har_put_row(out.fp, S->name, &sp, NULL, &o);
                nok++;
            } else {
                fprintf(stderr, "raid har: %s: %s\n", nm, err);
            }
            g++;
            continue;
        }
        /* Windows over the design rows: end e (inclusive), start s = e-N+1 (rolling) or 0 (expanding). The
         * statistics of a window are the combination of the block statistics it covers whole and of the
         * partial blocks at its edges, computed directly on the cpu path. */
        const size_t nb = (S->m + HAR_BLOCK - 1) / HAR_BLOCK, N = (size_t)win;
        const raid_reg_stats *bs = &stats[g];
        size_t fails = 0, nfit = 0;
        char firsterr[512] = "";
        /* Phase 1: every window's statistics and OLS coefficients. */
        const size_t nwin = S->m - (N - 1);
        raid_reg_stats *wst = malloc(nwin * sizeof *wst);
        raid_ols *wo = malloc(nwin * sizeof *wo);
        int64_t *wlo = malloc(nwin * sizeof *wlo), *whi = malloc(nwin * sizeof *whi);
        int *wok = calloc(nwin, sizeof *wok);
        double *wbeta = malloc(nwin * (size_t)k * sizeof *wbeta), *wmeat = NULL, *wcen = NULL;
        if (!wst || !wo || !wlo || !whi || !wok || !wbeta) {
            fprintf(stderr, "raid har: out of memory\n");
            rc = EXIT_INPUT;
            free(wst), free(wo), free(wlo), free(whi), free(wok), free(wbeta);
            goto done;
        }
        int lmax = 0;
        /* Windows are independent: solved in parallel, each thread with its own cpu context; statuses
         * are kept per window and reported in window order below (the first failure's message is
         * recomputed there), so the output does not depend on the threads. */
        raid_status *wsc = malloc(nwin * sizeof *wsc);
        if (!wsc) {
            fprintf(stderr, "raid har: out of memory\n");
            rc = EXIT_INPUT;
            free(wst), free(wo), free(wlo), free(whi), free(wok), free(wbeta);
            goto done;
        }
        const long long nwl = (long long)nwin;
#pragma omp parallel for schedule(dynamic, 16)
        for (long long wl = 0; wl < nwl; wl++) {
            raid_ctx *mycpu = cpus[omp_get_thread_num()];
            const size_t w = (size_t)wl, e = w + (N - 1);
            const size_t s0 = win_kind == 1 ? e + 1 - N : 0, s1 = e + 1; /* rows [s0, s1) */
            raid_reg_stats ws;
            memset(&ws, 0, sizeof ws);
            ws.k = k;
            const raid_status sw = raid_reg_stats_range(mycpu, bs, HAR_BLOCK, S->X, S->y, k, (int64_t)s0, (int64_t)s1,
                                                        &ws);
            wsc[w] = sw;
            wst[w] = ws;
            wlo[w] = (int64_t)s0;
            whi[w] = (int64_t)s1;
            if (sw == RAID_OK && raid_ols_from_stats(&ws, 1, &wo[w], NULL, 0) == RAID_OK) {
                wok[w] = 1;
                memcpy(wbeta + w * (size_t)k, wo[w].beta, (size_t)k * sizeof *wbeta);
            }
        }
        for (size_t w = 0; w < nwin && st == RAID_OK; w++) {
            if (wsc[w] != RAID_OK)
                st = wsc[w];
            else if (!wok[w]) {
                if (!fails++) {
                    err[0] = 0;
                    raid_ols tmp;
                    raid_ols_from_stats(&wst[w], 1, &tmp, err, sizeof err);
                    snprintf(firsterr, sizeof firsterr, "%.200s", *err ? err : "singular design");
                }
            } else {
                const int64_t n_w = whi[w] - wlo[w];
                const int L = har_meat_lag(se, nw_lag, n_w);
                lmax = L > lmax ? L : lmax;
            }
        }
        free(wsc);
        if (st != RAID_OK) {
            fprintf(stderr, "raid har: %s: window statistics: %s\n", nm, raid_strerror(st));
            rc = EXIT_DEVICE;
            free(wst), free(wo), free(wlo), free(whi), free(wok), free(wbeta);
            goto done;
        }
        /* Phase 2: the robust meat of all windows in one call (one device pass on opencl), then the
         * robust standard errors of each window with its own lag. */
        if (se != RAID_SE_OLS) {
            const size_t nc = (size_t)(lmax + 1) * (size_t)k * (size_t)k;
            wmeat = malloc(nwin * nc * sizeof *wmeat);
            wcen = malloc(nwin * (size_t)k * sizeof *wcen);
            size_t nv = 0;
            for (size_t w = 0; w < nwin; w++)
                if (wok[w]) { /* compact the estimated windows to the front */
                    wlo[nv] = wlo[w];
                    whi[nv] = whi[w];
                    memmove(wbeta + nv * (size_t)k, wbeta + w * (size_t)k, (size_t)k * sizeof *wbeta);
                    if (wcen)
                        raid_reg_stats_centre(&wst[w], wcen + nv * (size_t)k);
                    nv++;
                }
            st = wmeat && wcen ? raid_reg_meat_ranges_at(ctx, S->X, S->y, k, wlo, whi, nv, wbeta, wcen, lmax, wmeat)
                               : RAID_ENOMEM;
            for (size_t w = 0, v = 0; w < nwin; w++) {
                if (!wok[w])
                    continue;
                const int64_t n_w = wst[w].n;
                const int L = har_meat_lag(se, nw_lag, n_w);
                raid_status rs =
                    st == RAID_OK ? raid_ols_robust_at(&wst[w], wmeat + v * nc, wcen + v * (size_t)k, L, se, &wo[w]) : st;
                v++;
                if (rs != RAID_OK) {
                    wok[w] = 0;
                    if (!fails++)
                        har_robust_msg(&wst[w], rs, firsterr, sizeof firsterr);
                }
            }
        }
        /* Phase 3: output and forecasts, in window order. */
        for (size_t e = N - 1; e < S->m; e++) {
            const size_t w = e - (N - 1);
            if (!wok[w])
                continue;
            raid_ols o = wo[w];
            nfit++;
            /* The window uses rv up to day tix[e] + h: window_end. The forecast row is day t = tix[e] + h. */
            const size_t tend = S->tix[e] + (size_t)sp.h;
            har_put_header(out.fp, &header_done, win_kind != 0, k, cname);
            har_put_row(out.fp, S->name, &sp, date[tend], &o);
            size_t ef = e + 1;
            while (ef < S->m && S->tix[ef] < tend)
                ef++;
            if (ef >= S->m || S->tix[ef] != tend)
                continue;
            const double *x = S->X + ef * (size_t)k;
            double yhat = 0;
            for (int j = 0; j < k; j++)
                yhat += x[j] * o.beta[j];
            double fc = har_finv(sp.transform, yhat), act = 0;
            for (size_t i = tend + 1; i <= tend + (size_t)sp.h; i++)
                act += rawrv[i];
            act /= (double)sp.h;
            double sq = (act - fc) * (act - fc), ql = NAN;
            if (fc > 0 && act > 0)
                ql = act / fc - log(act / fc) - 1.0;
            loss[q].n++;
            loss[q].sse += sq;
            if (isfinite(ql)) {
                loss[q].nq++;
                loss[q].sq += ql;
            }
            if (fopen_) {
                cli_put_field(fout.fp, S->name);
                fprintf(fout.fp, ",%s", date[tend + 1]);
                cli_put_value(fout.fp, fc);
                cli_put_value(fout.fp, act);
                cli_put_value(fout.fp, sq);
                cli_put_value(fout.fp, ql);
                fputc('\n', fout.fp);
            }
        }
        free(wst), free(wo), free(wlo), free(whi), free(wok), free(wbeta), free(wmeat), free(wcen);
        if (fails)
            fprintf(stderr, "raid har: %s: %zu of %zu windows not estimated (first: %s)\n", nm, fails, fails + nfit,
                    firsterr);
        if (nfit)
            nok++;
        else
            fprintf(stderr, "raid har: %s: no window could be estimated\n", nm);
        g += nb;
    }
    if (win_kind) {
        fprintf(stderr, "forecast losses (%s, transform %s, h %d; QLIKE on the variance scale):\n",
                har_model_names[sp.model], har_transform_names[sp.transform], sp.h);
        fprintf(stderr, "  %-16s %8s %-24s %-24s\n", "symbol", "n", "mse", "qlike");
        for (size_t q = 0; q < nsym; q++) {
            if (!sy[q].ok || !loss[q].n)
                continue;
            double mse = loss[q].sse / (double)loss[q].n, ql = loss[q].nq ? loss[q].sq / (double)loss[q].nq : NAN;
            fprintf(stderr, "  %-16s %8zu %-24.17g %-24.17g\n", *sy[q].name ? sy[q].name : "(no symbol)", loss[q].n,
                    mse, ql);
            if (lopen) {
                cli_put_field(lout.fp, sy[q].name);
                fprintf(lout.fp, ",%s,%s,%d,%zu", har_model_names[sp.model], har_transform_names[sp.transform], sp.h,
                        loss[q].n);
                cli_put_value(lout.fp, mse);
                cli_put_value(lout.fp, ql);
                fprintf(lout.fp, ",%zu\n", loss[q].nq);
            }
        }
    }
    if (!nok) {
        fprintf(stderr, "raid har: no symbol could be estimated\n");
        rc = EXIT_INPUT;
        goto done;
    }
    if (cli_commit_output(&out) != 0 || (fopen_ && cli_commit_output(&fout) != 0) ||
        (lopen && cli_commit_output(&lout) != 0)) {
        rc = EXIT_INPUT;
        goto done;
    }
    fopen_ = lopen = 0;
    out.is_stdout = 1;

done:
    free(fit);
    free(fit_meat);
    free(fit_centre);
    if (rc) {
        cli_abort_output(&out);
        if (fopen_)
            cli_abort_output(&fout);
        if (lopen)
            cli_abort_output(&lout);
    }
    if (sy)
        for (size_t q = 0; q < nsym; q++) {
            free(sy[q].X);
            free(sy[q].y);
            free(sy[q].tix);
        }
    free(sy);
    free(Xall);
    free(yall);
    free(off);
    free(stats);
    free(fcp);
    free(lsp);
    free(loss);
    har_input_free(&in);
    for (int i = 0; cpus && i < nthr; i++)
        if (cpus[i] && cpus[i] != ctx)
            raid_ctx_destroy(cpus[i]);
    free(cpus);
    raid_ctx_destroy(ctx);
    return rc;
}
