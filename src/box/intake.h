/*
 * intake — a form, from the page to the queue (docs/protocol/box-pages.md §2):
 *
 *   GET  /f/{h}/{t}             the form, built from the owner's manifest
 *   GET  /f/{h}/{t}/{asset}     its stylesheet and script (the same for every form)
 *   POST /f/{h}/{t}             validated (Submit) → a `submitted` row, a mail with
 *                               a one-use link, "Check your email"
 *   GET  /f/{h}/{t}/c/{token}   a page with one Confirm button; the token untouched
 *   POST /f/{h}/{t}/c/{token}   the click: the row `queued` — or, when a file field
 *                               applies, `awaiting_upload` and 303 to the upload page
 *
 * The rules it keeps: unverified never enters the queue (a `submitted` row
 * is not drainable); the link works once and is stored only as a hash; a GET
 * never spends it (mail scanners fetch every link); the only thing the answer
 * to a POST varies on is the stranger's own answers (their form back, 400,
 * with the errors beside the fields and the values kept) and the budgets
 * (429): never on what the mail did, never on whether the address was seen.
 * Budgets (§6): three mails a day to one address and the owner's
 * send_budget a day in all, counting sends rather than rows still present.
 *
 * Ownership: as api_handle's.
 */
#ifndef MECHA_BOX_INTAKE_H
#define MECHA_BOX_INTAKE_H

struct api_call;
struct api_ctx;
struct api_reply;

void intake_handle(struct api_ctx *ctx, const struct api_call *call, struct api_reply *out);

#endif
