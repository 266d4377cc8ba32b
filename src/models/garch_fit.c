/* The float64 host optimiser of one series' GARCH-family likelihood: BFGS on an unconstrained
 * reparameterisation with a backtracking Armijo line search (Nocedal and Wright 2006, algorithms 3.1
 * and 6.1, the initial scaling 6.20). docs/garch.md gives the mapping and the rules. */
#include "models/garch_fit.h"

#include <assert.h>
#include <math.h>
#include <string.h>

enum { K = RAID_GARCH_LIK_MAXPAR };

/* Positions in theta (and x: the same layout), -1 when absent. */
typedef struct fitmap {
    raid_garch_lik_spec spec;
    size_t k;
    int imu, iom, ial, iga, ibe, inu;
    double mbar, s; /* sample mean and standard deviation of the returns */
} fitmap;

static fitmap make_map(const raid_garch_lik_spec *spec, double mbar, double s)
{
    fitmap m = {*spec, raid_garch_lik_npar(spec), -1, -1, -1, -1, -1, -1, mbar, s};
    int i = 0;
    if (spec->mean == RAID_GARCH_LIK_MEAN_CONSTANT) m.imu = i++;
    m.iom = i++;
    m.ial = i++;
    if (spec->model != RAID_GARCH_LIK_GARCH) m.iga = i++;
    m.ibe = i++;
    if (spec->dist == RAID_GARCH_LIK_T) m.inu = i++;
    assert((size_t)i == m.k);
    return m;
}

static double logistic(double y) { return y >= 0 ? 1 / (1 + exp(-y)) : exp(y) / (1 + exp(y)); }

/* GARCH/GJR persistence block: p = logistic(y) = alpha + gamma/2 + beta, split by w = softmax(z, 0)
 * into components c_i = mult_i p w_i: GARCH c = (alpha, beta), mult (1, 1), z in the alpha slot;
 * GJR c = (alpha, alpha + gamma, beta), mult (2, 2, 1), z in the alpha and gamma slots. y sits in the
 * beta slot. */
static size_t block(const fitmap *m, const double *x, double *p, double *w, double *mult)
{
    const size_t nc = m->spec.model == RAID_GARCH_LIK_GJR ? 3 : 2;
    double z[3] = {x[m->ial], nc == 3 ? x[m->iga] : 0, 0};
    z[nc - 1] = 0;
    double zmax = 0;
    for (size_t i = 0; i < nc; i++) zmax = z[i] > zmax ? z[i] : zmax;
    double sum = 0;
    for (size_t i = 0; i < nc; i++) sum += (w[i] = exp(z[i] - zmax));
    for (size_t i = 0; i < nc; i++) w[i] /= sum;
    *p = logistic(x[m->ibe]);
    mult[0] = nc == 3 ? 2 : 1;
    mult[1] = nc == 3 ? 2 : 1;
    mult[2] = 1;
    return nc;
}

static void to_theta(const fitmap *m, const double *x, double *th)
{
    if (m->imu >= 0) th[m->imu] = m->mbar + m->s * x[m->imu];
    if (m->inu >= 0) th[m->inu] = 2 + exp(x[m->inu]);
    if (m->spec.model == RAID_GARCH_LIK_EGARCH) {
        th[m->iom] = x[m->iom];
        th[m->ial] = x[m->ial];
        th[m->iga] = x[m->iga];
        th[m->ibe] = tanh(x[m->ibe]);
        return;
    }
    th[m->iom] = m->s * m->s * exp(x[m->iom]);
    double p, w[3], mult[3];
    const size_t nc = block(m, x, &p, w, mult);
    if (nc == 2) {
        th[m->ial] = p * w[0];
        th[m->ibe] = p * w[1];
    } else {
        th[m->ial] = 2 * p * w[0];
        th[m->iga] = 2 * p * w[1] - 2 * p * w[0];
        th[m->ibe] = p * w[2];
    }
}

