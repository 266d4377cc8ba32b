/*
 * The CUDA backend at run time (src/device/device_cuda.c) through device.h, where CUDA can run (the driver's
 * libcuda.so.1, NVRTC, a device): buffers (upload, read-back, blocking and not, fill with 1-, 4- and 8-byte
 * patterns, device copy), events with their timing, page-locked staging and the staged upload, the fault
 * switch's points and their statuses; once kernels/raid_compat.h has its CUDA branch, kernels: arguments of
 * every type by index (local memory as an offset into the launch's dynamic shared memory), a grid from
 * global and local sizes (and from no local size), the errors (a global size that is not a multiple of the
 * block, an argument not set, no such kernel, a build error with NVRTC's log) and the disk cache (an entry
 * written, then used by a new context). Exits 77 (ctest's skip) where CUDA cannot run: here and in CI.
 * test_cuda_fake runs it over a stand-in for the driver (tests/tools/fake_libcuda.c) where NVRTC is
 * installed: the host side of the backend, no kernel.
 */
#define _POSIX_C_SOURCE 200809L
#include "support.h"
#include "raid.h"
#include "raid/tuning.h"
#include "device/device.h"
#include "device/kernels_embedded.h"

#include <dirent.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void ok(raid_ctx *ctx, raid_status s, const char *what)
{
    if (s != RAID_OK)
        fail_msg("%s: %s", what, raid_ctx_errmsg(ctx));
}

static void expect_no_usage(raid_ctx *ctx)
{
    RaidDevUsage u;
    raidDevGetUsage(ctx, &u);
    assert_int_equal(u.bufs, 0);
    assert_int_equal(u.host, 0);
    assert_int_equal(u.holds, 0);
    assert_int_equal(u.events, 0);
    assert_int_equal(u.wrapped, 0);
}

static void test_open(void **state)
{
    (void)state;
    raid_ctx *ctx = t_open_ctx("cuda:0");
    assert_int_equal(raid_ctx_backend(ctx), RAID_BACKEND_CUDA);
    assert_non_null(strstr(raid_ctx_device_name(ctx), "(CUDA "));
    assert_true(raidDevMaxWg(ctx) >= 256 && raidDevLocalMem(ctx) >= 16384 && raidDevMaxAlloc(ctx) > 0);
    raid_ctx_destroy(ctx);
    raid_device_info dev[64];
    size_t n = 0;
    assert_int_equal(raid_devices(dev, 64, &n), RAID_OK);
    int seen = 0;
    for (size_t i = 0; i < n && i < 64; i++)
        if (dev[i].backend == RAID_BACKEND_CUDA && !strcmp(dev[i].spec, "cuda:0")) {
            seen = 1;
            assert_true(dev[i].cc_major >= 3 && dev[i].global_mem_bytes > 0 && dev[i].compute_units > 0);
        }
    assert_true(seen);
    assert_int_equal(raid_ctx_create(&ctx, "cuda:64"), RAID_ENODEV);
    assert_non_null(strstr(raid_errmsg(), "no CUDA device 64"));
}

