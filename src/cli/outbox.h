/*
 * outbox (cli) — what the outbox verbs share: the configuration and store
 * they open, how a draft is shown to a person, how a person is asked.
 *
 * Every field of an item is untrusted (an agent wrote it): everything here
 * prints through text.h.
 *
 * Ownership: struct cli_outbox owns its config and store (cli_outbox_close).
 */
#ifndef MECHA_CLI_OUTBOX_H
#define MECHA_CLI_OUTBOX_H

#include "config/config.h"
#include "outbox/store.h"

#include <stdio.h>

struct err;

struct cli_outbox {
	struct config cfg;
	struct outbox_store store;
	int color;
};

int cli_outbox_open(struct cli_outbox *c, enum outbox_mode mode, struct err *e);
void cli_outbox_close(struct cli_outbox *c);

/* Everything a person needs to decide (outbox/view.h's pieces), plus taint and errors. */
void cli_outbox_print_item(FILE *f, const struct outbox_item *it, int color);

/* Reads one line from stdin (without its newline) into a malloc'd string; NULL at EOF. */
char *cli_outbox_read_line(void);

/* The verbs outbox_review.c holds, and their --help texts. */
int cli_outbox_edit(int argc, char **argv);
int cli_outbox_review(int argc, char **argv);
extern const char outbox_edit_help[];
extern const char outbox_review_help[];

#endif
