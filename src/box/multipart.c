/*
 * multipart — form-data parts, found by their delimiters and read strictly.
 */
#include "box/multipart.h"

#include "base/buf.h"
#include "base/text.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define BOUNDARY_MAX 70 /* RFC 2046 */
#define PARAMS_MAX 4

struct param {
	const char *name, *value; /* into the header */
	size_t nlen, vlen;
};

/* A header value: its first word ("form-data") and its ;-separated parameters. */
struct hvalue {
	const char *word;
	size_t wlen;
	struct param p[PARAMS_MAX];
	int n;
};

static int ows(char c)
{
	return c == ' ' || c == '\t';
}

static const char *skip_ows(const char *p, const char *end)
{
	while (p < end && ows(*p))
		p++;
	return p;
}

/* Up to the next ';', '=' or white space. */
static const char *word_end(const char *p, const char *end)
{
	while (p < end && *p != ';' && *p != '=' && *p != '"' && !ows(*p))
		p++;
	return p;
}

/* One parameter's value at *pp: a quoted string (no escapes) or a bare word. */
static int param_value(const char **pp, const char *end, struct param *pa)
{
	const char *p = *pp, *q;

	if (p < end && *p == '"') {
		if (!(q = memchr(p + 1, '"', (size_t)(end - p - 1))))
			return -1;
		pa->value = p + 1;
		pa->vlen = (size_t)(q - p - 1);
		*pp = q + 1;
		return 0;
	}
	q = word_end(p, end);
	pa->value = p;
	pa->vlen = (size_t)(q - p);
	*pp = q;
	return q > p ? 0 : -1;
}

/* "word; a=b; c="d"" into h; -1 for anything else (a parameter twice included). */
static int hvalue_parse(const char *s, size_t n, struct hvalue *h)
{
	const char *p = skip_ows(s, s + n), *end = s + n;

	memset(h, 0, sizeof *h);
	h->word = p;
	p = word_end(p, end);
	if ((h->wlen = (size_t)(p - h->word)) == 0)
		return -1;
	while ((p = skip_ows(p, end)) < end) {
		struct param *pa = &h->p[h->n];
		if (*p != ';' || h->n == PARAMS_MAX)
			return -1;
		pa->name = p = skip_ows(p + 1, end);
		p = word_end(p, end);
		if ((pa->nlen = (size_t)(p - pa->name)) == 0 || p == end || *p != '=')
			return -1;
		p++;
		if (param_value(&p, end, pa) != 0)
			return -1;
		for (int i = 0; i < h->n; i++)
			if (h->p[i].nlen == pa->nlen && strncasecmp(h->p[i].name, pa->name, pa->nlen) == 0)
				return -1;
		h->n++;
	}
	return 0;
}

static int is(const char *s, size_t n, const char *word)
{
	return n == strlen(word) && strncasecmp(s, word, n) == 0;
}

static const struct param *param_get(const struct hvalue *h, const char *name)
{
	for (int i = 0; i < h->n; i++)
		if (is(h->p[i].name, h->p[i].nlen, name))
			return &h->p[i];
	return NULL;
}

/* RFC 2046's bchars: a space may not come last. */
static int boundary_ok(const char *s, size_t n)
{
	static const char extra[] = "'()+_,-./:=? ";

	if (n == 0 || n > BOUNDARY_MAX || s[n - 1] == ' ')
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'z') ||
		      (s[i] >= 'A' && s[i] <= 'Z') || (s[i] && strchr(extra, s[i]))))
			return 0;
	return 1;
}

static int boundary_of(const char *ct, const char **b, size_t *n, const char **why)
{
	struct hvalue h;
	const struct param *pa;

	*why = "the Content-Type is not multipart/form-data with a boundary";
	if (!ct || hvalue_parse(ct, strlen(ct), &h) != 0 || !is(h.word, h.wlen, "multipart/form-data"))
		return -1;
	for (int i = 0; i < h.n; i++)
		if (!is(h.p[i].name, h.p[i].nlen, "boundary") && !is(h.p[i].name, h.p[i].nlen, "charset"))
			return -1;
	if (!(pa = param_get(&h, "boundary")) || !boundary_ok(pa->value, pa->vlen))
		return -1;
	*b = pa->value;
	*n = pa->vlen;
	return 0;
}

/* A name or filename: bounded, UTF-8, no control characters. NULL when not. */
static char *text_param(const struct param *pa)
{
	if (pa->vlen > MULTIPART_NAME_MAX || !text_utf8_valid(pa->value, pa->vlen))
		return NULL;
	for (size_t i = 0; i < pa->vlen; i++)
		if ((unsigned char)pa->value[i] < 0x20 || pa->value[i] == 0x7f)
			return NULL;
	return xstrndup(pa->value, pa->vlen);
}

