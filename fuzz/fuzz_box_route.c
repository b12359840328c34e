/*
 * fuzz_box_route — the box's route parser (src/box/route.c) on any URI a
 * client can send: it must always fill a route, never read past the bytes,
 * and never leave a long hex run (a token) in the path it gives the log.
 */
#include "box/route.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *uri = malloc(size + 1);
	struct route r;
	size_t run = 0;

	memcpy(uri, data, size);
	uri[size] = '\0';
	route_parse(uri, size, &r);
	for (const char *p = r.log; *p; p++) {
		run = strchr("0123456789abcdefABCDEF", *p) ? run + 1 : 0;
		if (run >= 16)
			abort(); /* a token reached the access log */
	}
	if (r.kind == ROUTE_NONE && (r.handle[0] || r.type[0] || r.arg[0]))
		abort();
	free(uri);
	return 0;
}
