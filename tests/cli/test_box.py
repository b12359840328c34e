"""The box's /v1 API against a real `mecha box serve` on loopback (SQLite):
keys and scopes, types, slots, the queue and its long poll, ack, attachments.
Rows reach the queue through tests/support/box_seed (the box's own storage
interface), never through a test-only route."""
import json
import threading

import pytest

from box_fixture import Box, manifest

# Every test once on SQLite and once on PostgreSQL (conftest.py).
pytestmark = pytest.mark.usefixtures("box_ledger")

UNAUTHORISED = {"error": "a valid bearer token is required"}
WRONG_SCOPE = {"error": "this key does not cover this endpoint"}

MANIFEST = manifest("meeting", "Request a meeting", """
[[fields]]
name = "purpose"
label = "What about?"
kind = "long_text"
max_length = 2000
required = true
""")

# Every /v1 route that takes a key, with the scope it needs.
ROUTES = [
    ("GET", "/v1/types", "publish", None),
    ("GET", "/v1/types/meeting", "publish", None),
    ("PUT", "/v1/types/meeting", "release", MANIFEST),
    ("PUT", "/v1/instruments/consult/slots", "slots",
     {"generated_at": "2026-08-06T00:00:00Z", "horizon_days": 14, "slots": []}),
    ("GET", "/v1/queue", "drain", None),
    ("POST", "/v1/queue/ack", "drain", {"seqs": []}),
    ("GET", "/v1/queue/attachments/00000000000000000000000000000000", "drain", None),
]


@pytest.fixture
def box(tmp_path):
    b = Box(tmp_path).start()
    yield b
    b.stop()


def test_health_is_public_and_a_key_adds_its_owners_counts(box):
    status, body = box.json("GET", "/v1/health")
    assert status == 200 and body["status"] == "ok" and "queued" not in body
    box.queue({"purpose": "a chat"})
    status, body = box.json("GET", "/v1/health", key="drain")
    assert status == 200
    assert body["queued"] == 1 and body["handle"] == "ada" and body["status"] == "active"
    assert box.keys["drain"].startswith("mk_drn_" + body["key"] + ".")


@pytest.mark.parametrize("method,path,scope,body", ROUTES)
def test_a_route_refuses_a_missing_or_forged_key_with_401(box, method, path, scope, body):
    real = box.keys[scope]
    forged = real[:-4] + ("0000" if not real.endswith("0000") else "1111")
    for key in (None, "mk_drn_zz.zz", "Basic " + real, forged, real.replace(".", "")):
        headers = {"Authorization": key} if key and key.startswith("Basic") else None
        status, got = box.json(method, path, body=body, headers=headers,
                               key=None if headers else key)
        assert (status, got) == (401, UNAUTHORISED), key


@pytest.mark.parametrize("method,path,scope,body", ROUTES)
def test_a_key_of_another_scope_gets_403(box, method, path, scope, body):
    for other in ("drain", "publish", "release", "slots"):
        if other == scope:
            continue
        status, got = box.json(method, path, body=body, key=other)
        assert (status, got) == (403, WRONG_SCOPE), other


def test_a_key_that_verified_once_is_still_checked_against_its_row_every_time(box):
    # The box remembers secrets it verified (a drain's many calls pay Argon2id
    # once), but only for the very hash they verified against.
    real = box.keys["drain"]
    assert box.json("GET", "/v1/queue", key=real)[0] == 200
    forged = real[:-4] + ("0000" if not real.endswith("0000") else "1111")
    assert box.json("GET", "/v1/queue", key=forged) == (401, UNAUTHORISED)
    drain_id = real.split("_")[2].split(".")[0]
    publish_id = box.keys["publish"].split("_")[2].split(".")[0]
    box.sql(f"UPDATE keys SET hash = (SELECT hash FROM keys WHERE id = '{publish_id}') "
            f"WHERE id = '{drain_id}'")
    assert box.json("GET", "/v1/queue", key=real) == (401, UNAUTHORISED)


def test_the_scope_comes_from_the_key_row_not_its_prefix(box):
    relabelled = box.keys["drain"].replace("mk_drn_", "mk_rel_")
    assert box.json("PUT", "/v1/types/meeting", body=MANIFEST, key=relabelled) == \
        (403, WRONG_SCOPE)
    assert box.json("GET", "/v1/queue", key=relabelled)[0] == 200


def test_a_type_put_with_the_release_key_is_read_back_with_the_publish_key(box):
    status, put = box.json("PUT", "/v1/types/meeting", body=MANIFEST, key="release")
    assert status == 200
    page = f"http://127.0.0.1:{box.port}/f/ada/meeting" if "[verification]" in MANIFEST else None
    assert put == {"id": "meeting", "title": "Request a meeting", "fields": 2, "version": 1,
                   "url": f"http://127.0.0.1:{box.port}/v1/types/meeting", "page": page}
    status, listed = box.json("GET", "/v1/types", key="publish")
    assert [t["id"] for t in listed["types"]] == ["meeting"]
    assert listed["types"][0]["url"] == put["url"]
    status, one = box.json("GET", "/v1/types/meeting", key="publish")
    assert status == 200 and one["manifest"] == MANIFEST
    assert one["schema"]["$id"] == "mecha-factory:request/meeting/v1"
    assert set(one["schema"]["required"]) == {"email", "purpose"}


