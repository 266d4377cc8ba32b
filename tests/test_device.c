/*
 * The device layer (src/device/device.h) and the chunk reduction on top of it (src/device/chunk.h), each
 * kind of kernel checked against a float64 (or exact integer) computation on the host:
 *   - a map kernel (exact squares as double-float pairs);
 *   - a multi-pass pipeline whose data stays on the device: map in place, chunk reduction over the
 *     resident buffer, map back and read: the original values;
 *   - one work-item per independent recursion (an EMA per series in double-float) against a float64 loop;
 *   - typed buffers: 64-bit integers, int, uint (a histogram with 32-bit atomics), fill and copy;
 *   - 200 distinct kernels on one context (the cache evicts; a held kernel stays valid);
 *   - eviction of a kernel and its rebuild, at a small capacity;
 *   - raid_reg_meat_compute with max_lag 0..40 on one context (each lag its own kernel), against cpu.
 * Test kernels: tests/kernels/device_test.cl. Skipped without an OpenCL device.
 */
#define _POSIX_C_SOURCE 200809L
#include "support.h"
#include "raid.h"
#include "raid/tuning.h"
#include "device/chunk.h"
#include "device/device.h"
#include "raid_f64.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SRC_FILE RAID_SOURCE_DIR "/tests/kernels/device_test.cl"

static char *g_src;

static int setup(void **state)
{
    (void)state;
    g_src = t_read_file(SRC_FILE);
    return g_src ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    free(g_src);
    return 0;
}

static void ok(raid_ctx *ctx, raid_status s, const char *what)
{
    if (s != RAID_OK)
        fail_msg("%s: %s", what, raid_ctx_errmsg(ctx));
}

static RaidKernel *kern(raid_ctx *ctx, const char *name, const char *opts)
{
    RaidKernel *k = NULL;
    ok(ctx, raidKernelGetSource(ctx, "device_test.cl", g_src, name, opts, &k), name);
    assert_non_null(k);
    return k;
}

static uint64_t rng_state = 88172645463325252ULL;
static double urand(void) /* [0, 1) */
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (double)(rng_state >> 11) * 0x1p-53;
}

static raid_ctx *open_dev(void)
{
    if (!t_have_opencl())
        return NULL;
    return t_open_ctx(t_device());
}

static void test_map(void **state)
{
    (void)state;
    raid_ctx *ctx = open_dev();
    if (!ctx)
        skip();
    const uint32_t n = 1000;
    float *x = malloc(n * sizeof *x), *y = malloc(2 * n * sizeof *y);
    assert_non_null(x);
    assert_non_null(y);
    for (uint32_t i = 0; i < n; i++)
        x[i] = (float)((urand() - 0.5) * 1e3);
    RaidBuf bx, by;
    ok(ctx, raidBufAcquire(ctx, RAID_DT_FLOAT, n, &bx), "acquire");
    ok(ctx, raidBufAcquire(ctx, RAID_DT_FLOAT, 2 * n, &by), "acquire");
    ok(ctx, raidBufUpload(ctx, &bx, 0, n, x, 1, NULL), "upload");
    RaidKernel *k = kern(ctx, "map_square", "");
    ok(ctx, raidArgBuf(ctx, k, 0, &bx), "arg");
    ok(ctx, raidArgBuf(ctx, k, 1, &by), "arg");
    ok(ctx, raidArgUint(ctx, k, 2, n), "arg");
    const size_t global = (n + 63) / 64 * 64, local = 64;
    RaidEvent ev = {0};
    ok(ctx, raidLaunch(ctx, k, 1, &global, &local, &ev), "launch");
    ok(ctx, raidEventWait(ctx, &ev), "wait");
    assert_true(raidEventSeconds(&ev) >= 0.0);
    raidEventRelease(&ev);
    assert_null(ev.h);
    ok(ctx, raidBufDownload(ctx, &by, 0, 2 * n, y, 1, NULL), "download");
    for (uint32_t i = 0; i < n; i++) /* TwoProd is exact: hi + lo is the float64 square */
        assert_true((double)y[2 * i] + (double)y[2 * i + 1] == (double)x[i] * (double)x[i]);
    raidKernelPut(ctx, k);
    raidBufRelease(ctx, &bx);
    raidBufRelease(ctx, &by);
    assert_null(bx.h);
    free(x);
    free(y);
    raid_ctx_destroy(ctx);
}

