/*
 * zone — TZIDs and the person's zone into libical zones. The Windows table is
 * CLDR's windowsZones mapping (territory 001) for the zones Outlook and
 * Exchange write most; a name outside it is refused, not guessed.
 */
#include "calendar/zone.h"

#include "base/buf.h"
#include "base/err.h"
#include "base/fs.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const struct {
	const char *windows, *iana;
} windows_zones[] = {
	{ "Dateline Standard Time", "Etc/GMT+12" },
	{ "UTC-11", "Etc/GMT+11" },
	{ "Hawaiian Standard Time", "Pacific/Honolulu" },
	{ "Alaskan Standard Time", "America/Anchorage" },
	{ "Pacific Standard Time", "America/Los_Angeles" },
	{ "Pacific Standard Time (Mexico)", "America/Tijuana" },
	{ "US Mountain Standard Time", "America/Phoenix" },
	{ "Mountain Standard Time", "America/Denver" },
	{ "Central America Standard Time", "America/Guatemala" },
	{ "Central Standard Time", "America/Chicago" },
	{ "Central Standard Time (Mexico)", "America/Mexico_City" },
	{ "Canada Central Standard Time", "America/Regina" },
	{ "SA Pacific Standard Time", "America/Bogota" },
	{ "Eastern Standard Time", "America/New_York" },
	{ "US Eastern Standard Time", "America/Indiana/Indianapolis" },
	{ "Atlantic Standard Time", "America/Halifax" },
	{ "Venezuela Standard Time", "America/Caracas" },
	{ "Pacific SA Standard Time", "America/Santiago" },
	{ "Newfoundland Standard Time", "America/St_Johns" },
	{ "E. South America Standard Time", "America/Sao_Paulo" },
	{ "Argentina Standard Time", "America/Argentina/Buenos_Aires" },
	{ "SA Eastern Standard Time", "America/Cayenne" },
	{ "UTC", "UTC" },
	{ "GMT Standard Time", "Europe/London" },
	{ "Greenwich Standard Time", "Atlantic/Reykjavik" },
	{ "W. Europe Standard Time", "Europe/Berlin" },
	{ "Central Europe Standard Time", "Europe/Budapest" },
	{ "Romance Standard Time", "Europe/Paris" },
	{ "Central European Standard Time", "Europe/Warsaw" },
	{ "W. Central Africa Standard Time", "Africa/Lagos" },
	{ "GTB Standard Time", "Europe/Bucharest" },
	{ "E. Europe Standard Time", "Europe/Chisinau" },
	{ "FLE Standard Time", "Europe/Kiev" },
	{ "Israel Standard Time", "Asia/Jerusalem" },
	{ "Egypt Standard Time", "Africa/Cairo" },
	{ "South Africa Standard Time", "Africa/Johannesburg" },
	{ "Turkey Standard Time", "Europe/Istanbul" },
	{ "Russian Standard Time", "Europe/Moscow" },
	{ "Arabic Standard Time", "Asia/Baghdad" },
	{ "Arab Standard Time", "Asia/Riyadh" },
	{ "E. Africa Standard Time", "Africa/Nairobi" },
	{ "Iran Standard Time", "Asia/Tehran" },
	{ "Arabian Standard Time", "Asia/Dubai" },
	{ "Pakistan Standard Time", "Asia/Karachi" },
	{ "India Standard Time", "Asia/Kolkata" },
	{ "Nepal Standard Time", "Asia/Kathmandu" },
	{ "Bangladesh Standard Time", "Asia/Dhaka" },
	{ "SE Asia Standard Time", "Asia/Bangkok" },
	{ "China Standard Time", "Asia/Shanghai" },
	{ "Singapore Standard Time", "Asia/Singapore" },
	{ "Taipei Standard Time", "Asia/Taipei" },
	{ "W. Australia Standard Time", "Australia/Perth" },
	{ "Tokyo Standard Time", "Asia/Tokyo" },
	{ "Korea Standard Time", "Asia/Seoul" },
	{ "Cen. Australia Standard Time", "Australia/Adelaide" },
	{ "AUS Central Standard Time", "Australia/Darwin" },
	{ "E. Australia Standard Time", "Australia/Brisbane" },
	{ "AUS Eastern Standard Time", "Australia/Sydney" },
	{ "Tasmania Standard Time", "Australia/Hobart" },
	{ "New Zealand Standard Time", "Pacific/Auckland" },
	{ "Tonga Standard Time", "Pacific/Tongatapu" },
};

/*
 * libical looks a name up as a file under the zoneinfo directory, and a TZID
 * comes from whoever wrote the file: only names shaped like zone names reach it.
 */
static int zone_name_shaped(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n >= ZONE_NAME_MAX || s[0] == '/' || strstr(s, ".."))
		return 0;
	return strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_+-/") == n;
}

static icaltimezone *builtin(const char *name)
{
	return zone_name_shaped(name) ? icaltimezone_get_builtin_timezone(name) : NULL;
}

