/*
 * addr — one e-mail address, parsed strictly: "Name <local@domain>" or
 * "local@domain".
 *
 * The rule: an address mecha accepts is one it is willing to put on an SMTP
 * envelope, in a header and on a sendmail command line — one addr-spec of
 * plain characters (no line break, no quoting tricks, nothing starting with
 * '-' that a command could take for an option), and a display name of valid
 * UTF-8 without control characters. The outbox parses every recipient and
 * sender through it, and the configuration checks [mail] from with it at load,
 * so an address config.toml accepts is one a send accepts.
 *
 * Ownership: struct addr owns its two strings (addr_free); inputs are
 * borrowed.
 */
#ifndef MECHA_BASE_ADDR_H
#define MECHA_BASE_ADDR_H

#include <stddef.h>

struct err;

struct addr {
	char *display; /* the display name, unquoted; NULL when there is none */
	char *spec;    /* local@domain */
};

/*
 * Parses s[0..n) (a NUL byte inside is refused) into *out. On failure -1 with
 * code "bad_args" and "<what>: '<s>' is not an e-mail address mecha will send
 * to" (s rendered safely); *out is then empty.
 */
int addr_parse(const char *s, size_t n, const char *what, struct addr *out, struct err *e);
/* 1 when c may stand unquoted in a local part: RFC 5322 atext, and '.'. */
int addr_local_char(char c);

/* Frees the strings; safe on a zeroed or already-freed addr. */
void addr_free(struct addr *a);

#endif
