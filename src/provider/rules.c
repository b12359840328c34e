/*
 * rules — the extractor without a model.
 *
 * The text is cut into words (runs of letters and digits; every other byte,
 * invalid UTF-8 and control characters included, separates them) and the
 * words into sentences. Sentences that read like instructions to their reader
 * are flagged first, and every later pattern skips them: that is how a
 * pattern matcher "never obeys" — an injection asking for a topic, a date or
 * an institution sits in a sentence nobody reads for data.
 *
 * Dates are spans of the text copied as they are (the brief checks that they
 * occur literally, and here that holds by construction). The topic is built
 * from words, never from the bytes between them, so no punctuation, address
 * or line break can reach it.
 */
#include "provider/rules.h"
#include "provider/rules_decode.h"

#include "base/buf.h"
#include "base/text.h"

#include <stdlib.h>
#include <string.h>

#define LOW_MAX 24          /* words longer than this match no pattern */
#define NOMATCH ((size_t)-1)
#define MAX_DATES 16
#define DATE_MAX_CHARS 48   /* the brief's own limit; longer spans are not dates */
#define TOPIC_MAX_BYTES 80
#define PHRASE_WORDS 4
#define TYPE_WORDS 4
#define INSTITUTION_SIDE 6  /* words taken on either side of the keyword */

struct tok {
	size_t start, end;  /* bytes of the field's text */
	char low[LOW_MAX];  /* ASCII-lowercased; "" for a longer word */
	unsigned char cap;  /* begins with A-Z */
	unsigned char num;  /* ASCII digits only */
	unsigned char flagged; /* its sentence reads like instructions */
	unsigned char masked;  /* inside a negated urgency phrase */
	size_t sent_end;    /* the index after its sentence's last word */
};

struct field {
	const char *s;
	size_t len;
	struct tok *t;
	size_t n;
	size_t nflagged;    /* sentences set aside */
};

/* --- words and sentences -------------------------------------------------- */

/*
 * Non-ASCII code points are letters unless they are punctuation, symbols,
 * spaces, controls or format characters in the ranges a stranger could use to
 * glue words or hide text (bidi overrides, zero-width joiners).
 */
static int letter_cp(unsigned cp)
{
	static const unsigned ranges[][2] = {
		{ 0x80, 0xbf },       { 0xd7, 0xd7 },       { 0xf7, 0xf7 },
		{ 0x2000, 0x2bff },   { 0x3000, 0x303f },   { 0xe000, 0xf8ff },
		{ 0xfe00, 0xfe0f },   { 0xfe30, 0xfe6f },   { 0xfeff, 0xfeff },
		{ 0xff00, 0xff0f },   { 0xfff0, 0xffff },   { 0x1f000, 0x1faff },
		{ 0xe0000, 0xe007f },
	};

	for (size_t i = 0; i < sizeof ranges / sizeof ranges[0]; i++)
		if (cp >= ranges[i][0] && cp <= ranges[i][1])
			return 0;
	return 1;
}

static int ascii_alnum(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static char ascii_lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

/* 1 when s[i] begins a word character; *adv = the bytes it (or the separator) spans. */
static int word_char(const char *s, size_t len, size_t i, size_t *adv)
{
	unsigned char c = (unsigned char)s[i];
	unsigned cp;
	size_t n;

	*adv = 1;
	if (c < 0x80)
		return ascii_alnum(c);
	n = text_utf8_decode(s + i, len - i, &cp);
	if (n == 0)
		return 0;
	*adv = n;
	return letter_cp(cp);
}

/* Bytes of an apostrophe (' or U+2019) at s[i], else 0. */
static size_t apostrophe(const char *s, size_t len, size_t i)
{
	if (s[i] == '\'')
		return 1;
	if (i + 2 < len && memcmp(s + i, "\xe2\x80\x99", 3) == 0)
		return 3;
	return 0;
}

static void add_tok(struct field *f, size_t start, size_t end, size_t *cap)
{
	struct tok *t;
	size_t n = end - start;

	if (f->n == *cap) {
		*cap = *cap ? 2 * *cap : 64;
		f->t = xrealloc(f->t, *cap * sizeof *f->t);
	}
	t = &f->t[f->n++];
	memset(t, 0, sizeof *t);
	t->start = start;
	t->end = end;
	t->cap = f->s[start] >= 'A' && f->s[start] <= 'Z';
	t->num = 1;
	for (size_t i = 0; i < n; i++) {
		char c = f->s[start + i];

		if (c < '0' || c > '9')
			t->num = 0;
		if (n < LOW_MAX)
			t->low[i] = ascii_lower(c);
	}
}

static void tokenize(struct field *f)
{
	size_t i = 0, cap = 0, adv, start;

	while (i < f->len) {
		if (!word_char(f->s, f->len, i, &adv)) {
			i += adv;
			continue;
		}
		start = i;
		i += adv;
		while (i < f->len) {
			size_t ap;

			if (word_char(f->s, f->len, i, &adv)) {
				i += adv;
				continue;
			}
			/* "don't" is one word; a quote mark at a word's edge is not. */
			ap = apostrophe(f->s, f->len, i);
			if (ap && i + ap < f->len && word_char(f->s, f->len, i + ap, &adv)) {
				i += ap + adv;
				continue;
			}
			break;
		}
		add_tok(f, start, i, &cap);
	}
}

/* Words after which a '.' ends an abbreviation, not a sentence. */
static const char *const abbreviations[] = {
	"inc", "ltd", "corp", "co", "dr", "mr", "mrs", "ms", "prof", "st", "jr", "sr", "vs", "no",
};

static int in_list(const char *w, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(w, list[i]) == 0)
			return 1;
	return 0;
}

/*
 * A sentence ends where the gap holds . ! ? ; or a line break — not at the
 * '.' inside "3.5" or "example.org", nor after "Inc." or "Dr.".
 */
static int sentence_break(const struct field *f, size_t k)
{
	size_t a = f->t[k - 1].end, b = f->t[k].start;
	int abbrev = in_list(f->t[k - 1].low, abbreviations,
			     sizeof abbreviations / sizeof abbreviations[0]);

	for (size_t i = a; i < b; i++) {
		unsigned char c = (unsigned char)f->s[i];

		if (c == '!' || c == '?' || c == ';' || (c < 0x20 && c != '\t'))
			return 1;
		if (c == '.' && i + 1 < b && !(abbrev && i == a))
			return 1;
	}
	return 0;
}

/* --- the little pattern language ----------------------------------------- */

