/* Shared by the batched GARCH fit's tests that compare a device (or stand-in) fit with the float64 cpu fit
 * (test_garch_batch_noise.c, test_garch_batch_device.c): the same statuses; where converged, estimates
 * to 1e-6 relative, the log-likelihood to 1e-12 and both standard errors to 1e-3. */
#ifndef RAID_TESTS_GARCH_COMPARE_H
#define RAID_TESTS_GARCH_COMPARE_H

#include <math.h>
#include <stdio.h>

#include "models/garch_batch.h"

/* The largest relative differences seen: [0] estimates and log-likelihoods, [1] standard errors. */
static double garch_cmp_worst[2];

static void garch_cmp_rel(double got, double want, double tol, int which, const char *what)
{
    const double d = fabs(got - want) / fabs(want);
    if (d > garch_cmp_worst[which]) garch_cmp_worst[which] = d;
    if (!(fabs(got - want) <= tol * fabs(want))) {
        printf("# %s: got %.17g want %.17g (relative %.3g, bound %.3g)\n", what, got, want, d, tol);
        fail();
    }
}

/* Fit b (device) against fit a (cpu), k parameters. */
static void garch_cmp_fit(const raid_garch_batch_out *b, const raid_garch_batch_out *a, size_t k)
{
    assert_int_equal(b->status, a->status);
    if (a->status != RAID_GARCH_CONVERGED) return; /* an edge: a flat ridge, not compared */
    for (size_t j = 0; j < k; j++) garch_cmp_rel(b->theta[j], a->theta[j], 1e-6, 0, "estimate");
    garch_cmp_rel(b->loglik, a->loglik, 1e-12, 0, "log-likelihood");
    for (size_t j = 0; j < k; j++) {
        garch_cmp_rel(b->se_classic[j], a->se_classic[j], 1e-3, 1, "classic se");
        garch_cmp_rel(b->se_robust[j], a->se_robust[j], 1e-3, 1, "robust se");
    }
}

#endif
