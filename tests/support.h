/* Helpers shared by the cmocka tests. */
#ifndef RAID_TEST_SUPPORT_H
#define RAID_TEST_SUPPORT_H
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

/* A fresh temporary directory for this test process (created on first call, removed at exit). */
const char *t_tmpdir(void);
/* Path inside t_tmpdir(); the result is a static buffer rotated among 8 slots. */
const char *t_tmppath(const char *name);
/* Write text to a file; returns 0 on success. */
int t_write_file(const char *path, const char *text);
/* Read a whole file (malloc'd, NUL-terminated), NULL on failure. */
char *t_read_file(const char *path);
int t_file_exists(const char *path);
/* Run a shell command line; stdout and stderr are captured into malloc'd strings (either may be NULL).
 * Returns the exit status (or -1 when the command could not run / was killed). */
int t_run(const char *cmdline, char **out, char **err);
/* Run "RAID_CLI <args>" (printf-style; RAID_CLI is the built raid tool); stdout and stderr into *out and
 * *err (malloc'd, never NULL; either pointer may be NULL to discard). Returns the exit status. */
int t_cli(char **out, char **err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Path of a file in the repository's own data/ (RAID_DATA_DIR, set by tests/CMakeLists.txt to the source
 * tree's data/), e.g. t_data("dem2gbp.csv"); the static buffer is rotated among 4 slots. */
const char *t_data(const char *name);

/* A growing string: t_sb_add appends printf-formatted text (s NUL-terminated once anything is added). */
typedef struct t_sbuf {
    char *s;
    size_t n, cap;
} t_sbuf;
void t_sb_add(t_sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The device under test: RAID_TEST_DEVICE (e.g. opencl:1.0 where several platforms exist, cuda or cuda:N
 * for the CUDA backend, auto), else the first OpenCL device ("opencl"). */
const char *t_device(void);
/* A context on dev; fails the test with the library's message if it cannot be created. */
struct raid_ctx;
struct raid_ctx *t_open_ctx(const char *dev);
/* 1 if the device under test's backend can run here (t_device(): cuda[:N] needs CUDA, auto either
 * backend, the opencl forms an OpenCL device; PoCL in CI). */
int t_have_opencl(void);
/* data/dem2gbp.csv (`t,ret`, 1,974 rows, the FCP benchmark's returns) into a malloc'd array; *T = 1974. */
double *t_read_dem2gbp(size_t *T);
/* The finite inputs of tests/data/f64_worst/NAME.wc as binary64 bits, in file order (lines of comments,
 * blank lines and NaN or infinite inputs skipped), malloc'd; *n their count. Fails the test when the file is
 * missing or a line does not read as a number. */
uint64_t *t_read_worst_finite(const char *name, size_t *n);
/* SplitMix64 (Steele, Lea and Flood 2014): the tests' deterministic pseudo-random sequence (state += the
 * golden gamma, then the finaliser). t_unif: a double in [0, 1) from its top 53 bits. */
static inline uint64_t t_splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
static inline double t_unif(uint64_t *state) { return (double)(t_splitmix64(state) >> 11) * 0x1p-53; }

/* The double of bits b, and the bits of x. */
static inline double t_from_bits(uint64_t b)
{
    double x;
    memcpy(&x, &b, sizeof x);
    return x;
}
static inline uint64_t t_bits_of(double x)
{
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    return b;
}

#endif
