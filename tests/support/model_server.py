#!/usr/bin/python3
"""A scripted model server on loopback, for tests.

It speaks both wire formats mecha uses -- OpenAI chat completions
(POST .../chat/completions) and Anthropic messages (POST .../v1/messages) --
and answers each request with the next entry of a script, or with a default
reply once the script has run out. Every request it receives is appended to a
JSONL log *before* it is answered (so a request whose reply is dropped or
times out is still on record), with the API key values replaced by their
SHA-256: a test can check which key was sent without the key being written
anywhere.

Usage:
    model_server.py [--port N] [--port-file PATH] [--log PATH]
                    [--script PATH] [--default JSON]

The port is printed on stdout (one line) and, with --port-file, written to
that file atomically once the server is listening. The server exits when the
process that started it goes away.

A script is a JSON list; each entry is an object. Keys (combine freely):
    text: "..."            the reply text (default "")
    json: VALUE            the reply text is VALUE as compact JSON
    fenced: VALUE          the reply text is VALUE as JSON inside prose and a ```json fence
    refusal: "..."         a refusal (OpenAI: message.refusal; Anthropic:
                           stop_reason "refusal" with stop_details); "category" sets its category
    content_filter: true   OpenAI finish_reason "content_filter" (Anthropic: a refusal)
    truncate: true         the token budget ran out (finish_reason "length" / stop_reason
                           "max_tokens"), with "text" as far as it got (default "")
    tool_calls: [{"name": N, "arguments": OBJECT-or-STRING, "id": optional}]
    stop: "..."            overrides the wire's finish/stop reason word
    delay_ms: N            wait before answering
    status: N              answer with this HTTP status; "body" (string or JSON) as the body
    raw: "..."             answer 200 with exactly these bytes as the body
    drop: true             close the connection without answering

GET .../models (either wire's models list) answers one model, "test-model",
without touching the script; it is logged with "method": "GET".

Control (not recorded): POST /_control/script (a JSON list replaces the
script), POST /_control/default (an entry becomes the default reply),
GET /_control/requests (the log as a JSON list).
"""
import argparse
import hashlib
import http.server
import json
import os
import socket
import sys
import threading
import time

DEFAULT_REPLY = {
    "text": json.dumps({
        "reading": "the scripted model server's default reply",
        "topic": "scripted reply",
        "urgency_claimed": "none",
        "dates_mentioned": [],
        "institution": "",
        "reads_like_instructions": False,
    })
}

SECRET_HEADERS = ("authorization", "x-api-key", "api-key")


class State:
    def __init__(self, log_path, script, default):
        self.lock = threading.Lock()
        self.log_path = log_path
        self.script = list(script)
        self.default = default
        self.records = []

    def next_entry(self):
        with self.lock:
            if self.script:
                return self.script.pop(0)
            return self.default

    def record(self, rec):
        with self.lock:
            rec["n"] = len(self.records)
            self.records.append(rec)
            if self.log_path:
                with open(self.log_path, "a", encoding="utf-8") as f:
                    f.write(json.dumps(rec) + "\n")


def redact(name, value):
    """The header as recorded: a key's value becomes its SHA-256."""
    if name.lower() not in SECRET_HEADERS:
        return value
    scheme = ""
    secret = value
    if name.lower() == "authorization" and " " in value:
        scheme, secret = value.split(" ", 1)
        scheme += " "
    digest = hashlib.sha256(secret.encode("utf-8", "surrogateescape")).hexdigest()
    return f"{scheme}<redacted sha256:{digest}>"


def wire_of(path):
    p = path.split("?", 1)[0].rstrip("/")
    if p.endswith("/chat/completions"):
        return "openai"
    if p.endswith("/messages"):
        return "anthropic"
    return None


def reply_text(entry):
    if "fenced" in entry:
        return ("Here is the extraction you asked for:\n\n```json\n"
                + json.dumps(entry["fenced"], indent=2) + "\n```\n")
    if "json" in entry:
        return json.dumps(entry["json"])
    return entry.get("text", "")


def call_list(entry):
    calls = []
    for i, c in enumerate(entry.get("tool_calls") or []):
        calls.append({
            "id": c.get("id", f"call_{i}_{int(time.time() * 1000) % 100000}"),
            "name": c["name"],
            "arguments": c.get("arguments", {}),
        })
    return calls


