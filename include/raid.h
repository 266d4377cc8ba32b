/*
 * raid.h -- the one public header of libraid.
 *
 * RAID computes float64-faithful realized measures (and, later, regressions and volatility models) on
 * OpenCL devices whose float64 is missing or slow: every device accumulator is a double-float pair kept
 * with error-free transforms, chunk partials are combined in float64 on the host in a fixed order, and
 * every device result can be checked against the float64 CPU backend.
 *
 * Conventions
 *   - Every function returns a raid_status; RAID_OK is 0. A detailed message for the last failure on an
 *     object is available from its *_errmsg() function; raid_strerror() names the status itself.
 *   - No global mutable state: everything lives in the handles below. A raid_ctx may be used by one
 *     thread at a time; create one per thread or serialise calls. A process normally holds one context
 *     per device: it owns the OpenCL context, queue, program and kernel cache and the buffer pool.
 *   - Sizes and offsets are 64-bit on the host. Returns are log returns (dimensionless); realized
 *     measures are in squared (rv, bpv, rs_*, medrv) or fourth (rq, tpq) powers of the return unit.
 *   - Undefined values (a measure of a segment too short for it) are NAN, written as an empty CSV field.
 */
#ifndef RAID_H
#define RAID_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Symbols of the shared library are hidden unless marked RAID_API. */
#if defined(__GNUC__)
#define RAID_API __attribute__((visibility("default")))
#else
#define RAID_API
#endif

#define RAID_VERSION_MAJOR 0
#define RAID_VERSION_MINOR 1
#define RAID_VERSION_PATCH 0
#define RAID_VERSION_STRING "0.1.0"

/** The library's version string, e.g. "0.1.0". */
RAID_API const char *raid_version(void);

/* ------------------------------------------------------------------------------------------------ */
/* Errors                                                                                            */
/* ------------------------------------------------------------------------------------------------ */

typedef enum raid_status {
    RAID_OK = 0,
    RAID_EINVAL = 1,      /* an argument is out of its documented domain */
    RAID_ENOMEM = 2,      /* host memory allocation failed */
    RAID_EIO = 3,         /* a file could not be opened, read or written */
    RAID_EPARSE = 4,      /* bad input data: the message names file, line and column */
    RAID_ENODEV = 5,      /* no device matches the requested selection */
    RAID_EDEVICE = 6,     /* an OpenCL call failed (the message names the call and the CL error) */
    RAID_EBUILD = 7,      /* a kernel failed to build (the message carries the build log) */
    RAID_EDEVMEM = 8,     /* the device ran out of memory */
    RAID_EDEVLOST = 9,    /* the device was lost or a kernel faulted */
    RAID_EUNSUPPORTED = 10, /* the operation is not available in this build or on this device */
    RAID_ESINGULAR = 11    /* a regression design is singular or too ill-conditioned to solve */
} raid_status;

/** A static, human-readable name of a status ("invalid argument", ...). Never NULL. */
RAID_API const char *raid_strerror(raid_status s);

/* ------------------------------------------------------------------------------------------------ */
/* Context: backend selection and precision policy                                                   */
/* ------------------------------------------------------------------------------------------------ */

typedef struct raid_ctx raid_ctx;

typedef enum raid_backend { RAID_BACKEND_CPU = 0, RAID_BACKEND_OPENCL = 1 } raid_backend;

/** Input precision policy of the device path (see docs/precision.md).
 *  RAID_PREC_F32: each float64 return is rounded to binary32 (4 bytes per return on the device).
 *  RAID_PREC_DF : each float64 return is split on the host into hi = (float)r, lo = (float)(r - hi)
 *                 (8 bytes per return), representing r to about 2^-48 relative.
 *  The default is RAID_PREC_DF: the float64-faithful answer at twice the bytes. */
typedef enum raid_precision { RAID_PREC_F32 = 0, RAID_PREC_DF = 1 } raid_precision;

/** Create a context.
 *  device: "auto" (the first OpenCL GPU, else cpu), "cpu" (float64 reference, OpenMP), "opencl" (the
 *  first OpenCL device of any type) or "opencl:P.D" (platform P, device D, 0-based, as `raid devices`
 *  lists them). NULL means the environment variable RAID_DEVICE, or "auto" when it is unset.
 *  Errors: RAID_EINVAL (unknown spec), RAID_ENODEV, RAID_EDEVICE, RAID_ENOMEM. On failure *out is NULL;
 *  a message is written to errbuf (if not NULL, errbuf_len bytes at most). */
