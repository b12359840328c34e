/*
 * fuzz_outbox_item — an outbox item is written by an agent (through the MCP
 * server) or by another tool: bytes we do not control. Parse it as the store
 * does, and when it reads, build the summary and the mail message a release
 * would send, checking that no byte of it can add a header or end the
 * message early.
 */
#include "base/err.h"
#include "outbox/item.h"
#include "outbox/mail.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const headers[] = { "From: ", "To: ", "Cc: ", "Subject: ", "Date: ",
				       "Message-ID: ", "MIME-Version: ", "Content-Type: ",
				       "Content-Transfer-Encoding: " };

static int known_header(const char *line)
{
	if (line[0] == ' ')
		return 1; /* a folded continuation */
	for (size_t i = 0; i < sizeof headers / sizeof headers[0]; i++)
		if (strncmp(line, headers[i], strlen(headers[i])) == 0)
			return 1;
	return 0;
}

/* CRLF everywhere, no long line, only our headers, no line that is a lone dot. */
static void check_message(const struct mail_message *m)
{
	const char *p = m->text, *end = m->text + m->len;
	int in_headers = 1;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl || nl == p || nl[-1] != '\r' || nl - p > 1000)
			__builtin_trap();
		if (in_headers && nl - 1 == p)
			in_headers = 0;
		else if (in_headers && !known_header(p))
			__builtin_trap();
		else if (!in_headers && p[0] == '.')
			__builtin_trap();
		p = nl + 1;
	}
	if (in_headers)
		__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct outbox_item it;
	struct mail_message m;
	struct err e;
	char *summary;

	if (outbox_item_parse(&it, (const char *)data, size, "fuzz.json", &e) != 0)
		return 0;
	summary = outbox_item_summary(it.tool, it.args);
	if (strlen(summary) > OUTBOX_SUMMARY_MAX + 3)
		__builtin_trap();
	free(summary);
	if (mail_build("Fuzz <fuzz@example.org>", it.id, it.args, 0, &m, &e) == 0) {
		check_message(&m);
		mail_message_free(&m);
	}
	outbox_item_free(&it);
	return 0;
}
