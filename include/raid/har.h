/*
 * raid/har.h -- HAR-family forecasting regressions of daily realized variance: specification, input
 * series, full-sample and rolling/expanding-window fits, forecasts and forecast losses.
 * Part of the public API; include <raid.h> for all of it. Conventions: raid/core.h.
 *
 * Models (y_t the h-day mean of f(rv) after day t, f the transform; docs/har.md):
 *   har    : y = b0 + sum_l b_l mean(f(rv), last L_l days)                     (Corsi 2009)
 *   har-j  : + b_j f_J(max(rv_t - bpv_t, 0))                                   (Andersen, Bollerslev and
 *   har-cj : continuous part C (bpv on significant jump days, else rv) in the    Diebold 2007)
 *            lag means, J = max(rv - bpv, 0) on days with jump_p < alpha, else 0
 *   harq   : har + b_q rv_t (sqrt(rq_t) - mean sqrt(rq))                       (Bollerslev, Patton and
 *                                                                                Quaedvlieg 2016)
 * Standard errors: OLS, White (1980) or Newey-West (1987) with Bartlett weights. Forecast losses: MSE
 * and QLIKE (Patton 2011) on the variance scale.
 *
 * Everything crosses the API as plain arrays, strings and opaque handles (no struct to mirror): a
 * specification (raid_har_spec), the input series (raid_har_input, from arrays or from a CSV file),
 * and the result (raid_har_result) read through accessors or written as CSV.
 *
 * Errors: calls that take a raid_ctx report through raid_ctx_errmsg(ctx), the others through
 * raid_errmsg(). Returned strings and arrays belong to their handle and live as long as it does.
 */
#ifndef RAID_HAR_H
#define RAID_HAR_H

#include "raid/core.h"
#include "raid/regress.h"

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct raid_har_spec raid_har_spec;
typedef struct raid_har_input raid_har_input;
typedef struct raid_har_result raid_har_result;

typedef enum raid_har_model {
    RAID_HAR_RV = 0, /* "har"    */
    RAID_HAR_J = 1,  /* "har-j"  */
    RAID_HAR_CJ = 2, /* "har-cj" */
    RAID_HAR_Q = 3   /* "harq"   */
} raid_har_model;

typedef enum raid_har_transform {
    RAID_HAR_NONE = 0, /* "none": f(v) = v */
    RAID_HAR_LOG = 1,  /* "log" : f(v) = log v; the jump regressor log(1 + J); forecasts exp(yhat) */
    RAID_HAR_SQRT = 2  /* "sqrt": f(v) = sqrt v; forecasts yhat^2 */
} raid_har_transform;

typedef enum raid_har_window {
    RAID_HAR_FULL = 0,      /* "full": one fit per symbol on all its design rows */
    RAID_HAR_ROLLING = 1,   /* "rolling:N": the last N design rows, one fit per end row */
    RAID_HAR_EXPANDING = 2  /* "expanding:N": all rows up to the end row, the first window N rows */
} raid_har_window;

#define RAID_HAR_MAX_LAGS 6 /* lag lengths per model (the design also has the intercept and j or rq_rv:
                               at most RAID_REG_MAX_K columns in all) */

/* ------------------------------------------------------------------------------------------------ */
/* Names <-> enums: the words the CLI and the Python package accept                                  */
/* ------------------------------------------------------------------------------------------------ */

/** Parse "har", "har-j", "har-cj" or "harq" (exact, lower case). Errors: RAID_EINVAL (raid_errmsg). */
RAID_API raid_status raid_har_model_parse(const char *name, raid_har_model *out);
/** The name of a model ("har", ...); "?" when out of range. */
RAID_API const char *raid_har_model_name(raid_har_model m);
/** Parse "none", "log" or "sqrt". Errors: RAID_EINVAL (raid_errmsg). */
RAID_API raid_status raid_har_transform_parse(const char *name, raid_har_transform *out);
RAID_API const char *raid_har_transform_name(raid_har_transform t);
/** Parse "ols", "white" or "nw" (raid_se_kind of raid/regress.h). Errors: RAID_EINVAL (raid_errmsg). */
RAID_API raid_status raid_har_se_parse(const char *name, raid_se_kind *out);
RAID_API const char *raid_har_se_name(raid_se_kind k);
/** Parse "full", "rolling:N" or "expanding:N" (N decimal digits only, no sign or space, in
 *  [0, 2^31 - 1]; whether N exceeds the regressors is checked by raid_har_spec_set_window). *n is 0 for
 *  "full". Errors: RAID_EINVAL (raid_errmsg). */
