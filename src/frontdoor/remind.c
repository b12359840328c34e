/*
 * remind — which tier of a booking's reminders is due, and its one mail,
 * written to the ledger before and after it goes.
 */
#include "frontdoor/remind.h"

#include "base/buf.h"
#include "base/err.h"
#include "base/jsonio.h"
#include "base/killpoint.h"
#include "base/rfc3339.h"
#include "calendar/calendar.h"
#include "config/config.h"
#include "frontdoor/sweep_ledger.h"
#include "outbox/invite.h"
#include "outbox/mail.h"
#include "types/booking.h"
#include "types/catalog.h"
#include "types/manifest.h"

#include <stdlib.h>
#include <string.h>

static const char unconfirmed_warning[] =
	"a sweep was interrupted while sending this reminder; it was not sent again, so check "
	"that it arrived";
static const char unconfirmed_by_server[] =
	"the mail server took this reminder but never confirmed it; it was not sent again, so "
	"check that it arrived";

int remind_tier_due(long long minutes, time_t start, time_t made, time_t now)
{
	long long lead = minutes * 60;

	return now < start && (long long)(start - now) <= lead && (long long)(start - made) > lead;
}

struct tier {
	long long minutes;
	char spelled[REMIND_TIER_MAX];
};

/* What the type says: its tiers (nearest first, each once), its location, its zone. */
struct look {
	struct tier *tiers;
	size_t n;
	char *place; /* owned; NULL */
	char *zone;  /* owned; NULL: UTC */
};

static void look_free(struct look *k)
{
	free(k->tiers);
	free(k->place);
	free(k->zone);
	memset(k, 0, sizeof *k);
}

static int nearer(const void *a, const void *b)
{
	const struct tier *x = a, *y = b;

	return (x->minutes > y->minutes) - (x->minutes < y->minutes);
}

static void add_tier(struct look *k, const char *spec)
{
	long long m = booking_reminder_minutes(spec);
	size_t off = strspn(spec, " \t");

	if (m < 0) /* the manifest check refuses these; a type edited by hand may hold one */
		return;
	for (size_t i = 0; i < k->n; i++)
		if (k->tiers[i].minutes == m)
			return;
	k->tiers[k->n].minutes = m;
	snprintf(k->tiers[k->n].spelled, sizeof k->tiers[k->n].spelled, "%.*s",
		 (int)strcspn(spec + off, " \t"), spec + off);
	k->n++;
}

/*
 * The booking's type, read now (a type that is gone or does not check gives
 * the default tiers and no location); the zone only when the ledger has none.
 */
static void look_up(const struct config *cfg, const char *type_id, int want_zone, struct look *k)
{
	static const char *const defaults[] = { "24h", "1h" };
	struct manifest *m = NULL;
	const char *const *spec = defaults;
	size_t n = 2;
	struct err e;

	if (catalog_load(type_id, &m, NULL, &e) != 0)
		m = NULL;
	if (m && m->policy) {
		spec = (const char *const *)m->policy->reminders;
		n = m->policy->nreminders;
		if (m->policy->location)
			k->place = xstrdup(m->policy->location);
	}
	k->tiers = xcalloc(n ? n : 1, sizeof *k->tiers);
	for (size_t i = 0; i < n; i++)
		add_tier(k, spec[i]);
	qsort(k->tiers, k->n, sizeof *k->tiers, nearer);
	if (want_zone) {
		const char *z = m && m->availability && m->availability->timezone &&
					*m->availability->timezone
				? m->availability->timezone : cfg->calendar_timezone;
		k->zone = z && *z ? xstrdup(z) : NULL;
	}
	manifest_free(m);
}

static void step_name(char out[32], long long minutes)
{
	snprintf(out, 32, "remind_%lldm", minutes);
}

/* The event as the ledger recorded it: 1 with the slot, 0 when it has none that reads. */
static int event_of(const json_t *info, time_t *start, time_t *end)
{
	return info && jsonio_str(info, "uid") && jsonio_str(info, "attendee") &&
	       jsonio_str(info, "summary") &&
	       rfc3339_parse(jsonio_str_or(info, "start", ""), start) == 0 &&
	       rfc3339_parse(jsonio_str_or(info, "end", ""), end) == 0;
}

