/* Group-by with exact sums (include/raid/groupby.h): the cpu path on adversarial groups with known exact
 * answers (cancellation, ties, subnormals, signed zeros, infinities, NaN, overflow), order independence,
 * semantics (nulls, skipna, min/max of signed zeros, first/last), the hash and direct group ids, errors;
 * and the device path (PoCL) against the cpu path bit for bit: local and global tables, one group
 * spanning every work-group, many groups, work-group counts, 100 repeated runs. tests/python/test_groupby.py
 * checks the sums against Python's fractions and the rest against pandas; the CSV job without data rows. */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include "support.h"

#include "column/groupby_internal.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const raid_agg ALL[] = {RAID_AGG_COUNT, RAID_AGG_SUM, RAID_AGG_MEAN, RAID_AGG_MIN,
                               RAID_AGG_MAX,   RAID_AGG_FIRST, RAID_AGG_LAST};
#define NALL 7

static int same_bits(double a, double b) { return memcmp(&a, &b, sizeof a) == 0 || (isnan(a) && isnan(b)); }

static raid_groupby *run(raid_ctx *ctx, const int64_t *k, const double *x, const uint8_t *valid, size_t n,
                         unsigned flags, size_t rows, int local)
{
    raid_groupby *g = NULL;
    raid_status st = raidGbCompute(ctx, k, x, valid, n, ALL, NALL, flags, rows, local, &g);
    if (st != RAID_OK)
        fail_msg("groupby: %s", ctx ? raid_ctx_errmsg(ctx) : raid_errmsg());
    return g;
}

/* The sum of group `key` (cpu path) */
static double sum_of(raid_groupby *g, int64_t key)
{
    for (size_t i = 0; i < raid_groupby_ngroups(g); i++)
        if (raid_groupby_keys(g)[i] == key)
            return raid_groupby_column(g, 1)[i];
    fail_msg("no group %lld", (long long)key);
    return 0;
}

static void assert_same(raid_groupby *a, raid_groupby *b)
{
    const size_t G = raid_groupby_ngroups(a);
    assert_int_equal(G, raid_groupby_ngroups(b));
    for (size_t i = 0; i < G; i++) {
        assert_int_equal(raid_groupby_keys(a)[i], raid_groupby_keys(b)[i]);
        assert_int_equal(raid_groupby_counts(a)[i], raid_groupby_counts(b)[i]);
        for (size_t j = 0; j < NALL; j++) {
            const double u = raid_groupby_column(a, j)[i], v = raid_groupby_column(b, j)[i];
            if (!same_bits(u, v))
                fail_msg("group %zu (key %lld) %s: %.17g vs %.17g", i, (long long)raid_groupby_keys(a)[i],
                         raid_agg_name(ALL[j]), u, v);
        }
    }
}

static double tiny(int k) { return ldexp(1.0, -1074) * k; }

/* Adversarial groups with exact answers known by hand (the group key is the case's number). */
typedef struct gcase {
    double v[6];
    int n;
    double sum;
} gcase;

