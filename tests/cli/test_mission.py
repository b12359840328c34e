"""The mission board through the real binary: the verbs, their exit codes and
refusal texts, the stored line to the byte, processes racing on one chain, and
a mission run from judging to landed (and to archived) by an agent and a person.
"""
import hashlib
import json
import os
import pty
import re
import shutil
import stat
import subprocess
import threading

import pytest

from conftest import BIN

MID = "msn_0123456789ab"
T0 = "2026-07-09T00:00:00Z"

EXAMPLE1 = (
    '{"kind":"mission","agent":"agent-a","ts":"2026-07-09T00:00:00Z","mission":'
    '{"schema":"m1nd-mission-letter-v0","mission_id":"msn_0123456789ab","mission_seq":1,'
    '"block_id":"sb_alpha","brain_ref":"repo-a","seat":"hand","capability":"build-runner",'
    '"phase":"judging","packet_ref":"sha256:packethash","tokens_total":0,'
    '"started_at":"2026-07-09T00:00:00Z","updated_at":"2026-07-09T00:00:00Z"}}'
)

GATE = {"command": "cargo test -p m1nd-mcp", "exit_status": 0, "artifact_hash": "sha256:gatelog"}
CANDIDATE = {
    "block_id": "sb_alpha",
    "type": "test",
    "scope": {"boundary_version": 1, "contract_version": 1},
    "evidence": {
        "command": "cargo test",
        "exit_status": 0,
        "artifact_hash": "sha256:loghash",
        "evidence_refs": ["artifact://run/1"],
    },
}


def letter(seq, phase, prev=None, mission=MID, **extra):
    """A letter as a client writes it: any key order, optional keys as it likes."""
    d = {
        "updated_at": T0,
        "phase": phase,
        "schema": "m1nd-mission-letter-v0",
        "mission_id": mission,
        "mission_seq": seq,
        "block_id": "sb_alpha",
        "brain_ref": "repo-a",
        "seat": "hand",
        "capability": "build-runner",
        "packet_ref": "sha256:packethash",
        "started_at": T0,
    }
    if prev:
        d["prev_letter_id"] = prev
    d.update(extra)
    return d


def letter_id(line: bytes) -> str:
    return hashlib.sha256(line.rstrip(b"\r\n")).hexdigest()[:12]


def post(mecha, l, agent="agent-a", check=0, *args):
    return mecha.run("mission", "post", "--agent", agent, "--json", *args,
                     input=json.dumps(l), check=check)


def box(mecha):
    return mecha.home / "missions" / "inbox.jsonl"


def box_bytes(mecha):
    p = box(mecha)
    return p.read_bytes() if p.exists() else b""


def add_block(mecha, block="sb_alpha", *args):
    mecha.run("blocks", "add", block, "--title", "Alpha", *args, check=0)


def to_merge_wait(mecha):
    """seq 1 judging, seq 2 executing, seq 3 merge_wait with a candidate: a three-step chain."""
    r1 = json.loads(post(mecha, letter(1, "judging")).out)
    r2 = json.loads(post(mecha, letter(2, "executing", r1["letter_id"])).out)
    r3 = json.loads(post(mecha, letter(3, "merge_wait", r2["letter_id"], gate=GATE,
                                       receipt_candidate=CANDIDATE)).out)
    return r1, r2, r3


# ---- the stored line ----------------------------------------------------------


def test_a_post_stores_the_reference_line_and_prints_its_result(mecha):
    p = post(mecha, letter(1, "judging"))
    assert json.loads(p.out) == {"letter_id": "f59633562ac0", "mission_id": MID,
                                 "mission_seq": 1, "deduped": False, "phase": "judging"}
    assert box_bytes(mecha) == EXAMPLE1.encode() + b"\n"


def test_the_four_worked_examples_come_out_with_the_reference_ids(mecha):
    r1, r2, r3 = to_merge_wait(mecha)
    # The spec's examples 2 and 3 skip executing→merge_wait; rebuild them exactly.
    assert r1["letter_id"] == "f59633562ac0"
    assert r2["letter_id"] == "3adfdb747a28"
    other = mecha.tmp / "other.jsonl"
    a = mecha.run("mission", "post", "--box", other, "--agent", "agent-a", "--json",
                  input=json.dumps(letter(1, "judging")) + "\n"
                  + json.dumps(letter(2, "executing", "f59633562ac0")) + "\n"
                  + json.dumps(letter(3, "merge_wait", "3adfdb747a28", gate=GATE,
                                      receipt_candidate=CANDIDATE)), check=0)
    ids = [json.loads(x)["letter_id"] for x in a.out.splitlines()]
    assert ids == ["f59633562ac0", "3adfdb747a28", "572e72c4a3f2"]
    landed = letter(4, "landed", "572e72c4a3f2", gate=GATE, updated_at="2026-07-09T12:00:00Z",
                    receipt={"imported": True, "store_version": 9})
    g = mecha.run("mission", "post", "--box", other, "--agent", "gui", "--json",
                  input=json.dumps(landed), check=0)
    assert json.loads(g.out)["letter_id"] == "4e13dd4622be"
    for line in other.read_bytes().splitlines():
        assert letter_id(line) in ids + ["4e13dd4622be"]


def test_an_identical_replay_is_deduped_and_appends_nothing(mecha):
    post(mecha, letter(1, "judging"))
    before = box_bytes(mecha)
    again = json.loads(post(mecha, letter(1, "judging")).out)
    assert again["deduped"] is True and again["letter_id"] == "f59633562ac0"
    assert box_bytes(mecha) == before


# ---- refusals -------------------------------------------------------------------


def test_a_stale_head_is_refused_with_exit_3_and_the_box_unchanged(mecha):
    post(mecha, letter(1, "judging"))
    before = box_bytes(mecha)
    p = post(mecha, letter(2, "executing", "deadbeefdead"), check=3)
    want = ("stale_head: the head is seq 1 (f59633562ac0); the next letter must be seq 2 with "
            "prev_letter_id=f59633562ac0 (expected_head=f59633562ac0, "
            "got prev_letter_id=deadbeefdead)")
    assert p.err == f"mecha: {want}\n"
    assert json.loads(p.out) == {"ok": False, "error": "stale_head", "message": want}
    assert box_bytes(mecha) == before


def test_refusals_without_json_print_only_to_stderr(mecha):
    p = mecha.run("mission", "post", "--agent", "a", input=json.dumps(letter(2, "executing")),
                  check=3)
    assert p.out == ""
    assert p.err.startswith("mecha: stale_head: no chain exists yet for this mission")
    assert not box(mecha).exists(), "a refused first letter creates no box"


