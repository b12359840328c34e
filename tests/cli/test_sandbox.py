"""Least privilege: every verb confines itself with Landlock once its options are
read (src/base/sandbox.h, src/config/confine.h).

What a confined process may do is observed from inside it through the test hooks
sandbox.h documents: after restricting, MECHA_TEST_OPEN opens a path,
MECHA_TEST_CREATE creates one and MECHA_TEST_CONNECT connects to a loopback
port, and each says on stderr what the kernel answered. The tests that need
Landlock skip, saying why, on a kernel without it; the ones about a kernel
without it run everywhere (MECHA_TEST_LANDLOCK_ABI=0 makes any kernel look so).
"""
import ctypes
import json
import os
import pathlib
import re
import socket

import pytest

from conftest import ROOT, write_config

SYS_LANDLOCK_CREATE_RULESET = 444  # the same number on every architecture
LANDLOCK_CREATE_RULESET_VERSION = 1


def landlock_abi():
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    abi = libc.syscall(SYS_LANDLOCK_CREATE_RULESET, None, ctypes.c_size_t(0),
                       ctypes.c_uint(LANDLOCK_CREATE_RULESET_VERSION))
    return abi if abi > 0 else 0


ABI = landlock_abi()
needs_landlock = pytest.mark.skipif(
    ABI == 0, reason="this kernel has no Landlock (landlock_create_ruleset failed): "
                     "nothing to observe; the 'not available' path is tested below")
needs_net_rules = pytest.mark.skipif(
    ABI < 4, reason=f"Landlock ABI {ABI} has no network rules (ABI 4 has)")


def probe(p, what, path):
    """What the confined process reported for one hook: 'ok' or an errno name."""
    m = re.search(rf"^mecha: sandbox test: {what} {re.escape(str(path))}: (\S+)$", p.err, re.M)
    assert m, f"no '{what}' report (was the verb confined after parsing?)\n{p.err}"
    return m.group(1)


@pytest.fixture
def outside(tmp_path):
    """A file beside the home, and a place outside the home, $HOME and $TMPDIR alike
    (the worktree itself), where nothing may be created."""
    f = tmp_path / "outside.txt"
    f.write_text("not mecha's")
    never = pathlib.Path(ROOT) / f".sandbox-probe-{os.getpid()}"
    yield f, never
    if never.exists():
        never.unlink()


@pytest.fixture
def listener():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen(8)
    yield s.getsockname()[1]
    s.close()


# -- every verb, from `mecha --help`: confined as soon as it has parsed ----------------
VERBS = {
    ("frontdoor", "list"): [], ("frontdoor", "show"): ["1"], ("frontdoor", "next"): [],
    ("frontdoor", "extract"): [], ("frontdoor", "triage"): [],
    ("frontdoor", "needs-info"): ["1"], ("frontdoor", "close"): ["1", "--reason", "x"],
    ("frontdoor", "reconcile"): [], ("frontdoor", "sweep"): ["--dry-run"],
    ("frontdoor", "reply"): ["1"], ("frontdoor", "decline"): ["1"],
    ("outbox", "list"): [], ("outbox", "show"): ["x"],
    ("outbox", "stage"): ["--tool", "mail_send", "--args", "{}"],
    ("outbox", "approve"): ["--all", "-y"], ("outbox", "reject"): ["--all", "--reason", "x"],
    ("outbox", "edit"): ["x"], ("outbox", "review"): [],
    ("review",): [], ("mcp",): [],
    ("mission", "post"): ["--agent", "a"], ("mission", "new"): ["--block", "b", "--brain-ref", "r"],
    ("mission", "heads"): [], ("mission", "log"): ["msn_000000000000"],
    ("mission", "land"): ["msn_000000000000"], ("mission", "archive"): ["msn_000000000000"],
    ("blocks", "add"): ["sb_x", "--title", "t"], ("blocks", "list"): [],
    ("calendar", "free-busy"): [],
    ("calendar", "add"): ["--start", "2026-08-10T10:00:00Z", "--end", "2026-08-10T11:00:00Z",
                          "--attendee", "ada@example.org"],
    ("calendar", "remove"): ["uid"],
    ("types", "check"): ["x.toml"], ("types", "list"): [], ("types", "show"): ["x"],
    ("types", "schema"): ["x"], ("types", "validate"): ["x"], ("types", "push"): ["x"],
    ("types", "install"): ["x.toml"],
    ("init",): [], ("doctor",): ["--offline"], ("drain",): [],
    ("slots", "show"): ["x"], ("slots", "push"): ["x"],
    ("box", "serve"): ["--help"], ("box", "owner"): ["--help"], ("box", "key"): ["--help"],
    ("box", "sweep"): ["--help"], ("box", "pair"): ["--help"],
    ("pair",): ["http://127.0.0.1:9", "K7QM-3XPA-9D2F", "--handle", "ada"],
}
# They run mecha-box, another program (it faces the internet: docs/security.md).
NOT_THIS_PROGRAM = {("box", "serve"), ("box", "owner"), ("box", "key"), ("box", "sweep"),
                    ("box", "pair")}
