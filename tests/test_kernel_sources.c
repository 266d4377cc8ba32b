/*
 * Static checks of the OpenCL kernel sources and of how the host builds them:
 *   - no kernel source uses a 64-bit floating type (double, doubleN) or enables cl_khr_fp64 / cl_amd_fp64:
 *     RAID's point is float64-faithful results on float32-only hardware;
 *   - no host source under src/ passes -cl-fast-relaxed-math, -cl-mad-enable or
 *     -cl-unsafe-math-optimizations (the error-free transforms need exact IEEE rounding);
 *   - every .cl file sets #pragma OPENCL FP_CONTRACT OFF;
 *   - no kernel file but kernels/raid_compat.h uses an OpenCL or CUDA spelling of a built-in, qualifier or
 *     index (the patterns of tests/kernel_forbidden.txt): kernels speak the dialect only;
 *   - the table embedded in the library (device/kernels_embedded.h) holds every kernels/ file byte for byte;
 *   - one device layer: no library source but the backend's host file (src/device/device_opencl.c)
 *     includes an OpenCL header, and bench/ includes only public headers (include/) and its own;
 * and, where an OpenCL device exists, that raidKernelGet() reports errors as statuses with messages.
 */
#define _POSIX_C_SOURCE 200809L
#include "support.h"
#include "core/internal.h"
#include "device/device.h"
#include "device/kernels_embedded.h"

#include <dirent.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define KERNEL_DIR RAID_SOURCE_DIR "/kernels"
#define SRC_DIR RAID_SOURCE_DIR "/src"

/* ---- files ---- */

typedef struct blob {
    char *data; /* NUL-terminated copy */
    size_t len; /* bytes on disk */
} blob;

static blob read_blob(const char *path)
{
    blob b = {NULL, 0};
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("cannot open %s", path);
    if (fseek(f, 0, SEEK_END) != 0)
        fail_msg("cannot seek %s", path);
    long n = ftell(f);
    assert_true(n >= 0);
    rewind(f);
    b.len = (size_t)n;
    b.data = malloc(b.len + 1);
    assert_non_null(b.data);
    if (fread(b.data, 1, b.len, f) != b.len)
        fail_msg("cannot read %s", path);
    b.data[b.len] = 0;
    fclose(f);
    return b;
}

static int has_suffix(const char *s, const char *suf)
{
    size_t n = strlen(s), k = strlen(suf);
    return n >= k && !strcmp(s + n - k, suf);
}

static int is_kernel_file(const char *name) { return has_suffix(name, ".cl") || has_suffix(name, ".h"); }

typedef struct name_list {
    char **v;
    size_t n, cap;
} name_list;

static void list_push(name_list *l, const char *s)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 16;
        l->v = realloc(l->v, l->cap * sizeof *l->v);
        assert_non_null(l->v);
    }
    l->v[l->n] = strdup(s);
    assert_non_null(l->v[l->n]);
    l->n++;
}