static void test_buffers(void **state)
{
    (void)state;
    raid_ctx *ctx = t_open_ctx("cuda");
    enum { N = 100000 };
    float *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b);
    for (int i = 0; i < N; i++)
        a[i] = (float)i * 0.5f;
    RaidBuf x = {0}, y = {0}, l = {0}, c = {0};
    ok(ctx, raidBufAcquire(ctx, RAID_DT_FLOAT, N, &x), "acquire");
    ok(ctx, raidBufAcquire(ctx, RAID_DT_FLOAT, N, &y), "acquire");
    RaidEvent ev = {0};
    ok(ctx, raidBufUpload(ctx, &x, 0, N, a, 0, &ev), "upload");
    double t = 0;
    ok(ctx, raidEventFinish(ctx, &ev, &t), "event");
    assert_true(t >= 0 && t < 10);
    ok(ctx, raidBufCopy(ctx, &y, &x, N, NULL), "copy");
    ok(ctx, raidBufDownload(ctx, &y, 10, N - 10, b, 1, NULL), "download");
    assert_memory_equal(b, a + 10, (N - 10) * sizeof *a);
    /* fills: 4-byte, 8-byte (two different words), 1-byte patterns */
    const float v = -3.25f;
    ok(ctx, raidBufFill(ctx, &y, &v, NULL), "fill");
    ok(ctx, raidBufDownload(ctx, &y, 0, N, b, 1, NULL), "download");
    for (int i = 0; i < N; i++)
        assert_true(b[i] == v);
    ok(ctx, raidBufAcquire(ctx, RAID_DT_LONG, 1001, &l), "acquire");
    const int64_t w = (int64_t)0x0123456789abcdefLL;
    ok(ctx, raidBufFill(ctx, &l, &w, NULL), "fill long");
    int64_t *lw = malloc(1001 * sizeof *lw);
    ok(ctx, raidBufDownload(ctx, &l, 0, 1001, lw, 1, NULL), "download");
    for (int i = 0; i < 1001; i++)
        assert_true(lw[i] == w);
    ok(ctx, raidBufAcquire(ctx, RAID_DT_BYTE, 77, &c), "acquire");
    const unsigned char byte = 0xA5;
    ok(ctx, raidBufFill(ctx, &c, &byte, NULL), "fill byte");
    unsigned char cb[77];
    ok(ctx, raidBufDownload(ctx, &c, 0, 77, cb, 1, NULL), "download");
    for (int i = 0; i < 77; i++)
        assert_int_equal(cb[i], 0xA5);
    /* the staged upload of 3 MiB (page-locked staging, pieces) */
    const size_t big = 3 << 18;
    float *s = malloc(big * sizeof *s), *r = malloc(big * sizeof *r);
    for (size_t i = 0; i < big; i++)
        s[i] = (float)(i % 1013) - 7.0f;
    RaidBuf z = {0};
    ok(ctx, raidBufAcquire(ctx, RAID_DT_FLOAT, big, &z), "acquire");
    ok(ctx, raidBufUploadStaged(ctx, &z, 0, big, s), "staged");
    ok(ctx, raidBufDownload(ctx, &z, 0, big, r, 1, NULL), "download");
    assert_memory_equal(r, s, big * sizeof *s);
    void *h = NULL;
    ok(ctx, raidHostAcquire(ctx, 1 << 20, &h), "host");
    raidHostRelease(ctx, h);
    ok(ctx, raidDevFinish(ctx), "finish");
    raidBufRelease(ctx, &x), raidBufRelease(ctx, &y), raidBufRelease(ctx, &l), raidBufRelease(ctx, &c);
    raidBufRelease(ctx, &z);
    expect_no_usage(ctx);
    free(a), free(b), free(lw), free(s), free(r);
    raid_ctx_destroy(ctx);
}

static void expect_refused(raid_ctx *ctx, const void *p, size_t bytes, const char *words)
{
    RaidMemKind k = RAID_MEM_DEVICE;
    assert_int_equal(raidMemKindOf(ctx, p, bytes, 8, "x", &k), RAID_EINVAL);
    assert_int_equal(k, RAID_MEM_HOST);
    const char *m = ctx ? raid_ctx_errmsg(ctx) : raid_errmsg();
    if (!strstr(m, words))
        fail_msg("expected '%s' in: %s", words, m);
}

/* The caller's memory: classification (raidMemKindOf, raid_memory_of), wrapping without a copy, the input
 * and output helpers, and the refusals (device memory on a cpu or OpenCL context, another device, another
 * context, past the allocation's end, misaligned). On the stand-in driver also memory that only a test can
 * make there: of another ordinal, of another context, of no context, managed. */
