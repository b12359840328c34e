"""The front door's reads, black box: what reaches a terminal, and what a read leaves behind.

- No byte a stranger, a model or a file chose reaches stdout or stderr as a raw
  control character, whichever field of a record it hides in (names included)
  and whichever verb prints it, error messages too.
- A read (list, show, next; with and without --json) creates nothing and changes
  nothing, with the type cache missing, stale or hostile, and in a home nobody may
  write. CI runs as root, whom permission bits do not stop, so the proof is a
  byte, mode and mtime snapshot of the whole tree before and after.
- Opening a store to write tightens its directory to 0700 and says so.
"""
import json
import os
import re
import stat
import time

import pytest

from conftest import write_config

# ESC, BEL, CSI (U+009B, a C1 control: two bytes in UTF-8) and DEL.
EVIL = "\x1b[31m\x07\u009b2J\x7f"
# Any C0 control but newline and tab, DEL, or a C1 control encoded in UTF-8.
RAW_CONTROL = re.compile(rb"[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]")
ITEM_ID = "20260806T020312-0badc0de"


def e(s):
    """s with the controls planted in it."""
    return f"{s}{EVIL}"


def planted_record(seq, **kw):
    rec = dict(
        state="extracted",
        created_at=e("2026-08-06T00:00:00Z"),
        drained_at=e("2026-08-06T01:00:00Z"),
        valid=True,
        values={e("purpose"): e("collaboration"), e("detail"): e("Next Tuesday"),
                e("cv"): "x", "duration_minutes": 45},
        free_text=[e("detail")],
        reply_to=e("ada@example.org"),
        extraction={"reading": e("reading"), "topic": e("topic"),
                    "urgency_claimed": e("soon"), "dates_mentioned": [e("Next Tuesday"), "Tuesday"],
                    "institution": e("Institute"), "reads_like_instructions": True},
        extraction_error=e("the model said"),
        triage_session=e("session"),
        outbox=[e("gone-draft"), ITEM_ID],
        note=e("a note"),
        invalid_reason=e("why not"),
        attachments=[{"id": e("att"), "field": e("cv"), "filename": e("cv.pdf"), "size": 20000,
                      "sha256": e("sha256:abc"), "content_type": e("application/pdf"),
                      "path": e("attachments/1/cv.pdf")}],
    )
    rec.update(kw)
    return rec


def plant_home(mecha):
    """Records with controls in every field a verb prints, and a draft with a hostile status."""
    mecha.write_record(1, **planted_record(1))
    mecha.write_record(2, **planted_record(2, state="awaiting_me", valid=False))
    mecha.write_record(3, **planted_record(3, state=e("pondering")))
    mecha.write_record(4, **planted_record(4, state="extraction_failed"))
    # Unreadable: the parser's message quotes the bytes around the fault.
    mecha.write_record(5, raw='{"seq": 5, "type_id": "meeting", "state": "x' + EVIL + '"')
    outbox = mecha.home / "outbox"
    outbox.mkdir(mode=0o700)
    item = {"id": ITEM_ID, "status": e("pend"), "tool": e("mail_send"), "kind": "message",
            "args_before": {}, "args": {}, "summary": e("s"), "session_id": None,
            "workspace": None, "taint": {"private": False, "untrusted": True},
            "created_at": e("2026-08-06T02:03:12Z"), "resolved_at": None, "reason": None,
            "error": None}
    (outbox / f"{ITEM_ID}.json").write_text(json.dumps(item))


def assert_no_raw_control(p, what):
    for name, data in (("stdout", p.stdout), ("stderr", p.stderr)):
        m = RAW_CONTROL.search(data)
        assert m is None, f"{what}: raw {m.group()!r} on {name}:\n{data!r}"


READS = [
    ["frontdoor"],
    ["frontdoor", "list"],
    ["frontdoor", "list", "--json"],
    ["frontdoor", "list", "--state", "extracted"],
    ["frontdoor", "next"],
    ["frontdoor", "next", "--limit", "1"],
] + [["frontdoor", "show", str(n)] for n in range(1, 6)] \
  + [["frontdoor", "show", str(n), "--json"] for n in range(1, 6)]


