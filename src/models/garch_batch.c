/* Fitting many GARCH-family series at once: BFGS in lock step over the batched evaluator, then the
 * float64 refinement and inference on the host (garch_batch.h gives the contract, docs/garch.md
 * "Fitting many series" the algorithm).
 *
 * BFGS (Nocedal and Wright 2006, algorithm 6.1, the initial scaling 6.20) with a backtracking Armijo line
 * search (their algorithm 3.1) on an unconstrained reparameterisation x of theta. Every round gathers the
 * trial points of every running series (the grid of starts, then each series' line-search step lengths)
 * into ONE raidGarchEvalRun call; a series that stops drops out. The accepted step of a line search is
 * the first of a, a/2, a/4, ... that passes, however many of them one call carries, so the iterates do not
 * depend on the batch, on the other series or on the number of step lengths per call. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "models/garch_batch.h"

#include <assert.h>
#include <stdio.h>
#include <time.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/garch_eval.h"

enum { K = RAID_GARCH_LIK_MAXPAR, NEWTON_MAX = 6, STALL_ITER = 5 };

/* ------------------------------------------------------------------------------------------------ */
/* The reparameterisation theta <-> x                                                               */
/* ------------------------------------------------------------------------------------------------ */

/* Positions in theta (and x: the same layout), -1 when absent. */
typedef struct fitmap {
    RaidGarchLikSpec spec;
    size_t k;
    int imu, iom, ial, iga, ibe, inu;
    double mbar, s; /* sample mean and standard deviation (zero mean: root mean square) of the returns */
    double ls2;     /* log s^2 */
} fitmap;

