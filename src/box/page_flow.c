/*
 * page_flow — the pages between a valid form and the queue: check your
 * email, the Confirm button, the thank-you, and the link that no longer works.
 *
 * The Confirm page exists so that a GET never spends a token: mail scanners
 * fetch every link in a message, and a GET that confirmed would confirm for
 * them. It says nothing of the token's state either (that would make the GET
 * an oracle); only the POST behind its button finds out. The answer to a
 * valid form depends on the address alone, never on what the mail did.
 */
#include "box/page.h"

#include "base/buf.h"
#include "base/text.h"
#include "box/html.h"
#include "box/page_parts.h"
#include "types/confirmation.h"
#include "types/manifest.h"

#include <stdlib.h>
#include <string.h>
#include <string.h>

char *page_check_email(const struct page_ctx *ctx, const struct manifest *m, const char *address)
{
	long long hours = m->verification ? m->verification->expires_hours : 48;
	struct buf b = BUF_INIT;

	page_open(&b, ctx, "Check your email", 0);
	html_put(&b,
		 "<h1>Check your email</h1>\n"
		 "<p>A confirmation link is on its way to <strong>%s</strong>. Nothing reaches "
		 "anyone until you open it and confirm. The link works once, within %lld "
		 "hour%s.</p>\n"
		 "<p>If nothing arrives, look in your spam folder, or fill in "
		 "<a href=\"%s\">the form</a> again.</p>\n",
		 address, hours, hours == 1 ? "" : "s", ctx->base);
	return page_close(&b);
}

char *page_confirm(const struct page_ctx *ctx, const struct manifest *m)
{
	struct buf b = BUF_INIT;

	page_open(&b, ctx, m->title, 0);
	html_put(&b,
		 "<h1>Confirm your email address</h1>\n"
		 "<p>One more click. It is a separate step so that a mail scanner opening the link "
		 "cannot confirm for you. Confirming sends your %s request on its way.</p>\n"
		 "<form method=\"post\">\n<button type=\"submit\">Confirm</button>\n</form>\n",
		 m->title);
	return page_close(&b);
}

/* text filled from values as confirmation_render fills a body, trimmed, escaped into b. */
static void filled(struct buf *b, const struct manifest_confirmation *c, const char *text,
		   const json_t *values)
{
	struct manifest_confirmation one = *c;
	char *out;
	size_t off, n;

	one.body = (char *)text;
	out = confirmation_render(&one, values);
	text_trim(out, strlen(out), &off, &n);
	html_escape(b, out + off, n);
	free(out);
}

/*
 * The [confirmation], with its heading filled the way its body is (further
 * than the other box, which shows a heading's "{name}" as written:
 * docs/protocol/box-pages.md §7), the
 * booked time between them when there is one.
 */
void page_confirmation(struct buf *b, const struct manifest *m, const json_t *values,
		       const char *when_start, const char *when_end)
{
	const struct manifest_confirmation *c = m->confirmation;

	buf_adds(b, "<h1>");
	filled(b, c, c->heading, values);
	buf_adds(b, "</h1>\n");
	if (when_start)
		page_when(b, m, when_start, when_end);
	buf_adds(b, "<p>");
	filled(b, c, c->body, values);
	buf_adds(b, "</p>\n");
	if (c->expect_reply_within)
		html_put(b, "<p class=\"intro\">You should hear back within %s.</p>\n",
			 c->expect_reply_within);
}

char *page_confirmed(const struct page_ctx *ctx, const struct manifest *m, const json_t *values)
{
	struct buf b = BUF_INIT;

	page_open(&b, ctx, m->title, 0);
	if (m->confirmation)
		page_confirmation(&b, m, values, NULL, NULL);
	else
		buf_adds(&b, "<h1>Confirmed</h1>\n<p>Thank you \xe2\x80\x94 that is now with a "
			     "person.</p>\n");
	return page_close(&b);
}

char *page_expired(const struct page_ctx *ctx, const struct manifest *m)
{
	struct buf b = BUF_INIT;

	(void)m; /* one page for expired, spent and never-was, whatever the type */
	page_open(&b, ctx, "That link has expired", 0);
	html_put(&b,
		 "<h1>That link has expired</h1>\n"
		 "<p>Confirmation links work once and for a limited time. Filling in "
		 "<a href=\"%s\">the form</a> again will send a new one.</p>\n",
		 ctx->base);
	return page_close(&b);
}

char *page_form_spent(const struct page_ctx *ctx, const struct manifest *m, const char *outcome)
{
	struct buf b = BUF_INIT;

	page_open(&b, ctx, m->title, 0);
	if (strcmp(outcome, "uploaded") == 0) {
		buf_adds(&b, "<h1>Already received</h1>\n<p>This link was used already: your "
			     "files were uploaded and your request was received. There is nothing "
			     "more to do.</p>\n");
	} else if (strcmp(outcome, "awaiting_upload") == 0) {
		html_put(&b,
			 "<h1>Already confirmed</h1>\n<p>Your address is confirmed. Your request "
			 "still waits for its files, on the upload page this link opened. Without "
			 "that page, filling in <a href=\"%s\">the form</a> again starts afresh.</p>\n",
			 ctx->base);
	} else {
		buf_adds(&b, "<h1>Already confirmed</h1>\n<p>This link was used already: your "
			     "request was received. There is nothing more to do.</p>\n");
	}
	return page_close(&b);
}
