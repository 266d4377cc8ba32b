/* A program that uses the installed libraid, as a user's would. */
#include <raid.h>
#include <stdio.h>

int main(void)
{
    raid_ctx *ctx;
    if (raid_ctx_create(&ctx, "cpu") != RAID_OK) {
        fprintf(stderr, "%s\n", raid_errmsg());
        return 1;
    }
    const double r[] = {0.01, -0.02, 0.03};
    const int64_t off[] = {0, 3};
    raid_realized out;
    if (raid_realized_compute(ctx, r, off, 1, &out) != RAID_OK)
        return 1;
    raid_ctx_destroy(ctx);
    printf("raid %s rv %.17g\n", raid_version(), out.rv);
    return out.rv == 0.01 * 0.01 + 0.02 * 0.02 + 0.03 * 0.03 ? 0 : 1;
}
