/* raid sweep: moving-average crossover backtests over a grid of (fast, slow) periods (docs/ta_sweep.md).
 * A client of the library's sweep API (include/raid/sweep.h): read FILE with raid_ma_read_csv_columns
 * (close, optional open), run with raid_sweep_run, write with raid_sweep_write_csv (and
 * raid_sweep_write_trades for --trades). */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define USAGE(...)                                                                                               \
    do {                                                                                                         \
        fprintf(stderr, "raid sweep: " __VA_ARGS__);                                                             \
        return EXIT_USAGE;                                                                                       \
    } while (0)

typedef struct sweep_args {
    raid_sweep_spec spec;
    const char *names[3], *cols[2], *out_path, *trades_path, *device;
    raid_precision prec; /* --precision: the context's (raid_ctx_set_precision) */
    int parity; /* --parity */
} sweep_args;

/* A library message without its leading "sweep: " (the CLI prints "raid sweep: "). */
static const char *msg(const char *m)
{
    return strncmp(m, "sweep: ", 7) ? m : m + 7;
}

/* Parse the options; 0, -1 (help printed) or an exit status (message printed). */
static int sweep_options(int argc, char **argv, sweep_args *a)
{
    static const struct option longopts[] = {
        {"output", required_argument, 0, 'o'},     {"device", required_argument, 0, 'd'},
        {"fast", required_argument, 0, 'f'},       {"slow", required_argument, 0, 's'},
        {"short", no_argument, 0, 'S'},            {"cost-bps", required_argument, 0, 'c'},
        {"fill", required_argument, 0, 'F'},       {"bars-per-year", required_argument, 0, 'b'},
        {"trades", required_argument, 0, 't'},     {"ma", required_argument, 0, 'm'},
        {"symbol-col", required_argument, 0, 1},   {"date-col", required_argument, 0, 2},
        {"close-col", required_argument, 0, 3},    {"open-col", required_argument, 0, 4},
        {"precision", required_argument, 0, 5},    {"formulation", required_argument, 0, 6},
        {"parity", no_argument, 0, 7},             {"quiet", no_argument, 0, 'q'},
        {"help", no_argument, 0, 'h'},             {0, 0, 0, 0}};
    int opt, li = 0;
    optind = 1;
    opterr = 0;
    const char *seen[sizeof longopts / sizeof *longopts] = {0};
    while ((opt = getopt_long(argc, argv, ":o:hq", longopts, &li)) != -1) {
        if (cli_option_once("sweep", longopts, opt, seen) != 0)
            return EXIT_USAGE;
        raid_sweep_spec *sp = &a->spec;
        switch (opt) {
        case 'o': case 'd': case 't':
            if (!*optarg)
                USAGE("empty %s\n", opt == 'o' ? "-o" : opt == 'd' ? "--device" : "--trades");
            *(opt == 'o' ? &a->out_path : opt == 'd' ? &a->device : &a->trades_path) = optarg;
            break;
        case 'f': case 's':
            if (raid_sweep_parse_range(optarg, opt == 'f' ? &sp->fast_lo : &sp->slow_lo,
                                       opt == 'f' ? &sp->fast_hi : &sp->slow_hi,
                                       opt == 'f' ? &sp->fast_step : &sp->slow_step) != RAID_OK)
                USAGE("--%s: %s\n", opt == 'f' ? "fast" : "slow", msg(raid_errmsg()));
            break;
        case 'S': sp->short_side = 1; break;
        case 'c':
            if (cli_parse_double(optarg, &sp->cost_bps) || !(sp->cost_bps >= 0 && sp->cost_bps < 1e4))
                USAGE("bad --cost-bps '%s' (expected a number in [0, 10000))\n", RAID_SHOWZ(optarg));
            break;
        case 'b':
            if (cli_parse_double(optarg, &sp->bars_per_year) || !(sp->bars_per_year > 0))
                USAGE("bad --bars-per-year '%s' (expected a number > 0)\n", RAID_SHOWZ(optarg));
            break;
        case 'F':
            if (!strcmp(optarg, "close") || !strcmp(optarg, "next-open"))
                sp->fill = optarg[0] == 'c' ? RAID_SWEEP_FILL_CLOSE : RAID_SWEEP_FILL_NEXT_OPEN;
            else
                USAGE("bad --fill '%s' (expected close or next-open)\n", RAID_SHOWZ(optarg));
            break;
        case 'm':
            if (raid_ma_stat_parse(optarg, &sp->ma) != RAID_OK)
                USAGE("bad --ma '%s' (expected hma, wma, mean or sma, or ema)\n", RAID_SHOWZ(optarg));
            break;
        case 1: case 2: case 3: case 4:
            if (!*optarg)
                USAGE("empty --%s\n", longopts[li].name);
            if (opt <= 2)
                a->names[opt - 1] = optarg;
            else
                a->cols[opt - 3] = optarg;
            break;
        case 5:
            if (cli_parse_precision("sweep", optarg, &a->prec))
                return EXIT_USAGE;
            break;
        case 6:
            if (!strcmp(optarg, "direct") || !strcmp(optarg, "prefix"))
                sp->formulation = optarg[0] == 'd' ? RAID_SWEEP_DIRECT : RAID_SWEEP_PREFIX;
            else
                USAGE("bad --formulation '%s' (expected direct or prefix)\n", RAID_SHOWZ(optarg));
            break;
        case 7: a->parity = 1; break;
        case 'q': cli_quiet = 1; break;
        case 'h': fputs(cli_help("sweep"), stdout); return -1;
        case ':': USAGE("option %s needs a value\n", RAID_SHOWZ(argv[optind - 1]));
        default: USAGE("unknown option %s\n", RAID_SHOWZ(argv[optind - 1]));
        }
    }
    if (optind != argc - 1)
        USAGE("expected one input FILE (see raid help sweep)\n");
    const char *in = argv[optind];
    if (a->trades_path && !cli_is_plain_file(a->trades_path))
        USAGE("--trades '%s' must name a file, not standard output or a device\n", RAID_SHOWZ(a->trades_path));
    if (cli_same_file(a->trades_path, a->out_path))
        USAGE("--trades and -o name the same file '%s'\n", RAID_SHOWZ(a->out_path));
    for (int j = 0; j < 2; j++) {
        const char *o = j ? a->trades_path : a->out_path;
        if (cli_same_file(in, o) || (!strcmp(in, "-") && cli_is_stdin_file(o)))
            USAGE("%s '%s' is the input file '%s'\n", j ? "--trades" : "-o", RAID_SHOWZ(o), RAID_SHOWZ(in));
    }
    return 0;
}

