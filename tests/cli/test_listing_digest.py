"""frontdoor list's kept digest (requests/.listed): a record whose file has not
changed is shown from what was kept, and nothing a person or a writer does to a
record, to its drafts or to the kept file itself is ever hidden by it.

The conftest sets MECHA_TEST_SETTLED_MS=20: a version 20 ms old is kept here
(2 s at home, base/fs.h's FS_SETTLED_MS)."""
import json
import os
import stat
import subprocess
import time

import pytest

from conftest import write_config

ITEM = "20260806T020312-0badc0de"


def home_of_every_kind(mecha):
    """Records with every field a row shows: topic, flag, note, slot, invalid, stale."""
    write_config(mecha, "")
    mecha.write_record(1)
    mecha.write_record(2, state="extracted",
                       extraction={"topic": "Quarterly sync", "reads_like_instructions": True})
    mecha.write_record(3, type_id="letter", state="closed", note="done, thanks")
    mecha.write_record(4, valid=False, invalid_reason="purpose is missing")
    mecha.write_record(5, type_id="booking", state="drained",
                       values={"_booking_id": "ab12", "_slot_start": "2026-12-03T09:00:00Z",
                               "_slot_end": "2026-12-03T09:30:00Z", "_duration_minutes": 30})
    mecha.write_record(6, state="awaiting_me", outbox=[ITEM],
                       extraction={"topic": "a reply is drafted"})
    mecha.write_record(7, raw="{not json")
    outbox = mecha.home / "outbox"
    outbox.mkdir(mode=0o700, exist_ok=True)
    write_item(mecha, "pending")


def write_item(mecha, status, reason=None):
    item = {"id": ITEM, "status": status, "tool": "mail_send", "kind": "message",
            "args_before": {}, "args": {"to": "a@example.org", "subject": "s", "body": "b"},
            "summary": "s", "session_id": None, "workspace": None,
            "taint": {"private": False, "untrusted": True},
            "created_at": "2026-08-06T02:03:12Z",
            "resolved_at": None if status == "pending" else "2026-08-07T00:00:00Z",
            "reason": reason, "error": None}
    path = mecha.home / "outbox" / f"{ITEM}.json"
    tmp = path.with_name(".new")
    tmp.write_text(json.dumps(item))
    os.chmod(tmp, 0o600)
    os.replace(tmp, path)


def settle():
    time.sleep(0.05)


def listed(mecha):
    return mecha.requests / ".listed"


def both(mecha):
    text = mecha.run("frontdoor", "list")
    rows = mecha.json("frontdoor", "list", "--json")
    return text.out, rows


def truth(mecha):
    """What a list shows with nothing kept: the digest moved aside for the call."""
    kept = listed(mecha)
    aside = kept.with_name("aside")
    had = kept.exists()
    if had:
        os.replace(kept, aside)
    try:
        out = mecha.run("frontdoor", "list", env={"MECHA_TEST_SETTLED_MS": "99999999"}).out
        rows = mecha.json("frontdoor", "list", "--json",
                          env={"MECHA_TEST_SETTLED_MS": "99999999"})
    finally:
        if had:
            os.replace(aside, kept)
        elif kept.exists():
            kept.unlink()
    return out, rows


def test_a_second_list_shows_what_the_first_did_and_writes_nothing(mecha):
    home_of_every_kind(mecha)
    settle()
    first = both(mecha)
    assert listed(mecha).exists()
    assert stat.S_IMODE(os.stat(listed(mecha)).st_mode) == 0o600
    before = os.stat(listed(mecha))
    again = both(mecha)
    assert again == first
    after = os.stat(listed(mecha))
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns), \
        "a list that finds nothing changed rewrites nothing"
    rows = {r["seq"]: r for r in first[1]}
    assert sorted(rows) == [1, 2, 3, 4, 5, 6]
    assert rows[2]["topic"] == "Quarterly sync" and rows[2]["reads_like_instructions"]
    assert rows[3]["note"] == "done, thanks"
    assert rows[4]["valid"] is False
    assert rows[5]["slot"] == {"start": "2026-12-03T09:00:00Z", "end": "2026-12-03T09:30:00Z"}
    assert rows[6]["stale"] is not None and rows[1]["stale"] is None
    assert first == truth(mecha)


