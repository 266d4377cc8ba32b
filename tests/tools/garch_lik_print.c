/* Test-only: prints the log-likelihood of the float64 cpu path (src/models/garch_lik.h) for the pytest
 * against Python arch (tests/python/test_garch_lik_arch.py). Not installed, not a client of include/.
 *
 *   garch_lik_print MODEL DIST MEAN INIT EZ THETA... < returns
 *   MODEL garch|gjr|egarch, DIST normal|t, MEAN constant|zero, INIT sample|backcast, EZ sqrt2pi|dist;
 *   THETA in the layout of garch_lik.h; returns one per line on stdin.
 * Prints the log-likelihood (minus the negative log-likelihood) with 17 significant digits; exit 2 on
 * bad arguments or input. */
#include "models/garch_lik.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int pick(const char *arg, const char *const *names, int n)
{
    for (int i = 0; i < n; i++)
        if (strcmp(arg, names[i]) == 0) return i;
    fprintf(stderr, "garch_lik_print: unknown choice '%s'\n", arg);
    exit(2);
}

int main(int argc, char **argv)
{
    static const char *const models[] = {"garch", "gjr", "egarch"}, *const dists[] = {"normal", "t"},
                             *const means[] = {"constant", "zero"}, *const inits[] = {"sample", "backcast"},
                             *const ezs[] = {"sqrt2pi", "dist"};
    if (argc < 6) {
        fprintf(stderr, "usage: garch_lik_print MODEL DIST MEAN INIT EZ THETA... < returns\n");
        return 2;
    }
    const RaidGarchLikSpec s = {(RaidGarchLikModel)pick(argv[1], models, 3),
                                   (RaidGarchLikDist)pick(argv[2], dists, 2),
                                   (RaidGarchLikMean)pick(argv[3], means, 2),
                                   (RaidGarchLikInit)pick(argv[4], inits, 2), (RaidGarchLikEz)pick(argv[5], ezs, 2)};
    const size_t k = raidGarchLikNpar(&s);
    if ((size_t)(argc - 6) != k) {
        fprintf(stderr, "garch_lik_print: %zu parameters expected\n", k);
        return 2;
    }
    double th[RAID_GARCH_LIK_MAXPAR];
    for (size_t j = 0; j < k; j++) th[j] = strtod(argv[6 + j], NULL);
    size_t n = 0, cap = 4096;
    double *r = malloc(cap * sizeof *r);
    if (!r) return 2;
    double v;
    while (scanf("%lf", &v) == 1) {
        if (n == cap) {
            double *q = realloc(r, 2 * cap * sizeof *r);
            if (!q) return 2;
            r = q;
            cap *= 2;
        }
        r[n++] = v;
    }
    if (n == 0 || !feof(stdin)) {
        fprintf(stderr, "garch_lik_print: no returns or bad input\n");
        return 2;
    }
    printf("%.17g\n", -raidGarchLikNll(&s, r, n, th, NULL));
    free(r);
    return 0;
}
