/*
 * The backends and their selection (include/raid/core.h, src/context/ctx.c, src/device/): device strings
 * good and bad; the CUDA backend compiled in and absent at run time (here and in CI: no libcuda.so.1):
 * cuda and cuda:N fail with RAID_ENODEV naming what is missing, auto falls back to OpenCL or the cpu,
 * raid devices says why CUDA is absent (RAID_CUDA_LIB pointing nowhere makes that deterministic on a
 * machine with a driver too); the compiled-kernel cache on disk (hit, miss, corrupt entry, unwritable
 * directory), and its use by the device under test's backend (a new context takes the binary from the disk;
 * a damaged entry or one the driver refuses is rebuilt; the same results). Runs under ASan in the asan build
 * (no leak on the absent path).
 */
#define _POSIX_C_SOURCE 200809L
#include "support.h"
#include "raid.h"
#include "device/backend.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <dirent.h>

/* Status of raid_ctx_create(spec); the context destroyed. */
static raid_status create(const char *spec, raid_backend *backend)
{
    raid_ctx *c = NULL;
    const raid_status s = raid_ctx_create(&c, spec);
    if (s == RAID_OK) {
        if (backend)
            *backend = raid_ctx_backend(c);
        raid_ctx_destroy(c);
    } else {
        assert_null(c);
    }
    return s;
}

static void test_bad_device_strings(void **state)
{
    (void)state;
    /* " 0" and "+0" were taken by sscanf's %d before the strict parser ("opencl: 0.0" opened 0.0) */
    static const char *const bad[] = {"gpu", "CUDA", "cuda0", "cuda:", "cuda:-1", "cuda:+0", "cuda: 0", "cuda:0 ",
                                      "cuda:0.0", "cuda:1x", "cuda:1234567", "opencl:", "opencl:0", "opencl:0.",
                                      "opencl:.0", "opencl: 0.0", "opencl:+0.0", "opencl:0.0.0", "opencl:0. 0",
                                      "opencl0.0", "cpu:0", "auto:0", " cpu"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        const raid_status s = create(bad[i], NULL);
        if (s != RAID_EINVAL)
            fail_msg("'%s' gave %s: %s", bad[i], raid_strerror(s), raid_errmsg());
        assert_non_null(strstr(raid_errmsg(), "unknown device"));
        assert_non_null(strstr(raid_errmsg(), "(expected " RAID_DEVICE_FORMS ")"));
    }
}

static void test_good_device_strings(void **state)
{
    (void)state;
    raid_backend b;
    assert_int_equal(create("cpu", &b), RAID_OK);
    assert_int_equal(b, RAID_BACKEND_CPU);
    /* well-formed: opened, or refused for want of the device, never "unknown device" */
    static const char *const good[] = {"opencl", "opencl:0.0", "opencl:3.7", "cuda", "cuda:0", "cuda:15", "auto"};
    for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
        const raid_status s = create(good[i], &b);
        if (s != RAID_OK && s != RAID_ENODEV)
            fail_msg("'%s' gave %s: %s", good[i], raid_strerror(s), raid_errmsg());
        if (s == RAID_OK)
            assert_int_equal(b, !strncmp(good[i], "cuda", 4) ? RAID_BACKEND_CUDA
                                : !strncmp(good[i], "opencl", 6) ? RAID_BACKEND_OPENCL : b);
    }
}

static void test_cuda_absent(void **state)
{
    (void)state;
    const char *why = raid_backend_absent(RAID_BACKEND_CUDA);
    if (!why) {
        /* a machine with CUDA: only a device that is not there */
        assert_int_equal(create("cuda:99", NULL), RAID_ENODEV);
        assert_non_null(strstr(raid_errmsg(), "no CUDA device 99"));
        skip();
    }
    assert_true(strstr(why, "libcuda.so.1") || strstr(why, "NVRTC") || strstr(why, "no CUDA device"));
    static const char *const specs[] = {"cuda", "cuda:0", "cuda:3"};
    for (size_t i = 0; i < 3; i++) {
        assert_int_equal(create(specs[i], NULL), RAID_ENODEV);
        assert_non_null(strstr(raid_errmsg(), "CUDA is not available: "));
        assert_non_null(strstr(raid_errmsg(), why));
    }
    /* auto falls back to OpenCL's first GPU or the cpu, silently */
    raid_backend b;
    assert_int_equal(create("auto", &b), RAID_OK);
    assert_int_not_equal(b, RAID_BACKEND_CUDA);
    /* the device list has no CUDA entry */
    raid_device_info dev[64];
    size_t n = 0;
    assert_int_equal(raid_devices(dev, 64, &n), RAID_OK);
    for (size_t i = 0; i < n && i < 64; i++) {
        assert_int_equal(dev[i].backend, RAID_BACKEND_OPENCL);
        char spec[32];
        snprintf(spec, sizeof spec, "opencl:%d.%d", dev[i].platform, dev[i].device);
        assert_string_equal(dev[i].spec, spec);
    }
    assert_null(raid_backend_absent(RAID_BACKEND_CPU));
}