def test_the_unreadable_file_is_told_of_at_every_list(mecha):
    home_of_every_kind(mecha)
    settle()
    for _ in range(2):
        p = mecha.run("frontdoor", "list")
        assert "0000000007-meeting.json" in p.err


def test_what_was_kept_is_shown_while_the_file_is_unchanged_and_not_a_moment_after(mecha):
    """The proof that a list reads the kept digest, not the file: a digest changed by
    hand (the same length) is what the row shows, until the record's file changes."""
    home_of_every_kind(mecha)
    settle()
    both(mecha)
    data = listed(mecha).read_bytes()
    assert data.count(b"Quarterly sync") == 1
    listed(mecha).write_bytes(data.replace(b"Quarterly sync", b"Quarterly SYNC"))
    assert "Quarterly SYNC" in mecha.run("frontdoor", "list").out
    path = mecha.requests / "0000000002-meeting.json"
    os.utime(path)  # a new change time, nothing else
    out = mecha.run("frontdoor", "list").out
    assert "Quarterly sync" in out and "SYNC" not in out


def test_an_edit_in_place_of_the_same_size_is_seen(mecha):
    home_of_every_kind(mecha)
    settle()
    both(mecha)
    path = mecha.requests / "0000000001-meeting.json"
    ino, size = os.stat(path).st_ino, os.stat(path).st_size
    text = path.read_text()
    assert '"drained"' in text
    with open(path, "r+") as f:  # the same inode, the same length
        f.write(text.replace('"drained"', '"triaged"'))
    assert (os.stat(path).st_ino, os.stat(path).st_size) == (ino, size)
    rows = {r["seq"]: r for r in mecha.json("frontdoor", "list", "--json")}
    assert rows[1]["state"] == "triaged"


def test_a_record_gone_or_new_or_rewritten_by_a_verb_is_seen(mecha):
    home_of_every_kind(mecha)
    settle()
    both(mecha)
    (mecha.requests / "0000000004-meeting.json").unlink()
    mecha.write_record(9, type_id="letter", state="extracted")
    mecha.run("frontdoor", "close", "2", "--reason", "handled")
    rows = {r["seq"]: r for r in mecha.json("frontdoor", "list", "--json")}
    assert sorted(rows) == [1, 2, 3, 5, 6, 9]
    assert rows[2]["state"] == "closed" and rows[9]["state"] == "extracted"
    settle()
    assert both(mecha) == truth(mecha)


def test_a_draft_released_or_rejected_since_is_reconciled_though_its_record_is_unchanged(
        mecha):
    home_of_every_kind(mecha)
    settle()
    rows = {r["seq"]: r for r in mecha.json("frontdoor", "list", "--json")}
    assert rows[6]["state"] == "awaiting_me"
    rows = {r["seq"]: r for r in mecha.json("frontdoor", "list", "--json")}
    assert rows[6]["state"] == "awaiting_me"  # from the digest, its draft still pending
    write_item(mecha, "rejected", reason="not this week")
    p = mecha.run("frontdoor", "list", "--json")
    rows = {r["seq"]: r for r in json.loads(p.out)}
    assert rows[6]["state"] == "extracted" and rows[6]["note"] == "not this week"
    assert mecha.read_record(6)["state"] == "extracted"


def test_a_draft_sent_since_answers_the_request(mecha):
    home_of_every_kind(mecha)
    settle()
    both(mecha)
    both(mecha)
    write_item(mecha, "sent")
    rows = {r["seq"]: r for r in mecha.json("frontdoor", "list", "--json")}
    assert rows[6]["state"] == "answered"


GARBAGE = [
    b"",
    b"mecha-dg",
    b"not a digest at all\n" * 10,
    b"mecha-dg\x04\x03\x02\x01\x01\x00\x00\x00",            # the other byte order
    b"mecha-dg\x04\x03\x02\x01\x09\x00\x00\x00" + b"\xff" * 200,  # another format
    b"mecha-dg" + (0x01020304).to_bytes(4, "little") + (1).to_bytes(4, "little")
    + b"\xff" * 500,                                       # lengths beyond anything
]


@pytest.mark.parametrize("garbage", GARBAGE, ids=["empty", "magic-only", "text", "other-order",
                                                "other-format", "huge-lengths"])
