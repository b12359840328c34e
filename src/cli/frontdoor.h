/*
 * frontdoor (cli) — what the front door's verb files share: each verb's entry
 * point and help, and how the reconciling pass that runs before list, next
 * and triage is reported.
 *
 * Ownership: everything here is static.
 */
#ifndef MECHA_CLI_FRONTDOOR_H
#define MECHA_CLI_FRONTDOOR_H

#include "frontdoor/reconcile.h"

#include <stdio.h>
#include <time.h>

struct err;

int frontdoor_reconcile_verb(int argc, char **argv);
extern const char frontdoor_reconcile_help[];

/* How the verbs report the reconciling pass: each move, and each skip, on stderr. */
extern const struct reconcile_report frontdoor_report;

/* mecha frontdoor show (frontdoor_show.c). */
int frontdoor_show_verb(int argc, char **argv);
extern const char frontdoor_show_help[];

/* ---- what the verb files share (frontdoor.c) ---- */

#define FRONTDOOR_BOLD "\033[1m"
#define FRONTDOOR_DIM "\033[2m"
#define FRONTDOOR_RED "\033[31m"
#define FRONTDOOR_YELLOW "\033[33m"
#define FRONTDOOR_MAGENTA "\033[35m"
#define FRONTDOOR_RESET "\033[0m"

/* code when colour is on for standard output (text_color_ok, asked once at dispatch), else "". */
const char *frontdoor_paint(const char *code);
/* The colour a state is listed in (painted), or "". */
const char *frontdoor_state_color(const char *state);
/* s rendered safely (text.h), then padded with spaces to width bytes, on f. */
void frontdoor_print_padded(FILE *f, const char *s, int width);
/* A SEQ argument, strictly; -1 after a usage error naming the verb. */
int frontdoor_parse_seq(const char *verb, const char *s, long long *seq);

/*
 * The sweep's judge of what home offered (frontdoor_sweep.c): a sweep_offers
 * callback whose ctx is a struct offered_judge (drain/offered.h). The sweep and
 * the doctor's queue section ask the same one.
 */
struct sweep_offer;
struct err;
int frontdoor_offer_judge(void *ctx, const char *type_id, time_t start, time_t end,
			  const char *link, struct sweep_offer *out, struct err *e);

/* mecha frontdoor extract (extract.c). */
int frontdoor_extract_verb(int argc, char **argv);
extern const char frontdoor_extract_help[];

/* mecha frontdoor triage (triage.c). */
int frontdoor_triage_verb(int argc, char **argv);
extern const char frontdoor_triage_help[];

/* mecha frontdoor reply (frontdoor_reply.c), and what needs-info --ask shares with it. */
struct reply;
struct decline_teller;
struct decline_outcome;
int frontdoor_reply_verb(int argc, char **argv);
extern const char frontdoor_reply_help[];
/* "staged ID to ADDR: request N is STATE; …" on stdout. */
void frontdoor_print_staged(const char *id, const struct reply *rp, const char *state);

/* mecha frontdoor decline (frontdoor_reply.c). */
int frontdoor_decline_verb(int argc, char **argv);
extern const char frontdoor_decline_help[];
/* "SEQ  → closed; WHAT staged as ID: …" on stdout. */
void frontdoor_print_farewell(long long seq, const char *id, const char *what);
/* The teller every front end hands to decline.h (drain/tell.h's tell_box). */
extern const struct decline_teller frontdoor_teller;
/* Whether the box was told, on stdout (or, when it could not be, on stderr). */
void frontdoor_print_told(const struct decline_outcome *o, int cancelled);

/* mecha frontdoor sweep (frontdoor_sweep.c). */
int frontdoor_sweep_verb(int argc, char **argv);
extern const char frontdoor_sweep_help[];

#endif
