/*
 * invite — what a calendar_invite draft must hold to be staged, and the
 * refusal its release gives until the calendar can take it.
 */
#include "outbox/invite.h"

#include "base/err.h"
#include "outbox/mail.h"
#include "outbox/sink.h"

#include <string.h>

static int invite_unavailable(struct err *e)
{
	return err_set(e, ERR_UNAVAILABLE, "calendar_invite cannot be delivered yet: its sink "
		       "arrives with calendar support; nothing was sent");
}

static int invite_available(const struct config *cfg, struct err *e)
{
	(void)cfg;
	invite_unavailable(e);
	return 0;
}

static int one_line(const json_t *args, const char *key, struct err *e)
{
	const json_t *v = json_object_get(args, key);

	if (!v || json_is_null(v))
		return 0;
	if (!json_is_string(v))
		return err_set(e, ERR_BAD_ARGS, "'%s' must be a string", key);
	if (memchr(json_string_value(v), '\n', json_string_length(v)) ||
	    memchr(json_string_value(v), '\r', json_string_length(v)))
		return err_set(e, ERR_BAD_ARGS, "'%s' must be a single line", key);
	return 0;
}

/* The invitation is mailed: its recipient and its subject obey the mail rules. */
static int invite_check(const json_t *args, struct err *e)
{
	const json_t *to = json_object_get(args, "to");

	if (!json_is_object(args))
		return err_set(e, ERR_BAD_ARGS, "an invite draft's args must be a JSON object");
	if (to && !json_is_null(to) &&
	    (!json_is_string(to) ||
	     mail_check_address(json_string_value(to), json_string_length(to), "to", e) != 0))
		return json_is_string(to) ? -1 : err_set(e, ERR_BAD_ARGS, "'to' must be an address");
	return one_line(args, "subject", e) != 0 || one_line(args, "title", e) != 0 ? -1 : 0;
}

static int invite_recipient(const char *to, struct err *e)
{
	return mail_check_address(to, strlen(to), "reply_to", e);
}

static int invite_prepare(const struct config *cfg, const struct outbox_item *it, void **job,
			  struct err *e)
{
	(void)cfg;
	(void)it;
	(void)job;
	return invite_unavailable(e);
}

static const char *const invite_names[] = { "calendar_invite", NULL };

const struct sink invite_sink = {
	SINK_INVITE, invite_names, invite_available, invite_check, invite_recipient,
	invite_prepare, NULL, NULL,
};
