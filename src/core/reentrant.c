/* The C library's functions that keep their result in process-wide state, in the re-entrant forms that
 * do not: several threads (OpenMP's, and callers' own, each with its context) run them at once.
 *
 * lgamma and lgammal store the sign of Gamma in the global signgam (POSIX.1-2017, C99 7.12.8.3 leaves it
 * to the implementation; glibc writes it on every call): the HAR windows' t p-values (regress/ols.c) and
 * the Student t likelihood (models/garch_lik.c), evaluated on many threads, wrote it at once (ThreadSanitizer,
 * tests/test_threads.c). POSIX allows strerror one buffer shared by all threads (glibc before 2.32 used one
 * for unknown codes, FreeBSD's libc, and so macOS's, for every code). */
#define _DEFAULT_SOURCE /* lgamma_r, lgammal_r (glibc <math.h>); strerror_r is then the XSI one */
#include "core/internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

double raidLgamma(double x)
{
    int sign;
    return lgamma_r(x, &sign);
}

long double raidLgammal(long double x)
{
    int sign;
    return lgammal_r(x, &sign);
}

const char *raidErrnoText(int e)
{
    static _Thread_local char buf[256];
    if (strerror_r(e, buf, sizeof buf) != 0)
        snprintf(buf, sizeof buf, "error %d", e);
    return buf;
}
