/* Help texts of the raid commands. */
#include "cli.h"

#include <string.h>

static const char help_realized[] =
    "usage: raid realized FILE [-o OUT] [--device D] [--sample S] [--session W] [--input prices|returns]\n"
    "                     [--precision f32|df] [--chunk N] [--check] [--tz Area/City]\n"
    "                     [--symbol-col C] [--time-col C] [--price-col C] [--date-col C] [--ret-col C]\n"
    "\n"
    "Daily realized measures of every (symbol, date) segment of FILE (CSV with a header row; \"-\" reads\n"
    "standard input), computed on an OpenCL device with float64-faithful accumulation.\n"
    "\n"
    "Output (CSV, to OUT or standard output):\n"
    "  symbol,date,n,rv,bpv,rs_neg,rs_pos,rq,tpq,medrv,jump_z,jump_p\n"
    "  n is the number of returns of the segment; values are printed with 17 significant digits and\n"
    "  left empty where a measure is undefined for n (see docs/measures.md).\n"
    "\n"
    "Options:\n"
    "  -o, --output OUT     write to OUT (through a temporary file renamed at the end); - or no -o: stdout\n"
    "  --device D           auto | cpu | opencl | opencl:P.D (see raid devices); default auto, or the\n"
    "                       environment variable RAID_DEVICE when set. auto is the first OpenCL GPU,\n"
    "                       else the float64 cpu backend\n"
    "  --sample S           sampling interval of prices: tick | Nms | Ns | Nmin | Nh; default 5min\n"
    "  --session W          keep observations inside the window HH:MM-HH:MM (local time); default all\n"
    "  --input KIND         prices (columns symbol,timestamp,price; default) or returns\n"
    "                       (columns symbol,date,ret)\n"
    "  --precision P        device input precision: df (double-float hi/lo pair, 8 bytes per return,\n"
    "                       float64-faithful; default) or f32 (returns rounded to float, 4 bytes)\n"
    "  --chunk N            returns per device chunk, a positive multiple of the work-group width (256)\n"
    "                       and at most 64 per work-item (16384); default 4096. Results are bitwise\n"
    "                       reproducible for a given chunk\n"
    "  --check              also run the float64 cpu path and print, per measure, the largest scaled\n"
    "                       difference and the documented bound (docs/precision.md); exit 3 if a bound\n"
    "                       is exceeded\n"
    "  --tz Area/City       IANA time zone for timestamps that carry a UTC offset; default UTC\n"
    "  --symbol-col C       name of the symbol column (default symbol; optional)\n"
    "  --time-col C         name of the timestamp column (default timestamp)\n"
    "  --price-col C        name of the price column (default price)\n"
    "  --date-col C         name of the date column for --input returns (default date)\n"
    "  --ret-col C          name of the return column for --input returns (default ret)\n"
    "  -h, --help           show this help\n"
    "\n"
    "Exit status:\n"
    "  0 success; 1 usage error; 2 bad input or I/O failure (the message names FILE:LINE:COL);\n"
    "  3 --check found a difference above its bound; 4 device error.\n";

static const char help_devices[] =
    "usage: raid devices\n"
    "\n"
    "List the OpenCL platforms and devices: for each device its index P.D (for --device opencl:P.D),\n"
    "name, type (gpu, cpu, accelerator, other), compute units, global memory and whether it supports\n"
    "float64. With no OpenCL runtime or platform the list is empty; the cpu backend is always available.\n"
    "\n"
    "Options:\n"
    "  -h, --help           show this help\n"
    "\n"
    "Exit status:\n"
    "  0 success; 1 usage error; 4 device error.\n";

