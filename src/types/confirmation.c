/*
 * confirmation — placeholder filling, one value at a time, in key order.
 */
#include "types/confirmation.h"

#include "base/buf.h"
#include "types/manifest.h"

#include <stdlib.h>
#include <string.h>

/* The value as the page shows it: one line. malloc'd. */
static char *flat(const json_t *v)
{
	char *s = json_is_string(v) ? xstrndup(json_string_value(v), json_string_length(v))
				    : json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);

	if (!s)
		abort();
	for (char *c = s; *c; c++)
		if (*c == '\n' || *c == '\r')
			*c = ' ';
	return s;
}

/* text with every `from` replaced by `to`; text is consumed. */
static char *replace_all(char *text, const char *from, const char *to)
{
	struct buf b = BUF_INIT;
	size_t n = strlen(from);
	const char *p = text, *hit;

	while ((hit = strstr(p, from))) {
		buf_add(&b, p, (size_t)(hit - p));
		buf_adds(&b, to);
		p = hit + n;
	}
	buf_adds(&b, p);
	free(text);
	return buf_steal(&b);
}

static int by_key(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

char *confirmation_render(const struct manifest_confirmation *c, const json_t *values)
{
	size_t n = json_object_size(values), i = 0;
	const char **keys = xcalloc(n + 1, sizeof *keys), *key;
	char *out = xstrdup(c->body);
	json_t *v;

	json_object_foreach((json_t *)values, key, v)
		keys[i++] = key;
	qsort(keys, i, sizeof *keys, by_key);
	for (size_t k = 0; k < i; k++) {
		char *placeholder = xasprintf("{%s}", keys[k]);
		char *text = flat(json_object_get(values, keys[k]));
		out = replace_all(out, placeholder, text);
		free(text);
		free(placeholder);
	}
	free(keys);
	return out;
}
