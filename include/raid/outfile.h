/*
 * raid/outfile.h -- output files that never leave a partial result behind: the data is written to a
 * temporary file in the destination's folder and renamed over the destination once complete. Used by
 * the library's own writers (raid_simulate_csv) and by programs writing the library's CSV outputs (the
 * raid CLI). Part of the public API; include <raid.h> for all of it. Conventions: raid/core.h.
 *
 * A symbolic link is followed (its target is replaced, or created when the link dangles; the link is
 * kept; a loop of links is an error); a destination that is not a
 * regular file (a device such as /dev/null, a FIFO) is written directly, since renaming over it would
 * replace it; a name of the process's standard output or error (/dev/stdout, or the file it is
 * redirected to) is written through that descriptor. POSIX only.
 */
#ifndef RAID_OUTFILE_H_PUBLIC
#define RAID_OUTFILE_H_PUBLIC

#include "raid/core.h"

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct raid_outfile raid_outfile;

/** Open an output to path (at most 4095 bytes). Errors (raid_errmsg): RAID_EINVAL (empty or too long a
 *  path), RAID_EIO (cannot create: "cannot create PATH: REASON", a directory, a loop of symbolic links:
 *  "cannot create PATH: Too many levels of symbolic links"), RAID_ENOMEM. *out NULL on
 *  failure. */
RAID_API raid_status raid_outfile_create(raid_outfile **out, const char *path);
/** The stream to write to; NULL after raid_outfile_close_stream. */
RAID_API FILE *raid_outfile_fp(const raid_outfile *o);
/** Flush and close the stream (if still open), every step checked, without replacing the destination yet:
 *  a program writing several outputs closes them all before finishing any, so that a full disk or a short
 *  write leaves none of them (raid_outfile_finish then only renames). On failure the temporary file is
 *  removed and raid_outfile_finish fails too. Errors (raid_errmsg): RAID_EIO ("cannot write PATH: REASON"),
 *  RAID_EINVAL (NULL). */
RAID_API raid_status raid_outfile_close(raid_outfile *o);
/** Close the stream early, when another program writes the data by name (raid_outfile_name). */
RAID_API void raid_outfile_close_stream(raid_outfile *o);
/** The name to write to when a program other than this one writes the data (gnuplot): the temporary
 *  file, or the destination when written directly. */
RAID_API const char *raid_outfile_name(const raid_outfile *o);
/** The temporary file ("" when the destination is written directly), e.g. for a signal handler that
 *  removes it. */
RAID_API const char *raid_outfile_tmpname(const raid_outfile *o);
/** Flush and close (if still open), then rename over the destination, and free o. On failure the
 *  temporary file is removed. Errors (raid_errmsg): RAID_EIO ("cannot write PATH: REASON"), RAID_EINVAL
 *  (NULL). */
RAID_API raid_status raid_outfile_finish(raid_outfile *o);
/** Close and remove the temporary file (a direct destination is left as written), and free o. NULL is a
 *  no-op. */
RAID_API void raid_outfile_discard(raid_outfile *o);

/** Whether path names the file that descriptor fd has open (same device and inode; links followed),
 *  e.g. /dev/stdout or the file standard output is redirected to for fd 1. */
RAID_API int raid_path_is_fd(const char *path, int fd);

/* CSV fields as the library's writers put them (raid_har_write_*, the raid CLI's outputs). */
/** Write a text field as RFC 4180 wants it: quoted, quotes doubled, when it holds a comma, quote or
 *  line break, or starts or ends with a space or tab (the reader trims unquoted fields, keeps quoted
 *  spaces); as is otherwise. A field written so reads back identically. */
RAID_API void raid_csv_put_field(FILE *f, const char *s);
/** Write ",v" as the shortest decimal that reads back as the same float64 (the digits of Python's repr:
 *  0.1, not "%.17g"'s 0.10000000000000001; laid out as "%.17g" lays out numbers, with a '.' whatever
 *  LC_NUMERIC says), or "," when v is not a finite number (an undefined value is an empty field). */
RAID_API void raid_csv_put_value(FILE *f, double v);

#ifdef __cplusplus
}
#endif
#endif /* RAID_OUTFILE_H_PUBLIC */