static void list_free(name_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
    l->v = NULL;
    l->n = l->cap = 0;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Regular files of dir (full paths) accepted by keep(), recursing into subdirectories when recurse is set;
 * sorted. */
static void list_files(const char *dir, int (*keep)(const char *), int recurse, name_list *out)
{
    DIR *d = opendir(dir);
    if (!d)
        fail_msg("cannot open directory %s", dir);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat st;
        if (stat(path, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode)) {
            if (recurse)
                list_files(path, keep, recurse, out);
        } else if (S_ISREG(st.st_mode) && keep(e->d_name)) {
            list_push(out, path);
        }
    }
    closedir(d);
    if (out->n > 1)
        qsort(out->v, out->n, sizeof *out->v, cmp_str);
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* ---- a small C lexer: comments, string and character literals ---- */

/* A copy of src with every comment replaced by one space (newlines inside block comments kept, so line
 * numbers stay right) and, when strip_literals is set, every string or character literal replaced by a
 * space. A // comment continued by a backslash-newline goes on to the next line, as in C. An unterminated
 * comment or literal runs to the end of the text. */
static char *strip_c(const char *src, int strip_literals)
{
    size_t n = strlen(src);
    char *out = malloc(n + 1), *o = out;
    assert_non_null(out);
    size_t i = 0;
    while (i < n) {
        char c = src[i];
        if (c == '/' && src[i + 1] == '*') {
            i += 2;
            while (i < n && !(src[i] == '*' && src[i + 1] == '/')) {
                if (src[i] == '\n')
                    *o++ = '\n';
                i++;
            }
            i = i < n ? i + 2 : n;
            *o++ = ' ';
        } else if (c == '/' && src[i + 1] == '/') {
            i += 2;
            while (i < n && src[i] != '\n') {
                if (src[i] == '\\' && src[i + 1] == '\n')
                    i++;
                i++;
            }
            *o++ = ' ';
        } else if (c == '"' || c == '\'') {
            size_t start = i++;
            while (i < n && src[i] != c && src[i] != '\n') {
                if (src[i] == '\\' && i + 1 < n)
                    i++;
                i++;
            }
            if (i < n && src[i] == c)
                i++;
            if (strip_literals) {
                *o++ = ' ';
            } else {
                memcpy(o, src + start, i - start);
                o += i - start;
            }
        } else {
            *o++ = c;
            i++;
        }
    }
    *o = 0;
    return out;
}

static int is_ident_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
static int is_ident_char(char c) { return is_ident_start(c) || (c >= '0' && c <= '9'); }
static int is_digit(char c) { return c >= '0' && c <= '9'; }

static const char *const forbidden_idents[] = {"double",  "double2",     "double3",     "double4", "double8",
                                               "double16", "cl_khr_fp64", "cl_amd_fp64", NULL};

/* The first identifier of text (through strip_c(.., 1)) for which bad(identifier, arg) holds (NULL if none);
 * *line gets its line number. Preprocessing numbers (1.0e-5f, 0x1p-24f, 2u) are skipped whole, so their
 * letters are never taken for identifiers. */
static const char *find_ident(const char *text, int (*bad)(const char *tok, const void *arg), const void *arg,
                              int *line)
{
    int ln = 1;
    const char *p = text;
    static char tok[128];
    while (*p) {
        if (*p == '\n') {
            ln++;
            p++;
        } else if (is_digit(*p) || (*p == '.' && is_digit(p[1]))) {
            p++;
            while (is_ident_char(*p) || *p == '.' ||
                   ((*p == '+' || *p == '-') && strchr("eEpP", p[-1]) != NULL))
                p++;
        } else if (is_ident_start(*p)) {
            const char *s = p;
            while (is_ident_char(*p))
                p++;
            size_t k = (size_t)(p - s);
            if (k < sizeof tok) {
                memcpy(tok, s, k);
                tok[k] = 0;
                if (bad(tok, arg)) {
                    if (line)
                        *line = ln;
                    return tok;
                }
            }
        } else {
            p++;
        }
    }
    return NULL;
}

static int in_list(const char *tok, const void *arg)
{
    for (const char *const *l = arg; *l; l++)
        if (!strcmp(tok, *l))
            return 1;
    return 0;
}

static const char *forbidden_in_source(const char *src, int *line)
{
    char *t = strip_c(src, 1);
    const char *r = find_ident(t, in_list, forbidden_idents, line);
    free(t);
    return r;
}

/* ---- the dialect: no OpenCL or CUDA spelling outside raid_compat.h ---- */

#define FORBIDDEN_LIST RAID_SOURCE_DIR "/tests/kernel_forbidden.txt"

/* The patterns of tests/kernel_forbidden.txt (NULL-terminated; free with list_free). */
static void load_patterns(const char *path, name_list *out)
{
    blob b = read_blob(path);
    for (char *line = b.data, *nl; line && *line; line = nl) {
        nl = strchr(line, '\n');
        if (nl)
            *nl++ = 0;
        while (*line == ' ' || *line == '\t')
            line++;
        size_t n = strlen(line);
        while (n && (line[n - 1] == ' ' || line[n - 1] == '\t' || line[n - 1] == '\r'))
            line[--n] = 0;
        if (n && line[0] != '#')
            list_push(out, line);
    }
    list_push(out, "");
    out->n--; /* a terminator that list_free frees */
    free(out->v[out->n]);
    out->v[out->n] = NULL;
    free(b.data);
}

static int matches_pattern(const char *tok, const void *arg)
{
    for (char *const *l = arg; *l; l++)
        if (fnmatch(*l, tok, 0) == 0)
            return 1;
    return 0;
}

/* The first identifier of a kernel source (comments and literals stripped) that matches a pattern. */
static const char *outside_dialect(const char *src, char *const *patterns, int *line)
{
    char *t = strip_c(src, 1);
    const char *r = find_ident(t, matches_pattern, patterns, line);
    free(t);
    return r;
}

static const char *const forbidden_options[] = {"-cl-fast-relaxed-math", "-cl-mad-enable",
                                                "-cl-unsafe-math-optimizations", NULL};

/* The first forbidden build option in C source (comments removed, string literals kept: options live in
 * strings); NULL if none. */
static const char *forbidden_option_in(const char *src)
{
    char *t = strip_c(src, 0);
    const char *r = NULL;
    for (int j = 0; forbidden_options[j] && !r; j++)
        if (strstr(t, forbidden_options[j]))
            r = forbidden_options[j];
    free(t);
    return r;
}

/* 1 if some line of src (comments removed) is "#pragma OPENCL FP_CONTRACT OFF", with any blanks between
 * the tokens. */
static int has_contract_off(const char *src)
{
    static const char *const want[] = {"pragma", "OPENCL", "FP_CONTRACT", "OFF"};
    char *t = strip_c(src, 1);
    int found = 0;
    for (char *line = t; line && *line && !found;) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = 0;
        const char *p = line;
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p == '#') {
            p++;
            int ok = 1;
            for (int k = 0; k < 4 && ok; k++) {
                while (*p == ' ' || *p == '\t')
                    p++;
                size_t len = strlen(want[k]);
                ok = !strncmp(p, want[k], len) && !is_ident_char(p[len]);
                p += ok ? len : 0;
            }
            while (ok && (*p == ' ' || *p == '\t' || *p == '\r'))
                p++;
            found = ok && *p == 0;
        }
        line = nl ? nl + 1 : NULL;
    }
    free(t);
    return found;
}

