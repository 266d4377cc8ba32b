/* Threads, through the public header only: one context per thread (include/raid/core.h), created and used
 * by many threads at once.
 *
 * - test_first_contexts_race: 16 threads released by one barrier create the process's first OpenCL
 *   contexts at the same instant (every fourth lists the devices first) and build a kernel on each. PoCL's device start-up is not safe against
 *   itself: a second thread entering it while the first is still inside returns "success" with no device
 *   (RAID_ENODEV, "no OpenCL device found") or reads a half-initialised device (a segfault in
 *   clGetDeviceInfo), nearly every time on a 2-core machine. The start-up happens once per process, so
 *   each round is a fresh process (this program run again with --race).
 * - test_stress: 16 threads (half on the cpu backend, half on the first OpenCL device) create their
 *   contexts at once in a fresh process (--stress) and each runs realized measures (the table reader and
 *   its threads on data/usdchf_30min.csv), a group-by, a sort and an argsort, a rolling HAR fit with
 *   Newey-West errors and a GARCH fit (Student t), in an order that differs between threads; every output must equal,
 *   byte for byte (the written CSVs) or bit for bit (arrays), what one thread computes alone afterwards
 *   on the same backend.
 *
 * Both run under ThreadSanitizer in the RAID_SANITIZE=thread build (make tsan; docs/testing.md).
 * RAID_THREADS_N sets the thread count (default 16), RAID_THREADS_ROUNDS the fresh processes of the race
 * (default 8). */
#define _POSIX_C_SOURCE 200809L
#include <raid.h>

#include "support.h"

#include <errno.h>
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

extern char **environ;

#define MAX_THREADS 64

static int env_int(const char *name, int dflt, int lo, int hi)
{
    const char *s = getenv(name);
    if (!s || !*s)
        return dflt;
    char *end;
    long v = strtol(s, &end, 10);
    return (*end || v < lo || v > hi) ? dflt : (int)v;
}

static int nthreads(void) { return env_int("RAID_THREADS_N", 16, 2, MAX_THREADS); }

/* ---- the jobs: each writes its whole answer into a memory stream (CSV bytes, or raw array bits) ---- */

typedef struct out_buf {
    char *p;
    size_t n;
} out_buf;

enum { J_REALIZED, J_GROUPBY, J_SORT, J_HAR, J_GARCH, NJOBS };
static const char *const job_names[NJOBS] = {"realized", "groupby", "sort", "har", "garch"};

/* A job's failure: its message into err (the thread's own buffer), status returned. */
#define JOB_FAIL(st, ...)                                                                                       \
    do {                                                                                                        \
        snprintf(err, errlen, __VA_ARGS__);                                                                     \
        status = (st);                                                                                          \
        goto done;                                                                                              \
    } while (0)

static raid_status job_realized(raid_ctx *ctx, FILE *f, char *err, size_t errlen)
{
    raid_status status = RAID_OK, st;
    raid_read_opts ro;
    raid_read_opts_init(&ro);
    ro.sample_us = 1800000000LL; /* 30min */
    raid_reader *rd = NULL;
    raid_realized_table *tab = NULL;
    if ((st = raid_reader_open(&rd, RAID_DATA_DIR "/usdchf_30min.csv", &ro)) != RAID_OK)
        JOB_FAIL(st, "raid_reader_open: %s", raid_errmsg());
    if ((st = raid_realized_table_create(&tab)) != RAID_OK)
        JOB_FAIL(st, "raid_realized_table_create: %s", raid_errmsg());
    for (int done = 0; !done;)
        if ((st = raid_realized_table_add_reader(tab, ctx, NULL, rd, (size_t)1 << 14, &done)) != RAID_OK)
            JOB_FAIL(st, "raid_realized_table_add_reader: %s", raid_ctx_errmsg(ctx));
    if ((st = raid_realized_table_finish(tab)) != RAID_OK || (st = raid_realized_table_write_csv(tab, f)) != RAID_OK)
        JOB_FAIL(st, "raid_realized_table_finish/write_csv: %s", raid_errmsg());
done:
    raid_realized_table_destroy(tab);
    raid_reader_close(rd);
    return status;
}

