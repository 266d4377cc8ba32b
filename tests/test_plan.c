/* The chunk plan: chunks of ragged and overlapping segments, and batches limited by elements and count. */
#include "support.h"
#include "device/chunk.h"

static void test_plan(void **state)
{
    (void)state;
    const int64_t off[5] = {0, 0, 5, 17, 18}; /* segments of 0, 5, 12, 1 elements */
    RaidChunkPlan p;
    assert_int_equal(raidPlanBuild(&p, off, 4, 4), RAID_OK);
    /* 0 chunks, then 2 (4+1), 3 (4+4+4), 1 (1) */
    assert_int_equal(p.nchunks, 6);
    const int64_t starts[6] = {0, 4, 5, 9, 13, 17};
    const uint32_t lens[6] = {4, 1, 4, 4, 4, 1}, segs[6] = {1, 1, 2, 2, 2, 3};
    for (int i = 0; i < 6; i++) {
        assert_int_equal(p.chunks[i].start, starts[i]);
        assert_int_equal(p.chunks[i].len, lens[i]);
        assert_int_equal(p.chunks[i].seg, segs[i]);
    }
    size_t el;
    /* by elements: aligned to 4, the first batch holds 4 + 1 (padded to 8) + 4 = 12 <= 13 */
    assert_int_equal(raidPlanNextBatch(&p, 0, 13, 100, 4, &el), 3);
    assert_int_equal(el, 12);
    /* by count */
    assert_int_equal(raidPlanNextBatch(&p, 0, 1000, 2, 1, &el), 2);
    assert_int_equal(el, 5);
    /* a chunk larger than the limit still forms a batch of one */
    assert_int_equal(raidPlanNextBatch(&p, 2, 2, 100, 1, &el), 1);
    raidPlanFree(&p);
    /* overlapping ranges (rolling windows) */
    const int64_t st[3] = {0, 2, 4}, en[3] = {6, 8, 10};
    assert_int_equal(raidPlanBuildRanges(&p, st, en, 3, 4), RAID_OK);
    assert_int_equal(p.nchunks, 6);
    assert_int_equal(p.chunks[2].start, 2);
    assert_int_equal(p.chunks[5].start, 8);
    assert_int_equal(p.chunks[5].len, 2);
    raidPlanFree(&p);
    const int64_t bad_st[1] = {5}, bad_en[1] = {4};
    assert_int_equal(raidPlanBuildRanges(&p, bad_st, bad_en, 1, 4), RAID_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_plan)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
