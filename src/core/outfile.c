/* Output files without partial results: see outfile.h. */
#define _GNU_SOURCE /* fopencookie: the tests' injected write faults */
#include "core/outfile.h"
#include "core/fault.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- the tests' write faults (RAID_FAULT=write:N, close:N; include/raid/tuning.h) ---- */

/* A stream over fd whose writes and close ask the fault switch: from the n-th write(2) on the disk is full
 * (that write is short, half its bytes; every later one fails with ENOSPC), and close(2) may fail with EIO
 * after closing. Only when the switch is armed; otherwise fdopen's ordinary stream. */
typedef struct fault_stream {
    int fd;
    int full;
} fault_stream;

static ssize_t fault_write(void *cookie, const char *buf, size_t n)
{
    fault_stream *s = cookie;
    size_t want = n;
    if (s->full)
        want = 0;
    else if (raidFaultFileAt(RAID_FAULT_WRITE)) {
        s->full = 1;
        want = n / 2;
    }
    size_t done = 0;
    while (done < want) {
        const ssize_t w = write(s->fd, buf + done, want - done);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return done ? (ssize_t)done : 0; /* fopencookie: 0 is the error, errno set */
        }
        done += (size_t)w;
    }
    if (s->full) /* the bytes that fitted, and the reason of the rest, as a file stream's retry would get */
        errno = ENOSPC;
    return (ssize_t)done;
}

static int fault_close(void *cookie)
{
    fault_stream *s = cookie;
    int r = close(s->fd);
    free(s);
    if (r == 0 && raidFaultFileAt(RAID_FAULT_CLOSE)) {
        errno = EIO;
        r = -1;
    }
    return r;
}

/* The stream of an output open on fd (taken over: closed on failure too); NULL with errno set. */
static FILE *open_stream(int fd)
{
    FILE *f = NULL;
    if (!raidFaultFileArmed()) {
        f = fdopen(fd, "w");
    } else {
        fault_stream *s = malloc(sizeof *s);
        if (s) {
            *s = (fault_stream){fd, 0};
            f = fopencookie(s, "w", (cookie_io_functions_t){NULL, fault_write, NULL, fault_close});
            if (!f)
                free(s);
        }
    }
    if (!f) {
        const int e = errno ? errno : ENOMEM;
        close(fd);
        errno = e;
    }
    return f;
}

/* rename(2), or the tests' injected failure (RAID_FAULT=rename:N) */
static int rename_out(const char *from, const char *to)
{
    if (raidFaultFileArmed() && raidFaultFileAt(RAID_FAULT_RENAME)) {
        errno = EIO;
        return -1;
    }
    return rename(from, to);
}

