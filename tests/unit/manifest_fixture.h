/*
 * manifest_fixture — request-type manifests for the unit tests that need one
 * loaded (types, box pages): from text, or from tests/fixtures/types/NAME.toml
 * (under the checkout: source_fixture.h). A manifest that does not load
 * fails the test there and then, naming its first issue and line.
 *
 * Ownership: each returns a new manifest (manifest_free); text is borrowed.
 */
#ifndef MECHA_TESTS_MANIFEST_FIXTURE_H
#define MECHA_TESTS_MANIFEST_FIXTURE_H

struct manifest;

#define MANIFEST_FIXTURES "tests/fixtures/types/"

struct manifest *manifest_fixture_text(const char *text);
struct manifest *manifest_fixture_file(const char *name);

#endif
