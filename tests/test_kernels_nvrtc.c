/*
 * Every kernel file compiles as CUDA C++ through NVRTC the way the CUDA backend compiles it (docs/device.md
 * "The kernel dialect"): through the backend's own compile path, raidCudaCompile (its NVRTC, its options:
 * -DRAID_CUDA=1 --fmad=false -diag-suppress=161 ...), the prelude and the file's own headers (raidKernelHeaders: raid_compat.h, whose
 * CUDA branch RAID_CUDA selects, then the shared headers), "#line 1", the file, and per file the build options
 * its callers pass (the variants below, collected from src/: every -D a caller sets, in its extreme or
 * characteristic values). A build must succeed with an empty log (no warning: a warning here is a construct
 * outside the dialect or a CUDA semantic difference), and its PTX must hold an entry for every RAID_KERNEL of
 * the file. Where NVRTC cannot be loaded (CI) the test exits 77, which ctest reports as skipped
 * (SKIP_RETURN_CODE). Nothing runs: this checks the dialect's CUDA branch compiles and exports every kernel;
 * tests on a GPU check results.
 */
#define _POSIX_C_SOURCE 200809L
#include "support.h"
#include "device/kernels_embedded.h"

#include "device/backend.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Hopper's virtual architecture: PTX text, whatever GPU (if any) this machine has. */
#define ARCH "compute_90"

/* Each file's build options as its callers pass them (src/realized/realized_device.c, src/realized/noise_device.c, src/regress/stats.c,
 * src/regress/meat_device.c, src/models/garch_eval_device.c, src/column/{sort,select,groupby}_device.c, src/f64/f64_device.c, src/cov/cov_device.c; ta_ma.cl and
 * ta_sweep.cl take none), and the tuning options that change code (RAID_RELOAD, RAID_PART). */
static const struct variant {
    const char *file, *opts;
} variants[] = {
    {"realized.cl", "-DRAID_WG=256 -DRAID_RUN=16 -DRAID_XSTEP=2 -DRAID_INPUT_DF=1 -DRAID_PART=15 "
                    "-DRAID_MAXR_HI=0x4F4C4C8Bu -DRAID_MAXR_LO=0x1349B9B5u"},
    {"realized.cl", "-DRAID_WG=256 -DRAID_RUN=16 -DRAID_BITS=0 -DRAID_INPUT_DF=0 -DRAID_PART=15 "
                    "-DRAID_MAXR_HI=0x4F4C4C8Bu -DRAID_MAXR_LO=0x1349B9B5u"},
    {"realized.cl", "-DRAID_WG=256 -DRAID_RUN=16 -DRAID_BITS=1 -DRAID_INPUT_DF=0 -DRAID_PART=15 "
                    "-DRAID_MAXR_HI=0x4F4C4C8Bu -DRAID_MAXR_LO=0x1349B9B5u"},
    {"realized.cl", "-DRAID_WG=64 -DRAID_RUN=6 -DRAID_BITS=0 -DRAID_INPUT_DF=0 -DRAID_PART=15 "
                    "-DRAID_MAXR_HI=0x4F4C4C8Bu -DRAID_MAXR_LO=0x1349B9B5u"},
    {"realized.cl", "-DRAID_WG=256 -DRAID_RUN=16 -DRAID_XSTEP=2 -DRAID_INPUT_DF=1 -DRAID_PART=15 -DRAID_DF_GROUPS=1 "
                    "-DRAID_MAXR_HI=0x4F4C4C8Bu -DRAID_MAXR_LO=0x1349B9B5u"},
    {"realized.cl", "-DRAID_WG=64 -DRAID_RUN=2 -DRAID_XSTEP=1 -DRAID_INPUT_DF=1 -DRAID_PART=15 -DRAID_RELOAD=1 "
                    "-DRAID_MAXR_HI=0x4F4C4C8Bu -DRAID_MAXR_LO=0x1349B9B5u"},
    {"noise.cl", "-DRAID_WG=256 -DRAID_NL=1"},
    {"noise.cl", "-DRAID_WG=64 -DRAID_NL=512"},
    {"regress.cl", "-DRAID_WG=256 -DRAID_RUN=16 -DRAID_D=3 -DRAID_INPUT_DF=1 -DRAID_MAXV_HI=0x5F138D35u "
                   "-DRAID_MAXV_LO=0x1C5C5E5Fu"},
    {"regress.cl", "-DRAID_WG=128 -DRAID_RUN=8 -DRAID_D=9 -DRAID_INPUT_DF=0 -DRAID_MAXV_HI=0x5F138D35u "
                   "-DRAID_MAXV_LO=0x1C5C5E5Fu"},
    {"meat.cl", "-DRAID_WG=256 -DRAID_CHUNK=256 -DRAID_K=3 -DRAID_L=4 -DRAID_INPUT_DF=1"},
    {"meat.cl", "-DRAID_WG=64 -DRAID_CHUNK=512 -DRAID_K=1 -DRAID_L=0 -DRAID_INPUT_DF=0"},
    {"garch.cl", "-DGM_MODEL=0 -DGM_T=0 -DGM_MU=1 -DGM_DNU=0"},
    {"garch.cl", "-DGM_MODEL=1 -DGM_T=1 -DGM_MU=0 -DGM_DNU=0"},
    {"garch.cl", "-DGM_MODEL=2 -DGM_T=1 -DGM_MU=1 -DGM_DNU=1"},
    {"garch.cl", "-DGM_MODEL=2 -DGM_T=0 -DGM_MU=0 -DGM_DNU=0"},
    {"f64.cl", "-DF64_NIN=2 -DF64_BODY=raidF64Fma(x0,x1,raidF64Div(raidF64Add(x0,x1),raidF64Sqrt((x1&0x7FFFFFFFFFFFFFFFul))))"},
    {"ta_ma.cl", ""},
    {"cov.cl", "-DCOV_POLAR=0"},
    {"cov.cl", "-DCOV_POLAR=1"},
    {"cov.cl", ""}, /* cov_hy: raidCovHy passes no option */
    {"ta_sweep.cl", ""},
    {"col_sort.cl", "-DSORT_BITS=8 -DSORT_WG=256 -DSORT_ROUNDS=20 -DSORT_PAY=1"},
    {"col_sort.cl", "-DSORT_BITS=8 -DSORT_WG=256 -DSORT_ROUNDS=20 -DSORT_PAY=0"},
    {"col_sort.cl", "-DSORT_BITS=8 -DSORT_WG=256 -DSORT_ROUNDS=16 -DSORT_PAY=1 -DSORT_PDIG=1"},
    {"col_sort.cl", "-DSORT_BITS=5 -DSORT_WG=32 -DSORT_ROUNDS=1"},
    {"col_sort.cl", ""}, /* raidGather64's sort_gather (src/device/launch.c): the file's defaults */
    {"col_select.cl", ""},
    {"col_select.cl", "-DSEL_NP=1"},
    {"col_groupby.cl", ""},
    {"col_groupby.cl", "-DGB_L=4 -DGB_SUM=1 -DGB_MINMAX=1 -DGB_FIRSTLAST=1 -DGB_EB=0 -DGB_NB=1 -DGB_B0=0 -DGB_NOCNT=0 "
                       "-DGB_CHECK=0 -DGB_LTW=4096"},
    {"col_groupby.cl", "-DGB_L=34 -DGB_SUM=1 -DGB_MINMAX=0 -DGB_FIRSTLAST=0 -DGB_EB=1 -DGB_NB=12 -DGB_B0=3 "
                       "-DGB_NOCNT=1 -DGB_CHECK=0 -DGB_LTW=1"},
    {"col_groupby.cl", "-DGB_L=3 -DGB_SUM=1 -DGB_MINMAX=0 -DGB_FIRSTLAST=0 -DGB_EB=0 -DGB_NB=1 -DGB_B0=0 -DGB_NOCNT=0 "
                       "-DGB_CHECK=1 -DGB_LTW=8192"},
};

