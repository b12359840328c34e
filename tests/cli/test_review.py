"""The review screen, black box: the real binary in a real terminal (tmux), driven
with send-keys and read back with capture-pane, against real stores, a real SMTP
server on loopback and the scripted model server."""
import json
import os
import re
import shlex
import shutil
import subprocess
import time
import uuid

import pytest

from conftest import BIN, write_config

# Generous: the suite also runs under AddressSanitizer on a shared machine.
WAIT = 30
COLOUR = re.compile(r"\x1b\[(?:\d+;)*3[0-7](?:;\d+)*m")
MAIL = {"to": "ada@example.org", "subject": "Re: your request",
        "body_text": "Dear Ada,\n\nTuesday at ten works.\n"}


class Screen:
    """`mecha review` running in a tmux pane of its own server (one socket per test)."""

    def __init__(self, mecha, cols=80, rows=24, env=None, args=()):
        if not shutil.which("tmux"):
            pytest.fail("tmux is missing: `make deps` installs it")
        self.mecha = mecha
        self.sock = f"mecha-review-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        # tmux's own environment: a test run inside tmux must not reach that server.
        self.env = {k: v for k, v in mecha.env.items() if not k.startswith("TMUX")}
        self.env.update(LC_ALL="C.UTF-8", TERM="screen")
        pane_env = dict(self.env, **(env or {}))  # what mecha review runs with
        conf = mecha.tmp / "tmux.conf"
        conf.write_text("set -g remain-on-exit on\nset -g default-terminal screen\n"
                        "set -g status off\n")
        script = mecha.tmp / f"{self.sock}.sh"
        exports = "".join(f"export {k}={shlex.quote(v)}\n" for k, v in pane_env.items()
                          if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", k))
        # The status and stderr (a sanitizer's report, say) go to files: tmux does not
        # always hear a pane's exit status.
        self.status = mecha.tmp / f"{self.sock}.status"
        self.stderr = mecha.tmp / f"{self.sock}.stderr"
        script.write_text(exports + f"{shlex.quote(BIN)} review "
                          + " ".join(shlex.quote(a) for a in args)
                          + f" 2>{shlex.quote(str(self.stderr))}\n"
                          + f"echo $? >{shlex.quote(str(self.status))}.tmp\n"
                          + f"mv {shlex.quote(str(self.status))}.tmp {shlex.quote(str(self.status))}\n")
        self.tmux("-f", str(conf), "new-session", "-d", "-s", "t", "-x", str(cols), "-y",
                  str(rows), f"sh {shlex.quote(str(script))}")

    def tmux(self, *args):
        p = subprocess.run(["tmux", "-u", "-L", self.sock, *args], env=self.env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=30)
        assert p.returncode == 0, f"tmux {args}: {p.stderr.decode()}"
        return p.stdout.decode("utf-8", "replace")

    def text(self):
        return self.tmux("capture-pane", "-p", "-t", "t")

    def raw(self):
        """The pane with its attributes as escape sequences (tmux's own, from the cells)."""
        return self.tmux("capture-pane", "-p", "-e", "-t", "t")

    def flat(self):
        """The pane as one line of words, so text wrapped over rows still reads as it was."""
        return " ".join(self.text().split())

    def keys(self, *keys):
        self.tmux("send-keys", "-t", "t", *keys)

    def type(self, text):
        self.tmux("send-keys", "-t", "t", "-l", text)

    def ended(self):
        """How mecha review ended, when it did: its status and its stderr."""
        if not self.status.exists():
            return "(still running)"
        err = self.stderr.read_text() if self.stderr.exists() else ""
        return f"exited {self.status.read_text().strip()}; stderr:\n{err}"

    def alive(self):
        return not self.status.exists()

    def wait_for(self, what, timeout=WAIT):
        """Polls the pane until what (text, or a predicate on the flat pane) holds."""
        check = what if callable(what) else (lambda flat: what in flat)
        deadline = time.time() + timeout
        while True:
            flat = self.flat()
            if check(flat):
                return flat
            if self.status.exists() or time.time() > deadline:
                pytest.fail(f"the screen never showed {what!r}; it shows:\n{self.text()}"
                            f"\n{self.ended()}")
            time.sleep(0.05)

    def wait_until(self, predicate, what, timeout=WAIT):
        deadline = time.time() + timeout
        while not predicate():
            if time.time() > deadline:
                pytest.fail(f"{what} never happened; the screen shows:\n{self.text()}")
            time.sleep(0.05)

    def quit(self):
        """q, and the process must have exited 0 (a crash or a leak report fails here)."""
        self.keys("q")
        self.wait_until(self.status.exists, "the screen closing")
        assert self.status.read_text().strip() == "0", f"{self.ended()}\n{self.text()}"

    def close(self):
        subprocess.run(["tmux", "-L", self.sock, "kill-server"], env=self.env,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=30)


@pytest.fixture
def screen(mecha):
    """Opens the screen on demand: screen(cols=.., rows=.., env=..); killed after the test."""
    opened = []

    def open_screen(**kw):
        s = Screen(mecha, **kw)
        opened.append(s)
        return s

    yield open_screen
    for s in opened:
        s.close()


# -- the sandbox -----------------------------------------------------------------------
def configure(mecha, smtp_url="smtp://127.0.0.1:9"):
    write_config(mecha, '[outbox]\ntools = ["mail_send"]\n[mail]\n'
                 f'smtp_url = "{smtp_url}"\nfrom = "me@example.org"\n')


def stage(mecha, args=None, *extra):
    p = mecha.run("outbox", "stage", "--tool", "mail_send", "--args",
                  json.dumps(args or MAIL), *extra, check=0)
    return p.out.strip()


def item(mecha, item_id):
    return json.loads((mecha.home / "outbox" / f"{item_id}.json").read_text())


def extracted(mecha, seq, topic, **kw):
    fields = dict(state="extracted", reply_to="ada@example.org",
                  values={"purpose": "collaboration", "message": f"About {topic}, please."},
                  free_text=["message"],
                  extraction={"reading": "", "topic": topic, "urgency_claimed": "",
                              "dates_mentioned": [], "institution": "",
                              "reads_like_instructions": False})
    fields.update(kw)
    return mecha.write_record(seq, **{k: v for k, v in fields.items() if v is not None})


def awaiting(mecha, seq, draft_id, topic="the draft's topic", **kw):
    return extracted(mecha, seq, topic, state="awaiting_me", triage_session="s1",
                     outbox=[draft_id], **kw)


def state(mecha, seq):
    return mecha.read_record(seq)["state"]


# -- what the screen lists ---------------------------------------------------------------
def test_the_lists_show_what_waits_on_the_person_and_the_pending_drafts(mecha, screen):
    configure(mecha)
    pending, rejected = stage(mecha), stage(mecha)
    mecha.run("outbox", "reject", rejected, "--reason", "no", check=0)
    extracted(mecha, 1, "alpha topic")
    extracted(mecha, 2, "beta topic", state="extraction_failed", extraction=None,
              extraction_error="the model refused")
    mecha.write_record(3, valid=False, invalid_reason="too long")
    extracted(mecha, 4, "closed topic", state="closed", note="done")
    extracted(mecha, 5, "booked topic", state="booked",
              values={"_slot_start": "2026-09-01T10:00:00Z", "_slot_end": "2026-09-01T10:30:00Z"})
    extracted(mecha, 6, "gamma topic", state="needs_info", note="which day?")
    awaiting(mecha, 7, pending, "delta topic")
    s = screen(cols=100, rows=40)
    flat = s.wait_for("delta topic")
    for shown in ("alpha topic", "the model refused", "INVALID", "gamma topic", "needs_info",
                  "extraction_failed", pending, "5 waiting on you, 1 draft pending"):
        assert shown in flat, shown
    # booked is finished, as `frontdoor list` shows it (one state table: issue 21)
    assert "closed topic" not in flat and rejected not in flat
    assert "2026-09-01T10:00:00Z" not in flat
    s.keys("h")
    s.wait_for(rejected)
    s.keys("f")
    flat = s.wait_for("requests: all")
    assert "closed topic" in flat
    assert "2026-09-01T10:00:00Z" in flat and "2026-09-01T10:30:00Z" in flat, "a booking shows its slot"
    s.quit()


def test_search_narrows_both_lists_to_what_mentions_the_text(mecha, screen):
    configure(mecha)
    d = stage(mecha, dict(MAIL, subject="About the zebra"))
    extracted(mecha, 1, "alpha topic")
    extracted(mecha, 2, "beta topic", values={"message": "I keep a zebra."})
    s = screen()
    s.wait_for("alpha topic")
    s.keys("/")
    s.wait_for("Search")
    s.type("ZEBRA")
    s.keys("Enter")
    flat = s.wait_for("search: ZEBRA")
    assert "beta topic" in flat and d in flat and "alpha topic" not in flat
    s.keys("/", "C-u", "Enter")
    s.wait_for("alpha topic")
    s.quit()


# -- what the detail pane shows ----------------------------------------------------------------
def test_a_strangers_escape_sequences_are_shown_not_obeyed(mecha, screen):
    prose = "Hello \x1b[31mRED\x1b[0m there \x1b]0;pwned\x07 and \x1b[2J bye"
    extracted(mecha, 1, "escapes", values={"message": prose})
    s = screen()
    s.keys("Enter")  # the detail pane alone
    flat = s.wait_for("\\e[31mRED\\e[0m")
    assert "a stranger's words" in flat
    assert "\\e]0;pwned\\x07" in flat and "\\e[2J bye" in flat
    assert "\x1b" not in s.text()
    raw = s.raw()
    assert "\x1b[31mRED" not in raw, "the stranger's escape reached the terminal"
    assert "pwned" not in s.tmux("display", "-p", "-t", "t", "#{pane_title}")
    s.quit()


def test_a_draft_is_shown_whole_with_its_request_marked_as_third_party_text(mecha, screen):
    configure(mecha)
    body = "".join(f"line {i} of the body\n" for i in range(60)) + "THE LAST LINE\n"
    d = stage(mecha, dict(MAIL, body_text=body), "--untrusted")
    awaiting(mecha, 1, d, values={"message": "Mallory's words"})
    s = screen()
    s.wait_for(d)
    s.keys("j", "Enter")
    flat = s.wait_for("line 0 of the body")
    assert "TAINTED" in flat and "THE LAST LINE" not in flat
    s.keys("G")
    flat = s.wait_for("Mallory's words")
    assert "third-party text" in flat and "THE LAST LINE" in flat
    s.quit()


# -- the person's keys ----------------------------------------------------------------------------
def test_approving_a_draft_delivers_it_and_the_request_turns_answered(mecha, screen, smtp_sink):
    configure(mecha, smtp_sink.url)
    d = stage(mecha)
    awaiting(mecha, 1, d)
    s = screen()
    s.wait_for(d)
    s.keys("j", "a")
    flat = s.wait_for("this is what will be sent")
    assert "Tuesday at ten works." in flat and smtp_sink.raw() == []
    s.keys("y")
    s.wait_for(f"Sent {d}")
    s.wait_for("awaiting_me → answered")
    assert smtp_sink.wait_for(1)
    assert item(mecha, d)["status"] == "sent"
    assert state(mecha, 1) == "answered"
    s.quit()


def test_a_draft_is_not_approved_before_it_was_read_to_the_end(mecha, screen, smtp_sink):
    configure(mecha, smtp_sink.url)
    body = "".join(f"line {i}\n" for i in range(80))
    d = stage(mecha, dict(MAIL, body_text=body))
    s = screen()
    s.wait_for(d)
    s.keys("a")
    s.wait_for("this is what will be sent")
    s.keys("y")
    s.wait_for("Read it to the end first")
    assert item(mecha, d)["status"] == "pending"
    s.keys("Escape")
    s.wait_for("still pending")
    assert smtp_sink.raw() == [] and item(mecha, d)["status"] == "pending"
    s.quit()


def test_rejecting_asks_a_reason_esc_cancels_and_a_reason_sends_the_request_back(mecha, screen):
    configure(mecha)
    d = stage(mecha)
    awaiting(mecha, 1, d)
    s = screen()
    s.wait_for(d)
    s.keys("r")  # on the request: its one pending draft
    s.wait_for("Why reject")
    s.keys("Escape")
    s.wait_for("Reject cancelled")
    assert item(mecha, d)["status"] == "pending"
    s.keys("r")
    s.wait_for("Why reject")
    s.type("too formal")
    s.keys("Enter")
    s.wait_for(f"Rejected {d}")
    s.wait_for("awaiting_me → extracted")
    it = item(mecha, d)
    assert it["status"] == "rejected" and it["reason"] == "too formal"
    rec = mecha.read_record(1)
    assert rec["state"] == "extracted" and rec["note"] == "too formal"
    s.quit()


def test_closing_without_a_reason_is_refused_on_screen(mecha, screen):
    extracted(mecha, 1, "alpha topic")
    s = screen()
    s.wait_for("alpha topic")
    s.keys("c")
    s.wait_for("Why close request 1")
    s.keys("Enter")
    s.wait_for("nothing changed")
    assert "reason" in s.flat()
    assert state(mecha, 1) == "extracted"
    s.keys("c")
    s.wait_for("Why close request 1")
    s.keys("Escape")
    s.wait_for("Close cancelled")
    assert state(mecha, 1) == "extracted"
    s.quit()


def test_closing_a_request_with_a_pending_draft_offers_to_reject_it_first(mecha, screen):
    configure(mecha)
    d = stage(mecha)
    awaiting(mecha, 1, d)
    s = screen()
    s.wait_for(d)
    s.keys("c")
    s.wait_for("Why close request 1")
    s.type("no longer needed")
    s.keys("Enter")
    s.wait_for("Reject it with the same reason first?")
    assert item(mecha, d)["status"] == "pending" and state(mecha, 1) == "awaiting_me"
    s.keys("y")
    s.wait_for("awaiting_me → closed")
    it = item(mecha, d)
    assert it["status"] == "rejected" and it["reason"] == "no longer needed"
    rec = mecha.read_record(1)
    assert rec["state"] == "closed" and rec["note"] == "no longer needed"
    s.quit()


def test_needs_info_parks_a_request_with_its_note(mecha, screen):
    extracted(mecha, 1, "alpha topic")
    s = screen()
    s.wait_for("alpha topic")
    s.keys("n")
    s.wait_for("What is missing")
    s.type("which day suits you?")
    s.keys("Enter")
    s.wait_for("extracted → needs_info")
    rec = mecha.read_record(1)
    assert rec["state"] == "needs_info" and rec["note"] == "which day suits you?"
    s.quit()


def test_edit_leaves_for_the_editor_and_comes_back_with_the_edit_saved(mecha, screen, tmp_path):
    configure(mecha)
    d = stage(mecha)
    ed = tmp_path / "ed"
    ed.write_text('#!/bin/sh\nsed -i "s/Tuesday at ten/Friday at four/" "$1"\n')
    ed.chmod(0o755)
    s = screen(rows=40, env={"EDITOR": str(ed), "VISUAL": ""})
    s.wait_for(d)
    s.keys("e")
    s.wait_for(f"Saved your edit of {d}")
    assert item(mecha, d)["args"]["body_text"] == "Dear Ada,\n\nFriday at four works.\n"
    s.wait_for(lambda flat: "edited (- as drafted, + as it will be sent)" in flat
               and "- Tuesday at ten works." in flat and "+ Friday at four works." in flat)
    s.quit()


def test_extract_runs_on_one_request_and_a_refusal_is_shown(mecha, screen):
    mecha.write_record(1, values={"message": "Could we talk about compilers next Tuesday?"},
                       free_text=["message"])
    mecha.write_record(2, valid=False, invalid_reason="too long",
                       values={"message": "please"}, free_text=["message"])
    s = screen(args=("--state", "all"))
    s.wait_for("requests: all")
    s.keys("x")
    s.wait_for("request 1 extracted")
    assert state(mecha, 1) == "extracted"
    s.keys("j", "x")
    s.wait_for("did not validate")
    assert state(mecha, 2) == "drained"
    s.quit()


def test_triage_from_the_screen_stages_a_draft_that_appears(mecha, screen, model_server):
    write_config(mecha, 'default_provider = "test"\n[providers.test]\nkind = "openai"\n'
                 f'base_url = "{model_server.url}/v1"\nmodel = "m"\ntimeout_s = 20\n'
                 '[outbox]\ntools = ["mail_send"]\n')
    model_server.script([
        {"tool_calls": [{"name": "draft_reply",
                         "arguments": {"subject": "Re: alpha", "body": "Happy to talk."}}]},
        {"text": "I drafted a reply."},
    ])
    extracted(mecha, 1, "alpha topic")
    s = screen()
    s.wait_for("alpha topic")
    s.keys("t")
    s.wait_for("awaiting_me (1 draft in the outbox)")
    [staged] = [p.stem for p in (mecha.home / "outbox").glob("*.json")]
    s.wait_for(staged)
    assert state(mecha, 1) == "awaiting_me" and mecha.read_record(1)["outbox"] == [staged]
    s.quit()


def test_triage_without_a_model_is_refused_on_screen(mecha, screen):
    configure(mecha)
    extracted(mecha, 1, "alpha topic")
    s = screen()
    s.wait_for("alpha topic")
    s.keys("t")
    s.wait_for("rules extractor")
    assert state(mecha, 1) == "extracted"
    s.quit()


# -- the screen and the world around it ------------------------------------------------------------
def test_a_change_made_by_another_process_appears(mecha, screen):
    configure(mecha)
    extracted(mecha, 1, "alpha topic")
    extracted(mecha, 2, "beta topic")
    s = screen()
    s.wait_for("beta topic")
    mecha.run("frontdoor", "needs-info", "1", "--note", "which day?", check=0)
    s.wait_for("needs_info")
    mecha.run("frontdoor", "close", "2", "--reason", "spam", check=0)
    s.wait_for(lambda flat: "beta topic" not in flat)
    d = stage(mecha)
    s.wait_for(d)
    s.quit()


def test_a_draft_released_elsewhere_answers_its_request_on_screen(mecha, screen, smtp_sink):
    configure(mecha, smtp_sink.url)
    d = stage(mecha)
    awaiting(mecha, 1, d)
    s = screen()
    s.wait_for(d)
    mecha.run("outbox", "approve", d, "-y", check=0)
    s.wait_for("awaiting_me → answered")
    assert state(mecha, 1) == "answered"
    s.quit()


def test_a_40_by_12_terminal_does_not_crash(mecha, screen):
    configure(mecha)
    d = stage(mecha, dict(MAIL, body_text="日本語の本文\n" * 30))
    awaiting(mecha, 1, d, "a topic long enough to need clipping on a narrow screen")
    extracted(mecha, 2, "wide 漢字 topic", values={"message": "全角の文字 " * 40})
    s = screen(cols=40, rows=12)
    s.wait_for("mecha review")
    for keys in (["j"], ["Enter"], ["Space"], ["G"], ["Enter"], ["?"], ["Escape"], ["j", "j"],
                 ["a"], ["Space"], ["Escape"], ["/"], ["Escape"]):
        s.keys(*keys)
        time.sleep(0.05)
        assert s.alive(), s.text()
    s.tmux("resize-window", "-t", "t", "-x", "12", "-y", "4")
    s.wait_for("too small")
    s.tmux("resize-window", "-t", "t", "-x", "40", "-y", "12")
    s.wait_for("mecha review |")
    for line in s.text().splitlines():
        assert len(line) <= 40
    s.quit()


def test_resizing_redraws_to_the_new_size(mecha, screen):
    extracted(mecha, 1, "alpha topic")
    s = screen()
    s.wait_for("alpha topic")
    assert "h resolved" not in s.flat()
    s.tmux("resize-window", "-t", "t", "-x", "132", "-y", "30")  # the whole legend fits
    s.wait_for("h resolved")
    lines = s.text().splitlines()
    assert "h resolved" in lines[29]
    rule = next(ln for ln in lines if "request 1" in ln and "──" in ln)
    assert len(rule.rstrip()) == 132
    s.quit()


def test_colour_only_when_the_terminal_has_it_and_no_color_is_unset(mecha, screen):
    extracted(mecha, 1, "alpha topic", state="needs_info")
    s = screen()
    s.wait_for("alpha topic")
    assert COLOUR.search(s.raw())
    s.quit()
    plain = screen(env={"NO_COLOR": "1"})
    plain.wait_for("alpha topic")
    assert not COLOUR.search(plain.raw())
    plain.quit()


# -- the command line ---------------------------------------------------------------------------------
def test_review_needs_a_terminal_and_says_where_scripts_go(mecha):
    p = mecha.run("review", input="", check=2)
    assert "outbox review" in p.err


def test_a_terminal_that_cannot_place_the_cursor_is_refused(mecha, screen):
    s = screen(env={"TERM": "dumb"})
    s.wait_until(s.status.exists, "mecha review exiting")
    assert s.status.read_text().strip() == "1"
    assert "cannot place the cursor" in s.stderr.read_text()


def test_review_explains_itself_and_checks_its_state(mecha):
    assert mecha.run("review", "--help", check=0).out.startswith("usage: mecha review")
    assert "review" in mecha.run("--help", check=0).out
    p = mecha.run("review", "--state", "bogus", check=2)
    assert "not a state" in p.err


def test_a_draft_whose_request_was_closed_is_not_sent_from_the_screen(mecha, screen, smtp_sink):
    configure(mecha, smtp_sink.url)
    d = stage(mecha)
    extracted(mecha, 1, "t", state="closed", note="declined by phone", outbox=[d])
    s = screen()
    s.wait_for(d)
    s.keys("a")
    s.wait_for("this is what will be sent")
    s.keys("y")
    s.wait_for("which was closed")
    assert smtp_sink.raw() == [] and item(mecha, d)["status"] == "pending"
    s.quit()


# -- answering without a model (issue 23) ------------------------------------------------
def test_R_replies_in_the_editor_and_the_draft_appears_linked_to_its_request(mecha, screen,
                                                                             tmp_path):
    configure(mecha)
    mecha.write_record(1, reply_to="ada@example.org",
                       values={"message": "Could we meet on Tuesday?"}, free_text=["message"])
    ed = tmp_path / "ed"
    ed.write_text('#!/bin/sh\nsed -i "0,/^$/{s/^$/\\nTuesday at ten suits me./}" "$1"\n')
    ed.chmod(0o755)
    s = screen(rows=40, env={"EDITOR": str(ed), "VISUAL": ""})
    s.wait_for("R reply")
    s.keys("f")  # all: a valid drained request does not wait on the person
    s.wait_for("Could we meet")
    s.keys("R")
    s.wait_for("awaiting_me; a approves it")
    rec = mecha.read_record(1)
    assert rec["state"] == "awaiting_me" and len(rec["outbox"]) == 1
    assert item(mecha, rec["outbox"][0])["args"]["body"] == "Tuesday at ten suits me.\n"
    s.quit()


def test_R_with_an_unchanged_template_stages_nothing_and_a_booking_is_refused(mecha, screen):
    extracted(mecha, 1, "alpha topic")
    extracted(mecha, 2, "beta topic", values={"_booking_id": "ab12",
                                              "_slot_start": "2026-09-01T10:00:00Z",
                                              "_slot_end": "2026-09-01T10:30:00Z"})
    s = screen(rows=40, env={"EDITOR": "true", "VISUAL": ""})
    s.wait_for("alpha topic")
    s.keys("R")
    s.wait_for("nothing was staged for request 1")
    assert state(mecha, 1) == "extracted"
    s.keys("Down")
    s.keys("R")
    s.wait_for("decline")
    assert state(mecha, 2) == "extracted"
    assert not any((mecha.home / "outbox").glob("*.json"))
    s.quit()


def test_N_asks_back_and_the_question_is_staged_while_the_request_is_parked(mecha, screen):
    configure(mecha)
    extracted(mecha, 1, "alpha topic")
    s = screen()
    s.wait_for("alpha topic")
    s.keys("N")
    s.wait_for("What should the requester")
    s.type("Which Tuesday?")
    s.keys("Enter")
    s.wait_for("needs_info; a approves it")
    rec = mecha.read_record(1)
    assert rec["state"] == "needs_info" and rec["note"] == "Which Tuesday?"
    body = item(mecha, rec["outbox"][0])["args"]["body"]
    assert "Which Tuesday?" in body
    s.quit()


def test_the_help_lists_the_answering_keys(mecha, screen):
    s = screen(rows=70)
    s.wait_for("R reply N ask")
    s.keys("?")
    s.wait_for(lambda flat: "reply in your own words" in flat and "ask back" in flat
               and "decline a booking" in flat)
    s.keys("q")  # back from the help page
    s.wait_for("requests:")
    s.quit()


def test_D_declines_a_booking_and_the_decline_is_staged(mecha, screen):
    configure(mecha)
    extracted(mecha, 1, "gamma topic", state="drained", extraction=None, valid=True,
              values={"_booking_id": "ab12", "_slot_start": "2026-09-01T10:00:00Z",
                      "_slot_end": "2026-09-01T10:30:00Z",
                      "_manage_url": "https://gate.example.org/s/me/meeting/m/abcd"})
    s = screen(rows=40)
    s.keys("f")
    s.wait_for("2026-09-01")
    s.keys("D")
    s.wait_for("Decline booking 1?")
    s.type("double booked")
    s.keys("Enter")
    s.wait_for("the decline staged as")
    rec = mecha.read_record(1)
    assert rec["state"] == "closed" and rec["note"] == "double booked"
    assert "https://gate.example.org/s/me/meeting" in item(mecha, rec["outbox"][0])["args"]["body"]
    s.quit()


def test_D_on_a_booked_request_stages_its_cancel(mecha, screen):
    configure(mecha)
    extracted(mecha, 1, "delta topic", state="booked", extraction=None,
              note="booking-ab12@mecha",
              values={"_booking_id": "ab12", "_slot_start": "2026-09-01T10:00:00Z",
                      "_slot_end": "2026-09-01T10:30:00Z"})
    s = screen(args=("--state", "all"), rows=40)  # booked is finished: not in "waiting"
    s.wait_for("2026-09-01")
    s.keys("D")
    s.wait_for("Cancel booked request 1?")
    s.keys("Enter")  # no reason: refused, nothing changed
    s.wait_for("reason")
    assert state(mecha, 1) == "booked"
    s.keys("D")
    s.wait_for("Cancel booked request 1?")
    s.type("I am ill")
    s.keys("Enter")
    s.wait_for("its iTIP CANCEL staged as")
    rec = mecha.read_record(1)
    assert rec["state"] == "closed" and rec["note"] == "I am ill"
    assert item(mecha, rec["outbox"][0])["tool"] == "calendar_cancel"
    s.quit()


@pytest.mark.usefixtures("box_ledger")
def test_D_tells_the_box_whose_manage_page_says_declined(mecha, screen, tmp_path):
    from box_fixture import Box
    from box_visit import links, offered, path_of, payloads, push_slots, put_type, visit
    from test_box_bookings import CONSULT, hold, slots
    from test_drain import connect

    box = Box(tmp_path).start()
    try:
        put_type(box, CONSULT)
        a = slots(1)[0]
        push_slots(box, "consult", [a])
        hold(box, a)
        visit(box, "POST", path_of(links(box)[-1]))  # confirmed at the box
        [p] = payloads(box)
        configure(mecha)
        connect(mecha, box)
        mecha.write_record(1, type_id="consult", values=p, reply_to="booker@example.net")
        s = screen(args=("--state", "all"), rows=40)
        s.wait_for(p["_slot_start"][:10])
        s.keys("D")
        s.wait_for("Decline booking 1?")
        s.keys("Enter")
        s.wait_for("the box was told")
        assert mecha.read_record(1, "consult")["state"] == "closed"
        page = visit(box, "GET", path_of(p["_manage_url"]))[2]
        assert "This booking was declined" in page and "Cancel this booking" not in page
        assert offered(box) == [a]
        s.quit()
    finally:
        box.stop()


def test_review_help_names_the_answering_keys(mecha):
    out = mecha.run("review", "--help", check=0).out
    assert "R replies" in out and "N asks back" in out and "D declines" in out
