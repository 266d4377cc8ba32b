#define _POSIX_C_SOURCE 200809L
#include "support.h"
#include "raid.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* RAID_TEST_FILTER=PATTERN runs only the tests whose names match (cmocka's glob: * and ?), in every test
 * program: the ThreadSanitizer build runs the tests of a program that start threads, not the rest
 * (tests/CMakeLists.txt). Set before main, so that no program has to ask for it. */
__attribute__((constructor)) static void t_test_filter(void)
{
    const char *f = getenv("RAID_TEST_FILTER");
    if (f && *f)
        cmocka_set_test_filter(f);
}

static char tmpdir[256];

static void cleanup(void)
{
    if (tmpdir[0]) {
        char cmd[300];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
        if (system(cmd) != 0) { /* best effort */
        }
    }
}

const char *t_tmpdir(void)
{
    if (!tmpdir[0]) {
        const char *base = getenv("TMPDIR");
        snprintf(tmpdir, sizeof tmpdir, "%s/raidtest.XXXXXX", base ? base : "/tmp");
        if (!mkdtemp(tmpdir)) {
            perror("mkdtemp");
            exit(1);
        }
        atexit(cleanup);
    }
    return tmpdir;
}

const char *t_tmppath(const char *name)
{
    static char buf[8][512];
    static int slot;
    char *p = buf[slot++ & 7];
    snprintf(p, 512, "%s/%s", t_tmpdir(), name);
    return p;
}

int t_write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    size_t n = strlen(text);
    int ok = fwrite(text, 1, n, f) == n;
    return (fclose(f) == 0 && ok) ? 0 : -1;
}

char *t_read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0;
    char *s = malloc(cap);
    size_t k;
    while (s && (k = fread(s + n, 1, cap - n - 1, f)) > 0) {
        n += k;
        if (cap - n - 1 == 0) {
            char *t = realloc(s, cap *= 2);
            if (!t) {
                free(s);
                s = NULL;
            }
            s = t;
        }
    }
    fclose(f);
    if (s)
        s[n] = 0;
    return s;
}

int t_file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

int t_run(const char *cmdline, char **out, char **err)
{
    static int seq;
    char o[600], e[600], full[8192];
    snprintf(o, sizeof o, "%s/run%d.out", t_tmpdir(), seq);
    snprintf(e, sizeof e, "%s/run%d.err", t_tmpdir(), seq++);
    snprintf(full, sizeof full, "(%s) >'%s' 2>'%s' </dev/null", cmdline, o, e);
    int st = system(full);
    if (out)
        *out = t_read_file(o);
    if (err)
        *err = t_read_file(e);
    if (st == -1 || !WIFEXITED(st))
        return -1;
    return WEXITSTATUS(st);
}

const char *t_data(const char *name)
{
    static char buf[4][1024];
    static int slot;
    char *p = buf[slot++ & 3];
    snprintf(p, 1024, "%s/%s", RAID_DATA_DIR, name);
    return p;
}

int t_have_opencl(void)
{
    const char *d = t_device();
    if (!strncmp(d, "cuda", 4)) /* cuda, cuda:N */
        return raid_backend_absent(RAID_BACKEND_CUDA) == NULL;
    if (!strcmp(d, "auto"))
        return raid_backend_absent(RAID_BACKEND_CUDA) == NULL || raid_backend_absent(RAID_BACKEND_OPENCL) == NULL;
    return raid_backend_absent(RAID_BACKEND_OPENCL) == NULL;
}

const char *t_device(void)
{
    const char *d = getenv("RAID_TEST_DEVICE");
    return d && *d ? d : "opencl";
}

raid_ctx *t_open_ctx(const char *dev)
{
    raid_ctx *c = NULL;
    if (raid_ctx_create(&c, dev) != RAID_OK)
        fail_msg("raid_ctx_create(%s): %s", dev, raid_errmsg());
    return c;
}

int t_cli(char **out, char **err, const char *fmt, ...)
{
    char args[4096], cmd[8192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    snprintf(cmd, sizeof cmd, "'%s' %s", RAID_CLI, args);
    char *o = NULL, *e = NULL;
    int rc = t_run(cmd, &o, &e);
    if (!o)
        o = calloc(1, 1);
    if (!e)
        e = calloc(1, 1);
    if (out)
        *out = o;
    else
        free(o);
    if (err)
        *err = e;
    else
        free(e);
    return rc;
}
/* data/dem2gbp.csv (`t,ret`, 1,974 rows) into a malloc'd array. */
double *t_read_dem2gbp(size_t *T)
{
    FILE *f = fopen(RAID_DATA_DIR "/dem2gbp.csv", "r");
    assert_non_null(f);
    char line[256];
    assert_non_null(fgets(line, sizeof line, f));
    assert_string_equal(line, "t,ret\n");
    size_t n = 0, cap = 2048;
    double *r = malloc(cap * sizeof *r);
    assert_non_null(r);
    while (fgets(line, sizeof line, f)) {
        const char *c = strchr(line, ',');
        assert_non_null(c);
        char *end;
        const double v = strtod(c + 1, &end);
        assert_true(end != c + 1 && (*end == '\n' || *end == '\0'));
        if (n == cap) {
            cap *= 2;
            r = realloc(r, cap * sizeof *r);
            assert_non_null(r);
        }
        r[n++] = v;
    }
    fclose(f);
    assert_int_equal(n, 1974);
    *T = n;
    return r;
}


void t_sb_add(t_sbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    const int k = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (b->n + (size_t)k + 1 > b->cap) {
        b->cap = 2 * (b->n + (size_t)k + 1);
        b->s = realloc(b->s, b->cap);
        assert_non_null(b->s);
    }
    va_start(ap, fmt);
    vsnprintf(b->s + b->n, (size_t)k + 1, fmt, ap);
    va_end(ap);
    b->n += (size_t)k;
}

uint64_t *t_read_worst_finite(const char *name, size_t *n)
{
    char path[512];
    snprintf(path, sizeof path, "%s/tests/data/f64_worst/%s.wc", RAID_SOURCE_DIR, name);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    size_t cap = 1 << 16, k = 0;
    uint64_t *v = malloc(cap * sizeof *v);
    assert_non_null(v);
    char line[256];
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#' || line[0] == '\n' || strstr(line, "nan") || strstr(line, "inf"))
            continue;
        char *end;
        const double x = strtod(line, &end);
        assert_true(end != line);
        if (k == cap) {
            cap *= 2;
            v = realloc(v, cap * sizeof *v);
            assert_non_null(v);
        }
        v[k++] = t_bits_of(x);
    }
    fclose(f);
    *n = k;
    return v;
}
