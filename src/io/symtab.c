/* The symbol table of src/io: see symtab.h. */
#include "io/symtab.h"

#include <stdlib.h>
#include <string.h>

void raidSymtabInit(RaidSymtab *t) { memset(t, 0, sizeof *t); }

void raidSymtabFree(RaidSymtab *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->names[i]);
    free(t->names);
    free(t->hash);
    memset(t, 0, sizeof *t);
}

static uint64_t hash_str(const char *s, size_t n)
{
    uint64_t h = UINT64_C(1469598103934665603);
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * UINT64_C(1099511628211);
    return h;
}

static int rehash(RaidSymtab *t, size_t cap)
{
    uint32_t *h = calloc(cap, sizeof *h);
    if (!h)
        return -1;
    for (size_t i = 0; i < t->n; i++) {
        size_t j = hash_str(t->names[i], strlen(t->names[i])) & (cap - 1);
        while (h[j])
            j = (j + 1) & (cap - 1);
        h[j] = (uint32_t)i + 1;
    }
    free(t->hash);
    t->hash = h;
    t->hcap = cap;
    return 0;
}

int64_t raidSymtabFind(const RaidSymtab *t, const char *s, size_t n)
{
    if (!t->hcap)
        return -1;
    size_t j = hash_str(s, n) & (t->hcap - 1);
    while (t->hash[j]) {
        const char *nm = t->names[t->hash[j] - 1];
        size_t i = 0; /* s has no NUL byte: the loop stops at nm's end at the latest (no strncmp call per row) */
        while (i < n && nm[i] == s[i])
            i++;
        if (i == n && nm[n] == 0)
            return t->hash[j] - 1;
        j = (j + 1) & (t->hcap - 1);
    }
    return -1;
}

int64_t raidSymtabAdd(RaidSymtab *t, const char *s, size_t n)
{
    const int64_t found = raidSymtabFind(t, s, n);
    if (found >= 0)
        return found;
    if (t->n >= UINT32_MAX - 1)
        return -1;
    if ((t->n + 1) * 2 > t->hcap && rehash(t, t->hcap ? t->hcap * 2 : 64) != 0)
        return -1;
    if (t->n == t->cap) {
        const size_t cap = t->cap ? t->cap * 2 : 16;
        char **p = realloc(t->names, cap * sizeof *p);
        if (!p)
            return -1;
        t->names = p;
        t->cap = cap;
    }
    char *nm = malloc(n + 1);
    if (!nm)
        return -1;
    if (n)
        memcpy(nm, s, n);
    nm[n] = 0;
    t->names[t->n] = nm;
    size_t j = hash_str(s, n) & (t->hcap - 1);
    while (t->hash[j])
        j = (j + 1) & (t->hcap - 1);
    t->hash[j] = (uint32_t)t->n + 1;
    return (int64_t)t->n++;
}
