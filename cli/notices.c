/* The notices of the commands on standard error, summarised: notices about the whole input in full, and
 * those about single series (a symbol's fit that ended at a boundary, a symbol skipped) grouped by kind, a
 * kind of many series in one line with its count and its first series. docs/input.md "Progress and
 * notices" describes what the user sees. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One kind: the notices whose text, less the series' name and with numbers and quoted text blanked,
 * is key. */
struct cli_note_group {
    char *key;
    size_t count;
    size_t first;                      /* the item of its first notice */
    int same;                          /* every text equal to the first's, less the series' name */
    char *rest;                        /* the first's text less its series' name */
    char *subject[CLI_NOTES_SHOWN];    /* the first ones' series */
};

/* A notice about one series, in order of arrival. */
struct cli_note_item {
    size_t group;
    char *text;
};

void cli_notes_init(cli_notes *n, const char *cmd, size_t nsubjects, const char *noun)
{
    memset(n, 0, sizeof *n);
    n->cmd = cmd;
    n->nsubjects = nsubjects;
    n->noun = noun;
}

/* text with the first "subject: " taken out (the series' name, wherever the message names it). */
static char *without_subject(const char *text, const char *subject)
{
    char *s = strdup(text);
    if (!s || !subject || !*subject)
        return s;
    const size_t sl = strlen(subject);
    for (char *p = s; (p = strstr(p, subject)) != NULL; p++)
        if (!strncmp(p + sl, ": ", 2) && (p == s || p[-1] == ' ')) {
            memmove(p, p + sl + 2, strlen(p + sl + 2) + 1);
            break;
        }
    return s;
}

/* The kind of a text (less its series' name): runs of digits as '#', text in single quotes as '', so
 * that "S1: 12 of 500 windows ... ending '2001-02-03'" and "S2: 7 of 480 windows ... ending '2001-05-06'"
 * are one kind. */
static char *kind_of(const char *rest)
{
    char *k = malloc(strlen(rest) + 1);
    if (!k)
        return NULL;
    size_t o = 0;
    for (const char *p = rest; *p;) {
        if (*p >= '0' && *p <= '9') {
            while (*p >= '0' && *p <= '9')
                p++;
            k[o++] = '#';
        } else if (*p == '\'' && strchr(p + 1, '\'')) { /* '' : no longer than the quoted text */
            p = strchr(p + 1, '\'') + 1;
            k[o++] = '\'';
            k[o++] = '\'';
        } else {
            k[o++] = *p++;
        }
    }
    k[o] = '\0';
    return k;
}

static uint64_t hash(const char *s)
{
    uint64_t h = 1469598103934665603u; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211u;
    return h;
}

/* The group of key (created, in order of first appearance, when new); NULL when out of memory. */
static cli_note_group *group_of(cli_notes *n, char *key)
{
    if (2 * (n->ngroups + 1) > n->slots) { /* the index: open addressing, at most half full */
        const size_t slots = n->slots ? 2 * n->slots : 64;
        size_t *idx = malloc(slots * sizeof *idx);
        if (!idx)
            return NULL;
        for (size_t i = 0; i < slots; i++)
            idx[i] = SIZE_MAX;
        for (size_t g = 0; g < n->ngroups; g++) {
            size_t h = hash(n->groups[g].key) & (slots - 1);
            while (idx[h] != SIZE_MAX)
                h = (h + 1) & (slots - 1);
            idx[h] = g;
        }
        free(n->index);
        n->index = idx;
        n->slots = slots;
    }
    size_t h = hash(key) & (n->slots - 1);
    for (; n->index[h] != SIZE_MAX; h = (h + 1) & (n->slots - 1))
        if (!strcmp(n->groups[n->index[h]].key, key))
            return &n->groups[n->index[h]];
    if (n->ngroups == n->cap) {
        const size_t cap = n->cap ? 2 * n->cap : 16;
        cli_note_group *g = realloc(n->groups, cap * sizeof *g);
        if (!g)
            return NULL;
        n->groups = g;
        n->cap = cap;
    }
    cli_note_group *g = &n->groups[n->ngroups];
    memset(g, 0, sizeof *g);
    g->key = key;
    g->same = 1;
    n->index[h] = n->ngroups++;
    return g;
}