/* Three passes over one device buffer uploaded once: x *= 2 (map), the chunk reduction of the ragged
 * segments over the resident data (float64 combine), x *= 1/2 (map); then the read-back is x again. */
static void test_multipass_resident(void **state)
{
    (void)state;
    raid_ctx *ctx = open_dev();
    if (!ctx)
        skip();
    const size_t nseg = 37;
    int64_t off[38];
    off[0] = 0;
    for (size_t s = 0; s < nseg; s++)
        off[s + 1] = off[s] + (int64_t)(urand() * 5000) + (s == 3 ? 0 : 1); /* one empty segment */
    const size_t n = (size_t)off[nseg];
    float *x = malloc(n * sizeof *x), *back = malloc(n * sizeof *back);
    assert_non_null(x);
    assert_non_null(back);
    for (size_t i = 0; i < n; i++)
        x[i] = (float)(urand() - 0.3);
    RaidBuf bx;
    ok(ctx, raidBufAcquire(ctx, RAID_DT_FLOAT, n, &bx), "acquire");
    ok(ctx, raidBufUpload(ctx, &bx, 0, n, x, 0, NULL), "upload");

    RaidKernel *scale = kern(ctx, "map_scale", "");
    const size_t local = 64, global = (n + 63) / 64 * 64;
    ok(ctx, raidArgBuf(ctx, scale, 0, &bx), "arg");
    ok(ctx, raidArgFloat(ctx, scale, 1, 2.0f), "arg");
    ok(ctx, raidArgUint(ctx, scale, 2, (uint32_t)n), "arg");
    ok(ctx, raidLaunch(ctx, scale, 1, &global, &local, NULL), "pass 1");

    RaidKernel *sum = kern(ctx, "chunk_sum", "-DRAID_WG=64");
    RaidChunkPlan plan;
    ok(ctx, raidPlanBuild(&plan, off, nseg, 1000), "plan");
    double acc[37] = {0};
    RaidChunkJob job = {&plan, sum, 64, sizeof(float), 1, 1, NULL, NULL, NULL, acc, "chunk_sum", bx, 0, NULL, NULL, NULL, NULL, 0, 0, NULL, 0, 0, 0};
    ok(ctx, raidChunkReduce(ctx, &job), "pass 2");
    raid_timing tm;
    raid_ctx_last_timing(ctx, &tm);
    assert_true(tm.launches >= 1);
    assert_int_equal(tm.bytes_in, 0); /* nothing staged: the data is resident */
    for (size_t s = 0; s < nseg; s++) {
        long double ref = 0, mag = 0;
        for (int64_t i = off[s]; i < off[s + 1]; i++) {
            ref += 2.0L * x[i];
            mag += fabsl(2.0L * x[i]);
        }
        if (fabs(acc[s] - (double)ref) > 1e-13 * (double)mag + 1e-300)
            fail_msg("segment %zu: device %.17g, float64 %.17g", s, acc[s], (double)ref);
    }

    ok(ctx, raidArgFloat(ctx, scale, 1, 0.5f), "arg");
    ok(ctx, raidArgBuf(ctx, scale, 0, &bx), "arg");
    ok(ctx, raidLaunch(ctx, scale, 1, &global, &local, NULL), "pass 3");
    ok(ctx, raidBufDownload(ctx, &bx, 0, n, back, 1, NULL), "download");
    assert_memory_equal(back, x, n * sizeof *x);

    raidPlanFree(&plan);
    raidKernelPut(ctx, scale);
    raidKernelPut(ctx, sum);
    raidBufRelease(ctx, &bx);
    free(x);
    free(back);
    raid_ctx_destroy(ctx);
}