static void test_memory(void **state)
{
    (void)state;
    raid_ctx *ctx = t_open_ctx("cuda:0");
    enum { N = 1000 };
    int64_t host[N], back[N];
    for (int i = 0; i < N; i++)
        host[i] = (int64_t)i * 7 - 3;
    RaidBuf b = {0}, w = {0}, in = {0}, out = {0};
    ok(ctx, raidBufAcquire(ctx, RAID_DT_LONG, N, &b), "acquire");
    ok(ctx, raidBufUpload(ctx, &b, 0, N, host, 1, NULL), "upload");
    RaidMemKind k = RAID_MEM_DEVICE;
    ok(ctx, raidMemKindOf(ctx, host, sizeof host, 8, "x", &k), "host");
    assert_int_equal(k, RAID_MEM_HOST);
    ok(ctx, raidMemKindOf(ctx, b.h, N * 8, 8, "x", &k), "device");
    assert_int_equal(k, RAID_MEM_DEVICE);
    int dev = 7;
    assert_int_equal(raid_memory_of(b.h, &dev), RAID_MEMORY_CUDA);
    assert_int_equal(dev, 0);
    assert_int_equal(raid_memory_of(host, &dev), RAID_MEMORY_HOST);
    assert_int_equal(dev, -1);
    assert_int_equal(raid_memory_of(NULL, NULL), RAID_MEMORY_HOST);
    void *stage = NULL;
    ok(ctx, raidHostAcquire(ctx, 4096, &stage), "staging");
    assert_int_equal(raid_memory_of(stage, &dev), RAID_MEMORY_HOST); /* page-locked host memory */
    raidHostRelease(ctx, stage);
    /* the pool's buffer of 8,000 bytes is a power-of-two class of 8,192: past it is refused */
    expect_refused(ctx, b.h, 8192 + 8, "run past the end of its device allocation");
    expect_refused(ctx, (char *)b.h + 4, 8, "not aligned to its 8-byte elements");

    /* input: device memory wrapped (no copy, not counted as RAID's), host memory uploaded */
    ctx->timing.bytes_wrapped = 0;
    ok(ctx, raidBufInput(ctx, b.h, RAID_DT_LONG, N, "x", &w, &k), "input device");
    assert_true(w.h == b.h && w.n == N && k == RAID_MEM_DEVICE);
    assert_int_equal(ctx->timing.bytes_wrapped, N * 8);
    RaidDevUsage u;
    raidDevGetUsage(ctx, &u);
    assert_int_equal(u.bufs, 1);
    assert_int_equal(u.wrapped, 1);
    raidBufRelease(ctx, &w);
    assert_null(w.h);
    raidDevGetUsage(ctx, &u);
    assert_int_equal(u.bufs, 1);
    assert_int_equal(u.wrapped, 0);
    ok(ctx, raidBufInput(ctx, host, RAID_DT_LONG, N, "x", &in, NULL), "input host");
    assert_true(in.h != (void *)host);
    ok(ctx, raidBufDeliver(ctx, &in, 0, N, back, "out"), "deliver to host");
    assert_memory_equal(back, host, sizeof host);

    /* output: a device destination is written in place (deliver does nothing) or copied into at an offset */
    ok(ctx, raidBufOutput(ctx, b.h, RAID_DT_LONG, N, "out", &out), "output device");
    assert_true(out.h == b.h);
    ok(ctx, raidBufDeliver(ctx, &out, 0, N, b.h, "out"), "deliver in place");
    raidBufRelease(ctx, &out);
    ok(ctx, raidBufOutput(ctx, back, RAID_DT_LONG, N, "out", &out), "output host");
    assert_true(out.h != (void *)back);
    raidDevGetUsage(ctx, &u);
    assert_int_equal(u.bufs, 3); /* b, in, out */
    assert_int_equal(u.wrapped, 0);
    raidBufRelease(ctx, &out);
    const int64_t z = 0;
    ok(ctx, raidBufFill(ctx, &b, &z, NULL), "fill");
    ok(ctx, raidBufDeliver(ctx, &in, 10, N - 10, b.h, "out"), "deliver device to device");
    ok(ctx, raidBufDownload(ctx, &b, 0, N, back, 1, NULL), "download");
    assert_memory_equal(back, host + 10, (N - 10) * 8);
    for (int i = N - 10; i < N; i++)
        assert_true(back[i] == 0);
    raidBufRelease(ctx, &in);

    /* device memory is never read by a cpu context (ctx NULL is the cpu path too) or an OpenCL one */
    raid_ctx *cpu = t_open_ctx("cpu");
    expect_refused(cpu, b.h, N * 8, "is CUDA device memory (cuda:0), which a cpu context cannot read");
    expect_refused(NULL, b.h, N * 8, "use a context of cuda:0");
    ok(cpu, raidMemKindOf(cpu, host, sizeof host, 8, "x", &k), "host on cpu");
    raid_ctx_destroy(cpu);
    raid_ctx *cl = NULL;
    if (raid_ctx_create(&cl, "opencl") == RAID_OK) {
        expect_refused(cl, b.h, N * 8, "which an OpenCL context cannot read");
        raid_ctx_destroy(cl);
    }

    if (getenv("RAID_CUDA_FAKE")) {
        void *lib = dlopen(getenv("RAID_CUDA_LIB"), RTLD_NOW | RTLD_NOLOAD);
        assert_non_null(lib);
        void *(*fake_alloc)(size_t, int, int, int);
        void (*fake_free)(void *);
        *(void **)&fake_alloc = dlsym(lib, "fake_cuda_alloc");
        *(void **)&fake_free = dlsym(lib, "fake_cuda_free");
        assert_true(fake_alloc && fake_free);
        void *other = fake_alloc(800, 1, 0, 0), *octx = fake_alloc(800, 0, 1, 0), *pool = fake_alloc(800, 0, 2, 0);
        void *managed = fake_alloc(800, 0, 0, 1);
        expect_refused(ctx, other, 800, "is memory of cuda:1, and this context runs on cuda:0");
        assert_int_equal(raid_memory_of(other, &dev), RAID_MEMORY_CUDA);
        assert_int_equal(dev, 1);
        expect_refused(ctx, octx, 800, "another CUDA context");
        ok(ctx, raidMemKindOf(ctx, pool, 800, 8, "x", &k), "no context");
        assert_int_equal(k, RAID_MEM_DEVICE);
        ok(ctx, raidMemKindOf(ctx, managed, 800, 8, "x", &k), "managed");
        assert_int_equal(k, RAID_MEM_DEVICE);
        cpu = t_open_ctx("cpu");
        ok(cpu, raidMemKindOf(cpu, managed, 800, 8, "x", &k), "managed on cpu");
        assert_int_equal(k, RAID_MEM_HOST);
        raid_ctx_destroy(cpu);
        fake_free(other), fake_free(octx), fake_free(pool), fake_free(managed);
        dlclose(lib);
    }
    raidBufRelease(ctx, &b);
    expect_no_usage(ctx);
    raid_ctx_destroy(ctx);
}

