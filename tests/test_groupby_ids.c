/* Group ids formed on the device (src/column/groupby_device.c, kernels/col_groupby.cl gb_range, gb_ids_direct,
 * gb_ids_hash, gb_map; docs/groupby.md "Group ids on the device"): every aggregation bit for bit against
 * the cpu path, groups in ascending key order, on keys that stress the id formation: many groups, one group,
 * keys equal in their low or in their high 32-bit word (and differing only in the bits where the hash
 * table splits a key into words), INT64_MIN and INT64_MAX, negative keys, direct tables and hash tables,
 * collisions forced by a tiny start-slot mask, a first hash table too small (the retry), null rows whose
 * groups have no valid value, count-only calls without values. */
#include "support.h"

#include "column/groupby_internal.h"
#include "column/sort_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const raid_agg AGGS[] = {RAID_AGG_COUNT, RAID_AGG_SUM, RAID_AGG_MEAN, RAID_AGG_MIN,
                                RAID_AGG_MAX,   RAID_AGG_FIRST, RAID_AGG_LAST};
#define NAGGS 7

static uint64_t rng = 42;

/* The device's result equals the cpu path's: keys (strictly ascending), counts and every column, bit for
 * bit (NaN included: both paths make the same NaN). */
static void check_mode(raid_ctx *ctx, const int64_t *k, const double *x, const uint8_t *valid, size_t n,
                       unsigned flags, const raid_agg *aggs, size_t naggs, size_t expect_groups, size_t rows, int mode)
{
    raid_groupby *a = NULL, *b = NULL;
    assert_int_equal(raid_groupby_compute(NULL, k, x, valid, n, aggs, naggs, flags, &a), RAID_OK);
    if (raidGbCompute(ctx, k, x, valid, n, aggs, naggs, flags, rows, mode, &b) != RAID_OK)
        fail_msg("device: %s", raid_ctx_errmsg(ctx));
    const size_t G = raid_groupby_ngroups(a);
    assert_int_equal(G, raid_groupby_ngroups(b));
    if (expect_groups)
        assert_int_equal(G, expect_groups);
    if (G) {
        assert_memory_equal(raid_groupby_keys(a), raid_groupby_keys(b), G * sizeof(int64_t));
        assert_int_equal(raid_groupby_counts(a) != NULL, raid_groupby_counts(b) != NULL); /* count or mean asked */
        if (raid_groupby_counts(a))
            assert_memory_equal(raid_groupby_counts(a), raid_groupby_counts(b), G * sizeof(int64_t));
        for (size_t j = 0; j < naggs; j++)
            assert_memory_equal(raid_groupby_column(a, j), raid_groupby_column(b, j), G * sizeof(double));
    }
    for (size_t i = 1; i < G; i++)
        assert_true(raid_groupby_keys(b)[i - 1] < raid_groupby_keys(b)[i]);
    raid_groupby_destroy(a);
    raid_groupby_destroy(b);
}

/* The partitioned path (mode 8) against the cpu path as check_mode does, or any other mode. The partitioned
 * path takes at most 255 partitions: beyond them RAID_EUNSUPPORTED, and only then. Returns the partitions of
 * the plan (mode 8; 0 otherwise). */
static size_t check_part(raid_ctx *ctx, const int64_t *k, const double *x, const uint8_t *valid, size_t n,
                         unsigned flags, const raid_agg *aggs, size_t naggs, size_t expect_groups, size_t rows, int mode)
{
    size_t np = 0;
    if (mode == 8) {
        raid_groupby *b = NULL;
        raidGbDeviceTestKnobs.partitions_out = &np;
        const raid_status st = raidGbCompute(ctx, k, x, valid, n, aggs, naggs, flags, rows, 8, &b);
        raidGbDeviceTestKnobs.partitions_out = NULL;
        raid_groupby_destroy(b);
        if (st == RAID_EUNSUPPORTED) {
            assert_true(np > 255);
            return np;
        }
        if (st != RAID_OK)
            fail_msg("device: %s", raid_ctx_errmsg(ctx));
        assert_true(np <= 255);
    }
    check_mode(ctx, k, x, valid, n, flags, aggs, naggs, expect_groups, rows, mode);
    return np;
}

static void check(raid_ctx *ctx, const int64_t *k, const double *x, const uint8_t *valid, size_t n, unsigned flags,
                  const raid_agg *aggs, size_t naggs, size_t expect_groups)
{
    check_mode(ctx, k, x, valid, n, flags, aggs, naggs, expect_groups, 0, -1);
}

