/*
 * urlform — application/x-www-form-urlencoded bytes (a form's body, a URL's
 * query) into a JSON object, parsed strictly in this one place.
 *
 * As docs/protocol/box-pages.md §2 reads them: pairs split on `&`, key and value on the
 * first `=`, `+` is a space, `%XX` a byte, pairs with an empty key skipped.
 * Where this goes further (docs/protocol/box-pages.md §7): a key given several times keeps
 * every value, in order, as an array (a multi_select with three boxes ticked
 * arrives whole); decoding works on bytes and the decoded key and value must
 * be valid UTF-8 without NUL, so `%` before a multi-byte character is just a
 * malformed escape, never a crash.
 *
 * Every cost is linear in the bytes: a key is looked up in jansson's hash,
 * never in a list.
 *
 * Ownership: urlform_decode returns a NEW reference, or NULL with *why (a
 * static string) saying what was wrong.
 */
#ifndef MECHA_BOX_URLFORM_H
#define MECHA_BOX_URLFORM_H

#include <jansson.h>
#include <stddef.h>

/*
 * The most pairs a body or query may hold by default (a repeated key counts
 * each time): far more than any form's fields and choices, few enough that a
 * refused submission stays cheap. box.toml's [limits] form_keys sets it for
 * the bodies strangers send (docs/box.md); past it, the page is 413.
 */
#define URLFORM_KEYS_MAX 16384

/* *why when the bytes hold more than URLFORM_KEYS_MAX pairs: compare the pointer. */
extern const char urlform_too_many[];

/* {"key": "value" | ["v1", "v2", …]}; NULL when the bytes are malformed or too many. */
json_t *urlform_decode(const char *s, size_t len, const char **why);
/* The same with at most max pairs (urlform_too_many past them). */
json_t *urlform_decode_at_most(const char *s, size_t len, size_t max, const char **why);

/* How many pairs s[0..len) holds (empty ones between `&`s not counted), without decoding. */
size_t urlform_count(const char *s, size_t len);

/*
 * form[key] as a whole number in [min, max], or dflt when absent. 0, or -1
 * when the value is not such a number (or the key was given twice).
 */
int urlform_int(const json_t *form, const char *key, long long min, long long max,
		long long dflt, long long *out);

#endif
