/*
 * raid/cov.h -- daily realized covariance matrices of many symbols: synchronisation (previous tick on the
 * union of the sampled times, refresh time), estimators (rcov, rbpcov, rsemicov, hy, mrc, mrc_psd, rkcov),
 * the smallest eigenvalue of each matrix, the projection to the nearest PSD matrix with the same
 * variances, and the job behind `raid cov` and raid.cov.
 * Part of the public API; include <raid.h> for all of it. Conventions: raid/core.h. Formulas, sources and
 * defaults: docs/measures.md "Covariance".
 */
#ifndef RAID_COV_H
#define RAID_COV_H

#include "raid/core.h"
#include "raid/reader.h"

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The estimators of a day's N x N matrix (docs/measures.md "Covariance"):
 *  RCOV      sum_k r_k r_k' of the synchronised returns (Andersen, Bollerslev, Diebold and Labys 2003;
 *            Barndorff-Nielsen and Shephard 2004)                                          M >= 1
 *  RBPCOV    realized bipower covariation, polarisation form (pi/8) sum_{k>=2} (|x+y|_k |x+y|_{k-1} -
 *            |x-y|_k |x-y|_{k-1}) (Barndorff-Nielsen and Shephard 2004, Econometrica 72)   M >= 2
 *  RSEMICOV  three parts P = sum p p', N = sum n n', M = sum p n' with p = max(r, 0), n = min(r, 0);
 *            P + N + M + M' = rcov (Bollerslev, Li, Patton and Quaedvlieg 2020, Econometrica 88)  M >= 1
 *  HY        Hayashi and Yoshida (2005, Bernoulli 11) on each symbol's own observations (no
 *            synchronisation): sum of r^i_k r^j_l over overlapping observation intervals
 *  MRC       modulated realized covariance, pre-averaged, bias corrected, theta = 1, kn = ceil(sqrt(M))
 *            (Christensen, Kinnebrock and Podolskij 2010, J. Econometrics 159); not PSD    M >= 5
 *  MRC_PSD   the same without the bias correction, kn = ceil(M^0.6) (their delta = 0.1): PSD  M >= 2
 *  RKCOV     multivariate realized kernel, Parzen weights, m = 2 jittered end points, one bandwidth for
 *            all symbols (the mean of the univariate BNHLS 2009 bandwidths); PSD (Barndorff-Nielsen,
 *            Hansen, Lunde and Shephard 2011, J. Econometrics 162)                          M >= 3, H <= M - 2
 *  M is the number of synchronised returns of the day; below the minimum the matrix is NAN. */
typedef enum raid_cov_estimator {
    RAID_COV_RCOV = 0,
    RAID_COV_RBPCOV = 1,
    RAID_COV_RSEMICOV = 2,
    RAID_COV_HY = 3,
    RAID_COV_MRC = 4,
    RAID_COV_MRC_PSD = 5,
    RAID_COV_RKCOV = 6
} raid_cov_estimator;
#define RAID_COV_NESTIMATORS 7

/** The synchronisation of the symbols' sampled prices into common returns (not used by HY):
 *  PREVIOUS  previous tick on the union of the symbols' sampled times (on a calendar grid: the grid; with
 *            tick sampling: every observation time of any symbol); before a symbol's first price its
 *            first price is taken (zero returns)
 *  REFRESH   refresh time (Barndorff-Nielsen, Hansen, Lunde and Shephard 2011): tau_1 the latest first
 *            time, tau_{j+1} the latest over the symbols of their first time after tau_j; each symbol's
 *            last price at or before tau_j. */
typedef enum raid_cov_sync { RAID_COV_SYNC_PREVIOUS = 0, RAID_COV_SYNC_REFRESH = 1 } raid_cov_sync;

