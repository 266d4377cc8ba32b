/* The series of raid ma: the accessors of include/raid/ma.h (the CSV reader and writer: src/jobs/ma.c). */
#include "core/internal.h"
#include "ta/ma_internal.h"

#include <stdlib.h>

void raid_ma_input_destroy(raid_ma_input *in)
{
    if (!in)
        return;
    for (size_t j = 0; j < RAID_MA_MAX_COLUMNS; j++)
        free(in->v[j]);
    free(in->line), free(in->path);
    free(in->date_off), free(in->text), free(in->offsets), free(in->end_line), free(in->date_name);
    raidSymtabFree(&in->syms);
    raidStrlistFree(&in->notices);
    free(in);
}

size_t raid_ma_input_nseries(const raid_ma_input *in) { return in ? in->syms.n : 0; }
size_t raid_ma_input_nrows(const raid_ma_input *in) { return in ? in->nrows : 0; }
const double *raid_ma_input_values(const raid_ma_input *in) { return in ? in->v[0] : NULL; }
size_t raid_ma_input_ncolumns(const raid_ma_input *in) { return in ? in->ncols : 0; }
const double *raid_ma_input_column(const raid_ma_input *in, size_t j) { return in && j < in->ncols ? in->v[j] : NULL; }
const int64_t *raid_ma_input_offsets(const raid_ma_input *in) { return in ? in->offsets : NULL; }
int raid_ma_input_has_symbol(const raid_ma_input *in) { return in ? in->has_symbol : 0; }
const char *raid_ma_input_date_name(const raid_ma_input *in) { return in ? in->date_name : NULL; }
size_t raid_ma_input_notice_count(const raid_ma_input *in) { return in ? in->notices.n : 0; }
const char *raid_ma_input_notice(const raid_ma_input *in, size_t i) { return in ? raidStrlistGet(&in->notices, i) : NULL; }

const char *raid_ma_input_symbol(const raid_ma_input *in, size_t s)
{
    return in ? raidSymtabName(&in->syms, s) : NULL;
}

const char *raid_ma_input_date(const raid_ma_input *in, size_t i)
{
    return in && i < in->nrows ? in->text + in->date_off[i] : NULL;
}