def test_no_control_character_from_any_field_reaches_the_terminal_raw(mecha):
    plant_home(mecha)
    for args in READS:
        p = mecha.run(*args)
        assert p.returncode in (0, 1), (args, p.err)  # show 5 is unreadable: exit 1
        assert_no_raw_control(p, " ".join(args))
    # The planted text is there, made visible: the test looks where the bytes would be.
    show = mecha.run("frontdoor", "show", "1", check=0).out
    for shown in ("purpose\\e[31m", "topic\\e", "cv.pdf\\e", "ada@example.org\\e", "a note\\e",
                  "session\\e", "gone-draft\\e", "pend\\e", "2026-08-06T00:00:00Z\\e",
                  "Institute\\e", "application/pdf\\e", "sha256:abc\\e", "\\x07", "\\x7f"):
        assert shown in show, shown
    assert "pondering\\e" in mecha.run("frontdoor", "list", check=0).out
    assert "why not\\e" in mecha.run("frontdoor", "show", "2", check=0).out
    assert "the model said\\e" in mecha.run("frontdoor", "show", "4", check=0).out


def test_no_control_character_reaches_the_terminal_in_an_error_message(mecha):
    plant_home(mecha)
    mistakes = [
        (["frontdoor", "close", "3", "--reason", "x"], 3),        # the unknown state, quoted
        (["frontdoor", "needs-info", "3"], 3),
        (["frontdoor", "extract", "--seq", "3"], 3),
        (["frontdoor", "triage", "--seq", "3"], None),            # refused before or at the state
        (["frontdoor", "show", "5"], 1),                          # unreadable: the parser quotes it
        (["frontdoor", "close", "5", "--reason", "x"], 1),
        (["frontdoor", "list", "--state", EVIL], 2),
        (["frontdoor", EVIL], 2),
        (["frontdoor", "show", EVIL], 2),
        (["frontdoor", "close", "1", "--reason", "\udcff"], 2),  # not UTF-8
    ]
    for args, status in mistakes:
        p = mecha.run(*args)
        if status is not None:
            assert p.returncode == status, (args, p.returncode, p.err)
        assert p.err, args
        assert_no_raw_control(p, " ".join(args))
    assert "pondering\\e" in mecha.run("frontdoor", "close", "3", "--reason", "x").err


# -- a read creates nothing and changes nothing -----------------------------------

def snapshot(root):
    """Every path under root: its kind, mode, size, mtime and (for files) bytes."""
    snap = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames + ["."]:
            path = os.path.join(dirpath, name)
            st = os.lstat(path)
            data = None
            if stat.S_ISREG(st.st_mode):
                with open(path, "rb") as f:
                    data = f.read()
            snap[os.path.relpath(path, root)] = (stat.S_IFMT(st.st_mode), stat.S_IMODE(st.st_mode),
                                                 st.st_size, st.st_mtime_ns, data)
    return snap


def quiet_home(mecha):
    """A home with nothing for reconcile to move: every kind of record a read meets."""
    write_config(mecha, "")
    mecha.write_record(1)                                         # drained
    mecha.write_record(2, **planted_record(2, outbox=[]))         # extracted, with a brief
    mecha.write_record(3, type_id="letter", state="closed", note="done")
    mecha.write_record(4, **planted_record(4, state="awaiting_me", outbox=[ITEM_ID]))
    mecha.write_record(5, raw="{not json")
    outbox = mecha.home / "outbox"
    outbox.mkdir(mode=0o700)
    item = {"id": ITEM_ID, "status": "pending", "tool": "mail_send", "kind": "message",
            "args_before": {}, "args": {}, "summary": "s", "session_id": None, "workspace": None,
            "taint": {"private": False, "untrusted": True}, "created_at": "2026-08-06T02:03:12Z",
            "resolved_at": None, "reason": None, "error": None}
    (outbox / f"{ITEM_ID}.json").write_text(json.dumps(item))


QUIET_READS = [
    (["frontdoor"], 0),
    (["frontdoor", "list"], 0),
    (["frontdoor", "list", "--json"], 0),
    (["frontdoor", "next"], 0),
    (["frontdoor", "next", "--limit", "1"], 0),
    (["frontdoor", "show", "1"], 0),
    (["frontdoor", "show", "2", "--json"], 0),
    (["frontdoor", "show", "3"], 0),          # the type cache cannot name it unless it says letter
    (["frontdoor", "show", "3", "--json"], 0),
    (["frontdoor", "show", "4"], 0),
    (["frontdoor", "show", "5"], 1),
    (["frontdoor", "show", "9"], 1),          # not found
]


