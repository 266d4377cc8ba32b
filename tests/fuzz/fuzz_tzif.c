/* Fuzz target `tzif`: TZif files (RFC 8536) as the time zones of --tz read them (src/io/tz.c), given as
 * bytes (raidIoTzFromTzif, the parse of raidIoTzOpen without the file).
 *
 * Input: the TZif bytes, no option byte (the seeds are the system's zone files as they are).
 * Checks: a failure sets a message and gives no zone; a zone's offsets keep their contract over the years
 * 0001 to 9999 (fz_check_tz: intervals that hold the instant, one offset each, tiling time; local times
 * mapped back to instants). */
#include "fuzz_common.h"

#include "io/tz.h"
#include "raid.h"

#include <stdint.h>

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    fz_init();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    RaidIoTz *tz = (RaidIoTz *)1;
    if (raidIoTzFromTzif(&tz, data, size) != RAID_OK) {
        FZ_CHECK(tz == NULL && *raid_errmsg(), "raidIoTzFromTzif failed without a message or left a zone");
        return 0;
    }
    fz_check_tz(tz, 64);
    raidIoTzFree(tz);
    return 0;
}