/* The IANA name a Windows zone name maps to; NULL when the table lacks it. */
static const char *zone_windows_to_iana(const char *windows)
{
	for (size_t i = 0; i < sizeof windows_zones / sizeof windows_zones[0]; i++)
		if (strcmp(windows, windows_zones[i].windows) == 0)
			return windows_zones[i].iana;
	return NULL;
}

/* A VTIMEZONE with no STANDARD or DAYLIGHT would convert at offset zero: a wrong answer. */
static int has_observance(icaltimezone *z)
{
	icalcomponent *c = icaltimezone_get_component(z);

	return c && (icalcomponent_get_first_component(c, ICAL_XSTANDARD_COMPONENT) ||
		     icalcomponent_get_first_component(c, ICAL_XDAYLIGHT_COMPONENT));
}

/* ---- the cache of a reading's VTIMEZONEs --------------------------------------- */

struct zone_entry {
	char *text;          /* the VTIMEZONE as libical writes it back: the key */
	icaltimezone *zone;  /* ours, made from a copy of that VTIMEZONE */
	icaltimezone *seen;  /* the current file's zone of this text, when met … */
	unsigned long file;  /* … in this file */
};

/* A VTIMEZONE's bytes and the zone they make (NULL: none); a reading meets a few. */
struct zone_text {
	char *text;
	size_t len;
	icaltimezone *zone; /* ours, made from the bytes parsed alone */
};

/* A zone the current file's calendar cal held, taken out of its text. */
struct zone_placed {
	icalcomponent *cal;
	icaltimezone *zone;
};

struct zone_cache {
	struct zone_entry *v;
	size_t n, cap;
	unsigned long file; /* which file is being read, counted from 1 */
	struct zone_text *t;
	size_t nt, tcap;
	struct zone_placed *p; /* the current file's */
	size_t np, pcap;
};

struct zone_cache *zone_cache_new(void)
{
	struct zone_cache *cache = xmalloc(sizeof *cache);

	memset(cache, 0, sizeof *cache);
	return cache;
}

void zone_cache_free(struct zone_cache *cache)
{
	if (!cache)
		return;
	for (size_t i = 0; i < cache->n; i++) {
		icaltimezone_free(cache->v[i].zone, 1);
		free(cache->v[i].text);
	}
	for (size_t i = 0; i < cache->nt; i++) {
		if (cache->t[i].zone)
			icaltimezone_free(cache->t[i].zone, 1);
		free(cache->t[i].text);
	}
	free(cache->v);
	free(cache->t);
	free(cache->p);
	free(cache);
}

/* A file's zones live as long as its component tree: a pointer is worth nothing in the next file. */
void zone_cache_next_file(struct zone_cache *cache)
{
	cache->file++;
	cache->np = 0;
}

icaltimezone *zone_cache_text(struct zone_cache *cache, const char *text, size_t len, int *known)
{
	for (size_t i = 0; i < cache->nt; i++) {
		const struct zone_text *t = &cache->t[i];
		if (t->len == len && memcmp(t->text, text, len) == 0) {
			*known = 1;
			return t->zone;
		}
	}
	*known = 0;
	return NULL;
}

icaltimezone *zone_cache_put_text(struct zone_cache *cache, const char *text, size_t len,
				  icalcomponent *vtimezone)
{
	struct zone_text *t;
	icaltimezone *z = vtimezone ? icaltimezone_new() : NULL;

	if (z && !icaltimezone_set_component(z, vtimezone)) {
		icaltimezone_free(z, 1);
		icalcomponent_free(vtimezone); /* not taken when it has no TZID */
		z = NULL;
	} else if (z && (!icaltimezone_get_tzid(z) || !has_observance(z))) {
		icaltimezone_free(z, 1);
		z = NULL;
	} else if (!z && vtimezone) {
		icalcomponent_free(vtimezone);
	}
	if (cache->nt == cache->tcap) {
		cache->tcap = cache->tcap ? cache->tcap * 2 : 8;
		cache->t = xrealloc(cache->t, cache->tcap * sizeof *cache->t);
	}
	t = &cache->t[cache->nt++];
	t->text = xmalloc(len ? len : 1);
	memcpy(t->text, text, len);
	t->len = len;
	t->zone = z;
	return z;
}

void zone_cache_place(struct zone_cache *cache, icalcomponent *cal, icaltimezone *zone)
{
	if (cache->np == cache->pcap) {
		cache->pcap = cache->pcap ? cache->pcap * 2 : 8;
		cache->p = xrealloc(cache->p, cache->pcap * sizeof *cache->p);
	}
	cache->p[cache->np].cal = cal;
	cache->p[cache->np++].zone = zone;
}

/* The zone tzid names among those taken out of c's text; NULL when none. */
static icaltimezone *placed(const struct zone_cache *cache, icalcomponent *c, const char *tzid)
{
	for (size_t i = 0; i < cache->np; i++) {
		const char *name;
		if (cache->p[i].cal != c)
			continue;
		name = icaltimezone_get_tzid(cache->p[i].zone);
		if (name && strcmp(name, tzid) == 0)
			return cache->p[i].zone;
	}
	return NULL;
}

