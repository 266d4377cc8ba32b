/* Thin OpenCL host layer: one context, in-order profiling queue, program and kernel cache, and pools of
 * device buffers and of page-locked host staging keyed by power-of-two size class, owned by a raid_ctx
 * (the batch pipeline keeps up to about 768 MiB of page-locked staging per context while it runs big
 * batches; it stays pooled until the context is destroyed). Every OpenCL failure comes back
 * as a raid_status with a message in the context; nothing aborts the process. */
#ifndef RAID_OPENCL_RUNTIME_H
#define RAID_OPENCL_RUNTIME_H

#include "core/internal.h"
#include <CL/cl.h>

/* Open device (platform, device); platform < 0 selects the first GPU of any platform (fails with
 * RAID_ENODEV if none), device < 0 with platform >= 0 is invalid. any_type = 1 with platform < 0 takes
 * the first device of any type. */
raid_status raid_cl_open(raid_ctx *ctx, int platform, int device, int any_type);
void raid_cl_close(raid_cl *cl);

/* The kernel `name` of kernels/<file> built with `options` (appended to "-cl-std=CL1.2"); cached per
 * (file, name, options). The source is raid_df.h followed by the file. RAID_EBUILD carries the log. */
raid_status raid_cl_kernel(raid_ctx *ctx, const char *file, const char *name, const char *options,
                           cl_kernel *out);

/* A device buffer of at least `bytes` from the pool (size class: the next power of two). */
raid_status raid_cl_acquire(raid_ctx *ctx, size_t bytes, cl_mem *out);
void raid_cl_release(raid_ctx *ctx, cl_mem m);

/* Page-locked host memory of at least `bytes`, from a second pool keyed like the first: a buffer made
 * with CL_MEM_ALLOC_HOST_PTR and kept mapped, so that uploads from it and read-backs into it run at the
 * bus's speed (NVIDIA's OpenCL copies ordinary host memory through a bounce buffer, at a fraction of it).
 * Where the device cannot provide it, plain malloc memory. Errors: RAID_ENOMEM. */
raid_status raid_cl_acquire_host(raid_ctx *ctx, size_t bytes, void **host);
void raid_cl_release_host(raid_ctx *ctx, void *host);

/* Map a CL error of call `what` to a status and message; returns RAID_OK for CL_SUCCESS. */
raid_status raid_cl_check(raid_ctx *ctx, cl_int err, const char *what);

/* The build log of a cached kernel's program into buf (for diagnostics such as -cl-nv-verbose). */
size_t raid_cl_build_log(const raid_ctx *ctx, cl_kernel k, char *buf, size_t len);

cl_command_queue raid_cl_queue(const raid_ctx *ctx);
size_t raid_cl_max_wg(const raid_ctx *ctx);
uint64_t raid_cl_max_alloc(const raid_ctx *ctx);
uint64_t raid_cl_local_mem(const raid_ctx *ctx); /* bytes of local memory per work-group */
/* Seconds between the START and END profiling stamps of an event (0 if unavailable). */
double raid_cl_event_seconds(cl_event ev);

#endif
