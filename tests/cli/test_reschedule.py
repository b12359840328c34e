"""A booking moved without a cancel and a rebook (issue 23, item 4;
docs/bookings.md "Moving a booking", box-pages.md §3.5): the manage page's
"pick another time" holds a new time, a link to the address the booking was
made with confirms it, and the confirm moves the old booking in the same
transaction; the drain brings one rescheduling record; the sweep moves the
event — the same UID, SEQUENCE + 1, an iTIP REQUEST saying the old and the new
time — and closes the old booking's record. The box is not trusted: a
rescheduling of a booking home never booked, or to a time home never offered,
is left for a person and mails nothing."""
import json
from datetime import timedelta

import pytest

from box_fixture import Box
from box_visit import (drain, hour, links, offered, path_of, payloads, push_slots, put_type,
                       slot, slot_value, visit)
from test_box_bookings import CONSULT, hold
from test_sweep import (BOOKING, MANAGE, booking, calendar_part, configure, events, ics_time,
                        ledger, offer, one, slot as home_slot, sweep, unfold)

STRANGER = "booker@example.net"
MOVED = "This booking was moved"


def manage_of(box, n=-1):
    return path_of(payloads(box)[n]["_manage_url"])


def booked_box(tmp_path, extra=None):
    """A box with two times on offer, the first booked by STRANGER: (box, booked, other)."""
    box = Box(tmp_path, extra=extra).start() if extra else Box(tmp_path).start()
    put_type(box, CONSULT)
    a, b = slot(hour(days=3)), slot(hour(days=3, hours=2))
    push_slots(box, "consult", [a, b])
    hold(box, a)
    assert "re booked" in visit(box, "POST", path_of(links(box)[-1]))[2]
    return box, a, b


def move(box, path, s, email=STRANGER):
    return visit(box, "POST", path, fields={"_slot": slot_value(s), "email": email})


# -- the box ----------------------------------------------------------------------------
@pytest.mark.usefixtures("box_ledger")
def test_pick_another_time_holds_it_and_the_confirm_moves_the_booking_in_one_go(tmp_path):
    box, a, b = booked_box(tmp_path)
    try:
        path = manage_of(box)
        old_id = payloads(box)[0]["_booking_id"]
        page = visit(box, "GET", path)[2]
        assert f'href="{path}?move=1"' in page and "pick another time" in page
        status, _, page = visit(box, "GET", path + "?move=1")
        # The week again, bound to the manage link: the booking's own time is not on it.
        assert status == 200 and "Pick another time" in page
        assert f'value="{slot_value(b)}"' in page and f'value="{slot_value(a)}"' not in page
        assert f'action="{path}"' in page and 'name="email"' in page
        assert 'name="topic"' not in page  # the answers stay the ones home has

        # Only the address the booking was made with may move it: nothing is held otherwise.
        status, _, page = move(box, path, b, email="someone@example.net")
        assert status == 200 and "not the address this booking was made with" in page
        assert b in offered(box) and len(links(box)) == 1

        status, _, page = move(box, path, b, email=" Booker@Example.NET ")
        assert status == 200 and "Almost there" in page
        assert page.index("Your booking is still at:") < page.index("The new time, held")
        assert page.count('class="when-booked"') == 2, "the old time is not on the page"
        assert b not in offered(box) and a not in offered(box)  # both live until confirmed
        assert len(payloads(box)) == 1, "an unconfirmed move reached the queue"
        status, _, page = visit(box, "POST", path_of(links(box)[-1]))
        assert status == 200 and "Your booking is moved" in page
        assert page.index("From:") < page.index("To:")
        assert offered(box) == [a], "the old time was not freed by the confirm"

        [_, moved] = payloads(box)
        assert set(moved) == {"_booking_id", "_rescheduled_from", "_slot_start", "_slot_end",
                              "_duration_minutes", "_manage_url", "_type_version"}
        assert moved["_rescheduled_from"] == old_id and moved["_booking_id"] != old_id
        assert (moved["_slot_start"], moved["_slot_end"]) == (b["start"], b["end"])

        # The old link says where the booking went and cancels nothing any more.
        page = visit(box, "GET", path)[2]
        assert MOVED in page and "Cancel this booking" not in page
        assert page.count('class="when-booked"') == 2
        assert visit(box, "POST", path)[0] == 200 and len(payloads(box)) == 2
        assert move(box, path, a)[0] == 200 and len(links(box)) == 2  # nor moves again
        new = path_of(moved["_manage_url"])
        assert "Cancel this booking" in visit(box, "GET", new)[2]
    finally:
        box.stop()