/* ---- the checker checks itself ---- */

static void test_lexer_self_check(void **state)
{
    (void)state;
    int line = 0;
    assert_null(forbidden_in_source("float x; half h; /* double d; */ // double e\nfloat2 v;", NULL));
    assert_null(forbidden_in_source("const char *s = \"double\"; char c = 'd'; float doubled, my_double;", NULL));
    assert_null(forbidden_in_source("// a comment \\\n double continued\nfloat y = 1.0e-5f + 0x1p-24f;", NULL));
    assert_null(forbidden_in_source("/* unterminated double", NULL));
    assert_null(forbidden_in_source("#define S \"a \\\" double \"\n", NULL));
    assert_string_equal(forbidden_in_source("float a;\n/* x */ double b;", &line), "double");
    assert_int_equal(line, 2);
    assert_string_equal(forbidden_in_source("double4 v;", NULL), "double4");
    assert_string_equal(forbidden_in_source("x = (double16)(0);", NULL), "double16");
    assert_string_equal(forbidden_in_source("#pragma OPENCL EXTENSION cl_khr_fp64 : enable", NULL), "cl_khr_fp64");
    assert_string_equal(forbidden_in_source("#pragma OPENCL EXTENSION cl_amd_fp64 : enable", NULL), "cl_amd_fp64");
    assert_string_equal(forbidden_in_source("/* */ 1.5f*(double)x", NULL), "double");

    assert_null(forbidden_option_in("/* never -cl-fast-relaxed-math */ opts = \"-cl-std=CL1.2\"; // -cl-mad-enable"));
    assert_string_equal(forbidden_option_in("snprintf(o, n, \"%s -cl-mad-enable\", x);"), "-cl-mad-enable");
    assert_string_equal(forbidden_option_in("const char *o = \"-cl-unsafe-math-optimizations\";"),
                        "-cl-unsafe-math-optimizations");

    assert_true(has_contract_off("x\n  #  pragma   OPENCL FP_CONTRACT\tOFF  \ny"));
    assert_true(has_contract_off("#pragma OPENCL FP_CONTRACT OFF /* why */\n"));
    assert_false(has_contract_off("/* #pragma OPENCL FP_CONTRACT OFF */\n"));
    assert_false(has_contract_off("// #pragma OPENCL FP_CONTRACT OFF\n"));
    assert_false(has_contract_off("#pragma OPENCL FP_CONTRACT ON\n"));
    assert_false(has_contract_off("#pragma OPENCL FP_CONTRACT OFFX\n"));
}

