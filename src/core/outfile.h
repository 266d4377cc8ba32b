/* Output files that never leave a partial result behind: the data is written to a temporary file in
 * the destination's folder and renamed over the destination once complete. A symbolic link is
 * followed (its target is replaced, the link kept); a destination that is not a regular file (a device
 * such as /dev/null, a FIFO) is written directly, since renaming over it would replace it. */
#ifndef RAID_OUTFILE_H
#define RAID_OUTFILE_H

#include "core/internal.h"
#include <stdio.h>

typedef struct raid_outfile {
    char path[4096]; /* the destination, symbolic links resolved */
    char tmp[4096];  /* the temporary file; "" when writing directly */
    FILE *fp;        /* open for writing; the caller may fclose it early and set it to NULL */
} raid_outfile;

/* Errors: RAID_EINVAL (empty or too long a path), RAID_EIO (cannot create); message in err. */
raid_status raid_outfile_open(raid_outfile *o, const char *path, char *err, size_t errlen);

/* Whether path names the file that descriptor fd has open (same device and inode; links followed), e.g.
 * /dev/stdout or the file standard output is redirected to for fd 1. */
int raid_path_is_fd(const char *path, int fd);
/* The name to write to when a program other than this one writes the data (gnuplot). */
const char *raid_outfile_name(const raid_outfile *o);
/* Flush and close (if still open), then rename over the destination. On failure the temporary file is
 * removed. Errors: RAID_EIO. */
raid_status raid_outfile_commit(raid_outfile *o, char *err, size_t errlen);
/* Close and remove the temporary file (a direct destination is left as written). */
void raid_outfile_abort(raid_outfile *o);

#endif
