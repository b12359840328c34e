/*
 * fuzz_box_urlencoded — the box's form and query decoder (src/box/urlform.c)
 * on any bytes: it returns an object whose every key and value is valid
 * UTF-8 without NUL, or refuses; it never crashes on a '%' before a
 * multi-byte character (the other box's defect, docs/protocol/box-pages.md §7).
 */
#include "base/text.h"
#include "box/urlform.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_string(const json_t *s)
{
	if (!json_is_string(s) || memchr(json_string_value(s), '\0', json_string_length(s)) ||
	    !text_utf8_valid(json_string_value(s), json_string_length(s)))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *why = NULL;
	json_t *form = urlform_decode((const char *)data, size, &why), *v, *x;
	const char *k;
	size_t i;
	long long n;

	if (!form) {
		if (!why)
			abort();
		return 0;
	}
	json_object_foreach(form, k, v) {
		if (!*k || !text_utf8_valid(k, strlen(k)))
			abort();
		if (json_is_array(v)) {
			if (json_array_size(v) < 2)
				abort();
			json_array_foreach(v, i, x)
				check_string(x);
		} else {
			check_string(v);
		}
	}
	urlform_int(form, "since", -100, 100, 0, &n);
	json_decref(form);
	return 0;
}
