/*
 * raid/realized.h -- daily realized measures of ragged segments of returns, their device bounds and the check's differences.
 * Part of the public API; include <raid.h> for all of it. Conventions: raid/core.h.
 */
#ifndef RAID_REALIZED_H
#define RAID_REALIZED_H

#include "raid/core.h"
#include "raid/reader.h"

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

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
 *  r: the returns of all segments back to back, host memory or, on a CUDA context, CUDA device memory of its
 *  device (docs/device.md "The caller's device memory"): read in place by the device's kernel; the host
 *  reads back the returns at the chunks' seams (four a chunk of raid_ctx_chunk's length) and copies to the
 *  host only a chunk that holds a return out of range (for the message) and a segment whose sums are small
 *  enough for binary32 underflow to matter (docs/precision.md; raid_timing.host_segments counts them). At
 *  most 2^32 - 2 returns of device memory in one call (RAID_EUNSUPPORTED). Device memory on a cpu or OpenCL
 *  context, or of another device, is refused (RAID_EINVAL), never read. offsets and out are host memory.
 *  The caller's work on r must be complete before the call; the library's is complete when it returns.
 *  Segment s is r[offsets[s] .. offsets[s+1]) (offsets has
 *  nseg+1 non-decreasing entries, offsets[0] may be non-zero), each in time order (index order: there are
 *  no times here; bipower, tripower, MedRV and the jump test use adjacent returns, so the order matters;
 *  the readers and raid_ticks check the times of prices). out: nseg results.
 *  On the cpu backend everything is float64; on opencl one fused kernel accumulates per chunk in
 *  double-float and the host combines the partials in float64 (docs/precision.md).
 *  Returns must be finite and at most RAID_MAX_RETURN = 1e74 in magnitude (beyond, r^4 overflows float64
 *  in the quarticity sums); log returns of prices are far below.
 *  Errors: RAID_EINVAL (NULL pointers, decreasing offsets, a return that is not finite or exceeds
 *  RAID_MAX_RETURN, device memory a context cannot read), RAID_EUNSUPPORTED, RAID_ENOMEM and the device
 *  errors; message: raid_ctx_errmsg(ctx) (ctx NULL: raid_errmsg()). */
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
/* Noise-robust realized measures                                                                    */
/* ------------------------------------------------------------------------------------------------ */

/** Estimators of the integrated variance of one segment of M returns that are robust to i.i.d.
 *  microstructure noise in the prices (formulas, constants, bandwidth rules: docs/measures.md "Noise-robust
 *  measures"). All in squared return units except the tuning columns rk_h and tsrv_k (counts of returns).
 *  NAN where undefined for the segment (the minimum M below, or a bandwidth rule without an answer). */
typedef struct raid_realized_noise {
    int64_t n;      /* M, the number of returns */
    double rk;      /* realized kernel, Parzen weights, end points jittered (m = 2), bandwidth H
                       (Barndorff-Nielsen, Hansen, Lunde and Shephard 2008, 2009)       (M >= 3, H <= M - 2) */
    double rk_h;    /* H, the kernel's bandwidth (an integer >= 1)                       (as rk) */
    double tsrv;    /* two-scale RV with the small-sample adjustment (1 - nbar/M)^-1
                       (Zhang, Mykland and Ait-Sahalia 2005)                            (M >= 4, K <= M/2) */
    double tsrv_k;  /* K, the number of subsamples (an integer >= 2)                     (as tsrv) */
    double prv;     /* pre-averaged RV, g(x) = min(x, 1-x), kn = ceil(sqrt(M)) (theta = 1), bias corrected
                       (Jacod, Li, Mykland, Podolskij and Vetter 2009; Christensen,
                       Kinnebrock and Podolskij 2010)                                    (M >= 5: kn >= 3) */
    double minrv;   /* (pi/(pi-2)) (M/(M-1)) sum min(|r_i|,|r_{i+1}|)^2
                       (Andersen, Dobrev and Schaumburg 2012)                            (M >= 2) */
} raid_realized_noise;

#define RAID_REALIZED_NOISE_NMEASURES 6
/** Names of the noise-robust columns: "rk","rk_h","tsrv","tsrv_k","prv","minrv";
 *  raid_realized_noise_get(x, k) returns the k-th of them (NAN for k out of range). */
extern RAID_API const char *const raid_realized_noise_names[RAID_REALIZED_NOISE_NMEASURES];
RAID_API double raid_realized_noise_get(const raid_realized_noise *x, int k);