/*
 * A pattern is words separated by spaces. A word is alternatives separated by
 * '|'; "#" matches any number; "*" skips up to three words. Matching stays
 * inside [i, end) and returns the index after the match, or NOMATCH.
 */
static int alt_match(const char *alts, size_t n, const struct tok *t)
{
	const char *p = alts, *stop = alts + n;
	size_t tlen = strlen(t->low);

	while (p < stop) {
		const char *bar = memchr(p, '|', (size_t)(stop - p));
		size_t len = (size_t)((bar ? bar : stop) - p);

		if (len == 1 && *p == '#' && t->num)
			return 1;
		if (tlen == len && *p == t->low[0] && memcmp(t->low, p, len) == 0)
			return 1;
		p += len + 1;
	}
	return 0;
}

static size_t match_at(const struct field *f, size_t i, size_t end, const char *pat)
{
	size_t n;

	while (*pat == ' ')
		pat++;
	if (!*pat)
		return i;
	n = strcspn(pat, " ");
	if (n == 1 && *pat == '*') {
		for (size_t k = 0; k <= 3 && i + k <= end; k++) {
			size_t r = match_at(f, i + k, end, pat + 1);

			if (r != NOMATCH)
				return r;
		}
		return NOMATCH;
	}
	if (i >= end || !alt_match(pat, n, &f->t[i]))
		return NOMATCH;
	return match_at(f, i + 1, end, pat + n);
}

/* The first of pats matching at i; NOMATCH when none does. */
static size_t match_any(const struct field *f, size_t i, size_t end, const char *const *pats,
			size_t npats)
{
	for (size_t k = 0; k < npats; k++) {
		size_t r = match_at(f, i, end, pats[k]);

		if (r != NOMATCH)
			return r;
	}
	return NOMATCH;
}

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* --- instructions addressed to the reader --------------------------------- */

/*
 * Each pattern is something a person asking a person for a meeting has no
 * reason to write: the corpus under tests/fixtures/injection holds the hard
 * cases on both sides ("ignore my previous email", "you must register",
 * "from now on please use my new address" are ordinary), and `make bench`
 * measures both rates on it. A pattern that flags an ordinary request costs
 * that request its dates and topic (its sentence is set aside), so a word
 * that is only suspicious (`must`, `new instructions`) needs company here.
 */
static const char *const steering[] = {
	/* ignore-previous */
	("ignore|disregard|forget|override|bypass|discard|abandon * instructions|instruction|rules|"
	 "prompt|prompts|directions|guidelines|guidance|directives|guardrails|constraints|above|"
	 "everything|programming|context|consignes"),
	"no longer follow|obey",
	"no longer have|need to follow|obey",
	"instructions|rules|guidelines|guidance|prompt you were|have been given|told",
	"real|actual|true instructions",
	"context|instructions|prompt|rules is|are void|invalid|cancelled|canceled|obsolete|revoked",
	"your instructions|guidelines|rules|prompt have|has been updated|changed|replaced|revoked",
	"updated|new instruction is",
	"your guidelines|rules|instructions|policy|policies allow|permit",
	"admin|administrator|system|developer|operator override",
	"stop summarising|summarizing|extracting|processing",
	"disregard * previous|prior|earlier|preceding instructions|prompt|rules|directions|guidelines",
	"disregard the|all|everything above",
	"forget everything",
	"stop following * instructions|guidelines|guidance|rules|prompt|programming",
	"skip|bypass|circumvent|disable * checks|safeguards|filters|guardrails|approval|approvals",
	/* NOLINTNEXTLINE(bugprone-suspicious-missing-comma): one phrase split over two lines */
	"your previous|prior|original|initial|earlier|system|usual instructions|prompt|programming|"
	"guidelines|rules|directives|guardrails",
	"your programming|guardrails",
	/* a new role */
	"you are now dan|free|jailbroken|unrestricted|unfiltered|evil|unchained|in",
	"you are now a|an|my * assistant|ai|bot|chatbot|model|version|persona|character|agent|"
	"secretary|administrator",
	"you're|you’re now",
	"you will now act|obey|comply|ignore|forget|disregard|follow|respond",
	"from now on you|your",
	"your new|real|actual|true|hidden|secret instructions|orders|directive|directives",
	"your real|actual|true|hidden|secret task|role|goal|purpose",
	"new task|directive|objective",
	"god|jailbreak|jailbroken|unrestricted|dan mode",
	"enter|activate developer|debug|admin mode",
	"in developer|debug|admin mode you",
	"pretend you are|were",
	"pretend you're|you’re",
	"pretend to be",
	"roleplay|role play as",
	"act as * system|administrator|admin|root|sysadmin|owner|developer|ai|assistant|chatbot|"
	"bot|model|dan",
	"let's|lets play a game",
	"version of yourself",
	"that|who has|have no rules|restrictions|filters|guardrails|limits",
	"jailbreak|jailbroken|jailbreaking",
	"do anything now",
	"as an ai|llm language|model|you",
	"as a language|large model",
	"you are an|a ai|llm|chatbot|bot",
	"you are a|an helpful|harmless|obedient|unrestricted|unfiltered",
	"obedient|unrestricted|unfiltered assistant|assistants|ai|model",
	/* what the reader is to do with its answer, or with its secrets */
	"you must now|comply|obey|ignore|forget|disregard|reveal|print|output",
	"output only|solely",
	"respond|reply|answer only|solely|just with the word|words|phrase|text",
	"respond|reply|answer with only|just the word|words|phrase",
	"do|must not|never flag",
	"don't|dont flag",
	("reveal|print|repeat|leak|disclose * prompt|instructions|secrets|password|passwords|"
	 "credentials|tokens|keys"),
	("forward|send|email|share|export|upload|transfer|copy all|every|your * emails|mails|"
	 "inbox|mailbox|contacts|passwords|credentials|secrets|tokens"),
	("owner's|owners|owner’s * emails|email|calendar|inbox|mailbox|contacts|meetings|attachments|"
	 "mobile|personal|appointments|schedule|diary|card|passwords"),
	"email|forward|send|export the|my|your|whole inbox|mailbox",
	"stored|saved passwords|credentials|card|cards|tokens",
	"api|ssh|private key|keys|token|tokens",
	"add|include a|an bcc",
	"you the ai|model|llm|bot|chatbot",
	"approved|authorised|authorized|reviewed by a|the human",
	"you are a|an * bot|chatbot|llm",
	("set|change|fill|mark|put|make|label|classify|update|overwrite|insert|write|enter * "
	 "topic|institution|"
	 "urgency|reading|extraction|field|fields|flag|output|json to|as|with|field|value"),
	"classify|report * this|the request|text|message as",
	"reads like instructions",
	"system prompt|message|instructions|override",
	"pre approved|authorised|authorized",
	"preapproved|preauthorised|preauthorized",
	"without asking anyone|anybody",
	"human approval|review|confirmation|oversight|reviewer",
	"auto accept|approve|confirm|forward|book all|every|any",
	"calendar|mailbox|inbox owner",
	"as if you were|are the owner|admin|administrator|user|person|developer|system",
	"system|model|platform you run|are running on",
	"print|dump|reveal|leak|disclose|output * your configuration|config|settings|environment",
	"forward|send|copy|export|upload every email|mail|message|event|meeting|contact",
	"who reads|reviews|sees your summary|output|extraction",
	"not tell|inform|alert the human|person|user|owner",
	"human|owner|user has|have authorised|authorized|approved|allowed you",
	"automated|ai reader|readers",
	/* the reader addressed as a model */
	("note|message|notice|instructions|attention to|for * ai|llm|model|chatbot|bot|gpt|"
	 "chatgpt|automated|machine|robot"),
	("ai|llm|model|chatbot|bot|gpt * reading|processing|summarising|summarizing|parsing|"
	 "handling|analysing|analyzing|extracting|reads|processes|summarises|summarizes this|it"),
	"if you are an|a ai|llm|chatbot|bot|automated|machine",
	"if you are a language|large model",
	"whatever reads|processes|parses this|it",
	"decode * and follow|execute|obey|run|do",
	"follow|execute|obey * decoded|encoded",
	"base64 decode|decoded|encoded * follow|execute|obey|request|instructions",
};

