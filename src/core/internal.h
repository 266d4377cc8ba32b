/* Internal definitions shared by the library's areas (never installed). */
#ifndef RAID_INTERNAL_H
#define RAID_INTERNAL_H

#include "raid.h"
#include "core/fault.h"
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define RAID_ERRMSG_LEN 4096

/* The device layer's per-context state (src/device/device.h; defined by the backend's host file). */
typedef struct RaidDev RaidDev;

/* Knobs of benchmarks and tests (include/raid/tuning.h, src/core/tuning.c, src/context/tuning.c): never in a production
 * context, whose `tuning` stays NULL; read through the raid_tune_* accessors below. */
typedef struct RaidTuningKnobs {
    int kernel_repeat;          /* launches per batch (results are identical), <= 1: one */
    size_t max_batch_elems;     /* elements per device batch (results are identical), 0 = default */
    int direct_upload;          /* reductions over the caller's arrays upload from them, without staging */
    int meat_rows;              /* the cpu meat of overlapping windows from their rows, not block sums */
    int groupby_path;           /* RAID_TUNE_GROUPBY_PATH (0: automatic) */
    int select_path;            /* RAID_TUNE_SELECT_PATH (0: automatic) */
    char build_options[256];    /* appended to every kernel's build options */
    RaidFaultPlan fault;      /* the fault switch of the tests (raid_tuning_fault, RAID_FAULT) */
} RaidTuningKnobs;

/* The progress reporting of a context (raid_ctx_set_progress): the callback, and the last report made. */
typedef struct RaidProgressState {
    raid_progress_fn fn;       /* NULL: no reports */
    void *user;
    const char *unit;          /* of the last report; NULL before the first */
    uint64_t done, total;      /* of the last report */
    double last;               /* raidNow() of the last report */
} RaidProgressState;

struct raid_ctx {
    raid_backend backend;
    raid_precision precision;
    size_t chunk_len;          /* returns per chunk */
    size_t wg_width;           /* work-items per work-group */
    RaidDev *dev;             /* the device layer's state; NULL on the cpu backend */
    raid_timing timing;        /* of the last device call */
    char device_name[256];
    RaidTuningKnobs *tuning;  /* benchmarks and tests only (raid_tuning_set); NULL otherwise */
    RaidProgressState progress;
    char errmsg[RAID_ERRMSG_LEN];
};

/* The minimum time between two reports of one phase (raid_ctx_set_progress's contract), seconds. */
#define RAID_PROGRESS_INTERVAL 0.1

/* Report done of total units of the job's current phase to ctx's progress callback, if it has one
 * (include/raid/core.h, raid_ctx_set_progress: the contract). Call it only from the thread that called
 * the job (inside an OpenMP region: from thread 0, the encountering thread), with done not decreasing
 * within a phase (a phase: the reports of one unit, a static string; counting the same unit again from 0
 * starts a new phase). Throttled here (RAID_PROGRESS_INTERVAL; a phase's first report and the one that
 * reaches total always pass), so a caller may call it once per block, batch or series; each call without
 * a callback is a test of one pointer. */
void raidProgressReport(raid_ctx *ctx, uint64_t done, uint64_t total, const char *unit);
static inline void raidProgress(raid_ctx *ctx, uint64_t done, uint64_t total, const char *unit)
{
    if (ctx && ctx->progress.fn)
        raidProgressReport(ctx, done, total, unit);
}

/* realloc of the array that the pointer at pp points to (any object pointer type: POSIX gives them one
 * representation) to n elements of size sz; 0, or -1 when out of memory (the pointer and the array unchanged).
 * The one growth step of the table reader, the reader and the realized table. */
static inline int raidRegrow(void *pp, size_t n, size_t sz)
{
    void *p;
    memcpy(&p, pp, sizeof p);
    void *q = realloc(p, n * sz);
    if (!q)
        return -1;
    memcpy(pp, &q, sizeof q);
    return 0;
}

/* The backends of a capability: the float64 cpu path (the oracle) and the device path (src/device/,
 * whatever the device's backend). Each capability keeps a table of two entries, a struct of function
 * pointers indexed by RaidBackendIx, and its public entry calls RAID_BACKEND(table, ctx)->fn: the one
 * choice of path (docs/device.md, "How a capability's device path is built"). raidBackendOf is the one
 * test behind it: a context with a device runs the device entries, a NULL context or a cpu one the cpu's. */
