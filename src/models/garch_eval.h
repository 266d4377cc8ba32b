/* Batched evaluation of GARCH-family negative log-likelihoods and their analytic scores: the one seam
 * between the optimiser (garch_batch.c) and the backends.
 *
 * Internal. An evaluator holds a set of series (by pointer: the caller keeps them alive and unchanged
 * while the evaluator lives) and evaluates, in one call, any number of (series, theta) points:
 *   - cpu backend (ctx NULL or a cpu context): raidGarchLikNll on each point in float64, OpenMP over
 *     points (the oracle; the backcast start formed once per series, at the first call that evaluates it,
 *     raidGarchLikNllBc);
 *   - device backend (an OpenCL context): kernels/garch.cl, one work-item per point, float32 with
 *     double-float accumulation, each series scaled to unit variance on the host (garch_eval_device.c;
 *     docs/garch.md states the bound against the cpu path).
 * theta, nll and grad are always in the series' own units (the device path scales and un-scales).
 * Results are bitwise reproducible for a given backend and batch (no order dependence across points). */
#ifndef RAID_MODELS_GARCH_EVAL_H
#define RAID_MODELS_GARCH_EVAL_H

#include <stddef.h>

#include "core/internal.h"
#include "models/garch_lik.h"

typedef struct RaidGarchEval RaidGarchEval;

/* An evaluator of spec over series i = 0..nseries-1, r[i][0..T[i]-1] (T[i] >= 1, finite returns: the
 * optimiser screens series before). ctx NULL or a cpu context: the float64 path. A device context uploads
 * the (scaled) series once; they stay resident until destroy. Errors (raidFail on ctx): RAID_ENOMEM and
 * the device's. *out NULL on failure. */
raid_status raidGarchEvalCreate(raid_ctx *ctx, const RaidGarchLikSpec *spec, size_t nseries,
                                   const double *const *r, const size_t *T, RaidGarchEval **out);

/* Evaluate npts points: point p is series[p] at theta[p*k .. p*k+k-1] (k = raidGarchLikNpar(spec)).
 * nll[p] receives the negative log-likelihood (+inf when theta is invalid, as raidGarchLikNll), and,
 * if grad is not NULL, grad[p*k .. p*k+k-1] its gradient in theta (zeros when invalid). npts = 0 is a
 * no-op. Errors: the device's (RAID_EDEVICE, RAID_EDEVMEM, ...), RAID_ENOMEM. */
raid_status raidGarchEvalRun(RaidGarchEval *ev, size_t npts, const size_t *series, const double *theta,
                                double *nll, double *grad);

/* Whether ev evaluates on a device (1) or in float64 on the cpu (0). */
int raidGarchEvalOnDevice(const RaidGarchEval *ev);

/* Free ev and its device buffers; NULL is a no-op. */
void raidGarchEvalDestroy(RaidGarchEval *ev);

#endif