/* The reader called by what it is, at the head of a sentence: "Dear AI,", "Hey ChatGPT:". */
static const char *const model_names =
	"ai|llm|model|chatbot|bot|gpt|chatgpt|claude|gemini|copilot|assistant|agent";
static const char *const greetings = "dear|hey|hello|hi|attention|ok|okay|yo";

/*
 * Markers of chat templates, of tool calls and of our own tool and field
 * names: no person writes these to a person.
 */
static const char *const markers[] = {
	/* chat templates and role tags */
	"<|", "|>", "[inst]", "[/inst]", "<<sys>>", "</s>", "```system", "<system", "</system",
	"[system]", "### instruction", "### system", "### response", "system_override", "</user",
	"<assistant", "end of user input", "\"role\":", "\"content\":",
	/* tool calls, and code to run */
	"<function", "<invoke", "<tool_call", "tool_call", "function_call", "\"tool\":",
	"\"arguments\":", "\"function\":", "<script", "os.system(", "| sh", "| bash",
	/* our own fields and tools */
	"urgency_claimed", "dates_mentioned", "reads_like_instructions", "\"reading\":", "\"topic\":",
	"mail_send", "draft_reply", "calendar_free_busy", "calendar_invite", "mission_post",
	"frontdoor_next", "send_email",
};

/*
 * Other languages: a sentence holding both stems (lowercased through
 * rules_fold; an empty second stem: the first alone is enough). Pairs rather
 * than phrases, because word order, cases and particles vary.
 */
static const char *const foreign[][2] = {
	/* fr */
	{ "ignor", "instructions" }, { "ignor", "consignes" }, { "ignor", "règles" },
	{ "oubli", "consignes" }, { "oubli", "instructions" },
	{ "ne tenez pas compte", "instructions" }, { "vous êtes maintenant", "" },
	{ "pour l'ia", "" }, { "pour le modèle", "" }, { "assistant", "sans restriction" },
	/* de */
	{ "ignorier", "anweisung" }, { "ignorier", "regeln" }, { "vergiss", "anweisung" },
	{ "vergiss", "regeln" }, { "vergess", "anweisung" }, { "vergess", "regeln" },
	{ "missachte", "anweisung" }, { "systemanweisung", "" }, { "du bist jetzt", "" },
	{ "an die ki", "" }, { "an das sprachmodell", "" }, { "assistent", "ohne einschränkung" },
	/* es */
	{ "ignora", "instrucciones" }, { "ignora", "reglas" }, { "olvida", "instrucciones" },
	{ "olvida", "reglas" }, { "no hagas caso", "instrucciones" },
	{ "instrucciones del sistema", "" }, { "ahora eres", "" }, { "para la ia", "" },
	{ "para el modelo", "" }, { "asistente", "sin restricciones" },
	/* zh */
	{ "忽略", "指令" }, { "忽略", "指示" }, { "忽略", "提示" }, { "忽略", "规则" },
	{ "无视", "指令" }, { "无视", "规则" }, { "忘记", "指令" }, { "只听我的", "" },
	{ "你现在是", "" }, { "系统提示", "" }, { "助手", "限制" },
	/* ru */
	{ "игнорир", "инструкци" }, { "игнорир", "правил" }, { "игнорир", "указани" },
	{ "игнорир", "ограничени" }, { "забудь", "инструкци" }, { "забудь", "правил" },
	{ "забудь", "указани" }, { "не обращай внимания", "инструкци" },
	{ "системн", "инструкци" }, { "теперь ты", "" }, { "ты теперь", "" }, { "для ии", "" },
	{ "помощник", "без ограничений" },
};

static int role_line(const struct field *f, size_t i)
{
	const struct tok *t = &f->t[i];

	return t->end < f->len && f->s[t->end] == ':' &&
	       (strcmp(t->low, "system") == 0 || strcmp(t->low, "assistant") == 0 ||
		strcmp(t->low, "developer") == 0);
}

/* The gap after word k holds one of , : . ! (or the field ends): the name is a vocative. */
static int called(const struct field *f, size_t k)
{
	size_t from = f->t[k].end, to = k + 1 < f->n ? f->t[k + 1].start : f->len;

	if (from == f->len)
		return 1;
	for (size_t i = from; i < to; i++)
		if (strchr(",:.!", f->s[i]))
			return 1;
	return 0;
}

/* Names a person has too: an assistant, an agent. */
static int person_like(const struct tok *t)
{
	return strcmp(t->low, "assistant") == 0 || strcmp(t->low, "agent") == 0;
}

