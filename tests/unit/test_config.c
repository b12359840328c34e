/*
 * config.toml: the subset parses into typed values, everything outside it is
 * refused with the file and the line, and the environment overrides the file.
 */
#include <criterion/criterion.h>

#include "scratch.h"
#include "base/buf.h"
#include "base/err.h"
#include "base/fs.h"
#include "config/config.h"

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int parse(const char *text, struct config *c, struct err *e)
{
	return config_parse(text, strlen(text), "cfg.toml", c, e);
}

/* The error message for text, which must fail. */
static void refused(const char *text, const char *want)
{
	struct config c;
	struct err e;

	err_clear(&e);
	cr_assert_eq(parse(text, &c, &e), -1, "accepted: %s", text);
	cr_assert_eq(e.code, ERR_CONFIG);
	cr_assert(strstr(e.msg, want) != NULL, "for %s\nwanted '%s' in '%s'", text, want, e.msg);
	cr_assert_null(c.providers, "a failed parse left values behind");
}

static const char example[] =
	"# mecha's configuration\n"
	"default_provider = \"local\"          # which provider\n"
	"[providers.local]\n"
	"kind = \"openai\"\n"
	"base_url = \"http://127.0.0.1:8080/v1\"\n"
	"model = 'qwen3-8b'\n"
	"api_key_env = \"OPENAI_API_KEY\"\n"
	"timeout_s = 1_200\n"
	"\n"
	"[providers.\"claude\"]\n"
	"kind = \"anthropic\"\n"
	"[outbox]\n"
	"dir = \"~/.mecha/outbox\"\n"
	"tools = [\n"
	"  \"mail_send\",   # the route for replies\n"
	"  'calendar_invite',\n"
	"]\n"
	"[mail]\n"
	"smtp_url = \"smtps://mail.example.org:465\"\n"
	"from = \"me@example.org\"\n"
	"username = \"me\"\n"
	"password_env = \"MECHA_SMTP_PASSWORD\"\n"
	"[calendar]\n"
	"path = \"~/.calendars/personal\"\n"
	"[missions]\n"
	"brain = \"http://127.0.0.1:7000\"\n";

Test(config, the_documented_example_parses_into_typed_values)
{
	struct config c;
	struct err e;
	const struct config_provider *p;

	cr_assert_eq(parse(example, &c, &e), 0, "%s", e.msg);
	cr_assert_str_eq(c.default_provider, "local");
	cr_assert_eq(c.nproviders, 2);
	p = config_provider_named(&c, "local");
	cr_assert_not_null(p);
	cr_assert_str_eq(p->kind, "openai");
	cr_assert_str_eq(p->model, "qwen3-8b");
	cr_assert_str_eq(p->api_key_env, "OPENAI_API_KEY");
	cr_assert_eq(p->timeout_s, 1200);
	cr_assert_eq(p->connect_timeout_s, CONFIG_CONNECT_TIMEOUT_S);
	p = config_provider_named(&c, "claude");
	cr_assert_str_eq(p->kind, "anthropic");
	cr_assert_eq(p->timeout_s, CONFIG_TIMEOUT_S);
	cr_assert_null(p->base_url);
	cr_assert_eq(c.noutbox_tools, 2);
	cr_assert_str_eq(c.outbox_tools[1], "calendar_invite");
	cr_assert(config_outbox_routes(&c, "mail_send"));
	cr_assert_not(config_outbox_routes(&c, "mail"));
	cr_assert_str_eq(c.outbox_dir, "~/.mecha/outbox");
	cr_assert_str_eq(c.mail_smtp_url, "smtps://mail.example.org:465");
	cr_assert_str_eq(c.mail_password_env, "MECHA_SMTP_PASSWORD");
	cr_assert_str_eq(c.missions_brain, "http://127.0.0.1:7000");
	config_free(&c);
	config_free(&c); /* twice is harmless */
}

Test(config, escapes_decode_in_basic_strings_and_not_in_literal_ones)
{
	struct config c;
	struct err e;

	cr_assert_eq(parse("[missions]\nbrain = \"caf\\u00e9 \\\"x\\\" \\t\\U0001F600\"\n"
			   "[mail]\nsendmail = 'C:\\bin\\send -t'\r\n",
			   &c, &e),
		     0, "%s", e.msg);
	cr_assert_str_eq(c.missions_brain, "caf\xc3\xa9 \"x\" \t\xf0\x9f\x98\x80");
	cr_assert_str_eq(c.mail_sendmail, "C:\\bin\\send -t");
	config_free(&c);
}

