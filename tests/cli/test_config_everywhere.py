"""A broken config.toml stops every verb that reads a home, and every MCP tool.

Before, `frontdoor list/next/show`, `mission heads`, `blocks list` and the MCP
tool frontdoor_next ran on as if the file were fine while `outbox`, `extract`
and `reconcile` stopped. Now the configuration is read, strictly and checked
for meaning, before any store of a home is opened: each bad file below, on
each verb, is exit 1 with the file and the line, and over MCP a tool result
with isError and the same text. Nothing in the home is created or changed.
"""
import json

import pytest

from conftest import write_config
from test_mcp import call, serve

BOM = "\ufeff"

# (what is wrong, the file, what the message must say after "config.toml")
BAD_FILES = [
    ("not TOML", "garbage line\n", ":1: "),
    ("a byte-order mark", BOM + '[mail]\nfrom = "me@example.org"\n',
     ":1: starts with a UTF-8 byte-order mark; save it without one"),
    ("an unknown key", '[mail]\nfrom = "me@example.org"\nport = 25\n',
     ":3: unknown key 'port' in [mail]"),
    ("a from that is not an address", '[mail]\nfrom = "not an address"\n',
     ':2: from "not an address" is not an e-mail address'),
    ("an smtp_url that is not SMTP", '[mail]\nsmtp_url = "http://mail.example.org"\n',
     ':2: smtp_url "http://mail.example.org" is not an smtp:// or smtps:// URL'),
    ("a base_url that is not HTTP",
     '[providers.local]\nkind = "openai"\nbase_url = "ftp://127.0.0.1/v1"\n',
     ':3: base_url "ftp://127.0.0.1/v1" is not an http:// or https:// URL'),
    ("a key variable that cannot be a name",
     '[providers.local]\nkind = "openai"\napi_key_env = "sk-live-123"\n',
     ':3: "sk-live-123" is not the name of an environment variable'),
    ("a provider that is not there", 'default_provider = "local"\n',
     ":1: default_provider names the provider 'local', but there is no [providers.local] table"),
]

# Every verb that reads a home, with arguments that get it past its usage checks.
VERBS = [
    ("frontdoor",), ("frontdoor", "list"), ("frontdoor", "list", "--json"),
    ("frontdoor", "show", "1"), ("frontdoor", "next"), ("frontdoor", "extract"),
    ("frontdoor", "triage"), ("frontdoor", "needs-info", "1"),
    ("frontdoor", "close", "1", "--reason", "done"), ("frontdoor", "reconcile"),
    ("frontdoor", "sweep"), ("frontdoor", "sweep", "--dry-run"),
    ("outbox",), ("outbox", "list"), ("outbox", "show", "20260101T000000-00000000"),
    ("outbox", "stage", "--tool", "mail_send", "--args", '{"to": "a@example.org"}'),
    ("outbox", "approve", "--all", "-y"), ("outbox", "reject", "--all", "--reason", "no"),
    ("outbox", "edit", "20260101T000000-00000000"), ("outbox", "review"),
    ("mission", "heads"), ("mission", "log", "msn_000000000000"),
    ("mission", "post", "--agent", "a1", "-"),
    ("mission", "new", "--block", "sb_a", "--brain-ref", "repo-a"),
    ("mission", "land", "msn_000000000000"), ("mission", "archive", "msn_000000000000"),
    ("blocks", "list"), ("blocks", "add", "sb_a", "--title", "A"),
    ("calendar",), ("calendar", "free-busy"),
    ("calendar", "add", "--start", "2026-09-14T10:00:00Z", "--end", "2026-09-14T11:00:00Z",
     "--attendee", "ada@example.org"),
    ("calendar", "remove", "uid-1"),
    ("types", "list"), ("types", "show", "meeting"), ("types", "schema", "meeting"),
    ("types", "validate", "meeting"),
]


def snapshot(root):
    return sorted((str(p.relative_to(root)), p.stat().st_mode, p.read_bytes() if p.is_file()
                   else None) for p in root.rglob("*"))


