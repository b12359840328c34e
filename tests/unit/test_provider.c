/*
 * The providers against a real loopback server speaking both wire formats:
 * what goes on the wire (and what does not), how every kind of answer and
 * failure comes back, and that a batch really keeps calls in flight together.
 */
#include <criterion/criterion.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/hash.h"
#include "base/jsonio.h"
#include "provider/anthropic.h"
#include "provider/openai.h"
#include "provider/provider.h"

#include "model_server.h"

#include <string.h>
#include <time.h>

#define KEY "sk-test-0123456789"
#define PROMPT "Describe this text.\n--- BEGIN ---\nhello\n--- END ---\n"

static struct model_server ms;
static char base[2][96];

static void stop_server(void)
{
	model_server_stop(&ms);
}

TestSuite(provider, .fini = stop_server, .timeout = 30);

static const char *const kinds[] = { "openai", "anthropic" };

static struct provider_conf conf_for(int k)
{
	struct provider_conf c = { 0 };

	snprintf(base[0], sizeof base[0], "http://127.0.0.1:%d/v1", ms.port);
	snprintf(base[1], sizeof base[1], "http://127.0.0.1:%d", ms.port);
	c.name = "scripted";
	c.kind = kinds[k];
	c.base_url = base[k];
	c.model = "test-model";
	c.api_key = KEY;
	return c;
}

static void one_prompt(struct provider_request *req)
{
	provider_request_init(req, 4096);
	provider_request_user(req, PROMPT);
}

