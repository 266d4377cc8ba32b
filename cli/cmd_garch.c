/* raid garch: GARCH-family volatility models of every symbol of a CSV (docs/garch.md). A client of the
 * library's GARCH API (include/raid/garch.h): parse the options into a raid_garch_spec, read FILE with
 * raid_garch_read_csv, fit with raid_garch_fit, print the messages and write the rows. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define USAGE(...)                                                                                               \
    do {                                                                                                         \
        fprintf(stderr, "raid garch: " __VA_ARGS__);                                                             \
        return EXIT_USAGE;                                                                                       \
    } while (0)

/* One word option: parse it with the library's parser (whose message names the accepted words) and set
 * it; 0 or an exit status. */
#define WORD_OPT(PARSE, TYPE, SET)                                                                               \
    {                                                                                                            \
        TYPE v_;                                                                                                 \
        if (PARSE(optarg, &v_) != RAID_OK)                                                                       \
            USAGE("--%s: %s\n", longopts[li].name, raid_errmsg());                                               \
        SET(sp, v_);                                                                                             \
        break;                                                                                                   \
    }

/* Parse the options into sp, the column names and kind, and the paths; 0, -1 (help shown) or an exit
 * status (message printed). */
static int garch_options(int argc, char **argv, raid_garch_spec *sp, const char *names[3], raid_garch_column *kind,
                         const char **out_path, const char **device)
{
    static const struct option longopts[] = {
        {"output", required_argument, 0, 'o'},   {"device", required_argument, 0, 'd'},
        {"model", required_argument, 0, 'm'},    {"dist", required_argument, 0, 'D'},
        {"mean", required_argument, 0, 'M'},     {"init", required_argument, 0, 'i'},
        {"ez", required_argument, 0, 'e'},       {"se", required_argument, 0, 's'},
        {"window", required_argument, 0, 'w'},   {"step", required_argument, 0, 'S'},
        {"input", required_argument, 0, 'I'},    {"max-iter", required_argument, 0, 'x'},
        {"ret-col", required_argument, 0, 1},    {"price-col", required_argument, 0, 2},
        {"symbol-col", required_argument, 0, 3}, {"date-col", required_argument, 0, 4},
        {"quiet", no_argument, 0, 'q'},          {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    raid_garch_window wk = RAID_GARCH_FULL;
    int64_t win = 0, step = 1, v;
    const char *ret_col = NULL, *price_col = NULL;
    int opt, li = 0, have_step = 0;
    optind = 1;
    opterr = 0;
    const char *seen[sizeof longopts / sizeof *longopts] = {0};
    while ((opt = getopt_long(argc, argv, ":o:hq", longopts, &li)) != -1) {
        if (cli_option_once("garch", longopts, opt, seen) != 0)
            return EXIT_USAGE;
        if (opt >= 1 && opt <= 4 && !*optarg)
            USAGE("empty --%s\n", longopts[li].name);
        switch (opt) {
        case 'o':
        case 'd':
            if (!*optarg)
                USAGE("empty %s\n", opt == 'o' ? "-o" : "--device");
            *(opt == 'o' ? out_path : device) = optarg;
            break;
        case 'm': WORD_OPT(raid_garch_model_parse, raid_garch_model, raid_garch_spec_set_model)
        case 'D': WORD_OPT(raid_garch_dist_parse, raid_garch_dist, raid_garch_spec_set_dist)
        case 'M': WORD_OPT(raid_garch_mean_parse, raid_garch_mean, raid_garch_spec_set_mean)
        case 'i': WORD_OPT(raid_garch_init_parse, raid_garch_init, raid_garch_spec_set_init)
        case 'e': WORD_OPT(raid_garch_ez_parse, raid_garch_ez, raid_garch_spec_set_ez)
        case 's': WORD_OPT(raid_garch_se_parse, raid_garch_se, raid_garch_spec_set_se)
        case 'I':
            if (raid_garch_column_parse(optarg, kind) != RAID_OK)
                USAGE("--input: %s\n", raid_errmsg());
            break;
        case 'w':
            if (raid_garch_window_parse(optarg, &wk, &win) != RAID_OK || wk == RAID_GARCH_FULL)
                USAGE("bad --window '%s' (expected rolling:N or expanding:N, N from %d to 2147483647)\n", RAID_SHOWZ(optarg),
                      RAID_GARCH_MIN_T);
            break;
        case 'S':
            if (cli_parse_i64(optarg, 1, INT32_MAX, &step))
                USAGE("bad --step '%s' (expected an integer from 1 to 2147483647)\n", RAID_SHOWZ(optarg));
            have_step = 1;
            break;
        case 'x':
            if (cli_parse_i64(optarg, 1, 100000, &v))
                USAGE("bad --max-iter '%s' (expected an integer from 1 to 100000)\n", RAID_SHOWZ(optarg));
            raid_garch_spec_set_max_iter(sp, (int)v);
            break;
        case 'q': cli_quiet = 1; break;
        case 1: ret_col = optarg; break;
        case 2: price_col = optarg; break;
        case 3: names[0] = optarg; break;
        case 4: names[1] = optarg; break;
        case 'h': fputs(cli_help("garch"), stdout); return -1;
        case ':': USAGE("option %s needs a value\n", RAID_SHOWZ(argv[optind - 1]));
        default: USAGE("unknown option %s\n", RAID_SHOWZ(argv[optind - 1]));
        }
    }
    if (optind != argc - 1)
        USAGE("expected one input FILE (see raid help garch)\n");
    if (have_step && wk == RAID_GARCH_FULL)
        USAGE("--step needs --window\n");
    if (*kind == RAID_GARCH_RETURNS ? price_col != NULL : ret_col != NULL)
        USAGE("%s applies to --input %s only\n", price_col ? "--price-col" : "--ret-col",
              price_col ? "prices" : "returns");
    names[2] = *kind == RAID_GARCH_PRICES ? price_col : ret_col;
    if (cli_same_file(argv[optind], *out_path) || (!strcmp(argv[optind], "-") && cli_is_stdin_file(*out_path)))
        USAGE("-o '%s' is the input file '%s'\n", RAID_SHOWZ(*out_path), RAID_SHOWZ(argv[optind]));
    raid_garch_spec_set_window(sp, wk, win, step);
    return 0;
}

int cmd_garch(int argc, char **argv)
{
    const char *names[3] = {NULL, NULL, NULL}, *out_path = NULL, *device = NULL;
    raid_garch_column kind = RAID_GARCH_RETURNS;
    raid_garch_spec *sp = NULL;
    raid_garch_input *in = NULL;
    raid_garch_result *res = NULL;
    raid_ctx *ctx = NULL;
    cli_out out;
    int rc = 0, out_open = 0;
    if (raid_garch_spec_create(&sp) != RAID_OK) {
        fprintf(stderr, "raid garch: %s\n", raid_errmsg());
        return EXIT_INPUT;
    }
    if ((rc = garch_options(argc, argv, sp, names, &kind, &out_path, &device)) != 0) {
        raid_garch_spec_destroy(sp);
        return rc < 0 ? 0 : rc;
    }
    raid_status st = raid_ctx_create(&ctx, device);
    if (st != RAID_OK) {
        fprintf(stderr, "raid garch: %s\n", raid_errmsg());
        raid_garch_spec_destroy(sp);
        return cli_exit_for(st) == EXIT_USAGE ? EXIT_USAGE : EXIT_DEVICE;
    }
    if (raid_garch_read_csv(argv[optind], names, kind, &in) != RAID_OK) {
        fprintf(stderr, "raid garch: %s\n", raid_errmsg());
        rc = EXIT_INPUT;
        goto done;
    }
    cli_notes notes;
    cli_notes_init(&notes, "garch", raid_garch_input_nsymbols(in), "series");
    for (size_t i = 0; i < raid_garch_input_notice_count(in); i++)
        cli_notes_add(&notes, NULL, raid_garch_input_notice(in, i));
    cli_progress_attach(ctx, "garch");
    st = raid_garch_fit(ctx, sp, in, &res);
    cli_progress_end();
    if (st != RAID_OK) {
        fprintf(stderr, "raid garch: %s\n", raid_ctx_errmsg(ctx));
        rc = st == RAID_EINVAL || st == RAID_ENOMEM ? EXIT_INPUT : EXIT_DEVICE;
        goto done;
    }
    for (size_t i = 0; i < raid_garch_result_nmessages(res); i++) { /* per series, summarised by kind */
        const char *sym = raid_garch_input_symbol(in, raid_garch_result_message_symbol(res, i));
        cli_notes_add(&notes, sym && *sym ? sym : "(no symbol)", raid_garch_result_message(res, i));
    }
    cli_notes_print(&notes, "each row's status is in the output's status column");
    const size_t nrows = raid_garch_result_nrows(res);
    const int32_t *status = raid_garch_result_status(res);
    size_t nest = 0;
    for (size_t r = 0; r < nrows; r++)
        nest += status[r] < RAID_GARCH_TOO_SHORT; /* the statuses with estimates */
    if (!nest && !nrows && raid_garch_spec_window(sp) != RAID_GARCH_FULL) { /* not one window: say why */
        size_t longest = 0;
        for (size_t q = 0; q < raid_garch_input_nsymbols(in); q++)
            if (raid_garch_input_length(in, q) > longest)
                longest = raid_garch_input_length(in, q);
        fprintf(stderr, "raid garch: no series could be estimated: the window (%s:%lld) is longer than every series "
                "(the longest has %zu returns)\n", raid_garch_spec_window(sp) == RAID_GARCH_ROLLING ? "rolling" : "expanding",
                (long long)raid_garch_spec_window_n(sp), longest);
        rc = EXIT_INPUT;
        goto done;
    }
    if (!nest) { /* nothing written, not even a header */
        fprintf(stderr, "raid garch: no series could be estimated (each is reported above)\n");
        rc = EXIT_INPUT;
        goto done;
    }
    if (cli_open_output(&out, "garch", out_path ? out_path : "-") != 0) {
        rc = EXIT_INPUT;
        goto done;
    }
    out_open = 1;
    cli_check_write(&out, raid_garch_write_csv(res, out.fp));
    if (cli_commit_output(&out, "garch") != 0)
        rc = EXIT_INPUT;
done:
    if (rc && out_open)
        cli_abort_output(&out);
    raid_garch_result_destroy(res);
    raid_garch_input_destroy(in);
    raid_garch_spec_destroy(sp);
    raid_ctx_destroy(ctx);
    return rc;
}