RAID_API raid_status raid_har_window_parse(const char *s, raid_har_window *kind, int64_t *n);
/** Parse lag lengths "1,5,22": 1 to RAID_HAR_MAX_LAGS strictly increasing integers in [1, 10000], the
 *  first 1, decimal digits only (no sign, no spaces, no trailing comma). Writes *nlags values to lags
 *  (RAID_HAR_MAX_LAGS room). Errors: RAID_EINVAL (raid_errmsg). */
RAID_API raid_status raid_har_lags_parse(const char *s, int *lags, int *nlags);

/* ------------------------------------------------------------------------------------------------ */
/* Specification                                                                                     */
/* ------------------------------------------------------------------------------------------------ */

/** A specification with the defaults: model har, lags 1,5,22 (day, week, month), horizon h 1,
 *  transform none, standard errors Newey-West with the lag rule floor(4 (n/100)^(2/9)) (Newey and West
 *  1994), full-sample window, alpha 0.05. Errors: RAID_ENOMEM (raid_errmsg); *out NULL on failure. */
RAID_API raid_status raid_har_spec_create(raid_har_spec **out);
/** A copy of spec. Errors: RAID_ENOMEM, RAID_EINVAL (NULL) (raid_errmsg). */
RAID_API raid_status raid_har_spec_clone(const raid_har_spec *spec, raid_har_spec **out);
/** Free a specification; NULL is a no-op. */
RAID_API void raid_har_spec_destroy(raid_har_spec *spec);

/* Setters: RAID_OK, or RAID_EINVAL with raid_errmsg() naming the rule broken; on failure the spec is
 * unchanged. Combinations (harq with a transform, too many regressors, a window not above the number
 * of regressors) are checked by raid_har_spec_check and raid_har_fit, so that setters may come in any
 * order. */
RAID_API raid_status raid_har_spec_set_model(raid_har_spec *spec, raid_har_model m);
/** lags: nlags (1..RAID_HAR_MAX_LAGS) increasing lag lengths in days, the first 1 (the regressor of
 *  lag L is the mean of the last L days). */
RAID_API raid_status raid_har_spec_set_lags(raid_har_spec *spec, const int *lags, int nlags);
/** Forecast horizon h in days, 1..1000: the target is the mean of f(rv) over days t+1..t+h. */
RAID_API raid_status raid_har_spec_set_horizon(raid_har_spec *spec, int h);
RAID_API raid_status raid_har_spec_set_transform(raid_har_spec *spec, raid_har_transform t);
/** Standard errors: kind RAID_SE_OLS, RAID_SE_WHITE or RAID_SE_NW; nw_lag the Newey-West lag L in
 *  0..100000, or -1 for the rule floor(4 (n/100)^(2/9)) of each fit's n rows (ignored for OLS and
 *  White). L is capped at n - 1. */
RAID_API raid_status raid_har_spec_set_se(raid_har_spec *spec, raid_se_kind kind, int64_t nw_lag);
/** Window: RAID_HAR_FULL (n ignored), or RAID_HAR_ROLLING / RAID_HAR_EXPANDING with n design rows in
 *  [1, 2^31 - 1] (the first window's length; it must exceed the number of regressors, see
 *  raid_har_spec_check). */
RAID_API raid_status raid_har_spec_set_window(raid_har_spec *spec, raid_har_window kind, int64_t n);
/** Jump significance of har-cj: a day's jump counts when jump_p < alpha, alpha in (0, 1). */
RAID_API raid_status raid_har_spec_set_alpha(raid_har_spec *spec, double alpha);

/* Getters. A NULL spec gives: -1 as the enum (model, transform, se, window; their _name functions say
 * "?"), 0 (lags, horizon, nw_lag, window_n, k), NAN (alpha), NULL (coef_name). */
