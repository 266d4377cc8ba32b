/* The selections of include/raid/select.h (src/column/select*.c, kernels/col_select.cl): the cpu path
 * against a sorted copy (a stable sort of (key, index): the k-th value is the first element of its run of
 * equal keys, top-k the stable sort's ends) and the device path (PoCL here) against the cpu path, bit for
 * bit, on random and adversarial arrays: random bit patterns over the whole exponent range, normal
 * values, all equal, sorted, reversed, many NaN, only NaN, -0.0/+0.0, subnormals, +-inf, one element,
 * empty, several segments at a non-zero first offset, 2^24 + 1 elements; argument errors. numpy itself is
 * the oracle of tests/python/test_select.py. */
#define _POSIX_C_SOURCE 200809L
#include "support.h"

#include "raid.h"
#include "raid/tuning.h"

#include "column/keys.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static raid_ctx *g_dev;

static int setup(void **state)
{
    (void)state;
    if (t_have_opencl()) {
        g_dev = t_open_ctx(t_device());
        printf("device path on %s\n", raid_ctx_device_name(g_dev));
    } else
        printf("no OpenCL device: the cpu path only\n");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    raid_ctx_destroy(g_dev);
    return 0;
}

static uint64_t rng = 0x9e3779b97f4a7c15ULL;
static double unif(void) { return (double)(t_splitmix64(&rng) >> 11) * 0x1p-53; }

/* ---- the reference: a stable sort of (key, index) ---- */
typedef struct ki {
    uint64_t key;
    int64_t idx;
} ki;
static int cmp_ki(const void *a, const void *b)
{
    const ki *p = a, *q = b;
    if (p->key != q->key)
        return p->key < q->key ? -1 : 1;
    return (p->idx > q->idx) - (p->idx < q->idx);
}
static ki *ref_sort(const double *x, size_t n)
{
    ki *s = malloc((n ? n : 1) * sizeof *s);
    for (size_t i = 0; i < n; i++) {
        s[i].key = raidKey64(x[i]);
        s[i].idx = (int64_t)i;
    }
    qsort(s, n, sizeof *s, cmp_ki);
    return s;
}
/* the k-th value: the first element (by index) of the run of equal keys holding rank r */
static double ref_rank(const double *x, const ki *s, size_t r)
{
    while (r > 0 && s[r - 1].key == s[r].key)
        r--;
    return x[s[r].idx];
}
/* a quantile's operand: the same, except that zeros (one key) are taken in index order: rank r is the
 * stable sort's own element (numpy's partition keeps its zeros mostly in index order) */
static double ref_qrank(const double *x, const ki *s, size_t r)
{
    return x[s[r].idx] == 0.0 ? x[s[r].idx] : ref_rank(x, s, r);
}
static int has_nan(const double *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (isnan(x[i]))
            return 1;
    return 0;
}
static double first_nan(const double *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (isnan(x[i]))
            return x[i];
    return 0.0;
}

static void expect_bits(double got, double want, const char *what, size_t n, double q)
{
    if (t_bits_of(got) != t_bits_of(want)) {
        fprintf(stderr, "%s (n = %zu, q/k = %.17g): got %.17g (0x%016llx), want %.17g (0x%016llx)\n", what, n, q, got,
                (unsigned long long)t_bits_of(got), want, (unsigned long long)t_bits_of(want));
        fail();
    }
}

static const double QS[] = {0.0, 0.01, 0.1, 0.25, 0.3333333333333333, 0.5, 0.75, 0.9, 0.99, 0.999, 1.0};
#define NQ (sizeof QS / sizeof QS[0])

static const double QS3[] = {0.01, 0.5, 0.99};

