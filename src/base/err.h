/*
 * err — how a failure travels from where it happened to the person, and the
 * one table of every code a failure can carry.
 *
 * A fallible function returns -1 (or NULL) and fills the caller's struct err
 * with a code from the table below and the message a person reads. The code
 * is a stable keyword a script can match ("stale_head", "not_pending", "io");
 * the table gives each code its exit status and its meaning, so the same
 * mistake exits the same way on every verb and no code is spelled anywhere
 * but here. A refusal (a rule said no, nothing changed: exit 3) is a code of
 * its own, never to be mistaken for a failure (exit 1) or a usage error
 * (exit 2).
 *
 * Adding a code: one row in ERR_CODES and one line in mecha.1's ERROR CODES
 * (a test checks that the two agree).
 *
 * Ownership: struct err is plain storage, owned by whoever declared it. No
 * function here allocates; names and meanings are static.
 */
#ifndef MECHA_BASE_ERR_H
#define MECHA_BASE_ERR_H

#include <stddef.h>

/* Exit statuses, documented in mecha.1. */
enum {
	EXIT_OK = 0,
	EXIT_FAIL = 1,
	EXIT_USAGE = 2,
	EXIT_REFUSED = 3,
};

/* X(NAME, "keyword", exit status, "meaning") */
#define ERR_CODES(X)                                                                              \
	X(NONE, "", EXIT_OK, "no error")                                                          \
	/* the command line or a tool call is wrong: exit 2 */                                    \
	X(USAGE, "usage", EXIT_USAGE, "the command line is wrong")                               \
	X(BAD_ARGUMENTS, "bad_arguments", EXIT_USAGE,                                            \
	  "a tool's arguments do not fit its schema or its sink's rules")                         \
	X(UNKNOWN_TOOL, "unknown_tool", EXIT_USAGE, "no tool or sink has that name")              \
	X(AMBIGUOUS, "ambiguous", EXIT_USAGE, "an abbreviated id matches more than one draft")    \
	X(REASON_REQUIRED, "reason_required", EXIT_USAGE,                                        \
	  "closing a request or rejecting a draft needs a reason")                               \
	/* something failed: exit 1 */                                                            \
	X(IO, "io", EXIT_FAIL, "reading or writing a file failed")                                \
	X(NOT_FOUND, "not_found", EXIT_FAIL, "no request, draft or file of that name")            \
	X(UNREADABLE, "unreadable", EXIT_FAIL, "a file is there but does not parse")              \
	X(PARSE, "parse", EXIT_FAIL, "a document is not what it should be (JSON, iCalendar)")     \
	X(CONFIG, "config", EXIT_FAIL, "config.toml or the environment is wrong")                 \
	X(INTERNAL, "internal", EXIT_FAIL, "mecha could not do what it should have (a bug)")      \
	X(CORRUPT_STORE, "corrupt_store", EXIT_FAIL, "the block store does not parse")            \
	X(INDEX, "index", EXIT_FAIL, "the mission box's sidecar index cannot be used")            \
	X(EDITOR, "editor", EXIT_FAIL, "the editor failed")                                       \
	X(DELIVERY, "delivery", EXIT_FAIL, "the mail route did not take a message")               \
	X(DELIVERY_UNCONFIRMED, "delivery_unconfirmed", EXIT_FAIL,                              \
	  "the message was handed over but its acceptance never confirmed: it may have arrived") \
	X(MISSING_LIBRARY, "missing_library", EXIT_FAIL, "a shared library mecha needs is not installed") \
	X(NO_ROUTE, "no_route", EXIT_FAIL, "[mail] names no way for a message to leave")          \
	X(BAD_ARGS, "bad_args", EXIT_FAIL, "a staged draft cannot be turned into what it sends")  \
	X(UNAVAILABLE, "unavailable", EXIT_FAIL, "the draft's tool has no sink here")             \
	X(PROVIDER_CONFIG, "provider_config", EXIT_FAIL, "a model provider is misconfigured")     \
	X(PROVIDER_TRANSPORT, "provider_transport", EXIT_FAIL, "a provider could not be reached") \
	X(PROVIDER_TIMEOUT, "provider_timeout", EXIT_FAIL, "a provider did not answer in time")   \
	X(PROVIDER_HTTP, "provider_http", EXIT_FAIL, "a provider answered with an HTTP error")    \
	X(PROVIDER_REPLY, "provider_reply", EXIT_FAIL, "a provider's answer could not be read")   \
	X(PROVIDER_CANCELLED, "provider_cancelled", EXIT_FAIL, "a provider call was cancelled")   \
	X(INVALID_MANIFEST, "invalid_manifest", EXIT_FAIL,                                       \
	  "a request type's manifest breaks a rule of its format")                                \
	X(LEDGER, "ledger", EXIT_FAIL, "the box's database failed or is newer than this mecha")   \
	X(GATE, "gate", EXIT_FAIL, "the box could not be reached, or answered with an error")     \
	X(ATTACHMENT, "attachment", EXIT_FAIL,                                                   \
	  "a file from the box is not what the box declared (longer, or another digest)")         \
	/* a rule said no and nothing changed: exit 3 */                                          \
	X(INVALID_TRANSITION, "invalid_transition", EXIT_REFUSED,                                \
	  "the state table does not allow that move")                                             \
	X(UNKNOWN_STATE, "unknown_state", EXIT_REFUSED, "a request is in a state mecha does not know") \
	X(INVALID_REQUEST, "invalid_request", EXIT_REFUSED,                                      \
	  "the request did not validate at drain time")                                           \
	X(INVALID_SUBMISSION, "invalid_submission", EXIT_REFUSED,                                \
	  "a submission does not validate against its request type")                              \
	X(BOOKING, "booking", EXIT_REFUSED, "a booking or cancellation is the sweep's, not a model's") \
	X(NOT_EXTRACTED, "not_extracted", EXIT_REFUSED, "the request has no checked extraction")  \
	X(NO_REPLY_TO, "no_reply_to", EXIT_REFUSED,                                              \
	  "the request has no single address a reply may go to")                                  \
	X(NO_MODEL, "no_model", EXIT_REFUSED, "the configured provider cannot use tools")         \
	X(UNROUTED, "unrouted", EXIT_REFUSED, "drafts would have nowhere to go")                  \
	X(SEQ_TAKEN, "seq_taken", EXIT_REFUSED, "another record already has that seq")           \
	X(INSECURE, "insecure", EXIT_REFUSED,                                                    \
	  "a plain-http gate beyond loopback, or a key file others can read")                    \
	X(EXISTS, "exists", EXIT_REFUSED, "mecha init found a config.toml already there")        \
	X(HANDLE_TAKEN, "handle_taken", EXIT_REFUSED, "the box already has an owner of that handle") \
	X(TOO_MANY, "too_many", EXIT_REFUSED, "a limit on how often was reached (pairing codes)") \
	X(CHANGED, "changed", EXIT_REFUSED, "the draft changed while it was being edited")        \
	X(DECLINED, "declined", EXIT_REFUSED, "the person said no at the prompt")                 \
	X(NOT_PENDING, "not_pending", EXIT_REFUSED, "the draft is no longer pending")             \
	X(DRAFTS_PENDING, "drafts_pending", EXIT_REFUSED,                                        \
	  "the request has drafts still pending: reject them or keep them")                       \
	X(REQUEST_CLOSED, "request_closed", EXIT_REFUSED, "the draft answers a request that was closed") \
	X(IN_FLIGHT, "in_flight", EXIT_REFUSED, "a send of the draft is (or was) in flight")      \
	X(HUMAN_GESTURE, "human_gesture", EXIT_REFUSED, "only a person may do that")              \
	X(BAD_WINDOW, "bad_window", EXIT_REFUSED, "a calendar window is empty or too long")       \
	X(SLOT_BUSY, "slot_busy", EXIT_REFUSED, "the calendar is busy in the proposed slot")      \
	X(ABSOLUTE_PATH, "absolute_path", EXIT_REFUSED, "a letter names a path where a name belongs") \
	X(INCOMPLETE_EVIDENCE, "incomplete_evidence", EXIT_REFUSED,                              \
	  "a letter's evidence is missing a part")                                                \
	X(INVALID_LETTER, "invalid_letter", EXIT_REFUSED, "not a mission letter")                 \
	X(INVALID_MISSION_ID, "invalid_mission_id", EXIT_REFUSED, "the mission id is malformed")  \
	X(INVALID_MISSION_SEQ, "invalid_mission_seq", EXIT_REFUSED, "the mission seq is not valid") \
	X(INVALID_PHASE, "invalid_phase", EXIT_REFUSED, "the phase is not one of the known ones")   \
	X(INVALID_AGENT, "invalid_agent", EXIT_REFUSED, "the agent id is empty or not text")      \
	X(INVALID_TIMESTAMP, "invalid_timestamp", EXIT_REFUSED,                                  \
	  "a letter's started_at or updated_at is not RFC 3339")                                  \
	X(LANDED_LAW, "landed_law", EXIT_REFUSED, "landed needs a receipt a person imported")     \
	X(SCHEMA_MISMATCH, "schema_mismatch", EXIT_REFUSED, "the letter names another schema")    \
	X(BLOCK_EXISTS, "block_exists", EXIT_REFUSED, "a block with that id exists")              \
	X(BRAIN_MISMATCH, "brain_mismatch", EXIT_REFUSED, "the letter is for another brain")      \
	X(NOT_LANDABLE, "not_landable", EXIT_REFUSED, "the head is not merge_wait with a candidate") \
	X(SCOPE_MISMATCH, "scope_mismatch", EXIT_REFUSED,                                        \
	  "the candidate's scope is not the block's current versions")                            \
	X(STALE_HEAD, "stale_head", EXIT_REFUSED, "the letter does not extend its mission's head") \
	X(STALE_VERSION, "stale_version", EXIT_REFUSED, "the block store moved on")               \
	X(UNKNOWN_BLOCK, "unknown_block", EXIT_REFUSED, "no block in the store has that id")      \
	X(UNKNOWN_MISSION, "unknown_mission", EXIT_REFUSED, "no mission on the board has that id")

