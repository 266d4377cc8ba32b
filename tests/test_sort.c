/* The sorts of include/raid/sort.h (src/column/sort*.c, kernels/col_sort.cl; docs/column.md "Sorting"):
 * the cpu path against a reference (qsort of the indices with numpy's order written out with double
 * comparisons: NaN after +inf, -0.0 == 0.0, nulls after NaN, ties by input index; descending as pandas'
 * ascending=False, kind='stable'), and the device path (PoCL here) against the same reference, bit for bit:
 * sort, argsort (uint32, int64), (int64, float64) pairs, segmented sorts, validity masks, on random and
 * adversarial arrays (all equal, sorted, reversed, many NaN of different payloads and signs, only NaN,
 * -0.0/+0.0 mixtures, subnormals, +-inf, one element, empty, 2^24 + 1 elements, segments of length 0, 1
 * and many). The device part is skipped without an OpenCL device. */
#include "support.h"

#include "raid.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static raid_ctx *g_dev;

static int setup(void **state)
{
    (void)state;
    if (t_have_opencl())
        g_dev = t_open_ctx(t_device());
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    raid_ctx_destroy(g_dev);
    return 0;
}

static uint64_t rng = 0x9E3779B97F4A7C15ULL;



/* ---- the reference ---- */

static const double *r_x;
static const int64_t *r_k;
static const uint8_t *r_valid;
static int r_desc;

static int r_isvalid(size_t i) { return !r_valid || ((r_valid[i / 8] >> (i % 8)) & 1); }

/* class: 0 number, 1 NaN, 2 null */
static int r_class(size_t i) { return !r_isvalid(i) ? 2 : isnan(r_x[i]) ? 1 : 0; }

static int r_cmp(const void *pa, const void *pb)
{
    const int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
    int c;
    if (r_k) {
        c = r_k[a] < r_k[b] ? -1 : r_k[a] > r_k[b] ? 1 : 0;
        if (r_desc)
            c = -c;
    } else {
        const int ca = r_class((size_t)a), cb = r_class((size_t)b);
        if (ca != cb)
            c = ca < cb ? -1 : 1;
        else if (ca != 0)
            c = 0;
        else {
            c = r_x[a] < r_x[b] ? -1 : r_x[a] > r_x[b] ? 1 : 0;
            if (r_desc)
                c = -c;
        }
    }
    return c ? c : (a < b ? -1 : 1);
}

/* The reference permutation of each segment (indices into x). */
static int64_t *reference(const double *x, const int64_t *ik, const uint8_t *valid, int desc, const int64_t *off,
                          size_t nseg)
{
    const size_t n = (size_t)off[nseg];
    int64_t *p = malloc((n + 1) * sizeof *p);
    assert_non_null(p);
    r_x = x;
    r_k = ik;
    r_valid = valid;
    r_desc = desc;
    for (size_t s = 0; s < nseg; s++) {
        for (int64_t i = off[s]; i < off[s + 1]; i++)
            p[i] = i;
        qsort(p + off[s], (size_t)(off[s + 1] - off[s]), sizeof *p, r_cmp);
    }
    return p;
}

/* Every sort of x on ctx (NULL: the cpu path) against the reference. */
static void check_ctx(raid_ctx *ctx, const double *x, const uint8_t *valid, unsigned flags, const int64_t *off,
                      size_t nseg, const int64_t *ref, const char *what)
{
    const size_t n = (size_t)off[nseg];
    const size_t a = (size_t)off[0];
    double *v = malloc((n + 1) * sizeof *v);
    int64_t *i64 = malloc((n + 1) * sizeof *i64);
    uint32_t *i32 = malloc((n + 1) * sizeof *i32);
    assert_true(v && i64 && i32);
    raid_status st = raid_sort_f64_seg(ctx, x, off, nseg, valid, flags, v);
    if (st != RAID_OK)
        fprintf(stderr, "%s: %s\n", what, ctx ? raid_ctx_errmsg(ctx) : raid_errmsg());
    assert_int_equal(st, RAID_OK);
    assert_int_equal(raid_argsort_f64_seg_i64(ctx, x, off, nseg, valid, flags, i64), RAID_OK);
    assert_int_equal(raid_argsort_f64_seg_u32(ctx, x, off, nseg, valid, flags, i32), RAID_OK);
    for (size_t j = a; j < n; j++) {
        if (i64[j] != ref[j] || i32[j] != (uint32_t)ref[j] || t_bits_of(v[j]) != t_bits_of(x[ref[j]])) {
            fprintf(stderr, "%s (%s, n %zu, flags %u): position %zu: argsort %lld / %u, sort %a; want %lld (%a)\n",
                    what, ctx ? "device" : "cpu", n, flags, j, (long long)i64[j], i32[j], v[j], (long long)ref[j],
                    x[ref[j]]);
            fail();
        }
    }
    free(v);
    free(i64);
    free(i32);
}