/* One work-item per series: EMA in double-float against the float64 recursion on the same inputs. */
static void test_recursion_ema(void **state)
{
    (void)state;
    raid_ctx *ctx = open_dev();
    if (!ctx)
        skip();
    const uint32_t nser = 300, T = 500;
    const size_t n = (size_t)nser * T;
    float *x = malloc(2 * n * sizeof *x), *e = malloc(2 * n * sizeof *e);
    assert_non_null(x);
    assert_non_null(e);
    for (size_t i = 0; i < n; i++) {
        const double v = 100.0 + 10.0 * (urand() - 0.5) + (double)(i % T) * 1e-3;
        x[2 * i] = (float)v;
        x[2 * i + 1] = (float)(v - (double)x[2 * i]);
    }
    const double alpha = 2.0 / 21.0;
    const float ahi = (float)alpha, alo = (float)(alpha - (double)ahi);
    RaidBuf bx, be;
    ok(ctx, raidBufAcquire(ctx, RAID_DT_FLOAT, 2 * n, &bx), "acquire");
    ok(ctx, raidBufAcquire(ctx, RAID_DT_FLOAT, 2 * n, &be), "acquire");
    ok(ctx, raidBufUpload(ctx, &bx, 0, 2 * n, x, 0, NULL), "upload");
    RaidKernel *k = kern(ctx, "ema_df", "");
    ok(ctx, raidArgBuf(ctx, k, 0, &bx), "arg");
    ok(ctx, raidArgBuf(ctx, k, 1, &be), "arg");
    ok(ctx, raidArgUint(ctx, k, 2, nser), "arg");
    ok(ctx, raidArgUint(ctx, k, 3, T), "arg");
    ok(ctx, raidArgFloat(ctx, k, 4, ahi), "arg");
    ok(ctx, raidArgFloat(ctx, k, 5, alo), "arg");
    const size_t global = (nser + 31) / 32 * 32;
    ok(ctx, raidLaunch(ctx, k, 1, &global, NULL, NULL), "launch");
    ok(ctx, raidBufDownload(ctx, &be, 0, 2 * n, e, 1, NULL), "download");
    const double a = (double)ahi + (double)alo;
    double worst = 0;
    for (uint32_t s = 0; s < nser; s++) {
        double m = 0;
        for (uint32_t t = 0; t < T; t++) {
            const size_t i = (size_t)s * T + t;
            const double v = (double)x[2 * i] + (double)x[2 * i + 1];
            m = t == 0 ? v : m + a * (v - m);
            const double dev = (double)e[2 * i] + (double)e[2 * i + 1];
            const double rel = fabs(dev - m) / fabs(m);
            worst = rel > worst ? rel : worst;
        }
    }
    printf("# EMA: largest relative difference from float64 %.3g\n", worst);
    assert_true(worst < 1e-12); /* float32 alone would give about 1e-7 */
    raidKernelPut(ctx, k);
    raidBufRelease(ctx, &bx);
    raidBufRelease(ctx, &be);
    free(x);
    free(e);
    raid_ctx_destroy(ctx);
}

