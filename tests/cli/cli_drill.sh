#!/usr/bin/env bash
# `fabricsm drill` as a user runs it: the default script on the built-in fabric (3 SMs, kill,
# return, partition, heal, loss) in JSON: one master after every event (one per part while
# partitioned), no LID changed, no LFT block written by a takeover on an unchanged fabric,
# detection within three polls; the text table; sticky; settings from --config; usage errors.
set -euo pipefail
fabricsm=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$fabricsm" drill --json > "$work/default.json" || fail "the default drill failed"
python3 - "$work/default.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
assert j["ok"] is True, j
assert len(j["sms"]) == 3 and j["bring_up"]["masters"] == ["sm1"], j["bring_up"]
ev = {e["event"]: e for e in j["events"]}
assert list(ev) == ["kill", "return", "partition", "heal", "loss"], list(ev)
for e in j["events"]:
    assert e["lids_changed"] == 0, e
    assert e["one_master"], e
kill = ev["kill"]
assert kill["masters"] == ["sm2"] and kill["lft_blocks"] == 0, kill
assert 250 <= kill["detection_ms"] <= 450 and kill["master_ms"] < 1000, kill
assert kill["rereg_ports"] == 1024, kill            # every CA port's SM LID changed
assert ev["return"]["masters"] == ["sm1"] and ev["return"]["lft_blocks"] == 0, ev["return"]
assert ev["partition"]["partitions"] == 2 and len(ev["partition"]["masters"]) == 2, ev["partition"]
assert ev["heal"]["masters"] == ["sm1"] and ev["heal"]["routed"] is True, ev["heal"]
assert ev["loss"]["masters"] == ["sm1"] and ev["loss"]["master_ms"] is None, ev["loss"]
print("drill: kill detected in %.0f ms, master after %.0f ms, up after %.0f ms; 0 LFT blocks"
      % (kill["detection_ms"], kill["master_ms"], kill["up_ms"]))
PY

# Sticky: the first SM comes back and stays standby; text output.
"$fabricsm" drill --fat-tree 3,8 --sticky --events kill,return > "$work/sticky.txt" || fail "sticky drill"
grep -q '^return .* sm2 (exactly one)' "$work/sticky.txt" || { cat "$work/sticky.txt"; fail "sticky: sm2 should stay master"; }
grep -q 'drill passed' "$work/sticky.txt" || fail "no verdict line"

# --config: the SMs take the file's settings (here its SMInfo polling interval: three misses of
# 300 ms polls), and a drill option given goes on top (--poll-ms 100). cli_drill_rogue.sh has
# the M_Key settings.
printf 'sminfo_polling_timeout = 300\n' > "$work/poll.conf"
for poll in file option; do
  extra=""
  [ $poll = option ] && extra="--poll-ms 100"
  # shellcheck disable=SC2086
  "$fabricsm" drill --fat-tree 3,8 --config "$work/poll.conf" --events kill --json $extra > "$work/poll.json" ||
    fail "--config $poll: the drill failed"
  python3 - "$work/poll.json" $poll <<'PY' || fail "--config $poll: detection time"
import json, sys
kill = json.load(open(sys.argv[1]))["events"][0]
lo, hi = (600, 1000) if sys.argv[2] == "file" else (250, 450)
assert lo <= kill["detection_ms"] <= hi, (sys.argv[2], kill["detection_ms"])
PY
done

# Usage errors (an unknown event too: checked before the cluster is built) exit 2 with a message.
for args in "--sms 0" "--priorities 1,2" "--events explode --fat-tree 2,4" "--sm-key zz" "--poll-ms 0"; do
  set +e
  # shellcheck disable=SC2086
  "$fabricsm" drill $args > /dev/null 2> "$work/err.txt"
  rc=$?
  set -e
  if [ "$args" = "--events explode --fat-tree 2,4" ]; then
    [ $rc -eq 2 ] && grep -q "unknown drill event 'explode'" "$work/err.txt" || fail "$args: exit $rc, $(cat "$work/err.txt")"
  else
    [ $rc -eq 2 ] && [ -s "$work/err.txt" ] || fail "$args: exit $rc, $(cat "$work/err.txt")"
  fi
done
echo "cli_drill: OK"