RAID_API raid_status raid_ctx_create(raid_ctx **out, const char *device, char *errbuf, size_t errbuf_len);

/** Destroy a context and every device resource it holds. NULL is a no-op. */
RAID_API void raid_ctx_destroy(raid_ctx *ctx);

/** The backend in use and a description of the device ("cpu (float64, 2 threads)", "opencl:0.0 NVIDIA H200"). */
RAID_API raid_backend raid_ctx_backend(const raid_ctx *ctx);
RAID_API const char *raid_ctx_device_name(const raid_ctx *ctx);

/** The message of the last failure on this context ("" if none). Valid until the next call on ctx. */
RAID_API const char *raid_ctx_errmsg(const raid_ctx *ctx);

/** Precision policy (ignored by the cpu backend, which is float64 throughout). Default RAID_PREC_DF. */
RAID_API raid_status raid_ctx_set_precision(raid_ctx *ctx, raid_precision p);
RAID_API raid_precision raid_ctx_precision(const raid_ctx *ctx);

/** Chunk plan policy: chunk_len returns per chunk (default 4096), reduced by one work-group of
 *  wg_width work-items (default 256). chunk_len must be a positive multiple of wg_width, wg_width a
 *  power of two in [1, 1024] and at most the device's work-group limit. Device results are bitwise
 *  reproducible for a given (chunk_len, wg_width). Errors: RAID_EINVAL. */
RAID_API raid_status raid_ctx_set_chunk(raid_ctx *ctx, size_t chunk_len, size_t wg_width);
RAID_API void raid_ctx_chunk(const raid_ctx *ctx, size_t *chunk_len, size_t *wg_width);

/** Where kernel timings are reported: after each device call, the summed kernel time (OpenCL
 *  profiling events) and host-to-device bytes of the last call. Zero on the cpu backend. */
typedef struct raid_timing {
    double kernel_s;      /* device kernel time, seconds */
    double upload_s;      /* host-to-device transfer time, seconds (events) */
    double convert_s;     /* host conversion (float64 -> f32/df, chunk plan), seconds (wall) */
    uint64_t bytes_in;    /* bytes of returns moved to the device */
    uint64_t launches;    /* kernel launches */
    uint64_t host_segments; /* segments recomputed on the host in float64 (underflow guard) */
} raid_timing;
RAID_API void raid_ctx_last_timing(const raid_ctx *ctx, raid_timing *t);

/* ------------------------------------------------------------------------------------------------ */
/* Devices                                                                                           */
/* ------------------------------------------------------------------------------------------------ */

typedef struct raid_device_info {
    int platform, device;        /* indices for "opencl:P.D" */
    char platform_name[128];
    char name[128];
    char type[16];               /* "gpu", "cpu", "accelerator", "other" */
    unsigned compute_units;
    uint64_t global_mem_bytes;
    int has_fp64;                /* 1 if the device reports double-precision support */
} raid_device_info;

/** List OpenCL devices. Writes up to cap entries to out and their total number to *count.
 *  With no OpenCL runtime or no platform, *count is 0 and the status RAID_OK. */
RAID_API raid_status raid_devices(raid_device_info *out, size_t cap, size_t *count);

/* ------------------------------------------------------------------------------------------------ */
/* Realized measures                                                                                 */
/* ------------------------------------------------------------------------------------------------ */

/** Daily realized measures of one segment of M returns (Barndorff-Nielsen and Shephard 2004, 2006;
 *  Barndorff-Nielsen, Kinnebrock and Shephard 2010; Andersen, Dobrev and Schaumburg 2012; Huang and
 *  Tauchen 2005). Formulas and constants: docs/measures.md. NAN where undefined for M. */
typedef struct raid_realized {
    int64_t n;        /* M, the number of returns */
    double rv;        /* sum r^2                                   (M >= 1) */
    double bpv;       /* (pi/2) sum |r_i||r_{i-1}|                 (M >= 2) */
    double rs_neg;    /* sum r^2 1{r<0}                            (M >= 1) */
    double rs_pos;    /* sum r^2 1{r>0}                            (M >= 1) */
    double rq;        /* (M/3) sum r^4                             (M >= 1) */
    double tpq;       /* tripower quarticity                       (M >= 3) */
    double medrv;     /* median realized variance                  (M >= 3) */
    double jump_z;    /* ratio jump statistic                      (M >= 3, rv > 0, bpv > 0) */
    double jump_p;    /* 1 - Phi(jump_z)                           (as jump_z) */
} raid_realized;

