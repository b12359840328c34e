/*
 * moves — the person's two moves, each one state_move under the lock.
 */
#include "frontdoor/moves.h"

#include "base/err.h"
#include "base/text.h"
#include "base/verdict.h"
#include "frontdoor/record.h"
#include "frontdoor/state.h"
#include "frontdoor/store.h"

#include <stdio.h>

struct move {
	const char *to;
	const char *note; /* NULL removes the note */
	enum state_mover by;
	struct moves_result *out;
};

static int move_one(struct record *r, void *arg, struct err *e)
{
	struct move *m = arg;

	snprintf(m->out->from, sizeof m->out->from, "%s", record_state(r));
	if (state_move(r, m->to, m->by, e) != 0)
		return -1;
	record_set_note(r, m->note);
	return VERDICT_WRITE;
}

static int apply(struct store *s, long long seq, struct move *m, struct err *e)
{
	m->out->seq = seq;
	m->out->from[0] = '\0';
	m->out->to = m->to;
	return store_update(s, seq, move_one, m, e);
}

int moves_close(struct store *s, long long seq, const char *reason, struct moves_result *out,
		struct err *e)
{
	struct move m = { STATE_CLOSED, reason, MOVER_CLOSE, out };

	if (text_blank(reason))
		return err_set(e, ERR_REASON_REQUIRED,
			       "close needs --reason TEXT: a request that went away without a "
			       "recorded reason is indistinguishable from one that was dropped "
			       "(nothing changed)");
	return apply(s, seq, &m, e);
}

int moves_needs_info(struct store *s, long long seq, const char *note, struct moves_result *out,
		     struct err *e)
{
	struct move m = { STATE_NEEDS_INFO, note, MOVER_NEEDS_INFO, out };

	return apply(s, seq, &m, e);
}
