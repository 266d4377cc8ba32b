/*
 * Device pass of the residual cross-products (kernels/meat.cl), through the chunk plan and the batch
 * pipeline shared with the other kernels, for problems given as row ranges that may overlap (rolling
 * windows share rows but not coefficients):
 *   1. the host forms the scores u_t = e_t x_t of each problem's rows in float64 (raid_reg_score) while it
 *      converts them; each problem is scaled by a power of two 2^-e with max |u| 2^-e in [0.5, 1);
 *   2. one work-group per chunk of MEAT_CHUNK rows sums u_t[p] u_{t-l}[q] over the pairs inside the chunk
 *      in double-float, one (l, p, q) per work-item;
 *   3. the host combines the chunks' partials in float64 in chunk order, unscales the sums (2^(2e)), and adds
 *      the pairs that straddle chunk boundaries in float64 from u itself.
 * Bound, relative to sum |u_t[p] u_{t-l}[q]|: df 2e-11 (values to 2^-48, up to MEAT_CHUNK sequential
 * double-float additions at 3u^2), f32 2u(1 + u) + 2e-11.
 */
#include "backend/chunk_launch.h"
#include "plan/chunk_plan.h"
#include "regress/ols_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MEAT_CHUNK 512

typedef struct meat_prep {
    const double *X, *y, *beta;
    int k;
    raid_precision prec;
    const int *ex;
} meat_prep;

static void convert_scores(void *user, const raid_chunk_plan *plan, size_t first, size_t count, const cl_uint *table,
                           void *staging)
{
    const meat_prep *mp = user;
    const int k = mp->k;
    const long long n = (long long)count;
#pragma omp parallel for schedule(static)
    for (long long i = 0; i < n; i++) {
        const raid_chunk *ch = &plan->chunks[first + (size_t)i];
        const double f = ldexp(1.0, -mp->ex[ch->seg]);
        double u[RAID_REG_MAX_K];
        for (uint32_t j = 0; j < ch->len; j++) {
            raid_reg_score(mp->X, mp->y, k, ch->start + j, mp->beta + (size_t)ch->seg * k, u);
            for (int p = 0; p < k; p++)
                raid_stage_value(staging, ((size_t)table[2 * i] + j) * (size_t)k + p, u[p] * f, mp->prec);
        }
    }
}

raid_status raid_reg_meat_cl(raid_ctx *ctx, const double *X, const double *y, int k, const int64_t *start,
                             const int64_t *end, size_t nreg, const double *beta, int max_lag, double *out)
{
    const raid_precision prec = ctx->precision;
    const size_t nc = (size_t)(max_lag + 1) * (size_t)k * (size_t)k;
    const size_t local_need = (size_t)MEAT_CHUNK * k * (prec == RAID_PREC_DF ? 2 : 1) * sizeof(float);
    if (local_need > raid_cl_local_mem(ctx))
        return raid_fail(ctx, RAID_EUNSUPPORTED, "the meat kernel needs %zu bytes of local memory", local_need);
    char opts[512];
    snprintf(opts, sizeof opts, "-DRAID_WG=%zu -DRAID_CHUNK=%d -DRAID_K=%d -DRAID_L=%d -DRAID_INPUT_DF=%d %s",
             ctx->wg_width, MEAT_CHUNK, k, max_lag, prec == RAID_PREC_DF, ctx->cl_extra_options);
    cl_kernel kern;
    raid_status st = raid_cl_kernel(ctx, "meat.cl", "reg_meat", opts, &kern);
    if (st != RAID_OK)
        return st;
    memset(&ctx->timing, 0, sizeof ctx->timing);
    const size_t ng = nreg ? nreg : 1;
    int *ex = calloc(ng, sizeof *ex);
    raid_chunk_plan plan;
    memset(&plan, 0, sizeof plan);
    if (!ex) {
        st = raid_fail(ctx, RAID_ENOMEM, "out of memory");
        goto done;
    }
    long long bad = -1;
    const long long ngl = (long long)nreg;
#pragma omp parallel for schedule(dynamic, 4)
    for (long long g = 0; g < ngl; g++) {
        double mx = 0, u[RAID_REG_MAX_K];
        int ok = 1;
        for (int64_t t = start[g]; t < end[g]; t++) {
            ok &= raid_reg_score(X, y, k, t, beta + (size_t)g * k, u);
            for (int p = 0; p < k; p++)
                mx = fmax(mx, fabs(u[p]));
        }
        if (!ok) {
#pragma omp critical(raid_meat_cl_bad)
            if (bad < 0 || g < bad)
                bad = g;
        }
        if (mx > 0)
            frexp(mx, &ex[g]);
    }
    if (bad >= 0) {
        st = raid_fail(ctx, RAID_EINVAL, "problem %lld: a residual times a regressor is not finite (X or y not finite, "
                       "or overflow)", bad);
        goto done;
    }
    memset(out, 0, nreg * nc * sizeof *out);
    if ((st = raid_plan_build_ranges(&plan, start, end, nreg, MEAT_CHUNK)) != RAID_OK) {
        st = raid_fail(ctx, st, "cannot plan %zu problems", nreg);
        goto done;
    }
    {
        meat_prep mp = {X, y, beta, k, prec, ex};
        raid_chunk_job job = {&plan, kern, ctx->wg_width, (size_t)k * (prec == RAID_PREC_F32 ? 4 : 8), 1, nc,
                              convert_scores, &mp, NULL, out, "the meat kernel"};
        if ((st = raid_chunk_launch(ctx, &job)) != RAID_OK)
            goto done;
    }
    /* Unscale (exact: powers of two) once per problem rather than through a scale per partial, which for
     * many windows would be as large as the output. */
    for (size_t g = 0; g < nreg; g++)
        for (size_t c = 0; c < nc; c++)
            out[g * nc + c] = ldexp(out[g * nc + c], 2 * ex[g]);
    /* Pairs (t, t-l) with t-l in an earlier chunk of the same problem, in float64. */
    for (size_t c = 0; c < plan.nchunks; c++) {
        const raid_chunk *ch = &plan.chunks[c];
        const int64_t s0 = start[ch->seg], cs = ch->start;
        if (cs == s0)
            continue;
        double *o = out + (size_t)ch->seg * nc;
        const double *b = beta + (size_t)ch->seg * k;
        for (int64_t t = cs; t < cs + (int64_t)ch->len && t < cs + max_lag; t++) {
            double ut[RAID_REG_MAX_K], us[RAID_REG_MAX_K];
            raid_reg_score(X, y, k, t, b, ut);
            for (int l = (int)(t - cs) + 1; l <= max_lag && t - l >= s0; l++) {
                raid_reg_score(X, y, k, t - l, b, us);
                for (int p = 0; p < k; p++)
                    for (int q = 0; q < k; q++)
                        o[((size_t)l * k + p) * k + q] += ut[p] * us[q];
            }
        }
    }
    st = RAID_OK;
done:
    free(ex);
    raid_plan_free(&plan);
    return st;
}