static void test_dialect_self_check(void **state)
{
    (void)state;
    name_list pat = {0};
    load_patterns(FORBIDDEN_LIST, &pat);
    assert_true(pat.n >= 50);
    int line = 0;
    assert_null(outside_dialect("RAID_KERNEL void f(RAID_GLOBAL uint *x) { x[RAID_LOCAL_ID(0)] = 0u; }", pat.v, NULL));
    assert_null(outside_dialect("/* barrier(CLK_LOCAL_MEM_FENCE) */ RAID_BARRIER(); // get_local_id\n", pat.v, NULL));
    assert_null(outside_dialect("uint2 v = RAID_VLOAD2(i, p); float m = RAID_FMAXF(a, b); const char *s = \"min\";",
                                pat.v, NULL));
    assert_null(outside_dialect("RaidDf raidDfMake(float hi, float lo); uint mins, local_max, has_x, atomicity;", pat.v, NULL));
    assert_string_equal(outside_dialect("__kernel void f(void) {}", pat.v, NULL), "__kernel");
    assert_string_equal(outside_dialect("x;\n\n  y = get_global_id(0);", pat.v, &line), "get_global_id");
    assert_int_equal(line, 3);
    assert_string_equal(outside_dialect("barrier(CLK_LOCAL_MEM_FENCE);", pat.v, NULL), "barrier");
    assert_string_equal(outside_dialect("RAID_ATOMIC_ADD(p, 1u); atomic_inc(p);", pat.v, NULL), "atomic_inc");
    assert_string_equal(outside_dialect("uint2 v = vload2(i, p);", pat.v, NULL), "vload2");
    assert_string_equal(outside_dialect("float f = as_float(u);", pat.v, NULL), "as_float");
    assert_string_equal(outside_dialect("uint m = min(a, b);", pat.v, NULL), "min");
    assert_string_equal(outside_dialect("inline int f(void);", pat.v, NULL), "inline");
    assert_string_equal(outside_dialect("__shared__ float s[32]; __syncthreads();", pat.v, NULL), "__shared__");
    assert_string_equal(outside_dialect("uint i = threadIdx.x;", pat.v, NULL), "threadIdx");
    assert_string_equal(outside_dialect("uint c = __popc(x);", pat.v, NULL), "__popc");
    assert_string_equal(outside_dialect("atomicAdd(p, 1u);", pat.v, NULL), "atomicAdd");
    assert_string_equal(outside_dialect("float f = __int_as_float(x);", pat.v, NULL), "__int_as_float");
    assert_string_equal(outside_dialect("#ifdef __OPENCL_VERSION__\n#endif", pat.v, NULL), "__OPENCL_VERSION__");
    list_free(&pat);
}