static const char help_simulate[] =
    "usage: raid simulate -o PRICES.csv [--iv IV.csv] [--seed S] [--symbols N] [--days N] [--obs N]\n"
    "                     [--mean-var V] [--vol-of-var S] [--kappa K] [--rho R] [--jump-rate L]\n"
    "                     [--jump-sd S] [--noise-sd S] [--start-price P]\n"
    "\n"
    "Simulate intraday prices from a log-normal stochastic-volatility model with leverage, compound\n"
    "Poisson jumps and i.i.d. microstructure noise (model and equations: docs/simulate.md). Days are\n"
    "consecutive weekdays from 2020-01-02 with N observations from 09:30:00 to 16:00:00 inclusive,\n"
    "evenly spaced (timestamps carry microseconds when the spacing is not whole seconds). Output is\n"
    "deterministic for a given seed.\n"
    "\n"
    "Output:\n"
    "  PRICES.csv  symbol,timestamp,price   symbols S0001, S0002, ...; timestamps YYYY-MM-DDTHH:MM:SS;\n"
    "                                       price = start_price * exp(observed log price), %.17g\n"
    "  IV.csv      symbol,date,iv           integrated variance of each day (diffusive part only,\n"
    "                                       jumps excluded), %.17g\n"
    "\n"
    "Options:\n"
    "  -o, --output FILE    prices CSV (required); written to a temporary file and renamed\n"
    "  --iv FILE            also write the daily integrated variances\n"
    "  --seed S             seed of the random number generator, an unsigned 64-bit integer; default 1\n"
    "  --symbols N          number of symbols, >= 1; default 1\n"
    "  --days N             number of days per symbol, >= 1; default 1\n"
    "  --obs N              observations (prices) per day, >= 2; default 23401 (every second)\n"
    "  --mean-var V         variance level per day: mean log variance is log(V), > 0; default 1e-4\n"
    "  --vol-of-var S       volatility of log variance per sqrt(day), >= 0; default 0.5\n"
    "  --kappa K            mean reversion of log variance per day, >= 0; default 0.2\n"
    "  --rho R              correlation of price and log-variance shocks, in [-1, 1]; default -0.5\n"
    "  --jump-rate L        expected number of jumps per day, >= 0; default 0.1\n"
    "  --jump-sd S          standard deviation of a jump in log price, >= 0; default 0.005\n"
    "  --noise-sd S         standard deviation of the noise on log price, >= 0; default 0\n"
    "  --start-price P      price at the first observation, > 0; default 100\n"
    "  -h, --help           show this help\n"
    "\n"
    "Exit status:\n"
    "  0 success; 1 usage error (bad option or value); 2 I/O failure.\n";

static const char help_precision[] =
    "usage: raid precision-report [-o FILE.png|FILE.svg] [--device D] [--segments K] [--seed S]\n"
    "                             [--max-m N] [--data OUT.csv]\n"
    "\n"
    "Measure the relative error of rv computed by the f32 device path (returns rounded to float) against\n"
    "the float64 cpu backend, for segment lengths M = 10, 30, 100, 300, ..., 10^6 (up to --max-m). For\n"
    "each M, K segments of M i.i.d. Gaussian returns are simulated (raid simulate's model with constant\n"
    "variance and no jumps; K is reduced for large M so that K*M stays near 2e7), and the maximum and\n"
    "root mean square of |rv_f32 - rv_f64| / rv_f64 across segments are printed as a table, written to\n"
    "--data and plotted with gnuplot on log-log axes against the RMS prediction 2u sqrt(3/M) (u = 2^-24)\n"
    "and its expected maximum over K segments, sqrt(2 ln K) times the RMS prediction\n"
    "(docs/precision-figure.md).\n"
    "\n"
    "Options:\n"
    "  -o, --output FILE    figure; the terminal is pngcairo for .png and svg for .svg;\n"
    "                       default docs/precision.png\n"
    "  --device D           OpenCL device: opencl | opencl:P.D | auto; default opencl (or RAID_DEVICE)\n"
    "  --segments K         segments per M, >= 1; default 64\n"
    "  --seed S             base seed (segment s of size M uses its own seed); default 1\n"
    "  --max-m N            largest M, 10 <= N <= 10^7; default 10^6\n"
    "  --data FILE          write M,segments,max_rel_err,rms_rel_err,rms_pred,max_pred as CSV; when\n"
    "                       gnuplot is missing and --data is not given, the data go to the figure path\n"
    "                       with the extension .csv\n"
    "  -h, --help           show this help\n"
    "\n"
    "gnuplot (Debian package gnuplot-nox) must be in PATH to draw the figure.\n"
    "\n"
    "Exit status:\n"
    "  0 success; 1 usage error; 2 I/O failure or gnuplot missing (the data CSV is still written);\n"
    "  4 device error (e.g. no OpenCL device).\n";

const char *cli_help(const char *cmd)
{
    if (!cmd)
        return NULL;
    if (!strcmp(cmd, "realized"))
        return help_realized;
    if (!strcmp(cmd, "devices"))
        return help_devices;
    if (!strcmp(cmd, "simulate"))
        return help_simulate;
    if (!strcmp(cmd, "precision-report"))
        return help_precision;
    return NULL;
}
