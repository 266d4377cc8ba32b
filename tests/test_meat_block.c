/*
 * The block path of the cpu meat (src/regress/meat_block.c) against the row-wise path (the oracle: long
 * double scores, raidRegMeatRangesHow(..., 0)), on rolling and expanding windows of HAR-shaped and
 * adversarial series: large means, near-collinear columns, lag 0, lag >= window, windows of the minimal
 * length, a fit close to exact, no intercept, k = 1 and 8, ranges out of order. Every window the block path
 * takes must be within its bound, 2^-36 sqrt(M_pp M_qq) of the oracle (M the oracle's lag-0 meat, plus 4u
 * for the oracle's own rounding), and raid_reg_meat_ranges_at must return, for every window, either that
 * or the oracle's bits (the windows it leaves).
 */
#include "support.h"
#include "raid.h"
#include "raid/tuning.h"
#include "regress/ols_internal.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

static uint64_t rng = 12345;

static double gauss(void)
{
    double u = t_unif(&rng), v = t_unif(&rng);
    return sqrt(-2 * log(u + 0x1p-60)) * cos(6.283185307179586 * v);
}

typedef struct series {
    int k;
    int64_t n;
    double *X, *y;
} series;

/* rv_t = 1e-4 exp(h_t), h an AR(1) with coefficient phi and N(0, sig^2) innovations, T days. */
static double *lognormal_rv(int64_t T, double phi, double sig)
{
    double *rv = malloc((size_t)T * sizeof *rv), h = 0;
    for (int64_t t = 0; t < T; t++) {
        h = phi * h + sig * gauss();
        rv[t] = 1e-4 * exp(h);
    }
    return rv;
}

/* The weekly and monthly sums of rv ending at day t. */
static void har_means(const double *rv, int64_t t, double *w, double *m)
{
    *w = *m = 0;
    for (int j = 0; j < 5; j++)
        *w += rv[t - j];
    for (int j = 0; j < 22; j++)
        *m += rv[t - j];
}

/* HAR-RV design of a log-normal AR(1) rv (bench_regress's recipe), then the options: level added to the
 * non-constant regressors, collinear: x3 = x2 + eps N(0, 1) sd(x2), fit: y = X b + fit N(0, 1) sd(y) (0: the
 * HAR target). */
static series har_series(int64_t n, double level, double collinear, double fit)
{
    series s = {4, n, malloc((size_t)n * 4 * sizeof(double)), malloc((size_t)n * sizeof(double))};
    const int64_t T = n + 23;
    double *rv = lognormal_rv(T, 0.95, 0.3);
    for (int64_t i = 0; i < n; i++) {
        const int64_t t = 22 + i;
        double w, m;
        har_means(rv, t, &w, &m);
        double *x = s.X + i * 4;
        x[0] = 1;
        x[1] = rv[t] + level;
        x[2] = w / 5 + level;
        x[3] = collinear > 0 ? x[2] + collinear * 1e-4 * gauss() : m / 22 + level;
        s.y[i] = fit > 0 ? 2e-6 + 0.3 * x[1] + 0.4 * x[2] + 0.2 * x[3] + fit * 1e-4 * gauss() : rv[t + 1];
    }
    free(rv);
    return s;
}

/* k columns of N(0, 1) + mu (no constant column unless intercept), y = sum x + N(0, 1). */
static series gauss_series(int64_t n, int k, int intercept, double mu)
{
    series s = {k, n, malloc((size_t)n * (size_t)k * sizeof(double)), malloc((size_t)n * sizeof(double))};
    for (int64_t i = 0; i < n; i++) {
        double acc = 0;
        for (int j = 0; j < k; j++) {
            const double v = intercept && j == 0 ? 1.0 : mu + gauss();
            s.X[i * k + j] = v;
            acc += 0.5 * v;
        }
        s.y[i] = acc + gauss();
    }
    return s;
}

static void free_series(series *s)
{
    free(s->X);
    free(s->y);
}

