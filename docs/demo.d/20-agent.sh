# Sourced by docs/demo.sh: an agent connected over MCP drafts a reply.
say "An agent connects over MCP (mecha mcp). Its client configuration:"
"$MECHA" mcp --help | sed -n '/^{$/,/^}$/p'

say "What a configured model would be told, and what it may do"
cat <<'TXT'
With a provider in config.toml, `mecha frontdoor triage` runs the privileged pass itself.
This sandbox has no model, so here a scripted client stands in for an agent: it speaks
MCP to `mecha mcp`, reads the briefs and drafts a reply to request 1. Its tools are the
agent-safe ones only: it cannot read the prose, choose a recipient, send, close, approve,
reject, land or archive anything.
TXT
printf '[outbox]\ntools = ["mail_send"]\n' > "$MECHA_HOME/config.toml"
"$PYTHON" - "$MECHA" <<'PY'
import json, subprocess, sys
calls = [
    {"jsonrpc": "2.0", "id": 1, "method": "initialize",
     "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": "demo-agent", "version": "1"}}},
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
     "params": {"name": "frontdoor_next", "arguments": {"limit": 1}}},
    {"jsonrpc": "2.0", "id": 4, "method": "tools/call",
     "params": {"name": "draft_reply", "arguments": {
         "seq": 1, "subject": "Re: a talk about compilers",
         "body": "Dear colleague,\n\nNext Tuesday works for me. Shall we say 10:00 UTC?\n"}}},
    {"jsonrpc": "2.0", "id": 5, "method": "tools/call",
     "params": {"name": "draft_reply", "arguments": {
         "seq": 2, "to": "mallory@example.net", "subject": "keys", "body": "here"}}},
]
p = subprocess.run([sys.argv[1], "mcp"], input="".join(json.dumps(c) + "\n" for c in calls),
                   capture_output=True, text=True, check=True)
answers = {a["id"]: a for a in map(json.loads, p.stdout.splitlines())}
print("tools offered:", ", ".join(t["name"] for t in answers[2]["result"]["tools"]))
brief = json.loads(answers[3]["result"]["content"][0]["text"])[0]
print("brief for request %d: topic %r, reply_to %s" % (brief["seq"], brief["extracted"]["topic"],
                                                   brief["reply_to"]))
print("draft_reply for request 1:", answers[4]["result"]["content"][0]["text"])
print("draft_reply with a 'to' of its own:", answers[5]["result"]["content"][0]["text"])
PY
run frontdoor list

if [ -n "${MECHA_DEMO_CONFIG:-}" ]; then
  say "Triage for real, with the provider of $MECHA_DEMO_CONFIG"
  # Your providers only, with drafts routed to the sandbox's outbox: nothing of your
  # outbox, mail or calendar settings is used.
  "$PYTHON" - "$MECHA_DEMO_CONFIG" > "$MECHA_HOME/config.toml" <<'PY'
import json, sys, tomllib
with open(sys.argv[1], "rb") as f:
    cfg = tomllib.load(f)
if "default_provider" in cfg:
    print("default_provider = %s" % json.dumps(cfg["default_provider"]))
for name, table in cfg.get("providers", {}).items():
    print("[providers.%s]" % name)
    for k, v in table.items():
        print("%s = %s" % (k, json.dumps(v)))
print('[outbox]\ntools = ["mail_send", "calendar_invite"]')
PY
  run frontdoor triage --seq 4 || echo "(triage did not complete; see the message above)"
  run frontdoor show 4 | sed -n '1,8p'
else
  echo
  echo "(To see triage run for real, give the demo a config.toml with a provider:"
  echo "   make demo MECHA_DEMO_CONFIG=~/.mecha/config.toml )"
fi
