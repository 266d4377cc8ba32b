/* raid bars: trades to OHLCV bars per symbol and interval (docs/column.md "Ticks to bars"). A client of the
 * library's bars job (include/raid/bars.h): raid_bars_run_csv reads and aggregates, raid_bars_write_csv
 * writes. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include <stdio.h>
#include <unistd.h>
#include <string.h>

typedef struct bars_args {
    const char *path, *interval, *tz, *session;
} bars_args;

static raid_status run_job(raid_ctx *ctx, void *args, void **res)
{
    const bars_args *a = args;
    return raid_bars_run_csv(ctx, a->path, a->interval, a->tz, a->session, (raid_bars **)res);
}

static const char *notice(const void *res, size_t i) { return raid_bars_notice(res, i); }
static raid_status write_result(const void *res, FILE *f) { return raid_bars_write_csv(res, f); }
static void destroy_result(void *res) { raid_bars_destroy(res); }

int cmd_bars(int argc, char **argv)
{
    static const char *const names[4] = {"interval", "tz", "device", "session"};
    const char *v[5] = {NULL, NULL, NULL, NULL, NULL}; /* interval, tz, device, session, -o */
    const int rc = cli_string_options("bars", argc, argv, names, v, 4);
    if (rc)
        return rc < 0 ? 0 : rc;
    int64_t us;
    if (!v[0]) {
        fprintf(stderr, "raid bars: missing --interval (see raid help bars)\n");
        return EXIT_USAGE;
    }
    if (raid_bars_parse_interval(v[0], &us) != RAID_OK) {
        fprintf(stderr, "raid bars: --interval: %s\n", raid_errmsg());
        return EXIT_USAGE;
    }
    int32_t lo, hi;
    if (v[3] && raid_parse_session(v[3], &lo, &hi) != RAID_OK) { /* the library's message, as raid realized */
        fprintf(stderr, "raid bars: --session: %s\n", raid_errmsg());
        return EXIT_USAGE;
    }
    bars_args a = {argv[optind], v[0], v[1], v[3]};
    return cli_run_job("bars", v[2], v[4], run_job, &a, notice, write_result, destroy_result);
}