static gcase *cases(size_t *nc)
{
    static gcase c[32];
    int i = 0;
    c[i++] = (gcase){{1e16, 1.0, -1e16}, 3, 1.0};
    c[i++] = (gcase){{1e308, 1.0, -1e308, 2.5}, 4, 3.5};
    c[i++] = (gcase){{1e308, 1e308}, 2, INFINITY};                       /* overflow of the rounded sum */
    c[i++] = (gcase){{-1e308, -1e308}, 2, -INFINITY};
    c[i++] = (gcase){{-0.0, -0.0}, 2, -0.0};
    c[i++] = (gcase){{-0.0, 0.0}, 2, 0.0};
    c[i++] = (gcase){{0.0, -0.0}, 2, 0.0};
    c[i++] = (gcase){{1.0, -1.0, -0.0}, 3, 0.0};                          /* x + -x = +0 */
    c[i++] = (gcase){{INFINITY, -INFINITY}, 2, NAN};
    c[i++] = (gcase){{INFINITY, 1e308, -1e308}, 3, INFINITY};
    c[i++] = (gcase){{-INFINITY, 5.0}, 2, -INFINITY};
    c[i++] = (gcase){{NAN, 1.0}, 2, NAN};
    c[i++] = (gcase){{tiny(1), tiny(1), tiny(1)}, 3, 0};                  /* subnormals: set below */
    c[i++] = (gcase){{ldexp(1, 53), 1.0}, 2, ldexp(1, 53)};               /* a tie: to even */
    c[i++] = (gcase){{ldexp(1, 53), 1.0, tiny(1)}, 3, ldexp(1, 53) + 2};  /* above the tie by 2^-1074 */
    c[i++] = (gcase){{ldexp(1, 53), 3.0}, 3, ldexp(1, 53) + 4};           /* a tie: to even (up) */
    c[i++] = (gcase){{0.1, 0.2, 0.3}, 3, 0.6};                           /* exact sum rounded: 0.6 (float64 adds give 0.6000000000000001) */
    c[i++] = (gcase){{0x1.fffffffffffffp1023, ldexp(1, 970)}, 2, INFINITY}; /* DBL_MAX + half an ulp: ties up to inf */
    c[i++] = (gcase){{0x1.fffffffffffffp1023, ldexp(1, 969)}, 2, 0x1.fffffffffffffp1023};
    c[i++] = (gcase){{-0x1.0p-1022, tiny(1)}, 2, -0x0.fffffffffffffp-1022}; /* into the subnormals */
    c[i++] = (gcase){{1e-300, 1e300, -1e300}, 3, 1e-300};
    c[i++] = (gcase){{0}, 0, 0.0}; /* filled below: all null */
    c[12].sum = tiny(3);
    *nc = (size_t)i;
    return c;
}

static void t_exact_cases(void **state)
{
    (void)state;
    size_t nc;
    gcase *c = cases(&nc);
    int64_t k[256];
    double x[256];
    uint8_t valid[256];
    size_t n = 0;
    for (size_t j = 0; j < nc; j++) {
        for (int r = 0; r < c[j].n; r++, n++) {
            k[n] = (int64_t)j * 7 - 20;
            x[n] = c[j].v[r];
            valid[n] = 1;
        }
        if (c[j].n == 0) { /* an all-null group */
            k[n] = (int64_t)j * 7 - 20;
            x[n] = 42.0;
            valid[n++] = 0;
        }
    }
    raid_groupby *g = run(NULL, k, x, valid, n, 0, 0, -1);
    assert_int_equal(raid_groupby_ngroups(g), nc);
    for (size_t j = 0; j < nc; j++) {
        const double s = sum_of(g, (int64_t)j * 7 - 20);
        if (!same_bits(s, c[j].sum))
            fail_msg("case %zu: sum %a, expected %a", j, s, c[j].sum);
    }
    /* the all-null group: count 0, sum +0, the rest NaN */
    const size_t last = nc - 1;
    assert_int_equal(raid_groupby_counts(g)[last], 0);
    assert_true(same_bits(raid_groupby_column(g, 1)[last], 0.0));
    for (int j = 2; j < NALL; j++)
        assert_true(isnan(raid_groupby_column(g, (size_t)j)[last]));
    /* every permutation of the rows (reversed, rotated) gives the same bits */
    int64_t k2[256];
    double x2[256];
    uint8_t v2[256];
    for (size_t r = 1; r < 5; r++) {
        for (size_t i = 0; i < n; i++) {
            const size_t s = r == 1 ? n - 1 - i : (i * 37 + r) % n;
            k2[i] = k[s], x2[i] = x[s], v2[i] = valid[s];
        }
        raid_groupby *h = run(NULL, k2, x2, v2, n, 0, 0, -1);
        for (size_t i = 0; i < nc; i++)
            assert_true(same_bits(raid_groupby_column(g, 1)[i], raid_groupby_column(h, 1)[i]));
        raid_groupby_destroy(h);
    }
    raid_groupby_destroy(g);
}

