/*
 * Every kernel file compiles as CUDA C++ through NVRTC the way the CUDA backend compiles it (docs/device.md
 * "The kernel dialect"): the prelude (raidKernelPrelude: raid_compat.h, whose CUDA branch RAID_CUDA selects,
 * then the shared headers), "#line 1", the file; the backend's options (-DRAID_CUDA --fmad=false
 * -diag-suppress=161) and, per file, the build options its callers pass (the variants below, collected from
 * src/: every -D a caller sets, in its extreme or characteristic values). A build must succeed with an empty
 * log (no warning: a warning here is a construct outside the dialect or a CUDA semantic difference), and its
 * PTX must hold an entry for every RAID_KERNEL of the file. libnvrtc.so is dlopen'ed (RAID_NVRTC, else the
 * loader's path, else /usr/local/cuda/lib64); where there is none (CI) the test exits 77, which ctest
 * reports as skipped (SKIP_RETURN_CODE). Nothing runs: this checks the dialect's CUDA branch compiles and
 * exports every kernel; tests on a GPU check results.
 */
#define _POSIX_C_SOURCE 200809L
#include "support.h"
#include "device/kernels_embedded.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int (*create_fn)(void **, const char *, const char *, int, const char *const *, const char *const *);
typedef int (*compile_fn)(void *, int, const char *const *);
typedef int (*size_fn)(void *, size_t *);
typedef int (*text_fn)(void *, char *);
typedef int (*destroy_fn)(void **);

static struct {
    void *lib;
    create_fn create;
    compile_fn compile;
    size_fn log_size, ptx_size;
    text_fn log, ptx;
    destroy_fn destroy;
} nv;

static int nvrtc_open(void)
{
    const char *env = getenv("RAID_NVRTC");
    const char *names[] = {env, "libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12", "/usr/local/cuda/lib64/libnvrtc.so"};
    for (size_t i = 0; i < sizeof names / sizeof *names && !nv.lib; i++)
        if (names[i] && *names[i])
            nv.lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (!nv.lib)
        return 0;
    *(void **)&nv.create = dlsym(nv.lib, "nvrtcCreateProgram");
    *(void **)&nv.compile = dlsym(nv.lib, "nvrtcCompileProgram");
    *(void **)&nv.log_size = dlsym(nv.lib, "nvrtcGetProgramLogSize");
    *(void **)&nv.log = dlsym(nv.lib, "nvrtcGetProgramLog");
    *(void **)&nv.ptx_size = dlsym(nv.lib, "nvrtcGetPTXSize");
    *(void **)&nv.ptx = dlsym(nv.lib, "nvrtcGetPTX");
    *(void **)&nv.destroy = dlsym(nv.lib, "nvrtcDestroyProgram");
    return nv.create && nv.compile && nv.log_size && nv.log && nv.ptx_size && nv.ptx && nv.destroy;
}

/* The options of the CUDA backend (docs/device.md; raid_compat.h's header): the CUDA branch, no contraction,
 * the kernels' own "#pragma OPENCL FP_CONTRACT OFF" not reported; Hopper, the GPUs RAID is measured on. */
static const char *const backend_opts[] = {"-DRAID_CUDA", "--fmad=false", "-diag-suppress=161",
                                           "--gpu-architecture=compute_90"};

/* Each file's build options as its callers pass them (src/realized/realized_device.c, src/regress/stats.c,
 * src/regress/meat_device.c, src/models/garch_eval_device.c, src/column/{sort,select,groupby}_cl.c; ta_ma.cl and
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
    {"realized.cl", "-DRAID_WG=64 -DRAID_RUN=2 -DRAID_XSTEP=1 -DRAID_INPUT_DF=1 -DRAID_PART=15 -DRAID_RELOAD=1 "
                    "-DRAID_MAXR_HI=0x4F4C4C8Bu -DRAID_MAXR_LO=0x1349B9B5u"},
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
    {"ta_ma.cl", ""},
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

/* Compiles src (labelled file) with the variant's options; fails the test on an error, a non-empty log or a
 * missing entry. */
