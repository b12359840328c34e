"""`make demo` is one of the README's two commands: it must keep working, and
what it claims (no prose in the briefs, a draft delivered once, a request
answered, a mission landed, a booking swept into an event and an invitation and
withdrawn by its cancel) must be true of the binary under test."""
import json
import os
import re
import subprocess
from datetime import datetime, timezone
from zoneinfo import ZoneInfo

from conftest import BIN, ROOT


def test_the_demo_walks_every_gate_and_says_what_each_side_saw(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("MECHA_")}
    env["TMPDIR"] = str(tmp_path)
    env["HOME"] = str(tmp_path)
    p = subprocess.run(["sh", str(ROOT / "docs" / "demo.sh"), BIN], env=env,
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    out = p.stdout
    assert "\x1b]52" not in out and "\\e]52" in out, "the injection's escape was not made visible"
    assert "FAILED" not in out
    assert "draft_reply with a 'to' of its own" in out and "nothing was done" in out
    assert "Message-ID: <" in out
    assert "never delivered twice" in out
    assert "awaiting_me → answered" in p.stderr or "awaiting_me → answered" in out
    assert "landed msn_" in out
    assert re.search(r"MECHA_HOME=\S+ \S+ review\n", out), "the demo names the review screen"
    # The loop through the box: a type and slots pushed, the queue drained home.
    assert re.search(r"published meeting: http://127\.0\.0\.1:\d+/f/\w+/meeting\n"
                     r"  api   http://127\.0\.0\.1:\d+/v1/types/meeting", out)
    assert re.search(r"pushed \d+ slots? of consult to http://127\.0\.0\.1:\d+", out)
    assert re.search(r"\ndrained \d+ from http://127\.0\.0\.1:\d+: ", out)
    check_the_booking(out)
    # With a browser here, the stranger's pages are screenshots under build/.
    if os.access("/usr/bin/chromium", os.X_OK) and \
            (ROOT / "tests" / "web" / "node_modules" / "playwright-core").is_dir():
        shots = re.findall(r"^  (/\S+/screenshots/demo/\d\d-[a-z-]+\.png)$", out, re.M)
        assert [s.rsplit("/", 1)[1] for s in shots] == [
            "01-form.png", "02-filled.png", "03-check-email.png", "04-confirm.png",
            "05-confirmed.png", "06-week.png", "07-held.png", "08-confirm.png",
            "09-booked.png", "10-manage.png", "11-cancelled.png"]
        assert all(open(s, "rb").read(8) == b"\x89PNG\r\n\x1a\n" for s in shots)
    # The sandbox goes with the demo: nothing is left in TMPDIR.
    assert [d.name for d in tmp_path.iterdir() if d.name.startswith("mecha-demo.")] == []
    # The client configuration it prints is JSON a person can paste as it is.
    lines = out.split("Its client configuration:", 1)[1].splitlines()[1:]
    config = json.loads("\n".join(lines[:lines.index("}") + 1]))
    server = config["mcpServers"]["mecha"]
    assert server["command"] == BIN and server["args"] == ["mcp"]
    assert server["env"]["MECHA_HOME"].startswith(str(tmp_path / "mecha-demo."))


def slots_shown(out):
    """Each `mecha slots show consult` the demo ran: its lines."""
    return [block.split("\n\n", 1)[0].splitlines()
            for block in out.split("$ mecha slots show consult\n")[1:]]


def check_the_booking(out):
    """A stranger's booking: swept into an event and an invitation, the time no
    longer offered; cancelled through the manage link, the event withdrawn, the
    time offered again."""
    booked = re.search(r"^booked +(\d+) +(\S+) → (\S+) +alan@example\.net +"
                       r"(booking-[0-9a-f]{32}@mecha)$", out, re.M)
    assert booked, "the sweep booked nothing"
    seq, start, end, uid = booked.groups()
    assert f"  UID:{uid}\n" in out and ":mailto:alan@example.net\n" in out
    compact = lambda t: t.replace("-", "").replace(":", "")
    assert f"  DTSTART:{compact(start)}\n  DTEND:{compact(end)}\n" in out, "no event in the calendar"
    assert f"Message-ID: <{uid.replace('@', '-request@')}>" in out
    local = lambda t: datetime.strptime(t, "%Y-%m-%dT%H:%M:%SZ").replace(
        tzinfo=timezone.utc).astimezone(ZoneInfo("Europe/Berlin"))
    when = f"{local(start):%A %d %B %Y, %H:%M}\u2013{local(end):%H:%M} Europe/Berlin"
    assert f"Subject: Invitation: Book a consultation (booked by alan@example.net) \u2014 {when}\n" \
        in out, "the invitation does not tell the time as the booking page did"
    assert f"\nWhen: {when}\n" in out
    assert re.search(r"\nTo change or cancel it: http://127\.0\.0\.1:\d+/s/ada/consult/m/[0-9a-f]+\n",
                     out), "the invitation carries no manage link"
    assert "[an invitation attached: text/calendar; method=REQUEST]" in out
    assert re.search(rf"^cancelled +\d+ +{start} → {end} +booking {seq} +alan@example\.net +{uid}$",
                     out, re.M), "the cancel did not withdraw the booking"
    assert "The demo calendar holds no event any more" in out
    assert "[text/calendar; method=CANCEL]" in out
    before, during, after = slots_shown(out)
    assert during and before[0] not in during, "a booked time was still offered"
    assert after[0] == before[0], "the cancelled time was not offered again"


def test_the_demo_can_keep_its_sandbox_when_asked(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("MECHA_")}
    env.update(TMPDIR=str(tmp_path), HOME=str(tmp_path), MECHA_DEMO_KEEP="1")
    p = subprocess.run(["sh", str(ROOT / "docs" / "demo.sh"), BIN], env=env,
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    kept = [d for d in tmp_path.iterdir() if d.name.startswith("mecha-demo.")]
    assert len(kept) == 1 and (kept[0] / "home" / "requests").is_dir()
    assert f"the sandbox {kept[0]} is kept" in p.stdout