static void t_semantics(void **state)
{
    (void)state;
    const int64_t k[] = {5, 5, 5, 5, -3, -3, -3, 9, 9};
    const double x[] = {0.0, -0.0, 2.0, NAN, -0.0, 0.0, 7.0, 1.0, NAN};
    const uint8_t valid[] = {1, 1, 0, 1, 1, 1, 1, 1, 1};
    raid_groupby *g = run(NULL, k, x, valid, 9, 0, 0, -1);
    assert_int_equal(raid_groupby_ngroups(g), 3);
    assert_int_equal(raid_groupby_keys(g)[0], -3);
    assert_int_equal(raid_groupby_keys(g)[2], 9);
    /* key -3: {-0.0, 0.0, 7}: min -0.0, max 7, first -0.0, last 7, sum 7, mean 7/3 */
    const double *mn = raid_groupby_column(g, 3), *mx = raid_groupby_column(g, 4), *fi = raid_groupby_column(g, 5),
                 *la = raid_groupby_column(g, 6), *sm = raid_groupby_column(g, 1), *me = raid_groupby_column(g, 2);
    assert_true(same_bits(mn[0], -0.0) && same_bits(mx[0], 7.0) && same_bits(fi[0], -0.0) && same_bits(la[0], 7.0));
    assert_true(same_bits(me[0], 7.0 / 3.0));
    /* key 5: {0.0, -0.0, (null), NaN}: count 3, sum NaN, min NaN, first 0.0, last NaN */
    assert_int_equal(raid_groupby_counts(g)[1], 3);
    assert_true(isnan(sm[1]) && isnan(mn[1]) && isnan(mx[1]) && same_bits(fi[1], 0.0) && isnan(la[1]));
    raid_groupby_destroy(g);
    /* skipna: NaN are nulls (pandas) */
    g = run(NULL, k, x, valid, 9, RAID_GROUPBY_SKIPNA, 0, -1);
    sm = raid_groupby_column(g, 1), mn = raid_groupby_column(g, 3), mx = raid_groupby_column(g, 4);
    la = raid_groupby_column(g, 6);
    assert_int_equal(raid_groupby_counts(g)[1], 2);
    assert_true(same_bits(sm[1], 0.0) && same_bits(mn[1], -0.0) && same_bits(mx[1], 0.0) && same_bits(la[1], -0.0));
    assert_int_equal(raid_groupby_counts(g)[2], 1);
    assert_true(same_bits(sm[2], 1.0) && same_bits(la[2], 1.0));
    raid_groupby_destroy(g);
}

static void t_empty_and_errors(void **state)
{
    (void)state;
    raid_groupby *g = NULL;
    assert_int_equal(raid_groupby_compute(NULL, NULL, NULL, NULL, 0, ALL, NALL, 0, &g), RAID_OK);
    assert_int_equal(raid_groupby_ngroups(g), 0);
    assert_null(raid_groupby_column(g, 0));
    assert_int_equal(raid_groupby_naggs(g), NALL);
    raid_groupby_destroy(g);
    const int64_t k[] = {1};
    const double x[] = {1.0};
    assert_int_equal(raid_groupby_compute(NULL, k, x, NULL, 1, ALL, 0, 0, &g), RAID_EINVAL);
    assert_null(g);
    const raid_agg bad[] = {(raid_agg)9};
    assert_int_equal(raid_groupby_compute(NULL, k, x, NULL, 1, bad, 1, 0, &g), RAID_EINVAL);
    assert_non_null(strstr(raid_errmsg(), "aggregation 0"));
    assert_int_equal(raid_groupby_compute(NULL, k, NULL, NULL, 1, ALL, NALL, 0, &g), RAID_EINVAL);
    assert_int_equal(raid_groupby_compute(NULL, k, x, NULL, 1, ALL, NALL, 2, &g), RAID_EINVAL);
    const raid_agg cnt[] = {RAID_AGG_COUNT};
    assert_int_equal(raid_groupby_compute(NULL, k, NULL, NULL, 1, cnt, 1, 0, &g), RAID_OK); /* count needs no values */
    assert_true(raid_groupby_column(g, 0)[0] == 1.0);
    raid_groupby_destroy(g);
    const int64_t k5[] = {4, 2, 4, 4, 2};
    const uint8_t v5[] = {1, 1, 0, 1, 1};
    assert_int_equal(raid_groupby_compute(NULL, k5, NULL, v5, 5, cnt, 1, 0, &g), RAID_OK);
    assert_int_equal(raid_groupby_ngroups(g), 2);
    assert_true(raid_groupby_column(g, 0)[0] == 2.0 && raid_groupby_column(g, 0)[1] == 2.0);
    raid_groupby_destroy(g);
    raid_agg a;
    assert_int_equal(raid_agg_parse("mean", &a), RAID_OK);
    assert_int_equal(a, RAID_AGG_MEAN);
    assert_int_equal(raid_agg_parse("median", &a), RAID_EINVAL);
    assert_string_equal(raid_agg_name(RAID_AGG_LAST), "last");
}

