/* Internal definitions shared by the library's areas (never installed). */
#ifndef RAID_INTERNAL_H
#define RAID_INTERNAL_H

#include "raid.h"
#include <stdarg.h>

#define RAID_ERRMSG_LEN 4096

/* Opaque per-backend state, defined in src/backend/opencl_runtime.c. */
typedef struct raid_cl raid_cl;

struct raid_ctx {
    raid_backend backend;
    raid_precision precision;
    size_t chunk_len;          /* returns per chunk */
    size_t wg_width;           /* work-items per work-group */
    raid_cl *cl;               /* NULL on the cpu backend */
    raid_timing timing;        /* of the last device call */
    char device_name[256];
    char cl_extra_options[256]; /* appended to kernel build options: benchmark experiments only */
    int kernel_repeat;          /* launches per batch (benchmark only; results are identical), 0 = 1 */
    size_t max_batch_elems;     /* returns per device batch (tests use small ones), 0 = default */
    int reg_no_centring;        /* tests only: upload raw regression data (shows what centring buys) */
    char errmsg[RAID_ERRMSG_LEN];
};

/* Format a message into the thread's message (raid_errmsg) and, when ctx is not NULL, into ctx->errmsg;
 * return status s (printf-style). The one error path of the library. */
raid_status raid_fail(raid_ctx *ctx, raid_status s, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* snprintf into a caller buffer that may be NULL. */
void raid_msg(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Wall-clock seconds (monotonic). */
double raid_now(void);

#endif
