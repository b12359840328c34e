"""Done means (issue 23): with no provider configured, a person takes every request in
the store to `answered` or `closed` with the verbs alone, and the requester hears of
every decision that affects them — a form request answered, a booking in conflict
declined, a booked one cancelled, a request asked back and then answered."""
from conftest import write_config
from test_decline import busy, staged
from test_sweep import booking, events, slot, sweep


def test_with_no_provider_every_request_reaches_an_answer_and_its_requester_hears(
        mecha, smtp_sink):
    cal = mecha.tmp / "calendar"
    cal.mkdir()
    write_config(mecha, '[outbox]\ntools = ["mail_send"]\n'
                 f'[mail]\nsmtp_url = "{smtp_sink.url}"\nfrom = "Me <me@example.org>"\n'
                 f'[calendar]\npath = "{cal}"\ntimezone = "UTC"\n')
    mecha.write_record(1, reply_to="form@example.org")  # a form request, never extracted
    conflict, free = slot(hour=9), slot(hour=14)
    busy(cal, conflict[0])
    booking(mecha, 2, booking_id="a" * 32, when=conflict, type_id="consult",
            reply_to="conflict@example.org")
    booking(mecha, 3, booking_id="b" * 32, when=free, type_id="consult",
            reply_to="booked@example.org")
    mecha.write_record(4, reply_to="asked@example.org")
    sweep(mecha, check=3)  # 2 is a CONFLICT, left for a person; 3 is booked and invited
    assert mecha.read_record(3, "consult")["state"] == "booked"
    assert len(events(cal)) == 2  # the dentist and 3's event

    def release(p):
        mecha.run("outbox", "approve", p.out.split()[1] if "staged as" not in p.out
                  else staged(p), check=0)

    release(mecha.run("frontdoor", "reply", "1", "--body", "Yes, gladly.", check=0))
    release(mecha.run("frontdoor", "decline", "2", check=0))
    release(mecha.run("frontdoor", "close", "3", "--reason", "I am ill", "--notify", check=0))
    release(mecha.run("frontdoor", "needs-info", "4", "--note", "Which Tuesday?", "--ask",
                      check=0))
    assert mecha.read_record(4)["state"] == "needs_info"
    release(mecha.run("frontdoor", "reply", "4", "--body", "Tuesday it is.", check=0))
    mecha.run("frontdoor", "reconcile", check=0)

    states = {seq: mecha.read_record(seq, t)["state"]
              for seq, t in ((1, "meeting"), (2, "consult"), (3, "consult"), (4, "meeting"))}
    assert states == {1: "answered", 2: "closed", 3: "closed", 4: "answered"}
    assert len(events(cal)) == 1  # 3's event withdrawn: the dentist is left
    heard = {}  # recipient: [(subject, the text part)], in the order sent
    for m in smtp_sink.messages():
        text = m.get_body(preferencelist=("plain",)).get_content()
        heard.setdefault(m["To"].addresses[0].addr_spec, []).append((m["Subject"], text))
    [(_, reply)] = heard["form@example.org"]
    assert "Yes, gladly." in reply
    [(_, decline)] = heard["conflict@example.org"]  # the decline, with the booking page
    assert "https://gate.example.org/s/me/meeting" in decline
    invitation, cancel = heard["booked@example.org"]  # the invitation, then the CANCEL
    assert cancel[0].startswith("Cancelled")
    assert [("Which Tuesday?" in b, "Tuesday it is." in b)
            for _, b in heard["asked@example.org"]] == [(True, False), (False, True)]
