/* raid precision-report: the relative error of rv on the f32 device path against float64, as a function
 * of the segment length M, measured on simulated returns by the library (raid_precision_curve,
 * include/raid/precision.h) and plotted with gnuplot against the prediction 2u sqrt(3/M)
 * (docs/precision-figure.md). */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct prec_row {
    int64_t m;
    int k;
    double max_err, rms_err, rms_pred, max_pred;
} prec_row;

/* 1 if an executable named name is in PATH. */
static int prec_in_path(const char *name)
{
    const char *path = getenv("PATH");
    if (!path || !*path)
        path = "/usr/bin:/bin";
    char buf[4096];
    while (*path) {
        const char *colon = strchr(path, ':');
        size_t len = colon ? (size_t)(colon - path) : strlen(path);
        if (len == 0) {
            snprintf(buf, sizeof buf, "./%s", name);
        } else if (len + strlen(name) + 2 < sizeof buf) {
            memcpy(buf, path, len);
            buf[len] = '/';
            strcpy(buf + len + 1, name);
        } else {
            buf[0] = 0;
        }
        if (buf[0] && access(buf, X_OK) == 0)
            return 1;
        if (!colon)
            break;
        path = colon + 1;
    }
    return 0;
}

/* The extension of path after the last '.', or "". */
static const char *prec_ext(const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *dot = strrchr(path, '.');
    if (!dot || (slash && dot < slash))
        return "";
    return dot + 1;
}

/* Write path as a gnuplot single-quoted string ('' escapes a quote). */
static void prec_gp_quote(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; *s; s++) {
        if (*s == '\'')
            fputc('\'', f);
        fputc(*s, f);
    }
    fputc('\'', f);
}

static int prec_write_data(const char *path, const prec_row *rows, int n)
{
    cli_out o;
    if (cli_open_output(&o, "precision-report", path) != 0)
        return -1;
    FILE *f = o.fp;
    fprintf(f, "M,segments,max_rel_err,rms_rel_err,rms_pred,max_pred\n");
    for (int i = 0; i < n; i++)
        fprintf(f, "%lld,%d,%.9g,%.9g,%.9g,%.9g\n", (long long)rows[i].m, rows[i].k, rows[i].max_err,
                rows[i].rms_err, rows[i].rms_pred, rows[i].max_pred);
    return cli_commit_output(&o, "precision-report");
}

