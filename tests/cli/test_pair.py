"""Pairing (docs/protocol/box-api.md §9): `mecha box pair` on the box
prints a one-time code, `mecha pair URL CODE --handle H` at home spends it through
POST /v1/pair for the owner's keys and writes the gate and the keys into the home.
A real `mecha box serve` on loopback; a second loopback server answers as the
reference's box does (publish and drain keys only), to hold the home to its shape."""
import hashlib
import http.server
import json
import os
import shutil
import stat
import threading

import pytest

from box_fixture import Box
from conftest import ROOT

TYPES = ROOT / "tests" / "fixtures" / "types"

# The ledger's two transactions (a code made, a code spent) run on both backends.
on_both_ledgers = pytest.mark.usefixtures("box_ledger")


@pytest.fixture
def box(tmp_path):
    b = Box(tmp_path).start()
    yield b
    b.stop()


def code_for(box, owner="ada", *extra, check=0):
    p = box.mecha("pair", "--owner", owner, "--json", *extra, check=check)
    return p.json() if check == 0 else p


def pair(mecha, box, code, handle="ada", *extra, check=0):
    p = mecha.run("pair", f"http://127.0.0.1:{box.port}", code, "--handle", handle, "--json",
                  *extra, check=check)
    return json.loads(p.out)


def mode(path):
    return stat.S_IMODE(os.stat(path).st_mode)


def test_a_code_pairs_the_home_and_it_drains_and_publishes(mecha, box):
    mecha.run("init", check=0)
    got = code_for(box)
    assert got["handle"] == "ada" and got["minutes"] == 15
    assert len(got["code"]) == 14 and got["code"].count("-") == 2
    assert got["command"] == f"mecha pair {got['gate']} {got['code']} --handle ada"
    report = pair(mecha, box, got["code"])
    factory = mecha.home / "factory"
    assert report["gate"] == f"http://127.0.0.1:{box.port}" and report["handle"] == "ada"
    assert report["missing"] == [] and report["shadowed"] == []
    assert sorted(report["keys"]) == ["drain", "publish", "release", "slots"]
    assert all(k["checked"] for k in report["keys"].values())
    assert mode(factory) == 0o700
    for name in ("config.toml", "drain.key", "release.key", "slots.key", "publish.key"):
        assert mode(factory / name) == 0o600, name
    assert (factory / "config.toml").read_text().splitlines()[-1] == \
        f'gate = "http://127.0.0.1:{box.port}"'
    key = (factory / "drain.key").read_text()
    assert key.startswith("mk_drn_") and key.endswith("\n") and key.count("\n") == 1
    # the keys are printed nowhere
    assert key.strip() not in json.dumps(report)
    # the keys work for what they are for: a form goes live, the queue comes home
    shutil.copy(TYPES / "meeting.toml", factory / "types" / "meeting.toml")
    pushed = mecha.json("types", "push", "meeting", "--json")
    assert pushed["id"] == "meeting"
    assert mecha.json("drain", "--json")["drained"] == 0
    # the box keeps only the code's hash, and the keys carry the home's label
    rows = box.sql("SELECT code_hash, redeemed_at FROM pairings")
    assert len(rows) == 1 and rows[0][1] is not None
    assert rows[0][0] == hashlib.sha256(got["code"].replace("-", "").encode()).hexdigest()
    labels = {r[0] for r in box.sql("SELECT label FROM keys WHERE label <> 'first keys'")}
    assert labels == {os.uname().nodename}


@on_both_ledgers
def test_a_code_works_once(mecha, box):
    mecha.run("init", check=0)
    code = code_for(box)["code"]
    pair(mecha, box, code)
    before = (mecha.home / "factory" / "drain.key").read_text()
    again = pair(mecha, box, code, check=1)
    assert again == {"ok": False, "error": "gate", "message":
                     f"gate: POST http://127.0.0.1:{box.port}/v1/pair: HTTP 404: "
                     "that code is not valid for that handle"}
    assert (mecha.home / "factory" / "drain.key").read_text() == before


def test_case_blanks_and_dashes_do_not_matter_and_the_label_is_the_boxs(mecha, box):
    mecha.run("init", check=0)
    code = code_for(box, "ada", "--label", "the laptop")["code"]
    pair(mecha, box, code.lower().replace("-", " "))
    labels = {r[0] for r in box.sql("SELECT label FROM keys WHERE label <> 'first keys'")}
    assert labels == {"the laptop"}