static void test_typed_buffers(void **state)
{
    (void)state;
    raid_ctx *ctx = open_dev();
    if (!ctx)
        skip();
    const uint32_t n = 4097;
    const size_t local = 64, global = (n + 63) / 64 * 64;
    /* 64-bit integers beyond 2^32 */
    int64_t *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
    assert_non_null(a);
    assert_non_null(b);
    for (uint32_t i = 0; i < n; i++)
        a[i] = (int64_t)((urand() - 0.5) * 0x1p41);
    const int64_t c = ((int64_t)1 << 35) + 7;
    RaidBuf ba, bb;
    ok(ctx, raidBufAcquire(ctx, RAID_DT_LONG, n, &ba), "acquire");
    ok(ctx, raidBufAcquire(ctx, RAID_DT_LONG, n, &bb), "acquire");
    assert_int_equal(ba.n, n);
    ok(ctx, raidBufUpload(ctx, &ba, 0, n, a, 0, NULL), "upload");
    RaidKernel *k = kern(ctx, "long_affine", "");
    ok(ctx, raidArgBuf(ctx, k, 0, &ba), "arg");
    ok(ctx, raidArgBuf(ctx, k, 1, &bb), "arg");
    ok(ctx, raidArgLong(ctx, k, 2, c), "arg");
    ok(ctx, raidArgUint(ctx, k, 3, n), "arg");
    ok(ctx, raidLaunch(ctx, k, 1, &global, &local, NULL), "launch");
    ok(ctx, raidBufDownload(ctx, &bb, 0, n, b, 1, NULL), "download");
    for (uint32_t i = 0; i < n; i++)
        assert_true(b[i] == a[i] * 3 + c + (int64_t)i);
    raidKernelPut(ctx, k);
    /* fill with a 64-bit pattern, copy on the device, read a part back at an offset */
    const int64_t pat = -((int64_t)1 << 50) - 3;
    ok(ctx, raidBufFill(ctx, &ba, &pat, NULL), "fill");
    ok(ctx, raidBufCopy(ctx, &bb, &ba, n, NULL), "copy");
    memset(b, 0, n * sizeof *b);
    ok(ctx, raidBufDownload(ctx, &bb, 100, 50, b, 1, NULL), "download");
    for (int i = 0; i < 50; i++)
        assert_true(b[i] == pat);

    /* int */
    int32_t *ia = malloc(n * sizeof *ia);
    assert_non_null(ia);
    for (uint32_t i = 0; i < n; i++)
        ia[i] = (int32_t)i - 2000;
    RaidBuf bi;
    ok(ctx, raidBufAcquire(ctx, RAID_DT_INT, n, &bi), "acquire");
    ok(ctx, raidBufUpload(ctx, &bi, 0, n, ia, 1, NULL), "upload");
    k = kern(ctx, "int_negate", "");
    ok(ctx, raidArgBuf(ctx, k, 0, &bi), "arg");
    ok(ctx, raidArgUint(ctx, k, 1, n), "arg");
    ok(ctx, raidLaunch(ctx, k, 1, &global, &local, NULL), "launch");
    ok(ctx, raidBufDownload(ctx, &bi, 0, n, ia, 1, NULL), "download");
    for (uint32_t i = 0; i < n; i++)
        assert_int_equal(ia[i], 2000 - (int32_t)i);
    raidKernelPut(ctx, k);

    /* uint: a histogram with 32-bit atomics into bins zeroed by fill */
    uint32_t *v = malloc(n * sizeof *v), bins[16], ref[16] = {0};
    assert_non_null(v);
    for (uint32_t i = 0; i < n; i++) {
        v[i] = (uint32_t)(urand() * 1e9);
        ref[v[i] % 16]++;
    }
    RaidBuf bv, bh;
    ok(ctx, raidBufAcquire(ctx, RAID_DT_UINT, n, &bv), "acquire");
    ok(ctx, raidBufAcquire(ctx, RAID_DT_UINT, 16, &bh), "acquire");
    const uint32_t zero = 0;
    ok(ctx, raidBufFill(ctx, &bh, &zero, NULL), "fill");
    ok(ctx, raidBufUpload(ctx, &bv, 0, n, v, 0, NULL), "upload");
    k = kern(ctx, "histogram", "");
    ok(ctx, raidArgBuf(ctx, k, 0, &bv), "arg");
    ok(ctx, raidArgBuf(ctx, k, 1, &bh), "arg");
    ok(ctx, raidArgUint(ctx, k, 2, 16), "arg");
    ok(ctx, raidArgUint(ctx, k, 3, n), "arg");
    ok(ctx, raidLaunch(ctx, k, 1, &global, &local, NULL), "launch");
    ok(ctx, raidBufDownload(ctx, &bh, 0, 16, bins, 1, NULL), "download");
    assert_memory_equal(bins, ref, sizeof ref);
    raidKernelPut(ctx, k);

    RaidBuf *all[] = {&ba, &bb, &bi, &bv, &bh};
    for (int i = 0; i < 5; i++)
        raidBufRelease(ctx, all[i]);
    free(a);
    free(b);
    free(ia);
    free(v);
    raid_ctx_destroy(ctx);
}

/* Launch variant kernel k (y = x + VARIANT) and check it. */
static void run_variant(raid_ctx *ctx, RaidKernel *k, int variant, const RaidBuf *bx, const RaidBuf *by,
                        const float *x, float *y, uint32_t n)
{
    const size_t local = 32, global = (n + 31) / 32 * 32;
    ok(ctx, raidArgBuf(ctx, k, 0, bx), "arg");
    ok(ctx, raidArgBuf(ctx, k, 1, by), "arg");
    ok(ctx, raidArgUint(ctx, k, 2, n), "arg");
    ok(ctx, raidLaunch(ctx, k, 1, &global, &local, NULL), "launch");
    ok(ctx, raidBufDownload(ctx, by, 0, n, y, 1, NULL), "download");
    for (uint32_t i = 0; i < n; i++)
        if (y[i] != x[i] + (float)variant)
            fail_msg("variant %d, element %u: %g, not %g", variant, i, (double)y[i], (double)(x[i] + (float)variant));
}

