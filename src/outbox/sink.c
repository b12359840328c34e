/*
 * sink — the table itself, and the questions every caller asks of it.
 */
#include "outbox/sink.h"

#include "base/buf.h"
#include "base/err.h"
#include "base/text.h"
#include "config/config.h"
#include "outbox/invite.h"
#include "outbox/mail.h"

#include <string.h>

/* How much of a caller's tool name a refusal repeats. */
#define NAME_ECHO_MAX 64

/* In enum sink_kind order. */
static const struct sink *const sinks[] = {
	[SINK_MAIL] = &mail_sink,
	[SINK_INVITE] = &invite_sink,
	[SINK_CANCEL] = &cancel_sink,
};

#define NSINKS (sizeof sinks / sizeof sinks[0])

static const struct sink *sink_named(const char *tool)
{
	for (size_t i = 0; tool && i < NSINKS; i++)
		for (const char *const *n = sinks[i]->names; *n; n++)
			if (strcmp(*n, tool) == 0)
				return sinks[i];
	return NULL;
}

static const char *echo(struct buf *b, const char *s)
{
	text_safe(b, s, text_utf8_clip(s, strlen(s), NAME_ECHO_MAX), 0);
	return buf_str(b);
}

const struct sink *sink_find(const char *tool, struct err *e)
{
	const struct sink *k = sink_named(tool);
	struct buf b = BUF_INIT;

	if (!k)
		err_set(e, ERR_UNAVAILABLE, "tool %s is not available in this configuration",
			echo(&b, tool ? tool : ""));
	buf_free(&b);
	return k;
}

const char *sink_tool(enum sink_kind kind)
{
	return sinks[kind]->names[0];
}

static int unknown_tool(const char *tool, struct err *e)
{
	struct buf b = BUF_INIT, names = BUF_INIT;

	for (size_t i = 0; i < NSINKS; i++)
		buf_printf(&names, "%s%s", i ? ", " : "", sinks[i]->names[0]);
	err_set(e, ERR_UNKNOWN_TOOL, "no tool is called '%s': a draft is staged only for a tool "
		"mecha knows (%s); nothing was staged", echo(&b, tool), buf_str(&names));
	buf_free(&b);
	buf_free(&names);
	return -1;
}

int sink_check(const char *tool, const json_t *args, struct err *e)
{
	const struct sink *k = sink_named(tool);

	if (!k)
		return unknown_tool(tool ? tool : "", e);
	if (k->check(args, e) != 0) {
		/* At staging a draft the sink could not deliver is the stager's mistake. */
		e->code = ERR_BAD_ARGUMENTS;
		return -1;
	}
	return 0;
}

int sink_check_recipient(enum sink_kind kind, const char *to, struct err *e)
{
	if (sinks[kind]->recipient(to, e) != 0) {
		e->code = ERR_BAD_ARGUMENTS;
		return -1;
	}
	return 0;
}

int sink_available(const struct config *cfg, const char *tool, struct err *e)
{
	const struct sink *k = sink_find(tool, e);

	return k ? k->available(cfg, e) : 0;
}

int sink_routed(const struct config *cfg, enum sink_kind kind, struct err *e)
{
	if (config_outbox_routes(cfg, sink_tool(kind)))
		return 1;
	err_set(e, ERR_UNROUTED, "[outbox] tools in config.toml does not name %s, so drafts "
		"would have nowhere to go", sink_tool(kind));
	return 0;
}
