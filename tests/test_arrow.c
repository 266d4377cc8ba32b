/* The Arrow C data interface entry points (include/raid/arrow.h): the checks of an exported array (format,
 * children, dictionary, buffers, released arrays, offset, length, null_count against the bitmap) with
 * their messages, and the operations on arrays with offsets (multiples of 8 and not) and nulls against
 * the array functions called on the same values by hand (sort.h with a mask from bit 0, select.h on the
 * valid values, groupby.h with a byte mask), bit for bit. tests/python/test_arrow.py runs them on
 * pyarrow's exports against numpy and pyarrow.compute. */
#include "support.h"

#include <raid.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void release_schema(struct ArrowSchema *s) { s->release = NULL; }
static void release_array(struct ArrowArray *a) { a->release = NULL; }

typedef struct exported {
    struct ArrowSchema s;
    struct ArrowArray a;
    const void *buf[2];
} exported;

/* An exported array over caller-owned buffers. */
static void export(exported *e, const char *fmt, const void *values, const uint8_t *bits, int64_t off, int64_t len,
                   int64_t null_count)
{
    memset(e, 0, sizeof *e);
    e->buf[0] = bits, e->buf[1] = values;
    e->s.format = fmt, e->s.name = "", e->s.flags = ARROW_FLAG_NULLABLE, e->s.release = release_schema;
    e->a.length = len, e->a.null_count = null_count, e->a.offset = off, e->a.n_buffers = 2, e->a.buffers = e->buf;
    e->a.release = release_array;
}

static void expect_einval(raid_status st, const char *part)
{
    assert_int_equal(st, RAID_EINVAL);
    if (!strstr(raid_errmsg(), part))
        fail_msg("message '%s' lacks '%s'", raid_errmsg(), part);
}

static void test_checks(void **state)
{
    (void)state;
    double x[4] = {1, 2, 3, 4};
    uint8_t bits[1] = {0x0B}; /* 1101: element 2 null */
    exported e;
    size_t n, nulls;
    export(&e, "g", x, bits, 0, 4, -1);
    assert_int_equal(raid_arrow_check(&e.s, &e.a, "g", &n, &nulls), RAID_OK);
    assert_int_equal(n, 4);
    assert_int_equal(nulls, 1);
    export(&e, "g", x, bits, 1, 3, 1);
    assert_int_equal(raid_arrow_check(&e.s, &e.a, "g", &n, &nulls), RAID_OK);
    assert_int_equal(n, 3);
    assert_int_equal(nulls, 1);
    export(&e, "g", x, bits, 0, 2, 0); /* null_count 0: the bitmap is not read */
    assert_int_equal(raid_arrow_check(&e.s, &e.a, "g", &n, &nulls), RAID_OK);
    assert_int_equal(nulls, 0);
    export(&e, "f", x, NULL, 0, 4, 0);
    expect_einval(raid_arrow_check(&e.s, &e.a, "g", &n, NULL), "format 'f' (expected float64 'g')");
    expect_einval(raid_arrow_check(&e.s, &e.a, "gl", NULL, NULL), "(expected float64 'g' or int64 'l')");
    export(&e, "gg", x, NULL, 0, 4, 0);
    expect_einval(raid_arrow_check(&e.s, &e.a, "g", NULL, NULL), "format 'gg'");
    export(&e, "g", x, NULL, 0, 4, 0);
    e.s.release = NULL;
    expect_einval(raid_arrow_check(&e.s, &e.a, "g", NULL, NULL), "released schema");
    export(&e, "g", x, NULL, 0, 4, 0);
    e.a.release = NULL;
    expect_einval(raid_arrow_check(&e.s, &e.a, "g", NULL, NULL), "released array");
    export(&e, "g", x, NULL, 0, 4, 0);
    e.a.n_children = 1;
    expect_einval(raid_arrow_check(&e.s, &e.a, "g", NULL, NULL), "1 children");
    export(&e, "g", x, NULL, 0, 4, 0);
    struct ArrowSchema dict = e.s;
    e.s.dictionary = &dict;
    expect_einval(raid_arrow_check(&e.s, &e.a, "g", NULL, NULL), "dictionary-encoded");
    export(&e, "g", x, NULL, 0, 4, 0);
    e.a.n_buffers = 3;
    expect_einval(raid_arrow_check(&e.s, &e.a, "g", NULL, NULL), "3 buffers");
    export(&e, "g", x, NULL, -1, 4, 0);
    expect_einval(raid_arrow_check(&e.s, &e.a, "g", NULL, NULL), "offset -1");
    export(&e, "g", x, NULL, 0, -2, 0);
    expect_einval(raid_arrow_check(&e.s, &e.a, "g", NULL, NULL), "length -2");
    export(&e, "g", x, NULL, 1, INT64_MAX, 0);
    expect_einval(raid_arrow_check(&e.s, &e.a, "g", NULL, NULL), "offset 1");
    export(&e, "g", x, NULL, 0, 4, 5);
    expect_einval(raid_arrow_check(&e.s, &e.a, "g", NULL, NULL), "null_count 5 out of range");
    export(&e, "g", x, NULL, 0, 4, 1);
    expect_einval(raid_arrow_check(&e.s, &e.a, "g", NULL, NULL), "without a validity buffer");
    export(&e, "g", x, bits, 0, 4, 2);
    expect_einval(raid_arrow_check(&e.s, &e.a, "g", NULL, NULL), "null_count 2 but the validity bitmap holds 1");
    export(&e, "g", NULL, NULL, 0, 4, 0);
    expect_einval(raid_arrow_check(&e.s, &e.a, "g", NULL, NULL), "no values buffer");
    export(&e, "g", (const char *)x + 4, NULL, 0, 2, 0);
    expect_einval(raid_arrow_check(&e.s, &e.a, "g", NULL, NULL), "not aligned to 8 bytes");
    export(&e, "g", NULL, NULL, 0, 0, 0); /* empty, no buffer: fine */
    assert_int_equal(raid_arrow_check(&e.s, &e.a, "g", &n, NULL), RAID_OK);
    assert_int_equal(n, 0);
    expect_einval(raid_arrow_check(NULL, &e.a, "g", NULL, NULL), "NULL schema");
    /* the operations check too, and report through the context */
    raid_ctx *ctx = t_open_ctx("cpu");
    double out[4];
    export(&e, "l", x, NULL, 0, 4, 0);
    assert_int_equal(raid_arrow_sort(ctx, &e.s, &e.a, 0, out), RAID_EINVAL);
    assert_non_null(strstr(raid_ctx_errmsg(ctx), "raid_arrow_sort: array: format 'l' (expected float64 'g')"));
    int64_t keys[4] = {1, 1, 2, 2};
    exported k, v;
    export(&k, "l", keys, bits, 0, 4, 1);
    export(&v, "g", x, NULL, 0, 4, 0);
    raid_agg sum = RAID_AGG_SUM;
    raid_groupby *g = (raid_groupby *)1;
    assert_int_equal(raid_arrow_groupby(ctx, &k.s, &k.a, &v.s, &v.a, &sum, 1, 0, &g), RAID_EINVAL);
    assert_null(g);
    assert_non_null(strstr(raid_ctx_errmsg(ctx), "1 null keys"));
    export(&k, "l", keys, NULL, 0, 3, 0);
    assert_int_equal(raid_arrow_groupby(ctx, &k.s, &k.a, &v.s, &v.a, &sum, 1, 0, &g), RAID_EINVAL);
    assert_non_null(strstr(raid_ctx_errmsg(ctx), "differ in length (3 and 4)"));
    int64_t ko[4];
    export(&v, "g", x, bits, 0, 4, 1);
    export(&k, "l", keys, NULL, 0, 4, 0);
    assert_int_equal(raid_arrow_sort_pairs(ctx, &k.s, &k.a, &v.s, &v.a, 0, ko, out), RAID_EINVAL);
    assert_non_null(strstr(raid_ctx_errmsg(ctx), "1 null values"));
    raid_ctx_destroy(ctx);
}