/* "Dear AI," "Hey ChatGPT:" "AI agent:" "Hello model." at the head of sentence [a, b). */
static int vocative(const struct field *f, size_t a, size_t b)
{
	size_t k = a;

	int greeted = k < b && alt_match(greetings, strlen(greetings), &f->t[k]);

	k += (size_t)greeted;
	for (size_t n = 0; k < b && n < 2 && alt_match(model_names, strlen(model_names), &f->t[k]);
	     n++, k++)
		if (greeted || called(f, k))
			/* "Dear assistant," may be a person's assistant; "AI assistant" is not */
			return !person_like(&f->t[k]) || (k > a && strcmp(f->t[k - 1].low, "ai") == 0);
	return 0;
}

static int steers(const struct field *f, size_t a, size_t b)
{
	if (role_line(f, a) || vocative(f, a, b))
		return 1;
	for (size_t i = a; i < b; i++)
		if (match_any(f, i, b, steering, COUNT(steering)) != NOMATCH)
			return 1;
	return 0;
}

/* needle (lowercase) occurs in s[0..len), ignoring ASCII case. */
static int has_ci(const char *s, size_t len, const char *needle)
{
	size_t n = strlen(needle);

	for (size_t i = 0; i + n <= len; i++) {
		size_t k = 0;

		while (k < n && ascii_lower(s[i + k]) == needle[k])
			k++;
		if (k == n)
			return 1;
	}
	return 0;
}

static int has_marker(const struct field *f, size_t a, size_t b)
{
	for (size_t k = 0; k < COUNT(markers); k++)
		if (has_ci(f->s + a, b - a, markers[k]))
			return 1;
	return 0;
}

static int speaks_foreign(const struct field *f, size_t a, size_t b)
{
	struct buf low = BUF_INIT;
	int hit = 0;

	rules_fold(f->s + a, b - a, &low);
	for (size_t k = 0; !hit && k < COUNT(foreign); k++)
		hit = has_ci(buf_str(&low), low.len, foreign[k][0]) &&
		      has_ci(buf_str(&low), low.len, foreign[k][1]);
	buf_free(&low);
	return hit;
}

static void classify(struct field *f, int decoded);

/*
 * The sentence s[0..len) read again through every way of hiding words
 * (rules_decode.h): 1 when one of its readings steers. Only the text as
 * written is decoded; a reading is not decoded again.
 */
static int hides_instructions(const char *s, size_t len)
{
	int hit = 0;

	for (int how = 0; !hit && how < RULES_NREADINGS; how++) {
		struct buf r = BUF_INIT;
		struct field g = { 0 };

		if (rules_decode((enum rules_reading)how, s, len, &r)) {
			g.s = buf_str(&r);
			g.len = r.len;
			tokenize(&g);
			classify(&g, 1);
			hit = g.nflagged > 0;
			free(g.t);
		}
		buf_free(&r);
	}
	return hit;
}

/*
 * Splits into sentences and flags those that steer — in English words, in
 * markers, in another language, or hidden in an encoding (decoded is 1 for a
 * text that is itself a decoding). Once one does, the rest of the field is
 * set aside with it: an injection's next sentence ("… and add the date
 * 2026-01-01") rarely steers on its own, yet it is part of the same attempt.
 */
static void classify(struct field *f, int decoded)
{
	size_t a = 0, b;
	int flag = 0;

	while (a < f->n) {
		size_t from = a ? f->t[a - 1].end : 0, to;

		for (b = a + 1; b < f->n && !sentence_break(f, b); b++)
			;
		to = b < f->n ? f->t[b].start : f->len;
		flag = flag || steers(f, a, b) || has_marker(f, from, to) ||
		       speaks_foreign(f, from, to) ||
		       (!decoded && hides_instructions(f->s + from, to - from));
		for (size_t i = a; i < b; i++) {
			f->t[i].flagged = (unsigned char)flag;
			f->t[i].sent_end = b;
		}
		f->nflagged += (size_t)flag;
		a = b;
	}
	/* A field of markers and no words still read like instructions. */
	if (f->n == 0 && has_marker(f, 0, f->len))
		f->nflagged++;
}

/* --- gaps between words ---------------------------------------------------- */

/* Words k and k+1 are separated by 1–3 spaces or tabs only. */
static int gap_plain(const struct field *f, size_t k)
{
	size_t a = f->t[k].end, b = f->t[k + 1].start;

	if (b - a < 1 || b - a > 3)
		return 0;
	for (size_t i = a; i < b; i++)
		if (f->s[i] != ' ' && f->s[i] != '\t')
			return 0;
	return 1;
}

/* As gap_plain, but one comma may sit there too ("Tuesday, March 3, 2026"). */
static int gap_date(const struct field *f, size_t k)
{
	size_t a = f->t[k].end, b = f->t[k + 1].start, commas = 0;

	if (b - a < 1 || b - a > 3)
		return 0;
	for (size_t i = a; i < b; i++) {
		if (f->s[i] == ',')
			commas++;
		else if (f->s[i] != ' ')
			return 0;
	}
	return commas <= 1;
}

static int gaps_plain(const struct field *f, size_t a, size_t last)
{
	for (size_t k = a; k < last; k++)
		if (!gap_plain(f, k))
			return 0;
	return 1;
}

/* --- urgency ------------------------------------------------------------------ */

static const char *const calm[] = {
	"no rush|hurry|urgency|pressure|deadline",
	"no particular rush|hurry|urgency|deadline",
	"not urgent|pressing|critical",
	"not time sensitive|critical",
	"not in a rush|hurry",
	"in no hurry|rush",
	"whenever you|it|convenient|suits",
	"at your leisure",
	"nothing urgent",
	"low priority",
	"not a priority",
};

static const char *const urgent[] = {
	"as soon as possible",
	"a s a p",
	"asap|urgent|urgently|immediately|immediate|emergency|critical",
	"right away|now",
	"time critical",
	"top|highest priority",
	"life or death",
};

static const char *const soon[] = {
	"soon|sooner|shortly|quickly|promptly|urgency|deadline",
	"this week",
	"earliest convenience",
	"time sensitive",
	"before long",
	"in the coming days",
	"within * days|day|hours|hour",
	"high priority",
};

/* A claim match at i that touches no word of a negated phrase. */
static int claim_at(const struct field *f, size_t i, const char *const *pats, size_t n)
{
	size_t r;

	if (f->t[i].flagged || f->t[i].masked)
		return 0;
	r = match_any(f, i, f->t[i].sent_end, pats, n);
	if (r == NOMATCH)
		return 0;
	for (size_t k = i; k < r; k++)
		if (f->t[k].masked)
			return 0;
	return 1;
}

