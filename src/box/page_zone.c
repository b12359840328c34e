/*
 * page_zone — what a UTC instant reads as on a wall clock in an IANA zone,
 * from the system's compiled zone files (RFC 8536 TZif, versions 1 to 4),
 * without touching the process's TZ: the box renders pages on many threads at
 * once, and setenv("TZ") + localtime would let one page's zone leak into
 * another's. Times past the file's last transition follow its footer, a POSIX
 * TZ rule ("EST5EDT,M3.2.0,M11.1.0"), which is how a slim file (and every
 * file after 2037) describes the future. Leap-second records are ignored:
 * the box shows wall-clock minutes, and the usual zone files have none.
 */
#include "box/page_parts.h"

#include "base/buf.h"
#include "base/rfc3339.h"

#include <ctype.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define ZONE_FILE_MAX (256 * 1024)
#define ZONE_TRANSITIONS_MAX 100000

/* One end of a POSIX daylight rule: Jn, n or Mm.w.d, at a local time. */
struct zone_when {
	char kind; /* 'J', 'D' (zero-based day), 'M' */
	int a, b, c;
	long time; /* seconds after local midnight; may be negative or past 24h */
};

struct zone_rule {
	long std, dst; /* seconds east of UTC */
	int has_dst;
	struct zone_when start, end;
};

struct page_zone {
	int64_t *at;         /* transition instants, ascending */
	unsigned char *type; /* the local time type from each transition on */
	size_t n;
	long *offset;        /* per local time type, seconds east of UTC */
	size_t ntypes;
	struct zone_rule rule;
	int has_rule;
};

/* ---- the POSIX TZ footer -------------------------------------------------------------- */

static const char *rule_name(const char *s)
{
	if (*s == '<') {
		const char *end = strchr(s, '>');
		return end ? end + 1 : NULL;
	}
	const char *p = s;
	while (isalpha((unsigned char)*p))
		p++;
	return p - s >= 3 ? p : NULL;
}

/* [+-]hh[:mm[:ss]] as seconds; NULL when s is not one. */
static const char *rule_hms(const char *s, long *out)
{
	long sign = 1, part[3] = { 0, 0, 0 };
	int i = 0;

	if (*s == '+' || *s == '-')
		sign = *s++ == '-' ? -1 : 1;
	for (;;) {
		if (!isdigit((unsigned char)*s))
			return NULL;
		while (isdigit((unsigned char)*s) && part[i] < 1000)
			part[i] = part[i] * 10 + (*s++ - '0');
		if (i == 2 || *s != ':')
			break;
		s++, i++;
	}
	*out = sign * (part[0] * 3600 + part[1] * 60 + part[2]);
	return s;
}

static const char *rule_int(const char *s, int *out)
{
	if (!isdigit((unsigned char)*s))
		return NULL;
	for (*out = 0; isdigit((unsigned char)*s) && *out < 1000; s++)
		*out = *out * 10 + (*s - '0');
	return s;
}

static const char *rule_when(const char *s, struct zone_when *w)
{
	w->time = 2 * 3600;
	if (*s == 'M') {
		w->kind = 'M';
		if (!(s = rule_int(s + 1, &w->a)) || *s != '.' || !(s = rule_int(s + 1, &w->b)) ||
		    *s != '.' || !(s = rule_int(s + 1, &w->c)))
			return NULL;
		if (w->a < 1 || w->a > 12 || w->b < 1 || w->b > 5 || w->c > 6)
			return NULL;
	} else {
		w->kind = *s == 'J' ? 'J' : 'D';
		if (!(s = rule_int(s + (*s == 'J'), &w->a)) || w->a > 365 ||
		    (w->kind == 'J' && w->a < 1))
			return NULL;
	}
	return *s == '/' ? rule_hms(s + 1, &w->time) : s;
}