@pytest.mark.usefixtures("box_ledger")
def test_a_new_time_overlapping_the_booking_is_refused_with_the_reason(tmp_path):
    box = Box(tmp_path).start()
    try:
        put_type(box, CONSULT)
        start = hour(days=3)
        a, half = slot(start), slot(start + timedelta(minutes=15))
        push_slots(box, "consult", [a, half])
        hold(box, a)
        visit(box, "POST", path_of(links(box)[-1]))
        path = manage_of(box)
        assert f'value="{slot_value(half)}"' not in visit(box, "GET", path + "?move=1")[2]
        status, _, page = move(box, path, half)
        assert status == 200 and "cannot overlap" in page and "cancel it and book again" in page
        assert len(links(box)) == 1 and len(payloads(box)) == 1
        assert "Cancel this booking" in visit(box, "GET", path)[2]
    finally:
        box.stop()


@pytest.mark.usefixtures("box_ledger")
def test_a_move_confirmed_after_the_booking_was_cancelled_books_nothing(tmp_path):
    box, a, b = booked_box(tmp_path)
    try:
        path = manage_of(box)
        move(box, path, b)
        confirm = path_of(links(box)[-1])
        assert "<h1>Cancelled</h1>" in visit(box, "POST", path)[2]
        status, _, page = visit(box, "POST", confirm)
        assert status == 200 and "Nothing was moved" in page
        assert sorted(s["start"] for s in offered(box)) == sorted([a["start"], b["start"]])
        assert [set(p) for p in payloads(box)][1] == {"_booking_id", "_cancelled",
                                                       "_slot_start", "_slot_end"}
        assert len(payloads(box)) == 2
    finally:
        box.stop()


# -- the whole loop: box, drain, sweep --------------------------------------------------
@pytest.mark.usefixtures("box_ledger")
def test_the_requesters_calendar_entry_moves_in_place_and_the_mails_say_both_times(
        mecha, tmp_path, smtp_sink):
    from test_drain import connect
    from test_e2e_booking import CONSULT as HOME_CONSULT
    from test_e2e_booking import drain_home, link_in, mails_to, push

    box = Box(tmp_path, extra=f'[mail]\nsmtp_url = "{smtp_sink.url}"\n'
                              'from = "Ada\'s box <box@example.org>"').start()
    try:
        connect(mecha, box)
        (mecha.home / "factory" / "types" / "consult.toml").write_text(HOME_CONSULT)
        cal = configure(mecha, smtp_sink)
        mecha.json("types", "push", "consult", "--json")
        week = push(mecha)
        first, later = week[0], week[1]
        visit(box, "POST", "/s/ada/consult",
              fields={"_slot": slot_value(first), "email": STRANGER, "topic": "compilers"})
        [verify] = mails_to(smtp_sink, STRANGER, 1)
        visit(box, "POST", path_of(link_in(verify.get_content(), "/c/")))
        drain_home(mecha)
        sweep(mecha)
        [old] = mecha.json("frontdoor", "list", "--json")
        [_, invite] = mails_to(smtp_sink, STRANGER, 2)
        text, _ = calendar_part(invite)
        manage = path_of(link_in(text, "/m/"))

        # The requester picks another time on the manage page and confirms it by mail.
        status, _, page = visit(box, "POST", manage,
                                fields={"_slot": slot_value(later), "email": STRANGER})
        assert status == 200 and "Almost there" in page
        [_, _, verify] = mails_to(smtp_sink, STRANGER, 3)
        assert verify["Subject"] == "Confirm the move of your Book a consultation booking"
        body = verify.get_content()
        assert "From: " in body and "\n\nTo: " in body and "9:00 am" in body
        status, _, page = visit(box, "POST", path_of(link_in(body, "/c/")))
        assert status == 200 and "Your booking is moved" in page

        # One record comes home; the sweep moves the event in place.
        drain_home(mecha)
        rows = mecha.json("frontdoor", "list", "--json")
        assert len(rows) == 2
        p = sweep(mecha, "-v")
        assert p.out.startswith("moved") and f"from booking {old['seq']}" in p.out
        [event] = events(cal)
        ev = unfold(event.read_text())
        uid = old["note"]
        assert one(ev, "UID") == uid and one(ev, "SEQUENCE") == "1"
        assert one(ev, "DTSTART") == ics_time(later["start"])
        [_, _, _, moved] = mails_to(smtp_sink, STRANGER, 4)
        text, part = calendar_part(moved)
        itip = unfold(part.get_content())
        assert part.get_param("method") == "REQUEST" and one(itip, "METHOD") == "REQUEST"
        assert one(itip, "UID") == uid and one(itip, "SEQUENCE") == "1"
        assert one(itip, "DTSTART") == ics_time(later["start"])
        assert moved["Subject"].startswith("Moved: ")
        assert "\nFrom: " in text and "\nTo:   " in text
        new_manage = link_in(text, "/m/")
        assert path_of(new_manage) != manage
        states = {r["seq"]: (r["state"], r.get("note", "")) for r in
                  mecha.json("frontdoor", "list", "--json")}
        assert states[old["seq"]][0] == "closed"
        assert states[old["seq"]][1].startswith("rescheduled by the requester")
        assert [s for s, _ in states.values()].count("booked") == 1
        assert first in push(mecha) and later not in push(mecha)
        assert sweep(mecha).out == "" and len(smtp_sink.messages()) == 4

        # Cancelled later through the new link: the moved event goes, SEQUENCE one up.
        visit(box, "POST", path_of(new_manage))
        drain_home(mecha)
        assert sweep(mecha, "-v").out.startswith("cancelled")
        assert events(cal) == []
        [*_, cancel] = mails_to(smtp_sink, STRANGER, 5)
        itip = unfold(calendar_part(cancel)[1].get_content())
        assert one(itip, "METHOD") == "CANCEL" and one(itip, "UID") == uid
        assert one(itip, "SEQUENCE") == "2"
    finally:
        box.stop()


