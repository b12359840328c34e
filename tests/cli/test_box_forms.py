"""A stranger fills in a form served by a real `mecha box serve` (docs/protocol/box-pages.md §3
"Form flow"): the page built from the owner's manifest, the answers checked,
the mail with its one-use link, the Confirm page, the queue — and the budgets
that keep a form from being a spam cannon."""
import json
import threading

import pytest

from box_fixture import Box, manifest
from conftest import ROOT
from box_visit import (CHECK_EMAIL, EXPIRED, NO_FORM, drain, ledger, links, path_of, payloads,
                       put_type, visit)

# Every test once on SQLite and once on PostgreSQL (conftest.py).
pytestmark = pytest.mark.usefixtures("box_ledger")

MEETING = manifest("meeting", "Request a meeting", """
[[fields]]
name = "purpose"
label = "What about?"
kind = "long_text"
max_length = 2000
required = true

[[fields]]
name = "topics"
label = "Topics"
kind = "multi_select"
options = [{ value = "ai", label = "AI" }, { value = "art", label = "Art" }, { value = "law", label = "Law" }]

[[fields]]
name = "other"
label = "Say more"
kind = "text"
max_length = 100
show_when = { field = "purpose", op = "eq", value = "other" }
""", description="Tell me what it is about.", verification="expires_hours = 24\n", after="""
[confirmation]
heading = "Thanks, {email}"
body = "Your request about {purpose} is in."
""")

UNVERIFIED = """id = "loose"
version = 1
title = "No verification"

[[fields]]
name = "note"
label = "Note"
kind = "text"
max_length = 10
"""

BOOKING = (ROOT / "tests" / "fixtures" / "box" / "consult.toml").read_text()

GOOD = {"email": "stranger@example.net", "purpose": "a chat", "topics": ["ai", "law"]}


@pytest.fixture
def box(tmp_path):
    b = Box(tmp_path).start()
    put_type(b, MEETING)
    yield b
    b.stop()


def submit(box, fields=GOOD, source=None):
    return visit(box, "POST", "/f/ada/meeting", fields=fields, source=source)


def confirm_path(box):
    return path_of(links(box)[-1])


def test_the_form_is_built_from_the_manifest_with_its_assets_beside_it(box):
    status, headers, page = visit(box, "GET", "/f/ada/meeting")
    assert status == 200 and headers["content-type"] == "text/html; charset=utf-8"
    assert "<h1>Request a meeting</h1>" in page and "Tell me what it is about." in page
    for name in ("email", "purpose", "topics", "other"):
        assert f'name="{name}"' in page
    assert 'action="/f/ada/meeting"' in page and 'href="/f/ada/meeting/form.css"' in page
    assert "default-src 'none'" in headers["content-security-policy"]
    assert "set-cookie" not in headers
    status, headers, css = visit(box, "GET", "/f/ada/meeting/form.css")
    assert status == 200 and headers["content-type"].startswith("text/css") and css
    status, headers, js = visit(box, "GET", "/f/ada/meeting/form.js")
    assert status == 200 and "javascript" in headers["content-type"] and js
    assert visit(box, "GET", "/f/ada/meeting/evil.js")[0] == 404


def test_no_owner_no_type_and_the_wrong_door_are_the_same_404(box):
    put_type(box, UNVERIFIED)
    put_type(box, BOOKING)
    answers = [visit(box, "GET", p) for p in
               ("/f/nobody/meeting", "/f/ada/nothing", "/f/ada/loose", "/f/ada/consult",
                "/f/nobody/meeting/c/" + "ab" * 16)]
    assert {(a[0], a[2]) for a in answers} == {(404, answers[0][2])}
    assert NO_FORM in answers[0][2] and "stylesheet" not in answers[0][2]
    status, _, page = visit(box, "POST", "/f/nobody/meeting", fields=GOOD)
    assert (status, page) == (404, answers[0][2])