static int rule_parse(const char *s, struct zone_rule *r)
{
	long off;

	memset(r, 0, sizeof *r);
	if (!(s = rule_name(s)) || !(s = rule_hms(s, &off)))
		return -1;
	r->std = r->dst = -off; /* POSIX counts west of Greenwich */
	if (!*s)
		return 0;
	if (!(s = rule_name(s)))
		return -1;
	r->has_dst = 1;
	r->dst = r->std + 3600;
	if (*s && *s != ',') {
		if (!(s = rule_hms(s, &off)))
			return -1;
		r->dst = -off;
	}
	if (!*s) /* no dates: the United States' rules, as POSIX's default */
		s = ",M3.2.0,M11.1.0";
	if (*s != ',' || !(s = rule_when(s + 1, &r->start)) || *s != ',' ||
	    !(s = rule_when(s + 1, &r->end)))
		return -1;
	return *s ? -1 : 0;
}

static int leap(long long y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

/* The day (days since the epoch) a rule end names in year y. */
static long long when_day(const struct zone_when *w, long long y)
{
	static const int mdays[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	long long first;
	int wday, day, len;

	if (w->kind == 'J') /* 1..365, February 29 never counted */
		return rfc3339_days_from_civil(y, 1, 1) + w->a - 1 + (leap(y) && w->a >= 60);
	if (w->kind == 'D')
		return rfc3339_days_from_civil(y, 1, 1) + w->a;
	first = rfc3339_days_from_civil(y, w->a, 1);
	wday = (int)(((first + 4) % 7 + 7) % 7); /* 1970-01-01 was a Thursday */
	day = 1 + (w->c - wday + 7) % 7 + (w->b - 1) * 7;
	len = mdays[w->a - 1] + (w->a == 2 && leap(y));
	while (day > len)
		day -= 7;
	return first + day - 1;
}

static long rule_offset(const struct zone_rule *r, int64_t t)
{
	long long y = 1970 + t / 31556952, start, end; /* a guess, corrected below */

	if (!r->has_dst)
		return r->std;
	while (rfc3339_days_from_civil(y, 1, 1) * 86400 > t)
		y--;
	while (rfc3339_days_from_civil(y + 1, 1, 1) * 86400 <= t)
		y++;
	start = when_day(&r->start, y) * 86400 + r->start.time - r->std;
	end = when_day(&r->end, y) * 86400 + r->end.time - r->dst;
	if (start < end)
		return t >= start && t < end ? r->dst : r->std;
	/* the southern hemisphere, and Dublin, whose "daylight" time is its winter */
	return t >= end && t < start ? r->std : r->dst;
}

/* ---- the TZif file -------------------------------------------------------------------- */

struct zone_reader {
	const unsigned char *p;
	size_t len, at;
};

static int64_t be(const unsigned char *p, int bytes)
{
	uint64_t v = 0;

	for (int i = 0; i < bytes; i++)
		v = (v << 8) | p[i];
	if (bytes == 4)
		return (int32_t)(uint32_t)v;
	return (int64_t)v;
}

/* The counts of a header at r->at: isut, isstd, leap, time, type, char. */
static int zone_header(struct zone_reader *r, uint32_t c[6], char *version)
{
	if (r->len - r->at < 44 || memcmp(r->p + r->at, "TZif", 4) != 0)
		return -1;
	*version = (char)r->p[r->at + 4];
	for (int i = 0; i < 6; i++)
		c[i] = (uint32_t)be(r->p + r->at + 20 + 4 * i, 4) & 0xffffffffu;
	r->at += 44;
	if (c[3] > ZONE_TRANSITIONS_MAX || c[4] == 0 || c[4] > 256 || c[2] > 10000)
		return -1;
	return 0;
}

static size_t zone_block(const uint32_t c[6], int tb)
{
	return (size_t)c[3] * (size_t)tb + c[3] + (size_t)c[4] * 6 + c[5] +
	       (size_t)c[2] * (size_t)(tb + 4) + c[1] + c[0];
}

static int zone_data(struct page_zone *z, struct zone_reader *r, const uint32_t c[6], int tb)
{
	const unsigned char *p = r->p + r->at;

	if (r->len - r->at < zone_block(c, tb))
		return -1;
	z->n = c[3];
	z->ntypes = c[4];
	z->at = xcalloc(z->n + 1, sizeof *z->at);
	z->type = xcalloc(z->n + 1, 1);
	z->offset = xcalloc(z->ntypes, sizeof *z->offset);
	for (size_t i = 0; i < z->n; i++) {
		z->at[i] = be(p + i * (size_t)tb, tb);
		z->type[i] = p[z->n * (size_t)tb + i];
		if (z->type[i] >= z->ntypes || (i > 0 && z->at[i] <= z->at[i - 1]))
			return -1;
	}
	p += z->n * (size_t)(tb + 1);
	for (size_t i = 0; i < z->ntypes; i++)
		z->offset[i] = (long)be(p + 6 * i, 4);
	r->at += zone_block(c, tb);
	return 0;
}

static void zone_footer(struct page_zone *z, const struct zone_reader *r)
{
	const char *s = (const char *)r->p + r->at, *nl;
	size_t left = r->len - r->at;
	char *text;

	if (left < 2 || s[0] != '\n' || !(nl = memchr(s + 1, '\n', left - 1)) || nl == s + 1)
		return;
	text = xstrndup(s + 1, (size_t)(nl - s - 1));
	z->has_rule = rule_parse(text, &z->rule) == 0;
	free(text);
}

struct page_zone *page_zone_parse(const unsigned char *data, size_t len)
{
	struct zone_reader r = { data, len, 0 };
	struct page_zone *z = xcalloc(1, sizeof *z);
	uint32_t c[6];
	char version;

	if (zone_header(&r, c, &version) != 0)
		goto bad;
	if (version == 0) {
		if (zone_data(z, &r, c, 4) != 0)
			goto bad;
		return z;
	}
	if (r.len - r.at < zone_block(c, 4))
		goto bad;
	r.at += zone_block(c, 4); /* the 32-bit block, for readers older than 1990s */
	if (zone_header(&r, c, &version) != 0 || zone_data(z, &r, c, 8) != 0)
		goto bad;
	zone_footer(z, &r);
	return z;
bad:
	page_zone_free(z);
	return NULL;
}

/* The names booking.c accepts: a relative path of plain characters under the zone directory. */
static int zone_name_ok(const char *name)
{
	return *name && name[0] != '/' && !strstr(name, "..") &&
	       strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/_+-") ==
		       strlen(name);
}

struct page_zone *page_zone_load(const char *name)
{
	const char *dir = getenv("TZDIR");
	struct page_zone *z = NULL;
	unsigned char *data;
	struct stat st;
	char *path;
	int fd;

	if (!name || !zone_name_ok(name))
		return NULL;
	path = xasprintf("%s/%s", dir && *dir ? dir : "/usr/share/zoneinfo", name);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	free(path);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
	    st.st_size <= ZONE_FILE_MAX) {
		data = xmalloc((size_t)st.st_size);
		if (read(fd, data, (size_t)st.st_size) == st.st_size)
			z = page_zone_parse(data, (size_t)st.st_size);
		free(data);
	}
	close(fd);
	return z;
}

long page_zone_offset(const struct page_zone *z, time_t t)
{
	size_t lo = 0, hi;

	if (!z)
		return 0;
	if (z->n == 0)
		return z->has_rule ? rule_offset(&z->rule, t) : z->offset[0];
	if (t < z->at[0])
		return z->offset[0];
	hi = z->n; /* the last transition at or before t is in [lo, hi) */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (z->at[mid] <= t)
			lo = mid;
		else
			hi = mid;
	}
	if (lo == z->n - 1 && z->has_rule)
		return rule_offset(&z->rule, t);
	return z->offset[z->type[lo]];
}

void page_zone_free(struct page_zone *z)
{
	if (!z)
		return;
	free(z->at);
	free(z->type);
	free(z->offset);
	free(z);
}