static const char *embedded(const char *name)
{
    for (const RaidKernelFile *k = raidKernelFiles; k->name; k++)
        if (!strcmp(k->name, name))
            return k->source;
    return NULL;
}

/* Appends s to the growing buffer *b (length *n). */
static void append(char **b, size_t *n, const char *s)
{
    const size_t k = strlen(s);
    *b = realloc(*b, *n + k + 1);
    assert_non_null(*b);
    memcpy(*b + *n, s, k + 1);
    *n += k;
}

/* The names of the file's kernels: the identifier before '(' after each RAID_KERNEL (comments are not
 * stripped: the kernel files name RAID_KERNEL only in code). At most max names. */
static int kernel_names(const char *src, char names[][64], int max)
{
    int k = 0;
    for (const char *p = strstr(src, "RAID_KERNEL"); p && k < max; p = strstr(p + 1, "RAID_KERNEL")) {
        const char *par = strchr(p, '(');
        if (!par)
            break;
        const char *e = par;
        while (e > p && (e[-1] == ' ' || e[-1] == '\n'))
            e--;
        const char *s = e;
        while (s > p && (s[-1] == '_' || (s[-1] >= 'a' && s[-1] <= 'z') || (s[-1] >= 'A' && s[-1] <= 'Z') ||
                         (s[-1] >= '0' && s[-1] <= '9')))
            s--;
        if (!strncmp(s, "RAID_REQD_WG", 12)) { /* RAID_KERNEL RAID_REQD_WG(n) void name( */
            par = strchr(strchr(par, ')') + 1, '(');
            e = par;
            while (e[-1] == ' ' || e[-1] == '\n')
                e--;
            s = e;
            while (s[-1] == '_' || (s[-1] >= 'a' && s[-1] <= 'z') || (s[-1] >= 'A' && s[-1] <= 'Z') ||
                   (s[-1] >= '0' && s[-1] <= '9'))
                s--;
        }
        if (e - s > 0 && e - s < 64) {
            memcpy(names[k], s, (size_t)(e - s));
            names[k][e - s] = 0;
            k++;
        }
    }
    return k;
}

/* The PTX of parts (labelled label) built by the CUDA backend's compile path with opts; fails the test on an
 * error or a non-empty log. Free the result. */
