# Sourced by docs/demo.sh after 50-box.sh, with its box still up and the owner's
# home still MECHA_HOME: the booking half of the loop. A stranger books a time on
# the box; the drain brings the booking home; the sweep writes the event into the
# demo calendar and mails the invitation (a local SMTP server stands for the
# stranger's mailbox); the stranger cancels through the invitation's manage link;
# the next drain and sweep withdraw the event; the next push offers the time again.
say "A stranger books a time on the box"
mkdir -p "$SANDBOX/mail"
"$PYTHON" "$ROOT/tests/support/smtp_sink.py" "$SANDBOX/mail" > "$SANDBOX/mail.port" &
SMTP_PID=$! # demo.sh's cleanup stops it, however the demo ends
i=0
while [ ! -s "$SANDBOX/mail.port" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
cat >> "$MECHA_HOME/config.toml" <<TOML
[mail]
smtp_url = "smtp://127.0.0.1:$(cat "$SANDBOX/mail.port")"
from = "Ada <ada@example.org>"
TOML
BOOKER=alan@example.net
echo "The times home pushed, as the owner's mecha computes them from the demo calendar:"
run slots show consult
echo
if [ "$BROWSER" = yes ]; then
  echo "  in headless Chromium: the week of times home pushed, the first one picked and held,"
  echo "  the link from the (logged) mail opened, the booking confirmed:"
  TMPDIR="$SANDBOX" node "$ROOT/tests/web/demo_stranger.mjs" book "$GATE/s/ada/consult" \
    "$SANDBOX/box.log" "$SHOTS" "{\"email\": \"$BOOKER\"}"
else
  "$PYTHON" - "$GATE" "$SANDBOX/box.log" "$BOOKER" <<'PY'
import json, sys, time, urllib.parse, urllib.request
gate, log, booker = sys.argv[1:]
opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
def page(path, body=None, says=""):
    text = opener.open(gate + path, body, timeout=10).read().decode()
    if says not in text:
        sys.exit(f"FAILED: {path} does not say {says!r}")
def links():
    return [json.loads(l)["link"] for l in open(log) if l.startswith("{")
            and json.loads(l).get("event") == "verification_link"]
first = json.load(opener.open(gate + "/s/ada/consult/slots.json", timeout=10))["slots"][0]
seen = len(links())
form = {"_slot": "%s|%d" % (first["start"], first["duration_minutes"]), "email": booker}
page("/s/ada/consult", urllib.parse.urlencode(form).encode(), "Almost there")
print("  POST /s/ada/consult: %s held, \"Almost there\"" % first["start"])
for _ in range(100):
    if len(links()) > seen:
        break
    time.sleep(0.1)
assert len(links()) > seen, "the box logged no verification link"
path = urllib.parse.urlsplit(links()[-1]).path
page(path, None, "Confirm your booking")
page(path, b"", "re booked</h1>")
print("  the link from the (logged) mail, opened and confirmed: \"You're booked\"")
PY
fi

say "Home: the drain brings the booking in, the sweep books it (no model, no brief)"
run drain
run frontdoor list
run frontdoor extract
if "$MECHA" frontdoor next | grep -q '"consult"'; then
  echo "FAILED: the booking reached a brief" >&2
  exit 1
fi
echo "(a booking arrives answered: extract, next and the review queue leave it to the sweep)"
run frontdoor sweep -v

say "The event, in the demo calendar"
"$PYTHON" - "$SANDBOX/calendar.ics" <<'PY'
import sys
text = open(sys.argv[1]).read().replace("\r\n", "\n").replace("\n ", "")
ev = text.split("BEGIN:VEVENT\n", 1)[1].split("END:VEVENT", 1)[0] if "BEGIN:VEVENT" in text else ""
keep = ("UID", "DTSTART", "DTEND", "SUMMARY", "ORGANIZER", "ATTENDEE")
lines = [l for l in ev.splitlines() if l.split(":", 1)[0].split(";", 1)[0] in keep]
if not any(l.startswith("UID:booking-") for l in lines):
    sys.exit("FAILED: the sweep wrote no event into the calendar")
print("\n".join("  " + l for l in lines))
PY

say "The invitation, as the stranger's mailbox received it"
"$PYTHON" - "$SANDBOX/mail" "$SANDBOX/manage.url" <<'PY'
import email, email.policy, pathlib, sys
[eml] = sorted(pathlib.Path(sys.argv[1]).glob("*.eml"))
msg = email.message_from_bytes(eml.read_bytes(), policy=email.policy.default)
for h in ("From", "To", "Subject", "Message-ID"):
    print(f"{h}: {msg[h]}")
for part in msg.walk():
    if part.get_content_type() == "text/plain":
        print("\n" + part.get_content().rstrip())
        manage = [w for w in part.get_content().split() if "/m/" in w]
    elif part.get_content_type() == "text/calendar":
        print(f"\n[an invitation attached: text/calendar; method={part.get_param('method')}]")
if not manage:
    sys.exit("FAILED: the invitation carries no manage link")
open(sys.argv[2], "w").write(manage[0])
PY
echo
echo "The booked time is busy now, so it is no longer offered:"
run slots show consult
run slots push consult

say "The stranger changes their mind: the manage link in the invitation"
if [ "$BROWSER" = yes ]; then
  echo "  in headless Chromium: the link opened, \"Cancel this booking\":"
  TMPDIR="$SANDBOX" node "$ROOT/tests/web/demo_stranger.mjs" cancel "$(cat "$SANDBOX/manage.url")" \
    "$SHOTS"
else
  "$PYTHON" - "$GATE" "$(cat "$SANDBOX/manage.url")" <<'PY'
import sys, urllib.parse, urllib.request
opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
path = urllib.parse.urlsplit(sys.argv[2]).path
if "<h1>Cancelled</h1>" not in opener.open(sys.argv[1] + path, b"", timeout=10).read().decode():
    sys.exit("FAILED: the manage link did not cancel the booking")
print("  POST the manage link: \"Cancelled\"")
PY
fi

say "The next drain and sweep withdraw the event; the next push offers the time again"
run drain
run frontdoor sweep -v
run frontdoor list
if grep -q "BEGIN:VEVENT" "$SANDBOX/calendar.ics"; then
  echo "FAILED: the cancelled booking's event is still in the calendar" >&2
  exit 1
fi
echo
echo "The demo calendar holds no event any more; the stranger's mailbox got the cancel:"
"$PYTHON" - "$SANDBOX/mail" <<'PY'
import email, email.policy, pathlib, sys
last = sorted(pathlib.Path(sys.argv[1]).glob("*.eml"))[-1]
msg = email.message_from_bytes(last.read_bytes(), policy=email.policy.default)
methods = [p.get_param("method") for p in msg.walk() if p.get_content_type() == "text/calendar"]
print(f"  Subject: {msg['Subject']}  [text/calendar; method={''.join(methods)}]")
PY
run slots show consult
run slots push consult

kill "$SMTP_PID" 2>/dev/null || true
SMTP_PID=
kill "$BOX_PID" 2>/dev/null || true
wait "$BOX_PID" 2>/dev/null || true
BOX_PID=
export MECHA_HOME="$MAIN_HOME"
