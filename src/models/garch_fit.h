/* The float64 host optimiser of ONE series' GARCH-family likelihood (issue 9, step 2): the cpu
 * reference of the batched fit.
 *
 * Internal (no public header, no CLI). Minimises raid_garch_lik_nll (src/models/garch_lik.h) by BFGS
 * (Nocedal and Wright 2006, algorithm 6.1) on an unconstrained reparameterisation x of theta, with a
 * backtracking Armijo line search; starting values from a small grid, the best kept. docs/garch.md
 * ("Fitting one series (float64 reference)") gives the mapping, the stopping rules and the statuses. */
#ifndef RAID_MODELS_GARCH_FIT_H
#define RAID_MODELS_GARCH_FIT_H

#include <stddef.h>

#include "models/garch_lik.h"

typedef enum {
    RAID_GARCH_FIT_CONVERGED = 0, /* scaled gradient below gtol (checked at every iterate, the start too) */
    RAID_GARCH_FIT_MAXITER,       /* iteration limit reached; estimates are the last iterate */
    RAID_GARCH_FIT_TOO_SHORT,     /* T < RAID_GARCH_FIT_MIN_T; no estimates */
    RAID_GARCH_FIT_CONSTANT,      /* every return equal; no estimates */
    RAID_GARCH_FIT_NONFINITE,     /* a NaN or infinite return; no estimates */
    RAID_GARCH_FIT_BOUNDARY,      /* stopped towards the edge of the parameter space (see the doc) */
    RAID_GARCH_FIT_NO_PROGRESS,   /* line search or step test stopped with the gradient not small */
    RAID_GARCH_FIT_NO_START       /* every grid start has an infinite likelihood */
} raid_garch_fit_status;

/* Fewest returns fitted. */
#define RAID_GARCH_FIT_MIN_T 50

typedef struct raid_garch_fit_opts {
    size_t max_iter; /* BFGS iterations (default 500) */
    double gtol;     /* converged when max_i |df/dx_i| <= gtol max(1, |f|) (default 1e-10) */
    double xtol;     /* step test: max_i |x_i - x_i'| <= xtol (1 + |x_i|) (default 1e-12) */
} raid_garch_fit_opts;

typedef struct raid_garch_fit_result {
    raid_garch_fit_status status;
    double theta[RAID_GARCH_LIK_MAXPAR]; /* estimates, layout of garch_lik.h (NaN when none) */
    double grad[RAID_GARCH_LIK_MAXPAR];  /* gradient of the nll in theta at the estimates */
    double loglik;                       /* log-likelihood at the estimates (NaN when none) */
    double gnorm;                        /* max_i |df/dx_i| / max(1, |f|) at the estimates */
    size_t iterations;                   /* BFGS iterations */
    size_t nfev;                         /* likelihood evaluations (grid included) */
    size_t start;                        /* index of the grid start kept */
} raid_garch_fit_result;

/* Short English name of a status ("converged", "iteration limit", "too short", ...). */
const char *raid_garch_fit_status_name(raid_garch_fit_status s);

/* Fits spec to r[0..T-1] (returns in any unit). opts may be NULL (defaults). Fills *out and returns
 * out->status. Never fails otherwise; asserts spec, r (when T > 0) and out are not NULL. */
raid_garch_fit_status raid_garch_fit_one(const raid_garch_lik_spec *spec, const double *r, size_t T,
                                         const raid_garch_fit_opts *opts, raid_garch_fit_result *out);

#endif
