"""The box's limits and hygiene: body limits, the per-address rate limit,
unknown hosts and routes, slow clients, the access log, the sweep, TLS and
box.toml, and what the box binary does not contain or load."""
import json
import re
import shutil
import socket
import subprocess
import time

import pytest

from box_fixture import Box
from conftest import BIN, ROOT

BOX_BIN = str(__import__("pathlib").Path(BIN).parent / "mecha-box")


def test_a_body_over_the_limit_is_413_and_changes_nothing(tmp_path):
    b = Box(tmp_path, body_bytes=1000).start()
    try:
        status, headers, body = b.request("PUT", "/v1/types/meeting", body="x" * 2000,
                                          key="release")
        assert (status, json.loads(body)) == (413, {"error": "payload too large"})
        assert headers["content-type"] == "application/json"
        assert b.json("GET", "/v1/types", key="publish")[1] == {"types": []}
    finally:
        b.stop()


def test_past_the_rate_limit_a_client_gets_429_too_many_requests(tmp_path):
    b = Box(tmp_path, requests_per_minute=5).start()
    try:
        # Windows are aligned to the minute: if one turns during the run, at most
        # twice the limit gets through, and the rest is refused.
        seen = [b.request("GET", "/v1/health")[::2] for _ in range(12)]
        assert seen[0] == (200, seen[0][1]) and [s for s, _ in seen].count(200) <= 10
        refused = [body for s, body in seen if s == 429]
        assert refused and set(refused) == {b"too many requests"}
    finally:
        b.stop()


def test_an_unknown_host_and_an_unknown_route_are_the_same_404(tmp_path):
    b = Box(tmp_path).start()
    try:
        unknown_route = b.request("GET", "/f/ada")
        unknown_host = b.request("GET", "/v1/health", headers={"Host": "evil.example"})
        for status, headers, body in (unknown_route, unknown_host, b.request("GET", "/../etc"),
                                      b.request("GET", "/v1x/health"), b.request("GET", "/")):
            assert (status, body) == (404, b"not found")
            assert headers["content-security-policy"].startswith("default-src 'none'")
    finally:
        b.stop()


def test_every_unknown_v1_path_is_a_json_404_as_the_reference_answers(tmp_path):
    b = Box(tmp_path).start()
    try:
        paths = ["/v1", "/v1/", "/v1/nothing", "/v1/types/", "/v1/queue/ack/more",
                 "/v1/instruments/consult", "/v1/%41", "/v1/../f/ada/meeting",
                 "/v1/health/extra", "/v1/" + "a" * 100]
        for method in ("GET", "POST", "PUT", "DELETE"):
            for path in paths:
                status, headers, body = b.request(method, path, key="drain")
                assert (status, json.loads(body)) == (404, {"error": "no such endpoint"}), path
                assert headers["content-type"] == "application/json"
                assert headers["content-security-policy"].startswith("default-src 'none'")
        # a known path asked the wrong way is JSON too, with its Allow header
        status, headers, body = b.request("DELETE", "/v1/queue")
        assert (status, json.loads(body)) == (405, {"error": "method not allowed"})
        assert headers["allow"] == "GET"
        assert b.request("GET", "/v1/health")[0] == 200
    finally:
        b.stop()


def test_every_response_carries_the_gate_headers(tmp_path):
    b = Box(tmp_path).start()
    try:
        for path in ("/v1/health", "/v1/queue", "/nope"):
            _, h, _ = b.request("GET", path)
            assert h["x-content-type-options"] == "nosniff"
            assert h["referrer-policy"] == "no-referrer"
            assert h["cross-origin-resource-policy"] == "same-origin"
            assert "frame-ancestors 'none'" in h["content-security-policy"]
    finally:
        b.stop()


def _slow_clients(port, count, sources):
    """count sockets to the box that send a partial request and then nothing."""
    socks = []
    for i in range(count):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setblocking(False)
        s.bind((sources(i), 0))
        try:
            s.connect(("127.0.0.1", port))
        except BlockingIOError:
            pass
        socks.append(s)
    time.sleep(0.3)
    for s in socks:
        try:
            s.send(b"GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # never finished
        except OSError:
            pass  # refused by a cap: that is the point
    return socks


@pytest.mark.parametrize("spread", ["from one address", "from a thousand addresses"])
def test_a_thousand_slow_clients_do_not_stop_a_fresh_request(tmp_path, spread):
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < 1200:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 4096), hard))
    b = Box(tmp_path, connections=2048, timeout_s=60).start()
    socks = []
    try:
        if spread == "from one address":
            sources = lambda i: "127.0.0.2"  # noqa: E731
        else:
            sources = lambda i: f"127.0.{1 + i // 250}.{1 + i % 250}"  # noqa: E731
        socks = _slow_clients(b.port, 1000, sources)
        for _ in range(3):
            status, _, body = b.request("GET", "/v1/health", timeout=10)
            assert status == 200 and json.loads(body)["status"] == "ok"
    finally:
        for s in socks:
            s.close()
        b.stop()