/** Compute the noise-robust measures of nseg segments: r, offsets and nseg as raid_realized_compute (segment
 *  s is r[offsets[s] .. offsets[s+1]), in time order), out: nseg results. The choices of each segment (the
 *  noise ratio, H, K, kn) are the float64 cpu path's, on the host, on every context; on a cpu context
 *  everything is float64 with compensated sums, each segment on one OpenMP thread; on a device context
 *  (CUDA, OpenCL) the sums of rk, tsrv, prv and minrv are formed on the device in double-float
 *  (kernels/noise.cl) and combined on the host in float64, within raid_realized_noise_bound of the cpu
 *  path (docs/precision.md "The noise-robust measures"; a segment beyond 2^26 returns, or whose K or
 *  kn - 1 exceeds 2^16, is computed by the cpu path). r must be host memory (CUDA device memory is
 *  refused with RAID_EINVAL, never read). The results do not depend on the number of threads, and on a
 *  device they are bitwise reproducible for a given work-group width. Work per segment: O(M H) for rk,
 *  O(M kn) for prv, O(M K) on a device (O(M) on the cpu) for tsrv, O(M) for the others and the choices.
 *  Returns must be finite and at most RAID_MAX_RETURN in magnitude, as for raid_realized_compute.
 *  Errors: RAID_EINVAL (NULL pointers, decreasing or negative offsets, a return that is not finite or
 *  exceeds RAID_MAX_RETURN, device memory), RAID_ENOMEM and the device errors; message:
 *  raid_ctx_errmsg(ctx) (ctx NULL: raid_errmsg()). */
RAID_API raid_status raid_realized_noise_compute(raid_ctx *ctx, const double *r, const int64_t *offsets,
                                                 size_t nseg, raid_realized_noise *out);

/** Documented worst-case bound of the device path against float64 for noise column k (order of
 *  raid_realized_noise_names) under policy p, on the scaled difference raid_realized_noise_diff (M is
 *  unused, as in raid_realized_bound): rk_h and tsrv_k are exact (bound 0: the host chooses them on every
 *  context); minrv is relative; rk, tsrv and prv are relative to the magnitudes their cancellation hides
 *  (docs/precision.md "The noise-robust measures"). NAN for k out of range. */
RAID_API double raid_realized_noise_bound(raid_precision p, int k, int64_t M);

/** The scaled difference of `--check` between a device result a and a float64 result b for noise column
 *  k, with rv the segment's float64 rv (raid_realized.rv of the cpu path): |a-b| / S with S the scale of
 *  docs/precision.md (minrv: |b|; rk: 1.25 W rv, W the sum of the kernel's weights |k_h|; tsrv and prv:
 *  the magnitudes of their first term and of the bias correction, from b, rv, M and K or kn); for rk_h
 *  and tsrv_k 0 when equal, INFINITY otherwise. 0 when both are NAN; INFINITY when exactly one is. */
RAID_API double raid_realized_noise_diff(const raid_realized_noise *a, const raid_realized_noise *b, int k,
                                         double rv);

/** The columns of the realized table and of `raid realized --measures`: k in 0 .. 8 the nine of
 *  raid_realized_names, k in 9 .. 14 the six of raid_realized_noise_names. */
#define RAID_REALIZED_NCOLUMNS (RAID_REALIZED_NMEASURES + RAID_REALIZED_NOISE_NMEASURES)
/** Name of column k (0 .. RAID_REALIZED_NCOLUMNS - 1); NULL out of range. */
RAID_API const char *raid_realized_column_name(int k);

/** Parse a comma-separated list of column names (as `raid realized --measures rv,bpv,rk` takes it) into
 *  column indices: cols (room for RAID_REALIZED_NCOLUMNS) gets them in the order given, *ncols their
 *  number. Names are exact (lower case, no spaces). Errors (RAID_EINVAL, message: raid_errmsg()): NULL
 *  arguments, an empty list or empty name, a name given twice, an unknown name ("unknown measure 'X'
 *  (valid: rv, bpv, ..., minrv)"). */
RAID_API raid_status raid_realized_measures_parse(const char *list, int *cols, size_t *ncols);

/* ------------------------------------------------------------------------------------------------ */
/* The realized job: a table of daily measures from a source of segments (raid realized, Python)     */
/* ------------------------------------------------------------------------------------------------ */

/* A table of realized measures, one row per (symbol, trading date) segment: what `raid realized` writes
 * and raid.realized_from_prices returns. It pulls batches of whole segments from a source (a CSV reader
 * or a raid_ticks segmenter), computes their measures (raid_realized_compute) on a context and, when a
 * float64 cpu context is given, on it too, keeping the largest scaled difference of each measure (the
 * `--check` of the CLI); the symbol names are copied into the table, so the source may be closed once
 * its last batch is in.
 *
 * Order of calls: create; add_reader or add_ticks, repeatedly, until the source is exhausted (done = 1,
 * or finish = 1) -- then another source may follow; raid_realized_table_finish once (sorts the rows);
 * then write_csv and the accessors; destroy. A source has to be exhausted before another is added or
 * the table finished; no row is added after finish. Each call that breaks this order is RAID_EINVAL
 * and changes nothing.
 *
 * Errors: the add calls take a context and report through raid_ctx_errmsg(ctx) (and raid_errmsg()); the
 * others through raid_errmsg(). An add that fails once it has taken a batch from its source (the
 * source's own error, a failed computation, memory) appends none of the batch's rows and leaves the
 * table incomplete: later adds and finish fail with RAID_EINVAL ("the table is incomplete: an earlier
 * add failed: MESSAGE"); the rows already in stay readable. */