/* Random rows: values of mixed magnitudes and signs (some cancelling), a few specials, some nulls. */
static uint64_t rng = 88172645463325252ull;
static uint64_t next(void)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return rng;
}

static void fill(size_t n, int64_t ngroups, int64_t stride, int wide, int64_t *k, double *x, uint8_t *valid)
{
    for (size_t i = 0; i < n; i++) {
        const uint64_t r = next();
        k[i] = (int64_t)(r % (uint64_t)ngroups) * stride - 1000;
        const double u = (double)(next() >> 11) * 0x1p-53 - 0.5;
        const int e = wide ? (int)(next() % 200) - 100 : (int)(next() % 20) - 4;
        x[i] = ldexp(u, e);
        const unsigned s = (unsigned)(next() % 1000);
        if (wide && s == 0)
            x[i] = (next() & 1) ? INFINITY : -INFINITY;
        if (wide && s == 1)
            x[i] = NAN;
        if (s == 2)
            x[i] = -0.0;
        if (wide && s == 3)
            x[i] = tiny((int)(next() % 5) + 1);
        valid[i] = (next() % 50) != 0;
    }
}

/* The cpu path gives the same bits on 1, 2 and 3 threads: few and many groups (the partitioned tables),
 * keys by range and by hash, with and without skipna. */
static void t_threads(void **state)
{
    (void)state;
    const size_t n = 400000;
    int64_t *k = malloc(n * sizeof *k);
    double *x = malloc(n * sizeof *x);
    uint8_t *valid = malloc(n);
    const int64_t groups[] = {3, 60000, 60000}, stride[] = {1, 1, 999983};
    const int saved = omp_get_max_threads();
    for (int c = 0; c < 3; c++) {
        fill(n, groups[c], stride[c], c != 1, k, x, valid);
        for (unsigned flags = 0; flags < 2; flags++) {
            omp_set_num_threads(1);
            raid_groupby *a = run(NULL, k, x, valid, n, flags, 0, -1);
            for (int t = 2; t <= 3; t++) {
                omp_set_num_threads(t);
                raid_groupby *b = run(NULL, k, x, valid, n, flags, 0, -1);
                assert_same(a, b);
                raid_groupby_destroy(b);
            }
            raid_groupby_destroy(a);
        }
    }
    omp_set_num_threads(saved);
    free(k), free(x), free(valid);
}

static raid_ctx *dev(void)
{
    raid_ctx *c = t_open_ctx(t_device());
    return c;
}

static void t_device_vs_cpu(void **state)
{
    (void)state;
    if (!t_have_opencl())
        skip();
    raid_ctx *ctx = dev();
    const size_t n = 200000;
    int64_t *k = malloc(n * sizeof *k);
    double *x = malloc(n * sizeof *x);
    uint8_t *valid = malloc(n);
    const struct {
        int64_t groups, stride;
        int wide;
    } cfg[] = {{1, 1, 0}, {7, 1, 1}, {300, 3, 0}, {1000, 1, 1}, {50000, 1, 0}, {20000, 1000003, 1}};
    for (size_t c = 0; c < sizeof cfg / sizeof cfg[0]; c++) {
        fill(n, cfg[c].groups, cfg[c].stride, cfg[c].wide, k, x, valid);
        for (unsigned flags = 0; flags < 2; flags++) {
            raid_groupby *a = run(NULL, k, x, valid, n, flags, 0, -1);
            const int locals[] = {-1, 0, 1, 3}; /* automatic, global limbs, local tables, exponent buckets */
            const size_t rows[] = {0, 1000, 77777};
            for (int l = 0; l < 4; l++)
                for (int r = 0; r < 3; r++) {
                    raid_groupby *b = NULL;
                    raid_status st = raidGbCompute(ctx, k, x, valid, n, ALL, NALL, flags, rows[r], locals[l], &b);
                    if (st == RAID_EUNSUPPORTED && locals[l] == 1 && cfg[c].groups > 300)
                        continue; /* the tables do not fit in local memory */
                    assert_int_equal(st, RAID_OK);
                    assert_same(a, b);
                    raid_groupby_destroy(b);
                }
            raid_groupby_destroy(a);
        }
    }
    free(k), free(x), free(valid);
    raid_ctx_destroy(ctx);
}

