# Sourced by docs/demo.sh: a person releases the draft; it is delivered for real.
say "The outbox: a person reads the draft and releases it"
mkdir -p "$SANDBOX/smtp"
"$PYTHON" "$ROOT/tests/support/smtp_sink.py" "$SANDBOX/smtp" > "$SANDBOX/smtp.port" &
SMTP_PID=$! # demo.sh's cleanup stops it, however the demo ends
i=0
while [ ! -s "$SANDBOX/smtp.port" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
SMTP_PORT=$(cat "$SANDBOX/smtp.port")
cat > "$MECHA_HOME/config.toml" <<TOML
[outbox]
tools = ["mail_send"]
[mail]
smtp_url = "smtp://127.0.0.1:$SMTP_PORT"
from = "Demo Person <me@example.org>"
TOML
echo "(a local SMTP server is listening on 127.0.0.1:$SMTP_PORT)"
run outbox list
DRAFT=$("$MECHA" outbox list --json | "$PYTHON" -c 'import json,sys; print(json.load(sys.stdin)[0]["id"])')
run outbox show "$DRAFT"
run outbox approve "$DRAFT" -y
run outbox approve "$DRAFT" -y || echo "(refused: a released draft is never delivered twice)"

say "What the SMTP server received"
for f in "$SANDBOX"/smtp/*.eml; do
  [ -e "$f" ] || continue
  tr -d '\r' < "$f" | sed -n '1,/^$/p' | grep -E '^(From|To|Subject|Message-ID):'
  echo "..."
done

say "The request caught up by itself: the released draft answered it"
run frontdoor list
kill "$SMTP_PID" 2>/dev/null || true
SMTP_PID=
