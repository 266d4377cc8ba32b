/* Output of the commands: stdout, or a file written through raid_outfile (include/raid/outfile.h: never
 * partial). */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Temporary files of outputs in progress, removed by a terminating signal (SIGINT, SIGTERM, SIGHUP,
 * SIGPIPE) so that an interrupted run leaves neither a partial output nor a hidden temporary beside it.
 * The CLI's own state (the library installs no handlers); unlink is async-signal-safe. */
#define CLI_MAX_TMP 8
#define CLI_TMP_LEN 4200 /* above raid_outfile's path limit */
static char cli_tmp[CLI_MAX_TMP][CLI_TMP_LEN];
static volatile sig_atomic_t cli_tmp_used[CLI_MAX_TMP];

void cli_track_tmp(const char *tmp)
{
    if (!tmp || !*tmp)
        return;
    for (int i = 0; i < CLI_MAX_TMP; i++)
        if (!cli_tmp_used[i]) {
            snprintf(cli_tmp[i], sizeof cli_tmp[i], "%s", tmp);
            cli_tmp_used[i] = 1;
            return;
        }
}

void cli_untrack_tmp(const char *tmp)
{
    for (int i = 0; i < CLI_MAX_TMP; i++)
        if (cli_tmp_used[i] && !strcmp(cli_tmp[i], tmp))
            cli_tmp_used[i] = 0;
}

static void cli_on_signal(int sig)
{
    cli_progress_on_signal();
    for (int i = 0; i < CLI_MAX_TMP; i++)
        if (cli_tmp_used[i])
            unlink(cli_tmp[i]);
    signal(sig, SIG_DFL);
    raise(sig);
}

void cli_install_signal_cleanup(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = cli_on_signal;
    sigemptyset(&sa.sa_mask);
    /* SIGPIPE too: `raid har ... | head -1` ends the run while outputs are open */
    const int sigs[4] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};
    for (int i = 0; i < 4; i++)
        sigaction(sigs[i], &sa, NULL);
}

int cli_exit_for(raid_status s)
{
    switch (s) {
    case RAID_OK: return 0;
    case RAID_EINVAL: return EXIT_USAGE;
    case RAID_EIO:
    case RAID_EPARSE:
    case RAID_ENOMEM: return EXIT_INPUT;
    default: return EXIT_DEVICE;
    }
}

int cli_open_output(cli_out *o, const char *cmd, const char *path)
{
    memset(o, 0, sizeof *o);
    if (path && !strcmp(path, "-")) {
        o->is_stdout = 1;
        o->fp = stdout;
        return 0;
    }
    /* The cleanup signals wait while the temporary is created and tracked: one arriving in between would
     * leave it behind (seen once in CI, the test's kill landing right after the file appeared). */
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGHUP);
    sigaddset(&block, SIGPIPE);
    sigprocmask(SIG_BLOCK, &block, &old);
    const raid_status st = raid_outfile_create(&o->file, path);
    if (st == RAID_OK) {
        o->fp = raid_outfile_fp(o->file);
        cli_track_tmp(raid_outfile_tmpname(o->file));
    }
    sigprocmask(SIG_SETMASK, &old, NULL);
    if (st != RAID_OK) {
        fprintf(stderr, "raid %s: %s\n", cmd, raid_errmsg());
        return -1;
    }
    return 0;
}

/* The first step of a commit: the writer's error, then the stream flushed (and, for a file, closed). */
static int close_output(cli_out *o, const char *cmd)
{
    if (o->is_stdout) {
        errno = 0; /* ferror without a failing flush (the data was lost before): no errno of its own */
        if (fflush(stdout) == 0 && !ferror(stdout) && !o->werr)
            return 0;
        const int e = o->werr ? o->werr : errno ? errno : EIO;
        fprintf(stderr, "raid %s: cannot write standard output: %s\n", cmd, strerror(e));
        return -1;
    }
    if (!o->file)
        return 0;
    o->fp = NULL;
    const raid_status st = raid_outfile_close(o->file);
    if (st != RAID_OK)
        fprintf(stderr, "raid %s: %s\n", cmd, raid_errmsg());
    return st != RAID_OK ? -1 : 0;
}