def openai_body(entry, model):
    text = reply_text(entry)
    calls = call_list(entry)
    message = {"role": "assistant", "content": text, "refusal": None}
    finish = "stop"
    if calls:
        message["tool_calls"] = [{
            "id": c["id"], "type": "function",
            "function": {
                "name": c["name"],
                "arguments": c["arguments"] if isinstance(c["arguments"], str)
                else json.dumps(c["arguments"]),
            },
        } for c in calls]
        finish = "tool_calls"
        if not text:
            message["content"] = None
    if "refusal" in entry:
        message["content"] = None
        message["refusal"] = entry["refusal"]
    if entry.get("content_filter"):
        finish = "content_filter"
    if entry.get("truncate"):
        finish = "length"
    finish = entry.get("stop", finish)
    return {
        "id": "chatcmpl-scripted", "object": "chat.completion",
        "created": int(time.time()), "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    }


def anthropic_body(entry, model):
    text = reply_text(entry)
    content = [{"type": "text", "text": text}] if text else []
    stop = "end_turn"
    body = {"id": "msg_scripted", "type": "message", "role": "assistant", "model": model}
    for c in call_list(entry):
        args = c["arguments"]
        if isinstance(args, str):
            try:
                args = json.loads(args)
            except ValueError:
                pass  # sent as the string: a malformed input the client must survive
        content.append({"type": "tool_use", "id": c["id"], "name": c["name"], "input": args})
        stop = "tool_use"
    if "refusal" in entry or entry.get("content_filter"):
        stop = "refusal"
        content = []
        body["stop_details"] = {"type": "refusal", "category": entry.get("category"),
                                "explanation": entry.get("refusal")}
    if entry.get("truncate"):
        stop = "max_tokens"
    body.update({"content": content, "stop_reason": entry.get("stop", stop),
                 "stop_sequence": None,
                 "usage": {"input_tokens": 10, "output_tokens": 5}})
    return body


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "mecha-model-server"

    def log_message(self, fmt, *args):  # the log is the JSONL file, not stderr
        pass

    def read_body(self):
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n else b""

    def send(self, status, body, ctype="application/json"):
        data = body if isinstance(body, bytes) else body.encode("utf-8")
        try:
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True  # the client gave up (a timeout test)

    def do_GET(self):
        st = self.server.state
        if self.path.startswith("/_control/requests"):
            with st.lock:
                self.send(200, json.dumps(st.records))
            return
        if self.path.split("?", 1)[0].rstrip("/").endswith("/models"):
            # The models list both wires publish: what a reachability check asks
            # for. Logged like a completion, answered without using the script.
            st.record({"method": "GET", "path": self.path, "wire": None,
                       "headers": {k.lower(): redact(k, v) for k, v in self.headers.items()},
                       "received_at": time.time()})
            return self.send(200, json.dumps({"object": "list", "data": [
                {"id": "test-model", "object": "model", "type": "model"}], "has_more": False}))
        self.send(404, json.dumps({"error": {"message": "not found"}}))

    def control(self, raw):
        st = self.server.state
        value = json.loads(raw or b"null")
        with st.lock:
            if self.path.startswith("/_control/script"):
                st.script = list(value)
            elif self.path.startswith("/_control/default"):
                st.default = value
            else:
                return self.send(404, "{}")
        self.send(200, "{}")

    def do_POST(self):
        raw = self.read_body()
        if self.path.startswith("/_control/"):
            return self.control(raw)
        st = self.server.state
        wire = wire_of(self.path)
        rec = {
            "method": "POST", "path": self.path, "wire": wire,
            "headers": {k.lower(): redact(k, v) for k, v in self.headers.items()},
            "received_at": time.time(),
        }
        try:
            rec["body"] = json.loads(raw)
        except ValueError:
            rec["body"] = None
            rec["body_raw"] = raw.decode("utf-8", "replace")
        st.record(rec)
        if wire is None:
            return self.send(404, json.dumps({"error": {"message": f"no route {self.path}"}}))
        self.answer(st.next_entry(), wire, rec["body"])

    def answer(self, entry, wire, body):
        if entry.get("delay_ms"):
            time.sleep(entry["delay_ms"] / 1000.0)
        if entry.get("drop"):
            self.close_connection = True
            try:
                self.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            return
        if "status" in entry:
            b = entry.get("body", {"error": {"type": "scripted_error",
                                              "message": "the script said so"}})
            return self.send(entry["status"], b if isinstance(b, str) else json.dumps(b))
        if "raw" in entry:
            return self.send(200, entry["raw"])
        model = body.get("model", "scripted") if isinstance(body, dict) else "scripted"
        reply = openai_body(entry, model) if wire == "openai" else anthropic_body(entry, model)
        self.send(200, json.dumps(reply))


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128
    allow_reuse_address = True


def main():
    ap = argparse.ArgumentParser(description="scripted model server for mecha's tests")
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--port-file")
    ap.add_argument("--log")
    ap.add_argument("--script", help="a JSON file holding a list of entries")
    ap.add_argument("--default", help="a JSON entry used once the script has run out")
    a = ap.parse_args()

    script = []
    if a.script:
        with open(a.script, encoding="utf-8") as f:
            script = json.load(f)
    default = json.loads(a.default) if a.default else DEFAULT_REPLY
    srv = Server(("127.0.0.1", a.port), Handler)
    srv.state = State(a.log, script, default)
    port = srv.server_address[1]
    if a.port_file:
        tmp = a.port_file + ".tmp"
        with open(tmp, "w") as f:
            f.write(f"{port}\n")
        os.replace(tmp, a.port_file)
    print(port, flush=True)
    # A test server never outlives what started it (a crashed test, a killed run).
    parent = os.getppid()

    def watch_parent():
        while True:
            time.sleep(0.2)
            if os.getppid() != parent:
                os._exit(0)

    threading.Thread(target=watch_parent, daemon=True).start()
    try:
        srv.serve_forever(poll_interval=0.1)
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
