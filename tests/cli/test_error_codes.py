"""The error codes: one table in the program (`mecha help codes`), and the
documentation names exactly those codes with the same exit statuses."""
import json
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[2]
MAN = ROOT / "docs" / "mecha.1"

# Words shaped like a code that are something else (fields, settings, variables).
NOT_CODES = {
    "no_proxy", "brain_ref", "block_id", "in_reply_to", "not_in_the_text",
    "provider_conf", "block_exists_check", "invalid_reason",
    "not_in",  # a show_when operator (docs/types.md)
    # why the sweep left a booking (a line's reason, not an error: docs/bookings.md)
    "not_offered", "not_a_booking_type", "bad_manage_url",
    "unknown_booking",  # a move of a booking home's ledger does not know (docs/bookings.md)
    "stale_hours",  # a config key ([frontdoor] and [outbox]), not a code
}
CODE_SHAPED = re.compile(
    r"\b((?:invalid|unknown|stale|not|no|bad|reason|in|human|landed|scope|schema|brain|"
    r"block|incomplete|absolute|seq|provider|corrupt)_[a-z_]*[a-z])\b")


def table(mecha):
    return {r["code"]: r["exit"] for r in mecha.json("help", "codes", "--json")}


def man_section():
    text = MAN.read_text()
    start = text.index(".SH ERROR CODES")
    end = text.find("\n.SH ", start + 1)
    return text[start:end if end != -1 else len(text)], text[:start] + text[end:]


def test_every_code_has_one_exit_status_and_a_meaning(mecha):
    rows = mecha.json("help", "codes", "--json")
    names = [r["code"] for r in rows]
    assert len(names) == len(set(names))
    for r in rows:
        assert r["exit"] in (1, 2, 3), r
        assert r["meaning"].strip(), r
    text = mecha.run("help", "codes", check=0).out
    assert "stale_head" in text and "EXIT" in text


def test_the_man_page_lists_exactly_the_table(mecha):
    section, _ = man_section()
    documented = {m.group(1).replace("\\_", "_"): int(m.group(2))
                  for m in re.finditer(r'^\.BR (\S+) " \(exit (\d)\)"$', section, re.M)}
    assert documented == table(mecha)


def test_every_code_the_docs_name_is_in_the_table(mecha):
    known = table(mecha)
    _, rest = man_section()
    texts = [rest] + [p.read_text() for p in (ROOT / "docs").glob("*.md")]
    texts.append((ROOT / "README.md").read_text())
    named = {w for t in texts for w in CODE_SHAPED.findall(t.replace("\\_", "_"))}
    stray = sorted(w for w in named - NOT_CODES if w not in known)
    assert not stray, f"the docs name codes the table does not have: {stray}"


def test_a_refusal_exits_with_its_codes_status(mecha):
    known = table(mecha)
    p = mecha.run("mission", "log", "msn_ffffffffffff", "--json")
    assert p.returncode == known[json.loads(p.out)["error"]] == 3
    p = mecha.run("frontdoor", "show", "7")
    assert p.returncode == known["not_found"] == 1
