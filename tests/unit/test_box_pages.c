/*
 * box pages: the HTML a stranger meets, rendered from hand-written and
 * starter manifests (tests/fixtures/types) and read back: every field kind
 * with a bound label, errors beside their fields and in the summary, answers
 * kept, hostile values escaped, show_when said in words, nothing the CSP
 * forbids; the week of slots, its links and the booked time in the owner's
 * zone across a DST change; the manage page per state; and the zone reader
 * checked against the C library's.
 */
#include <criterion/criterion.h>

#include "manifest_fixture.h"

#include "base/buf.h"
#include "base/err.h"
#include "base/fs.h"
#include "box/html.h"
#include "box/page.h"
#include "box/page_parts.h"
#include "box/slotrule.h"
#include "types/manifest.h"
#include "types/validate.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define LQ "\xe2\x80\x9c" /* “ */
#define RQ "\xe2\x80\x9d" /* ” */

/* 2026-02-28T12:00:00Z, a Saturday: the week of Monday Feb 23 is "this week". */
#define NOW ((time_t)1772280000)

static json_t *json(const char *text)
{
	json_error_t je;
	json_t *v = json_loads(text, JSON_DECODE_ANY, &je);

	cr_assert_not_null(v, "bad test JSON: %s\n%s", je.text, text);
	return v;
}

/* What validate_submission says about raw at the Submit phase (NULL when valid). */
static json_t *errors_of(const struct manifest *m, const json_t *raw)
{
	json_t *record = NULL, *errors = NULL;
	struct err e;

	validate_submission(m, raw, VALIDATE_SUBMIT, &record, &errors, &e);
	json_decref(record);
	return errors;
}

static const struct page_ctx form_ctx = { "/f/alice/t", "/f/alice/t/", NULL };
static const struct page_ctx book_ctx = { "/s/alice/book", "/s/alice/book/", NULL };

#define has(html, needle) cr_assert(strstr((html), (needle)), "missing\n  %s\nin\n%s", (needle), (html))
#define lacks(html, needle) cr_assert(!strstr((html), (needle)), "unwanted\n  %s\nin\n%s", (needle), (html))

/* The whole tag (from '<' to '>') in which needle occurs; "" when it does not. Freed by the caller. */
static char *tag_with(const char *html, const char *needle)
{
	const char *at = strstr(html, needle), *open, *close;

	if (!at)
		return xstrdup("");
	for (open = at; open > html && *open != '<'; open--)
		;
	close = strchr(at, '>');
	return xstrndup(open, close ? (size_t)(close - open + 1) : strlen(open));
}

/* The tag carrying id="id" has every one of the attributes (a NULL-terminated list). */
static void tag_has(const char *html, const char *id, const char *const *attrs)
{
	char *needle = xasprintf("id=\"%s\"", id), *tag = tag_with(html, needle);

	cr_assert(*tag, "no element with %s in\n%s", needle, html);
	for (size_t i = 0; attrs[i]; i++)
		cr_assert(strstr(tag, attrs[i]), "%s lacks %s", tag, attrs[i]);
	free(tag);
	free(needle);
}

#define TAG_HAS(html, id, ...) tag_has((html), (id), (const char *const[]){ __VA_ARGS__, NULL })