# They run one of the person's own programs ($EDITOR), which may read anything.
RUNS_YOUR_PROGRAMS = {("outbox", "edit"), ("outbox", "review"), ("review",),
                      ("frontdoor", "reply")}
# They call a model or deliver: TCP stays open.
NETWORK = {("frontdoor", "extract"), ("frontdoor", "triage"), ("frontdoor", "sweep"),
           ("frontdoor", "decline"), ("frontdoor", "close"),  # close --notify tells the box
           ("outbox", "approve"), ("outbox", "review"), ("review",),
           ("doctor",), ("drain",), ("slots", "push"), ("types", "push"), ("pair",),
           ("types", "install")}


def listed_verbs(mecha):
    """Every command and verb `mecha --help` lists."""
    out, verbs, command = mecha.run("--help", check=0).out, set(), None
    for line in out.splitlines():
        m = re.match(r"^  (\w+)( \[?VERB\]?)?\s{2,}", line)
        if m and m.group(1) not in ("help", "completion"):
            command = m.group(1)
            if not m.group(2):
                verbs.add((command,))
        elif command and (m := re.match(r"^      ([\w-]+)\s{2,}", line)):
            verbs.add((command, m.group(1)))
        elif not line.strip():
            command = None
    return verbs


def test_the_table_of_this_file_names_every_verb_mecha_lists(mecha):
    assert listed_verbs(mecha) == set(VERBS)


@needs_landlock
@pytest.mark.parametrize("verb", sorted(VERBS), ids=" ".join)
def test_every_verb_is_confined_once_its_options_are_read(mecha, outside, listener, verb):
    if verb in NOT_THIS_PROGRAM:
        pytest.skip("mecha-box is another program; this one execs it unconfined")
    inside, never = outside
    mecha.home.mkdir(mode=0o700, exist_ok=True)
    p = mecha.run(*verb, *VERBS[verb], input="", env={
        "MECHA_TEST_OPEN": str(inside), "MECHA_TEST_CREATE": str(never),
        "MECHA_TEST_CONNECT": str(listener), "EDITOR": "true", "VISUAL": "", "TERM": "dumb"})
    assert probe(p, "create", never) == "EACCES" and not never.exists()
    if verb not in RUNS_YOUR_PROGRAMS:
        assert probe(p, "open", inside) == "EACCES"
    if ABI >= 4:
        assert probe(p, "connect", listener) == ("ok" if verb in NETWORK else "EACCES")


# -- what a confined verb may and may not touch -------------------------------------------
@needs_landlock
def test_a_verb_that_reads_cannot_open_a_file_outside_its_home_but_reads_its_own(mecha, outside):
    inside, _ = outside
    write_config(mecha, "")
    for verb in (["frontdoor", "show", "1"], ["outbox", "list"], ["mission", "heads"]):
        p = mecha.run(*verb, env={"MECHA_TEST_OPEN": str(inside)})
        assert probe(p, "open", inside) == "EACCES", verb
        p = mecha.run(*verb, env={"MECHA_TEST_OPEN": str(mecha.home / "config.toml")})
        assert probe(p, "open", mecha.home / "config.toml") == "ok", verb


