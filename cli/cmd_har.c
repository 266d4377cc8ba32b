/* raid har: HAR-family forecasting regressions of daily realized variance (docs/har.md). A client of
 * the library's HAR API (include/raid/har.h): parse the options into a raid_har_spec, read FILE with
 * raid_har_read_csv, fit with raid_har_fit, print the per-symbol messages and write the outputs. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Path of a companion file: base with strip (or ".csv") removed, then suffix. */
static char *har_companion(const char *base, const char *strip, const char *suffix)
{
    size_t bl = strlen(base), sl = strlen(strip);
    if (bl > sl && !strcmp(base + bl - sl, strip))
        bl -= sl;
    else if (bl > 4 && !strcmp(base + bl - 4, ".csv"))
        bl -= 4;
    char *p = malloc(bl + strlen(suffix) + 1);
    if (p) {
        memcpy(p, base, bl);
        strcpy(p + bl, suffix);
    }
    return p;
}

#define USAGE(...)                                                                                               \
    do {                                                                                                         \
        fprintf(stderr, "raid har: " __VA_ARGS__);                                                               \
        rc = EXIT_USAGE;                                                                                         \
        goto done;                                                                                               \
    } while (0)

/* Parse the options into sp and the paths; 0, or an exit status (message printed). */
static int har_options(int argc, char **argv, raid_har_spec *sp, const char *names[6], int *symbol_required,
                       const char **out_path, const char **fc_path, const char **device)
{
    static const struct option longopts[] = {
        {"output", required_argument, 0, 'o'},   {"device", required_argument, 0, 'd'},
        {"model", required_argument, 0, 'm'},    {"lags", required_argument, 0, 'l'},
        {"h", required_argument, 0, 'H'},        {"transform", required_argument, 0, 't'},
        {"se", required_argument, 0, 's'},       {"nw-lag", required_argument, 0, 'n'},
        {"window", required_argument, 0, 'w'},   {"forecasts", required_argument, 0, 'f'},
        {"alpha", required_argument, 0, 'a'},    {"rv-col", required_argument, 0, 1},
        {"bpv-col", required_argument, 0, 2},    {"rq-col", required_argument, 0, 3},
        {"jump-p-col", required_argument, 0, 4}, {"symbol-col", required_argument, 0, 5},
        {"date-col", required_argument, 0, 6},   {"quiet", no_argument, 0, 'q'},
        {"help", no_argument, 0, 'h'},           {0, 0, 0, 0}};
    raid_se_kind se = RAID_SE_NW;
    raid_har_window wk = RAID_HAR_FULL;
    int64_t nw_lag = -1, win = 0, v;
    int rc = 0, opt, li = 0, lags[RAID_HAR_MAX_LAGS], nlags;
    double a;
    optind = 1;
    opterr = 0;
    const char *seen[sizeof longopts / sizeof *longopts] = {0};
    while ((opt = getopt_long(argc, argv, ":o:hq", longopts, &li)) != -1) {
        if (cli_option_once("har", longopts, opt, seen) != 0) {
            rc = EXIT_USAGE;
            goto done;
        }
        if (opt >= 1 && opt <= 6 && !*optarg)
            USAGE("empty --%s\n", longopts[li].name);
        switch (opt) {
        case 'o':
        case 'f':
        case 'd':
            if (!*optarg)
                USAGE("empty %s\n", opt == 'o' ? "-o" : opt == 'f' ? "--forecasts" : "--device");
            *(opt == 'o' ? out_path : opt == 'f' ? fc_path : device) = optarg;
            break;
        case 'm': {
            raid_har_model m;
            if (raid_har_model_parse(optarg, &m) != RAID_OK)
                USAGE("bad --model '%s' (expected har, har-j, har-cj or harq)\n", RAID_SHOWZ(optarg));
            raid_har_spec_set_model(sp, m);
            break;
        }
        case 't': {
            raid_har_transform t;
            if (raid_har_transform_parse(optarg, &t) != RAID_OK)
                USAGE("bad --transform '%s' (expected none, log or sqrt)\n", RAID_SHOWZ(optarg));
            raid_har_spec_set_transform(sp, t);
            break;
        }
        case 'l':
            if (raid_har_lags_parse(optarg, lags, &nlags) != RAID_OK)
                USAGE("bad --lags '%s' (expected at most %d increasing integers from 1 to 10000, the first 1)\n",
                      RAID_SHOWZ(optarg), RAID_HAR_MAX_LAGS);
            raid_har_spec_set_lags(sp, lags, nlags);
            break;
        case 'H':
            if (cli_parse_i64(optarg, 1, 1000, &v))
                USAGE("bad --h '%s' (expected an integer in [1, 1000])\n", RAID_SHOWZ(optarg));
            raid_har_spec_set_horizon(sp, (int)v);
            break;
        case 's':
            if (raid_har_se_parse(optarg, &se) != RAID_OK)
                USAGE("bad --se '%s' (expected ols, white or nw)\n", RAID_SHOWZ(optarg));
            break;
        case 'n':
            if (cli_parse_i64(optarg, 0, 100000, &nw_lag))
                USAGE("bad --nw-lag '%s' (expected an integer from 0 to 100000)\n", RAID_SHOWZ(optarg));
            break;
        case 'w': /* N <= k: the message below */
            if (raid_har_window_parse(optarg, &wk, &win) != RAID_OK || wk == RAID_HAR_FULL)
                USAGE("bad --window '%s' (expected rolling:N or expanding:N)\n", RAID_SHOWZ(optarg));
            break;
        case 'a':
            if (cli_parse_double(optarg, &a) || raid_har_spec_set_alpha(sp, a) != RAID_OK)
                USAGE("bad --alpha '%s' (expected a number in (0, 1))\n", RAID_SHOWZ(optarg));
            break;
        case 'q': cli_quiet = 1; break;
        case 5: *symbol_required = 1; /* fall through */
        case 1: case 2: case 3: case 4: case 6: names[opt == 5 ? 0 : opt == 6 ? 1 : opt + 1] = optarg; break;
        case 'h': fputs(cli_help("har"), stdout); return -1;
        case ':': USAGE("option %s needs a value\n", RAID_SHOWZ(argv[optind - 1]));
        default: USAGE("unknown option %s\n", RAID_SHOWZ(argv[optind - 1]));
        }
    }
    if (optind != argc - 1)
        USAGE("expected one input FILE (see raid help har)\n");
    if (*fc_path && !cli_is_plain_file(*fc_path))
        USAGE("--forecasts '%s' must name a file (its losses file goes beside it), not standard output or a "
              "device\n", RAID_SHOWZ(*fc_path));
    if (cli_same_file(*fc_path, *out_path))
        USAGE("--forecasts and -o name the same file '%s'\n", RAID_SHOWZ(*out_path));
    for (int j = 0; j < 2; j++) {
        const char *o = j ? *fc_path : *out_path;
        if (cli_same_file(argv[optind], o) || (!strcmp(argv[optind], "-") && cli_is_stdin_file(o)))
            USAGE("%s '%s' is the input file '%s'\n", j ? "--forecasts" : "-o", RAID_SHOWZ(o), RAID_SHOWZ(argv[optind]));
    }
    const int k = raid_har_spec_k(sp);
    if (raid_har_spec_model(sp) == RAID_HAR_Q && raid_har_spec_transform(sp) != RAID_HAR_NONE)
        USAGE("--model harq takes --transform none only\n");
    if (k > RAID_REG_MAX_K)
        USAGE("too many regressors (%d, at most %d): use fewer --lags\n", k, RAID_REG_MAX_K);
    if (*fc_path && wk == RAID_HAR_FULL)
        USAGE("--forecasts needs --window\n");
    if (wk != RAID_HAR_FULL && win <= k)
        USAGE("--window N must exceed the number of regressors (%d)\n", k);
    raid_har_spec_set_se(sp, se, nw_lag);
    raid_har_spec_set_window(sp, wk, win);
done:
    return rc;
}

