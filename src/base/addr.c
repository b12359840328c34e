/*
 * addr — the addr-spec and the display name, each checked character by
 * character: what is not plainly allowed is refused.
 */
#include "base/addr.h"

#include "base/buf.h"
#include "base/err.h"
#include "base/text.h"

#include <stdlib.h>
#include <string.h>

void addr_free(struct addr *a)
{
	free(a->display);
	free(a->spec);
	a->display = a->spec = NULL;
}

int addr_local_char(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
	       (c && strchr("!#$%&'*+/=?^_`{|}~.-", c) != NULL);
}

static int domain_char(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
	       c == '.' || c == '-';
}

/* An addr-spec we are willing to put on an envelope and a command line. */
static int spec_ok(const char *s, size_t n)
{
	const char *at = memchr(s, '@', n);
	size_t local, i;

	if (!at || n > 254 || s[0] == '-' || s[0] == '.')
		return 0;
	local = (size_t)(at - s);
	if (local == 0 || local > 64 || local + 1 == n)
		return 0;
	for (i = 0; i < local; i++)
		if (!addr_local_char(s[i]))
			return 0;
	for (i = local + 1; i < n; i++)
		if (!domain_char(s[i]))
			return 0;
	return s[local + 1] != '.' && s[local + 1] != '-' && s[n - 1] != '.';
}

static void trim(const char **s, size_t *n)
{
	while (*n && (**s == ' ' || **s == '\t')) {
		(*s)++;
		(*n)--;
	}
	while (*n && ((*s)[*n - 1] == ' ' || (*s)[*n - 1] == '\t'))
		(*n)--;
}

/* A display name: quotes removed, no control characters, valid UTF-8. */
static int display_name(const char *s, size_t n, struct addr *out)
{
	struct buf b = BUF_INIT;

	trim(&s, &n);
	if (n >= 2 && s[0] == '"' && s[n - 1] == '"') {
		s++;
		n -= 2;
	}
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c < 0x20 || c == 0x7f) {
			buf_free(&b);
			return -1;
		}
		if (c == '\\' && i + 1 < n)
			c = (unsigned char)s[++i];
		buf_addc(&b, (char)c);
	}
	if (!text_utf8_valid(buf_str(&b), b.len)) {
		buf_free(&b);
		return -1;
	}
	out->display = b.len ? buf_steal(&b) : NULL;
	buf_free(&b);
	return 0;
}

/* "Name <a@b>" or "a@b"; the message quotes the address safely. */
int addr_parse(const char *s, size_t n, const char *what, struct addr *out, struct err *e)
{
	const char *lt;

	memset(out, 0, sizeof *out);
	if (memchr(s, '\0', n))
		goto bad;
	trim(&s, &n);
	lt = n ? memrchr(s, '<', n) : NULL;
	if (lt) {
		size_t speclen;
		if (s[n - 1] != '>')
			goto bad;
		speclen = (size_t)(s + n - 1 - (lt + 1));
		if (!spec_ok(lt + 1, speclen) || display_name(s, (size_t)(lt - s), out) != 0)
			goto bad;
		out->spec = xstrndup(lt + 1, speclen);
		return 0;
	}
	if (!spec_ok(s, n))
		goto bad;
	out->spec = xstrndup(s, n);
	return 0;
bad:
	{
		struct buf b = BUF_INIT;
		text_safe(&b, s, n, 0);
		err_set(e, ERR_BAD_ARGS, "%s: '%s' is not an e-mail address mecha will send to", what,
			 buf_str(&b));
		buf_free(&b);
	}
	addr_free(out);
	return -1;
}
