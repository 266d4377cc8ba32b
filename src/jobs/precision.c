/* The job of the f32 precision curve (raid_precision_curve, include/raid/precision.h;
 * docs/precision-figure.md): simulated i.i.d. Gaussian returns (the simulator's raid_simulate_returns), rv
 * on the device's input path and on the float64 cpu backend (raid_realized_compute on each context), the
 * relative errors against the prediction 2u sqrt(3/M). A job, not a model: it runs two capabilities
 * through the public API and computes nothing of its own but the error statistics. */
#include "core/internal.h"
#include "raid.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PREC_U 0x1.0p-24             /* unit roundoff of binary32 */
#define PREC_TARGET_RETURNS 20000000 /* K*M per segment length, roughly */

/* The error statistics of one segment length m over k segments; RAID_OK or the failing status. */
static raid_status prec_point(raid_ctx *dev, raid_ctx *cpu, int64_t m, int64_t k, uint64_t seed, double out[4])
{
    raid_sim_opts o;
    raid_sim_opts_init(&o);
    o.seed = seed ^ ((uint64_t)m * UINT64_C(0x9E3779B97F4A7C15)); /* one seed per M */
    o.nsymbols = (int)k; /* segment s is symbol s: its own stream */
    o.ndays = 1;
    o.obs_per_day = m + 1;
    o.vol_of_logvar = 0; /* i.i.d. Gaussian returns, as the prediction assumes */
    o.jump_rate = 0;
    o.noise_sd = 0;
    double *r = malloc((size_t)(k * m) * sizeof *r);
    int64_t *off = malloc((size_t)(k + 1) * sizeof *off);
    raid_realized *a = malloc((size_t)k * sizeof *a), *b = malloc((size_t)k * sizeof *b);
    raid_status st = RAID_OK;
    if (!r || !off || !a || !b)
        st = raidFail(dev, RAID_ENOMEM, "out of memory");
    else if ((st = raid_simulate_returns(&o, r, NULL)) != RAID_OK)
        st = raidFail(dev, st, "%s", raid_errmsg()); /* "simulate: ..." */
    if (st == RAID_OK) {
        for (int64_t s = 0; s <= k; s++)
            off[s] = s * m;
        if ((st = raid_realized_compute(dev, r, off, (size_t)k, a)) != RAID_OK) {
            st = raidFail(dev, st, "%s: %s", raid_ctx_device_name(dev), raid_ctx_errmsg(dev)); /* formatted aside */
        } else if ((st = raid_realized_compute(cpu, r, off, (size_t)k, b)) != RAID_OK) {
            st = raidFail(dev, st, "cpu: %s", raid_ctx_errmsg(cpu));
        }
    }
    if (st == RAID_OK) {
        double mx = 0, ss = 0;
        for (int64_t s = 0; s < k; s++) {
            const double e = fabs(a[s].rv - b[s].rv) / b[s].rv;
            if (!(e <= mx))
                mx = e; /* also propagates a NAN */
            ss += e * e;
        }
        out[0] = mx;
        out[1] = sqrt(ss / (double)k);
        out[2] = 2.0 * PREC_U * sqrt(3.0 / (double)m);
        out[3] = sqrt(2.0 * log((double)k)) * out[2];
    }
    free(r), free(off), free(a), free(b);
    return st;
}

raid_status raid_precision_curve(raid_ctx *dev, raid_ctx *cpu, int64_t max_m, int64_t segments, uint64_t seed,
                                 int64_t *m, int64_t *k, double *max_err, double *rms_err, double *rms_pred,
                                 double *max_pred, size_t *npoints)
{
    if (!dev || !cpu || !m || !k || !max_err || !rms_err || !rms_pred || !max_pred || !npoints)
        return raidFail(dev, RAID_EINVAL, "raid_precision_curve: NULL argument");
    if (max_m < 10 || max_m > 10000000 || segments < 1 || segments > 1000000)
        return raidFail(dev, RAID_EINVAL, "raid_precision_curve: max_m must be in [10, 10^7] and segments in "
                         "[1, 10^6]");
    /* Segment lengths 10, 30, 100, 300, ... up to max_m. */
    size_t n = 0;
    for (int64_t p = 10; p <= max_m && n < RAID_PRECISION_MAX_POINTS; p *= 10) {
        m[n++] = p;
        if (3 * p <= max_m && n < RAID_PRECISION_MAX_POINTS)
            m[n++] = 3 * p;
    }
    *npoints = 0;
    for (size_t i = 0; i < n; i++) {
        int64_t kk = PREC_TARGET_RETURNS / m[i];
        if (kk < 4)
            kk = 4;
        if (kk > segments)
            kk = segments;
        k[i] = kk;
        double v[4];
        const raid_status st = prec_point(dev, cpu, m[i], kk, seed, v);
        if (st != RAID_OK)
            return st;
        max_err[i] = v[0], rms_err[i] = v[1], rms_pred[i] = v[2], max_pred[i] = v[3];
    }
    assert(n > 0);
    *npoints = n;
    return RAID_OK;
}