def test_a_kept_file_that_is_garbage_is_never_believed_and_is_written_anew(mecha, garbage):
    home_of_every_kind(mecha)
    settle()
    want = truth(mecha)
    listed(mecha).write_bytes(garbage)
    assert both(mecha) == want
    assert listed(mecha).read_bytes() != garbage
    assert both(mecha) == want


def test_a_kept_file_cut_or_scribbled_anywhere_never_changes_a_row(mecha):
    home_of_every_kind(mecha)
    settle()
    want = truth(mecha)
    both(mecha)
    good = listed(mecha).read_bytes()
    for cut in range(0, len(good), max(1, len(good) // 23)):
        listed(mecha).write_bytes(good[:cut])
        assert both(mecha) == want, cut
    for at in range(16, len(good), max(1, len(good) // 17)):
        bad = bytearray(good)
        bad[at] ^= 0x80
        listed(mecha).write_bytes(bytes(bad))
        got = both(mecha)
        # A flipped byte in an identity or a length is a miss; one inside a kept
        # string may show (as the hand-changed digest above does), never a crash.
        assert [r["seq"] for r in got[1]] == [r["seq"] for r in want[1]], at


def test_a_kept_file_that_is_a_link_is_not_followed(mecha, tmp_path):
    home_of_every_kind(mecha)
    settle()
    want = truth(mecha)
    target = tmp_path / "elsewhere"
    target.write_bytes(b"mecha-dg")
    os.symlink(target, listed(mecha))
    assert both(mecha) == want
    assert target.read_bytes() == b"mecha-dg"


def test_a_store_its_owner_made_read_only_gets_no_digest(mecha):
    home_of_every_kind(mecha)
    settle()
    os.chmod(mecha.requests, 0o500)
    try:
        want = truth(mecha)
        assert both(mecha) == want
        assert not listed(mecha).exists()
    finally:
        os.chmod(mecha.requests, 0o700)


def test_versions_too_young_to_tell_apart_are_not_kept(mecha):
    home_of_every_kind(mecha)
    young = {"MECHA_TEST_SETTLED_MS": "600000"}
    mecha.run("frontdoor", "list", env=young)
    assert not listed(mecha).exists()


def test_a_list_killed_before_its_rename_loses_nothing(mecha):
    home_of_every_kind(mecha)
    settle()
    want = truth(mecha)
    p = mecha.run("frontdoor", "list", env={"MECHA_TEST_KILL_AT": "digest-before-rename"})
    assert p.returncode == -9
    assert not listed(mecha).exists()
    temps = [n for n in os.listdir(mecha.requests) if n.startswith(".listed.")]
    assert len(temps) == 1
    assert both(mecha) == want
    assert listed(mecha).exists()
    # The next writer's lock sweeps what the killed one left, once it is old enough.
    mecha.run("frontdoor", "close", "1", "--reason", "done", env={"MECHA_TEST_TEMP_AGE": "0"})
    assert not [n for n in os.listdir(mecha.requests) if n.startswith(".listed.")]


def test_lists_racing_writers_never_show_what_is_not_there(mecha):
    """Four lists at once, over and over, while a writer moves records: each list
    is one of the states the store was in, and the last one is the truth."""
    write_config(mecha, "")
    for seq in range(1, 41):
        mecha.write_record(seq, state="extracted")
    settle()
    env = dict(mecha.env)
    procs = []
    for _ in range(4):
        procs.append(subprocess.Popen(
            ["sh", "-c", f'for i in 1 2 3 4 5 6; do "{mecha_bin(mecha)}" frontdoor list --json '
                         '>/dev/null || exit 1; done'], env=env))
    for seq in range(1, 41, 2):
        mecha.run("frontdoor", "needs-info", str(seq), "--note", "which day?")
    for p in procs:
        assert p.wait(timeout=120) == 0
    settle()
    rows = {r["seq"]: r for r in mecha.json("frontdoor", "list", "--json")}
    assert all(rows[s]["state"] == ("needs_info" if s % 2 else "extracted") for s in rows)
    assert both(mecha) == truth(mecha)


def mecha_bin(mecha):
    from conftest import BIN
    return BIN