# -- a hostile box: home believes only its own ledger -----------------------------------
NEW = "0b1c2d3e4f5061728394a5b6c7d8e9f0"
NEW_MANAGE = "https://gate.example.org/s/me/meeting/m/00112233445566778899aabbccddeeff"


def rescheduling(mecha, seq=2, moves=BOOKING, when=None, offered=True):
    start, end = when or home_slot(days=11)
    if offered:
        offer(mecha, (start, end))
    return mecha.write_record(seq, values={
        "_booking_id": NEW, "_rescheduled_from": moves, "_slot_start": start,
        "_slot_end": end, "_duration_minutes": 45, "_manage_url": NEW_MANAGE})


def booked_home(mecha, smtp_sink):
    cal = configure(mecha, smtp_sink)
    booking(mecha, 1)
    assert sweep(mecha).returncode == 0 and mecha.read_record(1)["state"] == "booked"
    assert smtp_sink.wait_for(1)
    return cal, events(cal)[0].read_bytes()


def test_a_rescheduling_of_a_booking_home_never_booked_is_left_and_mails_nothing(
        mecha, smtp_sink):
    cal, event = booked_home(mecha, smtp_sink)
    rescheduling(mecha, moves="ffffffffffffffffffffffffffffffff")
    p = sweep(mecha, "--json", check=3)
    out = json.loads(p.out)
    [left] = out["left"]
    assert left["seq"] == 2 and left["reason"] == "unknown_booking" and out["moved"] == []
    assert mecha.read_record(2)["state"] == "drained"
    assert mecha.read_record(1)["state"] == "booked"
    assert events(cal)[0].read_bytes() == event and len(smtp_sink.messages()) == 1


def test_a_rescheduling_to_a_time_home_never_offered_is_left_and_mails_nothing(
        mecha, smtp_sink):
    cal, event = booked_home(mecha, smtp_sink)
    rescheduling(mecha, offered=False)
    p = sweep(mecha, "--json", check=3)
    [left] = json.loads(p.out)["left"]
    assert left["seq"] == 2 and left["reason"] == "not_offered"
    assert [mecha.read_record(s)["state"] for s in (1, 2)] == ["booked", "drained"]
    assert events(cal)[0].read_bytes() == event and len(smtp_sink.messages()) == 1


def test_a_rescheduling_of_a_booking_already_cancelled_is_left(mecha, smtp_sink):
    from test_sweep import cancellation
    booked_home(mecha, smtp_sink)
    cancellation(mecha, 3)
    sweep(mecha)
    rescheduling(mecha, seq=4)
    [left] = json.loads(sweep(mecha, "--json", check=3).out)["left"]
    assert left["seq"] == 4 and left["reason"] == "unknown_booking"
    assert events(mecha.tmp / "calendar") == [] and len(smtp_sink.messages()) == 2


