/* The float64 cpu path of the GARCH-family negative log-likelihood and its analytic score.
 * garch_lik.h gives the contract, docs/garch.md the equations and the derivative recursions. */
#include "models/garch_lik.h"

#include <assert.h>
#include <math.h>
#include <string.h>

#include "core/dd.h"
#include "core/internal.h"

#define LOG_2PI 1.8378770664093454835606594728112L /* log(2 pi) */
#define SQRT_2_OVER_PI 0.79788456080286535587989211986876 /* sqrt(2/pi) = E|z| of N(0,1) */
#define BACKCAST_TAU 75
#define BACKCAST_DECAY 0.94

typedef RaidGarchLikLayout layout;

static layout layout_of(const RaidGarchLikSpec *s) { return raidGarchLikLayoutOf(s); }

RaidGarchLikLayout raidGarchLikLayoutOf(const RaidGarchLikSpec *s)
{
    layout l;
    int k = 0;
    l.mu = s->mean == RAID_GARCH_LIK_MEAN_CONSTANT ? k++ : -1;
    l.omega = k++;
    l.alpha = k++;
    l.gamma = s->model == RAID_GARCH_LIK_GARCH ? -1 : k++;
    l.beta = k++;
    l.nu = s->dist == RAID_GARCH_LIK_T ? k++ : -1;
    l.k = k;
    assert(k >= 3 && k <= RAID_GARCH_LIK_MAXPAR);
    return l;
}

size_t raidGarchLikNpar(const RaidGarchLikSpec *spec)
{
    assert(spec);
    return (size_t)layout_of(spec).k;
}

double raidGarchLikDigamma(double x)
{
    assert(x > 0 && isfinite(x));
    long double acc = 0.0L, y = x;
    while (y < 10.0L) { /* psi(y) = psi(y + 1) - 1/y */
        acc -= 1.0L / y;
        y += 1.0L;
    }
    const long double y2 = 1.0L / (y * y);
    /* ln y - 1/(2y) - sum B_2n / (2n y^2n), n = 1..7: the next term is below 1e-17 for y >= 10 */
    const long double series =
        y2 * (1.0L / 12 -
              y2 * (1.0L / 120 -
                    y2 * (1.0L / 252 -
                          y2 * (1.0L / 240 - y2 * (1.0L / 132 - y2 * (691.0L / 32760 - y2 * (1.0L / 12)))))));
    acc += logl(y) - 0.5L / y - series;
    return (double)acc;
}

/* Starting variance v0 at mu and its derivative dv0/dmu (garch_lik.h: SAMPLE or BACKCAST). Sums in long
 * double: v0 enters every sigma^2_t through the recursion. */
static void start_variance(RaidGarchLikInit init, const double *r, size_t T, double mu, double *v0,
                           double *dv0)
{
    assert(T >= 1);
    long double s2 = 0.0L, s1 = 0.0L;
    if (init == RAID_GARCH_LIK_INIT_SAMPLE) {
        for (size_t t = 0; t < T; t++) {
            const long double e = (long double)r[t] - mu;
            s2 += e * e;
            s1 += e;
        }
        *v0 = (double)(s2 / (long double)T);
        *dv0 = (double)(-2.0L * s1 / (long double)T);
        return;
    }
    assert(init == RAID_GARCH_LIK_INIT_BACKCAST);
    /* arch's fit: the residuals at the starting mean (the sample mean, or 0 for a zero mean), once:
     * v0 does not move with mu, so dv0/dmu = 0. The caller passes that mean as mu. The weights 0.94^i by
     * repeated multiplication in long double (relative error below i 2^-64, invisible in the double v0). */
    const size_t tau = T < BACKCAST_TAU ? T : BACKCAST_TAU;
    long double wsum = 0.0L, w = 1.0L;
    for (size_t i = 0; i < tau; i++, w *= (long double)BACKCAST_DECAY) {
        const long double e = (long double)r[i] - mu;
        s2 += w * e * e;
        wsum += w;
    }
    *v0 = (double)(s2 / wsum);
    *dv0 = 0.0;
}

/* Per-distribution constants: the log normalising constant c(nu) per observation and dc/dnu. */
typedef struct dist_consts {
    double c, dc, nu;
} dist_consts;

