/* The time order of the rows of a series: one rule and one message for every job whose answer depends on
 * the order of its rows and that reads its dates as text (raid garch, har, ma and sweep: their CSV readers
 * and their array entry points; docs/input.md "Time order"). The intraday jobs (raid realized, raid bars)
 * order their parsed instants in the segmenter (segment.c) and in src/jobs/bars.c. Never installed. */
#ifndef RAID_IO_ORDER_H
#define RAID_IO_ORDER_H

#include "io/table.h"
#include "raid.h"

#include <stddef.h>
#include <stdint.h>

/* The order of two dates a[0..alen), b[0..blen) of one series: negative (a first), 0 (the same time),
 * positive. The rule, by what both are:
 *   - ISO 8601 dates or timestamps of the table reader (YYYY-MM-DD, or YYYY-MM-DD[T ]HH:MM:SS[.f][offset];
 *     a date is its midnight): in time, as UTC instants when both carry an offset (so a switch of offset,
 *     as at the end of summer time, is ordered right), else as the clock times written (the checks below
 *     refuse a series whose consecutive times mix the two forms: they have no common order);
 *   - decimal integers ([+-]digits within int64): as integers, exactly (nanosecond time stamps differ in
 *     their last digits, beyond float64's 53 bits);
 *   - other decimal numbers (the table reader's number rule): as float64 values;
 *   - anything else (or two of different kinds): as text, byte by byte, which is the order a sort of the
 *     file by that column as text gives.
 * An empty date sorts first (the callers refuse it before they compare). */
int raidIoDateCmp(const char *a, size_t alen, const char *b, size_t blen);

/* Whether s[0..n) is a date with the day or the month first and the year last, the form
 * D{1,2} S D{1,2} S YY or YYYY with one separator S of / . - (1/2/2001, 31.12.2000, 12-31-00), alone or
 * followed by a blank or T and anything (a time). Which of day and month comes first is not written in
 * such a date, and text order misorders them (01/01/2002 sorts before 02/01/2001, a year earlier read
 * either way): the order checks below refuse them and ask for ISO 8601. 1 or 0. */
int raidIoDateYearLast(const char *s, size_t n);

/* The words of a failed comparison c <= 0: "comes before" (c < 0) or "repeats" (c == 0). */
static inline const char *raidIoOrderWords(int c) { return c < 0 ? "comes before" : "repeats"; }

/* The check of one row of a CSV series: its date cur[0..curlen) at (line, col), in the series sym ("" for
 * a file without a symbol column), after the date prev of the series' previous row (on prev_line; prev
 * NULL for the series' first row). RAID_OK, or RAID_EPARSE through raidTableFail (the table's sticky
 * failure) with "FILE:LINE:COL: empty DATE (every row needs one)" (DATE: the column's name), "FILE:LINE:
 * COL: SYM: date 'CUR' has the year last (...): write dates as ISO 8601, YYYY-MM-DD"
 * (raidIoDateYearLast), or
 * "FILE:LINE:COL: SYM: date 'CUR' comes before 'PREV' on line L (the rows of a symbol must be in time
 * order: sort FILE by symbol, date)" (or "repeats"; SYM "(no symbol)" for ""). */
raid_status raidTableCheckDate(RaidTable *t, const char *date_name, const char *sym, const char *cur,
                                  size_t curlen, uint64_t line, size_t col, const char *prev, uint64_t prev_line);

/* The check of the dates of one series given as arrays: dates[0..n) NUL-terminated (none NULL or empty:
 * the callers check that first), none with the year last (raidIoDateYearLast: "FN: SYM: row R: date
 * 'D' has the year last (...): write dates as ISO 8601, YYYY-MM-DD"), each after the one before. RAID_OK,
 * or RAID_EINVAL with raid_errmsg "FN: SYM: row R: date 'CUR' comes before 'PREV' on row R' (the rows of
 * a series must be in time order)" (or "repeats"); rows are rows[t] when rows is given (the caller's numbering), else t + 1 (1-based within the
 * series). sym "" is "(no symbol)". */
raid_status raidIoCheckDates(const char *fn, const char *sym, const char *const *dates, size_t n,
                                const int64_t *rows);

#endif