def test_a_type_pushed_again_shows_its_new_form_at_once_through_every_box(tmp_path):
    """The owner and the type row a form GET reads are kept while the ledger says
    nothing changed (box/typecache.h): a push through this box or through another on
    the same ledger, and an owner suspended by a direct write, show on the next GET."""
    a = Box(tmp_path / "a").start()
    b = Box(tmp_path / "b", owner=None, db=a.db, pg=a.pg)
    b.keys = a.keys
    b.start()
    try:
        put_type(a, MEETING)
        for _ in range(3):  # kept: the same page every time
            status, _, page = visit(a, "GET", "/f/ada/meeting")
            assert status == 200 and "<h1>Request a meeting</h1>" in page
        put_type(b, MEETING.replace("Request a meeting", "Ask for a meeting"))
        status, _, page = visit(a, "GET", "/f/ada/meeting")
        assert status == 200 and "<h1>Ask for a meeting</h1>" in page
        put_type(a, MEETING.replace("Request a meeting", "Book some time"))
        for box in (a, b):
            status, _, page = visit(box, "GET", "/f/ada/meeting")
            assert status == 200 and "<h1>Book some time</h1>" in page
        a.sql("UPDATE users SET status = 'suspended' WHERE handle = 'ada'")
        for box in (a, b):
            status, _, page = visit(box, "GET", "/f/ada/meeting")
            assert status == 404 and NO_FORM in page
        a.sql("UPDATE users SET status = 'active' WHERE handle = 'ada'")
        assert visit(a, "GET", "/f/ada/meeting")[0] == 200
    finally:
        b.stop()
        a.stop()


def test_a_refused_form_comes_back_400_with_each_error_beside_its_field_and_the_answers_kept(box):
    status, _, page = submit(box, {"email": "not-an-address", "purpose": "  ",
                                   "topics": ["ai", "art"], "sneaky": "x"})
    assert status == 400 and "<title>Error: Request a meeting</title>" in page
    assert 'role="alert"' in page
    assert "this does not look like an email address" in page
    assert "this is required" in page and "this is not a field of this request type" in page
    assert 'value="not-an-address"' in page
    assert page.count("checked") == 2  # both ticked topics kept (docs/protocol/box-pages.md §7)
    assert 'aria-invalid="true"' in page
    assert links(box) == [] and drain(box) == []


def test_a_conditional_field_left_blank_with_scripts_off_is_accepted(box):
    status, _, page = submit(box, {**GOOD, "other": ""})
    assert status == 200 and CHECK_EMAIL in page


def test_the_whole_verify_flow_through_real_mail(tmp_path, smtp_sink):
    b = Box(tmp_path, extra=f'[mail]\nsmtp_url = "{smtp_sink.url}"\n'
                            'from = "Ada\'s box <box@example.org>"').start()
    try:
        put_type(b, MEETING)
        status, _, page = submit(b)
        assert status == 200 and CHECK_EMAIL in page and "stranger@example.net" in page
        assert smtp_sink.wait_for(1)
        [msg] = smtp_sink.messages()
        assert msg["Subject"] == "Confirm your Request a meeting request"
        assert msg["To"] == "stranger@example.net"
        [link] = [line for line in msg.get_content().splitlines() if "/c/" in line]
        assert link.startswith(f"http://127.0.0.1:{b.port}/f/ada/meeting/c/")
        path = path_of(link)
        status, _, page = visit(b, "GET", path)  # a mail scanner's fetch spends nothing
        assert status == 200 and "Confirm your email address" in page
        assert '<form method="post">' in page and drain(b) == []
        status, _, page = visit(b, "POST", path)
        assert status == 200 and "<h1>Thanks, stranger@example.net</h1>" in page
        assert "Your request about a chat is in." in page
        [record] = drain(b)
        assert record["type"] == "meeting" and record["state"] == "queued"
        # stamped with the version of the type it was submitted under (home compares it)
        assert payloads(b) == [{"email": "stranger@example.net", "purpose": "a chat",
                                "topics": ["ai", "law"], "_type_version": 1}]
        status, _, page = visit(b, "POST", path)  # a second click: what happened, once
        assert status == 200 and "Already confirmed" in page and len(drain(b)) == 1
        assert "your request was received" in page
    finally:
        b.stop()


def test_the_answer_is_the_same_whatever_the_mail_did(tmp_path, smtp_sink):
    b = Box(tmp_path, extra=f'[mail]\nsmtp_url = "{smtp_sink.url}"\n'
                            'from = "box@example.org"').start()
    try:
        put_type(b, MEETING)
        smtp_sink.mode = "refuse"
        refused = submit(b)
        smtp_sink.mode = "accept"
        accepted = submit(b)
        assert refused[0] == accepted[0] == 200 and refused[2] == accepted[2]
        assert smtp_sink.wait_for(1)
    finally:
        b.stop()