/* Open the forecasts and losses files beside OUT (or at --forecasts); 0 or an exit status. */
static int har_side_files(const char *in_path, const char *out_path, const char *fc_path, cli_out *fout,
                          cli_out *lout, int *nopen)
{
    /* Side files go beside OUT only when OUT is a regular file (not stdout, /dev/null or a FIFO). */
    const char *base = fc_path ? fc_path : cli_is_plain_file(out_path) ? out_path : NULL;
    int rc = 0;
    if (!base)
        return 0;
    char *fcp = fc_path ? strdup(fc_path) : har_companion(out_path, ".csv", ".forecasts.csv");
    char *lsp = har_companion(base, ".forecasts.csv", ".losses.csv");
    if (!fcp || !lsp) {
        fprintf(stderr, "raid har: out of memory\n");
        rc = EXIT_INPUT;
        goto done;
    }
    /* the side files against each other, -o and the input (e.g. -o x.losses.csv --forecasts x.csv) */
    const char *const pth[4] = {in_path, out_path, fcp, lsp};
    for (int i = 0; i < 3; i++)
        for (int j = i < 2 ? 2 : 3; j < 4; j++)
            if (cli_same_file(pth[i], pth[j]))
                USAGE("the %s '%s' and the %s are the same file\n", j == 3 ? "losses file" : "forecasts file",
                      RAID_SHOWZ(pth[j]),
                      i == 0 ? "input" : i == 1 ? "-o file" : "forecasts file");
    if (cli_open_output(fout, "har", fcp) != 0 || (++*nopen, cli_open_output(lout, "har", lsp) != 0))
        rc = EXIT_INPUT;
    else
        ++*nopen;
done:
    free(fcp);
    free(lsp);
    return rc;
}