/* Means with exact answers (Python's fractions: the exact mean rounded once), each group keyed by its case
 * number: sums beyond the largest double whose means are finite (1.7e308 twice: sum inf, mean 1.7e308),
 * the exact mean where the rounded sum divided by the count rounds twice, ties in the subnormals, a mean
 * below half the smallest subnormal (its sign), specials. On the cpu path and every device path, bit for
 * bit. */
typedef struct mcase {
    double v[4];
    int n;
    double mean;
} mcase;

static void t_exact_means(void **state)
{
    (void)state;
    const double M = 0x1.fffffffffffffp+1023;
    const mcase c[] = {
        {{1.7e308, 1.7e308}, 2, 1.7e308},
        {{M, M, M}, 3, M},
        {{-M, -M}, 2, -M},
        {{M, M, 1.0}, 3, 0x1.5555555555555p+1023},
        {{M, M, -M, M}, 4, 0x1.fffffffffffffp+1022},
        {{1e308, 1e308, -1e308, 3.0}, 4, 0x1.1ccf385ebc8a0p+1021},
        /* the rounded sum 0x1.49579602fa721p+1 / 3 gives ...debp-1 */
        {{0x1.b52609115a880p+0, 0x1.9ac27c70e1aefp-1, 0x1.027c4c8298680p-4}, 3, 0x1.b71f5d614deeap-1},
        {{1e-300, 1e300, -1e300}, 3, 0x1.c92d503f699ccp-999},
        {{tiny(1), 0.0}, 2, 0.0},            /* half the smallest subnormal: a tie, to even (0) */
        {{tiny(3), 0.0}, 2, tiny(2)},        /* 1.5 units: to even (2) */
        {{tiny(1), tiny(1), 0.0}, 3, tiny(1)},
        {{-tiny(1), 0.0, 0.0}, 3, -0.0},     /* below half a unit: the quotient's sign */
        {{-0.0, -0.0}, 2, -0.0},
        {{0.0, -0.0}, 2, 0.0},
        {{1.0, -1.0}, 2, 0.0},
        {{INFINITY, 1e308, 1e308}, 3, INFINITY},
        {{-INFINITY, 1.0}, 2, -INFINITY},
        {{INFINITY, -INFINITY}, 2, NAN},
        {{NAN, 1e308, 1e308}, 3, NAN},
    };
    const size_t nc = sizeof c / sizeof c[0];
    int64_t k[128];
    double x[128];
    size_t n = 0;
    for (size_t j = 0; j < nc; j++)
        for (int r = 0; r < c[j].n; r++, n++)
            k[n] = (int64_t)j, x[n] = c[j].v[r];
    raid_ctx *ctx = t_have_opencl() ? dev() : NULL;
    const raid_agg one[2] = {RAID_AGG_MEAN, RAID_AGG_SUM};
    const int modes[] = {-1, 0, 1, 3, 8}; /* automatic, global limbs, local, exponent buckets, partitions */
    for (int m = -1; m < (ctx ? 5 : 0); m++) {
        for (int a = 0; a < 2; a++) { /* every aggregation, then the mean with the sum alone */
            raid_groupby *g = NULL;
            const raid_status st = a == 0 ? raidGbCompute(m < 0 ? NULL : ctx, k, x, NULL, n, ALL, NALL, 0, 0,
                                                       m < 0 ? -1 : modes[m], &g)
                                          : raidGbCompute(m < 0 ? NULL : ctx, k, x, NULL, n, one, 2, 0, 0,
                                                       m < 0 ? -1 : modes[m], &g);
            if (st == RAID_EUNSUPPORTED && m >= 2)
                continue; /* exponent buckets, partitions: sums, counts and means only */
            assert_int_equal(st, RAID_OK);
            assert_int_equal(raid_groupby_ngroups(g), nc);
            const double *mean = raid_groupby_column(g, a == 0 ? 2 : 0);
            for (size_t j = 0; j < nc; j++)
                if (!same_bits(mean[j], c[j].mean))
                    fail_msg("%s, mode %d, case %zu: mean %a, expected %a", m < 0 ? "cpu" : "device",
                             m < 0 ? -1 : modes[m], j, mean[j], c[j].mean);
            raid_groupby_destroy(g);
        }
    }
    raid_ctx_destroy(ctx);
}