/* ---- the real sources ---- */

static void test_no_fp64_in_kernels(void **state)
{
    (void)state;
    name_list files = {0};
    list_files(KERNEL_DIR, is_kernel_file, 0, &files);
    assert_true(files.n >= 2); /* raid_df.h and realized.cl at least */
    for (size_t i = 0; i < files.n; i++) {
        blob b = read_blob(files.v[i]);
        int line = 0;
        const char *bad = forbidden_in_source(b.data, &line);
        if (bad)
            fail_msg("%s:%d uses '%s': kernels must not use 64-bit floating types", files.v[i], line, bad);
        free(b.data);
    }
    list_free(&files);
}

/* Every kernel file but raid_compat.h (the .cl files and the prelude's other headers, and the test kernels of
 * tests/kernels/) spells built-ins and qualifiers with the dialect's names only. */
static void test_dialect_only(void **state)
{
    (void)state;
    name_list files = {0}, pat = {0};
    load_patterns(FORBIDDEN_LIST, &pat);
    list_files(KERNEL_DIR, is_kernel_file, 0, &files);
    list_files(RAID_SOURCE_DIR "/tests/kernels", is_kernel_file, 0, &files); /* tests/test_device.c's */
    size_t checked = 0;
    for (size_t i = 0; i < files.n; i++) {
        if (!strcmp(base_name(files.v[i]), "raid_compat.h"))
            continue;
        blob b = read_blob(files.v[i]);
        int line = 0;
        const char *bad = outside_dialect(b.data, pat.v, &line);
        if (bad)
            fail_msg("%s:%d uses '%s': kernels use the dialect of kernels/raid_compat.h only (tests/kernel_forbidden.txt)",
                     files.v[i], line, bad);
        free(b.data);
        checked++;
    }
    assert_true(checked >= 10);
    list_free(&files);
    list_free(&pat);
}

static void test_fp_contract_off(void **state)
{
    (void)state;
    name_list files = {0};
    list_files(KERNEL_DIR, is_kernel_file, 0, &files);
    size_t ncl = 0;
    for (size_t i = 0; i < files.n; i++) {
        if (!has_suffix(files.v[i], ".cl"))
            continue;
        ncl++;
        blob b = read_blob(files.v[i]);
        if (!has_contract_off(b.data))
            fail_msg("%s lacks '#pragma OPENCL FP_CONTRACT OFF'", files.v[i]);
        free(b.data);
    }
    assert_true(ncl >= 1);
    list_free(&files);
}

static int is_c_source(const char *name) { return has_suffix(name, ".c") || has_suffix(name, ".h"); }

static void test_no_unsafe_build_options(void **state)
{
    (void)state;
    name_list files = {0};
    list_files(SRC_DIR, is_c_source, 1, &files);
    assert_true(files.n >= 1);
    for (size_t i = 0; i < files.n; i++) {
        blob b = read_blob(files.v[i]);
        const char *bad = forbidden_option_in(b.data);
        if (bad)
            fail_msg("%s passes '%s' to the OpenCL compiler: the error-free transforms need exact IEEE rounding",
                     files.v[i], bad);
        free(b.data);
    }
    list_free(&files);
}

/* Each #include of a source (comments stripped): its name and whether it is quoted ("...") or not (<...>). */
static void each_include(const char *path, void (*check)(const char *path, const char *name, int quoted))
{
    blob b = read_blob(path);
    char *t = strip_c(b.data, 0);
    for (const char *p = strstr(t, "#include"); p; p = strstr(p + 1, "#include")) {
        const char *q = p + 8;
        while (*q == ' ' || *q == '\t')
            q++;
        const char close = *q == '"' ? '"' : *q == '<' ? '>' : 0;
        if (!close)
            continue;
        char name[256];
        size_t n = 0;
        for (q++; *q && *q != close && n + 1 < sizeof name; q++)
            name[n++] = *q;
        name[n] = 0;
        check(path, name, close == '"');
    }
    free(t);
    free(b.data);
}

