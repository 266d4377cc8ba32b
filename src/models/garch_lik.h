/* The float64 cpu path of the GARCH-family log-likelihood and its analytic score.
 *
 * Internal: the oracle of the device kernel to come and the cpu backend of the batched optimiser; the
 * public API (include/raid/garch.h) is designed with that optimiser. docs/garch.md gives the equations.
 *
 * Models GARCH(1,1) (Bollerslev 1986), GJR-GARCH(1,1) (Glosten, Jagannathan and Runkle 1993) and
 * EGARCH(1,1) (Nelson 1991, in the parameterisation of Python `arch`); errors Normal or standardised
 * Student-t (unit variance, nu > 2); mean constant (mu) or zero.
 *
 * Parameter vector theta, packed in this order, absent entries skipped:
 *   [mu (constant mean only)] omega alpha [gamma (GJR, EGARCH)] beta [nu (Student-t only)].
 *
 * Sign convention: the functions return the NEGATIVE log-likelihood (a quantity to minimise) and its
 * gradient; invalid parameters give +inf, never NaN. */
#ifndef RAID_MODELS_GARCH_LIK_H
#define RAID_MODELS_GARCH_LIK_H

#include <stddef.h>

typedef enum { RAID_GARCH_LIK_GARCH, RAID_GARCH_LIK_GJR, RAID_GARCH_LIK_EGARCH } RaidGarchLikModel;
typedef enum { RAID_GARCH_LIK_NORMAL, RAID_GARCH_LIK_T } RaidGarchLikDist;
typedef enum { RAID_GARCH_LIK_MEAN_CONSTANT, RAID_GARCH_LIK_MEAN_ZERO } RaidGarchLikMean;
/* Starting variance v0 (the pre-sample variance and pre-sample squared residual):
 *   SAMPLE:   v0 = (1/T) sum_t e_t^2, e_t = r_t - mu at the CURRENT mu (so differentiated with the rest;
 *             Fiorentini, Calzolari and Panattoni 1996, the FCP benchmark);
 *   BACKCAST: v0 = sum_{i<tau} w_i e_i^2, w_i = 0.94^i / sum_{j<tau} 0.94^j, tau = min(75, T), with
 *             e_i = r_i - rbar (rbar the sample mean; 0 for a zero mean) held FIXED, as Python arch's
 *             fit computes its backcast once from the residuals at its starting values. */
typedef enum { RAID_GARCH_LIK_INIT_SAMPLE, RAID_GARCH_LIK_INIT_BACKCAST } RaidGarchLikInit;
/* EGARCH's centring constant kappa in alpha (|z| - kappa):
 *   SQRT2PI: kappa = sqrt(2/pi) for every distribution (Python arch);
 *   DIST:    kappa = E|z| of the error distribution (for the standardised t,
 *            sqrt(nu - 2) Gamma((nu - 1)/2) / (sqrt(pi) Gamma(nu/2)); the same as SQRT2PI for Normal).
 * The two give the same recursion with omega shifted by alpha (E|z| - sqrt(2/pi)), except at the start:
 * log sigma^2_1 = omega + beta log v0 in both (no alpha or gamma term before the first observation, as in
 * arch), so the likelihoods differ only through the first variance's start. */
typedef enum { RAID_GARCH_LIK_EZ_SQRT2PI, RAID_GARCH_LIK_EZ_DIST } RaidGarchLikEz;

typedef struct RaidGarchLikSpec {
    RaidGarchLikModel model;
    RaidGarchLikDist dist;
    RaidGarchLikMean mean;
    RaidGarchLikInit init;
    RaidGarchLikEz ez; /* EGARCH only */
} RaidGarchLikSpec;

/* Largest number of parameters (constant mean, GJR or EGARCH, Student-t). */
#define RAID_GARCH_LIK_MAXPAR 6

/* Positions of the parameters in theta for spec; -1 where the model lacks one; k entries in all. */
typedef struct RaidGarchLikLayout {
    int mu, omega, alpha, gamma, beta, nu, k;
} RaidGarchLikLayout;
RaidGarchLikLayout raidGarchLikLayoutOf(const RaidGarchLikSpec *spec);

/* Number k of entries of theta for spec (3 to 6). */
size_t raidGarchLikNpar(const RaidGarchLikSpec *spec);