/* Values of every kind (as test_groupby's: wide exponents, zeros, specials, subnormals), some nulls. */
static void values(size_t n, double *x, uint8_t *valid)
{
    for (size_t i = 0; i < n; i++) {
        const double u = (double)(raidSplitmix64(&rng) >> 11) * 0x1p-53 - 0.5;
        x[i] = ldexp(u, (int)(raidSplitmix64(&rng) % 120) - 60);
        const unsigned s = (unsigned)(raidSplitmix64(&rng) % 500);
        x[i] = s == 0 ? INFINITY : s == 1 ? -INFINITY : s == 2 ? NAN : s == 3 ? -0.0 : s == 4 ? 0x1p-1074 : x[i];
        if (valid)
            valid[i] = raidSplitmix64(&rng) % 40 != 0;
    }
}

/* Rows of n keys (to be set), values (values()) and a validity mask. */
static void rows_alloc(size_t n, int64_t **k, double **x, uint8_t **valid)
{
    *k = malloc(n * sizeof **k);
    *x = malloc(n * sizeof **x);
    *valid = malloc(n);
    values(n, *x, *valid);
}

/* Run a key pattern with and without a mask, with and without skipna, hash forced or not. */
static void run_keys(raid_ctx *ctx, const int64_t *k, size_t n, size_t expect_groups)
{
    double *x = malloc(n * sizeof *x);
    uint8_t *valid = malloc(n);
    values(n, x, valid);
    for (int force = 0; force < 2; force++) {
        raidGbDeviceTestKnobs = (gb_cl_knobs){.force_hash = force};
        check(ctx, k, x, NULL, n, 0, AGGS, NAGGS, expect_groups);
        check(ctx, k, x, valid, n, RAID_GROUPBY_SKIPNA, AGGS, NAGGS, expect_groups);
    }
    raidGbDeviceTestKnobs = (gb_cl_knobs){0};
    free(x), free(valid);
}

static raid_ctx *dev(void)
{
    if (!t_have_opencl())
        skip();
    return t_open_ctx(t_device());
}

static void t_patterns(void **state)
{
    (void)state;
    raid_ctx *ctx = dev();
    const size_t n = 60000;
    int64_t *k = malloc(n * sizeof *k);
    /* one group */
    for (size_t i = 0; i < n; i++)
        k[i] = -7;
    run_keys(ctx, k, n, 1);
    /* many groups: 20,000 random int64 keys (the hash table), and 50,000 keys 0 .. 49,999 (direct) */
    int64_t pool[20000];
    for (size_t j = 0; j < 20000; j++)
        pool[j] = (int64_t)raidSplitmix64(&rng);
    for (size_t i = 0; i < n; i++)
        k[i] = pool[raidSplitmix64(&rng) % 20000];
    run_keys(ctx, k, n, 0);
    for (size_t i = 0; i < n; i++)
        k[i] = (int64_t)(raidSplitmix64(&rng) % 50000);
    run_keys(ctx, k, n, 0);
    /* equal low words (the high word alone tells the keys apart), equal high words, and keys differing only
     * in low bit 31 or high bits 29, 30, 31 (the boundaries of the table's three words) */
    for (size_t i = 0; i < n; i++) {
        const uint64_t j = raidSplitmix64(&rng) % 3000;
        switch (i % 4) {
        case 0: k[i] = (int64_t)(j << 32 | 0x89ABCDEFu); break;
        case 1: k[i] = (int64_t)(0xFEDCBA98ull << 32 | j); break;
        case 2: k[i] = (int64_t)(((j & 1) << 31) | ((j & 2) << 60) | ((j & 4) << 60) | ((j & 8) << 58) | 5u); break;
        default: k[i] = (int64_t)((j & 15) << 28 | (j >> 4) << 60); break;
        }
    }
    run_keys(ctx, k, n, 0);
    /* INT64_MIN and INT64_MAX beside small keys (a range of 2^64 - 1: the hash), and near INT64_MIN (direct) */
    for (size_t i = 0; i < n; i++) {
        const uint64_t r = raidSplitmix64(&rng) % 5;
        k[i] = r == 0 ? INT64_MIN : r == 1 ? INT64_MAX : r == 2 ? -1 : r == 3 ? 0 : INT64_MIN + 1;
    }
    run_keys(ctx, k, n, 5);
    for (size_t i = 0; i < n; i++)
        k[i] = INT64_MIN + (int64_t)(raidSplitmix64(&rng) % 1000);
    run_keys(ctx, k, n, 0);
    for (size_t i = 0; i < n; i++)
        k[i] = INT64_MAX - (int64_t)(raidSplitmix64(&rng) % 1000) * 3;
    run_keys(ctx, k, n, 0);
    /* every row its own key */
    for (size_t i = 0; i < n; i++)
        k[i] = (int64_t)(i * 0x9E3779B97F4A7C15ull);
    run_keys(ctx, k, n, n);
    free(k);
    raid_ctx_destroy(ctx);
}

