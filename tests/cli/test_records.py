"""The record files, as docs/protocol/files.md describes them: the examples it gives
are read by mecha as it says, a file in requests/ that is not a record is
named once on `frontdoor list` (and nothing is written), and the listing's
columns hold any seq."""
import json
import os
import re

from conftest import ROOT, write_config

RECORDS_MD = ROOT / "docs" / "protocol" / "files.md"


def examples():
    """The ```json blocks of docs/protocol/files.md, by the heading above each."""
    text = RECORDS_MD.read_text()
    found = {}
    for m in re.finditer(r"^## (?:§\d+ )?(.+?)\n(.*?)(?=^## |\Z)", text, re.M | re.S):
        blocks = re.findall(r"```json\n(.*?)```", m.group(2), re.S)
        if blocks:
            found[m.group(1)] = json.loads(blocks[0])
    return found


def snapshot(path):
    return {p.name: (p.stat().st_mtime_ns, p.read_bytes() if p.is_file() else None)
            for p in path.iterdir()}


# ---- the examples in docs/protocol/files.md are what mecha reads ---------------------------


def test_the_request_record_example_is_read_as_the_document_says(mecha):
    rec = examples()["The request record"]
    mecha.write_record(rec["seq"], rec["type_id"], raw=json.dumps(rec, indent=2))
    shown = mecha.json("frontdoor", "show", str(rec["seq"]), "--json")
    assert shown["record"] == rec
    p = mecha.run("frontdoor", "list", check=0)
    assert p.err == ""
    assert f"{rec['seq']}  {rec['type_id']}" in p.out and rec["state"] in p.out


def test_the_outbox_item_example_is_read_as_the_document_says(mecha):
    item = examples()["The outbox item"]
    out = mecha.home / "outbox"
    out.mkdir(parents=True, mode=0o700)
    (out / f"{item['id']}.json").write_text(json.dumps(item, indent=2))
    os.chmod(out / f"{item['id']}.json", 0o600)
    listed = mecha.json("outbox", "list", "--json")
    assert [i["id"] for i in listed] == [item["id"]]
    shown = mecha.run("outbox", "show", item["id"], check=0)
    assert item["args"]["subject"] in shown.out


def test_the_mission_letter_example_posts_as_the_document_says(mecha):
    letter = examples()["The mission letter"]
    p = mecha.run("mission", "post", "--agent", "agent-a", "--json", input=json.dumps(letter),
                  check=0)
    documented = re.search(r"stored as this line, whose id is `(\w+)`:\n\n```\n(.*?)\n```",
                           RECORDS_MD.read_text(), re.S)
    assert json.loads(p.out)["letter_id"] == documented.group(1)
    assert (mecha.home / "missions" / "inbox.jsonl").read_text() == documented.group(2) + "\n"


def test_records_md_names_every_file_rule(mecha):
    text = RECORDS_MD.read_text()
    for rule in ("%010d-", "<id>.json", ".types", "bookings.jsonl", "<box>.idx", "<box>.lock",
                 ".lock", "attachments/"):
        assert rule in text, rule


# ---- files that are not records ------------------------------------------------------


def test_a_record_saved_under_another_name_is_named_once_and_nothing_is_written(mecha):
    mecha.write_record(1)
    req = mecha.requests
    (req / "req1.json").write_text(json.dumps({"seq": 2, "type_id": "meeting"}))
    (req / "notes.txt").write_text("todo")
    # The store's own names are not strays.
    for own in (".types", ".lock", "bookings.jsonl", ".0000000001-meeting.json.Ab12Cd"):
        (req / own).write_text("")
    (req / "attachments" / "0000000001").mkdir(parents=True)
    before = snapshot(req)
    p = mecha.run("frontdoor", "list", check=0)
    assert p.err.count("\n") == 1, p.err
    assert p.err == (f"mecha: ignoring 2 files in {req} that are not request records: "
                     "notes.txt, req1.json (a record is named like 0000000012-meeting.json: "
                     "see docs/protocol/files.md)\n")
    assert snapshot(req) == before
    assert "     1  meeting" in p.out


def test_many_strays_are_counted_and_the_first_few_named_safely(mecha):
    mecha.write_record(1)
    for name in ("b.txt", "a\x1b[2J.json", "c", "d", "e"):
        (mecha.requests / name).write_text("")
    p = mecha.run("frontdoor", "list", "--json", check=0)
    assert json.loads(p.out)[0]["seq"] == 1
    assert "\x1b" not in p.err
    assert "ignoring 5 files" in p.err and "a\\e[2J.json, b.txt, c and 2 more" in p.err


def test_a_home_of_records_only_says_nothing(mecha):
    mecha.write_record(1)
    mecha.write_record(2, type_id="letter")
    write_config(mecha, "")
    assert mecha.run("frontdoor", "list", check=0).err == ""


# ---- columns ------------------------------------------------------------------------------


def test_list_columns_hold_ten_digit_seqs(mecha):
    for seq in (7, 1234567890, 99):
        mecha.write_record(seq)
    lines = mecha.run("frontdoor", "list", check=0).out.splitlines()
    assert [l.split()[0] for l in lines] == ["7", "99", "1234567890"]
    starts = {l.index("meeting") for l in lines}
    assert len(starts) == 1, lines
    assert lines[2].startswith("1234567890  meeting")
    assert lines[0].startswith("         7  meeting")


def test_every_listing_verb_names_the_strays_once_however_many_passes_it_makes(mecha):
    mecha.write_record(1)
    (mecha.requests / "req1.json").write_text("{}")
    for args in (["frontdoor", "next"], ["frontdoor", "extract"], ["frontdoor", "reconcile"],
                 ["frontdoor", "list", "--state", "drained"]):
        p = mecha.run(*args, check=0)
        assert p.err.count("ignoring 1 file") == 1, (args, p.err)