/* raid devices and a CUDA device string in processes where libcuda.so.1 cannot be loaded (RAID_CUDA_LIB
 * names a file that does not exist), or NVRTC cannot (RAID_NVRTC_LIB): deterministic with a driver too. */
static void test_cli_absent(void **state)
{
    (void)state;
    char *out = NULL, *err = NULL;
    int rc = t_run("env RAID_CUDA_LIB=/nonexistent/libcuda.so.1 " RAID_CLI " devices", &out, &err);
    assert_int_equal(rc, 0);
    assert_non_null(strstr(out, "(no CUDA: libcuda.so.1 not found: RAID_CUDA_LIB=/nonexistent/libcuda.so.1 "
                                "cannot be loaded)"));
    assert_non_null(strstr(out, "\ncpu "));
    free(out), free(err);
    rc = t_run("env RAID_CUDA_LIB=/nonexistent/libcuda.so.1 " RAID_CLI " realized --device cuda:0 --input returns "
               RAID_DATA_DIR "/dem2gbp.csv", &out, &err);
    assert_int_equal(rc, 4);
    assert_non_null(strstr(err, "CUDA is not available: libcuda.so.1 not found"));
    free(out), free(err);
    /* without NVRTC: a driver alone cannot compile the kernels (here the driver is missing first) */
    rc = t_run("env RAID_NVRTC_LIB=/nonexistent/libnvrtc.so " RAID_CLI " realized --device cuda --input returns "
               RAID_DATA_DIR "/dem2gbp.csv", &out, &err);
    assert_int_equal(rc, 4);
    assert_true(strstr(err, "CUDA is not available: ") &&
                (strstr(err, "NVRTC not found: RAID_NVRTC_LIB=/nonexistent") || strstr(err, "libcuda.so.1")));
    free(out), free(err);
}

/* ---- the disk cache ---- */

static char g_dir[256];

static int cache_setup(void **state)
{
    (void)state;
    snprintf(g_dir, sizeof g_dir, "/tmp/raid-kcache-test-%ld", (long)getpid());
    setenv("RAID_CACHE_DIR", g_dir, 1);
    return 0;
}

static int cache_teardown(void **state)
{
    (void)state;
    char cmd[320];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    if (system(cmd) != 0)
        return -1;
    unsetenv("RAID_CACHE_DIR");
    return 0;
}

/* The entries in the cache directory (names into names[0..]), and whether any temporary file is left. */
static int entries(char names[][600], int cap, int *tmp_left)
{
    int n = 0;
    *tmp_left = 0;
    DIR *d = opendir(g_dir);
    if (!d)
        return 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        if (strstr(e->d_name, ".tmp."))
            (*tmp_left)++;
        else if (n < cap)
            snprintf(names[n++], 600, "%s/%.300s", g_dir, e->d_name);
    }
    closedir(d);
    return n;
}

static void test_cache_hit_miss(void **state)
{
    (void)state;
    const char bin[] = "//\n.version 8.0\n.target sm_90\n";
    void *got = NULL;
    size_t len = 0;
    assert_int_equal(raidKcacheLoad("cuda\nkey A", &got, &len), 0); /* miss: nothing stored */
    assert_null(got);
    assert_int_equal(raidKcacheStore("cuda\nkey A", bin, sizeof bin), 0);
    assert_int_equal(raidKcacheLoad("cuda\nkey A", &got, &len), 1); /* hit */
    assert_int_equal(len, sizeof bin);
    assert_memory_equal(got, bin, sizeof bin);
    free(got);
    assert_int_equal(raidKcacheLoad("cuda\nkey B", &got, &len), 0); /* another key: a miss */
    assert_int_equal(raidKcacheLoad("cuda\nkey A ", &got, &len), 0);
    char names[4][600];
    int tmp;
    assert_int_equal(entries(names, 4, &tmp), 1);
    assert_int_equal(tmp, 0); /* the temporary file was renamed */
    /* a second store replaces the entry */
    assert_int_equal(raidKcacheStore("cuda\nkey A", "xyz", 3), 0);
    assert_int_equal(raidKcacheLoad("cuda\nkey A", &got, &len), 1);
    assert_int_equal(len, 3);
    assert_memory_equal(got, "xyz", 3);
    free(got);
}

