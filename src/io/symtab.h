/* A set of symbol names: each name gets an index in order of first appearance, found again through an
 * open-addressing hash (FNV-1a). The one symbol table of src/io: the segmenter's symbols (segment.c) and
 * the symbols raid_har_read_csv has finished (src/jobs/har.c). Never installed. */
#ifndef RAID_IO_SYMTAB_H
#define RAID_IO_SYMTAB_H

#include <stddef.h>
#include <stdint.h>

typedef struct RaidSymtab {
    char **names;   /* n names, NUL-terminated, in order of first appearance */
    size_t n, cap;
    uint32_t *hash; /* hcap slots (a power of two): 0 empty, else index + 1 */
    size_t hcap;
} RaidSymtab;

/* An empty table (all zero is one too). */
void raidSymtabInit(RaidSymtab *t);
/* Free the names and the hash; the table is empty again. */
void raidSymtabFree(RaidSymtab *t);
/* The index of s[0..n) (no NUL byte), or -1 when absent. */
int64_t raidSymtabFind(const RaidSymtab *t, const char *s, size_t n);
/* The index of s[0..n), added if new (then the index is the previous count). -1 when out of memory or
 * past UINT32_MAX - 1 names. */
int64_t raidSymtabAdd(RaidSymtab *t, const char *s, size_t n);
/* Name i, or NULL if out of range. */
static inline const char *raidSymtabName(const RaidSymtab *t, size_t i) { return i < t->n ? t->names[i] : NULL; }

#endif
