/* Kernel sources embedded at build time (cmake/embed.cmake writes the table). */
#ifndef RAID_KERNELS_EMBEDDED_H
#define RAID_KERNELS_EMBEDDED_H
typedef struct RaidKernelFile {
    const char *name;    /* file name under kernels/, e.g. "realized.cl" */
    const char *source;  /* NUL-terminated source text */
} RaidKernelFile;
/* Terminated by an entry whose name is NULL. */
extern const RaidKernelFile raidKernelFiles[];
/* The prelude: the names (in raidKernelFiles) of the files every backend prepends, in this order, to each
 * kernel source before compiling it (kernels/prelude.txt; docs/device.md "The kernel dialect"). Terminated
 * by NULL. */
extern const char *const raidKernelPrelude[];
/* The headers one kernel file's program gets after the prelude (kernels/prelude.txt's "FILE: NAME..." lines):
 * pairs {file, header} in order, terminated by {NULL, NULL}. */
extern const char *const raidKernelExtra[][2];
#define RAID_PRELUDE_MAX 24 /* headers of a program at most, its file's own included (the backends' arrays of parts) */
#endif
