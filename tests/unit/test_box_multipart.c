/*
 * test_box_multipart — the upload route's multipart/form-data reader on the
 * shapes browsers send and on the worst a stranger can make up.
 */
#include "box/multipart.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CT "multipart/form-data; boundary=XyZ"

static int parse(const char *ct, const char *body, struct multipart *mp, const char **why)
{
	return multipart_parse(ct, body, strlen(body), mp, why);
}

static void refused(const char *ct, const char *body)
{
	struct multipart mp;
	const char *why = NULL;

	cr_assert_eq(parse(ct, body, &mp, &why), -1, "accepted: %s", body);
	cr_assert(why && *why);
	cr_assert_eq(mp.n, 0);
}

Test(box_multipart, a_browsers_upload_is_read_part_by_part)
{
	const char *body = "--XyZ\r\n"
			   "Content-Disposition: form-data; name=\"cv\"; filename=\"my cv.pdf\"\r\n"
			   "Content-Type: application/pdf\r\n\r\n"
			   "%PDF-1.4\r\n--Xy not yet\r\n"
			   "--XyZ\r\n"
			   "content-disposition: form-data; name=\"photo\"; filename=\"\"\r\n\r\n"
			   "\r\n--XyZ--\r\nepilogue is ignored";
	struct multipart mp;
	const char *why;

	cr_assert_eq(parse(CT, body, &mp, &why), 0, "%s", why);
	cr_assert_eq(mp.n, 2);
	cr_assert_str_eq(mp.v[0].name, "cv");
	cr_assert_str_eq(mp.v[0].filename, "my cv.pdf");
	cr_assert_eq(mp.v[0].len, strlen("%PDF-1.4\r\n--Xy not yet"));
	cr_assert_eq(memcmp(mp.v[0].data, "%PDF-1.4\r\n--Xy", 14), 0);
	cr_assert_str_eq(mp.v[1].filename, "");
	cr_assert_eq(mp.v[1].len, 0);
	multipart_free(&mp);
}

Test(box_multipart, a_quoted_boundary_and_a_part_without_filename_are_fine)
{
	struct multipart mp;
	const char *why;

	cr_assert_eq(parse("Multipart/Form-Data; charset=utf-8; boundary=\"==a b==\"",
			   "--==a b==\r\nContent-Disposition: form-data; name=note\r\n\r\nhi\r\n"
			   "--==a b==--",
			   &mp, &why),
		     0, "%s", why);
	cr_assert_eq(mp.n, 1);
	cr_assert_null(mp.v[0].filename);
	multipart_free(&mp);
	cr_assert_eq(parse(CT, "--XyZ--", &mp, &why), 0);
	cr_assert_eq(mp.n, 0);
}

Test(box_multipart, a_content_type_without_a_usable_boundary_is_refused)
{
	static const char *const cts[] = {
		NULL, "", "multipart/form-data", "multipart/mixed; boundary=XyZ",
		"multipart/form-data; boundary=", "multipart/form-data; boundary=\"a b \"",
		"multipart/form-data; boundary=a<b", "multipart/form-data; boundary=a; boundary=b",
		"multipart/form-data; boundary=XyZ; level=1",
		/* NOLINTNEXTLINE(bugprone-suspicious-missing-comma): one header split over two lines */
		"multipart/form-data; boundary="
		"12345678901234567890123456789012345678901234567890123456789012345678901",
	};

	for (size_t i = 0; i < sizeof cts / sizeof cts[0]; i++)
		refused(cts[i], "--XyZ--");
}