static fitmap make_map(const RaidGarchLikSpec *spec, double mbar, double s)
{
    fitmap m = {*spec, raidGarchLikNpar(spec), -1, -1, -1, -1, -1, -1, mbar, s, 2 * log(s)};
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
    if (m->spec.model == RAID_GARCH_LIK_EGARCH) { /* omega in the unit-variance scale: omega' of the doc */
        th[m->ibe] = tanh(x[m->ibe]);
        th[m->iom] = x[m->iom] + (1 - th[m->ibe]) * m->ls2;
        th[m->ial] = x[m->ial];
        th[m->iga] = x[m->iga];
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
        gx[m->ibe] = (1 - th[m->ibe] * th[m->ibe]) * (gth[m->ibe] - m->ls2 * gth[m->iom]);
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

/* x from a valid theta (GARCH/GJR: alpha > 0, alpha + gamma > 0, beta > 0, p < 1; otherwise entries of
 * x are infinite or NaN). */
static void from_theta(const fitmap *m, const double *th, double *x)
{
    if (m->imu >= 0) x[m->imu] = (th[m->imu] - m->mbar) / m->s;
    if (m->inu >= 0) x[m->inu] = log(th[m->inu] - 2);
    if (m->spec.model == RAID_GARCH_LIK_EGARCH) {
        x[m->iom] = th[m->iom] - (1 - th[m->ibe]) * m->ls2;
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

/* max_i |g_i| / T: the gradient in x (scale-free) per observation, so the same in every unit of the
 * returns (the nll shifts by T log s with the unit; its gradient in x does not change). */
static double scaled_gnorm(size_t k, const double *g, size_t T)
{
    double gmax = 0;
    for (size_t i = 0; i < k; i++) gmax = fmax(gmax, fabs(g[i]));
    return gmax / (double)T;
}

/* Within eps of an edge of the parameter space at x (docs/garch.md): the persistence within eps of 1, a
 * share of it (alpha, alpha + gamma, beta) below eps, GARCH/GJR's omega below eps / 100 of the sample
 * variance (omega = s^2 exp(x_omega) -> 0 as x_omega -> -inf: the fit is then an ARCH-free random walk in
 * h, with no curvature in x_omega), EGARCH's |beta| within eps of 1; or nu above 500 (the t tending to the
 * Normal). */
static int near_edge(const fitmap *m, const double *x, const double *th, double eps)
{
    if (m->inu >= 0 && th[m->inu] > 500) return 1;
    if (m->spec.model == RAID_GARCH_LIK_EGARCH) return fabs(th[m->ibe]) > 1 - eps;
    if (!(x[m->iom] >= log(eps / 100))) return 1;
    double p, w[3], mult[3];
    const size_t nc = block(m, x, &p, w, mult);
    if (p > 1 - eps) return 1;
    for (size_t i = 0; i < nc; i++)
        if (w[i] < eps) return 1;
    return 0;
}

/* At an edge: the statuses' test (1e-6). */
static int at_boundary(const fitmap *m, const double *x, const double *th) { return near_edge(m, x, th, 1e-6); }

/* Grid of starts (docs/garch.md "Starts"), after arch's (EGARCH.starting_values and GARCH.starting_values
 * of Python arch: a grid over alpha, gamma and the persistence, the best by likelihood) but smaller, since
 * the two best in different basins are both fitted (below). GARCH/GJR: persistence 0.6/0.8/0.9/0.95/0.98 x
 * alpha 0.01/0.05/0.10 (GJR: alpha/2 and gamma alpha, so that alpha + gamma/2 = the grid's alpha), omega from the
 * sample variance; EGARCH: beta 0.5/0.7/0.9/0.98 x alpha 0.05/0.20 x gamma 0/-0.1, omega (1 - beta) log var;
 * mu the sample mean; nu 8. */
static const double GARCH_PERS[] = {0.6, 0.8, 0.9, 0.95, 0.98}, GARCH_ALPHA[] = {0.01, 0.05, 0.10};
static const double EGARCH_BETA[] = {0.5, 0.7, 0.9, 0.98}, EGARCH_ALPHA[] = {0.05, 0.20}, EGARCH_GAMMA[] = {0, -0.1};
#define NELEM(a) (sizeof(a) / sizeof(a)[0])
/* GJR: the grid's alpha + gamma/2 = a split three ways between the news of either sign: (alpha, alpha +
 * gamma) = (a/2, 3a/2), (a/50, 99a/50) (nearly all on negative returns) and (99a/50, a/50) (nearly all on
 * positive ones). A large return of one sign pushes the share of its side towards 0, and from the first
 * split alone BFGS can then follow beta to 0 as well, to a worse edge point (a 50-sigma positive outlier:
 * GJR-t ended at alpha = beta = 0, 0.73 below the nested GARCH-t fit and 3.2 below arch). */
enum { NSTART_MAX = 45, GJR_SPLITS = 3 };

static size_t nsplit(const fitmap *m) { return m->iga >= 0 ? GJR_SPLITS : 1; }

static size_t nstart(const fitmap *m)
{
    return m->spec.model == RAID_GARCH_LIK_EGARCH ? NELEM(EGARCH_BETA) * NELEM(EGARCH_ALPHA) * NELEM(EGARCH_GAMMA)
                                                  : NELEM(GARCH_PERS) * NELEM(GARCH_ALPHA) * nsplit(m);
}

/* The persistence (EGARCH: beta) of start i. */
static double start_pers(const fitmap *m, size_t i)
{
    if (m->spec.model == RAID_GARCH_LIK_EGARCH) return EGARCH_BETA[i / (NELEM(EGARCH_ALPHA) * NELEM(EGARCH_GAMMA))];
    return GARCH_PERS[i / (NELEM(GARCH_ALPHA) * nsplit(m))];
}

/* The basin of a persistence (EGARCH: beta): 0 below 0.85, 1 above. The second candidate of a fit is the
 * best start in the basin the best start is not in. */
static int basin(double pers) { return pers >= 0.85; }

static void grid_start(const fitmap *m, size_t i, double var, double *th)
{
    const double p = start_pers(m, i);
    if (m->imu >= 0) th[m->imu] = m->mbar;
    if (m->inu >= 0) th[m->inu] = 8;
    if (m->spec.model == RAID_GARCH_LIK_EGARCH) {
        th[m->iom] = (1 - p) * log(var);
        th[m->ial] = EGARCH_ALPHA[i / NELEM(EGARCH_GAMMA) % NELEM(EGARCH_ALPHA)];
        th[m->iga] = EGARCH_GAMMA[i % NELEM(EGARCH_GAMMA)];
        th[m->ibe] = p;
        return;
    }
    const double a = GARCH_ALPHA[i / nsplit(m) % NELEM(GARCH_ALPHA)];
    th[m->iom] = var * (1 - p);
    if (m->iga >= 0) {
        static const double ALPHA_SHARE[GJR_SPLITS] = {0.5, 0.02, 1.98}; /* alpha / a; alpha + gamma = 2a - alpha */
        th[m->ial] = ALPHA_SHARE[i % GJR_SPLITS] * a;
        th[m->iga] = 2 * a - 2 * th[m->ial];
    } else {
        th[m->ial] = a;
    }
    th[m->ibe] = p - a;
}

/* ------------------------------------------------------------------------------------------------ */
/* Lock-step BFGS                                                                                   */
/* ------------------------------------------------------------------------------------------------ */

/* Stopping rules of the bulk phase (docs/garch.md). */
typedef struct rules {
    size_t max_iter;
    double gtol; /* converged when max_i |df/dx_i| <= gtol T */
    double ftol; /* a step that changes f by at most ftol |f| is accepted if the gradient shrinks */
    double xtol; /* no progress when every |x_i - x_i'| <= xtol (1 + |x_i|) */
    size_t nls;  /* line-search step lengths per evaluator call */
    size_t ls_max; /* step lengths per line search (halvings) */
} rules;

/* One series' fit. */
typedef struct fit {
    fitmap m;
    const double *r;
    size_t T;
    size_t ev; /* the series' index in the evaluator */
    raid_garch_status st;
    int running, in_ls, fresh, moved;
    double x[K], g[K], f; /* the iterate, its gradient in x and its nll */
    double gain;          /* the decrease of f at the last accepted step */
    double f_back[STALL_ITER]; /* f before each of the last STALL_ITER iterations */
    double H[K][K];       /* inverse Hessian approximation in x */
    double d[K], slope, a;
    size_t nhalf; /* step lengths tried in this line search */
    size_t iter;
    double var;
    double bc; /* the backcast start (BACKCAST), formed once */
    int warm_kept; /* the start kept is the warm start */
    size_t second;  /* a second candidate (starts): 1 + the index of the fit it is the second of; else 0 */
    size_t newton; /* Newton steps of the refinement */
    size_t iter0;  /* iterations of the nested GARCH fit whose optimum is a start of this GJR fit */
    double Hv[K * K]; /* the float64 Hessian in v (below) */
    double L[K * K];  /* its Cholesky factor (upper, column-major) */
    int lstate;       /* 0 not formed, 1 Hv and L valid, -1 Hv valid but not positive definite, -2 Hv could
                         not be formed */
    double xh[K];    /* the x where L was formed */
    double thf[K], gvf[K]; /* the refinement's estimates and their score in v (have_thf) */
    int have_thf;
    int refined; /* refined through the device evaluator (refine_device): refine_all leaves it */
    int merged;  /* a second candidate stopped by merged() */
    int rival_open; /* pick: the candidate dropped for this one stopped neither converged nor merged (its
                       nll is where its path stopped, not an optimum: keep_device) */
} fit;

/* The next line search of s, or its stop (s->running = 0, s->st set). */
static void prepare(fit *s, const rules *ru)
{
    const size_t k = s->m.k;
    for (;;) {
        const double gn = scaled_gnorm(k, s->g, s->T);
        if (gn <= ru->gtol) {
            s->st = RAID_GARCH_CONVERGED;
            break;
        }
        /* At an edge, x runs off to infinity along a flat ridge: stop once the gradient is 100 gtol or the
         * last step gained less than 1e-10 per observation. */
        if (gn <= 100 * ru->gtol || (s->iter > 0 && s->gain <= 1e-10 * (double)s->T)) {
            double th[K];
            to_theta(&s->m, s->x, th);
            if (gn <= 100 * ru->gtol ? at_boundary(&s->m, s->x, th) : near_edge(&s->m, s->x, th, 1e-4)) {
                s->st = RAID_GARCH_BOUNDARY;
                break;
            }
        }
        if (s->iter >= ru->max_iter) {
            s->st = RAID_GARCH_MAXITER;
            break;
        }
        /* Stalled (EGARCH's kinks in mu make BFGS zig-zag at a minimum on one): the refinement decides. */
        if (s->iter >= STALL_ITER && s->f_back[(s->iter - STALL_ITER) % STALL_ITER] - s->f <= 1e-11 * (double)s->T) {
            s->st = RAID_GARCH_NO_PROGRESS;
            break;
        }
        if (s->fresh) {
            for (size_t i = 0; i < k; i++)
                for (size_t j = 0; j < k; j++) s->H[i][j] = i == j;
        }
        double slope = 0, dmax = 0;
        for (size_t i = 0; i < k; i++) {
            s->d[i] = 0;
            for (size_t j = 0; j < k; j++) s->d[i] -= s->H[i][j] * s->g[j];
            slope += s->d[i] * s->g[i];
            dmax = fmax(dmax, fabs(s->d[i]));
        }
        if (!(slope < 0)) { /* not a descent direction: restart from steepest descent */
            if (s->fresh) {
                s->st = RAID_GARCH_NO_PROGRESS;
                break;
            }
            s->fresh = 1;
            continue;
        }
        s->slope = slope;
        s->a = dmax > 1 ? 1 / dmax : 1; /* the first trial step at most 1 in every x */
        s->nhalf = 0;
        s->in_ls = 1;
        return;
    }
    s->running = 0;
}

/* Step lengths of s's line search in the next call. */
static size_t ls_count(const fit *s, const rules *ru)
{
    const size_t left = ru->ls_max - s->nhalf;
    return left < ru->nls ? left : ru->nls;
}

/* The outcome of the cnt trial points xn (nll fn, gradient in x gn) of s's line search. */
static void consume(fit *s, const rules *ru, size_t cnt, const double *xn, const double *fn, const double *gn)
{
    const size_t k = s->m.k;
    size_t q = 0;
    for (; q < cnt; q++) {
        const double a = ldexp(s->a, -(int)q);
        if (!isfinite(fn[q])) continue;
        /* Armijo (c1 = 1e-4), or a decrease lost in the rounding of f with a smaller gradient (near the
         * optimum the decrease, about |g|^2 / curvature, falls below the rounding of f before the gradient
         * is small). */
        if (fn[q] <= s->f + 1e-4 * a * s->slope ||
            (fn[q] <= s->f + ru->ftol * fabs(s->f) &&
             scaled_gnorm(k, gn + q * K, s->T) < scaled_gnorm(k, s->g, s->T)))
            break;
    }
    if (q == cnt) { /* none passed */
        s->nhalf += cnt;
        s->a = ldexp(s->a, -(int)cnt);
        if (s->nhalf < ru->ls_max) return; /* the line search goes on */
        s->in_ls = 0;
        s->iter++;
        s->f_back[(s->iter - 1) % STALL_ITER] = s->f;
        if (s->fresh) {
            s->st = RAID_GARCH_NO_PROGRESS;
            s->running = 0;
        }
        s->fresh = 1;
        return;
    }
    s->in_ls = 0;
    s->iter++;
    s->moved = 1;
    const double *xq = xn + q * K, *gq = gn + q * K;
    double sv[K], y[K], sy = 0, yy = 0, ss2 = 0, smax = 0;
    for (size_t i = 0; i < k; i++) {
        sv[i] = xq[i] - s->x[i];
        y[i] = gq[i] - s->g[i];
        sy += sv[i] * y[i];
        yy += y[i] * y[i];
        ss2 += sv[i] * sv[i];
        smax = fmax(smax, fabs(sv[i]) / (1 + fabs(xq[i])));
    }
    memcpy(s->x, xq, k * sizeof *xq);
    memcpy(s->g, gq, k * sizeof *gq);
    s->gain = s->f - fn[q];
    s->f_back[(s->iter - 1) % STALL_ITER] = s->f; /* f before iteration iter (counted from 1) */
    s->f = fn[q];
    if (smax <= ru->xtol) {
        s->st = scaled_gnorm(k, s->g, s->T) <= ru->gtol ? RAID_GARCH_CONVERGED : RAID_GARCH_NO_PROGRESS;
        s->running = 0;
        return;
    }
    if (sy > 1e-12 * sqrt(ss2 * yy)) { /* curvature condition; otherwise skip the update */
        if (s->fresh) {
            for (size_t i = 0; i < k; i++) s->H[i][i] = sy / yy;
            s->fresh = 0;
        }
        double Hy[K], yHy = 0;
        for (size_t i = 0; i < k; i++) {
            Hy[i] = 0;
            for (size_t j = 0; j < k; j++) Hy[i] += s->H[i][j] * y[j];
            yHy += y[i] * Hy[i];
        }
        const double rho = 1 / sy;
        for (size_t i = 0; i < k; i++)
            for (size_t j = 0; j < k; j++)
                s->H[i][j] += -rho * (Hy[i] * sv[j] + sv[i] * Hy[j]) + rho * (1 + rho * yHy) * sv[i] * sv[j];
    }
}

/* Buffers of one evaluator call: up to cap points. */
typedef struct batch {
    size_t cap, n;
    size_t *series, *owner;
    double *x, *theta, *nll, *grad, *gx; /* per point: K entries (x, gx), k entries (theta, grad) */
} batch;

static void batch_free(batch *b)
{
    free(b->series);
    free(b->owner);
    free(b->x);
    free(b->theta);
    free(b->nll);
    free(b->grad);
    free(b->gx);
}

static int batch_alloc(batch *b, size_t cap)
{
    memset(b, 0, sizeof *b);
    b->cap = cap ? cap : 1;
    b->series = malloc(b->cap * sizeof *b->series);
    b->owner = malloc(b->cap * sizeof *b->owner);
    b->x = malloc(b->cap * K * sizeof *b->x);
    b->theta = malloc(b->cap * K * sizeof *b->theta);
    b->nll = malloc(b->cap * sizeof *b->nll);
    b->grad = malloc(b->cap * K * sizeof *b->grad);
    b->gx = malloc(b->cap * K * sizeof *b->gx);
    if (b->series && b->owner && b->x && b->theta && b->nll && b->grad && b->gx) return 1;
    batch_free(b);
    return 0;
}

/* Append the point x of fit i (owner) to the batch. */
static void batch_push(batch *b, const fit *s, size_t owner, const double *x)
{
    assert(b->n < b->cap);
    const size_t p = b->n++, k = s->m.k;
    b->series[p] = s->ev;
    b->owner[p] = owner;
    memcpy(b->x + p * K, x, k * sizeof *x);
    to_theta(&s->m, x, b->theta + p * k);
}

/* RAID_GARCH_PROFILE=1 in the environment: the phases' wall times and the evaluator's calls on stderr
 * (for the benchmark's analysis; not a documented interface). */
static double prof_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
static _Thread_local struct {
    size_t calls, points;
    double eval_s;
    size_t dev_refined, dev_to_host; /* refine_device: converged there, left to the float64 refinement */
} prof; /* per thread: fits on several threads at once do not share the counters */

/* Evaluate the batch and map the gradients to x; a point whose gradient in x is not finite gets +inf. */
static raid_status batch_run(RaidGarchEval *ev, batch *b, const fit *fits, size_t k)
{
    const double t0 = prof_now();
    const raid_status st = raidGarchEvalRun(ev, b->n, b->series, b->theta, b->nll, b->grad);
    prof.eval_s += prof_now() - t0;
    prof.calls++;
    prof.points += b->n;
    if (st != RAID_OK) return st;
    for (size_t p = 0; p < b->n; p++) {
        if (!isfinite(b->nll[p])) continue;
        double *gx = b->gx + p * K;
        chain(&fits[b->owner[p]].m, b->x + p * K, b->theta + p * k, b->grad + p * k, gx);
        for (size_t i = 0; i < k; i++)
            if (!isfinite(gx[i])) b->nll[p] = INFINITY;
    }
    return RAID_OK;
}

/* A second candidate (starts) whose iterate has come within MERGE_X in every x of its first's, with an nll
 * not below the first's, has reached the first's basin: it is stopped (and dropped by pick, the first's nll
 * only falling after). Returns whether s was stopped. */
#define MERGE_X 1e-2
static int merged(fit *s, const fit *fits)
{
    if (!s->second) return 0;
    const fit *p = &fits[s->second - 1];
    if (!(s->f >= p->f)) return 0;
    for (size_t i = 0; i < s->m.k; i++)
        if (!(fabs(s->x[i] - p->x[i]) <= MERGE_X)) return 0;
    s->running = 0;
    s->st = RAID_GARCH_NO_PROGRESS;
    s->merged = 1;
    return 1;
}

/* The progress of a batch fit (RaidGarchBatchOpts' prog_*): ctx, the series done before the bulk phase
 * (base: prog_base + those that could not be fitted), the fits of the bulk phase (nf series, ntot
 * candidates with the second ones) and the total. */
typedef struct prog {
    raid_ctx *ctx;
    uint64_t base, total;
    size_t nf, ntot;
} prog;

/* Run BFGS in lock step on every running fit until each stops; pg (NULL: none) gets the share of the
 * candidates stopped, as series, after each round. */
static raid_status bulk(RaidGarchEval *ev, fit *fits, size_t nf, const rules *ru, batch *b, const prog *pg)
{
    const size_t k = raidGarchLikNpar(&fits[0].m.spec);
    for (;;) {
        b->n = 0;
        size_t running = 0;
        for (size_t i = 0; i < nf; i++) {
            fit *s = &fits[i];
            if (!s->running) continue;
            if (!s->in_ls && merged(s, fits)) continue;
            if (!s->in_ls) prepare(s, ru);
            if (!s->running) continue;
            running++;
            const size_t cnt = ls_count(s, ru);
            for (size_t q = 0; q < cnt; q++) {
                double xq[K];
                const double a = ldexp(s->a, -(int)q);
                for (size_t j = 0; j < k; j++) xq[j] = s->x[j] + a * s->d[j];
                batch_push(b, s, i, xq);
            }
        }
        if (pg && pg->total) /* monotone: a stopped candidate does not run again in this phase */
            raidProgress(pg->ctx, pg->base + (uint64_t)((double)pg->nf * (double)(nf - running) / (double)nf), pg->total,
                          "fits");
        if (b->n == 0) return RAID_OK;
        const raid_status st = batch_run(ev, b, fits, k);
        if (st != RAID_OK) return st;
        for (size_t p = 0; p < b->n;) {
            fit *s = &fits[b->owner[p]];
            size_t cnt = 1;
            while (p + cnt < b->n && b->owner[p + cnt] == b->owner[p]) cnt++;
            consume(s, ru, cnt, b->x + p * K, b->nll + p, b->gx + p * K);
            p += cnt;
        }
    }
}

/* The persistence of theta (EGARCH: beta), for basin(). */
static double pers_of_theta(const fitmap *m, const double *th)
{
    if (m->spec.model == RAID_GARCH_LIK_EGARCH) return th[m->ibe];
    return th[m->ial] + (m->iga >= 0 ? th[m->iga] / 2 : 0) + th[m->ibe];
}

/* Near-ties among the starts on a device. The device's nll is within DEV_TIE (|f| + T) of the float64 one
 * (docs/garch.md "The device path and its bound": measured 1.4e-13 of |f|, its derived bound at most
 * 3.4e-10), so a start whose device nll is more than DEV_TIE (|f| + T) above another's is worse in float64
 * too; where two or more lie within that of the best (of a basin), they are evaluated again in float64 on
 * the host (host_point: the cpu evaluator's value, bit for bit), so that the starts chosen are the cpu
 * path's (the first of equals included). Otherwise the two could pick different starts, and so different
 * basins. */
#define DEV_TIE 1e-8

/* Point p of b (fit s) evaluated in float64 on the host: nll, gradient in theta and in x, as batch_run
 * does on the cpu evaluator. */
static void host_point(const fit *s, batch *b, size_t p, size_t k)
{
    double *g = b->grad + p * k, *gx = b->gx + p * K;
    b->nll[p] = raidGarchLikNllBc(&s->m.spec, s->r, s->T, b->theta + p * k, s->bc, g);
    if (!isfinite(b->nll[p])) return;
    chain(&s->m, b->x + p * K, b->theta + p * k, g, gx);
    for (size_t i = 0; i < k; i++)
        if (!isfinite(gx[i])) b->nll[p] = INFINITY;
}

/* The best of points p0..p0+cnt-1 of fit s (the first of equals), among those in basin bsn (-1: any);
 * cnt when none is finite. */
static size_t best_of(const fit *s, const batch *b, size_t p0, size_t cnt, size_t k, int bsn)
{
    size_t best = cnt;
    for (size_t j = 0; j < cnt; j++)
        if ((bsn < 0 || basin(pers_of_theta(&s->m, b->theta + (p0 + j) * k)) == bsn) &&
            b->nll[p0 + j] < (best < cnt ? b->nll[p0 + best] : INFINITY))
            best = j;
    return best;
}

/* best_of with the near-ties (DEV_TIE) of a device's values evaluated in float64 first (done[]: the
 * points already evaluated so). */
static size_t best_verified(const fit *s, batch *b, size_t p0, size_t cnt, size_t k, int bsn, unsigned char *done)
{
    const size_t best = best_of(s, b, p0, cnt, k, bsn);
    if (best == cnt) return best;
    const double thr = b->nll[p0 + best] + DEV_TIE * (fabs(b->nll[p0 + best]) + (double)s->T);
    size_t near = 0;
    for (size_t j = 0; j < cnt; j++)
        near += (bsn < 0 || basin(pers_of_theta(&s->m, b->theta + (p0 + j) * k)) == bsn) && b->nll[p0 + j] <= thr;
    if (near < 2) return best;
    for (size_t j = 0; j < cnt; j++)
        if (!done[j] && (bsn < 0 || basin(pers_of_theta(&s->m, b->theta + (p0 + j) * k)) == bsn) &&
            b->nll[p0 + j] <= thr) {
            host_point(s, b, p0 + j, k);
            done[j] = 1;
        }
    return best_of(s, b, p0, cnt, k, bsn);
}

/* The grid of starts (and the warm start) of the nf fits in one call. Each fit keeps its best start; the
 * best start in the other basin (basin(): persistence below or above 0.85), if any is valid, becomes a second
 * candidate fits[nf + j] of the same series (its `second` the index of the first), appended; *ntot: nf plus
 * their number. */
static raid_status starts(RaidGarchEval *ev, fit *fits, size_t nf, const double *const *warm,
                          const double **nested, batch *b, size_t *ntot)
{
    const int verify = raidGarchEvalOnDevice(ev);
    const size_t k = raidGarchLikNpar(&fits[0].m.spec), ns = nstart(&fits[0].m);
    b->n = 0;
    for (size_t i = 0; i < nf; i++) {
        const fit *s = &fits[i];
        for (size_t j = 0; j < ns; j++) {
            double th[K], x[K];
            grid_start(&s->m, j, s->var, th);
            from_theta(&s->m, th, x);
            batch_push(b, s, i, x);
        }
        for (int c = 0; c < 2; c++) { /* the nested model's optimum, then the warm start */
            const double *w = c ? warm[i] : nested[i];
            if (!w) continue;
            double x[K];
            from_theta(&s->m, w, x);
            int ok = 1;
            for (size_t j = 0; j < k; j++) {
                if (isnan(x[j])) ok = 0;
                x[j] = fmax(-40.0, fmin(40.0, x[j])); /* an edge (alpha = 0, ...) just inside */
            }
            if (ok) batch_push(b, s, i, x);
            else if (!c) nested[i] = NULL; /* not pushed: the warm start's index stays ns */
        }
    }
    const raid_status st = batch_run(ev, b, fits, k);
    if (st != RAID_OK) return st;
    *ntot = nf;
    for (size_t p0 = 0; p0 < b->n;) {
        const size_t i = b->owner[p0];
        size_t cnt = 1;
        while (p0 + cnt < b->n && b->owner[p0 + cnt] == i) cnt++;
        fit *s = &fits[i];
        /* the first of equals kept: the grid's order, the warm start last */
        unsigned char done[NSTART_MAX + 2] = {0};
        assert(cnt <= NSTART_MAX + 2);
        const size_t best = verify ? best_verified(s, b, p0, cnt, k, -1, done) : best_of(s, b, p0, cnt, k, -1);
        size_t other = cnt;
        if (best < cnt) {
            const int ob = !basin(pers_of_theta(&s->m, b->theta + (p0 + best) * k));
            other = verify ? best_verified(s, b, p0, cnt, k, ob, done) : best_of(s, b, p0, cnt, k, ob);
        }
        /* A warm start (the previous optimum, e.g. the full-sample fit's for a window) that beats every
         * grid start is trusted alone: no second candidate (docs/garch.md "Starts"). */
        const size_t iwarm = ns + (nested[i] != NULL); /* the warm start's index, if pushed */
        int warm_best = warm[i] && best == iwarm && iwarm < cnt;
        if (warm_best) { /* ... unless it is at an edge, where it may be stuck (x saturated) */
            double th[K];
            to_theta(&s->m, b->x + (p0 + best) * K, th);
            if (at_boundary(&s->m, b->x + (p0 + best) * K, th)) warm_best = 0;
        }
        for (int c = 0; c < 2; c++) {
            const size_t j = c ? other : best;
            if (j == cnt || (c && warm_best)) continue;
            fit *t = s;
            if (c) {
                t = &fits[(*ntot)++];
                *t = *s;
                t->second = i + 1;
            }
            t->warm_kept = j >= ns; /* the warm start or the nested optimum: an estimate already */
            t->f = b->nll[p0 + j];
            memcpy(t->x, b->x + (p0 + j) * K, k * sizeof *t->x);
            memcpy(t->g, b->gx + (p0 + j) * K, k * sizeof *t->g);
        }
        p0 += cnt;
    }
    for (size_t i = 0; i < *ntot; i++) {
        fit *s = &fits[i];
        if (isfinite(s->f)) {
            s->running = 1;
            s->fresh = 1;
        } else {
            s->st = RAID_GARCH_NO_START;
        }
    }
    return RAID_OK;
}

/* After the bulk phase: of a fit's two candidates (starts), the one with the lower nll takes the fit's
 * place fits[i], i < nf (the first on a tie); the other is dropped. */
static void pick(fit *fits, size_t nf, size_t ntot)
{
    for (size_t j = nf; j < ntot; j++) {
        fit *t = &fits[j], *s = &fits[t->second - 1];
        if (t->f < s->f) {
            const fit tmp = *s;
            *s = *t;
            *t = tmp;
        }
        s->second = 0;
        s->rival_open = t->st != RAID_GARCH_CONVERGED && !t->merged;
    }
}

/* The initial inverse Hessian of every running fit: the Hessian in x from central differences (step
 * XSTEP in every x) of the scores, all fits' 2k points in one call, inverted by Cholesky; where it is not
 * positive definite (or a point is invalid), the identity scaled at the first update (fresh). A BFGS that
 * starts from the curvature needs a few iterations instead of k^2 or more, most of all from a warm start. */
#define XSTEP 1e-5
static raid_status init_hessian(RaidGarchEval *ev, fit *fits, size_t nf, batch *b)
{
    const size_t k = raidGarchLikNpar(&fits[0].m.spec);
    b->n = 0;
    for (size_t i = 0; i < nf; i++) {
        const fit *s = &fits[i];
        if (!s->running) continue;
        for (size_t j = 0; j < 2 * k; j++) {
            double x[K];
            memcpy(x, s->x, k * sizeof *x);
            x[j / 2] += j % 2 ? -XSTEP : XSTEP;
            batch_push(b, s, i, x);
        }
    }
    const raid_status st = batch_run(ev, b, fits, k);
    if (st != RAID_OK) return st;
    for (size_t p = 0; p < b->n; p += 2 * k) {
        fit *s = &fits[b->owner[p]];
        double Hx[K * K];
        int ok = 1;
        for (size_t j = 0; j < k && ok; j++) {
            const size_t pp = p + 2 * j, pm = pp + 1;
            if (!isfinite(b->nll[pp]) || !isfinite(b->nll[pm])) ok = 0;
            for (size_t i = 0; i < k && ok; i++)
                Hx[i * k + j] = (b->gx[pp * K + i] - b->gx[pm * K + i]) / (2 * XSTEP);
        }
        if (!ok) continue;
        for (size_t i = 0; i < k; i++)
            for (size_t j = 0; j < i; j++) Hx[i * k + j] = Hx[j * k + i] = 0.5 * (Hx[i * k + j] + Hx[j * k + i]);
        if (LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'U', (lapack_int)k, Hx, (lapack_int)k) != 0) continue;
        if (LAPACKE_dpotri_work(LAPACK_COL_MAJOR, 'U', (lapack_int)k, Hx, (lapack_int)k) != 0) continue;
        for (size_t i = 0; i < k; i++) /* the upper triangle (column-major: Hx[j * k + i], i <= j) */
            for (size_t j = i; j < k; j++) s->H[i][j] = s->H[j][i] = Hx[j * k + i];
        s->fresh = 0;
    }
    return RAID_OK;
}

/* ------------------------------------------------------------------------------------------------ */
/* Float64 refinement and inference                                                                 */
/* ------------------------------------------------------------------------------------------------ */

/* The refinement and the inference work in v: theta with EGARCH's omega replaced by the unit-variance
 * omega' = omega - (1 - beta) log s^2 (as x has it). In theta, EGARCH's omega and beta are the more
 * collinear the further the unit is from the returns' scale (omega = omega' + (1 - beta) log s^2), and the
 * Hessian's inverse loses digits with it; in v nothing depends on the unit. theta = A v + c, A the
 * identity but A[omega][beta] = -log s^2. */
static void th_of_v(const fitmap *m, const double *v, double *th)
{
    memcpy(th, v, m->k * sizeof *v);
    if (m->spec.model == RAID_GARCH_LIK_EGARCH) th[m->iom] = v[m->iom] + (1 - v[m->ibe]) * m->ls2;
}

static void v_of_th(const fitmap *m, const double *th, double *v)
{
    memcpy(v, th, m->k * sizeof *th);
    if (m->spec.model == RAID_GARCH_LIK_EGARCH) v[m->iom] = th[m->iom] - (1 - th[m->ibe]) * m->ls2;
}

/* gv = A' gth (a gradient or a per-observation score), in place. */
static void gv_of_gth(const fitmap *m, double *g)
{
    if (m->spec.model == RAID_GARCH_LIK_EGARCH) g[m->ibe] -= m->ls2 * g[m->iom];
}

/* The nll at v and its gradient in v. */
static double nll_v(const fit *s, const double *v, double *gv)
{
    double th[K];
    th_of_v(&s->m, v, th);
    const double f = raidGarchLikNllBc(&s->m.spec, s->r, s->T, th, s->bc, gv);
    gv_of_gth(&s->m, gv);
    return f;
}

/* The diagonal of A C A' for a covariance C in v (row-major k x k). */
static double var_theta(const fitmap *m, const double *C, size_t i)
{
    const size_t k = m->k;
    if (m->spec.model != RAID_GARCH_LIK_EGARCH || (int)i != m->iom) return C[i * k + i];
    const size_t o = (size_t)m->iom, b = (size_t)m->ibe;
    return C[o * k + o] - 2 * m->ls2 * C[o * k + b] + m->ls2 * m->ls2 * C[b * k + b];
}

/* Finite-difference step of v_j: rel (float64 scores: 1e-8, about the square root of the unit roundoff)
 * times max(|v_j|, a floor in the parameter's own scale). */
static double fd_step(const fitmap *m, const double *v, size_t j, double rel)
{
    double floor = 0.01; /* alpha, gamma, beta */
    if ((int)j == m->imu) floor = m->s;
    else if ((int)j == m->iom) floor = m->spec.model == RAID_GARCH_LIK_EGARCH ? 0.1 : 0.0;
    else if ((int)j == m->inu) floor = 0.0;
    return rel * fmax(fabs(v[j]), floor);
}

/* H (k x k, symmetric) = the Hessian of the nll in v from forward differences of the float64 analytic
 * score (k evaluations; backward where the forward point is invalid), symmetrised. The step balances the
 * truncation error (h times the third derivative, amplified by the Hessian's condition along the
 * omega-beta ridge) against the rounding of the score differences (compensated sums over T): on the FCP
 * benchmark the standard errors move by 1e-4, 1e-5 and 1e-6 of themselves with relative steps 1e-6, 1e-7
 * and 1e-8 (central differences at 1e-5: 1e-6, at twice the cost). g0: the score in v at v. 0 when a
 * column cannot be formed. */
/* EGARCH's nll has a kink in mu at every return (|z_t| at e_t = 0): a step of 1e-8 gives the curvature of
 * the smooth piece the estimate lies in (what Newton needs), but misses the kinks' contributions, or catches
 * one when the estimate lies on a kink (a minimum there: mu_kink below), and the standard error of mu is
 * then wrong by orders of magnitude. For the standard errors (average_mu) the mu column is a central
 * difference over +-0.5 s / sqrt(T) (s: the returns' standard deviation; s / sqrt(T) is the standard error
 * of the sample mean, about that of mu), which averages the kinks' contributions over the width of one
 * standard error, the scale the standard error speaks of. The curvature in mu is defined only at that
 * scale, and to a few per cent (docs/garch.md "Standard errors": on SPY the classic standard error of mu is
 * 0.01567 at this step, 0.01537 to 0.01565 at +-1 to 3 s / sqrt(T), 0.01654 at +-0.01 s, and 0.0157 to
 * 0.0158 from a quadratic fit of the profile log-likelihood over +-1 to 4 standard errors). */
#define EGARCH_MU_STEP 0.5

static int hessian(const fit *s, const double *v, const double *g0, double *H)
{
    const size_t k = s->m.k;
    for (size_t j = 0; j < k; j++) {
        const double h = fd_step(&s->m, v, j, 1e-8);
        double vp[K], gp[K];
        memcpy(vp, v, k * sizeof *v);
        vp[j] += h;
        if (!isfinite(nll_v(s, vp, gp))) {
            vp[j] = v[j] - h;
            if (!isfinite(nll_v(s, vp, gp))) return 0;
        }
        const double hj = vp[j] - v[j]; /* the step as represented */
        for (size_t i = 0; i < k; i++) H[i * k + j] = (gp[i] - g0[i]) / hj;
    }
    for (size_t i = 0; i < k; i++)
        for (size_t j = 0; j < i; j++) H[i * k + j] = H[j * k + i] = 0.5 * (H[i * k + j] + H[j * k + i]);
    return 1;
}

/* For the standard errors of EGARCH with a constant mean: H's mu row and column replaced by the central
 * difference over +-EGARCH_MU_STEP s / sqrt(T) (symmetrised with the row's local differences). 0 if a point is
 * invalid. */
static int average_mu(const fit *s, const double *v, double *H)
{
    const size_t k = s->m.k, j = (size_t)s->m.imu;
    double vp[K], gp[K], gm[K];
    memcpy(vp, v, k * sizeof *v);
    const double hmu = EGARCH_MU_STEP * s->m.s / sqrt((double)s->T);
    vp[j] = v[j] + hmu;
    const double f1 = nll_v(s, vp, gp), hp = vp[j] - v[j];
    vp[j] = v[j] - hmu;
    const double f2 = nll_v(s, vp, gm), hm = v[j] - vp[j];
    if (!isfinite(f1) || !isfinite(f2)) return 0;
    for (size_t i = 0; i < k; i++) {
        const double c = (gp[i] - gm[i]) / (hp + hm);
        H[i * k + j] = H[j * k + i] = i == j ? c : 0.5 * (c + H[j * k + i]);
    }
    return 1;
}

/* The Cholesky factor of the float64 Hessian in v at v into s->L (s->lstate 1), or s->lstate -1 when
 * the Hessian cannot be formed or is not positive definite. */
static void factor_hessian(fit *s, const double *v, const double *gv)
{
    const size_t k = s->m.k;
    s->lstate = -2;
    if (!hessian(s, v, gv, s->Hv)) return;
    s->lstate = -1;
    memcpy(s->L, s->Hv, sizeof s->L);
    if (LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'U', (lapack_int)k, s->L, (lapack_int)k) == 0) s->lstate = 1;
}

/* EGARCH's nll has a kink in mu at every return (|z_t| at e_t = 0), and its minimum in mu can lie on one:
 * the gradient there is not small, but the one-sided derivatives in mu (at mu -+ 1e-10 s) bracket 0. */
static int mu_kink(const fit *s, const double *th)
{
    if (s->m.spec.model != RAID_GARCH_LIK_EGARCH || s->m.imu < 0) return 0;
    double side[2], g[K];
    for (int i = 0; i < 2; i++) {
        double t2[K];
        memcpy(t2, th, s->m.k * sizeof *th);
        t2[s->m.imu] += (i ? 1e-10 : -1e-10) * s->m.s;
        if (!isfinite(raidGarchLikNllBc(&s->m.spec, s->r, s->T, t2, s->bc, g))) return 0;
        side[i] = g[s->m.imu];
    }
    return side[0] < 0 && side[1] > 0;
}

/* The refinement's point: x, v (= v_of_th(theta(x))), the float64 nll f, its gradient in v, and gn, the
 * scaled gradient in x without the component held (hold >= 0). */
typedef struct rpoint {
    double th[K], x[K], v[K], gv[K], f, gn;
} rpoint;

/* The point at th with its nll f and gradient g in theta however evaluated (x: its x, or NULL for
 * from_theta(th)). 0 if f is not finite. */
static int rpoint_from(const fit *s, const double *th, const double *x, int hold, double f, const double *g,
                       rpoint *p)
{
    double gx[K];
    p->f = f;
    if (!isfinite(p->f)) return 0;
    memcpy(p->th, th, s->m.k * sizeof *th);
    if (x) memcpy(p->x, x, sizeof p->x);
    else from_theta(&s->m, th, p->x);
    chain(&s->m, p->x, th, g, gx);
    if (hold >= 0) gx[hold] = 0;
    p->gn = scaled_gnorm(s->m.k, gx, s->T);
    v_of_th(&s->m, th, p->v);
    memcpy(p->gv, g, s->m.k * sizeof *g);
    gv_of_gth(&s->m, p->gv);
    return 1;
}

/* The point at th, the float64 nll (x: its x, or NULL for from_theta(th)). 0 if the nll is not finite. */
static int rpoint_at(const fit *s, const double *th, const double *x, int hold, rpoint *p)
{
    double g[K];
    const double f = raidGarchLikNllBc(&s->m.spec, s->r, s->T, th, s->bc, g);
    return rpoint_from(s, th, x, hold, f, g, p);
}

/* Newton steps in v from p (component hold fixed when >= 0), the Hessian formed once, each step halved up
 * to 4 times until the gradient shrinks, until p->gn passes the test. */
static void newton(fit *s, const rules *fin, int hold, rpoint *p)
{
    const size_t k = s->m.k;
    for (int it = 0; p->gn > fin->gtol && it < NEWTON_MAX; it++) {
        if (s->lstate == 0) {
            factor_hessian(s, p->v, p->gv);
            memcpy(s->xh, p->x, sizeof p->x);
        }
        if (s->lstate == -2 || (hold < 0 && s->lstate != 1)) break;
        double dl[K] = {0};
        if (hold < 0) {
            for (size_t i = 0; i < k; i++) dl[i] = -p->gv[i];
            if (LAPACKE_dpotrs_work(LAPACK_COL_MAJOR, 'U', (lapack_int)k, 1, s->L, (lapack_int)k, dl, (lapack_int)k))
                break;
        } else { /* the system without row and column hold, from the full Hessian */
            double Hs[K * K], b[K];
            size_t m = 0, idx[K];
            for (size_t i = 0; i < k; i++)
                if ((int)i != hold) idx[m++] = i;
            for (size_t i = 0; i < m; i++) {
                b[i] = -p->gv[idx[i]];
                for (size_t j = 0; j < m; j++) Hs[j * m + i] = s->Hv[idx[i] * k + idx[j]];
            }
            if (LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'U', (lapack_int)m, Hs, (lapack_int)m) ||
                LAPACKE_dpotrs_work(LAPACK_COL_MAJOR, 'U', (lapack_int)m, 1, Hs, (lapack_int)m, b, (lapack_int)m))
                break;
            for (size_t i = 0; i < m; i++) dl[idx[i]] = b[i];
        }
        int ok = 0;
        for (int h = 0; h < 5 && !ok; h++) {
            double vn[K], tn[K];
            rpoint q;
            for (size_t i = 0; i < k; i++) vn[i] = p->v[i] + ldexp(dl[i], -h);
            th_of_v(&s->m, vn, tn);
            if (!rpoint_at(s, tn, NULL, hold, &q)) continue;
            if (!(q.gn < p->gn) || !(q.f <= p->f + fin->ftol * fabs(p->f))) continue;
            *p = q;
            ok = 1;
        }
        if (!ok) break;
        s->newton++;
        s->moved = 1;
    }
}

/* From p: Newton steps (newton above) until the float64 gradient passes the test; an EGARCH minimum on a
 * kink in mu (mu_kink) is refined in the other components with mu on the nearest return downhill (within
 * 0.01 s) and held, and is converged when they pass the test and the one-sided derivatives in mu bracket 0
 * (0 is in the subdifferential). Returns whether p is converged. */
static int settle(fit *s, const rules *fin, rpoint *p)
{
    newton(s, fin, -1, p);
    if (p->gn <= fin->gtol) return 1;
    if (s->m.spec.model != RAID_GARCH_LIK_EGARCH || s->m.imu < 0) return 0;
    double th[K], g[K];
    memcpy(th, p->th, sizeof th);
    raidGarchLikNllBc(&s->m.spec, s->r, s->T, th, s->bc, g);
    const double mu = th[s->m.imu], dir = g[s->m.imu] > 0 ? -1.0 : 1.0;
    double best = 0.01 * s->m.s, kink = NAN;
    for (size_t t = 0; t < s->T; t++) {
        const double d = (s->r[t] - mu) * dir;
        if (d >= 0 && d <= best) {
            best = d;
            kink = s->r[t];
        }
    }
    rpoint q;
    th[s->m.imu] = kink;
    if (isnan(kink) || !rpoint_at(s, th, NULL, s->m.imu, &q)) return 0;
    newton(s, fin, s->m.imu, &q);
    if (!(q.gn <= fin->gtol && mu_kink(s, q.th))) return 0;
    *p = q;
    s->moved = 1;
    return 1;
}

/* EGARCH's kinks in mu also make local minima a fraction of a standard error apart (a kink where the nll
 * bends down between two where it bends up: measured, two minima 0.1 standard errors apart whose
 * log-likelihoods differ by 2e-3). From a converged EGARCH fit with a constant mean, the nll is evaluated
 * with mu moved by +-j 0.001 s, j = 1..4, the others held; from the lowest point, if lower, the fit is
 * settled again (the Hessian formed there), and kept if its nll is lower; up to 3 times. This finds the best minimum within
 * 0.004 s of each one reached, not necessarily the global one. */
enum { MU_SCAN = 4, MU_SCAN_ROUNDS = 3 };
#define MU_SCAN_STEP 1e-3

static void mu_scan(fit *s, const rules *fin, rpoint *p)
{
    const int imu = s->m.imu;
    for (int round = 0; round < MU_SCAN_ROUNDS; round++) {
        double th[K], bestf = p->f - 1e-13 * fabs(p->f), bestmu = NAN;
        memcpy(th, p->th, sizeof th);
        for (int j = -MU_SCAN; j <= MU_SCAN; j++) {
            if (j == 0) continue;
            th[imu] = p->th[imu] + j * MU_SCAN_STEP * s->m.s;
            const double f = raidGarchLikNllBc(&s->m.spec, s->r, s->T, th, s->bc, NULL);
            if (f < bestf) {
                bestf = f;
                bestmu = th[imu];
            }
        }
        if (isnan(bestmu)) return;
        rpoint q;
        th[imu] = bestmu;
        const int lstate = s->lstate;
        double Hv[K * K], L[K * K], xh[K];
        memcpy(Hv, s->Hv, sizeof Hv);
        memcpy(L, s->L, sizeof L);
        memcpy(xh, s->xh, sizeof xh);
        s->lstate = 0; /* the Hessian formed again there */
        if (!rpoint_at(s, th, NULL, -1, &q) || !settle(s, fin, &q) || !(q.f < p->f)) {
            s->lstate = lstate; /* p's Hessian back */
            memcpy(s->Hv, Hv, sizeof Hv);
            memcpy(s->L, L, sizeof L);
            memcpy(s->xh, xh, sizeof xh);
            return;
        }
        *p = q;
        s->moved = 1;
    }
}

/* The float64 refinement of a fit the bulk phase stopped as converged or without progress (not at an
 * edge): its convergence test redone in float64 at the same x, then settle and, for EGARCH with a constant
 * mean, mu_scan. Sets s->st to CONVERGED or NO_PROGRESS. */
static void refine(fit *s, const rules *fin)
{
    double th[K];
    rpoint p;
    to_theta(&s->m, s->x, th);
    if (!rpoint_at(s, th, s->x, -1, &p)) { /* the test at the bulk's own x, not its round trip */
        s->st = RAID_GARCH_NO_PROGRESS;
        return;
    }
    const int conv = settle(s, fin, &p);
    if (conv && s->m.spec.model == RAID_GARCH_LIK_EGARCH && s->m.imu >= 0) mu_scan(s, fin, &p);
    memcpy(s->x, p.x, sizeof p.x);
    memcpy(s->thf, p.th, sizeof p.th); /* the estimates and their score, for infer */
    memcpy(s->gvf, p.gv, sizeof p.gv);
    s->have_thf = 1;
    s->st = conv ? RAID_GARCH_CONVERGED : RAID_GARCH_NO_PROGRESS;
}

/* The final status, estimates, log-likelihood, h_T, h_{T+1} and standard errors of fit s into o. Returns 0
 * when out of memory. */
static int infer(fit *s, RaidGarchBatchOut *o)
{
    const size_t k = s->m.k;
    double th[K];
    if (s->have_thf) memcpy(th, s->thf, sizeof th);
    else to_theta(&s->m, s->x, th);
    raid_garch_status st = s->st;
    if (at_boundary(&s->m, s->x, th)) st = RAID_GARCH_BOUNDARY; /* converged or not, the edge is the news */
    /* Did not move: not converged, or "converged" at a point of the grid (a grid start that is a
     * stationary point to the tolerance is a flat likelihood, not an estimate; a warm start that is already
     * the optimum is one). */
    if (!s->moved && (st != RAID_GARCH_CONVERGED || !s->warm_kept)) st = RAID_GARCH_AT_START;

    double *S = malloc(s->T * k * sizeof *S);
    if (!S) return 0;
    double hend[2];
    const double f = raidGarchLikScores(&s->m.spec, s->r, s->T, th, S, hend);
    if (!isfinite(f)) { /* no estimates with an infinite likelihood (a device's bulk can end where the
                           float64 likelihood overflows): as when every start is infinite */
        o->status = RAID_GARCH_NO_START;
        free(S);
        return 1;
    }
    for (size_t i = 0; i < k; i++) o->theta[i] = th[i];
    o->status = st;
    o->loglik = -f;
    o->iterations = (int)(s->iter0 + s->iter + s->newton);
    o->sigma2_last = hend[0];
    o->sigma2_next = hend[1];
    /* Standard errors: none at an edge (the information there is not the Hessian's) */
    if (st != RAID_GARCH_BOUNDARY && isfinite(f)) {
        double v[K], gv[K];
        v_of_th(&s->m, th, v);
        /* The Hessian of the refinement if the Newton steps stayed within 1e-4 in every x (the standard
         * errors then move by up to about 1e-4 of themselves: k evaluations saved for most fits whose bulk
         * ran on a device), otherwise formed again at the estimates. */
        for (size_t i = 0; i < k && s->lstate != 0; i++)
            if (!(fabs(s->x[i] - s->xh[i]) <= 1e-4)) s->lstate = 0;
        if (s->lstate == 0) {
            if (s->have_thf) memcpy(gv, s->gvf, sizeof gv);
            else nll_v(s, v, gv);
            factor_hessian(s, v, gv);
        }
        double Hi[K * K];
        int ok = s->lstate == 1;
        memcpy(Hi, s->L, sizeof Hi);
        if (s->m.spec.model == RAID_GARCH_LIK_EGARCH && s->m.imu >= 0 && s->lstate >= -1) {
            memcpy(Hi, s->Hv, sizeof Hi);
            ok = average_mu(s, v, Hi) &&
                 LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'U', (lapack_int)k, Hi, (lapack_int)k) == 0;
        }
        if (ok && LAPACKE_dpotri_work(LAPACK_COL_MAJOR, 'U', (lapack_int)k, Hi, (lapack_int)k) == 0) {
            for (size_t i = 0; i < k; i++) /* the upper triangle (column-major: Hi[j * k + i], i <= j) */
                for (size_t j = i + 1; j < k; j++) Hi[i * k + j] = Hi[j * k + i];
            /* J = sum_t s_t s_t', the scores in v: a sum of T terms of one sign on the diagonal (float64,
             * relative error below T 2^-53, far below the 1e-3 asked of the standard errors); the upper
             * triangle, mirrored */
            double J[K * K] = {0};
            for (size_t t = 0; t < s->T; t++) {
                double *sc = S + t * k;
                gv_of_gth(&s->m, sc);
                for (size_t i = 0; i < k; i++)
                    for (size_t j = i; j < k; j++) J[i * k + j] += sc[i] * sc[j];
            }
            for (size_t i = 0; i < k; i++)
                for (size_t j = 0; j < i; j++) J[i * k + j] = J[j * k + i];
            double HJ[K * K], V[K * K]; /* V = H^-1 J H^-1 */
            for (size_t i = 0; i < k; i++)
                for (size_t j = 0; j < k; j++) {
                    long double a = 0;
                    for (size_t l = 0; l < k; l++) a += (long double)Hi[i * k + l] * J[l * k + j];
                    HJ[i * k + j] = (double)a;
                }
            for (size_t i = 0; i < k; i++)
                for (size_t j = 0; j < k; j++) {
                    long double a = 0;
                    for (size_t l = 0; l < k; l++) a += (long double)HJ[i * k + l] * Hi[l * k + j];
                    V[i * k + j] = (double)a;
                }
            for (size_t i = 0; i < k; i++) {
                const double vc = var_theta(&s->m, Hi, i), vr = var_theta(&s->m, V, i);
                o->se_classic[i] = vc > 0 ? sqrt(vc) : NAN;
                o->se_robust[i] = vr > 0 ? sqrt(vr) : NAN;
            }
        }
    }
    free(S);
    return 1;
}

