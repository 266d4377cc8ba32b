/* The segmenter: intraday prices (or daily returns) of interleaved symbols into complete (symbol, trading
 * date) segments of returns, with the order checks, session window, time zone and previous-tick sampling
 * of docs/input.md. The one segmenting mechanism of RAID: the CSV reader (reader.c) and the array entry
 * point raid_ticks (ticks.c) both feed it. Never installed.
 * Error convention: functions that return a raid_status report through raidFail(NULL, ...), that is
 * raid_errmsg(); the row functions return a code and leave the message to the caller, which knows how to
 * name the row (FILE:LINE:COL, or the row index of raid_ticks_push). */
#ifndef RAID_IO_SEGMENT_H
#define RAID_IO_SEGMENT_H

#include "raid.h"
#include "io/tz.h"

#include <stddef.h>
#include <stdint.h>

typedef struct RaidSeg RaidSeg;

/* Create a segmenter for options o (NULL: the defaults of raid_read_opts_init). fn names the public
 * function in messages ("raid_reader_open"). Validates kind, sample_us (0 .. one day) and the session
 * (start, end in [0, 86400], start > end is a window across midnight), loads o->tz.
 * Errors: RAID_EINVAL (bad option, unknown tz: message "unknown time zone 'X'"), RAID_ENOMEM. */
raid_status raidSegCreate(RaidSeg **out, const raid_read_opts *o, const char *fn);
/* Free everything; NULL is a no-op. */
void raidSegFree(RaidSeg *sg);

/* The input kind of the options it was created with. */
raid_input_kind raidSegKind(const RaidSeg *sg);

/* The index of symbol s[0..n) (no NUL byte; UTF-8 checked by the caller), added in order of first
 * appearance if new. Returns the index, or -1 when out of memory or over UINT32_MAX - 1 symbols. */
int64_t raidSegSymbol(RaidSeg *sg, const char *s, size_t n);
/* Number of symbols, and the name of symbol i (NULL if out of range). */
size_t raidSegNsymbols(const RaidSeg *sg);
const char *raidSegSymbolName(const RaidSeg *sg, uint32_t i);

/* The time zone of the options (read only: raidIoTzOffset may be called on it from any thread) and
 * the sampling interval (0: tick). */
struct RaidIoTz;
const struct RaidIoTz *raidSegTz(const RaidSeg *sg);
int64_t raidSegSampleUs(const RaidSeg *sg);

/* Local wall-clock time (microseconds since 1970-01-01T00:00:00 local) of the UTC instant t_us in the
 * segmenter's zone (cached per interval of constant offset). */
int64_t raidSegLocal(RaidSeg *sg, int64_t t_us);
/* The UTC instant of local wall-clock time w_us in the segmenter's zone: the offset at w_us read as UTC,
 * then at the instant so found (as raid bars; the order key of a row without an offset). */
int64_t raidSegInstant(RaidSeg *sg, int64_t w_us);

/* Where a row comes from, for the order messages: ref is the caller's row reference (a line number, a
 * row index), text the row's time as the caller wants it quoted (NULL when the caller formats it itself
 * from the raw value raw). */
typedef struct RaidSegRow {
    uint64_t ref;
    const char *text;
    size_t text_len;
    int64_t raw;
    int raw_utc; /* raw is a UTC instant (shown with a Z), else a local wall-clock time */
} RaidSegRow;

enum {
    RAID_SEG_OK = 0,
    RAID_SEG_ENOMEM = -1,
    RAID_SEG_TIME_BACK = 1, /* the instant is before the previous row's of the symbol */
    RAID_SEG_DATE_BACK = 2,  /* the trading date is before the open segment's (or, returns, the date) */
    RAID_SEG_DATE_RANGE = 3, /* the trading date is outside years 0001 to 9999 (nothing changed) */
    RAID_SEG_TOO_MANY = 4    /* the sampling grid would give the segment more than RAID_MAX_SEGMENT_RETURNS
                                returns (nothing changed: the row is refused) */
};

/* The session window of raid_read_opts (docs/input.md "Session window"; lo_s, hi_s: seconds after local
 * midnight, lo_s -1: no window) at local time of day tod_us (microseconds, [0, one day)): 1 when kept,
 * both ends inclusive; *next_day (may be NULL) 1 when a window across midnight (lo_s > hi_s) puts the
 * observation on the next trading date (from lo_s on), else 0. The one definition: the segmenter's and
 * raid bars' (src/jobs/bars.c). */
static inline int raidSessionKeep(int32_t lo_s, int32_t hi_s, int64_t tod_us, int *next_day)
{
    int keep = 1, next = 0;
    if (lo_s >= 0) {
        const int64_t lo = (int64_t)lo_s * 1000000, hi = (int64_t)hi_s * 1000000;
        if (lo <= hi) {
            keep = tod_us >= lo && tod_us <= hi;
        } else { /* across midnight: from lo the observations belong to the next trading date */
            keep = tod_us >= lo || tod_us <= hi;
            next = tod_us >= lo;
        }
    }
    if (next_day)
        *next_day = next;
    return keep;
}

/* The first and last trading dates (days since the epoch) a segment may have: 0001-01-01, 9999-12-31. */
#define RAID_SEG_DAY_MIN INT64_C(-719162)
#define RAID_SEG_DAY_MAX INT64_C(2932896)