int raid_path_is_fd(const char *path, int fd)
{
    struct stat a, b;
    return path && stat(path, &a) == 0 && fstat(fd, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* o->path = where the symbolic link path leads: its target, or for a dangling link (a chain ending at a
 * name that does not exist) that name, so that the file is created there and the link kept. A loop, or
 * a chain longer than the system's limit, is an error (ELOOP). */
static raid_status follow_links(raid_outfile *o, const char *path)
{
    char *target = realpath(path, NULL);
    if (target) {
        const int fits = strlen(target) < sizeof o->path;
        if (fits)
            snprintf(o->path, sizeof o->path, "%s", target);
        free(target);
        return fits ? RAID_OK : raidFail(NULL, RAID_EINVAL, "output path too long");
    }
    if (errno != ENOENT) /* ELOOP, EACCES, ENAMETOOLONG... */
        return raidFail(NULL, RAID_EIO, "cannot create %s: %s", path, raidErrnoText(errno));
    /* Dangling: walk the chain by hand (a link's relative target is relative to the link's folder). */
    char cur[sizeof o->path], next[sizeof o->path], link[sizeof o->path];
    snprintf(cur, sizeof cur, "%s", path);
    for (int hops = 0; hops < 40; hops++) { /* 40: Linux's limit on links followed in one lookup */
        struct stat st;
        if (lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode))
            break; /* the end of the chain: a name that does not exist (or a missing folder on the way) */
        const ssize_t n = readlink(cur, link, sizeof link - 1);
        if (n < 0)
            return raidFail(NULL, RAID_EIO, "cannot create %s: %s", path, raidErrnoText(errno));
        link[n] = 0;
        const char *slash = strrchr(cur, '/');
        const int dirlen = link[0] == '/' || !slash ? 0 : (int)(slash - cur) + 1;
        if ((size_t)dirlen + (size_t)n >= sizeof next)
            return raidFail(NULL, RAID_EINVAL, "output path too long");
        memcpy(next, cur, (size_t)dirlen);
        memcpy(next + dirlen, link, (size_t)n + 1);
        memcpy(cur, next, sizeof cur);
        if (hops == 39)
            return raidFail(NULL, RAID_EIO, "cannot create %s: %s", path, raidErrnoText(ELOOP));
    }
    memcpy(o->path, cur, sizeof o->path);
    return RAID_OK;
}

raid_status raidOutfileOpen(raid_outfile *o, const char *path)
{
    memset(o, 0, sizeof *o);
    if (!path || !*path) {
        return raidFail(NULL, RAID_EINVAL, "empty output path");
    }
    if (strlen(path) >= sizeof o->path) {
        return raidFail(NULL, RAID_EINVAL, "output path too long");
    }
    snprintf(o->path, sizeof o->path, "%s", path);
    struct stat st;
    /* A name of the process's standard output or error (/dev/stdout, /dev/fd/2, or the file the shell
     * redirected it to): written through that descriptor, at its position and in its mode, never
     * replaced by a new file (`-o /dev/stdout >> log` replaced the log's contents when it was). */
    for (int fd = 1; fd <= 2; fd++)
        if (raid_path_is_fd(path, fd) && stat(path, &st) == 0 && !S_ISDIR(st.st_mode)) {
            const int d = dup(fd);
            o->fp = d >= 0 ? open_stream(d) : NULL;
            if (!o->fp)
                return raidFail(NULL, RAID_EIO, "cannot write %s: %s", path, raidErrnoText(errno));
            return RAID_OK;
        }
    if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
        const raid_status ls = follow_links(o, path);
        if (ls != RAID_OK)
            return ls;
    }
    if (stat(o->path, &st) == 0 && !S_ISREG(st.st_mode)) {
        if (S_ISDIR(st.st_mode)) {
            return raidFail(NULL, RAID_EIO, "%s: is a directory", path);
        }
        const int fd = open(o->path, O_WRONLY | O_CREAT | O_TRUNC, 0666); /* fopen(path, "w") */
        o->fp = fd >= 0 ? open_stream(fd) : NULL;
        if (!o->fp)
            return raidFail(NULL, RAID_EIO, "cannot open %s: %s", path, raidErrnoText(errno));
        return RAID_OK;
    }
    /* A short temporary name in the destination's folder (rename stays within one file system). */
    const char *slash = strrchr(o->path, '/');
    const int dirlen = slash ? (int)(slash - o->path) + 1 : 0;
    snprintf(o->tmp, sizeof o->tmp, "%.*s.raid-tmp-XXXXXX", dirlen, o->path);
    int fd = mkstemp(o->tmp);
    if (fd < 0) {
        o->tmp[0] = 0;
        return raidFail(NULL, RAID_EIO, "cannot create %s: %s", path, raidErrnoText(errno));
    }
    /* mkstemp creates the file 0600; give it the permissions a plain fopen would. */
    mode_t um = umask(0);
    umask(um);
    if (fchmod(fd, 0666 & ~um) != 0) { /* best effort: the contents are still right */
    }
    o->fp = open_stream(fd);
    if (!o->fp) {
        const int e = errno;
        unlink(o->tmp);
        o->tmp[0] = 0;
        return raidFail(NULL, RAID_EIO, "cannot open %s: %s", path, raidErrnoText(e));
    }
    return RAID_OK;
}

const char *raid_outfile_name(const raid_outfile *o) { return o->tmp[0] ? o->tmp : o->path; }