static raid_status job_groupby(raid_ctx *ctx, FILE *f, char *err, size_t errlen)
{
    raid_status status = RAID_OK, st;
    enum { N = 60000 };
    int64_t *keys = malloc(N * sizeof *keys);
    double *vals = malloc(N * sizeof *vals);
    raid_groupby *g = NULL;
    if (!keys || !vals)
        JOB_FAIL(RAID_ENOMEM, "out of memory");
    uint64_t s = 7;
    for (size_t i = 0; i < N; i++) {
        /* 3,000 keys over a wide range (the device's hash table), values of mixed magnitudes */
        keys[i] = (int64_t)(t_splitmix64(&s) % 3000) * 1000003 - 1500000000LL;
        vals[i] = (t_unif(&s) - 0.5) * (i % 7 == 0 ? 1e12 : 1.0);
    }
    const raid_agg aggs[] = {RAID_AGG_SUM, RAID_AGG_MEAN, RAID_AGG_MIN, RAID_AGG_MAX, RAID_AGG_FIRST, RAID_AGG_LAST,
                             RAID_AGG_COUNT};
    const size_t naggs = sizeof aggs / sizeof *aggs;
    if ((st = raid_groupby_compute(ctx, keys, vals, NULL, N, aggs, naggs, 0, &g)) != RAID_OK)
        JOB_FAIL(st, "raid_groupby_compute: %s", raid_ctx_errmsg(ctx));
    const size_t ng = raid_groupby_ngroups(g);
    fwrite(&ng, sizeof ng, 1, f);
    fwrite(raid_groupby_keys(g), sizeof(int64_t), ng, f);
    fwrite(raid_groupby_counts(g), sizeof(int64_t), ng, f);
    for (size_t j = 0; j < naggs; j++)
        fwrite(raid_groupby_column(g, j), sizeof(double), ng, f);
done:
    raid_groupby_destroy(g);
    free(keys);
    free(vals);
    return status;
}

static raid_status job_sort(raid_ctx *ctx, FILE *f, char *err, size_t errlen)
{
    raid_status status = RAID_OK, st;
    enum { N = 100000 };
    double *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y);
    int64_t *idx = malloc(N * sizeof *idx);
    if (!x || !y || !idx)
        JOB_FAIL(RAID_ENOMEM, "out of memory");
    uint64_t s = 11;
    for (size_t i = 0; i < N; i++) /* ties (a few hundred distinct values in part) for the stable order */
        x[i] = i % 3 ? (t_unif(&s) - 0.5) * 1e3 : (double)(t_splitmix64(&s) % 300) - 150.0;
    if ((st = raid_sort_f64(ctx, x, N, NULL, 0, y)) != RAID_OK)
        JOB_FAIL(st, "raid_sort_f64: %s", raid_ctx_errmsg(ctx));
    if ((st = raid_argsort_f64_i64(ctx, x, N, NULL, RAID_SORT_DESC, idx)) != RAID_OK)
        JOB_FAIL(st, "raid_argsort_f64_i64: %s", raid_ctx_errmsg(ctx));
    fwrite(y, sizeof *y, N, f);
    fwrite(idx, sizeof *idx, N, f);
done:
    free(x);
    free(y);
    free(idx);
    return status;
}

static raid_status job_har(raid_ctx *ctx, FILE *f, char *err, size_t errlen)
{
    raid_status status = RAID_OK, st;
    raid_har_spec *spec = NULL;
    raid_har_input *in = NULL;
    raid_har_result *res = NULL;
    const char *names[6] = {NULL, "DT", "RV5", NULL, NULL, NULL};
    if ((st = raid_har_spec_create(&spec)) != RAID_OK || (st = raid_har_spec_set_se(spec, RAID_SE_NW, -1)) != RAID_OK ||
        (st = raid_har_spec_set_window(spec, RAID_HAR_ROLLING, 500)) != RAID_OK)
        JOB_FAIL(st, "raid_har_spec: %s", raid_errmsg());
    if ((st = raid_har_read_csv(RAID_DATA_DIR "/spy_realized_measures.csv", names, 0, RAID_HAR_RV, &in)) != RAID_OK)
        JOB_FAIL(st, "raid_har_read_csv: %s", raid_errmsg());
    if ((st = raid_har_fit(ctx, spec, in, &res)) != RAID_OK)
        JOB_FAIL(st, "raid_har_fit: %s", raid_ctx_errmsg(ctx));
    if ((st = raid_har_write_coefs(res, f)) != RAID_OK || (st = raid_har_write_forecasts(res, f)) != RAID_OK ||
        (st = raid_har_write_losses(res, f)) != RAID_OK)
        JOB_FAIL(st, "raid_har_write_*: %s", raid_errmsg());
done:
    raid_har_result_destroy(res);
    raid_har_input_destroy(in);
    raid_har_spec_destroy(spec);
    return status;
}

