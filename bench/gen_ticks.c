/* A tick file for the CSV benchmarks (bench/bench_csv.sh): N trades of S symbols over D days, in the shape of
 * data/trades_xxx_2days.csv (symbol,timestamp,price,size; timestamps with microseconds, prices in cents),
 * symbols interleaved in time order, 09:30 to 16:00 each weekday. Deterministic (splitmix64 of a seed), no
 * dependency, so that the benchmark runs on a machine without Python packages.
 *
 *   gen_ticks OUT.csv [--ticks N] [--symbols S] [--days D] [--seed K]
 *
 * Defaults: 1e7 ticks, 10 symbols, 20 days (50,000 ticks per symbol and day, 0.47 s apart on average). */
#define _POSIX_C_SOURCE 200809L
#include "bench_common.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t mix(uint64_t *z)
{
    uint64_t x = (*z += 0x9e3779b97f4a7c15ULL);
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

/* Civil date of day z since 1970-01-01 (H. Hinnant's algorithm). */
static void civil(int64_t z, int *y, int *m, int *d)
{
    z += 719468;
    const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    const int64_t doe = z - era * 146097;
    const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    const int64_t mp = (5 * doy + 2) / 153;
    *d = (int)(doy - (153 * mp + 2) / 5 + 1);
    *m = (int)(mp < 10 ? mp + 3 : mp - 9);
    *y = (int)(yoe + era * 400 + (*m <= 2));
}

int main(int argc, char **argv)
{
    if (argc < 2 || argv[1][0] == '-') {
        fprintf(stderr, "usage: gen_ticks OUT.csv [--ticks N] [--symbols S] [--days D] [--seed K]\n");
        return 1;
    }
    double nticks = 1e7;
    int nsym = 10, ndays = 20;
    uint64_t seed = 42;
    for (int i = 2; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--ticks"))
            nticks = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--symbols"))
            nsym = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--days"))
            ndays = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--seed"))
            seed = strtoull(argv[i + 1], NULL, 10);
        else {
            fprintf(stderr, "gen_ticks: unknown option %s\n", argv[i]);
            return 1;
        }
    }
    if (nsym < 1 || ndays < 1 || nticks < 1) {
        fprintf(stderr, "gen_ticks: bad sizes\n");
        return 1;
    }
    FILE *f = fopen(argv[1], "wb");
    if (!f) {
        perror(argv[1]);
        return 1;
    }
    static char buf[1 << 20];
    setvbuf(f, buf, _IOFBF, sizeof buf);
    int64_t *cents = malloc((size_t)nsym * sizeof *cents);
    if (!cents)
        return 1;
    for (int s = 0; s < nsym; s++)
        cents[s] = 2000 + (int64_t)(mix(&seed) % 30000); /* 20.00 to 320.00 */
    fprintf(f, "symbol,timestamp,price,size\n");
    const uint64_t per_day = (uint64_t)(nticks / ndays);
    const double session_us = 23400e6, step = session_us / (double)(per_day + 1);
    int64_t day = 17533; /* 2018-01-02, a Tuesday */
    uint64_t written = 0;
    for (int dd = 0; dd < ndays; dd++, day++) {
        while ((day + 4) % 7 >= 5) /* skip Saturday (2) and Sunday (3): 1970-01-01 was a Thursday */
            day++;
        int y, m, d;
        civil(day, &y, &m, &d);
        const uint64_t n = dd + 1 == ndays ? (uint64_t)nticks - written : per_day;
        double t = 0;
        for (uint64_t i = 0; i < n; i++) {
            t += step * (0.5 + (double)(mix(&seed) >> 11) * 0x1p-53); /* increments in [0.5, 1.5) steps */
            const int64_t us = 34200000000LL + (int64_t)(t < session_us ? t : session_us - 1);
            const uint64_t r = mix(&seed);
            const int s = (int)(r % (uint64_t)nsym);
            const int64_t mv = (int64_t)((r >> 32) % 5) - 2; /* -2 .. +2 cents */
            if (cents[s] + mv > 100)
                cents[s] += mv;
            const int64_t sec = us / 1000000;
            fprintf(f, "S%03d,%04d-%02d-%02dT%02d:%02d:%02d.%06d,%" PRId64 ".%02d,%d\n", s, y, m, d,
                    (int)(sec / 3600), (int)(sec / 60 % 60), (int)(sec % 60), (int)(us % 1000000),
                    cents[s] / 100, (int)(cents[s] % 100), 1 + (int)((r >> 40) % 500) * 10);
        }
        written += n;
    }
    free(cents);
    if (fclose(f) != 0) {
        perror(argv[1]);
        return 1;
    }
    return 0;
}