RAID_API raid_har_model raid_har_spec_model(const raid_har_spec *spec);
/** The lags: writes up to RAID_HAR_MAX_LAGS values to lags (if not NULL) and returns their number. */
RAID_API int raid_har_spec_lags(const raid_har_spec *spec, int *lags);
RAID_API int raid_har_spec_horizon(const raid_har_spec *spec);
RAID_API raid_har_transform raid_har_spec_transform(const raid_har_spec *spec);
RAID_API raid_se_kind raid_har_spec_se(const raid_har_spec *spec);
RAID_API int64_t raid_har_spec_nw_lag(const raid_har_spec *spec);   /* -1: the rule */
RAID_API raid_har_window raid_har_spec_window(const raid_har_spec *spec);
RAID_API int64_t raid_har_spec_window_n(const raid_har_spec *spec); /* 0 for RAID_HAR_FULL */
RAID_API double raid_har_spec_alpha(const raid_har_spec *spec);

/** Columns of the design, the intercept included: 1 + nlags (har), 2 + nlags (har-j, har-cj, harq). */
RAID_API int raid_har_spec_k(const raid_har_spec *spec);
/** The name of design column j (0 <= j < raid_har_spec_k), in column order: "const", then "rv_d",
 *  "rv_w", "rv_m" for lags 1, 5, 22 ("rv_lL" for another lag L; "c_..." for har-cj), "rq_rv" after
 *  rv_d (harq), "j" last (har-j, har-cj). NULL when j is out of range. */
RAID_API const char *raid_har_spec_coef_name(const raid_har_spec *spec, int j);
/** Whether the combination is valid: RAID_OK, or RAID_EINVAL with raid_errmsg() saying why (harq with a
 *  transform other than none; more than RAID_REG_MAX_K columns; a window of at most k rows). */
RAID_API raid_status raid_har_spec_check(const raid_har_spec *spec);

/** The design of one series (rows in day order, n days): X (m x k, row-major, column order as
 *  raid_har_spec_coef_name), y (m) and t_index (m: the day t of each row, whose target is days
 *  t+1..t+h). A row t needs days t - maxlag + 1 .. t + h, every entry finite (a row touching a missing
 *  value, NAN, or one invalid for the transform is left out). bpv (har-j, har-cj), rq (harq) and jump_p
 *  (har-cj) may be NULL when the model does not read them (then such rows have no value: none is
 *  built). X, y and t_index need room for n rows; *m receives the row count, *first_bad (if not NULL)
 *  the first day whose value is missing or invalid (n if none). Errors: RAID_EINVAL (NULL arrays),
 *  RAID_ENOMEM (raid_errmsg). */
RAID_API raid_status raid_har_design(const raid_har_spec *spec, size_t n, const double *rv, const double *bpv,
                                     const double *rq, const double *jump_p, double *X, double *y,
                                     int64_t *t_index, size_t *m, size_t *first_bad);

/* ------------------------------------------------------------------------------------------------ */
/* Input: daily series per symbol                                                                    */
/* ------------------------------------------------------------------------------------------------ */

/** An empty input. Errors: RAID_ENOMEM (raid_errmsg). */
RAID_API raid_status raid_har_input_create(raid_har_input **out);
RAID_API void raid_har_input_destroy(raid_har_input *in);

/** Add one symbol's daily series (copied): n days in increasing date order; name the symbol ("" for a
 *  file without a symbol column: messages then say "(no symbol)"); dates n strings, each a calendar
 *  date "YYYY-MM-DD" (ISO 8601, proleptic Gregorian; written back as given in window_end and forecast
 *  dates; each must come after the one before by raid_date_compare, include/raid/reader.h: a date out of
 *  order or repeated is an error); rv realized variance (squared return units,
 *  e.g. daily log-return variance; not negative); bpv bipower variation, rq realized quarticity (fourth
 *  power units; both not negative), jump_p the p-value of a jump test, in [0, 1] (har-cj reports a
 *  symbol with a value outside it): each may be NULL when absent (the models that need one report the
 *  symbol). With n = 0 every array may be NULL. NAN marks a missing value. lines (NULL: none) the source line of each day, used in messages with the
 *  path of raid_har_input_set_source. Row numbers in messages: with lines and a source, "line L" (the
 *  file's line); with lines and no source, "row L", lines[t] as given (the caller's own numbering: the
 *  Python package passes 0-based DataFrame positions); without lines, "row T" with T 1-based within the
 *  symbol (its first day is row 1). raid_har_input_add, raid_har_input_add_ymd and raid_har_fit's
 *  messages all follow this rule. A symbol named like an earlier one is an error.
 *  Errors: RAID_EINVAL (NULL name, dates or rv with n > 0; a name that is not UTF-8, RFC 3629; a NULL or
 *  empty date, or one that is not a calendar date YYYY-MM-DD; a negative rv, bpv or rq: the rules of
 *  raid_har_read_csv, "raid_har_input_add: SYM: row R: ..."; a date that does not come after the one
 *  before: "raid_har_input_add: SYM: row R: date 'D' comes before 'P' on row R2 (the rows of a series must
 *  be in time order)", or "repeats"; a repeated name), RAID_ENOMEM (raid_errmsg). */
