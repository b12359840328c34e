"""Errors that keep the promise: every verb that takes --json prints the failure
document {"ok": false, "error": CODE, "message": MSG} on stdout on every failure
path — here, for each such verb, a usage mistake and a home that is not there (or,
for the few that read no home, another failure they can meet); a home that is not
there is an error naming it and `mecha init` for every verb but init (and doctor,
which reports it); and a misspelt command, verb, option or config key is one line
with "did you mean …" and a pointer to --help."""
import json
import re

import pytest

from conftest import ROOT, write_config

NOW = "2026-10-22T08:00:00Z"

# Every verb `--help` says takes --json, with arguments that pass its parser.
HOME_VERBS = [
    ("frontdoor", "list"), ("frontdoor", "show", "1"), ("frontdoor", "extract"),
    ("frontdoor", "triage"), ("frontdoor", "reconcile"), ("frontdoor", "sweep"),
    ("frontdoor", "needs-info", "1"), ("frontdoor", "close", "1", "--reason", "r"),
    ("frontdoor", "decline", "1"),
    ("outbox", "list"), ("outbox", "show", "abcdef"), ("outbox", "approve", "abcdef"),
    ("outbox", "reject", "abcdef", "--reason", "r"),
    ("mission", "post", "--agent", "a"), ("mission", "new", "--block", "b", "--brain-ref", "r"),
    ("mission", "heads"), ("mission", "log", "msn_x"), ("mission", "land", "msn_x"),
    ("mission", "archive", "msn_x"), ("blocks", "add", "b", "--title", "t"), ("blocks", "list"),
    ("calendar", "free-busy"),
    ("calendar", "add", "--start", NOW, "--end", "2026-10-22T09:00:00Z", "--attendee", "a@b.org"),
    ("types", "list"), ("types", "show", "meeting"), ("types", "push", "meeting"),
    ("types", "install", str(ROOT / "tests" / "fixtures" / "types" / "meeting.toml")),
    ("slots", "show", "consult"), ("slots", "push", "consult"),
    ("drain",), ("pair", "http://127.0.0.1:9", "K7QM-3XPA-9D2F", "--handle", "ada"),
]


def document(p):
    doc = json.loads(p.out)
    assert doc["ok"] is False and re.fullmatch(r"[a-z_]+", doc["error"]), doc
    assert doc["message"] and "\n" not in doc["message"], doc
    assert p.err.startswith("mecha"), p.err
    return doc


def verbs_that_take_json(mecha):
    """(command, verb) for every verb whose --help names --json: the walk below covers them."""
    found = set()
    for line in mecha.run("--help", check=0).out.splitlines():
        m = re.match(r"  ([a-z]+)( \[?VERB\]?)? {2,}", line)
        if not m:
            continue
        if not m.group(2):
            if "--json" in mecha.run(m.group(1), "--help", check=0).out:
                found.add((m.group(1),))
            continue
        for verb in re.findall(r"^  ([a-z-]+) {2,}\S", mecha.run(m.group(1), "--help").out, re.M):
            if "--json" in mecha.run(m.group(1), verb, "--help").out:
                found.add((m.group(1), verb))
    return found


def test_the_walk_covers_every_verb_that_takes_json(mecha):
    walked = {v[:1] if v[0] in ("drain", "pair", "doctor") else v[:2] for v in HOME_VERBS}
    walked |= {("types", "check"), ("doctor",), ("box", "owner"), ("box", "pair"), ("box", "sweep")}
    assert verbs_that_take_json(mecha) <= walked


@pytest.mark.parametrize("verb", HOME_VERBS, ids=" ".join)
def test_a_usage_mistake_is_the_document_on_stdout(mecha, verb):
    p = mecha.run(*verb, "--json", "--no-such-option", input="", check=2)
    assert document(p)["error"] == "usage"
    assert "see 'mecha " in p.err and len(p.err.splitlines()) == 1


@pytest.mark.parametrize("verb", HOME_VERBS, ids=" ".join)
def test_a_home_that_is_not_there_is_the_document_naming_it_and_init(mecha, verb):
    gone = mecha.tmp / "no-such-home"
    p = mecha.run(*verb, "--json", input="{}", env={"MECHA_HOME": str(gone)}, check=1)
    doc = document(p)
    assert doc["error"] == "not_found", doc
    assert str(gone) in doc["message"] and "mecha init" in doc["message"], doc
    assert not gone.exists()


