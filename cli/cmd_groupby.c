/* raid groupby: group-by aggregation of float64 columns by a numeric key, with exact group sums
 * (docs/groupby.md). A client of the library's group-by job (include/raid/groupby.h):
 * raid_groupby_run_csv reads and aggregates, raid_groupby_table_write_csv writes. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include <stdio.h>
#include <unistd.h>
#include <string.h>

typedef struct groupby_args {
    const char *path, *by, *aggs;
} groupby_args;

static raid_status run_job(raid_ctx *ctx, void *args, void **res)
{
    const groupby_args *a = args;
    return raid_groupby_run_csv(ctx, a->path, a->by, a->aggs, 0, (raid_groupby_table **)res);
}

static const char *notice(const void *res, size_t i) { return raid_groupby_table_notice(res, i); }
static raid_status write_result(const void *res, FILE *f) { return raid_groupby_table_write_csv(res, f); }
static void destroy_result(void *res) { raid_groupby_table_destroy(res); }

int cmd_groupby(int argc, char **argv)
{
    static const char *const names[3] = {"by", "agg", "device"};
    const char *v[4] = {NULL, NULL, NULL, NULL}; /* by, agg, device, -o */
    const int rc = cli_string_options("groupby", argc, argv, names, v, 3);
    if (rc)
        return rc < 0 ? 0 : rc;
    if (!v[0] || !v[1]) {
        fprintf(stderr, "raid groupby: --by and --agg are required (see raid help groupby)\n");
        return EXIT_USAGE;
    }
    groupby_args a = {argv[optind], v[0], v[1]};
    return cli_run_job("groupby", v[2], v[3], run_job, &a, notice, write_result, destroy_result);
}