RAID_API raid_status raid_har_input_add(raid_har_input *in, const char *name, size_t n, const char *const *dates,
                                        const double *rv, const double *bpv, const double *rq,
                                        const double *jump_p, const int64_t *lines);

/** raid_har_input_add with dates as integers yyyymmdd (e.g. 20140102, as numpy int32 arrays carry them),
 *  kept as the strings "YYYY-MM-DD" (so written as raid realized writes dates). Errors: those of
 *  raid_har_input_add, and RAID_EINVAL for a date whose year is not 1..9999, month 1..12 or day a day of
 *  that month (proleptic Gregorian calendar, ISO 8601: 20200229 is a date, 20190229 and 20200230 not). */
RAID_API raid_status raid_har_input_add_ymd(raid_har_input *in, const char *name, size_t n, const int32_t *yyyymmdd,
                                            const double *rv, const double *bpv, const double *rq,
                                            const double *jump_p, const int64_t *lines);

/** Where the series came from, for messages: path (a file name, "FILE:LINE") and the 1-based column of
 *  the dates (kept; no message of the fit names a column since the dates are checked where they are
 *  read). NULL path: messages name rows instead. Errors: RAID_ENOMEM (raid_errmsg). */
RAID_API raid_status raid_har_input_set_source(raid_har_input *in, const char *path, int date_col);
/** Names of the columns rv, bpv, rq and jump_p as messages give them ("no column 'bpv' (needed by
 *  --model har-j)"); NULL keeps a name. Defaults "rv", "bpv", "rq", "jump_p". Errors: RAID_ENOMEM,
 *  RAID_EINVAL (NULL) (raid_errmsg). */
RAID_API raid_status raid_har_input_set_names(raid_har_input *in, const char *rv, const char *bpv, const char *rq,
                                              const char *jump_p);
RAID_API size_t raid_har_input_nsymbols(const raid_har_input *in);
/** Notices of the reading that do not stop it, e.g. "FILE:LINE: the last line has no line break at its
 *  end; ..." from raid_har_read_csv (the table reader's, docs/input.md): their number, and notice i
 *  (NULL when out of range; valid while in lives). 0 for an input built from arrays. */
RAID_API size_t raid_har_input_notice_count(const raid_har_input *in);
RAID_API const char *raid_har_input_notice(const raid_har_input *in, size_t i);
/** Append a copy of text to the notices (what a reader such as raid_har_read_csv found and a user should
 *  hear about). Errors: RAID_EINVAL (NULL), RAID_ENOMEM (raid_errmsg). */
RAID_API raid_status raid_har_input_add_notice(raid_har_input *in, const char *text);

/** Read a CSV of daily realized measures (one row per symbol and day; the rows of a symbol contiguous,
 *  dates increasing; "-" reads standard input) into an input. Columns are found by name, case-
 *  insensitively: names[0..5] = symbol, date, rv, bpv, rq, jump_p (NULL entries: "symbol", "date",
 *  "rv", "bpv", "rq", "jump_p"); symbol is optional unless symbol_required, bpv, rq and jump_p optional
 *  (model: the columns it reads may not be named twice; one column may not be two of symbol, date and
 *  rv; bpv, rq or jump_p named like one of those is absent). Read by RAID's one table reader (docs/
 *  input.md): a UTF-8 byte order mark is skipped, quoted fields (RFC 4180) and CR, LF or CRLF line ends
 *  are read, symbols must be UTF-8, numbers decimal only, an empty number field is NAN; dates are text,
 *  not empty. Errors (raid_errmsg, "FILE:LINE:COL: ..."): RAID_EIO (cannot open or read), RAID_EPARSE (a
 *  number that is not decimal, wrong field count, missing or duplicate column, one column for two roles,
 *  a symbol not UTF-8, an empty date, a jump_p outside [0, 1] when model is har-cj, a symbol's rows not
 *  contiguous, a date that does not come after the symbol's previous one ("FILE:LINE:COL: SYM: date 'D'
 *  comes before 'P' on line L (the rows of a symbol must be in time order: ...)", or "repeats"), no data
 *  rows ("FILE:LINE:1: no data rows (only a header)"), NUL byte), RAID_EINVAL (NULL path or out, model out of range), RAID_ENOMEM.
 *  *out NULL on failure. */
