/* The evaluator's fields and the device backend's entry points (garch_eval.c <-> garch_eval_device.c only). */
#ifndef RAID_MODELS_GARCH_EVAL_INTERNAL_H
#define RAID_MODELS_GARCH_EVAL_INTERNAL_H

#include "models/garch_eval.h"

struct RaidGarchEval {
    raid_ctx *ctx;
    RaidGarchLikSpec spec;
    size_t k;
    size_t nseries;
    const double *const *r;
    const size_t *T;
    double *bc;      /* cpu backend, BACKCAST start: each series' v0 (raidGarchLikBackcast), formed at
                        the first call that evaluates the series */
    size_t *bc_todo;      /* nseries entries: the series whose bc a call forms */
    unsigned char *bc_ok; /* nseries flags: bc formed */
    int device;
    void *cl; /* the device backend's state (garch_eval_device.c) */
};

/* Device backend (garch_eval_device.c): create fills ev->cl (scales and uploads the series); run evaluates;
 * destroy frees ev->cl. Errors through raidFail(ev->ctx, ...). */
raid_status raidGarchEvalClCreate(RaidGarchEval *ev);
raid_status raidGarchEvalClRun(RaidGarchEval *ev, size_t npts, const size_t *series, const double *theta,
                                   double *nll, double *grad);
void raidGarchEvalClDestroy(RaidGarchEval *ev);

#endif