#define RAID_REALIZED_NMEASURES 9
#define RAID_MAX_RETURN 1e74
/** Names of the measure columns in output order: "rv","bpv","rs_neg","rs_pos","rq","tpq","medrv",
 *  "jump_z","jump_p". raid_realized_get(x, k) returns the k-th of them. */
extern RAID_API const char *const raid_realized_names[RAID_REALIZED_NMEASURES];
RAID_API double raid_realized_get(const raid_realized *x, int k);

/** Compute the realized measures of nseg segments.
 *  r: the returns of all segments back to back; segment s is r[offsets[s] .. offsets[s+1]) (offsets has
 *  nseg+1 non-decreasing entries, offsets[0] may be non-zero). out: nseg results.
 *  On the cpu backend everything is float64; on opencl one fused kernel accumulates per chunk in
 *  double-float and the host combines the partials in float64 (docs/precision.md).
 *  Returns must be finite and at most RAID_MAX_RETURN = 1e74 in magnitude (beyond, r^4 overflows float64
 *  in the quarticity sums); log returns of prices are far below.
 *  Errors: RAID_EINVAL (NULL pointers, decreasing offsets, a return that is not finite or exceeds
 *  RAID_MAX_RETURN), RAID_ENOMEM and the device errors. */
RAID_API raid_status raid_realized_compute(raid_ctx *ctx, const double *r, const int64_t *offsets, size_t nseg,
                                  raid_realized *out);

/** Documented worst-case relative bound of the device path against float64 for measure k (order of
 *  raid_realized_names) under policy p, for a segment of M returns. For jump_z and jump_p the bound is on
 *  the scaled error described in docs/precision.md. */
RAID_API double raid_realized_bound(raid_precision p, int k, int64_t M);

/** The scaled difference used by `--check` between a device result a and a float64 result b for
 *  measure k: |a-b|/|b| for k < 7; for jump_z and jump_p the difference scaled as docs/precision.md says.
 *  0 when both are NAN; INFINITY when exactly one is. */
RAID_API double raid_realized_diff(const raid_realized *a, const raid_realized *b, int k);


/* ------------------------------------------------------------------------------------------------ */
/* Regression: sufficient statistics on the device, solution and inference in float64 on the host     */
/* ------------------------------------------------------------------------------------------------ */

#define RAID_REG_MAX_K 8          /* regressors per problem, the intercept column included */
#define RAID_REG_MAX_COND 1e12    /* largest accepted condition number estimate of the matrix factored
                                     (see raid_ols.cond) */

/** Sufficient statistics of one least-squares problem y = X b + e over n rows: the column means and the
 *  centred cross-products, which keep their accuracy when a column's mean is large against its spread
 *  (raw moments rounded to float64 cannot: sum x^2 of x = 1e4 + N(0,1) holds the variance in its last
 *  digits), and the raw moments derived from them (X'X = C + n m m'). */
typedef struct raid_reg_stats {
    int k;                                        /* columns of X */
    int64_t n;                                    /* rows */
    double mean[RAID_REG_MAX_K + 1];              /* column means of X, then of y */
    double cxx[RAID_REG_MAX_K * RAID_REG_MAX_K];  /* sum (x_p - m_p)(x_q - m_q), row-major k x k */
    double cxy[RAID_REG_MAX_K];                   /* sum (x_p - m_p)(y - m_y) */
    double cyy;                                   /* sum (y - m_y)^2 */
    double xtx[RAID_REG_MAX_K * RAID_REG_MAX_K];  /* X'X = cxx + n m m', full symmetric, row-major k x k */
    double xty[RAID_REG_MAX_K];                   /* X'y */
    double yty;                                   /* y'y */
    double ysum;                                  /* sum of y */
} raid_reg_stats;

