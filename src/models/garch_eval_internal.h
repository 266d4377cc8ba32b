/* The evaluator's fields and the device backend's entry points (garch_eval.c <-> garch_eval_cl.c only). */
#ifndef RAID_MODELS_GARCH_EVAL_INTERNAL_H
#define RAID_MODELS_GARCH_EVAL_INTERNAL_H

#include "models/garch_eval.h"

struct raid_garch_eval {
    raid_ctx *ctx;
    raid_garch_lik_spec spec;
    size_t k;
    size_t nseries;
    const double *const *r;
    const size_t *T;
    double *bc;      /* cpu backend, BACKCAST start: each series' v0 (raid_garch_lik_backcast), formed at
                        the first call that evaluates the series */
    size_t *bc_todo;      /* nseries entries: the series whose bc a call forms */
    unsigned char *bc_ok; /* nseries flags: bc formed */
    int device;
    void *cl; /* the device backend's state (garch_eval_cl.c) */
};

/* Device backend (garch_eval_cl.c): create fills ev->cl (scales and uploads the series); run evaluates;
 * destroy frees ev->cl. Errors through raid_fail(ev->ctx, ...). */
raid_status raid_garch_eval_cl_create(raid_garch_eval *ev);
raid_status raid_garch_eval_cl_run(raid_garch_eval *ev, size_t npts, const size_t *series, const double *theta,
                                   double *nll, double *grad);
void raid_garch_eval_cl_destroy(raid_garch_eval *ev);

#endif
