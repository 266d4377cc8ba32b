/* The table reader's raw rows (raidTableKeepRows, raidTableHeaderText; src/io/table.c), which raid
 * sort writes unchanged: every row's bytes without its line break, for LF, CRLF and CR files, quoted
 * fields holding commas, quotes and line breaks, spaces around fields, blank lines, a last line without
 * a line break, a byte order mark, rows across batches, 64 KiB pieces and 1 MiB blocks. */
#define _POSIX_C_SOURCE 200809L
#include "support.h"
#include "io/table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const RaidTspec SPEC[] = {{"v", NULL, RAID_T_F64, RAID_T_EMPTY_NA}};

/* Read path with rows kept, batches of max_rows; check the header and the n rows want[]. */
static void check_rows(const char *path, const char *header, const char *const *want, size_t n, size_t max_rows)
{
    RaidTable *t = NULL;
    assert_int_equal(raidTableOpen(&t, path, SPEC, 1), RAID_OK);
    size_t hl;
    assert_string_equal(raidTableHeaderText(t, &hl), header);
    assert_int_equal(hl, strlen(header));
    raidTableKeepRows(t);
    RaidTbatch b;
    assert_int_equal(raidTbatchInit(&b, t), RAID_OK);
    size_t k = 0;
    for (int done = 0; !done;) {
        assert_int_equal(raidTableRead(t, &b, max_rows, &done), RAID_OK);
        for (size_t i = 0; i < b.nrows; i++, k++) {
            size_t len;
            const char *r = raidTcolText(&b.row, i, &len);
            assert_true(k < n);
            assert_int_equal(len, strlen(want[k]));
            assert_memory_equal(r, want[k], len);
        }
    }
    assert_int_equal(k, n);
    raidTbatchFree(&b);
    raidTableClose(t);
}

static void test_shapes(void **st)
{
    (void)st;
    static const char *const rows[] = {"1,a", " 2 , \"b,c\" ", "3,\"x\r\ny\"", "4,\"say \"\"hi\"\"\"", ",\"\n\n\"",
                                       "5,\"\r\""};
    static const char *const eols[] = {"\n", "\r\n", "\r"};
    for (int e = 0; e < 3; e++) {
        char text[512] = "\xEF\xBB\xBF" "v,w";
        strcat(text, eols[e]);
        for (size_t i = 0; i < 6; i++) {
            strcat(text, rows[i]);
            if (i == 2) { /* a blank line: no row */
                strcat(text, eols[e]);
            }
            if (i < 5 || e < 2) /* the CR file's last line has no line break */
                strcat(text, eols[e]);
        }
        const char *p = t_tmppath("rows.csv");
        assert_int_equal(t_write_file(p, text), 0);
        check_rows(p, "v,w", rows, 6, 1);
        check_rows(p, "v,w", rows, 6, 100);
    }
}

/* 200,000 rows of varying length (about 3.4 MB: several blocks and many pieces), batches of 1,000. */
static void test_large(void **st)
{
    (void)st;
    const size_t n = 200000;
    char **want = malloc(n * sizeof *want);
    assert_non_null(want);
    const char *p = t_tmppath("rows_large.csv");
    FILE *f = fopen(p, "wb");
    assert_non_null(f);
    fputs("v,w\r\n", f);
    for (size_t i = 0; i < n; i++) {
        char buf[64];
        if (i % 7 == 3)
            snprintf(buf, sizeof buf, "%zu.5,\"q\n%zu\"", i, i);
        else
            snprintf(buf, sizeof buf, "%zu,%0*zu", i, (int)(i % 13), i);
        want[i] = strdup(buf);
        fprintf(f, "%s\r\n", buf);
    }
    fclose(f);
    check_rows(p, "v,w", (const char *const *)want, n, 1000);
    for (size_t i = 0; i < n; i++)
        free(want[i]);
    free(want);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_shapes), cmocka_unit_test(test_large)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
