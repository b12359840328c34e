/*
 * event — the events mecha writes into the person's calendar, and the iTIP
 * text of their invitations.
 *
 * The rule: never lose what the person's calendar already holds. A vdir gets
 * one new file per event (named from the UID, replaced atomically, 0600), so
 * nothing else is touched. A single-file calendar is changed as text under
 * <file>.lock — the VEVENT inserted before the last END:VCALENDAR, or the
 * VEVENTs with one UID cut out — so every other byte stays as the person's
 * tools wrote it; a file the reader cannot read is refused, never rewritten,
 * and the result must read back before it replaces the old one.
 */
#include "calendar/calendar.h"

#include "base/buf.h"
#include "base/dl.h"
#include "base/err.h"
#include "base/fs.h"
#include "base/hash.h"
#include "base/lock.h"
#include "base/text.h"
#include "calendar/reader.h"
#include "calendar/source.h"
#include "config/config.h"

#include <libical/ical.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define EVENT_PRODID "-//mecha//mecha calendar//EN"
#define EVENT_ADDRESS_MAX 254

/* ---- checking what is written ------------------------------------------------ */

static int check_address(const char *what, const char *a, struct err *e)
{
	size_t n = a ? strlen(a) : 0;

	if (n == 0 || n > EVENT_ADDRESS_MAX || !strchr(a, '@') ||
	    strcspn(a, " \t\r\n<>\"(),;:\\") != n || text_has_control(a, n))
		return err_set(e, ERR_BAD_ARGUMENTS, "the %s \"%.100s\" is not a mail address", what,
			       a ? a : "");
	return 0;
}

/* Text in a property: UTF-8 with no control characters but newlines and tabs. */
static int check_text(const char *what, const char *s, struct err *e)
{
	size_t n = s ? strlen(s) : 0;

	for (size_t i = 0; i < n; i++)
		if (((unsigned char)s[i] < 0x20 && s[i] != '\n' && s[i] != '\t') || s[i] == 0x7f)
			return err_set(e, ERR_BAD_ARGUMENTS, "the %s holds a control character", what);
	if (s && !text_utf8_valid(s, n))
		return err_set(e, ERR_BAD_ARGUMENTS, "the %s is not UTF-8 text", what);
	return 0;
}

/* A UID goes into a file name and a content line: printable ASCII, no spaces. */
static int check_uid(const char *uid, struct err *e)
{
	size_t n = strlen(uid);

	if (n == 0 || n >= CALENDAR_UID_MAX)
		return err_set(e, ERR_BAD_ARGUMENTS, "an event UID has 1 to %d characters",
			       CALENDAR_UID_MAX - 1);
	for (size_t i = 0; i < n; i++)
		if (uid[i] <= 0x20 || uid[i] >= 0x7f)
			return err_set(e, ERR_BAD_ARGUMENTS, "an event UID is printable ASCII "
					"without spaces");
	return 0;
}

static int check_event(const struct calendar_event *ev, struct err *e)
{
	if (ev->end <= ev->start || ev->start <= 0)
		return err_set(e, ERR_BAD_ARGUMENTS, "an event ends after it starts");
	if (ev->sequence < 0)
		return err_set(e, ERR_BAD_ARGUMENTS, "an event's SEQUENCE is not negative");
	if (ev->uid && *ev->uid && check_uid(ev->uid, e) != 0)
		return -1;
	if (check_address("attendee", ev->attendee, e) != 0 ||
	    (ev->organizer && check_address("organizer", ev->organizer, e) != 0))
		return -1;
	return check_text("summary", ev->summary, e) || check_text("description", ev->description, e)
		       ? -1
		       : 0;
}

/* "Me <me@example.org>" or "me@example.org" from [mail] from. */
static int organizer_of(const struct config *cfg, const struct calendar_event *ev,
			char out[EVENT_ADDRESS_MAX + 1], struct err *e)
{
	const char *from = ev->organizer ? ev->organizer : cfg->mail_from;
	const char *lt = from ? strrchr(from, '<') : NULL;
	size_t n;

	if (!from || !*from)
		return err_set(e, ERR_CONFIG, "[mail] from is not set; an event's ORGANIZER is that "
				"address");
	if (lt)
		from = lt + 1;
	n = strcspn(from, ">");
	if (n > EVENT_ADDRESS_MAX)
		n = EVENT_ADDRESS_MAX;
	memcpy(out, from, n);
	out[n] = '\0';
	return check_address("organizer ([mail] from)", out, e);
}

static int pick_uid(const struct calendar_event *ev, char uid[CALENDAR_UID_MAX], struct err *e)
{
	char hex[33];

	if (ev->uid && *ev->uid) {
		snprintf(uid, CALENDAR_UID_MAX, "%s", ev->uid);
		return 0;
	}
	if (hash_random_hex(hex, 32, e) != 0)
		return -1;
	snprintf(uid, CALENDAR_UID_MAX, "%s@mecha", hex);
	return 0;
}