static void compile_one(const char *file, const char *src, const char *opts)
{
    char *text = NULL;
    size_t n = 0;
    for (const char *const *h = raidKernelPrelude; *h; h++) {
        const char *hs = embedded(*h);
        if (!hs)
            fail_msg("the prelude names %s, which is not embedded", *h);
        append(&text, &n, hs);
    }
    char line[160];
    snprintf(line, sizeof line, "\n#line 1 \"%s\"\n", file);
    append(&text, &n, line);
    append(&text, &n, src);

    const char *argv[32];
    int argc = 0;
    for (size_t i = 0; i < sizeof backend_opts / sizeof *backend_opts; i++)
        argv[argc++] = backend_opts[i];
    char *copy = strdup(opts), *save = NULL;
    assert_non_null(copy);
    for (char *t = strtok_r(copy, " ", &save); t && argc < 32; t = strtok_r(NULL, " ", &save))
        argv[argc++] = t;

    void *prog = NULL;
    assert_int_equal(nv.create(&prog, text, file, 0, NULL, NULL), 0);
    const int rc = nv.compile(prog, argc, argv);
    size_t ls = 0;
    assert_int_equal(nv.log_size(prog, &ls), 0);
    char *log = calloc(ls + 1, 1);
    assert_non_null(log);
    assert_int_equal(nv.log(prog, log), 0);
    if (rc != 0 || strspn(log, " \n\r\t") != strlen(log))
        fail_msg("NVRTC: kernels/%s (%s): %s\n%s", file, opts, rc ? "failed" : "warnings", log);
    size_t ps = 0;
    assert_int_equal(nv.ptx_size(prog, &ps), 0);
    char *ptx = calloc(ps + 1, 1);
    assert_non_null(ptx);
    assert_int_equal(nv.ptx(prog, ptx), 0);
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
    nv.destroy(&prog);
    free(ptx);
    free(log);
    free(copy);
    free(text);
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

/* The backend's options forbid contraction: NVRTC's default turns a * b + c into fma.rn.f32 (checked here
 * too, so that the probe proves something), --fmad=false keeps mul.rn and add.rn, which ptxas does not fuse. */
static void test_no_contraction(void **state)
{
    (void)state;
    const char *probe = "extern \"C\" __global__ void probe(float *p) { p[0] = p[1] * p[2] + p[3]; }\n";
    for (int fmad_off = 0; fmad_off < 2; fmad_off++) {
        const char *argv[8];
        int argc = 0;
        for (size_t i = 0; i < sizeof backend_opts / sizeof *backend_opts; i++)
            if (fmad_off || strcmp(backend_opts[i], "--fmad=false"))
                argv[argc++] = backend_opts[i];
        void *prog = NULL;
        assert_int_equal(nv.create(&prog, probe, "probe.cu", 0, NULL, NULL), 0);
        assert_int_equal(nv.compile(prog, argc, argv), 0);
        size_t ps = 0;
        assert_int_equal(nv.ptx_size(prog, &ps), 0);
        char *ptx = calloc(ps + 1, 1);
        assert_non_null(ptx);
        assert_int_equal(nv.ptx(prog, ptx), 0);
        if (fmad_off) {
            assert_null(strstr(ptx, "fma."));
            assert_non_null(strstr(ptx, "mul.rn.f32"));
        } else {
            assert_non_null(strstr(ptx, "fma.rn.f32"));
        }
        nv.destroy(&prog);
        free(ptx);
    }
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
    if (!nvrtc_open()) {
        printf("no libnvrtc.so: skipped\n");
        return 77;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_contraction),
        cmocka_unit_test(test_every_kernel_file),
        cmocka_unit_test(test_device_test_kernels),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