/* raid_select_quantile of q[0..nq) against numpy's linear method on the sorted copy s (n >= 1). */
static void check_quantiles(raid_ctx *ctx, const double *x, size_t n, const ki *s, const double *q, size_t nq)
{
    const int64_t off[2] = {0, (int64_t)n};
    const int nan = has_nan(x, n);
    const double fn = first_nan(x, n);
    double out[NQ];
    assert_int_equal(raid_select_quantile(ctx, x, off, 1, q, nq, out), RAID_OK);
    for (size_t j = 0; j < nq; j++) {
        double want;
        if (nan)
            want = fn;
        else {
            const double h = (double)(n - 1) * q[j];
            double a, b, t;
            if (h >= (double)(n - 1)) {
                a = b = ref_qrank(x, s, n - 1);
                t = h + 1.0;
            } else {
                const size_t f = (size_t)floor(h);
                a = ref_qrank(x, s, f);
                b = ref_qrank(x, s, f + 1);
                t = h - floor(h);
            }
            const double d = b - a;
            want = t >= 0.5 ? b - d * (1.0 - t) : a + d * t;
        }
        expect_bits(out[j], want, "quantile", n, q[j]);
    }
}

/* Every selection of x[0..n) on ctx (NULL: cpu) against the reference; with g_dev, the device against
 * the cpu path bit for bit too. big: fewer calls (the 2^24 + 1 array). */
static void check_array_on(raid_ctx *ctx, const double *x, size_t n, const ki *s, int big)
{
    const int64_t off[2] = {0, (int64_t)n};
    const int nan = has_nan(x, n);
    const double fn = first_nan(x, n);
    double v, out[NQ];
    /* median */
    assert_int_equal(raid_select_median(ctx, x, off, 1, &v), RAID_OK);
    if (n == 0)
        assert_true(isnan(v));
    else if (nan)
        expect_bits(v, fn, "median (NaN)", n, 0.5);
    else {
        const double a = ref_rank(x, s, (n - 1) / 2);
        expect_bits(v, n % 2 ? 0.0 + a : ((0.0 + a) + ref_rank(x, s, n / 2)) / 2.0, "median", n, 0.5);
    }
    if (n == 0) {
        assert_int_equal(raid_select_quantile(ctx, x, off, 1, QS, NQ, out), RAID_EINVAL);
        assert_int_equal(raid_select_kth(ctx, x, off, 1, 0, &v), RAID_EINVAL);
        assert_int_equal(raid_select_minmax(ctx, x, off, 1, &v, NULL, NULL, NULL), RAID_EINVAL);
        assert_int_equal(raid_select_topk(ctx, x, off, 1, 0, 1, out, NULL), RAID_OK);
        assert_int_equal(raid_select_topk(ctx, x, off, 1, 1, 1, out, NULL), RAID_EINVAL);
        return;
    }
    /* quantiles: all of QS (many clusters of ranks: the counting passes), and three (one sampled pass on
     * large arrays) */
    check_quantiles(ctx, x, n, s, QS, NQ);
    check_quantiles(ctx, x, n, s, QS3, 3);
    /* k-th */
    const int64_t ks[] = {0, 1, (int64_t)n / 3, (int64_t)n / 2, (int64_t)n - 2, (int64_t)n - 1, -1, -(int64_t)n};
    for (size_t j = 0; j < sizeof ks / sizeof ks[0]; j++) {
        const int64_t k = ks[j], r = k < 0 ? k + (int64_t)n : k;
        if (r < 0 || r >= (int64_t)n)
            continue;
        assert_int_equal(raid_select_kth(ctx, x, off, 1, k, &v), RAID_OK);
        expect_bits(v, ref_rank(x, s, (size_t)r), "kth", n, (double)k);
        if (big)
            break;
    }
    assert_int_equal(raid_select_kth(ctx, x, off, 1, (int64_t)n, &v), RAID_EINVAL);
    /* min, max, nanmin, nanmax */
    double mm[4];
    assert_int_equal(raid_select_minmax(ctx, x, off, 1, &mm[0], &mm[1], &mm[2], &mm[3]), RAID_OK);
    size_t nn = 0;
    while (nn < n && isnan(x[s[n - 1 - nn].idx]))
        nn++;
    expect_bits(mm[0], nan ? fn : ref_rank(x, s, 0), "min", n, 0);
    expect_bits(mm[1], nan ? fn : ref_rank(x, s, n - 1), "max", n, 0);
    expect_bits(mm[2], ref_rank(x, s, 0), "nanmin", n, 0);
    expect_bits(mm[3], nn == n ? fn : ref_rank(x, s, n - 1 - nn), "nanmax", n, 0);
    /* top-k and bottom-k: the stable sort's ends */
    const size_t kk[] = {1, 2, 7, 100, n};
    for (size_t j = 0; j < sizeof kk / sizeof kk[0]; j++) {
        const size_t k = kk[j];
        if (k > n || (big && k > 100))
            continue;
        double *val = malloc(k * sizeof *val);
        int64_t *idx = malloc(k * sizeof *idx);
        for (int largest = 0; largest < 2; largest++) {
            assert_int_equal(raid_select_topk(ctx, x, off, 1, (int64_t)k, largest, val, idx), RAID_OK);
            for (size_t i = 0; i < k; i++) {
                const ki *e = largest ? &s[n - 1 - i] : &s[i];
                if (idx[i] != e->idx) {
                    fprintf(stderr, "topk(largest %d, k %zu, n %zu)[%zu]: index %lld, want %lld\n", largest, k, n, i,
                            (long long)idx[i], (long long)e->idx);
                    fail();
                }
                expect_bits(val[i], x[e->idx], "topk value", n, (double)k);
            }
        }
        free(val);
        free(idx);
    }
}

