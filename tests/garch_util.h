/* Helpers shared by the GARCH tests (test_garch_lik.c, test_garch_eval.c): named parameter values,
 * their packing into theta, and the list of every spec. Header-only (static functions). */
#ifndef RAID_TEST_GARCH_UTIL_H
#define RAID_TEST_GARCH_UTIL_H
#include "support.h"
#include "models/garch_lik.h"

/* Named parameter values, packed into theta in the layout of garch_lik.h. */
typedef struct named {
    double mu, omega, alpha, gamma, beta, nu;
} named;

static size_t pack(const RaidGarchLikSpec *s, const named *p, double *th)
{
    size_t k = 0;
    if (s->mean == RAID_GARCH_LIK_MEAN_CONSTANT) th[k++] = p->mu;
    th[k++] = p->omega;
    th[k++] = p->alpha;
    if (s->model != RAID_GARCH_LIK_GARCH) th[k++] = p->gamma;
    th[k++] = p->beta;
    if (s->dist == RAID_GARCH_LIK_T) th[k++] = p->nu;
    assert_int_equal(k, raidGarchLikNpar(s));
    return k;
}

/* Every spec: 3 models x 2 distributions x 2 means x 2 starting variances, and for EGARCH-t both E|z|
 * conventions. */
static size_t all_specs(RaidGarchLikSpec *out)
{
    size_t n = 0;
    for (int m = 0; m < 3; m++)
        for (int d = 0; d < 2; d++)
            for (int mean = 0; mean < 2; mean++)
                for (int init = 0; init < 2; init++)
                    for (int ez = 0; ez < 2; ez++) {
                        if (ez == 1 && !(m == RAID_GARCH_LIK_EGARCH && d == RAID_GARCH_LIK_T)) continue;
                        out[n++] = (RaidGarchLikSpec){(RaidGarchLikModel)m, (RaidGarchLikDist)d,
                                                         (RaidGarchLikMean)mean, (RaidGarchLikInit)init,
                                                         (RaidGarchLikEz)ez};
                    }
    return n;
}

#endif
