/* raid: command-line entry point and dispatch. */
#include "cli.h"

#include <stdio.h>
#include <string.h>

static const struct {
    const char *name;
    int (*fn)(int, char **);
    const char *summary;
} commands[] = {
    {"realized", cmd_realized, "daily realized measures from intraday prices or returns"},
    {"returns", cmd_returns, "log returns of intraday prices, one row a return (as raid realized samples them)"},
    {"cov", cmd_cov, "daily realized covariance matrices of many symbols (rcov, hy, mrc, rkcov, ...)"},
    {"jumps", cmd_jumps, "Lee-Mykland test for a jump in each intraday return, one row a detected jump"},
    {"devices", cmd_devices, "list OpenCL platforms and devices"},
    {"har", cmd_har, "HAR forecasting regressions of daily realized variance"},
    {"garch", cmd_garch, "GARCH, GJR and EGARCH fits of many return series (and windows) at once"},
    {"ma", cmd_ma, "moving averages and rolling statistics of price series (TTR conventions)"},
    {"sweep", cmd_sweep, "moving-average crossover backtests over a grid of (fast, slow) periods"},
    {"bars", cmd_bars, "trades to OHLCV bars per symbol and interval (exact volume and vwap sums)"},
    {"quantile", cmd_quantile, "quantiles of a float64 column, optionally per integer key (numpy's linear)"},
    {"groupby", cmd_groupby, "group-by of float64 columns by a numeric key, with exact group sums"},
    {"sort", cmd_sort, "the rows of a CSV file ordered by a numeric column (stable, nulls last)"},
    {"simulate", cmd_simulate, "simulate intraday prices from a stochastic-volatility model with jumps"},
    {"precision-report", cmd_precision_report, "plot the f32 device error of rv against M"},
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

static void usage(FILE *f)
{
    fprintf(f, "usage: raid COMMAND [OPTIONS]\n\ncommands:\n");
    for (size_t i = 0; i < NCOMMANDS; i++)
        fprintf(f, "  %-18s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "  %-18s %s\n", "help CMD", "show the options of a command");
    fprintf(f, "\nraid --version prints the version. The device is chosen by --device or RAID_DEVICE\n"
               "(auto|cpu|opencl|opencl:P.D|cuda|cuda:N); see `raid help realized`.\n");
}

int main(int argc, char **argv)
{
    cli_install_signal_cleanup();
    if (argc < 2) {
        usage(stderr);
        return EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--version") || !strcmp(cmd, "version")) {
        printf("raid %s\n", raid_version());
        return 0;
    }
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(cmd, "help")) {
        if (argc < 3) {
            usage(stdout);
            return 0;
        }
        const char *h = cli_help(argv[2]);
        if (!h) {
            fprintf(stderr, "raid: unknown command '%s'\n", RAID_SHOWZ(argv[2]));
            return EXIT_USAGE;
        }
        fputs(h, stdout);
        return 0;
    }
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (!strcmp(cmd, commands[i].name))
            return commands[i].fn(argc - 1, argv + 1);
    fprintf(stderr, "raid: unknown command '%s' (try raid --help)\n", RAID_SHOWZ(cmd));
    return EXIT_USAGE;
}
