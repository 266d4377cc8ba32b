/* raid realized: daily realized measures from a CSV of intraday prices (or returns). */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BATCH_RETURNS ((size_t)1 << 24)

typedef struct row {
    uint32_t symbol;
    int32_t date;
    raid_realized dev;
} row;

static int cmp_row(const void *a, const void *b)
{
    const row *x = a, *y = b;
    if (x->symbol != y->symbol)
        return x->symbol < y->symbol ? -1 : 1;
    return (x->date > y->date) - (x->date < y->date);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void progress(const raid_reader *rd, double t0, int *shown, int final)
{
    if (!isatty(2))
        return;
    double el = now_s() - t0;
    if (el < 1.0 && !*shown)
        return;
    uint64_t done = 0, total = 0;
    raid_reader_progress(rd, &done, &total);
    if (final) {
        if (*shown)
            fprintf(stderr, "\r%70s\r", "");
        return;
    }
    *shown = 1;
    if (total) {
        int w = 40, k = (int)((double)w * (double)done / (double)total);
        fprintf(stderr, "\r[%.*s%*s] %3d%% %.0f MB %.1f s", k, "########################################", w - k, "",
                (int)(100.0 * (double)done / (double)total), (double)done / 1e6, el);
    } else {
        fprintf(stderr, "\r%.0f MB %.1f s", (double)done / 1e6, el);
    }
}

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
        {"help", no_argument, 0, 'h'},            {0, 0, 0, 0}};
    raid_read_opts ro;
    raid_read_opts_init(&ro);
    const char *out_path = NULL, *device = NULL;
    raid_precision prec = RAID_PREC_DF;
    int64_t chunk = 4096;
    int check = 0, opt, li = 0;
    const char *price_only = NULL; /* a --sample, --session or --tz given: prices only */
    optind = 1;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, ":o:h", longopts, &li)) != -1) {
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
                fprintf(stderr, "raid realized: bad --sample '%s' (expected tick, Ns, Nmin, Nh or Nms)\n", optarg);
                return EXIT_USAGE;
            }
            break;
        case 'w':
            if (raid_parse_session(optarg, &ro.session_start_s, &ro.session_end_s) != RAID_OK) {
                fprintf(stderr, "raid realized: bad --session '%s' (expected HH:MM-HH:MM, the start to 23:59, the end to 24:00)\n", optarg);
                return EXIT_USAGE;
            }
            break;
        case 'i':
            if (!strcmp(optarg, "prices"))
                ro.kind = RAID_INPUT_PRICES;
            else if (!strcmp(optarg, "returns"))
                ro.kind = RAID_INPUT_RETURNS;
            else {
                fprintf(stderr, "raid realized: bad --input '%s' (expected prices or returns)\n", optarg);
                return EXIT_USAGE;
            }
            break;
        case 'p':
            if (!strcmp(optarg, "f32"))
                prec = RAID_PREC_F32;
            else if (!strcmp(optarg, "df"))
                prec = RAID_PREC_DF;
            else {
                fprintf(stderr, "raid realized: bad --precision '%s' (expected f32 or df)\n", optarg);
                return EXIT_USAGE;
            }
            break;
        case 'c':
            if (cli_parse_i64(optarg, 1, INT64_MAX, &chunk)) {
                fprintf(stderr, "raid realized: bad --chunk '%s'\n", optarg);
                return EXIT_USAGE;
            }
            break;
        case 'k': check = 1; break;
        case 'z': ro.tz = optarg; break;
        case 1: ro.symbol_col = optarg; break;
        case 2: ro.time_col = optarg; break;
        case 3: ro.price_col = optarg; break;
        case 4: ro.date_col = optarg; break;
        case 5: ro.ret_col = optarg; break;
        case 'h': fputs(cli_help("realized"), stdout); return 0;
        case ':': fprintf(stderr, "raid realized: option %s needs a value\n", argv[optind - 1]); return EXIT_USAGE;
        default: fprintf(stderr, "raid realized: unknown option %s\n", argv[optind - 1]); return EXIT_USAGE;
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
        fprintf(stderr, "raid realized: -o '%s' is the input file '%s'\n", out_path, in_path);
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

    int rc = 0, shown = 0, done = 0;
    row *rows = NULL;
    size_t nrows = 0, cap = 0;
    double maxdiff[RAID_REALIZED_NMEASURES] = {0};
    raid_realized *dev = NULL, *ref = NULL;
    raid_batch b;
    raid_batch_init(&b);
    const double t0 = now_s();
    cli_out out;
    memset(&out, 0, sizeof out);
    if (cli_open_output(&out, out_path ? out_path : "-") != 0) { /* before the work: fail fast */
        out.is_stdout = 1;
        rc = EXIT_INPUT;
        goto done;
    }
    while (!done) {
        raid_batch_clear(&b);
        st = raid_reader_next(rd, &b, BATCH_RETURNS, &done);
        if (st != RAID_OK) {
            progress(rd, t0, &shown, 1);
            fprintf(stderr, "raid realized: %s\n", raid_errmsg());
            rc = EXIT_INPUT;
            goto done;
        }
        if (b.nseg == 0)
            continue;
        raid_realized *d2 = realloc(dev, b.nseg * sizeof *dev);
        raid_realized *r2 = check ? realloc(ref, b.nseg * sizeof *ref) : ref;
        if (!d2 || (check && !r2)) {
            free(d2 ? d2 : dev);
            dev = NULL;
            fprintf(stderr, "raid realized: out of memory\n");
            rc = EXIT_INPUT;
            goto done;
        }
        dev = d2;
        ref = r2;
        if ((st = raid_realized_compute(ctx, b.ret, b.offsets, b.nseg, dev)) != RAID_OK) {
            fprintf(stderr, "raid realized: %s: %s\n", raid_strerror(st), raid_ctx_errmsg(ctx));
            rc = st == RAID_EINVAL ? EXIT_INPUT : EXIT_DEVICE; /* EINVAL: data the reader let through */
            goto done;
        }
        if (check) {
            if ((st = raid_realized_compute(cpu, b.ret, b.offsets, b.nseg, ref)) != RAID_OK) {
                fprintf(stderr, "raid realized: cpu path: %s\n", raid_ctx_errmsg(cpu));
                rc = EXIT_DEVICE;
                goto done;
            }
            for (size_t s = 0; s < b.nseg; s++)
                for (int k = 0; k < RAID_REALIZED_NMEASURES; k++) {
                    double dd = raid_realized_diff(&dev[s], &ref[s], k);
                    if (!(dd <= maxdiff[k]))
                        maxdiff[k] = dd;
                }
        }
        if (nrows + b.nseg > cap) {
            size_t nc = cap ? cap : 1024;
            while (nc < nrows + b.nseg)
                nc *= 2;
            row *n2 = realloc(rows, nc * sizeof *rows);
            if (!n2) {
                fprintf(stderr, "raid realized: out of memory\n");
                rc = EXIT_INPUT;
                goto done;
            }
            rows = n2;
            cap = nc;
        }
        for (size_t s = 0; s < b.nseg; s++) {
            rows[nrows].symbol = b.symbol[s];
            rows[nrows].date = b.date[s];
            rows[nrows].dev = dev[s];
            nrows++;
        }
        progress(rd, t0, &shown, 0);
    }
    progress(rd, t0, &shown, 1);
    for (size_t i = 0; i < raid_reader_notice_count(rd); i++) /* facts the output does not show */
        fprintf(stderr, "raid realized: notice: %s\n", raid_reader_notice(rd, i));
    if (nrows)
        qsort(rows, nrows, sizeof *rows, cmp_row);

    FILE *f = out.fp;
    fputs("symbol,date,n,rv,bpv,rs_neg,rs_pos,rq,tpq,medrv,jump_z,jump_p\n", f);
    for (size_t i = 0; i < nrows; i++) {
        const row *w = &rows[i];
        const char *sym = raid_reader_symbol(rd, w->symbol);
        cli_put_field(f, sym ? sym : "");
        fprintf(f, ",%04d-%02d-%02d,%lld", w->date / 10000, w->date / 100 % 100, w->date % 100, (long long)w->dev.n);
        for (int k = 0; k < RAID_REALIZED_NMEASURES; k++)
            cli_put_value(f, raid_realized_get(&w->dev, k));
        fputc('\n', f);
    }
    if (cli_commit_output(&out, "realized") != 0) {
        rc = EXIT_INPUT;
        goto done;
    }
    if (check) {
        const char *pn = prec == RAID_PREC_F32 ? "f32" : "df";
        fprintf(stderr, "check: %s (precision %s) against the float64 cpu path, %zu segments\n",
                raid_ctx_device_name(ctx), pn, nrows);
        fprintf(stderr, "  %-7s %-12s %-12s %s\n", "measure", "max_diff", "bound", "status");
        int bad = 0;
        for (int k = 0; k < RAID_REALIZED_NMEASURES; k++) {
            double bound = raid_realized_bound(prec, k, 0);
            int ok = maxdiff[k] <= bound;
            bad |= !ok;
            fprintf(stderr, "  %-7s %-12.3e %-12.3e %s\n", raid_realized_names[k], maxdiff[k], bound,
                    ok ? "ok" : "EXCEEDED");
        }
        fprintf(stderr, "check %s: every measure within its documented bound%s\n", bad ? "FAILED" : "passed",
                bad ? " except those marked EXCEEDED" : "");
        if (bad)
            rc = EXIT_CHECK;
    }

done:
    if (rc && rc != EXIT_CHECK)
        cli_abort_output(&out);
    raid_batch_free(&b);
    free(rows);
    free(dev);
    free(ref);
    raid_reader_close(rd);
    raid_ctx_destroy(ctx);
    raid_ctx_destroy(cpu);
    return rc;
}