/* Whether fit s is one the refinement takes: stopped by the bulk as converged or without progress, away
 * from an edge. */
static int to_refine(const fit *s)
{
    if (s->st != RAID_GARCH_CONVERGED && s->st != RAID_GARCH_NO_PROGRESS) return 0;
    double th[K];
    to_theta(&s->m, s->x, th);
    return !at_boundary(&s->m, s->x, th);
}

/* The refinement through a device evaluator (docs/garch.md "Refinement on the device"): the same Newton
 * iteration as newton() in v, with the nll, the scores and the Hessian's score differences evaluated in
 * batches, every fit's points in one evaluator call per round:
 *   round 0: each fit's point (the bulk's x) and the 2k points v +- h_j e_j of a central-difference Hessian
 *            (relative step DEV_STEP: the device's score error eps over the step against the step squared
 *            times the third derivative);
 *   rounds 1..NEWTON_MAX: each running fit's Newton step and its halvings (up to 4) at once, the first whose
 *            scaled gradient is smaller and whose nll is not above the last by more than DEV_FTOL |f|
 *            accepted (the same rule as newton(), with the device's nll error allowed for);
 *   last: where the estimates moved more than DEV_REHESS in some x from where the Hessian was formed, the
 *            Hessian formed again at the estimates (one call; infer's float64 rule, 1e-4, would let the
 *            standard errors move by up to 3.5e-4 of themselves, measured), so that the standard errors
 *            use the device's Hessian at the estimates.
 * A fit converges when its device-scored scaled gradient passes fin->gtol (the device's score error is
 * 1e-13 of the scores' magnitudes, 1,000 times below the test). A Hessian whose asymmetry (an estimate of
 * its error) exceeds DEV_ASYM is not used. A fit whose Hessian is not positive definite or not used, whose
 * points are invalid or whose Newton step is refused is left to the float64 refinement
 * (refine_all) from the last accepted point, as is every EGARCH fit with a constant mean (its kinks in mu:
 * settle, mu_scan). Newton solves, tests and the standard errors stay float64 on the host. */