static void check(const double *x, const uint8_t *valid, const int64_t *off, size_t nseg, const char *what, int device)
{
    for (unsigned flags = 0; flags <= RAID_SORT_DESC; flags++) {
        int64_t *ref = reference(x, NULL, valid, (int)flags, off, nseg);
        check_ctx(NULL, x, valid, flags, off, nseg, ref, what);
        if (g_dev && device)
            check_ctx(g_dev, x, valid, flags, off, nseg, ref, what);
        free(ref);
    }
}

static void check1(const double *x, size_t n, const uint8_t *valid, const char *what)
{
    const int64_t off[2] = {0, (int64_t)n};
    check(x, valid, off, 1, what, 1);
}

/* ---- inputs ---- */

static const uint64_t SPECIAL[] = {
    0x0000000000000000ULL, 0x8000000000000000ULL, 0x7FF0000000000000ULL, 0xFFF0000000000000ULL, /* 0 -0 inf -inf */
    0x7FF8000000000000ULL, 0xFFF8000000000000ULL, 0x7FF0000000000001ULL, 0xFFF00000DEADBEEFULL, 0x7FFFFFFFFFFFFFFFULL,
    0x0000000000000001ULL, 0x8000000000000001ULL, 0x000FFFFFFFFFFFFFULL, 0x800FFFFFFFFFFFFFULL, /* subnormals */
    0x0010000000000000ULL, 0x3FF0000000000000ULL, 0xBFF0000000000000ULL, 0x7FEFFFFFFFFFFFFFULL, 0xFFEFFFFFFFFFFFFFULL};
#define NSPECIAL (sizeof SPECIAL / sizeof *SPECIAL)

/* kind 0: random bits; 1: specials and small integers (many ties); 2: uniform [0, 1); 3: NaN-heavy. */
static double draw(int kind)
{
    const uint64_t r = t_splitmix64(&rng);
    switch (kind) {
    case 0:
        return t_from_bits(r);
    case 1:
        return r % 3 ? t_from_bits(SPECIAL[r % NSPECIAL]) : (double)((int64_t)(r >> 40) % 7);
    case 2:
        return (double)(r >> 11) * 0x1p-53;
    default:
        return r % 2 ? t_from_bits(SPECIAL[4 + (r >> 8) % 5]) : (r % 5 ? (double)((r >> 20) % 5) - 2.0 : -0.0);
    }
}

static void test_adversarial(void **state)
{
    (void)state;
    enum { N = 5000 };
    double *x = malloc(N * sizeof *x);
    uint8_t *valid = malloc(N / 8 + 1);
    assert_true(x && valid);
    check1(x, 0, NULL, "empty");
    x[0] = -0.0;
    check1(x, 1, NULL, "one element");
    for (int kind = 0; kind < 4; kind++) {
        for (size_t i = 0; i < N; i++)
            x[i] = draw(kind);
        check1(x, N, NULL, "random");
        check1(x, 40, NULL, "random short");
        for (size_t i = 0; i < N / 8 + 1; i++)
            valid[i] = (uint8_t)t_splitmix64(&rng);
        check1(x, N, valid, "random with nulls");
    }
    for (size_t i = 0; i < N; i++)
        x[i] = 3.5;
    check1(x, N, NULL, "all equal");
    for (size_t i = 0; i < N; i++)
        x[i] = (double)i - 100.0;
    check1(x, N, NULL, "sorted");
    for (size_t i = 0; i < N; i++)
        x[i] = 100.0 - (double)i;
    check1(x, N, NULL, "reversed");
    for (size_t i = 0; i < N; i++)
        x[i] = t_from_bits(0x7FF0000000000000ULL | (t_splitmix64(&rng) & 0x000FFFFFFFFFFFFFULL) | 1u | (t_splitmix64(&rng) & 0x8000000000000000ULL));
    check1(x, N, NULL, "only NaN");
    for (size_t i = 0; i < N; i++)
        x[i] = t_splitmix64(&rng) % 2 ? 0.0 : -0.0;
    check1(x, N, NULL, "signed zeros");
    for (size_t i = 0; i < N; i++)
        x[i] = t_from_bits((t_splitmix64(&rng) & 0x800FFFFFFFFFFFFFULL));
    check1(x, N, NULL, "subnormals");
    memset(valid, 0, N / 8 + 1);
    check1(x, N, valid, "only nulls");
    free(x);
    free(valid);
}