RAID_API raid_status raid_har_read_csv(const char *path, const char *const *names, int symbol_required,
                                       raid_har_model model, raid_har_input **out);

/* ------------------------------------------------------------------------------------------------ */
/* Fit                                                                                               */
/* ------------------------------------------------------------------------------------------------ */

/** Fit spec to every symbol of in. The designs are built on the host in float64; the sufficient
 *  statistics of all symbols (or of all blocks of 50 rows, for windows) come from ONE
 *  raid_reg_stats_compute call on ctx's device; the solution and inference are float64 on the host
 *  (raid_ols_from_stats; robust meats about the column means, raid_reg_meat_ranges_at, in one call for
 *  all full-sample symbols or all windows of a symbol; raid_ols_robust_at). A window's statistics
 *  combine its whole blocks with its partial edge blocks (raid_reg_stats_range); windows are solved in
 *  parallel with OpenMP (one float64 cpu context per thread), results independent of the thread count.
 *  Rolling/expanding fits also give out-of-sample forecasts: the fit ending at day t (its window uses
 *  rv up to t + h, "window_end") forecasts the mean rv of days t+h+1..t+2h by f^-1(x'b) at the next
 *  design row, when that row exists; losses per symbol: MSE and QLIKE (Patton 2011).
 *  A symbol that cannot be estimated (missing column, too few rows, values out
 *  of range such as a jump_p outside [0, 1] for har-cj, singular design) is reported by its status and
 *  message and the others are still fitted: the call succeeds with *out set even when no symbol is
 *  estimated (raid_har_result_nestimated 0), also for an input without symbols (nsymbols 0).
 *  Errors (raid_ctx_errmsg): RAID_EINVAL (spec invalid, see raid_har_spec_check; NULL), RAID_ENOMEM and
 *  the device errors of the statistics and of the robust meats (never a symbol's or a window's status);
 *  *out NULL then. */
RAID_API raid_status raid_har_fit(raid_ctx *ctx, const raid_har_spec *spec, const raid_har_input *in,
                                  raid_har_result **out);
RAID_API void raid_har_result_destroy(raid_har_result *res);

/* Accessors: res must not be NULL; an index out of range gives NULL (strings), RAID_EINVAL (status) or
 * (size_t)-1 (message_symbol). Arrays are the result's, valid until raid_har_result_destroy; NULL when
 * empty. Coefficients are on the scale of the transformed target (f(rv): variance, log variance or
 * volatility units), standard errors as spec's SE kind. */

/* Symbols, statuses and messages. */
RAID_API size_t raid_har_result_nsymbols(const raid_har_result *res);
RAID_API const char *raid_har_result_symbol(const raid_har_result *res, size_t s);   /* NULL if out of range */
/** RAID_OK: estimated (for windows: at least one window); else why not (RAID_EINVAL missing column or
 *  values out of range, RAID_ESINGULAR no fit could be solved ...; dates out of order never reach the fit:
 *  raid_har_input_add refuses them). */
RAID_API raid_status raid_har_result_status(const raid_har_result *res, size_t s);
/** Symbols estimated. */
RAID_API size_t raid_har_result_nestimated(const raid_har_result *res);
/** Messages of the fit in the order they arose (warnings such as rows left out, and the reasons a
 *  symbol or some of its windows were not estimated), each a line without "raid har: " and newline;
 *  message_symbol gives the symbol index it concerns. */
RAID_API size_t raid_har_result_nmessages(const raid_har_result *res);
RAID_API const char *raid_har_result_message(const raid_har_result *res, size_t i);
RAID_API size_t raid_har_result_message_symbol(const raid_har_result *res, size_t i);

