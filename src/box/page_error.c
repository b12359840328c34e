/*
 * page_error — the refusals a stranger can meet: nothing here, too many,
 * unavailable. Each says what happened in words a person can act on and
 * nothing about why beyond that: a 404 is the same bytes for an unknown
 * owner, an unknown type and a suspended one, and a 429 never says whether
 * an address has been used before.
 */
#include "box/page.h"

#include "base/buf.h"
#include "box/html.h"
#include "box/page_parts.h"

#include <stdlib.h>

char *page_not_found(enum page_missing what)
{
	static const char *const sentence[] = {
		[PAGE_NO_FORM] = "<p>There is no form here.</p>\n",
		[PAGE_NO_BOOKING] = "<p>There is no booking page here.</p>\n",
		[PAGE_NO_PAGE] = "<p>There is nothing here.</p>\n",
	};

	/* No stylesheet and no context: an asset path would tell owners apart. */
	return page_simple(NULL, "Not found", "Not found",
			   what <= PAGE_NO_PAGE ? sentence[what] : sentence[PAGE_NO_PAGE]);
}

char *page_too_many(const struct page_ctx *ctx, enum page_limit which)
{
	if (which == PAGE_LIMIT_UPLOAD)
		return page_simple(ctx, "Too much for today", "Too much for today",
				   "<p>This connection has uploaded as much as it may today. "
				   "Please try again tomorrow.</p>\n");
	if (which == PAGE_LIMIT_HOLDS)
		return page_simple(ctx, "Too many held times", "Too many held times",
				   "<p>There are already times held for you. Confirm them from "
				   "your email, or let the holds lapse, then pick again.</p>\n");
	return page_simple(ctx, "Too many requests", "Too many requests",
			   "<p>Please try again tomorrow.</p>\n");
}

char *page_unavailable(const struct page_ctx *ctx)
{
	return page_simple(ctx, "Unavailable", "Unavailable",
			   "<p>This page cannot be shown right now. Please try again later.</p>\n");
}

static char *too_much_sentence(size_t cap)
{
	return xasprintf("this sent more answers than the page takes (at most %zu), so nothing "
			 "was kept", cap);
}

json_t *page_too_much_errors(size_t cap)
{
	char *msg = too_much_sentence(cap);
	json_t *errors = json_pack("[{s:s,s:s}]", "field", "_", "message", msg);

	free(msg);
	return errors;
}

char *page_too_much(const struct page_ctx *ctx, size_t cap)
{
	char *msg = too_much_sentence(cap), *doc;
	struct buf b = BUF_INIT;

	html_put(&b, "<p>Nothing was done: %s. Go back and try again.</p>\n", msg);
	doc = page_simple(ctx, "Too much sent", "Too much sent", buf_str(&b));
	buf_free(&b);
	free(msg);
	return doc;
}