static raid_status job_garch(raid_ctx *ctx, FILE *f, char *err, size_t errlen)
{
    raid_status status = RAID_OK, st;
    raid_garch_spec *spec = NULL;
    raid_garch_input *in = NULL;
    raid_garch_result *res = NULL;
    if ((st = raid_garch_spec_create(&spec)) != RAID_OK ||
        (st = raid_garch_spec_set_dist(spec, RAID_GARCH_T)) != RAID_OK)
        JOB_FAIL(st, "raid_garch_spec: %s", raid_errmsg());
    if ((st = raid_garch_read_csv(RAID_DATA_DIR "/dem2gbp.csv", NULL, RAID_GARCH_RETURNS, &in)) != RAID_OK)
        JOB_FAIL(st, "raid_garch_read_csv: %s", raid_errmsg());
    if ((st = raid_garch_fit(ctx, spec, in, &res)) != RAID_OK)
        JOB_FAIL(st, "raid_garch_fit: %s", raid_ctx_errmsg(ctx));
    if ((st = raid_garch_write_csv(res, f)) != RAID_OK)
        JOB_FAIL(st, "raid_garch_write_csv: %s", raid_errmsg());
done:
    raid_garch_result_destroy(res);
    raid_garch_input_destroy(in);
    raid_garch_spec_destroy(spec);
    return status;
}

static raid_status (*const jobs[NJOBS])(raid_ctx *, FILE *, char *, size_t) = {job_realized, job_groupby, job_sort,
                                                                                job_har, job_garch};

/* Run job j on ctx into *o (malloc'd bytes). */
static raid_status run_job(int j, raid_ctx *ctx, out_buf *o, char *err, size_t errlen)
{
    FILE *f = open_memstream(&o->p, &o->n);
    if (!f) {
        snprintf(err, errlen, "open_memstream: %s", strerror(errno));
        return RAID_ENOMEM;
    }
    raid_status st = jobs[j](ctx, f, err, errlen);
    if (fclose(f) != 0 && st == RAID_OK) {
        snprintf(err, errlen, "writing the memory stream failed");
        st = RAID_EIO;
    }
    return st;
}

/* ---- the children: one fresh process each ---- */

typedef struct worker {
    int id;
    const char *device;
    int run_jobs; /* 0: create the context and build one kernel only (--race) */
    pthread_barrier_t *barrier;
    raid_status status;
    char err[1024];
    out_buf out[NJOBS];
} worker;

static void *worker_main(void *arg)
{
    worker *w = arg;
    raid_ctx *ctx = NULL;
    pthread_barrier_wait(w->barrier);
    if (!w->run_jobs && w->id % 4 == 3) { /* the device list enumerates the platforms too */
        size_t n = 0;
        if ((w->status = raid_devices(NULL, 0, &n)) != RAID_OK || n == 0) {
            snprintf(w->err, sizeof w->err, "raid_devices: %zu devices, %s", n, raid_errmsg());
            w->status = w->status != RAID_OK ? w->status : RAID_ENODEV;
            return NULL;
        }
    }
    w->status = raid_ctx_create(&ctx, w->device);
    if (w->status != RAID_OK) {
        snprintf(w->err, sizeof w->err, "raid_ctx_create(%s): %s", w->device, raid_errmsg());
        return NULL;
    }
    if (!w->run_jobs) { /* one kernel build on each new context: realized measures of one short segment */
        const double r[4] = {1e-3, -2e-3, 5e-4, 1e-3};
        const int64_t off[2] = {0, 4};
        raid_realized m;
        if ((w->status = raid_realized_compute(ctx, r, off, 1, &m)) != RAID_OK)
            snprintf(w->err, sizeof w->err, "raid_realized_compute: %s", raid_ctx_errmsg(ctx));
    } else {
        for (int k = 0; k < NJOBS && w->status == RAID_OK; k++) { /* each thread starts at another job */
            const int j = (w->id + k) % NJOBS;
            char e[900] = "";
            if ((w->status = run_job(j, ctx, &w->out[j], e, sizeof e)) != RAID_OK)
                snprintf(w->err, sizeof w->err, "%s: %s", job_names[j], e);
        }
    }
    raid_ctx_destroy(ctx);
    return NULL;
}

/* Start n workers at one barrier and join them; the number that failed (their messages on stderr). */
static int run_workers(worker *w, int n)
{
    pthread_barrier_t barrier;
    pthread_t th[MAX_THREADS];
    pthread_barrier_init(&barrier, NULL, (unsigned)n);
    for (int i = 0; i < n; i++) {
        w[i].barrier = &barrier;
        if (pthread_create(&th[i], NULL, worker_main, &w[i]) != 0) {
            fprintf(stderr, "pthread_create failed\n");
            exit(3);
        }
    }
    int bad = 0;
    for (int i = 0; i < n; i++) {
        pthread_join(th[i], NULL);
        if (w[i].status != RAID_OK) {
            fprintf(stderr, "thread %d (%s): %s\n", i, w[i].device, w[i].err);
            bad++;
        }
    }
    pthread_barrier_destroy(&barrier);
    return bad;
}