/* Collisions: every key starts in one of 4 slots (long probe chains through the whole table), and a first
 * table of 1,024 slots for 3,000 keys (overflow, the retry with 2n slots); the same result. */
static void t_collisions(void **state)
{
    (void)state;
    raid_ctx *ctx = dev();
    const size_t n = 20000;
    int64_t *k;
    double *x;
    uint8_t *valid;
    rows_alloc(n, &k, &x, &valid);
    for (size_t i = 0; i < n; i++)
        k[i] = (int64_t)((i * 7919 % 3000) * 0x100000001ull) - 5; /* every one of the 3,000 keys */
    const gb_cl_knobs knobs[] = {{.force_hash = 1, .hmask = 3},
                                 {.force_hash = 1, .hash_cap = 1024},
                                 {.force_hash = 1, .hash_cap = 1024, .hmask = 1}};
    for (size_t c = 0; c < sizeof knobs / sizeof *knobs; c++) {
        raidGbDeviceTestKnobs = knobs[c];
        check(ctx, k, x, valid, n, 0, AGGS, NAGGS, 3000);
        check(ctx, k, x, valid, n, RAID_GROUPBY_SKIPNA, AGGS, NAGGS, 3000);
    }
    raidGbDeviceTestKnobs = (gb_cl_knobs){0};
    free(k), free(x), free(valid);
    raid_ctx_destroy(ctx);
}

/* Null rows: groups whose every row is null exist (count 0); count-only calls without values; NaN rows
 * under skipna are nulls only when values are given. */
static void t_nulls_and_counts(void **state)
{
    (void)state;
    raid_ctx *ctx = dev();
    const size_t n = 30000;
    int64_t *k = malloc(n * sizeof *k);
    double *x = malloc(n * sizeof *x);
    uint8_t *valid = malloc(n);
    values(n, x, NULL);
    for (size_t i = 0; i < n; i++) {
        k[i] = (int64_t)(i * 7919 % 4000) * 1000003; /* every one of the 4,000 keys */
        valid[i] = (k[i] / 1000003) % 7 != 0 && raidSplitmix64(&rng) % 10 != 0; /* keys = 0 mod 7: all null */
        if (i % 11 == 0)
            x[i] = NAN;
    }
    for (int force = 0; force < 2; force++) {
        raidGbDeviceTestKnobs = (gb_cl_knobs){.force_hash = force};
        check(ctx, k, x, valid, n, 0, AGGS, NAGGS, 4000);
        check(ctx, k, x, valid, n, RAID_GROUPBY_SKIPNA, AGGS, NAGGS, 4000);
        const raid_agg cnt[] = {RAID_AGG_COUNT, RAID_AGG_COUNT};
        check(ctx, k, NULL, valid, n, 0, cnt, 2, 4000);
        check(ctx, k, NULL, NULL, n, RAID_GROUPBY_SKIPNA, cnt, 2, 4000);
        check(ctx, k, x, valid, n, RAID_GROUPBY_SKIPNA, cnt, 2, 4000);
        const raid_agg sum[] = {RAID_AGG_SUM};
        check(ctx, k, x, NULL, n, RAID_GROUPBY_SKIPNA, sum, 1, 4000);
    }
    raidGbDeviceTestKnobs = (gb_cl_knobs){0};
    /* one row; every row null */
    memset(valid, 0, n);
    check(ctx, k, x, valid, 1, 0, AGGS, NAGGS, 1);
    check(ctx, k, x, valid, n, 0, AGGS, NAGGS, 4000);
    free(k), free(x), free(valid);
    raid_ctx_destroy(ctx);
}