int cli_commit_outputs(cli_out *const *outs, size_t n, const char *cmd)
{
    for (size_t i = 0; i < n; i++)
        if (close_output(outs[i], cmd) != 0) {
            for (size_t j = 0; j < n; j++)
                cli_abort_output(outs[j]);
            return -1;
        }
    for (size_t i = 0; i < n; i++) {
        cli_out *o = outs[i];
        if (o->is_stdout || !o->file)
            continue;
        char tmp[CLI_TMP_LEN];
        snprintf(tmp, sizeof tmp, "%s", raid_outfile_tmpname(o->file));
        const raid_status st = raid_outfile_finish(o->file);
        o->file = NULL;
        cli_untrack_tmp(tmp); /* after the rename: a signal before it removes the temporary */
        if (st != RAID_OK) {
            fprintf(stderr, "raid %s: %s\n", cmd, raid_errmsg());
            for (size_t j = i + 1; j < n; j++)
                cli_abort_output(outs[j]);
            return -1;
        }
    }
    return 0;
}

int cli_commit_output(cli_out *o, const char *cmd) { return cli_commit_outputs(&o, 1, cmd); }

void cli_check_write(cli_out *o, raid_status st)
{
    if (st != RAID_OK && !o->werr)
        o->werr = errno ? errno : EIO;
}

void cli_abort_output(cli_out *o)
{
    if (!o->is_stdout && o->file) {
        char tmp[CLI_TMP_LEN];
        snprintf(tmp, sizeof tmp, "%s", raid_outfile_tmpname(o->file));
        raid_outfile_discard(o->file);
        o->file = NULL;
        cli_untrack_tmp(tmp);
        o->fp = NULL;
    }
}

/* The directory part of path (into dir) and its last component. */
static const char *cli_split_path(const char *path, char *dir, size_t dirlen)
{
    const char *slash = strrchr(path, '/');
    if (!slash) {
        snprintf(dir, dirlen, ".");
        return path;
    }
    const size_t n = (size_t)(slash - path);
    snprintf(dir, dirlen, "%.*s", (int)(n ? n : 1), n ? path : "/");
    return slash + 1;
}

/* path with the symbolic links of its last component followed, dangling ones too (an output written
 * through a dangling link creates its target), into buf (at most 40 links). */
static const char *cli_follow_links(const char *path, char *buf, size_t len)
{
    snprintf(buf, len, "%s", path);
    for (int i = 0; i < 40; i++) {
        struct stat st;
        char t[PATH_MAX], dir[PATH_MAX];
        if (lstat(buf, &st) != 0 || !S_ISLNK(st.st_mode))
            break;
        const ssize_t n = readlink(buf, t, sizeof t - 1);
        if (n <= 0)
            break;
        t[n] = '\0';
        (void)cli_split_path(buf, dir, sizeof dir);
        if (t[0] == '/')
            snprintf(buf, len, "%s", t);
        else
            snprintf(buf, len, "%.*s/%.*s", PATH_MAX / 2 - 2, dir, PATH_MAX / 2 - 2, t);
    }
    return buf;
}

int cli_same_file(const char *a, const char *b)
{
    if (!a || !b || !strcmp(a, "-") || !strcmp(b, "-"))
        return 0;
    struct stat sa, sb;
    const int ea = stat(a, &sa) == 0, eb = stat(b, &sb) == 0;
    if (ea && eb) /* a device such as /dev/null may be named twice */
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino && S_ISREG(sa.st_mode);
    if (ea || eb)
        return 0;
    char fa[PATH_MAX], fb[PATH_MAX], da[PATH_MAX], db[PATH_MAX];
    a = cli_follow_links(a, fa, sizeof fa), b = cli_follow_links(b, fb, sizeof fb);
    const char *na = cli_split_path(a, da, sizeof da), *nb = cli_split_path(b, db, sizeof db);
    struct stat ta, tb;
    return strcmp(na, nb) == 0 && stat(da, &ta) == 0 && stat(db, &tb) == 0 && ta.st_dev == tb.st_dev &&
           ta.st_ino == tb.st_ino;
}

int cli_is_plain_file(const char *path)
{
    if (!path || !*path || !strcmp(path, "-") || !strncmp(path, "/dev/", 5) || !strncmp(path, "/proc/", 6) ||
        raid_path_is_fd(path, 1) || raid_path_is_fd(path, 2))
        return 0;
    struct stat st;
    return stat(path, &st) != 0 || S_ISREG(st.st_mode);
}