/* 3 urgent, 2 soon, 1 none (a claim of no hurry), 0 no claim. */
static int urgency_of(struct field *f)
{
	int level = 0;

	for (size_t i = 0; i < f->n; i++) {
		size_t r;

		if (f->t[i].flagged)
			continue;
		r = match_any(f, i, f->t[i].sent_end, calm, COUNT(calm));
		if (r == NOMATCH)
			continue;
		for (size_t k = i; k < r; k++)
			f->t[k].masked = 1;
		level = 1;
	}
	for (size_t i = 0; i < f->n; i++) {
		if (claim_at(f, i, urgent, COUNT(urgent)))
			return 3;
		if (claim_at(f, i, soon, COUNT(soon)) && level < 2)
			level = 2;
	}
	return level;
}

/* --- dates ------------------------------------------------------------------- */

struct month {
	const char *name;
	unsigned char abbrev; /* only a date next to a number */
};

static const struct month months[] = {
	{ "january", 0 }, { "jan", 1 },      { "february", 0 }, { "feb", 1 },  { "march", 0 },
	{ "mar", 1 },     { "april", 0 },    { "apr", 1 },      { "may", 1 },  { "june", 0 },
	{ "jun", 1 },     { "july", 0 },     { "jul", 1 },      { "august", 0 }, { "aug", 1 },
	{ "september", 0 }, { "sep", 1 },    { "sept", 1 },     { "october", 0 }, { "oct", 1 },
	{ "november", 0 }, { "nov", 1 },     { "december", 0 }, { "dec", 1 },
};

/* 1 for a month name next to a number, 2 for one that is a date alone, else 0. */
static int month_kind(const struct tok *t)
{
	for (size_t i = 0; i < COUNT(months); i++) {
		if (strcmp(t->low, months[i].name) != 0)
			continue;
		/* "may" is a verb far more often than a month. */
		if (strcmp(t->low, "may") == 0 && !t->cap)
			return 0;
		return months[i].abbrev || !t->cap ? 1 : 2;
	}
	return 0;
}

static int is_weekday(const struct tok *t)
{
	static const char *const days[] = { "monday", "tuesday", "wednesday", "thursday",
					    "friday", "saturday", "sunday" };

	for (size_t i = 0; i < COUNT(days); i++)
		if (strcmp(t->low, days[i]) == 0)
			return 1;
	return 0;
}

static long digits_value(const char *s, size_t n)
{
	long v = 0;

	for (size_t i = 0; i < n; i++)
		v = v * 10 + (s[i] - '0');
	return v;
}

/* 1–31, bare or with st/nd/rd/th. */
static int is_daynum(const struct field *f, const struct tok *t)
{
	size_t n = t->end - t->start, d = 0;

	while (d < n && d < 3 && f->s[t->start + d] >= '0' && f->s[t->start + d] <= '9')
		d++;
	if (d < 1 || d > 2)
		return 0;
	if (d != n && !(n == d + 2 && (strcmp(t->low + d, "st") == 0 ||
				       strcmp(t->low + d, "nd") == 0 ||
				       strcmp(t->low + d, "rd") == 0 ||
				       strcmp(t->low + d, "th") == 0)))
		return 0;
	return digits_value(f->s + t->start, d) >= 1 && digits_value(f->s + t->start, d) <= 31;
}

static int is_year(const struct field *f, const struct tok *t)
{
	long v;

	if (!t->num || t->end - t->start != 4)
		return 0;
	v = digits_value(f->s + t->start, 4);
	return v >= 1900 && v <= 2199;
}

static int ndigits(const struct tok *t, size_t lo, size_t hi)
{
	size_t n = t->end - t->start;

	return t->num && n >= lo && n <= hi;
}

/* The single byte between words k and k+1, or 0. */
static char sep_after(const struct field *f, size_t k)
{
	return f->t[k + 1].start - f->t[k].end == 1 ? f->s[f->t[k].end] : 0;
}

/* 2026-03-14 (a following "T10:00" is left out), 14/03/2026, 3.14.26, 2026/03/14. */
static size_t numeric_date(const struct field *f, size_t i, size_t e, size_t *stop)
{
	const struct tok *t = &f->t[i];
	char s1, s2;
	size_t last = i + 2;

	if (last >= e || !t->num)
		return NOMATCH;
	s1 = sep_after(f, i);
	s2 = sep_after(f, i + 1);
	if (s1 != s2 || (s1 != '-' && s1 != '/' && s1 != '.') || !ndigits(&f->t[i + 1], 1, 2))
		return NOMATCH;
	*stop = f->t[last].end;
	if (ndigits(t, 4, 4)) {
		const struct tok *d = &f->t[last];
		size_t n = 0;

		while (n < 3 && d->start + n < d->end && f->s[d->start + n] >= '0' &&
		       f->s[d->start + n] <= '9')
			n++;
		if (n < 1 || n > 2 || (d->start + n < d->end && d->low[n] != 't'))
			return NOMATCH;
		*stop = d->start + n;
	} else if (!ndigits(t, 1, 2) || !ndigits(&f->t[last], 2, 4) ||
		   ndigits(&f->t[last], 3, 3) || (s1 == '-' && !ndigits(&f->t[last], 4, 4))) {
		return NOMATCH;
	}
	/* 10.0.0.1 and 1-2-3-4 are not dates. */
	if (*stop < f->len && f->s[*stop] == s1 && *stop + 1 < f->len &&
	    f->s[*stop + 1] >= '0' && f->s[*stop + 1] <= '9')
		return NOMATCH;
	return last;
}

/* An optional year after a date ending at word k (not the start of "2026-08-06"). */
static size_t with_year(const struct field *f, size_t k, size_t e)
{
	size_t end;

	if (k + 1 >= e || !gap_date(f, k) || !is_year(f, &f->t[k + 1]))
		return k;
	end = f->t[k + 1].end;
	if (end + 1 < f->len && f->s[end] && strchr("-/.", f->s[end]) && f->s[end + 1] >= '0' &&
	    f->s[end + 1] <= '9')
		return k;
	return k + 1;
}

/* March 3, March 3rd 2026, March 2026, and a capitalised month alone. */
static size_t month_first(const struct field *f, size_t i, size_t e, int need_day)
{
	int kind = month_kind(&f->t[i]);

	if (!kind)
		return NOMATCH;
	if (i + 1 < e && gap_plain(f, i) && is_daynum(f, &f->t[i + 1]))
		return with_year(f, i + 1, e);
	if (need_day)
		return NOMATCH;
	if (i + 1 < e && gap_plain(f, i) && is_year(f, &f->t[i + 1]))
		return i + 1;
	return kind == 2 ? i : NOMATCH;
}

