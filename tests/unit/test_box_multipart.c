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
