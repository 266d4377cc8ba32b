/* Group-by with float64 keys (raid_groupby_compute_f64, include/raid/groupby.h): the groups against a
 * reference written with double comparisons (x == y, or both NaN; nulls apart), in numpy's order with
 * nulls last; 0.0 and -0.0 one group keyed +0.0, NaNs of every payload and sign one group keyed by the
 * canonical NaN; every aggregation bit for bit equal to raid_groupby_compute on the reference's group
 * numbers; the device (PoCL) bit for bit equal to the cpu path; arguments. */
#include "support.h"

#include "raid.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const raid_agg ALL[] = {RAID_AGG_COUNT, RAID_AGG_SUM, RAID_AGG_MEAN, RAID_AGG_MIN,
                               RAID_AGG_MAX,   RAID_AGG_FIRST, RAID_AGG_LAST};
#define NALL 7

static int same_bits(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

/* numpy's order of two keys (NaN last), -1, 0, 1; -0.0 == 0.0, NaN == NaN. */
static int cmp_key(double a, double b)
{
    if (isnan(a) || isnan(b))
        return isnan(a) - isnan(b);
    return (a > b) - (a < b);
}

/* Keys from a pool of specials and random bit patterns; some null keys and null values. */
static void fill(size_t n, uint64_t seed, double *k, uint8_t *kv, double *x, uint8_t *xv)
{
    const double pool[] = {0.0, -0.0, 1.0, -1.0, INFINITY, -INFINITY, 0x1p-1074, -0x1p-1074, 0x1p-1022,
                           1.5, 1e308, -1e308, 0.1, 0.30000000000000004, 0.3, 2.5};
    const uint64_t nans[] = {0x7FF8000000000000ull, 0xFFF8000000000000ull, 0x7FF0000000000001ull,
                             0xFFFFFFFFFFFFFFFFull, 0x7FF4000000000abcull};
    uint64_t s = seed;
    for (size_t i = 0; i < n; i++) {
        const uint64_t r = t_splitmix64(&s);
        k[i] = r % 10 < 6   ? pool[r % (sizeof pool / sizeof *pool)]
               : r % 10 < 8 ? t_from_bits(nans[(r >> 8) % 5])
                            : (double)((int64_t)(r >> 20) % 1000) / 8.0;
        kv[i] = (r >> 40) % 13 != 0;
        x[i] = (t_unif(&s) - 0.5) * 0x1p40;
        xv[i] = (r >> 50) % 11 != 0;
    }
}

static void check_against_reference(raid_ctx *ctx, size_t n, uint64_t seed, int masked)
{
    double *k = malloc(n * sizeof *k), *x = malloc(n * sizeof *x), *rep = malloc((n + 1) * sizeof *rep);
    uint8_t *kv = malloc(n), *xv = malloc(n);
    int64_t *gid = malloc(n * sizeof *gid);
    assert_true(k && x && rep && kv && xv && gid);
    fill(n, seed, k, kv, x, xv);
    /* the reference groups: distinct keys by double comparison, sorted; the nulls after them */
    size_t G = 0;
    for (size_t i = 0; i < n; i++) {
        if (masked && !kv[i])
            continue;
        size_t j = 0;
        while (j < G && cmp_key(rep[j], k[i]) != 0)
            j++;
        if (j == G)
            rep[G++] = k[i];
    }
    for (size_t a = 1; a < G; a++) /* insertion sort of the representatives */
        for (size_t b = a; b > 0 && cmp_key(rep[b - 1], rep[b]) > 0; b--) {
            const double t = rep[b];
            rep[b] = rep[b - 1], rep[b - 1] = t;
        }
    int has_null = 0;
    for (size_t i = 0; i < n; i++) {
        if (masked && !kv[i]) {
            gid[i] = (int64_t)G, has_null = 1;
            continue;
        }
        size_t j = 0;
        while (cmp_key(rep[j], k[i]) != 0)
            j++;
        gid[i] = (int64_t)j;
    }
    raid_groupby *want = NULL, *got = NULL;
    assert_int_equal(raid_groupby_compute(NULL, gid, x, xv, n, ALL, NALL, 0, &want), RAID_OK);
    assert_int_equal(raid_groupby_compute_f64(ctx, k, masked ? kv : NULL, x, xv, n, ALL, NALL, 0, &got), RAID_OK);
    const size_t ng = raid_groupby_ngroups(got);
    assert_int_equal(ng, G + has_null);
    assert_int_equal(raid_groupby_null_group(got), has_null);
    const double *fk = raid_groupby_keys_f64(got);
    assert_non_null(fk);
    assert_null(raid_groupby_keys_f64(want));
    for (size_t j = 0; j < ng; j++) {
        if (j == G || isnan(rep[j]))
            assert_true(same_bits(fk[j], t_from_bits(0x7FF8000000000000ull)));
        else if (rep[j] == 0.0)
            assert_true(same_bits(fk[j], 0.0));
        else
            assert_true(same_bits(fk[j], rep[j]));
        assert_int_equal(raid_groupby_counts(got)[j], raid_groupby_counts(want)[j]);
        for (size_t a = 0; a < NALL; a++)
            assert_true(same_bits(raid_groupby_column(got, a)[j], raid_groupby_column(want, a)[j]) ||
                        (isnan(raid_groupby_column(got, a)[j]) && isnan(raid_groupby_column(want, a)[j])));
    }
    raid_groupby_destroy(want);
    raid_groupby_destroy(got);
    free(k), free(x), free(rep), free(kv), free(xv), free(gid);
}

static void t_cpu(void **state)
{
    (void)state;
    for (int masked = 0; masked < 2; masked++) {
        check_against_reference(NULL, 1, 1, masked);
        check_against_reference(NULL, 1000, 2, masked);
        check_against_reference(NULL, 30000, 3, masked);
    }
}

/* The hand-checked case: -0.0 and 0.0 one group (sum +0.0, min -0.0 as the int64 call's rule), NaNs one. */
static void t_cases(void **state)
{
    (void)state;
    const double k[] = {-0.0, 2.0, NAN, 0.0, -NAN, INFINITY, 2.0, t_from_bits(0x7FF0000000000001ull)};
    const double x[] = {-0.0, 1.0, 5.0, 0.0, 6.0, 7.0, 2.0, 8.0};
    raid_groupby *g = NULL;
    assert_int_equal(raid_groupby_compute_f64(NULL, k, NULL, x, NULL, 8, ALL, NALL, 0, &g), RAID_OK);
    assert_int_equal(raid_groupby_ngroups(g), 4);
    const double *fk = raid_groupby_keys_f64(g);
    assert_true(same_bits(fk[0], 0.0) && fk[1] == 2.0 && fk[2] == INFINITY);
    assert_true(same_bits(fk[3], t_from_bits(0x7FF8000000000000ull)));
    const int64_t counts[] = {2, 2, 1, 3};
    const double sums[] = {0.0, 3.0, 7.0, 19.0};
    for (size_t j = 0; j < 4; j++) {
        assert_int_equal(raid_groupby_counts(g)[j], counts[j]);
        assert_true(same_bits(raid_groupby_column(g, 1)[j], sums[j]));
    }
    assert_true(same_bits(raid_groupby_column(g, 3)[0], -0.0));                 /* min */
    assert_true(raid_groupby_column(g, 5)[3] == 5.0 && raid_groupby_column(g, 6)[3] == 8.0); /* first, last */
    assert_int_equal(raid_groupby_null_group(g), 0);
    raid_groupby_destroy(g);
    /* a null key: its own group, last */
    const uint8_t kv[] = {1, 1, 1, 1, 1, 1, 0, 1};
    assert_int_equal(raid_groupby_compute_f64(NULL, k, kv, x, NULL, 8, ALL, NALL, 0, &g), RAID_OK);
    assert_int_equal(raid_groupby_ngroups(g), 5);
    assert_int_equal(raid_groupby_null_group(g), 1);
    assert_int_equal(raid_groupby_counts(g)[1], 1);
    assert_int_equal(raid_groupby_counts(g)[4], 1);
    assert_true(raid_groupby_column(g, 1)[4] == 2.0);
    raid_groupby_destroy(g);
    /* empty, errors */
    assert_int_equal(raid_groupby_compute_f64(NULL, NULL, NULL, NULL, NULL, 0, ALL, 1, 0, &g), RAID_OK);
    assert_int_equal(raid_groupby_ngroups(g), 0);
    assert_null(raid_groupby_keys_f64(g));
    raid_groupby_destroy(g);
    assert_int_equal(raid_groupby_compute_f64(NULL, NULL, NULL, x, NULL, 3, ALL, 1, 0, &g), RAID_EINVAL);
    assert_null(g);
    assert_int_equal(raid_groupby_compute_f64(NULL, k, NULL, x, NULL, 3, ALL, 0, 0, &g), RAID_EINVAL);
    assert_int_equal(raid_groupby_compute_f64(NULL, k, NULL, x, NULL, 3, ALL, 1, 0, NULL), RAID_EINVAL);
}

static void t_on_device(void **state)
{
    (void)state;
    if (!t_have_opencl())
        skip();
    raid_ctx *ctx = t_open_ctx(t_device());
    for (int masked = 0; masked < 2; masked++) {
        check_against_reference(ctx, 1000, 4, masked);
        check_against_reference(ctx, 30000, 5, masked);
    }
    raid_ctx_destroy(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(t_cases), cmocka_unit_test(t_cpu), cmocka_unit_test(t_on_device)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