@pytest.mark.parametrize("change,code,text", [
    ({"schema": "v9"}, "schema_mismatch",
     "schema mismatch: expected m1nd-mission-letter-v0, found v9"),
    ({"mission_id": "msn_x"}, "invalid_mission_id",
     "invalid mission_id 'msn_x': expected msn_<12hex>"),
    ({"mission_seq": 0}, "invalid_mission_seq", "invalid mission_seq 0: a chain starts at 1"),
    ({"brain_ref": "/Users/me/repo"}, "absolute_path",
     "the public contract carries no absolute paths (§1f): field `brain_ref` = '/Users/me/repo' "
     "looks like a path — brain_ref is a reference string, host paths live in the local side "
     "record"),
    ({"phase": "merge_wait"}, "invalid_phase", "invalid_phase: `merge_wait` requires a gate"),
    ({"phase": "landed"}, "landed_law",
     "landed_law: `landed` requires receipt.imported==true with a real store_version — no "
     "receipt anchor is present (a zero-exit gate without an imported receipt is merge_wait, "
     "never landed)"),
])
def test_an_invalid_letter_is_refused_with_the_reference_text(mecha, change, code, text):
    l = letter(1, "judging")
    l.update(change)
    p = post(mecha, l, check=3)
    assert json.loads(p.out) == {"ok": False, "error": code, "message": text}


@pytest.mark.parametrize("raw", [
    '{"oops": 1}',
    json.dumps(letter(1, "judging", tokens_total=1.0)),
    json.dumps(letter(1, "judging", tokens_total=-1)),
    json.dumps(letter(1, "judging", seat="Hand")),
    json.dumps(letter(1, "judging"))[:-1] + ',"phase":"landed"}',
    "not json",
    "",
])
def test_what_is_not_a_letter_is_refused_as_invalid_letter(mecha, raw):
    p = mecha.run("mission", "post", "--agent", "a", "--json", input=raw, check=3)
    assert json.loads(p.out.splitlines()[-1])["error"] == "invalid_letter"
    assert not box(mecha).exists()


def test_the_whole_u64_range_is_accepted_and_written_back(mecha):
    r = json.loads(post(mecha, letter(1, "judging", tokens_total=18446744073709551615)).out)
    assert r["letter_id"]
    assert b'"tokens_total":18446744073709551615,' in box_bytes(mecha)
    post(mecha, letter(1, "judging", mission="msn_0123456789ac",
                       tokens_total=18446744073709551616), check=3)


def test_a_board_bound_to_a_brain_refuses_a_letter_for_another(mecha):
    p = mecha.run("mission", "post", "--agent", "a", "--brain", "repo-b", "--json",
                  input=json.dumps(letter(1, "judging")), check=3)
    assert json.loads(p.out)["message"] == (
        "brain_mismatch: the letter names brain_ref 'repo-a' but this board is bound to "
        "'repo-b' — nothing was appended")
    assert not box(mecha).exists()


def test_the_brain_comes_from_the_config_file_too(mecha):
    mecha.home.mkdir(mode=0o700, exist_ok=True)
    (mecha.home / "config.toml").write_text('[missions]\nbrain = "repo-b"\n')
    p = post(mecha, letter(1, "judging"), check=3)
    assert json.loads(p.out)["error"] == "brain_mismatch"
    post(mecha, letter(1, "judging"), "a", 0, "--brain", "repo-a")


def test_with_a_block_store_a_letter_must_name_one_of_its_blocks(mecha):
    add_block(mecha)
    p = post(mecha, letter(1, "judging", block_id="sb_ghost"), check=3)
    assert json.loads(p.out)["message"] == (
        "unknown_block: the letter names block_id 'sb_ghost' which no block in this board's "
        "store holds — name a real block, or set synthetic:true for a smoke probe; nothing was "
        "appended")
    post(mecha, letter(1, "judging", block_id="sb_ghost", synthetic=True))
    post(mecha, letter(1, "judging", mission="msn_0000000000aa"))


def test_a_landed_letter_naming_a_version_with_no_import_is_refused(mecha):
    add_block(mecha)
    _, _, r3 = to_merge_wait(mecha)
    before = box_bytes(mecha)
    forged = letter(4, "landed", r3["letter_id"], gate=GATE,
                    receipt={"imported": True, "store_version": 1})
    p = post(mecha, forged, check=3)
    err = json.loads(p.out)
    assert err["error"] == "landed_law"
    assert "no receipt for block 'sb_alpha' was imported at store_version 1" in err["message"]
    assert box_bytes(mecha) == before


# ---- usage, help, storage failures ----------------------------------------------------


@pytest.mark.parametrize("group,verb", [
    ("mission", "post"), ("mission", "new"), ("mission", "heads"), ("mission", "log"),
    ("mission", "land"), ("mission", "archive"), ("blocks", "add"), ("blocks", "list"),
])
def test_every_verb_has_help(mecha, group, verb):
    p = mecha.run(group, verb, "--help", check=0)
    assert p.out.startswith(f"usage: mecha {group} {verb}")


def test_usage_mistakes_exit_2(mecha):
    assert "--agent ID is required" in mecha.run("mission", "post", input="{}", check=2).err
    mecha.run("mission", "log", check=2)
    mecha.run("mission", "land", MID, "--expect-version", "x", check=2)
    mecha.run("mission", "frobnicate", check=2)
    mecha.run("blocks", "add", "b", check=2)


def test_a_bare_group_prints_its_help_on_stderr_and_exits_2(mecha):
    for group, verb in (("mission", "heads"), ("blocks", "list")):
        p = mecha.run(group, check=2)
        assert p.out == ""
        assert p.err.startswith(f"usage: mecha {group} VERB") and verb in p.err


@pytest.mark.parametrize("args", [
    ("mission", "log", ""), ("mission", "log", "  "), ("mission", "land", ""),
    ("mission", "archive", ""), ("blocks", "add", "", "--title", "t"),
])
def test_an_empty_id_is_a_usage_mistake(mecha, args):
    p = mecha.run(*args, "--json", check=2)
    assert json.loads(p.out)["error"] == "usage"  # --json: the failure document on stdout
    assert "must be non-empty" in p.err and len(p.err.splitlines()) == 1
    assert list(mecha.home.iterdir()) == [], "a usage mistake creates nothing"