static RaidKernel *variant_kernel(raid_ctx *ctx, int v)
{
    char opts[64];
    snprintf(opts, sizeof opts, "-DVARIANT=%d", v);
    return kern(ctx, "variant", opts);
}

/* 200 distinct programs on one context: the cache evicts the least recently used unheld ones (no fixed
 * cap, no "cache full"), and a kernel held from the start stays valid throughout. */
static void test_200_kernels(void **state)
{
    (void)state;
    raid_ctx *ctx = open_dev();
    if (!ctx)
        skip();
    enum { NK = 200 };
    const uint32_t n = 100;
    float x[100], y[100];
    for (uint32_t i = 0; i < n; i++)
        x[i] = (float)i * 0.25f;
    RaidBuf bx, by;
    ok(ctx, raidBufAcquire(ctx, RAID_DT_FLOAT, n, &bx), "acquire");
    ok(ctx, raidBufAcquire(ctx, RAID_DT_FLOAT, n, &by), "acquire");
    ok(ctx, raidBufUpload(ctx, &bx, 0, n, x, 1, NULL), "upload");
    uint64_t entries0, builds0, ev0;
    raid_tuning_kernel_cache(ctx, &entries0, &builds0, &ev0);
    RaidKernel *held = variant_kernel(ctx, 0);
    for (int v = 1; v < NK; v++) {
        RaidKernel *k = variant_kernel(ctx, v);
        run_variant(ctx, k, v, &bx, &by, x, y, n);
        raidKernelPut(ctx, k);
    }
    run_variant(ctx, held, 0, &bx, &by, x, y, n); /* never evicted while held */
    uint64_t entries, builds, evictions;
    raid_tuning_kernel_cache(ctx, &entries, &builds, &evictions);
    printf("# %llu kernels built, %llu evicted, %llu cached\n", (unsigned long long)(builds - builds0),
           (unsigned long long)(evictions - ev0), (unsigned long long)entries);
    assert_true(builds - builds0 == NK);
    assert_true(entries <= RAID_KERNEL_CACHE_DEFAULT);
    assert_true(evictions - ev0 >= NK - RAID_KERNEL_CACHE_DEFAULT);
    raidKernelPut(ctx, held);
    raidBufRelease(ctx, &bx);
    raidBufRelease(ctx, &by);
    raid_ctx_destroy(ctx);
}

/* At capacity 2: the least recently used unheld kernel goes, comes back by a rebuild that works; held
 * kernels stay even beyond the capacity. */
static void test_eviction_rebuild(void **state)
{
    (void)state;
    raid_ctx *ctx = open_dev();
    if (!ctx)
        skip();
    assert_int_equal(raid_tuning_set(ctx, RAID_TUNE_KERNEL_CACHE_CAP, 2), RAID_OK);
    const uint32_t n = 64;
    float x[64], y[64];
    for (uint32_t i = 0; i < n; i++)
        x[i] = (float)i;
    RaidBuf bx, by;
    ok(ctx, raidBufAcquire(ctx, RAID_DT_FLOAT, n, &bx), "acquire");
    ok(ctx, raidBufAcquire(ctx, RAID_DT_FLOAT, n, &by), "acquire");
    ok(ctx, raidBufUpload(ctx, &bx, 0, n, x, 1, NULL), "upload");
    RaidKernelCacheStats st0, st;
    raidKernelCacheGetStats(ctx, &st0);

    RaidKernel *a = variant_kernel(ctx, 1001); /* held throughout */
    RaidKernel *b = variant_kernel(ctx, 1002);
    raidKernelPut(ctx, b);
    RaidKernel *c = variant_kernel(ctx, 1003); /* b is the least recently used unheld: evicted */
    raidKernelPut(ctx, c);
    raidKernelCacheGetStats(ctx, &st);
    assert_true(st.builds - st0.builds == 3);
    assert_true(st.evictions - st0.evictions == 1);
    assert_true(st.entries == 2);

    b = variant_kernel(ctx, 1002); /* rebuilt (c goes) */
    raidKernelCacheGetStats(ctx, &st);
    assert_true(st.builds - st0.builds == 4);
    assert_true(st.evictions - st0.evictions == 2);
    run_variant(ctx, b, 1002, &bx, &by, x, y, n);
    RaidKernel *a2 = variant_kernel(ctx, 1001); /* a hit: the same kernel, nothing built */
    assert_ptr_equal(a, a2);
    raidKernelCacheGetStats(ctx, &st);
    assert_true(st.builds - st0.builds == 4);
    raidKernelPut(ctx, a2);

    /* three held kernels at capacity 2: none evicted until released */
    c = variant_kernel(ctx, 1003);
    raidKernelCacheGetStats(ctx, &st);
    assert_true(st.entries == 3);
    run_variant(ctx, a, 1001, &bx, &by, x, y, n);
    run_variant(ctx, c, 1003, &bx, &by, x, y, n);
    raidKernelPut(ctx, c);
    raidKernelCacheGetStats(ctx, &st);
    assert_true(st.entries == 2);
    raidKernelPut(ctx, a);
    raidKernelPut(ctx, b);
    raidBufRelease(ctx, &bx);
    raidBufRelease(ctx, &by);
    raid_ctx_destroy(ctx);
}

