/*
 * Which drafts a decision applies to, and when a person must confirm it
 * first: the same answers for the CLI's approve and reject and the review
 * screen.
 */
#include "outbox_fixture.h"

#include "outbox/release.h"
#include "outbox/select.h"

static struct fixture f;

static void setup(void)
{
	fixture_setup(&f);
}

static void teardown(void)
{
	fixture_teardown(&f);
}

TestSuite(select, .init = setup, .fini = teardown);

/* The ids selected, space-separated, in order (a new string). */
static char *selected(const struct outbox_selection *sel)
{
	struct outbox_list l;
	struct buf b = BUF_INIT;
	struct err e;

	cr_assert_eq(outbox_select(&f.s, sel, &l, NULL, &e), 0, "%s", e.msg);
	for (size_t i = 0; i < l.n; i++)
		buf_printf(&b, "%s%s", i ? " " : "", l.items[i].id);
	outbox_list_free(&l);
	return b.data ? buf_steal(&b) : xstrdup("");
}

static char *join(const char *a, const char *b)
{
	return b ? xasprintf("%s %s", a, b) : xstrdup(a);
}

Test(select, a_unique_prefix_names_its_draft_whatever_its_status)
{
	char *a = fixture_stage(&f, "mail_send", NULL, MAIL_ARGS, 0);
	char *b = fixture_stage(&f, "mail_send", NULL, MAIL_ARGS, 0);
	char *prefix = xstrndup(b, strlen(b) - 2);
	char *ids[] = { prefix };
	struct outbox_selection sel = { .ids = ids, .n = 1 };
	struct err e;
	char *got;

	cr_assert_eq(outbox_store_resolve(&f.s, b, OUTBOX_SENT, NULL, &e), 0, "%s", e.msg);
	got = selected(&sel);
	cr_assert_str_eq(got, b);
	free(got), free(prefix), free(a), free(b);
}

Test(select, a_draft_named_twice_is_selected_once_in_the_order_named)
{
	char *a = fixture_stage(&f, "mail_send", NULL, MAIL_ARGS, 0);
	char *b = fixture_stage(&f, "mail_send", NULL, MAIL_ARGS, 0);
	char *prefix = xstrndup(a, strlen(a) - 1);
	char *ids[] = { b, a, prefix, b };
	struct outbox_selection sel = { .ids = ids, .n = 4 };
	char *got = selected(&sel), *want = join(b, a);

	cr_assert_str_eq(got, want);
	free(got), free(want), free(prefix), free(a), free(b);
}

Test(select, all_means_every_pending_draft_in_id_order)
{
	char *a = fixture_stage(&f, "mail_send", NULL, MAIL_ARGS, 0);
	char *b = fixture_stage(&f, "mail_send", NULL, MAIL_ARGS, 0);
	char *c = fixture_stage(&f, "mail_send", NULL, MAIL_ARGS, 0);
	struct outbox_selection sel = { .all = 1 };
	struct err e;
	/* Ids sort in staging order across seconds; within one, by their random part. */
	char *got, *want = strcmp(a, c) < 0 ? join(a, c) : join(c, a);

	cr_assert_eq(outbox_store_resolve(&f.s, b, OUTBOX_REJECTED, "no", &e), 0, "%s", e.msg);
	got = selected(&sel);
	cr_assert_str_eq(got, want);
	free(got), free(want), free(a), free(b), free(c);
}

Test(select, kind_and_via_narrow_all_and_named_drafts_alike)
{
	char *mail = fixture_stage(&f, "mail_send", NULL, MAIL_ARGS, 0);
	char *invite = fixture_stage(&f, "calendar_invite", "publish", "{\"title\":\"launch\"}", 0);
	char *ids[] = { mail, invite };
	struct outbox_selection by_kind = { .all = 1, .kind = "publish" };
	struct outbox_selection by_via = { .all = 1, .via = "mail" };
	struct outbox_selection named = { .ids = ids, .n = 2, .via = "calendar" };
	struct outbox_selection none = { .all = 1, .kind = "message", .via = "calendar" };
	char *got;

	got = selected(&by_kind);
	cr_assert_str_eq(got, invite);
	free(got);
	got = selected(&by_via);
	cr_assert_str_eq(got, mail);
	free(got);
	got = selected(&named);
	cr_assert_str_eq(got, invite);
	free(got);
	got = selected(&none);
	cr_assert_str_eq(got, "");
	free(got), free(mail), free(invite);
}

Test(select, an_unknown_or_ambiguous_prefix_selects_nothing)
{
	char *a = fixture_stage(&f, "mail_send", NULL, MAIL_ARGS, 0);
	char *b = fixture_stage(&f, "mail_send", NULL, MAIL_ARGS, 0);
	char *unknown[] = { a, "nope" }, *ambiguous[] = { a, "2" };
	struct outbox_selection sel = { .ids = unknown, .n = 2 };
	struct outbox_list l;
	struct err e;

	cr_assert_eq(outbox_select(&f.s, &sel, &l, NULL, &e), -1);
	cr_assert_eq(e.code, ERR_NOT_FOUND, "%s", e.msg);
	cr_assert_eq(l.n, 0);
	sel.ids = ambiguous;
	cr_assert_eq(outbox_select(&f.s, &sel, &l, NULL, &e), -1);
	cr_assert_eq(e.code, ERR_AMBIGUOUS, "%s", e.msg);
	cr_assert_eq(l.n, 0);
	free(a), free(b);
}

/* The confirmation rule over the drafts staged with these taints. */
static int needs(const int *tainted, size_t n, int yes)
{
	struct outbox_selection sel = { .all = 1 };
	struct outbox_list l;
	struct err e;
	int rc;

	for (size_t i = 0; i < n; i++)
		free(fixture_stage(&f, "mail_send", NULL, MAIL_ARGS, tainted[i]));
	cr_assert_eq(outbox_select(&f.s, &sel, &l, NULL, &e), 0, "%s", e.msg);
	rc = release_needs_confirmation(&l, yes);
	outbox_list_free(&l);
	return rc;
}

Test(select, one_clean_draft_is_released_without_asking)
{
	cr_assert_eq(needs((int[]){ 0 }, 1, 0), 0);
}

Test(select, nothing_selected_asks_nothing)
{
	cr_assert_eq(needs(NULL, 0, 0), 0);
}

Test(select, more_than_one_draft_at_once_asks_first)
{
	cr_assert_eq(needs((int[]){ 0, 0 }, 2, 0), 1);
}

Test(select, a_tainted_draft_asks_first)
{
	cr_assert_eq(needs((int[]){ 1 }, 1, 0), 1);
}

Test(select, a_yes_given_beforehand_asks_nothing)
{
	cr_assert_eq(needs((int[]){ 1, 0 }, 2, 1), 0);
}