/* The cpu path against the reference, the device against both. */
static void check_array(const double *x, size_t n, int big)
{
    ki *s = ref_sort(x, n);
    check_array_on(NULL, x, n, s, big);
    if (g_dev)
        check_array_on(g_dev, x, n, s, big);
    free(s);
}

static double *gen(int kind, size_t n)
{
    double *x = malloc((n ? n : 1) * sizeof *x);
    for (size_t i = 0; i < n; i++) {
        switch (kind) {
        case 0: /* random bit patterns: every exponent, NaN payloads, subnormals */
            x[i] = t_from_bits(t_splitmix64(&rng));
            break;
        case 1: /* normal-ish values */
            x[i] = (unif() - 0.5) * 100.0 + (unif() - 0.5);
            break;
        case 2: /* all equal */
            x[i] = 42.5;
            break;
        case 3: /* sorted */
            x[i] = (double)i * 0.25 - 7.0;
            break;
        case 4: /* reversed */
            x[i] = -(double)i * 0.25 + 7.0;
            break;
        case 5: /* many NaN */
            x[i] = unif() < 0.5 ? (unif() < 0.5 ? NAN : t_from_bits(0xFFF8000000000123ull)) : unif();
            break;
        case 6: /* only NaN, two payloads */
            x[i] = i % 3 ? NAN : -NAN;
            break;
        case 7: /* signed zeros and a few others */
            x[i] = unif() < 0.45 ? -0.0 : unif() < 0.8 ? 0.0 : (unif() - 0.5);
            break;
        case 8: /* subnormals */
            x[i] = t_from_bits(t_splitmix64(&rng) & 0x800FFFFFFFFFFFFFull);
            break;
        case 9: /* +-inf with finite values, many ties */
            x[i] = unif() < 0.3 ? INFINITY : unif() < 0.4 ? -INFINITY : (double)(t_splitmix64(&rng) % 5);
            break;
        default: /* prices: few distinct values (ties everywhere) */
            x[i] = 100.0 + (double)(t_splitmix64(&rng) % 200) * 0.01;
            break;
        }
    }
    return x;
}

static void test_adversarial(void **state)
{
    (void)state;
    const size_t sizes[] = {0, 1, 2, 3, 10, 33, 1000, 5001, 70000, 300000};
    for (int kind = 0; kind <= 10; kind++)
        for (size_t j = 0; j < sizeof sizes / sizeof sizes[0]; j++) {
            double *x = gen(kind, sizes[j]);
            check_array(x, sizes[j], 0);
            free(x);
        }
}

