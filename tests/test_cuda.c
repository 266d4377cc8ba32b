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
#include <math.h>
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
    /* the pool's buffer of 8,000 bytes is an allocation of 8,192 (its power-of-two class): 1 GiB from its
     * start runs past it (a driver may report a range rounded up to its granularity, never to 1 GiB) */
    expect_refused(ctx, b.h, (size_t)1 << 30, "run past the end of its device allocation");
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

/* The public calls that take device memory (include/raid: "device memory:") refuse it where the host would
 * read it: a cpu context, NULL (the cpu path), an OpenCL context, and the arrays that stay host memory (the
 * pairs' keys, a validity mask, top-k). The status is RAID_EINVAL with a message naming the argument; nothing
 * is read (on the stand-in driver the memory is host memory that a read would not fault on: the messages
 * show that the check ran first). */
static void test_public_refusals(void **state)
{
    (void)state;
    raid_ctx *cuda = t_open_ctx("cuda:0");
    enum { N = 512 };
    RaidBuf b = {0};
    ok(cuda, raidBufAcquire(cuda, RAID_DT_LONG, 2 * N, &b), "acquire");
    double *dx = b.h, *dout = (double *)b.h + N;
    int64_t *dk = b.h;
    const int64_t off[2] = {0, N};
    double host[N], q = 0.5, r1;
    int64_t hk[N], hidx[N];
    uint8_t valid[N];
    for (int i = 0; i < N; i++)
        host[i] = (double)(i % 17) - 8.0, hk[i] = i % 5, valid[i] = 1;
    raid_realized rz;
    raid_groupby *g = NULL;
    const raid_agg agg = RAID_AGG_SUM;
    raid_ctx *cpu = t_open_ctx("cpu");
    raid_ctx *ctxs[3] = {cpu, NULL, NULL};
    int nctx = 2;
    if (raid_ctx_create(&ctxs[2], "opencl") == RAID_OK)
        nctx = 3;
    for (int c = 0; c < nctx; c++) {
        raid_ctx *x = ctxs[c];
#define REFUSED(call, words)                                                                                       \
    do {                                                                                                           \
        assert_int_equal((call), RAID_EINVAL);                                                                     \
        const char *m_ = x ? raid_ctx_errmsg(x) : raid_errmsg();                                                   \
        if (!strstr(m_, words))                                                                                    \
            fail_msg("%s: expected '%s' in: %s", #call, words, m_);                                                \
    } while (0)
        REFUSED(raid_sort_f64(x, dx, N, NULL, 0, host), "raid_sort_f64: x is CUDA device memory (cuda:0)");
        REFUSED(raid_sort_f64(x, host, N, NULL, 0, dout), "raid_sort_f64: the output is CUDA device memory");
        REFUSED(raid_argsort_f64_i64(x, dx, N, NULL, 0, hidx), "x is CUDA device memory");
        REFUSED(raid_select_median(x, dx, off, 1, &r1), "raid_select_median: x is CUDA device memory");
        REFUSED(raid_select_median(x, host, off, 1, dout), "raid_select_median: out is CUDA device memory");
        REFUSED(raid_select_quantile(x, dx, off, 1, &q, 1, &r1), "raid_select_quantile: x");
        REFUSED(raid_select_kth(x, dx, off, 1, 3, &r1), "raid_select_kth: x");
        REFUSED(raid_select_minmax(x, dx, off, 1, &r1, NULL, NULL, NULL), "raid_select_minmax: x");
        REFUSED(raid_select_topk(x, dx, off, 1, 3, 1, host, NULL), "raid_select_topk: x");
        REFUSED(raid_groupby_compute(x, dk, host, NULL, N, &agg, 1, 0, &g), "raid_groupby_compute: keys");
        REFUSED(raid_groupby_compute(x, hk, dx, NULL, N, &agg, 1, 0, &g), "raid_groupby_compute: values");
        REFUSED(raid_groupby_compute_f64(x, dx, NULL, host, NULL, N, &agg, 1, 0, &g), "raid_groupby_compute_f64: keys");
        if (x) /* raid_realized_compute takes no NULL context */
            REFUSED(raid_realized_compute(x, dx, off, 1, &rz), "raid_realized_compute: returns is CUDA device memory");
    }
    /* on the CUDA context: the arrays that stay host memory */
    raid_ctx *x = cuda;
    REFUSED(raid_sort_i64_f64(x, dk, host, N, 0, hk, host), "it takes host memory");
    REFUSED(raid_sort_f64(x, host, N, (const uint8_t *)dx, 0, host), "valid is device memory");
    REFUSED(raid_select_topk(x, dx, off, 1, 3, 1, host, NULL), "x is device memory, and it takes host memory");
    REFUSED(raid_groupby_compute(x, hk, host, (const uint8_t *)dx, N, &agg, 1, 0, &g), "valid is device memory");
    raid_garch_input *gin = NULL;
    assert_int_equal(raid_garch_input_create(&gin), RAID_OK);
    x = NULL; /* a context-free call: raid_errmsg() */
    REFUSED(raid_garch_input_add(gin, "s", N, dx, NULL, NULL), "raid_garch_input_add: r is CUDA device memory (cuda:0)");
    raid_garch_input_destroy(gin);
#undef REFUSED
    (void)valid;
    assert_null(g);
    for (int c = 0; c < nctx; c++)
        raid_ctx_destroy(ctxs[c]);
    raidBufRelease(cuda, &b);
    raid_ctx_destroy(cuda);
}

static void same_bits(const void *a, const void *b, size_t bytes, const char *what)
{
    if (memcmp(a, b, bytes))
        fail_msg("%s: device input differs from host input", what);
}

/* On a GPU: every public call that takes device memory gives the bits of the same call on host memory, and
 * reads its device input in place (raid_timing.bytes_wrapped, no bytes uploaded for it). */
static void test_device_inputs(void **state)
{
    (void)state;
    if (getenv("RAID_CUDA_FAKE")) {
        print_message("the stand-in for libcuda.so.1 runs no kernel\n");
        skip();
    }
    raid_ctx *ctx = t_open_ctx("cuda:0");
    enum { N = 300007, NSEG = 5 };
    double *x = malloc(N * sizeof *x), *h = malloc(2 * N * sizeof *h), *d = malloc(2 * N * sizeof *d);
    int64_t *k = malloc(N * sizeof *k);
    uint64_t s = 88172645463325252ull;
    for (int i = 0; i < N; i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        x[i] = ((double)(s >> 11) * 0x1p-53 - 0.5) * 1e-3;
        k[i] = (int64_t)(s % 97) - 40;
        if (i % 4999 == 3)
            x[i] = i % 2 ? 0.0 : -0.0;
    }
    const int64_t off[NSEG + 1] = {0, 1, 3, 4099, 200000, N};
    RaidBuf bx = {0}, bo = {0}, bk = {0};
    ok(ctx, raidBufAcquire(ctx, RAID_DT_LONG, N, &bx), "acquire");
    ok(ctx, raidBufAcquire(ctx, RAID_DT_LONG, 2 * N, &bo), "acquire");
    ok(ctx, raidBufAcquire(ctx, RAID_DT_LONG, N, &bk), "acquire");
    ok(ctx, raidBufUpload(ctx, &bx, 0, N, x, 1, NULL), "upload");
    ok(ctx, raidBufUpload(ctx, &bk, 0, N, k, 1, NULL), "upload");
    double *dx = bx.h, *dout = bo.h;
    raid_timing t;
#define BOTH(host_call, dev_call, bytes, what)                                                                     \
    do {                                                                                                           \
        ok(ctx, (host_call), what " (host)");                                                                      \
        ok(ctx, (dev_call), what " (device)");                                                                     \
        raid_ctx_last_timing(ctx, &t);                                                                             \
        if (t.bytes_wrapped < (uint64_t)N / 2 * 8) /* the input, in place (its segments: N - 3 at least) */       \
            fail_msg("%s: %llu bytes used in place", what, (unsigned long long)t.bytes_wrapped);                  \
        ok(ctx, raidBufDownload(ctx, &bo, 0, 2 * N, d, 1, NULL), "download");                                      \
        same_bits(h, d, bytes, what);                                                                              \
    } while (0)
    BOTH(raid_sort_f64(ctx, x, N, NULL, 0, h), raid_sort_f64(ctx, dx, N, NULL, 0, dout), N * 8, "sort");
    BOTH(raid_sort_f64(ctx, x, N, NULL, RAID_SORT_DESC, h), raid_sort_f64(ctx, dx, N, NULL, RAID_SORT_DESC, dout),
         N * 8, "sort desc");
    BOTH(raid_sort_f64_seg(ctx, x, off, NSEG, NULL, 0, h), raid_sort_f64_seg(ctx, dx, off, NSEG, NULL, 0, dout),
         N * 8, "segmented sort");
    BOTH(raid_argsort_f64_i64(ctx, x, N, NULL, 0, (int64_t *)h),
         raid_argsort_f64_i64(ctx, dx, N, NULL, 0, (int64_t *)dout), N * 8, "argsort i64");
    BOTH(raid_argsort_f64_u32(ctx, x, N, NULL, 0, (uint32_t *)h),
         raid_argsort_f64_u32(ctx, dx, N, NULL, 0, (uint32_t *)dout), N * 4, "argsort u32");
    const double qs[5] = {0, 0.01, 0.5, 0.75, 1};
    BOTH(raid_select_median(ctx, x, off, NSEG, h), raid_select_median(ctx, dx, off, NSEG, dout), NSEG * 8, "median");
    BOTH(raid_select_quantile(ctx, x, off + 1, NSEG - 1, qs, 5, h),
         raid_select_quantile(ctx, dx, off + 1, NSEG - 1, qs, 5, dout), (NSEG - 1) * 5 * 8, "quantile");
    BOTH(raid_select_kth(ctx, x, off + 2, NSEG - 2, 1, h), raid_select_kth(ctx, dx, off + 2, NSEG - 2, 1, dout),
         (NSEG - 2) * 8, "kth");
    BOTH(raid_select_minmax(ctx, x, off, NSEG, h, h + NSEG, NULL, NULL),
         raid_select_minmax(ctx, dx, off, NSEG, dout, dout + NSEG, NULL, NULL), 2 * NSEG * 8, "minmax");
    /* realized: host structs both ways */
    raid_realized rh[NSEG], rd[NSEG];
    ok(ctx, raid_realized_compute(ctx, x, off, NSEG, rh), "realized (host)");
    for (int pass = 0; pass < 2; pass++) { /* the buffer's start, then one return in: both 16-byte parities */
        const int64_t o1[2] = {pass, N};
        ok(ctx, raid_realized_compute(ctx, x, o1, 1, rh), "realized (host)");
        ok(ctx, raid_realized_compute(ctx, dx, o1, 1, rd), "realized (device)");
        raid_ctx_last_timing(ctx, &t);
        assert_true(t.bytes_wrapped >= (uint64_t)(N - 1) * 8 && t.bytes_in == 0);
        same_bits(rh, rd, sizeof rh[0], "realized");
    }
    ok(ctx, raid_realized_compute(ctx, x, off, NSEG, rh), "realized (host)");
    ok(ctx, raid_realized_compute(ctx, dx, off, NSEG, rd), "realized (device)");
    same_bits(rh, rd, sizeof rh, "realized segments");
    /* the host steps that copy device memory: a segment of tiny returns (the underflow guard recomputes it
     * from a host copy) and a return out of range (its chunk copied for the message) */
    double *tiny = malloc(5000 * sizeof *tiny);
    for (int i = 0; i < 5000; i++) /* the second segment positive but for one tiny negative: rs_neg guarded */
        tiny[i] = i < 4000 ? x[i] * 1e-150 : fabs(x[i]) * 1e-150 + 1e-160;
    tiny[4321] = -1e-300;
    ok(ctx, raidBufUpload(ctx, &bo, 0, 5000, tiny, 1, NULL), "upload");
    const int64_t ot[3] = {0, 4000, 5000};
    ok(ctx, raid_realized_compute(ctx, tiny, ot, 2, rh), "realized tiny (host)");
    raid_ctx_last_timing(ctx, &t);
    const uint64_t guarded = t.host_segments;
    ok(ctx, raid_realized_compute(ctx, dout, ot, 2, rd), "realized tiny (device)");
    raid_ctx_last_timing(ctx, &t);
    assert_true(guarded > 0 && t.host_segments == guarded);
    same_bits(rh, rd, 2 * sizeof rh[0], "realized tiny");
    tiny[4321] = INFINITY;
    ok(ctx, raidBufUpload(ctx, &bo, 0, 5000, tiny, 1, NULL), "upload");
    assert_int_equal(raid_realized_compute(ctx, dout, ot, 2, rd), RAID_EINVAL);
    assert_non_null(strstr(raid_ctx_errmsg(ctx), "return 4321 is not finite"));
    free(tiny);
    /* group-by: int64 and float64 keys, every aggregation */
    const raid_agg aggs[7] = {RAID_AGG_COUNT, RAID_AGG_SUM, RAID_AGG_MEAN, RAID_AGG_MIN, RAID_AGG_MAX, RAID_AGG_FIRST,
                              RAID_AGG_LAST};
    for (int f = 0; f < 2; f++) {
        raid_groupby *gh = NULL, *gd = NULL;
        if (f) {
            ok(ctx, raid_groupby_compute_f64(ctx, x, NULL, x, NULL, N, aggs, 7, 0, &gh), "groupby f64 (host)");
            ok(ctx, raid_groupby_compute_f64(ctx, dx, NULL, dx, NULL, N, aggs, 7, 0, &gd), "groupby f64 (device)");
        } else {
            ok(ctx, raid_groupby_compute(ctx, k, x, NULL, N, aggs, 7, 0, &gh), "groupby (host)");
            ok(ctx, raid_groupby_compute(ctx, bk.h, dx, NULL, N, aggs, 7, 0, &gd), "groupby (device)");
        }
        const size_t G = raid_groupby_ngroups(gh);
        assert_int_equal(raid_groupby_ngroups(gd), G);
        same_bits(raid_groupby_keys(gh), raid_groupby_keys(gd), G * 8, "groupby keys");
        for (size_t j = 0; j < 7; j++)
            same_bits(raid_groupby_column(gh, j), raid_groupby_column(gd, j), G * 8, "groupby column");
        raid_groupby_destroy(gh);
        raid_groupby_destroy(gd);
    }
#undef BOTH
    raidBufRelease(ctx, &bx), raidBufRelease(ctx, &bo), raidBufRelease(ctx, &bk);
    expect_no_usage(ctx);
    free(x), free(h), free(d), free(k);
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
        /* args.cu's three option sets ("-DUNUSED=1", "" of the lookup of "nope": the module built and was
         * stored, only its function is missing; "-DUNUSED=2"); the failed build of bad.cu stored nothing */
        assert_int_equal(files, 3);
    }
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
    unsetenv("RAID_CACHE_DIR");
}

