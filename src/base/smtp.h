/*
 * smtp — mail as mecha writes it, whoever sends it: the outbox's mail sink
 * (src/outbox/mail.c) and the box's verification mail (src/box/mailer.c).
 *
 * The rule: nothing a stranger or an agent wrote reaches a header raw. An
 * address is parsed and checked (one addr-spec, no line breaks, nothing that
 * could pass for a command-line option); display names and subjects that
 * are not plain ASCII become RFC 2047 encoded words, folded; a body travels
 * quoted-printable with a leading "." or "From " encoded, so no transport
 * reads the text as the end of the message or as a header.
 *
 * smtp_send hands a built message to an SMTP server through libcurl
 * (loaded on first use): STARTTLS whenever offered, required with a password
 * unless the server is this machine. A failure after every byte was handed
 * over and before the server confirmed is ERR_DELIVERY_UNCONFIRMED (it may
 * have arrived), any other ERR_DELIVERY; a route that cannot work ERR_NO_ROUTE.
 * The login is [mail] username, else the bare address of from (never its
 * display name). smtp_probe asks the same server the same way, sending nothing.
 *
 * Addresses are parsed by base/addr.h, the one parser. Ownership: everything
 * passed in is borrowed; smtp_probe's *said is new.
 */
#ifndef MECHA_BASE_SMTP_H
#define MECHA_BASE_SMTP_H

#include <stddef.h>
#include <time.h>

struct buf;
struct err;

struct addr; /* base/addr.h: one parsed address */

/* "Name: a, b\r\n", folded so no address is split and lines stay short. */
void smtp_header_addrs(struct buf *b, const char *name, const struct addr *list, size_t n);
/* "Subject: …\r\n", encoded words when s is not plain ASCII (or is long). */
void smtp_header_subject(struct buf *b, const char *s, size_t n);
/* "Date: …\r\n" in UTC. */
void smtp_header_date(struct buf *b, time_t t);
/* s as a quoted-printable body with CRLF line ends ("\n" and "\r\n" are breaks). */
void smtp_qp_body(struct buf *b, const char *s, size_t n);
/* base64 of s, no line breaks. */
void smtp_base64(struct buf *b, const unsigned char *s, size_t n);

/* Where a message goes: the [mail] keys of config.toml and box.toml alike. */
struct smtp_route {
	const char *url;          /* smtp:// or smtps:// */
	const char *username;     /* NULL: the bare address of from */
	const char *from;         /* the configured sender, "Name <addr>" or "addr" (for the login) */
	const char *password_env; /* the variable holding the password; NULL: no login */
};

/* Sends text[0..len) (a whole message, CRLF) from from_spec to every rcpt. */
int smtp_send(const struct smtp_route *r, const char *from_spec, char *const *rcpt,
	      size_t nrcpt, const char *text, size_t len, struct err *e);

/*
 * Whether the route would take a message, asked without sending one: the
 * greeting, EHLO, STARTTLS and the login exactly as smtp_send does them, then
 * QUIT — no MAIL FROM, no RCPT, no DATA. 0 with *said (new: free it) telling
 * how far it went; -1 with ERR_DELIVERY naming host:port and what the server
 * said, or the errors smtp_send meets before connecting.
 */
int smtp_probe(const struct smtp_route *r, char **said, struct err *e);

#endif
