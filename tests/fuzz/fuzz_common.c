/* The harnesses' shared helper (fuzz_common.h). */
/* _GNU_SOURCE (memfd_create, F_SETPIPE_SZ) comes from tests/fuzz/CMakeLists.txt */
#include "fuzz_common.h"

#include "io/table.h"
#include "io/tz.h"
#include "raid.h"

#include <errno.h>
#include <fcntl.h>
#include <omp.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* The descriptor number the input's file gets in every run (its path is in the messages). */
#define FZ_FD 900

unsigned fz_u8(fz_in *in)
{
    if (in->n == 0)
        return 0;
    in->n--;
    return *in->p++;
}

const char *fz_pick(fz_in *in, const char *const *v, size_t n) { return v[fz_u8(in) % n]; }

fz_io fz_io_of(unsigned b)
{
    static const size_t blocks[8] = {0, 1, 2, 7, 16, 64, 97, 512};
    fz_io io = {blocks[b & 7], (b & 8) ? 2 : 1, (b >> 4) & 1, (b >> 5) & 1};
    return io;
}

fz_io fz_io_ref(void) { return fz_io_of(0); }

void fz_io_apply(const fz_io *io) { raidTableTestTuning(io->block, io->threads, io->libcsv_only); }

static void write_all(int fd, const uint8_t *p, size_t n)
{
    while (n > 0) {
        const ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return; /* EPIPE: the reader stopped early (SIGPIPE is ignored) */
        }
        p += w;
        n -= (size_t)w;
    }
}

static void *writer_main(void *arg)
{
    fz_file *f = arg;
    write_all(f->writer_fd, f->data, f->n);
    close(f->writer_fd);
    return NULL;
}

/* fd moved to FZ_FD. */
static int to_fixed(int fd)
{
    if (fd == FZ_FD)
        return fd;
    if (dup2(fd, FZ_FD) < 0)
        fz_fail("dup2: %s", strerror(errno));
    close(fd);
    return FZ_FD;
}

void fz_file_open(fz_file *f, const uint8_t *data, size_t n, int stream)
{
    memset(f, 0, sizeof *f);
    f->data = data;
    f->n = n;
    snprintf(f->path, sizeof f->path, "/proc/self/fd/%d", FZ_FD);
    if (!stream) {
        int fd = memfd_create("fuzz", MFD_CLOEXEC);
        if (fd < 0)
            fz_fail("memfd_create: %s", strerror(errno));
        write_all(fd, data, n);
        f->fd = to_fixed(fd);
        return;
    }
    int p[2];
    if (pipe(p) != 0)
        fz_fail("pipe: %s", strerror(errno));
    const int cap = fcntl(p[1], F_SETPIPE_SZ, n < 4096 ? 4096 : (int)(n < (1u << 20) ? n : (1u << 20)));
    f->fd = to_fixed(p[0]);
    if (cap >= 0 && (size_t)cap >= n) {
        write_all(p[1], data, n);
        close(p[1]);
        return;
    }
    pthread_t th;
    f->writer_fd = p[1];
    if (pthread_create(&th, NULL, writer_main, f) != 0)
        fz_fail("pthread_create failed");
    f->writer = (unsigned long)th;
    f->has_writer = 1;
}

void fz_file_close(fz_file *f)
{
    close(f->fd); /* first: a writer blocked on a full pipe then fails with EPIPE */
    if (f->has_writer)
        pthread_join((pthread_t)f->writer, NULL);
    f->has_writer = 0;
}

void fz_add(fz_buf *b, const void *p, size_t n)
{
    if (b->n + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->n + n + 1)
            cap *= 2;
        char *q = realloc(b->s, cap);
        if (!q)
            fz_fail("out of memory");
        b->s = q;
        b->cap = cap;
    }
    if (n)
        memcpy(b->s + b->n, p, n);
    b->n += n;
    b->s[b->n] = 0;
}

void fz_addf(fz_buf *b, const char *fmt, ...)
{
    char tmp[8192];
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (k < 0)
        return;
    fz_add(b, tmp, (size_t)k < sizeof tmp ? (size_t)k : sizeof tmp - 1);
}

void fz_free(fz_buf *b)
{
    free(b->s);
    memset(b, 0, sizeof *b);
}

static void show_around(const char *name, const fz_buf *x, size_t at)
{
    const size_t from = at > 200 ? at - 200 : 0, to = at + 200 < x->n ? at + 200 : x->n;
    fprintf(stderr, "---- %s (%zu bytes), bytes %zu..%zu:\n", name, x->n, from, to);
    fwrite(x->s + from, 1, to - from, stderr);
    fprintf(stderr, "\n----\n");
}

void fz_same(const char *what, const fz_buf *a, const fz_buf *b)
{
    const size_t n = a->n < b->n ? a->n : b->n;
    size_t i = 0;
    while (i < n && a->s[i] == b->s[i])
        i++;
    if (i == n && a->n == b->n)
        return;
    fprintf(stderr, "fuzz: %s: the two runs differ at byte %zu\n", what, i);
    show_around("reference run", a, i);
    show_around("fuzzed run", b, i);
    abort();
}

static void one_run(const uint8_t *data, size_t n, fz_job job, const void *opts, const fz_io *io, fz_buf *r)
{
    fz_io_apply(io);
    fz_file f;
    fz_file_open(&f, data, n, io->stream);
    job(f.path, opts, r);
    fz_file_close(&f);
}

void fz_two_runs(const char *what, const uint8_t *data, size_t n, fz_job job, const void *ref_opts, const fz_io *io,
                 const void *opts)
{
    fz_buf ref = {0}, got = {0};
    const fz_io io0 = fz_io_ref();
    one_run(data, n, job, ref_opts, &io0, &ref);
    one_run(data, n, job, opts, io, &got);
    fz_same(what, &ref, &got);
    fz_free(&ref);
    fz_free(&got);
}

