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
    const struct RaidGarchEvalBackend *be; /* the backend chosen at create */
    void *cl; /* the device backend's state (garch_eval_device.c) */
};

/* The backends of the evaluator, chosen once by raidGarchEvalCreate (RAID_BACKEND(raidGarchEvalBackends,
 * ctx), kept in ev->be): create fills what run needs (the cpu: the backcast cache; the device: ev->cl, the
 * series scaled and uploaded), run evaluates (raidGarchEvalRun's contract, npts > 0), destroy frees what
 * create made. device: 1 where the results are the device's (raidGarchEvalOnDevice). Errors through
 * raidFail(ev->ctx, ...). The table is in garch_eval.c; the cpu entries there, the device's in
 * garch_eval_device.c. */
typedef struct RaidGarchEvalBackend {
    raid_status (*create)(RaidGarchEval *ev);
    raid_status (*run)(RaidGarchEval *ev, size_t npts, const size_t *series, const double *theta, double *nll,
                       double *grad);
    void (*destroy)(RaidGarchEval *ev);
    int device;
} RaidGarchEvalBackend;
extern const RaidGarchEvalBackend raidGarchEvalBackends[2];

raid_status raidGarchEvalDeviceCreate(RaidGarchEval *ev);
raid_status raidGarchEvalDeviceRun(RaidGarchEval *ev, size_t npts, const size_t *series, const double *theta,
                                     double *nll, double *grad);
void raidGarchEvalDeviceDestroy(RaidGarchEval *ev);

#endif
