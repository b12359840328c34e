"""A stranger books a time on a real `mecha box serve` (docs/protocol/box-pages.md §3
"Booking"): the week from the slots home pushed, the hold decided by the
database, the confirm that queues the booking with its manage link, the
cancel that queues a cancellation — and the limits of §6: the booking POST
spends the mail budgets, and a stranger holds at most two times at once."""
import json
import threading

import pytest

from box_fixture import Box, manifest
from box_visit import (NO_BOOKING, drain, hour, ledger, links, offered, path_of, payloads,
                       push_slots, put_type, slot, slot_value, visit)

# Every test once on SQLite and once on PostgreSQL (conftest.py).
pytestmark = pytest.mark.usefixtures("box_ledger")

CONSULT = manifest("consult", "Book a consultation", """
[[fields]]
name = "topic"
label = "Topic"
kind = "text"
max_length = 100
required = true
""", kind="booking", after="""
[availability]
timezone = "UTC"
durations = [30, 60]
windows = [{ day = "mon", start = "09:00", end = "17:00" }]

[policy]
hold_minutes = 30
cancel_cutoff_hours = 2
""")

HELD = "Almost there"
TAKEN = "That time was just taken"
LAPSED = "Your held time lapsed before you confirmed"
DEAD = "This link is no longer valid"


@pytest.fixture
def box(tmp_path):
    b = Box(tmp_path).start()
    put_type(b, CONSULT)
    yield b
    b.stop()


def slots(n, days=3, minutes=30):
    return [slot(hour(days=days, hours=2 * i), minutes) for i in range(n)]


def hold(box, s, email="booker@example.net", topic="taxes", source=None):
    return visit(box, "POST", "/s/ada/consult",
                 fields={"_slot": slot_value(s), "email": email, "topic": topic},
                 source=source)


def confirm(box):
    return visit(box, "POST", path_of(links(box)[-1]))


def test_the_week_shows_the_pushed_future_slots(box):
    status, _, page = visit(box, "GET", "/s/ada/consult")
    assert status == 200 and "Nothing is open at the moment" in page
    future = slots(2)
    push_slots(box, "consult", [slot(hour(days=-1))] + future)
    status, _, page = visit(box, "GET", "/s/ada/consult")
    assert status == 200 and "<h1>Book a consultation</h1>" in page
    assert page.count('name="_slot"') == 2 and f'value="{slot_value(future[0])}"' in page
    assert "Times are shown in UTC." in page and "last refreshed" not in page
    assert offered(box) == future


def test_a_push_older_than_a_day_says_so(box):
    push_slots(box, "consult", slots(1), generated_at="2020-01-01T00:00:00Z")
    assert "These times were last refreshed" in visit(box, "GET", "/s/ada/consult")[2]


def test_the_week_and_length_come_from_the_query(box):
    later = slot(hour(days=15))
    push_slots(box, "consult", slots(1) + [later, slot(hour(days=3), 60)])
    page = visit(box, "GET", "/s/ada/consult?mins=60")[2]
    assert "Pick a time (60 minutes)" in page
    monday = later["start"][:10]
    page = visit(box, "GET", f"/s/ada/consult?week={monday}")[2]
    assert f'value="{slot_value(later)}"' in page


def test_a_hold_takes_the_slot_off_the_week_and_sends_the_link(box):
    a, b = slots(2)
    push_slots(box, "consult", [a, b])
    status, _, page = hold(box, a)
    assert status == 200 and HELD in page and "held for 30 minutes" in page
    assert "booker@example.net" in page
    assert offered(box) == [b]
    [link] = links(box)
    assert path_of(link).startswith("/s/ada/consult/c/")
    assert drain(box) == []


def test_a_slot_the_cache_does_not_offer_is_the_booking_404(box):
    a = slots(1)[0]
    past = slot(hour(days=-2))
    push_slots(box, "consult", [a, past])
    for value in (past, slot(hour(days=4)), {**a, "duration_minutes": 60}):
        status, _, page = hold(box, value)
        assert status == 404 and NO_BOOKING in page
    status, _, page = visit(box, "POST", "/s/ada/consult", fields={"email": "x@example.net"})
    assert status == 404 and links(box) == []
    assert visit(box, "GET", "/s/ada/nothing")[0] == 404
    assert visit(box, "GET", "/s/nobody/consult")[2] == page


def test_refused_answers_bring_the_week_back_with_errors_and_values_kept(box):
    a = slots(1)[0]
    push_slots(box, "consult", [a])
    status, _, page = hold(box, a, email="nope", topic="")
    assert status == 200 and "this does not look like an email address" in page
    assert "this is required" in page and 'value="nope"' in page
    assert 'checked' in page and links(box) == [] and offered(box) == [a]


