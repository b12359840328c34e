# Sourced by docs/demo.sh: a mission from judging to landed on the board.
say "The mission board: an agent reports, a person lands"
run blocks add sb_alpha --title "the front door" --boundary 1 --contract 1
MISSION=$("$MECHA" mission new --block sb_alpha --brain-ref repo-a --agent agent-a --json |
  "$PYTHON" -c 'import json,sys; print(json.load(sys.stdin)["mission_id"])')
echo "(agent-a opened mission $MISSION at seq 1, judging)"
HEAD=$("$MECHA" mission heads --json | "$PYTHON" -c 'import json,sys; print(json.load(sys.stdin)["missions"][0]["head_letter_id"])')
letter() { # seq prev phase extra-json
  "$PYTHON" - "$MISSION" "$1" "$2" "$3" "$4" <<'PY'
import json, sys
mission, seq, prev, phase, extra = sys.argv[1:]
l = {"schema": "m1nd-mission-letter-v0", "mission_id": mission, "mission_seq": int(seq),
     "prev_letter_id": prev, "block_id": "sb_alpha", "brain_ref": "repo-a", "seat": "hand",
     "capability": "build-runner", "phase": phase, "started_at": "2026-07-09T00:00:00Z",
     "updated_at": "2026-07-09T00:0%s:00Z" % seq}
l.update(json.loads(extra))
print(json.dumps(l))
PY
}
letter 2 "$HEAD" executing '{}' > "$SANDBOX/l2.json"
run mission post --agent agent-a "$SANDBOX/l2.json"
echo "(the same letter again is a no-op; a stale writer is refused:)"
run mission post --agent agent-a "$SANDBOX/l2.json"
letter 2 "$HEAD" executing '{"tokens_total": 5}' > "$SANDBOX/stale.json"
run mission post --agent agent-b "$SANDBOX/stale.json" || echo "(refused, nothing appended)"
HEAD=$("$MECHA" mission heads --json | "$PYTHON" -c 'import json,sys; print(json.load(sys.stdin)["missions"][0]["head_letter_id"])')
letter 3 "$HEAD" merge_wait '{"gate": {"command": "make check", "exit_status": 0, "artifact_hash": "sha256:gatelog"}, "receipt_candidate": {"block_id": "sb_alpha", "type": "test", "scope": {"boundary_version": 1, "contract_version": 1}, "evidence": {"command": "make check", "exit_status": 0, "artifact_hash": "sha256:loghash", "evidence_refs": ["artifact://run/1"]}}}' > "$SANDBOX/l3.json"
run mission post --agent agent-a "$SANDBOX/l3.json"
letter 4 "$("$MECHA" mission heads --json | "$PYTHON" -c 'import json,sys; print(json.load(sys.stdin)["missions"][0]["head_letter_id"])')" landed '{"gate": {"command": "make check", "exit_status": 0, "artifact_hash": "sha256:gatelog"}, "receipt": {"imported": true, "store_version": 7}}' > "$SANDBOX/forged.json"
echo "(an agent cannot claim landed: no receipt was imported at that store_version)"
run mission post --agent agent-a "$SANDBOX/forged.json" || echo "(refused, nothing appended)"
run mission land "$MISSION"
run mission log "$MISSION"
run blocks list
