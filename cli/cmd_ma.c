/* raid ma: moving averages and rolling statistics of price series (docs/ta.md). A client of the library's
 * indicator API (include/raid/ma.h): read FILE with raid_ma_read_csv, compute with raid_ma_compute, write
 * with raid_ma_write_csv. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define USAGE(...)                                                                                               \
    do {                                                                                                         \
        fprintf(stderr, "raid ma: " __VA_ARGS__);                                                                \
        return EXIT_USAGE;                                                                                       \
    } while (0)

/* Parse the options; 0, -1 (help printed) or an exit status (message printed). */
static int ma_options(int argc, char **argv, raid_ma_stat *stat, int64_t *window, const char *names[3],
                      const char **out_path, const char **device)
{
    static const struct option longopts[] = {
        {"output", required_argument, 0, 'o'},  {"device", required_argument, 0, 'd'},
        {"stat", required_argument, 0, 's'},    {"window", required_argument, 0, 'w'},
        {"symbol-col", required_argument, 0, 1}, {"date-col", required_argument, 0, 2},
        {"col", required_argument, 0, 3},        {"quiet", no_argument, 0, 'q'},
        {"help", no_argument, 0, 'h'},           {0, 0, 0, 0}};
    int opt, li = 0, have_stat = 0;
    optind = 1;
    opterr = 0;
    *window = 0;
    const char *seen[sizeof longopts / sizeof *longopts] = {0};
    while ((opt = getopt_long(argc, argv, ":o:hq", longopts, &li)) != -1) {
        if (cli_option_once("ma", longopts, opt, seen) != 0)
            return EXIT_USAGE;
        switch (opt) {
        case 'o':
        case 'd':
            if (!*optarg)
                USAGE("empty %s\n", opt == 'o' ? "-o" : "--device");
            *(opt == 'o' ? out_path : device) = optarg;
            break;
        case 's':
            if (raid_ma_stat_parse(optarg, stat) != RAID_OK)
                USAGE("bad --stat '%s' (expected sum, mean or sma, sumsq, var, wma, ema or hma)\n", RAID_SHOWZ(optarg));
            have_stat = 1;
            break;
        case 'w':
            if (cli_parse_i64(optarg, 1, RAID_MA_MAX_WINDOW, window))
                USAGE("bad --window '%s' (expected an integer in [1, %d])\n", RAID_SHOWZ(optarg), RAID_MA_MAX_WINDOW);
            break;
        case 1: case 2: case 3:
            if (!*optarg)
                USAGE("empty --%s\n", longopts[li].name);
            names[opt == 1 ? 0 : opt == 2 ? 1 : 2] = optarg;
            break;
        case 'q': cli_quiet = 1; break;
        case 'h': fputs(cli_help("ma"), stdout); return -1;
        case ':': USAGE("option %s needs a value\n", RAID_SHOWZ(argv[optind - 1]));
        default: USAGE("unknown option %s\n", RAID_SHOWZ(argv[optind - 1]));
        }
    }
    if (optind != argc - 1)
        USAGE("expected one input FILE (see raid help ma)\n");
    if (!have_stat || !*window)
        USAGE("--stat and --window are required (see raid help ma)\n");
    if (raid_ma_warmup(*stat, *window) < 0)
        USAGE("--stat %s needs --window 2 or more\n", raid_ma_stat_name(*stat));
    if (cli_same_file(argv[optind], *out_path) || (!strcmp(argv[optind], "-") && cli_is_stdin_file(*out_path)))
        USAGE("-o '%s' is the input file '%s'\n", RAID_SHOWZ(*out_path), RAID_SHOWZ(argv[optind]));
    return 0;
}

int cmd_ma(int argc, char **argv)
{
    const char *names[3] = {NULL, NULL, NULL}, *out_path = NULL, *device = NULL;
    raid_ma_stat stat = RAID_MA_WMA;
    int64_t window = 0;
    int rc = ma_options(argc, argv, &stat, &window, names, &out_path, &device);
    if (rc)
        return rc < 0 ? 0 : rc;
    raid_ctx *ctx = NULL;
    raid_ma_input *in = NULL;
    double *y = NULL;
    cli_out out;
    raid_status st = raid_ctx_create(&ctx, device);
    if (st != RAID_OK) {
        fprintf(stderr, "raid ma: %s\n", raid_errmsg());
        return cli_exit_for(st) == EXIT_USAGE ? EXIT_USAGE : EXIT_DEVICE;
    }
    if (raid_ma_read_csv(argv[optind], names, &in) != RAID_OK) {
        fprintf(stderr, "raid ma: %s\n", raid_errmsg());
        rc = EXIT_INPUT;
        goto done;
    }
    cli_notes notes;
    cli_notes_init(&notes, "ma", raid_ma_input_nseries(in), "series");
    for (size_t i = 0; i < raid_ma_input_notice_count(in); i++)
        cli_notes_add(&notes, NULL, raid_ma_input_notice(in, i));
    const size_t n = raid_ma_input_nrows(in);
    if (!(y = malloc((n ? n : 1) * sizeof *y))) { /* n = 0: a header alone, written back alone */
        fprintf(stderr, "raid ma: out of memory\n");
        rc = EXIT_INPUT;
        goto done;
    }
    cli_progress_attach(ctx, "ma");
    st = raid_ma_compute(ctx, stat, window, raid_ma_input_values(in), raid_ma_input_offsets(in),
                         raid_ma_input_nseries(in), y);
    cli_progress_end();
    if (st != RAID_OK) {
        fprintf(stderr, "raid ma: %s\n", raid_ctx_errmsg(ctx));
        rc = st == RAID_EINVAL || st == RAID_ENOMEM ? EXIT_INPUT : EXIT_DEVICE;
        goto done;
    }
    { /* series without any value (shorter than the warm-up, R TTR refuses them): said, not left to be found */
        const int64_t *off = raid_ma_input_offsets(in);
        const double *x = raid_ma_input_values(in);
        size_t none = 0, first = 0, ns = raid_ma_input_nseries(in);
        for (size_t s = 0; s < ns; s++) {
            int have_x = 0, have_y = 0;
            for (int64_t i = off[s]; i < off[s + 1] && !have_y; i++)
                have_x |= x[i] == x[i], have_y = y[i] == y[i];
            if (have_x && !have_y && !none++)
                first = s;
        }
        if (none) { /* one line for all of them: a notice about the output, printed in full, also with --quiet */
            char text[512];
            snprintf(text, sizeof text, "%zu of %zu series %s no value: --stat %s --window %lld needs %lld values in "
                     "a row without NaN (the first such series: '%.64s', %lld rows)", none, ns,
                     none == 1 ? "has" : "have", raid_ma_stat_name(stat), (long long)window,
                     (long long)raid_ma_warmup(stat, window) + 1, raid_ma_input_symbol(in, first),
                     (long long)(off[first + 1] - off[first]));
            cli_notes_add(&notes, NULL, text);
        }
    }
    if (cli_open_output(&out, "ma", out_path ? out_path : "-") != 0) {
        rc = EXIT_INPUT;
        goto done;
    }
    cli_check_write(&out, raid_ma_write_csv(in, stat, y, out.fp));
    if (cli_commit_output(&out, "ma") != 0) {
        cli_abort_output(&out);
        rc = EXIT_INPUT;
    }
done:
    free(y);
    raid_ma_input_destroy(in);
    raid_ctx_destroy(ctx);
    return rc;
}
