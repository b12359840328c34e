/*
 * source — which files make up the calendar, and where a new event goes.
 *
 * [calendar] path is an .ics file, a vdir (a directory of .ics files) or a
 * vdirsyncer root whose subdirectories are collections. The whole tree is
 * read (hidden entries skipped, a few levels deep), so a root is never
 * silently empty; [calendar] collections limits a root to the collections it
 * names, and each named one must exist.
 *
 * Ownership: struct source borrows its strings (from the config); strings
 * returned through out parameters are new (free them).
 */
#ifndef MECHA_CALENDAR_SOURCE_H
#define MECHA_CALENDAR_SOURCE_H

#include <stddef.h>

struct config;
struct err;

struct source {
	const char *path;
	char *const *collections;
	size_t ncollections;
};

void source_from_config(const struct config *cfg, struct source *s);

/* fn(file, ctx, e) for every .ics file, in name order; the first failure stops the walk. */
int source_each(const struct source *s, int (*fn)(const char *file, void *ctx, struct err *e),
		void *ctx, struct err *e);

enum source_kind { SOURCE_FILE, SOURCE_VDIR };

/*
 * Where an event is written: a vdir (the path, the first named collection,
 * or a root's only collection) or a single file (which may not exist yet when
 * its name ends in .ics). *where is new.
 */
int source_target(const struct source *s, char **where, enum source_kind *kind, struct err *e);

#endif