static int send_reminder(const struct remind_run *run, const struct remind_target *t,
			 const json_t *info, const struct look *k, const struct remind_result *res,
			 struct err *e)
{
	const char *zone = json_is_null(json_object_get(info, "zone")) ? NULL
			   : jsonio_str(info, "zone") ? jsonio_str(info, "zone") : k->zone;
	struct calendar_event ev = { jsonio_str(info, "uid"), jsonio_str(info, "summary"), NULL,
				     NULL, jsonio_str(info, "attendee"), res->start, res->end, 0 };
	char *mid = xasprintf("booking-%s-remind-%lldm", t->booking_id, res->minutes);
	struct invite_letter l = { &ev, CALENDAR_ITIP_REQUEST, mid, jsonio_str(info, "link"),
				   zone };
	struct mail_message msg;
	int rc = -1;

	if (invite_reminder_message(run->cfg, &l, k->place, &msg, e) == 0) {
		rc = mail_deliver(run->cfg, &msg, e);
		mail_message_free(&msg);
	}
	free(mid);
	return rc;
}

/* intent → send → done (1), or failed (-1); an intent found alone is unconfirmed (1). */
static int remind_step(const struct remind_run *run, const struct remind_target *t,
		       const json_t *info, const struct look *k, struct remind_result *res,
		       struct err *e)
{
	struct sweep_ledger *l = run->ledger;
	const char *id = t->booking_id, *phase;
	char step[32];
	struct err why;
	int rc;

	step_name(step, res->minutes);
	phase = sweep_ledger_phase(l, id, step);
	if (phase && strcmp(phase, LEDGER_INTENT) == 0) {
		res->warning = unconfirmed_warning;
		return sweep_ledger_add(l, id, t->seq, step, LEDGER_UNCONFIRMED, NULL, e) == 0 ? 1
											    : -1;
	}
	if (run->dry_run)
		return 1;
	killpoint("remind");
	if (sweep_ledger_add(l, id, t->seq, step, LEDGER_INTENT, NULL, e) != 0)
		return -1;
	rc = send_reminder(run, t, info, k, res, e);
	if (rc != 0 && e->code == ERR_DELIVERY_UNCONFIRMED) {
		res->warning = unconfirmed_by_server;
		return sweep_ledger_add(l, id, t->seq, step, LEDGER_UNCONFIRMED, NULL, e) == 0 ? 1
											    : -1;
	}
	if (rc != 0) {
		if (sweep_ledger_add(l, id, t->seq, step, LEDGER_FAILED, NULL, &why) != 0)
			err_prefix(e, "(and recording that failed: %s)", why.msg);
		return -1;
	}
	killpoint("remind-sent");
	return sweep_ledger_add(l, id, t->seq, step, LEDGER_DONE, NULL, e) == 0 ? 1 : -1;
}

/* The farther tiers due as well, not yet settled: passed over for good. */
static int skip_farther(const struct remind_run *run, const struct remind_target *t,
			const struct look *k, size_t nearest, time_t start,
			struct remind_result *res, struct err *e)
{
	char step[32];

	for (size_t i = nearest + 1; i < k->n; i++) {
		step_name(step, k->tiers[i].minutes);
		if (!remind_tier_due(k->tiers[i].minutes, start, t->made, run->now) ||
		    sweep_ledger_settled(run->ledger, t->booking_id, step))
			continue;
		res->skipped++;
		if (!run->dry_run && sweep_ledger_add(run->ledger, t->booking_id, t->seq, step,
						      LEDGER_SKIPPED, NULL, e) != 0)
			return -1;
	}
	return 0;
}

int remind_booking(const struct remind_run *run, const struct remind_target *t,
		   struct remind_result *res, struct err *e)
{
	const json_t *info = sweep_ledger_booking(run->ledger, t->booking_id);
	struct look k = { 0 };
	size_t nearest;
	char step[32];
	int rc = 0;

	memset(res, 0, sizeof *res);
	if (!event_of(info, &res->start, &res->end) || res->start <= run->now)
		return 0; /* no event to remind of, or it has begun */
	look_up(run->cfg, t->type_id, !json_object_get(info, "zone"), &k);
	for (nearest = 0; nearest < k.n; nearest++)
		if (remind_tier_due(k.tiers[nearest].minutes, res->start, t->made, run->now))
			break;
	if (nearest == k.n)
		goto out;
	res->minutes = k.tiers[nearest].minutes;
	snprintf(res->tier, sizeof res->tier, "%s", k.tiers[nearest].spelled);
	res->attendee = jsonio_str(info, "attendee");
	step_name(step, res->minutes);
	if (!sweep_ledger_settled(run->ledger, t->booking_id, step))
		rc = remind_step(run, t, info, &k, res, e);
	if (rc >= 0 && skip_farther(run, t, &k, nearest, res->start, res, e) != 0)
		rc = -1;
out:
	look_free(&k);
	return rc;
}