/* A sweep of max_lag 0..40 on one context (41 meat kernels, once past the old fixed cache of
 * 32), each against the cpu backend's long double meat. */
static void test_meat_lag_sweep(void **state)
{
    (void)state;
    raid_ctx *dev = open_dev();
    if (!dev)
        skip();
    raid_ctx *cpu = t_open_ctx("cpu");
    enum { K = 3, NREG = 2, ROWS = 700, MAXL = 40 };
    const int64_t off[NREG + 1] = {0, 300, ROWS};
    double *X = malloc(ROWS * K * sizeof *X), *y = malloc(ROWS * sizeof *y), beta[NREG * K];
    double *md = malloc(NREG * (MAXL + 1) * K * K * sizeof *md), *mc = malloc(NREG * (MAXL + 1) * K * K * sizeof *mc);
    assert_non_null(X);
    assert_non_null(y);
    assert_non_null(md);
    assert_non_null(mc);
    for (int t = 0; t < ROWS; t++) {
        X[t * K] = 1.0;
        X[t * K + 1] = urand() * 2 - 1;
        X[t * K + 2] = 3.0 + urand();
        y[t] = 0.5 + 0.2 * X[t * K + 1] - 0.1 * X[t * K + 2] + 0.3 * (urand() - 0.5);
    }
    for (int g = 0; g < NREG; g++) {
        beta[g * K] = 0.5 + 0.01 * g;
        beta[g * K + 1] = 0.2;
        beta[g * K + 2] = -0.1;
    }
    for (int L = 0; L <= MAXL; L++) {
        if (raid_reg_meat_compute(dev, X, y, K, off, NREG, beta, L, md) != RAID_OK)
            fail_msg("max_lag %d: %s", L, raid_ctx_errmsg(dev));
        if (raid_reg_meat_compute(cpu, X, y, K, off, NREG, beta, L, mc) != RAID_OK)
            fail_msg("cpu, max_lag %d: %s", L, raid_ctx_errmsg(cpu));
        const size_t nc = (size_t)(L + 1) * K * K;
        for (int g = 0; g < NREG; g++) {
            double scale = 0; /* the lag-0 diagonal bounds every term's size (Cauchy-Schwarz) */
            for (int p = 0; p < K; p++)
                scale = fmax(scale, mc[g * nc + (size_t)p * K + p]);
            for (size_t c = 0; c < nc; c++)
                if (fabs(md[g * nc + c] - mc[g * nc + c]) > 1e-10 * scale)
                    fail_msg("max_lag %d, problem %d, entry %zu: %.17g vs cpu %.17g", L, g, c, md[g * nc + c],
                             mc[g * nc + c]);
        }
    }
    uint64_t entries, builds, evictions;
    raid_tuning_kernel_cache(dev, &entries, &builds, &evictions);
    assert_true(builds >= MAXL + 1);
    free(X);
    free(y);
    free(md);
    free(mc);
    raid_ctx_destroy(dev);
    raid_ctx_destroy(cpu);
}

/* The knobs' errors, and the cpu backend's answers. */
/* raidBufUploadStaged: pieces through page-locked staging (20,000,003 words: several pieces and a
 * short last one) at a non-zero first element, a small plain upload, and RAID_TUNE_DIRECT_UPLOAD. */
