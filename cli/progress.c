/* The progress bar of the commands: the one drawing of the library's progress reports
 * (raid_ctx_set_progress, include/raid/core.h) on standard error, for every command that runs a long job.
 * docs/input.md "Progress and notices" describes what the user sees. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

int cli_quiet;

#define BAR_DELAY 1.0   /* seconds of a job before its bar appears: short jobs print nothing (the tests set
                           RAID_PROGRESS_DELAY=0 to see a bar on any machine) */
#define BAR_REDRAW 0.1  /* seconds between two drawings at least */
#define BAR_MAX 512     /* bytes of a line at most */

/* The one bar of the process (a command runs one job at a time, on the thread that reports). */
static struct {
    const char *cmd;
    double t0;                  /* when the job started (cli_progress_attach) */
    double delay;               /* BAR_DELAY, or RAID_PROGRESS_DELAY's seconds */
    double phase_t0;            /* when the current phase started (its first report) */
    uint64_t phase_done0;       /* done at that report */
    char unit[32];              /* of the current phase */
    uint64_t done, total;
    double drawn_at;            /* the last drawing, 0 before the first */
    size_t drawn_len;           /* characters of the line now on the terminal (0: none) */
    int barw;                   /* the bar's width in this phase, -1 before its first drawing */
} bar;
static volatile sig_atomic_t bar_on_screen; /* for the signal handler: a line without its newline */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* v with thousands separators ("1,772"). */
static const char *grouped(uint64_t v, char *buf, size_t n)
{
    char d[32];
    const int len = snprintf(d, sizeof d, "%llu", (unsigned long long)v);
    size_t o = 0;
    for (int i = 0; i < len && o + 2 < n; i++) {
        if (i && (len - i) % 3 == 0)
            buf[o++] = ',';
        buf[o++] = d[i];
    }
    buf[o] = '\0';
    return buf;
}

const char *cli_grouped(uint64_t v, char *buf, size_t n) { return grouped(v, buf, n); }

/* An amount of the unit: bytes in kB, MB, GB (decimal, as `ls -h --si`), other units counted. */
static const char *amount(double v, int bytes, char *buf, size_t n)
{
    if (!bytes) {
        if (v < 10 && v != (double)(uint64_t)v)
            snprintf(buf, n, "%.1f", v);
        else
            grouped((uint64_t)(v + 0.5), buf, n);
        return buf;
    }
    static const char *const sfx[] = {"B", "kB", "MB", "GB", "TB"};
    int k = 0;
    while (v >= 1000 && k < 4)
        v /= 1000, k++;
    snprintf(buf, n, k ? "%.1f %s" : "%.0f %s", v, sfx[k]);
    return buf;
}

/* Seconds as M:SS or H:MM:SS. */
static const char *clock_text(double s, char *buf, size_t n)
{
    const unsigned long t = s > 0 && s < 1e8 ? (unsigned long)(s + 0.5) : 0;
    if (t >= 3600)
        snprintf(buf, n, "%lu:%02lu:%02lu", t / 3600, t / 60 % 60, t % 60);
    else
        snprintf(buf, n, "%lu:%02lu", t / 60, t % 60);
    return buf;
}

static size_t term_width(void)
{
    struct winsize ws;
    if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20)
        return ws.ws_col < BAR_MAX - 1 ? ws.ws_col : BAR_MAX - 1;
    return 80;
}

/* "raid CMD:  62% [#####     ] 1,234/2,000 fits [0:08<0:05, 151 fits/s]" (tqdm's layout: elapsed<left,
 * rate; "raid CMD: 123 MB [0:03, 45.6 MB/s]" when the total is not known), within the terminal's width less
 * one column (a line that wraps cannot be redrawn in place). done and the rate are padded to the widest
 * they get, so that the bar keeps its width within a phase. */