def test_an_expired_and_a_made_up_link_are_one_page_that_says_it_expired(box):
    submit(box)
    path = confirm_path(box)
    with ledger(box) as db:  # a day passes: the link's 24 hours are over
        db.execute("UPDATE queue SET verify_expires = '2000-01-01T00:00:00Z'")
    made_up = visit(box, "POST", "/f/ada/meeting/c/" + "0" * 32)
    for method in ("GET", "POST"):
        expired = visit(box, method, path)
        assert expired[0] == made_up[0] == 404 and expired[2] == made_up[2]
        assert EXPIRED in expired[2] and "Confirm</button>" not in expired[2]
        assert 'href="/f/ada/meeting"' in expired[2]  # back to the form, for a new link
    assert drain(box) == []
    # Swept, the expired row is gone; its link still says it expired.
    box.mecha("sweep", check=0)
    assert visit(box, "GET", path)[0] == 404 and EXPIRED in visit(box, "GET", path)[2]


def test_a_used_link_says_what_happened_after_its_row_was_drained_and_acked(box):
    submit(box)
    path = confirm_path(box)
    assert visit(box, "POST", path)[0] == 200
    for method in ("GET", "POST", "GET"):  # opened again: no button that fails, no 404
        status, _, page = visit(box, method, path)
        assert status == 200 and "Already confirmed" in page, (method, page)
        assert "your request was received" in page and "<button" not in page
    [record] = drain(box)
    status, _ = box.json("POST", "/v1/queue/ack", key="drain",
                         body=json.dumps({"seqs": [record["seq"]]}).encode())
    assert status == 200 and drain(box) == []
    status, _, page = visit(box, "GET", path)  # the row is gone; the link remembers
    assert status == 200 and "Already confirmed" in page
    # Another type's page does not know this link.
    assert visit(box, "GET", path.replace("/meeting/", "/other/"))[0] == 404
    # The sweep forgets a spent link after 30 days (docs/box.md).
    with ledger(box) as db:
        db.execute("UPDATE spent_links SET spent_at = '2000-01-01T00:00:00Z'")
    report = box.mecha("sweep", "--json", check=0).json()
    assert report["forgotten_links"] == 1
    status, _, page = visit(box, "GET", path)
    assert status == 404 and EXPIRED in page


def test_a_link_confirms_only_on_its_own_type(box):
    put_type(box, MEETING.replace('id = "meeting"', 'id = "other"'))
    submit(box)
    token = confirm_path(box).rsplit("/", 1)[1]
    assert visit(box, "POST", f"/f/ada/other/c/{token}")[0] == 404
    assert visit(box, "POST", f"/f/ada/meeting/c/{token}")[0] == 200


def test_three_mails_a_day_reach_one_address_and_the_fourth_is_429(box):
    for _ in range(3):
        assert submit(box)[0] == 200
    status, _, page = submit(box, {**GOOD, "email": " Stranger@Example.NET "})
    assert status == 429 and "Too many requests" in page and "stranger" not in page
    assert len(links(box)) == 3
    assert submit(box, {**GOOD, "email": "someone.else@example.net"})[0] == 200


def test_the_owners_send_budget_counts_sends_not_rows_still_waiting(box):
    with ledger(box) as db:
        db.execute("UPDATE users SET send_budget = 2")
    for n in range(2):
        assert submit(box, {**GOOD, "email": f"s{n}@example.net"})[0] == 200
        assert visit(box, "POST", confirm_path(box))[0] == 200
    seqs = [r["seq"] for r in drain(box)]
    assert box.json("POST", "/v1/queue/ack", body={"seqs": seqs}, key="drain") == \
        (200, {"deleted": 2})
    status, _, page = submit(box, {**GOOD, "email": "s3@example.net"})
    assert status == 429 and len(links(box)) == 2


def test_a_parked_drain_wakes_when_a_stranger_confirms(box):
    got = {}

    def wait():
        got["answer"] = box.json("GET", "/v1/queue?since=0&wait=20", key="drain")

    waiter = threading.Thread(target=wait)
    waiter.start()
    submit(box)
    visit(box, "POST", confirm_path(box))
    waiter.join(30)
    status, body = got["answer"]
    assert status == 200 and [r["type"] for r in body["records"]] == ["meeting"]


def test_an_unreadable_body_is_the_form_back_with_a_reason(box):
    status, _, page = visit(box, "POST", "/f/ada/meeting", body=b"email=%zz",
                            headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert status == 400 and "could not be read" in page and links(box) == []
