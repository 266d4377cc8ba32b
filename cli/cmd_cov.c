/* raid cov: daily realized covariance matrices of the symbols of a CSV of intraday prices. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The comma-separated list s split in place into *out (malloc'ed), *n names; -1 on an empty name. */
static int split_list(char *s, char ***out, size_t *n)
{
    size_t k = 1;
    for (const char *p = s; *p; p++)
        k += *p == ',';
    char **v = malloc(k * sizeof *v);
    if (!v)
        return -1;
    *n = 0;
    for (char *p = s;;) {
        char *e = strchr(p, ',');
        if (e)
            *e = 0;
        if (!*p) {
            free(v);
            return -1;
        }
        v[(*n)++] = p;
        if (!e)
            break;
        p = e + 1;
    }
    *out = v;
    return 0;
}

/* PATH with its extension .npy replaced by suffix (".symbols.txt"), or PATH + suffix. */
static char *companion(const char *path, const char *suffix)
{
    const size_t n = strlen(path), m = n >= 4 && !strcmp(path + n - 4, ".npy") ? n - 4 : n;
    char *s = malloc(m + strlen(suffix) + 1);
    if (s) {
        memcpy(s, path, m);
        strcpy(s + m, suffix);
    }
    return s;
}

/* The report of --check (docs/precision.md "Covariance"): EXIT_CHECK when the largest scaled difference
 * exceeds the bound, else 0. */
static int report_check(const raid_cov_job *job, raid_ctx *ctx, raid_cov_estimator e)
{
    double diff = 0.0, bound = 0.0;
    const size_t days = raid_cov_job_check(job, &diff, &bound);
    const char *est = raid_cov_estimator_name(e);
    fprintf(stderr, "check: %s (precision df) against the float64 cpu path, %zu days\n", raid_ctx_device_name(ctx),
            days);
    if (days == 0) {
        fprintf(stderr, "check: nothing to compare (the input has no day)\n");
        return 0;
    }
    const int ok = diff <= bound;
    fprintf(stderr, "  %-9s %-12s %-12s %s\n", "estimator", "max_diff", "bound", "status");
    fprintf(stderr, "  %-9s %-12.3e %-12.3e %s\n", est, diff, bound, ok ? "ok" : "EXCEEDED");
    fprintf(stderr, "check %s: |device - cpu| / scale per entry %s the documented bound\n", ok ? "passed" : "FAILED",
            ok ? "within" : "beyond");
    return ok ? 0 : EXIT_CHECK;
}