/* Negative log-likelihood -sum_{t=1..T} log f(r_t | past) of the series r[0..T-1] (T >= 1, finite
 * returns, in any unit) at theta[0..k-1] (the layout above); the Normal density includes the constant
 * -0.5 log(2 pi) per observation. If grad is not NULL, grad[0..k-1] receives its gradient with respect
 * to theta, computed analytically by the forward recursion of d sigma^2_t / d theta in the same pass.
 * Returns +inf (and zeros in grad) when theta is invalid: a non-finite entry; for GARCH and GJR
 * omega <= 0, alpha < 0, alpha + gamma < 0, beta < 0 or alpha + gamma/2 + beta >= 1 (covariance
 * stationarity for a symmetric error distribution); for EGARCH |beta| >= 1; nu <= 2; a starting variance
 * or any sigma^2_t that is not positive and finite. Never returns NaN for finite returns. */
double raidGarchLikNll(const RaidGarchLikSpec *spec, const double *r, size_t T, const double *theta,
                          double *grad);

/* raidGarchLikNll with the BACKCAST start given: bc = raidGarchLikBackcast(spec, r, T), computed
 * once per series by the caller (ignored for the SAMPLE start). The same result bit for bit, without the
 * pass over the series (the sample mean) that forming v0 takes. */
double raidGarchLikNllBc(const RaidGarchLikSpec *spec, const double *r, size_t T, const double *theta,
                             double bc, double *grad);

/* The same likelihood (the same recursion as raidGarchLikNll) with, if S is not NULL, the
 * per-observation scores S[t*k + j] = d log f(r_t | past) / d theta_j, t = 0..T-1 (so sum_t S_t is minus
 * the gradient of the nll; with the `sample` start each S_t carries its share of dv0/dmu through h_t), and,
 * if h_end is not NULL, h_end[0] = h_T (the conditional variance of the last return) and h_end[1] = h_{T+1}
 * (the one-step forecast). Returns the negative log-likelihood; +inf, zeros in S and NaN in h_end when
 * theta is invalid. Used for the robust (Bollerslev and Wooldridge 1992) standard errors. */
double raidGarchLikScores(const RaidGarchLikSpec *spec, const double *r, size_t T, const double *theta,
                             double *S, double *h_end);

/* E|z| of the error distribution: sqrt(2/pi) for the Normal, sqrt(nu - 2) Gamma((nu - 1)/2) /
 * (sqrt(pi) Gamma(nu/2)) for the standardised t (nu > 2). */
double raidGarchLikAbsMoment(RaidGarchLikDist dist, double nu);

/* EGARCH's kappa for spec (the convention of RaidGarchLikEz) at nu (ignored for the Normal). */
double raidGarchLikKappa(const RaidGarchLikSpec *spec, double nu);

/* Pieces of raidGarchLikNll for the batched evaluator's device path (src/models/garch_eval_device.c),
 * which computes them on the host in float64 exactly as the cpu path does:
 * raidGarchLikValid: 1 if theta passes the parameter rules above (non-finite entries, the GARCH/GJR
 *   and EGARCH regions, nu > 2), 0 otherwise (the starting-variance and sigma^2 rules are not tested);
 * raidGarchLikBackcast: the BACKCAST starting variance v0 of r[0..T-1] (spec->init must be BACKCAST;
 *   at the sample mean for a constant mean, 0 for a zero mean; dv0/dmu = 0);
 * raidGarchLikBackcastAt: the same with the sample mean rbar = (double)(sum r / T, long double sum)
 *   given by the caller (ignored for a zero mean): bit for bit raidGarchLikBackcast without its pass;
 * raidGarchLikConsts: at nu (ignored for the Normal) the log normalising constant c per observation
 *   and dc/dnu, and EGARCH's kappa and dkappa/dnu (sqrt(2/pi) and 0 unless EGARCH-t with EZ_DIST). */
int raidGarchLikValid(const RaidGarchLikSpec *spec, const double *theta);
double raidGarchLikBackcast(const RaidGarchLikSpec *spec, const double *r, size_t T);
double raidGarchLikBackcastAt(const RaidGarchLikSpec *spec, const double *r, size_t T, double rbar);
void raidGarchLikConsts(const RaidGarchLikSpec *spec, double nu, double *c, double *dc, double *kappa,
                           double *dkappa);

/* Digamma function psi(x) for x > 0, to about 1e-15 relative (recurrence to x >= 10, then the asymptotic
 * series; Abramowitz and Stegun 6.3.5 and 6.3.18). Exposed for the tests. */
double raidGarchLikDigamma(double x);

#endif