/** "rcov", "rbpcov", "rsemicov", "hy", "mrc", "mrc_psd", "rkcov"; NULL out of range. */
RAID_API const char *raid_cov_estimator_name(raid_cov_estimator e);
/** The estimator of a name (exact, lower case). Errors (RAID_EINVAL, raid_errmsg()): NULL, unknown name
 *  ("unknown estimator 'X' (valid: rcov, ...)"). */
RAID_API raid_status raid_cov_estimator_parse(const char *name, raid_cov_estimator *out);
/** The number of matrices per day: 3 for RSEMICOV (P, N, M in that order), else 1; 0 out of range. */
RAID_API int raid_cov_parts(raid_cov_estimator e);

/** What raid_cov_compute reports beside the matrices. */
typedef struct raid_cov_info {
    int64_t npresent;  /* symbols with at least one observation */
    int64_t n;         /* the synchronised returns used (M); for HY the largest number of returns of a symbol */
    int64_t bandwidth; /* RKCOV: H; MRC, MRC_PSD: kn; 0 for the others; -1 where the matrix is NAN */
    double min_eig[3]; /* per part, the smallest eigenvalue of the matrix of the present symbols (LAPACK
                          dsyevr, that eigenvalue only); NAN where the matrix is NAN, no symbol is present, or the part is not
                          symmetric (RSEMICOV's M) */
} raid_cov_info;

/** The matrices of one day of nsym symbols.
 *  Symbol s's observations are time_us[offsets[s] .. offsets[s+1]) and price[...] (offsets: nsym + 1
 *  non-decreasing entries), in time order: times (microseconds, any epoch, the same clock for every
 *  symbol) non-decreasing, prices positive and finite. Of several observations at one time the last
 *  counts (the price at a time is the last at or before it). A symbol without observation is absent:
 *  its row and column are NAN; the others form the matrix. Returns are r = log(p_b / p_a) between
 *  consecutive synchronised (HY: consecutive distinct-time) prices, computed as the segmenter computes
 *  returns (docs/measures.md "Returns").
 *  out: raid_cov_parts(est) matrices of nsym x nsym float64, row-major, part after part; each symmetric
 *  part computed once (upper triangle) and mirrored; RSEMICOV's M part in full (it is not symmetric).
 *  info (may be NULL): see raid_cov_info; NULL also skips the eigenvalues (LAPACK dsyevr, O(N^3) per matrix:
 *  at N = 3,000 it costs more than the estimator itself).
 *  On the cpu backend (ctx NULL or cpu) float64 on the host, every sum compensated (each entry within a few
 *  roundings of its exact value on the returns; rcov, rsemicov, mrc and mrc_psd by Ogita-Rump-Oishi Dot2,
 *  each product split exactly by fma, the terms of an entry in return order); the results do not depend on
 *  the number of OpenMP threads.
 *  On a device context the same series are formed on the host in float64 and every sum of products is
 *  accumulated in double-float on the device, upper triangle only: the Gram estimators in tiles of 32 x 32
 *  entries, chunks of 1,024 returns added in float64 on the host in order; hy per pair of symbols by the
 *  cpu path's merge of their two time lists, its terms in chunks of 1,024 positions of the merge added in
 *  float64 on the host in order. Bitwise reproducible, each entry within raid_cov_bound(df, est) x
 *  raid_cov_scale's entry of the cpu path's (docs/precision.md "Covariance"). The device path offers the df
 *  precision policy only: a device context set to f32 is refused (RAID_EINVAL). Work: O(M N^2) (rkcov
 *  O(M N^2 H), mrc O(M N (kn + N))); HY O(n_i + n_j) per pair (n the symbols' distinct times) by a merge
 *  of the two sorted time lists, on either backend.
 *  Errors: RAID_EINVAL (NULL pointers with nsym > 0, est or sync out of range, offsets decreasing, a time
 *  going back within a symbol: "symbol S: time T_us before T_prev_us (observation I)", a price not positive
 *  and finite; on a device, the f32 policy, hy with a symbol of 2^30 - 1,025 or more distinct times in a
 *  day: beyond the device's 32-bit indices), RAID_ENOMEM, the device's (RAID_EDEVMEM, RAID_EDEVLOST,
 *  RAID_EDEVICE, RAID_EBUILD); message: raid_ctx_errmsg(ctx) (ctx NULL: raid_errmsg()). */