#define DEV_STEP 1e-5
#define DEV_FTOL 1e-11
#define DEV_ASYM 1e-6
#define DEV_REHESS 1e-6
enum { DEV_HALVE = 5 };

/* The central-difference Hessian points of v (2k: +h_j, -h_j) for fit s (owner i) into b. */
static void push_hessian(batch *b, const fit *s, size_t i, const double *v)
{
    for (size_t j = 0; j < 2 * s->m.k; j++) {
        double vp[K], th[K], x[K];
        memcpy(vp, v, s->m.k * sizeof *v);
        const double h = fd_step(&s->m, v, j / 2, DEV_STEP);
        vp[j / 2] += j % 2 ? -h : h;
        th_of_v(&s->m, vp, th);
        from_theta(&s->m, th, x);
        batch_push(b, s, i, x);
        memcpy(b->theta + (b->n - 1) * s->m.k, th, s->m.k * sizeof *th); /* theta as formed, not its round trip */
    }
}

/* Fit s's Hessian in v from the 2k points (push_hessian) at b's p0.. (the point's x: x) into s->Hv, s->L (lstate 1, or -1 when not
 * positive definite; -2 with a point invalid). */
static void take_hessian(fit *s, const batch *b, size_t p0, const double *x)
{
    const size_t k = s->m.k;
    s->lstate = -2;
    for (size_t j = 0; j < k; j++) {
        const size_t pp = p0 + 2 * j, pm = pp + 1;
        if (!isfinite(b->nll[pp]) || !isfinite(b->nll[pm])) return;
        double gp[K], gm[K], vp[K], vm[K];
        memcpy(gp, b->grad + pp * k, k * sizeof *gp);
        memcpy(gm, b->grad + pm * k, k * sizeof *gm);
        gv_of_gth(&s->m, gp);
        gv_of_gth(&s->m, gm);
        v_of_th(&s->m, b->theta + pp * k, vp);
        v_of_th(&s->m, b->theta + pm * k, vm);
        const double hj = vp[j] - vm[j]; /* the step as represented */
        if (!(hj > 0)) return;
        for (size_t i = 0; i < k; i++) s->Hv[i * k + j] = (gp[i] - gm[i]) / hj;
    }
    /* the asymmetry of the differences estimates their error: a Hessian off by more than DEV_ASYM of
     * sqrt(H_ii H_jj) is not formed (the float64 one is) */
    double asym = 0;
    for (size_t i = 0; i < k; i++)
        for (size_t j = 0; j < i; j++)
            asym = fmax(asym, fabs(s->Hv[i * k + j] - s->Hv[j * k + i]) / sqrt(fabs(s->Hv[i * k + i] * s->Hv[j * k + j])));
    if (!(asym <= DEV_ASYM)) {
        s->lstate = 0;
        return;
    }
    for (size_t i = 0; i < k; i++)
        for (size_t j = 0; j < i; j++) s->Hv[i * k + j] = s->Hv[j * k + i] = 0.5 * (s->Hv[i * k + j] + s->Hv[j * k + i]);
    s->lstate = -1;
    memcpy(s->L, s->Hv, sizeof s->L);
    if (LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'U', (lapack_int)k, s->L, (lapack_int)k) == 0) s->lstate = 1;
    memcpy(s->xh, x, sizeof s->xh);
}