Test(box_multipart, what_no_browser_sends_is_refused)
{
	static const char *const bodies[] = {
		"preamble\r\n--XyZ\r\nContent-Disposition: form-data; name=a\r\n\r\nx\r\n--XyZ--",
		"--XyZ\r\nContent-Disposition: form-data; name=a\r\n\r\nno close delimiter",
		"--XyZ\r\nContent-Disposition: form-data; name=a\nX: y\r\n\r\nx\r\n--XyZ--",
		"--XyZ\r\nContent-Disposition: form-data; name=a\r\n folded\r\n\r\nx\r\n--XyZ--",
		"--XyZ\r\nContent-Disposition: form-data; name=a\r\nX-Evil: 1\r\n\r\nx\r\n--XyZ--",
		"--XyZ\r\nContent-Disposition: attachment; name=a\r\n\r\nx\r\n--XyZ--",
		"--XyZ\r\nContent-Disposition: form-data; filename=a\r\n\r\nx\r\n--XyZ--",
		"--XyZ\r\nContent-Disposition: form-data; name=\"\"\r\n\r\nx\r\n--XyZ--",
		/* NOLINTNEXTLINE(bugprone-suspicious-missing-comma): one body split over two lines */
		"--XyZ\r\nContent-Disposition: form-data; name=a; filename*=UTF-8''x\r\n\r\nx\r\n"
		"--XyZ--",
		"--XyZ\r\nContent-Disposition: form-data; name=a; name=b\r\n\r\nx\r\n--XyZ--",
		"--XyZ\r\nContent-Disposition: form-data; name=\"a\r\n\r\nx\r\n--XyZ--",
		"--XyZ\r\nContent-Disposition: form-data; name=\"a\x01\"\r\n\r\nx\r\n--XyZ--",
		"--XyZ\r\nContent-Disposition: form-data; name=\"\xff\"\r\n\r\nx\r\n--XyZ--",
		"--XyZ\r\nContent-Disposition: form-data; name=a\r\n"
		"Content-Disposition: form-data; name=b\r\n\r\nx\r\n--XyZ--",
		"--XyZ\r\nContent-Type: text/plain\r\n\r\nx\r\n--XyZ--",
		"--XyZ\r\nContent-Disposition: form-data; name=a\r\n\r\nx\r\n--XyZjunk",
		"--XyZ",
		"",
	};

	for (size_t i = 0; i < sizeof bodies / sizeof bodies[0]; i++)
		refused(CT, bodies[i]);
}

Test(box_multipart, a_name_with_a_nul_byte_is_refused_though_the_header_goes_on)
{
	static const char body[] =
		"--XyZ\r\nContent-Disposition: form-data; name=\"a\0b\"\r\n\r\nx\r\n--XyZ--";
	struct multipart mp;
	const char *why;

	cr_assert_eq(multipart_parse(CT, body, sizeof body - 1, &mp, &why), -1);
}

Test(box_multipart, more_than_the_parts_cap_is_refused)
{
	size_t size = (MULTIPART_PARTS_MAX + 1) * 64 + 16, n = 0;
	char *body = malloc(size);
	struct multipart mp;
	const char *why;

	for (int i = 0; i <= MULTIPART_PARTS_MAX; i++)
		n += (size_t)snprintf(body + n, size - n,
				      "--XyZ\r\nContent-Disposition: form-data; name=p%d\r\n\r\n\r\n",
				      i);
	n += (size_t)snprintf(body + n, size - n, "--XyZ--");
	cr_assert_eq(multipart_parse(CT, body, n, &mp, &why), -1);
	cr_assert_str_eq(why, "the upload has too many parts");
	cr_assert_eq(why, multipart_too_many, "the one pointer upload.c answers 413 for");
	free(body);
}

/* ---- the reader fed in pieces ------------------------------------------------------------ */

/* What a sink heard, written out: "[name|filename]bytes]" per part. */
struct heard {
	char out[8192];
	size_t n;
	int parts, ends;
};

static void put(struct heard *h, const char *p, size_t n)
{
	cr_assert(h->n + n < sizeof h->out);
	memcpy(h->out + h->n, p, n);
	h->n += n;
}

