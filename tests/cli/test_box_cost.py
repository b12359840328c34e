"""What a stranger's body may cost the box (docs/protocol/box-pages.md §7, issue 22): a refused
submission takes time linear in its size, and a body holds at most
URLFORM_KEYS_MAX pairs (a multipart body MULTIPART_PARTS_MAX parts) — one more
is 413 with the page's own error, on the form, the booking page, the manage
page, the upload page and /v1. Against a real `mecha box serve` on loopback."""
import json
import threading
import time
import urllib.parse

from box_fixture import Box
from box_visit import FORM_TYPE, links, payloads, push_slots, put_type, slot_value, visit
from test_box_bookings import CONSULT, confirm, hold, manage_path, slots
from test_box_forms import MEETING
from test_box_uploads import APPLY, multipart, pdf, verified

KEYS_MAX = 16384   # src/box/urlform.h
PARTS_MAX = 64     # src/box/multipart.h
TOO_MUCH = "this sent more answers than the page takes"


def pairs(n, known=()):
    """An urlencoded body of n pairs: the known ones, then keys nobody asked for."""
    known = list(known)
    rest = [f"k{i}=" for i in range(n - len(known))]
    return "&".join([f"{k}={v}" for k, v in known] + rest).encode()


def post(box, path, body, source=None):
    return visit(box, "POST", path, body=body, headers={"Content-Type": FORM_TYPE},
                 source=source)


def test_a_form_takes_the_cap_and_refuses_one_more_with_413(tmp_path):
    b = Box(tmp_path).start()
    try:
        put_type(b, MEETING)
        known = [("email", "a%40example.net"), ("purpose", "hello")]
        t = time.monotonic()
        status, _, page = post(b, "/f/ada/meeting", pairs(KEYS_MAX, known))
        took = time.monotonic() - t
        # At the cap the answers are read and every stray key is refused: one line each.
        assert status == 400 and page.count("this is not a field of this request type") == \
            KEYS_MAX - 2
        assert took < 10, f"a refused form of {KEYS_MAX} keys took {took:.1f} s"
        status, headers, page = post(b, "/f/ada/meeting", pairs(KEYS_MAX + 1, known))
        assert status == 413 and headers["content-type"].startswith("text/html")
        assert TOO_MUCH in page and f"at most {KEYS_MAX}" in page
        assert '<form method="post"' in page and "<h1>Request a meeting</h1>" in page
        # a repeated key counts each time
        status, _, _ = post(b, "/f/ada/meeting", b"&".join([b"topics=ai"] * (KEYS_MAX + 1)))
        assert status == 413
        assert links(b) == []
    finally:
        b.stop()


def test_the_booking_and_manage_pages_refuse_one_more_than_the_cap_with_413(tmp_path):
    b = Box(tmp_path).start()
    try:
        put_type(b, CONSULT)
        a, other = slots(2)
        push_slots(b, "consult", [a, other])
        chosen = [("_slot", urllib.parse.quote(slot_value(a))), ("email", "b%40example.net")]
        t = time.monotonic()
        status, _, page = post(b, "/s/ada/consult", pairs(KEYS_MAX, chosen))
        took = time.monotonic() - t
        assert status == 200 and page.count("this is not a field of this request type") > 16000
        assert took < 10, f"a refused booking of {KEYS_MAX} keys took {took:.1f} s"
        status, _, page = post(b, "/s/ada/consult", pairs(KEYS_MAX + 1, chosen))
        assert status == 413 and TOO_MUCH in page and 'name="_slot"' in page
        assert links(b) == []
        hold(b, a)
        confirm(b)
        manage = manage_path(b)
        status, _, page = post(b, manage, pairs(KEYS_MAX + 1))
        assert status == 413 and TOO_MUCH in page and "<h1>Too much sent</h1>" in page
        assert [p.get("_cancelled") for p in payloads(b)] == [None], "nothing was cancelled"
        status, _, page = visit(b, "GET", manage)
        assert status == 200 and "Cancel" in page
    finally:
        b.stop()


def test_the_upload_page_refuses_one_part_more_than_it_takes_with_413(tmp_path):
    b = Box(tmp_path).start()
    try:
        put_type(b, APPLY)
        path = verified(b)
        parts = [("cv", "cv.pdf", pdf(), "application/pdf")] + \
            [("cv", None, b"", None)] * PARTS_MAX
        body, headers = multipart(parts)
        status, _, page = visit(b, "POST", path, body=body, headers=headers)
        assert status == 413 and TOO_MUCH in page and f"at most {PARTS_MAX}" in page
        assert 'enctype="multipart/form-data"' in page
        assert visit(b, "GET", path)[0] == 200, "the link still works"
    finally:
        b.stop()


def test_v1_refuses_an_ack_of_more_seqs_than_the_cap_with_413_json(tmp_path):
    b = Box(tmp_path).start()
    try:
        status, body = b.json("POST", "/v1/queue/ack", body={"seqs": list(range(KEYS_MAX + 1))},
                              key="drain")
        assert status == 413 and body == {"error": f"body: more than {KEYS_MAX} seqs in one ack"}
        assert b.json("POST", "/v1/queue/ack", body={"seqs": list(range(KEYS_MAX))},
                      key="drain") == (200, {"deleted": 0})
    finally:
        b.stop()


def test_big_refused_posts_at_once_do_not_stall_everyone_else(tmp_path):
    """The issue's attack: a few big refused POSTs at once. Each completes, and
    /v1/health and the form keep answering meanwhile and after."""
    b = Box(tmp_path).start()
    try:
        put_type(b, MEETING)
        body = pairs(KEYS_MAX, [("email", "a%40example.net"), ("purpose", "x")])
        results, health = [], []

        def attacker(i):
            results.append(post(b, "/f/ada/meeting", body, source=f"127.0.0.{10 + i}")[0])

        threads = [threading.Thread(target=attacker, args=(i,)) for i in range(4)]
        t0 = time.monotonic()
        for t in threads:
            t.start()
        while any(t.is_alive() for t in threads):
            t = time.monotonic()
            status, _, got = b.request("GET", "/v1/health", timeout=10)
            health.append((status, time.monotonic() - t))
            assert json.loads(got)["status"] == "ok"
        for t in threads:
            t.join()
        assert results == [400] * 4
        assert time.monotonic() - t0 < 30
        assert health and max(dt for _, dt in health) < 5, health
        assert visit(b, "GET", "/f/ada/meeting")[0] == 200
    finally:
        b.stop()


def test_the_key_cap_is_box_tomls_form_keys(tmp_path):
    b = Box(tmp_path, form_keys=10).start()
    try:
        put_type(b, MEETING)
        known = [("email", "a%40example.net"), ("purpose", "hello")]
        assert post(b, "/f/ada/meeting", pairs(10, known))[0] == 400
        status, _, page = post(b, "/f/ada/meeting", pairs(11, known))
        assert status == 413 and "at most 10)" in page
        assert b.json("POST", "/v1/queue/ack", body={"seqs": list(range(11))}, key="drain") == \
            (413, {"error": "body: more than 10 seqs in one ack"})
        assert b.json("GET", "/v1/queue?" + "&".join(["since=0"] + ["x=1"] * 10),
                      key="drain") == (413, {"error": "query: more pairs than the box takes"})
        assert b.json("GET", "/v1/queue?since=0", key="drain")[0] == 200
    finally:
        b.stop()