/** Sufficient statistics of nreg problems at once (one per symbol, or per window): problem g uses rows
 *  offsets[g] .. offsets[g+1]-1 of X (row-major, k columns, 1 <= k <= RAID_REG_MAX_K) and y.
 *  Both backends centre every column of every problem at its float64 mean (a first pass). On the cpu
 *  backend the centred cross-products are compensated float64 sums. On opencl the host also scales each
 *  centred column by a power of two (so that float32 never sees columns of very different scales), the
 *  device accumulates the cross-products of the centred rows and their first moments in double-float
 *  per chunk (the chunk plan and pipeline of the realized kernel), and the host combines the partials in
 *  float64 in chunk order and removes the first moments (the rounded mean does not centre exactly):
 *  C = sum z z' - s s'/n. Bitwise reproducible for a given chunk length and work-group width.
 *  Values must be finite and at most 1e150 in magnitude (their products must not overflow float64).
 *  Errors: RAID_EINVAL (k out of range, decreasing offsets, a value out of range, NULL), RAID_ENOMEM and
 *  the device errors. */
RAID_API raid_status raid_reg_stats_compute(raid_ctx *ctx, const double *X, const double *y, int k,
                                            const int64_t *offsets, size_t nreg, raid_reg_stats *out);

/** Statistics of the union of two disjoint sets of rows of the same k columns, from theirs, in float64:
 *  n = na + nb, mean = (na ma + nb mb) / n, C = Ca + Cb + (na nb / n) (ma - mb)(ma - mb)'
 *  (Chan, Golub and LeVeque 1979), raw moments derived as in raid_reg_stats. Rolling and expanding
 *  windows combine per-block statistics this way instead of re-accumulating every window or adding
 *  and subtracting rows. out may alias a or b. Errors: RAID_EINVAL (different k, NULL). */
RAID_API raid_status raid_reg_stats_combine(const raid_reg_stats *a, const raid_reg_stats *b, raid_reg_stats *out);

/** Statistics of rows [s0, s1) of one series from the statistics of its blocks: blocks[b] holds rows
 *  [b B, (b + 1) B) of the series (B = block_rows, the last block may be short), X and y start at the
 *  series' row 0. The whole blocks inside the range are combined (raid_reg_stats_combine) and the partial
 *  blocks at its edges (fewer than B rows each) computed with cpu, a context of the cpu backend that
 *  this call uses from one thread: a rolling or expanding window costs O((N/B + B) k^2) and no row is
 *  ever added and then subtracted. Errors: RAID_EINVAL (s0 > s1, s0 < 0, NULL, block_rows 0), and those
 *  of raid_reg_stats_compute. */
RAID_API raid_status raid_reg_stats_range(raid_ctx *cpu, const raid_reg_stats *blocks, size_t block_rows,
                                          const double *X, const double *y, int k, int64_t s0, int64_t s1,
                                          raid_reg_stats *out);

/** Robust "meat" of problem g with coefficients beta (k per problem), residuals e = y - X beta:
 *  meat[g][0] = sum_t e_t^2 x_t x_t' (White) and, for l = 1..max_lag, meat[g][l] = sum_t e_t e_{t-l} x_t x_{t-l}'
 *  (t and t-l both inside the problem's rows; full k x k, not symmetric). out holds
 *  nreg * (max_lag + 1) * k * k doubles, problem-major, then lag, then row-major k x k. On the cpu
 *  backend (or ctx NULL, then without messages) the scores u = e x and their sums are long double on the
 *  host. On opencl the rows are uploaded once, centred by column means and scaled by powers of two per
 *  column, and a device pass (kernels/meat.cl) forms e and u in double-float and sums the pairs inside
 *  chunks of up to 1,024 rows in double-float; the host adds the pairs across chunks in float64: within
 *  2e-11 (df) or 4u(1 + 2u) + 2e-11 (f32) of sum_t w_t[p] w_{t-l}[q], with w_t[p] the size of the
 *  centred terms of e_t times |x_t[p]| (with an intercept column: times |x_t[p] - m_p|, m a centre of the
 *  problem's rows, the sums mapped back in float64; docs/regression.md). Errors: RAID_EINVAL (also when a residual times a regressor is not
 *  finite), RAID_ENOMEM, and the device errors. */
RAID_API raid_status raid_reg_meat_compute(raid_ctx *ctx, const double *X, const double *y, int k,
                                           const int64_t *offsets, size_t nreg, const double *beta,
                                           int max_lag, double *out);

/** The same for problems given as row ranges [start[i], end[i]) that may overlap, e.g. the rolling
 *  windows of one series, each with its own coefficients (beta: k per range); out as above, range-major.
 *  On opencl all ranges go through one device pass. Errors: RAID_EINVAL (a range with end < start or
 *  start < 0, k or max_lag out of range, NULL, a residual times a regressor not finite), RAID_ENOMEM and
 *  the device errors. */