static void test_upload_staged(void **state)
{
    (void)state;
    if (!t_have_opencl())
        skip();
    raid_ctx *ctx = open_dev();
    const size_t n = 20000003, first = 5;
    uint32_t *a = malloc(n * sizeof *a), *b = malloc((n + first) * sizeof *b);
    assert_non_null(a);
    assert_non_null(b);
    for (size_t i = 0; i < n; i++)
        a[i] = (uint32_t)(i * 2654435761u);
    RaidBuf buf = {0};
    ok(ctx, raidBufAcquire(ctx, RAID_DT_UINT, n + first, &buf), "acquire");
    for (int direct = 0; direct < 2; direct++) {
        ok(ctx, raid_tuning_set(ctx, RAID_TUNE_DIRECT_UPLOAD, direct), "knob");
        for (size_t len = 1000; len <= n; len = len == 1000 ? n : n + 1) {
            memset(b, 0, (n + first) * sizeof *b);
            ok(ctx, raidBufUploadStaged(ctx, &buf, first, len, a), "upload_staged");
            ok(ctx, raidBufDownload(ctx, &buf, first, len, b, 1, NULL), "download");
            assert_memory_equal(a, b, len * sizeof *a);
        }
    }
    raidBufRelease(ctx, &buf);
    raid_ctx_destroy(ctx);
    free(a), free(b);
}

/* raidCopyStream: every alignment of source and destination (0 to 16 bytes past a 16-byte boundary),
 * lengths around the 64-byte step and one large copy; the bytes around the destination stay untouched. */
static void test_copy_stream(void **state)
{
    (void)state;
    const size_t big = 100007, cap = big + 64;
    unsigned char *src = malloc(cap), *dst = malloc(cap), *want = malloc(cap);
    assert_non_null(src);
    assert_non_null(dst);
    assert_non_null(want);
    for (size_t i = 0; i < cap; i++)
        src[i] = (unsigned char)(i * 131u + 7u);
    for (size_t so = 0; so <= 16; so++)
        for (size_t d0 = 0; d0 <= 16; d0++)
            for (size_t len = 0; len <= big; len = len < 200 ? len + 1 : len == 200 ? big : big + 1) {
                memset(dst, 0xA5, cap);
                memcpy(want, dst, cap);
                memcpy(want + d0, src + so, len);
                raidCopyStream(dst + d0, src + so, len);
                assert_memory_equal(dst, want, cap);
            }
    free(src), free(dst), free(want);
}

static void test_tuning_errors(void **state)
{
    (void)state;
    raid_ctx *cpu = t_open_ctx("cpu");
    assert_int_equal(raid_tuning_set(cpu, RAID_TUNE_KERNEL_REPEAT, 0), RAID_EINVAL);
    assert_non_null(strstr(raid_ctx_errmsg(cpu), "kernel repeat"));
    assert_int_equal(raid_tuning_set(cpu, (raid_tuning_knob)99, 1), RAID_EINVAL);
    assert_int_equal(raid_tuning_set(cpu, RAID_TUNE_KERNEL_CACHE_CAP, 8), RAID_EUNSUPPORTED);
    assert_int_equal(raid_tuning_set(cpu, RAID_TUNE_MAX_BATCH_ELEMS, 1000), RAID_OK);
    char big[400];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = 0;
    assert_int_equal(raid_tuning_set_build_options(cpu, big), RAID_EINVAL);
    double bw;
    assert_int_equal(raid_tuning_copy_bandwidth(cpu, 1024, 1, &bw), RAID_EUNSUPPORTED);
    uint64_t e = 9;
    raid_tuning_kernel_cache(cpu, &e, NULL, NULL);
    assert_true(e == 0);
    raid_ctx_destroy(cpu);
}

/* IEEE binary64 on integer words on the device (kernels/raid_f64.h through the prelude): every operation's
 * bits equal the host's raidF64 functions' (the same source; tests/test_f64.c checks those against the host's
 * double arithmetic) on random bit patterns, operands near one another, and the boundary exponents. */
