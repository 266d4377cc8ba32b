/*
 * bench_sweep: speed of the moving-average crossover sweep, end to end (not a test;
 * bench/README.md).
 *
 * One series of --bars bars near --price (default 150,000 near 30,000; the recipe of bench/peers_sweep.py:
 * log returns N(0, 0.01^2), open = previous close x exp(N(0, 0.002^2)); counter-based draws of --seed,
 * bench_common.h), or the series of --csv FILE (columns close and optional open, as `raid sweep` reads them).
 * --dump-csv FILE writes the bars as `date,open,close` (date: the bar index; open = close when the input
 * has none; prices with 17 significant digits, so that `raid sweep` and `peers_sweep.py --csv` read the
 * very same doubles).
 * Then, through the public API only (include/raid.h), for the grid --fast x --slow (default 5:50:1 x
 * 20:200:1, fast < slow: 7,830 combinations; HMA, long/flat or --short, --fill, --cost-bps):
 *   device  raid_sweep_run_arrays on --device (default auto): the first call untimed (it builds the
 *           kernels), then the best of --reps, wall time of the whole call (indicators, trades, statistics);
 *   cpu     the same on the cpu backend, for each thread count of --cpu-threads (a comma list of counts or
 *           "all", default all: OpenMP's default, OMP_NUM_THREADS when set); omitted with --no-cpu;
 *           the device result's statistics against the (first) cpu result's: combinations whose trade
 *           count differs, the largest |delta| of each statistic;
 *   parity  raid_sweep_parity_arrays once on the device (the float64 path beside the device's moving
 *           averages; counts of shifted trades) and its report (raid_sweep_parity_write); --no-parity
 *           omits it.
 * A series of repetitions stops early once it has spent --max-rep-s seconds (default 30; said so).
 * Exit status 3 when the parity fails (as `raid sweep --parity`), 2 for bad options, 1 for other errors.
 * --stats FILE writes the device result (raid_sweep_write_csv) for `peers_sweep.py --compare FILE`.
 * usage: bench_sweep [--device D] [--bars N] [--price P] [--seed S] [--csv FILE] [--dump-csv FILE]
 *                    [--fast LO:HI:STEP] [--slow LO:HI:STEP] [--short] [--fill close|next-open]
 *                    [--cost-bps B] [--reps R] [--max-rep-s T] [--cpu-threads all|N[,N...]] [--no-cpu]
 *                    [--no-parity] [--stats FILE]
 */
#define _POSIX_C_SOURCE 200809L
#include "raid.h"

#include "bench_common.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int check(raid_status st, raid_ctx *ctx, const char *what)
{
    if (st == RAID_OK) return 0;
    fprintf(stderr, "bench_sweep: %s: %s\n", what, ctx ? raid_ctx_errmsg(ctx) : raid_errmsg());
    return 1;
}

/* The bars of peers_sweep.py's recipe from counter-based draws: close[t] = price exp(sum_{u<=t} r[u]),
 * open[t] = close[t-1] exp(g[t]) (close[-1] = price). */
static void simulate(long n, double price, uint64_t seed, double *close, double *open)
{
    const uint64_t sr = 0x5eed5eedULL + seed * 0x9e3779b97f4a7c15ULL, so = sr ^ 0x0be70be7ULL;
    double lp = log(price), prev = price;
    for (long t = 0; t < n; t++) {
        lp += 0.01 * bench_gauss((uint64_t)t, sr);
        close[t] = exp(lp);
        open[t] = prev * exp(0.002 * bench_gauss((uint64_t)t, so));
        prev = close[t];
    }
}

typedef struct series {
    const double *close, *open;
    const int64_t *off;
    size_t nseries;
    const char *const *symbols;
} series;

/* raid_sweep_run_arrays on ctx, the best of reps calls (fewer once max_s seconds are spent) into *best,
 * the calls made into *done, the last result into *out (the previous one destroyed); 1 on failure. */