RAID_API raid_status raid_cov_compute(raid_ctx *ctx, raid_cov_estimator est, raid_cov_sync sync, size_t nsym,
                                      const int64_t *offsets, const int64_t *time_us, const double *price,
                                      double *out, raid_cov_info *info);

/** The scale S of each entry of raid_cov_compute's device path's bound: |device - cpu| <= raid_cov_bound(df,
 *  est) x S entry by entry (docs/precision.md "Covariance"). Same arguments and shape as raid_cov_compute
 *  (out: parts x nsym x nsym; NAN where the matrix is NAN). S bounds the sum of the absolute values of the
 *  entry's terms by Cauchy-Schwarz on the series the device sums (so an entry whose terms cancel is bounded
 *  against them, not against itself): rcov ||r_a|| ||r_b||; rsemicov the norms of the parts (P: p_a, p_b; N:
 *  n_a, n_b; M: p_a, n_b); mrc c ||Y_a|| ||Y_b|| + (c2/2) ||r_a|| ||r_b|| (mrc_psd the first term), Y the
 *  pre-averaged returns, c and c2 the formula's coefficients; rkcov sqrt(q_a q_b), q_a = |x_a|' W |x_a|, x
 *  the jittered returns, W the Parzen weights' Toeplitz matrix; rbpcov (pi/8) (||r_a||^2 + ||r_b||^2);
 *  hy the absolute sum itself, sum of |x_k y_l| over the overlapping pairs of intervals (at most n_a + n_b
 *  terms: no cheaper bound holds, an interval of one symbol may overlap every interval of the other), by
 *  the same merge; each plus L 2^(e_a + e_b - 100) for binary32 underflow (L terms, 2^e the device's
 *  power-of-two scale of a series). Work O(M N + N^2) (rkcov O(M N H); hy O(n_a + n_b) per pair, the
 *  estimator's own cost).
 *  Errors: raid_cov_compute's on the cpu; message: raid_errmsg(). */
RAID_API raid_status raid_cov_scale(raid_cov_estimator est, raid_cov_sync sync, size_t nsym, const int64_t *offsets,
                                    const int64_t *time_us, const double *price, double *out);
/** The relative bound of the device path against raid_cov_scale (docs/precision.md "Covariance"): for the df
 *  policy 1e-12 (rcov, rsemicov, hy, mrc, mrc_psd, rkcov), 2e-12 (rbpcov); NAN for the
 *  f32 policy (not offered: the device path refuses it) or est out of range. */
RAID_API double raid_cov_bound(raid_precision p, raid_cov_estimator est);
/** The largest |a_e - b_e| / scale_e over e < n (a device result, a cpu result, raid_cov_scale): 0 where
 *  a_e == b_e or both are NAN; INFINITY where exactly one is NAN, or they differ where scale_e is not
 *  positive. */
RAID_API double raid_cov_diff(const double *a, const double *b, const double *scale, size_t n);

/** The smallest eigenvalue of the symmetric n x n matrix a (row-major; only the finite rows and columns:
 *  a row whose diagonal entry is NAN is left out) by LAPACK dsyevd; NAN when none is left or an entry of
 *  the rest is not finite. Errors: RAID_EINVAL (NULL), RAID_ENOMEM; message: raid_errmsg(). */
RAID_API raid_status raid_cov_min_eig(const double *a, size_t n, double *out);