/* The CUDA context's kernel cache (kcache_mem.c, the OpenCL backend's too): a hit is the same kernel, a
 * kernel past the capacity is evicted once unheld and not before, the holds show in raidDevGetUsage. Runs
 * under the stand-in driver too: NVRTC builds, the stand-in loads the module and launches nothing. */
static void test_kernel_cache(void **state)
{
    (void)state;
    if (!have_dialect())
        skip();
    setenv("RAID_CACHE_DIR", "off", 1);
    raid_ctx *ctx = t_open_ctx("cuda");
    raidKernelCacheSetCapacity(ctx, 1);
    RaidKernelCacheStats st;
    RaidKernel *a = NULL, *a2 = NULL, *b = NULL;
    ok(ctx, raidKernelGetSource(ctx, "args.cu", kernel_src, "args", "-DUNUSED=1", &a), "kernel");
    ok(ctx, raidKernelGetSource(ctx, "args.cu", kernel_src, "args", "-DUNUSED=1", &a2), "kernel again");
    assert_ptr_equal(a, a2);
    ok(ctx, raidKernelGetSource(ctx, "args.cu", kernel_src, "args", "-DUNUSED=2", &b), "kernel");
    raidKernelCacheGetStats(ctx, &st);
    assert_int_equal(st.builds, 2);
    assert_int_equal(st.hits, 1);
    assert_int_equal(st.entries, 2); /* both held: over the capacity of 1, nothing evicted */
    assert_int_equal(st.evictions, 0);
    RaidDevUsage u;
    raidDevGetUsage(ctx, &u);
    assert_int_equal(u.holds, 3);
    raidKernelPut(ctx, a2);
    raidKernelPut(ctx, a); /* a unheld and least recently used: evicted */
    raidKernelCacheGetStats(ctx, &st);
    assert_int_equal(st.entries, 1);
    assert_int_equal(st.evictions, 1);
    raidKernelPut(ctx, b);
    raidKernelCacheSetCapacity(ctx, 0); /* the default: b stays */
    raidKernelCacheGetStats(ctx, &st);
    assert_int_equal(st.entries, 1);
    expect_no_usage(ctx);
    raid_ctx_destroy(ctx);
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
        cmocka_unit_test(test_public_refusals),
        cmocka_unit_test(test_device_inputs),
        cmocka_unit_test(test_faults),
        cmocka_unit_test(test_kernels),
        cmocka_unit_test(test_kernel_cache),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