static void heard_part(void *arg, const char *name, const char *filename)
{
	struct heard *h = arg;

	cr_assert_eq(h->parts, h->ends, "a part began before the last one ended");
	h->parts++;
	put(h, "[", 1);
	put(h, name, strlen(name));
	put(h, "|", 1);
	if (filename)
		put(h, filename, strlen(filename));
	put(h, "]", 1);
}

static void heard_data(void *arg, const char *p, size_t n)
{
	struct heard *h = arg;

	cr_assert(n > 0, "data with no bytes");
	cr_assert_eq(h->parts, h->ends + 1, "data outside a part");
	put(h, p, n);
}

static void heard_end(void *arg)
{
	struct heard *h = arg;

	h->ends++;
	put(h, "]", 1);
}

/* body fed in the pieces cuts[] (offsets, ascending) says: rc of the finish, *h what was heard. */
static int feed_cut(const char *ct, const char *body, size_t len, const size_t *cuts, size_t ncuts,
		    struct heard *h, const char **why)
{
	struct multipart_sink sink = { heard_part, heard_data, heard_end, h };
	struct multipart_in *in;
	size_t at = 0;
	int rc = 0;

	memset(h, 0, sizeof *h);
	cr_assert_not_null(in = multipart_in_new(ct, &sink, why));
	for (size_t i = 0; i <= ncuts && rc == 0; i++) {
		size_t to = i < ncuts ? cuts[i] : len;
		/* each piece a copy of exactly its bytes: ASan sees a read past one */
		char *piece = malloc(to - at ? to - at : 1);
		memcpy(piece, body + at, to - at);
		rc = multipart_in_feed(in, piece, to - at, why);
		free(piece);
		at = to;
	}
	if (rc == 0)
		rc = multipart_in_finish(in, why);
	multipart_in_free(in);
	return rc;
}

static const char two_parts[] = "--XyZ\r\n"
				"Content-Disposition: form-data; name=\"cv\"; filename=\"a.pdf\"\r\n"
				"Content-Type: application/pdf\r\n\r\n"
				"%PDF\r\n--Xy\r\r\n--XyY \r\n-\r\n--X\r\n--XyZ\r\n"
				"Content-Disposition: form-data; name=\"p\"\r\n\r\n"
				"\r\n--XyZ--";
static const char two_heard[] = "[cv|a.pdf]%PDF\r\n--Xy\r\r\n--XyY \r\n-\r\n--X][p|]]";

Test(box_multipart, a_body_cut_in_two_anywhere_reads_as_the_whole)
{
	size_t len = strlen(two_parts);
	struct heard h;
	const char *why = NULL;

	for (size_t cut = 0; cut <= len; cut++) {
		cr_assert_eq(feed_cut(CT, two_parts, len, &cut, 1, &h, &why), 0, "cut at %zu: %s",
			     cut, why);
		cr_assert_eq(h.n, strlen(two_heard), "cut at %zu: %.*s", cut, (int)h.n, h.out);
		cr_assert_eq(memcmp(h.out, two_heard, h.n), 0, "cut at %zu: %.*s", cut, (int)h.n,
			     h.out);
	}
}

Test(box_multipart, a_body_cut_in_three_anywhere_and_byte_by_byte_reads_as_the_whole)
{
	size_t len = strlen(two_parts), cuts[2], every[sizeof two_parts];
	struct heard h;
	const char *why = NULL;

	for (cuts[0] = 0; cuts[0] <= len; cuts[0]++)
		for (cuts[1] = cuts[0]; cuts[1] <= len; cuts[1]++) {
			cr_assert_eq(feed_cut(CT, two_parts, len, cuts, 2, &h, &why), 0, "%s", why);
			cr_assert_eq(h.n, strlen(two_heard));
			cr_assert_eq(memcmp(h.out, two_heard, h.n), 0);
		}
	for (size_t i = 0; i < len; i++)
		every[i] = i + 1;
	cr_assert_eq(feed_cut(CT, two_parts, len, every, len, &h, &why), 0, "%s", why);
	cr_assert_eq(memcmp(h.out, two_heard, h.n), 0);
}

