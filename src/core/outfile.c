/* Output files without partial results: see outfile.h. */
#define _XOPEN_SOURCE 700
#include "core/outfile.h"

#include <errno.h>
#include <math.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int raid_path_is_fd(const char *path, int fd)
{
    struct stat a, b;
    return path && stat(path, &a) == 0 && fstat(fd, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

raid_status raid_outfile_open(raid_outfile *o, const char *path, char *err, size_t errlen)
{
    memset(o, 0, sizeof *o);
    if (!path || !*path) {
        raid_msg(err, errlen, "empty output path");
        return RAID_EINVAL;
    }
    if (strlen(path) >= sizeof o->path) {
        raid_msg(err, errlen, "output path too long");
        return RAID_EINVAL;
    }
    snprintf(o->path, sizeof o->path, "%s", path);
    struct stat st;
    /* A name of the process's standard output or error (/dev/stdout, /dev/fd/2, or the file the shell
     * redirected it to): written through that descriptor, at its position and in its mode, never
     * replaced by a new file (a helper found `-o /dev/stdout >> log` replacing the log's contents). */
    for (int fd = 1; fd <= 2; fd++)
        if (raid_path_is_fd(path, fd) && stat(path, &st) == 0 && !S_ISDIR(st.st_mode)) {
            const int d = dup(fd);
            o->fp = d >= 0 ? fdopen(d, "w") : NULL;
            if (!o->fp) {
                if (d >= 0)
                    close(d);
                raid_msg(err, errlen, "cannot write %s: %s", path, strerror(errno));
                return RAID_EIO;
            }
            return RAID_OK;
        }
    if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
        char *target = realpath(path, NULL); /* NULL for a dangling link: then the link is replaced */
        if (target && strlen(target) < sizeof o->path)
            snprintf(o->path, sizeof o->path, "%s", target);
        free(target);
    }
    if (stat(o->path, &st) == 0 && !S_ISREG(st.st_mode)) {
        if (S_ISDIR(st.st_mode)) {
            raid_msg(err, errlen, "%s: is a directory", path);
            return RAID_EIO;
        }
        o->fp = fopen(o->path, "w");
        if (!o->fp) {
            raid_msg(err, errlen, "cannot open %s: %s", path, strerror(errno));
            return RAID_EIO;
        }
        return RAID_OK;
    }
    /* A short temporary name in the destination's folder (rename stays within one file system). */
    const char *slash = strrchr(o->path, '/');
    const int dirlen = slash ? (int)(slash - o->path) + 1 : 0;
    snprintf(o->tmp, sizeof o->tmp, "%.*s.raid-tmp-XXXXXX", dirlen, o->path);
    int fd = mkstemp(o->tmp);
    if (fd < 0) {
        raid_msg(err, errlen, "cannot create %s: %s", path, strerror(errno));
        o->tmp[0] = 0;
        return RAID_EIO;
    }
    /* mkstemp creates the file 0600; give it the permissions a plain fopen would. */
    mode_t um = umask(0);
    umask(um);
    if (fchmod(fd, 0666 & ~um) != 0) { /* best effort: the contents are still right */
    }
    o->fp = fdopen(fd, "w");
    if (!o->fp) {
        raid_msg(err, errlen, "cannot open %s: %s", path, strerror(errno));
        close(fd);
        unlink(o->tmp);
        o->tmp[0] = 0;
        return RAID_EIO;
    }
    return RAID_OK;
}

const char *raid_outfile_name(const raid_outfile *o) { return o->tmp[0] ? o->tmp : o->path; }

raid_status raid_outfile_commit(raid_outfile *o, char *err, size_t errlen)
{
    int bad = 0, e = 0;
    if (o->fp) {
        if (ferror(o->fp) || fflush(o->fp) != 0) {
            bad = 1;
            e = errno;
        }
        if (fclose(o->fp) != 0 && !bad) {
            bad = 1;
            e = errno;
        }
        o->fp = NULL;
    }
    if (!bad && o->tmp[0] && rename(o->tmp, o->path) != 0) {
        bad = 1;
        e = errno;
    }
    if (bad) {
        raid_msg(err, errlen, "cannot write %s: %s", o->path, strerror(e ? e : EIO));
        if (o->tmp[0])
            unlink(o->tmp);
        o->tmp[0] = 0;
        return RAID_EIO;
    }
    o->tmp[0] = 0;
    return RAID_OK;
}

void raid_outfile_abort(raid_outfile *o)
{
    if (o->fp) {
        fclose(o->fp);
        o->fp = NULL;
    }
    if (o->tmp[0]) {
        unlink(o->tmp);
        o->tmp[0] = 0;
    }
}

/* ---- the public handle (include/raid/outfile.h) ---- */

raid_status raid_outfile_create(raid_outfile **out, const char *path)
{
    if (!out)
        return raid_fail(NULL, RAID_EINVAL, "raid_outfile_create: NULL");
    *out = NULL;
    raid_outfile *o = malloc(sizeof *o);
    if (!o)
        return raid_fail(NULL, RAID_ENOMEM, "out of memory");
    char err[4200];
    const raid_status st = raid_outfile_open(o, path, err, sizeof err);
    if (st != RAID_OK) {
        free(o);
        return raid_fail(NULL, st, "%s", err);
    }
    *out = o;
    return RAID_OK;
}

FILE *raid_outfile_fp(const raid_outfile *o) { return o->fp; }

void raid_outfile_close_stream(raid_outfile *o)
{
    if (o->fp)
        fclose(o->fp);
    o->fp = NULL;
}

const char *raid_outfile_tmpname(const raid_outfile *o) { return o->tmp; }

raid_status raid_outfile_finish(raid_outfile *o)
{
    char err[4200];
    const raid_status st = raid_outfile_commit(o, err, sizeof err);
    free(o);
    return st == RAID_OK ? RAID_OK : raid_fail(NULL, st, "%s", err);
}

void raid_outfile_discard(raid_outfile *o)
{
    if (!o)
        return;
    raid_outfile_abort(o);
    free(o);
}

void raid_csv_put_field(FILE *f, const char *s)
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

void raid_csv_put_value(FILE *f, double v)
{
    if (isfinite(v))
        fprintf(f, ",%.17g", v);
    else
        fputs(",", f);
}