/** Project the symmetric n x n matrix a (row-major, in place) to the nearest positive semidefinite matrix
 *  with the same diagonal in the sense of Higham (2002, IMA J. Numer. Anal. 22, "Computing the nearest
 *  correlation matrix"): its correlation matrix C = D^-1/2 a D^-1/2 is replaced by the nearest correlation
 *  matrix in the Frobenius norm (alternating projections with Dykstra's correction, Higham's Algorithm
 *  3.3, until the relative change is below 1e-12 or 10,000 iterations), then scaled back by D^1/2: the
 *  variances are kept. Rows with a NAN diagonal are left as they are; a row with a zero (or negative)
 *  variance becomes zero (a PSD matrix with a zero variance has a zero row). *iterations (may be NULL):
 *  the iterations used. Errors: RAID_EINVAL (NULL; LAPACK dsyevd failing to converge, which a finite
 *  symmetric matrix does not make it do), RAID_ENOMEM; message: raid_errmsg(). */
RAID_API raid_status raid_cov_psd_project(double *a, size_t n, int *iterations);

/* ------------------------------------------------------------------------------------------------ */
/* The covariance job: daily matrices from a source of intraday prices (raid cov, raid.cov)          */
/* ------------------------------------------------------------------------------------------------ */

/** Options of the job; raid_cov_opts_init sets the defaults noted here. */
typedef struct raid_cov_opts {
    raid_cov_estimator estimator; /* default RAID_COV_RCOV */
    raid_cov_sync sync;           /* default RAID_COV_SYNC_PREVIOUS */
    const char *const *symbols;   /* NULL: every symbol of the source, in order of first appearance; else
                                     nsymbols names, the matrices' order (a symbol never seen is absent) */
    size_t nsymbols;
    int64_t min_obs;              /* a symbol with fewer sampled prices on a day is absent that day; default 2 */
    int psd_project;              /* 1: each symmetric part projected (raid_cov_psd_project); default 0 */
} raid_cov_opts;

RAID_API void raid_cov_opts_init(raid_cov_opts *o);

/* A covariance job: it pulls the segments of a source opened with raid_read_opts.samples = 1 (the
 * sampled prices and their local times: tick sampling or a calendar grid), groups them by trading date,
 * and computes the matrices of a date once it is complete: with a list of symbols, once every listed
 * symbol has delivered a segment of a later date (or the source is exhausted), so that memory holds the
 * days still open (a file in time order holds one or two); without a list, the set of symbols is known
 * only at the end, and every day is held until then. Complete days are written to the job's output when
 * one is set (raid_cov_job_set_output: nothing kept but the dates), else kept for the accessors.
 *
 * Order of calls: create; optionally set_output; add_reader or add_ticks until the source is exhausted
 * (one source per job); finish; the accessors (or the symbols and dates files); destroy. A call out of
 * order is RAID_EINVAL. Errors of the adds: the source's (with its message unchanged: RAID_EPARSE
 * "FILE:LINE:COL: ..." and the others of include/raid/reader.h), raid_cov_compute's (a time going back within
 * a day of a symbol, as local time does at a change of daylight saving time: "symbol 'S', DATE: local time
 * ... goes back ...; give --tz UTC or a session without the change"), RAID_EIO when writing, RAID_ENOMEM;
 * message: raid_errmsg() (and raid_ctx_errmsg(ctx)). A failed job takes no more calls but destroy. */
typedef struct raid_cov_job raid_cov_job;

/** Formats of the job's output (raid_cov_job_set_output). */
typedef enum raid_cov_format {
    RAID_COV_CSV = 0, /* long CSV: date,symbol_i,symbol_j,value (i <= j, in the symbols' order); RSEMICOV:
                         date,symbol_i,symbol_j,part,value with parts P and N for i <= j and M for every
                         (i, j); value empty where NAN */
    RAID_COV_NPY = 1  /* a NumPy .npy file (format 1.0, '<f8', C order) of shape (days, N, N), RSEMICOV
                         (days, 3, N, N); the header is rewritten with the number of days by finish, so the
                         file must be seekable */
} raid_cov_format;