/* gx = J' gth, J = d theta / d x at x. */
static void chain(const fitmap *m, const double *x, const double *th, const double *gth, double *gx)
{
    if (m->imu >= 0) gx[m->imu] = m->s * gth[m->imu];
    if (m->inu >= 0) gx[m->inu] = (th[m->inu] - 2) * gth[m->inu];
    if (m->spec.model == RAID_GARCH_LIK_EGARCH) {
        gx[m->iom] = gth[m->iom];
        gx[m->ial] = gth[m->ial];
        gx[m->iga] = gth[m->iga];
        gx[m->ibe] = (1 - th[m->ibe] * th[m->ibe]) * gth[m->ibe];
        return;
    }
    gx[m->iom] = th[m->iom] * gth[m->iom];
    double p, w[3], mult[3], gc[3];
    const size_t nc = block(m, x, &p, w, mult);
    if (nc == 2) {
        gc[0] = gth[m->ial];
        gc[1] = gth[m->ibe];
    } else { /* alpha = c0, gamma = c1 - c0, beta = c2 */
        gc[0] = gth[m->ial] - gth[m->iga];
        gc[1] = gth[m->iga];
        gc[2] = gth[m->ibe];
    }
    double gy = 0;
    for (size_t i = 0; i < nc; i++) gy += gc[i] * mult[i] * p * (1 - p) * w[i];
    gx[m->ibe] = gy;
    const int zslot[2] = {m->ial, m->iga};
    for (size_t j = 0; j + 1 < nc; j++) {
        double g = 0;
        for (size_t i = 0; i < nc; i++) g += gc[i] * mult[i] * p * w[i] * ((i == j) - w[j]);
        gx[zslot[j]] = g;
    }
}

/* x from a valid theta (GARCH/GJR: alpha > 0, alpha + gamma > 0, beta > 0, p < 1). */
static void from_theta(const fitmap *m, const double *th, double *x)
{
    if (m->imu >= 0) x[m->imu] = (th[m->imu] - m->mbar) / m->s;
    if (m->inu >= 0) x[m->inu] = log(th[m->inu] - 2);
    if (m->spec.model == RAID_GARCH_LIK_EGARCH) {
        x[m->iom] = th[m->iom];
        x[m->ial] = th[m->ial];
        x[m->iga] = th[m->iga];
        x[m->ibe] = atanh(th[m->ibe]);
        return;
    }
    x[m->iom] = log(th[m->iom] / (m->s * m->s));
    const double ga = m->iga >= 0 ? th[m->iga] : 0;
    const double p = th[m->ial] + ga / 2 + th[m->ibe];
    x[m->ibe] = log(p / (1 - p));
    if (m->iga < 0) {
        x[m->ial] = log(th[m->ial] / th[m->ibe]);
    } else { /* w = (alpha/2, (alpha + gamma)/2, beta) / p */
        x[m->ial] = log(th[m->ial] / 2 / th[m->ibe]);
        x[m->iga] = log((th[m->ial] + ga) / 2 / th[m->ibe]);
    }
}

/* Negative log-likelihood and its gradient in x. */
static double fx(const fitmap *m, const double *r, size_t T, const double *x, double *gx, size_t *nfev)
{
    double th[K], gth[K];
    to_theta(m, x, th);
    ++*nfev;
    const double f = raid_garch_lik_nll(&m->spec, r, T, th, gth);
    if (isfinite(f)) {
        chain(m, x, th, gth, gx);
        for (size_t i = 0; i < m->k; i++)
            if (!isfinite(gx[i])) return INFINITY;
    }
    return f;
}

static double scaled_gnorm(size_t k, const double *g, double f)
{
    double gmax = 0;
    for (size_t i = 0; i < k; i++) gmax = fmax(gmax, fabs(g[i]));
    return gmax / fmax(1, fabs(f));
}

/* Towards the edge of the parameter space at x (see docs/garch.md). */
static int at_boundary(const fitmap *m, const double *x, const double *th)
{
    const double eps = 1e-6;
    if (m->inu >= 0 && th[m->inu] > 500) return 1;
    if (m->spec.model == RAID_GARCH_LIK_EGARCH) return fabs(th[m->ibe]) > 1 - eps;
    double p, w[3], mult[3];
    const size_t nc = block(m, x, &p, w, mult);
    if (p > 1 - eps) return 1;
    for (size_t i = 0; i < nc; i++)
        if (w[i] < eps) return 1;
    return 0;
}

const char *raid_garch_fit_status_name(raid_garch_fit_status s)
{
    switch (s) {
    case RAID_GARCH_FIT_CONVERGED: return "converged";
    case RAID_GARCH_FIT_MAXITER: return "iteration limit";
    case RAID_GARCH_FIT_TOO_SHORT: return "too short";
    case RAID_GARCH_FIT_CONSTANT: return "constant series";
    case RAID_GARCH_FIT_NONFINITE: return "non-finite input";
    case RAID_GARCH_FIT_BOUNDARY: return "boundary solution";
    case RAID_GARCH_FIT_NO_PROGRESS: return "no progress";
    case RAID_GARCH_FIT_NO_START: return "no valid start";
    }
    return "unknown";
}