/* Draw the figure to path (through a temporary file). Returns 0 or an exit status. */
static int prec_plot(const char *path, int svg, const prec_row *rows, int n, int64_t max_m)
{
    if (strchr(path, '\n')) {
        fprintf(stderr, "raid precision-report: bad output path\n");
        return EXIT_USAGE;
    }
    raid_outfile *out;
    raid_status ost = raid_outfile_create(&out, path);
    if (ost != RAID_OK) {
        fprintf(stderr, "raid precision-report: %s\n", raid_errmsg());
        return ost == RAID_EINVAL ? EXIT_USAGE : EXIT_INPUT;
    }
    raid_outfile_close_stream(out); /* gnuplot writes the file itself, by name */
    const char *tmp = raid_outfile_name(out);
    char tracked[4200];
    snprintf(tracked, sizeof tracked, "%s", raid_outfile_tmpname(out));
    cli_track_tmp(tracked); /* removed by SIGINT/SIGTERM/SIGHUP */
    fflush(stdout);
    /* y range: a factor 3 around the positive values. */
    double ylo = INFINITY, yhi = 0;
    for (int i = 0; i < n; i++) {
        const double v[4] = {rows[i].max_err, rows[i].rms_err, rows[i].rms_pred, rows[i].max_pred};
        for (int j = 0; j < 4; j++)
            if (v[j] > 0 && isfinite(v[j])) {
                ylo = fmin(ylo, v[j]);
                yhi = fmax(yhi, v[j]);
            }
    }
    if (!(yhi > 0)) {
        ylo = 1e-12;
        yhi = 1e-6;
    }
    FILE *gp = popen("gnuplot", "w");
    if (!gp) {
        fprintf(stderr, "raid precision-report: cannot run gnuplot: %s\n", strerror(errno));
        raid_outfile_discard(out);
        cli_untrack_tmp(tracked);
        return EXIT_INPUT;
    }
    void (*old)(int) = signal(SIGPIPE, SIG_IGN);
    if (svg)
        fprintf(gp, "set terminal svg size 900,640 enhanced font 'sans,12' background rgb 'white'\n");
    else
        fprintf(gp, "set terminal pngcairo size 900,640 enhanced font 'sans,11'\n");
    fprintf(gp, "set output ");
    prec_gp_quote(gp, tmp);
    fprintf(gp, "\n"
                "set title 'rv relative error of the f32 device path vs M'\n"
                "set xlabel 'M (returns per segment)'\n"
                "set ylabel '|rv_{f32} - rv_{f64}| / rv_{f64}'\n"
                "set logscale xy\n"
                "set format x '10^{%%L}'\n"
                "set format y '10^{%%L}'\n"
                "set grid\n"
                "set key top right\n"
                "set xrange [5:%g]\n"
                "set yrange [%g:%g]\n"
                "u = 2.0**-24\n"
                "pred(m) = 2*u*sqrt(3.0/m)\n"
                "$data << EOD\n",
            2.0 * (double)max_m, ylo / 3, yhi * 3);
    for (int i = 0; i < n; i++)
        fprintf(gp, "%lld %d %.9g %.9g %.9g %.9g\n", (long long)rows[i].m, rows[i].k, rows[i].max_err,
                rows[i].rms_err, rows[i].rms_pred, rows[i].max_pred);
    fprintf(gp, "EOD\n"
                "plot pred(x) with lines lw 2 lc rgb '#1f77b4' title 'RMS prediction 2u sqrt(3/M)', \\\n"
                "     $data using 1:6 with lines lw 2 dt 2 lc rgb '#d62728' "
                "title 'expected max over K segments: sqrt(2 ln K) 2u sqrt(3/M)', \\\n"
                "     $data using 1:4 with points pt 5 ps 1.2 lc rgb '#1f77b4' title 'measured RMS', \\\n"
                "     $data using 1:3 with points pt 7 ps 1.2 lc rgb '#d62728' title 'measured max'\n"
                "unset output\n"
                "exit\n");
    int werr = ferror(gp);
    int status = pclose(gp);
    signal(SIGPIPE, old);
    if (werr || status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "raid precision-report: gnuplot failed (status %d); no figure written\n",
                status == -1 ? -1 : (WIFEXITED(status) ? WEXITSTATUS(status) : 128));
        raid_outfile_discard(out);
        cli_untrack_tmp(tracked);
        return EXIT_INPUT;
    }
    const raid_status cst = raid_outfile_finish(out);
    cli_untrack_tmp(tracked);
    if (cst != RAID_OK) {
        fprintf(stderr, "raid precision-report: %s\n", raid_errmsg());
        return EXIT_INPUT;
    }
    return 0;
}

