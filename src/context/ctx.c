/* raid_ctx: backend selection ("auto", "cpu", "opencl", "opencl:P.D", "cuda", "cuda:N", RAID_DEVICE) and policy. */
#define _POSIX_C_SOURCE 200809L
#include "core/internal.h"
#include "device/device.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static raid_status open_cpu(raid_ctx *ctx)
{
    ctx->backend = RAID_BACKEND_CPU;
    snprintf(ctx->device_name, sizeof ctx->device_name, "cpu (float64, %d threads)", omp_get_max_threads());
    return RAID_OK;
}

/* A device index of a spec: decimal digits only (no sign, space or leading '+': "cuda: 1" and "cuda:+1"
 * are refused, as sscanf's %d would have taken them), at most 6 of them. *end: the first byte after. -1
 * when there is none. */
static int parse_index(const char *s, const char **end)
{
    int v = 0, n = 0;
    while (s[n] >= '0' && s[n] <= '9' && n < 7)
        v = v * 10 + (s[n++] - '0');
    *end = s + n;
    return n == 0 || n > 6 ? -1 : v;
}

/* Undo a failed open of a backend that auto may skip: its partial state freed, its message dropped. */
static void close_failed(raid_ctx *ctx)
{
    raidDevClose(ctx->dev);
    ctx->dev = NULL;
    ctx->errmsg[0] = 0;
}

/* Opens the backend of spec; from_env: spec came from RAID_DEVICE (said so in the message of an unknown
 * spec: a user who gave no --device sees where 'gpu' came from). */
static raid_status select_device(raid_ctx *ctx, const char *spec, int from_env)
{
    if (!strcmp(spec, "cpu"))
        return open_cpu(ctx);
    if (!strcmp(spec, "auto")) {
        /* CUDA when it can run here, else the first OpenCL GPU, else the float64 CPU backend. A backend
         * that is absent (RAID_ENODEV) is skipped; any other failure of one that is present is the call's. */
        if (!raidDevCudaAbsent()) {
            ctx->backend = RAID_BACKEND_CUDA;
            const raid_status s = raidDevOpenCuda(ctx, 0);
            if (s != RAID_ENODEV)
                return s;
            close_failed(ctx);
        }
        ctx->backend = RAID_BACKEND_OPENCL;
        const raid_status s = raidDevOpen(ctx, -1, -1, 0);
        if (s == RAID_ENODEV) {
            close_failed(ctx);
            return open_cpu(ctx);
        }
        return s;
    }
    const char *end = NULL;
    if (!strcmp(spec, "opencl")) {
        ctx->backend = RAID_BACKEND_OPENCL;
        return raidDevOpen(ctx, -1, -1, 1);
    }
    if (!strncmp(spec, "opencl:", 7)) {
        const int p = parse_index(spec + 7, &end);
        const int d = p >= 0 && *end == '.' ? parse_index(end + 1, &end) : -1;
        if (p >= 0 && d >= 0 && *end == 0) {
            ctx->backend = RAID_BACKEND_OPENCL;
            return raidDevOpen(ctx, p, d, 1);
        }
    }
    if (!strcmp(spec, "cuda")) {
        ctx->backend = RAID_BACKEND_CUDA;
        return raidDevOpenCuda(ctx, 0);
    }
    if (!strncmp(spec, "cuda:", 5)) {
        const int n = parse_index(spec + 5, &end);
        if (n >= 0 && *end == 0) {
            ctx->backend = RAID_BACKEND_CUDA;
            return raidDevOpenCuda(ctx, n);
        }
    }
    return raidFail(ctx, RAID_EINVAL, "unknown device '%s'%s (expected " RAID_DEVICE_FORMS ")", RAID_SHOWZ(spec),
                    from_env ? " in RAID_DEVICE" : "");
}

/* The tests' fault switch from RAID_FAULT (include/raid/tuning.h): arms a device context's device points
 * (the output files' are armed by outfile.c); a malformed value fails every context. */
static raid_status fault_from_env(raid_ctx *ctx)
{
    unsigned kinds;
    uint64_t at;
    int sticky;
    const int r = raidFaultEnv(&kinds, &at, &sticky);
    if (r < 0)
        return raidFail(ctx, RAID_EINVAL, "%s", raid_errmsg());
    if (r == 0 || !ctx->dev || !(kinds & RAID_FAULT_DEVICE))
        return RAID_OK;
    const raid_status s = raid_tuning_fault(ctx, kinds & RAID_FAULT_DEVICE, at, sticky);
    if (s == RAID_OK)
        ctx->tuning->fault.from_env = 1;
    return s;
}

raid_status raid_ctx_create(raid_ctx **out, const char *device)
{
    if (!out)
        return raidFail(NULL, RAID_EINVAL, "raid_ctx_create: out is NULL");
    *out = NULL;
    raid_ctx *ctx = calloc(1, sizeof *ctx);
    if (!ctx)
        return raidFail(NULL, RAID_ENOMEM, "out of memory");
    ctx->precision = RAID_PREC_DF;
    ctx->chunk_len = 4096;
    ctx->wg_width = 256;
    int from_env = 0;
    if (!device || !*device) {
        device = getenv("RAID_DEVICE");
        from_env = device && *device;
        if (!from_env)
            device = "auto";
    }
    raid_status s = select_device(ctx, device, from_env);
    if (s == RAID_OK && ctx->dev && raidDevMaxWg(ctx) < ctx->wg_width) {
        size_t w = 1;
        while (w * 2 <= raidDevMaxWg(ctx))
            w *= 2;
        ctx->wg_width = w;
    }
    if (s == RAID_OK)
        s = fault_from_env(ctx);
    if (s != RAID_OK) {
        raidFail(NULL, s, "%s", ctx->errmsg); /* every failure above set ctx->errmsg; ctx dies here */
        raid_ctx_destroy(ctx);
        return s;
    }
    *out = ctx;
    return RAID_OK;
}

void raid_ctx_destroy(raid_ctx *ctx)
{
    if (!ctx)
        return;
    if (ctx->tuning && ctx->tuning->fault.from_env)
        raidFaultReport(&ctx->tuning->fault);
    raidDevClose(ctx->dev);
    free(ctx->tuning);
    free(ctx);
}

raid_status raid_ctx_set_chunk(raid_ctx *ctx, size_t chunk_len, size_t wg_width)
{
    if (!ctx)
        return raidFail(NULL, RAID_EINVAL, "raid_ctx_set_chunk: ctx is NULL");
    if (wg_width == 0 || wg_width > 1024 || (wg_width & (wg_width - 1)))
        return raidFail(ctx, RAID_EINVAL, "work-group width %zu is not a power of two in [1, 1024]", wg_width);
    if (chunk_len == 0 || chunk_len % wg_width || chunk_len > ((size_t)1 << 24))
        return raidFail(ctx, RAID_EINVAL, "chunk length %zu is not a positive multiple of the work-group width %zu "
                         "(at most 2^24)", chunk_len, wg_width);
    if (chunk_len / wg_width > 64)
        return raidFail(ctx, RAID_EINVAL, "chunk length %zu over work-group width %zu gives %zu returns per "
                         "work-item; at most 64 are supported", chunk_len, wg_width, chunk_len / wg_width);
    if (ctx->dev && wg_width > raidDevMaxWg(ctx))
        return raidFail(ctx, RAID_EINVAL, "work-group width %zu exceeds the device's limit %zu", wg_width,
                         raidDevMaxWg(ctx));
    ctx->chunk_len = chunk_len;
    ctx->wg_width = wg_width;
    return RAID_OK;
}
