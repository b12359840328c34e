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

/* mecha frontdoor sweep (frontdoor_sweep.c). */
int frontdoor_sweep_verb(int argc, char **argv);
extern const char frontdoor_sweep_help[];

#endif