static void check_no_opencl_header(const char *path, const char *name, int quoted)
{
    (void)quoted;
    if (!strncmp(name, "CL/", 3) && !has_suffix(path, "/src/device/device_opencl.c"))
        fail_msg("%s includes %s: only the device layer's backend file may call OpenCL", path, name);
}

static void check_public_only(const char *path, const char *name, int quoted)
{
    if (quoted && strcmp(name, "raid.h") && strncmp(name, "raid/", 5) && strcmp(name, "bench_common.h"))
        fail_msg("%s includes \"%s\": bench/ is compiled against include/ only", path, name);
}

static void test_one_device_layer(void **state)
{
    (void)state;
    name_list files = {0};
    list_files(SRC_DIR, is_c_source, 1, &files);
    for (size_t i = 0; i < files.n; i++)
        each_include(files.v[i], check_no_opencl_header);
    list_free(&files);
    list_files(RAID_SOURCE_DIR "/bench", is_c_source, 0, &files);
    assert_true(files.n >= 2);
    for (size_t i = 0; i < files.n; i++)
        each_include(files.v[i], check_public_only);
    list_free(&files);
}

static void test_embedded_table(void **state)
{
    (void)state;
    name_list files = {0};
    list_files(KERNEL_DIR, is_kernel_file, 0, &files);
    /* every kernels/ file is embedded, byte for byte */
    for (size_t i = 0; i < files.n; i++) {
        const char *name = base_name(files.v[i]);
        const RaidKernelFile *k = raidKernelFiles;
        while (k->name && strcmp(k->name, name))
            k++;
        if (!k->name)
            fail_msg("kernels/%s is not in the embedded table (add it to RAID_KERNEL_SOURCES in CMakeLists.txt)",
                     name);
        assert_non_null(k->source);
        blob b = read_blob(files.v[i]);
        size_t elen = strlen(k->source);
        if (elen != b.len || memcmp(k->source, b.data, b.len) != 0) {
            size_t at = 0;
            while (at < elen && at < b.len && k->source[at] == b.data[at])
                at++;
            fail_msg("the embedded kernels/%s (%zu bytes) differs from the file on disk (%zu bytes) at byte %zu: "
                     "rebuild", name, elen, b.len, at);
        }
        free(b.data);
    }
    /* and the table names nothing that is not on disk, each name once */
    for (const RaidKernelFile *k = raidKernelFiles; k->name; k++) {
        int found = 0;
        for (size_t i = 0; i < files.n; i++)
            found += !strcmp(base_name(files.v[i]), k->name);
        if (found != 1)
            fail_msg("the embedded table names '%s', which is not a file of kernels/", k->name);
        for (const RaidKernelFile *j = raidKernelFiles; j != k; j++)
            if (!strcmp(j->name, k->name))
                fail_msg("the embedded table names '%s' twice", k->name);
    }
    list_free(&files);
}

/* ---- build errors through the OpenCL runtime ---- */

#define GOOD_OPTS                                                                                                      \
    "-DRAID_WG=256 -DRAID_RUN=16 -DRAID_BITS=0 -DRAID_INPUT_DF=0 -DRAID_PART=15 -DRAID_MAXR_HI=0x4F4C4C8Bu "           \
    "-DRAID_MAXR_LO=0x1349B9B5u"