@pytest.mark.parametrize("what,text,want", BAD_FILES, ids=[b[0] for b in BAD_FILES])
def test_each_bad_config_stops_every_verb_with_its_file_and_line(mecha, what, text, want):
    path = write_config(mecha, text)
    before = snapshot(mecha.home)
    for verb in VERBS:
        p = mecha.run(*verb, input="{}")
        assert p.returncode == 1, (what, verb, p.returncode, p.err)
        assert f"{path}{want}" in p.err, (what, verb, p.err)
    assert snapshot(mecha.home) == before, f"{what}: a verb changed the home"


TOOL_CALLS = [
    ("frontdoor_next", {}),
    ("draft_reply", {"seq": 1, "subject": "Re: hello", "body": "Tuesday works."}),
    ("calendar_free_busy", {"from": "2026-09-14T00:00:00Z", "to": "2026-09-15T00:00:00Z"}),
    ("mission_post", {"agent_id": "a1", "letter": {}}),
    ("mission_heads", {}),
    ("mission_log", {"mission_id": "msn_000000000000"}),
]


@pytest.mark.parametrize("what,text,want", BAD_FILES, ids=[b[0] for b in BAD_FILES])
def test_each_bad_config_is_a_tool_error_for_every_mcp_tool(mecha, what, text, want):
    path = write_config(mecha, text)
    calls = [call(i + 1, name, args) for i, (name, args) in enumerate(TOOL_CALLS)]
    answers, p = serve(mecha, *calls)
    assert p.returncode == 0, p.err
    assert len(answers) == len(TOOL_CALLS)
    for (name, _), a in zip(TOOL_CALLS, answers):
        result = a["result"]
        assert result.get("isError") is True, (what, name, result)
        text_out = " ".join(c["text"] for c in result["content"])
        # An agent is never shown a path of the owner's machine (docs/security.md).
        assert f"$MECHA_HOME/config.toml{want}" in text_out, (what, name, text_out)
        assert str(mecha.home) not in text_out


