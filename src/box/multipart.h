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
 * Ownership: a part's data points into the body given (no copy); its name
 * and filename are malloc'd. multipart_free releases everything parsed.
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

/* *why when the body has more than MULTIPART_PARTS_MAX parts: compare the pointer (413). */
extern const char multipart_too_many[];

#endif
