/* raid har: the design of every model on tiny hand-made series (exact expected rows, through the public
 * raid_har_design), the library's fit from arrays and from a CSV (the same bytes as the CLI; statuses and
 * messages), the per-symbol errors (too few rows, a constant regressor, a missing column: the other
 * symbols still estimated, exit 0; exit 2 when none is), usage errors, and the CLI end to end as a
 * subprocess (cpu and opencl agree; a single window equals the full-sample fit; forecasts and losses
 * files). Compiled against include/ only: it uses the library as any program would. */
#define _POSIX_C_SOURCE 200809L
#include "support.h"
#include "raid.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- design ---- */

typedef struct built {
    size_t m;
    double X[64 * RAID_REG_MAX_K], y[64];
    int64_t t[64];
    size_t bad; /* the first missing or invalid day (n if none) */
} built;

/* A specification: model, transform, h, lags and alpha (0: the default). Freed by the caller. */
static raid_har_spec *spec(raid_har_model model, raid_har_transform tr, int h, const int *lags, int nlags, double alpha)
{
    raid_har_spec *sp;
    assert_int_equal(raid_har_spec_create(&sp), RAID_OK);
    assert_int_equal(raid_har_spec_set_model(sp, model), RAID_OK);
    assert_int_equal(raid_har_spec_set_transform(sp, tr), RAID_OK);
    assert_int_equal(raid_har_spec_set_horizon(sp, h), RAID_OK);
    assert_int_equal(raid_har_spec_set_lags(sp, lags, nlags), RAID_OK);
    if (alpha > 0)
        assert_int_equal(raid_har_spec_set_alpha(sp, alpha), RAID_OK);
    return sp;
}

static void build(const raid_har_spec *sp, const double *rv, const double *bpv, const double *rq, const double *jp,
                  size_t n, built *b)
{
    assert_true(n <= 64);
    assert_int_equal(raid_har_design(sp, n, rv, bpv, rq, jp, b->X, b->y, b->t, &b->m, &b->bad), RAID_OK);
}

static void expect_row(const built *b, int k, size_t r, size_t t, const double *x, double y)
{
    assert_true(r < b->m);
    assert_int_equal(b->t[r], (int64_t)t);
    for (int j = 0; j < k; j++)
        if (b->X[r * (size_t)k + (size_t)j] != x[j])
            fail_msg("row %zu column %d: %.17g, expected %.17g", r, j, b->X[r * (size_t)k + (size_t)j], x[j]);
    if (b->y[r] != y)
        fail_msg("row %zu y: %.17g, expected %.17g", r, b->y[r], y);
}

static const double RV[8] = {1, 2, 3, 4, 5, 6, 7, 8};

static void test_design_har(void **state)
{
    (void)state;
    raid_har_spec *sp = spec(RAID_HAR_RV, RAID_HAR_NONE, 1, (const int[]){1, 2, 4}, 3, 0.05);
    built b;
    build(sp, RV, NULL, NULL, NULL, 8, &b);
    assert_int_equal(raid_har_spec_k(sp), 4);
    assert_int_equal(b.m, 4); /* t = 3..6 */
    expect_row(&b, 4, 0, 3, (double[]){1, 4, 3.5, 2.5}, 5);
    expect_row(&b, 4, 3, 6, (double[]){1, 7, 6.5, 5.5}, 8);
    assert_string_equal(raid_har_spec_coef_name(sp, 0), "const");
    assert_string_equal(raid_har_spec_coef_name(sp, 1), "rv_d");
    assert_string_equal(raid_har_spec_coef_name(sp, 2), "rv_l2");
    assert_string_equal(raid_har_spec_coef_name(sp, 3), "rv_l4");
    assert_null(raid_har_spec_coef_name(sp, 4));

    assert_int_equal(raid_har_spec_set_horizon(sp, 2), RAID_OK); /* y = mean of the next two days */
    build(sp, RV, NULL, NULL, NULL, 8, &b);
    assert_int_equal(b.m, 3);
    expect_row(&b, 4, 0, 3, (double[]){1, 4, 3.5, 2.5}, 5.5);
    expect_row(&b, 4, 2, 5, (double[]){1, 6, 5.5, 4.5}, 7.5);

    /* sqrt: each day transformed, then averaged */
    static const double sq[6] = {1, 4, 9, 16, 25, 36};
    raid_har_spec *s2 = spec(RAID_HAR_RV, RAID_HAR_SQRT, 1, (const int[]){1, 2}, 2, 0);
    build(s2, sq, NULL, NULL, NULL, 6, &b);
    assert_int_equal(b.m, 4); /* t = 1..4 */
    expect_row(&b, 3, 0, 1, (double[]){1, 2, 1.5}, 3);
    expect_row(&b, 3, 3, 4, (double[]){1, 5, 4.5}, 6);
    /* log */
    assert_int_equal(raid_har_spec_set_transform(s2, RAID_HAR_LOG), RAID_OK);
    build(s2, sq, NULL, NULL, NULL, 6, &b);
    expect_row(&b, 3, 0, 1, (double[]){1, log(4.0), (log(1.0) + log(4.0)) / 2}, log(9.0));
    raid_har_spec_destroy(sp);
    raid_har_spec_destroy(s2);
}

static void test_design_missing(void **state)
{
    (void)state;
    /* A missing (NAN) or non-positive-under-log day drops every row whose lags or target touch it. */
    double rv[10] = {1, 2, 3, 4, 5, NAN, 7, 8, 9, 10};
    raid_har_spec *sp = spec(RAID_HAR_RV, RAID_HAR_NONE, 1, (const int[]){1, 2}, 2, 0);
    built b;
    build(sp, rv, NULL, NULL, NULL, 10, &b);
    /* rows t = 1..8; t = 4 (target 5), 5, 6 (lag) dropped */
    assert_int_equal(b.m, 5);
    assert_int_equal(b.bad, 5);
    expect_row(&b, 3, 2, 3, (double[]){1, 4, 3.5}, 5);
    expect_row(&b, 3, 3, 7, (double[]){1, 8, 7.5}, 9);
    rv[5] = 0; /* log 0 = -inf */
    assert_int_equal(raid_har_spec_set_transform(sp, RAID_HAR_LOG), RAID_OK);
    build(sp, rv, NULL, NULL, NULL, 10, &b);
    assert_int_equal(b.m, 5);
    assert_int_equal(b.bad, 5);
    rv[5] = 6;
    build(sp, rv, NULL, NULL, NULL, 10, &b);
    assert_int_equal(b.m, 8);
    assert_int_equal(b.bad, 10);
    /* too short for the lags */
    build(sp, rv, NULL, NULL, NULL, 2, &b);
    assert_int_equal(b.m, 0);
    raid_har_spec_destroy(sp);
}

static void test_design_jumps(void **state)
{
    (void)state;
    static const double rv[5] = {4, 9, 16, 25, 36}, bpv[5] = {3, 10, 12, 25, 30};
    static const double jp[5] = {0.01, 0.01, 0.2, 0.04, 0.001};
    built b;
    /* har-j: J = max(rv - bpv, 0) = 1, 0, 4, 0, 6 */
    raid_har_spec *sp = spec(RAID_HAR_J, RAID_HAR_NONE, 1, (const int[]){1, 2}, 2, 0.05);
    build(sp, rv, bpv, NULL, NULL, 5, &b);
    assert_int_equal(b.m, 3);
    expect_row(&b, 4, 0, 1, (double[]){1, 9, 6.5, 0}, 16);
    expect_row(&b, 4, 1, 2, (double[]){1, 16, 12.5, 4}, 25);
    assert_int_equal(raid_har_spec_set_transform(sp, RAID_HAR_LOG), RAID_OK); /* log(1 + J) */
    build(sp, rv, bpv, NULL, NULL, 5, &b);
    expect_row(&b, 4, 1, 2, (double[]){1, log(16.0), (log(9.0) + log(16.0)) / 2, log1p(4.0)}, log(25.0));
    /* har-cj, alpha 0.05: significant on days 0, 1, 3, 4 -> C = 3, 10, 16, 25, 30; J = 1, 0, 0, 0, 6 */
    assert_int_equal(raid_har_spec_set_model(sp, RAID_HAR_CJ), RAID_OK);
    assert_int_equal(raid_har_spec_set_transform(sp, RAID_HAR_NONE), RAID_OK);
    build(sp, rv, bpv, NULL, jp, 5, &b);
    assert_int_equal(b.m, 3);
    expect_row(&b, 4, 0, 1, (double[]){1, 10, 6.5, 0}, 16);
    expect_row(&b, 4, 1, 2, (double[]){1, 16, 13, 0}, 25);
    expect_row(&b, 4, 2, 3, (double[]){1, 25, 20.5, 0}, 36);
    assert_string_equal(raid_har_spec_coef_name(sp, 1), "c_d");
    assert_string_equal(raid_har_spec_coef_name(sp, 3), "j");
    assert_int_equal(raid_har_spec_set_alpha(sp, 0.5), RAID_OK); /* day 2 (p 0.2) significant too: C = 12, J = 4 */
    build(sp, rv, bpv, NULL, jp, 5, &b);
    expect_row(&b, 4, 1, 2, (double[]){1, 12, 11, 4}, 25);
    raid_har_spec_destroy(sp);
}

static void test_design_harq(void **state)
{
    (void)state;
    static const double rv[5] = {1, 2, 3, 4, 5}, rq[5] = {1, 4, 16, 64, 9};
    raid_har_spec *sp = spec(RAID_HAR_Q, RAID_HAR_NONE, 1, (const int[]){1, 2}, 2, 0);
    built b;
    build(sp, rv, NULL, rq, NULL, 5, &b);
    /* rows t = 1..3, sqrt(rq_t) = 2, 4, 8, mean 14/3 */
    assert_int_equal(b.m, 3);
    const double mq = 14.0 / 3.0;
    expect_row(&b, 4, 0, 1, (double[]){1, 2, 2 * (2 - mq), 1.5}, 3);
    expect_row(&b, 4, 2, 3, (double[]){1, 4, 4 * (8 - mq), 3.5}, 5);
    assert_string_equal(raid_har_spec_coef_name(sp, 2), "rq_rv");
    assert_string_equal(raid_har_spec_coef_name(sp, 3), "rv_l2");
    raid_har_spec_destroy(sp);
}

/* ---- the CLI ---- */

/* A realized-style CSV: symbol A (300 days of a positive AR(1) series, bpv and rq perturbed by uniforms), B (10 days: too few),
 * C (constant rv: singular). */
