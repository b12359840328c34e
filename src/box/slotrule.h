/*
 * slotrule — which of the cached slots a stranger may pick now: the one rule
 * the week page (page_booking.c), its JSON twin and the hold (book.c) share.
 *
 * A slot is open when it is well formed (start and end RFC 3339, end after
 * start, duration_minutes a positive integer), starts after now, and overlaps
 * no blocked entry (plain overlap, [start, end) against [start, end), no
 * buffer: the buffer was home's to apply). A blocked entry that does not
 * parse blocks every slot: a corrupt ledger row is a bug to surface, not free
 * time. A cached entry that does not parse is left out.
 *
 * Cost: the cache is parsed once (slotrule_parse; book.c keeps the result per
 * push), the blocked entries are parsed and sorted once a call, then each
 * slot asks one binary search over their running latest end:
 * O((slots + blocked) log), never slots × blocked.
 *
 * Threads: no state; any number of calls at once.
 *
 * Ownership: json arguments are borrowed; *out is a new malloc'd array the
 * caller frees (never NULL on return, even when empty).
 */
#ifndef MECHA_BOX_SLOTRULE_H
#define MECHA_BOX_SLOTRULE_H

#include <jansson.h>
#include <stddef.h>
#include <time.h>

struct slotrule_slot {
	time_t start, end;
	long long minutes;
	size_t index; /* its place in the cache's array */
};

/*
 * The well-formed slots of a cache ([{start, end, duration_minutes}]; NULL or
 * not an array: none) in start order (then shorter first, then cache order).
 * Returns how many; *out holds them.
 */
size_t slotrule_parse(const json_t *slots, struct slotrule_slot **out);

/*
 * Of n parsed slots (slotrule_parse's order), those open at now given blocked
 * ([{start, end}]; NULL: nothing blocks), in the same order. Returns how many.
 */
size_t slotrule_open(const struct slotrule_slot *all, size_t n, const json_t *blocked, time_t now,
		     struct slotrule_slot **out);

#endif
