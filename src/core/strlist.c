/* The list of owned strings: see strlist.h. */
#include "core/strlist.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

raid_status raidStrlistAddf(RaidStrlist *l, const char *fmt, ...)
{
    if (l->n == l->cap) {
        const size_t cap = l->cap ? 2 * l->cap : 16;
        char **p = realloc(l->s, cap * sizeof *p);
        if (!p)
            return RAID_ENOMEM;
        l->s = p;
        l->cap = cap;
    }
    va_list ap;
    va_start(ap, fmt);
    const int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *s = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (!s)
        return RAID_ENOMEM;
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    l->s[l->n++] = s;
    return RAID_OK;
}

size_t raidTextAppend(char **text, size_t *len, size_t *cap, const char *s, size_t n)
{
    if (*len + n + 1 > *cap) {
        size_t c = *cap ? *cap : (size_t)1 << 16;
        while (c < *len + n + 1)
            c *= 2;
        char *t = realloc(*text, c);
        if (!t)
            return (size_t)-1;
        *text = t;
        *cap = c;
    }
    memcpy(*text + *len, s, n);
    (*text)[*len + n] = 0;
    const size_t off = *len;
    *len += n + 1;
    return off;
}

void raidStrlistFree(RaidStrlist *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->s[i]);
    free(l->s);
    l->s = NULL;
    l->n = l->cap = 0;
}

char **raidStringsDup(const char *const *s, size_t n)
{
    size_t text = 0;
    for (size_t t = 0; t < n; t++)
        text += strlen(s[t]) + 1;
    char **d = malloc(n * sizeof *d + text + 1);
    if (!d)
        return NULL;
    char *p = (char *)(d + n);
    for (size_t t = 0; t < n; t++) {
        const size_t l = strlen(s[t]) + 1;
        memcpy(p, s[t], l);
        d[t] = p;
        p += l;
    }
    return d;
}
