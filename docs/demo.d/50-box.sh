# Sourced by docs/demo.sh: the loop through the box. A box on loopback (SQLite in
# the sandbox), an owner's home of its own paired with it, a type and a booking
# type's slots pushed, a stranger's form (when this box serves forms), the drain.
# The box and the owner's home stay up for 60-booking.sh, which stops the box.
say "The box: the public side, its own program, on loopback"
MAIN_HOME=$MECHA_HOME
export MECHA_HOME="$SANDBOX/owner"
mkdir -p "$MECHA_HOME/factory/types"
chmod 700 "$MECHA_HOME" "$MECHA_HOME/factory" "$MECHA_HOME/factory/types"
BOX_PORT=$("$PYTHON" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])')
GATE="http://127.0.0.1:$BOX_PORT"
printf '\n$ mecha box owner add ada --data %s\n' "$SANDBOX/box"
"$MECHA" box owner add ada --data "$SANDBOX/box" --json > /dev/null
echo "  (the first keys are shown once on the box; the home gets its own by pairing)"
"$MECHA" box serve --data "$SANDBOX/box" --listen "127.0.0.1:$BOX_PORT" 2> "$SANDBOX/box.log" &
BOX_PID=$! # demo.sh's cleanup stops it, however the demo ends
i=0
while ! grep -q '"event":"listening"' "$SANDBOX/box.log" 2>/dev/null && [ $i -lt 100 ]; do
  sleep 0.1; i=$((i + 1))
done
echo "(mecha box serve --data \$SANDBOX/box --listen 127.0.0.1:$BOX_PORT is running)"
# Pairing: a one-time code made on the box, spent at home for the gate and the keys.
printf '\n$ mecha box pair --owner ada --data %s --public-url %s\n' "$SANDBOX/box" "$GATE"
CODE=$("$MECHA" box pair --owner ada --data "$SANDBOX/box" --public-url "$GATE" --json |
  "$PYTHON" -c 'import json, sys; print(json.load(sys.stdin)["code"])')
echo "  pairing code for ada: $CODE (works once, for 15 minutes)"
run pair "$GATE" "$CODE" --handle ada

cat > "$MECHA_HOME/factory/types/meeting.toml" <<'TOML'
id = "meeting"
version = 1
title = "Request a meeting"

[[fields]]
name = "requester_name"
label = "Your name"
kind = "text"
max_length = 120
required = true

[[fields]]
name = "requester_email"
label = "Your email"
kind = "email"
required = true

[[fields]]
name = "message"
label = "What about?"
kind = "long_text"
max_length = 2000
required = true

[verification]
field = "requester_email"

[confirmation]
heading = "Thank you, {requester_name}"
body = "Your request is in the queue."
TOML
cat > "$MECHA_HOME/factory/types/consult.toml" <<'TOML'
id = "consult"
version = 1
title = "Book a consultation"
kind = "booking"

[[fields]]
name = "email"
label = "Your email"
kind = "email"
required = true

[verification]
field = "email"

[availability]
timezone = "Europe/Berlin"
durations = [30]
min_notice_hours = 24
horizon_days = 7
per_day_cap = 2

[[availability.windows]]
day = "tue"
start = "10:00"
end = "12:00"

[[availability.windows]]
day = "thu"
start = "14:00"
end = "16:00"
TOML
cat > "$SANDBOX/calendar.ics" <<'ICS'
BEGIN:VCALENDAR
VERSION:2.0
PRODID:-//mecha demo//EN
END:VCALENDAR
ICS
printf '[calendar]\npath = "%s"\n' "$SANDBOX/calendar.ics" > "$MECHA_HOME/config.toml"

say "Home publishes to the box: two types (their pages go live), a booking type's slots"
run types push meeting
run types push consult
run slots push consult
run drain --dry-run

say "A stranger fills in the form and confirms their address"
FORM=$("$PYTHON" - "$GATE" <<'PY'
import urllib.request, sys
opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
try:
    opener.open(sys.argv[1] + "/f/ada/meeting", timeout=10).read()
    print("yes")
except urllib.error.HTTPError as e:
    print("no" if e.code == 404 else "error %d" % e.code)
PY
)
SHOTS=${SCREENSHOTS:-$(dirname "$MECHA")/screenshots/demo}
BROWSER=no
if [ -x "${CHROMIUM:-/usr/bin/chromium}" ] && command -v node >/dev/null \
   && [ -d "$ROOT/tests/web/node_modules/playwright-core" ]; then
  BROWSER=yes
fi
if [ "$FORM" = yes ] && [ "$BROWSER" = yes ]; then
  # The same browser the tests drive (tests/web/browser.mjs); its profile goes
  # into the sandbox and away with it.
  echo "  in headless Chromium: the form, answered, sent; the link from the (logged) mail,"
  echo "  opened and confirmed. Each page, as the stranger saw it:"
  rm -rf "$SHOTS"
  TMPDIR="$SANDBOX" node "$ROOT/tests/web/demo_stranger.mjs" form "$GATE/f/ada/meeting" \
    "$SANDBOX/box.log" "$SHOTS" '{"requester_name": "Grace Hopper",
    "requester_email": "grace@example.org",
    "message": "Could we talk about compilers next Tuesday?"}'
elif [ "$FORM" = yes ]; then
  echo "(no browser here for screenshots: make deps installs Debian's chromium)"
  "$PYTHON" - "$GATE" "$SANDBOX/box.log" <<'PY'
import json, sys, time, urllib.parse, urllib.request
gate, log = sys.argv[1:]
opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
form = {"requester_name": "Grace Hopper", "requester_email": "grace@example.org",
        "message": "Could we talk about compilers next Tuesday?"}
opener.open(gate + "/f/ada/meeting", urllib.parse.urlencode(form).encode(), timeout=10).read()
print("  POST /f/ada/meeting: \"Check your email\"")
link = None
for _ in range(100):
    for line in open(log):
        if line.startswith("{") and json.loads(line).get("event") == "verification_link":
            link = json.loads(line)["link"]
    if link:
        break
    time.sleep(0.1)
assert link, "the box logged no verification link"
path = urllib.parse.urlsplit(link).path
opener.open(gate + path, timeout=10).read()
opener.open(gate + path, b"", timeout=10).read()
print("  the link from the (logged) mail, opened and confirmed: the request is queued")
PY
else
  cat <<'TXT'
(This build of the box does not serve its form pages yet (/f/... answers 404), so no
stranger can fill one in here: the queue stays empty, and the drain below finds nothing.
With the pages wired in, this step posts the form and follows the verification link.)
TXT
fi

say "The drain brings the queue home, then lets the box forget it"
run drain
run frontdoor extract
run frontdoor next > "$SANDBOX/owner-next.json"
cat "$SANDBOX/owner-next.json"
