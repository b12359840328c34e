"""Starting fast: a verb that needs neither the network nor the calendar never
maps libcurl or libical (nor what they pull in), and the verbs that do need
them still work from the same binary, loading them on first use. When one is
not installed, the verb that needs it fails naming the Debian package, and
nothing is sent.

The loader tells what it mapped: LD_DEBUG=files prints a `file=NAME` line for
every object it loads, at startup or by dlopen. No timing here: that lives in
`make bench`."""
import json
import re

import subprocess

from conftest import BIN, ROOT, write_config

# libcurl, libical and the heaviest of what they pull in (GnuTLS, Kerberos,
# LDAP, SSH, RTMP, nghttp2, ICU).
HEAVY = ("libcurl", "libical", "libgnutls", "libgssapi", "libkrb5", "libldap", "libssh",
         "librtmp", "libnghttp2", "libicu", "libncurses", "libtinfo")
WINDOW = ("--from", "2026-10-01T00:00:00Z", "--to", "2026-12-01T00:00:00Z")
LETTER = {"schema": "m1nd-mission-letter-v0", "mission_id": "msn_000000000001",
          "mission_seq": 1, "block_id": "sb_alpha", "brain_ref": "repo-a", "seat": "hand",
          "capability": "build-runner", "phase": "judging", "packet_ref": "sha256:p",
          "started_at": "2026-07-09T00:00:00Z", "updated_at": "2026-07-09T00:00:00Z"}
MAIL = {"to": "ada@example.org", "subject": "Re: your request", "body_text": "Tuesday works.\n"}


def loaded(p):
    """The objects the loader mapped while p ran (from LD_DEBUG=files on stderr)."""
    return sorted(set(re.findall(r"\bfile=(\S+)", p.err)))


def heavy(p):
    return [f for f in loaded(p) if any(f.startswith(h) for h in HEAVY)]


def traced(mecha, *args, check=0, env=None, **kw):
    return mecha.run(*args, env={"LD_DEBUG": "files", **(env or {})}, check=check, **kw)


def mail_route(mecha, smtp_url):
    write_config(mecha, f'[outbox]\ntools = ["mail_send"]\n[mail]\nsmtp_url = "{smtp_url}"\n'
                        'from = "Me Myself <me@example.org>"\n')


def stage(mecha):
    return mecha.run("outbox", "stage", "--tool", "mail_send", "--args", json.dumps(MAIL),
                     check=0).out.strip()


def test_the_loader_trace_this_test_reads_names_what_a_verb_maps(mecha):
    # Guards the other tests: if LD_DEBUG said nothing, "nothing heavy" would be vacuous.
    p = traced(mecha, "--version")
    assert any(f.startswith("libc.so") for f in loaded(p)), p.err
    assert any(f.startswith("libjansson") for f in loaded(p)), p.err


def test_local_verbs_never_load_libcurl_or_libical(mecha, smtp_sink):
    mail_route(mecha, smtp_sink.url)  # configured, so nothing is skipped for want of a route
    mecha.write_record(seq=1, values={"purpose": "collaboration"}, free_text=[])
    mecha.write_record(seq=2, state="extracted")
    mission = json.dumps(LETTER)
    staged = traced(mecha, "outbox", "stage", "--tool", "mail_send", "--args", json.dumps(MAIL))
    item = staged.out.strip()
    runs = [
        staged,
        traced(mecha, "--version"),
        traced(mecha, "frontdoor", "list"),
        traced(mecha, "frontdoor", "list", "--json"),
        traced(mecha, "frontdoor", "show", "1"),
        traced(mecha, "frontdoor", "close", "2", "--reason", "not for me"),
        traced(mecha, "mission", "post", "--agent", "agent-a", "--json", input=mission),
        traced(mecha, "mission", "heads"),
        traced(mecha, "mission", "heads", "--json"),
        traced(mecha, "outbox", "list"),
        traced(mecha, "outbox", "show", item),
        traced(mecha, "outbox", "reject", item, "--reason", "not now"),
    ]
    for p in runs:
        assert loaded(p), "no loader trace: the check below would be vacuous"
        assert heavy(p) == [], f"{' '.join(map(str, p.args[1:]))} loaded {heavy(p)}"


