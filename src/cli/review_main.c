/*
 * review_main — the review screen's program, mecha-review. `mecha review`
 * runs it (cli_exec_sibling), so ncurses is mapped by the one program that
 * draws a screen and never by the verbs agents call many times a minute.
 */
#include "cli/cli.h"

#include <locale.h>

int main(int argc, char **argv)
{
	setlocale(LC_CTYPE, "");
	return cli_review(argc, argv);
}