def test_the_access_log_has_one_line_per_request_and_no_token(tmp_path):
    b = Box(tmp_path).start()
    try:
        token = "0123456789abcdef" * 2
        b.request("GET", "/v1/queue?since=0", key="drain")
        b.request("GET", f"/f/ada/meeting/c/{token}")
        b.request("GET", f"/s/ada/consult/m/{token}")
        b.request("GET", f"/f/ada/meeting/c/{token}/extra")
    finally:
        b.stop()
    text = b.stderr.read_text()
    for key in [k for k in b.keys.values() if k.startswith("mk_")]:
        assert key.split(".")[1] not in text and key not in text
    assert token not in text
    lines = [x for x in b.log() if "path" in x]
    # One line each; serving threads may finish them in any order.
    assert sorted(x["path"] for x in lines) == sorted(["/v1/queue", "/f/ada/meeting/c/:token",
                                                      "/s/ada/consult/m/:token",
                                                      "/f/ada/meeting/c/:token/extra"])
    for x in lines:
        assert set(x) == {"time", "ip", "method", "path", "status", "bytes", "ms"}
        assert x["ip"] == "127.0.0.1"


@pytest.mark.usefixtures("box_ledger")  # on SQLite and on PostgreSQL
def test_sweep_keeps_an_undrained_queued_row_and_health_reports_it(tmp_path):
    b = Box(tmp_path)
    kept = b.queue({"purpose": "never drained"}, retain_until="2000-01-01T00:00:00Z")
    b.seed("submit", "ada", "meeting", json.dumps({"purpose": "never verified"}),
           "2000-01-01T00:00:00Z")
    b.seed("submit", "ada", "meeting", json.dumps({"purpose": "link still live"}),
           "2999-01-01T00:00:00Z")
    orphan_dir = b.data / "attachments" / ("f" * 32)
    orphan_dir.mkdir(parents=True)
    (orphan_dir / ("e" * 32)).write_bytes(b"left behind")
    import os
    os.utime(orphan_dir / ("e" * 32), (time.time() - 7200, time.time() - 7200))
    report = b.mecha("sweep", "--json", check=0).json()
    assert report["expired_submissions"] == 1 and report["overdue_queued"] == 1
    assert report["orphan_blobs"] == 1 and not (orphan_dir / ("e" * 32)).exists()
    b.start()
    try:
        status, got = b.json("GET", "/v1/queue", key="drain")
        assert [r["seq"] for r in got["records"]] == [kept]
        health = b.json("GET", "/v1/health", key="drain")[1]
        assert health["queued"] == 1 and health["overdue"] == 1
    finally:
        b.stop()
    human = b.mecha("sweep", check=0).out
    assert "kept 1 queued past retention" in human


@pytest.mark.usefixtures("box_ledger")  # on SQLite and on PostgreSQL
def test_submissions_are_counted_by_sends_and_refused_past_the_budget(tmp_path):
    b = Box(tmp_path)
    got = [b.seed("submit", "ada", "meeting", "{}", "2999-01-01T00:00:00Z") for _ in range(4)]
    assert got[3] == "over budget" and all(g.isdigit() for g in got[:3])


def test_box_toml_is_read_strictly(tmp_path):
    b = Box(tmp_path, owner=None)
    b.config.write_text(f'data = "{b.data}"\nlisten = "127.0.0.1:9"\n[limits]\ncolour = 3\n')
    p = b.mecha("owner", "add", "ada")
    assert p.returncode == 1 and f"{b.config}:4: unknown key 'colour' in limits" in p.err
    b.config.write_text(f'data = "{b.data}"\n[tls]\ncert = "{tmp_path}/missing.pem"\n')
    p = b.mecha("serve")
    assert p.returncode == 1 and "[tls] needs both cert and key" in p.err
    b.config.write_text(f'data = "{b.data}"\nlisten = "127.0.0.1:9"\n[tls]\n'
                        f'cert = "{tmp_path}/missing.pem"\nkey = "{tmp_path}/missing.key"\n')
    p = b.mecha("serve")
    assert p.returncode == 1 and "missing.pem" in p.err


