/*
 * raid/garch.h -- GARCH-family volatility models for many series at once: specification, input
 * series, batched maximum-likelihood fits (full sample, rolling or expanding windows), standard errors
 * and variance forecasts. Part of the public API; include <raid.h> for all of it. Conventions:
 * raid/core.h. docs/garch.md gives the equations, the conventions and the precision bound.
 *
 * Models, with e_t = r_t - mu (constant mean) or r_t (zero mean), e_t = sigma_t z_t, h_t = sigma_t^2:
 *   garch : h_t = omega + alpha e_{t-1}^2 + beta h_{t-1}                     (Bollerslev 1986)
 *   gjr   : h_t = omega + (alpha + gamma 1[e_{t-1} < 0]) e_{t-1}^2 + beta h_{t-1}
 *                                                   (Glosten, Jagannathan and Runkle 1993)
 *   egarch: log h_t = omega + alpha (|z_{t-1}| - kappa) + gamma z_{t-1} + beta log h_{t-1}
 *                                                   (Nelson 1991, in Python arch's parameterisation)
 * Errors Normal or standardised Student-t (unit variance, nu > 2). The log-likelihood includes every
 * constant (-0.5 log(2 pi) per observation for the Normal).
 *
 * How it runs: the likelihoods and analytic scores of every (series, trial parameter vector) pair are
 * evaluated in batches, on ctx's device (float32 with double-float accumulation, each series scaled to
 * unit variance on the host) or on the cpu backend (float64, OpenMP); BFGS drives all series in lock
 * step on the host in float64; a final float64 refinement and all inference (Hessian from differences
 * of float64 analytic scores, Bollerslev-Wooldridge sandwich) run on the host, so the estimates equal
 * the float64 optimum whichever backend evaluated the bulk.
 *
 * Everything crosses the API as plain arrays, strings and opaque handles. Errors: calls that take a
 * raid_ctx report through raid_ctx_errmsg(ctx), the others through raid_errmsg(). Returned strings and
 * arrays belong to their handle and live as long as it does.
 */
#ifndef RAID_GARCH_H
#define RAID_GARCH_H

#include "raid/core.h"

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct raid_garch_spec raid_garch_spec;
typedef struct raid_garch_input raid_garch_input;
typedef struct raid_garch_result raid_garch_result;

typedef enum raid_garch_model {
    RAID_GARCH_GARCH = 0, /* "garch"  */
    RAID_GARCH_GJR = 1,   /* "gjr"    */
    RAID_GARCH_EGARCH = 2 /* "egarch" */
} raid_garch_model;

typedef enum raid_garch_dist {
    RAID_GARCH_NORMAL = 0, /* "normal" */
    RAID_GARCH_T = 1       /* "t": standardised Student-t, nu > 2 */
} raid_garch_dist;

typedef enum raid_garch_mean {
    RAID_GARCH_MEAN_CONSTANT = 0, /* "constant": mu estimated */
    RAID_GARCH_MEAN_ZERO = 1      /* "zero"    : mu = 0 */
} raid_garch_mean;

/* Starting variance v0 (the pre-sample variance and squared residual; docs/garch.md). */
typedef enum raid_garch_init {
    RAID_GARCH_INIT_BACKCAST = 0, /* "backcast" (default): Python arch's, 0.94-weighted mean of the first
                                     min(75, T) squared residuals at the sample mean, held fixed */
    RAID_GARCH_INIT_SAMPLE = 1    /* "sample": the mean of e_t^2 at the current mu, recomputed at every
                                     evaluation (Fiorentini, Calzolari and Panattoni 1996) */
} raid_garch_init;

/* EGARCH's kappa (docs/garch.md; the two give the same fit with omega shifted by alpha (E|z| - sqrt(2/pi))
 * except for the first variance's start). */
typedef enum raid_garch_ez {
    RAID_GARCH_EZ_SQRT2PI = 0, /* "sqrt2pi" (default): kappa = sqrt(2/pi) for every distribution (arch) */
    RAID_GARCH_EZ_DIST = 1     /* "dist": kappa = E|z| of the error distribution */
} raid_garch_ez;