static dist_consts dist_consts_of(RaidGarchLikDist d, double nu)
{
    dist_consts k = {0.0, 0.0, nu};
    if (d == RAID_GARCH_LIK_NORMAL) {
        k.c = (double)(-0.5L * LOG_2PI);
        return k;
    }
    assert(nu > 2.0);
    k.c = (double)(raidLgammal(0.5L * (nu + 1.0L)) - raidLgammal(0.5L * nu) -
                   0.5L * logl(3.14159265358979323846264338327950288L * (nu - 2.0L)));
    k.dc = 0.5 * raidGarchLikDigamma(0.5 * (nu + 1.0)) - 0.5 * raidGarchLikDigamma(0.5 * nu) -
           0.5 / (nu - 2.0);
    return k;
}

/* One observation's log-density log f(e | h) and its partial derivatives in h, e and nu. */
static double obs_ll(RaidGarchLikDist d, const dist_consts *k, double e, double h, double *dl_dh,
                     double *dl_de, double *dl_dnu)
{
    const double lh = log(h);
    if (d == RAID_GARCH_LIK_NORMAL) {
        const double e2h = e * e / h;
        *dl_dh = 0.5 * (e2h - 1.0) / h;
        *dl_de = -e / h;
        *dl_dnu = 0.0;
        return k->c - 0.5 * (lh + e2h);
    }
    const double nu = k->nu, nm2 = nu - 2.0;
    const double q = e * e / (nm2 * h);
    const double l1q = log1p(q), qq = q / (1.0 + q);
    *dl_dh = (-0.5 + 0.5 * (nu + 1.0) * qq) / h;
    *dl_de = -(nu + 1.0) * e / (nm2 * h * (1.0 + q));
    *dl_dnu = k->dc - 0.5 * l1q + 0.5 * (nu + 1.0) * qq / nm2;
    return k->c - 0.5 * lh - 0.5 * (nu + 1.0) * l1q;
}

double raidGarchLikBackcast(const RaidGarchLikSpec *spec, const double *r, size_t T)
{
    assert(spec && r && T >= 1 && spec->init == RAID_GARCH_LIK_INIT_BACKCAST);
    long double sum = 0.0L;
    if (spec->mean == RAID_GARCH_LIK_MEAN_CONSTANT)
        for (size_t t = 0; t < T; t++) sum += r[t];
    return raidGarchLikBackcastAt(spec, r, T, (double)(sum / (long double)T));
}

double raidGarchLikBackcastAt(const RaidGarchLikSpec *spec, const double *r, size_t T, double rbar)
{
    assert(spec && r && T >= 1 && spec->init == RAID_GARCH_LIK_INIT_BACKCAST);
    double v0, dv0;
    start_variance(spec->init, r, T, spec->mean == RAID_GARCH_LIK_MEAN_CONSTANT ? rbar : 0.0, &v0, &dv0);
    return v0;
}

/* E|z| of the error distribution and its derivative in nu (0 for the Normal). */
static double abs_moment(RaidGarchLikDist d, double nu, double *dnu)
{
    if (d == RAID_GARCH_LIK_NORMAL) {
        if (dnu) *dnu = 0.0;
        return SQRT_2_OVER_PI;
    }
    const long double lk = 0.5L * logl((long double)nu - 2.0L) + raidLgammal(0.5L * (nu - 1.0L)) -
                           raidLgammal(0.5L * nu) - 0.5L * logl(3.14159265358979323846264338327950288L);
    const double ez = (double)expl(lk);
    if (dnu)
        *dnu = ez * (0.5 / (nu - 2.0) + 0.5 * raidGarchLikDigamma(0.5 * (nu - 1.0)) -
                     0.5 * raidGarchLikDigamma(0.5 * nu));
    return ez;
}

/* EGARCH's kappa and dkappa/dnu (garch_lik.h, RaidGarchLikEz); sqrt(2/pi) and 0 otherwise. */
static void egarch_kappa(const RaidGarchLikSpec *spec, double nu, double *kappa, double *dkappa)
{
    *kappa = SQRT_2_OVER_PI;
    *dkappa = 0.0;
    if (spec->model == RAID_GARCH_LIK_EGARCH && spec->ez == RAID_GARCH_LIK_EZ_DIST && spec->dist == RAID_GARCH_LIK_T)
        *kappa = abs_moment(spec->dist, nu, dkappa);
}

void raidGarchLikConsts(const RaidGarchLikSpec *spec, double nu, double *c, double *dc, double *kappa,
                           double *dkappa)
{
    assert(spec);
    const dist_consts k = dist_consts_of(spec->dist, nu);
    *c = k.c;
    *dc = k.dc;
    egarch_kappa(spec, nu, kappa, dkappa);
}

