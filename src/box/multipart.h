/*
 * multipart — a multipart/form-data body (RFC 7578) into its parts, parsed
 * strictly in one place: the upload page's POST, and nothing else.
 *
 * The boundary comes from the Content-Type (`multipart/form-data;
 * boundary=…`, quoted or not: 1-70 of RFC 2046's characters). The body must
 * open with the first delimiter (no preamble) and close with the last
 * (`--boundary--`; whatever follows, the epilogue, is ignored). Each part is
 * CRLF-terminated header lines, a blank line, then its bytes up to the next
 * CRLF and delimiter. The headers: exactly one Content-Disposition,
 * `form-data` with a `name` and optionally a `filename` (quoted strings
 * without escapes, as browsers write them, or tokens; `filename*` and other
 * parameters are refused); optionally one Content-Type, which is read past:
 * the bytes decide what a file is, never a header. Any other header, a
 * folded or overlong header line, a name or filename that is not UTF-8 or
 * holds a control character, more than MULTIPART_PARTS_MAX parts: refused.
 *
 * The reader is incremental: struct multipart_in takes the body in pieces
 * of any size, as they arrive off the wire, and hands each part to a sink —
 * its headers once read, its bytes as they come, its end — holding no more
 * than one header line (MULTIPART_HEADER_MAX) and a delimiter's length of
 * bytes that might begin the next delimiter. A piece boundary anywhere (in a
 * delimiter, a header line, a CRLF) reads exactly as the whole body would.
 * multipart_parse is the same reader over a whole body at once.
 *
 * Ownership: a sink's name, filename and bytes are lent for the call only.
 * multipart_parse's parts point into the body given (no copy); their name
 * and filename are malloc'd, and multipart_free releases everything parsed.
 */
#ifndef MECHA_BOX_MULTIPART_H
#define MECHA_BOX_MULTIPART_H

#include <stddef.h>

#define MULTIPART_PARTS_MAX 64
#define MULTIPART_HEADER_MAX 4096 /* one header line */
#define MULTIPART_NAME_MAX 1024   /* a name or a filename, in bytes */

struct multipart_part {
	char *name;
	char *filename; /* NULL when the part has no filename parameter */
	const char *data;
	size_t len;
};

struct multipart {
	struct multipart_part *v;
	size_t n;
};

/*
 * Parses body[0..len) under content_type (the header's value). 0 with *out
 * filled; -1 with *why (a static sentence) and *out empty.
 */
int multipart_parse(const char *content_type, const char *body, size_t len,
		    struct multipart *out, const char **why);
void multipart_free(struct multipart *mp);

/* What a part is told to, in order: part (its headers read; filename NULL when it has no
 * filename parameter), data any number of times (never with n == 0), end. */
struct multipart_sink {
	void (*part)(void *arg, const char *name, const char *filename);
	void (*data)(void *arg, const char *p, size_t n);
	void (*end)(void *arg);
	void *arg;
};

struct multipart_in;

/* A reader of a body under content_type: NULL with *why when the Content-Type is
 * refused. sink is copied. */
struct multipart_in *multipart_in_new(const char *content_type, const struct multipart_sink *sink,
				      const char **why);
/* The body's next n bytes: 0, or -1 with *why once it is refused (every later call, too;
 * the sink hears nothing more). */
int multipart_in_feed(struct multipart_in *in, const char *p, size_t n, const char **why);
/* The body is over: 0 when it closed with its last delimiter, -1 with *why when not. */
int multipart_in_finish(struct multipart_in *in, const char **why);
void multipart_in_free(struct multipart_in *in);

/* *why when the body has more than MULTIPART_PARTS_MAX parts: compare the pointer (413). */
extern const char multipart_too_many[];

#endif