int cmd_precision_report(int argc, char **argv)
{
    enum { OPT_DEVICE = 256, OPT_SEGMENTS, OPT_SEED, OPT_MAX_M, OPT_DATA };
    static const struct option longopts[] = {
        {"output", required_argument, NULL, 'o'},
        {"device", required_argument, NULL, OPT_DEVICE},
        {"segments", required_argument, NULL, OPT_SEGMENTS},
        {"seed", required_argument, NULL, OPT_SEED},
        {"max-m", required_argument, NULL, OPT_MAX_M},
        {"data", required_argument, NULL, OPT_DATA},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *out = "docs/precision.png", *device = NULL, *data = NULL;
    int64_t segments = 64, seed = 1, max_m = 1000000;
    optind = 1;
    opterr = 0;
    int c;
    const char *seen[sizeof longopts / sizeof *longopts] = {0};
    while ((c = getopt_long(argc, argv, ":o:h", longopts, NULL)) != -1) {
        if (cli_option_once("precision-report", longopts, c, seen) != 0)
            return EXIT_USAGE;
        switch (c) {
        case 'o': out = optarg; break;
        case OPT_DEVICE: device = optarg; break;
        case OPT_DATA: data = optarg; break;
        case OPT_SEGMENTS:
            if (cli_parse_i64(optarg, 1, 1000000, &segments)) {
                fprintf(stderr, "raid precision-report: --segments must be an integer in [1, 10^6]\n");
                return EXIT_USAGE;
            }
            break;
        case OPT_SEED:
            if (cli_parse_i64(optarg, 0, INT64_MAX, &seed)) {
                fprintf(stderr, "raid precision-report: --seed must be a non-negative integer\n");
                return EXIT_USAGE;
            }
            break;
        case OPT_MAX_M:
            if (cli_parse_i64(optarg, 10, 10000000, &max_m)) {
                fprintf(stderr, "raid precision-report: --max-m must be an integer in [10, 10^7]\n");
                return EXIT_USAGE;
            }
            break;
        case 'h': fputs(cli_help("precision-report"), stdout); return 0;
        case ':':
            fprintf(stderr, "raid precision-report: option %s needs a value\n", RAID_SHOWZ(argv[optind - 1]));
            return EXIT_USAGE;
        default:
            fprintf(stderr, "raid precision-report: unknown option %s (try raid help precision-report)\n",
                    RAID_SHOWZ(argv[optind - 1]));
            return EXIT_USAGE;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "raid precision-report: unexpected argument '%s'\n", RAID_SHOWZ(argv[optind]));
        return EXIT_USAGE;
    }
    const char *ext = prec_ext(out);
    int svg = !strcasecmp(ext, "svg");
    if (!svg && strcasecmp(ext, "png")) {
        fprintf(stderr, "raid precision-report: the figure must be a .png or .svg file (got '%s')\n", RAID_SHOWZ(out));
        return EXIT_USAGE;
    }
    if (!device)
        device = getenv("RAID_DEVICE");
    if (!device || !*device)
        device = "opencl";

    raid_ctx *dev = NULL, *cpu = NULL;
    raid_status st = raid_ctx_create(&dev, device);
    if (st != RAID_OK) {
        fprintf(stderr, "raid precision-report: device %s: %s\n", device, raid_errmsg());
        return cli_exit_for(st) == EXIT_USAGE ? EXIT_USAGE : EXIT_DEVICE;
    }
    if (raid_ctx_backend(dev) == RAID_BACKEND_CPU)
        fprintf(stderr, "raid precision-report: warning: %s is the float64 cpu backend; the f32 path is "
                        "not exercised\n", raid_ctx_device_name(dev));
    st = raid_ctx_set_precision(dev, RAID_PREC_F32);
    if (st == RAID_OK)
        st = raid_ctx_create(&cpu, "cpu");
    if (st != RAID_OK) { /* either call's message (set_precision's is also the context's) */
        fprintf(stderr, "raid precision-report: %s\n", raid_errmsg());
        raid_ctx_destroy(dev);
        return EXIT_DEVICE;
    }
    fprintf(stderr, "raid precision-report: device %s, f32 inputs, reference %s\n",
            raid_ctx_device_name(dev), raid_ctx_device_name(cpu));

    prec_row rows[RAID_PRECISION_MAX_POINTS];
    int64_t pm[RAID_PRECISION_MAX_POINTS], pk[RAID_PRECISION_MAX_POINTS];
    double pe[4][RAID_PRECISION_MAX_POINTS];
    size_t np = 0;
    st = raid_precision_curve(dev, cpu, max_m, segments, (uint64_t)seed, pm, pk, pe[0], pe[1], pe[2], pe[3], &np);
    if (st != RAID_OK)
        fprintf(stderr, "raid precision-report: %s\n", raid_ctx_errmsg(dev));
    raid_ctx_destroy(dev);
    raid_ctx_destroy(cpu);
    if (st != RAID_OK)
        return cli_exit_for(st);
    const int nrows = (int)np;
    for (int i = 0; i < nrows; i++)
        rows[i] = (prec_row){pm[i], (int)pk[i], pe[0][i], pe[1][i], pe[2][i], pe[3][i]};
    printf("%10s %8s %14s %14s %14s %14s\n", "M", "segments", "max_rel_err", "rms_rel_err", "rms_pred",
           "max_pred");
    for (int i = 0; i < nrows; i++)
        printf("%10lld %8d %14.6e %14.6e %14.6e %14.6e\n", (long long)rows[i].m, rows[i].k, rows[i].max_err,
               rows[i].rms_err, rows[i].rms_pred, rows[i].max_pred);
    fflush(stdout);

    int have_gnuplot = prec_in_path("gnuplot");
    char fallback[4200];
    if (!data && !have_gnuplot) {
        size_t base = strlen(out) - strlen(ext) - 1;
        snprintf(fallback, sizeof fallback, "%.*s.csv", (int)base, out);
        data = fallback;
    }
    if (data && prec_write_data(data, rows, nrows) != 0)
        return EXIT_INPUT; /* the message is printed; no figure either */
    if (!have_gnuplot) {
        fprintf(stderr, "raid precision-report: gnuplot not found in PATH (install gnuplot-nox); no figure "
                        "written; the data are in %s\n", data);
        return EXIT_INPUT;
    }
    const int rc = prec_plot(out, svg, rows, nrows, rows[nrows - 1].m);
    if (rc == 0)
        fprintf(stderr, "raid precision-report: wrote %s\n", out);
    return rc;
}
