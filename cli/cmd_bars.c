/* raid bars: trades to OHLCV bars per symbol and interval (docs/column.md "Ticks to bars"). A client of the
 * library's bars job (include/raid/bars.h): raid_bars_run_csv reads and aggregates, raid_bars_write_csv
 * writes. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include <stdio.h>
#include <unistd.h>
#include <string.h>

typedef struct bars_args {
    const char *path, *interval, *tz;
} bars_args;

static raid_status run_job(raid_ctx *ctx, void *args, void **res)
{
    const bars_args *a = args;
    return raid_bars_run_csv(ctx, a->path, a->interval, a->tz, (raid_bars **)res);
}

static raid_status write_result(const void *res, FILE *f) { return raid_bars_write_csv(res, f); }
static void destroy_result(void *res) { raid_bars_destroy(res); }

int cmd_bars(int argc, char **argv)
{
    static const char *const names[3] = {"interval", "tz", "device"};
    const char *v[4] = {NULL, NULL, NULL, NULL}; /* interval, tz, device, -o */
    const int rc = cli_string_options("bars", argc, argv, names, v, 3);
    if (rc)
        return rc < 0 ? 0 : rc;
    int64_t us;
    if (!v[0] || raid_bars_parse_interval(v[0], &us) != RAID_OK) {
        fprintf(stderr, "raid bars: bad or missing --interval%s%s (expected Ns, Nmin, Nh or Nd)\n", v[0] ? " " : "",
                v[0] ? v[0] : "");
        return EXIT_USAGE;
    }
    bars_args a = {argv[optind], v[0], v[1]};
    return cli_run_job("bars", v[2], v[3], run_job, &a, write_result, destroy_result);
}
