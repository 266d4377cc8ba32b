/* raid groupby: group-by aggregation of float64 columns by an int64 key, with exact group sums
 * (docs/groupby.md). A client of the library's group-by job (include/raid/groupby.h):
 * raid_groupby_run_csv reads and aggregates, raid_groupby_table_write_csv writes. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

#define USAGE(...)                                                                                               \
    do {                                                                                                         \
        fprintf(stderr, "raid groupby: " __VA_ARGS__);                                                           \
        return EXIT_USAGE;                                                                                       \
    } while (0)

/* Parse the options; 0, -1 (help printed) or an exit status (message printed). */
static int groupby_options(int argc, char **argv, const char **by, const char **aggs, const char **out_path,
                           const char **device)
{
    static const struct option longopts[] = {
        {"output", required_argument, 0, 'o'}, {"device", required_argument, 0, 'd'},
        {"by", required_argument, 0, 'b'},     {"agg", required_argument, 0, 'a'},
        {"help", no_argument, 0, 'h'},         {0, 0, 0, 0}};
    int opt, li = 0;
    optind = 1;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, ":o:h", longopts, &li)) != -1) {
        switch (opt) {
        case 'o': case 'd': case 'b': case 'a':
            if (!*optarg)
                USAGE("empty %s\n", opt == 'o' ? "-o" : argv[optind - 1]);
            *(opt == 'o' ? out_path : opt == 'd' ? device : opt == 'b' ? by : aggs) = optarg;
            break;
        case 'h': fputs(cli_help("groupby"), stdout); return -1;
        case ':': USAGE("option %s needs a value\n", argv[optind - 1]);
        default: USAGE("unknown option %s\n", argv[optind - 1]);
        }
    }
    if (optind != argc - 1)
        USAGE("expected one input FILE (see raid help groupby)\n");
    if (!*by || !*aggs)
        USAGE("--by and --agg are required (see raid help groupby)\n");
    if (cli_same_file(argv[optind], *out_path) || (!strcmp(argv[optind], "-") && cli_is_stdin_file(*out_path)))
        USAGE("-o '%s' is the input file '%s'\n", *out_path, argv[optind]);
    return 0;
}

int cmd_groupby(int argc, char **argv)
{
    const char *by = NULL, *aggs = NULL, *out_path = NULL, *device = NULL;
    int rc = groupby_options(argc, argv, &by, &aggs, &out_path, &device);
    if (rc)
        return rc < 0 ? 0 : rc;
    raid_ctx *ctx = NULL;
    raid_groupby_table *t = NULL;
    cli_out out;
    raid_status st = raid_ctx_create(&ctx, device);
    if (st != RAID_OK) {
        fprintf(stderr, "raid groupby: %s\n", raid_errmsg());
        return cli_exit_for(st) == EXIT_USAGE ? EXIT_USAGE : EXIT_DEVICE;
    }
    if ((st = raid_groupby_run_csv(ctx, argv[optind], by, aggs, 0, &t)) != RAID_OK) {
        fprintf(stderr, "raid groupby: %s\n", raid_ctx_errmsg(ctx));
        rc = st == RAID_EINVAL ? EXIT_USAGE : cli_exit_for(st);
        goto done;
    }
    if (cli_open_output(&out, out_path ? out_path : "-") != 0) {
        rc = EXIT_INPUT;
        goto done;
    }
    cli_check_write(&out, raid_groupby_table_write_csv(t, out.fp));
    if (cli_commit_output(&out, "groupby") != 0) {
        cli_abort_output(&out);
        rc = EXIT_INPUT;
    }
done:
    raid_groupby_table_destroy(t);
    raid_ctx_destroy(ctx);
    return rc;
}