/* Two calls (two seeds of the hash) and a call whose keys start in 1,024 slots only agree with the cpu path
 * bit for bit on about 100,000 distinct keys of every magnitude. */
static void t_seeds(void **state)
{
    (void)state;
    raid_ctx *ctx = dev();
    const size_t n = 100000;
    int64_t *k = malloc(n * sizeof *k);
    double *x = malloc(n * sizeof *x);
    values(n, x, NULL);
    for (size_t i = 0; i < n; i++)
        k[i] = (int64_t)raidSplitmix64(&rng) >> (i % 64);
    const raid_agg sum[] = {RAID_AGG_SUM, RAID_AGG_COUNT};
    check(ctx, k, x, NULL, n, 0, sum, 2, 0);
    check(ctx, k, x, NULL, n, 0, sum, 2, 0);
    raidGbDeviceTestKnobs = (gb_cl_knobs){.force_hash = 1, .hmask = 1023};
    check(ctx, k, x, NULL, n, 0, sum, 2, 0);
    raidGbDeviceTestKnobs = (gb_cl_knobs){0};
    free(k), free(x);
    raid_ctx_destroy(ctx);
}

/* Many groups by partitions (rows partitioned by rank with one pass of the device sort, then local tables per
 * partition: gb_part_count, gb_part_starts, raidSortDevicePartition, gb_part_rows) against the cpu path bit for
 * bit, beside the global exponent buckets: sums with and without counts and means, from one partition to 196
 * (2^3 groups per partition forced), limb tables, blocks and chunks of 1,000 and 77,777 rows or the default,
 * nulls, skipna; one group spanning every block, chunk and partition (values carrying through every limb),
 * 100 runs; skewed partitions (nearly every row in one group of 100,000+); partitions without rows; more
 * than 255 partitions, and aggregations other than sums, counts and means, are refused in that mode, the sort
 * pass refuses 2^31 rows, and the removed paths are refused. */