static const char *write_panel(void)
{
    const char *p = t_tmppath("panel.csv");
    size_t cap = 1 << 16, len = 0;
    char *s = malloc(cap);
    assert_non_null(s);
    len += (size_t)snprintf(s + len, cap - len, "symbol,date,n,rv,bpv,rq,jump_p\n");
    double v = 1e-4;
    uint64_t x = 12345;
    for (int d = 0; d < 300; d++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        double u = (double)(x >> 11) / 9007199254740992.0;
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        double u2 = (double)(x >> 11) / 9007199254740992.0;
        v = 2e-5 + 0.8 * v + 4e-5 * u;
        len += (size_t)snprintf(s + len, cap - len, "A,2020-%02d-%02d,78,%.17g,%.17g,%.17g,%.3f\n", 1 + d / 28,
                                1 + d % 28, v, (0.7 + 0.3 * u2) * v, 3 * v * v * (1 + u), u2);
    }
    for (int d = 0; d < 10; d++)
        len += (size_t)snprintf(s + len, cap - len, "B,2020-01-%02d,78,1e-4,1e-4,1e-8,0.5\n", d + 1);
    for (int d = 0; d < 60; d++)
        len += (size_t)snprintf(s + len, cap - len, "C,2020-%02d-%02d,78,2e-4,2e-4,1e-8,0.5\n", 1 + d / 28,
                                1 + d % 28);
    assert_true(len < cap);
    assert_int_equal(t_write_file(p, s), 0);
    free(s);
    return p;
}

static size_t count_lines(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

static void test_cli_symbols(void **state)
{
    (void)state;
    const char *panel = write_panel(), *o = t_tmppath("har.csv");
    char *out, *err;
    assert_int_equal(t_cli(&out, &err, "har '%s' --device cpu --se ols -o '%s'", panel, o), 0);
    assert_non_null(strstr(err, "B: too few observations"));
    assert_non_null(strstr(err, "C: "));
    assert_null(strstr(err, "A: "));
    char *csv = t_read_file(o);
    assert_non_null(csv);
    assert_int_equal(count_lines(csv), 2);
    static const char hdr[] = "symbol,model,transform,h,n,r2,r2_adj,const,const_se,const_t,rv_d,";
    assert_true(!strncmp(csv, hdr, strlen(hdr)));
    assert_non_null(strstr(csv, "\nA,har,none,1,"));
    free(csv), free(out), free(err);

    /* only the bad symbols: exit 2, no output file */
    const char *bad = t_tmppath("bad.csv"), *o2 = t_tmppath("bad_out.csv");
    assert_int_equal(t_write_file(bad, "symbol,date,rv\nB,2020-01-01,1e-4\nB,2020-01-02,2e-4\n"), 0);
    assert_int_equal(t_cli(NULL, &err, "har '%s' --device cpu -o '%s'", bad, o2), 2);
    assert_non_null(strstr(err, "B: too few observations"));
    assert_false(t_file_exists(o2));
    free(err);

    /* a model's column missing: one message per symbol, exit 2 */
    const char *nob = t_tmppath("nobpv.csv");
    assert_int_equal(t_write_file(nob, "symbol,date,rv\nX,2020-01-01,1e-4\nY,2020-01-01,1e-4\n"), 0);
    assert_int_equal(t_cli(NULL, &err, "har '%s' --model har-j --device cpu", nob), 2);
    assert_non_null(strstr(err, "X: no column 'bpv'"));
    assert_non_null(strstr(err, "Y: no column 'bpv'"));
    free(err);
    assert_int_equal(t_cli(NULL, &err, "har '%s' --model har-cj --device cpu", nob), 2);
    assert_non_null(strstr(err, "no column"));
    free(err);

    /* every model runs on the panel (A estimated) */
    static const char *const models[] = {"har-j", "har-cj", "harq"};
    for (int i = 0; i < 3; i++) {
        assert_int_equal(t_cli(&out, NULL, "har '%s' --device cpu --model %s --lags 1,5", panel, models[i]), 0);
        assert_non_null(strstr(out, "\nA,"));
        free(out);
    }
}

static void test_cli_usage(void **state)
{
    (void)state;
    const char *panel = write_panel();
    char *out, *err;
    static const char *const bad[] = {"--model garch",    "--lags 5,22",      "--lags 1,5,5",  "--h 0",
                                      "--transform exp", "--se hc3",         "--nw-lag -1",   "--window 100",
                                      "--window rolling:x", "--alpha 1.5",   "--model harq --transform log",
                                      "--forecasts f.csv", "--lags 1,2,3,4,5,6,7", "--frobnicate",
                                      "--lags 1,5,", "--lags 1,,5", "--lags 1,100000", "--nw-lag 1000000",
                                      "--lags '1, 5'", "--lags 1,+5", "--lags ' 1,5'", "--lags '1,5 '",
                                      "--window rolling:+40", "--window 'rolling: 40'", "--window expanding:-0",
                                      "--date-col ''", "--rv-col=", "--symbol-col ''"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int rc = t_cli(NULL, &err, "har '%s' --device cpu %s", panel, bad[i]);
        if (rc != 1)
            fail_msg("'%s': exit %d, expected 1 (%s)", bad[i], rc, err);
        free(err);
    }
    assert_int_equal(t_cli(NULL, &err, "har '%s' --device cpu --date-col ''", panel), 1);
    assert_string_equal(err, "raid har: empty --date-col\n");
    free(err);
    /* the parsers: decimal digits only */
    int lags[RAID_HAR_MAX_LAGS], nl;
    raid_har_window wk;
    int64_t wn;
    assert_int_equal(raid_har_lags_parse("1,5,22", lags, &nl), RAID_OK);
    assert_int_equal(raid_har_lags_parse("1, 5", lags, &nl), RAID_EINVAL);
    assert_int_equal(raid_har_lags_parse("+1,5", lags, &nl), RAID_EINVAL);
    assert_int_equal(raid_har_window_parse("rolling:40", &wk, &wn), RAID_OK);
    assert_int_equal(raid_har_window_parse("rolling:+40", &wk, &wn), RAID_EINVAL);
    assert_int_equal(raid_har_window_parse("expanding: 40", &wk, &wn), RAID_EINVAL);
    /* a window too short for the regressors: one message for every N from 0 to k */
    for (int w = 0; w <= 4; w++) {
        assert_int_equal(t_cli(NULL, &err, "har '%s' --device cpu --window rolling:%d", panel, w), 1);
        if (!strstr(err, "--window N must exceed the number of regressors (4)"))
            fail_msg("rolling:%d: %s", w, err);
        free(err);
    }
    assert_int_equal(t_cli(NULL, &err, "har"), 1);
    free(err);
    assert_int_equal(t_cli(NULL, &err, "har '%s' --device cpu", t_tmppath("nope.csv")), 2);
    free(err);
    assert_int_equal(t_cli(&out, NULL, "help har"), 0);
    assert_non_null(strstr(out, "--window"));
    assert_non_null(strstr(out, "harq"));
    free(out);
    assert_int_equal(t_cli(&out, NULL, "--help"), 0);
    assert_non_null(strstr(out, "har "));
    free(out);
}

/* Split an output line at commas (the fields are numbers and plain names, never quoted). */
static int split_commas(char *line, char **f, int cap)
{
    int k = 0;
    for (char *p = line;; p++) {
        if (k < cap)
            f[k] = p;
        k++;
        p = strchr(p, ',');
        if (!p)
            break;
        *p = 0;
    }
    return k;
}

/* The value of column name in the second line of csv. */
static double field(const char *csv, const char *name, int line)
{
    char *dup = strdup(csv), *lines[8] = {0}, *save = NULL;
    int nl = 0;
    for (char *l = strtok_r(dup, "\n", &save); l && nl < 8; l = strtok_r(NULL, "\n", &save))
        lines[nl++] = l;
    assert_true(line < nl);
    char *h[64], *v[64];
    int nh = split_commas(lines[0], h, 64), nv = split_commas(lines[line], v, 64);
    assert_int_equal(nh, nv);
    double r = NAN;
    for (int i = 0; i < nh; i++)
        if (!strcmp(h[i], name))
            r = strtod(v[i], NULL);
    free(dup);
    if (isnan(r))
        fail_msg("no column %s", name);
    return r;
}

/* Found by trying to break the tool: a byte order mark before the header, one symbol with an rv beyond the
 * statistics' range (that symbol only is skipped), --forecasts naming the -o file. */
/* A last line without a line break is read, and said (the table reader's notice), by the library
 * (raid_har_input_notice) and the CLI (stderr); the output is the one of the same file with the break. */
static void test_unterminated_last_line(void **state)
{
    (void)state;
    const char *panel = write_panel();
    char *text = t_read_file(panel), *out, *err, *out2;
    assert_non_null(text);
    size_t n = strlen(text);
    assert_true(n > 0 && text[n - 1] == '\n');
    text[n - 1] = 0;
    const char *p = t_tmppath("panel_no_nl.csv");
    assert_int_equal(t_write_file(p, text), 0);
    raid_har_input *in = NULL;
    assert_int_equal(raid_har_read_csv(p, NULL, 0, RAID_HAR_RV, &in), RAID_OK);
    assert_int_equal(raid_har_input_notice_count(in), 1);
    assert_non_null(strstr(raid_har_input_notice(in, 0), "the last line has no line break"));
    assert_non_null(strstr(raid_har_input_notice(in, 0), "panel_no_nl.csv:"));
    assert_null(raid_har_input_notice(in, 1));
    raid_har_input_destroy(in);
    assert_int_equal(raid_har_read_csv(panel, NULL, 0, RAID_HAR_RV, &in), RAID_OK);
    assert_int_equal(raid_har_input_notice_count(in), 0);
    raid_har_input_destroy(in);
    assert_int_equal(t_cli(&out, &err, "har '%s' --device cpu", p), 0);
    assert_non_null(strstr(err, "raid har: notice: "));
    assert_int_equal(t_cli(&out2, NULL, "har '%s' --device cpu", panel), 0);
    assert_string_equal(out, out2);
    free(out), free(err), free(out2), free(text);
}

static void test_cli_odd_input(void **state)
{
    (void)state;
    const char *panel = write_panel();
    char *text = t_read_file(panel), *out, *err;
    assert_non_null(text);
    size_t n = strlen(text);
    char *bom = malloc(n + 4);
    memcpy(bom, "\xEF\xBB\xBF", 3);
    memcpy(bom + 3, text, n + 1);
    const char *pb = t_tmppath("bom_panel.csv");
    assert_int_equal(t_write_file(pb, bom), 0);
    int rc = t_cli(&out, &err, "har '%s' --device cpu", pb);
    if (rc != 0)
        fail_msg("BOM: exit %d: %s", rc, err);
    assert_non_null(strstr(out, "\nA,har,"));
    free(out);
    free(err);
    /* A's first rv far out of range: A is reported, Z (a copy of A) still estimated */
    char *huge = malloc(2 * n + 1);
    strcpy(huge, text);
    for (const char *l = strstr(text, "\nA,"); l; l = strstr(l + 1, "\nA,")) {
        const char *e = strchr(l + 1, '\n');
        size_t len = strlen(huge);
        huge[len] = 'Z';
        memcpy(huge + len + 1, l + 2, (size_t)(e - l - 1));
        huge[len + 1 + (e - l - 1)] = 0;
    }
    char *row = strstr(huge, "\nA,");
    assert_non_null(row);
    char *rv = row + 1;
    for (int c = 0; c < 3; c++)
        rv = strchr(rv, ',') + 1;
    memcpy(rv, "1e300", 5);
    char *tail = strchr(rv + 5, ',');
    memmove(rv + 5, tail, strlen(tail) + 1);
    const char *ph = t_tmppath("huge_panel.csv");
    assert_int_equal(t_write_file(ph, huge), 0);
    rc = t_cli(&out, &err, "har '%s' --device cpu", ph);
    if (rc != 0)
        fail_msg("huge: exit %d: %s", rc, err);
    assert_non_null(strstr(err, "A: a regressor or target beyond 1e150"));
    assert_null(strstr(out, "\nA,"));
    assert_non_null(strstr(out, "\nZ,har,"));
    free(out);
    free(err);
    const char *o = t_tmppath("same.csv");
    assert_int_equal(t_cli(&out, &err, "har '%s' --window rolling:50 --forecasts '%s' -o '%s'", panel, o, o), 1);
    assert_false(t_file_exists(o));
    free(out);
    free(err);
    /* outputs that would be renamed over the input or over each other: refused before anything is written */
    char pan[512], dot[512]; /* copies: t_tmppath reuses its buffers */
    snprintf(pan, sizeof pan, "%s", panel);
    snprintf(dot, sizeof dot, "%s", t_tmppath("."));
    panel = pan;
    char *before = t_read_file(panel);
    const char *lo = t_tmppath("x.losses.csv"), *fx = t_tmppath("x.csv"), *oo = t_tmppath("o.csv");
    char cmds[4][8192];
    snprintf(cmds[0], sizeof cmds[0], "har '%s' -o '%s'", panel, panel);
    snprintf(cmds[1], sizeof cmds[1], "har '%s' --window rolling:50 -o '%s' --forecasts '%s'", panel, oo, panel);
    snprintf(cmds[2], sizeof cmds[2], "har '%s' --window rolling:50 -o '%s' --forecasts '%s'", panel, lo, fx);
    snprintf(cmds[3], sizeof cmds[3], "har '%s' --window rolling:50 -o '%s/o.csv' --forecasts '%s'", panel, dot,
             oo);
    for (int i = 0; i < 4; i++) {
        const int rc2 = t_cli(&out, &err, "%s --device cpu", cmds[i]);
        if (rc2 != 1 || !strstr(err, "same file") == !strstr(err, "is the input file"))
            fail_msg("%s: exit %d: %s", cmds[i], rc2, err);
        free(out);
        free(err);
    }
    assert_false(t_file_exists(lo));
    assert_false(t_file_exists(fx));
    assert_false(t_file_exists(oo));
    char *after = t_read_file(panel);
    assert_string_equal(before, after);
    free(before);
    free(after);
    const char *bl = t_tmppath("blank_lines.csv");
    /* a used column named twice, or one column for two of symbol, date and rv: refused (naming a column
       bpv for rv takes it as rv only) */
    assert_int_equal(t_write_file(bl, "date,rv,RV\n2020-01-01,1,2\n"), 0);
    assert_int_equal(t_cli(&out, &err, "har '%s' --device cpu", bl), 2);
    /* (the table reader's shared rule names a duplicate by the wanted column's name, as --rv-col gives it,
       not by the header's spelling of it: 'rv', where raid har's own reader said 'RV') */
    assert_non_null(strstr(err, ":1:3: duplicate column 'rv' (also column 2)"));
    free(out);
    free(err);
    assert_int_equal(t_cli(&out, &err, "har '%s' --device cpu --rv-col date", panel), 2);
    assert_non_null(strstr(err, ":1:2: column 'date' is given two roles (date and rv columns)"));
    free(out);
    free(err);
    assert_int_equal(t_cli(&out, &err, "har '%s' --device cpu --rv-col bpv", panel), 0);
    assert_non_null(strstr(out, "\nA,har,"));
    free(out);
    free(err);
    /* --forecasts must be a file (its losses go beside it); standard input read from the file -o names */
    const char *const notfile[2] = {"-", "/dev/zero"};
    for (int i = 0; i < 2; i++) {
        assert_int_equal(t_cli(&out, &err, "har '%s' --device cpu --window rolling:50 -o /dev/null --forecasts %s",
                               panel, notfile[i]), 1);
        assert_non_null(strstr(err, "must name a file"));
        free(out);
        free(err);
    }
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "'%s' har - --device cpu -o '%s' < '%s'", RAID_CLI, panel, panel);
    assert_int_equal(t_run(cmd, NULL, &err), 1);
    assert_non_null(strstr(err, "is the input file '-'"));
    free(err);
    /* a byte order mark before a quoted header; a column the model does not read, named twice */
    assert_int_equal(t_write_file(bl, "\xEF\xBB\xBF\"date\",rv,bpv,bpv\n2020-01-01,1,1,1\n2020-01-02,2,1,1\n"), 0);
    assert_int_equal(t_cli(&out, &err, "har '%s' --device cpu", bl), 2);
    assert_non_null(strstr(err, "too few observations")); /* read, then too short */
    free(out);
    free(err);
    assert_int_equal(t_cli(&out, &err, "har '%s' --device cpu --model har-j", bl), 2);
    assert_non_null(strstr(err, ":1:4: duplicate column 'bpv' (also column 3)"));
    free(out);
    free(err);
    /* blank lines (LF and CRLF) count in the line numbers of messages; a row with too many fields names
       the first extra one (the wording is the table reader's, shared by every input: raid har's own reader
       said "bad number 'abc' in column rv" and "4 fields, the header has 3"); and the table reader's rules:
       numbers are decimal only (raid har's own reader took strtod's 0x64, inf and nan), symbols UTF-8 */
    const char *const bad_in[5][2] = {{"symbol,date,rv\n\n\nA,2020-01-01,1\n\nA,2020-01-02,abc\n", ":6:3: cannot parse rv 'abc'"},
                                      {"symbol,date,rv\r\nA,2020-01-01,1\r\n\r\nA,2020-01-02,abc\r\n", ":4:3: cannot parse rv"},
                                      {"symbol,date,rv\n\nA,2020-01-01,1,4\n", ":3:4: expected 3 fields, found 4"},
                                      {"symbol,date,rv\nA,2020-01-01,0x64\n", ":2:3: cannot parse rv '0x64'"},
                                      {"symbol,date,rv\nA\xFF,2020-01-01,1\n", ":2:1: symbol is not valid UTF-8"}};
    for (int i = 0; i < 5; i++) {
        assert_int_equal(t_write_file(bl, bad_in[i][0]), 0);
        assert_int_equal(t_cli(&out, &err, "har '%s' --device cpu", bl), 2);
        if (!strstr(err, bad_in[i][1]))
            fail_msg("expected '%s' in: %s", bad_in[i][1], err);
        free(out);
        free(err);
    }
    free(bom);
    free(huge);
    free(text);
}

