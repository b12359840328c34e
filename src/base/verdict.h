/*
 * verdict — what a callback tells the store that called it.
 *
 * Both stores (requests and outbox) walk their files and change one file
 * under a lock through callbacks; both read the callback's answer the same
 * way, by name, so a 1 can never mean "write" in one store and "leave it" in
 * the other. A callback that fails or refuses returns -1 with its struct err
 * filled, in every store.
 */
#ifndef MECHA_BASE_VERDICT_H
#define MECHA_BASE_VERDICT_H

/* A walk's callback (store_each, outbox_store_each). */
enum {
	VERDICT_NEXT = 0, /* go on to the next file */
	VERDICT_STOP = 1, /* stop the walk early; not a failure */
};

/* An update's callback (store_update, outbox_store_update). */
enum {
	VERDICT_LEAVE = 0, /* nothing to write: the file stays as it is */
	VERDICT_WRITE = 1, /* write the changed document back */
};

#endif