/* Write bytes over path at offset (or truncate it to offset when bytes is NULL). */
static void damage(const char *path, long offset, const char *bytes)
{
    if (!bytes) {
        assert_int_equal(truncate(path, offset), 0);
        return;
    }
    FILE *f = fopen(path, "r+b");
    assert_non_null(f);
    assert_int_equal(fseek(f, offset, SEEK_SET), 0);
    assert_int_equal(fwrite(bytes, 1, strlen(bytes), f), strlen(bytes));
    fclose(f);
}

static void test_cache_corrupt(void **state)
{
    (void)state;
    const char *key = "cuda\ncorrupt";
    static const char bin[] = "0123456789abcdef0123456789abcdef";
    char names[4][600];
    int tmp;
    void *got = NULL;
    size_t len = 0;
    /* each kind of damage: a flipped binary byte (checksum), a flipped key byte, the magic, a length,
     * a truncated file, a longer file, an empty file */
    const struct { long off; const char *bytes; } cases[] = {
        {32 + 12 + 5, "X"}, {32 + 2, "X"}, {0, "RAIDKC2"}, {16, "\x7f"}, {40, NULL}, {0, NULL}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        assert_int_equal(raidKcacheStore(key, bin, sizeof bin - 1), 0);
        assert_int_equal(entries(names, 4, &tmp), 1);
        damage(names[0], cases[i].off, cases[i].bytes);
        assert_int_equal(raidKcacheLoad(key, &got, &len), 0);
        assert_null(got);
        /* the rebuild's store overwrites the damaged entry, which then loads */
        assert_int_equal(raidKcacheStore(key, bin, sizeof bin - 1), 0);
        assert_int_equal(raidKcacheLoad(key, &got, &len), 1);
        free(got);
        got = NULL;
    }
    /* an entry of another key under this key's name (a hash collision): a miss */
    assert_int_equal(raidKcacheStore("cuda\nother", bin, sizeof bin - 1), 0);
    assert_int_equal(entries(names, 4, &tmp), 2);
    char me[600], other[600];
    raidKcacheLoad(key, &got, &len);
    free(got);
    got = NULL;
    /* find which file is key's: damage one, see which load fails */
    damage(names[0], 0, "XXXX");
    const int first_is_key = raidKcacheLoad(key, &got, &len) == 0;
    free(got);
    got = NULL;
    snprintf(me, sizeof me, "%s", names[first_is_key ? 0 : 1]);
    snprintf(other, sizeof other, "%s", names[first_is_key ? 1 : 0]);
    assert_int_equal(raidKcacheStore(key, bin, sizeof bin - 1), 0);
    assert_int_equal(raidKcacheStore("cuda\nother", bin, sizeof bin - 1), 0);
    assert_int_equal(rename(other, me), 0);
    assert_int_equal(raidKcacheLoad(key, &got, &len), 0);
    assert_null(got);
}

static void test_cache_unwritable(void **state)
{
    (void)state;
    /* a directory below a regular file cannot be made (root ignores permissions, not ENOTDIR) */
    char file[300], dir[320];
    snprintf(file, sizeof file, "%s-file", g_dir);
    FILE *f = fopen(file, "w");
    assert_non_null(f);
    fclose(f);
    snprintf(dir, sizeof dir, "%s/sub", file);
    setenv("RAID_CACHE_DIR", dir, 1);
    void *got = NULL;
    size_t len = 0;
    assert_int_equal(raidKcacheStore("cuda\nk", "abc", 3), -1);
    assert_int_equal(raidKcacheLoad("cuda\nk", &got, &len), 0);
    setenv("RAID_CACHE_DIR", "off", 1); /* off: no cache at all */
    assert_int_equal(raidKcacheStore("cuda\nk", "abc", 3), -1);
    char d[64];
    raidKcacheDir(d, sizeof d);
    assert_string_equal(d, "");
    unsetenv("RAID_CACHE_DIR"); /* the defaults: XDG_CACHE_HOME, then HOME */
    setenv("XDG_CACHE_HOME", "/x/cache", 1);
    raidKcacheDir(d, sizeof d);
    assert_string_equal(d, "/x/cache/raid");
    unsetenv("XDG_CACHE_HOME");
    if (getenv("HOME")) {
        char want[600];
        snprintf(want, sizeof want, "%s/.cache/raid", getenv("HOME"));
        char got_dir[600];
        raidKcacheDir(got_dir, sizeof got_dir);
        assert_string_equal(got_dir, want);
    }
    setenv("RAID_CACHE_DIR", g_dir, 1);
    unlink(file);
}