@needs_landlock
def test_a_verb_writes_only_the_store_it_changes(mecha):
    for store in ("requests", "outbox", "missions"):
        (mecha.home / store).mkdir(parents=True, mode=0o700)
    cases = [(["outbox", "stage", "--tool", "mail_send", "--args", "{}"], "outbox"),
             (["frontdoor", "reconcile"], "requests"),
             (["mission", "heads"], None),
             (["mission", "post", "--agent", "a"], "missions")]
    for verb, writes in cases:
        for store in ("requests", "outbox", "missions"):
            target = mecha.home / store / "probe"
            p = mecha.run(*verb, input="", env={"MECHA_TEST_CREATE": str(target)})
            assert probe(p, "create", target) == ("ok" if store == writes else "EACCES"), \
                (verb, store)
            if target.exists():
                target.unlink()
        home_file = mecha.home / "probe"
        p = mecha.run(*verb, input="", env={"MECHA_TEST_CREATE": str(home_file)})
        assert probe(p, "create", home_file) == "EACCES" and not home_file.exists(), verb


@needs_landlock
def test_a_box_named_on_the_command_line_is_the_store_the_verb_may_change(mecha, tmp_path):
    box = tmp_path / "elsewhere" / "inbox.jsonl"
    box.parent.mkdir()
    beside, other = box.parent / "probe", tmp_path / "probe"
    p = mecha.run("blocks", "add", "sb_x", "--title", "t", "--box", box,
                  env={"MECHA_TEST_CREATE": str(beside)}, check=0)
    assert probe(p, "create", beside) == "ok"
    assert "sb_x" in (box.parent / "blocks.json").read_text()
    p = mecha.run("blocks", "list", "--box", box, env={"MECHA_TEST_CREATE": str(other)}, check=0)
    assert probe(p, "create", other) == "EACCES" and "sb_x" in p.out


@needs_landlock
@needs_net_rules
def test_the_mcp_server_writes_its_three_stores_and_opens_no_connection(mecha, listener):
    """It runs for hours: its stores are made when it starts, so that it is confined to
    them exactly, never to the whole home (config.toml included) in the meantime."""
    (mecha.home / "sessions").mkdir(parents=True)  # a store it never writes
    for target, allowed in ((mecha.home / "probe", "EACCES"),
                            (mecha.home / "config.toml", "EACCES"),
                            (mecha.home / "requests" / "probe", "ok"),
                            (mecha.home / "outbox" / "probe", "ok"),
                            (mecha.home / "missions" / "probe", "ok"),
                            (mecha.home / "sessions" / "probe", "EACCES")):
        p = mecha.run("mcp", input="", env={"MECHA_TEST_CONNECT": str(listener),
                                            "MECHA_TEST_CREATE": str(target)}, check=0)
        assert probe(p, "connect", listener) == "EACCES"
        assert probe(p, "create", target) == allowed, target
        if allowed == "ok":
            target.unlink()
    assert sorted(p.name for p in mecha.home.iterdir()) == ["missions", "outbox", "requests",
                                                             "sessions"]


@needs_landlock
def test_the_pager_and_the_editor_still_run_under_the_sandbox(mecha, tmp_path):
    """Exec of a person's program works confined: the editor writes beside the draft."""
    write_config(mecha, '[outbox]\ntools = ["mail_send"]\n')
    staged = mecha.run("outbox", "stage", "--tool", "mail_send", "--args", json.dumps(
        {"to": "ada@example.org", "subject": "Tuesday", "body_text": "Tuesday at ten.\n"}),
        check=0).out.strip()
    ed = tmp_path / "ed"
    ed.write_text('#!/bin/sh\nsed -i "s/ten/two/" "$1"\n')
    ed.chmod(0o755)
    mecha.run("outbox", "edit", staged, env={"EDITOR": str(ed), "VISUAL": ""}, check=0)
    assert "two" in json.loads(mecha.run("outbox", "show", staged, "--json", check=0).out
                               )["args"]["body_text"]