/* Zero results: the first zero's sign, on both paths. */
static void test_signed_zero(void **state)
{
    (void)state;
    const double x[] = {-0.0, 0.0, 0.0, -0.0, 1.0};
    const int64_t off[2] = {0, 5};
    raid_ctx *ctxs[2] = {NULL, g_dev};
    for (int c = 0; c < (g_dev ? 2 : 1); c++) {
        double v, mm[2];
        assert_int_equal(raid_select_kth(ctxs[c], x, off, 1, 1, &v), RAID_OK);
        assert_true(v == 0.0 && signbit(v));
        assert_int_equal(raid_select_minmax(ctxs[c], x, off, 1, &mm[0], NULL, NULL, &mm[1]), RAID_OK);
        assert_true(mm[0] == 0.0 && signbit(mm[0]) && mm[1] == 1.0);
        assert_int_equal(raid_select_median(ctxs[c], x, off, 1, &v), RAID_OK);
        assert_true(v == 0.0 && !signbit(v)); /* numpy: 0.0 + (-0.0) */
    }
    /* quantiles: each rank's zero in index order, then numpy's _lerp (np.quantile([-0.0, 0.0], 0.5) is +0.0,
     * [-0.0, -0.0, 0.0] at 0.25 is -0.0 and at 0.75 +0.0, [0.0, -0.0] at 1.0 +0.0: t = 2 there) */
    const struct {
        double x[3];
        int64_t n;
        double q, want;
    } qz[] = {{{-0.0, 0.0}, 2, 0.5, 0.0},         {{-0.0, 0.0}, 2, 0.75, 0.0},
              {{-0.0, -0.0, 0.0}, 3, 0.25, -0.0}, {{-0.0, -0.0, 0.0}, 3, 0.75, 0.0},
              {{0.0, -0.0}, 2, 1.0, 0.0},         {{-0.0, 0.0}, 2, 1.0, 0.0},
              {{-0.0, 0.0, -0.0}, 3, 1.0, 0.0},   {{-0.0, 0.0, -0.0}, 3, 0.25, 0.0}};
    for (size_t i = 0; i < sizeof qz / sizeof qz[0]; i++)
        for (int c = 0; c < (g_dev ? 2 : 1); c++) {
            const int64_t o[2] = {0, qz[i].n};
            double v;
            assert_int_equal(raid_select_quantile(ctxs[c], qz[i].x, o, 1, &qz[i].q, 1, &v), RAID_OK);
            expect_bits(v, qz[i].want, "signed-zero quantile", (size_t)qz[i].n, qz[i].q);
        }
}