FILE *fz_out_open(char **buf, size_t *len)
{
    *buf = NULL;
    *len = 0;
    FILE *f = open_memstream(buf, len);
    if (!f)
        fz_fail("open_memstream failed");
    return f;
}

void fz_out_close(FILE *f, char **buf, size_t *len, fz_buf *b)
{
    fclose(f);
    fz_add(b, *buf, *len);
    free(*buf);
    *buf = NULL;
    *len = 0;
}

void fz_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "fuzz: invariant failed: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    abort();
}

static raid_ctx *cpu_ctx;

static void cpu_free(void) { raid_ctx_destroy(cpu_ctx); }

raid_ctx *fz_cpu(void)
{
    if (!cpu_ctx) {
        if (raid_ctx_create(&cpu_ctx, "cpu") != RAID_OK)
            fz_fail("raid_ctx_create(cpu): %s", raid_errmsg());
        atexit(cpu_free);
    }
    return cpu_ctx;
}

void fz_init(void)
{
    signal(SIGPIPE, SIG_IGN);
    if (omp_get_max_threads() > 2)
        omp_set_num_threads(2);
}

/* The instants of years 0001 to 9999 local time, with a day of slack for offsets. */
#define FZ_T_MIN (INT64_C(-62135596800) - 2 * 86400)
#define FZ_T_MAX (INT64_C(253402300799) + 2 * 86400)

#define ISOLATED (2 * 86400 + 3 * 3600) /* more than the largest difference of two offsets */

static int32_t off_at(const RaidIoTz *tz, int64_t t) { return raidIoTzOffset(tz, t, NULL, NULL); }

/* raidIoTzInstant of local time w (seconds): its local time is w, or w is skipped by the change at the
 * instant returned. */
static void check_instant(const RaidIoTz *tz, int64_t w)
{
    if (w < FZ_T_MIN + 2 * 86400 || w > FZ_T_MAX - 2 * 86400)
        return;
    const int64_t i_us = raidIoTzInstant(tz, w * RAID_US_PER_S);
    FZ_CHECK(i_us % RAID_US_PER_S == 0, "instant of local %lld s: %lld us, not whole seconds", (long long)w,
             (long long)i_us);
    const int64_t i = i_us / RAID_US_PER_S;
    const int32_t o = off_at(tz, i);
    if (i + o == w)
        return;
    const int32_t before = off_at(tz, i - 1);
    FZ_CHECK(before != o && i + before <= w && w < i + o,
             "local %lld s: instant %lld s (offset %d, %d the second before) is neither it nor the change that "
             "skips it",
             (long long)w, (long long)i, (int)o, (int)before);
}

/* From instant t on, at most max_steps intervals. */
static void walk_tz(const RaidIoTz *tz, int64_t t, size_t max_steps)
{
    for (size_t step = 0; step < max_steps && t <= FZ_T_MAX; step++) {
        int64_t lo, hi;
        const int32_t off = raidIoTzOffset(tz, t, &lo, &hi);
        FZ_CHECK(off > -90000 && off < 93600, "offset %d s at %lld", (int)off, (long long)t);
        FZ_CHECK(lo <= t && t < hi, "offset at %lld: interval [%lld, %lld) does not hold it", (long long)t,
                 (long long)lo, (long long)hi);
        int64_t lo2, hi2;
        if (lo > FZ_T_MIN)
            FZ_CHECK(raidIoTzOffset(tz, lo, &lo2, &hi2) == off && lo2 == lo,
                     "offset %d at %lld, interval [%lld, %lld): at its start %d from %lld", (int)off, (long long)t,
                     (long long)lo, (long long)hi, (int)off_at(tz, lo), (long long)lo2);
        if (hi <= FZ_T_MAX)
            FZ_CHECK(off_at(tz, hi - 1) == off, "offset %d at %lld, interval [%lld, %lld): %d at its end",
                     (int)off, (long long)t, (long long)lo, (long long)hi, (int)off_at(tz, hi - 1));
        if (hi > FZ_T_MAX)
            break;
        /* local times around the change at hi, where it is the only one for two days (offsets differ by
         * less than 2 days): "the instant of the switch" of a skipped local time (tz.h) presumes one
         * switch; changes hours apart occur only in fuzzed files */
        int64_t lo3, hi3;
        const int32_t o2 = raidIoTzOffset(tz, hi, &lo3, &hi3);
        if ((lo < FZ_T_MIN || hi - lo >= ISOLATED) && (hi3 > FZ_T_MAX || hi3 - hi >= ISOLATED)) {
            const int64_t ws[8] = {hi + off - 1, hi + off, hi + off + 1, hi + o2 - 1, hi + o2, hi + o2 + 1,
                                   hi + (off + o2) / 2, hi + (off < o2 ? off : o2) - 3600};
            for (int j = 0; j < 8; j++)
                check_instant(tz, ws[j]);
        }
        t = hi;
    }
}

void fz_check_tz(const RaidIoTz *tz, size_t max_steps)
{
    /* the first years, the years of the tz database's data, the last years */
    static const int64_t from[] = {FZ_T_MIN, INT64_C(-2208988800) /* 1900 */, INT64_C(-157766400) /* 1965 */,
                                   INT64_C(1577836800) /* 2020 */, INT64_C(4102444800) /* 2100 */,
                                   INT64_C(253086681600) /* 9990 */};
    for (size_t i = 0; i < sizeof from / sizeof *from; i++)
        walk_tz(tz, from[i], max_steps);
}