static int child_race(void)
{
    const int n = nthreads();
    worker w[MAX_THREADS];
    memset(w, 0, sizeof w);
    for (int i = 0; i < n; i++)
        w[i] = (worker){.id = i, .device = t_device()};
    const int bad = run_workers(w, n);
    if (bad)
        fprintf(stderr, "%d of %d threads failed to create an OpenCL context and build a kernel\n", bad, n);
    return bad ? 1 : 0;
}

static int child_stress(void)
{
    const int n = nthreads();
    const char *const devices[2] = {"cpu", t_device()};
    static worker w[MAX_THREADS];
    for (int i = 0; i < n; i++)
        w[i] = (worker){.id = i, .device = devices[i % 2], .run_jobs = 1};
    int bad = run_workers(w, n);
    /* the answers of one thread alone, on contexts created after the others are gone */
    for (int d = 0; d < 2; d++) {
        raid_ctx *ctx = NULL;
        if (raid_ctx_create(&ctx, devices[d]) != RAID_OK) {
            fprintf(stderr, "raid_ctx_create(%s) alone: %s\n", devices[d], raid_errmsg());
            return 1;
        }
        for (int j = 0; j < NJOBS; j++) {
            out_buf ref = {NULL, 0};
            char e[900] = "";
            if (run_job(j, ctx, &ref, e, sizeof e) != RAID_OK) {
                fprintf(stderr, "%s on %s alone: %s\n", job_names[j], devices[d], e);
                return 1;
            }
            for (int i = d; i < n; i += 2) {
                if (w[i].status != RAID_OK)
                    continue;
                const out_buf *o = &w[i].out[j];
                if (o->n != ref.n || memcmp(o->p, ref.p, ref.n) != 0) {
                    size_t at = 0;
                    while (at < o->n && at < ref.n && o->p[at] == ref.p[at])
                        at++;
                    fprintf(stderr, "thread %d (%s): %s differs from one thread's answer at byte %zu (%zu bytes, "
                            "alone %zu)\n", i, devices[d], job_names[j], at, o->n, ref.n);
                    bad++;
                }
            }
            free(ref.p);
        }
        raid_ctx_destroy(ctx);
    }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < NJOBS; j++)
            free(w[i].out[j].p);
    if (bad)
        fprintf(stderr, "%d failures among %d threads\n", bad, n);
    return bad ? 1 : 0;
}

/* ---- the tests: each runs this program again, so that the library starts from nothing ---- */

/* Run this program with argument mode; its exit status (-1: killed by a signal, named on stderr). */
static int spawn_self(const char *mode)
{
    char *const argv[] = {(char *)"test_threads", (char *)mode, NULL};
    pid_t pid;
    const int e = posix_spawn(&pid, "/proc/self/exe", NULL, NULL, argv, environ);
    if (e != 0)
        fail_msg("posix_spawn: %s", strerror(e));
    int ws;
    while (waitpid(pid, &ws, 0) < 0)
        if (errno != EINTR)
            fail_msg("waitpid: %s", strerror(errno));
    if (WIFSIGNALED(ws)) {
        fprintf(stderr, "%s: killed by signal %d\n", mode, WTERMSIG(ws));
        return -1;
    }
    return WEXITSTATUS(ws);
}

static void test_first_contexts_race(void **state)
{
    (void)state;
    if (!t_have_opencl())
        skip();
    const int rounds = env_int("RAID_THREADS_ROUNDS", 8, 1, 1000);
    int bad = 0;
    for (int r = 0; r < rounds; r++)
        bad += spawn_self("--race") != 0;
    if (bad)
        fail_msg("%d of %d fresh processes: %d threads creating their first OpenCL contexts at once failed", bad,
                 rounds, nthreads());
}

static void test_stress(void **state)
{
    (void)state;
    if (!t_have_opencl())
        skip();
    assert_int_equal(spawn_self("--stress"), 0);
}

int main(int argc, char **argv)
{
    if (argc == 2 && !strcmp(argv[1], "--race"))
        return child_race();
    if (argc == 2 && !strcmp(argv[1], "--stress"))
        return child_stress();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_first_contexts_race),
        cmocka_unit_test(test_stress),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
