/*
 * multipart — form-data parts, found by their delimiters and read strictly,
 * a piece of the body at a time.
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

/* The part being read: its headers' findings. */
struct head {
	char *name, *filename;
	int typed;
};

static void head_clear(struct head *h)
{
	free(h->name);
	free(h->filename);
	memset(h, 0, sizeof *h);
}

static int disposition(const char *v, size_t n, struct head *part, const char **why)
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
static int header(const char *line, size_t n, struct head *part, const char **why)
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
	if (is(line, (size_t)(colon - line), "Content-Type") && !part->typed)
		return part->typed = 1, 0; /* the bytes decide what a file is, not this */
	return -1;
}

const char multipart_too_many[] = "the upload has too many parts";

static const char not_lines[] = "a part's headers are not lines ending in CRLF";

enum stage {
	OPENING, /* the first delimiter, without its CRLF, at the body's start */
	AFTER,   /* the two bytes after a delimiter: CRLF (a part) or "--" (the close) */
	HEADERS, /* a part's header lines */
	DATA,    /* a part's bytes, up to CRLF and the next delimiter */
	CLOSED,  /* the epilogue, nobody's business */
	REFUSED,
};

struct multipart_in {
	struct multipart_sink sink;
	enum stage stage;
	char delim[BOUNDARY_MAX + 4]; /* CRLF "--" boundary */
	size_t dlen;
	unsigned char fail[BOUNDARY_MAX + 4]; /* KMP: delim's longest proper border, by prefix */
	size_t matched;                      /* bytes of delim seen and held back (OPENING: of delim + 2) */
	char after[2];
	size_t nafter;
	char line[MULTIPART_HEADER_MAX + 1]; /* a header line, its CR held in cr */
	size_t nline;
	int cr;
	struct head head;
	size_t parts;
	size_t pos; /* bytes of the body read so far */
	const char *why;
};

struct multipart_in *multipart_in_new(const char *content_type, const struct multipart_sink *sink,
				      const char **why)
{
	struct multipart_in *in;
	const char *b, *refused;
	size_t blen;

	if (boundary_of(content_type, &b, &blen, &refused) != 0) {
		*why = refused;
		return NULL;
	}
	in = xcalloc(1, sizeof *in);
	in->sink = *sink;
	memcpy(in->delim, "\r\n--", 4);
	memcpy(in->delim + 4, b, blen);
	in->dlen = blen + 4;
	for (size_t i = 1, k = 0; i < in->dlen; i++) {
		while (k && in->delim[i] != in->delim[k])
			k = in->fail[k - 1];
		if (in->delim[i] == in->delim[k])
			k++;
		in->fail[i] = (unsigned char)k;
	}
	return in;
}

static int refuse(struct multipart_in *in, const char *why)
{
	in->stage = REFUSED;
	in->why = why;
	return -1;
}

/* A header line ends (or the blank line that ends them all). */
static int line_end(struct multipart_in *in)
{
	const char *why;

	if (in->nline) {
		if (header(in->line, in->nline, &in->head, &why) != 0)
			return refuse(in, why);
		in->nline = 0;
		return 0;
	}
	if (!in->head.name)
		return refuse(in, "a part has no Content-Disposition");
	in->sink.part(in->sink.arg, in->head.name, in->head.filename);
	head_clear(&in->head);
	in->stage = DATA;
	in->matched = 0;
	return 0;
}

/* HEADERS: bytes into the current line; how many of p were taken, or -1. */
static long headers_feed(struct multipart_in *in, const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (in->cr) {
			in->cr = 0;
			if (p[i] != '\n')
				return refuse(in, not_lines);
			in->pos++;
			if (line_end(in) != 0)
				return -1;
			if (in->stage != HEADERS)
				return (long)i + 1;
			continue;
		}
		in->pos++;
		if (p[i] == '\r')
			in->cr = 1;
		else if (p[i] == '\n' || in->nline == MULTIPART_HEADER_MAX)
			return refuse(in, not_lines); /* a bare LF, or a line too long */
		else
			in->line[in->nline++] = p[i];
	}
	return (long)n;
}

/*
 * DATA: the part's bytes, each passed on once it cannot begin the delimiter.
 * What is held back is always delim's first `matched` bytes, so it is passed
 * on from delim itself when a mismatch shows it was data after all.
 */