static char *backend_ptx(const char *label, const char *const *parts, size_t nparts, const char *opts)
{
    void *bin = NULL;
    size_t len = 0;
    char *log = NULL;
    if (raidCudaCompile(NULL, label, parts, nparts, opts, ARCH, 0, &bin, &len, &log) != RAID_OK)
        fail_msg("NVRTC: %s (%s): %s", label, opts, raid_errmsg());
    if (log && strspn(log, " \n\r\t") != strlen(log))
        fail_msg("NVRTC: %s (%s): warnings\n%s", label, opts, log);
    free(log);
    char *ptx = realloc(bin, len + 1); /* NUL-terminated text */
    assert_non_null(ptx);
    ptx[len] = 0;
    return ptx;
}

/* Compiles src (labelled file) with the variant's options as the backend does (the prelude, "#line 1", the
 * file); fails the test on an error, a non-empty log or a missing entry. */
static void compile_one(const char *file, const char *src, const char *opts)
{
    const char *parts[RAID_PRELUDE_MAX + 2], *headers[RAID_PRELUDE_MAX];
    const int nh = raidKernelHeaders(file, headers, RAID_PRELUDE_MAX);
    assert_true(nh >= 0);
    size_t np = 0;
    for (int i = 0; i < nh; i++) {
        const char *hs = embedded(headers[i]);
        if (!hs)
            fail_msg("kernels/prelude.txt names %s, which is not embedded", headers[i]);
        parts[np++] = hs;
    }
    char line[160];
    snprintf(line, sizeof line, "\n#line 1 \"%s\"\n", file);
    parts[np++] = line;
    parts[np++] = src;
    char *ptx = backend_ptx(file, parts, np, opts);
    static char names[32][64];
    const int nk = kernel_names(src, names, 32);
    assert_true(nk >= 1);
    for (int k = 0; k < nk; k++) {
        char want[96];
        assert_true(strlen(names[k]) < 64);
        snprintf(want, sizeof want, ".entry %.63s(", names[k]);
        if (!strstr(ptx, want))
            fail_msg("NVRTC: kernels/%s (%s): no entry %s in the PTX", file, opts, names[k]);
    }
    free(ptx);
}

static void test_every_kernel_file(void **state)
{
    (void)state;
    /* every .cl file of the table has a variant */
    for (const RaidKernelFile *k = raidKernelFiles; k->name; k++) {
        const size_t len = strlen(k->name);
        if (len < 3 || strcmp(k->name + len - 3, ".cl"))
            continue;
        int found = 0;
        for (size_t v = 0; v < sizeof variants / sizeof *variants; v++)
            found |= !strcmp(variants[v].file, k->name);
        if (!found)
            fail_msg("kernels/%s has no NVRTC variant in tests/test_kernels_nvrtc.c", k->name);
    }
    for (size_t v = 0; v < sizeof variants / sizeof *variants; v++) {
        const char *src = embedded(variants[v].file);
        assert_non_null(src);
        compile_one(variants[v].file, src, variants[v].opts);
    }
}

/* The backend's options forbid contraction: a * b + c stays mul.rn and add.rn in the PTX (NVRTC's default
 * would make it fma.rn.f32; ptxas does not fuse the rounded pair). An explicit fmaf in the same build gives
 * fma.rn.f32, so that the probe's test for "fma." is shown to see one. */
static void test_no_contraction(void **state)
{
    (void)state;
    const char *probe[] = {"extern \"C\" __global__ void probe(float *p) { p[0] = p[1] * p[2] + p[3]; }\n"};
    char *ptx = backend_ptx("probe.cu", probe, 1, "");
    assert_null(strstr(ptx, "fma."));
    assert_non_null(strstr(ptx, "mul.rn.f32"));
    assert_non_null(strstr(ptx, "add.rn.f32"));
    free(ptx);
    const char *fused[] = {"extern \"C\" __global__ void probe(float *p) { p[0] = fmaf(p[1], p[2], p[3]); }\n"};
    ptx = backend_ptx("fused.cu", fused, 1, "");
    assert_non_null(strstr(ptx, "fma.rn.f32"));
    free(ptx);
}

/* The test kernels of tests/test_device.c go through the same prelude. */
static void test_device_test_kernels(void **state)
{
    (void)state;
    FILE *f = fopen(RAID_SOURCE_DIR "/tests/kernels/device_test.cl", "rb");
    assert_non_null(f);
    char *src = NULL;
    size_t n = 0;
    char buf[4096];
    size_t k;
    while ((k = fread(buf, 1, sizeof buf - 1, f)) > 0) {
        buf[k] = 0;
        append(&src, &n, buf);
    }
    fclose(f);
    compile_one("device_test.cl", src, "-DRAID_WG=64");
    free(src);
}

int main(void)
{
    const char *absent = raidCudaNvrtcAbsent();
    if (absent) {
        printf("%s: skipped\n", absent);
        return 77;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_contraction),
        cmocka_unit_test(test_every_kernel_file),
        cmocka_unit_test(test_device_test_kernels),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