int cmd_sweep(int argc, char **argv)
{
    sweep_args a = {.names = {NULL, NULL, NULL}, .cols = {"close", "open"}, .prec = RAID_PREC_DF};
    raid_sweep_spec_default(&a.spec);
    int rc = sweep_options(argc, argv, &a);
    if (rc)
        return rc < 0 ? 0 : rc;
    a.spec.keep_trades = a.trades_path != NULL;
    raid_ctx *ctx = NULL;
    raid_ma_input *in = NULL;
    raid_sweep_result *res = NULL;
    raid_sweep_parity_report *rep = NULL;
    cli_out out, tout;
    int have_out = 0, have_tout = 0;
    raid_status st = raid_ctx_create(&ctx, a.device);
    if (st != RAID_OK) {
        fprintf(stderr, "raid sweep: %s\n", raid_errmsg());
        return cli_exit_for(st) == EXIT_USAGE ? EXIT_USAGE : EXIT_DEVICE;
    }
    /* the spec is checked on the context, whose precision it needs (f32 not with ema): a usage error */
    if (raid_ctx_set_precision(ctx, a.prec) != RAID_OK || raid_sweep_spec_check(ctx, &a.spec) != RAID_OK) {
        fprintf(stderr, "raid sweep: %s\n", msg(raid_errmsg()));
        raid_ctx_destroy(ctx);
        return EXIT_USAGE;
    }
    /* open is read only for fills at the open (optional in the file otherwise: not even looked at) */
    const size_t ncols = a.spec.fill == RAID_SWEEP_FILL_NEXT_OPEN ? 2 : 1;
    if (raid_ma_read_csv_columns(argv[optind], a.names, a.cols, ncols, 0u, &in) != RAID_OK) {
        fprintf(stderr, "raid sweep: %s\n", raid_errmsg());
        rc = EXIT_INPUT;
        goto done;
    }
    cli_notes notes;
    cli_notes_init(&notes, "sweep", raid_ma_input_nseries(in), "series");
    for (size_t i = 0; i < raid_ma_input_notice_count(in); i++)
        cli_notes_add(&notes, NULL, raid_ma_input_notice(in, i));
    cli_progress_attach(ctx, "sweep");
    st = a.parity ? raid_sweep_parity(ctx, &a.spec, in, &rep, &res) : raid_sweep_run(ctx, &a.spec, in, &res);
    cli_progress_end();
    if (st != RAID_OK) {
        fprintf(stderr, "raid sweep: %s\n", msg(raid_ctx_errmsg(ctx)));
        rc = st == RAID_EINVAL || st == RAID_EPARSE || st == RAID_ENOMEM ? EXIT_INPUT : EXIT_DEVICE;
        goto done;
    }
    for (size_t i = 0; i < raid_sweep_result_nmessages(res); i++) { /* series skipped, combinations without a
                                                                      value: per series, summarised by kind */
        const char *sym = raid_ma_input_symbol(in, raid_sweep_result_message_series(res, i));
        cli_notes_add(&notes, sym && *sym ? sym : "(no symbol)", raid_sweep_result_message(res, i));
    }
    cli_notes_print(&notes, "their combinations' fields are empty in the output");
    if (!raid_sweep_result_nvalued(res)) { /* nothing written, not even a header: as raid garch */
        fprintf(stderr, "raid sweep: no combination has a value (each series is reported above)\n");
        rc = EXIT_INPUT;
        goto done;
    }
    if (cli_open_output(&out, "sweep", a.out_path ? a.out_path : "-") != 0) {
        rc = EXIT_INPUT;
        goto done;
    }
    have_out = 1;
    if (a.trades_path) {
        if (cli_open_output(&tout, "sweep", a.trades_path) != 0) {
            rc = EXIT_INPUT;
            goto done;
        }
        have_tout = 1;
        cli_check_write(&tout, raid_sweep_write_trades(res, tout.fp));
    }
    cli_check_write(&out, raid_sweep_write_csv(res, out.fp));
    if (cli_commit_outputs((cli_out *const[]){&out, &tout}, have_tout ? 2 : 1, "sweep") != 0)
        rc = EXIT_INPUT; /* the outputs not committed are removed below */
    if (rep && rc == 0) { /* the report on stderr; exit status 3 when a threshold is exceeded */
        raid_sweep_parity_write(rep, stderr);
        if (!rep->passed)
            rc = EXIT_CHECK;
    }
done:
    if (have_out)
        cli_abort_output(&out);
    if (have_tout)
        cli_abort_output(&tout);
    raid_sweep_result_destroy(res);
    raid_sweep_parity_destroy(rep);
    raid_ma_input_destroy(in);
    raid_ctx_destroy(ctx);
    return rc;
}
