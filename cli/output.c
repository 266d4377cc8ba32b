/* Output of the commands: stdout, or a file written through src/core/outfile.h (never partial). */
#include "cli.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

int cli_exit_for(raid_status s)
{
    switch (s) {
    case RAID_OK: return 0;
    case RAID_EINVAL: return EXIT_USAGE;
    case RAID_EIO:
    case RAID_EPARSE:
    case RAID_ENOMEM: return EXIT_INPUT;
    default: return EXIT_DEVICE;
    }
}

int cli_open_output(cli_out *o, const char *path)
{
    memset(o, 0, sizeof *o);
    if (path && !strcmp(path, "-")) {
        o->is_stdout = 1;
        o->fp = stdout;
        return 0;
    }
    char err[4200];
    if (raid_outfile_open(&o->file, path, err, sizeof err) != RAID_OK) {
        fprintf(stderr, "raid: %s\n", err);
        return -1;
    }
    o->fp = o->file.fp;
    return 0;
}

int cli_commit_output(cli_out *o)
{
    if (o->is_stdout)
        return fflush(stdout) == 0 ? 0 : -1;
    char err[4200];
    o->fp = NULL;
    if (raid_outfile_commit(&o->file, err, sizeof err) != RAID_OK) {
        fprintf(stderr, "raid: %s\n", err);
        return -1;
    }
    return 0;
}

void cli_abort_output(cli_out *o)
{
    if (!o->is_stdout) {
        raid_outfile_abort(&o->file);
        o->fp = NULL;
    }
}

void cli_put_field(FILE *f, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

void cli_put_value(FILE *f, double v)
{
    if (isfinite(v))
        fprintf(f, ",%.17g", v);
    else
        fputs(",", f);
}