/* Coefficient rows: one per estimated symbol (full sample) or per estimated window, symbols in input
 * order, windows by end. Arrays of nrows (x k, row-major, for beta, se and t) values. */
RAID_API int raid_har_result_k(const raid_har_result *res);
RAID_API const char *raid_har_result_coef_name(const raid_har_result *res, int j);
RAID_API size_t raid_har_result_nrows(const raid_har_result *res);
RAID_API const int64_t *raid_har_result_row_symbol(const raid_har_result *res); /* symbol index per row */
/** The date whose rv the row's window uses last (day t + h of its last design row t); NULL for a
 *  full-sample fit. */
RAID_API const char *raid_har_result_row_end(const raid_har_result *res, size_t r);
RAID_API const int64_t *raid_har_result_row_n(const raid_har_result *res);   /* design rows fitted */
RAID_API const double *raid_har_result_r2(const raid_har_result *res);       /* centred R^2 */
RAID_API const double *raid_har_result_r2_adj(const raid_har_result *res);
RAID_API const double *raid_har_result_beta(const raid_har_result *res);     /* nrows x k */
RAID_API const double *raid_har_result_se(const raid_har_result *res);       /* nrows x k */
RAID_API const double *raid_har_result_tstat(const raid_har_result *res);    /* nrows x k */

/* Forecasts (windows only): one per fitted window with a following design row, in row order.
 * forecast and actual are on the variance scale (rv units): actual the mean rv of the h days after the
 * forecast's date; sq_err (actual - forecast)^2, qlike actual/forecast - log(actual/forecast) - 1
 * (NAN unless both are positive). */
RAID_API size_t raid_har_result_nforecasts(const raid_har_result *res);
RAID_API const int64_t *raid_har_result_fc_symbol(const raid_har_result *res);
/** The first day of the forecast's target (day t + h + 1). */
RAID_API const char *raid_har_result_fc_date(const raid_har_result *res, size_t i);
RAID_API const double *raid_har_result_fc_forecast(const raid_har_result *res);
RAID_API const double *raid_har_result_fc_actual(const raid_har_result *res);
RAID_API const double *raid_har_result_fc_sq_err(const raid_har_result *res);
RAID_API const double *raid_har_result_fc_qlike(const raid_har_result *res);

/** Forecast losses of symbol s: *n forecasts, their mean squared error, the mean QLIKE of the nq with
 *  a finite QLIKE (Patton 2011). Returns 1 when s is estimated with windows and has forecasts, else 0
 *  (outputs untouched). Any output pointer may be NULL. */
RAID_API int raid_har_result_loss(const raid_har_result *res, size_t s, size_t *n, double *mse, double *qlike,
                                  size_t *nq);

/* CSV writers (the CLI's formats, docs/har.md): numbers as the shortest text that reads back as the same
 * double (raid_csv_put_value), an undefined value
 * as an empty field, text fields (symbols, dates) quoted as RFC 4180 wants (raid_csv_put_field). Each
 * writer flushes f before returning. Errors: RAID_EIO ("write error: REASON": a write or the flush
 * failed; errno is left as the failure set it), RAID_EINVAL (NULL) (raid_errmsg). */
/** Coefficients: symbol,model,transform,h,[window_end,]n,r2,r2_adj, then NAME,NAME_se,NAME_t per
 *  column. Nothing (not even the header) when no row was estimated. */
RAID_API raid_status raid_har_write_coefs(const raid_har_result *res, FILE *f);
/** Forecasts: symbol,date,forecast,actual,sq_err,qlike (the header always). */
RAID_API raid_status raid_har_write_forecasts(const raid_har_result *res, FILE *f);
/** Losses: symbol,model,transform,h,n_forecasts,mse,qlike,n_qlike (the header always). */
RAID_API raid_status raid_har_write_losses(const raid_har_result *res, FILE *f);
/** The losses as a table for people (what raid har prints on standard error after a window fit):
 *  "forecast losses (MODEL, transform T, h H; QLIKE on the variance scale):", a header line, then one
 *  aligned line per symbol with forecasts (n, mse, qlike with 17 digits). Nothing for a full-sample fit
 *  or when no symbol's design could be used. */
RAID_API raid_status raid_har_write_loss_table(const raid_har_result *res, FILE *f);

#ifdef __cplusplus
}
#endif
#endif /* RAID_HAR_H */