Test(config, an_empty_file_and_comments_alone_mean_every_default)
{
	struct config c;
	struct err e;

	cr_assert_eq(parse("", &c, &e), 0);
	cr_assert_null(c.default_provider);
	cr_assert_eq(c.noutbox_tools, 0);
	config_free(&c);
	cr_assert_eq(parse("  # only a comment\n\n\t\n# another", &c, &e), 0, "%s", e.msg);
	config_free(&c);
}

Test(config, an_unknown_key_is_refused_naming_the_file_and_line)
{
	refused("[mail]\nfrom = \"a@b.org\"\nfrm = \"b\"\n", "cfg.toml:3: unknown key 'frm' in [mail]");
	refused("defualt_provider = \"x\"\n", "cfg.toml:1: unknown key 'defualt_provider'");
	refused("[providers.a]\nkind = \"rules\"\ntemperature = 1\n", ":3: unknown key 'temperature'");
}

Test(config, an_unknown_table_is_refused_naming_the_line)
{
	refused("\n\n[server]\n", "cfg.toml:3: unknown table [server]");
	refused("[providers.a.b]\n", ":1: unknown table [providers.a.b]");
	refused("[mail.smtp]\n", "unknown table [mail.smtp]");
}

Test(config, a_value_of_the_wrong_type_is_refused)
{
	refused("[outbox]\ntools = \"mail_send\"\n", ":2: tools must be an array of strings, not a string");
	refused("[providers.a]\nkind = \"openai\"\ntimeout_s = \"300\"\n", ":3: timeout_s must be an integer");
	refused("default_provider = true\n", "must be a string, not a boolean");
	refused("[outbox]\ntools = [\"a\", 1]\n", "arrays hold only strings");
}

Test(config, legal_toml_of_the_wrong_type_is_refused_naming_both_types)
{
	refused("[providers.a]\nkind = \"openai\"\ntimeout_s = 1.5\n",
		":3: timeout_s must be an integer, not a float");
	refused("[providers.a]\nkind = \"openai\"\ntimeout_s = 1e3\n", "not a float");
	refused("[providers.a]\nkind = \"openai\"\ntimeout_s = inf\n", "not a float");
	refused("[calendar]\npath = 1979-05-27\n", ":2: path must be a string, not a local date");
	refused("[calendar]\npath = 07:32:00\n", "path must be a string, not a local time");
	refused("[mail]\nfrom = { a = 1 }\n", ":2: from must be a string, not a table");
	refused("[[providers]]\n", "arrays of tables");
	refused("[outbox]\n[[outbox.tools]]\n", ":2: arrays hold only strings");
	refused("mail = 1\n", ":1: mail must be a table, not an integer");
}

Test(config, toml_that_is_not_toml_is_refused_by_name)
{
	refused("[mail]\nfrom = bare\n", ":2: not a value");
	refused("[mail]\nfrom =\n", "expected a value after '='");
	refused("[mail]\nfrom \"x\"\n", "expected '=' after the key");
}

/* base/toml reads what the old subset refused: the same settings, written other ways. */
Test(config, multi_line_strings_dotted_keys_and_inline_tables_set_the_same_settings)
{
	struct config c;
	struct err e;

	cr_assert_eq(parse("mail.from = \"\"\"a@b\"\"\"\nmail.sendmail = '''/usr/sbin/sendmail'''\n"
			   "outbox = { tools = [\"mail_send\"] }\n"
			   "[providers]\nlocal = { kind = \"rules\" }\n",
			   &c, &e),
		     0, "%s", e.msg);
	cr_assert_str_eq(c.mail_from, "a@b");
	cr_assert_str_eq(c.mail_sendmail, "/usr/sbin/sendmail");
	cr_assert(config_outbox_routes(&c, "mail_send"));
	cr_assert_str_eq(config_provider_named(&c, "local")->kind, "rules");
	config_free(&c);
	refused("[mail]\nfrom = \"a\\u0000b\"\n", ":2: from holds a NUL character");
}