/* 3 March, 3rd of March 2026. */
static size_t day_first(const struct field *f, size_t i, size_t e)
{
	size_t j = i + 1;

	if (!is_daynum(f, &f->t[i]) || j >= e || !gap_plain(f, i))
		return NOMATCH;
	if (strcmp(f->t[j].low, "of") == 0) {
		if (j + 1 >= e || !gap_plain(f, j))
			return NOMATCH;
		j++;
	}
	if (month_kind(&f->t[j]) == 0)
		return NOMATCH;
	return with_year(f, j, e);
}

static size_t part_of_day(const struct field *f, size_t k, size_t e)
{
	static const char *const parts[] = { "morning|afternoon|evening|night" };

	if (k + 1 < e && gap_plain(f, k) && match_at(f, k + 1, e, parts[0]) != NOMATCH)
		return k + 1;
	return k;
}

/* Tuesday, next Tuesday, Tuesday afternoon, Tuesday, March 3, Tuesday next week. */
static size_t weekday_date(const struct field *f, size_t i, size_t e)
{
	size_t r;

	if (i + 1 < e && match_at(f, i, i + 1, "next|this|last|coming") != NOMATCH &&
	    gap_plain(f, i) && is_weekday(&f->t[i + 1]))
		return part_of_day(f, i + 1, e);
	if (!is_weekday(&f->t[i]))
		return NOMATCH;
	if (i + 1 < e && gap_date(f, i)) {
		r = month_first(f, i + 1, e, 1);
		if (r == NOMATCH)
			r = day_first(f, i + 1, e);
		if (r != NOMATCH)
			return r;
	}
	if (i + 2 < e && gaps_plain(f, i, i + 2) &&
	    match_at(f, i + 1, e, "next|this week") == i + 3)
		return i + 2;
	/* Friday the 13th, Friday the 13th of March */
	if (i + 2 < e && gaps_plain(f, i, i + 2) && strcmp(f->t[i + 1].low, "the") == 0 &&
	    is_daynum(f, &f->t[i + 2])) {
		r = day_first(f, i + 2, e);
		return r != NOMATCH ? r : i + 2;
	}
	return part_of_day(f, i, e);
}

static const char *const relative[] = {
	"the day after tomorrow",
	"the week after next",
	"end of the|this|next week|month|year",
	"next|this|last|coming|following week|month|year|weekend",
	"tomorrow morning|afternoon|evening|night",
	"tomorrow|today|tonight|yesterday",
	("in|within a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|# "
	"day|days|week|weeks|month|months|fortnight"),
	"in|within a couple of day|days|week|weeks|month|months",
	"in|within a few|couple day|days|week|weeks|month|months",
	"a|one|two|three|four|five|six|# day|days|week|weeks|month|months from now|today",
};

/* The last word of a date starting at word i, or NOMATCH; *stop may end it early. */
static size_t date_at(const struct field *f, size_t i, size_t *stop)
{
	size_t e = f->t[i].sent_end, r;

	*stop = 0;
	r = numeric_date(f, i, e, stop);
	if (r != NOMATCH)
		return r;
	*stop = 0;
	r = weekday_date(f, i, e);
	if (r == NOMATCH)
		r = month_first(f, i, e, 0);
	if (r == NOMATCH)
		r = day_first(f, i, e);
	if (r == NOMATCH) {
		r = match_any(f, i, e, relative, COUNT(relative));
		if (r != NOMATCH && gaps_plain(f, i, r - 1))
			r = r - 1;
		else
			r = NOMATCH;
	}
	return r;
}

static int seen(const json_t *arr, const char *s, size_t n)
{
	size_t i;
	json_t *v;

	json_array_foreach(arr, i, v)
		if (json_string_length(v) == n && memcmp(json_string_value(v), s, n) == 0)
			return 1;
	return 0;
}

static void dates_of(const struct field *f, json_t *dates)
{
	size_t i = 0;

	while (i < f->n && json_array_size(dates) < MAX_DATES) {
		size_t stop, last;
		const char *s;
		size_t n;

		last = f->t[i].flagged ? NOMATCH : date_at(f, i, &stop);
		if (last == NOMATCH) {
			i++;
			continue;
		}
		s = f->s + f->t[i].start;
		n = (stop ? stop : f->t[last].end) - f->t[i].start;
		if (text_utf8_valid(s, n) && text_utf8_count(s, n) <= DATE_MAX_CHARS &&
		    text_utf8_count(s, n) >= 3 && !seen(dates, s, n))
			json_array_append_new(dates, json_stringn(s, n));
		i = last + 1;
	}
}

/* --- institutions -------------------------------------------------------------- */

static const char *const org_words[] = {
	"university", "universität", "université", "universidad", "universita", "institute",
	"institut", "instituto", "college", "school", "academy", "laboratory", "laboratories",
	"lab", "labs", "foundation", "hospital", "clinic", "museum", "library", "society",
	"association", "council", "agency", "ministry", "department", "center", "centre",
	"corporation", "company", "observatory", "trust", "consortium",
};

/* Closing words: "Acme Inc." — the name is on their left only. */
static const char *const legal_words[] = {
	"inc", "ltd", "llc", "gmbh", "corp", "plc", "llp", "ag", "bv", "srl",
};

static const char *const not_names[] = {
	"i", "we", "our", "my", "me", "hi", "hello", "dear", "at", "from", "in", "on",
	"for", "with", "this", "that", "these", "please", "and", "but", "so", "as", "if",
	"when", "to", "by", "of", "a", "an", "yes", "no", "thanks", "thank", "regards",
	"best", "sincerely", "he", "she", "they", "it", "you", "your", "us", "am", "is",
	"yesterday", "today", "tomorrow", "also", "currently", "recently", "here", "there",
};

/* Part of an e-mail address, a URL, a host name or a path. */
static int addressy(const struct field *f, const struct tok *t)
{
	static const char glue[] = "@/\\:~#=%+&?_";
	unsigned char before = t->start ? (unsigned char)f->s[t->start - 1] : ' ';
	unsigned char after = t->end < f->len ? (unsigned char)f->s[t->end] : ' ';
	unsigned char beyond = t->end + 1 < f->len ? (unsigned char)f->s[t->end + 1] : ' ';

	if (before && strchr(glue, before))
		return 1;
	if (before == '.' && t->start >= 2 && ascii_alnum((unsigned char)f->s[t->start - 2]))
		return 1;
	return after && (strchr(glue, after) || after == '.') &&
	       (ascii_alnum(beyond) || beyond == '/');
}

