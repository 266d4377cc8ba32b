/* What the fuzz harnesses of tests/fuzz/ share (docs/testing.md "Fuzzing"): reading option bytes off the
 * front of an input, the table reader's test knobs, the CSV bytes as a file the library opens by path
 * (a memfd, which the table reader maps, or a pipe, which it streams), output into memory, and the
 * comparison of two runs of one input.
 *
 * Every harness input is: a few option bytes (each target's comment says which), then the CSV (or other)
 * bytes. A missing option byte reads as 0, and 0 is always the plain default, so that a seed is its
 * option bytes of zeros followed by a file of data/ or of the tests. */
#ifndef RAID_FUZZ_COMMON_H
#define RAID_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The input, read from the front. */
typedef struct fz_in {
    const uint8_t *p;
    size_t n;
} fz_in;

/* The next byte (0 when the input is exhausted). */
unsigned fz_u8(fz_in *in);
/* v[b % n] for the next byte b. */
const char *fz_pick(fz_in *in, const char *const *v, size_t n);
#define FZ_PICK(in, arr) fz_pick((in), (arr), sizeof(arr) / sizeof *(arr))

/* How the table reader reads the file: its test knobs (raidTableTestTuning: block size, parsing
 * threads, every row through libcsv) and whether the file is a pipe (streamed) or a memfd (mapped). One
 * option byte: bits 0-2 the block size (default 1 MiB, 1, 2, 7, 16, 64, 97, 512 bytes), bit 3 two
 * parsing threads (else one), bit 4 libcsv only, bit 5 a pipe. Bits 6-7 are the target's. */
typedef struct fz_io {
    size_t block;
    int threads;
    int libcsv_only;
    int stream;
} fz_io;
fz_io fz_io_of(unsigned byte);
/* The reference: the defaults (one block of 1 MiB, one thread, the direct scanner, a mapped file). */
fz_io fz_io_ref(void);
/* Set the knobs for the tables opened from now on. */
void fz_io_apply(const fz_io *io);

/* The bytes as a file: path names it until fz_file_close (always the same path, /proc/self/fd/FZ_FD, so
 * that two runs of one input give the same messages). A pipe larger than its buffer is fed by a thread. */
typedef struct fz_file {
    char path[64];
    int fd;
    int writer_fd;
    int has_writer;
    unsigned long writer; /* pthread_t */
    const uint8_t *data;
    size_t n;
} fz_file;
void fz_file_open(fz_file *f, const uint8_t *data, size_t n, int stream);
void fz_file_close(fz_file *f);

/* A growing byte buffer: what a run produced (its output, status, messages, notices), compared between
 * two runs of one input. */
typedef struct fz_buf {
    char *s;
    size_t n, cap;
} fz_buf;
void fz_add(fz_buf *b, const void *p, size_t n);
void fz_addf(fz_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void fz_free(fz_buf *b);
/* abort() with both runs' texts around the first difference (the fuzzer then keeps the input) unless
 * a and b are equal. what names the comparison. */
void fz_same(const char *what, const fz_buf *a, const fz_buf *b);

/* A job on a file (path) with the target's options, recording what it gives into r. */
typedef void (*fz_job)(const char *path, const void *opts, fz_buf *r);
/* The job on data[0..n) read with the reference knobs (fz_io_ref) and options ref_opts, then with io and
 * opts: the records must be equal (fz_same; what names the target). */
void fz_two_runs(const char *what, const uint8_t *data, size_t n, fz_job job, const void *ref_opts, const fz_io *io,
                 const void *opts);

/* Output written into memory: fz_out_open gives a FILE *, fz_out_close appends what was written to b. */
FILE *fz_out_open(char **buf, size_t *len);
void fz_out_close(FILE *f, char **buf, size_t *len, fz_buf *b);

/* A failed invariant: print it and abort(). */
void fz_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
#define FZ_CHECK(cond, ...)                                                                                      \
    do {                                                                                                         \
        if (!(cond))                                                                                             \
            fz_fail(__VA_ARGS__);                                                                                \
    } while (0)

/* The float64 cpu context of the job harnesses (created once). */
struct raid_ctx;
struct raid_ctx *fz_cpu(void);

/* Common set-up of LLVMFuzzerInitialize: SIGPIPE ignored (a pipe whose reader stopped early), one OpenMP
 * thread per parallel region at most 2. */
void fz_init(void);

/* LLVMFuzzerInitialize of a job harness: fz_init, and the cpu context created before the first input. */
#define FZ_JOB_INITIALIZE()                                                                                  \
    int LLVMFuzzerInitialize(int *argc, char ***argv)                                                        \
    {                                                                                                        \
        (void)argc, (void)argv;                                                                              \
        fz_init();                                                                                           \
        fz_cpu();                                                                                            \
        return 0;                                                                                            \
    }

/* A writer's output, recorded: the statement call (an expression of the FILE * named f, giving the
 * writer's status) writes into memory; its bytes, then "WHAT STATUS", are appended to the fz_buf *r. */
#define FZ_WRITE(r, what, f, call)                                                                           \
    do {                                                                                                     \
        char *fz_wbuf_;                                                                                      \
        size_t fz_wlen_;                                                                                     \
        FILE *f = fz_out_open(&fz_wbuf_, &fz_wlen_);                                                         \
        const int fz_wst_ = (int)(call);                                                                     \
        fz_out_close(f, &fz_wbuf_, &fz_wlen_, (r));                                                          \
        fz_addf((r), "%s %d\n", (what), fz_wst_);                                                             \
    } while (0)


/* The contract of a zone's offsets over the instants that timestamps of the years 0001 to 9999 can give
 * (tz.h): walked from interval to interval with raidIoTzOffset, each [lo, hi) holds the instant asked
 * for and the same offset at both ends, and the next one starts where it ends; raidIoTzInstant of local
 * times around each change gives an instant whose local time is the one asked for, or (a local time the
 * change skips) the instant of a change. abort() on a failure. At most max_steps intervals from each of
 * a few instants (year 0001, 1900, 1965, 2020, 2100, 9990). */
struct RaidIoTz;
void fz_check_tz(const struct RaidIoTz *tz, size_t max_steps);

#endif
