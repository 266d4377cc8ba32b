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
    int err;         /* errno of a failed flush, close or rename: the output is gone, commit fails */
};

/* Errors (raid_errmsg): RAID_EINVAL (empty or too long a path), RAID_EIO (cannot create).
 * (raid_outfile_create is the public form, over this one.) */
raid_status raidOutfileOpen(raid_outfile *o, const char *path);

/* raid_path_is_fd and raid_outfile_name: include/raid/outfile.h. */
/* Flush and close the stream (if still open), every step checked, without renaming yet: a writer of several
 * outputs closes them all before committing any, so that a full disk leaves none of them. On failure the
 * temporary file is removed and a later commit fails too. Errors (raid_errmsg): RAID_EIO ("cannot write
 * PATH: REASON"; for an error an earlier write left on the stream, REASON is errno as the writer left it). */
raid_status raidOutfileCloseChecked(raid_outfile *o);
/* raidOutfileCloseChecked, then rename over the destination. On failure the temporary file is
 * removed. Errors (raid_errmsg): RAID_EIO. */
raid_status raidOutfileCommit(raid_outfile *o);
/* Close and remove the temporary file (a direct destination is left as written). */
void raidOutfileAbort(raid_outfile *o);

/* The text of a float64 in every CSV RAID writes (no leading comma; f64text.c): the shortest decimal that
 * reads back as v (Python's repr's digits: 0.1, not %.17g's 0.10000000000000001), in %.17g's layout
 * (scientific below 1e-4 and from 1e17 on; -0.0 as "-0"), a '.' whatever LC_NUMERIC says; the special
 * values as numpy, pandas and polars write them and the table reader's generic value columns read them
 * (docs/input.md): "inf", "-inf", "nan" ("-nan" with the sign bit set). It reads back as the same bits (a
 * NaN as the quiet NaN of its sign: payloads are not written). Returns buf. */
#define RAID_F64_TEXT 32
const char *raidF64Text(char buf[RAID_F64_TEXT], double v);
/* The shortest decimal digits of a finite nonzero |v| (f64digits.cpp, std::to_chars): 1 to 17 digits, no
 * trailing zero, into digits (NUL-terminated), and the decimal exponent of the first digit into *exp10, so
 * that |v| reads back from 0.d1d2... x 10^(exp10 + 1). Returns the number of digits; 0 for 0, inf or NaN. */
int raidF64Digits(double v, char digits[18], int *exp10);
/* Write ",v" by raidF64Text: a value of a generic float64 column (raid groupby's, raid quantile's
 * results), where NaN is a value and an empty field a null (raid_csv_put_value writes NaN empty). */
void raidCsvPutF64(FILE *f, double v);

/* The end of a library CSV writer (raid_har_write_*, raid_realized_table_write_csv): flush f, so that a
 * full disk or a closed descriptor is seen by every writer, not only by the one whose output overflowed
 * the stream's buffer. RAID_OK, or RAID_EIO ("write error: REASON", raid_errmsg) with errno kept for the
 * caller's own message (the raid CLI's "cannot write standard output: REASON"). */
raid_status raidCsvWritten(FILE *f);

#endif
