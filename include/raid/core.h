/*
 * raid/core.h -- conventions, versions, errors, contexts (backend, precision, chunk plan, timing) and
 * the device list: what every other part of the API builds on.
 *
 * RAID computes float64-faithful realized measures (and, later, regressions and volatility models) on
 * GPUs (OpenCL or CUDA) whose float64 is missing or slow: every device accumulator is a double-float pair kept
 * with error-free transforms, chunk partials are combined in float64 on the host in a fixed order, and
 * every device result can be checked against the float64 CPU backend.
 *
 * Conventions
 *   - Every fallible function returns a raid_status; RAID_OK is 0; raid_strerror() names the status.
 *     The message of a failure: raid_ctx_errmsg(ctx) for a call that takes a context, raid_errmsg()
 *     (thread-local) for a call that takes none (a failing call on a context sets both; one given a NULL
 *     context, raid_errmsg() only). No call takes an error buffer, and no handle keeps a message of its
 *     own: each header's "Errors:" names the statuses and where the message is. Inputs always get a
 *     status; the library's internal invariants are assert()ed (in builds without NDEBUG).
 *   - Threads: everything lives in the handles below; the only process-wide state is raid_errmsg's
 *     thread-local message and the lists of OpenCL platforms and devices and of CUDA devices, each
 *     found once, at the first raid_ctx_create that needs it or raid_devices of the process, by one thread while any others wait (docs/device.md
 *     "Threads"). Any number of threads may create contexts at once and each use its own at once. A
 *     raid_ctx may be used by one thread at a time (create one per thread, or serialise the calls), and so
 *     may any other handle. A context owns its device context (OpenCL or CUDA), queue or stream, kernel cache and buffer pool, so a
 *     thread normally keeps one per device it uses. The library reads its environment variables
 *     (RAID_DEVICE, TZDIR, ...) with getenv when a call needs them: as for any getenv, no thread may
 *     change the environment (setenv, putenv) while calls run.
 *   - Sizes and offsets are 64-bit on the host. Returns are log returns (dimensionless); realized
 *     measures are in squared (rv, bpv, rs_*, medrv) or fourth (rq, tpq) powers of the return unit.
 *   - Undefined values (a measure of a segment too short for it) are NAN, written as an empty CSV field.
 */
#ifndef RAID_CORE_H
#define RAID_CORE_H

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
    RAID_EDEVICE = 6,     /* a device backend's call failed (the message names the call and the backend's error) */
    RAID_EBUILD = 7,      /* a kernel failed to build (the message carries the build log) */
    RAID_EDEVMEM = 8,     /* the device ran out of memory */
    RAID_EDEVLOST = 9,    /* the device was lost or a kernel faulted */
    RAID_EUNSUPPORTED = 10, /* the operation is not available in this build or on this device */
    RAID_ESINGULAR = 11    /* a regression design is singular or too ill-conditioned to solve */
} raid_status;

/** A static, human-readable name of a status ("invalid argument", ...). Never NULL. */
RAID_API const char *raid_strerror(raid_status s);

/** The message of the last failure of a context-free call in the calling thread ("" if none yet):
 *  the one alternative to raid_ctx_errmsg for calls that take no raid_ctx. Thread-local; valid until
 *  the thread's next failing call. (A failing call on a context also sets it, with the same text.) */
RAID_API const char *raid_errmsg(void);

/* Text of the input quoted in a message. */
#define RAID_SHOW_MAX 80                     /* bytes of the text shown, at most */
#define RAID_SHOW_CAP (4 * RAID_SHOW_MAX + 40) /* bytes of raid_show_text's out */
#define RAID_SHOW_NUL ((size_t)-1)            /* n of a NUL-terminated text */
/** s[0 .. n) (n = RAID_SHOW_NUL: up to its NUL) as it is shown in every message of the library and the
 *  CLI that quotes text of the input (a field, a symbol, a header name, an option's value; the caller
 *  adds the quotes): printable ASCII (0x20 to 0x7E) as it is, a backslash as \\, every other byte as
 *  \xHH (control bytes such as ESC, CR, LF, NUL and DEL, and every byte of 0x80 and up: no message
 *  carries a terminal's control sequence, a line break or a byte that is not ASCII text); at most
 *  RAID_SHOW_MAX bytes of s, then "... (N bytes)" with N the text's length. NULL s: "(null)". out:
 *  RAID_SHOW_CAP bytes; returns out. (`symbol is not valid UTF-8 (byte 2 is 0xFF): 'A\xFF'`.) */
