/* Fitting many GARCH-family series at once: BFGS in lock step over a batched
 * evaluator (garch_eval.h), a float64 refinement and all inference on the host.
 *
 * Internal: the public fit (include/raid/garch.h, src/models/garch.c) plans the series and windows and
 * calls this once. docs/garch.md ("Fitting many series") gives the algorithm. */
#ifndef RAID_MODELS_GARCH_BATCH_H
#define RAID_MODELS_GARCH_BATCH_H

#include <stddef.h>

#include "core/internal.h"
#include "models/garch_lik.h"
#include "raid/garch.h"

typedef struct RaidGarchBatchOpts {
    size_t max_iter;  /* BFGS iterations per series (0: 500) */
    double bulk_gtol; /* the bulk phase stops at a scaled gradient below this (0: 1e-10 on the cpu, 1e-6 on a
                         device, whose float32 scores are noisier); the float64 refinement then goes on to
                         1e-10 (docs/garch.md) */
    size_t nls;       /* line-search step lengths per series per evaluator call (0: 1 on the cpu, 4 on a
                         device); the iterates do not depend on it, only the number of calls does */
    size_t dev_max_iter; /* on a device, the bulk's iterations per fit (0: 100); a fit still running then is
                            fitted by the cpu path instead, as every fit the device does not finish converged
                            (docs/garch.md "The device path's guarantee"); ignored on the cpu */
    uint64_t prog_base, prog_total; /* progress (unit "fits") on the context: the fit reports prog_base + the
                         series done of its n, of prog_total (0: no reports); a series is done once its bulk
                         phase stopped (or it could not be fitted). GJR's nested GARCH fits report nothing */
} RaidGarchBatchOpts;

/* One series' result. theta/se in the packed layout of garch_lik.h ([mu] omega alpha [gamma] beta [nu]),
 * in the series' own units; NAN where there is no estimate (too short, constant, non-finite, no valid
 * start: theta, se, loglik, sigma2 all NAN). Standard errors are NAN at a boundary solution and where the
 * Hessian is not positive definite; for "iteration limit", "no progress" and "at start" they are at the
 * estimates returned (the last iterate). */
typedef struct RaidGarchBatchOut {
    raid_garch_status status;
    double theta[RAID_GARCH_LIK_MAXPAR];
    double se_classic[RAID_GARCH_LIK_MAXPAR]; /* sqrt diag H^-1, H the float64 Hessian of the nll */
    double se_robust[RAID_GARCH_LIK_MAXPAR];  /* sqrt diag H^-1 J H^-1 (Bollerslev and Wooldridge 1992) */
    double loglik;                            /* float64 log-likelihood at theta */
    int iterations;                           /* BFGS iterations of the bulk phase + Newton steps of the
                                                 refinement (GJR without a warm start: + those of
                                                 the GARCH fit whose optimum is a start); 0 when screened */
    double sigma2_last;                       /* h_T */
    double sigma2_next;                       /* h_{T+1} */
} RaidGarchBatchOut;

/* Fit spec to series i = 0..n-1, r[i][0..T[i]-1] (any T, any values: too short, constant and non-finite
 * series get their status and no estimates; they do not affect the others). warm: NULL, or n x k packed
 * starting values (a row with a NAN: that series uses the grid of starts); a warm start is tried with the
 * grid's starts (in the same evaluator call) and the best kept. opts: NULL for the defaults. All
 * likelihood evaluations of the bulk phase go through ONE evaluator on ctx (NULL or a cpu context: the
 * float64 cpu path); the refinement and inference are float64 on the host (OpenMP over series; results
 * independent of the thread count), so the estimates are the float64 optimum whatever the backend. On a
 * device, a fit that does not end converged away from an edge is fitted again by the cpu path: every fit
 * has the cpu path's status and its log-likelihood within 1e-6 (docs/garch.md "The device path's
 * guarantee"). Each series' result does not depend on the others in the batch, on either backend (bit for
 * bit). docs/garch.md "Fitting many series" gives the algorithm, the statuses and the standard errors.
 * Errors (raidFail on ctx): RAID_ENOMEM and the device's; out[] is then undefined. */
raid_status raidGarchBatchFit(raid_ctx *ctx, const RaidGarchLikSpec *spec, size_t n, const double *const *r,
                                 const size_t *T, const double *warm, const RaidGarchBatchOpts *opts,
                                 RaidGarchBatchOut *out);

/* Variance forecasts h_{T+1..T+H} into out[0..H-1] from theta (packed) and h_{T+1} = sigma2_next:
 * GARCH/GJR h_{T+j} = omega + (alpha + gamma/2 + beta) h_{T+j-1}; EGARCH log h_{T+j} = omega +
 * alpha (E|z| - kappa) + beta log h_{T+j-1} (the forecast of log h, exponentiated: a lower bound of E h by
 * Jensen; docs/garch.md). H >= 1. */
void raidGarchForecast(const RaidGarchLikSpec *spec, const double *theta, double sigma2_next, size_t H,
                         double *out);

#endif