Test(box_multipart, a_boundary_that_repeats_itself_is_found_after_a_false_start)
{
	/* "--aab" after "\r\n--aa": the reader must not lose the bytes that began a match */
	const char *ct = "multipart/form-data; boundary=aab";
	const char *body = "--aab\r\nContent-Disposition: form-data; name=f\r\n\r\n"
			   "x\r\n--aa\r\n--aaab\r\n--a\r\n--aab--";
	const char *want = "[f|]x\r\n--aa\r\n--aaab\r\n--a]";
	size_t len = strlen(body);
	struct heard h;
	const char *why = NULL;

	for (size_t cut = 0; cut <= len; cut++) {
		cr_assert_eq(feed_cut(ct, body, len, &cut, 1, &h, &why), 0, "%s", why);
		cr_assert_eq(h.n, strlen(want), "cut at %zu: %.*s", cut, (int)h.n, h.out);
		cr_assert_eq(memcmp(h.out, want, h.n), 0, "cut at %zu: %.*s", cut, (int)h.n, h.out);
	}
}

/* Refused the same wherever it is cut, with the same reason as the whole body. */
static void refused_cut(const char *body, const char *reason)
{
	size_t len = strlen(body);
	struct heard h;
	const char *why = NULL;

	for (size_t cut = 0; cut <= len; cut++) {
		cr_assert_eq(feed_cut(CT, body, len, &cut, 1, &h, &why), -1, "cut at %zu", cut);
		cr_assert_str_eq(why, reason, "cut at %zu", cut);
	}
}

Test(box_multipart, garbage_a_missing_close_and_oversize_headers_are_refused_in_pieces_too)
{
	char big[MULTIPART_HEADER_MAX + 200];

	refused_cut("garbage, not a body at all", "the body does not open with its boundary");
	refused_cut("\r\n--XyZ\r\n", "the body does not open with its boundary");
	refused_cut("--XyZ\r\nContent-Disposition: form-data; name=a\r\n\r\nno end",
		    "the body ends inside a part");
	refused_cut("--XyZ\r\nContent-Disposition: form-data; name=a\r\n\r\nx\r\n--XyZ",
		    "a boundary is not followed by a line break or its close");
	refused_cut("--XyZ\r\nContent-Disposition: form-data; name=a\r\n",
		    "a part's headers are not lines ending in CRLF");
	refused_cut("--XyZ\r\nContent-Disposition: form-data; name=a\n\r\n",
		    "a part's headers are not lines ending in CRLF");
	refused_cut("--XyZ\r\nX-Other: 1\r\n\r\n\r\n--XyZ--",
		    "a part has a header this upload does not take");
	refused_cut("--XyZ\r\n\r\n\r\n--XyZ--", "a part has no Content-Disposition");
	snprintf(big, sizeof big, "--XyZ\r\nContent-Disposition: form-data; name=\"%0*d\"\r\n\r\n",
		 MULTIPART_HEADER_MAX, 0);
	refused_cut(big, "a part's headers are not lines ending in CRLF");
}

Test(box_multipart, the_part_past_the_cap_is_refused_before_its_headers_are_read)
{
	struct heard h;
	const char *why = NULL;
	char body[MULTIPART_PARTS_MAX * 64 + 128];
	size_t n = 0, whole[1] = { 0 };

	for (int i = 0; i <= MULTIPART_PARTS_MAX; i++)
		n += (size_t)snprintf(body + n, sizeof body - n,
				      "--XyZ\r\nContent-Disposition: form-data; name=f%d\r\n\r\n\r\n", i);
	n += (size_t)snprintf(body + n, sizeof body - n, "--XyZ--");
	cr_assert_eq(feed_cut(CT, body, n, whole, 0, &h, &why), -1);
	cr_assert_eq(why, multipart_too_many);
	cr_assert_eq(h.parts, MULTIPART_PARTS_MAX);
}
