/*
 * sweep_ledger — the booking sweep's memory: HOME_M/requests/bookings.jsonl,
 * one JSON object a line, appended and never rewritten.
 *
 * A line says that one step of one booking was about to happen ("intent"),
 * happened ("done"), did not happen ("failed"), may have happened and will
 * not be repeated ("unconfirmed"), or will never happen ("skipped": a
 * reminder a nearer one replaced):
 *     {"at":"…Z","booking_id":"b1","seq":12,"step":"event","phase":"intent",
 *      "uid":"booking-b1@mecha","start":"…Z","end":"…Z","attendee":"…", …}
 * Replaying the lines gives, per booking id, the last phase of each step
 * ("failed" forgets the step) and the details the event's intent recorded.
 *
 * The whole sweep holds requests/.bookings.lock, so two sweeps never
 * interleave; every line is one write(2) on an O_APPEND descriptor followed
 * by fdatasync before the step it records is taken as settled. A last line
 * without its newline (a crash in the middle of a write) was never settled:
 * it is cut off under the lock. Any other line that does not read is an error
 * naming the line, and the sweep does nothing: a ledger it cannot read could
 * make it do something twice.
 *
 * A dry run reads the file if there is one, creates and locks nothing, and
 * sweep_ledger_add only changes the replayed state in memory.
 *
 * Ownership: struct sweep_ledger owns its path, descriptors and state
 * (sweep_ledger_close). sweep_ledger_booking returns a BORROWED object;
 * sweep_ledger_add steals `extra`.
 */
#ifndef MECHA_FRONTDOOR_SWEEP_LEDGER_H
#define MECHA_FRONTDOOR_SWEEP_LEDGER_H

#include <jansson.h>

struct err;

#define SWEEP_LEDGER_FILE "bookings.jsonl"
#define SWEEP_LEDGER_LOCK ".bookings.lock"

#define LEDGER_INTENT "intent"
#define LEDGER_DONE "done"
#define LEDGER_FAILED "failed"
#define LEDGER_UNCONFIRMED "unconfirmed"
/* A reminder passed over (a nearer one went instead): settled, and never sent. */
#define LEDGER_SKIPPED "skipped"

struct sweep_ledger {
	char *path;
	int lock_fd; /* -1 in a dry run */
	int fd;      /* the O_APPEND descriptor; -1 in a dry run */
	int dry_run;
	json_t *state; /* booking id → {"steps": {step: phase}, the event's details} */
};

/* Locks (unless dry_run) and replays the ledger in dir (the request store's directory). */
int sweep_ledger_open(struct sweep_ledger *l, const char *dir, int dry_run, struct err *e);
void sweep_ledger_close(struct sweep_ledger *l);

/* The last phase of step for booking, or NULL when it has none. */
const char *sweep_ledger_phase(const struct sweep_ledger *l, const char *booking,
			       const char *step);
/* 1 when step is done, or unconfirmed (taken as done, never repeated), or skipped. */
int sweep_ledger_settled(const struct sweep_ledger *l, const char *booking, const char *step);
/* What the ledger knows of booking (the event's details), or NULL. */
json_t *sweep_ledger_booking(const struct sweep_ledger *l, const char *booking);

/*
 * Appends a line (durably) and replays it into the state. extra (stolen; may
 * be NULL) holds the details written on the line and kept for the booking.
 */
int sweep_ledger_add(struct sweep_ledger *l, const char *booking, long long seq,
		     const char *step, const char *phase, json_t *extra, struct err *e);

#endif