/* Each window's OLS coefficients and column means (the centre raid har uses). */
static void fit_windows(raid_ctx *cpu, const series *s, const int64_t *st, const int64_t *en, size_t nw, double *beta,
                        double *cen)
{
    for (size_t w = 0; w < nw; w++) {
        int64_t off[2] = {st[w], en[w]};
        raid_reg_stats rs;
        assert_int_equal(raid_reg_stats_compute(cpu, s->X, s->y, s->k, off, 1, &rs), RAID_OK);
        raid_ols o;
        if (raid_ols_from_stats(&rs, 1, &o) != RAID_OK)
            for (int j = 0; j < s->k; j++)
                o.beta[j] = 0.1 * j;
        memcpy(beta + w * (size_t)s->k, o.beta, (size_t)s->k * sizeof *beta);
        if (cen)
            raid_reg_stats_centre(&rs, cen + w * (size_t)s->k);
    }
}

typedef struct outcome {
    size_t taken, n;
    double worst; /* largest |block - oracle| / sqrt(M_pp M_qq) over the windows taken */
} outcome;

/* Block path against the oracle on the given windows; also checks raid_reg_meat_ranges_at. */
static outcome check_windows(const char *what, const series *s, const int64_t *st, const int64_t *en, size_t nw, int L,
                             int centred, int force)
{
    raid_ctx *cpu = t_open_ctx("cpu");
    const int k = s->k;
    const size_t kk = (size_t)k * (size_t)k, nc = (size_t)(L + 1) * kk;
    double *beta = malloc(nw * (size_t)k * sizeof *beta), *cen = centred ? malloc(nw * (size_t)k * sizeof *cen) : NULL;
    double *blk = calloc(nw * nc, sizeof *blk), *ora = malloc(nw * nc * sizeof *ora), *pub = malloc(nw * nc * sizeof *pub);
    unsigned char *done = calloc(nw, 1);
    fit_windows(cpu, s, st, en, nw, beta, cen);
    outcome oc = {raidRegMeatBlocks(s->X, s->y, k, st, en, nw, beta, cen, L, blk, done, force), nw, 0};
    assert_int_equal(raidRegMeatRangesHow(cpu, s->X, s->y, k, st, en, nw, beta, cen, L, ora, 0), RAID_OK);
    assert_int_equal(raid_reg_meat_ranges_at(cpu, s->X, s->y, k, st, en, nw, beta, cen, L, pub), RAID_OK);
    const double tol = 0x1p-36 + 4 * 0x1p-53;
    for (size_t w = 0; w < nw; w++) {
        const double *o = ora + w * nc, *b = blk + w * nc, *p = pub + w * nc;
        for (size_t c = 0; c < nc; c++) {
            const size_t pp = c % kk / (size_t)k, qq = c % (size_t)k;
            const double scale = sqrt(o[pp * (size_t)k + pp] * o[qq * (size_t)k + qq]);
            if (done[w]) {
                const double e = scale > 0 ? fabs(b[c] - o[c]) / scale : fabs(b[c] - o[c]);
                if (!(e <= tol))
                    fail_msg("%s: window %zu [%lld, %lld) entry %zu: block %.17g oracle %.17g (%.3g of the scale)", what,
                             w, (long long)st[w], (long long)en[w], c, b[c], o[c], e);
                oc.worst = fmax(oc.worst, e);
            }
            /* the public call: the block path's bits where it took the window, else the rows' */
            if (memcmp(&p[c], &o[c], sizeof *p) != 0 && !(done[w] && memcmp(&p[c], &b[c], sizeof *p) == 0))
                fail_msg("%s: window %zu entry %zu: the public call gives %.17g (rows %.17g)", what, w, c, p[c], o[c]);
        }
    }
    printf("# %s: %zu of %zu windows from blocks, largest error %.3e of sqrt(M_pp M_qq) (bound %.3g)\n", what, oc.taken,
           oc.n, oc.worst, 0x1p-36);
    free(beta), free(cen), free(blk), free(ora), free(pub), free(done);
    raid_ctx_destroy(cpu);
    return oc;
}

/* Rolling windows of W rows ending every step rows. */
static size_t rolling(int64_t n, int64_t W, int64_t step, int64_t **st, int64_t **en)
{
    const size_t nw = (size_t)((n - W) / step + 1);
    *st = malloc(nw * sizeof **st);
    *en = malloc(nw * sizeof **en);
    for (size_t w = 0; w < nw; w++) {
        (*st)[w] = (int64_t)w * step;
        (*en)[w] = (*st)[w] + W;
    }
    return nw;
}