def test_a_refusal_in_a_post_stream_is_one_json_line(mecha):
    p = mecha.run("mission", "post", "--agent", "agent-a", "--json", "--keep-going",
                  input=json.dumps(letter(2, "executing")) + "\n"
                  + json.dumps(letter(1, "judging")) + "\n", check=3)
    lines = p.out.splitlines()
    assert len(lines) == 2
    assert json.loads(lines[0])["error"] == "stale_head"
    assert json.loads(lines[1])["letter_id"] == "f59633562ac0"


def test_a_box_that_is_a_symlink_is_a_storage_failure(mecha, tmp_path):
    real = tmp_path / "real.jsonl"
    real.write_text("")
    link = tmp_path / "link.jsonl"
    link.symlink_to(real)
    p = mecha.run("mission", "post", "--box", link, "--agent", "a", "--json",
                  input=json.dumps(letter(1, "judging")), check=1)
    assert "symbolic link" in p.err
    assert real.read_text() == ""


# ---- reading ---------------------------------------------------------------------------


def test_heads_lists_every_mission_by_id_with_superseded_counts(mecha):
    to_merge_wait(mecha)
    post(mecha, letter(1, "judging", mission="msn_000000000001"))
    h = mecha.json("mission", "heads", "--json")
    assert h["box"] == str(box(mecha))
    assert [m["mission_id"] for m in h["missions"]] == ["msn_000000000001", MID]
    m = h["missions"][1]
    assert m["head_letter_id"] == "572e72c4a3f2"
    assert m["superseded_count"] == 2
    assert m["head"]["phase"] == "merge_wait"
    assert m["head"]["receipt_candidate"] == CANDIDATE
    text = mecha.run("mission", "heads", check=0).out
    assert re.search(rf"{MID}\s+3\s+merge_wait\s+572e72c4a3f2\s+2", text)


def test_heads_of_an_empty_board(mecha):
    assert mecha.json("mission", "heads", "--json")["missions"] == []
    assert mecha.run("mission", "heads", check=0).out == "no missions\n"


def test_log_shows_the_chain_root_first(mecha):
    to_merge_wait(mecha)
    log = mecha.json("mission", "log", MID, "--json")
    assert [x["letter_id"] for x in log["letters"]] == [
        "f59633562ac0", "3adfdb747a28", "572e72c4a3f2"]
    assert log["head_letter_id"] == "572e72c4a3f2"
    assert log["letters"][0]["agent"] == "agent-a"
    assert log["off_chain"] == 0
    p = mecha.run("mission", "log", "msn_ffffffffffff", "--json", check=3)
    assert json.loads(p.out)["error"] == "unknown_mission"


def test_unreadable_lines_are_skipped_and_reported(mecha):
    post(mecha, letter(1, "judging"))
    with open(box(mecha), "ab") as f:
        f.write(b"garbage line\n")
    p = mecha.run("mission", "heads", "--json", check=0)
    assert p.err == f"mecha: skipped 1 unreadable line(s) in {box(mecha)}\n"
    assert len(json.loads(p.out)["missions"]) == 1


def test_a_torn_last_line_is_repaired_by_the_next_post(mecha):
    post(mecha, letter(1, "judging"))
    with open(box(mecha), "ab") as f:
        f.write(b'{"kind":"mission","ag')
    post(mecha, letter(2, "executing", "f59633562ac0"))
    lines = box_bytes(mecha).split(b"\n")
    assert lines[1] == b'{"kind":"mission","ag'
    assert letter_id(lines[2]) == "3adfdb747a28"
    assert lines[3] == b""


def test_a_deleted_or_stale_index_gives_the_same_answers(mecha):
    to_merge_wait(mecha)
    post(mecha, letter(1, "judging", mission="msn_000000000001"))
    before = mecha.json("mission", "heads", "--json")
    idx = box(mecha).with_name("inbox.jsonl.idx")
    idx.unlink()
    assert mecha.json("mission", "heads", "--json") == before
    # Behind the index's back, another tool appends a letter: the board notices.
    nxt = letter(4, "executing", "572e72c4a3f2")
    line = json.dumps({"kind": "mission", "agent": "elsewhere", "ts": T0, "mission": nxt},
                      separators=(",", ":"))
    with open(box(mecha), "a") as f:
        f.write(line + "\n")
    after = mecha.json("mission", "heads", "--json")
    assert after["missions"][1]["head_letter_id"] == letter_id(line.encode())
    post(mecha, letter(4, "review", "572e72c4a3f2"), check=3)


def test_an_agents_words_never_reach_the_terminal_raw(mecha):
    l = letter(1, "judging", verdict={"decision": "APPROVE", "gist": "ok\x1b[2J\x07"},
               block_id="sb_\x1b]0;pwned\x07")
    mecha.run("mission", "post", "--agent", "ag\x1b[31ment", input=json.dumps(l), check=0)
    for args in (("mission", "heads"), ("mission", "log", MID)):
        out = mecha.run(*args, check=0).out
        assert "\x1b" not in out and "\x07" not in out
        assert "\\e" in out


# Every kind of control a terminal may act on: ESC (a whole CSI sequence), BEL, the C1
# CSI, DEL and a right-to-left override.
CONTROLS = "\x1b[2J\x07\u009b31m\x7f\u202e"
# Any of them raw: a C0 control but the newline, DEL, a C1 control, a bidi control.
RAW_CONTROL = re.compile(rb"[\x00-\x09\x0b-\x1f\x7f]|\xc2[\x80-\x9f]|\xe2\x80[\x8e\x8f\xaa-\xae]"
                         rb"|\xe2\x81[\xa6-\xa9]")


def bad(tag):
    return f"{tag}{CONTROLS}"


def assert_no_raw_control(p):
    for name, data in (("stdout", p.stdout), ("stderr", p.stderr)):
        m = RAW_CONTROL.search(data)
        assert not m, f"raw {m.group()!r} on {name}: {data!r}"


def evidence(tag):
    return {"command": bad(tag + "cmd"), "cwd": bad(tag + "cwd"), "exit_status": 0,
            "started_at": bad(tag + "s"), "ended_at": bad(tag + "e"),
            "artifact_hash": bad(tag + "hash"), "stdout_excerpt": bad(tag + "out"),
            "evidence_refs": [bad(tag + "ref")]}


