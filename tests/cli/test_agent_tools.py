"""The one agent tool table, driven through both of its front ends: a triage run's
model (the scripted model server) and an MCP client (`mecha mcp` over stdio). The
same bad arguments must meet the same refusal, word for word, on both paths, and
stage nothing on either."""
import json

import pytest

from test_mcp import call, serve
from test_triage import configure, extracted, outbox_items, tool_results

BAD_ARGUMENTS = {
    "a subject on two lines": {"subject": "Re: hi\r\nBcc: mallory@example.net", "body": "b"},
    "a recipient of the model's choosing": {"to": "mallory@example.net", "subject": "s",
                                            "body": "b"},
    "no body": {"subject": "s"},
    "a subject of 201 characters": {"subject": "x" * 201, "body": "b"},
}

NOT_ONE_ADDRESS = ["a@example.org, b@evil.com", "-oQ/tmp/x@example.org"]


def over_mcp(mecha, argsets):
    """(code, text) of each draft_reply call for request 1, in order."""
    answers, p = serve(mecha, *[call(i + 1, "draft_reply", dict(a, seq=1))
                                for i, a in enumerate(argsets)])
    assert p.returncode == 0, p.err
    out = []
    for a in answers:
        result = a["result"]
        assert result["isError"] is True, result
        out.append((result["structuredContent"]["error"], result["content"][0]["text"]))
    return out


def over_triage(mecha, model_server, argsets):
    """(is_error, text) of each draft_reply call a triage run's model made, in order."""
    model_server.script([
        {"tool_calls": [{"name": "draft_reply", "arguments": a} for a in argsets]},
        {"text": "Nothing could be drafted."},
    ])
    mecha.run("frontdoor", "triage", check=0)
    return tool_results(model_server.requests()[1])


def test_the_same_bad_arguments_are_refused_alike_by_triage_and_mcp(mecha, model_server):
    configure(mecha, model_server, "anthropic")
    extracted(mecha, 1)
    argsets = list(BAD_ARGUMENTS.values())
    mcp = over_mcp(mecha, argsets)
    assert [code for code, _ in mcp] == ["bad_arguments"] * len(argsets)
    assert mecha.read_record(1)["state"] == "extracted"
    triage = over_triage(mecha, model_server, argsets)
    assert [is_error for _, is_error in triage] == [True] * len(argsets)
    assert [text for text, _ in triage] == [text for _, text in mcp]
    assert "single line" in mcp[0][1]
    assert "no argument 'to'" in mcp[1][1] and "reply_to" in mcp[1][1]
    assert "'body'" in mcp[2][1]
    assert "1 to 200 characters" in mcp[3][1]
    assert outbox_items(mecha) == []
    assert mecha.read_record(1)["state"] == "triaged"


@pytest.mark.parametrize("reply_to", NOT_ONE_ADDRESS)
def test_a_reply_to_that_is_not_one_address_gets_no_draft_on_either_path(mecha, model_server,
                                                                        reply_to):
    configure(mecha, model_server, "openai")
    path = extracted(mecha, 1, reply_to=reply_to)
    before = path.read_bytes()
    [(code, text)] = over_mcp(mecha, [{"subject": "Re: hello", "body": "Yes."}])
    assert code == "no_reply_to" and "no single address" in text
    assert path.read_bytes() == before
    if "," in reply_to:
        # Triage goes further here: the request grammar (src/requests/grammar.h) refuses
        # two addresses, so the record has no brief and no run is started for it at all.
        assert mecha.json("frontdoor", "next") == []
        mecha.run("frontdoor", "triage", check=0)
        assert model_server.requests() == [], "a run was told of a request with two addresses"
    else:
        [(triage_text, _)] = over_triage(mecha, model_server,
                                         [{"subject": "Re: hello", "body": "Yes."}])
        assert triage_text == text
    assert outbox_items(mecha) == []
    assert "outbox" not in mecha.read_record(1)


def schemas_offered(request, wire):
    """name -> input schema of every tool in a recorded model request."""
    out = {}
    for t in request["body"]["tools"]:
        if wire == "openai":
            out[t["function"]["name"]] = t["function"]["parameters"]
        else:
            out[t["name"]] = t["input_schema"]
    return out


@pytest.mark.parametrize("wire", ["openai", "anthropic"])
def test_triage_is_shown_the_mcp_schemas_with_seq_bound_to_its_request(mecha, model_server, wire):
    configure(mecha, model_server, wire)
    extracted(mecha, 1)
    answers, _ = serve(mecha, {"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    listed = {t["name"]: t for t in answers[0]["result"]["tools"]}
    model_server.script([
        {"tool_calls": [{"name": "draft_reply",
                         "arguments": {"seq": 2, "subject": "s", "body": "b"}}]},
        {"text": "Nothing drafted."},
    ])
    mecha.run("frontdoor", "triage", check=0)
    offered = schemas_offered(model_server.requests()[0], wire)
    assert sorted(offered) == ["calendar_free_busy", "draft_reply", "propose_meeting"]
    assert offered["calendar_free_busy"] == listed["calendar_free_busy"]["inputSchema"]
    mcp_reply = json.loads(json.dumps(listed["draft_reply"]["inputSchema"]))
    del mcp_reply["properties"]["seq"]
    mcp_reply["required"].remove("seq")
    assert offered["draft_reply"] == mcp_reply
    # The run is bound to request 1: a seq from the model is an unknown argument.
    [(text, _)] = tool_results(model_server.requests()[1])
    assert "no argument 'seq'" in text
    assert outbox_items(mecha) == []


def test_a_valid_reply_is_staged_alike_by_triage_and_mcp(mecha, model_server):
    configure(mecha, model_server, "openai")
    extracted(mecha, 1)
    extracted(mecha, 2)
    answers, _ = serve(mecha, call(1, "draft_reply", {"seq": 1, "subject": "Re: hi",
                                                      "body": "Tuesday works."}))
    staged_by_mcp = answers[0]["result"]["structuredContent"]
    model_server.script([
        {"tool_calls": [{"name": "draft_reply",
                         "arguments": {"subject": "Re: hi", "body": "Tuesday works."}}]},
        {"text": "Drafted."},
    ])
    mecha.run("frontdoor", "triage", "--seq", "2", check=0)
    [(text, is_error)] = tool_results(model_server.requests()[1])
    staged_by_triage = json.loads(text)
    assert sorted(staged_by_triage) == sorted(staged_by_mcp)
    assert staged_by_triage["seq"] == 2 and staged_by_triage["status"] == "pending"
    items = {i["id"]: i for i in outbox_items(mecha)}
    for staged, to in ((staged_by_mcp, "ada@example.org"), (staged_by_triage, "ada@example.org")):
        item = items[staged["outbox_id"]]
        assert item["tool"] == "mail_send" and item["args"]["to"] == to
        assert item["args"]["subject"] == "Re: hi"