static void test_har_rolling(void **state)
{
    (void)state;
    series s = har_series(1600, 0, 0, 0);
    int64_t *st, *en;
    const size_t nw = rolling(s.n, 500, 1, &st, &en);
    const int lags[3] = {5, 22, 40};
    for (int i = 0; i < 3; i++) {
        char what[64];
        snprintf(what, sizeof what, "HAR rolling:500, lag %d", lags[i]);
        outcome oc = check_windows(what, &s, st, en, nw, lags[i], 1, 0);
        assert_true(oc.taken > nw * 9 / 10); /* the block path is meant for these */
    }
    /* about 0 instead of the means (raid_reg_meat_ranges), and White (lag 0) */
    outcome oc = check_windows("HAR rolling:500, lag 5, scores about 0", &s, st, en, nw, 5, 0, 0);
    assert_true(oc.taken > nw / 2);
    oc = check_windows("HAR rolling:500, lag 0", &s, st, en, nw, 0, 1, 0);
    assert_true(oc.taken > nw * 9 / 10);
    free(st), free(en);
    free_series(&s);
}

static void test_expanding_and_minimal(void **state)
{
    (void)state;
    series s = har_series(900, 0, 0, 0);
    const int L = 8; /* blocks of B = 8 rows */
    /* expanding windows from row 3 (both edges partial), every length from 1 to 300 */
    int64_t st[300], en[300];
    for (int w = 0; w < 300; w++)
        st[w] = 3, en[w] = 3 + 1 + w;
    check_windows("expanding from row 3, lengths 1..300, lag 8", &s, st, en, 300, L, 1, 1);
    /* windows of the minimal lengths around one or two whole blocks, every offset */
    int64_t a[64], b[64];
    size_t nw = 0;
    for (int len = 7; len <= 24 && nw < 64; len += 1)
        for (int off = 0; off < 3 && nw < 64; off++, nw++)
            a[nw] = 100 + off + len, b[nw] = a[nw] + len; /* starts and ends increase: one run */
    outcome oc = check_windows("minimal windows (7..24 rows), lag 8 (forced)", &s, a, b, nw, L, 1, 1);
    assert_true(oc.taken > 0);
    free_series(&s);
}

static void test_lag_at_least_window(void **state)
{
    (void)state;
    series s = har_series(700, 0, 0, 0);
    int64_t *st, *en;
    const size_t nw = rolling(s.n, 60, 1, &st, &en);
    outcome oc = check_windows("lag 60 on rolling:60", &s, st, en, nw, 60, 1, 0);
    assert_int_equal(oc.taken, 0); /* blocks of B = L rows cost more than the rows here: all from the rows */
    check_windows("lag 60 on rolling:60 (forced: one whole block at most)", &s, st, en, nw, 60, 1, 1);
    oc = check_windows("lag 70 on rolling:60 (forced)", &s, st, en, nw, 70, 1, 1);
    assert_int_equal(oc.taken, 0); /* no whole block of B = 70 rows in a window of 60 */
    free(st), free(en);
    free_series(&s);
}

static void test_adversarial(void **state)
{
    (void)state;
    int64_t *st, *en;
    /* large means: regressors at 1e4 and 1e7 times their spread (the meat about the window's means) */
    series s = har_series(1200, 1.0, 0, 0);
    size_t nw = rolling(s.n, 400, 1, &st, &en);
    check_windows("levels 1e4 x spread", &s, st, en, nw, 10, 1, 0);
    free_series(&s);
    s = har_series(1200, 1e3, 0, 0);
    check_windows("levels 1e7 x spread", &s, st, en, nw, 10, 1, 0);
    free_series(&s);
    /* near-collinear columns */
    s = har_series(1200, 0, 1e-6, 0);
    check_windows("near-collinear rv_w, rv_m (1e-6)", &s, st, en, nw, 10, 1, 0);
    free_series(&s);
    /* a fit close to exact: residuals 1e-9 of y's spread (the bound must refuse the windows). With the reference
     * fit the expansion itself has nothing to cancel here; what refuses them is tau, the long double rounding of
     * the reference residuals y - x'b*, 2^-64 of terms 1e9 times larger than the residuals (the row-wise oracle
     * loses as much) */
    s = har_series(1200, 0, 0, 1e-9);
    outcome oc = check_windows("residuals 1e-9 x spread", &s, st, en, nw, 10, 1, 0);
    assert_true(oc.taken < nw / 10);
    free_series(&s);
    free(st), free(en);
}