def planted_letters(block):
    """A chain whose every string field carries every control, up to merge_wait."""
    common = dict(block_id=block, brain_ref=bad("repo"), runner_id=bad("runner"),
                  packet_ref=bad("packet"), started_at=bad("start"), updated_at=bad("upd"))
    first = letter(1, "judging", verdict={"decision": "CHANGE", "gist": bad("gist")}, **common)
    gate = {"command": bad("gate"), "exit_status": 0, "artifact_hash": bad("gatehash")}
    cand = {"block_id": block, "type": "test",
            "scope": {"boundary_version": 1, "contract_version": 1}, "evidence": evidence("ev")}
    return first, lambda prev: letter(2, "merge_wait", prev, gate=gate, receipt_candidate=cand,
                                      **common)


def plant_everywhere(mecha):
    """A board and a block store where every printed field holds controls; returns the ids."""
    block = bad("sb_")
    mecha.run("blocks", "add", block, "--title", bad("title"), check=0)
    first, second = planted_letters(block)
    agent = bad("agent")
    r1 = json.loads(post(mecha, first, agent).out)
    post(mecha, second(r1["letter_id"]), agent)
    mecha.run("mission", "land", MID, check=0)
    # Lines no validation has seen, as another tool may write them: a mission id, an
    # envelope and a kind the board would never accept, and a line that is no letter.
    foreign = letter(1, "judging", mission=bad("msn_"), **{"block_id": bad("fb"),
                                                           "updated_at": bad("fu")})
    lines = [{"kind": "mission", "agent": bad("elsewhere"), "ts": bad("ts"), "mission": foreign},
             {"kind": bad("kind"), "agent": bad("x")}]
    with open(box(mecha), "a") as f:
        for line in lines:
            f.write(json.dumps(line, ensure_ascii=False) + "\n")
        f.write(bad("garbage") + "\n")
    # A store edited by hand: a block whose id and title nobody checked.
    store = mecha.home / "missions" / "blocks.json"
    doc = json.loads(store.read_text())
    doc["blocks"].append({"block_id": bad("sb_hand"), "title": bad("hand title"),
                          "boundary_version": 1, "contract_version": 1, "receipts": []})
    store.write_text(json.dumps(doc, ensure_ascii=False))
    return foreign["mission_id"]


READS = [("mission", "heads"), ("mission", "log", MID), ("blocks", "list")]


def test_no_field_of_a_letter_or_a_block_reaches_the_terminal_raw(mecha):
    foreign = plant_everywhere(mecha)
    for args in READS + [("mission", "log", foreign), ("mission", "log", bad("msn_nobody"))]:
        p = mecha.run(*args)
        assert p.returncode in (0, 3), p.err
        assert_no_raw_control(p)
    # The words are shown, made visible, not dropped.
    heads = mecha.run("mission", "heads", check=0)
    assert heads.out.count("\\e[2J") >= 4  # two block ids, two agents, one mission id
    assert "unreadable line" in heads.err
    log = mecha.run("mission", "log", MID, check=0).out
    for tag in ("gist", "gate", "gatehash", "sb_", "upd", "agent"):
        assert tag + "\\e[2J" in log, tag
    blocks = mecha.run("blocks", "list", check=0).out
    for tag in ("sb_", "title", "sb_hand", "hand title"):
        assert tag + "\\e[2J" in blocks, tag


def test_json_carries_the_planted_words_escaped_and_intact(mecha):
    foreign = plant_everywhere(mecha)
    for args in READS + [("mission", "log", foreign)]:
        p = mecha.run(*args, "--json", check=0)
        assert not re.search(rb"[\x00-\x09\x0b-\x1f]", p.stdout)
        assert any(CONTROLS in x for x in strings(json.loads(p.out))), args
    log = mecha.json("mission", "log", MID, "--json")
    assert log["letters"][1]["letter"]["receipt_candidate"]["evidence"] == evidence("ev")
    assert log["letters"][0]["agent"] == bad("agent")


def strings(doc):
    """Every string in a JSON document, keys included."""
    if isinstance(doc, str):
        yield doc
    elif isinstance(doc, dict):
        for k, v in doc.items():
            yield k
            yield from strings(v)
    elif isinstance(doc, list):
        for v in doc:
            yield from strings(v)


def run_on_a_terminal(mecha, *args):
    """Runs mecha with stdout on a pseudo-terminal; returns what the terminal got."""
    master, slave = pty.openpty()
    p = subprocess.Popen([BIN, *map(str, args)], stdout=slave, stderr=subprocess.PIPE,
                         env=mecha.env)
    os.close(slave)
    out = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the child is gone and its output read
            break
        if not chunk:
            break
        out += chunk
    os.close(master)
    p.stderr.read()
    assert p.wait(timeout=30) == 0
    return out


def test_json_on_a_terminal_leaves_nothing_outside_ascii_raw(mecha):
    foreign = plant_everywhere(mecha)
    for args in (("mission", "heads"), ("mission", "log", MID), ("mission", "log", foreign)):
        out = run_on_a_terminal(mecha, *args, "--json")
        assert re.fullmatch(rb"[\x20-\x7e\r\n]+", out), out
        assert any(CONTROLS in x for x in strings(json.loads(out.decode()))), args


# ---- a read writes nothing ------------------------------------------------------------


def snapshot(root):
    """Every name under root with its type, mode and bytes (root itself included)."""
    snap = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in [""] + dirnames + filenames:
            p = os.path.join(dirpath, name) if name else dirpath
            st = os.lstat(p)
            data = open(p, "rb").read() if stat.S_ISREG(st.st_mode) else None
            snap[os.path.relpath(p, root)] = (st.st_mode, data)
    return snap


def read_only(root, on=True):
    """Takes write permission away (or gives it back); root ignores it, the snapshot does not."""
    for dirpath, dirnames, filenames in os.walk(root, topdown=False):
        for name in filenames + [""]:
            p = os.path.join(dirpath, name) if name else dirpath
            mode = stat.S_IMODE(os.lstat(p).st_mode)
            os.chmod(p, mode & ~0o222 if on else mode | 0o200)


def board_with_everything(mecha):
    add_block(mecha)
    to_merge_wait(mecha)
    mecha.run("mission", "land", MID, check=0)
    post(mecha, letter(1, "judging", mission="msn_000000000001"))


def every_read(mecha, *box):
    """Runs each read verb with and without --json; returns their outputs."""
    outs = []
    for args in READS:
        for json_flag in ((), ("--json",)):
            p = mecha.run(*args, *box, *json_flag, check=0)
            outs.append(p.out.replace(str(mecha.home / "missions"), "<dir>"))
    return outs