static void test_faults(void **state)
{
    (void)state;
    raid_ctx *ctx = t_open_ctx("cuda");
    RaidBuf x = {0};
    ok(ctx, raid_tuning_fault(ctx, RAID_FAULT_ALLOC, 1, 0), "arm");
    assert_int_equal(raidBufAcquire(ctx, RAID_DT_FLOAT, 10, &x), RAID_EDEVMEM);
    assert_non_null(strstr(raid_ctx_errmsg(ctx), "cuMemAlloc failed with CUDA_ERROR_OUT_OF_MEMORY"));
    ok(ctx, raidBufAcquire(ctx, RAID_DT_FLOAT, 10, &x), "acquire after the fault");
    float f[10] = {0};
    ok(ctx, raid_tuning_fault(ctx, RAID_FAULT_UPLOAD, 1, 0), "arm");
    assert_int_equal(raidBufUpload(ctx, &x, 0, 10, f, 1, NULL), RAID_EDEVMEM);
    ok(ctx, raid_tuning_fault(ctx, RAID_FAULT_SYNC, 1, 0), "arm");
    assert_int_equal(raidDevFinish(ctx), RAID_EDEVLOST);
    ok(ctx, raid_tuning_fault(ctx, RAID_FAULT_HOST, 1, 0), "arm");
    void *h = NULL;
    assert_int_equal(raidHostAcquire(ctx, 100, &h), RAID_ENOMEM);
    raidBufRelease(ctx, &x);
    expect_no_usage(ctx);
    raid_ctx_destroy(ctx);
}

static int have_dialect(void)
{
    for (const RaidKernelFile *k = raidKernelFiles; k->name; k++)
        if (!strcmp(k->name, "raid_compat.h"))
            return strstr(k->source, "#ifdef RAID_CUDA") || strstr(k->source, "defined(RAID_CUDA)");
    return 0;
}

/* Every argument kind, and local memory declared in the kernel (RAID_SHARED, as every RAID kernel does). */
static const char kernel_src[] =
    "RAID_KERNEL void args(RAID_GLOBAL float *out, float f, int i, unsigned u, long long l) {\n"
    "    RAID_SHARED float scratch[1024];\n"
    "    unsigned g = RAID_GLOBAL_ID(0), t = RAID_LOCAL_ID(0);\n"
    "    scratch[t] = (float)t;\n"
    "    RAID_BARRIER();\n"
    "    out[g] = f * (float)i + (float)u + (float)l + scratch[RAID_LOCAL_SIZE(0) - 1 - t];\n"
    "}\n";

