/*
 * editor — runs the person's own editor on a file and waits for it.
 *
 * $VISUAL, else $EDITOR, else vi, run through /bin/sh as git does: people
 * set EDITOR="code --wait" or "emacsclient -t", a command with arguments
 * that only a shell splits the way they meant. The file's path is never
 * pasted into that command line; it is passed as "$1", so a path with
 * spaces or quotes cannot change what runs.
 *
 * The caller holds no lock while this runs (an editor may stay open for an
 * hour) and, in a full-screen front end, leaves curses mode first.
 *
 * Ownership: path is borrowed; nothing is allocated for the caller.
 */
#ifndef MECHA_BASE_EDITOR_H
#define MECHA_BASE_EDITOR_H

struct err;

/* 0 when the editor exited 0; else -1 with "editor" (it failed) or "io" (it could not run). */
int editor_run(const char *path, struct err *e);

#endif