static int disposition(const char *v, size_t n, struct multipart_part *part, const char **why)
{
	const struct param *name, *file;
	struct hvalue h;

	*why = "a part's Content-Disposition is not form-data with a name (and a filename)";
	if (part->name || hvalue_parse(v, n, &h) != 0 || !is(h.word, h.wlen, "form-data"))
		return -1;
	name = param_get(&h, "name");
	file = param_get(&h, "filename");
	if (!name || name->vlen == 0 || h.n != 1 + (file != NULL))
		return -1;
	if (!(part->name = text_param(name)) || (file && !(part->filename = text_param(file))))
		return -1;
	return 0;
}

/* One header line, line[0..n) without its CRLF. */
static int header(const char *line, size_t n, struct multipart_part *part, int *typed,
		  const char **why)
{
	const char *colon = memchr(line, ':', n), *v, *end = line + n;

	*why = "a part has a header this upload does not take";
	if (!colon || colon == line || ows(line[0]))
		return -1;
	v = skip_ows(colon + 1, end);
	while (end > v && ows(end[-1]))
		end--;
	if (is(line, (size_t)(colon - line), "Content-Disposition"))
		return disposition(v, (size_t)(end - v), part, why);
	if (is(line, (size_t)(colon - line), "Content-Type") && !*typed)
		return *typed = 1, 0; /* the bytes decide what a file is, not this */
	return -1;
}

/* The header lines at *pp, through the blank line that ends them. */
static int headers(const char **pp, const char *end, struct multipart_part *part,
		   const char **why)
{
	const char *p = *pp;
	int typed = 0;

	for (;;) {
		size_t room = (size_t)(end - p) < MULTIPART_HEADER_MAX + 2 ? (size_t)(end - p)
									: MULTIPART_HEADER_MAX + 2;
		const char *cr = memchr(p, '\r', room), *lf = memchr(p, '\n', room);
		if (!cr || cr + 1 >= end || cr[1] != '\n' || (lf && lf < cr)) {
			*why = "a part's headers are not lines ending in CRLF";
			return -1;
		}
		if (cr == p)
			break;
		if (header(p, (size_t)(cr - p), part, &typed, why) != 0)
			return -1;
		p = cr + 2;
	}
	*pp = p + 2;
	if (!part->name) {
		*why = "a part has no Content-Disposition";
		return -1;
	}
	return 0;
}

const char multipart_too_many[] = "the upload has too many parts";

static struct multipart_part *next_part(struct multipart *mp)
{
	if (mp->n % 8 == 0)
		mp->v = xrealloc(mp->v, (mp->n + 8) * sizeof *mp->v);
	memset(&mp->v[mp->n], 0, sizeof mp->v[mp->n]);
	return &mp->v[mp->n++];
}

/* The parts after the opening delimiter, p just past it. */
static int parts(const char *p, const char *end, const char *delim, size_t dlen,
		 struct multipart *mp, const char **why)
{
	for (;;) {
		struct multipart_part *part;
		const char *q;
		if (end - p >= 2 && p[0] == '-' && p[1] == '-')
			return 0; /* the close delimiter; the epilogue is nobody's business */
		if (end - p < 2 || p[0] != '\r' || p[1] != '\n') {
			*why = "a boundary is not followed by a line break or its close";
			return -1;
		}
		if (mp->n == MULTIPART_PARTS_MAX) {
			*why = multipart_too_many;
			return -1;
		}
		p += 2;
		part = next_part(mp);
		if (headers(&p, end, part, why) != 0)
			return -1;
		if (!(q = memmem(p, (size_t)(end - p), delim, dlen))) {
			*why = "the body ends inside a part";
			return -1;
		}
		part->data = p;
		part->len = (size_t)(q - p);
		p = q + dlen;
	}
}

int multipart_parse(const char *content_type, const char *body, size_t len,
		    struct multipart *out, const char **why)
{
	const char *b, *end = body + len;
	size_t blen;
	char delim[BOUNDARY_MAX + 4];
	int rc;

	memset(out, 0, sizeof *out);
	if (boundary_of(content_type, &b, &blen, why) != 0)
		return -1;
	memcpy(delim, "\r\n--", 4);
	memcpy(delim + 4, b, blen);
	if (len < blen + 2 || memcmp(body, delim + 2, blen + 2) != 0) {
		*why = "the body does not open with its boundary";
		return -1;
	}
	rc = parts(body + blen + 2, end, delim, blen + 4, out, why);
	if (rc != 0)
		multipart_free(out);
	return rc;
}

void multipart_free(struct multipart *mp)
{
	for (size_t i = 0; i < mp->n; i++) {
		free(mp->v[i].name);
		free(mp->v[i].filename);
	}
	free(mp->v);
	mp->v = NULL;
	mp->n = 0;
}
