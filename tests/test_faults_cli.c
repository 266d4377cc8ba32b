/* Faults survived by the raid CLI (docs/testing.md "Faults"): every command that runs on a device, walked
 * over sampled points of the device layer (RAID_FAULT=KINDS:N, include/raid/tuning.h): exit status 4 (2
 * where page-locked staging ran out: host memory), a message naming the failed call, and no output file
 * (nor a temporary beside it). Then full disks and short writes for every command's outputs: `-o /dev/full`,
 * standard output on /dev/full, a small tmpfs when it can be mounted (root), and the output files' injected
 * faults (a short write then ENOSPC, a failing close, a failing rename): exit status 2 and no output
 * file. Each command's processes run under the sanitizers in build-asan (a leak exits 23, not 4 or 2). */
#define _GNU_SOURCE
#include "support.h"
#include "raid.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define EXIT_INPUT 2
#define EXIT_DEVICE 4

/* The commands: arguments with OUT for the output folder (main output OUT/out.csv) and IN for the test's
 * folder of generated inputs; the outputs they write there. */
typedef struct command {
    const char *name;
    const char *args;
    const char *outputs[3];
    int host; /* no device: not walked, no --device */
} command;

static const command commands[] = {
    {"realized", "realized DATA/usdchf_30min.csv --sample 30min", {"out.csv"}, 0},
    {"har", "har DATA/spy_realized_measures.csv --date-col DT --rv-col RV5 --se nw --window rolling:1400",
     {"out.csv", "out.forecasts.csv", "out.losses.csv"}, 0},
    {"garch", "garch DATA/dem2gbp.csv", {"out.csv"}, 0},
    {"ma", "ma DATA/ttrc_daily.csv --stat wma --window 20", {"out.csv"}, 0},
    {"sweep", "sweep DATA/ttrc_daily.csv --fast 5:20:5 --slow 30:60:10 --trades OUT/trades.csv",
     {"out.csv", "trades.csv"}, 0},
    {"bars", "bars DATA/trades_xxx_2days.csv --interval 5min", {"out.csv"}, 0},
    {"quantile", "quantile IN/kv.csv --col x --q 0.1,0.5,0.9 --by key", {"out.csv"}, 0},
    {"groupby", "groupby IN/kv.csv --by key --agg sum:x,max:x,count", {"out.csv"}, 0},
    {"sort", "sort IN/kv.csv --by x", {"out.csv"}, 0},
    {"simulate", "simulate --seed 7 --symbols 2 --days 3 --obs 390 --iv OUT/iv.csv", {"out.csv", "iv.csv"}, 1},
};

static char g_in[512];

/* RAID_FAULT_JOB: only the commands whose name holds it (debugging) */
static int chosen(const command *c)
{
    const char *only = getenv("RAID_FAULT_JOB");
    return !only || strstr(c->name, only);
}