def test_a_cancellation_of_the_old_id_after_a_move_withdraws_nothing(mecha, smtp_sink):
    from test_sweep import cancellation
    cal, _ = booked_home(mecha, smtp_sink)
    rescheduling(mecha)
    assert sweep(mecha).returncode == 0
    cancellation(mecha, 3)
    [left] = json.loads(sweep(mecha, "--json", check=3).out)["left"]
    assert left["seq"] == 3
    assert len(events(cal)) == 1 and len(smtp_sink.messages()) == 2


# -- killed at every step of a move -----------------------------------------------------
MOVE_POINTS = ["event", "event-written", "invite", "invite-sent", "move-old", "moved",
               "booked"]


@pytest.mark.parametrize("point", MOVE_POINTS)
def test_a_sweep_killed_while_moving_then_rerun_moves_exactly_once(mecha, smtp_sink, point):
    cal, _ = booked_home(mecha, smtp_sink)
    start, end = home_slot(days=11)
    rescheduling(mecha, when=(start, end))
    p = sweep(mecha, check=None, env={"MECHA_TEST_KILL_AT": point})
    assert p.returncode == -9, f"the sweep was not killed at {point}: {p.returncode} {p.err}"
    sweep(mecha)
    assert [mecha.read_record(s)["state"] for s in (1, 2)] == ["closed", "booked"]
    [path] = events(cal)
    ev = unfold(path.read_text())
    assert one(ev, "UID") == f"booking-{BOOKING}@mecha" and one(ev, "SEQUENCE") == "1"
    assert one(ev, "DTSTART") == ics_time(start)
    assert smtp_sink.wait_for(2)
    assert [m["Message-ID"] for m in smtp_sink.messages()] == [
        f"<booking-{BOOKING}-request@mecha>", f"<booking-{NEW}-request@mecha>"]
    assert sweep(mecha).out == "" and len(smtp_sink.raw()) == 2
    steps = [(line["booking_id"], line["step"]) for line in ledger(mecha)]
    assert steps.count((BOOKING, "moved")) == 1


@pytest.mark.parametrize("point", [None, "remove", "removed", "cancel-mail", "closed"])
def test_a_move_cancelled_before_any_sweep_moved_it_withdraws_the_booking_it_came_from(
        mecha, smtp_sink, point):
    """Moved on the box, then cancelled through the new link, before a sweep ran: the
    box has freed both times, so home withdraws the booking the move came from."""
    from test_sweep import cancellation
    cal, _ = booked_home(mecha, smtp_sink)
    rescheduling(mecha)
    cancellation(mecha, 3, booking_id=NEW, when=home_slot(days=11))
    if point:
        p = sweep(mecha, check=None, env={"MECHA_TEST_KILL_AT": point})
        assert p.returncode == -9, f"the sweep was not killed at {point}: {p.err}"
    assert sweep(mecha).returncode == 0
    assert events(cal) == []
    assert [mecha.read_record(s)["state"] for s in (1, 2, 3)] == ["closed"] * 3
    assert smtp_sink.wait_for(2)
    [_, cancel] = smtp_sink.messages()
    assert cancel["Message-ID"] == f"<booking-{NEW}-cancel@mecha>"
    itip = unfold(calendar_part(cancel)[1].get_content())
    assert one(itip, "METHOD") == "CANCEL" and one(itip, "UID") == f"booking-{BOOKING}@mecha"
    assert sweep(mecha).out == "" and len(smtp_sink.raw()) == 2


def test_a_booking_and_its_move_arriving_together_are_settled_in_one_sweep(mecha, smtp_sink):
    cal = configure(mecha, smtp_sink)
    booking(mecha, 1)
    start, end = home_slot(days=11)
    rescheduling(mecha, when=(start, end))
    p = sweep(mecha, "-v")
    assert p.returncode == 0 and p.out.startswith("booked") and "\nmoved" in p.out
    assert [mecha.read_record(s)["state"] for s in (1, 2)] == ["closed", "booked"]
    [path] = events(cal)
    assert one(unfold(path.read_text()), "DTSTART") == ics_time(start)
    assert smtp_sink.wait_for(2) and len(smtp_sink.messages()) == 2


