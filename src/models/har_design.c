/* The HAR design of one series (raid_har_design, include/raid/har.h): regressors and targets in
 * float64 on the host, models of Corsi (2009), Andersen, Bollerslev and Diebold (2007) and Bollerslev,
 * Patton and Quaedvlieg (2016). */
#include "models/har_internal.h"
#include "core/internal.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>

/* The transform f of a day's value: v, log v or sqrt v. */
static double har_f(int transform, double v)
{
    switch (transform) {
    case RAID_HAR_LOG: return log(v);
    case RAID_HAR_SQRT: return sqrt(v);
    default: return v;
    }
}

/* The jump regressor's transform: log(1 + J) for log (J is often 0), sqrt and identity otherwise. */
static double har_fj(int transform, double j)
{
    return transform == RAID_HAR_LOG ? log1p(j) : har_f(transform, j);
}

/* f^-1: the naive back-transform of a fitted value to the variance scale (no bias correction). */
double raidHarFinv(int transform, double v)
{
    switch (transform) {
    case RAID_HAR_LOG: return exp(v);
    case RAID_HAR_SQRT: return v * v;
    default: return v;
    }
}

/* Contract: X (n x k), y and tix (n) have room for n rows; rv has n values, bpv, rq and jump_p n values or
 * NULL. Returns m <= n rows, or (size_t)-1 when out of memory; *bad = the first invalid day, n if none. */
size_t raidHarDesign(const raid_har_spec *sp, size_t n, const double *rv, const double *bpv, const double *rq,
                  const double *jump_p, double *X, double *y, size_t *tix, size_t *bad)
{
    const int k = raidHarK(sp), maxlag = sp->lags[sp->nlags - 1], h = sp->h;
    assert(k <= RAID_REG_MAX_K && sp->nlags >= 1 && h >= 1);
    *bad = n;
    if (n < (size_t)maxlag + (size_t)h)
        return 0;
    double *a = malloc((n ? n : 1) * sizeof *a); /* the lagged series: f(rv) or f(C) */
    double *jv = malloc((n ? n : 1) * sizeof *jv);
    double *sq = malloc((n ? n : 1) * sizeof *sq);
    double *fy = malloc((n ? n : 1) * sizeof *fy);
    if (!a || !jv || !sq || !fy) {
        free(a), free(jv), free(sq), free(fy);
        return (size_t)-1;
    }
    for (size_t t = 0; t < n; t++) {
        double r = rv[t], b = bpv ? bpv[t] : NAN;
        fy[t] = har_f(sp->transform, r);
        a[t] = fy[t];
        jv[t] = NAN;
        sq[t] = NAN;
        if (sp->model == RAID_HAR_J) {
            jv[t] = har_fj(sp->transform, fmax(r - b, 0.0));
            if (isnan(r - b))
                jv[t] = NAN;
        } else if (sp->model == RAID_HAR_CJ) {
            double p = jump_p ? jump_p[t] : NAN;
            if (isnan(p) || isnan(r) || isnan(b)) {
                a[t] = jv[t] = NAN;
            } else if (p < sp->alpha) {
                a[t] = har_f(sp->transform, b);
                jv[t] = har_fj(sp->transform, fmax(r - b, 0.0));
            } else {
                jv[t] = har_fj(sp->transform, 0.0);
            }
        } else if (sp->model == RAID_HAR_Q) {
            sq[t] = rq ? sqrt(rq[t]) : NAN;
        }
        const int used_j = sp->model == RAID_HAR_J || sp->model == RAID_HAR_CJ, used_q = sp->model == RAID_HAR_Q;
        if (*bad == n && (!isfinite(fy[t]) || !isfinite(a[t]) || (used_j && !isfinite(jv[t])) ||
                          (used_q && !isfinite(sq[t]))))
            *bad = t;
    }
    size_t m = 0;
    for (size_t t = (size_t)maxlag - 1; t + (size_t)h < n; t++) {
        double *x = X + m * (size_t)k;
        int c = 0, ok = 1;
        x[c++] = 1.0;
        for (int l = 0; l < sp->nlags; l++) {
            const int L = sp->lags[l];
            double acc = 0;
            for (size_t i = t + 1 - (size_t)L; i <= t; i++)
                acc += a[i];
            x[c++] = acc / (double)L;
            if (sp->model == RAID_HAR_Q && l == 0)
                x[c++] = sq[t]; /* centred below, once the rows are known */
        }
        if (sp->model == RAID_HAR_J || sp->model == RAID_HAR_CJ)
            x[c++] = jv[t];
        double acc = 0;
        for (size_t i = t + 1; i <= t + (size_t)h; i++)
            acc += fy[i];
        double yy = acc / (double)h;
        for (int j = 0; j < k; j++)
            ok &= isfinite(x[j]) != 0;
        if (!ok || !isfinite(yy))
            continue;
        y[m] = yy;
        tix[m] = t;
        m++;
    }
    if (sp->model == RAID_HAR_Q && m) { /* rq_rv = rv_t (sqrt(rq_t) - mean over the rows of sqrt(rq)) */
        double acc = 0;
        for (size_t r = 0; r < m; r++)
            acc += X[r * (size_t)k + 2];
        const double mq = acc / (double)m;
        for (size_t r = 0; r < m; r++)
            X[r * (size_t)k + 2] = X[r * (size_t)k + 1] * (X[r * (size_t)k + 2] - mq);
    }
    free(a), free(jv), free(sq), free(fy);
    return m;
}

raid_status raid_har_design(const raid_har_spec *spec, size_t n, const double *rv, const double *bpv,
                            const double *rq, const double *jump_p, double *X, double *y, int64_t *t_index,
                            size_t *m, size_t *first_bad)
{
    if (!spec || !X || !y || !t_index || !m || (n && !rv))
        return raidFail(NULL, RAID_EINVAL, "raid_har_design: NULL argument");
    if (raidHarK(spec) > RAID_REG_MAX_K)
        return raidFail(NULL, RAID_EINVAL, "too many regressors (%d, at most %d)", raidHarK(spec), RAID_REG_MAX_K);
    size_t *tix = malloc((n ? n : 1) * sizeof *tix), bad = n;
    const size_t r = tix ? raidHarDesign(spec, n, rv, bpv, rq, jump_p, X, y, tix, &bad) : (size_t)-1;
    if (r == (size_t)-1) {
        free(tix);
        return raidFail(NULL, RAID_ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < r; i++)
        t_index[i] = (int64_t)tix[i];
    free(tix);
    *m = r;
    if (first_bad)
        *first_bad = bad;
    return RAID_OK;
}
