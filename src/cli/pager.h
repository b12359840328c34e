/*
 * pager — long output for a person at a terminal: how big the screen is, and
 * $PAGER when what is to be shown would not fit on it. Nowhere but on a
 * terminal does either apply: a pipe gets every byte, unpaged.
 *
 * The pager is $PAGER (run by the shell, so "less -R" works; empty or "cat"
 * means none), else less, else more, else none; LESS defaults to FRX (as git
 * does) so our colour reaches the screen and a short text exits at once. A
 * pager that quits early is not an error.
 *
 * Ownership: text is borrowed.
 */
#ifndef MECHA_CLI_PAGER_H
#define MECHA_CLI_PAGER_H

#include <stddef.h>

/* The screen of the terminal on fd: its size, else $LINES and $COLUMNS, else 24 × 80. */
void pager_screen(int fd, int *rows, int *cols);

/*
 * Writes text[0..len) to standard output: through the pager when standard
 * output is a terminal and the text is taller than the screen, else as it is.
 */
void pager_show(const char *text, size_t len);

#endif