/* Dates out of order or repeated within a symbol, and a symbol's rows split by another's: the messages name
 * the file, the line (and the date column) and the earlier line; the symbol with bad dates is skipped and the
 * others estimated; split rows stop the run with exit status 2 and no output file. A missing day is
 * reported with the number of design rows it costs. */
/* Replace line k (1-based) of text by line (with its line break). */
static void set_line(char *text, int k, const char *line)
{
    char *l = text;
    for (int j = 1; j < k; j++)
        l = strchr(l, '\n') + 1;
    char *e = strchr(l, '\n') + 1;
    const size_t n = strlen(line);
    memmove(l + n, e, strlen(e) + 1);
    memcpy(l, line, n);
}

/* raid har with options opts on a file p holding text: exit 2, stderr holding "p:loc: words", no output
 * file (case c in the message). */
static void cli_refuses(size_t c, const char *p, const char *text, const char *opts, const char *loc,
                        const char *words)
{
    char *out, *err, want[600], o[512];
    snprintf(o, sizeof o, "%s.out.csv", p);
    assert_int_equal(t_write_file(p, text), 0);
    remove(o);
    const int rc = t_cli(&out, &err, "har '%s' --device cpu %s -o '%s'", p, opts, o);
    snprintf(want, sizeof want, "%s:%s: %s", p, loc, words);
    if (rc != 2 || !strstr(err, want))
        fail_msg("case %zu: exit %d, stderr '%s' (expected '%s')", c, rc, err, want);
    assert_null(fopen(o, "r"));
    free(out);
    free(err);
}

/* Values the reader refuses at the bad field itself (FILE:LINE:COL, exit 2, no output): a date that is
 * not a calendar date YYYY-MM-DD (it was compared as text: 1996-13-45 or zzzz last was fitted and
 * forecast, 2001-02-30 in the middle blamed the next line), and an rv that is negative or infinite (a
 * realized variance is neither; with --transform none a negative one was fitted). */
