/*
 * NVRTC through the CUDA backend's compile path (raidCudaCompile, src/device/device_cuda.c), which needs no
 * driver: a kernel in the CUDA spelling of the kernels' dialect (kernels/raid_compat.h) compiles to a cubin
 * for sm_90 and to PTX; --fmad=false keeps a*b + c a rounded product and a rounded sum (no fma.rn.f32 in
 * the PTX: the double-float error-free transforms depend on it); a kernel with an error fails with
 * RAID_EBUILD and NVRTC's log; once kernels/raid_compat.h has its CUDA branch (it tests RAID_CUDA), the
 * three prepended headers compile under NVRTC with a kernel of this file.
 * Exits 77 (ctest's skip) where NVRTC cannot be loaded (CI has no CUDA).
 */
#define _GNU_SOURCE /* dladdr, for the failure message */
#include "support.h"
#include "raid.h"
#include "device/backend.h"
#include "device/kernels_embedded.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The dialect's CUDA spellings, as kernels/raid_compat.h documents them. */
static const char dialect[] =
    "#define RAID_KERNEL extern \"C\" __global__\n"
    "#define RAID_GLOBAL\n"
    "#define RAID_LOCAL __shared__\n"
    "#define RAID_REQD_WG(n)\n"
    "#define RAID_BARRIER() __syncthreads()\n"
    "#define RAID_GLOBAL_ID(d) (blockIdx.x * blockDim.x + threadIdx.x)\n"
    "#define RAID_LOCAL_ID(d) threadIdx.x\n"
    "#define RAID_GROUP_ID(d) blockIdx.x\n"
    "#define RAID_LOCAL_SIZE(d) blockDim.x\n"
    "#define RAID_FLOAT2(a, b) make_float2((a), (b))\n";

/* TwoSum and a product plus a sum that a contracting compiler would fuse; a block reduction in shared
 * memory; a local argument passed as its byte offset into the launch's dynamic shared memory. */
static const char kernel[] =
    "struct Df { float hi, lo; };\n"
    "static inline Df two_sum(float a, float b) {\n"
    "    float s = a + b, bb = s - a;\n"
    "    Df r; r.hi = s; r.lo = (a - (s - bb)) + (b - bb); return r;\n"
    "}\n"
    "RAID_KERNEL void df_axpy(RAID_GLOBAL const float *a, RAID_GLOBAL const float *b, RAID_GLOBAL const float *c,\n"
    "                         RAID_GLOBAL float2 *out, unsigned n, unsigned long long scratch_off) {\n"
    "    extern __shared__ unsigned char raid_dyn[];\n"
    "    float *scratch = (float *)(raid_dyn + scratch_off);\n"
    "    RAID_LOCAL float part[256];\n"
    "    unsigned i = RAID_GLOBAL_ID(0), l = RAID_LOCAL_ID(0);\n"
    "    float p = i < n ? a[i] * b[i] + c[i] : 0.0f;\n"
    "    part[l] = p; scratch[l] = p;\n"
    "    RAID_BARRIER();\n"
    "    for (unsigned s = RAID_LOCAL_SIZE(0) / 2; s > 0; s >>= 1) {\n"
    "        if (l < s) part[l] += part[l + s];\n"
    "        RAID_BARRIER();\n"
    "    }\n"
    "    Df d = two_sum(part[0], scratch[l]);\n"
    "    if (i < n) out[i] = RAID_FLOAT2(d.hi, d.lo);\n"
    "}\n";

