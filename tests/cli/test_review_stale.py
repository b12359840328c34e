"""mecha review opens on the request that has waited on the person longest past
[frontdoor] stale_hours (the clock fixed with MECHA_NOW, test builds only)."""
import datetime

from test_review import configure, extracted, screen  # noqa: F401 - screen is a fixture

NOW = datetime.datetime(2031, 3, 10, 12, 0, tzinfo=datetime.timezone.utc)
H = datetime.timedelta(hours=1)


def z(t):
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def came(mecha, seq, topic, hours_ago, **kw):
    extracted(mecha, seq, topic, drained_at=z(NOW - hours_ago * H), **kw)


def test_the_screen_opens_on_the_oldest_stale_request(mecha, screen):  # noqa: F811
    configure(mecha)
    came(mecha, 1, "fresh topic", 10)
    came(mecha, 2, "older topic", 100, state="triaged")
    came(mecha, 3, "oldest topic", 200)
    came(mecha, 4, "parked topic", 900, state="needs_info")  # waits on the requester
    s = screen(cols=100, rows=40, env={"MECHA_NOW": z(NOW)})
    flat = s.wait_for("fresh topic")
    assert "About oldest topic, please." in flat
    assert "About fresh topic, please." not in flat
    s.quit()


def test_with_nothing_stale_the_screen_opens_on_the_first_request(mecha, screen):  # noqa: F811
    configure(mecha)
    came(mecha, 1, "fresh topic", 10)
    came(mecha, 2, "younger topic", 5)
    s = screen(cols=100, rows=40, env={"MECHA_NOW": z(NOW)})
    flat = s.wait_for("younger topic")
    assert "About fresh topic, please." in flat
    assert "About younger topic, please." not in flat
    s.quit()
