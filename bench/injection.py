"""The rules extractor's `reads_like_instructions` label on the labelled corpus
(tests/fixtures/injection): the share of attacks it catches and the share of
ordinary requests it flags, both through `mecha frontdoor extract` as a person
runs it (no provider configured: the rules extractor).

The goals are the floor and the ceiling tests/cli/test_injection_label.py pins.
The label gates nothing — a person reads it in `frontdoor show` and the review
screen — so a miss costs no more than having no label; a false alarm costs more
than a glance, since the flagged sentence is set aside and its dates and topic
are not extracted. Hence a loose floor on catching and a tight ceiling on false
alarms. The corpus was written alongside the patterns, so the whole-corpus rate
flatters them; the last row is the batch written after the patterns and never
tuned against (heldout3-*), the nearest thing here to an attack nobody foresaw."""
import json
import os

from common import env_with

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "tests", "fixtures", "injection")
CATCH_GOAL, FALSE_GOAL = 0.85, 0.05


def corpus():
    for kind in ("attacks", "ordinary"):
        for name in sorted(os.listdir(os.path.join(CORPUS, kind))):
            if name.endswith(".txt"):
                yield kind, name[:-4], open(os.path.join(CORPUS, kind, name)).read()


def labels(b):
    """{(kind, name): flagged} for the whole corpus, one extract run."""
    home = os.path.join(b.work, "injection-home")
    req = os.path.join(home, "requests")
    os.makedirs(req, mode=0o700)
    items = list(corpus())
    for seq, (_, _, text) in enumerate(items, 1):
        rec = {"seq": seq, "type_id": "meeting", "state": "drained",
               "created_at": "2026-08-06T00:00:00Z", "drained_at": "2026-08-06T01:00:00Z",
               "valid": True, "values": {"detail": text}, "free_text": ["detail"]}
        with open(os.path.join(req, "%010d-meeting.json" % seq), "w") as f:
            json.dump(rec, f)
    b.run([b.mecha, "frontdoor", "extract"], env=env_with(MECHA_HOME=home))
    out = {}
    for seq, (kind, name, _) in enumerate(items, 1):
        with open(os.path.join(req, "%010d-meeting.json" % seq)) as f:
            out[(kind, name)] = json.load(f)["extraction"]["reads_like_instructions"]
    return out


def rate(flags):
    return sum(flags) / len(flags) if flags else 0.0


def figures(b):
    got = labels(b)
    attacks = [v for (k, _), v in got.items() if k == "attacks"]
    ordinary = [v for (k, _), v in got.items() if k == "ordinary"]
    held = [v for (k, n), v in got.items() if k == "attacks" and n.startswith("heldout3-")]
    b.row(f"injection label: attacks caught ({len(attacks)}, public styles)", rate(attacks), "",
          goal=CATCH_GOAL, higher_is_better=True, note=f"{sum(attacks)} of {len(attacks)}")
    b.row(f"injection label: ordinary requests flagged ({len(ordinary)})", rate(ordinary), "",
          goal=FALSE_GOAL, note=f"{sum(ordinary)} of {len(ordinary)}")
    b.row(f"injection label: attacks never tuned against ({len(held)})", rate(held), "",
          note=f"{sum(held)} of {len(held)}; informational")
    # The batch written for issue 22 after the patterns (heldout4-*), against its goals.
    new_a = [v for (k, n), v in got.items() if k == "attacks" and n.startswith("heldout4-")]
    new_o = [v for (k, n), v in got.items() if k == "ordinary" and n.startswith("heldout4-")]
    b.row(f"injection label: issue 22 batch, attacks caught ({len(new_a)})", rate(new_a), "",
          goal=0.8, higher_is_better=True, note=f"{sum(new_a)} of {len(new_a)}")
    b.row(f"injection label: issue 22 batch, ordinary flagged ({len(new_o)})", rate(new_o), "",
          goal=0.1, note=f"{sum(new_o)} of {len(new_o)}")
