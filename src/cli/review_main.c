/*
 * review_main — the review screen's program, mecha-review. `mecha review`
 * runs it (cli_exec_sibling), so ncurses is mapped by the one program that
 * draws a screen and never by the verbs agents call many times a minute.
 */
#include "cli/cli.h"
#include "cli/verb.h"

#include "config/confine.h"

#include <locale.h>

int main(int argc, char **argv)
{
	setlocale(LC_CTYPE, "");
	/* Everything a person does from the screen: every store but the board, a model, delivery,
	 * and the box (D tells it of a decline). */
	cli_confine_declare(CONFINE_REQUESTS | CONFINE_OUTBOX | CONFINE_SESSIONS | CONFINE_CALENDAR |
			    CONFINE_PROVIDER | CONFINE_DELIVER | CONFINE_EDITOR | CONFINE_PAGER |
			    CONFINE_GATE);
	return cli_review(argc, argv);
}
