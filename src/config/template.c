/*
 * template — config.toml as `mecha init` writes it, made from the key table,
 * so every key mecha reads is in it, explained, and none it would refuse.
 *
 * Every setting is commented out: the file loads as "all defaults", and a
 * setting takes effect when its "# " is removed. The fixed tables are left
 * open (an empty [mail] means nothing), so uncommenting a key is all it
 * takes; a provider table is commented whole, since an empty one is refused.
 */
#include "config/config.h"

#include "base/buf.h"
#include "config/keys.h"

#include <string.h>

#define WIDTH 78

static const char intro[] =
	"# mecha's configuration, written by `mecha init`.\n"
	"#\n"
	"# Every setting is here, commented out, with an example or its default. A\n"
	"# setting takes effect when you remove the \"# \" in front of it. A key mecha\n"
	"# does not know, or a value it cannot use, is an error naming its line, never\n"
	"# silently ignored. `mecha doctor` checks this file and what it names; see\n"
	"# mecha(1), CONFIGURATION.\n";

/* text as "# "-comments of at most WIDTH columns, broken at spaces. */
static void comment(struct buf *b, const char *text)
{
	while (*text) {
		size_t n = strlen(text), cut = n;

		if (n > WIDTH - 2) {
			cut = WIDTH - 2;
			while (cut > 0 && text[cut] != ' ')
				cut--;
			if (cut == 0)
				cut = strcspn(text, " ");
		}
		buf_printf(b, "# %.*s\n", (int)cut, text);
		text += cut;
		text += strspn(text, " ");
	}
}

/* The example with "@home" standing for the home (escaped for a basic string). */
static void example(struct buf *b, const char *ex, const char *home)
{
	const char *at = strstr(ex, "@home");

	if (!at) {
		buf_adds(b, ex);
		return;
	}
	buf_printf(b, "%.*s", (int)(at - ex), ex);
	for (; *home; home++) { /* inside a basic string */
		if (*home == '"' || *home == '\\')
			buf_addc(b, '\\');
		buf_addc(b, *home);
	}
	buf_adds(b, at + 5);
}

static void keys_of(struct buf *b, enum config_table tab, const char *home)
{
	for (size_t i = 0; i < config_nkeys; i++) {
		const struct config_key *k = &config_keys[i];
		if (k->tab != tab)
			continue;
		buf_addc(b, '\n');
		comment(b, k->help);
		buf_printf(b, "# %s = ", k->name);
		example(b, k->example, home);
		buf_addc(b, '\n');
	}
}

char *config_template(const char *home)
{
	struct buf b = BUF_INIT;

	buf_adds(&b, intro);
	keys_of(&b, T_ROOT, home);
	buf_adds(&b, "\n\n");
	comment(&b, config_tables[T_PROVIDER].help);
	buf_adds(&b, "#\n# [providers.openai]\n");
	keys_of(&b, T_PROVIDER, home);
	for (enum config_table t = T_OUTBOX; t < T_COUNT; t++) {
		buf_adds(&b, "\n\n");
		comment(&b, config_tables[t].help);
		buf_printf(&b, "[%s]\n", config_tables[t].name);
		keys_of(&b, t, home);
	}
	return buf_steal(&b);
}
