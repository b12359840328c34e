/*
 * book — a booking, from the week of open times to the owner's queue
 * (docs/protocol/box-pages.md §3):
 *
 *   GET  /s/{h}/{t}[?week=&mins=]  the week: the slots home pushed, minus every
 *                                  live hold and confirmed booking (plain overlap),
 *                                  future only; a notice when the push is a day old
 *   GET  /s/{h}/{t}/slots.json     the same times as JSON (Cache-Control: no-store)
 *   POST /s/{h}/{t}                `_slot` and the answers → the hold, the mail,
 *                                  "Almost there — held for N minutes"
 *   GET  /s/{h}/{t}/c/{token}      a Confirm button; the token untouched
 *   POST /s/{h}/{t}/c/{token}      the booking confirmed and queued with its
 *                                  `_manage_url`, or "Your held time lapsed"
 *   GET  /s/{h}/{t}/m/{token}      the booking and what can be done about it
 *   POST /s/{h}/{t}/m/{token}      cancelled (only outside the cutoff), and the
 *                                  cancellation record queued for home
 *
 * The box computes no availability: a `_slot` must be one the cache offers
 * now, starting in the future ("<RFC 3339 UTC start>|<minutes>"), or the
 * answer is the booking door's 404. Keys starting with `_` are the page's
 * machinery and are stripped before validation. The hold is the database's
 * decision (one conditional INSERT, ledger.h); losing the race is ordinary
 * and answers the week again with "That time was just taken". Where this
 * goes further (docs/protocol/box-pages.md §7): the booking POST spends the same
 * mail budgets as a form (three a day to one address, the owner's
 * send_budget in all) and a stranger holds at most two live holds, per
 * address and per client address.
 *
 * Ownership: as api_handle's.
 */
#ifndef MECHA_BOX_BOOK_H
#define MECHA_BOX_BOOK_H

struct api_call;
struct api_ctx;
struct api_reply;

#define BOOK_HOLDS_PER_STRANGER 2

void book_handle(struct api_ctx *ctx, const struct api_call *call, struct api_reply *out);

#endif
