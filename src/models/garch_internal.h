/* GARCH inside the library: the handles of include/raid/garch.h and what its files share
 * (garch_spec.c: names and specification; garch_input.c: the input series; garch.c: the fit job, which
 * plans series and windows for the batched fitter of garch_batch.h; garch_result.c: the result's
 * accessors and forecasts; src/jobs/garch.c: the CSV reader and the result's CSV writer). */
#ifndef RAID_MODELS_GARCH_INTERNAL_H
#define RAID_MODELS_GARCH_INTERNAL_H

#include "raid.h"
#include "core/strlist.h"
#include "io/symtab.h"
#include "models/garch_lik.h"

#include <stddef.h>
#include <stdint.h>

struct raid_garch_spec {
    int model, dist, mean, init, ez, se; /* the public enums' values */
    int win_kind;                         /* raid_garch_window */
    int64_t win, step;                    /* window returns (0 for full), step */
    int max_iter;
};

/* One symbol's returns as added (copies). */
typedef struct garch_in_sym {
    char *name;
    size_t n;
    double *r;
    char **dates;   /* n strings in one allocation with their text; NULL when not given */
    int64_t *lines; /* NULL when not given */
} garch_in_sym;

struct raid_garch_input {
    garch_in_sym *sym;
    size_t nsym, cap;
    RaidSymtab names; /* the symbols' names: index q is sym[q] */
    char *path;        /* NULL: messages name rows */
    RaidStrlist notices; /* of the reading (raid_garch_input_notice) */
};

struct raid_garch_result {
    raid_garch_spec spec;
    size_t nsym;
    char **sym;          /* the input's names */
    RaidStrlist msg;    /* messages of the fit */
    size_t *msg_sym;     /* the symbol of each message (raid_garch_result_message_symbol) */
    size_t msg_sym_cap;
    size_t nrows;
    int64_t *row_sym;    /* symbol index per row */
    char **row_end;      /* NULL for full-sample rows */
    int64_t *n;
    double *params, *se; /* nrows x RAID_GARCH_MAXPAR, fixed slots */
    double *loglik, *sigma2_last, *sigma2_next;
    int32_t *iterations, *status;
};

/* The internal likelihood's specification of a public one (the enum orders differ: explicit mapping). */
RaidGarchLikSpec raidGarchLikSpec(const raid_garch_spec *sp);
/* slot[j]: the fixed slot (0 mu, 1 omega, 2 alpha, 3 gamma, 4 beta, 5 nu) of packed parameter j; returns k. */
int raidGarchSlots(const raid_garch_spec *sp, int slot[RAID_GARCH_MAXPAR]);

/* Result building (garch_result.c): RAID_OK or RAID_ENOMEM (no message set). */
/* Note that the message just appended to res->msg concerns symbol q; st is the append's status, returned
 * (RAID_ENOMEM when the note cannot be kept: the message is taken back). As GARCH_MSG(res, q, fmt, ...). */
raid_status raidGarchResultMsgSymbol(raid_garch_result *res, size_t q, raid_status st);
#define GARCH_MSG(res, q, ...) raidGarchResultMsgSymbol((res), (q), raidStrlistAddf(&(res)->msg, __VA_ARGS__))
raid_status raidGarchResultInit(raid_garch_result *res, const raid_garch_spec *sp, const raid_garch_input *in,
                              size_t nrows);

#endif
