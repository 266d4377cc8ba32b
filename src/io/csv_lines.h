/* Line numbers over libcsv's rows, for "FILE:LINE:COL" messages: with CSV_REPALL_NL libcsv reports every
 * line break as the end of a row (a blank line is a row of no fields), and CR, LF and CRLF each end one
 * line. Used by the table reader (src/io/table.c) and raid har's reader (src/io/har_reader.c). */
#ifndef RAID_CSV_LINES_H
#define RAID_CSV_LINES_H

#include <stddef.h>

/* The number of lines that the row ending with terminator c (libcsv's row callback argument) and
 * nfields fields completes: 1, or 0 for the LF of a CRLF or the end of the input. *last_term keeps
 * the previous terminator (start it at 0). */
static inline int raid_csv_lines_ended(int c, size_t nfields, int *last_term)
{
    const int n = c == '\n' ? !(nfields == 0 && *last_term == '\r') : c == '\r';
    *last_term = c;
    return n;
}

#endif
