/* Shared by the benchmarks: counter-based standard normal draws, the same for any thread count. */
#ifndef RAID_BENCH_COMMON_H
#define RAID_BENCH_COMMON_H

#include <raid/core.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* --precision's value, f32 or df (the CLI's spelling); anything else ends the program with a usage
 * error, so that a misspelt policy is never benchmarked as the other one. */
static inline raid_precision bench_precision(const char *prog, const char *v)
{
    if (!strcmp(v, "f32")) return RAID_PREC_F32;
    if (!strcmp(v, "df")) return RAID_PREC_DF;
    fprintf(stderr, "%s: --precision '%s' (expected df or f32)\n", prog, v);
    exit(1);
}

/* Wall-clock seconds (monotonic); the includer defines _POSIX_C_SOURCE. */
static inline double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The process's cpu time in seconds (all its threads). */
static inline double bench_cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* N(0,1) number i of stream seed: splitmix64 of (seed, i) gives two uniforms, then Box-Muller. */
static inline double bench_gauss(uint64_t i, uint64_t seed)
{
    uint64_t z = (i * 2 + 1) * 0x9e3779b97f4a7c15ULL + seed, u[2];
    for (int k = 0; k < 2; k++) {
        z += 0x9e3779b97f4a7c15ULL;
        uint64_t x = z;
        x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
        x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
        u[k] = x ^ (x >> 31);
    }
    const double a = ((double)(u[0] >> 11) + 0.5) * 0x1p-53, b = (double)(u[1] >> 11) * 0x1p-53;
    return sqrt(-2.0 * log(a)) * cos(6.283185307179586 * b);
}

#endif
