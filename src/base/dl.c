/*
 * dl — opening a heavy library once, by its versioned soname, and saying
 * which Debian package to install when it is not there.
 */
#include "base/dl.h"

#include "base/err.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* dlsym hands back a data pointer that the shims store into function pointers. */
_Static_assert(sizeof(void *) == sizeof(void (*)(void)), "function pointers are pointer-sized");

struct dl_row {
	const char *name;
	const char *soname;
	const char *package;
	const char *why;
	int (*resolve)(void *handle, struct err *e);
};

static const struct dl_row rows[DL_COUNT] = {
#define DL_ROW_(id, name, soname, package, why, resolve) \
	[DL_##id] = { name, soname, package, why, resolve },
	DL_LIBRARIES(DL_ROW_)
#undef DL_ROW_
};

/* The outcome of each library's one load, written once under its pthread_once. */
static int failed[DL_COUNT];
static struct err why[DL_COUNT];

/* The test hook (test builds only): is name in MECHA_DL_MISSING's comma-separated list? */
static int hooked_missing(const char *name)
{
#ifndef MECHA_TEST_BUILD
	(void)name;
	return 0;
#else
	const char *p = getenv("MECHA_DL_MISSING");
	size_t n = strlen(name);

	while (p && *p) {
		size_t len = strcspn(p, ",");
		if (len == n && strncmp(p, name, n) == 0)
			return 1;
		p += len;
		p += *p == ',';
	}
	return 0;
#endif
}

static void load(enum dl_library lib)
{
	const struct dl_row *r = &rows[lib];
	char soname[128];
	void *h;

	snprintf(soname, sizeof soname, "%s%s", r->soname,
		 hooked_missing(r->name) ? ".missing-for-test" : "");
	h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		failed[lib] = err_set(&why[lib], ERR_MISSING_LIBRARY,
				      "%s cannot be loaded (%s): mecha needs it for %s; install the "
				      "Debian package %s", r->soname, dlerror(), r->why, r->package);
		return;
	}
	if (r->resolve(h, &why[lib]) != 0)
		failed[lib] = -1; /* h stays open: its constructors ran, unloading gains nothing */
	// cppcheck-suppress resourceLeak ; h stays open for the process's life, on purpose
}

#define DL_ONCE_(id, name, soname, package, why, resolve) \
	static pthread_once_t once_##id = PTHREAD_ONCE_INIT;   \
	static void load_##id(void)                            \
	{                                                      \
		load(DL_##id);                                 \
	}
DL_LIBRARIES(DL_ONCE_)
#undef DL_ONCE_

static pthread_once_t *const onces[DL_COUNT] = {
#define DL_ONCES_(id, name, soname, package, why, resolve) [DL_##id] = &once_##id,
	DL_LIBRARIES(DL_ONCES_)
#undef DL_ONCES_
};

static void (*const loaders[DL_COUNT])(void) = {
#define DL_LOADERS_(id, name, soname, package, why, resolve) [DL_##id] = load_##id,
	DL_LIBRARIES(DL_LOADERS_)
#undef DL_LOADERS_
};

int dl_require(enum dl_library lib, struct err *e)
{
	pthread_once(onces[lib], loaders[lib]);
	if (!failed[lib])
		return 0;
	if (e)
		*e = why[lib];
	return -1;
}

void dl_need(enum dl_library lib)
{
	struct err e;

	if (dl_require(lib, &e) == 0)
		return;
	fprintf(stderr, "mecha: %s\nmecha: this is a bug: the verb should have checked for %s "
		"before it started\n", e.msg, rows[lib].soname);
	abort();
}

int dl_symbol(enum dl_library lib, void *handle, const char *name, void *slot, struct err *e)
{
	void *p = dlsym(handle, name);

	if (!p)
		return err_set(e, ERR_MISSING_LIBRARY, "%s has no %s: mecha was built against a "
			       "newer one; upgrade the Debian package %s", rows[lib].soname, name,
			       rows[lib].package);
	memcpy(slot, &p, sizeof p);
	return 0;
}
