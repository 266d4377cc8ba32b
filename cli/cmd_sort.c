/* raid sort: the rows of a CSV file ordered by a numeric column, stably, each row's bytes unchanged
 * (docs/column.md "raid sort"). A client of the library's sort job (include/raid/sort.h):
 * raid_sort_run_csv reads and sorts, raid_sort_table_write_csv writes. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct sort_args {
    const char *path, *by;
    unsigned flags;
} sort_args;

static raid_status run_job(raid_ctx *ctx, void *args, void **res)
{
    const sort_args *a = args;
    return raid_sort_run_csv(ctx, a->path, a->by, a->flags, (raid_sort_table **)res);
}

static const char *notice(const void *res, size_t i) { return raid_sort_table_notice(res, i); }
static raid_status write_result(const void *res, FILE *f) { return raid_sort_table_write_csv(res, f); }
static void destroy_result(void *res) { raid_sort_table_destroy(res); }

int cmd_sort(int argc, char **argv)
{
    /* the two switches (--desc, --stable: the default, accepted) taken out; the rest are string options */
    char **av = malloc(((size_t)argc + 1) * sizeof *av);
    if (!av) {
        fprintf(stderr, "raid sort: out of memory\n");
        return EXIT_INPUT;
    }
    int ac = 0, rest = 0;
    unsigned flags = 0;
    for (int i = 0; i < argc; i++) {
        rest |= !strcmp(argv[i], "--");
        if (i > 0 && !rest && !strcmp(argv[i], "--desc"))
            flags |= RAID_SORT_DESC;
        else if (!(i > 0 && !rest && !strcmp(argv[i], "--stable")))
            av[ac++] = argv[i];
    }
    av[ac] = NULL;
    static const char *const names[2] = {"by", "device"};
    const char *v[3] = {NULL, NULL, NULL}; /* by, device, -o */
    int rc = cli_string_options("sort", ac, av, names, v, 2);
    if (!rc && !v[0]) {
        fprintf(stderr, "raid sort: --by is required (see raid help sort)\n");
        rc = EXIT_USAGE;
    }
    if (!rc) {
        sort_args a = {av[optind], v[0], flags};
        rc = cli_run_job("sort", v[1], v[2], run_job, &a, notice, write_result, destroy_result);
    }
    free(av);
    return rc < 0 ? 0 : rc;
}
