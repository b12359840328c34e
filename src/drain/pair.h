/*
 * pair — the home's half of pairing (docs/protocol/box-api.md §9, as the compatible drain
 * pairs): a one-time code made on the box (`mecha box pair`) is exchanged
 * through POST /v1/pair {code, handle, label} for the owner's keys, and the
 * gate and the keys are written where the drain, `types push` and `slots
 * push` read them (drain/gate.h): $MECHA_HOME/factory/config.toml and
 * drain.key, release.key, slots.key, publish.key, the directory 0700 and
 * each file 0600, each replaced whole (base/fs.h). Then each key is asked
 * for /v1/health and must come back as the key the box just named, for
 * the handle asserted. No key is ever printed.
 *
 * Either box answers: ours gives all four scopes; the compatible Rust box gives
 * publish and drain only (its release and slots keys are made by hand on the
 * box), and the report says which are missing and what needs them.
 *
 * The answer is untrusted: the handle must be the one asserted, each key
 * one line of printable ASCII shaped as a box key (mk_xxx_<hex>.<hex>), and
 * nothing is written until all of it passed.
 *
 * Ownership: *report is a NEW reference.
 */
#ifndef MECHA_DRAIN_PAIR_H
#define MECHA_DRAIN_PAIR_H

#include <jansson.h>

struct err;

/*
 * Pairs this home with the box at url. *report: {"gate", "handle",
 * "dir", "keys": {"drain": {"file", "id", "checked"}, …}, "missing":
 * ["release", …], "shadowed": ["FACTORY_GATE", …]} (environment variables
 * that override what was written). Fails with ERR_GATE (unreachable, or the
 * box refused: "that code is not valid for that handle"), ERR_INSECURE /
 * ERR_CONFIG (the URL), ERR_IO (writing), or ERR_GATE when a written key
 * does not check.
 */
int pair_home(const char *url, const char *code, const char *handle, const char *label,
	      json_t **report, struct err *e);

#endif