raid_status raidOutfileCloseChecked(raid_outfile *o)
{
    if (o->err)
        return raidFail(NULL, RAID_EIO, "cannot write %s: %s", o->path, raidErrnoText(o->err));
    if (!o->fp)
        return RAID_OK;
    int e = 0;
    if (ferror(o->fp) || fflush(o->fp) != 0) /* an earlier write's error: its errno, as the writer left it */
        e = errno ? errno : EIO;
    if (fclose(o->fp) != 0 && !e)
        e = errno ? errno : EIO;
    o->fp = NULL;
    if (!e)
        return RAID_OK;
    o->err = e;
    if (o->tmp[0])
        unlink(o->tmp);
    o->tmp[0] = 0;
    return raidFail(NULL, RAID_EIO, "cannot write %s: %s", o->path, raidErrnoText(e));
}

raid_status raidOutfileCommit(raid_outfile *o)
{
    const raid_status st = raidOutfileCloseChecked(o);
    if (st != RAID_OK)
        return st;
    if (o->tmp[0] && rename_out(o->tmp, o->path) != 0) {
        o->err = errno ? errno : EIO;
        unlink(o->tmp);
        o->tmp[0] = 0;
        return raidFail(NULL, RAID_EIO, "cannot write %s: %s", o->path, raidErrnoText(o->err));
    }
    o->tmp[0] = 0;
    return RAID_OK;
}

void raidOutfileAbort(raid_outfile *o)
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
        return raidFail(NULL, RAID_EINVAL, "raid_outfile_create: NULL");
    *out = NULL;
    raid_outfile *o = malloc(sizeof *o);
    if (!o)
        return raidFail(NULL, RAID_ENOMEM, "out of memory");
    const raid_status st = raidOutfileOpen(o, path);
    if (st != RAID_OK) {
        free(o);
        return st;
    }
    *out = o;
    return RAID_OK;
}

FILE *raid_outfile_fp(const raid_outfile *o) { return o->fp; }

raid_status raid_outfile_close(raid_outfile *o)
{
    if (!o)
        return raidFail(NULL, RAID_EINVAL, "raid_outfile_close: NULL");
    return raidOutfileCloseChecked(o);
}

void raid_outfile_close_stream(raid_outfile *o)
{
    if (o->fp)
        fclose(o->fp);
    o->fp = NULL;
}

const char *raid_outfile_tmpname(const raid_outfile *o) { return o->tmp; }

raid_status raid_outfile_finish(raid_outfile *o)
{
    if (!o)
        return raidFail(NULL, RAID_EINVAL, "raid_outfile_finish: NULL");
    const raid_status st = raidOutfileCommit(o);
    free(o);
    return st;
}

void raid_outfile_discard(raid_outfile *o)
{
    if (!o)
        return;
    raidOutfileAbort(o);
    free(o);
}

void raid_csv_put_field(FILE *f, const char *s)
{
    const size_t n = strlen(s);
    /* Also quoted: a field starting or ending with a space or tab, which the reader (RFC 4180 with
     * unquoted fields trimmed) would otherwise not read back as written. */
    const int edge = n && (s[0] == ' ' || s[0] == '\t' || s[n - 1] == ' ' || s[n - 1] == '\t');
    if (!edge && !strpbrk(s, ",\"\r\n")) {
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

void raidCsvPutF64(FILE *f, double v)
{
    char t[RAID_F64_TEXT];
    fputc(',', f);
    fputs(raidF64Text(t, v), f);
}

void raid_csv_put_value(FILE *f, double v)
{
    char t[RAID_F64_TEXT];
    fputc(',', f);
    if (isfinite(v))
        fputs(raidF64Text(t, v), f);
}

raid_status raidCsvWritten(FILE *f)
{
    if (fflush(f) == 0 && !ferror(f))
        return RAID_OK;
    const int e = errno ? errno : EIO;
    const raid_status st = raidFail(NULL, RAID_EIO, "write error: %s", raidErrnoText(e));
    errno = e;
    return st;
}