def test_the_mcp_server_sees_an_edit_between_two_calls(mecha):
    """One long-lived session: a good file answers, the same file broken is a tool error."""
    import subprocess

    from conftest import BIN
    from test_mcp import INIT, INITIALIZED

    path = write_config(mecha, "")
    proc = subprocess.Popen([BIN, "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, env=mecha.env)

    def ask(msg):
        proc.stdin.write((json.dumps(msg) + "\n").encode())
        proc.stdin.flush()
        return json.loads(proc.stdout.readline()) if "id" in msg else None

    try:
        ask(INIT)
        ask(INITIALIZED)
        first = ask(call(1, "frontdoor_next", {}))
        assert not first["result"].get("isError"), first
        path.write_text("garbage line\n")
        second = ask(call(2, "frontdoor_next", {}))
        assert second["result"]["isError"] is True, second
        assert "$MECHA_HOME/config.toml:1: " in second["result"]["content"][0]["text"]
    finally:
        proc.stdin.close()
        proc.wait(timeout=10)
        proc.stdout.close()


def test_a_verb_with_an_explicit_box_does_not_read_the_home(mecha, tmp_path):
    write_config(mecha, "garbage line\n")
    box = tmp_path / "elsewhere.jsonl"
    box.write_text("")
    p = mecha.run("mission", "heads", "--box", box, "--json", check=0)
    assert json.loads(p.out)["missions"] == []


def test_help_and_the_error_table_need_no_configuration(mecha):
    write_config(mecha, "garbage line\n")
    mecha.run("--help", check=0)
    mecha.run("help", "codes", check=0)
    mecha.run("mcp", "--help", check=0)
    mecha.run("types", "check", "--help", check=0)


# -- what a verb needs of this machine, checked before it starts ------------------
def test_a_key_variable_that_is_not_set_stops_only_the_verbs_that_call_a_model(mecha, model_server):
    path = write_config(mecha, model_server.config_toml(api_key_env="TEST_MODEL_KEY"))
    mecha.write_record(1)
    for verb in (("frontdoor", "extract"), ("frontdoor", "triage")):
        p = mecha.run(*verb, check=1)
        assert f"{path}:7: [providers.scripted] api_key_env names TEST_MODEL_KEY, which is not " \
               "set in the environment" in p.err, p.err
    assert model_server.requests() == [], "a model was called without its key"
    assert mecha.read_record(1)["state"] == "drained"
    mecha.run("frontdoor", "list", check=0)
    mecha.run("outbox", "list", check=0)


def test_a_password_variable_that_is_not_set_stops_approve_before_the_draft_is_touched(mecha):
    path = write_config(mecha, '[outbox]\ntools = ["mail_send"]\n[mail]\n'
                        'smtp_url = "smtp://127.0.0.1:9"\nfrom = "me@example.org"\n'
                        'password_env = "TEST_SMTP_PW"\n')
    item = mecha.run("outbox", "stage", "--tool", "mail_send", "--args",
                     json.dumps({"to": "ada@example.org", "subject": "s", "body_text": "b"}),
                     check=0).out.strip()
    stored = (mecha.home / "outbox" / f"{item}.json").read_bytes()
    p = mecha.run("outbox", "approve", item, check=1)
    assert f"{path}:6: [mail] password_env names TEST_SMTP_PW, which is not set" in p.err
    assert (mecha.home / "outbox" / f"{item}.json").read_bytes() == stored
    mecha.run("outbox", "list", check=0)


def test_a_sendmail_that_is_not_a_program_stops_approve(mecha, tmp_path):
    path = write_config(mecha, '[outbox]\ntools = ["mail_send"]\n[mail]\n'
                        f'sendmail = "{tmp_path}/no-such-sendmail -t"\nfrom = "me@example.org"\n')
    item = mecha.run("outbox", "stage", "--tool", "mail_send", "--args",
                     json.dumps({"to": "ada@example.org", "subject": "s", "body_text": "b"}),
                     check=0).out.strip()
    p = mecha.run("outbox", "approve", item, check=1)
    assert f"{path}:4: [mail] sendmail runs '{tmp_path}/no-such-sendmail', which is not a " \
           "program" in p.err


def test_a_calendar_that_is_not_there_stops_the_verbs_that_read_it(mecha, model_server, tmp_path):
    missing = tmp_path / "nowhere.ics"
    path = write_config(mecha, model_server.config_toml() +
                        f'[outbox]\ntools = ["mail_send"]\n[calendar]\npath = "{missing}"\n')
    want = f"{path}:10: [calendar] path names {missing}, which does not exist"
    for verb in (("calendar",), ("frontdoor", "triage"), ("frontdoor", "sweep")):
        p = mecha.run(*verb, check=1)
        assert want in p.err, (verb, p.err)
    answers, _ = serve(mecha, call(1, "calendar_free_busy",
                                   {"from": "2026-09-14T00:00:00Z", "to": "2026-09-15T00:00:00Z"}))
    assert answers[0]["result"]["isError"] is True
    assert ("$MECHA_HOME/config.toml:10: [calendar] path names nowhere.ics, which does not exist"
            in answers[0]["result"]["content"][0]["text"])
    assert model_server.requests() == []
    mecha.run("frontdoor", "list", check=0)


def test_the_rules_extractor_named_as_the_default_provider_extracts_offline(mecha):
    """default_provider = "rules" (and MECHA_PROVIDER=rules) was refused as "it holds
    no conversation" by every verb that calls a model."""
    mecha.write_record(1)
    write_config(mecha, 'default_provider = "rules"\n')
    mecha.run("frontdoor", "extract", check=0)
    assert mecha.read_record(1)["state"] == "extracted"
    mecha.write_record(2)
    write_config(mecha, "")
    mecha.run("frontdoor", "extract", env={"MECHA_PROVIDER": "rules"}, check=0)
    assert mecha.read_record(2)["state"] == "extracted"
