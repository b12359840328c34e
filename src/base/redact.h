/*
 * redact — a message about the owner's machine, for a reader who must not
 * learn its layout: an agent over MCP.
 *
 * A refusal is written for a person ("cannot open /home/ada/.mecha/requests:
 * Permission denied"), and the same sentence goes to an agent when a tool says
 * no. The agent needs the reason, not the owner's user name or where the
 * calendar lives. So every absolute path in the text is rewritten: one under a
 * home becomes "$MECHA_HOME/…" (the store it names is no secret: the tools
 * are about those stores), any other keeps its last component only
 * ("/srv/cal/work.ics" → "work.ics"; a bare "/" or a directory "…/" →
 * "<path>"), and so does a "~/…" path.
 *
 * A path begins with '/' (or "~/") at the start of the text or after a space,
 * a quote, a bracket, '=' or ','; a '/' inside a word or a URL ("a/b",
 * "http://x/y") is not one. It ends at a quote, a closing bracket, ',', ';'
 * or ':' ("…/config.toml:3: unknown key" keeps its line number), and at a
 * space unless the next word holds a '/' too ("/home/ada/My Calendars/x.ics"
 * is one path).
 *
 * A URL's password is a secret of another kind: redact_url hides it from
 * every reader, the owner's terminal and log included.
 *
 * Ownership: output goes into the caller's buf (redact_url: a new string);
 * inputs are borrowed.
 */
#ifndef MECHA_BASE_REDACT_H
#define MECHA_BASE_REDACT_H

#include <stddef.h>

struct buf;

/*
 * Appends msg with its paths rewritten to out. homes[0..nhomes) are the
 * spellings of $MECHA_HOME to recognise (as configured, and resolved); a
 * NULL or empty one is skipped.
 */
void redact_paths(struct buf *out, const char *msg, const char *const *homes, size_t nhomes);

/*
 * A connection URL fit for a message: the password in its user part
 * ("postgresql://ada:secret@db/box" → "postgresql://ada:***@db/box") and
 * any password=… or sslpassword=… query parameter replaced by "***".
 * Everything else stays, so the reader still sees which server and which
 * database was meant.
 * Returns a new string (free it).
 */
char *redact_url(const char *url);

/*
 * text with every secret of url in it (the user part's password, the value of
 * each …password= parameter) replaced by "***": for what a library says about
 * a URL it could not read, which may quote the password ("invalid
 * percent-encoded token: …"). Returns a new string (free it).
 */
char *redact_url_in(const char *text, const char *url);

#endif