static long data_feed(struct multipart_in *in, const char *p, size_t n)
{
	size_t i = 0;

	while (i < n) {
		size_t m = in->matched, k;
		if (m == 0) { /* nothing held: the bytes up to the next CR are data */
			const char *cr = memchr(p + i, '\r', n - i);
			size_t to = cr ? (size_t)(cr - p) : n;
			if (to > i)
				in->sink.data(in->sink.arg, p + i, to - i);
			if (!cr)
				break;
			i = to;
		}
		if (p[i] == in->delim[m]) {
			in->matched = ++m;
			i++;
			if (m < in->dlen)
				continue;
			in->pos += i;
			in->sink.end(in->sink.arg);
			in->stage = AFTER;
			in->nafter = 0;
			in->matched = 0;
			return (long)i;
		}
		/* delim[0..m) then p[i]: its longest end that begins delim stays held */
		k = m;
		while (k && p[i] != in->delim[k])
			k = in->fail[k - 1];
		if (p[i] == in->delim[k])
			k++;
		if (k == 0) {
			if (m)
				in->sink.data(in->sink.arg, in->delim, m);
			in->sink.data(in->sink.arg, p + i, 1);
		} else {
			in->sink.data(in->sink.arg, in->delim, m + 1 - k);
		}
		in->matched = k;
		i++;
	}
	in->pos += n;
	return (long)n;
}

int multipart_in_feed(struct multipart_in *in, const char *p, size_t n, const char **why)
{
	while (n && in->stage != REFUSED && in->stage != CLOSED) {
		long took = 1;
		switch (in->stage) {
		case OPENING:
			if (*p != in->delim[2 + in->matched])
				return *why = "the body does not open with its boundary",
				       refuse(in, *why);
			in->pos++;
			if (++in->matched == in->dlen - 2) {
				in->stage = AFTER;
				in->nafter = 0;
				in->matched = 0;
			}
			break;
		case AFTER:
			in->pos++;
			in->after[in->nafter++] = *p;
			if (in->nafter < 2)
				break;
			if (in->after[0] == '-' && in->after[1] == '-') {
				in->stage = CLOSED;
			} else if (in->after[0] != '\r' || in->after[1] != '\n') {
				refuse(in, "a boundary is not followed by a line break or its close");
			} else if (in->parts == MULTIPART_PARTS_MAX) {
				refuse(in, multipart_too_many);
			} else {
				in->parts++;
				in->stage = HEADERS;
				in->nline = 0;
				in->cr = 0;
			}
			break;
		case HEADERS:
			took = headers_feed(in, p, n);
			break;
		case DATA:
			took = data_feed(in, p, n);
			break;
		default:
			break;
		}
		if (took < 0)
			break;
		p += took;
		n -= (size_t)took;
	}
	if (in->stage == REFUSED) {
		*why = in->why;
		return -1;
	}
	return 0;
}

int multipart_in_finish(struct multipart_in *in, const char **why)
{
	static const char *const unfinished[] = {
		[OPENING] = "the body does not open with its boundary",
		[AFTER] = "a boundary is not followed by a line break or its close",
		[HEADERS] = not_lines,
		[DATA] = "the body ends inside a part",
	};

	if (in->stage == CLOSED)
		return 0;
	if (in->stage != REFUSED)
		refuse(in, unfinished[in->stage]);
	*why = in->why;
	return -1;
}

void multipart_in_free(struct multipart_in *in)
{
	if (!in)
		return;
	head_clear(&in->head);
	free(in);
}

/* ---- a whole body at once ---------------------------------------------------------------- */

struct whole {
	struct multipart *mp;
	struct multipart_in *in;
	const char *body;
};

static void whole_part(void *arg, const char *name, const char *filename)
{
	struct whole *w = arg;
	struct multipart *mp = w->mp;
	struct multipart_part *part;

	if (mp->n % 8 == 0)
		mp->v = xrealloc(mp->v, (mp->n + 8) * sizeof *mp->v);
	part = &mp->v[mp->n++];
	*part = (struct multipart_part){ xstrdup(name), filename ? xstrdup(filename) : NULL,
					 w->body + w->in->pos, 0 };
}

static void whole_data(void *arg, const char *p, size_t n)
{
	struct whole *w = arg;

	(void)p; /* a part's bytes lie in the body together: their start and count say them */
	w->mp->v[w->mp->n - 1].len += n;
}

static void whole_end(void *arg)
{
	(void)arg;
}

int multipart_parse(const char *content_type, const char *body, size_t len,
		    struct multipart *out, const char **why)
{
	struct whole w = { out, NULL, body };
	struct multipart_sink sink = { whole_part, whole_data, whole_end, &w };
	int rc;

	memset(out, 0, sizeof *out);
	if (!(w.in = multipart_in_new(content_type, &sink, why)))
		return -1;
	rc = multipart_in_feed(w.in, body, len, why);
	if (rc == 0)
		rc = multipart_in_finish(w.in, why);
	multipart_in_free(w.in);
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
