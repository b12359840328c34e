/*
 * prose — which of a record's values are prose, by its type's manifest when
 * home has it.
 *
 * The drain writes `free_text` from the manifest; home re-reads the manifest
 * rather than trusting a list a compromised box or an old drain wrote. Every
 * value the manifest's field kinds make prose (text, long_text, email, url)
 * is treated as prose whether free_text lists it or not, and a name free_text
 * lists stays prose whatever the manifest says: the boundary only widens.
 * Each disagreement is one warning, so the person learns the drain and the
 * manifest have drifted apart. With no manifest installed, free_text alone
 * decides, as before.
 *
 * Ownership: r is updated in place (record_set_manifest_prose); warn is borrowed.
 */
#ifndef MECHA_FRONTDOOR_PROSE_H
#define MECHA_FRONTDOOR_PROSE_H

#include <stdio.h>

struct record;

/*
 * Reads $MECHA_HOME/factory/types/<type>.toml for r, when it is there, and
 * records on r which values it makes prose. Warnings go to warn (NULL: none).
 * Never fails: a manifest that does not load is warned about (and the record
 * gets no brief).
 * Applies the request grammar (requests/grammar.h) with the same manifest,
 * so a brief can be built: without a manifest the record is refused.
 */
void prose_follow_manifest(struct record *r, FILE *warn);

#endif