/* One group whose rows span every work-group (values that carry through every limb), 100 device runs. */
static void t_device_repeat(void **state)
{
    (void)state;
    if (!t_have_opencl())
        skip();
    raid_ctx *ctx = dev();
    const size_t n = 50000;
    int64_t *k = malloc(n * sizeof *k);
    double *x = malloc(n * sizeof *x);
    for (size_t i = 0; i < n; i++) {
        k[i] = i % 97 == 0 ? 1 : 0; /* group 0 is nearly every row */
        x[i] = (i % 3 == 0) ? -ldexp(1.0, 60) + 1.0 : (i % 3 == 1) ? ldexp(1.0, 60) : 0x1.fffffffffffffp-3;
    }
    raid_groupby *a = run(NULL, k, x, NULL, n, 0, 0, -1);
    for (int r = 0; r < 100; r++) {
        raid_groupby *b = NULL;
        assert_int_equal(raidGbCompute(ctx, k, x, NULL, n, ALL, NALL, 0, r % 2 ? 512 : 0, r % 3 == 0 ? 0 : r % 3 == 1 ? 3 : -1, &b), RAID_OK);
        assert_same(a, b);
        raid_groupby_destroy(b);
    }
    raid_groupby_destroy(a);
    free(k), free(x);
    raid_ctx_destroy(ctx);
}

/* The adversarial cases' rows (case j keyed key0 + j, valid) at k, x, valid (if given); their number. */
static size_t put_cases(int64_t key0, int64_t *k, double *x, uint8_t *valid)
{
    size_t nc, n = 0;
    gcase *c = cases(&nc);
    for (size_t j = 0; j < nc; j++)
        for (int r = 0; r < c[j].n; r++, n++) {
            k[n] = key0 + (int64_t)j, x[n] = c[j].v[r];
            if (valid)
                valid[n] = 1;
        }
    return n;
}

/* The adversarial cases on the device. */
static void t_device_cases(void **state)
{
    (void)state;
    if (!t_have_opencl())
        skip();
    raid_ctx *ctx = dev();
    int64_t k[256];
    double x[256];
    const size_t n = put_cases(0, k, x, NULL);
    raid_groupby *a = run(NULL, k, x, NULL, n, 0, 0, -1), *b = run(ctx, k, x, NULL, n, 0, 0, -1);
    assert_same(a, b);
    raid_groupby_destroy(a);
    raid_groupby_destroy(b);
    raid_ctx_destroy(ctx);
}

/* Calls without count or mean (the device keeps no count per row: a -0.0 flags its group instead) on every
 * path, bit for bit against the cpu path: the adversarial cases (a group of -0.0 only: -0.0; -0.0 beside
 * +0.0: +0.0; an all-null group: +0.0; NaN; infinities) within random rows, nulls, skipna, few and many
 * groups; raid_groupby_counts is NULL there. */