typedef struct raid_realized_table raid_realized_table;

/** An empty table. Errors: RAID_EINVAL (out NULL), RAID_ENOMEM; message: raid_errmsg(). *out is NULL on
 *  failure. */
RAID_API raid_status raid_realized_table_create(raid_realized_table **out);
/** Free the table and all it holds (not the sources or contexts given to it). NULL is a no-op. */
RAID_API void raid_realized_table_destroy(raid_realized_table *tab);

/** Pull the next batch from rd (raid_reader_next(rd, batch, max_returns, done): whole segments of at
 *  least max_returns returns, or the rest of the input), compute the measures of its segments on ctx
 *  and append one row per segment with the symbol's name (raid_reader_symbol) and the date. cpu NULL:
 *  no check; else a float64 context (backend cpu) on which the same segments are computed too: for each
 *  measure k the largest raid_realized_diff(ctx result, cpu result, k) over the rows is kept
 *  (raid_realized_table_check). Every checked batch must use contexts of one precision policy.
 *  max_returns: returns per batch (>= 1; `raid realized` uses 2^24 = 16,777,216, about 128 MiB of
 *  float64, which with the open segments bounds the memory of a batch; on a cpu context without a check
 *  the batch is read and computed in parts of about 2^19 returns, a few at a time, on the reader's
 *  threads while it reads on, the same rows bit for bit). *done: 1 once the input is exhausted and every
 *  row is in; call again while it is 0.
 *  Errors (message: raid_ctx_errmsg(ctx), also raid_errmsg()): RAID_EINVAL (NULL arguments, max_returns 0,
 *  cpu not a cpu-backend context, a second precision policy in the check, a table finished or another
 *  source not yet exhausted), the reader's errors with its message unchanged (RAID_EPARSE
 *  "FILE:LINE:COL: ...", RAID_EIO, RAID_ENOMEM: include/raid/reader.h, docs/input.md), the errors of
 *  raid_realized_compute on ctx with ctx's message, those on cpu with the message "cpu path: MESSAGE". */
RAID_API raid_status raid_realized_table_add_reader(raid_realized_table *tab, raid_ctx *ctx, raid_ctx *cpu,
                                                     raid_reader *rd, size_t max_returns, int *done);

/** As raid_realized_table_add_reader for a raid_ticks segmenter: take its complete segments
 *  (raid_ticks_take(tk, batch, finish)), compute them on ctx (and cpu) and append their rows with the
 *  names of raid_ticks_symbol. finish = 1 when no more rows will be pushed to tk: every segment is
 *  then complete and the source exhausted. Between calls with finish = 0 the caller pushes rows
 *  (raid_ticks_push); the returns held at once are those of the rows pushed since the last call.
 *  Errors as raid_realized_table_add_reader (the segmenter's RAID_ENOMEM, and RAID_EPARSE or
 *  RAID_EINVAL of an earlier failing push, with its message). */
RAID_API raid_status raid_realized_table_add_ticks(raid_realized_table *tab, raid_ctx *ctx, raid_ctx *cpu,
                                                    raid_ticks *tk, int finish);

/** Sort the rows as `raid realized` writes them: by symbol in order of first appearance in the sources
 *  (the first source's symbols first, each in its reader's order), then by date; rows of the same symbol
 *  and date (from two sources) keep their order of addition. After it the table takes no more rows.
 *  Errors: RAID_EINVAL (NULL, finished twice, a source not yet exhausted), RAID_ENOMEM; message:
 *  raid_errmsg(). */
RAID_API raid_status raid_realized_table_finish(raid_realized_table *tab);

/* Accessors: valid at any time, in the order of addition before raid_realized_table_finish and in the
 * sorted order after it. The arrays hold raid_realized_table_nrows entries and stay valid until the next
 * add, finish or destroy; NULL when the table has no rows (or tab is NULL). */
RAID_API size_t raid_realized_table_nrows(const raid_realized_table *tab);
/** Symbol name of row i (UTF-8, "" for data without a symbol column); NULL if out of range. */
RAID_API const char *raid_realized_table_symbol(const raid_realized_table *tab, size_t i);
/** The symbol of every row as an index into the table's symbol names (raid_realized_table_symbol_name),
 *  which are numbered in order of first appearance: a binding builds a column of names from them
 *  without one call per row. */