/* Whether theta is in the valid region of garch_lik.h (the sigma^2 checks come in the recursion). */
static int params_valid(const RaidGarchLikSpec *s, const layout *l, const double *th)
{
    for (int j = 0; j < l->k; j++)
        if (!isfinite(th[j])) return 0;
    if (l->nu >= 0 && !(th[l->nu] > 2.0)) return 0;
    const double omega = th[l->omega], alpha = th[l->alpha], beta = th[l->beta];
    const double gamma = l->gamma >= 0 ? th[l->gamma] : 0.0;
    if (s->model == RAID_GARCH_LIK_EGARCH) return fabs(beta) < 1.0;
    if (!(omega > 0.0) || alpha < 0.0 || alpha + gamma < 0.0 || beta < 0.0) return 0;
    return alpha + 0.5 * gamma + beta < 1.0;
}

int raidGarchLikValid(const RaidGarchLikSpec *spec, const double *theta)
{
    assert(spec && theta);
    const layout l = layout_of(spec);
    return params_valid(spec, &l, theta);
}

static double invalid(double *grad, int k)
{
    if (grad) memset(grad, 0, (size_t)k * sizeof *grad);
    return INFINITY;
}

double raidGarchLikAbsMoment(RaidGarchLikDist dist, double nu)
{
    assert(dist == RAID_GARCH_LIK_NORMAL || nu > 2.0);
    return abs_moment(dist, nu, NULL);
}

double raidGarchLikKappa(const RaidGarchLikSpec *spec, double nu)
{
    assert(spec);
    return spec->ez == RAID_GARCH_LIK_EZ_DIST ? raidGarchLikAbsMoment(spec->dist, nu) : SQRT_2_OVER_PI;
}

/* The one recursion: the negative log-likelihood, and optionally its gradient (grad[k]), the
 * per-observation scores (S[T x k], d log f_t / d theta) and h_T, h_{T+1} (h_end[2]). bc: the backcast
 * start computed by the caller, or NULL to compute it here. */
