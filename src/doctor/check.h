/*
 * check — what the checks of doctor.c share: the home being examined, its
 * configuration when it loads, and the one way a check reports.
 *
 * Inside src/doctor only. Ownership: struct doctor owns home and cfg.
 */
#ifndef MECHA_DOCTOR_CHECK_H
#define MECHA_DOCTOR_CHECK_H

#include "config/config.h"
#include "doctor/doctor.h"

struct doctor {
	unsigned flags;
	char *home;        /* HOME_M; NULL when neither MECHA_HOME nor HOME is set */
	int home_ok;       /* HOME_M is a directory */
	struct config cfg; /* valid when cfg_ok */
	int cfg_ok;
	struct doctor_report *out;
	const struct sweep_offers *offers; /* borrowed; the sweep's judge, or NULL */
};

/* Adds a line; fix NULL for none. detail is printf-style. */
void doctor_say(struct doctor *d, const char *check, enum doctor_status st, const char *fix,
		const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* doctor_say with the finding as data too: item is stolen (may be NULL). */
void doctor_say_item(struct doctor *d, const char *check, enum doctor_status st, json_t *item,
		     const char *fix, const char *fmt, ...) __attribute__((format(printf, 6, 7)));
/* "not checked: config.toml does not load" for a check that needs it. */
void doctor_skip(struct doctor *d, const char *check);

/* files.c */
void doctor_home(struct doctor *d);
void doctor_permissions(struct doctor *d);
void doctor_stores(struct doctor *d);
void doctor_temps(struct doctor *d);
void doctor_types_cache(struct doctor *d);
/* boards.c */
void doctor_missions(struct doctor *d);
/* remote.c */
void doctor_provider(struct doctor *d);
void doctor_mail(struct doctor *d);
void doctor_calendar(struct doctor *d);
/* The paired box: the gate, each key and its scope, the queue, the types' versions. */
void doctor_box(struct doctor *d);
/* Each booking type's slots: pushed, since the calendar last changed, within the hour and
 * inside their horizon (the box's times follow the calendar: drain/push.h). */
void doctor_slots(struct doctor *d);
/* queue.c */
void doctor_queue(struct doctor *d);

#endif
