/* A growing list of owned strings: the notices of an input (har_input.c, garch_input.c) and the messages
 * of a result (garch_result.c). Never installed. */
#ifndef RAID_CORE_STRLIST_H
#define RAID_CORE_STRLIST_H

#include "raid/core.h"

#include <stddef.h>

typedef struct RaidStrlist {
    char **s;
    size_t n, cap;
} RaidStrlist;

/* Append a formatted copy (printf). RAID_OK, or RAID_ENOMEM (no message set; the list is unchanged). */
raid_status raidStrlistAddf(RaidStrlist *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Free the strings and the list; it is empty again. */
void raidStrlistFree(RaidStrlist *l);
/* Append s[0..n) and a NUL to the text buffer *text (*len bytes used of *cap, the capacity doubling from
 * 64 KiB): the offset of the copy, or (size_t)-1 when out of memory (the buffer unchanged). The dates of
 * the CSV readers' runs (src/jobs/har.c, src/jobs/garch.c). */
size_t raidTextAppend(char **text, size_t *len, size_t *cap, const char *s, size_t n);
/* A copy of the n strings s[0..n) in ONE allocation (the n pointers, then their text; free() once):
 * the dates of an input added from arrays (har_input.c, garch_input.c). NULL when out of memory. */
char **raidStringsDup(const char *const *s, size_t n);
/* String i, or NULL out of range. */
static inline const char *raidStrlistGet(const RaidStrlist *l, size_t i) { return i < l->n ? l->s[i] : NULL; }

#endif
