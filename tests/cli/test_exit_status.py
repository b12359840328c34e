"""Exit status tells the truth (issue 12): a verb over many items exits 0 only when
every item it took was done, 1 when one failed (I/O, network, provider) and 3 when
a rule refused one — and its summary names each one that was not done and says
what was written. Each failure kind is real: the scripted model server times out,
answers 503 or answers what is not JSON; the disk refuses writes (RLIMIT_FSIZE:
a write past the limit fails with EFBIG, as root too)."""
import json
import resource
import signal
import subprocess

import pytest

from conftest import BIN, write_config
from test_extract import GOOD, configure, drained

# Every record file is well over this; the process's reads are unaffected.
FULL_DISK_BYTES = 64


def full_disk():
    """In the child: no file may grow past FULL_DISK_BYTES, and the write says so
    (EFBIG) instead of the kernel killing the process with SIGXFSZ."""
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (FULL_DISK_BYTES, FULL_DISK_BYTES))


def run_on_full_disk(mecha, *args):
    p = subprocess.run([BIN, *args], env=mecha.env, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, preexec_fn=full_disk, timeout=60)
    p.out, p.err = p.stdout.decode(), p.stderr.decode()
    return p


# ---- extract: each failure kind ------------------------------------------------------

FAILURES = {
    "timeout": ({"json": GOOD, "delay_ms": 4000}, "timed out"),
    "503": ({"status": 503, "body": {"error": "overloaded"}}, "503"),
    "not JSON": ({"raw": "<html>busy</html>"}, "not JSON"),
}


@pytest.mark.parametrize("kind", list(FAILURES))
def test_extract_exits_1_and_names_the_request_when_the_provider_fails(mecha, model_server,
                                                                         kind):
    configure(mecha, model_server, "openai")
    (mecha.home / "config.toml").write_text(
        (mecha.home / "config.toml").read_text().replace("timeout_s = 20", "timeout_s = 1"))
    entry, why = FAILURES[kind]
    model_server.script([{"json": GOOD}, entry, entry])
    drained(mecha, 1)
    drained(mecha, 2)
    p = mecha.run("frontdoor", "extract", "--jobs", "1", check=1)
    assert "1 extracted, 1 failed and waiting for you" in p.out
    assert "     2  extraction failed: " in p.out and why in p.out, "the failure is named"
    assert "     1  " not in p.out, "a request that was done gets no line without -v"
    failed = mecha.read_record(2)
    assert failed["state"] == "extraction_failed" and failed["extraction_error"]
    assert mecha.read_record(1)["state"] == "extracted"


def test_extract_exits_0_only_when_every_request_was_extracted(mecha, model_server):
    configure(mecha, model_server, "openai")
    model_server.script([{"json": GOOD}, {"json": GOOD}])
    drained(mecha, 1)
    drained(mecha, 2)
    p = mecha.run("frontdoor", "extract", check=0)
    assert p.out == "2 extracted, 0 failed and waiting for you\n"


def test_extract_json_summary_and_status_agree(mecha, model_server):
    configure(mecha, model_server, "openai")
    model_server.script([{"status": 503, "body": "busy"}])
    drained(mecha, 1)
    p = mecha.run("frontdoor", "extract", "--json", check=1)
    out = json.loads(p.out)
    assert out["extracted"] == [] and [f["seq"] for f in out["failed"]] == [1]
    assert out["failed"][0]["state"] == "extraction_failed"


@pytest.mark.parametrize("answer", [{"json": GOOD}, {"status": 503, "body": "busy"}])
def test_extract_on_a_full_disk_says_the_request_is_still_drained(mecha, model_server, answer):
    configure(mecha, model_server, "openai")
    model_server.script([answer])
    path = drained(mecha, 1)
    before = path.read_bytes()
    p = run_on_full_disk(mecha, "frontdoor", "extract")
    assert p.returncode == 1, p.err
    assert path.read_bytes() == before, "a torn or partial record"
    assert json.loads(before)["state"] == "drained"
    assert "request 1:" in p.err and "it is still drained" in p.err
    assert "could not be" in p.err and "File too large" in p.err
    # The summary counts what was written: nothing failed "and waiting for you".
    assert "0 extracted, 0 failed and waiting for you, 1 could not be written" in p.out
    assert not [n for n in mecha.requests.iterdir() if n.name.startswith(".") and
                n.name not in (".lock", ".types")], "a temporary file was left behind"