static void draw(double now)
{
    const int bytes = !strcmp(bar.unit, "bytes");
    const char *u = bytes ? "" : bar.unit, *sp = bytes ? "" : " ";
    const double el = now - bar.t0, pel = now - bar.phase_t0;
    const double rate = pel > 0.05 ? (double)(bar.done - bar.phase_done0) / pel : 0;
    char d[48], t[48], r[48], rs[96], e[32], l[32], stats[400], line[BAR_MAX];
    amount(rate, bytes, r, sizeof r);
    snprintf(rs, sizeof rs, "%s%s%s/s", r, sp, u); /* "151 fits/s", "45.6 MB/s" */
    clock_text(el, e, sizeof e);
    const size_t width = term_width() - 1;
    int len;
    if (bar.total) {
        const uint64_t done = bar.done < bar.total ? bar.done : bar.total;
        const int pct = (int)(100.0 * (double)done / (double)bar.total);
        amount((double)done, bytes, d, sizeof d);
        amount((double)bar.total, bytes, t, sizeof t);
        if (rate > 0)
            clock_text((double)(bar.total - done) / rate, l, sizeof l);
        else
            snprintf(l, sizeof l, "?");
        len = snprintf(stats, sizeof stats, "%*s/%s%s%s [%s<%s, %*s]", (int)strlen(t), d, t, sp, u, e, l,
                       (int)(strlen(u) + 9), rs);
        const int fixed = snprintf(NULL, 0, "raid %s: %3d%% [] %s", bar.cmd, pct, stats);
        if (bar.barw < 0 || fixed + bar.barw > (int)width) { /* kept within a phase unless it no longer fits */
            const int w = (int)width - fixed - 4; /* room for longer times */
            bar.barw = w > 30 ? 30 : w;
        }
        const int w = bar.barw;
        if (w >= 8) {
            const int k = w * pct / 100;
            len = snprintf(line, sizeof line, "raid %s: %3d%% [%.*s%*s] %s", bar.cmd, pct, k,
                           "##############################", w - k, "", stats);
        } else {
            len = snprintf(line, sizeof line, "raid %s: %3d%% %s", bar.cmd, pct, stats);
        }
    } else {
        amount((double)bar.done, bytes, d, sizeof d);
        len = snprintf(line, sizeof line, "raid %s: %s%s%s [%s, %s]", bar.cmd, d, sp, u, e, rs);
    }
    (void)len;
    size_t n = strlen(line);
    if (n > width)
        n = width;
    char out[2 * BAR_MAX + 2];
    size_t o = 0;
    out[o++] = '\r';
    memcpy(out + o, line, n);
    o += n;
    for (size_t i = n; i < bar.drawn_len && o < sizeof out; i++) /* what the longer line before left */
        out[o++] = ' ';
    fwrite(out, 1, o, stderr);
    fflush(stderr);
    bar.drawn_len = n;
    bar.drawn_at = now;
    bar_on_screen = 1;
}

/* raid_progress_fn: from the job's thread (the library's contract), so no lock. */
static void on_progress(void *user, uint64_t done, uint64_t total, const char *unit)
{
    (void)user;
    const double now = now_s();
    if (strcmp(unit, bar.unit) || done < bar.done) { /* a new phase: its rate counts from here */
        snprintf(bar.unit, sizeof bar.unit, "%s", unit);
        bar.barw = -1;
        bar.phase_t0 = now;
        bar.phase_done0 = done;
    }
    bar.done = done;
    bar.total = total;
    if (now - bar.t0 < bar.delay || now - bar.drawn_at < BAR_REDRAW)
        return;
    draw(now);
}

void cli_progress_attach(raid_ctx *ctx, const char *cmd)
{
    if (!ctx || cli_quiet || !isatty(STDERR_FILENO))
        return; /* not a terminal: nothing is drawn, nothing is reported */
    static int registered;
    if (!registered && atexit(cli_progress_end) == 0)
        registered = 1;
    memset(&bar, 0, sizeof bar);
    bar.cmd = cmd;
    bar.t0 = bar.phase_t0 = now_s();
    bar.barw = -1;
    const char *dl = getenv("RAID_PROGRESS_DELAY");
    bar.delay = dl && *dl ? atof(dl) : BAR_DELAY;
    raid_ctx_set_progress(ctx, on_progress, NULL);
}

void cli_progress_end(void)
{
    if (!bar.drawn_len)
        return;
    char out[BAR_MAX + 2];
    size_t o = 0;
    out[o++] = '\r';
    for (size_t i = 0; i < bar.drawn_len && o + 1 < sizeof out; i++)
        out[o++] = ' ';
    out[o++] = '\r';
    fwrite(out, 1, o, stderr);
    fflush(stderr);
    bar.drawn_len = 0;
    bar.drawn_at = 0;
    bar_on_screen = 0;
}

void cli_progress_on_signal(void)
{
    if (bar_on_screen) {
        const ssize_t w = write(STDERR_FILENO, "\n", 1); /* async-signal-safe: the shell's prompt on a line of its own */
        (void)w;
    }
}