enum err_code {
#define ERR_ENUM_(id, name, status, meaning) ERR_##id,
	ERR_CODES(ERR_ENUM_)
#undef ERR_ENUM_
	ERR_CODE_COUNT
};

struct err {
	enum err_code code;
	char msg[1536];
};

void err_clear(struct err *e);

/* Sets the code and a printf-style message; returns -1 for `return err_set(...)`. */
int err_set(struct err *e, enum err_code code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* ERR_IO, with ": strerror(errno)" after the message. */
int err_errno(struct err *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* clang-tidy's analyser (make lint) sees these two only as declarations and
 * would follow a path where they return 0; it is told what they return.
 * err.c defines them as (err_set) and (err_errno), which the macros leave alone. */
#ifdef __clang_analyzer__
#define err_set(...) ({ (err_set)(__VA_ARGS__); -1; })
#define err_errno(...) ({ (err_errno)(__VA_ARGS__); -1; })
#endif

/* Puts "<prefix>: " in front of the existing message (for context such as a file name). */
void err_prefix(struct err *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The process exit status for this error (EXIT_FAIL when e is NULL or unset). */
int err_exit_code(const struct err *e);
/* 1 when e is a refusal: a rule said no and nothing changed. */
int err_is_refusal(const struct err *e);

/* The keyword of a code ("stale_head"); "error" for ERR_NONE. */
const char *err_code_name(enum err_code code);
/* The exit status and the meaning of a code, from the table. */
int err_code_exit(enum err_code code);
const char *err_code_meaning(enum err_code code);
/* The code whose keyword is name; -1 when there is none. API: the inverse of
 * err_code_name, for a program reading our --json errors (scripts/exports.allow). */
int err_code_lookup(const char *name);

#endif