static void test_cubin_and_ptx(void **state)
{
    (void)state;
    const char *parts[] = {dialect, kernel};
    void *bin = NULL;
    size_t len = 0;
    char *log = NULL;
    /* OpenCL's words with a CUDA meaning are translated: -cl-nv-verbose puts ptxas's report in the log */
    raid_status s = raidCudaCompile(NULL, "test_nvrtc.cu", parts, 2,
                                    "-cl-std=CL1.2 -DUNUSED=1 -cl-nv-verbose -cl-nv-maxrregcount=32", "sm_90", 1,
                                    &bin, &len, &log);
    if (s != RAID_OK)
        fail_msg("%s", raid_errmsg());
    assert_true(len > 100);
    assert_memory_equal(bin, "\177ELF", 4); /* a cubin is an ELF image */
    if (!strstr(log, "registers")) { /* say which NVRTC gave which log */
        const char *names[] = {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"};
        char which[600] = "unknown";
        for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
            void *h = dlopen(names[i], RTLD_NOW | RTLD_NOLOAD);
            if (!h)
                continue;
            int (*ver)(int *, int *) = (int (*)(int *, int *))dlsym(h, "nvrtcVersion");
            int ma = 0, mi = 0;
            Dl_info info;
            if (ver)
                ver(&ma, &mi);
            snprintf(which, sizeof which, "%s %d.%d at %s", names[i], ma, mi,
                     ver && dladdr((void *)ver, &info) && info.dli_fname ? info.dli_fname : "?");
            dlclose(h);
            break;
        }
        fail_msg("no ptxas register report in the log of %s; the log: %.400s", which, log);
    }
    free(bin);
    free(log);
    /* any other word goes to NVRTC, which refuses what it does not know: never dropped silently */
    s = raidCudaCompile(NULL, "test_nvrtc.cu", parts, 2, "-cl-mad-enable", "sm_90", 1, &bin, &len, &log);
    assert_int_equal(s, RAID_EBUILD);
    assert_null(bin);
    s = raidCudaCompile(NULL, "test_nvrtc.cu", parts, 2, "-cl-no-such-option", "sm_90", 1, &bin, &len, &log);
    assert_int_equal(s, RAID_EBUILD);
    s = raidCudaCompile(NULL, "test_nvrtc.cu", parts, 2, "", "compute_80", 0, &bin, &len, &log);
    if (s != RAID_OK)
        fail_msg("%s", raid_errmsg());
    const char *ptx = bin;
    assert_non_null(strstr(ptx, ".entry df_axpy")); /* extern "C": the name unmangled */
    assert_non_null(strstr(ptx, "mul.rn.f32"));
    assert_null(strstr(ptx, "fma.rn.f32")); /* --fmad=false: no contraction */
    free(bin);
    free(log);
}

static void test_build_error(void **state)
{
    (void)state;
    const char *parts[] = {dialect, "RAID_KERNEL void broken(RAID_GLOBAL float *x) { x[0] = undeclared_name; }\n"};
    void *bin = NULL;
    size_t len = 0;
    const raid_status s = raidCudaCompile(NULL, "broken.cu", parts, 2, "-DX=1", "sm_90", 1, &bin, &len, NULL);
    assert_int_equal(s, RAID_EBUILD);
    assert_null(bin);
    assert_non_null(strstr(raid_errmsg(), "building kernels/broken.cu"));
    assert_non_null(strstr(raid_errmsg(), "--fmad=false"));
    assert_non_null(strstr(raid_errmsg(), "undeclared_name")); /* NVRTC's log */
}

static const char *embedded(const char *name)
{
    for (const RaidKernelFile *k = raidKernelFiles; k->name; k++)
        if (!strcmp(k->name, name))
            return k->source;
    return NULL;
}

/* The prepended headers under NVRTC: only once raid_compat.h has its CUDA branch. */
static void test_prepended_headers(void **state)
{
    (void)state;
    const char *compat = embedded("raid_compat.h"), *df = embedded("raid_df.h"), *keys = embedded("raid_keys.h");
    assert_non_null(compat);
    if (!strstr(compat, "#ifdef RAID_CUDA") && !strstr(compat, "defined(RAID_CUDA)")) {
        print_message("kernels/raid_compat.h has no CUDA branch yet: the headers are not compiled\n");
        skip();
    }
    const char *parts[] = {compat, df, keys, "\n#line 1 \"test\"\n",
                           "RAID_KERNEL void t(RAID_GLOBAL float2 *o, float a, float b) {\n"
                           "    RaidDf s = raidTwoSum(a, b);\n"
                           "    o[RAID_GLOBAL_ID(0)] = RAID_FLOAT2(s.hi, s.lo);\n"
                           "}\n"};
    void *bin = NULL;
    size_t len = 0;
    const raid_status s = raidCudaCompile(NULL, "headers", parts, 5, "", "compute_80", 0, &bin, &len, NULL);
    if (s != RAID_OK)
        fail_msg("%s", raid_errmsg());
    assert_null(strstr((const char *)bin, "fma.rn.f32"));
    free(bin);
}

int main(void)
{
    /* ptxas reports registers only when it runs: NVRTC serves a compile it has seen before (in any process
     * on the machine) from CUDA's compute cache, with an empty log. On the H100 machine the first run of this
     * test had the report and a second run, minutes later, an empty log; CUDA_CACHE_DISABLE turns the cache
     * off (set before NVRTC is loaded). */
    setenv("CUDA_CACHE_DISABLE", "1", 1);
    const char *why = raidCudaNvrtcAbsent();
    if (why) {
        printf("skipped: %s\n", why);
        return 77;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cubin_and_ptx),
        cmocka_unit_test(test_build_error),
        cmocka_unit_test(test_prepended_headers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