/* The fit's point p from b's point q (theta, x, nll and gradient in theta as evaluated). */
static int point_of(const fit *s, const batch *b, size_t q, rpoint *p)
{
    const size_t k = s->m.k;
    return rpoint_from(s, b->theta + q * k, b->x + q * K, -1, b->nll[q], b->grad + q * k, p);
}

static raid_status refine_device(raid_ctx *ctx, RaidGarchEval *ev, fit *fits, size_t nf, const rules *fin, batch *b)
{
    const size_t k = raidGarchLikNpar(&fits[0].m.spec);
    if (fits[0].m.spec.model == RAID_GARCH_LIK_EGARCH && fits[0].m.imu >= 0) return RAID_OK;
    rpoint *P = malloc((nf ? nf : 1) * sizeof *P);
    signed char *state = malloc(nf ? nf : 1); /* 1 Newton running, 2 converged, 0 not here, -1 to the host */
    size_t *first = malloc((nf ? nf : 1) * sizeof *first);
    if (!P || !state || !first) {
        free(P), free(state), free(first);
        return raidFail(ctx, RAID_ENOMEM, "out of memory (GARCH refinement of %zu fits)", nf);
    }
    raid_status st = RAID_OK;
    b->n = 0;
    for (size_t i = 0; i < nf; i++) {
        fit *s = &fits[i];
        state[i] = (signed char)to_refine(s);
        if (!state[i]) continue;
        first[i] = b->n;
        batch_push(b, s, i, s->x);
        double v[K];
        v_of_th(&s->m, b->theta + first[i] * k, v);
        push_hessian(b, s, i, v);
    }
    if ((st = batch_run(ev, b, fits, k)) != RAID_OK) goto done;
    for (size_t i = 0; i < nf; i++) {
        if (!state[i]) continue;
        fit *s = &fits[i];
        if (!point_of(s, b, first[i], &P[i])) {
            state[i] = -1;
            continue;
        }
        take_hessian(s, b, first[i] + 1, P[i].x);
        if (P[i].gn <= fin->gtol) state[i] = 2;
        else if (s->lstate != 1) state[i] = -1;
    }
    for (int it = 0; it < NEWTON_MAX; it++) {
        b->n = 0;
        for (size_t i = 0; i < nf; i++) {
            if (state[i] != 1) continue;
            const fit *s = &fits[i];
            double dl[K];
            for (size_t j = 0; j < k; j++) dl[j] = -P[i].gv[j];
            if (LAPACKE_dpotrs_work(LAPACK_COL_MAJOR, 'U', (lapack_int)k, 1, s->L, (lapack_int)k, dl, (lapack_int)k)) {
                state[i] = -1;
                continue;
            }
            first[i] = b->n;
            for (int h = 0; h < DEV_HALVE; h++) {
                double vn[K], tn[K], x[K];
                for (size_t j = 0; j < k; j++) vn[j] = P[i].v[j] + ldexp(dl[j], -h);
                th_of_v(&s->m, vn, tn);
                from_theta(&s->m, tn, x);
                batch_push(b, s, i, x);
                memcpy(b->theta + (b->n - 1) * k, tn, k * sizeof *tn);
            }
        }
        if (b->n == 0) break;
        if ((st = batch_run(ev, b, fits, k)) != RAID_OK) goto done;
        for (size_t i = 0; i < nf; i++) {
            if (state[i] != 1) continue;
            fit *s = &fits[i];
            int ok = 0;
            for (int h = 0; h < DEV_HALVE && !ok; h++) {
                rpoint q;
                if (!point_of(s, b, first[i] + (size_t)h, &q)) continue;
                if (!(q.gn < P[i].gn) || !(q.f <= P[i].f + DEV_FTOL * fabs(P[i].f))) continue;
                P[i] = q;
                ok = 1;
            }
            if (!ok) {
                state[i] = -1;
                continue;
            }
            s->newton++;
            s->moved = 1;
            if (P[i].gn <= fin->gtol) state[i] = 2;
        }
    }
    /* the Hessian again at the estimates that moved from where it was formed */
    b->n = 0;
    for (size_t i = 0; i < nf; i++) {
        if (state[i] == 1) state[i] = -1; /* NEWTON_MAX steps: to the host */
        if (state[i] != 2) continue;
        const fit *s = &fits[i];
        int far = 0;
        for (size_t j = 0; j < k; j++) far |= !(fabs(P[i].x[j] - s->xh[j]) <= DEV_REHESS);
        if (!far) continue;
        first[i] = b->n;
        push_hessian(b, s, i, P[i].v);
        state[i] = 3;
    }
    if (b->n && (st = batch_run(ev, b, fits, k)) != RAID_OK) goto done;
    for (size_t i = 0; i < nf; i++) {
        fit *s = &fits[i];
        if (state[i] == 3) {
            take_hessian(s, b, first[i], P[i].x);
            if (s->lstate != 1) s->lstate = 0; /* infer forms the float64 Hessian */
        }
        prof.dev_refined += state[i] >= 2;
        prof.dev_to_host += state[i] == -1;
        if (state[i] == -1) { /* the float64 refinement from the last accepted point, its own Hessian */
            if (isfinite(P[i].f)) memcpy(s->x, P[i].x, sizeof s->x);
            s->lstate = 0;
            continue;
        }
        if (state[i] < 2) continue;
        memcpy(s->x, P[i].x, sizeof P[i].x);
        memcpy(s->thf, P[i].th, sizeof P[i].th);
        memcpy(s->gvf, P[i].gv, sizeof P[i].gv);
        s->have_thf = 1;
        s->st = RAID_GARCH_CONVERGED;
        s->refined = 1;
    }
done:
    free(P), free(state), free(first);
    return st;
}