RAID_API const uint32_t *raid_realized_table_symbol_ids(const raid_realized_table *tab);
RAID_API size_t raid_realized_table_nsymbols(const raid_realized_table *tab);
/** Name j of the table's symbols; NULL if out of range. */
RAID_API const char *raid_realized_table_symbol_name(const raid_realized_table *tab, size_t j);
/** Trading dates as integers yyyymmdd (local dates after the time zone and session: docs/input.md). */
RAID_API const int32_t *raid_realized_table_dates(const raid_realized_table *tab);
/** The number of returns M of every row. */
RAID_API const int64_t *raid_realized_table_n(const raid_realized_table *tab);
/** Measure k of every row (k in the order of raid_realized_names: rv, bpv, rs_neg, rs_pos, rq, tpq,
 *  medrv, jump_z, jump_p; units and formulas in raid_realized above and docs/measures.md), NAN where
 *  undefined for the row's M; NULL if k is out of range. k = 9 .. 14 (raid_realized_column_name: rk, rk_h,
 *  tsrv, tsrv_k, prv, minrv, raid_realized_noise above): the noise-robust columns, when
 *  raid_realized_table_set_measures selected at least one of them (all six are computed then); else NULL. */
RAID_API const double *raid_realized_table_column(const raid_realized_table *tab, int k);

/** The check of the rows computed with a cpu context: writes RAID_REALIZED_NMEASURES entries to each
 *  array that is not NULL: max_diff[k], the largest raid_realized_diff of measure k (0 when no row was
 *  checked); bound[k] = raid_realized_bound(p, k, 0) for the precision policy p of the checked contexts
 *  (docs/precision.md); ok[k] = 1 when max_diff[k] <= bound[k], else 0. Returns the number of rows
 *  checked (0: no check ran, or tab NULL). */
RAID_API size_t raid_realized_table_check(const raid_realized_table *tab, double *max_diff, double *bound,
                                          int *ok);

/** The check of the noise-robust columns (when raid_realized_table_set_measures selected one), as
 *  raid_realized_table_check: RAID_REALIZED_NOISE_NMEASURES entries in the order of
 *  raid_realized_noise_names, max_diff[k] the largest raid_realized_noise_diff (rv: the cpu path's) and
 *  bound[k] = raid_realized_noise_bound(p, k, 0). Returns the number of rows whose noise-robust columns
 *  were checked (0: none selected, no check ran, or tab NULL). */
RAID_API size_t raid_realized_table_check_noise(const raid_realized_table *tab, double *max_diff, double *bound,
                                                int *ok);

/** Choose the measure columns of the table before its first add: list is a comma-separated list of
 *  column names (raid_realized_measures_parse: the nine of raid_realized_names and the six of
 *  raid_realized_noise_names, in the order given; `raid realized --measures`). Without it the table
 *  writes the nine. The nine are computed whatever the choice (raid_realized_compute, and the check); the
 *  six noise-robust columns are computed (raid_realized_noise_compute on the table's context, and with a
 *  check on the cpu context too: raid_realized_table_check_noise) when at least one of them is chosen.
 *  Errors (message: raid_errmsg()): RAID_EINVAL (NULL, an add already made or the table finished, and
 *  those of raid_realized_measures_parse: an unknown name, with the valid ones listed). */
RAID_API raid_status raid_realized_table_set_measures(raid_realized_table *tab, const char *list);
/** The chosen columns (indices of raid_realized_column_name, in output order) into cols (room for
 *  RAID_REALIZED_NCOLUMNS; may be NULL); returns their number (9 by default, 0 for tab NULL). */
RAID_API size_t raid_realized_table_measures(const raid_realized_table *tab, int *cols);

/** Write the table as `raid realized` does: the header
 *  "symbol,date,n,rv,bpv,rs_neg,rs_pos,rq,tpq,medrv,jump_z,jump_p" (the columns after n are those of
 *  raid_realized_table_set_measures when it was called), then one line per row: the symbol
 *  (raid_csv_put_field: RFC 4180 quoting), the date YYYY-MM-DD, n, and the measures as the shortest
 *  text that reads back as the same double (raid_csv_put_value; an undefined measure is an empty field); LF line ends. f is flushed.
 *  Errors: RAID_EINVAL (NULL, the table not finished), RAID_EIO ("write error: REASON"; errno is kept
 *  for the caller's own message); message: raid_errmsg(). */
RAID_API raid_status raid_realized_table_write_csv(const raid_realized_table *tab, FILE *f);

#ifdef __cplusplus
}
#endif
#endif /* RAID_REALIZED_H */
