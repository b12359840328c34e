/*
 * drain/intake and drain/gate: a queue row read strictly and judged against
 * a manifest into the record docs/protocol/files.md §2 fixes; a gate URL held
 * to the rule that a key never crosses a network readable.
 */
#include <criterion/criterion.h>

#include "base/buf.h"
#include "base/err.h"
#include "drain/gate.h"
#include "drain/intake.h"
#include "types/manifest.h"

#include <stdlib.h>
#include <string.h>

#define DIGEST "sha256:" \
	"0000000000000000000000000000000000000000000000000000000000000001"

static const char manifest_text[] =
	"id = \"apply\"\nversion = 1\ntitle = \"Apply\"\n"
	"[[fields]]\nname = \"name\"\nlabel = \"Name\"\nkind = \"text\"\nmax_length = 40\n"
	"required = true\n"
	"[[fields]]\nname = \"email\"\nlabel = \"Email\"\nkind = \"email\"\nrequired = true\n"
	"[[fields]]\nname = \"age\"\nlabel = \"Age\"\nkind = \"integer\"\n"
	"[[fields]]\nname = \"cv\"\nlabel = \"CV\"\nkind = \"file\"\naccept = [\"pdf\"]\n"
	"[verification]\nfield = \"email\"\n";

static struct manifest *manifest(void)
{
	struct manifest_issues is = { NULL, 0 };
	struct manifest *m = manifest_parse(manifest_text, strlen(manifest_text), &is);

	cr_assert_not_null(m);
	manifest_issues_free(&is);
	return m;
}

/* A row around payload, with one cv attachment of 10 bytes and DIGEST. */
static json_t *row(const char *payload)
{
	return json_pack("{s:i,s:s,s:s,s:s,s:s,s:[{s:s,s:s,s:s,s:i,s:s,s:s}]}", "seq", 7, "type",
			 "apply", "state", "queued", "created_at", "2026-08-06T10:00:00Z", "payload",
			 payload, "attachments", "id", "a1", "field", "cv", "filename",
			 "../../etc/passwd", "size", 10, "sha256", DIGEST, "content_type",
			 "application/pdf");
}

/* The record intake makes of payload, as pretty JSON (malloc'd). */
static char *record_text(const char *payload)
{
	struct manifest *m = manifest();
	json_t *r = row(payload), *rec;
	struct intake_row in;
	struct intake_verdict v;
	struct err e;
	char *text;

	cr_assert_eq(intake_parse(r, &in, &e), 0, "%s", e.msg);
	intake_judge(&in, m, NULL, &v);
	rec = intake_record(&in, &v, "2026-08-06T11:00:00Z", NULL);
	text = json_dumps(rec, JSON_INDENT(2));
	json_decref(rec);
	intake_verdict_free(&v);
	intake_row_free(&in);
	json_decref(r);
	manifest_free(m);
	return text;
}

Test(drain_intake, a_valid_row_becomes_the_record_in_the_specs_order_with_values_sorted)
{
	char *text = record_text("{\"_slot\": \"x\", \"email\": \" ada@example.org \", \"name\": "
				 "\"Ada\", \"age\": \"36\", \"cv\": {\"size\": 10, \"sha256\": \""
				 DIGEST "\", \"filename\": \"Lebenslauf.pdf\", \"content_type\": "
				 "\"application/pdf\"}}");

	cr_assert_str_eq(text,
			 "{\n  \"seq\": 7,\n  \"type_id\": \"apply\",\n  \"type_version\": 1,\n"
			 "  \"state\": \"drained\",\n"
			 "  \"created_at\": \"2026-08-06T10:00:00Z\",\n"
			 "  \"drained_at\": \"2026-08-06T11:00:00Z\",\n  \"valid\": true,\n"
			 "  \"values\": {\n    \"_slot\": \"x\",\n    \"age\": 36,\n"
			 "    \"cv\": {\n      \"content_type\": \"application/pdf\",\n"
			 "      \"sha256\": \"" DIGEST "\",\n      \"size\": 10\n    },\n"
			 "    \"email\": \"ada@example.org\",\n    \"name\": \"Ada\"\n  },\n"
			 "  \"free_text\": [\n    \"name\",\n    \"email\"\n  ],\n"
			 "  \"reply_to\": \"ada@example.org\"\n}");
	free(text);
}

Test(drain_intake, an_invalid_row_keeps_its_payload_and_says_every_problem)
{
	char *text = record_text("{\"name\": 5, \"zz\": {\"b\": 1, \"a\": 2}}");

	cr_assert(strstr(text, "\"valid\": false,\n  \"invalid_reason\": \"3 problems with a "
			       "`apply` submission: email: this is required; name: this has to be "
			       "text; zz: this is not a field of this request type\",\n"
			       "  \"values\": {\n    \"name\": 5,\n    \"zz\": {\n      \"a\": 2,\n"
			       "      \"b\": 1\n    }\n  },\n  \"free_text\": []\n}"),
		  "%s", text);
	free(text);
}

Test(drain_intake, a_file_value_with_other_measurements_than_the_attachment_is_invalid)
{
	char *text = record_text("{\"email\": \"a@b.org\", \"name\": \"A\", \"cv\": {\"size\": 11, "
				 "\"sha256\": \"" DIGEST "\", \"filename\": \"x.pdf\", "
				 "\"content_type\": \"application/pdf\"}}");

	cr_assert(strstr(text, "\"invalid_reason\": \"file `cv`: the box sent no attachment with "
			       "its size and digest\""), "%s", text);
	free(text);
}