/* Refine, in parallel over fits, every fit whose bulk phase stopped as converged or without progress away
 * from an edge (and that refine_device did not). */
static void refine_all(fit *fits, size_t nf, const rules *fin)
{
    const long long n = (long long)nf;
#pragma omp parallel for schedule(dynamic, 1)
    for (long long i = 0; i < n; i++) {
        fit *s = &fits[i];
        if (s->refined || (s->st != RAID_GARCH_CONVERGED && s->st != RAID_GARCH_NO_PROGRESS)) continue;
        double th[K];
        to_theta(&s->m, s->x, th);
        if (!at_boundary(&s->m, s->x, th)) refine(s, fin);
    }
}

/* ------------------------------------------------------------------------------------------------ */
/* The fit                                                                                           */
/* ------------------------------------------------------------------------------------------------ */

static void clear_out(RaidGarchBatchOut *o)
{
    memset(o, 0, sizeof *o);
    for (size_t i = 0; i < K; i++) o->theta[i] = o->se_classic[i] = o->se_robust[i] = NAN;
    o->loglik = o->sigma2_last = o->sigma2_next = NAN;
}

/* The status of a series that cannot be fitted (non-finite, too short, constant, out of range), or
 * CONVERGED. Sets the sample mean and variance (zero mean: the mean square), long double sums. Out of
 * range: max |r| >= 2^511 or < 2^-511, where r^2 overflows or loses its precision to underflow (the
 * variance of a non-constant series then came out infinite or 0, once reported "constant"): the estimates
 * (omega, h_t in the squared unit) could not be represented, so none are made. */
