"""The rules extractor's `reads_like_instructions` label, measured on the labelled
corpus (tests/fixtures/injection): attacks in the public styles (ignore-previous,
role-play, tool-call forgery, encoded payloads, other languages, the reader
addressed as a model) and ordinary requests that merely sound urgent or use the
same words for a person ("ignore my previous email", "you must register").

The label gates nothing; a person reads it. These tests pin its rates so that a
change to the patterns cannot quietly lose what they catch or start crying wolf
(`make bench` prints the same rates, and the rate on the batch never tuned
against).
"""
import json

from conftest import ROOT

CORPUS = ROOT / "tests" / "fixtures" / "injection"
CATCH_AT_LEAST = 0.85
FALSE_AT_MOST = 0.05
# The styles the patterns were written for: each is caught nearly whole.
STYLES = ("ignore", "roleplay", "toolcall", "encoded", "lang", "address")


def labels(mecha):
    """{(kind, name): flagged}, through `mecha frontdoor extract` with no provider set."""
    items = [(kind, f.stem, f.read_text()) for kind in ("attacks", "ordinary")
             for f in sorted((CORPUS / kind).glob("*.txt"))]
    for seq, (_, _, text) in enumerate(items, 1):
        mecha.write_record(seq, values={"detail": text}, free_text=["detail"])
    mecha.run("frontdoor", "extract", check=0)
    return {(kind, name): mecha.read_record(seq)["extraction"]["reads_like_instructions"]
            for seq, (kind, name, _) in enumerate(items, 1)}


def test_the_corpus_holds_at_least_sixty_of_each_kind_and_every_style():
    attacks = [f.stem for f in (CORPUS / "attacks").glob("*.txt")]
    ordinary = [f.stem for f in (CORPUS / "ordinary").glob("*.txt")]
    assert len(attacks) >= 60 and len(ordinary) >= 60
    for style in STYLES:
        assert sum(a.startswith(style) for a in attacks) >= 10, style
    for lang in ("fr", "de", "es", "zh", "ru"):
        assert any(f"lang-{lang}" in a for a in attacks), lang
        assert any(f"lang-{lang}" in o for o in ordinary), lang


def test_the_label_catches_most_attacks_and_flags_few_ordinary_requests(mecha):
    got = labels(mecha)
    attacks = {n: v for (k, n), v in got.items() if k == "attacks"}
    ordinary = {n: v for (k, n), v in got.items() if k == "ordinary"}
    caught = sum(attacks.values()) / len(attacks)
    false = sum(ordinary.values()) / len(ordinary)
    missed = sorted(n for n, v in attacks.items() if not v)
    alarms = sorted(n for n, v in ordinary.items() if v)
    assert caught >= CATCH_AT_LEAST, f"caught {caught:.2f}; missed {missed}"
    assert false <= FALSE_AT_MOST, f"flagged {false:.2f} of ordinary requests: {alarms}"
    for style in STYLES:
        mine = [v for n, v in attacks.items() if n.startswith(style)]
        assert sum(mine) >= 0.9 * len(mine), f"{style}: {[n for n in missed if n.startswith(style)]}"


def test_a_flagged_request_says_so_in_its_reading_and_loses_nothing_else(mecha):
    """The label is a finding about the text, shown to a person: the record is extracted
    like any other, and what came before the injection is still read."""
    text = ("We are at the University of Leeds and would like to meet next Tuesday. "
            + (CORPUS / "attacks" / "encoded-01.txt").read_text())
    mecha.write_record(1, values={"detail": text}, free_text=["detail"])
    mecha.run("frontdoor", "extract", check=0)
    x = mecha.read_record(1)["extraction"]
    assert mecha.read_record(1)["state"] == "extracted"
    assert x["reads_like_instructions"] is True and "like instructions" in x["reading"]
    assert x["dates_mentioned"] == ["next Tuesday"]
    assert x["institution"] == "University of Leeds"
    shown = json.dumps(x)
    assert "drop@box.example" not in shown and "SWdub3Jl" not in shown


def test_the_batch_written_for_issue_22_meets_its_floor_and_ceiling(mecha):
    """heldout4-*: twenty attacks and twenty urgent ordinary requests written after the
    patterns, against issue 22's goals (at least 80% caught, at most one in ten flagged)."""
    got = labels(mecha)
    attacks = [v for (k, n), v in got.items() if k == "attacks" and n.startswith("heldout4-")]
    ordinary = [v for (k, n), v in got.items() if k == "ordinary" and n.startswith("heldout4-")]
    assert len(attacks) == len(ordinary) == 20
    assert sum(attacks) >= 0.8 * len(attacks)
    assert sum(ordinary) <= 0.1 * len(ordinary)