def test_a_type_that_breaks_a_rule_or_names_another_id_is_refused(box):
    status, got = box.json("PUT", "/v1/types/meeting", key="release",
                           body=MANIFEST.replace('kind = "long_text"\nmax_length = 2000\n',
                                                 'kind = "text"\n'))
    assert status == 400 and got["error"].startswith("manifest: ")
    assert "max_length" in got["error"]
    status, got = box.json("PUT", "/v1/types/other", body=MANIFEST, key="release")
    assert status == 400 and "calls itself `meeting` and the URL says `other`" in got["error"]
    assert box.json("GET", "/v1/types/meeting", key="publish") == (404, {"error": "no such type"})


def test_a_slot_push_is_stored_and_a_malformed_one_refused(box):
    good = {"generated_at": "2026-08-06T00:00:00Z", "horizon_days": 14,
            "slots": [{"start": "2026-08-10T09:00:00Z", "end": "2026-08-10T09:30:00Z",
                       "duration_minutes": 30}]}
    status, got = box.json("PUT", "/v1/instruments/consult/slots", body=good, key="slots")
    assert status == 200 and got["instrument"] == "consult" and got["stored"] == 1
    bad = [
        ({**good, "extra": 1}, "unknown field `extra`"),
        ({**good, "horizon_days": 400}, "horizon_days 400 is over a year"),
        ({**good, "slots": [{**good["slots"][0], "duration_minutes": 45}]},
         "slot 0: duration_minutes 45 disagrees with its own span"),
        ({**good, "slots": [{**good["slots"][0], "end": "2026-08-10T08:00:00Z",
                             "duration_minutes": 0}]}, "slot 0: end is not after start"),
        ({**good, "generated_at": "yesterday"}, "generated_at `yesterday` is not RFC 3339"),
    ]
    for body, why in bad:
        status, got = box.json("PUT", "/v1/instruments/consult/slots", body=body, key="slots")
        assert status == 400 and why in got["error"], (body, got)
    status, got = box.json("PUT", "/v1/instruments/Bad.Id/slots", body=good, key="slots")
    assert status == 400 and "instrument id" in got["error"]


def test_the_queue_gives_queued_rows_oldest_first_with_the_payload_as_text(box, tmp_path):
    pdf = tmp_path / "cv.pdf"
    pdf.write_bytes(b"%PDF-1.4 a small file\n")
    first = box.queue({"purpose": "first"}, f"cv={pdf}")
    second = box.queue({"purpose": "second"})
    status, got = box.json("GET", "/v1/queue?since=0", key="drain")
    assert status == 200 and got["next"] == second
    assert [r["seq"] for r in got["records"]] == [first, second]
    r = got["records"][0]
    assert r["type"] == "meeting" and r["state"] == "queued"
    assert isinstance(r["payload"], str) and json.loads(r["payload"]) == {"purpose": "first"}
    [a] = r["attachments"]
    assert a["field"] == "cv" and a["filename"] == "cv.pdf" and a["size"] == pdf.stat().st_size
    assert a["sha256"].startswith("sha256:") and a["content_type"] == "application/pdf"
    assert got["records"][1]["attachments"] == []
    status, later = box.json("GET", f"/v1/queue?since={first}", key="drain")
    assert [r["seq"] for r in later["records"]] == [second]
    assert box.json("GET", "/v1/queue?since=0", key="drain")[1] == got, "a drain is a pure read"
    status, got = box.json("GET", "/v1/queue?since=soon", key="drain")
    assert status == 400 and got["error"].startswith("query")


def test_a_drain_sees_only_its_own_owners_rows(tmp_path):
    b = Box(tmp_path).start()
    try:
        other = b.mecha("owner", "add", "bob", "--json", check=0).json()
        b.queue({"purpose": "for ada"})
        assert b.json("GET", "/v1/queue", key=other["drain"])[1] == {"records": [], "next": 0}
    finally:
        b.stop()


def test_an_attachment_downloads_as_its_bytes_and_an_unknown_one_is_404(box, tmp_path):
    png = tmp_path / "photo.png"
    png.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)))
    box.queue({"purpose": "see photo"}, f"photo={png}")
    [record] = box.json("GET", "/v1/queue", key="drain")[1]["records"]
    att = record["attachments"][0]["id"]
    status, headers, body = box.request("GET", f"/v1/queue/attachments/{att}", key="drain")
    assert status == 200 and body == png.read_bytes()
    assert headers["content-type"] == "application/octet-stream"
    assert box.json("GET", "/v1/queue/attachments/" + "0" * 32, key="drain") == \
        (404, {"error": "not found"})
    assert not (box.data / "attachments").exists(), "the bytes are in the ledger, not on disk"
    # A row whose bytes are gone is the box's inconsistency: never "not found".
    box.sql(f"DELETE FROM attachment_parts WHERE id = '{att}'")
    assert box.json("GET", f"/v1/queue/attachments/{att}", key="drain") == \
        (500, {"error": "unavailable"})


