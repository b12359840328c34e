/*
 * push — a manifest and a booking type's slots, checked at home and PUT.
 */
#include "drain/push.h"

#include "base/buf.h"
#include "base/err.h"
#include "base/fs.h"
#include "base/jsonio.h"
#include "drain/gate.h"
#include "drain/offered.h"
#include "drain/slots.h"
#include "types/catalog.h"
#include "types/manifest.h"

#include <stdlib.h>
#include <string.h>

#define PUSH_TIMEOUT_S 60

/* PUT body to path with key which; the box's JSON answer (NEW), or NULL with e. */
static json_t *put(struct gate *g, const char *path, const char *body, size_t len,
		   const char *content_type, struct err *e)
{
	struct gate_request rq = { "PUT", path, body, len, content_type, GATE_JSON_MAX,
				   PUSH_TIMEOUT_S, 0 };
	struct gate_reply reply = GATE_REPLY_INIT;
	json_t *answer = NULL;

	if (gate_call(g, &rq, &reply, e) == 0)
		answer = gate_json(g, &rq, &reply, e);
	gate_reply_free(&reply);
	return answer;
}

int push_type(const char *id, json_t **answer, struct err *e)
{
	struct manifest *m = NULL;
	char *path = NULL, *text = NULL, *route;
	struct gate g;
	size_t len;

	*answer = NULL;
	if (catalog_load(id, &m, NULL, e) != 0 || !(path = catalog_path(id, e)) ||
	    fs_read(path, &text, &len, e) != 0 || gate_open(GATE_RELEASE, &g, e) != 0)
		goto out;
	route = xasprintf("/v1/types/%s", m->id);
	*answer = put(&g, route, text, len, "application/toml", e);
	free(route);
	gate_close(&g);
out:
	manifest_free(m);
	free(path);
	free(text);
	return *answer ? 0 : -1;
}

/* What the box took, kept at home for the sweep (offered.h). */
static int remember(const struct slots *s, struct err *e)
{
	struct manifest *m = NULL;
	int rc = catalog_load(s->type, &m, NULL, e) == 0 ? offered_save(m, s, e) : -1;

	manifest_free(m);
	if (rc != 0)
		err_prefix(e, "the box took the slots, but home could not keep what it offered "
			   "(the sweep books only those; push again)");
	return rc;
}

int push_slots(const char *id, const char *from, int dry_run, struct push_slots *out,
	       struct err *e)
{
	struct slots s;
	struct gate g;
	char *body, *route;
	int rc = 0;

	memset(out, 0, sizeof *out);
	if (slots_of_type(id, from, &s, e) != 0)
		return -1;
	if (gate_open(GATE_SLOTS, &g, e) != 0) {
		slots_free(&s);
		return -1;
	}
	out->gate = xstrdup(g.url);
	out->n = s.n;
	out->dropped = s.dropped;
	out->body = slots_json(&s);
	if (!dry_run) {
		body = jsonio_compact(out->body);
		route = xasprintf("/v1/instruments/%s/slots", s.type);
		out->answer = put(&g, route, body, strlen(body), "application/json", e);
		rc = out->answer ? 0 : -1;
		if (rc == 0)
			rc = remember(&s, e);
		free(route);
		free(body);
	}
	gate_close(&g);
	slots_free(&s);
	return rc;
}

void push_slots_free(struct push_slots *p)
{
	free(p->gate);
	json_decref(p->body);
	json_decref(p->answer);
	memset(p, 0, sizeof *p);
}