/** A job for options o (NULL: the defaults). The list of symbols is copied. Errors: RAID_EINVAL (NULL
 *  out, an estimator or sync out of range, min_obs < 1, an empty list (symbols not NULL, nsymbols 0), a
 *  symbol NULL, empty or given twice), RAID_ENOMEM; message: raid_errmsg(). */
RAID_API raid_status raid_cov_job_create(raid_cov_job **out, const raid_cov_opts *o);
RAID_API void raid_cov_job_destroy(raid_cov_job *job);
/** Write complete days to f in format fmt as they come (before the first add); f stays the caller's. */
RAID_API raid_status raid_cov_job_set_output(raid_cov_job *job, FILE *f, raid_cov_format fmt);
/** Pull a batch of whole segments from rd (opened with samples = 1) and compute the days it completes;
 *  *done = 1 once rd is exhausted (every day then computed). ctx: the context of raid_cov_compute. */
RAID_API raid_status raid_cov_job_add_reader(raid_cov_job *job, raid_ctx *ctx, raid_reader *rd, int *done);
/** As add_reader for a raid_ticks segmenter (created with samples = 1); finish = 1: no more rows. */
RAID_API raid_status raid_cov_job_add_ticks(raid_cov_job *job, raid_ctx *ctx, raid_ticks *tk, int finish);
/** Check every day against the float64 cpu path (`raid cov --check`): each day computed on the add's
 *  context is computed on cpu too (a cpu-backend context) and compared entry by entry before any projection,
 *  the largest raid_cov_diff against raid_cov_scale kept. Before the first add. Errors (raid_errmsg()):
 *  RAID_EINVAL (NULL, cpu not a cpu context, an add made). */
RAID_API raid_status raid_cov_job_set_check(raid_cov_job *job, raid_ctx *cpu);
/** The check's result: the number of days compared (0: none, or no check); max_diff (may be NULL) the largest
 *  raid_cov_diff over them; bound (may be NULL) raid_cov_bound of the checked context's precision policy and
 *  the estimator (NAN for f32). The check failed where *max_diff > *bound. */
RAID_API size_t raid_cov_job_check(const raid_cov_job *job, double *max_diff, double *bound);
/** After the source is exhausted: completes the output (the .npy header's shape). */
RAID_API raid_status raid_cov_job_finish(raid_cov_job *job);

/* Accessors, after finish: days in date order, symbols in the matrices' order. values: NULL when an output
 * was set (the days went there) or there is no day; else days x parts x N x N float64. min_eig: days x
 * parts; n: days (raid_cov_info.n). */
RAID_API size_t raid_cov_job_ndays(const raid_cov_job *job);
RAID_API size_t raid_cov_job_nsymbols(const raid_cov_job *job);
RAID_API const char *raid_cov_job_symbol(const raid_cov_job *job, size_t i);
RAID_API const int32_t *raid_cov_job_dates(const raid_cov_job *job); /* yyyymmdd */
RAID_API const double *raid_cov_job_values(const raid_cov_job *job);
RAID_API const double *raid_cov_job_min_eig(const raid_cov_job *job);
RAID_API const int64_t *raid_cov_job_n(const raid_cov_job *job);
/** The symbols, one a line (as raid_csv_put_field writes a field), and the dates (YYYY-MM-DD), one a
 *  line: the companions of the .npy output. Errors: RAID_EINVAL (NULL, not finished), RAID_EIO. */
RAID_API raid_status raid_cov_job_write_symbols(const raid_cov_job *job, FILE *f);
RAID_API raid_status raid_cov_job_write_dates(const raid_cov_job *job, FILE *f);
/** The PSD report: a CSV "date,n,min_eig" (RSEMICOV: "date,n,min_eig_P,min_eig_N"), one row a day,
 *  n and min_eig of raid_cov_info (before any projection), NAN as an empty field. Errors as above. */
RAID_API raid_status raid_cov_job_write_info(const raid_cov_job *job, FILE *f);

#ifdef __cplusplus
}
#endif
#endif /* RAID_COV_H */