/* Calls the server once with a one-message request; returns provider_complete's result. */
static int call(int k, struct provider_response *resp, struct err *e)
{
	struct provider_conf c = conf_for(k);
	struct provider_request req;
	int rc;

	one_prompt(&req);
	rc = provider_complete(&c, &req, resp, e);
	provider_request_free(&req);
	return rc;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static size_t key_count(const json_t *o)
{
	return json_object_size(o);
}

/* --- what goes on the wire --------------------------------------------- */

Test(provider, a_one_shot_call_sends_exactly_one_user_message_and_no_system_or_tools)
{
	char keyhash[HASH_SHA256_HEX_LEN + 1], *want;
	json_t *reqs;

	hash_sha256_hex(KEY, strlen(KEY), keyhash);
	model_server_start(&ms, "[{\"text\":\"hi\"},{\"text\":\"hi\"}]", NULL);
	for (int k = 0; k < 2; k++) {
		struct provider_response resp;
		struct err e;

		cr_assert_eq(call(k, &resp, &e), 0, "%s", e.msg);
		cr_assert_str_eq(resp.text, "hi");
		cr_assert_eq(resp.stop, PROVIDER_STOP_END);
		cr_assert_eq(resp.ncalls, 0);
		cr_assert_eq(resp.input_tokens, 10);
		cr_assert_eq(resp.output_tokens, 5);
		provider_response_free(&resp);
	}
	reqs = model_server_requests(&ms);
	cr_assert_eq(json_array_size(reqs), 2);
	for (int k = 0; k < 2; k++) {
		json_t *r = json_array_get(reqs, (size_t)k), *body = json_object_get(r, "body");
		json_t *headers = json_object_get(r, "headers");
		json_t *msgs = json_object_get(body, "messages");
		json_t *m0 = json_array_get(msgs, 0);

		cr_assert_str_eq(jsonio_str(r, "path"), k == 0 ? "/v1/chat/completions" : "/v1/messages");
		/* model, messages, max_tokens — and nothing else: no system, no tools, no caching. */
		cr_assert_eq(key_count(body), 3, "body: %s", jsonio_compact(body));
		cr_assert_str_eq(jsonio_str(body, "model"), "test-model");
		cr_assert_eq(json_integer_value(json_object_get(body, "max_tokens")), 4096);
		cr_assert_null(json_object_get(body, "tools"));
		cr_assert_null(json_object_get(body, "system"));
		cr_assert_eq(json_array_size(msgs), 1);
		cr_assert_eq(key_count(m0), 2);
		cr_assert_str_eq(jsonio_str(m0, "role"), "user");
		cr_assert_str_eq(jsonio_str(m0, "content"), PROMPT);
		cr_assert_str_eq(jsonio_str(headers, "content-type"), "application/json");
		if (k == 0) {
			want = xasprintf("Bearer <redacted sha256:%s>", keyhash);
			cr_assert_str_eq(jsonio_str(headers, "authorization"), want);
			cr_assert_null(json_object_get(headers, "x-api-key"));
		} else {
			want = xasprintf("<redacted sha256:%s>", keyhash);
			cr_assert_str_eq(jsonio_str(headers, "x-api-key"), want);
			cr_assert_str_eq(jsonio_str(headers, "anthropic-version"), "2023-06-01");
			cr_assert_null(json_object_get(headers, "authorization"));
		}
		free(want);
	}
	json_decref(reqs);
}

Test(provider, without_a_key_no_credential_header_is_sent)
{
	json_t *reqs;

	model_server_start(&ms, "[]", NULL);
	for (int k = 0; k < 2; k++) {
		struct provider_conf c = conf_for(k);
		struct provider_request req;
		struct provider_response resp;
		struct err e;

		c.api_key = NULL;
		one_prompt(&req);
		cr_assert_eq(provider_complete(&c, &req, &resp, &e), 0, "%s", e.msg);
		provider_response_free(&resp);
		provider_request_free(&req);
	}
	reqs = model_server_requests(&ms);
	for (size_t i = 0; i < 2; i++) {
		json_t *h = json_object_get(json_array_get(reqs, i), "headers");

		cr_assert_null(json_object_get(h, "authorization"));
		cr_assert_null(json_object_get(h, "x-api-key"));
	}
	json_decref(reqs);
}

Test(provider, a_system_text_and_tools_go_out_in_each_wire_format_s_own_shape)
{
	json_t *params = json_pack("{s:s,s:{s:{s:s}},s:[s]}", "type", "object", "properties",
				   "subject", "type", "string", "required", "subject");
	json_t *reqs;

	model_server_start(&ms, "[]", NULL);
	for (int k = 0; k < 2; k++) {
		struct provider_conf c = conf_for(k);
		struct provider_request req;
		struct provider_response resp;
		struct err e;

		one_prompt(&req);
		provider_request_system(&req, "You draft replies.");
		provider_request_tool(&req, "draft_reply", "Stage a reply.", params);
		cr_assert_eq(provider_complete(&c, &req, &resp, &e), 0, "%s", e.msg);
		provider_response_free(&resp);
		provider_request_free(&req);
	}
	reqs = model_server_requests(&ms);
	{
		json_t *b = json_object_get(json_array_get(reqs, 0), "body");
		json_t *msgs = json_object_get(b, "messages");
		json_t *tool = json_array_get(json_object_get(b, "tools"), 0);

		cr_assert_eq(json_array_size(msgs), 2);
		cr_assert_str_eq(jsonio_str(json_array_get(msgs, 0), "role"), "system");
		cr_assert_str_eq(jsonio_str(json_array_get(msgs, 0), "content"), "You draft replies.");
		cr_assert_str_eq(jsonio_str(tool, "type"), "function");
		cr_assert_str_eq(jsonio_str(json_object_get(tool, "function"), "name"), "draft_reply");
		cr_assert(json_equal(json_object_get(json_object_get(tool, "function"), "parameters"),
				     params));
	}
	{
		json_t *b = json_object_get(json_array_get(reqs, 1), "body");
		json_t *tool = json_array_get(json_object_get(b, "tools"), 0);

		cr_assert_str_eq(jsonio_str(b, "system"), "You draft replies.");
		cr_assert_eq(json_array_size(json_object_get(b, "messages")), 1);
		cr_assert_str_eq(jsonio_str(tool, "name"), "draft_reply");
		cr_assert_str_eq(jsonio_str(tool, "description"), "Stage a reply.");
		cr_assert(json_equal(json_object_get(tool, "input_schema"), params));
	}
	json_decref(reqs);
	json_decref(params);
}

/* --- what comes back ---------------------------------------------------- */

Test(provider, fenced_json_comes_back_as_the_text_the_model_wrote)
{
	model_server_start(&ms, "[{\"fenced\":{\"topic\":\"a talk\"}},{\"fenced\":{\"topic\":\"a talk\"}}]",
			   NULL);
	for (int k = 0; k < 2; k++) {
		struct provider_response resp;
		struct err e;

		cr_assert_eq(call(k, &resp, &e), 0, "%s", e.msg);
		cr_assert(strstr(resp.text, "```json\n{\n  \"topic\": \"a talk\"\n}\n```") != NULL,
			  "%s", resp.text);
		cr_assert_eq(resp.stop, PROVIDER_STOP_END);
		provider_response_free(&resp);
	}
}

Test(provider, a_refusal_is_a_response_with_its_reason_not_an_error)
{
	model_server_start(&ms,
			   "[{\"refusal\":\"I will not summarise this.\"},"
			   " {\"refusal\":\"Declined by policy.\",\"category\":\"cyber\"},"
			   " {\"content_filter\":true}]",
			   NULL);
	for (int k = 0; k < 3; k++) {
		struct provider_response resp;
		struct err e;

		cr_assert_eq(call(k == 1, &resp, &e), 0, "%s", e.msg);
		cr_assert_eq(resp.stop, PROVIDER_STOP_REFUSAL);
		cr_assert_str_eq(provider_stop_name(resp.stop), "refusal");
		if (k == 0) {
			cr_assert_str_eq(resp.refusal_text, "I will not summarise this.");
			cr_assert_str_eq(resp.text, "");
		} else if (k == 1) {
			cr_assert_str_eq(resp.refusal_category, "cyber");
			cr_assert_str_eq(resp.refusal_text, "Declined by policy.");
			cr_assert_str_eq(resp.stop_raw, "refusal");
		} else {
			cr_assert_str_eq(resp.refusal_category, "content_filter");
		}
		provider_response_free(&resp);
	}
}

Test(provider, truncation_with_nothing_written_is_max_tokens_with_empty_text)
{
	model_server_start(&ms, "[{\"truncate\":true},{\"truncate\":true}]", NULL);
	for (int k = 0; k < 2; k++) {
		struct provider_response resp;
		struct err e;

		cr_assert_eq(call(k, &resp, &e), 0, "%s", e.msg);
		cr_assert_eq(resp.stop, PROVIDER_STOP_MAX_TOKENS);
		cr_assert_str_eq(resp.text, "");
		cr_assert_eq(resp.text_len, 0);
		cr_assert_str_eq(resp.stop_raw, k == 0 ? "length" : "max_tokens");
		provider_response_free(&resp);
	}
}

Test(provider, tool_calls_come_back_parsed_and_malformed_arguments_are_reported_not_fatal)
{
	const char *entry = "{\"tool_calls\":[{\"id\":\"c1\",\"name\":\"draft_reply\","
			    "\"arguments\":{\"subject\":\"Re: talk\",\"body\":\"Yes.\"}},"
			    "{\"id\":\"c2\",\"name\":\"draft_reply\",\"arguments\":\"{not json\"}]}";
	char *script = xasprintf("[%s,%s]", entry, entry);

	model_server_start(&ms, script, NULL);
	free(script);
	for (int k = 0; k < 2; k++) {
		struct provider_response resp;
		struct err e;

		cr_assert_eq(call(k, &resp, &e), 0, "%s", e.msg);
		cr_assert_eq(resp.stop, PROVIDER_STOP_TOOL_USE);
		cr_assert_eq(resp.ncalls, 2);
		cr_assert_str_eq(resp.calls[0].id, "c1");
		cr_assert_str_eq(resp.calls[0].name, "draft_reply");
		cr_assert_str_eq(jsonio_str(resp.calls[0].arguments, "subject"), "Re: talk");
		cr_assert_null(resp.calls[0].arguments_error);
		cr_assert_null(resp.calls[1].arguments);
		cr_assert_not_null(resp.calls[1].arguments_error);
		provider_response_free(&resp);
	}
}

Test(provider, a_tool_conversation_round_trips_in_both_formats)
{
	const char *use = "{\"tool_calls\":[{\"id\":\"c7\",\"name\":\"calendar_free_busy\","
			  "\"arguments\":{\"from\":\"2026-08-06\"}}]}";
	char *script = xasprintf("[%s,{\"text\":\"done\"},%s,{\"text\":\"done\"}]", use, use);
	json_t *reqs;

	model_server_start(&ms, script, NULL);
	free(script);
	for (int k = 0; k < 2; k++) {
		struct provider_conf c = conf_for(k);
		struct provider_request req;
		struct provider_response resp;
		struct err e;

		one_prompt(&req);
		cr_assert_eq(provider_complete(&c, &req, &resp, &e), 0, "%s", e.msg);
		cr_assert_eq(resp.ncalls, 1);
		provider_request_assistant(&req, &resp);
		provider_request_tool_result(&req, resp.calls[0].id, "busy: none", 1);
		provider_response_free(&resp);
		cr_assert_eq(provider_complete(&c, &req, &resp, &e), 0, "%s", e.msg);
		cr_assert_str_eq(resp.text, "done");
		provider_response_free(&resp);
		provider_request_free(&req);
	}
	reqs = model_server_requests(&ms);
	{
		json_t *msgs = json_object_get(json_object_get(json_array_get(reqs, 1), "body"),
					       "messages");
		json_t *a = json_array_get(msgs, 1), *t = json_array_get(msgs, 2);
		json_t *fn = json_object_get(json_array_get(json_object_get(a, "tool_calls"), 0),
					     "function");

		cr_assert_eq(json_array_size(msgs), 3);
		cr_assert_str_eq(jsonio_str(a, "role"), "assistant");
		cr_assert(json_is_null(json_object_get(a, "content")));
		cr_assert_str_eq(jsonio_str(fn, "name"), "calendar_free_busy");
		cr_assert_str_eq(jsonio_str(fn, "arguments"), "{\"from\": \"2026-08-06\"}");
		cr_assert_str_eq(jsonio_str(t, "role"), "tool");
		cr_assert_str_eq(jsonio_str(t, "tool_call_id"), "c7");
		cr_assert_str_eq(jsonio_str(t, "content"), "busy: none");
	}
	{
		json_t *msgs = json_object_get(json_object_get(json_array_get(reqs, 3), "body"),
					       "messages");
		json_t *a = json_array_get(json_object_get(json_array_get(msgs, 1), "content"), 0);
		json_t *u = json_array_get(json_object_get(json_array_get(msgs, 2), "content"), 0);

		cr_assert_eq(json_array_size(msgs), 3);
		cr_assert_str_eq(jsonio_str(json_array_get(msgs, 1), "role"), "assistant");
		cr_assert_str_eq(jsonio_str(a, "type"), "tool_use");
		cr_assert_str_eq(jsonio_str(a, "id"), "c7");
		cr_assert_str_eq(jsonio_str(json_object_get(a, "input"), "from"), "2026-08-06");
		cr_assert_str_eq(jsonio_str(json_array_get(msgs, 2), "role"), "user");
		cr_assert_str_eq(jsonio_str(u, "type"), "tool_result");
		cr_assert_str_eq(jsonio_str(u, "tool_use_id"), "c7");
		cr_assert_str_eq(jsonio_str(u, "content"), "busy: none");
		cr_assert(json_is_true(json_object_get(u, "is_error")));
	}
	json_decref(reqs);
}

/* --- failures are errors that say where and what ------------------------- */

Test(provider, an_http_error_names_the_provider_the_url_and_the_status_but_never_the_key)
{
	model_server_start(&ms,
			   "[{\"status\":500,\"body\":\"upstream exploded\"},"
			   " {\"status\":401,\"body\":{\"error\":{\"message\":\"bad key\"}}}]",
			   NULL);
	for (int k = 0; k < 2; k++) {
		struct provider_response resp;
		struct err e;
		char *want;

		cr_assert_eq(call(k, &resp, &e), -1);
		cr_assert_eq(e.code, ERR_PROVIDER_HTTP);
		cr_assert_eq(err_exit_code(&e), EXIT_FAIL);
		want = xasprintf("provider 'scripted' (%s): POST http://127.0.0.1:%d%s: HTTP %d: ",
				 kinds[k], ms.port, k == 0 ? "/v1/chat/completions" : "/v1/messages",
				 k == 0 ? 500 : 401);
		cr_assert(strncmp(e.msg, want, strlen(want)) == 0, "%s", e.msg);
		cr_assert(strstr(e.msg, k == 0 ? "upstream exploded" : "bad key") != NULL, "%s", e.msg);
		cr_assert_null(strstr(e.msg, KEY));
		cr_assert_null(resp.text);
		free(want);
	}
}

Test(provider, a_password_in_the_base_url_is_not_repeated_in_the_error)
{
	char url[128];
	struct provider_conf c = { "p", "openai", url, "m", NULL, 0, 0 };
	struct provider_request req;
	struct provider_response resp;
	struct err e;

	model_server_start(&ms, "[{\"status\":500}]", NULL);
	snprintf(url, sizeof url, "http://user:hunter2@127.0.0.1:%d/v1", ms.port);
	one_prompt(&req);
	cr_assert_eq(provider_complete(&c, &req, &resp, &e), -1);
	cr_assert(strstr(e.msg, "http://***@127.0.0.1:") != NULL, "%s", e.msg);
	cr_assert_null(strstr(e.msg, "hunter2"));
	provider_request_free(&req);
}

Test(provider, an_error_body_is_quoted_safely_and_briefly)
{
	char big[4000];
	char *script;

	memset(big, 'x', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	script = xasprintf("[{\"status\":502,\"body\":\"\\u001b[2J\\u001b]52;c;ZXZpbA==\\u0007%s\"}]",
			   big);
	model_server_start(&ms, script, NULL);
	free(script);
	{
		struct provider_response resp;
		struct err e;

		cr_assert_eq(call(0, &resp, &e), -1);
		cr_assert_null(strchr(e.msg, 0x1b), "%s", e.msg);
		cr_assert_null(strchr(e.msg, 0x07));
		cr_assert(strstr(e.msg, "\\e[2J") != NULL, "%s", e.msg);
		cr_assert(strlen(e.msg) < 700, "%zu bytes", strlen(e.msg));
	}
}

Test(provider, a_2xx_body_that_is_not_a_completion_is_an_error_not_a_response)
{
	model_server_start(&ms,
			   "[{\"raw\":\"<html>gateway</html>\"},{\"raw\":\"{\\\"choices\\\":[]}\"},"
			   " {\"raw\":\"{\\\"type\\\":\\\"message\\\"}\"}]",
			   NULL);
	for (int k = 0; k < 3; k++) {
		struct provider_response resp;
		struct err e;

		cr_assert_eq(call(k == 2, &resp, &e), -1);
		cr_assert_eq(e.code, ERR_PROVIDER_REPLY);
		cr_assert(strstr(e.msg, "HTTP 200") != NULL, "%s", e.msg);
		cr_assert(strstr(e.msg, "provider 'scripted'") != NULL, "%s", e.msg);
		cr_assert(strstr(e.msg, k == 0 ? "gateway" : k == 1 ? "choices" : "message") != NULL,
			  "%s", e.msg);
	}
}

Test(provider, a_dropped_connection_is_a_transport_error)
{
	model_server_start(&ms, "[{\"drop\":true},{\"drop\":true}]", NULL);
	for (int k = 0; k < 2; k++) {
		struct provider_response resp;
		struct err e;

		cr_assert_eq(call(k, &resp, &e), -1);
		cr_assert_eq(e.code, ERR_PROVIDER_TRANSPORT, "%s: %s", err_code_name(e.code), e.msg);
		cr_assert(strstr(e.msg, "127.0.0.1") != NULL, "%s", e.msg);
	}
}

Test(provider, connection_refused_is_a_transport_error_naming_the_url)
{
	int port = model_server_dead_port();
	char url[64];
	struct provider_conf c = { "nowhere", "openai", url, "m", NULL, 0, 0 };
	struct provider_request req;
	struct provider_response resp;
	struct err e;
	char *want;

	snprintf(url, sizeof url, "http://127.0.0.1:%d/v1", port);
	one_prompt(&req);
	cr_assert_eq(provider_complete(&c, &req, &resp, &e), -1);
	cr_assert_eq(e.code, ERR_PROVIDER_TRANSPORT);
	want = xasprintf("provider 'nowhere' (openai): POST http://127.0.0.1:%d/v1/chat/completions: ",
			 port);
	cr_assert(strncmp(e.msg, want, strlen(want)) == 0, "%s", e.msg);
	free(want);
	provider_request_free(&req);
}

Test(provider, a_server_slower_than_the_timeout_is_a_timeout)
{
	model_server_start(&ms, "[{\"delay_ms\":4000,\"text\":\"late\"}]", NULL);
	{
		struct provider_conf c = conf_for(1);
		struct provider_request req;
		struct provider_response resp;
		struct err e;
		double t0 = now_ms();

		c.timeout_s = 1;
		one_prompt(&req);
		cr_assert_eq(provider_complete(&c, &req, &resp, &e), -1);
		cr_assert_eq(e.code, ERR_PROVIDER_TIMEOUT, "%s: %s", err_code_name(e.code), e.msg);
		cr_assert(now_ms() - t0 < 3000, "took %.0f ms", now_ms() - t0);
		provider_request_free(&req);
	}
}

/* --- configuration ------------------------------------------------------- */

Test(provider, a_key_with_a_line_break_is_refused_before_anything_is_sent)
{
	json_t *reqs;
	struct provider_conf c;
	struct provider_request req;
	struct provider_response resp;
	struct err e;

	model_server_start(&ms, "[]", NULL);
	c = conf_for(0);
	c.api_key = "sk-x\r\nX-Injected: 1";
	one_prompt(&req);
	cr_assert_eq(provider_complete(&c, &req, &resp, &e), -1);
	cr_assert_eq(e.code, ERR_PROVIDER_CONFIG);
	cr_assert_null(strstr(e.msg, "sk-x"));
	provider_request_free(&req);
	reqs = model_server_requests(&ms);
	cr_assert_eq(json_array_size(reqs), 0);
	json_decref(reqs);
}

Test(provider, the_rules_kind_holds_no_conversation_and_unknown_kinds_are_named)
{
	struct provider_conf rules = { "offline", "rules", NULL, NULL, NULL, 0, 0 };
	struct provider_conf odd = { "x", "gemini", NULL, "m", NULL, 0, 0 };
	struct provider_conf nomodel = { "y", "anthropic", NULL, NULL, NULL, 0, 0 };
	struct err e;

	cr_assert(provider_is_rules(&rules));
	cr_assert_eq(provider_conf_check(&rules, &e), -1);
	cr_assert(strstr(e.msg, "rules extractor") != NULL, "%s", e.msg);
	cr_assert_eq(provider_conf_check(&odd, &e), -1);
	cr_assert(strstr(e.msg, "unknown kind 'gemini'") != NULL, "%s", e.msg);
	cr_assert_eq(provider_conf_check(&nomodel, &e), -1);
	cr_assert(strstr(e.msg, "names no model") != NULL, "%s", e.msg);
}

Test(provider, urls_are_built_from_the_base_the_way_each_vendor_documents_them)
{
	struct provider_conf c = { "p", "openai", "http://h:8080/v1/", "m", NULL, 0, 0 };
	char *u;

	u = provider_url(&c);
	cr_assert_str_eq(u, "http://h:8080/v1/chat/completions");
	free(u);
	c.base_url = NULL;
	u = provider_url(&c);
	cr_assert_str_eq(u, "https://api.openai.com/v1/chat/completions");
	free(u);
	c.kind = "anthropic";
	u = provider_url(&c);
	cr_assert_str_eq(u, "https://api.anthropic.com/v1/messages");
	free(u);
	c.base_url = "https://proxy.example/v1";
	u = provider_url(&c);
	cr_assert_str_eq(u, "https://proxy.example/v1/messages");
	free(u);
}

/* --- many in flight -------------------------------------------------------- */

struct tally {
	int answered[16];
	int errors;
	int retried;
	struct provider_batch *b;
	int cancel_after_first;
};

static void count_done(void *ctx, void *tag, struct provider_response *resp, const struct err *e)
{
	struct tally *t = ctx;
	int i = (int)(intptr_t)tag;

	t->answered[i]++;
	if (e) {
		t->errors++;
		cr_assert_eq(e->code, ERR_PROVIDER_CANCELLED, "%s", e->msg);
		return;
	}
	cr_assert_str_eq(resp->text, "ok");
	if (t->cancel_after_first)
		provider_batch_cancel(t->b);
}

static double run_batch(int k, unsigned jobs, int n, struct tally *t)
{
	struct provider_conf c = conf_for(k);
	struct provider_request req;
	struct err e;
	double t0;

	t->b = provider_batch_new(&c, jobs, count_done, t, &e);
	cr_assert_not_null(t->b, "%s", e.msg);
	one_prompt(&req);
	for (int i = 0; i < n; i++)
		/* NOLINTNEXTLINE(performance-no-int-to-ptr): the batch's opaque tag is a number here */
		cr_assert_eq(provider_batch_add(t->b, &req, (void *)(intptr_t)i, &e), 0);
	provider_request_free(&req);
	cr_assert_eq(provider_batch_pending(t->b), (size_t)n);
	t0 = now_ms();
	provider_batch_run(t->b);
	t0 = now_ms() - t0;
	cr_assert_eq(provider_batch_pending(t->b), 0);
	provider_batch_free(t->b);
	return t0;
}

Test(provider, eight_requests_in_flight_overlap_instead_of_queueing)
{
	model_server_start(&ms, "[]", "{\"delay_ms\":300,\"text\":\"ok\"}");
	for (int k = 0; k < 2; k++) {
		struct tally t = { 0 };
		double ms_taken = run_batch(k, 8, 8, &t);

		/* One after another would take 2400 ms. */
		cr_assert(ms_taken < 1500, "%s: 8 × 300 ms took %.0f ms", kinds[k], ms_taken);
		for (int i = 0; i < 8; i++)
			cr_assert_eq(t.answered[i], 1, "request %d answered %d times", i, t.answered[i]);
		cr_assert_eq(t.errors, 0);
	}
}

Test(provider, the_batch_keeps_no_more_than_its_limit_in_flight)
{
	json_t *reqs;
	double ms_taken;
	struct tally t = { 0 };

	model_server_start(&ms, "[]", "{\"delay_ms\":200,\"text\":\"ok\"}");
	ms_taken = run_batch(0, 2, 6, &t);
	/* Three rounds of two. */
	cr_assert(ms_taken >= 540, "6 requests, 2 at a time, took only %.0f ms", ms_taken);
	reqs = model_server_requests(&ms);
	cr_assert_eq(json_array_size(reqs), 6);
	json_decref(reqs);
}

static void retry_done(void *ctx, void *tag, struct provider_response *resp, const struct err *e)
{
	struct tally *t = ctx;
	struct provider_request req;
	struct err e2;

	cr_assert_null(e);
	t->answered[(intptr_t)tag]++;
	if ((intptr_t)tag == 0) {
		/* A second attempt, added from inside the run, naming what went wrong. */
		provider_request_init(&req, 4096);
		provider_request_user(&req, resp->text);
		/* NOLINTNEXTLINE(performance-no-int-to-ptr): the batch's opaque tag is a number here */
		cr_assert_eq(provider_batch_add(t->b, &req, (void *)(intptr_t)1, &e2), 0);
		provider_request_free(&req);
		t->retried = 1;
	}
}

Test(provider, a_callback_can_add_a_retry_that_runs_in_the_same_batch)
{
	struct provider_conf c;
	struct provider_request req;
	struct tally t = { 0 };
	struct err e;
	json_t *reqs;

	model_server_start(&ms, "[{\"text\":\"not json\"},{\"text\":\"{}\"}]", NULL);
	c = conf_for(0);
	t.b = provider_batch_new(&c, 4, retry_done, &t, &e);
	one_prompt(&req);
	provider_batch_add(t.b, &req, (void *)(intptr_t)0, &e);
	provider_request_free(&req);
	provider_batch_run(t.b);
	provider_batch_free(t.b);
	cr_assert_eq(t.answered[0], 1);
	cr_assert_eq(t.answered[1], 1);
	reqs = model_server_requests(&ms);
	cr_assert_eq(json_array_size(reqs), 2);
	cr_assert_str_eq(jsonio_str(json_array_get(json_object_get(json_object_get(
							   json_array_get(reqs, 1), "body"),
							   "messages"),
						   0),
				    "content"),
			 "not json");
	json_decref(reqs);
}

Test(provider, cancelling_answers_the_queued_requests_without_sending_them)
{
	struct tally t = { 0 };
	json_t *reqs;

	model_server_start(&ms, "[]", "{\"text\":\"ok\"}");
	t.cancel_after_first = 1;
	run_batch(0, 1, 4, &t);
	for (int i = 0; i < 4; i++)
		cr_assert_eq(t.answered[i], 1);
	cr_assert_eq(t.errors, 3);
	reqs = model_server_requests(&ms);
	cr_assert_eq(json_array_size(reqs), 1);
	json_decref(reqs);
}

/* --- the parsers on bodies real servers send ------------------------------ */

static int parse(int k, const char *body, struct provider_response *r, struct err *e)
{
	memset(r, 0, sizeof *r);
	return k == 0 ? openai_parse_response(body, strlen(body), r, e)
		      : anthropic_parse_response(body, strlen(body), r, e);
}

Test(provider_parse, compatible_servers_variations_are_read_for_what_they_mean)
{
	struct provider_response r;
	struct err e;

	/* Content as parts; arguments as an object (Ollama); no call id; finish "stop". */
	cr_assert_eq(parse(0,
			   "{\"choices\":[{\"message\":{\"content\":[{\"type\":\"text\",\"text\":\"a\"},"
			   "{\"type\":\"text\",\"text\":\"b\"}],\"tool_calls\":[{\"function\":"
			   "{\"name\":\"f\",\"arguments\":{\"x\":1}}}]},\"finish_reason\":\"stop\"}]}",
			   &r, &e),
		     0, "%s", e.msg);
	cr_assert_str_eq(r.text, "ab");
	cr_assert_eq(r.stop, PROVIDER_STOP_TOOL_USE);
	cr_assert_str_eq(r.calls[0].id, "call_0");
	cr_assert_eq(json_integer_value(json_object_get(r.calls[0].arguments, "x")), 1);
	cr_assert_eq(r.input_tokens, -1);
	provider_response_free(&r);

	/* Thinking blocks are not text; a context overflow is the token budget. */
	cr_assert_eq(parse(1,
			   "{\"content\":[{\"type\":\"thinking\",\"thinking\":\"hmm\"},{\"type\":"
			   "\"text\",\"text\":\"{}\"}],\"stop_reason\":\"model_context_window_exceeded\"}",
			   &r, &e),
		     0, "%s", e.msg);
	cr_assert_str_eq(r.text, "{}");
	cr_assert_eq(r.stop, PROVIDER_STOP_MAX_TOKENS);
	provider_response_free(&r);
}

Test(provider_parse, a_text_holding_a_nul_keeps_its_length)
{
	struct provider_response r;
	struct err e;

	cr_assert_eq(parse(0, "{\"choices\":[{\"message\":{\"content\":\"a\\u0000b\"}}]}", &r, &e),
		     0);
	cr_assert_eq(r.text_len, 3);
	cr_assert_eq(memcmp(r.text, "a\0b", 3), 0);
	provider_response_free(&r);
}

Test(provider_parse, error_objects_and_junk_are_errors_with_the_body_quoted)
{
	const char *bodies[] = { "", "null", "[]", "{\"error\":{\"message\":\"overloaded\"}}",
				 "{\"choices\":[{\"message\":{\"content\":5}}]}",
				 "{\"choices\":[{\"message\":{\"tool_calls\":[{\"function\":{}}]}}]}" };

	for (size_t i = 0; i < sizeof bodies / sizeof bodies[0]; i++) {
		struct provider_response r;
		struct err e;

		cr_assert_eq(parse(0, bodies[i], &r, &e), -1, "accepted %s", bodies[i]);
		cr_assert_eq(e.code, ERR_PROVIDER_REPLY);
		provider_response_free(&r);
		cr_assert_eq(parse(1, bodies[i], &r, &e), -1, "accepted %s", bodies[i]);
		provider_response_free(&r);
	}
}

Test(provider_parse, text_that_is_not_utf8_is_repaired_on_the_way_out)
{
	struct provider_conf c = { "p", "openai", NULL, "m", NULL, 0, 0 };
	struct provider_request req;
	size_t len;
	char *body;

	provider_request_init(&req, 10);
	provider_request_user_n(&req, "caf\xe9 \0x", 7);
	body = openai_request_body(&c, &req, &len);
	cr_assert(strstr(body, "caf\xef\xbf\xbd \\u0000x") != NULL, "%s", body);
	free(body);
	provider_request_free(&req);
}