static int same(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

/* The operations on x[off .. off + n) with the validity bits of bits (bit off + i), against the array
 * functions on the same values by hand. */
static void check_ops(raid_ctx *ctx, const double *x, const uint8_t *bits, int64_t off, size_t n)
{
    exported e;
    export(&e, "g", x, bits, off, (int64_t)n, -1);
    uint8_t *mask = calloc(n / 8 + 1, 1), *vbyte = malloc(n + 1);
    double *vals = malloc((n + 1) * sizeof *vals), *got = malloc((n + 1) * sizeof *got), *want = malloc((n + 1) * sizeof *want);
    int64_t *gi = malloc((n + 1) * sizeof *gi), *wi = malloc((n + 1) * sizeof *wi), *pos = malloc((n + 1) * sizeof *pos);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        const int b = bits ? (bits[(off + i) / 8] >> ((off + i) % 8)) & 1 : 1;
        mask[i / 8] |= (uint8_t)(b << (i % 8));
        vbyte[i] = (uint8_t)b;
        if (b)
            pos[m] = (int64_t)i, vals[m++] = x[off + i];
    }
    for (unsigned flags = 0; flags <= RAID_SORT_DESC; flags++) {
        assert_int_equal(raid_arrow_sort(ctx, &e.s, &e.a, flags, got), RAID_OK);
        assert_int_equal(raid_sort_f64(ctx, x + off, n, bits ? mask : NULL, flags, want), RAID_OK);
        for (size_t i = 0; i < n; i++)
            assert_true(same(got[i], want[i]));
        assert_int_equal(raid_arrow_argsort(ctx, &e.s, &e.a, flags, gi), RAID_OK);
        assert_int_equal(raid_argsort_f64_i64(ctx, x + off, n, bits ? mask : NULL, flags, wi), RAID_OK);
        assert_memory_equal(gi, wi, n * sizeof *gi);
    }
    const int64_t o[2] = {0, (int64_t)m};
    double a, b;
    assert_int_equal(raid_arrow_median(ctx, &e.s, &e.a, &a), RAID_OK);
    assert_int_equal(raid_select_median(ctx, vals, o, 1, &b), RAID_OK);
    assert_true(same(a, b) || (isnan(a) && isnan(b)));
    if (m > 0) {
        const double q[3] = {0.0, 0.3, 1.0};
        double qa[3], qb[3], mm[4], mw[4];
        assert_int_equal(raid_arrow_quantile(ctx, &e.s, &e.a, q, 3, qa), RAID_OK);
        assert_int_equal(raid_select_quantile(ctx, vals, o, 1, q, 3, qb), RAID_OK);
        assert_memory_equal(qa, qb, sizeof qa);
        assert_int_equal(raid_arrow_kth(ctx, &e.s, &e.a, (int64_t)m / 2, &a), RAID_OK);
        assert_int_equal(raid_select_kth(ctx, vals, o, 1, (int64_t)m / 2, &b), RAID_OK);
        assert_true(same(a, b));
        assert_int_equal(raid_arrow_minmax(ctx, &e.s, &e.a, &mm[0], &mm[1], &mm[2], &mm[3]), RAID_OK);
        assert_int_equal(raid_select_minmax(ctx, vals, o, 1, &mw[0], &mw[1], &mw[2], &mw[3]), RAID_OK);
        assert_memory_equal(mm, mw, sizeof mm);
        const int64_t k = (int64_t)(m < 5 ? m : 5);
        for (int largest = 0; largest <= 1; largest++) {
            assert_int_equal(raid_arrow_topk(ctx, &e.s, &e.a, k, largest, got, gi), RAID_OK);
            assert_int_equal(raid_select_topk(ctx, vals, o, 1, k, largest, want, wi), RAID_OK);
            assert_memory_equal(got, want, (size_t)k * sizeof *got);
            for (int64_t j = 0; j < k; j++)
                assert_int_equal(gi[j], pos[wi[j]]);
        }
    } else {
        assert_int_equal(raid_arrow_kth(ctx, &e.s, &e.a, 0, &a), RAID_EINVAL);
    }
    /* group-by: keys i % 3, the nulls as null rows */
    int64_t *keys = malloc((n + 1) * sizeof *keys);
    for (size_t i = 0; i < n; i++)
        keys[i] = (int64_t)(i % 3);
    exported k;
    export(&k, "l", keys, NULL, 0, (int64_t)n, 0);
    const raid_agg aggs[3] = {RAID_AGG_SUM, RAID_AGG_MIN, RAID_AGG_LAST};
    raid_groupby *ga = NULL, *gb = NULL;
    assert_int_equal(raid_arrow_groupby(ctx, &k.s, &k.a, &e.s, &e.a, aggs, 3, 0, &ga), RAID_OK);
    assert_int_equal(raid_groupby_compute(ctx, keys, x + off, bits ? vbyte : NULL, n, aggs, 3, 0, &gb), RAID_OK);
    const size_t G = raid_groupby_ngroups(ga);
    assert_int_equal(G, raid_groupby_ngroups(gb));
    if (G) {
        assert_null(raid_groupby_counts(ga)); /* neither count nor mean asked */
        assert_null(raid_groupby_counts(gb));
        for (size_t j = 0; j < 3; j++)
            assert_memory_equal(raid_groupby_column(ga, j), raid_groupby_column(gb, j), G * sizeof(double));
    }
    raid_groupby_destroy(ga), raid_groupby_destroy(gb);
    free(keys), free(mask), free(vbyte), free(vals), free(got), free(want), free(gi), free(wi), free(pos);
}