static void t_partitioned(void **state)
{
    (void)state;
    raid_ctx *ctx = dev();
    const size_t n = 120000;
    int64_t *k;
    double *x;
    uint8_t *valid;
    rows_alloc(n, &k, &x, &valid);
    const raid_agg sums[] = {RAID_AGG_SUM, RAID_AGG_COUNT, RAID_AGG_MEAN}, sum1[] = {RAID_AGG_SUM};
    const size_t groups[] = {1, 700, 5000, 60000, 131072};
    const size_t rows[] = {0, 1000, 77777};
    const gb_cl_knobs knobs[] = {{.check = 1}, {.part_bits = 3, .check = 1}, {0}}; /* check: every index checked
                                                                                    in the kernels */
    for (size_t c = 0; c < sizeof groups / sizeof *groups; c++) { /* values of every magnitude: many limbs */
        for (size_t i = 0; i < n; i++)
            k[i] = (int64_t)((i * 7919) % groups[c]) * 3 - 100;
        const size_t G = groups[c] < n ? groups[c] : n;
        for (size_t r = 0; r < 3; r++)
            for (size_t kn = 0; kn < 3; kn++) {
                raidGbDeviceTestKnobs = knobs[kn];
                check_part(ctx, k, x, NULL, n, 0, sums, 3, G, rows[r], 8);
                check_part(ctx, k, x, valid, n, RAID_GROUPBY_SKIPNA, sum1, 1, G, rows[r], 8);
                check_part(ctx, k, x, valid, n, 0, sums, 3, G, rows[r], kn == 0 ? 3 : 8);
            }
    }
    raidGbDeviceTestKnobs = (gb_cl_knobs){0};
    /* one group of +-2^60 and a value just below 1/4 (carries through every limb) in every block, chunk and
     * partition (5,000 others); repeated: the atomics' order changes, the bits do not */
    for (size_t i = 0; i < n; i++) {
        k[i] = i % 97 == 0 ? (int64_t)(i % 5000) : 0;
        x[i] = (i % 3 == 0) ? -ldexp(1.0, 60) + 1.0 : (i % 3 == 1) ? ldexp(1.0, 60) : 0x1.fffffffffffffp-3;
    }
    for (int r = 0; r < 100; r++) {
        raidGbDeviceTestKnobs = (gb_cl_knobs){.part_bits = r % 3 == 1 ? 5 : 0, .check = r % 2};
        assert_true(check_part(ctx, k, x, NULL, n, 0, r % 2 ? sums : sum1, r % 2 ? 3 : 1, 0, r % 5 == 0 ? 1000 : 0,
                               8) <= 255);
    }
    /* many partitions: 100,003 groups of values in [-1/2, 1/2) (few limbs: 2^9 groups a partition, 196
     * partitions, null rows in digit 255), every index checked, then without checks */
    for (size_t i = 0; i < n; i++) {
        k[i] = (int64_t)(i * 7919 % 100003);
        x[i] = ldexp((double)(raidSplitmix64(&rng) >> 11), -53) - 0.5;
        valid[i] = i % 13 != 0;
    }
    for (int chk = 1; chk >= 0; chk--) {
        raidGbDeviceTestKnobs = (gb_cl_knobs){.check = chk};
        assert_int_equal(check_part(ctx, k, x, valid, n, 0, sums, 3, 100003, 0, 8), 196);
        check_part(ctx, k, x, valid, n, RAID_GROUPBY_SKIPNA, sum1, 1, 100003, 0, 8);
        check_part(ctx, k, x, NULL, n, 0, sum1, 1, 100003, 0, 8);
        check_part(ctx, k, x, NULL, n, 0, sums, 3, 100003, 0, -1); /* the automatic choice */
    }
    /* skewed: 100,003 groups, 90% of the rows in group 50,000 (one partition: its chunks spread the work) */
    for (size_t i = 0; i < n; i++)
        k[i] = i % 10 == 0 || i < 100003 / 10 * 10 ? (int64_t)(i % 100003) : 50000;
    raidGbDeviceTestKnobs = (gb_cl_knobs){.check = 1};
    assert_int_equal(check_part(ctx, k, x, valid, n, 0, sums, 3, 0, 0, 8), 196);
    check_part(ctx, k, x, NULL, n, RAID_GROUPBY_SKIPNA, sum1, 1, 0, 1000, 8);
    check_part(ctx, k, x, valid, n, RAID_GROUPBY_SKIPNA, sums, 3, 0, 0, 8);
    /* partitions without rows: the groups of ranks below 3,000 have null rows only (64 groups a partition) */
    for (size_t i = 0; i < n; i++) {
        k[i] = (int64_t)(i % 10000);
        valid[i] = k[i] >= 3000;
    }
    raidGbDeviceTestKnobs = (gb_cl_knobs){.part_bits = 6, .check = 1};
    assert_int_equal(check_part(ctx, k, x, valid, n, 0, sums, 3, 10000, 0, 8), 157);
    check_part(ctx, k, x, valid, n, RAID_GROUPBY_SKIPNA, sum1, 1, 10000, 1000, 8);
    /* more than 255 partitions: refused */
    raid_groupby *b = NULL;
    size_t np = 0;
    raidGbDeviceTestKnobs = (gb_cl_knobs){.part_bits = 5, .partitions_out = &np};
    assert_int_equal(raidGbCompute(ctx, k, x, NULL, n, sums, 3, 0, 0, 8, &b), RAID_EUNSUPPORTED);
    assert_int_equal(np, 313);
    assert_null(b);
    /* 2^31 rows or more: refused by the sort pass (a digit's count over tiles stays below 2^31, its flag bit
     * 31), so the group-by keeps such calls off the partitioned path (checked before any buffer is touched) */
    assert_int_equal(raidSortDevicePartition(ctx, NULL, NULL, 2147483648u, 9, NULL, NULL, NULL), RAID_EUNSUPPORTED);
    assert_non_null(strstr(raid_ctx_errmsg(ctx), "fewer than 2^31"));
    raidGbDeviceTestKnobs = (gb_cl_knobs){0};
    assert_int_equal(raidGbCompute(ctx, k, x, NULL, n, AGGS, NAGGS, 0, 0, 8, &b), RAID_EUNSUPPORTED);
    assert_null(b);
    for (int removed = 4; removed <= 11; removed += removed == 7 ? 2 : 1) { /* 4 to 7, 9 to 11 */
        assert_int_equal(raidGbCompute(ctx, k, x, NULL, n, sums, 3, 0, 0, removed, &b), RAID_EINVAL);
        assert_null(b);
    }
    free(k), free(x), free(valid);
    raid_ctx_destroy(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(t_patterns),
        cmocka_unit_test(t_collisions),
        cmocka_unit_test(t_nulls_and_counts),
        cmocka_unit_test(t_seeds),
        cmocka_unit_test(t_partitioned),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
