/* The fault-injection switch of the tests (include/raid/tuning.h, raid_tuning_fault; docs/testing.md
 * "Faults"): the plan of which point fails, the counting, and the RAID_FAULT environment variable. The
 * device layer asks raidFaultAt at each of its points; the output files (outfile.c) ask
 * raidFaultFileAt. Off, neither is reached: the device layer tests ctx->tuning (NULL in production)
 * first, the output files one flag read once. */
#ifndef RAID_FAULT_H
#define RAID_FAULT_H

#include "raid/tuning.h"

#include <stdint.h>

#define RAID_FAULT_NKINDS 10 /* bits of raid_fault_kind */

typedef struct RaidFaultPlan {
    unsigned kinds;                      /* counted kinds; 0: off */
    uint64_t at;                         /* the point that fails, 1-based among `kinds`; 0: count only */
    int sticky;                          /* every point from `at` on fails */
    uint64_t seen;                       /* points of `kinds` passed */
    uint64_t per_kind[RAID_FAULT_NKINDS]; /* the same per kind */
    uint64_t fired;                      /* failures injected */
    unsigned fired_kind;                 /* the first's kind and backend call */
    const char *fired_what;
    int from_env;                        /* armed by RAID_FAULT: raid_ctx_destroy reports the counts */
} RaidFaultPlan;

/* Arm plan (counters reset). */
void raidFaultArm(RaidFaultPlan *p, unsigned kinds, uint64_t at, int sticky);
/* Count a point of kind `kind` (one RAID_FAULT_* bit) named `what` (the backend call, a static string);
 * 1 when it must fail. */
int raidFaultAt(RaidFaultPlan *p, unsigned kind, const char *what);
/* Points of `kinds` passed. */
uint64_t raidFaultCount(const RaidFaultPlan *p, unsigned kinds);

/* RAID_FAULT (KINDS:N[+], N = 0: count only) parsed into *kinds, *at, *sticky: 1 when set and valid, 0 when
 * unset or empty, -1 when malformed (raid_errmsg says why). Read from the environment each call. */
int raidFaultEnv(unsigned *kinds, uint64_t *at, int *sticky);
/* The line a context armed by RAID_FAULT writes to standard error when destroyed, so that a test of a
 * program (the raid CLI) learns the points a run passed: "raid: RAID_FAULT: N device points (alloc A,
 * host H, build B, upload U, launch L, download D, sync S), F failed". */
void raidFaultReport(const RaidFaultPlan *p);

/* The process-wide plan of the output files' points (RAID_FAULT_WRITE, _CLOSE, _RENAME): armed from
 * RAID_FAULT on first use (read once), or by raidFaultFilesArm (tests in the same process). 1 when the
 * point must fail. Thread-safe. */
int raidFaultFileArmed(void);
int raidFaultFileAt(unsigned kind);
void raidFaultFilesArm(unsigned kinds, uint64_t at, int sticky);

#endif