/* ---- building the iCalendar text --------------------------------------------- */

static icalproperty *address_property(icalproperty *p, int attendee)
{
	if (attendee) {
		icalproperty_add_parameter(p, icalparameter_new_role(ICAL_ROLE_REQPARTICIPANT));
		icalproperty_add_parameter(p, icalparameter_new_partstat(ICAL_PARTSTAT_NEEDSACTION));
		icalproperty_add_parameter(p, icalparameter_new_rsvp(ICAL_RSVP_TRUE));
	}
	return p;
}

static struct icaltimetype utc_time(time_t t)
{
	return icaltime_from_timet_with_zone(t, 0, icaltimezone_get_utc_timezone());
}

/* A new VEVENT (the caller frees it, or hands it to calendar_text). */
static icalcomponent *vevent_new(const struct calendar_event *ev, const char *uid,
				 const char *organizer, int sequence, int cancelled)
{
	icalcomponent *c = icalcomponent_new_vevent();
	char *org = xasprintf("mailto:%s", organizer), *att = xasprintf("mailto:%s", ev->attendee);

	icalcomponent_add_property(c, icalproperty_new_uid(uid));
	icalcomponent_add_property(c, icalproperty_new_dtstamp(utc_time(time(NULL))));
	icalcomponent_add_property(c, icalproperty_new_sequence(sequence));
	icalcomponent_add_property(c, address_property(icalproperty_new_organizer(org), 0));
	icalcomponent_add_property(c, address_property(icalproperty_new_attendee(att), 1));
	if (ev->summary)
		icalcomponent_add_property(c, icalproperty_new_summary(ev->summary));
	if (ev->description)
		icalcomponent_add_property(c, icalproperty_new_description(ev->description));
	icalcomponent_add_property(c, icalproperty_new_dtstart(utc_time(ev->start)));
	icalcomponent_add_property(c, icalproperty_new_dtend(utc_time(ev->end)));
	if (cancelled)
		icalcomponent_add_property(c, icalproperty_new_status(ICAL_STATUS_CANCELLED));
	free(org);
	free(att);
	return c;
}

/* libical's serialisation (CRLF, folded at 75 octets) as a malloc'd string. */
static char *component_text(icalcomponent *c)
{
	char *s = icalcomponent_as_ical_string_r(c);
	char *out = xstrdup(s ? s : "");

	icalmemory_free_buffer(s);
	return out;
}

/* A whole VCALENDAR around vevent (consumed); method 0 for a stored calendar object. */
static char *calendar_text(icalcomponent *vevent, icalproperty_method method)
{
	icalcomponent *cal = icalcomponent_new_vcalendar();
	char *out;

	icalcomponent_add_property(cal, icalproperty_new_prodid(EVENT_PRODID));
	icalcomponent_add_property(cal, icalproperty_new_version("2.0"));
	if (method != ICAL_METHOD_NONE)
		icalcomponent_add_property(cal, icalproperty_new_method(method));
	icalcomponent_add_component(cal, vevent);
	out = component_text(cal);
	icalcomponent_free(cal);
	return out;
}

int calendar_itip(const struct calendar_event *ev, enum calendar_itip_method method, char **text,
		  struct err *e)
{
	int cancel = method == CALENDAR_ITIP_CANCEL;

	*text = NULL;
	if (!ev->uid || !*ev->uid || !ev->organizer)
		return err_set(e, ERR_BAD_ARGUMENTS, "an invitation needs the event's UID and organizer");
	if (check_event(ev, e) != 0 || dl_require(DL_ICAL, e) != 0)
		return -1;
	*text = calendar_text(vevent_new(ev, ev->uid, ev->organizer, ev->sequence + cancel, cancel),
			      cancel ? ICAL_METHOD_CANCEL : ICAL_METHOD_REQUEST);
	return 0;
}

/* ---- a single-file calendar, as text ----------------------------------------- */

static int starts(const char *p, const char *word)
{
	return strncasecmp(p, word, strlen(word)) == 0;
}

/* Where the content line starting at `at` ends, its folded continuations included. */
static size_t logical_end(const char *text, size_t at)
{
	do {
		const char *nl = strchr(text + at, '\n');
		at = nl ? (size_t)(nl - text) + 1 : strlen(text);
	} while (text[at] == ' ' || text[at] == '\t');
	return at;
}

