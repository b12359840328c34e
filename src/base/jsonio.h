/*
 * jsonio — reading and writing JSON files with jansson, the same way everywhere.
 *
 * Documents are parsed with NUL bytes allowed inside strings (a stranger's
 * prose may hold one; the text is kept, and text.h renders it) and written in
 * the pretty form the Rust tools write: two-space indent, keys in insertion
 * order, non-ASCII as raw UTF-8.
 *
 * Ownership: functions returning json_t * return a NEW reference (json_decref
 * it). Functions taking json_t * borrow it. Returned char * are malloc'd.
 * The small getters return BORROWED values valid while the object lives.
 */
#ifndef MECHA_BASE_JSONIO_H
#define MECHA_BASE_JSONIO_H

#include <jansson.h>
#include <stddef.h>

struct err;

/* Parses a whole buffer (any JSON value). The message names `what` (a file name) and the position. */
json_t *jsonio_parse(const char *data, size_t len, const char *what, struct err *e);
/* Reads and parses a file (never through a symlink). */
json_t *jsonio_load(const char *path, struct err *e);

/* The pretty form (2-space indent), with no trailing newline. */
char *jsonio_pretty(const json_t *v);
/* The compact form jansson writes ({"a":1}). */
char *jsonio_compact(const json_t *v);
/* Atomically replaces path with the pretty form of v. */
int jsonio_save(const char *path, const json_t *v, struct err *e);

/* Prints v pretty on f, followed by a newline; on a terminal, non-ASCII is escaped. */
void jsonio_print(FILE *f, const json_t *v);

/*
 * An array printed one element at a time, byte for byte as jsonio_print
 * prints the whole array: a listing streams its items without holding them.
 * begin, then add per element (borrowed), then end (which ends the line).
 */
struct jsonio_array {
	FILE *f;
	size_t n;
	int member; /* the value of an object's member (jsonio_object_array), not the whole print */
};
void jsonio_array_begin(struct jsonio_array *a, FILE *f);
void jsonio_array_add(struct jsonio_array *a, const json_t *v);
void jsonio_array_end(struct jsonio_array *a);

/*
 * An object whose members are arrays, printed the same way, byte for byte as
 * jsonio_print prints the whole object: begin, then for each member
 * jsonio_object_array (key: a literal of plain ASCII) and that array's add and
 * end, then end (which ends the line). A summary of many seqs is printed
 * without holding them as JSON.
 */
struct jsonio_object {
	FILE *f;
	size_t n;
};
void jsonio_object_begin(struct jsonio_object *o, FILE *f);
void jsonio_object_array(struct jsonio_object *o, const char *key, struct jsonio_array *a);
void jsonio_object_end(struct jsonio_object *o);

/*
 * The one failure shape of every --json verb, in mecha and mecha-box alike:
 * {"ok":false,"error":CODE,"message":MSG}, CODE the keyword of code
 * (base/err.h). A message quoting bytes that are not UTF-8 (a file name, a
 * model's words) is rendered safely first, so the document always prints.
 * NULL only when memory ran out.
 */
json_t *jsonio_failure(int code, const char *msg);
/*
 * A JSON string of text that may quote bytes that are not UTF-8 (an error
 * message naming a file, a model's words): the text itself when it is UTF-8,
 * else rendered safely (base/text.h), so it is never dropped. A new reference;
 * NULL only when memory ran out.
 */
json_t *jsonio_text(const char *s);

/* obj[key] when it is a string, else NULL. */
const char *jsonio_str(const json_t *obj, const char *key);
/* obj[key] when it is a string, else def. */
const char *jsonio_str_or(const json_t *obj, const char *key, const char *def);

#endif
