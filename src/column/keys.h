/* The float64 order keys on the host (kernels/raid_keys.h is the one definition, shared with the
 * kernels; docs/column.md): 64-bit helpers over its 32-bit words. Internal. */
#ifndef RAID_COLUMN_KEYS_H
#define RAID_COLUMN_KEYS_H

#include <stdint.h>
#include <string.h>

#include "raid_keys.h"

/* The order key of x as one uint64 (unsigned order = numpy's sort order; -0.0 folded onto 0.0, every
 * NaN the largest key). */
static inline uint64_t raidKey64(double x)
{
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    const RaidKey k = raidKeyFromBits((uint32_t)(b >> 32), (uint32_t)b);
    return (uint64_t)k.hi << 32 | k.lo;
}

/* The double of key k (+0.0 for the zero key, the canonical quiet NaN for the NaN key). */
static inline double raidKey64Value(uint64_t k)
{
    const RaidKey kk = {(uint32_t)(k >> 32), (uint32_t)k};
    const RaidKey b = raidKeyToBits(kk);
    const uint64_t bits = (uint64_t)b.hi << 32 | b.lo;
    double x;
    memcpy(&x, &bits, sizeof x);
    return x;
}

#endif