# -- a move the sweep left, settled by a person -----------------------------------------
@pytest.mark.usefixtures("box_ledger")
def test_a_move_left_as_a_conflict_is_declined_to_the_original_booker_and_the_old_booking_stands(
        mecha, tmp_path, smtp_sink):
    from test_decline import busy, item, staged
    from test_drain import connect
    from test_e2e_booking import CONSULT as HOME_CONSULT
    from test_e2e_booking import drain_home, link_in, mails_to, push

    box = Box(tmp_path, extra=f'[mail]\nsmtp_url = "{smtp_sink.url}"\n'
                              'from = "Ada\'s box <box@example.org>"').start()
    try:
        connect(mecha, box)
        (mecha.home / "factory" / "types" / "consult.toml").write_text(HOME_CONSULT)
        cal = configure(mecha, smtp_sink)
        mecha.json("types", "push", "consult", "--json")
        week = push(mecha)
        first, later = week[0], week[1]
        visit(box, "POST", "/s/ada/consult",
              fields={"_slot": slot_value(first), "email": STRANGER, "topic": "compilers"})
        [verify] = mails_to(smtp_sink, STRANGER, 1)
        visit(box, "POST", path_of(link_in(verify.get_content(), "/c/")))
        drain_home(mecha)
        sweep(mecha)
        [old] = mecha.json("frontdoor", "list", "--json")
        [_, invite] = mails_to(smtp_sink, STRANGER, 2)
        manage = path_of(link_in(calendar_part(invite)[0], "/m/"))
        visit(box, "POST", manage, fields={"_slot": slot_value(later), "email": STRANGER})
        [*_, verify] = mails_to(smtp_sink, STRANGER, 3)
        assert "Your booking is moved" in visit(
            box, "POST", path_of(link_in(verify.get_content(), "/c/")))[2]
        assert MOVED in visit(box, "GET", manage)[2]

        # The calendar fills at the new time: the sweep leaves the move for a person.
        busy(cal, later["start"])
        drain_home(mecha)
        out = json.loads(sweep(mecha, "--json", check=3).out)
        [left] = out["conflicts"]
        seq = left["seq"]
        assert mecha.read_record(seq, "consult")["state"] == "drained"
        assert "reply_to" not in mecha.read_record(seq, "consult")  # the box's words carry no address

        p = mecha.run("frontdoor", "decline", str(seq), "--reason", "calendar full", check=0)
        assert "the box was told" in p.out
        rec = mecha.read_record(seq, "consult")
        assert rec["state"] == "closed" and rec["note"] == "calendar full"
        args = item(mecha, staged(p))["args"]
        # The address is the one home booked the original with, from its own ledger.
        assert STRANGER in args["to"]
        assert args["subject"] == "Your booking could not be moved"
        body = args["body"]
        assert first["start"] in body and later["start"] in body and "stands" in body
        assert path_of(link_in(body, "/m/")) == manage
        assert mecha.read_record(old["seq"], "consult")["state"] == "booked"  # home's booking stands
        mecha.run("outbox", "approve", staged(p), check=0)
        [*_, mail] = mails_to(smtp_sink, STRANGER, 4)
        assert mail["Subject"] == "Your booking could not be moved"

        # The box gives the original back: its manage page is active again, its time held.
        page = visit(box, "GET", manage)[2]
        assert MOVED not in page and "Cancel this booking" in page
        moved = path_of(mecha.read_record(seq, "consult")["values"]["_manage_url"])
        assert "This booking was declined" in visit(box, "GET", moved)[2]
        assert first not in offered(box)
        status, body = box.json("POST", "/v1/bookings/decline", key="drain",
                                body=json.dumps({"ids": [left["booking_id"]]}).encode())
        assert status == 200 and body == {"declined": 0}  # a rerun gives nothing back twice
        assert "Cancel this booking" in visit(box, "GET", manage)[2]
    finally:
        box.stop()


def test_declining_a_move_of_a_booking_home_does_not_know_is_refused_and_changes_nothing(
        mecha, smtp_sink):
    booked_home(mecha, smtp_sink)
    rescheduling(mecha, moves="ffffffffffffffffffffffffffffffff")
    sweep(mecha, check=3)
    drafts = sorted((mecha.home / "outbox").glob("*.json"))
    p = mecha.run("frontdoor", "decline", "2", check=3)
    assert "ffffffffffffffffffffffffffffffff" in p.err and "does not know" in p.err
    assert mecha.read_record(2)["state"] == "drained"
    assert sorted((mecha.home / "outbox").glob("*.json")) == drafts
