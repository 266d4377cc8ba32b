/* Shared by the batched GARCH fit's tests that compare a device (or stand-in) fit with the float64 cpu fit
 * (test_garch_batch_noise.c, test_garch_batch_device.c, test_garch_batch_agree.c): the same statuses; where
 * converged, estimates to 1e-6 relative, the log-likelihood to 1e-12 and both standard errors to 1e-3; and
 * two results equal bit for bit. */
#ifndef RAID_TESTS_GARCH_COMPARE_H
#define RAID_TESTS_GARCH_COMPARE_H

#include <math.h>
#include <stdio.h>

#include "models/garch_batch.h"

/* The largest relative differences seen: [0] estimates and log-likelihoods, [1] standard errors. */
static double garch_cmp_worst[2] __attribute__((unused));

static inline void garch_cmp_rel(double got, double want, double tol, int which, const char *what)
{
    const double d = fabs(got - want) / fabs(want);
    if (d > garch_cmp_worst[which]) garch_cmp_worst[which] = d;
    if (!(fabs(got - want) <= tol * fabs(want))) {
        printf("# %s: got %.17g want %.17g (relative %.3g, bound %.3g)\n", what, got, want, d, tol);
        fail();
    }
}

/* Fit b (device) against fit a (cpu), k parameters. */
static inline void garch_cmp_fit(const RaidGarchBatchOut *b, const RaidGarchBatchOut *a, size_t k)
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

/* Whether two results carry the same bits in every field (k parameters): status, iterations, the estimates,
 * both standard errors, the log-likelihood, h_T and h_{T+1}. */
static inline int garch_same_bits(const RaidGarchBatchOut *a, const RaidGarchBatchOut *b, size_t k)
{
    int ok = a->status == b->status && a->iterations == b->iterations;
    ok &= t_bits_of(a->loglik) == t_bits_of(b->loglik) && t_bits_of(a->sigma2_last) == t_bits_of(b->sigma2_last) &&
          t_bits_of(a->sigma2_next) == t_bits_of(b->sigma2_next);
    for (size_t j = 0; j < k; j++)
        ok &= t_bits_of(a->theta[j]) == t_bits_of(b->theta[j]) &&
              t_bits_of(a->se_classic[j]) == t_bits_of(b->se_classic[j]) &&
              t_bits_of(a->se_robust[j]) == t_bits_of(b->se_robust[j]);
    return ok;
}

#endif
