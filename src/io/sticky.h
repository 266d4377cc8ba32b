/* A sticky failure of an io handle (table, reader, raid_ticks): the first failure's status and message
 * are kept, and every later call reports them again. Never installed. */
#ifndef RAID_IO_STICKY_H
#define RAID_IO_STICKY_H

#include "core/internal.h"

typedef struct RaidSticky {
    raid_status st;
    char msg[RAID_ERRMSG_LEN];
} RaidSticky;

/* Record the failure (unless one is recorded already: then the first stays) and set raid_errmsg() to
 * the recorded message; returns the recorded status. */
raid_status raidStickyFail(RaidSticky *e, raid_status s, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Report the recorded failure again through raid_errmsg(); returns its status (RAID_OK if none). */
raid_status raidStickyAgain(const RaidSticky *e);

#endif