Test(config, broken_strings_and_bytes_are_refused_with_their_line)
{
	refused("[mail]\nfrom = \"never closed\n", ":2: unterminated string");
	refused("[mail]\nfrom = 'never closed", "unterminated string");
	refused("[mail]\nfrom = \"a\\qb\"\n", "unknown escape \\q");
	refused("[mail]\nfrom = \"\\ud800\"\n", "not a Unicode scalar value");
	refused("[mail]\nfrom = \"\\u12\"\n", "hex digits");
	refused("[mail]\nfrom = \"a\x01b\"\n", "control character");
	refused("[mail]\nfrom = \"\xff\xfe\"\n", "not valid UTF-8");
	refused("[mail]\nfrom = \"x\" junk\n", ":2: unexpected text after the value");
	refused("[mail\n", "expected ']'");
	refused("[outbox]\ntools = [\"a\"\n\n", "expected ',' or ']'");
	refused("[outbox]\ntools = [\"a\",\n", "unterminated array");

	struct config c;
	struct err e;
	const char nul[] = "[mail]\n\nfrom = \"a\0b\"\n";
	cr_assert_eq(config_parse(nul, sizeof nul - 1, "cfg.toml", &c, &e), -1);
	cr_assert(strstr(e.msg, "cfg.toml:3: a NUL byte") != NULL, "%s", e.msg);
}

Test(config, integers_are_strict)
{
	refused("[providers.a]\nkind = \"openai\"\ntimeout_s = 0300\n", "leading zero");
	refused("[providers.a]\nkind = \"openai\"\ntimeout_s = 99999999999999999999\n",
		"too large");
	refused("[providers.a]\nkind = \"openai\"\ntimeout_s = -5\n", "between 1 and 86400");
	refused("[providers.a]\nkind = \"openai\"\ntimeout_s = 1__0\n", "not a value");
	refused("[providers.a]\nkind = \"openai\"\ntimeout_s = 10_\n", "not a value");
}

Test(config, duplicates_are_refused)
{
	refused("[mail]\nfrom = \"a\"\nfrom = \"b\"\n", ":3: from is set twice");
	refused("[mail]\n[outbox]\n[mail]\n", ":3: table [mail] is defined twice");
	refused("[providers.a]\nkind = \"rules\"\n[providers.a]\n", "[providers.a] is defined twice");
}

Test(config, a_provider_needs_a_known_kind)
{
	refused("[providers.a]\nmodel = \"m\"\n[mail]\n", "cfg.toml:1: [providers.a] needs kind");
	refused("\n[providers.a]\nmodel = \"m\"\n", "cfg.toml:2: [providers.a] needs kind");
	refused("[providers.a]\nkind = \"gemini\"\n", ":2: kind must be");
}

/* ---- config_load: the file under HOME_M and the environment --------------- */

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