/* A price p (positive, finite: checked by the caller) of symbol si at UTC-like instant `instant` (the
 * order key, microseconds) with local wall-clock time `local`. Applies the order checks, closes the
 * symbol's segment when the trading date moves on, drops observations outside the session and samples.
 * Returns RAID_SEG_OK, RAID_SEG_TIME_BACK / RAID_SEG_DATE_BACK (nothing changed; raidSegPrev names the
 * previous row), RAID_SEG_DATE_RANGE, RAID_SEG_TOO_MANY or RAID_SEG_ENOMEM. Prices kind only.
 * w->text (when not NULL) must stay valid until raidSegHoldTexts (the segmenter copies the text of each
 * symbol's latest row only then, not once per row). */
int raidSegPrice(RaidSeg *sg, uint32_t si, int64_t instant, int64_t local, double p, const RaidSegRow *w);
/* The row-local part of raidSegPrice, which reads only the options (any thread may call it): the
 * trading date *day (days since the epoch) and time of day *tod (microseconds) of local wall-clock time
 * `local` under the session window; returns 1 when the session keeps the observation, else 0. */
int raidSegDay(const RaidSeg *sg, int64_t local, int64_t *day, int64_t *tod);
/* raidSegPrice with raidSegDay's results (keep, day, tod) worked out by the caller, and ret: NULL, or
 * (tick sampling only, sample_us 0) the return price_return(q, p) from the symbol's previous kept price q,
 * where the caller knows that that row is in the same segment (the same symbol and trading date, no row
 * refused in between): the value the segmenter would compute itself, found by the caller in parallel. */
int raidSegPriceAt(RaidSeg *sg, uint32_t si, int64_t instant, int64_t day, int64_t tod, int keep, double p,
                      const double *ret, const RaidSegRow *w);
/* raidSegPriceAt after nskip kept observations of the same symbol and segment that the caller left out
 * (nskip 0: raidSegPriceAt), observations that change nothing but what is added here: with tick
 * sampling their returns skip_ret[0 .. nskip) (those the segmenter would have taken: see raidSegPriceAt's
 * ret), with a grid their count (the notice's statistics; an observation may be left out only when no grid
 * point lies between it and the next kept observation: it is never sampled). The row itself must be a kept
 * observation of the same segment, after the segment's first. */
int raidSegPriceAfter(RaidSeg *sg, uint32_t si, int64_t instant, int64_t day, int64_t tod, int keep, double p,
                         const double *ret, const double *skip_ret, size_t nskip, const RaidSegRow *w);
/* The first grid point at or after instant t of the grid of interval S (> 0) through `anchor` (a local
 * midnight). */
static inline int64_t raidSegGridAfter(int64_t anchor, int64_t S, int64_t t)
{
    return anchor + (raidIoFloordiv(t - anchor - 1, S) + 1) * S;
}
/* The index of symbol s[0..n) if the segmenter has it, else -1 (nothing added). */
int64_t raidSegFind(const RaidSeg *sg, const char *s, size_t n);
/* Symbol si's open segment: 0 none, 1 open without a kept observation yet, 2 open with one; *day its
 * trading date and *anchor the local midnight of its grid (2 only). */
int raidSegOpenState(const RaidSeg *sg, uint32_t si, int64_t *day, int64_t *anchor);
/* The return from price prev to p (both positive and finite) that the segmenter takes (segment.c's head
 * comment): for callers of raidSegPriceAt. */
double raidSegReturnOf(double prev, double p);
/* Copy the texts given with the rows (RaidSegRow.text) that the segmenter may still quote in a message:
 * call before they become invalid. */
void raidSegHoldTexts(RaidSeg *sg);
/* A return r (finite, |r| <= RAID_MAX_RETURN: checked by the caller) of symbol si on day `day` (days
 * since the epoch). Same codes (RAID_SEG_DATE_BACK when the date goes backwards; never RAID_SEG_TOO_MANY).
 * Returns kind only. */
int raidSegReturn(RaidSeg *sg, uint32_t si, int64_t day, double r, const RaidSegRow *w);
/* The words of a row refused with RAID_SEG_DATE_RANGE or RAID_SEG_TOO_MANY, for the caller's message
 * that names the row. */
void raidSegRowProblem(const RaidSeg *sg, int rc, char *buf, size_t len);
/* The previous accepted row of symbol si (after a *_BACK code): its reference, its text ("" when the
 * caller gave none), its raw value and whether that is a UTC instant. */
void raidSegPrev(RaidSeg *sg, uint32_t si, uint64_t *ref, const char **text, int64_t *raw, int *raw_utc);

/* End of input: close every open segment (in symbol order) and work out the notices.
 * Errors: RAID_ENOMEM. */
raid_status raidSegFinish(RaidSeg *sg);
/* Number of complete segments not yet taken. */
size_t raidSegQueued(const RaidSeg *sg);
/* Append queued segments to b, oldest first: at least one (if any is queued), then while b holds fewer
 * than max_returns returns. Errors: RAID_ENOMEM (b keeps what was appended). */
raid_status raidSegTake(RaidSeg *sg, raid_batch *b, size_t max_returns);

/* Notices (raid_reader_notice): facts about the input that change no number but that a user should
 * know, e.g. a sampling grid finer than the data's spacing. Count, and text i (NULL if out of range). */
size_t raidSegNoticeCount(const RaidSeg *sg);
const char *raidSegNotice(const RaidSeg *sg, size_t i);
/* Add a notice of the caller's (the CSV reader's "no line break at the end" one). Out of memory or past
 * 16 notices it is dropped: a notice never fails a read. */
void raidSegAddNotice(RaidSeg *sg, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
