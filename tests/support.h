/* Helpers shared by the cmocka tests. */
#ifndef RAID_TEST_SUPPORT_H
#define RAID_TEST_SUPPORT_H
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
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
/* Path of a file in ../shared/data. */
const char *t_data(const char *name);
/* The device under test: RAID_TEST_DEVICE (e.g. opencl:1.0 where several platforms exist), else the
 * first OpenCL device ("opencl"). */
const char *t_device(void);
/* A context on dev; fails the test with the library's message if it cannot be created. */
struct raid_ctx;
struct raid_ctx *t_open_ctx(const char *dev);
/* 1 if an OpenCL device is available (PoCL in CI). */
int t_have_opencl(void);
/* data/dem2gbp.csv (`t,ret`, 1,974 rows, the FCP benchmark's returns) into a malloc'd array; *T = 1974. */
double *t_read_dem2gbp(size_t *T);
#endif