@pytest.mark.parametrize("verb", HOME_VERBS, ids=" ".join)
def test_a_broken_config_is_the_document_with_its_line(mecha, verb):
    write_config(mecha, 'default_provider = "x"\n[mail]\nfrm = "me@example.org"\n')
    p = mecha.run(*verb, "--json", input="{}", check=1)
    doc = document(p)
    assert doc["error"] == "config", doc
    assert "config.toml:3: unknown key 'frm' in [mail]; did you mean 'from'?" in doc["message"]


def test_the_verbs_that_read_no_home_keep_it_too(mecha, tmp_path):
    # types check answers per file, as its --help says: the failure is in the file's row
    p = mecha.run("types", "check", tmp_path / "gone.toml", "--json", check=1)
    assert json.loads(p.out)[0]["ok"] is False and "no such file" in p.out
    afile = tmp_path / "a-file"
    afile.write_text("")
    for verb in (("box", "owner", "add", "ada"), ("box", "sweep"), ("box", "pair", "--owner", "ada")):
        p = mecha.run(*verb, "--data", afile, "--json", check=1)
        assert document(p)["error"] in ("io", "config", "ledger"), verb
        p = mecha.run(*verb, "--data", tmp_path / "d", "--json", "--no-such", check=2)
        assert document(p)["error"] == "usage", verb
    p = mecha.run("box", "owner", "add", "NOT A HANDLE", "--data", tmp_path / "d", "--json",
                  check=2)
    assert document(p)["error"] == "usage"


def test_init_makes_the_home_that_is_not_there_and_doctor_reports_it(mecha):
    gone = mecha.tmp / "new-home"
    env = {"MECHA_HOME": str(gone)}
    p = mecha.run("doctor", "--json", "--offline", env=env, check=1)
    assert not gone.exists()
    mecha.run("init", env=env, check=0)
    assert gone.is_dir()
    assert mecha.run("frontdoor", "list", "--json", env=env, check=0).out.strip() == "[]"


def test_without_json_a_missing_home_is_one_line_on_stderr(mecha):
    gone = mecha.tmp / "typo"
    p = mecha.run("frontdoor", "list", env={"MECHA_HOME": str(gone)}, check=1)
    assert p.out == ""
    assert p.err == (f"mecha: MECHA_HOME {gone} is not a mecha home (no such directory): make one "
                     "with `mecha init`, or correct MECHA_HOME\n")


@pytest.mark.parametrize("args,said", [
    (("frontdor", "list"), "unknown command 'frontdor'; did you mean 'frontdoor'? (see 'mecha --help')"),
    (("frontdoor", "lsit"), "frontdoor has no verb 'lsit'; did you mean 'list'? "
                            "(see 'mecha frontdoor --help')"),
    (("outbox", "aprove"), "outbox has no verb 'aprove'; did you mean 'approve'?"),
    (("frontdoor", "list", "--sate", "x"), "unknown option '--sate'; did you mean '--state'? "
                                           "(see 'mecha frontdoor list --help')"),
    (("drain", "--jsno"), "unknown option '--jsno'; did you mean '--json'?"),
    (("zzzzzz",), "unknown command 'zzzzzz' (see 'mecha --help')"),
])
def test_a_misspelling_is_one_line_with_the_nearest_word(mecha, args, said):
    p = mecha.run(*args, check=2)
    assert said in p.err and len(p.err.splitlines()) == 1, p.err


def test_a_misspelt_config_key_or_table_names_the_nearest(mecha):
    write_config(mecha, "[calender]\n")
    p = mecha.run("frontdoor", "list", check=1)
    assert "config.toml:1: unknown table [calender]; did you mean [calendar]?" in p.err
    write_config(mecha, 'defualt_provider = "x"\n')
    p = mecha.run("frontdoor", "list", check=1)
    assert "unknown key 'defualt_provider' in the top level; did you mean 'default_provider'?" \
        in p.err
    write_config(mecha, 'wholly_unknown_thing = 1\n')
    assert "did you mean" not in mecha.run("frontdoor", "list", check=1).err
