#include "cli/cli.h"
#include "base/err.h"
int cli_frontdoor(int argc, char **argv)
{
	(void)argc; (void)argv;
	return EXIT_FAIL;
}
