/* The batched GARCH fit on the real device evaluator (kernels/garch.cl; PoCL here) against the float64 cpu
 * backend: the bulk phase, the refinement's Newton steps and Hessian (refine_device in garch_batch.c) run
 * on the device, the tests, solves and standard errors in float64 on the host; the estimates must be the
 * float64 optimum (the cpu fit's estimates to 1e-6 relative, log-likelihoods to 1e-12) and the standard
 * errors the cpu fit's to 1e-3, with the same statuses. GARCH-t, GJR Normal and EGARCH-t with a zero mean
 * (the models refine_device takes; EGARCH with a constant mean is refined in float64), on dem2gbp and two
 * shorter windows of it. Skipped without OpenCL. */
#define _POSIX_C_SOURCE 200809L
#include "support.h"
#include "models/garch_batch.h"
#include "garch_compare.h"

#include <stdio.h>
#include <stdlib.h>

static void test_device_refinement(void **state)
{
    (void)state;
    if (!t_have_opencl()) skip();
    raid_ctx *ctx = t_open_ctx(t_device());
    if (!ctx) skip();
    size_t T;
    double *r = t_read_dem2gbp(&T);
    const double *rs[3] = {r, r + 400, r + 800};
    const size_t Ts[3] = {T, T - 400, T - 800};
    const RaidGarchLikSpec specs[3] = {
        {RAID_GARCH_LIK_GARCH, RAID_GARCH_LIK_T, RAID_GARCH_LIK_MEAN_CONSTANT, RAID_GARCH_LIK_INIT_BACKCAST,
         RAID_GARCH_LIK_EZ_SQRT2PI},
        {RAID_GARCH_LIK_GJR, RAID_GARCH_LIK_NORMAL, RAID_GARCH_LIK_MEAN_CONSTANT, RAID_GARCH_LIK_INIT_SAMPLE,
         RAID_GARCH_LIK_EZ_SQRT2PI},
        {RAID_GARCH_LIK_EGARCH, RAID_GARCH_LIK_T, RAID_GARCH_LIK_MEAN_ZERO, RAID_GARCH_LIK_INIT_BACKCAST,
         RAID_GARCH_LIK_EZ_SQRT2PI},
    };
    for (int m = 0; m < 3; m++) {
        const RaidGarchLikSpec *s = &specs[m];
        const size_t k = raidGarchLikNpar(s);
        RaidGarchBatchOut a[3], b[3];
        assert_int_equal(raidGarchBatchFit(NULL, s, 3, rs, Ts, NULL, NULL, a), RAID_OK);
        assert_int_equal(raidGarchBatchFit(ctx, s, 3, rs, Ts, NULL, NULL, b), RAID_OK);
        for (size_t i = 0; i < 3; i++) {
            printf("# model %d series %zu: cpu %d (%d it), device %d (%d it)\n", (int)s->model, i, a[i].status,
                   a[i].iterations, b[i].status, b[i].iterations);
            garch_cmp_fit(&b[i], &a[i], k);
        }
    }
    free(r);
    raid_ctx_destroy(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_device_refinement)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