# ---- triage ----------------------------------------------------------------------------

def test_triage_exits_1_when_a_run_fails_and_names_it(mecha, model_server):
    from test_triage import configure as triage_configure, extracted
    triage_configure(mecha, model_server, "openai")
    model_server.script([{"status": 503, "body": "busy"}, {"text": "Nothing to draft."}])
    extracted(mecha, 1)
    extracted(mecha, 2)
    p = mecha.run("frontdoor", "triage", check=1)
    assert "     1  triage failed" in p.out and "     2" not in p.out
    assert p.out.splitlines()[-1] == "0 awaiting you, 1 with nothing drafted, 1 failed"
    assert mecha.read_record(2)["state"] == "triaged"


def test_triage_on_a_full_disk_names_what_could_not_be_written(mecha, model_server):
    from test_triage import configure as triage_configure, extracted
    triage_configure(mecha, model_server, "openai")
    model_server.script([{"text": "Nothing to draft."}])
    extracted(mecha, 1)
    p = run_on_full_disk(mecha, "frontdoor", "triage")
    assert p.returncode == 1, p.out + p.err
    assert "request 1:" in p.err and "still extracted" in p.err
    assert mecha.read_record(1)["state"] == "extracted"


# ---- reconcile ---------------------------------------------------------------------------

def test_reconcile_on_a_full_disk_exits_1_and_names_each_request(mecha, smtp_sink):
    from test_reconcile import awaiting, configure as rc_configure, draft
    rc_configure(mecha, smtp_sink)
    a, b = draft(mecha), draft(mecha)
    awaiting(mecha, 1, [a])
    awaiting(mecha, 2, [b])
    mecha.run("outbox", "reject", a, b, "--reason", "no", check=0)
    p = run_on_full_disk(mecha, "frontdoor", "reconcile")
    assert p.returncode == 1, p.err
    assert "request 1:" in p.err and "request 2:" in p.err
    assert p.out == "0 answered, 0 sent back (rejected), 2 could not be written (named above)\n"
    assert mecha.read_record(1)["state"] == "awaiting_me"
    p = mecha.run("frontdoor", "reconcile", check=0)
    assert p.out == "0 answered, 2 sent back (rejected)\n"


# ---- outbox approve: the drafts not sent are named at the end ------------------------------

def test_approve_of_several_names_each_draft_it_did_not_send(mecha, smtp_sink):
    write_config(mecha, f'[mail]\nsmtp_url = "{smtp_sink.url}"\nfrom = "me@example.org"\n')
    ids = [mecha.run("outbox", "stage", "--tool", "mail_send", "--args",
                     json.dumps({"to": "ada@example.org", "subject": "s", "body": "b"}),
                     check=0).out.strip() for _ in range(2)]
    mecha.run("outbox", "reject", ids[0], "--reason", "no", check=0)
    p = mecha.run("outbox", "approve", *ids, "-y", check=3)
    assert f"sent {ids[1]}" in p.out
    assert f"1 of 2 sent; not sent: {ids[0]} (not_pending)" in p.err


# ---- mission post --keep-going ---------------------------------------------------------------

def test_mission_post_keep_going_names_each_refused_letter(mecha):
    from test_mission import letter
    stream = "".join(json.dumps(x) + "\n" for x in (
        letter(1, "judging"), letter(3, "executing"), letter(7, "executing")))
    p = mecha.run("mission", "post", "--agent", "agent-a", "--keep-going", input=stream,
                  check=3)
    assert "1 of 3 letters posted; refused: letters 2, 3 of the input" in p.err