def read_everything(mecha, expect_lines):
    for args, status in QUIET_READS:
        p = mecha.run(*args)
        assert p.returncode == status, (args, p.returncode, p.err)
    assert "letter" in mecha.run("frontdoor", "show", "3", check=0).out
    listed = mecha.json("frontdoor", "list", "--json")
    assert [r["seq"] for r in listed] == expect_lines


def first_list(mecha):
    """`frontdoor list` reconciles, so it is no mere read: at its first look at a
    record it keeps the record's row (requests/.listed, under the store's lock) and
    adds nothing else; from then on a read of the unchanged home changes nothing."""
    time.sleep(0.05)  # the records are old enough to keep (MECHA_TEST_SETTLED_MS)
    before = snapshot(mecha.home)
    mecha.run("frontdoor", "list", check=0)
    after = snapshot(mecha.home)
    added = set(after) - set(before)
    assert added <= {"requests/.listed", "requests/.lock"}, added
    assert "requests/.listed" in added
    assert stat.S_IMODE(os.stat(mecha.requests / ".listed").st_mode) == 0o600
    assert {k: v for k, v in after.items() if k not in added and k != "requests"} == \
        {k: v for k, v in before.items() if k != "requests"}, "nothing else changed"


@pytest.mark.parametrize("cache", [None, "letter\n", "meeting\n../../etc\nnope\n", "stale\n"])
def test_a_read_creates_nothing_and_changes_nothing_whatever_the_type_cache_says(mecha, cache):
    quiet_home(mecha)
    types = mecha.requests / ".types"
    if cache is not None:
        types.write_text(cache)
    first_list(mecha)
    before = snapshot(mecha.home)
    read_everything(mecha, [1, 2, 3, 4])
    assert snapshot(mecha.home) == before


def test_a_read_works_in_a_home_nobody_may_write_and_leaves_every_byte(mecha):
    quiet_home(mecha)
    paths = [mecha.home] + [p for p in mecha.home.rglob("*")]
    for p in paths:
        os.chmod(p, stat.S_IMODE(os.lstat(p).st_mode) & ~0o222)
    try:
        before = snapshot(mecha.home)
        read_everything(mecha, [1, 2, 3, 4])
        assert snapshot(mecha.home) == before
    finally:
        for p in paths:
            os.chmod(p, stat.S_IMODE(os.lstat(p).st_mode) | 0o200)


def test_a_read_of_an_empty_home_creates_nothing(mecha):
    for args, _ in QUIET_READS[:5]:
        mecha.run(*args, check=0)
    assert list(mecha.home.iterdir()) == []


def test_a_write_keeps_the_type_cache_so_a_later_read_needs_no_scan(mecha):
    quiet_home(mecha)
    mecha.write_record(6, type_id="letter", state="extracted")
    mecha.run("frontdoor", "close", "6", "--reason", "done", check=0)
    assert "letter" in (mecha.requests / ".types").read_text().split("\n")
    assert stat.S_IMODE(os.stat(mecha.requests / ".types").st_mode) == 0o600


# -- a store opened to write is private, and the person is told when it was not ----

def test_opening_the_request_store_to_write_tightens_it_and_says_so(mecha):
    mecha.write_record(1, state="extracted")
    os.chmod(mecha.requests, 0o755)
    p = mecha.run("frontdoor", "needs-info", "1", check=0)
    assert stat.S_IMODE(os.stat(mecha.requests).st_mode) == 0o700
    assert f"mecha: tightened {mecha.requests} from 0755 to 0700" in p.err
    again = mecha.run("frontdoor", "needs-info", "1", check=0)
    assert "tightened" not in again.err, "a private store is left alone, silently"


def test_a_read_never_tightens_the_store(mecha):
    mecha.write_record(1)
    os.chmod(mecha.requests, 0o755)
    p = mecha.run("frontdoor", "list", check=0)
    assert stat.S_IMODE(os.stat(mecha.requests).st_mode) == 0o755
    assert "tightened" not in p.err


def test_opening_the_outbox_to_write_tightens_it_and_says_so(mecha):
    outbox = mecha.home / "outbox"
    outbox.mkdir(parents=True, mode=0o755)
    os.chmod(outbox, 0o755)
    p = mecha.run("outbox", "stage", "--tool", "mail_send", "--args",
                  json.dumps({"to": "a@example.org", "subject": "s", "body": "b"}), check=0)
    assert stat.S_IMODE(os.stat(outbox).st_mode) == 0o700
    assert f"mecha: tightened {outbox} from 0755 to 0700" in p.err