def test_of_many_racing_for_one_slot_exactly_one_holds_it(box):
    a = slots(1)[0]
    push_slots(box, "consult", [a])
    start, answers = threading.Barrier(8), []

    def racer(i):
        start.wait()
        answers.append(hold(box, a, email=f"r{i}@example.net", source=f"127.0.1.{i}"))

    threads = [threading.Thread(target=racer, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert sorted(HELD in p for _, _, p in answers) == [False] * 7 + [True]
    assert all(s == 200 and (HELD in p or TAKEN in p) for s, _, p in answers)
    with ledger(box) as db:
        assert db.execute("SELECT COUNT(*) FROM bookings").fetchone() == (1,)
    assert len(links(box)) == 1 and offered(box) == []


def test_a_stranger_holds_at_most_two_times_per_address_and_per_client(box):
    times = slots(6)
    push_slots(box, "consult", times)
    assert HELD in hold(box, times[0], email="a@example.net", source="127.0.0.11")[2]
    assert HELD in hold(box, times[1], email="a@example.net", source="127.0.0.12")[2]
    status, _, page = hold(box, times[2], email="A@example.net", source="127.0.0.13")
    assert status == 429 and "Too many held times" in page
    assert HELD in hold(box, times[2], email="b@example.net", source="127.0.0.14")[2]
    assert HELD in hold(box, times[3], email="c@example.net", source="127.0.0.14")[2]
    status, _, page = hold(box, times[4], email="d@example.net", source="127.0.0.14")
    assert status == 429 and "Too many held times" in page
    assert len(links(box)) == 4


def test_booking_spends_the_same_mail_budget_as_a_form(box):
    times = slots(4)
    push_slots(box, "consult", times)
    for s in times[:3]:  # confirmed holds are no longer live: only the mail budget counts
        assert HELD in hold(box, s)[2]
        assert confirm(box)[0] == 200
    status, _, page = hold(box, times[3])
    assert status == 429 and "Too many requests" in page and len(links(box)) == 3


def test_confirming_books_and_queues_the_booking_with_its_manage_link(box):
    a = slots(1)[0]
    push_slots(box, "consult", [a])
    hold(box, a)
    path = path_of(links(box)[-1])
    status, _, page = visit(box, "GET", path)
    assert status == 200 and "Confirm your booking" in page and drain(box) == []
    status, _, page = visit(box, "POST", path)
    assert status == 200 and "re booked" in page and "(UTC)" in page
    [p] = payloads(box)
    assert (p["email"], p["topic"]) == ("booker@example.net", "taxes")
    assert (p["_slot_start"], p["_slot_end"], p["_duration_minutes"]) == \
        (a["start"], a["end"], 30)
    assert len(p["_booking_id"]) == 32
    assert p["_manage_url"].startswith(f"http://127.0.0.1:{box.port}/s/ada/consult/m/")
    assert drain(box)[0]["type"] == "consult" and offered(box) == []
    status, _, page = visit(box, "POST", path)  # a second click books nothing, says what did
    assert status == 200 and "Already confirmed" in page and "(UTC)" in page
    assert len(drain(box)) == 1


def test_a_used_confirmation_link_tells_the_booking_and_how_it_stands_now(box):
    a = slots(1)[0]
    push_slots(box, "consult", [a])
    hold(box, a)
    path = path_of(links(box)[-1])
    assert visit(box, "POST", path)[0] == 200
    for method in ("GET", "GET", "POST"):  # opened again: the time, never a Confirm button
        status, _, page = visit(box, method, path)
        assert status == 200 and "Already confirmed" in page, (method, page)
        assert "Your booking is at" in page and "in the email" in page
        assert "<button" not in page and "(UTC)" in page
    [record] = drain(box)
    manage = manage_path(box)
    status, _ = box.json("POST", "/v1/queue/ack", key="drain",
                         body=json.dumps({"seqs": [record["seq"]]}).encode())
    assert status == 200 and drain(box) == []
    status, _, page = visit(box, "GET", path)  # drained and acked: the link remembers
    assert status == 200 and "Already confirmed" in page
    visit(box, "POST", manage)  # cancelled by the booker since
    status, _, page = visit(box, "GET", path)
    assert status == 200 and "Already cancelled" in page and "<button" not in page


def test_an_expired_booking_link_says_it_expired_and_offers_the_week(box):
    a = slots(1)[0]
    push_slots(box, "consult", [a])
    hold(box, a)
    path = path_of(links(box)[-1])
    with ledger(box) as db:
        db.execute("UPDATE queue SET verify_expires = '2000-01-01T00:00:00Z'")
    for method in ("GET", "POST"):
        status, _, page = visit(box, method, path)
        assert status == 404 and "This link has expired" in page, (method, page)
        assert 'href="/s/ada/consult"' in page and "<button" not in page
    box.mecha("sweep", check=0)  # the row is gone; the link still says it expired
    status, _, page = visit(box, "GET", path)
    assert status == 404 and "This link has expired" in page
    assert drain(box) == []


def test_a_hold_that_lapsed_before_the_click_books_nothing(tmp_path):
    b = Box(tmp_path).start()
    try:
        put_type(b, CONSULT.replace("hold_minutes = 30", "hold_minutes = 0"))
        a = slots(1)[0]
        push_slots(b, "consult", [a])
        assert HELD in hold(b, a)[2]
        status, _, page = confirm(b)
        assert status == 200 and LAPSED in page and f'value="{slot_value(a)}"' in page
        assert drain(b) == [] and offered(b) == [a]
        with ledger(b) as db:
            assert db.execute("SELECT COUNT(*) FROM queue").fetchone() == (0,)
        status, _, page = visit(b, "GET", path_of(links(b)[-1]))  # opened again: as then
        assert status == 200 and LAPSED in page and "Confirm your booking" not in page
    finally:
        b.stop()


def test_a_held_time_taken_by_a_lapse_and_a_rebook_cannot_be_confirmed_twice(box):
    a = slots(1)[0]
    push_slots(box, "consult", [a])
    hold(box, a, email="first@example.net")
    first = path_of(links(box)[-1])
    with ledger(box) as db:  # half an hour passes: the first hold is over
        db.execute("UPDATE bookings SET hold_expires = '2000-01-01T00:00:00Z'")
    assert HELD in hold(box, a, email="second@example.net")[2]
    assert LAPSED in visit(box, "POST", first)[2]
    assert "re booked" in confirm(box)[2]
    assert [p["email"] for p in payloads(box)] == ["second@example.net"]


def manage_path(box):
    return path_of(payloads(box)[-1]["_manage_url"])


def test_the_manage_link_cancels_and_queues_the_cancellation_for_home(box):
    a = slots(1)[0]
    push_slots(box, "consult", [a])
    hold(box, a)
    confirm(box)
    path, booking = manage_path(box), payloads(box)[0]["_booking_id"]
    status, _, page = visit(box, "GET", path)
    assert status == 200 and "Your booking" in page and "Cancel this booking" in page
    status, _, page = visit(box, "POST", path)
    assert status == 200 and "<h1>Cancelled</h1>" in page
    records = drain(box)
    assert [r["type"] for r in records] == ["consult", "consult"]
    assert json.loads(records[1]["payload"]) == {"_booking_id": booking, "_cancelled": True,
                                                 "_slot_start": a["start"],
                                                 "_slot_end": a["end"]}
    assert offered(box) == [a]
    assert "Already cancelled" in visit(box, "GET", path)[2]
    assert visit(box, "POST", path)[0] == 200 and len(drain(box)) == 2


def test_inside_the_cutoff_a_booking_cannot_be_cancelled(box):
    soon = slot(hour(hours=0))
    push_slots(box, "consult", [soon])
    hold(box, soon)
    confirm(box)
    path = manage_path(box)
    status, _, page = visit(box, "GET", path)
    assert status == 200 and "inside the cancellation window" in page
    assert "Cancel this booking" not in page
    visit(box, "POST", path)
    assert len(drain(box)) == 1 and offered(box) == []


def test_a_made_up_or_foreign_manage_link_is_no_longer_valid(box):
    put_type(box, CONSULT.replace('id = "consult"', 'id = "other"'))
    a = slots(1)[0]
    push_slots(box, "consult", [a])
    hold(box, a)
    confirm(box)
    token = manage_path(box).rsplit("/", 1)[1]
    for path in (f"/s/ada/consult/m/{'0' * 32}", f"/s/ada/other/m/{token}"):
        status, _, page = visit(box, "POST", path)
        assert status == 404 and DEAD in page
    assert len(drain(box)) == 1


def test_a_parked_drain_wakes_on_a_booking(box):
    a = slots(1)[0]
    push_slots(box, "consult", [a])
    got = {}
    waiter = threading.Thread(
        target=lambda: got.setdefault("r", box.json("GET", "/v1/queue?wait=20", key="drain")))
    waiter.start()
    hold(box, a)
    confirm(box)
    waiter.join(30)
    assert [r["type"] for r in got["r"][1]["records"]] == ["consult"]
