/*
 * source_fixture — where the checkout's own files are, for the unit tests that
 * read one (tests/fixtures/...). The tests run in a throw-away working directory
 * (make unit), so nothing they write can land in the checkout; the checkout is
 * named by MECHA_SOURCE_DIR, or is the working directory when that is unset (a
 * test binary run by hand from the repository's top).
 *
 * Ownership: the returned path lives in one of a few static buffers, valid until
 * the same buffer is handed out again (eight calls later); rel is borrowed.
 */
#ifndef MECHA_TESTS_SOURCE_FIXTURE_H
#define MECHA_TESTS_SOURCE_FIXTURE_H

const char *source_path(const char *rel);

#endif