@on_both_ledgers
def test_a_wrong_handle_spends_nothing_and_five_wrong_tries_end_the_code(mecha, box):
    mecha.run("init", check=0)
    box.mecha("owner", "add", "bob", check=0)
    code = code_for(box)["code"]
    # bob's name on ada's code: refused, and ada's code still works
    assert pair(mecha, box, code, "bob", check=1)["error"] == "gate"
    assert not (mecha.home / "factory" / "drain.key").exists()
    pair(mecha, box, code)
    # five wrong guesses naming ada: her live code is dead, even when right after
    code = code_for(box)["code"]
    for _ in range(5):
        pair(mecha, box, "0000-0000-0000", check=1)
    assert "not valid" in pair(mecha, box, code, check=1)["message"]


def test_an_expired_code_is_refused(mecha, box):
    mecha.run("init", check=0)
    code = code_for(box)["code"]
    box.sql("UPDATE pairings SET expires_at = '2020-01-01T00:00:00Z'")
    assert "not valid" in pair(mecha, box, code, check=1)["message"]


def test_codes_are_rate_limited(box):
    for _ in range(10):
        code_for(box)
    p = code_for(box, "ada", check=3)
    assert "10 pairing codes in the last hour" in p.err
    assert code_for(box, "nobody", check=1).err.startswith("mecha box: the box has no owner")


def test_insecure_or_unreachable_gates_write_nothing(mecha, box):
    mecha.run("init", check=0)
    code = code_for(box)["code"]
    p = mecha.run("pair", "http://example.org", code, "--handle", "ada", "--json", check=3)
    assert json.loads(p.out)["error"] == "insecure"
    p = mecha.run("pair", "http://127.0.0.1:9", code, "--handle", "ada", "--json", check=1)
    assert json.loads(p.out)["error"] == "gate"
    assert not (mecha.home / "factory" / "config.toml").exists()
    assert mecha.run("pair", "http://127.0.0.1:9", code, check=2).err.startswith("mecha: ")


def test_the_reference_home_pairs_with_this_box(box):
    """What docs/protocol/box-api.md §9's `factory-publish connect` sends, and what it reads back;
    and a code stored the other box's way (sha256 of the trimmed text) redeems."""
    code = code_for(box)["code"]
    status, got = box.json("POST", "/v1/pair", body={"code": code, "handle": "ADA", "label": "x"})
    assert status == 200
    for scope, prefix in (("publish", "mk_pub_"), ("drain", "mk_drn_"),
                          ("release", "mk_rel_"), ("slots", "mk_slt_")):
        assert got[f"{scope}_key"].startswith(prefix + got[f"{scope}_key_id"] + ".")
    assert got["handle"] == "ada"
    status, health = box.json("GET", "/v1/health", key=got["drain_key"])
    assert status == 200 and health["key"] == got["drain_key_id"]
    hexcode = "3f9c" * 8
    user = box.sql("SELECT id FROM users WHERE handle = 'ada'")[0][0]
    box.sql("INSERT INTO pairings (code_hash, user_id, created_at, expires_at) VALUES "
            f"('{hashlib.sha256(hexcode.encode()).hexdigest()}', '{user}', "
            "'2026-01-01T00:00:00Z', '2999-01-01T00:00:00Z')")
    assert box.json("POST", "/v1/pair", body={"code": f" {hexcode} ", "handle": "ada"})[0] == 200
    # a body not of docs/protocol/box-api.md §9's shape: 400 with a reason
    status, got = box.json("POST", "/v1/pair", body={"code": 7, "handle": "ada"})
    assert status == 400 and got["error"].startswith("body: ")