static int count(const char *html, const char *needle)
{
	int n = 0;

	for (const char *p = html; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

/* Every <label for="x"> names exactly one element, and every control has a label. */
static void labels_bound(const char *html)
{
	for (const char *p = html; (p = strstr(p, "<label for=\"")); p++) {
		const char *q = p + strlen("<label for=\"");
		char *id = xstrndup(q, strcspn(q, "\"")), *needle = xasprintf(" id=\"%s\"", id);
		cr_assert_eq(count(html, needle), 1, "label for %s names %d elements", id, count(html, needle));
		free(needle);
		free(id);
	}
	static const char *const controls[] = { "<input ", "<select ", "<textarea " };
	for (size_t c = 0; c < 3; c++)
		for (const char *p = html; (p = strstr(p, controls[c])); p++) {
			const char *q = strstr(p, " id=\"");
			char *id, *needle;
			cr_assert(q && q < strchr(p, '>'), "a control without an id: %.80s", p);
			id = xstrndup(q + 5, strcspn(q + 5, "\""));
			needle = xasprintf("<label for=\"%s\"", id);
			cr_assert(strstr(html, needle), "no label for %s in\n%s", id, html);
			free(needle);
			free(id);
		}
}

/* Nothing the CSP (script-src 'self'; style-src 'self') would refuse. */
static void csp_clean(const char *html)
{
	lacks(html, "style=");
	lacks(html, "<style");
	lacks(html, "javascript:");
	for (const char *p = html; (p = strstr(p, "<script")); p++) {
		const char *end = strchr(p, '>');
		cr_assert(end && memmem(p, (size_t)(end - p), " src=\"", 6), "an inline script: %.80s", p);
		cr_assert(strncmp(end, "></script>", 10) == 0, "a script with a body: %.80s", p);
	}
	for (const char *p = html; (p = strchr(p, '<')); p++) { /* no on*= attribute in any tag */
		const char *end = strchr(p, '>');
		for (const char *a = p; end && a < end; a++)
			if (isspace((unsigned char)a[0]) && a[1] == 'o' && a[2] == 'n' && isalpha((unsigned char)a[3])) {
				const char *eq = a + 3;
				while (isalpha((unsigned char)*eq))
					eq++;
				cr_assert(*eq != '=', "an event handler in %.80s", p);
			}
	}
}

/* What every page is: a document in a language, for a phone, with one h1, within the CSP. */
static void a_page(const char *html)
{
	cr_assert(strncmp(html, "<!DOCTYPE html>\n<html lang=\"en\">", 32) == 0, "%.60s", html);
	has(html, "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">");
	has(html, "<meta charset=\"utf-8\">");
	cr_assert_eq(count(html, "<h1>"), 1, "%s", html);
	has(html, "</html>\n");
	csp_clean(html);
	labels_bound(html);
}

/* ---- html ------------------------------------------------------------------------------ */

Test(html, the_escape_covers_text_and_double_quoted_attributes)
{
	struct buf b = BUF_INIT;

	html_text(&b, "<a href=\"x\" title='y'>&amp;</a>");
	cr_assert_str_eq(buf_str(&b), "&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;amp;&lt;/a&gt;");
	buf_free(&b);
}

Test(html, bytes_a_parser_would_stumble_on_become_the_replacement_character)
{
	struct buf b = BUF_INIT;

	html_escape(&b, "a\0b\x01\x7f\xc2\x85\xff\xef\xb7\x90z\t\n\r\f\xc3\xa9", 18);
	cr_assert_str_eq(buf_str(&b), "a\xef\xbf\xbd" "b\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"
				      "\xef\xbf\xbdz\t\n\r\f\xc3\xa9");
	buf_free(&b);
}

Test(html, the_format_escapes_every_string_and_writes_numbers)
{
	struct buf b = BUF_INIT;

	html_put(&b, "<p id=\"%s\">%d %lld %zu %u 100%%</p>", "a\"b", -3, 1LL << 40, (size_t)7, 9u);
	cr_assert_str_eq(buf_str(&b), "<p id=\"a&quot;b\">-3 1099511627776 7 9 100%</p>");
	buf_free(&b);
	html_put(&b, "[%s]", getenv("MECHA_TEST_NEVER_SET"));
	cr_assert_str_eq(buf_str(&b), "[]");
	buf_free(&b);
}

/* ---- the form ------------------------------------------------------------------------------ */

Test(form, every_field_kind_renders_its_control_with_a_label_bound_to_it)
{
	struct manifest *m = manifest_fixture_file("every-kind");
	char *html = page_form(&form_ctx, m, NULL, NULL);

	a_page(html);
	TAG_HAS(html, "f-t", "<input type=\"text\"", "name=\"t\"", "maxlength=\"5\"", "pattern=\"[a-z]+\"",
		"aria-describedby=\"help-t\"");
	has(html, "<label for=\"f-t\">Text</label>\n<p class=\"help\" id=\"help-t\">One line.</p>");
	TAG_HAS(html, "f-lt", "<textarea", "name=\"lt\"", "maxlength=\"10\"");
	TAG_HAS(html, "f-em", "<input type=\"email\"", "maxlength=\"254\"", " required");
	has(html, "<label for=\"f-em\">Email <span class=\"req\">(required)</span></label>");
	TAG_HAS(html, "f-u", "<input type=\"url\"", "maxlength=\"30\"");
	TAG_HAS(html, "f-d", "<input type=\"date\"", "min=\"2026-01-01\"", "max=\"2026-12-31\"");
	TAG_HAS(html, "f-n", "<input type=\"number\"", "step=\"1\"", "min=\"-5\"", "max=\"100\"");
	TAG_HAS(html, "f-s", "<select", "name=\"s\"");
	has(html, "<option value=\"\">Choose\xe2\x80\xa6</option>\n<option value=\"a\">A</option>");
	/* a multi_select is a group of checkboxes under a legend, each with its own label */
	has(html, "<fieldset class=\"field choices\" id=\"field-ms\" data-field=\"ms\">\n<legend>Multi</legend>");
	TAG_HAS(html, "opt0-ms", "<input type=\"checkbox\"", "name=\"ms\"", "value=\"x\"");
	TAG_HAS(html, "opt2-ms", "<input type=\"checkbox\"", "name=\"ms\"", "value=\"z\"");
	has(html, "<label for=\"opt1-ms\">Y</label>");
	has(html, "<p class=\"hint\">Choose at most 2.</p>");
	TAG_HAS(html, "f-b", "<input type=\"checkbox\"", "name=\"b\"", "value=\"true\"");
	has(html, "<label for=\"f-b\">Bool</label>");
	has(html, "<form method=\"post\" action=\"/f/alice/t\" accept-charset=\"utf-8\">");
	lacks(html, "enctype");
	lacks(html, "type=\"file\"");
	free(html);
	manifest_free(m);
}

Test(form, a_file_field_is_a_note_on_the_form_and_an_input_only_on_the_upload_page)
{
	struct manifest *m = manifest_fixture_file("every-kind");
	char *form = page_form(&form_ctx, m, NULL, NULL), *upload = page_upload(&form_ctx, m, NULL, NULL);

	has(form, "<p class=\"label\" id=\"f-f\">File</p>");
	has(form, "You will be asked to attach this (pdf or png, up to 1000 bytes) after you confirm "
		  "your email address.");
	a_page(upload);
	has(upload, "<form method=\"post\" enctype=\"multipart/form-data\">");
	TAG_HAS(upload, "f-f", "<input type=\"file\"", "name=\"f\"",
		"accept=\".pdf,application/pdf,.png,image/png\"", "aria-describedby=\"limits-f\"");
	has(upload, "<p class=\"limits\" id=\"limits-f\">pdf or png, up to 1000 bytes</p>");
	cr_assert_eq(count(upload, "<input "), 1, "only the file field:\n%s", upload);
	free(form);
	free(upload);
	manifest_free(m);
}

Test(form, acknowledgments_are_required_checkboxes_with_their_description)
{
	struct manifest *m = manifest_fixture_file("lab-application");
	char *html = page_form(&form_ctx, m, NULL, NULL);

	TAG_HAS(html, "f-data_policy", "<input type=\"checkbox\"", "name=\"data_policy\"", "value=\"true\"",
		" required", "aria-describedby=\"help-data_policy\"");
	has(html, "<label for=\"f-data_policy\">I have read how applications are kept <span class=\"req\">"
		  "(required)</span></label>");
	has(html, "<p class=\"help\" id=\"help-data_policy\">Applications are kept for a year and then deleted.</p>");
	has(html, "<a href=\"https://example.org/lab/data-policy\">More about this</a>");
	free(html);
	manifest_free(m);
}

Test(form, an_error_is_shown_beside_its_field_with_aria_invalid_and_linked_from_the_summary)
{
	struct manifest *m = manifest_fixture_file("every-kind");
	json_t *raw = json("{\"em\": \"nope\", \"n\": \"500\", \"ms\": [\"x\", \"y\", \"z\"], \"zz\": \"1\"}");
	json_t *errors = errors_of(m, raw);
	char *html = page_form(&form_ctx, m, raw, errors);

	a_page(html);
	has(html, "<title>Error: Every kind</title>");
	has(html, "<p class=\"error\" id=\"error-em\">this does not look like an email address</p>");
	TAG_HAS(html, "f-em", "aria-invalid=\"true\"", "aria-describedby=\"error-em\"");
	TAG_HAS(html, "f-n", "aria-invalid=\"true\"", "aria-describedby=\"error-n\"");
	has(html, "<p class=\"error\" id=\"error-n\">this cannot be more than 100</p>");
	/* a group: the fieldset names the error, each box is marked invalid */
	TAG_HAS(html, "field-ms", "<fieldset", "aria-describedby=\"error-ms\"");
	TAG_HAS(html, "opt1-ms", "aria-invalid=\"true\"");
	/* the summary, announced, in the page's order, each line a link to its control */
	has(html, "<div class=\"errors\" id=\"errors\" role=\"alert\" aria-labelledby=\"errors-title\">");
	has(html, "<li><a href=\"#f-em\">Email</a>: this does not look like an email address</li>\n"
		  "<li><a href=\"#f-n\">Number</a>: this cannot be more than 100</li>\n"
		  "<li><a href=\"#opt0-ms\">Multi</a>: choose at most 2</li>\n"
		  "<li><a href=\"#f-consent\">I agree</a>: this has to be acknowledged before submitting</li>\n"
		  "<li>zz: this is not a field of this request type</li>\n");
	TAG_HAS(html, "f-consent", "aria-invalid=\"true\"");
	/* a field without an error says nothing of one */
	TAG_HAS(html, "f-t", "aria-describedby=\"help-t\"");
	lacks(html, "id=\"error-t\"");
	free(html);
	json_decref(errors);
	json_decref(raw);
	manifest_free(m);
}

Test(form, answers_are_kept_when_the_form_comes_back_with_errors)
{
	struct manifest *m = manifest_fixture_file("every-kind");
	json_t *raw = json("{\"t\": \"ab\", \"lt\": \"\\nline one\\nline two\", \"em\": \"bad\", "
			   "\"u\": \"http://x.org\", \"d\": \"2026-05-01\", \"n\": \"7\", \"s\": \"b\", "
			   "\"ms\": [\"x\", \"z\"], \"b\": \"true\", \"consent\": \"true\"}");
	json_t *errors = errors_of(m, raw);
	char *html = page_form(&form_ctx, m, raw, errors);

	TAG_HAS(html, "f-t", "value=\"ab\"");
	/* the newline after the tag is the parser's; the value's own first newline survives */
	has(html, "aria-describedby=\"error-lt\">\n\nline one\nline two</textarea>");
	TAG_HAS(html, "f-em", "value=\"bad\"");
	TAG_HAS(html, "f-u", "value=\"http://x.org\"");
	TAG_HAS(html, "f-d", "value=\"2026-05-01\"");
	TAG_HAS(html, "f-n", "value=\"7\"");
	has(html, "<option value=\"b\" selected>B</option>");
	cr_assert_eq(count(html, " selected"), 1);
	TAG_HAS(html, "opt0-ms", " checked");
	TAG_HAS(html, "opt2-ms", " checked");
	char *y = tag_with(html, "id=\"opt1-ms\"");
	lacks(y, "checked");
	free(y);
	TAG_HAS(html, "f-b", " checked");
	TAG_HAS(html, "f-consent", " checked");
	free(html);
	json_decref(errors);
	json_decref(raw);
	manifest_free(m);
}

Test(form, one_ticked_box_of_a_group_arrives_bare_and_is_kept)
{
	struct manifest *m = manifest_fixture_file("every-kind");
	json_t *raw = json("{\"ms\": \"y\", \"b\": \"on\"}");
	char *html = page_form(&form_ctx, m, raw, NULL);

	TAG_HAS(html, "opt1-ms", " checked");
	TAG_HAS(html, "f-b", " checked");
	cr_assert_eq(count(html, " checked"), 2, "%s", html);
	free(html);
	json_decref(raw);
	manifest_free(m);
}

Test(form, a_hostile_value_is_escaped_in_text_and_in_attributes_and_never_appears_raw)
{
	static const char *const manifest =
		"id = \"t\"\nversion = 1\ntitle = \"Q&A <b>night</b>\"\n"
		"description = \"Say \\\"hi\\\" & 'bye'\"\n"
		"[[fields]]\nname = \"t\"\nlabel = \"<i>Name</i>\"\nhelp = \"a & b\"\nkind = \"text\"\nmax_length = 100\n"
		"[[fields]]\nname = \"lt\"\nlabel = \"Notes\"\nkind = \"long_text\"\nmax_length = 100\n"
		"[[fields]]\nname = \"s\"\nlabel = \"Pick\"\nkind = \"select\"\n"
		"options = [{ value = \"a\\\"><script>x()</script>\", label = \"<A>\" }]\n"
		"[[fields]]\nname = \"e\"\nlabel = \"Email\"\nkind = \"email\"\nrequired = true\n"
		"[verification]\nfield = \"e\"\n";
	struct manifest *m = manifest_fixture_text(manifest);
	json_t *raw = json("{\"t\": \"\\\"><script>alert('x')</script>&amp;\", "
			   "\"lt\": \"</textarea><script>alert(1)</script>\", \"<img src=x onerror=y>\": \"1\", "
			   "\"e\": \"<b>@x\"}");
	json_t *errors = errors_of(m, raw);
	char *html = page_form(&form_ctx, m, raw, errors);

	a_page(html);
	lacks(html, "<script>");
	lacks(html, "<img");
	lacks(html, "<b>");
	lacks(html, "<i>");
	lacks(html, "'x'");
	TAG_HAS(html, "f-t", "value=\"&quot;&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;amp;\"");
	has(html, "&lt;/textarea&gt;&lt;script&gt;alert(1)&lt;/script&gt;</textarea>");
	has(html, "<title>Error: Q&amp;A &lt;b&gt;night&lt;/b&gt;</title>");
	has(html, "<h1>Q&amp;A &lt;b&gt;night&lt;/b&gt;</h1>");
	has(html, "<p class=\"intro\">Say &quot;hi&quot; &amp; &#39;bye&#39;</p>");
	has(html, "<label for=\"f-t\">&lt;i&gt;Name&lt;/i&gt;</label>");
	has(html, "<p class=\"help\" id=\"help-t\">a &amp; b</p>");
	has(html, "<option value=\"a&quot;&gt;&lt;script&gt;x()&lt;/script&gt;\">&lt;A&gt;</option>");
	has(html, "<li>&lt;img src=x onerror=y&gt;: this is not a field of this request type</li>");
	TAG_HAS(html, "f-e", "value=\"&lt;b&gt;@x\"");
	free(html);
	json_decref(errors);
	json_decref(raw);
	manifest_free(m);
}

Test(form, a_conditional_field_says_when_it_applies_and_is_not_required_by_the_browser)
{
	struct manifest *m = manifest_fixture_file("meeting");
	char *html = page_form(&form_ctx, m, NULL, NULL);

	a_page(html);
	has(html, "<p class=\"when\" id=\"when-other_detail\">Answer only if " LQ "What is it about"
		  "" RQ " is " LQ "Something else" RQ ".</p>");
	TAG_HAS(html, "field-other_detail", "data-when-field=\"purpose\"", "data-when-op=\"eq\"",
		"data-when-value=\"&quot;other&quot;\"");
	TAG_HAS(html, "f-other_detail", "data-required=\"true\"", "aria-describedby=\"when-other_detail\"");
	char *tag = tag_with(html, "id=\"f-other_detail\"");
	lacks(tag, " required");
	free(tag);
	/* an unconditional required field keeps the browser's check */
	TAG_HAS(html, "f-requester_name", " required");
	/* the script is linked because something depends on something */
	has(html, "<script src=\"/f/alice/t/form.js\" defer></script>");
	free(html);
	manifest_free(m);
}

Test(form, every_operator_is_said_in_words)
{
	static const struct {
		const char *when, *words;
	} cases[] = {
		{ "{ field = \"s\", op = \"eq\", value = \"a\" }", "only if " LQ "Pick" RQ " is " LQ "" "Alpha" RQ "." },
		{ "{ field = \"s\", op = \"ne\", value = \"zz\" }", "only if " LQ "Pick" RQ " is answered and is not " LQ "zz" RQ "." },
		{ "{ field = \"s\", op = \"in\", value = [\"a\", \"b\", \"c\"] }", "is " LQ "" "Alpha" RQ ", " LQ "" "Beta" RQ " or " LQ "" "c" RQ "." },
		{ "{ field = \"s\", op = \"not_in\", value = [\"a\"] }", "is answered and is not " LQ "" "Alpha" RQ "." },
		{ "{ field = \"n\", op = \"gt\", value = 200 }", "only if " LQ "Count" RQ " is more than 200." },
		{ "{ field = \"n\", op = \"gte\", value = 2.5 }", "is at least 2.5." },
		{ "{ field = \"n\", op = \"lt\", value = 3 }", "is less than 3." },
		{ "{ field = \"n\", op = \"lte\", value = 3 }", "is at most 3." },
		{ "{ field = \"n\", op = \"present\" }", "only if " LQ "Count" RQ " is answered." },
		{ "{ field = \"n\", op = \"absent\" }", "is left blank." },
		{ "{ field = \"b\", op = \"is_true\" }", "only if " LQ "Sure" RQ " is ticked." },
		{ "{ field = \"b\", op = \"is_false\" }", "only if " LQ "Sure" RQ " is not ticked." },
		{ "{ field = \"ack\", op = \"is_true\" }", "only if " LQ "I agree" RQ " is ticked." },
	};

	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char *text = xasprintf(
			"id = \"t\"\nversion = 1\ntitle = \"T\"\n"
			"[[fields]]\nname = \"s\"\nlabel = \"Pick\"\nkind = \"select\"\n"
			"options = [{ value = \"a\", label = \"Alpha\" }, { value = \"b\", label = \"Beta\" }]\n"
			"[[fields]]\nname = \"n\"\nlabel = \"Count\"\nkind = \"integer\"\n"
			"[[fields]]\nname = \"b\"\nlabel = \"Sure\"\nkind = \"bool\"\n"
			"[[fields]]\nname = \"x\"\nlabel = \"X\"\nkind = \"text\"\nmax_length = 9\nshow_when = %s\n"
			"[[acknowledgments]]\nid = \"ack\"\nlabel = \"I agree\"\n",
			cases[i].when);
		struct manifest *m = manifest_fixture_text(text);
		char *html = page_form(&form_ctx, m, NULL, NULL);
		has(html, cases[i].words);
		has(html, "<p class=\"when\" id=\"when-x\">Answer only if ");
		free(html);
		manifest_free(m);
		free(text);
	}
}

Test(form, steps_are_fieldsets_with_their_title_description_and_condition)
{
	struct manifest *letter = manifest_fixture_file("letter");
	struct manifest *speaking = manifest_fixture_file("speaking");
	char *a = page_form(&form_ctx, letter, NULL, NULL), *b = page_form(&form_ctx, speaking, NULL, NULL);

	a_page(a);
	has(a, "<fieldset class=\"step\" id=\"step-who\">\n<legend>About you</legend>\n"
	       "<div class=\"field\" id=\"field-requester_name\"");
	has(a, "<fieldset class=\"step\" id=\"step-materials\">\n<legend>Materials</legend>\n"
	       "<p class=\"step-description\">What would help the letter.</p>");
	cr_assert_eq(count(a, "<fieldset class=\"step\""), 3);
	/* fields come in their step's order, each once */
	cr_assert_lt(strstr(a, "id=\"f-relationship\"") - a, strstr(a, "id=\"opt0-programs\"") - a);
	cr_assert_eq(count(a, "id=\"field-deadline\""), 1);
	lacks(a, "form.js"); /* nothing here depends on anything */
	a_page(b);
	has(b, "<fieldset class=\"step\" id=\"step-travel\" data-when-field=\"format\" data-when-op=\"eq\" "
	       "data-when-value=\"&quot;in_person&quot;\">\n<legend>Travel</legend>\n"
	       "<p class=\"when\" id=\"stepwhen-travel\">This part applies only if " LQ "In person or "
	       "remote" RQ " is " LQ "In person" RQ ".</p>");
	free(a);
	free(b);
	manifest_free(letter);
	manifest_free(speaking);
}

Test(form, a_required_field_on_a_conditional_step_is_not_required_by_the_browser)
{
	struct manifest *m = manifest_fixture_text(
		"id = \"t\"\nversion = 1\ntitle = \"T\"\n"
		"[[fields]]\nname = \"k\"\nlabel = \"K\"\nkind = \"bool\"\n"
		"[[fields]]\nname = \"v\"\nlabel = \"V\"\nkind = \"text\"\nmax_length = 9\nrequired = true\n"
		"[[steps]]\nid = \"one\"\ntitle = \"One\"\nfields = [\"k\"]\n"
		"[[steps]]\nid = \"two\"\ntitle = \"Two\"\nfields = [\"v\"]\n"
		"show_when = { field = \"k\", op = \"is_true\" }\n");
	char *html = page_form(&form_ctx, m, NULL, NULL), *tag = tag_with(html, "id=\"f-v\"");

	lacks(tag, " required");
	has(tag, "data-required=\"true\"");
	has(html, "form.js");
	free(tag);
	free(html);
	manifest_free(m);
}

/* ---- the upload page ------------------------------------------------------------------------ */

Test(upload, the_upload_page_asks_only_for_the_file_fields_that_apply)
{
	struct manifest *m = manifest_fixture_text(
		"id = \"t\"\nversion = 1\ntitle = \"T\"\n"
		"[[fields]]\nname = \"e\"\nlabel = \"E\"\nkind = \"email\"\nrequired = true\n"
		"[[fields]]\nname = \"art\"\nlabel = \"Art\"\nkind = \"bool\"\n"
		"[[fields]]\nname = \"cv\"\nlabel = \"CV\"\nkind = \"file\"\naccept = [\"pdf\"]\nrequired = true\n"
		"[[fields]]\nname = \"pic\"\nlabel = \"Picture\"\nkind = \"file\"\naccept = [\"jpg\", \"png\"]\n"
		"max_bytes = 1572864\nshow_when = { field = \"art\", op = \"is_true\" }\n"
		"[verification]\nfield = \"e\"\n");
	json_t *without = json("{\"e\": \"a@b.co\"}"), *with = json("{\"e\": \"a@b.co\", \"art\": true}");
	char *a = page_upload(&form_ctx, m, without, NULL), *b = page_upload(&form_ctx, m, with, NULL);

	a_page(a);
	TAG_HAS(a, "f-cv", "type=\"file\"", " required", "accept=\".pdf,application/pdf\"");
	lacks(a, "name=\"pic\"");
	lacks(a, "name=\"e\"");
	a_page(b);
	TAG_HAS(b, "f-pic", "type=\"file\"", "accept=\".jpg,.jpeg,image/jpeg,.png,image/png\"");
	char *form = page_form(&form_ctx, m, NULL, NULL);
	has(form, "<p class=\"when\" id=\"when-pic\">Asked for only if " LQ "Art" RQ " is ticked.</p>");
	free(form);
	has(b, "jpg or png, up to 1.5 MB");
	lacks(b, "Answer only if"); /* it is here because it applies */
	char *tag = tag_with(b, "id=\"f-pic\"");
	lacks(tag, "required");
	free(tag);
	free(a);
	free(b);
	json_decref(without);
	json_decref(with);
	manifest_free(m);
}

Test(upload, a_refused_upload_comes_back_with_the_error_beside_its_input)
{
	struct manifest *m = manifest_fixture_file("every-kind");
	json_t *errors = json("[{\"field\": \"f\", \"message\": \"this field takes: pdf, png\"}]");
	char *html = page_upload(&form_ctx, m, NULL, errors);

	a_page(html);
	has(html, "<li><a href=\"#f-f\">File</a>: this field takes: pdf, png</li>");
	has(html, "<p class=\"error\" id=\"error-f\">this field takes: pdf, png</p>");
	TAG_HAS(html, "f-f", "aria-invalid=\"true\"", "aria-describedby=\"limits-f error-f\"");
	lacks(html, "action=");
	free(html);
	json_decref(errors);
	manifest_free(m);
}

Test(upload, a_summary_line_links_only_to_what_the_page_shows)
{
	struct manifest *m = manifest_fixture_file("every-kind");
	json_t *errors = json("[{\"field\": \"consent\", \"message\": \"this has to be acknowledged before "
			      "submitting\"}, {\"field\": \"em\", \"message\": \"this is required\"}]");
	char *html = page_upload(&form_ctx, m, NULL, errors);

	has(html, "<li>Email: this is required</li>\n<li>I agree: this has to be acknowledged before "
		  "submitting</li>");
	lacks(html, "href=\"#");
	free(html);
	json_decref(errors);
	manifest_free(m);
}

/* ---- the verification flow ------------------------------------------------------------------- */

Test(flow, check_your_email_names_the_address_and_how_long_the_link_works)
{
	struct manifest *m = manifest_fixture_file("letter");
	char *html = page_check_email(&form_ctx, m, "<x>&\"@example.org");

	a_page(html);
	has(html, "<title>Check your email</title>");
	has(html, "on its way to <strong>&lt;x&gt;&amp;&quot;@example.org</strong>");
	has(html, "The link works once, within 24 hours.");
	has(html, "<a href=\"/f/alice/t\">the form</a>");
	free(html);
	manifest_free(m);
}

Test(flow, the_confirm_page_is_one_post_button_and_carries_no_token)
{
	struct manifest *m = manifest_fixture_file("meeting");
	char *html = page_confirm(&form_ctx, m);

	a_page(html);
	has(html, "<h1>Confirm your email address</h1>");
	has(html, "<form method=\"post\">\n<button type=\"submit\">Confirm</button>\n</form>");
	lacks(html, "action=");
	lacks(html, "<input");
	free(html);
	manifest_free(m);
}

Test(flow, the_confirmation_is_filled_from_the_answers_and_escaped)
{
	struct manifest *m = manifest_fixture_file("meeting");
	json_t *values = json("{\"requester_name\": \"<b>Ada</b>\\nLovelace\", \"purpose\": \"other\"}");
	char *html = page_confirmed(&form_ctx, m, values);

	a_page(html);
	has(html, "<h1>Thank you, &lt;b&gt;Ada&lt;/b&gt; Lovelace</h1>");
	has(html, "<p>Your request about other is in the queue.</p>");
	has(html, "You should hear back within a week.");
	free(html);
	json_decref(values);
	manifest_free(m);
}

Test(flow, a_type_without_a_confirmation_still_confirms)
{
	struct manifest *m = manifest_fixture_file("letter");
	char *html = page_confirmed(&form_ctx, m, NULL);

	a_page(html);
	has(html, "<h1>Confirmed</h1>");
	free(html);
	manifest_free(m);
}

Test(flow, an_expired_link_offers_the_form_again)
{
	struct manifest *m = manifest_fixture_file("letter");
	char *html = page_expired(&form_ctx, m);

	a_page(html);
	has(html, "<title>That link has expired</title>");
	has(html, "<a href=\"/f/alice/t\">the form</a> again will send a new one.");
	free(html);
	manifest_free(m);
}

/* ---- the week page ------------------------------------------------------------------------- */

static char *week_page(const struct manifest *m, const char *slots, const char *blocked,
		       struct page_week *w)
{
	json_t *s = slots ? json(slots) : NULL, *b = blocked ? json(blocked) : NULL;
	struct slotrule_slot *parsed;
	char *html;

	w->nslots = slotrule_parse(s, &parsed);
	w->slots = parsed;
	w->blocked = b;
	if (!w->now)
		w->now = NOW;
	html = page_booking_week(&book_ctx, m, w);
	free(parsed);
	json_decref(s);
	json_decref(b);
	return html;
}

#define SLOT(start, end, mins) "{\"start\": \"" start "\", \"end\": \"" end "\", \"duration_minutes\": " #mins "}"

static const char *const march =
	"[" SLOT("2026-03-03T18:00:00Z", "2026-03-03T18:30:00Z", 30) ","
	SLOT("2026-03-03T18:30:00Z", "2026-03-03T19:00:00Z", 30) ","
	SLOT("2026-03-03T18:00:00Z", "2026-03-03T19:00:00Z", 60) ","
	SLOT("2026-03-05T14:30:00Z", "2026-03-05T15:00:00Z", 30) ","
	SLOT("2026-03-05T14:30:00Z", "2026-03-05T15:30:00Z", 60) ","
	SLOT("2026-03-12T14:30:00Z", "2026-03-12T15:00:00Z", 30) ","
	SLOT("2026-02-27T14:30:00Z", "2026-02-27T15:00:00Z", 30) "]";

Test(booking, the_week_shows_the_pushed_slots_minus_the_blocked_ones)
{
	struct manifest *m = manifest_fixture_file("book");
	struct page_week w = { 0 };
	char *html = week_page(m, march, "[{\"start\": \"2026-03-03T18:20:00Z\", \"end\": \"2026-03-03T18:40:00Z\"}]", &w);

	a_page(html);
	has(html, "<p class=\"zone\">Times are shown in America/New_York.</p>");
	has(html, "<form method=\"post\" action=\"/s/alice/book\" accept-charset=\"utf-8\">");
	/* the first week with a time, Mar 2 - Mar 8, its 30-minute slots; the overlap is gone */
	has(html, "<span class=\"range\">Mar 2 \xe2\x80\x93 Mar 8</span>");
	has(html, "<h2 id=\"day-20517\">Thu Mar 5</h2>");
	TAG_HAS(html, "slot-0", "type=\"radio\"", "name=\"_slot\"", "value=\"2026-03-05T14:30:00Z|30\"",
		" required", "aria-describedby=\"day-20517\"");
	has(html, "<label for=\"slot-0\">9:30 am</label>");
	lacks(html, "2026-03-03T18:00:00Z|30");
	lacks(html, "2026-03-03T18:30:00Z|30");
	lacks(html, "Tue Mar 3");
	cr_assert_eq(count(html, "name=\"_slot\""), 1, "%s", html);
	has(html, "<legend>Pick a time (30 minutes) <span class=\"req\">(required)</span></legend>");
	/* the booking's own fields, then the button */
	TAG_HAS(html, "f-requester_email", "type=\"email\"", " required");
	has(html, "<button type=\"submit\">Book this time</button>");
	free(html);
	manifest_free(m);
}

Test(booking, the_move_week_asks_for_the_address_alone_and_shows_the_booking_s_own_time)
{
	struct manifest *m = manifest_fixture_file("book");
	struct page_week w = { 0 };
	char *html;

	w.move_start = "2026-03-03T18:00:00Z";
	w.move_end = "2026-03-03T18:30:00Z";
	w.notice = PAGE_WEEK_OVERLAP;
	html = week_page(m, march, "[{\"start\": \"2026-03-03T18:00:00Z\", \"end\": "
			 "\"2026-03-03T18:30:00Z\"}]", &w);
	a_page(html);
	has(html, "Pick another time. Your booking is now at:");
	has(html, "<strong>Tuesday, Mar 3 \xc2\xb7 1:00 pm \xe2\x80\x93 1:30 pm (America/New_York)</strong>");
	has(html, "A new time cannot overlap the booking\xe2\x80\x99s own time.");
	TAG_HAS(html, "move-email", "type=\"email\"", "name=\"email\"", " required");
	lacks(html, "f-requester_email");
	has(html, "<button type=\"submit\">Move to this time</button>");
	lacks(html, "2026-03-03T18:00:00Z|30");
	free(html);
	w = (struct page_week){ 0 };
	w.move_start = "2026-03-03T18:00:00Z";
	w.move_end = "2026-03-03T18:30:00Z";
	w.notice = PAGE_WEEK_NOT_YOURS;
	html = week_page(m, march, "[]", &w);
	has(html, "That is not the address this booking was made with");
	free(html);
	manifest_free(m);
}

Test(manage, a_moved_booking_says_both_times_and_offers_nothing)
{
	struct manifest *m = manifest_fixture_file("book");
	char *moved = page_booking_manage_moved(&book_ctx, m, "2026-03-05T14:30:00Z",
						"2026-03-05T15:00:00Z", "2026-03-12T14:30:00Z",
						"2026-03-12T15:00:00Z");
	char *done = page_booking_moved(&book_ctx, m, "2026-03-05T14:30:00Z", "2026-03-05T15:00:00Z",
					"2026-03-12T14:30:00Z", "2026-03-12T15:00:00Z");
	char *gone = page_booking_move_gone(&book_ctx, m);
	char *active = page_booking_manage(&book_ctx, m, PAGE_MANAGE_ACTIVE, "2026-03-05T14:30:00Z",
					   "2026-03-05T15:00:00Z");

	a_page(moved);
	has(moved, "<h1>This booking was moved</h1>");
	has(moved, "Thursday, Mar 5 \xc2\xb7 9:30 am");
	has(moved, "Thursday, Mar 12 \xc2\xb7 10:30 am");
	lacks(moved, "<form");
	a_page(done);
	has(done, "<h1>Your booking is moved</h1>");
	cr_assert(strstr(done, "Mar 5") < strstr(done, "Mar 12"), "%s", done);
	a_page(gone);
	has(gone, "<h1>Nothing was moved</h1>");
	has(active, "<a href=\"/s/alice/book?move=1\">pick another time</a>");
	free(moved);
	free(done);
	free(gone);
	free(active);
	manifest_free(m);
}

Test(booking, a_blocked_entry_that_does_not_parse_blocks_every_slot)
{
	struct manifest *m = manifest_fixture_file("book");
	struct page_week w = { 0 };
	char *html = week_page(m, march, "[{\"start\": \"tomorrow\", \"end\": \"2026-03-03T18:40:00Z\"}]", &w);

	lacks(html, "name=\"_slot\"");
	lacks(html, "<form");
	has(html, "<p class=\"empty\">Nothing is open at the moment \xe2\x80\x94 check back soon.</p>");
	free(html);
	manifest_free(m);
}

Test(booking, only_times_after_now_are_offered_and_a_broken_cache_entry_is_left_out)
{
	struct manifest *m = manifest_fixture_file("book");
	struct page_week w = { 0 };
	char *html;

	w.now = (time_t)1772722800; /* 2026-03-05T15:00:00Z: Thursday's slot has started */
	html = week_page(m, "[" SLOT("2026-03-05T14:30:00Z", "2026-03-05T15:00:00Z", 30) ","
			    SLOT("2026-03-05T16:00:00Z", "2026-03-05T16:30:00Z", 30) ","
			    "{\"start\": \"2026-03-05T17:00:00Z\", \"end\": \"2026-03-05T17:30:00Z\"},"
			    SLOT("2026-03-05T18:00:00Z", "2026-03-05T17:30:00Z", 30) ",\"junk\"]", NULL, &w);
	lacks(html, "2026-03-05T14:30:00Z");
	lacks(html, "2026-03-05T17:00:00Z");
	lacks(html, "2026-03-05T18:00:00Z");
	has(html, "value=\"2026-03-05T16:00:00Z|30\"");
	lacks(html, "Earlier week"); /* this is this week */
	free(html);
	manifest_free(m);
}

Test(booking, the_week_links_lead_to_the_weeks_around_it_and_never_into_the_past)
{
	struct manifest *m = manifest_fixture_file("book");
	struct page_week w = { 0 };
	char *html;

	html = week_page(m, march, NULL, &w);
	has(html, "<a href=\"/s/alice/book?week=2026-02-23&amp;mins=30\" rel=\"nofollow\">\xe2\x86\x90 Earlier week</a>");
	has(html, "<a href=\"/s/alice/book?week=2026-03-09&amp;mins=30\" rel=\"nofollow\">Later week \xe2\x86\x92</a>");
	free(html);
	w.week = "2026-03-11"; /* any day names its week */
	html = week_page(m, march, NULL, &w);
	has(html, "<span class=\"range\">Mar 9 \xe2\x80\x93 Mar 15</span>");
	has(html, "value=\"2026-03-12T14:30:00Z|30\"");
	lacks(html, "Later week");
	has(html, "?week=2026-03-02&amp;mins=30");
	free(html);
	w.week = "2025-01-06"; /* the past is this week */
	html = week_page(m, march, NULL, &w);
	has(html, "<span class=\"range\">Feb 23 \xe2\x80\x93 Mar 1</span>");
	has(html, "<p class=\"empty\">No times this week. Try a later week.</p>");
	lacks(html, "Earlier week");
	lacks(html, "2026-02-27T14:30:00Z"); /* Friday's slot is before now */
	free(html);
	w.week = "2026-02-31\"><script>";
	html = week_page(m, march, NULL, &w);
	has(html, "<span class=\"range\">Mar 2 \xe2\x80\x93 Mar 8</span>");
	lacks(html, "<script>");
	free(html);
	manifest_free(m);
}

Test(booking, each_meeting_length_has_its_link_and_mins_picks_one)
{
	struct manifest *m = manifest_fixture_file("book");
	struct page_week w = { 0 };
	char *html;

	html = week_page(m, march, NULL, &w);
	has(html, "<nav class=\"lengths\" aria-label=\"Meeting length\">\n"
		  "<a href=\"/s/alice/book?week=2026-03-02&amp;mins=30\" aria-current=\"true\">30 min</a>\n"
		  "<a href=\"/s/alice/book?week=2026-03-02&amp;mins=60\">60 min</a>\n</nav>");
	free(html);
	w.mins = "60";
	html = week_page(m, march, NULL, &w);
	has(html, "<a href=\"/s/alice/book?week=2026-03-02&amp;mins=60\" aria-current=\"true\">60 min</a>");
	has(html, "value=\"2026-03-03T18:00:00Z|60\"");
	has(html, "value=\"2026-03-05T14:30:00Z|60\"");
	cr_assert_eq(count(html, "name=\"_slot\""), 2);
	has(html, "Pick a time (60 minutes)");
	lacks(html, "Later week"); /* no 60-minute slot after this week */
	free(html);
	w.mins = "45"; /* not offered: the shortest */
	html = week_page(m, march, NULL, &w);
	has(html, "Pick a time (30 minutes)");
	free(html);
	manifest_free(m);
}

Test(booking, a_refused_hold_comes_back_with_its_time_picked_and_its_errors)
{
	struct manifest *m = manifest_fixture_file("book");
	json_t *raw = json("{\"_slot\": \"2026-03-12T14:30:00Z|30\", \"requester_name\": \"Sam\", "
			   "\"requester_email\": \"sam@example\", \"first_time\": \"true\"}");
	json_t *fields = json_deep_copy(raw), *errors;
	struct page_week w = { 0 };
	char *html;

	json_object_del(fields, "_slot");
	errors = errors_of(m, fields);
	w.values = raw;
	w.errors = errors;
	html = week_page(m, march, NULL, &w);
	a_page(html);
	has(html, "<title>Error: Book a meeting</title>");
	has(html, "<span class=\"range\">Mar 9 \xe2\x80\x93 Mar 15</span>"); /* the kept slot's week */
	TAG_HAS(html, "slot-0", "value=\"2026-03-12T14:30:00Z|30\"", " checked");
	has(html, "<li><a href=\"#f-requester_email\">Your email</a>: this does not look like an email address</li>");
	has(html, "<li><a href=\"#f-topic\">What it is about</a>: this is required</li>");
	TAG_HAS(html, "f-requester_name", "value=\"Sam\"");
	TAG_HAS(html, "f-first_time", " checked");
	free(html);
	json_decref(raw);
	json_decref(fields);
	json_decref(errors);
	manifest_free(m);
}

Test(booking, the_notices_say_a_time_was_taken_a_hold_lapsed_or_the_times_are_old)
{
	struct manifest *m = manifest_fixture_file("book");
	struct page_week w = { 0 };
	char *html;

	w.notice = PAGE_WEEK_TAKEN;
	w.generated_at = "2026-02-28T10:00:00Z";
	html = week_page(m, march, NULL, &w);
	has(html, "<p class=\"notice\" role=\"status\">That time was just taken \xe2\x80\x94 these are still open.</p>");
	lacks(html, "last refreshed"); /* two hours old is fresh */
	free(html);
	w.notice = PAGE_WEEK_LAPSED;
	w.generated_at = "2026-02-26T10:00:00Z";
	html = week_page(m, march, NULL, &w);
	has(html, "Your held time lapsed before you confirmed \xe2\x80\x94 these are still open.");
	has(html, "These times were last refreshed on Thursday, Feb 26 \xe2\x80\x94 recent changes may not show.");
	free(html);
	w.notice = PAGE_WEEK_PLAIN;
	w.generated_at = "yesterday";
	html = week_page(m, march, NULL, &w);
	has(html, "These times may be out of date");
	lacks(html, "role=\"status\"");
	free(html);
	manifest_free(m);
}

/* ---- times in the owner's zone ----------------------------------------------------------- */

static struct manifest *booking_in(const char *zone)
{
	char *text = xasprintf("id = \"b\"\nversion = 1\ntitle = \"B\"\nkind = \"booking\"\n"
			       "[[fields]]\nname = \"e\"\nlabel = \"E\"\nkind = \"email\"\nrequired = true\n"
			       "[verification]\nfield = \"e\"\n"
			       "[availability]\ntimezone = \"%s\"\ndurations = [30]\n"
			       "windows = [{ day = \"mon\", start = \"09:00\", end = \"17:00\" }]\n",
			       zone);
	struct manifest *m = manifest_fixture_text(text);

	free(text);
	return m;
}

static void booked_reads(const char *zone, const char *start, const char *end, const char *want)
{
	struct manifest *m = booking_in(zone);
	char *html = page_booking_booked(&book_ctx, m, NULL, start, end), *line = xasprintf("<strong>%s</strong>", want);

	a_page(html);
	has(html, "<h1>You\xe2\x80\x99re booked</h1>");
	has(html, line);
	free(line);
	free(html);
	manifest_free(m);
}

Test(zone, the_booked_time_is_written_in_the_owners_zone_across_a_dst_change)
{
	/* New York springs forward at 2:00 am on Sunday, March 8, 2026 */
	booked_reads("America/New_York", "2026-03-08T06:30:00Z", "2026-03-08T07:30:00Z",
		     "Sunday, Mar 8 \xc2\xb7 1:30 am \xe2\x80\x93 3:30 am (America/New_York)");
	booked_reads("America/New_York", "2026-03-09T18:00:00Z", "2026-03-09T18:30:00Z",
		     "Monday, Mar 9 \xc2\xb7 2:00 pm \xe2\x80\x93 2:30 pm (America/New_York)");
	/* Berlin falls back at 3:00 am on Sunday, October 25, 2026 */
	booked_reads("Europe/Berlin", "2026-10-25T00:30:00Z", "2026-10-25T01:30:00Z",
		     "Sunday, Oct 25 \xc2\xb7 2:30 am \xe2\x80\x93 2:30 am (Europe/Berlin)");
	/* Sydney's DST runs over the new year */
	booked_reads("Australia/Sydney", "2026-01-05T23:00:00Z", "2026-01-06T00:00:00Z",
		     "Tuesday, Jan 6 \xc2\xb7 10:00 am \xe2\x80\x93 11:00 am (Australia/Sydney)");
}

Test(zone, the_booked_time_is_written_in_a_zone_off_the_hour_with_noon_and_midnight_as_people_say_them)
{
	booked_reads("Asia/Kolkata", "2026-08-25T08:30:00Z", "2026-08-25T09:00:00Z",
		     "Tuesday, Aug 25 \xc2\xb7 2:00 pm \xe2\x80\x93 2:30 pm (Asia/Kolkata)");
	booked_reads("Asia/Kolkata", "2026-08-24T18:30:00Z", "2026-08-25T06:30:00Z",
		     "Tuesday, Aug 25 \xc2\xb7 12:00 am \xe2\x80\x93 12:00 pm (Asia/Kolkata)");
	/* after 2037 the file's footer rule decides */
	booked_reads("America/New_York", "2040-07-04T16:00:00Z", "2040-07-04T16:45:00Z",
		     "Wednesday, Jul 4 \xc2\xb7 12:00 pm \xe2\x80\x93 12:45 pm (America/New_York)");
}

Test(zone, a_zone_that_cannot_be_read_is_said_to_be_utc)
{
	struct manifest *m = booking_in("America/New_York");
	struct page_week w = { 0 };
	char *html;

	setenv("TZDIR", "/nonexistent", 1);
	html = page_booking_booked(&book_ctx, m, NULL, "2026-03-09T18:00:00Z", "2026-03-09T18:30:00Z");
	has(html, "<strong>Monday, Mar 9 \xc2\xb7 6:00 pm \xe2\x80\x93 6:30 pm (UTC)</strong>");
	free(html);
	html = week_page(m, march, NULL, &w);
	has(html, "Times are shown in UTC.");
	free(html);
	unsetenv("TZDIR");
	manifest_free(m);
}

Test(zone, a_confirmation_page_shows_the_time_between_heading_and_body)
{
	struct manifest *m = manifest_fixture_text(
		"id = \"b\"\nversion = 1\ntitle = \"B\"\nkind = \"booking\"\n"
		"[[fields]]\nname = \"e\"\nlabel = \"E\"\nkind = \"email\"\nrequired = true\n"
		"[[fields]]\nname = \"n\"\nlabel = \"N\"\nkind = \"text\"\nmax_length = 40\n"
		"[verification]\nfield = \"e\"\n"
		"[confirmation]\nheading = \"See you, {n}\"\nbody = \"We will write to {e}.\"\n"
		"[availability]\ntimezone = \"Europe/Berlin\"\ndurations = [30]\n"
		"windows = [{ day = \"mon\", start = \"09:00\", end = \"17:00\" }]\n");
	json_t *values = json("{\"n\": \"<Sam>\", \"e\": \"s@x.org\"}");
	char *html = page_booking_booked(&book_ctx, m, values, "2026-03-09T08:00:00Z", "2026-03-09T08:30:00Z");

	a_page(html);
	has(html, "<h1>See you, &lt;Sam&gt;</h1>\n<p class=\"when-booked\"><strong>Monday, Mar 9 \xc2\xb7 "
		  "9:00 am \xe2\x80\x93 9:30 am (Europe/Berlin)</strong></p>\n<p>We will write to s@x.org.</p>");
	lacks(html, "booked</h1>");
	free(html);
	json_decref(values);
	manifest_free(m);
}

/* The zone reader against the C library's, instant by instant, 1900 to 2100. */
static void agrees_with_libc(const char *zone)
{
	struct page_zone *z = page_zone_load(zone);

	cr_assert_not_null(z, "%s does not load", zone);
	setenv("TZ", zone, 1);
	tzset();
	for (long long t = -2208988800LL; t < 4102444800LL; t += 86400 * 7 + 3607) {
		struct tm tm;
		time_t tt = (time_t)t;
		localtime_r(&tt, &tm);
		cr_assert_eq(page_zone_offset(z, tt), tm.tm_gmtoff, "%s at %lld: %ld, libc %ld", zone, t,
			     page_zone_offset(z, tt), (long)tm.tm_gmtoff);
	}
	page_zone_free(z);
	unsetenv("TZ");
}

Test(zone, offsets_agree_with_the_c_library_across_two_centuries)
{
	static const char *const zones[] = { "America/New_York", "Europe/Berlin",  "Europe/Dublin",
					      "Australia/Sydney", "Asia/Kolkata",   "America/Sao_Paulo",
					      "Pacific/Chatham",  "Africa/Casablanca", "UTC",
					      "America/St_Johns", "Australia/Lord_Howe" };

	for (size_t i = 0; i < sizeof zones / sizeof *zones; i++)
		agrees_with_libc(zones[i]);
}

Test(zone, a_file_that_is_not_a_zone_is_refused_whole)
{
	unsigned char junk[64];
	char *text;
	size_t len;
	struct err e;

	memset(junk, 0xff, sizeof junk);
	/* NOLINTNEXTLINE(bugprone-not-null-terminated-result): bytes of a binary zone file, not a string */
	memcpy(junk, "TZif2", 5);
	cr_assert_null(page_zone_parse(junk, sizeof junk));
	cr_assert_null(page_zone_parse((const unsigned char *)"TZif", 4));
	cr_assert_null(page_zone_load("../../etc/passwd"));
	cr_assert_null(page_zone_load("/etc/localtime"));
	cr_assert_null(page_zone_load("No/Such_Zone"));
	cr_assert_eq(fs_read("/usr/share/zoneinfo/America/New_York", &text, &len, &e), 0, "%s", e.msg);
	for (size_t cut = 0; cut < len; cut += 7) { /* every truncation: refused, or read up to its end */
		struct page_zone *z = page_zone_parse((const unsigned char *)text, cut);
		page_zone_free(z);
	}
	free(text);
}

/* ---- managing a booking -------------------------------------------------------------------- */

Test(manage, the_state_follows_the_row_the_clock_and_the_cutoff)
{
	struct manifest *m = manifest_fixture_file("book"); /* cancel_cutoff_hours = 4 */

	cr_assert_eq(page_manage_state(m, "confirmed", "2026-03-05T14:30:00Z", NOW), PAGE_MANAGE_ACTIVE);
	cr_assert_eq(page_manage_state(m, "confirmed", "2026-02-28T16:00:00Z", NOW), PAGE_MANAGE_ACTIVE);
	cr_assert_eq(page_manage_state(m, "confirmed", "2026-02-28T15:59:59Z", NOW), PAGE_MANAGE_INSIDE_CUTOFF);
	cr_assert_eq(page_manage_state(m, "confirmed", "2026-02-28T12:00:00Z", NOW), PAGE_MANAGE_PAST);
	cr_assert_eq(page_manage_state(m, "confirmed", "soon", NOW), PAGE_MANAGE_PAST);
	cr_assert_eq(page_manage_state(m, "cancelled_by_booker", "2026-03-05T14:30:00Z", NOW),
		     PAGE_MANAGE_CANCELLED);
	manifest_free(m);
}

Test(manage, only_an_active_booking_offers_the_cancel_button)
{
	struct manifest *m = manifest_fixture_file("book");
	static const char *const headings[] = { "<h1>Your booking</h1>", "<h1>Your booking</h1>",
						"<h1>This meeting has already happened</h1>",
						"<h1>Already cancelled</h1>" };

	for (int s = PAGE_MANAGE_ACTIVE; s <= PAGE_MANAGE_CANCELLED; s++) {
		char *html = page_booking_manage(&book_ctx, m, (enum page_manage)s, "2026-03-05T14:30:00Z",
						 "2026-03-05T15:00:00Z");
		a_page(html);
		has(html, headings[s]);
		if (s == PAGE_MANAGE_ACTIVE)
			has(html, "<form method=\"post\">\n<button type=\"submit\">Cancel this booking</button>\n</form>");
		else
			lacks(html, "<form");
		if (s == PAGE_MANAGE_INSIDE_CUTOFF)
			has(html, "starts within 4 hours, which is inside the cancellation window");
		if (s != PAGE_MANAGE_CANCELLED)
			has(html, "<strong>Thursday, Mar 5 \xc2\xb7 9:30 am \xe2\x80\x93 10:00 am (America/New_York)</strong>");
		if (s >= PAGE_MANAGE_PAST)
			has(html, "<a href=\"/s/alice/book\">Book a new time</a>");
		free(html);
	}
	manifest_free(m);
}

Test(manage, the_pages_after_a_hold_say_what_happens_next)
{
	struct manifest *m = manifest_fixture_file("book");
	char *held = page_booking_held(&book_ctx, m, "s&m@example.org", "2026-03-05T14:30:00Z", "2026-03-05T15:00:00Z", NULL, NULL);
	char *confirm = page_booking_confirm(&book_ctx, m), *cancelled = page_booking_cancelled(&book_ctx, m);
	char *dead = page_booking_dead_link(&book_ctx, m, PAGE_DEAD_CONFIRM);
	char *gone = page_booking_dead_link(&book_ctx, m, PAGE_DEAD_MANAGE);

	a_page(held);
	has(held, "<h1>Almost there</h1>");
	has(held, "Your time is held for 20 minutes. A confirmation link is on its way to "
		  "<strong>s&amp;m@example.org</strong>");
	has(held, "Thursday, Mar 5 \xc2\xb7 9:30 am");
	lacks(held, "still at");
	free(held);
	/* A move's hold: the booking's own time stands above the new one until the confirm. */
	held = page_booking_held(&book_ctx, m, "s&m@example.org", "2026-03-05T14:30:00Z",
				 "2026-03-05T15:00:00Z", "2026-03-04T14:30:00Z", "2026-03-04T15:00:00Z");
	a_page(held);
	has(held, "<p>Your booking is still at:</p>");
	has(held, "Wednesday, Mar 4 \xc2\xb7 9:30 am");
	has(held, "Thursday, Mar 5 \xc2\xb7 9:30 am");
	has(held, "confirming it moves the booking there");
	a_page(confirm);
	has(confirm, "<form method=\"post\">\n<button type=\"submit\">Confirm and book</button>\n</form>");
	a_page(cancelled);
	has(cancelled, "<h1>Cancelled</h1>");
	a_page(dead);
	has(dead, "<h1>This link is no longer valid</h1>");
	has(dead, "<a href=\"/s/alice/book\">Pick a time</a> to start again.");
	a_page(gone);
	has(gone, "<a href=\"/s/alice/book\">Book a time</a> if you need one.");
	free(held), free(confirm), free(cancelled), free(dead), free(gone);
	manifest_free(m);
}

/* ---- refusals and assets ------------------------------------------------------------------- */

Test(refusal, not_found_is_the_same_page_whoever_was_missing_and_links_no_asset)
{
	char *form = page_not_found(PAGE_NO_FORM), *again = page_not_found(PAGE_NO_FORM);
	char *booking = page_not_found(PAGE_NO_BOOKING);

	a_page(form);
	cr_assert_str_eq(form, again);
	has(form, "<title>Not found</title>");
	has(form, "There is no form here.");
	has(booking, "There is no booking page here.");
	lacks(form, "<link");
	lacks(form, "<script");
	free(form), free(again), free(booking);
}

Test(refusal, a_budget_page_says_to_try_tomorrow_and_never_why)
{
	char *sends = page_too_many(&form_ctx, PAGE_LIMIT_SENDS), *up = page_too_many(&form_ctx, PAGE_LIMIT_UPLOAD);
	char *holds = page_too_many(&book_ctx, PAGE_LIMIT_HOLDS), *down = page_unavailable(&form_ctx);

	a_page(sends);
	has(sends, "<h1>Too many requests</h1>\n<p>Please try again tomorrow.</p>");
	a_page(up);
	has(up, "<h1>Too much for today</h1>");
	a_page(holds);
	has(holds, "There are already times held for you.");
	a_page(down);
	has(down, "<h1>Unavailable</h1>");
	free(sends), free(up), free(holds), free(down);
}

Test(assets, the_stylesheet_and_the_script_are_served_by_name_and_nothing_else)
{
	const char *type = NULL, *css = page_asset(PAGE_CSS, &type);

	cr_assert_not_null(css);
	cr_assert_str_eq(type, "text/css; charset=utf-8");
	has(css, ".error");
	cr_assert_not_null(page_asset("form.js", &type));
	cr_assert_str_eq(type, "text/javascript; charset=utf-8");
	cr_assert_null(page_asset("../form.css", &type));
	cr_assert_null(page_asset("menu.js", &type));
	cr_assert_null(page_asset(NULL, &type));
}

Test(assets, the_script_knows_every_operator_a_manifest_may_write)
{
	const char *type, *js = page_asset(PAGE_JS, &type);

	for (int op = 0; op < CONDITION_OP_COUNT; op++) {
		char *needle = xasprintf("case \"%s\":", manifest_op_name((enum condition_op)op));
		has(js, needle);
		free(needle);
	}
	has(js, "data-when-field");
	has(js, "data-required");
}

Test(assets, a_page_links_the_assets_under_its_prefix_and_none_without_one)
{
	struct manifest *m = manifest_fixture_file("meeting");
	struct page_ctx bare = { "/f/alice/meeting", NULL, "de" };
	char *with = page_form(&form_ctx, m, NULL, NULL), *without = page_form(&bare, m, NULL, NULL);

	has(with, "<link rel=\"stylesheet\" href=\"/f/alice/t/form.css\">");
	has(without, "<html lang=\"de\">");
	lacks(without, "<link");
	lacks(without, "<script");
	free(with), free(without);
	manifest_free(m);
}

/* ---- the open-slot rule (box/slotrule.h) -------------------------------------------------- */

#include "base/rfc3339.h"

/* The rule as written in words: each slot against each blocked entry. */
static int plainly_open(const json_t *slot, const json_t *blocked, time_t now)
{
	time_t s, e, bs, be;
	const json_t *b;
	size_t i;

	rfc3339_parse(json_string_value(json_object_get(slot, "start")), &s);
	rfc3339_parse(json_string_value(json_object_get(slot, "end")), &e);
	if (s <= now)
		return 0;
	json_array_foreach(blocked, i, b) {
		rfc3339_parse(json_string_value(json_object_get(b, "start")), &bs);
		rfc3339_parse(json_string_value(json_object_get(b, "end")), &be);
		if (bs < e && s < be)
			return 0;
	}
	return 1;
}

static json_t *span_json(time_t start, time_t end, long long minutes)
{
	char s[RFC3339_LEN], e[RFC3339_LEN];

	rfc3339_format(start, s);
	rfc3339_format(end, e);
	return minutes ? json_pack("{s:s,s:s,s:I}", "start", s, "end", e, "duration_minutes",
				   (json_int_t)minutes)
		       : json_pack("{s:s,s:s}", "start", s, "end", e);
}

Test(slotrule, the_sweep_agrees_with_every_slot_against_every_hold)
{
	unsigned seed = 25;

	for (int round = 0; round < 200; round++) {
		json_t *slots = json_array(), *blocked = json_array();
		int nslots = rand_r(&seed) % 60, nblocked = rand_r(&seed) % 40;
		struct slotrule_slot *all, *open;
		size_t n, want = 0;

		for (int i = 0; i < nslots; i++) {
			time_t start = NOW - 3600 + (time_t)(rand_r(&seed) % 96) * 900;
			long long mins = 15 * (1 + rand_r(&seed) % 4);
			json_array_append_new(slots, span_json(start, start + mins * 60, mins));
		}
		for (int i = 0; i < nblocked; i++) {
			time_t start = NOW + (time_t)(rand_r(&seed) % 200) * 300;
			json_array_append_new(blocked,
					      span_json(start, start + 60 * (1 + rand_r(&seed) % 240), 0));
		}
		n = slotrule_parse(slots, &all);
		n = slotrule_open(all, n, blocked, NOW, &open);
		free(all);
		for (size_t i = 0; i < json_array_size(slots); i++)
			want += (size_t)plainly_open(json_array_get(slots, i), blocked, NOW);
		cr_assert_eq(n, want, "round %d: %zu open, the plain rule says %zu", round, n, want);
		for (size_t i = 0; i < n; i++) {
			cr_assert(plainly_open(json_array_get(slots, open[i].index), blocked, NOW));
			cr_assert(i == 0 || open[i - 1].start <= open[i].start, "in start order");
		}
		free(open);
		json_decref(slots);
		json_decref(blocked);
	}
}

Test(slotrule, a_blocked_entry_that_does_not_parse_leaves_nothing_open_and_no_cache_is_none)
{
	json_t *slots = json(march), *bad = json("[{\"start\": \"2026-03-03T18:00:00Z\"}]");
	struct slotrule_slot *all, *open;
	size_t n = slotrule_parse(slots, &all);

	cr_assert_eq(n, 7);
	cr_assert_eq(slotrule_open(all, n, bad, NOW, &open), 0);
	free(open);
	cr_assert_eq(slotrule_open(all, n, NULL, NOW, &open), 6); /* Feb 27's is past */
	free(open);
	free(all);
	cr_assert_eq(slotrule_parse(NULL, &all), 0);
	cr_assert_not_null(all);
	free(all);
	json_decref(slots);
	json_decref(bad);
}