RAID_API const char *raid_show_text(char *out, const char *s, size_t n);
#ifndef __cplusplus
/** raid_show_text into a buffer of the enclosing block, for a printf argument: raidFail(ctx, st,
 *  "cannot parse '%s'", RAID_SHOW(field, len)). */
#define RAID_SHOW(s, n) raid_show_text((char[RAID_SHOW_CAP]){0}, (s), (n))
#define RAID_SHOWZ(s) raid_show_text((char[RAID_SHOW_CAP]){0}, (s), RAID_SHOW_NUL)
#endif

/* ------------------------------------------------------------------------------------------------ */
/* Context: backend selection and precision policy                                                   */
/* ------------------------------------------------------------------------------------------------ */

typedef struct raid_ctx raid_ctx;

/** The backend of a context or a listed device: the float64 cpu path, OpenCL, or CUDA (the driver API and
 *  NVRTC, loaded at run time: docs/device.md "The CUDA backend"). */
typedef enum raid_backend { RAID_BACKEND_CPU = 0, RAID_BACKEND_OPENCL = 1, RAID_BACKEND_CUDA = 2 } raid_backend;

/** Precision policy of a context: the one setting every capability reads (docs/precision.md has the table).
 *  RAID_PREC_F32: each float64 value is rounded to binary32.
 *  RAID_PREC_DF : each float64 value is split into hi = (float)r, lo = (float)(r - hi), representing r to
 *                 about 2^-48 relative.
 *  The default is RAID_PREC_DF: the float64-faithful answer. Per capability:
 *  - realized measures (raid_realized_compute, the realized table): on a device the float64 bits are sent
 *    (8 bytes per return) and the device rounds or splits them with integer operations;
 *  - regression statistics and meat (raid_reg_stats_compute, raid_reg_meat_*, and HAR through them): on a
 *    device the policy's values are sent (4 or 8 bytes);
 *  - the sweep (raid_sweep_run, raid_sweep_parity): RAID_PREC_F32 is plain float32 direct window sums of
 *    hma, wma or mean (ema is refused: RAID_EINVAL) on a device, and emulated on the cpu backend, bit for bit
 *    the device's values, for the parity report (docs/ta_sweep.md);
 *  - every other capability (moving averages, GARCH, sort, select, group-by, bars) ignores it: its device
 *    path is float64-faithful whatever the policy.
 *  The cpu backend is float64 throughout and ignores the policy, except the sweep's emulation above. */
typedef enum raid_precision { RAID_PREC_F32 = 0, RAID_PREC_DF = 1 } raid_precision;

/** The device strings raid_ctx_create accepts, as every message that names them lists them. */
#define RAID_DEVICE_FORMS "auto, cpu, opencl, opencl:P.D, cuda or cuda:N"

/** Create a context.
 *  device: "auto" (the first CUDA device, else the first OpenCL GPU, else cpu), "cpu" (float64 reference,
 *  OpenMP), "opencl" (the first OpenCL device of any type), "opencl:P.D" (platform P, device D, 0-based,
 *  as `raid devices` lists them), "cuda" (CUDA device 0) or "cuda:N" (CUDA device N, 0-based). NULL means
 *  the environment variable RAID_DEVICE, or "auto" when it is unset. "cuda" needs libcuda.so.1 (the
 *  NVIDIA driver) and NVRTC at run time, not at build time: where either is missing it fails with
 *  RAID_ENODEV and a message naming what is missing, and "auto" goes on to OpenCL.
 *  Safe to call from many threads at once (the devices are found once per process: core conventions).
 *  Errors: RAID_EINVAL (unknown spec, out NULL), RAID_ENODEV (no such device, or its backend is absent),
 *  RAID_EDEVICE, RAID_EDEVMEM, RAID_ENOMEM; message:
 *  raid_errmsg() (there is no context to hold it). On failure *out is NULL. */
RAID_API raid_status raid_ctx_create(raid_ctx **out, const char *device);

/** Destroy a context and every device resource it holds. NULL is a no-op. */
RAID_API void raid_ctx_destroy(raid_ctx *ctx);

/** The backend in use and a description of the device ("cpu (float64, 2 threads)", "NVIDIA H200 (NVIDIA CUDA)",
 *  "NVIDIA H200 (CUDA 12.8, sm_90)"). */
RAID_API raid_backend raid_ctx_backend(const raid_ctx *ctx);
RAID_API const char *raid_ctx_device_name(const raid_ctx *ctx);

/** The message of the last failure on this context ("" if none). Valid until the next call on ctx. */
RAID_API const char *raid_ctx_errmsg(const raid_ctx *ctx);