static void test_cli_bad_values(void **state)
{
    (void)state;
    char csv[8192] = "rv,symbol,date\n", *out, *err;
    size_t len = strlen(csv);
    for (int d = 0; d < 60; d++) /* day d on line d + 2: rv at column 1, date at column 3 */
        len += (size_t)snprintf(csv + len, sizeof csv - len, "%.6f,A,2001-%02d-%02d\n", 1e-4 * (1.5 + sin(7.0 * d)),
                                1 + d / 28, 1 + d % 28);
    const char *p = t_tmppath("bad_values.csv");
    static const struct {
        int line;
        const char *put, *opts, *loc, *words;
    } cases[] = {
        {61, "0.0001,A,1996-13-45\n", "", "61:3", "date '1996-13-45' is not a calendar date YYYY-MM-DD"},
        {61, "0.0001,A,zzzz\n", "", "61:3", "date 'zzzz' is not a calendar date YYYY-MM-DD"},
        {32, "0.0001,A,2001-02-30\n", "", "32:3", "date '2001-02-30' is not a calendar date YYYY-MM-DD"},
        {32, "0.0001,A,2001-2-3\n", "", "32:3", "date '2001-2-3' is not a calendar date"},
        {32, "0.0001,A,2001-02-03T00:00:00\n", "", "32:3", "date '2001-02-03T00:00:00' is not a calendar date"},
        {32, "-1e-5,A,2001-02-03\n", "--transform none", "32:1", "rv is negative"},
        {32, "-0.0001,A,2001-02-03\n", "", "32:1", "rv is negative"},
        {32, "1e999,A,2001-02-03\n", "", "32:1", "rv out of float64's range: '1e999'"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        char bad[8192], opts[256];
        strcpy(bad, csv);
        set_line(bad, cases[c].line, cases[c].put);
        snprintf(opts, sizeof opts, "--window rolling:20 %s", cases[c].opts);
        cli_refuses(c, p, bad, opts, cases[c].loc, cases[c].words);
    }
    /* zero is a variance: with --transform none it is fitted, with log a missing day (as before) */
    set_line(csv, 32, "0,A,2001-02-03\n");
    assert_int_equal(t_write_file(p, csv), 0);
    assert_int_equal(t_cli(&out, &err, "har '%s' --device cpu --transform none", p), 0);
    free(out);
    free(err);
    assert_int_equal(t_cli(&out, &err, "har '%s' --device cpu --transform log", p), 0);
    assert_non_null(strstr(err, "design rows left out"));
    free(out);
    free(err);
}

/* A negative bpv or rq (har-j, har-cj, harq inputs) is refused where the file has the column, at its
 * FILE:LINE:COL, by the rule raid_har_input_add applies too (raidHarDayCheck); an empty one is a missing day. */
static void test_cli_bad_bpv_rq(void **state)
{
    (void)state;
    char csv[8192] = "symbol,date,rv,BPV,rq\n", *out, *err;
    size_t len = strlen(csv);
    for (int d = 0; d < 60; d++) /* day d on line d + 2 */
        len += (size_t)snprintf(csv + len, sizeof csv - len, "A,2001-%02d-%02d,%.6f,%.6f,%.9f\n", 1 + d / 28,
                                1 + d % 28, 1e-4 * (1.5 + sin(7.0 * d)), 0.9e-4 * (1.5 + sin(7.0 * d)),
                                1e-8 * (1.5 + cos(3.0 * d)));
    const char *p = t_tmppath("bad_bpv_rq.csv");
    static const struct {
        const char *put, *model, *loc, *words;
    } cases[] = {
        {"A,2001-02-03,1e-4,-1e-4,1e-8\n", "har-j", "32:4", "BPV is negative (a bipower variation is non-negative)"},
        {"A,2001-02-03,1e-4,-1e-4,1e-8\n", "har", "32:4", "BPV is negative (a bipower variation is non-negative)"},
        {"A,2001-02-03,1e-4,1e-4,-1e-8\n", "harq", "32:5", "rq is negative (a realized quarticity is non-negative)"},
        {"A,2001-02-03,-1e-4,-1e-4,-1e-8\n", "harq", "32:3", "rv is negative"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        char bad[8192], opts[256];
        strcpy(bad, csv);
        set_line(bad, 32, cases[c].put);
        snprintf(opts, sizeof opts, "--bpv-col BPV --model %s", cases[c].model);
        cli_refuses(c, p, bad, opts, cases[c].loc, cases[c].words);
    }
    /* empty: a missing day, as before */
    set_line(csv, 32, "A,2001-02-03,1e-4,,\n");
    assert_int_equal(t_write_file(p, csv), 0);
    for (int m = 0; m < 2; m++) {
        assert_int_equal(t_cli(&out, &err, "har '%s' --device cpu --bpv-col BPV --model %s", p, m ? "harq" : "har-j"), 0);
        assert_non_null(strstr(err, "design rows left out"));
        free(out);
        free(err);
    }
}

static void test_cli_order_errors(void **state)
{
    (void)state;
    char csv[16384] = "rv,symbol,date\n", *out, *err;
    size_t len = strlen(csv);
    for (int s = 0; s < 2; s++)
        for (int d = 0; d < 60; d++)
            len += (size_t)snprintf(csv + len, sizeof csv - len, "%.6f,%s,2020-%02d-%02d\n",
                                    1e-4 * (1.5 + sin(7.0 * d + s)), s ? "B" : "A", 1 + d / 28, 1 + d % 28);
    char *a10 = strstr(csv, "A,2020-01-11"); /* A's 11th date repeats its 10th: line 12 repeats line 11 */
    assert_non_null(a10);
    memcpy(a10 + 2, "2020-01-10", 10);
    /* and B's day 30 empty: 23 of B's 38 design rows touch it (target of row 29, lags of rows 30..51) */
    char *b30 = strstr(csv, ",B,2020-02-03");
    assert_non_null(b30);
    char *b30s = b30;
    while (b30s[-1] != '\n')
        b30s--;
    memmove(b30s, b30, strlen(b30) + 1);
    const char *p = t_tmppath("order_dates.csv"), *o0 = t_tmppath("order_dates_out.csv");
    assert_int_equal(t_write_file(p, csv), 0);
    /* a date out of order stops the run where it is read, as in raid garch, ma and sweep (io/order.h): a
     * fit whose lags are other days than it says is a wrong answer, not a missing symbol; no output */
    int rc = t_cli(&out, &err, "har '%s' --device cpu -o '%s'", p, o0);
    if (rc != 2)
        fail_msg("exit %d: %s", rc, err);
    char want[512];
    snprintf(want, sizeof want, "%s:12:3: A: date '2020-01-10' repeats '2020-01-10' on line 11 (the rows of a symbol "
             "must be in time order: sort FILE by symbol, date)", p);
    if (!strstr(err, want))
        fail_msg("expected '%s' in: %s", want, err);
    assert_false(t_file_exists(o0));
    free(out);
    free(err);
    memcpy(a10 + 2, "2020-01-03", 10); /* before its predecessor */
    assert_int_equal(t_write_file(p, csv), 0);
    assert_int_equal(t_cli(&out, &err, "har '%s' --device cpu -o '%s'", p, o0), 2);
    snprintf(want, sizeof want, "%s:12:3: A: date '2020-01-03' comes before '2020-01-10' on line 11", p);
    if (!strstr(err, want))
        fail_msg("expected '%s' in: %s", want, err);
    assert_false(t_file_exists(o0));
    free(out);
    free(err);
    memcpy(a10 + 2, "2020-01-11", 10); /* in order: B's empty day is a missing day, reported */
    assert_int_equal(t_write_file(p, csv), 0);
    assert_int_equal(t_cli(&out, &err, "har '%s' --device cpu", p), 0);
    assert_non_null(strstr(out, "\nA,har,"));
    assert_non_null(strstr(out, "\nB,har,"));
    assert_non_null(strstr(err, "B: 23 of 38 design rows left out: they touch a day whose value is empty, not finite "
                                "or invalid for the transform (the first such day: 2020-02-03, line 92)"));
    free(out);
    free(err);
    /* one more A row at the end, after B's: line 122 */
    memcpy(a10 + 2, "2020-01-11", 10);
    strcat(csv, "0.0001,A,2020-06-01\n");
    assert_int_equal(t_write_file(p, csv), 0);
    const char *o = t_tmppath("order_out.csv");
    assert_int_equal(t_cli(&out, &err, "har '%s' --device cpu -o '%s'", p, o), 2);
    snprintf(want, sizeof want, "%s:122:2: symbol 'A' again, after other symbols (its rows end on line 61)", p);
    if (!strstr(err, want))
        fail_msg("expected '%s' in: %s", want, err);
    assert_false(t_file_exists(o));
    free(out);
    free(err);

    /* Many symbols (the finished ones are kept in a hash set: reading was quadratic in their number):
       each found again by name, also the first and a middle one after thousands of others. */
    const size_t nsym = 20000;
    char *big = malloc(nsym * 48 + 64);
    assert_non_null(big);
    size_t blen = (size_t)sprintf(big, "symbol,date,rv\n");
    for (size_t q = 0; q < nsym; q++)
        blen += (size_t)sprintf(big + blen, "S%05zu,2020-01-01,1e-4\nS%05zu,2020-01-02,2e-4\n", q, q);
    const char *pb = t_tmppath("many_symbols.csv");
    assert_int_equal(t_write_file(pb, big), 0);
    raid_har_input *in;
    assert_int_equal(raid_har_read_csv(pb, NULL, 0, RAID_HAR_RV, &in), RAID_OK);
    assert_int_equal(raid_har_input_nsymbols(in), nsym);
    raid_har_input_destroy(in);
    for (int k = 0; k < 2; k++) {
        sprintf(big + blen, "S%05d,2020-01-03,1e-4\n", k ? 12345 : 0);
        assert_int_equal(t_write_file(pb, big), 0);
        assert_int_equal(raid_har_read_csv(pb, NULL, 0, RAID_HAR_RV, &in), RAID_EPARSE);
        snprintf(want, sizeof want, "%s:%zu:1: symbol 'S%05d' again, after other symbols (its rows end on line %d)", pb,
                 2 * nsym + 2, k ? 12345 : 0, k ? 2 * 12345 + 3 : 3);
        if (!strstr(raid_errmsg(), want))
            fail_msg("expected '%s' in: %s", want, raid_errmsg());
    }
    free(big);
}

/* The line of csv that starts with prefix (a copy), or NULL. */
static char *line_of(const char *csv, const char *prefix)
{
    const char *l = strstr(csv, prefix);
    if (!l)
        return NULL;
    const char *e = strchr(l + 1, '\n');
    size_t n = e ? (size_t)(e - l) : strlen(l);
    char *r = malloc(n + 1);
    memcpy(r, l, n);
    r[n] = 0;
    return r;
}

/* Full-sample robust errors of many symbols come from ONE meat call: each symbol's row is the bytes it gets
 * alone (cpu), a symbol that fails does not stop the others, and the device agrees with the cpu. */
static void test_cli_batched_meat(void **state)
{
    (void)state;
    const char *panel = write_panel();
    char *text = t_read_file(panel);
    assert_non_null(text);
    /* A alone; then A, its copy Z, and the constant C (which cannot be fitted) */
    size_t n = strlen(text);
    char *alone = malloc(n + 1), *many = malloc(2 * n + 1);
    size_t la = (size_t)snprintf(alone, n + 1, "symbol,date,n,rv,bpv,rq,jump_p\n");
    strcpy(many, text);
    for (const char *l = strstr(text, "\nA,"); l; l = strstr(l + 1, "\nA,")) {
        const char *e = strchr(l + 1, '\n');
        const size_t len = (size_t)(e - l - 1);
        memcpy(alone + la, l + 1, len);
        la += len;
        alone[la++] = '\n';
        size_t lm = strlen(many);
        many[lm] = 'Z';
        memcpy(many + lm + 1, l + 2, len - 1);
        many[lm + len] = '\n';
        many[lm + len + 1] = 0;
    }
    alone[la] = 0;
    const char *pa = t_tmppath("alone.csv"), *pm = t_tmppath("many.csv");
    assert_int_equal(t_write_file(pa, alone), 0);
    assert_int_equal(t_write_file(pm, many), 0);
    char *oa, *om, *err;
    assert_int_equal(t_cli(&oa, NULL, "har '%s' --device cpu --se nw", pa), 0);
    assert_int_equal(t_cli(&om, &err, "har '%s' --device cpu --se nw", pm), 0);
    assert_non_null(strstr(err, "C: "));
    char *ra = line_of(oa, "\nA,"), *rm = line_of(om, "\nA,"), *rz = line_of(om, "\nZ,");
    assert_non_null(ra);
    assert_non_null(rm);
    assert_non_null(rz);
    assert_string_equal(ra, rm);
    assert_string_equal(ra + 2, rz + 2);
    if (t_have_opencl()) {
        char *od;
        assert_int_equal(t_cli(&od, NULL, "har '%s' --device %s --se nw", pm, t_device()), 0);
        static const char *const cols[] = {"const", "rv_d", "rv_w", "rv_m", "const_se", "rv_d_se", "rv_m_se"};
        for (int i = 0; i < 7; i++)
            for (int line = 1; line <= 2; line++) { /* A and Z */
                double a = field(om, cols[i], line), b = field(od, cols[i], line);
                if (!(fabs(a - b) <= 1e-10 * fabs(a)))
                    fail_msg("%s line %d: cpu %.17g device %.17g", cols[i], line, a, b);
            }
        free(od);
    }
    free(ra), free(rm), free(rz), free(oa), free(om), free(err), free(alone), free(many), free(text);
}

/* Found by trying to break the tool: rv scaled to 1e-84 gave empty robust standard errors with exit 0
 * and nothing said (fourth powers below float64's range); now that symbol is reported with --se nw and
 * estimated with --se ols, the other symbols as before. */
static void test_cli_robust_range(void **state)
{
    (void)state;
    const char *p = t_tmppath("tiny_panel.csv");
    char s[16384];
    size_t len = (size_t)snprintf(s, sizeof s, "symbol,date,rv\n");
    for (int q = 0; q < 2; q++)
        for (int d = 0; d < 80; d++)
            len += (size_t)snprintf(s + len, sizeof s - len, "%c,2021-%02d-%02d,%.6ge%d\n", q ? 'B' : 'A', 1 + d / 28,
                                    1 + d % 28, 1.0 + 0.3 * ((d * 37) % 11) / 10.0 + 0.05 * ((d * d * 13) % 17) / 17.0,
                                    q ? -4 : -84); /* not periodic: a 22-day mean of a period-11 series is constant */
    assert_true(len < sizeof s);
    assert_int_equal(t_write_file(p, s), 0);
    char *out, *err;
    assert_int_equal(t_cli(&out, &err, "har '%s' --device cpu --se nw", p), 0);
    assert_non_null(strstr(err, "A: robust standard errors need regressors and targets within 1e-60 to 1e60"));
    assert_null(strstr(out, "\nA,"));
    assert_non_null(strstr(out, "\nB,har,"));
    free(out), free(err);
    assert_int_equal(t_cli(&out, &err, "har '%s' --device cpu --se ols", p), 0);
    assert_non_null(strstr(out, "\nA,har,"));
    free(out), free(err);
    /* rv of 10 plus 1e-4 times the same pattern: the regressors' mean is up to 1e7 times their spread. With
       the meat about 0 the robust variances were float64 rounding (rv + 1000 on SPY:
       4% off, NaN in windows); about the means (raid_reg_meat_ranges_at) the slopes' robust errors are those
       of the pattern alone, on both backends (held to 1e-5: the shifted design keeps the 5- and 22-day means'
       spread to about 1e-8). Shifted by 1000, the 22-day mean's level is 1e9 times its spread here, and the
       rounding of the means alone (2^-53 1e9 = 1e-7) exceeds RAID_REG_MAX_ROBUST_LOSS: refused, saying why. */
    char *outs[4];
    const double shift[3] = {0.0, 10.0, 1000.0};
    for (int sh = 0; sh < 3; sh++) {
        len = (size_t)snprintf(s, sizeof s, "date,rv\n");
        for (int d = 0; d < 80; d++)
            len += (size_t)snprintf(s + len, sizeof s - len, "2021-%02d-%02d,%.17g\n", 1 + d / 28, 1 + d % 28,
                                    shift[sh] +
                                        1e-4 * (1.0 + 0.3 * ((d * 37) % 11) / 10.0 + 0.05 * ((d * d * 13) % 17) / 17.0));
        assert_int_equal(t_write_file(p, s), 0);
        const int rc = t_cli(&outs[sh], &err, "har '%s' --device cpu --se nw", p);
        if (sh < 2) {
            assert_int_equal(rc, 0);
        } else {
            assert_int_equal(rc, 2);
            if (!strstr(err, "robust standard errors would be float64 rounding: a regressor's mean is"))
                fail_msg("shift 1000: %s", err);
        }
        free(err);
    }
    len = (size_t)snprintf(s, sizeof s, "date,rv\n");
    for (int d = 0; d < 80; d++)
        len += (size_t)snprintf(s + len, sizeof s - len, "2021-%02d-%02d,%.17g\n", 1 + d / 28, 1 + d % 28,
                                10.0 + 1e-4 * (1.0 + 0.3 * ((d * 37) % 11) / 10.0 + 0.05 * ((d * d * 13) % 17) / 17.0));
    assert_int_equal(t_write_file(p, s), 0);
    outs[3] = NULL;
    if (t_have_opencl())
        assert_int_equal(t_cli(&outs[3], NULL, "har '%s' --device %s --se nw", p, t_device()), 0);
    static const char *const slopes[3] = {"rv_d_se", "rv_w_se", "rv_m_se"};
    for (int o = 1; o < 4; o++)
        for (int i = 0; i < 3 && o != 2 && outs[o]; i++) {
            const double a = field(outs[0], slopes[i], 1), b = field(outs[o], slopes[i], 1);
            if (!(fabs(a - b) <= 1e-5 * a))
                fail_msg("%s: %.17g unshifted, %.17g shifted by 10 (%s)", slopes[i], a, b, o == 1 ? "cpu" : "device");
        }
    for (int o = 0; o < 4; o++)
        free(outs[o]);
}

/* ---- text fields and failed writes (findings of a hostile tester) ---- */

/* Symbols that need quoting come out quoted in every file (a symbol with a leading space; dates read from
 * a CSV are calendar dates, which need none), so that each line has as many fields as the header; a write to a full
 * disk fails with a message and exit 2, the losses table not printed; each library writer reports it. */
static void test_cli_quoting_and_write_errors(void **state)
{
    (void)state;
    const char *p = t_tmppath("quoted_dates.csv");
    size_t cap = 1 << 14, len = 0;
    char *s = malloc(cap);
    assert_non_null(s);
    len += (size_t)snprintf(s + len, cap - len, "symbol,date,rv\n");
    uint64_t x = 777;
    for (int i = 0; i < 80; i++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        len += (size_t)snprintf(s + len, cap - len, "\" A\",\"2001-%02d-%02d\",%.17g\n", 1 + i / 28, 1 + i % 28,
                                1e-5 * (1 + (double)(x >> 11) / 9007199254740992.0));
    }
    assert_true(len < cap);
    assert_int_equal(t_write_file(p, s), 0);
    free(s);
    const char *o = t_tmppath("quoted_out.csv");
    char *err;
    assert_int_equal(t_cli(NULL, &err, "har '%s' --device cpu --window rolling:40 -o '%s'", p, o), 0);
    free(err);
    char *coefs = t_read_file(o), *fc = t_read_file(t_tmppath("quoted_out.forecasts.csv")),
         *ls = t_read_file(t_tmppath("quoted_out.losses.csv"));
    assert_non_null(coefs), assert_non_null(fc), assert_non_null(ls);
    /* (a date that needs quotes is not a calendar date: the CSV reader refuses it, test_cli_bad_values) */
    assert_non_null(strstr(coefs, "\n\" A\",har,none,1,2001-03-06,40,"));
    assert_non_null(strstr(fc, "\n\" A\",2001-03-07,"));
    assert_non_null(strstr(ls, "\n\" A\",har,"));
    free(coefs), free(fc), free(ls);

    /* standard output on a full disk: the errno text, exit 2, no losses table */
    const char *panel = write_panel();
    char cmd[2048];
    for (int w = 0; w < 2; w++) {
        snprintf(cmd, sizeof cmd, "'%s' har '%s' --device cpu %s > /dev/full", RAID_CLI, panel,
                 w ? "--window rolling:60" : "");
        assert_int_equal(t_run(cmd, NULL, &err), 2);
        if (!strstr(err, "raid har: cannot write standard output: No space left on device") ||
            strstr(err, "forecast losses"))
            fail_msg("%s: stderr '%s'", cmd, err);
        free(err);
    }
    /* the library writers: each flushes and reports the failure */
    raid_har_spec *sp;
    raid_har_window wk;
    int64_t wn;
    assert_int_equal(raid_har_spec_create(&sp), RAID_OK);
    assert_int_equal(raid_har_window_parse("rolling:60", &wk, &wn), RAID_OK);
    assert_int_equal(raid_har_spec_set_window(sp, wk, wn), RAID_OK);
    raid_har_input *in;
    assert_int_equal(raid_har_read_csv(panel, NULL, 0, RAID_HAR_RV, &in), RAID_OK);
    raid_ctx *ctx = t_open_ctx("cpu");
    raid_har_result *res;
    assert_int_equal(raid_har_fit(ctx, sp, in, &res), RAID_OK);
    raid_status (*const wr[4])(const raid_har_result *, FILE *) = {raid_har_write_coefs, raid_har_write_forecasts,
                                                                   raid_har_write_losses,
                                                                   raid_har_write_loss_table};
    for (int i = 0; i < 4; i++) {
        FILE *f = fopen("/dev/full", "w");
        assert_non_null(f);
        assert_int_equal(wr[i](res, f), RAID_EIO);
        assert_non_null(strstr(raid_errmsg(), "No space left on device"));
        fclose(f);
    }
    raid_har_result_destroy(res);
    raid_har_input_destroy(in);
    raid_har_spec_destroy(sp);
    raid_ctx_destroy(ctx);
}

/* ---- the library ---- */

/* What a writer puts in a FILE, as a string (malloc'd). */
static char *written(raid_status (*w)(const raid_har_result *, FILE *), const raid_har_result *res)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    assert_int_equal(w(res, f), RAID_OK);
    fclose(f);
    return buf;
}

/* The library read and fit of the panel give the CLI's bytes: coefficients, forecasts, losses, and the
 * messages on stderr ("raid har: " + each message, then the losses table). */
static void test_lib_equals_cli(void **state)
{
    (void)state;
    const char *panel = write_panel();
    char pp[512];
    snprintf(pp, sizeof pp, "%s", panel);
    const char *o = t_tmppath("lib_roll.csv");
    char *cerr;
    assert_int_equal(t_cli(NULL, &cerr, "har '%s' --device cpu --model har-j --se nw --window rolling:60 -o '%s'", pp, o),
                     0);
    char *coefs = t_read_file(o), *fc = t_read_file(t_tmppath("lib_roll.forecasts.csv")),
         *ls = t_read_file(t_tmppath("lib_roll.losses.csv"));
    assert_non_null(coefs), assert_non_null(fc), assert_non_null(ls);

    raid_har_spec *sp;
    assert_int_equal(raid_har_spec_create(&sp), RAID_OK);
    raid_har_model m;
    raid_har_window wk;
    int64_t wn;
    assert_int_equal(raid_har_model_parse("har-j", &m), RAID_OK);
    assert_int_equal(raid_har_window_parse("rolling:60", &wk, &wn), RAID_OK);
    assert_int_equal(raid_har_spec_set_model(sp, m), RAID_OK);
    assert_int_equal(raid_har_spec_set_window(sp, wk, wn), RAID_OK);
    assert_int_equal(raid_har_spec_check(sp), RAID_OK);
    raid_har_input *in;
    assert_int_equal(raid_har_read_csv(pp, NULL, 0, m, &in), RAID_OK);
    assert_int_equal(raid_har_input_nsymbols(in), 3);
    raid_ctx *ctx = t_open_ctx("cpu");
    raid_har_result *res;
    assert_int_equal(raid_har_fit(ctx, sp, in, &res), RAID_OK);
    assert_int_equal(raid_har_result_nestimated(res), 1);
    assert_int_equal(raid_har_result_status(res, 0), RAID_OK);
    assert_int_not_equal(raid_har_result_status(res, 1), RAID_OK); /* B: too few rows */
    assert_int_not_equal(raid_har_result_status(res, 2), RAID_OK); /* C: constant */
    char *lc = written(raid_har_write_coefs, res), *lf = written(raid_har_write_forecasts, res),
         *ll = written(raid_har_write_losses, res), *lt = written(raid_har_write_loss_table, res);
    assert_string_equal(lc, coefs);
    assert_string_equal(lf, fc);
    assert_string_equal(ll, ls);
    /* stderr: the messages, then the table */
    size_t elen = 0;
    char *e = malloc(1 << 16);
    assert_non_null(e);
    e[0] = 0;
    for (size_t i = 0; i < raid_har_result_nmessages(res); i++) {
        elen += (size_t)snprintf(e + elen, (1 << 16) - elen, "raid har: %s\n", raid_har_result_message(res, i));
        assert_true(raid_har_result_message_symbol(res, i) < 3);
    }
    snprintf(e + elen, (1 << 16) - elen, "%s", lt);
    assert_string_equal(e, cerr);
    /* accessors: rows of A only, k columns, names as the spec */
    const size_t nr = raid_har_result_nrows(res);
    assert_true(nr > 0);
    assert_int_equal(raid_har_result_k(res), 5);
    assert_string_equal(raid_har_result_coef_name(res, 4), "j");
    for (size_t r = 0; r < nr; r++)
        assert_int_equal(raid_har_result_row_symbol(res)[r], 0);
    assert_non_null(raid_har_result_row_end(res, 0));
    assert_int_equal(raid_har_result_row_n(res)[0], 60);
    size_t n, nq;
    double mse, ql;
    assert_int_equal(raid_har_result_loss(res, 0, &n, &mse, &ql, &nq), 1);
    assert_int_equal(n, raid_har_result_nforecasts(res));
    assert_int_equal(raid_har_result_loss(res, 1, &n, &mse, &ql, &nq), 0);
    free(lc), free(lf), free(ll), free(lt), free(e);
    raid_har_result_destroy(res);
    raid_har_input_destroy(in);
    raid_har_spec_destroy(sp);
    raid_ctx_destroy(ctx);
    free(coefs), free(fc), free(ls), free(cerr);
}

/* From arrays: symbols as the caller gives them, messages naming rows when there is no source file,
 * statuses; the parse helpers and the checks of a specification. */
static void test_lib_arrays(void **state)
{
    (void)state;
    enum { N = 80 };
    static char dbuf[N][16];
    const char *dates[N], *rdates[N];
    double rv[N];
    for (int d = 0; d < N; d++) {
        snprintf(dbuf[d], sizeof dbuf[d], "2021-%02d-%02d", 1 + d / 28, 1 + d % 28);
        dates[d] = dbuf[d];
        rdates[d] = dbuf[d == 40 ? 39 : d]; /* a repeated date */
        rv[d] = 1e-4 * (1.0 + 0.3 * ((d * 37) % 11) / 10.0 + 0.05 * ((d * d * 13) % 17) / 17.0);
    }
    raid_har_input *in;
    assert_int_equal(raid_har_input_create(&in), RAID_OK);
    assert_int_equal(raid_har_input_add(in, "X", N, dates, rv, NULL, NULL, NULL, NULL), RAID_OK);
    /* a repeated date is refused where the series is added (the CSV reader's rule, io/order.h), with the
     * symbol and the rows; the input is left as it was */
    assert_int_equal(raid_har_input_add(in, "Y", N, rdates, rv, NULL, NULL, NULL, NULL), RAID_EINVAL);
    assert_non_null(strstr(raid_errmsg(), "raid_har_input_add: Y: row 41: date '2021-02-12' repeats '2021-02-12' on "
                                          "row 40 (the rows of a series must be in time order)"));
    const char *bdates[N];
    memcpy(bdates, dates, sizeof bdates);
    bdates[50] = dbuf[10]; /* one going back, rows by the caller's numbering */
    int64_t brows[N];
    for (int d = 0; d < N; d++)
        brows[d] = 100 + d;
    assert_int_equal(raid_har_input_add(in, "Y", N, bdates, rv, NULL, NULL, NULL, brows), RAID_EINVAL);
    assert_non_null(strstr(raid_errmsg(), "Y: row 150: date '2021-01-11' comes before '2021-02-22' on row 149"));
    assert_int_equal(raid_har_input_nsymbols(in), 1);
    assert_int_equal(raid_har_input_add(in, "Y", N, dates, rv, NULL, NULL, NULL, NULL), RAID_OK);
    assert_int_equal(raid_har_input_add(in, "X", N, dates, rv, NULL, NULL, NULL, NULL), RAID_EINVAL);
    assert_non_null(strstr(raid_errmsg(), "'X'"));
    /* dates as integers: the same strings */
    int32_t ymd[N];
    for (int d = 0; d < N; d++)
        ymd[d] = 20210000 + 100 * (1 + d / 28) + 1 + d % 28;
    raid_har_input *in2;
    assert_int_equal(raid_har_input_create(&in2), RAID_OK);
    assert_int_equal(raid_har_input_add_ymd(in2, "X", N, ymd, rv, NULL, NULL, NULL, NULL), RAID_OK);
    ymd[3] = 20211301;
    assert_int_equal(raid_har_input_add_ymd(in2, "Z", N, ymd, rv, NULL, NULL, NULL, NULL), RAID_EINVAL);
    assert_int_equal(raid_har_input_nsymbols(in2), 1);
    raid_har_spec *sp;
    assert_int_equal(raid_har_spec_create(&sp), RAID_OK);
    raid_ctx *ctx = t_open_ctx("cpu");
    raid_har_result *res;
    assert_int_equal(raid_har_fit(ctx, sp, in, &res), RAID_OK);
    assert_int_equal(raid_har_result_nsymbols(res), 2);
    assert_string_equal(raid_har_result_symbol(res, 1), "Y");
    assert_int_equal(raid_har_result_status(res, 0), RAID_OK);
    assert_int_equal(raid_har_result_status(res, 1), RAID_OK);
    assert_int_equal(raid_har_result_nmessages(res), 0);
    assert_int_equal(raid_har_result_nrows(res), 2);
    assert_null(raid_har_result_row_end(res, 0)); /* full sample */
    assert_int_equal(raid_har_result_nforecasts(res), 0);
    raid_har_result *res2; /* integer dates: the same fit */
    assert_int_equal(raid_har_fit(ctx, sp, in2, &res2), RAID_OK);
    assert_int_equal(raid_har_result_nrows(res2), 1);
    assert_memory_equal(raid_har_result_beta(res2), raid_har_result_beta(res), 4 * sizeof(double));
    assert_memory_equal(raid_har_result_se(res2), raid_har_result_se(res), 4 * sizeof(double));
    raid_har_result_destroy(res2);
    raid_har_input_destroy(in2);
    raid_har_result_destroy(res);
    /* an invalid combination is refused by the fit, with the context's message */
    assert_int_equal(raid_har_spec_set_model(sp, RAID_HAR_Q), RAID_OK);
    assert_int_equal(raid_har_spec_set_transform(sp, RAID_HAR_LOG), RAID_OK);
    assert_int_equal(raid_har_spec_check(sp), RAID_EINVAL);
    assert_int_equal(raid_har_fit(ctx, sp, in, &res), RAID_EINVAL);
    assert_null(res);
    assert_non_null(strstr(raid_ctx_errmsg(ctx), "harq"));
    assert_int_equal(raid_har_spec_set_transform(sp, RAID_HAR_NONE), RAID_OK);
    assert_int_equal(raid_har_spec_set_window(sp, RAID_HAR_ROLLING, 5), RAID_OK);
    assert_int_equal(raid_har_spec_check(sp), RAID_EINVAL); /* 5 rows, 5 regressors */
    assert_int_equal(raid_har_spec_set_horizon(sp, 0), RAID_EINVAL);
    assert_int_equal(raid_har_spec_set_alpha(sp, 1.0), RAID_EINVAL);
    assert_int_equal(raid_har_spec_set_se(sp, RAID_SE_NW, -2), RAID_EINVAL);
    assert_int_equal(raid_har_spec_horizon(sp), 1);
    /* names <-> enums */
    static const char *const models[] = {"har", "har-j", "har-cj", "harq"};
    for (int i = 0; i < 4; i++) {
        raid_har_model m;
        assert_int_equal(raid_har_model_parse(models[i], &m), RAID_OK);
        assert_string_equal(raid_har_model_name(m), models[i]);
    }
    raid_har_transform t;
    raid_se_kind se;
    raid_har_window wk;
    int64_t wn;
    int lags[RAID_HAR_MAX_LAGS], nl;
    assert_int_equal(raid_har_transform_parse("sqrt", &t), RAID_OK);
    assert_string_equal(raid_har_transform_name(t), "sqrt");
    assert_int_equal(raid_har_se_parse("white", &se), RAID_OK);
    assert_string_equal(raid_har_se_name(se), "white");
    assert_int_equal(raid_har_se_parse("hc3", &se), RAID_EINVAL);
    assert_int_equal(raid_har_window_parse("expanding:250", &wk, &wn), RAID_OK);
    assert_true(wk == RAID_HAR_EXPANDING && wn == 250);
    assert_int_equal(raid_har_window_parse("rolling:", &wk, &wn), RAID_EINVAL);
    assert_int_equal(raid_har_lags_parse("1,5,22", lags, &nl), RAID_OK);
    assert_true(nl == 3 && lags[2] == 22);
    assert_int_equal(raid_har_lags_parse("1,5,", lags, &nl), RAID_EINVAL);
    /* digits only, as the header says (a tester found spaces and signs accepted) */
    static const char *const badlags[] = {"1, 5", "1,+5", "1,\t5", " 1,5", "1,5 ", "+1,5", "1,-5"};
    for (size_t i = 0; i < sizeof badlags / sizeof badlags[0]; i++)
        if (raid_har_lags_parse(badlags[i], lags, &nl) != RAID_EINVAL)
            fail_msg("lags '%s' accepted", badlags[i]);
    assert_int_equal(raid_har_lags_parse("1,0005", lags, &nl), RAID_OK);
    assert_true(nl == 2 && lags[1] == 5);
    static const char *const badwin[] = {"rolling: 40", "rolling:+40", "rolling:40 ", "expanding:-0", "rolling:"};
    for (size_t i = 0; i < sizeof badwin / sizeof badwin[0]; i++)
        if (raid_har_window_parse(badwin[i], &wk, &wn) != RAID_EINVAL)
            fail_msg("window '%s' accepted", badwin[i]);
    assert_int_equal(raid_har_window_parse("rolling:040", &wk, &wn), RAID_OK);
    assert_true(wk == RAID_HAR_ROLLING && wn == 40);
    raid_har_spec_destroy(sp);
    raid_har_input_destroy(in);
    raid_ctx_destroy(ctx);
}

/* Found by a tester: the input from arrays and from a CSV checks what the header promises. A symbol with no
 * days may pass NULL arrays; a name that is not UTF-8, an empty date and a date not in the calendar are
 * refused; an input without symbols fits to an empty result (the header's "the call succeeds even when
 * no symbol is estimated"); a model out of range is refused by the reader; the spec's getters take NULL;
 * a jump_p outside [0, 1] is refused where har-cj reads it (CSV: FILE:LINE:COL, so --jump-p-col naming a
 * z statistic fails instead of fitting; arrays: the symbol's status, naming the row). */
static void test_lib_input_checks(void **state)
{
    (void)state;
    raid_har_input *in;
    assert_int_equal(raid_har_input_create(&in), RAID_OK);
    assert_int_equal(raid_har_input_add(in, "B", 0, NULL, NULL, NULL, NULL, NULL, NULL), RAID_OK);
    assert_int_equal(raid_har_input_add(in, "B\xff", 0, NULL, NULL, NULL, NULL, NULL, NULL), RAID_EINVAL);
    assert_non_null(strstr(raid_errmsg(), "not valid UTF-8"));
    assert_int_equal(raid_har_input_add(in, "\xc3\xa9t\xc3\xa9", 0, NULL, NULL, NULL, NULL, NULL, NULL), RAID_OK);
    const char *d2[2] = {"2020-01-02", ""};
    const double rv2[2] = {1e-4, 2e-4};
    assert_int_equal(raid_har_input_add(in, "E", 2, d2, rv2, NULL, NULL, NULL, NULL), RAID_EINVAL);
    assert_string_equal(raid_errmsg(), "raid_har_input_add: E: row 2: date is empty");
    /* the CSV reader's rules (raidHarDayCheck): a calendar date YYYY-MM-DD, rv not negative */
    const char *const baddates[] = {"2020-02-30", "20200102", "2020-1-2", "zzzz", "2020-01-02T00:00:00"};
    for (size_t i = 0; i < sizeof baddates / sizeof baddates[0]; i++) {
        const char *d[2] = {"2020-01-01", baddates[i]};
        char want[128];
        snprintf(want, sizeof want, "raid_har_input_add: D: row 2: date '%s' is not a calendar date YYYY-MM-DD",
                 baddates[i]);
        assert_int_equal(raid_har_input_add(in, "D", 2, d, rv2, NULL, NULL, NULL, NULL), RAID_EINVAL);
        assert_string_equal(raid_errmsg(), want);
    }
    const char *d3[2] = {"2020-01-01", "2020-01-02"};
    const double rvneg[2] = {1e-4, -2e-4};
    const int64_t ln[2] = {7, 8};
    assert_int_equal(raid_har_input_add(in, "N", 2, d3, rvneg, NULL, NULL, NULL, ln), RAID_EINVAL);
    assert_string_equal(raid_errmsg(),
                        "raid_har_input_add: N: row 8: rv is negative (a realized variance is non-negative and finite)");
    const double pos[2] = {1e-4, 2e-4}, neg[2] = {1e-4, -0.0};
    const double negv[2] = {-1e-4, 1e-4};
    assert_int_equal(raid_har_input_add(in, "N", 2, d3, pos, negv, NULL, NULL, ln), RAID_EINVAL);
    assert_string_equal(raid_errmsg(),
                        "raid_har_input_add: N: row 7: bpv is negative (a bipower variation is non-negative)");
    assert_int_equal(raid_har_input_add(in, "N", 2, d3, pos, pos, negv, NULL, NULL), RAID_EINVAL);
    assert_string_equal(raid_errmsg(),
                        "raid_har_input_add: N: row 1: rq is negative (a realized quarticity is non-negative)");
    /* -0 is not negative, NAN is a missing day */
    const double nanv[2] = {NAN, 1e-4};
    assert_int_equal(raid_har_input_add(in, "Z0", 2, d3, pos, neg, nanv, NULL, NULL), RAID_OK);
    /* calendar dates (proleptic Gregorian) */
    const int32_t ok[] = {20200229, 20000229, 20211231, 99991231, 10101};
    const int32_t bad[] = {20200230, 20190229, 19000229, 20210431, 20211232, 20210000, 100000101, -20200101};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        char nm[16];
        snprintf(nm, sizeof nm, "ok%zu", i);
        if (raid_har_input_add_ymd(in, nm, 1, &ok[i], rv2, NULL, NULL, NULL, NULL) != RAID_OK)
            fail_msg("%d: %s", ok[i], raid_errmsg());
    }
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        if (raid_har_input_add_ymd(in, "bad", 1, &bad[i], rv2, NULL, NULL, NULL, NULL) != RAID_EINVAL)
            fail_msg("%d accepted", bad[i]);
        assert_non_null(strstr(raid_errmsg(), "is not a date yyyymmdd"));
    }
    assert_int_equal(raid_har_input_nsymbols(in), 3 + sizeof ok / sizeof ok[0]);
    raid_har_input_destroy(in);

    /* an input without symbols: an empty result */
    raid_har_spec *sp;
    assert_int_equal(raid_har_spec_create(&sp), RAID_OK);
    raid_ctx *ctx = t_open_ctx("cpu");
    raid_har_result *res = NULL;
    assert_int_equal(raid_har_input_create(&in), RAID_OK);
    for (int w = 0; w < 2; w++) {
        if (w)
            assert_int_equal(raid_har_spec_set_window(sp, RAID_HAR_ROLLING, 100), RAID_OK);
        if (raid_har_fit(ctx, sp, in, &res) != RAID_OK)
            fail_msg("empty input: %s", raid_ctx_errmsg(ctx));
        assert_int_equal(raid_har_result_nsymbols(res), 0);
        assert_int_equal(raid_har_result_nestimated(res), 0);
        assert_int_equal(raid_har_result_nrows(res), 0);
        assert_int_equal(raid_har_result_nforecasts(res), 0);
        raid_har_result_destroy(res);
    }
    raid_har_input_destroy(in);
    assert_int_equal(raid_har_spec_set_window(sp, RAID_HAR_FULL, 0), RAID_OK);

    /* the reader refuses a model out of range */
    const char *csv = t_tmppath("checks.csv");
    assert_int_equal(t_write_file(csv, "date,rv\n2020-01-02,1e-4\n"), 0);
    in = (raid_har_input *)1;
    assert_int_equal(raid_har_read_csv(csv, NULL, 0, (raid_har_model)77, &in), RAID_EINVAL);
    assert_null(in);
    assert_string_equal(raid_errmsg(), "raid_har_read_csv: bad model 77");
    assert_int_equal(raid_har_read_csv(csv, NULL, 0, (raid_har_model)-1, &in), RAID_EINVAL);

    /* NULL-tolerant getters */
    assert_int_equal(raid_har_spec_k(NULL), 0);
    assert_int_equal(raid_har_spec_lags(NULL, NULL), 0);
    assert_int_equal(raid_har_spec_horizon(NULL), 0);
    assert_int_equal(raid_har_spec_nw_lag(NULL), 0);
    assert_int_equal(raid_har_spec_window_n(NULL), 0);
    assert_true(isnan(raid_har_spec_alpha(NULL)));
    assert_string_equal(raid_har_model_name(raid_har_spec_model(NULL)), "?");
    assert_string_equal(raid_har_transform_name(raid_har_spec_transform(NULL)), "?");
    assert_string_equal(raid_har_se_name(raid_har_spec_se(NULL)), "?");
    assert_int_equal((int)raid_har_spec_window(NULL), -1);
    assert_null(raid_har_spec_coef_name(NULL, 0));
    assert_int_equal(raid_har_input_nsymbols(NULL), 0);

    /* jump_p out of [0, 1] from arrays: har-cj reports the symbol with its row; har does not read it */
    enum { N = 60 };
    static char dbuf[N][16];
    const char *dates[N];
    double rv[N], bpv[N], jp[N];
    for (int d = 0; d < N; d++) {
        snprintf(dbuf[d], sizeof dbuf[d], "2021-%02d-%02d", 1 + d / 28, 1 + d % 28);
        dates[d] = dbuf[d];
        rv[d] = 1e-4 * (1.0 + 0.3 * ((d * 37) % 11) / 10.0 + 0.05 * ((d * d * 13) % 17) / 17.0);
        bpv[d] = 0.9 * rv[d];
        jp[d] = d % 7 ? 0.5 : 0.01;
    }
    jp[11] = NAN; /* missing: allowed */
    assert_int_equal(raid_har_input_create(&in), RAID_OK);
    assert_int_equal(raid_har_input_add(in, "P", N, dates, rv, bpv, NULL, jp, NULL), RAID_OK);
    jp[12] = 1.0, jp[13] = 0.0;
    assert_int_equal(raid_har_input_add(in, "Q", N, dates, rv, bpv, NULL, jp, NULL), RAID_OK);
    jp[40] = 2.31; /* a z statistic */
    assert_int_equal(raid_har_input_add(in, "Z", N, dates, rv, bpv, NULL, jp, NULL), RAID_OK);
    jp[40] = -1e-9;
    assert_int_equal(raid_har_input_add(in, "M", N, dates, rv, bpv, NULL, jp, NULL), RAID_OK);
    assert_int_equal(raid_har_spec_set_model(sp, RAID_HAR_CJ), RAID_OK);
    assert_int_equal(raid_har_fit(ctx, sp, in, &res), RAID_OK);
    assert_int_equal(raid_har_result_status(res, 0), RAID_OK);
    assert_int_equal(raid_har_result_status(res, 1), RAID_OK);
    assert_int_equal(raid_har_result_status(res, 2), RAID_EINVAL);
    assert_int_equal(raid_har_result_status(res, 3), RAID_EINVAL);
    assert_int_equal(raid_har_result_nestimated(res), 2);
    for (size_t i = 0; i < raid_har_result_nmessages(res); i++)
        printf("# %s\n", raid_har_result_message(res, i));
    assert_int_equal(raid_har_result_nmessages(res), 4); /* P and Q: the rows that touch day 12 */
    assert_non_null(strstr(raid_har_result_message(res, 0), "P: "));
    assert_non_null(strstr(raid_har_result_message(res, 1), "Q: "));
    assert_string_equal(raid_har_result_message(res, 2), "Z: jump_p 2.3100000000000001 on row 41 (date "
                                                         "'2021-02-13') is not a p-value (expected a number in "
                                                         "[0, 1], or NAN for none); symbol skipped");
    assert_non_null(strstr(raid_har_result_message(res, 3), "M: jump_p -1.0000000000000001e-09 on row 41"));
    raid_har_result_destroy(res);
    assert_int_equal(raid_har_spec_set_model(sp, RAID_HAR_RV), RAID_OK);
    assert_int_equal(raid_har_fit(ctx, sp, in, &res), RAID_OK);
    assert_int_equal(raid_har_result_nestimated(res), 4);
    raid_har_result_destroy(res);
    raid_har_input_destroy(in);

    /* the same from a CSV: FILE:LINE:COL, for har-cj only; an empty jump_p is missing */
    char text[8192] = "symbol,date,rv,bpv,jump_z\n";
    size_t len = strlen(text);
    for (int d = 0; d < N; d++)
        len += (size_t)snprintf(text + len, sizeof text - len, "A,%s,%.17g,%.17g,%s\n", dates[d], rv[d], bpv[d],
                                d == 5 ? "" : d == 40 ? "2.31" : d % 7 ? "0.5" : "0.01");
    assert_int_equal(t_write_file(csv, text), 0);
    const char *names[6] = {NULL, NULL, NULL, NULL, NULL, "jump_z"};
    assert_int_equal(raid_har_read_csv(csv, names, 0, RAID_HAR_CJ, &in), RAID_EPARSE);
    char want[1024];
    snprintf(want, sizeof want, "%s:42:5: jump_z '2.31' is not a p-value (expected a number in [0, 1], or empty "
             "for none)", csv);
    assert_string_equal(raid_errmsg(), want);
    assert_int_equal(raid_har_read_csv(csv, names, 0, RAID_HAR_J, &in), RAID_OK);
    raid_har_input_destroy(in);
    char *out, *err;
    assert_int_equal(t_cli(&out, &err, "har '%s' --device cpu --model har-cj --jump-p-col jump_z", csv), 2);
    if (!strstr(err, want))
        fail_msg("expected '%s' in: %s", want, err);
    free(out);
    free(err);
    /* an empty date (it used to sort first): line 3, column 2 */
    char *l3 = strstr(text, "\nA,") + 1;
    l3 = strstr(l3, "\nA,") + 3;
    memmove(l3, l3 + 10, strlen(l3 + 10) + 1);
    assert_int_equal(t_write_file(csv, text), 0);
    assert_int_equal(raid_har_read_csv(csv, NULL, 0, RAID_HAR_RV, &in), RAID_EPARSE);
    snprintf(want, sizeof want, "%s:3:2: empty date (every row needs one)", csv);
    assert_string_equal(raid_errmsg(), want);
    assert_int_equal(t_cli(&out, &err, "har '%s' --device cpu", csv), 2);
    if (!strstr(err, want))
        fail_msg("expected '%s' in: %s", want, err);
    free(out);
    free(err);
    raid_har_spec_destroy(sp);
    raid_ctx_destroy(ctx);
}

