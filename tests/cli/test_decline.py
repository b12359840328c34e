"""A person settles a booking the sweep did not (issue 23): `frontdoor decline` turns
down one it left, telling the requester where to pick another time; `close --notify`
cancels a booked one with its iTIP CANCEL; a booked request is not closed silently
unless the person says so."""
import json

import pytest

from test_sweep import (BOOKING, calendar_part, configure, booking, events, one, slot,
                        sweep, unfold)

PAGE = "https://gate.example.org/s/me/meeting"


def item(mecha, id_):
    return json.loads((mecha.home / "outbox" / f"{id_}.json").read_text())


def staged(p):
    return p.out.split("staged as ")[1].split(":")[0]


def busy(cal, start):
    (cal / "dentist.ics").write_text(
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nBEGIN:VEVENT\r\n"
        "UID:dentist-1\r\nDTSTAMP:20260801T000000Z\r\nSUMMARY:Dentist\r\n"
        f"DTSTART:{start.replace('-', '').replace(':', '')}\r\nDURATION:PT1H\r\n"
        "END:VEVENT\r\nEND:VCALENDAR\r\n")


def test_a_conflict_is_declined_with_a_link_to_pick_another_time(mecha, smtp_sink):
    cal = configure(mecha, smtp_sink)
    start, end = slot()
    busy(cal, start)
    booking(mecha, when=(start, end))
    sweep(mecha, check=3)  # CONFLICT: left for a person
    p = mecha.run("frontdoor", "decline", "1", "--reason", "the dentist", check=0)
    id_ = staged(p)
    rec = mecha.read_record(1)
    assert rec["state"] == "closed" and rec["note"] == "the dentist"
    assert rec["outbox"] == [id_] and rec["close_notice"] == id_
    args = item(mecha, id_)["args"]
    assert args["to"] == "Ada Lovelace <ada@example.org>"
    assert PAGE in args["body"] and "/m/" not in args["body"] and start in args["body"]
    assert "the dentist" not in args["body"]  # the reason is the person's note, not mailed
    # The request is closed, yet the decline it staged goes without --force.
    mecha.run("outbox", "approve", id_, check=0)
    [msg] = smtp_sink.messages()
    assert PAGE in msg.get_content()
    sweep(mecha, check=0)  # the sweep leaves a closed booking alone
    assert [e.name for e in events(cal)] == ["dentist.ics"]


def test_decline_refuses_what_is_not_a_booking_a_booked_one_and_a_closed_one(mecha, smtp_sink):
    configure(mecha, smtp_sink)
    mecha.write_record(1, reply_to="ada@example.org")
    booking(mecha, 2, state="booked", note=f"booking-{BOOKING}@mecha")
    booking(mecha, 3, state="closed", note="gone")
    booking(mecha, 4, reply_to=None)
    for seq, code in ((1, "not a booking"), (2, "close --notify"), (3, "closed"),
                      (4, "reply_to")):
        p = mecha.run("frontdoor", "decline", str(seq), check=3)
        assert code in p.err, p.err
    assert not any((mecha.home / "outbox").glob("*.json"))
    assert mecha.read_record(2)["state"] == "booked"


def test_closing_a_booked_request_names_both_flags_and_notify_withdraws_the_event(
        mecha, smtp_sink):
    cal = configure(mecha, smtp_sink)
    start, end = slot()
    booking(mecha, when=(start, end))
    sweep(mecha, check=0)
    assert mecha.read_record(1)["state"] == "booked" and len(events(cal)) == 1
    before = (mecha.requests / "0000000001-meeting.json").read_bytes()
    p = mecha.run("frontdoor", "close", "1", "--reason", "ill", check=3)
    assert "--notify" in p.err and "--no-notify" in p.err
    assert (mecha.requests / "0000000001-meeting.json").read_bytes() == before

    p = mecha.run("frontdoor", "close", "1", "--reason", "I am ill", "--notify", check=0)
    id_ = staged(p)
    rec = mecha.read_record(1)
    assert rec["state"] == "closed" and rec["note"] == "I am ill"
    it = item(mecha, id_)
    assert it["tool"] == "calendar_cancel" and it["args"]["uid"] == f"booking-{BOOKING}@mecha"
    assert len(events(cal)) == 1  # withdrawn only once released
    mecha.run("outbox", "approve", id_, check=0)
    assert events(cal) == []
    cancel = smtp_sink.messages()[-1]
    _, part = calendar_part(cancel)
    itip = unfold(part.get_content())
    assert one(itip, "METHOD") == "CANCEL" and one(itip, "UID") == f"booking-{BOOKING}@mecha"