Test(drain_intake, machinery_alone_needs_no_manifest)
{
	json_t *r = row("{\"_cancelled\": true, \"_booking_id\": \"b\"}");
	struct intake_row in;
	struct intake_verdict v;
	struct err e;

	cr_assert_eq(intake_parse(r, &in, &e), 0);
	cr_assert(intake_machinery_only(&in));
	intake_judge(&in, NULL, "no manifest", &v);
	cr_assert(v.valid);
	cr_assert_eq(json_object_size(v.values), 2);
	intake_verdict_free(&v);
	intake_row_free(&in);
	json_decref(r);
}

Test(drain_intake, a_row_the_box_garbled_is_refused_not_guessed_at)
{
	static const char *const rows[] = {
		"{\"type\": \"apply\", \"created_at\": \"t\", \"payload\": \"{}\"}",
		"{\"seq\": 0, \"type\": \"apply\", \"created_at\": \"t\", \"payload\": \"{}\"}",
		"{\"seq\": 1, \"type\": \"../apply\", \"created_at\": \"t\", \"payload\": \"{}\"}",
		"{\"seq\": 1, \"type\": \"apply\", \"payload\": \"{}\"}",
		"{\"seq\": 1, \"type\": \"apply\", \"created_at\": \"t\"}",
		"{\"seq\": 1, \"type\": \"apply\", \"created_at\": \"t\", \"payload\": \"{}\", "
		"\"attachments\": [{\"id\": \"../x\", \"field\": \"cv\", \"filename\": \"f\", "
		"\"size\": 1, \"sha256\": \"" DIGEST "\", \"content_type\": \"x\"}]}",
		"{\"seq\": 1, \"type\": \"apply\", \"created_at\": \"t\", \"payload\": \"{}\", "
		"\"attachments\": [{\"id\": \"a\", \"field\": \"cv\", \"filename\": \"f\", "
		"\"size\": 99999999, \"sha256\": \"" DIGEST "\", \"content_type\": \"x\"}]}",
		"{\"seq\": 1, \"type\": \"apply\", \"created_at\": \"t\", \"payload\": \"{}\", "
		"\"attachments\": [{\"id\": \"a\", \"field\": \"cv\", \"filename\": \"f\", "
		"\"size\": 1, \"sha256\": \"md5:00\", \"content_type\": \"x\"}]}",
		NULL,
	};

	for (size_t i = 0; rows[i]; i++) {
		json_t *r = json_loads(rows[i], 0, NULL);
		struct intake_row in;
		struct err e;

		cr_assert_not_null(r, "%s", rows[i]);
		cr_assert_eq(intake_parse(r, &in, &e), -1, "%s", rows[i]);
		cr_assert_eq(e.code, ERR_GATE);
		intake_row_free(&in);
		json_decref(r);
	}
}

Test(drain_intake, files_are_named_by_field_and_never_share_a_name)
{
	struct intake_file f[] = { { "a", "cv", "x", 1, DIGEST, "t" },
				   { "b", "cv", "x", 1, DIGEST, "t" },
				   { "c", "../x", "x", 1, DIGEST, "t" },
				   { "d", "2", "x", 1, DIGEST, "t" } };
	struct intake_row r = { 1, "apply", "t", "{}", f, 4 };
	char **stems = intake_file_stems(&r);

	cr_assert_str_eq(stems[0], "cv");
	cr_assert_str_eq(stems[1], "1");
	cr_assert_str_eq(stems[2], "2");
	cr_assert_str_eq(stems[3], "3");
	intake_file_stems_free(stems, 4);
}

Test(drain_intake, a_file_is_what_its_first_bytes_say)
{
	const char *ct;

	cr_assert_str_eq(intake_sniff("%PDF-1.7", 8, &ct), "pdf");
	cr_assert_str_eq(ct, "application/pdf");
	cr_assert_str_eq(intake_sniff("\x89PNG\r\n\x1a\n", 8, &ct), "png");
	cr_assert_str_eq(intake_sniff("\xff\xd8\xff\xe0", 4, &ct), "jpg");
	cr_assert_str_eq(intake_sniff("%PD", 3, &ct), "bin");
	cr_assert_str_eq(ct, "application/octet-stream");
}

Test(drain_gate, only_https_or_loopback_http_carries_a_key)
{
	static const struct {
		const char *url;
		int code; /* 0: accepted */
	} cases[] = {
		{ "https://box.example.org", 0 },
		{ "https://box.example.org:8443/ada/", 0 },
		{ "HTTPS://[2001:db8::1]:443", 0 },
		{ "http://127.0.0.1:8080", 0 },
		{ "http://127.3.2.1", 0 },
		{ "http://[::1]:9000/", 0 },
		{ "http://128.0.0.1", ERR_INSECURE },
		{ "http://127.0.0.1.evil.example", ERR_INSECURE },
		{ "http://127.0.0.256", ERR_INSECURE },
		{ "http://localhost:8080", ERR_INSECURE },
		{ "http://[::2]", ERR_INSECURE },
		{ "http://0x7f000001", ERR_INSECURE },
		{ "ftp://box.example.org", ERR_CONFIG },
		{ "https://u:p@box.example.org", ERR_CONFIG },
		{ "https://box.example.org/#x", ERR_CONFIG },
		{ "https://box.example.org:99999", ERR_CONFIG },
		{ "https://box.example.org:", ERR_CONFIG },
		{ "https:// box", ERR_CONFIG },
		{ "https://", ERR_CONFIG },
		{ "http://127.0.0.1:80\r\nX: y", ERR_CONFIG },
	};

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct err e;
		int https, rc = gate_url_check(cases[i].url, &https, &e);

		cr_assert_eq(rc, cases[i].code ? -1 : 0, "%s", cases[i].url);
		if (cases[i].code)
			cr_assert_eq(e.code, cases[i].code, "%s: %s", cases[i].url, e.msg);
	}
}
