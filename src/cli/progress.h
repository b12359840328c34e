/*
 * progress — how long work looks while it runs: one line on a terminal that
 * rewrites itself (what, how many of how many, the rate, the time left), and
 * nothing at all anywhere else. The verbs that take many items (extract,
 * triage, reconcile, sweep) all use it, so they all look and behave the same:
 * the meter on a terminal, the summary at the end, a line per item only when
 * asked (-v) — and an item that was not done is always named.
 *
 * The meter is drawn on standard error, and only when standard error is a
 * terminal; it is redrawn at most ten times a second. Anything else printed
 * while it runs goes through progress_hide first, so no line is ever written
 * over the meter; the next step draws it again.
 *
 * Calling sequence:
 *     struct progress p;
 *     progress_begin(&p, "extract");
 *     progress_total(&p, n);          -- once known (0: no meter)
 *     progress_step(&p);              -- per item done (or progress_set)
 *     progress_hide(&p);  printf(...);
 *     progress_end(&p);               -- erases the meter for good
 *
 * Ownership: label is borrowed for the life of the meter; nothing allocates.
 */
#ifndef MECHA_CLI_PROGRESS_H
#define MECHA_CLI_PROGRESS_H

#include <stddef.h>

struct progress {
	const char *label;
	size_t done, total;
	double started, drawn_at; /* seconds on the monotonic clock */
	int tty;                  /* standard error is a terminal */
	int shown;                /* the meter is on the screen now */
};

void progress_begin(struct progress *p, const char *label);
void progress_total(struct progress *p, size_t total);
/* One more item done. */
void progress_step(struct progress *p);
/* done of total (a walk that counts for itself). */
void progress_set(struct progress *p, size_t done, size_t total);
/* Erases the meter so a line can be printed; the next step draws it again. */
void progress_hide(struct progress *p);
void progress_end(struct progress *p);

#endif
