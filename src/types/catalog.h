/*
 * catalog — the request types installed at home, one manifest per file in
 * $MECHA_HOME/factory/types/<id>.toml (the path the compatible Rust tools use, which the drain
 * reads too). A type's file is named after its id: both are the URL.
 *
 * Ownership: *out manifests are the caller's (manifest_free); *ids and its
 * strings are malloc'd (catalog_ids_free); *path strings are malloc'd.
 */
#ifndef MECHA_TYPES_CATALOG_H
#define MECHA_TYPES_CATALOG_H

#include <stddef.h>

struct err;
struct manifest;
struct manifest_issues;

/*
 * Reads and checks one manifest file (for `types check`). Returns 0 with
 * *out, or -1: with e set to ERR_INVALID_MANIFEST and every issue appended to
 * *issues, or to the error that kept the file from being read.
 */
int catalog_read_file(const char *path, struct manifest **out, struct manifest_issues *issues,
		      struct err *e);

/*
 * The installed type id. ERR_NOT_FOUND when there is none (or id could not
 * be one); ERR_INVALID_MANIFEST ("PATH:LINE: first issue (and N more)") when
 * it does not check, or when its id is not its file's name. issues may be NULL.
 */
int catalog_load(const char *id, struct manifest **out, struct manifest_issues *issues,
		 struct err *e);

/* The path the type id would live at (malloc'd), or NULL when there is no home. */
char *catalog_path(const char *id, struct err *e);

/* The ids of every <id>.toml in the types directory, sorted; none when it does not exist. */
int catalog_ids(char ***ids, size_t *n, struct err *e);
void catalog_ids_free(char **ids, size_t n);

#endif
