/*
 * killpoint — the crash tests' hook: a process that names its dangerous
 * moments here can be killed at each one, as a power cut or an OOM kill
 * would, and a test can then check that nothing was lost or done twice.
 *
 * When the environment variable MECHA_TEST_KILL_AT equals a point's name,
 * killpoint() sends the process SIGKILL there (no handler runs, no buffer
 * is flushed, no lock is released by us). Otherwise it does nothing. It is
 * compiled only into test builds (-DMECHA_TEST_BUILD, which the Makefile's
 * test targets set); in a release build killpoint() is nothing at all.
 * Each module that has points lists them, with where each one is, in its
 * header (frontdoor/sweep.h, drain/drain.h). New points are named
 * "<module>-<moment>" (drain-before-ack); the booking sweep's came first and
 * keep their bare names (event, invite-sent …).
 *
 * Ownership: nothing is allocated.
 */
#ifndef MECHA_BASE_KILLPOINT_H
#define MECHA_BASE_KILLPOINT_H

#define KILLPOINT_ENV "MECHA_TEST_KILL_AT"

#ifdef MECHA_TEST_BUILD
/* Dies here (SIGKILL) when MECHA_TEST_KILL_AT is name. */
void killpoint(const char *name);
#else
/* A release build has no kill points: nothing, and no variable is read. */
#define killpoint(name) ((void)0)
#endif

#endif
