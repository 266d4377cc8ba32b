/* Batched GARCH-family likelihood evaluation: the evaluator object and the float64 cpu backend.
 * garch_eval.h gives the contract; the device backend is garch_eval_cl.c. */
#include "models/garch_eval.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "models/garch_eval_internal.h"

raid_status raid_garch_eval_create(raid_ctx *ctx, const raid_garch_lik_spec *spec, size_t nseries,
                                   const double *const *r, const size_t *T, raid_garch_eval **out)
{
    assert(spec && out && (nseries == 0 || (r && T)));
    *out = NULL;
    raid_garch_eval *ev = calloc(1, sizeof *ev);
    if (!ev) return raid_fail(ctx, RAID_ENOMEM, "out of memory (GARCH evaluator)");
    ev->ctx = ctx;
    ev->spec = *spec;
    ev->k = raid_garch_lik_npar(spec);
    ev->nseries = nseries;
    ev->r = r;
    ev->T = T;
    for (size_t i = 0; i < nseries; i++) assert(T[i] >= 1 && r[i]);
    if (ctx && ctx->backend != RAID_BACKEND_CPU) {
        const raid_status st = raid_garch_eval_cl_create(ev);
        if (st != RAID_OK) {
            free(ev);
            return st;
        }
        ev->device = 1;
    } else if (spec->init == RAID_GARCH_LIK_INIT_BACKCAST) {
        ev->bc = malloc((nseries ? nseries : 1) * sizeof *ev->bc);
        if (!ev->bc) {
            free(ev);
            return raid_fail(ctx, RAID_ENOMEM, "out of memory (GARCH evaluator)");
        }
        const long long n = (long long)nseries;
#pragma omp parallel for schedule(dynamic, 16)
        for (long long i = 0; i < n; i++) ev->bc[i] = raid_garch_lik_backcast(spec, r[i], T[i]);
    }
    *out = ev;
    return RAID_OK;
}

raid_status raid_garch_eval_run(raid_garch_eval *ev, size_t npts, const size_t *series, const double *theta,
                                double *nll, double *grad)
{
    assert(ev && (npts == 0 || (series && theta && nll)));
    if (npts == 0) return RAID_OK;
    if (ev->device) return raid_garch_eval_cl_run(ev, npts, series, theta, nll, grad);
    const size_t k = ev->k;
    const long long n = (long long)npts;
#pragma omp parallel for schedule(dynamic, 1)
    for (long long p = 0; p < n; p++) {
        const size_t i = series[p];
        assert(i < ev->nseries);
        nll[p] = raid_garch_lik_nll_bc(&ev->spec, ev->r[i], ev->T[i], theta + (size_t)p * k, ev->bc ? ev->bc[i] : 0.0,
                                       grad ? grad + (size_t)p * k : NULL);
    }
    return RAID_OK;
}

int raid_garch_eval_on_device(const raid_garch_eval *ev)
{
    assert(ev);
    return ev->device;
}

void raid_garch_eval_destroy(raid_garch_eval *ev)
{
    if (!ev) return;
    if (ev->device) raid_garch_eval_cl_destroy(ev);
    free(ev->bc);
    free(ev);
}