/* Found by a tester: at work-group widths 1, 2 and 4 (which raid_ctx_set_chunk accepts) the regression
 * kernel left partials unwritten and raid_har_fit said "X'X is singular" or "row 0 is not finite". The fit
 * on the device at narrow widths (full sample and rolling windows, har-cj, Newey-West) agrees with the cpu
 * to 1e-10 (the bound of test_cli_devices_windows). */
static void test_lib_narrow_widths(void **state)
{
    (void)state;
    if (!t_have_opencl())
        skip();
    raid_har_input *in;
    assert_int_equal(raid_har_read_csv(write_panel(), NULL, 0, RAID_HAR_CJ, &in), RAID_OK);
    raid_har_spec *sp;
    assert_int_equal(raid_har_spec_create(&sp), RAID_OK);
    assert_int_equal(raid_har_spec_set_model(sp, RAID_HAR_CJ), RAID_OK);
    raid_ctx *cpu = t_open_ctx("cpu"), *dev = t_open_ctx(t_device());
    const size_t widths[] = {1, 2, 4, 8};
    for (int w = 0; w < 2; w++) {
        if (w)
            assert_int_equal(raid_har_spec_set_window(sp, RAID_HAR_ROLLING, 120), RAID_OK);
        raid_har_result *rc, *rd;
        assert_int_equal(raid_har_fit(cpu, sp, in, &rc), RAID_OK);
        const size_t nr = raid_har_result_nrows(rc), k = (size_t)raid_har_result_k(rc);
        assert_true(nr >= (w ? 100u : 1u));
        for (size_t iw = 0; iw < 4; iw++)
            for (size_t run = 1; run <= 8; run *= 8) {
                assert_int_equal(raid_ctx_set_chunk(dev, widths[iw] * run, widths[iw]), RAID_OK);
                if (raid_har_fit(dev, sp, in, &rd) != RAID_OK)
                    fail_msg("wg %zu: %s", widths[iw], raid_ctx_errmsg(dev));
                assert_int_equal(raid_har_result_nrows(rd), nr);
                assert_int_equal(raid_har_result_nestimated(rd), raid_har_result_nestimated(rc));
                const double *a[2] = {raid_har_result_beta(rc), raid_har_result_se(rc)},
                             *b[2] = {raid_har_result_beta(rd), raid_har_result_se(rd)};
                for (int q = 0; q < 2; q++)
                    for (size_t i = 0; i < nr * k; i++)
                        if (!(fabs(a[q][i] - b[q][i]) <= 1e-10 * fabs(a[q][i])))
                            fail_msg("%s, wg %zu chunk %zu: %s[%zu] cpu %.17g device %.17g", w ? "rolling" : "full",
                                     widths[iw], widths[iw] * run, q ? "se" : "beta", i, a[q][i], b[q][i]);
                raid_har_result_destroy(rd);
            }
        raid_har_result_destroy(rc);
    }
    raid_ctx_destroy(dev);
    raid_ctx_destroy(cpu);
    raid_har_spec_destroy(sp);
    raid_har_input_destroy(in);
}

