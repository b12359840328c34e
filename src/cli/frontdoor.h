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
/*
 * A booking's farewell (decline, close --notify): "SEQ  → closed; WHAT staged
 * as ID: …" and whether the box was told on stdout, or with json the move
 * (frontdoor_print_move); a box that could not be told is said on stderr either way.
 */
void frontdoor_print_farewell(const struct decline_outcome *o, const char *what, int cancelled,
			      int json);
/* The teller every front end hands to decline.h (drain/tell.h's tell_box). */
extern const struct decline_teller frontdoor_teller;

/*
 * What a person's move did to a request (needs-info, close, decline), for
 * --json: frontdoor_print_move prints it on stdout as one document,
 * {seq, from, to, note, drafts_rejected, drafts_kept, staged, box}, the
 * drafts the ids a close rejected or left pending, staged {id, to} or null,
 * box {told, says, why} or null (why: the failure document of a box that
 * could not be told, else null).
 */
struct frontdoor_move {
	long long seq;
	const char *from, *to, *note;
	size_t drafts_rejected, drafts_kept; /* as moves.h's result says them */
	char *const *drafts;                 /* moves.h's drafts: the ids of either */
	const char *staged_id; /* a draft the move staged, or NULL */
	const char *staged_to; /* its address when the verb says it, or NULL */
	const struct decline_outcome *box; /* what the box was told, or NULL: no booking */
	int cancelled;                     /* box: the owner's cancel, not a decline */
};
void frontdoor_print_move(const struct frontdoor_move *m);

/* mecha frontdoor sweep (frontdoor_sweep.c). */
int frontdoor_sweep_verb(int argc, char **argv);
extern const char frontdoor_sweep_help[];

#endif