RAID_API raid_status raid_reg_meat_ranges(raid_ctx *ctx, const double *X, const double *y, int k,
                                          const int64_t *start, const int64_t *end, size_t n, const double *beta,
                                          int max_lag, double *out);

/** The same with the scores taken about a centre: u_t = e_t (x_t - centre_r), centre k values per range
 *  (NULL: 0, i.e. raid_reg_meat_ranges). With an intercept column (centre 0 there) and the range's column
 *  means as the centre, the sums keep the scale of the centred regressors instead of their levels, and
 *  raid_ols_robust_at with the same centre gives the standard errors without the cancellation that limits
 *  raid_ols_robust (RAID_REG_MAX_ROBUST_LOSS; docs/regression.md). Errors as raid_reg_meat_ranges, and
 *  RAID_EINVAL for a centre that is not finite. */
RAID_API raid_status raid_reg_meat_ranges_at(raid_ctx *ctx, const double *X, const double *y, int k,
                                             const int64_t *start, const int64_t *end, size_t n,
                                             const double *beta, const double *centre, int max_lag, double *out);

/** Largest float64 cancellation bound that raid_ols_robust accepts (relative, on the variances). */
#define RAID_REG_MAX_ROBUST_LOSS 1e-8

typedef enum raid_se_kind {
    RAID_SE_OLS = 0,   /* sigma^2 (X'X)^-1, sigma^2 = SSR / (n - k) */
    RAID_SE_WHITE = 1, /* HC0: (X'X)^-1 S0 (X'X)^-1 (White 1980) */
    RAID_SE_NW = 2     /* Newey-West (1987), Bartlett weights 1 - l/(L+1), no small-sample factor:
                          statsmodels' cov_type='HAC' with its default use_correction=False */
} raid_se_kind;

/** Estimates and inference of one regression. */
typedef struct raid_ols {
    int k;
    int64_t n;
    double beta[RAID_REG_MAX_K];
    double se[RAID_REG_MAX_K];
    double tstat[RAID_REG_MAX_K];
    double pvalue[RAID_REG_MAX_K]; /* two-sided: Student t(n-k) for RAID_SE_OLS, normal for WHITE and NW
                                      (statsmodels' defaults) */
    double r2, r2_adj;             /* centred R^2 when the design has an intercept column, else uncentred */
    double ssr;                    /* sum of squared residuals, from the statistics */
    double sigma2;                 /* ssr / (n - k) */
    double cond;                   /* 1-norm condition number estimate (LAPACK dpocon) of the matrix
                                      factored, its columns scaled to unit diagonal: the centred
                                      cross-products of the non-constant columns when X has a constant
                                      column, else X'X; 1 for an intercept alone */
} raid_ols;

/** Coefficients and OLS standard errors from sufficient statistics, in float64. A constant column
 *  (cxx[j][j] == 0, mean[j] != 0) is the intercept: the slopes solve the centred system cxx b = cxy by
 *  Cholesky (LAPACKE_dpotrf/dpotrs, columns equilibrated by powers of two, one step of iterative
 *  refinement) and the intercept comes from the means; without one X'X b = X'y is solved.
 *  has_intercept only selects the centred R^2. Errors: RAID_ESINGULAR (not positive definite, two
 *  constant columns, or condition estimate above RAID_REG_MAX_COND; the message gives it), RAID_EINVAL
 *  (n <= k, k out of range, a non-finite statistic, NULL). */
RAID_API raid_status raid_ols_from_stats(const raid_reg_stats *s, int has_intercept, raid_ols *out, char *err,
                                         size_t errlen);

/** Replace the standard errors, t statistics and p-values of o by robust ones: kind RAID_SE_WHITE uses
 *  meat[0]; RAID_SE_NW uses S = meat[0] + sum_{l=1}^{L} (1 - l/(L+1)) (meat[l] + meat[l]') with L = max_lag
 *  (meat as raid_reg_meat_compute writes it for this problem); kind RAID_SE_OLS restores
 *  sigma^2 (X'X)^-1 (meat may be NULL). Errors: RAID_EINVAL, RAID_ESINGULAR (the design; or, for the
 *  robust kinds, a variance that is not positive, or float64's cancellation bound 2^-53 (1 + R)^2 above
 *  RAID_REG_MAX_ROBUST_LOSS, R = max over the non-constant columns of |mean| / standard deviation when X
 *  has a constant column: subtract a constant from such a column, docs/regression.md). */