int cli_is_stdin_file(const char *path)
{
    struct stat st;
    return raid_path_is_fd(path, 0) && stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

int cli_run_job(const char *cmd, const char *device, const char *out_path, cli_job_fn run, void *args,
                cli_notice_fn notice, cli_write_fn write, void (*destroy)(void *))
{
    raid_ctx *ctx = NULL;
    void *res = NULL;
    cli_out out;
    raid_status st = raid_ctx_create(&ctx, device);
    if (st != RAID_OK) {
        fprintf(stderr, "raid %s: %s\n", cmd, raid_errmsg());
        return cli_exit_for(st) == EXIT_USAGE ? EXIT_USAGE : EXIT_DEVICE;
    }
    int rc = 0;
    cli_progress_attach(ctx, cmd);
    st = run(ctx, args, &res);
    cli_progress_end();
    if (st != RAID_OK) {
        fprintf(stderr, "raid %s: %s\n", cmd, raid_ctx_errmsg(ctx));
        rc = cli_exit_for(st);
    } else {
        const char *s;
        cli_notes notes;
        cli_notes_init(&notes, cmd, 0, NULL);
        for (size_t i = 0; (s = notice(res, i)) != NULL; i++) /* facts the output does not show */
            cli_notes_add(&notes, NULL, s);
        if (cli_open_output(&out, cmd, out_path ? out_path : "-") != 0) {
            rc = EXIT_INPUT;
        } else {
            cli_check_write(&out, write(res, out.fp));
            if (cli_commit_output(&out, cmd) != 0) {
                cli_abort_output(&out);
                rc = EXIT_INPUT;
            }
        }
    }
    destroy(res);
    raid_ctx_destroy(ctx);
    return rc;
}

int cli_option_once(const char *cmd, const struct option *longopts, int opt, const char **seen)
{
    size_t i = 0;
    while (longopts[i].name && longopts[i].val != opt)
        i++;
    if (!longopts[i].name || opt == 'h') /* ':' and '?' (reported by the caller), --help */
        return 0;
    const char *v = longopts[i].has_arg == no_argument ? "" : optarg;
    if (seen[i]) { /* a second value would silently replace the first (--by a --by b sorted by b) */
        if (*v || *seen[i])
            fprintf(stderr, "raid %s: %s%s given twice ('%s', then '%s')\n", cmd, opt == 'o' ? "-o" : "--",
                    opt == 'o' ? "" : longopts[i].name, RAID_SHOWZ(seen[i]), RAID_SHOWZ(v));
        else
            fprintf(stderr, "raid %s: --%s given twice\n", cmd, longopts[i].name);
        return EXIT_USAGE;
    }
    seen[i] = v;
    return 0;
}

int cli_string_options(const char *cmd, int argc, char **argv, const char *const *names, const char **values, size_t n)
{
    struct option longopts[17];
    size_t k = 0;
    for (; k < n && k < 13; k++)
        longopts[k] = (struct option){names[k], required_argument, 0, 256 + (int)k};
    longopts[k++] = (struct option){"output", required_argument, 0, 'o'};
    longopts[k++] = (struct option){"quiet", no_argument, 0, 'q'};
    longopts[k++] = (struct option){"help", no_argument, 0, 'h'};
    longopts[k] = (struct option){0, 0, 0, 0};
    const char **out_path = &values[n];
    const char *seen[17] = {0};
    int opt, li = 0;
    optind = 1;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, ":o:hq", longopts, &li)) != -1) {
        if (opt == 'h') {
            fputs(cli_help(cmd), stdout);
            return -1;
        }
        if (opt == ':' || opt == '?') {
            fprintf(stderr, "raid %s: %s %s\n", cmd, opt == ':' ? "option needs a value:" : "unknown option", RAID_SHOWZ(argv[optind - 1]));
            return EXIT_USAGE;
        }
        if (opt == 'q') {
            if (cli_option_once(cmd, longopts, opt, seen) != 0)
                return EXIT_USAGE;
            cli_quiet = 1;
            continue;
        }
        if (!*optarg) {
            fprintf(stderr, "raid %s: empty %s%s\n", cmd, opt == 'o' ? "-o" : "--", opt == 'o' ? "" : names[opt - 256]);
            return EXIT_USAGE;
        }
        if (cli_option_once(cmd, longopts, opt, seen) != 0)
            return EXIT_USAGE;
        *(opt == 'o' ? out_path : &values[opt - 256]) = optarg;
    }
    if (optind != argc - 1) {
        fprintf(stderr, "raid %s: expected one input FILE (see raid help %s)\n", cmd, cmd);
        return EXIT_USAGE;
    }
    if (cli_same_file(argv[optind], *out_path) || (!strcmp(argv[optind], "-") && cli_is_stdin_file(*out_path))) {
        fprintf(stderr, "raid %s: -o '%s' is the input file '%s'\n", cmd, RAID_SHOWZ(*out_path),
                RAID_SHOWZ(argv[optind]));
        return EXIT_USAGE;
    }
    return 0;
}
