/*
 * tell — one call to the box per decision, through the gate.
 */
#include "drain/tell.h"

#include "base/err.h"
#include "base/jsonio.h"
#include "drain/gate.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#define TELL_TIMEOUT_S 30

int tell_box(void *ctx, const char *booking_id, int cancelled, long long *declined,
	     struct err *e)
{
	json_t *body = json_pack("{s:[s]}", "ids", booking_id), *answer;
	char *text;
	struct gate_request rq = { "POST", "/v1/bookings/decline", NULL, 0,
				   "application/json", GATE_JSON_MAX, TELL_TIMEOUT_S, 0 };
	struct gate_reply reply = GATE_REPLY_INIT;
	struct gate g;
	int rc = -1;

	(void)ctx;
	if (cancelled) /* only then: a box from before it knew the key still takes a decline */
		json_object_set_new(body, "cancelled", json_true());
	text = jsonio_compact(body);
	rq.body = text;
	rq.len = strlen(text);
	*declined = 0;
	if (gate_open(GATE_DRAIN, &g, e) == 0) {
		if (gate_call(&g, &rq, &reply, e) == 0 && (answer = gate_json(&g, &rq, &reply, e))) {
			*declined = json_integer_value(json_object_get(answer, "declined"));
			json_decref(answer);
			rc = 0;
		}
		gate_reply_free(&reply);
		gate_close(&g);
	}
	free(text);
	json_decref(body);
	return rc;
}