/** Set the precision policy of ctx (raid_precision above: what each capability does with it, on a device
 *  and on the cpu backend). Default RAID_PREC_DF. raid_ctx_precision(NULL) is RAID_PREC_DF (a NULL context
 *  is the cpu path's). Errors: RAID_EINVAL (a value outside the enum, the policy unchanged; ctx NULL:
 *  raid_errmsg() only). */
RAID_API raid_status raid_ctx_set_precision(raid_ctx *ctx, raid_precision p);
RAID_API raid_precision raid_ctx_precision(const raid_ctx *ctx);

/** Chunk plan policy: chunk_len returns per chunk (default 4096), reduced by one work-group of
 *  wg_width work-items (default 256). chunk_len must be a positive multiple of wg_width, wg_width a
 *  power of two in [1, 1024] and at most the device's work-group limit. The realized measures on a device
 *  (raid_realized_compute and the realized table) also need an even number of returns per work-item,
 *  chunk_len / wg_width (the kernel reads pairs of returns): an odd one is accepted here but refused by
 *  those calls with RAID_EINVAL naming the rule (other device operations accept it). Every accepted pair gives results
 *  within the same documented bounds; device results are bitwise reproducible for a given
 *  (chunk_len, wg_width). Errors: RAID_EINVAL (raid_ctx_errmsg; ctx NULL:
 *  raid_errmsg() only). */
RAID_API raid_status raid_ctx_set_chunk(raid_ctx *ctx, size_t chunk_len, size_t wg_width);
RAID_API void raid_ctx_chunk(const raid_ctx *ctx, size_t *chunk_len, size_t *wg_width);

/** Where kernel timings are reported: after each device call, the summed kernel time (OpenCL
 *  profiling events, CUDA event pairs) and host-to-device bytes of the last call. Zero on the cpu backend. */
typedef struct raid_timing {
    double kernel_s;      /* device kernel time, seconds */
    double upload_s;      /* host-to-device transfer time, seconds (events) */
    double convert_s;     /* host staging (copies or conversions into page-locked memory, plans), seconds (wall) */
    uint64_t bytes_in;    /* bytes of returns moved to the device */
    uint64_t launches;    /* kernel launches */
    uint64_t host_segments; /* segments recomputed on the host in float64 (underflow guard) */
    double combine_s;     /* float64 combine of the partials on the host, seconds (wall) */
    double host_s;        /* host work after the device's (windows across chunks, guards), seconds (wall) */
    double download_s;    /* device-to-host transfer time, seconds (events; calls that record it: group-by) */
    double prep_s;        /* of kernel_s: kernels that prepare rather than compute (the group ids), seconds */
    uint64_t bytes_wrapped; /* bytes of the caller's CUDA device memory read or written in place, without a
                               copy (raid_memory_of; docs/device.md "The caller's device memory") */
} raid_timing;
RAID_API void raid_ctx_last_timing(const raid_ctx *ctx, raid_timing *t);

/* ------------------------------------------------------------------------------------------------ */
/* Progress                                                                                          */
/* ------------------------------------------------------------------------------------------------ */

/** A progress report of a job run on a context: `done` of `total` units of the job's current phase
 *  (total 0: not known, such as the bytes of standard input), `unit` the phase's plural noun, a static
 *  string: "bytes" (a CSV file read), "fits" (GARCH), "windows" (HAR), "series" (moving averages),
 *  "backtests" (a sweep: series x grid combinations), "rows" (the simulator). `user` is the pointer given
 *  to raid_ctx_set_progress. */
typedef void (*raid_progress_fn)(void *user, uint64_t done, uint64_t total, const char *unit);

/** Report the progress of the jobs run on ctx to fn (NULL, the default: no reports). The library never
 *  writes to a terminal: the caller draws (the CLI's bar, a tqdm bar in Python: docs/input.md "Progress
 *  and notices").
 *  The contract of the calls:
 *   - fn is called synchronously from the thread that called the job, never from the library's worker
 *     threads (OpenMP's, the table reader's parsing threads): for one context it needs no lock.
 *   - Cheap: at most about every 100 ms, plus once when a phase starts (the first report of a unit) and
 *     once when done reaches a known total. A phase's done never decreases; a job may have several phases
 *     (a new unit, or the same unit counted again from 0), and may return without a last report (a
 *     failure, or a phase whose total it cannot know): the caller ends its display when the job returns.
 *   - fn must return promptly (the job waits for it) and must not call the library on ctx (another
 *     context is fine).
 *  The jobs that report (each also on a device): raid_garch_fit (fits), raid_har_fit with a window
 *  (windows), raid_ma_compute (series), raid_sweep_run and raid_sweep_run_arrays (backtests),
 *  raid_realized_table_add_reader, raid_groupby_run_csv, raid_sort_run_csv, raid_quantile_run_csv and
 *  raid_bars_run_csv (the bytes of the file read), raid_simulate_run_csv (rows). The context-free readers
 *  (raid_garch_read_csv, raid_har_read_csv, raid_ma_read_csv) take no context and report nothing.
 *  Errors: RAID_EINVAL (ctx NULL; raid_errmsg()). */
