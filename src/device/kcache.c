/*
 * The compiled-kernel cache on disk (src/device/backend.h): a backend's compiled programs (CUDA's cubin or
 * PTX from NVRTC) kept across processes, so that a process does not pay NVRTC's compile time (about a
 * second per program) for kernels an earlier process built. One file per entry, named by two hashes of its
 * key; the file holds the whole key, so a hash collision is a miss, never a wrong binary. Nothing read from
 * the disk is trusted: an entry whose size, key or checksum differs is a miss and is rebuilt (and then
 * overwritten). Writes are atomic (a temporary file renamed over the entry), so concurrent processes never
 * see half an entry. A directory that cannot be made or written only costs the rebuilds.
 */
#define _POSIX_C_SOURCE 200809L
#include "device/backend.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAGIC "RAIDKC1\n"
#define HEAD 32 /* magic, key length, binary length, checksum: 8 bytes each */

uint64_t raidFnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *s = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ s[i]) * 1099511628211ULL;
    return h;
}

void raidKcacheDir(char *buf, size_t len)
{
    const char *d = getenv("RAID_CACHE_DIR");
    buf[0] = 0;
    if (d && *d) {
        if (strcmp(d, "off"))
            snprintf(buf, len, "%s", d);
        return;
    }
    if ((d = getenv("XDG_CACHE_HOME")) && *d)
        snprintf(buf, len, "%s/raid", d);
    else if ((d = getenv("HOME")) && *d)
        snprintf(buf, len, "%s/.cache/raid", d);
}

/* The entry's path for key into buf; 0, or -1 when there is no cache directory. */
static int entry_path(const char *key, char *buf, size_t len)
{
    char dir[1024];
    raidKcacheDir(dir, sizeof dir);
    if (!dir[0])
        return -1;
    const size_t n = strlen(key);
    const uint64_t a = raidFnv(RAID_FNV_START, key, n), b = raidFnv(0x9e3779b97f4a7c15ULL, key, n);
    const int w = snprintf(buf, len, "%s/%016llx%016llx.bin", dir, (unsigned long long)a, (unsigned long long)b);
    return w > 0 && (size_t)w < len ? 0 : -1;
}

static uint64_t checksum(const char *key, size_t klen, const void *bin, size_t blen)
{
    return raidFnv(raidFnv(RAID_FNV_START, key, klen), bin, blen);
}

int raidKcacheLoad(const char *key, void **bin, size_t *len)
{
    *bin = NULL;
    *len = 0;
    char path[1200];
    if (entry_path(key, path, sizeof path))
        return 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    unsigned char head[HEAD];
    uint64_t klen, blen, sum;
    const size_t kn = strlen(key);
    char *kbuf = NULL;
    unsigned char *b = NULL;
    int ok = fread(head, 1, HEAD, f) == HEAD && !memcmp(head, MAGIC, 8);
    if (ok) {
        memcpy(&klen, head + 8, 8);
        memcpy(&blen, head + 16, 8);
        memcpy(&sum, head + 24, 8);
        ok = klen == kn && blen > 0 && blen < ((uint64_t)1 << 32);
    }
    if (ok)
        ok = (kbuf = malloc(kn + 1)) && (b = malloc(blen + 1)) && fread(kbuf, 1, kn, f) == kn &&
             !memcmp(kbuf, key, kn) && fread(b, 1, blen, f) == blen && fgetc(f) == EOF &&
             checksum(key, kn, b, blen) == sum;
    fclose(f);
    free(kbuf);
    if (!ok) {
        free(b);
        return 0;
    }
    b[blen] = 0; /* PTX is text: terminated even if its NUL was not stored */
    *bin = b;
    *len = blen;
    return 1;
}

/* mkdir -p of dir (0700: compiled code is the user's own). */
static int make_dirs(char *dir)
{
    for (char *p = dir + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            const int r = mkdir(dir, 0700);
            *p = '/';
            if (r && errno != EEXIST)
                return -1;
        }
    return mkdir(dir, 0700) && errno != EEXIST ? -1 : 0;
}

int raidKcacheStore(const char *key, const void *bin, size_t len)
{
    char path[1200], tmp[1300], dir[1024];
    if (entry_path(key, path, sizeof path))
        return -1;
    raidKcacheDir(dir, sizeof dir);
    if (make_dirs(dir))
        return -1;
    static int seq;
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld.%d", path, (long)getpid(), __atomic_fetch_add(&seq, 1, __ATOMIC_RELAXED));
    const int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0600);
    if (fd < 0)
        return -1;
    const uint64_t klen = strlen(key), blen = len, sum = checksum(key, klen, bin, len);
    unsigned char head[HEAD];
    memcpy(head, MAGIC, 8);
    memcpy(head + 8, &klen, 8);
    memcpy(head + 16, &blen, 8);
    memcpy(head + 24, &sum, 8);
    FILE *f = fdopen(fd, "wb");
    if (!f) {
        close(fd);
        unlink(tmp);
        return -1;
    }
    int ok = fwrite(head, 1, HEAD, f) == HEAD && fwrite(key, 1, klen, f) == klen && fwrite(bin, 1, len, f) == len;
    ok = fclose(f) == 0 && ok;
    if (!ok || rename(tmp, path)) {
        unlink(tmp);
        return -1;
    }
    return 0;
}