static void test_operations(void **state)
{
    (void)state;
    enum { N = 1000 };
    double *x = malloc(N * sizeof *x);
    uint8_t bits[N / 8 + 1];
    uint64_t s = 42;
    for (size_t i = 0; i < N; i++) {
        const uint64_t r = t_splitmix64(&s);
        x[i] = r % 7 == 0 ? NAN : r % 11 == 0 ? -0.0 : (double)(int64_t)(r % 201) - 100.0;
    }
    for (size_t i = 0; i < sizeof bits; i++)
        bits[i] = (uint8_t)t_splitmix64(&s);
    const uint8_t none[N / 8 + 1] = {0};
    const char *devs[2] = {"cpu", t_have_opencl() ? t_device() : NULL};
    for (int d = 0; d < 2 && devs[d]; d++) {
        raid_ctx *ctx = t_open_ctx(devs[d]);
        check_ops(ctx, x, NULL, 0, N);
        check_ops(ctx, x, bits, 0, N);
        check_ops(ctx, x, bits, 16, N - 16);  /* offset a multiple of 8: the bitmap in place */
        check_ops(ctx, x, bits, 13, N - 20);  /* not: a shifted copy */
        check_ops(ctx, x, bits, 5, 1);
        check_ops(ctx, x, none, 3, 17);       /* only nulls */
        check_ops(ctx, x, bits, 7, 0);        /* empty */
        raid_ctx_destroy(ctx);
    }
    free(x);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_checks), cmocka_unit_test(test_operations)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
