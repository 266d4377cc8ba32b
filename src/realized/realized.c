/* Public entry of the realized measures: validation, the dispatch through raidRealizedBackends (the cpu
 * path, realized_cpu.c; the device path, realized_device.c), bounds and the --check diff. */
#include "realized/realized_internal.h"

#include "device/device.h"

#include <math.h>
#include <stdlib.h>

const char *const raid_realized_names[RAID_REALIZED_NMEASURES] = {"rv",  "bpv",   "rs_neg", "rs_pos", "rq",
                                                                   "tpq", "medrv", "jump_z", "jump_p"};

double raid_realized_get(const raid_realized *x, int k)
{
    switch (k) {
    case 0: return x->rv;
    case 1: return x->bpv;
    case 2: return x->rs_neg;
    case 3: return x->rs_pos;
    case 4: return x->rq;
    case 5: return x->tpq;
    case 6: return x->medrv;
    case 7: return x->jump_z;
    case 8: return x->jump_p;
    default: return NAN;
    }
}

raid_status raidRealizedCheckRangeAt(raid_ctx *ctx, const double *r, int64_t n, int64_t first)
{
    int64_t bad = n; /* the first return out of range, found in parallel (a serial pass over 1e8 returns
                        was a tenth of the cpu path's time) */
#pragma omp parallel for schedule(static) reduction(min : bad) if (n > 65536)
    for (int64_t i = 0; i < n; i++)
        if (!(fabs(r[i]) <= RAID_MAX_RETURN) && i < bad)
            bad = i;
    if (bad < n)
        return raidFail(ctx, RAID_EINVAL, "return %lld is %s (returns must be finite and at most 1e74 in magnitude)",
                         (long long)(first + bad), isfinite(r[bad]) ? "out of range" : "not finite");
    return RAID_OK;
}

raid_status raidRealizedCheckRange(raid_ctx *ctx, const double *r, int64_t i0, int64_t i1)
{
    return raidRealizedCheckRangeAt(ctx, r + i0, i1 - i0, i0);
}

raid_status raidRealizedArgs(raid_ctx *ctx, const double *r, const int64_t *offsets, size_t nseg,
                               const void *out)
{
    if (!ctx)
        return raidFail(NULL, RAID_EINVAL, "raid_realized_compute: ctx is NULL");
    if (!offsets || (!out && nseg))
        return raidFail(ctx, RAID_EINVAL, "NULL argument");
    ctx->errmsg[0] = 0;
    for (size_t s = 0; s < nseg; s++)
        if (offsets[s + 1] < offsets[s])
            return raidFail(ctx, RAID_EINVAL, "offsets decrease at segment %zu", s);
    if (nseg && offsets[nseg] > offsets[0] && !r)
        return raidFail(ctx, RAID_EINVAL, "NULL returns");
    if (nseg && offsets[0] < 0)
        return raidFail(ctx, RAID_EINVAL, "negative offset");
    return RAID_OK;
}

raid_status raid_realized_compute(raid_ctx *ctx, const double *r, const int64_t *offsets, size_t nseg,
                                  raid_realized *out)
{
    raid_status a = raidRealizedArgs(ctx, r, offsets, nseg, out);
    if (a != RAID_OK)
        return a;
    /* returns in CUDA device memory: read in place by a CUDA context of their device (realized_device.c),
     * refused elsewhere (the cpu path would read them on the host) */
    RaidMemKind k;
    if (nseg && offsets[nseg] > offsets[0] &&
        (a = raidMemKindOf(ctx, r + offsets[0], (size_t)(offsets[nseg] - offsets[0]) * sizeof *r, sizeof *r,
                           "raid_realized_compute: returns", &k)) != RAID_OK)
        return a;
    return RAID_BACKEND(raidRealizedBackends, ctx)->compute(ctx, r, offsets, nseg, out);
}

const RaidRealizedBackend raidRealizedBackends[2] = {
    [RAID_ON_CPU] = {raidRealizedCpuCompute, 1},
    [RAID_ON_DEVICE] = {raidRealizedDeviceCompute, 0},
};

