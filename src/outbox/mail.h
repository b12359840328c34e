/*
 * mail — a mail_send draft turned into an RFC 5322 message, and the two ways
 * it leaves the house: SMTP through libcurl, or a sendmail-compatible command.
 *
 * The rule: nothing an agent wrote reaches a header raw. Addresses are parsed
 * and checked (one addr-spec each, no line breaks, nothing that could pass
 * for a command-line option), display names and subjects that are not plain
 * ASCII become RFC 2047 encoded words, and the body travels quoted-printable
 * with every line that starts with a dot encoded, so no transport can read
 * the agent's text as the end of the message or as a header.
 *
 * The message carries `Message-ID: <ITEM-ID@mecha>`: a duplicate, should one
 * ever happen, is recognisable at the other end.
 *
 * An invitation is the same message with a second part: multipart/alternative
 * of the text/plain body and a `text/calendar; method=REQUEST|CANCEL;
 * charset=UTF-8` part (RFC 6047) in base64, so the iCalendar bytes and their
 * CRLF line ends arrive exactly as libical wrote them. The boundary starts
 * with "=_", which neither quoted-printable nor base64 can produce.
 *
 * Ownership: struct mail_message owns its strings (mail_message_free).
 * json_t arguments are borrowed.
 */
#ifndef MECHA_OUTBOX_MAIL_H
#define MECHA_OUTBOX_MAIL_H

#include <jansson.h>
#include <stddef.h>
#include <time.h>

struct config;
struct err;
struct sink;

/* The mail_send row of the sink table (sink.h). */
extern const struct sink mail_sink;

struct mail_message {
	char *from;   /* the bare sender address (the SMTP envelope) */
	char **rcpt;  /* every bare To and Cc address, in order */
	size_t nrcpt;
	char *text;   /* the whole message, CRLF line ends */
	size_t len;
};

/* Checks a draft's args (to, cc, subject, body) without building anything. */
int mail_check_args(const json_t *args, struct err *e);

/* 0 when s[0..n) is one address ("Name <a@b>" or "a@b") mecha will send to; `what` names it. */
int mail_check_address(const char *s, size_t n, const char *what, struct err *e);

/*
 * Builds the message for the item `id` from args, sent by `from` (the
 * configured [mail] from, which may carry a display name) at time `date`.
 * Code "bad_args" when the draft cannot be a message.
 */
int mail_build(const char *from, const char *id, const json_t *args, time_t date,
	       struct mail_message *out, struct err *e);
void mail_message_free(struct mail_message *m);

/* The iTIP part of an invitation (RFC 6047); both strings borrowed. */
struct mail_calendar {
	const char *method; /* "REQUEST" or "CANCEL" */
	const char *text;   /* the iCalendar object (calendar_itip's text) */
};

/*
 * mail_build with a calendar part: the args' body as text/plain and cal as
 * text/calendar, alternatives of one message. message_id is the Message-ID's
 * local part ([A-Za-z0-9_.-], as an item id). Code "bad_args" when the method
 * is not one of the two or the draft cannot be a message.
 */
int mail_build_itip(const char *from, const char *message_id, const json_t *args,
		    const struct mail_calendar *cal, time_t date, struct mail_message *out,
		    struct err *e);

/* The bare address (local@domain) of one checked address; malloc'd, or NULL with e. */
char *mail_address_spec(const char *s, const char *what, struct err *e);

/*
 * 1 when the configuration has a mail route ([mail] smtp_url or sendmail,
 * and from); otherwise 0 with e saying what is missing.
 */
int mail_configured(const struct config *cfg, struct err *e);

/*
 * Hands m to the configured route. Code "delivery" when it did not take it;
 * "delivery_unconfirmed" when SMTP took every byte but never confirmed (a
 * timeout or a dropped connection after the body): it may have arrived, and
 * sending it again may deliver it twice.
 */
int mail_deliver(const struct config *cfg, const struct mail_message *m, struct err *e);

#endif