def test_libcrypto_is_mapped_only_by_a_verb_that_hashes(mecha):
    mecha.write_record(seq=1, values={"purpose": "collaboration"}, free_text=[])
    for args in (("--version",), ("frontdoor", "list"), ("frontdoor", "show", "1")):
        p = traced(mecha, *args)
        assert loaded(p), "no loader trace: the check below would be vacuous"
        assert not any(f.startswith("libcrypto") for f in loaded(p)), (args, loaded(p))
    # a mission post names its letter by SHA-256: libcrypto, on first use, and the id
    p = traced(mecha, "mission", "post", "--agent", "agent-a", "--json", input=json.dumps(LETTER))
    assert any(f.startswith("libcrypto.so") for f in loaded(p)), loaded(p)
    assert re.fullmatch(r"[0-9a-f]{12}", json.loads(p.out)["letter_id"]), p.out


def test_outbox_approve_loads_libcurl_and_delivers(mecha, smtp_sink):
    mail_route(mecha, smtp_sink.url)
    item = stage(mecha)
    p = traced(mecha, "outbox", "approve", item)
    assert any(f.startswith("libcurl.so") for f in loaded(p)), loaded(p)
    assert not any(f.startswith("libical") for f in loaded(p)), "a mail needs no calendar"
    [msg] = smtp_sink.messages()
    assert msg["Subject"] == "Re: your request"
    assert json.loads((mecha.home / "outbox" / f"{item}.json").read_text())["status"] == "sent"


def test_calendar_free_busy_loads_libical_and_reads_the_calendar(mecha):
    write_config(mecha, f'[calendar]\npath = "{ROOT / "tests/fixtures/calendar/weekly.ics"}"\n'
                        'timezone = "Europe/Berlin"\n')
    p = traced(mecha, "calendar", "free-busy", *WINDOW, "--json")
    assert any(f.startswith("libical.so") for f in loaded(p)), loaded(p)
    assert not any(f.startswith("libcurl") for f in loaded(p)), "a calendar needs no network"
    busy = json.loads(p.out)["busy"]
    assert busy[0] == {"start": "2026-10-05T07:30:00Z", "end": "2026-10-05T08:00:00Z"}


def test_approve_without_libcurl_names_the_package_and_sends_nothing(mecha, smtp_sink):
    mail_route(mecha, smtp_sink.url)
    item = stage(mecha)
    path = mecha.home / "outbox" / f"{item}.json"
    p = mecha.run("outbox", "approve", item, env={"MECHA_DL_MISSING": "curl"}, check=1)
    assert "libcurl.so.4" in p.err and "libcurl4" in p.err, p.err
    assert "bug" not in p.err and "Aborted" not in p.err
    after = json.loads(path.read_text())
    assert after["status"] == "pending" and "sending_since" not in after
    assert "libcurl4" in after["error"]  # as any failed delivery, recorded on the draft
    assert smtp_sink.raw() == []
    # Installed again, the same draft goes out once.
    mecha.run("outbox", "approve", item, check=0)
    assert len(smtp_sink.raw()) == 1


def test_free_busy_without_libical_names_the_package_and_never_says_free(mecha):
    write_config(mecha, f'[calendar]\npath = "{ROOT / "tests/fixtures/calendar/weekly.ics"}"\n')
    p = mecha.run("calendar", "free-busy", *WINDOW, env={"MECHA_DL_MISSING": "ical"}, check=1)
    assert "libical.so.3" in p.err and "libical3" in p.err, p.err
    assert p.out == ""
    p = mecha.run("calendar", "free-busy", *WINDOW, "--json", env={"MECHA_DL_MISSING": "ical"},
                  check=1)
    out = json.loads(p.out)
    assert out["ok"] is False and out["error"] == "missing_library" and "busy" not in out


def test_a_missing_libcurl_does_not_stop_the_local_verbs(mecha):
    mecha.write_record(seq=1)
    env = {"MECHA_DL_MISSING": "curl,ical"}
    mecha.run("frontdoor", "list", env=env, check=0)
    mecha.run("frontdoor", "show", "1", env=env, check=0)
    mecha.run("mission", "post", "--agent", "a", input=json.dumps(LETTER), env=env, check=0)


def test_only_the_review_screen_maps_ncurses():
    """`mecha review` runs mecha-review, the one program linked with ncurses."""
    import pathlib
    review = pathlib.Path(BIN).with_name("mecha-review")
    needed = subprocess.run(["ldd", str(review)], capture_output=True, text=True).stdout
    assert "libncursesw" in needed
    assert "libncurses" not in subprocess.run(["ldd", BIN], capture_output=True, text=True).stdout
