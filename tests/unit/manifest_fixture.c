/*
 * manifest_fixture — the one loader of test manifests, so a manifest that
 * stops loading fails every test the same way, with its reason.
 */
#include "manifest_fixture.h"
#include "source_fixture.h"

#include "base/buf.h"
#include "base/err.h"
#include "base/fs.h"
#include "types/manifest.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

struct manifest *manifest_fixture_text(const char *text)
{
	struct manifest_issues is = { NULL, 0 };
	struct manifest *m = manifest_parse(text, strlen(text), &is);

	cr_assert_not_null(m, "refused: %d: %s\n%s", is.n ? is.v[0].line : 0,
			   is.n ? is.v[0].message : "", text);
	manifest_issues_free(&is);
	return m;
}

struct manifest *manifest_fixture_file(const char *name)
{
	char *path = xasprintf("%s%s.toml", source_path(MANIFEST_FIXTURES), name), *text;
	struct manifest *m;
	struct err e;
	size_t len;

	cr_assert_eq(fs_read(path, &text, &len, &e), 0, "%s", e.msg);
	m = manifest_fixture_text(text);
	free(text);
	free(path);
	return m;
}