def test_the_box_serves_https_with_a_certificate_from_its_config(tmp_path):
    import ssl

    if not shutil.which("openssl"):
        pytest.skip("openssl is not installed")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-subj", "/CN=127.0.0.1", "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True)
    b = Box(tmp_path, extra=f'[tls]\ncert = "{cert}"\nkey = "{key}"').start()
    try:
        import http.client

        ctx = ssl.create_default_context(cafile=str(cert))
        ctx.check_hostname = False
        c = http.client.HTTPSConnection("127.0.0.1", b.port, context=ctx, timeout=10)
        c.request("GET", "/v1/health")
        r = c.getresponse()
        assert r.status == 200 and json.loads(r.read())["status"] == "ok"
        c.close()
    finally:
        b.stop()


def test_the_box_binary_contains_no_frontdoor_outbox_calendar_or_provider_code():
    syms = subprocess.run(["nm", BOX_BIN], stdout=subprocess.PIPE, check=True).stdout.decode()
    names = {line.split()[-1] for line in syms.splitlines() if line.strip()}
    banned = [n for n in names if re.match(
        r"(frontdoor|outbox|calendar|provider|triage|extract|reconcile|release|sink|mission|"
        r"board|letter|brief|openai|anthropic|mcp)_", n)]
    assert banned == []
    assert "boxd_serve" in names, "the check above would be vacuous"


def loaded(stderr):
    return sorted(set(re.findall(r"\bfile=(\S+)", stderr)))


def test_mecha_box_version_and_local_verbs_load_no_http_server(tmp_path):
    p = subprocess.run([BOX_BIN, "--version"], env={"LD_DEBUG": "files"},
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    files = loaded(p.stderr.decode())
    assert any(f.startswith("libc.so") for f in files), "no loader trace"
    heavy = ("libmicrohttpd", "libgnutls", "libsqlite3", "libargon2", "libcurl", "libpq")
    assert [f for f in files if f.startswith(heavy)] == []
    p = subprocess.run([BOX_BIN, "owner", "add", "ada", "--data", str(tmp_path / "d")],
                       env={"LD_DEBUG": "files"}, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    files = loaded(p.stderr.decode())
    assert any(f.startswith("libsqlite3") for f in files)
    assert [f for f in files if f.startswith(("libmicrohttpd", "libgnutls", "libcurl"))] == []


def test_mecha_box_runs_the_box_binary_and_names_it_when_missing(tmp_path):
    p = subprocess.run([BIN, "box", "--help"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert p.returncode == 0 and "serve" in p.stdout.decode()
    lonely = tmp_path / "bin"
    lonely.mkdir()
    shutil.copy(BIN, lonely / "mecha")
    p = subprocess.run([str(lonely / "mecha"), "box", "sweep", "--data", str(tmp_path)],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert p.returncode == 1 and str(lonely / "mecha-box") in p.stderr.decode()


def test_verification_mail_goes_out_through_smtp_from_the_worker(tmp_path, smtp_sink):
    b = Box(tmp_path, owner=None)
    link = "http://127.0.0.1:8080/f/ada/meeting/c/" + "ab" * 16
    b.seed("mail", smtp_sink.url, "Ada's box <box@example.org>", "stranger@example.net",
           "Réunion", link)
    assert smtp_sink.wait_for(1)
    [msg] = smtp_sink.messages()
    assert msg["Subject"] == "Confirm your Réunion request"
    assert msg["To"] == "stranger@example.net" and "box@example.org" in msg["From"]
    body = msg.get_content()
    assert body.startswith("You filled in the Réunion form.\n\n")
    assert f"\n\n{link}\n\n" in body and "The link works once." in body
    assert not msg.is_multipart() and msg.get_content_type() == "text/plain"
    assert smtp_sink.envelopes()[0]["rcpt_tos"] == ["stranger@example.net"]


def test_a_request_line_of_odd_bytes_is_still_logged_and_never_raw(tmp_path):
    b = Box(tmp_path).start()
    try:
        # A method of bytes that are not text, and one the box's 16-byte field cuts
        # mid-character: each is logged, its odd bytes as "?" (as a path's are).
        for method in [b"G\xffT", b"GETTINGS" + "é".encode() * 5]:
            with socket.create_connection(("127.0.0.1", b.port), timeout=5) as s:
                s.sendall(method + b" /v1/queue HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                          b"Connection: close\r\n\r\n")
                while s.recv(4096):
                    pass
    finally:
        b.stop()
    raw = b.stderr.read_bytes()
    assert b"\xff" not in raw and b"\xc3" not in raw
    lines = [x for x in b.log() if x.get("path") == "/v1/queue"]
    assert len(lines) == 2, raw
    assert sorted(x["method"] for x in lines) == ["G?T", "GETTINGS???????"], lines