typedef enum raid_garch_se {
    RAID_GARCH_SE_ROBUST = 0, /* "robust" (default): Bollerslev and Wooldridge (1992) sandwich H^-1 J H^-1,
                                 J the outer product of the per-observation scores */
    RAID_GARCH_SE_CLASSIC = 1 /* "classic": the inverse Hessian H^-1 of the negative log-likelihood */
} raid_garch_se;

typedef enum raid_garch_window {
    RAID_GARCH_FULL = 0,      /* "full": one fit per symbol on all its returns */
    RAID_GARCH_ROLLING = 1,   /* "rolling:N": the last N returns, one fit per end (every S-th) */
    RAID_GARCH_EXPANDING = 2  /* "expanding:N": all returns up to the end, the first window N returns */
} raid_garch_window;

/* Status of one fit (a series or a window). Only RAID_GARCH_CONVERGED means the estimates are a
 * stationary point of the likelihood found to the tolerance. */
typedef enum raid_garch_status {
    RAID_GARCH_CONVERGED = 0,   /* "converged" */
    RAID_GARCH_MAXITER = 1,     /* "iteration limit": estimates are the last iterate */
    RAID_GARCH_BOUNDARY = 2,    /* "boundary": stopped towards an edge of the parameter space (persistence
                                   near 1, a component or omega near 0, |beta| near 1 for EGARCH, nu very
                                   large) */
    RAID_GARCH_NO_PROGRESS = 3, /* "no progress": the line search failed with the gradient not small */
    RAID_GARCH_AT_START = 4,    /* "at start": the estimates did not move from the starting values */
    RAID_GARCH_TOO_SHORT = 5,   /* "too short": fewer than RAID_GARCH_MIN_T returns; no estimates */
    RAID_GARCH_CONSTANT = 6,    /* "constant": every return equal; no estimates */
    RAID_GARCH_NONFINITE = 7,   /* "non-finite": a NaN or infinite return; no estimates */
    RAID_GARCH_NO_START = 8,    /* "no valid start": every starting value has an infinite likelihood */
    RAID_GARCH_RANGE = 9        /* "out of range": returns whose squares overflow or underflow float64
                                   (max |r| >= 2^511, about 6.7e153, or < 2^-511, about 1.5e-154): omega
                                   and h_t, in the returns' squared unit, cannot be represented; no
                                   estimates (rescale the returns) */
} raid_garch_status;

#define RAID_GARCH_MIN_T 50   /* fewest returns fitted */
#define RAID_GARCH_MAXPAR 6   /* [mu] omega alpha [gamma] beta [nu] */

/* ------------------------------------------------------------------------------------------------ */
/* Names <-> enums: the words the CLI and the Python package accept                                  */
/* ------------------------------------------------------------------------------------------------ */

/** Parse the words above (exact, lower case). Errors: RAID_EINVAL (raid_errmsg names the word and the
 *  accepted ones). The _name functions return "?" for a value out of range. */
RAID_API raid_status raid_garch_model_parse(const char *name, raid_garch_model *out);
RAID_API const char *raid_garch_model_name(raid_garch_model m);
RAID_API raid_status raid_garch_dist_parse(const char *name, raid_garch_dist *out);
RAID_API const char *raid_garch_dist_name(raid_garch_dist d);
RAID_API raid_status raid_garch_mean_parse(const char *name, raid_garch_mean *out);
RAID_API const char *raid_garch_mean_name(raid_garch_mean m);
RAID_API raid_status raid_garch_init_parse(const char *name, raid_garch_init *out);
RAID_API const char *raid_garch_init_name(raid_garch_init i);
RAID_API raid_status raid_garch_ez_parse(const char *name, raid_garch_ez *out);
RAID_API const char *raid_garch_ez_name(raid_garch_ez e);
RAID_API raid_status raid_garch_se_parse(const char *name, raid_garch_se *out);
RAID_API const char *raid_garch_se_name(raid_garch_se s);
/** "full", "rolling:N" or "expanding:N" (N decimal digits, RAID_GARCH_MIN_T <= N <= 2^31 - 1). *n is 0
 *  for "full". Errors: RAID_EINVAL (raid_errmsg). */