static raid_garch_status screen(const RaidGarchLikSpec *spec, const double *r, size_t T, double *mbar,
                                double *var)
{
    long double sum = 0;
    int constant = 1;
    double amax = 0;
    for (size_t t = 0; t < T; t++) { /* one pass: finite, constant, the sum, the largest |r| */
        if (!isfinite(r[t])) return RAID_GARCH_NONFINITE;
        constant &= r[t] == r[0];
        sum += r[t];
        amax = fmax(amax, fabs(r[t]));
    }
    if (T < RAID_GARCH_MIN_T) return RAID_GARCH_TOO_SHORT;
    if (constant) return RAID_GARCH_CONSTANT;
    if (amax >= 0x1p511 || amax < 0x1p-511) return RAID_GARCH_RANGE;
    long double ss = 0;
    *mbar = (double)(sum / T);
    for (size_t t = 0; t < T; t++) ss += ((long double)r[t] - *mbar) * ((long double)r[t] - *mbar);
    *var = (double)(ss / T);
    if (spec->mean == RAID_GARCH_LIK_MEAN_ZERO) *var += *mbar * *mbar; /* the mean square */
    if (!(*var > 0) || !isfinite(*var)) return RAID_GARCH_CONSTANT;
    return RAID_GARCH_CONVERGED;
}

/* The device's bulk iterations per fit (RaidGarchBatchOpts.dev_max_iter's default). On 300 simulated
 * series of 150 to 500 returns, every spec, and the 300 x 2,500 GARCH-t panel of bench_garch, nearly every
 * fit that converges does so in fewer than 75 iterations (the few beyond 100 are refitted, as are the fits
 * that wander to max_iter: EGARCH on those short series, 500 iterations on the cpu path). */
enum { DEV_MAX_ITER = 100 };

/* Whether a fit done on a device is kept (docs/garch.md "The device path's guarantee"): converged (the
 * float64 test passed at its estimates); its other candidate (starts) converged too, or merged into it
 * (otherwise the pick compared an optimum with the point where the other's device path stopped: a GARCH
 * fit of 431 simulated returns kept an interior optimum 0.055 below the edge that the cpu path's other
 * candidate reached after 500 iterations); not within 1e-4 of an edge (there the cpu path's edge rules,
 * which depend on its iterates, may stop it as `boundary`); and, for GJR, not below the nested GARCH
 * fit's log-likelihood (nested_ll; NAN: none). */
static int keep_device(const fit *s, const RaidGarchBatchOut *o, double nested_ll)
{
    if (o->status != RAID_GARCH_CONVERGED || s->rival_open || near_edge(&s->m, s->x, o->theta, 1e-4)) return 0;
    return isnan(nested_ll) || o->loglik >= nested_ll;
}

/* On a device: every fit not kept (keep_device) is fitted again, from its starts, by the float64 cpu path
 * (raidGarchBatchFit on the cpu evaluator, whose results do not depend on the batch), and its result
 * replaces the device's: that fit's result is then the cpu path's, bit for bit. fits[0..nf-1] with their
 * series' indices idx[] (into r, T, warm and out); *nfb: the fits refitted. */
static raid_status refit_on_cpu(raid_ctx *ctx, const RaidGarchLikSpec *spec, const fit *fits, size_t nf,
                                const size_t *idx, const double *const *r, const size_t *T, const double *warm,
                                const double *nested_ll, const RaidGarchBatchOpts *opts, RaidGarchBatchOut *out,
                                size_t *nfb)
{
    const size_t k = raidGarchLikNpar(spec);
    size_t m = 0;
    size_t *fi = malloc((nf ? nf : 1) * sizeof *fi);
    if (!fi) return raidFail(ctx, RAID_ENOMEM, "out of memory (GARCH fit of %zu series)", nf);
    for (size_t i = 0; i < nf; i++)
        if (!keep_device(&fits[i], &out[idx[i]], nested_ll ? nested_ll[idx[i]] : NAN)) fi[m++] = idx[i];
    *nfb = m;
    raid_status st = RAID_OK;
    const double **rr = malloc((m ? m : 1) * sizeof *rr);
    size_t *TT = malloc((m ? m : 1) * sizeof *TT);
    double *ww = warm ? malloc((m ? m : 1) * k * sizeof *ww) : NULL;
    RaidGarchBatchOut *oo = malloc((m ? m : 1) * sizeof *oo);
    if (!rr || !TT || !oo || (warm && !ww)) {
        st = raidFail(ctx, RAID_ENOMEM, "out of memory (GARCH fit of %zu series)", m);
        goto done;
    }
    for (size_t j = 0; j < m; j++) {
        rr[j] = r[fi[j]];
        TT[j] = T[fi[j]];
        if (warm) memcpy(ww + j * k, warm + fi[j] * k, k * sizeof *ww);
    }
    RaidGarchBatchOpts co = {0};
    if (opts) co = *opts;
    co.nls = 0;        /* the cpu evaluator's own (the iterates do not depend on it) */
    co.prog_total = 0; /* these series were counted done when the device's bulk phase stopped */
    if (m && (st = raidGarchBatchFit(NULL, spec, m, rr, TT, ww, &co, oo)) != RAID_OK) {
        st = raidFail(ctx, st, "%s", raid_errmsg());
        goto done;
    }
    for (size_t j = 0; j < m; j++) out[fi[j]] = oo[j];
done:
    free(fi), free(rr), free(TT), free(ww), free(oo);
    return st;
}