static int timed(raid_ctx *ctx, const raid_sweep_spec *spec, const series *d, int reps, double max_s, double *best,
                 int *done, raid_sweep_result **out)
{
    *best = INFINITY;
    *done = 0;
    double spent = 0;
    for (int r = 0; r < reps && (r == 0 || spent < max_s); r++) {
        raid_sweep_result *res = NULL;
        const double t0 = bench_now();
        const raid_status st = raid_sweep_run_arrays(ctx, spec, d->close, d->open, d->off, d->nseries, d->symbols, &res);
        const double s = bench_now() - t0;
        if (check(st, ctx, "sweep")) return 1;
        spent += s;
        *best = fmin(*best, s);
        ++*done;
        raid_sweep_result_destroy(*out);
        *out = res;
    }
    return 0;
}

/* Device result against the cpu result: trade counts and the largest |delta| of each statistic. */
static void compare(const raid_sweep_result *a, const raid_sweep_result *b)
{
    const size_t n = raid_sweep_result_count(a);
    if (n != raid_sweep_result_count(b)) {
        printf("device vs cpu: %zu against %zu combinations\n", n, raid_sweep_result_count(b));
        return;
    }
    size_t differ = 0, order = 0;
    int64_t ta = 0, tb = 0;
    double d[4] = {0, 0, 0, 0};
    for (size_t k = 0; k < n; k++) {
        size_t sa, sb;
        int fa, fb, la, lb;
        raid_sweep_stats x, y;
        raid_sweep_result_get(a, k, &sa, &fa, &la, &x);
        raid_sweep_result_get(b, k, &sb, &fb, &lb, &y);
        order += sa != sb || fa != fb || la != lb;
        differ += x.trades != y.trades;
        ta += x.trades > 0 ? x.trades : 0;
        tb += y.trades > 0 ? y.trades : 0;
        const double u[4] = {x.total_log_return, x.sharpe, x.max_drawdown, x.exposure};
        const double v[4] = {y.total_log_return, y.sharpe, y.max_drawdown, y.exposure};
        for (int j = 0; j < 4; j++) {
            if (isnan(u[j]) && isnan(v[j])) continue;
            const double e = fabs(u[j] - v[j]);
            d[j] = isnan(e) ? INFINITY : fmax(d[j], e);
        }
    }
    printf("device vs cpu: %zu combinations (%zu in another order), trade counts differ in %zu (%s); trades %lld vs %lld\n",
           n, order, differ, differ ? "NOT EQUAL" : "all equal", (long long)ta, (long long)tb);
    printf("device vs cpu: max |delta| total_log_return %.3e  sharpe %.3e  max_drawdown %.3e  exposure %.3e\n", d[0], d[1],
           d[2], d[3]);
}

static void report(const char *label, double secs, int done, int reps, size_t ncomb)
{
    printf("%-18s best of %d%s: %.4f s  %.0f combinations/s\n", label, done, done < reps ? " (time cap)" : "", secs,
           (double)ncomb / secs);
}

static int dump_csv(const char *path, const series *d)
{
    FILE *f = fopen(path, "w");
    int ok = f && fputs("date,open,close\n", f) >= 0;
    for (int64_t t = d->off[0]; ok && t < d->off[1]; t++)
        ok = fprintf(f, "%lld,%.17g,%.17g\n", (long long)(t - d->off[0]), d->open ? d->open[t] : d->close[t], d->close[t]) > 0;
    if (f && fclose(f) != 0) ok = 0;
    if (!ok) fprintf(stderr, "bench_sweep: cannot write %s\n", path);
    return !ok;
}

