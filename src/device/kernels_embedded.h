/* Kernel sources embedded at build time (cmake/embed.cmake writes the table). */
#ifndef RAID_KERNELS_EMBEDDED_H
#define RAID_KERNELS_EMBEDDED_H
typedef struct raid_kernel_file {
    const char *name;    /* file name under kernels/, e.g. "realized.cl" */
    const char *source;  /* NUL-terminated source text */
} raid_kernel_file;
/* Terminated by an entry whose name is NULL. */
extern const raid_kernel_file raid_kernel_files[];
#endif
