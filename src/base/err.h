/*
 * err — how a failure travels from where it happened to the person.
 *
 * A fallible function returns -1 (or NULL) and fills the caller's struct err.
 * The kind decides the exit status; the code is a stable keyword a script can
 * match ("stale_head", "not_pending", "io"); the message is what a person
 * reads. A refusal (a rule said no, nothing changed) is a kind of its own so it
 * can never be mistaken for an I/O failure.
 *
 * Ownership: struct err is plain storage, owned by whoever declared it. No
 * function here allocates.
 */
#ifndef MECHA_BASE_ERR_H
#define MECHA_BASE_ERR_H

#include <stddef.h>

enum err_kind {
	ERR_NONE = 0,
	ERR_FAIL,    /* I/O, network, provider, internal: exit 1 */
	ERR_USAGE,   /* the command line is wrong: exit 2 */
	ERR_REFUSED, /* a rule said no and nothing changed: exit 3 */
};

struct err {
	enum err_kind kind;
	char code[48];
	char msg[1536];
};

/* Exit statuses, documented in mecha.1. */
enum {
	EXIT_OK = 0,
	EXIT_FAIL = 1,
	EXIT_USAGE = 2,
	EXIT_REFUSED = 3,
};

void err_clear(struct err *e);

/* Sets kind, code and a printf-style message; returns -1 for `return err_x(...)`. */
int err_set(struct err *e, enum err_kind kind, const char *code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* A failure with code "io" whose message ends with ": strerror(errno)". */
int err_errno(struct err *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Shorthands for the common kinds. */
int err_fail(struct err *e, const char *code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int err_refuse(struct err *e, const char *code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int err_usage(struct err *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Puts "<prefix>: " in front of the existing message (for context such as a file name). */
void err_prefix(struct err *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The process exit status for this error (EXIT_FAIL when kind is unset). */
int err_exit_code(const struct err *e);

#endif