# -- a kernel without Landlock, an older ABI, the person's switch ----------------------------
def test_a_kernel_without_landlock_is_said_once_under_verbose_and_nothing_fails(mecha, outside):
    inside, _ = outside
    env = {"MECHA_TEST_LANDLOCK_ABI": "0", "MECHA_TEST_OPEN": str(inside)}
    p = mecha.run("frontdoor", "reconcile", "-v", env=env, check=0)
    assert p.err.count("mecha: sandbox: this kernel has no Landlock (ENOSYS); the files "
                       "are not confined") == 1
    assert probe(p, "open", inside) == "ok"
    p = mecha.run("outbox", "list", env=dict(env, MECHA_VERBOSE="1"), check=0)
    assert p.err.count("no Landlock") == 1
    quiet = mecha.run("outbox", "list", env={"MECHA_TEST_LANDLOCK_ABI": "0"}, check=0)
    assert "sandbox" not in quiet.err


@needs_landlock
def test_an_abi_without_network_rules_says_so_and_seccomp_still_closes_the_network(
        mecha, listener):
    p = mecha.run("outbox", "list", env={"MECHA_TEST_LANDLOCK_ABI": "3", "MECHA_VERBOSE": "1",
                                         "MECHA_TEST_CONNECT": str(listener)}, check=0)
    assert ("mecha: sandbox: Landlock ABI 3 lacks network rules (ABI 4), device ioctl rules "
            "(ABI 5), signal and socket scoping (ABI 6); seccomp closes the network alone"
            ) in p.err
    assert probe(p, "connect", listener) == "EACCES"


def test_a_verb_without_network_opens_no_ip_socket_even_without_landlock(mecha, listener):
    """seccomp refuses IPv4 and IPv6 sockets (UDP too, which Landlock does not cover) to a
    verb that needs no network, whatever the kernel's Landlock."""
    env = {"MECHA_TEST_LANDLOCK_ABI": "0", "MECHA_TEST_CONNECT": str(listener)}
    assert probe(mecha.run("outbox", "list", env=env, check=0), "connect", listener) == "EACCES"
    p = mecha.run("frontdoor", "extract", env=env, check=0)
    assert probe(p, "connect", listener) == "ok"


def test_a_verb_without_network_cannot_send_a_datagram(mecha):
    p = mecha.run("outbox", "list", env={"MECHA_TEST_UDP": "1"}, check=0)
    assert probe(p, "udp", "socket") == "EACCES"


def test_mecha_sandbox_off_is_the_persons_switch(mecha, outside):
    inside, _ = outside
    p = mecha.run("outbox", "list", env={"MECHA_SANDBOX": "off", "MECHA_VERBOSE": "1",
                                         "MECHA_TEST_OPEN": str(inside)}, check=0)
    assert "mecha: sandbox: off (MECHA_SANDBOX=off)" in p.err
    assert probe(p, "open", inside) == "ok"


@needs_landlock
def test_verbose_two_describes_the_policy(mecha):
    p = mecha.run("outbox", "stage", "--tool", "mail_send", "--args", "{}",
                  env={"MECHA_VERBOSE": "2"})
    line = next(l for l in p.err.splitlines() if l.startswith("mecha: sandbox: Landlock ABI"))
    assert f"writes {mecha.home / 'outbox'}" in line
    assert ("network closed" if ABI >= 4 else "network open") in line


@needs_landlock
def test_a_setuid_sendmail_turns_the_sandbox_off_for_delivery_and_says_why(mecha, tmp_path):
    """no_new_privs, which Landlock needs, would strip a setgid sendmail (postfix's) of
    the privilege it delivers with: a verb that may run one is not confined."""
    script = tmp_path / "sendmail"
    script.write_text("#!/bin/sh\ncat > /dev/null\n")
    script.chmod(0o2755)
    write_config(mecha, f'[mail]\nsendmail = "{script} -i"\nfrom = "me@example.org"\n')
    p = mecha.run("outbox", "approve", "--all", "-y", env={"MECHA_VERBOSE": "1"}, check=0)
    assert "mecha: sandbox: off ([mail] sendmail is a setuid or setgid program)" in p.err
    p = mecha.run("outbox", "list", env={"MECHA_VERBOSE": "2"}, check=0)
    assert "Landlock ABI" in p.err  # a verb that never delivers stays confined
