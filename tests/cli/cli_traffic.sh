#!/usr/bin/env bash
# `fabricsm sim --traffic` as a user runs it (a second or two): EBB with its seed and spread in
# --json, the same figures for the same seed, full bandwidth for a shift on a complete tree
# under ftree, adaptive switches doing no worse than static routing, --compare's traffic rows,
# the PerfMgr reading the traffic off the simulated PMAs, and bad patterns and flows files
# refused before anything runs.
set -uo pipefail
fabricsm=$1
shared=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
net=$shared/topologies/ft2-r8.net
[ -f "$net" ] || { echo "SKIP: $net not found"; exit 77; }

"$fabricsm" sim -t "$net" -R ftree --traffic random-bisection --bisections 5 --seed 7 --json > "$work/a.json" ||
  fail "random-bisection: exit $?"
"$fabricsm" sim -t "$net" -R ftree --traffic random-bisection --bisections 5 --seed 7 --json > "$work/b.json" ||
  fail "random-bisection again: exit $?"
"$fabricsm" sim -t "$net" -R ftree --traffic random-bisection --bisections 5 --seed 7 --adaptive --json > "$work/ar.json" ||
  fail "random-bisection --adaptive: exit $?"
"$fabricsm" sim -t "$net" -R ftree --traffic shift:3 --message-size 4096 --json > "$work/shift.json" ||
  fail "shift:3: exit $?"
python3 - "$work" <<'PY' || fail "traffic JSON"
import json, sys
w = sys.argv[1]
a, b, ar, sh = (json.load(open(f"{w}/{n}.json"))["traffic"] for n in ("a", "b", "ar", "shift"))
e = a["ebb"]
assert e["bisections"] == 5 and e["seed"] == 7, e
assert 0 < e["min"] <= e["mean"] <= e["max"] <= 1 and e["stddev"] >= 0, e
assert a == {**b, "wall_s": a["wall_s"]}, (a, b)  # the same seed, the same figures
assert a["adaptive"] is False and ar["adaptive"] is True and ar["adaptive_switches"] > 0, ar
assert ar["ar_groups_from"] == "adaptive-hint", ar
assert ar["ebb"]["mean"] >= e["mean"] - 1e-9, (ar["ebb"], e)
assert sh["ebb"] is None and sh["flows"] == 32 and sh["unrouted"] == 0, sh
assert abs(sh["min_rate"] - 1.0) < 1e-6, sh  # a complete tree under ftree: no shift collides
# 4096 bytes at 200 Gb/s (4x HDR), every flow at full rate.
assert abs(sh["completion_s"] - 4096 * 8 / 200e9) < 1e-12, sh
assert len(sh["hottest"]) == 5 and sh["hottest"][0]["utilisation"] <= 1.000001, sh["hottest"]
PY

out=$("$fabricsm" sim -t "$net" --compare minhop,ftree --traffic random-bisection --bisections 3 2>&1) ||
  fail "compare: exit $?"
[[ $out == *"EBB (mean over bisections)"* && $out == *"traffic random-bisection over 32 CAs, seed 1, 3 bisections"* ]] ||
  fail "compare rows: $out"

out=$("$fabricsm" sim -t "$net" --traffic incast:4 --perfmgr 2 2>&1) || fail "incast with --perfmgr: exit $?"
[[ $out == *'perfmgr saw "S1_'*'sending most: 200.0 Gb/s'* ]] || fail "the PerfMgr did not see the incast: $out"

# Refused before anything runs.
printf 'H00000 H00001\nH00000 nobody 2\n' > "$work/flows"
out=$("$fabricsm" sim -t "$net" --traffic "file:$work/flows" 2>&1)
rc=$?
[ $rc -eq 1 ] || fail "bad flows file: exit $rc"
[[ $out == *"$work/flows:2: no CA port with a link named 'nobody'"* && $out != *subnet* ]] || fail "bad flows file: $out"
printf 'H00000 H00001 3\n"H00002" H00000[1]\n' > "$work/flows"
"$fabricsm" sim -t "$net" --traffic "file:$work/flows" --json > "$work/f.json" || fail "flows file: exit $?"
python3 -c 'import json,sys; t=json.load(open(sys.argv[1]))["traffic"]; assert t["flows"] == 2 and t["unrouted"] == 0, t' \
  "$work/f.json" || fail "flows file figures"
# --plot with --traffic: the links' utilisation, every channel drawn (idle ones at 0), top 1.0.
"$fabricsm" sim -t "$net" --compare ftree,minhop --traffic shift:1 --plot "$work/u.svg" > /dev/null || fail "utilisation plot: exit $?"
grep -q 'utilisation (share of the link rate)' "$work/u.svg" && [ "$(grep -c '<polyline' "$work/u.svg")" = 2 ] &&
  grep -q '>1.0</text>' "$work/u.svg" && ! grep -q '>1.2</text>' "$work/u.svg" || fail "utilisation plot: axes or curves"
if command -v rsvg-convert > /dev/null; then rsvg-convert "$work/u.svg" -o "$work/u.png" || fail "utilisation plot: not SVG"; fi
for bad in "--traffic zigzag" "--traffic shift:0" "--adaptive" "--traffic all-to-all --bisections 0" \
           "--traffic all-to-all --message-size 0"; do
  # shellcheck disable=SC2086
  out=$("$fabricsm" sim -t "$net" $bad 2>&1)
  rc=$?
  [ $rc -eq 2 ] || fail "'$bad': exit $rc, want 2 ($out)"
done
echo "ok"