/* 1 when the content line text[at, end) is "UID[;params]:uid". */
static int uid_line_is(const char *text, size_t at, size_t end, const char *uid)
{
	struct buf b = BUF_INIT;
	const char *colon;
	int hit;

	for (size_t i = at; i < end; i++) {
		if (text[i] == '\n')
			i++; /* unfolding drops the line break and the blank after it */
		else if (text[i] != '\r')
			buf_addc(&b, text[i]);
	}
	colon = strchr(buf_str(&b), ':');
	hit = (starts(buf_str(&b), "UID:") || starts(buf_str(&b), "UID;")) && colon &&
	      strcmp(colon + 1, uid) == 0;
	buf_free(&b);
	return hit;
}

/* text without the VEVENTs whose UID is uid; *removed counts them. New string. */
static char *without_uid(const char *text, const char *uid, int *removed)
{
	struct buf out = BUF_INIT;
	size_t at = 0, kept = 0, block = SIZE_MAX;
	int hit = 0;

	*removed = 0;
	while (text[at]) {
		size_t next = logical_end(text, at);
		if (starts(text + at, "BEGIN:VEVENT")) {
			block = at;
			hit = 0;
		} else if (block != SIZE_MAX && starts(text + at, "END:VEVENT")) {
			if (hit) {
				buf_add(&out, text + kept, block - kept);
				kept = next;
				(*removed)++;
			}
			block = SIZE_MAX;
		} else if (block != SIZE_MAX && uid_line_is(text, at, next, uid)) {
			hit = 1;
		}
		at = next;
	}
	buf_add(&out, text + kept, at - kept);
	return buf_steal(&out);
}

/* The offset of the last line that is END:VCALENDAR; SIZE_MAX when none. */
static size_t last_calendar_end(const char *text)
{
	size_t found = SIZE_MAX;

	for (size_t at = 0; text[at]; at = logical_end(text, at))
		if (starts(text + at, "END:VCALENDAR"))
			found = at;
	return found;
}

/* vevent's lines with the file's own line ending. */
static void add_lines(struct buf *out, const char *lines, int crlf)
{
	for (; *lines; lines++)
		if (crlf || *lines != '\r')
			buf_addc(out, *lines);
}

/* text with vevent (CRLF lines) inserted before its last END:VCALENDAR; NULL when it has none. */
static char *with_event(const char *text, const char *vevent, icalcomponent *whole)
{
	size_t at = last_calendar_end(text);
	struct buf out = BUF_INIT;
	const char *nl;

	if (text[strspn(text, " \t\r\n")] == '\0')
		return calendar_text(icalcomponent_new_clone(whole), ICAL_METHOD_NONE);
	if (at == SIZE_MAX)
		return NULL;
	nl = strchr(text + at, '\n');
	buf_add(&out, text, at);
	add_lines(&out, vevent, !nl || (nl > text + at && nl[-1] == '\r'));
	buf_adds(&out, text + at);
	return buf_steal(&out);
}

/* A calendar mecha cannot read is never rewritten: what it holds would be lost. */
static int check_readable(const char *path, const char *text, size_t len, struct err *e)
{
	icalcomponent *root = NULL;
	int rc = strlen(text) != len ? err_set(e, ERR_PARSE, "%s: a NUL byte inside", path)
				      : reader_parse(path, text, &root, e);

	if (root)
		icalcomponent_free(root);
	if (rc != 0)
		err_prefix(e, "not changing a calendar mecha cannot read");
	return rc;
}

/* Reads path for a change (under its lock): a missing file is an empty calendar. */
static int file_read_checked(const char *path, char **text, struct err *e)
{
	size_t len;

	if (fs_read(path, text, &len, e) != 0) {
		*text = NULL;
		if (e->code != ERR_NOT_FOUND)
			return -1;
		*text = xstrdup("");
		return 0;
	}
	if (check_readable(path, *text, len, e) == 0)
		return 0;
	free(*text);
	*text = NULL;
	return -1;
}

/* The changed text must read back before it replaces the file. */
static int file_replace_checked(const char *path, const char *text, struct err *e)
{
	icalcomponent *root;

	if (reader_parse(path, text, &root, e) != 0) {
		err_prefix(e, "internal: the changed calendar does not read back");
		e->code = ERR_INTERNAL;
		return -1;
	}
	if (root)
		icalcomponent_free(root);
	return fs_replace(path, text, strlen(text), e);
}

/* Under <path>.lock: re-read, drop uid's VEVENTs, insert vevent (when given), replace. */
static int file_change(const char *path, const char *uid, icalcomponent *vevent, struct err *e)
{
	char *lock = xasprintf("%s.lock", path), *text = NULL, *cut = NULL, *next = NULL;
	char *lines = vevent ? component_text(vevent) : NULL;
	int fd = lock_acquire(lock, LOCK_EXCLUSIVE, e), removed = 0, rc = -1;

	if (fd < 0 || file_read_checked(path, &text, e) != 0)
		goto out;
	cut = without_uid(text, uid, &removed);
	next = vevent ? with_event(cut, lines, vevent) : xstrdup(cut);
	if (!vevent && removed == 0)
		err_set(e, ERR_NOT_FOUND, "no event with UID %.100s in %s", uid, path);
	else if (!next)
		err_set(e, ERR_PARSE, "%s has no END:VCALENDAR to add an event before", path);
	else
		rc = file_replace_checked(path, next, e);
out:
	lock_release(fd);
	free(lock);
	free(text);
	free(cut);
	free(next);
	free(lines);
	return rc;
}