typedef enum RaidBackendIx { RAID_ON_CPU = 0, RAID_ON_DEVICE = 1 } RaidBackendIx;
static inline RaidBackendIx raidBackendOf(const raid_ctx *c) { return c && c->dev != NULL ? RAID_ON_DEVICE : RAID_ON_CPU; }
#define RAID_BACKEND(table, ctx) (&(table)[raidBackendOf(ctx)])

static inline int raidTuneKernelRepeat(const raid_ctx *c)
{
    return c->tuning && c->tuning->kernel_repeat > 1 ? c->tuning->kernel_repeat : 1;
}
static inline size_t raidTuneMaxBatchElems(const raid_ctx *c) { return c->tuning ? c->tuning->max_batch_elems : 0; }
static inline int raidTuneDirectUpload(const raid_ctx *c) { return c->tuning && c->tuning->direct_upload; }
static inline int raidTuneMeatRows(const raid_ctx *c) { return c && c->tuning && c->tuning->meat_rows; }
static inline int raidTuneGroupbyPath(const raid_ctx *c) { return c && c->tuning ? c->tuning->groupby_path : 0; }
static inline int raidTuneSelectPath(const raid_ctx *c) { return c && c->tuning ? c->tuning->select_path : 0; }
static inline const char *raidTuneBuildOptions(const raid_ctx *c) { return c->tuning ? c->tuning->build_options : ""; }

/* ctx's knobs, allocated (zero: every default) on the first call (src/core/tuning.c): RAID_OK, or
 * RAID_ENOMEM through ctx. ctx is not NULL. */
raid_status raidTuningKnobs(raid_ctx *ctx);

/* The check of a tuning call that needs a device context (what: the call's name for messages): RAID_OK
 * with ctx's message cleared, RAID_EINVAL for a NULL ctx, RAID_EUNSUPPORTED for a cpu context. */
raid_status raidTuningNeedDevice(raid_ctx *ctx, const char *what);

/* Format a message into the thread's message (raid_errmsg) and, when ctx is not NULL, into ctx->errmsg;
 * return status s (printf-style). The one error path of the library. An argument may be raid_errmsg() (a
 * message passed on, e.g. to a context, or with a prefix). */
raid_status raidFail(raid_ctx *ctx, raid_status s, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The index of s among names[0..n) (exact match), through *out; else RAID_EINVAL with raid_errmsg()
 * "bad WHAT 'S' (expected EXPECTED)". The names <-> enums parsers of the models (har_spec.c, garch_spec.c). */
/* Check ragged offsets: offsets[0] >= 0 and nseg + 1 non-decreasing entries. Errors (RAID_EINVAL, on ctx):
 * "FN: negative offset O", "FN: offsets decrease at NOUN s (a < b)" (noun: "segment", "series"). The one
 * check of the offsets of raid_ma_compute, the sorts and the selections. */
raid_status raidCheckOffsets(raid_ctx *ctx, const char *fn, const char *noun, const int64_t *offsets, size_t nseg);

/* SplitMix64 (Steele, Lea and Flood 2014): raidMix64 is its finaliser (every input bit reaches every output
 * bit), raidSplitmix64 one step of the generator (state += the golden gamma, then the finaliser). */
static inline uint64_t raidMix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}
static inline uint64_t raidSplitmix64(uint64_t *state) { return raidMix64(*state += UINT64_C(0x9E3779B97F4A7C15)); }

raid_status raidParseWord(const char *const *names, int n, const char *s, int *out, const char *what,
                            const char *expected);

/* Wall-clock seconds (monotonic). */
double raidNow(void);
/* Seconds of cpu time of the calling thread (profiles of serial phases: undisturbed by other threads). */
double raidCpuNow(void);
/* The decimal value of environment variable `name` when it is set to one in [lo, hi], else dflt (the
 * RAID_CSV_* knobs of tests and benchmarks). */
size_t raidEnvSize(const char *name, size_t lo, size_t hi, size_t dflt);

/* Re-entrant forms of the C library's functions with process-wide state (core/reentrant.c): the library
 * calls these, never lgamma, lgammal or strerror. raidLgamma(x) = ln|Gamma(x)| and raidLgammal its long
 * double form, without writing the global signgam; raidErrnoText(e) = strerror(e) in a buffer of the
 * calling thread (valid until its next call in that thread). */
double raidLgamma(double x);
long double raidLgammal(long double x);
const char *raidErrnoText(int e);

#endif