RAID_API raid_status raid_garch_window_parse(const char *s, raid_garch_window *kind, int64_t *n);
RAID_API const char *raid_garch_status_name(raid_garch_status s);

/* ------------------------------------------------------------------------------------------------ */
/* Specification                                                                                     */
/* ------------------------------------------------------------------------------------------------ */

/** A specification with the defaults: garch, normal, constant mean, backcast start, kappa sqrt2pi,
 *  robust standard errors, full sample, window step 1, at most 500 BFGS iterations.
 *  Errors: RAID_ENOMEM (raid_errmsg); *out NULL on failure. */
RAID_API raid_status raid_garch_spec_create(raid_garch_spec **out);
RAID_API void raid_garch_spec_destroy(raid_garch_spec *spec);

/* Setters: RAID_OK, or RAID_EINVAL (value out of range, NULL spec) with raid_errmsg(); on failure the
 * spec is unchanged. */
RAID_API raid_status raid_garch_spec_set_model(raid_garch_spec *spec, raid_garch_model m);
RAID_API raid_status raid_garch_spec_set_dist(raid_garch_spec *spec, raid_garch_dist d);
RAID_API raid_status raid_garch_spec_set_mean(raid_garch_spec *spec, raid_garch_mean m);
RAID_API raid_status raid_garch_spec_set_init(raid_garch_spec *spec, raid_garch_init i);
RAID_API raid_status raid_garch_spec_set_ez(raid_garch_spec *spec, raid_garch_ez e);
RAID_API raid_status raid_garch_spec_set_se(raid_garch_spec *spec, raid_garch_se s);
/** Window kind, length n (returns; RAID_GARCH_MIN_T..2^31-1, ignored for full) and step (1..2^31-1:
 *  fit every step-th window end, counted from the first complete window). */
RAID_API raid_status raid_garch_spec_set_window(raid_garch_spec *spec, raid_garch_window kind, int64_t n,
                                                int64_t step);
/** Largest number of BFGS iterations per fit (1..100000). */
RAID_API raid_status raid_garch_spec_set_max_iter(raid_garch_spec *spec, int max_iter);

/** Getters (a NULL spec gives -1 as an enum, 0 as a number). */
RAID_API raid_garch_model raid_garch_spec_model(const raid_garch_spec *spec);
RAID_API raid_garch_dist raid_garch_spec_dist(const raid_garch_spec *spec);
RAID_API raid_garch_mean raid_garch_spec_mean(const raid_garch_spec *spec);
RAID_API raid_garch_init raid_garch_spec_init(const raid_garch_spec *spec);
RAID_API raid_garch_ez raid_garch_spec_ez(const raid_garch_spec *spec);
RAID_API raid_garch_se raid_garch_spec_se(const raid_garch_spec *spec);
RAID_API raid_garch_window raid_garch_spec_window(const raid_garch_spec *spec);
RAID_API int64_t raid_garch_spec_window_n(const raid_garch_spec *spec);
RAID_API int64_t raid_garch_spec_window_step(const raid_garch_spec *spec);
RAID_API int raid_garch_spec_max_iter(const raid_garch_spec *spec);
/** Number k of estimated parameters (3..6) and the name of parameter j in the packed order
 *  [mu] omega alpha [gamma] beta [nu] ("mu", "omega", "alpha", "gamma", "beta", "nu"); NULL out of range. */
RAID_API int raid_garch_spec_k(const raid_garch_spec *spec);
RAID_API const char *raid_garch_spec_param_name(const raid_garch_spec *spec, int j);

/* ------------------------------------------------------------------------------------------------ */
/* Input: return series per symbol                                                                   */
/* ------------------------------------------------------------------------------------------------ */

/** An empty input. Errors: RAID_ENOMEM (raid_errmsg). */
RAID_API raid_status raid_garch_input_create(raid_garch_input **out);
RAID_API void raid_garch_input_destroy(raid_garch_input *in);