@pytest.mark.parametrize("damage", ["none", "read-only", "index deleted", "lock deleted",
                                    "index and lock deleted", "box rewritten"])
def test_reads_change_nothing_and_answer_the_same_whatever_the_index(mecha, damage):
    """none: the index is current and used. Taking write permission away changes the box's
    ctime, so every other case reads with an index that is stale or gone."""
    board_with_everything(mecha)
    want = every_read(mecha)
    missions = mecha.home / "missions"
    if "index" in damage:
        (missions / "inbox.jsonl.idx").unlink()
    if "lock" in damage:
        (missions / "inbox.jsonl.lock").unlink()
    if damage == "box rewritten":
        data = box(mecha).read_bytes()
        box(mecha).unlink()
        box(mecha).write_bytes(data)
        os.chmod(box(mecha), 0o600)
    if damage != "none":
        read_only(mecha.home)
    before = snapshot(mecha.home)
    try:
        assert every_read(mecha) == want
        assert snapshot(mecha.home) == before
    finally:
        read_only(mecha.home, on=False)


def test_a_copied_home_is_read_where_it_lies(mecha, tmp_path):
    board_with_everything(mecha)
    copy = tmp_path / "copy"
    shutil.copytree(mecha.home, copy)
    want = every_read(mecha)
    read_only(copy)
    before = snapshot(copy)
    try:
        outs = []
        for args in READS:
            for json_flag in ((), ("--json",)):
                p = mecha.run(*args, *json_flag, env={"MECHA_HOME": str(copy)}, check=0)
                outs.append(p.out.replace(str(copy / "missions"), "<dir>"))
        assert outs == want
        assert snapshot(copy) == before
    finally:
        read_only(copy, on=False)


def test_reads_of_a_box_in_a_read_only_directory_create_nothing_beside_it(mecha, tmp_path):
    board_with_everything(mecha)
    elsewhere = tmp_path / "ro"
    elsewhere.mkdir()
    shutil.copy(box(mecha), elsewhere / "inbox.jsonl")
    shutil.copy(mecha.home / "missions" / "blocks.json", elsewhere / "blocks.json")
    (elsewhere / "notes.txt").write_text("not a box at all\n")
    read_only(elsewhere)
    before = snapshot(elsewhere)
    try:
        outs = every_read(mecha, "--box", elsewhere / "inbox.jsonl")
        assert outs[0] == every_read(mecha)[0], "the same heads as the board it was copied from"
        p = mecha.run("mission", "heads", "--box", elsewhere / "notes.txt", check=0)
        assert p.out == "no missions\n" and "skipped 1 unreadable line" in p.err
        mecha.run("mission", "log", MID, "--box", elsewhere / "notes.txt", check=3)
        mecha.run("mission", "heads", "--box", elsewhere / "missing.jsonl", check=0)
        assert snapshot(elsewhere) == before
        assert sorted(os.listdir(elsewhere)) == ["blocks.json", "inbox.jsonl", "notes.txt"]
    finally:
        read_only(elsewhere, on=False)


def test_a_read_of_a_board_that_was_never_written_creates_nothing(mecha):
    for args in READS:
        for json_flag in ((), ("--json",)):
            p = mecha.run(*args, *json_flag)
            assert p.returncode in (0, 3)
    assert list(mecha.home.iterdir()) == []


# ---- races -----------------------------------------------------------------------------