static double recursion(const RaidGarchLikSpec *spec, const double *r, size_t T, const double *theta,
                        const double *bc, double *grad, double *S, double *h_end)
{
    assert(spec && r && theta && T >= 1);
    const layout l = layout_of(spec);
    const int k = l.k;
    if (h_end) h_end[0] = h_end[1] = NAN;
    if (S) memset(S, 0, T * (size_t)k * sizeof *S);
    if (!params_valid(spec, &l, theta)) return invalid(grad, k);

    const double mu = l.mu >= 0 ? theta[l.mu] : 0.0;
    const double omega = theta[l.omega], alpha = theta[l.alpha], beta = theta[l.beta];
    const double gamma = l.gamma >= 0 ? theta[l.gamma] : 0.0;
    const double nu = l.nu >= 0 ? theta[l.nu] : 0.0;
    const int egarch = spec->model == RAID_GARCH_LIK_EGARCH;
    const dist_consts dc = dist_consts_of(spec->dist, nu);

    double v0, dv0 = 0.0;
    if (spec->init == RAID_GARCH_LIK_INIT_BACKCAST)
        v0 = bc ? *bc : raidGarchLikBackcast(spec, r, T); /* held at the starting mean (arch) */
    else
        start_variance(spec->init, r, T, mu, &v0, &dv0);
    if (!(v0 > 0.0) || !isfinite(v0)) return invalid(grad, k);

    /* EGARCH's kappa and dkappa/dnu */
    double kappa, dkappa;
    egarch_kappa(spec, nu, &kappa, &dkappa);

    /* d: derivatives of the state (h for GARCH/GJR, g = log h for EGARCH) with respect to theta */
    double d[RAID_GARCH_LIK_MAXPAR] = {0};
    double h, g = 0.0;
    if (egarch) {
        const double lv0 = log(v0);
        g = omega + beta * lv0;
        d[l.omega] = 1.0;
        d[l.beta] = lv0;
        if (l.mu >= 0) d[l.mu] = beta * dv0 / v0;
        h = exp(g);
    } else {
        const double p = alpha + 0.5 * gamma + beta;
        h = omega + p * v0;
        d[l.omega] = 1.0;
        d[l.alpha] = v0;
        if (l.gamma >= 0) d[l.gamma] = 0.5 * v0;
        d[l.beta] = v0;
        if (l.mu >= 0) d[l.mu] = p * dv0;
    }

    RaidDd ll = {0.0, 0.0};
    RaidDd gs[RAID_GARCH_LIK_MAXPAR];
    for (int j = 0; j < k; j++) gs[j] = (RaidDd){0.0, 0.0};
    const int want_d = grad || S;
    double e_prev = 0.0, sq_prev = 1.0;
    for (size_t t = 0; t <= T; t++) {
        if (t > 0) {
            if (egarch) {
                const double z1 = e_prev / sq_prev, az1 = fabs(z1);
                if (want_d && t < T) {
                    const double sgn = alpha * (z1 < 0.0 ? -1.0 : 1.0) + gamma;
                    double dz[RAID_GARCH_LIK_MAXPAR];
                    for (int j = 0; j < k; j++) dz[j] = -0.5 * z1 * d[j];
                    if (l.mu >= 0) dz[l.mu] -= 1.0 / sq_prev;
                    for (int j = 0; j < k; j++) d[j] = beta * d[j] + sgn * dz[j];
                    d[l.omega] += 1.0;
                    d[l.alpha] += az1 - kappa;
                    d[l.gamma] += z1;
                    d[l.beta] += g;
                    if (l.nu >= 0) d[l.nu] -= alpha * dkappa;
                }
                g = omega + alpha * (az1 - kappa) + gamma * z1 + beta * g;
                h = exp(g);
            } else {
                const int neg = e_prev < 0.0;
                const double a = alpha + (neg ? gamma : 0.0), e2 = e_prev * e_prev;
                if (want_d && t < T) {
                    for (int j = 0; j < k; j++) d[j] = beta * d[j];
                    d[l.omega] += 1.0;
                    d[l.alpha] += e2;
                    if (l.gamma >= 0 && neg) d[l.gamma] += e2;
                    d[l.beta] += h;
                    if (l.mu >= 0) d[l.mu] -= 2.0 * a * e_prev;
                }
                h = omega + a * e2 + beta * h;
            }
        }
        if (t == T) { /* h_{T+1}: the one-step forecast */
            if (h_end) h_end[1] = h;
            break;
        }
        if (!(h > 0.0) || !isfinite(h)) return invalid(grad, k);
        const double e = r[t] - mu;
        double dl_dh, dl_de, dl_dnu;
        raidDdAdd(&ll, obs_ll(spec->dist, &dc, e, h, &dl_dh, &dl_de, &dl_dnu));
        if (want_d) {
            /* dl/dtheta = dl/dh dh/dtheta (+ dl/de de/dmu, de/dmu = -1) (+ dl/dnu) */
            const double dlds = egarch ? dl_dh * h : dl_dh; /* per unit of the state */
            if (grad) {
                for (int j = 0; j < k; j++) raidDdAdd(&gs[j], dlds * d[j]);
                if (l.mu >= 0) raidDdAdd(&gs[l.mu], -dl_de);
                if (l.nu >= 0) raidDdAdd(&gs[l.nu], dl_dnu);
            }
            if (S) {
                double *st = S + t * (size_t)k;
                for (int j = 0; j < k; j++) st[j] = dlds * d[j];
                if (l.mu >= 0) st[l.mu] += -dl_de;
                if (l.nu >= 0) st[l.nu] += dl_dnu;
            }
        }
        if (h_end) h_end[0] = h;
        e_prev = e;
        sq_prev = sqrt(h);
    }
    const double nll = -raidDdValue(ll);
    if (!isfinite(nll)) return invalid(grad, k);
    if (grad) {
        for (int j = 0; j < k; j++) {
            grad[j] = -raidDdValue(gs[j]);
            if (!isfinite(grad[j])) return invalid(grad, k);
        }
    }
    return nll;
}

double raidGarchLikNll(const RaidGarchLikSpec *spec, const double *r, size_t T, const double *theta,
                          double *grad)
{
    return recursion(spec, r, T, theta, NULL, grad, NULL, NULL);
}

double raidGarchLikNllBc(const RaidGarchLikSpec *spec, const double *r, size_t T, const double *theta,
                             double bc, double *grad)
{
    return recursion(spec, r, T, theta, spec->init == RAID_GARCH_LIK_INIT_BACKCAST ? &bc : NULL, grad, NULL, NULL);
}

double raidGarchLikScores(const RaidGarchLikSpec *spec, const double *r, size_t T, const double *theta,
                             double *S, double *h_end)
{
    const double nll = recursion(spec, r, T, theta, NULL, NULL, S, h_end);
    if (!isfinite(nll)) {
        if (S) memset(S, 0, T * raidGarchLikNpar(spec) * sizeof *S);
        if (h_end) h_end[0] = h_end[1] = NAN;
    }
    return nll;
}