/** Add one symbol's returns (copied), n in time order, in any unit (percent, log returns, ...): the
 *  estimates come back in the same unit. name: the symbol ("" when there is none: messages then say
 *  "(no symbol)"); dates: n strings or NULL (written back as window_end; given, each must come after the
 *  one before by raid_date_compare, include/raid/reader.h; without them index order is time order, the
 *  caller's); lines: the source line of each return or NULL (messages "FILE:LINE" with a source, "row L"
 *  otherwise; L 1-based within the series without lines). NaN and infinities are accepted here and give
 *  the series the status "non-finite". A repeated name is an error. r is host memory (the input keeps a host
 *  copy, which the fits' float64 steps read): CUDA device memory is refused (raid_memory_of), never read.
 *  Errors: RAID_EINVAL (NULL name, r with n > 0; r in device memory; a name not UTF-8; a repeated name; a
 *  NULL or empty date; a date that does not come after the one before: "raid_garch_input_add: SYM: row R:
 *  date 'D' comes before 'P' on row R2 (the rows of a series must be in time order)", or "repeats"), RAID_ENOMEM
 *  (raid_errmsg). */
RAID_API raid_status raid_garch_input_add(raid_garch_input *in, const char *name, size_t n, const double *r,
                                          const char *const *dates, const int64_t *lines);
/** Where the series came from (messages): NULL path for arrays. Errors: RAID_ENOMEM (raid_errmsg). */
RAID_API raid_status raid_garch_input_set_source(raid_garch_input *in, const char *path);
RAID_API size_t raid_garch_input_nsymbols(const raid_garch_input *in);
RAID_API const char *raid_garch_input_symbol(const raid_garch_input *in, size_t s);
RAID_API size_t raid_garch_input_length(const raid_garch_input *in, size_t s);
RAID_API const double *raid_garch_input_returns(const raid_garch_input *in, size_t s);
RAID_API size_t raid_garch_input_notice_count(const raid_garch_input *in);
RAID_API const char *raid_garch_input_notice(const raid_garch_input *in, size_t i);

/** What a CSV column holds: returns (`ret`) or prices (`price`, log returns formed per symbol:
 *  r_t = log(p_t / p_{t-1}), in the price's log units; a symbol's first row gives no return). */
typedef enum raid_garch_column {
    RAID_GARCH_RETURNS = 0, /* "returns" */
    RAID_GARCH_PRICES = 1   /* "prices" */
} raid_garch_column;
RAID_API raid_status raid_garch_column_parse(const char *name, raid_garch_column *out);

/** Read a CSV ("-" standard input) into an input, by RAID's one table reader (docs/input.md): columns
 *  by name, case-insensitively, names[0..2] = symbol, date, value (NULL entries: "symbol", "date", and
 *  "ret" or "price" as kind says); symbol and date are optional under their default names and required
 *  when names gives them (a missing one: "FILE:1:1: missing column 'NAME'"), other columns are ignored; a symbol's
 *  rows must be contiguous; an empty value field is NaN (the series then reports "non-finite").
 *  Errors (raid_errmsg "FILE:LINE:COL: ..."): RAID_EIO, RAID_EPARSE (a number that is not decimal, wrong
 *  field count, no value column or no column named in names, a symbol's rows not contiguous, an empty
 *  date or one that does not come after the symbol's previous date (raid_date_compare's rule: "FILE:LINE:
 *  COL: SYM: date 'D' comes before 'P' on line L (...)", or "repeats"), a price that is not positive, no
 *  data rows: "FILE:LINE:1: no data rows (only a header)"), RAID_EINVAL, RAID_ENOMEM. *out NULL on
 *  failure. */
RAID_API raid_status raid_garch_read_csv(const char *path, const char *const *names, raid_garch_column kind,
                                         raid_garch_input **out);

/* ------------------------------------------------------------------------------------------------ */
/* Fit                                                                                               */
/* ------------------------------------------------------------------------------------------------ */

/** Fit spec to every symbol of in (and every window): all fits in one batch on ctx's backend
 *  (module comment). Window fits are warm-started from their symbol's full-sample estimates. Each fit
 *  gets a status; a fit that cannot be made (too short, constant, non-finite) does not stop the others,
 *  and the call succeeds with *out set even when nothing was estimated.
 *  Errors (raid_ctx_errmsg): RAID_EINVAL (NULL), RAID_ENOMEM and the device's errors; *out NULL then. */
