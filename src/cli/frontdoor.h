/*
 * frontdoor (cli) — what the front door's verb files share: seq parsing,
 * transition lines, the reconcile that runs before list and next, and the
 * status of a draft for `show`.
 *
 * Ownership: returned strings are static; json_t out-params are NEW references.
 */
#ifndef MECHA_CLI_FRONTDOOR_H
#define MECHA_CLI_FRONTDOOR_H

#include <jansson.h>

#include "frontdoor/reconcile.h"

struct err;
struct record;
struct store;

/* A SEQ argument: a whole number; prints a usage error and returns -1 otherwise. */
int frontdoor_parse_seq(const char *verb, const char *s, long long *seq);
/* "    12  extracted → closed" on stdout. */
int frontdoor_print_transition(long long seq, const char *from, const char *to);
int frontdoor_reconcile_verb(int argc, char **argv);
extern const char frontdoor_reconcile_help[];

/* How the verbs report the reconciling pass: each move, and each skip, on stderr. */
extern const struct reconcile_report frontdoor_report;

/* mecha frontdoor extract (extract.c). */
int frontdoor_extract_verb(int argc, char **argv);
extern const char frontdoor_extract_help[];

/* mecha frontdoor triage (triage.c). */
int frontdoor_triage_verb(int argc, char **argv);
extern const char frontdoor_triage_help[];

#endif
