#!/usr/bin/env bash
# cli_status.sh FABRICSM NETFILE: the commands that ask a running daemon (`fabricsm run` on
# ibsim), their output parsed as JSON with its types checked:
# - `status --json`: numbers, true/false, the port and the last sweep as documented;
# - `status --resweep` waits for the sweep it asked for and prints it whole (it printed the
#   report of a sweep still running: a line of zeros and an empty verdict), text and JSON;
# - `health clear` prints the daemon's JSON answer; an unknown port is an error (exit 1).
. "$(dirname "$0")/../ibsim/lib.sh"

FABRICSM=$(realpath "$1")
NET=$2
[ -f "$NET" ] || { echo "SKIP: $NET not found"; exit 77; }
ibsim_init status-$$
name="status $(basename "$NET")"
ibsim_start "$NET" || exit 1
switches=$(grep -c '^Switch' "$NET")

conf=$work/fabricsm.conf
printf 'routing_engine = minhop\ndb_path = %s\ncontrol_socket = %s\nsweep_interval = 0\n' \
  "$work/fabricsm.db" "$work/sm.sock" > "$conf"
(cd "$work/cwd" && LD_PRELOAD=$SHIM exec "$FABRICSM" run --config "$conf" 2> "$work/daemon.log") &
sm_pid=$!
i=0
until grep -q 'SUBNET UP' "$work/daemon.log" 2> /dev/null; do
  i=$((i + 1)); [ $i -gt 300 ] && { fail "no SUBNET UP: $(tail -3 "$work/daemon.log")"; exit 1; }
  sleep 0.1
done
status() { "$FABRICSM" status --socket "$work/sm.sock" "$@"; }

cat > "$work/check.py" <<'PY'
import json, sys
kind, path = sys.argv[1], sys.argv[2]
j = json.loads(open(path, "rb").read().decode("utf-8"))
def types(obj, schema, where):
    for k, t in schema.items():
        assert k in obj, f"{where}: no {k!r} in {obj}"
        assert type(obj[k]) in (t if isinstance(t, tuple) else (t,)), f"{where}.{k} = {obj[k]!r}, want {t}"
NUM = (int, float)
if kind in ("status", "resweep"):
    types(j, {"pid": int, "uptime_s": NUM, "state": str, "priority": int, "act_count": int, "master": str,
              "subnet_up": bool, "sweeping": bool, "sweeps": int, "port": dict, "config": str, "db": str,
              "routing_engine": str, "commits": int, "last_commit_ms": NUM, "failed_commits": int,
              "store_error": str, "last_sweep": dict, "peers": list}, "status")
    types(j["port"], {"ca": str, "port": int, "guid": str, "lid": int}, "status.port")
    s = j["last_sweep"]
    types(s, {"number": int, "heavy": bool, "trigger": str, "in_progress": bool}, "status.last_sweep")
    assert j["state"] == "Master" and j["subnet_up"] is True and j["port"]["lid"] > 0, j
    if kind == "resweep":  # the sweep asked for, over, whole
        before, switches = int(sys.argv[3]), int(sys.argv[4])
        assert s["number"] > before and s["trigger"] == "asked for on the control socket", s
        assert s["in_progress"] is False and j["sweeping"] is False, s
        types(s, {"up": bool, "failure": str, "switches": int, "cas": int, "max_lid": int, "engine": str,
                  "lft_blocks_written": int, "smps": int, "ms": NUM}, "status.last_sweep")
        assert s["up"] is True and s["switches"] == switches and s["engine"] == "minhop", s
    print(j["last_sweep"]["number"])
elif kind == "cleared":
    types(j, {"cleared": int}, "health clear")
elif kind == "error":
    types(j, {"error": str}, "health clear")
PY

status --json > "$work/status.json" || fail "status --json: exit $?"
before=$(python3 "$work/check.py" status "$work/status.json") && log "status --json: types as documented" ||
  { fail "status --json: $(cat "$work/status.json")"; before=0; }

# --resweep: the text printed is the sweep asked for, whole.
status --resweep > "$work/resweep.txt" || fail "status --resweep: exit $?"
line=$(grep '^sweep ' "$work/resweep.txt")
number=$(sed -n 's/^sweep *#\([0-9]*\) .*/\1/p' <<< "$line")
if [ -n "$number" ] && [ "$number" -gt "$before" ] &&
   grep -q -E "^sweep +#$number heavy \(asked for on the control socket\): up; $switches switches, [1-9][0-9]* CAs, max LID [1-9][0-9]*, engine minhop" <<< "$line" &&
   grep -q '^fabricsm (pid [0-9]*), up [0-9]* s: Master, subnet up' "$work/resweep.txt"; then
  log "status --resweep: $line"
else
  fail "status --resweep (sweep before: $before) printed: $(cat "$work/resweep.txt")"
fi
before=$number
status --resweep --json > "$work/resweep.json" || fail "status --resweep --json: exit $?"
python3 "$work/check.py" resweep "$work/resweep.json" "${before:-0}" "$switches" > /dev/null &&
  log "status --resweep --json: the new sweep, over, with its figures" ||
  fail "status --resweep --json: $(cat "$work/resweep.json")"

# health clear: the daemon's answer, JSON.
"$FABRICSM" health clear --socket "$work/sm.sock" > "$work/clear.json" || fail "health clear: exit $?"
python3 "$work/check.py" cleared "$work/clear.json" || fail "health clear: $(cat "$work/clear.json")"
"$FABRICSM" health clear --socket "$work/sm.sock" --port S9_999:1 > "$work/clear-bad.json"
rc=$?
[ $rc -eq 1 ] && python3 "$work/check.py" error "$work/clear-bad.json" && log "health clear: JSON answers" ||
  fail "health clear --port S9_999:1: exit $rc, $(cat "$work/clear-bad.json")"

sm_stop TERM || fail "the daemon did not stop cleanly"
exit "$failed"
