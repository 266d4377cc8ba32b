/* raid returns: the log returns of intraday prices, one row a return, sampled and segmented as `raid
 * realized` does; raid jumps: the Lee-Mykland test of each of those returns (the same reading, then
 * raid_jumps_table_compute). */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BATCH_RETURNS ((size_t)1 << 24)

/* raid returns (jumps 0) and raid jumps (jumps 1): the options of raid returns, and for raid jumps
 * --window, --alpha and --all. */
static int returns_or_jumps(int argc, char **argv, int jumps)
{
    const char *cmd = jumps ? "jumps" : "returns";
    static const struct option longopts[] = {
        {"output", required_argument, 0, 'o'},    {"device", required_argument, 0, 'd'},
        {"sample", required_argument, 0, 's'},    {"session", required_argument, 0, 'w'},
        {"tz", required_argument, 0, 'z'},        {"symbol-col", required_argument, 0, 1},
        {"time-col", required_argument, 0, 2},    {"price-col", required_argument, 0, 3},
        {"quiet", no_argument, 0, 'q'},           {"help", no_argument, 0, 'h'},
        {"window", required_argument, 0, 4},      {"alpha", required_argument, 0, 5},
        {"all", no_argument, 0, 6},               {0, 0, 0, 0}};
    raid_read_opts ro;
    raid_read_opts_init(&ro);
    ro.samples = 1;
    const char *out_path = NULL, *device = NULL;
    uint64_t window = 0; /* 0: Lee and Mykland's per symbol */
    double alpha = 0.01;
    int all = 0;
    int opt, li = 0;
    optind = 1;
    opterr = 0;
    const char *seen[sizeof longopts / sizeof *longopts] = {0};
    while ((opt = getopt_long(argc, argv, ":o:hq", longopts, &li)) != -1) {
        if (cli_option_once(cmd, longopts, opt, seen) != 0)
            return EXIT_USAGE;
        if (!jumps && opt >= 4 && opt <= 6) {
            fprintf(stderr, "raid %s: unknown option %s\n", cmd, RAID_SHOWZ(argv[optind - 1]));
            return EXIT_USAGE;
        }
        if ((opt == 'o' || opt == 'd' || (opt >= 1 && opt <= 5)) && !*optarg) {
            fprintf(stderr, "raid %s: empty %s%s\n", cmd, opt == 'o' ? "-o" : "--", opt == 'o' ? "" : longopts[li].name);
            return EXIT_USAGE;
        }
        switch (opt) {
        case 'o': out_path = optarg; break;
        case 'd': device = optarg; break;
        case 's':
            if (raid_parse_sample(optarg, &ro.sample_us) != RAID_OK) {
                fprintf(stderr, "raid %s: bad --sample '%s' (expected tick, Ns, Nmin, Nh or Nms)\n", cmd, RAID_SHOWZ(optarg));
                return EXIT_USAGE;
            }
            break;
        case 'w':
            if (raid_parse_session(optarg, &ro.session_start_s, &ro.session_end_s) != RAID_OK) {
                fprintf(stderr, "raid %s: --session: %s\n", cmd, raid_errmsg());
                return EXIT_USAGE;
            }
            break;
        case 'q': cli_quiet = 1; break;
        case 'z': ro.tz = optarg; break;
        case 1: ro.symbol_col = optarg; break;
        case 2: ro.time_col = optarg; break;
        case 3: ro.price_col = optarg; break;
        case 4:
            if (cli_parse_u64(optarg, &window) != 0 || window < 3 || window > ((uint64_t)1 << 40)) {
                fprintf(stderr, "raid jumps: bad --window '%s' (expected an integer K from 3 to 2^40: K - 1 returns "
                        "before each tested one)\n", RAID_SHOWZ(optarg));
                return EXIT_USAGE;
            }
            break;
        case 5:
            if (cli_parse_double(optarg, &alpha) != 0 || !(alpha > 0.0 && alpha < 1.0)) {
                fprintf(stderr, "raid jumps: bad --alpha '%s' (expected a number in (0, 1), e.g. 0.01)\n",
                        RAID_SHOWZ(optarg));
                return EXIT_USAGE;
            }
            break;
        case 6: all = 1; break;
        case 'h': fputs(cli_help(cmd), stdout); return 0;
        case ':': fprintf(stderr, "raid %s: option %s needs a value\n", cmd, RAID_SHOWZ(argv[optind - 1])); return EXIT_USAGE;
        default: fprintf(stderr, "raid %s: unknown option %s\n", cmd, RAID_SHOWZ(argv[optind - 1])); return EXIT_USAGE;
        }
    }
    if (optind != argc - 1) {
        fprintf(stderr, "raid %s: expected one input FILE (see raid help %s)\n", cmd, cmd);
        return EXIT_USAGE;
    }
    const char *in_path = argv[optind];
    if (cli_same_file(in_path, out_path) || (!strcmp(in_path, "-") && cli_is_stdin_file(out_path))) {
        fprintf(stderr, "raid %s: -o '%s' is the input file '%s'\n", cmd, RAID_SHOWZ(out_path), RAID_SHOWZ(in_path));
        return EXIT_USAGE;
    }

    raid_ctx *ctx = NULL; /* none: the cpu's returns, as the segmenter takes them */
    raid_status st;
    if (device && (st = raid_ctx_create(&ctx, device)) != RAID_OK) {
        fprintf(stderr, "raid %s: %s\n", cmd, raid_errmsg());
        return cli_exit_for(st) == EXIT_USAGE ? EXIT_USAGE : EXIT_DEVICE;
    }
    raid_reader *rd = NULL;
    st = raid_reader_open(&rd, in_path, &ro);
    if (st != RAID_OK) {
        fprintf(stderr, "raid %s: %s\n", cmd, raid_errmsg());
        raid_ctx_destroy(ctx);
        return st == RAID_EINVAL ? EXIT_USAGE : EXIT_INPUT;
    }
    int rc = 0, done = 0;
    raid_returns_table *tab = NULL;
    raid_jumps_table *jt = NULL;
    cli_out out;
    memset(&out, 0, sizeof out);
    if (cli_open_output(&out, cmd, out_path ? out_path : "-") != 0) { /* before the work: fail fast */
        out.is_stdout = 1;
        rc = EXIT_INPUT;
        goto done;
    }
    if (raid_returns_table_create(&tab) != RAID_OK) {
        fprintf(stderr, "raid %s: %s\n", cmd, raid_errmsg());
        rc = EXIT_INPUT;
        goto done;
    }
    while (!done) { /* read a batch, keep its returns: include/raid/returns.h */
        st = raid_returns_table_add_reader(tab, ctx, rd, BATCH_RETURNS, &done);
        if (st != RAID_OK) {
            const int dev_err = st >= RAID_ENODEV; /* the device's, not the input's: named as such */
            fprintf(stderr, "raid %s: %s%s%s\n", cmd, dev_err ? raid_strerror(st) : "", dev_err ? ": " : "",
                    ctx ? raid_ctx_errmsg(ctx) : raid_errmsg());
            rc = dev_err ? EXIT_DEVICE : EXIT_INPUT;
            goto done;
        }
    }
    cli_notes notes;
    cli_notes_init(&notes, cmd, 0, NULL);
    for (size_t i = 0; i < raid_reader_notice_count(rd); i++) /* facts the output does not show */
        cli_notes_add(&notes, NULL, raid_reader_notice(rd, i));
    if ((st = raid_returns_table_finish(tab)) != RAID_OK) {
        fprintf(stderr, "raid %s: %s\n", cmd, raid_errmsg());
        rc = EXIT_INPUT;
        goto done;
    }
    if (jumps && raid_jumps_table_compute(&jt, tab, (size_t)window, alpha) != RAID_OK) {
        fprintf(stderr, "raid %s: %s\n", cmd, raid_errmsg());
        rc = EXIT_INPUT;
        goto done;
    }
    cli_check_write(&out, jumps ? raid_jumps_table_write_csv(jt, tab, out.fp, all) : raid_returns_table_write_csv(tab, out.fp));
    if (cli_commit_output(&out, cmd) != 0)
        rc = EXIT_INPUT;

done:
    if (rc)
        cli_abort_output(&out);
    raid_jumps_table_destroy(jt);
    raid_returns_table_destroy(tab);
    raid_reader_close(rd);
    raid_ctx_destroy(ctx);
    return rc;
}

int cmd_returns(int argc, char **argv) { return returns_or_jumps(argc, argv, 0); }
int cmd_jumps(int argc, char **argv) { return returns_or_jumps(argc, argv, 1); }
