/* TEMPORARY stub of garch_batch.h so that branch garch-api links before garch-batch lands: DELETE AT MERGE.
 * Fits each series alone with the one-series float64 fit (garch_fit.h), ignores warm starts and leaves
 * the standard errors and the variances h_T, h_{T+1} undefined (NAN). */
#include "models/garch_batch.h"
#include "models/garch_fit.h"

#include <math.h>

raid_status raid_garch_batch_fit(raid_ctx *ctx, const raid_garch_lik_spec *spec, size_t n, const double *const *r,
                                 const size_t *T, const double *warm, const raid_garch_batch_opts *opts,
                                 raid_garch_batch_out *out)
{
    static const raid_garch_status map[] = {RAID_GARCH_CONVERGED, RAID_GARCH_MAXITER,   RAID_GARCH_TOO_SHORT,
                                            RAID_GARCH_CONSTANT,  RAID_GARCH_NONFINITE, RAID_GARCH_BOUNDARY,
                                            RAID_GARCH_NO_PROGRESS, RAID_GARCH_NO_START};
    (void)ctx, (void)warm;
    raid_garch_fit_opts o = {opts && opts->max_iter ? opts->max_iter : 500, 1e-10, 1e-12};
    for (size_t i = 0; i < n; i++) {
        raid_garch_fit_result f;
        raid_garch_fit_one(spec, r[i], T[i], &o, &f);
        out[i].status = map[f.status];
        for (int j = 0; j < RAID_GARCH_LIK_MAXPAR; j++) {
            out[i].theta[j] = f.theta[j];
            out[i].se_classic[j] = out[i].se_robust[j] = NAN;
        }
        out[i].loglik = f.loglik;
        out[i].iterations = (int)f.iterations;
        out[i].sigma2_last = out[i].sigma2_next = NAN;
    }
    return RAID_OK;
}

void raid_garch_forecast(const raid_garch_lik_spec *spec, const double *theta, double sigma2_next, size_t H,
                         double *out)
{
    (void)spec, (void)theta;
    for (size_t j = 0; j < H; j++)
        out[j] = sigma2_next;
}
