/* Sticky failures of the io handles (sticky.h). */
#include "io/sticky.h"

#include <stdio.h>

raid_status raid_sticky_fail(raid_sticky *e, raid_status s, const char *fmt, ...)
{
    if (e->st == RAID_OK) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(e->msg, sizeof e->msg, fmt, ap);
        va_end(ap);
        e->st = s;
    }
    return raid_sticky_again(e);
}

raid_status raid_sticky_again(const raid_sticky *e)
{
    if (e->st == RAID_OK)
        return RAID_OK;
    return raid_fail(NULL, e->st, "%s", e->msg);
}