class ReferenceBox(http.server.BaseHTTPRequestHandler):
    """Answers /v1/pair and /v1/health as the Rust box does (docs/protocol/box-api.md §9):
    publish and drain keys only (its pairing never mints release or slots)."""
    keys = {"drain": ("00aa11bb22cc33dd", "mk_drn_00aa11bb22cc33dd." + "ab" * 32),
            "publish": ("44ee55ff66007711", "mk_pub_44ee55ff66007711." + "cd" * 32)}
    seen = []

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.seen.append(body)
        if body["code"] != "c0ffee" * 5 + "00" or body["handle"] != "ada":
            return self.answer(404, {"error": "that code is not valid for that handle"})
        self.answer(200, {"handle": "ada", "publish_key": self.keys["publish"][1],
                          "publish_key_id": self.keys["publish"][0],
                          "drain_key": self.keys["drain"][1], "drain_key_id": self.keys["drain"][0],
                          "artifacts_url": "https://ada.artifacts.example.org",
                          "compute_url": "https://ada.compute.example.org"})

    def do_GET(self):
        token = self.headers.get("Authorization", "")[len("Bearer "):]
        for key_id, key in self.keys.values():
            if token == key:
                return self.answer(200, {"status": "ok", "version": "0.2.7", "uptime_s": 1,
                                         "queued": 0, "key": key_id, "handle": "ada",
                                         "status_": "active"})
        self.answer(200, {"status": "ok", "version": "0.2.7", "uptime_s": 1})

    def answer(self, status, doc):
        data = json.dumps(doc).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


def test_this_home_pairs_with_the_reference_box(mecha):
    mecha.run("init", check=0)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), ReferenceBox)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}"
        p = mecha.run("pair", url, "c0ffee" * 5 + "00", "--handle", "Ada", "--label", "lab",
                      "--json", check=0)
        report = json.loads(p.out)
        assert ReferenceBox.seen[-1] == {"code": "c0ffee" * 5 + "00", "handle": "ada",
                                         "label": "lab"}
        assert sorted(report["keys"]) == ["drain", "publish"]
        assert report["missing"] == ["release", "slots"]
        factory = mecha.home / "factory"
        assert (factory / "drain.key").read_text() == ReferenceBox.keys["drain"][1] + "\n"
        assert not (factory / "release.key").exists()
        text = mecha.run("pair", url, "c0ffee" * 5 + "00", "--handle", "ada", check=0).out
        assert "release   not given by this box: `mecha types push` needs one" in text
    finally:
        server.shutdown()
        server.server_close()


def test_doctor_checks_the_paired_box_each_key_its_scope_the_queue_and_the_types(mecha, box):
    mecha.run("init", check=0)
    p = mecha.run("doctor", "--json", check=0)
    [only] = [l for l in json.loads(p.out) if l["check"] == "box"]
    assert only["status"] == "ok" and "no box paired" in only["detail"]
    pair(mecha, box, code_for(box)["code"])
    factory = mecha.home / "factory"
    shutil.copy(TYPES / "meeting.toml", factory / "types" / "meeting.toml")
    got = [l for l in json.loads(mecha.run("doctor", "--json").out) if l["check"] == "box"]
    said = {l["detail"]: l["status"] for l in got}
    for scope in ("drain", "release", "slots", "publish"):
        assert said[f"{scope} key: taken by http://127.0.0.1:{box.port}, with its scope"] == "ok"
    assert said["queue: empty"] == "ok"
    assert said["type meeting: not published (home has v2)"] == "warn"
    mecha.run("types", "push", "meeting", check=0)
    newer = (TYPES / "meeting.toml").read_text().replace("version = 2", "version = 3")
    (factory / "types" / "meeting.toml").write_text(newer)
    got = [l for l in json.loads(mecha.run("doctor", "--json").out) if l["check"] == "box"]
    [t] = [l for l in got if l["detail"].startswith("type meeting")]
    assert t["status"] == "fail" and t["detail"] == "type meeting: the box serves v2, home has v3"
    assert "mecha types push" in t["fix"]
    # a key the box no longer takes: named, with the fix
    box.json("POST", "/v1/disconnect", key=(factory / "slots.key").read_text().strip())
    got = [l for l in json.loads(mecha.run("doctor", "--json", check=1).out) if l["check"] == "box"]
    [k] = [l for l in got if l["detail"].startswith("slots key")]
    assert k["status"] == "fail" and "does not take it" in k["detail"] and "mecha pair" in k["fix"]
    # --offline reaches nothing
    got = [l for l in json.loads(mecha.run("doctor", "--json", "--offline").out)
           if l["check"] == "box"]
    assert [l["status"] for l in got] == ["warn"] and "--offline" in got[0]["detail"]