static int connector(const struct tok *t)
{
	static const char *const words[] = { "of", "for", "and", "de" };

	return in_list(t->low, words, COUNT(words));
}

/* A capitalised word that can be part of a name: not "I", "Dear", a weekday, a month. */
static int name_word(const struct field *f, const struct tok *t)
{
	return (t->cap || t->num) && t->low[0] && !in_list(t->low, not_names, COUNT(not_names)) &&
	       !is_weekday(t) && !month_kind(t) && !addressy(f, t);
}

/* Words k and k+1 belong to one name: a space, " & ", "-" or ", " before a legal word. */
static int name_gap(const struct field *f, size_t k, int before_legal)
{
	size_t a = f->t[k].end, b = f->t[k + 1].start;

	if (gap_plain(f, k))
		return 1;
	if (b - a == 1 && f->s[a] == '-')
		return 1;
	if (b - a == 3 && memcmp(f->s + a, " & ", 3) == 0)
		return 1;
	return before_legal && b - a == 2 && memcmp(f->s + a, ", ", 2) == 0;
}

/* "Alan Turing Institute", "Bank of America Foundation", "Acme, Inc.". */
static size_t extend_left(const struct field *f, size_t k, int legal)
{
	size_t first = k;

	for (size_t taken = 0; first > 0 && taken < INSTITUTION_SIDE; taken++) {
		size_t p = first - 1;

		if (!name_gap(f, p, legal && first == k))
			break;
		if (name_word(f, &f->t[p]))
			first = p;
		else if (connector(&f->t[p]) && p > 0 && name_gap(f, p - 1, 0) &&
			 name_word(f, &f->t[p - 1]))
			first = p - 1;
		else
			break;
	}
	return first;
}

/* "University of Cambridge", "Institute of Science and Technology", "School of the Arts". */
static size_t extend_right(const struct field *f, size_t k)
{
	size_t last = k, j;

	while (last - k < INSTITUTION_SIDE) {
		j = last + 1;
		if (j + 1 >= f->n || !connector(&f->t[j]) || !gap_plain(f, last) || !gap_plain(f, j))
			break;
		j++;
		if (strcmp(f->t[j].low, "the") == 0 && j + 1 < f->n && gap_plain(f, j))
			j++;
		if (!name_word(f, &f->t[j]))
			break;
		last = j;
		while (last + 1 < f->n && last - k < INSTITUTION_SIDE && gap_plain(f, last) &&
		       name_word(f, &f->t[last + 1]))
			last++;
	}
	return last;
}

/* The institution around keyword word k, written into out; 0 when it is not one. */
static int institution_at(const struct field *f, size_t k, struct buf *out)
{
	const struct tok *t = &f->t[k];
	int legal = in_list(t->low, legal_words, COUNT(legal_words));
	size_t first, last, end;

	if (t->flagged || !t->cap)
		return 0;
	if (!legal && !in_list(t->low, org_words, COUNT(org_words)))
		return 0;
	first = extend_left(f, k, legal);
	last = legal ? k : extend_right(f, k);
	if (first == k && last == k)
		return 0; /* "University" alone names nothing */
	if (addressy(f, t))
		return 0;
	end = f->t[last].end;
	if (legal && end < f->len && f->s[end] == '.')
		end++;
	if (text_utf8_count(f->s + f->t[first].start, end - f->t[first].start) > 120 ||
	    last - first + 1 > 12)
		return 0;
	buf_add(out, f->s + f->t[first].start, end - f->t[first].start);
	return 1;
}

static int institution_of(const struct field *f, struct buf *out)
{
	for (size_t k = 0; k < f->n; k++)
		if (institution_at(f, k, out))
			return 1;
	return 0;
}

/* --- topic ------------------------------------------------------------------- */

/* Words that open a message without naming its subject. */
static const char *const lead_in[] = {
	"hi", "hello", "hey", "dear", "greetings", "good", "morning", "afternoon", "evening",
	"i", "i'm", "im", "i'd", "id", "i've", "we", "we're", "we'd", "we've", "my", "our",
	"me", "us", "you", "your", "would", "could", "can", "will", "shall", "should", "may",
	"might", "must", "like", "love", "want", "wanted", "wanting", "wish", "hope", "hoping",
	"need", "needs", "needed", "am", "is", "are", "was", "were", "be", "been", "being",
	"have", "has", "had", "do", "does", "did", "to", "a", "an", "the", "this", "that",
	"these", "those", "some", "any", "please", "kindly", "just", "really", "very", "also",
	"about", "regarding", "re", "concerning", "on", "for", "with", "of", "in", "at", "by",
	"from", "writing", "write", "wrote", "reaching", "reach", "out", "ask", "asking",
	"request", "requesting", "discuss", "discussing", "talk", "talking", "meet", "get",
	"schedule", "arrange", "book", "organise", "organize", "propose", "proposing", "invite",
	"inviting", "there", "it", "it's", "its", "here", "so", "and", "but", "or", "name",
	"sir", "madam", "team", "everyone", "all", "thanks", "thank", "enquire", "inquire",
	"inquiring", "enquiring", "wondering", "if", "whether", "know", "let", "see", "contact",
	"contacting", "happy", "glad", "interested", "briefly", "possible", "because", "since",
	"which", "who", "when", "where", "while", "as", "than", "then", "not", "next", "last",
	"tomorrow", "today", "tonight", "week", "month", "year", "weekend", "time", "he", "she",
	"they", "them", "his", "her", "their", "what", "how", "why", "into", "over", "up",
	"come", "go", "visit", "join", "attend", "speak", "present", "give", "share", "make",
	"take", "send", "help", "find", "explore", "learn", "understand", "follow", "introduce",
	"collaborate", "work", "working", "looking", "look", "forward", "seeking", "seek",
	"offer", "offering", "suggest", "suggesting", "plan", "planning", "hold", "host",
};

/* Words after which the subject usually follows. */
static const char *const cues[] = { "about", "regarding", "concerning", "re", "discuss",
				    "discussing", "on" };

static int stop_word(const struct field *f, const struct tok *t)
{
	return !t->low[0] || t->num || in_list(t->low, lead_in, COUNT(lead_in)) || is_weekday(t) ||
	       month_kind(t) || addressy(f, t) || is_daynum(f, t);
}