class Poster:
    """One long-lived `mecha mission post` fed letter by letter."""

    def __init__(self, mecha, agent):
        env = dict(mecha.env)
        self.p = subprocess.Popen(
            [BIN, "mission", "post", "--agent", agent, "--json", "--keep-going", "-"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)

    def send(self, l):
        self.p.stdin.write((json.dumps(l) + "\n").encode())
        self.p.stdin.flush()
        return json.loads(self.p.stdout.readline())

    def close(self):
        self.p.stdin.close()
        return self.p.wait(timeout=30)


def test_racing_processes_leave_one_linear_chain_of_exactly_the_accepted_posts(mecha):
    racers, attempts = 8, 200
    accepted, refused, errors = [], [], []
    lock = threading.Lock()
    post(mecha, letter(1, "judging"))  # the chain exists; everyone races to extend it

    def race(k):
        poster = Poster(mecha, f"racer-{k}")
        seq, prev = 1, "f59633562ac0"
        try:
            for i in range(attempts):
                r = poster.send(letter(seq + 1, "executing", prev, runner_id=f"r{k}-{i}"))
                if "letter_id" in r:
                    with lock:
                        accepted.append(r["letter_id"])
                    seq, prev = r["mission_seq"], r["letter_id"]
                    continue
                with lock:
                    refused.append(r["error"])
                m = re.search(r"the head is seq (\d+) \(([0-9a-f]{12})\)", r["message"])
                seq, prev = int(m.group(1)), m.group(2)
        except Exception as exc:  # reported below, with the racer's number
            errors.append(f"racer {k}: {exc!r}")
        finally:
            poster.close()

    threads = [threading.Thread(target=race, args=(k,)) for k in range(racers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not errors, errors
    assert len(accepted) + len(refused) == racers * attempts
    assert set(refused) <= {"stale_head"}, set(refused)
    lines = box_bytes(mecha).splitlines()
    assert len(lines) == 1 + len(accepted)
    ids = [letter_id(x) for x in lines]
    assert sorted(ids[1:]) == sorted(accepted), "the box holds exactly the accepted posts"
    for i, raw in enumerate(lines):
        m = json.loads(raw)["mission"]
        assert m["mission_seq"] == i + 1, "no two letters share a seq"
        assert m.get("prev_letter_id") == (ids[i - 1] if i else None), "each extends the last"
    head = mecha.json("mission", "heads", "--json")["missions"][0]
    assert head["head_letter_id"] == ids[-1]
    assert head["superseded_count"] == len(lines) - 1


def kill_mid_stream(mecha, posters, hammer, stop):
    """Runs hammer(k, poster) for every poster at once, SIGKILLs them all mid-stream,
    then reads the box back: only its very last line may be torn, and the letters
    that are whole form one linear chain. Returns them as (mission, letter id)."""
    threads = [threading.Thread(target=hammer, args=(k, p)) for k, p in enumerate(posters)]
    for t in threads:
        t.start()
    stop.wait(0.8)
    for p in posters:
        p.p.kill()
    stop.set()
    for t in threads:
        t.join(timeout=30)
    for p in posters:
        p.p.wait(timeout=30)
    lines = [x for x in box_bytes(mecha).split(b"\n") if x]
    readable = []
    for raw in lines:
        try:
            readable.append((json.loads(raw)["mission"], letter_id(raw)))
        except ValueError:
            assert raw is lines[-1], "only the very last line can be torn"
    for i, (m, _) in enumerate(readable):
        assert m["mission_seq"] == i + 1
        assert m.get("prev_letter_id") == (readable[i - 1][1] if i else None)
    return readable


def test_posters_killed_mid_stream_leave_a_chain_the_next_post_extends(mecha):
    """SIGKILL lands wherever it lands: in a write, between the append and the
    index, while the lock is held. Nothing that was accepted is lost, no fork
    gets in, and the board carries on."""
    post(mecha, letter(1, "judging"))
    posters = [Poster(mecha, f"doomed-{k}") for k in range(4)]
    stop = threading.Event()

    def hammer(k, poster):
        seq, prev, i = 1, "f59633562ac0", 0
        while not stop.is_set():
            i += 1
            try:
                r = poster.send(letter(seq + 1, "executing", prev, runner_id=f"d{k}-{i}"))
            except (OSError, ValueError):
                return  # killed under us
            if "letter_id" in r:
                seq, prev = r["mission_seq"], r["letter_id"]
            else:
                m = re.search(r"the head is seq (\d+) \(([0-9a-f]{12})\)", r["message"])
                seq, prev = int(m.group(1)), m.group(2)

    readable = kill_mid_stream(mecha, posters, hammer, stop)
    head = mecha.json("mission", "heads", "--json")["missions"][0]
    assert head["head_letter_id"] == readable[-1][1]
    nxt = json.loads(post(mecha, letter(len(readable) + 1, "review", readable[-1][1])).out)
    assert nxt["mission_seq"] == len(readable) + 1


class McpPoster:
    """One `mecha mcp` session posting with mission_post: a long-running server
    that keeps the box open between its posts."""

    def __init__(self, mecha, agent):
        self.agent, self.n = agent, 0
        self.p = subprocess.Popen([BIN, "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, env=dict(mecha.env))
        self._send({"jsonrpc": "2.0", "id": 0, "method": "initialize",
                    "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                               "clientInfo": {"name": "pytest", "version": "1"}}})
        assert "result" in json.loads(self.p.stdout.readline())
        self._send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def _send(self, msg):
        self.p.stdin.write((json.dumps(msg) + "\n").encode())
        self.p.stdin.flush()

    def send(self, l):
        """The result as the CLI's --json gives it: the post's, or {error, message}."""
        self.n += 1
        self._send({"jsonrpc": "2.0", "id": self.n, "method": "tools/call",
                    "params": {"name": "mission_post",
                               "arguments": {"agent_id": self.agent, "letter": l}}})
        reply = json.loads(self.p.stdout.readline())
        assert reply["id"] == self.n, reply
        return reply["result"]["structuredContent"]

    def close(self):
        self.p.stdin.close()
        return self.p.wait(timeout=30)


def head_from(r):
    """(seq, letter id) of the head a stale_head refusal names."""
    m = re.search(r"the head is seq (\d+) \(([0-9a-f]{12})\)", r["message"])
    return int(m.group(1)), m.group(2)


def test_a_long_running_mcp_server_sees_what_another_process_posted_between_its_posts(mecha):
    server = McpPoster(mecha, "agent-mcp")
    try:
        r1 = server.send(letter(1, "judging"))
        r2 = server.send(letter(2, "executing", r1["letter_id"]))
        r3 = json.loads(post(mecha, letter(3, "review", r2["letter_id"])).out)  # another process
        fork = server.send(letter(3, "executing", r2["letter_id"]))
        assert fork["error"] == "stale_head"
        assert head_from(fork) == (3, r3["letter_id"])
        r4 = server.send(letter(4, "executing", r3["letter_id"]))
        assert r4["mission_seq"] == 4 and not r4["deduped"]
    finally:
        assert server.close() == 0
    head = mecha.json("mission", "heads", "--json")["missions"][0]
    assert head["head_letter_id"] == r4["letter_id"] and head["superseded_count"] == 3


def test_a_post_stream_held_open_sees_what_another_process_posted_between_its_letters(mecha):
    """`mission post` keeps the box open between the letters of its input, as
    the MCP server does (board.h: BOARD_KEEP): the CAS still meets the box as
    it is at each post."""
    p = subprocess.Popen([BIN, "mission", "post", "--agent", "agent-s", "--json", "--keep-going"],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, env=dict(mecha.env))

    def send(l):
        p.stdin.write((json.dumps(l) + "\n").encode())
        p.stdin.flush()
        return json.loads(p.stdout.readline())

    try:
        r1 = send(letter(1, "judging"))
        r2 = send(letter(2, "executing", r1["letter_id"]))
        r3 = json.loads(post(mecha, letter(3, "review", r2["letter_id"])).out)  # another process
        fork = send(letter(3, "executing", r2["letter_id"]))
        assert fork["error"] == "stale_head"
        assert head_from(fork) == (3, r3["letter_id"])
        r4 = send(letter(4, "executing", r3["letter_id"]))
        assert r4["mission_seq"] == 4 and not r4["deduped"]
    finally:
        p.stdin.close()
        p.stdout.close()
        assert p.wait(timeout=30) == 3  # the one refusal, with --keep-going
    head = mecha.json("mission", "heads", "--json")["missions"][0]
    assert head["head_letter_id"] == r4["letter_id"] and head["superseded_count"] == 3


def test_a_long_running_mcp_server_carries_on_after_a_writer_died_between_append_and_index(mecha):
    """A writer killed after its append, before its index update, leaves its
    line in the box and the index without it: the server's next post is held
    against the box, not against what it saw before."""
    server = McpPoster(mecha, "agent-mcp")
    try:
        r1 = server.send(letter(1, "judging"))
        r2 = server.send(letter(2, "executing", r1["letter_id"]))
        orphan = json.dumps({"kind": "mission", "agent": "doomed", "ts": T0, "mission": {
            "schema": "m1nd-mission-letter-v0", "mission_id": MID, "mission_seq": 3,
            "prev_letter_id": r2["letter_id"], "block_id": "sb_alpha", "brain_ref": "repo-a",
            "seat": "hand", "capability": "build-runner", "phase": "review",
            "packet_ref": "sha256:packethash", "tokens_total": 0, "started_at": T0,
            "updated_at": T0}}, separators=(",", ":")).encode()
        with open(box(mecha), "ab") as f:
            f.write(orphan + b"\n")
        fork = server.send(letter(3, "executing", r2["letter_id"]))
        assert fork["error"] == "stale_head"
        assert head_from(fork) == (3, letter_id(orphan))
        r4 = server.send(letter(4, "executing", letter_id(orphan)))
        assert r4["mission_seq"] == 4
    finally:
        assert server.close() == 0
    lines = box_bytes(mecha).splitlines()
    assert [json.loads(x)["mission"]["mission_seq"] for x in lines] == [1, 2, 3, 4]
    assert mecha.json("mission", "log", MID, "--json")["head_letter_id"] == r4["letter_id"]


def test_racing_mcp_servers_and_cli_posters_leave_one_linear_chain(mecha):
    """Servers that keep the box open race processes that open it per post:
    the CAS holds between every two posts of a server as within one."""
    racers, attempts = 6, 150
    accepted, refused, errors = [], [], []
    lock = threading.Lock()
    first = json.loads(post(mecha, letter(1, "judging")).out)

    def race(k):
        poster = (McpPoster if k % 2 else Poster)(mecha, f"racer-{k}")
        seq, prev = 1, first["letter_id"]
        try:
            for i in range(attempts):
                r = poster.send(letter(seq + 1, "executing", prev, runner_id=f"r{k}-{i}"))
                if "letter_id" in r:
                    with lock:
                        accepted.append(r["letter_id"])
                    seq, prev = r["mission_seq"], r["letter_id"]
                    continue
                with lock:
                    refused.append(r["error"])
                seq, prev = head_from(r)
        except Exception as exc:  # reported below, with the racer's number
            errors.append(f"racer {k}: {exc!r}")
        finally:
            poster.close()

    threads = [threading.Thread(target=race, args=(k,)) for k in range(racers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not errors, errors
    assert len(accepted) + len(refused) == racers * attempts
    assert set(refused) <= {"stale_head"}, set(refused)
    lines = box_bytes(mecha).splitlines()
    ids = [letter_id(x) for x in lines]
    assert sorted(ids[1:]) == sorted(accepted), "the box holds exactly the accepted posts"
    for i, raw in enumerate(lines):
        m = json.loads(raw)["mission"]
        assert m["mission_seq"] == i + 1, "no two letters share a seq"
        assert m.get("prev_letter_id") == (ids[i - 1] if i else None), "each extends the last"


def test_mcp_servers_killed_mid_stream_leave_a_chain_a_long_running_server_extends(mecha):
    """SIGKILL lands wherever it lands in the doomed servers — between an append
    and its index update too; the server that lives on, which has kept the box
    open all along, learns the head from its refusal and extends it."""
    survivor = McpPoster(mecha, "survivor")
    r1 = survivor.send(letter(1, "judging"))
    r2 = survivor.send(letter(2, "executing", r1["letter_id"]))
    doomed = [McpPoster(mecha, f"doomed-{k}") for k in range(3)]
    stop = threading.Event()

    def hammer(k, poster):
        seq, prev, i = 2, r2["letter_id"], 0
        while not stop.is_set():
            i += 1
            try:
                r = poster.send(letter(seq + 1, "executing", prev, runner_id=f"d{k}-{i}"))
            except (OSError, ValueError, KeyError, AssertionError):
                return  # killed under us
            seq, prev = (r["mission_seq"], r["letter_id"]) if "letter_id" in r else head_from(r)

    readable = kill_mid_stream(mecha, doomed, hammer, stop)
    head_seq, head_id = len(readable), readable[-1][1]
    try:
        r = survivor.send(letter(3, "review", r2["letter_id"], runner_id="survivor"))
        if head_seq > 2:  # what the doomed got in, the survivor's seq 3 does not
            assert r["error"] == "stale_head"
            assert head_from(r) == (head_seq, head_id)
            r = survivor.send(letter(head_seq + 1, "review", head_id))
        assert r["mission_seq"] == head_seq + 1
    finally:
        assert survivor.close() == 0


# ---- a person's gestures -------------------------------------------------------------------


def test_a_mission_runs_from_judging_to_landed(mecha):
    add_block(mecha)
    assert mecha.json("blocks", "list", "--json")["store_version"] == 1
    new = mecha.json("mission", "new", "--block", "sb_alpha", "--brain-ref", "repo-a",
                     "--agent", "agent-a", "--json")
    mid, prev = new["mission_id"], new["letter_id"]
    assert re.fullmatch(r"msn_[0-9a-f]{12}", mid) and new["mission_seq"] == 1
    r2 = json.loads(post(mecha, letter(2, "executing", prev, mission=mid)).out)
    r3 = json.loads(post(mecha, letter(3, "merge_wait", r2["letter_id"], mission=mid, gate=GATE,
                                       receipt_candidate=CANDIDATE)).out)
    landed = mecha.json("mission", "land", mid, "--expect-version", "1", "--json")
    assert landed["phase"] == "landed" and landed["mission_seq"] == 4
    assert landed["store_version"] == 2
    head = mecha.json("mission", "heads", "--json")["missions"][0]
    assert head["head"]["phase"] == "landed"
    assert head["head"]["prev_letter_id"] == r3["letter_id"]
    assert head["head"]["receipt"] == {"imported": True, "store_version": 2}
    assert head["head"]["gate"] == GATE and "receipt_candidate" not in head["head"]
    assert mecha.json("mission", "log", mid, "--json")["letters"][-1]["agent"] == "human"
    blocks = mecha.json("blocks", "list", "--json")
    assert blocks["store_version"] == 2
    receipt = blocks["blocks"][0]["receipts"][0]
    assert receipt["store_version"] == 2 and receipt["letter_id"] == r3["letter_id"]
    assert receipt["evidence"] == CANDIDATE["evidence"]
    # Landed is a head, not a merge_wait: neither gesture applies again.
    assert json.loads(mecha.run("mission", "land", mid, "--json", check=3).out)["error"] == \
        "not_landable"
    mecha.run("mission", "archive", mid, check=3)


def test_land_with_a_stale_expected_version_changes_nothing(mecha):
    add_block(mecha)
    to_merge_wait(mecha)
    store = mecha.home / "missions" / "blocks.json"
    before = (box_bytes(mecha), store.read_bytes())
    p = mecha.run("mission", "land", MID, "--expect-version", "0", "--json", check=3)
    assert json.loads(p.out) == {
        "ok": False, "error": "stale_version",
        "message": "stale_version: the block store is at store_version 1, not 0 — nothing was "
                   "imported"}
    assert (box_bytes(mecha), store.read_bytes()) == before


def test_land_refuses_an_unknown_block_and_changes_nothing(mecha):
    add_block(mecha, "sb_beta")
    post(mecha, letter(1, "judging", synthetic=True))
    r1 = json.loads(post(mecha, letter(1, "judging", synthetic=True)).out)
    post(mecha, letter(2, "merge_wait", r1["letter_id"], synthetic=True, gate=GATE,
                       receipt_candidate=CANDIDATE))
    before = box_bytes(mecha)
    p = mecha.run("mission", "land", MID, "--json", check=3)
    assert json.loads(p.out)["error"] == "unknown_block"
    assert box_bytes(mecha) == before
    assert mecha.json("blocks", "list", "--json")["store_version"] == 1


def test_a_mission_runs_from_judging_to_archived(mecha):
    add_block(mecha)
    to_merge_wait(mecha)
    store = (mecha.home / "missions" / "blocks.json").read_bytes()
    a = mecha.json("mission", "archive", MID, "--json")
    assert a["phase"] == "archived" and a["mission_seq"] == 4
    head = mecha.json("mission", "heads", "--json")["missions"][0]["head"]
    assert head["phase"] == "archived" and head["gate"] == GATE
    assert "receipt" not in head and "receipt_candidate" not in head
    assert (mecha.home / "missions" / "blocks.json").read_bytes() == store
    p = mecha.run("mission", "archive", MID, "--json", check=3)
    assert json.loads(p.out)["error"] == "invalid_transition"


def test_blocks_add_refuses_a_taken_id(mecha):
    add_block(mecha)
    p = mecha.run("blocks", "add", "sb_alpha", "--title", "again", "--json", check=3)
    assert json.loads(p.out)["error"] == "block_exists"
    out = mecha.run("blocks", "list", check=0).out
    assert "sb_alpha  boundary 1  contract 1  receipts 0  Alpha" in out


# ---- timestamps: free on the wire (docs/protocol/files.md §6), the house's rule at its doors ----


def test_mission_post_keeps_a_reference_letter_with_free_text_times_byte_for_byte(mecha):
    # docs/protocol/files.md §6: any string in started_at/updated_at is kept, by a replay too.
    p = post(mecha, letter(1, "judging", updated_at="yesterday", started_at="a while ago"))
    line = box_bytes(mecha).rstrip(b"\n")
    assert json.loads(p.out)["letter_id"] == letter_id(line)
    assert b'"ts":"yesterday"' in line
    assert line.endswith(b'"started_at":"a while ago","updated_at":"yesterday"}}')


def test_the_letters_mecha_writes_itself_carry_rfc3339_times(mecha):
    add_block(mecha)
    out = json.loads(mecha.run("mission", "new", "--block", "sb_alpha", "--brain-ref", "repo-a",
                               "--json", check=0).out)
    head = json.loads(mecha.run("mission", "heads", "--json", check=0).out)["missions"][0]["head"]
    assert head["mission_id"] == out["mission_id"]
    for key in ("started_at", "updated_at"):
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", head[key]), head


def test_log_finds_a_letter_that_spells_its_mission_with_escapes(mecha):
    """`mission log` parses only the lines that can name the mission (its id in the
    line's bytes, or any escape): an id written with \\u escapes is still found, and an
    unreadable line is still reported (from the index)."""
    post(mecha, letter(1, "judging"))
    first = box_bytes(mecha).splitlines()[0]
    spelt = MID.replace("msn_0", "msn_\\u0030")
    second = first.replace(f'"mission_id":"{MID}"'.encode(), f'"mission_id":"{spelt}"'.encode())
    assert second != first, first
    second = second.replace(b'"mission_seq":1', b'"mission_seq":2').replace(
        b'"phase":"judging"', f'"phase":"judging","prev_letter_id":"{letter_id(first)}"'.encode())
    with open(box(mecha), "ab") as f:
        f.write(second + b"\n" + b"garbage line\n")
    p = mecha.run("mission", "log", MID, "--json", check=0)
    log = json.loads(p.out)
    assert [x["letter_id"] for x in log["letters"]] == [letter_id(first), letter_id(second)], p.out
    assert p.err == f"mecha: skipped 1 unreadable line(s) in {box(mecha)}\n"
    post(mecha, letter(1, "judging", mission="msn_ffffffffffff"))  # the index now current
    log = mecha.json("mission", "log", MID, "--json")
    assert len(log["letters"]) == 2


def test_log_through_the_index_is_byte_for_byte_the_log_of_the_whole_box(mecha):
    """`mission log` reads a plain chain's own lines where the index says they are; the
    output (text and --json, and the skipped-lines notice) is the one a pass over the
    whole box gives — the lock file moved away, so that no index is believed — before
    and after an index of an earlier version is found beside the box."""
    missions = [f"msn_00000000000{k}" for k in range(3)]
    heads = {}
    for seq in range(1, 5):
        for m in missions:
            p = post(mecha, letter(seq, "judging" if seq == 1 else "executing", heads.get(m),
                                   mission=m), agent=f"agent-{seq}")
            heads[m] = json.loads(p.out)["letter_id"]
        if seq == 2:
            with open(box(mecha), "ab") as f:
                f.write(b"not a letter\n")
    lock = box(mecha).with_name("inbox.jsonl.lock")
    idx = box(mecha).with_name("inbox.jsonl.idx")

    def logs():
        out = []
        for m in missions:
            for flag in ((), ("--json",)):
                p = mecha.run("mission", "log", m, *flag, check=0)
                out.append((p.returncode, p.out, p.err))
        return out

    indexed = logs()
    assert all(rc == 0 for rc, _, _ in indexed), indexed
    assert "skipped 1 unreadable line(s)" in indexed[0][2]
    lock.rename(lock.with_name("away"))
    try:
        assert logs() == indexed
    finally:
        lock.with_name("away").rename(lock)
    # An index written by an earlier mecha (version 1) is not this one's: a read works
    # without it, and the next post rebuilds it.
    data = bytearray(idx.read_bytes())
    assert data[:8] == b"MECHIDX1"
    data[8:12] = (1).to_bytes(4, "little")
    idx.write_bytes(bytes(data))
    assert logs() == indexed
    post(mecha, letter(1, "judging", mission="msn_ffffffffffff"))
    assert idx.read_bytes()[8:12] == (2).to_bytes(4, "little")
    assert logs() == indexed