/* x * y + sqrt(|x|) of n values on a new context of the device under test into out; the context's kernel
 * cache statistics into st. */
static void eval_on_new_ctx(const double *x, const double *y, size_t n, double *out, RaidKernelCacheStats *st)
{
    raid_ctx *c = t_open_ctx(t_device());
    const char *names[] = {"x", "y"};
    const double *in[] = {x, y};
    raid_f64_expr *e = NULL;
    assert_int_equal(raid_f64_expr_compile(c, "x * y + sqrt(abs(x))", names, 2, &e), RAID_OK);
    assert_int_equal(raid_f64_eval(c, e, in, n, out), RAID_OK);
    raid_f64_expr_free(e);
    raidKernelCacheGetStats(c, st);
    raid_ctx_destroy(c);
}

/* The device's backend and the disk cache: the first context compiles and stores its program, a second takes
 * it from the disk (the compiler not run: NVIDIA's OpenCL took seconds a program, in every new context), and
 * entries damaged on disk, or intact on disk but refused by the driver, are rebuilt and overwritten; the
 * results are the same bits each time. */
static void test_cache_device(void **state)
{
    (void)state;
    if (!t_have_opencl())
        skip();
    enum { N = 1000 };
    double x[N], y[N], first[N], out[N];
    uint64_t seed = 7;
    for (int i = 0; i < N; i++)
        x[i] = t_unif(&seed) * 8 - 4, y[i] = t_unif(&seed) * 8 - 4;
    RaidKernelCacheStats st;
    char names[16][600];
    int tmp;
    eval_on_new_ctx(x, y, N, first, &st);
    assert_true(st.builds >= 1);
    assert_int_equal(st.disk_hits, 0); /* an empty directory */
    const int n = entries(names, 16, &tmp);
    assert_true(n >= 1);
    assert_int_equal(tmp, 0);
    eval_on_new_ctx(x, y, N, out, &st);
    assert_int_equal(st.disk_hits, st.builds); /* every program from the disk */
    assert_memory_equal(out, first, sizeof out);
    assert_int_equal(entries(names, 16, &tmp), n);
    /* damaged on disk: the last byte of every entry flipped (its checksum fails): rebuilt, overwritten */
    for (int i = 0; i < n; i++) {
        FILE *f = fopen(names[i], "r+b");
        assert_non_null(f);
        assert_int_equal(fseek(f, -1, SEEK_END), 0);
        const int c = fgetc(f);
        assert_int_equal(fseek(f, -1, SEEK_END), 0);
        fputc(c ^ 0x5A, f);
        fclose(f);
    }
    eval_on_new_ctx(x, y, N, out, &st);
    assert_int_equal(st.disk_hits, 0);
    assert_memory_equal(out, first, sizeof out);
    eval_on_new_ctx(x, y, N, out, &st);
    assert_int_equal(st.disk_hits, st.builds); /* the rebuilt entries serve again */
    /* intact on disk but not a binary the driver takes: each entry's key kept, its binary replaced */
    for (int i = 0; i < n; i++) {
        FILE *f = fopen(names[i], "rb");
        assert_non_null(f);
        unsigned char head[32];
        assert_int_equal(fread(head, 1, 32, f), 32);
        uint64_t klen;
        memcpy(&klen, head + 8, 8);
        char *key = malloc(klen + 1);
        assert_non_null(key);
        assert_int_equal(fread(key, 1, klen, f), klen);
        key[klen] = 0;
        fclose(f);
        assert_int_equal(raidKcacheStore(key, "not a program", 13), 0);
        free(key);
    }
    eval_on_new_ctx(x, y, N, out, &st);
    assert_int_equal(st.disk_hits, 0);
    assert_memory_equal(out, first, sizeof out);
    eval_on_new_ctx(x, y, N, out, &st);
    assert_int_equal(st.disk_hits, st.builds);
    assert_memory_equal(out, first, sizeof out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_device_strings),
        cmocka_unit_test(test_good_device_strings),
        cmocka_unit_test(test_cuda_absent),
        cmocka_unit_test(test_cli_absent),
        cmocka_unit_test_setup_teardown(test_cache_hit_miss, cache_setup, cache_teardown),
        cmocka_unit_test_setup_teardown(test_cache_corrupt, cache_setup, cache_teardown),
        cmocka_unit_test_setup_teardown(test_cache_unwritable, cache_setup, cache_teardown),
        cmocka_unit_test_setup_teardown(test_cache_device, cache_setup, cache_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