RAID_API raid_status raid_garch_fit(raid_ctx *ctx, const raid_garch_spec *spec, const raid_garch_input *in,
                                    raid_garch_result **out);
RAID_API void raid_garch_result_destroy(raid_garch_result *res);

/* Rows: one per symbol (full sample) or per window, symbols in input order, windows by end. Accessors
 * give NULL / NAN / -1 for an index out of range. Parameter arrays are nrows x RAID_GARCH_MAXPAR,
 * row-major, in the fixed slots mu, omega, alpha, gamma, beta, nu (0..5), NAN where the model lacks the
 * parameter or the fit has no estimates. Units: mu in the returns' unit, omega in its square (EGARCH: log
 * of squared units), alpha, gamma, beta, nu unitless. */
RAID_API size_t raid_garch_result_nrows(const raid_garch_result *res);
RAID_API const char *raid_garch_result_symbol(const raid_garch_result *res, size_t row);
/** The date of the window's last return (without dates: its 1-based index within the symbol, in
 *  decimal, so that windows stay apart); NULL for a full-sample fit. */
RAID_API const char *raid_garch_result_window_end(const raid_garch_result *res, size_t row);
RAID_API const int64_t *raid_garch_result_n(const raid_garch_result *res);         /* returns fitted */
RAID_API const double *raid_garch_result_params(const raid_garch_result *res);     /* nrows x 6 */
RAID_API const double *raid_garch_result_se(const raid_garch_result *res);         /* nrows x 6, spec's kind */
RAID_API const double *raid_garch_result_loglik(const raid_garch_result *res);
RAID_API const int32_t *raid_garch_result_iterations(const raid_garch_result *res);
RAID_API const int32_t *raid_garch_result_status(const raid_garch_result *res);    /* raid_garch_status */
/** h_T, the conditional variance of the last return fitted, and h_{T+1}, the one-step forecast. */
RAID_API const double *raid_garch_result_sigma2_last(const raid_garch_result *res);
RAID_API const double *raid_garch_result_sigma2_next(const raid_garch_result *res);
/** Variance forecasts h_{T+1..T+H} of row into out[0..H-1] (GARCH/GJR by the recursion of the
 *  expectations, E[1(z<0) z^2] = 1/2; EGARCH by the log recursion with E[g(z)] = 0, a lower bound of
 *  E[h] by Jensen, documented). Errors: RAID_EINVAL (no estimates, H < 1, NULL) (raid_errmsg). */
RAID_API raid_status raid_garch_result_forecast(const raid_garch_result *res, size_t row, size_t H, double *out);
/** Messages of the fit (why a fit failed, notices), lines without "raid garch: ", each about one symbol:
 *  message_symbol gives its index (raid_garch_input_symbol's; (size_t)-1 out of range), so that a caller
 *  can group them (the CLI summarises the messages of many symbols by kind). */
RAID_API size_t raid_garch_result_nmessages(const raid_garch_result *res);
RAID_API const char *raid_garch_result_message(const raid_garch_result *res, size_t i);
RAID_API size_t raid_garch_result_message_symbol(const raid_garch_result *res, size_t i);

/** Write the rows as CSV with the header
 *  symbol,window_end,n,model,dist,mu,omega,alpha,gamma,beta,nu,se_mu,se_omega,se_alpha,se_gamma,se_beta,
 *  se_nu,loglik,iterations,status,sigma2_last,sigma2_next
 *  (numbers as the shortest text that reads back as the same double; empty fields for what is undefined; window_end empty for full-sample fits, as
 *  raid_garch_result_window_end otherwise;
 *  text fields quoted as RFC 4180 wants). Flushes f. Errors: RAID_EIO ("write error: REASON"),
 *  RAID_EINVAL (raid_errmsg). */
RAID_API raid_status raid_garch_write_csv(const raid_garch_result *res, FILE *f);

#ifdef __cplusplus
}
#endif
#endif /* RAID_GARCH_H */
