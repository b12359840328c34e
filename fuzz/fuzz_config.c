/*
 * fuzz_config — config.toml is a file a person edits by hand and tools
 * rewrite; the parser must refuse garbage with a message, never crash, leak or
 * read past the buffer (libFuzzer hands it exactly `size` bytes, no NUL).
 */
#include "base/err.h"
#include "config/config.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct config c;
	struct err e;

	err_clear(&e);
	if (config_parse((const char *)data, size, "fuzz.toml", &c, &e) == 0) {
		/* Every provider the parser accepted is complete. */
		for (size_t i = 0; i < c.nproviders; i++)
			if (!c.providers[i].name || !c.providers[i].kind)
				__builtin_trap();
		config_free(&c);
	} else if (e.code != ERR_CONFIG || strncmp(e.msg, "fuzz.toml:", 10) != 0) {
		__builtin_trap(); /* every refusal names the file and a line */
	}
	return 0;
}
