/* Output files: written to a temporary name beside the target and renamed when complete. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
    if (!path || !strcmp(path, "-")) {
        o->is_stdout = 1;
        o->fp = stdout;
        return 0;
    }
    if (strlen(path) >= sizeof o->final_path) {
        fprintf(stderr, "raid: output path too long\n");
        return -1;
    }
    strcpy(o->final_path, path);
    snprintf(o->tmp_path, sizeof o->tmp_path, "%s.tmp.XXXXXX", path);
    int fd = mkstemp(o->tmp_path);
    if (fd < 0) {
        fprintf(stderr, "raid: cannot create %s: %s\n", path, strerror(errno));
        return -1;
    }
    /* mkstemp creates the file 0600; give the output the permissions a plain fopen would. */
    mode_t um = umask(0);
    umask(um);
    if (fchmod(fd, 0666 & ~um) != 0) { /* best effort: the contents are still right */
    }
    o->fp = fdopen(fd, "w");
    if (!o->fp) {
        fprintf(stderr, "raid: cannot open %s: %s\n", path, strerror(errno));
        close(fd);
        unlink(o->tmp_path);
        return -1;
    }
    return 0;
}

int cli_commit_output(cli_out *o)
{
    if (o->is_stdout)
        return fflush(stdout) == 0 ? 0 : -1;
    FILE *fp = o->fp;
    o->fp = NULL;
    int bad = ferror(fp) || fflush(fp) != 0;
    bad |= fclose(fp) != 0;
    if (bad || rename(o->tmp_path, o->final_path) != 0) {
        fprintf(stderr, "raid: cannot write %s: %s\n", o->final_path, strerror(errno));
        unlink(o->tmp_path);
        return -1;
    }
    return 0;
}

void cli_abort_output(cli_out *o)
{
    if (o->is_stdout || !o->fp)
        return;
    fclose(o->fp);
    o->fp = NULL;
    unlink(o->tmp_path);
}
