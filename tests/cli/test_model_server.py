"""The scripted model server itself: the fixture other tests lean on must
answer as scripted in both wire formats and record exactly what it received."""
import hashlib
import json
import socket
import time
import urllib.error
import urllib.request

import pytest

OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def post(url, body, headers=None, timeout=10):
    req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                 headers={"Content-Type": "application/json", **(headers or {})})
    with OPENER.open(req, timeout=timeout) as r:
        return json.loads(r.read())


def chat(server, **kw):
    return post(server.base_url("openai") + "/chat/completions",
                {"model": "m", "messages": [{"role": "user", "content": "hi"}]}, **kw)


def messages(server, **kw):
    return post(server.base_url("anthropic") + "/v1/messages",
                {"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": "hi"}]},
                **kw)


def test_replies_follow_the_script_then_the_default(model_server):
    model_server.script([{"text": "one"}, {"fenced": {"a": 1}}])
    assert chat(model_server)["choices"][0]["message"]["content"] == "one"
    fenced = messages(model_server)["content"][0]["text"]
    assert "```json" in fenced and '"a": 1' in fenced
    default = json.loads(chat(model_server)["choices"][0]["message"]["content"])
    assert list(default)[0] == "reading"
    model_server.default({"text": "again"})
    assert messages(model_server)["content"][0]["text"] == "again"


def test_refusal_truncation_and_tool_calls_in_both_formats(model_server):
    model_server.script([
        {"refusal": "no", "category": "cyber"}, {"refusal": "no", "category": "cyber"},
        {"truncate": True}, {"truncate": True},
        {"tool_calls": [{"id": "c1", "name": "f", "arguments": {"x": 1}}]},
        {"tool_calls": [{"id": "c1", "name": "f", "arguments": {"x": 1}}]},
    ])
    o = chat(model_server)["choices"][0]
    a = messages(model_server)
    assert o["message"]["refusal"] == "no" and o["message"]["content"] is None
    assert a["stop_reason"] == "refusal" and a["stop_details"]["category"] == "cyber"
    assert chat(model_server)["choices"][0]["finish_reason"] == "length"
    assert messages(model_server)["stop_reason"] == "max_tokens"
    o = chat(model_server)["choices"][0]
    assert o["finish_reason"] == "tool_calls"
    assert json.loads(o["message"]["tool_calls"][0]["function"]["arguments"]) == {"x": 1}
    a = messages(model_server)
    assert a["stop_reason"] == "tool_use"
    assert a["content"][0] == {"type": "tool_use", "id": "c1", "name": "f", "input": {"x": 1}}


def test_errors_delays_and_dropped_connections(model_server):
    model_server.script([{"status": 503, "body": "busy"}, {"delay_ms": 300, "text": "late"},
                         {"drop": True}])
    with pytest.raises(urllib.error.HTTPError) as e:
        chat(model_server)
    assert e.value.code == 503 and e.value.read() == b"busy"
    t0 = time.time()
    assert chat(model_server)["choices"][0]["message"]["content"] == "late"
    assert time.time() - t0 >= 0.3
    with pytest.raises((urllib.error.URLError, ConnectionError, socket.error)):
        chat(model_server)


def test_every_request_is_recorded_with_keys_hashed_not_stored(model_server):
    chat(model_server, headers={"Authorization": "Bearer sk-secret"})
    messages(model_server, headers={"x-api-key": "sk-other", "anthropic-version": "2023-06-01"})
    reqs = model_server.requests()
    assert [r["wire"] for r in reqs] == ["openai", "anthropic"]
    assert reqs[0]["path"] == "/v1/chat/completions"
    assert reqs[0]["body"]["messages"] == [{"role": "user", "content": "hi"}]
    digest = hashlib.sha256(b"sk-secret").hexdigest()
    assert reqs[0]["headers"]["authorization"] == f"Bearer <redacted sha256:{digest}>"
    assert reqs[1]["headers"]["anthropic-version"] == "2023-06-01"
    log = model_server.log.read_text()
    assert "sk-secret" not in log and "sk-other" not in log