/* Grid of starts: persistence 0.90/0.95/0.98 x alpha 0.05/0.10 (GJR: alpha/2 and gamma alpha, so
 * that alpha + gamma/2 = the grid's alpha; EGARCH: beta the persistence, alpha twice the grid's, gamma
 * 0); omega from the sample variance; mu the sample mean; nu 8. */
enum { NSTART = 6 };
static void grid_start(const fitmap *m, size_t i, double var, double *th)
{
    static const double pers[3] = {0.90, 0.95, 0.98}, alph[2] = {0.05, 0.10};
    const double p = pers[i / 2], a = alph[i % 2];
    if (m->imu >= 0) th[m->imu] = m->mbar;
    if (m->inu >= 0) th[m->inu] = 8;
    if (m->spec.model == RAID_GARCH_LIK_EGARCH) {
        th[m->iom] = (1 - p) * log(var);
        th[m->ial] = 2 * a;
        th[m->iga] = 0;
        th[m->ibe] = p;
        return;
    }
    th[m->iom] = var * (1 - p);
    if (m->iga >= 0) {
        th[m->ial] = a / 2;
        th[m->iga] = a;
    } else {
        th[m->ial] = a;
    }
    th[m->ibe] = p - a;
}

raid_garch_fit_status raid_garch_fit_one(const raid_garch_lik_spec *spec, const double *r, size_t T,
                                         const raid_garch_fit_opts *opts, raid_garch_fit_result *out)
{
    assert(spec && out && (r || T == 0));
    const size_t max_iter = opts && opts->max_iter ? opts->max_iter : 500;
    const double gtol = opts && opts->gtol > 0 ? opts->gtol : 1e-10;
    const double xtol = opts && opts->xtol > 0 ? opts->xtol : 1e-12;
    const size_t k = raid_garch_lik_npar(spec);

    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < K; i++) out->theta[i] = out->grad[i] = NAN;
    out->loglik = out->gnorm = NAN;

    for (size_t t = 0; t < T; t++)
        if (!isfinite(r[t])) return out->status = RAID_GARCH_FIT_NONFINITE;
    if (T < RAID_GARCH_FIT_MIN_T) return out->status = RAID_GARCH_FIT_TOO_SHORT;
    int constant = 1;
    for (size_t t = 1; t < T && constant; t++) constant = r[t] == r[0];
    if (constant) return out->status = RAID_GARCH_FIT_CONSTANT;

    long double sum = 0, ss = 0;
    for (size_t t = 0; t < T; t++) sum += r[t];
    const double mbar = (double)(sum / T);
    for (size_t t = 0; t < T; t++) ss += ((long double)r[t] - mbar) * ((long double)r[t] - mbar);
    double var = (double)(ss / T);
    if (spec->mean == RAID_GARCH_LIK_MEAN_ZERO) var += mbar * mbar; /* the mean square */
    if (!(var > 0) || !isfinite(var)) return out->status = RAID_GARCH_FIT_CONSTANT;
    const fitmap m = make_map(spec, mbar, sqrt(var));

    /* The best start of the grid. */
    double x[K], g[K], f = INFINITY;
    for (size_t i = 0; i < NSTART; i++) {
        double th[K], xi[K];
        grid_start(&m, i, var, th);
        from_theta(&m, th, xi);
        to_theta(&m, xi, th);
        out->nfev++;
        const double fi = raid_garch_lik_nll(spec, r, T, th, NULL);
        if (fi < f) {
            f = fi;
            memcpy(x, xi, sizeof x);
            out->start = i;
        }
    }
    if (!isfinite(f)) return out->status = RAID_GARCH_FIT_NO_START;
    f = fx(&m, r, T, x, g, &out->nfev);
    assert(isfinite(f));

    /* BFGS on x: H the inverse Hessian approximation, the identity until the first update is scaled. */
    double H[K][K] = {{0}};
    int fresh = 1;
    raid_garch_fit_status st = RAID_GARCH_FIT_MAXITER;
    for (;;) {
        if (scaled_gnorm(k, g, f) <= gtol) {
            st = RAID_GARCH_FIT_CONVERGED;
            break;
        }
        /* At an edge, x runs off to infinity along a flat ridge: stop once the gradient is 100 gtol. */
        if (scaled_gnorm(k, g, f) <= 100 * gtol) {
            double th[K];
            to_theta(&m, x, th);
            if (at_boundary(&m, x, th)) break; /* BOUNDARY below */
        }
        if (out->iterations == max_iter) break;
        if (fresh) {
            for (size_t i = 0; i < k; i++)
                for (size_t j = 0; j < k; j++) H[i][j] = i == j;
        }
        double d[K], slope = 0, dmax = 0;
        for (size_t i = 0; i < k; i++) {
            d[i] = 0;
            for (size_t j = 0; j < k; j++) d[i] -= H[i][j] * g[j];
            slope += d[i] * g[i];
            dmax = fmax(dmax, fabs(d[i]));
        }
        if (!(slope < 0)) { /* not a descent direction: restart from steepest descent */
            if (fresh) {
                st = RAID_GARCH_FIT_NO_PROGRESS;
                break;
            }
            fresh = 1;
            continue;
        }
        /* Backtracking Armijo (c1 = 1e-4), the first trial step at most 1 in every x. */
        double a = dmax > 1 ? 1 / dmax : 1, xn[K], gn[K], fn = INFINITY;
        int ok = 0;
        for (int ls = 0; ls < 60; ls++, a *= 0.5) {
            for (size_t i = 0; i < k; i++) xn[i] = x[i] + a * d[i];
            fn = fx(&m, r, T, xn, gn, &out->nfev);
            if (!isfinite(fn)) continue;
            /* Armijo, or a decrease lost in the rounding of f with a smaller gradient (near the optimum
             * the decrease, about |g|^2 / curvature, falls below u |f| before the gradient is small). */
            if (fn <= f + 1e-4 * a * slope ||
                (fn <= f + 1e-13 * fabs(f) && scaled_gnorm(k, gn, fn) < scaled_gnorm(k, g, f))) {
                ok = 1;
                break;
            }
        }
        out->iterations++;
        if (!ok) {
            if (fresh) {
                st = RAID_GARCH_FIT_NO_PROGRESS;
                break;
            }
            fresh = 1;
            continue;
        }
        double s[K], y[K], sy = 0, yy = 0, ss2 = 0, smax = 0;
        for (size_t i = 0; i < k; i++) {
            s[i] = xn[i] - x[i];
            y[i] = gn[i] - g[i];
            sy += s[i] * y[i];
            yy += y[i] * y[i];
            ss2 += s[i] * s[i];
            smax = fmax(smax, fabs(s[i]) / (1 + fabs(xn[i])));
        }
        memcpy(x, xn, sizeof x);
        memcpy(g, gn, sizeof g);
        f = fn;
        if (smax <= xtol) {
            st = scaled_gnorm(k, g, f) <= gtol ? RAID_GARCH_FIT_CONVERGED : RAID_GARCH_FIT_NO_PROGRESS;
            break;
        }
        if (sy > 1e-12 * sqrt(ss2 * yy)) { /* curvature condition; otherwise skip the update */
            if (fresh) {
                for (size_t i = 0; i < k; i++) H[i][i] = sy / yy;
                fresh = 0;
            }
            double Hy[K], yHy = 0;
            for (size_t i = 0; i < k; i++) {
                Hy[i] = 0;
                for (size_t j = 0; j < k; j++) Hy[i] += H[i][j] * y[j];
                yHy += y[i] * Hy[i];
            }
            const double rho = 1 / sy;
            for (size_t i = 0; i < k; i++)
                for (size_t j = 0; j < k; j++)
                    H[i][j] += -rho * (Hy[i] * s[j] + s[i] * Hy[j]) + rho * (1 + rho * yHy) * s[i] * s[j];
        }
    }

    double th[K], gth[K];
    to_theta(&m, x, th);
    out->nfev++;
    const double fth = raid_garch_lik_nll(spec, r, T, th, gth);
    for (size_t i = 0; i < k; i++) {
        out->theta[i] = th[i];
        out->grad[i] = gth[i];
    }
    out->loglik = -fth;
    out->gnorm = scaled_gnorm(k, g, f);
    if (at_boundary(&m, x, th)) st = RAID_GARCH_FIT_BOUNDARY; /* converged or not, the edge is the news */
    return out->status = st;
}