RAID_API raid_status raid_ols_robust(const raid_reg_stats *s, const double *meat, int max_lag, raid_se_kind kind,
                                     raid_ols *o);

/** The centre for raid_reg_meat_ranges_at and raid_ols_robust_at from a problem's statistics: c[p] = its
 *  column means, 0 on the constant column (the intercept: cxx[p][p] == 0, mean != 0); all 0 when X has
 *  no constant column. c holds s->k values. */
RAID_API void raid_reg_stats_centre(const raid_reg_stats *s, double *c);

/** R = max over the non-constant columns of |mean| / standard deviation (sd = sqrt(cxx[p][p] / n)) when X
 *  has a constant column, else 0: how far the levels stand above the spread, the factor that float64's
 *  cancellation in the robust sandwich grows with (raid_ols_robust, raid_ols_robust_at). */
RAID_API double raid_reg_level_ratio(const raid_reg_stats *s);

/** raid_ols_robust for a meat taken about a centre (raid_reg_meat_ranges_at; k values, NULL: 0). A nonzero
 *  centre needs a constant column in X (the intercept), with centre 0 there: the regression on x - centre
 *  is the same one with a shifted intercept, so the slopes' variances come from the centred basis and the
 *  intercept's is mapped back (in long double). Use the means (raid_reg_stats_centre): the cancellation
 *  bound 2^-53 (1 + R)^2 counts float64's rounding with R = max |mean - centre| / sd, but a device meat's
 *  own error (2e-11 of its scale) is amplified by the same (1 + R)^2 for a centre far from the means; and
 *  the means' rounding enters as 2^-53 R0, R0 = max |mean| / sd, refused above RAID_REG_MAX_ROBUST_LOSS.
 *  Errors as raid_ols_robust; RAID_EINVAL for a nonzero centre without a constant column, or on it (any
 *  kind). */
RAID_API raid_status raid_ols_robust_at(const raid_reg_stats *s, const double *meat, const double *centre,
                                        int max_lag, raid_se_kind kind, raid_ols *o);

/* ------------------------------------------------------------------------------------------------ */
/* Reading intraday prices (or returns) from CSV into segments                                       */
/* ------------------------------------------------------------------------------------------------ */

typedef struct raid_reader raid_reader;

typedef enum raid_input_kind { RAID_INPUT_PRICES = 0, RAID_INPUT_RETURNS = 1 } raid_input_kind;

/** Options of raid_reader_open; raid_read_opts_init() sets the defaults noted here. */
typedef struct raid_read_opts {
    raid_input_kind kind;      /* RAID_INPUT_PRICES (default) or RAID_INPUT_RETURNS */
    const char *symbol_col;    /* column names, matched case-insensitively; NULL = "symbol" (optional column) */
    const char *time_col;      /* NULL = "timestamp" (prices) */
    const char *price_col;     /* NULL = "price" (prices) */
    const char *date_col;      /* NULL = "date" (returns) */
    const char *ret_col;       /* NULL = "ret" (returns) */
    const char *tz;            /* IANA zone "Area/City" for timestamps that carry an offset; NULL = "UTC" */
    int32_t session_start_s;   /* seconds after local midnight, -1 = no session window (default) */
    int32_t session_end_s;     /* inclusive end of the window, seconds after midnight */
    int64_t sample_us;         /* sampling interval in microseconds; 0 = tick (every observation); default 300e6 (5min) */
} raid_read_opts;

RAID_API void raid_read_opts_init(raid_read_opts *o);

/** Parse "tick", "Ns", "Nmin" (N a positive integer; also "Nms", "Nh") into microseconds (0 for tick).
 *  Errors: RAID_EINVAL. */
RAID_API raid_status raid_parse_sample(const char *s, int64_t *us);
/** Parse "HH:MM-HH:MM" into seconds after midnight. Errors: RAID_EINVAL. */
RAID_API raid_status raid_parse_session(const char *s, int32_t *start_s, int32_t *end_s);