static void test_segments(void **state)
{
    (void)state;
    enum { N = 6000, S = 400 };
    double *x = malloc(N * sizeof *x);
    uint8_t *valid = malloc(N / 8 + 1);
    int64_t off[S + 1];
    assert_true(x && valid);
    for (size_t i = 0; i < N; i++)
        x[i] = draw((int)(i % 4));
    for (size_t i = 0; i < N / 8 + 1; i++)
        valid[i] = (uint8_t)(t_splitmix64(&rng) | 0x11);
    /* lengths 0, 1 and many, the first offset non-zero */
    off[0] = 13;
    for (size_t s = 0; s < S; s++) {
        const uint64_t r = t_splitmix64(&rng) % 10;
        int64_t len = r < 2 ? 0 : r < 4 ? 1 : (int64_t)(t_splitmix64(&rng) % 40);
        if (s == S / 2)
            len = 900;
        if (off[s] + len > N)
            len = N - off[s];
        off[s + 1] = off[s] + len;
    }
    check(x, NULL, off, S, "segments", 1);
    check(x, valid, off, S, "segments with nulls", 1);
    const int64_t two[3] = {5, 5, 5}; /* only empty segments */
    check(x, NULL, two, 2, "empty segments", 1);
    const int64_t big[3] = {0, 100, N}; /* one segment holds most (threads share its passes) */
    check(x, valid, big, 2, "one big segment", 1);
    free(x);
    free(valid);
}

static void test_pairs(void **state)
{
    (void)state;
    enum { N = 7000 };
    int64_t *k = malloc(N * sizeof *k), *ko = malloc(N * sizeof *ko);
    double *v = malloc(N * sizeof *v), *vo = malloc(N * sizeof *vo);
    assert_true(k && ko && v && vo);
    for (size_t i = 0; i < N; i++) {
        const uint64_t r = t_splitmix64(&rng);
        k[i] = i % 3 == 0 ? (int64_t)r : i % 3 == 1 ? (int64_t)(r % 17) - 8 : (r % 2 ? INT64_MIN : INT64_MAX);
        v[i] = t_from_bits(t_splitmix64(&rng));
    }
    const int64_t off[2] = {0, N};
    for (unsigned flags = 0; flags <= RAID_SORT_DESC; flags++) {
        int64_t *ref = reference(v, k, NULL, (int)flags, off, 1);
        for (int dev = 0; dev < 2; dev++) {
            raid_ctx *ctx = dev ? g_dev : NULL;
            if (dev && !g_dev)
                continue;
            assert_int_equal(raid_sort_i64_f64(ctx, k, v, N, flags, ko, vo), RAID_OK);
            for (size_t j = 0; j < N; j++)
                if (ko[j] != k[ref[j]] || t_bits_of(vo[j]) != t_bits_of(v[ref[j]])) {
                    fprintf(stderr, "pairs (%s, flags %u): position %zu\n", dev ? "device" : "cpu", flags, j);
                    fail();
                }
        }
        free(ref);
    }
    free(k);
    free(ko);
    free(v);
    free(vo);
}

/* 2^24 + 1 elements: random doubles (every digit varies) on the cpu path, and values with ties, NaN and
 * signed zeros on the device (fewer varying digits: PoCL's run time stays reasonable); the cpu and the
 * device outputs against the reference. */
static void test_large(void **state)
{
    (void)state;
    const size_t n = (1u << 24) + 1;
    double *x = malloc(n * sizeof *x);
    assert_non_null(x);
    for (size_t i = 0; i < n; i++)
        x[i] = t_from_bits(t_splitmix64(&rng));
    const int64_t off[2] = {0, (int64_t)n};
    int64_t *ref = reference(x, NULL, NULL, 0, off, 1);
    check_ctx(NULL, x, NULL, 0, off, 1, ref, "2^24 + 1 random");
    free(ref);
    for (size_t i = 0; i < n; i++) {
        const uint64_t r = t_splitmix64(&rng);
        x[i] = r % 7 == 0 ? t_from_bits(SPECIAL[r % 9]) : (double)(int)((r >> 32) % 100000) * 0.25;
    }
    ref = reference(x, NULL, NULL, 0, off, 1);
    check_ctx(NULL, x, NULL, 0, off, 1, ref, "2^24 + 1 ties");
    if (g_dev)
        check_ctx(g_dev, x, NULL, 0, off, 1, ref, "2^24 + 1 ties");
    free(ref);
    /* long enough for the cpu path's most-significant split: nulls, both directions, a second segment */
    const size_t m = 400000;
    uint8_t *valid = malloc(m / 8 + 1);
    assert_non_null(valid);
    for (size_t i = 0; i < m; i++)
        x[i] = draw((int)(i % 4));
    for (size_t i = 0; i < m / 8 + 1; i++)
        valid[i] = (uint8_t)(t_splitmix64(&rng) | 0x81);
    const int64_t off3[3] = {0, 7, (int64_t)m};
    check(x, valid, off3, 2, "split with nulls", 1);
    check(x, NULL, off3 + 1, 1, "split", 1);
    free(valid);
    free(x);
}