int main(int argc, char **argv)
{
    const char *device = "auto", *csv = NULL, *dump = NULL, *stats = NULL, *threads = "all";
    const char *fast = "5:50:1", *slow = "20:200:1", *fill = "close";
    long bars = 150000, seed = 1;
    double price = 30000, max_s = 30;
    int reps = 3, no_cpu = 0, no_parity = 0;
    raid_sweep_spec spec;
    raid_sweep_spec_default(&spec);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int *flag = !strcmp(a, "--no-cpu") ? &no_cpu : !strcmp(a, "--no-parity") ? &no_parity
                  : !strcmp(a, "--short")    ? &spec.short_side
                                             : NULL;
        if (flag) {
            *flag = 1;
            continue;
        }
        if (!v) {
            fprintf(stderr, "bench_sweep: %s needs a value\n", a);
            return 2;
        }
        i++;
        if (!strcmp(a, "--device")) device = v;
        else if (!strcmp(a, "--bars")) bars = atol(v);
        else if (!strcmp(a, "--price")) price = atof(v);
        else if (!strcmp(a, "--seed")) seed = atol(v);
        else if (!strcmp(a, "--csv")) csv = v;
        else if (!strcmp(a, "--dump-csv")) dump = v;
        else if (!strcmp(a, "--stats")) stats = v;
        else if (!strcmp(a, "--fast")) fast = v;
        else if (!strcmp(a, "--slow")) slow = v;
        else if (!strcmp(a, "--fill")) fill = v;
        else if (!strcmp(a, "--cost-bps")) spec.cost_bps = atof(v);
        else if (!strcmp(a, "--reps")) reps = atoi(v);
        else if (!strcmp(a, "--max-rep-s")) max_s = atof(v);
        else if (!strcmp(a, "--cpu-threads")) threads = v;
        else {
            fprintf(stderr, "bench_sweep: unknown option %s\n", a);
            return 2;
        }
    }
    if (check(raid_sweep_parse_range(fast, &spec.fast_lo, &spec.fast_hi, &spec.fast_step), NULL, "--fast") ||
        check(raid_sweep_parse_range(slow, &spec.slow_lo, &spec.slow_hi, &spec.slow_step), NULL, "--slow"))
        return 2;
    if (strcmp(fill, "close") && strcmp(fill, "next-open")) {
        fprintf(stderr, "bench_sweep: bad --fill %s (close or next-open)\n", fill);
        return 2;
    }
    spec.fill = fill[0] == 'c' ? RAID_SWEEP_FILL_CLOSE : RAID_SWEEP_FILL_NEXT_OPEN;
    if (check(raid_sweep_spec_check(NULL, &spec), NULL, "spec")) return 2;
    if (bars < 3 || !(price > 0) || reps < 1) {
        fprintf(stderr, "bench_sweep: bad --bars, --price or --reps\n");
        return 2;
    }
    int nthr[16], nt = 0, bad = 0; /* the thread counts of --cpu-threads (0: OpenMP's default) */
    for (const char *p = threads; !bad; p++) {
        const size_t len = strcspn(p, ",");
        char *end = NULL;
        long n = strtol(p, &end, 10);
        if (len == 3 && !strncmp(p, "all", 3)) n = 0;
        else if (len == 0 || end != p + len || n < 1 || n > 4096) bad = 1;
        bad |= nt == 16;
        if (!bad) nthr[nt++] = (int)n;
        p += len;
        if (!*p) break;
    }
    if (bad) {
        fprintf(stderr, "bench_sweep: bad --cpu-threads %s (all or counts, comma-separated, at most 16)\n", threads);
        return 2;
    }

    /* the bars */
    raid_ma_input *in = NULL;
    double *sc = NULL, *so = NULL;
    int64_t soff[2] = {0, bars};
    series d = {0};
    if (csv) {
        const char *cols[2] = {"close", "open"};
        if (check(raid_ma_read_csv_columns(csv, NULL, cols, 2, 2u, &in), NULL, csv)) return 1;
        d.close = raid_ma_input_column(in, 0);
        d.open = raid_ma_input_column(in, 1);
        d.off = raid_ma_input_offsets(in);
        d.nseries = raid_ma_input_nseries(in);
        if (raid_ma_input_has_symbol(in)) {
            const char **sym = malloc(d.nseries * sizeof *sym);
            if (!sym) return 1;
            for (size_t s = 0; s < d.nseries; s++) sym[s] = raid_ma_input_symbol(in, s);
            d.symbols = sym;
        }
        printf("bars: %s, %zu series, %zu rows%s\n", csv, d.nseries, raid_ma_input_nrows(in), d.open ? "" : " (no open)");
    } else {
        sc = malloc((size_t)bars * sizeof *sc);
        so = malloc((size_t)bars * sizeof *so);
        if (!sc || !so) {
            fprintf(stderr, "bench_sweep: out of memory\n");
            return 1;
        }
        simulate(bars, price, (uint64_t)seed, sc, so);
        d = (series){sc, so, soff, 1, NULL};
        double lo = INFINITY, hi = 0;
        for (long t = 0; t < bars; t++) lo = fmin(lo, sc[t]), hi = fmax(hi, sc[t]);
        printf("bars: %ld simulated (seed %ld, start %g, closes %.6g .. %.6g)\n", bars, seed, price, lo, hi);
    }
    if (dump) {
        if (d.nseries != 1) {
            fprintf(stderr, "bench_sweep: --dump-csv writes one series (the input has %zu)\n", d.nseries);
            return 2;
        }
        if (dump_csv(dump, &d)) return 1;
        printf("bars written to %s (date,open,close)\n", dump);
    }

    raid_ctx *dev = NULL, *cpu = NULL;
    if (check(raid_ctx_create(&dev, device), NULL, "device") || check(raid_ctx_create(&cpu, "cpu"), NULL, "cpu")) return 1;
    size_t ncomb = 0; /* series x pairs with fast < slow (raid_sweep_result_count) */
    for (int f = spec.fast_lo; f <= spec.fast_hi; f += spec.fast_step)
        for (int s = spec.slow_lo; s <= spec.slow_hi; s += spec.slow_step) ncomb += f < s;
    ncomb *= d.nseries;
    printf("grid: %s fast %s x slow %s (fast < slow): %zu combinations; %s, fill %s, cost %g bps; OpenMP max threads %d\n",
           raid_ma_stat_name(spec.ma), fast, slow, ncomb, spec.short_side ? "long/short" : "long/flat", fill, spec.cost_bps,
           omp_get_max_threads());
    printf("device: %s\n", raid_ctx_device_name(dev));

    /* device: the first call builds the kernels (untimed in the best-of), then the best of reps */
    raid_sweep_result *rd = NULL, *rc = NULL;
    double t0 = bench_now(), best;
    int done;
    if (check(raid_sweep_run_arrays(dev, &spec, d.close, d.open, d.off, d.nseries, d.symbols, &rd), dev, "sweep"))
        return 1;
    printf("device first call (kernel build included, not counted): %.3f s\n", bench_now() - t0);
    if (timed(dev, &spec, &d, reps, max_s, &best, &done, &rd)) return 1;
    report("device", best, done, reps, ncomb);
    if (stats) {
        FILE *f = fopen(stats, "w");
        if (!f || check(raid_sweep_write_csv(rd, f), NULL, stats) || fclose(f) != 0) {
            fprintf(stderr, "bench_sweep: cannot write %s\n", stats);
            return 1;
        }
    }

    /* cpu backend, per thread count */
    if (!no_cpu) {
        const int deflt = omp_get_max_threads();
        for (int i = 0; i < nt; i++) {
            const int n = nthr[i] ? nthr[i] : deflt;
            omp_set_num_threads(n);
            raid_sweep_result *r = NULL;
            if (timed(cpu, &spec, &d, reps, max_s, &best, &done, &r)) return 1;
            char label[48];
            snprintf(label, sizeof label, "cpu, %d thread%s", n, n > 1 ? "s" : "");
            report(label, best, done, reps, ncomb);
            printf("%-18s per thread: %.0f combinations/s\n", label, (double)ncomb / best / n);
            if (!rc) rc = r;
            else raid_sweep_result_destroy(r);
        }
        omp_set_num_threads(deflt);
        compare(rd, rc);
    }

    /* parity on the device: the float64 path beside the device's moving averages */
    int failed = 0;
    if (!no_parity) {
        raid_sweep_parity_report *rep = NULL;
        t0 = bench_now();
        if (check(raid_sweep_parity_arrays(dev, &spec, d.close, d.open, d.off, d.nseries, d.symbols, &rep, NULL), dev,
                  "parity"))
            return 1;
        printf("parity on the device (%.3f s):\n", bench_now() - t0);
        fflush(stdout);
        raid_sweep_parity_write(rep, stdout);
        printf("parity: %lld shifted trades (%lld at float64 ties, %lld violations) against the float64 path: %s\n",
               (long long)rep->shifted, (long long)rep->ties, (long long)rep->violations,
               rep->shifted == 0 ? "zero shifted trades" : rep->passed ? "passed (ties only)" : "FAILED");
        failed = !rep->passed;
        raid_sweep_parity_destroy(rep);
    }

    raid_sweep_result_destroy(rd);
    raid_sweep_result_destroy(rc);
    raid_ctx_destroy(dev);
    raid_ctx_destroy(cpu);
    free((void *)d.symbols);
    raid_ma_input_destroy(in);
    free(sc), free(so);
    return failed ? 3 : 0;
}