raid_status raidGarchBatchFit(raid_ctx *ctx, const RaidGarchLikSpec *spec, size_t n, const double *const *r,
                                 const size_t *T, const double *warm, const RaidGarchBatchOpts *opts,
                                 RaidGarchBatchOut *out)
{
    assert(spec && (n == 0 || (r && T && out)));
    const size_t k = raidGarchLikNpar(spec);
    rules ru = {500, 1e-10, 1e-13, 1e-12, 1, 60};
    if (opts && opts->max_iter) ru.max_iter = opts->max_iter;
    const rules final = ru;

    for (size_t i = 0; i < n; i++) clear_out(&out[i]);
    fit *fits = calloc(n ? 2 * n : 1, sizeof *fits); /* each fit and its second candidate (starts) */
    const double **rv = malloc((n ? n : 1) * sizeof *rv);
    const double **wv = malloc((n ? n : 1) * sizeof *wv), **nv = calloc(n ? n : 1, sizeof *nv);
    double *nested = NULL; /* GJR without warm starts: the GARCH fits' estimates, gamma = 0 (n x k) */
    double *nested_ll = NULL; /* and their log-likelihoods (n; NAN: none) */
    RaidGarchBatchOut *go = NULL; /* those GARCH fits */
    const size_t ia_gamma = spec->mean == RAID_GARCH_LIK_MEAN_ZERO ? 2 : 3; /* GJR's gamma in packed theta */
    size_t *Tv = malloc((n ? n : 1) * sizeof *Tv), *idx = malloc((n ? n : 1) * sizeof *idx);
    batch b = {0};
    RaidGarchEval *ev = NULL;
    raid_status st = RAID_OK;
    if (!fits || !rv || !wv || !nv || !Tv || !idx) {
        st = raidFail(ctx, RAID_ENOMEM, "out of memory (GARCH fit of %zu series)", n);
        goto done;
    }
    /* GJR nests GARCH (gamma = 0, the same likelihood): a GJR fit from the grid alone can end at a worse
     * point than the GARCH fit (a 50-sigma outlier: 0.73 below, at alpha = beta = 0), so the GARCH optimum
     * is one more start of every GJR fit (not of warm-started ones: their warm start is a GJR optimum),
     * and the GJR fit's maximum is never below the GARCH one's. Costs the GARCH fits (about 2/3 of GJR's). */
    if (spec->model == RAID_GARCH_LIK_GJR && n) {
        size_t nn = 0; /* the series without a warm start (none, or a row with a NaN) */
        for (size_t i = 0; i < n; i++) {
            int cold = !warm;
            for (size_t j = 0; warm && j < k; j++) cold |= isnan(warm[i * k + j]);
            if (cold) idx[nn++] = i;
        }
        RaidGarchLikSpec gs = *spec;
        gs.model = RAID_GARCH_LIK_GARCH;
        go = malloc((nn ? nn : 1) * sizeof *go);
        nested = malloc(n * k * sizeof *nested);
        nested_ll = malloc(n * sizeof *nested_ll);
        if (!go || !nested || !nested_ll) {
            st = raidFail(ctx, RAID_ENOMEM, "out of memory (GARCH fit of %zu series)", n);
            goto done;
        }
        for (size_t i = 0; i < n; i++) nested[i * k] = nested_ll[i] = NAN;
        for (size_t q = 0; q < nn; q++) {
            rv[q] = r[idx[q]];
            Tv[q] = T[idx[q]];
        }
        RaidGarchBatchOpts no = opts ? *opts : (RaidGarchBatchOpts){0};
        no.prog_total = 0; /* the nested fits report nothing: the GJR fits below do */
        if (nn) st = raidGarchBatchFit(ctx, &gs, nn, rv, Tv, NULL, &no, go);
        for (size_t q = 0; st == RAID_OK && q < nn; q++) {
            double *th = nested + idx[q] * k;
            for (size_t j = 0, jg = 0; j < k; j++) th[j] = j == ia_gamma ? 0 : go[q].theta[jg++];
            if (!isfinite(go[q].loglik)) th[0] = NAN; /* no estimates: no start */
            nested_ll[idx[q]] = go[q].loglik;
            th[ia_gamma] = go[q].iterations; /* kept here until the fits are gathered (below) */
        }
        if (st != RAID_OK) goto done;
    }
    const int profile = getenv("RAID_GARCH_PROFILE") != NULL;
    const double tpre = prof_now();
    /* screen every series in parallel (each its own sums), then gather the fits in the input's order */
    const long long nl = (long long)n;
#pragma omp parallel for schedule(dynamic, 16)
    for (long long ii = 0; ii < nl; ii++) {
        const size_t i = (size_t)ii;
        fit *s = &fits[i];
        double mbar = 0, var = 0;
        s->st = screen(spec, r[i], T[i], &mbar, &var);
        if (s->st != RAID_GARCH_CONVERGED) continue;
        s->m = make_map(spec, mbar, sqrt(var));
        s->r = r[i];
        s->T = T[i];
        s->var = var;
        s->f = INFINITY;
        if (spec->init == RAID_GARCH_LIK_INIT_BACKCAST) s->bc = raidGarchLikBackcastAt(spec, r[i], T[i], mbar);
    }
    size_t nf = 0;
    for (size_t i = 0; i < n; i++) {
        if (fits[i].st != RAID_GARCH_CONVERGED) {
            out[i].status = fits[i].st;
            continue;
        }
        fit *s = &fits[nf];
        if (nf != i) *s = fits[i];
        s->st = RAID_GARCH_CONVERGED;
        s->ev = nf;
        rv[nf] = r[i];
        Tv[nf] = T[i];
        idx[nf] = i;
        wv[nf] = NULL;
        nv[nf] = NULL;
        if (nested && !isnan(nested[i * k])) {
            nv[nf] = nested + i * k;
            s->iter0 = (size_t)nested[i * k + ia_gamma]; /* the GJR fit's iterations count the GARCH fit's */
            nested[i * k + ia_gamma] = 0;                /* gamma = 0 */
        }
        if (warm) {
            const double *w = warm + i * k;
            int ok = 1;
            for (size_t j = 0; j < k; j++) ok &= !isnan(w[j]);
            if (ok) wv[nf] = w;
        }
        nf++;
    }
    if (opts && opts->prog_total) raidProgress(ctx, opts->prog_base + (n - nf), opts->prog_total, "fits");
    if (nf == 0) goto done;
    const double tscr = prof_now();
    st = raidGarchEvalCreate(ctx, spec, nf, rv, Tv, &ev);
    if (st != RAID_OK) goto done;
    if (profile)
        fprintf(stderr, "garch profile: screen %.3f s, eval create %.3f s\n", tscr - tpre, prof_now() - tscr);
    if (raidGarchEvalOnDevice(ev)) { /* float32 / double-float scores: stop the bulk at their noise */
        ru.gtol = 1e-6;
        ru.ftol = 1e-7;
        ru.nls = 4;
        ru.ls_max = 32; /* steps below 2^-32 of the first change f by less than its noise: 8 calls at most */
        /* a fit still running after dev_max_iter iterations is refitted on the cpu path (below): each further
         * round would be one device call for the few that still run, and such a fit seldom converges */
        const size_t cap = opts && opts->dev_max_iter ? opts->dev_max_iter : DEV_MAX_ITER;
        if (ru.max_iter > cap) ru.max_iter = cap;
    }
    if (opts && opts->bulk_gtol > 0) ru.gtol = opts->bulk_gtol;
    if (opts && opts->nls) ru.nls = opts->nls;
    size_t per = NSTART_MAX + 1 > ru.nls ? NSTART_MAX + 1 : ru.nls, ntot = nf;
    if (per < 2 * k + 1) per = 2 * k + 1; /* the initial Hessian's 2k points; refine_device's 2k + 1 */
    if (per < DEV_HALVE) per = DEV_HALVE;
    assert(nstart(&fits[0].m) <= NSTART_MAX);
    if (!batch_alloc(&b, 2 * nf * per)) {
        st = raidFail(ctx, RAID_ENOMEM, "out of memory (GARCH fit of %zu series)", n);
        goto done;
    }
    double tp[6];
    memset(&prof, 0, sizeof prof);
    tp[0] = prof_now();
    st = starts(ev, fits, nf, wv, nv, &b, &ntot);
    tp[1] = prof_now();
    if (st == RAID_OK) st = init_hessian(ev, fits, ntot, &b);
    tp[2] = prof_now();
    const prog pg = {ctx, (opts ? opts->prog_base : 0) + (n - nf), opts ? opts->prog_total : 0, nf, ntot};
    if (st == RAID_OK) st = bulk(ev, fits, ntot, &ru, &b, &pg);
    tp[3] = prof_now();
    if (st != RAID_OK) goto done;
    pick(fits, nf, ntot);
    if (raidGarchEvalOnDevice(ev) && (st = refine_device(ctx, ev, fits, nf, &final, &b)) != RAID_OK) goto done;
    refine_all(fits, nf, &final);
    tp[4] = prof_now();
    if (profile)
        fprintf(stderr,
                "garch profile: %zu fits (%zu candidates); starts %.3f s, init hessian %.3f s, bulk %.3f s, refine %.3f s; "
                "evaluator %zu calls, %zu points, %.3f s; refined on the device %zu, on the host %zu\n",
                nf, ntot, tp[1] - tp[0], tp[2] - tp[1], tp[3] - tp[2], tp[4] - tp[3], prof.calls, prof.points, prof.eval_s,
                prof.dev_refined, prof.dev_to_host);
    const int device = raidGarchEvalOnDevice(ev);
    int oom = 0;
    const long long nfl = (long long)nf;
#pragma omp parallel for schedule(dynamic, 1) reduction(| : oom)
    for (long long i = 0; i < nfl; i++) {
        fit *s = &fits[i];
        RaidGarchBatchOut *o = &out[idx[i]];
        if (s->st == RAID_GARCH_NO_START || (device && s->st != RAID_GARCH_CONVERGED)) {
            o->status = s->st; /* on a device, refitted on the cpu path below */
            continue;
        }
        if (!infer(s, o)) oom |= 1;
    }
    if (oom) st = raidFail(ctx, RAID_ENOMEM, "out of memory (GARCH standard errors)");
    size_t nfb = 0;
    if (st == RAID_OK && device) {
        raidGarchEvalDestroy(ev); /* its device buffers, before the cpu path's fits */
        ev = NULL;
        st = refit_on_cpu(ctx, spec, fits, nf, idx, r, T, warm, nested_ll, opts, out, &nfb);
    }
    if (st == RAID_OK && opts && opts->prog_total) raidProgress(ctx, opts->prog_base + n, opts->prog_total, "fits");
    if (profile) {
        tp[5] = prof_now();
        fprintf(stderr, "garch profile: inference %s%.3f s (%zu fits refitted on the cpu path); total after create %.3f s\n",
                device ? "and refits " : "", tp[5] - tp[4], nfb, tp[5] - tp[0]);
    }

done:
    raidGarchEvalDestroy(ev);
    batch_free(&b);
    free(fits);
    free(rv);
    free(wv);
    free(nv);
    free(nested);
    free(nested_ll);
    free(go);
    free(Tv);
    free(idx);
    return st;
}

void raidGarchForecast(const RaidGarchLikSpec *spec, const double *theta, double sigma2_next, size_t H,
                         double *out)
{
    assert(spec && theta && out && H >= 1);
    const fitmap m = make_map(spec, 0, 1);
    const double omega = theta[m.iom], alpha = theta[m.ial], beta = theta[m.ibe];
    const double gamma = m.iga >= 0 ? theta[m.iga] : 0;
    out[0] = sigma2_next;
    if (spec->model == RAID_GARCH_LIK_EGARCH) {
        const double nu = m.inu >= 0 ? theta[m.inu] : 0;
        const double c = omega + alpha * (raidGarchLikAbsMoment(spec->dist, nu) - raidGarchLikKappa(spec, nu));
        for (size_t j = 1; j < H; j++) out[j] = exp(c + beta * log(out[j - 1]));
        return;
    }
    const double p = alpha + 0.5 * gamma + beta;
    for (size_t j = 1; j < H; j++) out[j] = omega + p * out[j - 1];
}