/* ---- a vdir ------------------------------------------------------------------- */

/* The UID itself when it makes a plain file name, else its SHA-256 (as vdirsyncer does). */
static char *event_file_name(const char *uid)
{
	static const char safe[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-@+";
	char hex[HASH_SHA256_HEX_LEN + 1];
	size_t n = strlen(uid);

	if (n <= 200 && uid[0] != '.' && strspn(uid, safe) == n)
		return xasprintf("%s.ics", uid);
	hash_sha256_hex(uid, n, hex);
	return xasprintf("%s.ics", hex);
}

static int vdir_write(const char *dir, const char *uid, icalcomponent *vevent, struct err *e)
{
	char *name = event_file_name(uid), *path = fs_join(dir, name);
	char *text = calendar_text(icalcomponent_new_clone(vevent), ICAL_METHOD_NONE);
	int rc = fs_replace(path, text, strlen(text), e);

	free(text);
	free(path);
	free(name);
	return rc;
}

struct removal {
	const char *uid;
	int removed;
};

/* A vdir file without the event: deleted when nothing is left in it, else rewritten. */
static int vdir_settle_file(const char *path, const char *cut, struct err *e)
{
	char *dir;
	int rc;

	if (strcasestr(cut, "BEGIN:VEVENT"))
		return file_replace_checked(path, cut, e);
	dir = fs_dirname(path);
	rc = unlink(path) == 0 ? fs_sync_dir(dir, e) : err_errno(e, "removing %s", path);
	free(dir);
	return rc;
}

/* One file of a vdir; only a file that mentions the UID is parsed and changed. */
static int vdir_remove_file(const char *path, void *ctx, struct err *e)
{
	struct removal *rm = ctx;
	char *text, *cut = NULL;
	int removed = 0, rc = 0;
	size_t len;

	if (fs_read(path, &text, &len, e) != 0)
		return -1;
	if (strstr(text, rm->uid)) {
		rc = check_readable(path, text, len, e);
		if (rc == 0)
			cut = without_uid(text, rm->uid, &removed);
		if (removed)
			rc = vdir_settle_file(path, cut, e);
	}
	rm->removed += removed;
	free(cut);
	free(text);
	return rc;
}

/* ---- the API ------------------------------------------------------------------ */

int calendar_event_write(const struct config *cfg, const struct calendar_event *ev,
			 char uid_out[CALENDAR_UID_MAX], struct err *e)
{
	char uid[CALENDAR_UID_MAX], org[EVENT_ADDRESS_MAX + 1], *where = NULL;
	enum source_kind kind;
	struct source s;
	icalcomponent *vevent;
	int rc;

	if (check_event(ev, e) != 0 || organizer_of(cfg, ev, org, e) != 0 || pick_uid(ev, uid, e) != 0)
		return -1;
	source_from_config(cfg, &s);
	if (dl_require(DL_ICAL, e) != 0 || source_target(&s, &where, &kind, e) != 0)
		return -1;
	vevent = vevent_new(ev, uid, org, ev->sequence, 0);
	rc = kind == SOURCE_VDIR ? vdir_write(where, uid, vevent, e)
				 : file_change(where, uid, vevent, e);
	if (rc == 0)
		snprintf(uid_out, CALENDAR_UID_MAX, "%s", uid);
	icalcomponent_free(vevent);
	free(where);
	return rc;
}

int calendar_event_remove(const struct config *cfg, const char *uid, struct err *e)
{
	struct removal rm = { uid, 0 };
	enum source_kind kind;
	struct source s;
	char *where = NULL;
	int rc;

	if (!uid || check_uid(uid, e) != 0)
		return uid ? -1 : err_set(e, ERR_BAD_ARGUMENTS, "no event UID");
	source_from_config(cfg, &s);
	if (dl_require(DL_ICAL, e) != 0 || source_target(&s, &where, &kind, e) != 0)
		return -1;
	if (kind == SOURCE_FILE)
		rc = file_change(where, uid, NULL, e);
	else
		rc = source_each(&s, vdir_remove_file, &rm, e);
	free(where);
	if (rc == 0 && kind == SOURCE_VDIR && rm.removed == 0)
		return err_set(e, ERR_NOT_FOUND, "no event with UID %.100s in the calendar %s", uid,
			       s.path);
	return rc;
}
