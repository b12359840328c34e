/*
 * state_table — prints the front door's transition table as the library
 * answers it (state_allows over every state, state and mover), so the crash
 * and race rounds (tests/crash) check histories against the table itself and
 * never against a copy that could drift:
 *
 *     {"states": [...], "movers": {"close": [["drained", "closed"], ...], ...}}
 *
 * Movers that share a name (the three ways extract moves) are merged: a verb
 * reports its moves under that name.
 */
#include "requests/state.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>

static void add_mover(json_t *movers, enum state_mover by)
{
	const char *name = state_mover_name(by);
	json_t *edges = json_object_get(movers, name);

	if (!edges) {
		edges = json_array();
		json_object_set_new(movers, name, edges);
	}
	for (size_t i = 0; state_all[i]; i++)
		for (size_t j = 0; state_all[j]; j++)
			if (state_allows(state_all[i], state_all[j], by))
				json_array_append_new(edges, json_pack("[s,s]", state_all[i],
								       state_all[j]));
}

int main(void)
{
	json_t *states = json_array(), *movers = json_object(), *out;
	char *text;

	for (size_t i = 0; state_all[i]; i++)
		json_array_append_new(states, json_string(state_all[i]));
	for (size_t k = 0; k < state_nmovers; k++)
		add_mover(movers, state_movers[k]);
	out = json_pack("{s:o,s:o}", "states", states, "movers", movers);
	text = json_dumps(out, JSON_COMPACT);
	if (!text)
		return 1;
	puts(text);
	free(text);
	json_decref(out);
	return 0;
}
