/*
 * keys — the one table of what config.toml may say: every key, its table, its
 * type, where it goes in struct config, what its value must mean, and the
 * example and explanation `mecha init` writes for it.
 *
 * Inside src/config only: config.c walks a file against it, template.c writes
 * the commented file from it, so a key added here is both accepted and
 * documented, and one missing here is neither.
 *
 * Ownership: everything here is static.
 */
#ifndef MECHA_CONFIG_KEYS_H
#define MECHA_CONFIG_KEYS_H

#include <stddef.h>

struct buf;

enum config_table {
	T_ROOT, T_PROVIDER, T_OUTBOX, T_MAIL, T_CALENDAR, T_MISSIONS, T_FRONTDOOR, T_NOTIFY, T_COUNT
};

enum config_vtype { V_STR, V_INT, V_ARR };

#define CONFIG_NO_LINE ((size_t)-1)

struct config_key {
	enum config_table tab;
	const char *name;
	enum config_vtype type;
	size_t off;       /* into struct config, or struct config_provider for T_PROVIDER */
	size_t count_off; /* V_ARR: where the array's length goes */
	size_t line_off;  /* where the line it is written on goes (an int), or CONFIG_NO_LINE */
	/*
	 * What a string value (or each string of an array) must mean; NULL: any
	 * string. 0, or -1 with the reason appended to why (no file, no line).
	 */
	int (*meaning)(const char *value, struct buf *why);
	const char *example; /* the value `mecha init` shows, as TOML; "@home" stands for HOME_M */
	const char *help;    /* the comment `mecha init` writes above it */
};

extern const struct config_key config_keys[];
extern const size_t config_nkeys;

/* Each table: its name in the file (NULL for the top level), in messages, and its comment. */
struct config_table_info {
	const char *name;
	const char *shown;
	const char *help;
};

extern const struct config_table_info config_tables[T_COUNT];

/* The key of a table by name, or NULL. */
const struct config_key *config_key_find(enum config_table tab, const char *name);

#endif