/* HARQ-shaped (Bollerslev, Patton and Quaedvlieg 2016): rv_t heavy-tailed, rq_rv = rv_t (sqrt(rq_t) - mean) with
 * sqrt(rq_t) about rv_t, so on the days of large rv the two columns are nearly proportional and their terms in
 * the residual, with coefficients of opposite signs, cancel. Before the reference residuals (SPY's HARQ: 84 of
 * 474 windows within the bound) the expansion's terms were up to 270 times the residuals there. */
static series harq_series(int64_t n)
{
    series s = {5, n, malloc((size_t)n * 5 * sizeof(double)), malloc((size_t)n * sizeof(double))};
    const int64_t T = n + 23;
    double *rv = lognormal_rv(T, 0.9, 0.6), *sq = malloc((size_t)T * sizeof *sq), msq = 0;
    for (int64_t t = 0; t < T; t++) {
        sq[t] = rv[t] * exp(0.1 * gauss());
        msq += sq[t] / (double)T;
    }
    for (int64_t i = 0; i < n; i++) {
        const int64_t t = 22 + i;
        double w, m;
        har_means(rv, t, &w, &m);
        double *x = s.X + i * 5;
        x[0] = 1;
        x[1] = rv[t];
        x[2] = rv[t] * (sq[t] - msq) * 1e4;
        x[3] = w / 5;
        x[4] = m / 22;
        s.y[i] = 1e-5 + 1.2 * x[1] - 0.5 * x[2] + 0.1 * x[3] + 0.1 * x[4] + 0.3 * rv[t] * gauss();
    }
    free(rv), free(sq);
    return s;
}

static void test_harq_cancellation(void **state)
{
    (void)state;
    series s = harq_series(1500);
    int64_t *st, *en;
    const size_t nw = rolling(s.n, 1000, 1, &st, &en);
    outcome oc = check_windows("HARQ-shaped rolling:1000, lag 6", &s, st, en, nw, 6, 1, 0);
    assert_true(oc.taken > nw * 9 / 10);
    oc = check_windows("HARQ-shaped rolling:1000, lag 22", &s, st, en, nw, 22, 1, 0);
    assert_true(oc.taken > nw * 9 / 10);
    free(st), free(en);
    free_series(&s);
}

static void test_shapes(void **state)
{
    (void)state;
    int64_t *st, *en;
    const int ks[3] = {1, 3, 8};
    for (int i = 0; i < 3; i++) {
        for (int icpt = 0; icpt < 2; icpt++) {
            if (ks[i] == 1 && icpt)
                continue;
            series s = gauss_series(1500, ks[i], icpt, icpt ? 3.0 : 0.5);
            const size_t nw = rolling(s.n, 600, 3, &st, &en);
            char what[96];
            snprintf(what, sizeof what, "N(0,1) design k %d %s, rolling:600 step 3, lag 12", ks[i],
                     icpt ? "with intercept" : "without intercept");
            check_windows(what, &s, st, en, nw, 12, icpt, 0);
            free(st), free(en);
            free_series(&s);
        }
    }
    /* ranges out of order: windows of two series interleaved, each run of one window */
    series s = har_series(1000, 0, 0, 0);
    int64_t a[40], b[40];
    for (int w = 0; w < 40; w++) {
        a[w] = (w % 2) * 400 + (w / 2) * 5;
        b[w] = a[w] + 300;
    }
    outcome oc = check_windows("interleaved windows", &s, a, b, 40, 6, 1, 1);
    assert_int_equal(oc.taken, 0);
    free_series(&s);
}

