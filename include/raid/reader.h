/*
 * raid/reader.h -- reading intraday prices (or returns) from CSV into whole (symbol, date) segments, in bounded memory.
 * Part of the public API; include <raid.h> for all of it. Conventions: raid/core.h.
 */
#ifndef RAID_READER_H
#define RAID_READER_H

#include "raid/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------------------ */
/* Reading intraday prices (or returns) from CSV into segments                                       */
/* ------------------------------------------------------------------------------------------------ */

typedef struct raid_reader raid_reader;

typedef enum raid_input_kind { RAID_INPUT_PRICES = 0, RAID_INPUT_RETURNS = 1 } raid_input_kind;

/** Options of raid_reader_open; raid_read_opts_init() sets the defaults noted here. */
typedef struct raid_read_opts {
    raid_input_kind kind;      /* RAID_INPUT_PRICES (default) or RAID_INPUT_RETURNS */
    const char *symbol_col;    /* column names, matched case-insensitively; NULL = "symbol" (optional column) */
    const char *time_col;      /* NULL = "timestamp" (prices) */
    const char *price_col;     /* NULL = "price" (prices) */
    const char *date_col;      /* NULL = "date" (returns) */
    const char *ret_col;       /* NULL = "ret" (returns) */
    const char *tz;            /* IANA zone "Area/City" for timestamps that carry an offset; NULL = "UTC" */
    int32_t session_start_s;   /* seconds after local midnight, -1 = no session window (default) */
    int32_t session_end_s;     /* inclusive end of the window, seconds after midnight */
    int64_t sample_us;         /* sampling interval in microseconds; 0 = tick (every observation); default 300e6 (5min) */
} raid_read_opts;

RAID_API void raid_read_opts_init(raid_read_opts *o);

/** Parse "tick", "Ns", "Nmin" (N a positive integer; also "Nms", "Nh") into microseconds (0 for tick).
 *  Errors: RAID_EINVAL. */
RAID_API raid_status raid_parse_sample(const char *s, int64_t *us);
/** Parse "HH:MM-HH:MM" into seconds after midnight. Errors: RAID_EINVAL. */
RAID_API raid_status raid_parse_session(const char *s, int32_t *start_s, int32_t *end_s);

/** A batch of whole segments (symbol, date) with their returns, filled by raid_reader_next. */
typedef struct raid_batch {
    double *ret;         /* returns of all segments back to back */
    size_t nret, ret_cap;
    int64_t *offsets;    /* nseg + 1 entries: segment s is ret[offsets[s] .. offsets[s+1]) */
    uint32_t *symbol;    /* nseg symbol indices (raid_reader_symbol) */
    int32_t *date;       /* nseg dates as yyyymmdd */
    size_t nseg, seg_cap;
} raid_batch;

RAID_API void raid_batch_init(raid_batch *b);
RAID_API void raid_batch_clear(raid_batch *b);   /* keeps the memory */
RAID_API void raid_batch_free(raid_batch *b);

/** Open a CSV file (header row; "-" reads standard input). Errors: RAID_EIO, RAID_EPARSE (missing
 *  column: the message names the file, line 1 and the column), RAID_EINVAL (bad options, unknown tz),
 *  RAID_ENOMEM. On failure *out is NULL and errbuf (if not NULL) holds the message. */
RAID_API raid_status raid_reader_open(raid_reader **out, const char *path, const raid_read_opts *o,
                             char *errbuf, size_t errbuf_len);

/** Append complete segments to b (b is not cleared first) until it holds at least max_returns returns
 *  or the input ends. Memory is bounded by the open segments (one per symbol) plus the batch.
 *  Sets *done to 1 when the input is exhausted and every segment has been delivered.
 *  Errors: RAID_EPARSE ("FILE:LINE:COL: message" from raid_reader_errmsg), RAID_EIO, RAID_ENOMEM. */
RAID_API raid_status raid_reader_next(raid_reader *rd, raid_batch *b, size_t max_returns, int *done);

/** The message of the last failure ("" if none). */
RAID_API const char *raid_reader_errmsg(const raid_reader *rd);
/** Name of symbol index i ("" when the file has no symbol column); NULL if out of range. */
RAID_API const char *raid_reader_symbol(const raid_reader *rd, uint32_t i);
/** Bytes consumed so far and total file size (0 if unknown), for progress reporting. */
RAID_API void raid_reader_progress(const raid_reader *rd, uint64_t *consumed, uint64_t *total);
RAID_API void raid_reader_close(raid_reader *rd);

#ifdef __cplusplus
}
#endif
#endif /* RAID_READER_H */
