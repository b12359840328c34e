/*
 * tui — the review screen: one terminal where a person reads what arrived,
 * decides, and answers (`mecha review`).
 *
 * The screen decides nothing. Every action is a call into the library a
 * CLI verb or an MCP tool makes — release_send, release_reject, the edit
 * calling sequence, moves_close, moves_needs_info, extract_run, triage_run —
 * so the same locks hold and the same rules say no, and a refusal is shown
 * as the library worded it. The screen's own rule is the front door's: a
 * stranger's words and an agent's draft reach the terminal only through
 * text_safe, and a draft is approved only from a confirmation that shows it
 * whole.
 *
 * Ownership: the options are borrowed for the call.
 */
#ifndef MECHA_TUI_TUI_H
#define MECHA_TUI_TUI_H

struct err;
struct decline_teller;

struct tui_opts {
	const char *state; /* start filtered to this state; NULL: what waits on the person */
	/* How D tells the box (frontdoor/decline.h; the front end's, as the CLI verbs'):
	 * NULL tells nobody. */
	const struct decline_teller *teller;
};

/*
 * Runs the screen until the person quits. Fails before the screen opens when
 * standard input or output is not a terminal (ERR_USAGE), the terminal type is
 * unknown or the configuration does not load (ERR_CONFIG). Returns 0 on quit.
 */
int tui_run(const struct tui_opts *o, struct err *e);

#endif