static void test_cli_devices_windows(void **state)
{
    (void)state;
    const char *panel = write_panel();
    char *cpu, *dev, *err;
    assert_int_equal(t_cli(&cpu, NULL, "har '%s' --device cpu --model har-j --transform sqrt", panel), 0);
    if (t_have_opencl()) {
        assert_int_equal(t_cli(&dev, &err, "har '%s' --device %s --model har-j --transform sqrt", panel, t_device()), 0);
        static const char *const cols[] = {"const", "rv_d", "rv_w", "rv_m", "j", "j_se", "rv_m_se"};
        for (int i = 0; i < 7; i++) {
            double a = field(cpu, cols[i], 1), b = field(dev, cols[i], 1);
            if (!(fabs(a - b) <= 1e-10 * fabs(a)))
                fail_msg("%s: cpu %.17g device %.17g", cols[i], a, b);
        }
        free(dev), free(err);
    }
    /* one expanding window of all rows = the full-sample fit; window_end is the last date */
    const int m = 300 - 22; /* rows of A */
    char *win;
    const char *o = t_tmppath("one.csv");
    int rc = t_cli(NULL, &err, "har '%s' --device cpu --model har-j --transform sqrt --window expanding:%d -o '%s'",
                 panel, m, o);
    if (rc != 0)
        fail_msg("exit %d: %s", rc, err);
    free(err);
    win = t_read_file(o);
    assert_non_null(win);
    assert_int_equal(count_lines(win), 2);
    assert_non_null(strstr(win, ",2020-11-20,278,")); /* day 299: month 1 + 299/28 = 11, day 1 + 299%28 */
    static const char *const cols[] = {"const", "rv_d", "rv_w", "rv_m", "j", "const_se", "j_t", "r2"};
    for (int i = 0; i < 8; i++) {
        double a = field(cpu, cols[i], 1), b = field(win, cols[i], 1);
        if (!(fabs(a - b) <= 1e-12 * fabs(a)))
            fail_msg("%s: full %.17g window %.17g", cols[i], a, b);
    }
    free(win);
    /* rolling windows: forecasts and losses files next to OUT */
    const char *o2 = t_tmppath("roll.csv");
    assert_int_equal(t_cli(NULL, &err, "har '%s' --device cpu --window rolling:120 -o '%s'", panel, o2), 0);
    assert_non_null(strstr(err, "forecast losses"));
    free(err);
    char *r = t_read_file(o2), *f = t_read_file(t_tmppath("roll.forecasts.csv")),
         *l = t_read_file(t_tmppath("roll.losses.csv"));
    assert_non_null(r);
    assert_non_null(f);
    assert_non_null(l);
    assert_int_equal(count_lines(r), 1 + (size_t)(m - 120 + 1));
    assert_int_equal(count_lines(f), 1 + (size_t)(m - 120));
    assert_true(!strncmp(f, "symbol,date,forecast,actual,sq_err,qlike\n", 41));
    assert_true(!strncmp(l, "symbol,model,transform,h,n_forecasts,mse,qlike,n_qlike\nA,har,none,1,158,", 72));
    /* the windows are solved in parallel: the same bytes with one thread and with three */
    const char *o3 = t_tmppath("roll1.csv"), *o4 = t_tmppath("roll3.csv");
    const char *old_thr = getenv("OMP_NUM_THREADS");
    char *saved = old_thr ? strdup(old_thr) : NULL;
    setenv("OMP_NUM_THREADS", "1", 1);
    assert_int_equal(t_cli(NULL, NULL, "har '%s' --device cpu --se nw --window rolling:60 -o '%s'", panel, o3), 0);
    setenv("OMP_NUM_THREADS", "3", 1);
    assert_int_equal(t_cli(NULL, NULL, "har '%s' --device cpu --se nw --window rolling:60 -o '%s'", panel, o4), 0);
    if (saved)
        setenv("OMP_NUM_THREADS", saved, 1);
    else
        unsetenv("OMP_NUM_THREADS");
    free(saved);
    char *a1 = t_read_file(o3), *a3 = t_read_file(o4);
    assert_non_null(a1);
    assert_non_null(a3);
    assert_string_equal(a1, a3);
    free(a1), free(a3);
    free(r), free(f), free(l), free(cpu);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_design_har),     cmocka_unit_test(test_design_missing),
        cmocka_unit_test(test_design_jumps),   cmocka_unit_test(test_design_harq),
        cmocka_unit_test(test_cli_symbols),    cmocka_unit_test(test_cli_usage),
        cmocka_unit_test(test_cli_odd_input),   cmocka_unit_test(test_unterminated_last_line),
        cmocka_unit_test(test_cli_quoting_and_write_errors),
        cmocka_unit_test(test_cli_order_errors),
        cmocka_unit_test(test_cli_bad_values),
        cmocka_unit_test(test_cli_bad_bpv_rq),
        cmocka_unit_test(test_cli_devices_windows),
        cmocka_unit_test(test_cli_batched_meat),
        cmocka_unit_test(test_cli_robust_range),
        cmocka_unit_test(test_lib_equals_cli),
        cmocka_unit_test(test_lib_arrays),
        cmocka_unit_test(test_lib_input_checks),
        cmocka_unit_test(test_lib_narrow_widths),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