/* The device variants (tuning build options, docs/column.md "Sorting"): other digit widths, 5 (the top digit
 * straddles the words and is partial), 3, and 12 (clamped to 8); small tiles (many tiles: long look-back
 * walks): the same outputs on masked segments, on values whose keys give their bits back (the payload-free
 * passes) and on pairs. */
static void test_variants(void **state)
{
    (void)state;
    if (!g_dev)
        skip();
    enum { N = 23000 };
    double *x = malloc(N * sizeof *x), *u = malloc(N * sizeof *u), *vo = malloc(N * sizeof *vo),
           *vc = malloc(N * sizeof *vc);
    int64_t *k = malloc(N * sizeof *k), *ko = malloc(N * sizeof *ko), *kc = malloc(N * sizeof *kc);
    uint8_t *valid = malloc(N / 8 + 1);
    assert_true(x && u && vo && vc && k && ko && kc && valid);
    for (size_t i = 0; i < N; i++) {
        x[i] = draw((int)(i % 4));
        u[i] = ldexp((double)(t_splitmix64(&rng) >> 11), -53) * (i % 3 ? 1.0 : -1e5);
        k[i] = (int64_t)(t_splitmix64(&rng) % 1000) - 500;
    }
    for (size_t i = 0; i < N / 8 + 1; i++)
        valid[i] = (uint8_t)(t_splitmix64(&rng) | 0x24);
    const int64_t off[4] = {3, 900, 901, N}, off1[2] = {0, N};
    const char *opts[] = {"-DSORT_BITS=5",   "-DSORT_BITS=3", "-DSORT_BITS=12", "-DSORT_ROUNDS=3",
                          "-DSORT_ROUNDS=1 -DSORT_BITS=4", "-DSORT_ROUNDS=2"};
    for (size_t o = 0; o < sizeof opts / sizeof *opts; o++) {
        raid_ctx *ctx = t_open_ctx(t_device());
        assert_int_equal(raid_tuning_set_build_options(ctx, opts[o]), RAID_OK);
        for (unsigned flags = 0; flags <= RAID_SORT_DESC; flags++) {
            int64_t *ref = reference(x, NULL, valid, (int)flags, off, 3);
            check_ctx(ctx, x, valid, flags, off, 3, ref, opts[o]);
            free(ref);
            ref = reference(u, NULL, NULL, (int)flags, off1, 1);
            check_ctx(ctx, u, NULL, flags, off1, 1, ref, opts[o]);
            free(ref);
            assert_int_equal(raid_sort_i64_f64(ctx, k, x, N, flags, ko, vo), RAID_OK);
            assert_int_equal(raid_sort_i64_f64(NULL, k, x, N, flags, kc, vc), RAID_OK);
            assert_memory_equal(ko, kc, N * sizeof *ko);
            assert_memory_equal(vo, vc, N * sizeof *vo);
        }
        raid_ctx_destroy(ctx);
    }
    free(x);
    free(u);
    free(vo);
    free(vc);
    free(k);
    free(ko);
    free(kc);
    free(valid);
}

static void test_errors(void **state)
{
    (void)state;
    double x[3] = {1, 2, 3}, out[3];
    const int64_t bad[3] = {0, 2, 1};
    assert_int_equal(raid_sort_f64_seg(NULL, x, bad, 2, NULL, 0, out), RAID_EINVAL);
    assert_non_null(strstr(raid_errmsg(), "offsets decrease"));
    assert_int_equal(raid_sort_f64(NULL, x, 3, NULL, 4u, out), RAID_EINVAL);
    assert_int_equal(raid_sort_f64(NULL, NULL, 3, NULL, 0, out), RAID_EINVAL);
    assert_int_equal(raid_sort_f64(NULL, NULL, 0, NULL, 0, NULL), RAID_OK);
    const int64_t neg[2] = {-1, 2};
    assert_int_equal(raid_argsort_f64_seg_i64(NULL, x, neg, 1, NULL, 0, (int64_t *)out), RAID_EINVAL);
    raid_ctx *cpu = t_open_ctx("cpu");
    assert_int_equal(raid_sort_i64_f64(cpu, NULL, x, 3, 0, (int64_t *)out, out), RAID_EINVAL);
    assert_non_null(strstr(raid_ctx_errmsg(cpu), "raid_sort_i64_f64"));
    raid_ctx_destroy(cpu);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_adversarial), cmocka_unit_test(test_segments), cmocka_unit_test(test_pairs),
        cmocka_unit_test(test_large), cmocka_unit_test(test_variants), cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