def test_ack_deletes_the_rows_their_attachment_rows_and_their_files(box, tmp_path):
    pdf = tmp_path / "a.pdf"
    pdf.write_bytes(b"%PDF-1.7\n")
    one = box.queue({"purpose": "one"}, f"doc={pdf}")
    two = box.queue({"purpose": "two"})
    att = box.json("GET", "/v1/queue", key="drain")[1]["records"][0]["attachments"][0]["id"]
    assert box.attachment_bytes(att) == pdf.read_bytes()
    assert box.json("POST", "/v1/queue/ack", body={"seqs": [one, 9999]}, key="drain") == \
        (200, {"deleted": 1})
    assert box.attachment_bytes(att) is None
    assert box.sql("SELECT COUNT(*) FROM attachment_parts") == [(0,)]
    assert [r["seq"] for r in box.json("GET", "/v1/queue", key="drain")[1]["records"]] == [two]
    assert box.json("GET", f"/v1/queue/attachments/{att}", key="drain")[0] == 404
    status, got = box.json("POST", "/v1/queue/ack", body="{not json", key="drain")
    assert status == 400 and got["error"].startswith("body: ")
    status, got = box.json("POST", "/v1/queue/ack", body={"seq": [two]}, key="drain")
    assert status == 400 and got["error"].startswith("body: ")


def test_a_long_poll_wakes_when_another_process_queues_a_row(box):
    answer = {}

    def drain():
        # The client gives up long before the box's own 25 s deadline: only a
        # wake-up can answer in time, and with the row.
        answer["got"] = box.json("GET", "/v1/queue?since=0&wait=25", key="drain", timeout=15)

    t = threading.Thread(target=drain)
    t.start()
    import time
    time.sleep(0.5)  # let the request park; the row below wakes it either way
    seq = box.queue({"purpose": "while you waited"})
    t.join(timeout=20)
    status, got = answer["got"]
    assert status == 200 and [r["seq"] for r in got["records"]] == [seq]


def test_pair_refuses_every_code_and_disconnect_revokes_the_presented_key(box):
    assert box.json("POST", "/v1/pair", body={"code": "x", "handle": "ada"}) == \
        (404, {"error": "that code is not valid for that handle"})
    status, got = box.json("POST", "/v1/disconnect", key="slots")
    assert status == 200 and box.keys["slots"].startswith("mk_slt_" + got["revoked"])
    assert box.json("GET", "/v1/health", key="slots")[1].get("handle") is None
    assert box.json("PUT", "/v1/instruments/x/slots", body={}, key="slots") == (401, UNAUTHORISED)


def test_a_key_made_by_box_key_new_works_and_is_printed_once(box):
    p = box.mecha("key", "new", "--owner", "ada", "--scope", "drain", "--label", "laptop",
                  check=0)
    token = p.out.strip()
    assert token.startswith("mk_drn_") and len(p.out.splitlines()) == 1
    assert box.json("GET", "/v1/queue", key=token)[0] == 200
    assert token.split(".")[1] not in box.dump().decode("latin-1")
    p = box.mecha("key", "new", "--owner", "nobody", "--scope", "drain")
    assert p.returncode == 1 and "no owner called nobody" in p.err
    p = box.mecha("key", "new", "--owner", "ada", "--scope", "root")
    assert p.returncode == 2


def test_a_hash_another_argon2_made_verifies(box):
    import shutil
    import subprocess

    if not shutil.which("argon2"):
        pytest.skip("the argon2 CLI (Debian argon2) is not installed")
    secret = "ab" * 32
    # docs/protocol/box-api.md §1's parameters: Argon2id, m=19456 KiB (-k), t=2, p=1, 32-byte hash.
    phc = subprocess.run(["argon2", "somesalt16bytes!", "-id", "-t", "2", "-k", "19456",
                          "-p", "1", "-l", "32", "-e"], input=secret.encode(),
                         stdout=subprocess.PIPE, check=True).stdout.decode().strip()
    assert phc.startswith("$argon2id$v=19$m=19456,t=2,p=1$")
    box.seed("key", "ada", "drain", "0123456789abcdef", phc)
    assert box.json("GET", "/v1/queue", key=f"mk_drn_0123456789abcdef.{secret}")[0] == 200
    assert box.json("GET", "/v1/queue", key=f"mk_drn_0123456789abcdef.{'cd' * 32}")[0] == 401


def test_owner_add_twice_is_refused_and_changes_nothing(tmp_path):
    b = Box(tmp_path)
    p = b.mecha("owner", "add", "ada")
    assert p.returncode == 3 and "already has an owner called ada" in p.err
    p = b.mecha("owner", "add", "Bad_Handle")
    assert p.returncode == 2
    p = b.mecha("owner", "add", "eve", "--data", str(tmp_path / "plain"), config=False)
    assert p.returncode == 0 and "mk_drn_" in p.out and "mk_slt_" in p.out
