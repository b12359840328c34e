/*
 * booking — the two sections only a booking manifest carries: [availability]
 * (what home computes slots from) and [policy] (what the box enforces about a
 * hold), and the rules `kind` brings in both directions: a booking must carry
 * what a booking needs, and a plain request must not carry sections nothing
 * would read.
 *
 * Ownership: the decoders return structs the manifest owns; booking_free
 * releases both.
 */
#ifndef MECHA_TYPES_BOOKING_H
#define MECHA_TYPES_BOOKING_H

struct decode;
struct manifest;
struct manifest_availability;
struct manifest_policy;
struct toml_value;

/* The sections' shapes (serde's checks); NULL when absent or not a table. */
struct manifest_availability *booking_decode_availability(struct decode *d,
							  const struct toml_value *root);
struct manifest_policy *booking_decode_policy(struct decode *d, const struct toml_value *root);

/* The rules of `kind` (docs/types.md), each with its fixed text. */
void booking_check(struct decode *d, struct manifest *m);

/* The longest [policy] location, in bytes. */
#define BOOKING_LOCATION_MAX 300

/* A reminder ("24h", "90m", "3d") in minutes before the start; -1 for any other spelling. */
long long booking_reminder_minutes(const char *spec);

void booking_free(struct manifest_availability *a, struct manifest_policy *p);

#endif