void cli_notes_add(cli_notes *n, const char *subject, const char *text)
{
    if (!text)
        return;
    if (!subject) { /* about the whole input: always in full, in order */
        fprintf(stderr, "raid %s: notice: %s\n", n->cmd, text);
        return;
    }
    char shown[RAID_SHOW_CAP]; /* the series' name as the library's messages show it (escaped) */
    subject = raid_show_text(shown, subject, RAID_SHOW_NUL);
    char *rest = without_subject(text, subject), *key = rest ? kind_of(rest) : NULL;
    cli_note_group *g = key ? group_of(n, key) : NULL;
    if (!g) { /* out of memory: the notice as it is */
        fprintf(stderr, "raid %s: %s\n", n->cmd, text);
        free(rest);
        free(key);
        return;
    }
    if (g->key != key)
        free(key);
    char *copy = strdup(text);
    if (copy && n->nitems == n->items_cap) {
        const size_t cap = n->items_cap ? 2 * n->items_cap : 64;
        cli_note_item *it = realloc(n->items, cap * sizeof *it);
        if (it)
            n->items = it, n->items_cap = cap;
        else
            free(copy), copy = NULL;
    }
    if (!copy) { /* out of memory: the notice as it is */
        fprintf(stderr, "raid %s: %s\n", n->cmd, text);
        free(rest);
        return;
    }
    if (g->count == 0) {
        g->first = n->nitems;
        g->rest = rest;
        rest = NULL;
    } else if (g->same) {
        g->same = g->rest && !strcmp(g->rest, rest);
    }
    if (g->count < CLI_NOTES_SHOWN)
        g->subject[g->count] = strdup(subject);
    g->count++;
    n->items[n->nitems++] = (cli_note_item){(size_t)(g - n->groups), copy};
    free(rest);
}

void cli_notes_print(cli_notes *n, const char *where)
{
    char c[32], t[32];
    for (size_t i = 0; i < n->nitems; i++) { /* in order of arrival: each kind where its first notice was */
        const cli_note_group *g = &n->groups[n->items[i].group];
        if (g->count <= (cli_quiet ? 1 : CLI_NOTES_SHOWN)) { /* a few: each as it is */
            fprintf(stderr, "raid %s: %s\n", n->cmd, n->items[i].text);
        } else if (g->first == i) {
            fprintf(stderr, "raid %s: %s", n->cmd, cli_grouped(g->count, c, sizeof c));
            if (n->nsubjects)
                fprintf(stderr, " of %s", cli_grouped(n->nsubjects, t, sizeof t));
            if (g->same && g->rest)
                fprintf(stderr, " %s: %s", n->noun, g->rest);
            else
                fprintf(stderr, " %s, such as %s", n->noun, n->items[i].text);
            if (!cli_quiet) { /* the first series, and where every one is */
                fprintf(stderr, " (first: ");
                for (size_t j = 0; j < CLI_NOTES_SHOWN; j++)
                    fprintf(stderr, "%s%s", j ? ", " : "", g->subject[j] ? g->subject[j] : "?");
                fprintf(stderr, "%s%s)", where ? "; " : "", where ? where : "");
            }
            fputc('\n', stderr);
        }
    }
    for (size_t i = 0; i < n->nitems; i++)
        free(n->items[i].text);
    for (size_t k = 0; k < n->ngroups; k++) {
        free(n->groups[k].key);
        free(n->groups[k].rest);
        for (size_t j = 0; j < CLI_NOTES_SHOWN; j++)
            free(n->groups[k].subject[j]);
    }
    free(n->items);
    free(n->groups);
    free(n->index);
    n->items = NULL;
    n->groups = NULL;
    n->index = NULL;
    n->nitems = n->items_cap = n->ngroups = n->cap = n->slots = 0;
}