/* The cache's zone for the file's zone z (one with observances); z itself when it cannot copy it. */
static icaltimezone *intern(struct zone_cache *cache, icaltimezone *z)
{
	icalcomponent *c = icaltimezone_get_component(z);
	struct zone_entry *e;
	char *text;

	for (size_t i = 0; i < cache->n; i++)
		if (cache->v[i].seen == z && cache->v[i].file == cache->file)
			return cache->v[i].zone;
	if (!c || !(text = icalcomponent_as_ical_string_r(c)))
		return z;
	for (size_t i = 0; i < cache->n; i++) {
		e = &cache->v[i];
		if (strcmp(e->text, text) == 0) {
			icalmemory_free_buffer(text);
			e->seen = z;
			e->file = cache->file;
			return e->zone;
		}
	}
	if (cache->n == cache->cap) {
		cache->cap = cache->cap ? cache->cap * 2 : 8;
		cache->v = xrealloc(cache->v, cache->cap * sizeof *cache->v);
	}
	e = &cache->v[cache->n];
	e->zone = icaltimezone_new();
	if (!e->zone || !icaltimezone_set_component(e->zone, icalcomponent_new_clone(c))) {
		if (e->zone)
			icaltimezone_free(e->zone, 1);
		icalmemory_free_buffer(text);
		return z;
	}
	e->text = xstrdup(text);
	icalmemory_free_buffer(text);
	e->seen = z;
	e->file = cache->file;
	cache->n++;
	return e->zone;
}

icaltimezone *zone_for_tzid(icalcomponent *c, const char *tzid)
{
	return zone_for_tzid_cached(c, tzid, NULL);
}

icaltimezone *zone_for_tzid_cached(icalcomponent *c, const char *tzid, struct zone_cache *cache)
{
	icaltimezone *z = NULL;
	const char *iana;

	for (; c && !z; c = icalcomponent_get_parent(c)) {
		z = icalcomponent_get_timezone(c, tzid);
		if (z && !has_observance(z))
			z = NULL;
		if (!z && cache && cache->np && (z = placed(cache, c, tzid)))
			return z; /* the cache's own already */
	}
	if (z && cache)
		return intern(cache, z);
	if (!z)
		z = builtin(tzid);
	if (!z && (iana = zone_windows_to_iana(tzid)))
		z = builtin(iana);
	/* RFC 5545's globally unique TZIDs: "/mozilla.org/20050126_1/Europe/Berlin". */
	for (const char *p = tzid; !z && tzid[0] == '/' && (p = strchr(p + 1, '/'));)
		z = builtin(p + 1);
	return z;
}

/* "/usr/share/zoneinfo/Europe/Berlin" and ":Europe/Berlin" → "Europe/Berlin". */
static void zone_from_path(const char *s, char out[ZONE_NAME_MAX])
{
	const char *at = strstr(s, "zoneinfo/");

	if (*s == ':')
		s++;
	if (at)
		s = at + strlen("zoneinfo/");
	snprintf(out, ZONE_NAME_MAX, "%s", *s ? s : "UTC");
}

static int etc_timezone(char out[ZONE_NAME_MAX], struct err *e)
{
	char *text;
	size_t len;

	if (fs_read("/etc/timezone", &text, &len, e) != 0)
		return err_set(e, ERR_CONFIG, "cannot tell the system's time zone; set [calendar] "
				"timezone (an IANA name such as Europe/Berlin)");
	text[strcspn(text, " \t\r\n")] = '\0';
	zone_from_path(text, out);
	free(text);
	return 0;
}

/* Where the system keeps its zone, as glibc reads it; *how says which, for errors. */
static int system_zone(char out[ZONE_NAME_MAX], const char **how, struct err *e)
{
	const char *tz = getenv("TZ");
	char link[PATH_MAX];
	ssize_t n;

	if (tz) {
		*how = "TZ";
		zone_from_path(tz, out);
		return 0;
	}
	*how = "/etc/localtime";
	n = readlink("/etc/localtime", link, sizeof link - 1);
	if (n > 0) {
		link[n] = '\0';
		zone_from_path(link, out);
		return 0;
	}
	if (errno == ENOENT) {
		snprintf(out, ZONE_NAME_MAX, "UTC");
		return 0;
	}
	*how = "/etc/timezone";
	return etc_timezone(out, e);
}

icaltimezone *zone_local(const char *configured, char name[ZONE_NAME_MAX], struct err *e)
{
	const char *how = "[calendar] timezone";
	icaltimezone *z;

	if (configured && *configured)
		snprintf(name, ZONE_NAME_MAX, "%s", configured);
	else if (system_zone(name, &how, e) != 0)
		return NULL;
	z = builtin(name);
	if (!z)
		err_set(e, ERR_CONFIG, "%s names \"%.100s\", which is not a time zone this system "
			"knows; set [calendar] timezone to an IANA name such as Europe/Berlin", how,
			configured && *configured ? configured : name);
	return z;
}
