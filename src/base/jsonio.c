/*
 * jsonio — one parse, one dump, used by every store so that a file written by
 * one verb is read back identically by another.
 */
#include "base/jsonio.h"

#include "base/err.h"
#include "base/buf.h"
#include "base/fs.h"
#include "base/text.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DUMP_FLAGS (JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17))

json_t *jsonio_parse(const char *data, size_t len, const char *what, struct err *e)
{
	json_error_t je;
	json_t *v = json_loadb(data, len, JSON_DECODE_ANY | JSON_ALLOW_NUL, &je);

	if (!v)
		err_set(e, ERR_PARSE, "%s: not valid JSON at line %d, column %d: %s", what, je.line,
			 je.column, je.text);
	return v;
}

json_t *jsonio_load(const char *path, struct err *e)
{
	char *data;
	size_t len;
	json_t *v;

	if (fs_read(path, &data, &len, e) != 0)
		return NULL;
	v = jsonio_parse(data, len, path, e);
	free(data);
	return v;
}

static char *dump(const json_t *v, size_t flags)
{
	char *s = json_dumps(v, flags | JSON_ENCODE_ANY);

	if (!s)
		abort(); /* jansson fails only on allocation failure here */
	return s;
}

char *jsonio_pretty(const json_t *v)
{
	return dump(v, DUMP_FLAGS | JSON_INDENT(2));
}

char *jsonio_compact(const json_t *v)
{
	return dump(v, DUMP_FLAGS | JSON_COMPACT);
}

int jsonio_save(const char *path, const json_t *v, struct err *e)
{
	char *s = jsonio_pretty(v);
	int rc = fs_replace(path, s, strlen(s), e);

	free(s);
	return rc;
}

/*
 * jansson escapes the C0 controls but writes DEL and the C1 controls (U+0080
 * to U+009F, CSI among them) as they are. Outside strings a dump is ASCII
 * punctuation, so every such byte is inside a string and its \u escape is the
 * same JSON value.
 */
static void put_escaped(FILE *f, const char *s)
{
	const char *run = s, *p;

	while ((p = strpbrk(run, "\x7f\xc2"))) {
		unsigned char next = (unsigned char)p[1];
		int c1 = (unsigned char)*p == 0xc2 && next >= 0x80 && next <= 0x9f;

		if (*p != 0x7f && !c1) {
			fwrite(run, 1, (size_t)(p - run) + 1, f);
			run = p + 1;
			continue;
		}
		fwrite(run, 1, (size_t)(p - run), f);
		fprintf(f, "\\u%04x", c1 ? (unsigned)next : 0x7fu);
		run = p + (c1 ? 2 : 1);
	}
	fputs(run, f);
}

void jsonio_array_begin(struct jsonio_array *a, FILE *f)
{
	a->f = f;
	a->n = 0;
	a->member = 0;
}

/*
 * jansson's indented array: "[", then each element on its lines indented by 2
 * (4 in an object's member), ",\n" between.
 */
void jsonio_array_add(struct jsonio_array *a, const json_t *v)
{
	char *s = isatty(fileno(a->f)) ? dump(v, DUMP_FLAGS | JSON_INDENT(2) | JSON_ENSURE_ASCII)
				       : jsonio_pretty(v);
	char *line = s, *nl;

	fputs(a->n++ ? ",\n" : "[\n", a->f);
	for (;; line = nl + 1) { /* strings hold no raw newline: every '\n' is jansson's own */
		nl = strchr(line, '\n');
		fputs(a->member ? "    " : "  ", a->f);
		if (nl)
			*nl = '\0';
		put_escaped(a->f, line);
		if (!nl)
			break;
		fputc('\n', a->f);
	}
	free(s);
}

void jsonio_array_end(struct jsonio_array *a)
{
	if (a->member)
		fputs(a->n ? "\n  ]" : "[]", a->f);
	else
		fputs(a->n ? "\n]\n" : "[]\n", a->f);
}

void jsonio_object_begin(struct jsonio_object *o, FILE *f)
{
	o->f = f;
	o->n = 0;
}

void jsonio_object_array(struct jsonio_object *o, const char *key, struct jsonio_array *a)
{
	fprintf(o->f, "%s  \"%s\": ", o->n++ ? ",\n" : "{\n", key);
	jsonio_array_begin(a, o->f);
	a->member = 1;
}

void jsonio_object_end(struct jsonio_object *o)
{
	fputs(o->n ? "\n}\n" : "{}\n", o->f);
}

void jsonio_print(FILE *f, const json_t *v)
{
	/*
	 * On a terminal every non-ASCII character is escaped: JSON keeps control
	 * characters escaped anyway, but a bidirectional override inside a string
	 * would otherwise reach the screen raw. A pipe gets plain UTF-8, with the
	 * controls jansson leaves raw escaped all the same.
	 */
	char *s = isatty(fileno(f)) ? dump(v, DUMP_FLAGS | JSON_INDENT(2) | JSON_ENSURE_ASCII)
				    : jsonio_pretty(v);

	put_escaped(f, s);
	fputc('\n', f);
	free(s);
}

const char *jsonio_str(const json_t *obj, const char *key)
{
	json_t *v = json_object_get(obj, key);

	return json_is_string(v) ? json_string_value(v) : NULL;
}

const char *jsonio_str_or(const json_t *obj, const char *key, const char *def)
{
	const char *s = jsonio_str(obj, key);

	return s ? s : def;
}

json_t *jsonio_text(const char *s)
{
	struct buf safe = BUF_INIT;
	json_t *o;

	if (text_utf8_valid(s, strlen(s)))
		return json_string(s);
	text_safe(&safe, s, strlen(s), TEXT_KEEP_NEWLINES);
	o = json_string(buf_str(&safe));
	buf_free(&safe);
	return o;
}

json_t *jsonio_failure(int code, const char *msg)
{
	return json_pack("{s:b,s:s,s:o}", "ok", 0, "error", err_code_name(code), "message",
			 jsonio_text(msg));
}
