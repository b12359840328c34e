/*
 * ledger — choosing the backend a ledger's name asks for.
 */
#include "box/ledger.h"

#include "base/buf.h"
#include "base/err.h"

#include <stdlib.h>
#include <string.h>

static int is_url(const char *where)
{
	return strncmp(where, "postgresql://", 13) == 0 || strncmp(where, "postgres://", 11) == 0;
}

struct ledger *ledger_open(const char *where, struct err *e)
{
	struct ledger *l;

	l = xcalloc(1, sizeof *l);
	l->ops = is_url(where) ? &ledger_pg_ops : &ledger_sqlite_ops;
	if (l->ops->open(l, where, e) != 0) {
		ledger_close(l);
		return NULL;
	}
	return l;
}

void ledger_close(struct ledger *l)
{
	if (!l)
		return;
	l->ops->close(l);
	free(l);
}

void ledger_key_free(struct ledger_key *k)
{
	free(k->hash);
	free(k->label);
	k->hash = k->label = NULL;
}