/* Removes a test's directory tree (never following a link). */
static void rm_tree(const char *path)
{
	nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void done(char *home)
{
	rm_tree(home);
	free(home);
}

static char *make_home(const char *text)
{
	char tmpl[512];
	char *d = scratch_mkdtemp(tmpl, sizeof tmpl, "config");
	struct err e;

	cr_assert_not_null(d);
	setenv("MECHA_HOME", d, 1);
	setenv("HOME", d, 1);
	unsetenv("MECHA_OUTBOX_DIR");
	unsetenv("MECHA_PROVIDER");
	unsetenv("MECHA_MODEL");
	if (text) {
		char *p = fs_join(d, "config.toml");
		cr_assert_eq(fs_replace(p, text, strlen(text), &e), 0, "%s", e.msg);
		free(p);
	}
	return xstrdup(d);
}

Test(config_load, a_missing_file_is_every_default)
{
	char *home = make_home(NULL);
	char *outbox = fs_join(home, "outbox");
	struct config c;
	struct err e;

	cr_assert_eq(config_load(&c, &e), 0, "%s", e.msg);
	cr_assert_null(c.path);
	cr_assert_str_eq(c.home, home);
	cr_assert_str_eq(c.outbox_dir, outbox);
	cr_assert_null(c.default_provider);
	cr_assert_null(c.mail_smtp_url);
	config_free(&c);
	free(outbox);
	done(home);
}

Test(config_load, the_outbox_dir_comes_from_the_environment_then_the_file)
{
	char *home = make_home("[outbox]\ndir = \"~/elsewhere\"\n[calendar]\npath = \"~/cal\"\n");
	char *want = xasprintf("%s/elsewhere", home);
	char *cal = xasprintf("%s/cal", home);
	struct config c;
	struct err e;

	cr_assert_eq(config_load(&c, &e), 0, "%s", e.msg);
	cr_assert_str_eq(c.outbox_dir, want);
	cr_assert_str_eq(c.calendar_path, cal);
	cr_assert_not_null(c.path);
	config_free(&c);
	setenv("MECHA_OUTBOX_DIR", "/tmp/from-env", 1);
	cr_assert_eq(config_load(&c, &e), 0, "%s", e.msg);
	cr_assert_str_eq(c.outbox_dir, "/tmp/from-env");
	config_free(&c);
	free(cal);
	free(want);
	done(home);
}

Test(config_load, the_environment_chooses_the_provider_and_model)
{
	char *home = make_home("default_provider = \"a\"\n"
			       "[providers.a]\nkind = \"openai\"\nmodel = \"small\"\n"
			       "[providers.b]\nkind = \"anthropic\"\nmodel = \"big\"\n");
	struct config c;
	struct err e;

	setenv("MECHA_PROVIDER", "b", 1);
	setenv("MECHA_MODEL", "huge", 1);
	cr_assert_eq(config_load(&c, &e), 0, "%s", e.msg);
	cr_assert_str_eq(c.default_provider, "b");
	cr_assert_str_eq(config_provider_named(&c, "b")->model, "huge");
	cr_assert_str_eq(config_provider_named(&c, "a")->model, "small");
	config_free(&c);
	done(home);
}

Test(config_load, a_default_provider_without_a_table_is_refused_except_rules)
{
	char *home = make_home("default_provider = \"nope\"\n");
	struct config c;
	struct err e;

	cr_assert_eq(config_load(&c, &e), -1);
	cr_assert(strstr(e.msg, "[providers.nope]") != NULL, "%s", e.msg);
	setenv("MECHA_PROVIDER", "rules", 1);
	cr_assert_eq(config_load(&c, &e), 0, "%s", e.msg);
	cr_assert_str_eq(config_provider_named(&c, "rules")->kind, "rules");
	config_free(&c);
	done(home);
}

Test(config_load, a_broken_file_names_its_path_and_line)
{
	char *home = make_home("[mail]\n\nport = 25\n");
	char *want = xasprintf("%s/config.toml:3: unknown key 'port'", home);
	struct config c;
	struct err e;

	cr_assert_eq(config_load(&c, &e), -1);
	cr_assert(strstr(e.msg, want) != NULL, "%s", e.msg);
	free(want);
	done(home);
}

Test(config, the_calendar_table_takes_a_zone_and_the_collections_of_a_root)
{
	struct config c;
	struct err e;

	cr_assert_eq(parse("[calendar]\npath = \"~/.calendars\"\ntimezone = \"Europe/Berlin\"\n"
			   "collections = [\"work\", 'home']\n[outbox]\ntools = [\"mail_send\"]\n",
			   &c, &e), 0, "%s", e.msg);
	cr_assert_str_eq(c.calendar_timezone, "Europe/Berlin");
	cr_assert_eq(c.ncalendar_collections, 2);
	cr_assert_str_eq(c.calendar_collections[1], "home");
	cr_assert_eq(c.noutbox_tools, 1, "the two arrays share one slot");
	config_free(&c);
	cr_assert_eq(parse("[calendar]\ncollections = \"work\"\n", &c, &e), -1);
	cr_assert(strstr(e.msg, ":2: collections must be an array of strings"), "%s", e.msg);
}

/* ---- meaning, checked at load ------------------------------------------------------ */

Test(config, a_byte_order_mark_is_named_as_such)
{
	refused("\xef\xbb\xbf[mail]\nfrom = \"me@example.org\"\n",
		"cfg.toml:1: starts with a UTF-8 byte-order mark; save it without one");
}

Test(config, values_are_checked_for_what_they_mean_naming_the_line)
{
	refused("[mail]\n\nfrom = \"not an address\"\n", "cfg.toml:3: from \"not an address\" is not "
		"an e-mail address");
	refused("[mail]\nfrom = \"Me <me@example.org\"\n", ":2: from");
	refused("[mail]\nsmtp_url = \"http://mail.example.org\"\n", ":2: smtp_url \"http://");
	refused("[mail]\nsmtp_url = \"smtp://\"\n", ":2: smtp_url");
	refused("[mail]\nsmtp_url = \"smtps://mail.example.org/ x\"\n", ":2: smtp_url");
	refused("[providers.a]\nkind = \"openai\"\nbase_url = \"ftp://h/v1\"\n", ":3: base_url");
	refused("[providers.a]\nkind = \"openai\"\nbase_url = \"https://\"\n", ":3: base_url");
	refused("[providers.a]\nkind = \"openai\"\napi_key_env = \"sk-123\"\n",
		":3: \"sk-123\" is not the name of an environment variable");
	refused("[mail]\npassword_env = \"1PASS\"\n", ":2: \"1PASS\"");
	refused("[mail]\nusername = \"me\\r\\nMAIL FROM:<x>\"\n",
		":2: \"me\\x0d\\x0aMAIL FROM:<x>\" holds a control character");
	refused("[calendar]\ncollections = [\"work\", \"../up\"]\n", ":2: collections: \"../up\"");
}

Test(config, values_mecha_can_use_load_and_an_empty_one_is_unset)
{
	struct config c;
	struct err e;

	cr_assert_eq(parse("[mail]\nfrom = \"\\\"Ada L.\\\" <ada+x@mail.example.org>\"\n"
			   "smtp_url = \"SMTPS://mail.example.org:465\"\npassword_env = \"_PW_2\"\n"
			   "[providers.a]\nkind = \"anthropic\"\nbase_url = \"http://127.0.0.1:8080\"\n",
			   &c, &e),
		     0, "%s", e.msg);
	config_free(&c);
	cr_assert_eq(parse("[mail]\nfrom = \"\"\nsmtp_url = \"\"\npassword_env = \"\"\n", &c, &e), 0,
		     "%s", e.msg);
	config_free(&c);
}

/* ---- the template mecha init writes ------------------------------------------------- */

/* The template with every "# key = value" and "# [table]" line made live. */
static char *uncommented(const char *t)
{
	struct buf b = BUF_INIT;

	for (const char *p = t; *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		const char *q = p + 2;
		size_t k = strspn(q, "abcdefghijklmnopqrstuvwxyz_");
		int live = n > 2 && p[0] == '#' && p[1] == ' ' &&
			   ((k && strncmp(q + k, " = ", 3) == 0) || (q[0] == '[' && p[n - 1] == ']'));
		buf_add(&b, live ? q : p, live ? n - 2 : n);
		buf_addc(&b, '\n');
		p += n + (nl != NULL);
	}
	return buf_steal(&b);
}

Test(config, the_template_loads_as_every_default)
{
	char *t = config_template("/home/ada/.mecha");
	struct config c;
	struct err e;

	cr_assert_eq(parse(t, &c, &e), 0, "%s", e.msg);
	cr_assert_null(c.default_provider);
	cr_assert_eq(c.nproviders, 0);
	cr_assert_null(c.mail_from);
	cr_assert_eq(c.noutbox_tools, 0);
	cr_assert(strstr(t, "# dir = \"/home/ada/.mecha/outbox\"\n"), "%s", t);
	for (const char *p = t; (p = strchr(p, '\n')); p++)
		cr_assert(strcspn(p + 1, "\n") <= 78, "a line longer than 78 columns: %.80s", p + 1);
	config_free(&c);
	free(t);
}

Test(config, the_template_with_its_settings_uncommented_sets_every_key)
{
	char *t = config_template("/home/\"odd\"\\home"), *live = uncommented(t);
	const struct config_provider *p;
	struct config c;
	struct err e;

	cr_assert_eq(parse(live, &c, &e), 0, "%s\n%s", e.msg, live);
	p = config_provider_named(&c, "openai");
	cr_assert_not_null(p, "%s", live);
	cr_assert(p->kind && p->base_url && p->model && p->api_key_env);
	cr_assert(c.default_provider && c.outbox_dir && c.noutbox_tools && c.mail_smtp_url);
	cr_assert(c.mail_sendmail && c.mail_from && c.mail_username && c.mail_password_env);
	cr_assert(c.calendar_path && c.calendar_timezone && c.ncalendar_collections);
	cr_assert_not_null(c.missions_brain);
	cr_assert_str_eq(c.outbox_dir, "/home/\"odd\"\\home/outbox");
	config_free(&c);
	free(live);
	free(t);
}

/* ---- what a verb needs of this machine ----------------------------------------------- */

static void required(const char *text, unsigned need, const char *want)
{
	struct config c;
	struct err e;

	cr_assert_eq(parse(text, &c, &e), 0, "%s", e.msg);
	c.path = xstrdup("cfg.toml");
	err_clear(&e);
	if (!want) {
		cr_assert_eq(config_require(&c, need, &e), 0, "%s", e.msg);
	} else {
		cr_assert_eq(config_require(&c, need, &e), -1, "met: %s", text);
		cr_assert_eq(e.code, ERR_CONFIG);
		cr_assert(strstr(e.msg, want), "wanted '%s' in '%s'", want, e.msg);
	}
	config_free(&c);
}

Test(config_require, each_need_is_checked_only_when_asked_naming_the_line)
{
	const char *model = "default_provider = \"a\"\n[providers.a]\nkind = \"openai\"\n"
			    "api_key_env = \"MECHA_TEST_UNSET_KEY\"\n";
	const char *mail = "[mail]\nsmtp_url = \"smtp://127.0.0.1\"\n\n"
			   "password_env = \"MECHA_TEST_UNSET_PW\"\n";

	unsetenv("MECHA_TEST_UNSET_KEY");
	unsetenv("MECHA_TEST_UNSET_PW");
	required(model, CONFIG_NEEDS_MAIL | CONFIG_NEEDS_CALENDAR, NULL);
	required(model, CONFIG_NEEDS_MODEL, "cfg.toml:4: [providers.a] api_key_env names "
		 "MECHA_TEST_UNSET_KEY, which is not set in the environment");
	setenv("MECHA_TEST_UNSET_KEY", "k", 1);
	required(model, CONFIG_NEEDS_MODEL, NULL);
	required(mail, CONFIG_NEEDS_MODEL, NULL);
	required(mail, CONFIG_NEEDS_MAIL, "cfg.toml:4: [mail] password_env names MECHA_TEST_UNSET_PW");
	required("[mail]\nsendmail = \"/nonexistent/sendmail -t\"\n", CONFIG_NEEDS_MAIL,
		 "cfg.toml:2: [mail] sendmail runs '/nonexistent/sendmail', which is not a program");
	required("[mail]\nsendmail = \"sh -c true\"\n", CONFIG_NEEDS_MAIL, NULL);
	required("[calendar]\npath = \"/nonexistent/cal.ics\"\n", CONFIG_NEEDS_MAIL, NULL);
	required("[calendar]\npath = \"/nonexistent/cal.ics\"\n", CONFIG_NEEDS_CALENDAR,
		 "cfg.toml:2: [calendar] path names /nonexistent/cal.ics, which does not exist");
	required("", CONFIG_NEEDS_MODEL | CONFIG_NEEDS_MAIL | CONFIG_NEEDS_CALENDAR, NULL);
	unsetenv("MECHA_TEST_UNSET_KEY");
}

Test(config_load, config_check_reads_the_file_again_once_it_changed)
{
	char *home = make_home("[mail]\nfrom = \"me@example.org\"\n");
	char *path = fs_join(home, "config.toml");
	struct err e;

	cr_assert_eq(config_check(&e), 0, "%s", e.msg);
	cr_assert_eq(config_check(&e), 0, "%s", e.msg);
	cr_assert_eq(fs_replace(path, "garbage\n", 8, &e), 0);
	cr_assert_eq(config_check(&e), -1, "an edit was not seen");
	cr_assert(strstr(e.msg, "config.toml:1:"), "%s", e.msg);
	unlink(path);
	cr_assert_eq(config_check(&e), 0, "%s", e.msg);
	free(path);
	done(home);
}