static double raidNowWall(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int setup(void **state)
{
    (void)state;
    snprintf(g_in, sizeof g_in, "%s", t_tmppath("in"));
    if (mkdir(g_in, 0777) != 0)
        return -1;
    t_sbuf b = {0};
    uint64_t s = 7;
    t_sb_add(&b, "key,x\n");
    for (int i = 0; i < 5000; i++)
        t_sb_add(&b, "%d,%.17g\n", (int)(t_splitmix64(&s) % 23), (t_unif(&s) - 0.5) * 1e3);
    char p[600];
    snprintf(p, sizeof p, "%s/kv.csv", g_in);
    const int rc = t_write_file(p, b.s);
    free(b.s);
    return rc;
}

/* args with DATA, IN and OUT replaced */
static void expand(const char *args, const char *out, char *buf, size_t len)
{
    size_t n = 0;
    for (const char *p = args; *p && n + 1 < len;) {
        const char *rep = !strncmp(p, "DATA", 4) ? RAID_DATA_DIR : !strncmp(p, "IN", 2) ? g_in
                          : !strncmp(p, "OUT", 3)                ? out : NULL;
        if (rep) {
            n += (size_t)snprintf(buf + n, len - n, "%s", rep);
            p += !strncmp(p, "DATA", 4) ? 4 : !strncmp(p, "IN", 2) ? 2 : 3;
        } else {
            buf[n++] = *p++;
        }
        if (n >= len)
            n = len - 1;
    }
    buf[n] = 0;
}

/* Run the command with env (e.g. "RAID_FAULT=device:3") and its main output to `o` (a path; NULL: no -o),
 * outputs in folder out; exit status, stderr in *err (malloc'd). */
static int run(const command *c, const char *env, const char *out, const char *o, const char *redirect, char **err)
{
    char args[2048], cmd[4096];
    expand(c->args, out, args, sizeof args);
    char oarg[700] = "";
    if (o)
        snprintf(oarg, sizeof oarg, " -o '%s'", o);
    snprintf(cmd, sizeof cmd, "%s '%s' %s%s%s %s", env ? env : "", RAID_CLI, args, c->host ? "" : " --device opencl",
             oarg, redirect ? redirect : "");
    char *e = NULL;
    const int rc = t_run(cmd, NULL, &e);
    *err = e ? e : calloc(1, 1);
    return rc;
}

/* The names in folder dir (sorted, joined by spaces) */
static void listing(const char *dir, char *buf, size_t len)
{
    struct dirent **ents = NULL;
    const int n = scandir(dir, &ents, NULL, alphasort);
    size_t k = 0;
    buf[0] = 0;
    for (int i = 0; i < n; i++) {
        if (strcmp(ents[i]->d_name, ".") && strcmp(ents[i]->d_name, ".."))
            k += (size_t)snprintf(buf + k, k < len ? len - k : 0, "%s ", ents[i]->d_name);
        free(ents[i]);
    }
    free(ents);
}

static void clear_dir(const char *dir)
{
    char cmd[2 * 700 + 40];
    snprintf(cmd, sizeof cmd, "rm -rf '%.700s'/* '%.700s'/.raid-tmp-*", dir, dir);
    assert_int_equal(system(cmd), 0);
}

/* The folder of a command's outputs, created empty. */
static const char *out_dir(const char *name, const char *tag)
{
    static char d[700];
    char leaf[200];
    snprintf(leaf, sizeof leaf, "out-%s-%s", name, tag);
    snprintf(d, sizeof d, "%s", t_tmppath(leaf));
    mkdir(d, 0777);
    clear_dir(d);
    return d;
}

/* The failing run's checks: status, message, nothing left in out. */
static void check_failed(const command *c, const char *what, int rc, int want, const char *err, const char *out,
                         const char *needle)
{
    char ls[2048];
    listing(out, ls, sizeof ls);
    char head[64];
    snprintf(head, sizeof head, "raid %s: ", c->name);
    if (rc != want || !strstr(err, head) || (needle && !strstr(err, needle)) || ls[0])
        fail_msg("raid %s, %s: exit status %d (expected %d), output folder '%s', stderr:\n%s", c->name, what, rc, want,
                 ls, err);
}

/* "raid: RAID_FAULT: N device points (alloc A, host H, ...), F failed": N and the counts per kind */
static uint64_t parse_points(const char *err, uint64_t count[7], uint64_t *failed)
{
    const char *p = strstr(err, "raid: RAID_FAULT: ");
    assert_non_null(p);
    unsigned long long n = 0, k[7] = {0}, f = 0;
    assert_int_equal(sscanf(p, "raid: RAID_FAULT: %llu device points (alloc %llu, host %llu, build %llu, upload %llu, "
                              "launch %llu, download %llu, sync %llu), %llu failed",
                            &n, &k[0], &k[1], &k[2], &k[3], &k[4], &k[5], &k[6], &f),
                     9);
    for (int i = 0; i < 7; i++)
        count[i] = k[i];
    if (failed)
        *failed = f;
    return n;
}

static const char *const kinds[7] = {"alloc", "host", "build", "upload", "launch", "download", "sync"};

/* The device walk of one command: the first and the last point, three between, and the first of each kind
 * (docs/testing.md; the library's walk, tests/test_faults.c, takes every point or nearly). */
static void walk_command(const command *c)
{
    const double t0 = raidNowWall();
    const char *out = out_dir(c->name, "dev");
    char o[800], *err = NULL;
    snprintf(o, sizeof o, "%s/out.csv", out);
    int rc = run(c, "RAID_FAULT=device:0", out, o, NULL, &err);
    if (rc != 0)
        fail_msg("raid %s: exit status %d: %s", c->name, rc, err);
    uint64_t count[7];
    const uint64_t total = parse_points(err, count, NULL);
    free(err);
    assert_true(total > 0);
    for (int i = 0; i < 3 && c->outputs[i]; i++) {
        char p[900];
        snprintf(p, sizeof p, "%s/%s", out, c->outputs[i]);
        assert_true(t_file_exists(p));
    }
    int runs = 0;
    const uint64_t stride = total / 4 > 1 ? total / 4 : 1;
    for (uint64_t n = 1; n <= total; n = n < total && n + stride > total ? total : n + stride) {
        char env[120];
        snprintf(env, sizeof env, "RAID_FAULT=device:%llu", (unsigned long long)n);
        clear_dir(out);
        rc = run(c, env, out, o, NULL, &err);
        check_failed(c, env, rc, strstr(err, "staging") ? EXIT_INPUT : EXIT_DEVICE, err, out, "1 failed");
        free(err);
        runs++;
    }
    for (int k = 0; k < 7; k++)
        if (count[k]) {
            char env[120];
            snprintf(env, sizeof env, "RAID_FAULT=%s:1", kinds[k]);
            clear_dir(out);
            rc = run(c, env, out, o, NULL, &err);
            check_failed(c, env, rc, k == 1 ? EXIT_INPUT : EXIT_DEVICE, err, out, "1 failed");
            free(err);
            runs++;
        }
    print_message("raid %-9s %4llu points (alloc %llu, host %llu, build %llu, upload %llu, launch %llu, download "
                  "%llu, sync %llu), %d failing runs, %.1f s\n",
                  c->name, (unsigned long long)total, (unsigned long long)count[0], (unsigned long long)count[1],
                  (unsigned long long)count[2], (unsigned long long)count[3], (unsigned long long)count[4],
                  (unsigned long long)count[5], (unsigned long long)count[6], runs, raidNowWall() - t0);
}

static void test_device_walk(void **state)
{
    (void)state;
    if (!t_have_opencl())
        skip();
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
        if (!commands[i].host && chosen(&commands[i]))
            walk_command(&commands[i]);
}

/* After a failed rename (RAID_FAULT=rename:N): exit status 2, no temporary file, and of the outputs only
 * those renamed before the failing one, each whole (ref: their bytes from a clean run). The outputs are
 * all written and closed before the first rename, so a rename is the only step that can fail after
 * another output was committed. */
static void check_rename(const command *c, const char *env, int rc, const char *err, const char *out, char *const *ref)
{
    char ls[2048];
    listing(out, ls, sizeof ls);
    if (rc != EXIT_INPUT || strstr(ls, ".raid-tmp") || !strstr(err, "Input/output error"))
        fail_msg("raid %s, %s: exit status %d, output folder '%s', stderr:\n%s", c->name, env, rc, ls, err);
    for (int i = 0; i < 3 && c->outputs[i]; i++) {
        char p[900];
        snprintf(p, sizeof p, "%s/%s", out, c->outputs[i]);
        char *got = t_read_file(p);
        if (got && strcmp(got, ref[i]))
            fail_msg("raid %s, %s: %s is not whole", c->name, env, c->outputs[i]);
        free(got);
    }
}

/* Full disks and short writes: every output of every command. */
static void test_full_disk(void **state)
{
    (void)state;
    if (!t_have_opencl())
        skip();
    char *err = NULL;
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++) {
        const command *c = &commands[i];
        if (!chosen(c))
            continue;
        const double t0 = raidNowWall();
        const char *out = out_dir(c->name, "disk");
        char o[800];
        snprintf(o, sizeof o, "%s/out.csv", out);
        int runs = 0;
        /* the outputs of a clean run */
        int rc = run(c, NULL, out, o, NULL, &err);
        if (rc != 0)
            fail_msg("raid %s: exit status %d: %s", c->name, rc, err);
        free(err);
        char *ref[3] = {NULL, NULL, NULL};
        for (int j = 0; j < 3 && c->outputs[j]; j++) {
            char p[900];
            snprintf(p, sizeof p, "%s/%s", out, c->outputs[j]);
            assert_non_null(ref[j] = t_read_file(p));
        }
        /* -o /dev/full: written directly (a device is never replaced), the error at the flush */
        clear_dir(out);
        rc = run(c, NULL, out, "/dev/full", NULL, &err);
        check_failed(c, "-o /dev/full", rc, EXIT_INPUT, err, out, "No space left on device");
        free(err), runs++;
        /* standard output on /dev/full (simulate has no standard output) */
        if (!c->host) {
            clear_dir(out);
            rc = run(c, NULL, out, NULL, "> /dev/full", &err);
            check_failed(c, "stdout on /dev/full", rc, EXIT_INPUT, err, out, "No space left on device");
            free(err), runs++;
        }
        /* each injected write, close and rename of the outputs, until the run passes them all */
        static const char *const fk[3] = {"write", "close", "rename"};
        for (int k = 0; k < 3; k++) {
            for (int n = 1;; n = n < 4 ? n + 1 : 2 * n) {
                char env[80];
                snprintf(env, sizeof env, "RAID_FAULT=%s:%d", fk[k], n);
                clear_dir(out);
                rc = run(c, env, out, o, NULL, &err);
                runs++;
                if (rc == 0) {
                    free(err);
                    break;
                }
                if (k == 2)
                    check_rename(c, env, rc, err, out, ref);
                else
                    check_failed(c, env, rc, EXIT_INPUT, err, out, k == 0 ? "No space left on device" : "Input/output error");
                free(err);
                assert_true(n < 4096);
            }
        }
        for (int j = 0; j < 3; j++)
            free(ref[j]);
        print_message("raid %-9s full disks: %d runs, %.1f s\n", c->name, runs, raidNowWall() - t0);
    }
}

