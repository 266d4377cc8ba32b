/* The raid command-line tool: one function per command, each returning the process exit status
 * (0 success, 1 usage error, 2 bad input or I/O failure, 3 a --check bound exceeded, 4 device failure). */
#ifndef RAID_CLI_H
#define RAID_CLI_H

#include "raid.h"

#include <getopt.h>
#include <stdio.h>

enum { EXIT_USAGE = 1, EXIT_INPUT = 2, EXIT_CHECK = 3, EXIT_DEVICE = 4 };

int cmd_realized(int argc, char **argv);
int cmd_cov(int argc, char **argv);
int cmd_returns(int argc, char **argv);
int cmd_jumps(int argc, char **argv);
int cmd_devices(int argc, char **argv);
int cmd_simulate(int argc, char **argv);
int cmd_har(int argc, char **argv);
int cmd_garch(int argc, char **argv);
int cmd_ma(int argc, char **argv);
int cmd_groupby(int argc, char **argv);
int cmd_bars(int argc, char **argv);
int cmd_quantile(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_sort(int argc, char **argv);
int cmd_precision_report(int argc, char **argv);

/* Help text of a command (NULL if unknown). */
const char *cli_help(const char *cmd);

/* Strict parsing of option values (cli/args.c): 0 on success, -1 if s is not entirely a number in
 * [lo, hi] (finite for doubles). */
int cli_parse_u64(const char *s, uint64_t *v);
int cli_parse_i64(const char *s, int64_t lo, int64_t hi, int64_t *v);
int cli_parse_double(const char *s, double *v);
/* --precision P of every command that has it (raid realized, raid sweep), one spelling: "df" (RAID_PREC_DF,
 * the default) or "f32" (RAID_PREC_F32), for raid_ctx_set_precision on the command's context. 0, or
 * EXIT_USAGE with "raid CMD: bad --precision 'P' (expected df or f32)" printed. */
int cli_parse_precision(const char *cmd, const char *s, raid_precision *p);
/* p as --precision spells it ("df" or "f32"). */
const char *cli_precision_name(raid_precision p);

/* Exit status for a library status. */
int cli_exit_for(raid_status s);

/* Output of a command: "-" is stdout; a path is written through raid_outfile (include/raid/outfile.h: a
 * temporary file renamed when complete, so that no partial output file is left behind; devices and FIFOs
 * directly). */
typedef struct cli_out {
    raid_outfile *file; /* NULL for stdout, and once committed or aborted */
    FILE *fp;
    int is_stdout;
    int werr; /* errno of a failed write (cli_check_write), reported by cli_commit_output */
} cli_out;
/* Note the status of a library writer (raid_har_write_*) on o: on failure its errno is kept for the
 * message of cli_commit_output, which then fails. */
void cli_check_write(cli_out *o, raid_status st);
int cli_open_output(cli_out *o, const char *cmd, const char *path); /* "-" = stdout; 0, or -1 with a message
                                                                   "raid CMD: ..." printed */
int cli_commit_output(cli_out *o, const char *cmd); /* flush, close, rename; 0 or -1 (message printed:
                                                        "raid CMD: cannot write standard output: REASON"
                                                        or "raid: cannot write PATH: REASON") */
/* The outputs of one command together: every one flushed and closed (each write checked) before any is
 * renamed over its destination, so that a full disk or a short write in a later one leaves no earlier one
 * behind (only a failing rename can). 0, or -1 with the message printed and every output not committed
 * aborted (cli_abort_output is then a no-op), as cli_commit_output does for one. */
int cli_commit_outputs(cli_out *const *outs, size_t n, const char *cmd);
void cli_abort_output(cli_out *o);                   /* close and remove the temporary file (no-op once
                                                        committed or aborted) */
/* Whether paths a and b (either may be NULL or "-": never) name the same regular file, or the same path
 * that does not exist yet: the same device and inode when both exist (links followed), else the same
 * directory (by device and inode) and the same last component. An output renamed over the input, or
 * over another output of the same run, would destroy it: the commands refuse such pairs. */
int cli_same_file(const char *a, const char *b);

/* Every option may be given once (a second value would silently replace the first): call with each
 * result opt of getopt_long over longopts; seen has one entry per entry of longopts, NULL before the
 * loop. 0, or EXIT_USAGE with "raid CMD: --NAME given twice ('A', then 'B')" (or "-o ...", or
 * "--FLAG given twice") printed. --help and getopt's ':' and '?' pass. */
int cli_option_once(const char *cmd, const struct option *longopts, int opt, const char **seen);

/* The options of a command whose options are strings: --NAME VALUE for names[0 .. n) (at most 13) into
 * values[0 .. n), -o/--output into values[n], -q/--quiet (cli_quiet), --help (its help printed: -1); then
 * one input FILE, argv[optind], which -o must not name. Returns 0, -1 or EXIT_USAGE (the message printed). */
int cli_string_options(const char *cmd, int argc, char **argv, const char *const *names, const char **values, size_t n);

/* A job of the library that reads, computes and returns a result to write: run(ctx, args, &result), then
 * notice(result, i) for i = 0, 1, ... until NULL (the result's notices: the library's getter, such as
 * raid_sort_table_notice), write(result, f) into the output, destroy(result) (NULL is a no-op). */
typedef raid_status (*cli_job_fn)(raid_ctx *ctx, void *args, void **result);
typedef const char *(*cli_notice_fn)(const void *result, size_t i);
typedef raid_status (*cli_write_fn)(const void *result, FILE *f);
/* The flow of such a command: the context of `device` with the progress bar attached, the job (its error
 * on stderr as "raid CMD: message", exit status by cli_exit_for), its notices on stderr ("raid CMD: notice:
 * text", as raid realized's), the output (OUT or stdout, never partial), the exit status. */
int cli_run_job(const char *cmd, const char *device, const char *out_path, cli_job_fn run, void *args,
                cli_notice_fn notice, cli_write_fn write, void (*destroy)(void *));
/* Whether path names a file that an output may be written beside (side files such as raid har's
 * forecasts): not "-", not the process's standard output or error (also through /dev/stdout or a
 * redirection), nothing under /dev, and a regular file or one that does not exist yet. */
int cli_is_plain_file(const char *path);
/* Whether path names the file that standard input reads (raid har - < FILE -o FILE). */
int cli_is_stdin_file(const char *path);
/* Temporary files that a terminating signal removes (cli_open_output tracks its own). */
void cli_track_tmp(const char *tmp);
void cli_untrack_tmp(const char *tmp);
/* Install the handlers of SIGINT, SIGTERM and SIGHUP that remove tracked temporaries and re-raise. */
void cli_install_signal_cleanup(void);

/* ---- Progress and notices (cli/progress.c, cli/notices.c; docs/input.md "Progress and notices") ---- */

/* --quiet (every command that runs a job takes it): no progress bar, and the notices about single series
 * summarised one line per kind without their first series. Set by the option parsers. */
extern int cli_quiet;
/* Draw the progress the library reports for the jobs run on ctx (raid_ctx_set_progress) as one line on
 * standard error, "raid CMD:  62% [####      ] 1,234/2,000 fits, 151 fits/s, 0:08 elapsed, 0:05 left":
 * only when standard error is a terminal and not cli_quiet (else nothing is attached), from about a
 * second into the job (short jobs print nothing), redrawn at most 10 times a second. */
void cli_progress_attach(raid_ctx *ctx, const char *cmd);
/* Erase the bar if one is drawn: call it when the job returns, before anything else is printed (an error
 * message must not be glued to a bar); also run at exit. Idempotent. */
void cli_progress_end(void);
/* For the handler of a terminating signal (async-signal-safe): end a drawn bar's line. */
void cli_progress_on_signal(void);
/* v with thousands separators ("1,772") into buf. */
const char *cli_grouped(uint64_t v, char *buf, size_t n);

/* The notices of a command: those about the whole input (subject NULL) printed at once, in full, as
 * "raid CMD: notice: TEXT"; those about one series (subject: its name, TEXT a line that names it) kept and
 * grouped by kind (the text without the series' name, numbers and quoted text blanked) until
 * cli_notes_print: a kind of at most CLI_NOTES_SHOWN series as its lines "raid CMD: TEXT", a larger one in
 * one line "raid CMD: 1,772 of 2,000 series: boundary: ... (first: A, B, C; WHERE)" ("N of M NOUN, such
 * as TEXT (...)" when the texts differ in numbers or quoted words); with cli_quiet every kind of more than
 * one series in one line without its first series. The one summariser of every command's notices. */
#define CLI_NOTES_SHOWN 3
typedef struct cli_note_group cli_note_group;
typedef struct cli_note_item cli_note_item;
typedef struct cli_notes {
    const char *cmd, *noun; /* "garch", "series" */
    size_t nsubjects;       /* series in the job (the M of "N of M"; 0: not said) */
    cli_note_item *items;   /* the notices about one series, in order */
    size_t nitems, items_cap;
    cli_note_group *groups;
    size_t ngroups, cap;
    size_t *index, slots;   /* the groups by key */
} cli_notes;
void cli_notes_init(cli_notes *n, const char *cmd, size_t nsubjects, const char *noun);
void cli_notes_add(cli_notes *n, const char *subject, const char *text);
/* Print the notices in their order, each kind summarised where its first notice was, and forget them;
 * where (NULL: none) tells where each series' outcome is, e.g. "each row's status is in the output's status
 * column". */
void cli_notes_print(cli_notes *n, const char *where);

/* CSV fields as the library writes them (raid_csv_put_field, raid_csv_put_value of raid/outfile.h). */
static inline void cli_put_field(FILE *f, const char *s) { raid_csv_put_field(f, s); }
static inline void cli_put_value(FILE *f, double v) { raid_csv_put_value(f, v); }

#endif