def test_no_notify_closes_a_booked_request_quietly(mecha, smtp_sink):
    configure(mecha, smtp_sink)
    booking(mecha, state="booked", note=f"booking-{BOOKING}@mecha")
    mecha.run("frontdoor", "close", "1", "--reason", "phoned", "--notify", "--no-notify",
              check=2)
    mecha.run("frontdoor", "close", "1", "--reason", "phoned", "--no-notify", check=0)
    assert mecha.read_record(1)["state"] == "closed"
    assert not any((mecha.home / "outbox").glob("*.json"))


# -- the box hears of it ---------------------------------------------------------------
@pytest.mark.usefixtures("box_ledger")
def test_a_decline_tells_the_box_whose_manage_page_says_so_and_frees_the_slot(mecha, tmp_path,
                                                                              smtp_sink):
    from box_fixture import Box
    from box_visit import links, offered, path_of, payloads, push_slots, put_type, visit
    from test_box_bookings import CONSULT, hold, slots
    from test_drain import connect

    box = Box(tmp_path).start()
    try:
        put_type(box, CONSULT)
        a = slots(1)[0]
        push_slots(box, "consult", [a])
        hold(box, a)
        visit(box, "POST", path_of(links(box)[-1]))  # confirmed: "You're booked"
        assert offered(box) == []
        [p] = payloads(box)
        configure(mecha, smtp_sink)
        connect(mecha, box)
        mecha.write_record(1, type_id="consult", values=p, reply_to="booker@example.net")
        out = mecha.run("frontdoor", "decline", "1", check=0).out
        assert "the box was told" in out
        page = visit(box, "GET", path_of(p["_manage_url"]))[2]
        assert "This booking was declined" in page and "Pick another time" in page
        assert "Cancel this booking" not in page
        assert offered(box) == [a]  # the slot is offered again
        # Told again (a rerun), the box says it had it as no longer confirmed.
        status, body = box.json("POST", "/v1/bookings/decline", key="drain",
                                body=json.dumps({"ids": [p["_booking_id"]]}).encode())
        assert status == 200 and body == {"declined": 0}
        status, _ = box.json("POST", "/v1/bookings/decline", key="publish",
                             body=b'{"ids": []}')
        assert status == 403
        status, _ = box.json("POST", "/v1/bookings/decline", key="drain",
                             body=b'{"ids": ["../x"]}')
        assert status == 400
    finally:
        box.stop()


@pytest.mark.usefixtures("box_ledger")
def test_closing_a_booked_request_with_notify_tells_the_box_it_was_cancelled_by_the_owner(
        mecha, tmp_path, smtp_sink):
    from box_fixture import Box
    from box_visit import links, offered, path_of, payloads, push_slots, put_type, visit
    from test_box_bookings import CONSULT, hold, slots
    from test_drain import connect

    box = Box(tmp_path).start()
    try:
        put_type(box, CONSULT)
        a = slots(1)[0]
        push_slots(box, "consult", [a])
        hold(box, a)
        visit(box, "POST", path_of(links(box)[-1]))  # confirmed: "You're booked"
        [p] = payloads(box)
        configure(mecha, smtp_sink)
        connect(mecha, box)
        mecha.write_record(1, type_id="consult", values=p, reply_to="booker@example.net",
                           state="booked", note=f"booking-{p['_booking_id']}@mecha")
        out = mecha.run("frontdoor", "close", "1", "--reason", "I am ill", "--notify",
                        check=0).out
        assert "the box was told" in out and "cancelled" in out
        assert mecha.read_record(1, "consult")["state"] == "closed"
        page = visit(box, "GET", path_of(p["_manage_url"]))[2]
        assert "This booking was cancelled" in page and "cancelled by the person" in page
        assert "Cancel this booking" not in page and "Pick another time" in page
        assert offered(box) == [a]  # the slot is offered again
        status, _ = box.json("POST", "/v1/bookings/decline", key="drain",
                             body=b'{"ids": [], "cancelled": "yes"}')
        assert status == 400
    finally:
        box.stop()


def test_without_a_box_the_decline_stands_and_says_the_box_was_not_told(mecha, smtp_sink):
    configure(mecha, smtp_sink)
    booking(mecha)
    p = mecha.run("frontdoor", "decline", "1", check=0)
    assert "the box was not told" in p.err
    assert mecha.read_record(1)["state"] == "closed"