/*
 * Worst-case relative error of the device path against float64 (docs/precision.md has the derivation),
 * u = 2^-24, for the kernel's default configuration (RAID_FOLD of kernels/realized.cl):
 *   input rounding: f32 rounds each return with relative error <= u, df splits it into hi + lo with
 *     relative error <= u^2; a term that is a product of p returns (p = 2 for rv, bpv, rs_neg, rs_pos,
 *     medrv; p = 4 for rq and tpq) then has relative error <= (1 + e)^p - 1, and a sum of non-negative
 *     terms no more.
 *   df formation and accumulation: terms within 4u^2 (squares), 6u^2 (bpv), 22u^2 (rq), 78u^2 (tpq:
 *     the window's product within 18u^2, its 4/3 power within 45u^2: 69u^2); n <= 64 terms per
 *     work-item accumulated with a renormalisation every G terms within (2n + 9 + n(G+1)/2 + 9G) u^2
 *     (G = 8 for n <= 16, 4 for n = 32, 1 for n = 64: at most 210 u^2), a tree of at most 10 raidDfAdd
 *     within 30 u^2, the float64 combine within 1e-15: at most 1e-12 relative, 2e-12 for tpq.
 *   f32 formation and accumulation: each term rounded once into a plain float run sum of at most
 *     G = 8 terms (gamma_8 = 8u / (1 - 8u) of the run's sum), the runs folded into double-float as
 *     above (below 1e-12); rq's square rounded once more ((1 + u)^2), tpq's window product twice
 *     (4/3 of (1 + u)^2) and its 4/3 power within 4u (raidPow23F: 3.25u).
 *   jump_z and jump_p: scaled errors (raid_realized_diff) bounded by the larger of eps_bpv + eps_rv and
 *     (eps_tpq + 2 eps_bpv) / 2, times 1.01 for second-order terms.
 * seen = 1 leaves out the input rounding: the bound against float64 run on the values the device saw.
 */
static double device_bound(raid_precision p, int k, int seen)
{
    const double u = ldexp(1.0, -24);
    const double e_in = seen ? 0.0 : (p == RAID_PREC_F32 ? u : u * u);
    /* f32: the run sums' gamma_8 and the extra roundings of rq's and tpq's terms */
    const double run = p == RAID_PREC_F32 ? 8 * u / (1 - 8 * u) : 0.0;
    const double sq = p == RAID_PREC_F32 ? pow(1 + u, 2) : 1.0;
    const double tp = p == RAID_PREC_F32 ? pow(1 + u, 8.0 / 3) * (1 + 4 * u) : 1.0;
    const double e2 = pow(1 + e_in, 2) * (1 + run) - 1 + 1e-12;
    const double e4 = pow(1 + e_in, 4) * sq * (1 + run) - 1 + 1e-12;
    const double e_tpq = pow(1 + e_in, 4) * tp * (1 + run) - 1 + 2e-12;
    switch (k) {
    case 0: case 1: case 2: case 3: case 6: return e2;
    case 4: return e4;
    case 5: return e_tpq;
    case 7:
    case 8: {
        const double a = e2 + e2, b = (e_tpq + 2 * e2) / 2;
        return 1.01 * (a > b ? a : b);
    }
    default: return NAN;
    }
}

double raid_realized_bound(raid_precision p, int k, int64_t M)
{
    (void)M;
    return device_bound(p, k, 0);
}

double raidRealizedBoundSeen(raid_precision p, int k)
{
    return device_bound(p, k, 1);
}

static double phi(double z) { return exp(-0.5 * z * z) / sqrt(2.0 * 3.14159265358979323846); }

double raid_realized_diff(const raid_realized *a, const raid_realized *b, int k)
{
    const double x = raid_realized_get(a, k), y = raid_realized_get(b, k);
    if (isnan(x) && isnan(y))
        return 0.0;
    if (isnan(x) || isnan(y))
        return INFINITY;
    if (x == y)
        return 0.0;
    if (k < 7)
        return fabs(x - y) / fabs(y);
    /* Scale of jump_z: its sensitivity to relative errors of bpv/rv and of the denominator. */
    const double theta = 3.14159265358979323846 * 3.14159265358979323846 / 4.0 + 3.14159265358979323846 - 5.0;
    const double ratio = b->tpq / (b->bpv * b->bpv);
    const double den = sqrt(theta * (ratio > 1.0 ? ratio : 1.0));
    const double scale_z = sqrt((double)b->n) * (b->bpv / b->rv) / den + fabs(b->jump_z);
    if (k == 7)
        return fabs(x - y) / scale_z;
    /* jump_p = 1 - Phi(z): |dp| <= phi(m) |dz| with m the distance of [z_a, z_b] from 0. */
    const double za = a->jump_z, zb = b->jump_z;
    const double m = (za > 0) == (zb > 0) ? fmin(fabs(za), fabs(zb)) : 0.0;
    const double s = phi(m) * scale_z;
    return s > 0 ? fabs(x - y) / s : INFINITY;
}
