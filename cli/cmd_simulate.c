/* raid simulate: write simulated intraday prices (and daily integrated variances) as CSV. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    OPT_SEED = 256, OPT_SYMBOLS, OPT_DAYS, OPT_OBS, OPT_MEAN_VAR, OPT_VOL_OF_VAR, OPT_KAPPA, OPT_RHO,
    OPT_JUMP_RATE, OPT_JUMP_SD, OPT_NOISE_SD, OPT_START_PRICE, OPT_IV
};

int cmd_simulate(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"seed", required_argument, NULL, OPT_SEED},
        {"symbols", required_argument, NULL, OPT_SYMBOLS},
        {"days", required_argument, NULL, OPT_DAYS},
        {"obs", required_argument, NULL, OPT_OBS},
        {"mean-var", required_argument, NULL, OPT_MEAN_VAR},
        {"vol-of-var", required_argument, NULL, OPT_VOL_OF_VAR},
        {"kappa", required_argument, NULL, OPT_KAPPA},
        {"rho", required_argument, NULL, OPT_RHO},
        {"jump-rate", required_argument, NULL, OPT_JUMP_RATE},
        {"jump-sd", required_argument, NULL, OPT_JUMP_SD},
        {"noise-sd", required_argument, NULL, OPT_NOISE_SD},
        {"start-price", required_argument, NULL, OPT_START_PRICE},
        {"output", required_argument, NULL, 'o'},
        {"iv", required_argument, NULL, OPT_IV},
        {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    raid_sim_opts o;
    raid_sim_opts_init(&o);
    const char *out = NULL, *iv = NULL;
    optind = 1;
    opterr = 0;
    int c;
    const char *seen[sizeof longopts / sizeof *longopts] = {0};
    while ((c = getopt_long(argc, argv, ":o:hq", longopts, NULL)) != -1) {
        if (cli_option_once("simulate", longopts, c, seen) != 0)
            return EXIT_USAGE;
        int bad = 0;
        int64_t iv64 = 0;
        double d = 0;
        switch (c) {
        case OPT_SEED: bad = cli_parse_u64(optarg, &o.seed); break;
        case OPT_SYMBOLS:
            bad = cli_parse_i64(optarg, 1, INT_MAX, &iv64);
            o.nsymbols = (int)iv64;
            break;
        case OPT_DAYS:
            bad = cli_parse_i64(optarg, 1, INT_MAX, &iv64);
            o.ndays = (int)iv64;
            break;
        case OPT_OBS: bad = cli_parse_i64(optarg, 2, INT64_MAX, &o.obs_per_day); break;
        case OPT_MEAN_VAR: bad = cli_parse_double(optarg, &d) || !(d > 0); o.mean_var = d; break;
        case OPT_VOL_OF_VAR: bad = cli_parse_double(optarg, &d) || d < 0; o.vol_of_logvar = d; break;
        case OPT_KAPPA: bad = cli_parse_double(optarg, &d) || d < 0; o.mean_reversion = d; break;
        case OPT_RHO: bad = cli_parse_double(optarg, &d) || fabs(d) > 1; o.rho = d; break;
        case OPT_JUMP_RATE: bad = cli_parse_double(optarg, &d) || d < 0; o.jump_rate = d; break;
        case OPT_JUMP_SD: bad = cli_parse_double(optarg, &d) || d < 0; o.jump_sd = d; break;
        case OPT_NOISE_SD: bad = cli_parse_double(optarg, &d) || d < 0; o.noise_sd = d; break;
        case OPT_START_PRICE: bad = cli_parse_double(optarg, &d) || !(d > 0); o.start_price = d; break;
        case 'o': out = optarg; break;
        case OPT_IV: iv = optarg; break;
        case 'q': cli_quiet = 1; break;
        case 'h': fputs(cli_help("simulate"), stdout); return 0;
        case ':':
            fprintf(stderr, "raid simulate: option %s needs a value\n", RAID_SHOWZ(argv[optind - 1]));
            return EXIT_USAGE;
        default:
            fprintf(stderr, "raid simulate: unknown option %s (try raid help simulate)\n", RAID_SHOWZ(argv[optind - 1]));
            return EXIT_USAGE;
        }
        if (bad) {
            const char *name = "?";
            for (const struct option *lo = longopts; lo->name; lo++)
                if (lo->val == c)
                    name = lo->name;
            fprintf(stderr, "raid simulate: bad value '%s' for --%s (see raid help simulate)\n", RAID_SHOWZ(optarg), name);
            return EXIT_USAGE;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "raid simulate: unexpected argument '%s'\n", RAID_SHOWZ(argv[optind]));
        return EXIT_USAGE;
    }
    if (!out || !*out) {
        fprintf(stderr, "raid simulate: -o PRICES.csv is required (see raid help simulate)\n");
        return EXIT_USAGE;
    }
    if (!strcmp(out, "-") || (iv && !strcmp(iv, "-"))) {
        fprintf(stderr, "raid simulate: -o and --iv name files ('-' is not standard output here)\n");
        return EXIT_USAGE;
    }
    if (cli_same_file(out, iv)) {
        fprintf(stderr, "raid simulate: --iv and -o name the same file '%s'\n", RAID_SHOWZ(out));
        return EXIT_USAGE;
    }
    raid_ctx *ctx = NULL; /* the cpu context: the job's progress only */
    raid_status st = raid_ctx_create(&ctx, "cpu");
    if (st == RAID_OK) {
        cli_progress_attach(ctx, "simulate");
        st = raid_simulate_run_csv(ctx, &o, out, iv);
        cli_progress_end();
    }
    raid_ctx_destroy(ctx);
    if (st != RAID_OK) {
        fprintf(stderr, "raid simulate: %s\n", raid_errmsg());
        return st == RAID_EINVAL ? EXIT_USAGE : EXIT_INPUT;
    }
    return 0;
}