static void test_f64_ops(void **state)
{
    (void)state;
    if (!t_have_opencl())
        skip();
    raid_ctx *ctx = t_open_ctx(t_device());
    const uint32_t n = 1u << 16;
    uint64_t *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *r = malloc(n * sizeof *r);
    assert_true(a && b && r);
    uint64_t s = 7;
    for (uint32_t i = 0; i < n; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        const uint64_t x = s ^ (s >> 29);
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        const uint64_t y = s ^ (s >> 31);
        switch (i % 4) {
        case 0: /* uniform bit patterns */
            a[i] = x, b[i] = y;
            break;
        case 1: /* near one another: cancellation, quotients near 1 */
            a[i] = x & 0x7FEFFFFFFFFFFFFFull, b[i] = (a[i] ^ (y & 0xFFFFFull)) | (y & (1ull << 63));
            break;
        case 2: /* boundary exponents: subnormal and near-overflow results */
            a[i] = (x & 0x800FFFFFFFFFFFFFull) | ((uint64_t)(y % 64) << 52);
            b[i] = (y & 0x800FFFFFFFFFFFFFull) | ((uint64_t)(0x7FE - x % 64) << 52);
            break;
        default: /* products and quotients crossing the ends of the range */
            a[i] = (x & 0x800FFFFFFFFFFFFFull) | ((uint64_t)(0x3FF + y % 1100 - 550) << 52);
            b[i] = (y & 0x800FFFFFFFFFFFFFull) | ((uint64_t)(0x3FF + x % 1100 - 550) << 52);
        }
    }
    RaidBuf ba, bb, br;
    ok(ctx, raidBufAcquire(ctx, RAID_DT_LONG, n, &ba), "acquire");
    ok(ctx, raidBufAcquire(ctx, RAID_DT_LONG, n, &bb), "acquire");
    ok(ctx, raidBufAcquire(ctx, RAID_DT_LONG, n, &br), "acquire");
    ok(ctx, raidBufUpload(ctx, &ba, 0, n, a, 1, NULL), "upload");
    ok(ctx, raidBufUpload(ctx, &bb, 0, n, b, 1, NULL), "upload");
    RaidKernel *k = kern(ctx, "f64_ops", "");
    const size_t global = n, local = 64;
    for (uint32_t op = 0; op < 5; op++) {
        ok(ctx, raidArgBuf(ctx, k, 0, &ba), "arg");
        ok(ctx, raidArgBuf(ctx, k, 1, &bb), "arg");
        ok(ctx, raidArgBuf(ctx, k, 2, &br), "arg");
        ok(ctx, raidArgUint(ctx, k, 3, op), "arg");
        ok(ctx, raidArgUint(ctx, k, 4, n), "arg");
        ok(ctx, raidLaunch(ctx, k, 1, &global, &local, NULL), "launch");
        ok(ctx, raidBufDownload(ctx, &br, 0, n, r, 1, NULL), "download");
        uint32_t bad = 0;
        for (uint32_t i = 0; i < n; i++) {
            const uint64_t h = op == 0 ? raidF64Add(a[i], b[i]) : op == 1 ? raidF64Sub(a[i], b[i])
                             : op == 2 ? raidF64Mul(a[i], b[i]) : op == 3 ? raidF64Div(a[i], b[i]) : raidF64Sqrt(a[i]);
            if (r[i] != h && bad++ < 5)
                print_error("op %u (%016llx, %016llx): device %016llx, host %016llx\n", op, (unsigned long long)a[i],
                            (unsigned long long)b[i], (unsigned long long)r[i], (unsigned long long)h);
        }
        if (bad)
            fail_msg("op %u: %u of %u results differ from the host's", op, bad, n);
    }
    raidKernelPut(ctx, k);
    raidBufRelease(ctx, &ba);
    raidBufRelease(ctx, &bb);
    raidBufRelease(ctx, &br);
    free(a), free(b), free(r);
    raid_ctx_destroy(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_map),
        cmocka_unit_test(test_multipass_resident),
        cmocka_unit_test(test_recursion_ema),
        cmocka_unit_test(test_typed_buffers),
        cmocka_unit_test(test_200_kernels),
        cmocka_unit_test(test_eviction_rebuild),
        cmocka_unit_test(test_meat_lag_sweep),
        cmocka_unit_test(test_tuning_errors),
        cmocka_unit_test(test_upload_staged),
        cmocka_unit_test(test_copy_stream),
        cmocka_unit_test(test_f64_ops),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