int cmd_cov(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"output", required_argument, 0, 'o'},     {"device", required_argument, 0, 'd'},
        {"sample", required_argument, 0, 's'},     {"session", required_argument, 0, 'w'},
        {"tz", required_argument, 0, 'z'},         {"estimator", required_argument, 0, 'e'},
        {"refresh-time", no_argument, 0, 'r'},     {"symbols", required_argument, 0, 'y'},
        {"min-obs", required_argument, 0, 'n'},    {"psd-project", no_argument, 0, 'j'},
        {"info", required_argument, 0, 'i'},       {"symbol-col", required_argument, 0, 1},
        {"time-col", required_argument, 0, 2},     {"price-col", required_argument, 0, 3},
        {"quiet", no_argument, 0, 'q'},            {"help", no_argument, 0, 'h'},
        {"check", no_argument, 0, 'k'},
        {0, 0, 0, 0}};
    raid_read_opts ro;
    raid_read_opts_init(&ro);
    ro.samples = 1;
    raid_cov_opts co;
    raid_cov_opts_init(&co);
    const char *out_path = NULL, *device = NULL, *info_path = NULL;
    char *symbols_arg = NULL, **list = NULL;
    size_t nlist = 0;
    int sample_given = 0, check = 0, opt, li = 0;
    optind = 1;
    opterr = 0;
    const char *seen[sizeof longopts / sizeof *longopts] = {0};
    while ((opt = getopt_long(argc, argv, ":o:hq", longopts, &li)) != -1) {
        if (cli_option_once("cov", longopts, opt, seen) != 0)
            return EXIT_USAGE;
        if ((opt == 'o' || opt == 'd' || opt == 'i' || (opt >= 1 && opt <= 3)) && !*optarg) {
            fprintf(stderr, "raid cov: empty %s%s\n", opt == 'o' ? "-o" : "--", opt == 'o' ? "" : longopts[li].name);
            return EXIT_USAGE;
        }
        switch (opt) {
        case 'o': out_path = optarg; break;
        case 'd': device = optarg; break;
        case 'i': info_path = optarg; break;
        case 's':
            if (raid_parse_sample(optarg, &ro.sample_us) != RAID_OK) {
                fprintf(stderr, "raid cov: bad --sample '%s' (expected tick, Ns, Nmin, Nh or Nms)\n", RAID_SHOWZ(optarg));
                return EXIT_USAGE;
            }
            sample_given = 1;
            break;
        case 'w':
            if (raid_parse_session(optarg, &ro.session_start_s, &ro.session_end_s) != RAID_OK) {
                fprintf(stderr, "raid cov: --session: %s\n", raid_errmsg());
                return EXIT_USAGE;
            }
            break;
        case 'z': ro.tz = optarg; break;
        case 'e':
            if (raid_cov_estimator_parse(optarg, &co.estimator) != RAID_OK) {
                fprintf(stderr, "raid cov: --estimator: %s\n", raid_errmsg());
                return EXIT_USAGE;
            }
            break;
        case 'r': co.sync = RAID_COV_SYNC_REFRESH; break;
        case 'y': symbols_arg = optarg; break;
        case 'n':
            if (cli_parse_i64(optarg, 1, INT64_MAX, &co.min_obs)) {
                fprintf(stderr, "raid cov: bad --min-obs '%s' (expected an integer >= 1)\n", RAID_SHOWZ(optarg));
                return EXIT_USAGE;
            }
            break;
        case 'j': co.psd_project = 1; break;
        case 'k': check = 1; break;
        case 'q': cli_quiet = 1; break;
        case 1: ro.symbol_col = optarg; break;
        case 2: ro.time_col = optarg; break;
        case 3: ro.price_col = optarg; break;
        case 'h': fputs(cli_help("cov"), stdout); return 0;
        case ':': fprintf(stderr, "raid cov: option %s needs a value\n", RAID_SHOWZ(argv[optind - 1])); return EXIT_USAGE;
        default: fprintf(stderr, "raid cov: unknown option %s\n", RAID_SHOWZ(argv[optind - 1])); return EXIT_USAGE;
        }
    }
    if (optind != argc - 1) {
        fprintf(stderr, "raid cov: expected one input FILE (see raid help cov)\n");
        return EXIT_USAGE;
    }
    /* hy uses each symbol's own observations: no synchronisation; tick sampling unless --sample is given */
    if (co.estimator == RAID_COV_HY && co.sync == RAID_COV_SYNC_REFRESH) {
        fprintf(stderr, "raid cov: --refresh-time does not apply to --estimator hy (it uses each symbol's own "
                        "observations)\n");
        return EXIT_USAGE;
    }
    if (co.sync == RAID_COV_SYNC_REFRESH && sample_given && ro.sample_us != 0) {
        fprintf(stderr, "raid cov: --refresh-time samples the observations themselves: give --sample tick or no "
                        "--sample\n");
        return EXIT_USAGE;
    }
    if (!sample_given && (co.sync == RAID_COV_SYNC_REFRESH || co.estimator == RAID_COV_HY))
        ro.sample_us = 0;
    const char *in_path = argv[optind];
    if (!out_path) {
        fprintf(stderr, "raid cov: -o OUT is required (OUT.csv: long CSV; OUT.npy: a NumPy array)\n");
        return EXIT_USAGE;
    }
    const size_t ol = strlen(out_path);
    const int npy = ol >= 4 && !strcmp(out_path + ol - 4, ".npy");
    if (cli_same_file(in_path, out_path) || (info_path && cli_same_file(in_path, info_path))) {
        fprintf(stderr, "raid cov: an output is the input file '%s'\n", RAID_SHOWZ(in_path));
        return EXIT_USAGE;
    }
    if (npy && !strcmp(out_path, "-")) {
        fprintf(stderr, "raid cov: the .npy output must be a file\n");
        return EXIT_USAGE;
    }
    if (info_path) { /* --info and the outputs, named alike, would overwrite one another (-o - --info - too) */
        char *sp = npy ? companion(out_path, ".symbols.txt") : NULL, *dp = npy ? companion(out_path, ".dates.txt") : NULL;
        const int same = cli_same_file(out_path, info_path) || (!strcmp(out_path, "-") && !strcmp(info_path, "-")) ||
                         (sp && cli_same_file(sp, info_path)) || (dp && cli_same_file(dp, info_path));
        free(sp), free(dp);
        if (same) {
            fprintf(stderr, "raid cov: --info and -o (or its .symbols.txt, .dates.txt) name the same file '%s'\n",
                    RAID_SHOWZ(info_path));
            return EXIT_USAGE;
        }
    }
    if (symbols_arg) {
        if (split_list(symbols_arg, &list, &nlist) != 0) {
            fprintf(stderr, "raid cov: bad --symbols (a comma-separated list of names, none empty)\n");
            return EXIT_USAGE;
        }
        co.symbols = (const char *const *)list;
        co.nsymbols = nlist;
    }

    int rc = 0, done = 0;
    raid_ctx *ctx = NULL, *cpu = NULL;
    raid_reader *rd = NULL;
    raid_cov_job *job = NULL;
    char *sym_path = npy ? companion(out_path, ".symbols.txt") : NULL;
    char *date_path = npy ? companion(out_path, ".dates.txt") : NULL;
    cli_out out, osym, odate, oinfo;
    memset(&out, 0, sizeof out);
    memset(&osym, 0, sizeof osym);
    memset(&odate, 0, sizeof odate);
    memset(&oinfo, 0, sizeof oinfo);
    out.is_stdout = osym.is_stdout = odate.is_stdout = oinfo.is_stdout = 1; /* nothing to abort yet */
    if (raid_cov_job_create(&job, &co) != RAID_OK) {
        fprintf(stderr, "raid cov: %s\n", raid_errmsg());
        rc = EXIT_USAGE;
        goto done;
    }
    raid_status st = raid_ctx_create(&ctx, device);
    if (st != RAID_OK) {
        fprintf(stderr, "raid cov: %s\n", raid_errmsg());
        rc = cli_exit_for(st) == EXIT_USAGE ? EXIT_USAGE : EXIT_DEVICE;
        goto done;
    }
    if (check && ((st = raid_ctx_create(&cpu, "cpu")) != RAID_OK || (st = raid_cov_job_set_check(job, cpu)) != RAID_OK)) {
        fprintf(stderr, "raid cov: %s\n", raid_errmsg());
        rc = EXIT_USAGE;
        goto done;
    }
    if ((st = raid_reader_open(&rd, in_path, &ro)) != RAID_OK) {
        fprintf(stderr, "raid cov: %s\n", raid_errmsg());
        rc = st == RAID_EINVAL ? EXIT_USAGE : EXIT_INPUT;
        goto done;
    }
    if (cli_open_output(&out, "cov", out_path) != 0 || (npy && (!sym_path || !date_path ||
        cli_open_output(&osym, "cov", sym_path) != 0 || cli_open_output(&odate, "cov", date_path) != 0)) ||
        (info_path && cli_open_output(&oinfo, "cov", info_path) != 0)) {
        rc = EXIT_INPUT;
        goto done;
    }
    raid_cov_job_set_output(job, out.fp, npy ? RAID_COV_NPY : RAID_COV_CSV);
    cli_progress_attach(ctx, "cov");
    while (!done) { /* read a batch, compute the days it completes: include/raid/cov.h */
        if ((st = raid_cov_job_add_reader(job, ctx, rd, &done)) != RAID_OK) {
            cli_progress_end();
            fprintf(stderr, "raid cov: %s\n", raid_ctx_errmsg(ctx));
            rc = st == RAID_ENOMEM || st == RAID_EIO || st == RAID_EPARSE || st == RAID_EINVAL ? EXIT_INPUT : EXIT_DEVICE;
            goto done;
        }
    }
    cli_progress_end();
    cli_notes notes;
    cli_notes_init(&notes, "cov", 0, NULL);
    for (size_t i = 0; i < raid_reader_notice_count(rd); i++)
        cli_notes_add(&notes, NULL, raid_reader_notice(rd, i));
    cli_check_write(&out, raid_cov_job_finish(job));
    if (npy) {
        cli_check_write(&osym, raid_cov_job_write_symbols(job, osym.fp));
        cli_check_write(&odate, raid_cov_job_write_dates(job, odate.fp));
    }
    if (info_path)
        cli_check_write(&oinfo, raid_cov_job_write_info(job, oinfo.fp));
    cli_out *outs[4] = {&out};
    size_t nout = 1;
    if (npy) {
        outs[nout++] = &osym;
        outs[nout++] = &odate;
    }
    if (info_path)
        outs[nout++] = &oinfo;
    if (cli_commit_outputs((cli_out *const *)outs, nout, "cov") != 0) {
        rc = EXIT_INPUT;
        goto done;
    }
    if (check)
        rc = report_check(job, ctx, co.estimator);

done:
    if (rc && rc != EXIT_CHECK) {
        cli_abort_output(&out);
        cli_abort_output(&osym);
        cli_abort_output(&odate);
        cli_abort_output(&oinfo);
    }
    raid_cov_job_destroy(job);
    raid_reader_close(rd);
    raid_ctx_destroy(ctx);
    raid_ctx_destroy(cpu);
    free(list);
    free(sym_path);
    free(date_path);
    return rc;
}
