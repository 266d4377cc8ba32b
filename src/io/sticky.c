/* Sticky failures of the io handles (sticky.h). */
#include "io/sticky.h"

#include <stdio.h>

raid_status raidStickyFail(RaidSticky *e, raid_status s, const char *fmt, ...)
{
    if (e->st == RAID_OK) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(e->msg, sizeof e->msg, fmt, ap);
        va_end(ap);
        e->st = s;
    }
    return raidStickyAgain(e);
}

raid_status raidStickyAgain(const RaidSticky *e)
{
    if (e->st == RAID_OK)
        return RAID_OK;
    return raidFail(NULL, e->st, "%s", e->msg);
}