static void test_kernels(void **state)
{
    (void)state;
    if (getenv("RAID_CUDA_FAKE")) { /* the stand-in driver (tests/tools/fake_libcuda.c) runs no kernel */
        print_message("the stand-in for libcuda.so.1 runs no kernel\n");
        skip();
    }
    if (!have_dialect()) {
        print_message("kernels/raid_compat.h has no CUDA branch yet: no kernel can be built\n");
        skip();
    }
    char dir[128];
    snprintf(dir, sizeof dir, "/tmp/raid-cuda-kcache-%ld", (long)getpid());
    setenv("RAID_CACHE_DIR", dir, 1);
    for (int round = 0; round < 2; round++) { /* 0: built by NVRTC and stored; 1: from the disk cache */
        raid_ctx *ctx = t_open_ctx("cuda");
        RaidKernel *k = NULL;
        ok(ctx, raidKernelGetSource(ctx, "args.cu", kernel_src, "args", "-DUNUSED=1", &k), "kernel");
        enum { N = 1024 };
        RaidBuf out = {0};
        ok(ctx, raidBufAcquire(ctx, RAID_DT_FLOAT, N, &out), "acquire");
        ok(ctx, raidArgBuf(ctx, k, 0, &out), "arg");
        ok(ctx, raidArgFloat(ctx, k, 1, 1.5f), "arg");
        ok(ctx, raidArgInt(ctx, k, 2, -2), "arg");
        ok(ctx, raidArgUint(ctx, k, 3, 7u), "arg");
        ok(ctx, raidArgLong(ctx, k, 4, 1000), "arg");
        const size_t g = N, lsz = 256;
        RaidEvent ev = {0};
        ok(ctx, raidLaunch(ctx, k, 1, &g, &lsz, &ev), "launch");
        ok(ctx, raidEventFinish(ctx, &ev, NULL), "wait");
        float o[N];
        ok(ctx, raidBufDownload(ctx, &out, 0, N, o, 1, NULL), "download");
        for (int i = 0; i < N; i++)
            assert_true(o[i] == 1.5f * -2.0f + 7.0f + 1000.0f + (float)(255 - i % 256));
        /* no local size: a block that divides the global size (1000 = 250 x 4) */
        const size_t g2 = 1000;
        ok(ctx, raidLaunch(ctx, k, 1, &g2, NULL, NULL), "launch");
        ok(ctx, raidDevFinish(ctx), "finish");
        /* errors */
        const size_t bad = 1000;
        assert_int_equal(raidLaunch(ctx, k, 1, &bad, &lsz, NULL), RAID_EDEVICE);
        assert_non_null(strstr(raid_ctx_errmsg(ctx), "not a multiple of the block size"));
        RaidKernel *k2 = NULL;
        assert_int_equal(raidKernelGetSource(ctx, "args.cu", kernel_src, "nope", "", &k2), RAID_EDEVICE);
        assert_non_null(strstr(raid_ctx_errmsg(ctx), "cuModuleGetFunction(nope)"));
        assert_int_equal(raidKernelGetSource(ctx, "bad.cu", "RAID_KERNEL void b() { undeclared_x = 1; }\n", "b", "",
                                             &k2), RAID_EBUILD);
        assert_non_null(strstr(raid_ctx_errmsg(ctx), "undeclared_x"));
        ok(ctx, raidKernelGetSource(ctx, "args.cu", kernel_src, "args", "-DUNUSED=2", &k2), "kernel");
        ok(ctx, raidArgBuf(ctx, k2, 0, &out), "arg");
        ok(ctx, raidArgFloat(ctx, k2, 2, 1.0f), "arg"); /* 1 not set */
        assert_int_equal(raidLaunch(ctx, k2, 1, &g, &lsz, NULL), RAID_EDEVICE);
        raidKernelPut(ctx, k2);
        raidKernelPut(ctx, k);
        raidBufRelease(ctx, &out);
        expect_no_usage(ctx);
        raid_ctx_destroy(ctx);
        int files = 0;
        DIR *d = opendir(dir);
        assert_non_null(d);
        for (struct dirent *e; (e = readdir(d));)
            files += strstr(e->d_name, ".bin") != NULL;
        closedir(d);
        assert_int_equal(files, 2); /* the two option sets of args.cu; the failed build stored nothing */
    }
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
    unsetenv("RAID_CACHE_DIR");
}

int main(void)
{
    const char *why = raid_backend_absent(RAID_BACKEND_CUDA);
    if (why) {
        printf("skipped: CUDA cannot run here: %s\n", why);
        return 77;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_open),
        cmocka_unit_test(test_buffers),
        cmocka_unit_test(test_memory),
        cmocka_unit_test(test_faults),
        cmocka_unit_test(test_kernels),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
