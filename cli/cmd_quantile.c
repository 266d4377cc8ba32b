/* raid quantile: quantiles of a float64 column, optionally per integer key (docs/column.md "raid
 * quantile"). A client of the library's quantile job (include/raid/select.h): raid_quantile_run_csv reads
 * and selects, raid_quantile_table_write_csv writes. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include <stdio.h>
#include <unistd.h>

typedef struct quantile_args {
    const char *path, *col, *q, *by;
} quantile_args;

static raid_status run_job(raid_ctx *ctx, void *args, void **res)
{
    const quantile_args *a = args;
    return raid_quantile_run_csv(ctx, a->path, a->col, a->q, a->by, (raid_quantile_table **)res);
}

static const char *notice(const void *res, size_t i) { return raid_quantile_table_notice(res, i); }
static raid_status write_result(const void *res, FILE *f) { return raid_quantile_table_write_csv(res, f); }
static void destroy_result(void *res) { raid_quantile_table_destroy(res); }

int cmd_quantile(int argc, char **argv)
{
    static const char *const names[4] = {"col", "q", "by", "device"};
    const char *v[5] = {NULL, NULL, NULL, NULL, NULL}; /* col, q, by, device, -o */
    const int rc = cli_string_options("quantile", argc, argv, names, v, 4);
    if (rc)
        return rc < 0 ? 0 : rc;
    if (!v[0] || !v[1]) {
        fprintf(stderr, "raid quantile: --col and --q are required (see raid help quantile)\n");
        return EXIT_USAGE;
    }
    quantile_args a = {argv[optind], v[0], v[1], v[2]};
    return cli_run_job("quantile", v[3], v[4], run_job, &a, notice, write_result, destroy_result);
}
