/* Batched GARCH-family likelihood evaluation: the evaluator object, its dispatch (raidGarchEvalBackends)
 * and the float64 cpu backend. garch_eval.h gives the contract; the device backend is garch_eval_device.c. */
#include "models/garch_eval.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "models/garch_eval_internal.h"

raid_status raidGarchEvalCreate(raid_ctx *ctx, const RaidGarchLikSpec *spec, size_t nseries,
                                   const double *const *r, const size_t *T, RaidGarchEval **out)
{
    assert(spec && out && (nseries == 0 || (r && T)));
    *out = NULL;
    RaidGarchEval *ev = calloc(1, sizeof *ev);
    if (!ev) return raidFail(ctx, RAID_ENOMEM, "out of memory (GARCH evaluator)");
    ev->ctx = ctx;
    ev->spec = *spec;
    ev->k = raidGarchLikNpar(spec);
    ev->nseries = nseries;
    ev->r = r;
    ev->T = T;
    for (size_t i = 0; i < nseries; i++) assert(T[i] >= 1 && r[i]);
    ev->be = RAID_BACKEND(raidGarchEvalBackends, ctx);
    const raid_status st = ev->be->create(ev);
    if (st != RAID_OK) {
        free(ev);
        return st;
    }
    *out = ev;
    return RAID_OK;
}

/* The cpu backend's state: with the BACKCAST start, each series' starting variance, formed at its first
 * evaluation. */
static raid_status cpu_create(RaidGarchEval *ev)
{
    if (ev->spec.init != RAID_GARCH_LIK_INIT_BACKCAST)
        return RAID_OK;
    const size_t n = ev->nseries ? ev->nseries : 1;
    ev->bc = malloc(n * sizeof *ev->bc);
    ev->bc_todo = malloc(n * sizeof *ev->bc_todo);
    ev->bc_ok = calloc(n, 1);
    if (!ev->bc || !ev->bc_todo || !ev->bc_ok) {
        free(ev->bc);
        free(ev->bc_todo);
        free(ev->bc_ok);
        return raidFail(ev->ctx, RAID_ENOMEM, "out of memory (GARCH evaluator)");
    }
    return RAID_OK;
}

raid_status raidGarchEvalRun(RaidGarchEval *ev, size_t npts, const size_t *series, const double *theta,
                                double *nll, double *grad)
{
    assert(ev && (npts == 0 || (series && theta && nll)));
    if (npts == 0) return RAID_OK;
    return ev->be->run(ev, npts, series, theta, nll, grad);
}

/* The cpu backend: raidGarchLikNllBc per point on OpenMP's threads (the backcast of a series first seen). */
static raid_status cpu_run(RaidGarchEval *ev, size_t npts, const size_t *series, const double *theta, double *nll,
                           double *grad)
{
    const size_t k = ev->k;
    if (ev->bc) { /* the backcast start of the series not seen before (each its own pass) */
        size_t m = 0;
        for (size_t p = 0; p < npts; p++) {
            const size_t i = series[p];
            assert(i < ev->nseries);
            if (!ev->bc_ok[i]) {
                ev->bc_ok[i] = 1;
                ev->bc_todo[m++] = i;
            }
        }
        const long long ml = (long long)m;
#pragma omp parallel for schedule(dynamic, 16)
        for (long long j = 0; j < ml; j++) {
            const size_t i = ev->bc_todo[j];
            ev->bc[i] = raidGarchLikBackcast(&ev->spec, ev->r[i], ev->T[i]);
        }
    }
    const long long n = (long long)npts;
#pragma omp parallel for schedule(dynamic, 1)
    for (long long p = 0; p < n; p++) {
        const size_t i = series[p];
        assert(i < ev->nseries);
        nll[p] = raidGarchLikNllBc(&ev->spec, ev->r[i], ev->T[i], theta + (size_t)p * k, ev->bc ? ev->bc[i] : 0.0,
                                       grad ? grad + (size_t)p * k : NULL);
    }
    return RAID_OK;
}

int raidGarchEvalOnDevice(const RaidGarchEval *ev)
{
    assert(ev);
    return ev->be->device;
}

void raidGarchEvalDestroy(RaidGarchEval *ev)
{
    if (!ev) return;
    ev->be->destroy(ev);
    free(ev);
}

static void cpu_destroy(RaidGarchEval *ev)
{
    free(ev->bc);
    free(ev->bc_todo);
    free(ev->bc_ok);
}

const RaidGarchEvalBackend raidGarchEvalBackends[2] = {
    [RAID_ON_CPU] = {cpu_create, cpu_run, cpu_destroy, 0},
    [RAID_ON_DEVICE] = {raidGarchEvalDeviceCreate, raidGarchEvalDeviceRun, raidGarchEvalDeviceDestroy, 1},
};