RAID_API raid_status raid_ctx_set_progress(raid_ctx *ctx, raid_progress_fn fn, void *user);

/* ------------------------------------------------------------------------------------------------ */
/* Devices                                                                                           */
/* ------------------------------------------------------------------------------------------------ */

typedef struct raid_device_info {
    int platform, device;        /* OpenCL: indices for "opencl:P.D"; CUDA: platform -1, device the ordinal N */
    char platform_name[128];     /* OpenCL: the platform's name; CUDA: "CUDA" and the driver version */
    char name[128];
    char type[16];               /* "gpu", "cpu", "accelerator", "other" */
    unsigned compute_units;      /* OpenCL compute units; CUDA multiprocessors */
    uint64_t global_mem_bytes;
    int has_fp64;                /* 1 if the device reports double-precision support */
    raid_backend backend;        /* RAID_BACKEND_OPENCL or RAID_BACKEND_CUDA */
    char spec[32];               /* the device string that selects it: "opencl:P.D" or "cuda:N" */
    int cc_major, cc_minor;      /* CUDA compute capability (0.0 for OpenCL) */
} raid_device_info;

/** List the devices of both backends: the OpenCL devices (every platform's, in order), then the CUDA
 *  devices (each "cuda:N"). Writes up to cap entries to out and their total number to *count.
 *  With no OpenCL runtime and no usable CUDA, *count is 0 and the status RAID_OK
 *  (raid_backend_absent says why CUDA is missing). The list is the one found at the process's first call
 *  of this or raid_ctx_create (a device that appears later is not listed). out may be NULL (then only the
 *  count). Errors: RAID_EINVAL (count NULL); message: raid_errmsg(). */
RAID_API raid_status raid_devices(raid_device_info *out, size_t cap, size_t *count);

/** NULL when backend b can run in this process, else a static sentence saying why not: for
 *  RAID_BACKEND_CUDA "libcuda.so.1 not found (no NVIDIA driver)", "NVRTC not found (...)", "no CUDA
 *  device", or the failing call; for RAID_BACKEND_OPENCL "no OpenCL platform found"; RAID_BACKEND_CPU is
 *  always available. Probes the backend once per process (as raid_devices does). Never fails. */
RAID_API const char *raid_backend_absent(raid_backend b);

/* ------------------------------------------------------------------------------------------------ */
/* The caller's memory: host or CUDA device                                                          */
/* ------------------------------------------------------------------------------------------------ */

/* Where an array lives (raid_memory_of). */
typedef enum raid_memory {
    RAID_MEMORY_HOST = 0, /* host memory: ordinary, page-locked (cudaMallocHost), or unknown to CUDA */
    RAID_MEMORY_CUDA = 1, /* CUDA device memory (cudaMalloc, CuPy, PyTorch, Numba; managed memory too) */
} raid_memory;

/** Where the memory at p lives, as the process's CUDA driver knows it, without dereferencing p:
 *  RAID_MEMORY_CUDA for memory that CUDA allocated on a device (cuPointerGetAttribute's memory type device,
 *  or managed), with *device (may be NULL) its ordinal N, as the device string "cuda:N" names it;
 *  RAID_MEMORY_HOST for everything else, *device -1. When libcuda.so.1 is not loaded in the process (no
 *  CUDA library and no RAID CUDA context used it) no device memory can exist: RAID_MEMORY_HOST, and the
 *  driver is not loaded for the question. p NULL: RAID_MEMORY_HOST. Never fails.
 *  Which calls take device memory, and the ordering of the caller's stream and RAID's: docs/device.md
 *  "The caller's device memory"; each such call says so in its comment ("Device memory"). A call given
 *  device memory on a cpu or OpenCL context, or memory of another CUDA device than its context's, fails
 *  with RAID_EINVAL naming the argument and the device, without reading it. */
RAID_API raid_memory raid_memory_of(const void *p, int *device);

#ifdef __cplusplus
}
#endif
#endif /* RAID_CORE_H */