/* Several segments at a non-zero first offset: each as the one-array call gives it. */
static void test_segments(void **state)
{
    (void)state;
    const size_t N = 50000;
    double *x = gen(1, N);
    for (size_t i = 0; i < N; i += 17)
        x[i] = i % 2 ? -0.0 : NAN;
    const int64_t off[] = {3, 3, 10, 1000, 1001, 30000, 50000};
    const size_t nseg = sizeof off / sizeof off[0] - 1;
    raid_ctx *ctxs[2] = {NULL, g_dev};
    for (int c = 0; c < (g_dev ? 2 : 1); c++) {
        double med[6], q[6 * NQ], mn[6], mx[6], nmn[6], nmx[6];
        assert_int_equal(raid_select_median(ctxs[c], x, off, nseg, med), RAID_OK);
        assert_int_equal(raid_select_quantile(ctxs[c], x, off + 1, nseg - 1, QS, NQ, q), RAID_OK);
        assert_int_equal(raid_select_minmax(ctxs[c], x, off + 1, nseg - 1, mn, mx, nmn, nmx), RAID_OK);
        for (size_t s = 0; s < nseg; s++) {
            const int64_t o1[2] = {0, off[s + 1] - off[s]};
            double v, qq[NQ], m4[4];
            assert_int_equal(raid_select_median(NULL, x + off[s], o1, 1, &v), RAID_OK);
            expect_bits(med[s], v, "segment median", (size_t)o1[1], 0.5);
            if (s == 0)
                continue;
            assert_int_equal(raid_select_quantile(NULL, x + off[s], o1, 1, QS, NQ, qq), RAID_OK);
            for (size_t j = 0; j < NQ; j++)
                expect_bits(q[(s - 1) * NQ + j], qq[j], "segment quantile", (size_t)o1[1], QS[j]);
            assert_int_equal(raid_select_minmax(NULL, x + off[s], o1, 1, &m4[0], &m4[1], &m4[2], &m4[3]), RAID_OK);
            expect_bits(mn[s - 1], m4[0], "segment min", (size_t)o1[1], 0);
            expect_bits(mx[s - 1], m4[1], "segment max", (size_t)o1[1], 0);
            expect_bits(nmn[s - 1], m4[2], "segment nanmin", (size_t)o1[1], 0);
            expect_bits(nmx[s - 1], m4[3], "segment nanmax", (size_t)o1[1], 0);
        }
        /* top-k per segment */
        const int64_t o2[] = {5, 20, 40, 1040};
        double tv[3 * 4];
        int64_t ti[3 * 4];
        assert_int_equal(raid_select_topk(ctxs[c], x, o2, 3, 4, 1, tv, ti), RAID_OK);
        for (size_t s = 0; s < 3; s++) {
            const int64_t o1[2] = {0, o2[s + 1] - o2[s]};
            double v1[4];
            int64_t i1[4];
            assert_int_equal(raid_select_topk(NULL, x + o2[s], o1, 1, 4, 1, v1, i1), RAID_OK);
            for (int j = 0; j < 4; j++) {
                expect_bits(tv[s * 4 + j], v1[j], "segment topk", (size_t)o1[1], 4);
                assert_int_equal(ti[s * 4 + j], i1[j]);
            }
        }
    }
    free(x);
}

/* 2^24 + 1 values (odd: one middle element), random and with ties: median, a quantile, k-th, min/max. */
static void test_big(void **state)
{
    (void)state;
    const size_t n = (1u << 24) + 1;
    double *x = gen(1, n);
    check_array(x, n, 1);
    free(x);
    x = gen(10, n);
    check_array(x, n, 1);
    free(x);
}

static void test_errors(void **state)
{
    (void)state;
    const double x[] = {1.0, 2.0, 3.0};
    const int64_t off[] = {0, 3}, bad[] = {2, 1}, neg[] = {-1, 3};
    double v[4], q = 1.5;
    assert_int_equal(raid_select_median(NULL, x, bad, 1, v), RAID_EINVAL);
    assert_non_null(strstr(raid_errmsg(), "offsets decrease"));
    assert_int_equal(raid_select_median(NULL, x, neg, 1, v), RAID_EINVAL);
    assert_int_equal(raid_select_median(NULL, NULL, off, 1, v), RAID_EINVAL);
    assert_int_equal(raid_select_median(NULL, x, NULL, 1, v), RAID_EINVAL);
    assert_int_equal(raid_select_quantile(NULL, x, off, 1, &q, 1, v), RAID_EINVAL);
    assert_non_null(strstr(raid_errmsg(), "[0, 1]"));
    q = NAN;
    assert_int_equal(raid_select_quantile(NULL, x, off, 1, &q, 1, v), RAID_EINVAL);
    assert_int_equal(raid_select_kth(NULL, x, off, 1, 3, v), RAID_EINVAL);
    assert_non_null(strstr(raid_errmsg(), "out of bounds"));
    assert_int_equal(raid_select_kth(NULL, x, off, 1, -4, v), RAID_EINVAL);
    assert_int_equal(raid_select_topk(NULL, x, off, 1, 4, 0, v, NULL), RAID_EINVAL);
    assert_int_equal(raid_select_topk(NULL, x, off, 1, -1, 0, v, NULL), RAID_EINVAL);
    /* a context's message */
    raid_ctx *cpu = t_open_ctx("cpu");
    v[0] = 7.0;
    assert_int_equal(raid_select_kth(cpu, x, off, 1, 5, v), RAID_EINVAL);
    assert_non_null(strstr(raid_ctx_errmsg(cpu), "k = 5"));
    assert_true(v[0] == 7.0); /* nothing written */
    raid_ctx_destroy(cpu);
}

