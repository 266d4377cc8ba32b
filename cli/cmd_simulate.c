/* raid simulate: write simulated intraday prices (and daily integrated variances and covariances) as CSV. */
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
    OPT_JUMP_RATE, OPT_JUMP_SD, OPT_NOISE_SD, OPT_START_PRICE, OPT_IV, OPT_CORR, OPT_CORR_FILE, OPT_TRADE_RATE,
    OPT_TRUTH_COV
};

/* A value of --mean-var or --trade-rate: one number (*one) or a comma-separated list of exactly n (*list,
 * allocated), each in (0, hi] (hi_closed) or [lo, hi]. 0, or -1 with the message printed. */
static int parse_list(const char *opt, const char *s, int n, double lo, int lo_open, double hi, double *one,
                      double **list)
{
    *list = NULL;
    if (!strchr(s, ',')) {
        if (cli_parse_double(s, one) || (lo_open ? !(*one > lo) : !(*one >= lo)) || !(*one <= hi)) {
            fprintf(stderr, "raid simulate: bad value '%s' for --%s (see raid help simulate)\n", RAID_SHOWZ(s), opt);
            return -1;
        }
        return 0;
    }
    int count = 1;
    for (const char *c = s; *c; c++)
        count += *c == ',';
    if (count != n) {
        fprintf(stderr, "raid simulate: --%s has %d values for %d symbols (one value, or one per symbol)\n", opt,
                count, n);
        return -1;
    }
    double *v = malloc((size_t)n * sizeof *v);
    char *buf = strdup(s);
    if (!v || !buf) {
        free(v);
        free(buf);
        fprintf(stderr, "raid simulate: out of memory\n");
        return -1;
    }
    char *p = buf;
    for (int k = 0; k < n; k++) {
        char *e = strchr(p, ',');
        if (e)
            *e = '\0';
        if (cli_parse_double(p, &v[k]) || (lo_open ? !(v[k] > lo) : !(v[k] >= lo)) || !(v[k] <= hi)) {
            fprintf(stderr, "raid simulate: bad value '%s' (symbol %d) for --%s (see raid help simulate)\n",
                    RAID_SHOWZ(p), k + 1, opt);
            free(v);
            free(buf);
            return -1;
        }
        p = e ? e + 1 : p;
    }
    free(buf);
    *list = v;
    return 0;
}

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
        {"corr", required_argument, NULL, OPT_CORR},
        {"corr-file", required_argument, NULL, OPT_CORR_FILE},
        {"trade-rate", required_argument, NULL, OPT_TRADE_RATE},
        {"truth-cov", required_argument, NULL, OPT_TRUTH_COV},
        {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    raid_sim_opts o;
    raid_sim_opts_init(&o);
    const char *out = NULL, *iv = NULL, *mean_var = NULL, *trade_rate = NULL, *corr_file = NULL, *truth = NULL;
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
        case OPT_MEAN_VAR: mean_var = optarg; break; /* one value or one per symbol: after --symbols */
        case OPT_VOL_OF_VAR: bad = cli_parse_double(optarg, &d) || d < 0; o.vol_of_logvar = d; break;
        case OPT_KAPPA: bad = cli_parse_double(optarg, &d) || d < 0; o.mean_reversion = d; break;
        case OPT_RHO: bad = cli_parse_double(optarg, &d) || fabs(d) > 1; o.rho = d; break;
        case OPT_JUMP_RATE: bad = cli_parse_double(optarg, &d) || d < 0; o.jump_rate = d; break;
        case OPT_JUMP_SD: bad = cli_parse_double(optarg, &d) || d < 0; o.jump_sd = d; break;
        case OPT_NOISE_SD: bad = cli_parse_double(optarg, &d) || d < 0; o.noise_sd = d; break;
        case OPT_START_PRICE: bad = cli_parse_double(optarg, &d) || !(d > 0); o.start_price = d; break;
        case 'o': out = optarg; break;
        case OPT_IV: iv = optarg; break;
        case OPT_CORR: bad = cli_parse_double(optarg, &d) || fabs(d) > 1; o.corr = d; break;
        case OPT_CORR_FILE: corr_file = optarg; break;
        case OPT_TRADE_RATE: trade_rate = optarg; break;
        case OPT_TRUTH_COV: truth = optarg; break;
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
    if (!strcmp(out, "-") || (iv && !strcmp(iv, "-")) || (truth && !strcmp(truth, "-"))) {
        fprintf(stderr, "raid simulate: -o, --iv and --truth-cov name files ('-' is not standard output here)\n");
        return EXIT_USAGE;
    }
    if (cli_same_file(out, iv)) {
        fprintf(stderr, "raid simulate: --iv and -o name the same file '%s'\n", RAID_SHOWZ(out));
        return EXIT_USAGE;
    }
    if (cli_same_file(out, truth) || cli_same_file(iv, truth)) {
        fprintf(stderr, "raid simulate: --truth-cov and %s name the same file '%s'\n",
                cli_same_file(out, truth) ? "-o" : "--iv", RAID_SHOWZ(truth));
        return EXIT_USAGE;
    }
    if (corr_file && o.corr != 0) {
        fprintf(stderr, "raid simulate: --corr and --corr-file: give one of them\n");
        return EXIT_USAGE;
    }
    if (corr_file && (cli_same_file(corr_file, out) || cli_same_file(corr_file, iv) || cli_same_file(corr_file, truth))) {
        fprintf(stderr, "raid simulate: an output names the --corr-file '%s'\n", RAID_SHOWZ(corr_file));
        return EXIT_USAGE;
    }
    double *mean_vars = NULL, *trade_rates = NULL, *corr = NULL;
    if (mean_var && parse_list("mean-var", mean_var, o.nsymbols, 0, 1, INFINITY, &o.mean_var, &mean_vars))
        return EXIT_USAGE;
    if (trade_rate && parse_list("trade-rate", trade_rate, o.nsymbols, 0, !!strchr(trade_rate, ','), 1e6,
                                 &o.trade_rate, &trade_rates)) {
        free(mean_vars);
        return EXIT_USAGE;
    }
    o.mean_vars = mean_vars;
    o.trade_rates = trade_rates;
    raid_status st = RAID_OK;
    if (corr_file) {
        if ((size_t)o.nsymbols > SIZE_MAX / sizeof *corr / (size_t)o.nsymbols ||
            !(corr = malloc((size_t)o.nsymbols * (size_t)o.nsymbols * sizeof *corr))) {
            fprintf(stderr, "raid simulate: out of memory for the correlations of %d symbols\n", o.nsymbols);
            free(mean_vars);
            free(trade_rates);
            return EXIT_INPUT;
        }
        st = raid_simulate_read_corr(corr_file, o.nsymbols, corr);
        o.corr_matrix = corr;
        if (st != RAID_OK) {
            fprintf(stderr, "raid simulate: %s\n", raid_errmsg());
            free(mean_vars);
            free(trade_rates);
            free(corr);
            return st == RAID_EINVAL ? EXIT_USAGE : EXIT_INPUT;
        }
    }
    raid_ctx *ctx = NULL; /* the cpu context: the job's progress only */
    st = raid_ctx_create(&ctx, "cpu");
    if (st == RAID_OK) {
        cli_progress_attach(ctx, "simulate");
        st = raid_simulate_cov_csv(ctx, &o, out, iv, truth);
        cli_progress_end();
    }
    raid_ctx_destroy(ctx);
    free(mean_vars);
    free(trade_rates);
    free(corr);
    if (st != RAID_OK) {
        fprintf(stderr, "raid simulate: %s\n", raid_errmsg());
        return st == RAID_EINVAL ? EXIT_USAGE : EXIT_INPUT;
    }
    return 0;
}