/** A batch of whole segments (symbol, date) with their returns, filled by raid_reader_next. */
typedef struct raid_batch {
    double *ret;         /* returns of all segments back to back */
    size_t nret, ret_cap;
    int64_t *offsets;    /* nseg + 1 entries: segment s is ret[offsets[s] .. offsets[s+1]) */
    uint32_t *symbol;    /* nseg symbol indices (raid_reader_symbol) */
    int32_t *date;       /* nseg dates as yyyymmdd */
    size_t nseg, seg_cap;
} raid_batch;

RAID_API void raid_batch_init(raid_batch *b);
RAID_API void raid_batch_clear(raid_batch *b);   /* keeps the memory */
RAID_API void raid_batch_free(raid_batch *b);

/** Open a CSV file (header row; "-" reads standard input). Errors: RAID_EIO, RAID_EPARSE (missing
 *  column: the message names the file, line 1 and the column), RAID_EINVAL (bad options, unknown tz),
 *  RAID_ENOMEM. On failure *out is NULL and errbuf (if not NULL) holds the message. */
RAID_API raid_status raid_reader_open(raid_reader **out, const char *path, const raid_read_opts *o,
                             char *errbuf, size_t errbuf_len);

/** Append complete segments to b (b is not cleared first) until it holds at least max_returns returns
 *  or the input ends. Memory is bounded by the open segments (one per symbol) plus the batch.
 *  Sets *done to 1 when the input is exhausted and every segment has been delivered.
 *  Errors: RAID_EPARSE ("FILE:LINE:COL: message" from raid_reader_errmsg), RAID_EIO, RAID_ENOMEM. */
RAID_API raid_status raid_reader_next(raid_reader *rd, raid_batch *b, size_t max_returns, int *done);

/** The message of the last failure ("" if none). */
RAID_API const char *raid_reader_errmsg(const raid_reader *rd);
/** Name of symbol index i ("" when the file has no symbol column); NULL if out of range. */
RAID_API const char *raid_reader_symbol(const raid_reader *rd, uint32_t i);
/** Bytes consumed so far and total file size (0 if unknown), for progress reporting. */
RAID_API void raid_reader_progress(const raid_reader *rd, uint64_t *consumed, uint64_t *total);
RAID_API void raid_reader_close(raid_reader *rd);

/* ------------------------------------------------------------------------------------------------ */
/* Simulation                                                                                        */
/* ------------------------------------------------------------------------------------------------ */

/** Stochastic-volatility model with jumps and microstructure noise (docs/simulate.md). */
typedef struct raid_sim_opts {
    uint64_t seed;           /* default 1 */
    int nsymbols;            /* default 1 */
    int ndays;               /* default 1 */
    int64_t obs_per_day;     /* observations per day (prices), default 23401 (1 s over 6.5 h) */
    double mean_var;         /* long-run daily variance of log price, default 1e-4 */
    double vol_of_logvar;    /* volatility of log variance per sqrt(day), default 0.5 */
    double mean_reversion;   /* mean reversion of log variance per day, default 0.2 */
    double rho;              /* correlation of price and variance shocks (leverage), default -0.5 */
    double jump_rate;        /* expected jumps per day, default 0.1 */
    double jump_sd;          /* standard deviation of a jump in log price, default 0.005 */
    double noise_sd;         /* i.i.d. Gaussian noise on log price, default 0 */
    double start_price;      /* default 100 */
} raid_sim_opts;

RAID_API void raid_sim_opts_init(raid_sim_opts *o);

/** Simulate log returns directly (no CSV): nsymbols*ndays segments of obs_per_day-1 returns each, in
 *  symbol-major order. r must hold nsymbols*ndays*(obs_per_day-1) doubles, iv nsymbols*ndays (the
 *  integrated variance of each day, may be NULL). Errors: RAID_EINVAL. */
RAID_API raid_status raid_simulate_returns(const raid_sim_opts *o, double *r, double *iv);

/** Write the simulated prices as CSV "symbol,timestamp,price" to prices_path (09:30:00 to 16:00:00 on
 *  consecutive weekdays from 2020-01-02, evenly spaced) and, if iv_path is not NULL, "symbol,date,iv".
 *  Files are written to a temporary name and renamed. Errors: RAID_EINVAL, RAID_EIO, RAID_ENOMEM. */
RAID_API raid_status raid_simulate_csv(const raid_sim_opts *o, const char *prices_path, const char *iv_path,
                              char *errbuf, size_t errbuf_len);

#ifdef __cplusplus
}
#endif
#endif /* RAID_H */