/* The device's two paths (RAID_TUNE_SELECT_PATH: 1 the radix passes only, 2 the sampled window first)
 * against the cpu path, bit for bit: random bits, normal-ish values, sorted, subnormals (windows across
 * zero), prices (ties; windows of equal keys), a periodic array whose 1-in-step sample sees only one
 * value (the window misses its ranks: the fallback to the radix passes), 20 values at random (windows of
 * a few distinct keys, answered by their pivots' counts) and a sample of integers among half-integers
 * (pivots that do not cover the window: its copies answer). */
static void test_paths(void **state)
{
    (void)state;
    if (!g_dev)
        skip();
    raid_ctx *dev[2] = {t_open_ctx(t_device()), t_open_ctx(t_device())};
    for (int p = 0; p < 2; p++)
        assert_int_equal(raid_tuning_set(dev[p], RAID_TUNE_SELECT_PATH, p + 1), RAID_OK);
    const size_t n = 300001;
    const int kinds[] = {0, 1, 3, 8, 10, -1, -2, -3};
    for (size_t c = 0; c < sizeof kinds / sizeof *kinds; c++) {
        double *x;
        if (kinds[c] >= 0) {
            x = gen(kinds[c], n);
        } else {
            x = malloc(n * sizeof *x);
            for (size_t i = 0; i < n; i++)
                x[i] = kinds[c] == -1   ? (i % 64 == 0 ? 1.0 : (double)(i % 1000))
                       : kinds[c] == -2 ? (double)(t_splitmix64(&rng) % 20) /* windows of 2 or 3 values: pivots */
                                        : i % 64 == 0 ? (double)(i / 64 % 40) /* the sample: integers */
                                                      : (double)(i % 40) + 0.5; /* the rest between them */
        }
        const int64_t off[2] = {0, (int64_t)n};
        double want[6], got[6];
        assert_int_equal(raid_select_median(NULL, x, off, 1, &want[0]), RAID_OK);
        assert_int_equal(raid_select_quantile(NULL, x, off, 1, QS3, 3, want + 1), RAID_OK);
        assert_int_equal(raid_select_kth(NULL, x, off, 1, (int64_t)n / 3, &want[4]), RAID_OK);
        assert_int_equal(raid_select_kth(NULL, x, off, 1, (int64_t)n - 2, &want[5]), RAID_OK);
        for (int p = 0; p < 2; p++) {
            assert_int_equal(raid_select_median(dev[p], x, off, 1, &got[0]), RAID_OK);
            assert_int_equal(raid_select_quantile(dev[p], x, off, 1, QS3, 3, got + 1), RAID_OK);
            assert_int_equal(raid_select_kth(dev[p], x, off, 1, (int64_t)n / 3, &got[4]), RAID_OK);
            assert_int_equal(raid_select_kth(dev[p], x, off, 1, (int64_t)n - 2, &got[5]), RAID_OK);
            for (int j = 0; j < 6; j++)
                expect_bits(got[j], want[j], p ? "window path" : "radix path", n, (double)j);
        }
        free(x);
    }
    raid_ctx_destroy(dev[0]);
    raid_ctx_destroy(dev[1]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_adversarial), cmocka_unit_test(test_signed_zero), cmocka_unit_test(test_segments),
        cmocka_unit_test(test_big),         cmocka_unit_test(test_errors), cmocka_unit_test(test_paths),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