/* A real full disk: a 64 KiB tmpfs (root only; skipped where it cannot be mounted), with no room left, and
 * with one page (4 KiB) left: an output larger than that gets a short write, then ENOSPC. */
static char g_mnt[600]; /* mounted: unmounted by the teardown, also after a failure */

static int unmount_tmpfs(void **state)
{
    (void)state;
    if (g_mnt[0]) {
        clear_dir(g_mnt);
        umount(g_mnt);
        g_mnt[0] = 0;
    }
    return 0;
}

static void test_tmpfs(void **state)
{
    (void)state;
    if (!t_have_opencl())
        skip();
    const char *mnt = t_tmppath("tmpfs");
    mkdir(mnt, 0777);
    if (mount("tmpfs", mnt, "tmpfs", 0, "size=64k") != 0) {
        print_message("tmpfs not mounted (%s): skipped\n", strerror(errno));
        skip();
    }
    snprintf(g_mnt, sizeof g_mnt, "%s", mnt);
    char *err = NULL;
    for (int room = 0; room <= 4096; room += 4096)
        for (size_t i = 0; i < sizeof commands / sizeof *commands; i++) {
            const command *c = &commands[i];
            if (!chosen(c))
                continue;
            char o[800], filler[900];
            snprintf(o, sizeof o, "%s/out.csv", mnt);
            clear_dir(mnt);
            snprintf(filler, sizeof filler, "head -c %d /dev/zero > '%s/filler' 2>/dev/null", 65536 - room, mnt);
            assert_int_equal(system(filler), 0);
            const int rc = run(c, NULL, mnt, o, NULL, &err);
            char ls[2048];
            listing(mnt, ls, sizeof ls);
            if (rc == 0 && room) /* the outputs fitted in the page left */
                print_message("raid %-9s outputs fit in %d bytes: %s\n", c->name, room, ls);
            else if (rc != EXIT_INPUT || strcmp(ls, "filler ") || !strstr(err, "No space left on device"))
                fail_msg("raid %s on a tmpfs with %d bytes left: exit status %d, folder '%s', stderr:\n%s", c->name,
                         room, rc, ls, err);
            free(err);
        }
    clear_dir(mnt);
    g_mnt[0] = 0;
    assert_int_equal(umount(mnt), 0);
}

int main(int argc, char **argv)
{
    if (argc > 1) /* a test by name (a pattern: test_walk, test_full*) */
        cmocka_set_test_filter(argv[1]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_device_walk),
        cmocka_unit_test(test_full_disk),
        cmocka_unit_test_teardown(test_tmpfs, unmount_tmpfs),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
