/* Output files that never leave a partial result behind: the data is written to a temporary file in
 * the destination's folder and renamed over the destination once complete. A symbolic link is
 * followed (its target is replaced, the link kept); a destination that is not a regular file (a device
 * such as /dev/null, a FIFO) is written directly, since renaming over it would replace it. */
#ifndef RAID_OUTFILE_H
#define RAID_OUTFILE_H

#include "core/internal.h"
#include "raid/outfile.h"
#include <stdio.h>

/* The handle of include/raid/outfile.h; the library's own writers keep one on the stack. */
struct raid_outfile {
    char path[4096]; /* the destination, symbolic links resolved */
    char tmp[4096];  /* the temporary file; "" when writing directly */
    FILE *fp;        /* open for writing; the caller may fclose it early and set it to NULL */
};

/* Errors: RAID_EINVAL (empty or too long a path), RAID_EIO (cannot create); message in err.
 * (raid_outfile_create is the public form, over this one.) */
raid_status raid_outfile_open(raid_outfile *o, const char *path, char *err, size_t errlen);

/* raid_path_is_fd and raid_outfile_name: include/raid/outfile.h. */
/* Flush and close (if still open), then rename over the destination. On failure the temporary file is
 * removed. Errors: RAID_EIO. */
raid_status raid_outfile_commit(raid_outfile *o, char *err, size_t errlen);
/* Close and remove the temporary file (a direct destination is left as written). */
void raid_outfile_abort(raid_outfile *o);

#endif
