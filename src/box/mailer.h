/*
 * mailer — the box's verification mail: text only, through SMTP (libcurl,
 * base/smtp), sent by one worker thread and never inside a request
 * (docs/protocol/box-pages.md §7): a request queues the mail and answers at once, so a slow
 * or dead mail server never holds a connection, and the stranger's answer is
 * the same whatever the mail did.
 *
 * The message is the reference's: Subject "Confirm your {title} request",
 * and the body that tells the stranger the link works once and that nothing
 * is passed on until they open it. A send that fails before the server took
 * the message is tried three times (after 0.5 s and 1 s). Without [mail]
 * smtp_url, the link is written to the log instead (one JSON line on
 * stderr), as the reference does on a machine with no mail.
 *
 * The queue lives in memory on purpose: the link holds a token that is
 * stored nowhere else but as a hash, and a crash costs the stranger one more
 * submission, not a plaintext token at rest.
 *
 * Ownership: strings passed in are copied.
 */
#ifndef MECHA_BOX_MAILER_H
#define MECHA_BOX_MAILER_H

#include <time.h>

struct boxconf;
struct buf;
struct err;
struct mailer;

struct mailer *mailer_start(const struct boxconf *c, struct err *e);
/* Queues one verification mail; -1 when the queue is full (the mail is dropped). */
int mailer_verification(struct mailer *m, const char *to, const char *title, const char *link);
/* The same for a reschedule's link: move is "<old time>\n\nTo: <new time>" as the mail says it. */
int mailer_verification_move(struct mailer *m, const char *to, const char *title,
			     const char *link, const char *move);
/* Sends what is queued, then stops the worker and frees m. */
void mailer_stop(struct mailer *m);

#endif