int cmd_har(int argc, char **argv)
{
    const char *names[6] = {"symbol", "date", "rv", "bpv", "rq", "jump_p"};
    const char *out_path = NULL, *fc_path = NULL, *device = NULL;
    int symbol_required = 0, rc = 0, nside = 0, out_open = 0;
    raid_har_spec *sp = NULL;
    raid_har_input *in = NULL;
    raid_har_result *res = NULL;
    raid_ctx *ctx = NULL;
    cli_out out, fout, lout;
    if (raid_har_spec_create(&sp) != RAID_OK) {
        fprintf(stderr, "raid har: %s\n", raid_errmsg());
        return EXIT_INPUT;
    }
    if ((rc = har_options(argc, argv, sp, names, &symbol_required, &out_path, &fc_path, &device)) != 0) {
        raid_har_spec_destroy(sp);
        return rc < 0 ? 0 : rc;
    }
    const char *in_path = argv[optind];
    raid_status st = raid_ctx_create(&ctx, device);
    if (st != RAID_OK) {
        fprintf(stderr, "raid har: %s\n", raid_errmsg());
        raid_har_spec_destroy(sp);
        return cli_exit_for(st) == EXIT_USAGE ? EXIT_USAGE : EXIT_DEVICE;
    }
    if (raid_har_read_csv(in_path, names, symbol_required, raid_har_spec_model(sp), &in) != RAID_OK) {
        fprintf(stderr, "raid har: %s\n", raid_errmsg());
        rc = EXIT_INPUT;
        goto done;
    }
    cli_notes notes;
    cli_notes_init(&notes, "har", raid_har_input_nsymbols(in), "symbols");
    for (size_t i = 0; i < raid_har_input_notice_count(in); i++)
        cli_notes_add(&notes, NULL, raid_har_input_notice(in, i));
    cli_progress_attach(ctx, "har");
    st = raid_har_fit(ctx, sp, in, &res);
    cli_progress_end();
    if (st != RAID_OK) {
        fprintf(stderr, "raid har: %s\n", raid_ctx_errmsg(ctx));
        rc = st == RAID_EINVAL || st == RAID_ENOMEM ? EXIT_INPUT : EXIT_DEVICE;
        goto done;
    }
    for (size_t i = 0; i < raid_har_result_nmessages(res); i++) { /* per symbol, summarised by kind */
        const char *sym = raid_har_result_symbol(res, raid_har_result_message_symbol(res, i));
        cli_notes_add(&notes, sym && *sym ? sym : "(no symbol)", raid_har_result_message(res, i));
    }
    cli_notes_print(&notes, NULL);
    if (!raid_har_result_nestimated(res)) { /* nothing written, not even a header */
        raid_har_write_loss_table(res, stderr);
        fprintf(stderr, "raid har: no symbol could be estimated\n");
        rc = EXIT_INPUT;
        goto done;
    }
    if (cli_open_output(&out, "har", out_path ? out_path : "-") != 0) {
        rc = EXIT_INPUT;
        goto done;
    }
    out_open = 1;
    if (raid_har_spec_window(sp) != RAID_HAR_FULL &&
        (rc = har_side_files(in_path, out_path, fc_path, &fout, &lout, &nside)) != 0)
        goto done;
    /* A writer's failure (full disk, closed descriptor) is reported by the commit of its output, which
     * sees the stream's error; the losses table is printed only once every output is written. */
    cli_check_write(&out, raid_har_write_coefs(res, out.fp));
    if (nside) {
        cli_check_write(&fout, raid_har_write_forecasts(res, fout.fp));
        cli_check_write(&lout, raid_har_write_losses(res, lout.fp));
    }
    if (cli_commit_outputs((cli_out *const[]){&out, &fout, &lout}, nside ? 3 : 1, "har") != 0)
        rc = EXIT_INPUT; /* the outputs not committed are removed below */
    else
        raid_har_write_loss_table(res, stderr);
done:
    if (rc && out_open)
        cli_abort_output(&out);
    if (rc && nside > 0)
        cli_abort_output(&fout);
    if (rc && nside > 1)
        cli_abort_output(&lout);
    raid_har_result_destroy(res);
    raid_har_input_destroy(in);
    raid_har_spec_destroy(sp);
    raid_ctx_destroy(ctx);
    return rc;
}