static void t_device_no_counts(void **state)
{
    (void)state;
    if (!t_have_opencl())
        skip();
    raid_ctx *ctx = dev();
    size_t nc;
    cases(&nc);
    const size_t n = 60000;
    int64_t *k = malloc(n * sizeof *k);
    double *x = malloc(n * sizeof *x);
    uint8_t *valid = malloc(n);
    const raid_agg sets[][3] = {{RAID_AGG_SUM}, {RAID_AGG_SUM, RAID_AGG_MIN, RAID_AGG_MAX},
                                {RAID_AGG_FIRST, RAID_AGG_SUM, RAID_AGG_LAST}, {RAID_AGG_MIN, RAID_AGG_MAX}};
    const size_t nsets[] = {1, 3, 3, 2};
    const int64_t groups[] = {40, 3000, 50000};
    for (int gi = 0; gi < 3; gi++) {
        fill(n, groups[gi], 1, 1, k, x, valid);
        const size_t at = put_cases(1000000, k, x, valid); /* keys beyond the random ones */
        k[at] = 1000000 + (int64_t)nc, x[at] = 1.0, valid[at] = 0; /* an all-null group */
        for (unsigned flags = 0; flags < 2; flags++)
            for (size_t a = 0; a < 4; a++) {
                raid_groupby *want = NULL;
                assert_int_equal(raidGbCompute(NULL, k, x, valid, n, sets[a], nsets[a], flags, 0, -1, &want), RAID_OK);
                assert_null(raid_groupby_counts(want));
                const int modes[] = {-1, 0, 1, 3, 8}; /* automatic, global limbs, local, exponent buckets,
                                                          partitions */
                for (int m = 0; m < 5; m++) {
                    const int mode = modes[m];
                    raid_groupby *got = NULL;
                    const raid_status st = raidGbCompute(ctx, k, x, valid, n, sets[a], nsets[a], flags, 0, mode, &got);
                    if (st == RAID_EUNSUPPORTED && mode >= 1)
                        continue; /* local tables that do not fit; exponent buckets, partitions: sums only */
                    assert_int_equal(st, RAID_OK);
                    const size_t G = raid_groupby_ngroups(want);
                    assert_int_equal(raid_groupby_ngroups(got), G);
                    assert_null(raid_groupby_counts(got));
                    assert_memory_equal(raid_groupby_keys(want), raid_groupby_keys(got), G * sizeof(int64_t));
                    for (size_t j = 0; j < nsets[a]; j++)
                        for (size_t i = 0; i < G; i++)
                            if (!same_bits(raid_groupby_column(want, j)[i], raid_groupby_column(got, j)[i]))
                                fail_msg("mode %d, %zu groups, group %zu %s: %a vs %a", mode, G, i,
                                         raid_agg_name(sets[a][j]), raid_groupby_column(want, j)[i],
                                         raid_groupby_column(got, j)[i]);
                    raid_groupby_destroy(got);
                }
                raid_groupby_destroy(want);
            }
    }
    free(k), free(x), free(valid);
    raid_ctx_destroy(ctx);
}

/* The CSV job on a file without data rows (a header only) and on one whose first data row is bad: the
 * reader's first batch is empty and appends nothing (a memcpy of 0 bytes from NULL arrays would be undefined
 * behaviour, which UBSan reports; the fuzz target groupby found both inputs, tests/fuzz/corpus/groupby). */
static void t_csv_no_rows(void **state)
{
    (void)state;
    char path[512];
    snprintf(path, sizeof path, "%s", t_tmppath("gb_norows.csv"));
    assert_int_equal(t_write_file(path, "k,x\n"), 0);
    raid_groupby_table *t = NULL;
    assert_int_equal(raid_groupby_run_csv(NULL, path, "k", "sum:x,count", 0, &t), RAID_OK);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_int_equal(raid_groupby_table_write_csv(t, f), RAID_OK);
    fclose(f);
    assert_string_equal(buf, "k,sum_x,count\n");
    free(buf);
    raid_groupby_table_destroy(t);
    assert_int_equal(t_write_file(path, "k,x\nz,1\n"), 0);
    assert_int_equal(raid_groupby_run_csv(NULL, path, "k", "sum:x", 0, &t), RAID_EPARSE);
    assert_null(t);
    assert_non_null(strstr(raid_errmsg(), ":2:1: cannot parse key 'z'"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(t_exact_cases),   cmocka_unit_test(t_semantics),     cmocka_unit_test(t_empty_and_errors),
        cmocka_unit_test(t_threads),       cmocka_unit_test(t_csv_no_rows),
        cmocka_unit_test(t_device_cases),  cmocka_unit_test(t_device_vs_cpu), cmocka_unit_test(t_device_repeat),
        cmocka_unit_test(t_device_no_counts), cmocka_unit_test(t_exact_means),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