/* Up to PHRASE_WORDS words from k on, one line, no punctuation between them. */
static void phrase_at(const struct field *f, size_t k, struct buf *out)
{
	size_t words = 0;

	for (size_t i = k; i < f->n && words < PHRASE_WORDS && !f->t[i].flagged; i++) {
		if (stop_word(f, &f->t[i]) || (i > k && !gap_plain(f, i - 1)))
			break;
		if (words++)
			buf_addc(out, ' ');
		buf_add(out, f->s + f->t[i].start, f->t[i].end - f->t[i].start);
	}
}

static int cue_at(const struct field *f, size_t i, size_t e, size_t *start)
{
	size_t j = i + 1;

	if (!in_list(f->t[i].low, cues, COUNT(cues)))
		return 0;
	while (j < e && in_list(f->t[j].low, lead_in, COUNT(lead_in)))
		j++;
	if (j >= e || stop_word(f, &f->t[j]))
		return 0;
	*start = j;
	return 1;
}

/*
 * Where the subject begins: in the first sentence that names one, the words
 * after a cue ("about", "regarding" …), else its first word that is neither a
 * lead-in nor a capitalised word inside the sentence (a name, most likely).
 */
static size_t phrase_start(const struct field *f)
{
	for (size_t a = 0; a < f->n; a = f->t[a].sent_end) {
		size_t e = f->t[a].sent_end, first = NOMATCH, cued;

		if (f->t[a].flagged)
			continue;
		for (size_t i = a; i < e; i++) {
			if (cue_at(f, i, e, &cued))
				return cued;
			if (first == NOMATCH && !stop_word(f, &f->t[i]) && (i == a || !f->t[i].cap))
				first = i;
		}
		if (first != NOMATCH)
			return first;
	}
	return NOMATCH;
}

/* The request type as words: "general_inquiry" → "general inquiry". */
static void type_words(const char *type_id, struct buf *out)
{
	size_t words = 0;
	int in_word = 0;

	for (const char *p = type_id ? type_id : ""; *p; p++) {
		if (!ascii_alnum((unsigned char)*p)) {
			in_word = 0;
			continue;
		}
		if (!in_word && words == TYPE_WORDS)
			break;
		if (!in_word && words++)
			buf_addc(out, ' ');
		in_word = 1;
		buf_addc(out, *p);
	}
}

static void topic_of(const char *type_id, const struct field *f, struct buf *out)
{
	struct buf phrase = BUF_INIT;
	size_t k = f ? phrase_start(f) : NOMATCH;

	type_words(type_id, out);
	if (k != NOMATCH)
		phrase_at(f, k, &phrase);
	/* Drop the phrase's last words until the whole fits in the byte limit. */
	while (phrase.len && out->len + 2 + phrase.len > TOPIC_MAX_BYTES) {
		char *sp = strrchr(phrase.data, ' ');

		phrase.len = sp ? (size_t)(sp - phrase.data) : 0;
		phrase.data[phrase.len] = '\0';
	}
	if (phrase.len && out->len)
		buf_adds(out, ": ");
	buf_add(out, buf_str(&phrase), phrase.len);
	buf_free(&phrase);
}

/* --- the answer ------------------------------------------------------------- */

static const char *urgency_word(int level)
{
	static const char *const words[] = { "", "none", "soon", "urgent" };

	return words[level];
}

static char *reading_of(const char *type_id, size_t nfields, size_t words, size_t ndates,
			int institution, int urgency, size_t flagged)
{
	struct buf r = BUF_INIT, type = BUF_INIT;

	type_words(type_id, &type);
	buf_printf(&r,
		   "Read by the rules extractor (fixed patterns, no model): request type %s, %zu "
		   "prose field%s, %zu word%s; %zu date%s found; %s; ",
		   type.len ? buf_str(&type) : "none", nfields, nfields == 1 ? "" : "s", words,
		   words == 1 ? "" : "s", ndates, ndates == 1 ? "" : "s",
		   institution ? "an institution found" : "no institution found");
	if (urgency)
		buf_printf(&r, "claimed urgency \"%s\".", urgency_word(urgency));
	else
		buf_adds(&r, "no urgency claimed.");
	if (flagged)
		buf_printf(&r,
			   " %zu sentence%s read%s like instructions to the reader and %s set "
			   "aside.",
			   flagged, flagged == 1 ? "" : "s", flagged == 1 ? "s" : "",
			   flagged == 1 ? "was" : "were");
	buf_free(&type);
	return buf_steal(&r);
}

/* Fewer words than this and a field is taken for a name, not a sentence. */
#define RULES_TOPIC_MIN_WORDS 5

json_t *rules_extract(const char *type_id, const struct rules_field *fields, size_t nfields)
{
	struct field *f = xcalloc(nfields ? nfields : 1, sizeof *f);
	struct buf topic = BUF_INIT, inst = BUF_INIT;
	json_t *out = json_object(), *dates = json_array();
	size_t words = 0, flagged = 0, first = NOMATCH;
	int urgency = 0, found = 0;
	char *reading;

	for (size_t i = 0; i < nfields; i++) {
		f[i].s = fields[i].text ? fields[i].text : "";
		f[i].len = fields[i].text ? fields[i].len : 0;
		tokenize(&f[i]);
		classify(&f[i], 0);
		words += f[i].n;
		flagged += f[i].nflagged;
		/*
		 * The topic comes from the first field that reads like a sentence: a
		 * short prose field is most often a name, and a name is prose that must
		 * not cross to a privileged run inside the topic.
		 */
		if (first == NOMATCH && f[i].n >= RULES_TOPIC_MIN_WORDS)
			first = i;
		dates_of(&f[i], dates);
		if (!found)
			found = institution_of(&f[i], &inst);
		{
			int u = urgency_of(&f[i]);

			urgency = u > urgency ? u : urgency;
		}
	}
	topic_of(type_id, first == NOMATCH ? NULL : &f[first], &topic);
	reading = reading_of(type_id, nfields, words, json_array_size(dates), found, urgency,
			     flagged);
	json_object_set_new(out, "reading", json_string(reading));
	json_object_set_new(out, "topic", json_stringn(buf_str(&topic), topic.len));
	json_object_set_new(out, "urgency_claimed", json_string(urgency_word(urgency)));
	json_object_set_new(out, "dates_mentioned", dates);
	json_object_set_new(out, "institution", json_stringn(buf_str(&inst), inst.len));
	json_object_set_new(out, "reads_like_instructions", json_boolean(flagged > 0));
	for (size_t i = 0; i < nfields; i++)
		free(f[i].t);
	free(f);
	free(reading);
	buf_free(&topic);
	buf_free(&inst);
	return out;
}
