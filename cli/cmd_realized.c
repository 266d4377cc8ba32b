/* raid realized: daily realized measures from a CSV of intraday prices (or returns). */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BATCH_RETURNS ((size_t)1 << 24)

int cmd_realized(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"output", required_argument, 0, 'o'},    {"device", required_argument, 0, 'd'},
        {"sample", required_argument, 0, 's'},    {"session", required_argument, 0, 'w'},
        {"input", required_argument, 0, 'i'},     {"precision", required_argument, 0, 'p'},
        {"chunk", required_argument, 0, 'c'},     {"check", no_argument, 0, 'k'},
        {"tz", required_argument, 0, 'z'},        {"symbol-col", required_argument, 0, 1},
        {"time-col", required_argument, 0, 2},    {"price-col", required_argument, 0, 3},
        {"date-col", required_argument, 0, 4},    {"ret-col", required_argument, 0, 5},
        {"quiet", no_argument, 0, 'q'},           {"help", no_argument, 0, 'h'},
        {"measures", required_argument, 0, 'm'},  {0, 0, 0, 0}};
    raid_read_opts ro;
    raid_read_opts_init(&ro);
    const char *out_path = NULL, *device = NULL, *measures = NULL;
    raid_precision prec = RAID_PREC_DF;
    int64_t chunk = 4096;
    int check = 0, opt, li = 0;
    const char *price_only = NULL; /* a --sample, --session or --tz given: prices only */
    optind = 1;
    opterr = 0;
    const char *seen[sizeof longopts / sizeof *longopts] = {0};
    while ((opt = getopt_long(argc, argv, ":o:hq", longopts, &li)) != -1) {
        if (cli_option_once("realized", longopts, opt, seen) != 0)
            return EXIT_USAGE;
        if (opt >= 1 && opt <= 5 && !*optarg) {
            fprintf(stderr, "raid realized: empty --%s\n", longopts[li].name);
            return EXIT_USAGE;
        }
        if (opt == 's' || opt == 'w' || opt == 'z')
            price_only = longopts[li].name;
        switch (opt) {
        case 'o':
            if (!*optarg) {
                fprintf(stderr, "raid realized: empty -o\n");
                return EXIT_USAGE;
            }
            out_path = optarg;
            break;
        case 'd':
            if (!*optarg) {
                fprintf(stderr, "raid realized: empty --device\n");
                return EXIT_USAGE;
            }
            device = optarg;
            break;
        case 's':
            if (raid_parse_sample(optarg, &ro.sample_us) != RAID_OK) {
                fprintf(stderr, "raid realized: bad --sample '%s' (expected tick, Ns, Nmin, Nh or Nms)\n", RAID_SHOWZ(optarg));
                return EXIT_USAGE;
            }
            break;
        case 'w':
            if (raid_parse_session(optarg, &ro.session_start_s, &ro.session_end_s) != RAID_OK) {
                fprintf(stderr, "raid realized: --session: %s\n", raid_errmsg());
                return EXIT_USAGE;
            }
            break;
        case 'i':
            if (!strcmp(optarg, "prices"))
                ro.kind = RAID_INPUT_PRICES;
            else if (!strcmp(optarg, "returns"))
                ro.kind = RAID_INPUT_RETURNS;
            else {
                fprintf(stderr, "raid realized: bad --input '%s' (expected prices or returns)\n", RAID_SHOWZ(optarg));
                return EXIT_USAGE;
            }
            break;
        case 'p':
            if (cli_parse_precision("realized", optarg, &prec))
                return EXIT_USAGE;
            break;
        case 'c':
            if (cli_parse_i64(optarg, 1, INT64_MAX, &chunk)) {
                fprintf(stderr, "raid realized: bad --chunk '%s'\n", RAID_SHOWZ(optarg));
                return EXIT_USAGE;
            }
            break;
        case 'm': { /* checked here (a usage error before any work), chosen on the table below */
            int cols[RAID_REALIZED_NCOLUMNS];
            size_t nc;
            if (raid_realized_measures_parse(optarg, cols, &nc) != RAID_OK) {
                fprintf(stderr, "raid realized: --measures: %s\n", raid_errmsg());
                return EXIT_USAGE;
            }
            measures = optarg;
            break;
        }
        case 'k': check = 1; break;
        case 'q': cli_quiet = 1; break;
        case 'z': ro.tz = optarg; break;
        case 1: ro.symbol_col = optarg; break;
        case 2: ro.time_col = optarg; break;
        case 3: ro.price_col = optarg; break;
        case 4: ro.date_col = optarg; break;
        case 5: ro.ret_col = optarg; break;
        case 'h': fputs(cli_help("realized"), stdout); return 0;
        case ':': fprintf(stderr, "raid realized: option %s needs a value\n", RAID_SHOWZ(argv[optind - 1])); return EXIT_USAGE;
        default: fprintf(stderr, "raid realized: unknown option %s\n", RAID_SHOWZ(argv[optind - 1])); return EXIT_USAGE;
        }
    }
    if (optind != argc - 1) {
        fprintf(stderr, "raid realized: expected one input FILE (see raid help realized)\n");
        return EXIT_USAGE;
    }
    if (ro.kind == RAID_INPUT_RETURNS && price_only) {
        fprintf(stderr, "raid realized: --%s applies to prices, not to --input returns\n", price_only);
        return EXIT_USAGE;
    }
    const char *in_path = argv[optind];
    if (cli_same_file(in_path, out_path) || (!strcmp(in_path, "-") && cli_is_stdin_file(out_path))) {
        fprintf(stderr, "raid realized: -o '%s' is the input file '%s'\n", RAID_SHOWZ(out_path),
                RAID_SHOWZ(in_path));
        return EXIT_USAGE;
    }

    raid_ctx *ctx = NULL, *cpu = NULL;
    raid_status st = raid_ctx_create(&ctx, device);
    if (st != RAID_OK) {
        fprintf(stderr, "raid realized: %s\n", raid_errmsg());
        return cli_exit_for(st) == EXIT_USAGE ? EXIT_USAGE : EXIT_DEVICE;
    }
    raid_ctx_set_precision(ctx, prec);
    size_t wg = 0;
    raid_ctx_chunk(ctx, NULL, &wg);
    if ((st = raid_ctx_set_chunk(ctx, (size_t)chunk, wg)) != RAID_OK) {
        fprintf(stderr, "raid realized: --chunk: %s\n", raid_ctx_errmsg(ctx));
        raid_ctx_destroy(ctx);
        return EXIT_USAGE;
    }
    if (check && (st = raid_ctx_create(&cpu, "cpu")) != RAID_OK) {
        fprintf(stderr, "raid realized: %s\n", raid_errmsg());
        raid_ctx_destroy(ctx);
        return EXIT_DEVICE;
    }

    raid_reader *rd = NULL;
    st = raid_reader_open(&rd, in_path, &ro);
    if (st != RAID_OK) {
        fprintf(stderr, "raid realized: %s\n", raid_errmsg());
        raid_ctx_destroy(ctx);
        raid_ctx_destroy(cpu);
        return st == RAID_EINVAL ? EXIT_USAGE : EXIT_INPUT;
    }

    int rc = 0, done = 0;
    raid_realized_table *tab = NULL;
    cli_out out;
    memset(&out, 0, sizeof out);
    if (cli_open_output(&out, "realized", out_path ? out_path : "-") != 0) { /* before the work: fail fast */
        out.is_stdout = 1;
        rc = EXIT_INPUT;
        goto done;
    }
    if (raid_realized_table_create(&tab) != RAID_OK ||
        (measures && raid_realized_table_set_measures(tab, measures) != RAID_OK)) {
        fprintf(stderr, "raid realized: %s\n", raid_errmsg());
        rc = EXIT_INPUT;
        goto done;
    }
    cli_progress_attach(ctx, "realized"); /* the bytes read, reported by the adds */
    while (!done) { /* read a batch, compute it (and check it), keep its rows: include/raid/realized.h */
        st = raid_realized_table_add_reader(tab, ctx, cpu, rd, BATCH_RETURNS, &done);
        if (st != RAID_OK) {
            cli_progress_end();
            const int dev_err = st >= RAID_ENODEV; /* the device's, not the input's: named as such */
            fprintf(stderr, "raid realized: %s%s%s\n", dev_err ? raid_strerror(st) : "", dev_err ? ": " : "",
                    raid_ctx_errmsg(ctx));
            rc = dev_err ? EXIT_DEVICE : EXIT_INPUT;
            goto done;
        }
    }
    cli_progress_end();
    cli_notes notes;
    cli_notes_init(&notes, "realized", 0, NULL);
    for (size_t i = 0; i < raid_reader_notice_count(rd); i++) /* facts the output does not show */
        cli_notes_add(&notes, NULL, raid_reader_notice(rd, i));
    if ((st = raid_realized_table_finish(tab)) != RAID_OK) {
        fprintf(stderr, "raid realized: %s\n", raid_errmsg());
        rc = EXIT_INPUT;
        goto done;
    }
    cli_check_write(&out, raid_realized_table_write_csv(tab, out.fp));
    if (cli_commit_output(&out, "realized") != 0) {
        rc = EXIT_INPUT;
        goto done;
    }
    if (check) {
        double maxdiff[RAID_REALIZED_NMEASURES], bound[RAID_REALIZED_NMEASURES];
        int ok[RAID_REALIZED_NMEASURES], bad = 0;
        const size_t nchecked = raid_realized_table_check(tab, maxdiff, bound, ok);
        fprintf(stderr, "check: %s (precision %s) against the float64 cpu path, %zu segments\n",
                raid_ctx_device_name(ctx), cli_precision_name(prec), nchecked);
        if (nchecked == 0) { /* no segment: nothing was compared, and a "passed" would claim otherwise */
            fprintf(stderr, "check: nothing to compare (the input has no segment)\n");
            goto done;
        }
        fprintf(stderr, "  %-7s %-12s %-12s %s\n", "measure", "max_diff", "bound", "status");
        for (int k = 0; k < RAID_REALIZED_NMEASURES; k++) {
            bad |= !ok[k];
            fprintf(stderr, "  %-7s %-12.3e %-12.3e %s\n", raid_realized_names[k], maxdiff[k], bound[k],
                    ok[k] ? "ok" : "EXCEEDED");
        }
        double nmax[RAID_REALIZED_NOISE_NMEASURES], nbound[RAID_REALIZED_NOISE_NMEASURES];
        int nok[RAID_REALIZED_NOISE_NMEASURES];
        if (raid_realized_table_check_noise(tab, nmax, nbound, nok) > 0)
            for (int k = 0; k < RAID_REALIZED_NOISE_NMEASURES; k++) {
                bad |= !nok[k];
                fprintf(stderr, "  %-7s %-12.3e %-12.3e %s\n", raid_realized_noise_names[k], nmax[k], nbound[k],
                        nok[k] ? "ok" : "EXCEEDED");
            }
        fprintf(stderr, "check %s: every measure within its documented bound%s\n", bad ? "FAILED" : "passed",
                bad ? " except those marked EXCEEDED" : "");
        if (bad)
            rc = EXIT_CHECK;
    }

done:
    if (rc && rc != EXIT_CHECK)
        cli_abort_output(&out);
    raid_realized_table_destroy(tab);
    raid_reader_close(rd);
    raid_ctx_destroy(ctx);
    raid_ctx_destroy(cpu);
    return rc;
}