/* RAID_TUNE_MEAT_ROWS: the public call gives the rows' bits (the benchmark's before-and-after). */
static void test_knob_rows(void **state)
{
    (void)state;
    raid_ctx *cpu = t_open_ctx("cpu"), *rows = t_open_ctx("cpu");
    assert_int_equal(raid_tuning_set(rows, RAID_TUNE_MEAT_ROWS, 2), RAID_EINVAL);
    assert_int_equal(raid_tuning_set(rows, RAID_TUNE_MEAT_ROWS, 1), RAID_OK);
    series s = har_series(700, 0, 0, 0);
    int64_t *st, *en;
    const size_t nw = rolling(s.n, 300, 1, &st, &en), nc = 6 * 16;
    double *beta = malloc(nw * 4 * sizeof *beta), *a = malloc(nw * nc * sizeof *a), *b = malloc(nw * nc * sizeof *b);
    fit_windows(cpu, &s, st, en, nw, beta, NULL);
    assert_int_equal(raid_reg_meat_ranges_at(rows, s.X, s.y, 4, st, en, nw, beta, NULL, 5, a), RAID_OK);
    assert_int_equal(raidRegMeatRangesHow(cpu, s.X, s.y, 4, st, en, nw, beta, NULL, 5, b, 0), RAID_OK);
    assert_memory_equal(a, b, nw * nc * sizeof *a);
    free(beta), free(a), free(b), free(st), free(en);
    free_series(&s);
    raid_ctx_destroy(cpu);
    raid_ctx_destroy(rows);
}

/* The same bits on one thread and on three: the pieces depend on the ranges only. */
static void test_threads(void **state)
{
    (void)state;
    raid_ctx *cpu = t_open_ctx("cpu");
    series s = har_series(2600, 0, 0, 0);
    int64_t *st, *en;
    const size_t nw = rolling(s.n, 300, 1, &st, &en), nc = 8 * 16;
    double *beta = malloc(nw * 4 * sizeof *beta), *a = malloc(nw * nc * sizeof *a), *b = malloc(nw * nc * sizeof *b);
    fit_windows(cpu, &s, st, en, nw, beta, NULL);
    const int saved = omp_get_max_threads();
    omp_set_num_threads(1);
    assert_int_equal(raid_reg_meat_ranges_at(cpu, s.X, s.y, 4, st, en, nw, beta, NULL, 7, a), RAID_OK);
    omp_set_num_threads(3);
    assert_int_equal(raid_reg_meat_ranges_at(cpu, s.X, s.y, 4, st, en, nw, beta, NULL, 7, b), RAID_OK);
    omp_set_num_threads(saved);
    assert_memory_equal(a, b, nw * nc * sizeof *a);
    free(beta), free(a), free(b), free(st), free(en);
    free_series(&s);
    raid_ctx_destroy(cpu);
}

/* A non-finite value inside a window: the public call still names the window (the block path leaves the
 * piece to the rows). */
static void test_not_finite(void **state)
{
    (void)state;
    raid_ctx *cpu = t_open_ctx("cpu");
    series s = har_series(800, 0, 0, 0);
    int64_t *st, *en;
    const size_t nw = rolling(s.n, 300, 1, &st, &en);
    const int L = 5;
    double *beta = malloc(nw * 4 * sizeof *beta), *out = malloc(nw * (size_t)(L + 1) * 16 * sizeof *out);
    fit_windows(cpu, &s, st, en, nw, beta, NULL);
    s.y[450] = NAN; /* in windows 151 .. 450 */
    assert_int_equal(raid_reg_meat_ranges_at(cpu, s.X, s.y, 4, st, en, nw, beta, NULL, L, out), RAID_EINVAL);
    assert_non_null(strstr(raid_ctx_errmsg(cpu), "range 151:"));
    free(beta), free(out), free(st), free(en);
    free_series(&s);
    raid_ctx_destroy(cpu);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_har_rolling),   cmocka_unit_test(test_expanding_and_minimal),
        cmocka_unit_test(test_lag_at_least_window), cmocka_unit_test(test_adversarial),
        cmocka_unit_test(test_shapes),        cmocka_unit_test(test_not_finite),
        cmocka_unit_test(test_knob_rows),     cmocka_unit_test(test_threads),
        cmocka_unit_test(test_harq_cancellation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