static void test_kernel_build_errors(void **state)
{
    (void)state;
    if (!t_have_opencl())
        skip();
    raid_ctx *ctx = NULL;
    raid_status s = raid_ctx_create(&ctx, t_device());
    if (s != RAID_OK)
        fail_msg("raid_ctx_create(%s): %d %s", t_device(), (int)s, raid_errmsg());
    RaidKernel *k = NULL, *k2 = NULL;

    /* control: the real kernel builds, and a second request comes from the cache */
    s = raidKernelGet(ctx, "realized.cl", "realized_fused", GOOD_OPTS, &k);
    if (s != RAID_OK)
        fail_msg("building realized_fused: %d %s", (int)s, ctx->errmsg);
    assert_non_null(k);
    assert_int_equal(raidKernelGet(ctx, "realized.cl", "realized_fused", GOOD_OPTS, &k2), RAID_OK);
    assert_ptr_equal(k, k2);
    raidKernelPut(ctx, k2);

    /* a kernel name that realized.cl does not define: an error status and message, no crash */
    k2 = NULL;
    s = raidKernelGet(ctx, "realized.cl", "no_such_kernel", GOOD_OPTS, &k2);
    assert_int_not_equal(s, RAID_OK);
    assert_null(k2);
    if (raid_ctx_backend(ctx) == RAID_BACKEND_CUDA) {
        assert_non_null(strstr(ctx->errmsg, "cuModuleGetFunction(no_such_kernel)"));
        assert_non_null(strstr(ctx->errmsg, "CUDA_ERROR_NOT_FOUND"));
    } else {
        assert_non_null(strstr(ctx->errmsg, "clCreateKernel"));
        assert_non_null(strstr(ctx->errmsg, "CL_INVALID_KERNEL_NAME"));
    }

    /* a file that is not embedded */
    s = raidKernelGet(ctx, "no_such_file.cl", "realized_fused", GOOD_OPTS, &k2);
    assert_int_equal(s, RAID_EINVAL);
    assert_non_null(strstr(ctx->errmsg, "no_such_file.cl"));

    /* "-DTHIS_BREAKS=(" alone defines an unused macro, which is legal: that build succeeds. A syntax error
     * needs the broken macro to be used: RAID_RUN=( breaks the kernel body. The build log comes with it. */
    s = raidKernelGet(ctx, "realized.cl", "realized_fused", GOOD_OPTS " -DTHIS_BREAKS=(", &k2);
    assert_int_equal(s, RAID_OK);
    raidKernelPut(ctx, k2);
    s = raidKernelGet(ctx, "realized.cl", "realized_fused",
                       "-DRAID_WG=256 -DRAID_RUN=( -DRAID_INPUT_DF=0 -DRAID_PART=15 -DTHIS_BREAKS=(", &k2);
    assert_int_equal(s, RAID_EBUILD);
    assert_non_null(strstr(ctx->errmsg, "realized.cl"));
    assert_non_null(strstr(ctx->errmsg, raid_ctx_backend(ctx) == RAID_BACKEND_CUDA ? "NVRTC_ERROR_COMPILATION"
                                                                                  : "CL_BUILD_PROGRAM_FAILURE"));
    assert_non_null(strstr(ctx->errmsg, "error")); /* the compiler's log follows the summary line */
    assert_non_null(strchr(ctx->errmsg, '\n'));

    /* an option the compiler rejects */
    s = raidKernelGet(ctx, "realized.cl", "realized_fused", GOOD_OPTS " -cl-no-such-option", &k2);
    assert_int_equal(s, RAID_EBUILD);
    assert_non_null(strstr(ctx->errmsg, "realized.cl"));

    /* the failures left the cache usable */
    assert_int_equal(raidKernelGet(ctx, "realized.cl", "realized_fused", GOOD_OPTS, &k2), RAID_OK);
    assert_ptr_equal(k, k2);
    raidKernelPut(ctx, k2);
    raidKernelPut(ctx, k);
    raid_ctx_destroy(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lexer_self_check),
        cmocka_unit_test(test_no_fp64_in_kernels),
        cmocka_unit_test(test_dialect_self_check),
        cmocka_unit_test(test_dialect_only),
        cmocka_unit_test(test_fp_contract_off),
        cmocka_unit_test(test_no_unsafe_build_options),
        cmocka_unit_test(test_embedded_table),
        cmocka_unit_test(test_one_device_layer),
        cmocka_unit_test(test_kernel_build_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
